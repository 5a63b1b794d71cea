"""A call of graphmend.compile's callable, found on the stack where a
frame conversion needs it.

What a call asks of Dynamo (the codes it runs eagerly, the graphs its
backend compiled, [Capture]'s switches) matters only while Dynamo
converts a frame, which a warm call does not do.  So a call writes no
thread-local mark: :meth:`GraphmendCall.run`'s frame is the mark, and a
conversion reads it off the Python stack (:func:`graphmend_calls`), which
is also this thread's alone.  Thread-local marks set and reset around
every call cost 1.6 µs of a warm call that torch.compile makes in about
10 (graphmend's hooks read them at each conversion only).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import Any

#: Codes whose trace inside a graphmend call failed with an error that is
#: not Dynamo's own (an ``IndexError`` of a fake tensor), the frame then run
#: eagerly, in a call that returned: such a failure in a later call runs the
#: code eagerly from then on (:mod:`graphmend.compat.patches`).
FAILED_IN_A_CALL_THAT_RETURNED: weakref.WeakSet[Any] = weakref.WeakSet()


class GraphmendCall:
    """One call of graphmend.compile's callable (or of a diagnosis that
    runs as one), while :meth:`run` runs it.

    ``failed``: the codes Dynamo failed to trace in the compiled object's
    calls, which run eagerly; ``graphs``: what its backend compiled, by
    graph (:class:`graphmend.compat.reuse.CompiledGraphs`); ``capturing``:
    what [Capture] holds while Dynamo converts a frame of the call
    (:class:`graphmend.compat.capture.Capturing`), or None;
    ``identity_missed``: told the user stacks of the identity guards a
    frame's compiled entries failed, when the frame is converted again
    (:mod:`graphmend.compat.identity`), or None."""

    __slots__ = ("failed", "graphs", "capturing", "traces_failed", "identity_missed")

    def __init__(self, failed: weakref.WeakSet[Any], graphs: Any = None, capturing: Any = None,
                 identity_missed: Callable[[list[Any]], Any] | None = None) -> None:
        self.failed, self.graphs, self.capturing = failed, graphs, capturing
        self.identity_missed = identity_missed
        #: Codes whose trace met the user's own error in this call, the frame
        #: then run eagerly (a list once there is one).
        self.traces_failed: list[Any] | None = None

    def run(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """``fn(*args, **kwargs)``; this frame marks the call."""
        result = fn(*args, **kwargs)
        if self.traces_failed:
            # Eager ran those frames: the error was the tracer's alone. Where
            # the call raised, eager may have raised it too (a helper that
            # indexes out of range in some calls), and the code stays traced.
            FAILED_IN_A_CALL_THAT_RETURNED.update(self.traces_failed)
        return result


_RUN = GraphmendCall.run.__code__


def graphmend_calls() -> list[GraphmendCall]:
    """The graphmend calls running on this thread, innermost first (a few
    microseconds: read once per frame conversion, never per call)."""
    calls = []
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _RUN:
            calls.append(frame.f_locals["self"])
        frame = frame.f_back
    return calls
