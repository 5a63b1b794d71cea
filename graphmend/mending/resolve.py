"""Step 1 of mending: which Python function mending an object changes.

A bound method, ``staticmethod`` or ``classmethod`` resolves to its
``__func__``, a ``functools.wraps`` wrapper to the innermost wrapped function
(the wrapper calls that very object, so mending it is enough), a module to
its ``forward``, a callable instance to its class's ``__call__``.  What is
not a Python function (builtins, C functions, ``functools.partial``), or
whose code cannot be rebuilt (generators, coroutines, lambdas), raises
:class:`Unmendable` with the reason.
"""

from __future__ import annotations

import functools
import inspect
import logging
import types
from typing import Any

import torch

from graphmend.errors import Unmendable
from graphmend.mending.swap import MENDED

logger = logging.getLogger("graphmend")

_UNREBUILDABLE_FLAGS = {
    inspect.CO_GENERATOR: "a generator",
    inspect.CO_COROUTINE: "a coroutine",
    inspect.CO_ASYNC_GENERATOR: "an async generator",
    inspect.CO_ITERABLE_COROUTINE: "an iterable coroutine",
}


def left_alone(obj: Any, reason: str) -> None:
    """Say, at debug level on the ``graphmend`` logger, why ``obj`` is not
    mended (never raised to users)."""
    logger.debug("graphmend: not mending %s: %s", describe(obj), reason)


def describe(obj: Any) -> str:
    """``obj``'s qualified name, or its class's: never the object's own
    ``repr``, which user code may make raise (an sklearn-style estimator's
    reads parameters that a subclass never set) or slow."""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return name or f"a {type(obj).__qualname__}"


def wrapper_chain(function: types.FunctionType) -> list[types.FunctionType]:
    """``function`` and the functions it wraps (``__wrapped__``), outermost
    first; graphmend's own copy of a mended function's original is not one."""
    chain = [function]
    while not (function in MENDED and MENDED[function].set_wrapped):
        function = getattr(function, "__wrapped__", None)
        if not isinstance(function, types.FunctionType) or function in chain:  # end, or a cycle
            break
        chain.append(function)
    return chain


def chain(obj: Any) -> list[types.FunctionType]:
    """The Python functions behind ``obj``, outermost wrapper first; mending
    ``obj`` changes the last one."""
    if isinstance(obj, functools.partial):
        raise Unmendable("a functools.partial: only the Python function it holds can be mended")
    if isinstance(obj, (types.MethodType, staticmethod, classmethod)):
        return chain(obj.__func__)
    if isinstance(obj, types.FunctionType):
        return wrapper_chain(obj)
    if isinstance(obj, torch.nn.Module):
        return chain(obj.forward)
    if isinstance(obj, type):
        raise Unmendable("a class: mend an instance (an nn.Module) or its methods")
    if not isinstance(getattr(type(obj), "__call__", None), types.FunctionType):
        raise Unmendable(f"{type(obj).__name__} is not a Python function (builtin or C code)")
    return chain(type(obj).__call__)


def resolve(obj: Any) -> types.FunctionType:
    """The Python function whose code mending ``obj`` changes."""
    return chain(obj)[-1]


def resolve_quietly(obj: Any) -> types.FunctionType | None:
    try:
        return resolve(obj)
    except Unmendable:
        return None


def check_rebuildable(function: types.FunctionType) -> None:
    code = function.__code__
    for flag, what in _UNREBUILDABLE_FLAGS.items():
        if code.co_flags & flag:
            raise Unmendable(f"it is {what}")
    if code.co_name == "<lambda>":
        raise Unmendable("a lambda: its source is an expression inside another statement")
