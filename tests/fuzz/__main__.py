"""``make fuzz``: many random programs, in parallel processes, and a summary.

    PYTHONPATH=tests python -m fuzz [--programs N] [--jobs J] [--compile-every K] [--api-every K] [--static]

Each worker draws batches of programs from the grammar with Hypothesis
(its own seed), checks them with :func:`fuzz.runner.check_batch`, and
records mismatches instead of stopping at the first (the arms: eager
original against eager mended, the mended code compiled as
``graphmend.compile`` compiles it, and ``graphmend.compile`` of the
original itself); the parent reduces each mismatch (``runner.reduce``),
prints it, and prints the totals:
programs run, compiled, mismatches, differences torch.compile of the
original shows too, the share of all-fixable programs in one graph, the
DS / SCALAR sites [Capture] held in a graph and those that fell back to
their break (with why), and the rules fired and declined.  The exit status is 1
when a mismatch was found.  ``GRAPHMEND_FUZZ_PROGRAMS`` sets the default N.
"""

from __future__ import annotations

import argparse
import re
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

def _kind(mismatch) -> str:
    """What differs, without the values: the arm, the field, the error types
    and whether a grad_fn changed to CloneBackward0 (runtime.snapshot)."""
    field, _, detail = mismatch.detail.partition(": ")
    marks = sorted(set(re.findall(r"'(builtins\.\w+|torch\.[\w.]+)'|(CloneBackward0)", detail)))
    return f"{mismatch.arm} arm, {field}: " + ", ".join("".join(m) for m in marks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=int(os.environ.get("GRAPHMEND_FUZZ_PROGRAMS", "10000")))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--compile-every", type=int, default=int(os.environ.get("GRAPHMEND_FUZZ_COMPILE_EVERY", "1")),
                        help="run the compiled arm on every K-th program (default 1: all)")
    parser.add_argument("--api-every", type=int, default=1, metavar="K",
                        help="also run every K-th program through graphmend.compile itself (reach walk, mending, "
                             "watched calls, graph reuse) against eager; 0: none (default 1: all)")
    parser.add_argument("--static", action="store_true",
                        help="transform as `graphmend fix` does (no diagnosis: only tests that look like tensors)"
                             " and compile with plain torch.compile, instead of as `graphmend.compile` does")
    parser.add_argument("--backend", default="eager", choices=["eager", "inductor"],
                        help="the compiled arm's backend (default: %(default)s); under inductor only what is raised is "
                             "compared, its code rounding otherwise than eager's kernels")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=float("inf"), help="start no batch after this long")
    parser.add_argument("--reduce", type=int, default=20, metavar="K", help="reduce at most K kinds of mismatch")
    parser.add_argument("--save", metavar="DIR", help="write each reduced mismatch to DIR/mismatch_<n>.py, programs per kind that stays broken to "
                        "DIR/stays_<n>_<i>.py, and the first compiled differences torch.compile of the original "
                        "shows too to DIR/dynamo_<i>.py")
    args = parser.parse_args(argv)

    from fuzz.runner import Tally, reduce, worker

    started = time.time()
    share = -(-args.programs // args.jobs)
    deadline = started + args.minutes * 60
    jobs = [(args.seed + i, share, args.compile_every, deadline, args.static, args.backend, args.api_every)
            for i in range(args.jobs)]
    total = Tally()
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for tally in pool.starmap(worker, jobs):
            total.merge(tally)
    elapsed = time.time() - started

    print(f"programs run: {total.programs} ({total.compiled} also compiled, {total.through_api} also through "
          f"graphmend.compile) in {elapsed:.0f} s, {args.jobs} jobs, "
          f"transformed as {'graphmend fix' if args.static else 'graphmend.mend'} does, compiled "
          f"{'with plain torch.compile' if args.static else 'as graphmend.compile does ([Capture] on)'}, "
          f"backend {args.backend}{' (what is raised compared)' if args.backend != 'eager' else ''}")
    kinds = Counter(_kind(m) for m in total.mismatches)
    print(f"mismatches: {len(total.mismatches)} ({len(kinds)} kinds)")
    for kind, count in kinds.most_common():
        print(f"  {count:7d}  {kind}")
    print(f"compiled differences torch.compile of the original shows too (Dynamo's): {total.dynamo_divergences}")
    rate = total.one_graph / total.fixable if total.fixable else float("nan")
    print("programs whose breaks are all fixable (rewritten or captured, nothing declined, no unfixable category "
          f"left): {total.fixable}; one graph: {total.one_graph} ({rate:.1%})")
    for what, count in total.stays.most_common(15):
        print(f"  {count:7d}  still breaks: {what}")
    print("graphs per compiled program (over all rows): "
          + ", ".join(f"{graphs}: {count}" for graphs, count in sorted(total.graphs.items())))
    if total.capture_off:
        print(f"[Capture] is OFF on this torch ({total.capture_off}): the compiled arm is plain torch.compile")
    sites = total.sites_captured + total.sites_fell_back
    print(f"DS / SCALAR sites in compiled programs: {sites}; captured: {total.sites_captured}, "
          f"still breaking (fell back): {total.sites_fell_back}; programs with one: "
          f"{total.capture_held + total.capture_fell_back}, all captured: {total.capture_held}, "
          f"some fell back: {total.capture_fell_back}")
    for what, count in total.fallback_reasons.most_common(10):
        print(f"  {count:7d}  frame compiled without capture: {what}")
    if args.save:
        Path(args.save).mkdir(parents=True, exist_ok=True)
        for number, examples in enumerate(total.stay_examples.values()):
            for index, example in enumerate(examples):
                (Path(args.save) / f"stays_{number}_{index}.py").write_text(example)
        for index, example in enumerate(total.dynamo_examples):
            (Path(args.save) / f"dynamo_{index}.py").write_text(example)
    for what, count in total.runner_errors.most_common():
        print(f"runner error ({count} batches): {what}")
    print(f"rules fired: {sum(total.fired.values())}")
    for what, count in total.fired.most_common():
        print(f"  {count:7d}  {what}")
    print(f"rules declined: {sum(total.declined.values())}")
    for what, count in total.declined.most_common():
        print(f"  {count:7d}  {what}")
    sys.stdout.flush()  # the totals stand even if reducing is cut short
    # Reduce one mismatch per kind (arm, what differs, how): a bug found a
    # hundred times needs one reduced program, and reduction costs a
    # transform per attempt.
    directory = Path(tempfile.mkdtemp(prefix="gm-fuzz-reduce-"))
    os.environ["GRAPHMEND_CACHE_DIR"] = str(directory / "cache")  # as in each worker
    reduced_kinds = set()
    for number, mismatch in enumerate(total.mismatches):
        kind = _kind(mismatch)
        if kind in reduced_kinds or len(reduced_kinds) >= args.reduce:
            continue
        reduced_kinds.add(kind)
        reduced = reduce(mismatch, directory, static=args.static, backend=args.backend)
        print(f"--- mismatch {number} ({kinds[kind]} of this kind: {kind}): {reduced.report()}", flush=True)
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            header = (f"# {reduced.arm} arm: {reduced.detail[:300]!r}\nGRAD = {reduced.program.grad}\n"
                      f"INFERENCE = {reduced.program.inference}\n\n\n")
            (Path(args.save) / f"mismatch_{number}.py").write_text(header + reduced.program.source())

    return 1 if total.mismatches or total.runner_errors else 0


if __name__ == "__main__":
    sys.exit(main())
