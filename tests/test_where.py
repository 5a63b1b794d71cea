"""[Where]: mended code behaves like the original, eagerly and compiled.

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests
run it.  Every case takes each branch; fixable cases must compile to one
graph.  Real targets (transformers 4.52.4) are mended in memory: the
function's source goes through the rule and its ``__code__`` is swapped for
the mended one for the duration of a test.
"""

from __future__ import annotations

import contextlib
import inspect
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import numpy as np
import pytest
import torch
from torch._dynamo.testing import CompileCounter

import graphmend.runtime
from graphmend import compat
from graphmend.compare import first_difference
from graphmend.pipeline import transform_source
from harness import assert_same_outcome, capture, check_equivalent, compiled_outcome, load_module, mend_source

FIXTURES = Path(__file__).parent / "fixtures" / "where"


def fixture(name: str) -> str:
    return (FIXTURES / f"{name}.in.py").read_text()


def t(*values: float, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype)


# -- outputs, eager and compiled, one graph ------------------------------------

EQUIVALENCE_CASES = {
    "else_less_update": ("scale_if_large", [(t(1, 2),), (t(-1, -2),)]),
    "if_else_both_bind": ("pick", [(t(3, 4), t(1, 2)), (t(0, 4), t(1, 2))]),
    "elif_chain": ("bucket", [(t(6, 7),), (t(1, 2),), (t(-1, -2),)]),
    "nested_if": ("nested", [(t(1, 2), t(1, 1)), (t(1, 2), t(-1, -1)), (t(-1, -2), t(1, 1))]),
    "conditional_expression": ("relu_like", [(t(1, 2),), (t(-1, -2),)]),
    "return_branches": ("choose", [(t(5, 1), t(1, 2)), (t(0, 1), t(1, 2))]),
    "return_tuples": ("pair", [(t(1, -1), t(2, 3)), (t(-1, -1), t(2, 3))]),
    "static_guard_and_tensor": (
        "maybe_mask",
        [(t(1, 2), torch.tensor([False, False])), (t(1, 2), torch.tensor([True, False]))],
    ),
    "or_of_bool_scalars": (
        "clamp_overflow",
        [
            (t(1, float("inf"), dtype=torch.float16),),
            (t(-float("inf"), 2, dtype=torch.float16),),
            (t(1, float("nan"), dtype=torch.float16),),
            (t(1, 2, dtype=torch.float16),),
        ],
    ),
    "not_of_bool_scalar": ("fill_if_finite", [(t(1, 2),), (t(1, float("nan")),)]),
    "scalar_int_predicate": (
        "by_count",
        [(t(1, 2), torch.tensor([True] * 4)), (t(1, 2), torch.tensor([True] * 3)), (t(1, 2), torch.tensor([5]))],
    ),
    "bool_call_predicate": ("if_any", [(t(1, float("nan")),), (t(1, 2),)]),
    "and_of_bool_scalars": ("both_finite", [(t(1, 2), t(3, 4)), (t(1, 2), t(3, float("inf")))]),
    "scalar_item_predicate": (
        "gate",
        [(t(1, 2.5),), (t(1, 2),), (torch.tensor([3.0000002]),), (torch.tensor([3.0]),)],
    ),
    "chained_comparison": (
        "band",
        [(t(1, 2), 0.0, 10.0), (t(1, 2), 5.0, 10.0), (t(1, 2), 0.0, 3.0), (t(3), 3.0, 3.5), (t(3), 0.0, 3.0)],
    ),
    "flag_holding_a_stored_test": (
        "step",
        [(t(1, -2), t(1, 2)), (t(1, 2), t(1, 2)), (t(1, 2), t(-1, -2)), (t(-1, 2), t(-1, 0.5)), (t(1, 2), t(0, 0))],
    ),
    "builtin_pow": ("ssim_constants", [(t(0.5, 2),), (t(-3),)]),
    "pow_in_an_arm": ("energy", [(t(1, 2),), (t(-1, -2),)]),
    "integer_index_raising_while_traced": ("first_row", [(t(1, 2, 3, 4),), (t(-1, -2, -3, -4),)]),
    "float_of_a_python_number_in_an_arm": (
        "next_step",
        [(t(0, 0), t(0, 0), torch.tensor(0.5), 4), (t(1, 2), t(3, 4), torch.tensor(0.5), 4)],
    ),
    "scalar_float_predicate": (
        "gate",
        [(t(0.25),), (torch.tensor([0.25]).nextafter(torch.tensor([0.0])),), (t(1, 2),)],
    ),
    "conditional_expression_of_two_python_values": (
        "rows", [(t(1, 2, 3), [1, 2], [3, 4]), (t(-1, -2, -3), [1, 2], [3, 4])],
    ),
}

#: Stores through a bool mask (a data-dependent shape).  Each case runs
#: with masks selecting some, none and every element.
_MASKS = (torch.tensor([True, False, True, False]), torch.tensor([False] * 4), torch.tensor([True] * 4))
MASKED_STORE_CASES = {
    # tss 0 where the mask leaves it out: 1 - rss / 0 there is never selected.
    "r2_scores": [(t(5, 2, 3, 2), t(3, 0, 1, 2), t(0.5, 0.25, 0, 1), 2)],
    "pearson": [(t(0.5, -2, 1e-3, 3), t(1, 0, 4, 2), t(2, 3, 0.5, 0), m) for m in _MASKS]
    + [(torch.tensor([0.25]), torch.tensor([2.0]), torch.tensor([0.5]), torch.tensor([True]))],
    "norms": [(t(1, -3, 5, 0.5), m) for m in _MASKS],
    "shifted": [(t(1, 2, 3, 4), t(5, 6, 7, 8), m) for m in _MASKS]
    + [(t(1, 2, 3, 4), t(5, 6, 7, 8), torch.tensor([3, 0]))],
    # A transposed target; 0 / 0 where the mask leaves it out.
    "fast_ap": [(torch.tensor([[0.0, 2.0, 1.5], [3.0, 0.0, -1.0]]), torch.tensor([[4.0, 0.0, 3.0], [0.5, 2.0, 7.0]])),
                (torch.zeros(2, 3), torch.zeros(2, 3)),
                (torch.tensor([[1.0, 2.0, 1.5], [3.0, 1.0, 1.0]]), torch.tensor([[4.0, 1.0, 3.0], [0.5, 2.0, 7.0]]))],
}


@pytest.mark.parametrize("name", sorted(EQUIVALENCE_CASES))
def test_fixture_equivalent(name: str, tmp_path: Path) -> None:
    function, arg_sets = EQUIVALENCE_CASES[name]
    result = check_equivalent(fixture(name), function, arg_sets, tmp_path, rules=["where"])
    assert result.sites and not result.skips


def test_static_half_false_leaves_value(tmp_path: Path) -> None:
    # float32: the static ``dtype == float16`` half is False, nothing to compute.
    check_equivalent(fixture("or_of_bool_scalars"), "clamp_overflow", [(t(1, float("inf")),)], tmp_path,
                     rules=["where"], graphs=0)
    check_equivalent(fixture("static_guard_and_tensor"), "maybe_mask", [(t(1, 2), None)], tmp_path,
                     rules=["where"], graphs=0)


def test_same_function_different_args_calls_it_once(tmp_path: Path) -> None:
    calls = []

    def layer(value: torch.Tensor, scale: int) -> torch.Tensor:
        calls.append(scale)
        return value * scale

    source = fixture("same_function_different_args")
    check_equivalent(source, "project", [(layer, t(3, 4), t(1, 2)), (layer, t(1, 2), t(3, 4))], tmp_path,
                     rules=["where"])
    _, mended, _ = mend_source(source, tmp_path, rules=["where"])
    calls.clear()
    mended.project(layer, t(3, 4), t(1, 2))
    assert calls == [2]


SCALAR_SOURCE = """
import torch


def above(y):
    if y.item() > 0.1:
        y = y * 2
    return y


def int_above(y):
    if y.item() >= 9007199254740993:
        y = y * 2
    return y


def int_small(y):
    if y.sum().item() == 7:
        y = y + 1
    return y
"""


def test_scalar_comparison_is_exact_in_double(tmp_path: Path) -> None:
    # float32(0.1) > 0.1 in Python (doubles); a float32 comparison says False.
    assert torch.tensor([0.1]).item() > 0.1 and not bool(torch.tensor([0.1]) > 0.1)
    arg_sets = [(torch.tensor([0.1]),), (torch.tensor([0.0999]),), (torch.tensor([0.1], dtype=torch.float64),)]
    check_equivalent(SCALAR_SOURCE, "above", arg_sets, tmp_path, rules=["where"])
    check_equivalent(SCALAR_SOURCE, "int_small", [(torch.tensor([3, 4]),), (torch.tensor([3, 5]),)], tmp_path,
                     rules=["where"])


def test_int_of_float_keeps_python_truncation(tmp_path: Path) -> None:
    # int(nan) raises and int(3.9) truncates: a float tensor keeps int().
    arg_sets = [(t(1, 2), torch.tensor([3.9])), (t(1, 2), torch.tensor([4.0])), (t(1, 2), torch.tensor([float("nan")]))]
    check_equivalent(fixture("scalar_int_predicate"), "by_count", arg_sets, tmp_path, rules=["where"], graphs=None)


def test_scalar_literal_beyond_float64_is_left_alone() -> None:
    result = transform_source(SCALAR_SOURCE, rules=["where"])
    assert [s.lineno for s in result.sites] == [6, 18]


# -- run-time fallbacks: the original's choice, its break and its error --------

FALLBACK_SOURCE = """
import torch


def reduce_if(x, y):
    if x.sum() > 0:
        y = y.sum()
    return y


def promote_if(x, y):
    if x.sum() > 0:
        y = y.float()
    return y


def ambiguous(x, y):
    if torch.abs(x) > 0:
        y = y * 2
    return y
"""


@pytest.mark.parametrize(
    ("function", "arg_sets"),
    [
        ("reduce_if", [(t(1, 2), t(3, 4)), (t(-1, -2), t(3, 4))]),  # shapes differ: no broadcast
        ("promote_if", [(t(1, 2), torch.tensor([3, 4])), (t(-1, -2), torch.tensor([3, 4]))]),  # dtypes differ
        ("ambiguous", [(t(1, 2), t(3, 4)), (t(1), t(3, 4))]),  # multi-element test raises as before
    ],
)
def test_fallback_keeps_original_semantics(function: str, arg_sets: list, tmp_path: Path) -> None:
    result = check_equivalent(FALLBACK_SOURCE, function, arg_sets, tmp_path, rules=["where"], graphs=None)
    assert result.sites


@pytest.mark.parametrize(
    ("name", "function", "arg_sets"),
    [
        # x[3] of two elements raises while traced: the original if runs, the taken x[3] raises as before
        ("integer_index_raising_while_traced", "first_row", [(t(1, 2),), (t(-1, -2),)]),
        # float() of a tensor breaks the graph inside the arm: the original if runs
        ("float_of_a_python_number_in_an_arm", "next_step",
         [(t(0, 0), t(0, 0), torch.tensor(0.5), torch.tensor(4)), (t(1, 2), t(3, 4), torch.tensor(0.5), torch.tensor(4))]),
        # two Python ints that differ cannot merge: the original choice runs
        ("conditional_expression_of_two_python_values", "rows",
         [(t(1, 2, 3), [1], [3, 4]), (t(-1, -2, -3), [1], [3, 4])]),
    ],
)
def test_arm_failing_or_breaking_while_traced_falls_back(name: str, function: str, arg_sets: list,
                                                         tmp_path: Path) -> None:
    result = check_equivalent(fixture(name), function, arg_sets, tmp_path, rules=["where"], graphs=None)
    assert result.sites


def test_non_tensor_test_runs_original_branch(tmp_path: Path) -> None:
    # numpy's ``x.sum() > 0`` is a numpy bool: the original branch runs.
    original, mended, _ = mend_source(fixture("else_less_update"), tmp_path, rules=["where"])
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        np.testing.assert_array_equal(original.scale_if_large(x), mended.scale_if_large(x))


LINES_SOURCE = """
import torch


def double_if(x, flag):
    if flag > 0:
        x = x * 2
    return x
"""


def test_diagnosed_line_with_unknown_test_dispatches_at_run_time(tmp_path: Path) -> None:
    # Statically ``flag`` could be anything: only a diagnosis names the line.
    assert not transform_source(LINES_SOURCE, rules=["where"]).changed
    result = transform_source(LINES_SOURCE, rules=["where"], lines=frozenset({6}))
    assert [site.lineno for site in result.sites] == [6]
    original = load_module(LINES_SOURCE, tmp_path, "orig")
    mended = load_module(result.code, tmp_path, "mended")
    for flag in (torch.tensor(1), torch.tensor(-1), 1, -1, 0.5):
        expected = capture(original.double_if, t(1, 2), flag)
        assert first_difference(expected.value, capture(mended.double_if, t(1, 2), flag).value) is None
        outcome, graphs = compiled_outcome(mended.double_if, t(1, 2), flag)
        assert first_difference(expected.value, outcome.value) is None
        # A Python flag is a constant to Dynamo: a false one leaves no tensor op.
        assert graphs == (0 if not isinstance(flag, torch.Tensor) and flag <= 0 else 1)


def test_mended_where_has_no_break_with_multi_element_branch_values(tmp_path: Path) -> None:
    _, mended, _ = mend_source(fixture("if_else_both_bind"), tmp_path, rules=["where"])
    _, graphs = compiled_outcome(mended.pick, torch.randn(4, 3), torch.randn(4, 3))
    assert graphs == 1


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


@pytest.mark.parametrize("function", sorted(MASKED_STORE_CASES))
def test_masked_store_equivalent(function: str, tmp_path: Path) -> None:
    """The whole-tensor form gives every bit of the original's (outputs,
    eager and compiled) in one graph, whatever the mask selects; integer
    indices run the original store, which traces."""
    result = check_equivalent(fixture("masked_store"), function, MASKED_STORE_CASES[function], tmp_path,
                              rules=["where"])
    assert result.sites and not result.skips


@pytest.mark.parametrize(("function", "breaks"), [("r2_scores", 0), ("pearson", 0), ("norms", 1), ("fast_ap", 0)])
def test_masked_store_under_autograd(function: str, breaks: int, tmp_path: Path) -> None:
    """Gradients are the original's bit for bit, zeros' signs included, and
    none comes from an element the mask leaves out (pearson's 0 / 0); a
    value that reads its operand twice (norms' ``x * x``) keeps the
    original store, and its one break, under autograd, as does a store in
    a tensor arm (its write where not taken would give the target a
    grad_fn): the whole ``if`` runs as the original."""
    original, mended, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    for args in MASKED_STORE_CASES[function]:
        expected = _training_run(getattr(original, function), args)
        assert first_difference(expected, _training_run(getattr(mended, function), args)) is None
        assert first_difference(expected, _training_run(getattr(mended, function), args, compiled=True)) is None
    torch._dynamo.reset()
    args = _leaves(MASKED_STORE_CASES[function][0])
    assert len(torch._dynamo.explain(getattr(mended, function))(*args).break_reasons) == breaks


MASKED_TARGET_SOURCE = """
import torch


def rescale(x, keep):
    out = x * 1.5
    view = out[:]
    out[keep] = out[keep] / 3.0
    return out, view


def saved_then_stored(x, y, keep):
    out = torch.zeros_like(x)
    z = y * out  # saves out for y's gradient
    out[keep] = x[keep] * 2
    return z + out
"""


def test_masked_store_in_a_tensor_arm_is_gated(tmp_path: Path) -> None:
    """``if valid.any(): corrcoef[valid] = ...``: with gradients disabled the
    whole ``if`` is one graph, every bit the original's, whatever the mask
    selects (none: the arm is not taken); with them enabled (autograd may
    have saved the target) it runs as the original, with its one break."""
    original, mended, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    arg_sets = [(t(0.5, -2, 1e-3, 3), t(1, 0, 4, 2), t(2, 3, 0.5, 0), m) for m in _MASKS]
    for args in arg_sets:
        with torch.no_grad():
            expected = capture(original.pearson_if_any, *args)
            outcome, graphs = compiled_outcome(mended.pearson_if_any, *args)
        assert_same_outcome(expected, outcome, "compiled")
        assert graphs == 1
        outcome, _ = compiled_outcome(mended.pearson_if_any, *args)
        assert_same_outcome(expected, outcome, "compiled, gradients enabled")
        torch._dynamo.reset()
        assert len(torch._dynamo.explain(mended.pearson_if_any)(*args).break_reasons) == 1


GATED_STORE_SOURCE = """
import torch


def alias_updated_after(x, m):
    c = torch.zeros_like(x)
    d = c
    if m.any():
        c[m] = x[m] * 2
    c.add_(1)
    return d, c


def identity_kept(x, m):
    c = torch.zeros_like(x)
    d = c
    if m.any():
        c[m] = x[m] * 2
    return d is c, c


def read_in_both_arms(x, m):
    c = torch.zeros_like(x)
    if m.any():
        c[m] = x[m] * 2
        y = c.sum()
    else:
        y = c.sum() - 1
    return y, c


def nested(x, m):
    c = torch.full_like(x, 3.0)
    if x.sum() > 0:
        if m.any():
            c[m] = x[m] - 1
        c = c * 2
    return c
"""


@pytest.mark.parametrize("function", ["alias_updated_after", "identity_kept", "read_in_both_arms", "nested"])
def test_gated_masked_store_keeps_aliases_and_identity(function: str, tmp_path: Path) -> None:
    """A gated store writes the very tensor the original's does: an alias
    sees it, the name keeps its tensor (``d is c``), the other arm reads the
    target's own values, and a nested gate closes where either ``if`` is
    not taken (gradients disabled, so the gated form applies)."""
    x = t(1, -2, 3)
    arg_sets = [(x, torch.tensor([True, False, True])), (x, torch.tensor([False, False, False])),
                (-x, torch.tensor([False, True, False]))]
    with torch.no_grad():
        check_equivalent(GATED_STORE_SOURCE, function, arg_sets, tmp_path, rules=["where"], graphs=None)


def test_masked_store_keeps_the_target_and_its_gradient(tmp_path: Path) -> None:
    """The target is updated in place (an alias sees it); a target that
    requires grad itself keeps the original store under autograd (its
    overwritten values would take a gradient summed from two zeros: -0.0
    would become 0.0), with one break; a store into a tensor saved for
    backward fails as the original's does, naming IndexPut."""
    original, mended, _ = mend_source(MASKED_TARGET_SOURCE, tmp_path, rules=["where"])
    for keep in _MASKS:
        expected = _training_run(lambda x: sum(original.rescale(x, keep)), (t(1, -0.0, 3, 4),))
        actual = _training_run(lambda x: sum(mended.rescale(x, keep)), (t(1, -0.0, 3, 4),), compiled=True)
        assert first_difference(expected, actual) is None
    torch._dynamo.reset()
    assert len(torch._dynamo.explain(mended.rescale)(*_leaves((t(1, 2, 3, 4), _MASKS[0]))).break_reasons) == 1
    torch._dynamo.reset()
    compiled = torch.compile(mended.rescale, backend="eager")
    out, view = compiled(t(1, 2, 3, 4), _MASKS[0])
    assert view.data_ptr() == out.data_ptr() and torch.equal(view, out)
    args = (t(1, 2, 3, 4), t(5, 6, 7, 8), _MASKS[0])
    expected = capture(lambda *a: original.saved_then_stored(*a).sum().backward(), *_leaves(args))
    torch._dynamo.reset()
    compiled = torch.compile(mended.saved_then_stored, backend="eager")
    assert_same_outcome(expected, capture(lambda *a: compiled(*a).sum().backward(), *_leaves(args)), "compiled")
    assert "IndexPut" in str(expected.error)


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
    original, mended, _ = mend_source(GRADIENT_SOURCE, tmp_path, rules=["where"])
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


def _leaves(args: tuple) -> list[torch.Tensor]:
    return [a.detach().clone().requires_grad_(a.is_floating_point()) if isinstance(a, torch.Tensor) else a
            for a in args]


def _training_run(fn: Callable[..., Any], args: tuple, compiled: bool = False) -> tuple[Any, list]:
    leaves = _leaves(args)
    if compiled:
        torch._dynamo.reset()
        fn = torch.compile(fn, backend="eager")
    value = fn(*leaves)
    if value.requires_grad:
        (value * torch.linspace(-1, 2, value.numel()).reshape(value.shape)).sum().backward()
    return value.detach(), [leaf.grad for leaf in leaves if isinstance(leaf, torch.Tensor)]


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
        expected = _training_run(getattr(original, function), args)
        assert first_difference(expected, _training_run(getattr(mended, function), args)) is None
        assert first_difference(expected, _training_run(getattr(mended, function), args, compiled=True)) is None
    torch._dynamo.reset()
    # The first argument set takes the then arm, which has the operations after the break.
    assert torch._dynamo.explain(getattr(mended, function))(*_leaves(arg_sets[0])).graph_break_count == breaks


# -- module state: buffers and attributes ----------------------------------------


class _Frequencies(torch.nn.Module):
    """The shape of Phi-3's rotary embedding: ``original_inv_freq`` starts
    as the very tensor ``inv_freq`` is."""

    def __init__(self, update: Callable[..., Any]) -> None:
        super().__init__()
        self.update = update
        self.original_max = 4
        self.config = None
        self.register_buffer("inv_freq", torch.arange(1.0, 4.0), persistent=False)
        self.original_inv_freq = self.inv_freq

    def init_fn(self, config: Any) -> tuple[torch.Tensor, float]:
        return torch.arange(1.0, 4.0) * 10, 1.0

    def forward(self, position_ids: torch.Tensor) -> torch.Tensor:
        self.update(self, position_ids)
        return position_ids[:, None] * self.inv_freq


def _run_sequence(model: torch.nn.Module, inputs: list[torch.Tensor]) -> list[Any]:
    return [(model(x), model.inv_freq.clone(), model.original_inv_freq.clone()) for x in inputs]


def _assert_updated_in_place(current: torch.Tensor, buffer: torch.Tensor, value: torch.Tensor) -> None:
    """The stored buffer holds ``value`` and is the tensor it was, updated in
    place -- except on a torch whose Dynamo cannot scan a module's
    ``__dict__`` for aliases while tracing (2.11): there the store
    re-registers it."""
    assert torch.equal(current, value)
    if compat.TRACES_MODULE_DICT:
        assert current is buffer


def test_lazy_init_buffer_store_is_in_place_and_unaliased(tmp_path: Path) -> None:
    original, mended, _ = mend_source(fixture("lazy_init"), tmp_path, rules=["where"])
    long, short = torch.arange(8.0), torch.arange(3.0)
    sequence = [long, short, long, short]
    expected = _run_sequence(_Frequencies(original.frequency_update), sequence)
    assert first_difference(expected, _run_sequence(_Frequencies(mended.frequency_update), sequence)) is None
    torch._dynamo.reset()
    counter = CompileCounter()
    model = _Frequencies(mended.frequency_update)
    compiled = torch.compile(model, backend=counter, dynamic=False)
    outputs = [(compiled(x), model.inv_freq.clone(), model.original_inv_freq.clone()) for x in sequence]
    assert first_difference(expected, outputs) is None
    # One frame per input shape, plus one recompile: the first call separates
    # ``inv_freq`` from ``original_inv_freq`` (see test_phi3_longrope).
    assert counter.frame_count == 3
    buffer = model.inv_freq
    compiled(long)
    _assert_updated_in_place(model.inv_freq, buffer, expected[0][1])  # no recompile either
    assert counter.frame_count == 3
    # The predicated form computes the memo instead of storing it (see the rule).
    assert not hasattr(model, "long_inv_freq")


class _Store(torch.nn.Module):
    def __init__(self, function: Callable[..., Any], attribute: str) -> None:
        super().__init__()
        self.function = function
        self.limit = torch.tensor(1.0)
        self.long_freq = torch.arange(3.0) * 10
        self.short_freq = torch.arange(3.0)
        self.running = torch.zeros(3)
        self.register_buffer("freq", torch.ones(3), persistent=False)
        self.attribute = attribute

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.function(self, x), getattr(self, self.attribute).clone()


@pytest.mark.parametrize(
    ("name", "function", "attribute", "graphs"),
    [
        ("buffer_store", "update", "freq", 1),
        ("attribute_store", "track", "running", 1),
        # The inner if is mended, the outer declined: its break stays.
        ("nested_buffer_store_outer_declined", "update", "freq", None),
    ],
)
def test_stores_into_module_state(name: str, function: str, attribute: str, graphs: int | None,
                                  tmp_path: Path) -> None:
    original, mended, _ = mend_source(fixture(name), tmp_path, rules=["where"])
    inputs = [t(2, 0, 1), t(0, 0, 0.5), t(-1, 3, 1), t(-3, -3, -3), t(0.5, 0.5, 0.5)]
    original_model = _Store(getattr(original, function), attribute)
    expected = [original_model(x) for x in inputs]
    eager_model = _Store(getattr(mended, function), attribute)
    assert first_difference(expected, [eager_model(x) for x in inputs]) is None
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(_Store(getattr(mended, function), attribute), backend=counter)
    assert first_difference(expected, [compiled(x) for x in inputs]) is None
    if graphs is not None:
        assert counter.frame_count == graphs


@pytest.mark.parametrize("index_aliases_min_step", [False, True])
def test_in_place_update_after_the_merged_value_is_replaced(index_aliases_min_step: bool, tmp_path: Path) -> None:
    """torchdiffeq's ``if not torch.isfinite(dt): dt = self.min_step`` then
    ``dt = dt.clamp(...)``: the ``self.index += 1`` after it may update
    ``self.min_step`` in place (here it does, when the two are one tensor),
    but by then ``dt`` is a new tensor in both versions."""
    original, mended, _ = mend_source(fixture("in_place_after_the_merged_value_is_replaced"), tmp_path,
                                      rules=["where"])

    def run(cls, dt, compiled):
        stepper = cls()
        stepper.min_step, stepper.max_step = torch.tensor(0.25), torch.tensor(2.0)
        stepper.index = stepper.min_step if index_aliases_min_step else torch.tensor(0)
        step = torch.compile(stepper.step, backend=counter) if compiled else stepper.step
        return step(dt.clone()), stepper.min_step.clone(), stepper.index.clone()

    for dt in (torch.tensor(float("inf")), torch.tensor(0.5), torch.tensor(7.0)):
        expected = run(original.Stepper, dt, False)
        for compiled in (False, True):
            torch._dynamo.reset()
            counter = CompileCounter()
            assert first_difference(expected, run(mended.Stepper, dt, compiled)) is None
            assert counter.frame_count == compiled


def test_index_proven_nonnegative_where_taken(tmp_path: Path) -> None:
    """diffusers' ``alphas_cumprod[prev_t] if prev_t >= 0 else one``: the
    untaken arm runs with a negative index (past the table's start at -20
    here), clamped; one graph, the same values, and the same IndexError for
    an index past the end in the arm that is taken."""
    original, mended, result = mend_source(fixture("index_proven_nonnegative"), tmp_path, rules=["where"])
    assert "nonnegative_row" in result.code

    def scheduler(cls):
        instance = cls()
        instance.alphas_cumprod, instance.one = torch.linspace(0.99, 0.01, 10), torch.tensor(1.0)
        return instance

    for peak in (0, 5, 25, 29, 35):
        scores = torch.zeros(40)
        scores[peak] = 1.0
        expected = capture(scheduler(original.Scheduler).alpha_before, scores)
        assert_same_outcome(expected, capture(scheduler(mended.Scheduler).alpha_before, scores), "eager")
        outcome, graphs = compiled_outcome(scheduler(mended.Scheduler).alpha_before, scores)
        assert_same_outcome(expected, outcome, "compiled")
        assert graphs == 1


@pytest.mark.parametrize("index", [torch.tensor(3), torch.tensor(3, dtype=torch.int32), torch.tensor(0),
                                   torch.tensor([2, 0]), torch.tensor(True), torch.tensor(1, dtype=torch.uint8)],
                         ids=["int64", "int32", "zero", "vector", "bool-mask", "uint8-mask"])
def test_nonnegative_row_is_the_indexing_where_taken(index):
    table = torch.arange(20.0).reshape(10, 2)
    assert first_difference(table[index], graphmend.runtime.nonnegative_row(table, index)) is None


# -- real targets: transformers 4.52.4 ---------------------------------------------


@contextlib.contextmanager
def mended_in_place(function: Callable[..., Any], module: ModuleType) -> Iterator[None]:
    """Swap ``function.__code__`` for its [Where]-mended version, then restore."""
    source = "import torch\nfrom torch import nn\n\n\n" + textwrap.dedent(inspect.getsource(function))
    result = transform_source(source, rules=["where"])
    assert result.sites and not result.skips, result.skips
    namespace = dict(vars(module))
    exec(compile(result.code, f"<mended {function.__qualname__}>", "exec"), namespace)
    original_code = function.__code__
    function.__code__ = namespace[function.__name__].__code__
    module._graphmend = graphmend.runtime
    try:
        yield
    finally:
        function.__code__ = original_code
        del module._graphmend


def _run_compiled(model: torch.nn.Module, inputs: list[torch.Tensor]) -> tuple[list[Any], list[int]]:
    """Outputs of compiled ``model`` on each input, and the graphs compiled so
    far after each call (one graph after the first call: no break)."""
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=False)  # static shapes compile faster
    outputs, counts = [], []
    with torch.no_grad():
        for ids in inputs:
            outputs.append(compiled(ids).last_hidden_state)
            counts.append(counter.frame_count)
    return outputs, counts


def _phi3() -> torch.nn.Module:
    from transformers import Phi3Config, Phi3Model

    torch.manual_seed(0)
    config = Phi3Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=64, original_max_position_embeddings=16, pad_token_id=0,
        rope_scaling={"type": "longrope", "short_factor": [1.0, 1.1, 1.2, 1.3],
                      "long_factor": [2.0, 2.3, 2.6, 2.9]},
    )
    return Phi3Model(config).eval()


def test_phi3_longrope() -> None:
    import transformers.modeling_rope_utils as rope_utils
    from transformers.models.phi3 import modeling_phi3

    wrapper = modeling_phi3.Phi3RotaryEmbedding.forward.__wrapped__  # under torch.no_grad
    closure = dict(zip(wrapper.__code__.co_freevars, (c.cell_contents for c in wrapper.__closure__)))
    update = closure["longrope_frequency_update"]
    long_ids, short_ids = torch.randint(1, 64, (1, 24)), torch.randint(1, 64, (1, 8))
    sequence = [long_ids, long_ids, short_ids]
    reference = _phi3()
    with torch.no_grad():
        expected = [reference(ids).last_hidden_state for ids in sequence]
    assert _run_compiled(_phi3(), [long_ids])[1] != [1]  # the original breaks
    with mended_in_place(update, rope_utils):
        outputs, counts = _run_compiled(_phi3(), sequence)
        # No break.  A fresh model's ``original_inv_freq`` is its ``inv_freq``
        # tensor; the first long call must separate them (long frequencies
        # cannot go into the tensor that keeps the short ones) and Dynamo
        # guards on that aliasing, so the second call recompiles once.  The
        # original changes the same aliasing on its first call.
        assert counts[:2] == [1, 2]
        # An eager call runs the original code, which makes ``inv_freq`` the
        # ``long_inv_freq`` tensor itself; the first compiled call cannot copy
        # into a tensor another attribute holds and re-registers it, so the
        # second recompiles once.  Once separated, the buffer is updated in
        # place and nothing recompiles.
        model = _phi3()
        with torch.no_grad():
            model(long_ids)
        assert model.rotary_emb.inv_freq is model.rotary_emb.long_inv_freq
        _, counts = _run_compiled(model, [long_ids, long_ids])
        assert counts == [1, 2]
        buffer = model.rotary_emb.inv_freq
        assert _run_compiled(model, [long_ids, long_ids])[1] == [1, 1]
        _assert_updated_in_place(model.rotary_emb.inv_freq, buffer, buffer.clone())
    assert first_difference(expected, outputs) is None


def _encoder(config_class: type, model_class: type, overflow: bool) -> torch.nn.Module:
    torch.manual_seed(0)
    config = config_class(
        vocab_size=64, d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32,
        pad_token_id=1, decoder_start_token_id=2,
    )
    encoder = model_class(config).half().eval().get_encoder()
    if overflow:  # push the first layer's output past fp16's range: the clamp must run
        with torch.no_grad():
            encoder.layers[0].final_layer_norm.weight.fill_(60000)
    return encoder


def _overflows(encoder: torch.nn.Module, ids: torch.Tensor) -> bool:
    """Whether the first layer's output before its clamp has an inf."""
    seen = []
    hook = encoder.layers[0].final_layer_norm.register_forward_hook(
        lambda module, args, output: seen.append(bool(torch.isinf(output).any()))
    )
    with torch.no_grad():
        encoder(ids)
    hook.remove()
    return seen[0]


@pytest.mark.parametrize("family", ["bart", "marian"])
def test_fp16_encoder_clamp(family: str) -> None:
    from transformers import BartConfig, BartModel, MarianConfig, MarianModel
    from transformers.models.bart import modeling_bart
    from transformers.models.marian import modeling_marian

    config_class, model_class, module, layer = {
        "bart": (BartConfig, BartModel, modeling_bart, modeling_bart.BartEncoderLayer),
        "marian": (MarianConfig, MarianModel, modeling_marian, modeling_marian.MarianEncoderLayer),
    }[family]
    ids = torch.randint(3, 64, (1, 8))
    expected = {}
    for overflow in (False, True):
        with torch.no_grad():
            expected[overflow] = _encoder(config_class, model_class, overflow)(ids).last_hidden_state
    assert _run_compiled(_encoder(config_class, model_class, False), [ids])[1] != [1]  # the original breaks
    with mended_in_place(layer.forward, module):
        for overflow in (False, True):
            with torch.no_grad():
                eager = _encoder(config_class, model_class, overflow)(ids).last_hidden_state
            assert first_difference(expected[overflow], eager) is None
            outputs, counts = _run_compiled(_encoder(config_class, model_class, overflow), [ids])
            assert counts == [1]
            assert first_difference(expected[overflow], outputs[0]) is None
    assert _overflows(_encoder(config_class, model_class, True), ids)
    assert not _overflows(_encoder(config_class, model_class, False), ids)
    assert first_difference(expected[True], expected[False]) is not None


# -- torch.arange(...).tolist() of Python ints -----------------------------------


_REDUCTION_AXES = '''
import torch


def f(x):
    x = x + 1
    axes = torch.arange(2, len(x.shape)).tolist()
    return x.sum(dim=axes) * 2
'''


def test_arange_tolist_over_python_ints_compiles_to_one_graph(tmp_path):
    result = check_equivalent(_REDUCTION_AXES, "f", [(torch.randn(2, 3, 4, 5),), (torch.randn(2, 3),)], tmp_path,
                              rules=["where"])
    assert "arange_list" in result.code


def test_diagnose_reports_the_arange_tolist_as_fixable(tmp_path):
    from graphmend.diagnosis import diagnose

    original, _, _ = mend_source(_REDUCTION_AXES, tmp_path, rules=["where"])
    (site,) = diagnose(original.f, torch.randn(2, 3, 4, 5)).breaks
    assert (site.category, site.lineno, site.fixable, site.rule) == ("SCALAR", 7, True, "where")


def test_diagnose_reports_a_builtin_pow_as_fixable(tmp_path):
    """Dynamo's "Failed to trace builtin operator" is OTHER; [Where] is
    asked about the line, and the mended function is one graph.  (torch
    2.14 traces ``pow()`` of a tensor itself: there the original has no
    break to report.)"""
    from graphmend.diagnosis import diagnose

    original, mended, _ = mend_source(fixture("builtin_pow"), tmp_path, rules=["where"])
    sites = diagnose(original.ssim_constants, t(0.5, 2)).breaks
    assert sites or torch.torch_version.TorchVersion(torch.__version__) >= (2, 14), sites
    assert all((s.category, s.fixable, s.rule) == ("OTHER", True, "where") for s in sites), sites
    assert diagnose(mended.ssim_constants, t(0.5, 2)).breaks == []


@pytest.mark.parametrize("args", [(3,), (0,), (1, 7, 2), (5, 1, -1), (4, 4), (-3, 3), (2**31 - 2, 2**31 - 1)])
def test_arange_list_gives_the_ints_tolist_gives(args):
    values = graphmend.runtime.arange_list(*args)
    assert values == torch.arange(*args).tolist() and all(type(v) is int for v in values)


def _outcome(thunk):
    try:
        value = thunk()
    except Exception as error:
        return type(error), str(error)
    return value, [type(v) for v in value]


@pytest.mark.parametrize(
    "args",
    [(2.0, 5.0), (True,), (1, 4, 0.5), (torch.tensor(3),), (0, 5, 0), (4, 2), (-1,), (1, 5, -1),
     (0, 2**40, 2**39), (2**62, 2**62 + 3)],
    ids=["floats", "bool", "float_step", "tensor", "zero_step", "end_before_start", "negative_end",
         "step_away_from_end", "beyond_2_31", "beyond_doubles"],
)
def test_arange_list_runs_the_original_for_anything_else(args):
    # The same values of the same types, or the same exception: torch.arange
    # itself ran (range() would give ints, or raise TypeError/ValueError).
    assert _outcome(lambda: graphmend.runtime.arange_list(*args)) == _outcome(lambda: torch.arange(*args).tolist())


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


def test_or_with_a_lazy_right_operand_is_one_graph(tmp_path):
    """``a or b`` lowers to ``or_(a, lambda: b)``: under torch.compile both
    sides are evaluated and combined in the graph (a try block that raises
    nothing adds no break); eagerly Python's short-circuit decides."""
    source = """
import torch


def f(x, y):
    if torch.any(x > 1) or y.sum() > 0:
        x = x * 2
    return x
"""
    values = [torch.tensor([2.0, 0.0]), torch.tensor([-1.0, 0.5]), torch.tensor([0.5, -3.0])]
    result = check_equivalent(source, "f", [(a, b) for a in values for b in values], tmp_path)
    assert "_graphmend.or_(torch.any(x > 1), lambda y=y: y.sum() > 0)" in result.code, result.code


def test_bool_flag_read_for_its_truth_merges_in_one_graph(tmp_path):
    """torchdiffeq's ``accept_step = False`` in a tensor arm: the function
    only tests the flag, so it is merged as a 0-dim bool tensor, and with
    the final ``if`` (diagnosed, so transformed) the step is one graph."""
    from harness import assert_same_outcome

    source = fixture("bool_flag_read_for_its_truth")
    every_line = frozenset(range(1, source.count("\n") + 2))
    result = transform_source(source, rules=["where"], lines=every_line)
    assert not result.skips, result.skips
    original, mended = load_module(source, tmp_path, "orig"), load_module(result.code, tmp_path, "mended")
    limits = (torch.tensor(1.0), torch.tensor(1e-6))
    for ratio in (torch.tensor(0.5), torch.tensor(2.0), torch.tensor([0.5, 2.0])):
        for dt in (torch.tensor(0.1), torch.tensor(5.0), torch.tensor(1e-9)):
            expected = capture(original.step, ratio, dt, *limits)
            assert_same_outcome(expected, capture(mended.step, ratio, dt, *limits), "eager")
            outcome, graphs = compiled_outcome(mended.step, ratio, dt, *limits)
            assert_same_outcome(expected, outcome, "compiled")
            if ratio.numel() == 1:
                assert graphs == 1, (ratio, dt)


TRUTH_CASES = {
    # (function body, is `flag` read only for its truth)
    "if_test": ("flag = False\nif flag:\n    pass", True),
    "while_and_assert": ("while flag and x:\n    flag = False\nassert not flag", True),
    "conditional_expression": ("y = 1 if not (flag or x) else 2", True),
    "returned": ("return flag", False),
    "and_as_value": ("y = flag and x", False),
    "stored": ("ns.flag = flag", False),
    "argument": ("print(flag)", False),
    "augmented": ("flag += 1", False),
    "read_by_locals": ("if flag:\n    pass\nprint(locals())", False),
    "nested_function_reads_it": ("def g():\n    return flag\nif flag:\n    pass", False),
}


@pytest.mark.parametrize("name", sorted(TRUTH_CASES))
def test_which_names_are_read_only_for_their_truth(name):
    import libcst as cst

    from graphmend.analysis.bindings import truth_only_names

    body, expected = TRUTH_CASES[name]
    function = cst.parse_module("def f(x, ns, flag):\n" + textwrap.indent(body, "    ") + "\n").body[0]
    assert ("flag" in truth_only_names(function)) is expected


def test_fallback_under_dynamic_shapes(tmp_path):
    """Found by the 10,000-program run: arms of different shapes fall back
    with a graph break whose message named the shapes; with dynamic shapes
    a size is symbolic, the message is no constant, and Dynamo failed with
    an internal error.  The message names the ranks."""
    from harness import assert_same_outcome

    source = """
import torch


def f(x, y):
    v = y.sum() if x[0] < 0 else x - 1.5
    return v
"""
    result = transform_source(source, lines=frozenset({6}))
    original, mended = load_module(source, tmp_path, "orig"), load_module(result.code, tmp_path, "mended")
    torch._dynamo.reset()
    compiled = torch.compile(mended.f, backend="eager", dynamic=True)
    for n in (4, 5):
        for sign in (1.0, -1.0):
            x, y = torch.arange(n, dtype=torch.float32) * sign - 0.5 * sign, torch.ones(n)
            assert_same_outcome(capture(original.f, x, y), capture(compiled, x, y), "compiled")


def test_merge_of_two_returned_tuples_is_one_graph(tmp_path):
    """Found by the fuzzer: ``where`` asked whether the two returned tuples
    were the very same object, which Dynamo cannot trace between tuples
    ("Failed to trace builtin operator"); it compares their tensors."""
    from fuzz.grammar import SourceProgram
    from fuzz.runner import check_batch

    program = SourceProgram.from_file(
        "GRAD = False\n\n\n"
        "def f(x, y, acc, ns):\n"
        "    if hasattr(ns, 'v'):\n"
        "        v0 = y / x\n"
        "        raise ValueError(f\"arm {tuple(x.shape)}\")\n"
        "    elif y[-1].item() != 0:\n"
        "        return torch.exp(x), torch.sin(x)\n"
        "    return x, x\n"
    )
    tally = check_batch([program], tmp_path)
    assert not tally.mismatches
    assert (tally.fixable, tally.one_graph) == (1, 1), tally.stays


def test_masked_store_into_an_expanded_target_keeps_the_original_store() -> None:
    """An expanded tensor stores one element for several: the whole-tensor
    form would write each several times; a transposed one is dense."""
    from graphmend.runtime.stores import _masked_store_problem

    mask = torch.tensor([[True, False], [False, True]])
    values = torch.ones(2, 2)
    expanded = torch.zeros(2).expand(2, 2)
    assert "not dense" in _masked_store_problem(expanded, mask, (values,), True)
    assert _masked_store_problem(torch.zeros(2, 2).t(), mask, (values,), True) is None


def test_masked_store_of_complex_values_keeps_the_original_store(tmp_path: Path) -> None:
    """Complex quotients are not correctly rounded (SIMD and scalar kernels
    differ): the original store runs, with its one break."""
    original, mended, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    args = (torch.tensor([1 + 2j, 3j, 2, 1]), torch.tensor([2 - 1j, 1, 1j, 4]), torch.tensor([2j, 1, 1, 3]), 2)
    expected = capture(original.r2_scores, *args)
    torch._dynamo.reset()
    assert_same_outcome(expected, capture(torch.compile(mended.r2_scores, backend="eager"), *args), "compiled")
    torch._dynamo.reset()
    assert len(torch._dynamo.explain(mended.r2_scores)(*args).break_reasons) == 1


def test_diagnose_reports_a_masked_store_at_its_first_line_as_fixable(tmp_path):
    """Dynamo names the lines of a multi-line store where it meets bool
    indexing (DS); the site is the statement's first line, [Where] is asked
    about it, and mending from the diagnosis leaves one graph."""
    from graphmend.diagnosis import diagnose

    original, _, _ = mend_source(fixture("masked_store"), tmp_path, rules=["where"])
    args = MASKED_STORE_CASES["pearson"][0]
    (site,) = diagnose(original.pearson, *args).breaks
    first_line = fixture("masked_store").splitlines().index("    corrcoef[valid] = (") + 1
    assert (site.category, site.lineno, site.fixable, site.rule) == ("DS", first_line, True, "where")
    from graphmend.api import mend_report
    from graphmend.patch import unmend

    mend_report(original.pearson, diagnose(original.pearson, *args), modules=[original.__name__])
    try:
        assert diagnose(original.pearson, *args).breaks == []
    finally:
        unmend(original.pearson)


HOP_AFTER_STORE_SOURCE = """
import torch


def loop_then_store(x, y, ns):
    ns.a = x
    v1 = y.abs() + 1
    while v1.sum() < 50:
        v1 = v1 * 2 + 1
    ns.v = y
    return v1


def cond_then_store(x, y, ns):
    ns.a = x
    if x.sum() > 0:
        z = y.exp()
    else:
        z = y.sin()
    ns.v = y
    return z


def cond_after_reading_vars(x, y, ns):
    seen = "a" in vars(ns)
    if x.sum() > 0:
        z = y.exp()
    else:
        z = y.sin()
    ns.v = y
    return z, seen
"""


@pytest.mark.parametrize("function", ["loop_then_store", "cond_then_store", "cond_after_reading_vars"])
def test_no_higher_order_op_after_an_attribute_store(function: str, tmp_path: Path) -> None:
    """Dynamo 2.13/2.14 drops every attribute store made after a
    torch.while_loop or torch.cond to an object stored into (or whose
    ``vars()`` was read) before it: the runtime then keeps the original
    loop or choice (one break, named).  torch 2.11's ``vars()`` makes no
    ``__dict__`` proxy, so nothing is lost there and the choice merges."""
    _, mended, _ = mend_source(HOP_AFTER_STORE_SOURCE, tmp_path, rules=["where"])
    x, y = _leaves((t(0.5, 1, 1.5, 2), t(1, 2, 0.25, 3)))
    ns = type("Namespace", (), {})()
    ns.a = x
    torch._dynamo.reset()
    torch.compile(getattr(mended, function), backend="eager")(x, y, ns)
    assert ns.a is x and ns.v is y
    torch._dynamo.reset()
    reasons = [r.reason for r in torch._dynamo.explain(getattr(mended, function))(x, y, ns).break_reasons]
    if function == "cond_after_reading_vars" and torch.torch_version.TorchVersion(torch.__version__) < (2, 12):
        assert reasons == []
    else:
        (reason,) = reasons
        assert "Dynamo would drop its attribute stores" in reason


SCALAR_INDEX = """
import torch


def interpolate(knots, coeffs, t):
    index = torch.bucketize(t.detach(), knots.detach()).sub(1).clamp(0, knots.size(0) - 2)
    fractional_part = t - knots[index]
    prev_coeff = coeffs[..., index, :]
    next_coeff = coeffs[..., index + 1, :]
    diff_t = knots[index + 1] - knots[index]
    return prev_coeff + fractional_part * (next_coeff - prev_coeff) / diff_t


def picked(values, offset):
    i = offset + 0
    return values[1:, i] * 2 - values[i, None, 0]
"""


def test_a_zero_dim_index_reads_no_value_back(tmp_path: Path) -> None:
    """torchcde's interpolation: the knots and coefficients indexed with the
    bucket of ``t`` (a 0-dim tensor made in the graph, read back as an int:
    a graph break per read) compile to one graph, the same bits, with the
    lines a diagnosis reports (the first read of each frame; the others
    index with the same name).  Indices that are not 0-dim integer tensors
    (an int, a 1-dim tensor, a 0-dim bool, which is a mask) index as
    written; one out of range raises the same IndexError, naming the same
    dimension."""
    knots, coeffs = torch.linspace(0, 1, 6), torch.randn(2, 6, 3)
    cases = [(knots, coeffs, t(0.37).reshape(())), (knots, coeffs, t(-2.0).reshape(())),
             (knots, coeffs, t(1.0).reshape(())), (knots.double(), coeffs.double(), t(0.5).double().reshape(()))]
    result = check_equivalent(SCALAR_INDEX, "interpolate", cases, tmp_path, rules=["where"], lines=frozenset({7}))
    assert [(s.lineno, s.what) for s in result.sites] == [(line, "0-dim tensor index -> one-element index")
                                                       for line in (7, 8, 9, 10)]
    values = torch.randn(4, 5)
    one_graph = [(values, torch.tensor(2)), (values, torch.tensor(-1)), (values, torch.tensor(3, dtype=torch.int32)),
                 (values, 1), (values, torch.tensor([2]))]
    check_equivalent(SCALAR_INDEX, "picked", one_graph, tmp_path, rules=["where"], lines=frozenset({16}))
    as_written = [(values, torch.tensor(9)), (values, torch.tensor(True)), (values, torch.tensor(1, dtype=torch.uint8))]
    check_equivalent(SCALAR_INDEX, "picked", as_written, tmp_path, rules=["where"], lines=frozenset({16}), graphs=None)


def test_a_zero_dim_index_in_a_conditional_expression_is_clamped_where_not_taken(tmp_path: Path) -> None:
    """An index a test bounds below, read in the arm it guards, is the
    conditional expression's to clamp (``nonnegative_row``): the arm runs
    where it is not taken too, and there the index may be out of range."""
    source = """
import torch


def bounded_below(values, weights, offset: int):
    index = torch.argmax(weights) - offset
    return values[index] * 2 if index >= 0 else weights
"""
    values, weights = torch.randn(4), torch.tensor([0.1, 0.5, 0.2, 0.3])
    cases = [(values, weights, 1), (values, weights, 9), (values, weights, 2)]
    result = check_equivalent(source, "bounded_below", cases, tmp_path, lines=frozenset({7}))
    assert "nonnegative_row" in result.code and "scalar_index" not in result.code


def test_a_zero_dim_index_after_a_deferred_message_is_read_back(tmp_path: Path) -> None:
    """With a message waiting for the graph's end, an index out of range
    would raise inside the graph, before it: the index is read back as the
    original reads it (a break, named), and the message comes first.  The
    fuzzer's program, reduced."""
    source = """
import logging

import torch

logger = logging.getLogger("gm.test")


def f(x, y):
    logger.warning(f"gm {x.max()}")
    i = y.argmin() + 3
    return -torch.outer(x, y)[1:, i]
"""
    x, y = t(0.5, 1.0, 1.5, 2.0), t(1.0, 2.0, 0.25, 3.0)
    result = check_equivalent(source, "f", [(x, y), (x, t(0.5, 2.0, 0.25, 3.0)), (x, t(3.0, 2.0, 0.25, 1.0))],
                              tmp_path, lines=frozenset(range(1, 14)), graphs=None)
    assert "scalar_index" in result.code


def test_a_zero_dim_index_keeps_the_gradient_bits(tmp_path: Path) -> None:
    """Under autograd the indexed element's gradient is copied into zeros,
    as ``select``'s backward copies it: a ``-0.0`` stays ``-0.0`` (a
    one-element index's own backward adds it to zeros, ``+0.0``)."""
    source = """
import torch


def row(values, offset, scale):
    i = offset + 0
    return (values[i] * scale).sum()


def column(values, offset, scale):
    i = offset + 0
    return (values[1:, i] * scale).sum()
"""
    original, mended, _ = mend_source(source, tmp_path, rules=["where"], lines=frozenset({7, 12}))
    start = torch.randn(4, 5)
    for name, picked in (("row", (2,)), ("column", (slice(1, None), 2))):
        grads = []
        for run in (getattr(original, name), torch.compile(getattr(mended, name), backend="eager")):
            values = start.clone().requires_grad_()
            out = run(values, torch.tensor(2), -0.0)
            out.backward()
            grads.append((out.detach(), values.grad))
        assert first_difference(grads[0], grads[1]) is None
        assert grads[1][1][picked].signbit().all()  # the -0.0 of `* -0.0` reached the gradient
        torch._dynamo.reset()
        explained = torch._dynamo.explain(getattr(mended, name))(start.clone().requires_grad_(), torch.tensor(2), -0.0)
        assert explained.graph_count == 1 and not explained.break_reasons


def test_a_zero_dim_index_is_a_fixable_break(tmp_path: Path) -> None:
    """diagnose sends a "Data dependent operator" break at an index to
    [Where], and mending from the diagnosis removes it and the reads the
    break hid; a break at ``.item()`` keeps its config hint."""
    import graphmend
    from graphmend.api import mend_report

    module = load_module(SCALAR_INDEX + "\n\ndef item(values, i):\n    return values[i].item() + 1\n", tmp_path)
    knots, coeffs, at = torch.linspace(0, 1, 6), torch.randn(2, 6, 3), torch.tensor(0.37)
    before = graphmend.diagnose(module.interpolate, knots, coeffs, at)
    assert before.break_count > 0 and all(b.fixable and b.rule == "where" for b in before.breaks)
    expected = module.interpolate(knots, coeffs, at)
    mend_report(module.interpolate, before, modules=[module.__name__])
    try:
        assert graphmend.diagnose(module.interpolate, knots, coeffs, at).break_count == 0
        assert torch.equal(torch.compile(module.interpolate, backend="eager")(knots, coeffs, at), expected)
    finally:
        graphmend.unmend(module.interpolate)
    report = graphmend.diagnose(module.item, torch.randn(4), torch.tensor(1))
    assert [(b.category, b.fixable) for b in report.breaks] == [("SCALAR", False)]
    assert "capture_scalar_outputs" in report.breaks[0].hint
