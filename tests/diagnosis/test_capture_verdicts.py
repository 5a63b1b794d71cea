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
        import math; y = y * 2  # an arm [Where] does not predicate: the guard on n stays
    m = int((x < 0).sum())
    out = x
    for i in range(m):
        out = out + i
    return y.sum() + out.sum() + x.max().item()
"""


def test_each_site_has_its_verdict(tmp_path):
    module = load_module(textwrap.dedent(SOURCE), tmp_path, "verdicts")
    x = torch.tensor([1.0, -2.0, 3.0, 0.5, -1.0, 2.5, -0.5, 4.0])
    report = graphmend.diagnose(module.f, x)
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
    assert "SCALAR: captured" in str(graphmend.diagnose(module.f, x, mended=False))
    assert "held: capture" in str(report)  # beside it, graphmend.compile's side says so


def test_the_report_of_a_compiled_object_names_each_fallback_and_its_guard(tmp_path):
    """graphmend.compile's own report: f() and the functions resuming it
    after a break are compiled without [Capture], each for the guard it met,
    and its data-dependent sites left there say so."""
    import html

    module = load_module(textwrap.dedent(SOURCE), tmp_path, "fallbacks")
    report = graphmend.diagnose(graphmend.compile(module.f), torch.tensor([1.0, -2.0, 3.0, 0.5, -1.0, 2.5]))
    guards = {f.lineno: f.why.rsplit(":", 1)[1] for f in report.fallbacks}
    assert {f.function for f in report.fallbacks} == {"f"} and guards == {5: "8", 6: "8", 7: "12"}
    assert all("meets a guard" in f.why for f in report.fallbacks)
    left = {b.lineno: b.hint for b in report.breaks}
    assert left[6].startswith("[capture] gave up on this frame of f(): a captured value meets a guard")
    assert left[6].endswith(":8") and left[10].endswith(":12")
    assert report.summary().count("3 fallback(s)") == 1 and str(report).count("fallback: f()") == 3
    page = html.unescape(report.to_html())
    assert all(f.why in page for f in report.fallbacks)


def test_other_categories_carry_no_verdict(tmp_path):
    module = load_module(textwrap.dedent("""
        import torch

        def g(x):
            print("hi")
            return x + 1
    """), tmp_path, "verdicts")
    report = graphmend.diagnose(module.g, torch.ones(2))
    assert report.breaks and all(b.capture is None for b in report.breaks)


CLI_SCRIPT = """
import torch


def masked(x):
    return x[x > 0].sum() * 2


def branchy(x):
    n = int((x > 0).sum().item())
    if n > 2:
        return x * 2
    return x


print("ran once")
torch.compile(masked)(torch.randn(8))
torch.compile(branchy)(torch.randn(8))
"""


def test_cli_diagnose_gives_the_verdicts_with_capture(tmp_path):
    """``graphmend diagnose --capture``: the verdict per DS / SCALAR site as
    the Python report gives it, the script's output once (the second run is
    silenced); without ``--capture`` the script runs once and no verdict is
    given."""
    import json
    import subprocess
    import sys

    (tmp_path / "script.py").write_text(CLI_SCRIPT)

    def diagnose(*flags):
        command = [sys.executable, "-m", "graphmend", "diagnose", *flags, "script.py", "--format", "json"]
        result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        first, *rest = result.stdout.strip().splitlines()
        assert first == "ran once" and len(rest) == 1
        return {b["lineno"]: b["capture"] for b in json.loads(rest[0])["breaks"]}

    assert diagnose("--capture") == {
        6: "DS: captured",
        10: "SCALAR: not captured: a captured value meets a guard: Python branches on the captured value "
            "(generic_jump SymNodeVariable) at script.py:11; branchy() is compiled without capture",
    }
    assert diagnose() == {6: None, 10: None}


RUN_EAGERLY_SOURCE = """
import torch


def step(params):
    largest = max(p.numel() for p in params)
    total = 0.0
    for p in params:
        total += p.abs().sum().item()
    if total == 0:
        import math; total = math.inf  # an arm [Where] does not predicate: the guard on total stays
    return [p / total * largest for p in params]
"""


def test_a_frame_given_up_and_then_run_eagerly_is_a_fallback(tmp_path):
    """[Capture] gives step() up at the guard on the read-back total; without
    capture the ``.item()`` in its loop makes Dynamo run the whole frame
    eagerly, which leaves no compiled entry.  It is a fallback all the same.
    The comprehension's frame, a generator Dynamo gives up on before any
    value is held, fails as it fails without capture: traced once, it is
    not one."""
    module = load_module(textwrap.dedent(RUN_EAGERLY_SOURCE), tmp_path, "eagerly")
    params = [torch.randn(3), torch.randn(2, 2)]
    compiled = graphmend.compile(module.step)
    for _ in range(2):
        compiled(params)
    report = graphmend.diagnose(compiled, params)
    whys = {f.function: f.why for f in report.fallbacks}
    assert report.graph_count == 0 and set(whys) == {"step"}
    assert whys["step"].startswith("a captured value meets a guard") and whys["step"].endswith(":10")
    # the item read back in the loop is left (not held), once: the attempt with capture on is not counted
    assert [(b.lineno, b.count) for b in report.breaks] == [(9, 1)] and not report.held
    hint = report.breaks[0].hint
    assert hint.startswith("[capture] gave up on this frame of step()") and "Dynamo runs step() eagerly" in hint


def test_a_comprehension_given_up_on_does_not_hold_a_later_site(tmp_path):
    """A ``<genexpr>`` frame holds its own expression only: the item read
    two lines below it is in step()'s frame, which holds it where it is
    given up on too."""
    from graphmend.diagnosis.report import Break, Fallback, fallback_holding

    module = load_module(textwrap.dedent(RUN_EAGERLY_SOURCE), tmp_path, "holding")
    filename = module.step.__code__.co_filename
    site = Break("SCALAR", filename, 9, "step", "total += p.abs().sum().item()", "item", False, None, None)
    comprehension = Fallback("<genexpr>", filename, 6, "Attempt to trace generator")
    frame = Fallback("step", filename, 5, "a captured value meets a guard")
    assert fallback_holding(site, [comprehension]) is None
    assert fallback_holding(site, [frame, comprehension]) is frame
