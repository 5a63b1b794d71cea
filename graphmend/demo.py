"""The showcase behind ``make demo``: diagnose, mend and compare a real model.

T5 from transformers 4.52.4 (small config, random weights, nothing
downloaded) breaks ``torch.compile`` on a ``logger.warning_once`` call.  The
demo prints the diagnosis, mends the model, diagnoses it again, checks that
the outputs are bit-identical, and times both arms under inductor side by
side: cold (first call, compilation included) and warm (median of repeated
calls).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch
from rich.console import Console
from rich.table import Table

import graphmend
from graphmend import corpus
from graphmend.compare import first_difference


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def _warm_median(fn: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        samples.append(_timed(fn)[1])
    return statistics.median(samples)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graphmend.demo", description=__doc__)
    parser.add_argument("--row", default="t5", choices=sorted(corpus.ROWS), help="corpus row")
    parser.add_argument("--repeats", type=int, default=20, help="warm calls per arm")
    parser.add_argument("--backend", default="inductor", help="torch.compile backend to time")
    args = parser.parse_args(argv)

    console = Console(width=max(Console().width, 110))
    warnings.filterwarnings("ignore")
    row = corpus.ROWS[args.row]
    model, call_args, call_kwargs = row.build()
    run = lambda fn: fn(*call_args, **call_kwargs)  # noqa: E731
    console.rule(f"[bold]graphmend demo: {row.title}")
    console.print(
        f"torch {torch.__version__}, transformers "
        f"{__import__('transformers').__version__}, graphmend {graphmend.__version__}, "
        f"{torch.get_num_threads()} CPU threads"
    )

    with torch.no_grad():
        console.rule("1. diagnose the original model")
        before = graphmend.diagnose(model, *call_args, **call_kwargs)
        before.show(console)
        expected = run(model)

        console.rule(f"2. the original under torch.compile(backend={args.backend!r})")
        torch._dynamo.reset()
        original = torch.compile(model, backend=args.backend)
        original_out, original_cold = _timed(lambda: run(original))
        original_warm = _warm_median(lambda: run(original), args.repeats)

        console.rule(f"3. graphmend.compile(model, backend={args.backend!r})")
        torch._dynamo.reset()
        mended = graphmend.compile(model, modules=row.modules, backend=args.backend)
        mended_out, mended_cold = _timed(lambda: run(mended))
        mended_warm = _warm_median(lambda: run(mended), args.repeats)

        console.rule("4. diagnose the mended model")
        after = graphmend.diagnose(model, *call_args, **call_kwargs)
        after.show(console)
        mended_eager = run(model)
        graphmend.unmend(model)

    eager_difference = first_difference(expected, mended_eager)
    compiled_difference = first_difference(original_out, mended_out)
    table = Table(title=f"{row.title}: original vs mended")
    for column in ("", "original", "mended", "mended / original"):
        table.add_column(column, justify="right")
    table.add_row("graphs", str(before.graph_count), str(after.graph_count), "")
    table.add_row("breaks", str(before.break_count), str(after.break_count), "")
    table.add_row(
        "ops captured",
        f"{before.pct_ops:.1%}" if before.pct_ops is not None else "-",
        f"{after.pct_ops:.1%}" if after.pct_ops is not None else "-",
        "",
    )
    table.add_row(
        "cold (first call) s",
        f"{original_cold:.2f}",
        f"{mended_cold:.2f}",
        f"{mended_cold / original_cold:.2f}x",
    )
    table.add_row(
        f"warm (median of {args.repeats}) ms",
        f"{original_warm * 1e3:.2f}",
        f"{mended_warm * 1e3:.2f}",
        f"{mended_warm / original_warm:.2f}x",
    )
    console.rule("5. results")
    console.print(table)
    console.print(
        "eager output, mended vs original: "
        + ("[green]bit-identical[/]" if eager_difference is None else f"[red]{eager_difference}[/]")
    )
    console.print(
        f"{args.backend} output, mended vs original: "
        + (
            "[green]bit-identical[/]"
            if compiled_difference is None
            else f"[yellow]{compiled_difference}[/] (different graphs may fuse differently)"
        )
    )
    return 0 if eager_difference is None and after.graph_count <= before.graph_count else 1


if __name__ == "__main__":
    raise SystemExit(main())
