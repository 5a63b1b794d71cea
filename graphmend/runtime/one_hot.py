"""[Trap] one-hot encodings whose width the data decides
(:mod:`graphmend.rules.one_hot`): the encoding in the graph, one-hot's
checks after it."""

from __future__ import annotations

import torch

from graphmend.runtime.common import _plain, compiling
from graphmend.runtime.trap import deferred_check

#: ``F.one_hot``'s errors on values, in the order it checks them.
EMPTY = "Can not infer total number of classes from empty tensor."
NEGATIVE = "Class values must be non-negative."
TOO_LARGE = "Class values must be smaller than num_classes."
#: The dtypes of a 0-dim tensor ``F.one_hot`` takes as its number of classes, and this module reads.
_WIDTH_DTYPES = frozenset({torch.int64, torch.int32})


def one_hot_encoding(indexes, num_classes, untouched=None, at_least=None):
    """``torch.nn.functional.one_hot(indexes, num_classes)``.

    Under torch.compile, where ``num_classes`` is read from data (a 0-dim
    int64/int32 tensor, or a symbolic int, as [Capture] holds ``int(t)``),
    Dynamo needs it as a Python int and breaks the graph.  There, for a
    plain int64 CPU input, the encoding is made in the graph as one-hot
    itself makes it for fake tensors (``indexes.unsqueeze(-1) ==
    arange(width)``, as int64: the same values, shape, dtype and strides),
    its width a captured size, and one-hot's checks (an empty input with no
    width, a negative value, a value not below the width) are made after
    the graph, in its order and with its messages (``untouched``: see
    :func:`deferred_check`).  A width of -1 is inferred from the values as
    one-hot infers it.  ``at_least`` (a Python int >= 0 the width is known
    not to be below: it is ``max(..., at_least)``) is told to Dynamo, so a
    slice of the encoding back to it has a static size.  Dynamo shows a
    symbolic int as an int, so a Python int width takes this way too (the
    rule rewrites only widths read from data), its value read back as a
    captured size.

    Everything else calls one-hot as written: eagerly, an input that is not
    a plain int64 CPU tensor (on CUDA one-hot fails by a device-side
    assert, which a deferred check would not imitate), a width of another
    kind.  Without [Capture], reading the width breaks the graph, and
    Dynamo runs the call as written.
    """
    if compiling() and _in_graph(indexes, num_classes):
        return _one_hot_in_graph(indexes, num_classes, untouched, at_least)
    return torch.nn.functional.one_hot(indexes, num_classes)


def _in_graph(indexes, num_classes) -> bool:
    if not (_plain(indexes) and indexes.dtype == torch.int64 and indexes.device.type == "cpu"):
        return False
    if isinstance(num_classes, int):  # a symbolic int too, as Dynamo shows it
        return not isinstance(num_classes, bool)
    return (_plain(num_classes) and num_classes.dim() == 0 and num_classes.dtype in _WIDTH_DTYPES
            and num_classes.device.type == "cpu")


def _one_hot_in_graph(indexes, num_classes, untouched, at_least):
    flat = indexes.reshape(-1)
    # The width as a 0-dim tensor (an int times a tensor stays in the graph, a symbolic one too).
    width = num_classes.to(torch.int64) if isinstance(num_classes, torch.Tensor) else flat.new_ones(()) * num_classes
    nonempty = torch.ones_like(flat, dtype=torch.bool).any()
    # The largest value, or int64's least where there is none (no reduction of an empty tensor).
    largest = torch.cat([flat, flat.new_full((1,), torch.iinfo(torch.int64).min)]).max()
    inferred = width == -1
    columns = torch.where(inferred, largest + 1, width).clamp(min=0).item()
    if isinstance(at_least, int) and not isinstance(at_least, bool) and at_least >= 0:
        columns = torch.sym_max(columns, at_least)  # the same value, and Dynamo knows the bound
    # Contiguous as one-hot's own result, also where a size is 0 (a broadcast would leave a 0 stride).
    encoding = (indexes.unsqueeze(-1) == torch.arange(columns, device=indexes.device)).to(
        torch.int64, memory_format=torch.contiguous_format)
    for failed, message in ((~nonempty & (width <= 0), EMPTY), ((flat < 0).any(), NEGATIVE),
                            (nonempty & ~inferred & (largest >= width), TOO_LARGE)):
        if deferred_check(failed, "RuntimeError", __name__, lambda message=message: (message,), untouched=untouched):
            raise RuntimeError(message)
    return encoding
