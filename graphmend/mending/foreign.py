"""The code graphmend never mends: torch's, the standard library's and its own.

One rule, asked wherever mending meets code: by the walk of what a call
reaches (:mod:`.reach`), the ``modules=`` search (:mod:`.search`), the
summaries of the functions a mended function calls (:mod:`.callees`), the
mending of whatever functions it is handed (:mod:`.live`) and the import
hook, which refuses to be pointed at such modules (:mod:`.hook`).
"""

from __future__ import annotations

import sys
import types


def foreign_module(name: str) -> bool:
    """torch, graphmend and the standard library: code never mended."""
    top = name.split(".")[0]
    return top in ("torch", "graphmend") or top in sys.stdlib_module_names


def foreign(function: types.FunctionType) -> bool:
    """Whether ``function`` is defined in code never mended."""
    return foreign_module(module_name(function))


def module_name(function: types.FunctionType) -> str:
    # Not ``__module__``, which functools.wraps copies from the wrapped function.
    return function.__globals__.get("__name__") or ""
