"""The detection development corpus: torchvision's detectors, whose
post-processing is data-dependent code through and through (score
thresholds as masks, ``nonzero``, top-k of a selection, per-class ``nms``
loops, box decoding on selected anchors).

Rows (torchvision 0.28 and 0.29; random weights, ``weights=None,
weights_backbone=None``, nothing downloaded): Faster R-CNN R50-FPN,
RetinaNet R50-FPN and SSD300-VGG16, with small images (``min_size=224``)
and score thresholds near 0, so that NMS has work.  Eval takes two images
of different sizes; training adds one target per image (boxes and labels)
and returns the loss dict.

torchvision is not a dependency of graphmend.  The registry's wheel ships a
C++ extension that does not load beside the CPU build of torch 2.13
(``operator torchvision::nms does not exist``); its Python code imports
once ``torchvision::nms`` and ``::qnms`` are defined
(:func:`install_torchvision_ops`: a CPU and CUDA kernel in Python, marked
``torch.compiler.disable`` so that Dynamo never traces into it where it
runs eagerly) and ``torchvision.ops.boxes._assert_has_ops`` is a no-op;
``roi_align`` then takes its own Python path.  Where torchvision's own
extension loads (torch 2.14.1 with torchvision 0.29.1), nothing is
replaced.

torchvision stays out of the project's environments (where it is installed,
transformers imports it and fails before :func:`install_torchvision_ops`
runs), so this corpus runs in a venv of its own::

    python -m venv .venv-detection
    .venv-detection/bin/pip install -c constraints.txt -e '.[dev]'
    .venv-detection/bin/pip install --no-deps torchvision==0.28.0
    .venv-detection/bin/python -m benchmarks.detection

``python -m benchmarks.detection`` counts, per row, mode and arm
(``torch.compile``, ``graphmend.compile`` with default options), each in a
fresh process with empty graphmend and inductor caches and Dynamo's eager
backend (``--backend inductor``: inductor) behind
:class:`graphmend.diagnosis.GraphCounter`: graphs compiled, graphs
compiled that never ran, graph runs per call at steady state, whether the
call raised, whether the output (and in training every gradient) equals
eager's and the other arm's bit for bit, and the first call's seconds (with
the eager backend: what graphmend itself adds).  Timings under inductor
come from the fresh-process harness, ``python -m benchmarks --cold --rows
ssd300 ...`` (:mod:`benchmarks.timing` finds these rows too).

    python -m benchmarks.detection [--rows ROW...] [--modes eval train] [--backend eager|inductor] [--out DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import child_pythonpath, ops_share, percent, steady_calls

SEED = 0
#: The Python operators this process defined (a Library unregisters its operators when collected).
_LIBRARIES: list[Any] = []


def install_torchvision_ops() -> None:
    """Make torchvision importable: where its C++ extension does not load,
    define the two operators its Python code needs (``nms``, ``qnms``)
    with a Python CPU kernel, and skip its check for the extension."""
    import importlib.util

    import torch

    spec = importlib.util.find_spec("torchvision")
    if spec is None:
        raise ImportError("No module named 'torchvision'")
    if _LIBRARIES or _extension_loads(Path(spec.origin).parent):
        import torchvision  # noqa: F401

        return
    library = torch.library.Library("torchvision", "DEF")
    library.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    library.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    # A kernel, not user code: where it runs eagerly inside a compiled
    # call, Dynamo must not compile its frame.
    kernel = torch.compiler.disable(_nms)
    for device in ("CPU", "CUDA"):
        library.impl("nms", kernel, device)
        library.impl("qnms", kernel, device)
    _LIBRARIES.append(library)
    import torchvision.ops.boxes

    torchvision.ops.boxes._assert_has_ops = lambda: None


def _extension_loads(folder: Path) -> bool:
    import torch

    for library in folder.glob("_C*.so"):
        try:
            torch.ops.load_library(str(library))
        except (OSError, RuntimeError):
            return False
        return True
    return False


def _nms(dets: Any, scores: Any, iou_threshold: float) -> Any:
    """torchvision's ``nms``: greedy, in descending score order, keeping
    a box unless a kept one overlaps it by more than the threshold."""
    import torch

    order = scores.argsort(descending=True, stable=True)
    x1, y1, x2, y2 = dets.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    suppressed = torch.zeros(dets.shape[0], dtype=torch.bool, device=dets.device)
    keep = []
    for index in order.tolist():
        if suppressed[index]:
            continue
        keep.append(index)
        width = (torch.minimum(x2[index], x2) - torch.maximum(x1[index], x1)).clamp(min=0)
        height = (torch.minimum(y2[index], y2) - torch.maximum(y1[index], y1)).clamp(min=0)
        inter = width * height
        suppressed |= inter / (areas[index] + areas - inter) > iou_threshold
    return torch.tensor(keep, dtype=torch.long, device=dets.device)


@dataclass(frozen=True)
class Row:
    """One detector: how to build it and call it."""

    name: str
    title: str
    builder: str  # a function of torchvision.models.detection
    options: dict[str, Any] = field(default_factory=dict)

    def model(self) -> Any:
        """A fresh model in eval mode, its weights fixed by the seed."""
        import torch

        install_torchvision_ops()
        from torchvision.models import detection

        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(SEED)
            model = getattr(detection, self.builder)(weights=None, weights_backbone=None, **self.options)
        return model.eval()

    def inputs(self, variant: str = "default") -> tuple[tuple, dict]:
        """Two images of different sizes, the same whatever was built first."""
        import torch

        generator = torch.Generator().manual_seed(SEED + 1)
        images = [torch.rand(3, 200, 240, generator=generator), torch.rand(3, 224, 180, generator=generator)]
        return (images,), {}

    def train_inputs(self) -> tuple[tuple, dict]:
        """The images and one target per image (boxes inside it, a label)."""
        import torch

        (images,), _ = self.inputs()
        targets = [{"boxes": torch.tensor([[10.0, 20.0, 120.0, 150.0]]), "labels": torch.tensor([3])},
                   {"boxes": torch.tensor([[30.0, 15.0, 90.0, 200.0], [5.0, 5.0, 60.0, 70.0]]),
                    "labels": torch.tensor([1, 7])}]
        return (images, targets), {}

    def build(self) -> tuple[Any, tuple, dict]:
        args, kwargs = self.inputs()
        return self.model(), args, kwargs


ROWS: dict[str, Row] = {row.name: row for row in (
    Row("fasterrcnn", "Faster R-CNN R50-FPN", "fasterrcnn_resnet50_fpn",
        {"min_size": 224, "max_size": 224, "box_score_thresh": 0.001}),
    Row("retinanet", "RetinaNet R50-FPN", "retinanet_resnet50_fpn",
        {"min_size": 224, "max_size": 224, "score_thresh": 0.001}),
    Row("ssd300", "SSD300-VGG16", "ssd300_vgg16", {"score_thresh": 0.001}),
)}

MODES = ("eval", "train")
ARMS = ("torch", "graphmend")


def available() -> str | None:
    """Why the corpus cannot run here (torchvision missing), or None."""
    try:
        install_torchvision_ops()
    except ImportError as error:
        return f"torchvision is not installed ({error})"
    return None


# -- the worker: one row, one mode, one arm, one fresh process ------------------------------------


def _call(model: Any, mode: str, args: tuple, kwargs: dict) -> Any:
    """One call in ``mode``: eval under ``torch.no_grad()``; training runs
    backward of the summed losses and returns (losses, gradients)."""
    import torch

    if mode == "eval":
        with torch.no_grad():
            return model(*args, **kwargs)
    torch.manual_seed(SEED + 2)  # the samplers draw proposals at random
    losses = model(*args, **kwargs)
    sum(losses.values()).backward()
    target = getattr(model, "_orig_mod", model)
    gradients = {name: p.grad.clone() for name, p in target.named_parameters() if p.grad is not None}
    target.zero_grad(set_to_none=True)
    return {name: loss.detach() for name, loss in losses.items()}, gradients


def worker(row_name: str, mode: str, arm: str, output: str, backend: str = "eager",
           calls: int = 3) -> dict[str, Any]:
    """The first call of the row compiled by ``arm`` on ``backend`` behind a
    counter, then ``calls`` more (more until a call is steady,
    :func:`benchmarks.steady_calls`): the last one's graph runs are counted."""
    import torch

    import graphmend
    from graphmend.compare import first_difference
    from graphmend.diagnosis import GraphCounter

    row = ROWS[row_name]
    model = row.model()
    args, kwargs = row.train_inputs() if mode == "train" else row.inputs()
    if mode == "train":
        model.train()
    reference = copy.deepcopy(model)
    expected = _call(reference, mode, args, kwargs)
    counter = GraphCounter(backend)
    compile_ = graphmend.compile if arm == "graphmend" else torch.compile
    compiled = compile_(model, backend=counter)
    result: dict[str, Any] = {"row": row_name, "mode": mode, "arm": arm, "backend": backend}
    try:
        start = time.perf_counter()
        first = _call(compiled, mode, args, kwargs)
        result["first_s"] = time.perf_counter() - start
        runs = [counter.runs_of(lambda: _call(compiled, mode, args, kwargs)) for _ in steady_calls(compiled, calls, counter)]
        result["runs_per_call"] = runs[-1]
        profile = counter.profile(lambda: _call(compiled, mode, args, kwargs))
        result.update(ops=profile.ops, ops_in_graphs=profile.ops_in_graphs)
    except Exception as error:  # noqa: BLE001 -- a raise is a finding, reported as one
        result["raised"] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        return result
    result.update(graphs=counter.graphs, never_run=counter.never_run,
                  same_as_eager=first_difference(expected, first) is None)
    torch.save(first, output)
    return result


# -- the parent --------------------------------------------------------------------------------


def _in_fresh_process(row: str, mode: str, arm: str, backend: str, scratch: Path, timeout: float) -> dict[str, Any]:
    output = scratch / f"{row}-{mode}-{arm}.pt"
    measured = {"row": row, "mode": mode, "arm": arm, "backend": backend}
    with tempfile.TemporaryDirectory(dir=scratch) as cache, tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        # Both caches empty: the first call of a first process.
        env = dict(os.environ, GRAPHMEND_CACHE_DIR=cache, TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"),
                   PYTHONWARNINGS="ignore", PYTHONPATH=child_pythonpath())
        command = [sys.executable, "-m", "benchmarks.detection", "--worker", row, mode, arm, backend, str(output),
                   out.name]
        try:
            proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {**measured, "error": f"timed out after {timeout} s"}
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            return {**measured, "error": tail[0]}
        result = json.loads(Path(out.name).read_text())
    result["output"] = str(output) if output.exists() else None
    return result


def run(rows: Sequence[str], modes: Sequence[str], *, backend: str = "eager", timeout: float = 1800,
        progress: Callable[[str], None] = lambda _: None) -> list[dict[str, Any]]:
    """Every row, mode and arm in a fresh process; then each graphmend
    output compared bit for bit with torch.compile's."""
    import torch

    from graphmend.compare import first_difference

    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for row in rows:
            for mode in modes:
                pair = {}
                for arm in ARMS:
                    progress(f"{row} {mode} {arm}")
                    pair[arm] = _in_fresh_process(row, mode, arm, backend, Path(scratch), timeout)
                ours, theirs = pair["graphmend"], pair["torch"]
                if ours.get("output") and theirs.get("output"):
                    ours["same_as_torch"] = first_difference(torch.load(theirs["output"], weights_only=False),
                                                             torch.load(ours["output"], weights_only=False)) is None
                results += [theirs, ours]
    for result in results:
        result.pop("output", None)
    return results


def markdown(results: Sequence[dict[str, Any]]) -> str:
    """Per row and mode: graph runs per call, graphs compiled and the share of
    a steady call's operators that ran in graphs, torch.compile ->
    graphmend.compile, graphs that never ran, the first call (on the
    results' backend), raises and output equality."""
    backend = results[0].get("backend", "eager") if results else "eager"
    lines = [f"| row | mode | graph runs per call | graphs compiled | operators in graphs | never run "
             f"| first call, s ({backend} backend) | raised | same as torch.compile "
             "| same as eager (torch.compile, graphmend) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    by_key = {(r["row"], r["mode"], r["arm"]): r for r in results}
    for row, mode in dict.fromkeys((r["row"], r["mode"]) for r in results):
        theirs, ours = by_key[(row, mode, "torch")], by_key[(row, mode, "graphmend")]

        def pair(key: str, spec: str = "") -> str:
            values = [r.get(key) for r in (theirs, ours)]
            return " → ".join("-" if v is None else format(v, spec) for v in values)

        raised = [r.get("raised") or r.get("error") for r in (theirs, ours)]
        shares = " → ".join(percent(ops_share(r), missing="-") for r in (theirs, ours))
        lines.append(
            f"| {ROWS[row].title} | {mode} | {pair('runs_per_call')} | {pair('graphs')} | {shares} | {pair('never_run')} "
            f"| {pair('first_s', '.1f')} | {' / '.join(r or 'no' for r in raised)} "
            f"| {ours.get('same_as_torch', '-')} | {theirs.get('same_as_eager', '-')}, {ours.get('same_as_eager', '-')} |")
    return "\n".join(lines) + "\n"


CSV_COLUMNS = ("row", "mode", "runs_per_call_torch_compile", "runs_per_call_graphmend", "graphs_compiled_torch_compile",
               "graphs_compiled_graphmend", "ops_in_graphs_torch_compile", "ops_torch_compile", "ops_in_graphs_graphmend",
               "ops_graphmend", "never_run_torch_compile", "never_run_graphmend",
               "first_call_s_torch_compile", "first_call_s_graphmend", "raised_torch_compile", "raised_graphmend",
               "same_as_torch_compile", "same_as_eager_torch_compile", "same_as_eager_graphmend")


def write_csv(results: Sequence[dict[str, Any]], path: Path) -> None:
    """One line a row and mode, torch.compile's figures beside graphmend.compile's."""
    import csv

    by_key = {(r["row"], r["mode"], r["arm"]): r for r in results}
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for row, mode in dict.fromkeys((r["row"], r["mode"]) for r in results):
            theirs, ours = by_key[(row, mode, "torch")], by_key[(row, mode, "graphmend")]
            pair = lambda key: [theirs.get(key, ""), ours.get(key, "")]  # noqa: E731
            first = [f"{r['first_s']:.1f}" if "first_s" in r else "" for r in (theirs, ours)]
            raised = [r.get("raised") or r.get("error") or "" for r in (theirs, ours)]
            ops = [theirs.get("ops_in_graphs", ""), theirs.get("ops", ""), ours.get("ops_in_graphs", ""), ours.get("ops", "")]
            writer.writerow([row, mode, *pair("runs_per_call"), *pair("graphs"), *ops, *pair("never_run"), *first, *raised,
                             ours.get("same_as_torch", ""), *pair("same_as_eager")])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.detection", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", choices=sorted(ROWS), default=list(ROWS))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--out", default="bench-results/detection")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--backend", default="eager", choices=["eager", "inductor"],
                        help="the compiler behind both arms' counters (default: %(default)s)")
    parser.add_argument("--worker", nargs=6, metavar=("ROW", "MODE", "ARM", "BACKEND", "OUTPUT", "RESULT"),
                        help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        row, mode, arm, backend, output, result = options.worker
        Path(result).write_text(json.dumps(worker(row, mode, arm, output, backend)))
        return 0
    why = available()
    if why is not None:
        print(f"benchmarks.detection: {why}", file=sys.stderr)
        return 2
    results = run(options.rows, options.modes, backend=options.backend, timeout=options.timeout,
                  progress=lambda text: print(text, file=sys.stderr, flush=True))
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "detection.json").write_text(json.dumps(results, indent=1))
    (out / "detection.md").write_text(markdown(results))
    write_csv(results, out / "detection.csv")
    print(markdown(results))
    return 1 if any(r.get("raised") or r.get("error") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
