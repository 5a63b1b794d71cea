"""The lab beside the tool: graphmend's benchmarks, run from the repository.

Nothing here ships in the ``graphmend`` wheel: the corpora
(:mod:`benchmarks.corpus`, the paper's transformers rows;
:mod:`benchmarks.ecosystem`, ten other PyTorch libraries), the side-by-side
runner (:mod:`benchmarks.bench`, :mod:`benchmarks.bench_ecosystem`), the
fresh-process timing harness (:mod:`benchmarks.timing`), graphmend's own
speed (:mod:`benchmarks.bench_speed`), the torch-version matrix
(:mod:`benchmarks.compat_matrix`) and the demo (:mod:`benchmarks.demo`).

    make bench              # python -m benchmarks; then --cold --switches
    make bench-ecosystem    # python -m benchmarks --corpus ecosystem
    make demo               # python -m benchmarks.demo
"""

from __future__ import annotations

import os
from pathlib import Path

#: The repository root: the folder that holds ``benchmarks/`` (and ``graphmend/``).
ROOT = Path(__file__).resolve().parent.parent


def child_pythonpath() -> str:
    """``PYTHONPATH`` for a worker process spawned by module name
    (``python -m benchmarks.timing --worker``): the repository root first, so
    the worker imports this package wherever the parent was started from."""
    rest = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(ROOT), rest]) if rest else str(ROOT)
