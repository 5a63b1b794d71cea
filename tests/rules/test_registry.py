"""The converter registry: converters declare their rule, node type and a
cheap check; the engine runs them in order, records the reason of one that
declines, and a rule can be turned off (the rule-off run,
tools/rule_off.py: with ``GRAPHMEND_DISABLE_RULE=where``, or one converter's
name, the tests must go red, or they do not test it)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from graphmend import pipeline
from graphmend.pipeline import transform_source
from graphmend.rules.base import Context, Converter, Declined, Registry, declining
from graphmend.rules.options import RULE_NAMES

SOURCE = "def f(x):\n    y = x + 1\n    return y\n"


def _decline(ctx: Context, original: cst.Assign, updated: cst.Assign):
    raise Declined("the plug-in never rewrites")


def _rename(ctx: Context, original: cst.Assign, updated: cst.Assign):
    ctx.record(original, "plug", "renamed")
    return updated.with_changes(targets=[cst.AssignTarget(cst.Name("z"))])


def test_every_built_in_converter_is_named_by_rule_and_construct() -> None:
    names = [converter.name for converter in pipeline.CONVERTERS]
    assert len(names) == len(set(names)) > 10
    for converter in pipeline.CONVERTERS:
        assert converter.rule in RULE_NAMES and converter.name.startswith(f"{converter.rule}.")
    assert pipeline.RULE_NAMES == RULE_NAMES


def test_the_engine_records_a_decline_under_the_converters_rule() -> None:
    with pipeline.CONVERTERS.added(Converter("plug.assign", "plug", cst.Assign, _decline)):
        result = transform_source(SOURCE, rules=["plug"])
    assert not result.changed
    assert [(skip.rule, skip.lineno, skip.reason) for skip in result.skips] == [
        ("plug", 2, "the plug-in never rewrites")]


def _record_then_decline(ctx: Context, original: cst.Assign, updated: cst.Assign):
    ctx.record(original, "plug", "renamed")
    with declining(prefix="plug: ", suffix="; kept"):
        raise Declined("changed its mind")


def _quiet(ctx: Context, original: cst.Assign, updated: cst.Assign):
    with declining(quiet=True):
        raise Declined("not worth a word")


def _final(ctx: Context, original: cst.Assign, updated: cst.Assign):
    with declining(final=True):
        raise Declined("the last word")


def _instead(ctx: Context, original: cst.Assign, updated: cst.Assign):
    with declining(instead=updated.with_changes(targets=[cst.AssignTarget(cst.Name("w"))])):
        raise Declined("a fallback")


@pytest.mark.parametrize(("first", "later", "code", "skips", "sites"), [
    # A decline forgets what the step recorded, and says the reason as worded.
    (_record_then_decline, _decline, "y = x + 1",
     ["plug: changed its mind; kept", "the plug-in never rewrites"], []),
    (_quiet, _rename, "z = x + 1", [], ["renamed"]),
    (_final, _rename, "y = x + 1", ["the last word"], []),
    (_instead, _rename, "w = x + 1", ["a fallback"], []),
])
def test_how_a_decline_is_recorded(first, later, code: str, skips: list[str], sites: list[str]) -> None:
    converters = [Converter("plug.first", "plug", cst.Assign, first), Converter("plug.later", "plug", cst.Assign, later)]
    with pipeline.CONVERTERS.added(*converters):
        result = transform_source(SOURCE, rules=["plug"])
    assert code in result.code
    assert [skip.reason for skip in result.skips] == skips
    assert [site.what for site in result.sites] == sites


def test_only_the_engine_records_a_skip() -> None:
    # Converters decline (raise Declined, worded with declining()); the
    # books are kept in one place, Context.attempt.
    package = Path(pipeline.__file__).parent
    copies = [path.name for path in package.rglob("*.py")
              if "except Declined" in path.read_text(encoding="utf-8") and path.name != "base.py"]
    assert copies == []


def test_a_registered_converter_runs_only_while_registered_and_its_rule_selected() -> None:
    converter = Converter("plug.assign", "plug", cst.Assign, _rename)
    with pipeline.CONVERTERS.added(converter):
        assert "plug" in pipeline.RULE_NAMES
        assert "z = x + 1" in transform_source(SOURCE, rules=["plug"]).code
        assert not transform_source(SOURCE, rules=["where"]).changed
        skipped = Converter("plug.other", "plug", cst.Assign, _rename, applies=lambda ctx, node: False)
        with pipeline.CONVERTERS.added(skipped, first=True):
            assert "z = x + 1" in transform_source(SOURCE, rules=["plug"]).code
    assert "plug" not in pipeline.RULE_NAMES
    with pytest.raises(ValueError, match="unknown rule"):
        transform_source(SOURCE, rules=["plug"])


def test_names_are_unique_and_a_rule_can_be_turned_off() -> None:
    registry = Registry([Converter("a.one", "a", cst.Assign, _rename)])
    with pytest.raises(ValueError, match="registered already"):
        registry.register(Converter("a.one", "a", cst.If, _rename))
    with registry.disabled("a"):
        assert registry.for_node(cst.Assign) == () and "a" not in registry.rule_names()
    assert len(registry.for_node(cst.Assign)) == 1 and "a" in registry.rule_names()


def test_a_rule_turned_off_rewrites_nothing() -> None:
    source = "import torch\n\ndef f(x):\n    print(x)\n    return x\n"
    assert transform_source(source).changed
    with pipeline.CONVERTERS.disabled("defer"):
        assert not transform_source(source).changed
