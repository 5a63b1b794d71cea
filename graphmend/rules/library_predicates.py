"""Predicate forms libraries use, as tensor predicates (issue #34, item 7).

What it does
    In a test that a rule lowers (``if``, ``while``, a guard, ``assert``, a
    conditional expression), ``torch.allclose(a, b, ...)`` becomes
    ``_graphmend.allclose(a, b, ...)`` and ``math.isfinite(t.item())``
    becomes ``_graphmend.isfinite_item(t)``.

Why is this bad?
    Both read a tensor back into a Python bool: ``torch.allclose`` is a
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
    ``torch.isfinite``; a complex tensor takes the original call.  Only
    the qualified names ``torch.allclose`` and ``math.isfinite`` (any import
    alias) match; ``x.allclose(y)`` (a method, whose receiver may not be a
    tensor) and ``math.isfinite(v)`` of anything but ``t.item()`` are left
    alone.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.facts import FunctionFacts
from graphmend.rules.base import runtime_call

_NO_STARS = m.Call(args=[m.ZeroOrMore(m.Arg(star=""))])
_ITEM = m.Call(func=m.Attribute(attr=m.Name("item")), args=[])


def matches(facts: FunctionFacts, test: cst.BaseExpression) -> bool:
    """Whether ``test`` is one of the forms (a tensor predicate once lowered)."""
    if not m.matches(test, _NO_STARS):
        return False
    name = facts.qualified_name(test.func)
    if name == "torch.allclose":
        return len(test.args) >= 2
    if name == "math.isfinite":
        return len(test.args) == 1 and test.args[0].keyword is None and m.matches(test.args[0].value, _ITEM)
    return False


def lower(facts: FunctionFacts, original: cst.BaseExpression, updated: cst.Call) -> cst.BaseExpression:
    """The runtime's form of a test :func:`matches` accepted."""
    if facts.qualified_name(original.func) == "torch.allclose":
        lowered = runtime_call("allclose", list(updated.args))
    else:
        lowered = runtime_call("isfinite_item", [updated.args[0].value.func.value])
    return lowered.with_changes(lpar=updated.lpar, rpar=updated.rpar)
