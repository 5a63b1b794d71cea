"""The results of a diagnosis (:class:`Report`, :class:`Break`, :class:`Recompile`,
:class:`Fallback`) and their rendering as rich tables, text, JSON and an HTML page.

A report is of one view: what ``torch.compile`` runs, or what
``graphmend.compile`` runs (the mended code under [Capture]).  A report of
the first view may carry the second as ``mended``; its table then shows
both, one row per site.
"""

from __future__ import annotations

import json
import os
import sysconfig
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from graphmend.analysis.source import first_line, parse_file

# rich (0.1 s to import) only where a report is rendered: graphmend.compile's
# first call builds reports it never shows.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

#: The categories a break falls in (SPEC section 2).
CATEGORIES = ("DC", "IO", "GUARD", "SCALAR", "DS", "OTHER")
#: The two views a report can be of.
TORCH, MENDED = "torch.compile", "graphmend.compile"
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
    #: In a graphmend.compile report's ``held``: what holds this break of
    #: torch.compile's in the graph there (a rule, or ``"capture"``).
    held_by: str | None = None
    #: The code graphmend.compile runs for this statement, where a rule
    #: rewrote it (None where it runs the statement as written).
    mended_code: str | None = None
    #: Where the break is inside a loop: the function whose whole frame
    #: Dynamo then runs eagerly (the hint says so), else None.
    run_eagerly: str | None = None

    @property
    def location(self) -> str:
        return f"{short_path(self.filename)}:{self.lineno}"

    @property
    def key(self) -> tuple[str, int]:
        return self.filename, self.lineno


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
class Fallback:
    """[Capture] gave up on a frame: graphmend.compile compiles ``function``
    without it, and its data-dependent sites break as under torch.compile."""

    function: str
    filename: str
    lineno: int  # the function's first line
    why: str  # the guard or the assumption that made it give up, at file:line
    advice: str | None = None  # what the user can change there (:mod:`graphmend.diagnosis.advice`)

    @property
    def location(self) -> str:
        return f"{short_path(self.filename)}:{self.lineno}"


def fallback_holding(site: Break, fallbacks: list[Fallback]) -> Fallback | None:
    """The fallback whose frame holds ``site``: its function's own, or the
    function resuming it that starts latest before the site (Dynamo starts
    a resume function at the line it resumes after); None where none does.
    A comprehension's or a lambda's frame (``<genexpr>``) holds only its own
    expression, never a later line of the function it sits in."""
    parsed = parse_file(site.filename)
    around = max(parsed.defs_around(site.lineno), key=first_line, default=None) if parsed is not None else None
    if around is None:
        return None
    frames = [f for f in fallbacks
              if f.filename == site.filename and not f.function.startswith("<")
              and first_line(around) <= f.lineno < site.lineno <= around.end_lineno]
    return max(frames, key=lambda f: f.lineno, default=None)


@dataclass
class Report:
    """``graph_count`` is the number of graphs of the first call (for the CLI:
    of the whole run) and ``break_count`` follows ``torch._dynamo.explain``:
    ``graph_count - 1``; for the CLI, which may watch many compiled
    callables, it is the number of break events.  ``view`` says whose
    graphs these are: ``"torch.compile"`` or ``"graphmend.compile"``."""

    graph_count: int
    break_count: int
    breaks: list[Break] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    view: str = TORCH
    #: Capture statistics, as the TorchDynamo team's progress reports define
    #: them, from one warm call (None where not measured, e.g. by the CLI).
    graph_calls: int | None = None
    captured_ops: int | None = None
    total_ops: int | None = None
    pct_time: float | None = None
    #: Rules off on this torch (a compat probe or the self-test failed):
    #: rule -> why.  A break such a rule would fix is reported not fixable.
    disabled_rules: dict[str, str] = field(default_factory=dict)
    #: graphmend.compile view: the breaks torch.compile meets that this
    #: view holds in the graph (each with ``held_by``), the frames [Capture]
    #: gave up on, and where each graph compiled and never run came from
    #: (None where not counted: the CLI does not count graph runs).
    held: list[Break] = field(default_factory=list)
    fallbacks: list[Fallback] = field(default_factory=list)
    thrown_away: list[str] | None = None
    #: torch.compile view: what graphmend.compile runs, where diagnosed too.
    mended: Report | None = None

    @property
    def break_events(self) -> int:
        """The breaks the rows count (``n`` summed): what the summary says."""
        return sum(b.count for b in self.breaks)

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
            "view": self.view,
            "held": [asdict(b) for b in self.held],
            "fallbacks": [asdict(f) for f in self.fallbacks],
            "thrown_away": self.thrown_away,
            "mended": self.mended.to_dict() if self.mended is not None else None,
        }

    def summary(self) -> str:
        """The head line: what the rows below it count, never more or less."""
        parts = [f"{self.graph_count} graph(s) compiled"]
        if self.graph_calls is not None:
            parts.append(f"{self.graph_calls} graph run(s) per call")
        parts.append(f"{self.break_events} break(s) at {len(self.breaks)} site(s)")
        if self.view == MENDED:
            parts += [f"{len(self.held)} site(s) held", f"{len(self.fallbacks)} fallback(s)"]
            if self.thrown_away is not None:
                parts.append(f"{len(self.thrown_away)} graph(s) thrown away")
        if self.pct_ops is not None:
            parts.append(f"ops captured {self.captured_ops}/{self.total_ops} = {self.pct_ops:.1%}")
        if self.pct_time is not None:
            parts.append(f"time in graphs {self.pct_time:.1%}")
        parts.append(f"{len(self.recompiles)} recompile(s)")
        return f"{self.view}: " + ", ".join(parts)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def rows(self) -> list[Row]:
        """One row per site, in order of first occurrence: the sites of this
        view and, where there is a graphmend.compile side (``mended``, or
        this report itself), what that side does at each."""
        mended = self if self.view == MENDED else self.mended
        rows = {b.key: Row(b) for b in self.breaks if self.view == TORCH}
        if mended is not None:
            for b in mended.held:
                rows.setdefault(b.key, Row(b)).held = b
            for b in mended.breaks:
                rows.setdefault(b.key, Row(None)).after = b
        return list(rows.values())

    def table(self, title: str | None = None) -> Table:
        from rich.markup import escape
        from rich.table import Table

        sides = [self] if self.mended is None else [self, self.mended]
        title = title or "\n".join(side.summary() for side in sides)
        # At least as wide as its title (rich caps it at the console's width):
        # a report with few or no rows would otherwise wrap its summary line.
        table = Table(title=title, show_lines=True, min_width=max(map(len, title.splitlines())))
        if self.mended is not None:
            counts, cells = (TORCH, MENDED), lambda row: (row.torch_cell(), row.mended_cell())
        elif self.view == MENDED:
            counts, cells = ("n", MENDED), lambda row: (str(row.after.count if row.after else 0), row.mended_cell())
        else:
            counts, cells = ("n", "fix"), lambda row: (str(row.before.count), _fix(row.before))
        for column in ("cat", "site", "statement", *counts, "reason / hint"):
            table.add_column(column, overflow="fold")
        for row in self.rows():
            table.add_row(
                row.site.category,
                escape(f"{row.site.location}\n{row.site.function}()"),
                escape(row.site.statement),
                *cells(row),
                escape(row.detail()),
            )
        return table

    def recompile_table(self) -> Table:
        from rich.markup import escape
        from rich.table import Table

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

    def notes(self) -> list[str]:
        """What the table does not show: rules off, [Capture]'s fallbacks,
        graphs thrown away (of this report and its graphmend.compile side)."""
        lines = [f"rule [{rule}] is disabled: {why}" for rule, why in sorted(self.disabled_rules.items())]
        for side in (self, self.mended):
            if side is None or side.view != MENDED:
                continue
            for f in side.fallbacks:
                lines.append(f"fallback: {f.function}() (its frame from {f.location}) is compiled without [capture]: "
                             f"{f.why}")
                if f.advice is not None:
                    lines.append(f"  what you can do: {f.advice}")
            lines += [f"thrown away: a graph compiled and never run, from {where}" for where in side.thrown_away or ()]
        return lines

    def show(self, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.markup import escape

        console = console or Console()
        console.print(self.table())
        for line in self.notes():
            console.print(escape(line), soft_wrap=True)
        if self.recompiles:
            console.print(self.recompile_table())

    def to_html(self, title: str = "graphmend diagnosis") -> str:
        """One self-contained HTML page: the summary of each view, the
        table, each site's source beside the code graphmend.compile runs
        there, the fallbacks (:mod:`graphmend.diagnosis.page`)."""
        from graphmend.diagnosis import page

        return page.render(self, title)

    def __str__(self) -> str:
        from rich.console import Console

        console = Console(width=120, record=True, file=open(os.devnull, "w"))
        self.show(console)
        return console.export_text()


@dataclass
class Row:
    """One site of a report's table: its break under torch.compile
    (``before``), under graphmend.compile (``after``), or torch.compile's
    break that graphmend.compile holds in the graph (``held``)."""

    before: Break | None
    after: Break | None = None
    held: Break | None = None

    @property
    def site(self) -> Break:
        """The break that names the site: graphmend.compile's where it breaks."""
        return self.after or self.held or self.before

    @property
    def mended_code(self) -> str | None:
        return self.site.mended_code

    def torch_cell(self) -> str:
        return "-" if self.before is None else f"{self.before.count} ({_fix(self.before)})"

    def mended_cell(self) -> str:
        if self.held is not None:
            return f"[green]held: {self.held.held_by}[/]"
        return "-" if self.after is None else f"[red]{self.after.count} break(s)[/]"

    def detail(self) -> str:
        """The reason it breaks (Dynamo's, or graphmend's), and the hint where
        no rule fixes it; for a held site, the reason torch.compile breaks."""
        b = self.site
        reason = f"[{b.gb_id}] {b.reason}" if b.gb_id else b.reason
        return reason if b.fixable or not b.hint or self.held is not None else f"{reason}\nhint: {b.hint}"


def _fix(b: Break) -> str:
    return f"[green]{b.rule}[/]" if b.fixable else "[red]no[/]"


#: The standard library's folder: its modules are named as they are imported.
_STDLIB = sysconfig.get_paths()["stdlib"] + os.sep


def short_path(filename: str) -> str:
    """``.../site-packages/transformers/x.py`` -> ``transformers/x.py``
    (and ``.../lib/python3.11/logging/__init__.py`` -> ``logging/__init__.py``)."""
    for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
        if marker in filename:
            return filename.split(marker, 1)[1]
    if filename.startswith(_STDLIB):
        return filename[len(_STDLIB):]
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative
