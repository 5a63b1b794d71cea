"""Which names a piece of code reads and binds, and which are bound before a
statement or read after it.  Read-only facts for [Where]; conservative in the
direction that makes a rule decline (a name is "maybe live", "maybe unbound").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

#: Calls that can read any local by name: with these every local is live.
DYNAMIC_SCOPE_CALLS = frozenset({"locals", "vars", "eval", "exec"})


class _NameUses(cst.CSTVisitor):
    """Names read (``loads``) and bound (``stores``) in the visited code."""

    def __init__(self) -> None:
        self.loads: list[cst.Name] = []
        self.stores: list[str] = []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # ``.attr`` is not a variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # ``keyword=`` is not a variable
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._store(node.target)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if node.value is not None:
            node.value.visit(self)
        self._store(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        node.value.visit(self)
        node.target.visit(self)  # read, then written
        self._store(node.target)
        return False

    def visit_For(self, node: cst.For) -> bool:
        node.iter.visit(self)
        self._store(node.target)
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> bool:
        self.loads.append(node)
        return False

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.stores.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)
        else:  # attribute or subscript store: its object is read
            target.visit(self)


def name_uses(node: cst.CSTNode) -> _NameUses:
    uses = _NameUses()
    node.visit(uses)
    return uses


def read_names(node: cst.CSTNode) -> set[str]:
    return {name.value for name in name_uses(node).loads}


def stored_names(node: cst.CSTNode) -> list[str]:
    """Names ``node`` binds, in order of appearance, without repeats."""
    return list(dict.fromkeys(name_uses(node).stores))


@dataclass(frozen=True)
class FunctionScope:
    """Facts about one (original) function definition."""

    function: cst.FunctionDef
    parameters: frozenset[str]
    receiver: str | None  # the first positional parameter (``self`` of a method)
    reads_everything: bool  # calls locals()/vars()/eval()/exec()

    @classmethod
    def of(cls, function: cst.FunctionDef) -> FunctionScope:
        positional = [*function.params.posonly_params, *function.params.params]
        receiver = positional[0].name.value if positional else None
        reads = read_names(function.body)
        return cls(function, parameter_names(function), receiver, bool(reads & DYNAMIC_SCOPE_CALLS))

    def live_after(self, statement: cst.CSTNode, names: Sequence[str]) -> set[str]:
        """Those of ``names`` that code other than ``statement`` may read.

        Conservative: any read elsewhere in the function counts, and when
        ``statement`` sits in a loop, reads inside it count too (the next
        iteration sees the value).
        """
        if self.reads_everything:
            return set(names)
        path = _path_to(self.function.body, statement)
        in_loop = any(isinstance(node, (cst.For, cst.While)) for node in path or ())
        reads = [n.value for n in name_uses(self.function.body).loads]
        inside = [] if in_loop else [n.value for n in name_uses(statement).loads]
        outside = set(reads)
        for name in set(inside):
            if reads.count(name) == inside.count(name):
                outside.discard(name)
        return {name for name in names if name in outside}

    def bound_before(self, statement: cst.CSTNode) -> set[str]:
        """Names certainly bound when ``statement`` starts: parameters, and
        names bound by simple statements that precede it in its own block and
        in every enclosing block of the function (loop targets included)."""
        bound = set(self.parameters)
        path = _path_to(self.function.body, statement) or []
        for parent, child in zip(path, path[1:]):
            if isinstance(parent, cst.For) and child is parent.body:
                bound.update(target_names(parent.target))
            body = getattr(parent, "body", None)
            if not isinstance(body, (list, tuple)):
                continue
            for sibling in body:
                if sibling is child:
                    break
                if isinstance(sibling, cst.SimpleStatementLine):
                    bound.update(stored_names(sibling))
        return bound


def parameter_names(function: cst.FunctionDef) -> frozenset[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return frozenset(p.name.value for p in every)


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds (``a``, ``a, *b``, ``[a, b]``)."""
    uses = _NameUses()
    uses._store(target)
    return uses.stores


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """Nodes from ``root`` down to ``target`` (both included), or None."""
    if root is target:
        return [root]
    for child in root.children:
        rest = _path_to(child, target)
        if rest is not None:
            return [root, *rest]
    return None


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, parents first."""
    yield node
    for child in node.children:
        yield from walk(child)
