"""Dry-running the rules on the sites a trace reported: whether the rule expected
to fix each one rewrites it, or the reasons it declined.
"""

from __future__ import annotations

from graphmend.analysis.source import parse_file
from graphmend.analysis.summaries import static_summaries


def ask_the_rules(filename: str, sites: dict[int, str]) -> dict[int, tuple[bool, str | None]]:
    """Dry-run the rules on the functions around ``sites`` (line -> the rule
    expected to fix it), all at once and in the skeleton of their file that
    mending uses, so inner sites are rewritten as ``mend`` will rewrite them:
    line -> (fixable, why not)."""
    from graphmend.errors import SourceError
    from graphmend.pipeline import transform_skeleton
    from graphmend.rules.base import RuleOptions

    parsed = parse_file(filename)
    answers = {line: (False, "no source for this site") for line in sites}
    if parsed is None:
        return answers
    units = []
    for line in sites:
        around = parsed.defs_around(line)
        if around and parsed.statement_at(line) is not None:
            units.append(parsed.unit_of(max(around, key=lambda node: node.lineno)))
    if not units:
        return answers
    options = RuleOptions(lines=frozenset(sites), effect_helpers=parsed.effect_helpers,
                          callees=static_summaries(parsed, [unit.node for unit in units]))
    try:
        result = transform_skeleton(parsed.skeleton(units), options, filename)
    except SourceError as err:
        return {line: (False, str(err)) for line in sites}
    rewritten = {site.lineno for site in result.sites}
    for line, rule in sites.items():
        if answers[line][1] == "no source for this site" and not any(u.start <= line <= u.end for u in units):
            continue
        if line in rewritten:
            answers[line] = (True, None)
        else:
            declined = [f"[{s.rule}] {s.reason}" for s in result.skips if s.lineno == line]
            answers[line] = (False, "; ".join(declined) or f"[{rule}] no rewrite matches this statement")
    return answers
