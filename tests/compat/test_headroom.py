"""Frame conversions run with room on CPython's frame stack (compat.headroom)."""

from __future__ import annotations

import sys

import pytest

from graphmend.compat import headroom

resource = pytest.importorskip("resource")  # page faults counted by getrusage: Unix

CALLS = 2000


def _page_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _leaf() -> None:
    return None


def _faults_of_calls_at(depth: int) -> int:
    """The page faults of ``CALLS`` calls of a leaf function ``depth`` frames further down."""
    if depth:
        return _faults_of_calls_at(depth - 1)
    before = _page_faults()
    for _ in range(CALLS):
        _leaf()
    return _page_faults() - before


def _worst_depth() -> int:
    """The most page faults the calls cost at any of 300 depths (about
    40 KiB of frames: more than two chunks' ends)."""
    return max(_faults_of_calls_at(depth) for depth in range(300))


def test_call_passes_arguments_and_returns_the_result():
    assert headroom.call(divmod, (7, 2), {}) == (3, 1)
    assert headroom.call(dict, (), {"a": 1}) == {"a": 1}


def test_call_lets_the_exception_through():
    def fails():
        raise KeyError("k")

    with pytest.raises(KeyError, match="k"):
        headroom.call(fails, (), {})


@pytest.mark.skipif(not headroom.CHUNKED_STACK, reason="not CPython's chunked frame stack")
def test_calls_at_a_chunk_end_cost_no_page_faults_with_room_above():
    assert headroom.call(_worst_depth, (), {}) < CALLS // 10


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11),
                    reason="measured on CPython 3.11 (3.12.1 keeps the chunk; 3.14 caches one)")
def test_without_room_one_depth_maps_a_chunk_on_every_call():
    # The leaf's frame first in a new chunk: CPython maps and unmaps it on
    # every call (python/cpython#142183), the cost the room takes away.
    assert _worst_depth() >= CALLS
