"""[Where]: integer indexing by a tensor read as a scalar.

``t[i]`` with ``i`` a one-element tensor (``int(x.argmax())``) reads a
scalar back to Python.  :func:`scalar_index` gathers instead, when the
index is known to be in range or its check can wait; :func:`nonnegative_row`
is the form for an index the rule proved non-negative.
"""

from __future__ import annotations


import torch

from graphmend import compat
from graphmend.runtime.common import _fall_back, _plain, compiling
from graphmend.runtime.encoding import lazy_format, message_read
from graphmend.runtime.trap import deferred_check


#: The dtypes of tensors that index by position (bool and uint8 are masks).
_INDEX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8)


def nonnegative_row(indexed, index):
    """``indexed[index]`` in an arm whose test proved ``index >= 0`` where
    it is taken, with ``index`` clamped at 0: where the arm is not taken but
    runs (a predicated form), a negative index must not index out of range
    inside the graph.  Exact where taken; an index too large fails there as
    the original's does.  A 0-dim index goes through advanced indexing, as
    one row (the same bits): Dynamo would read it back into Python, a graph
    break.  An empty first dimension raises here, while traced, so the
    original choice runs; so do effects waiting for the graph's end, which
    an index too large would raise before."""
    if not (isinstance(index, torch.Tensor) and isinstance(indexed, torch.Tensor)) or index.dtype not in _INDEX_DTYPES:
        return indexed[index]  # bool and uint8 index as masks
    if indexed.dim() == 0 or indexed.shape[0] == 0:
        raise IndexError("graphmend: no row to index where the arm is not taken")
    if compiling() and compat.effects_pending():
        raise IndexError(f"graphmend: {_RAISES_BEFORE_EFFECTS}")
    clamped = index.clamp(min=0)
    return indexed[clamped.reshape(1)][0] if clamped.dim() == 0 else indexed[clamped]


def scalar_index(value, index):
    """``value[index]`` where ``index`` (one element, or a tuple of them) may
    hold a 0-dim integer tensor (``self._t[i]``, ``x[..., i + 1, :]``, with
    ``i`` from ``bucketize`` or ``argmax``).

    ``Tensor.__getitem__`` takes such a tensor as a Python int: it reads
    the value back (``aten._local_scalar_dense``), a graph break without
    ``capture_scalar_outputs``.  Under torch.compile, where that would
    happen, the element is gathered with integer index tensors instead (see
    :func:`_gathering`): the same elements and shape; an index out of range
    raises ``select``'s ``IndexError`` (its text names the same dimension)
    after the graph (:func:`_select_would_raise`).  The result
    is a copy where the original's is a view; the rule proved nothing can
    tell (an operand of element-wise arithmetic, in a function that
    updates no tensor in place), and the value is contiguous, so what is
    computed from it has the original's memory order.  Where that does not
    apply (see :func:`_scalar_index_problem`) the original indexing runs,
    with its graph break, named; without a 0-dim integer tensor in
    ``index``, the original indexing runs as it is.

    Under autograd the gradient is the original's bit for bit: copied into
    zeros at the elements (:class:`_GatheredIndex`), as ``select``'s
    backward does, where integer indexing's own backward adds it to zeros
    (``0.0 + -0.0`` is ``0.0``)."""
    if compiling() and isinstance(value, torch.Tensor):
        elements = index if type(index) is tuple else (index,)
        scalars = [k for k, element in enumerate(elements) if _is_scalar_index(element)]
        if scalars:
            problem = _scalar_index_problem(value, elements, scalars)
            if problem is None:
                k = scalars[0]
                grid, indices, squeezed = _gathering(value, elements)
                axis = len(indices) - len(elements) + k  # the index tensor's axis of the grid
                position, size = elements[k], grid.shape[axis]
                out_of_range = (position < -size) | (position >= size)
                # In range it is the position; out of it, one that is (its error is raised apart).
                safe = torch.where(out_of_range, torch.zeros_like(position), position)
                indices = (*indices[:axis], safe.to(value.device).reshape(indices[axis].shape), *indices[axis + 1:])
                elements = (*elements[:k], safe, *elements[k + 1:])
                # Gathered outside the autograd function, whose graph would add to an IndexError's text.
                gathered = grid.detach()[indices]
                if gathered.numel() == 0:
                    problem = "nothing is selected (an index out of range would not fail)"
                elif _select_would_raise(out_of_range, position, size, k):
                    raise IndexError(_OUT_OF_RANGE.format(int(position), k, size))
                elif torch.is_grad_enabled() and value.requires_grad:
                    return _GatheredIndex.apply(value, gathered, *elements).squeeze(squeezed)
                else:
                    return gathered.squeeze(squeezed)  # no gradient to carry: the detached gather is the value
            _fall_back(problem)
    return value[index]


#: ``select``'s ``IndexError`` for an index out of range.
_OUT_OF_RANGE = "index {} is out of bounds for dimension {} with size {}"


def _select_would_raise(out_of_range, index, size, dimension: int) -> bool:
    """Whether ``select``'s ``IndexError`` for ``index`` out of range is to
    be raised now: under torch.compile it is raised after the graph instead
    (:func:`deferred_check`, in program order with the deferred messages)
    and the answer is False, unless the check cannot wait.

    Gathered inside the graph, an index out of range would be the backend's
    to report: Dynamo's eager backend raises aten's ``IndexError``,
    inductor's kernels a ``RuntimeError`` ("index out of bounds"), and
    inductor drops an unused gather with its check, so that nothing raised
    where eager does (found by the fuzz under inductor)."""
    return deferred_check(out_of_range, "IndexError", __name__,
                          lambda: (lazy_format(_OUT_OF_RANGE, message_read("int", index), dimension, size),))


def _gathering(value, elements: tuple) -> tuple:
    """``(grid, indices, squeezed)``: ``grid[indices].squeeze(squeezed)`` is
    ``value[elements]`` for elements holding one 0-dim integer tensor.

    Each element up to that tensor becomes an integer index tensor along its
    own axis (an int one position, a slice its positions, ``...`` the
    slices it stands for, ``None`` a new axis of ``grid``, a view of
    ``value``), the 0-dim tensor one position: they broadcast to the grid
    of the elements the original selects, in its order, and the elements
    after it index the rest as they did.  An index out of range fails as
    ``select`` does, naming the same dimension (the ordinal of the index
    tensor is the dimension ``select`` counts: ints, slices, ``None`` and
    ``...`` before it, one each, so only a ``...`` of one dimension may come
    before it).  The axes of the ints and of the tensor are squeezed.""" 
    k = next(k for k, element in enumerate(elements) if _is_scalar_index(element))
    taken = sum(element is not None and element is not Ellipsis for element in elements)
    before = []
    for element in elements[:k]:
        before += [slice(None)] * (value.dim() - taken) if element is Ellipsis else [element]
    axes = len(before) + 1
    grid, indices, squeezed = value, [], []
    for axis, element in enumerate(before):
        if element is None:
            grid = grid.unsqueeze(axis)
            element = slice(None)
        if isinstance(element, slice):
            positions = torch.arange(grid.shape[axis], device=value.device)[element]
        else:
            positions = torch.tensor([element], device=value.device)
            squeezed.append(axis)
        indices.append(positions.reshape([-1 if m == axis else 1 for m in range(axes)]))
    indices.append(elements[k].to(value.device).reshape([1] * axes))
    squeezed.append(axes - 1)
    return grid, (*indices, *elements[k + 1:]), tuple(squeezed)


class _GatheredIndex(torch.autograd.Function):
    """``gathered``, the elements of ``value[elements]`` (:func:`_gathering`,
    not squeezed), as a function of ``value`` whose gradient is copied into
    zeros at those elements (each once), as ``select``'s and slicing's
    backward copy it."""

    @staticmethod
    def forward(ctx, value, gathered, *elements):
        k = next(k for k, element in enumerate(elements) if isinstance(element, torch.Tensor))
        ctx.save_for_backward(elements[k])
        ctx.k, ctx.elements, ctx.shape = k, elements[:k] + (None,) + elements[k + 1:], value.shape
        return gathered.clone()

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        elements = ctx.elements[:ctx.k] + (index,) + ctx.elements[ctx.k + 1:]
        grad_value = grad.new_zeros(ctx.shape)
        grid, indices, _ = _gathering(grad_value, elements)
        grid[indices] = grad
        return (grad_value, None, *(None for _ in elements))


def _is_scalar_index(element) -> bool:
    """Whether ``Tensor.__getitem__`` reads ``element`` back as a Python int."""
    return isinstance(element, torch.Tensor) and element.dim() == 0 and element.dtype in _INDEX_DTYPES


def _scalar_index_problem(value, elements: tuple, scalars: list) -> str | None:
    """Why :func:`scalar_index` cannot gather, or None."""
    if not _plain(value) or value.layout != torch.strided:
        return "the indexed value is a tensor subclass or not strided"
    if not value.is_contiguous():
        return "the indexed value is not contiguous (a copy of the elements would change their memory order)"
    if len(scalars) > 1 or sum(isinstance(element, torch.Tensor) for element in elements) > 1:
        return "several tensors index at once (their dimensions would move)"
    if sum(element is Ellipsis for element in elements) > 1 or not all(map(_basic_index, elements)):
        return "an index element other than an int, a slice of ints, None or ..."
    taken = sum(element is not None and element is not Ellipsis for element in elements)
    if taken > value.dim():
        return "more indices than dimensions"
    if any(element is Ellipsis for element in elements[:scalars[0]]) and value.dim() - taken != 1:
        # select's IndexError counts the ``...`` as one dimension.
        return "a ``...`` before the index stands for other than one dimension"
    index = elements[scalars[0]]
    if index.device != value.device and index.device.type != "cpu":
        return "the index tensor is on another device"
    return None


#: Why an index that may be out of range is not read inside the graph.
_RAISES_BEFORE_EFFECTS = ("effects wait for the graph's end (a deferred message, a store), and an index out of "
                          "range would raise inside the graph, before them")


def _basic_index(element) -> bool:
    """An int, a slice of ints, None, ``...`` or a tensor (checked apart)."""
    if isinstance(element, slice):
        return all(part is None or (type(part) in (int, torch.SymInt)) for part in
                   (element.start, element.stop, element.step))
    return element is None or element is Ellipsis or type(element) in (int, torch.SymInt) or isinstance(
        element, torch.Tensor)
