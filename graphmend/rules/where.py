"""[Where] predicated control flow (SPEC 3.1).

What it does
    Rewrites an ``if`` whose test is a tensor, and whose branches only
    compute values, into code that evaluates both branches and merges every
    name they bind with ``torch.where``.  Also: ``elif`` chains and nested
    ``if``s, conditional expressions (``a if T else b``), an ``if`` whose
    branches end in ``return`` (one ``return torch.where(...)``, leaf by leaf
    over equal pytrees), stores into module attributes and buffers
    (``self.x = ...``, ``self.register_buffer("x", ...)``), a test
    ``static and T`` (the static half stays a Python ``if``), ``A or B`` /
    ``A and B`` of provably bool 0-dim tensors (``|``/``&``), and scalar
    predicates (``t.item() > 3``, ``float(t) < 0.5``, ``int(t) == 2``,
    ``bool(t)``) compared exactly.

Why it breaks the graph
    ``if T:`` calls ``bool(T)``; Dynamo cannot trace a Python branch on a
    tensor's value, so it compiles the graph so far and resumes after it.

Before
    ::

        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

After
    ::

        if hidden_states.dtype == torch.float16:
            _gm_cond_1 = torch.isinf(hidden_states).any() | torch.isnan(hidden_states).any()
            if _graphmend.is_tensor(_gm_cond_1):
                hidden_states__then = hidden_states
                clamp_value__then = torch.finfo(hidden_states__then.dtype).max - 1000
                hidden_states__then = torch.clamp(hidden_states__then, min=-clamp_value__then, ...)
                hidden_states = _graphmend.where(_gm_cond_1, hidden_states__then, hidden_states)
            elif _gm_cond_1:
                clamp_value = torch.finfo(hidden_states.dtype).max - 1000
                hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

Safety
    * Dispatch at run time: when the test is not a tensor (a Python bool),
      or the code runs eagerly, the original branch code runs exactly as
      before; Dynamo folds the ``is_tensor`` check to a constant.
    * A conditional expression becomes ``_graphmend.select(T, lambda a=a:
      ..., lambda b=b: ...)``: the locals a branch reads are default
      arguments (a closure would make them cells, which Dynamo's resume
      functions read as free variables), so each must be bound before the
      expression; a thunk that raises under torch.compile makes the
      original choice.
    * Both branches must be free of effects and must not raise when not
      taken: only known-pure ``torch`` functions and tensor methods, pure
      builtins, slice indexing; no I/O, ``raise``, loops, in-place or
      augmented assignment, item assignment, calls of unknown functions.
      The one exception is memoised initialisation,
      ``if not hasattr(obj, "a"): obj.a = ...`` (Phi-3's ``long_inv_freq``):
      the predicated form reads ``obj.a`` when it exists and otherwise
      computes it into a local, without storing it.  Storing it would set
      state a branch not taken never sets, and under ``torch.compile`` the
      changed ``hasattr`` guard would recompile the next call; computing it
      again gives the same value (the initialiser is assumed to be
      deterministic, as a memo must be).  The memo is filled when the
      original branch code runs (a Python bool test).
    * A name bound in one branch only must be bound before the ``if``; a
      name read later must be merged, a name no code reads again is not.
      Merges whose value is a Python constant in a branch are declined
      (``torch.where`` cannot select non-tensors).
    * ``_graphmend.where`` selects with ``torch.where`` only when the test
      is a one-element tensor and both values have the same dtype, shape,
      device and layout (so no promotion or broadcast can change a bit);
      otherwise it makes the original Python choice, ``bool()`` and its
      errors included.
    * Training: under autograd (grad enabled and a value requiring grad)
      ``_graphmend.where`` also makes the Python choice.  ``torch.where``
      would give the unselected branch zero gradients (``None`` in the
      original) and turn an ``inf`` local derivative there into NaN;
      ``torch.cond`` would keep the gradients but needs the branches as
      functions of equal outputs, which buffer stores and pytree returns
      are not.  So training keeps the original's graph break and exact
      gradients, and inference loses it.
    * Buffers are updated in place (``copy_``) when no other attribute of
      the module is the same tensor (Phi-3's ``original_inv_freq`` starts as
      ``inv_freq``); otherwise they are re-registered, as before.
    * Functions that may update tensors in place anywhere (``x.add_()``,
      ``x[i] = y``, ``x += y``) are left alone: a merged value is a new
      tensor, so an alias the original had (``v = x if T else y`` followed
      by ``v.mul_(2)`` updates ``y`` when ``T`` is false) would be lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import FunctionScope as ScopeOfFunction, QualifiedNameProvider, ScopeProvider

from graphmend.analysis.bindings import FunctionScope, name_uses, target_names, walk
from graphmend.analysis.purity import call_impurity, expression_impurity
from graphmend.analysis.tensorness import (
    Tensorness,
    classify,
    is_bool_scalar,
    tensor_names,
)
from graphmend.rules.base import RUNTIME_ALIAS, Declined, Rule, runtime_call, thunk


#: Largest integer a float64 holds exactly (a literal compared in float64).
_EXACT_FLOAT64_INT = 2**53


def _call(function: str, *args: cst.BaseExpression) -> cst.Call:
    return runtime_call(function, args)


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _statements(body: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [cst.SimpleStatementLine(list(body.body))]  # ``if t: x = 1`` on one line


@dataclass
class _Targets:
    """What a branch binds: local names, and stores into ``obj.attr``."""

    names: list[str] = field(default_factory=list)
    attributes: dict[tuple[str, str], str | None] = field(default_factory=dict)  # -> buffer persistence
    caches: set[tuple[str, str]] = field(default_factory=set)  # memoised by ``if not hasattr``

    def add_name(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)


_REGISTER_BUFFER = m.Expr(
    m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("register_buffer")),
           args=[m.Arg(m.SimpleString(), keyword=None), m.Arg(keyword=None), m.ZeroOrMore()])
)
_LAZY_INIT_TEST = m.UnaryOperation(
    operator=m.Not(), expression=m.Call(func=m.Name("hasattr"), args=[m.Arg(m.Name()), m.Arg(m.SimpleString())])
)


def _buffer_store(expr: cst.Expr) -> tuple[str, str, str]:
    """(object name, buffer name, persistence code) of a register_buffer call."""
    call = expr.value
    persistent = "True"
    for position, arg in enumerate(call.args):
        if (arg.keyword and arg.keyword.value == "persistent") or (arg.keyword is None and position == 2):
            persistent = _code(arg.value)
    return call.func.value.value, call.args[0].value.evaluated_value, persistent


def _is_lazy_init(statement: cst.CSTNode) -> bool:
    """``if not hasattr(obj, "a"): obj.a = ...`` (targets ``obj.a`` and names only)."""
    if not (m.matches(statement, m.If(test=_LAZY_INIT_TEST)) and statement.orelse is None):
        return False
    obj = statement.test.expression.args[0].value.value
    attr = statement.test.expression.args[1].value.evaluated_value
    wanted = m.Attribute(value=m.Name(obj), attr=m.Name(attr))
    for line in _statements(statement.body):
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


def _collect_targets(statements: Sequence[cst.CSTNode], targets: _Targets) -> None:
    """Everything ``statements`` bind (recursing into nested ifs)."""
    for statement in statements:
        if isinstance(statement, cst.If):
            lazy = _is_lazy_init(statement)
            for branch in (statement.body, statement.orelse):
                if isinstance(branch, cst.If):
                    _collect_targets([branch], targets)
                elif branch is not None:
                    inner = _Targets() if lazy else targets
                    _collect_targets(_statements(branch.body if isinstance(branch, cst.Else) else branch), inner)
                    if lazy:  # a memoised attribute is computed, never merged
                        for name in inner.names:
                            targets.add_name(name)
                        targets.caches.update(inner.attributes)
            continue
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if m.matches(small, _REGISTER_BUFFER):
                obj, name, persistent = _buffer_store(small)
                targets.attributes[(obj, name)] = persistent
            for target in _assigned(small):
                _collect_target(target, targets)


def _assigned(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets]
    if isinstance(small, cst.AnnAssign):
        return [small.target]
    return []


def _collect_target(target: cst.BaseExpression, targets: _Targets) -> None:
    if isinstance(target, cst.Name):
        targets.add_name(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _collect_target(element.value, targets)
    elif m.matches(target, m.Attribute(value=m.Name())):
        targets.attributes.setdefault((target.value.value, target.attr.value), None)


def _definitely_bound(statements: Sequence[cst.CSTNode]) -> set[str]:
    """Names a branch binds on every path through it (nested ifs included)."""
    names: set[str] = set()
    for statement in statements:
        if isinstance(statement, cst.If):
            names |= _definitely_bound(_statements(statement.body)) & _definitely_bound(_else_statements(statement))
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for target in _assigned(small):
                    sub = _Targets()
                    _collect_target(target, sub)
                    names.update(sub.names)
    return names


def _read_before_bound(statements: Sequence[cst.CSTNode], name: str) -> bool:
    """Whether some path through a branch reads ``name`` before binding it."""
    for statement in statements:
        if isinstance(statement, cst.If):
            if name in {n.value for n in name_uses(statement.test).loads}:
                return True
            if _read_before_bound(_statements(statement.body), name) or \
                    _read_before_bound(_else_statements(statement), name):
                return True
        elif name in {n.value for n in name_uses(statement).loads}:
            return True
        if name in _definitely_bound([statement]):
            return False
    return False


def _else_statements(node: cst.If) -> list[cst.CSTNode]:
    if isinstance(node.orelse, cst.If):
        return [node.orelse]
    return _statements(node.orelse.body) if node.orelse is not None else []


def _attribute_read_before_stored(statements: Sequence[cst.CSTNode], obj: str, attr: str) -> bool:
    wanted = m.Attribute(value=m.Name(obj), attr=m.Name(attr))
    for statement in statements:
        stored = False
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                values = [small.value] if isinstance(small, (cst.Assign, cst.AnnAssign)) else [small]
                if any(m.matches(n, wanted) for v in values if v is not None for n in walk(v)):
                    return True
                if m.matches(small, _REGISTER_BUFFER) and _buffer_store(small)[:2] == (obj, attr):
                    stored = True
                if any(m.matches(t, wanted) for t in _assigned(small)):
                    stored = True
        elif any(m.matches(n, wanted) for n in walk(statement)):
            return True
        if stored:
            return False
    return False


class _Renamer(cst.CSTTransformer):
    """Gives one branch private names: locals and ``obj.attr`` stores become
    ``<name>__<suffix>`` so both branches can run one after the other."""

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
        if not _is_lazy_init(original_node):
            return updated_node
        obj, attr = (arg.value for arg in original_node.test.expression.args)
        key = (obj.value, attr.evaluated_value)
        if key not in self.attributes:
            return updated_node
        present = _assign(cst.Name(self.attributes[key]), cst.Attribute(cst.Name(key[0]), cst.Name(key[1])))
        return updated_node.with_changes(orelse=cst.Else(cst.IndentedBlock([present])))

    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.BaseSmallStatement:
        if m.matches(original_node, _REGISTER_BUFFER):
            key = _buffer_store(original_node)[:2]
            if key in self.attributes:
                return cst.Assign([cst.AssignTarget(cst.Name(self.attributes[key]))], updated_node.value.args[1].value)
        return updated_node


@dataclass
class _Branch:
    """One side of an ``if``: original statements (for checks, which need
    metadata) and updated statements (for code, with inner sites mended)."""

    suffix: str
    original: list[cst.CSTNode]
    updated: list[cst.CSTNode]


class WhereRule(Rule):
    NAME = "where"
    METADATA_DEPENDENCIES = (*Rule.METADATA_DEPENDENCIES, ScopeProvider)

    def __init__(self, context, options) -> None:
        super().__init__(context, options)
        self._scopes: list[tuple[FunctionScope, frozenset[str]]] = []
        self._elifs: set[int] = set()  # ids of original If nodes in elif position
        self._mended: set[int] = set()  # ids of original If nodes rewritten here
        self._return_ifs: dict[int, cst.If] = {}  # updated if -> original, ``if T: return``
        # id(function) -> why it may update a tensor in place (None: it never does);
        # one walk per function, however many sites it holds.
        self._in_place_reasons: dict[int, str | None] = {}

    # -- metadata --------------------------------------------------------------
    def _qualified_name(self, node: cst.CSTNode) -> str | None:
        names = self.get_metadata(QualifiedNameProvider, node, set())
        return min((q.name for q in names), default=None)

    def _classify(self, expr: cst.BaseExpression) -> Tensorness:
        return classify(expr, self._qualified_name, self._scopes[-1][1])

    # -- traversal -------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append((FunctionScope.of(node), tensor_names(node, self._qualified_name)))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self._scopes.pop()
        return updated_node

    def visit_If(self, node: cst.If) -> None:
        if isinstance(node.orelse, cst.If):
            self._elifs.add(id(node.orelse))

    def leave_If(self, original_node: cst.If, updated_node: cst.If):
        if not self._is_site(original_node, updated_node):
            return updated_node
        if _ends_in_return(original_node.body):
            self._return_ifs[id(updated_node)] = original_node
            return updated_node
        sites = self.context.scratch["sites"]
        mark = len(sites)
        try:
            statements = self._mend_if(original_node, updated_node)
        except Declined as decline:
            del sites[mark:]  # an elif mended on the way is not kept either
            self.skip(original_node, str(decline))
            return updated_node
        return cst.FlattenSentinel(statements)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock):
        body = list(updated_node.body)
        # Last first: an earlier ``if T: return`` has the later ones in its else.
        for index in reversed(range(len(body))):
            original_if = self._return_ifs.pop(id(body[index]), None)
            if original_if is None:
                continue
            try:
                mended = self._mend_return_if(original_if, body[index], original_node, body[index + 1:])
            except Declined as decline:
                self.skip(original_if, str(decline))
                continue
            body[index:index + 1] = mended
        return updated_node.with_changes(body=body)

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.BaseExpression:
        if not (self._scopes and self.wanted(original_node) and self._worth_trying(original_node.test)):
            return updated_node
        reason = self._impurity(original_node.body) or self._impurity(original_node.orelse)
        if reason is None:
            try:
                self._check_function()
            except Declined as decline:
                reason = str(decline)
        test = None
        if reason is None:
            try:
                test = self._tensor_test(original_node.test, updated_node.test)
            except Declined as decline:
                reason = str(decline)
        if reason:
            self.skip(original_node, reason)
            return updated_node
        try:
            captured = [self._captured(original_node, branch) for branch in (original_node.body, original_node.orelse)]
        except Declined as decline:
            self.skip(original_node, str(decline))
            return updated_node
        self.record(original_node, "conditional expression -> torch.where")
        return _call(
            "select", test, thunk(updated_node.body, captured[0]), thunk(updated_node.orelse, captured[1])
        )

    def _captured(self, expression: cst.IfExp, branch: cst.BaseExpression) -> list[str]:
        """The locals of the enclosing function that ``branch`` reads, for
        its thunk to take as default arguments (see
        :func:`graphmend.rules.base.thunk`); Declined when one may be
        unbound, since the default would read it even if the branch is not
        taken."""
        function = self._scopes[-1][0]
        names = set()
        for name in name_uses(branch).loads:
            scope = self.get_metadata(ScopeProvider, name, None)
            if not (isinstance(scope, ScopeOfFunction) and scope.node is function.function):
                continue  # read in a nested scope: already a free variable there
            if any(a.scope is scope for a in scope[name.value]):
                names.add(name.value)
        unbound = sorted(names - function.bound_before(expression))
        if unbound:
            raise Declined(f"`{unbound[0]}` may be unbound here, and the branch reads it")
        return sorted(names)

    # -- which ifs -------------------------------------------------------------
    def _is_site(self, original: cst.If, updated: cst.If) -> bool:
        if id(original) in self._elifs or not self._scopes or not self.wanted(original):
            return False
        if m.matches(updated.test, m.Call(func=m.Attribute(m.Name(RUNTIME_ALIAS), m.Name("is_tensor")))):
            return False  # graphmend's own dispatch
        return self._worth_trying(original.test)

    def _worth_trying(self, test: cst.BaseExpression) -> bool:
        """Diagnosed lines are always tried; otherwise a test that looks like a tensor."""
        kind = self._test_kind(test)
        if kind is Tensorness.STATIC:
            return False
        return self.options.lines is not None or kind is Tensorness.TENSOR

    def _test_kind(self, test: cst.BaseExpression) -> Tensorness:
        operands = _and_operands(test) if m.matches(test, m.BooleanOperation()) else [test]
        kinds = set()
        for operand in operands:
            if m.matches(operand, m.BooleanOperation(operator=m.Or())):
                kinds |= {self._test_kind(operand.left), self._test_kind(operand.right)}
            elif self._scalar_comparison(operand) is not None:
                kinds.add(Tensorness.TENSOR)
            elif self._is_bool_call(operand):
                kinds.add(self._test_kind(operand.args[0].value))
            else:
                kinds.add(self._classify(operand))
        if Tensorness.TENSOR in kinds:
            return Tensorness.TENSOR
        return Tensorness.STATIC if kinds == {Tensorness.STATIC} else Tensorness.UNKNOWN

    # -- tests -----------------------------------------------------------------
    def _split_test(self, original: cst.BaseExpression, updated: cst.BaseExpression):
        """(static prefix or None, tensor test): ``x is not None and T`` keeps
        ``x is not None`` as a Python ``if`` that guards the rest."""
        originals = _and_operands(original)
        updateds = _and_operands(updated)
        split = 0
        while split < len(originals) - 1 and self._classify(originals[split]) is Tensorness.STATIC:
            split += 1
        static = _join_and(updateds[:split]) if split else None
        return static, self._tensor_test_operands(originals[split:], updateds[split:])

    def _tensor_test(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        return self._tensor_test_operands(_and_operands(original), _and_operands(updated))

    def _tensor_test_operands(self, originals, updateds) -> cst.BaseExpression:
        """The tensor half of a test, with ``and``/``or`` between provably
        bool 0-dim tensors as ``&``/``|`` and scalar comparisons in tensors."""
        parts = [self._tensor_operand(o, u) for o, u in zip(originals, updateds)]
        if len(parts) > 1 and not all(is_bool_scalar(o, self._qualified_name) for o in originals):
            raise Declined("`and` of tensors not proven to be bool scalars")
        reason = next(filter(None, map(self._impurity, originals[1:])), None)
        if reason:  # ``and`` skipped these when an earlier operand was false
            raise Declined(reason)
        test = parts[0]
        for part in parts[1:]:
            test = cst.BinaryOperation(test, cst.BitAnd(), part)
        return test

    def _tensor_operand(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        if m.matches(original, m.BooleanOperation(operator=m.Or())):
            sides = (original.left, original.right)
            if not all(is_bool_scalar(s, self._qualified_name) for s in sides):
                raise Declined("`or` of tensors not proven to be bool scalars")
            reason = self._impurity(original.right)
            if reason:  # ``or`` skipped it when the left side was true
                raise Declined(reason)
            return cst.BinaryOperation(updated.left, cst.BitOr(), updated.right,
                                       lpar=updated.lpar, rpar=updated.rpar)
        if m.matches(original, m.UnaryOperation(operator=m.Not())) and is_bool_scalar(
            original.expression, self._qualified_name
        ):
            return cst.UnaryOperation(cst.BitInvert(), updated.expression, lpar=updated.lpar, rpar=updated.rpar)
        if m.matches(original, m.BooleanOperation() | m.UnaryOperation(operator=m.Not())):
            raise Declined(f"`{_code(original)}` calls bool() on its operands")
        if self._is_bool_call(original):  # ``if bool(x):`` is ``if x:``
            return self._tensor_operand(original.args[0].value, updated.args[0].value)
        scalar = self._scalar_comparison(original)
        if scalar is not None:
            return self._exact_comparison(updated, scalar)
        return updated

    def _is_bool_call(self, expr: cst.BaseExpression) -> bool:
        return m.matches(expr, m.Call(args=[m.Arg(keyword=None, star="")])) and \
            self._qualified_name(expr.func) == "builtins.bool"

    def _scalar_comparison(self, expr: cst.BaseExpression) -> str | None:
        """"item"/"float"/"int" when ``expr`` is ``t.item() <op> literal``,
        ``float(t) <op> literal`` or ``int(t) <op> literal`` with a literal
        float64 holds exactly."""
        if not (isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1):
            return None
        if isinstance(expr.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
            return None
        left, right = expr.left, expr.comparisons[0].comparator
        for scalar, other in ((left, right), (right, left)):
            if _exact_literal(other) is None:
                continue
            if m.matches(scalar, m.Call(func=m.Attribute(attr=m.Name("item")), args=[])):
                return "item"
            if m.matches(scalar, m.Call(args=[m.Arg(keyword=None)])):
                name = self._qualified_name(scalar.func)
                if name in ("builtins.float", "builtins.int"):
                    return name.removeprefix("builtins.")
        return None

    def _exact_comparison(self, comparison: cst.Comparison, kind: str) -> cst.Comparison:
        def exact(side: cst.BaseExpression, other: cst.BaseExpression) -> cst.BaseExpression:
            if _exact_literal(other) is None or _exact_literal(side) is not None:
                return side
            if kind == "item" and m.matches(side, m.Call(func=m.Attribute(attr=m.Name("item")))):
                return _call("exact_item", side.func.value, other)
            if kind == "float" and isinstance(side, cst.Call) and len(side.args) == 1:
                return _call("exact_float", side.args[0].value)
            if kind == "int" and isinstance(side, cst.Call) and len(side.args) == 1:
                return _call("exact_int", side.args[0].value, other)
            return side

        target = comparison.comparisons[0]
        return comparison.with_changes(
            left=exact(comparison.left, target.comparator),
            comparisons=[target.with_changes(comparator=exact(target.comparator, comparison.left))],
        )

    # -- checks ----------------------------------------------------------------
    def _impurity(self, node: cst.CSTNode) -> str | None:
        return expression_impurity(node, self._qualified_name)

    def _check_branch(self, statements: Sequence[cst.CSTNode]) -> None:
        """Raise Declined unless ``statements`` may run when not taken."""
        for statement in statements:
            if isinstance(statement, cst.If):
                self._check_nested_if(statement)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._check_small(small)
            else:
                raise Declined(f"a `{_keyword(statement)}` statement in a branch")

    def _check_nested_if(self, node: cst.If) -> None:
        if _is_lazy_init(node):
            return
        if id(node) not in self._mended and self._classify(node.test) is not Tensorness.STATIC:
            raise Declined("a nested if that could not be mended")
        if id(node) in self._mended and any(m.matches(n, _REGISTER_BUFFER) for n in walk(node)):
            # Its predicated form stores the buffer through the runtime, for real.
            raise Declined("a nested if stores a buffer")
        reason = self._impurity(node.test)
        if reason:
            raise Declined(reason)
        self._check_branch(_statements(node.body))
        if isinstance(node.orelse, cst.If):
            self._check_nested_if(node.orelse)
        elif node.orelse is not None:
            self._check_branch(_statements(node.orelse.body))

    def _check_small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Pass):
            return
        if isinstance(small, (cst.Assign, cst.AnnAssign)):
            if small.value is None:
                raise Declined("an annotation without a value")
            for target in _assigned(small):  # item stores: see _check_function
                for node in walk(target):
                    if isinstance(node, cst.Attribute):
                        self._check_store_owner(node)
            reason = self._impurity(small.value)
        elif m.matches(small, _REGISTER_BUFFER):
            self._check_store_owner(small.value.func)
            reason = next(filter(None, (self._impurity(a.value) for a in small.value.args)), None)
        elif isinstance(small, cst.Expr):
            call = small.value
            reason = (call_impurity(call, self._qualified_name) if isinstance(call, cst.Call) else None) \
                or "an expression statement"
        elif isinstance(small, cst.Raise):
            reason = "a branch raises"
        elif isinstance(small, cst.Return):
            reason = "a return inside a branch"
        else:
            reason = f"a `{_keyword(small)}` statement in a branch"
        if reason:
            raise Declined(reason)

    def _check_store_owner(self, target: cst.Attribute) -> None:
        """Only ``self.a = ...`` of the method's own object is merged; a store
        into another object (``x.data = ...``) could be seen through aliases."""
        receiver = self._scopes[-1][0].receiver
        if not (isinstance(target.value, cst.Name) and target.value.value == receiver):
            raise Declined(f"a store into `{_code(target)}`, not an attribute of the method's object")

    def _check_function(self) -> None:
        """Declined when the function may update a tensor in place anywhere
        (see :func:`_in_place_update`)."""
        function = self._scopes[-1][0]
        key = id(function.function)
        if key not in self._in_place_reasons:
            self._in_place_reasons[key] = _in_place_update(function)
        reason = self._in_place_reasons[key]
        if reason:
            raise Declined(reason)

    # -- rewriting -------------------------------------------------------------
    def _mend_if(self, original: cst.If, updated: cst.If) -> list[cst.BaseStatement]:
        """``if T: A else: B`` -> dispatch; raises Declined."""
        self._check_function()
        if isinstance(original.orelse, cst.If):  # elif: mend it as a nested if
            self._elifs.discard(id(original.orelse))
            inner = self._mend_if(original.orelse, updated.orelse) \
                if self._is_site(original.orelse, updated.orelse) else [updated.orelse]
            else_original, else_updated = [original.orelse], inner
        elif original.orelse is not None:
            else_original, else_updated = _statements(original.orelse.body), _statements(updated.orelse.body)
        else:
            else_original, else_updated = [], []
        static, test = self._split_test(original.test, updated.test)
        if static is not None and original.orelse is not None:
            raise Declined("a static guard `and` a tensor test, with an else branch")
        then = _Branch("then", _statements(original.body), _statements(updated.body))
        otherwise = _Branch("else", else_original, else_updated)
        cond = cst.Name(f"_gm_cond_{self.line_of(original)}")
        shared_call = self._shared_call(then, otherwise)
        if shared_call is not None:
            predicated = shared_call(cond)
        else:
            for branch in (then, otherwise):
                self._check_branch(branch.original)
            predicated = self._predicated(original, cond, then, otherwise)
        fallback_else = cst.Else(cst.IndentedBlock(else_updated)) if else_updated else None
        dispatch = cst.If(
            test=_call("is_tensor", cond),
            body=cst.IndentedBlock(predicated),
            orelse=cst.If(test=cond, body=cst.IndentedBlock(then.updated), orelse=fallback_else),
        )
        statements = [_assign(cond, test), dispatch]
        self._finish(original, "if -> torch.where")
        if static is None:
            return statements
        return [cst.If(test=static, body=cst.IndentedBlock(statements))]

    def _mend_return_if(self, original: cst.If, updated: cst.If, block: cst.IndentedBlock,
                        rest: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """``if T: ...; return a`` + ``...; return b`` -> one return of where."""
        self._check_function()
        if isinstance(original.orelse, cst.If):
            raise Declined("an elif chain whose branches return")
        if original.orelse is not None:
            if not _ends_in_return(original.orelse.body):
                raise Declined("only one branch returns")
            else_original, else_updated = _statements(original.orelse.body), _statements(updated.orelse.body)
            fallback_else = updated.orelse
        else:
            following = list(block.body)[list(block.body).index(original) + 1:]
            if not following or not m.matches(following[-1], m.SimpleStatementLine([m.Return()])):
                raise Declined("only one branch returns")
            else_original, else_updated = following, rest
            fallback_else = None
        test = self._tensor_test(original.test, updated.test)
        then = _Branch("then", _statements(original.body), _statements(updated.body))
        otherwise = _Branch("else", else_original, else_updated)
        returns = []
        for branch in (then, otherwise):
            *body, last = branch.original
            self._check_branch(body)
            if not m.matches(last, m.SimpleStatementLine([m.Return()])):
                raise Declined("a return that is not the branch's last statement")
            value = last.body[0].value
            reason = value is not None and self._impurity(value)
            if reason:
                raise Declined(reason)
            branch.original, returned = body, branch.updated[-1].body[0].value
            branch.updated = branch.updated[:-1]
            if isinstance(returned, cst.Tuple) and not returned.lpar:
                returned = returned.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            returns.append(returned or cst.Name("None"))
        cond = cst.Name(f"_gm_cond_{self.line_of(original)}")
        predicated = self._predicated(original, cond, then, otherwise, returns=returns)
        dispatch = cst.If(
            test=_call("is_tensor", cond),
            body=cst.IndentedBlock(predicated),
            orelse=cst.If(test=cond, body=updated.body, orelse=fallback_else),
        )
        self._finish(original, "if/return -> torch.where")
        return [_assign(cond, test), dispatch]

    def _finish(self, original: cst.If, what: str) -> None:
        self._mended.add(id(original))
        self.record(original, what)

    def _shared_call(self, then: _Branch, otherwise: _Branch):
        """Both branches are one ``target = f(args)`` differing only in
        arguments: call ``f`` once with the arguments merged (``f`` runs once,
        as before, so it need not be pure).  Returns a builder or None."""
        pattern = m.SimpleStatementLine([m.Assign(value=m.Call())])
        if not (len(then.original) == len(otherwise.original) == 1
                and all(m.matches(s, pattern) for s in (*then.original, *otherwise.original))):
            return None
        a, b = then.updated[0].body[0], otherwise.updated[0].body[0]
        if [_code(t) for t in a.targets] != [_code(t) for t in b.targets] or not all(
            isinstance(n, (cst.Name, cst.Tuple)) for n in (t.target for t in a.targets)
        ):
            return None
        def shape(call: cst.Call) -> list[tuple[str | None, str]]:
            return [(arg.keyword and arg.keyword.value, arg.star) for arg in call.args]

        if _code(a.value.func) != _code(b.value.func) or shape(a.value) != shape(b.value):
            return None
        original_args = zip(then.original[0].body[0].value.args, otherwise.original[0].body[0].value.args)
        differing = [(x.value, y.value) for x, y in original_args if _code(x.value) != _code(y.value)]
        if any(self._classify(v) is Tensorness.STATIC for pair in differing for v in pair):
            return None  # torch.where cannot select Python constants
        reason = next(filter(None, (self._impurity(v) for pair in differing for v in pair)), None)
        if reason:
            raise Declined(reason)

        def build(cond: cst.Name) -> list[cst.BaseStatement]:
            args = [
                x if _code(x.value) == _code(y.value)
                else x.with_changes(value=_call("where", cond, x.value, y.value))
                for x, y in zip(a.value.args, b.value.args)
            ]
            return [cst.SimpleStatementLine([a.with_changes(value=a.value.with_changes(args=args))])]

        return build

    def _predicated(self, original: cst.If, cond: cst.Name, then: _Branch, otherwise: _Branch,
                    returns: list[cst.BaseExpression] | None = None) -> list[cst.BaseStatement]:
        """Both branches with private names, then the merges."""
        scope = self._scopes[-1][0]
        bound_before = scope.bound_before(original)
        targets = {}
        for branch in (then, otherwise):
            targets[branch.suffix] = _Targets()
            _collect_targets(branch.updated, targets[branch.suffix])
        names = list(dict.fromkeys([*targets["then"].names, *targets["else"].names]))
        live = set() if returns is not None else scope.live_after(original, names)
        declared = {alias.name.value for node in walk(scope.function.body)
                    if isinstance(node, (cst.Global, cst.Nonlocal)) for alias in node.names}
        for name in sorted(declared.intersection(names)):
            raise Declined(f"`{name}` is not a local of the function")
        attributes = {**targets["then"].attributes, **targets["else"].attributes}
        for key in attributes:
            persistence = {t.attributes[key] for t in targets.values() if key in t.attributes}
            if len(persistence) > 1:
                raise Declined(f"`{key[0]}.{key[1]}` is stored both as a buffer and otherwise")
        body: list[cst.BaseStatement] = []
        values: dict[str, dict[str, cst.BaseExpression]] = {"then": {}, "else": {}}
        for index, branch in enumerate((then, otherwise)):
            bound = targets[branch.suffix]
            renamed_names = {n: f"{n}__{branch.suffix}" for n in bound.names}
            renamed_attributes = {k: f"{k[0]}_{k[1]}__{branch.suffix}" for k in (*bound.attributes, *bound.caches)}
            for name in bound.names:
                if _read_before_bound(branch.updated, name) or (
                    name in live and name not in _definitely_bound(branch.updated)
                ):
                    if name not in bound_before:
                        raise Declined(f"`{name}` may be unbound before the if")
                    body.append(_assign(cst.Name(renamed_names[name]), cst.Name(name)))
            for obj, attr in bound.attributes:
                if _attribute_read_before_stored(branch.updated, obj, attr):
                    body.append(_assign(cst.Name(renamed_attributes[(obj, attr)]),
                                        cst.Attribute(cst.Name(obj), cst.Name(attr))))
            renamer = _Renamer(renamed_names, renamed_attributes)
            body.extend(statement.visit(renamer) for statement in branch.updated)
            for name in names:
                values[branch.suffix][name] = cst.Name(renamed_names.get(name, name))
            for obj, attr in attributes:
                values[branch.suffix][(obj, attr)] = (
                    cst.Name(renamed_attributes[(obj, attr)]) if (obj, attr) in renamed_attributes
                    else cst.Attribute(cst.Name(obj), cst.Name(attr))
                )
            if returns is not None:
                returns[index] = returns[index].visit(renamer)
        self._check_not_constant(then, otherwise, live)
        for name in names:
            if name not in live:
                continue
            for suffix in ("then", "else"):
                if name not in targets[suffix].names and name not in bound_before:
                    raise Declined(f"`{name}` is bound in one branch only and maybe not before the if")
            body.append(_assign(cst.Name(name), _call("where", cond, values["then"][name], values["else"][name])))
        merged = []
        for (obj, attr), persistence in attributes.items():
            temp = cst.Name(f"{obj}_{attr}__merged")
            body.append(_assign(temp, _call("where", cond, values["then"][(obj, attr)], values["else"][(obj, attr)])))
            merged.append(((obj, attr), persistence, temp))
        # Rebinding attributes first: a buffer another attribute aliased
        # (Phi-3's original_inv_freq) is then free to be updated in place.
        for (obj, attr), persistence, temp in sorted(merged, key=lambda item: item[1] is not None):
            if persistence is None:
                body.append(_assign(cst.Attribute(cst.Name(obj), cst.Name(attr)), temp))
            else:
                store = _call("store_buffer", cst.Name(obj), cst.SimpleString(f'"{attr}"'), temp)
                keyword = cst.Arg(cst.parse_expression(persistence), keyword=cst.Name("persistent"),
                                  equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                store = store.with_changes(args=[*store.args, keyword])
                body.append(cst.SimpleStatementLine([cst.Expr(store)]))
        if returns is not None:
            body.append(cst.SimpleStatementLine([cst.Return(_call("where", cond, *returns))]))
        return body

    def _check_not_constant(self, then: _Branch, otherwise: _Branch, live: set[str]) -> None:
        """A live name bound to a Python constant cannot be selected by torch.where."""
        for branch in (then, otherwise):
            for statement in branch.original:
                for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.Assign) and self._classify(small.value) is Tensorness.STATIC:
                        for target in _assigned(small):
                            if isinstance(target, cst.Name) and target.value in live:
                                raise Declined(f"`{target.value}` is not a tensor")


def _in_place_update(scope: FunctionScope) -> str | None:
    """Why the function may update a tensor in place, or None.  A merged
    value is a new tensor, so an alias the original had (an input, another
    local) would no longer see the update.  ``n += e`` updates a tensor
    ``n`` in place, and ``n`` may alias a merged value, unless every binding
    of ``n`` is a tuple, list or literal (``outputs += (attn_weights,)``
    rebinds a tuple)."""
    containers = _literal_container_names(scope)
    for node in walk(scope.function.body):
        if isinstance(node, cst.AugAssign) and not (
            isinstance(node.target, cst.Name) and node.target.value in containers
        ):
            return "the function uses augmented assignment, which may update a tensor in place"
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign)) and m.findall(node.target, m.Subscript()):
            return "the function stores into items, which may update a tensor in place"
        if m.matches(node, m.Call(func=m.Attribute(attr=m.Name()))):
            method = node.func.attr.value
            if method.endswith("_") and not method.endswith("__"):
                return f"the function updates tensors in place (.{method}())"
    return None


_LITERAL_CONTAINERS = (cst.Tuple, cst.List, cst.Integer, cst.Float, cst.SimpleString)


def _literal_container_names(scope: FunctionScope) -> set[str]:
    """Locals whose every binding is ``n = <tuple, list or literal>`` (or
    ``n += ...`` of one): names that never hold a tensor."""
    literal: set[str] = set()
    other: set[str] = set(scope.parameters)
    for node in walk(scope.function.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and isinstance(node.value, _LITERAL_CONTAINERS):
                    literal.add(target.target.value)
                else:
                    other.update(name_uses(target).stores)
        elif isinstance(node, (cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr)):
            target = node.name if isinstance(node, cst.AsName) else node.target
            other.update(target_names(target))
    return literal - other


def _keyword(statement: cst.CSTNode) -> str:
    """``for``, ``while``, ``del``... for a reason text."""
    return type(statement).__name__.lower()


def _and_operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``a and b and c`` -> [a, b, c] (parenthesised sub-expressions kept whole)."""
    if m.matches(test, m.BooleanOperation(operator=m.And())) and not test.lpar:
        return [*_and_operands(test.left), *_and_operands(test.right)]
    return [test]


def _join_and(operands: list[cst.BaseExpression]) -> cst.BaseExpression:
    result = operands[0]
    for operand in operands[1:]:
        result = cst.BooleanOperation(result, cst.And(), operand)
    return result


def _ends_in_return(body: cst.BaseSuite) -> bool:
    statements = _statements(body)
    return bool(statements) and m.matches(statements[-1], m.SimpleStatementLine([m.Return()]))


def _exact_literal(expr: cst.BaseExpression) -> float | int | None:
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
