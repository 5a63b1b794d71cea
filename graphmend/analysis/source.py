"""Where things are in source files: the statement at a line.

Read-only: these helpers map a (file, line) that Dynamo reports to the
statement there, using :mod:`ast` over the text that
:mod:`linecache` holds (so files that changed on disk after import are seen
as Python saw them).
"""

from __future__ import annotations

import ast
import functools
import linecache


@functools.lru_cache(maxsize=256)
def _parse(filename: str, text: str) -> ast.Module | None:
    try:
        return ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None


def parse_file(filename: str) -> ast.Module | None:
    """The module's AST as Python last loaded it, or None."""
    lines = linecache.getlines(filename)
    return _parse(filename, "".join(lines)) if lines else None


def _spans(node: ast.AST, lineno: int) -> bool:
    end = getattr(node, "end_lineno", None)
    return end is not None and node.lineno <= lineno <= end


def innermost(tree: ast.AST, lineno: int, kinds: tuple[type, ...]) -> ast.AST | None:
    """The deepest node of one of ``kinds`` whose lines contain ``lineno``."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, kinds) and _spans(node, lineno):
            if found is None or (node.lineno, -node.end_lineno) >= (found.lineno, -found.end_lineno):
                found = node
    return found


def statement_at(filename: str, lineno: int) -> ast.stmt | None:
    tree = parse_file(filename)
    return innermost(tree, lineno, (ast.stmt,)) if tree else None
