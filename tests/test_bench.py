"""Smoke test of ``graphmend bench``: one small row, eager backend, JSON fields.

Timings are benchmark output, never asserted here."""

from __future__ import annotations

import json

from graphmend.cli import main


def test_bench_one_row_writes_results(tmp_path, capsys):
    out = tmp_path / "bench"
    status = main(["bench", "--rows", "biogpt", "--backend", "eager", "--repeats", "2", "--out", str(out)])
    assert status == 0
    data = json.loads((out / "results.json").read_text())
    (row,) = data["rows"]
    assert row["row"] == "biogpt" and row["error"] is None
    assert row["original"]["graphs"] == 3 and row["original"]["breaks"] == 2
    assert row["mended"]["graphs"] == 1 and row["mended"]["breaks"] == 0
    assert row["identical"] is True
    assert row["functions_mended"] >= 1
    for arm in ("original", "mended"):
        for field in ("cold_s", "warm_ms", "pct_ops", "graph_calls", "recompiles_second_batch"):
            assert row[arm][field] is not None, (arm, field)
    for field in ("mend_cold_ms", "mend_cached_ms", "cold_ratio", "warm_ratio"):
        assert row[field] is not None, field
    assert data["environment"]["torch"].startswith("2.")
    assert "| BioGPT" in (out / "results.md").read_text()
    assert (out / "breaks.png").stat().st_size > 0
