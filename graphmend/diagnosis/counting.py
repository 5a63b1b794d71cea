"""Counting what compiled code runs: graphs compiled, and graph runs.

Graphs compiled is what the first call pays; graph runs per call is what
every later call pays (on a GPU each run is at least one launch).  A loop
whose body breaks compiles a few graphs and runs them many times, so the
first count alone says nothing of latency; and a graph compiled that never
runs is a compile paid for nothing.  :class:`GraphCounter` counts both at
the one place every graph passes: the backend.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
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

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        compiled = compat.what_dynamo_calls(self.backend(gm, example_inputs))
        index = len(self.runs_per_graph)
        self.runs_per_graph.append(0)
        self.origins.append(_origin(gm))

        def run(*args: Any) -> Any:
            self.runs_per_graph[index] += 1
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
