"""The probes: does this torch have each Dynamo internal graphmend relies
on, in the shape relied on?  Each :class:`Probe` names the rules that
cannot work without it; :func:`disabled_rules` says which rules are off on
this torch, and why (a failed probe or a failed self-test)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from graphmend.compat import capture



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
    return Probe("frame exec strategy", True, rules=("defer", "trap", "where"))


def _probe_loop_skips() -> Probe:
    """Dynamo's hook where a break inside a loop makes it run the frame
    eagerly; no rule needs it (only diagnoses read what it keeps)."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase
        hook = inspect.getattr_static(InstructionTranslatorBase, "raise_loop_graph_break")
        params = list(inspect.signature(hook.__func__).parameters)
    except (ImportError, AttributeError, ValueError) as error:
        return Probe("loop skips", False, str(error))
    ok = isinstance(hook, staticmethod) and params == ["code", "exc"]
    return Probe("loop skips", ok, "" if ok else f"raise_loop_graph_break{tuple(params)}")


def _probe_function_variables() -> Probe:
    """Dynamo's variable for a Python function, which it builds before it
    reads the function's code; no rule needs it (graphmend.compile's first
    call waits for every rewrite before it starts where it fails)."""
    try:
        from torch._dynamo.variables.functions import UserFunctionVariable
        params = list(inspect.signature(UserFunctionVariable.__init__).parameters)
    except (ImportError, AttributeError, ValueError) as error:
        return Probe("functions met while tracing", False, str(error))
    ok = params[:2] == ["self", "fn"]
    return Probe("functions met while tracing", ok, "" if ok else f"UserFunctionVariable.__init__{tuple(params)}")


def _probe_run_time_failures() -> Probe:
    """The root translator's list of replayed calls and the hook where a
    graph goes to the backend, which :mod:`.failures_at_run_time` uses; no
    rule needs them (without, a graph that fails while it runs loses what
    it deferred, with a note on its exception where it can be told)."""
    try:
        from torch._dynamo.output_graph import OutputGraph
        from torch._dynamo.symbolic_convert import InstructionTranslator  # noqa: F401
        params = list(inspect.signature(OutputGraph.call_user_compiler).parameters)
        torch.fx.node.map_arg  # noqa: B018
    except (ImportError, AttributeError, ValueError) as error:
        return Probe("replays before a failure at run time", False, str(error))
    ok = params == ["self", "gm", "example_inputs"]
    return Probe("replays before a failure at run time", ok,
                 "" if ok else f"OutputGraph.call_user_compiler{tuple(params)}")


def _probe_number_formats() -> Probe:
    """Dynamo's f-string formatting of a traced number
    (``_format_value``, ``LazySymNodeFormatString``), which
    :func:`_format_dynamic_numbers_as_python_does` corrects; no rule needs
    it (without, such an f-string raises or is wrong as under Dynamo)."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase
        from torch._dynamo.variables.lazy import LazySymNodeFormatString, LazyVariableTracker  # noqa: F401
        params = list(inspect.signature(InstructionTranslatorBase._format_value).parameters)
        lazy = list(inspect.signature(LazySymNodeFormatString.__init__).parameters)
    except (ImportError, AttributeError, ValueError) as error:
        return Probe("number formats", False, str(error))
    ok = params == ["self", "fmt_spec", "flags"] and lazy == ["self", "sym_node_variable", "fmt_spec_var"]
    return Probe("number formats", ok, "" if ok else f"_format_value{tuple(params)}, LazySymNodeFormatString{tuple(lazy)}")


def _probe_graph_reuse() -> Probe:
    """Where Dynamo calls the backend (``OutputGraph._call_user_compiler``)
    and what :func:`graphmend.compat.reuse.graph_key` reads; no rule needs
    them (without, an identical graph compiles again, as in torch.compile)."""
    try:
        from torch._C._dynamo.guards import GlobalStateGuard
        from torch._dynamo.output_graph import OutputGraph
        from torch.fx.experimental.symbolic_shapes import free_symbols  # noqa: F401
        from torch.multiprocessing.reductions import StorageWeakRef  # noqa: F401
        from torch.overrides import _get_current_function_mode_stack  # noqa: F401
        from torch.utils._python_dispatch import _get_current_dispatch_mode_stack  # noqa: F401
        params = list(inspect.signature(OutputGraph._call_user_compiler).parameters)
        GlobalStateGuard().__getstate__()
        torch._dynamo.config.get_hash()
    except (ImportError, AttributeError, ValueError, TypeError) as error:
        return Probe("graph reuse", False, str(error))
    ok = params == ["self", "gm", "example_inputs"]
    return Probe("graph reuse", ok, "" if ok else f"OutputGraph._call_user_compiler{tuple(params)}")


def _untyped_variables() -> list[type]:
    """Dynamo's variable classes for loggers and string formatters that
    inherit ``VariableTracker.python_type`` (which raises): torch 2.11.
    Those :func:`_type_loggers_and_formatters` typed count too, so that
    installing again (a test's fresh start) sets the same flags."""
    from torch._dynamo.variables.base import VariableTracker
    from torch._dynamo.variables.misc import LoggingLoggerVariable, StringFormatVariable

    return [cls for cls in (LoggingLoggerVariable, StringFormatVariable)
            if getattr(cls, "python_type", None) is VariableTracker.python_type
            or getattr(cls.python_type, "graphmend_typed", False)]


def _probe_typed_variables() -> Probe:
    try:
        _untyped_variables()
    except (ImportError, AttributeError) as error:
        return Probe("logger and formatter types", False, f"torch._dynamo.variables: {error}", ("defer", "trap"))
    return Probe("logger and formatter types", True, rules=("defer", "trap"))


def _generic_id() -> bool:
    """Whether Dynamo's ``id()`` takes any variable backed by a real object
    (a logger included): torch 2.12 and later."""
    from torch._dynamo.variables.base import VariableTracker

    return hasattr(VariableTracker, "get_real_python_backed_value")


def _probe_identity_stacks() -> Probe:
    """Where Dynamo builds an identity guard and invalidates an entry whose
    guarded object was freed, and what a failed guard reports
    (:mod:`graphmend.compat.identity`); no rule needs them (without, a
    mended function that moves such a guard onto its caller's frame stays
    mended, and that frame is traced again at every call)."""
    try:
        from torch._C._dynamo.guards import GuardDebugInfo
        from torch._dynamo import eval_frame
        from torch._dynamo.guards import CheckFunctionManager, DeletedGuardManagerWrapper, GuardBuilder  # noqa: F401
        id_match = list(inspect.signature(GuardBuilder.id_match_unchecked).parameters)[:2]
        invalidate = list(inspect.signature(CheckFunctionManager.invalidate).parameters)
        found = hasattr(eval_frame, "_debug_get_cache_entry_list") and hasattr(GuardDebugInfo, "user_stack")
    except (ImportError, AttributeError, ValueError, TypeError) as error:
        return Probe("identity guard stacks", False, str(error))
    ok = found and id_match == ["self", "guard"] and invalidate == ["self", "obj_str"]
    return Probe("identity guard stacks", ok,
                 "" if ok else f"id_match_unchecked{tuple(id_match)}, invalidate{tuple(invalidate)}")


PROBES: tuple[Callable[[], Probe], ...] = (
    _probe_reorderable, _probe_inlining, _probe_convert_frame, _probe_exec_strategy, _probe_typed_variables,
    _probe_loop_skips, _probe_function_variables, _probe_run_time_failures, _probe_number_formats,
    _probe_graph_reuse, _probe_identity_stacks,
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
    off.update(capture.disabled_rules())  # [Capture]'s probe and self-test live with it
    return off
