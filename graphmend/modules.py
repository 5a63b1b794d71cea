"""Walking a tree of ``nn.Module`` s without hashing them.

``nn.Module.modules()``, ``parameters()`` and the other ``named_*`` walks
keep the modules they have seen in a set, so they raise ``TypeError:
unhashable type`` on a module whose class defines ``__eq__`` without
``__hash__`` (a ``dataclass`` module, torchdyn's event callbacks), where
calling the model does not, and neither does ``torch.compile``.
graphmend walks user models with :func:`submodules` instead.

It imports nothing of graphmend.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch


def submodules(module: torch.nn.Module) -> list[torch.nn.Module]:
    """``module`` and every module under it, once each, in the order of
    ``module.modules()``; seen by identity, not by hash."""
    found: list[torch.nn.Module] = []
    seen: set[int] = set()
    pending = [module]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        pending.extend(reversed([child for child in current._modules.values() if child is not None]))
    return found


def parameters(module: torch.nn.Module) -> Iterator[torch.nn.Parameter]:
    """The parameters of ``module`` and of the modules under it, once each
    (by identity), as ``module.parameters()`` lists them."""
    seen: set[int] = set()
    for current in submodules(module):
        for parameter in current._parameters.values():
            if parameter is not None and id(parameter) not in seen:
                seen.add(id(parameter))
                yield parameter
