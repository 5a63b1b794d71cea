"""What ``graphmend.compile`` learnt about a model, kept across processes.

``graphmend.compile`` mends statically before compiling (no extra trace),
then watches the user's own first compiled call.  A fixable break it sees
there -- in code the static mending did not reach, such as a library base
class's method in another module -- is written down here, so that the
next process mends it before compiling and never meets it; so is a site
whose mending changed nothing (a rule declined it), so that the next
process compiles it as it is instead of spending a round on it; and so is
a mended function given back its original code (its first line), so that
the next process never mends it and pays no retraces to find out again;
and so is code whose frames [Capture] gave up on (its place, a digest of
its bytecode and why), so that the next process compiles them without
capture at once instead of tracing them with it to give them up again.

A record is keyed by everything its sites depend on: the compiled object
(its class or function, by qualified name), graphmend's and torch's
versions, and the argument signature of the first call (types, shapes,
dtypes, devices).  Each site names its file and line together with the
SHA-256 of the file's text, so an edited file's site is ignored.  Records
live beside the source cache (:func:`graphmend.storage.cache_dir`), are
written atomically, and are only an optimisation: a missing or corrupt
record just means the break is met once more.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

import torch
import torch.utils._pytree as pytree

import graphmend
from graphmend.compat.codes import code_key
from graphmend.mending.resolve import describe
from graphmend.storage import cache_dir, write_atomically

_FORMAT = "graphmend-record/1"
_KINDS = ("sites", "declined", "kept", "uncaptured")


def _describe(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return ["tensor", list(value.shape), str(value.dtype), str(value.device), value.requires_grad]
    if isinstance(value, (bool, int, float, str, type(None))):
        return [type(value).__name__, value if isinstance(value, (bool, type(None))) else None]
    return [type(value).__qualname__]


def _context(value: Any) -> Any:
    """A tree node's context (a dict's keys, a namedtuple's fields) as JSON:
    plain values as they are, anything else by its class's name, never by
    its own ``repr`` (a dict keyed by a user object: its ``repr`` may raise,
    print or name an address)."""
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    if isinstance(value, (list, tuple)):
        return [_context(item) for item in value]
    return ["type", value.__qualname__] if isinstance(value, type) else ["instance", type(value).__qualname__]


def _structure(spec: pytree.TreeSpec) -> Any:
    node = None if spec.type is None else spec.type.__qualname__
    # torch 2.13 deprecates ``children_specs`` (a FutureWarning) for ``children()``
    children = spec.children() if hasattr(spec, "children") else spec.children_specs
    return [node, _context(spec.context), [_structure(child) for child in children]]


def key(obj: Any, args: tuple, kwargs: dict) -> str:
    """The record's name for compiling ``obj`` and calling it with these arguments."""
    target = type(obj) if isinstance(obj, torch.nn.Module) else obj
    leaves, spec = pytree.tree_flatten((args, kwargs))
    fields = {
        "format": _FORMAT,
        "target": f"{getattr(target, '__module__', '')}.{describe(target)}",
        "graphmend": graphmend.__version__,
        "torch": torch.__version__,
        "grad": torch.is_grad_enabled(),
        "signature": [_describe(leaf) for leaf in leaves],
        "structure": _structure(spec),
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _path(name: str):
    return cache_dir() / "records" / f"{name}.json"


def _file_hash(filename: Any) -> str | None:
    if not isinstance(filename, str):
        return None
    try:
        with open(filename, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _read(name: str) -> dict[str, Any]:
    try:
        data = json.loads(_path(name).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("format") == _FORMAT else {}


def _unchanged(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The entries of ``kind`` whose files are unchanged."""
    entries = data.get(kind, ())
    return [entry for entry in entries
            if isinstance(entry, dict) and _file_hash(entry.get("file")) == entry.get("sha256")]


def load(name: str, kind: str = "sites") -> list[tuple[str, int]]:
    """The sites (file, line) of record ``name`` whose files are unchanged:
    ``"sites"``, mended by a first call; ``"declined"``, met by one where
    mending changed nothing (a rule declined), which a later process's first
    call then compiles as they are instead of running their frame eagerly
    for a round that mends nothing; or ``"kept"``, the first lines of
    mended functions given back their original code
    (:func:`graphmend.mending.live.keep_original_behind`), which a later
    process does not mend."""
    return [(entry["file"], entry["line"]) for entry in _unchanged(_read(name), kind)]


def load_uncaptured(name: str) -> dict[str, str]:
    """The code whose frames [Capture] gave up on in record ``name``'s first
    calls, where its file is unchanged: its
    :func:`graphmend.compat.codes.code_key` -> why
    (:func:`graphmend.compat.capture.given_up_before`)."""
    return {entry["code"]: entry["why"] for entry in _unchanged(_read(name), "uncaptured")
            if isinstance(entry.get("code"), str) and isinstance(entry.get("why"), str)}


def store(name: str, sites: Iterable[tuple[str, int]], kind: str = "sites") -> None:
    """Add ``sites`` to record ``name`` as ``kind`` (see :func:`load`),
    atomically; failures only cost speed."""
    _add(name, kind, [{"file": file, "line": line} for file, line in sites])


def store_uncaptured(name: str, codes: Iterable[tuple[Any, str]]) -> None:
    """Add code objects [Capture] gave up on, each with why (see
    :func:`load_uncaptured`), to record ``name``."""
    _add(name, "uncaptured", [{"file": code.co_filename, "line": code.co_firstlineno, "code": code_key(code),
                               "why": why} for code, why in codes])


def _add(name: str, kind: str, new: list[dict[str, Any]]) -> None:
    """Merge ``new`` entries (without their files' hashes) into record
    ``name``'s ``kind``; the entries of files changed since are dropped."""
    data = _read(name)
    entries: dict[str, Any] = {"format": _FORMAT}
    for each in _KINDS:
        merged = {}
        # A kept entry comes last and wins: its hash was just checked against
        # its file, which only a new entry needs read for.
        for entry in [*(new if each == kind else ()), *_unchanged(data, each)]:
            fields = {field: value for field, value in entry.items() if field != "sha256"}
            merged[json.dumps(fields, sort_keys=True)] = entry
        if merged:
            entries[each] = [entry if "sha256" in entry else {**entry, "sha256": _file_hash(entry["file"])}
                             for _, entry in sorted(merged.items())]
    write_atomically(_path(name), json.dumps(entries, indent=1))
