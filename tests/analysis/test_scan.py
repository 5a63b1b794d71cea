"""The cheap ``ast`` scan (:mod:`graphmend.analysis.scan`) never drops a
site a converter would rewrite: on every fixture and on the fuzzer's
programs, the rules find no more sites when they see every function than
when they see only the functions the scan keeps."""

from __future__ import annotations

import os
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.grammar import programs
from graphmend import pipeline
from graphmend.pipeline import transform_source
from graphmend.rules.base import Converter
from graphmend.rules.options import RULE_NAMES
from locations import FIXTURES


#: A rule that is not built in makes the pipeline hand every function to
#: the rules, past the scan; this one never changes anything.
_EVERY_FUNCTION = Converter("every_function.none", "every_function", cst.Module, lambda ctx, original, updated: updated)


def _sites(source: str, past_the_scan: bool) -> set:
    if past_the_scan:
        with pipeline.CONVERTERS.added(_EVERY_FUNCTION):
            result = transform_source(source, rules=[*RULE_NAMES, "every_function"])
    else:
        result = transform_source(source)
    return {(site.rule, site.lineno, site.what) for site in result.sites}


def _assert_scan_keeps_every_site(source: str) -> None:
    every, scanned = _sites(source, True), _sites(source, False)
    assert every <= scanned, f"sites the scan drops: {sorted(every - scanned)}\n{source}"


#: Fixtures where the scan and a converter disagree today, and how.
KNOWN_GAPS = {
    "defer/noop_helper_that_only_raises.in": (
        "[Trap] defers `if labels is not None and embeddings.shape[0] != labels.shape[0]: raise` (shapes of "
        "parameters it cannot type), which the scan calls plainly static; the runtime checks it in Python "
        "either way, so only the scan's promise is broken"),
    "where/helper_raising_under_a_static_test_in_an_arm.in": (
        "[Trap] defers the helper's `if x.dim() != 1: raise` (a shape test of a parameter it cannot type), "
        "which the scan calls plainly static; as above, the runtime checks it in Python either way"),
}


def _fixture_cases():
    for path in sorted(FIXTURES.rglob("*.in.py")):
        case = f"{path.parent.name}/{path.stem}"
        marks = pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[case]) if case in KNOWN_GAPS else ()
        yield pytest.param(path, id=case, marks=marks)


@pytest.mark.parametrize("path", _fixture_cases())
def test_the_scan_keeps_every_site_of_a_fixture(path: Path) -> None:
    _assert_scan_keeps_every_site(path.read_text(encoding="utf-8"))


@settings(derandomize=True, max_examples=int(os.environ.get("GRAPHMEND_SCAN_EXAMPLES", "8")), deadline=None,
          database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch=st.lists(programs(), min_size=1, max_size=4))
def test_the_scan_keeps_every_site_of_the_fuzzers_programs(batch) -> None:
    from fuzz.grammar import HEADER

    _assert_scan_keeps_every_site(HEADER + "\n\n".join(p.source(f"f{i}") for i, p in enumerate(batch)))


def test_the_comparison_sees_sites() -> None:
    source = (FIXTURES / "defer" / "print_fstring.in.py").read_text(encoding="utf-8")
    assert _sites(source, True) and _sites(source, True) == _sites(source, False)
