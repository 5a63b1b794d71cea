"""Bit-for-bit comparison of model outputs (pytrees of tensors and values)."""

from __future__ import annotations

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
    """
    expected_leaves, expected_spec = _flatten_with_names(expected)
    actual_leaves, actual_spec = _flatten_with_names(actual)
    if expected_spec != actual_spec:
        return f"structure differs: {expected_spec} != {actual_spec}"
    for (where, a), (_, b) in zip(expected_leaves, actual_leaves):
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
                return f"{where}: {type(a).__name__} != {type(b).__name__}"
            difference = _tensor_difference(a, b)
            if difference:
                return f"{where}: {difference}"
        elif type(a) is not type(b) or a != b:
            return f"{where}: {a!r} != {b!r}"
    return None
