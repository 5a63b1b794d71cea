"""End-to-end smoke tests of the benchmark harness: one small row, eager
backend, JSON fields (``make bench-smoke``; not in ``make test``, since the
cold run spawns fresh processes and compiles several times).

Timings are benchmark output, never asserted here; only that the fresh-process
harness measures every arm and says what it measured."""

from __future__ import annotations

import json

from benchmarks.__main__ import main


def test_bench_one_row_writes_results(tmp_path, capsys):
    out = tmp_path / "bench"
    status = main(["--rows", "biogpt", "--backend", "eager", "--out", str(out)])
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
    status = main(["--cold", "--rows", "biogpt", "--backend", "eager", "--repetitions", "1",
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
