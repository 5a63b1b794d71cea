"""The rules inside each other (nested ifs, early returns, effects and guards
in tensor arms, training, message arguments), on programs that mix them.

Each program runs three ways on inputs that take every branch -- the
original eagerly (the reference), the mended code eagerly and under
``torch.compile`` -- and must agree in value, stdout, log records,
warnings and exception; compiled, it must be one graph.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from graphmend.compare import first_difference
from graphmend.pipeline import transform_source
from harness import GraphCounter, check_equivalent, load_module, mend_source, outcome_of

HEADER = """\
import logging
import warnings

import torch

logger = logging.getLogger("gm.composition")
"""

POSITIVE = torch.tensor([1.0, 2.0, 3.0])
NEGATIVE = -POSITIVE
MIXED = torch.tensor([-1.0, 0.5, 2.0])
SMALL = torch.tensor([-3.0, 1.0, 1.0])
NOT_FINITE = torch.tensor([1.0, float("inf"), 2.0])
INPUTS = [(POSITIVE,), (NEGATIVE,), (MIXED,), (SMALL,), (NOT_FINITE,)]

PROGRAMS = {
    "nested_three_deep_different_names": """
def f(x):
    a = x * 1
    b = x + 0
    if x.sum() > 0:
        if x.max() > 2.5:
            a = a * 2
            if x.min() > 1.5:
                b = b - 1
        else:
            b = b + 3
    else:
        a = -a
    return a, b
""",
    "early_return_inside_an_arm": """
def f(x):
    y = x * 2
    if x.sum() > 0:
        if x.max() > 2.5:
            return y + 1
        y = y - 1
    z = y * 3
    return z
""",
    "early_return_of_tuples": """
def f(x):
    if x.mean() < 0:
        return x, x * 2
    w = x + 1
    return w, w * 3
""",
    "print_and_log_in_tensor_arms": """
def f(x):
    print("start", x.shape)
    if x.sum() > 0:
        print("positive", x)
        y = x * 2
    else:
        logger.warning("negative %s", x.sum())
        y = -x
    print("end", y)
    return y
""",
    "raise_after_statements_in_an_arm": """
def f(x):
    if x.min() < -2.5:
        y = x * 2
        raise ValueError(f"too small: {tuple(x.shape)}")
    return x + 1
""",
    "guard_nested_under_a_tensor_if": """
def f(x):
    y = x + 1
    if x.sum() > 0:
        if (x > 2.5).any():
            raise ValueError("too large")
        y = y * 2
    print("done", y)
    return y
""",
    "assert_on_a_tensor": """
def f(x):
    y = x * 2
    assert torch.isfinite(y).all(), f"not finite: {y.shape}"
    return y + 1
""",
    "not_and_or_over_function_forms": """
def f(x):
    if not torch.all(x > 0) and torch.any(x < -2):
        raise RuntimeError("mixed")
    return x * 2
""",
    "library_warning_helper": """
def warn_negative(message):
    print("warning:", message)


def f(x):
    if x.sum() < 0:
        warn_negative("negative sum")
        x = -x
    return x * 2
""",
    "shapes_dtypes_devices_in_messages": """
def f(x):
    y = x + 1
    print(y.shape, y.dtype, y.device, None, (y.shape[0], [1, 2.5]), {"n": y.ndim})
    logger.warning("size %s of %s", y.size(), y.dtype)
    return y
""",
    "guard_message_with_calls": """
def f(x):
    if (x < -2.5).any():
        raise ValueError(f"bad input {tuple(x.shape)}, max={x.max()}, n={len(x)}")
    return x - 1
""",
    "warning_in_elif_arm": """
def f(x):
    if x.sum() > 5:
        y = x * 3
    elif x.sum() > 0:
        warnings.warn(f"small sum {x.sum():.2f}", UserWarning)
        y = x * 2
    else:
        y = x
    return y
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_agrees_and_compiles_to_one_graph(name, tmp_path):
    source = HEADER + textwrap.dedent(PROGRAMS[name])
    result = check_equivalent(source, "f", INPUTS, tmp_path)
    assert result.sites, "nothing was rewritten"
    assert not [s for s in result.skips if s.rule != "defer" or "f-string" not in s.reason], result.skips


GRADIENT_PROGRAMS = {
    "linear_arms_merge_with_where": """
def f(x, w):
    y = x * w
    if y.sum() > 0:
        y = y * 2 + x
    else:
        y = y - 1.5
    return y
""",
    "nested_linear_arms": """
def f(x, w):
    h = torch.relu(x * w)
    if h.mean() > 0.5:
        if h.max() > 2:
            h = h * 0.5
        h = h + w
    return h.sum()
""",
    # Only one arm reads `shift`, which requires no grad: merged all the same.
    "one_sided_value_without_grad": """
def f(x, w):
    h = x * w
    shift = (x > 0).float()
    if h.mean() > 0.5:
        h = h + shift
    return h.sum()
""",
}


def _grads(fn, x, w):
    x, w = x.clone().requires_grad_(), w.clone().requires_grad_()
    out = fn(x, w)
    return out.detach(), torch.autograd.grad(out.sum(), (x, w))


@pytest.mark.parametrize("name", sorted(GRADIENT_PROGRAMS))
def test_gradients_are_bit_identical_in_one_graph(name, tmp_path):
    from graphmend.compare import first_difference

    original, mended, result = mend_source(HEADER + textwrap.dedent(GRADIENT_PROGRAMS[name]), tmp_path)
    assert "grad=True" in result.code
    for x in (POSITIVE, NEGATIVE, MIXED):
        w = torch.tensor([0.5, -1.0, 2.0])
        expected = _grads(original.f, x, w)
        torch._dynamo.reset()
        counter = GraphCounter()
        actual = outcome_of(_grads, torch.compile(mended.f, backend=counter), x, w)
        assert actual.error is None, actual.error
        assert first_difference(expected, actual.value) is None
        assert counter.graphs == 1


WHILE_PROGRAMS = {
    "while_doubles_until_large": """
def f(x):
    steps = torch.zeros((), dtype=torch.int64)
    while x.abs().sum() < 100:
        x = x * 2 + 1
        steps = steps + 1
    return x, steps
""",
}


@pytest.mark.parametrize("name", sorted(WHILE_PROGRAMS))
def test_while_loop_agrees_and_compiles_to_one_graph(name, tmp_path):
    source = HEADER + textwrap.dedent(WHILE_PROGRAMS[name])
    result = check_equivalent(source, "f", [(POSITIVE,), (NEGATIVE,), (MIXED,)], tmp_path)
    assert [s.what for s in result.sites] == ["while -> torch.while_loop"]


def test_untaken_arm_input_keeps_a_none_gradient(tmp_path):
    """Only the first arm reads ``w``: eager code leaves w's gradient None
    when the second runs, a torch.where would make it zero.  The merge
    keeps the Python choice under autograd, so the gradients agree (the
    break stays, with its reason); without autograd it is one graph."""
    source = HEADER + textwrap.dedent("""
        def f(x, w):
            h = x * 2
            if h.mean() > 0.5:
                h = h + w
            return h
        """)
    original, mended, result = mend_source(source, tmp_path)
    assert "one_sided=(w,)" in result.code, result.code

    def grads(fn, x):
        x, w = x.clone().requires_grad_(), torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        return torch.autograd.grad(fn(x, w).sum(), (x, w), allow_unused=True)

    for x in (POSITIVE, NEGATIVE):
        torch._dynamo.reset()
        counter = GraphCounter()
        expected, actual = grads(original.f, x), grads(torch.compile(mended.f, backend=counter), x)
        assert [g is None for g in actual] == [g is None for g in expected]
        assert all(a is None or torch.equal(a, e) for a, e in zip(actual, expected))
        torch._dynamo.reset()
        counter = GraphCounter()
        with torch.no_grad():
            torch.compile(mended.f, backend=counter)(x, torch.ones(3))
        assert counter.graphs == 1


def test_a_merge_falling_back_inside_an_arm_adds_no_break(tmp_path):
    """torchdiffeq's ``_linear_interp``: the merges of the inner ``if``
    fall back under autograd (a quotient's derivative depends on values),
    inside the outer ``if``'s arm.  The fallback takes the outer test's
    truth in the call that broke, so the mended function compiles to no
    more graphs than the original, with the same values and gradients."""
    source = HEADER + textwrap.dedent("""
        def f(t0, t1, y0, y1, t):
            if t == t0:
                return y0
            if t == t1:
                return y1
            slope = (t - t0) / (t1 - t0)
            return y0 + slope * (y1 - y0)
        """)
    # Nothing shows the tests are tensors: the diagnosed lines say so.
    lines = frozenset(n for n, line in enumerate(source.splitlines(), 1) if line.lstrip().startswith("if "))
    result = transform_source(source, lines=lines)
    assert [s.what for s in result.sites] == ["if/return -> torch.where"] * 2, result.sites
    original, mended = load_module(source, tmp_path, "orig"), load_module(result.code, tmp_path, "mended")

    def run(fn, t):
        t0, t1 = torch.tensor(0.0, requires_grad=True), torch.tensor(1.0, requires_grad=True)
        y0, y1 = torch.ones(3, requires_grad=True), torch.full((3,), 2.0, requires_grad=True)
        out = fn(t0, t1, y0, y1, t)
        return out.detach(), torch.autograd.grad(out.sum(), (t0, t1, y0, y1), allow_unused=True)

    for t in (torch.tensor(0.0), torch.tensor(1.0), torch.tensor(0.25)):
        graphs = []
        for fn in (original.f, mended.f):
            torch._dynamo.reset()
            counter = GraphCounter()
            outcome = outcome_of(run, torch.compile(fn, backend=counter), t)
            assert outcome.error is None, outcome.error
            graphs.append(counter.graphs)
            expected = run(original.f, t)
            assert [g is None for g in outcome.value[1]] == [g is None for g in expected[1]]
            assert first_difference(expected, outcome.value) is None
        assert graphs[1] <= graphs[0], graphs

    # Mended as graphmend.compile mends it (from a diagnosis), the fallbacks
    # are diagnosed at the user's lines in the user's function, not in the
    # arms' thunks graphmend made.
    from graphmend.api import mend_report
    from graphmend.diagnosis import diagnose
    from graphmend.mending.live import unmend

    t0, t1 = torch.tensor(0.0, requires_grad=True), torch.tensor(1.0, requires_grad=True)
    y0, y1 = torch.ones(3, requires_grad=True), torch.full((3,), 2.0, requires_grad=True)
    args = (t0, t1, y0, y1, torch.tensor(0.25))
    mend_report(original.f, diagnose(original.f, *args), modules=[original.__name__])
    try:
        breaks = diagnose(original.f, *args).breaks
    finally:
        unmend(original.f)
    assert breaks and all(b.function == "f" and b.statement in ("if t == t0:", "if t == t1:") for b in breaks), breaks


def test_the_elif_and_nested_ifs_of_a_diagnosed_if_are_mended_with_it(tmp_path):
    """snntorch's ``Leaky``: Dynamo breaks at ``if mode == 0`` (a buffer), so
    the diagnosis names that line only, never the ``elif``; the ``if`` is
    mended with its ``elif`` and the ``if`` nested in an arm, or not at all
    (it was: "a nested if that could not be mended")."""
    source = HEADER + textwrap.dedent("""
        def f(x, mode, threshold):
            mem = 0.9 * x
            reset = (mem > threshold).float()
            if mode == 0:
                mem = mem - reset * threshold
            elif mode == 1:
                if mem.sum() > 1:
                    mem = mem - reset * mem
                else:
                    mem = mem * 2
            return mem
        """)
    first = source.splitlines().index("    if mode == 0:") + 1
    arg_sets = [(x, torch.tensor(mode), 0.5) for x in (POSITIVE, NEGATIVE) for mode in (0, 1, 2)]
    result = check_equivalent(source, "f", arg_sets, tmp_path, rules=["where"], lines=frozenset({first}))
    assert sorted(s.lineno for s in result.sites) == [first, first + 2, first + 3]
