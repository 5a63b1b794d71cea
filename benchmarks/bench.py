"""``python -m benchmarks``: the corpus, original vs mended.

Per row: graphs and breaks before and after with the categories of what
remains, capture statistics, bit-identical output (eager, where the
original's numbers are defined), recompiles on a second call with another
batch size for both arms, time to mend (cold cache and cached), and on CUDA
the CUDA-graph launches per forward under ``mode="reduce-overhead"``.
Results go to ``results.json``, ``results.md`` and ``breaks.png``.

Latency is not measured here: in one process the second arm reuses what the
first one compiled and imported.  ``python -m benchmarks --cold``
(:mod:`benchmarks.timing`) times both arms in fresh processes.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

import graphmend
from benchmarks import corpus
from graphmend.compare import first_difference
from graphmend.diagnosis import BreakRecorder, Report
from graphmend.api import mend_report
from benchmarks.bench_default import in_fresh_process
from graphmend.mending.live import unmend


@dataclass
class Arm:
    """One side of a row: the original or the mended model."""

    graphs: int = 0
    breaks: int = 0
    categories: dict[str, int] = field(default_factory=dict)
    pct_ops: float | None = None
    graph_calls: int | None = None
    recompiles_second_batch: int | None = None
    cudagraph_launches: int | None = None


@dataclass
class RowResult:
    row: str
    title: str
    original: Arm
    mended: Arm
    identical: bool | None = None
    difference: str | None = None
    mend_cold_ms: float | None = None
    mend_cached_ms: float | None = None
    functions_mended: int = 0
    # graphmend.compile with default options in a fresh first process
    # (benchmarks.bench_default): graphs on its first call, and where the
    # process settles once what that call met is mended.
    default_first_graphs: int | None = None
    default_graphs: int | None = None
    default_identical: bool | None = None
    error: str | None = None


def _to_device(value: Any, device: str) -> Any:
    return torch.utils._pytree.tree_map(
        lambda v: v.to(device) if isinstance(v, torch.Tensor) else v, value
    )


def batched(value: Any, factor: int) -> Any:
    """The same inputs with every batched tensor repeated ``factor`` times along dim 0."""
    return torch.utils._pytree.tree_map(
        lambda v: torch.cat([v] * factor) if isinstance(v, torch.Tensor) and v.dim() > 0 else v, value
    )


def _arm_from_report(report: Report) -> Arm:
    categories: dict[str, int] = {}
    for b in report.breaks:
        categories[b.category] = categories.get(b.category, 0) + b.count
    return Arm(
        graphs=report.graph_count,
        breaks=report.break_count,
        categories=categories,
        pct_ops=report.pct_ops,
        graph_calls=report.graph_calls,
    )


def _measure_compiled(arm: Arm, model: torch.nn.Module, args: tuple, kwargs: dict, *, backend: str,
                      device: str) -> None:
    """Recompiles on a second batch size, and CUDA-graph launches on CUDA."""
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend)
    compiled(*args, **kwargs)
    doubled_args, doubled_kwargs = batched((args, kwargs), 2)
    with BreakRecorder() as recorder:
        try:
            compiled(*doubled_args, **doubled_kwargs)
        except Exception:  # a row whose inputs cannot simply be doubled
            recorder = None
    arm.recompiles_second_batch = len(recorder.recompiles) if recorder else None
    if device == "cuda":
        arm.cudagraph_launches = _cudagraph_launches(model, args, kwargs)


def _cudagraph_launches(model: torch.nn.Module, args: tuple, kwargs: dict) -> int:
    """CUDA-graph launches in one warm forward under mode="reduce-overhead"."""
    torch._dynamo.reset()
    compiled = torch.compile(model, mode="reduce-overhead")
    for _ in range(3):  # record, then warm up the CUDA graphs
        compiled(*args, **kwargs)
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        compiled(*args, **kwargs)
        torch.cuda.synchronize()
    return sum(1 for e in profile.events() if e.name == "cudaGraphLaunch")


def _mend(model: torch.nn.Module, report: Report) -> tuple[int, float]:
    """Mend what the diagnosis found fixable, as ``graphmend.compile`` does:
    (functions patched, milliseconds)."""
    start = time.perf_counter()
    patched = mend_report(model, report)
    return len(patched), (time.perf_counter() - start) * 1e3


def run_row(name: str, *, backend: str, device: str) -> RowResult:
    """Both arms of one row.  Every phase gets a freshly built model (same
    seed, same weights): some models change their own state on a call
    (Phi-3 caches ``long_inv_freq`` on its first long input and breaks once
    less afterwards), which would flatter whichever arm runs second."""
    row = corpus.ROWS[name]
    args, kwargs = _to_device(row.inputs(), device)

    def fresh() -> torch.nn.Module:
        return row.model().to(device)

    with torch.no_grad():
        before = graphmend.diagnose(fresh(), *args, mended=False, **kwargs)
        expected = fresh()(*args, **kwargs)
        result = RowResult(name, row.title, _arm_from_report(before), Arm())
        _measure_compiled(result.original, fresh(), args, kwargs, backend=backend, device=device)

        model = fresh()
        with tempfile.TemporaryDirectory() as cache:
            saved = os.environ.get("GRAPHMEND_CACHE_DIR")
            os.environ["GRAPHMEND_CACHE_DIR"] = cache
            try:
                result.functions_mended, result.mend_cold_ms = _mend(model, before)
                unmend(model)
                _, result.mend_cached_ms = _mend(model, before)
            finally:
                if saved is None:
                    os.environ.pop("GRAPHMEND_CACHE_DIR", None)
                else:
                    os.environ["GRAPHMEND_CACHE_DIR"] = saved
        try:
            # The mending patched the functions themselves, so fresh instances
            # run mended code too.
            result.mended = _arm_from_report(graphmend.diagnose(fresh(), *args, mended=False, **kwargs))
            result.difference = first_difference(expected, fresh()(*args, **kwargs))
            result.identical = result.difference is None
            _measure_compiled(result.mended, fresh(), args, kwargs, backend=backend, device=device)
        finally:
            unmend(model)
    if device == "cpu":
        default = in_fresh_process(name, "module")
        if "error" not in default:
            result.default_first_graphs = default["first"]["graphs"]
            result.default_graphs = default["settled"]["graphs"]
            result.default_identical = default["identical"]
    return result


# -- output ---------------------------------------------------------------------


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _categories(arm: Arm) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(arm.categories.items())) or "-"


def markdown(results: list[RowResult], environment: dict[str, str]) -> str:
    lines = [
        "| row | graphmend.compile, first process: graphs (1st call → settled) | diagnosis path: graphs | breaks | remaining | ops captured | identical | recompiles (2nd batch) | mend ms cold / cached | CUDA-graph launches |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if r.error:
            lines.append(f"| {r.title} | error: {r.error} |" + " |" * 8)
            continue
        o, m = r.original, r.mended
        default = ("" if r.default_graphs is None else
                   f"{o.graphs} → {r.default_first_graphs} → {r.default_graphs}"
                   f"{'' if r.default_identical else ' (output DIFFERS)'}")
        lines.append(
            f"| {r.title} | {default} | {o.graphs} → {m.graphs} | {o.breaks} → {m.breaks} | {_categories(m)} "
            f"| {_fmt(o.pct_ops, '.0%')} → {_fmt(m.pct_ops, '.0%')} "
            f"| {'yes' if r.identical else 'NO'} "
            f"| {o.recompiles_second_batch} → {m.recompiles_second_batch} "
            f"| {_fmt(r.mend_cold_ms, '.0f')} / {_fmt(r.mend_cached_ms, '.0f')} "
            f"| {_fmt(o.cudagraph_launches, 'd')} → {_fmt(m.cudagraph_launches, 'd')} |"
        )
    ok = [r for r in results if not r.error]
    lines += [
        "",
        f"Totals: breaks {sum(r.original.breaks for r in ok)} → "
        f"{sum(max(r.default_graphs - 1, 0) for r in ok if r.default_graphs is not None)} (graphmend.compile, "
        f"first process) / {sum(r.mended.breaks for r in ok)} (diagnosis path); "
        f"identical outputs {sum(bool(r.identical) for r in ok)}/{len(ok)}.",
        "",
        "Environment: " + ", ".join(f"{k} {v}" for k, v in environment.items()) + ".",
    ]
    return "\n".join(lines) + "\n"


def chart(results: list[RowResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in results if not r.error]
    names = [r.row for r in ok]
    positions = range(len(ok))
    figure, axes = plt.subplots(figsize=(max(6, len(ok) * 0.8), 4))
    axes.bar([p - 0.2 for p in positions], [r.original.breaks for r in ok], 0.4, label="original")
    axes.bar([p + 0.2 for p in positions], [r.mended.breaks for r in ok], 0.4, label="mended")
    axes.set_xticks(list(positions), names, rotation=45, ha="right")
    axes.set_ylabel("graph breaks")
    axes.set_title("torch.compile graph breaks per corpus row")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def environment(device: str, backend: str) -> dict[str, str]:
    import transformers

    info = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "graphmend": graphmend.__version__,
        "python": platform.python_version(),
        "backend": backend,
        "device": torch.cuda.get_device_name() if device == "cuda" else f"CPU ({platform.machine()}, {os.cpu_count()} cores)",
    }
    return info


def write(results: list[RowResult], env: dict[str, str], out: Path) -> None:
    """results.json, results.md and breaks.png for the rows so far."""
    rows = [asdict(r) for r in results]
    (out / "results.json").write_text(json.dumps({"environment": env, "rows": rows}, indent=2))
    (out / "results.md").write_text(markdown(results, env))
    chart(results, out / "breaks.png")


def run(rows: Sequence[str], *, backend: str, device: str, out: Path, progress: bool = True) -> list[RowResult]:
    """Every row in turn; the results are written after each row, so a run
    stopped early keeps what it measured."""
    from rich.progress import Progress

    out.mkdir(parents=True, exist_ok=True)
    env = environment(device, backend)
    results = []
    warnings.filterwarnings("ignore")
    with Progress(disable=not progress, transient=False) as bar:
        task = bar.add_task("bench", total=len(rows))
        for name in rows:
            bar.update(task, description=f"{name}")
            try:
                results.append(run_row(name, backend=backend, device=device))
            except Exception as err:  # one failing row must not hide the others
                row = corpus.ROWS[name]
                results.append(RowResult(name, row.title, Arm(), Arm(), error=f"{type(err).__name__}: {err}"))
            write(results, env, out)
            bar.advance(task)
    return results
