"""The lab beside the tool: graphmend's benchmarks, run from the repository.

Nothing here ships in the ``graphmend`` wheel: the corpora
(:mod:`benchmarks.corpus`, the paper's transformers rows;
:mod:`benchmarks.ecosystem`, ten other PyTorch libraries), the side-by-side
runner (:mod:`benchmarks.bench`, :mod:`benchmarks.bench_ecosystem`), the
fresh-process timing harness (:mod:`benchmarks.timing`: first call, calls to
the steady state and warm latency, of any corpus's row), graphmend's own
speed (:mod:`benchmarks.bench_speed`), the torch-version matrix
(:mod:`benchmarks.compat_matrix`) and the demo (:mod:`benchmarks.demo`).

    make bench              # python -m benchmarks; then --cold --switches
    make bench-ecosystem    # python -m benchmarks --corpus ecosystem
    make demo               # python -m benchmarks.demo
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The repository root: the folder that holds ``benchmarks/`` (and ``graphmend/``).
ROOT = Path(__file__).resolve().parent.parent


def child_pythonpath() -> str:
    """``PYTHONPATH`` for a worker process spawned by module name
    (``python -m benchmarks.timing --worker``): the repository root first, so
    the worker imports this package wherever the parent was started from."""
    rest = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(ROOT), rest]) if rest else str(ROOT)


#: How many calls past those asked for a harness makes while the count is not yet steady.
MOST_EXTRA_CALLS = 10


def watched(compiled: Any) -> bool:
    """Whether ``graphmend.compile``'s object watches its next call (it may
    mend the sites it meets and run their frames eagerly); never what
    ``torch.compile`` returned."""
    first_call = getattr(compiled, "_graphmend_first_call", None)
    return first_call is not None and first_call.watching


def steady_calls(compiled: Any, calls: int, counter: Any = None) -> Iterator[int]:
    """The indices of the calls a harness makes of ``compiled``: at least
    ``calls``, and more until the last one is steady, up to
    ``MOST_EXTRA_CALLS`` more.  A call is not steady while
    ``graphmend.compile``'s object watches its calls (a watched call may
    mend the sites it meets and run their frames eagerly, so its graph runs
    are fewer than the steady state's) nor, in either arm, until it
    repeats the call before it: the same graphs compiled and the same graph
    runs on ``counter`` (a :class:`~graphmend.diagnosis.GraphCounter`).  A
    row whose calls recompile a frame for fresh inputs may compile on its
    fourth or fifth call what it will not compile again; one that compiles
    the same graphs every call (an optimizer built per call) is steady
    doing so.  The count waits for two unwatched calls in a row that are
    alike.  What ``torch.compile`` returned is never watched."""
    unwatched, last = 0, None
    for index in range(calls + MOST_EXTRA_CALLS):
        was_watched = watched(compiled)
        before = (counter.graphs, counter.runs) if counter is not None else (0, 0)
        yield index
        made = (counter.graphs - before[0], counter.runs - before[1]) if counter is not None else (0, 0)
        unwatched = 0 if was_watched else unwatched + 1
        if index + 1 >= calls and unwatched >= 2 and made == last:
            return
        last = made


def ops_share(counts: dict[str, Any]) -> float | None:
    """The share of a steady call's operators that ran in graphs, from an
    arm's counts (``ops``, ``ops_in_graphs``: :meth:`graphmend.diagnosis.GraphCounter.profile`)."""
    return counts["ops_in_graphs"] / counts["ops"] if counts.get("ops") else None


def percent(share: float | None, missing: str = "?") -> str:
    return missing if share is None else f"{100 * share:.0f}%"
