"""What predicated state updates call (``rules/where/state_update.py``);
re-exported by :mod:`graphmend.runtime`, skipped as frames of their own."""

from __future__ import annotations

import operator

import torch
from torch.nn.modules import module as _module
from torch.overrides import TorchFunctionMode

from graphmend import compat
from graphmend.vocabulary import PREDICATED_METHODS

compiling = torch.compiler.is_compiling

#: ``owner.name <op>= value`` as Python runs it: the in-place method when
#: there is one (a tensor's), else the binary operator and a rebinding.
AUGMENTED = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv}

_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _why_not_test(cond) -> str | None:
    """Why a tensor test cannot select an update (a test that is not a
    tensor is Python's to decide, as in the original ``if``)."""
    if cond.numel() != 1 or cond.is_complex():
        return "the test is not one real element"
    if torch.is_grad_enabled():
        return ("gradients are enabled: an unconditional write bumps the target's version counter, which a "
                "tensor saved for backward would see where eager's untaken arm does not")
    return None


def _why_not(cond, target) -> str | None:
    if type(target) not in _PLAIN:
        return "the target is not a plain tensor"
    problem = _why_not_test(cond)
    if problem is not None:
        return problem
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


def _update_selected(cond, target, update) -> None:
    """``update`` (an in-place update) applied to a copy of ``target``,
    whose bits ``target`` takes where ``cond`` holds (bits, not
    arithmetic: a ``-0.0`` or a NaN payload is kept either way)."""
    updated = target.clone()
    update(updated)
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
    if compiling() and isinstance(cond, torch.Tensor):
        target, args, kwargs = _call_parts(operands(), keywords)
        problem = _why_not(cond, target)
        if problem is None:
            _update_selected(cond, target, lambda updated: getattr(updated, method)(*args, **kwargs))
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
    if compiling() and isinstance(cond, torch.Tensor):
        target_owner = owner()
        target = getattr(target_owner, name)
        value = operand()
        problem = _why_not(cond, target) or _why_not_rebind(target_owner, value)
        if problem is None:
            # a plain tensor's in-place method: the copy itself, updated
            _update_selected(cond, target, lambda updated: apply(updated, value))
            return
        compat.graph_break(f"graphmend: predicated state update: {problem}")
    if cond:
        target_owner = owner()
        setattr(target_owner, name, apply(getattr(target_owner, name), operand()))


#: The in-place methods a predicated call's updates are made with.
_PREDICATED = frozenset(getattr(torch.Tensor, name) for name in PREDICATED_METHODS)


class _Predicating(TorchFunctionMode):
    """While a predicated call traces: each in-place update by a method of
    :data:`PREDICATED_METHODS` becomes :func:`predicated_update`'s form (the
    same method on a copy of the target, selected back where ``cond``
    holds); everything else runs as it is (:func:`compat.effects_since`
    then judges it)."""

    def __init__(self, cond) -> None:
        super().__init__()
        self.cond = cond

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _PREDICATED:
            target = args[0]
            problem = _why_not(self.cond, target)
            if problem is not None:
                compat.graph_break(f"graphmend: predicated call: {problem}")
            _update_selected(self.cond, target, lambda updated: func(updated, *args[1:], **kwargs))
            return target
        return func(*args, **kwargs)


def predicated_call(cond, call) -> None:
    """``if cond: call()``, for a call statement of an arm whose effects are
    updates of tensors in place (``self.copy_params_to_ema()``: a loop of
    ``.data.copy_``).  Under torch.compile, where :func:`_why_not_test`
    finds nothing, the call runs whether or not ``cond`` holds, with each
    update it makes predicated (:class:`_Predicating`); afterwards
    :func:`compat.effects_since` says whether it did anything else a
    predicated form cannot take back -- a store into an older object, a
    replayed call, another in-place update, a random draw, an index taken
    from a tensor -- and an error it raised falls back the same way: a
    graph break with the reason, which Dynamo takes at this call (its trace
    so far is dropped), and the original runs."""
    if compiling() and isinstance(cond, torch.Tensor):
        problem = _why_not_test(cond)
        if problem is None and compat.nested_graph_breaks():
            # A break after the call traced would run its effects, then the original again.
            problem = "Dynamo resumes inside a call at a graph break (nested_graph_breaks)"
        if problem is None:
            mark = compat.effects_mark()
            try:
                with _Predicating(cond):
                    call()
            except Exception as error:  # noqa: BLE001 -- the call not taken must not raise: the original runs
                problem = f"the call fails when not taken ({type(error).__name__})"
            else:
                done = compat.effects_since(mark)
                if done is None:
                    return
                problem = f"the call {done}"
        compat.graph_break(f"graphmend: predicated call: {problem}")
    if cond:
        call()


def predicated_value(cond, value):
    """``name = value()`` bound in an arm taken where ``cond`` holds, read
    only by the arm's later statements.  Under torch.compile, where
    :func:`_why_not_test` finds nothing, ``value()`` is evaluated whether
    or not ``cond`` holds (the predicated statements that read it select
    their effects by ``cond``); an error it raises while traced, or a test
    that cannot select, is a graph break with the reason, and the original
    runs.  Eagerly: ``value()`` where ``cond`` holds, else ``None`` (the
    name bound, so that the arm's later thunks can take it as a default
    argument; none of them runs)."""
    if compiling() and isinstance(cond, torch.Tensor):
        problem = _why_not_test(cond)
        if problem is None:
            try:
                return value()
            except Exception as error:  # noqa: BLE001 -- the value not taken must not raise: the original runs
                problem = f"the value fails when not taken ({type(error).__name__})"
        compat.graph_break(f"graphmend: predicated local: {problem}")
    return value() if cond else None


# Never a frame of its own (see graphmend.runtime): only ever entered while a caller traces.
compat.skip_frames([_Predicating.__torch_function__])
