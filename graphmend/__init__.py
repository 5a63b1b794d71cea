"""graphmend: find torch.compile graph breaks, and mend the fixable ones.

    graphmend.diagnose(fn, *args)   every break, under torch.compile and graphmend.compile
    graphmend.mend(model)           rewrite in memory, in place
    graphmend.compile(model)        mend, then torch.compile

The public names are imported on first use, so ``import graphmend`` is
cheap and the runtime that rewritten code imports (``graphmend.runtime``)
needs torch alone.
"""

from __future__ import annotations

import importlib

#: The one version (pyproject.toml reads it from here); the cache and the
#: records key on it.
__version__ = "0.2.0"

#: public name -> the module that defines it
_EXPORTS = {
    "compile": "graphmend.api",
    "Break": "graphmend.diagnosis",
    "Recompile": "graphmend.diagnosis",
    "Report": "graphmend.diagnosis",
    "call": "graphmend.diagnosis",
    "diagnose": "graphmend.api",
    "diagnose_calls": "graphmend.api",
    "GraphmendError": "graphmend.errors",
    "SourceError": "graphmend.errors",
    "VerificationError": "graphmend.errors",
    "mend": "graphmend.mending.live",
    "show": "graphmend.mending.live",
    "unmend": "graphmend.mending.live",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmend' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
