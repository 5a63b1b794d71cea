"""What every rule shares: the result types and the codemod base class.

A rule is a libcst ``VisitorBasedCodemodCommand`` (LibCST's codemod
convention).  It rewrites from ``updated_node``, matches with
``libcst.matchers`` and qualified names, asks for imports through
``AddImportsVisitor``, and records every site it touched or declined in the
codemod context instead of raising: "skipped, because ..." is a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import PositionProvider, QualifiedNameProvider

#: Name under which rewritten code reaches :mod:`graphmend.runtime`.
RUNTIME_ALIAS = "_graphmend"


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
