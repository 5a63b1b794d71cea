"""[Where]: predicated state updates (issue #34, item 6).

What it does
    ``if T:`` (no ``else``) whose arm only updates tensors in place --
    ``buf.copy_(new)``, ``buf.fill_(v)``, ``buf.zero_()``, ``buf.add_(d)``
    on a name or an attribute (``self.buf``) -- becomes, per statement,
    ``_graphmend.predicated_update(cond, "copy_", lambda: (self.buf, new))``:
    under torch.compile the same update applied to a copy and selected
    back, ``buf.copy_(torch.where(cond, updated_copy, buf))``; eagerly the
    original call, only when ``cond`` holds.

Why is this bad?
    An arm with an in-place update is an effect [Where] cannot select
    between, so the ``if`` on a tensor keeps its break (the EMA / codebook
    initialisation pattern ``if not self.initted: self.embed.copy_(...)``).

Example
    ``if not self.initted:`` / ``self.buf.copy_(x)`` / ``self.initted.fill_(True)``

Use instead
    ``_gm_cond_12 = ~self.initted`` (as [Where] lowers the test), then one
    ``_graphmend.predicated_update(_gm_cond_12, ...)`` per statement.

Fix safety
    Exact where it applies: the test is evaluated once, and copied when
    the arm has more than one update (``if self.flag:`` /
    ``self.flag.fill_(False)`` must not change what the next update
    reads); the update runs as the very same in-place
    method on a copy of the target (same dtype casts, same broadcasting,
    same errors), and ``torch.where`` selects bits.  Statements run in
    order, so a later update sees an earlier one where the arm is taken.
    The operands are evaluated whether or not the arm is taken, so they
    must be free of effects and random numbers (declined otherwise); the
    runtime keeps the break (a graph break with the reason) with gradients
    enabled -- an unconditional write bumps the target's version counter,
    and a tensor saved for backward would then fail where eager's untaken
    arm does not -- and for a target that is not a plain contiguous strided
    tensor (an expanded view refuses writes) or a test that is not one
    element.  ``x += d`` (a Python value rebinds), a flag set to ``True``
    and any other statement leave the ``if`` to [Where] as before.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.rules.base import Context, Declined, code, declining, generated, replacing, runtime_call, thunk
from graphmend.rules.predicates import lower_test
from graphmend.rules.where.if_statement import is_site

#: In-place methods whose update is elementwise and keeps the target's shape.
METHODS = frozenset({"copy_", "fill_", "zero_", "add_"})


def _target(expr: cst.BaseExpression) -> bool:
    """A name, or an attribute chain over one (``self.buf``, ``self.stats.acc``)."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


def _update(statement: cst.CSTNode) -> cst.Call | None:
    """The ``target.method(args)`` call a statement consists of, or None."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    small = statement.body[0]
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return None
    call = small.value
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value in METHODS and _target(call.func.value)):
        return None
    if any(arg.star for arg in call.args):
        return None
    return call


def convert_state_update(ctx: Context, original: cst.If, updated: cst.If):
    """Leave an ``if``: per-statement predicated updates, or ``updated``."""
    if original.orelse is not None or id(original) in ctx.elifs or not isinstance(original.body, cst.IndentedBlock):
        return updated
    body, new_body = original.body.body, updated.body.body
    calls = [_update(statement) for statement in body]
    if not calls or any(call is None for call in calls) or len(new_body) != len(body):
        return updated
    if not is_site(ctx, original, updated):
        return updated
    facts = ctx.facts
    # Ours, declined: [Where]'s generic reason would hide this one.
    with declining(prefix="state update: ", final=True):
        test = lower_test(facts, original.test, updated.test, original)
        cond = generated("cond", ctx.line(original))
        bound = facts.bound_before(original)
        frozen = runtime_call("frozen_test", [test]) if len(calls) > 1 else test
        statements: list[cst.BaseStatement] = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cond)], frozen)])]
        for call, new in zip(calls, (_update(s) for s in new_body)):
            operands = [call.func.value, *(arg.value for arg in call.args if arg.keyword is None)]
            if any(arg.keyword is not None for arg in call.args):
                raise Declined(f"`{code(call)}`: keyword arguments")
            for operand in operands:
                reason = facts.impurity(operand)
                if reason:
                    raise Declined(f"`{code(operand)}` is evaluated whether or not the arm is taken: {reason}")
            captured = sorted(set().union(*(facts.own_reads(operand) for operand in operands)))
            unbound = [name for name in captured if name not in bound]
            if unbound:
                raise Declined(f"`{unbound[0]}` may be unbound here, and `{code(call)}` reads it")
            values = cst.Tuple([cst.Element(new.func.value), *(cst.Element(arg.value) for arg in new.args)])
            method = cst.SimpleString(f'"{call.func.attr.value}"')
            update = runtime_call("predicated_update", [cond, method, thunk(values, captured)])
            statements.append(cst.SimpleStatementLine([cst.Expr(update)]))
    ctx.record(original, "where", "if: in-place update -> predicated update")
    return replacing(updated, statements)
