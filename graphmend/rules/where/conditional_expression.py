"""The conditional-expression converter of [Where].

``a if T else b`` with a tensor test becomes ``_graphmend.select(T, lambda
a=a: a, lambda b=b: b)``: under torch.compile with a tensor test both
thunks run and ``torch.where`` merges them; otherwise only the chosen one
runs.  The locals a branch reads are default arguments (a closure would
make them cells, which Dynamo's resume functions read as free variables),
so each must be bound before the expression.  ``x[i] if i >= 0 else y``
(diffusers' ``alphas_cumprod[prev_t] if prev_t >= 0 else one``) indexes
as ``_graphmend.nonnegative_row(x, i)`` in the thunk: run while not
taken, a negative ``i`` must not index out of range inside the graph.

A branch that is a Python value (``... else 3.0``, ``float(t)``) against
one that may be a tensor is left alone: ``torch.where`` cannot select the
two, so the rewrite would always fall back, and its fallback would hand the
code after it a tensor on one call and a float on another (a recompile in
which Dynamo 2.13 drops a pending side effect when the float then raises,
see README's fuzzing notes), where the original has one resume function
per branch.  Two Python values stay rewritten: equal ones merge.
"""

from __future__ import annotations

import libcst as cst

from graphmend import vocabulary
from graphmend.analysis.bindings import code, following, stored_names
from graphmend.analysis.effects import alias_sources, is_nonnegative_index
from graphmend.analysis.gradients import gradient_chains, one_sided, read_chains
from graphmend.rules.base import Context, Declined, keyword, runtime_call, thunk
from graphmend.rules.predicates import lower_test, nonnegative_names
from graphmend.rules.where.arms import chain_values, fits_cond
from graphmend.rules.where.if_statement import worth_trying


def convert_ifexp(ctx: Context, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
    facts = ctx.facts
    if not (facts and ctx.wanted(original, "where") and worth_trying(ctx, original, original.test)):
        return updated
    statement = next(a for a in reversed(ctx.ancestors)
                     if isinstance(a, (cst.BaseSmallStatement, cst.BaseCompoundStatement)))
    path = ctx.ancestors[: ctx.ancestors.index(statement) + 1]
    replaced = set(stored_names(statement)) | alias_sources(original, facts.qualified_name)
    after = [statement, *following(path)]
    nonnegative = [nonnegative_names(original.test, taken) for taken in (True, False)]
    reason = (facts.impurity(original.body, traced_errors_fall_back=True, nonnegative=nonnegative[0])
              or facts.impurity(original.orelse, traced_errors_fall_back=True, nonnegative=nonnegative[1])
              ) or facts.in_place_hazard(replaced, after)
    if reason:
        raise Declined(reason)
    python_values = [b for b in (original.body, original.orelse) if _python_value(facts, b)]
    if len(python_values) == 1:  # two merge when they are equal (diffusers' `gamma = … if … else 0.0`)
        raise Declined(f"`{code(python_values[0])}` is not a tensor, and the other branch may be")
    test = lower_test(facts, original.test, updated.test, statement)
    bound = facts.bound_before(statement)
    read_locals = []
    for branch in (original.body, original.orelse):
        names = sorted(facts.own_reads(branch))
        unbound = [name for name in names if name not in bound]
        if unbound:
            raise Declined(f"`{unbound[0]}` may be unbound here, and the branch reads it")
        read_locals.append(names)
    ctx.record(original, "where", "conditional expression -> torch.where")
    branches = [branch.visit(_NonnegativeIndexes(names)) for branch, names in zip((updated.body, updated.orelse), nonnegative)]
    args = [test, thunk(branches[0], read_locals[0]), thunk(branches[1], read_locals[1])]
    statement_targets = set(stored_names(statement))
    linear = not (facts.gradient_impurity(original.body) or facts.gradient_impurity(original.orelse))
    by_cond = fits_cond(facts, [original.body], [branches[0]], after) and fits_cond(
        facts, [original.orelse], [branches[1]], after)
    if (linear or by_cond) and statement_targets and not facts.shows_grad_fn(statement_targets):
        reads = [(read_chains(b), gradient_chains(b, facts.qualified_name)) for b in (original.body, original.orelse)]
        line = next(a for a in reversed(ctx.ancestors) if isinstance(a, cst.BaseStatement))
        # torch.cond gives a value only one arm reads a zero gradient of its own even where a
        # gradient reaches it through what both arms read (see arms._cond_sources).
        reached = None if by_cond else facts.reached_before(line)
        sources = facts.gradient_sources(one_sided(*reads, reached), statement)
        if sources is not None:
            if linear:
                args.append(keyword("grad", cst.Name("True")))
            if sources:
                roots = sorted({chain.partition(".")[0] for chain in sources} & facts.bound_before(statement))
                args.append(keyword("one_sided", thunk(chain_values(sources), roots)))
            if by_cond:
                args.append(keyword("by_cond", cst.Name("True")))
    return runtime_call("select", args)


def _python_value(facts, branch: cst.BaseExpression) -> bool:
    """Whether ``branch`` surely gives a Python value: a constant, or a
    number read out of a tensor (``float(t)``)."""
    if facts.is_static(branch):
        return True
    return isinstance(branch, cst.Call) and vocabulary.builtin(
        facts.qualified_name(branch.func)) in vocabulary.SCALAR_BUILTINS


class _NonnegativeIndexes(cst.CSTTransformer):
    """``x[i]`` -> ``_graphmend.nonnegative_row(x, i)`` for ``i`` in
    ``names`` (see :func:`graphmend.analysis.effects.is_nonnegative_index`)."""

    def __init__(self, names: frozenset[str]) -> None:
        super().__init__()
        self.names = names

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if not is_nonnegative_index(original_node, self.names):
            return updated_node
        return runtime_call("nonnegative_row", [updated_node.value, updated_node.slice[0].slice.value])
