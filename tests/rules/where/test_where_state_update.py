"""Predicated state updates (issue #34 item 6): ``if T:`` whose arm only
updates tensors in place.  Original vs mended on the same inputs: outputs
and buffers bit-identical after every call, eagerly and compiled; the site
rewritten; one graph without gradients, the break kept (with the reason)
with them."""

from __future__ import annotations

import textwrap

import pytest
import torch

from graphmend import compat
from graphmend.pipeline import transform_source
from harness import GraphCounter, load_module
from locations import FIXTURES

SOURCE = textwrap.dedent("""
    import torch
    from torch import nn


    class Tracker(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(3))
            self.register_buffer("initted", torch.tensor(False))

        def forward(self, x):
            if not self.initted:
                self.buf.copy_(x * 2)
                self.initted.fill_(True)
            return x + self.buf


    class Resetter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("acc", torch.zeros(3))
            self.register_buffer("count", torch.zeros((), dtype=torch.long))

        def forward(self, x):
            if x.sum() > 0:
                self.acc.zero_()
            if x.mean() < 0:
                self.acc.add_(x, alpha=0.5)
                self.count.add_(1)
            return x * 2 + self.acc
""")
LINES = frozenset({13, 26, 28})
INPUTS = [torch.tensor([1.0, -2.0, 0.5]), torch.tensor([-1.0, -2.0, 0.5]), torch.tensor([3.0, 2.0, -9.0]),
          torch.tensor([-1.0, -1.0, -1.0])]


@pytest.fixture
def modules(tmp_path):
    result = transform_source(SOURCE, rules=["where"], lines=LINES)
    return load_module(SOURCE, tmp_path, "state_orig"), load_module(result.code, tmp_path, "state_mended"), result


def test_rewritten(modules):
    *_, result = modules
    assert sorted(site.lineno for site in result.sites if site.rule == "where") == sorted(LINES)
    assert result.code.count("_graphmend.predicated_update(") == 5


@pytest.mark.parametrize("name", ["Tracker", "Resetter"])
@pytest.mark.parametrize("compiled", [False, True])
def test_outputs_and_state_identical_without_gradients(modules, name, compiled):
    original_module, mended_module, _ = modules
    original, mended = getattr(original_module, name)(), getattr(mended_module, name)()
    counter = GraphCounter()
    torch._dynamo.reset()
    run = torch.compile(mended, backend=counter) if compiled else mended
    with torch.no_grad():
        for x in INPUTS:
            assert torch.equal(run(x.clone()), original(x.clone()))
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert torch.equal(a, b), key
    if compiled:
        assert counter.graphs == 1


def test_gradients_enabled_keep_the_break_with_the_reason(modules):
    original_module, mended_module, _ = modules
    original, mended = original_module.Resetter(), mended_module.Resetter()
    torch._dynamo.reset()
    start = len(compat.graph_break_reasons())
    run = torch.compile(mended, backend="eager")
    for x in INPUTS:
        x = x.clone().requires_grad_()
        assert torch.equal(run(x), original(x))
        for a, b in zip(original.buffers(), mended.buffers()):
            assert torch.equal(a, b)
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    assert any("predicated state update: gradients are enabled" in reason for reason in reasons)


NOOPS = {
    "random numbers in the arm": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.copy_(torch.rand(3))
            return x
    """, "state update: `torch.rand(3)` is evaluated whether or not the arm is taken"),
    "a random in-place method": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.normal_()
            return x
    """, "state update: `self.buf.normal_()` draws random numbers"),
    "a shape change": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.unsqueeze_(0)
            return x
    """, "state update: `self.buf.unsqueeze_(0)` changes the target's shape"),
    "an aliasing view": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf += self.buf.t()
            return x
    """, "state update: `self.buf.t()` may read `self.buf` through a view"),
    "a Python flag set under a tensor test": ("""
        import torch

        def f(self, x):
            if not self.initted:
                self.buf.copy_(x)
                self.initted = True
            return x
    """, "state update: `self.initted = True` stores a Python value under a tensor test"),
    "a keyword argument the rule does not take": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.add_(other=x)
            return x
    """, "state update: `self.buf.add_(other=x)`: the keyword argument `other`"),
    "another statement in the arm": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.zero_()
                print("reset")
            return x
    """, None),
}


@pytest.mark.parametrize("case", sorted(NOOPS))
def test_named_noops(case):
    source, reason = NOOPS[case]
    source = textwrap.dedent(source)
    result = transform_source(source, rules=["where"], lines=frozenset({5}))
    assert "predicated_update" not in result.code
    if reason:
        assert any(skip.reason.startswith(reason) for skip in result.skips), result.skips


def test_an_arm_updating_its_own_test_reads_the_test_as_it_was(tmp_path):
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class Once(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("pending", torch.tensor(True))
                self.register_buffer("buf", torch.zeros(2))

            def forward(self, x):
                if self.pending:
                    self.pending.fill_(False)
                    self.buf.copy_(x)
                return x + self.buf
    """)
    result = transform_source(source, rules=["where"], lines=frozenset({13}))
    assert "_graphmend.frozen_test(self.pending)" in result.code
    original = load_module(source, tmp_path, "once_orig").Once()
    mended = load_module(result.code, tmp_path, "once_mended").Once()
    torch._dynamo.reset()
    counter = GraphCounter()
    run = torch.compile(mended, backend=counter)
    with torch.no_grad():
        for x in INPUTS:
            x = x[:2]
            assert torch.equal(run(x.clone()), original(x.clone()))
            assert torch.equal(mended.buf, original.buf) and torch.equal(mended.pending, original.pending)
    assert counter.graphs == 1


ARMS_SOURCE = textwrap.dedent("""
    import torch
    from torch import nn


    class Flip(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("flag", torch.tensor(False))
            self.register_buffer("buf", torch.zeros(3))

        def forward(self, x):
            if self.flag:
                self.flag.fill_(False)
                self.buf.add_(x)
            else:
                self.flag.fill_(True)
                self.buf.sub_(x)
            return x + self.buf
""")
#: The early-return fixture (an optimizer step, an EMA update), run here as a module.
EARLY_RETURN = FIXTURES / "where" / "state_update_early_return"
#: Sums of 0 (the early return), -0.0 and NaN among them.
ARMS_INPUTS = [torch.tensor([1.0, -2.0, 0.5]), torch.zeros(3), torch.tensor([-0.0, 0.0, -0.0]),
               torch.tensor([3.0, float("nan"), -9.0]), torch.tensor([-1.0, 0.25, 4.0])]


def _with_state(module) -> type:
    """The fixture's class with state, each call a step and an EMA update."""

    class Trainer(module.SumNormalizedSGD):
        def __init__(self):
            super().__init__()
            self.model, self.ema = torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)
            self.register_buffer("initted", torch.tensor(False))
            self.register_buffer("momentum", torch.zeros(3))
            self.register_buffer("param", torch.ones(3))

        def forward(self, grad):
            self.step(grad)
            self.model.weight.add_(grad.sum())
            self.update()
            return self.param * 2

    return Trainer


@pytest.fixture
def arms(tmp_path):
    result = transform_source(ARMS_SOURCE, rules=["where"], lines=frozenset({13}))
    early = [load_module(EARLY_RETURN.with_name(f"{EARLY_RETURN.name}.{kind}.py").read_text(), tmp_path,
                         f"early_{kind}") for kind in ("in", "out")]
    original, mended = (load_module(code, tmp_path, f"arms_{kind}") for kind, code in
                        (("orig", ARMS_SOURCE), ("mended", result.code)))
    return {"Flip": (original.Flip, mended.Flip), "Trainer": tuple(map(_with_state, early))}, result


def test_an_else_arm_rewritten(arms):
    _, result = arms
    assert [site.lineno for site in result.sites] == [13]
    assert result.code.count("_graphmend.not_(_gm_cond_13)") == 1


@pytest.mark.parametrize("name", ["Flip", "Trainer"])
@pytest.mark.parametrize("compiled", [False, True])
def test_else_arms_and_early_returns_bit_identical(arms, name, compiled):
    original_class, mended_class = arms[0][name]
    original, mended = original_class(), mended_class()
    mended.load_state_dict(original.state_dict())
    counter = GraphCounter()
    torch._dynamo.reset()
    run = torch.compile(mended, backend=counter) if compiled else mended
    with torch.no_grad():
        for x in ARMS_INPUTS:
            assert _same_bits(run(x.clone()), original(x.clone()))
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert _same_bits(a, b), key
    if compiled:
        assert counter.graphs == 1


def test_an_else_arm_on_a_test_of_many_elements_raises_as_the_original(arms):
    original_class, mended_class = arms[0]["Flip"]
    torch._dynamo.reset()
    original, mended = original_class(), mended_class()
    original.flag, mended.flag = torch.tensor([True, False]), torch.tensor([True, False])
    run = torch.compile(mended, backend="eager")
    with torch.no_grad():
        for call in (original, run):
            with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
                call(torch.ones(3))
    assert torch.equal(original.buf, mended.buf) and torch.equal(original.flag, mended.flag)


#: The fixture whose arms bind locals (an optimizer step after an early return, a decay, a rescale).
LOCALS = FIXTURES / "where" / "state_update_local_in_arm"


def _stepping(module) -> type:
    """The fixture's class with state, each call its three methods."""

    class Stepper(module.ScaledSGD):
        def __init__(self):
            super().__init__()
            self.register_buffer("momentum", torch.zeros(3))
            self.register_buffer("param", torch.ones(3))

        def forward(self, grad):
            self.step(grad)
            self.decay(grad)
            self.rescale(grad)
            return self.param * 2

    return Stepper


@pytest.mark.parametrize("compiled", [False, True])
def test_locals_bound_in_arms_bit_identical(tmp_path, compiled):
    original_class, mended_class = (_stepping(load_module(LOCALS.with_name(f"{LOCALS.name}.{kind}.py").read_text(),
                                                          tmp_path, f"locals_{kind}")) for kind in ("in", "out"))
    original, mended = original_class(), mended_class()
    counter = GraphCounter()
    torch._dynamo.reset()
    run = torch.compile(mended, backend=counter) if compiled else mended
    with torch.no_grad():
        for x in [*ARMS_INPUTS, torch.tensor([2.0, -0.5, 1.5])]:
            assert _same_bits(run(x.clone()), original(x.clone()))
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert _same_bits(a, b), key
    if compiled:
        assert counter.graphs == 1


#: The fixture with `if`s nested in arms (an EMA: a first copy, copies while warming up, a lerp every other step).
NESTED = FIXTURES / "where" / "state_update_nested_if"


def _averaging(module, made_on_first_update: bool = False) -> type:
    class Averaged(module.EMA):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.model, self.ema_model = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
            if made_on_first_update:  # init_ema() then stores a copy of the model: the call falls back
                self.ema_model = None
            self.register_buffer("step", torch.tensor(0))
            self.register_buffer("initted", torch.tensor(False))
            self.update_after_step = 2

        def forward(self, x):
            self.model.weight.add_(x.sum())  # the online model moves
            self.update()
            return self.ema_model.weight * 1

    return Averaged


@pytest.mark.parametrize("made_on_first_update", [False, True])
@pytest.mark.parametrize("compiled", [False, True])
def test_ifs_nested_in_arms_bit_identical(tmp_path, compiled, made_on_first_update):
    original_class, mended_class = (_averaging(load_module(NESTED.with_name(f"{NESTED.name}.{kind}.py").read_text(),
                                                           tmp_path, f"nested_{kind}"), made_on_first_update)
                                    for kind in ("in", "out"))
    original, mended = original_class(), mended_class()
    counter = GraphCounter()
    torch._dynamo.reset()
    run = torch.compile(mended, backend=counter) if compiled else mended
    with torch.no_grad():
        for x in [*ARMS_INPUTS, *ARMS_INPUTS]:  # the first copy, two warm-up copies, then lerps on even steps
            assert _same_bits(run(x.clone()), original(x.clone()))
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert _same_bits(a, b), key
    if compiled and not made_on_first_update:
        assert counter.graphs == 1


#: ema-pytorch's update: `step = self.step.item()` read before the step moves, then tested in Python.
READ_BACK = FIXTURES / "where" / "state_update_read_back_step"


@pytest.mark.parametrize(("every", "after"), [(1, 1), (2, 3)])
@pytest.mark.parametrize("compiled", [False, True])
def test_tests_on_a_read_back_step_bit_identical(tmp_path, compiled, every, after):
    original_class, mended_class = (load_module(READ_BACK.with_name(f"{READ_BACK.name}.{kind}.py").read_text(),
                                                tmp_path, f"read_back_{kind}").EMA for kind in ("in", "out"))

    def build(ema_class):
        torch.manual_seed(0)
        ema = ema_class()
        ema.model, ema.ema_model = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
        ema.register_buffer("step", torch.tensor(0))
        ema.register_buffer("initted", torch.tensor(False))
        ema.update_every, ema.update_after_step, ema.update_model_with_ema_every = every, after, None
        return ema

    original, mended = build(original_class), build(mended_class)
    counter = GraphCounter()
    torch._dynamo.reset()
    update = torch.compile(mended.update, backend=counter) if compiled else mended.update
    # [Capture]'s switches, as graphmend.compile sets them while the update traces
    with torch._dynamo.config.patch(capture_scalar_outputs=True), torch.no_grad():
        for x in ARMS_INPUTS * 2:
            for ema in (original, mended):
                ema.model.weight.add_(x.sum())
            original.update()
            update()
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert _same_bits(a, b), key
            for a, b in zip(original.ema_model.parameters(), mended.ema_model.parameters()):
                assert _same_bits(a, b)
    if compiled:
        assert counter.graphs == 1


FAILING_LOCAL_SOURCE = textwrap.dedent("""
    import torch


    def step(flag, values):
        if flag:
            first = values[5]
            values.add_(first)
        return values
""")


def test_a_local_that_fails_when_not_taken_runs_the_original(tmp_path):
    # Out of range while traced: the frame runs eagerly, where the arm not taken reads nothing.
    result = transform_source(FAILING_LOCAL_SOURCE, rules=["where"], lines=frozenset({6}))
    assert "predicated_value" in result.code
    original, mended = (load_module(code, tmp_path, f"failing_local_{kind}").step
                        for kind, code in (("orig", FAILING_LOCAL_SOURCE), ("mended", result.code)))
    torch._dynamo.reset()
    compiled = torch.compile(mended, backend="eager")
    with torch.no_grad():
        assert torch.equal(compiled(torch.tensor(False), torch.ones(3)), original(torch.tensor(False), torch.ones(3)))
        for call in (original, compiled):
            with pytest.raises(IndexError, match="index 5 is out of bounds"):
                call(torch.tensor(True), torch.ones(3))


AUGMENTED_SOURCE = textwrap.dedent("""
    import torch
    from torch import nn


    class Accumulate(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("total", torch.tensor([0.0, -0.0, float("nan"), 1.0]))
            self.register_buffer("scale", torch.tensor([1.0, -0.0, 2.0, 0.5]))
            self.register_buffer("steps", torch.zeros((), dtype=torch.long))

        def forward(self, x):
            if x.sum() > 0:
                self.total += x * 0.5
                self.steps += 1
            if x.mean() < 0:
                self.scale *= x
                self.total -= x
            if x.amax() > 2:
                self.scale /= 2
                self.total.lerp_(x, 0.25)
                self.scale.sub_(x)
            return x * self.scale + self.total


    class PythonCount(nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0

        def forward(self, x):
            if x.sum() > 0:
                self.count += 1
            return x * 2
""")
AUGMENTED_LINES = frozenset({14, 17, 20, 33})
#: -0.0 and NaN where an arm is not taken: ``total + where(T, d, 0)`` would
#: turn ``-0.0`` into ``0.0``; the selected update keeps every bit.
AUGMENTED_INPUTS = [torch.tensor([1.0, -0.0, 0.5, 3.0]), torch.tensor([-1.0, -2.0, -0.0, 0.5]),
                    torch.tensor([-0.0, -0.0, -0.0, -0.0]), torch.tensor([3.0, 2.0, -9.0, 1.0])]


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal bit for bit (``-0.0`` is not ``0.0``, a NaN equals its own bits)."""
    def bits(t: torch.Tensor) -> torch.Tensor:
        return t.view(torch.int32) if t.dtype == torch.float32 else t
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(bits(a), bits(b))


@pytest.fixture
def augmented(tmp_path):
    result = transform_source(AUGMENTED_SOURCE, rules=["where"], lines=AUGMENTED_LINES)
    return (load_module(AUGMENTED_SOURCE, tmp_path, "augmented_orig"),
            load_module(result.code, tmp_path, "augmented_mended"), result)


def test_augmented_assignments_rewritten(augmented):
    *_, result = augmented
    assert sorted(site.lineno for site in result.sites if site.rule == "where") == sorted(AUGMENTED_LINES)
    assert result.code.count("_graphmend.predicated_augment(") == 6
    assert result.code.count("_graphmend.predicated_update(") == 2
    assert '_graphmend.predicated_augment(_gm_cond_14, "+=", lambda self=self: self, "total", lambda x=x: x * 0.5)' \
        in result.code


@pytest.mark.parametrize("compiled", [False, True])
def test_augmented_assignments_bit_identical(augmented, compiled):
    original_module, mended_module, _ = augmented
    original, mended = original_module.Accumulate(), mended_module.Accumulate()
    counter = GraphCounter()
    torch._dynamo.reset()
    run = torch.compile(mended, backend=counter) if compiled else mended
    with torch.no_grad():
        for x in AUGMENTED_INPUTS:
            assert _same_bits(run(x.clone()), original(x.clone()))
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert _same_bits(a, b), key
    assert not compiled or counter.graphs == 1


def test_augmented_python_attribute_keeps_the_break_with_the_reason(augmented):
    original_module, mended_module, _ = augmented
    original, mended = original_module.PythonCount(), mended_module.PythonCount()
    torch._dynamo.reset()
    start = len(compat.graph_break_reasons())
    run = torch.compile(mended, backend="eager")
    with torch.no_grad():
        for x in AUGMENTED_INPUTS:
            assert torch.equal(run(x.clone()), original(x.clone()))
            assert mended.count == original.count
    assert original.count == 1  # the first input alone takes the arm
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    assert any("predicated state update: the target is not a plain tensor" in r for r in reasons)


def test_augmented_custom_setattr_keeps_the_break_with_the_reason(tmp_path):
    source = textwrap.dedent("""
        import torch


        class Logged:
            def __init__(self):
                self.stores = []
                self.buf = torch.zeros(2)

            def __setattr__(self, name, value):
                if name != "stores":
                    self.stores.append(name)
                object.__setattr__(self, name, value)


        def step(state, x):
            if x.sum() > 0:
                state.buf += x
            return x + 1
    """)
    result = transform_source(source, rules=["where"], lines=frozenset({17}))
    assert "predicated_augment" in result.code
    original_module = load_module(source, tmp_path, "setattr_orig")
    mended_module = load_module(result.code, tmp_path, "setattr_mended")
    original, mended = original_module.Logged(), mended_module.Logged()
    torch._dynamo.reset()
    start = len(compat.graph_break_reasons())
    run = torch.compile(mended_module.step, backend="eager")
    with torch.no_grad():
        for x in INPUTS:
            assert torch.equal(run(mended, x[:2].clone()), original_module.step(original, x[:2].clone()))
            assert torch.equal(mended.buf, original.buf) and mended.stores == original.stores
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    assert any("assigning the attribute back may have effects" in r for r in reasons)


# -- helper calls (issue #45 pattern 2) -----------------------------------------------------

#: Helper bodies: each module's ``update`` is ``if not self.initted.item(): self.helper()`` (a
#: statement the rule predicates) then the flag's own predicated update.  Key -> (body, the
#: fallback's reason, or None where the call stays in the graph).
HELPERS = {
    "copies": ("""
        for ma, current in zip(self.ema.parameters(), self.online.parameters()):
            ma.data.copy_(current.data)
    """, None),
    "copies_then_lerps": ("""
        for ma, current in zip(self.ema.parameters(), self.online.parameters()):
            ma.data.copy_(current.data)
            ma.data.lerp_(current.data * 2, 0.25)
    """, None),
    "stores_a_python_value": ("""
        self.ema.weight.data.copy_(self.online.weight.data)
        self.count = self.count + 1
    """, "stores into an object that existed before it"),
    "appends_to_a_list": ("""
        self.ema.weight.data.copy_(self.online.weight.data)
        self.log.append(1)
    """, "stores into an object that existed before it"),
    "draws_random_numbers": ("""
        self.ema.weight.data.copy_(torch.randn(3, 3))
    """, "draws random numbers"),
    "indexes_with_a_tensor": ("""
        self.ema.bias.data.copy_(self.online.bias[self.index])
    """, "indexes with a tensor"),
    "updates_in_place_otherwise": ("""
        self.ema.bias.data.masked_fill_(self.online.bias > 0, 0.0)
    """, "updates a tensor in place with masked_fill_"),
    "draws_into_a_copy": ("""
        noise = self.ema.weight.data.clone()
        noise.uniform_()
        self.ema.weight.data.copy_(noise)
    """, "draws random numbers"),
    "indexes_into_a_copy": ("""
        added = self.ema.bias.data.clone()
        added.index_add_(0, self.index, self.online.bias.data)
        self.ema.bias.data.copy_(added)
    """, "calls index_add_()"),
    "raises_when_not_taken": ("""
        self.ema.weight.data.copy_(self.online.weight.data)
        assert not self.count, "count"
    """, "the call fails when not taken"),
}


def _helper_source(name: str, body: str) -> str:
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    return textwrap.dedent("""
        import torch
        from torch import nn


        class EMA(nn.Module):
            def __init__(self):
                super().__init__()
                self.online = nn.Linear(3, 3)
                self.ema = nn.Linear(3, 3)
                self.register_buffer("initted", torch.tensor(False))
                self.register_buffer("index", torch.tensor([2, 0, 1]))
                self.count = 0
                self.log = []

            def helper(self):
        {body}

            def forward(self, x):
                if not self.initted.item():
                    self.helper()
                    self.initted.data.copy_(torch.tensor(True))
                return self.ema(x)
    """).replace("{body}", body)


def _state(module) -> list:
    return [*module.state_dict().values(), module.count, list(module.log)]


def _same_state(a, b) -> bool:
    return all(torch.equal(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(_state(a), _state(b)))


def _run(module, x):
    try:
        return module(x), None
    except Exception as error:  # noqa: BLE001 -- the same exception type on both sides
        return None, type(error)


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_a_helper_call_is_predicated_or_falls_back_exactly(tmp_path, name):
    body, fallback = HELPERS[name]
    source = _helper_source(name, body)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "if not self.initted.item()" in text)
    result = transform_source(source, rules=["where"], lines=frozenset({line}))
    assert "_graphmend.predicated_call(" in result.code
    original = load_module(source, tmp_path, f"helper_orig_{name}").EMA()
    mended = load_module(result.code, tmp_path, f"helper_mended_{name}").EMA()
    mended.load_state_dict(original.state_dict())
    torch._dynamo.reset()
    counter = GraphCounter()
    run = torch.compile(mended, backend=counter)
    start = len(compat.graph_break_reasons())
    x = torch.tensor([[1.0, -2.0, 0.5]])
    with torch.no_grad():
        for call in range(4):
            if call == 1:  # after the first (taken) call: an index out of range and a failing assert, not taken
                for module in (original, mended):
                    module.index.fill_(7)
                    module.count = 1
            torch.manual_seed(call)
            expected, expected_error = _run(original, x)
            torch.manual_seed(call)
            got, error = _run(run, x)
            assert error == expected_error
            if expected_error is None:
                assert torch.equal(got, expected)
            assert _same_state(original, mended), call
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    if fallback is None:
        assert counter.graphs == 1 and reasons == []
    else:
        assert any(f"graphmend: predicated call: the call {fallback}" in reason or
                   f"graphmend: predicated call: {fallback}" in reason for reason in reasons), reasons


def test_a_helper_call_with_gradients_enabled_keeps_the_break(tmp_path):
    source = _helper_source("copies", HELPERS["copies"][0])
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "if not self.initted.item()" in text)
    result = transform_source(source, rules=["where"], lines=frozenset({line}))
    original = load_module(source, tmp_path, "grad_orig").EMA()
    mended = load_module(result.code, tmp_path, "grad_mended").EMA()
    mended.load_state_dict(original.state_dict())
    torch._dynamo.reset()
    start = len(compat.graph_break_reasons())
    run = torch.compile(mended, backend="eager")
    x = torch.tensor([[1.0, -2.0, 0.5]])
    for _ in range(2):
        assert torch.equal(run(x), original(x))
        assert _same_state(original, mended)
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    assert any("predicated call: gradients are enabled" in reason for reason in reasons)


HELPER_NOOPS = {
    "a method nn.Module defines": "self.register_buffer(\"freq\", x * 2)",
    "a container's mutator": "self.log.append(x)",
    "a builtin": "setattr(self, \"freq\", x)",
    "a torch function": "torch.nn.init.zeros_(self.buf)",
    "a message": "print(x)",
}


@pytest.mark.parametrize("case", sorted(HELPER_NOOPS))
def test_calls_the_rule_leaves_to_others(case):
    source = textwrap.dedent(f"""
        import torch

        def f(self, x):
            if x.sum() > 0:
                {HELPER_NOOPS[case]}
            return x
    """)
    result = transform_source(source, rules=["where"], lines=frozenset({5}))
    assert "predicated_call" not in result.code


@pytest.mark.parametrize("name", ["copies", "stores_a_python_value"])
def test_with_nested_graph_breaks_a_helper_call_keeps_the_break(tmp_path, name):
    # Dynamo would resume inside the call at a break after it traced: its effects, then the original's again.
    source = _helper_source(name, HELPERS[name][0])
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "if not self.initted.item()" in text)
    result = transform_source(source, rules=["where"], lines=frozenset({line}))
    original = load_module(source, tmp_path, f"nested_orig_{name}").EMA()
    mended = load_module(result.code, tmp_path, f"nested_mended_{name}").EMA()
    mended.load_state_dict(original.state_dict())
    torch._dynamo.reset()
    start = len(compat.graph_break_reasons())
    x = torch.tensor([[1.0, -2.0, 0.5]])
    with torch._dynamo.config.patch(nested_graph_breaks=True), torch.no_grad():
        run = torch.compile(mended, backend="eager")
        for _ in range(3):
            assert torch.equal(run(x), original(x))
            assert _same_state(original, mended)
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    assert any("predicated call: Dynamo resumes inside a call" in reason for reason in reasons), reasons
