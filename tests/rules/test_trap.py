"""[Trap]: original and mended guards agree eagerly and compiled, in one graph."""

from __future__ import annotations

import pytest
import torch

import graphmend

from harness import assert_same_outcome, check_equivalent, compiled_outcome, first_difference, mend_source, outcome_of
from locations import FIXTURES


class BadInput(Exception):
    """A user-defined exception both the original and the mended module import."""


class Box:
    """An object to store attributes into (Dynamo breaks at a store into a
    ``types.SimpleNamespace``; it traces a store into this)."""


GOOD, NEGATIVE = torch.tensor([1.0, 2.0]), torch.tensor([1.0, -2.0])


def test_builtin_exception_with_fstring_message(tmp_path):
    source = '''
def check(y, name):
    if (y < 0).any():
        raise ValueError(f"negative values in {name}: shape {y.shape}, dtype {y.dtype!r}")

def f(x):
    y = x * 2
    check(y, "input")
    return y + 1
'''
    result = check_equivalent(source, "f", [(GOOD,), (NEGATIVE,)], tmp_path, rules=["trap"])
    assert [s.what for s in result.sites] == ["raise guard -> deferred check"]


NAMED_CHECKS = {
    "raise guard": (ValueError, '''
def f(x, name):
    y = x * 2
    if (y < 0).any():
        raise ValueError(f"negative values in {name}: shape {x.shape}")
    return y + 1
'''),
    "assert": (AssertionError, '''
def f(x, name):
    y = x * 2
    assert not (y < 0).any(), f"negative values in {name}: shape {x.shape}"
    return y + 1
'''),
}


@pytest.mark.parametrize("form", NAMED_CHECKS)
def test_a_message_reading_an_argument_nothing_else_reads_keeps_the_break(tmp_path, form):
    """``name`` is a str the compiled frame is called with (a validation
    helper entered with each field's name, as from pydantic's C code), read by
    nothing but the message: built in the graph, the message made Dynamo
    guard on it, one graph per name and, past the recompile limit, the
    frame run eagerly.  The ``if`` (the ``assert``, whose message is not
    a constant) now breaks on the tensor, as the original's did, and the
    message is built eagerly."""
    from graphmend.diagnosis import GraphCounter

    raised, source = NAMED_CHECKS[form]
    original, mended, result = mend_source(source, tmp_path, rules=["trap"])
    assert result.sites
    names = [f"field{i}" for i in range(12)]
    counts = []
    for module in (original, mended):
        torch._dynamo.reset()
        counter = GraphCounter()
        compiled = torch.compile(module.f, backend=counter)
        for name in names:
            assert torch.equal(compiled(GOOD, name), module.f(GOOD, name))
        counts.append(counter.graphs)
        with pytest.raises(raised, match="negative values in field3: shape torch.Size"):
            compiled(NEGATIVE, "field3")
    assert counts[1] <= counts[0] == 2
    import graphmend

    (row,) = graphmend.diagnose(mended.f, GOOD, "field1", mended=False).breaks
    assert row.reason.startswith("rewritten, still breaks: graphmend: the message reads a str or number")


def test_noop_a_message_reading_an_argument_the_code_uses_is_deferred(tmp_path):
    """An argument the code reads before the guard is guarded on anyway:
    the check waits for the graph's end (one graph)."""
    source = '''
def f(x, scale):
    y = x * scale
    if (y < 0).any():
        raise ValueError(f"negative values after scaling by {scale}")
    return y + 1
'''
    check_equivalent(source, "f", [(GOOD, 2), (NEGATIVE, 2)], tmp_path, rules=["trap"])


def test_user_defined_exception_and_bare_raise(tmp_path):
    source = '''
import torch as t

from test_trap import BadInput


def f(x):
    if t.isnan(x).any():
        raise BadInput("nan in input", 3)
    if (x > 100).any(): raise BadInput
    return x.sum()
'''
    check_equivalent(
        source, "f",
        [(GOOD,), (torch.tensor([float("nan")]),), (torch.tensor([200.0]),)],
        tmp_path, rules=["trap"],
    )


def test_exception_class_defined_in_the_module(tmp_path):
    # Resolved by name in the module that raises it: the very same class.
    source = '''
class LocalError(Exception):
    pass


def f(x):
    if (x < 0).any():
        raise LocalError("negative")
    return x
'''
    _, mended, _ = mend_source(source, tmp_path, rules=["trap"])
    eager = outcome_of(mended.f, NEGATIVE)
    compiled, graphs = compiled_outcome(mended.f, NEGATIVE)
    assert eager.error == (mended.LocalError, "negative")
    assert_same_outcome(eager, compiled, "compiled")
    assert graphs == 1


def test_raises_after_earlier_messages_and_before_later_ones(tmp_path):
    source = '''
import logging

logger = logging.getLogger("gm.trap.order")


def f(x):
    print("before", x)
    logger.warning("checked %s", x)
    if (x < 0).any():
        raise ValueError("negative")
    print("after")
    return x * 2
'''
    check_equivalent(source, "f", [(GOOD,), (NEGATIVE,)], tmp_path, rules=["trap", "defer"])


def test_first_failing_check_wins(tmp_path):
    source = '''
def f(x):
    if (x < 0).any():
        raise ValueError("negative")
    if (x.abs() > 1).any():
        raise OverflowError("too large")
    return x
'''
    check_equivalent(
        source, "f", [(torch.tensor([0.5]),), (torch.tensor([-2.0]),), (torch.tensor([2.0]),)],
        tmp_path, rules=["trap"],
    )


def test_multi_element_condition_raises_the_same_ambiguity_error(tmp_path):
    source = '''
def f(x):
    if x > 0:
        raise ValueError("positive")
    return x
'''
    result = check_equivalent(source, "f", [(torch.tensor([1.0, 2.0]),)], tmp_path, rules=["trap"])
    assert result.changed


def test_python_bool_condition_raises_immediately(tmp_path):
    source = '''
def f(x, limit):
    if limit > 3:
        raise ValueError("limit too large")
    return x + limit
'''
    check_equivalent(source, "f", [(GOOD, 1), (GOOD, 5)], tmp_path, rules=["trap"], graphs=None)


def test_message_is_evaluated_only_when_raising_in_eager(tmp_path):
    source = '''
class Config:
    @property
    def name(self):
        print("name read")
        return "cfg"


config = Config()


def f(x):
    if (x < 0).any():
        raise ValueError(config.name)
    return x
'''
    _, mended, result = mend_source(source, tmp_path, rules=["trap"])
    assert [site.rule for site in result.sites] == ["trap"]
    assert outcome_of(mended.f, GOOD).stdout == ""
    assert outcome_of(mended.f, NEGATIVE).stdout == "name read\n"


def test_later_python_raise_does_not_overtake_the_deferred_check(tmp_path):
    # Dynamo ends the graph before a Python ``raise`` or failing ``assert``,
    # so the deferred check, replayed there, raises first as in eager code.
    source = '''
def f(x, n):
    if (x < 0).any():
        raise ValueError("negative")
    if n > 3:
        raise KeyError("n too large")
    assert n != 2, "n is two"
    return x * n
'''
    check_equivalent(
        source, "f", [(GOOD, 1), (NEGATIVE, 5), (NEGATIVE, 2), (GOOD, 5), (GOOD, 2)],
        tmp_path, rules=["trap"], graphs=None,
    )


def test_guard_in_an_inlined_helper(tmp_path):
    # The helper is inlined into the compiled caller; its check is replayed
    # after the caller's graph, after the message printed before the call.
    source = '''
def validate(x):
    if (x < 0).any():
        raise ValueError("negative")
    return x


def f(x):
    y = x * 2
    print("validating")
    z = validate(y)
    print("validated")
    return z + 1
'''
    check_equivalent(source, "f", [(GOOD,), (NEGATIVE,)], tmp_path, rules=["trap", "defer"])


def test_a_helper_that_updates_only_its_own_tensor_after_the_guard(tmp_path):
    """torchani's ``coords_to_fractional`` shape: the helper after the guard
    updates in place a tensor it made itself, which no caller can see, so
    the check may wait for the graph's end; one graph, the same raise."""
    source = FIXTURES.joinpath("trap", "helper_updates_its_own_tensor_after_the_guard.in.py").read_text()
    # Without [Capture] the mask store is a break of its own: an update in place that makes no shape.
    source = source.replace("out[out >= 1.0] -= 1.0", "out.clamp_(0.0, 0.75)")
    zero = torch.tensor([0.5, 0.0, 2.25])
    check_equivalent(source, "f", [(torch.tensor([0.5, -1.25, 2.25]),), (zero,)], tmp_path, rules=["trap"])


def test_a_list_of_floats_the_function_makes_after_the_guard_lets_the_check_wait(tmp_path):
    """rtdl-num-embeddings' ``compute_bins`` shape: after the guard the
    function fills a list it made of ``float()``s, which no caller can see
    (``float`` hands back a new number, nothing of its argument)."""
    source = FIXTURES.joinpath("trap", "append_to_a_list_of_floats_after.in.py").read_text()
    thresholds = [torch.tensor(0.25), torch.tensor(-0.5)]
    good = torch.tensor([0.5, -1.0, 2.0])
    check_equivalent(source, "bin_edges", [(good, thresholds), (torch.tensor([0.5, float("nan")]), thresholds)],
                     tmp_path, rules=["trap"], graphs=None)
    original, mended, _ = mend_source(source, tmp_path, rules=["trap"])
    # The guard's break is gone; each float() still breaks (no [Capture] here).
    assert compiled_outcome(mended.bin_edges, good, thresholds)[1] == 2
    assert compiled_outcome(original.bin_edges, good, thresholds)[1] == 3


def test_a_list_the_function_fills_and_pads_to_its_longest_after_the_guard_lets_the_check_wait(tmp_path):
    """Phi-4 multimodal's image processor shape: ``max`` of the sizes of a
    list the function filled, over a comprehension, binds nothing of the
    caller's; the same raise and pass, eagerly and compiled."""
    source = FIXTURES.joinpath("trap", "pad_to_the_longest_of_a_list_it_fills_after.in.py").read_text()
    images = [torch.arange(3.0), torch.arange(5.0)]
    check_equivalent(source, "stack_padded", [(images, torch.tensor(2.0)), (images, torch.tensor(-1.0))],
                     tmp_path, rules=["trap"], graphs=None)


def test_an_update_through_a_tuple_of_the_inputs_after_the_guard_keeps_the_break(tmp_path):
    """``tuple(others)`` hands back the caller's tensors: updated in place in
    the graph, they would change before a deferred check raised.  The guard
    stays, and the caller's tensor is untouched when it raises, as eagerly."""
    source = FIXTURES.joinpath("trap", "noop_update_through_a_tuple_of_inputs_after.in.py").read_text()
    original, _, result = mend_source(source, tmp_path, rules=["trap"])
    assert not result.sites
    other = torch.zeros(2)
    with pytest.raises(ValueError, match="negative"):
        graphmend.compile(original.bump_the_first, backend="eager")(NEGATIVE.clone(), [other])
    assert torch.equal(other, torch.zeros(2))


@pytest.mark.parametrize(("case", "inputs"), [
    # torchani's lower_image_pairs_between: ``Tensor.repeat`` makes a new tensor, then ``add_`` into it
    ("helper_updates_a_repeated_tensor_after_the_guard",
     [(torch.tensor([2, 1, 3]), torch.tensor([1, 3]), torch.tensor([0, 5])),
      (torch.tensor([2, 0, 3]), torch.tensor([1, 3]), torch.tensor([0, 5]))]),
    # torchani's cumsum_from_zero: ``out=`` into a slice of a ``zeros_like`` it made
    ("helper_writes_out_into_its_own_tensor_after_the_guard",
     [(torch.tensor([2, 1, 3]),), (torch.tensor([2, -1, 3]),)]),
])
def test_a_helper_that_writes_only_into_a_tensor_it_made_after_the_guard(tmp_path, case, inputs):
    """The helper's writes touch nothing a caller sees: the check waits for
    the graph's end; the same raise and pass, eagerly and compiled, one graph."""
    source = FIXTURES.joinpath("trap", f"{case}.in.py").read_text()
    check_equivalent(source, "f", inputs, tmp_path, rules=["trap"])


_FAILS_LATER = '''
import torch


def f(x):
    if (x < 0).any():
        raise ValueError("negative")
    print("checked")
    return x + x[:1].repeat(3)
'''


def test_a_later_error_met_while_tracing_does_not_overtake_the_check(tmp_path):
    # Without the break at the guard, Dynamo meets the shape error of the
    # last line while tracing.  The frame then runs eagerly: the check
    # raises first, or the print happens and the plain RuntimeError follows,
    # exactly as in the original eagerly.
    original, mended, result = mend_source(_FAILS_LATER, tmp_path, rules=["trap", "defer"])
    assert [site.rule for site in result.sites] == ["trap", "defer"]
    for x in (GOOD, NEGATIVE):
        expected = outcome_of(original.f, x)
        actual, _ = compiled_outcome(mended.f, x)
        assert expected.error[0] in (ValueError, RuntimeError)
        assert_same_outcome(expected, actual, "compiled")


def test_fullgraph_keeps_dynamos_error(tmp_path):
    import pytest

    _, mended, _ = mend_source(_FAILS_LATER, tmp_path, rules=["trap", "defer"])
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.TorchRuntimeError):
        torch.compile(mended.f, backend="eager", fullgraph=True)(GOOD)


def test_guard_before_an_update_of_a_fresh_view_is_deferred(tmp_path):
    """linear_operator's psd_safe_cholesky: after the NaN guard it adds
    jitter to the diagonal of a clone, in place through a view.  The clone
    is the function's own (torch's operations make new tensors), so the
    update is gone with the raise and the check may wait for the graph's end."""
    source = (FIXTURES / "trap" / "update_of_fresh_view_after.in.py").read_text()
    matrix = torch.eye(3) * 2
    nan = matrix.clone()
    nan[0, 1] = float("nan")
    result = check_equivalent(source, "add_jitter", [(matrix,), (nan,)], tmp_path, rules=["trap"])
    assert [s.what for s in result.sites] == ["raise guard -> deferred check"]



def test_right_operand_with_literal_indices_is_deferred(tmp_path):
    """torchdiffeq's grid check: ``t[-1]`` in the right operand of ``or``
    can only fail while Dynamo traces, so the guard is deferred, one graph."""
    source = (FIXTURES / "trap" / "or_with_literal_indices.in.py").read_text()
    grid, t = torch.tensor([0.0, 0.5, 1.0]), torch.tensor([0.0, 1.0])
    result = check_equivalent(
        source, "integrate",
        [(grid, t, GOOD), (grid + 1, t, GOOD), (grid * 2, t, GOOD), (grid, t[:1], GOOD)],
        tmp_path, rules=["trap"],
    )
    assert [s.what for s in result.sites] == ["raise guard -> deferred check"]


def test_an_index_computed_from_the_tested_tensor_keeps_the_guard(tmp_path):
    """nflows' rational-quadratic spline: the domain guard's input becomes,
    through ``searchsorted``, the index of a ``gather``.  Deferred, the check
    of an input outside the domain would come after the gather's RuntimeError
    (index out of bounds) inside the graph; so the guard stays, with its break."""
    source = """
import torch


def spline(inputs, cumwidths, widths):
    if torch.min(inputs) < 0.0 or torch.max(inputs) > 1.0:
        raise ValueError("input outside the domain")
    bin_idx = torch.sum(inputs[..., None] >= cumwidths, dim=-1) - 1
    bin_idx = bin_idx[..., None]
    return widths.gather(-1, bin_idx)[..., 0]
"""
    cumwidths = torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0]).repeat(2, 1)
    widths = torch.tensor([0.25, 0.25, 0.25, 0.25]).repeat(2, 1)
    inside, above, below = torch.tensor([0.1, 0.6]), torch.tensor([0.1, 1.5]), torch.tensor([-0.5, 0.6])
    result = check_equivalent(
        source, "spline", [(inside, cumwidths, widths), (above, cumwidths, widths), (below, cumwidths, widths)],
        tmp_path, rules=["trap"], graphs=None, rewritten=False,
    )
    assert not result.sites and "computed from the tested tensor" in result.skips[0].reason


def test_a_tensor_index_after_the_guard_keeps_the_guard(tmp_path):
    """An index the function computes from other data than the tested
    tensor: given an input the guard rejects and an index out of range,
    eager code raises the guard's ValueError first; deferred, the IndexError
    inside the graph would come first.  So the guard stays."""
    source = """
import torch


def lookup(x, table):
    if (x < 0).any():
        raise ValueError("negative input")
    rows = torch.argmax(table, dim=1) - 5
    return table[rows] + x
"""
    table = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    result = check_equivalent(
        source, "lookup", [(torch.tensor([-1.0, 2.0]), table), (torch.tensor([1.0, 2.0]), table)],
        tmp_path, rules=["trap"], graphs=None, rewritten=False,
    )
    assert not result.sites and "`rows` indexes with a tensor" in result.skips[0].reason


def test_a_call_that_rejects_values_after_the_guard_keeps_the_guard(tmp_path):
    """A singular matrix makes ``torch.linalg.solve`` raise inside the graph:
    with a ``b`` the guard rejects as well, eager code raises its ValueError
    first."""
    source = """
import torch


def solve(a, b):
    if not torch.isfinite(b).all():
        raise ValueError("b is not finite")
    return torch.linalg.solve(a, b)
"""
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    result = check_equivalent(
        source, "solve", [(singular, torch.tensor([1.0, float("nan")])), (torch.eye(2), torch.tensor([1.0, 2.0]))],
        tmp_path, rules=["trap"], graphs=None, rewritten=False,
    )
    assert not result.sites and "rejects some values" in result.skips[0].reason


def test_torch_equal_with_a_fresh_operand_is_a_deferred_check(tmp_path):
    """pytorch-ignite's binary check ``if not torch.equal(y, y ** 2): raise``:
    ``torch.equal`` is a Python bool Dynamo reads back (a break); under
    torch.compile it is ``(y == y ** 2).all()``, so the check is deferred and
    the whole function is one graph.  The first failing check wins, NaN is
    unequal to itself as in ``torch.equal``; other dtypes keep the break."""
    source = (FIXTURES / "trap" / "equal.in.py").read_text()
    t = torch.tensor
    rows = [(t([0, 1, 1]), t([1, 1, 0])), (t([0, 2, 1]), t([1, 1, 0])), (t([0, 1, 1]), t([1, 1, -1])),
            (t([0, 2, 1]), t([3, 1, 0])), (t([0.0, 1.0]), t([float("nan"), 1.0])), (t([0.0, 1.0]), t([1.0, -0.0])),
            (t([]), t([]))]
    result = check_equivalent(source, "binary_check", rows, tmp_path, rules=["trap"])
    assert [s.what for s in result.sites][:2] == ["raise guard -> deferred check"] * 2
    # Two names (maybe one tensor, which torch.equal may answer from memory): torch.equal stays.
    check_equivalent(source, "same_values", [(t([1.0, 2.0]), t([1.0, 2.0])), (t([1.0]), t([2.0]))], tmp_path,
                     rules=["trap"], graphs=None)
    promoted = """
import torch


def f(y):
    if not torch.equal(y, y * 1.0):
        raise ValueError("not whole numbers")
    return y + 1
"""
    check_equivalent(promoted, "f", [(t([0, 3]),), (t([0.0, 3.0]),), (t([0.5]),)], tmp_path, rules=["trap"], graphs=None)


def test_diagnose_reports_a_torch_equal_guard_as_fixable(tmp_path):
    """Dynamo names ``aten.equal`` a "Data dependent operator" (OTHER); at a
    guard it is a GUARD [Trap] fixes, so mending from the diagnosis reaches
    it too, and leaves one graph."""
    from graphmend.api import mend_report
    from graphmend.diagnosis import diagnose
    from graphmend.mending.live import unmend

    source = (FIXTURES / "trap" / "equal.in.py").read_text()
    original, _, _ = mend_source(source, tmp_path, rules=["trap"])
    args = (torch.tensor([0, 1, 1]), torch.tensor([1, 1, 0]))
    report = diagnose(original.binary_check, *args)
    assert [(b.category, b.fixable, b.rule) for b in report.breaks] == [("GUARD", True, "trap")] * 2
    mend_report(original.binary_check, report, modules=[original.__name__])
    try:
        assert diagnose(original.binary_check, *args).breaks == []
    finally:
        unmend(original.binary_check)


def test_right_operand_index_out_of_range_is_left_to_python(tmp_path):
    # ``y[2]`` of a 2-element ``y`` raises while traced: the left side
    # decides as in Python (no error when it is False), at the cost of the break.
    source = """
def f(x, y):
    if (x < 0).any() and y[2] > 0:
        raise ValueError("negative input")
    return x + 1
"""
    pair, triple = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0])
    check_equivalent(source, "f", [(GOOD, pair), (NEGATIVE, pair)], tmp_path, rules=["trap"], graphs=None)
    check_equivalent(source, "f", [(GOOD, triple), (NEGATIVE, triple)], tmp_path, rules=["trap"])



def test_assert_behind_a_deferred_guard_is_checked_after_it(tmp_path):
    """Dynamo compiles ``assert tensor`` into an assertion inside the graph,
    which would fail (RuntimeError) before the deferred guard above it
    raises; checked in Python, the assert lets the guard's ValueError come
    first, as eagerly."""
    source = (FIXTURES / "trap" / "assert_behind_a_deferred_guard.in.py").read_text()
    table, bad_table = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, -2.0, 3.0])
    ids, bad_ids = torch.tensor([0, 2]), torch.tensor([0, 5])
    arg_sets = [(table, ids), (bad_table, ids), (bad_table, bad_ids)]
    check_equivalent(source, "lookup", arg_sets, tmp_path, rules=["trap"], graphs=None)
    # The assert alone failing: Dynamo's RuntimeError, as for the original.
    original, mended, _ = mend_source(source, tmp_path, rules=["trap"])
    assert_same_outcome(compiled_outcome(original.lookup, table, bad_ids)[0],
                        compiled_outcome(mended.lookup, table, bad_ids)[0], "compiled")
    # Holding, with a message that reads a tensor's value, it costs one
    # break (inside the check), not a second one for the message.
    source = source.replace("assert (ids < table.shape[0]).all()",
                            "assert (ids < table.shape[0]).all(), 'id {} too large'.format(ids.max().item())")
    original, mended, result = mend_source(source, tmp_path, rules=["trap"])
    assert "checked_in_python" in result.code
    check_equivalent(source, "lookup", arg_sets, tmp_path, rules=["trap"], graphs=None)
    breaks = []
    for function in (original.lookup, mended.lookup):
        torch._dynamo.reset()
        breaks.append(torch._dynamo.explain(function)(table, ids).graph_break_count)
    assert breaks == [2, 1], breaks  # the guard's break is gone, the assert's stays


def test_undiagnosed_assert_behind_a_deferred_print_is_deferred(tmp_path):
    """Dynamo breaks at the print, not at the assert (compiled as an
    assertion inside the graph), so a diagnosis names the print's line
    only.  With the print deferred, the assert must be deferred too, or it
    would fail inside the graph before the print is replayed."""
    from graphmend.pipeline import transform_source
    from harness import load_module

    source = """
import torch


def f(x):
    print("checking", x.shape)
    assert torch.isfinite(x).all()
    return x * 2
"""
    result = transform_source(source, lines=frozenset({6}))
    assert [site.what for site in result.sites] == ["print -> deferred", "assert -> deferred check"]
    original, mended = load_module(source, tmp_path, "orig"), load_module(result.code, tmp_path, "mended")
    for x in (GOOD, torch.tensor([1.0, float("inf")])):
        expected = outcome_of(original.f, x)
        outcome, graphs = compiled_outcome(mended.f, x)
        assert_same_outcome(expected, outcome, "compiled")
        assert graphs == 1


ALIAS_CASES = {
    # (statements, name, may share a tensor with a parameter)
    "torch_operation": ("b = torch.exp(a)", "b", False),
    "clone_then_view": ("b = a.clone().diagonal()", "b", False),
    "view_function": ("b = torch.as_tensor(a)", "b", True),
    "out_argument": ("b = torch.linalg.cholesky(c, out=a)", "b", True),
    "inplace_keyword": ("b = torch.nn.functional.relu(a, inplace=True)", "b", True),
    "in_place_function": ("b = torch.relu_(a)", "b", True),
    "higher_order": ("b = torch.utils.checkpoint.checkpoint(fn, a)", "b", True),
    "unknown_call": ("b = helper(a)", "b", True),
}


@pytest.mark.parametrize("name", sorted(ALIAS_CASES))
def test_which_locals_are_the_functions_own(name):
    import ast

    import libcst as cst

    from graphmend.analysis.effects import fresh_locals
    from graphmend.analysis.facts import FunctionFacts, Metadata
    from graphmend.analysis.source import ModuleNames

    statements, local, shared = ALIAS_CASES[name]
    source = f"import torch\n\n\ndef f(a, c, fn):\n    {statements}\n    return b\n"
    module = cst.parse_module(source)
    facts = FunctionFacts(module.body[1], Metadata(module, None, ModuleNames.of(ast.parse(source))))
    assert (local not in fresh_locals(facts.function, facts.alias_classes)) is shared


def test_message_indexing_a_tensor_with_literals(tmp_path):
    """kornia's crop_by_boxes: the message shows ``bbox[0]`` and ``bbox[1]``.
    An integer index out of range raises while traced (the message of the
    second check reads ``x[4]`` of three elements): the check then runs
    the original way, and the message is built only to raise it."""
    source = (FIXTURES / "trap" / "message_indexes_a_tensor.in.py").read_text()
    same, ragged = torch.tensor([[2.0, 2.0], [3.0, 3.0]]), torch.tensor([[2.0, 1.0], [3.0, 3.0]])
    five, negative_five = torch.arange(5.0), torch.tensor([1.0, 2.0, -3.0, 4.0, 5.0])
    arg_sets = [(same, five), (ragged, five), (same, negative_five), (ragged, negative_five)]
    check_equivalent(source, "crop", arg_sets, tmp_path, rules=["trap"])
    three, negative_three = torch.arange(3.0), torch.tensor([1.0, -2.0, 3.0])
    check_equivalent(source, "crop", [(same, three), (same, negative_three)], tmp_path, rules=["trap"], graphs=None)


def test_a_passing_check_does_not_format_its_message(tmp_path, monkeypatch):
    """The original formats ``f"... {x}"`` only when it raises.  Deferred,
    the message travels as a template and snapshots, formatted only if the
    check fails (formatting a tensor reads its data: a device sync on every
    call otherwise)."""
    import torch._tensor_str

    source = """
import torch


def f(x):
    if (x < 0).any():
        raise ValueError(f"negative values: {x} (min {x.min()})")
    if (x > 100).any():
        raise ValueError("too large: {}".format(x.max()))
    return x * 2
"""
    original, mended, result = mend_source(source, tmp_path, rules=["trap"])
    assert result.code.count("lazy_format") == 2, result.code
    formatted = []
    real = torch._tensor_str._str
    monkeypatch.setattr(torch._tensor_str, "_str", lambda *a, **k: formatted.append(1) or real(*a, **k))
    outcome, graphs = compiled_outcome(mended.f, GOOD)
    assert outcome.error is None and graphs == 1 and not formatted
    check_equivalent(source, "f", [(GOOD,), (NEGATIVE,), (torch.tensor([1.0, 200.0]),)], tmp_path, rules=["trap"])


def test_a_message_showing_a_tensor_that_requires_grad(tmp_path):
    """Under autograd the tensor travels as it is (its text shows its
    ``grad_fn``, which a copy would change): one graph, the same message."""
    source = """
import torch


def f(x):
    y = x * 2
    if (y > 100).any():
        raise ValueError(f"too large: {y}")
    return y.sum()
"""
    original, mended, _ = mend_source(source, tmp_path, rules=["trap"])
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 200.0])):
        expected = outcome_of(original.f, x.clone().requires_grad_())
        outcome, graphs = compiled_outcome(mended.f, x.clone().requires_grad_())
        assert_same_outcome(expected, outcome, "compiled")
        assert graphs == 1


def test_a_message_reading_a_float(tmp_path):
    """kornia's rotation check: ``{float(err.max())}`` travels as a float64
    tensor and becomes the same Python float, only if the check fails; a
    tensor ``float()`` refuses (several elements) falls back to the
    original check."""
    source = (FIXTURES / "trap" / "message_reads_a_float.in.py").read_text()
    rotation = torch.tensor([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    reflection = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])
    skewed = torch.tensor([[1.0, 0.3, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    check_equivalent(source, "check_rotation", [(rotation,), (reflection,), (skewed,)], tmp_path, rules=["trap"])
    several = source.replace("float(R.sum())", "float(R[0])")
    check_equivalent(several, "check_rotation", [(rotation,), (reflection,)], tmp_path, rules=["trap"], graphs=None)


ASSERT_BEHIND_A_WHERE = """
import torch


def f(x, ns, outs):
    {before}
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    assert (y < 100).all()
    outs.append(y)
    return y
"""


@pytest.mark.parametrize("before, breaks", [("pass", 0), ("ns.seen = x.shape[0]", 1), ("x.mul_(1.0)", 1)],
                         ids=["nothing_waits", "a_store_waits", "an_update_in_place_waits"])
def test_assert_behind_a_where_stays_in_the_graph_unless_effects_wait(tmp_path, before, breaks):
    """[Trap] leaves the assert alone (``outs.append`` follows it) and [Where]
    removed the break before it: with nothing waiting for the graph's end,
    the assert stays inside the graph, as the original's did in its second
    graph; with a store or an update in place waiting (a compiler may write
    an input back only at the graph's end), it is checked in Python (one
    break), so that they happen before the assert fails, as eagerly."""
    source = ASSERT_BEHIND_A_WHERE.format(before=before)
    original, mended, result = mend_source(source, tmp_path, rules=["where", "trap"])
    assert "checked_in_python" in result.code
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([-1.0, -2.0])):
        check_equivalent(source, "f", [(x, Box(), [])], tmp_path, rules=["where", "trap"])
        torch._dynamo.reset()
        assert len(torch._dynamo.explain(mended.f)(x, Box(), []).break_reasons) == breaks
    # Failing inside the graph, as the original's assert does in its graph;
    # the store before it (when there is one) happened, as eagerly.
    big = torch.tensor([80.0, 90.0])
    outcomes = []
    for module in (original, mended):
        ns = Box()
        outcome, _ = compiled_outcome(module.f, big, ns, [])
        outcomes.append((outcome, sorted(vars(ns))))
    assert_same_outcome(outcomes[0][0], outcomes[1][0], "compiled")
    assert outcomes[0][1] == outcomes[1][1] == (["seen"] if before.startswith("ns.") else [])


STORES_AROUND_A_GUARD = """
import torch

from test_trap import Box

CALLS = 0


def solve(x, box):
    state = Box()
    state.start = x * 2
    {before}
    validate(state, x)
    return state.start + 1


def validate(state, x):
    global CALLS
    state.checked = True
    if (x < 0).any():
        raise ValueError("negative")
    CALLS = CALLS + 1
    state.done = True
"""


@pytest.mark.parametrize("before, graphs", [("pass", 1), ("box.seen = 1", 2), ("box.seen = Box()", 2)],
                         ids=["stores_into_new_objects", "a_store_into_an_older_object",
                              "an_older_object_holds_a_new_one"])
def test_stores_around_a_deferred_check(tmp_path, before, graphs):
    """Dynamo applies the frame's stores after the graph's replayed calls,
    so a deferred check that fails skips them.  After the guard that is
    what the original does (the global and the state's ``done``).  Before
    it, a store into an object the frame made is lost unseen; one into an
    object from before the frame (``box``) would be lost where the original
    made it, so the check is taken in Python there (one break)."""
    source = STORES_AROUND_A_GUARD.format(before=before)
    original, mended, result = mend_source(source, tmp_path, rules=["trap"])
    assert [s.what for s in result.sites] == ["raise guard -> deferred check"]
    for x in (GOOD, NEGATIVE):
        box = Box()
        expected = outcome_of(original.solve, x, box)
        seen_after_original = (sorted(vars(box)), original.CALLS)
        box = Box()
        outcome, graph_count = compiled_outcome(mended.solve, x, box)
        assert_same_outcome(expected, outcome, "compiled")
        assert (sorted(vars(box)), mended.CALLS) == seen_after_original
        assert graph_count == graphs


def test_a_callers_store_before_a_deferred_check_is_kept(tmp_path):
    """The guard's own function stores nothing, but its caller, compiled
    into the same graph, stored into an object from before the frame:
    deferred, the failing check would lose that store, so it is checked
    in Python (one break) and the store is made, as eagerly."""
    source = '''
def outer(x, box):
    box.seen = 1
    return check(x + 1)


def check(x):
    if (x < 0).any():
        raise ValueError("negative")
    return x * 2
'''
    original, mended, result = mend_source(source, tmp_path, rules=["trap"])
    assert [s.what for s in result.sites] == ["raise guard -> deferred check"]
    for x in (GOOD, NEGATIVE):
        box = Box()
        expected = outcome_of(original.outer, x, box)
        stored_eagerly = sorted(vars(box))
        box = Box()
        outcome, _ = compiled_outcome(mended.outer, x, box)
        assert_same_outcome(expected, outcome, "compiled")
        assert sorted(vars(box)) == stored_eagerly == ["seen"]
    torch._dynamo.reset()
    (reason,) = torch._dynamo.explain(mended.outer)(GOOD, Box()).break_reasons
    assert "a store into an object from before the frame" in reason.reason
    torch._dynamo.reset()
    assert len(torch._dynamo.explain(mended.check)(GOOD).break_reasons) == 0


def test_a_message_reading_values_into_python(tmp_path):
    """``.item()``, ``.tolist()``, ``int``, ``bool``, ``str``, ``repr`` and
    ``torch.unique`` of tensors in a message are made after the graph, only
    when the check fails, from the values at the guard: one graph (no
    break for ``unique``'s shape), the same message (a tensor that requires
    grad shows its ``grad_fn``, a unique of it ``Unique2Backward0``)."""
    source = '''
import torch


def f(A, dt, t0):
    isnan = torch.isnan(A)
    if isnan.any():
        raise ValueError(f"{isnan.sum().item()} of {A.numel()} elements are NaN")
    assert t0 + dt > t0, 'underflow in dt {}'.format(dt.item())
    y = A * dt
    if (A.sum(0) <= 0).any():
        raise ValueError(f"column sums {A.sum(0).tolist()}, first {int(A[0, 0])}, bad {bool(A[0, 0] < 0)}",
                         str(y), repr(dt), f"values {torch.unique(y)} {A.unique()}")
    return y
'''
    result = check_equivalent(source, "f", [
        (torch.ones(2, 2), torch.tensor(0.5), torch.tensor(1.0)),
        (torch.tensor([[1.0, float("nan")], [0.0, 1.0]]), torch.tensor(0.5), torch.tensor(1.0)),
        (torch.ones(2, 2), torch.tensor(1e-30), torch.tensor(1.0)),
        (torch.tensor([[-1.0, 2.0], [-3.0, 1.0]]), torch.tensor(0.5), torch.tensor(1.0)),
        (torch.tensor([[-1.0, 2.0], [-3.0, 1.0]]), torch.tensor(0.5, requires_grad=True), torch.tensor(1.0)),
    ], tmp_path, rules=["trap"])
    assert [s.what for s in result.sites] == ["raise guard -> deferred check", "assert -> deferred check",
                                              "raise guard -> deferred check"]
    assert result.code.count("message_read(") == 9


def test_a_message_reading_unique_values_through_another_reader(tmp_path):
    """``len``, ``.tolist()`` and ``str`` of unique values (the binding a
    message reads through them, or the call written in the message) are
    made after the graph, both reads, only when the check fails: one graph
    and the same message.  A one-element reader of them (``float``) is
    declined: how many values there are, only the data tells."""
    source = (FIXTURES / "trap" / "unique_read_through_another_reader.in.py").read_text()
    labels = [(torch.tensor([0, 2, 1, 2]), 3), (torch.tensor([0, 5, 1, 5, 7]), 3), (torch.tensor([4.0, 4.0]), 3)]
    result = check_equivalent(source, "check_labels", labels, tmp_path, rules=["trap"])
    assert "message_read(\"len\", _graphmend.message_read(\"torch.unique\", target))" in result.code
    check_equivalent(source, "written_in_the_message", [(GOOD,), (NEGATIVE,), (NEGATIVE.clone().requires_grad_(),)], tmp_path,
                     rules=["trap"])
    declined = (FIXTURES / "trap" / "noop_message_computes_with_unique_values.in.py").read_text()
    result = check_equivalent(declined, "one_value", [(GOOD,), (torch.tensor([-1.0, -1.0]),), (NEGATIVE,)], tmp_path,
                              rules=["trap"], graphs=None, rewritten=False)
    assert "how many there are, only the data tells" in result.skips[-1].reason


def test_a_read_the_tensor_refuses_falls_back_to_the_original_check(tmp_path):
    """``.item()`` of several elements raises in the original only when the
    check fails (building the message); traced, it is refused while the
    message is built, so the check runs the original way: the same error
    when it fails, nothing when it passes."""
    source = '''
def f(x):
    if (x < 0).any():
        raise ValueError(f"first {x.item()}")
    return x * 2
'''
    check_equivalent(source, "f", [(GOOD,), (NEGATIVE,), (torch.tensor([-1.0]),)], tmp_path, rules=["trap"],
                     graphs=None)


UPDATES_AFTER_A_GUARD = """
import torch

from test_trap import Box


def step(state, x, out=None):
    if (x < 0).any():
        raise ValueError("negative")
    state.count += 1
    torch.mul(x, 2, out=out)
    return x + 1
"""


@pytest.mark.parametrize("count, out, graphs", [(0, False, 1), (torch.tensor(0), False, 2), (0, True, 2)],
                         ids=["a_number_and_no_out", "a_tensor_counter", "an_out_tensor"])
def test_updates_after_a_guard_through_what_holds_no_tensor(tmp_path, count, out, graphs):
    """``state.count += 1`` and ``out=out`` after the guard write no tensor
    when ``state.count`` is a number and ``out`` None at the guard (checked
    while tracing): the check waits for the graph's end and a failing one
    leaves ``state.count`` as the original's raise did.  A tensor counter
    (BatchNorm's ``num_batches_tracked``) or an ``out`` tensor would be
    written inside the graph before the check: checked in Python (a break)."""
    original, mended, result = mend_source(UPDATES_AFTER_A_GUARD, tmp_path, rules=["trap"])
    assert "untouched=lambda out=out, state=state: (state.count, out)" in result.code
    for x in (GOOD, NEGATIVE):
        seen = []
        for module, run in ((original, outcome_of), (mended, compiled_outcome)):
            state = Box()
            state.count = count.clone() if isinstance(count, torch.Tensor) else count
            target = torch.zeros(2) if out else None
            outcome = run(module.step, state, x.clone(), target)
            outcome, graph_count = outcome if isinstance(outcome, tuple) else (outcome, None)
            seen.append((outcome, state.count, target))
        assert_same_outcome(seen[0][0], seen[1][0], "compiled")
        assert first_difference(seen[0][1:], seen[1][1:]) is None
        if x is GOOD:
            assert graph_count == graphs


@pytest.mark.parametrize("message", ['("bad {}" " here").format(x.sum().item())', '(f"bad {x.sum().item()}",)',
                                     "f\"bad {'{}'.format(x.sum().item())}\""],
                         ids=["concatenated_literal_format", "fstring_in_a_tuple", "format_in_a_field"])
def test_a_read_formatted_while_tracing_declines_the_guard(tmp_path, message):
    """A read only the replay formats may wait for it: the message itself,
    a tuple's element, a field of the message's f-string, an argument of
    its literal's ``.format``.  Inside a string that is made while tracing
    (a concatenated literal's ``.format``, an f-string in a tuple or in a
    field) the read would be formatted as graphmend's token: declined, and
    the message is the original's."""
    source = f'''
def f(x):
    if (x < 0).any():
        raise ValueError({message})
    return x * 2
'''
    result = check_equivalent(source, "f", [(GOOD,), (NEGATIVE,)], tmp_path, rules=["trap"], graphs=None, rewritten=False)
    assert not result.sites
    assert "for more than its text" in result.skips[0].reason


UNIQUE_READ_BY_TESTS = (FIXTURES / "trap" / "unique_read_by_tests.in.py").read_text()


def test_unique_read_only_by_tests_stays_in_the_graph(tmp_path):
    """torchmetrics' label check: the test reads the target itself under
    torch.compile (one graph), and a failing check shows the unique values,
    eagerly and compiled, as the original does."""
    binary = torch.tensor([0, 1, 1, 0])
    floats = torch.tensor([0.2, 0.9, 0.4, 0.7])
    labels = torch.tensor([1, 0, 1, 1])
    cases = [
        (floats, binary), (floats, binary, -1), (floats, torch.tensor([0, 2, 1, 2])),
        (floats, torch.tensor([0, -1, 1, 1]), -1), (floats, torch.tensor([0, -1, 1, 3]), -1),
        (labels, binary), (torch.tensor([1, 3, 1, 1]), binary), (floats, torch.zeros(0, dtype=torch.long)),
        (floats.requires_grad_(), binary.float()), (floats, torch.tensor([0.0, float("nan"), 1.0, 1.0])),
    ]
    result = check_equivalent(UNIQUE_READ_BY_TESTS, "binary_validation", cases, tmp_path, rules=["trap"])
    assert any("torch.unique" in site.what for site in result.sites)
    ok, bad = torch.tensor([0.0, 1.0, -1.0]), torch.tensor([0.0, float("nan")])
    check_equivalent(UNIQUE_READ_BY_TESTS, "finite_labels", [(ok,), (bad,)], tmp_path, rules=["trap"])
    multilabel = [(torch.tensor([[0, 1], [1, 1]]), 2), (torch.tensor([[0, 2], [1, 1]]), 2),
                  (torch.tensor([[0.0, 1.0]]).requires_grad_(), 2)]
    check_equivalent(UNIQUE_READ_BY_TESTS, "multilabel_validation", multilabel, tmp_path, rules=["trap"])


def test_unique_falls_back_where_the_tests_could_differ(tmp_path):
    """A tensor to compare with (it would broadcast against the target's
    shape) or a dtype ``torch.unique`` refuses: the call runs as written,
    with the original graph break and the original error."""
    floats = torch.tensor([0.2, 0.9])
    cases = [
        (floats, torch.tensor([0, 1]), torch.tensor(1)),
        (floats, torch.tensor([0, 3]), torch.tensor(3)),
        (floats, torch.tensor([3, 0]), torch.tensor([0, 3])),  # pairs each unique value with an element
        (floats, torch.tensor([0j, 1j])),
    ]
    check_equivalent(UNIQUE_READ_BY_TESTS, "binary_validation", cases, tmp_path, rules=["trap"], graphs=None)
    import graphmend

    _, mended, _ = mend_source(UNIQUE_READ_BY_TESTS, tmp_path, rules=["trap"])
    report = graphmend.diagnose(mended.binary_validation, *cases[0])
    assert [b.reason for b in report.breaks][:1] == [
        "rewritten, still breaks: graphmend: a test compares the unique values with a tensor (it would meet "
        "other elements than theirs)"]


def test_a_unique_only_tests_read_is_a_fixable_break(tmp_path):
    """diagnose asks [Trap] about the DS break at ``torch.unique``, and the
    mending a diagnosis drives (``mend_report``, as ``compile(...,
    diagnose=True)`` does) removes it with the guard after it."""
    import graphmend
    from graphmend.api import mend_report
    from harness import load_module

    module = load_module(UNIQUE_READ_BY_TESTS, tmp_path, "unique_tests")
    args = (torch.tensor([0.2, 0.9]), torch.tensor([0, 1]))
    report = graphmend.diagnose(module.binary_validation, *args)
    unique = next(b for b in report.breaks if b.category == "DS")
    assert (unique.fixable, unique.rule) == (True, "trap") and "torch.unique" in unique.statement
    try:
        mend_report(module.binary_validation, report)
        assert graphmend.diagnose(module.binary_validation, *args).break_count == 0
    finally:
        graphmend.unmend(module.binary_validation)
