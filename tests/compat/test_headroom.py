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


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info[:2] not in ((3, 11), (3, 12)),
                    reason="measured on CPython 3.11 and 3.12.1 (3.14 and later 3.13 releases keep a chunk back)")
def test_without_room_one_depth_maps_a_chunk_on_every_call():
    # The leaf's frame first in a new chunk: CPython maps and unmaps it on
    # every call (python/cpython#142183), the cost the room takes away.
    assert _worst_depth() >= CALLS


# --- RoomWhereItPays: a compiled object's warm calls ----------------------------


def _calls(room: headroom.RoomWhereItPays, count: int) -> list[str]:
    """Run ``count`` calls as graphmend.compile's warm path does: ``plain``
    by the caller itself, ``run`` handed to the room."""
    ran = []
    for _ in range(count):
        if next(room.plain, False):
            ran.append("plain")
        else:
            room.run(lambda: None, (), {})
            ran.append("run")
    return ran


@pytest.fixture
def faults(monkeypatch):
    """A page-fault counter a test scripts: ``faults.per_call`` holds the
    faults of the sampled calls in order; ``faults.sampled`` which calls
    (by ``faults.calls``, counted by the test) read it."""

    class Script:
        def __init__(self) -> None:
            self.per_call: list[int] = []
            self.sampled: list[int] = []
            self.total, self.reads, self.calls = 0, 0, 0

        def read(self) -> int:
            if self.reads % 2:
                self.total += self.per_call.pop(0)
            else:
                self.sampled.append(self.calls)
            self.reads += 1
            return self.total

    script = Script()
    monkeypatch.setattr(headroom, "CHUNKED_STACK", True)
    monkeypatch.setattr(headroom, "_page_faults", script.read)
    return script


def _counted_calls(room: headroom.RoomWhereItPays, faults, count: int) -> list[str]:
    ran = []
    for _ in range(count):
        faults.calls += 1
        ran += _calls(room, 1)
    return ran


def test_samples_come_in_pairs_at_the_4th_8th_16th_call_and_the_calls_between_are_plain(faults):
    room = headroom.RoomWhereItPays()
    faults.per_call = [0, 0] * 3
    ran = _counted_calls(room, faults, 18)
    assert faults.sampled == [4, 5, 8, 9, 16, 17]
    assert [i + 1 for i, how in enumerate(ran) if how == "run"] == [4, 5, 8, 9, 16, 17]
    assert not room.roomy


def test_calls_take_room_after_a_plain_sample_faulted_more_and_give_it_up_when_it_stops_paying(faults):
    room = headroom.RoomWhereItPays()
    faults.per_call = [headroom.FAULTS_ROOM_SAVES + 3, 3]  # the 4th call (plain), the 5th (with room)
    ran = _counted_calls(room, faults, 7)
    assert room.roomy and ran[5:] == ["run", "run"]  # the 6th and 7th with room
    faults.per_call = [5, 5]  # the 8th and 9th: room saves nothing now
    ran = _counted_calls(room, faults, 4)
    assert faults.sampled[2:] == [8, 9] and not room.roomy and ran[2:] == ["plain", "plain"]


def test_a_tie_stays_plain(faults):
    room = headroom.RoomWhereItPays()
    faults.per_call = [headroom.FAULTS_ROOM_SAVES - 1, 0]
    _counted_calls(room, faults, 6)
    assert not room.roomy


def test_a_call_that_faults_thousands_of_times_either_way_stays_plain(faults):
    room = headroom.RoomWhereItPays()
    faults.per_call = [5000, 4900]  # fresh memory for large tensors, a little less the second time
    _counted_calls(room, faults, 6)
    assert not room.roomy


def test_a_sample_that_raises_still_counts_and_the_error_goes_through(faults):
    room = headroom.RoomWhereItPays()
    faults.per_call = [headroom.FAULTS_ROOM_SAVES, 0]

    def fails():
        raise KeyError("k")

    _calls(room, 3)
    for _ in range(2):  # the plain sample, then the roomy one
        with pytest.raises(KeyError, match="k"):
            room.run(fails, (), {})
    assert room.roomy


def test_without_a_chunked_stack_every_call_is_plain_and_nothing_is_sampled(monkeypatch):
    monkeypatch.setattr(headroom, "CHUNKED_STACK", False)
    room = headroom.RoomWhereItPays()
    assert all(next(room.plain, False) for _ in range(5000))


def _scan_depths() -> int:
    """Calls at each of 300 depths (a chunk's end lies among them, wherever
    this is called from): a warm call that thrashes."""
    return sum(_faults_of_calls_at(depth) for depth in range(300))


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11),
                    reason="measured on CPython 3.11 (3.14 and later 3.13 releases keep a chunk back)")
def test_a_call_that_thrashes_a_chunk_runs_with_room_after_its_first_samples():
    room = headroom.RoomWhereItPays()
    for _ in range(5):
        _scan_depths() if next(room.plain, False) else room.run(_scan_depths, (), {})
    assert room.roomy
    assert room.run(_scan_depths, (), {}) < CALLS // 10


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11),
                    reason="measured on CPython 3.11 (3.14 and later 3.13 releases keep a chunk back)")
def test_graphmend_compile_runs_a_warm_call_that_thrashes_a_chunk_with_room():
    import torch

    import graphmend

    @torch.compiler.disable
    def scan() -> None:  # runs eagerly inside the compiled call, as a library's NumPy code may
        _scan_depths()

    def step(x):
        scan()
        return x * 2

    compiled = graphmend.compile(step, backend="eager")
    x = torch.ones(3)
    for _ in range(12):
        assert torch.equal(compiled(x), x * 2)
    assert compiled._graphmend_first_call.room.roomy
    before = _page_faults()
    compiled(x)
    assert _page_faults() - before < CALLS // 10
