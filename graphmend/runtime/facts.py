"""What the count-facts converter (``rules/where/count_facts.py``) calls:
the bounds a count of a bool mask's elements provably has, stated to
Dynamo; re-exported by :mod:`graphmend.runtime`, skipped as frames of
their own."""

from __future__ import annotations

import torch

compiling = torch.compiler.is_compiling


def count_facts(count, masked) -> None:
    """``count`` is ``int((masked <op> literal).sum())``: ``0 <= count <=
    masked.numel()`` (a comparison with a number has ``masked``'s shape,
    and a bool sum counts its true elements).  Under torch.compile, for a
    plain tensor ``masked`` (a subclass may compare otherwise), each bound
    is stated with ``torch._check``, which lets Dynamo decide a later
    Python test on a captured ``count`` (``if count > x.size(0): raise``)
    instead of breaking there; eagerly, and for anything else, nothing."""
    if compiling() and type(masked) in (torch.Tensor, torch.nn.Parameter) and type(count) is not bool:
        torch._check(count >= 0)
        torch._check(count <= masked.numel())
