"""Helpers of another module that fuzz programs call (``from fuzz.helpers
import ...`` in :data:`fuzz.grammar.HEADER`): the runner reads them as
``graphmend.mend`` does, from the live objects (see
:func:`graphmend.mending.callees.callee_summaries_of`).  Pure ones, and ones that
write an attribute, print, or raise."""

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
