"""One Dynamo trace -> a Report of every graph break, each in one category
(DC, IO, GUARD, SCALAR, DS, OTHER: see :func:`break_category`).

Dynamo appends a ``GraphCompileReason`` to
``torch._dynamo.output_graph.graph_break_reasons`` for every graph break,
whatever the backend, with the user stack of the break.  A
:class:`BreakRecorder` reads the entries added while it is open; that serves
both :func:`diagnose` (a private counting backend, so the user's backend sees
nothing) and the CLI (which watches whatever a script compiles).

Break counts follow ``torch._dynamo.explain``: ``graph_count - 1``.  A break
inside a function that Dynamo inlined splits its callers' graphs too, so one
break site can cost more than one graph; the rows count break *events* per
site.

This package diagnoses what ``torch.compile`` runs; :func:`graphmend.diagnose`
(:mod:`graphmend.api`, which can make a ``graphmend.compile``) adds what
``graphmend.compile`` runs, traced with :func:`.tracing.trace_calls`.

By concern: :mod:`.counting` (graphs compiled and graph runs, counted
at the backend), :mod:`.report` (the results and their rich tables),
:mod:`.categories` (a break's category and the rule expected to fix it),
:mod:`.dry_run` (asking the rules whether they do), :mod:`.recording`
(reading what Dynamo records), :mod:`.capture_verdicts` ([Capture]'s
verdict on each DS / SCALAR site), :mod:`.tracing` (the entry points).
"""

from __future__ import annotations

from graphmend.diagnosis.categories import break_category
from graphmend.diagnosis.counting import GraphCounter, Profile
from graphmend.diagnosis.recording import BreakRecorder, fixable_site, original_function_name
from graphmend.diagnosis.report import CATEGORIES, MENDED, RULE_FOR, TORCH, Break, Fallback, Recompile, Report, short_path
from graphmend.diagnosis.tracing import Call, call, diagnose, diagnose_calls

__all__ = ["CATEGORIES", "MENDED", "RULE_FOR", "TORCH", "Break", "BreakRecorder", "Call", "Fallback", "GraphCounter",
           "Profile", "Recompile", "Report", "break_category", "call", "diagnose", "diagnose_calls", "fixable_site",
           "original_function_name", "short_path"]
