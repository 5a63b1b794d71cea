"""``captured_truth``: a test's number, held in the graph by [Capture],
becomes a tensor of its truth; a number Dynamo knows stays a Python bool,
so an ``if`` on it stays static; eagerly the value itself."""

from __future__ import annotations

import math

import pytest
import torch

from graphmend import runtime
from harness import GraphCounter


def _truths(t, n):
    step = t.item()
    scale = (t.double() / 4 - 0.5).item()
    return [runtime.captured_truth(value) for value in (step % n == 0, step <= 1, step, scale, n > 1)]


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("value", [0, 1, 2, 3])
def test_truth_of_each_value_as_python_gives_it(value, n):
    counter = GraphCounter()
    torch._dynamo.reset()
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        compiled = torch.compile(_truths, backend=counter)(torch.tensor(value), n)
    eager = _truths(torch.tensor(value), n)
    assert [bool(c) for c in compiled] == [bool(e) for e in eager]
    assert counter.graphs == 1
    # `u0 % 1 == 0` is known while tracing (its range holds one value), as is the Python `n > 1`
    assert [isinstance(c, torch.Tensor) for c in compiled] == [n != 1, True, True, True, False]


def test_eagerly_the_value_itself():
    for value in (0, 2.5, math.nan, True, torch.tensor(3)):
        assert runtime.captured_truth(value) is value


@pytest.mark.parametrize(("combine", "decides"), [(runtime.and_, False), (runtime.or_, True)])
def test_a_static_right_side_that_decides_still_lets_a_left_side_raise(combine, decides):
    """``x > 0 and False`` calls bool() of ``x > 0`` first: with more than one
    element it raises, compiled too, though the right side decides."""
    def combined(x):
        return combine(x > 0, lambda: decides)

    torch._dynamo.reset()
    for call in (combined, torch.compile(combined, backend="eager")):
        with pytest.raises(RuntimeError, match="ambiguous"):
            call(torch.ones(3))
    assert torch.compile(combined, backend="eager")(torch.ones(())) is decides
