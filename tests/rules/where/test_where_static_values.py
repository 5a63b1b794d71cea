"""[Where] ``torch.arange(...).tolist()`` of Python ints as ``range`` (static values)
and ``pow(a, b)`` as ``a ** b`` (builtin operators).

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

import pytest
import torch

import graphmend.runtime
from harness import check_equivalent, mend_source
from where_support import fixture, t


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


# -- tensors made of Python values, read back: computed while tracing --------------


@pytest.mark.parametrize("function, args", [
    ("pooled", (t(1.0, -2.0), 56, 224)),
    ("pooled", (t(0.5, 3.0), 28, 224)),
    ("ranks", (t(1.0, 2.0),)),
    ("cumulative", (t(1.0, 2.0),)),
])
def test_a_tensor_made_of_python_values_is_read_while_tracing(tmp_path, function, args):
    """torchvision's multi-scale RoI pooler: the value is computed by the
    same torch operations while Dynamo traces, exact to the bit, in one
    graph (two breaks without the rewrite)."""
    result = check_equivalent(fixture("static_read"), function, [args], tmp_path, rules=["where"])
    assert "static_read" in result.code


def test_a_read_inside_a_conversion_is_read_once(tmp_path):
    """kornia's ``make_grid``: ``int(....item())``, the ``item()`` read
    while tracing, the ``int()`` of its number left as it is (the rewrite of
    the outer call used to raise on the inner one's result)."""
    source = fixture("static_read_inside_a_conversion")
    result = check_equivalent(source, "grid_rows", [(torch.ones(4, 3),), (torch.ones(9, 2),)], tmp_path,
                              rules=["where"])
    assert result.code.count("static_read") == 1


def test_another_value_recompiles_and_a_dynamic_one_reads_as_written(tmp_path):
    """A module attribute Dynamo guards: changed, the frame recompiles with
    the new constant.  An input float that changes becomes symbolic: the
    read breaks the graph, as it did, with the eager value."""
    original, mended, _ = mend_source(fixture("static_read"), tmp_path, rules=["where"])
    torch._dynamo.reset()
    pooler, reference = mended.MultiScaleRoIAlign([0.25, 0.125]), original.MultiScaleRoIAlign([0.25, 0.125])
    compiled = torch.compile(pooler, backend="eager")
    x = t(1.0, -2.0)
    for scale, feature_size in ((0.25, 56), (0.5, 56), (0.5, 28), (0.3, 35)):
        pooler.scales[0] = reference.scales[0] = scale
        assert torch.equal(compiled(x, feature_size, 224), reference(x, feature_size, 224))


@pytest.mark.parametrize("steps, read", [
    (((torch.tensor, (0.1243,), {}), ("log2", (), {}), ("round", (), {})), "float"),
    (((torch.tensor, (3,), {"dtype": torch.int64}), (torch.pow, (2,), {})), "int"),
    (((torch.tensor, ([1.5, -2.0],), {}), ("abs", (), {}), ("sum", (), {})), "item"),
    (((torch.tensor, ([0.0, 1.0],), {}), ("bool", (), {})), "tolist"),
    (((torch.tensor, (t(2.0),), {}), ("sqrt", (), {})), "float"),
])
def test_static_read_gives_what_the_operations_give(steps, read):
    (make, args, kwargs), *rest = steps
    value = make(*args, **kwargs)
    for callee, call_args, call_kwargs in rest:
        value = getattr(value, callee)(*call_args, **call_kwargs) if isinstance(callee, str) \
            else callee(value, *call_args, **call_kwargs)
    expected = {"float": float, "int": int, "item": lambda v: v.item(), "tolist": lambda v: v.tolist()}[read](value)
    got = graphmend.runtime.static_read(read, *steps)
    assert got == expected and type(got) is type(expected)


def test_diagnose_reports_a_static_read_as_fixable(tmp_path):
    from graphmend.diagnosis import diagnose

    original, _, _ = mend_source(fixture("static_read"), tmp_path, rules=["where"])
    sites = diagnose(original.cumulative, t(1.0, 2.0)).breaks
    assert sites and all((s.category, s.fixable, s.rule) == ("SCALAR", True, "where") for s in sites), sites
