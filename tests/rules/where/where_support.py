"""What the [Where] test files share: the fixtures' inputs, small tensors, and a
training step (outputs and the gradients of the inputs)."""

from __future__ import annotations

from typing import Any, Callable

import torch

from graphmend import compat
import locations

FIXTURES = locations.FIXTURES / "where"


def fixture(name: str) -> str:
    return (FIXTURES / f"{name}.in.py").read_text()


def t(*values: float, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype)


def requiring_grad(args: tuple) -> list[torch.Tensor]:
    """Fresh copies of the tensors of ``args``, the floating ones requiring grad."""
    return [a.detach().clone().requires_grad_(a.is_floating_point()) if isinstance(a, torch.Tensor) else a
            for a in args]


def training_run(fn: Callable[..., Any], args: tuple, compiled: bool = False) -> tuple[Any, list]:
    leaves = requiring_grad(args)
    if compiled:
        torch._dynamo.reset()
        fn = torch.compile(fn, backend="eager")
    value = fn(*leaves)
    if value.requires_grad:
        (value * torch.linspace(-1, 2, value.numel()).reshape(value.shape)).sum().backward()
    return value.detach(), [leaf.grad for leaf in leaves if isinstance(leaf, torch.Tensor)]


def assert_updated_in_place(current: torch.Tensor, buffer: torch.Tensor, value: torch.Tensor) -> None:
    """The stored buffer holds ``value`` and is the tensor it was, updated in
    place -- except on a torch whose Dynamo cannot scan a module's
    ``__dict__`` for aliases while tracing (2.11): there the store
    re-registers it."""
    assert torch.equal(current, value)
    if compat.TRACES_MODULE_DICT:
        assert current is buffer
