"""The showcase behind ``make demo``: diagnose, mend and compare a real model.

T5 from transformers 4.52.4 (small config, random weights, nothing
downloaded) breaks ``torch.compile`` on a ``logger.warning_once`` call.  The
demo prints the diagnosis, mends the model, diagnoses it again and checks
that the outputs are bit-identical.  Then it times ``torch.compile`` and
``graphmend.compile`` as a user meets them (:mod:`benchmarks.timing`): each
arm in fresh processes with empty caches, interleaved, cold (the first call,
compilation included) and warm (median of later calls), medians with their
spread.

What it prints is graphmend's and the demo's own: the one line transformers
would add in the middle (T5's deprecation notice, the very ``warning_once``
call the demo is about) is silenced where it comes from, transformers'
logging verbosity, in this process only; graphmend's warnings are not
filtered.  The timed processes keep their messages and compare them with
eager's.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

import graphmend
from benchmarks import corpus, timing
from graphmend.compare import first_difference


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.demo", description=__doc__)
    parser.add_argument("--row", default="t5", choices=sorted(corpus.ROWS), help="corpus row")
    parser.add_argument("--repetitions", type=int, default=3, help="fresh processes per arm")
    parser.add_argument("--repeats", type=int, default=20, help="warm calls per process")
    parser.add_argument("--backend", default="inductor", help="torch.compile backend to time")
    args = parser.parse_args(argv)

    console = Console(width=max(Console().width, 110))
    _quiet_transformers()
    row = corpus.ROWS[args.row]
    model, call_args, call_kwargs = row.build()
    console.rule(f"[bold]graphmend demo: {row.title}")
    console.print(
        f"torch {torch.__version__}, transformers "
        f"{__import__('transformers').__version__}, graphmend {graphmend.__version__}"
    )

    with torch.no_grad():
        console.rule("1. diagnose the original model")
        before = graphmend.diagnose(model, *call_args, mended=False, **call_kwargs)
        before.show(console)
        expected = model(*call_args, **call_kwargs)

        console.rule("2. mend it, and diagnose the mended model")
        graphmend.mend(model, modules=row.modules)
        after = graphmend.diagnose(model, *call_args, mended=False, **call_kwargs)
        after.show(console)
        mended_eager = model(*call_args, **call_kwargs)
        graphmend.unmend(model)
    eager_difference = first_difference(expected, mended_eager)

    console.rule(f"3. torch.compile vs graphmend.compile (backend={args.backend!r}), fresh processes")
    arms = ["torch", "graphmend"]
    # One step per fresh process: the eager reference, then each arm per repetition.
    steps = 1 + args.repetitions * len(arms)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    # A bar on a terminal; one line per process in a log (make demo > file).
    bar = Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
    with tempfile.TemporaryDirectory() as out, bar as progress:
        task = progress.add_task("starting", total=steps)

        def advance(text: str) -> None:
            # Called as each process starts: the ones before it are done.
            done = progress.tasks[0].description != "starting"
            progress.update(task, description=f"timing {text}", advance=1 if done else 0)
            if not console.is_terminal:
                console.log(f"timing {text}")

        (timed,) = timing.run(
            [row.name], arms, repetitions=args.repetitions, backend=args.backend,
            device="cpu", warm=args.repeats, threads=1, out=Path(out), environment={}, control_row=None,
            progress=advance,
        )
        progress.update(task, completed=steps)
    if timed.error:
        console.print(f"[red]timing failed: {timed.error}")
        return 1
    table = Table(title=f"{row.title}: original vs mended")
    for column in ("", "torch.compile", "graphmend.compile", "graphmend / torch"):
        table.add_column(column, justify="right")
    table.add_row("graphs", str(before.graph_count), str(after.graph_count), "")
    table.add_row("breaks", str(before.break_count), str(after.break_count), "")
    table.add_row(
        "ops captured",
        f"{before.pct_ops:.1%}" if before.pct_ops is not None else "-",
        f"{after.pct_ops:.1%}" if after.pct_ops is not None else "-",
        "",
    )
    for label, measure, method, spec in (
        ("cold (first call) s", "cold_s", "cold", ".2f"),
        (f"warm (median of {args.repeats}) ms", "warm_ms", "warm", ".2f"),
    ):
        ratio = timed.ratio("graphmend", measure)
        table.add_row(
            label,
            getattr(timed.arms["torch"], method)().text(spec),
            getattr(timed.arms["graphmend"], method)().text(spec),
            f"{ratio.text('.2f')} ({timing.verdict(ratio)})",
        )
    console.print(table)
    console.print(
        f"medians \\[min-max] over {args.repetitions} fresh processes per arm, empty inductor and graphmend "
        "caches, interleaved, 1 thread"
    )
    console.print(
        "eager output, mended vs original: "
        + ("[green]bit-identical[/]" if eager_difference is None else f"[red]{eager_difference}[/]")
    )
    console.print(
        f"{args.backend} output, graphmend.compile vs torch.compile: "
        + ("[green]bit-identical[/]" if timed.same_output.get("graphmend")
           else "[yellow]differs[/] (different graphs may fuse differently)")
    )
    console.print(
        "messages (prints, logs, warnings) of the first call, as eager: "
        + ("[green]the same[/]" if timed.same_messages.get("graphmend") else "[red]different[/]")
    )
    return 0 if eager_difference is None and after.graph_count <= before.graph_count else 1


def _quiet_transformers() -> None:
    """transformers' own notices (T5's "Passing a tuple of `past_key_values`
    is deprecated") at their source: its logging verbosity, errors only."""
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        return
    transformers_logging.set_verbosity_error()


if __name__ == "__main__":
    raise SystemExit(main())
