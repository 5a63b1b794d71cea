"""graphmend.compile: diagnose on the first call, mend the fixable sites, compile."""

from __future__ import annotations

import textwrap

import pytest
import torch

import graphmend
from graphmend import api, compat, pipeline
from graphmend.mending import live
from graphmend.api import compile as gm_compile
from harness import GraphCounter, load_module

pytestmark = pytest.mark.usefixtures("isolated_cache")

FAKEWHERE = ["fakewhere"]

STEP = """
import torch
from torch import nn


def step(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y * 3


def calls_step(x):
    return step(x) - 1


def step_to_numpy(x):
    return step(x).numpy(), float(x.sum())


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
        self.python_calls = 0
        self.history = []
        self.scale = 2.0

    def forward(self, x):
        self.calls += 1
        self.python_calls += 1
        self.history = self.history + ["call"]
        noise = torch.rand(x.shape)
        y = x * self.scale + noise
        if y.sum() > 0:
            y = y + 1
        return y
"""


@pytest.fixture
def module(tmp_path):
    torch._dynamo.reset()
    return load_module(textwrap.dedent(STEP), tmp_path, "compile")


def eager_graphs(fn, *args) -> int:
    torch._dynamo.reset()
    counter = GraphCounter()
    torch.compile(fn, backend=counter)(*args)
    torch._dynamo.reset()
    return counter.graphs


def test_user_backend_sees_only_the_final_graphs(module, fake_rules):
    x = torch.ones(3)
    assert eager_graphs(module.step, x) == 2  # one break before mending
    expected = module.step(x)
    counter = GraphCounter()

    out = gm_compile(module.step, backend=counter, rules=FAKEWHERE)(x)

    assert counter.graphs == 1
    assert torch.equal(out, expected)
    assert "torch.where" in live.mended_source(module.step)


def test_break_in_a_called_function_is_mended_where_it_lives(module, fake_rules):
    counter = GraphCounter()
    step_code, caller_code = module.step.__code__, module.calls_step.__code__

    out = gm_compile(module.calls_step, backend=counter, rules=FAKEWHERE)(torch.ones(3))

    assert torch.equal(out, torch.full((3,), 8.0))
    assert counter.graphs == 1
    assert module.step.__code__ is not step_code  # found through the module's file
    assert module.calls_step.__code__ is caller_code


@pytest.mark.parametrize("diagnose, traces", [(False, 0), (True, 1)])
def test_first_call_diagnoses_only_when_asked(module, fake_rules, monkeypatch, diagnose, traces):
    diagnoses = []
    real = api._diagnose
    monkeypatch.setattr(api, "_diagnose", lambda *a, **k: diagnoses.append(1) or real(*a, **k))
    counter = GraphCounter()
    compiled = gm_compile(module.step, backend=counter, rules=FAKEWHERE, diagnose=diagnose)

    results = [compiled(torch.full((3,), float(v))) for v in (1, -1, 2)]

    assert len(diagnoses) == traces
    assert counter.graphs == 1
    for v, out in zip((1, -1, 2), results):
        assert torch.equal(out, module.step.__wrapped__(torch.full((3,), float(v))))


def test_verify_passes_on_a_correct_rewrite(module, fake_rules):
    out = gm_compile(module.step, backend="eager", rules=FAKEWHERE, verify=True)(torch.ones(3))

    assert torch.equal(out, torch.full((3,), 9.0))
    assert live.mended_source(module.step)


def test_verify_compares_numpy_outputs_bit_for_bit(module, fake_rules):
    """An output NumPy array is compared as a tensor is, not by `!=` (whose
    array has no truth value: verify raised ValueError where eager runs)."""
    array, total = gm_compile(module.step_to_numpy, backend="eager", rules=FAKEWHERE, verify=True)(torch.ones(3))

    assert array.tolist() == [9.0, 9.0, 9.0] and total == 3.0
    assert "torch.where" in live.mended_source(module.step)


def test_verify_raises_on_a_wrong_rewrite_and_undoes_it(module, fake_rules, monkeypatch):
    real = pipeline.transform_skeleton

    def wrong(*args, **kwargs):
        result = real(*args, **kwargs)
        return type(result)(result.code.replace("y + 1", "y + 2"), *list(vars(result).values())[1:])

    monkeypatch.setattr(pipeline, "transform_skeleton", wrong)
    code = module.step.__code__

    with pytest.raises(graphmend.VerificationError, match=r"output.*differ.*9\.0 != 12\.0"):
        gm_compile(module.step, backend="eager", rules=FAKEWHERE, verify=True)(torch.ones(3))

    assert module.step.__code__ is code


def test_first_call_leaves_module_state_as_one_call_would(module, fake_rules):
    x = torch.ones(2)
    model = module.Stateful()
    torch.manual_seed(0)
    expected = module.Stateful()(x)  # a fresh eager model, same seed
    counter = GraphCounter()
    compiled = gm_compile(model, backend=counter, rules=FAKEWHERE, verify=True)

    torch.manual_seed(0)
    out = compiled(x)

    assert torch.equal(out, expected)  # same RNG draws as a plain first call
    assert model.calls.item() == 1 and model.python_calls == 1 and model.history == ["call"]
    assert counter.graphs == 1
    assert isinstance(compiled, torch.nn.Module) and compiled.scale == 2.0  # attributes forward
    compiled(x)
    assert model.calls.item() == 2


def test_callers_grad_mode_is_respected(module, fake_rules):
    weight = torch.ones(3, requires_grad=True)
    model = module.Stateful()
    model.scale = torch.nn.Parameter(torch.tensor(2.0))
    compiled = gm_compile(model, backend="eager", rules=FAKEWHERE)

    with torch.no_grad():
        assert not compiled(weight).requires_grad
    assert compiled(weight).requires_grad


def test_modules_option_limits_what_is_mended(module, fake_rules):
    code = module.step.__code__

    gm_compile(module.step, backend="eager", rules=FAKEWHERE, modules="somewhere.else")(torch.ones(3))

    assert module.step.__code__ is code


def test_non_callable_is_an_error():
    with pytest.raises(graphmend.GraphmendError, match="not str"):
        gm_compile("model")


HELPER_MODULE = """
import torch


def scale(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y
"""

CALLER_MODULE = """
import {helper}


def forward(x):
    return {helper}.scale(x) - 1
"""


def test_a_helper_in_another_module_is_mended_in_the_first_process(tmp_path, fake_rules):
    """The caller names the helper's module (``helper.scale(x)``): the walk
    over what the call reaches mends it before the first call."""
    helper = load_module(textwrap.dedent(HELPER_MODULE), tmp_path, "helper")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        caller = load_module(textwrap.dedent(CALLER_MODULE.format(helper=helper.__name__)), tmp_path, "caller")
        x = torch.ones(3)
        expected = caller.forward(x)
        counter = GraphCounter()
        torch._dynamo.reset()
        assert torch.equal(gm_compile(caller.forward, backend=counter, rules=FAKEWHERE)(x), expected)
        assert counter.graphs == 1
        assert "torch.where" in live.mended_source(helper.scale)
    finally:
        sys.path.remove(str(tmp_path))
        live.unmend(helper.scale)


def test_compiling_what_graphmend_compiled_compiles_the_original(module, fake_rules):
    x = torch.ones(3)
    expected = module.step(x)
    twice = gm_compile(gm_compile(module.step, backend="eager", rules=FAKEWHERE), backend="eager", rules=FAKEWHERE)
    assert torch.equal(twice(x), expected)
    model = module.Stateful()
    compiled = gm_compile(gm_compile(model, backend="eager"), backend="eager")
    assert compiled._orig_mod is model
    compiled(x)


def test_graphmend_never_mends_its_own_code():
    from graphmend import runtime

    graphmend.mend(runtime.where)
    assert runtime.where.__code__ is runtime.where.__code__ and not live.mended_functions(runtime.where)


UNREACHED_LOG = """
import logging

logger = logging.getLogger("graphmend.test.unreached")


def forward(x, late):
    y = x * 2
    if late:
        logger.warning("reached the late branch")
    return y + 1
"""


def test_a_site_the_first_input_does_not_reach_is_mended_too(tmp_path, isolated_cache, caplog):
    """No diagnosis trace decides what is mended: a logger call in a branch
    the first call skips is mended statically, so the later call that takes
    the branch does not break (it recompiles for the new ``late``, once,
    into the same graph, which the backend does not compile again)."""
    module = load_module(textwrap.dedent(UNREACHED_LOG), tmp_path, "unreached")
    x = torch.ones(3)
    counter = GraphCounter()
    torch._dynamo.reset()
    compiled = gm_compile(module.forward, backend=counter)
    try:
        assert torch.equal(compiled(x, False), x * 2 + 1)
        assert counter.graphs == 1
        traced = compat.graphs_compiled()
        with caplog.at_level("WARNING", logger="graphmend.test.unreached"):
            runs = counter.runs
            assert torch.equal(compiled(x, True), x * 2 + 1)
        assert counter.runs - runs == 1  # one graph for late=True, not two around a break
        assert compat.graphs_compiled() - traced == 1  # Dynamo traced it ...
        assert counter.graphs == 1  # ... into the graph the backend compiled for late=False
        assert [r.getMessage() for r in caplog.records if r.name == "graphmend.test.unreached"] == [
            "reached the late branch"
        ]
    finally:
        graphmend.unmend(module.forward)


def test_a_library_base_class_method_is_mended_in_the_first_process(isolated_cache):
    """LayoutLMv3's break is in transformers' ``ModuleUtilsMixin.get_extended_attention_mask``
    (``modeling_utils``, not the model's module), which its forward calls through
    ``self``: the first process mends it, with no record and no diagnosis."""
    from benchmarks import corpus
    from graphmend.compare import first_difference

    row = corpus.ROWS["layoutlmv3"]
    model = row.model()
    args, kwargs = row.inputs()
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        with torch.no_grad():
            expected = model(*args, **kwargs)
            actual = gm_compile(model, backend=counter)(*args, **kwargs)
        mended = {f.__qualname__ for f in live.mended_functions(model)}
    finally:
        graphmend.unmend(model)
    assert counter.graphs == 1
    assert "ModuleUtilsMixin.get_extended_attention_mask" in mended
    assert first_difference(expected, actual) is None


NEURON = """
import torch
from torch import nn


class Neuron(nn.Module):
    def __init__(self, mechanism):
        super().__init__()
        self.register_buffer("mechanism", torch.as_tensor(mechanism))
        self.init_hidden = False

    def forward(self, x, mem=None):
        if self.init_hidden and mem is not None:
            raise TypeError("`mem` should not be passed while `init_hidden=True`")
        mem = 0.9 * (x if mem is None else mem + x)
        spike = (mem > 1).float()
        if self.mechanism == 0:
            mem = mem - spike
        elif self.mechanism == 1:
            mem = mem - spike * mem
        return spike, mem
"""


def _neuron_called_in_an_eager_loop(tmp_path, monkeypatch, name: str, inputs: list[torch.Tensor]):
    """Three calls of ``graphmend.compile`` of a loop calling a Neuron(0) on
    each of ``inputs``, a break in the loop making each call its own frame
    (Dynamo runs the loop eagerly).  Returns how often the first call traced
    the forward, the graph counter, and whether every call gave eager's
    outputs."""
    from torch._dynamo import symbolic_convert

    module = load_module(textwrap.dedent(NEURON), tmp_path, name)
    neuron = module.Neuron(0)

    def unrolled(xs):
        outputs = []
        for x in xs:
            torch._dynamo.graph_break()
            outputs.append(neuron(x))
        return outputs

    expected = unrolled(inputs)
    traces = []
    run = symbolic_convert.InstructionTranslator.run

    def counting(self):
        traces.append(self.f_code)
        return run(self)

    monkeypatch.setattr(symbolic_convert.InstructionTranslator, "run", counting)
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        ours = gm_compile(unrolled, backend=counter)
        first = ours(inputs)
        traced_in_the_first_call = [code.co_name for code in traces].count("forward")
        later = [ours(inputs) for _ in range(2)]
    finally:
        graphmend.unmend(neuron)
    same = all(torch.equal(a, b) for out in (first, *later) for pair in zip(expected, out) for a, b in zip(*pair))
    return traced_in_the_first_call, counter, same


def test_a_frame_breaking_where_the_first_call_mends_is_traced_only_while_it_teaches_dynamo(tmp_path, isolated_cache,
                                                                                            monkeypatch):
    """Called six times in the first call with the same input, the forward
    whose break that call mends is traced twice: the second trace teaches
    Dynamo's automatic dynamic nothing new, and the other calls run
    eagerly without a trace thrown away each time (xitorch's stopping test,
    90 calls: a first call of 5.5 s, now 2.6 s).  The next call compiles
    the mended code."""
    traced, counter, same = _neuron_called_in_an_eager_loop(tmp_path, monkeypatch, "neuron_loop",
                                                            [torch.linspace(0, 3, 6)] * 6)
    assert traced == 2
    assert counter.graphs == 1 and counter.never_run == 0  # the mended forward, compiled by the next call
    assert same


def test_a_frame_breaking_where_the_first_call_mends_is_traced_while_its_sizes_change(tmp_path, isolated_cache,
                                                                                      monkeypatch):
    """Called on inputs of six lengths in the first call, the forward whose
    break that call mends is traced until a trace teaches Dynamo nothing
    new (a later one sees the length change: a dynamic size), not six
    times.  The mended forward then compiles once, for every length
    (traced once only, it compiled a graph for the first length and another
    when the second came)."""
    inputs = [torch.linspace(0, 3, n) for n in range(5, 11)]
    traced, counter, same = _neuron_called_in_an_eager_loop(tmp_path, monkeypatch, "neuron_sizes", inputs)
    assert 2 <= traced < len(inputs)
    assert counter.graphs == 1 and counter.never_run == 0
    assert same


@pytest.mark.parametrize("mechanism", [0, 1, 2])
def test_a_diagnosed_site_in_a_function_mended_statically_is_mended_too(tmp_path, isolated_cache, mechanism):
    """snntorch's ``Leaky.forward``: its guard is mended statically, and its
    ``if self.mechanism == 0`` (a buffer: only the diagnosis shows it is a
    tensor) was then dropped, because a function mended statically counted
    as mended at every line.  Both are mended now: one graph."""
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(mechanism), torch.linspace(0, 3, 6)
    expected = neuron(x)
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        actual = gm_compile(neuron, backend=counter, diagnose=True)(x)
        mended = graphmend.mending.swap.MENDED[module.Neuron.forward].mended_source
    finally:
        graphmend.unmend(neuron)
    assert counter.graphs == 1
    assert "deferred_check" in mended and "_gm_cond_" in mended
    assert all(torch.equal(a, b) for a, b in zip(expected, actual))


COUNTING = """
import torch
from torch import nn


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mechanism", torch.as_tensor(0))
        self.seen = []

    def forward(self, x):
        if x.sum() > 0:
            self.seen.append(1)
        if self.mechanism == 0:
            x = x - 1
        return x * 2
"""


def test_a_site_the_rules_decline_does_not_end_the_watch(tmp_path, isolated_cache):
    """diffusers' DDPM step: the first watched call mends a site and the
    second meets ``if t > 0:``, whose arm the rules decline (here: a list
    append).  That frame ran eagerly from the declined site on, so the site
    after it (a buffer test, a tensor only at run time) had not been met:
    the watch went on, and it is mended.  It used to end there: 5 graph
    runs per call where 2 remain."""
    module = load_module(textwrap.dedent(COUNTING), tmp_path, "counting")
    model, x = module.Counting(), torch.linspace(-1, 3, 6)
    expected = [model(x) for _ in range(6)]
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        ours = gm_compile(model, backend=counter)
        actual = [ours(x) for _ in range(6)]
        runs = counter.runs_of(lambda: ours(x))
        mended = graphmend.mending.swap.MENDED[module.Counting.forward].mended_source
    finally:
        graphmend.unmend(model)
    assert "self.mechanism == 0" in mended and "_gm_cond_" in mended  # the site after the declined one
    assert runs == 2  # the declined `if` alone breaks
    assert all(torch.equal(a, b) for a, b in zip(expected, actual))
    assert len(model.seen) == 13  # every call appended once, eager and compiled alike


def test_a_frame_breaking_where_the_first_call_mends_runs_eagerly_once(tmp_path, isolated_cache):
    """``if self.mechanism == 0`` on a buffer: only the first call's break
    shows it is a tensor test.  That frame runs eagerly this once rather
    than compile graphs the mended code replaces on the next call: no
    graph is compiled for nothing, and no more than torch.compile's."""
    module = load_module(textwrap.dedent(NEURON), tmp_path, "neuron")
    neuron, x = module.Neuron(0), torch.linspace(0, 3, 6)
    expected = neuron(x)
    torch._dynamo.reset()
    plain = GraphCounter()
    compiled = torch.compile(neuron, backend=plain)
    for _ in range(3):
        compiled(x)
    torch._dynamo.reset()
    counter = GraphCounter()
    try:
        ours = gm_compile(neuron, backend=counter)
        first = ours(x)
        graphs_after_first = counter.graphs
        later = [ours(x) for _ in range(2)]
    finally:
        graphmend.unmend(neuron)
    assert graphs_after_first == 0  # the forward ran eagerly: its break is mended next
    assert counter.graphs == 1 and counter.never_run == 0
    assert counter.graphs < plain.graphs
    assert all(torch.equal(a, b) for out in (first, *later) for a, b in zip(expected, out))


VALIDATED = """
import torch


def finite(v, allow_inf=False):
    coerced = v.float()
    if torch.any(torch.isnan(coerced)):
        raise ValueError("NaN values are not allowed")
    if not allow_inf and torch.any(torch.isinf(coerced)):
        raise ValueError("Inf values are not allowed")
    return coerced


@torch.compiler.disable(recursive=False)
def validate(checks, name, *args, **kwargs):
    return checks[name](*args, **kwargs)


def forward(x, checks):
    scale = validate(checks, "finite", x.sum(), allow_inf=True)
    return validate(checks, "finite", x * scale)
"""


def test_a_function_a_call_meets_is_mended_at_its_static_sites_too(tmp_path, isolated_cache):
    """torchsurv's validators: pydantic calls ``_to_float_tensor`` (each call
    a frame of its own), which no static walk reaches; the first call meets
    its NaN test.  Mended at that line alone, the next call compiled the
    frame with ``allow_inf=True`` whole and met the Inf test in the other;
    mending that changed the function's code, and both frames compiled
    again (12 graphs where torch.compile compiles 11).  The function is
    now mended at the sites the rules match statically too: one round,
    each of its frames compiled once."""
    module = load_module(textwrap.dedent(VALIDATED), tmp_path, "validated")
    checks, x = {"finite": module.finite}, torch.linspace(-1, 1, 5)
    expected = module.forward(x, checks)
    compiled_in_finite: list[int] = []

    def backend(gm, example_inputs):
        if any("in finite" in node.meta.get("stack_trace", "") for node in gm.graph.nodes):
            compiled_in_finite.append(len(gm.graph.nodes))
        return gm.forward

    torch._dynamo.reset()
    try:
        ours = gm_compile(module.forward, backend=backend)
        actual = [ours(x, checks) for _ in range(3)]
        mended = live.mended_source(module.finite)
    finally:
        graphmend.unmend(module.forward)
        live.unmend(module.finite)
    assert mended.count("deferred_check") == 2
    assert len(compiled_in_finite) == 2  # a frame for each allow_inf, once
    assert all(torch.equal(a, expected) for a in actual)


STOPPING = """
import torch


class Stop:
    def __init__(self):
        self.best = float("inf")
        self.best_x = None

    def check(self, x, previous):
        step: float = float((x - previous).norm().item())
        fval: float = float((x * x).sum().item())
        if fval < self.best:
            self.best = fval
            self.best_x = x
        return step < 1e-3


def minimise(x, steps):
    stop = Stop()
    for _ in range(steps):
        previous, x = x, x - 0.1 * torch.sin(x)
        if stop.check(x, previous):
            break
    return stop.best_x
"""


def test_a_branch_on_a_number_read_back_before_it_is_not_mended_first(tmp_path, isolated_cache):
    """xitorch's stopping test: ``fval: float = float(f.item())`` then ``if
    fval < self.best:``.  Under [Capture] the ``if`` jumps on a Python
    number, which [Where] cannot turn into a tensor test (the read-back is
    not in the test, nor in a plain assignment it reads), so its rewrite
    would break where the original does.  The first call used to run the
    frame eagerly to mend it first, and the next calls compiled it again
    (the minimiser: 14 graphs for torch.compile's 11); it now compiles in
    the first call, as torch.compile's does."""
    module = load_module(textwrap.dedent(STOPPING), tmp_path, "stopping")
    x = torch.linspace(-1, 2, 5)
    expected = module.minimise(x, 12)
    counts = []
    for compile_fn in (torch.compile, gm_compile):
        torch._dynamo.reset()
        counter = GraphCounter()
        compiled = compile_fn(module.minimise, backend=counter)
        first = compiled(x, 12)
        counts.append((counter.graphs, counter.runs))
        later = [compiled(x, 12) for _ in range(2)]
        assert all(torch.equal(out, expected) for out in (first, *later))
    graphmend.unmend(module.minimise)
    assert counts[1] == counts[0]  # graphs compiled and run by the first call (it read 0 graphs: eager)


DECLINED_IN_A_CALLEE = """
import torch
from torch import nn


def note(x, seen):
    if x.sum() > 0:
        seen.append(1)  # the rules decline the if: an append in its arm
    return x + 1


class Noting(nn.Module):
    def forward(self, x):
        seen = []
        y = note(x * 2, seen) * 3
        return y, len(seen)
"""


def test_a_site_the_rules_decline_at_once_costs_no_trace_more_than_torch_compile(tmp_path, isolated_cache,
                                                                                  monkeypatch):
    """A break the first call's trace meets in a callee, at a site the rules
    decline: the trace goes on, and Dynamo places the break as it would
    without graphmend (transformers' ``generate``, ``_cache_dependant_input_
    preparation``: traced three times where torch.compile traces it twice)."""
    from torch._dynamo import symbolic_convert

    module = load_module(textwrap.dedent(DECLINED_IN_A_CALLEE), tmp_path, "declined_in_a_callee")
    traced: list[str] = []
    run = symbolic_convert.InstructionTranslator.run

    def counting(self):
        traced.append(self.f_code.co_name)
        return run(self)

    monkeypatch.setattr(symbolic_convert.InstructionTranslator, "run", counting)
    x = torch.linspace(-1, 3, 6)
    arms = {}
    for name, make in (("torch.compile", torch.compile), ("graphmend", gm_compile)):
        torch._dynamo.reset()
        traced.clear()
        model, counter = module.Noting(), GraphCounter()
        try:
            compiled = make(model, backend=counter)
            outputs = [compiled(x) for _ in range(3)]
            arms[name] = (traced.count("forward"), counter.graphs, counter.runs_of(lambda: compiled(x)), outputs)
        finally:
            graphmend.unmend(model)
    plain, ours = arms["torch.compile"], arms["graphmend"]
    assert ours[:3] == plain[:3] and plain[0] == 2, (ours[:3], plain[:3])  # a trace, and Dynamo's to place the break
    assert all(torch.equal(a[0], b[0]) and a[1] == b[1] == 1 for a, b in zip(ours[3], plain[3]))


def test_a_warm_compiled_object_called_inside_torch_compile_is_traced_into_the_callers_graph():
    """Called while Dynamo traces a caller, graphmend.compile's warm object
    hands Dynamo its torch.compile'd callable, which Dynamo inlines: one
    graph, no graph break at the call."""
    def masked_sum(x):
        return x[x > 0].sum() * 2

    torch._dynamo.reset()
    x = torch.tensor([1.0, -2.0, 3.0])
    inner = gm_compile(masked_sum, backend="eager")
    for _ in range(4):
        inner(x)
    counter = GraphCounter()
    outer = torch.compile(lambda x: inner(x) + 1, backend=counter)
    for _ in range(3):
        assert torch.equal(outer(x), masked_sum(x) + 1)
    assert counter.graphs == 1
    torch._dynamo.reset()
