"""[Where] under autograd: merged arms give eager's gradients (``torch.where`` or
``torch.cond``), and what only one arm's value may depend on (``analysis.gradients``).

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import torch

from graphmend.compare import first_difference
from harness import mend_source
from where_support import requiring_grad, t, training_run


# -- gradients -------------------------------------------------------------------

GRADIENT_SOURCE = """
import torch


def root_or_zero(x):
    if x.min() > 0:
        y = torch.sqrt(x)
    else:
        y = x * 0.0
    return y


def scale_if_large(x, w):
    if x.sum() > 0:
        x = x * w
    return x + 1
"""


def _gradients(fn: Callable[..., Any], args: tuple[torch.Tensor, ...]) -> tuple[Any, list]:
    leaves = [a.detach().clone().requires_grad_(True) for a in args]
    value = fn(*leaves)
    value.sum().backward()
    return value.detach(), [leaf.grad for leaf in leaves]


@pytest.mark.parametrize(
    ("function", "arg_sets"),
    [
        # sqrt'(0) is inf: torch.where would give 0 * inf = nan to x.grad.
        ("root_or_zero", [(t(0, 4),), (t(1, 4),)]),
        ("scale_if_large", [(t(1, 2), t(3, 3)), (t(-1, -2), t(3, 3))]),
    ],
)
def test_gradients_equal_original(function: str, arg_sets: list, tmp_path: Path) -> None:
    original, mended, result = mend_source(GRADIENT_SOURCE, tmp_path, rules=["where"])
    if_line = next(n for n, text in enumerate(GRADIENT_SOURCE.splitlines(), 1) if text.startswith(f"def {function}(")) + 1
    assert if_line in {site.lineno for site in result.sites}
    for args in arg_sets:
        expected = _gradients(getattr(original, function), args)
        assert first_difference(expected, _gradients(getattr(mended, function), args)) is None
        torch._dynamo.reset()
        compiled = torch.compile(getattr(mended, function), backend="eager")
        assert first_difference(expected, _gradients(compiled, args)) is None


COND_SOURCE = """
import torch


def soft(x, y):
    if x.sum() > 0:
        y = y.exp()
    return y * 2


def constant_or_scaled(x, y):
    if x.sum() > 0:
        y = torch.ones(2)
    else:
        y = y.exp()
    return y


def weighted(x, y):
    if x.sum() > 0:
        y = y * y.exp()
    return y + y.sum()


def one_sided(x, y, w):
    if x.sum() > 0:
        y = (y * w).exp()
    return y


def soft_select(x, y):
    z = y.exp() if x.sum() > 0 else torch.sqrt(y)
    return z * 2


def scaled_or_halved(x, y):
    if x.sum() > 0:
        z = y * 2
    else:
        z = y * 0.5
    return z * y
"""


@pytest.mark.parametrize(
    ("function", "arg_sets", "breaks"),
    [
        # exp(100) overflows to inf in the arm not taken: torch.where would
        # send it 0 * inf = nan; torch.cond runs only the taken backward.
        ("soft", [(t(1, 2), t(0.5, 100)), (t(-1, -2), t(0.5, 100))], 0),
        ("root_or_zero", [(t(1, 4),), (t(0, 4),)], 0),
        # The result requires grad only where the exp arm is taken.
        ("constant_or_scaled", [(t(1, 2), t(0.5, 3)), (t(-1, -2), t(0.5, 3))], 1),
        # y read twice in the arm: no torch.cond (see the fixture).
        ("weighted", [(t(1, 2), t(0.5, 3)), (t(-1, -2), t(0.5, 3))], 1),
        # w, read by one arm only, would get a zero gradient instead of None.
        ("one_sided", [(t(1, 2), t(0.5, 3), t(2, 2)), (t(-1, -2), t(0.5, 3), t(2, 2))], 1),
        # A conditional expression merges by torch.cond too (sqrt'(0) is inf).
        ("soft_select", [(t(1, 2), t(0.0, 100)), (t(-1, -2), t(0.0, 100))], 0),
        # Linear arms: torch.where would add the untaken arm's +0.0 to the
        # taken arm's -0.0 gradient (y = 0.0, weight -1); torch.cond adds nothing.
        ("scaled_or_halved", [(t(1, 2), t(0.0, 3)), (t(-1, -2), t(0.0, 3)), (t(-1, -2), t(-0.0, -0.0))], 0),
    ],
)
def test_nonlinear_arms_under_autograd(function: str, arg_sets: list, breaks: int, tmp_path: Path) -> None:
    """Arms whose derivatives depend on values merge as one torch.cond under
    autograd (no break) where that is exact, and fall back otherwise (the
    original's one break); the outputs and gradients are eager's, bit for
    bit, either way."""
    source = COND_SOURCE + GRADIENT_SOURCE.replace("import torch", "")
    original, mended, _ = mend_source(source, tmp_path, rules=["where"])
    for args in arg_sets:
        expected = training_run(getattr(original, function), args)
        assert first_difference(expected, training_run(getattr(mended, function), args)) is None
        assert first_difference(expected, training_run(getattr(mended, function), args, compiled=True)) is None
    torch._dynamo.reset()
    # The first argument set takes the then arm, which has the operations after the break.
    assert torch._dynamo.explain(getattr(mended, function))(*requiring_grad(arg_sets[0])).graph_break_count == breaks


# -- what only one arm's value may depend on (analysis.gradients) -------------------

ONE_SIDED_CASES = {
    # (then arm, else arm, target): what only one side may depend on
    "reads_in_one_arm_only": ("h = h + y", "pass", "h", {"y"}),
    "both_arms_reach_the_same": ("h = h + y", "h = y - h", "h", set()),
    "detach_cuts_the_path": ("h = h.detach() + y", "h = h + y", "h", {"h"}),
    "comparison_cuts_the_path": ("h = (h > 0).float() + y", "h = h + y", "h", {"h"}),
    "through_a_local_of_the_arm": ("t = y * 2\nh = h + t", "h = h + y", "h", set()),
    "nested_if_reaches_what_both_sides_reach": ("if c:\n    h = h + y\nelse:\n    h = h - z", "pass", "h", {"y", "z", "c"}),
    "returns_on_two_paths": ("if c:\n    return y * 2\nreturn y + z", "return y", "return", {"z", "c"}),
    "static_attributes_are_not_values": ("h = h + y.shape[0]", "pass", "h", set()),
}


@pytest.mark.parametrize("name", sorted(ONE_SIDED_CASES))
def test_one_sided_names_what_only_one_arm_may_depend_on(name):
    import libcst as cst

    from graphmend.analysis.gradients import arm_dependencies, one_sided

    then, otherwise, target, expected = ONE_SIDED_CASES[name]
    deps = [arm_dependencies(cst.parse_module(arm + "\n").body, target, lambda node: None)
            for arm in (then, otherwise)]
    assert one_sided(*deps) == expected


def test_one_sided_leaves_out_what_an_earlier_assignment_reaches():
    """``h = x * w`` before the if: a gradient through ``h`` reaches ``w``
    on both paths, so ``w`` read by one arm alone changes nothing."""
    import libcst as cst

    from graphmend.analysis.gradients import arm_dependencies, one_sided, reached_before

    body = cst.parse_module("h = x * w\nif c:\n    h = h + w\n").body
    deps = [arm_dependencies(arm, "h", lambda node: None) for arm in (body[1].body.body, [])]
    assert one_sided(*deps) == {"w"}
    assert one_sided(*deps, reached_before(body, body[1], lambda node: None)) == set()
