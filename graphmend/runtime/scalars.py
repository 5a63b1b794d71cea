"""[Where]: scalars read from tensors that stay 0-d tensors with the dtype
Python's number would have (``.item()``, ``float(t)``, ``int(t)``),
``torch.arange(...).tolist()`` of Python ints as ``list(range(...))``, and
values read back from tensors made of Python constants, computed while
tracing (:func:`static_read`)."""

from __future__ import annotations

import torch

from graphmend import compat
from graphmend.runtime.common import compiling, static_truth



def exact_item(tensor, like):
    """``tensor.item()`` as a 0-dim tensor whose comparison with the number
    ``like`` has the Python comparison's truth value, else ``tensor.item()``.

    Python compares the item (a float is a double; an int is exact) with
    ``like`` exactly.  Floating tensors widen to float64 exactly; integer and
    bool tensors compared with an int widen to int64.  The rule only passes
    literals that float64/int64 hold exactly.
    """
    if isinstance(tensor, torch.Tensor) and tensor.numel() == 1:
        if tensor.is_floating_point():
            return tensor.reshape(()).to(torch.float64)
        if _is_int64_exact(tensor.dtype) and type(like) is int:
            return tensor.reshape(()).to(torch.int64)
    return tensor.item()


def truth_item(tensor):
    """``tensor.item()`` in a test: a one-element tensor itself, as a 0-dim
    tensor, whose truth is the item's (nonzero; a NaN is true); otherwise
    ``tensor.item()``, which raises as it did for more elements."""
    if isinstance(tensor, torch.Tensor) and tensor.numel() == 1:
        return tensor.reshape(())
    return tensor.item()


def captured_truth(value):
    """A test's value that may be read from a tensor (``step <=
    self.warmup`` with ``step = self.step.item()``): under torch.compile,
    a symbolic bool, int or float -- a value [Capture] holds in the graph
    -- becomes a 0-dim bool tensor of its truth (a number nonzero, a NaN
    true), which [Where] selects by where Python's ``if`` would guard on
    it; a number whose value Dynamo knows, its truth as a Python bool;
    anything else (a tensor) as it is."""
    if compiling() and type(value) in (bool, int, float):
        truth = static_truth(value)
        if truth is not None:
            return truth
        return torch.scalar_tensor(value if type(value) is bool else value != 0, dtype=torch.bool)
    return value


def exact_float(tensor):
    """``float(tensor)`` as a 0-dim float64 tensor (the same rounding of an
    integer to a double), else ``float(tensor)``."""
    if (
        isinstance(tensor, torch.Tensor)
        and tensor.numel() == 1
        and (tensor.is_floating_point() or _is_int64_exact(tensor.dtype))
    ):
        return tensor.reshape(()).to(torch.float64)
    return float(tensor)


def exact_int(tensor, like):
    """``int(tensor)`` as a 0-dim int64 tensor when ``tensor`` holds an
    integer (or bool) and ``like`` is an int, else ``int(tensor)``.

    A floating tensor is left to ``int()``: it truncates, and raises for nan
    and inf, which a tensor comparison would not.
    """
    if (
        isinstance(tensor, torch.Tensor)
        and tensor.numel() == 1
        and _is_int64_exact(tensor.dtype)
        and type(like) is int
    ):
        return tensor.reshape(()).to(torch.int64)
    return int(tensor)


def _is_int64_exact(dtype: torch.dtype) -> bool:
    return dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                     torch.uint16, torch.uint32)


#: Below this magnitude ``torch.arange``'s length, computed in doubles, is exact.
_EXACT_ARANGE_BOUND = 2**31


def arange_list(*args):
    """``torch.arange(*args).tolist()``, as ``list(range(*args))`` when every
    argument is a Python int: the same ints, with no tensor data read back
    (which would break the graph).  Anything else (floats, bools, tensors,
    large values, a step whose sign does not lead from start to end, on
    which torch.arange raises where range() is empty) runs the original."""
    if all(type(arg) is int and -_EXACT_ARANGE_BOUND < arg < _EXACT_ARANGE_BOUND for arg in args):
        start, end, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        if (step > 0 and end >= start) or (step < 0 and end <= start):
            return list(range(*args))
    return torch.arange(*args).tolist()


#: What a static read may be given: Python constants, and the torch constants Dynamo holds.
_CONSTANTS = (bool, int, float, complex, str, type(None), torch.dtype, torch.device, torch.layout,
              torch.memory_format)
#: How :func:`static_read` reads the tensor back, by the name the source used.
_READS = {"float": float, "int": int, "bool": bool, "item": lambda t: t.item(), "tolist": lambda t: t.tolist()}


def static_read(read, *steps):
    """``read`` of the tensor ``steps`` make: ``float``, ``int``, ``bool``,
    ``item`` or ``tolist`` of ``torch.tensor(*args, **kwargs)`` (the first
    step's callee, args and kwargs) through the next steps, each a method
    name (``t.<name>(*args, **kwargs)``) or a torch function
    (``f(t, *args, **kwargs)``).

    When every argument is a Python constant (numbers, bools, strings,
    None, dtypes, devices, in tuples and lists), the value is computed by
    the same torch operations while Dynamo traces and held as a constant:
    no tensor is read back in the graph.  Dynamo guards the constants
    where they come from (a module's attribute, an input it specialises),
    so another value recompiles.  Anything else (a tensor, a dynamic size
    or float) runs the operations as written, and the read breaks the
    graph as it did.
    """
    if all(_constant(args) and _constant(kwargs) for _, args, kwargs in steps):
        return _read_while_tracing(read, steps)
    return _read(read, steps)


def _constant(value) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_constant(item) for item in value)
    if isinstance(value, dict):
        return all(_constant(item) for item in value.values())
    return isinstance(value, _CONSTANTS)


def _read(read, steps):
    (make, args, kwargs), *rest = steps
    value = make(*args, **kwargs)
    for callee, args, kwargs in rest:
        value = getattr(value, callee)(*args, **kwargs) if isinstance(callee, str) else callee(value, *args, **kwargs)
    return _READS[read](value)


_read_while_tracing = compat.constant_result(_read)
