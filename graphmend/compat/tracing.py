"""What the runtime asks of Dynamo while it is traced: registering replayed
functions, skipping the runtime's frames, a graph break with a reason,
whether stores or effects are pending in the frame traced so far, and
loggers handed to a replay."""

from __future__ import annotations

import inspect
import logging
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from graphmend.compat.probing import _probe_exec_strategy, _probe_reorderable
from graphmend.vocabulary import (IMPURE_FUNCTIONS, INDEXING_CALLS, NOT_RANDOM, RAISING_FUNCTIONS, RAISING_METHODS,
                                  RANDOM_METHODS, in_place_method)

#: Random draws, indexing and raising calls, by the callee's last name (graph operations, see :func:`effects_since`).
RANDOM_CALLS = IMPURE_FUNCTIONS - NOT_RANDOM
RAISING_CALLS = RAISING_METHODS | {name.rpartition(".")[2] for name in RAISING_FUNCTIONS}



#: Set by :func:`graphmend.compat.install`: the runtime hands a logger to its replay by name
#: (Dynamo's ``id()`` takes no logger: torch 2.11), not by ``id()``.
LOGGER_BY_NAME = False


#: Set by :func:`graphmend.compat.install`: Dynamo traces iterating an ``nn.Module``'s
#: ``__dict__`` (not on torch 2.11).
TRACES_MODULE_DICT = True


def constant_result(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` marked so that Dynamo calls it while tracing, with the
    constant arguments it is given, and uses the result as a constant
    (``torch._dynamo.assume_constant_result``); where this torch has no
    such mark, ``function`` is traced as any other."""
    mark = getattr(torch._dynamo, "assume_constant_result", None)
    return mark(function) if callable(mark) else function


def register_replay(function: Callable[..., None]) -> Callable[..., None]:
    """``function`` wrapped so that Dynamo replays calls of it after the
    graph; Dynamo passes only positional arguments.  ``torch.compiler.disable``
    keeps Dynamo from compiling the replay itself when it runs."""
    replayed = torch.compiler.disable(function)
    if _probe_reorderable().ok:
        torch._dynamo.config.reorderable_logging_functions.add(replayed)
    return replayed


#: The files of the functions handed to :func:`skip_frames`: the runtime's,
#: whose replayable calls the patches treat as rewritten code's.
RUNTIME_FILES: set[str] = set()


def skip_frames(functions) -> None:
    """Never compile these functions (the runtime's) as frames of their own
    (inlining them into a traced caller is unaffected), and remember their
    files in :data:`RUNTIME_FILES`."""
    functions = list(functions)
    RUNTIME_FILES.update(function.__code__.co_filename for function in functions)
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


@torch._dynamo.assume_constant_result
def reads_an_unread_argument(local: str) -> bool:
    """Whether the local ``local`` of the runtime function Dynamo is
    inlining (a message's thunk, or its values) holds a str, int, float or
    bool the compiled frame was called with and the trace has not read yet
    (in a thunk's defaults, or among a tuple's items).  Building the
    message while tracing reads it, and Dynamo then guards on its value: the
    frame compiles once per value, and past the recompile limit runs
    eagerly, where torch.compile breaks first and reads it eagerly, with no
    guard (a validation helper compiled as a frame of its own and called
    with each field's name, as pydantic's C code calls validators: one
    graph per name).  A constant of the trace; False where this torch's
    internals differ."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx().output.current_tx
        found = any(_unread_argument(v) for v in _held(tx.symbolic_locals.get(local)))
        caller = getattr(tx, "parent", None)
        if found and caller is not None:
            UNREAD_ARGUMENT_SITES.add((caller.f_code.co_filename, caller.lineno))
        return found
    except Exception:  # noqa: BLE001 - another torch's internals: defer as before
        return False


#: The lines (file, line) whose message :func:`reads_an_unread_argument`
#: kept in place, for ``diagnose`` to say why those rewritten sites break.
UNREAD_ARGUMENT_SITES: set[tuple[str, int]] = set()

#: Why such a message is made in place.
UNREAD_ARGUMENT = ("the message reads a str or number the frame was called with, which nothing before it read: "
                   "built in the graph, Dynamo would compile the frame once per value")


def _held(variable) -> list:
    """``variable``, the defaults of a function it is, and the items of a
    tuple or list it is, one level down; a lazy variable is not looked
    into (looking would read it)."""
    from torch._dynamo.variables.lazy import LazyVariableTracker

    if variable is None:
        return []
    if isinstance(variable, LazyVariableTracker):
        return [variable]
    defaults = getattr(variable, "defaults", None)  # a function's: a tuple variable, or None
    groups = (None if isinstance(defaults, LazyVariableTracker) else getattr(defaults, "items", None),
              getattr(variable, "items", None))
    return [variable, *(item for group in groups if isinstance(group, (list, tuple)) for item in group)]


def _unread_argument(variable) -> bool:
    from torch._dynamo.variables.lazy import LazyVariableTracker

    return (isinstance(variable, LazyVariableTracker) and not variable.is_realized()
            and getattr(variable.source, "is_input", False) and variable.peek_type() in (str, int, float, bool))


@torch._dynamo.assume_constant_result
def nested_graph_breaks() -> bool:
    """Whether Dynamo resumes tracing inside a nested frame at a graph
    break (``config.nested_graph_breaks``, off by default in 2.13 and
    2.14): a break inside an inlined call then runs what was traced before
    it, rather than the whole call again eagerly.  A constant of the trace;
    True where this torch does not say."""
    return getattr(torch._dynamo.config, "nested_graph_breaks", True) is not False


@torch._dynamo.assume_constant_result
def effects_mark() -> int:
    """A mark of what the frame Dynamo is tracing has done so far (a
    constant of the trace, taken while tracing), for :func:`effects_since`;
    -1 on a torch whose internals differ."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx()
        marks = vars(tx.output).setdefault("_graphmend_effect_marks", [])
        marks.append(_done_so_far(tx))
        return len(marks) - 1
    except Exception:  # noqa: BLE001 - another torch's internals: be safe
        return -1


@torch._dynamo.assume_constant_result
def effects_since(mark: int) -> str | None:
    """What the frame Dynamo is tracing has done since ``mark`` besides
    reading values and updating in place the copies a predicated call
    makes (:func:`graphmend.runtime.state.predicated_call`), as the end of
    "the call ..."; or None.  A constant of the trace, taken while tracing.

    Counted: a store Dynamo makes after the graph (into an object, list,
    dict, global or closure cell that existed before the frame), a
    replayed call (a deferred message or check), a tensor hook, a draw of
    Python's random numbers; and among the graph's new operations, an
    update in place other than of a fresh ``clone`` or by a ``copy_`` from
    a ``torch.where`` (the predicated form), a random draw, and an index
    taken from a tensor, which may be out of range when the call is not
    taken (a gather, an embedding, a subscript by an integer tensor).  On a
    torch whose internals differ, everything counts."""
    unknown = "may have effects this torch does not show graphmend"
    if mark < 0:
        return unknown
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx()
        before = vars(tx.output).get("_graphmend_effect_marks", [])[mark]
        now = _done_so_far(tx)
    except Exception:  # noqa: BLE001 - another torch's internals: be safe
        return unknown
    if now.stores != before.stores:
        return "stores into an object that existed before it (a store made after the graph, taken or not)"
    if now.replayed != before.replayed:
        return "makes a call replayed after the graph (a deferred message or check)"
    if now.hooks != before.hooks or now.random != before.random:
        return "registers a tensor hook or draws Python's random numbers"
    nodes = list(tx.output.graph.nodes)[before.nodes:]
    for node in nodes:
        why = _unpredicated(node)
        if why is not None:
            return why
    return None


class _Done(NamedTuple):
    stores: dict
    replayed: int
    hooks: int
    random: int
    nodes: int


def _done_so_far(tx) -> _Done:
    """What :func:`effects_since` compares: the stores into older objects
    (by what each holds), the counts of replayed calls, hooks and Python
    random draws, and the graph's length."""
    from torch._dynamo.variables.torch_function import TorchFunctionModeStackVariable

    side_effects = tx.output.side_effects
    stores = {}
    for variable in _modified_older_objects(side_effects):
        # Entering a torch function mode modifies Dynamo's own stack of modes, not the user's objects.
        if isinstance(variable, TorchFunctionModeStackVariable):
            continue
        items = getattr(variable, "items", None)
        held = tuple(items.items()) if isinstance(items, dict) else tuple(items) if isinstance(items, list) else ()
        attributes = tuple(side_effects.store_attr_mutations.get(variable, {}).items())
        # An object whose content cannot be read counts as stored into again.
        stores[id(variable)] = (held, attributes) if held or attributes else object()
    return _Done(stores, len(tx.debug_locals), len(side_effects.tensor_hooks) + len(side_effects.save_for_backward),
                 len(tx.output.random_calls), len(tx.output.graph.nodes))


def _unpredicated(node) -> str | None:
    """Why a graph operation made inside a predicated call may be
    observable where the call is not taken, or None."""
    if node.op not in ("call_function", "call_method"):
        return None
    target = node.target
    name = target if isinstance(target, str) else getattr(target, "__name__", "")
    base = name[:-1] if in_place_method(name) else name
    if base in RANDOM_CALLS or name in RANDOM_METHODS:
        return f"draws random numbers ({name})"
    if base in INDEXING_CALLS or base in RAISING_CALLS:
        return f"calls {name}(), which may reject values the call does not see when not taken"
    if target in (operator.getitem, operator.setitem) and len(node.args) > 1 and _indexes_with_a_tensor(node.args[1]):
        return "indexes with a tensor, which may be out of range when the call is not taken"
    if _updates_in_place(node):
        if _is_clone(node.args[0] if node.args else None) or _selects_back(node, name):
            return None  # the predicated form: an update of a fresh copy, selected back
        return f"updates a tensor in place with {name or target}(), which graphmend does not predicate"
    return None


def _is_clone(value) -> bool:
    target = getattr(value, "target", None)
    return target == "clone" or target is torch.clone


def _selects_back(node, name: str) -> bool:
    """``target.copy_(torch.where(cond, updated, target))`` with ``updated``
    a fresh copy: how a predicated update writes its target."""
    if name != "copy_" or len(node.args) != 2:
        return False
    selection = node.args[1]
    arguments = getattr(selection, "args", ())
    return getattr(selection, "target", None) is torch.where and len(arguments) == 3 and \
        _is_clone(arguments[1]) and arguments[2] is node.args[0]


def _indexes_with_a_tensor(index) -> bool:
    parts = index if isinstance(index, (tuple, list)) else (index,)
    for part in parts:
        value = getattr(part, "meta", {}).get("example_value") if hasattr(part, "meta") else part
        if isinstance(value, torch.Tensor) and value.dtype != torch.bool:
            return True
    return False


def _stores_into_older_objects(side_effects) -> bool:
    return any(True for _ in _modified_older_objects(side_effects))


def _modified_older_objects(side_effects):
    """The tracked objects that existed before the frame and that the frame
    has stored into so far (what Dynamo will write after the graph)."""
    from torch._dynamo.variables.base import AttributeMutationNew, ValueMutationNew

    return (variable for variable in side_effects.id_to_variable.values()
            if side_effects.is_modified(variable)
            and not isinstance(variable.mutation_type, (AttributeMutationNew, ValueMutationNew)))


#: The operator module's functions that update their first argument: ``x += y``, ``x[i] = v``.
_OPERATORS_IN_PLACE = frozenset({"iadd", "iand", "iconcat", "ifloordiv", "ilshift", "imatmul", "imod", "imul", "ior",
                                 "ipow", "irshift", "isub", "itruediv", "ixor", "setitem", "delitem"})


def _updates_in_place(node) -> bool:
    """Whether an FX node Dynamo recorded may update a tensor in place
    (any tensor: which ones existed before the graph is not worth proving)."""
    if node.op == "call_method":
        return in_place_method(node.target)
    if node.op != "call_function":
        return False
    name = getattr(node.target, "__name__", "")
    if name and getattr(operator, name, None) is node.target:
        # ``a | b`` is ``operator.or_``: the operator module's trailing underscore is no update.
        return name in _OPERATORS_IN_PLACE
    schema = getattr(node.target, "_schema", None)
    return (
        "out" in node.kwargs
        or node.kwargs.get("inplace") is True
        or in_place_method(name)
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
