"""Frame conversions, and warm calls that thrash without it, run with room on CPython's frame stack.

CPython keeps a thread's Python frames in chunks of 16 KiB and, in 3.11,
3.12.1 and 3.13.0 at least, frees a chunk as soon as the first frame in
it returns (python/cpython#142183; 3.14 and a 3.13 maintenance release
keep one chunk back): 2,000 calls of a leaf function at the worst of 300
depths fault 2,000 times on each of the three.  Code that
calls functions in a loop at the depth where a chunk ends maps and unmaps
that chunk on every call: two system calls and a page fault or more each
time.  Compiling a frame is such code: Inductor's code generation loops
deep in the stack, and where a chunk ends is an accident of how deep the
frame being compiled was called.  On torchvision's Faster R-CNN (eval,
Python 3.11, cold caches) the process of a ``torch.compile`` maps and
unmaps a chunk about 400,000 times (4 s of system time in all); the
frames graphmend's patches add around Dynamo moved that boundary and made
it 557,000 (5.5 s).  With the room, 1.5 s.

:func:`call` runs a function in a frame whose chunk it has nearly to
itself, with 1 MiB free above it: the frames of one conversion fit there,
so no chunk boundary lies under them.  The frame reserves its room by a
larger evaluation stack than its code needs (``co_stacksize``), which
CPython sizes a chunk by and never touches; untouched pages cost nothing.
Where chunks do not thrash it costs one 2 MiB mapping per conversion;
on other interpreters it is a plain call.

A warm call thrashes alike where it loops at a chunk's end: an
``ExponentialBarycenter`` of geomstats, whose ``logm`` runs SciPy's NumPy
code as thousands of small graphs, made 30,000 page faults a call under
graphmend.compile (0.58 s of system time; 1.38 s a call against 0.57 s with
room).  There the mapping is paid once a call, not once a conversion, and
it costs about 12 µs where nothing thrashes: :class:`RoomWhereItPays` gives
a compiled object's calls room only where a plain call is seen to fault
more than a roomy one.
"""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

#: Slots of the frame's evaluation stack beyond what its code needs: 1 MiB
#: of 8-byte slots.  CPython sizes a new chunk as the first power of two
#: that holds the frame, so the frame takes just over half of a 2 MiB
#: chunk and leaves just under 1 MiB above it, a new chunk whatever the
#: chunk below has left.
ROOM_SLOTS = 2**17

#: Whether this interpreter keeps frames in chunks sized by ``co_stacksize``.
CHUNKED_STACK = sys.implementation.name == "cpython" and sys.version_info >= (3, 11)


def _roomy(function: types.FunctionType) -> types.FunctionType:
    code = function.__code__.replace(co_stacksize=function.__code__.co_stacksize + ROOM_SLOTS)
    return types.FunctionType(code, function.__globals__, function.__name__)


def call(function: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """``function(*args, **kwargs)``, with room above this frame (one frame
    more below ``function``)."""
    return function(*args, **kwargs)


if CHUNKED_STACK:
    call = _roomy(call)


try:
    import resource
except ImportError:  # no page-fault counts (Windows): calls stay plain
    resource = None


def _page_faults() -> int:
    """This thread's minor page faults so far (the process's where the
    thread's own are not counted apart)."""
    return resource.getrusage(getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)).ru_minflt


#: Page faults a plain call must make beyond a roomy one for room to pay:
#: each is a chunk mapped and unmapped inside the call (two system calls
#: and the fault, several µs), against one mapping a call with room.
FAULTS_ROOM_SAVES = 16

#: ... and at least this share of the plain call's faults: a call that
#: faults thousands of times either way (fresh memory for large tensors)
#: differs by more than that between two calls, room or not.
SHARE_ROOM_SAVES = 1 / 8

#: The most calls between two samples: where a call is made from, and so
#: where a chunk ends, may change.
MOST_CALLS_BETWEEN_SAMPLES = 1024


class RoomWhereItPays:
    """Whether a compiled object's calls run with room (:func:`call`) or
    plainly: whichever faults less.  At the 4th call, the 8th, the 16th and
    so on, then every 1,024th, one call runs plainly and the next with
    room, each counting its page faults; the calls until the next sample
    run with room where the roomy one faulted :data:`FAULTS_ROOM_SAVES`
    and :data:`SHARE_ROOM_SAVES` of the plain one's fewer, else plainly.
    Where the stack is not chunked or faults are not counted, every call
    is plain.

    The caller runs a call plainly itself while ``next(room.plain, False)``
    is true (a C iterator: no Python frame in a warm call), and hands it to
    :meth:`run` otherwise.  Only speed depends on it; a race between
    threads only blurs a sample."""

    __slots__ = ("plain", "roomy", "_calls", "_next_sample", "_plain_faults")

    def __init__(self) -> None:
        #: True once for each call before the next sample that runs plainly.
        self.plain: Iterator[bool] = itertools.repeat(True)
        #: Whether the calls between samples run with room.
        self.roomy = False
        self._calls = 0
        self._next_sample = 4
        self._plain_faults: int | None = None  # the plain sample's, until the roomy one
        if CHUNKED_STACK and resource is not None:
            self._plain_until_sample()

    def _plain_until_sample(self) -> None:
        """The calls before the next sample run plainly, by the caller."""
        self.plain = itertools.repeat(True, self._next_sample - self._calls - 1)
        self._calls = self._next_sample - 1

    def run(self, function: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """``function(*args, **kwargs)``: a sample, or a call with room."""
        self._calls += 1
        if self._calls == self._next_sample:
            return self._sample_plainly(function, args, kwargs)
        if self._plain_faults is not None:
            return self._sample_with_room(function, args, kwargs)
        return call(function, args, kwargs)

    def _sample_plainly(self, function: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        self._next_sample = self._calls + min(self._calls, MOST_CALLS_BETWEEN_SAMPLES)
        self.plain = iter(())  # the next call is the roomy sample
        before = _page_faults()
        try:
            return function(*args, **kwargs)
        finally:
            self._plain_faults = _page_faults() - before

    def _sample_with_room(self, function: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        plain, self._plain_faults = self._plain_faults, None
        before = _page_faults()
        try:
            return call(function, args, kwargs)
        finally:
            self.roomy = plain - (_page_faults() - before) >= max(FAULTS_ROOM_SAVES, plain * SHARE_ROOM_SAVES)
            if not self.roomy:
                self._plain_until_sample()
