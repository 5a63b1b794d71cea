"""Counting what compiled code runs: graphs compiled, and graph runs.

Graphs compiled is what the first call pays; graph runs per call is what
every later call pays (on a GPU each run is at least one launch).  A loop
whose body breaks compiles a few graphs and runs them many times, so the
first count alone says nothing of latency; and a graph compiled that never
runs is a compile paid for nothing.  :class:`GraphCounter` counts both at
the one place every graph passes: the backend.  Fewer runs can also mean
less in graphs (a frame Dynamo gives up on runs eagerly, whole, and runs no
graph at all), so :meth:`GraphCounter.profile` also counts the operators a
call runs inside graphs and outside them.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import torch

from graphmend import compat


class GraphCounter:
    """A Dynamo backend that hands each graph to ``backend`` (a name
    ``torch.compile`` knows, or a backend callable) and counts the graphs
    compiled and the runs of each.

    ``torch.compile(f, backend=GraphCounter("inductor"))`` compiles what
    ``torch.compile(f)`` compiles; each compiled graph runs behind one
    Python call that counts it.
    """

    def __init__(self, backend: str | Callable[..., Any] = "eager") -> None:
        self.backend = torch._dynamo.lookup_backend(backend) if isinstance(backend, str) else backend
        #: Runs of each graph compiled, in the order they were compiled.
        self.runs_per_graph: list[int] = []
        #: Where each graph's code comes from: the user's line of its first
        #: operation (``file:line in function``).
        self.origins: list[str] = []
        #: Whether graph runs are marked for the profiler (:meth:`profile`).
        self._marking = False

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        compiled = compat.what_dynamo_calls(self.backend(gm, example_inputs))
        index = len(self.runs_per_graph)
        self.runs_per_graph.append(0)
        self.origins.append(_origin(gm))

        def run(*args: Any) -> Any:
            self.runs_per_graph[index] += 1
            if self._marking:
                with torch.profiler.record_function(GRAPH_RANGE):
                    return compiled(*args)
            return compiled(*args)

        return run

    @property
    def graphs(self) -> int:
        """Graphs compiled."""
        return len(self.runs_per_graph)

    @property
    def runs(self) -> int:
        """Graph runs, all graphs together."""
        return sum(self.runs_per_graph)

    @property
    def never_run(self) -> int:
        """Graphs compiled that have not run (yet)."""
        return self.runs_per_graph.count(0)

    def never_run_origins(self) -> list[str]:
        """Where each graph compiled that has not run (yet) comes from."""
        return [origin for origin, runs in zip(self.origins, self.runs_per_graph) if runs == 0]

    def runs_of(self, call: Callable[[], Any]) -> int:
        """How many graph runs ``call()`` makes."""
        before = self.runs
        call()
        return self.runs - before

    def profile(self, call: Callable[[], Any]) -> Profile:
        """``call()`` under the profiler, every graph run inside a
        :data:`GRAPH_RANGE` range: its graph runs and the operators it runs
        in graphs and outside them (:meth:`Profile.of`)."""
        self._marking = True
        try:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                runs = self.runs_of(call)
        finally:
            self._marking = False
        return Profile.of(runs, prof.events())


#: The profiler range around each graph run while :meth:`GraphCounter.profile` watches.
GRAPH_RANGE = "graphmend: graph run"

#: The autograd engine's range around each node of a backward pass.
_BACKWARD_RANGE = "autograd::engine::evaluate_function"


@dataclass(frozen=True)
class Profile:
    """What one profiled call ran: graph runs, and its operators (each
    top-level ``aten::`` operator the forward dispatches once; operators an
    operator calls do not count) with their CPU time, all of them and those
    inside a graph run, the way Dynamo's own ``torch._dynamo.profiler``
    counts them.  A backward pass's operators are left out: the autograd
    engine runs them outside any graph on a backend that compiles forward
    graphs only, and inside compiled ones where a backend compiles the
    backward too, so the counts compare arms on any backend.  So are the
    operators Dynamo runs on fake tensors while it traces: a call that
    compiles (a frame guarded on the ``id`` of an object built per call is
    traced again on every call) counted them as operators run outside
    graphs (trl's geometric-mixture ``generate``: 3059 operators, 2519 of
    them the call's)."""

    runs: int
    ops: int
    ops_in_graphs: int
    us: float
    us_in_graphs: float

    @property
    def share_in_graphs(self) -> float | None:
        """The share of the operators that ran inside graphs."""
        return self.ops_in_graphs / self.ops if self.ops else None

    @classmethod
    def of(cls, runs: int, events: Iterable[Any]) -> Profile:
        events = sorted(events, key=lambda e: e.time_range.start)
        graphs = _Spans(e.time_range for e in events if e.name == GRAPH_RANGE)
        backward = _Spans(e.time_range for e in events if e.name.startswith(_BACKWARD_RANGE))
        compiling = _Spans(e.time_range for e in events if e.name.endswith(compat.COMPILE_RANGE_SUFFIX))
        ops = ops_in_graphs = 0
        us = us_in_graphs = 0.0
        last_end = -1
        for event in events:
            span = event.time_range
            if not event.name.startswith("aten::") or span.start < last_end:
                continue  # not an operator, or called by one
            last_end = span.end
            if backward.contain(span) or compiling.contain(span):
                continue
            ops += 1
            us += span.elapsed_us()
            if graphs.contain(span):
                ops_in_graphs += 1
                us_in_graphs += span.elapsed_us()
        return cls(runs, ops, ops_in_graphs, us, us_in_graphs)


class _Spans:
    """Profiler ranges of one thread (apart or nested, never half
    overlapping) as the stretches they cover, so that whether one of them
    contains a span is a binary search: a call's graph runs number in the
    thousands and its operators in the tens of thousands, and testing each
    operator against every run took seconds."""

    def __init__(self, ranges: Iterable[Any]) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for span in sorted(ranges, key=lambda r: r.start):
            if self._ends and span.start < self._ends[-1]:  # nested: the stretch already covers it
                self._ends[-1] = max(self._ends[-1], span.end)
            else:
                self._starts.append(span.start)
                self._ends.append(span.end)

    def contain(self, span: Any) -> bool:
        """Whether one of the ranges holds ``span`` whole."""
        index = bisect.bisect_right(self._starts, span.start) - 1
        return index >= 0 and span.end <= self._ends[index]


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _origin(gm: torch.fx.GraphModule) -> str:
    """``file:line in function`` of the first operation in ``gm`` that
    records the user's stack (Dynamo's ``stack_trace``)."""
    for node in gm.graph.nodes:
        frames = _FRAME.findall(node.meta.get("stack_trace") or "")
        if frames:
            filename, line, function = frames[-1]
            return f"{os.path.basename(filename)}:{line} in {function}"
    return "a graph with no traced operation"
