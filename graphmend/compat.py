"""Every use of Dynamo's internals, each behind a probe.

graphmend relies on a few things Dynamo does not promise.  Each lives here,
with a probe that checks it is there and has the shape relied on; nothing
else in graphmend touches ``torch._dynamo`` beyond its public API.

* ``reorderable_logging_functions`` (a config, public since 2.x): the
  runtime's replay functions are registered there.
* Replays inside inlined functions: on some versions Dynamo records a
  replayable call in the inlined frame's translator and never replays it.
  :func:`_share_replays_with_inlined_calls` makes inlined *rewritten* code
  (and the runtime's own functions) record into the caller's list.
* Running a failing frame of rewritten code eagerly
  (``ConvertFrame.__call__``): see :func:`_run_failing_mended_frames_eagerly`.
* Frame exec strategies (``set_code_exec_strategy``): the runtime's
  functions are never compiled as frames of their own.

:func:`install` applies what the probes allow, once, on the first mend or
compile or when rewritten code first imports the runtime -- never at
``import graphmend`` -- and leaves code that is not rewritten as Dynamo
would run it.  :func:`self_test` then checks the result end to end.  A
probe or a self-test that fails turns the rules that depend on it off with
one warning naming the torch version (:func:`disabled_rules` says which and
why), so a message or a check is never dropped silently.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from graphmend.conventions import RUNTIME_ALIAS

logger = logging.getLogger("graphmend")


@dataclass(frozen=True)
class Probe:
    """One internal: whether it is usable on this torch, and why not."""

    name: str
    ok: bool
    reason: str = ""
    #: The rules that cannot work without it.
    rules: tuple[str, ...] = ()


_LOCK = threading.RLock()
_state: dict[str, Any] = {"installed": False, "probes": (), "self_test": None}


def _probe_reorderable() -> Probe:
    config = torch._dynamo.config
    ok = isinstance(getattr(config, "reorderable_logging_functions", None), set)
    return Probe("reorderable_logging_functions", ok,
                 "" if ok else "torch._dynamo.config.reorderable_logging_functions is missing",
                 ("defer", "trap"))


def _probe_inlining() -> Probe:
    try:
        from torch._dynamo.symbolic_convert import InliningInstructionTranslator
        params = inspect.signature(InliningInstructionTranslator.__init__).parameters
    except (ImportError, AttributeError, ValueError) as error:
        return Probe("inlined replays", False, f"InliningInstructionTranslator: {error}", ("defer", "trap"))
    ok = "parent" in params
    return Probe("inlined replays", ok, "" if ok else "InliningInstructionTranslator takes no parent",
                 ("defer", "trap"))


def _probe_convert_frame() -> Probe:
    try:
        from torch._dynamo import convert_frame, exc
        from torch._dynamo.types import ConvertFrameReturn, FrameAction, FrameExecStrategy  # noqa: F401
        params = list(inspect.signature(convert_frame.ConvertFrame.__call__).parameters)
        exc.TorchRuntimeError  # noqa: B018
    except (ImportError, AttributeError, ValueError) as error:
        return Probe("eager fallback", False, str(error), ("defer", "trap", "where"))
    ok = params[:5] == ["self", "frame", "cache_entry", "hooks", "frame_state"] and "skip" in params
    return Probe("eager fallback", ok, "" if ok else f"ConvertFrame.__call__{tuple(params)}",
                 ("defer", "trap", "where"))


def _probe_exec_strategy() -> Probe:
    try:
        from torch._dynamo.eval_frame import set_code_exec_strategy  # noqa: F401
        from torch._dynamo.types import FrameAction, FrameExecStrategy  # noqa: F401
    except ImportError as error:
        return Probe("frame exec strategy", False, str(error), ("defer", "trap", "where"))
    return Probe("frame exec strategy", True)


PROBES: tuple[Callable[[], Probe], ...] = (
    _probe_reorderable, _probe_inlining, _probe_convert_frame, _probe_exec_strategy,
)


def probes() -> tuple[Probe, ...]:
    """The probes' results on this torch (run once)."""
    with _LOCK:
        if not _state["probes"]:
            _state["probes"] = tuple(probe() for probe in PROBES)
        return _state["probes"]


def disabled_rules() -> dict[str, str]:
    """Rule name -> why it is off on this torch (empty when all work)."""
    off: dict[str, str] = {}
    for probe in probes():
        if not probe.ok:
            for rule in probe.rules:
                off.setdefault(rule, f"{probe.name}: {probe.reason} (torch {torch.__version__})")
    result = _state["self_test"]
    if result is not None:
        for rule, reason in result.items():
            off.setdefault(rule, reason)
    return off


def install() -> None:
    """Apply the patches the probes allow (once per process)."""
    with _LOCK:
        if _state["installed"]:
            return
        _state["installed"] = True
        results = {probe.name: probe for probe in probes()}
        if results["inlined replays"].ok:
            _share_replays_with_inlined_calls()
        if results["eager fallback"].ok:
            _run_failing_mended_frames_eagerly()
        off = disabled_rules()
        if off:
            warnings.warn(
                "graphmend: on torch "
                f"{torch.__version__} these rules are off: "
                + "; ".join(f"[{rule}] {why}" for rule, why in sorted(off.items())),
                RuntimeWarning,
                stacklevel=2,
            )


def register_replay(function: Callable[..., None]) -> Callable[..., None]:
    """``function`` wrapped so that Dynamo replays calls of it after the
    graph; Dynamo passes only positional arguments.  ``torch.compiler.disable``
    keeps Dynamo from compiling the replay itself when it runs."""
    replayed = torch.compiler.disable(function)
    if _probe_reorderable().ok:
        torch._dynamo.config.reorderable_logging_functions.add(replayed)
    return replayed


def skip_frames(functions) -> None:
    """Never compile these functions as frames of their own (inlining them
    into a traced caller is unaffected)."""
    if not _probe_exec_strategy().ok:
        return
    from torch._dynamo.eval_frame import set_code_exec_strategy
    from torch._dynamo.types import FrameAction, FrameExecStrategy

    for function in functions:
        set_code_exec_strategy(function.__code__, FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP))


_GRAPH_BREAK_TAKES_MSG = "msg" in inspect.signature(torch._dynamo.graph_break).parameters


def graph_break(reason: str) -> None:
    """End the graph here, with ``reason`` in Dynamo's break record (on
    versions whose ``graph_break`` takes a message)."""
    if _GRAPH_BREAK_TAKES_MSG:
        torch._dynamo.graph_break(msg=reason)
    else:
        torch._dynamo.graph_break()


def is_logger(value: object) -> bool:
    """``isinstance(value, logging.Logger)``, in a form Dynamo traces."""
    return isinstance(value, logging.Logger)


# -- the patches -----------------------------------------------------------------------------


def is_rewritten(code) -> bool:
    """Whether ``code`` calls graphmend's runtime (as rewritten code does)."""
    return RUNTIME_ALIAS in code.co_names


def _is_ours(code) -> bool:
    from graphmend import runtime

    return is_rewritten(code) or code.co_filename == runtime.__file__


class _Trace(threading.local):
    #: Whether the frame Dynamo is converting on this thread, or a function
    #: it inlined, is rewritten code.
    mended = False


_TRACE = _Trace()


def _share_replays_with_inlined_calls() -> None:
    """Make replayable calls inside inlined rewritten code count.

    Dynamo records a replayable call in the ``debug_locals`` of the
    translator tracing it, but (torch 2.13) only the outermost frame's list
    is replayed: a call made in an inlined function (a helper, a
    submodule's forward, the runtime's ``deferred_*`` functions themselves)
    is silently dropped.  Sharing the parent's list keeps every call, in
    program order.  Only rewritten code and the runtime share: other code's
    registered functions behave as Dynamo makes them.  On a graph break
    Dynamo restarts tracing with fresh translators, so nothing recorded by
    an abandoned attempt survives.

    Inside a higher-order op's subgraph (``checkpoint``, ``torch.cond``)
    a replayed tensor would be a value of the subgraph, not of the graph;
    such a call is a graph break instead, as ``print`` there is.
    """
    from torch._dynamo.symbolic_convert import InliningInstructionTranslator

    original = InliningInstructionTranslator.__init__
    if getattr(original, "_graphmend_shares_replays", False):
        return

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if is_rewritten(self.f_code):
            _TRACE.mended = True
        if not _is_ours(self.f_code):
            return
        if self.output.is_root_tracer():
            self.debug_locals = self.parent.debug_locals
        else:
            self.debug_locals = _ReplaysInSubgraph()

    __init__._graphmend_shares_replays = True
    InliningInstructionTranslator.__init__ = __init__


class _ReplaysInSubgraph(list):
    """``debug_locals`` of rewritten code traced in a higher-order op's subgraph."""

    def append(self, call) -> None:
        from torch._dynamo.exc import unimplemented

        unimplemented(
            gb_type="graphmend: deferred call inside a higher-order op",
            context=str(call[0]),
            explanation="A call replayed after the graph cannot take values of a subgraph.",
            hints=["Move the print/log/warning/check out of the checkpointed or conditional code."],
        )


def _run_failing_mended_frames_eagerly() -> None:
    """When Dynamo fails to trace rewritten code because the code itself
    fails (a shape error met on fake tensors: ``TorchRuntimeError``; or the
    user's own exception), run that frame eagerly instead of raising.

    Tracing runs no code, so the frame starts from the top: eagerly the
    deferred messages print, the deferred checks raise and the failing
    statement raises its own error, in program order, as the original did
    eagerly.  The frame is run eagerly this once and compiled again on its
    next call; with ``fullgraph=True`` the error is raised, as asked.
    Dynamo's own failures (unsupported code, backend errors) are left to
    Dynamo, as is code that is not rewritten.
    """
    from torch._dynamo import convert_frame, exc
    from torch._dynamo.types import ConvertFrameReturn, FrameAction, FrameExecStrategy

    original = convert_frame.ConvertFrame.__call__
    if getattr(original, "_graphmend_runs_failing_frames", False):
        return

    @functools.wraps(original)
    def __call__(self, frame, cache_entry, hooks, frame_state, skip=0):
        outer = _TRACE.mended
        _TRACE.mended = is_rewritten(frame.f_code)
        try:
            return original(self, frame, cache_entry, hooks, frame_state, skip=skip + 1)
        except Exception as error:
            user_error = isinstance(error, exc.TorchRuntimeError) or not isinstance(error, exc.TorchDynamoException)
            if not (user_error and _TRACE.mended) or self._inner_convert._box.error_on_graph_break:
                raise
            logger.debug(
                "%s (%s:%d) fails while Dynamo traces it (%s: %s); running it eagerly",
                frame.f_code.co_name, frame.f_code.co_filename, frame.f_code.co_firstlineno,
                type(error).__name__, str(error).split("\n", 1)[0],
            )
            return ConvertFrameReturn(
                frame_exec_strategy=FrameExecStrategy(FrameAction.SKIP, FrameAction.DEFAULT),
                apply_to_code=False,
                skip_reason="graphmend: the rewritten code fails; it runs eagerly",
            )
        finally:
            _TRACE.mended = outer

    __call__._graphmend_runs_failing_frames = True
    convert_frame.ConvertFrame.__call__ = __call__
