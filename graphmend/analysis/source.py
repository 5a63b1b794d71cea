"""Where things are in source files: statements and enclosing functions.

Read-only: these helpers map a (file, line) that Dynamo reports to the
statement and the function around it, using :mod:`ast` over the text that
:mod:`linecache` holds (so files that changed on disk after import are seen
as Python saw them).
"""

from __future__ import annotations

import ast
import functools
import linecache
import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class FunctionSource:
    """The source of one function, ready for the pipeline."""

    filename: str
    name: str
    text: str  # dedented, decorators included
    first_line: int  # the file line that is line 1 of ``text``
    indent: str  # the indentation removed by dedenting

    def snippet_line(self, file_line: int) -> int:
        return file_line - self.first_line + 1

    def file_line(self, snippet_line: int) -> int:
        return snippet_line + self.first_line - 1


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


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def function_at(filename: str, lineno: int) -> FunctionSource | None:
    """The innermost function whose lines contain ``lineno``."""
    tree = parse_file(filename)
    node = innermost(tree, lineno, _FUNCTIONS) if tree else None
    if node is None:
        return None
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = linecache.getlines(filename)[first - 1 : node.end_lineno]
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())] if dedented != text else ""
    return FunctionSource(filename, node.name, dedented, first, indent)
