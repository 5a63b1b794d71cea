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


    def assert_isclose_all(x, y):
        z = x * 2
        assert torch.isclose(z, y, atol=1e-6).all(), "mismatch"
        return z + 1


    def where_isclose_all(x, y):
        if torch.isclose(x * 2, y).all():
            out = x + 1
        else:
            out = y - 1
        return out


    def assert_isclose_items(x, y):
        z = x * 2
        assert math.isclose(z.sum().item(), y.sum().item(), rel_tol=1e-6), "sums differ"
        return z + 1


    def guard_isclose_literal(x, y):
        total = (x - y).abs().max()
        if not math.isclose(total.item(), 0.0, abs_tol=1e-3):
            raise ValueError("not converged")
        return total * 2


    def where_isclose_items(x, y):
        if math.isclose(x.sum().item(), y.sum().item(), rel_tol=0.5):
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
    "assert_isclose_all": ("trap", [CLOSE, FAR, NAN]),
    "where_isclose_all": ("where", [CLOSE, FAR, NAN]),
    "assert_isclose_items": ("trap", [CLOSE, FAR, INF, NAN, (INF[1], INF[1])]),
    "guard_isclose_literal": ("trap", [(X, X.clone()), (X, X + 1e-4), FAR, NAN]),
    "where_isclose_items": ("where", [CLOSE, FAR, INF, NAN]),
}

#: What each rewritten function calls in place of the predicate.
LOWERED = {"allclose": "_graphmend.allclose(", "isfinite": "_graphmend.isfinite_item(",
           "isclose_all": "torch.isclose(", "isclose_items": "_graphmend.isclose_items(",
           "isclose_literal": "_graphmend.isclose_items("}


@pytest.mark.parametrize("function", sorted(CASES))
def test_equivalent_and_rewritten(function, tmp_path):
    rule, arg_sets = CASES[function]
    result = check_equivalent(SOURCE, function, arg_sets, tmp_path, rules=[rule], graphs=1)
    line = next(i for i, text in enumerate(SOURCE.splitlines(), 1)
                if f"def {function}(" in text)
    assert any(site.rule == rule and site.lineno > line for site in result.sites), result.sites
    body = result.code.split(f"def {function}(", 1)[1].split("\ndef ", 1)[0]
    assert LOWERED[function.split("_", 1)[1]] in body


def test_shapes_that_do_not_broadcast_raise_allclose_own_error(tmp_path):
    check_equivalent(SOURCE, "assert_allclose", [(X, torch.ones(2))], tmp_path, rules=["trap"], graphs=None)


def test_dtypes_that_differ_take_torch_allclose(tmp_path):
    check_equivalent(SOURCE, "assert_allclose", [(X, (X * 2).double())], tmp_path, rules=["trap"], graphs=None)


#: Doubles where ``math.isclose`` turns: infinities (equal ones are close),
#: NaN, signed zeros, the smallest subnormal, values a tolerance apart.
SPECIAL = [0.0, -0.0, 5e-324, 1.0, 1.0 + 2**-52, 1.0 + 1e-9, 1.0 - 1e-9, 1.1, -1.0, 1e308, float("inf"),
           float("-inf"), float("nan")]
TOLERANCES = [(1e-09, 0.0), (0.0, 0.0), (0.1, 0.0), (0.0, 1e-9), (1e-9, 1e-300), (float("inf"), 0.0), (0, 1)]


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.int64])
def test_isclose_items_is_math_isclose_bit_for_bit(backend, dtype):
    """CPython's formula in float64, on every pair of special values and
    tolerances, compiled (one graph per tolerance: they are constants)."""
    import math

    from graphmend.runtime import isclose_items

    values = torch.tensor(SPECIAL, dtype=torch.float64)
    values = values.to(dtype) if dtype.is_floating_point else torch.tensor([0, 1, -1, 2**53 + 1, 2**62, -2**63])
    for rel_tol, abs_tol in TOLERANCES:
        torch._dynamo.reset()  # the tolerances are constants of the graph: one compile each
        compiled = torch.compile(lambda a, b: isclose_items(a, b, rel_tol=rel_tol, abs_tol=abs_tol),
                                 backend=backend, fullgraph=True)
        for a in values:
            for b in values:
                expected = math.isclose(a.item(), b.item(), rel_tol=rel_tol, abs_tol=abs_tol)
                got = compiled(a, b)
                assert got.dtype == torch.bool and bool(got) == expected, (a, b, rel_tol, abs_tol)


NOT_LOWERED = {
    "an operand that is not read from a tensor": "math.isclose(x.sum().item(), tolerance)",
    "a literal float64 does not hold": "math.isclose(x.sum().item(), 9007199254740993)",
    "no operand read from a tensor": "math.isclose(0.5, 1.0)",
    "a tolerance by position": "math.isclose(x.sum().item(), y.sum().item(), *tolerances)",
    "a second receiver with effects": "math.isclose(x.sum().item(), torch.rand(1).item())",
}


@pytest.mark.parametrize("case", sorted(NOT_LOWERED))
def test_isclose_forms_left_alone(case):
    from graphmend.pipeline import transform_source

    source = f"import math\nimport torch\n\n\ndef f(x, y, tolerance, tolerances):\n    assert {NOT_LOWERED[case]}\n"
    result = transform_source(source, rules=["trap"])
    assert "isclose_items" not in result.code
    assert "math.isclose(" in result.code
