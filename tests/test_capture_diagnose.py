"""diagnose names, per DS / SCALAR site, whether [Capture] holds it and why not."""

from __future__ import annotations

import textwrap

import torch

import graphmend
from harness import load_module

SOURCE = """
import torch


def f(x):
    y = x[x > 0]
    n = (x > 0).sum().item()
    if n > 3:
        y = y * 2
    m = int((x < 0).sum())
    out = x
    for i in range(m):
        out = out + i
    return y.sum() + out.sum() + x.max().item()
"""


def test_each_site_has_its_verdict(tmp_path):
    module = load_module(textwrap.dedent(SOURCE), tmp_path, "verdicts")
    report = graphmend.diagnose(module.f, torch.tensor([1.0, -2.0, 3.0, 0.5, -1.0, 2.5, -0.5, 4.0]))
    verdicts = {b.statement.split("=")[0].strip() if "=" in b.statement else b.statement: b.capture
                for b in report.breaks if b.category in ("DS", "SCALAR")}
    # line 8 branches on the captured n: f() falls back to its breaks, and says where
    assert verdicts["y"].startswith("DS: not captured: a captured value meets a guard: Python branches")
    assert verdicts["y"].endswith("f() is compiled without capture")
    assert ":8;" in verdicts["n"]
    # the resume frame after n's break meets range(m) at line 12
    assert "a Python int is needed" in verdicts["m"] and ":12;" in verdicts["m"]
    # the last frame has no guard: its scalar is captured
    assert verdicts["return y.sum() + out.sum() + x.max().item()"] == "SCALAR: captured"
    unfixable = [b for b in report.breaks if b.category in ("DS", "SCALAR") and not b.fixable]
    assert all(b.hint and b.hint.startswith(b.capture) for b in unfixable)
    assert "capture" in report.to_dict()["breaks"][0]
    assert "SCALAR: captured" in str(report)


def test_other_categories_carry_no_verdict(tmp_path):
    module = load_module(textwrap.dedent("""
        import torch

        def g(x):
            print("hi")
            return x + 1
    """), tmp_path, "verdicts")
    report = graphmend.diagnose(module.g, torch.ones(2))
    assert report.breaks and all(b.capture is None for b in report.breaks)
