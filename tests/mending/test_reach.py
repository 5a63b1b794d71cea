"""What ``graphmend.compile`` reaches, however the model is handed over, and
what the first process mends.

A library module (``library``) holds the breaks: a ``logger.info`` in a
block's ``forward`` ([Defer]) and a tensor ``if`` in a helper it calls
([Where]).  A user module (``user``), another file, calls it in every
style users compile: the module, its bound ``forward``, a step function,
a lambda, a ``functools.partial``, a callable object, a decorated step and
a training step with ``backward()`` inside.  Each style's first call must
compile what the mended module compiles, with outputs and gradients
identical to eager.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import graphmend
from graphmend import api
from graphmend.mending import live, records, swap
from graphmend.mending.foreign import foreign
from graphmend.mending.reach import reach
from graphmend.mending.sites import code_holds
from harness import GraphCounter, load_module

pytestmark = pytest.mark.usefixtures("isolated_cache")

LIBRARY = """
import logging

import torch
from torch import nn

logger = logging.getLogger("graphmend.test.library")


def centre(x):
    if x.sum() > 0:
        x = x - x.mean()
    return x


class Solver:
    def __init__(self, scale):
        self.scale = scale

    def integrate(self, x):
        return centre(x) * self.scale

    def never_called(self, x):
        if x.sum() > 0:
            x = x + 1
        return x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        logger.info("block ran")
        return Solver(2.0).integrate(h)
"""

USER = """
import functools

import torch

from {library} import Block

model = Block()


def step(x):
    return model(x) * 2


def step_with(m, x):
    return m(x) + 1


def train_step(x):
    loss = model(x).pow(2).sum()
    loss.backward()
    return loss.detach()


class Runner:
    def __init__(self, m):
        self.m = m

    def __call__(self, x):
        return self.m(x) - 1
"""


@pytest.fixture
def modules(tmp_path):
    sys.path.insert(0, str(tmp_path))
    try:
        library = load_module(textwrap.dedent(LIBRARY), tmp_path, "library")
        user = load_module(textwrap.dedent(USER.format(library=library.__name__)), tmp_path, "user")
        torch.manual_seed(0)
        user.model.load_state_dict({k: torch.randn_like(v) for k, v in user.model.state_dict().items()})
        yield library, user
    finally:
        sys.path.remove(str(tmp_path))
        for function in (library.centre, library.Block.forward, library.Solver.integrate,
                         library.Solver.never_called):
            live.unmend_functions([function])


def _names(functions) -> set[str]:
    return {f.__qualname__ for f in functions}


def test_a_step_function_reaches_the_model_its_globals_hold(modules):
    library, user = modules
    reached = _names(reach(user.step).functions)
    assert {"step", "Block.forward", "Solver.__init__", "Solver.integrate", "centre"} <= reached
    # A method no reached code names is not what the call runs.
    assert "Solver.never_called" not in reached


@pytest.mark.parametrize("style", ["lambda", "partial", "bound", "object", "argument", "closure"])
def test_every_calling_style_reaches_the_model(modules, style):
    library, user = modules
    model = user.model

    def closure(x):
        return model(x)

    obj, args = {
        "lambda": (lambda x: model(x), ()),
        "partial": (functools.partial(user.step_with, model), ()),
        "bound": (model.forward, ()),
        "object": (user.Runner(model), ()),
        "argument": (user.step_with, (model, torch.ones(4))),
        "closure": (closure, ()),
    }[style]
    reached = _names(reach(obj, args).functions)
    assert {"Block.forward", "Solver.integrate", "centre"} <= reached


def test_a_function_reaches_what_it_imports_itself_where_it_is_imported(modules, tmp_path):
    """``import library`` inside the function, then ``library.centre(x)``
    (torchsde's entry points called from a function that imports torchsde
    itself): the module's attributes the code names are reached when the
    module is already imported; a module that is not is left unimported."""
    library, _ = modules
    local = load_module(textwrap.dedent(f"""
        def solve(x):
            import {library.__name__}
            from {library.__name__} import Solver
            return {library.__name__}.centre(x) + Solver(2.0).integrate(x)


        def later(x):
            import gm_case_never_imported_anywhere
            return gm_case_never_imported_anywhere.centre(x)
    """), tmp_path, "local")
    reached = _names(reach(local.solve).functions)
    assert {"solve", "centre", "Solver.__init__", "Solver.integrate"} <= reached
    assert _names(reach(local.later).functions) == {"later"}
    assert "gm_case_never_imported_anywhere" not in sys.modules


def test_the_walk_goes_on_only_through_code_that_mentions_torch(modules, tmp_path):
    """A utility module that never mentions torch (sklearn's metrics, tqdm)
    runs no tensor code: the walk does not go on through its functions'
    globals (Chronos's ``generate`` reached pandas' ``DataFrame`` that way),
    but a decorator's wrapper there still leads to the function it wraps."""
    library, _ = modules
    ops = load_module(textwrap.dedent("""
        import torch


        def shift(x):
            return x + torch.ones_like(x)
    """), tmp_path, "ops")
    utility = load_module(textwrap.dedent(f"""
        import functools

        from {ops.__name__} import shift


        def summarise(x):
            return shift(x).sum()


        def logged(function):
            @functools.wraps(function)
            def wrapper(*args, **kwargs):
                return function(*args, **kwargs)
            return wrapper
    """), tmp_path, "utility")
    caller = load_module(textwrap.dedent(f"""
        import torch

        from {utility.__name__} import logged, summarise
        from {library.__name__} import Solver


        @logged
        def decorated(x):
            return Solver(2.0).integrate(x)


        def step(x):
            return summarise(torch.relu(x)) + decorated(x)
    """), tmp_path, "caller")
    reached = _names(reach(caller.step).functions)
    assert {"step", "decorated", "Solver.integrate", "centre"} <= reached
    assert not {"summarise", "shift", "logged", "logged.<locals>.wrapper"} & reached
    assert "shift" in _names(reach(ops.shift).functions)


def test_the_walk_never_collects_torch_or_the_standard_library(modules):
    _, user = modules
    assert not any(map(foreign, reach(user.train_step).functions))


def test_the_walk_is_bounded(modules):
    _, user = modules
    found = reach(user.step, limit=3)
    assert found.truncated and found.visited == 3


STYLES = ["module", "forward", "step", "lambda", "partial", "object", "decorated"]


@pytest.mark.parametrize("style", STYLES)
def test_each_calling_style_compiles_to_one_graph_on_the_first_call(modules, style):
    library, user = modules
    model, x = user.model, torch.randn(3, 4)
    with torch.no_grad():
        expected = {"module": model, "forward": model.forward, "step": user.step,
                    "lambda": lambda v: model(v), "partial": functools.partial(user.step_with, model),
                    "object": user.Runner(model), "decorated": user.step}[style](x)
    torch._dynamo.reset()
    counter = GraphCounter()
    handed = {
        "module": model,
        "forward": model.forward,
        "step": user.step,
        "lambda": lambda v: model(v),
        "partial": functools.partial(user.step_with, model),
        "object": user.Runner(model),
    }
    if style == "decorated":
        compiled = graphmend.compile(backend=counter)(user.step)
    else:
        compiled = graphmend.compile(handed[style], backend=counter)
    with torch.no_grad():
        actual = compiled(x)
    assert counter.graphs == 1
    assert torch.equal(actual, expected)
    assert "torch.where" in live.mended_source(library.centre) or "_graphmend.where" in live.mended_source(
        library.centre)


def test_a_training_step_with_backward_inside_gets_the_gradients_eager_gives(modules):
    library, user = modules
    model, x = user.model, torch.randn(3, 4)
    user.train_step(x)
    expected = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    torch._dynamo.reset()
    counter = GraphCounter()
    plain = GraphCounter()
    compiled = graphmend.compile(user.train_step, backend=counter)
    loss = compiled(x)
    assert "deferred" in live.mended_source(library.Block.forward)
    assert loss.item() == user.model(x).pow(2).sum().item()
    for name, p in model.named_parameters():
        assert torch.equal(p.grad, expected[name]), name
    # backward() is a break of Dynamo's own: what is left is what
    # torch.compile of the same step over the mended code gives.
    model.zero_grad(set_to_none=True)
    torch._dynamo.reset()
    torch.compile(user.train_step, backend=plain)(x)
    assert counter.graphs == plain.graphs


def test_graphmend_compile_decorates_a_method_bare_and_with_arguments(tmp_path):
    source = textwrap.dedent("""
        import torch
        import graphmend


        class Model(torch.nn.Module):
            @graphmend.compile
            def forward(self, x):
                if x.sum() > 0:
                    x = x * 2
                return x + 1


        @graphmend.compile(backend="eager", fullgraph=True)
        def double(x):
            if x.sum() > 0:
                x = x * 2
            return x
        """)
    module = load_module(source, tmp_path, "decorated")
    x = torch.ones(3)
    try:
        torch._dynamo.reset()
        assert torch.equal(module.Model()(x), torch.full((3,), 3.0))
        assert torch.equal(module.double(x), torch.full((3,), 2.0))  # fullgraph: it would raise on a break
    finally:
        graphmend.unmend(module.double._graphmend_original)
        graphmend.unmend(module.Model.forward._graphmend_original)


NEURON = """
import logging

import torch
from torch import nn

logger = logging.getLogger("graphmend.test.neuron")


class Neuron(nn.Module):
    def __init__(self, mechanism):
        super().__init__()
        self.register_buffer("mechanism", torch.as_tensor(mechanism))
        self.history = []

    def forward(self, x):
        mem = 0.9 * x
        if self.mechanism == 0:
            mem = mem - 1
        return mem

    def keeps(self, x):
        if self.mechanism == 0:
            self.history.append(1)
            x = x - 1
        return x

    def guarded(self, x):
        logger.debug("guarded %s", x.sum())
        if self.mechanism == 0:
            x = x * 1
            x.mul_(2)
        return x

    def twice(self, x):
        return 2 * self(x)
"""


def _line_of(source: str, text: str) -> int:
    """The 1-based line of ``source`` that holds ``text``."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _next_process_compiles_one_graph(neuron, x, expected):
    """As a new process: Dynamo's caches emptied, the record mends the site
    before the first call, which compiles one graph."""
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        assert torch.equal(graphmend.compile(neuron, backend=counter)(x), expected)
        assert counter.graphs == 1
    finally:
        graphmend.unmend(neuron)


def test_a_break_only_the_first_call_shows_is_mended_for_the_next_call_and_recorded(tmp_path):
    """``if self.mechanism == 0`` tests a buffer: no static matching sees a
    tensor there, only the first call's break does.  That call runs the
    frame eagerly (nothing is compiled for code about to be replaced); the
    next call of the same process compiles the mended code, and the record
    lets a new process mend it before its first call."""
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(0), torch.linspace(0, 3, 6)
    expected = neuron(x)
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = graphmend.compile(neuron, backend=counter)
    try:
        first = compiled(x)
        assert counter.graphs == 0
        second = compiled(x)
        assert counter.graphs == 1  # one graph, the mended one
        compiled(x)
        assert counter.graphs == 1 and counter.never_run == 0  # and nothing recompiles after it
        assert torch.equal(first, expected) and torch.equal(second, expected)
        key = records.key(neuron, (x,), {})
        assert [line for _, line in records.load(key)] == [_line_of(NEURON, "if self.mechanism == 0:")]
    finally:
        graphmend.unmend(neuron)

    _next_process_compiles_one_graph(neuron, x, expected)


def test_a_break_the_first_call_meets_in_a_callee_is_mended_and_compiled_in_that_call(tmp_path):
    """``twice`` calls the forward, whose break only a call shows.  The
    trace of ``twice`` meets it in the inlined forward: mended there and
    then, the frame is traced again with the mended forward inlined, so the
    first call already runs one graph, and no call runs eagerly for a round."""
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(0), torch.linspace(0, 3, 6)
    expected = neuron.twice(x)
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = graphmend.compile(neuron.twice, backend=counter)
    try:
        outputs = [compiled(x) for _ in range(3)]
        assert counter.graphs == 1 and counter.never_run == 0 and counter.runs == 3
        assert all(torch.equal(output, expected) for output in outputs)
        assert "where" in live.mended_source(module.Neuron.forward)
        key = records.key(neuron.twice, (x,), {})
        assert [line for _, line in records.load(key)] == [_line_of(NEURON, "if self.mechanism == 0:")]
    finally:
        graphmend.unmend(neuron.twice)


def test_a_break_met_in_a_callee_is_mended_in_that_call_where_capture_hooked_dynamo_before_compat(tmp_path):
    """[Capture]'s conversion hook and compat's wrap the same Dynamo entry;
    graphmend.compile installs compat's first, capture's self-test run on
    its own installs capture's first.  Dynamo hands the MendFirst on as an
    InternalTorchDynamoError; with capture's wrapper inside compat's, its
    switches are off when compat's sees it, which once read it as "Dynamo
    failed while tracing" and ran the frame eagerly for good."""
    (tmp_path / "neuron_case.py").write_text(textwrap.dedent(NEURON))
    script = textwrap.dedent("""
        import sys
        import torch
        import graphmend
        from graphmend.compat import capture
        from harness import GraphCounter
        import neuron_case

        assert capture.self_test() is None
        neuron, x = neuron_case.Neuron(0), torch.linspace(0, 3, 6)
        expected = neuron.twice(x)
        counter = GraphCounter()
        compiled = graphmend.compile(neuron.twice, backend=counter)
        outputs = [compiled(x) for _ in range(3)]
        assert all(torch.equal(output, expected) for output in outputs)
        print(counter.graphs, counter.runs)
    """)
    tests = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tests, str(tmp_path), os.environ.get("PYTHONPATH", "")]),
               GRAPHMEND_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "3"], done.stderr


GENERATION = """
import torch
from torch import nn

import {helpers}


class GenerationMixin:
    @torch.no_grad()
    def generate(self, x, steps):
        for _ in range(steps):
            x = self.next_step(x)
        return {helpers}.summary(x)

    def next_step(self, x):
        y = self(x)
        if y.sum() > 0:
            y = y - 1
        else:
            y = y + 1
        return y


class Model(nn.Module, GenerationMixin):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return self.linear(x)


class Wrapper(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base = base

    def forward(self, x):
        return self.base(x)

    def generate(self, *args, **kwargs):
        return self.base.generate(*args, **kwargs)
"""

HELPERS = """
import torch


def summary(x):
    return x.sum(0)
"""


@pytest.fixture
def generation(tmp_path):
    sys.path.insert(0, str(tmp_path))
    try:
        helpers = load_module(textwrap.dedent(HELPERS), tmp_path, "helpers")
        yield load_module(textwrap.dedent(GENERATION.format(helpers=helpers.__name__)), tmp_path, "generation")
    finally:
        sys.path.remove(str(tmp_path))


def test_a_method_called_in_place_of_forward_reaches_the_model_methods_it_names(generation):
    """``wrapper.generate`` calls ``self.base.generate``, a method of the
    model's classes behind ``@torch.no_grad()``, which calls ``next_step``:
    found by name through the decorator, as a forward's callees are.  Only
    collected: the globals they name (``summary``) are left to the trace."""
    wrapper = generation.Wrapper(generation.Model())
    reached = _names(reach(wrapper.generate).functions)
    assert {"Wrapper.generate", "GenerationMixin.generate", "GenerationMixin.next_step"} <= reached
    assert "summary" not in reached


ENCODING = """
import torch
from torch import nn

import {helpers}


def decode(x):
    if x.sum() > 0:
        return x - 1
    return x


class Encoder(nn.Module):
    def forward(self, x):
        return {helpers}.summary(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, x):
        return decode(self.encoder(x))

    def encode(self, x):
        assert self.encoder.training is not None
        return self.encoder(x)

    def run_whole(self, x):
        return self(x)
"""


def test_a_method_that_never_runs_its_module_reaches_what_the_module_holds_only(tmp_path):
    """Chronos's ``encode`` calls ``self.model.encoder(...)``: the model's own
    ``forward`` (which generates: 179 units of 34 files, pandas' among
    them) never runs.  A method that uses ``self`` only for its attributes
    reaches the modules under it; one that runs ``self(x)`` reaches the
    forward too."""
    helpers = load_module(textwrap.dedent(HELPERS), tmp_path, "encoding_helpers")
    encoding = load_module(textwrap.dedent(ENCODING.format(helpers=helpers.__name__)), tmp_path, "encoding")
    model = encoding.Model()
    assert _names(reach(model.encode).functions) == {"Model.encode", "Encoder.forward", "summary"}
    assert {"Model.run_whole", "Model.forward", "decode", "Encoder.forward"} <= _names(reach(model.run_whole).functions)
    assert {"Model.forward", "decode"} <= _names(reach(model).functions)


STEPS = """
def reads_a_submodule(model, x):
    return model.encoder(x)


def calls_it(model, x):
    return model(x)


def calls_a_method(model, x):
    return model.encode(x)


def twice(model, same, x):
    return model.encoder(same(x))


def through_a_property(model, x):
    return model.shortcut(x)
"""


def test_a_module_a_function_only_reads_attributes_of_stands_for_those_attributes(tmp_path):
    """chronos's T5 loss step reads ``model.model`` of the ChronosModel it
    is given: reached whole, the model's ``forward`` reached ``generate``
    and pandas' ``DataFrame`` behind it.  A module argument the function
    only reads attributes of stands for what it reads; one it calls, hands
    on, or reads through a property stays whole."""
    from graphmend.mending.reach import arguments_reached

    helpers = load_module(textwrap.dedent(HELPERS), tmp_path, "encoding_steps_helpers")
    source = ENCODING.format(helpers=helpers.__name__) + textwrap.dedent("""
        class WithProperty(Model):
            @property
            def shortcut(self):
                return self
    """)
    model = load_module(textwrap.dedent(source), tmp_path, "encoding_steps_model").WithProperty()
    steps = load_module(textwrap.dedent(STEPS), tmp_path, "encoding_steps")
    x = torch.ones(2)

    assert arguments_reached(steps.reads_a_submodule, (model, x), {}) == [model.encoder]
    assert _names(reach(steps.reads_a_submodule, [model.encoder]).functions) == {
        "reads_a_submodule", "Encoder.forward", "summary"}
    assert arguments_reached(steps.calls_it, (model,), {"x": x}) == [model]
    assert arguments_reached(steps.twice, (model, model, x), {}) == [model, model]
    assert arguments_reached(steps.through_a_property, (model, x), {}) == [model]
    [method] = arguments_reached(steps.calls_a_method, (model, x), {})
    assert method.__func__ is type(model).encode and method.__self__ is model
    assert "Model.forward" not in _names(reach(steps.calls_a_method, [method]).functions)
    assert arguments_reached(functools.partial(steps.reads_a_submodule, model), (x,), {}) == []  # x: a tensor
    # Bail-outs: a wrapper may hand the arguments on otherwise; a call that would not bind.
    wrapper = functools.wraps(steps.reads_a_submodule)(lambda *args: steps.reads_a_submodule(*args))
    assert arguments_reached(wrapper, (model, x), {}) == [model]
    assert arguments_reached(steps.reads_a_submodule, (model,), {}) == [model]


class _Uses(torch.nn.Module):
    def attributes_only(self, x):
        self.count = 1
        return self.linear(x) + self.bias

    def called(self, x):
        return self(x)

    def handed_over(self, x):
        return sorted(self, x)

    def forward_named(self, x):
        return self.forward(x)

    def through_super(self, x):
        return super().through_super(x)

    def by_getattr(self, x):
        return getattr(self, "linear")(x)

    def in_a_closure(self, x):
        return (lambda: self.linear(x))()

    def augmented(self, x):
        self.count += 1
        return x

    @torch.no_grad()
    def decorated(self, x):
        return self.linear(x)


@pytest.mark.parametrize("name, expected", [
    ("attributes_only", False), ("decorated", False), ("called", True), ("handed_over", True),
    ("forward_named", True), ("through_super", True), ("by_getattr", True), ("in_a_closure", True),
    ("augmented", True),
])
def test_uses_itself_says_yes_to_anything_but_attribute_access(name, expected):
    from graphmend.mending.search import uses_itself

    assert uses_itself(getattr(_Uses(), name)) is expected


def test_a_first_call_starts_once_its_entry_and_the_methods_it_names_are_rewritten(generation):
    """``graphmend.compile(wrapper.generate)`` waits before its first call
    for the entry and the model's methods it names itself (Dynamo may
    start ``GenerationMixin.generate``'s frame without having met it: peft's
    hooks break before the call), not for what those call: ``next_step``
    is queued after them, breadth first by name, and finished when Dynamo
    meets it."""
    from graphmend.mending import search

    wrapper = generation.Wrapper(generation.Model())
    assert _names(live._first_frames(wrapper.generate)) == {"Wrapper.generate", "GenerationMixin.generate"}
    found = search.called_by_name(list(reach(wrapper.generate).functions), live._roots(wrapper.generate))
    assert [f.__qualname__ for f in found] == ["Wrapper.generate", "GenerationMixin.generate",
                                               "GenerationMixin.next_step"]


class _Config:
    def __init__(self):
        self.validate()

    def validate(self):
        return self


def _builds_config():
    return _Config()


def test_a_class_name_names_its_constructor_in_the_order_a_call_meets_functions():
    """The first call's rewrites are queued by name from its roots, and a
    class's name names its constructor there (transformers' ``generate``
    first builds a ``GenerationConfig``, which validates itself); what a
    forward can call by name is kept as before, constructors left out."""
    from graphmend.mending import search

    functions = [_builds_config, _Config.validate, _Config.__init__]
    kept = search.called_by_name(functions, [_builds_config])
    in_order = search.called_by_name(functions, [_builds_config], constructors=True)
    assert [f.__qualname__ for f in kept] == ["_builds_config"]
    assert [f.__qualname__ for f in in_order] == ["_builds_config", "_Config.__init__", "_Config.validate"]


def test_a_method_called_in_place_of_forward_compiles_on_the_first_call(generation):
    torch.manual_seed(0)
    wrapper, x = generation.Wrapper(generation.Model()), torch.randn(2, 4)
    expected = wrapper.generate(x, 3)
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = graphmend.compile(wrapper.generate, backend=counter)
    try:
        first = compiled(x, 3)
        graphs = counter.graphs
        assert graphs == 1 and torch.equal(first, expected)
        assert all(torch.equal(compiled(x, 3), expected) for _ in range(2))
        assert counter.graphs == graphs and counter.never_run == 0
    finally:
        graphmend.unmend(wrapper.generate)


def test_a_site_the_last_watched_call_mends_is_recorded(tmp_path, monkeypatch, isolated_cache):
    """With one watched call, no later one sees the site gone; the record
    holds it all the same (its function's code changed), so the next
    process compiles the mended code on its first call."""
    monkeypatch.setattr(api, "_WATCHED_ROUNDS", 1)
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(0), torch.linspace(0, 3, 6)
    expected = neuron(x)
    torch._dynamo.reset()
    try:
        compiled = graphmend.compile(neuron, backend=GraphCounter())
        compiled(x)
        line = _line_of(NEURON, "if self.mechanism == 0:")
        assert [site_line for _, site_line in records.load(records.key(neuron, (x,), {}))] == [line]
    finally:
        graphmend.unmend(neuron)
    _next_process_compiles_one_graph(neuron, x, expected)


def test_a_function_mended_again_to_the_same_code_keeps_its_compiled_graphs(tmp_path):
    """``guarded`` is mended statically (its log call); the first call meets
    the ``if`` on a buffer, and mending the function again at that line
    changes nothing (the arm updates in place): its code object stays, the
    frame the first call ran eagerly is compiled once, as torch.compile
    compiles it, and nothing is recorded."""
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(0), torch.linspace(0, 3, 6)
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = graphmend.compile(neuron.guarded, backend=counter)
    try:
        compiled(x)
        code = module.Neuron.guarded.__code__
        assert "deferred_log" in live.mended_source(module.Neuron.guarded)
        compiled(x)
        graphs = counter.graphs
        compiled(x)
        assert module.Neuron.guarded.__code__ is code and counter.graphs == graphs == 2 and counter.never_run == 0
        assert records.load(records.key(neuron.guarded, (x,), {})) == []
    finally:
        graphmend.unmend(neuron.guarded)


def test_a_site_the_rules_decline_is_not_mended_and_recorded_as_declined(tmp_path, isolated_cache):
    """``keeps`` appends to a list in the arm: [Where] declines.  The first
    call's trace finds that out where it meets the site, and the frame is
    traced again and compiled as torch.compile compiles it, with its break:
    no call runs it eagerly for a round.  The record says so, and the next
    process's first call compiles it so without asking the rules."""
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(0), torch.linspace(0, 3, 6)
    like_torch_compile = GraphCounter()
    torch._dynamo.reset()
    torch.compile(module.Neuron(0).keeps, backend=like_torch_compile)(x)
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = graphmend.compile(neuron.keeps, backend=counter)
    try:
        compiled(x)
        assert counter.graphs == like_torch_compile.graphs > 0  # no round: compiled with the break
        for _ in range(2):
            compiled(x)
        key = records.key(neuron.keeps, (x,), {})
        assert records.load(key) == []
        assert [site_line for _, site_line in records.load(key, "declined")] == [_line_of(NEURON, "def keeps") + 1]
        assert not live.mended_functions(neuron.keeps)
        assert neuron.history == [1, 1, 1]
    finally:
        graphmend.unmend(neuron.keeps)
    torch._dynamo.reset()  # the next process
    counter = GraphCounter()
    try:
        graphmend.compile(neuron.keeps, backend=counter)(x)
        assert counter.graphs > 0 and neuron.history == [1, 1, 1, 1]
    finally:
        graphmend.unmend(neuron.keeps)


SHARED_WRAPPER = """
import functools

import torch
from torch import nn


class Layer(nn.Module):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        forward = cls.forward

        @functools.wraps(forward)
        def checked_forward(self, x):
            if x.sum() > 0:
                x = x * 2
            return forward(self, x)

        cls.forward = checked_forward


class First(Layer):
    def forward(self, x):
        return x + 1


class Second(Layer):
    def forward(self, x):
        return x - 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second = First(), Second()

    def forward(self, x):
        return self.second(self.first(x))
"""


def test_closures_one_factory_made_share_a_def_and_are_each_mended(tmp_path, caplog):
    """transformers 5's ``GradientCheckpointingLayer`` wraps each subclass's
    ``forward`` in a closure made by one def: two live functions, one
    source.  Mending both moved one shared tree to file lines twice (an
    IndexError, the file left unmended)."""
    module = load_module(textwrap.dedent(SHARED_WRAPPER), tmp_path, "shared")
    model, x = module.Model(), torch.ones(3)
    expected = model(x)
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        with caplog.at_level("WARNING", logger="graphmend"):
            actual = graphmend.compile(model, backend=counter)(x)
        assert not [r for r in caplog.records if "failed" in r.getMessage()]
        assert torch.equal(actual, expected)
        assert counter.graphs == 1
        assert "_graphmend.where" in swap.MENDED[vars(module.First)["forward"]].mended_source
        assert "_graphmend.where" in swap.MENDED[vars(module.Second)["forward"]].mended_source
    finally:
        graphmend.unmend(model)


WRAPS_TORCH = """
import functools

import torch


@functools.wraps(torch.nn.Module.cuda)  # a library's wrapper that names a torch method as what it wraps
def scaled(x):
    print("scaled", x.shape)
    return x * 2


def step(x):
    return scaled(x) + 1
"""


def test_a_mended_wrapper_of_an_unmended_function_is_its_own_patch(tmp_path):
    """transformers 5's wrappers name torch methods in ``__wrapped__``; the
    walk mends the wrapper itself, and asking for its mended source (as
    every round of the first process does) found the torch method instead
    and failed: "Module.cuda is not mended"."""
    module = load_module(textwrap.dedent(WRAPS_TORCH), tmp_path, "wraps_torch")
    x = torch.ones(3)
    torch._dynamo.reset()
    try:
        graphmend.mend(module.step)
        assert module.scaled in live.mended_functions(module.step)
        assert "deferred" in live.mended_source(module.scaled)
        compiled = graphmend.compile(module.step, backend="eager")
        for _ in range(3):
            assert torch.equal(compiled(x), x * 2 + 1)
    finally:
        graphmend.unmend(module.step)


def test_code_holds_the_lines_of_its_nested_functions_and_not_its_callees():
    """A break in a function defined inside the traced frame runs the
    frame's own (old) code: a retrace would meet it again, so such a site
    counts as the frame's; a callee defined elsewhere does not."""

    def outer(x):
        def inner(y):
            return y + 1

        return inner(x)

    code, filename = outer.__code__, outer.__code__.co_filename
    inner_line = code.co_firstlineno + 2
    assert code_holds(code, filename, inner_line)
    assert code_holds(code, filename, code.co_firstlineno)
    assert not code_holds(code, filename, code.co_firstlineno + 5)
    assert not code_holds(code, filename + ".other", inner_line)
