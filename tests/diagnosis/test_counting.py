"""GraphCounter.profile: the operators a call runs inside graphs and outside
them, beside its graph runs (what tells a frame run eagerly whole from one
whose breaks were removed)."""

from __future__ import annotations

import torch

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


def test_graph_runs_are_marked_only_while_profiled():
    counter = GraphCounter()
    compiled = torch.compile(_one_graph, backend=counter)
    x = torch.randn(8)
    counter.profile(lambda: compiled(x))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        compiled(x)
    assert not [e for e in prof.events() if e.name.startswith("graphmend")]
