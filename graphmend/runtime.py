"""What rewritten code calls at run time.  It needs torch alone.

Rewritten code reaches this module as ``_graphmend`` (see
:mod:`graphmend.conventions`).  In eager mode every function here does
exactly what the original statement did, at the same point.  Under
``torch.compile`` the functions registered in Dynamo's
``torch._dynamo.config.reorderable_logging_functions`` (through
:mod:`graphmend.compat`) are recorded during tracing and replayed after the
graph, in program order, which is how [Defer] and [Trap] avoid graph breaks
without a home-made global queue.

Decisions that cannot be made statically (is this value a tensor?) are made
here, at run time, as TensorFlow AutoGraph's operators do; Dynamo folds an
``isinstance(x, torch.Tensor)`` test to a constant while tracing.

Gates: code that [Where] runs unconditionally for a tensor test (both arms
of an ``if``) passes ``gate=``, a one-element bool tensor (or a Python
bool) saying whether its arm was taken; a gated call is replayed, and a
gated check raises, only when its gate is true.
"""

from __future__ import annotations

import builtins
import enum
import importlib
import logging
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import torch
import torch.utils._pytree as _pytree

from graphmend import compat
from graphmend.runtime_predicates import allclose, isfinite_item  # noqa: F401 -- [issue #34] predicate forms
from graphmend.runtime_state import frozen_test, predicated_update  # noqa: F401 -- [issue #34] predicated state updates

compiling = torch.compiler.is_compiling


# --- values that travel to a replay ---------------------------------------------------
# Dynamo replays a call only when every argument is a tensor or a constant
# (a fresh one: a value read from a local arrives wrapped, and is refused).
# Shapes, dtypes, devices, enums and containers of these are flattened to
# such tokens while tracing and rebuilt when the call is replayed.


def snapshot(value, keep_grad: bool = False):
    """``value``, or under torch.compile a copy of a tensor ``value``.

    A tensor handed to a replayed call is the graph's final value of that
    tensor: an in-place update later in the graph would show in the
    message.  The copy keeps the value at the call site.  A tensor that
    requires grad is not copied, since its text shows its ``grad_fn``, which
    a copy would change (``CloneBackward0``): with ``keep_grad`` (the rule
    proved nothing updates it in place later) it travels as it is;
    otherwise the graph breaks there, so that the call is made eagerly
    with the tensor itself, as the original was.
    """
    if isinstance(value, torch.Tensor) and compiling():
        if value.requires_grad:
            if not keep_grad:
                compat.graph_break("graphmend: a message shows a tensor that requires grad and is updated in "
                                   "place later (its text would show the update)")
            return value
        return value.clone()
    return value


def _encode(value, tokens: list, keep_grad: bool) -> bool:
    """Append ``value``'s tokens; whether Dynamo can replay them all."""
    if isinstance(value, torch.Tensor):
        tokens.append("t")
        tokens.append(snapshot(value, keep_grad))
    elif isinstance(value, _Read):
        # As an f-string's values: [Trap] defers only a check that no
        # in-place update of a tensor its message shows follows.
        tokens.append("read")
        tokens.append(value.reader)
        return _encode(value.value, tokens, True)
    elif isinstance(value, _Format):
        # As an f-string's values (fstring's keep_grad): [Trap] defers only
        # a check that no in-place update follows.
        tokens.append("format")
        tokens.append(value.template)
        return _encode(value.values, tokens, True)
    elif isinstance(value, torch.Size):
        tokens.append("size")
        tokens.append(len(value))
        for size in value:
            tokens.append(int(size))
    elif isinstance(value, torch.dtype):
        tokens.append("dtype")
        tokens.append(str(value))
    elif isinstance(value, torch.device):
        tokens.append("device")
        tokens.append(str(value))
    elif isinstance(value, enum.Enum):
        tokens.append("enum")
        tokens.append(str(type(value).__module__))
        tokens.append(str(type(value).__qualname__))
        tokens.append(str(value.name))
    elif isinstance(value, (tuple, list)) and type(value) in (tuple, list):
        tokens.append("tuple" if isinstance(value, tuple) else "list")
        tokens.append(len(value))
        replayable = True
        for item in value:
            replayable = _encode(item, tokens, keep_grad) and replayable
        return replayable
    elif type(value) is dict:
        tokens.append("dict")
        tokens.append(len(value))
        replayable = True
        for key, item in value.items():
            replayable = _encode(key, tokens, keep_grad) and replayable
            replayable = _encode(item, tokens, keep_grad) and replayable
        return replayable
    elif type(value) is bool:
        tokens.append("c")
        tokens.append(bool(value))
    elif type(value) is int:
        tokens.append("c")
        tokens.append(int(value))
    elif type(value) is float:
        tokens.append("c")
        tokens.append(float(value))
    elif type(value) is str:
        # "{}".format() of a constant is a fresh constant; of a string
        # formatter (an f-string's fstring()), a formatter over it.
        tokens.append("c")
        tokens.append("{}".format(value))
    else:  # None, or what Dynamo refuses to replay (an object, a class, a function)
        tokens.append("c")
        tokens.append(value)
        return value is None
    return True


def encode(values, keep_grad: bool = False, strict: bool = False, named=frozenset()) -> list | None:
    """``values`` as a flat list of tokens Dynamo can replay; with
    ``strict``, None when one of them is a value it cannot replay (a call
    replaying such tokens graph-breaks, then runs in place).  The values at
    the positions in ``named`` are dotted names of module globals (a class
    such as ``UserWarning``), which :func:`decode` resolves."""
    tokens: list = []
    replayable = True
    for position, value in enumerate(values):
        if position in named:
            tokens.append("global")
            tokens.append("{}".format(value))
        else:
            replayable = _encode(value, tokens, keep_grad) and replayable
    return tokens if replayable or not strict else None


def decode(tokens, module: str | None = None) -> list:
    """The values :func:`encode` flattened (a global name is resolved in
    ``module``'s globals)."""
    values = []
    position = 0

    def one():
        nonlocal position
        kind, position = tokens[position], position + 1
        if kind in ("t", "c"):
            position += 1
            return tokens[position - 1]
        if kind == "size":
            count = tokens[position]
            position += 1 + count
            return torch.Size(tokens[position - count : position])
        if kind == "global":
            position += 1
            return resolve(module, tokens[position - 1])
        if kind == "format":
            position += 1
            return tokens[position - 1].format(*one())
        if kind == "read":
            position += 1
            return _READERS[tokens[position - 1]](one())
        if kind == "dtype":
            position += 1
            return getattr(torch, tokens[position - 1].removeprefix("torch."))
        if kind == "device":
            position += 1
            return torch.device(tokens[position - 1])
        if kind == "enum":
            defined_in, qualname, name = tokens[position : position + 3]
            position += 3
            owner = importlib.import_module(defined_in)
            for part in qualname.split("."):
                owner = getattr(owner, part)
            return owner[name]
        count = tokens[position]
        position += 1
        if kind == "dict":
            return dict((one(), one()) for _ in range(count))
        items = [one() for _ in range(count)]
        return tuple(items) if kind == "tuple" else items

    while position < len(tokens):
        values.append(one())
    return values


def fstring(template: str, *values, keep_grad: bool = True) -> str:
    """An f-string split into ``template`` and the ``values`` it embeds.

    ``template.format(*values)`` formats exactly as the f-string did.  Under
    torch.compile Dynamo keeps the call as a string formatter over the
    snapshots and formats it only when the message is replayed
    (``keep_grad``: see :func:`snapshot`).
    """
    return template.format(*(snapshot(value, keep_grad) for value in values))


class _Format(NamedTuple):
    """``template.format(*values)``, not made yet: a check's message, which
    the original formats only when it raises (a named tuple: Dynamo traces
    making one)."""

    template: str
    values: tuple


#: How a message reads a value into Python (see :func:`message_read`).
_READERS: dict[str, Callable[[Any], Any]] = {
    "float": float, "int": int, "bool": bool, "str": str, "repr": repr,
    "item": lambda value: value.item(), "tolist": lambda value: value.tolist(),
    "unique": lambda value: value.unique(), "torch.unique": torch.unique, "len": len,
}
#: The readers that take a one-element tensor.  This and the next mirror
#: ``analysis.api``'s reader sets: rewritten code runs with this module and
#: torch alone, so it does not import the analysis.
_ONE_ELEMENT = frozenset({"float", "int", "bool", "item"})
#: The readers that make a tensor (the unique values), which another reader may read.
_UNIQUE_READS = frozenset({"unique", "torch.unique"})
#: The readers whose result shows a ``grad_fn`` (given the tensor itself).
_SHOWS_GRAD = frozenset({"str", "repr", "unique", "torch.unique"})


class _Read(NamedTuple):
    """``<reader>(value)`` of a tensor, not made yet (see :func:`message_read`)."""

    reader: str
    value: torch.Tensor | _Read


def message_read(reader: str, value):
    """``float(value)`` in a deferred check's message, or another of
    :data:`_READERS` (``int``, ``bool``, ``str``, ``repr``, ``.item()``,
    ``.tolist()``, ``torch.unique``).  Under torch.compile a tensor's value
    would be read while tracing (a graph break; ``unique``'s data-dependent
    shape too); instead a copy of the tensor at the guard travels to the
    replay and is read there, only if the check fails: the same value
    (``str``, ``repr`` and ``unique`` of a tensor that requires grad take
    the tensor itself, as :func:`snapshot` keeps it, for its ``grad_fn``).
    A tensor the reader refuses (several elements for a one-element
    reader, complex for ``float``/``int``) raises here, while traced, so
    the check runs the original way.

    ``value`` may itself be a read of unique values not made yet
    (``message_read("tolist", message_read("torch.unique", x))``, or
    ``"len"``): the replay makes both.  A one-element reader of these
    raises here (how many values there are, only the data tells)."""
    if isinstance(value, _Read) and compiling():
        if value.reader not in _UNIQUE_READS or reader in _ONE_ELEMENT:
            raise TypeError(f"graphmend: {reader}() of unique values is left to the original check")
        return _Read(reader, value)
    if not (isinstance(value, torch.Tensor) and compiling()):
        return _READERS[reader](value)
    if reader in _ONE_ELEMENT and (value.numel() != 1 or (value.is_complex() and reader in ("float", "int"))):
        raise TypeError(f"graphmend: {reader}() of this tensor is left to the original check")
    return _Read(reader, value if reader in _SHOWS_GRAD else value.detach())


def lazy_format(template: str, *values):
    """``template.format(*values)`` (an f-string split, or a literal's
    ``.format``) in the message of a deferred check.  Eagerly the string;
    under torch.compile the template and snapshots of the values, which
    travel to the check's replay as tokens and are formatted only if it
    raises: formatting a tensor after every graph would read its data (a
    device sync) on every call."""
    if not compiling():
        return template.format(*values)
    return _Format(template, values)  # the check's encode() takes the snapshots


def _open(gate) -> bool:
    """Whether a gated call happens (eagerly: its arm was taken)."""
    return gate is None or bool(gate)


# --- [Defer] ---------------------------------------------------------------------------


def deferred_print(*values, sep=" ", end="\n", stream="stdout", flush=False, gate=None, keep_grad=True) -> None:
    """``print(*values, sep=sep, end=end, file=getattr(sys, stream), flush=flush)``."""
    if compiling():
        _replay_print(gate, stream, sep, end, flush, *encode(values, keep_grad))
    elif _open(gate):
        _print(stream, sep, end, flush, *values)


def deferred_log(logger, method: str, *args, gate=None, keep_grad=True) -> None:
    """``getattr(logger, method)(*args)`` for a :class:`logging.Logger`, or
    for loguru's ``logger``.

    The record names the caller's line (``stacklevel``), as the original
    call's did.  ``*_once`` methods (transformers' ``warning_once`` and
    ``info_once``) are an ``lru_cache`` keyed by ``(logger, *args)``: they
    get the arguments as written and no ``stacklevel``, so the cache key is
    the original call's and the message fires once per process, eager and
    compiled calls together (a tensor argument, keyed by identity, makes
    the call as written).  Anything that is not a ``Logger`` is called as
    written.
    """
    loguru = _is_loguru(logger)
    if not loguru and not compat.is_logger(logger):
        if _open(gate):
            getattr(logger, method)(*args)
    elif compiling() and loguru:
        _replay_loguru(gate, method, *encode(args, keep_grad))
    elif compiling() and not _cached_by_identity(method, args):
        # id(logger) is a constant guarded by identity (or, where Dynamo's
        # id() takes no logger, its name); the Logger is found again among
        # the registered loggers when the call is replayed.
        _replay_log(gate, compat.logger_key(logger), method, *encode(args, keep_grad))
    elif _open(gate):
        _log(logger, method, *args)


def _is_loguru(logger) -> bool:
    """Whether ``logger`` is loguru's own ``logger`` (``from loguru import
    logger``), which a replay finds again by its name.  A logger that
    ``bind()``, ``opt()`` or ``patch()`` made carries options a replay
    would lose: it is called as written."""
    loguru = sys.modules.get("loguru")
    return loguru is not None and logger is loguru.logger


def _cached_by_identity(method: str, args: tuple) -> bool:
    """A ``*_once`` call whose cache key holds a tensor (hashed by identity):
    a snapshot would be a new key on every call, so it is made as written
    (under torch.compile: a graph break)."""
    return method.endswith("_once") and any(isinstance(arg, torch.Tensor) for arg in args)


def deferred_warn(message, category: str | None = None, module: str | None = None, stacklevel: int = 1,
                  gate=None, keep_grad=True) -> None:
    """``warnings.warn(message, <category>, stacklevel)``.

    ``category`` is the category's name as written at the call site (e.g.
    ``"FutureWarning"`` or ``"errors.MyWarning"``), resolved in the globals
    of ``module`` (then builtins) as the original expression was; ``None``
    is the default (``UserWarning``, or the class of a Warning ``message``).
    """
    if compiling():
        _replay_warn(gate, category, module, stacklevel, *encode([message], keep_grad))
    elif _open(gate):
        _warn(category, module, stacklevel, message)


def deferred_call(function: str, module: str, *args, gate=None, keep_grad=True, named=(), **kwargs) -> None:
    """``<function>(*args, **kwargs)``, where ``function`` (a dotted name in
    ``module``'s globals) is a function whose only effect is a message: a
    print, a log record or a warning (a library's warning helper).  The
    arguments ``named`` lists (positions, keywords) are given as dotted
    names of module globals (a warning class), resolved when the call is
    made: Dynamo replays a name, not a class."""
    positions = frozenset(p if isinstance(p, int) else len(args) + list(kwargs).index(p) for p in named)
    if compiling():
        # Given an argument Dynamo cannot replay (an object, a class), an
        # ungated helper is called in place, as the original was: Dynamo
        # inlines it, and it breaks the graph only if it reaches its message
        # (a helper that warns about non-empty ``unused_kwargs`` mostly
        # does not).  A gated one would break on its gate: its replay
        # breaks instead, once, and runs in place.
        tokens = encode([*args, *kwargs.values()], keep_grad, strict=gate is None, named=positions)
        if tokens is not None:
            names = tuple(kwargs)
            _replay_call(gate, module, function, len(names), *names, *tokens)
            return
    if named:
        args = tuple(resolve(module, a) if i in positions else a for i, a in enumerate(args))
        kwargs = {k: resolve(module, v) if k in named else v for k, v in kwargs.items()}
    if _open(gate):
        resolve(module, function)(*args, **kwargs)


# --- [Trap] ----------------------------------------------------------------------------


def deferred_check(test, exception: str, module: str, make_args=None, gate=None, untouched=None):
    """The truth test of ``if test: raise <exception>(*make_args())``.

    Returns ``test``'s truth, for the ``if`` to test exactly as before,
    unless ``test`` is a tensor under torch.compile: then the check is made
    after the graph (raising ``<exception>(*make_args())``, or ``raise
    <exception>`` when ``make_args`` is None) and the ``if`` sees False.
    ``exception`` is resolved like :func:`deferred_warn`'s category.
    ``make_args`` is a thunk so that eager code evaluates the message only
    when it raises, as before.  A ``gate`` (an arm of a rewritten ``if``)
    makes the check count only when its arm was taken.  ``untouched``
    (a thunk) gives what an update after the guard writes through
    (``self.n`` of ``self.n += 1``, ``out`` of ``out=out``): the check
    waits only if each is None or a Python number, so that the update
    writes no tensor inside the graph before the check could raise.
    """
    if isinstance(test, torch.Tensor) and compiling() and _may_wait(untouched):
        called = make_args is not None
        _replay_check(gate, snapshot(test), exception, module, called, *encode(_message(make_args)))
        return False
    if gate is not None and not bool(gate):
        return False
    return _truth(test)


def _may_wait(untouched=None) -> bool:
    """Under torch.compile, whether a check may wait for the graph's end.
    Not after a store into an object, list, dict, global or cell that
    existed before the frame (:func:`graphmend.compat.stores_pending`):
    Dynamo applies such stores after the graph's replayed calls, so a
    check that fails there would lose them, where the original raised
    after they were made.  Nor when ``untouched()`` gives a value that is
    not None or a Python number (or cannot be read): an update after the
    guard would write that tensor inside the graph.  Then the graph ends
    here, the call runs eagerly, and the test is taken in Python, as the
    original's was."""
    if compat.stores_pending():
        _fall_back("a store into an object from before the frame waits for the graph's end, and a deferred "
                   "check that fails would lose it: checked in Python")
        return False
    if untouched is not None and not _numbers_or_none(untouched):
        _fall_back("an update after the guard writes through a tensor (`+=` or out=), inside the graph before "
                   "a deferred check could raise: checked in Python")
        return False
    return True


#: What ``+=`` rebinds rather than updates in place: Python numbers, and
#: the symbolic ones Dynamo traces a changing number as.
_NUMBERS = (bool, int, float, complex, torch.SymBool, torch.SymInt, torch.SymFloat)


def _numbers_or_none(values) -> bool:
    """Whether each of ``values()`` is None or a number."""
    try:
        return all(value is None or type(value) in _NUMBERS for value in values())
    except Exception:  # noqa: BLE001 - unreadable at the guard (unset yet): be safe
        return False


def _truth(test):
    """``bool(test)`` for a tensor (what the ``if`` or ``assert`` would
    take), so that a check Dynamo runs eagerly after a break inside it
    hands back no tensor to break on again; anything else as it is."""
    return bool(test) if isinstance(test, torch.Tensor) else test


def deferred_assert(test, module: str, make_args=None, gate=None, untouched=None):
    """The test of ``assert test, message``: ``test`` itself, unless it is a
    tensor under torch.compile; then ``not test`` is checked after the
    graph (raising ``AssertionError(*make_args())``) and the assert passes
    (``untouched``: see :func:`deferred_check`)."""
    if isinstance(test, torch.Tensor) and compiling() and _may_wait(untouched):
        called = make_args is not None
        _replay_assert(gate, snapshot(test), module, called, *encode(_message(make_args)))
        return True
    if gate is not None and not bool(gate):
        return True
    return _truth(test)


def deferred_raise(exception: str, module: str, make_args=None, gate=None, untouched=None) -> None:
    """``raise <exception>(*make_args())`` in an arm of a rewritten ``if``
    that runs unconditionally: raised after the graph when ``gate`` (the
    arm was taken) is true (``untouched``: see :func:`deferred_check`)."""
    called = make_args is not None
    if compiling() and _may_wait(untouched):
        _replay_check(gate, True, exception, module, called, *encode(_message(make_args)))
    elif _open(gate):
        raised = resolve(module, exception)
        raise raised(*make_args()) if called else raised


#: The dtypes ``torch.unique`` takes (on CPU and CUDA alike).
_UNIQUE_DTYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                            torch.float16, torch.bfloat16, torch.float32, torch.float64})


def unique_tested(value, operands=None, method=False, **options):
    """``torch.unique(value, **options)`` (``value.unique(**options)`` with
    ``method``) whose values only tests of their elements under a
    whole-tensor ``any``/``all`` read (a message makes the call again; see
    :mod:`graphmend.rules.unique_reads`).  Under torch.compile ``value``
    itself, where the tests then give the same answer (see
    :func:`_unique_problem`); otherwise the graph breaks here with the
    reason, and the call runs as written, as it does eagerly."""
    if compiling():
        problem = _unique_problem(value, operands)
        if problem is None:
            return value
        _fall_back(problem)
    return value.unique(**options) if method else torch.unique(value, **options)


def _plain(value) -> bool:
    """A tensor of torch's own (a parameter too), not a subclass, whose
    operations may answer otherwise."""
    return type(value) in (torch.Tensor, torch.nn.Parameter)


def _unique_problem(value, operands) -> str | None:
    """Why the tests might answer differently on ``value`` than on its
    unique values, or why ``unique`` might fail where ``value`` does not: a
    tensor subclass (its own ``unique``), a layout, device or dtype
    ``unique`` may refuse, or something to compare with (``operands()``)
    that is not None or a number: a tensor pairs its elements with the
    values by position, and those differ."""
    if not _plain(value):
        return f"unique of a {type(value).__name__} is made as written"
    if value.layout != torch.strided or value.dtype not in _UNIQUE_DTYPES or value.device.type not in ("cpu", "cuda"):
        return f"unique of a {value.dtype} tensor ({value.layout}, {value.device.type}) is made as written"
    if operands is not None and not _numbers_or_none(operands):
        return "a test compares the unique values with a tensor (it would meet other elements than theirs)"
    return None


def _message(make_args) -> tuple:
    """The exception's arguments, built while tracing (even when the check
    will pass).  Where building them fails then (an integer index out of
    range: ``{t[0]}`` of an empty ``t``), the graph breaks here and Dynamo
    runs the whole check eagerly, which tests the original way and builds
    the message only to raise it."""
    if make_args is None:
        return ()
    try:
        return make_args()
    except Exception as error:
        _fall_back(f"the message cannot be built while traced ({type(error).__name__})")
        raise


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
    elif _is_loguru(logger):
        # loguru's depth 0 is the frame that calls the method, stdlib's
        # stacklevel 1: the record names the same (the user's) frame.
        getattr(logger.opt(depth=_stacklevel_past_runtime(1) - 1), method)(*args)
    else:
        getattr(logger, method)(*args, stacklevel=_stacklevel_past_runtime(1))


def _warn(category: str | None, module: str | None, stacklevel: int, message) -> None:
    warnings.warn(message, resolve(module, category), _stacklevel_past_runtime(stacklevel))


#: Frames that are not the user's: this module and Dynamo's
#: ``torch.compiler.disable`` wrapper around the replay functions.
_RUNTIME_FILES = frozenset({__file__, torch._dynamo.eval_frame.__file__})


def _stacklevel_past_runtime(stacklevel: int) -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` or logger call from
    the caller of this function count ``stacklevel`` from the user's frame.

    Counting frames is right on every path: eager (through the dispatcher),
    replayed after a graph (from the compiled frame, through the disable
    wrapper) and the eager fallback after a graph break.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename in _RUNTIME_FILES:
        frame, level = frame.f_back, level + 1
    return level + stacklevel - 1


@compat.register_replay
def _replay_print(gate, stream, sep, end, flush, *tokens) -> None:
    if _open(gate):
        _print(stream, sep, end, flush, *decode(tokens))


@compat.register_replay
def _replay_warn(gate, category, module, stacklevel, *tokens) -> None:
    if _open(gate):
        _warn(category, module, stacklevel, *decode(tokens))


@compat.register_replay
def _replay_log(gate, key, method: str, *tokens) -> None:
    if _open(gate):
        _log(compat.find_logger(key), method, *decode(tokens))


@compat.register_replay
def _replay_loguru(gate, method: str, *tokens) -> None:
    if _open(gate):
        _log(sys.modules["loguru"].logger, method, *decode(tokens))


@compat.register_replay
def _replay_call(gate, module: str, function: str, keyword_count: int, *rest) -> None:
    if _open(gate):
        names, values = rest[:keyword_count], decode(rest[keyword_count:], module)
        positional = values[: len(values) - keyword_count]
        resolve(module, function)(*positional, **dict(zip(names, values[len(positional):])))


@compat.register_replay
def _replay_check(gate, test, exception: str, module: str, called: bool, *tokens) -> None:
    if _open(gate) and test:
        raised = resolve(module, exception)
        raise raised(*decode(tokens)) if called else raised


@compat.register_replay
def _replay_assert(gate, test, module: str, called: bool, *tokens) -> None:
    if _open(gate) and not test:
        raise AssertionError(*decode(tokens)) if called else AssertionError


# --- [Where] ---------------------------------------------------------------------------

# Rewritten ``if T:`` statements read ``if is_tensor(c): <both arms,
# merged by where()> elif c: <original arm> else: <original arm>``.
# Every helper below falls back to exactly what the original statement did
# whenever it cannot prove that the predicated form selects the same bits.

#: Non-tensor leaf types whose ``==`` means "the same value" (floats are
#: excluded: 0.0 == -0.0 and nan != nan).
_EXACT_EQUALITY_TYPES = (int, bool, str, type(None), torch.dtype, torch.device)


def checked_in_python(test):
    """The test of an ``assert`` that stays in the code behind a rewritten
    site: ``test`` itself, but under torch.compile, when the frame traced
    so far has effects that wait for the graph's end
    (:func:`graphmend.compat.effects_pending`), a tensor ends the graph here
    and ``bool(test)`` runs in Python.  Dynamo would compile ``assert
    tensor`` into an assertion inside the graph, which fails (with a
    RuntimeError) before the graph's Python effects and deferred messages
    happen; the break a rewrite removed before the assert used to flush them.
    With nothing waiting, the assert stays in the graph, as the original's
    did in the graph after that break.  The break is a break inside this
    call, so Dynamo runs the call eagerly: a test that holds gives ``True``
    there (the assert would otherwise meet the tensor again and break a
    second time); one that fails gives the tensor back, for the assert to
    fail exactly as the original's does."""
    if isinstance(test, torch.Tensor) and (not compiling() or compat.effects_pending()):
        _fall_back("an assert that follows a rewritten site is checked in Python, after the effects before it")
        return True if bool(test) else test
    return test


def is_tensor(value: object) -> bool:
    """Whether the predicated form applies: a tensor test under
    torch.compile (Dynamo folds this to a constant).  Eager code keeps the
    original Python branch: it computes one branch, not both, and raises
    exactly what the original raised, a branch that would fail when not
    taken included."""
    return isinstance(value, torch.Tensor) and compiling()


def arm(condition, taken: bool, outer=None):
    """The gate of one arm of a rewritten ``if``: whether ``bool(condition)
    is taken``, and-ed with the gate of the arm around it (``outer``).  A
    one-element bool tensor for a one-element tensor ``condition``; the
    Python answer otherwise (``bool()`` of a larger tensor raises, as the
    original ``if`` did)."""
    predicate = _scalar_predicate(condition)
    if predicate is None:
        here = bool(condition) is taken
    else:
        here = predicate if taken else predicate.logical_not()
    if outer is None:
        return here
    if isinstance(outer, torch.Tensor) or isinstance(here, torch.Tensor):
        return torch.logical_and(torch.as_tensor(outer), torch.as_tensor(here))
    return outer and here


def not_(value):
    """``not value``; a one-element tensor under torch.compile gives a
    tensor with that truth value instead of a graph break."""
    if is_tensor(value):
        predicate = _scalar_predicate(value)
        if predicate is not None:
            return predicate.logical_not()
    return not value


def equal(a, b):
    """``torch.equal(a, b)``, a Python bool that Dynamo reads back from the
    tensors (``aten.equal``, a "Data dependent operator" break).  Under
    torch.compile, for plain strided tensors of one dtype and device: False
    when the shapes differ (known while tracing), else ``(a == b).all()``,
    a 0-dim bool tensor with the same truth (a NaN is unequal to itself in
    both; the rule proved one operand a fresh result, so the two share no
    memory).  Otherwise, and eagerly, ``torch.equal`` itself."""
    if compiling() and _plain(a) and _plain(b):
        if a.dtype == b.dtype and a.device == b.device and a.layout == b.layout == torch.strided:
            return False if a.shape != b.shape else (a == b).all()
        _fall_back("torch.equal of tensors that differ in dtype, device or layout")
    return torch.equal(a, b)


def and_(left, right):
    """The truth value of ``left and right()``: ``right`` is a thunk of the
    right operand (the rule proved it free of effects).  Under
    torch.compile, with a tensor on the left, it is evaluated whatever
    ``left`` is, and one-element tensors or bools combine into a tensor;
    when it raises (``torch.any`` of a Python bool) or a side does not
    combine, and eagerly, Python's short-circuit decides."""
    combined = _combine(left, right, torch.logical_and)
    return (left and right()) if combined is None else combined


def or_(left, right):
    """The truth value of ``left or right()`` (see :func:`and_`)."""
    combined = _combine(left, right, torch.logical_or)
    return (left or right()) if combined is None else combined


def _combine(left, right, operation):
    if not (compiling() and isinstance(left, torch.Tensor)):
        return None
    try:
        value = right()
    except Exception:  # raised again by Python's order, only if the left side does not decide
        return None
    sides = []
    for side in (left, value):
        predicate = _scalar_predicate(side) if isinstance(side, torch.Tensor) else None
        if predicate is None and type(side) is not bool:
            return None
        sides.append(side if predicate is None else predicate)
    return operation(torch.as_tensor(sides[0]), torch.as_tensor(sides[1]))


def where(condition, if_true, if_false, grad: bool = False, one_sided=(), truth: bool = False):
    """``if_true if condition else if_false``, computed as ``torch.where``.

    Applied leaf by leaf to equal pytrees when ``condition`` is a
    one-element tensor and every pair of tensor leaves has the same dtype,
    shape, device and layout, so ``torch.where`` neither promotes nor
    broadcasts and copies exactly the selected bits.  Under autograd (grad
    enabled and a leaf requiring grad) it applies only with ``grad``: the
    rule proved every operation of both arms has a derivative that does not
    depend on values, so the unselected arm's zero gradient stays zero
    instead of turning ``0 * inf`` into NaN; and only when none of
    ``one_sided`` (the values just one arm's result may depend on, see
    :mod:`graphmend.analysis.gradients`) requires grad, since the merged
    value passes a zero gradient to them where the original passes none
    (``None``).  With ``truth`` the code reads the value only for its
    truth (the rule proved it), so a Python bool and a one-element tensor
    both become 0-dim bool tensors of the same truth and merge.  Where it
    does not apply, the original Python choice runs, ``bool(condition)``
    included, with its graph break (named with the reason) and its error
    for a multi-element tensor.
    """
    predicate = _scalar_predicate(condition)
    if predicate is not None and _same_tensors(if_true, if_false):  # merged already (by torch.cond in both_arms)
        return if_true
    if truth and predicate is not None:
        if_true, if_false = _truth_value(if_true, predicate), _truth_value(if_false, predicate)
    problem = ("the test is not a one-element tensor" if predicate is None
               else _merge_problem(if_true, if_false, grad, one_sided))
    if problem is not None:
        _fall_back(problem)
        return if_true if condition else if_false
    # The predicate moves to each leaf's device (a 0-dim bool copies exactly).
    return _pytree.tree_map(
        lambda a, b: torch.where(predicate.to(a.device), a, b) if isinstance(a, torch.Tensor) else a,
        if_true,
        if_false,
    )


def _same_tensors(if_true, if_false) -> bool:
    """Whether the two pytrees hold the very same tensors, and only tensors
    (Dynamo cannot trace ``is`` between two tuples, and torch 2.11's
    cannot trace ``bool()`` of a list)."""
    true_leaves, true_spec = _pytree.tree_flatten(if_true)
    false_leaves, false_spec = _pytree.tree_flatten(if_false)
    return len(true_leaves) > 0 and true_spec == false_spec and all(
        isinstance(a, torch.Tensor) and a is b for a, b in zip(true_leaves, false_leaves))


def _fall_back(problem: str) -> None:
    """Under torch.compile, break the graph here with the reason the
    predicated form does not apply (``diagnose`` reports it at the user's
    line as "rewritten, still breaks: graphmend: ...")."""
    if compiling():
        compat.graph_break(f"graphmend: {problem}")


def select(condition, if_true, if_false, grad: bool = False, one_sided=tuple, by_cond: bool = False):
    """``if_true() if condition else if_false()`` (a conditional expression).

    With a tensor ``condition`` under torch.compile both thunks run (the
    rule proved them free of effects, see :func:`both_arms`) and
    :func:`where` merges them; otherwise only the chosen one runs.
    ``one_sided`` is a thunk of :func:`where`'s ``one_sided`` values; with
    ``by_cond`` (each branch reads its values once) a value that requires
    grad merges by ``torch.cond`` (see :func:`both_arms`).
    """
    values = both_arms(condition, lambda: (if_true(),), lambda: (if_false(),),
                       by_cond=one_sided() if by_cond else None, linear=grad)
    if not isinstance(values, tuple):
        return if_true() if values else if_false()
    return where(condition, *values, grad=grad, one_sided=one_sided() if grad else ())


def both_arms(condition, if_true, if_false, by_cond=None, linear: bool = False):
    """The values of both arms of a rewritten ``if`` (each a thunk giving a
    tuple), concatenated into one tuple for :func:`where` to merge; or,
    where the original ``if`` must run instead, ``bool(condition)``: the arm
    to run.  That is so eagerly, for a test that is not a one-element
    tensor under torch.compile, and when an arm raises.

    ``by_cond`` (given where the rule proved each arm reads every value
    that may carry a gradient once and has no effects, see
    :func:`_merged_by_cond`) holds the values only one arm may depend on:
    under autograd the values that require grad are then merged by one
    ``torch.cond`` over the two arms instead of ``torch.where``.  With
    ``linear`` (every operation of the arms has a derivative that does
    not depend on values) ``torch.where`` may merge them where
    ``torch.cond`` cannot: its gradients are exact but for the sign of a
    zero, since it adds the untaken arm's zero gradient (``-0.0 + 0.0`` is
    ``0.0``), which ``torch.cond`` never computes.

    An arm that is not taken may fail (``v.clone()`` of a ``None``, a
    shape error): its error must not be raised.  Dynamo either traces the
    ``except`` (then the graph breaks here, with the reason) or breaks at
    this call and runs it eagerly, where it takes the truth of the test at
    once; so does a graph break anywhere inside an arm.  Either way the
    original arm runs next, and raises only what the original raised: the
    arms are whole functions, so no half of the predicated form is ever
    left to run eagerly after a break inside it.  The truth is taken here,
    in the call that broke, so that falling back costs one graph break, as
    the original ``if`` did, not a second one at the dispatch's own test
    (an ``if`` nested in an arm whose merge falls back would otherwise add
    a break to every ``if`` around it).
    """
    if not is_tensor(condition):
        return bool(condition)
    if _scalar_predicate(condition) is None:
        _fall_back("the test is not a one-element tensor")
        return bool(condition)
    try:
        values = (*if_true(), *if_false())
    except Exception as error:
        _fall_back(f"a branch fails when not taken ({type(error).__name__})")
        return bool(condition)
    if by_cond is None or not torch.is_grad_enabled():
        return values
    return _merged_by_cond(condition, if_true, if_false, values, by_cond, linear)


def _merged_by_cond(condition, if_true, if_false, values: tuple, one_sided: tuple, linear: bool = False):
    """``values`` (both arms' values, see :func:`both_arms`) with each value
    that requires grad in either arm replaced, in both halves, by the value
    of one ``torch.cond`` over the two arms; or ``bool(condition)`` where
    that is not exact.

    Under autograd ``torch.where`` sends the arm not taken a zero gradient,
    which its backward can turn into NaN (``0 * inf`` in a division's
    derivative).  ``torch.cond`` runs only the taken arm's backward, so the
    gradients are the eager ones when: nothing in ``one_sided`` requires
    grad (``torch.cond`` gives those a zero gradient where eager code gives
    none); the merged tensors agree in dtype, shape, strides, device and
    whether they require grad (the original's result requires grad only if
    the taken arm's does); and each arm reads every value that may carry a
    gradient once (the rule proved it): a value read twice inside an arm
    and again outside would get the arm's two gradients summed first, a
    different rounding.  The arms ran once already while traced, so they
    trace again inside ``torch.cond``, which has no graph break to fall
    back to.  Each merged tensor is cloned inside its branch: ``torch.cond``
    may not return its inputs (the bits are the same; so was a
    ``torch.where``'s new tensor)."""
    half = len(values) // 2
    pairs = list(zip(values[:half], values[half:]))
    carried = [i for i, (a, b) in enumerate(pairs) if _requires_grad(a) or _requires_grad(b)]
    if not carried:
        return values
    problem = _cond_problem([pairs[i] for i in carried], one_sided)
    if problem is not None and linear:
        return values  # torch.where merges them
    if problem is not None:
        _fall_back(problem)
        return bool(condition)

    def branch(arm):
        def leaves():
            produced = arm()
            return tuple(leaf.clone() for i in carried for leaf in _pytree.tree_leaves(produced[i]))
        return leaves

    merged_leaves = iter(torch.cond(_scalar_predicate(condition), branch(if_true), branch(if_false), ()))
    merged = list(values[:half])
    for i in carried:
        leaves, spec = _pytree.tree_flatten(merged[i])
        merged[i] = _pytree.tree_unflatten([next(merged_leaves) for _ in leaves], spec)
    return (*merged, *merged)


#: Why no higher-order op is traced after an attribute store (see
#: :func:`graphmend.compat.attribute_stores_pending`).
_HOP_LOSES_STORES = ("the frame stored into an attribute (or read an object's __dict__) before: Dynamo would "
                     "drop its attribute stores after a torch.cond or torch.while_loop")


def _cond_problem(pairs: list, one_sided: tuple) -> str | None:
    """Why ``torch.cond`` cannot merge ``pairs`` exactly (see :func:`_merged_by_cond`), or None."""
    if compat.attribute_stores_pending():
        return _HOP_LOSES_STORES
    if _requires_grad(one_sided):
        # Also where a gradient reaches it through what both arms read: summed with that one, the zero
        # of its own turns a -0.0 into 0.0 (see rules.where.arms._cond_sources).
        return ("under autograd, a value only one branch reads requires grad: torch.cond would give it "
                "a zero gradient of its own, where the original gives none or one that may be -0.0")
    for if_true, if_false in pairs:
        true_leaves, true_spec = _pytree.tree_flatten(if_true)
        false_leaves, false_spec = _pytree.tree_flatten(if_false)
        if true_spec != false_spec:
            return "the branches give values of different structures"
        for a, b in zip(true_leaves, false_leaves):
            if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
                return "under autograd, a branch gives a tensor that requires grad and the other a Python value"
            if a.requires_grad != b.requires_grad:
                return "under autograd, one branch gives a tensor that requires grad and the other one that does not"
            if (a.dtype, a.shape, a.device) != (b.dtype, b.shape, b.device) or a.stride() != b.stride():
                return "the branches give tensors of different dtypes, shapes, strides or devices"
            if a.layout != torch.strided or b.layout != torch.strided or a.is_quantized or b.is_quantized:
                return "the branches give tensors of a layout torch.cond does not take"
    return None


#: The dtypes of tensors that index by position (bool and uint8 are masks).
_INDEX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8)


def nonnegative_row(indexed, index):
    """``indexed[index]`` in an arm whose test proved ``index >= 0`` where
    it is taken, with ``index`` clamped at 0: where the arm is not taken but
    runs (a predicated form), a negative index must not index out of range
    inside the graph.  Exact where taken; an index too large fails there as
    the original's does.  A 0-dim index goes through advanced indexing, as
    one row (the same bits): Dynamo would read it back into Python, a graph
    break.  An empty first dimension raises here, while traced, so the
    original choice runs; so do effects waiting for the graph's end, which
    an index too large would raise before."""
    if not (isinstance(index, torch.Tensor) and isinstance(indexed, torch.Tensor)) or index.dtype not in _INDEX_DTYPES:
        return indexed[index]  # bool and uint8 index as masks
    if indexed.dim() == 0 or indexed.shape[0] == 0:
        raise IndexError("graphmend: no row to index where the arm is not taken")
    if compiling() and compat.effects_pending():
        raise IndexError(f"graphmend: {_RAISES_BEFORE_EFFECTS}")
    clamped = index.clamp(min=0)
    return indexed[clamped.reshape(1)][0] if clamped.dim() == 0 else indexed[clamped]


def scalar_index(value, index):
    """``value[index]`` where ``index`` (one element, or a tuple of them) may
    hold a 0-dim integer tensor (``self._t[i]``, ``x[..., i + 1, :]``, with
    ``i`` from ``bucketize`` or ``argmax``).

    ``Tensor.__getitem__`` takes such a tensor as a Python int: it reads
    the value back (``aten._local_scalar_dense``), a graph break without
    ``capture_scalar_outputs``.  Under torch.compile, where that would
    happen, the element is gathered with integer index tensors instead (see
    :func:`_gathering`): the same elements, shape and ``IndexError`` (its
    text names the same dimension) for an index out of range.  The result
    is a copy where the original's is a view; the rule proved nothing can
    tell (an operand of element-wise arithmetic, in a function that
    updates no tensor in place), and the value is contiguous, so what is
    computed from it has the original's memory order.  Where that does not
    apply (see :func:`_scalar_index_problem`) the original indexing runs,
    with its graph break, named; without a 0-dim integer tensor in
    ``index``, the original indexing runs as it is.

    Under autograd the gradient is the original's bit for bit: copied into
    zeros at the elements (:class:`_GatheredIndex`), as ``select``'s
    backward does, where integer indexing's own backward adds it to zeros
    (``0.0 + -0.0`` is ``0.0``)."""
    if compiling() and isinstance(value, torch.Tensor):
        elements = index if type(index) is tuple else (index,)
        scalars = [k for k, element in enumerate(elements) if _is_scalar_index(element)]
        if scalars:
            problem = _scalar_index_problem(value, elements, scalars)
            if problem is None:
                grid, indices, squeezed = _gathering(value, elements)
                # Gathered outside the autograd function, whose graph would add to an IndexError's text.
                gathered = grid.detach()[indices]
                if gathered.numel() == 0:
                    problem = "nothing is selected (an index out of range would not fail)"
                elif torch.is_grad_enabled() and value.requires_grad:
                    return _GatheredIndex.apply(value, gathered, *elements).squeeze(squeezed)
                else:
                    return gathered.squeeze(squeezed)  # no gradient to carry: the detached gather is the value
            _fall_back(problem)
    return value[index]


def _gathering(value, elements: tuple) -> tuple:
    """``(grid, indices, squeezed)``: ``grid[indices].squeeze(squeezed)`` is
    ``value[elements]`` for elements holding one 0-dim integer tensor.

    Each element up to that tensor becomes an integer index tensor along its
    own axis (an int one position, a slice its positions, ``...`` the
    slices it stands for, ``None`` a new axis of ``grid``, a view of
    ``value``), the 0-dim tensor one position: they broadcast to the grid
    of the elements the original selects, in its order, and the elements
    after it index the rest as they did.  An index out of range fails as
    ``select`` does, naming the same dimension (the ordinal of the index
    tensor is the dimension ``select`` counts: ints, slices, ``None`` and
    ``...`` before it, one each, so only a ``...`` of one dimension may come
    before it).  The axes of the ints and of the tensor are squeezed.""" 
    k = next(k for k, element in enumerate(elements) if _is_scalar_index(element))
    taken = sum(element is not None and element is not Ellipsis for element in elements)
    before = []
    for element in elements[:k]:
        before += [slice(None)] * (value.dim() - taken) if element is Ellipsis else [element]
    axes = len(before) + 1
    grid, indices, squeezed = value, [], []
    for axis, element in enumerate(before):
        if element is None:
            grid = grid.unsqueeze(axis)
            element = slice(None)
        if isinstance(element, slice):
            positions = torch.arange(grid.shape[axis], device=value.device)[element]
        else:
            positions = torch.tensor([element], device=value.device)
            squeezed.append(axis)
        indices.append(positions.reshape([-1 if m == axis else 1 for m in range(axes)]))
    indices.append(elements[k].to(value.device).reshape([1] * axes))
    squeezed.append(axes - 1)
    return grid, (*indices, *elements[k + 1:]), tuple(squeezed)


class _GatheredIndex(torch.autograd.Function):
    """``gathered``, the elements of ``value[elements]`` (:func:`_gathering`,
    not squeezed), as a function of ``value`` whose gradient is copied into
    zeros at those elements (each once), as ``select``'s and slicing's
    backward copy it."""

    @staticmethod
    def forward(ctx, value, gathered, *elements):
        k = next(k for k, element in enumerate(elements) if isinstance(element, torch.Tensor))
        ctx.save_for_backward(elements[k])
        ctx.k, ctx.elements, ctx.shape = k, elements[:k] + (None,) + elements[k + 1:], value.shape
        return gathered.clone()

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        elements = ctx.elements[:ctx.k] + (index,) + ctx.elements[ctx.k + 1:]
        grad_value = grad.new_zeros(ctx.shape)
        grid, indices, _ = _gathering(grad_value, elements)
        grid[indices] = grad
        return (grad_value, None, *(None for _ in elements))


def _is_scalar_index(element) -> bool:
    """Whether ``Tensor.__getitem__`` reads ``element`` back as a Python int."""
    return isinstance(element, torch.Tensor) and element.dim() == 0 and element.dtype in _INDEX_DTYPES


def _scalar_index_problem(value, elements: tuple, scalars: list) -> str | None:
    """Why :func:`scalar_index` cannot gather, or None."""
    if not _plain(value) or value.layout != torch.strided:
        return "the indexed value is a tensor subclass or not strided"
    if not value.is_contiguous():
        return "the indexed value is not contiguous (a copy of the elements would change their memory order)"
    if len(scalars) > 1 or sum(isinstance(element, torch.Tensor) for element in elements) > 1:
        return "several tensors index at once (their dimensions would move)"
    if sum(element is Ellipsis for element in elements) > 1 or not all(map(_basic_index, elements)):
        return "an index element other than an int, a slice of ints, None or ..."
    taken = sum(element is not None and element is not Ellipsis for element in elements)
    if taken > value.dim():
        return "more indices than dimensions"
    if any(element is Ellipsis for element in elements[:scalars[0]]) and value.dim() - taken != 1:
        # select's IndexError counts the ``...`` as one dimension.
        return "a ``...`` before the index stands for other than one dimension"
    index = elements[scalars[0]]
    if index.device != value.device and index.device.type != "cpu":
        return "the index tensor is on another device"
    if compat.effects_pending():
        return _RAISES_BEFORE_EFFECTS
    return None


#: Why an index that may be out of range is not read inside the graph.
_RAISES_BEFORE_EFFECTS = ("effects wait for the graph's end (a deferred message, a store), and an index out of "
                          "range would raise inside the graph, before them")


def _basic_index(element) -> bool:
    """An int, a slice of ints, None, ``...`` or a tensor (checked apart)."""
    if isinstance(element, slice):
        return all(part is None or (type(part) in (int, torch.SymInt)) for part in
                   (element.start, element.stop, element.step))
    return element is None or element is Ellipsis or type(element) in (int, torch.SymInt) or isinstance(
        element, torch.Tensor)


def masked_store(target, mask, value_of, *operands, grad: bool = False, gate=None) -> None:
    """``target[mask] = value_of(*(a[mask] for a in operands))``.

    Under torch.compile, where it is exact (see :func:`_masked_store_problem`),
    the value is computed on the whole operands and ``torch.where`` selects
    it under the mask, copied into ``target`` in place: no bool indexing,
    so no output shape that depends on data.  The rule proved ``value_of``
    element-wise and correctly rounded, so each selected element gets the
    bits the original gives it.  Under autograd (with ``grad``: the rule
    proved each operand read once, so no operand sums two gradients of its
    own first) the gradients of the elements the mask leaves out are
    dropped, and each selected element's gradient is the original's, bit for
    bit (the derivatives of these operations are element-wise and exact
    too; see :func:`_masked_operand`).  Otherwise, and eagerly, the
    original statement runs; with a bool mask, under torch.compile, after a
    graph break named with the reason (the original breaks there too).

    With ``gate`` (the store is in an arm of a predicated ``if``, which runs
    whether taken or not) the mask is ``mask & gate``: where the arm is not
    taken the store writes back the target's own values.  With gradients
    enabled that write could still be seen (a version change of a tensor
    autograd saved, a ``grad_fn``), so a gated store there takes the
    original path (see :func:`_gated_store_problem`): its graph break makes
    the whole ``if`` run as the original.
    """
    if not (compiling() and isinstance(gate, torch.Tensor)) and not _open(gate):
        return
    # Only indexing by a bool mask breaks the graph (unless Dynamo is set to trace its dynamic size).
    if compiling() and isinstance(mask, torch.Tensor) and mask.dtype == torch.bool and not (
            torch._dynamo.config.capture_dynamic_output_shape_ops):
        problem = _masked_store_problem(target, mask, operands, grad)
        if problem is None and isinstance(gate, torch.Tensor):
            problem = _gated_store_problem()
            if problem is None:
                mask = mask & gate.reshape(())
        if problem is None:
            if torch.is_grad_enabled():
                operands = tuple(_masked_operand(a, mask) if a.requires_grad else a for a in operands)
            whole = value_of(*operands)
            if (isinstance(whole, torch.Tensor) and whole.dtype == target.dtype
                    and _squeezed(whole.shape) == _squeezed(target.shape)):
                # Only squeeze() changes the shape: row-major order is kept.
                merged = torch.where(mask, whole.reshape(target.shape), target)
                if merged.requires_grad:
                    # The target's grad_fn is then IndexPutBackward0, as the original's (an error about a
                    # saved tensor this store modifies names it), where copy_ would make CopyBackwards.
                    target.index_put_(_every_index(target), merged)
                else:
                    target.copy_(merged)
                return
            problem = "the value on the whole tensor differs from the target in shape or dtype"
        _fall_back(problem)
        if not _open(gate):  # past the break (nested graph breaks), the gate is read eagerly
            return
    target[mask] = value_of(*(operand[mask] for operand in operands))


def _masked_operand(operand, mask):
    """``operand``, for a value computed on every element under autograd:
    the gradient of an element the mask leaves out (which the original never
    computes, and which may be ``0 / 0``) is dropped by ``torch.where``, and
    the others are summed into zeros by the backward of integer indexing,
    as the original's bool indexing sums them (``0 + -0.0`` is ``0.0``)."""
    rows = operand.reshape(-1)[torch.arange(operand.numel(), device=operand.device)].reshape(operand.shape)
    return torch.where(mask, rows, rows.detach())


def _gated_store_problem() -> str | None:
    """Why a store in an arm that may not be taken cannot write the
    target's own values back there, or None.  The rule proved the function
    made the target itself, so no caller holds it, and it is an inference
    tensor only if made in inference mode, where writing it is allowed;
    but with gradients enabled autograd may have saved it (the write would
    change its version)."""
    if torch.is_grad_enabled():
        return "with gradients enabled, a store in an arm that is not taken would still write the target"
    return None


def _every_index(tensor) -> tuple:
    """Integer index tensors that select every element of ``tensor`` (of one
    dimension or more) in place, broadcast against each other."""
    return tuple(torch.arange(size, device=tensor.device).reshape([size if j == i else 1 for j in range(tensor.dim())])
                 for i, size in enumerate(tensor.shape))


def _dense(tensor) -> bool:
    """Whether ``tensor``'s elements fill its memory once each, in some
    order of its dimensions (contiguous, or transposed like ``torch.t``'s
    result): no element is stored twice, as in an expanded tensor."""
    if tensor.is_contiguous():
        return True
    expected = 1
    for stride, size in sorted((stride, size) for size, stride in zip(tensor.shape, tensor.stride()) if size != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _squeezed(shape) -> tuple:
    return tuple(size for size in shape if size != 1)


def _masked_store_problem(target, mask, operands: tuple, grad: bool) -> str | None:
    """Why :func:`masked_store` cannot compute on the whole tensors, or None."""
    tensors = (target, mask, *operands)
    if not all(isinstance(value, torch.Tensor) for value in tensors):
        return "the masked store reads values that are not tensors"
    if any(value.shape != mask.shape or value.device != mask.device or value.layout != torch.strided
           for value in tensors):
        return "the mask, the target and the values differ in shape or device"
    if not _dense(target):
        return "the target of the masked store is not dense (its elements may share memory)"
    if any(value.is_complex() for value in tensors):
        # Complex products and quotients are not correctly rounded, and SIMD and scalar kernels differ.
        return "the masked store computes with complex tensors"
    if torch.is_grad_enabled() and any(value.requires_grad for value in tensors):
        if not grad:
            # The rule leaves grad out for either reason (see rules/where/masked_store.py).
            return ("under autograd, the masked store reads a value twice (its gradients would be summed in "
                    "another order) or the function shows the target's grad_fn")
        if target.requires_grad:
            # Overwritten in place, its old values would take their gradient as a sum of two.
            return "under autograd, the target of the masked store requires grad itself"
        if target.dim() == 0:
            return "under autograd, the target of the masked store has no dimension to index"
    return None


def empty_arm() -> tuple:
    """The arm of an ``if`` that has none (an else-less ``if``): no values."""
    return ()


def while_loop(cond_fn, body_fn, carried):
    """``while cond_fn(*carried): carried = body_fn(*carried)``; the final values.

    Under torch.compile it is ``torch.while_loop`` (one graph, however many
    iterations) when every carried value is a tensor that keeps its shape,
    dtype and device through the body, the test is a one-element tensor,
    and nothing requires grad (``torch.while_loop`` has no backward that
    stays in the graph); the body is run once while tracing to check that
    (it is pure, so the graph drops what it computed).  Otherwise, and
    eagerly, the same functions run as a Python loop: the original loop.
    """
    carried = tuple(carried)
    if compiling():
        problem = _loop_problem(cond_fn, body_fn, carried)
        if problem is None:
            return tuple(torch.while_loop(lambda *values: _scalar_predicate(cond_fn(*values)), body_fn, carried))
        _fall_back(problem)
    while cond_fn(*carried):
        carried = tuple(body_fn(*carried))
    return carried


def _loop_problem(cond_fn, body_fn, carried: tuple) -> str | None:
    """Why ``torch.while_loop`` cannot run this loop, or None."""
    if compat.attribute_stores_pending():
        return _HOP_LOSES_STORES
    if not all(isinstance(value, torch.Tensor) for value in carried):
        return "the loop carries values that are not tensors"
    if torch.is_grad_enabled() and any(value.requires_grad for value in carried):
        return "under autograd, torch.while_loop has no backward in the graph"
    if _scalar_predicate(cond_fn(*carried)) is None:
        return "the loop's test is not a one-element tensor"
    out = tuple(body_fn(*carried))
    if len(out) != len(carried) or not all(
        isinstance(new, torch.Tensor)
        and (new.shape, new.dtype, new.device, new.layout) == (old.shape, old.dtype, old.device, old.layout)
        for new, old in zip(out, carried)
    ):
        return "the loop's values change shape or dtype"
    return None


def _truth_value(value, like: torch.Tensor):
    """``value`` as a 0-dim bool tensor on ``like``'s device when its truth
    is one bool or one tensor element; else ``value`` unchanged."""
    if type(value) is bool:
        return torch.tensor(value, device=like.device)
    predicate = _scalar_predicate(value)
    return value if predicate is None else predicate


def _scalar_predicate(condition):
    """``condition`` as a 0-dim bool tensor with ``bool()``'s truth value, or
    None when ``bool(condition)`` would not read one tensor element."""
    if not isinstance(condition, torch.Tensor) or condition.numel() != 1:
        return None
    scalar = condition.reshape(())
    # bool(t) is "t != 0" for every dtype, nan included.
    return scalar if scalar.dtype == torch.bool else scalar != 0


def _merge_problem(if_true, if_false, grad: bool, one_sided=()) -> str | None:
    """Why ``torch.where`` cannot merge the two values exactly, or None."""
    true_leaves, true_spec = _pytree.tree_flatten(if_true)
    false_leaves, false_spec = _pytree.tree_flatten(if_false)
    if true_spec != false_spec:
        return "the branches give values of different structures"
    under_autograd = torch.is_grad_enabled() and not grad
    for a, b in zip(true_leaves, false_leaves):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if a.dtype != b.dtype:
                return f"the branches give tensors of different dtypes ({a.dtype}, {b.dtype})"
            if a.shape != b.shape:
                # Ranks, not sizes: a size may be symbolic (dynamic shapes), and
                # graph_break's message must be a constant while traced.
                return f"the branches give tensors of different shapes (of {a.dim()} and {b.dim()} dimensions)"
            if a.device != b.device or a.layout != torch.strided or b.layout != torch.strided or a.is_quantized:
                return "the branches give tensors on different devices or layouts"
            if under_autograd and (a.requires_grad or b.requires_grad):
                return "under autograd, torch.where would not give the exact gradients of these branches"
        elif not (a is b or (type(a) is type(b) and isinstance(a, _EXACT_EQUALITY_TYPES) and a == b)):
            return "the branches give different Python values"
    if torch.is_grad_enabled() and grad and any(_requires_grad(value) for value in one_sided):
        return ("under autograd, a value only one branch reads requires grad: torch.where would give it "
                "a zero gradient where the original gives none")
    return None


def _requires_grad(value) -> bool:
    """Whether a tensor in ``value`` (a pytree, or a module's parameters) requires grad."""
    if isinstance(value, torch.nn.Module):
        return any(parameter.requires_grad for parameter in value.parameters())
    return any(isinstance(leaf, torch.Tensor) and leaf.requires_grad for leaf in _pytree.tree_leaves(value))


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
    if compiling() and not compat.TRACES_MODULE_DICT:
        return False  # the scan below would break the graph (torch 2.11): re-register
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


#: Below this magnitude ``torch.arange``'s length, computed in doubles, is exact.
_EXACT_ARANGE_BOUND = 2**31


def arange_list(*args):
    """``torch.arange(*args).tolist()``, as ``list(range(*args))`` when every
    argument is a Python int: the same ints, with no tensor data read back
    (which would break the graph).  Anything else (floats, bools, tensors,
    large values, a step whose sign does not lead from start to end, on
    which torch.arange raises where range() is empty) runs the original."""
    if all(type(arg) is int and -_EXACT_ARANGE_BOUND < arg < _EXACT_ARANGE_BOUND for arg in args):
        start, end, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        if (step > 0 and end >= start) or (step < 0 and end <= start):
            return list(range(*args))
    return torch.arange(*args).tolist()


# --- Calls from eager code ----------------------------------------------------
# Dynamo inlines the functions above into the graph of the rewritten code it
# traces, where ``torch.compiler.is_compiling()`` is True.  Rewritten code
# that runs eagerly under torch.compile (the statement at a graph break, a
# frame Dynamo gave up on) calls them as frames of their own instead, and
# Dynamo would compile each of those with ``is_compiling()`` folded to True:
# ``is_tensor`` would pick the predicated form in eager code.  Every
# module-level function here is skipped as a frame of its own (not a list,
# so a helper added later cannot be forgotten); inlining is unaffected.

compat.skip_frames(
    value for value in list(vars(sys.modules[__name__]).values())
    if isinstance(value, types.FunctionType) and value.__code__.co_filename == __file__
)
compat.install()
