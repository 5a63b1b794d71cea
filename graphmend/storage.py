"""Where graphmend keeps what it learns across processes, and how it writes there.

The folder is ``$GRAPHMEND_CACHE_DIR``, else ``$XDG_CACHE_HOME/graphmend``,
else ``~/.cache/graphmend``: the rewritten sources
(:mod:`graphmend.mending.cache`), the sites the first calls mended
(:mod:`graphmend.mending.records`) and the self-tests' verdicts
(:mod:`graphmend.compat.verdicts`).  What is kept is an optimisation
only: a file that cannot be read or written costs the work it would have
saved, never a result.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
from pathlib import Path

from graphmend.layers import imported_by, layer_of

logger = logging.getLogger("graphmend")

_PACKAGE_DIR = Path(__file__).resolve().parent


def cache_dir() -> Path:
    """Where entries live (not created until something is stored)."""
    explicit = os.environ.get("GRAPHMEND_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "graphmend"


@functools.cache
def code_digest(layer: str) -> str:
    """The digest of every module of ``layer`` and of the layers it may
    import (:func:`graphmend.layers.imported_by`): what a result computed
    by that code depends on, in graphmend."""
    layers = imported_by(layer)
    digest = hashlib.sha256()
    for file in sorted(_PACKAGE_DIR.rglob("*.py")):
        relative = file.relative_to(_PACKAGE_DIR)
        parts = (_PACKAGE_DIR.name, *relative.with_suffix("").parts)
        if layer_of(".".join(parts[:-1] if parts[-1] == "__init__" else parts)) in layers:
            digest.update(str(relative).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def write_atomically(path: Path, text: str) -> None:
    """Publish ``text`` at ``path`` with ``os.replace`` (readers see the old
    or the new file, never a mix); failures are logged at debug level and
    only cost speed."""
    temp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", newline="", dir=path.parent, prefix=".tmp-", delete=False
        ) as file:
            temp_name = file.name
            file.write(text)
        os.replace(temp_name, path)
        temp_name = None
    except OSError as err:
        logger.debug("graphmend cache: cannot write %s: %s", path, err)
    finally:
        if temp_name is not None:
            try:
                os.unlink(temp_name)
            except OSError:
                pass
