"""On-disk cache of transformed sources, so a second run costs nearly nothing.

An entry is the text the pipeline produced for one input text, keyed by
everything the output depends on: the input's hash, graphmend's version, a
digest of the rule code (every module the pipeline's layer may import, by
:mod:`graphmend.layers`; so a rule or a vocabulary table edited during
development never serves a stale rewrite under an unchanged version
number), the rules selected, the ``lines`` a diagnosis asked for, and
torch's version.

Entries are plain source text, never pickles.  Each starts with a header line
carrying the SHA-256 of the text after it, so a truncated or corrupt entry is
detected on reading and rebuilt.  Writes go to a temporary file in the same
folder and are published with ``os.replace``, which is atomic: two processes
writing the same entry each publish a whole file, and readers see one or the
other, never a mix.  The cache is an optimisation only: any I/O failure is
logged at debug level and the caller transforms afresh.

The folder is :func:`graphmend.storage.cache_dir`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import graphmend
from graphmend.storage import cache_dir, code_digest, write_atomically

logger = logging.getLogger("graphmend")

_FORMAT = "graphmend-cache/1"


def cache_key(source: str, *, rules: Iterable[str], lines: Iterable[int] | None, also_static: bool = False,
              extra: Iterable[str] = ()) -> str:
    """The entry name for transforming ``source`` with these settings."""
    fields = {
        "format": _FORMAT,
        "source": hashlib.sha256(source.encode()).hexdigest(),
        "graphmend": graphmend.__version__,
        "rule_code": code_digest("graphmend.pipeline"),
        "rules": list(rules),
        "lines": None if lines is None else sorted(lines),
        "also_static": also_static,
        "extra": list(extra),
        "torch": _torch_version(),
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _torch_version() -> str:
    """torch's version, without importing torch (``graphmend fix`` runs without it)."""
    from importlib.metadata import PackageNotFoundError, version

    if "torch" in sys.modules:
        return sys.modules["torch"].__version__
    try:
        return version("torch")
    except PackageNotFoundError:
        return "none"


def _entry_path(key: str) -> Path:
    return cache_dir() / f"{key}.py.txt"


def _header(body: str) -> str:
    return f"# {_FORMAT} sha256={hashlib.sha256(body.encode()).hexdigest()}\n"


def load(key: str) -> str | None:
    """The stored text for ``key``; ``None`` when absent or corrupt."""
    path = _entry_path(key)
    try:
        with open(path, encoding="utf-8", newline="") as file:
            text = file.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        logger.debug("graphmend cache: cannot read %s: %s", path, err)
        return None
    header, _, body = text.partition("\n")
    if header + "\n" != _header(body):
        logger.debug("graphmend cache: corrupt entry %s, rebuilding it", path)
        return None
    return body


def store(key: str, body: str) -> None:
    """Publish ``body`` under ``key`` atomically; failures only cost speed."""
    write_atomically(_entry_path(key), _header(body) + body)


def cached(
    source: str,
    *,
    rules: Iterable[str],
    lines: Iterable[int] | None,
    build: Callable[[], str],
    extra: Iterable[str] = (),
) -> str:
    """The cached transform of ``source``, calling ``build()`` on a miss.
    ``extra`` holds anything else the transform depends on (effect helpers)."""
    key = cache_key(source, rules=rules, lines=lines, extra=extra)
    body = load(key)
    if body is None:
        body = build()
        store(key, body)
    return body
