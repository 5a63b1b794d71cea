"""[Where] ``if`` statements and conditional expressions: the mended code behaves like
the original, eagerly and compiled (one graph where fixable), and falls back at run time
to the original's choice, break and error.

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from graphmend.compare import first_difference
from graphmend.pipeline import transform_source
from harness import assert_same_outcome, check_equivalent, compiled_outcome, load_module, mend_source, outcome_of
from where_support import fixture, t


# -- outputs, eager and compiled, one graph ------------------------------------

EQUIVALENCE_CASES = {
    "else_less_update": ("scale_if_large", [(t(1, 2),), (t(-1, -2),)]),
    "if_else_both_bind": ("pick", [(t(3, 4), t(1, 2)), (t(0, 4), t(1, 2))]),
    "elif_chain": ("bucket", [(t(6, 7),), (t(1, 2),), (t(-1, -2),)]),
    # the if stays (a static test): its elif is mended alone
    "elif_of_a_static_if": ("damp", [(t(1, 2), None), (t(1, 2), 1.0), (t(1, 2), 5.0)]),
    "nested_if": ("nested", [(t(1, 2), t(1, 1)), (t(1, 2), t(-1, -1)), (t(-1, -2), t(1, 1))]),
    "nested_if_on_a_python_value_in_an_if_on_a_tensor": (
        "scaled", [(t(1, 2), t(3, 3), False), (t(1, 2), t(3, 3), None), (t(1, 2), t(3, 3), True),
                   (t(-1, -2), t(3, 3), False)],
    ),
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


TRUTH_ITEM_SOURCE = """
import torch


def by_truth(x, flag):
    if not flag.item():
        x = x * 2
    return x
"""


def test_the_truth_of_an_item_is_its_tensor_s(tmp_path: Path) -> None:
    # nan and -0.0 are the cases where a number's truth and a comparison's part; two
    # elements raise .item()'s own error (not bool()'s "ambiguous").
    flags = [torch.tensor([0.0]), torch.tensor(-0.0), torch.tensor(float("nan")), torch.tensor(3),
             torch.tensor([True]), torch.tensor(False), torch.tensor([1.0, 2.0])]
    arg_sets = [(torch.tensor([1.0, -2.0]), flag) for flag in flags]
    result = check_equivalent(TRUTH_ITEM_SOURCE, "by_truth", arg_sets[:-1], tmp_path, rules=["where"], lines=frozenset({6}))
    assert "_graphmend.truth_item(flag)" in result.code
    check_equivalent(TRUTH_ITEM_SOURCE, "by_truth", arg_sets[-1:], tmp_path, rules=["where"], lines=frozenset({6}),
                     graphs=None)


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
    original, mended, result = mend_source(fixture("else_less_update"), tmp_path, rules=["where"])
    assert result.sites
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        np.testing.assert_array_equal(original.scale_if_large(x), mended.scale_if_large(x))


NUMPY_TEST_SOURCE = """
import warnings

import numpy as np
import torch


def normalize(x):
    scale = (x.max(-1).values - x.min(-1).values) / 2.0
    if (np.asarray(scale) < 1e-7).any():
        warnings.warn("scale is below 1e-7", UserWarning)
    return x / (scale.unsqueeze(-1) + 1e-7)


def ambiguous(x):
    y = x * 2
    if np.asarray(x) > 0:
        y = y + 1
    return y
"""


def test_a_numpy_test_in_traced_code_is_a_tensor_test(tmp_path: Path) -> None:
    # pytorch-forecasting's EncoderNormalizer: Dynamo traces np.asarray(t) as
    # the tensor and breaks at the branch on it; the predicated form takes the
    # array as that tensor: one graph, the warning replayed after it exactly
    # where the original warns (no row of the second set has a spread).
    arg_sets = [(torch.tensor([[1.0, 3.0], [2.0, 5.0]]),), (torch.tensor([[1.0, 3.0], [2.0, 2.0]]),)]
    check_equivalent(NUMPY_TEST_SOURCE, "normalize", arg_sets, tmp_path, rules=["where", "defer"])


def test_a_numpy_test_of_more_than_one_element_raises_as_before(tmp_path: Path) -> None:
    # Statically the test is no tensor: a diagnosis names the line.
    arg_sets = [(t(1),), (t(-1),), (t(1, 2),)]
    check_equivalent(NUMPY_TEST_SOURCE, "ambiguous", arg_sets, tmp_path, rules=["where"], graphs=None,
                     lines=frozenset({17}))


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
        expected = outcome_of(original.double_if, t(1, 2), flag)
        assert first_difference(expected.value, outcome_of(mended.double_if, t(1, 2), flag).value) is None
        outcome, graphs = compiled_outcome(mended.double_if, t(1, 2), flag)
        assert first_difference(expected.value, outcome.value) is None
        # A Python flag is a constant to Dynamo: a false one leaves no tensor op.
        assert graphs == (0 if not isinstance(flag, torch.Tensor) and flag <= 0 else 1)


def test_mended_where_has_no_break_with_multi_element_branch_values(tmp_path: Path) -> None:
    _, mended, _ = mend_source(fixture("if_else_both_bind"), tmp_path, rules=["where"])
    _, graphs = compiled_outcome(mended.pick, torch.randn(4, 3), torch.randn(4, 3))
    assert graphs == 1


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
            assert_same_outcome(outcome_of(original.f, x, y), outcome_of(compiled, x, y), "compiled")


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


def test_an_arm_that_indexes_is_not_run_where_it_is_not_taken(tmp_path: Path) -> None:
    """An index out of range in the arm not taken: eager never sees it, so
    the compiled program must not fail on it (the arm is not merged)."""
    import graphmend

    module = load_module(fixture("noop_arm_indexes_with_a_tensor"), tmp_path)
    x, bad = -torch.ones(3), torch.tensor([-1, 5, 0])
    for function, args in ((module.pick, (x, bad, None)), (module.encode, (x, bad))):
        expected = outcome_of(function, *args)
        torch._dynamo.reset()
        assert_same_outcome(expected, outcome_of(graphmend.compile(function, backend="eager"), *args), function.__name__)
