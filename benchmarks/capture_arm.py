"""The bench arm a user would try for DS / SCALAR breaks, beside graphmend.

    .venv/bin/python -m benchmarks.capture_arm [ROW ...] [--backend eager|inductor] [--train]

Per corpus row (default: the paper corpus's DS rows, Longformer and
Grounding DINO, and CLAP), three arms, each in a process of its own (a
mend patches the library's functions for the whole process):

* ``torch.compile``: Dynamo's defaults;
* ``+switches``: ``torch.compile`` with ``capture_scalar_outputs`` and
  ``capture_dynamic_output_shape_ops`` turned on globally, what a user who
  reads Dynamo's hint tries;
* ``graphmend``: ``graphmend.compile`` (mending, and [Capture] scoped to
  its own calls).

Each: graphs and breaks of the first call (as ``torch._dynamo.explain``
counts them), the remaining break sites by category, the first call's
output (and with ``--train`` every parameter's gradient of ``sum`` of the
floating outputs, gradients enabled, eval mode: no dropout) against
eager bit for bit, recompiles on a second call,
and any error.  Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ARMS = ("torch.compile", "+switches", "graphmend")
DEFAULT_ROWS = ("longformer", "grounding_dino", "clap")


def _floating_sum(output):
    import torch
    import torch.utils._pytree as pytree

    leaves = [leaf for leaf in pytree.tree_leaves(output)
              if isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and leaf.requires_grad]
    return sum(leaf.sum() for leaf in leaves)


def _one(row_name: str, arm: str, backend: str, train: bool) -> dict:
    import torch

    import graphmend
    from benchmarks import corpus
    from graphmend.compat import capture
    from graphmend.compare import first_difference
    from graphmend.diagnosis import BreakRecorder

    row = corpus.ROWS[row_name]
    args, kwargs = row.inputs()

    def run(model, fn):
        if train:
            # Gradients enabled, backward through the output; eval mode, so
            # dropout draws nothing (HF calls F.dropout with training=self.training)
            # and CLAP's BatchNorm takes its one-sample batch.
            out = fn(*args, **kwargs)
            _floating_sum(out).backward()
            grads = {n: p.grad for n, p in model.named_parameters()}
            return out, grads
        with torch.no_grad():
            return fn(*args, **kwargs), {}

    eager_model = row.model()
    expected = run(eager_model, eager_model)

    model = row.model()
    if arm == "torch.compile":
        compiled = torch.compile(model, backend=backend)
    elif arm == "+switches":
        for name in capture.SWITCHES:
            setattr(torch._dynamo.config, name, True)
        compiled = torch.compile(model, backend=backend)
    else:
        compiled = graphmend.compile(model, backend=backend)
    result = {"row": row_name, "arm": arm, "error": None}
    from torch._dynamo.utils import counters

    failed_before = counters["frames"]["total"] - counters["frames"]["ok"] - capture.retried_frames
    try:
        with BreakRecorder() as recorder:
            recorder.checkpoint(0)
            actual = run(model, compiled)
            recorder.checkpoint(1)
            if train:
                model.zero_grad()
            run(model, compiled)
        report = recorder.report(ask_rules=False)
        categories: dict[str, int] = {}
        for b in report.breaks:
            if b.filename.endswith("graphmend/api.py"):
                continue
            categories[b.category] = categories.get(b.category, 0) + b.count
        result.update(
            graphs=report.graph_count,
            breaks=report.break_count,
            categories=categories,
            sites=[f"{b.category} {b.location} {b.statement[:60]}" for b in report.breaks],
            recompiles=len([r for r in report.recompiles if r.call == 1]),
            difference=first_difference(expected, actual),
            # frames Dynamo gave up on and ran eagerly (no graph, no break recorded)
            eager_frames=counters["frames"]["total"] - counters["frames"]["ok"] - capture.retried_frames
            - failed_before,
        )
    except Exception as error:  # noqa: BLE001 -- reported in the table
        result["error"] = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:200] if str(error).strip() else ''}"
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=list(DEFAULT_ROWS))
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--train", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("ROW", "ARM"), help=argparse.SUPPRESS)
    parser.add_argument("--json", help="write the results here too")
    options = parser.parse_args(argv)
    if options.one:
        print(json.dumps(_one(*options.one, options.backend, options.train)))
        return 0
    results = []
    for row in options.rows:
        for arm in ARMS:
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, GRAPHMEND_CACHE_DIR=cache)
                command = [sys.executable, "-m", "benchmarks.capture_arm", "--one", row, arm, "--backend", options.backend]
                command += ["--train"] if options.train else []
                done = subprocess.run(command, capture_output=True, text=True, env=env)
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode or not lines:
                results.append({"row": row, "arm": arm, "error": f"exit {done.returncode}: {done.stderr[-300:]}"})
            else:
                results.append(json.loads(lines[-1]))
            print(f"{row} / {arm}: done", file=sys.stderr)
    mode = "training" if options.train else "inference"
    print(f"\n{mode}, backend={options.backend}\n")
    print("| row | arm | graphs | breaks | remaining (by category) | frames run eagerly | recompiles (2nd call) | vs eager |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        if r.get("error"):
            print(f"| {r['row']} | {r['arm']} | - | - | - | - | - | error: {r['error']} |")
            continue
        cats = ", ".join(f"{k} {v}" for k, v in sorted(r["categories"].items())) or "-"
        same = "bit-identical" if r["difference"] is None else f"differs: {r['difference']}"
        print(f"| {r['row']} | {r['arm']} | {r['graphs']} | {r['breaks']} | {cats} | {r['eager_frames']} | {r['recompiles']} | {same} |")
    if options.json:
        with open(options.json, "w") as out:
            json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
