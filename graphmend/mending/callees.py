"""What the functions a mended function calls do, read from live objects.

The rules judge a call by the summary of the function it reaches
(:mod:`graphmend.analysis.summaries`); here the functions come from the
objects a live function's globals, closure cells and class hold now
(:func:`callee_summaries_of`), and the message helpers (a function whose
only effect is a print, a log record or a warning) from the same objects
(:func:`effect_helpers_of`).
"""

from __future__ import annotations

import ast
import functools
import os
import sys
import types
import warnings
from collections.abc import Iterable
from typing import Any

from graphmend.analysis.source import ModuleNames, parse_file
from graphmend.analysis.summaries import (Summarizer, Summary, Target, file_stores_attribute, method_key, receiver_calls,
                                          unreadable)
from graphmend.analysis.summaries import called_names as summary_called_names
from graphmend.mending import swap
from graphmend.mending.foreign import foreign, foreign_module, module_name
from graphmend.mending.search import code_names


#: Whether each object is a message helper, by its id and the depth it was
#: read at, with the object (kept, so its id is not reused).
_Judged = dict[tuple[int, int], tuple[Any, bool]]


def effect_helpers_of(functions: Iterable[types.FunctionType]) -> frozenset[str]:
    """The global names the ``functions`` call that hold message helpers: a
    function (or a chain of ``functools.wraps`` wrappers, such as
    lightning's ``rank_zero_only``) whose only effect is a print, a log
    record or a warning, or a ``functools.partial`` of ``warnings.warn`` or
    ``print`` (torchmetrics' ``_future_warning``).  Each object is judged
    once: the functions of a file share their globals, and the helpers
    their callees (transformers' ``generate``'s first mend judged 1,800
    objects 22,500 times)."""
    judged: _Judged = {}
    return frozenset(name for function in functions for name in code_names(function.__code__)
                     if is_effect_helper(function.__globals__.get(name), judged=judged))


def callee_summaries_of(function: types.FunctionType, summarizer: Summarizer | None = None
                        ) -> frozenset[tuple[str, Summary]]:
    """The global names ``function`` calls (or reads) that hold a Python
    function graphmend can read, each with its summary (see
    :mod:`graphmend.analysis.summaries`): read from the source of the
    objects they hold now, and, recursively, of the functions those call.
    Calls through a module (``ops.f(x)``) are keyed by their dotted name;
    a method's calls on its receiver (``self.helper(x)``) by
    :func:`~graphmend.analysis.summaries.method_key`, read through the
    method's class and every subclass of it loaded now.  torch's, the
    standard library's and graphmend's own functions are left out (a call
    of one stays "may have effects")."""
    summarizer = summarizer or Summarizer()
    code = function.__code__
    found = {}
    for name in sorted(code_names(code)):
        target = _LiveTarget.of(function.__globals__.get(name))
        if target is not None:
            found[name] = summarizer.of(target)
    node = _def_of(function)
    if node is None:
        return frozenset(found.items())
    caller = _LiveTarget(function)
    local = {*code.co_varnames, *code.co_cellvars}
    for dotted in sorted(summary_called_names([node])):
        if "." in dotted and dotted.partition(".")[0] not in local:
            target = caller.resolve(dotted)
            if target is not None:
                found[dotted] = summarizer.of(target)
    owner = _method_owner(function)
    for name in sorted(receiver_calls(node)) if owner is not None else ():
        target = _receiver_method(owner, name)
        if target is not None:
            found[method_key(owner.__qualname__, name)] = (
                summarizer.of(target) if isinstance(target, Target) else unreadable(target))
    return frozenset(found.items())


def _def_of(function: types.FunctionType) -> ast.AST | None:
    """The def ``function``'s original code compiled from."""
    code = swap.original_code(function)
    parsed = parse_file(code.co_filename, function.__globals__)
    return parsed.def_of(code) if parsed is not None else None


def _method_owner(function: types.FunctionType) -> type | None:
    """The class ``function`` is an (undecorated, plain) method of, found
    through its qualified name from its module's globals."""
    *path, name = function.__qualname__.split(".")
    owner = function.__globals__.get(path[0]) if path else None
    for part in path[1:]:
        owner = getattr(owner, "__dict__", {}).get(part)
    return owner if isinstance(owner, type) and owner.__dict__.get(name) is function else None


def _subclasses(cls: type) -> list[type]:
    """``cls`` and every subclass of it loaded now, recursively."""
    found = {cls: None}
    pending = [cls]
    while pending:
        for sub in type.__subclasses__(pending.pop()):
            if sub not in found:
                found[sub] = None
                pending.append(sub)
    return list(found)


def _receiver_method(owner: type, name: str) -> Target | str | None:
    """What ``self.name(...)`` calls in a method of ``owner``: the one
    function every class an instance may have (``owner`` and its
    subclasses loaded now) finds for ``name``, read unless a file of those
    classes stores an attribute ``name`` (an instance may hold its own);
    else why not (None: no class binds it, or a function graphmend does
    not read)."""
    classes = _subclasses(owner)
    resolved: list[tuple[Any, type]] = []
    for cls in classes:
        value = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
        if not any(value is other for other, _ in resolved):
            resolved.append((value, cls))
    if len(resolved) > 1:
        return (f"is overridden in {resolved[1][1].__qualname__} (which one runs depends on the object; "
                "not read)")
    value = resolved[0][0]
    if value is None:
        return None  # no class binds it: a submodule, a parameter, an instance's attribute
    if isinstance(value, staticmethod):
        return _LiveTarget.of(value.__func__)
    if not isinstance(value, types.FunctionType):
        return f"is not a method of {owner.__qualname__} (a {type(value).__name__})"
    for cls in {k: None for c in classes for k in c.__mro__}:
        if "__getattribute__" in cls.__dict__ and cls is not object:
            return f"is looked up by {cls.__qualname__}.__getattribute__ (not read)"
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__dict__", {}).get("__file__")
        store = file_stores_attribute(filename, module.__dict__, name) if isinstance(filename, str) and not \
            foreign_module(cls.__module__) else None
        if store is not None:
            return f"may be an instance's own attribute (`{ast.unparse(store)}` in {os.path.basename(filename)})"
    return None if foreign(value) else _LiveTarget(value, owner)


class _LiveTarget(Target):
    """A live Python function: its source by :func:`parse_file` (a mended
    one's: what runs), its global names by its ``__globals__`` and closure
    cells; a method of ``owner`` also its receiver's methods."""

    def __init__(self, function: types.FunctionType, owner: type | None = None) -> None:
        self.function = function
        self.owner = owner
        self.method = owner is not None
        self.key = function.__code__, id(function.__globals__), owner

    @classmethod
    def of(cls, value: Any) -> _LiveTarget | None:
        """The target for ``value``, when it is a plain Python function
        outside torch, the standard library and graphmend."""
        if not isinstance(value, types.FunctionType) or foreign(value):
            return None
        return cls(value)

    def source(self) -> tuple[ast.AST, ModuleNames] | str:
        function = self.function
        code = function.__code__
        swapped = swap.MENDED.get(function)
        if "__wrapped__" in function.__dict__ and (swapped is None or not swapped.set_wrapped):
            return "is a wrapper (what it calls is not read)"
        parsed = parse_file(code.co_filename, function.__globals__)
        if swapped is not None:  # mended: what runs is the rewritten def
            return (ast.parse(swapped.mended_source).body[0], parsed.module_names) if parsed is not None else (
                "has no source")
        node = parsed.def_of(code) if parsed is not None else None
        if node is None:
            return "has no source"
        known = {*code.co_names, *code.co_varnames, *code.co_freevars, *code.co_cellvars}
        if not {name.partition(".")[0] for name in summary_called_names([node])} <= known:
            return "has a source that does not match its code (file edited since import?)"
        return node, parsed.module_names

    def resolve(self, dotted: str) -> Target | str | None:
        function = self.function
        head, *rest = dotted.split(".")
        code = function.__code__
        if self.owner is not None and code.co_argcount and head == code.co_varnames[0]:
            return _receiver_method(self.owner, rest[0])
        if head in code.co_freevars:
            try:
                value = function.__closure__[code.co_freevars.index(head)].cell_contents
            except (ValueError, IndexError, TypeError):
                return None
        else:
            value = function.__globals__.get(head)
        for part in rest:  # through modules only: an object's attribute may be a property
            if not isinstance(value, types.ModuleType):
                return None
            value = value.__dict__.get(part)
        return self.of(value)


def is_effect_helper(value: Any, depth: int = 0, judged: _Judged | None = None) -> bool:
    """Whether ``value`` is a message helper (:func:`effect_helpers_of`),
    read ``depth`` calls down; ``judged``: the answers so far."""
    judged = {} if judged is None else judged
    key = (id(value), depth)
    if key not in judged:
        judged[key] = (value, _judge_effect_helper(value, depth, judged))
    return judged[key][1]


def _judge_effect_helper(value: Any, depth: int, judged: _Judged) -> bool:
    if isinstance(value, functools.partial):
        return value.func is warnings.warn or value.func is print
    if not isinstance(value, types.FunctionType) or depth > 3 or module_name(value).startswith("graphmend"):
        return False
    from graphmend.analysis.message_helpers import effect_only
    from graphmend.mending.resolve import wrapper_chain

    chain = wrapper_chain(value)
    for index, link in enumerate(chain):
        parsed = parse_file(link.__code__.co_filename, link.__globals__)
        node = parsed.def_of(link.__code__) if parsed else None
        if node is None:
            return False
        callables = set(parsed.effect_helpers)
        # The names it reads, each taken for a helper: a def that is no
        # helper even so is none, and its callees need no judging (most of
        # the functions a library's code names fail here).
        if not effect_only(node, callables | {*link.__code__.co_freevars, *link.__code__.co_names}):
            return False
        for variable, cell in zip(link.__code__.co_freevars, link.__closure__ or ()):
            try:
                held = cell.cell_contents
            except ValueError:
                continue
            if (index + 1 < len(chain) and held is chain[index + 1]) or is_effect_helper(held, depth + 1, judged):
                callables.add(variable)
        for name in link.__code__.co_names:
            held = link.__globals__.get(name)
            if name not in callables and held is not link and is_effect_helper(held, depth + 1, judged):
                callables.add(name)
        if not effect_only(node, callables):
            return False
    return True
