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
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import json
import linecache
import logging
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graphmend import capture_verdicts, compat
from graphmend.compat import capture
from graphmend.analysis import scan, vocabulary
from graphmend.analysis.source import DEFS, ParsedFile, innermost, parse_file, statement_at
from graphmend.analysis.summaries import static_summaries
from graphmend.conventions import GENERATED_PREFIX, RUNTIME_MODULE
from graphmend.errors import GraphmendError

CATEGORIES = ("DC", "IO", "GUARD", "SCALAR", "DS", "OTHER")
#: The rule that fixes each category, when the site meets its preconditions.
RULE_FOR = {"DC": "where", "IO": "defer", "GUARD": "trap", "SCALAR": "where"}

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
#: graphmend's own code: a break inside it is a rewritten site that still breaks.
_GRAPHMEND_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: Logging libraries Dynamo inlines (loguru breaks deep inside, at
#: ``get_frame``): a break there belongs to the user's line that logged,
#: which [Defer] can rewrite.
_LOGGING_LIBRARY_DIRS = tuple(
    location + os.sep
    for spec in [importlib.util.find_spec("loguru")]
    if spec is not None
    for location in spec.submodule_search_locations or ()
)
_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_\d+$")

#: Dynamo's refusal to replay a call after the graph, which for a deferred
#: message means one of its arguments cannot travel there.
_NOT_REORDERABLE = "can't actually be reordered"


def _runtime_reason(text: str) -> str | None:
    """Why a rewritten site still breaks, when graphmend's runtime knows."""
    ours = re.search(r"Message: (graphmend: .*)", text)
    if ours:
        return ours.group(1)
    if _NOT_REORDERABLE in text:
        return ("graphmend: an argument of the deferred message is not a value Dynamo can replay after the "
                "graph (tensors, constants, shapes, dtypes, devices, enums and containers of these can); "
                "the call runs in place, as before")
    return None


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
    #: the graph ("DS: captured") or why not (graphmend/capture_verdicts.py).
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
        parts = [f"{self.graph_count} graph(s)", f"{self.break_count} break(s)"]
        if self.graph_calls is not None:
            parts.append(f"{self.graph_calls} graph call(s)")
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


def original_function_name(code_name: str) -> str:
    """Map Dynamo's resume functions back to the function they resume."""
    while match := _RESUME.match(code_name):
        code_name = match.group(1)
    return code_name


def _user_function_name(code_name: str, filename: str, lineno: int) -> str:
    """The function a break is in, as the user wrote it: a frame of
    graphmend's own making (an arm's thunk, ``_gm_then_arm_12``) is named
    by the def around the line in the source file."""
    name = original_function_name(code_name)
    if not name.startswith(GENERATED_PREFIX):
        return name
    parsed = parse_file(filename)
    around = innermost(parsed.tree, lineno, DEFS) if parsed is not None else None
    return around.name if around is not None else name


# -- classification ------------------------------------------------------------

_SCALAR_CALLS = vocabulary.SCALAR_METHODS | vocabulary.SCALAR_BUILTINS


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


def _is_io_call(statement: ast.stmt | None) -> bool:
    """``print(...)``, ``warn(...)``, ``warnings.warn(...)`` or ``<logger>.<method>(...)``."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    if isinstance(func, ast.Name):
        return func.id in vocabulary.MESSAGE_FUNCTIONS
    if isinstance(func, ast.Attribute):
        owner = func.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if owner_name == "warnings":
            return func.attr == "warn"
        return func.attr in vocabulary.LOGGER_METHODS and "log" in owner_name.lower()
    return False


def break_category(reason: str, filename: str, lineno: int) -> str:
    """The category of a break, from Dynamo's reason and the source: DC
    (data-dependent control flow), IO (print, logging, warnings), GUARD (a
    tensor test whose body only raises), SCALAR (``.item()``, ``int(t)``...),
    DS (data-dependent output shape) or OTHER."""
    category = _base_category(reason)
    statement = statement_at(filename, lineno)
    if category == "OTHER" and _is_io_call(statement):
        return "IO"  # e.g. warnings.warn: "Attempted to call function marked as skipped"
    if category == "OTHER" and isinstance(statement, ast.If) and "equal" in _calls(statement.test) and \
            _gb_type(reason) == "Data dependent operator":
        category = "DC"  # ``if not torch.equal(a, b):`` reads the tensors back to branch on them
    if category == "DC" and isinstance(statement, ast.If) and all(
        isinstance(s, ast.Raise) for s in statement.body
    ):
        return "GUARD"
    return category


def _scalar_where_may_fix(filename: str, lineno: int, reason: str) -> bool:
    """A scalar that feeds a predicate, a statement reading back
    ``arange(...).tolist()``, or, where Dynamo met an operator reading data
    back rather than ``.item()``, one indexing with what may be a 0-dim
    tensor (``x[i]``): [Where] is asked about them."""
    parsed = parse_file(filename)
    if parsed is None:
        return False
    node = innermost(parsed.tree, lineno, (ast.If, ast.While, ast.IfExp))
    if node is not None and _calls(node.test) & _SCALAR_CALLS:
        return True
    indexing = _gb_type(reason) == "Data dependent operator"
    return _statement_holds(parsed, lineno, lambda n: scan.arange_tolist(n) or indexing and scan.scalar_subscript(n))


def _gb_type(reason: str) -> str | None:
    """The gb_type of a break reason: its first line ("Data-dependent
    branching" for a data-dependent jump, whose reason has none)."""
    headline = reason.strip().split("\n", 1)[0].strip()
    return "Data-dependent branching" if headline.startswith("generic_jump") else headline or None


def _dynamo_hint(reason: str) -> str | None:
    for line in reason.splitlines():
        if line.strip().startswith("Hint:"):
            return line.strip().removeprefix("Hint:").strip()
    return None


def _static_fix(category: str, reason: str, filename: str, lineno: int) -> tuple[str | None, str | None]:
    """(rule, hint) from the category alone, before asking the rule itself."""
    if category == "SCALAR":
        if _scalar_where_may_fix(filename, lineno, reason):
            return "where", _SCALAR_HINT  # the hint, unless [Where] fixes it or says why not
        return None, _SCALAR_HINT
    if category == "DS":
        if _statement_is(filename, lineno, scan.masked_store):
            return "where", None
        if _statement_is(filename, lineno, scan.unique_binding):
            return "trap", None
        return None, _DS_HINT
    if category in RULE_FOR:
        return RULE_FOR[category], None
    if category == "OTHER" and _builtin_pow_at(filename, lineno):
        return "where", None
    return None, _dynamo_hint(reason)


def _builtin_pow_at(filename: str, lineno: int) -> bool:
    """A statement calling ``pow()``: Dynamo does not trace the builtin on a
    tensor, [Where] spells it ``**``."""
    parsed = parse_file(filename)
    return parsed is not None and _statement_holds(parsed, lineno, scan.builtin_pow)


def _statement_is(filename: str, lineno: int, found: Callable[[ast.AST], bool]) -> bool:
    """Whether the statement at ``lineno`` is one ``found`` accepts."""
    statement = statement_at(filename, lineno)
    return statement is not None and found(statement)


def _statement_holds(parsed: ParsedFile, lineno: int, found: Callable[[ast.AST], bool]) -> bool:
    """Whether the statement at ``lineno`` holds a node ``found`` accepts."""
    statement = parsed.statement_at(lineno)
    return statement is not None and any(found(n) for n in ast.walk(statement))


def _ask_rules(filename: str, sites: dict[int, str]) -> dict[int, tuple[bool, str | None]]:
    """Dry-run the rules on the functions around ``sites`` (line -> the rule
    expected to fix it), all at once and in the skeleton of their file that
    mending uses, so inner sites are rewritten as ``mend`` will rewrite them:
    line -> (fixable, why not)."""
    from graphmend.errors import SourceError
    from graphmend.pipeline import transform_skeleton
    from graphmend.rules.base import RuleOptions

    parsed = parse_file(filename)
    answers = {line: (False, "no source for this site") for line in sites}
    if parsed is None:
        return answers
    units = []
    for line in sites:
        around = parsed.defs_around(line)
        if around and parsed.statement_at(line) is not None:
            units.append(parsed.unit_of(max(around, key=lambda node: node.lineno)))
    if not units:
        return answers
    options = RuleOptions(lines=frozenset(sites), effect_helpers=parsed.effect_helpers,
                          callees=static_summaries(parsed, [unit.node for unit in units]))
    try:
        result = transform_skeleton(parsed.skeleton(units), options, filename)
    except SourceError as err:
        return {line: (False, str(err)) for line in sites}
    rewritten = {site.lineno for site in result.sites}
    for line, rule in sites.items():
        if answers[line][1] == "no source for this site" and not any(u.start <= line <= u.end for u in units):
            continue
        if line in rewritten:
            answers[line] = (True, None)
        else:
            declined = [f"[{s.rule}] {s.reason}" for s in result.skips if s.lineno == line]
            answers[line] = (False, "; ".join(declined) or f"[{rule}] no rewrite matches this statement")
    return answers


# -- recording -------------------------------------------------------------------


def _user_frame(stack: Iterable[Any]) -> Any | None:
    """The innermost frame of the user's code: not torch's, not graphmend's
    (a break inside the runtime belongs to the rewritten line that called
    it), not a logging library's."""
    frames = [f for f in stack if not f.filename.startswith((_TORCH_DIR, _GRAPHMEND_DIR, *_LOGGING_LIBRARY_DIRS))]
    return frames[-1] if frames else None


def _in_runtime(stack: Iterable[Any]) -> bool:
    return any(f.filename.startswith(_GRAPHMEND_DIR) for f in stack)


def _statement_line(filename: str, lineno: int) -> int:
    """``lineno``, or where Dynamo names a line no statement covers (a blank
    line or a comment after a jump), the last statement before it.  A store
    through a mask is named by its first line: any of its lines may break,
    and [Where] rewrites it as one statement.  So is an ``if`` or ``while``
    whose test spans lines (Dynamo names the line of the comparison that
    broke): the rules act on the statement, at its first line."""
    parsed = parse_file(filename)
    if parsed is None:
        return lineno
    statement = parsed.statement_at(lineno)
    if statement is not None:
        return statement.lineno if scan.masked_store(statement) or _in_header(statement, lineno) else lineno
    before = [n.lineno for n in ast.walk(parsed.tree) if isinstance(n, ast.stmt) and n.end_lineno < lineno]
    return max(before, default=lineno)


def _in_header(statement: ast.stmt, lineno: int) -> bool:
    """Whether ``lineno`` is in the test of an ``if`` or ``while``."""
    return isinstance(statement, (ast.If, ast.While)) and lineno <= statement.test.end_lineno


def _statement_text(filename: str, lineno: int) -> str:
    """The statement's line, or a test spanning lines joined into one."""
    text = linecache.getline(filename, lineno).strip()
    parsed = parse_file(filename)
    statement = parsed.statement_at(lineno) if parsed else None
    if statement is None or statement.lineno != lineno or not _in_header(statement, lineno + 1):
        return text
    lines = (linecache.getline(filename, line).strip() for line in range(lineno, statement.body[0].lineno))
    return " ".join(line for line in lines if line and not line.startswith("#")).replace("( ", "(").replace(" )", ")")


def _guard_failure_counts() -> dict[Any, int]:
    return {code: len(reasons) for code, reasons in compat.guard_failures().items()}


_COMPILE_ID = re.compile(r"^\s*\d+/\d+:\s*")
_USER_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _guard_text(failure: str) -> str:
    """``"0/0: n == 2   # if n >= 0:  # f.py:6 in f\nUser stack..."`` -> ``"n == 2"``."""
    first_line = _COMPILE_ID.sub("", failure).split("\n", 1)[0]
    return re.sub(r"\s{2,}#.*$", "", first_line).strip()


def _recompile(code: Any, failures: list[str], call: int | None) -> Recompile:
    """One recompile of ``code``: Dynamo lists one failure per cache entry."""
    first = failures[0]
    guard = _guard_text(first)
    user_lines = _USER_LINE.findall(first)
    source = f"{short_path(user_lines[-1][0])}:{user_lines[-1][1]}" if user_lines else None
    return Recompile(
        function=original_function_name(code.co_name),
        filename=code.co_filename,
        lineno=code.co_firstlineno,
        guard=guard,
        source=source,
        call=call,
        failures=[_guard_text(f) for f in failures],
    )


class BreakRecorder:
    """Collects the graphs, breaks and recompiles Dynamo records while the
    recorder is open, whatever the backend.

    ``checkpoint(i)`` before each call attributes the recompiles that follow
    to argument set ``i``.
    """

    def __init__(self) -> None:
        self._start = 0
        self._graphs_before = 0
        self._failures_seen: dict[Any, int] = {}
        self._call: int | None = None
        self.reasons: list[Any] = []
        self.recompiles: list[Recompile] = []
        self.graph_count = 0
        self.first_call_graphs: int | None = None

    def __enter__(self) -> BreakRecorder:
        self._start = len(compat.graph_break_reasons())
        self._graphs_before = compat.graphs_compiled()
        self._failures_seen = _guard_failure_counts()
        return self

    def checkpoint(self, call: int | None) -> None:
        """Close the recompiles of the previous call; later ones belong to ``call``."""
        for code, reasons in list(compat.guard_failures().items()):
            # A cache entry made for another backend (the user's, beside a
            # diagnosis's private one) fails its backend guard without that
            # being a recompile of the user's code.
            new = [r for r in reasons[self._failures_seen.get(code, 0) :] if "BACKEND_MATCH" not in r]
            if new:
                self.recompiles.append(_recompile(code, new, self._call))
        self._failures_seen = _guard_failure_counts()
        if self._call == 0:
            self.first_call_graphs = compat.graphs_compiled() - self._graphs_before
        self._call = call

    def __exit__(self, *exc: object) -> None:
        self.checkpoint(None)
        self.reasons = compat.graph_break_reasons()[self._start :]
        self.graph_count = compat.graphs_compiled() - self._graphs_before

    def report(self, *, ask_rules: bool = True) -> Report:
        sites: dict[tuple[str, int], Break] = {}
        for reason in self.reasons:
            frame = _user_frame(reason.user_stack)
            if frame is None:
                continue
            lineno = _statement_line(frame.filename, frame.lineno)
            key = (frame.filename, lineno)
            if key in sites:
                sites[key].count += 1
                continue
            text = reason.reason.strip()
            category = break_category(text, frame.filename, lineno)
            rewritten = _in_runtime(reason.user_stack)
            if rewritten:
                # The runtime names why its predicated form did not apply.
                ours = _runtime_reason(text)
                rule, hint = None, None if ours else _dynamo_hint(text)
                text = f"rewritten, still breaks: {ours or text}"
            else:
                rule, hint = _static_fix(category, text, frame.filename, lineno)
            gb_id = compat.graph_break_id(reason.reason)
            entry = compat.graph_break_entry(gb_id, _gb_type(reason.reason)) if gb_id else None
            sites[key] = Break(
                gb_id=gb_id,
                gb_type=entry.get("Gb_type") if entry else None,
                explanation=entry.get("Explanation") if entry else None,
                hints=[h for h in entry.get("Hints") or () if isinstance(h, str)] if entry else [],
                category=category,
                filename=frame.filename,
                lineno=lineno,
                function=_user_function_name(frame.name, frame.filename, lineno),
                statement=_statement_text(frame.filename, lineno),
                reason=text.splitlines()[0],
                fixable=rule is not None,
                rule=rule,
                hint=hint,
                rewritten=rewritten,
            )
        off = compat.rules_off(importlib.import_module(RUNTIME_MODULE))
        for b in sites.values():
            if b.rule in off:
                b.fixable, b.hint = False, f"[{b.rule}] is disabled: {off[b.rule]}"
                b.rule = None
        if ask_rules:
            by_file: dict[str, dict[int, str]] = {}
            for b in sites.values():
                if b.fixable:
                    by_file.setdefault(b.filename, {})[b.lineno] = b.rule
            for filename, lines in by_file.items():
                for line, (fixable, declined) in _ask_rules(filename, lines).items():
                    b = sites[(filename, line)]
                    b.fixable, b.hint = fixable, declined or (None if fixable else b.hint)
                    b.rule = b.rule if fixable else None
        breaks = list(sites.values())
        if self.first_call_graphs is None:  # a whole run: count break events
            graph_count, break_count = self.graph_count, sum(b.count for b in breaks)
        else:
            graph_count = self.first_call_graphs
            break_count = max(graph_count - 1, 0)
        return Report(
            graph_count=graph_count,
            break_count=break_count,
            breaks=breaks,
            recompiles=list(self.recompiles),
            disabled_rules=off,
        )


# -- capture statistics ------------------------------------------------------------


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """The measuring run must not repeat the program's output, and the
    profiler's own start/stop lines (written by C++ to file descriptor 2)
    are not the user's either."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(fd) for fd in (1, 2)]
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(
        sink
    ), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.CRITICAL)
        for fd in (1, 2):
            os.dup2(sink.fileno(), fd)
        try:
            yield
        finally:
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)
            logging.disable(logging.NOTSET)


def _measure(report: Report, compiled: Callable[..., Any], call: Call) -> None:
    """Capture statistics from a warm compiled call under the profiler, the
    way Dynamo's own ``torch._dynamo.profiler.Profiler`` counts them: every
    top-level ``aten::`` operator the call dispatches counts once (operators
    an operator calls do not), and it is captured when it runs inside a
    ``TORCHDYNAMO`` range, which our private backend
    (``fx_insert_profiling``) puts around every graph.  That Profiler's own
    ``results()`` no longer works on torch 2.13: the new
    "Torch-Compiled Region" ranges enclose everything and hide the operators.

    Totals come from the same compiled run, not from a separate eager run:
    Dynamo drops no-op operators from its graphs (measured on T5: 463 of 480
    eager operators remain in a single graph), so an eager total would put a
    one-graph model below 100%."""
    with _silenced():
        # A model that changes its own state on the first call (Phi-3 unties
        # an aliased buffer) recompiles once more; settle that first.
        compiled(*call.args, **call.kwargs)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            compiled(*call.args, **call.kwargs)
    events = sorted(prof.events(), key=lambda e: e.time_range.start)
    graphs = [e.time_range for e in events if e.name == "TORCHDYNAMO"]
    captured_ops = total_ops = 0
    captured_us = total_us = 0.0
    last_end = -1
    for event in events:
        span = event.time_range
        if not event.name.startswith("aten::") or span.start < last_end:
            continue  # not an operator, or called by one
        last_end = span.end
        inside = any(g.start <= span.start and span.end <= g.end for g in graphs)
        total_ops += 1
        total_us += span.elapsed_us()
        if inside:
            captured_ops += 1
            captured_us += span.elapsed_us()
    report.graph_calls = len(graphs)
    report.captured_ops = captured_ops
    report.total_ops = total_ops
    report.pct_time = captured_us / total_us if total_us else None


# -- entry points ------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One argument set for :func:`diagnose_calls`."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


def call(*args: Any, **kwargs: Any) -> Call:
    """``graphmend.call(x, n=2)``: an argument set with keyword arguments."""
    return Call(args, kwargs)


def _as_call(item: Any) -> Call:
    if isinstance(item, Call):
        return item
    if isinstance(item, dict):
        return Call((), item)
    if isinstance(item, tuple):
        return Call(item)
    return Call((item,))


def diagnose(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Report:
    """Run ``fn(*args, **kwargs)`` under Dynamo and report every break.

    One traced call on a private backend (Dynamo's ``fx_insert_profiling``:
    the graphs run as plain FX code, no compiler), then one warm call under
    the profiler for the capture statistics (its output is silenced).  The
    user's compiled code and backend are left alone (see
    ``_own_dynamo_caches``).
    """
    return diagnose_calls(fn, [Call(args, kwargs)])


def diagnose_calls(
    fn: Callable[..., Any], calls: Iterable[Any], *, statistics: bool = True, ask_rules: bool = True
) -> Report:
    """Like :func:`diagnose`, over several argument sets in order; a guard that
    fails on a later set is reported in ``report.recompiles`` with the index
    of that set.  An item is a tuple of positional arguments, a dict of
    keyword arguments, or ``graphmend.call(*args, **kwargs)``.

    ``ask_rules=False`` skips the dry run of the rules on each fixable site
    (``fixable`` then comes from the category alone), for callers that run
    the rules on those sites anyway.
    """
    if not callable(fn):
        raise GraphmendError(f"diagnose() needs a function or an nn.Module, not {type(fn).__name__}")
    calls = [_as_call(item) for item in calls]
    if not calls:
        raise GraphmendError("diagnose_calls() needs at least one argument set")

    def private_backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        # A new backend object per diagnosis: Dynamo keys its caches by
        # backend, so this trace cannot reuse graphs from an earlier one.
        return compat.profiling_backend(gm, example_inputs)

    with _own_dynamo_caches():
        compiled = torch.compile(fn, backend=private_backend)
        with BreakRecorder() as recorder:
            for index, arguments in enumerate(calls):
                recorder.checkpoint(index)
                compiled(*arguments.args, **arguments.kwargs)
        report = recorder.report(ask_rules=ask_rules)
        if statistics:
            _measure(report, compiled, calls[0])
    if ask_rules:  # [Capture]'s verdict per DS / SCALAR site: one more trace, only where such sites are
        capture_verdicts.attach(report, lambda: _captured_trace(fn, calls), original_function_name)
    return report


def _captured_trace(fn: Callable[..., Any], calls: list[Any]) -> tuple[Report, dict[Any, str]]:
    """``calls`` of ``fn`` again with [Capture] on, on the private backend:
    the report, and the code objects compiled without capture (and why)."""
    def private_backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        return compat.profiling_backend(gm, example_inputs)

    with _own_dynamo_caches(), _silenced():
        compiled = capture.wrap(torch.compile(fn, backend=private_backend))
        with BreakRecorder() as recorder:
            for index, arguments in enumerate(calls):
                recorder.checkpoint(index)
                compiled(*arguments.args, **arguments.kwargs)
    return recorder.report(ask_rules=False), capture.uncaptured_codes()


@contextlib.contextmanager
def _own_dynamo_caches() -> Iterator[None]:
    """A diagnosis leaves the user's compiled code alone.

    ``torch._dynamo.reset()``, as ``torch._dynamo.explain`` uses, would throw
    away every compiled model in the process.  Instead, code objects that
    hold no compiled entries are reset before (forgetting, say, an earlier
    decision to skip a frame) and after (dropping the private graphs); code
    the user has compiled keeps its entries, and ours beside them stay
    unused, keyed by a backend nobody else has.  Dynamo's memory of which
    sizes change (automatic dynamic shapes) is isolated the same way, so
    every diagnosis counts the graphs a fresh process would compile.
    """

    def reset_uncompiled() -> None:
        for code in compat.compiled_codes():
            if not compat.has_compiled_entries(code):
                compat.reset_code(code)

    reset_uncompiled()
    had_entries = {id(code) for code in compat.compiled_codes() if compat.has_compiled_entries(code)}
    try:
        with compat.isolated_code_state():
            yield
    finally:
        for code in compat.compiled_codes():
            if id(code) not in had_entries:
                compat.reset_code(code)
