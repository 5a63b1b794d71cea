"""diagnose(): categories, sites, counts, rendering, and the CLI."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import graphmend
from programs import categories as programs

X = torch.linspace(-1.0, 1.0, 8)


def _line_of(fn, marker: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if f"# {marker}" in line:
            return start + offset
    raise AssertionError(f"no '# {marker}' in {fn.__name__}")


@pytest.fixture(autouse=True)
def _quiet_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_clean_function_has_no_breaks():
    report = graphmend.diagnose(programs.clean, X)
    assert report.graph_count == 1
    assert report.break_count == 0
    assert report.breaks == []


@pytest.mark.parametrize(
    "fn, category",
    [
        (programs.dc_if, "DC"),
        (programs.dc_elif, "DC"),
        (programs.dc_ternary, "DC"),
        (programs.dc_while, "DC"),
        (programs.guard, "GUARD"),
        (programs.scalar_if, "SCALAR"),
        (programs.scalar_value, "SCALAR"),
        (programs.io_print, "IO"),
        (programs.io_logger, "IO"),
        (programs.io_warning_once, "IO"),
        (programs.io_warn, "IO"),
        (programs.ds_nonzero, "DS"),
        (programs.ds_mask, "DS"),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_category_and_site(fn, category):
    report = graphmend.diagnose(fn, X)
    first = report.breaks[0]
    assert first.category == category
    assert first.filename == inspect.getsourcefile(fn)
    assert first.lineno == _line_of(fn, category)
    assert first.function == fn.__name__
    assert first.statement == first.statement.strip() and first.statement
    assert first.reason and "\n" not in first.reason
    assert report.break_count >= 1


def test_dc_if_is_fixable_by_where():
    report = graphmend.diagnose(programs.dc_if, X)
    (only,) = report.breaks
    assert (only.category, only.fixable, only.rule) == ("DC", True, "where")
    assert only.statement == "if y.mean() > 0:  # DC"
    assert report.graph_count == 2 and report.break_count == 1


def test_unfixable_sites_carry_hints():
    scalar = graphmend.diagnose(programs.scalar_value, X).breaks[0]
    assert not scalar.fixable and scalar.rule is None
    assert "capture_scalar_outputs" in scalar.hint
    shape = graphmend.diagnose(programs.ds_nonzero, X).breaks[0]
    assert not shape.fixable and "capture_dynamic_output_shape_ops" in shape.hint


def test_rule_per_category():
    assert graphmend.diagnose(programs.guard, X).breaks[0].rule == "trap"
    assert graphmend.diagnose(programs.io_print, X).breaks[0].rule == "defer"
    assert graphmend.diagnose(programs.scalar_if, X).breaks[0].rule == "where"


def test_site_reached_many_times_is_one_row_with_count():
    # Dynamo traces noisy() once inside each caller: two breaks, one site.
    report = graphmend.diagnose(programs.calls_noisy_twice, X)
    rows = [b for b in report.breaks if b.function == "noisy"]
    assert len(rows) == 1 and rows[0].category == "IO" and rows[0].count >= 2


def test_renders_as_table_and_json():
    report = graphmend.diagnose(programs.io_logger, X)
    text = str(report)
    assert "IO" in text and "io_logger" in text
    data = json.loads(report.to_json())
    assert data["graph_count"] == report.graph_count
    assert data["break_count"] == report.break_count
    assert set(data["breaks"][0]) >= {
        "category", "filename", "lineno", "function", "statement",
        "reason", "fixable", "rule", "hint", "count",
    }


def test_diagnose_uses_a_private_backend():
    seen = []

    def user_backend(gm, example_inputs):
        seen.append(gm)
        return gm.forward

    torch.compile(programs.clean, backend=user_backend)(X)
    before = len(seen)
    graphmend.diagnose(programs.dc_if, X)
    assert len(seen) == before


# -- CLI -----------------------------------------------------------------------

SCRIPT = """
import sys
import torch

def f(x):
    x = x * 2
    print("args", sys.argv[1:])
    return x + 1

torch.compile(f, backend="eager")(torch.ones(3))
sys.exit(int(sys.argv[1]))
"""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "graphmend", *args], cwd=cwd, capture_output=True, text=True
    )


def test_cli_diagnose_json_keeps_script_argv_and_exit_status(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    result = _cli("diagnose", "script.py", "3", "x", "--format", "json", cwd=tmp_path)
    assert result.returncode == 3
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "args ['3', 'x']"
    data = json.loads(lines[-1])
    assert data["graph_count"] == 2
    (row,) = data["breaks"]
    assert row["category"] == "IO" and row["lineno"] == 7 and row["function"] == "f"


def test_cli_diagnose_table(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    result = _cli("--help", cwd=tmp_path)
    assert result.returncode == 0 and "diagnose" in result.stdout
    result = _cli("diagnose", "script.py", "0", cwd=tmp_path)
    assert result.returncode == 0
    assert "IO" in result.stdout and "script.py:7" in result.stdout


def test_cli_missing_script(tmp_path):
    assert _cli("diagnose", "nope.py", cwd=tmp_path).returncode == 2


# -- capture statistics and recompiles (issue 7) ------------------------------------


def test_clean_function_captures_every_op():
    report = graphmend.diagnose(programs.clean, X)
    assert report.graph_calls == 1
    assert report.total_ops > 0
    assert report.captured_ops == report.total_ops
    assert report.pct_ops == 1.0
    assert 0.0 < report.pct_time <= 1.0


def test_broken_function_runs_ops_outside_graphs():
    report = graphmend.diagnose(programs.scalar_value, X)
    assert report.graph_calls == 2
    assert report.pct_ops < 1.0


def test_recompile_when_scalar_argument_changes_sign():
    report = graphmend.diagnose_calls(programs.scalar_argument, [(X, 2), (X, -3)])
    assert report.breaks == []
    assert report.graph_count == 1
    (recompile,) = report.recompiles
    assert recompile.function == "scalar_argument"
    assert recompile.call == 1
    assert "n" in recompile.guard
    line = _line_of(programs.scalar_argument, "guard on a Python int")
    assert recompile.source.endswith(f"categories.py:{line}")
    data = json.loads(report.to_json())
    assert data["recompiles"][0]["guard"] == recompile.guard
    assert "recompile" in str(report)


def test_same_arguments_do_not_recompile():
    report = graphmend.diagnose_calls(programs.scalar_argument, [(X, 2), (X, 2)])
    assert report.recompiles == []


def test_keyword_argument_sets():
    report = graphmend.diagnose_calls(
        programs.scalar_argument, [graphmend.call(X, n=1), {"x": X, "n": -1}]
    )
    assert [r.call for r in report.recompiles] == [1]


RECOMPILING_SCRIPT = """
import torch

def f(x, n):
    y = x * 2
    if n >= 0:
        y = y + n
    return y

fn = torch.compile(f, backend="eager")
fn(torch.ones(3), 2)
fn(torch.ones(3), -3)
"""


def test_cli_reports_recompiles(tmp_path):
    (tmp_path / "script.py").write_text(RECOMPILING_SCRIPT)
    result = _cli("diagnose", "--format", "json", "script.py", cwd=tmp_path)
    assert result.returncode == 0
    data = json.loads(result.stdout.strip().splitlines()[-1])
    (recompile,) = data["recompiles"]
    assert recompile["function"] == "f" and "n" in recompile["guard"]


def test_diagnose_keeps_other_compiled_code():
    graphs = []

    def user_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(programs.clean, backend=user_backend)
    compiled(X)
    graphmend.diagnose(programs.dc_if, X)
    graphmend.diagnose(programs.clean, X)
    compiled(X)
    assert len(graphs) == 1  # nothing was recompiled


def test_repeated_diagnosis_traces_afresh():
    first = graphmend.diagnose(programs.io_print, X)
    second = graphmend.diagnose(programs.io_print, X)
    assert [b.lineno for b in first.breaks] == [b.lineno for b in second.breaks]
    assert second.graph_count == first.graph_count == 2


def test_a_users_compiled_entry_is_not_reported_as_a_recompile():
    torch.compile(programs.clean, backend="eager")(X)
    report = graphmend.diagnose(programs.clean, X)
    assert report.recompiles == []


def test_a_rewritten_region_maps_to_its_first_line_of_code():
    """A break in graphmend's code for an ``if`` is reported at the ``if``,
    not at a blank line or comment the rewrite replaced with it."""
    from graphmend.analysis.source import line_map

    before = ["def f(x):\n", "\n", "    # why\n", "    if x:\n", "        x = 1\n", "    return x\n"]
    after = ["def f(x):\n", "    _gm_cond_4 = x\n", "    if _gm_cond_4:\n", "        x = 1\n", "    return x\n"]
    assert line_map(before, after, 10) == [10, 13, 13, 14, 15]


def _shrink(x):
    if (x > 0).any():
        x = x * 2
    if x.shape[0] > 1:
        return _shrink(x[: x.shape[0] // 2]) + x.sum()
    return x.sum()


def test_a_second_diagnosis_counts_what_the_first_did():
    """Sizes that change inside one call (a recursion on fewer rows, as
    entmax's sparsemax) make Dynamo recompile and remember those sizes as
    dynamic, for that code, past a reset of its compiled entries: a second
    diagnosis in the process counted 5 graphs where the first counted 8,
    and a diagnosis after mending looked like a gain.  Each diagnosis now
    starts from that memory as a fresh process does, and leaves it as it was."""
    x = torch.arange(8.0) - 2
    counts = [graphmend.diagnose(_shrink, x).graph_count for _ in range(3)]
    assert counts[0] > 2 and counts == [counts[0]] * 3
    compiled = torch.compile(_shrink, backend="eager")
    compiled(x)  # what the user's own compile learnt counts neither
    assert graphmend.diagnose(_shrink, x).graph_count == counts[0]


def _logs_with_loguru(x):
    from loguru import logger

    y = x * 2
    logger.warning(f"rows {x.shape[0]}")
    return y + 1


def test_a_break_inside_loguru_is_reported_at_the_users_call():
    """Dynamo inlines loguru and breaks deep inside it (``get_frame``); the
    break belongs to the line that logged, which [Defer] rewrites, as a
    break inside graphmend's runtime belongs to the rewritten line."""
    loguru = pytest.importorskip("loguru")
    sink = loguru.logger.add(lambda message: None)  # a handler: loguru returns early without one
    try:
        report = graphmend.diagnose(_logs_with_loguru, torch.ones(2))
    finally:
        loguru.logger.remove(sink)
    (site,) = report.breaks
    assert (site.filename, site.category, site.rule) == (__file__, "IO", "defer")
    assert site.statement.startswith("logger.warning(")


def _guard_over_lines(x, steps):
    if (
        torch.round(torch.max(x)).long() > (steps - 1)
        and steps > 0
    ):
        raise ValueError("out of range")
    return x * 2


def test_a_test_spanning_lines_is_reported_at_its_if():
    """Dynamo names the line of the comparison that broke, inside the test
    (snntorch's ``latency``); the rules act on the ``if`` at its first line,
    so the site is that line, and the statement is the whole test."""
    (site,) = graphmend.diagnose(_guard_over_lines, torch.ones(3), 4).breaks
    assert site.lineno == inspect.getsourcelines(_guard_over_lines)[1] + 1
    assert site.statement == "if (torch.round(torch.max(x)).long() > (steps - 1) and steps > 0):"
    assert (site.category, site.rule, site.fixable) == ("GUARD", "trap", True)


JUMPS_ON_NUMBERS = '''
def stopping(self, x, f):
    fval: float = float(f.item())
    if fval < self.best:
        self.best = fval
    n = (x > 0).sum().item()
    if n > 3:
        x = x * 2
    if float(f) > 0.5:
        x = x - 1
    return x
'''


@pytest.mark.parametrize("line, rule", [(4, None), (7, "where"), (9, "where")])
def test_a_jump_on_a_captured_number_is_fixable_only_where_the_test_reads_it_back(tmp_path, line, rule):
    """Under [Capture] ``if`` on a read-back number jumps on a
    ``SymNodeVariable``.  [Where] lowers the test to a tensor test where it
    reads the read-back itself (``float(f) > 0.5``) or through a plain
    assignment (``n = ....item()``); a number bound otherwise (an annotated
    assignment) stays a Python number in the rewritten test, so that break
    is not reported fixable and the hint says what would make it so."""
    from graphmend.diagnosis.categories import static_fix

    source = tmp_path / "jumps.py"
    source.write_text(JUMPS_ON_NUMBERS)
    fixed_by, hint = static_fix("DC", "generic_jump SymNodeVariable()", str(source), line)
    assert fixed_by == rule
    assert (hint is not None and "keep the value a tensor" in hint) == (rule is None)
    assert static_fix("DC", "generic_jump TensorVariable()", str(source), line)[0] == "where"


BRANCHES_IN_A_LOOP = '''
import torch


def attack(x, steps):
    prev = 1e10
    for step in range(steps):
        cost = (x * step).sum()
        if cost.item() > prev:
            return x
        prev = cost.item()
        if cost.item() > 30:
            break
        if cost.item() > 20:
            x = x * 2
        else:
            x = x - 1
    if x.sum().item() > 0:
        return x
    return -x
'''


@pytest.mark.parametrize("line, rule", [(9, None), (12, None), (14, "where"), (18, "where")])
def test_a_branch_leaving_its_loop_on_one_arm_is_not_fixable(tmp_path, line, rule):
    """torchattacks' CW stops early with ``if cost.item() > prev_cost:
    return best_adv_images`` inside its step loop.  [Where] runs both arms
    of what it merges, and leaving a loop cannot be run both ways: the
    rules decline such a branch (a return inside a loop, a ``break``), so
    the break is not reported fixable, and graphmend.compile's first call
    compiles its frame instead of running it eagerly to mend it for nothing.
    A branch in the loop that leaves it on neither arm, and an early return
    outside any loop, stay [Where]'s."""
    from graphmend.diagnosis.categories import static_fix
    from graphmend.pipeline import transform_source

    source = tmp_path / "loops.py"
    source.write_text(BRANCHES_IN_A_LOOP)
    for category, reason in (("SCALAR", "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
                             ("DC", "generic_jump TensorVariable()")):
        fixed_by, hint = static_fix(category, reason, str(source), line)
        assert fixed_by == rule
        assert (hint is not None and "leaves its loop" in hint) == (rule is None)
    mended = transform_source(BRANCHES_IN_A_LOOP, lines=frozenset({line}), filename=str(source)).code
    statement = BRANCHES_IN_A_LOOP.splitlines()[line - 1]
    assert (statement in mended.splitlines()) == (rule is None)  # what the rules decline stays as written
