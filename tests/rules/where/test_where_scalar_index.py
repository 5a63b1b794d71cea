"""[Where] ``x[i]`` with a 0-dim integer tensor index: no value read back.

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from graphmend.compare import first_difference
from harness import check_equivalent, load_module, mend_source
from where_support import t


SCALAR_INDEX = """
import torch


def interpolate(knots, coeffs, t):
    index = torch.bucketize(t.detach(), knots.detach()).sub(1).clamp(0, knots.size(0) - 2)
    fractional_part = t - knots[index]
    prev_coeff = coeffs[..., index, :]
    next_coeff = coeffs[..., index + 1, :]
    diff_t = knots[index + 1] - knots[index]
    return prev_coeff + fractional_part * (next_coeff - prev_coeff) / diff_t


def picked(values, offset):
    i = offset + 0
    return values[1:, i] * 2 - values[i, None, 0]
"""


def test_a_zero_dim_index_reads_no_value_back(tmp_path: Path) -> None:
    """torchcde's interpolation: the knots and coefficients indexed with the
    bucket of ``t`` (a 0-dim tensor made in the graph, read back as an int:
    a graph break per read) compile to one graph, the same bits, with the
    lines a diagnosis reports (the first read of each frame; the others
    index with the same name).  Indices that are not 0-dim integer tensors
    (an int, a 1-dim tensor, a 0-dim bool, which is a mask) index as
    written; one out of range raises the same IndexError, naming the same
    dimension."""
    knots, coeffs = torch.linspace(0, 1, 6), torch.randn(2, 6, 3)
    cases = [(knots, coeffs, t(0.37).reshape(())), (knots, coeffs, t(-2.0).reshape(())),
             (knots, coeffs, t(1.0).reshape(())), (knots.double(), coeffs.double(), t(0.5).double().reshape(()))]
    result = check_equivalent(SCALAR_INDEX, "interpolate", cases, tmp_path, rules=["where"], lines=frozenset({7}))
    assert [(s.lineno, s.what) for s in result.sites] == [(line, "0-dim tensor index -> one-element index")
                                                       for line in (7, 8, 9, 10)]
    values = torch.randn(4, 5)
    one_graph = [(values, torch.tensor(2)), (values, torch.tensor(-1)), (values, torch.tensor(3, dtype=torch.int32)),
                 (values, 1), (values, torch.tensor([2]))]
    check_equivalent(SCALAR_INDEX, "picked", one_graph, tmp_path, rules=["where"], lines=frozenset({16}))
    as_written = [(values, torch.tensor(9)), (values, torch.tensor(True)), (values, torch.tensor(1, dtype=torch.uint8))]
    check_equivalent(SCALAR_INDEX, "picked", as_written, tmp_path, rules=["where"], lines=frozenset({16}), graphs=None)


def test_a_zero_dim_index_in_a_conditional_expression_is_clamped_where_not_taken(tmp_path: Path) -> None:
    """An index a test bounds below, read in the arm it guards, is the
    conditional expression's to clamp (``nonnegative_row``): the arm runs
    where it is not taken too, and there the index may be out of range."""
    source = """
import torch


def bounded_below(values, weights, offset: int):
    index = torch.argmax(weights) - offset
    return values[index] * 2 if index >= 0 else weights
"""
    values, weights = torch.randn(4), torch.tensor([0.1, 0.5, 0.2, 0.3])
    cases = [(values, weights, 1), (values, weights, 9), (values, weights, 2)]
    result = check_equivalent(source, "bounded_below", cases, tmp_path, lines=frozenset({7}))
    assert "nonnegative_row" in result.code and "scalar_index" not in result.code


def test_a_zero_dim_index_after_a_deferred_message_is_read_back(tmp_path: Path) -> None:
    """With a message waiting for the graph's end, an index out of range
    would raise inside the graph, before it: the index is read back as the
    original reads it (a break, named), and the message comes first.  The
    fuzzer's program, reduced."""
    source = """
import logging

import torch

logger = logging.getLogger("gm.test")


def f(x, y):
    logger.warning(f"gm {x.max()}")
    i = y.argmin() + 3
    return -torch.outer(x, y)[1:, i]
"""
    x, y = t(0.5, 1.0, 1.5, 2.0), t(1.0, 2.0, 0.25, 3.0)
    result = check_equivalent(source, "f", [(x, y), (x, t(0.5, 2.0, 0.25, 3.0)), (x, t(3.0, 2.0, 0.25, 1.0))],
                              tmp_path, lines=frozenset(range(1, 14)), graphs=None)
    assert "scalar_index" in result.code


def test_a_zero_dim_index_keeps_the_gradient_bits(tmp_path: Path) -> None:
    """Under autograd the indexed element's gradient is copied into zeros,
    as ``select``'s backward copies it: a ``-0.0`` stays ``-0.0`` (a
    one-element index's own backward adds it to zeros, ``+0.0``)."""
    source = """
import torch


def row(values, offset, scale):
    i = offset + 0
    return (values[i] * scale).sum()


def column(values, offset, scale):
    i = offset + 0
    return (values[1:, i] * scale).sum()
"""
    original, mended, _ = mend_source(source, tmp_path, rules=["where"], lines=frozenset({7, 12}))
    start = torch.randn(4, 5)
    for name, picked in (("row", (2,)), ("column", (slice(1, None), 2))):
        grads = []
        for run in (getattr(original, name), torch.compile(getattr(mended, name), backend="eager")):
            values = start.clone().requires_grad_()
            out = run(values, torch.tensor(2), -0.0)
            out.backward()
            grads.append((out.detach(), values.grad))
        assert first_difference(grads[0], grads[1]) is None
        assert grads[1][1][picked].signbit().all()  # the -0.0 of `* -0.0` reached the gradient
        torch._dynamo.reset()
        explained = torch._dynamo.explain(getattr(mended, name))(start.clone().requires_grad_(), torch.tensor(2), -0.0)
        assert explained.graph_count == 1 and not explained.break_reasons


def test_a_zero_dim_index_is_a_fixable_break(tmp_path: Path) -> None:
    """diagnose sends a "Data dependent operator" break at an index to
    [Where], and mending from the diagnosis removes it and the reads the
    break hid; a break at ``.item()`` keeps its config hint."""
    import graphmend
    from graphmend.api import mend_report

    module = load_module(SCALAR_INDEX + "\n\ndef item(values, i):\n    return values[i].item() + 1\n", tmp_path)
    knots, coeffs, at = torch.linspace(0, 1, 6), torch.randn(2, 6, 3), torch.tensor(0.37)
    before = graphmend.diagnose(module.interpolate, knots, coeffs, at)
    assert before.break_count > 0 and all(b.fixable and b.rule == "where" for b in before.breaks)
    expected = module.interpolate(knots, coeffs, at)
    mend_report(module.interpolate, before, modules=[module.__name__])
    try:
        assert graphmend.diagnose(module.interpolate, knots, coeffs, at).break_count == 0
        assert torch.equal(torch.compile(module.interpolate, backend="eager")(knots, coeffs, at), expected)
    finally:
        graphmend.unmend(module.interpolate)
    report = graphmend.diagnose(module.item, torch.randn(4), torch.tensor(1))
    assert [(b.category, b.fixable) for b in report.breaks] == [("SCALAR", False)]
    assert "capture_scalar_outputs" in report.breaks[0].hint


OUT_OF_RANGE = """
import torch


def unused(x):
    i = x.argmax()
    ignored = x[i + 1] * 2
    return i.double()


def used(x):
    i = x.argmax()
    return x[i + 1] * 2
"""


def test_an_index_out_of_range_raises_select_s_error_under_inductor(tmp_path: Path) -> None:
    """Gathered inside the graph, an index out of range was the backend's to
    report: inductor's kernel raised ``RuntimeError: index out of bounds``
    where eager raises ``IndexError``, and dropped an unused gather with its
    check, so nothing raised (found by ``python -m fuzz --backend
    inductor``).  ``select``'s error is raised after the graph instead, the
    same type and text on every backend."""
    original, mended, result = mend_source(OUT_OF_RANGE, tmp_path, rules=["where"], lines=frozenset({7, 13}))
    assert len(result.sites) == 2
    last, inside = torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, 5.0, 3.0, 4.0])
    for name in ("unused", "used"):
        for backend in ("eager", "inductor"):
            torch._dynamo.reset()
            compiled = torch.compile(getattr(mended, name), backend=backend)
            with pytest.raises(IndexError, match=r"^index 4 is out of bounds for dimension 0 with size 4$"):
                compiled(last)
            with pytest.raises(IndexError, match=r"^index 4 is out of bounds for dimension 0 with size 4$"):
                getattr(original, name)(last)
            assert torch.equal(compiled(inside), getattr(original, name)(inside))
