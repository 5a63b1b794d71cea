"""The results of a diagnosis (:class:`Report`, :class:`Break`, :class:`Recompile`)
and their rendering as rich tables, text and JSON.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

#: The categories a break falls in (SPEC section 2).
CATEGORIES = ("DC", "IO", "GUARD", "SCALAR", "DS", "OTHER")
#: The rule that fixes each category, when the site meets its preconditions.
RULE_FOR = {"DC": "where", "IO": "defer", "GUARD": "trap", "SCALAR": "where"}


@dataclass
class Break:
    """One break site; ``count`` is how many times the trace broke there."""

    category: str
    filename: str
    lineno: int
    function: str
    statement: str
    reason: str
    fixable: bool
    rule: str | None
    hint: str | None
    count: int = 1
    #: graphmend rewrote this site and Dynamo still breaks there (a bug or
    #: a run-time fallback: the reason says which).
    rewritten: bool = False
    #: Dynamo's id for this kind of break (``"GB0170"``) in the graph-break
    #: registry of the installed torch, and that registry's explanation and
    #: hints (None / empty where the registry does not know the break).
    gb_id: str | None = None
    gb_type: str | None = None
    explanation: str | None = None
    hints: list[str] = field(default_factory=list)
    #: DS / SCALAR: whether graphmend.compile's [Capture] holds the site in
    #: the graph ("DS: captured") or why not (:mod:`graphmend.diagnosis.capture_verdicts`).
    capture: str | None = None

    @property
    def location(self) -> str:
        return f"{short_path(self.filename)}:{self.lineno}"


@dataclass
class Recompile:
    """Dynamo compiled ``function`` again because a guard failed."""

    function: str
    filename: str
    lineno: int  # the function's first line
    guard: str  # the failed guard, in Dynamo's words
    source: str | None  # "file:line" of the user code that created the guard
    call: int | None  # index of the argument set that triggered it
    failures: list[str] = field(default_factory=list)  # one per cache entry


@dataclass
class Report:
    """``graph_count`` is the number of graphs of the first call (for the CLI:
    of the whole run) and ``break_count`` follows ``torch._dynamo.explain``:
    ``graph_count - 1``; for the CLI, which may watch many compiled
    callables, it is the number of break events."""

    graph_count: int
    break_count: int
    breaks: list[Break] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    #: Capture statistics, as the TorchDynamo team's progress reports define
    #: them, from one warm call (None where not measured, e.g. by the CLI).
    graph_calls: int | None = None
    captured_ops: int | None = None
    total_ops: int | None = None
    pct_time: float | None = None
    #: Rules off on this torch (a compat probe or the self-test failed):
    #: rule -> why.  A break such a rule would fix is reported not fixable.
    disabled_rules: dict[str, str] = field(default_factory=dict)

    @property
    def pct_ops(self) -> float | None:
        if self.captured_ops is None or not self.total_ops:
            return None
        return self.captured_ops / self.total_ops

    @property
    def fixable_count(self) -> int:
        return sum(b.count for b in self.breaks if b.fixable)

    def to_dict(self) -> dict[str, Any]:
        return {
            "graph_count": self.graph_count,
            "break_count": self.break_count,
            "graph_calls": self.graph_calls,
            "captured_ops": self.captured_ops,
            "total_ops": self.total_ops,
            "pct_ops": self.pct_ops,
            "pct_time": self.pct_time,
            "breaks": [asdict(b) for b in self.breaks],
            "recompiles": [asdict(r) for r in self.recompiles],
            "disabled_rules": dict(self.disabled_rules),
        }

    def summary(self) -> str:
        parts = [f"{self.graph_count} graph(s) compiled"]
        if self.graph_calls is not None:
            parts.append(f"{self.graph_calls} graph run(s) per call")
        parts.append(f"{self.break_count} break(s)")
        if self.pct_ops is not None:
            parts.append(f"ops captured {self.captured_ops}/{self.total_ops} = {self.pct_ops:.1%}")
        if self.pct_time is not None:
            parts.append(f"time in graphs {self.pct_time:.1%}")
        parts.append(f"{len(self.recompiles)} recompile(s)")
        return ", ".join(parts)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def table(self, title: str | None = None) -> Table:
        title = title or self.summary()
        # At least as wide as its title (rich caps it at the console's width):
        # a report with few or no rows would otherwise wrap its summary line.
        table = Table(title=title, show_lines=True, min_width=len(title))
        for column in ("cat", "site", "statement", "n", "fix", "reason / hint"):
            table.add_column(column, overflow="fold")
        for b in self.breaks:
            fix = f"[green]{b.rule}[/]" if b.fixable else "[red]no[/]"
            reason = f"[{b.gb_id}] {b.reason}" if b.gb_id else b.reason
            detail = reason if b.fixable or not b.hint else f"{reason}\nhint: {b.hint}"
            table.add_row(
                b.category,
                escape(f"{b.location}\n{b.function}()"),
                escape(b.statement),
                str(b.count),
                fix,
                escape(detail),
            )
        return table

    def recompile_table(self) -> Table:
        table = Table(title="recompiles", show_lines=True)
        for column in ("function", "failed guard", "guard from", "call"):
            table.add_column(column, overflow="fold")
        for r in self.recompiles:
            table.add_row(
                escape(f"{r.function}()\n{short_path(r.filename)}:{r.lineno}"),
                escape(r.guard),
                escape(r.source or "-"),
                "-" if r.call is None else str(r.call),
            )
        return table

    def show(self, console: Console | None = None) -> None:
        console = console or Console()
        console.print(self.table())
        for rule, why in sorted(self.disabled_rules.items()):
            console.print(escape(f"rule [{rule}] is disabled: {why}"), soft_wrap=True)
        if self.recompiles:
            console.print(self.recompile_table())

    def __str__(self) -> str:
        console = Console(width=120, record=True, file=open(os.devnull, "w"))
        self.show(console)
        return console.export_text()


def short_path(filename: str) -> str:
    """``.../site-packages/transformers/x.py`` -> ``transformers/x.py``."""
    for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
        if marker in filename:
            return filename.split(marker, 1)[1]
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative
