"""[Where]: ``while T:`` on a tensor as ``torch.while_loop``, where the
loop carries only tensors of loop-invariant shape and dtype."""

from __future__ import annotations


import torch

from graphmend import compat
from graphmend.runtime.common import _fall_back, compiling
from graphmend.runtime.where import _HOP_LOSES_STORES, _scalar_predicate


def while_loop(cond_fn, body_fn, carried):
    """``while cond_fn(*carried): carried = body_fn(*carried)``; the final values.

    Under torch.compile it is ``torch.while_loop`` (one graph, however many
    iterations) when every carried value is a tensor that keeps its shape,
    dtype and device through the body, the test is a one-element tensor,
    and nothing requires grad (``torch.while_loop`` has no backward that
    stays in the graph); the body is run once while tracing to check that
    (it is pure, so the graph drops what it computed).  Otherwise, and
    eagerly, the same functions run as a Python loop: the original loop.
    """
    carried = tuple(carried)
    if compiling():
        problem = _loop_problem(cond_fn, body_fn, carried)
        if problem is None:
            return tuple(torch.while_loop(lambda *values: _scalar_predicate(cond_fn(*values)),
                                          lambda *values: _unaliased(body_fn(*values), values), carried))
        _fall_back(problem)
    while cond_fn(*carried):
        carried = tuple(body_fn(*carried))
    return carried


def _unaliased(out, carried: tuple) -> tuple:
    """The body's values, a copy of each that is one of the values it was
    given (``old = x``: torch.while_loop refuses a body that returns its
    input; the copy has the same values, and the loop's results are new
    tensors either way)."""
    return tuple(new.clone() if any(new is old for old in carried) else new for new in out)


def _loop_problem(cond_fn, body_fn, carried: tuple) -> str | None:
    """Why ``torch.while_loop`` cannot run this loop, or None."""
    if compat.attribute_stores_pending():
        return _HOP_LOSES_STORES
    if not all(isinstance(value, torch.Tensor) for value in carried):
        return "the loop carries values that are not tensors"
    if torch.is_grad_enabled() and any(value.requires_grad for value in carried):
        return "under autograd, torch.while_loop has no backward in the graph"
    if _scalar_predicate(cond_fn(*carried)) is None:
        return "the loop's test is not a one-element tensor"
    out = tuple(body_fn(*carried))
    if len(out) != len(carried) or not all(
        isinstance(new, torch.Tensor)
        and (new.shape, new.dtype, new.device, new.layout) == (old.shape, old.dtype, old.device, old.layout)
        for new, old in zip(out, carried)
    ):
        return "the loop's values change shape or dtype"
    return None
