"""What every operator of the runtime shares: whether Dynamo is tracing,
gates, names resolved in the caller's module, and the graph break that
says why a predicated form does not apply."""

from __future__ import annotations

import builtins
import sys

import torch
from torch.fx.experimental.symbolic_shapes import has_static_value

from graphmend import compat


compiling = torch.compiler.is_compiling


def static_truth(value) -> bool | None:
    """The truth of a Python number whose value Dynamo knows while tracing
    (a constant, or a symbol whose range holds one value: ``u0 % 1 == 0``),
    as a Python bool; None for one [Capture] holds, whose truth would
    guard.  ``True if value else False``: ``bool()`` would keep a symbol."""
    if has_static_value(value):
        return True if value else False
    return None


def _open(gate) -> bool:
    """Whether a gated call happens (eagerly: its arm was taken)."""
    return gate is None or bool(gate)


def _plain(value) -> bool:
    """A tensor of torch's own (a parameter too), not a subclass, whose
    operations may answer otherwise."""
    return type(value) in (torch.Tensor, torch.nn.Parameter)


def global_value(module: str | None, dotted: str | None):
    """The object ``dotted`` names in module ``module``'s globals or builtins."""
    if dotted is None:
        return None
    head, *attributes = dotted.split(".")
    namespace = vars(sys.modules[module])
    value = namespace[head] if head in namespace else getattr(builtins, head)
    for attribute in attributes:
        value = getattr(value, attribute)
    return value


def _fall_back(problem: str) -> None:
    """Under torch.compile, break the graph here with the reason the
    predicated form does not apply (``diagnose`` reports it at the user's
    line as "rewritten, still breaks: graphmend: ...")."""
    if compiling():
        compat.graph_break(f"graphmend: {problem}")
