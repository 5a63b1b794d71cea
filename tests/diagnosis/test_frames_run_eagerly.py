"""A break inside a loop makes Dynamo run the whole frame eagerly and record
the break nowhere (``torch._dynamo.explain``: no graph, no break); a
diagnosis names it at its statement all the same."""

from __future__ import annotations

import textwrap

import torch

import graphmend
from harness import load_module

SOURCE = """
import torch


def total(params):
    out = 0.0
    for p in params:
        out += p.abs().sum().item()
    return out


def no_loop(x):
    return x * 2
"""


def test_a_break_in_a_loop_is_named_with_the_frame_run_eagerly(tmp_path):
    module = load_module(textwrap.dedent(SOURCE), tmp_path, "run_eagerly")
    params = [torch.randn(3), torch.randn(2, 2)]
    report = graphmend.diagnose(module.total, params, mended=False)
    assert report.graph_count == 0
    [site] = report.breaks
    # the statement, its category, and what Dynamo did with the frame
    assert (site.lineno, site.function, site.category, site.count) == (8, "total", "SCALAR", 1)
    assert "Dynamo runs total() eagerly: the break is in a loop" in site.hint
    assert "1 break(s) at 1 site(s)" in report.summary()


def test_noop_a_frame_without_a_loop_break_adds_nothing(tmp_path):
    module = load_module(textwrap.dedent(SOURCE), tmp_path, "no_loop")
    report = graphmend.diagnose(module.no_loop, torch.ones(2), mended=False)
    assert report.graph_count == 1 and report.breaks == []
