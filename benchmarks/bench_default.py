"""The product's figure: ``graphmend.compile`` with default options, in a
fresh first process, as a user meets it.

Every corpus table leads with this column; the diagnosis path (diagnose,
mend what it reports, diagnose) is a column beside it.  Each measurement
runs in a process of its own with an empty graphmend cache (no record, no
cached source), hands the model over in one *calling style* and calls the
compiled callable three times:

* ``module``: the module itself; ``forward``: its bound ``forward``;
* ``step``: a step function that calls the module, ``lambda``: a lambda
  that does;
* ``train``: a training step: forward, a loss, ``loss.backward()`` inside
  the compiled function (``backward()`` is a break of Dynamo's own).

It reports the graph runs per call at steady state and the graphs compiled
(beside ``torch.compile``'s of the original with ``--torch-arm``, each arm
in its own process), the graphs and breaks each call compiled (the first call keeps
a break that only it can show; the next call compiles what was mended in
the same process), the categories of the breaks left, whether the output
of the first call, and in training every parameter's gradient, is
bit-identical to the eager original's; where a training step's gradients
are not, they are compared with ``torch.compile`` of the original step (a
tied embedding's gradient is summed in another order by any compile).

    python -m benchmarks.bench_default --rows t5 bart --styles module step train
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks import steady_calls

# Run as ``python -m``, this module is ``__main__``; its children import it by name.
_MODULE = __spec__.name if __spec__ is not None else __name__
STYLES = ("module", "forward", "step", "lambda", "train")
#: The paper corpus rows whose breaks are logging or control flow (LC/DC).
LC_DC_ROWS = ("t5", "bart", "marian", "blenderbot", "whisper", "biogpt", "pegasus_causal", "layoutlmv3",
              "phi3_longrope")


def _first_tensor(out: Any) -> Any:
    import torch

    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (tuple, list)):
        return _first_tensor(out[0])
    return _first_tensor(next(v for v in out.values() if v is not None))


def handed_over(model: Any, style: str) -> Callable[..., Any]:
    """What a user hands to ``graphmend.compile`` in ``style``."""

    def step(*args: Any, **kwargs: Any) -> Any:
        return _first_tensor(model(*args, **kwargs))

    def train_step(*args: Any, **kwargs: Any) -> Any:
        loss = _first_tensor(model(*args, **kwargs)).float().pow(2).mean()
        loss.backward()
        return loss.detach()

    return {
        "module": model,
        "forward": getattr(model, "forward", model),
        "step": step,
        "lambda": lambda *args, **kwargs: _first_tensor(model(*args, **kwargs)),
        "train": train_step,
    }[style]


def _breaks(report: Any) -> dict[str, Any]:
    categories: dict[str, int] = {}
    for b in report.breaks:
        categories[b.category] = categories.get(b.category, 0) + b.count
    # As torch._dynamo.explain counts: graphs - 1 (backward() inside a step
    # ends a graph with no break reason that names user code).
    return {"graphs": report.graph_count, "breaks": max(report.graph_count - 1, 0), "categories": categories}


def measure(call: Callable[..., Any], args: tuple, kwargs: dict, *, training: bool, calls: int = 3,
            backend: str = "eager", compile: Callable[..., Any] | None = None) -> dict[str, Any]:
    """``graphmend.compile(call, backend=backend)`` (or ``compile``) called
    ``calls`` times (more until a call is steady, :func:`benchmarks.steady_calls`) on a :class:`~graphmend.diagnosis.GraphCounter`: what
    each call compiled, the graphs compiled in all (and how many never
    ran), the graph runs of the last call (per call, at steady state), and
    the graphs the process settles on: after those calls, Dynamo's caches
    are emptied and one more call compiles everything the mended code runs
    (the last call that compiled anything may have recompiled one frame
    and reused the rest)."""
    import torch

    import graphmend
    from graphmend.diagnosis import BreakRecorder, GraphCounter

    counter = GraphCounter(backend)
    compiled = (compile or graphmend.compile)(call, backend=counter)
    per_call, outputs, runs = [], [], []
    with torch.set_grad_enabled(training):
        for _ in steady_calls(compiled, calls, counter):
            before = counter.runs
            with BreakRecorder() as recorder:
                outputs.append(compiled(*args, **kwargs))
            per_call.append(_breaks(recorder.report(ask_rules=False)))
            runs.append(counter.runs - before)
        counts = {"graphs_compiled": counter.graphs, "never_run": counter.never_run, "runs_per_call": runs[-1]}
        torch._dynamo.reset()
        with BreakRecorder() as recorder:
            compiled(*args, **kwargs)
        settled = _breaks(recorder.report(ask_rules=False))
    return {"calls": per_call, "first": per_call[0], "settled": settled, **counts, "output": outputs[0],
            "runs": len(per_call) + 1}


def style_row(row_name: str, style: str, compile_with: str = "graphmend") -> dict[str, Any]:
    """One paper-corpus row in one calling style, in this (fresh) process."""
    import torch

    import graphmend
    from benchmarks import corpus
    from graphmend.compare import first_difference

    row = corpus.ROWS[row_name]
    model, args, kwargs = row.build()
    initial = copy.deepcopy(model)
    reference = copy.deepcopy(model)
    training = style == "train"
    with torch.set_grad_enabled(training):
        expected = handed_over(reference, style)(*args, **kwargs)
    handed = handed_over(model, style)
    result = measure(handed, args, kwargs, training=training,
                     compile=torch.compile if compile_with == "torch" else None)
    output, runs = result.pop("output"), result.pop("runs")  # the calls made, the settling one too
    result.update(row=row_name, style=style, arm=compile_with,
                  identical=first_difference(expected, output) is None)
    if training:
        # The calls (the settled one too) accumulate as many steps' gradients on each side.
        with torch.enable_grad():
            for _ in range(runs - 1):
                handed_over(reference, style)(*args, **kwargs)
        result["gradients_identical"] = _same_gradients(model, reference)
        if compile_with == "graphmend":
            # The control: where torch.compile of the original step already
            # sums a gradient in another order (a tied embedding), eager is no
            # judge of the mending.
            graphmend.unmend(handed)
            torch._dynamo.reset()
            control = torch.compile(handed_over(initial, style), backend="eager")
            with torch.enable_grad():
                for _ in range(runs):
                    control(*args, **kwargs)
            result["gradients_as_torch_compile"] = _same_gradients(model, initial)
    return result


def _same_gradients(model: Any, reference: Any) -> bool:
    import torch

    expected = dict(reference.named_parameters())
    return all(
        (p.grad is None) == (expected[n].grad is None) and (p.grad is None or torch.equal(p.grad, expected[n].grad))
        for n, p in model.named_parameters()
    )


def in_fresh_process(row_name: str, style: str, compile_with: str = "graphmend", timeout: float = 1200) -> dict:
    """:func:`style_row` in a new Python process with an empty graphmend cache."""
    with tempfile.TemporaryDirectory() as cache, tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        env = dict(os.environ, GRAPHMEND_CACHE_DIR=cache, PYTHONWARNINGS="ignore")
        command = [sys.executable, "-m", _MODULE, "--child", row_name, style, compile_with, out.name]
        try:
            proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"row": row_name, "style": style, "arm": compile_with, "error": f"timed out after {timeout} s"}
        if proc.returncode != 0:
            return {"row": row_name, "style": style, "arm": compile_with,
                    "error": (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]}
        return json.loads(open(out.name).read())


def markdown(results: Sequence[dict]) -> str:
    """The calling-style table: per row and style, graph runs per call and
    graphs compiled (torch.compile → graphmend.compile, where the torch arm
    ran), graphs on the first call and where the first process settles,
    identical outputs (and gradients)."""
    styles = [s for s in STYLES if any(r["style"] == s for r in results)]
    lines = ["| row | " + " | ".join(styles) + " |", "|---|" + "---|" * len(styles)]
    for row in dict.fromkeys(r["row"] for r in results):
        cells = []
        for style in styles:
            r = next((r for r in results if r["row"] == row and r["style"] == style and r["arm"] == "graphmend"), None)
            if r is None:
                cells.append("")
            elif "error" in r:
                cells.append(f"error: {r['error'][:60]}")
            else:
                same = r["identical"] and (r.get("gradients_identical") is not False
                                           or r.get("gradients_as_torch_compile") is True)
                theirs = next((t for t in results if t["row"] == row and t["style"] == style
                               and t["arm"] == "torch" and "error" not in t), None)
                counts = (f"runs {theirs['runs_per_call']} → {r['runs_per_call']}, graphs "
                          f"{theirs['graphs_compiled']} → {r['graphs_compiled']}; " if theirs else "")
                cells.append(f"{counts}{r['first']['graphs']} → {r['settled']['graphs']}{'' if same else ' DIFFERS'}")
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ("row", "style", "runs_per_call_torch_compile", "runs_per_call_graphmend", "graphs_compiled_torch_compile",
               "graphs_compiled_graphmend", "never_run_graphmend", "graphs_first_call", "graphs_settled", "identical",
               "gradients_identical", "gradients_as_torch_compile")


def write_csv(results: Sequence[dict], path: str) -> None:
    """One line a row and style: graph runs per call and graphs compiled,
    torch.compile's (where its arm ran) beside graphmend.compile's, then
    graphmend's graphs on the first call and settled, and equality."""
    import csv

    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for r in results:
            if r["arm"] != "graphmend" or "error" in r:
                continue
            theirs = next((t for t in results if t["row"] == r["row"] and t["style"] == r["style"]
                           and t["arm"] == "torch" and "error" not in t), {})
            writer.writerow([r["row"], r["style"], theirs.get("runs_per_call", ""), r["runs_per_call"],
                             theirs.get("graphs_compiled", ""), r["graphs_compiled"], r["never_run"],
                             r["first"]["graphs"], r["settled"]["graphs"], r["identical"],
                             r.get("gradients_identical", ""), r.get("gradients_as_torch_compile", "")])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {_MODULE}", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=list(LC_DC_ROWS))
    parser.add_argument("--styles", nargs="+", default=list(STYLES), choices=STYLES)
    parser.add_argument("--torch-arm", action="store_true",
                        help="also torch.compile of the original, each style in a fresh process: graph runs per "
                             "call and graphs compiled side by side")
    parser.add_argument("--out", default="bench-results/calling-styles.json")
    parser.add_argument("--csv", help="also write one CSV line a row and style to this path")
    parser.add_argument("--render", action="store_true", help="only rewrite the table (and --csv) from --out")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        row_name, style, compile_with, out = options.child
        with open(out, "w") as handle:
            json.dump(style_row(row_name, style, compile_with), handle)
        return 0
    if options.render:
        with open(options.out) as handle:
            results = json.load(handle)
        if options.csv:
            write_csv(results, options.csv)
        print(markdown(results))
        return 0
    results = []
    for row_name in options.rows:
        for style in options.styles:
            results.append(in_fresh_process(row_name, style))
            print(json.dumps(results[-1]), flush=True)
            if options.torch_arm:
                results.append(in_fresh_process(row_name, style, "torch"))
                print(json.dumps(results[-1]), flush=True)
    os.makedirs(os.path.dirname(options.out) or ".", exist_ok=True)
    with open(options.out, "w") as handle:
        json.dump(results, handle, indent=1)
    if options.csv:
        write_csv(results, options.csv)
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
