"""Apply mended source to live functions: ``mend``, ``unmend``, ``show``.

How a function is mended
------------------------
1. *Resolve* the object to the Python function whose code should change: a
   bound method, ``staticmethod`` or ``classmethod`` to its ``__func__``, a
   ``functools.wraps`` wrapper to the innermost wrapped function (the wrapper
   calls that very object, so patching it is enough), a callable instance to
   its class's ``__call__``.  What is not a Python function (builtins, C
   functions, ``functools.partial``), or whose code we cannot rebuild
   (generators, coroutines, lambdas, code without source) is left alone and
   the reason logged at debug level on the ``graphmend`` logger.
2. *Transform* the functions of one file together, in a skeleton of that file:
   its top-level imports and simple assignments (so the rules resolve
   ``import torch as t`` or ``logger = logging.getLogger(...)`` as in the real
   module), the headers of enclosing classes, and the functions themselves.
   libcst costs time in proportion to the text it is given (about 8 ms a
   line), so the rest of the file is left out.  Results are cached on disk
   (:mod:`graphmend.cache`).
3. *Compile* each mended function on its own, inside a scope that reproduces
   the original's: for methods, a module-level class of the same name (so
   ``__private`` names are mangled alike, zero-argument ``super()`` finds
   ``__class__`` and the class name stays a global), an enclosing function
   binding its free variables (so closures keep the same ``co_freevars``;
   a rewrite that drops the last use of one keeps a dead reference to it),
   and the module's imports, declared but never run.  Line numbers are mapped back to the
   file's through a diff of the function's text before and after, so
   unchanged statements keep their exact lines and a rewritten statement
   points at the line of the statement it replaced; the filename is the
   original's, so tracebacks and Dynamo's reports point at the user's file.
   The original source is compiled the same way first: when that does not
   reproduce the loaded bytecode (file edited since import, a lying
   ``__qualname__``), the function is left alone.
4. *Swap* ``__code__`` in place, so every instance, every alias and library
   code that calls the function sees the mended version.  The function's
   ``__wrapped__`` is set to a copy running the original code (same globals,
   defaults and closure), so ``inspect.signature`` is unchanged; a wrapper
   that already has ``__wrapped__`` keeps it, so unwrapping still reaches
   what it wraps.  ``co_freevars`` always match, so the fallback of
   replacing the function on its class or module is never needed.  Names the
   rules import (the runtime, as ``_graphmend``) are bound in the function's
   globals instead of executing imports in the user's module; a name already
   bound to something else makes the function unmendable.

``unmend`` restores the code objects, ``__wrapped__`` attributes and globals
that ``mend`` changed.

What ``mend(module)`` reaches
-----------------------------
A static walk, cheap and without running anything.  It starts from the
module's ``forward``, the methods (static/class methods and property
accessors included) of every class in the MRO of every submodule's class, and
the module-level functions of the Python modules that define such a class or
are named exactly; from each it follows ``__wrapped__`` chains and the
functions held in closure cells (transformers' ``dynamic_rope_update`` keeps
``longrope_frequency_update`` only there).  Of what it finds, it mends the
functions defined in the Python modules named by ``modules`` (module-name
prefixes, matched against the defining module's ``__name__``; by default the
module that defines ``type(module)``), and always ``forward`` itself.
``mend(function, modules=...)`` does the same from the functions and classes
defined in those modules.
"""

from __future__ import annotations

import __future__
import ast
import copy
import difflib
import functools
import inspect
import linecache
import logging
import os
import sys
import textwrap
import threading
import types
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from graphmend import cache
from graphmend.errors import GraphmendError, SourceError
from graphmend.pipeline import select_rules, transform_source

logger = logging.getLogger("graphmend")

_FUTURE_FLAGS = functools.reduce(
    lambda flags, name: flags | getattr(__future__, name).compiler_flag,
    __future__.all_feature_names,
    0,
)
_UNREBUILDABLE_FLAGS = {
    inspect.CO_GENERATOR: "a generator",
    inspect.CO_COROUTINE: "a coroutine",
    inspect.CO_ASYNC_GENERATOR: "an async generator",
    inspect.CO_ITERABLE_COROUTINE: "an iterable coroutine",
}
_SCOPE = "__graphmend_scope__"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)

Lines = frozenset[int] | None


@dataclass
class _Patch:
    """Everything ``mend`` changed on one function, to undo it."""

    function: types.FunctionType
    original_code: types.CodeType
    mended_source: str
    lines: Lines
    set_wrapped: bool  # whether ``__wrapped__`` was set (a wrapper keeps its own)
    injected: tuple[str, ...]  # names bound in ``function.__globals__``


_LOCK = threading.RLock()
_PATCHES: dict[types.FunctionType, _Patch] = {}
# Per globals dict (by id, with the dict kept alive): how many patches use
# each injected name, so the last unmend removes it.
_INJECTED: dict[int, tuple[dict[str, Any], Counter[str]]] = {}
# What each object given to ``mend`` caused to be patched, for ``unmend``.
_OWNED: weakref.WeakKeyDictionary[Any, list[types.FunctionType]] = weakref.WeakKeyDictionary()


class _Unmendable(Exception):
    """Internal: why one function is left alone (logged, never raised to users)."""


def _describe(obj: Any) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return name or repr(obj)


def _skip(obj: Any, reason: str) -> None:
    logger.debug("graphmend: not mending %s: %s", _describe(obj), reason)


# -- step 1: resolve ----------------------------------------------------------------


def _wrapper_chain(function: types.FunctionType) -> list[types.FunctionType]:
    """``function`` and the functions it wraps (``__wrapped__``), outermost
    first; graphmend's own copy of a mended function's original is not one."""
    chain = [function]
    while not (function in _PATCHES and _PATCHES[function].set_wrapped):
        function = getattr(function, "__wrapped__", None)
        if not isinstance(function, types.FunctionType) or function in chain:  # end, or a cycle
            break
        chain.append(function)
    return chain


def _chain(obj: Any) -> list[types.FunctionType]:
    """The Python functions behind ``obj``, outermost wrapper first; mending
    ``obj`` changes the last one."""
    if isinstance(obj, functools.partial):
        raise _Unmendable("a functools.partial; mend its .func instead")
    if isinstance(obj, (types.MethodType, staticmethod, classmethod)):
        return _chain(obj.__func__)
    if isinstance(obj, types.FunctionType):
        return _wrapper_chain(obj)
    if isinstance(obj, torch.nn.Module):
        return _chain(obj.forward)
    if isinstance(obj, type):
        raise _Unmendable("a class: mend an instance (an nn.Module) or its methods")
    if not isinstance(getattr(type(obj), "__call__", None), types.FunctionType):
        raise _Unmendable(f"{type(obj).__name__} is not a Python function (builtin or C code)")
    return _chain(type(obj).__call__)


def _resolve(obj: Any) -> types.FunctionType:
    """The Python function whose code mending ``obj`` changes."""
    return _chain(obj)[-1]


def _check_rebuildable(function: types.FunctionType) -> None:
    code = function.__code__
    for flag, what in _UNREBUILDABLE_FLAGS.items():
        if code.co_flags & flag:
            raise _Unmendable(f"it is {what}")
    if code.co_name == "<lambda>":
        raise _Unmendable("a lambda: its source is an expression inside another statement")


# -- step 2: transform, one skeleton per file ------------------------------------------


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", ())
    return min([node.lineno, *(d.lineno for d in decorators)])


def _defs_by_name(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every def in ``tree`` by name, in source order."""
    defs: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, _DEFS):
            defs.setdefault(node.name, []).append(node)
    for same_name in defs.values():
        same_name.sort(key=lambda n: (n.lineno, n.col_offset))
    return defs


@dataclass(frozen=True)
class _ParsedFile:
    tree: ast.Module
    parents: dict[ast.AST, ast.AST]
    defs: dict[tuple[str, int], ast.AST]  # (name, first line) -> def
    imported: frozenset[str]  # see _imported_names
    prelude: frozenset[int]  # lines of the statements _is_prelude keeps

    def def_of(self, code: types.CodeType) -> ast.AST | None:
        return self.defs.get((code.co_name, code.co_firstlineno))


@functools.lru_cache(maxsize=64)
def _parse(filename: str, text: str) -> _ParsedFile:
    tree = ast.parse(text, filename)
    return _ParsedFile(
        tree=tree,
        parents={child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)},
        defs={(n.name, _first_line(n)): n for same in _defs_by_name(tree).values() for n in same},
        imported=_imported_names(tree),
        prelude=frozenset(
            line for s in tree.body if _is_prelude(s) for line in range(s.lineno, s.end_lineno + 1)
        ),
    )


def _is_prelude(statement: ast.stmt) -> bool:
    """Top-level statements that tell the rules what names mean."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        return isinstance(statement.value, (ast.Call, ast.Name, ast.Attribute))
    if isinstance(statement, (ast.If, ast.Try)):  # guarded imports
        inner = list(ast.walk(statement))
        return any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in inner) and not any(
            isinstance(n, (*_DEFS, ast.ClassDef)) for n in inner
        )
    return False


@dataclass
class _Target:
    function: types.FunctionType
    node: ast.AST  # its def in the file's tree
    scope_class: str | None  # the innermost enclosing class, for name mangling
    kept: set[int]  # file lines the skeleton needs for it
    imported: frozenset[str]  # names the file imports at module scope

    def compile(self, node: ast.AST, extra_imports: Iterable[str] = ()) -> types.CodeType:
        return _compile_in_scope(node, self.function, self.scope_class, self.imported | set(extra_imports))


def _target(function: types.FunctionType, parsed: _ParsedFile) -> _Target:
    node = parsed.def_of(function.__code__)
    if node is None:
        raise _Unmendable("its source does not match the loaded code (file edited since import?)")
    lines, scope_class = _scope_lines(node, parsed.parents)
    return _Target(function, node, scope_class, lines, parsed.imported)


def _scope_lines(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[set[int], str | None]:
    """The file lines a def needs in the skeleton (itself and the headers of
    the classes around it), and the innermost enclosing class's name."""
    chain = [node]
    while chain[-1] in parents and not isinstance(parents[chain[-1]], ast.Module):
        chain.append(parents[chain[-1]])
    chain.reverse()  # outermost first
    headers: list[int] = []
    unit = chain[-1]
    for ancestor in chain:
        if not isinstance(ancestor, ast.ClassDef) or ancestor is node:
            unit = ancestor
            break
        body_start = _first_line(ancestor.body[0])  # its decorators are not the header's
        if body_start == ancestor.lineno:  # ``class A: ...`` on one line
            unit = ancestor
            break
        headers.extend(range(ancestor.lineno, body_start))
    classes = [a for a in chain[:-1] if isinstance(a, ast.ClassDef)]
    lines = set(headers) | set(range(_first_line(unit), unit.end_lineno + 1))
    return lines, classes[-1].name if classes else None


def site_skeleton(filename: str, lineno: int) -> tuple[str, dict[int, int]] | None:
    """What the rules see of the function around ``filename:lineno`` when it
    is mended: the file's prelude (imports, simple assignments) and that
    function inside its class headers.  Returns the text and the map from
    file lines to its lines, or None without source or an enclosing def."""
    text = "".join(linecache.getlines(filename))
    if not text:
        return None
    try:
        parsed = _parse(filename, text)
    except SyntaxError:
        return None
    around = [n for n in parsed.defs.values() if _first_line(n) <= lineno <= n.end_lineno]
    if not around:
        return None
    node = max(around, key=_first_line)
    kept = sorted(parsed.prelude | _scope_lines(node, parsed.parents)[0])
    file_lines = text.splitlines(keepends=True)
    return "".join(file_lines[line - 1] for line in kept), {line: i + 1 for i, line in enumerate(kept)}


def _function_text(lines: Sequence[str], node: ast.AST) -> list[str]:
    return list(lines[_first_line(node) - 1 : node.end_lineno])


# -- step 3: compile in a reproduced scope ------------------------------------------


def _imported_names(tree: ast.Module) -> frozenset[str]:
    """Names the module binds by import statements at module scope."""
    names: set[str] = set()
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif not isinstance(node, (*_DEFS, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)


def _compile_in_scope(
    node: ast.AST, function: types.FunctionType, scope_class: str | None, imported: Iterable[str]
) -> types.CodeType:
    """Compile the def ``node`` as ``function``'s code: same scope, same lines.

    The module-level imports are declared too (never executed): CPython 3.11
    compiles ``name.attr(...)`` differently when ``name`` was imported.
    """
    original = function.__code__
    bound = [v for v in original.co_freevars if not (scope_class and v == "__class__")]
    header = f"import {', '.join(sorted(imported))}\n" if imported else ""
    indent = ""
    if scope_class:  # at module level, so its name is a global as in the file
        header += f"class {scope_class}:\n    pass\n"
        indent = "    "
    if bound:
        header += f"{indent}def {_SCOPE}():\n{indent}    {' = '.join(bound)} = None\n"
    wrapper = ast.parse(header)
    body = wrapper.body
    for _ in range(bool(scope_class) + bool(bound)):
        body = body[-1].body
    if scope_class and not bound:
        body.clear()  # the class's placeholder ``pass``
    body.append(node)
    module_code = compile(
        wrapper,
        original.co_filename,
        "exec",
        flags=original.co_flags & _FUTURE_FLAGS,
        dont_inherit=True,
    )
    code = module_code
    for _ in range(1 + bool(scope_class) + bool(bound)):  # module -> (class ->) (scope ->) function
        code = [c for c in code.co_consts if isinstance(c, types.CodeType)][-1]
    nested = original.co_flags & inspect.CO_NESTED
    code = code.replace(co_flags=(code.co_flags & ~inspect.CO_NESTED) | nested)
    return _requalify(code, code.co_qualname, original.co_qualname)


def _requalify(code: types.CodeType, old: str, new: str) -> types.CodeType:
    """Give ``code`` and the code nested in it qualnames under ``new``, not the
    scope's (nested functions take ``__qualname__`` from their code)."""
    consts = tuple(_requalify(c, old, new) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    qualname = code.co_qualname
    if qualname.startswith(old):
        qualname = new + qualname[len(old) :]
    return code.replace(co_qualname=qualname, co_consts=consts)


def _const_key(const: Any) -> Any:
    # repr tells 0.0 from -0.0; a frozenset's repr depends on string hashing.
    if isinstance(const, types.CodeType):
        return _fingerprint(const)
    if isinstance(const, (tuple, frozenset)):
        return type(const), type(const)(_const_key(c) for c in const)
    return type(const), repr(const)


def _fingerprint(code: types.CodeType) -> tuple:
    """What must match for two code objects to behave alike (lines aside)."""
    consts = tuple(_const_key(c) for c in code.co_consts)
    return (
        code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
        code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags, consts,
    )  # fmt: skip


def _line_map(before: list[str], after: list[str], first: int) -> list[int]:
    """For each line of ``after``: the file line of ``before`` it came from,
    or, inside a rewritten region, the first line of what it replaced."""
    mapping = [first] * len(after)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            i = i1 + (j - j1) if tag == "equal" else min(i1, len(before) - 1)
            mapping[j] = first + i
    return mapping


def _move_to_file_lines(node: ast.AST, mapping: list[int], offset: int) -> None:
    for sub in ast.walk(node):
        if getattr(sub, "lineno", None) is None:
            continue
        sub.lineno = mapping[sub.lineno - offset]
        end = getattr(sub, "end_lineno", None)
        if end is not None:
            sub.end_lineno = max(mapping[end - offset], sub.lineno)
            if sub.end_lineno == sub.lineno and sub.end_col_offset < sub.col_offset:
                sub.end_col_offset = sub.col_offset


def _mended_code(target: _Target, node: ast.AST, imports: Iterable[str]) -> types.CodeType:
    """Compile ``node`` (already at file lines) so that its free variables are
    exactly the original's: a rewrite that drops the last use of one gets a
    dead reference (``if False: (name,)``, removed by the compiler but kept in
    the symbol table), because ``__code__`` can only be swapped for code with
    as many free variables as the function has closure cells."""
    original = target.function.__code__
    code = target.compile(node, imports)
    missing = sorted(set(original.co_freevars) - set(code.co_freevars))
    if missing:
        reference = ast.parse(f"if False: ({', '.join(missing)},)").body[0]
        ast.increment_lineno(reference, node.end_lineno - 1)
        node.body.append(reference)
        code = target.compile(node, imports)
    if code.co_freevars != original.co_freevars:
        raise _Unmendable(
            f"the mended code's free variables {code.co_freevars} differ from the closure's "
            f"{original.co_freevars}"
        )
    return code


# -- step 4: swap -----------------------------------------------------------------------


def _original_copy(function: types.FunctionType, code: types.CodeType) -> types.FunctionType:
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
            raise _Unmendable(f"its module already binds {name!r}, which mended code needs for {value!r}")
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


def _apply(target: _Target, code: types.CodeType, source: str, lines: Lines, bindings: dict[str, Any]) -> None:
    function = target.function
    injected = _bind_globals(function.__globals__, bindings)
    original = function.__code__
    set_wrapped = "__wrapped__" not in function.__dict__
    if set_wrapped:
        function.__wrapped__ = _original_copy(function, original)
    function.__code__ = code
    _PATCHES[function] = _Patch(function, original, source, lines, set_wrapped, injected)


def _restore(function: types.FunctionType) -> None:
    patch = _PATCHES.pop(function)
    function.__code__ = patch.original_code
    if patch.set_wrapped:
        del function.__wrapped__
    _release_globals(function.__globals__, patch.injected)


# -- one file -----------------------------------------------------------------------


def _added_imports(before: ast.Module, after: ast.Module) -> dict[str, Any]:
    """What the top-level imports the rules added bind, evaluated in a scratch
    namespace (never in the user's module)."""
    existing = {ast.dump(s) for s in before.body if isinstance(s, (ast.Import, ast.ImportFrom))}
    bindings: dict[str, Any] = {}
    for statement in after.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)) and ast.dump(statement) not in existing:
            scratch: dict[str, Any] = {}
            exec(compile(ast.Module([statement], []), "<graphmend imports>", "exec"), scratch)
            scratch.pop("__builtins__", None)
            bindings.update(scratch)
    return bindings


def _overlap(a: ast.AST, b: ast.AST) -> bool:
    return _first_line(a) <= b.end_lineno and _first_line(b) <= a.end_lineno


def _mend_file(filename: str, requests: list[tuple[types.FunctionType, Lines]], rule_names: tuple[str, ...]) -> list[types.FunctionType]:
    """Mend functions defined in one file, all with ``lines`` or all without."""
    globals_ = requests[0][0].__globals__
    # "<string>" and the like name no file; only a tool that registers its
    # text in linecache under a unique name (IPython) gives them source.
    pseudo = filename.startswith("<") and (filename == "<string>" or filename not in linecache.cache)
    file_lines = [] if pseudo else linecache.getlines(filename, globals_)
    if not file_lines:
        for function, _ in requests:
            _skip(function, "no source (defined by exec/compile, or the file is gone)")
        return []
    text = "".join(file_lines)
    try:
        parsed = _parse(filename, text)
    except SyntaxError as err:
        for function, _ in requests:
            _skip(function, f"its file does not parse: {err}")
        return []
    targets: list[tuple[_Target, Lines]] = []
    for function, lines in requests:
        try:
            target = _target(function, parsed)
            original = target.compile(target.node)  # compile() leaves the tree as it is
            if _fingerprint(original) != _fingerprint(function.__code__):
                raise _Unmendable("its source does not compile to the loaded code (file edited since import?)")
        except _Unmendable as why:
            _skip(function, str(why))
            continue
        targets.append((target, lines))
    if not targets:
        return []

    kept = sorted(set(parsed.prelude).union(*(t.kept for t, _ in targets)))
    skeleton = "".join(file_lines[line - 1] for line in kept)
    to_skeleton = {line: index + 1 for index, line in enumerate(kept)}
    wanted = [lines for _, lines in targets]
    skeleton_lines = (
        None
        if wanted[0] is None
        else frozenset(to_skeleton[line] for lines in wanted for line in lines if line in to_skeleton)
    )
    try:
        mended_text = cache.cached(
            skeleton,
            rules=rule_names,
            lines=skeleton_lines,
            build=lambda: transform_source(skeleton, rules=rule_names, lines=skeleton_lines, filename=filename).code,
        )
        skeleton_tree = ast.parse(skeleton, filename)
        mended_tree = ast.parse(mended_text, filename)
        bindings = _added_imports(skeleton_tree, mended_tree)
    except (SourceError, SyntaxError, ImportError) as err:
        for target, _ in targets:
            _skip(target.function, f"the rules failed on {filename}: {err}")
        return []

    mended_lines = mended_text.splitlines(keepends=True)
    skeleton_defs, mended_defs = _defs_by_name(skeleton_tree), _defs_by_name(mended_tree)
    patched = []
    for target, lines in targets:
        function = target.function
        try:
            name = function.__code__.co_name
            # The rules add no defs, so the n-th def of a name stays the n-th.
            ordinal = [_first_line(n) for n in skeleton_defs[name]].index(
                to_skeleton[function.__code__.co_firstlineno]
            )
            node = mended_defs[name][ordinal]
            before = _function_text(file_lines, target.node)
            after = _function_text(mended_lines, node)
            if before == after:
                raise _Unmendable("no rewrite applies to it")
            if any(_overlap(other.node, target.node) for other, _ in targets if other is not target):
                node = copy.deepcopy(node)  # one target nested in another: both move lines
            _move_to_file_lines(node, _line_map(before, after, _first_line(target.node)), _first_line(node))
            code = _mended_code(target, node, bindings)
            _apply(target, code, textwrap.dedent("".join(after)), lines, bindings)
        except _Unmendable as why:
            _skip(function, str(why))
            continue
        patched.append(function)
    return patched


# -- the batch behind every entry point ----------------------------------------------


def _mend_functions(requests: Iterable[tuple[types.FunctionType, Lines]], rules: Iterable[str] | None) -> list[types.FunctionType]:
    """Mend each (function, lines); the functions now mended (new or before)."""
    rule_names = tuple(rule.NAME for rule in select_rules(rules))
    merged: dict[types.FunctionType, Lines] = {}
    for function, lines in requests:
        if function in merged:
            previous = merged[function]
            lines = None if lines is None or previous is None else previous | lines
        merged[function] = lines
    done: list[types.FunctionType] = []
    groups: dict[tuple[str, bool], list[tuple[types.FunctionType, Lines]]] = {}
    for function, lines in merged.items():
        patch = _PATCHES.get(function)
        if patch is not None:
            if patch.lines is None or (lines is not None and lines <= patch.lines):
                done.append(function)
                continue
            lines = None if lines is None else lines | patch.lines
            _restore(function)
        try:
            _check_rebuildable(function)
        except _Unmendable as why:
            _skip(function, str(why))
            continue
        groups.setdefault((function.__code__.co_filename, lines is None), []).append((function, lines))
    for (filename, _), group in groups.items():
        try:
            done.extend(_mend_file(filename, group, rule_names))
        except Exception:  # a bug in a rule or here must not break the user's program
            logger.warning("graphmend: mending functions in %s failed; left unchanged", filename, exc_info=True)
    return done


# -- public API -----------------------------------------------------------------------


def _functions_of(value: Any) -> Iterator[Any]:
    """The functions a class attribute holds."""
    if isinstance(value, (types.FunctionType, staticmethod, classmethod)):
        yield value
    elif isinstance(value, property):
        yield from (f for f in (value.fget, value.fset, value.fdel) if f is not None)
    elif isinstance(value, functools.cached_property):
        yield value.func


def _matches(name: str, prefixes: Sequence[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def model_functions(model: torch.nn.Module, prefixes: Sequence[str] = ()) -> list[Any]:
    """Where ``mend`` looks for functions of ``model``: ``model.forward``, the
    methods of every class in the MRO of every submodule's class, and the
    module-level functions of the Python modules among ``prefixes`` that
    define such a class or are named exactly."""
    classes = {cls: None for sub in model.modules() for cls in type(sub).__mro__ if cls is not object}
    functions = [model.forward]
    for cls in classes:
        for value in vars(cls).values():
            functions.extend(_functions_of(value))
    module_names = {cls.__module__ for cls in classes if _matches(cls.__module__, prefixes)} | set(prefixes)
    for name in module_names:
        python_module = sys.modules.get(name)
        for value in vars(python_module).values() if python_module else ():
            if isinstance(value, types.FunctionType) and value.__module__ == name:
                functions.append(value)
    return functions


def _prefixes(modules: str | Iterable[str] | None, default: str) -> list[str]:
    if modules is None:
        return [default]
    return [modules] if isinstance(modules, str) else list(modules)


def mend(obj: Any, *, modules: str | Iterable[str] | None = None, rules: Iterable[str] | None = None) -> Any:
    """Rewrite ``obj`` in memory, in place, so Dynamo meets fewer graph breaks.

    A function comes back as itself, its code mended and ``__wrapped__`` set
    to a copy running the original code.  An ``nn.Module`` comes back as
    itself with ``forward`` and the functions it reaches in ``modules`` mended
    (see this module's docstring).  Anything that cannot be mended comes back
    unchanged, the reason logged at debug level on the ``graphmend`` logger.
    ``rules`` selects rules by name (default: all).  Raises
    :class:`GraphmendError` only for an ``obj`` that is not callable.
    """
    if not callable(obj) and not isinstance(obj, (staticmethod, classmethod)):
        raise GraphmendError(f"mend() needs a function or an nn.Module, not {type(obj).__name__}")
    with _LOCK:
        if isinstance(obj, torch.nn.Module):
            prefixes = _prefixes(modules, type(obj).__module__)
            candidates = model_functions(obj, prefixes)
        else:
            prefixes = [] if modules is None else _prefixes(modules, "")
            candidates = _functions_in_modules(prefixes) if prefixes else []
        try:
            own = [_resolve(obj)]  # a module's forward, or the function itself
        except _Unmendable as why:
            _skip(obj, str(why))
            own = []
        reached = [f for f in _live_functions(candidates) if _matches(_module_name(f), prefixes)]
        requests = [(function, None) for function in dict.fromkeys(own + reached)]
        _remember(obj, _mend_functions(requests, rules))
    return obj


def _functions_in_modules(prefixes: Sequence[str]) -> list[Any]:
    """Module-level functions and class methods defined in the named modules."""
    functions: list[Any] = []
    for name, python_module in list(sys.modules.items()):
        if python_module is None or not _matches(name, prefixes):
            continue
        for value in list(vars(python_module).values()):
            # Type checks first: a module may hold objects whose attributes raise.
            if isinstance(value, types.FunctionType) and value.__module__ == name:
                functions.append(value)
            elif isinstance(value, type) and value.__module__ == name:
                for attribute in vars(value).values():
                    functions.extend(_functions_of(attribute))
    return functions


def _resolve_quietly(obj: Any) -> types.FunctionType | None:
    try:
        return _resolve(obj)
    except _Unmendable:
        return None


def _anchor(obj: Any) -> Any:
    """What ``unmend(obj)`` finds its patches under: a module itself, else the
    function ``obj`` resolves to (a bound method is a new object each time)."""
    return obj if isinstance(obj, torch.nn.Module) else _resolve_quietly(obj)


def _remember(obj: Any, functions: list[types.FunctionType]) -> None:
    anchor = _anchor(obj)
    if anchor is None or not functions:
        return
    owned = _OWNED.setdefault(anchor, [])
    owned.extend(f for f in functions if f not in owned)


def mend_sites(
    sites: Iterable[tuple[str, int]],
    candidates: Iterable[Any],
    *,
    modules: str | Iterable[str] | None = None,
    rules: Iterable[str] | None = None,
    anchor: Any = None,
) -> list[types.FunctionType]:
    """Mend the statements at ``sites`` (file, line), as a diagnosis reported
    them, in the live functions that contain them.

    A site's function is looked for among ``candidates`` (e.g. a model's
    methods) and then in the module whose ``__file__`` is the site's file; a
    site inside a nested function mends the live function around it, whose
    code holds the nested one's.  With ``modules`` (module-name prefixes),
    only functions defined in those modules are mended.  ``unmend(anchor)``
    undoes it.
    """
    prefixes = None if modules is None else _prefixes(modules, "")
    with _LOCK:
        by_function: dict[types.FunctionType, set[int]] = {}
        pool = _live_functions(candidates)
        for filename, lineno in sites:
            function, statement_line = _function_at(filename, lineno, pool)
            if function is None:
                logger.debug("graphmend: no live function holds %s:%d; not mended", filename, lineno)
                continue
            if prefixes is not None and not _matches(_module_name(function), prefixes):
                _skip(function, f"outside the modules named {prefixes}")
                continue
            by_function.setdefault(function, set()).add(statement_line)
        patched = _mend_functions(((f, frozenset(ls)) for f, ls in by_function.items()), rules)
        _remember(anchor, patched)
        return patched


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
    *wrappers, function = _chain(obj)
    found = {function: None}
    pending = [*wrappers, function]
    while pending:
        current = pending.pop()
        found.setdefault(current)
        pending.extend(f for f in _closure_functions(current) if f not in found)
    return list(found)


def _live_functions(candidates: Iterable[Any]) -> list[types.FunctionType]:
    """Every Python function reachable from ``candidates`` (see _reachable)."""
    functions: dict[types.FunctionType, None] = {}
    for candidate in candidates:
        try:
            functions.update(dict.fromkeys(_reachable(candidate)))
        except _Unmendable:
            pass
    return list(functions)


def _module_name(function: types.FunctionType) -> str:
    # Not ``__module__``, which functools.wraps copies from the wrapped function.
    return function.__globals__.get("__name__") or ""


def _file_functions(filename: str) -> list[types.FunctionType]:
    """Functions and methods defined in the imported module loaded from ``filename``."""
    real = os.path.realpath(filename)
    for name, python_module in list(sys.modules.items()):
        # Through __dict__: lazy modules' __getattr__ may import, or raise.
        module_file = getattr(python_module, "__dict__", {}).get("__file__")
        if isinstance(module_file, str) and os.path.realpath(module_file) == real:
            return _live_functions(_functions_in_modules([name]))
    return []


def _function_at(filename: str, lineno: int, pool: list[types.FunctionType]) -> tuple[types.FunctionType | None, int]:
    """The live function around ``filename:lineno``, and the first line of the
    statement there (Dynamo may report a later line of a multi-line one)."""
    text = "".join(linecache.getlines(filename))
    if not text:
        return None, lineno
    try:
        parsed = _parse(filename, text)
    except SyntaxError:
        return None, lineno
    statements = [n for n in ast.walk(parsed.tree) if isinstance(n, ast.stmt) and n.lineno <= lineno <= n.end_lineno]
    statement_line = max((n.lineno for n in statements), default=lineno)
    real = os.path.realpath(filename)
    for functions in (pool, None):
        best = None
        for function in functions if functions is not None else _file_functions(filename):
            code = function.__code__
            if os.path.realpath(code.co_filename) != real:
                continue
            node = parsed.def_of(code)
            if node is not None and _first_line(node) <= lineno <= node.end_lineno:
                if best is None or _first_line(node) > _first_line(best[1]):
                    best = (function, node)
        if best is not None:
            return best[0], statement_line
    return None, statement_line


def unmend(obj: Any) -> Any:
    """Undo ``mend`` (and ``graphmend.compile``'s mending) of ``obj``; returns ``obj``."""
    with _LOCK:
        function = _resolve_quietly(obj)
        anchor = _anchor(obj)
        owned = _OWNED.pop(anchor, []) if anchor is not None else []
        for mended in [*owned, function]:
            if mended in _PATCHES:
                _restore(mended)
    return obj


def mended_source(obj: Any) -> str:
    """The mended source of a mended function (or of a module's ``forward``)."""
    function = _resolve_quietly(obj)
    patch = _PATCHES.get(function) if function is not None else None
    if patch is None:
        raise GraphmendError(f"{_describe(obj)} is not mended")
    return patch.mended_source


def show(obj: Any) -> str:
    """Print the mended source of a mended function, and return it."""
    source = mended_source(obj)
    print(source, end="" if source.endswith("\n") else "\n")
    return source
