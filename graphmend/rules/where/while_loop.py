"""The ``while`` converter of [Where]: a tensor loop as ``torch.while_loop``.

``while T: body`` whose body only computes values becomes::

    def _gm_while_cond_L(i, x, y=y):
        return <T as a tensor predicate>

    def _gm_while_body_L(i, x, y=y):
        <body>
        return (i, x)

    (i, x) = _graphmend.while_loop(_gm_while_cond_L, _gm_while_body_L, (i, x))

The loop carries the names the body binds that the test or a later
iteration reads, or code after the loop; the names it only reads are
default arguments (never closure cells).  Under torch.compile,
``_graphmend.while_loop`` runs ``torch.while_loop`` when every carried value
is a tensor that keeps its shape, dtype and device through the body and
none requires grad; otherwise, and eagerly, it runs the same functions as
a Python loop, which is the original loop.

Declined: ``else`` clauses, ``break``/``continue``/``return``/``raise``,
effects, nested statements other than assignments to names, a carried name
that may be unbound before the loop, a carried value the body may return
as a view or alias of another value (``torch.while_loop`` refuses those;
but for another carried value itself, ``old = x``, which the runtime hands
it copied), and in-place updates that may reach the loop's values.
"""

from __future__ import annotations

import libcst as cst

from graphmend.analysis.bindings import code, following, read_before_bound, read_names, statements, stored_names
from graphmend.rules.base import Context, Declined, generated, replacing, runtime_call
from graphmend.rules.predicates import lower_test
from graphmend.rules.where.if_statement import worth_trying

def convert_while(ctx: Context, original: cst.While, updated: cst.While):
    facts = ctx.facts
    if facts is None or not ctx.wanted(original, "where") or not worth_trying(ctx, original, original.test):
        return updated
    return replacing(updated, _mend_while(ctx, original, updated))


def _mend_while(ctx: Context, original: cst.While, updated: cst.While) -> list[cst.BaseStatement]:
    facts = ctx.facts
    if original.orelse is not None:
        raise Declined("a while loop with an else")
    body = statements(original.body)
    last_value: dict[str, cst.BaseExpression] = {}
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            raise Declined(f"`{type(statement).__name__.lower()}` statement in the loop (only assignments to names)")
        for small in statement.body:
            if isinstance(small, cst.Pass):
                continue
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)):
                raise Declined(f"`{code(small)}` in the loop (only assignments to names)")
            reason = facts.impurity(small.value)
            if reason:
                raise Declined(reason)
            last_value[small.targets[0].target.value] = small.value
    assigned = stored_names(original.body)
    reason = facts.in_place_hazard(facts.merged_names([original]), [original, *following(ctx.ancestors)])
    if reason:
        raise Declined(reason)
    test_reads = read_names(original.test)
    live = facts.live_after(original, assigned)
    carried = [n for n in assigned if n in test_reads or read_before_bound(body, n) or n in live]
    if not carried:
        raise Declined("the loop carries no value")
    bound = facts.bound_before(original)
    for name in carried:
        if name not in bound:
            raise Declined(f"`{name}` may be unbound before the loop")
        value = last_value[name]
        # Another carried value itself (``edges_old = edges``): the runtime's body hands torch.while_loop a copy.
        if facts.alias_sources(value) and not (isinstance(value, cst.Name) and value.value in carried):
            raise Declined(f"`{name} = {code(value)}` may alias another value")
    invariants = sorted((facts.own_reads(original) - set(assigned)) & (facts.locals | facts.parameters))
    unbound = [name for name in invariants if name not in bound]
    if unbound:
        raise Declined(f"`{unbound[0]}` may be unbound before the loop")
    line = ctx.line(original)
    params = cst.Parameters(
        [cst.Param(cst.Name(name)) for name in carried]
        + [cst.Param(cst.Name(name), default=cst.Name(name),
                     equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
           for name in invariants]
    )
    test = lower_test(facts, original.test, updated.test, original)
    values = cst.Tuple([cst.Element(cst.Name(name)) for name in carried])
    cond_name = generated("while_cond", line)
    body_name = generated("while_body", line)
    cond_def = cst.FunctionDef(cond_name, params, cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(test)])]))
    body_def = cst.FunctionDef(
        body_name, params,
        cst.IndentedBlock([*statements(updated.body), cst.SimpleStatementLine([cst.Return(values)])]),
    )
    loop = cst.Assign([cst.AssignTarget(values)], runtime_call("while_loop", [cond_name, body_name, values]))
    ctx.record(original, "where", "while -> torch.while_loop")
    return [cond_def, body_def, cst.SimpleStatementLine([loop])]
