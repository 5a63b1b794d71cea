"""The patches to Dynamo, applied by :func:`graphmend.compat.install` when
their probe passes, each leaving code that is not rewritten as Dynamo
would run it: replays inside inlined rewritten code, failing frames of
rewritten code run eagerly, frames that break where graphmend is about to
mend run eagerly once (:func:`mending_first`), the types of loggers
and formatters while tracing (torch 2.11), the breaks in loops that
make Dynamo run a whole frame eagerly, kept for diagnoses, the
functions Dynamo meets while rewrites are awaited (:func:`await_mending`),
the replayed calls a graph that fails while it runs recorded before
the failure, and an f-string's traced number, which Dynamo formats
wrongly (:func:`_format_dynamic_numbers_as_python_does`, which changes
code that is not rewritten only where Dynamo raised or built another
string); and, inside graphmend.compile's calls only, a frame Dynamo
itself fails on, which runs eagerly instead of raising where eager runs,
and a graph identical to one compiled before, which is not compiled again
(:class:`GraphmendCall`)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import logging
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any


from graphmend.compat.calls import FAILED_IN_A_CALL_THAT_RETURNED, GraphmendCall, graphmend_calls
from graphmend.compat.counters import FRAMES_RUN_EAGERLY, FrameRunEagerly
from graphmend.compat.failures import MendFirst, caused_by
from graphmend.compat.failures_at_run_time import FailurePlan, Replays, replaying_on_failure
from graphmend.compat import identity
from graphmend.compat.tracing import RUNTIME_FILES
from graphmend.conventions import RUNTIME_ALIAS


logger = logging.getLogger("graphmend")


def is_rewritten(code) -> bool:
    """Whether ``code`` calls graphmend's runtime (as rewritten code does)."""
    return RUNTIME_ALIAS in code.co_names


def _is_ours(code) -> bool:
    """Whether ``code`` is rewritten code or one of the runtime's functions."""
    return is_rewritten(code) or code.co_filename in RUNTIME_FILES


@dataclasses.dataclass
class _MetFirst:
    """A code a watched call traced and ran eagerly because it breaks where
    graphmend mends next."""

    code: Any
    #: What Dynamo's automatic dynamic remembered of it after its last trace.
    memory: str
    traces: int = 1
    #: Whether it now runs eagerly, untraced, until the watch ends (its last
    #: trace taught automatic dynamic nothing new, or it was traced the most times).
    eager: bool = False


class _Trace(threading.local):
    #: Whether the frame Dynamo is converting on this thread, or a function
    #: it inlined, is rewritten code.
    mended = False
    #: The code of the frame Dynamo is converting on this thread.
    code: Any = None
    #: While a call is watched for sites to mend (:func:`mending_first`):
    #: whether a graph break (its ``GraphCompileReason``) is at one.
    mendable: Callable[[Any], bool] | None = None
    #: While a call is watched: id(code) -> what its traces that met a site
    #: to mend did (by identity: equal code objects may be two functions).
    mended_first: dict[int, _MetFirst] | None = None
    #: While a call is watched: given such a break and the code of the frame
    #: being traced, mends the break's site at once where the frame's code
    #: does not hold it; whether the frame is to be traced again, or None
    #: where the rules leave the site as it is (the trace goes on).
    mend_now: Callable[[Any, Any], bool | None] | None = None


#: Whether :func:`_run_frames_eagerly_once` could watch graph breaks on this torch.
MENDS_FIRST = False
#: Whether :func:`_tell_functions_met` is installed.
TELLS_FUNCTIONS_MET = False
#: While rewrites are awaited (:func:`await_mending`): told each function
#: Dynamo meets, and the code of each frame it is about to convert.
_MET: Callable[[Any], bool] | None = None


def awaits_mending() -> bool:
    """Whether :func:`await_mending` works on this torch."""
    return TELLS_FUNCTIONS_MET


def await_mending(met: Callable[[Any], bool] | None) -> None:
    """From now on (until called with None), ``met(function)`` is called
    with each Python function Dynamo meets before it reads the function's
    code, and ``met(code)`` with the code of each frame Dynamo is about to
    convert; a frame for which it returns True runs eagerly this once, with
    what it calls (its code was out of date: the next call compiles the
    code it has now).  graphmend.compile's first call finishes the
    rewrites of functions it reaches only where Dynamo meets them."""
    global _MET
    _MET = met


def _tell(met: Callable[[Any], bool], obj: Any) -> bool:
    try:
        return met(obj)
    except Exception:  # a bug in graphmend must not break the trace: the code stays as it is
        logger.warning("graphmend: finishing the mending of %r failed", obj, exc_info=True)
        return False


def _tell_identity_misses(told: Callable[[list[Any]], Any], frame: Any) -> None:
    """Tell ``told`` the stacks of the identity guards the entries compiled
    for ``frame``'s code failed, if any: before the frame is traced again,
    so that the trace meets what ``told`` changes."""
    try:
        stacks = identity.identity_misses(frame.f_code, frame.f_locals)
        if stacks:
            told(stacks)
    except Exception:  # a bug in graphmend must not break the trace: the code stays as it is
        logger.warning("graphmend: reading the identity guards of %s failed", frame.f_code.co_name, exc_info=True)


def _mended_now(mend_now: Callable[[Any, Any], bool | None], reason: Any, code: Any) -> bool | None:
    try:
        return mend_now(reason, code)
    except Exception:  # a bug in graphmend must not break the trace: the frame runs eagerly, as before
        logger.warning("graphmend: mending the site %s meets at once failed", code.co_name, exc_info=True)
        return False


def _reuse_identical_graphs() -> None:
    """Inside a graphmend call (:class:`GraphmendCall`), a graph identical
    to one its backend compiled before gets what the backend made of that
    one (:mod:`graphmend.compat.reuse`), below the wrappers each frame puts
    around its own (replays, [Capture]'s checks)."""
    from torch._dynamo.output_graph import OutputGraph

    original = OutputGraph._call_user_compiler

    @functools.wraps(original)
    def _call_user_compiler(self, gm, example_inputs):
        calls = graphmend_calls()
        graphs = calls[0].graphs if calls else None
        if graphs is None:
            return original(self, gm, example_inputs)
        return graphs.compile(self.compiler_fn, gm, example_inputs, lambda: original(self, gm, example_inputs))

    OutputGraph._call_user_compiler = _call_user_compiler


def mends_first() -> bool:
    """Whether :func:`mending_first` works on this torch (installed, and
    Dynamo's ``GraphCompileReason`` has the hook it needs)."""
    return MENDS_FIRST


@contextlib.contextmanager
def mending_first(mendable: Callable[[Any], bool],
                  mend_now: Callable[[Any, Any], bool | None] | None = None) -> Iterator[None]:
    """While open, on this thread: a frame whose trace meets a graph break
    that ``mendable(reason)`` accepts (a ``GraphCompileReason``: the
    reason and the user stack) is not compiled but run eagerly, this once;
    or, where ``mend_now(reason, code)`` (``code``: the frame's) mended the
    break's site in a function the frame calls, it is traced again at once,
    with that function's mended code; or, where it returns None (the rules
    leave the site as it is), the trace goes on and Dynamo places the break
    as it would without graphmend.  ``mend_now`` runs while the trace
    waits at the break, before Dynamo traces the frame again to place it
    (transformers' ``generate`` was traced three times for a site the
    rules decline, where torch.compile traces it twice).

    The first calls of ``graphmend.compile``'s callable mend the fixable
    breaks they meet, and the next call compiles the mended code: what
    Dynamo compiled for the frames holding those sites would be thrown
    away (an ODE solver's step compiled 10 graphs where torch.compile
    compiles 8).  Eager code is the code the break would have run anyway,
    and the next call compiles the frame, mended or not.

    Within the call, such a frame is traced again only while its traces
    teach Dynamo which of its inputs change between calls (automatic
    dynamic: the frame compiled later is then not specialised to one value
    and compiled again for the next), and at most
    :data:`MOST_TRACES_PER_WATCH` times; later calls of its code run
    eagerly, untraced.  xitorch's Adam minimiser calls its stopping test 90
    times in a call, each a trace thrown away (first call 5.5 s; 2.5 s
    traced once, but tntorch's `truncated_svd`, resumed after `start =
    time.time()` and called on cores of several shapes, then compiled 23
    graphs for 21).  When the watch ends, Dynamo treats those codes as
    before."""
    outer = _TRACE.mendable, _TRACE.mended_first, _TRACE.mend_now
    _TRACE.mendable, _TRACE.mended_first, _TRACE.mend_now = mendable, {}, mend_now
    try:
        yield
    finally:
        _trace_again([met.code for met in _TRACE.mended_first.values() if met.eager])
        _TRACE.mendable, _TRACE.mended_first, _TRACE.mend_now = outer


#: The most times a watched call traces a frame that breaks where graphmend
#: mends next (Dynamo's own recompile limit).
MOST_TRACES_PER_WATCH = 8


def _dynamic_memory(code: Any) -> str:
    """What Dynamo's automatic dynamic remembers of ``code``'s inputs
    (``torch._dynamo.pgo``'s code state), as text; '' where this torch
    keeps no such memory."""
    try:
        from torch._dynamo import pgo
    except ImportError:
        return ""
    states = getattr(pgo, "_CODE_STATE", None) or {}
    return repr([state.automatic_dynamic for key, state in states.items()
                 if (getattr(key, "name", None), getattr(key, "firstlineno", None), getattr(key, "filename", None))
                 == (code.co_name, code.co_firstlineno, code.co_filename)])


def _met_breaking_where_mended_next(code: Any) -> bool:
    """Count a watched call's trace of ``code`` that met a site graphmend
    mends next; whether the code now runs eagerly until the watch ends (its
    trace taught automatic dynamic nothing new, or it was traced the most
    times)."""
    memory = _dynamic_memory(code)
    met = _TRACE.mended_first.get(id(code))
    if met is None:
        _TRACE.mended_first[id(code)] = _MetFirst(code, memory)
        return False
    met.traces += 1
    met.eager = memory == met.memory or met.traces >= MOST_TRACES_PER_WATCH
    met.memory = memory
    return met.eager


_TRACE = _Trace()


def _trace_again(codes: list[Any]) -> None:
    """Give ``codes``, run eagerly until now, back to Dynamo's default
    (the strategy a code has before its first conversion)."""
    if not codes:
        return
    from torch._C._dynamo.eval_frame import set_code_exec_strategy
    from torch._dynamo.types import FrameAction, FrameExecStrategy

    for code in codes:
        set_code_exec_strategy(code, FrameExecStrategy(FrameAction.DEFAULT, FrameAction.DEFAULT))


def _tell_functions_met() -> None:
    """Tell :func:`await_mending`'s callback each Python function Dynamo
    meets: ``UserFunctionVariable`` (methods and the functions of module
    calls, hooks and partials included) is built before anything reads
    the function's code, and a guard on its code is written when the
    trace ends."""
    global TELLS_FUNCTIONS_MET
    from torch._dynamo.variables.functions import UserFunctionVariable

    original = UserFunctionVariable.__init__
    if not getattr(original, "_graphmend_tells_functions_met", False):

        @functools.wraps(original)
        def __init__(self, fn, *args, **kwargs):
            met = _MET
            if met is not None:
                _tell(met, fn)
            original(self, fn, *args, **kwargs)

        __init__._graphmend_tells_functions_met = True
        UserFunctionVariable.__init__ = __init__
    TELLS_FUNCTIONS_MET = True


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


def _replay_before_failures_at_run_time() -> None:
    """Keep, for each graph that replays calls, what it needs to make those
    recorded before an operation that raises while the graph runs
    (:mod:`.failures_at_run_time`): the outermost translator's list of
    replayed calls notes where each was recorded, and the compiled graph
    handed back from the backend makes them when it raises.  Graphs that
    replay nothing are handed back as the backend made them."""
    from torch._dynamo.output_graph import OutputGraph
    from torch._dynamo.symbolic_convert import InstructionTranslator

    original = InstructionTranslator.__init__
    if getattr(original, "_graphmend_places_replays", False):
        return

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.debug_locals = Replays(self.output)

    __init__._graphmend_places_replays = True
    InstructionTranslator.__init__ = __init__
    user_compiler = OutputGraph.call_user_compiler

    @functools.wraps(user_compiler)
    def call_user_compiler(self, gm, example_inputs):
        # Planned before the backend, which may rewrite the graph in place (inductor's passes).
        plan = FailurePlan.of(gm, self.root_tx.debug_locals)
        return replaying_on_failure(user_compiler(self, gm, example_inputs), plan)

    OutputGraph.call_user_compiler = call_user_compiler


def _record_frames_run_eagerly() -> None:
    """Keep each graph break Dynamo meets inside a loop, where it gives up
    on the whole frame (torch 2.13's "graph break in loop": the frame runs
    eagerly and the break is recorded nowhere), in
    :data:`graphmend.compat.counters.FRAMES_RUN_EAGERLY`, so that a
    diagnosis can name the site instead of showing a frame with no graph
    and no break."""
    from torch._dynamo.symbolic_convert import InstructionTranslatorBase

    original = InstructionTranslatorBase.raise_loop_graph_break
    if getattr(original, "_graphmend_records_frames_run_eagerly", False):
        return

    @functools.wraps(original)
    def raise_loop_graph_break(code, exc):
        stack = getattr(exc, "real_stack", None)
        if stack:
            FRAMES_RUN_EAGERLY.append(FrameRunEagerly(str(exc), list(stack), code.co_name))
        return original(code, exc)

    raise_loop_graph_break._graphmend_records_frames_run_eagerly = True
    InstructionTranslatorBase.raise_loop_graph_break = staticmethod(raise_loop_graph_break)


#: An f-string's conversion of its value, by FORMAT_VALUE's ``flags & 3``.
_CONVERSIONS = ("", "!s", "!r", "!a")


def _format_dynamic_numbers_as_python_does() -> None:
    """Format a number Dynamo traces as a symbol (a float input automatic
    dynamic made dynamic, a dynamic size) in an f-string as Python does.
    Dynamo defers ``f"{n:.3f}"`` of such a number to a lazy variable that
    torch 2.13 gives the *number's* source, so that a graph break before
    the string is built rebuilds the number in the resumed frame
    (``TypeError: sequence item 1: expected str instance, float found``),
    and that realizes as ``format(str(n), spec)`` (2.13 and 2.14:
    ``ValueError: Unknown format code 'f' for object of type 'str'``);
    both drop a ``!r``.  Here the lazy variable has no source and formats
    the number itself with its conversion: realized (Dynamo guards on the
    number, as its own realization does) it is the string Python makes; an
    unbacked number's formatting goes to run time (Dynamo's own fallback).
    Code that is not rewritten changes only where Dynamo raised or built
    another value."""
    from torch._dynamo.symbolic_convert import InstructionTranslatorBase
    from torch._dynamo.variables.constant import ConstantVariable
    from torch._dynamo.variables.lazy import LazySymNodeFormatString, LazyVariableTracker
    from torch._dynamo.variables.tensor import SymNodeVariable

    original = InstructionTranslatorBase._format_value
    if getattr(original, "_graphmend_formats_numbers", False):
        return

    class FormattedNumber(LazySymNodeFormatString):
        # Dynamo's builder makes ``str()`` of it, and falls back to
        # ``StringFormatVariable(fmt_var, [sym_node_var])`` for an unbacked number.
        def __init__(self, number: Any, spec: str, conversion: int) -> None:
            self.sym_node_var = number
            self.fmt_var = ConstantVariable.create("{" + _CONVERSIONS[conversion] + ":" + spec + "}")

        def __repr__(self) -> str:
            return self.fmt_var.as_python_constant().format(self.sym_node_var.evaluate_expr())

    @functools.wraps(original)
    def _format_value(self, fmt_spec, flags):
        if not (isinstance(self.stack[-1], SymNodeVariable) and fmt_spec.is_python_constant()):
            return original(self, fmt_spec, flags)
        number = self.pop()
        formatted = FormattedNumber(number, fmt_spec.as_python_constant(), flags & 0x03)
        self.push(LazyVariableTracker.create(formatted, source=None))
        return None

    _format_value._graphmend_formats_numbers = True
    InstructionTranslatorBase._format_value = _format_value


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


def _run_frames_eagerly_once() -> None:
    """Run a frame eagerly this once, not compiled, in two cases:

    * Dynamo fails to trace rewritten code because the code itself fails
      (a shape error met on fake tensors: ``TorchRuntimeError``; or the
      user's own exception).  Tracing runs no code, so the frame starts
      from the top: eagerly the deferred messages print, the deferred
      checks raise and the failing statement raises its own error, in
      program order, as the original did eagerly; with ``fullgraph=True``
      the error is raised, as asked.  Dynamo's own failures (unsupported
      code, backend errors) are left to Dynamo, as is code that is not
      rewritten.
    * The trace meets a graph break at a site graphmend is about to mend
      (:func:`mending_first`): raised at the break, before anything is
      compiled for the frame.

    Either way what the frame calls runs eagerly too, this once.  The frame
    is compiled again on its next call.
    """
    global MENDS_FIRST
    from torch._dynamo import convert_frame, exc, output_graph
    from torch._dynamo.types import ConvertFrameReturn, FrameAction, FrameExecStrategy

    original = convert_frame.ConvertFrame.__call__
    if getattr(original, "_graphmend_runs_failing_frames", False):
        return
    reason_init = getattr(output_graph.GraphCompileReason, "__post_init__", None)
    if reason_init is not None:

        @functools.wraps(reason_init)
        def __post_init__(self):
            reason_init(self)
            mendable = _TRACE.mendable
            if self.graph_break and mendable is not None and mendable(self):
                mend_now = _TRACE.mend_now
                again = False if mend_now is None else _mended_now(mend_now, self, _TRACE.code)
                if again is not None:
                    raise MendFirst(self, again)

        output_graph.GraphCompileReason.__post_init__ = __post_init__
        MENDS_FIRST = True
    # ``skip_reason`` is a field from torch 2.13 on (a TypeError before).
    has_skip_reason = "skip_reason" in inspect.signature(ConvertFrameReturn).parameters

    def eagerly(why: str, apply_to_code: bool) -> Any:
        """The frame, and what it calls, run eagerly (this once, or until
        the watch ends with ``apply_to_code``)."""
        extra = {"skip_reason": f"graphmend: {why}; it runs eagerly"} if has_skip_reason else {}
        return ConvertFrameReturn(frame_exec_strategy=FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP),
                                  apply_to_code=apply_to_code, **extra)

    @functools.wraps(original)
    def __call__(self, frame, cache_entry, hooks, frame_state, skip=0):
        calls = graphmend_calls()
        call = calls[0] if calls else None
        if call is not None and frame.f_code in call.failed:
            return eagerly("Dynamo failed while tracing it before", False)
        met = _MET
        if met is not None and _tell(met, frame.f_code):
            # Mended only now: what it calls runs eagerly too, as where graphmend mends next.
            return eagerly("its mended code was not yet in place", False)
        # Compiled before and converted again: a function the trace would
        # inline mended may get its original code back first.
        if cache_entry is not None and call is not None and call.identity_missed is not None and identity.KEEPS_STACKS:
            _tell_identity_misses(call.identity_missed, frame)
        for _ in range(MOST_TRACES_PER_WATCH):
            retrace, result = _convert(self, frame, cache_entry, hooks, frame_state, skip, call)
            if not retrace:
                return result
        # Each trace again mended a site no earlier one met: give up on them.
        return eagerly("its trace kept meeting sites graphmend mends", False)

    def _convert(self, frame, cache_entry, hooks, frame_state, skip, call):
        """(whether to trace the frame again, else what to do with it;
        ``call``: the graphmend call it converts in, or None).

        Traced again outside the handler of the ``MendFirst`` that asked
        for it: an error of the next trace is then not chained to that one
        (``caused_by`` reads ``__context__``), which would read it as
        another site to mend."""
        outer = _TRACE.mended, _TRACE.code
        _TRACE.mended, _TRACE.code = is_rewritten(frame.f_code), frame.f_code
        try:
            return False, original(self, frame, cache_entry, hooks, frame_state, skip=skip + 2)
        except Exception as error:
            # With [Capture]'s switches on, its wrapper retries the frame without
            # them (compat.capture): only the retry's failure runs it eagerly.
            from graphmend.compat.capture import switches_on  # not at the top: that import would be circular

            mend_first = caused_by(error, MendFirst)
            # Dynamo hands a MendFirst on as InternalTorchDynamoError.  Where [Capture]'s
            # wrapper sits inside this one (its self-test ran before compat installed),
            # its switches are already off here: it is still a site to mend.
            if isinstance(error, exc.InternalTorchDynamoError) and call is not None and mend_first is None \
                    and not self._inner_convert._box.error_on_graph_break and not switches_on():
                code, message = frame.f_code, str(error).split("\n", 1)[0]
                logger.warning("graphmend: Dynamo failed while tracing %s (%s:%d): %s; it runs eagerly, uncompiled",
                               code.co_name, code.co_filename, code.co_firstlineno, message)
                _run_eagerly_from_now_on(call, code, error, "Dynamo failed while tracing it")
                return False, eagerly("Dynamo failed while tracing it", False)
            user_error = isinstance(error, exc.TorchRuntimeError) or not isinstance(error, exc.TorchDynamoException)
            # A user's error met while tracing a frame graphmend rewrote, or any
            # frame inside its call, runs the frame eagerly (see below).
            if mend_first is None and not (user_error and (_TRACE.mended or call is not None)) \
                    or self._inner_convert._box.error_on_graph_break:
                raise
            if mend_first is not None and mend_first.again:
                # Nothing of the frame has run yet: traced again, it inlines
                # the mended callee (the site is then tried, so a break
                # still there is compiled as Dynamo compiles it).
                return True, None
            if mend_first is None and call is not None:
                code = frame.f_code
                if code in FAILED_IN_A_CALL_THAT_RETURNED:
                    # Failed in an earlier call too, whose eager run returned:
                    # traced again, it would fail at every call (gpytorch's
                    # lazy kernel: three failed traces a call, 15 to 100 times
                    # the eager call).
                    logger.debug("graphmend: Dynamo's trace of %s (%s:%d) failed again (%s); it runs eagerly, "
                                 "uncompiled", code.co_name, code.co_filename, code.co_firstlineno,
                                 type(error).__name__)
                    _run_eagerly_from_now_on(call, code, error, "its trace failed in two calls")
                    return False, eagerly("its trace failed in two calls", False)
                call.traces_failed = [*(call.traces_failed or ()), code]
            logger.debug(
                "%s (%s:%d) %s (%s: %s); running it eagerly",
                frame.f_code.co_name, frame.f_code.co_filename, frame.f_code.co_firstlineno,
                "breaks where graphmend mends next" if mend_first else "fails while Dynamo traces it",
                type(error).__name__, str(error).split("\n", 1)[0],
            )
            until_mended = (mend_first is not None and _TRACE.mended_first is not None
                            and _met_breaking_where_mended_next(frame.f_code))
            # What the frame calls runs eagerly too, this once: where graphmend
            # mends next, graphs compiled now for its callees would be
            # replaced by the frame's own graph on the next call; where the
            # code fails, a callee Dynamo traced would meet the same error on
            # fake tensors, in code that is not rewritten, and raise it with
            # Dynamo's stack appended to the message (`_index_same(v0)` of a
            # 0-dim tensor, in the fuzz), where eager raises it as it is. Such
            # a callee reached as a frame of its own (where torch.compile
            # inlines it or never traces it) runs eagerly for that reason.
            return False, eagerly("it breaks where graphmend mends next" if mend_first else
                                  "the rewritten code fails" if _TRACE.mended else "it fails while Dynamo traces it",
                                  until_mended)
        finally:
            _TRACE.mended, _TRACE.code = outer

    def _run_eagerly_from_now_on(call: GraphmendCall, code: Any, error: Exception, why: str) -> None:
        """``code`` joins the call's ``failed``: its frames run eagerly,
        untraced, in this object's later calls; a diagnosis names it."""
        call.failed.add(code)
        # Where a diagnosis reads it: torch.compile raises here.
        stack = getattr(error, "real_stack", None) or [
            traceback.FrameSummary(code.co_filename, code.co_firstlineno, code.co_name)]
        message = str(error).split("\n", 1)[0]
        FRAMES_RUN_EAGERLY.append(FrameRunEagerly(
            f"{why}: {type(error).__name__}: {message}", list(stack), code.co_name,
            because=f"{why} (torch.compile raises; graphmend.compile runs it eagerly)"))

    __call__._graphmend_runs_failing_frames = True
    convert_frame.ConvertFrame.__call__ = __call__

