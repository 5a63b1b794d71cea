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
  (``ConvertFrame.__call__``): see :func:`_run_frames_eagerly_once`.
* Frame exec strategies (``set_code_exec_strategy``): the runtime's
  functions are never compiled as frames of their own.
* The functions Dynamo meets (``UserFunctionVariable.__init__``) and the
  frames it starts: :func:`await_mending` lets graphmend.compile's first
  call start before every rewrite is in, finishing each as Dynamo meets
  its function.  No rule needs it: where its probe fails, the call waits.
* Types of loggers and string formatters while tracing: torch 2.11's
  ``LoggingLoggerVariable`` and ``StringFormatVariable`` have no
  ``python_type``, so ``isinstance(logger, logging.Logger)`` and
  ``isinstance(f"...", torch.Tensor)`` break the graph (GB0175).
  :func:`_type_loggers_and_formatters` gives them torch 2.12's own
  ``python_type``.  Dynamo's ``id()`` of a logger also breaks on 2.11, so
  the runtime hands a logger to its replay by name there
  (:func:`logger_key`), and iterating a module's ``__dict__`` breaks, so
  ``store_buffer`` re-registers instead of proving the copy safe
  (``TRACES_MODULE_DICT``).
* The graph-break registry that ships in the wheel
  (``torch/_dynamo/graph_break_registry.json``): :func:`graph_break_id`.
* Automatic dynamic shapes' memory (``torch._dynamo.pgo``'s code state):
  :func:`isolated_code_state` lets a diagnosis start from it as a fresh
  process does, and leave it as it found it.
* The break inside a loop that makes Dynamo run a whole frame eagerly
  (``InstructionTranslatorBase.raise_loop_graph_break``), which Dynamo
  records nowhere: :func:`_record_frames_run_eagerly` keeps it
  (:func:`frames_run_eagerly`) for diagnoses.  No rule needs it: where
  its probe fails, nothing is off and such frames show no break, as in
  ``torch._dynamo.explain``.
* The root translator's list of replayed calls (``debug_locals``) and the
  hook where a graph goes to the backend
  (``OutputGraph.call_user_compiler``): :mod:`.failures_at_run_time`
  makes the calls a graph recorded before an operation that raises while
  it runs.  No rule needs it: where its probe fails, such a graph loses
  what it deferred, as Dynamo runs it.
* Dynamo's f-string formatting of a number it traces as a symbol
  (``InstructionTranslatorBase._format_value``): torch 2.13 and 2.14
  rebuild or format it wrongly (:func:`_format_dynamic_numbers_as_python_does`).
  No rule needs it: where its probe fails, such an f-string is formatted
  as Dynamo formats it.
* Where Dynamo calls the backend (``OutputGraph._call_user_compiler``):
  inside graphmend.compile's calls, a graph identical to one its backend
  compiled before gets what the backend made of that one
  (:mod:`.reuse`).  No rule needs it: where its probe fails, the graph
  compiles again, as in torch.compile.
* Where an identity guard was installed (``GuardBuilder.id_match_unchecked``,
  ``CheckFunctionManager.invalidate``) and which guard a frame's entry
  fails (``check_verbose``). With them, :mod:`.identity` tells
  graphmend.compile which mended function moved a guard on an object
  built per call into its caller's frame. No rule needs them: where the
  probe fails, such a function stays mended, and Dynamo traces its
  caller's frame again at every call, up to the recompile limit.
* What a diagnosis counts (:func:`graph_break_reasons`,
  :func:`graphs_compiled`, :func:`guard_failures`) and how it keeps its
  compiled entries apart from the user's (:func:`compiled_codes`,
  :func:`reset_code`, :func:`private_compile_options`),
  as ``torch._dynamo.explain`` reads them.

:func:`install` applies what the probes allow, once, when the runtime is
first imported (by the first mend or compile, or by rewritten code) --
never at ``import graphmend`` or ``import graphmend.compat`` -- and leaves
code that is not rewritten as Dynamo
would run it.  :func:`self_test` then checks the result end to end.  A
probe or a self-test that fails turns the rules that depend on it off with
one warning naming the torch version (:func:`disabled_rules` says which and
why), so a message or a check is never dropped silently.

One module per concern: :mod:`.probing` (the probes, and which rules are
off), :mod:`.patches`, :mod:`.selftest`, :mod:`.installation` (both, once
per process), :mod:`.tracing` (what the runtime asks of Dynamo while
traced), :mod:`.failures_at_run_time` (a graph that fails while it
runs), :mod:`.reuse` (a graph identical to one compiled before),
:mod:`.identity` (an identity guard on an object built per call),
:mod:`.counters` (what a diagnosis reads) and :mod:`.registry`
(graph-break ids).  compat imports nothing of graphmend but
:mod:`graphmend.conventions`; the runtime hands itself to :func:`install`
for the self-test.
"""

from __future__ import annotations

from graphmend.compat import tracing
from graphmend.compat.counters import (COMPILE_RANGE_SUFFIX, compiled_codes, compiled_entry_count, frames_run_eagerly,
                                       graph_break_reasons, graphs_compiled, guard_failures,
                                       has_compiled_entries, isolated_code_state, private_compile_options,
                                       reset_code, what_dynamo_calls)
from graphmend.compat.installation import install, installed, rules_off
from graphmend.compat.calls import GraphmendCall
from graphmend.compat.headroom import RoomWhereItPays
from graphmend.compat.identity import kept_original_at
from graphmend.compat.patches import await_mending, awaits_mending, is_rewritten, mending_first, mends_first
# _state is imported for the tests that reset it.
from graphmend.compat.probing import PROBES, Probe, _state, disabled_rules, probes  # noqa: F401
from graphmend.compat.registry import graph_break_entry, graph_break_id, graph_break_registry
from graphmend.compat.reuse import CompiledGraphs
from graphmend.compat.selftest import SELF_TEST_RULES, self_test, warm_up
from graphmend.compat.tracing import (attribute_stores_pending, constant_result, effects_mark, effects_pending,
                                      effects_since, find_logger, nested_graph_breaks, reads_an_unread_argument,
                                      UNREAD_ARGUMENT, UNREAD_ARGUMENT_SITES,
                                      graph_break, is_logger, logger_key, register_replay, skip_frames, stores_pending)

__all__ = [
    "COMPILE_RANGE_SUFFIX", "CompiledGraphs", "GraphmendCall", "Probe", "PROBES", "SELF_TEST_RULES", "UNREAD_ARGUMENT",
    "UNREAD_ARGUMENT_SITES",
    "attribute_stores_pending",
    "await_mending", "awaits_mending",
    "compiled_codes", "compiled_entry_count",
    "constant_result", "disabled_rules", "effects_mark", "effects_pending", "effects_since", "find_logger",
    "frames_run_eagerly",
    "graph_break", "graph_break_entry", "graph_break_id", "graph_break_reasons", "graph_break_registry",
    "graphs_compiled", "guard_failures", "has_compiled_entries", "install", "installed", "is_logger",
    "is_rewritten", "isolated_code_state", "kept_original_at", "logger_key", "mending_first", "mends_first",
    "nested_graph_breaks",
    "private_compile_options", "probes", "reads_an_unread_argument", "register_replay", "reset_code", "RoomWhereItPays",
    "rules_off",
    "self_test", "skip_frames", "stores_pending", "warm_up", "what_dynamo_calls",
]

#: What :func:`install` found on this torch, read where it was set
#: (:mod:`.tracing`), since install sets them after this module is imported.
_FOUND = ("LOGGER_BY_NAME", "TRACES_MODULE_DICT")


def __getattr__(name: str):
    if name in _FOUND:
        return getattr(tracing, name)
    raise AttributeError(f"module 'graphmend.compat' has no attribute {name!r}")
