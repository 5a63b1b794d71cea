"""Smoke tests of ``graphmend bench``: one small row, eager backend, JSON fields.

Timings are benchmark output, never asserted here; only that the fresh-process
harness measures every arm and says what it measured."""

from __future__ import annotations

import json

from graphmend.cli import main


def test_bench_one_row_writes_results(tmp_path, capsys):
    out = tmp_path / "bench"
    status = main(["bench", "--rows", "biogpt", "--backend", "eager", "--out", str(out)])
    assert status == 0
    data = json.loads((out / "results.json").read_text())
    (row,) = data["rows"]
    assert row["row"] == "biogpt" and row["error"] is None
    assert row["original"]["graphs"] == 3 and row["original"]["breaks"] == 2
    assert row["mended"]["graphs"] == 1 and row["mended"]["breaks"] == 0
    assert row["identical"] is True
    assert row["functions_mended"] >= 1
    for arm in ("original", "mended"):
        for field in ("pct_ops", "graph_calls", "recompiles_second_batch"):
            assert row[arm][field] is not None, (arm, field)
    for field in ("mend_cold_ms", "mend_cached_ms"):
        assert row[field] is not None, field
    assert data["environment"]["torch"].startswith("2.")
    assert "| BioGPT" in (out / "results.md").read_text()
    assert (out / "breaks.png").stat().st_size > 0


def test_bench_cold_runs_every_arm_in_fresh_processes(tmp_path):
    out = tmp_path / "cold"
    status = main(["bench", "--cold", "--rows", "biogpt", "--backend", "eager", "--repetitions", "1",
                   "--warm-processes", "1", "--large-batch", "2", "--repeats", "2", "--out", str(out)])
    assert status == 0
    data = json.loads((out / "timing.json").read_text())
    (row,) = data["rows"]
    assert row["error"] is None
    arms = row["arms"]
    assert set(arms) == {"torch", "graphmend", "control", "graphmend_second"}
    for arm in arms.values():
        (sample,) = arm["samples"]
        assert sample["cold_s"] > 0 and sample["warm_ms"] > 0
        (warm_only,) = arm["warm_only"]  # one more process, from a filled inductor cache
        assert warm_only["warm_ms"] > 0 and warm_only["graphs"] == sample["graphs"]
        assert sample["warm_large_ms"] > 0  # the inputs twice over, after their recompile
    assert arms["torch"]["samples"][0]["graphs"] == 3
    assert arms["graphmend"]["samples"][0]["graphs"] == 1
    assert arms["graphmend_second"]["samples"][0]["graphs"] == 1
    # The mended model warns as the original does, and computes the same.
    assert row["same_messages"] == {arm: True for arm in arms}
    assert row["same_output"] == {arm: True for arm in arms}
    assert row["ratios"]["control"]["cold_s"]["median"] > 0
    text = (out / "timing.md").read_text()
    assert "Control (torch.compile against itself)" in text and "| BioGPT" in text
    assert "Warm at 2x the batch" in text


def test_spread_verdicts():
    from graphmend.timing import Spread, verdict

    assert verdict(Spread(0.9, 0.85, 0.95)) == "faster"
    assert verdict(Spread(1.1, 1.05, 1.2)) == "slower"
    assert verdict(Spread(0.97, 0.9, 1.04)) == "even (spread crosses 1.00)"
    assert verdict(Spread(0.9, 0.9, 0.9)) == "one run: no spread to judge by"
    assert Spread.of([3.0, 1.0, 2.0]) == Spread(2.0, 1.0, 3.0)


def test_warm_latency_comes_from_the_processes_that_loaded_their_kernels():
    from graphmend.timing import ArmResult, RowTiming, Sample

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


def test_ecosystem_worker_names_compiled_gradients_as_the_eager_ones():
    """A row that calls a module with parameters, or a bound method: the
    compiled arm names its gradients through the callable it compiled
    (``torch.compile`` names them ``_orig_mod.*``, and a compiled bound
    method has no ``__self__``), so eager and compiled gradients compare."""
    import torch

    from graphmend.bench_ecosystem import _compare, _run
    from graphmend.ecosystem import Row

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
