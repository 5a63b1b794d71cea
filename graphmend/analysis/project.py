"""What a file learns from the other files of its project, read statically.

``graphmend fix`` runs nothing, so it cannot follow live objects the way
``graphmend.compile`` does (:mod:`graphmend.reach`).  It can still read the
files a file imports from its own project: a relative import
(``from .logging_utils import warn_once``), an absolute one that resolves
to a file of the same package tree, or a sibling module of a flat project
(``from utils import warn_once`` beside ``utils.py``).  Installed
libraries, the standard library and anything that does not resolve to a
file on disk are not read.

Today a file learns which imported functions are *message helpers*
(:func:`graphmend.analysis.message_helpers.effect_helpers`: a function whose only
effect is a print, a log record or a warning), named as the file calls
them (``warn_once``, ``logging_utils.warn_once``), so [Defer] defers a call
to one as it defers a call to a helper defined in the file itself.
"""

from __future__ import annotations

import ast
import functools
import os

from graphmend.analysis.message_helpers import effect_helpers


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
