"""A graph identical to one the backend compiled before is not compiled
again inside graphmend.compile's calls (graphmend.compat.reuse), and what
decides "identical"."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import graphmend
from graphmend.compat.reuse import CompiledGraphs, NotReused, graph_key, _value_key
from graphmend.diagnosis import GraphCounter


class Config:
    def __init__(self, scale: float = 2.0) -> None:
        self.scale = scale


def step(x, config):
    # ``deepcopy`` keeps the copy in a memo keyed by ``id(config)``: Dynamo
    # guards on that id, so each fresh config compiles the frame again, into
    # the same graph (trl's geometric-mixture generation copies its config so).
    config = copy.deepcopy(config)
    y = x * config.scale + 1
    return y, torch.from_numpy(np.abs(y.detach().numpy()))  # a NumPy call Dynamo traces, wrapped afresh


def _calls(compiled, x, n=4):
    return [compiled(x, Config()) for _ in range(n)]


def _same(a, b) -> bool:
    return all(torch.equal(p, q) for p, q in zip(a, b, strict=True))


@pytest.fixture
def reset():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_a_frame_recompiled_into_an_identical_graph_reuses_what_the_backend_compiled(reset):
    x = torch.randn(5)
    counter = GraphCounter()
    compiled = graphmend.compile(step, backend=counter)
    results = _calls(compiled, x)
    assert all(_same(result, step(x, Config())) for result in results)
    assert counter.graphs == 1  # torch.compile: 4 (next test)
    assert counter.runs_per_graph == [4]  # each call runs the one graph
    assert compiled._graphmend_first_call.graphs.reused == 3


def test_torch_compile_outside_graphmend_compiles_an_identical_graph_again(reset):
    """Nothing changes for torch.compile, even after graphmend.compile has
    run the same function and its patches are in."""
    x = torch.randn(5)
    graphmend.compile(step, backend=GraphCounter())(x, Config())
    torch._dynamo.reset()
    counter = GraphCounter()
    _calls(torch.compile(step, backend=counter), x)
    assert counter.graphs == 4


def test_an_inductor_graph_is_reused_with_torch_compiles_bits(reset):
    x = torch.randn(5)
    expected = torch.compile(step, backend="inductor")(x, Config())
    torch._dynamo.reset()
    counter = GraphCounter("inductor")
    results = _calls(graphmend.compile(step, backend=counter), x, 3)
    assert all(_same(result, expected) for result in results)
    assert counter.graphs == 1 and counter.runs_per_graph == [3]


def test_a_training_step_reuses_a_graph_with_its_backward(reset):
    def loss(w, x, config):
        config = copy.deepcopy(config)
        return ((w * x).sum() * config.scale).tanh()

    x = torch.randn(6)
    expected = []
    for _ in range(3):
        w = torch.linspace(-1, 1, 6, requires_grad=True)
        out = loss(w, x, Config())
        out.backward()
        expected.append((out.detach(), w.grad))
    counter = GraphCounter("aot_eager")
    compiled = graphmend.compile(loss, backend=counter)
    for want in expected:
        w = torch.linspace(-1, 1, 6, requires_grad=True)
        out = compiled(w, x, Config())
        out.backward()
        assert torch.equal(out.detach(), want[0]) and torch.equal(w.grad, want[1])
    assert counter.graphs == 1 and counter.runs_per_graph == [3]


# --- what decides "identical" -------------------------------------------------


def _traced(fn, *, constant: torch.Tensor | None = None) -> torch.fx.GraphModule:
    gm = torch.fx.symbolic_trace(fn)
    if constant is not None:
        gm.register_buffer("held", constant)
    return gm


def _add(x):
    return x + 1.5


def _add_negative_zero(x):
    return x + -0.0


def _add_zero(x):
    return x + 0.0


def _add_nan(x):
    return x + float("nan")


class _Holding(torch.nn.Module):
    def __init__(self, held: torch.Tensor) -> None:
        super().__init__()
        self.held = held

    def forward(self, x):
        return x + self.held


def _key(gm, inputs, backend="eager"):
    return graph_key(backend, gm, inputs)


def test_two_traces_of_the_same_code_on_alike_inputs_are_identical():
    assert _key(_traced(_add), [torch.randn(3)]) == _key(_traced(_add), [torch.zeros(3)])
    assert _key(_traced(_add_nan), [torch.randn(3)]) == _key(_traced(_add_nan), [torch.randn(3)])


@pytest.mark.parametrize("other", [
    pytest.param(lambda: (_traced(_add), [torch.randn(4)], "eager"), id="size"),
    pytest.param(lambda: (_traced(_add), [torch.randn(6)[::2]], "eager"), id="stride"),
    pytest.param(lambda: (_traced(_add), [torch.randn(3, dtype=torch.float64)], "eager"), id="dtype"),
    pytest.param(lambda: (_traced(_add), [torch.randn(3, requires_grad=True)], "eager"), id="requires_grad"),
    pytest.param(lambda: (_traced(_add), [torch.randn(3)], "aot_eager"), id="backend"),
    pytest.param(lambda: (_traced(_add_zero), [torch.randn(3)], "eager"), id="constant"),
])
def test_what_differs_from_a_graph_in_what_decides_it_is_not_identical(other):
    gm, inputs, backend = other()
    assert _key(_traced(_add), [torch.randn(3)]) != _key(gm, inputs, backend)


def test_a_float_constant_counts_by_its_bits():
    assert _key(_traced(_add_zero), [torch.randn(3)]) != _key(_traced(_add_negative_zero), [torch.randn(3)])


def test_grad_and_inference_modes_count():
    gm, inputs = _traced(_add), [torch.randn(3)]
    plain = _key(gm, inputs)
    with torch.no_grad():
        assert _key(gm, inputs) != plain
    with torch.inference_mode():
        assert _key(gm, inputs) != plain


def test_a_tensor_held_by_the_graph_counts_by_identity_not_value():
    held = torch.ones(3)
    inputs = [torch.randn(3)]
    one = _key(torch.fx.symbolic_trace(_Holding(held)), inputs)
    assert one == _key(torch.fx.symbolic_trace(_Holding(held)), inputs)
    assert one != _key(torch.fx.symbolic_trace(_Holding(torch.ones(3))), inputs)


# --- where graphmend cannot tell, the graph compiles as ever -------------------


def test_a_symbolic_size_is_not_reused(reset):
    reasons = []

    def backend(gm, example_inputs):
        try:
            graph_key("eager", gm, example_inputs)
        except NotReused as why:
            reasons.append(str(why))
        return gm.forward

    x = torch.randn(4)
    torch._dynamo.mark_dynamic(x, 0)
    torch.compile(_add, backend=backend)(x)
    assert reasons == ["a symbolic size"]


def test_inputs_sharing_a_storage_are_not_reused():
    base = torch.randn(6)
    with pytest.raises(NotReused, match="share a storage"):
        _key(torch.fx.symbolic_trace(lambda a, b: a + b), [base[:3], base[3:]])


def test_a_tensor_subclass_input_is_not_reused():
    class Tagged(torch.Tensor):
        pass

    with pytest.raises(NotReused, match="an input of type Tagged"):
        _key(_traced(_add), [torch.randn(3).as_subclass(Tagged)])


def test_an_argument_of_an_unknown_kind_is_not_reused():
    with pytest.raises(NotReused, match="an argument of type object"):
        _value_key(object(), {})


def test_a_graph_whose_key_fails_compiles_as_ever():
    graphs, compiled = CompiledGraphs(), []

    def compile():
        compiled.append(1)
        return len(compiled)

    base = torch.randn(6)
    gm = torch.fx.symbolic_trace(lambda a, b: a + b)
    for _ in range(2):
        assert graphs.compile("eager", gm, [base[:3], base[3:]], compile) == len(compiled)
    assert len(compiled) == 2 and graphs.reused == 0
    for _ in range(2):
        assert graphs.compile("eager", gm, [torch.randn(3), torch.randn(3)], compile) == 3
    assert graphs.reused == 1


def test_freezing_is_not_reused():
    import torch._inductor.config as inductor_config

    with inductor_config.patch(freezing=True), pytest.raises(NotReused, match="freezing"):
        _key(_traced(_add), [torch.randn(3)])


def test_a_static_input_counts_by_identity():
    one, other = torch.randn(3), torch.randn(3)
    for tensor in (one, other):
        torch._dynamo.mark_static_address(tensor)
    gm = _traced(_add)
    assert _key(gm, [one]) == _key(gm, [one])
    assert _key(gm, [one]) != _key(gm, [other])
