"""A mended function that moves an identity guard on an object built per
call into its caller's frame gets its original code back
(graphmend.mending.live.keep_original_behind, told by
graphmend.compat.identity): its break keeps the guard in a frame of its
own, as under torch.compile, and the caller's frame stays compiled."""

from __future__ import annotations

import gc
import textwrap

import pytest
import torch
from torch._dynamo.utils import counters

import graphmend
from graphmend.compat.identity import identity_misses
from graphmend.diagnosis import GraphCounter
from graphmend.mending import live
from graphmend.mending.live import KEPT_ORIGINAL, PER_CALL_IDENTITY
from graphmend.mending.swap import MENDED
from harness import load_module

pytestmark = pytest.mark.usefixtures("isolated_cache")

# As in Chronos: a config built per call reaches `generate`'s frame (a frame
# of its own after a break), whose helper deep-copies it (the memo reads its
# id) and breaks where [Defer] mends.
PER_CALL = """
import copy

import torch


class Config:
    def __init__(self, scale=2.0):
        self.scale = scale


def prepare(config):
    config = copy.deepcopy(config)
    print("prepared", config.scale)
    return config


def generate(x, config):
    config = prepare(config)
    return x * config.scale + 1


def model(x, config=None):
    config = Config() if config is None else config
    torch._dynamo.graph_break()
    return generate(x, config)
"""


@pytest.fixture
def reset():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _load(tmp_path, source=PER_CALL):
    return load_module(textwrap.dedent(source), tmp_path, "identity")


def _frames_converted() -> int:
    return counters["frames"]["total"]


def test_a_helper_that_moves_a_per_call_identity_guard_into_its_callers_frame_keeps_its_original_code(
        tmp_path, reset, capsys):
    module = _load(tmp_path)
    x = torch.arange(4.0)
    expected = [module.model(x) for _ in range(6)]
    eager_lines = capsys.readouterr().out
    original_code = module.prepare.__code__
    compiled = graphmend.compile(module.model, backend=GraphCounter())
    results = [compiled(x) for _ in range(4)]
    assert module.prepare not in MENDED and module.prepare.__code__ is original_code
    assert KEPT_ORIGINAL[module.prepare] == PER_CALL_IDENTITY
    before = _frames_converted()
    results += [compiled(x) for _ in range(2)]
    # Mended, `generate`'s frame was traced again at every call (to the recompile limit).
    assert _frames_converted() == before
    assert all(torch.equal(got, want) for got, want in zip(results, expected, strict=True))
    assert capsys.readouterr().out == eager_lines


def _kept(tmp_path):
    """The module, its model compiled and called four times (``prepare``
    given back its original code at the third), and the input."""
    module = _load(tmp_path)
    x = torch.arange(4.0)
    compiled = graphmend.compile(module.model, backend=GraphCounter())
    for _ in range(4):
        compiled(x)
    assert module.prepare in KEPT_ORIGINAL
    return module, compiled, x


def test_a_diagnosis_of_the_compiled_object_says_why_the_break_is_left(tmp_path, reset, capsys):
    _, compiled, x = _kept(tmp_path)
    report = graphmend.diagnose(compiled, x)
    (left,) = [b for b in report.breaks if b.function == "prepare"]
    assert not left.fixable
    assert left.hint == f"graphmend.compile keeps the original code of prepare(): {PER_CALL_IDENTITY}"


def test_a_function_kept_original_is_not_mended_again(tmp_path, reset, capsys):
    module, _, _ = _kept(tmp_path)
    graphmend.mend(module.prepare)
    assert module.prepare not in MENDED


def _as_a_new_process(module):
    """Nothing mended or kept in memory, Dynamo's caches emptied; the
    on-disk record stays."""
    graphmend.unmend(module.model)
    KEPT_ORIGINAL.pop(module.prepare, None)
    live._KEPT_AT.clear()
    torch._dynamo.reset()


def test_the_next_process_never_mends_a_function_kept_original_and_traces_no_frame_again(tmp_path, reset, capsys):
    """The record keeps the function given back its original code: a new
    process (Dynamo's caches emptied, nothing mended or kept in memory)
    compiles its original code from the first call, and no frame is traced
    again after it, as under torch.compile; the first process paid retraces
    to find out."""
    module, compiled, x = _kept(tmp_path)
    expected = module.model(x)
    _as_a_new_process(module)
    compiled = graphmend.compile(module.model, backend=GraphCounter())
    assert torch.equal(compiled(x), expected)
    assert module.prepare not in MENDED and KEPT_ORIGINAL[module.prepare] == PER_CALL_IDENTITY
    before = _frames_converted()
    assert all(torch.equal(compiled(x), expected) for _ in range(4))
    assert _frames_converted() == before


def test_a_kept_function_whose_file_was_edited_is_mended_again(tmp_path, reset, capsys):
    """The record names the function by its file's hash: after an edit
    (here a comment at the end, which keeps the code as it was loaded) the
    next process mends it, and finds out again."""
    module, _, x = _kept(tmp_path)
    with open(module.__file__, "a") as source:
        source.write("# edited\n")
    _as_a_new_process(module)
    graphmend.compile(module.model, backend=GraphCounter())(x)
    assert module.prepare in MENDED and module.prepare not in KEPT_ORIGINAL


def test_an_object_replaced_once_leaves_the_mending_as_it_is(tmp_path, reset, capsys):
    module = _load(tmp_path)
    x = torch.arange(4.0)
    first, second = module.Config(), module.Config()
    compiled = graphmend.compile(module.model, backend=GraphCounter())
    for config in (first, first, second, second, second):
        assert torch.equal(compiled(x, config), module.model(x, config))
    assert module.prepare in MENDED and module.prepare not in KEPT_ORIGINAL


OWN_CODE = """
import copy

import torch


class Config:
    def __init__(self, scale=2.0):
        self.scale = scale


def generate(x, config):
    config = copy.deepcopy(config)
    print("prepared", config.scale)
    return x * config.scale + 1
"""


def test_an_identity_guard_in_the_frames_own_code_leaves_the_mending_as_it_is(tmp_path, reset, capsys):
    """`generate` is mended for its print, and its own frame holds the
    guard: unmended, it would hold it as well."""
    module = _load(tmp_path, OWN_CODE)
    x = torch.arange(4.0)
    compiled = graphmend.compile(module.generate, backend=GraphCounter())
    for _ in range(5):
        assert torch.equal(compiled(x, module.Config()), module.generate(x, module.Config()))
    assert module.generate in MENDED and module.generate not in KEPT_ORIGINAL


def _copies(x, config):
    import copy
    return x * copy.deepcopy(config).scale


class _Scale:
    scale = 3.0


def test_identity_misses_gives_each_failed_identity_guards_user_stack(reset):
    graphmend.compile(lambda x: x, backend="eager")(torch.ones(1))  # the patches are in
    compiled = torch.compile(_copies, backend="eager")
    x = torch.ones(2)
    freed, alive = _Scale(), _Scale()
    compiled(x, freed)
    compiled(x, alive)
    del freed
    gc.collect()
    stacks = identity_misses(_copies.__code__, {"x": x, "config": _Scale()})
    assert len(stacks) == 2  # the freed object's entry, and the live one's failed guard
    for stack in stacks:
        assert [frame.name for frame in stack][:2] == ["_copies", "deepcopy"]
    assert len(identity_misses(_copies.__code__, {"x": x, "config": alive})) == 1  # the freed one's
