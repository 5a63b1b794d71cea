"""Recording breaks: a :class:`BreakRecorder` reads what Dynamo records while it is
open (graph-break reasons, recompiles) and builds a :class:`Report`, naming each
site by the user's statement and function.
"""

from __future__ import annotations

import ast
import importlib.util
import linecache
import os
import re
from collections.abc import Iterable
from typing import Any

import torch

from graphmend import compat
from graphmend.compat.counters import IN_A_LOOP, FrameRunEagerly
from graphmend.analysis import scan
from graphmend.analysis.source import DEFS, innermost, parse_file
from graphmend.conventions import GENERATED_PREFIX, RUNTIME_MODULE
from graphmend.diagnosis.categories import break_category, dynamo_hint, gb_type, static_fix
from graphmend.diagnosis.dry_run import ask_the_rules
from graphmend.diagnosis.report import Break, Recompile, Report, short_path


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
#: graphmend's own code: a break inside it is a rewritten site that still breaks.
_GRAPHMEND_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
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


def _kept_for_an_unread_argument(filename: str, lineno: int) -> bool:
    """Whether the runtime handed the tensor of the rewritten test at
    ``lineno`` back, for its message reads an argument nothing else read
    (:func:`graphmend.compat.reads_an_unread_argument`): Dynamo then breaks at
    the user's statement, not inside the runtime."""
    return any(site == filename and _statement_line(filename, line) == lineno
               for site, line in compat.UNREAD_ARGUMENT_SITES)


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


def _is_user(frame: Any) -> bool:
    return not frame.filename.startswith((_TORCH_DIR, _GRAPHMEND_DIR, *_LOGGING_LIBRARY_DIRS))


def _user_frame(stack: Iterable[Any]) -> Any | None:
    """The innermost frame of the user's code: not torch's, not graphmend's
    (a break inside the runtime belongs to the rewritten line that called
    it), not a logging library's."""
    frames = [f for f in stack if _is_user(f)]
    return frames[-1] if frames else None


def _in_runtime(stack: Iterable[Any]) -> bool:
    """Whether a break belongs to a rewritten line: it happened inside the
    runtime that line calls, or in a thunk of the line's own (an arm,
    ``_gm_then_arm_12``, or a lambda) the runtime runs.  A break in a
    function of the user's that such a thunk calls in turn (the helper a
    predicated call traces) is that function's own, to mend there."""
    def ours(frames: list[Any]) -> bool:
        return any(frame.filename.startswith(_GRAPHMEND_DIR) for frame in frames)

    frames = list(stack)
    users = [index for index, frame in enumerate(frames) if _is_user(frame)]
    if not users:
        return ours(frames)
    innermost = users[-1]
    thunk = frames[innermost].name.startswith(GENERATED_PREFIX) or frames[innermost].name == "<lambda>"
    return ours(frames[innermost + 1:]) or thunk and ours(frames[:innermost])


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


def _classify(reason: Any, off: dict[str, str]) -> tuple[Any, int, str, str, str | None, str | None, bool] | None:
    """A graph break (a ``GraphCompileReason``) at the user's statement:
    (user frame, statement line, category, reason text, the rule expected
    to fix it or None, hint, whether it is a rewritten site that still
    breaks); None for a break in no user code.  ``off``: the rules turned
    off on this torch, which fix nothing."""
    frame = _user_frame(reason.user_stack)
    if frame is None:
        return None
    lineno = _statement_line(frame.filename, frame.lineno)
    text = reason.reason.strip()
    category = break_category(text, frame.filename, lineno)
    kept = _kept_for_an_unread_argument(frame.filename, lineno)
    rewritten = kept or _in_runtime(reason.user_stack)
    if rewritten:
        # The runtime names why its predicated form did not apply.
        ours = f"graphmend: {compat.UNREAD_ARGUMENT}" if kept else _runtime_reason(text)
        rule, hint = None, None if ours else dynamo_hint(text)
        text = f"rewritten, still breaks: {ours or text}"
    else:
        rule, hint = static_fix(category, text, frame.filename, lineno)
        kept_original = compat.kept_original_at(frame.filename, frame.name, frame.lineno) if rule is not None else None
        if kept_original is not None:
            rule, hint = None, kept_original
    if rule in off:
        rule, hint = None, f"[{rule}] is disabled: {off[rule]}"
    return frame, lineno, category, text, rule, hint, rewritten


def eager_frame_hint(function: str, because: str = IN_A_LOOP) -> str:
    """What a frame Dynamo runs eagerly costs (a break inside a loop of
    ``function``, by default): the whole frame."""
    return f"Dynamo runs {function}() eagerly: {because}"


def fixable_site(reason: Any) -> tuple[str, int] | None:
    """(file, statement line) of a graph break a rule is expected to fix,
    as :meth:`BreakRecorder.report` reports it ``fixable`` without asking
    the rules; None for any other break."""
    classified = _classify(reason, compat.rules_off(importlib.import_module(RUNTIME_MODULE)))
    if classified is None or classified[4] is None:
        return None
    return classified[0].filename, classified[1]


class BreakRecorder:
    """Collects the graphs, breaks and recompiles Dynamo records while the
    recorder is open, whatever the backend.

    ``checkpoint(i)`` before each call attributes the recompiles that follow
    to argument set ``i``.
    """

    def __init__(self) -> None:
        self._start = 0
        self._skips_start = 0
        self._graphs_before = 0
        self._failures_seen: dict[Any, int] = {}
        self._call: int | None = None
        self.reasons: list[Any] = []
        self.recompiles: list[Recompile] = []
        self.graph_count = 0
        self.first_call_graphs: int | None = None

    def __enter__(self) -> BreakRecorder:
        # Installed first: the patch that keeps the breaks of frames Dynamo runs eagerly is compat's.
        compat.install(importlib.import_module(RUNTIME_MODULE))
        self._start = len(compat.graph_break_reasons())
        self._skips_start = len(compat.frames_run_eagerly())
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
        # A break in a loop, which made Dynamo run its whole frame eagerly, is
        # in no break record of Dynamo's: it is a break all the same.
        self.reasons = compat.graph_break_reasons()[self._start :] + compat.frames_run_eagerly()[self._skips_start :]
        self.graph_count = compat.graphs_compiled() - self._graphs_before

    def report(self, *, ask_rules: bool = True) -> Report:
        sites: dict[tuple[str, int], Break] = {}
        off = compat.rules_off(importlib.import_module(RUNTIME_MODULE))
        for reason in self.reasons:
            classified = _classify(reason, off)
            if classified is None:
                continue
            frame, lineno, category, text, rule, hint, rewritten = classified
            run_eagerly = original_function_name(reason.function) if isinstance(reason, FrameRunEagerly) else None
            if run_eagerly:
                hint = "; ".join(filter(None, [eager_frame_hint(run_eagerly, reason.because), hint]))
            key = (frame.filename, lineno)
            if key in sites:
                sites[key].count += 1
                continue
            gb_id = compat.graph_break_id(reason.reason)
            entry = compat.graph_break_entry(gb_id, gb_type(reason.reason)) if gb_id else None
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
                run_eagerly=run_eagerly,
            )
        if ask_rules:
            by_file: dict[str, dict[int, str]] = {}
            for b in sites.values():
                if b.fixable:
                    by_file.setdefault(b.filename, {})[b.lineno] = b.rule
            for filename, lines in by_file.items():
                for line, (fixable, declined) in ask_the_rules(filename, lines).items():
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
