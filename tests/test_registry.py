"""The converter registry: converters declare their rule, node type and a
cheap check; the engine runs them in order, records the reason of one that
declines, and a rule can be turned off (the rule-off run:
``GRAPHMEND_DISABLE_RULE=where pytest tests/test_fixtures.py ...`` must go
red for each rule, or its tests do not test it)."""

from __future__ import annotations

import libcst as cst
import pytest

from graphmend import pipeline
from graphmend.pipeline import transform_source
from graphmend.rules.base import Context, Converter, Declined, Registry
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
