"""Returns of numbers read back from tensors (issue #45 pattern 2,
ema-pytorch's ``get_current_decay``): ``return 0.0`` beside ``return
t.item()`` merges under [Capture] through a 0-dim tensor that holds both
exactly; the number comes back bit for bit, of its own type."""

from __future__ import annotations

import math
import struct

import pytest
import torch

from graphmend import runtime
from harness import GraphCounter, load_module
from locations import FIXTURES

CASE = FIXTURES / "where" / "return_read_back_number"


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


@pytest.mark.parametrize("compiled", [False, True])
def test_a_read_back_decay_bit_identical(tmp_path, compiled):
    original, mended = (load_module(CASE.with_name(f"{CASE.name}.{kind}.py").read_text(), tmp_path,
                                    f"read_back_{kind}").current_decay for kind in ("in", "out"))
    counter = GraphCounter()
    torch._dynamo.reset()
    decay = torch.compile(mended, backend=counter) if compiled else mended
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        for step in (0, 1, 2, 3, 10, 1000):
            expected, got = original(torch.tensor(step), 1, 2 / 3), decay(torch.tensor(step), 1, 2 / 3)
            assert type(got) is float and _bits(got) == _bits(expected)
    if compiled:
        assert counter.graphs == 1


@pytest.mark.parametrize(("a", "b"), [(0.0, -0.0), (1.5, math.nan), (3, -7), (True, False), (2**62, -(2**62))])
@pytest.mark.parametrize("taken", [True, False])
def test_where_selects_numbers_of_one_type_exactly(a, b, taken):
    def select(flag, a, b):
        return runtime.where(flag.reshape(()) > 0, a, b)

    torch._dynamo.reset()
    counter = GraphCounter()
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        got = torch.compile(select, backend=counter)(torch.tensor([1.0 if taken else -1.0]), a, b)
    expected = a if taken else b
    assert type(got) is type(expected)
    assert _bits(got) == _bits(expected) if type(got) is float else got == expected


def test_numbers_of_different_types_keep_the_original_choice():
    def select(flag):
        return runtime.where(flag > 0, 0, flag.double().item())

    torch._dynamo.reset()
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        compiled = torch.compile(select, backend="eager")
        assert type(compiled(torch.tensor(1.0))) is int and type(compiled(torch.tensor(-1.0))) is float
