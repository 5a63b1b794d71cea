"""The ``if`` statement converter of [Where] (see :mod:`graphmend.rules.where`).

``if T: A else: B`` with a tensor test becomes::

    _gm_cond_L = <T as a tensor predicate>
    def _gm_then_arm_L(a=a, ...):  # A with private names and gates
        ...
        return (v__then, ...)
    def _gm_else_arm_L(...):       # B likewise
        ...
    _gm_arms_L = _graphmend.both_arms(_gm_cond_L, _gm_then_arm_L, _gm_else_arm_L)
    if isinstance(_gm_arms_L, tuple):
        <the merges>
    elif _gm_arms_L:
        <A, as rewritten inside>
    else:
        <B, as rewritten inside>

Under torch.compile with a one-element tensor test both arms run and
merge; eagerly, with a Python test, or when an arm fails or breaks the
graph, ``both_arms`` gives ``bool(T)`` and the original arm runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import assigned_targets, code, following, statements, stored_names, walk, walk_own
from graphmend.analysis.tensorness import Tensorness
from graphmend.conventions import GENERATED_PREFIX
from graphmend.rules.base import (
    Context,
    Declined,
    assign,
    declining,
    generated,
    is_dispatch,
    is_runtime_call,
    replacing,
    runtime_call,
)
from graphmend.rules.library_predicates import ITEM
from graphmend.rules.predicates import lower_test, test_kind
from graphmend.rules.where.arms import (
    REGISTER_BUFFER,
    Arm,
    Gradients,
    Predicated,
    always_returns,
    is_lazy_init,
    predicated,
)


def worth_trying(ctx: Context, node: cst.CSTNode, test: cst.BaseExpression, inside: bool = False) -> bool:
    """Diagnosed lines (and the ifs inside a diagnosed ``if``: ``inside``
    where the caller walks no tree of ancestors) are always tried;
    otherwise a test that looks like a tensor."""
    kind = test_kind(ctx.facts, test)
    if kind is Tensorness.STATIC:
        return False
    return (kind is Tensorness.TENSOR or ctx.diagnosed(node) or inside
            or isinstance(node, cst.If) and _inside_an_if_on_a_tensor(ctx, node))


def is_site(ctx: Context, original: cst.If, updated: cst.If) -> bool:
    if ctx.facts is None or not (ctx.wanted(original, "where") or _inside_a_diagnosed_if(ctx, original)):
        return False
    if is_dispatch(updated.test) or is_runtime_call(updated.test, "deferred_check") or (
        isinstance(original.test, cst.Name) and original.test.value.startswith(GENERATED_PREFIX)
    ):
        return False  # graphmend's own dispatch, or a guard [Trap] rewrote
    return worth_trying(ctx, original, original.test)


def _inside_a_diagnosed_if(ctx: Context, original: cst.If) -> bool:
    """Whether ``original`` is an ``elif`` of, or nested in an arm of, an
    ``if`` on a diagnosed line of the same function.  Dynamo breaks at the
    outer test first, so a diagnosis names what is inside only on the path
    it took (snntorch's ``elif self.reset_mechanism_val == 1`` never);
    the outer ``if`` is mended only with them."""
    return ctx.options.lines is not None and _inside_an_if(ctx, original, ctx.diagnosed)


def _inside_an_if_on_a_tensor(ctx: Context, original: cst.If) -> bool:
    """Whether ``original`` is an ``elif`` of, or nested in an arm of, an
    ``if`` of the same function whose test is diagnosed or is a tensor: the
    outer ``if`` is mended only with them, whatever their own tests are
    (transformers' ``if eos is not None and isin(...).any():`` around ``if
    kwargs_has_attention_mask ...: logger.warning_once(...)``, mended
    statically, not when a first call's trace meets it and is traced again)."""
    return _inside_an_if(ctx, original, lambda ancestor: (
        ctx.diagnosed(ancestor) or test_kind(ctx.facts, ancestor.test) is Tensorness.TENSOR))


def _inside_an_if(ctx: Context, original: cst.If, outer: Callable[[cst.If], bool]) -> bool:
    if not ctx.enabled("where"):
        return False
    for ancestor in reversed(ctx.ancestors):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(ancestor, cst.If) and ancestor is not original and outer(ancestor):
            return True
    return False


def convert_if(ctx: Context, original: cst.If, updated: cst.If):
    """Leave an ``if``: its predicated form (declined, an elif mended on
    the way is not kept either).  An ``if`` in elif position is left to
    the ``if`` it belongs to."""
    if id(original) in ctx.elifs or not is_site(ctx, original, updated):
        return updated
    return replacing(updated, mend_if(ctx, original, updated))


def convert_elif(ctx: Context, original: cst.If, updated: cst.If):
    """Leave an ``if`` that stays (tried after :func:`convert_if`): its
    ``elif`` may still be mended, as the only statement of an ``else``."""
    if id(original) in ctx.elifs or not is_site(ctx, original.orelse, updated.orelse):
        return updated
    with declining(at=original.orelse):
        inner = mend_if(ctx, original.orelse, updated.orelse)
    return updated.with_changes(orelse=cst.Else(cst.IndentedBlock(inner)))


def has_elif(ctx: Context, original: cst.If) -> bool:
    return isinstance(original.orelse, cst.If)


def mend_if(ctx: Context, original: cst.If, updated: cst.If) -> list[cst.BaseStatement]:
    """``if T: A else: B`` -> the dispatch; raises Declined."""
    facts = ctx.facts
    # A merged value is a new tensor: an in-place update that may reach what
    # an arm reads or binds would no longer be seen through it, unless the
    # next statement has already replaced every name the if binds.
    after = following(ctx.ancestors)
    if after and _merged_values_die_at(ctx, original, after[0]):
        after = after[:1]
    # A store through a mask inside an arm is gated (see _check_small): it
    # updates the very tensor the original's does, and only where taken.
    gated_stores = frozenset(id(n) for n in walk(original) if _converted_masked_store(ctx, n))
    reason = facts.in_place_hazard(facts.merged_names([original]), [original, *after], gated_stores)
    if reason:
        raise Declined(reason)
    if isinstance(original.orelse, cst.If):  # elif: mend it as a nested if
        inner = mend_if(ctx, original.orelse, updated.orelse) \
            if is_site(ctx, original.orelse, updated.orelse) else [updated.orelse]
        else_original, else_updated = [original.orelse], inner
    elif original.orelse is not None:
        else_original, else_updated = statements(original.orelse.body), statements(updated.orelse.body)
    else:
        else_original, else_updated = [], []
    then = Arm("then", statements(original.body), statements(updated.body), taken=True)
    otherwise = Arm("else", else_original, else_updated, taken=False)
    ending = [always_returns(arm.original) and _has_return(arm.original) for arm in (then, otherwise)]
    returns = any(ending) and all(always_returns(arm.original) for arm in (then, otherwise))
    if any(ending) and not returns:
        raise Declined("only one branch returns")
    test = lower_test(facts, original.test, updated.test, original)
    cond = generated("cond", ctx.line(original))
    shared = None if returns else _shared_call(ctx, then, otherwise)
    if shared is not None:
        form = Predicated([], runtime_call("is_tensor", [cond]), shared(cond), choice=cond)
    else:
        for arm in (then, otherwise):
            check_arm(ctx, arm.original, returns=returns)
        form = predicated(ctx, original, cond, (then, otherwise), returns=returns,
                          gradients=_gradients(ctx, then, otherwise))
    fallback_else = cst.Else(cst.IndentedBlock(else_updated)) if else_updated else None
    dispatch = cst.If(
        test=form.test,
        body=cst.IndentedBlock(form.body),
        orelse=cst.If(test=form.choice, body=cst.IndentedBlock(then.updated), orelse=fallback_else),
    )
    ctx.record(original, "where", "if/return -> torch.where" if returns else "if -> torch.where")
    return [assign(cond, test), *form.prelude, dispatch]


def _merged_values_die_at(ctx: Context, original: cst.If, statement: cst.CSTNode) -> bool:
    """Whether ``statement``, the next one in the ``if``'s block, rebinds
    afresh every name the ``if`` binds, with nothing else out of the ``if``:
    no return, raise, break or continue, no store into an attribute or item."""
    block = ctx.ancestors[-2] if len(ctx.ancestors) > 1 else None
    if not (isinstance(block, cst.IndentedBlock) and statement in block.body):
        return False
    for node in walk(original):
        if isinstance(node, (cst.Return, cst.Raise, cst.Break, cst.Continue)):
            return False
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)) and any(
            isinstance(n, (cst.Attribute, cst.Subscript)) for n in walk(node.target)
        ):
            return False
    return ctx.facts.rebinds_afresh(statement, set(stored_names(original)))


def _has_return(body: Sequence[cst.CSTNode]) -> bool:
    return any(isinstance(node, cst.Return) for statement in body for node in walk(statement))


def _gradients(ctx: Context, *arms: Arm) -> Gradients:
    """How the merges may apply under autograd: ``torch.where`` when every
    value both arms compute goes through operations whose derivative does
    not depend on values (so the gradients are exact), else ``torch.cond``
    over the arms; neither when a merged value reaches a message or
    ``grad_fn`` in the function (its text would name ``WhereBackward0`` or
    ``CondAutogradOp`` instead of the operation that made it)."""
    merged = {name for arm in arms for statement in arm.original for name in stored_names(statement)}
    if ctx.facts.shows_grad_fn(merged):
        return Gradients.NEITHER
    if any(
        ctx.facts.gradient_impurity(node.value)
        for arm in arms
        for statement in arm.original
        for node in walk(statement)
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.Return)) and node.value is not None
    ):
        return Gradients.COND
    return Gradients.WHERE


# -- which arms can run when not taken ------------------------------------------------


def check_arm(ctx: Context, body: Sequence[cst.CSTNode], *, returns: bool) -> None:
    """Raise Declined unless ``body`` may run when its arm is not taken."""
    reason = ctx.facts.undefined_name(body) or ctx.facts.constant_operand(body) or _helper_reads_a_store(ctx, body)
    if reason:
        raise Declined(reason)
    for index, statement in enumerate(body):
        if isinstance(statement, cst.If):
            # In the arm's copy a return becomes an assignment: code after
            # the if would run (and overwrite the value) where it returned.
            if index < len(body) - 1 and any(isinstance(n, cst.Return) for n in walk_own(statement)):
                raise Declined("a return inside a nested if, with code after it in the branch")
            _check_nested_if(ctx, statement, returns)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                _check_small(ctx, small, returns)
        else:
            raise Declined(f"a `{type(statement).__name__.lower()}` statement in a branch")


def _helper_reads_a_store(ctx: Context, body: Sequence[cst.CSTNode]) -> str | None:
    """Why a helper the arm calls may read what the arm stores: in the
    arm's copy a store into an attribute (or a buffer) waits for the merge,
    so a function reading it through an object would see the old value."""
    stored = next((node.target for statement in body for node in walk(statement)
                   if isinstance(node, (cst.AssignTarget, cst.AnnAssign)) and isinstance(node.target, cst.Attribute)),
                  None) or next((node.value.func for statement in body for node in walk(statement)
                                 if m.matches(node, REGISTER_BUFFER)), None)
    if stored is None:
        return None
    call = next((node for statement in body for node in walk(statement)
                 if isinstance(node, cst.Call) and ctx.facts.callee(node) is not None), None)
    if call is None:
        return None
    return f"calls {code(call.func)}(), which may read what `{code(stored)}` stores (the branch's copy stores it at the merge)"


def _check_nested_if(ctx: Context, node: cst.If, returns: bool) -> None:
    if is_lazy_init(node):
        return
    converted = id(node) in ctx.converted
    if not converted and test_kind(ctx.facts, node.test) is not Tensorness.STATIC:
        reasons = [s.reason for s in ctx.skips if s.lineno == ctx.line(node)]
        raise Declined("a nested if that could not be mended" + (f" ({reasons[-1]})" if reasons else ""))
    if converted and any(m.matches(n, REGISTER_BUFFER) for n in walk(node)):
        # Its predicated form stores the buffer through the runtime, for real.
        raise Declined("a nested if stores a buffer")
    reason = ctx.facts.impurity(node.test, traced_errors_fall_back=True)
    if reason:
        raise Declined(reason)
    check_arm(ctx, statements(node.body), returns=returns)
    if isinstance(node.orelse, cst.If):
        _check_nested_if(ctx, node.orelse, returns)
    elif node.orelse is not None:
        check_arm(ctx, statements(node.orelse.body), returns=returns)


def _converted_masked_store(ctx: Context, node: cst.CSTNode) -> bool:
    """Whether ``node`` is a store through a mask that [Where] rewrote
    (``t[m] = ...`` -> ``masked_store(...)``; gated inside an arm)."""
    return isinstance(node, cst.Assign) and id(node) in ctx.converted and isinstance(node.targets[0].target, cst.Subscript)


def _check_small(ctx: Context, small: cst.BaseSmallStatement, returns: bool) -> None:
    facts = ctx.facts
    if isinstance(small, cst.Pass):
        return
    if _converted_masked_store(ctx, small):
        # A store through a mask [Where] rewrote: gated in the copy, in place
        # as the original's; where the arm is not taken it still writes the
        # target's own values back, unseen only in a tensor the function made.
        target = small.targets[0].target.value.value
        if target not in facts.fresh_locals:
            raise Declined(f"stores into `{target}`, which the function did not make, through a mask: "
                           "where its arm is not taken the store would still write it")
        return
    if isinstance(small, (cst.Assign, cst.AnnAssign)):
        if small.value is None:
            raise Declined("an annotation without a value")
        for target in assigned_targets(small):  # item stores: see FunctionFacts.in_place_reason
            for node in walk(target):
                if isinstance(node, cst.Attribute):
                    _check_store_owner(ctx, node)
        reason = facts.impurity(small.value, traced_errors_fall_back=True)
    elif m.matches(small, REGISTER_BUFFER):
        _check_store_owner(ctx, small.value.func)
        reason = next(filter(None, (facts.impurity(a.value, traced_errors_fall_back=True) for a in small.value.args)), None)
    elif isinstance(small, cst.Expr):
        if id(small) in ctx.converted:
            return  # an effect call [Defer] rewrote: gated in the copy
        call = small.value
        kind = facts.effect_call(call) if isinstance(call, cst.Call) else None
        if kind is not None:
            reasons = [s.reason for s in ctx.skips if s.rule == "defer" and s.lineno == ctx.line(small)]
            reason = reasons[-1] if reasons else f"{kind}() in a branch (I/O)"
        else:
            reason = (facts.impurity(call, traced_errors_fall_back=True) if isinstance(call, cst.Call) else None
                      ) or "an expression statement"
    elif isinstance(small, cst.Raise):
        reason = None if ctx.enabled("trap") else "a branch raises"
    elif isinstance(small, cst.Return):
        if not returns:
            reason = "a return inside a branch"
        else:  # the arm's copy computes the returned value whether or not the arm is taken
            returned = small.value
            if m.matches(returned, ITEM):
                # A number read back whole and returned: nothing in the arm takes it for a size or an
                # index; it breaks the graph inside both_arms (capture off) or is held, and more than
                # one element raises while traced -- either way the original arm runs.
                returned = returned.func.value
            reason = None if returned is None else facts.impurity(returned, traced_errors_fall_back=True)
    elif isinstance(small, cst.Assert):
        reason = None if id(small) in ctx.converted else "an assert in a branch"
    else:
        reason = f"a `{type(small).__name__.lower()}` statement in a branch"
    if reason:
        raise Declined(reason)


def _check_store_owner(ctx: Context, target: cst.Attribute) -> None:
    """Only ``self.a = ...`` of the method's own object is merged; a store
    into another object (``x.data = ...``) could be seen through aliases."""
    receiver = ctx.facts.receiver
    if not (isinstance(target.value, cst.Name) and target.value.value == receiver):
        raise Declined(f"a store into `{code(target)}`, not an attribute of the method's object")


def _shared_call(ctx: Context, then: Arm, otherwise: Arm):
    """Both arms are one ``target = f(args)`` differing only in arguments:
    call ``f`` once with the arguments merged (``f`` runs once, as before,
    so it need not be pure).  Returns a builder or None."""
    pattern = m.SimpleStatementLine([m.Assign(value=m.Call())])
    if not (len(then.original) == len(otherwise.original) == 1
            and all(m.matches(s, pattern) for s in (*then.original, *otherwise.original))):
        return None
    if not (len(then.updated) == len(otherwise.updated) == 1
            and all(m.matches(s, pattern) for s in (*then.updated, *otherwise.updated))):
        return None
    a, b = then.updated[0].body[0], otherwise.updated[0].body[0]
    if [code(t) for t in a.targets] != [code(t) for t in b.targets] or not all(
        isinstance(n, (cst.Name, cst.Tuple)) for n in (t.target for t in a.targets)
    ):
        return None

    def shape(call: cst.Call) -> list[tuple[str | None, str]]:
        return [(arg.keyword and arg.keyword.value, arg.star) for arg in call.args]

    if code(a.value.func) != code(b.value.func) or shape(a.value) != shape(b.value):
        return None
    original_args = zip(then.original[0].body[0].value.args, otherwise.original[0].body[0].value.args)
    differing = [(x.value, y.value) for x, y in original_args if code(x.value) != code(y.value)]
    if any(ctx.facts.is_static(v) for pair in differing for v in pair):
        return None  # torch.where cannot select Python constants
    reason = next(filter(None, (ctx.facts.impurity(v) for pair in differing for v in pair)), None)
    if reason:
        raise Declined(reason)

    def build(cond: cst.Name) -> list[cst.BaseStatement]:
        args = [
            x if code(x.value) == code(y.value)
            else x.with_changes(value=runtime_call("where", [cond, x.value, y.value]))
            for x, y in zip(a.value.args, b.value.args)
        ]
        return [cst.SimpleStatementLine([a.with_changes(value=a.value.with_changes(args=args))])]

    return build

