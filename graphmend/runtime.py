"""What rewritten code calls at run time.

Rewritten code reaches this module as ``_graphmend`` (see
``graphmend.rules.base.RUNTIME_ALIAS``).  In eager mode every function here
does exactly what the original statement did, at the same point.  Under
``torch.compile`` the functions registered in Dynamo's
``torch._dynamo.config.reorderable_logging_functions`` are recorded during
tracing and replayed after the graph, in program order, which is how [Defer]
and [Trap] avoid graph breaks without a home-made global queue.

Decisions that cannot be made statically (is this value a tensor?) are made
here, at run time, as TensorFlow AutoGraph's operators do; Dynamo folds an
``isinstance(x, torch.Tensor)`` test to a constant while tracing.
"""

from __future__ import annotations

import torch

# --- [Defer] and [Trap] -----------------------------------------------------
# Rewritten code calls the ``deferred_*`` functions below.  Eagerly they do
# what the original statement did, where it did it.  Under torch.compile they
# hand tensors and constants to a ``_replay_*`` function registered in
# Dynamo's ``reorderable_logging_functions``: Dynamo records the call and
# makes it after the graph, in program order.  Objects Dynamo cannot pass
# (loggers, streams, classes) travel as names or ids and are looked up when
# the call is replayed.

import builtins  # noqa: E402  (kept with the section that uses it)
import functools  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import types  # noqa: E402
import warnings  # noqa: E402

from graphmend.rules.base import RUNTIME_ALIAS  # noqa: E402


def snapshot(value):
    """``value``, or under torch.compile a copy of a tensor ``value``.

    A tensor handed to a replayed call is the graph's final value of that
    tensor: an in-place update later in the graph would show in the message.
    The copy keeps the value at the call site; eager code is untouched.  A
    tensor that requires grad is not copied: the graph breaks there instead.
    """
    if isinstance(value, torch.Tensor) and torch.compiler.is_compiling():
        if value.requires_grad:
            # Its text shows its grad_fn, which a copy would change
            # (CloneBackward0): end the graph, so that the call is made
            # eagerly with the tensor itself, as the original was.
            torch._dynamo.graph_break()
            return value
        return value.clone()
    return value


def fstring(template: str, *values) -> str:
    """An f-string split into ``template`` and the ``values`` it embeds.

    ``template.format(*values)`` formats exactly as the f-string did.  Under
    torch.compile Dynamo keeps the call as a string formatter over the
    snapshots and formats it only when the message is replayed.
    """
    return template.format(*map(snapshot, values))


def deferred_print(*values, sep=" ", end="\n", stream="stdout", flush=False) -> None:
    """``print(*values, sep=sep, end=end, file=getattr(sys, stream), flush=flush)``."""
    if torch.compiler.is_compiling():
        _replay_print(stream, sep, end, flush, *map(snapshot, values))
    else:
        _print(stream, sep, end, flush, *values)


def deferred_log(logger, method: str, *args) -> None:
    """``getattr(logger, method)(*args)`` for a :class:`logging.Logger`.

    The record names the caller's line (``stacklevel``), as the original
    call's did.  ``*_once`` methods (transformers' ``warning_once`` and
    ``info_once``) are an ``lru_cache`` keyed by ``(logger, *args)``: they
    get the arguments as written and no ``stacklevel``, so the cache key is
    the original call's and the message fires once per process, eager and
    compiled calls together (a tensor argument, keyed by identity, makes
    the call as written).  Anything that is not a ``Logger`` is called as
    written.
    """
    if not isinstance(logger, logging.Logger):
        getattr(logger, method)(*args)
    elif torch.compiler.is_compiling() and not _cached_by_identity(method, args):
        # id(logger) is a constant guarded by identity; the Logger is found
        # again among the registered loggers when the call is replayed.
        _replay_log(id(logger), method, *map(snapshot, args))
    else:
        _log(logger, method, *args)


def _cached_by_identity(method: str, args: tuple) -> bool:
    """A ``*_once`` call whose cache key holds a tensor (hashed by identity):
    a snapshot would be a new key on every call, so it is made as written
    (under torch.compile: a graph break)."""
    return method.endswith("_once") and any(isinstance(arg, torch.Tensor) for arg in args)


def deferred_warn(message, category: str | None = None, module: str | None = None, stacklevel: int = 1) -> None:
    """``warnings.warn(message, <category>, stacklevel)``.

    ``category`` is the category's name as written at the call site (e.g.
    ``"FutureWarning"`` or ``"errors.MyWarning"``), resolved in the globals
    of ``module`` (then builtins) as the original expression was; ``None``
    is the default (``UserWarning``, or the class of a Warning ``message``).
    """
    if torch.compiler.is_compiling():
        _replay_warn(message, category, module, stacklevel)
    else:
        _warn(message, category, module, stacklevel)


def deferred_check(test, exception: str, module: str, make_args=None):
    """The truth test of ``if test: raise <exception>(*make_args())``.

    Returns ``test`` itself, for the ``if`` to test exactly as before, unless
    ``test`` is a tensor under torch.compile: then the check is made after
    the graph (raising ``<exception>(*make_args())``, or ``raise
    <exception>`` when ``make_args`` is None) and the ``if`` sees False.
    ``exception`` is resolved like :func:`deferred_warn`'s category.
    ``make_args`` is a thunk so that eager code evaluates the message only
    when it raises, as before.
    """
    if isinstance(test, torch.Tensor) and torch.compiler.is_compiling():
        called = make_args is not None
        _replay_check(snapshot(test), exception, module, called, *(make_args() if called else ()))
        return False
    return test


def resolve(module: str | None, dotted: str | None):
    """The object ``dotted`` names in module ``module``'s globals or builtins."""
    if dotted is None:
        return None
    head, *attributes = dotted.split(".")
    namespace = vars(sys.modules[module])
    value = namespace[head] if head in namespace else getattr(builtins, head)
    for attribute in attributes:
        value = getattr(value, attribute)
    return value


def _print(stream, sep, end, flush, *values) -> None:
    print(*values, sep=sep, end=end, file=getattr(sys, stream), flush=flush)


def _log(logger: logging.Logger, method: str, *args) -> None:
    if method.endswith("_once"):
        getattr(logger, method)(*args)
    else:
        getattr(logger, method)(*args, stacklevel=_stacklevel_past_runtime(1))


def _warn(message, category: str | None, module: str | None, stacklevel: int) -> None:
    warnings.warn(message, resolve(module, category), _stacklevel_past_runtime(stacklevel))


#: Frames that are not the user's: this module and Dynamo's
#: ``torch.compiler.disable`` wrapper around the replay functions.
_RUNTIME_FILES = frozenset({__file__, torch._dynamo.eval_frame.__file__})


def _stacklevel_past_runtime(stacklevel: int) -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` or logger call from
    the caller of this function count ``stacklevel`` from the user's frame.

    Counting frames is right on every path: eager (through the dispatcher),
    replayed after a graph (from the compiled frame, through the disable
    wrapper) and the eager fallback after a graph break (where Dynamo has
    compiled the dispatcher as a frame of its own).
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename in _RUNTIME_FILES:
        frame, level = frame.f_back, level + 1
    return level + stacklevel - 1


def _logger_with_id(key: int) -> logging.Logger:
    # A replayed call's logger is alive (Dynamo's identity guard just held
    # it), so its id names it; loggers made by getLogger are all registered.
    for logger in (logging.root, *logging.Logger.manager.loggerDict.values()):
        if id(logger) == key:
            return logger
    raise LookupError(
        "graphmend: a deferred log call's logger is not registered with logging.getLogger"
    )


def _replay(function):
    """Register ``function`` with Dynamo as a call to replay after the graph.

    Dynamo passes only positional arguments.  ``torch.compiler.disable``
    keeps Dynamo from compiling the replay itself when it runs.
    """
    replayed = torch.compiler.disable(function)
    torch._dynamo.config.reorderable_logging_functions.add(replayed)
    return replayed


_replay_print = _replay(_print)
_replay_warn = _replay(_warn)


@_replay
def _replay_log(key: int, method: str, *args) -> None:
    _log(_logger_with_id(key), method, *args)


@_replay
def _replay_check(test, exception: str, module: str, called: bool, *args) -> None:
    if test:
        raised = resolve(module, exception)
        raise raised(*args) if called else raised


def _share_replays_with_inlined_calls() -> None:
    """Make replayable calls inside inlined functions count (torch 2.13).

    Dynamo records a replayable call in the ``debug_locals`` of the
    translator tracing it, but only the outermost frame's list is replayed:
    a call made in an inlined function (a helper, a submodule's forward, the
    ``deferred_*`` functions themselves) is silently dropped.  Sharing the
    parent's list keeps every call, in program order.  On a graph break
    Dynamo restarts tracing with fresh translators, so nothing recorded by
    an abandoned attempt survives.

    Inside a higher-order op's subgraph (``checkpoint``, ``torch.cond``)
    a replayed tensor would be a value of the subgraph, not of the graph,
    and compilation would fail; such a call is a graph break instead, as
    ``print`` there is.
    """
    from torch._dynamo.symbolic_convert import InliningInstructionTranslator

    original = InliningInstructionTranslator.__init__
    if getattr(original, "_graphmend_shares_replays", False):
        return

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if _is_mended(self.f_code):
            _TRACE.mended = True
        if self.output.is_root_tracer():
            self.debug_locals = self.parent.debug_locals
        else:
            self.debug_locals = _ReplaysInSubgraph()

    __init__._graphmend_shares_replays = True
    InliningInstructionTranslator.__init__ = __init__


class _ReplaysInSubgraph(list):
    """``debug_locals`` of code traced in a higher-order op's subgraph."""

    def append(self, call) -> None:
        from torch._dynamo.exc import unimplemented

        unimplemented(
            gb_type="graphmend: deferred call inside a higher-order op",
            context=str(call[0]),
            explanation="A call replayed after the graph cannot take values of a subgraph.",
            hints=["Move the print/log/warning/check out of the checkpointed or conditional code."],
        )


def _is_mended(code) -> bool:
    """Whether ``code`` calls this module (as rewritten code does)."""
    return RUNTIME_ALIAS in code.co_names


class _Trace(threading.local):
    #: Whether the frame Dynamo is converting on this thread, or a function
    #: it inlined, is rewritten code.
    mended = False


_TRACE = _Trace()


def _run_failing_mended_frames_eagerly() -> None:
    """When Dynamo fails to trace rewritten code because the code itself
    fails (a shape error met on fake tensors: ``TorchRuntimeError``; or the
    user's own exception), run that frame eagerly instead of raising.

    Tracing runs no code, so the frame starts from the top: eagerly the
    deferred messages print, the deferred checks raise and the failing
    statement raises its own error, in program order, as the original did
    eagerly.  Without this a graph with no break before the error loses
    the messages recorded before it, and a deferred check is overtaken by
    the later error.  (``torch.compile`` of the original, which broke the
    graph before the failing statement, raises Dynamo's wrapper type
    instead; the eager type is the original program's.)  The frame is run
    eagerly this once and compiled again on its next call; with
    ``fullgraph=True`` the error is raised, as asked.  Dynamo's own failures
    (unsupported code, backend errors) are left to Dynamo.
    """
    from torch._dynamo import convert_frame, exc
    from torch._dynamo.types import ConvertFrameReturn, FrameAction, FrameExecStrategy

    original = convert_frame.ConvertFrame.__call__
    if getattr(original, "_graphmend_runs_failing_frames", False):
        return

    @functools.wraps(original)
    def __call__(self, frame, cache_entry, hooks, frame_state, skip=0):
        outer = _TRACE.mended
        _TRACE.mended = _is_mended(frame.f_code)
        try:
            return original(self, frame, cache_entry, hooks, frame_state, skip=skip + 1)
        except Exception as error:
            user_error = isinstance(error, exc.TorchRuntimeError) or not isinstance(error, exc.TorchDynamoException)
            if not (user_error and _TRACE.mended) or self._inner_convert._box.error_on_graph_break:
                raise
            _log_eager_run(frame.f_code, error)
            return ConvertFrameReturn(
                frame_exec_strategy=FrameExecStrategy(FrameAction.SKIP, FrameAction.DEFAULT),
                apply_to_code=False,
                skip_reason="graphmend: the rewritten code fails; it runs eagerly",
            )
        finally:
            _TRACE.mended = outer

    __call__._graphmend_runs_failing_frames = True
    convert_frame.ConvertFrame.__call__ = __call__


def _log_eager_run(code, error: Exception) -> None:
    logging.getLogger(__name__).debug(
        "%s (%s:%d) fails while Dynamo traces it (%s: %s); running it eagerly",
        code.co_name, code.co_filename, code.co_firstlineno, type(error).__name__, str(error).split("\n", 1)[0],
    )


_share_replays_with_inlined_calls()
_run_failing_mended_frames_eagerly()


# --- [Where] ----------------------------------------------------------------
# Rewritten ``if T:`` statements read ``if is_tensor(c): <both branches,
# merged by where()> elif c: <original branch> else: <original branch>``.
# Every helper below falls back to exactly what the original statement did
# whenever it cannot prove that the predicated form selects the same bits.

import torch.utils._pytree as _pytree  # noqa: E402  (kept with the section that uses it)

#: Non-tensor leaf types whose ``==`` means "the same value" (floats are
#: excluded: 0.0 == -0.0 and nan != nan).
_EXACT_EQUALITY_TYPES = (int, bool, str, type(None), torch.dtype, torch.device)


def is_tensor(value: object) -> bool:
    """Whether the predicated form applies: a tensor test under
    torch.compile (Dynamo folds this to a constant).  Eager code keeps the
    original Python branch: it computes one branch, not both, and raises
    exactly what the original raised, a branch that would fail when not
    taken included."""
    return isinstance(value, torch.Tensor) and torch.compiler.is_compiling()


def where(condition, if_true, if_false):
    """``if_true if condition else if_false``, computed as ``torch.where``.

    Applied leaf by leaf to equal pytrees when ``condition`` is a
    one-element tensor and every pair of tensor leaves has the same dtype,
    shape, device and layout, so ``torch.where`` neither promotes nor
    broadcasts and copies exactly the selected bits.  Under autograd (grad
    enabled and a leaf requiring grad) it does not apply: the unselected
    branch would receive zero gradients (``None`` before) and ``0 * inf``
    would turn into NaN.  Where it does not apply, the original Python
    choice runs, ``bool(condition)`` included, with its graph break and
    its error for a multi-element tensor.
    """
    predicate = _scalar_predicate(condition)
    if predicate is None or not _selectable(if_true, if_false):
        return if_true if condition else if_false
    # The predicate moves to each leaf's device (a 0-dim bool copies exactly).
    return _pytree.tree_map(
        lambda a, b: torch.where(predicate.to(a.device), a, b) if isinstance(a, torch.Tensor) else a,
        if_true,
        if_false,
    )


def select(condition, if_true, if_false):
    """``if_true() if condition else if_false()`` (a conditional expression).

    With a tensor ``condition`` under torch.compile both thunks run (the
    rule proved them free of effects) and :func:`where` merges them;
    otherwise only the chosen one runs.  A thunk that raises (the branch
    not taken may fail: ``v.clone()`` of a ``None``) makes the original
    choice, so the error is raised only if its branch is taken.
    """
    if is_tensor(condition):
        try:
            values = if_true(), if_false()
        except Exception:
            return if_true() if condition else if_false()
        return where(condition, *values)
    return if_true() if condition else if_false()


def _scalar_predicate(condition):
    """``condition`` as a 0-dim bool tensor with ``bool()``'s truth value, or
    None when ``bool(condition)`` would not read one tensor element."""
    if not isinstance(condition, torch.Tensor) or condition.numel() != 1:
        return None
    scalar = condition.reshape(())
    # bool(t) is "t != 0" for every dtype, nan included.
    return scalar if scalar.dtype == torch.bool else scalar != 0


def _selectable(if_true, if_false) -> bool:
    true_leaves, true_spec = _pytree.tree_flatten(if_true)
    false_leaves, false_spec = _pytree.tree_flatten(if_false)
    if true_spec != false_spec:
        return False
    grad_enabled = torch.is_grad_enabled()
    for a, b in zip(true_leaves, false_leaves):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if (
                a.dtype != b.dtype
                or a.shape != b.shape
                or a.device != b.device
                or a.layout != torch.strided
                or b.layout != torch.strided
                or a.is_quantized
                or (grad_enabled and (a.requires_grad or b.requires_grad))
            ):
                return False
        elif not (a is b or (type(a) is type(b) and isinstance(a, _EXACT_EQUALITY_TYPES) and a == b)):
            return False
    return True


def store_buffer(owner: torch.nn.Module, name: str, value, *, persistent: bool = True) -> None:
    """``owner.register_buffer(name, value, persistent=persistent)``, done by
    copying into the registered tensor when that is indistinguishable.

    Rebinding a buffer under ``torch.compile`` changes what the guards saw, so
    the next call recompiles; an in-place ``copy_`` does not.  The copy is
    only made when the current buffer has the same dtype, shape and device,
    the same persistence, needs no grad, and no other attribute, buffer or
    parameter of ``owner`` is that very tensor (Phi-3 keeps
    ``original_inv_freq`` as the tensor ``inv_freq`` starts as: writing into
    it would overwrite the frequencies it is meant to restore).  Otherwise
    the buffer is re-registered, as the original did.
    """
    current = owner._buffers.get(name)
    if _can_copy_into(owner, name, current, value, persistent):
        with torch.no_grad():
            current.copy_(value)
    else:
        owner.register_buffer(name, value, persistent=persistent)


def _can_copy_into(owner, name, current, value, persistent) -> bool:
    if not (isinstance(current, torch.Tensor) and isinstance(value, torch.Tensor)):
        return False
    if (current.dtype, current.shape, current.device) != (value.dtype, value.shape, value.device):
        return False
    if current.requires_grad or (torch.is_grad_enabled() and value.requires_grad):
        return False
    if (name in owner._non_persistent_buffers_set) == persistent:
        return False
    others = [
        *(v for k, v in owner.__dict__.items() if isinstance(v, torch.Tensor)),
        *(v for k, v in owner._buffers.items() if k != name),
        *owner._parameters.values(),
    ]
    return not any(other is current for other in others)


def exact_item(tensor, like):
    """``tensor.item()`` as a 0-dim tensor whose comparison with the number
    ``like`` has the Python comparison's truth value, else ``tensor.item()``.

    Python compares the item (a float is a double; an int is exact) with
    ``like`` exactly.  Floating tensors widen to float64 exactly; integer and
    bool tensors compared with an int widen to int64.  The rule only passes
    literals that float64/int64 hold exactly.
    """
    if isinstance(tensor, torch.Tensor) and tensor.numel() == 1:
        if tensor.is_floating_point():
            return tensor.reshape(()).to(torch.float64)
        if _is_int64_exact(tensor.dtype) and type(like) is int:
            return tensor.reshape(()).to(torch.int64)
    return tensor.item()


def exact_float(tensor):
    """``float(tensor)`` as a 0-dim float64 tensor (the same rounding of an
    integer to a double), else ``float(tensor)``."""
    if (
        isinstance(tensor, torch.Tensor)
        and tensor.numel() == 1
        and (tensor.is_floating_point() or _is_int64_exact(tensor.dtype))
    ):
        return tensor.reshape(()).to(torch.float64)
    return float(tensor)


def exact_int(tensor, like):
    """``int(tensor)`` as a 0-dim int64 tensor when ``tensor`` holds an
    integer (or bool) and ``like`` is an int, else ``int(tensor)``.

    A floating tensor is left to ``int()``: it truncates, and raises for nan
    and inf, which a tensor comparison would not.
    """
    if (
        isinstance(tensor, torch.Tensor)
        and tensor.numel() == 1
        and _is_int64_exact(tensor.dtype)
        and type(like) is int
    ):
        return tensor.reshape(()).to(torch.int64)
    return int(tensor)


def _is_int64_exact(dtype: torch.dtype) -> bool:
    return dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                     torch.uint16, torch.uint32)



# --- Calls from eager code ----------------------------------------------------


def _skip_frames_of_eager_calls() -> None:
    """Run the functions above eagerly when eager code calls them.

    Dynamo inlines them into the graph of the rewritten code it traces,
    where ``torch.compiler.is_compiling()`` is True.  Rewritten code that
    runs eagerly under torch.compile (the statement at a graph break, a
    frame Dynamo gave up on) calls them as frames of their own instead, and
    Dynamo would compile each of those with ``is_compiling()`` folded to
    True: ``is_tensor`` would pick the predicated form in eager code and
    evaluate the branch the original does not take.  Skipping these frames,
    and the frames they call (a thunk, a helper), keeps eager calls eager;
    inlining into a traced caller is unaffected.

    Every module-level function of this module is covered, not a list, so a
    helper added later cannot be forgotten; the Dynamo patches defined
    inside the functions above are not module-level and are not needed
    here (rewritten code never calls them).
    """
    from torch._dynamo.eval_frame import set_code_exec_strategy
    from torch._dynamo.types import FrameAction, FrameExecStrategy

    module = sys.modules[__name__]
    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == __name__:
            set_code_exec_strategy(value.__code__, FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP))


_skip_frames_of_eager_calls()
