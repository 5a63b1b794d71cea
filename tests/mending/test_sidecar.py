"""The rules in a helper process (graphmend.mending.sidecar): same text as in-process,
every failure answered in-process, and the cold path that never imports
LibCST in the user's process."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import subprocess
import sys
import textwrap

import pytest

from graphmend import compat
from graphmend.mending import live, rewrite, sidecar
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

        @staticmethod
        def g(x):
            if x.mean() > 0:
                logger.warning("g saw %s", x)
            return x
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


def test_the_helper_answers_a_request_waited_for_before_the_older_ones():
    """A ticket alone on the pipe (sent by ``result`` when it would wait)
    moves its request ahead of those sent before it."""
    import io
    import pickle
    import time

    skeleton, options = _skeleton(), RuleOptions()
    stream = io.BytesIO(b"".join(pickle.dumps(message) for message in (
        (0, skeleton, options, "a"), (1, skeleton, options, "b"), (2, skeleton, options, "c"), (2,))))
    requests = sidecar._Requests(stream)
    deadline = time.monotonic() + 30
    while not requests._ended and time.monotonic() < deadline:  # all read: the order is the queue's alone
        time.sleep(0.01)
    assert [ticket for ticket, *_ in requests] == [2, 0, 1]


def test_each_unit_rewritten_alone_comes_out_as_in_the_whole_skeleton(tmp_path, monkeypatch):
    """graphmend.compile's first mend sends the helper one unit at a time,
    so a function met waits for its own unit only: what each unit becomes
    must not depend on the others."""
    plan = _plan(tmp_path, monkeypatch, "Model.g")
    units = plan.by_unit()
    assert len(units) == len(plan.skeleton.units) == 2
    assert [[f.__qualname__ for f, *_ in unit.targets] for unit in units] == [["f"], ["Model.g"]]
    whole = transform_skeleton(plan.skeleton, plan.options, plan.filename).code
    assert whole != plan.skeleton.text
    alone = [unit.skeleton.unit_texts(transform_skeleton(unit.skeleton, unit.options, unit.filename).code)[0]
             for unit in units]
    assert alone == list(plan.skeleton.unit_texts(whole))


@pytest.mark.parametrize("fixture", sorted((ROOT / "tests" / "fixtures").glob("*/*.in.py")), ids=lambda p: p.stem)
def test_a_unit_with_the_prelude_it_reads_comes_out_as_with_the_whole_prelude(fixture):
    """A unit sent alone keeps only the prelude statements binding a name it
    reads (and what those read): on every rule fixture, each unit comes out
    as it does beside the whole prelude."""
    parsed = parse_text(str(fixture), fixture.read_text())
    skeleton = parsed.skeleton(candidate_units(parsed, parsed.effect_helpers, None))
    options = RuleOptions(rules=frozenset(RULE_NAMES), effect_helpers=parsed.effect_helpers)
    for unit in skeleton.units:
        whole, read = skeleton.subset([unit]), skeleton.subset([unit], prelude_read=True)
        assert read.prelude <= whole.prelude
        assert read.unit_texts(transform_skeleton(read, options, str(fixture)).code) == \
            whole.unit_texts(transform_skeleton(whole, options, str(fixture)).code)


def test_a_unit_keeps_future_imports_and_what_its_prelude_statements_read():
    source = textwrap.dedent('''
        from __future__ import annotations
        import logging
        import os
        import torch as t
        NAME = os.environ.get("X")
        logger = logging.getLogger(NAME)
        unused = t.ones(1)

        def f(x):
            logger.warning("f")
            return x

        def g(x):
            return t.relu(x)
    ''')
    parsed = parse_text("<prelude-test>", source)
    skeleton = parsed.skeleton(parsed.unit_of(node) for node in parsed.defs.values())
    read = [skeleton.subset([unit], prelude_read=True).text.partition("def ")[0] for unit in skeleton.units]
    assert read == ["from __future__ import annotations\nimport logging\nimport os\nNAME = os.environ.get(\"X\")\n"
                    "logger = logging.getLogger(NAME)\n",
                    "from __future__ import annotations\nimport torch as t\n"]


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


def test_a_closed_helper_answers_what_it_was_sent_at_a_lower_priority():
    """After the first call the helper is sent nothing more, but goes on,
    behind this process, with what it has: a later call may meet one of
    those functions."""
    helper = sidecar.Sidecar.start()
    tickets = [helper.submit(_skeleton(), RuleOptions(), f"<sidecar-test-{n}>") for n in range(2)]
    helper.close()
    if hasattr(os, "getpriority"):
        try:
            niceness = os.getpriority(os.PRIO_PROCESS, helper._process.pid)
        except ProcessLookupError:  # it has answered both and exited already
            niceness = None
        if niceness is not None:
            assert niceness == min(os.getpriority(os.PRIO_PROCESS, 0) + sidecar._BACKGROUND_NICENESS, 19)
    expected = transform_skeleton(_skeleton(), RuleOptions(), "<sidecar-test-0>").code
    assert [helper.result(ticket) for ticket in reversed(tickets)] == [expected, expected]
    assert helper._process.wait(timeout=30) == 0  # its input closed: it exits once it has answered


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
        self.rules: list[frozenset[str]] = []  # what each ticket was asked to run

    def submit(self, skeleton, options, filename) -> int:
        self.submitted += 1
        self.rules.append(options.rules)
        return self.submitted - 1

    def result(self, ticket: int) -> str:
        if self.fail:
            raise sidecar.SidecarFailed("gone")
        return "HELPER\n"


def _plan(tmp_path, monkeypatch, *also: str):
    """The plan of ``SOURCE``'s ``f`` and of the functions ``also`` names."""
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
    functions = [module.f, *(functools.reduce(getattr, name.split("."), module) for name in also)]
    return rewrite.plan_file(module.f.__code__.co_filename, [(f, Coverage(static=True)) for f in functions],
                             RULE_NAMES)


def test_a_helper_answer_is_used(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    waited = []
    rewrites = rewrite.Rewrites([plan], _FakeHelper(), lambda: waited.append(1))
    assert waited == [1]
    assert rewrites.from_helper(0)
    assert rewrites.text(0) == "HELPER\n"


def test_a_failed_helper_is_answered_in_process(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    text = rewrite.Rewrites([plan], _FakeHelper(fail=True), None).text(0)
    assert text == transform_skeleton(plan.skeleton, plan.options, plan.filename).code


def test_a_rule_compat_turns_off_discards_the_helper_answer(tmp_path, monkeypatch):
    """A first mend asks the helper before compat's self-test has said which
    rules are off: an answer made with one of them is not used."""
    plan = _plan(tmp_path, monkeypatch)
    monkeypatch.setattr(compat, "installed", lambda: False)
    monkeypatch.setattr(compat.installation, "disabled_rules", lambda: {"defer": "off for this test"})
    rewrites = rewrite.Rewrites([plan], _FakeHelper(), None)
    assert not rewrites.from_helper(0)
    text = rewrites.text(0)
    without_defer = RuleOptions(rules=frozenset({"trap", "where"}), effect_helpers=plan.options.effect_helpers)
    assert text == transform_skeleton(plan.skeleton, without_defer, plan.filename).code
    assert "logger.warning(" in text



def test_once_compat_is_installed_the_helper_runs_only_the_rules_it_leaves_on(tmp_path, monkeypatch):
    """Sites graphmend.compile's first call meets are sent to its helper
    after compat's self-test: without the rules it turned off, so the
    answer is used."""
    plan = _plan(tmp_path, monkeypatch)
    monkeypatch.setattr(compat, "installed", lambda: True)
    monkeypatch.setattr(compat.installation, "disabled_rules", lambda: {"defer": "off for this test"})
    helper = _FakeHelper()
    rewrites = rewrite.Rewrites([plan], helper, None)
    assert helper.rules == [frozenset(RULE_NAMES) - {"defer"}]
    assert rewrites.from_helper(0)
    assert rewrites.text(0) == "HELPER\n"


def test_each_plan_is_sent_to_the_helper_as_it_is_made(tmp_path, monkeypatch):
    """The helper rewrites the first plan while this process makes the next
    (it used to wait for every file of the call to be planned)."""
    plan = _plan(tmp_path, monkeypatch)
    events = []

    class Recording(_FakeHelper):
        def submit(self, skeleton, options, filename) -> int:
            events.append("sent")
            return super().submit(skeleton, options, filename)

    def made():
        for _ in range(2):
            events.append("planned")
            yield plan

    rewrites = rewrite.Rewrites(made(), Recording(), None)
    assert events == ["planned", "sent", "planned", "sent"]
    assert rewrites.text(1) == "HELPER\n"


def _late(x):
    return x


def _named(x):
    return x


def _root(x):
    return _named(x)


def test_a_unit_is_handed_out_once_no_file_left_to_plan_comes_before_it(monkeypatch):
    """The first mend plans files in the order the call meets their
    functions, and hands out a unit as soon as no file still to plan holds
    one that comes before it: the root's unit before the second file is
    planned, the unit the root names before the root file's unnamed one."""
    events = []

    @dataclasses.dataclass
    class Unit:
        targets: list

    @dataclasses.dataclass
    class Plan:
        targets: list

        def by_unit(self):
            return [Unit([target]) for target in self.targets]

    def plan_file(filename, group, rule_names):
        events.append(("planned", filename))
        return Plan([(function, None, None, coverage) for function, coverage in group])

    monkeypatch.setattr(live, "plan_file", plan_file)
    static = Coverage(static=True)
    groups = {("a.py", True): [(_root, static), (_late, static)], ("b.py", True): [(_named, static)]}
    for unit in live._in_order_met(groups, RULE_NAMES, set(), [_root], [_root, _late, _named]):
        events.append(("unit", unit.targets[0][0].__name__))
    assert events == [("planned", "a.py"), ("unit", "_root"), ("planned", "b.py"), ("unit", "_named"),
                      ("unit", "_late")]


#: A script's first lines: the test's directory on the path, and whether
#: each helper process asked for started, in ``started``.
SCRIPT_PRELUDE = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import torch
    from graphmend.mending import sidecar

    started = []
    original_start = sidecar.Sidecar.start
    def start():
        helper = original_start()
        started.append(helper is not None)
        return helper
    sidecar.Sidecar.start = start

    import graphmend
''')

COLD_SCRIPT = SCRIPT_PRELUDE + textwrap.dedent('''
    import sidecar_model
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


def _run_script(tmp_path, text: str, *argv: str) -> dict:
    """Run ``text`` in a fresh process (a cache of its own, ``tmp_path`` on its
    path) and return the JSON its last line prints."""
    script = tmp_path / "script.py"
    script.write_text(text)
    env = dict(os.environ, PYTHONPATH=str(ROOT), GRAPHMEND_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, str(script), str(tmp_path), *argv], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_cold_first_compile_leaves_libcst_to_the_helper(tmp_path):
    (tmp_path / "sidecar_model.py").write_text(SOURCE)
    result = _run_script(tmp_path, COLD_SCRIPT)
    assert result["identical"]
    assert (result["graphs"], result["breaks"]) == (1, 0)
    if result["usable_cpus"] > 1:
        assert result["helper_started"] == [True]
        assert not result["libcst_imported"]
    else:  # one CPU: nothing to overlap, the rules run in the process
        assert result["helper_started"] == []


MET_SOURCE = textwrap.dedent('''
    import torch


    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.ones(()))

        def forward(self, x):
            if self.scale > 0:  # a buffer: a tensor only the call shows
                x = x * 2
            return x + 1
''')

MET_SCRIPT = SCRIPT_PRELUDE + textwrap.dedent('''
    import met_model
    from graphmend.diagnosis.counting import GraphCounter

    model = met_model.Model()
    x = torch.randn(8)
    expected = model(x)
    counter = GraphCounter()
    compiled = graphmend.compile(model, backend=counter)
    outputs = [compiled(x), compiled(x)]
    print(json.dumps({
        "libcst_imported": "libcst" in sys.modules,
        "helper_started": started,
        "identical": all(torch.equal(expected, output) for output in outputs),
        "graphs": counter.graphs,
        "runs": counter.runs_of(lambda: compiled(x)),
        "usable_cpus": sidecar.usable_cpus(),
    }))
''')


def test_a_site_the_first_call_meets_is_rewritten_by_the_helper(tmp_path):
    """The first call meets a fixable break the source did not show (an
    ``if`` on a buffer) and mends it before the next call: the helper that
    rewrote the first mend rewrites it too, so LibCST is never imported in
    the user's process (it was, 0.9 s, on every data-dependent first call)."""
    (tmp_path / "met_model.py").write_text(MET_SOURCE)
    result = _run_script(tmp_path, MET_SCRIPT)
    assert result["identical"]
    assert (result["graphs"], result["runs"]) == (1, 1)  # mended after the first call, which ran eagerly
    if result["usable_cpus"] < 2:
        pytest.skip("one CPU: no helper process, the rules run in the process")
    assert result["helper_started"] == [True]
    assert not result["libcst_imported"]


def test_a_cached_rewrite_is_read_once_and_not_written_again(tmp_path, monkeypatch):
    plan = _plan(tmp_path, monkeypatch)
    first = rewrite.Rewrites([plan], None, None).text(0)
    loads, stores = [], []
    real_load = rewrite.cache.load
    monkeypatch.setattr(rewrite.cache, "load", lambda key: loads.append(key) or real_load(key))
    monkeypatch.setattr(rewrite.cache, "store", lambda key, body: stores.append(key))
    rewrites = rewrite.Rewrites([plan], _FakeHelper(), None)
    assert not rewrites.from_helper(0)
    assert rewrites.text(0) == first  # the cache's, not the helper's
    assert len(loads) == 1 and stores == []


LAZY_HELPERS = textwrap.dedent('''
    import torch


    def helper(x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        return y + 1


    def later(x):
        if x.mean() > 0:
            return x / 2
        return x
''')

LAZY_UNUSED = textwrap.dedent('''
    import torch


    def never(x):
        if x.sum() > 0:
            return x * 3
        return x
''')

LAZY_ENTRY = textwrap.dedent('''
    import torch

    import lazy_helpers
    import lazy_unused


    class Model(torch.nn.Module):
        def forward(self, x):
            if self.training:
                return lazy_unused.never(lazy_helpers.later(x))
            if (x < -100).any():
                raise ValueError("too small")
            return lazy_helpers.helper(x) * 2


    class Looping(torch.nn.Module):
        def forward(self, x):
            for _ in range(2):
                torch._dynamo.graph_break()  # a break in a loop: the frame runs eagerly
                x = lazy_helpers.helper(x)
            return x
''')

LAZY_SCRIPT = textwrap.dedent('''
    import json, os, signal, sys
    sys.path.insert(0, sys.argv[1])
    import torch
    import lazy_entry, lazy_helpers, lazy_unused
    import graphmend
    from graphmend.mending import live
    from graphmend.mending.swap import MENDED
    from torch._dynamo.utils import counters

    events, how = [], ["settle"]
    finish = live._Awaited.finish
    def recorded(self, index):
        plan = self.plans[index]
        events.append([plan.filename.rsplit("/", 1)[-1], [f.__name__ for f, *_ in plan.targets], how[0]])
        return finish(self, index)
    live._Awaited.finish = recorded
    real_met = live._met
    def met(obj):
        how[0] = type(obj).__name__
        try:
            return real_met(obj)
        finally:
            how[0] = "settle"
    live._met = met

    model = getattr(lazy_entry, sys.argv[2])().eval()
    then = sys.argv[3]  # what follows two calls in eval mode
    x = torch.randn(8).abs()
    expected = [model(x), model(x), model.train()(x)]
    model.eval()
    if then == "preserved":
        with live.preserved():
            compiled = graphmend.compile(model, backend="eager")
            outputs = [compiled(x), compiled(x)]
    else:
        compiled = graphmend.compile(model, backend="eager")
        outputs = [compiled(x)]
        graphs_first = counters["stats"]["unique_graphs"]
        outputs.append(compiled(x))
    after_eval, child_exit = list(events), None
    if then == "fork":  # a forked child meets what is still awaited: it must not wait for the helper
        live._AWAITED.rewrites._sidecar._answers.clear()  # as if the helper had not answered yet
        child = os.fork()
        if child == 0:
            signal.alarm(120)  # a hung child dies
            same = torch.equal(compiled.train()(x), expected[2])
            os._exit(0 if same and live._AWAITED is None else 3)
        outputs.append(expected[2])
        child_exit = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    if then == "train":  # Dynamo traces the training arm: it meets what eval never ran
        outputs.append(compiled.train()(x))
    elif then == "entry":  # an entry point of graphmend.mending: every rewrite is in
        live.mended_functions(model)
    print(json.dumps({
        "after_eval": after_eval,
        "events": events,
        "identical": all(torch.equal(e, o) for e, o in zip(expected, outputs)),
        "graphs_first": counters["stats"]["unique_graphs"] if then == "preserved" else graphs_first,
        "graphs": counters["stats"]["unique_graphs"],
        "breaks": sum(counters["graph_break"].values()),
        "mended": sorted(f.__name__ for f in MENDED),
        "awaiting": live._AWAITED is not None,
        "child_exit": child_exit,
        "libcst_imported": "libcst" in sys.modules,
        "usable_cpus": __import__("graphmend.mending.sidecar").mending.sidecar.usable_cpus(),
    }))
''')


def _run_lazy(tmp_path, model: str, then: str = "nothing") -> dict:
    for name, source in (("lazy_helpers", LAZY_HELPERS), ("lazy_unused", LAZY_UNUSED), ("lazy_entry", LAZY_ENTRY)):
        (tmp_path / f"{name}.py").write_text(source)
    result = _run_script(tmp_path, LAZY_SCRIPT, model, then)
    if result["usable_cpus"] < 2:
        pytest.skip("one CPU: no helper process, every rewrite is in before the call")
    assert result["identical"]
    assert not result["libcst_imported"]
    return result


_MET_IN_EVAL = [["lazy_helpers.py", ["helper"], "function"]]  # the entry's own file was in before the call


def test_a_first_call_awaits_only_the_rewrites_dynamo_meets(tmp_path):
    """The first call starts while the helper still rewrites: a function's
    rewrite is finished when Dynamo first meets it (before it reads the
    code: the first call compiles it mended), its own unit and not the rest
    of its file.  What the call never meets is not waited for when it ends:
    it stays awaited, and its functions run their original code, eagerly."""
    result = _run_lazy(tmp_path, "Model")
    assert result["events"] == _MET_IN_EVAL
    assert (result["graphs_first"], result["graphs"], result["breaks"]) == (1, 1, 0)
    assert result["awaiting"]
    assert {"forward", "helper"} <= set(result["mended"])
    assert not {"never", "later"} & set(result["mended"])


def test_a_rewrite_a_later_call_meets_is_finished_then(tmp_path):
    """A later call that traces what the first never ran (the training arm)
    meets the functions still awaited and compiles them mended: no break."""
    result = _run_lazy(tmp_path, "Model", "train")
    assert result["after_eval"] == _MET_IN_EVAL
    assert result["events"] == [*_MET_IN_EVAL, ["lazy_helpers.py", ["later"], "function"],
                                ["lazy_unused.py", ["never"], "function"]]
    assert (result["graphs"], result["breaks"]) == (2, 0)
    assert {"never", "later"} <= set(result["mended"])
    assert not result["awaiting"]


def test_an_entry_point_finishes_every_rewrite_still_awaited(tmp_path):
    result = _run_lazy(tmp_path, "Model", "entry")
    assert result["events"] == [*_MET_IN_EVAL, ["lazy_unused.py", ["never"], "settle"],
                                ["lazy_helpers.py", ["later"], "settle"]]
    assert {"never", "later"} <= set(result["mended"])
    assert not result["awaiting"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_meets_what_is_still_awaited_without_waiting(tmp_path):
    """A ``fork`` start method's worker calls the compiled model after the
    first call: no thread reads the helper's answers in the child, so what
    is still awaited keeps its original code there (its trace breaks where
    the parent's would not), and the output is eager's."""
    result = _run_lazy(tmp_path, "Model", "fork")
    assert result["child_exit"] == 0
    assert result["awaiting"]  # in the parent, still


def test_what_preserved_leaves_awaited_stays_unmended(tmp_path):
    """A first call inside ``preserved()`` (a diagnosis's fresh copy) leaves
    nothing awaited behind it: a later trace must not mend a function
    ``preserved`` put back."""
    result = _run_lazy(tmp_path, "Model", "preserved")
    assert result["events"] == _MET_IN_EVAL
    assert result["mended"] == []
    assert not result["awaiting"]


def test_a_frame_started_before_its_rewrite_is_in_runs_eagerly_once(tmp_path):
    """A function whose first frame Dynamo starts (called from a frame run
    eagerly) while its rewrite is awaited: that frame runs its original
    code eagerly, and the next one compiles the mended code."""
    result = _run_lazy(tmp_path, "Looping")
    assert result["events"] == [["lazy_helpers.py", ["helper"], "code"]]
    assert "helper" in result["mended"]
