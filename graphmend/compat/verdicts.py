"""The self-tests' passes, kept across processes.

A self-test compiles a few functions (0.15-0.3 s in a fresh process) to
check what depends only on the torch build, on Dynamo's settings and on
graphmend's runtime and compat code.  Its pass is kept in
:func:`graphmend.storage.cache_dir` under a key made of exactly those
(torch's version and git hash, Python's version, the plain values of
``torch._dynamo.config``, the digest of the runtime's code and of the
layers it imports), and a later process with the same key reads it
instead of compiling again.  A failure is never kept: each process checks
again, and warns.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import torch

from graphmend.storage import cache_dir, code_digest, write_atomically

Verdict = TypeVar("Verdict")

_PLAIN = (bool, int, float, str, type(None))

#: Dynamo settings that say where debug output goes, not what a compile does:
#: ``debug_dir_root`` is the working directory's ``torch_compile_debug``, so
#: with it in the key every directory a script ran from compiled the
#: self-tests again.
_WHERE_OUTPUT_GOES = frozenset({"debug_dir_root"})


def _path(name: str) -> Path:
    config = torch._dynamo.config.get_config_copy()
    fields = {
        "self_test": name,
        "torch": torch.__version__,
        "torch_git": getattr(torch.version, "git_version", None),
        "python": sys.version,
        "dynamo_config": {key: value for key, value in sorted(config.items())
                          if isinstance(value, _PLAIN) and key not in _WHERE_OUTPUT_GOES},
        "code": code_digest("graphmend.runtime"),
    }
    key = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return cache_dir() / "verdicts" / f"{name}-{key}.json"


def passed_before(name: str, run: Callable[[], Verdict]) -> Verdict:
    """``run()``'s verdict (empty when the self-test passes), or the pass an
    earlier process with the same key kept."""
    path = _path(name)
    try:
        return json.loads(path.read_text(encoding="utf-8"))["passed"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    verdict = run()
    if not verdict:
        write_atomically(path, json.dumps({"passed": verdict}))
    return verdict
