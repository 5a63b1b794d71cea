"""[Where] module state: buffers and attributes an arm stores, lazy initialisation,
in-place updates after a merge, and no higher-order op after an attribute store.

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import torch
from torch._dynamo.testing import CompileCounter

import graphmend.runtime
from graphmend.compare import first_difference
from harness import assert_same_outcome, compiled_outcome, mend_source, outcome_of
from where_support import assert_updated_in_place, fixture, requiring_grad, t


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
    assert_updated_in_place(model.inv_freq, buffer, expected[0][1])  # no recompile either
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
        expected = outcome_of(scheduler(original.Scheduler).alpha_before, scores)
        assert_same_outcome(expected, outcome_of(scheduler(mended.Scheduler).alpha_before, scores), "eager")
        outcome, graphs = compiled_outcome(scheduler(mended.Scheduler).alpha_before, scores)
        assert_same_outcome(expected, outcome, "compiled")
        assert graphs == 1


@pytest.mark.parametrize("index", [torch.tensor(3), torch.tensor(3, dtype=torch.int32), torch.tensor(0),
                                   torch.tensor([2, 0]), torch.tensor(True), torch.tensor(1, dtype=torch.uint8)],
                         ids=["int64", "int32", "zero", "vector", "bool-mask", "uint8-mask"])
def test_nonnegative_row_is_the_indexing_where_taken(index):
    table = torch.arange(20.0).reshape(10, 2)
    assert first_difference(table[index], graphmend.runtime.nonnegative_row(table, index)) is None


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
    x, y = requiring_grad((t(0.5, 1, 1.5, 2), t(1, 2, 0.25, 3)))
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


class _Cache(torch.nn.Module):
    """pomegranate's Normal: ``reset_cache`` registers its buffers only in
    the arm, so the first call finds none."""

    def __init__(self, reset_cache: Callable[..., Any]) -> None:
        super().__init__()
        self.reset_cache = reset_cache
        self.register_buffer("covs", torch.tensor([0.5, 2.0]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        scale = self.reset_cache(self)
        return x * scale, self.log_scale.clone(), self.inv_scale.clone()


def test_a_buffer_the_arm_creates_falls_back_at_the_if_not_for_the_whole_frame(tmp_path: Path) -> None:
    """The merge reads the buffers the arm leaves, and on the first call
    they do not exist: that read is in the other arm, so ``both_arms``
    catches the AttributeError and the original ``if`` runs, with its one
    break.  Read after ``both_arms`` (as it was), the error was raised in
    the traced frame and Dynamo ran the whole frame eagerly: no graph for
    ``scale = self.covs * 2`` either (pomegranate's EM fit: 42 operators
    out of its graphs).  The second call finds them and compiles one graph."""
    original, mended, _ = mend_source(fixture("buffer_created_in_one_arm"), tmp_path, rules=["where"])
    x = torch.tensor([1.0, -3.0])
    expected = _Cache(original.reset_cache)(x)
    torch._dynamo.reset()
    counter = CompileCounter()
    model = _Cache(mended.reset_cache)
    compiled = torch.compile(model, backend=counter)
    assert first_difference(expected, compiled(x)) is None
    assert counter.frame_count == 3  # forward before the call, reset_cache before the if, the rest of forward
    assert first_difference(expected, compiled(x)) is None
    assert counter.frame_count == 4  # reset_cache whole, now the buffers exist
