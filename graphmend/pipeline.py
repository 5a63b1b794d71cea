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
import difflib
from dataclasses import dataclass, replace

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
    Lines are ``source``'s throughout: each rule sees the previous rule's
    output, so ``lines`` is translated into its numbering and the sites and
    skips it records are translated back.  Raises :class:`SourceError` when
    ``source`` does not parse.
    """
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        raise SourceError(filename, err.raw_line, err.message) from None
    sites: list[Site] = []
    skips: list[Skip] = []
    # to_source[i] is the line of ``source`` that line i + 1 of the current
    # code comes from (for rewritten code: the first line it replaced).
    to_source = list(range(1, source.count("\n") + 2))
    for rule_class in select_rules(rules):
        # A context per rule: libcst's AddImportsVisitor re-adds an aliased
        # import that an earlier pass on the same context asked for.
        context = CodemodContext(filename=filename)
        current = None if lines is None else frozenset(
            i + 1 for i, line in enumerate(to_source) if line in lines
        )
        before = module.code
        module = rule_class(context, RuleOptions(lines=current)).transform_module(module)
        sites += [replace(s, lineno=to_source[s.lineno - 1]) for s in context.scratch["sites"]]
        skips += [replace(s, lineno=to_source[s.lineno - 1]) for s in context.scratch["skips"]]
        if module.code != before:
            to_source = _carry_line_map(before, module.code, to_source)
    code = module.code
    return TransformResult(code=code, changed=code != source, sites=tuple(sites), skips=tuple(skips))


def _carry_line_map(before: str, after: str, to_source: list[int]) -> list[int]:
    """``to_source`` for ``after``, given it for ``before``: unchanged lines
    keep their origin; rewritten or inserted ones take the origin of the
    first line they replace, or of the line they are inserted before."""
    old, new = before.splitlines(), after.splitlines()
    mapped = [0] * (len(new) + 1)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for offset, j in enumerate(range(j1, j2)):
            if tag == "equal":
                mapped[j] = to_source[i1 + offset]
            else:
                mapped[j] = to_source[min(i1, len(to_source) - 1)]
    mapped[len(new)] = to_source[-1]
    return mapped
