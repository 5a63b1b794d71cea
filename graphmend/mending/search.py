"""The ``modules=`` search: which functions mending a model or a module
looks at when the user names the modules to mend (a static walk).

``mend(model, modules=...)`` starts from the model's ``forward``, the
methods (static and class methods and property accessors included) of
every class in the MRO of every submodule's class, and the module-level
functions of the Python modules that define such a class or are named;
from each it follows ``__wrapped__`` chains and the functions held in
closure cells (transformers' ``dynamic_rope_update`` keeps
``longrope_frequency_update`` only there).  Nothing is run.
:mod:`.reach` reads a module's own functions the same way.
"""

from __future__ import annotations

import collections
import dis
import functools
import inspect
import sys
import types
from collections.abc import Iterable, Iterator, KeysView, Sequence
from typing import Any

import torch

from graphmend.mending.foreign import foreign, module_name
from graphmend.mending.resolve import Unmendable, chain
from graphmend.modules import submodules


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
    return {cls: None for sub in submodules(model) for cls in type(sub).__mro__ if cls is not object}


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


#: The methods a class's name runs when it is called.
_CONSTRUCTORS = frozenset({"__new__", "__init__", "__post_init__"})


def called_by_name(functions: Sequence[Any], roots: Iterable[Any], *, constructors: bool = False) -> list[Any]:
    """The ``functions`` a forward can call, read by name: those named (as an
    attribute, a global or a closure variable) by a root or by a function so
    found.  A name is all it takes, so this keeps every function a call
    could run through ``self.x(...)`` or a helper, and leaves out set-up
    and conversion code no forward mentions (``__init__``, ``parallelize``,
    weight loading): mending those would only cost time.  With
    ``constructors``, a class's name names its ``__init__``, ``__new__``
    and ``__post_init__`` too: for the order a call meets them in
    (transformers' ``generate`` builds a ``GenerationConfig`` first)."""
    by_name: dict[str, list[Any]] = {}
    for function in functions:
        code = _code_of(function)
        if code is not None:
            # A decorated method's code is its wrapper's (``@torch.no_grad()``
            # makes transformers' ``generate`` a ``decorate_context``); the
            # name it is called by is the one ``functools.wraps`` copied.
            plain = getattr(function, "__func__", function)
            names = {code.co_name, getattr(plain, "__name__", code.co_name)}
            *_, owner, method = ("", *getattr(plain, "__qualname__", "").split("."))
            if constructors and method in _CONSTRUCTORS and owner not in ("", "<locals>"):
                names.add(owner)
            for name in names:
                by_name.setdefault(name, []).append(function)
    named = {getattr(root, "__func__", root): None for root in roots if _code_of(root) is not None}
    pending = collections.deque(named)
    while pending:  # breadth first: the order a call is likely to meet them in
        for name in code_names(_code_of(_unwrapped(pending.popleft())), variables=True):
            for function in by_name.get(name, ()):
                if function not in named:
                    named[function] = None
                    pending.append(function)
    # In the order they were found (graphmend.compile's first call has them
    # rewritten in that order), those without code last.
    rank = {function: index for index, function in enumerate(named)}
    kept = [f for f in functions if getattr(f, "__func__", f) in named or _code_of(f) is None]
    return sorted(kept, key=lambda f: rank.get(getattr(f, "__func__", f), len(rank)))


def _unwrapped(function: Any) -> Any:
    """What a wrapper (``functools.wraps``) wraps, to the innermost with code."""
    try:
        inner = inspect.unwrap(getattr(function, "__func__", function))
    except ValueError:  # a cycle of __wrapped__
        return function
    return inner if _code_of(inner) is not None else function


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


_ATTRIBUTE_OF = frozenset({"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR"})


def uses_itself(method: Any) -> bool:
    """Whether a method may run its object itself: it names ``forward`` or
    ``__call__``, or uses its first argument for anything but reading,
    setting or deleting an attribute (``self(x)``, ``helper(self)``,
    ``super()``, a closure over it, ``getattr(self, name)``:
    :func:`attributes_read`)."""
    code = _code_of(_unwrapped(method))
    if code is None or not code.co_argcount:
        return True
    if not {"forward", "__call__", "super"}.isdisjoint(code_names(code)):
        return True
    return attributes_read(code, code.co_varnames[0]) is None


def attributes_read(code: types.CodeType, local: str) -> frozenset[str] | None:
    """The attributes ``code`` reads of its local variable ``local``, where it
    uses it only to read, set or delete attributes (``model.model(x)``);
    None where it uses it otherwise (``model(x)``, ``helper(model)``, a
    closure over it).  Read from the bytecode; a load it does not know (one
    loading two locals at once, Python 3.13's, but the last of them)
    answers None."""
    if local in code.co_cellvars:
        return None
    read: set[str] = set()
    instructions = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG")]
    for instruction, following in zip(instructions, instructions[1:]):
        if not instruction.opname.startswith("LOAD_FAST"):
            continue
        loaded = instruction.argval if isinstance(instruction.argval, tuple) else (instruction.argval,)
        if local in loaded[:-1] or (loaded[-1] == local and following.opname not in _ATTRIBUTE_OF):
            return None
        if loaded[-1] == local and following.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            read.add(following.argval)
    return frozenset(read)


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


def _behind(obj: Any) -> list[types.FunctionType]:
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


def functions_behind(candidates: Iterable[Any]) -> list[types.FunctionType]:
    """Every Python function behind ``candidates``: what each resolves to,
    the wrappers around it and the functions they hold in closure cells."""
    functions: dict[types.FunctionType, None] = {}
    for candidate in candidates:
        try:
            functions.update(dict.fromkeys(_behind(candidate)))
        except Unmendable:
            pass
    return list(functions)


def functions_behind_in(candidates: Iterable[Any], prefixes: Sequence[str]) -> list[types.FunctionType]:
    """The functions behind ``candidates`` that lie in the modules named by
    ``prefixes``, and those behind them through decorators: the wrappers
    around them and the helpers held in their closure cells, wherever those
    are defined (transformers' ``dynamic_rope_update`` wraps a model's own
    ``forward`` from ``modeling_rope_utils``)."""
    functions: dict[types.FunctionType, None] = {}
    for candidate in candidates:
        try:
            behind = _behind(candidate)
        except Unmendable:
            continue
        own = matches(module_name(behind[0]), prefixes)
        for function in behind:
            if matches(module_name(function), prefixes) or (own and not foreign(function)):
                functions.setdefault(function)
    return list(functions)


def code_names(code: types.CodeType, *, variables: bool = False) -> KeysView[str]:
    """The global and attribute names ``code`` and the functions nested in it
    use; with ``variables``, their local and free variables' names too.  A
    set, in the order the code first uses them (its own before its nested
    functions')."""
    names: dict[str, None] = {}
    pending = collections.deque([code])
    while pending:
        code = pending.popleft()
        for group in (code.co_names, *((code.co_freevars, code.co_varnames) if variables else ())):
            names.update(dict.fromkeys(group))
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names.keys()
