"""What rewritten tests call for the predicate forms libraries use
``torch.allclose(a, b, ...)`` and
``math.isfinite(t.item())`` read a tensor back into a Python bool, a graph
break; under torch.compile these give a 0-dim bool tensor with the same
truth, and eagerly they are the original call.

Re-exported by :mod:`graphmend.runtime` (rewritten code calls
``_graphmend.allclose``), which skips each function here as a frame of its
own, as it does the others.
"""

from __future__ import annotations

import math

import torch

compiling = torch.compiler.is_compiling


def _plain(value) -> bool:
    """A tensor of torch's own, not a subclass whose operations may answer otherwise."""
    return type(value) in (torch.Tensor, torch.nn.Parameter)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002 -- torch's own names
    """``torch.allclose``: under torch.compile, for plain tensors of one
    dtype and device, ``torch.isclose(...).all()``, which is how ATen
    computes it (``at::allclose`` is ``isclose(...).all().item()``).  A
    shape that does not broadcast fails while traced, and the frame runs
    eagerly, where ``torch.allclose`` raises its own message."""
    if compiling() and _plain(input) and _plain(other) and input.dtype == other.dtype \
            and input.device == other.device:
        return torch.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan).all()
    return torch.allclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def isfinite_item(tensor):
    """``math.isfinite(tensor.item())``: under torch.compile, for a plain
    one-element real tensor, ``torch.isfinite`` of it as a 0-dim bool
    (``.item()`` converts a float32/float16 value to a Python float
    exactly, so finiteness is kept; an integer or bool is always finite in
    both).  A complex tensor (``math.isfinite`` raises on a complex), or
    any other value, takes the original call."""
    if compiling() and _plain(tensor) and not tensor.is_complex() and tensor.numel() == 1:
        return torch.isfinite(tensor).reshape(())
    return math.isfinite(tensor.item())

