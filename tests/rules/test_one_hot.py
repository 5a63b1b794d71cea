"""[Trap] one-hot of a width read from data: the rewritten call gives
one-hot's values, dtype, strides and errors, eagerly and compiled, in one
graph where [Capture] holds the width.

The fixtures in ``tests/fixtures/trap/*one_hot*`` pin the rewritten text;
these tests run it.
"""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings

import graphmend
from graphmend import runtime
from graphmend.compat import capture
from graphmend.mending import live
from harness import GraphCounter, assert_same_outcome, load_module, mend_source, outcome_of

#: mixture-of-experts routing (st-moe-pytorch, mixture-of-experts), and a width read with ``int()``.
ROUTING = '''
import torch
import torch.nn.functional as F


def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    one_hot_classes = max(max_index + 1, max_length)
    return F.one_hot(indexes, one_hot_classes)[..., :max_length]


def route(logits, capacity):
    positions = logits.argmax(-1)
    return safe_one_hot(positions, capacity).float() * logits.sum(-1, keepdim=True)


def counts(labels):
    onehot = F.one_hot(labels, int(labels.max()) + 1)
    return onehot.sum(0)


def combine(logits, capacity):
    # two widths from data, sliced back to one static width, then multiplied
    return safe_one_hot(logits.argmax(-1), capacity) * safe_one_hot(logits.argmin(-1), capacity)
'''

INDEXES = [
    torch.tensor([[0, 3, 1], [2, 2, 0]]),
    torch.tensor([5, 0, 7]),
    torch.tensor([-1, 2]),  # one-hot's "non-negative" error
    torch.zeros(0, dtype=torch.long),  # max() of an empty tensor: its error, before one-hot's
    torch.tensor([1, 2], dtype=torch.int32),  # one-hot's dtype error
]


def _same_tensor(expected, actual) -> None:
    assert_same_outcome(expected, actual, "compiled")
    if isinstance(expected.value, torch.Tensor):
        assert actual.value.stride() == expected.value.stride()


@pytest.mark.parametrize("indexes", INDEXES, ids=lambda t: f"{t.dtype}-{t.tolist()}")
@pytest.mark.parametrize("capacity", [2, 4, 9])
def test_routing_under_graphmend_compile_is_one_graph_with_one_hots_outcome(tmp_path, indexes, capacity):
    module = load_module(ROUTING, tmp_path, "routing")
    expected = outcome_of(module.safe_one_hot, indexes, capacity)
    torch._dynamo.reset()
    counter = GraphCounter()
    actual = outcome_of(graphmend.compile(module.safe_one_hot, backend=counter), indexes, capacity)
    _same_tensor(expected, actual)
    if expected.error is None:
        assert counter.graphs == 1


def test_the_libraries_routing_compiles_to_one_graph(tmp_path):
    original, mended, result = mend_source(ROUTING, tmp_path, rules=["trap"])
    assert [site.lineno for site in result.sites] == [9, 18]
    logits = torch.randn(2, 5, 4)
    for function, args in ((original.route, (logits, 3)), (original.counts, (torch.tensor([3, 1, 1]),))):
        expected = outcome_of(function, *args)
        torch._dynamo.reset()
        counter = GraphCounter()
        with capture.scope():
            actual = outcome_of(torch.compile(getattr(mended, function.__name__), backend=counter), *args)
        _same_tensor(expected, actual)
        assert counter.graphs == 1
        torch._dynamo.reset()
        before = GraphCounter()
        with capture.scope():
            torch.compile(function, backend=before)(*args)
        assert before.graphs > 1  # the break the rewrite removes


def test_a_width_known_not_below_the_slice_keeps_its_slice_static(tmp_path):
    """``max(e, k)[..., :k]`` is as wide as ``k``: told so (``at_least``),
    Dynamo multiplies two such encodings without assuming their captured
    widths equal, an assumption [Capture] would give the frame up for."""
    module = load_module(ROUTING, tmp_path, "combine")
    logits = torch.randn(2, 5, 4)
    expected = outcome_of(module.combine, logits, 3)
    torch._dynamo.reset()
    counter = GraphCounter()
    _same_tensor(expected, outcome_of(graphmend.compile(module.combine, backend=counter), logits, 3))
    assert counter.graphs == 1
    assert "at_least=max_length" in live.mended_source(module.safe_one_hot)


def test_without_capture_the_call_runs_as_written(tmp_path):
    """Plain torch.compile of the rewritten code: reading the width breaks
    the graph as the original's call did, and the call runs eagerly."""
    original, mended, _ = mend_source(ROUTING, tmp_path, rules=["trap"])
    for indexes in INDEXES[:3]:
        expected = outcome_of(original.counts, indexes)
        torch._dynamo.reset()
        counter = GraphCounter()
        actual = outcome_of(torch.compile(mended.counts, backend=counter), indexes)
        _same_tensor(expected, actual)


#: How the width reaches one-hot: a 0-dim tensor of either dtype it takes, an
#: ``int()`` of one ([Capture] holds it as a symbolic int), a Python int.
WIDTH_KINDS = ("tensor64", "tensor32", "symint", "int")


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=1, max_size=3), values=st.lists(st.integers(-2, 7), min_size=27),
       kind=st.sampled_from(WIDTH_KINDS), width=st.integers(-2, 9), bound=st.sampled_from([None, 0, 2]))
@example(shape=[0], values=[0] * 27, kind="tensor64", width=1, bound=2)  # an empty encoding: contiguous strides
@example(shape=[0, 2], values=[0] * 27, kind="symint", width=0, bound=None)  # empty, no width: one-hot's error
@example(shape=[3], values=[0] * 27, kind="tensor64", width=-1, bound=None)  # the width read from the values
@example(shape=[2], values=[4, -1] + [0] * 25, kind="tensor32", width=3, bound=2)  # negative before too large
@example(shape=[2, 3], values=list(range(27)), kind="int", width=6, bound=2)  # too large
def test_one_hot_encoding_matches_one_hot_for_every_input(shape, values, kind, width, bound):
    numel = 1
    for size in shape:
        numel *= size
    indexes = torch.tensor(values[:numel], dtype=torch.long).reshape(shape)
    width_arg = width if kind == "int" else torch.tensor(width, dtype=torch.int32 if kind == "tensor32" else torch.int64)

    def original(indexes, width_arg):
        return F.one_hot(indexes, int(width_arg) if kind == "symint" else width_arg)

    def rewritten(indexes, width_arg):
        # ``at_least`` as the rule passes it: a bound the width is never below
        at_least = bound if bound is not None and width >= bound else None
        return runtime.one_hot_encoding(indexes, int(width_arg) if kind == "symint" else width_arg, at_least=at_least)

    expected = outcome_of(original, indexes, width_arg)
    assert_same_outcome(expected, outcome_of(rewritten, indexes, width_arg), "eager")
    torch._dynamo.reset()
    counter = GraphCounter()
    with capture.scope():
        actual = outcome_of(torch.compile(rewritten, backend=counter), indexes, width_arg)
    _same_tensor(expected, actual)
    assert counter.graphs == 1


def test_under_inductor_too():
    indexes = torch.tensor([[0, 3, 1], [2, 2, 0]])

    def rewritten(indexes, width):
        return runtime.one_hot_encoding(indexes, width)[..., :3]

    torch._dynamo.reset()
    with capture.scope():
        compiled = torch.compile(rewritten)
        for width in (torch.tensor(5), torch.tensor(4)):
            expected = F.one_hot(indexes, width)[..., :3]
            actual = compiled(indexes, width)
            assert torch.equal(actual, expected) and actual.stride() == expected.stride()
        with pytest.raises(RuntimeError, match="^Class values must be smaller than num_classes.$"):
            compiled(indexes, torch.tensor(2))


def test_diagnose_reports_the_one_hot_as_fixable_by_trap(tmp_path):
    from graphmend.diagnosis import diagnose

    original, _, _ = mend_source(ROUTING, tmp_path, rules=["trap"])
    (site,) = diagnose(original.route, torch.randn(2, 5, 4), 3).breaks
    assert (site.category, site.lineno, site.fixable, site.rule) == ("SCALAR", 9, True, "trap")
