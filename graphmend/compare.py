"""Bit-for-bit comparison of model outputs (pytrees of tensors and values)."""

from __future__ import annotations

import struct
import sys
from typing import Any

import torch
import torch.utils._pytree as pytree

# Signed integer views of the same width: comparing them compares every bit,
# so -0.0 differs from 0.0 and NaNs with the same payload are equal.
_INT_VIEW = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _tensor_difference(a: torch.Tensor, b: torch.Tensor) -> str | None:
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    if a.shape != b.shape:
        return f"shape {tuple(a.shape)} != {tuple(b.shape)}"
    if a.device != b.device:
        return f"device {a.device} != {b.device}"
    a_cpu, b_cpu = a.detach().cpu().contiguous(), b.detach().cpu().contiguous()
    if a_cpu.is_complex():
        a_cpu, b_cpu = torch.view_as_real(a_cpu), torch.view_as_real(b_cpu)
    if a_cpu.is_floating_point():
        view = _INT_VIEW[a_cpu.element_size()]
        a_cpu, b_cpu = a_cpu.view(view), b_cpu.view(view)
    unequal = a_cpu != b_cpu
    if not bool(unequal.any()):
        return None
    index = tuple(int(i) for i in unequal.nonzero()[0])
    return (
        f"{int(unequal.sum())} of {unequal.numel()} elements differ, first at "
        f"{list(index)}: {a[index].item()!r} != {b[index].item()!r}"
    )


def _array_difference(a: Any, b: Any) -> str | None:
    """NumPy arrays as tensors are compared: dtype, shape, then every bit
    (an object array element by element, as leaves are)."""
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    a_flat, b_flat = a.ravel(order="C"), b.ravel(order="C")
    if a.dtype.hasobject:
        for index, (x, y) in enumerate(zip(a_flat, b_flat)):
            difference = _leaf_difference(x, y)
            if difference is not None:
                return f"first at flat index {index}: {difference}"
        return None
    if a_flat.tobytes() == b_flat.tobytes():
        return None
    unequal = (a_flat.view("u1").reshape(-1, a.itemsize) != b_flat.view("u1").reshape(-1, a.itemsize)).any(axis=1)
    index = int(unequal.argmax())
    return f"{int(unequal.sum())} of {unequal.size} elements differ, first at flat index {index}: " \
        f"{a_flat[index]!r} != {b_flat[index]!r}"


def _float_bits(value: float | complex) -> bytes:
    """A float's (a complex's two parts') bits: -0.0 is not 0.0, and a NaN equals itself."""
    return struct.pack("<2d", value.real, value.imag) if isinstance(value, complex) else struct.pack("<d", value)


def _leaf_difference(a: Any, b: Any) -> str | None:
    """How one leaf differs from another in any bit, or ``None``."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return f"{type(a).__name__} != {type(b).__name__}"
        return _tensor_difference(a, b)
    if type(a) is not type(b):
        return f"{a!r} != {b!r}"
    numpy = sys.modules.get("numpy")  # not imported: no leaf is one of its arrays
    if numpy is not None and isinstance(a, numpy.ndarray):
        return _array_difference(a, b)
    if numpy is not None and isinstance(a, numpy.generic):
        return None if a.tobytes() == b.tobytes() else f"{a!r} != {b!r}"
    if isinstance(a, (float, complex)):
        return None if _float_bits(a) == _float_bits(b) else f"{a!r} != {b!r}"
    try:
        unequal = bool(a != b)
    except Exception as exc:  # an elementwise `!=` (a pandas frame), or one that raises: not shown equal
        return f"{type(a).__name__} values that `!=` cannot compare ({type(exc).__name__}: {exc})"
    return f"{a!r} != {b!r}" if unequal else None


def _flatten_with_names(tree: Any) -> tuple[list[tuple[str, Any]], Any]:
    try:
        leaves, spec = pytree.tree_flatten_with_path(tree)
        return [("output" + pytree.keystr(path), leaf) for path, leaf in leaves], spec
    except ValueError:  # a type registered without key paths (transformers' ModelOutput)
        leaves, spec = pytree.tree_flatten(tree)
        return [(f"output leaf {i}", leaf) for i, leaf in enumerate(leaves)], spec


def first_difference(expected: Any, actual: Any) -> str | None:
    """Where ``actual`` differs from ``expected`` in any bit, or ``None``.

    Containers are compared leaf by leaf (``torch.utils._pytree``, which also
    knows transformers' ``ModelOutput``); the message names the leaf's path.
    Tensors, NumPy arrays and scalars, and floats compare bit for bit; other
    leaves by ``!=``, and one that ``!=`` cannot decide counts as differing.
    """
    expected_leaves, expected_spec = _flatten_with_names(expected)
    actual_leaves, actual_spec = _flatten_with_names(actual)
    if expected_spec != actual_spec:
        return f"structure differs: {expected_spec} != {actual_spec}"
    for (where, a), (_, b) in zip(expected_leaves, actual_leaves):
        difference = _leaf_difference(a, b)
        if difference is not None:
            return f"{where}: {difference}"
    return None
