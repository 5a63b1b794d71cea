"""The flag converter of [Where]: a test stored in a name that the
function reads only for its truth.

``flag = a or b`` (or ``and``, ``not``, ``bool()``, a chained comparison)
calls ``bool()`` on a tensor operand: a graph break, as the same
expression is in an ``if``.  When every read of ``flag`` is a test
(:func:`graphmend.analysis.bindings.truth_only_names`), only the value's
truth is ever observed, so the value may be the lowered test of
:func:`graphmend.rules.predicates.lower_test`: a tensor of the same truth
under torch.compile, and eagerly Python's own ``a or b`` (the runtime's
``and_``/``or_`` return it).  A flag the function reads for more (returns
it, stores it, computes with it) is left alone, with that reason.  So is
``flag = bool(t)`` where ``t`` may hold more than one element: ``bool()``
raises there, and lowered to ``t`` the flag would raise at its first read
instead, after what runs between, or never where it is assigned again
first (found by the fuzzer: ``flag = bool(v[-1] < 1)``, then ``flag =
True`` in a branch).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import code
from graphmend.analysis.tensorness import Tensorness
from graphmend.rules.base import Context, Declined
from graphmend.rules.predicates import lower_test
from graphmend.rules.where.if_statement import worth_trying

#: ``bool(x)``, whose raise for a tensor of several elements a flag must keep.
_BOOL_CALL = m.Call(func=m.Name("bool"), args=[m.Arg(keyword=None, star="")])
#: Values whose evaluation calls bool() on an operand.
_CALLS_BOOL = (
    m.BooleanOperation()
    | m.UnaryOperation(operator=m.Not())
    | _BOOL_CALL
    | m.Comparison(comparisons=[m.ComparisonTarget(), m.AtLeastN(n=1)])
)


def convert_truth_assignment(ctx: Context, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
    facts = ctx.facts
    if not (
        facts
        and len(original.targets) == 1
        and isinstance(original.targets[0].target, cst.Name)
        and m.matches(original.value, _CALLS_BOOL)
        and ctx.wanted(original, "where")
        and worth_trying(ctx, original, original.value)
    ):
        return updated
    name = original.targets[0].target.value
    if name not in facts.truth_only:
        raise Declined(f"`{name}` is read for more than its truth, so it must keep Python's value")
    for call in m.findall(original.value, _BOOL_CALL):
        operand = call.args[0].value
        if facts.tensorness(operand) is not Tensorness.STATIC and not facts.is_bool_scalar(operand):
            raise Declined(f"`{code(call)}` raises here for a tensor of more than one element; the flag "
                           "would raise at a read instead, or never where it is assigned again first")
    value = lower_test(facts, original.value, updated.value, original)
    if value is updated.value:
        return updated
    ctx.record(original, "where", "test stored in a flag -> tensor predicate")
    return updated.with_changes(value=value)
