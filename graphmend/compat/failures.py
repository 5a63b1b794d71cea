"""Why a frame's conversion gave up, as the compat patches tell each other:
the exceptions they raise inside Dynamo's trace, and how to find one in
what Dynamo re-raises.  It imports nothing of graphmend."""

from __future__ import annotations

from collections.abc import Iterator


class MendFirst(Exception):
    """The frame being traced breaks at a site graphmend mends after this
    call: it runs eagerly this once, and no graph is compiled for code that
    the next call replaces (:func:`graphmend.compat.mending_first`)."""

    def __init__(self, reason, again: bool = False) -> None:
        super().__init__(reason.reason.strip().split("\n", 1)[0])
        #: Dynamo's ``GraphCompileReason`` of the break.
        self.reason = reason
        #: Whether the site was mended at once in a function the frame
        #: calls, so the frame is traced again now rather than run eagerly.
        self.again = again


def causes(error: BaseException | None) -> Iterator[BaseException]:
    """``error`` and each exception it was raised from, innermost last
    (Dynamo wraps an error met while tracing in its own, a backend's in
    ``BackendCompilerFailed``)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        yield error
        seen.add(id(error))
        error = error.__cause__ or getattr(error, "inner_exception", None) or error.__context__


def caused_by(error: BaseException | None, kind: type[BaseException]) -> BaseException | None:
    """``error`` or the first exception of type ``kind`` it was raised from (:func:`causes`)."""
    return next((cause for cause in causes(error) if isinstance(cause, kind)), None)
