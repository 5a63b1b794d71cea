"""What a file learns from the other files of its project, read statically.

``graphmend fix`` runs nothing, so it cannot follow live objects the way
``graphmend.compile`` does (:mod:`graphmend.mending.reach`).  It can still read the
files a file imports from its own project: a relative import
(``from .logging_utils import warn_once``), an absolute one that resolves
to a file of the same package tree, or a sibling module of a flat project
(``from utils import warn_once`` beside ``utils.py``).  Installed
libraries, the standard library and anything that does not resolve to a
file on disk are not read.

A file learns which imported functions are *message helpers*
(:func:`graphmend.analysis.message_helpers.effect_helpers`: a function whose only
effect is a print, a log record or a warning), named as the file calls
them (``warn_once``, ``logging_utils.warn_once``), so [Defer] defers a call
to one as it defers a call to a helper defined in the file itself; and
the summaries of the imported functions it calls
(:mod:`graphmend.analysis.summaries`, through :func:`imported_target`), so an
arm or a loop body calling a pure helper of a sibling file
(``from .utils import norm``) is rewritten as it is when ``graphmend.compile``
reads the live function.  Both follow the file's module-level imports,
and a summary follows the imports of the files it reads in turn.
"""

from __future__ import annotations

import ast
import functools
import os

from graphmend.analysis.message_helpers import effect_helpers
from graphmend.analysis.source import ParsedFile, parse_text
from graphmend.analysis.summaries import MAX_DEPTH, Target, file_target, single_bindings


def _package_root(directory: str) -> str:
    """The folder holding the top package around ``directory`` (itself when
    it is no package: a flat project)."""
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def _module_file(base: str, dotted: str) -> str | None:
    path = os.path.join(base, *dotted.split(".")) if dotted else base
    for candidate in (path + ".py", os.path.join(path, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


def _resolve(filename: str, module: str, level: int) -> str | None:
    """The file of module ``module`` imported from ``filename`` with ``level``
    leading dots, when it lies in the file's project."""
    directory = os.path.dirname(os.path.abspath(filename))
    if level:
        for _ in range(level - 1):
            directory = os.path.dirname(directory)
        return _module_file(directory, module)
    return _module_file(directory, module) or _module_file(_package_root(directory), module)


@functools.lru_cache(maxsize=1024)
def _helpers_of(path: str, mtime: float) -> frozenset[str]:
    try:
        with open(path, "rb") as handle:
            return effect_helpers(ast.parse(handle.read(), path))
    except (OSError, SyntaxError, ValueError):
        return frozenset()


def _helpers_in(path: str | None) -> frozenset[str]:
    if path is None:
        return frozenset()
    try:
        return _helpers_of(path, os.path.getmtime(path))
    except OSError:
        return frozenset()


def imported_effect_helpers(filename: str, tree: ast.Module) -> frozenset[str]:
    """The message helpers ``filename`` imports from its own project, as its
    module-level imports name them."""
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            base = statement.module or ""
            helpers = _helpers_in(_resolve(filename, base, statement.level))
            for alias in statement.names:
                local = alias.asname or alias.name
                if alias.name in helpers:
                    found.add(local)
                else:  # ``from . import logging_utils``: a module
                    submodule = f"{base}.{alias.name}" if base else alias.name
                    found.update(f"{local}.{h}" for h in _helpers_in(_resolve(filename, submodule, statement.level)))
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                helpers = _helpers_in(_resolve(filename, alias.name, 0))
                local = alias.asname or alias.name
                found.update(f"{local}.{h}" for h in helpers)
    return frozenset(found)


@functools.lru_cache(maxsize=256)
def _parsed(path: str, mtime: float) -> ParsedFile | None:
    try:
        with open(path, "rb") as handle:
            return parse_text(path, handle.read().decode("utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None


def _parsed_file(path: str | None) -> ParsedFile | None:
    if path is None:
        return None
    try:
        return _parsed(path, os.path.getmtime(path))
    except OSError:
        return None


def imported_target(parsed: ParsedFile, dotted: str, depth: int = 0) -> Target | None:
    """The def of a project file that ``dotted`` (a name ``parsed`` calls:
    ``norm``, ``utils.norm``, ``pkg.utils.norm``) reaches through one of
    its module-level imports, bound once (through at most
    :data:`~graphmend.analysis.summaries.MAX_DEPTH` files that import it in
    turn); None where it reaches none."""
    head = dotted.partition(".")[0]
    if head not in single_bindings(parsed):
        return None
    for statement in parsed.tree.body:
        if isinstance(statement, ast.ImportFrom):
            base = statement.module or ""
            for alias in statement.names:
                if (alias.asname or alias.name) != head:
                    continue
                rest = dotted.partition(".")[2]
                if not rest:  # ``from .utils import norm``: a def of that file, or one it imports
                    return _target_in(_resolve(parsed.filename, base, statement.level), alias.name, depth)
                submodule = f"{base}.{alias.name}" if base else alias.name  # ``from . import utils``
                return _target_in(_resolve(parsed.filename, submodule, statement.level), rest, depth)
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                module = alias.name if alias.asname else alias.name.partition(".")[0]
                if (alias.asname or module) != head:
                    continue
                # ``import pkg.utils``: ``pkg.utils.norm`` names ``norm`` of the longest module that is a file
                local = dotted.split(".")
                names = alias.name.split(".") + local[1:] if alias.asname else local
                for cut in range(len(names) - 1, len(alias.name.split(".")) - 1, -1):
                    path = _resolve(parsed.filename, ".".join(names[:cut]), 0)
                    if path is not None:
                        return _target_in(path, ".".join(names[cut:]), depth)
                return None
    return None


def _target_in(path: str | None, name: str, depth: int) -> Target | None:
    """The def ``name`` of the file ``path``, or of a file it imports it from."""
    other = _parsed_file(path)
    if other is None or depth >= MAX_DEPTH:
        return None
    if file_target(other, name) is not None:
        return file_target(other, name, imported_target)
    return imported_target(other, name, depth + 1)

