"""The benchmarks package, cheaply: it imports, its command parses, and its
bookkeeping (spreads, verdicts, gradient names) is right.  Nothing is timed
here; ``make bench-smoke`` runs the harness end to end."""

from __future__ import annotations

import pytest


def test_the_tool_has_no_bench_command():
    from graphmend.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench"])


def test_benchmarks_command_parses_the_old_bench_options():
    from benchmarks.__main__ import build_parser

    args = build_parser().parse_args(["--cold", "--rows", "biogpt", "--backend", "eager", "--repetitions", "1"])
    assert args.cold and args.rows == ["biogpt"] and args.backend == "eager" and args.corpus == "transformers"


def test_workers_find_the_benchmarks_package_from_anywhere():
    import os

    from benchmarks import ROOT, child_pythonpath

    assert (ROOT / "benchmarks" / "timing.py").is_file()
    assert child_pythonpath().split(os.pathsep)[0] == str(ROOT)


def test_spread_verdicts():
    from benchmarks.timing import Spread, verdict

    assert verdict(Spread(0.9, 0.85, 0.95)) == "faster"
    assert verdict(Spread(1.1, 1.05, 1.2)) == "slower"
    assert verdict(Spread(0.97, 0.9, 1.04)) == "even (spread crosses 1.00)"
    assert verdict(Spread(0.9, 0.9, 0.9)) == "one run: no spread to judge by"
    assert Spread.of([3.0, 1.0, 2.0]) == Spread(2.0, 1.0, 3.0)


def test_warm_latency_comes_from_the_processes_that_loaded_their_kernels():
    from benchmarks.timing import ArmResult, RowTiming, Sample

    def sample(cold_s, warm_ms):
        return Sample(cold_s=cold_s, warm_ms=warm_ms, graphs=1, break_events=0, messages=[], output="")

    # Cold processes only: both measures from them.
    alone = ArmResult("torch", samples=[sample(10.0, 1.0), sample(11.0, 0.5)])
    assert alone.warm().median == 0.75 and alone.cold().median == 10.5
    # With warm-only processes, warm comes from them alone; cold never does.
    torch_arm = ArmResult("torch", samples=[sample(10.0, 1.2)], warm_only=[sample(2.0, 0.6), sample(2.0, 0.6)])
    ours = ArmResult("graphmend", samples=[sample(9.0, 0.5)], warm_only=[sample(2.0, 0.5), sample(2.0, 0.54)])
    assert torch_arm.warm().median == 0.6 and torch_arm.cold().median == 10.0
    row = RowTiming("biogpt", "BioGPT", {"torch": torch_arm, "graphmend": ours})
    assert row.ratios("graphmend", "cold_s") == [0.9]
    assert [round(r, 2) for r in row.ratios("graphmend", "warm_ms")] == [0.83, 0.9]


def test_timing_csv_has_one_line_per_row_and_arm_with_the_markdown_figures():
    import csv
    import io

    from benchmarks.timing import CSV_COLUMNS, ArmResult, RowTiming, Sample, to_csv

    def arm(name, graphs, colds, settling_s):
        return ArmResult(name, samples=[Sample(cold_s=c, warm_ms=1.0, graphs=graphs, break_events=graphs - 1,
                                               messages=[], output="", steady_s=c + settling_s,
                                               steady_calls=1 + (settling_s > 0)) for c in colds])

    # graphmend's first call ran a frame eagerly; its second call compiled it.
    row = RowTiming("biogpt", "BioGPT", {"torch": arm("torch", 3, [10.0, 20.0, 30.0], 0.0),
                                         "graphmend": arm("graphmend", 1, [9.0, 22.0, 27.0], 2.0)})
    (line,) = list(csv.DictReader(io.StringIO(to_csv([row]))))
    assert list(line) == list(CSV_COLUMNS)
    assert (line["row"], line["graphs_breaks_before"], line["graphs_breaks_after"]) == ("BioGPT", "3 / 2", "1 / 0")
    assert (line["cold_ratio"], line["cold_ratio_min"], line["cold_ratio_max"]) == ("0.90", "0.90", "1.10")
    assert line["cold_verdict"] == "even (spread crosses 1.00)"
    assert (line["to_steady_ratio_min"], line["to_steady_ratio_max"]) == ("0.97", "1.20")


BUFFER_TEST = """
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mechanism", torch.tensor(0))

    def forward(self, x):
        y = x * 2
        if self.mechanism == 0:
            y = y - 1
        return y
"""


@pytest.mark.parametrize("arm, steady_calls", [("torch", 1), ("graphmend", 2)])
def test_the_timing_worker_times_the_calls_up_to_the_steady_state(tmp_path, monkeypatch, isolated_cache, arm,
                                                                  steady_calls):
    """The ``if`` on a buffer is a site only a call shows, in the forward's
    own code: graphmend's first call runs the frame eagerly and its second,
    watched, compiles the mended code.  The steady-state measure holds both
    calls; the first call alone would flatter it."""
    import textwrap
    from types import SimpleNamespace

    import torch

    from benchmarks import corpus, timing
    from harness import load_module

    module = load_module(textwrap.dedent(BUFFER_TEST), tmp_path, "timing_gate")
    row = SimpleNamespace(title="gate", model=module.Gate, inputs=lambda: ((torch.arange(4.0),), {}))
    monkeypatch.setattr(corpus, "find", lambda name: row)
    torch._dynamo.reset()
    data = timing.worker("gate", arm, backend="eager", device="cpu", warm=3, threads=1, output=tmp_path / "out.pt")
    assert data["steady_calls"] == steady_calls
    assert data["steady_s"] >= data["cold_s"] and data["warm_ms"] is not None


PER_CALL_CONFIG = """
import copy

import torch
from torch import nn


class Config:
    scale = 2


class PerCall(nn.Module):
    def forward(self, x):
        config = Config()
        torch._dynamo.graph_break()
        scale = copy.deepcopy(config).scale
        torch._dynamo.graph_break()
        return x * scale
"""


def test_a_call_that_traces_a_frame_again_is_not_yet_the_steady_state(tmp_path, monkeypatch, isolated_cache):
    """The frame resumed after the first break deep-copies an object each
    call makes: Dynamo guards its identity (``copy.deepcopy``'s memo reads
    ``id``) and traces that frame again at every call, up to its recompile
    limit, with no operator in it and so no new graph (transformers'
    ``_prepare_generation_config`` under ``generate``).  Those calls pay a
    trace each: they are not the steady state, and with every timed call
    tracing there is no warm figure."""
    import textwrap
    from types import SimpleNamespace

    import torch

    from benchmarks import corpus, timing
    from harness import load_module

    module = load_module(textwrap.dedent(PER_CALL_CONFIG), tmp_path, "timing_per_call")
    row = SimpleNamespace(title="per call", model=module.PerCall, inputs=lambda: ((torch.arange(4.0),), {}))
    monkeypatch.setattr(corpus, "find", lambda name: row)
    torch._dynamo.reset()
    data = timing.worker("per call", "torch", backend="eager", device="cpu", warm=3, threads=1,
                         output=tmp_path / "out.pt")
    assert data["steady_calls"] == 1 + 5 and data["warm_ms"] is None


def test_a_timing_run_cut_short_keeps_every_process_it_finished(tmp_path, monkeypatch):
    """On a lent machine a run may be stopped mid-row: the files say what
    each finished process measured, not only each finished row."""
    import json

    import torch

    from benchmarks import timing

    out = tmp_path / "cold"
    written = []

    def worker(row, arm, **_):
        if (out / "timing.json").exists():
            rows = json.loads((out / "timing.json").read_text())["rows"]
            written.append({name: len(a["samples"]) for name, a in rows[0]["arms"].items()} if rows else {})
            assert (out / "timing.md").read_text() and (out / "timing.csv").read_text()
        output = tmp_path / f"{arm}-{len(written)}.pt"
        torch.save(torch.ones(1), output)
        return timing.Sample(cold_s=1.0, warm_ms=2.0, graphs=1, break_events=0, messages=[], output=str(output))

    monkeypatch.setattr(timing, "_run_worker", worker)
    timing.run(["biogpt"], ["torch", "graphmend"], repetitions=2, backend="eager", device="cpu", warm=1,
               threads=1, out=out, environment={}, control_row=None)
    # The eager reference, then torch, graphmend, graphmend, torch (interleaved).
    assert written == [{"torch": 1, "graphmend": 0}, {"torch": 1, "graphmend": 1}, {"torch": 1, "graphmend": 2}]
    assert json.loads((out / "timing.json").read_text())["rows"][0]["same_output"] == {"torch": True,
                                                                                       "graphmend": True}


def test_ecosystem_worker_names_compiled_gradients_as_the_eager_ones():
    """A row that calls a module with parameters, or a bound method: the
    compiled arm names its gradients through the callable it compiled
    (``torch.compile`` names them ``_orig_mod.*``, and a compiled bound
    method has no ``__self__``), so eager and compiled gradients compare."""
    import torch

    from benchmarks.bench_ecosystem import _compare, _run
    from benchmarks.ecosystem import Row

    def make(training):
        return torch.nn.Linear(3, 2), (torch.ones(4, 3),), {}

    for callable_of in (lambda m: m, lambda m: m.forward):
        row = Row("linear", "torch", torch.__version__, "Linear", (), lambda t: (callable_of(make(t)[0]), *make(t)[1:]))
        fn, args, kwargs = row.build(True)
        eager = _run(row, True, fn, args, kwargs)
        fn2, args2, kwargs2 = row.build(True)
        compiled = _run(row, True, fn2, args2, kwargs2, torch.compile(fn2, backend="eager"))
        assert set(eager["grads"]) >= {"self.weight", "args[0]"} or set(eager["grads"]) >= {"fn.weight", "args[0]"}
        comparison = _compare(eager, compiled)
        assert comparison["identical"] and comparison["grads_identical"], comparison


def test_a_later_call_that_raises_is_in_the_errors_of_both_tables(tmp_path):
    """A compiled arm whose first call ran and a later one raised (torchquad
    on torch 2.13: Dynamo's ``popitem(last=False)`` on an OrderedDict's
    ``copy()`` pops the last item): the counts read the calls that ran, and the raise is shown
    in the markdown table and the CSV, not only kept in the JSON."""
    import csv

    from benchmarks.bench_ecosystem import markdown, write_csv

    result = {"row": "r", "library": "lib", "version": "1", "mode": "inference", "errors": {},
              "default": {"first": {"break_count": 0, "breaks": []}, "settled": {"break_count": 0, "breaks": []},
                          "runs_per_call": 0, "graphs_compiled": 1, "never_run": 0, "identical": True,
                          "later_error": "TypeError: amin() missing 1 required positional arguments"},
              "compiled_original": {"later_error": None}}
    assert "default (a later call): TypeError: amin()" in markdown([result], {})
    write_csv([result], tmp_path / "r.csv")
    (row,) = csv.DictReader(open(tmp_path / "r.csv"))
    assert row["errors"] == "default (a later call): TypeError: amin() missing 1 required positional arguments"


def test_the_ecosystem_tables_count_operators_in_graphs_and_flag_a_frame_run_eagerly_whole(tmp_path):
    """Fewer graph runs can be a frame Dynamo gave up on, run eagerly whole:
    each arm's steady call is profiled, its operators in graphs counted, and
    a default path with a smaller share than torch.compile's is flagged."""
    import csv

    import torch

    from benchmarks.bench_ecosystem import _calls, markdown, write_csv
    from benchmarks.ecosystem import Row
    from graphmend.diagnosis import GraphCounter

    def make(training):
        return (lambda x: (x + 1).sin()), (torch.ones(4),), {}

    row = Row("r", "lib", "1", "r", (), make, modes=("inference",))
    fn, args, kwargs = row.build(False)
    counts = {}
    for arm, stance in (("compiled_original", "default"), ("default", "force_eager")):
        counter = GraphCounter()
        with torch.compiler.set_stance(stance):
            counts[arm] = _calls(row, False, fn, args, kwargs, torch.compile(fn, backend=counter), counter)["counts"]
    assert {k: counts["compiled_original"][k] for k in ("runs_per_call", "ops", "ops_in_graphs")} == {
        "runs_per_call": 1, "ops": 2, "ops_in_graphs": 2}
    assert {k: counts["default"][k] for k in ("runs_per_call", "ops", "ops_in_graphs")} == {
        "runs_per_call": 0, "ops": 2, "ops_in_graphs": 0}
    report = {"first": {"break_count": 0, "breaks": []}, "settled": {"break_count": 0, "breaks": []}}
    result = {"row": "r", "library": "lib", "version": "1", "mode": "inference", "errors": {},
              "default": {**report, **counts["default"], "identical": True},
              "compiled_original": {**counts["compiled_original"], "later_error": None}}
    table = markdown([result], {})
    assert "ops in graphs 100% → 0%" in table
    assert "**FEWER OPS IN GRAPHS than torch.compile: 100% -> 0%**" in table
    assert "operators in graphs 100% → 0%" in table
    write_csv([result], tmp_path / "r.csv")
    (line,) = csv.DictReader(open(tmp_path / "r.csv"))
    assert (line["ops_in_graphs_torch_compile"], line["ops_torch_compile"], line["ops_in_graphs_default"],
            line["ops_default"]) == ("2", "2", "0", "2")


def test_a_row_that_recompiles_every_call_names_the_arm_that_hit_dynamos_recompile_limit(tmp_path):
    """A row whose fresh build makes Dynamo guard something new every call
    (here a size, with automatic dynamic shapes off) recompiles until the
    recompile limit, and then runs its frame eagerly: the counts of that
    arm are the fallback's, and the CSV says which arm hit the limit."""
    import csv

    import torch

    from benchmarks.bench_ecosystem import _calls, markdown, write_csv
    from benchmarks.ecosystem import Row
    from graphmend.diagnosis import GraphCounter

    sizes = iter(range(1, 100))

    def make(training):
        return (lambda x: (x + 1).sin()), (torch.ones(next(sizes)),), {}

    row = Row("r", "lib", "1", "r", (), make, modes=("inference",))
    fn, args, kwargs = row.build(False)
    counter = GraphCounter()
    with torch._dynamo.config.patch(recompile_limit=2, automatic_dynamic_shapes=False):
        counts = _calls(row, False, fn, args, kwargs, torch.compile(fn, backend=counter), counter)["counts"]
    torch._dynamo.reset()
    assert counts["recompile_limit_hits"] >= 1
    assert counts["compiled"][:2] == [1, 1] and counts["runs"][-2:] == [0, 0]
    result = {"row": "r", "library": "lib", "version": "1", "mode": "inference", "errors": {},
              "default": {"first": {"break_count": 0, "breaks": []}, "settled": {"break_count": 0, "breaks": []},
                          **counts, "recompile_limit_hits": 0},
              "compiled_original": {**counts, "later_error": None}}
    write_csv([result], tmp_path / "r.csv")
    (line,) = csv.DictReader(open(tmp_path / "r.csv"))
    assert line["recompile_limit_hit"] == "torch.compile"
    assert "**AT DYNAMO'S RECOMPILE LIMIT: torch.compile**" in markdown([result], {})


def test_the_detection_tables_give_both_arms_operators_in_graphs(tmp_path):
    """Operators in graphs beside graph runs in the detection corpus's table
    and CSV (the figures as the worker leaves them; torchvision is not
    needed to write them)."""
    import csv

    from benchmarks.detection import ROWS, markdown, write_csv

    row = next(iter(ROWS))
    base = {"row": row, "mode": "eval", "backend": "eager", "never_run": 0, "first_s": 1.0, "same_as_eager": True}
    results = [{**base, "arm": "torch", "runs_per_call": 190, "graphs": 7, "ops": 400, "ops_in_graphs": 300},
               {**base, "arm": "graphmend", "runs_per_call": 12, "graphs": 5, "ops": 400, "ops_in_graphs": 380,
                "same_as_torch": True}]
    assert "| 190 → 12 | 7 → 5 | 75% → 95% |" in markdown(results)
    write_csv(results, tmp_path / "d.csv")
    (line,) = csv.DictReader(open(tmp_path / "d.csv"))
    assert (line["ops_in_graphs_torch_compile"], line["ops_torch_compile"], line["ops_in_graphs_graphmend"],
            line["ops_graphmend"]) == ("300", "400", "380", "400")


def test_steady_calls_go_on_while_graphmend_compile_watches():
    """A watched call may run frames eagerly (fewer graph runs): the count
    waits for two unwatched calls in a row; torch.compile's object gets
    the calls asked for."""
    from types import SimpleNamespace

    from benchmarks import MOST_EXTRA_CALLS, steady_calls

    first_call = SimpleNamespace(watching=True)
    compiled = SimpleNamespace(_graphmend_first_call=first_call)
    made = []
    for index in steady_calls(compiled, 3):
        made.append(index)
        first_call.watching = index < 4  # the watch ends after the fifth call
    assert made == [0, 1, 2, 3, 4, 5, 6]
    assert list(steady_calls(object(), 3)) == [0, 1, 2]
    first_call.watching = True
    assert len(list(steady_calls(compiled, 3))) == 3 + MOST_EXTRA_CALLS


def test_steady_calls_go_on_until_a_call_repeats_the_one_before_in_either_arm():
    """A call that compiled or ran other graphs than the call before it is
    not counted as the steady one, in torch.compile's arm as in
    graphmend.compile's; a row that compiles the same graph every call is
    steady; one that never settles stops after ``MOST_EXTRA_CALLS`` more."""
    from types import SimpleNamespace

    from benchmarks import MOST_EXTRA_CALLS, steady_calls

    def calls_made(compiled, per_call):
        counter, made = SimpleNamespace(graphs=0, runs=0), []
        for index in steady_calls(compiled, 3, counter):
            made.append(index)
            graphs, runs = per_call(index)
            counter.graphs += graphs
            counter.runs += runs
        return made

    # cooper's nuPI step: 6, 4, 5, 8 graphs, then 2 a call (fresh inputs recompile a frame)
    compiles = [(6, 15), (4, 21), (5, 25), (8, 33), (2, 13)]
    assert calls_made(object(), lambda i: compiles[min(i, 4)]) == [0, 1, 2, 3, 4, 5]
    assert calls_made(object(), lambda i: (1, 1)) == [0, 1, 2]  # an optimizer built per call
    assert calls_made(object(), lambda i: (0, i)) == list(range(3 + MOST_EXTRA_CALLS))

    first_call = SimpleNamespace(watching=True)
    compiled = SimpleNamespace(_graphmend_first_call=first_call)

    def watched_twice(index):
        first_call.watching = index < 1  # calls 0 and 1 are watched
        return (3, 5) if index < 3 else (0, 5)

    assert calls_made(compiled, watched_twice) == [0, 1, 2, 3, 4]


def test_the_timing_harness_finds_a_row_of_every_library_corpus():
    """``--cold`` times a library row of the ecosystem corpus or of any
    held-out round, in inference (the builders import their libraries only
    when called, so no library is needed to list them)."""
    from benchmarks import corpus, ecosystem, heldout
    from benchmarks.__main__ import _detection_rows

    rounds = heldout.rounds()
    # Found by their files, in order, a later round too.
    assert [round_.__name__.rpartition(".")[2] for round_ in rounds][:7] == [
        "rows", *(f"round{n}" for n in range(6, 12))]
    names = _detection_rows()
    for rows in (ecosystem.ROWS, *(round_.ROWS for round_ in rounds)):
        assert {row.name for row in rows} <= names
        assert corpus.find(rows[0].name).row is rows[0]
