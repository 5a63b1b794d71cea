"""Early returns, lowered before control flow (AutoGraph's order).

``if T: ...; return a`` followed by more code: the code after the ``if``
(to the end of the function) runs only when ``T`` is false, so it *is* the
else arm.  :func:`lower_returns` moves it there, at any depth -- an early
return inside an arm of an outer ``if`` takes the outer ``if``'s
continuation along, copied into each arm -- so that every tensor ``if``
that returns returns on all paths, and :mod:`.if_statement` can merge the
returned values leaf by leaf.  Only functions with such an ``if`` change,
and only the ``if``s on the way to one.  Python runs the restructured code
exactly as before: it is the same control flow, spelled with ``else``.

Left alone (the ``if`` converter then says why): a return inside a loop,
``try`` or ``with`` in the arm, and restructurings that would copy more
than :data:`MAX_COPIED` statements.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from graphmend.analysis.bindings import ends_abruptly, iter_children, statements
from graphmend.analysis.facts import FunctionFacts
from graphmend.rules.base import Context

#: The most statements the continuations may add to one function.
MAX_COPIED = 400


def _returns_inside(node: cst.CSTNode) -> tuple[bool, bool]:
    """(has a return of its own, one of them sits in a loop/try/with)."""
    found = blocked = False
    pending = [(child, False) for child in iter_children(node)]
    while pending:
        current, inside = pending.pop()
        if isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(current, cst.Return):
            found = True
            blocked |= inside
            continue
        inside_now = inside or isinstance(current, (cst.For, cst.While, cst.Try, cst.TryStar, cst.With))
        pending.extend((child, inside_now) for child in iter_children(current))
    return found, blocked


class _Lowering:
    def __init__(self, ctx: Context, facts: FunctionFacts, tensor_if) -> None:
        self.ctx = ctx
        self.facts = facts
        self.tensor_if = tensor_if  # (If, inside a diagnosed if) -> whether [Where] would try it
        self.copied = 0

    def needs(self, statement: cst.CSTNode, inside: bool = False) -> bool:
        """An ``if`` whose continuation must move into its arms; ``inside``:
        it lies in an arm of an ``if`` on a diagnosed line (as the
        continuation of one does, once moved)."""
        if not isinstance(statement, cst.If):
            return False
        if self.tensor_if(statement, inside):
            found, blocked = _returns_inside(statement)
            if found and not blocked:
                return True
        arms = [statements(statement.body)]
        if isinstance(statement.orelse, cst.If):
            arms.append([statement.orelse])
        elif statement.orelse is not None:
            arms.append(statements(statement.orelse.body))
        inside = inside or self.ctx.diagnosed(statement)
        return any(self.needs(s, inside) for arm in arms for s in arm)

    def arm(self, body: Sequence[cst.CSTNode], continuation: Sequence[cst.CSTNode],
            inside: bool = False) -> list[cst.CSTNode]:
        """``body`` then ``continuation``, with every ``if`` that needs it
        holding the rest in its arms."""
        combined = list(body)
        if continuation and not ends_abruptly(body):
            self.copied += len(continuation)
            combined += [self.ctx.metadata.copy(s) for s in continuation]
        for index, statement in enumerate(combined):
            if self.needs(statement, inside):
                return [*combined[:index], self._split(statement, combined[index + 1 :], inside)]
        return combined

    def _split(self, node: cst.If, rest: Sequence[cst.CSTNode], inside: bool) -> cst.If:
        inside = inside or self.ctx.diagnosed(node)
        then = self.arm(statements(node.body), rest, inside)
        if isinstance(node.orelse, cst.If):
            otherwise = self.arm([node.orelse], rest, inside)
        elif node.orelse is not None:
            otherwise = self.arm(statements(node.orelse.body), rest, inside)
        else:
            otherwise = self.arm([], rest, inside)
        body = node.body if isinstance(node.body, cst.IndentedBlock) else cst.IndentedBlock([])
        new_body = self._origin(body.with_changes(body=then), body)
        orelse = None
        if otherwise:
            old_else = node.orelse if isinstance(node.orelse, cst.Else) else None
            block = old_else.body if old_else is not None else cst.IndentedBlock([])
            orelse = cst.Else(self._origin(block.with_changes(body=otherwise), block))
            if old_else is not None:
                self._origin(orelse, old_else)
        return self._origin(node.with_changes(body=new_body, orelse=orelse), node)

    def _origin(self, new: cst.CSTNode, old: cst.CSTNode) -> cst.CSTNode:
        self.ctx.metadata._origin[new] = self.ctx.metadata.original(old)
        return new


def lower_returns(ctx: Context, facts: FunctionFacts, tensor_if) -> cst.FunctionDef | None:
    """``facts.function`` with its early returns lowered, or None when
    nothing needs it (or it would copy too much)."""
    function = facts.function
    lowering = _Lowering(ctx, facts, tensor_if)
    body = statements(function.body)
    if not any(lowering.needs(s) for s in body):
        return None
    lowered = lowering.arm(body, [])
    if lowering.copied > MAX_COPIED:
        return None
    block = function.body.with_changes(body=lowered)
    lowering._origin(block, function.body)
    return lowering._origin(function.with_changes(body=block), function)
