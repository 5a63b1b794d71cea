"""Predicate forms libraries use (issue #34 item 7): ``torch.allclose`` and
``math.isfinite(t.item())`` as tensor predicates, in [Trap]'s asserts and
guards and in [Where]'s tests.  Original vs mended on the same inputs,
eagerly and compiled: same values, same exceptions and messages, one graph,
and the site rewritten."""

from __future__ import annotations

import textwrap

import pytest
import torch

from harness import check_equivalent

SOURCE = textwrap.dedent("""
    import math

    import torch


    def assert_allclose(x, y):
        z = x * 2
        assert torch.allclose(z, y, atol=1e-6), "mismatch"
        return z + 1


    def guard_allclose(x, y):
        z = x * 2
        if not torch.allclose(z, y, rtol=1e-4):
            raise ValueError(f"mismatch: {z}")
        return z + 1


    def assert_isfinite(x, y):
        total = (x * y).sum()
        assert math.isfinite(total.item()), "not finite"
        return total + 1


    def where_allclose(x, y):
        if torch.allclose(x, y):
            out = x + 1
        else:
            out = y - 1
        return out
""")

X = torch.tensor([1.0, 2.0, 3.0])
CLOSE = (X, X * 2)
FAR = (X, X * 3)
INF = (X, torch.tensor([1.0, float("inf"), 0.0]))
NAN = (X, torch.tensor([1.0, float("nan"), 0.0]))

CASES = {
    "assert_allclose": ("trap", [CLOSE, FAR, NAN]),
    "guard_allclose": ("trap", [CLOSE, FAR]),
    "assert_isfinite": ("trap", [CLOSE, INF, NAN]),
    "where_allclose": ("where", [(X, X.clone()), FAR]),
}


@pytest.mark.parametrize("function", sorted(CASES))
def test_equivalent_and_rewritten(function, tmp_path):
    rule, arg_sets = CASES[function]
    result = check_equivalent(SOURCE, function, arg_sets, tmp_path, rules=[rule], graphs=1)
    line = next(i for i, text in enumerate(SOURCE.splitlines(), 1)
                if f"def {function}(" in text)
    assert any(site.rule == rule and site.lineno > line for site in result.sites), result.sites
    body = result.code.split(f"def {function}(", 1)[1].split("\ndef ", 1)[0]
    assert ("_graphmend.isfinite_item(" if "isfinite" in function else "_graphmend.allclose(") in body


def test_shapes_that_do_not_broadcast_raise_allclose_own_error(tmp_path):
    check_equivalent(SOURCE, "assert_allclose", [(X, torch.ones(2))], tmp_path, rules=["trap"], graphs=None)


def test_dtypes_that_differ_take_torch_allclose(tmp_path):
    check_equivalent(SOURCE, "assert_allclose", [(X, (X * 2).double())], tmp_path, rules=["trap"], graphs=None)
