"""The entry points: :func:`diagnose` / :func:`diagnose_calls` trace what
``torch.compile`` runs of a callable on argument sets, with a private
counting backend, and measure graph runs and capture statistics from one
warm call; :func:`trace_calls` does the same for any way of compiling (what
``graphmend.compile`` runs: :func:`graphmend.api.diagnose`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from graphmend import compat
from graphmend.compat import capture
from graphmend.diagnosis import capture_verdicts
from graphmend.diagnosis.advice import for_fallback
from graphmend.diagnosis.counting import GraphCounter
from graphmend.diagnosis.recording import BreakRecorder, original_function_name
from graphmend.diagnosis.report import MENDED, TORCH, Fallback, Report
from graphmend.errors import GraphmendError


@contextlib.contextmanager
def silenced() -> Iterator[None]:
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


def _measure(report: Report, compiled: Callable[..., Any], counter: GraphCounter, call: Call) -> None:
    """Graph runs per call, counted at the backend, and capture statistics
    from a warm compiled call (:meth:`GraphCounter.profile`).  Dynamo's own
    ``torch._dynamo.profiler.Profiler`` no longer counts them on torch 2.13:
    its "Torch-Compiled Region" ranges enclose everything and hide the
    operators.

    Totals come from the same compiled run, not from a separate eager run:
    Dynamo drops no-op operators from its graphs (measured on T5: 463 of 480
    eager operators remain in a single graph), so an eager total would put a
    one-graph model below 100%."""
    with silenced():
        # A model that changes its own state on the first call (Phi-3 unties
        # an aliased buffer) recompiles once more; settle that first.
        compiled(*call.args, **call.kwargs)
        profile = counter.profile(lambda: compiled(*call.args, **call.kwargs))
    report.graph_calls = profile.runs
    report.captured_ops = profile.ops_in_graphs
    report.total_ops = profile.ops
    report.pct_time = profile.us_in_graphs / profile.us if profile.us else None


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
    """Run ``fn(*args, **kwargs)`` under ``torch.compile`` and report every break.

    One traced call on a private backend (Dynamo's eager backend behind a
    :class:`GraphCounter`: the graphs run as plain FX code, no compiler),
    then one warm call under the profiler for the capture statistics (its
    output is silenced).  The
    user's compiled code and backend are left alone (see
    ``_own_dynamo_caches``).  :func:`graphmend.diagnose` adds what
    ``graphmend.compile`` runs.
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
    calls = argument_sets(fn, calls)
    report = trace_calls(functools.partial(torch.compile, fn), calls, statistics=statistics, ask_rules=ask_rules)
    if ask_rules:  # [Capture]'s verdict per DS / SCALAR site: one more trace, only where such sites are
        capture_verdicts.attach(report, lambda: _captured_trace(fn, calls), original_function_name)
    return report


def argument_sets(fn: Any, calls: Iterable[Any]) -> list[Call]:
    """``calls`` as :class:`Call` items, checked with ``fn``."""
    if not callable(fn):
        raise GraphmendError(f"diagnose() needs a function or an nn.Module, not {type(fn).__name__}")
    calls = [_as_call(item) for item in calls]
    if not calls:
        raise GraphmendError("diagnose_calls() needs at least one argument set")
    return calls


def trace_calls(compile: Callable[..., Callable[..., Any]], calls: list[Call], *, view: str = TORCH,
                statistics: bool = True, ask_rules: bool = True) -> Report:
    """``calls`` of the callable ``compile(**options)`` makes, ``options``
    being ``torch.compile``'s keyword arguments for a private counting
    backend (a new one per trace: Dynamo keys its caches by backend, so this
    trace cannot reuse graphs from an earlier one) and a recompile region
    of its own where torch has them, with Dynamo's caches kept apart from
    the user's.  The report of ``view``: graphs compiled and breaks of the
    calls, then (``statistics``) graph runs and capture statistics of a
    warm call, the graphs compiled that never ran and, for
    graphmend.compile's view, the frames it compiled without [Capture]."""
    counter = GraphCounter("eager")
    with _own_dynamo_caches(), recording_fallbacks() as fallbacks:
        compiled = compile(backend=counter, **compat.private_compile_options())
        with BreakRecorder() as recorder:
            for index, arguments in enumerate(calls):
                recorder.checkpoint(index)
                compiled(*arguments.args, **arguments.kwargs)
        report = recorder.report(ask_rules=ask_rules)
        report.view = view
        if statistics:
            _measure(report, compiled, counter, calls[0])
        report.thrown_away = counter.never_run_origins()
    if view == MENDED:
        report.fallbacks = fallbacks
    return report


@contextlib.contextmanager
def recording_fallbacks() -> Iterator[list[Fallback]]:
    """The frames converted within that [Capture] gave up on, whether Dynamo
    then compiled them without capture or ran them eagerly ([Capture] keeps,
    per code object, why it converts it without and how many times it
    did), filled in on exit."""
    before = capture.conversions_without_capture()
    fallbacks: list[Fallback] = []
    yield fallbacks
    after = capture.conversions_without_capture()
    fallbacks += [Fallback(original_function_name(code.co_name), code.co_filename, code.co_firstlineno, why,
                           advice=for_fallback(why))
                  for code, why in capture.uncaptured_codes().items()
                  if after.get(id(code), 0) > before.get(id(code), 0)]


def _captured_trace(fn: Callable[..., Any], calls: list[Any]) -> tuple[Report, dict[Any, str]]:
    """``calls`` of ``fn`` again with [Capture] on, on the private backend:
    the report, and the code objects compiled without capture (and why)."""
    with silenced():
        report = trace_calls(lambda **options: capture.wrap(torch.compile(fn, **options)), calls,
                             statistics=False, ask_rules=False)
    return report, capture.uncaptured_codes()


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
