"""The rules' names and settings, importable without LibCST.

A process that only decides *what* to rewrite (``graphmend.compile`` handing
its skeletons to :mod:`graphmend.mending.sidecar`) needs these and nothing of the
rules themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend.analysis.summaries import Summary

#: The rule families, in the order the engine tries them on one node.
RULE_NAMES: tuple[str, ...] = ("trap", "where", "defer")


def select_rules(names: Iterable[str] | None, known: tuple[str, ...] = RULE_NAMES) -> tuple[str, ...]:
    """The rule names selected from ``known`` (all when ``None``), in rule order."""
    if names is None:
        return known
    wanted = set(names)
    unknown = wanted - set(known)
    if unknown:
        raise ValueError(f"unknown rule(s) {sorted(unknown)}; known: {list(known)}")
    return tuple(rule for rule in known if rule in wanted)


def built_in(rule_names: Iterable[str]) -> bool:
    """Whether these are all built-in rules (the ``ast`` scan knows where
    they have sites, and a helper process has them; a rule plugged into
    the pipeline is neither)."""
    return set(rule_names) <= set(RULE_NAMES)


@dataclass(frozen=True)
class RuleOptions:
    """Immutable settings handed to every converter.

    ``rules`` are the rule families that may act; ``lines`` restricts them
    to statements that start on one of these lines of the source (the sites
    a diagnosis reported; ``None``: each rule finds sites by its own static
    matching); with ``also_static``, the rules act on those lines and on
    what they match statically besides (a function mended statically, then
    at the sites a diagnosis of it reported: static matching does not find
    every site a diagnosis does);
    ``effect_helpers`` are qualified names of functions whose only effect
    is a print, a log record or a warning; ``callees`` pairs the global
    names the functions call with the summary of the Python function each
    holds (:class:`graphmend.analysis.summaries.Summary`: pure, or the
    effect it has, named), read from its source in the process that
    planned the rewrite.
    """

    rules: frozenset[str] = frozenset(RULE_NAMES)
    lines: frozenset[int] | None = None
    also_static: bool = False
    effect_helpers: frozenset[str] = frozenset()
    callees: frozenset[tuple[str, Summary]] = frozenset()
