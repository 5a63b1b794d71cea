"""One Dynamo trace -> a Report of every graph break (SPEC section 2).

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
"""

from __future__ import annotations

import ast
import json
import linecache
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from torch._dynamo import output_graph
from torch._dynamo.utils import counters

from graphmend.analysis.source import function_at, innermost, parse_file, statement_at

CATEGORIES = ("DC", "IO", "GUARD", "SCALAR", "DS", "OTHER")
#: The rule that fixes each category, when the site meets its preconditions.
RULE_FOR = {"DC": "where", "IO": "defer", "GUARD": "trap", "SCALAR": "where"}

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_\d+$")

_SCALAR_HINT = (
    "torch._dynamo.config.capture_scalar_outputs = True keeps the scalar in the graph"
)
_DS_HINT = (
    "torch._dynamo.config.capture_dynamic_output_shape_ops = True traces it with an "
    "unbacked size, if later code does not branch on that size"
)


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

    @property
    def location(self) -> str:
        return f"{short_path(self.filename)}:{self.lineno}"


@dataclass
class Report:
    graph_count: int
    breaks: list[Break] = field(default_factory=list)

    @property
    def break_count(self) -> int:
        return max(self.graph_count - 1, 0)

    @property
    def fixable_count(self) -> int:
        return sum(b.count for b in self.breaks if b.fixable)

    def to_dict(self) -> dict[str, Any]:
        return {
            "graph_count": self.graph_count,
            "break_count": self.break_count,
            "breaks": [asdict(b) for b in self.breaks],
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def table(self, title: str | None = None) -> Table:
        table = Table(
            title=title
            or f"{self.graph_count} graph(s), {self.break_count} break(s), "
            f"{len(self.breaks)} site(s)",
            show_lines=True,
        )
        for column in ("cat", "site", "statement", "n", "fix", "reason / hint"):
            table.add_column(column, overflow="fold")
        for b in self.breaks:
            fix = f"[green]{b.rule}[/]" if b.fixable else "[red]no[/]"
            detail = b.reason if b.fixable or not b.hint else f"{b.reason}\nhint: {b.hint}"
            table.add_row(
                b.category,
                escape(f"{b.location}\n{b.function}()"),
                escape(b.statement),
                str(b.count),
                fix,
                escape(detail),
            )
        return table

    def show(self, console: Console | None = None) -> None:
        (console or Console()).print(self.table())

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


def original_function_name(code_name: str) -> str:
    """Map Dynamo's resume functions back to the function they resume."""
    while match := _RESUME.match(code_name):
        code_name = match.group(1)
    return code_name


# -- classification ------------------------------------------------------------

_SCALAR_CALLS = {"item", "tolist", "int", "float", "bool"}


def _calls(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def _base_category(reason: str) -> str:
    if "generic_jump" in reason or "Data-dependent" in reason or "data dependent" in reason:
        return "DC"
    if "item()" in reason or "tolist()" in reason or "capture_scalar_outputs" in reason:
        return "SCALAR"
    if "Dynamic shape operator" in reason or "capture_dynamic_output_shape_ops" in reason:
        return "DS"
    if "logging.Logger" in reason or "builtin operator `print`" in reason:
        return "IO"
    return "OTHER"


_LOGGER_METHODS = {
    "debug", "info", "warning", "warn", "error", "critical", "exception", "log",
    "warning_once", "info_once", "debug_once",
}


def _is_io_call(statement: ast.stmt | None) -> bool:
    """``print(...)``, ``warn(...)``, ``warnings.warn(...)`` or ``<logger>.<method>(...)``."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    if isinstance(func, ast.Name):
        return func.id in {"print", "warn"}
    if isinstance(func, ast.Attribute):
        owner = func.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if owner_name == "warnings":
            return func.attr == "warn"
        return func.attr in _LOGGER_METHODS and "log" in owner_name.lower()
    return False


def classify(reason: str, filename: str, lineno: int) -> str:
    """SPEC section 2's category of a break, from Dynamo's reason and the source."""
    category = _base_category(reason)
    statement = statement_at(filename, lineno)
    if category == "OTHER" and _is_io_call(statement):
        return "IO"  # e.g. warnings.warn: "Attempted to call function marked as skipped"
    if category == "DC" and isinstance(statement, ast.If) and all(
        isinstance(s, ast.Raise) for s in statement.body
    ):
        return "GUARD"
    return category


def _scalar_feeds_predicate(filename: str, lineno: int) -> bool:
    tree = parse_file(filename)
    node = innermost(tree, lineno, (ast.If, ast.While, ast.IfExp)) if tree else None
    return node is not None and bool(_calls(node.test) & _SCALAR_CALLS)


def _dynamo_hint(reason: str) -> str | None:
    for line in reason.splitlines():
        if line.strip().startswith("Hint:"):
            return line.strip().removeprefix("Hint:").strip()
    return None


def _static_fix(category: str, reason: str, filename: str, lineno: int) -> tuple[str | None, str | None]:
    """(rule, hint) from the category alone, before asking the rule itself."""
    if category == "SCALAR":
        if _scalar_feeds_predicate(filename, lineno):
            return "where", None
        return None, _SCALAR_HINT
    if category == "DS":
        return None, _DS_HINT
    if category in RULE_FOR:
        return RULE_FOR[category], None
    return None, _dynamo_hint(reason)


def _ask_rules(filename: str, lineno: int, rule: str) -> tuple[bool, str | None]:
    """Dry-run the pipeline on the function around the site: (fixable, why not)."""
    from graphmend.errors import SourceError
    from graphmend.pipeline import transform_source

    source = function_at(filename, lineno)
    statement = statement_at(filename, lineno)
    if source is None or statement is None:
        return False, "no source for this site"
    line = source.snippet_line(statement.lineno)
    try:
        result = transform_source(source.text, lines=frozenset({line}), filename=filename)
    except SourceError as err:
        return False, str(err)
    if any(site.lineno == line for site in result.sites):
        return True, None
    declined = [f"[{s.rule}] {s.reason}" for s in result.skips if s.lineno == line]
    return False, "; ".join(declined) or f"[{rule}] no rewrite matches this statement"


# -- recording -------------------------------------------------------------------


def _user_frame(stack: Iterable[Any]) -> Any | None:
    frames = [f for f in stack if not f.filename.startswith(_TORCH_DIR)]
    return frames[-1] if frames else None


def _graphs_compiled() -> int:
    # Dynamo counts every graph it hands to any backend here.
    return counters["stats"]["unique_graphs"]


class BreakRecorder:
    """Collects the graphs and breaks Dynamo reports while the recorder is open,
    whatever the backend."""

    def __init__(self) -> None:
        self._start = 0
        self._graphs_before = 0
        self.reasons: list[Any] = []
        self.graph_count = 0

    def __enter__(self) -> BreakRecorder:
        self._start = len(output_graph.graph_break_reasons)
        self._graphs_before = _graphs_compiled()
        return self

    def __exit__(self, *exc: object) -> None:
        self.reasons = list(output_graph.graph_break_reasons[self._start :])
        self.graph_count = _graphs_compiled() - self._graphs_before

    def report(self, *, ask_rules: bool = True) -> Report:
        sites: dict[tuple[str, int], Break] = {}
        for reason in self.reasons:
            frame = _user_frame(reason.user_stack)
            if frame is None:
                continue
            key = (frame.filename, frame.lineno)
            if key in sites:
                sites[key].count += 1
                continue
            text = reason.reason.strip()
            category = classify(text, frame.filename, frame.lineno)
            rule, hint = _static_fix(category, text, frame.filename, frame.lineno)
            fixable = rule is not None
            if fixable and ask_rules:
                fixable, declined = _ask_rules(frame.filename, frame.lineno, rule)
                hint = declined or hint
            sites[key] = Break(
                category=category,
                filename=frame.filename,
                lineno=frame.lineno,
                function=original_function_name(frame.name),
                statement=linecache.getline(frame.filename, frame.lineno).strip(),
                reason=text.splitlines()[0],
                fixable=fixable,
                rule=rule if fixable else None,
                hint=hint,
            )
        return Report(graph_count=self.graph_count, breaks=list(sites.values()))


def _private_backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
    """Runs each graph as plain FX code: no compiler, nothing the user set up."""
    return gm.forward


def diagnose(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Report:
    """Run ``fn(*args, **kwargs)`` once under Dynamo and report every break.

    The trace uses a private backend (no inductor compile).  Like
    ``torch._dynamo.explain`` it resets Dynamo's caches first, so the trace
    is fresh, and again afterwards so no private graphs stay attached to the
    user's code.
    """
    torch._dynamo.reset()
    try:
        with BreakRecorder() as recorder:
            torch.compile(fn, backend=_private_backend)(*args, **kwargs)
    finally:
        torch._dynamo.reset()
    return recorder.report()
