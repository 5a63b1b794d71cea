"""[Where]: stores that stay in the graph.

:func:`masked_store` runs ``target[mask] = value`` as ``torch.where`` where
that is exact; :func:`store_buffer` updates a module's tensor attribute in
place (``copy_``) instead of rebinding it, so no guard fails and nothing
recompiles on the next call.
"""

from __future__ import annotations


import torch

from graphmend import compat
from graphmend.compat.capture import traces_dynamic_output_shapes
from graphmend.runtime.common import _fall_back, _open, compiling


def masked_store(target, mask, value_of, *operands, grad: bool = False, gate=None) -> None:
    """``target[mask] = value_of(*(a[mask] for a in operands))``.

    Under torch.compile, where it is exact (see :func:`_masked_store_problem`),
    the value is computed on the whole operands and ``torch.where`` selects
    it under the mask, copied into ``target`` in place: no bool indexing,
    so no output shape that depends on data.  The rule proved ``value_of``
    element-wise and correctly rounded, so each selected element gets the
    bits the original gives it.  Under autograd (with ``grad``: the rule
    proved each operand read once, so no operand sums two gradients of its
    own first) the gradients of the elements the mask leaves out are
    dropped, and each selected element's gradient is the original's, bit for
    bit (the derivatives of these operations are element-wise and exact
    too; see :func:`_masked_operand`).  Otherwise, and eagerly, the
    original statement runs; with a bool mask, under torch.compile, after a
    graph break named with the reason (the original breaks there too).

    With ``gate`` (the store is in an arm of a predicated ``if``, which runs
    whether taken or not) the mask is ``mask & gate``: where the arm is not
    taken the store writes back the target's own values.  With gradients
    enabled that write could still be seen (a version change of a tensor
    autograd saved, a ``grad_fn``), so a gated store there takes the
    original path (see :func:`_gated_store_problem`): its graph break makes
    the whole ``if`` run as the original.
    """
    if not (compiling() and isinstance(gate, torch.Tensor)) and not _open(gate):
        return
    # Only indexing by a bool mask breaks the graph (unless Dynamo is set to trace its dynamic size).
    if compiling() and isinstance(mask, torch.Tensor) and mask.dtype == torch.bool and not (
            traces_dynamic_output_shapes()):
        problem = _masked_store_problem(target, mask, operands, grad)
        if problem is None and isinstance(gate, torch.Tensor):
            problem = _gated_store_problem()
            if problem is None:
                mask = mask & gate.reshape(())
        if problem is None:
            if torch.is_grad_enabled():
                operands = tuple(_masked_operand(a, mask) if a.requires_grad else a for a in operands)
            whole = value_of(*operands)
            if (isinstance(whole, torch.Tensor) and whole.dtype == target.dtype
                    and _squeezed(whole.shape) == _squeezed(target.shape)):
                # Only squeeze() changes the shape: row-major order is kept.
                merged = torch.where(mask, whole.reshape(target.shape), target)
                if merged.requires_grad:
                    # The target's grad_fn is then IndexPutBackward0, as the original's (an error about a
                    # saved tensor this store modifies names it), where copy_ would make CopyBackwards.
                    target.index_put_(_every_index(target), merged)
                else:
                    target.copy_(merged)
                return
            problem = "the value on the whole tensor differs from the target in shape or dtype"
        _fall_back(problem)
        if not _open(gate):  # past the break (nested graph breaks), the gate is read eagerly
            return
    target[mask] = value_of(*(operand[mask] for operand in operands))


def _masked_operand(operand, mask):
    """``operand``, for a value computed on every element under autograd:
    the gradient of an element the mask leaves out (which the original never
    computes, and which may be ``0 / 0``) is dropped by ``torch.where``, and
    the others are summed into zeros by the backward of integer indexing,
    as the original's bool indexing sums them (``0 + -0.0`` is ``0.0``)."""
    rows = operand.reshape(-1)[torch.arange(operand.numel(), device=operand.device)].reshape(operand.shape)
    return torch.where(mask, rows, rows.detach())


def _gated_store_problem() -> str | None:
    """Why a store in an arm that may not be taken cannot write the
    target's own values back there, or None.  The rule proved the function
    made the target itself, so no caller holds it, and it is an inference
    tensor only if made in inference mode, where writing it is allowed;
    but with gradients enabled autograd may have saved it (the write would
    change its version)."""
    if torch.is_grad_enabled():
        return "with gradients enabled, a store in an arm that is not taken would still write the target"
    return None


def _every_index(tensor) -> tuple:
    """Integer index tensors that select every element of ``tensor`` (of one
    dimension or more) in place, broadcast against each other."""
    return tuple(torch.arange(size, device=tensor.device).reshape([size if j == i else 1 for j in range(tensor.dim())])
                 for i, size in enumerate(tensor.shape))


def _dense(tensor) -> bool:
    """Whether ``tensor``'s elements fill its memory once each, in some
    order of its dimensions (contiguous, or transposed like ``torch.t``'s
    result): no element is stored twice, as in an expanded tensor."""
    if tensor.is_contiguous():
        return True
    expected = 1
    for stride, size in sorted((stride, size) for size, stride in zip(tensor.shape, tensor.stride()) if size != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _squeezed(shape) -> tuple:
    return tuple(size for size in shape if size != 1)


def _masked_store_problem(target, mask, operands: tuple, grad: bool) -> str | None:
    """Why :func:`masked_store` cannot compute on the whole tensors, or None."""
    tensors = (target, mask, *operands)
    if not all(isinstance(value, torch.Tensor) for value in tensors):
        return "the masked store reads values that are not tensors"
    if any(value.shape != mask.shape or value.device != mask.device or value.layout != torch.strided
           for value in tensors):
        return "the mask, the target and the values differ in shape or device"
    if not _dense(target):
        return "the target of the masked store is not dense (its elements may share memory)"
    if any(value.is_complex() for value in tensors):
        # Complex products and quotients are not correctly rounded, and SIMD and scalar kernels differ.
        return "the masked store computes with complex tensors"
    if torch.is_grad_enabled() and any(value.requires_grad for value in tensors):
        if not grad:
            # The rule leaves grad out for either reason (see rules/where/masked_store.py).
            return ("under autograd, the masked store reads a value twice (its gradients would be summed in "
                    "another order) or the function shows the target's grad_fn")
        if target.requires_grad:
            # Overwritten in place, its old values would take their gradient as a sum of two.
            return "under autograd, the target of the masked store requires grad itself"
        if target.dim() == 0:
            return "under autograd, the target of the masked store has no dimension to index"
    return None


def store_buffer(owner: torch.nn.Module, name: str, value, *, persistent: bool = True) -> None:
    """``owner.register_buffer(name, value, persistent=persistent)``, done by
    copying into the registered tensor when that is indistinguishable.

    Rebinding a buffer under ``torch.compile`` changes what the guards saw, so
    the next call recompiles; an in-place ``copy_`` does not.  The copy is
    only made when the current buffer has the same dtype, shape and device,
    the same persistence, needs no grad, and no other attribute, buffer or
    parameter of ``owner`` is that very tensor (Phi-3 keeps
    ``original_inv_freq`` as the tensor ``inv_freq`` starts as: writing into
    it would overwrite the frequencies it is meant to restore).  Otherwise
    the buffer is re-registered, as the original did.
    """
    current = owner._buffers.get(name)
    if _can_copy_into(owner, name, current, value, persistent):
        with torch.no_grad():
            current.copy_(value)
    else:
        owner.register_buffer(name, value, persistent=persistent)


def _can_copy_into(owner, name, current, value, persistent) -> bool:
    if not (isinstance(current, torch.Tensor) and isinstance(value, torch.Tensor)):
        return False
    if (current.dtype, current.shape, current.device) != (value.dtype, value.shape, value.device):
        return False
    if current.requires_grad or (torch.is_grad_enabled() and value.requires_grad):
        return False
    if (name in owner._non_persistent_buffers_set) == persistent:
        return False
    if compiling() and not compat.tracing.TRACES_MODULE_DICT:
        return False  # the scan below would break the graph (torch 2.11): re-register
    others = [
        *(v for k, v in owner.__dict__.items() if isinstance(v, torch.Tensor)),
        *(v for k, v in owner._buffers.items() if k != name),
        *owner._parameters.values(),
    ]
    return not any(other is current for other in others)
