"""parse -> rules in a fixed order -> code.

The order matters and lives only here:

1. ``trap``  -- ``if T: raise E(...)`` first, so that a validation guard is
   lowered to a deferred check rather than being seen by [Where] as a branch
   that raises (which [Where] declines).
2. ``where`` -- data-dependent control flow next; its branches must be free of
   side effects, so it runs before [Defer] turns ``print``/logger calls into
   runtime calls that would look like ordinary calls to it.
3. ``defer`` -- finally, the remaining ``print``/logging/``warnings.warn``
   calls become replayable runtime calls.

Each rule runs as its own libcst codemod over the previous rule's output, so a
rule sees the code exactly as earlier rules left it; libcst's
``CodemodCommand`` applies the ``AddImportsVisitor`` requests after each rule,
and an import that is already there is not added twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst
from libcst.codemod import CodemodContext

from graphmend.errors import SourceError
from graphmend.rules.base import Rule, RuleOptions, Site, Skip
from graphmend.rules.defer import DeferRule
from graphmend.rules.trap import TrapRule
from graphmend.rules.where import WhereRule

#: Every rule, in the order the pipeline applies them.
RULES: tuple[type[Rule], ...] = (TrapRule, WhereRule, DeferRule)
RULE_NAMES: tuple[str, ...] = tuple(rule.NAME for rule in RULES)


@dataclass(frozen=True)
class TransformResult:
    code: str
    changed: bool
    sites: tuple[Site, ...]
    skips: tuple[Skip, ...]


def select_rules(names: Iterable[str] | None) -> tuple[type[Rule], ...]:
    """The rule classes named (all when ``None``), in pipeline order."""
    if names is None:
        return RULES
    wanted = set(names)
    unknown = wanted - set(RULE_NAMES)
    if unknown:
        raise ValueError(f"unknown rule(s) {sorted(unknown)}; known: {list(RULE_NAMES)}")
    return tuple(rule for rule in RULES if rule.NAME in wanted)


def transform_source(
    source: str,
    *,
    rules: Iterable[str] | None = None,
    lines: frozenset[int] | None = None,
    filename: str = "<string>",
) -> TransformResult:
    """Apply the selected rules to ``source``.

    ``lines`` limits every rule to statements starting on those lines (the
    sites a diagnosis reported); ``None`` lets each rule match statically.
    Raises :class:`SourceError` when ``source`` does not parse.
    """
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        raise SourceError(filename, err.raw_line, err.message) from None
    context = CodemodContext(filename=filename)
    options = RuleOptions(lines=lines)
    for rule_class in select_rules(rules):
        module = rule_class(context, options).transform_module(module)
    code = module.code
    return TransformResult(
        code=code,
        changed=code != source,
        sites=tuple(context.scratch.get("sites", ())),
        skips=tuple(context.scratch.get("skips", ())),
    )
