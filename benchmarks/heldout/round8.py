"""Held-out round eight: 34 entry points of 13 libraries that no corpus and no earlier round has.

Chosen by reading each library's source, written down in ROUND8.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once by ``python -m benchmarks.bench_ecosystem
--corpus benchmarks.heldout.round8`` and not tuned on.  The rows live in four
modules, one per helper that drafted them; this one gathers them in order.
"""

from __future__ import annotations

from benchmarks.ecosystem import Row, row_lookup
from benchmarks.heldout import round8_a, round8_b, round8_c, round8_d

ROWS: tuple[Row, ...] = (*round8_a.ROWS, *round8_b.ROWS, *round8_c.ROWS, *round8_d.ROWS)
get = row_lookup(ROWS, "held-out round eight")
