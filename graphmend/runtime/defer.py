"""[Defer]: ``print``, logger calls, ``warnings.warn`` and calls of effect
helpers, replayed after the graph.

Each ``deferred_*`` function does exactly what the original statement did
when called eagerly.  Under torch.compile it hands encoded arguments to a
``_replay_*`` function registered in Dynamo's
``reorderable_logging_functions``, which Dynamo records while tracing and
calls after the graph, in program order, with the same text, logger,
level, warning category and stack level (counted from the user's frame).
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

import torch

from graphmend import compat
from graphmend.runtime.common import _fall_back, _open, compiling, global_value
from graphmend.runtime.encoding import decode, encode


def deferred_print(*values, sep=" ", end="\n", stream="stdout", flush=False, gate=None, keep_grad=True) -> None:
    """``print(*values, sep=sep, end=end, file=getattr(sys, stream), flush=flush)``."""
    # Asked in each deferred function itself: the answer reads the locals of
    # the function Dynamo is inlining.
    if compiling() and compat.reads_an_unread_argument("values"):
        _fall_back(compat.UNREAD_ARGUMENT)
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
    if compiling() and compat.reads_an_unread_argument("args"):
        _fall_back(compat.UNREAD_ARGUMENT)
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
    would lose: it is called as written.

    ``sys.modules`` is read only for an object of loguru's class: Dynamo
    builds a variable for each of its entries when a traced function reads
    it (3,157 with transformers loaded: 0.07 s more for every compile that
    traces a deferred log call, 0.14 s for the first in a process)."""
    if type(logger).__module__ != "loguru._logger":
        return False
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
    if compiling() and compat.reads_an_unread_argument("message"):
        _fall_back(compat.UNREAD_ARGUMENT)
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
    if compiling() and compat.reads_an_unread_argument("args"):
        _fall_back(compat.UNREAD_ARGUMENT)
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
        args = tuple(global_value(module, a) if i in positions else a for i, a in enumerate(args))
        kwargs = {k: global_value(module, v) if k in named else v for k, v in kwargs.items()}
    if _open(gate):
        global_value(module, function)(*args, **kwargs)


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
    warnings.warn(message, global_value(module, category), _stacklevel_past_runtime(stacklevel))


#: Frames that are not the user's: the runtime package's modules and
#: Dynamo's ``torch.compiler.disable`` wrapper around the replay functions.
_RUNTIME_FILES = frozenset(
    [os.path.join(os.path.dirname(__file__), name) for name in os.listdir(os.path.dirname(__file__))
     if name.endswith(".py")] + [torch._dynamo.eval_frame.__file__]
)


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
        global_value(module, function)(*positional, **dict(zip(names, values[len(positional):])))
