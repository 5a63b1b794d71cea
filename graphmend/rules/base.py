"""What every rule shares: the result types and the codemod base class.

A rule is a libcst ``VisitorBasedCodemodCommand`` (LibCST's codemod
convention).  It rewrites from ``updated_node``, matches with
``libcst.matchers`` and qualified names, asks for imports through
``AddImportsVisitor``, and records every site it touched or declined in the
codemod context instead of raising: "skipped, because ..." is a result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import BuiltinScope, GlobalScope, PositionProvider, QualifiedNameProvider, ScopeProvider

#: Name under which rewritten code reaches :mod:`graphmend.runtime`.
RUNTIME_ALIAS = "_graphmend"

_RUNTIME_IMPORT = m.SimpleStatementLine(
    body=[
        m.ImportFrom(
            module=m.Name("graphmend"),
            names=[m.ImportAlias(name=m.Name("runtime"), asname=m.AsName(name=m.Name(RUNTIME_ALIAS)))],
        )
    ]
)


class Declined(Exception):
    """A site a rule leaves alone; ``str()`` is the reason it records."""


@dataclass(frozen=True)
class Site:
    """A statement a rule rewrote."""

    rule: str
    lineno: int  # 1-based, in the source the pipeline was given
    what: str  # one line, e.g. "logger.warning_once -> deferred"


@dataclass(frozen=True)
class Skip:
    """A statement a rule looked at and left alone, and why."""

    rule: str
    lineno: int
    reason: str


@dataclass(frozen=True)
class RuleOptions:
    """Immutable settings handed to every rule.

    ``lines`` restricts a rule to statements that start on one of these
    lines (the sites a diagnosis reported); ``None`` means the rule finds
    sites by its own static matching.
    """

    lines: frozenset[int] | None = None


class Rule(VisitorBasedCodemodCommand):
    """Base class: a codemod that records Sites and Skips in the context."""

    #: Short name used in ``rules=`` arguments, reports and fixture folders.
    NAME: ClassVar[str]
    METADATA_DEPENDENCIES = (PositionProvider, QualifiedNameProvider)

    def __init__(self, context: CodemodContext, options: RuleOptions) -> None:
        super().__init__(context)
        self.options = options
        context.scratch.setdefault("sites", [])
        context.scratch.setdefault("skips", [])

    # -- helpers for subclasses -------------------------------------------------
    def line_of(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def wanted(self, node: cst.CSTNode) -> bool:
        """True when the options allow this rule to act on ``node``'s line."""
        lines = self.options.lines
        return lines is None or self.line_of(node) in lines

    def record(self, node: cst.CSTNode, what: str) -> None:
        self.context.scratch["sites"].append(Site(self.NAME, self.line_of(node), what))

    def skip(self, node: cst.CSTNode, reason: str) -> None:
        self.context.scratch["skips"].append(Skip(self.NAME, self.line_of(node), reason))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        """Ask ``AddImportsVisitor`` for the runtime import when this pass
        rewrote something and the module lacks it: once per pass (libcst
        1.9 adds an aliased import once per request), and not at all when an
        earlier rule added it (the visitor would walk the module for
        nothing)."""
        rewrote = any(site.rule == self.NAME for site in self.context.scratch["sites"])
        if rewrote and not any(m.matches(s, _RUNTIME_IMPORT) for s in updated_node.body):
            AddImportsVisitor.add_needed_import(self.context, "graphmend", "runtime", asname=RUNTIME_ALIAS)
        return updated_node


def runtime_function(name: str) -> cst.Attribute:
    """``_graphmend.<name>``."""
    return cst.Attribute(value=cst.Name(RUNTIME_ALIAS), attr=cst.Name(name))


def runtime_call(name: str, args: Iterable[cst.Arg | cst.BaseExpression]) -> cst.Call:
    """``_graphmend.<name>(*args)``."""
    return cst.Call(func=runtime_function(name), args=[a if isinstance(a, cst.Arg) else cst.Arg(a) for a in args])


def string(name: str) -> cst.SimpleString:
    """A double-quoted literal of ``name`` (a dotted identifier)."""
    return cst.SimpleString(f'"{name}"')


def thunk(value: cst.BaseExpression, captured: Iterable[str] = ()) -> cst.Lambda:
    """``lambda a=a, b=b: value``, called right after it is made.

    The locals of the enclosing function that ``value`` reads (``captured``,
    all surely bound here) are default arguments, not free variables: a
    closure would turn them into cells, and a Dynamo resume function reads
    an unbound cell as a free variable (``NameError: cannot access free
    variable`` where the original raised ``UnboundLocalError``).
    """
    params = [
        cst.Param(
            cst.Name(name),
            default=cst.Name(name),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        for name in captured
    ]
    return cst.Lambda(cst.Parameters(params), value)


def global_name(rule: Rule, node: cst.BaseExpression) -> str:
    """``node``'s dotted text when it names a module global or builtin (so
    :func:`graphmend.runtime.resolve` finds the same object later).
    ``rule`` provides ``ScopeProvider`` metadata for ``node``."""
    dotted = cst.helpers.get_full_name_for_node(node)
    head = node
    while isinstance(head, cst.Attribute):
        head = head.value
    if dotted is None or not isinstance(head, cst.Name):
        raise Declined(f"{cst.Module([]).code_for_node(node)} is not a global name")
    assignments = rule.get_metadata(ScopeProvider, head)[head.value]
    if not all(isinstance(a.scope, (GlobalScope, BuiltinScope)) for a in assignments):
        raise Declined(f"{dotted} is not a global name")
    return dotted
