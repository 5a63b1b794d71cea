"""What calling an object reaches: a static walk over live objects.

``graphmend.compile(x)`` and ``graphmend.mend(x)`` mend whatever a call of
``x`` can run, however ``x`` is handed over: a module, a bound method, a
function, a lambda, a ``functools.partial``, a decorated function, a
callable object, a training step.  Nothing is run; the walk reads what the
objects hold:

* a function: the wrappers around it (``__wrapped__``), the values in its
  closure cells and defaults, the globals its code names (and, for a global
  that is a Python module, the attributes of it the code names: ``misc.f``),
  and the same attributes of the modules it imports itself, where they are
  already imported (``import torchsde`` inside the function, then
  ``torchsde.sdeint(...)``);
* a bound method: its function and the object it is bound to; for a
  method of a module called in place of its forward (``model.generate``),
  also the functions of the module's classes it calls by name, through
  decorators, as a forward's are found (collected, their globals not
  walked: :func:`called_in_place`).  Where none of those uses ``self``
  but for its attributes (:func:`graphmend.mending.search.uses_itself`:
  Chronos's ``encode`` calls ``self.model.encoder(...)``), the module's own
  ``forward`` never runs: only the modules under it are walked;
* a ``functools.partial``: its function and its arguments;
* an ``nn.Module``: what :func:`graphmend.mending.search.model_functions` finds
  for it (the ``forward`` and the methods of every submodule's classes
  that a forward names, and the module-level functions of their modules),
  and the callables its submodules hold as attributes;
* a class (one the code builds, say a solver; not an ``nn.Module``
  class, whose instances are reached as modules): the methods of the classes
  in its MRO that a reached function names (``solver.integrate(...)``
  reaches ``integrate``), and the special methods Python calls by itself
  (``__init__``, ``__call__``, ``__getitem__``...);
* another callable object, or the object a method is bound to: its class
  and its attributes; a dict, list or tuple (a registry of solvers or
  activations): its items.

Only Python code outside torch, graphmend and the standard library is
collected, and, as TorchFix does, only from files that mention torch
(``packaging.version``, which a library's version checks reach, tests no
tensor), except the file of the object handed over.  The walk goes on
through the globals and imports of such code only: of a function in a
file that never mentions torch, only what it wraps and holds (closure
cells, defaults) is walked, so a decorator's wrapper still leads to the
function it wraps, but a utility library does not lead to everything it
names (Chronos's ``generate`` reached pandas' ``DataFrame`` through
transformers' assisted decoding, sklearn's ``roc_curve`` and tqdm: 692
functions, 192 of them reached only that way).  The walk stops after
:data:`LIMIT` objects.  What the rules
then read of each function is decided by the cheap ``ast`` scan
(:func:`graphmend.analysis.scan.might_hold_site`), so reaching a function
that holds no site costs a parse of its file, once.
"""

from __future__ import annotations

import dis
import functools
import importlib.util
import inspect
import linecache
import logging
import sys
import time
import types
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from graphmend.mending import search
from graphmend.mending.foreign import foreign, foreign_module
from graphmend.mending.resolve import describe
from graphmend.modules import submodules

logger = logging.getLogger("graphmend")

#: At most this many objects are visited per walk.
LIMIT = 20_000
#: Containers with more items than this are not opened (a vocabulary, a cache).
_CONTAINER_ITEMS = 256


@dataclass
class Reach:
    """The functions (own first, then in the order met) a call of the
    walked object reaches, and what the walk cost."""

    functions: list[types.FunctionType] = field(default_factory=list)
    visited: int = 0
    seconds: float = 0.0
    truncated: bool = False


def _foreign_type(cls: type) -> bool:
    return foreign_module(getattr(cls, "__module__", None) or "builtins")


@functools.lru_cache(maxsize=4096)
def _mentions_torch(filename: str) -> bool:
    return any("torch" in line for line in linecache.getlines(filename))


def _module_prefixes(module: torch.nn.Module) -> list[str]:
    """The Python modules that define a class of ``module`` or of one of its
    submodules (base classes included), never torch's or graphmend's."""
    names = {cls.__module__ for cls in search.module_classes(module)}
    return sorted(n for n in names if not foreign_module(n))


def _module_functions(module: torch.nn.Module, roots: Iterable[Any] | None = None) -> list[Any]:
    """The functions of ``module``'s classes and their Python modules that
    ``roots`` (by default its forwards) call, by name (:func:`search.called_by_name`)."""
    prefixes = _module_prefixes(module)
    if not prefixes:
        return []
    roots = search.forward_roots(module) if roots is None else roots
    candidates = search.called_by_name(search.model_functions(module, prefixes), roots)
    return search.functions_behind_in(candidates, prefixes)


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def imported_modules(function: types.FunctionType) -> list[types.ModuleType]:
    """The modules ``function``'s code (nested functions included) imports
    itself (``import a.b``, ``from .c import d``), each module of a dotted
    name, where ``sys.modules`` already has it: nothing is imported."""
    found: list[types.ModuleType] = []
    package = function.__globals__.get("__package__") or ""
    pending = [function.__code__]
    while pending:
        code = pending.pop()
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        if _IMPORT_NAME not in code.co_code[::2]:  # the opcodes, one per two bytes
            continue
        level = 0
        for instruction in dis.get_instructions(code):
            if instruction.opname == "LOAD_CONST" and isinstance(instruction.argval, int):
                level = instruction.argval  # IMPORT_NAME's level is loaded two instructions before it
            elif instruction.opname == "IMPORT_NAME":
                try:
                    name = importlib.util.resolve_name("." * level + instruction.argval, package) if level else \
                        instruction.argval
                except ImportError:  # a relative import above the top-level package
                    continue
                parts = name.split(".")
                found.extend(m for m in (sys.modules.get(".".join(parts[:i])) for i in range(1, len(parts) + 1))
                             if m is not None)
    return found


def called_in_place(obj: Any) -> list[types.FunctionType]:
    """For a method of a module called in place of its forward (peft's
    ``model.generate``, which calls ``self.base_model.generate``): the
    functions of the module's classes and their Python modules that it
    calls by name, as a forward's are found, through decorators
    (transformers' ``@torch.no_grad() generate``); else nothing."""
    if isinstance(obj, types.MethodType) and isinstance(obj.__self__, torch.nn.Module):
        return _module_functions(obj.__self__, [obj.__func__])
    return []


class _Walk:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.seen: set[int] = set()
        self.queue: deque[Any] = deque()
        self.result = Reach()
        self.keep: list[Any] = []  # ids stay valid while the walk runs
        # Methods of reached classes wait here, by name, until a reached
        # function names them: a class's whole surface (``from_pretrained``,
        # hub downloads) is not what a forward runs.
        self.mentioned: set[str] = set()
        self.parked: dict[str, list[Any]] = {}
        self.own_file: str | None = None  # the first function's: the object's own
        # For each method of a module called in place of its forward, what
        # it calls of the module's classes: collected once the walk is done.
        self.called_in_place: list[list[types.FunctionType]] = []

    def push(self, value: Any) -> None:
        if value is None or isinstance(value, (str, bytes, int, float, bool, torch.Tensor)):
            return
        if id(value) in self.seen:
            return
        self.seen.add(id(value))
        self.keep.append(value)
        self.queue.append(value)

    def push_all(self, values: Iterable[Any]) -> None:
        for value in values:
            self.push(value)

    def run(self) -> Reach:
        while self.queue:
            if self.result.visited >= self.limit:
                self.result.truncated = True
                break
            self.result.visited += 1
            self.visit(self.queue.popleft())
        # After the walk: a function it reached keeps its walk (a forward's globals).
        for called in self.called_in_place:
            self.collect_called(called)
        return self.result

    def visit(self, value: Any) -> None:
        if isinstance(value, types.FunctionType):
            self.function(value)
        elif isinstance(value, torch.nn.Module):
            self.module(value)
        elif isinstance(value, (types.MethodType, staticmethod, classmethod)):
            self.push(value.__func__)
            bound_to = getattr(value, "__self__", None)
            if isinstance(bound_to, torch.nn.Module) and isinstance(value, types.MethodType):
                called = called_in_place(value)
                self.called_in_place.append(called)
                if not any(map(search.uses_itself, [value, *called])):
                    # It never runs the module itself, only what it holds:
                    # Chronos's ``encode`` calls ``self.model.encoder``, and
                    # its model's forward (which generates) never runs.
                    self.push_all(bound_to.children())
                    self.push_all(self.callables_held(bound_to))
                    return
            if bound_to is not None and not isinstance(bound_to, (type, torch.nn.Module)):
                self.instance(bound_to)
            else:
                self.push(bound_to)
        elif isinstance(value, functools.partial):
            self.push(value.func)
            self.push_all(value.args)
            self.push_all(value.keywords.values())
        elif isinstance(value, type):
            self.cls(value)
        elif isinstance(value, (dict, list, tuple)):
            # Type checks only: a mapping's items may be anything.
            if len(value) <= _CONTAINER_ITEMS:
                self.push_all(value.values() if isinstance(value, dict) else value)
        elif isinstance(value, (property, functools.cached_property)):
            self.push_all(search.functions_of(value))
        elif not isinstance(value, types.ModuleType) and callable(value):
            self.instance(value)

    def collect_called(self, called: list[types.FunctionType]) -> None:
        """What a module's method calls in place of its forward
        (:func:`called_in_place`): collected, not walked.  Through its
        globals transformers' ``generate`` names the hub, pandas and
        sklearn: walked, peft's ``model.generate`` reached 794 functions;
        collected, 219 (130 without).  What they call outside the model's
        classes is mended where a call's trace meets it."""
        for function in called:
            if id(function) not in self.seen and not foreign(function):
                self.seen.add(id(function))
                self.keep.append(function)
                self.collect(function)

    def torch_code(self, function: types.FunctionType) -> bool:
        """Whether ``function`` (not foreign) is in the object's own file or
        in a file that mentions torch."""
        return function.__code__.co_filename == self.own_file or _mentions_torch(function.__code__.co_filename)

    def collect(self, function: types.FunctionType) -> None:
        """Add ``function`` (not foreign) to what is reached, unless its
        file never mentions torch."""
        if self.torch_code(function):
            self.result.functions.append(function)

    def instance(self, obj: Any) -> None:
        """An object whose methods run: its class, and what it holds."""
        if _foreign_type(type(obj)):
            return
        self.push(type(obj))
        attributes = getattr(obj, "__dict__", None)
        if isinstance(attributes, dict) and len(attributes) <= _CONTAINER_ITEMS:
            self.push_all(attributes.values())

    def function(self, function: types.FunctionType) -> None:
        if foreign(function):
            return
        if self.own_file is None:
            self.own_file = function.__code__.co_filename
        self.collect(function)
        self.push(getattr(function, "__wrapped__", None))
        for cell in function.__closure__ or ():
            try:
                self.push(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        self.push_all(function.__defaults__ or ())
        self.push_all((function.__kwdefaults__ or {}).values())
        if not self.torch_code(function):
            return
        names = search.code_names(function.__code__)
        for name in names - self.mentioned:
            self.push_all(self.parked.pop(name, ()))
        self.mentioned |= names
        globals_ = function.__globals__
        for name in names:
            if name not in globals_:
                continue
            value = globals_[name]
            if isinstance(value, types.ModuleType):
                self.module_attributes(value, names)
            else:
                self.push(value)
        for imported in imported_modules(function):
            self.module_attributes(imported, names)

    def module_attributes(self, module: types.ModuleType, names: set[str]) -> None:
        """The attributes of a Python module that a reached function names."""
        if foreign_module(module.__name__):
            return
        # Through __dict__: a lazy module's __getattr__ may import.
        attributes = vars(module)
        self.push_all(attributes[n] for n in names if n in attributes)

    def module(self, module: torch.nn.Module) -> None:
        self.push_all(_module_functions(module))
        for sub in submodules(module):
            self.push_all(self.callables_held(sub))

    @staticmethod
    def callables_held(module: torch.nn.Module) -> list[Any]:
        """The functions a module holds as attributes (an activation)."""
        return [value for value in vars(module).values()
                if isinstance(value, (types.FunctionType, types.MethodType, functools.partial))]

    def cls(self, cls: type) -> None:
        if issubclass(cls, torch.nn.Module):
            return  # its instances are what runs, and they are reached as modules
        for base in cls.__mro__:
            if base is object or _foreign_type(base):
                continue
            for name, value in list(vars(base).items()):
                methods = search.functions_of(value)
                if _special(name) or name in self.mentioned:
                    self.push_all(methods)
                else:
                    self.parked.setdefault(name, []).extend(methods)


def _special(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


#: What :func:`_attribute_of` cannot read without running code (a property).
_UNREADABLE = object()


def _attribute_of(module: torch.nn.Module, name: str) -> Any:
    """``module.name`` where reading it runs no code: a submodule, an
    attribute, a method (bound); None for a parameter or buffer;
    :data:`_UNREADABLE` for anything else (a property may return the
    module itself)."""
    if name in module._modules:
        return module._modules[name]
    if name in module._parameters or name in module._buffers:
        return None
    if name in vars(module):
        return vars(module)[name]
    try:
        value = inspect.getattr_static(module, name)
    except AttributeError:
        return _UNREADABLE
    if isinstance(value, types.FunctionType):
        return types.MethodType(value, module)
    if isinstance(value, staticmethod):
        return value.__func__
    if isinstance(value, classmethod):
        return types.MethodType(value.__func__, type(module))
    return _UNREADABLE


def arguments_reached(obj: Any, args: tuple, kwargs: dict[str, Any]) -> list[Any]:
    """What a call ``obj(*args, **kwargs)`` may run through its arguments,
    for :func:`reach`: each module and callable argument, but a module that
    the function ``obj`` only reads attributes of (chronos's T5 loss step:
    ``model.model(...)``, never ``model(...)``) stands for the attributes it
    reads, since its own ``forward`` (which generates: pandas' ``DataFrame``
    is behind it) never runs.  No tensor is kept."""
    # Not through a wrapper, which may hand the arguments on otherwise.
    function = obj if isinstance(obj, types.FunctionType) and not hasattr(obj, "__wrapped__") else None
    read: dict[int, frozenset[str] | None] = {}
    if function is not None:
        try:
            bound = inspect.signature(function).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):  # the call would raise, or no signature: read nothing
            bound = {}
        for parameter, value in bound.items():
            if isinstance(value, torch.nn.Module):
                names = search.attributes_read(function.__code__, parameter)
                earlier = read.get(id(value), frozenset())  # one module, two parameters: both must only read
                read[id(value)] = None if names is None or earlier is None else names | earlier
    reached: list[Any] = []
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor) or not (isinstance(value, torch.nn.Module) or callable(value)):
            continue
        names = read.get(id(value))
        attributes = [] if names is None else [_attribute_of(value, name) for name in sorted(names)]
        if names is None or any(attribute is _UNREADABLE for attribute in attributes):
            reached.append(value)
        else:
            reached.extend(a for a in attributes if a is not None and not isinstance(a, torch.Tensor))
    return reached


def reach(obj: Any, args: Iterable[Any] = (), *, limit: int = LIMIT) -> Reach:
    """Everything a call ``obj(*args)`` can reach, read from the objects
    (see the module docstring); ``args`` are the call's arguments, which
    may hold the model (``step(model, batch)``, a method's ``self``), or
    what of them the call can run (:func:`arguments_reached`)."""
    start = time.perf_counter()
    walk = _Walk(limit)
    walk.push(obj)
    for arg in args:
        if not isinstance(arg, torch.Tensor) and (isinstance(arg, torch.nn.Module) or callable(arg)):
            walk.push(arg)
    result = walk.run()
    result.seconds = time.perf_counter() - start
    logger.debug("graphmend: %s reaches %d function(s) (%d objects visited, %.3f s%s)", describe(obj),
                 len(result.functions), result.visited, result.seconds, ", truncated" if result.truncated else "")
    return result

