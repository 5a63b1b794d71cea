"""Step 4 of mending: swap a function's code in place, and undo it.

``__code__`` is swapped in place, so every instance, every alias and
library code that calls the function sees the mended version.  The
function's ``__wrapped__`` is set to a copy running the original code (same
globals, defaults and closure), so ``inspect.signature`` is unchanged; a
wrapper that already has ``__wrapped__`` keeps it, so unwrapping still
reaches what it wraps.  Names the rewritten code needs (the runtime, as
``_graphmend``) are bound in the function's globals, counted per globals
dict so the last :func:`restore` removes them; a name already bound to
something else makes the function unmendable.

The registry (:data:`MENDED`) is the one record of what is mended, and how
to undo it.
"""

from __future__ import annotations

import threading
import types
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graphmend.errors import Unmendable


@dataclass(frozen=True)
class Coverage:
    """What a mend of one function asked the rules for: the sites they
    match statically, the lines a diagnosis reported, or both."""

    static: bool
    lines: frozenset[int] = frozenset()

    def covers(self, other: Coverage) -> bool:
        # Static matching does not find every site a diagnosis does (a test
        # of a buffer, which only a break shows to be a tensor).
        return (self.static or not other.static) and other.lines <= self.lines

    def __or__(self, other: Coverage) -> Coverage:
        return Coverage(self.static or other.static, self.lines | other.lines)


@dataclass
class Swap:
    """Everything mending changed on one function, to undo it."""

    function: types.FunctionType
    original_code: types.CodeType
    mended_source: str
    coverage: Coverage
    set_wrapped: bool  # whether ``__wrapped__`` was set (a wrapper keeps its own)
    injected: tuple[str, ...]  # names bound in ``function.__globals__``


LOCK = threading.RLock()
MENDED: dict[types.FunctionType, Swap] = {}
# Per globals dict (by id, with the dict kept alive): how many mended functions use
# each injected name, so the last unmend removes it.
_INJECTED: dict[int, tuple[dict[str, Any], Counter[str]]] = {}


def original_copy(function: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    """A function like ``function`` that runs ``code``: what ``__wrapped__`` shows."""
    copy_ = types.FunctionType(code, function.__globals__, function.__name__, function.__defaults__, function.__closure__)
    copy_.__kwdefaults__ = function.__kwdefaults__
    copy_.__dict__.update(function.__dict__)
    for attribute in ("__qualname__", "__module__", "__doc__", "__annotations__"):
        setattr(copy_, attribute, getattr(function, attribute))
    return copy_


def _bind_globals(namespace: dict[str, Any], bindings: dict[str, Any]) -> tuple[str, ...]:
    """Bind what the rules imported in ``namespace``; the names actually added."""
    for name, value in bindings.items():
        if name in namespace and namespace[name] is not value:
            raise Unmendable(f"its module already binds {name!r}, which mended code needs for {value!r}")
    added = tuple(name for name in bindings if name not in namespace or name in _injected_names(namespace))
    if added:
        _, counts = _INJECTED.setdefault(id(namespace), (namespace, Counter()))
        for name in added:
            namespace[name] = bindings[name]
            counts[name] += 1
    return added


def _injected_names(namespace: dict[str, Any]) -> Counter[str]:
    return _INJECTED.get(id(namespace), (None, Counter()))[1]


def _release_globals(namespace: dict[str, Any], names: Iterable[str]) -> None:
    counts = _injected_names(namespace)
    for name in names:
        counts[name] -= 1
        if counts[name] <= 0:
            del counts[name]
            namespace.pop(name, None)
    if not counts:
        _INJECTED.pop(id(namespace), None)


def apply(function: types.FunctionType, code: types.CodeType, source: str, coverage: Coverage,
          bindings: dict[str, Any]) -> None:
    """Run ``code`` as ``function`` from now on."""
    injected = _bind_globals(function.__globals__, bindings)
    original = function.__code__
    set_wrapped = "__wrapped__" not in function.__dict__
    if set_wrapped:
        function.__wrapped__ = original_copy(function, original)
    function.__code__ = code
    MENDED[function] = Swap(function, original, source, coverage, set_wrapped, injected)


def original_code(function: types.FunctionType) -> types.CodeType:
    """The code ``function`` ran before it was mended (its code, if it is not)."""
    swapped = MENDED.get(function)
    return function.__code__ if swapped is None else swapped.original_code


def restore(function: types.FunctionType) -> None:
    swapped = MENDED.pop(function)
    function.__code__ = swapped.original_code
    if swapped.set_wrapped:
        del function.__wrapped__
    _release_globals(function.__globals__, swapped.injected)
