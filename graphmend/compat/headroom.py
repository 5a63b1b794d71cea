"""Frame conversions run with room on CPython's frame stack.

CPython keeps a thread's Python frames in chunks of 16 KiB and, in 3.11
and 3.13.0 at least, frees a chunk as soon as the first frame in it
returns (python/cpython#142183; 3.14 and a 3.13 maintenance release keep
one chunk back; 3.12.1 did not thrash in this module's test).  Code that
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
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
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
