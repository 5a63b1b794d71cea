"""``python -m benchmarks``: the model corpus, original vs mended, side by side.

What ``graphmend bench`` did before the benchmarks left the package; the
options are the same.  ``make bench`` runs it twice (the corpus table, then
``--cold --switches``); ``make bench-ecosystem`` runs ``--corpus ecosystem``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from benchmarks import bench, corpus

    if args.speed:
        from benchmarks import bench_speed

        print(bench_speed.write(bench_speed.run(), Path(args.out)))
        return 0
    if args.corpus == "ecosystem":
        from benchmarks import bench_ecosystem

        return bench_ecosystem.main([*(["--rows", *args.rows] if args.rows else []), "--out", args.out])
    rows = args.rows or [name for name, row in corpus.ROWS.items()]
    unknown = sorted(set(rows) - set(corpus.ROWS) - (_detection_rows() if args.cold else set()))
    if unknown:
        print(f"benchmarks: unknown row(s) {unknown}; known: {sorted(corpus.ROWS)}", file=sys.stderr)
        return 2
    if args.device == "cuda" and not __import__("torch").cuda.is_available():
        print("benchmarks: --device cuda but no CUDA device is available", file=sys.stderr)
        return 2
    out = Path(args.out)
    if args.cold:
        return _bench_cold(args, rows, out)
    results = bench.run(rows, backend=args.backend, device=args.device, out=out)
    print((out / "results.md").read_text())
    print(f"wrote {out / 'results.json'}, {out / 'results.md'}, {out / 'breaks.png'}")
    return 1 if any(r.error or r.identical is False for r in results) else 0


def _detection_rows() -> set[str]:
    """The rows ``--cold`` times beside the corpus: the detection corpus's
    and the library corpora's, held-out rounds included
    (:func:`benchmarks.corpus.find`)."""
    from benchmarks import corpus, detection

    return {*detection.ROWS, *corpus.library_rows()}


def _bench_cold(args: argparse.Namespace, rows: list[str], out) -> int:
    from rich.console import Console

    from benchmarks import bench, timing

    console = Console(stderr=True)
    arms = [*args.arms, *(timing.SWITCHES if args.switches else ())]
    control_row = args.control or rows[0]
    results = timing.run(
        rows, arms, repetitions=args.repetitions, backend=args.backend, device=args.device, warm=args.repeats,
        threads=args.threads, out=out, environment=bench.environment(args.device, args.backend),
        control_row=control_row, warm_processes=args.warm_processes, large_batch=args.large_batch,
        progress=lambda text: console.log(text),
    )
    print((out / "timing.md").read_text())
    print(f"wrote {out / 'timing.json'}, {out / 'timing.md'}, {out / 'timing.csv'}")
    return 1 if any(r.error for r in results) else 0


def build_parser() -> argparse.ArgumentParser:
    bench = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=(
            "Build each corpus row (transformers models from small configs with random "
            "weights), diagnose, mend and compile it, and measure both arms in one run: "
            "graphs and breaks, identical outputs, recompiles, time to mend, cold and warm "
            "latency. Writes results.json, results.md and breaks.png to --out."
        ),
        epilog="Exit status: 1 if a row failed or its outputs differ, else 0.",
    )
    bench.add_argument("--corpus", choices=("transformers", "ecosystem"), default="transformers",
                       help="the paper's transformers corpus (default), or the ecosystem corpus: ten other "
                            "PyTorch libraries, inference and training (needs the 'ecosystem' extra)")
    bench.add_argument("--speed", action="store_true", help="time graphmend itself: fix --check against a bare "
                       "LibCST parse, fix over every transformers modeling file, mend from a diagnosis "
                       "(writes speed.json and speed.md)")
    bench.add_argument("--rows", nargs="+", metavar="ROW", help="rows to run (default: all)")
    bench.add_argument("--backend", default="inductor", choices=("inductor", "eager", "aot_eager"), help="torch.compile backend (default inductor)")
    bench.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="device (default cpu)")
    bench.add_argument("--repeats", type=int, default=100, help="with --cold: warm calls per process, median reported (default 100)")
    bench.add_argument(
        "--cold", action="store_true",
        help="time the first call and warm calls of torch.compile and graphmend.compile, each arm in "
             "fresh processes with empty caches, interleaved (writes timing.json, timing.md and timing.csv)",
    )
    bench.add_argument("--repetitions", type=int, default=3, help="with --cold: fresh processes per arm (default 3)")
    bench.add_argument("--warm-processes", type=int, default=4,
                       help="with --cold: more processes per arm that warm latency is taken from, loading "
                            "the kernels the cold ones compiled (default 4; 0: from the cold processes)")
    bench.add_argument("--large-batch", type=int, default=0, metavar="N",
                       help="with --cold: also warm latency with the inputs repeated N times along the batch "
                            "dimension (default: off)")
    bench.add_argument("--threads", type=int, default=1, help="with --cold: torch threads per process (default 1)")
    bench.add_argument("--control", metavar="ROW", help="with --cold: the row that also runs the control and "
                       "second-process arms (default: the first row)")
    bench.add_argument("--arms", nargs="+", default=["torch", "graphmend", "control", "graphmend_second"],
                       choices=("torch", "graphmend", "control", "graphmend_second"), metavar="ARM",
                       help="with --cold: the arms to run (default: torch graphmend control graphmend_second; "
                            "control and graphmend_second run on the control row only)")
    bench.add_argument("--switches", action="store_true", help="with --cold: also Dynamo's own switches on the "
                       "original code (nested_graph_breaks, capture_scalar_outputs, the logging switches)")
    bench.add_argument("--out", default="bench-results", help="output folder (default bench-results)")
    return bench


def main(argv: Sequence[str] | None = None) -> int:
    return _run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
