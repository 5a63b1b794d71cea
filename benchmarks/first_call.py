"""The first calls of a library row, each arm in a fresh process, on Dynamo's eager backend.

What graphmend itself adds before a model runs at steady state: per round
(the arms' order rotated each round), ``torch.compile``, ``graphmend.compile``
with a fresh cache (a user's first process), ``graphmend.compile`` with a warm
one (every later process: the row's cache filled, untimed, by one process
making the same calls before the first round) and ``torch.compile`` again as the control.  Each process builds
the row (its library imported, its model built) before the clock starts, then
times ``X.compile(fn, backend="eager")`` with the first call, and each later
call alone; a compile that a watched first call defers to a later call shows
in the later calls' times.  Each process has its own empty inductor cache
(Dynamo's automatic-dynamic profiles live there).

    python -m benchmarks.first_call --corpus benchmarks.heldout.round16 \\
        --rows r16b_psoft_cayley_neumann_forward --rounds 5 --calls 4 --csv first-call.csv

Rows are appended to ``--csv`` (one line a process); ratios against the same
round's ``torch.compile`` are printed at the end, median [min-max].
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import ROOT, child_pythonpath
from benchmarks.timing import Spread

ARMS = (("torch.compile", "-"), ("graphmend.compile", "fresh"), ("graphmend.compile", "warm"),
        ("torch.compile (control)", "-"))


def worker(corpus: str, name: str, mode: str, arm: str, calls: int) -> list[float]:
    """Seconds of each call, the first with the compile call before it."""
    import importlib

    import torch

    from benchmarks.ecosystem import CALL_SEED

    torch.set_num_threads(1)
    row = importlib.import_module(corpus).get(name)
    training = mode == "training"
    fn, args, kwargs = row.build(training)

    def call(compiled: Any) -> None:
        torch.manual_seed(CALL_SEED)
        with torch.set_grad_enabled(training):
            output = compiled(*args, **kwargs)
            loss = row.loss(output) if training else None
            if loss is not None:
                loss.backward()

    start = time.perf_counter()
    if arm.startswith("torch.compile"):
        compiled = torch.compile(fn, backend="eager")
    else:
        import graphmend

        compiled = graphmend.compile(fn, backend="eager")
    times = []
    for _ in range(calls):
        call(compiled)
        end = time.perf_counter()
        times.append(end - start)
        start = end
    return times


def _process(corpus: str, name: str, mode: str, arm: str, calls: int, cache: str) -> list[float]:
    env = dict(os.environ, PYTHONPATH=child_pythonpath(), GRAPHMEND_CACHE_DIR=cache,
               TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="first-call-inductor-"))
    done = subprocess.run([sys.executable, "-m", "benchmarks.first_call", "--worker", corpus, name, mode, arm,
                           str(calls)], capture_output=True, text=True, env=env, timeout=1800)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{name} ({arm}) failed:\n{done.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, help="module with the rows (ROWS, get)")
    parser.add_argument("--rows", nargs="+", required=True)
    parser.add_argument("--mode", default="inference", choices=["inference", "training"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2, help="calls per process, each timed (default 2)")
    parser.add_argument("--csv", type=Path, required=True, help="rows are appended here")
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:  # one process's calls: CORPUS ROW MODE ARM CALLS
        corpus, name, mode, arm, calls = argv[1:6]
        print("RESULT " + json.dumps(worker(corpus, name, mode, arm, int(calls))))
        return 0
    args = parser.parse_args(argv)
    code = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT).stdout.strip()
    warm = {name: tempfile.mkdtemp(prefix="first-call-warm-") for name in args.rows}
    for name in args.rows:  # what a process that ran the same calls leaves behind
        _process(args.corpus, name, args.mode, "graphmend.compile", args.calls, warm[name])
    times: dict[tuple[str, int, str], list[float]] = {}
    new_file = not args.csv.exists()
    with args.csv.open("a", newline="") as handle:
        out = csv.writer(handle)
        if new_file:
            out.writerow(["row", "round", "arm", "graphmend_cache", "graphmend_code", "first_call_s", "second_call_s",
                          "third_call_s", "fourth_call_s"])
        for round_ in range(1, args.rounds + 1):
            for name in args.rows:
                shift = round_ % len(ARMS)
                for arm, cache in ARMS[shift:] + ARMS[:shift]:
                    label = arm if cache == "-" else f"{arm} {cache}"
                    directory = warm[name] if cache == "warm" else tempfile.mkdtemp(prefix="first-call-fresh-")
                    seconds = _process(args.corpus, name, args.mode, arm, args.calls, directory)
                    times[name, round_, label] = seconds
                    out.writerow([name, round_, arm, cache, code if arm == "graphmend.compile" else "-",
                                  *(f"{s:.3f}" for s in seconds)])
                    handle.flush()
                    print(name, round_, label, " ".join(f"{s:.2f}" for s in seconds), flush=True)
    for name in args.rows:
        rounds = range(1, args.rounds + 1)
        for label in ("graphmend.compile fresh", "graphmend.compile warm", "torch.compile (control)"):
            first = [times[name, r, label][0] / times[name, r, "torch.compile"][0] for r in rounds]
            total = [sum(times[name, r, label]) / sum(times[name, r, "torch.compile"]) for r in rounds]
            print(f"{name}: {label} / torch.compile: first call {Spread.of(first).text('.2f')}, "
                  f"all {args.calls} calls {Spread.of(total).text('.2f')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
