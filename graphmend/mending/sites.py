"""The live function behind a site a diagnosis reported.

A site is a file and a line; :func:`function_at` finds the live function
whose code holds it, among the functions a caller offers (a model's
methods) and then among those of the module loaded from that file.
"""

from __future__ import annotations

import os
import sys
import types

from graphmend.analysis.source import first_line, parse_file
from graphmend.mending.search import functions_behind, functions_in_modules


def _file_functions(filename: str) -> list[types.FunctionType]:
    """Functions and methods defined in the imported module loaded from ``filename``."""
    real = os.path.realpath(filename)
    for name, python_module in list(sys.modules.items()):
        # Through __dict__: lazy modules' __getattr__ may import, or raise.
        module_file = getattr(python_module, "__dict__", {}).get("__file__")
        if isinstance(module_file, str) and os.path.realpath(module_file) == real:
            return functions_behind(functions_in_modules([name]))
    return []


def code_holds(code: types.CodeType, filename: str, lineno: int) -> bool:
    """Whether ``filename:lineno`` lies in the function whose code is
    ``code`` (its nested functions included)."""
    if os.path.realpath(code.co_filename) != os.path.realpath(filename):
        return False
    last, pending = code.co_firstlineno, [code]
    while pending:
        inner = pending.pop()
        pending.extend(const for const in inner.co_consts if isinstance(const, types.CodeType))
        last = max([last, *(line for *_, line in inner.co_lines() if line is not None)])
    return code.co_firstlineno <= lineno <= last


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
