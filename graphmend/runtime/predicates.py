"""What rewritten tests call for the predicate forms libraries use:
``torch.allclose(a, b, ...)``, ``math.isfinite(t.item())`` and
``math.isclose(a.item(), b.item(), ...)`` read a tensor back into a Python bool, a graph
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



def _isclose_operand(value, item: bool) -> bool:
    """A plain one-element real tensor read with ``.item()``, or a Python
    number (an exact literal) taken as it is."""
    if item:
        return _plain(value) and not value.is_complex() and value.numel() == 1
    return type(value) in (int, float)


def _as_double(value) -> torch.Tensor:
    """``float(value.item())`` (or ``float(value)``) as a 0-dim float64
    tensor: every real dtype converts to a double exactly, but for an
    integer beyond 2**53, which both round to nearest."""
    if isinstance(value, torch.Tensor):
        return value.reshape(()).to(torch.float64)
    return torch.tensor(value, dtype=torch.float64)


def isclose_items(a, b, *, rel_tol=1e-09, abs_tol=0.0, items=(True, True)):
    """``math.isclose(a.item(), b.item(), rel_tol=..., abs_tol=...)``;
    ``items`` says which operands the original read with ``.item()`` (the
    other is a literal).  Under torch.compile, for plain one-element real
    tensors and Python-number tolerances that are not negative, CPython's
    own formula in float64, which is what ``math.isclose`` computes in::

        a == b  or  not (isinf(a) or isinf(b))  and  (|b - a| <= |rel_tol * b|
                                                      or |b - a| <= |rel_tol * a|
                                                      or |b - a| <= abs_tol)

    (equal infinities are close, any other infinity is not, a NaN never
    is), as a 0-dim bool tensor.  Otherwise, and eagerly, the original
    call, with its own errors (a negative tolerance, a complex value)."""
    if compiling() and _isclose_operand(a, items[0]) and _isclose_operand(b, items[1]) and \
            type(rel_tol) in (int, float) and type(abs_tol) in (int, float) and rel_tol >= 0 and abs_tol >= 0:
        a, b = _as_double(a), _as_double(b)
        diff = (b - a).abs()
        within = (diff <= (rel_tol * b).abs()) | (diff <= (rel_tol * a).abs()) | (diff <= abs_tol)
        return (a == b) | (~(torch.isinf(a) | torch.isinf(b)) & within)
    return math.isclose(a.item() if items[0] else a, b.item() if items[1] else b, rel_tol=rel_tol, abs_tol=abs_tol)
