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
* Types of loggers and string formatters while tracing: torch 2.11's
  ``LoggingLoggerVariable`` and ``StringFormatVariable`` have no
  ``python_type``, so ``isinstance(logger, logging.Logger)`` and
  ``isinstance(f"...", torch.Tensor)`` break the graph (GB0175).
  :func:`_type_loggers_and_formatters` gives them torch 2.12's own
  ``python_type``.  Dynamo's ``id()`` of a logger also breaks on 2.11, so
  the runtime hands a logger to its replay by name there
  (:func:`logger_key`), and iterating a module's ``__dict__`` breaks, so
  ``store_buffer`` re-registers instead of proving the copy safe
  (:data:`TRACES_MODULE_DICT`).
* The graph-break registry that ships in the wheel
  (``torch/_dynamo/graph_break_registry.json``): :func:`graph_break_id`.
* Automatic dynamic shapes' memory (``torch._dynamo.pgo``'s code state):
  :func:`isolated_code_state` lets a diagnosis start from it as a fresh
  process does, and leave it as it found it.
* What a diagnosis counts (:func:`graph_break_reasons`,
  :func:`graphs_compiled`, :func:`guard_failures`) and how it keeps its
  compiled entries apart from the user's (:func:`compiled_codes`,
  :func:`reset_code`, :func:`profiling_backend`), as ``torch._dynamo.explain``
  reads them.

:func:`install` applies what the probes allow, once, on the first mend or
compile or when rewritten code first imports the runtime -- never at
``import graphmend`` -- and leaves code that is not rewritten as Dynamo
would run it.  :func:`self_test` then checks the result end to end.  A
probe or a self-test that fails turns the rules that depend on it off with
one warning naming the torch version (:func:`disabled_rules` says which and
why), so a message or a check is never dropped silently.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import json
import logging
import operator
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
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

#: Set by :func:`install`: the runtime hands a logger to its replay by name
#: (Dynamo's ``id()`` takes no logger: torch 2.11), not by ``id()``.
LOGGER_BY_NAME = False
#: Set by :func:`install`: Dynamo traces iterating an ``nn.Module``'s
#: ``__dict__`` (not on torch 2.11).
TRACES_MODULE_DICT = True


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


PROBES: tuple[Callable[[], Probe], ...] = (
    _probe_reorderable, _probe_inlining, _probe_convert_frame, _probe_exec_strategy, _probe_typed_variables,
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
    from graphmend import capture  # [Capture]'s probe and self-test live with it

    off.update(capture.disabled_rules())
    return off


def rules_off() -> dict[str, str]:
    """:func:`install`, then :func:`disabled_rules`: what a caller about to
    rewrite code or report on it asks."""
    install()
    return disabled_rules()


def installed() -> bool:
    """Whether :func:`install` has run (or is running) in this process."""
    return _state["installed"]


def install() -> None:
    """Apply the patches the probes allow, then run :func:`self_test`
    (once per process: on the first mend or compile, or when rewritten code
    first imports the runtime).  A probe or a self-test check that fails
    turns its rules off with one warning naming the torch version."""
    global LOGGER_BY_NAME, TRACES_MODULE_DICT
    with _LOCK:
        if _state["installed"]:
            return
        _state["installed"] = True
        results = {probe.name: probe for probe in probes()}
        if results["inlined replays"].ok:
            _share_replays_with_inlined_calls()
        if results["eager fallback"].ok:
            _run_failing_mended_frames_eagerly()
        if results["logger and formatter types"].ok:
            untyped = _untyped_variables()
            _type_loggers_and_formatters(untyped)
            LOGGER_BY_NAME = bool(untyped) or not _generic_id()
            TRACES_MODULE_DICT = not untyped
        if not any(rule in disabled_rules() for rule in ("defer", "trap")):
            _state["self_test"] = self_test()
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


@torch._dynamo.assume_constant_result
def attribute_stores_pending() -> bool:
    """Whether the frame Dynamo is tracing has, so far, stored into an
    object's attribute or read its ``__dict__`` (a constant of the trace,
    taken while tracing).

    Dynamo 2.13 and 2.14 trace a ``torch.cond`` or ``torch.while_loop`` by
    speculating its functions, then put back a copy of the side effects it
    had recorded before.  An object's ``__dict__`` proxy (Dynamo's
    ``SideEffectsProxyDict``, made by the first store, ``del``, ``vars()``
    or ``__dict__`` read) keeps the side effects of the moment it was
    made, so every attribute store through it after that point is lost
    (``ns.a = x``, ``torch.cond(...)``, ``ns.v = y``: ``ns.v`` is never
    set), a closure's cell excepted.  Without graphmend, ``torch.cond``
    shows it too (fixed upstream by pytorch/pytorch#195954).  On a torch
    whose internals differ, every frame counts as having stored (the
    runtime then traces no higher-order op)."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        side_effects = InstructionTranslator.current_tx().output.side_effects
        # A closure's cells keep their stores (and the runtime's own closures make cells).
        return any(
            stores and type(owner).__name__ != "CellVariable"
            for owner, stores in side_effects.store_attr_mutations.items()
        ) or any(vars(variable).get("dict_vt") is not None for variable in side_effects.id_to_variable.values())
    except Exception:  # noqa: BLE001 - another torch's internals: be safe
        return True


@torch._dynamo.assume_constant_result
def effects_pending() -> bool:
    """Whether the frame Dynamo is tracing has, so far, anything to do
    after its graph (a constant of the trace, taken while tracing): a store
    into an object, list or dict that existed before the frame, a closure
    cell it did not make, a tensor hook, or a replayed call (graphmend's
    deferred messages, effects and checks); or an update in place in the
    graph (a compiler may write an input back only at the graph's end).
    What the frame made itself (a new object, the cells of its own
    closures) is unreachable once the graph raises, so it does not count.
    On a torch whose internals differ, every frame counts as having
    effects."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx()
        side_effects = tx.output.side_effects
        return bool(
            tx.debug_locals
            or side_effects.tensor_hooks
            or side_effects.save_for_backward
            or any(_updates_in_place(node) for node in tx.output.graph.nodes)
            or _stores_into_older_objects(side_effects)
        )
    except Exception:  # noqa: BLE001 - another torch's internals: be safe
        return True


@torch._dynamo.assume_constant_result
def stores_pending() -> bool:
    """Whether the frame Dynamo is tracing has, so far, stored into an
    object, list, dict, global or closure cell that existed before the
    frame (a constant of the trace, taken while tracing).  Dynamo applies
    such stores after the graph's replayed calls, so a deferred check that
    raises would lose them, where the original raised after they were made.
    What the frame made itself is unreachable once the check raises.  On a
    torch whose internals differ, every frame counts as having stored."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        return _stores_into_older_objects(InstructionTranslator.current_tx().output.side_effects)
    except Exception:  # noqa: BLE001 - another torch's internals: be safe
        return True


def _stores_into_older_objects(side_effects) -> bool:
    from torch._dynamo.variables.base import AttributeMutationNew, ValueMutationNew

    return any(
        side_effects.is_modified(variable)
        and not isinstance(variable.mutation_type, (AttributeMutationNew, ValueMutationNew))
        for variable in side_effects.id_to_variable.values()
    )


def _updates_in_place(node) -> bool:
    """Whether an FX node Dynamo recorded may update a tensor in place
    (any tensor: which ones existed before the graph is not worth proving).
    PyTorch's in-place naming is spelled here again, not taken from
    ``graphmend.analysis.api``: the runtime imports torch alone."""
    if node.op == "call_method":
        return node.target.endswith("_") and not node.target.endswith("__")
    if node.op != "call_function":
        return False
    schema = getattr(node.target, "_schema", None)
    name = getattr(node.target, "__name__", "")
    return (
        node.target is operator.setitem
        or "out" in node.kwargs
        or node.kwargs.get("inplace") is True
        or (name.endswith("_") and not name.endswith("__"))
        or (schema is not None and schema.is_mutable)
    )


def is_logger(value: object) -> bool:
    """``isinstance(value, logging.Logger)``, in a form Dynamo traces
    (on torch 2.11 once :func:`_type_loggers_and_formatters` is installed)."""
    return isinstance(value, logging.Logger)


def logger_key(logger: logging.Logger):
    """What the runtime hands to a replay to name ``logger``: its ``id()``
    (a constant Dynamo guards by identity), or where Dynamo's ``id()`` takes
    no logger (torch 2.11) its name, as a string formatter Dynamo formats
    from the real logger when the call is replayed."""
    if LOGGER_BY_NAME:
        return f"{logger.name}"
    return id(logger)


def find_logger(key) -> logging.Logger:
    """The registered logger :func:`logger_key` named."""
    if type(key) is str:
        found = logging.root if key == "root" else logging.Logger.manager.loggerDict.get(key)
        if isinstance(found, logging.Logger):
            return found
    else:
        # A replayed call's logger is alive (Dynamo's identity guard just
        # held it), so its id names it; loggers made by getLogger are all
        # registered.
        for found in (logging.root, *logging.Logger.manager.loggerDict.values()):
            if id(found) == key:
                return found
    raise LookupError("graphmend: a deferred log call's logger is not registered with logging.getLogger")


# -- the graph-break registry ----------------------------------------------------------------

_GB_LINK = re.compile(r"/gb/gb(\d+)\.html")


# -- what a diagnosis reads --------------------------------------------------------------------
# Dynamo's own counters and caches, as ``torch._dynamo.explain`` reads them:
# no public API gives a break's reason with its user stack, or resets one
# code object's compiled entries.


def graph_break_reasons() -> list[Any]:
    """Every graph break Dynamo has recorded in this process, oldest first
    (each with ``reason`` and ``user_stack``)."""
    from torch._dynamo import output_graph

    return output_graph.graph_break_reasons


def graphs_compiled() -> int:
    """How many graphs Dynamo has handed to any backend in this process."""
    from torch._dynamo.utils import counters

    return counters["stats"]["unique_graphs"]


def guard_failures() -> dict[Any, list[str]]:
    """Per code object, the guard failures that made Dynamo recompile it."""
    from torch._dynamo.utils import guard_failures as failures

    return failures


def profiling_backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
    """A backend that runs the graph as plain FX code inside a ``TORCHDYNAMO``
    profiler range."""
    from torch._dynamo.profiler import fx_insert_profiling

    return fx_insert_profiling(gm, example_inputs)


def compiled_codes() -> list[Any]:
    """The code objects Dynamo has been asked to compile and that still live."""
    from torch._dynamo import convert_frame

    return [code for ref in convert_frame.input_codes.seen if (code := ref()) is not None]


def has_compiled_entries(code) -> bool:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return bool(_debug_get_cache_entry_list(code))


def reset_code(code) -> None:
    """Forget ``code``'s compiled entries and Dynamo's decisions about it."""
    from torch._dynamo.eval_frame import reset_code as reset

    reset(code)


@contextlib.contextmanager
def isolated_code_state() -> Iterator[None]:
    """Within: Dynamo's automatic-dynamic memory as a fresh process has it;
    after: the memory as it was, untouched.

    Dynamo remembers, per code (``torch._dynamo.pgo``'s code state), which
    sizes a recompile saw change, and compiles that code with those sizes
    dynamic from then on, even after its compiled entries are reset.  A
    second diagnosis of code whose sizes change inside one call (a
    recursion on fewer rows: entmax) thus counted fewer graphs than the
    first, and a diagnosis after mending looked like a gain.  Where this
    torch keeps no such state, nothing is done."""
    try:
        from torch._dynamo import pgo
    except ImportError:
        pgo = None
    if pgo is None or not hasattr(pgo, "_CODE_STATE"):
        yield
        return
    saved = pgo._CODE_STATE
    pgo._CODE_STATE = None  # made anew on first use, as in a fresh process
    try:
        yield
    finally:
        pgo._CODE_STATE = saved


@functools.lru_cache(maxsize=1)
def graph_break_registry() -> dict[str, list[dict[str, Any]]]:
    """Dynamo's graph-break registry as shipped in the wheel
    (``torch/_dynamo/graph_break_registry.json``: id -> its entries, the
    first the current one); empty where the wheel has none."""
    path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
    try:
        with open(path, encoding="utf-8") as file:
            registry = json.load(file)
    except (OSError, ValueError):
        return {}
    return registry if isinstance(registry, dict) else {}


@functools.lru_cache(maxsize=1)
def _ids_by_gb_type() -> dict[str, str]:
    ids: dict[str, str] = {}
    for gb_id, entries in sorted(graph_break_registry().items()):
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("Gb_type"), str):
                ids.setdefault(entry["Gb_type"], gb_id)
    return ids


#: Reasons Dynamo records without a gb_type: a data-dependent jump's reason
#: is ``generic_jump TensorVariable()`` (its fullgraph error says
#: "Data-dependent branching").
_REASONS_WITHOUT_GB_TYPE = {"generic_jump": "Data-dependent branching"}


def graph_break_id(reason: str) -> str | None:
    """Dynamo's id (``"GB0170"``) of a break, from a ``GraphCompileReason``'s
    text: the registry link in it, else its first line (the gb_type) looked
    up in the registry; None when the registry does not know it."""
    link = _GB_LINK.search(reason)
    if link:
        return f"GB{int(link.group(1)):04d}"
    headline = reason.strip().split("\n", 1)[0].strip()
    for prefix, gb_type in _REASONS_WITHOUT_GB_TYPE.items():
        if headline.startswith(prefix):
            headline = gb_type
    return _ids_by_gb_type().get(headline)


def graph_break_entry(gb_id: str, gb_type: str | None = None) -> dict[str, Any] | None:
    """The registry's entry for ``gb_id`` (the one whose gb_type is
    ``gb_type`` where an id has several), with keys ``Gb_type``,
    ``Context``, ``Explanation`` and ``Hints``."""
    entries = [e for e in graph_break_registry().get(gb_id) or () if isinstance(e, dict)]
    if not entries:
        return None

    def plain(text: Any) -> bool:
        # Some entries hold the source text of an expression
        # ("_explanation", '"Detected ..." + trace_info'), not its value.
        return isinstance(text, str) and bool(text) and not text.startswith(("_", '"', "'", 'f"'))

    def score(entry: dict[str, Any]) -> tuple[bool, bool, bool]:
        return (gb_type is None or entry.get("Gb_type") == gb_type, plain(entry.get("Explanation")),
                bool(entry.get("Hints")))

    # The first of the best: an entry for this gb_type, its text expanded.
    return max(entries, key=score)


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
        shared = self.parent.debug_locals
        if isinstance(shared, _OthersReplays):
            shared = shared.shared
        if not _is_ours(self.f_code):
            # Other code's own calls stay as Dynamo makes them (dropped when
            # inlined), but rewritten code it calls in turn (a helper called
            # through a function that is not rewritten) must still reach
            # the list that is replayed.
            if self.output.is_root_tracer() and shared is not None:
                self.debug_locals = _OthersReplays(shared, self.debug_locals)
            return
        if self.output.is_root_tracer():
            self.debug_locals = shared
        else:
            self.debug_locals = _ReplaysInSubgraph()

    __init__._graphmend_shares_replays = True
    InliningInstructionTranslator.__init__ = __init__


def _type_loggers_and_formatters(untyped: list[type]) -> None:
    """Give Dynamo's logger and string-formatter variables the
    ``python_type`` torch 2.12 gives them (its own code), where they have
    none (torch 2.11): then ``isinstance(logger, logging.Logger)`` (the
    runtime's :func:`is_logger`) and the runtime's type tests on an
    f-string's value trace instead of breaking the graph (GB0175).  On
    2.11 this also lets such a test in code that is not rewritten trace,
    as it does on 2.12 and later."""
    from torch._dynamo.variables.misc import StringFormatVariable

    for cls in untyped:
        if cls is StringFormatVariable:
            cls.python_type = lambda self: str
        else:
            cls.python_type = lambda self: type(self.value)
        cls.python_type.graphmend_typed = True


class _OthersReplays(list):
    """``debug_locals`` of inlined code that is not rewritten: its own calls
    go to its own list (as without graphmend), while ``shared`` is the
    list that rewritten code it inlines records into."""

    def __init__(self, shared: list, own: list) -> None:
        super().__init__(own)
        self.shared = shared


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
    # ``skip_reason`` is a field from torch 2.13 on (a TypeError before).
    extra = {}
    if "skip_reason" in inspect.signature(ConvertFrameReturn).parameters:
        extra["skip_reason"] = "graphmend: the rewritten code fails; it runs eagerly"

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
                **extra,
            )
        finally:
            _TRACE.mended = outer

    __call__._graphmend_runs_failing_frames = True
    convert_frame.ConvertFrame.__call__ = __call__


# -- the self-test -----------------------------------------------------------------------------

#: Rewritten code as the rules write it: a deferred print inside an inlined
#: helper, a deferred log call and a deferred check.  Compiled afresh from
#: this text by each :func:`self_test`, so its code objects (and the cache
#: entries Dynamo keeps on them) are its own and die with it.
_SELF_TEST_SOURCE = """
def helper(x):
    _graphmend.deferred_print("graphmend self-test", x, stream="_graphmend_self_test")
    return x + 1

def printed(x):
    return helper(x) * 2

def logged(x):
    _graphmend.deferred_log(logger, "warning", "graphmend self-test %s", x)
    return x * 2

def checked(x):
    if _graphmend.deferred_check((x > 0).any(), "ValueError", "graphmend.compat", lambda: ("graphmend self-test",)):
        raise ValueError("graphmend self-test")
    return x * 2

def everything(x):
    y = printed(x)
    logged(x)
    return checked(y)
"""

#: check -> the rules that cannot work without it.
SELF_TEST_RULES = {
    "a deferred print inside an inlined helper is replayed once": ("defer", "trap"),
    "a deferred log call keeps its logger and level": ("defer",),
    "a deferred check raises the exact exception": ("trap",),
}


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def self_test() -> dict[str, str]:
    """Check end to end, under ``torch.compile(backend="eager",
    fullgraph=True)``, that the runtime's deferred calls work on this torch:
    a deferred print inside an inlined helper is replayed once, a deferred
    check raises the exact exception, a deferred log call keeps its logger
    and level.  Returns rule -> why it is off (empty when all pass).

    One compile of one function when everything works; the checks are
    compiled one by one only to tell which failed.  The functions are
    compiled from source each time (fresh code objects) and their cache
    entries are dropped afterwards; ``torch._dynamo.reset()`` is not used,
    so the user's compiled code is untouched, and Dynamo's graph counter
    and break list are left as they were.
    """
    if torch.compiler.is_compiling():  # never while Dynamo traces
        return {}
    from torch._dynamo import output_graph
    from torch._dynamo.utils import counters

    from graphmend import runtime

    logger_name = "graphmend.self_test"
    test_logger = logging.getLogger(logger_name)
    namespace: dict[str, Any] = {"_graphmend": runtime, "logger": test_logger, "__name__": "graphmend.compat"}
    exec(compile(_SELF_TEST_SOURCE, "<graphmend self-test>", "exec"), namespace)  # noqa: S102 -- our own constant source
    codes = [namespace[name].__code__ for name in ("helper", "printed", "logged", "checked", "everything")]

    graphs_before = counters["stats"]["unique_graphs"]
    breaks_before = len(output_graph.graph_break_reasons)
    handler = _Records()
    saved = test_logger.handlers[:], test_logger.propagate, test_logger.level, test_logger.disabled
    test_logger.handlers[:] = [handler]
    test_logger.propagate, test_logger.disabled = False, False
    test_logger.setLevel(logging.DEBUG)
    x = torch.ones(2)
    expected_print = f"graphmend self-test {x}\n"
    expected_message = f"graphmend self-test {x}"

    def run(function) -> tuple[str, BaseException | None]:
        # The print goes to a stream of its own (``sys._graphmend_self_test``),
        # so other threads' output is never caught here.
        handler.records.clear()
        out = io.StringIO()
        sys._graphmend_self_test = out
        try:
            torch.compile(function, backend="eager", fullgraph=True)(x.clone())
        except BaseException as error:  # noqa: BLE001 -- reported, not raised
            return out.getvalue(), error
        finally:
            del sys._graphmend_self_test
        return out.getvalue(), None

    def check_print(out: str, error: BaseException | None) -> str | None:
        if out != expected_print:
            return f"printed {out!r}, expected {expected_print!r}"
        return None

    def check_log() -> str | None:
        records = [(r.name, r.levelno, r.getMessage()) for r in handler.records]
        expected = [(logger_name, logging.WARNING, expected_message)]
        return None if records == expected else f"logged {records!r}, expected {expected!r}"

    def check_raise(error: BaseException | None) -> str | None:
        if type(error) is ValueError and error.args == ("graphmend self-test",):
            return None
        return f"raised {_describe(error)}" if error else "raised nothing"

    failures: dict[str, str] = {}
    try:
        out, error = run(namespace["everything"])
        combined = check_print(out, error) or check_log() or check_raise(error)
        if combined:
            names = list(SELF_TEST_RULES)
            for name, function, verdict in (
                (names[0], "printed", lambda out, error: _describe(error) or check_print(out, error)),
                (names[1], "logged", lambda out, error: _describe(error) or check_log()),
                (names[2], "checked", lambda out, error: check_raise(error)),
            ):
                why = verdict(*run(namespace[function]))
                if why:
                    failures[name] = why
            if not failures:  # each passes alone: the combination fails
                failures[names[0]] = f"the checks fail together: {combined}"
    except Exception as error:  # noqa: BLE001 -- the self-test itself must not fail the mend
        failures = {name: f"the self-test failed: {type(error).__name__}: {error}" for name in SELF_TEST_RULES}
    finally:
        test_logger.handlers[:], test_logger.propagate, _, test_logger.disabled = saved
        test_logger.setLevel(saved[2])
        _forget(codes)
        counters["stats"]["unique_graphs"] = graphs_before
        del output_graph.graph_break_reasons[breaks_before:]

    off: dict[str, str] = {}
    for name, why in failures.items():
        for rule in SELF_TEST_RULES[name]:
            off.setdefault(rule, f"self-test: {name} failed ({why}) (torch {torch.__version__})")
    return off


def _describe(error: BaseException | None) -> str | None:
    if error is None:
        return None
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__


def _forget(codes) -> None:
    """Drop Dynamo's cache entries for the self-test's code objects."""
    try:
        from torch._dynamo.eval_frame import reset_code
    except ImportError:
        return
    for code in codes:
        reset_code(code)
