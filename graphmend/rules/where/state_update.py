"""[Where]: predicated state updates.

What it does
    ``if T:`` whose arm only updates tensors in place --
    ``buf.copy_(new)``, ``.fill_(v)``, ``.zero_()``, ``.add_(d)``,
    ``.sub_(d)``, ``.mul_(d)``, ``.div_(d)``, ``.lerp_(end, w)`` on a name
    or an attribute (``self.buf``), or ``self.buf += d`` (``-=``, ``*=``,
    ``/=``) on an attribute -- becomes, per statement,
    ``_graphmend.predicated_update(cond, "copy_", lambda: (self.buf, new))``
    or ``_graphmend.predicated_augment(cond, "+=", lambda: self, "buf",
    lambda: d)``: under torch.compile the same update applied to a copy
    and selected back, ``buf.copy_(torch.where(cond, updated_copy, buf))``;
    eagerly the original statement, only when ``cond`` holds.

    A statement that calls a helper for its effects -- ``self.copy_params()``,
    a loop of ``ma.data.copy_(p.data)`` -- becomes
    ``_graphmend.predicated_call(cond, lambda self=self: self.copy_params())``:
    under torch.compile the helper runs whether or not ``cond`` holds, each
    update it makes by one of those methods predicated the same way (a
    torch function mode), and anything else it does is judged while it
    traces (below).

    An ``else`` arm of the same kind is predicated on ``_graphmend.not_(cond)``,
    taken before the first arm runs.  An arm may end with a bare ``return``
    where control falls from the ``if`` off the end of the function: an
    early return (``if total == 0: return``, then the updates), which
    :mod:`.returns` has turned into an ``else`` arm holding the rest of
    the function.

    An arm may bind locals its later statements read (``scale = lr /
    total``): ``scale = _graphmend.predicated_value(cond, lambda: lr /
    total)``.  And it may hold ``if``s this rule predicated in turn (an
    EMA's ``if warm: copy; return`` after its first-call ``if``): their
    tests become ``_graphmend.and_(cond, lambda: test)`` and, for an
    ``else``, ``_graphmend.and_(cond, lambda: not_(test))``, so each of
    their updates is taken where both hold.

Why is this bad?
    An arm with an in-place update is an effect [Where] cannot select
    between, so the ``if`` on a tensor keeps its break (the EMA / codebook
    initialisation pattern ``if not self.initted: self.embed.copy_(...)``,
    or ``if not self.initted.item(): self.copy_params_from_model_to_ema()``).

Example
    ``if not self.initted:`` / ``self.buf.copy_(x)`` / ``self.initted.fill_(True)``

Use instead
    ``_gm_cond_12 = ~self.initted`` (as [Where] lowers the test), then one
    ``_graphmend.predicated_update(_gm_cond_12, ...)`` per statement.

Fix safety
    Exact where it applies: the test is evaluated once (an ``else`` arm's
    ``not`` of it taken before the first arm's updates: a tensor's
    ``logical_not`` under torch.compile, of the same truth as Python's
    ``not``, a NaN true and ``-0.0`` false), and copied when the first
    arm has more than one update (``if self.flag:`` /
    ``self.flag.fill_(False)`` must not change what the next update
    reads); the update runs as the very same in-place method or operator
    on a copy of the target (same dtype casts, same broadcasting, same
    errors), and ``torch.where`` selects bits (never ``buf + where(T, d,
    0)``, which would turn a ``-0.0`` into ``0.0``).  Statements run in
    order, so a later update sees an earlier one where the arm is taken.
    ``owner.name += d`` ends by storing the same tensor back, which the
    predicated form leaves out: the runtime takes it only when that store
    is a no-op (``object``'s or ``nn.Module``'s ``__setattr__``, no global
    registration hooks) and ``d`` is a plain tensor or a Python number.
    The operands are evaluated whether or not the arm is taken, so they
    must be free of effects and random numbers, and no operand may read
    the target through a view (``buf.add_(buf.t())``: the original raises
    on the overlap, an update of a copy would not); only the target whole
    or as an operand of arithmetic is taken.  The runtime keeps the break
    (a graph break with the reason) with gradients enabled -- an
    unconditional write bumps the target's version counter, and a tensor
    saved for backward would then fail where eager's untaken arm does not
    -- and for a target that is not a plain contiguous strided tensor (an
    expanded view refuses writes) or a test that is not one element.

    A local of an arm is evaluated whether or not the arm is taken under
    torch.compile (eagerly only where it is, ``None`` bound otherwise), so
    it must be free of effects, read by no code but its own arm's later
    statements (not after the ``if``, not by the ``else`` arm, not by the
    next trip of a loop) and not declared ``global``; an error while it
    traces runs the original.  A nested ``if``'s test is read whether or
    not the arm is taken in the same way (eagerly only where it is:
    ``and_`` short-circuits), so it must be free of effects too.

    A helper call is exact in the same way where the trace shows it did
    nothing else: :func:`graphmend.compat.effects_since` compares what
    Dynamo recorded before and after it, and a store into an object that
    existed before (``self.count += 1``, ``self.log.append``), a replayed
    call, a random draw, an index taken from a tensor (out of range where
    the arm is not taken), an in-place update by another method, or an
    error raised while it traces makes a graph break with the reason,
    taken at the call, so the original ``if`` runs (with Dynamo's
    ``nested_graph_breaks`` on, a break would resume inside the call after
    its traced effects, so the call keeps its break).  The rule declines a
    call whose arguments have effects or whose summary says it prints or
    draws random numbers, and leaves alone calls of builtins, torch
    functions, ``nn.Module``'s own methods (``register_buffer``, ``to``),
    in-place methods and containers' mutators.

    Declined with the reason: an in-place method that draws random
    numbers (``.normal_()``) or changes the target's shape
    (``.unsqueeze_()``, ``.resize_()``), a keyword argument other than
    those of :data:`KEYWORDS` (``alpha=``, ``rounding_mode=``, ...), and a Python
    value stored under the test (``self.initted = True``: ``torch.where``
    cannot select a Python bool; a bool buffer and ``.fill_(True)`` can
    be), a local read outside its own arm, and a nested ``if`` whose test
    has effects.  ``x += d`` on a local (a Python value rebinds), an arm
    with any other statement, a nested ``if`` this rule did not predicate,
    an ``elif``, a ``return`` with a value and a ``return`` after which
    the function goes on (inside a loop) leave the ``if`` to [Where] as
    before.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.bindings import code, else_statements, read_names, statements
from graphmend.conventions import GENERATED_PREFIX
from graphmend.rules.base import (Context, Declined, assign, declining, generated, is_runtime_call, replacing,
                                  runtime_call, string, thunk)
from graphmend.rules.predicates import lower_test
from graphmend.rules.where.if_statement import is_site
from graphmend.vocabulary import PREDICATED_METHODS

#: In-place methods whose update is elementwise and keeps the target's shape.
METHODS = PREDICATED_METHODS

#: The keyword arguments each method takes here (they change what the update computes, not where it writes).
KEYWORDS = {"add_": {"alpha"}, "sub_": {"alpha"}, "div_": {"rounding_mode"}, "lerp_": {"weight"},
            "copy_": {"non_blocking"}, "fill_": {"value"}}

#: Augmented assignments to an attribute, by the operator's symbol.
AUGMENTED = {cst.AddAssign: "+=", cst.SubtractAssign: "-=", cst.MultiplyAssign: "*=", cst.DivideAssign: "/="}

#: In-place methods declined with a reason (the arm is still an update).
DECLINED_METHODS = {
    **dict.fromkeys(vocabulary.RANDOM_METHODS, "draws random numbers, which evaluating it whether or not the arm "
                                               "is taken would draw once more"),
    **dict.fromkeys(("resize_", "resize_as_", "set_", "unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_",
                     "swapaxes_", "as_strided_"), "changes the target's shape or strides, which `torch.where` "
                                                  "cannot select between"),
}


def _target(expr: cst.BaseExpression) -> bool:
    """A name, or an attribute chain over one (``self.buf``, ``self.stats.acc``)."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


def _small(statement: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def _update(statement: cst.CSTNode) -> cst.Call | cst.AugAssign | None:
    """The in-place update a statement consists of -- ``target.method(args)``
    with a method of :data:`METHODS` or :data:`DECLINED_METHODS`, or
    ``owner.name <op>= value`` with an operator of :data:`AUGMENTED` -- or None."""
    small = _small(statement)
    if isinstance(small, cst.AugAssign):
        if type(small.operator) in AUGMENTED and isinstance(small.target, cst.Attribute) and _target(small.target):
            return small
        return None
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return None
    call = small.value
    if not (isinstance(call.func, cst.Attribute) and _target(call.func.value)):
        return None
    if call.func.attr.value not in METHODS and call.func.attr.value not in DECLINED_METHODS:
        return None
    if any(arg.star for arg in call.args):
        return None
    return call


def _helper_call(facts, statement: cst.CSTNode) -> cst.Call | None:
    """The call a statement consists of when its value is dropped and it
    is not an update of its own (``self.copy_params_to_ema()``,
    ``reset(self.stats)``): a name or an attribute chain called, not an
    in-place method, a container's mutator, a method ``nn.Module`` defines,
    a builtin, a torch function or a message (print, logging, warnings:
    [Defer]'s); or None."""
    small = _small(statement)
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)) or _update(statement) is not None:
        return None
    call = small.value
    if not _target(call.func) or facts.effect_call(call) is not None:
        return None
    qualified = facts.qualified_name(call.func) or ""
    if qualified.startswith(("builtins.", "torch.")):
        return None  # a builtin's effects (setattr) are Python's, a torch function's its own
    if isinstance(call.func, cst.Attribute):
        method = call.func.attr.value
        # nn.Module's own methods (register_buffer, to, train) change the module, not tensors
        if vocabulary.in_place_method(method) or method in vocabulary.CONTAINER_MUTATORS or \
                method in vocabulary.MODULE_METHODS:
            return None
    return call


def _local(statement: cst.CSTNode) -> cst.Assign | None:
    """``name = value`` (one plain name bound: a local of the arm), or None."""
    small = _small(statement)
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small
    return None


_PYTHON_CONSTANT = m.Name("True") | m.Name("False") | m.Name("None")


def _python_flag(statement: cst.CSTNode) -> cst.Assign | None:
    """``self.initted = True`` (a Python constant stored in an attribute), or None."""
    small = _small(statement)
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return None
    target, value = small.targets[0].target, small.value
    constant = isinstance(value, (cst.Integer, cst.Float)) or m.matches(value, _PYTHON_CONSTANT)
    return small if isinstance(target, cst.Attribute) and _target(target) and constant else None


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without its own parentheses."""
    return expr.with_changes(lpar=[], rpar=[]) if getattr(expr, "lpar", None) else expr


def _reads_a_view(operand: cst.BaseExpression, target: str) -> bool:
    """Whether ``operand`` reads ``target`` (its code) other than
    whole or as an operand of arithmetic (a fresh tensor): ``self.buf.t()``,
    ``self.buf[1:]``, ``self.buf.data``.  Such a view overlaps the target,
    and the in-place original then raises ("some elements of the input
    tensor and the written-to tensor refer to a single memory location")
    where an update of a copy would not."""
    found: list[cst.CSTNode] = []

    class Reads(cst.CSTVisitor):
        def __init__(self) -> None:
            self.parents: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.BaseExpression) and code(_bare(node)) == target:
                parent = self.parents[-1] if self.parents else None
                if parent is not None and not isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
                    found.append(parent)
                return False
            self.parents.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if self.parents and self.parents[-1] is original_node:
                self.parents.pop()

    operand.visit(Reads())
    return bool(found)


def _operands(update: cst.Call | cst.AugAssign) -> list[cst.BaseExpression]:
    """What an update evaluates, in order: the target, then its arguments."""
    if isinstance(update, cst.AugAssign):
        return [update.target, update.value]
    return [update.func.value, *(arg.value for arg in update.args)]


def _check(ctx: Context, update: cst.Call | cst.AugAssign, bound: frozenset[str]) -> None:
    """Raises :class:`Declined` where predicating ``update`` would not be
    exact, or a local it reads may be unbound here."""
    facts = ctx.facts
    if isinstance(update, cst.Call):
        method = update.func.attr.value
        if method in DECLINED_METHODS:
            raise Declined(f"`{code(update)}` {DECLINED_METHODS[method]}")
        keyword = next((arg.keyword.value for arg in update.args
                        if arg.keyword is not None and arg.keyword.value not in KEYWORDS.get(method, ())), None)
        if keyword is not None:
            raise Declined(f"`{code(update)}`: the keyword argument `{keyword}`")
    target, *values = _operands(update)
    _check_evaluated(facts, [target, *values])
    for value in values:
        if _reads_a_view(value, code(target)):
            raise Declined(f"`{code(value)}` may read `{code(target)}` through a view (an aliasing view: the "
                           "in-place original raises on overlapping memory, an update of a copy would not)")
    _check_bound(facts, update, bound)


def _check_call(ctx: Context, call: cst.Call, bound: frozenset[str]) -> None:
    """Raises :class:`Declined` where a helper call cannot be predicated:
    what it calls is known to print or draw random numbers, the callee or
    an argument has effects of its own, or a local it reads may be unbound."""
    facts = ctx.facts
    summary = facts.callee(call)
    if summary is not None and summary.kind in ("message", "random"):
        raise Declined(f"`{code(call)}` {summary.effect}, which would happen whether or not the arm is taken")
    operands = [call.func.value] if isinstance(call.func, cst.Attribute) else []
    _check_evaluated(facts, [*operands, *(arg.value for arg in call.args)])
    _check_bound(facts, call, bound)


def _check_evaluated(facts, operands: Sequence[cst.BaseExpression]) -> None:
    """Raises :class:`Declined` where an operand, evaluated whether or not
    the arm is taken, has effects."""
    for operand in operands:
        reason = facts.impurity(operand)
        if reason:
            raise Declined(f"`{code(operand)}` is evaluated whether or not the arm is taken: {reason}")


def _bound_names(statement: cst.CSTNode) -> set[str]:
    """The locals ``statement`` binds by ``name = value``, in the ``if``s nested in it too."""
    local = _local(statement)
    if local is not None:
        return {local.targets[0].target.value}
    if isinstance(statement, cst.If):
        return {assignment.targets[0].target.value
                for assignment in m.findall(statement, m.Assign(targets=[m.AssignTarget(m.Name())]))}
    return set()


def _check_locals(facts, original: cst.If, arms: Sequence[Sequence[cst.BaseStatement]]) -> None:
    """Raises :class:`Declined` where a local an arm binds -- bound
    whether or not the arm is taken under torch.compile, and to ``None``
    eagerly where it is not -- could be read by code other than its own
    arm (after the ``if``, or in the ``else`` arm), or where its value has
    effects."""
    arm_locals = [set().union(*(_bound_names(statement) for statement in arm)) for arm in arms]
    bound_in_arms = set().union(*arm_locals)
    declared = sorted(bound_in_arms & facts.declared_global)
    if declared:
        raise Declined(f"`{declared[0]}` is declared global or nonlocal, and an arm stores into it")
    seen_after = sorted(facts.live_after(original, bound_in_arms))
    if seen_after:
        raise Declined(f"`{seen_after[0]}` is bound in an arm and may be read after the `if`, where the arm may "
                       "not have been taken")
    bound_by_earlier_arms: set[str] = set()
    for arm, bound_here in zip(arms, arm_locals):
        for statement in arm:
            crossing = sorted(facts.own_reads(statement) & bound_by_earlier_arms)
            if crossing:
                raise Declined(f"`{code(statement).strip()}` reads `{crossing[0]}`, which the first arm binds (the "
                               "predicated form binds it whether or not that arm is taken)")
            local = _local(statement)
            if local is not None:
                reason = facts.impurity(local.value, traced_errors_fall_back=True)
                if reason:
                    raise Declined(f"`{code(local.value)}` is evaluated whether or not the arm is taken: {reason}")
            if isinstance(statement, cst.If):
                reason = facts.impurity(statement.test, traced_errors_fall_back=True)
                if reason:
                    raise Declined(f"`{code(statement.test)}`, the test of an `if` in the arm, is evaluated whether "
                                   f"or not the arm is taken: {reason}")
        bound_by_earlier_arms |= bound_here


def _check_bound(facts, statement: cst.Call | cst.AugAssign, bound: frozenset[str]) -> None:
    """Raises :class:`Declined` where a local ``statement`` reads may be unbound."""
    unbound = sorted(name for name in facts.own_reads(statement) if name not in bound)
    if unbound:
        raise Declined(f"`{unbound[0]}` may be unbound here, and `{code(statement)}` reads it")


def _predicated(ctx: Context, cond: cst.Name, original: cst.Call | cst.AugAssign,
                new: cst.Call | cst.AugAssign) -> cst.Call:
    """The runtime call that performs ``new`` where ``cond`` holds (each
    thunk takes the locals its own expression reads)."""
    reads = ctx.facts.own_reads
    if isinstance(new, cst.AugAssign):
        owner, value = original.target.value, original.value
        return runtime_call("predicated_augment", [
            cond, cst.SimpleString(f'"{AUGMENTED[type(new.operator)]}"'),
            thunk(new.target.value, sorted(reads(owner))), string(new.target.attr.value),
            thunk(new.value, sorted(reads(value))),
        ])
    values = cst.Tuple([cst.Element(new.func.value), *(cst.Element(arg.value) for arg in new.args)])
    read_locals = sorted(set().union(*(reads(operand) for operand in _operands(original))))
    arguments = [cond, string(original.func.attr.value), thunk(values, read_locals)]
    keywords = [string(arg.keyword.value) for arg in new.args if arg.keyword is not None]
    if keywords:  # the last of the thunk's values, in the call's order (Python evaluates them in that order)
        arguments.append(cst.Tuple([cst.Element(k) for k in keywords]))
    return runtime_call("predicated_update", arguments)


_BARE_RETURN = m.Return(value=None) | m.Return(value=m.Name("None"))


def _arm(body: Sequence[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], bool]:
    """An arm's statements without a last ``return`` (bare or ``return
    None``), and whether it had one."""
    if body and m.matches(_small(body[-1]), _BARE_RETURN):
        return list(body[:-1]), True
    return list(body), False


def _in_tail_position(function: cst.FunctionDef, node: cst.If) -> bool:
    """Whether control falls from ``node`` off the end of ``function``:
    ``node`` is the last statement of the body, or of an arm of an ``if``
    that is (as :func:`.returns.lower_returns` leaves the ``if`` an early
    return belongs to).  There, a ``return`` ending an arm does what
    falling off the end does."""
    pending = [statements(function.body)]
    while pending:
        block = pending.pop()
        last = block[-1] if block else None
        if last is node:
            return True
        if isinstance(last, cst.If):
            pending += [statements(last.body), else_statements(last)]
    return False


def _arms(node: cst.If) -> list[Sequence[cst.BaseStatement]] | None:
    """The statements of ``node``'s arm and of its ``else`` arm, if any
    (None for an ``elif`` or a one-line arm)."""
    if isinstance(node.orelse, cst.If) or not isinstance(node.body, cst.IndentedBlock):
        return None
    if node.orelse is None:
        return [node.body.body]
    if not isinstance(node.orelse.body, cst.IndentedBlock):
        return None
    return [node.body.body, node.orelse.body.body]


#: The runtime calls the statements of a predicated arm are made of.
_PREDICATED_CALLS = ("predicated_update", "predicated_call", "predicated_augment")


def _condition_of(statement: cst.CSTNode) -> tuple[str, int] | None:
    """``("cond", 12)`` for ``_gm_cond_12 = ...`` (``"else"`` for
    ``_gm_else_12``): a test this rule made for the ``if`` on line 12."""
    local = _local(statement)
    if local is None:
        return None
    kind, _, line = local.targets[0].target.value.removeprefix(GENERATED_PREFIX).rpartition("_")
    if local.targets[0].target.value.startswith(GENERATED_PREFIX) and kind in ("cond", "else") and line.isdigit():
        return kind, int(line)
    return None


def _is_predicated(statement: cst.CSTNode) -> bool:
    """Whether ``statement`` is one of those a predicated ``if`` became: a
    test, a predicated update or call, or a local bound by ``predicated_value``."""
    small = _small(statement)
    if isinstance(small, cst.Expr):
        return is_runtime_call(small.value, *_PREDICATED_CALLS)
    local = _local(statement)
    return local is not None and (is_runtime_call(local.value, "predicated_value") or
                                  _condition_of(statement) is not None)


def _aligned(ctx: Context, arm: Sequence[cst.BaseStatement], new_arm: Sequence[cst.BaseStatement]):
    """Each statement of an arm with what stands for it in the updated arm:
    the statement as the inner rules left it, or for an ``if`` nested in
    the arm, the statements this rule predicated it into (its own tests
    first, then those of the ``if``s nested in it, named by their lines).
    None where an ``if`` nested in the arm was not predicated."""
    pairs: list[tuple[cst.BaseStatement, list[cst.BaseStatement]]] = []
    position = 0
    for statement in arm:
        if not isinstance(statement, cst.If):
            if position == len(new_arm):
                return None
            pairs.append((statement, [new_arm[position]]))
            position += 1
            continue
        first = ctx.line(statement)
        lines = {first, *(ctx.line(inner) for inner in m.findall(statement, m.If()))}
        group: list[cst.BaseStatement] = []
        while position < len(new_arm) and _is_predicated(new_arm[position]):
            condition = _condition_of(new_arm[position])
            if condition is not None and condition[1] not in lines:
                break  # the next nested `if`'s
            group.append(new_arm[position])
            position += 1
        if not group or _condition_of(group[0]) != ("cond", first) or all(map(_condition_of, group)):
            return None  # not this rule's (a test alone: [Where]'s arms follow it)
        pairs.append((statement, group))
    return pairs if position == len(new_arm) else None


def _nested_under(ctx: Context, cond: cst.Name, nested: cst.If, group: Sequence[cst.BaseStatement]):
    """The statements an ``if`` nested in an arm was predicated into, its
    own tests now taken where the arm's ``cond`` holds as well: its test
    ``and_(cond, lambda: test)`` (eagerly Python's ``and``: the test read
    only where the arm is taken, as before), its ``else`` test
    ``and_(cond, lambda: not_(its test))`` (``cond and not (cond and test)``
    is ``cond and not test``).  Deeper tests are made of these already."""
    line = ctx.line(nested)
    out = []
    for statement in group:
        condition = _condition_of(statement)
        if condition is None or condition[1] != line:
            out.append(statement)
            continue
        local = _local(statement)
        reads = sorted(name for name in read_names(local.value)
                       if ctx.facts.is_local(name) or name.startswith(GENERATED_PREFIX))
        value = runtime_call("and_", [cond, thunk(local.value, reads)])
        out.append(statement.with_changes(body=[local.with_changes(value=value)]))
    return out


def convert_state_update(ctx: Context, original: cst.If, updated: cst.If):
    """Leave an ``if``: per-statement predicated updates, or ``updated``."""
    arms, new_arms = _arms(original), _arms(updated)
    facts = ctx.facts
    if facts is None or arms is None or new_arms is None or id(original) in ctx.elifs:
        return updated  # module-level code, an elif, a one-line arm
    (arms, returns), (new_arms, _) = zip(*map(_arm, arms)), zip(*map(_arm, new_arms))
    if any(returns) and not _in_tail_position(facts.function, original):
        return updated
    aligned = [_aligned(ctx, arm, new_arm) for arm, new_arm in zip(arms, new_arms)]
    if any(pairs is None for pairs in aligned):
        return updated  # an `if` nested in an arm stays an `if`
    pairs = [pair for arm_pairs in aligned for pair in arm_pairs]
    body = [statement for statement, _ in pairs]
    new_body = [None if isinstance(statement, cst.If) else group[0] for statement, group in pairs]
    nested = [isinstance(statement, cst.If) for statement in body]
    updates = [_update(statement) for statement in body]
    calls = [_helper_call(facts, statement) for statement in body]
    flags = [_python_flag(statement) for statement in body]
    local_values = [_local(statement) for statement in body]
    if not any(updates + calls + nested) or not all(map(any, zip(updates, calls, flags, local_values, nested))):
        return updated
    new_updates, new_calls, new_local_values = (
        [None if statement is None else kind(statement) for statement in new_body]
        for kind in (_update, lambda statement: _helper_call(facts, statement), _local))
    if any((a is None) != (b is None) for a, b in zip(updates + calls + local_values,
                                                      new_updates + new_calls + new_local_values)):
        return updated  # an inner rewrite changed a statement: not ours to predicate
    if not is_site(ctx, original, updated):
        return updated
    # Ours, declined: [Where]'s generic reason would hide this one.
    with declining(prefix="state update: ", final=True):
        flag = next((flag for flag in flags if flag is not None), None)
        if flag is not None:
            raise Declined(f"`{code(flag)}` stores a Python value under a tensor test, which `torch.where` cannot "
                           "select (a bool buffer updated with `.fill_(True)` can be)")
        test = lower_test(facts, original.test, updated.test, original)
        cond = generated("cond", ctx.line(original))
        _check_locals(facts, original, arms)
        statement_kinds = iter(zip(updates, calls, local_values))
        for arm in arms:
            bound = set(facts.bound_before(original))  # and the arm's own locals, once bound
            for statement in arm:
                update, call, local = next(statement_kinds)
                if update is not None:
                    _check(ctx, update, frozenset(bound))
                elif call is not None:
                    _check_call(ctx, call, frozenset(bound))
                elif local is not None:
                    _check_bound(facts, local.value, frozenset(bound))
                    bound.add(local.targets[0].target.value)
        # A helper, or an `if` in the arm, may update what the test reads, before its own later updates.
        frozen = runtime_call("frozen_test", [test]) if len(arms[0]) > 1 or any(calls + nested) else test
        statements_out: list[cst.BaseStatement] = [assign(cond, frozen)]
        conds = [cond]
        if len(arms) == 2 and arms[1]:
            # The else arm's test, taken before the first arm updates what the test reads.
            otherwise = generated("else", ctx.line(original))
            statements_out.append(assign(otherwise, runtime_call("not_", [cond])))
            conds.append(otherwise)
        arm_conds = [arm_cond for arm_cond, arm in zip(conds, arms) for _ in arm]  # one per statement
        for arm_cond, (statement, group), update, call, local, new_update, new_call, new_local in zip(
                arm_conds, pairs, updates, calls, local_values, new_updates, new_calls, new_local_values):
            if isinstance(statement, cst.If):
                statements_out += _nested_under(ctx, arm_cond, statement, group)
                continue
            if update is not None:
                predicated = _predicated(ctx, arm_cond, update, new_update)
            elif call is not None:
                predicated = runtime_call("predicated_call", [arm_cond, thunk(new_call, sorted(facts.own_reads(call)))])
            else:
                value = thunk(new_local.value, sorted(facts.own_reads(local.value)))
                statements_out.append(assign(new_local.targets[0].target, runtime_call("predicated_value",
                                                                                       [arm_cond, value])))
                continue
            statements_out.append(cst.SimpleStatementLine([cst.Expr(predicated)]))
    kinds = ", ".join(kind for kind, found in (("in-place update", any(updates)), ("helper call", any(calls)),
                                               ("local", any(local_values)), ("nested if", any(nested))) if found)
    ctx.record(original, "where", f"{'if/return' if any(returns) else 'if'}: {kinds} -> predicated")
    return replacing(updated, statements_out)
