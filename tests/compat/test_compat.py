"""graphmend.compat: probes, the self-test, rules turned off (never a message
or a check dropped silently), graph-break ids, and a runtime that needs
torch alone."""

from __future__ import annotations

import gc
import json
import logging
import os
import subprocess
import sys
import textwrap
import warnings
import weakref

import pytest
import torch

import graphmend
from graphmend import compat, runtime
from graphmend.compat import probing
from graphmend.cli import main as cli_main
from graphmend.pipeline import transform_source
from harness import load_module
from locations import ROOT


SOURCE = textwrap.dedent('''
    import logging

    import torch

    logger = logging.getLogger(__name__)


    def f(x):
        print("value", x)
        logger.warning("sum %s", x.sum())
        if (x < 0).any():
            raise ValueError("negative")
        return x * 2
''')


@pytest.fixture
def fresh_compat(monkeypatch, tmp_path):
    """compat as if nothing had run in this process (the patches, which are
    idempotent, stay installed), with no self-test pass kept."""
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "fresh-compat-cache"))
    monkeypatch.setitem(compat._state, "installed", False)
    monkeypatch.setitem(compat._state, "probes", ())
    monkeypatch.setitem(compat._state, "self_test", None)
    yield
    # The next test sees this process's real state again.
    compat._state.update(installed=False, probes=(), self_test=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compat.install(runtime)


def _failing(name: str, rules: tuple[str, ...]):
    def probe() -> compat.Probe:
        return compat.Probe(name, False, "forced to fail by the test", rules)
    return probe


def _install_and_catch() -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compat.install(runtime)
    return [w for w in caught if "graphmend" in str(w.message)]


def _rules_in(code: str) -> set[str]:
    found = set()
    if "deferred_print" in code or "deferred_log" in code:
        found.add("defer")
    if "deferred_check" in code or "deferred_raise" in code:
        found.add("trap")
    return found


def test_every_probe_passes_and_the_self_test_passes_here() -> None:
    compat.install(runtime)
    assert all(probe.ok for probe in compat.probes()), compat.probes()
    assert compat.disabled_rules() == {}
    assert compat.self_test(runtime) == {}


#: Probes no rule needs: what they guard only adds to a diagnosis, lets
#: graphmend.compile's first call start before every rewrite is in, or
#: makes what a graph that fails while it runs deferred before the failure.
RULELESS_PROBES = ("loop skips", "functions met while tracing", "replays before a failure at run time",
                   "number formats", "graph reuse", "identity guard stacks")


@pytest.mark.parametrize("index", range(len(compat.PROBES)))
def test_a_failing_probe_turns_its_rules_off_with_one_warning(index: int, fresh_compat, monkeypatch, tmp_path) -> None:
    real = compat.PROBES[index]()
    if real.name in RULELESS_PROBES:
        pytest.skip("guards no rule (test_a_failing_ruleless_probe_turns_nothing_off)")
    assert real.rules, real  # every other probe guards some rule
    probes = list(compat.PROBES)
    probes[index] = _failing(real.name, real.rules)
    monkeypatch.setattr(probing, "PROBES", tuple(probes))

    caught = _install_and_catch()
    assert len(caught) == 1
    message = str(caught[0].message)
    assert torch.__version__ in message
    for rule in real.rules:
        assert f"[{rule}]" in message
    off = compat.disabled_rules()
    assert set(off) == set(real.rules)
    assert all("forced to fail by the test" in why and torch.__version__ in why for why in off.values())
    # Nothing is rewritten by a rule that is off: its messages and checks
    # stay as written (Dynamo breaks there; nothing is dropped).
    code = transform_source(SOURCE).code
    assert not (_rules_in(code) & set(real.rules))
    assert 'print("value", x)' in code if "defer" in real.rules else "deferred_print" in code
    # A second install warns no more.
    assert _install_and_catch() == []


@pytest.mark.parametrize("name", RULELESS_PROBES)
def test_a_failing_ruleless_probe_turns_nothing_off(name, fresh_compat, monkeypatch) -> None:
    """Without Dynamo's hook for a break in a loop, for the functions it
    meets, for the graphs it hands the backend, or for an f-string's
    traced number, or where Dynamo calls the backend, no rule is off and
    nothing warns: what the first hook keeps only adds to a diagnosis,
    without the second graphmend.compile's first call waits for every
    rewrite, without the third a graph that fails while it runs loses what
    it deferred, without the fourth such an f-string is formatted as
    Dynamo formats it, and without the fifth an identical graph compiles
    again."""
    probes = [_failing(name, ()) if probe().name == name else probe for probe in compat.PROBES]
    monkeypatch.setattr(probing, "PROBES", tuple(probes))
    assert _install_and_catch() == []
    assert compat.disabled_rules() == {}


def _float_formatted_before_a_break(x, number):
    return f"max {number:.3f} all {x.tolist()}"


def _float_before_a_break(x, number):
    return f"max {number} all {x.tolist()}"


def _float_converted_and_formatted_before_a_break(x, number):
    return f"max {number!r:.3} all {x.tolist()}"


def _size_formatted(x, number):
    return x + 1, f"n {x.shape[0]:3d} ok"


def _formatted_float_used(x, number):
    text = f"{number:.1f}"
    return x + len(text), text.upper()


def _read_back_formatted_before_a_break(x, number):
    return f"sum {(x * number).sum().item():.2f} all {x.tolist()}"


@pytest.mark.parametrize("fn", [
    _float_formatted_before_a_break, _float_before_a_break, _float_converted_and_formatted_before_a_break,
    _size_formatted, _formatted_float_used, _read_back_formatted_before_a_break,
], ids=lambda fn: fn.__name__.strip("_"))
@pytest.mark.parametrize("capture", [False, True], ids=["plain", "capture"])
def test_an_f_string_of_a_number_dynamo_traces_as_a_symbol_is_formatted_as_python_does(fn, capture) -> None:
    """A float input made dynamic on its second value, a dynamic size, or
    (with capture) a value read back: torch 2.13 rebuilt ``f"{n:.3f}"`` at
    a later break as the number itself (TypeError at the string's build),
    2.13 and 2.14 formatted ``str(n)`` with the number's spec (ValueError),
    both dropped ``!r``.  With compat installed torch.compile itself makes
    the string eager makes, every call."""
    compat.install(runtime)
    assert compat.probes()[[probe.name for probe in compat.probes()].index("number formats")].ok
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    with torch._dynamo.config.patch(capture_scalar_outputs=capture):
        for number, size in ((1.25, 2), (2.0, 3), (3.5, 4), (10.5, 5)):
            x = torch.arange(size, dtype=torch.float32)
            assert repr(compiled(x, number)) == repr(fn(x, number))
    torch._dynamo.reset()


def test_a_failing_self_test_turns_its_rules_off_and_diagnose_says_why(fresh_compat, monkeypatch, tmp_path) -> None:
    # A replay of deferred checks that never raises (as if Dynamo dropped
    # it): the self-test's check fails, so trap is off and defer stays on.
    original = runtime.trap._replay_check

    @torch.compiler.disable
    def never_raises(gate, test, exception, module, called, *tokens):
        return None

    monkeypatch.setattr(runtime.trap, "_replay_check", never_raises)
    torch._dynamo.config.reorderable_logging_functions.add(never_raises)
    try:
        caught = _install_and_catch()
    finally:
        torch._dynamo.config.reorderable_logging_functions.discard(never_raises)
        monkeypatch.setattr(runtime.trap, "_replay_check", original)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert torch.__version__ in message and "[trap]" in message and "[defer]" not in message
    off = compat.disabled_rules()
    assert set(off) == {"trap"}
    assert "a deferred check raises the exact exception" in off["trap"]

    code = transform_source(SOURCE).code
    assert "deferred_check" not in code and "raise ValueError" in code
    assert "deferred_print" in code  # defer still applies

    guarded = load_module("import torch\n\ndef g(x):\n    if (x < 0).any():\n        raise ValueError('negative')\n"
                          "    return x * 2\n", tmp_path, "guarded")
    report = graphmend.diagnose(guarded.g, torch.ones(2))
    assert report.disabled_rules == off
    assert report.to_dict()["disabled_rules"] == off
    guard = next(b for b in report.breaks if b.category == "GUARD")
    assert not guard.fixable and guard.rule is None
    assert "[trap] is disabled" in guard.hint and "self-test" in guard.hint
    assert "rule [trap] is disabled" in str(report)


def test_a_self_test_pass_is_kept_for_the_next_process_and_a_failure_is_not(fresh_compat, monkeypatch) -> None:
    """A later process with the same torch build, Dynamo settings and
    runtime code reads the pass instead of compiling the self-test again;
    a failure is checked again each time (and warns each time)."""
    from graphmend.compat import installation, verdicts

    assert _install_and_catch() == []
    ran = []
    monkeypatch.setattr(installation, "self_test", lambda runtime: ran.append(1) or {})
    compat._state.update(installed=False, self_test=None)
    assert _install_and_catch() == [] and ran == []  # the kept pass: nothing compiled
    assert compat.disabled_rules() == {}

    compat._state.update(installed=False, self_test=None)
    with torch._dynamo.config.patch(recompile_limit=torch._dynamo.config.recompile_limit + 1):
        _install_and_catch()
    assert ran == [1]  # another setting: checked again

    failing = {"trap": "self-test: forced to fail by the test"}
    assert verdicts.passed_before("forced", lambda: failing) == failing
    assert verdicts.passed_before("forced", lambda: ran.append(2) or {}) == {}
    assert ran == [1, 2]  # the failure was not kept
    assert verdicts.passed_before("forced", lambda: ran.append(3) or {}) == {}
    assert ran == [1, 2]  # the pass was


def test_a_self_test_pass_is_read_from_another_working_directory(tmp_path, monkeypatch) -> None:
    """Dynamo's ``debug_dir_root`` follows the working directory; a pass
    kept while a script ran from one directory is read when the next runs
    from another (it was compiled again for every directory)."""
    from graphmend.compat import verdicts

    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "cache"))
    ran = []
    with torch._dynamo.config.patch(debug_dir_root=str(tmp_path / "one" / "torch_compile_debug")):
        assert verdicts.passed_before("where", lambda: ran.append(1) or {}) == {}
    with torch._dynamo.config.patch(debug_dir_root=str(tmp_path / "two" / "torch_compile_debug")):
        assert verdicts.passed_before("where", lambda: ran.append(2) or {}) == {}
    assert ran == [1]


def test_the_self_test_is_cheap_and_leaves_no_trace() -> None:
    import time

    from torch._dynamo import output_graph
    from torch._dynamo.utils import counters

    compat.install(runtime)
    graphs, breaks = counters["stats"]["unique_graphs"], len(output_graph.graph_break_reasons)
    started = time.perf_counter()
    assert compat.self_test(runtime) == {}
    assert time.perf_counter() - started < 2.0  # about 0.1 s warm on this machine's CPU
    assert counters["stats"]["unique_graphs"] == graphs
    assert len(output_graph.graph_break_reasons) == breaks


def test_the_self_test_passes_under_logging_disable_and_leaves_it_as_it_was() -> None:
    """``logging.disable(...)`` (a benchmark script's, a service's) failed
    the log check: [Defer] was turned off in that process, and every
    rewrite the helper made for the first call was made again in the
    user's process (Chronos's T5 loss: a first call of 3.9 s took 14 s)."""
    import logging

    compat.install(runtime)
    test_logger = logging.getLogger("graphmend.self_test")
    logging.disable(logging.CRITICAL)
    try:
        assert compat.self_test(runtime) == {}
        assert not test_logger.isEnabledFor(logging.CRITICAL)
    finally:
        logging.disable(logging.NOTSET)
    assert test_logger.manager is logging.Logger.manager and test_logger.handlers == []


def test_the_warm_up_compiles_once_and_leaves_no_trace() -> None:
    """graphmend.compile's first call warms Dynamo up while the rules'
    helper rewrites: a function traced, the graph counter as it was."""
    from torch._dynamo.utils import counters

    graphs, captured = counters["stats"]["unique_graphs"], counters["stats"]["calls_captured"]
    compat.warm_up()
    assert counters["stats"]["calls_captured"] > captured  # traced: its two operators
    assert counters["stats"]["unique_graphs"] == graphs


def test_no_warm_up_while_dynamo_traces(monkeypatch) -> None:
    from torch._dynamo.utils import counters

    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    captured = counters["stats"]["calls_captured"]
    compat.warm_up()
    assert counters["stats"]["calls_captured"] == captured


def test_graph_break_ids_come_from_the_registry() -> None:
    registry = compat.graph_break_registry()
    assert registry and all(key.startswith("GB") for key in registry)
    assert compat.graph_break_id("generic_jump TensorVariable()") == "GB0170"
    assert compat.graph_break_id("Something\n  please visit: https://x/gb/gb0059.html") == "GB0059"
    assert compat.graph_break_id("Call to `torch._dynamo.graph_break()`\n  Explanation: ...") == "GB0025"
    assert compat.graph_break_id("not a break Dynamo knows") is None
    entry = compat.graph_break_entry("GB0170", "Data-dependent branching")
    assert entry["Explanation"].startswith("Detected data-dependent branching")
    assert any("torch.cond" in hint for hint in entry["Hints"])


def test_diagnose_shows_graph_break_ids(tmp_path) -> None:
    breaks_gb = load_module(textwrap.dedent('''
        import torch

        def f(x):
            if x.sum() > 0:
                x = x + 1
            print("x", x)
            return x * 2
    '''), tmp_path, "breaks_gb")
    report = graphmend.diagnose(breaks_gb.f, torch.ones(2))
    ids = {b.category: b.gb_id for b in report.breaks}
    assert ids == {"DC": "GB0170", "IO": "GB0059"}
    dc = next(b for b in report.breaks if b.category == "DC")
    assert dc.gb_type == "Data-dependent branching" and dc.explanation and dc.hints
    text = str(report)
    assert "[GB0170]" in text and "[GB0059]" in text
    as_json = json.loads(report.to_json())
    assert {b["gb_id"] for b in as_json["breaks"]} == {"GB0170", "GB0059"}
    assert all(b["explanation"] for b in as_json["breaks"])


BLOCKER = '''
import sys

class Blocker:
    """Refuse libcst, rich and graphmend's analysis and rules."""
    def find_spec(self, name, path=None, target=None):
        for blocked in ("libcst", "rich", "graphmend.analysis", "graphmend.rules", "graphmend.pipeline",
                        "graphmend.diagnosis", "graphmend.mending.live", "graphmend.cli"):
            if name == blocked or name.startswith(blocked + "."):
                raise ImportError(f"blocked by the test: {name}")
        return None

sys.meta_path.insert(0, Blocker())
sys.path.insert(0, sys.argv[1])
import torch
import fixed

x = torch.tensor([1.0, 2.0])
print("eager", fixed.f(x))
print("compiled", torch.compile(fixed.f, backend="eager")(x))
try:
    torch.compile(fixed.f, backend="eager")(-x)
except ValueError as error:
    print("raised", error)
for name in ("libcst", "rich", "graphmend.analysis", "graphmend.rules"):
    assert name not in sys.modules, name
'''


def test_a_file_fixed_with_write_runs_with_torch_alone(tmp_path) -> None:
    target = tmp_path / "fixed.py"
    target.write_text(SOURCE)
    assert cli_main(["fix", "--write", str(target)]) == 0
    fixed = target.read_text()
    assert "deferred_print" in fixed and "deferred_log" in fixed and "deferred_check" in fixed
    script = tmp_path / "run_blocked.py"
    script.write_text(BLOCKER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines.count("value tensor([1., 2.])") == 2  # eager and compiled, once each
    assert "eager tensor([2., 4.])" in lines and "compiled tensor([2., 4.])" in lines
    assert "raised negative" in lines
    assert proc.stderr.count("sum tensor(3.)") == 2
    assert "graphmend: on torch" not in proc.stderr  # no rule off here


def test_dynamo_names_the_ranges_of_its_own_work_as_compat_says() -> None:
    """``GraphCounter.profile`` leaves out the operators inside ranges whose
    names end so (Dynamo's fake-tensor work while a call compiles): on this
    torch, a compiling call has such ranges and a compiled one has none."""

    def double(x):
        return x * 2

    compiled = torch.compile(double, backend="eager")
    x = torch.ones(3)
    names = []
    for _ in range(2):
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            compiled(x)
        names.append([e.name for e in prof.events() if e.name.endswith(compat.COMPILE_RANGE_SUFFIX)])
    compiling, compiled_call = names
    assert compiling and not compiled_call


GENERATOR_AT_A_BREAK = """
import torch


def exhausted_generator_at_a_break(x):
    doubled = (t * 2 for t in (x, x))
    total = sum(doubled)
    torch._dynamo.graph_break()  # the exhausted generator is live here
    return total + 1, list(doubled)
"""


def test_a_frame_dynamo_fails_on_runs_eagerly_in_graphmend_compile_and_raises_in_torch_compile(tmp_path, caplog):
    """torch 2.13 cannot rebuild an exhausted generator that is live at a
    graph break (``InternalTorchDynamoError``; torchtuples' ``compute_metrics``
    in round eighteen): torch.compile raises where eager runs.
    graphmend.compile runs that frame eagerly, with one warning naming it,
    and does not trace it again; torch.compile of the same function,
    outside graphmend's call, still raises as it did.  Where Dynamo traces
    it (torch 2.14), both run it compiled and nothing is said."""
    module = load_module(textwrap.dedent(GENERATOR_AT_A_BREAK), tmp_path, "generator_at_a_break")
    fn, x = module.exhausted_generator_at_a_break, torch.ones(3)
    expected = fn(x)

    def torch_compile_raises() -> bool:
        torch._dynamo.reset()
        try:
            torch.compile(fn, backend="eager")(x)
        except torch._dynamo.exc.InternalTorchDynamoError:
            return True
        return False

    raises = torch_compile_raises()
    torch._dynamo.reset()
    compiled = graphmend.compile(fn, backend="eager")
    with caplog.at_level(logging.WARNING, logger="graphmend"):
        outputs = [compiled(x) for _ in range(3)]
    assert all(torch.equal(total, expected[0]) and rest == [] for total, rest in outputs)
    warned = [record for record in caplog.records
              if "Dynamo failed while tracing exhausted_generator_at_a_break" in record.getMessage()]
    assert len(warned) == int(raises)
    assert torch_compile_raises() == raises


def test_diagnose_lists_a_frame_dynamo_fails_on_instead_of_raising(tmp_path):
    """Where torch.compile raises inside Dynamo (torch 2.13, the generator
    above), ``diagnose`` of the function and of its graphmend.compile
    object report the frame, with why and what each compile does, instead
    of raising; where Dynamo traces it (2.14), no such row."""
    module = load_module(textwrap.dedent(GENERATOR_AT_A_BREAK), tmp_path, "generator_at_a_break_diagnosed")
    fn, x = module.exhausted_generator_at_a_break, torch.ones(3)
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend="eager")(x)
        raises = False
    except torch._dynamo.exc.InternalTorchDynamoError:
        raises = True
    torch._dynamo.reset()

    def failed(report) -> list:
        return [b for b in report.breaks if b.reason.startswith("Dynamo failed while tracing it")]

    both = graphmend.diagnose(fn, x)
    compiled = graphmend.compile(fn, backend="eager")
    compiled(x)
    of_compiled = graphmend.diagnose(compiled, x)
    for report in (both, both.mended, of_compiled):
        rows = failed(report)
        assert len(rows) == int(raises)
        for row in rows:
            assert row.function == "exhausted_generator_at_a_break"
            assert "torch.compile raises; graphmend.compile runs it eagerly" in row.hint


@torch.library.custom_op("graphmend_tests::real_only", mutates_args=())
def _real_only(x: torch.Tensor) -> torch.Tensor:
    if bool(x.sum() < 0):
        raise IndexError("index out of range (eager too)")
    return x + 1


_FAKE_CALLS = []


@_real_only.register_fake
def _(x):
    _FAKE_CALLS.append(x.shape)
    raise IndexError("too many indices (only on fake tensors)")


def _through_real_only(x):
    return _real_only(x * 2) * 3


def test_a_frame_whose_trace_fails_in_two_calls_runs_eagerly_from_then_on():
    """A trace that meets an error that is not Dynamo's own, where eager
    runs (a fake kernel's ``IndexError``, as gpytorch's lazy kernel tensor
    meets one in round twenty-one), runs the frame eagerly that once.  The
    same failure in a later call runs the code eagerly, untraced, from then
    on: traced at every call, it cost netcal's GP ELBO 15 to 100 times the
    eager call.  torch.compile raises."""
    x = torch.arange(3.0)
    torch._dynamo.reset()
    with pytest.raises(IndexError):
        torch.compile(_through_real_only, backend="eager")(x)
    torch._dynamo.reset()
    compiled = graphmend.compile(_through_real_only, backend="eager")
    traces = []
    for _ in range(5):
        before = len(_FAKE_CALLS)
        assert torch.equal(compiled(x), _through_real_only(x))
        traces.append(len(_FAKE_CALLS) > before)
    assert traces == [True, True, False, False, False]
    # What remembers the failing code does not keep the compiled object's graphs alive.
    graphs = weakref.ref(compiled._graphmend_first_call.graphs)
    del compiled
    torch._dynamo.reset()
    gc.collect()
    assert graphs() is None


def _through_real_only_again(x):  # a code of its own: failures are remembered by code, across objects
    return _real_only(x * 2) * 3


def test_a_frame_whose_trace_fails_in_calls_that_raise_stays_traced():
    """Only calls that returned count: where eager raised the error too
    (the fuzz's helpers that index out of range in some rows), the failed
    trace may have been the user's error, and the code stays traced; two
    failures in calls that returned run it eagerly from then on."""
    inside, outside = torch.arange(3.0), -torch.arange(3.0) - 1
    torch._dynamo.reset()
    compiled = graphmend.compile(_through_real_only_again, backend="eager")
    traces = []
    for x in (outside, outside, inside, inside, inside, inside):
        before = len(_FAKE_CALLS)
        if x is outside:
            with pytest.raises(IndexError, match="eager too"):
                compiled(x)
        else:
            assert torch.equal(compiled(x), _through_real_only_again(x))
        traces.append(len(_FAKE_CALLS) > before)
    assert traces == [True, True, True, True, False, False]

