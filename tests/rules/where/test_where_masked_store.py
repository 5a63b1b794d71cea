"""[Where] stores through a bool mask: ``t[m] = f(a[m], b[m])`` as ``torch.where``,
equal outputs and gradients, gated inside a tensor arm.

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from graphmend.compare import first_difference
from harness import assert_same_outcome, check_equivalent, compiled_outcome, mend_source, outcome_of
from where_support import fixture, requiring_grad, t, training_run


#: Stores through a bool mask (a data-dependent shape).  Each case runs
#: with masks selecting some, none and every element.
_MASKS = (torch.tensor([True, False, True, False]), torch.tensor([False] * 4), torch.tensor([True] * 4))
MASKED_STORE_CASES = {
    # tss 0 where the mask leaves it out: 1 - rss / 0 there is never selected.
    "r2_scores": [(t(5, 2, 3, 2), t(3, 0, 1, 2), t(0.5, 0.25, 0, 1), 2)],
    "pearson": [(t(0.5, -2, 1e-3, 3), t(1, 0, 4, 2), t(2, 3, 0.5, 0), m) for m in _MASKS]
    + [(torch.tensor([0.25]), torch.tensor([2.0]), torch.tensor([0.5]), torch.tensor([True]))],
    "norms": [(t(1, -3, 5, 0.5), m) for m in _MASKS],
    "shifted": [(t(1, 2, 3, 4), t(5, 6, 7, 8), m) for m in _MASKS]
    + [(t(1, 2, 3, 4), t(5, 6, 7, 8), torch.tensor([3, 0]))],
    # A transposed target; 0 / 0 where the mask leaves it out.
    "fast_ap": [(torch.tensor([[0.0, 2.0, 1.5], [3.0, 0.0, -1.0]]), torch.tensor([[4.0, 0.0, 3.0], [0.5, 2.0, 7.0]])),
                (torch.zeros(2, 3), torch.zeros(2, 3)),
                (torch.tensor([[1.0, 2.0, 1.5], [3.0, 1.0, 1.0]]), torch.tensor([[4.0, 1.0, 3.0], [0.5, 2.0, 7.0]]))],
}


@pytest.mark.parametrize("function", sorted(MASKED_STORE_CASES))
def test_masked_store_equivalent(function: str, tmp_path: Path) -> None:
    """The whole-tensor form gives every bit of the original's (outputs,
    eager and compiled) in one graph, whatever the mask selects; integer
    indices run the original store, which traces."""
    result = check_equivalent(fixture("masked_store"), function, MASKED_STORE_CASES[function], tmp_path,
                              rules=["where"])
    assert result.sites and not result.skips


@pytest.mark.parametrize(("function", "breaks"), [("r2_scores", 0), ("pearson", 0), ("norms", 1), ("fast_ap", 0)])
def test_masked_store_under_autograd(function: str, breaks: int, tmp_path: Path) -> None:
    """Gradients are the original's bit for bit, zeros' signs included, and
    none comes from an element the mask leaves out (pearson's 0 / 0); a
    value that reads its operand twice (norms' ``x * x``) keeps the
    original store, and its one break, under autograd, as does a store in
    a tensor arm (its write where not taken would give the target a
    grad_fn): the whole ``if`` runs as the original."""
    original, mended, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    for args in MASKED_STORE_CASES[function]:
        expected = training_run(getattr(original, function), args)
        assert first_difference(expected, training_run(getattr(mended, function), args)) is None
        assert first_difference(expected, training_run(getattr(mended, function), args, compiled=True)) is None
    torch._dynamo.reset()
    args = requiring_grad(MASKED_STORE_CASES[function][0])
    assert len(torch._dynamo.explain(getattr(mended, function))(*args).break_reasons) == breaks


MASKED_TARGET_SOURCE = """
import torch


def rescale(x, keep):
    out = x * 1.5
    view = out[:]
    out[keep] = out[keep] / 3.0
    return out, view


def saved_then_stored(x, y, keep):
    out = torch.zeros_like(x)
    z = y * out  # saves out for y's gradient
    out[keep] = x[keep] * 2
    return z + out
"""


def test_masked_store_in_a_tensor_arm_is_gated(tmp_path: Path) -> None:
    """``if valid.any(): corrcoef[valid] = ...``: with gradients disabled the
    whole ``if`` is one graph, every bit the original's, whatever the mask
    selects (none: the arm is not taken); with them enabled (autograd may
    have saved the target) it runs as the original, with its one break."""
    original, mended, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    arg_sets = [(t(0.5, -2, 1e-3, 3), t(1, 0, 4, 2), t(2, 3, 0.5, 0), m) for m in _MASKS]
    for args in arg_sets:
        with torch.no_grad():
            expected = outcome_of(original.pearson_if_any, *args)
            outcome, graphs = compiled_outcome(mended.pearson_if_any, *args)
        assert_same_outcome(expected, outcome, "compiled")
        assert graphs == 1
        outcome, _ = compiled_outcome(mended.pearson_if_any, *args)
        assert_same_outcome(expected, outcome, "compiled, gradients enabled")
        torch._dynamo.reset()
        assert len(torch._dynamo.explain(mended.pearson_if_any)(*args).break_reasons) == 1


GATED_STORE_SOURCE = """
import torch


def alias_updated_after(x, m):
    c = torch.zeros_like(x)
    d = c
    if m.any():
        c[m] = x[m] * 2
    c.add_(1)
    return d, c


def identity_kept(x, m):
    c = torch.zeros_like(x)
    d = c
    if m.any():
        c[m] = x[m] * 2
    return d is c, c


def read_in_both_arms(x, m):
    c = torch.zeros_like(x)
    if m.any():
        c[m] = x[m] * 2
        y = c.sum()
    else:
        y = c.sum() - 1
    return y, c


def nested(x, m):
    c = torch.full_like(x, 3.0)
    if x.sum() > 0:
        if m.any():
            c[m] = x[m] - 1
        c = c * 2
    return c
"""


@pytest.mark.parametrize("function", ["alias_updated_after", "identity_kept", "read_in_both_arms", "nested"])
def test_gated_masked_store_keeps_aliases_and_identity(function: str, tmp_path: Path) -> None:
    """A gated store writes the very tensor the original's does: an alias
    sees it, the name keeps its tensor (``d is c``), the other arm reads the
    target's own values, and a nested gate closes where either ``if`` is
    not taken (gradients disabled, so the gated form applies)."""
    x = t(1, -2, 3)
    arg_sets = [(x, torch.tensor([True, False, True])), (x, torch.tensor([False, False, False])),
                (-x, torch.tensor([False, True, False]))]
    with torch.no_grad():
        check_equivalent(GATED_STORE_SOURCE, function, arg_sets, tmp_path, rules=["where"], graphs=None)


def test_masked_store_keeps_the_target_and_its_gradient(tmp_path: Path) -> None:
    """The target is updated in place (an alias sees it); a target that
    requires grad itself keeps the original store under autograd (its
    overwritten values would take a gradient summed from two zeros: -0.0
    would become 0.0), with one break; a store into a tensor saved for
    backward fails as the original's does, naming IndexPut."""
    original, mended, _ = mend_source(MASKED_TARGET_SOURCE, tmp_path, rules=["where"])
    for keep in _MASKS:
        expected = training_run(lambda x: sum(original.rescale(x, keep)), (t(1, -0.0, 3, 4),))
        actual = training_run(lambda x: sum(mended.rescale(x, keep)), (t(1, -0.0, 3, 4),), compiled=True)
        assert first_difference(expected, actual) is None
    torch._dynamo.reset()
    assert len(torch._dynamo.explain(mended.rescale)(*requiring_grad((t(1, 2, 3, 4), _MASKS[0]))).break_reasons) == 1
    torch._dynamo.reset()
    compiled = torch.compile(mended.rescale, backend="eager")
    out, view = compiled(t(1, 2, 3, 4), _MASKS[0])
    assert view.data_ptr() == out.data_ptr() and torch.equal(view, out)
    args = (t(1, 2, 3, 4), t(5, 6, 7, 8), _MASKS[0])
    expected = outcome_of(lambda *a: original.saved_then_stored(*a).sum().backward(), *requiring_grad(args))
    torch._dynamo.reset()
    compiled = torch.compile(mended.saved_then_stored, backend="eager")
    assert_same_outcome(expected, outcome_of(lambda *a: compiled(*a).sum().backward(), *requiring_grad(args)), "compiled")
    assert "IndexPut" in str(expected.error)


def test_masked_store_into_an_expanded_target_keeps_the_original_store() -> None:
    """An expanded tensor stores one element for several: the whole-tensor
    form would write each several times; a transposed one is dense."""
    from graphmend.runtime.stores import _masked_store_problem

    mask = torch.tensor([[True, False], [False, True]])
    values = torch.ones(2, 2)
    expanded = torch.zeros(2).expand(2, 2)
    assert "not dense" in _masked_store_problem(expanded, mask, (values,), True)
    assert _masked_store_problem(torch.zeros(2, 2).t(), mask, (values,), True) is None


def test_masked_store_of_complex_values_keeps_the_original_store(tmp_path: Path) -> None:
    """Complex quotients are not correctly rounded (SIMD and scalar kernels
    differ): the original store runs, with its one break."""
    original, mended, result = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    store = fixture("masked_store").splitlines().index("    raw_scores[cond] = 1 - (rss[cond] / tss[cond])") + 1
    assert store in {site.lineno for site in result.sites}  # rewritten: the runtime keeps the original store
    args = (torch.tensor([1 + 2j, 3j, 2, 1]), torch.tensor([2 - 1j, 1, 1j, 4]), torch.tensor([2j, 1, 1, 3]), 2)
    expected = outcome_of(original.r2_scores, *args)
    torch._dynamo.reset()
    assert_same_outcome(expected, outcome_of(torch.compile(mended.r2_scores, backend="eager"), *args), "compiled")
    torch._dynamo.reset()
    assert len(torch._dynamo.explain(mended.r2_scores)(*args).break_reasons) == 1


def test_diagnose_reports_a_masked_store_at_its_first_line_as_fixable(tmp_path):
    """Dynamo names the lines of a multi-line store where it meets bool
    indexing (DS); the site is the statement's first line, [Where] is asked
    about it, and mending from the diagnosis leaves one graph."""
    from graphmend.diagnosis import diagnose

    original, _, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    args = MASKED_STORE_CASES["pearson"][0]
    (site,) = diagnose(original.pearson, *args).breaks
    first_line = fixture("masked_store").splitlines().index("    corrcoef[valid] = (") + 1
    assert (site.category, site.lineno, site.fixable, site.rule) == ("DS", first_line, True, "where")
    from graphmend.api import mend_report
    from graphmend.mending.live import unmend

    mend_report(original.pearson, diagnose(original.pearson, *args), modules=[original.__name__])
    try:
        assert diagnose(original.pearson, *args).breaks == []
    finally:
        unmend(original.pearson)
