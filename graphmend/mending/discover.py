"""Which functions mending a model or a module reaches (a static walk).

``mend(model)`` starts from the model's ``forward``, the methods (static
and class methods and property accessors included) of every class in the
MRO of every submodule's class, and the module-level functions of the
Python modules that define such a class or are named; from each it follows
``__wrapped__`` chains and the functions held in closure cells
(transformers' ``dynamic_rope_update`` keeps ``longrope_frequency_update``
only there).  Nothing is run.  For a diagnosis, :func:`function_at` finds
the live function whose code holds a reported line.
"""

from __future__ import annotations

import ast
import functools
import os
import sys
import types
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import torch

from graphmend.mending import swap
from graphmend.analysis.source import ModuleNames, first_line, parse_file
from graphmend.analysis.summaries import (Summarizer, Summary, Target, method_key, receiver_calls, stores_attribute,
                                          unreadable)
from graphmend.analysis.summaries import called_names as summary_called_names
from graphmend.mending.resolve import Unmendable, chain


def functions_of(value: Any) -> Iterator[Any]:
    """The functions a class attribute holds."""
    if isinstance(value, (types.FunctionType, staticmethod, classmethod)):
        yield value
    elif isinstance(value, property):
        yield from (f for f in (value.fget, value.fset, value.fdel) if f is not None)
    elif isinstance(value, functools.cached_property):
        yield value.func


def matches(name: str, prefixes: Sequence[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def module_classes(model: torch.nn.Module) -> dict[type, None]:
    """Every class in the MRO of every submodule's class, in order, once."""
    return {cls: None for sub in model.modules() for cls in type(sub).__mro__ if cls is not object}


def model_functions(model: torch.nn.Module, prefixes: Sequence[str] = ()) -> list[Any]:
    """Where ``mend`` looks for functions of ``model``: ``model.forward``, the
    methods of every class in the MRO of every submodule's class, and the
    module-level functions of the Python modules among ``prefixes`` that
    define such a class or are named exactly."""
    classes = module_classes(model)
    functions = [model.forward]
    for cls in classes:
        for value in vars(cls).values():
            functions.extend(functions_of(value))
    module_names = {cls.__module__ for cls in classes if matches(cls.__module__, prefixes)} | set(prefixes)
    for name in module_names:
        python_module = sys.modules.get(name)
        for value in vars(python_module).values() if python_module else ():
            if isinstance(value, types.FunctionType) and value.__module__ == name:
                functions.append(value)
    return functions


def _mentioned_names(code: types.CodeType) -> set[str]:
    names: set[str] = set()
    pending = [code]
    while pending:
        code = pending.pop()
        names.update(code.co_names, code.co_freevars, code.co_varnames)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def called_by_name(functions: Sequence[Any], roots: Iterable[Any]) -> list[Any]:
    """The ``functions`` a forward can call, read by name: those named (as an
    attribute, a global or a closure variable) by a root or by a function so
    reached.  A name is all it takes, so this keeps every function a call
    could reach through ``self.x(...)`` or a helper, and leaves out set-up
    and conversion code no forward mentions (``__init__``, ``parallelize``,
    weight loading): mending those would only cost time."""
    by_name: dict[str, list[Any]] = {}
    for function in functions:
        code = _code_of(function)
        if code is not None:
            by_name.setdefault(code.co_name, []).append(function)
    reached = {getattr(root, "__func__", root): None for root in roots if _code_of(root) is not None}
    pending = list(reached)
    while pending:
        for name in _mentioned_names(_code_of(pending.pop())):
            for function in by_name.get(name, ()):
                if function not in reached:
                    reached[function] = None
                    pending.append(function)
    return [f for f in functions if getattr(f, "__func__", f) in reached or _code_of(f) is None]


def _code_of(function: Any) -> types.CodeType | None:
    return getattr(getattr(function, "__func__", function), "__code__", None)


def forward_roots(model: torch.nn.Module) -> list[Any]:
    """What running ``model`` starts with: its ``forward`` and the ``forward``
    and ``__call__`` of every class of every submodule."""
    roots = [model.forward]
    for cls in module_classes(model):
        for name in ("forward", "__call__"):
            roots.extend(functions_of(vars(cls).get(name)))
    return roots


def prefixes(modules: str | Iterable[str] | None, default: str) -> list[str]:
    if modules is None:
        return [default]
    return [modules] if isinstance(modules, str) else list(modules)


def functions_in_modules(prefixes: Sequence[str]) -> list[Any]:
    """Module-level functions and class methods defined in the named modules."""
    functions: list[Any] = []
    for name, python_module in list(sys.modules.items()):
        if python_module is None or not matches(name, prefixes):
            continue
        for value in list(vars(python_module).values()):
            # Type checks first: a module may hold objects whose attributes raise.
            if isinstance(value, types.FunctionType) and value.__module__ == name:
                functions.append(value)
            elif isinstance(value, type) and value.__module__ == name:
                for attribute in vars(value).values():
                    functions.extend(functions_of(attribute))
    return functions


def _closure_functions(function: types.FunctionType) -> Iterator[types.FunctionType]:
    for cell in function.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, types.FunctionType):
            yield value


def _reachable(obj: Any) -> list[types.FunctionType]:
    """The functions behind ``obj``: the function it resolves to first, then
    the wrappers around it and the functions they hold in closure cells
    (e.g. the helpers a decorator factory defines next to its wrapper, which
    exist only as cells of the wrapper), recursively."""
    *wrappers, function = chain(obj)
    found = {function: None}
    pending = [*wrappers, function]
    while pending:
        current = pending.pop()
        found.setdefault(current)
        pending.extend(f for f in _closure_functions(current) if f not in found)
    return list(found)


def live_functions(candidates: Iterable[Any]) -> list[types.FunctionType]:
    """Every Python function reachable from ``candidates`` (see _reachable)."""
    functions: dict[types.FunctionType, None] = {}
    for candidate in candidates:
        try:
            functions.update(dict.fromkeys(_reachable(candidate)))
        except Unmendable:
            pass
    return list(functions)


def module_name(function: types.FunctionType) -> str:
    # Not ``__module__``, which functools.wraps copies from the wrapped function.
    return function.__globals__.get("__name__") or ""


def _file_functions(filename: str) -> list[types.FunctionType]:
    """Functions and methods defined in the imported module loaded from ``filename``."""
    real = os.path.realpath(filename)
    for name, python_module in list(sys.modules.items()):
        # Through __dict__: lazy modules' __getattr__ may import, or raise.
        module_file = getattr(python_module, "__dict__", {}).get("__file__")
        if isinstance(module_file, str) and os.path.realpath(module_file) == real:
            return live_functions(functions_in_modules([name]))
    return []


def effect_helpers_of(function: types.FunctionType) -> frozenset[str]:
    """The global names ``function`` calls that hold message helpers: a
    function (or a chain of ``functools.wraps`` wrappers, such as
    lightning's ``rank_zero_only``) whose only effect is a print, a log
    record or a warning, or a ``functools.partial`` of ``warnings.warn`` or
    ``print`` (torchmetrics' ``_future_warning``)."""
    return frozenset(name for name in code_names(function.__code__)
                     if is_effect_helper(function.__globals__.get(name)))


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
    patch = swap.PATCHES.get(function)
    code = patch.original_code if patch is not None else function.__code__
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
        parsed = parse_file(filename, module.__dict__) if isinstance(filename, str) and not foreign_module(
            cls.__module__) else None
        store = stores_attribute(parsed, name) if parsed is not None else None
        if store is not None:
            return f"may be an instance's own attribute (`{ast.unparse(store)}` in {os.path.basename(filename)})"
    return None if _foreign(value) else _LiveTarget(value, owner)


def code_names(code: types.CodeType) -> set[str]:
    """The global and attribute names ``code`` and the functions nested in it use."""
    names: set[str] = set()
    pending = [code]
    while pending:
        code = pending.pop()
        names.update(code.co_names)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


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
        if not isinstance(value, types.FunctionType) or _foreign(value):
            return None
        return cls(value)

    def source(self) -> tuple[ast.AST, ModuleNames] | str:
        function = self.function
        code = function.__code__
        patch = swap.PATCHES.get(function)
        if "__wrapped__" in function.__dict__ and (patch is None or not patch.set_wrapped):
            return "is a wrapper (what it calls is not read)"
        parsed = parse_file(code.co_filename, function.__globals__)
        if patch is not None:  # mended: what runs is the rewritten def
            return (ast.parse(patch.mended_source).body[0], parsed.module_names) if parsed is not None else (
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


def is_effect_helper(value: Any, depth: int = 0) -> bool:
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
        for variable, cell in zip(link.__code__.co_freevars, link.__closure__ or ()):
            try:
                held = cell.cell_contents
            except ValueError:
                continue
            if (index + 1 < len(chain) and held is chain[index + 1]) or is_effect_helper(held, depth + 1):
                callables.add(variable)
        for name in link.__code__.co_names:
            held = link.__globals__.get(name)
            if name not in callables and held is not link and is_effect_helper(held, depth + 1):
                callables.add(name)
        if not effect_only(node, callables):
            return False
    return True


def foreign_module(name: str) -> bool:
    """torch, graphmend and the standard library: code never mended."""
    top = name.split(".")[0]
    return top in ("torch", "graphmend") or top in sys.stdlib_module_names


def _foreign(function: types.FunctionType) -> bool:
    return foreign_module(module_name(function))


def reached_in(candidates: Iterable[Any], prefixes: Sequence[str]) -> list[types.FunctionType]:
    """The functions behind ``candidates`` that lie in the modules named by
    ``prefixes``, and what those reach through decorators: the wrappers
    around them and the helpers held in their closure cells, wherever those
    are defined (transformers' ``dynamic_rope_update`` wraps a model's own
    ``forward`` from ``modeling_rope_utils``)."""
    functions: dict[types.FunctionType, None] = {}
    for candidate in candidates:
        try:
            reached = _reachable(candidate)
        except Unmendable:
            continue
        own = matches(module_name(reached[0]), prefixes)
        for function in reached:
            if matches(module_name(function), prefixes) or (own and not _foreign(function)):
                functions.setdefault(function)
    return list(functions)


def function_at(filename: str, lineno: int, pool: list[types.FunctionType]) -> tuple[types.FunctionType | None, int]:
    """The live function around ``filename:lineno``, and the first line of the
    statement there (Dynamo may report a later line of a multi-line one)."""
    parsed = parse_file(filename)
    if parsed is None:
        return None, lineno
    statement = parsed.statement_at(lineno)
    statement_line = statement.lineno if statement is not None else lineno
    real = os.path.realpath(filename)
    for functions in (pool, None):
        best = None
        for function in functions if functions is not None else _file_functions(filename):
            code = function.__code__
            if os.path.realpath(code.co_filename) != real:
                continue
            node = parsed.def_of(code)
            if node is not None and first_line(node) <= lineno <= node.end_lineno:
                if best is None or first_line(node) > first_line(best[1]):
                    best = (function, node)
        if best is not None:
            return best[0], statement_line
    return None, statement_line
