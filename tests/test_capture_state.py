"""Predicated state updates (issue #34 item 6): ``if T:`` whose arm only
updates tensors in place.  Original vs mended on the same inputs: outputs
and buffers bit-identical after every call, eagerly and compiled; the site
rewritten; one graph without gradients, the break kept (with the reason)
with them."""

from __future__ import annotations

import textwrap

import pytest
import torch

from graphmend import compat
from graphmend.pipeline import transform_source
from harness import GraphCounter, load_module

SOURCE = textwrap.dedent("""
    import torch
    from torch import nn


    class Tracker(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(3))
            self.register_buffer("initted", torch.tensor(False))

        def forward(self, x):
            if not self.initted:
                self.buf.copy_(x * 2)
                self.initted.fill_(True)
            return x + self.buf


    class Resetter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("acc", torch.zeros(3))
            self.register_buffer("count", torch.zeros((), dtype=torch.long))

        def forward(self, x):
            if x.sum() > 0:
                self.acc.zero_()
            if x.mean() < 0:
                self.acc.add_(x)
                self.count.add_(1)
            return x * 2 + self.acc
""")
LINES = frozenset({13, 26, 28})
INPUTS = [torch.tensor([1.0, -2.0, 0.5]), torch.tensor([-1.0, -2.0, 0.5]), torch.tensor([3.0, 2.0, -9.0]),
          torch.tensor([-1.0, -1.0, -1.0])]


@pytest.fixture
def modules(tmp_path):
    result = transform_source(SOURCE, rules=["where"], lines=LINES)
    return load_module(SOURCE, tmp_path, "state_orig"), load_module(result.code, tmp_path, "state_mended"), result


def test_rewritten(modules):
    *_, result = modules
    assert sorted(site.lineno for site in result.sites if site.rule == "where") == sorted(LINES)
    assert result.code.count("_graphmend.predicated_update(") == 5


@pytest.mark.parametrize("name", ["Tracker", "Resetter"])
@pytest.mark.parametrize("compiled", [False, True])
def test_outputs_and_state_identical_without_gradients(modules, name, compiled):
    original_module, mended_module, _ = modules
    original, mended = getattr(original_module, name)(), getattr(mended_module, name)()
    counter = GraphCounter()
    torch._dynamo.reset()
    run = torch.compile(mended, backend=counter) if compiled else mended
    with torch.no_grad():
        for x in INPUTS:
            assert torch.equal(run(x.clone()), original(x.clone()))
            for (key, a), (_, b) in zip(original.state_dict().items(), mended.state_dict().items()):
                assert torch.equal(a, b), key
    if compiled:
        assert counter.graphs == 1


def test_gradients_enabled_keep_the_break_with_the_reason(modules):
    original_module, mended_module, _ = modules
    original, mended = original_module.Resetter(), mended_module.Resetter()
    torch._dynamo.reset()
    start = len(compat.graph_break_reasons())
    run = torch.compile(mended, backend="eager")
    for x in INPUTS:
        x = x.clone().requires_grad_()
        assert torch.equal(run(x), original(x))
        for a, b in zip(original.buffers(), mended.buffers()):
            assert torch.equal(a, b)
    reasons = [r.reason for r in compat.graph_break_reasons()[start:]]
    assert any("predicated state update: gradients are enabled" in reason for reason in reasons)


NOOPS = {
    "random numbers in the arm": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.copy_(torch.rand(3))
            return x
    """, "state update: `torch.rand(3)` is evaluated whether or not the arm is taken"),
    "an else arm": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.zero_()
            else:
                self.buf.fill_(1.0)
            return x
    """, None),
    "another statement in the arm": ("""
        import torch

        def f(self, x):
            if x.sum() > 0:
                self.buf.zero_()
                print("reset")
            return x
    """, None),
}


@pytest.mark.parametrize("case", sorted(NOOPS))
def test_named_noops(case):
    source, reason = NOOPS[case]
    source = textwrap.dedent(source)
    result = transform_source(source, rules=["where"], lines=frozenset({5}))
    assert "predicated_update" not in result.code
    if reason:
        assert any(skip.reason.startswith(reason) for skip in result.skips), result.skips


def test_an_arm_updating_its_own_test_reads_the_test_as_it_was(tmp_path):
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class Once(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("pending", torch.tensor(True))
                self.register_buffer("buf", torch.zeros(2))

            def forward(self, x):
                if self.pending:
                    self.pending.fill_(False)
                    self.buf.copy_(x)
                return x + self.buf
    """)
    result = transform_source(source, rules=["where"], lines=frozenset({13}))
    assert "_graphmend.frozen_test(self.pending)" in result.code
    original = load_module(source, tmp_path, "once_orig").Once()
    mended = load_module(result.code, tmp_path, "once_mended").Once()
    torch._dynamo.reset()
    counter = GraphCounter()
    run = torch.compile(mended, backend=counter)
    with torch.no_grad():
        for x in INPUTS:
            x = x[:2]
            assert torch.equal(run(x.clone()), original(x.clone()))
            assert torch.equal(mended.buf, original.buf) and torch.equal(mended.pending, original.pending)
    assert counter.graphs == 1
