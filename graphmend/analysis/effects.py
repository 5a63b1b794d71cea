"""Which statements of a function have effects a deferred check must not outrun.

Read-only: :func:`hazards_around` lists, for one statement of a function
(a validation guard), the code that makes deferring its ``raise`` visible:

* after the guard (to the end of the function; the whole body of a loop
  around it): anything that mutates in place -- ``x.add_()`` and other
  ``*_`` tensor methods, ``out=``, item or attribute stores, augmented
  assignment (``x += 1`` is in place for a tensor that may be the
  caller's), container mutators (``.append``, ``.update`` ...);
* anywhere in the function: a Python-level effect on state the function
  does not own -- stores into attributes, ``global``/``nonlocal``, item
  stores, augmented assignment or container mutators on a parameter or a
  free name.  Under torch.compile Dynamo applies such effects after the
  deferred checks, so a check that raises would lose one made before it.

Calls into other functions are not analysed (documented by the rules).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from graphmend.analysis.bindings import parameter_names, target_names

#: Methods that mutate a list, dict or set in place.
CONTAINER_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
     "popitem", "add", "discard", "sort", "reverse", "__setitem__", "__delitem__"}
)


@dataclass(frozen=True)
class Hazard:
    node: cst.CSTNode
    reason: str


@dataclass(frozen=True)
class _Effect:
    node: cst.CSTNode
    what: str
    #: "tensor": an in-place tensor op (a graph op under torch.compile);
    #: "python": a Python effect Dynamo applies after the graph;
    #: "either": an item store or ``+=``, which is one or the other.
    kind: str
    #: Only names the function bound itself are touched (they may still
    #: alias a parameter: ``y = x``).
    owned: bool


def in_place_method(name: str) -> bool:
    """``add_``, ``masked_fill_``: PyTorch's in-place naming (not dunders)."""
    return name.endswith("_") and not name.endswith("__") and name != "_"


def root_name(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x``, ``x.a.b``, ``x[i].a``; None for anything else."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


class _BoundNames(cst.CSTVisitor):
    """Names a function body binds: assignment, loop and ``with`` targets."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _bind(self, target: cst.BaseExpression) -> None:
        self.names.update(target_names(target))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)


def local_names(function: cst.FunctionDef) -> frozenset[str]:
    """Names the function binds itself (not its parameters)."""
    finder = _BoundNames()
    function.body.visit(finder)
    return frozenset(finder.names) - parameter_names(function)


class _EffectFinder(cst.CSTVisitor):
    """Every effect in a function body (see :class:`_Effect`)."""

    def __init__(self, locals_: frozenset[str]) -> None:
        self.locals = locals_
        self.effects: list[_Effect] = []

    def _add(self, node: cst.CSTNode, what: str, kind: str, touched: cst.BaseExpression | None) -> None:
        owned = touched is not None and root_name(touched) in self.locals
        self.effects.append(_Effect(node, what, kind, owned))

    def _store(self, node: cst.CSTNode, target: cst.BaseExpression, verb: str) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(node, element.value, verb)
        elif isinstance(target, cst.Attribute):
            # Whoever owns the object (``m = self``), it is a Python effect.
            self._add(node, f"{verb} {_text(target)}", "python", None)
        elif isinstance(target, cst.Subscript):
            self._add(node, f"{verb} {_text(target)}", "either", target)

    def visit_Global(self, node: cst.Global) -> None:
        self._add(node, "declares global", "python", None)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._add(node, "declares nonlocal", "python", None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(node, target.target, "stores into")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._store(node, node.target, "stores into")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Attribute):
            self._add(node, f"updates {_text(node.target)}", "python", None)
        else:
            self._add(node, f"updates {_text(node.target)} in place", "either", node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._store(node, node.target, "deletes")

    def visit_Call(self, node: cst.Call) -> None:
        if any(arg.keyword is not None and arg.keyword.value == "out" for arg in node.args):
            self._add(node, f"writes through out= in {_text(node.func)}()", "tensor", None)
        if isinstance(node.func, cst.Attribute):
            method, receiver = node.func.attr.value, node.func.value
            if in_place_method(method):
                self._add(node, f"calls {_text(node.func)}()", "tensor", receiver)
            elif method in CONTAINER_MUTATORS:
                self._add(node, f"calls {_text(node.func)}()", "python", receiver)


def _text(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _node_ids(nodes) -> set[int]:
    found: set[int] = set()

    class _Collect(cst.CSTVisitor):
        def on_visit(self, child: cst.CSTNode) -> bool:
            found.add(id(child))
            return True

    for node in nodes:
        node.visit(_Collect())
    return found


def hazards_around(
    function: cst.FunctionDef, guard: cst.CSTNode, after: list[cst.CSTNode]
) -> list[Hazard]:
    """The effects in ``function`` that deferring ``guard``'s raise would
    make visible or lose.  ``after`` holds the statements that can run
    after the guard (the caller knows where the guard sits).

    After the guard every effect counts but a Python effect on the
    function's own names (a local list's ``append``: gone with the raise).
    Before it, only Python effects on state the function does not own: an
    in-place tensor op has run by the time the check fires, as in eager.
    """
    finder = _EffectFinder(local_names(function))
    function.body.visit(finder)
    in_guard, runs_after = _node_ids([guard]), _node_ids(after)
    hazards = []
    for effect in finder.effects:
        if id(effect.node) in in_guard:
            continue
        if id(effect.node) in runs_after:
            if not (effect.kind == "python" and effect.owned):
                hazards.append(Hazard(effect.node, f"after the guard, {effect.what}"))
        elif effect.kind != "tensor" and not effect.owned:
            hazards.append(Hazard(effect.node, f"before the guard, {effect.what}"))
    return hazards
