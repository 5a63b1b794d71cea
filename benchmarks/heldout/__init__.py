"""Held-out sets: rows of libraries in neither corpus, written down before they are run (ROWS.md)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import types


def rounds() -> list[types.ModuleType]:
    """Every held-out round's module, in order: ``rows`` (round five), then
    ``round6``, ``round7``, ... (a round drafted by several helpers is
    gathered by its ``roundN``, not its ``roundN_a``); each has ``ROWS``,
    whose builders import their libraries only when called."""
    numbered = sorted((module.name for module in pkgutil.iter_modules(__path__)
                       if re.fullmatch(r"round\d+", module.name)), key=lambda name: int(name[len("round"):]))
    return [importlib.import_module(f"{__name__}.{name}") for name in ("rows", *numbered)]
