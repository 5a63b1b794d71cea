"""diagnose of what graphmend.compile runs (issue 44): the report of a
compiled object against the counting backend, the head line against the
rows, both sides of a plain model, assert_graphs on a compiled object, the
HTML page, and the CLI's --mended and --html."""

from __future__ import annotations

import html.parser
import inspect
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import graphmend
from graphmend.diagnosis import BreakRecorder, GraphCounter, Report
from graphmend.testing import assert_graphs
from programs import categories as programs

X = torch.linspace(-1.0, 1.0, 8)


@pytest.fixture(autouse=True)
def _quiet_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture(autouse=True)
def _programs_unmended():
    """graphmend.compile mends in place: the shared programs are put back."""
    yield
    for fn in [*CATEGORY_PROGRAMS, programs.scalar_argument]:
        graphmend.unmend(fn)


def other(x):
    y = x * 2
    torch._dynamo.graph_break()  # OTHER: nothing to mend or capture
    return y * 3


def issue_example(x):
    """The issue's ``f``: a count read with ``int``, a branch on a tensor, a print."""
    n = int((x > 0).sum())
    if x.sum() > 0:
        x = x + n
    print("rows", x.shape)
    return x * 2


def declined_branch(x):
    """A tensor ``if`` the rules decline (a random draw in its arm): the first
    call runs its frame eagerly, and the report still counts the graphs the
    calls after it compile."""
    y = x * 2
    if x.sum() > 0:
        y = y + torch.rand_like(y)
    return y - 1


CATEGORY_PROGRAMS = [programs.dc_if, programs.io_print, programs.guard, programs.scalar_if,
                     programs.scalar_value, programs.ds_nonzero, programs.ds_mask, other, issue_example,
                     declined_branch]


def _as_compiled_runs(fn, x):
    """What ``graphmend.compile(fn)`` runs, counted at its backend: the graphs
    the calls until it settles compile, the graph runs of a warm call, the
    sites of the breaks its first call meets, the graphs never run."""
    counter = GraphCounter("eager")
    compiled = graphmend.compile(fn, backend=counter)
    with BreakRecorder() as recorder:  # a watched call may run a frame eagerly, to compile it mended next
        for _ in range(4):
            compiled(x)
    sites = {b.key for b in recorder.report(ask_rules=False).breaks}
    return compiled, counter.graphs, counter.runs_of(lambda: compiled(x)), sites, counter.never_run


@pytest.mark.parametrize("fn", CATEGORY_PROGRAMS, ids=lambda fn: fn.__name__)
def test_a_compiled_objects_report_is_what_its_backend_counts(fn, capsys):
    before = graphmend.diagnose(fn, X, mended=False)
    compiled, graphs, runs, sites, never_run = _as_compiled_runs(fn, X)
    report = graphmend.diagnose(compiled, X)
    assert report.view == "graphmend.compile"
    assert (report.graph_count, report.graph_calls) == (graphs, runs)
    assert {b.key for b in report.breaks} == sites
    assert len(report.thrown_away) == never_run == 0
    # every break torch.compile meets is left or held, never lost
    assert {b.key for b in before.breaks} == sites | {b.key for b in report.held}
    _assert_head_agrees_with_rows(report)


def test_each_category_is_held_by_what_holds_it():
    held = {fn.__name__: [b.held_by for b in graphmend.diagnose(fn, X, mended=True).held]
            for fn in (programs.dc_if, programs.io_print, programs.guard, programs.ds_mask, other)}
    assert held == {"dc_if": ["where"], "io_print": ["defer"], "guard": ["trap"], "ds_mask": ["capture"],
                    "other": []}


def _head_numbers(line: str) -> dict[str, int]:
    return {name.replace(" ", "_"): int(value) for value, name in re.findall(
        r"(\d+) (graph\(s\) compiled|graph run\(s\) per call|break\(s\)|site\(s\) held|fallback\(s\)|"
        r"graph\(s\) thrown away|recompile\(s\))", line)} | dict(
        zip(("sites",), map(int, re.findall(r"at (\d+) site\(s\)", line))))


def _assert_head_agrees_with_rows(report: Report) -> None:
    """The head line of each side counts what the rows show."""
    table = str(report)
    for side in (report, report.mended):
        if side is None:
            continue
        head = _head_numbers(side.summary())
        assert side.summary().startswith(side.view + ":")
        assert head["graph(s)_compiled"] == side.graph_count
        assert head["break(s)"] == sum(b.count for b in side.breaks)
        assert head["sites"] == len(side.breaks)
        if side.view == "graphmend.compile":
            assert head["site(s)_held"] == len(side.held) == table.count("held: ")
            assert head["fallback(s)"] == len(side.fallbacks) == table.count("fallback: ")
            assert head["graph(s)_thrown_away"] == len(side.thrown_away)
        if head["break(s)"] == 0:
            assert side.breaks == []
    rows = report.rows()
    shown = {row.site.key for row in rows}
    assert shown == {b.key for b in report.breaks} | (
        {b.key for b in report.mended.breaks + report.mended.held} if report.mended else set()) | {
        b.key for b in report.held}


def test_the_issue_example_reads_the_same_in_head_and_rows(capsys):
    """A new user's ``print(graphmend.diagnose(graphmend.compile(f), x))``:
    what graphmend.compile runs, not 0 graphs above a row that says the
    count line still breaks."""
    compiled, graphs, runs, _, _ = _as_compiled_runs(issue_example, X)
    report = graphmend.diagnose(compiled, X)
    assert (report.graph_count, report.graph_calls, report.breaks) == (graphs, runs, []) == (1, 1, [])
    assert {b.statement: b.held_by for b in report.held} == {
        "n = int((x > 0).sum())": "capture", "if x.sum() > 0:": "where", 'print("rows", x.shape)': "defer"}
    text = str(report)
    assert "graphmend.compile: 1 graph(s) compiled, 1 graph run(s) per call, 0 break(s) at 0 site(s), " \
           "3 site(s) held" in " ".join(text.split())
    assert "rewritten, still breaks" not in text
    _assert_head_agrees_with_rows(report)


def test_a_plain_model_shows_both_sides_in_one_table(capsys):
    report = graphmend.diagnose(issue_example, X)
    assert report.view == "torch.compile" and report.mended.view == "graphmend.compile"
    assert report.graph_count == 4 and report.mended.graph_count == 1
    rows = {row.site.lineno: (row.torch_cell(), row.mended_cell()) for row in report.rows()}
    assert [cells[1] for cells in rows.values()] == ["[green]held: capture[/]", "[green]held: where[/]",
                                                     "[green]held: defer[/]"]
    text = str(report)
    assert "torch.compile: 4 graph(s) compiled" in text and "graphmend.compile: 1 graph(s) compiled" in text
    _assert_head_agrees_with_rows(report)
    data = json.loads(report.to_json())
    assert data["mended"]["graph_count"] == 1 and len(data["mended"]["held"]) == 3


def test_the_views_on_request():
    torch_only = graphmend.diagnose(programs.dc_if, X, mended=False)
    assert torch_only.mended is None and torch_only.view == "torch.compile" and torch_only.graph_count == 2
    mended_only = graphmend.diagnose(programs.dc_if, X, mended=True)
    assert mended_only.view == "graphmend.compile" and mended_only.graph_count == 1
    compiled = graphmend.compile(programs.dc_if)
    assert graphmend.diagnose(compiled, X, mended=False).graph_count == 2  # torch.compile of its (unmended) code


def test_a_rewritten_site_shows_the_code_graphmend_compile_runs():
    (held,) = graphmend.diagnose(programs.guard, X, mended=True).held
    assert held.mended_code.startswith("if _graphmend.deferred_check(")
    assert held.statement == "if (y > 1e6).any():  # GUARD"


def test_diagnosing_changes_nothing_of_the_users(capsys):
    """The user's compiled object keeps its graphs, every function the code
    it ran, and [Capture]'s switches their values."""
    counter = GraphCounter("eager")
    compiled = graphmend.compile(programs.io_print, backend=counter)
    compiled(X)
    mended_code = programs.io_print.__code__
    plain_code = programs.dc_if.__code__
    switches = (torch._dynamo.config.capture_scalar_outputs, torch._dynamo.config.capture_dynamic_output_shape_ops)
    graphmend.diagnose(compiled, X)
    graphmend.diagnose(programs.dc_if, X)
    compiled(X)
    assert counter.graphs == 1
    assert programs.io_print.__code__ is mended_code and programs.dc_if.__code__ is plain_code
    assert (torch._dynamo.config.capture_scalar_outputs,
            torch._dynamo.config.capture_dynamic_output_shape_ops) == switches
    assert graphmend.mending.live.mended_functions(programs.dc_if) == []


def test_recompiles_of_a_compiled_object():
    compiled = graphmend.compile(programs.scalar_argument)
    report = graphmend.diagnose_calls(compiled, [(X, 2), (X, -3)])
    assert report.view == "graphmend.compile"
    assert [r.call for r in report.recompiles] == [1]


def test_graphs_thrown_away_are_counted_and_named():
    counter = GraphCounter("eager")
    torch.compile(programs.clean, backend=counter)(X)
    assert counter.never_run_origins() == []
    report = Report(graph_count=2, break_count=1, view="graphmend.compile", thrown_away=["categories.py:15 in clean"])
    assert "1 graph(s) thrown away" in report.summary()
    assert "thrown away: a graph compiled and never run, from categories.py:15 in clean" in str(report)


# -- assert_graphs on what ships -------------------------------------------------


class Breaking(torch.nn.Module):
    def forward(self, x):
        print("activations", x.shape)
        if x.sum() > 0:
            x = x * 2
        return x.relu()


def test_assert_graphs_budgets_the_compiled_object():
    model, x = Breaking(), torch.randn(2, 4)
    with pytest.raises(AssertionError, match="Breaking: 2 graphs, at most 1 allowed"):
        assert_graphs(model, x, max_graphs=1)
    report = assert_graphs(graphmend.compile(model), x, max_graphs=1, forbid=("DC", "IO"))
    assert report.view == "graphmend.compile" and report.graph_count == 1
    assert assert_graphs(model, x, max_graphs=1, mended=True).graph_count == 1
    with pytest.raises(AssertionError, match=r"graphmend.compile\(other\): 2 graphs, at most 1 allowed"):
        assert_graphs(graphmend.compile(other), X, max_graphs=1)
    with pytest.raises(AssertionError, match=r"forbidden break \(OTHER\)"):
        assert_graphs(graphmend.compile(other), X, max_graphs=2, forbid=("OTHER",))
    assert_graphs(graphmend.compile(other), X, max_graphs=2)


# -- the HTML page ---------------------------------------------------------------------

_VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "source", "wbr"}


class _Page(html.parser.HTMLParser):
    """A strict reading: every element closed in order, what the page shows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.errors: list[str] = []
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.doctype = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag not in _VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            self.errors.append(f"</{tag}> closes nothing open")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _read_page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    assert page.doctype and not page.errors and page.open == [], (page.errors, page.open)
    tags = {tag for tag, _ in page.elements}
    assert {"html", "head", "title", "body"} <= tags and not tags & {"script", "link", "img", "iframe"}
    assert not re.search(r"(src|href)=|https?://|@import|url\(", text)  # nothing fetched from anywhere
    return page


def _check_page(report: Report, page: _Page) -> None:
    views = {attrs["data-view"]: attrs for tag, attrs in page.elements if attrs.get("class") == "view"}
    for side in (report, report.mended):
        if side is None:
            continue
        numbers = views[side.view]
        assert int(numbers["data-graphs"]) == side.graph_count
        assert int(numbers["data-graph-runs"]) == side.graph_calls
        assert int(numbers["data-breaks"]) == side.break_events
        assert int(numbers["data-held"]) == len(side.held)
        assert int(numbers["data-fallbacks"]) == len(side.fallbacks)
    sites = [attrs for tag, attrs in page.elements if attrs.get("class") == "site"]
    expected = [(row.site.filename, row.site.lineno) for row in report.rows()]
    assert [(s["data-file"], int(s["data-line"])) for s in sites] == expected and expected
    text = "".join(page.text)
    for row in report.rows():
        assert f"{row.site.location} {row.site.function}()" in text
        assert row.site.statement.split("#")[0].strip() in " ".join(text.split())


def test_the_page_shows_every_site_with_its_source_and_mended_code(capsys):
    report = graphmend.diagnose(issue_example, X)
    text = report.to_html()
    page = _read_page(text)
    _check_page(report, page)
    assert "both_arms" in text  # the mended `if` beside its source
    highlighted = re.search(r'<span style="background-color: #ffffcc">.*?(\d+)</span>', text)
    assert highlighted and int(highlighted.group(1)) == report.rows()[0].site.lineno


# -- the CLI ----------------------------------------------------------------------------

SCRIPT = f"""
import torch

{inspect.getsource(issue_example)}
step = torch.compile(issue_example, backend="eager")
for _ in range(3):
    step(torch.linspace(-1.0, 1.0, 8))
"""
#: The lines of issue_example's three breaks in SCRIPT.
SCRIPT_SITES = [SCRIPT.splitlines().index(line) + 1 for line in SCRIPT.splitlines()
                if line.strip() in ("n = int((x > 0).sum())", "if x.sum() > 0:", 'print("rows", x.shape)')]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphmend", *args], cwd=cwd, capture_output=True, text=True)


def test_cli_mended_reports_what_graphmend_compile_runs(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    result = _cli("diagnose", "--mended", "--html", "page.html", "script.py", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[:3] == ["rows torch.Size([8])"] * 3  # the script's own run, once
    data = json.loads(lines[-1])
    assert data["view"] == "torch.compile" and data["graph_count"] == 4
    mended = data["mended"]
    assert mended["view"] == "graphmend.compile" and mended["graph_count"] == 1 and mended["breaks"] == []
    assert sorted(b["held_by"] for b in mended["held"]) == ["capture", "defer", "where"]
    page = _read_page((tmp_path / "page.html").read_text())
    assert [int(attrs["data-line"]) for _, attrs in page.elements if attrs.get("class") == "site"] == SCRIPT_SITES


def test_cli_html_of_a_plain_run(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    result = _cli("diagnose", "--html", "page.html", "script.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "graphmend.compile" not in result.stdout  # no --mended: torch.compile's view alone
    page = _read_page((tmp_path / "page.html").read_text())
    views = [attrs["data-view"] for _, attrs in page.elements if attrs.get("class") == "view"]
    assert views == ["torch.compile"]


def test_cli_mended_of_a_script_that_ships_graphmend_compile(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT.replace("torch.compile(issue_example, ",
                                                       "__import__('graphmend').compile(issue_example, "))
    result = _cli("diagnose", "--mended", "script.py", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert (data["graph_count"], data["mended"]["graph_count"]) == (4, 1)
