"""graphmend.modules walks a model as nn.Module.modules() and parameters()
do, without hashing its modules."""

from __future__ import annotations

import torch

from graphmend.modules import parameters, submodules
from test_hostile import Unhashable


def _nested() -> torch.nn.Module:
    shared = torch.nn.Linear(2, 2)
    inner = torch.nn.Sequential(shared, torch.nn.ReLU(), torch.nn.Sequential(torch.nn.Linear(2, 3), shared))
    outer = torch.nn.ModuleDict({"a": inner, "b": torch.nn.Linear(3, 1), "none": None, "again": inner})
    outer.tied = torch.nn.Linear(2, 2)
    outer.tied.weight = shared.weight  # one parameter in two modules
    return outer


def test_the_walk_lists_what_modules_and_parameters_list_in_their_order():
    model = _nested()
    assert [id(m) for m in submodules(model)] == [id(m) for m in model.modules()]
    assert [id(p) for p in parameters(model)] == [id(p) for p in model.parameters()]


def test_the_walk_reaches_modules_that_cannot_be_hashed():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), Unhashable())
    assert [type(m).__name__ for m in submodules(model)] == ["Sequential", "Linear", "Unhashable", "Linear"]
    assert len(list(parameters(model))) == 4
