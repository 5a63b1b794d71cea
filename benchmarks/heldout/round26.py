"""Held-out round twenty-six: entry points of libraries that no corpus and no earlier round has.

Chosen by reading each library's source, written down in ROUND26.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, in two fresh processes, with
identical results); to be measured once by ``python -m benchmarks.bench_ecosystem
--corpus benchmarks.heldout.round26`` and not tuned on.  The rows live in three
modules, one per helper that drafted them; this one gathers them in order.
"""

from __future__ import annotations

from benchmarks.ecosystem import Row, row_lookup
from benchmarks.heldout import round26_a, round26_b, round26_c

ROWS: tuple[Row, ...] = (*round26_a.ROWS, *round26_b.ROWS, *round26_c.ROWS)
get = row_lookup(ROWS, "held-out round twenty-six")
