"""What running a piece of code does besides computing values.

Read-only facts, one module for every rule:

* :func:`expression_impurity` -- why evaluating an expression when its
  branch is not taken may be observable (I/O, random numbers, writes,
  calls of unknown functions, indexing that may raise), or None;
* :func:`in_place_update` -- why a function may update a tensor in place
  anywhere (a merged value is a new tensor, so an alias would miss it);
* :func:`hazards_around` -- the effects that deferring a guard's ``raise``
  to the end of the graph would make visible;
* :func:`message_impurity` -- why a message expression cannot be built
  while tracing (it would fail or have effects), and :func:`message_read`
  -- the reads of a tensor's value a deferred message makes after the graph.

Effect *calls* (print, logger methods, ``warnings.warn``, a library's
warning helper) are recognised by :mod:`graphmend.analysis.facts`, which
knows the scope.  A call into a Python function is judged by its summary
(:mod:`graphmend.analysis.summaries`) where the caller passes one
(``callee``); a call that has none "may have effects".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.summaries import OutOfRange, Summary
from graphmend.analysis.bindings import (
    assigned_targets, code, dotted_name, local_names, name_uses, parameter_names, target_names, walk, walk_own,
)
from graphmend.conventions import RUNTIME_MODULE

QualifiedName = Callable[[cst.CSTNode], "str | None"]
#: The summary of the Python function a call reaches, or None (see :mod:`graphmend.analysis.summaries`).
Callee = Callable[[cst.Call], "Summary | None"]


# -- evaluating code unconditionally ------------------------------------------------


def call_impurity(call: cst.Call, qualified_name: QualifiedName, *, traced_errors_fall_back: bool = False,
                  callee: Callee | None = None) -> str | None:
    """Why calling ``call`` when its branch is not taken may be observable.
    ``traced_errors_fall_back``: see :func:`expression_impurity`; then
    ``float()`` counts as pure too (of a tensor it either breaks the graph
    inside the call that falls back, or is traced, and a float can be
    neither a size nor an index that fails inside the graph).  ``callee``
    gives the summary of a Python function the call reaches (see
    :mod:`graphmend.analysis.summaries`), or None where there is none."""
    name = qualified_name(call.func) or ""
    shown = code(call.func)
    if name == "builtins.print":
        return "print() in a branch (I/O)"
    builtin = vocabulary.builtin(name)
    if builtin is not None:
        pure = builtin in vocabulary.PURE_BUILTINS or (traced_errors_fall_back and builtin in vocabulary.TRACED_PURE_BUILTINS)
        return None if pure else f"calls {shown}()"
    if name.startswith(f"{RUNTIME_MODULE}."):
        # The one runtime call whose checks wait for the graph's end ungated.
        return f"calls {shown}(), whose checks would raise though the branch is not taken" \
            if name == f"{RUNTIME_MODULE}.one_hot_encoding" else None
    function = vocabulary.torch_function(name)
    if function is not None:
        if function.endswith("_") or function in vocabulary.IMPURE_FUNCTIONS:
            return f"calls {shown}(), which has effects"
        if any(m.matches(arg, m.Arg(keyword=m.Name("out"))) for arg in call.args):
            return f"calls {shown}(out=...), which writes its argument"
        # When the graph runs, on values the branch not taken would never see.
        if name in vocabulary.RAISING_FUNCTIONS:
            return f"calls {shown}(), which rejects some values"
        if function in vocabulary.INDEXING_CALLS:
            return f"calls {shown}(), whose index may be out of range"
        return None
    # Before the tensor methods: ``self.norm(x)`` or ``ops.mean(x)`` may be a function of the same name.
    summary = callee(call) if callee is not None else None
    if summary is not None:
        effect = summary.traced_effect if traced_errors_fall_back else summary.effect
        return None if effect is None else f"calls {shown}(), which {effect}"
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in vocabulary.PURE_METHODS:
        return None
    return f"calls {shown}(), which may have effects"


def expression_impurity(expr: cst.CSTNode, qualified_name: QualifiedName, *, traced_errors_fall_back: bool = False,
                        nonnegative: frozenset[str] = frozenset(), callee: Callee | None = None) -> str | None:
    """Why evaluating ``expr`` unconditionally may be observable, or None.

    ``traced_errors_fall_back``: the caller evaluates ``expr`` in a call
    that leaves the choice to Python's order when it raises while traced or
    breaks the graph (the lazy right operand of ``and``/``or``, an arm run by
    ``both_arms``), so an index that raises only while tracing does not
    count (see :class:`~graphmend.analysis.summaries.OutOfRange`).  ``nonnegative``: names a
    test proved non-negative where ``expr`` is taken; ``x[i]`` by one of them
    is evaluated as ``_graphmend.nonnegative_row(x, i)`` (see
    :func:`is_nonnegative_index`).  ``callee``: see :func:`call_impurity`."""
    safe_indexes = (OutOfRange.CLAMPS, OutOfRange.RAISES_WHILE_TRACING) if traced_errors_fall_back else (
        OutOfRange.CLAMPS,)
    for node in walk(expr):
        if isinstance(node, cst.Call):
            reason = call_impurity(node, qualified_name, traced_errors_fall_back=traced_errors_fall_back,
                                   callee=callee)
        elif isinstance(node, cst.Subscript):
            safe = all(_out_of_range(element) in safe_indexes for element in node.slice) or (
                traced_errors_fall_back and is_nonnegative_index(node, nonnegative))
            reason = None if safe else "indexing may raise IndexError"
        elif isinstance(node, cst.Lambda):
            reason = "a lambda with parameters" if _has_params(node) else None
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            reason = "a comprehension"
        elif isinstance(node, (cst.Yield, cst.Await, cst.NamedExpr)):
            reason = f"a {type(node).__name__} expression"
        else:
            reason = None
        if reason:
            return reason
    return None


_CONSTANT = m.Integer() | m.Float() | m.Imaginary() | m.SimpleString() | m.ConcatenatedString() | m.Name(
    "None") | m.Name("True") | m.Name("False") | m.UnaryOperation(operator=m.Minus(), expression=m.Integer() | m.Float())


def constant_operand(statements, qualified_name: QualifiedName, constants: frozenset[str] = frozenset()) -> str | None:
    """Why running ``statements`` (an arm, in order) raises for sure: a
    torch function or a tensor method given a Python constant where a
    tensor goes (``v = 3.0; torch.log(v)``, ``None.sum()``).  The arm's
    original raises only when taken; run when not taken, it would raise
    there.  ``constants`` are names that hold a constant when the arm
    starts; an assignment of a literal in the arm adds one, any other
    binding removes it."""
    held = set(constants)
    for statement in statements:
        for node in walk(statement):
            if not isinstance(node, cst.Call):
                continue
            qualified = qualified_name(node.func)
            operation = _torch_operation(qualified)
            if operation is not None:
                if operation in vocabulary.NOT_TENSOR_FIRST:
                    continue
                operand = next((a.value for a in node.args if a.keyword is None and not a.star), None)
            elif vocabulary.torch_function(qualified) is None and isinstance(node.func, cst.Attribute) and \
                    node.func.attr.value in vocabulary.PURE_METHODS:
                operand = node.func.value
            else:
                continue
            if operand is not None and (m.matches(operand, _CONSTANT) or (
                    isinstance(operand, cst.Name) and operand.value in held)):
                return f"`{code(node)}` is given `{code(operand)}`, not a tensor: it raises when its arm is not taken"
        for node in walk(statement):
            if isinstance(node, cst.Assign):
                literal = m.matches(node.value, _CONSTANT)
                for target in node.targets:
                    for name in target_names(target.target) if not isinstance(target.target, (cst.Attribute, cst.Subscript)) else ():
                        (held.add if literal and isinstance(target.target, cst.Name) else held.discard)(name)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
                for name in target_names(node.target) if isinstance(node.target, cst.Name) else ():
                    held.discard(name)
    return None


def is_nonnegative_index(node: cst.Subscript, nonnegative: frozenset[str]) -> bool:
    """``x[i]`` with ``i`` one of the names a test proved non-negative where
    the indexing runs.  Run where it is not taken, ``i`` may be negative and
    out of range inside the graph; clamped at 0 it indexes the first row
    there and exactly ``x[i]`` where taken (an ``i`` too large still fails,
    as the original's does when taken; an empty first dimension falls
    back)."""
    return (len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Name) and node.slice[0].slice.value.value in nonnegative)


def _out_of_range(element: cst.SubscriptElement) -> OutOfRange:
    """What the index ``element`` does out of range (see
    :class:`~graphmend.analysis.summaries.OutOfRange`)."""
    if isinstance(element.slice, cst.Slice) or m.matches(element.slice.value, m.Name("None") | m.Ellipsis()):
        return OutOfRange.CLAMPS
    if m.matches(element.slice.value, m.Integer() | m.UnaryOperation(operator=m.Minus(), expression=m.Integer())):
        return OutOfRange.RAISES_WHILE_TRACING
    return OutOfRange.MAY_RAISE


def _has_params(node: cst.Lambda) -> bool:
    return bool(parameter_names(node))


def linear_impurity(expr: cst.CSTNode, qualified_name: QualifiedName) -> str | None:
    """Why a zero gradient through ``expr`` might not stay zero (its
    derivative depends on the values it sees), or None.  Products and
    quotients count only with a numeric literal on one side."""
    for node in walk(expr):
        if isinstance(node, cst.Call):
            name = vocabulary.torch_function(qualified_name(node.func))
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            if (name or method) not in vocabulary.LINEAR_CALLS and \
                    not (qualified_name(node.func) or "").startswith(f"{RUNTIME_MODULE}."):
                return f"{code(node.func)}() has a derivative that depends on its input"
        elif isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.Multiply, cst.Divide)):
                literal = (cst.Integer, cst.Float)
                if not (isinstance(node.right, literal) or (
                        isinstance(node.operator, cst.Multiply) and isinstance(node.left, literal))):
                    return f"`{code(node)}` has a derivative that depends on its operands"
            elif not isinstance(node.operator, (cst.Add, cst.Subtract)):
                return f"`{code(node)}` has a derivative that depends on its operands"
        elif isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, (cst.Minus, cst.Plus)):
            return f"`{code(node)}` is not differentiable"
    return None


# -- in-place updates and the names they may reach ---------------------------------------

_LITERAL_CONTAINERS = (cst.Tuple, cst.List, cst.Integer, cst.Float, cst.SimpleString)


def _torch_operation(qualified: str | None) -> str | None:
    """``"log"`` for ``torch.log``, ``"relu"`` for ``torch.nn.functional.relu``:
    the name of a function in one of torch's operation namespaces; else None."""
    function = vocabulary.torch_function(qualified)
    in_namespace = function is not None and qualified.rpartition(".")[0] in vocabulary.OPERATION_NAMESPACES
    return function if in_namespace else None


def in_place_updates(code: cst.FunctionDef | list[cst.CSTNode], function: cst.FunctionDef | None = None,
                     exempt: frozenset[int] = frozenset()) -> list[tuple[str | None, str, str | None]]:
    """Every statement in ``code`` (a function, or statements of one) that
    may update a tensor in place: (the root name it updates, why, the chain
    it updates: :func:`updated_chain`).
    ``n += e`` updates a tensor ``n`` in place, unless every binding of ``n``
    is a tuple, list or literal (``outputs += (attn_weights,)`` rebinds a tuple).
    Assignments (and augmented ones) whose ids are in ``exempt`` do not count."""
    function = code if isinstance(code, cst.FunctionDef) else function
    containers = _literal_container_names(function) if function is not None else set()
    nodes = list(walk(code.body) if isinstance(code, cst.FunctionDef) else (n for statement in code for n in walk(statement)))
    exempt_targets = {id(t) for node in nodes if isinstance(node, cst.Assign) and id(node) in exempt for t in node.targets}
    updates = []
    for node in nodes:
        if id(node) in exempt_targets:
            continue
        if isinstance(node, cst.AugAssign) and id(node) not in exempt and not (
            isinstance(node.target, cst.Name) and node.target.value in containers
        ):
            updates.append((root_name(node.target),
                            "the function uses augmented assignment, which may update a tensor in place",
                            updated_chain(node.target)))
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign)):
            for sub in m.findall(node.target, m.Subscript()):
                updates.append((root_name(sub), "the function stores into items, which may update a tensor in place",
                                updated_chain(sub)))
        if m.matches(node, m.Call(func=m.Attribute(attr=m.Name()))):
            method = node.func.attr.value
            if vocabulary.in_place_method(method):
                updates.append((updated_root(node.func.value), f"the function updates tensors in place (.{method}())",
                                updated_chain(node.func.value)))
    return updates


def in_place_update(function: cst.FunctionDef) -> str | None:
    """Why ``function`` may update a tensor in place anywhere, or None."""
    updates = in_place_updates(function)
    return updates[0][1] if updates else None


def alias_classes(function: cst.FunctionDef, qualified_name: QualifiedName | None = None) -> dict[str, str]:
    """For every name of ``function``: a representative of the names it may
    share a tensor with.  Parameters may all be one tensor (a caller can pass
    it twice); a local bound to a name, an attribute, an item, a view or the
    result of an unknown call may be the tensor it reads; arithmetic and
    torch's operations (known by ``qualified_name``) make new tensors."""
    parent: dict[str, str] = {}

    def find(name: str) -> str:
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    params = sorted(parameter_names(function))
    for name in params:
        union(name, params[0])
    for node in walk(function.body):
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) and node.value is not None:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            sources = alias_sources(node.value, qualified_name)
            for target in targets:
                for name in target_names(target) if not isinstance(target, (cst.Attribute, cst.Subscript)) else []:
                    for source in sources:
                        union(name, source)
        elif isinstance(node, cst.For):
            for name in target_names(node.target):
                for source in alias_sources(node.iter, qualified_name):
                    union(name, source)
    return {name: find(name) for name in list(parent)}


def alias_sources(value: cst.BaseExpression, qualified_name: QualifiedName | None = None,
                  callee: Callee | None = None) -> set[str]:
    """The names whose tensor ``value`` may be (or view): empty for a new
    value (``callee``: see :func:`call_impurity`; a function whose summary
    says it returns new values makes one)."""
    def go(node: cst.BaseExpression) -> set[str]:
        return alias_sources(node, qualified_name, callee)

    if isinstance(value, cst.Name):
        return {value.value}
    if isinstance(value, (cst.Attribute, cst.Subscript)):
        root = root_name(value)
        return {root} if root else set()
    if isinstance(value, (cst.Tuple, cst.List)):
        return set().union(*(go(e.value) for e in value.elements)) if value.elements else set()
    if isinstance(value, cst.IfExp):
        return go(value.body) | go(value.orelse)
    if isinstance(value, cst.Call):
        written = set()  # ``out=`` is the result; ``inplace=True`` returns its input
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                written |= go(arg.value)
            elif arg.keyword is not None and arg.keyword.value == "inplace" and not m.matches(arg.value, m.Name("False")):
                written |= name_uses(value).loads_names()
        summary = callee(value) if callee is not None else None
        if summary is not None:  # before the tensor methods, as in call_impurity
            return written if summary.fresh else name_uses(value).loads_names()
        method = value.func.attr.value if isinstance(value.func, cst.Attribute) else None
        if method in vocabulary.VIEW_METHODS:
            return go(value.func.value) | written
        if method in vocabulary.PURE_METHODS or method in vocabulary.STATIC_METHODS:
            return written
        operation = _torch_operation(qualified_name(value.func)) if qualified_name else None
        if operation is not None and not operation.endswith("_") and \
                operation not in vocabulary.VIEW_METHODS | vocabulary.HIGHER_ORDER:
            return written  # torch's operations make new tensors, but for views
        if isinstance(value.func, cst.Name) and value.func.value in vocabulary.FRESH_BUILTINS:
            return written
        if isinstance(value.func, cst.Name) and value.func.value in vocabulary.PASSING_BUILTINS:
            return written.union(*(_passed(arg.value, go) for arg in value.args if arg.keyword is None))
        return name_uses(value).loads_names()  # an unknown call may hand back its argument
    return set()  # arithmetic, comparisons, literals: new values


def _passed(argument: cst.BaseExpression, sources: Callable[[cst.BaseExpression], set[str]]) -> set[str]:
    """The names whose tensors a builtin of :data:`vocabulary.PASSING_BUILTINS`
    may hand back from ``argument``: a comprehension's elements may be any
    name it reads, but the builtins it calls and its own targets (which
    hold what its iterables, read too, hold)."""
    if isinstance(argument, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        targets = {name for node in walk(argument) if isinstance(node, cst.CompFor) for name in target_names(node.target)}
        return name_uses(argument).loads_names() - vocabulary.BUILTIN_NAMES - targets
    return sources(argument)


def merged_names(statements, qualified_name: QualifiedName | None = None) -> set[str]:
    """What merging the values ``statements`` bind replaces: the names they
    bind, and the names whose tensors those values may be (or view)."""
    names: set[str] = set()
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                for target in targets:
                    names.update(target_names(target) if isinstance(target, (cst.Name, cst.Tuple, cst.List))
                                 else {root_name(target)} - {None})
                names |= alias_sources(node.value, qualified_name)
            elif isinstance(node, cst.AugAssign):
                names.update({root_name(node.target)} - {None})
            elif isinstance(node, cst.Return) and node.value is not None:
                names |= alias_sources(node.value, qualified_name)
    return names


def in_place_hazard(function: cst.FunctionDef, names: set[str], after: list[cst.CSTNode] | None = None,
                    classes: dict[str, str] | None = None, exempt: frozenset[int] = frozenset()) -> str | None:
    """Why an update in place in ``function`` may reach a tensor one of
    ``names`` holds (so a merged copy would miss it), or None.  ``names``
    may be dotted chains: ``self.index += 1`` does not reach
    ``self.min_step`` (two attributes of one object), while a bare name,
    or one chain extending the other, may be the same tensor.  With
    ``after``, only updates in those statements count (the ones that may
    run after the merge).  ``classes``: the function's :func:`alias_classes`;
    ``exempt``: see :func:`in_place_updates`."""
    updates = in_place_updates(function, exempt=exempt) if after is None else in_place_updates(after, function, exempt)
    if not updates:
        return None
    classes = alias_classes(function) if classes is None else classes
    for root, reason, updated in updates:
        if root is None or updated is None:
            return reason
        for chain in names:
            read_root = chain.partition(".")[0]
            if classes.get(root, root) == classes.get(read_root, read_root) and (
                    "." not in chain or "." not in updated or chain == updated
                    or chain.startswith(updated + ".") or updated.startswith(chain + ".")):
                return reason
    return None


def rebinds_afresh(statement: cst.CSTNode, names: set[str], qualified_name: QualifiedName | None = None) -> bool:
    """Whether ``statement`` (the one that runs right after an ``if``)
    rebinds every one of ``names`` to a new tensor, updating nothing in
    place: ``dt = dt.clamp(lo, hi)``.  After it no name holds a merged
    value or what an arm aliased, so later in-place updates cannot tell
    a merged copy from the original's alias."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return False
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or not all(isinstance(t.target, cst.Name) for t in small.targets):
        return False
    rebound = {t.target.value for t in small.targets}
    return names <= rebound and not alias_sources(small.value, qualified_name) and not in_place_updates([statement])


def _literal_container_names(function: cst.FunctionDef) -> set[str]:
    """Locals whose every binding is ``n = <tuple, list or literal>`` (or
    ``n += ...`` of one): names that never hold a tensor."""
    return _names_always_bound_to(function, lambda value: isinstance(value, _LITERAL_CONTAINERS))


def constant_names(function: cst.FunctionDef) -> frozenset[str]:
    """Locals whose every binding is a literal number, string, bool or None
    (``v += x`` may make a tensor of one)."""
    augmented = {node.target.value for node in walk(function.body)
                 if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name)}
    return frozenset(_names_always_bound_to(function, lambda value: m.matches(value, _CONSTANT)) - augmented)


def _names_always_bound_to(function: cst.FunctionDef, literal_value: Callable[[cst.BaseExpression], bool]) -> set[str]:
    literal: set[str] = set()
    other: set[str] = set(parameter_names(function))
    for node in walk(function.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and literal_value(node.value):
                    literal.add(target.target.value)
                else:
                    other.update(name_uses(target).stores)
        elif isinstance(node, (cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr)):
            target = node.name if isinstance(node, cst.AsName) else node.target
            other.update(target_names(target))
    return literal - other


# -- what a deferred raise must not outrun -----------------------------------------------


@dataclass(frozen=True)
class Hazard:
    node: cst.CSTNode
    reason: str
    #: What the effect writes through, where it writes no tensor when that
    #: holds None or a Python number at the guard and nothing after the
    #: guard binds it to another object (``self.n`` of ``self.n += 1``,
    #: ``out`` of ``f(x, out=out)``): the runtime can check it while tracing.
    through: cst.BaseExpression | None = None


@dataclass(frozen=True)
class _Effect:
    node: cst.CSTNode
    what: str
    #: Only names the function bound itself are touched (they may still
    #: alias a parameter: ``y = x``).
    owned: bool
    #: See :attr:`Hazard.through`.
    through: cst.BaseExpression | None = None


def root_name(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x``, ``x.a.b``, ``x[i].a``; None for anything else."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def updated_root(node: cst.BaseExpression) -> str | None:
    """The name whose tensor an in-place update of ``node`` writes: as
    :func:`root_name`, through views too (``x.diagonal().add_(d)`` writes ``x``)."""
    while True:
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif m.matches(node, m.Call(func=m.Attribute(attr=m.Name()))) and node.func.attr.value in vocabulary.VIEW_METHODS:
            node = node.func.value
        else:
            return node.value if isinstance(node, cst.Name) else None


def updated_chain(node: cst.BaseExpression) -> str | None:
    """The dotted chain whose tensor an in-place update of ``node`` writes:
    ``self.buf`` for ``self.buf[0]`` or ``self.buf.t()``; the root name where
    an item sits inside the chain (``self.layers[0].w`` writes into ``self``)."""
    while isinstance(node, cst.Subscript) or (
            m.matches(node, m.Call(func=m.Attribute(attr=m.Name()))) and node.func.attr.value in vocabulary.VIEW_METHODS):
        node = node.value if isinstance(node, cst.Subscript) else node.func.value
    return dotted_name(node) or updated_root(node)


class _EffectFinder(cst.CSTVisitor):
    """Every effect in a function body that may happen inside the graph
    (see :class:`_Effect`): in-place updates, item stores, ``+=``, ``out=``,
    container methods and stores into a tensor's own attributes."""

    def __init__(self, locals_: frozenset[str]) -> None:
        self.locals = locals_
        self.effects: list[_Effect] = []

    def _add(self, node: cst.CSTNode, what: str, touched: cst.BaseExpression | None,
             through: cst.BaseExpression | None = None) -> None:
        owned = touched is not None and updated_root(touched) in self.locals
        self.effects.append(_Effect(node, what, owned, through if dotted_name(through) else None))

    def _store(self, node: cst.CSTNode, target: cst.BaseExpression, verb: str) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(node, element.value, verb)
        elif isinstance(target, cst.Attribute):
            # Any other attribute store is Python state, which Dynamo sets
            # after the graph's replayed calls: a failing check skips it.
            if target.attr.value in vocabulary.TENSOR_STATE_ATTRIBUTES:
                self._add(node, f"{verb} {code(target)}", None)
        elif isinstance(target, cst.Subscript):
            self._add(node, f"{verb} {code(target)}", target)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(node, target.target, "stores into")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._store(node, node.target, "stores into")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # In place only when the target holds a tensor: ``+=`` on a number binds a new one.
        if isinstance(node.target, cst.Attribute):
            self._add(node, f"updates {code(node.target)}", None, node.target)
        else:
            self._add(node, f"updates {code(node.target)} in place", node.target, node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._store(node, node.target, "deletes")

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self._add(node, f"writes through out= in {code(node.func)}()", None, arg.value)
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if vocabulary.in_place_method(method) or method in vocabulary.CONTAINER_MUTATORS:
                self._add(node, f"calls {code(node.func)}()", node.func.value)


def _node_ids(nodes) -> set[int]:
    return {id(node) for root in nodes for node in walk(root)}


def fresh_locals(function: cst.FunctionDef, classes: dict[str, str] | None = None) -> frozenset[str]:
    """Locals that only ever hold objects the function made itself: no
    parameter, attribute or global may share them (see :func:`alias_classes`)."""
    classes = alias_classes(function) if classes is None else classes
    own = local_names(function)
    shared = {classes.get(name, name) for name in classes if name not in own}
    return frozenset(name for name in own if classes.get(name, name) not in shared)


def function_effects(function: cst.FunctionDef, fresh: frozenset[str]) -> list[_Effect]:
    """Every effect in ``function``'s body that may happen inside the graph
    (:class:`_EffectFinder`); ``fresh``: its :func:`fresh_locals`, whose
    effects are owned."""
    finder = _EffectFinder(fresh)
    function.body.visit(finder)
    return finder.effects


def hazards_around(effects: Iterable[_Effect], guard: cst.CSTNode, after: list[cst.CSTNode]) -> list[Hazard]:
    """Those of a function's ``effects`` (:func:`function_effects`) that
    deferring ``guard``'s raise would make visible.  ``after`` holds the
    statements that can run after the guard (the caller knows where the
    guard sits).

    After the guard every effect counts but one on an object the function
    made itself (a local list's ``append``, a store into a fresh tensor):
    gone with the raise.  A store into an attribute, a global or a closure
    cell does not count either: Dynamo makes it after the graph's replayed
    calls, so a failing check skips it, as the original's raise did.  An
    item store, ``+=`` and a container method count (they may update a
    tensor in the graph).  Effects before the guard do not count here: an
    in-place tensor op has run by the time the check fires, as in eager,
    and a Python store that waits for the graph's end makes the runtime
    check in Python instead (:func:`graphmend.runtime.deferred_check`):
    only then is it known whether the object existed before the frame.
    """
    runs_after = _node_ids(after) - _node_ids([guard])
    return [Hazard(effect.node, f"after the guard, {effect.what}",
                   effect.through if effect.through is not None and _kept(effect.through, after) else None)
            for effect in effects if id(effect.node) in runs_after and not effect.owned]


def _kept(through: cst.BaseExpression, statements: list[cst.CSTNode]) -> bool:
    """Whether nothing in ``statements`` binds ``through`` (a name or an
    attribute chain) to another object than its own update (``+=``): no
    store of its root name, and no assignment, ``del``, loop or ``with``
    target of the chain itself."""
    chain, root = dotted_name(through), root_name(through)
    updates = 0
    for statement in statements:
        for node in walk_own(statement):
            if isinstance(node, cst.AugAssign) and dotted_name(node.target) == chain:
                updates += 1
            targets = assigned_targets(node) if isinstance(node, cst.BaseSmallStatement) else []
            targets += [node.target] if isinstance(node, (cst.Del, cst.For)) else []
            targets += [node.asname.name] if isinstance(node, cst.WithItem) and node.asname else []
            if any(dotted_name(part) == chain for target in targets for part in walk(target)):
                return False
    stores = [name for statement in statements for name in name_uses(statement).stores]
    return stores.count(root) == (updates if isinstance(through, cst.Name) else 0)


def _embedding_lookup(callee: str) -> bool:
    """Whether a call of ``callee`` looks up rows of an embedding table
    (``embed_tokens``, ``word_embeddings``), by name; a norm over
    embeddings (BART's ``layernorm_embedding``) looks nothing up."""
    lowered = callee.lower()
    return "embed" in lowered and "norm" not in lowered


def index_uses(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """Subscript indices and arguments of indexing calls in ``statement``
    (the subscripts' first).  One plain walk: a matcher's ``findall`` per
    node kind cost [Defer] most of ``fix``'s time on T5, which asks this of
    every statement after each message."""
    subscripts: list[cst.CSTNode] = []
    arguments: list[cst.CSTNode] = []
    for node in walk(statement):
        if isinstance(node, cst.Subscript):
            subscripts.extend(node.slice)
        elif isinstance(node, cst.Call):
            callee = cst.helpers.get_full_name_for_node(node.func) or ""
            last = callee.rsplit(".", 1)[-1]
            if last in vocabulary.INDEXING_CALLS or _embedding_lookup(last):
                arguments.extend(node.args)
    return subscripts + arguments


# -- messages built while tracing -----------------------------------------------------


def message_read(call: cst.Call, qualified_name: QualifiedName) -> tuple[str, cst.BaseExpression] | None:
    """``("item", x)`` for ``x.item()`` (or ``.tolist()``, ``.unique()``),
    ``("int", x)`` for ``int(x)`` (or ``float``, ``bool``, ``str``,
    ``repr``), ``("torch.unique", x)`` for ``torch.unique(x)``: what a
    deferred message makes after the graph, only if the check fails
    (:func:`graphmend.runtime.message_read`); None for any other call.
    A reader of unique values reads what the replay makes: ``("tolist",
    torch.unique(x))``, and ``("len", torch.unique(x))`` for
    ``len(torch.unique(x))`` (a count only the data tells)."""
    name = qualified_name(call.func)
    args = list(call.args)
    if vocabulary.torch_function(name) == "unique":
        reader = "torch.unique"
        args = [args[0], *_unique_options(args[1:])] if args else args
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value in vocabulary.MESSAGE_METHOD_READERS:
        method = call.func.attr.value
        options = _unique_options(args) if method == "unique" else args
        return (method, call.func.value) if not options else None
    else:
        builtin = vocabulary.builtin(name)
        reader = builtin if builtin in vocabulary.MESSAGE_READERS or (
            builtin == "len" and len(args) == 1 and reads_unique(args[0].value, qualified_name)) else None
    if reader is not None and len(args) == 1:
        (arg,) = args
        if arg.keyword is None and not arg.star:
            return reader, arg.value
    return None


def reads_unique(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    """Whether ``expr`` is a message read that makes unique values (a
    tensor, which every reader then reads as it reads a tensor)."""
    read = message_read(expr, qualified_name) if isinstance(expr, cst.Call) else None
    return read is not None and read[0] in vocabulary.UNIQUE_READERS


#: ``unique``'s options at their defaults: the reader makes the same values.
UNIQUE_DEFAULT_OPTIONS = {"sorted": m.Name("True"), "dim": m.Name("None"), "return_inverse": m.Name("False"),
                           "return_counts": m.Name("False")}


def _unique_options(options: list[cst.Arg]) -> list[cst.Arg]:
    """``options`` but those spelling a default of ``unique``."""
    return [option for option in options if option.keyword is None
            or option.keyword.value not in UNIQUE_DEFAULT_OPTIONS
            or not m.matches(option.value, UNIQUE_DEFAULT_OPTIONS[option.keyword.value])]


def literal_format(node: cst.CSTNode) -> bool:
    """``"...".format(a, b)``: a (non-bytes) literal's ``format`` with
    positional arguments only, which a deferred message splits into
    ``lazy_format(template, a, b)`` (:func:`graphmend.rules.trap.message_thunk`)."""
    return (m.matches(node, m.Call(func=m.Attribute(value=m.SimpleString(), attr=m.Name("format"))))
            and all(arg.keyword is None and not arg.star for arg in node.args)
            and "b" not in node.func.value.prefix.lower())


def _formatted_as_is(expr: cst.BaseExpression) -> set[int]:
    """The ids of the parts of a message argument whose value reaches the
    check's replay as it is and is formatted there: the argument itself;
    when it is an f-string or a literal's ``.format``, which the message
    splits into a template and values, its fields or arguments; and the
    elements of a tuple or list among these, at any depth (encoded one by
    one).  Anything else (an f-string inside a tuple, a concatenated
    literal's ``.format``) is formatted while tracing."""
    todo, strings = [expr], [expr]
    if literal_format(expr):
        todo += [arg.value for arg in expr.args]
        strings = []
    while strings:  # an f-string, or literals concatenated (not the strings inside a field)
        string = strings.pop()
        if isinstance(string, cst.ConcatenatedString):
            strings += [string.left, string.right]
        elif isinstance(string, cst.FormattedString):
            todo += [part.expression for part in string.parts if isinstance(part, cst.FormattedStringExpression)]
    parts = set()
    while todo:
        node = todo.pop()
        parts.add(id(node))
        if isinstance(node, (cst.Tuple, cst.List)):
            todo += [element.value for element in node.elements]
    return parts


def message_impurity(expr: cst.CSTNode, qualified_name: QualifiedName, static: Callable[[cst.CSTNode], bool],
                     callee: Callee | None = None) -> str | None:
    """Why ``expr`` (an exception's or a deferred call's argument) cannot
    be evaluated while tracing whether or not it is needed: it calls
    something that may fail or have effects, reads a tensor's value into
    Python other than as :func:`message_read` knows, or indexes with a
    tensor.  ``static`` tells whether an expression is never a tensor;
    ``callee`` (see :func:`call_impurity`): a pure function, which neither
    fails nor reads a value even in the graph, may be called."""
    formatted = _formatted_as_is(expr)
    for node in walk_own(expr):
        if isinstance(node, cst.Call):
            read = message_read(node, qualified_name)
            if read is not None and (id(node) in formatted or static(read[1])):
                if id(node) in formatted and reads_unique(read[1], qualified_name):
                    if read[0] in vocabulary.ONE_ELEMENT_READERS:
                        return f"{code(node)} reads one value out of unique values (how many there are, only the data tells)"
                    formatted.add(id(read[1]))  # a read of a read: both are made after the graph
                continue  # read after the graph; its operand is checked on its own
            if read is not None:
                return f"{code(node)} reads a tensor's value for more than its text"
            name = qualified_name(node.func)
            function = vocabulary.torch_function(name)
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            if (function if function is not None else method) in vocabulary.DATA_DEPENDENT_SHAPES:
                return f"{code(node)} has a size that depends on the data"
            if vocabulary.builtin(name) is not None:
                builtin = vocabulary.builtin(name)
                if builtin not in vocabulary.MESSAGE_BUILTINS:
                    return f"calls {code(node.func)}()"
                if builtin in vocabulary.MESSAGE_READERS and not all(static(a.value) for a in node.args):
                    return f"{code(node)} reads a tensor's value"
                continue
            summary = callee(node) if callee is not None and function is None else None
            if summary is not None:  # before the tensor methods, as in call_impurity
                if summary.effect is None:
                    continue
                return f"calls {code(node.func)}(), which {summary.effect}"
            if method is not None:
                if method in ("format", "join") and isinstance(node.func.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue  # a literal's format: its arguments are checked on their own
                if method in vocabulary.SCALAR_METHODS:
                    return f"{code(node)} reads a tensor's value"
                if method in vocabulary.STATIC_METHODS or (method in vocabulary.PURE_METHODS and function is None):
                    continue
            if function is not None and function not in vocabulary.IMPURE_FUNCTIONS and not function.endswith("_"):
                continue
            return f"calls {code(node.func)}(), which may fail or have effects"
        if isinstance(node, cst.Subscript) and not static(node.value) and any(
                _out_of_range(element) is OutOfRange.MAY_RAISE for element in node.slice):
            return f"indexes {code(node.value)}"  # an integer literal raises while traced: the check falls back
        if isinstance(node, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr, cst.ListComp, cst.SetComp,
                             cst.DictComp, cst.GeneratorExp)):
            return f"a {type(node).__name__} in the message"
    return None
