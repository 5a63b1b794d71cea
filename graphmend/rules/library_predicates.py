"""Predicate forms libraries use, as tensor predicates.

What it does
    In a test that a rule lowers (``if``, ``while``, a guard, ``assert``, a
    conditional expression), ``torch.allclose(a, b, ...)`` becomes
    ``_graphmend.allclose(a, b, ...)``, ``math.isfinite(t.item())``
    becomes ``_graphmend.isfinite_item(t)``, and ``math.isclose(a.item(),
    b.item(), rel_tol=..., abs_tol=...)`` (an operand may be a literal)
    becomes ``_graphmend.isclose_items(a, b, ...)``.  ``torch.isclose(a,
    b).all()`` is a tensor already, which every rule lowers as one.

Why is this bad?
    Each reads a tensor back into a Python bool: ``torch.allclose`` is a
    "Data dependent operator" break, ``.item()`` a SCALAR break, and the
    test on the bool another.  ``assert torch.allclose(out, ref)`` is how
    libraries check their invariants.

Example
    ``assert torch.allclose(z, y), "mismatch"``

Use instead
    ``assert _graphmend.deferred_assert(_graphmend.allclose(z, y), ...)``:
    under torch.compile ``torch.isclose(z, y).all()``, a 0-dim bool tensor,
    checked after the graph by [Trap].

Fix safety
    Exact: ATen computes ``allclose`` as ``isclose(...).all()``; the runtime
    takes that form only for plain tensors of one dtype and device, and
    calls ``torch.allclose`` itself otherwise and eagerly.
    ``math.isfinite`` of a real one-element tensor's ``.item()`` is its
    ``torch.isfinite``; a complex tensor takes the original call.
    ``math.isclose`` computes in doubles; the runtime converts each
    one-element real tensor to float64 (exact, as ``.item()`` is) and
    evaluates CPython's own formula there, infinities and NaN included,
    for tolerances that are Python numbers and not negative (a negative
    one takes the original call and its ``ValueError``).  A literal
    operand must be one float64 holds exactly; the second operand's
    receiver, now evaluated before the first ``.item()``, must be free of
    effects.  Only the qualified names ``torch.allclose``,
    ``math.isfinite`` and ``math.isclose`` (any import alias) match;
    ``x.allclose(y)`` (a method, whose receiver may not be a tensor) and
    ``math.isfinite(v)`` / ``math.isclose(v, w)`` of anything but
    ``t.item()`` and literals are left alone.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.facts import FunctionFacts
from graphmend.rules.base import keyword, runtime_call

_NO_STARS = m.Call(args=[m.ZeroOrMore(m.Arg(star=""))])
#: ``t.item()`` (one matcher for the rules that read it).
ITEM = m.Call(func=m.Attribute(attr=m.Name("item")), args=[])

#: Largest integer a float64 holds exactly (a literal compared in float64).
_EXACT_FLOAT64_INT = 2**53

#: ``math.isclose``'s keyword-only tolerances.
_TOLERANCES = frozenset({"rel_tol", "abs_tol"})


def exact_literal(expr: cst.BaseExpression) -> float | int | None:
    """The value of a numeric literal float64 holds exactly, else None."""
    sign = 1
    if m.matches(expr, m.UnaryOperation(operator=m.Minus())):
        sign, expr = -1, expr.expression
    if isinstance(expr, cst.Integer):
        value = int(expr.evaluated_value)
        return sign * value if value <= _EXACT_FLOAT64_INT else None
    if isinstance(expr, cst.Float):
        return sign * float(expr.evaluated_value)
    return None


def _isclose_operand(expr: cst.BaseExpression) -> bool:
    """``t.item()``, or a numeric literal float64 holds exactly."""
    return m.matches(expr, ITEM) or exact_literal(expr) is not None


def _is_isclose_of_items(facts: FunctionFacts, test: cst.Call) -> bool:
    """``math.isclose(a.item(), b.item(), rel_tol=..., abs_tol=...)``: two
    positional operands, each a ``.item()`` or an exact literal (one at
    least an ``.item()``), whose second receiver is free of effects (it is
    evaluated before the first ``.item()`` once rewritten), and the
    tolerances by keyword."""
    positional = [arg.value for arg in test.args if arg.keyword is None]
    keywords = {arg.keyword.value for arg in test.args if arg.keyword is not None}
    if len(positional) != 2 or len(test.args) != 2 + len(keywords) or not keywords <= _TOLERANCES:
        return False
    if any(arg.keyword is None for arg in test.args[2:]):
        return False
    if not all(_isclose_operand(value) for value in positional) or not any(m.matches(v, ITEM) for v in positional):
        return False
    second = positional[1]
    return not facts.impurity(second.func.value if m.matches(second, ITEM) else second)


def matches(facts: FunctionFacts, test: cst.BaseExpression) -> bool:
    """Whether ``test`` is one of the forms (a tensor predicate once lowered)."""
    if not m.matches(test, _NO_STARS):
        return False
    name = facts.qualified_name(test.func)
    if name == "torch.allclose":
        return len(test.args) >= 2
    if name == "math.isfinite":
        return len(test.args) == 1 and test.args[0].keyword is None and m.matches(test.args[0].value, ITEM)
    if name == "math.isclose":
        return _is_isclose_of_items(facts, test)
    return False


def lower(facts: FunctionFacts, original: cst.BaseExpression, updated: cst.Call) -> cst.BaseExpression:
    """The runtime's form of a test :func:`matches` accepted."""
    name = facts.qualified_name(original.func)
    if name == "torch.allclose":
        lowered = runtime_call("allclose", list(updated.args))
    elif name == "math.isclose":
        items = [m.matches(arg.value, ITEM) for arg in updated.args[:2]]
        args = [arg.with_changes(value=arg.value.func.value) if item else arg for arg, item in zip(updated.args, items)]
        args += [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in updated.args[2:]]
        if not all(items):
            args.append(keyword("items", cst.Tuple([cst.Element(cst.Name(str(item))) for item in items])))
        lowered = runtime_call("isclose_items", args)
    else:
        lowered = runtime_call("isfinite_item", [updated.args[0].value.func.value])
    return lowered.with_changes(lpar=updated.lpar, rpar=updated.rpar)
