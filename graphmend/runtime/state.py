"""What predicated state updates call (``rules/where/state_update.py``);
re-exported by :mod:`graphmend.runtime`, skipped as frames of their own."""

from __future__ import annotations

import torch

from graphmend import compat

compiling = torch.compiler.is_compiling


def _why_not(cond, target) -> str | None:
    if not (isinstance(cond, torch.Tensor) and type(target) in (torch.Tensor, torch.nn.Parameter)):
        return "the test or the target is not a plain tensor"
    if cond.numel() != 1 or cond.is_complex():
        return "the test is not one real element"
    if torch.is_grad_enabled():
        return ("gradients are enabled: an unconditional write bumps the target's version counter, which a "
                "tensor saved for backward would see where eager's untaken arm does not")
    if target.layout != torch.strided or not target.is_contiguous():
        return "the target is not a contiguous strided tensor (an expanded view refuses writes)"
    return None


def frozen_test(value):
    """The test's value as it is now: a tensor is copied, so an update in
    the arm (``if self.flag: self.flag.fill_(False)``) cannot change the
    test the later updates of the same arm read."""
    return value.clone() if isinstance(value, torch.Tensor) else value


def predicated_update(cond, method, operands):
    """``if cond: target.<method>(*args)`` with ``(target, *args) =
    operands()``.  Under torch.compile, where :func:`_why_not` finds
    nothing: ``target.copy_(torch.where(cond, updated, target))``, with
    ``updated`` a copy of ``target`` given the same in-place method (same
    casts, broadcasting and errors); otherwise a graph break with the
    reason, and the original."""
    if compiling():
        target, *args = operands()
        problem = _why_not(cond, target)
        if problem is None:
            updated = target.clone()
            getattr(updated, method)(*args)
            target.copy_(torch.where(cond.reshape(()).bool(), updated, target))
            return
        compat.graph_break(f"graphmend: predicated state update: {problem}")
    if cond:
        target, *args = operands()
        getattr(target, method)(*args)

