"""Helpers of another module that fuzz programs call (``from fuzz.helpers
import ...`` in :data:`fuzz.grammar.HEADER`): the runner reads them as
``graphmend.mend`` does, from the live objects (see
:func:`graphmend.mending.callees.callee_summaries_of`).  Pure ones, and
ones that write an attribute, print, or raise; and custom operators with a
data-dependent output size (``torch.ops.gm_fuzz``)."""

import torch


def pure_other(a, b):
    return torch.where(a > b, a - b, b * 0.25)


def grow_other(a):
    return a * 2 + 1


def view_other(a):
    return a.view(-1)


def describe_other(a):
    return tuple(a.shape)


def writes_other(ns, a):
    ns.other = a.max()
    return a - 1


def prints_other(a):
    print("other:", a.max())
    return a * 3


def raises_other(a):
    if a.dim() != 1:
        raise ValueError("not 1-d")
    return a * 2


# Operators a library defines in C++ with a data-dependent output size, and
# a fake kernel for torch.compile, as torchvision's ``nms`` is.  The kernels
# keep the indices of scores above one half: 0, 1 or many of them.
_OPERATORS = torch.library.Library("gm_fuzz", "DEF")
_OPERATORS.define("kept(Tensor scores) -> Tensor")
_OPERATORS.define("kept_claims_one(Tensor scores) -> Tensor")


@torch.compiler.disable  # a kernel, not code Dynamo should trace where it runs eagerly
def _kept(scores):
    return torch.nonzero(scores > 0.5).squeeze(1)


_OPERATORS.impl("kept", _kept, "CPU")
_OPERATORS.impl("kept_claims_one", _kept, "CPU")


@torch.library.register_fake("gm_fuzz::kept")
def _kept_fake(scores):
    # torchvision's call: deprecated, and its default minimum is 2.
    size = torch.library.get_ctx().create_unbacked_symint()
    return scores.new_empty(size, dtype=torch.long)


@torch.library.register_fake("gm_fuzz::kept_claims_one")
def _kept_claims_one_fake(scores):
    # A claim the kernel does not keep (it keeps none of all-low scores).
    size = torch.library.get_ctx().new_dynamic_size(min=1)
    return scores.new_empty(size, dtype=torch.long)


def kept(scores):
    return torch.ops.gm_fuzz.kept(scores)


def kept_claims_one(scores):
    return torch.ops.gm_fuzz.kept_claims_one(scores)
