"""GraphCounter.profile: the operators a call runs inside graphs and outside
them, beside its graph runs (what tells a frame run eagerly whole from one
whose breaks were removed)."""

from __future__ import annotations

from types import SimpleNamespace

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmend.diagnosis import GraphCounter


@torch.compiler.disable
def _run_eagerly(a):
    return (a * 2) - 1


def _graph_eager_graph(x):
    return _run_eagerly(x + 1).sin()


def _one_graph(x):
    return x.sin() * 2


def test_operators_a_break_leaves_outside_count_outside_the_graphs():
    counter = GraphCounter()
    compiled = torch.compile(_graph_eager_graph, backend=counter)
    x = torch.randn(8)
    compiled(x)
    profile = counter.profile(lambda: compiled(x))
    # add | mul, sub (the disabled function, run eagerly) | sin
    assert (profile.runs, profile.ops, profile.ops_in_graphs) == (2, 4, 2)
    assert profile.share_in_graphs == 0.5
    assert 0.0 < profile.us_in_graphs < profile.us


def test_a_frame_run_eagerly_whole_has_no_graph_run_and_no_operator_in_a_graph():
    counter = GraphCounter()
    compiled = torch.compile(_one_graph, backend=counter)
    x = torch.randn(8)
    compiled(x)
    with torch.compiler.set_stance("force_eager"):
        profile = counter.profile(lambda: compiled(x))
    assert (profile.runs, profile.ops, profile.ops_in_graphs) == (0, 2, 0)


def test_a_backward_pass_is_left_out_on_any_backend():
    """The eager backend's backward runs outside graphs, a compiled one's
    inside: neither counts, so the share compares arms on any backend."""
    counter = GraphCounter()
    compiled = torch.compile(_one_graph, backend=counter)
    x = torch.randn(8, requires_grad=True)
    seed = torch.ones(8)
    compiled(x).backward(seed)
    profile = counter.profile(lambda: compiled(x).backward(seed))
    assert (profile.runs, profile.ops, profile.ops_in_graphs) == (1, 2, 2)
    assert x.grad is not None


def test_a_call_that_compiles_counts_the_operators_it_runs_not_those_dynamo_traces():
    """Dynamo traces on fake tensors, through the dispatcher: the profiler
    sees those operators too, inside Dynamo's own ranges."""
    counter = GraphCounter()
    compiled = torch.compile(_graph_eager_graph, backend=counter)
    x = torch.randn(8)
    first = counter.profile(lambda: compiled(x))
    later = counter.profile(lambda: compiled(x))
    assert (first.ops, first.ops_in_graphs) == (later.ops, later.ops_in_graphs) == (4, 2)


def test_graph_runs_are_marked_only_while_profiled():
    counter = GraphCounter()
    compiled = torch.compile(_one_graph, backend=counter)
    x = torch.randn(8)
    counter.profile(lambda: compiled(x))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        compiled(x)
    assert not [e for e in prof.events() if e.name.startswith("graphmend")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 20), st.integers(0, 4)), max_size=12),
       st.lists(st.tuples(st.integers(0, 300), st.integers(0, 30)), max_size=30))
def test_spans_contain_what_one_of_their_ranges_holds(layout, spans):
    """The binary search over the stretches the ranges cover answers as a
    test of every range would, for ranges apart or nested (one thread's)."""
    from graphmend.diagnosis.counting import _Spans

    ranges, clock = [], 0
    for gap, length, inner in layout:  # apart, each with a range nested in it
        start = clock + gap
        ranges.append(SimpleNamespace(start=start, end=start + length))
        if inner and inner < length:
            ranges.append(SimpleNamespace(start=start + inner, end=start + length - 1))
        clock = start + length
    searched = _Spans(ranges)
    for start, length in spans:
        span = SimpleNamespace(start=start, end=start + length)
        assert searched.contain(span) == any(r.start <= span.start and span.end <= r.end for r in ranges)
