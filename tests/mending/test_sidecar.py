"""The rules in a helper process (graphmend.mending.sidecar): same text as in-process,
every failure answered in-process, and the cold path that never imports
LibCST in the user's process."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap

import pytest

from graphmend import compat
from graphmend.mending import rewrite, sidecar
from graphmend.analysis.scan import candidate_units
from graphmend.analysis.source import parse_text
from graphmend.pipeline import transform_skeleton
from graphmend.rules.options import RULE_NAMES, RuleOptions
from graphmend.mending.swap import Coverage
from locations import ROOT


SOURCE = textwrap.dedent('''
    import logging

    import torch

    logger = logging.getLogger(__name__)


    def f(x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        logger.warning("f saw %s", x)
        if (y < -100).any():
            raise ValueError("too small")
        return y


    class Model(torch.nn.Module):
        def forward(self, x):
            return f(x)
''')


def _skeleton(source: str = SOURCE):
    parsed = parse_text("<sidecar-test>", source)
    return parsed.skeleton(candidate_units(parsed, parsed.effect_helpers, None))


def test_helper_answers_what_the_rules_give_in_process():
    skeleton = _skeleton()
    options = RuleOptions()
    helper = sidecar.Sidecar.start()
    assert helper is not None
    try:
        tickets = [helper.submit(skeleton, options, "<sidecar-test>") for _ in range(2)]
        answers = [helper.result(t) for t in reversed(tickets)]  # answers kept until asked for
    finally:
        helper.close()
    expected = transform_skeleton(skeleton, options, "<sidecar-test>").code
    assert expected != skeleton.text
    assert answers == [expected, expected]


def test_a_helper_that_is_gone_says_so():
    helper = sidecar.Sidecar(subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE))
    ticket = helper.submit(_skeleton(), RuleOptions(), "<sidecar-test>")
    with pytest.raises(sidecar.SidecarFailed):
        helper.result(ticket)
    helper.close()


def test_a_rule_failing_in_the_helper_is_reported_not_raised():
    helper = sidecar.Sidecar.start()
    try:
        broken = dataclasses.replace(_skeleton(), text="def f(:\n    pass\n")
        ticket = helper.submit(broken, RuleOptions(), "<broken>")
        with pytest.raises(sidecar.SidecarFailed, match="SourceError"):
            helper.result(ticket)
    finally:
        helper.close()


def test_a_helper_sent_nothing_is_stopped_at_once():
    helper = sidecar.Sidecar.start()
    helper.close()  # everything was in the cache
    assert helper._process.wait(timeout=10) < 0  # killed, not left to finish its imports


def test_no_helper_when_libcst_is_already_imported():
    # This test process has imported LibCST (the pipeline): the rules run here.
    assert "libcst" in sys.modules
    assert not sidecar.worthwhile(RULE_NAMES)


def test_no_helper_for_a_plugged_rule(monkeypatch):
    monkeypatch.delitem(sys.modules, "libcst")
    monkeypatch.setattr(compat, "installed", lambda: False)
    monkeypatch.setattr(sidecar, "usable_cpus", lambda: 2)
    assert sidecar.worthwhile(RULE_NAMES)
    assert not sidecar.worthwhile((*RULE_NAMES, "mark"))
    monkeypatch.setattr(sidecar, "usable_cpus", lambda: 1)
    assert not sidecar.worthwhile(RULE_NAMES)


class _FakeHelper:
    """Answers every ticket with a text that would show if it were used."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.submitted = 0

    def submit(self, skeleton, options, filename) -> int:
        self.submitted += 1
        return self.submitted - 1

    def result(self, ticket: int) -> str:
        if self.fail:
            raise sidecar.SidecarFailed("gone")
        return "HELPER\n"


def _plan(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "cache"))
    module_path = tmp_path / "sidecar_model.py"
    module_path.write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib

        module = importlib.import_module("sidecar_model")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("sidecar_model", None)
    return rewrite.plan_file(module.f.__code__.co_filename, [(module.f, Coverage(static=True))], RULE_NAMES)


def test_a_helper_answer_is_used(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    waited = []
    assert rewrite.rewrite_plans([plan], _FakeHelper(), lambda: waited.append(1)) == ["HELPER\n"]
    assert waited == [1]


def test_a_failed_helper_is_answered_in_process(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    [text] = rewrite.rewrite_plans([plan], _FakeHelper(fail=True), None)
    assert text == transform_skeleton(plan.skeleton, plan.options, plan.filename).code


def test_a_rule_compat_turns_off_discards_the_helper_answer(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    monkeypatch.setattr(compat.installation, "disabled_rules", lambda: {"defer": "off for this test"})
    [text] = rewrite.rewrite_plans([plan], _FakeHelper(), None)
    without_defer = RuleOptions(rules=frozenset({"trap", "where"}), effect_helpers=plan.options.effect_helpers)
    assert text == transform_skeleton(plan.skeleton, without_defer, plan.filename).code
    assert "logger.warning(" in text


COLD_SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import torch
    import sidecar_model
    from graphmend.mending import sidecar

    started = []
    original_start = sidecar.Sidecar.start
    def start():
        helper = original_start()
        started.append(helper is not None)
        return helper
    sidecar.Sidecar.start = start

    import graphmend
    from torch._dynamo.utils import counters

    model = sidecar_model.Model()
    x = torch.randn(8)
    expected = model(x)
    compiled = graphmend.compile(model, backend="eager")
    actual = compiled(x)
    print(json.dumps({
        "libcst_imported": "libcst" in sys.modules,
        "helper_started": started,
        "identical": torch.equal(expected, actual),
        "graphs": counters["stats"]["unique_graphs"],
        "breaks": sum(counters["graph_break"].values()),
        "usable_cpus": sidecar.usable_cpus(),
    }))
''')


def test_a_cold_first_compile_leaves_libcst_to_the_helper(tmp_path):
    (tmp_path / "sidecar_model.py").write_text(SOURCE)
    script = tmp_path / "cold.py"
    script.write_text(COLD_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT), GRAPHMEND_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["identical"]
    assert (result["graphs"], result["breaks"]) == (1, 0)
    if result["usable_cpus"] > 1:
        assert result["helper_started"] == [True]
        assert not result["libcst_imported"]
    else:  # one CPU: nothing to overlap, the rules run in the process
        assert result["helper_started"] == []


def test_a_cached_rewrite_is_read_once_and_not_written_again(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    [first] = rewrite.rewrite_plans([plan], None, None)
    loads, stores = [], []
    real_load = rewrite.cache.load
    monkeypatch.setattr(rewrite.cache, "load", lambda key: loads.append(key) or real_load(key))
    monkeypatch.setattr(rewrite.cache, "store", lambda key, body: stores.append(key))
    assert rewrite.rewrite_plans([plan], _FakeHelper(), None) == [first]  # the cache's, not the helper's
    assert len(loads) == 1 and stores == []
