"""Rule fixtures, discovered automatically (TorchFix style).

    tests/fixtures/<rule>/<case>.in.py     the input
    tests/fixtures/<rule>/<case>.out.py    the expected output; absent means
                                           "must stay byte for byte unchanged"
    tests/fixtures/<rule>/<case>.skips.txt expected skip reasons, one
                                           "LINE: reason" per line, and for a
                                           statement the rule takes for no
                                           site at all (a static test,
                                           module-level code), "LINE: (not a
                                           site) why": no skip and no site
                                           there; absent means the rule
                                           declines nothing, and a case that
                                           stays unchanged must say why
    tests/fixtures/<rule>/<case>.lines.txt the lines a diagnosis reported,
                                           one per line; absent means none

Adding a case means adding files.  Each rule runs alone (its folder name),
matching statically, as ``graphmend fix --select RULE`` does, or, with a
``.lines.txt``, at those lines as mending from a diagnosis does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmend.pipeline import transform_source
from locations import FIXTURES

CASES = sorted(FIXTURES.glob("*/*.in.py"))
#: How a ``.skips.txt`` line names a statement the rule passes over without
#: a word, because it is no site for the rule, and why.
NOT_A_SITE = "(not a site) "


def _case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name.removesuffix('.in.py')}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_fixture(case: Path) -> None:
    rule = case.parent.name
    stem = case.name.removesuffix(".in.py")
    source = case.read_text()
    expected_path = case.with_name(f"{stem}.out.py")
    expected = expected_path.read_text() if expected_path.exists() else source
    skips_path = case.with_name(f"{stem}.skips.txt")
    stated = [line for line in skips_path.read_text().splitlines() if line.strip()] if skips_path.exists() else []
    no_sites = [int(line.partition(":")[0]) for line in stated if line.partition(": ")[2].startswith(NOT_A_SITE)]
    expected_skips = [line for line in stated if not line.partition(": ")[2].startswith(NOT_A_SITE)]

    lines_path = case.with_name(f"{stem}.lines.txt")
    lines = frozenset(map(int, lines_path.read_text().split())) if lines_path.exists() else None

    result = transform_source(source, rules=[rule], filename=str(case), lines=lines)

    assert result.code == expected
    assert [f"{s.lineno}: {s.reason}" for s in result.skips] == expected_skips
    statements = source.splitlines()
    for lineno in no_sites:  # a statement of the case, which the rule neither rewrote nor declined
        assert statements[lineno - 1].strip() and not statements[lineno - 1].lstrip().startswith("#"), lineno
        assert lineno not in {s.lineno for s in (*result.sites, *result.skips)}, lineno
    # Idempotence: mending mended code changes nothing more.
    assert transform_source(result.code, rules=[rule]).code == result.code


def test_a_case_left_unchanged_says_why() -> None:
    # A case that must stay unchanged passes when the rule does nothing at
    # all: its reasons say what keeps it so.
    silent = [_case_id(case) for case in CASES if not case.with_name(case.name.replace(".in.py", ".out.py")).exists()
              and not case.with_name(case.name.replace(".in.py", ".skips.txt")).exists()]
    assert silent == []


def test_every_rule_has_fixtures() -> None:
    from graphmend.pipeline import RULE_NAMES

    for name in RULE_NAMES:
        assert list((FIXTURES / name).glob("*.in.py")), f"no fixtures for rule {name!r}"


PIPELINE_CASE = '''import logging

import torch

logger = logging.getLogger(__name__)


def step(x, scale):
    if torch.isnan(x).any():
        raise ValueError("NaN in input")
    y = x * scale
    if y.sum() > 0:
        y = y - y.mean()
    logger.info("step done, norm %s", y.norm())
    return y
'''


def test_pipeline_reports_lines_of_the_original_source():
    result = transform_source(PIPELINE_CASE)
    assert [(s.rule, s.lineno) for s in result.sites] == [("trap", 9), ("where", 12), ("defer", 14)]
    assert result.code.count("from graphmend import runtime as _graphmend") == 1


def test_pipeline_lines_select_statements_of_the_original_source():
    # Line 14 is the logger call in the original; [Where] and [Trap] grow
    # the code above it, and [Defer] must still find it.
    result = transform_source(PIPELINE_CASE, lines=frozenset({9, 12, 14}))
    assert [(s.rule, s.lineno) for s in result.sites] == [("trap", 9), ("where", 12), ("defer", 14)]
    only_defer = transform_source(PIPELINE_CASE, lines=frozenset({14}))
    assert [(s.rule, s.lineno) for s in only_defer.sites] == [("defer", 14)]
