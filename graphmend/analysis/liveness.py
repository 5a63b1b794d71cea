"""Which names may be read after a statement: backward liveness.

Read-only.  :class:`Liveness` walks a function's structured code backward
once and records, for every statement, the names some path may read after
it before rebinding them.  Conservative where Python is dynamic:

* a function that calls ``locals()``/``vars()``/``eval()``/``exec()``
  reads every name;
* a name a nested function or lambda reads may be read whenever it is
  called, so it is live everywhere;
* any statement inside ``try`` may jump to a handler or ``finally``;
* ``return`` and ``raise`` pass through ``finally`` blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from graphmend.analysis.bindings import (
    iter_children,
    name_uses,
    read_names,
    statements,
    target_names,
    target_names_of,
    walk_own,
)
from graphmend.vocabulary import DYNAMIC_SCOPE_CALLS


@dataclass(frozen=True)
class _Exits:
    """Live sets at the places control can jump to from a statement."""

    loop_exit: frozenset[str] = frozenset()  # ``break``
    loop_head: frozenset[str] = frozenset()  # ``continue``
    handlers: frozenset[str] = frozenset()  # an exception inside ``try``
    finally_: frozenset[str] = frozenset()  # ``return`` through ``finally``


class Liveness:
    def __init__(self, function: cst.FunctionDef) -> None:
        self._after: dict[int, frozenset[str]] = {}
        body_reads = read_names(function.body)
        self.reads_everything = bool(body_reads & DYNAMIC_SCOPE_CALLS)
        self.everything = frozenset(body_reads | set(name_uses(function.body).stores))
        self._always = frozenset(_closure_reads(function.body))
        self._block(statements(function.body), frozenset(), _Exits())

    def after(self, statement: cst.CSTNode) -> frozenset[str]:
        """Names that may be read after ``statement`` (before being rebound)."""
        if self.reads_everything:
            return self.everything
        return self._after.get(id(statement), self.everything) | self._always

    # -- the backward walk ------------------------------------------------------
    def _block(self, body: Sequence[cst.CSTNode], live: frozenset[str], exits: _Exits) -> frozenset[str]:
        for statement in reversed(body):
            live = self._statement(statement, live | exits.handlers, exits)
        return live

    def _statement(self, statement: cst.CSTNode, live: frozenset[str], exits: _Exits) -> frozenset[str]:
        self._after[id(statement)] = live
        if isinstance(statement, cst.SimpleStatementLine):
            for small in reversed(statement.body):
                self._after[id(small)] = live
                live = self._small(small, live, exits)
            return live
        if isinstance(statement, cst.If):
            then = self._block(statements(statement.body), live, exits)
            if isinstance(statement.orelse, cst.If):
                otherwise = self._statement(statement.orelse, live, exits)
            elif statement.orelse is not None:
                otherwise = self._block(statements(statement.orelse.body), live, exits)
            else:
                otherwise = live
            return frozenset(read_names(statement.test)) | then | otherwise
        if isinstance(statement, (cst.For, cst.While)):
            return self._loop(statement, live, exits)
        if isinstance(statement, cst.With):
            inner = self._block(statements(statement.body), live, exits)
            bound = {n for item in statement.items if item.asname for n in target_names(item.asname.name)}
            reads = set().union(*(read_names(item.item) for item in statement.items))
            return frozenset(reads) | (inner - bound)
        if isinstance(statement, (cst.Try, cst.TryStar)):
            return self._try(statement, live, exits)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return (live - {statement.name.value}) | frozenset(read_names(statement))
        # match and anything else: every name it reads, nothing killed
        return live | frozenset(read_names(statement))

    def _small(self, small: cst.BaseSmallStatement, live: frozenset[str], exits: _Exits) -> frozenset[str]:
        reads = frozenset(read_names(small))
        if isinstance(small, cst.Return):
            return reads | exits.finally_
        if isinstance(small, cst.Raise):
            return reads | exits.handlers | exits.finally_
        if isinstance(small, cst.Break):
            return exits.loop_exit
        if isinstance(small, cst.Continue):
            return exits.loop_head
        if isinstance(small, cst.AugAssign):
            return live | reads
        if isinstance(small, cst.Del):
            return live | reads
        killed = frozenset(target_names_of(small)) if not isinstance(small, (cst.Global, cst.Nonlocal)) else frozenset()
        return (live - killed) | reads

    def _loop(self, loop: cst.For | cst.While, live: frozenset[str], exits: _Exits) -> frozenset[str]:
        after_loop = live
        if loop.orelse is not None:
            after_loop = self._block(statements(loop.orelse.body), live, exits)
        test_reads = frozenset(read_names(loop.test)) if isinstance(loop, cst.While) else frozenset()
        targets = frozenset(target_names(loop.target)) if isinstance(loop, cst.For) else frozenset()
        target_reads = frozenset(read_names(loop.target)) if isinstance(loop, cst.For) else frozenset()
        # The head: what the next iteration (or the exit) may read.
        head = after_loop | test_reads
        while True:
            body = self._block(statements(loop.body), head, _Exits(live, head, exits.handlers, exits.finally_))
            new_head = after_loop | test_reads | (body - targets) | target_reads
            if new_head == head:
                break
            head = new_head
        if isinstance(loop, cst.For):
            return head | frozenset(read_names(loop.iter))
        return head

    def _try(self, node: cst.Try | cst.TryStar, live: frozenset[str], exits: _Exits) -> frozenset[str]:
        out = live
        finally_reads = frozenset()
        if node.finalbody is not None:
            finally_reads = self._block(statements(node.finalbody.body), live | exits.finally_, exits)
            out = finally_reads
        handlers = frozenset()
        for handler in node.handlers:
            handled = self._block(statements(handler.body), out, exits)
            if handler.type is not None:
                handled |= frozenset(read_names(handler.type))
            handlers |= handled
        else_live = out
        if node.orelse is not None:
            else_live = self._block(statements(node.orelse.body), out, exits)
        inner = _Exits(exits.loop_exit, exits.loop_head, exits.handlers | handlers | finally_reads,
                       exits.finally_ | finally_reads)
        return self._block(statements(node.body), else_live, inner) | handlers


def _closure_reads(body: cst.CSTNode) -> set[str]:
    """Names read by nested functions and lambdas (read whenever they run)."""
    reads: set[str] = set()
    for node in walk_own(body):
        for child in iter_children(node):
            if isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                reads |= read_names(child)
    return reads
