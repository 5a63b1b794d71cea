"""The DS / SCALAR forms of tests/compat/test_capture.py under a real backend.

    .venv/bin/python -m benchmarks.capture_forms [--backend inductor]

Per form: graphs of ``torch.compile`` (Dynamo's defaults) and of
``graphmend.compile`` ([Capture]), and whether graphmend's output equals
eager's and ``torch.compile``'s of the original bit for bit, on two inputs
with different data-dependent sizes; recompiles on the second input.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import textwrap
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import graphmend  # noqa: E402
from graphmend import compat  # noqa: E402
from graphmend.compare import first_difference  # noqa: E402
from harness import GraphCounter, load_module  # noqa: E402
from test_capture import CAPTURED, FORMS, INPUTS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", default="inductor")
    options = parser.parse_args(argv)
    forms = load_module(textwrap.dedent(FORMS), Path(tempfile.mkdtemp()), "forms")
    print(f"backend={options.backend}, torch {torch.__version__}\n")
    print("| form | torch.compile graphs | graphmend graphs | recompiles (2nd input) | vs eager | vs torch.compile |")
    print("|---|---|---|---|---|---|")
    for name in CAPTURED:
        function = getattr(forms, name)
        torch._dynamo.reset()
        counter = GraphCounter()
        plain = torch.compile(function, backend=counter)
        plain(INPUTS[0].clone())
        plain_graphs = counter.graphs
        torch._dynamo.reset()
        reference = torch.compile(function, backend=options.backend)
        expected = [reference(x.clone()) for x in INPUTS]
        torch._dynamo.reset()
        graphs = compat.graphs_compiled()
        ours = graphmend.compile(function, backend=options.backend)
        actual = [ours(INPUTS[0].clone())]
        failures = sum(len(v) for v in compat.guard_failures().values())
        actual.append(ours(INPUTS[1].clone()))
        recompiles = sum(len(v) for v in compat.guard_failures().values()) - failures
        eager = [function(x.clone()) for x in INPUTS]
        vs_eager = first_difference(eager, actual) or "bit-identical"
        vs_plain = first_difference(expected, actual) or "bit-identical"
        print(f"| {name} | {plain_graphs} | {compat.graphs_compiled() - graphs} | {recompiles} | {vs_eager} | {vs_plain} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
