"""The graph-break registry that ships in the wheel
(``torch/_dynamo/graph_break_registry.json``): a break's id (``GB0170``)
and its registry entry, for ``diagnose``'s hints."""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

import torch



_GB_LINK = re.compile(r"/gb/gb(\d+)\.html")


@functools.lru_cache(maxsize=1)
def graph_break_registry() -> dict[str, list[dict[str, Any]]]:
    """Dynamo's graph-break registry as shipped in the wheel
    (``torch/_dynamo/graph_break_registry.json``: id -> its entries, the
    first the current one); empty where the wheel has none."""
    path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
    try:
        with open(path, encoding="utf-8") as file:
            registry = json.load(file)
    except (OSError, ValueError):
        return {}
    return registry if isinstance(registry, dict) else {}


@functools.lru_cache(maxsize=1)
def _ids_by_gb_type() -> dict[str, str]:
    ids: dict[str, str] = {}
    for gb_id, entries in sorted(graph_break_registry().items()):
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("Gb_type"), str):
                ids.setdefault(entry["Gb_type"], gb_id)
    return ids


#: Reasons Dynamo records without a gb_type: a data-dependent jump's reason
#: is ``generic_jump TensorVariable()`` (its fullgraph error says
#: "Data-dependent branching").
_REASONS_WITHOUT_GB_TYPE = {"generic_jump": "Data-dependent branching"}


def graph_break_id(reason: str) -> str | None:
    """Dynamo's id (``"GB0170"``) of a break, from a ``GraphCompileReason``'s
    text: the registry link in it, else its first line (the gb_type) looked
    up in the registry; None when the registry does not know it."""
    link = _GB_LINK.search(reason)
    if link:
        return f"GB{int(link.group(1)):04d}"
    headline = reason.strip().split("\n", 1)[0].strip()
    for prefix, gb_type in _REASONS_WITHOUT_GB_TYPE.items():
        if headline.startswith(prefix):
            headline = gb_type
    return _ids_by_gb_type().get(headline)


def graph_break_entry(gb_id: str, gb_type: str | None = None) -> dict[str, Any] | None:
    """The registry's entry for ``gb_id`` (the one whose gb_type is
    ``gb_type`` where an id has several), with keys ``Gb_type``,
    ``Context``, ``Explanation`` and ``Hints``."""
    entries = [e for e in graph_break_registry().get(gb_id) or () if isinstance(e, dict)]
    if not entries:
        return None

    def plain(text: Any) -> bool:
        # Some entries hold the source text of an expression
        # ("_explanation", '"Detected ..." + trace_info'), not its value.
        return isinstance(text, str) and bool(text) and not text.startswith(("_", '"', "'", 'f"'))

    def score(entry: dict[str, Any]) -> tuple[bool, bool, bool]:
        return (gb_type is None or entry.get("Gb_type") == gb_type, plain(entry.get("Explanation")),
                bool(entry.get("Hints")))

    # The first of the best: an entry for this gb_type, its text expanded.
    return max(entries, key=score)
