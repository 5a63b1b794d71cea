"""What predicated state updates call (``rules/where/state_update.py``);
re-exported by :mod:`graphmend.runtime`, skipped as frames of their own."""

from __future__ import annotations

import operator

import torch
from torch.nn.modules import module as _module

from graphmend import compat

compiling = torch.compiler.is_compiling

#: ``owner.name <op>= value`` as Python runs it: the in-place method when
#: there is one (a tensor's), else the binary operator and a rebinding.
AUGMENTED = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv}

_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _why_not(cond, target) -> str | None:
    if not (isinstance(cond, torch.Tensor) and type(target) in _PLAIN):
        return "the test or the target is not a plain tensor"
    if cond.numel() != 1 or cond.is_complex():
        return "the test is not one real element"
    if torch.is_grad_enabled():
        return ("gradients are enabled: an unconditional write bumps the target's version counter, which a "
                "tensor saved for backward would see where eager's untaken arm does not")
    if target.layout != torch.strided or not target.is_contiguous():
        return "the target is not a contiguous strided tensor (an expanded view refuses writes)"
    return None


def _why_not_rebind(owner, value) -> str | None:
    """Why ``owner.name = <the same tensor>``, which ``owner.name += value``
    ends with, might not be a no-op (so the predicated form, which leaves
    it out, would not be exact), or why ``value`` might make the in-place
    operator answer otherwise (a subclass's ``__torch_function__``)."""
    if type(value) not in (*_PLAIN, int, float, bool):
        return "the operand is not a plain tensor or a Python number"
    setter = type(owner).__setattr__
    if setter is object.__setattr__:
        return None
    if setter is torch.nn.Module.__setattr__ and not _module._global_buffer_registration_hooks \
            and not _module._global_parameter_registration_hooks:
        return None
    return "assigning the attribute back may have effects (a __setattr__ of its own, or registration hooks)"


def frozen_test(value):
    """The test's value as it is now: a tensor is copied, so an update in
    the arm (``if self.flag: self.flag.fill_(False)``) cannot change the
    test the later updates of the same arm read."""
    return value.clone() if isinstance(value, torch.Tensor) else value


def _select(cond, target, updated) -> None:
    """``target`` takes ``updated``'s bits where ``cond`` holds (bits, not
    arithmetic: a ``-0.0`` or a NaN payload is kept either way)."""
    target.copy_(torch.where(cond.reshape(()).bool(), updated, target))


def _call_parts(values: tuple, keywords: tuple[str, ...]) -> tuple:
    """``(target, args, kwargs)`` of an update's evaluated operands: the
    target first, the last ``len(keywords)`` the keyword arguments named
    ``keywords``."""
    target, *rest = values
    positional = len(rest) - len(keywords)
    return target, rest[:positional], dict(zip(keywords, rest[positional:]))


def predicated_update(cond, method, operands, keywords=()):
    """``if cond: target.<method>(*args, **kwargs)`` with ``(target, *args,
    *kwargs.values()) = operands()`` and ``keywords`` naming the last ones
    (``alpha=``).  Under torch.compile, where :func:`_why_not` finds
    nothing: ``target.copy_(torch.where(cond, updated, target))``, with
    ``updated`` a copy of ``target`` given the same in-place method (same
    casts, broadcasting and errors); otherwise a graph break with the
    reason, and the original."""
    if compiling():
        target, args, kwargs = _call_parts(operands(), keywords)
        problem = _why_not(cond, target)
        if problem is None:
            updated = target.clone()
            getattr(updated, method)(*args, **kwargs)
            _select(cond, target, updated)
            return
        compat.graph_break(f"graphmend: predicated state update: {problem}")
    if cond:
        target, args, kwargs = _call_parts(operands(), keywords)
        getattr(target, method)(*args, **kwargs)


def predicated_augment(cond, symbol, owner, name, operand):
    """``if cond: owner().<name> <symbol> operand()`` (``+=``, ``-=``,
    ``*=``, ``/=``), evaluated in Python's order (the owner, the
    attribute, the operand, the operator, the store back).  Under
    torch.compile, where :func:`_why_not` and :func:`_why_not_rebind` find
    nothing: the same operator applied in place to a copy of the
    attribute, selected back with ``torch.where``; the store back assigns
    the very tensor that is there, which :func:`_why_not_rebind` makes
    sure is a no-op.  Otherwise a graph break with the reason, and the
    original."""
    apply = AUGMENTED[symbol]
    if compiling():
        target_owner = owner()
        target = getattr(target_owner, name)
        value = operand()
        problem = _why_not(cond, target) or _why_not_rebind(target_owner, value)
        if problem is None:
            updated = target.clone()
            apply(updated, value)  # a plain tensor's in-place method: ``updated`` itself
            _select(cond, target, updated)
            return
        compat.graph_break(f"graphmend: predicated state update: {problem}")
    if cond:
        target_owner = owner()
        setattr(target_owner, name, apply(getattr(target_owner, name), operand()))
