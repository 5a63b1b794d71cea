"""The predicated form of an ``if``: both arms run, then their values merge.

Shared by the converters of :mod:`graphmend.rules.where`.  An *arm* is one
side of an ``if`` as the original statements (which the checks read, with
their facts) and the updated statements (which the copy is built from,
with the rewrites made inside them).  :func:`predicated` builds:

* each arm with private names (``v__then``), as a thunk returning the
  values its merges need; ``_graphmend.both_arms`` runs both, or gives the
  test's truth (eagerly, or when one fails or breaks the graph: the
  original arm runs);
* a *gate* per arm that holds something to gate (``_gm_then_12 =
  _graphmend.arm(cond, True)``): deferred messages, checks and raises in
  the arm happen only when it was taken, and the gates of ``if``s nested in
  it are and-ed with it;
* ``raise`` as a gated deferred raise; ``return x`` as an assignment to the
  arm's return variable;
* the merges: every name live after the ``if`` (``v = where(cond, v__then,
  v__else)``), module attributes and buffers (``store_buffer``), the
  return value, or the other arm's value when one arm always raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
import enum

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.bindings import (
    assigned_targets,
    code,
    definitely_bound,
    else_statements,
    following,
    path_to,
    read_before_bound,
    statements,
    walk,
    walk_own,
)
from graphmend.analysis.gradients import RETURN, arm_dependencies, one_sided, read_chains
from graphmend.conventions import GENERATED_PREFIX
from graphmend.rules import trap
from graphmend.rules.base import (
    Context,
    Declined,
    assign,
    generated,
    is_runtime_call,
    keyword,
    runtime_call,
    runtime_function,
    statement_thunk,
)
from graphmend.rules.defer import DEFERRED_CALLS
from graphmend.rules.library_predicates import ITEM

#: Runtime calls a gate reaches.
GATED_CALLS = (*DEFERRED_CALLS, *trap.DEFERRED_CHECKS, "masked_store")

REGISTER_BUFFER = m.Expr(
    m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("register_buffer")),
           args=[m.Arg(m.SimpleString(), keyword=None), m.Arg(keyword=None), m.ZeroOrMore()])
)
_BOOL_LITERAL = m.Name("True") | m.Name("False")
_LAZY_INIT_TEST = m.UnaryOperation(
    operator=m.Not(), expression=m.Call(func=m.Name("hasattr"), args=[m.Arg(m.Name()), m.Arg(m.SimpleString())])
)


@dataclass
class Arm:
    """One side of an ``if``."""

    suffix: str  # "then" / "else"
    original: list[cst.CSTNode]
    updated: list[cst.CSTNode]
    taken: bool = True  # the arm runs when the test is true


@dataclass
class Targets:
    """What an arm binds: local names, and stores into ``obj.attr``."""

    names: list[str] = field(default_factory=list)
    attributes: dict[tuple[str, str], str | None] = field(default_factory=dict)  # -> buffer persistence
    caches: set[tuple[str, str]] = field(default_factory=set)  # memoised by ``if not hasattr``

    def add_name(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)


def buffer_store(expr: cst.Expr) -> tuple[str, str, str]:
    """(object name, buffer name, persistence code) of a register_buffer call."""
    call = expr.value
    persistent = "True"
    for position, arg in enumerate(call.args):
        if (arg.keyword and arg.keyword.value == "persistent") or (arg.keyword is None and position == 2):
            persistent = code(arg.value)
    return call.func.value.value, call.args[0].value.evaluated_value, persistent


def is_lazy_init(statement: cst.CSTNode) -> bool:
    """``if not hasattr(obj, "a"): obj.a = ...`` (targets ``obj.a`` and names only)."""
    if not (m.matches(statement, m.If(test=_LAZY_INIT_TEST)) and statement.orelse is None):
        return False
    obj = statement.test.expression.args[0].value.value
    attr = statement.test.expression.args[1].value.evaluated_value
    wanted = m.Attribute(value=m.Name(obj), attr=m.Name(attr))
    for line in statements(statement.body):
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        for small in line.body:
            if not isinstance(small, cst.Assign):
                return False
            for target in small.targets:
                parts = target.target.elements if isinstance(target.target, cst.Tuple) else [target.target]
                values = [p.value if isinstance(p, cst.Element) else p for p in parts]
                if not all(isinstance(v, cst.Name) or m.matches(v, wanted) for v in values):
                    return False
    return True


def collect_targets(body: Sequence[cst.CSTNode], targets: Targets) -> None:
    """Everything ``body`` binds (recursing into nested ifs)."""
    for statement in body:
        if isinstance(statement, cst.If):
            lazy = is_lazy_init(statement)
            for branch in (statement.body, statement.orelse):
                if isinstance(branch, cst.If):
                    collect_targets([branch], targets)
                elif branch is not None:
                    inner = Targets() if lazy else targets
                    collect_targets(statements(branch.body if isinstance(branch, cst.Else) else branch), inner)
                    if lazy:  # a memoised attribute is computed, never merged
                        for name in inner.names:
                            targets.add_name(name)
                        targets.caches.update(inner.attributes)
            continue
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if m.matches(small, REGISTER_BUFFER):
                obj, name, persistent = buffer_store(small)
                targets.attributes[(obj, name)] = persistent
            for target in assigned_targets(small):
                _collect_target(target, targets)


def _collect_target(target: cst.BaseExpression, targets: Targets) -> None:
    if isinstance(target, cst.Name):
        targets.add_name(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _collect_target(element.value, targets)
    elif m.matches(target, m.Attribute(value=m.Name())):
        targets.attributes.setdefault((target.value.value, target.attr.value), None)


def _attribute_read_before_stored(body: Sequence[cst.CSTNode], obj: str, attr: str) -> bool:
    wanted = m.Attribute(value=m.Name(obj), attr=m.Name(attr))
    for statement in body:
        stored = False
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                values = [small.value] if isinstance(small, (cst.Assign, cst.AnnAssign)) else [small]
                if any(m.matches(n, wanted) for v in values if v is not None for n in walk(v)):
                    return True
                if m.matches(small, REGISTER_BUFFER) and buffer_store(small)[:2] == (obj, attr):
                    stored = True
                if any(m.matches(t, wanted) for t in assigned_targets(small)):
                    stored = True
        elif any(m.matches(n, wanted) for n in walk(statement)):
            return True
        if stored:
            return False
    return False


def always_raises(body: Sequence[cst.CSTNode]) -> bool:
    """Whether every path through ``body`` ends in ``raise``."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            if any(isinstance(s, cst.Raise) for s in statement.body):
                return True
            if any(isinstance(s, (cst.Return, cst.Break, cst.Continue)) for s in statement.body):
                return False
        elif isinstance(statement, cst.If) and statement.orelse is not None:
            if always_raises(statements(statement.body)) and always_raises(else_statements(statement)):
                return True
    return False


def always_returns(body: Sequence[cst.CSTNode]) -> bool:
    """Whether every path through ``body`` ends in ``return`` (or ``raise``)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            if any(isinstance(s, (cst.Return, cst.Raise)) for s in statement.body):
                return True
        elif isinstance(statement, cst.If) and statement.orelse is not None:
            if always_returns(statements(statement.body)) and always_returns(else_statements(statement)):
                return True
    return False


class _Renamer(cst.CSTTransformer):
    """Gives one arm private names: locals and ``obj.attr`` stores become
    ``<name>__<suffix>`` so both arms can run one after the other."""

    def __init__(self, names: dict[str, str], attributes: dict[tuple[str, str], str]) -> None:
        super().__init__()
        self.names = names
        self.attributes = attributes

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value=self.names.get(updated_node.value, updated_node.value))

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        updated_node = updated_node.with_changes(attr=original_node.attr)
        if isinstance(original_node.value, cst.Name):
            key = (original_node.value.value, original_node.attr.value)
            if key in self.attributes:
                return cst.Name(self.attributes[key])
        return updated_node

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        """A memoised attribute is read when present, computed when not."""
        if not is_lazy_init(original_node):
            return updated_node
        obj, attr = (arg.value for arg in original_node.test.expression.args)
        key = (obj.value, attr.evaluated_value)
        if key not in self.attributes:
            return updated_node
        present = assign(cst.Name(self.attributes[key]), cst.Attribute(cst.Name(key[0]), cst.Name(key[1])))
        return updated_node.with_changes(orelse=cst.Else(cst.IndentedBlock([present])))

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.BaseSmallStatement:
        if m.matches(original_node, REGISTER_BUFFER):
            key = buffer_store(original_node)[:2]
            if key in self.attributes:
                return cst.Assign([cst.AssignTarget(cst.Name(self.attributes[key]))], updated_node.value.args[1].value)
        return updated_node


class _Gate(cst.CSTTransformer):
    """Gates what an arm's copy does only when the arm was taken: deferred
    calls and checks get ``gate=``, and the gates of ``if``s nested in the
    arm (``arm(c, taken)``) get this one as their outer gate."""

    def __init__(self, gate: cst.Name) -> None:
        super().__init__()
        self.gate = gate
        self.used = False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False  # a conditional expression's thunk holds no gated call

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node.name.value.startswith(GENERATED_PREFIX)  # the arms of a nested if, not the user's code

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if is_runtime_call(updated_node, "arm") and len(updated_node.args) == 2:
            self.used = True
            return updated_node.with_changes(args=[*updated_node.args, cst.Arg(self.gate)])
        if is_runtime_call(updated_node, *GATED_CALLS) and not any(
            a.keyword is not None and a.keyword.value == "gate" for a in updated_node.args
        ):
            self.used = True
            args = list(updated_node.args)
            if args and not isinstance(args[-1].comma, cst.Comma):
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated_node.with_changes(args=[*args, keyword("gate", self.gate)])
        return updated_node


class _Returns(cst.CSTTransformer):
    """``return x`` -> ``<variable> = x`` in an arm's copy (every return ends its path)."""

    def __init__(self, variable: cst.Name) -> None:
        super().__init__()
        self.variable = variable

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Assign:
        value = updated_node.value or cst.Name("None")
        if isinstance(value, cst.Tuple) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Assign([cst.AssignTarget(self.variable)], value)


class _Raises(cst.CSTTransformer):
    """``raise E(...)`` -> a deferred raise, in an arm's copy."""

    def __init__(self, ctx: Context, root: cst.CSTNode, path: Sequence[cst.CSTNode]) -> None:
        super().__init__()
        self.ctx = ctx
        self.root = root  # the original if, whose path from the module is ``path``
        self.path = list(path)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def leave_SimpleStatementLine(self, original_node, updated_node):
        body = []
        for engine_small, small in zip(original_node.body, updated_node.body):
            if isinstance(small, cst.Raise):
                original = self.ctx.original(engine_small)
                if original is None:
                    raise Declined("a raise the rules rewrote")
                inside = path_to(self.root, original)
                if inside is None:
                    raise Declined("a raise outside the if")
                lowered = trap.deferred_raise(self.ctx, original, [*self.path, *inside[1:]])
                body.extend(lowered.body)
            else:
                body.append(small)
        return updated_node.with_changes(body=body)


@dataclass
class Predicated:
    """The predicated form of an ``if``: what runs before its dispatch (the
    arms as thunks, and both run), the dispatch's test and its body (the
    merges), and the test that picks the original arm when it does not apply."""

    prelude: list[cst.BaseStatement]
    test: cst.BaseExpression
    body: list[cst.BaseStatement]
    choice: cst.BaseExpression


class Gradients(enum.Enum):
    """How the merges of an ``if`` may apply under autograd."""

    # Every operation's derivative is independent of values: torch.where is
    # exact but for zero signs, torch.cond (when each arm reads its inputs once) exact.
    WHERE = "where"
    COND = "cond"  # otherwise: one torch.cond over the arms, when each reads its inputs once
    NEITHER = "neither"  # a merged value's grad_fn is read: its name would change


def predicated(ctx: Context, original: cst.If, cond: cst.Name, arms: Sequence[Arm], *,
               returns: bool, gradients: Gradients) -> Predicated:
    """Both arms with private names and gates, as thunks, then the merges
    (see the module docstring).  ``returns``: every path through both arms
    returns."""
    line = ctx.line(original)
    bound = _check_arms(ctx, original, arms, returns)
    by_cond = None
    # Merged as 0-dim bool tensors, truth values carry no gradient.
    graded = [*(n for n in bound.names if n in bound.live and n not in bound.truth_values),
              *([RETURN] if returns else [])]
    if gradients is not Gradients.NEITHER and graded and not (any(bound.raising) or bound.attributes):
        by_cond = _cond_sources(ctx, original, arms, graded)
    path = [*ctx.ancestors]
    thunks = [_arm_thunk(ctx, original, cond, arm, raises, bound, by_cond is not None, returns, path)
              for arm, raises in zip(arms, bound.raising)]
    prelude = [thunk.definition for thunk in thunks if thunk.definition is not None]
    arms_value = generated("arms", line)
    both = [cond, *(thunk.name for thunk in thunks)]
    if by_cond is not None:
        both.append(keyword("by_cond", chain_values(by_cond)))
        if gradients is Gradients.WHERE:
            both.append(keyword("linear", cst.Name("True")))
    prelude.append(assign(arms_value, runtime_call("both_arms", both)))
    body: list[cst.BaseStatement] = []
    results_of_both = [cst.Element(cst.Name(name)) for thunk in thunks for name in thunk.exported]
    if results_of_both:
        body.append(assign(cst.Tuple(results_of_both, lpar=[], rpar=[]), arms_value))
    body.extend(_merges(ctx, original, cond, arms, bound, thunks, returns=returns, gradients=gradients))
    merged = cst.Call(cst.Name("isinstance"), [cst.Arg(arms_value), cst.Arg(cst.Name("tuple"))])
    return Predicated(prelude, merged, body or [cst.SimpleStatementLine([cst.Pass()])], choice=arms_value)


#: A number written in the source: ``0.``, ``-1``, ``True``.
NUMBER_LITERAL = (m.Integer() | m.Float() | m.Name("True") | m.Name("False")
                  | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float()))


@dataclass
class _Bound:
    """What the arms of an ``if`` bind, as :func:`predicated` merges it."""

    raising: list[bool]  # per arm: it always raises
    targets: dict[str, Targets]  # per arm, by suffix
    names: list[str]  # the local names either arm binds, in order
    live: set[str]  # those read after the ``if``
    attributes: dict[tuple[str, str], str | None]  # the attributes either arm stores -> buffer persistence
    truth_values: set[str]  # live names merged as truth values


def _check_arms(ctx: Context, original: cst.If, arms: Sequence[Arm], returns: bool) -> _Bound:
    """What the arms bind, or why they cannot be predicated: both raise, a
    branch returns a Python value, one binds a global, stores an attribute
    both as a buffer and otherwise or stores one while the other raises, a
    live name is bound to a constant, or a branch sizes a tensor by the
    test's value."""
    facts = ctx.facts
    raising = [always_raises(arm.original) for arm in arms]
    if all(raising):
        raise Declined("both branches raise")
    if returns:
        returned = [node for arm in arms for statement in arm.original for node in walk_own(statement)
                    if isinstance(node, cst.Return)]
        # `return 0.` beside `return t.item()`: two Python numbers, which the runtime merges where
        # they are of one type (see graphmend.runtime.where).
        read_back = any(m.matches(node.value, ITEM) for node in returned)
        for node in returned:
            if node.value is None or facts.is_static(node.value) and not (read_back and m.matches(
                    node.value, NUMBER_LITERAL)):
                shown = code(node.value) if node.value is not None else "None"
                raise Declined(f"a branch returns `{shown}`, which is not a tensor")
    targets = {}
    for arm in arms:
        targets[arm.suffix] = Targets()
        collect_targets(arm.updated, targets[arm.suffix])
    names = list(dict.fromkeys(n for arm in arms for n in targets[arm.suffix].names))
    live = set() if returns else facts.live_after(original, names)
    for name in sorted(facts.declared_global.intersection(names)):
        raise Declined(f"`{name}` is not a local of the function")
    attributes = {k: v for arm in arms for k, v in targets[arm.suffix].attributes.items()}
    for key in attributes:
        persistence = {t.attributes[key] for t in targets.values() if key in t.attributes}
        if len(persistence) > 1:
            raise Declined(f"`{key[0]}.{key[1]}` is stored both as a buffer and otherwise")
    if any(raising) and attributes:
        raise Declined("a branch raises and the other stores attributes")
    truth_values = _check_not_constant(ctx, arms, live)
    _check_static_sizes(ctx, original, arms)
    return _Bound(raising, targets, names, live, attributes, truth_values)


@dataclass
class _ArmThunk:
    """One arm as :func:`predicated` runs it: the thunk (or the runtime's
    empty arm), the names it returns, and its value of each merged name,
    attribute and result."""

    name: cst.BaseExpression
    definition: cst.FunctionDef | None
    exported: list[str]
    values: dict[str | tuple[str, str], cst.BaseExpression]
    result: cst.Name | None


def _arm_thunk(ctx: Context, original: cst.If, cond: cst.Name, arm: Arm, raises: bool, bound: _Bound,
               by_cond: bool, returns: bool, path: list[cst.CSTNode]) -> _ArmThunk:
    """``arm`` with private names (``y__then``) for what it binds, its
    effects gated by the test, its raises deferred, as a thunk that returns
    what is merged after the ``if``."""
    facts = ctx.facts
    line = ctx.line(original)
    bound_before = facts.bound_before(original)
    names, live, attributes = bound.names, bound.live, bound.attributes
    targets = bound.targets[arm.suffix]
    carried = list(targets.names)
    if by_cond:  # torch.cond's branches give every merged value, the one from before the if too
        carried += [n for n in names if n in live and n not in targets.names and n in bound_before]
    renamed_names = {n: f"{n}__{arm.suffix}" for n in carried}
    renamed_attributes = {k: f"{k[0]}_{k[1]}__{arm.suffix}" for k in (*targets.attributes, *targets.caches)}
    renamed_names = _without_clashes(renamed_names, set(renamed_attributes.values()), arm)
    copy: list[cst.BaseStatement] = []
    for name in carried:
        if read_before_bound(arm.updated, name) or (
            name in live and name not in definitely_bound(arm.updated) and not raises
        ):
            if name not in bound_before:
                raise Declined(f"`{name}` may be unbound before the if")
            copy.append(assign(cst.Name(renamed_names[name]), cst.Name(name)))
    for obj, attr in targets.attributes:
        if _attribute_read_before_stored(arm.updated, obj, attr):
            copy.append(assign(cst.Name(renamed_attributes[(obj, attr)]), cst.Attribute(cst.Name(obj), cst.Name(attr))))
    statements_ = list(arm.updated)
    if _has_raise(statements_):
        statements_ = [s.visit(_Raises(ctx, original, path)) for s in statements_]
    renamer = _Renamer(renamed_names, renamed_attributes)
    copy.extend(statement.visit(renamer) for statement in statements_)
    # An attribute the other arm stores and this one leaves is read at the
    # end of this arm, inside both_arms: where it does not exist yet (the
    # other arm creates it, as pomegranate's `_reset_cache` registers its
    # buffers), both_arms catches the AttributeError and the original `if`
    # runs.  Read after both_arms, the error was raised in the traced frame,
    # which Dynamo then ran eagerly whole.  (No arm raises where an arm
    # stores attributes: _check_arms declines that.)
    left = {key: f"{key[0]}_{key[1]}__{arm.suffix}" for key in attributes if key not in renamed_attributes}
    renamed_attributes.update(left)
    copy.extend(assign(cst.Name(renamed_attributes[key]), cst.Attribute(cst.Name(key[0]), cst.Name(key[1])))
                for key in left)
    result = None
    if returns:
        result = cst.Name(f"{generated('return', line).value}__{arm.suffix}")
        copy = [s.visit(_Returns(result)) for s in copy]
    gate_name = cst.Name(f"{generated(arm.suffix, line).value}")
    gate = _Gate(gate_name)
    arm_body = [s.visit(gate) for s in copy]
    read_locals = sorted(set().union(*(facts.own_reads(s) for s in arm_body)))
    unbound = [name for name in read_locals if name not in bound_before]
    if unbound:
        raise Declined(f"`{unbound[0]}` may be unbound before the if, and a branch reads it")
    if gate.used:
        arm_body.insert(0, assign(gate_name, runtime_call("arm", [cond, cst.Name(str(arm.taken))])))
        read_locals.append(cond.value)
    values: dict[str | tuple[str, str], cst.BaseExpression] = {
        name: cst.Name(renamed_names.get(name, name)) for name in names}
    values.update((key, cst.Name(renamed_attributes[key])) for key in attributes)
    exported = [] if raises else [
        *(renamed_names[name] for name in names if name in live and name in renamed_names),
        *(renamed_attributes[key] for key in attributes),
        *([result.value] if returns else []),
    ]
    if not arm_body:  # an else-less if: the arm computes nothing
        return _ArmThunk(runtime_function("empty_arm"), None, exported, values, result)
    thunk_name = generated(f"{arm.suffix}_arm", line)
    return _ArmThunk(thunk_name, statement_thunk(thunk_name, arm_body, exported, read_locals), exported, values,
                     result)


def _merges(ctx: Context, original: cst.If, cond: cst.Name, arms: Sequence[Arm], bound: _Bound,
            thunks: Sequence[_ArmThunk], *, returns: bool, gradients: Gradients) -> list[cst.BaseStatement]:
    """After both arms ran: each live name, each stored attribute (rebound,
    or a buffer updated in place) and the result, merged by the test."""
    facts = ctx.facts
    bound_before = facts.bound_before(original)
    then_raises, else_raises = bound.raising
    by_suffix = {arm.suffix: thunk for arm, thunk in zip(arms, thunks)}
    then, else_ = by_suffix["then"], by_suffix["else"]

    def merge(a: cst.BaseExpression, b: cst.BaseExpression, target: str) -> cst.BaseExpression:
        if then_raises:
            return b
        if else_raises:
            return a
        args = [cond, a, b]
        if target in bound.truth_values:  # merged as 0-dim bool tensors: no gradient to mind
            return runtime_call("where", [*args, keyword("truth", cst.Name("True"))])
        sources = _gradient_sources(facts, original, arms, target) if gradients is Gradients.WHERE else None
        if sources is not None:
            args.append(keyword("grad", cst.Name("True")))
        if sources:
            args.append(keyword("one_sided", chain_values(sources)))
        return runtime_call("where", args)

    body: list[cst.BaseStatement] = []
    for name in bound.names:
        if name not in bound.live:
            continue
        for arm, raises in zip(arms, bound.raising):
            if not raises and name not in bound.targets[arm.suffix].names and name not in bound_before:
                raise Declined(f"`{name}` is bound in one branch only and maybe not before the if")
        body.append(assign(cst.Name(name), merge(then.values[name], else_.values[name], name)))
    merged = []
    for (obj, attr), persistence in bound.attributes.items():
        temp = cst.Name(f"{obj}_{attr}__merged")
        body.append(assign(temp, merge(then.values[(obj, attr)], else_.values[(obj, attr)], f"{obj}.{attr}")))
        merged.append(((obj, attr), persistence, temp))
    # Rebinding attributes first: a buffer another attribute aliased
    # (Phi-3's original_inv_freq) is then free to be updated in place.
    for (obj, attr), persistence, temp in sorted(merged, key=lambda item: item[1] is not None):
        if persistence is None:
            body.append(assign(cst.Attribute(cst.Name(obj), cst.Name(attr)), temp))
        else:
            store = runtime_call("store_buffer", [cst.Name(obj), cst.SimpleString(f'"{attr}"'), temp,
                                                  keyword("persistent", cst.parse_expression(persistence))])
            body.append(cst.SimpleStatementLine([cst.Expr(store)]))
    if returns:
        body.append(cst.SimpleStatementLine([cst.Return(merge(then.result, else_.result, RETURN))]))
    return body


def _without_clashes(renames: dict[str, str], also_taken: set[str], arm: Arm) -> dict[str, str]:
    """``renames`` extended so that no new name is one the arm already uses.

    The arm's own bindings are renamed, but a nested ``if`` mended inside it
    already made private names in its arms' thunks (``b__then`` there,
    where this arm renames its ``b`` to ``b__then``): those are renamed too,
    as many times over as it takes, so the renaming stays one to one."""
    used = {node.value for statement in arm.updated for node in walk(statement) if isinstance(node, cst.Name)}
    renames = dict(renames)
    while clashes := (used & (set(renames.values()) | also_taken)) - set(renames):
        renames.update((name, f"{name}__{arm.suffix}") for name in clashes)
    return renames


def _gradient_sources(facts, original: cst.If, arms: Sequence[Arm], target: str, by_cond: bool = False
                      ) -> list[str] | None:
    """What the merge of ``target`` must find free of gradients (see
    :mod:`graphmend.analysis.gradients`); None when it cannot be read there.
    ``by_cond``: for ``torch.cond``, which gives a value only one arm reads a
    zero gradient of its own, so what both arms reach through the
    assignments before the ``if`` is no cover (see :func:`_cond_sources`)."""
    deps = [arm_dependencies(arm.original, target, facts.qualified_name) for arm in arms]
    reached = None if by_cond else facts.reached_before(original)
    return facts.gradient_sources(one_sided(*deps, reached), original)


#: Runtime helpers an arm may call inside ``torch.cond``: they have no effects.
_PURE_HELPERS = frozenset({"both_arms", "where", "select", "empty_arm", "nonnegative_row", "not_", "and_", "or_",
                           "exact_item", "exact_float", "exact_int", "arange_list"})


def fits_cond(facts, original: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode],
              after: Sequence[cst.CSTNode]) -> bool:
    """Whether an arm (its ``original`` and rewritten nodes) may run inside
    ``torch.cond`` with exact gradients: it reads every value that may
    carry a gradient once along any path, calls no runtime helper with
    effects, and nothing in ``after`` (the code that may run after it)
    updates in place a tensor it reads.  ``torch.cond`` saves its operands
    for its backward, where the arm's own operations may save none
    (``x / 3``): a later ``x[m] = ...`` would make the backward raise where
    the original's does not (found by the fuzzer)."""
    return facts.read_more_than_once(original) is None and not any(
        is_runtime_call(node) and not is_runtime_call(node, *_PURE_HELPERS)
        for statement in updated for node in walk(statement)) and facts.in_place_hazard(
        set().union(*(read_chains(node) for node in original)), list(after)) is None


def _cond_sources(ctx: Context, original: cst.If, arms: Sequence[Arm], targets: Sequence[str]) -> list[str] | None:
    """What must not require grad for the arms to merge as one ``torch.cond``
    under autograd (``runtime.both_arms``'s ``by_cond``), or None where they
    may not: an arm reads a value that may carry a gradient more than once,
    or calls a runtime helper with effects, or a merge's sources cannot be
    read before the ``if``.

    A value only one arm reads gets a zero gradient from ``torch.cond``
    when the other arm runs, even where a gradient reaches it anyway, as
    ``x`` through ``v0 = x.abs()`` when the other arm reads ``v0``: summed
    with that one, ``+0.0`` turns an exact ``-0.0`` into ``0.0`` (found by
    the fuzzer).  So it counts here, unlike for ``torch.where``'s merge."""
    facts = ctx.facts
    after = [original, *following(ctx.ancestors)]
    if not all(fits_cond(facts, arm.original, arm.updated, after) for arm in arms):
        return None
    sources: set[str] = set()
    for target in targets:
        found = _gradient_sources(facts, original, arms, target, by_cond=True)
        if found is None:
            return None
        sources.update(found)
    return sorted(sources)


def chain_values(chains: Sequence[str]) -> cst.Tuple:
    """``(a, self.b)``: the values of dotted ``chains``."""
    return cst.Tuple([cst.Element(cst.parse_expression(chain)) for chain in chains])


def _has_raise(body: Sequence[cst.CSTNode]) -> bool:
    return any(isinstance(node, cst.Raise) for statement in body for node in walk(statement))


def _check_not_constant(ctx: Context, arms: Sequence[Arm], live: set[str]) -> set[str]:
    """A live name bound to a Python constant cannot be selected by
    torch.where, but for ``True``/``False`` bound to a name the function
    reads only for its truth (``accept = False`` before ``if accept:``):
    those names are returned, to be merged as truth values."""
    truth_values = set()
    for arm in arms:
        for statement in arm.original:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and ctx.facts.is_static(small.value):
                    for target in assigned_targets(small):
                        if not (isinstance(target, cst.Name) and target.value in live):
                            continue
                        if not m.matches(small.value, _BOOL_LITERAL):
                            raise Declined(f"`{target.value}` is not a tensor")
                        if target.value not in ctx.facts.truth_only:
                            raise Declined(f"`{target.value}` is a bool the function reads for more than its truth")
                        truth_values.add(target.value)
    return truth_values


def _check_static_sizes(ctx: Context, original: cst.If, arms: Sequence[Arm]) -> None:
    """Decline where a branch sizes a tensor by a value the test's tensor may
    have given (``F.pad(x, (0, n))`` with ``n = max_pad - length + 1`` under
    ``if length <= max_pad:``, ``max_pad`` a tensor): the branch's shapes
    would depend on the data, which ``torch.where`` cannot merge and Dynamo
    breaks on inside the branch, so the rewrite would keep the break.  The
    names that may carry the test's tensor are those the test reads that are
    not sizes (:attr:`~graphmend.analysis.facts.FunctionFacts.sizes`), and
    what the branches compute from them."""
    facts = ctx.facts
    carried = {n.value for n in m.findall(original.test, m.Name())} - facts.sizes
    if not carried:
        return
    statements_ = [s for arm in arms for s in arm.original]
    changed = True
    while changed:  # what the branches compute from them, to a fixed point
        changed = False
        for statement in statements_:
            for assignment in m.findall(statement, m.Assign(targets=[m.AssignTarget(m.Name())])):
                target = assignment.targets[0].target.value
                if target not in carried and not facts.is_static_size(assignment.value) and _reads(
                        assignment.value, carried):
                    carried.add(target)
                    changed = True
    for statement in statements_:
        for call in m.findall(statement, m.Call()):
            for size in _size_arguments(facts, call):
                if not facts.is_static_size(size) and _reads(size, carried):
                    raise Declined(f"`{code(size)}` sizes `{code(call.func)}()` and may be a tensor: "
                                   "the branch's shapes would depend on the data")


def _reads(expr: cst.BaseExpression, names: set[str]) -> bool:
    return any(n.value in names for n in m.findall(expr, m.Name()))


def _size_arguments(facts, call: cst.Call) -> list[cst.BaseExpression]:
    """The arguments of ``call`` that are sizes (:data:`vocabulary.SIZE_FUNCTION_POSITIONS`)."""
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else (
        call.func.value if isinstance(call.func, cst.Name) else None)
    qualified = facts.qualified_name(call.func)
    if qualified is not None and qualified.rpartition(".")[0] in vocabulary.OPERATION_NAMESPACES:
        positions = vocabulary.SIZE_FUNCTION_POSITIONS.get(name, ())
    elif isinstance(call.func, cst.Attribute) and name in vocabulary.SIZE_METHODS:
        positions = None
    else:
        return []
    positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
    sizes = positional if positions is None else [positional[i] for i in positions if i < len(positional)]
    return sizes + [a.value for a in call.args if a.keyword is not None and a.keyword.value in vocabulary.SIZE_KEYWORDS]
