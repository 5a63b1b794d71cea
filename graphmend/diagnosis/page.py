"""A report as one self-contained HTML page (:meth:`Report.to_html`,
``graphmend diagnose --html``): the summary of each view, the table, and per
site its source lines with the break highlighted beside the code
graphmend.compile runs there, then [Capture]'s fallbacks and the recompiles.

Nothing is drawn by hand: rich renders the summary and the tables (its HTML
export, styles inline) and Pygments the code (inline styles too), so the
page needs no stylesheet, script or font from anywhere.  The elements the
page itself adds carry the numbers as ``data-`` attributes, for tools.
"""

from __future__ import annotations

import html
import io
import linecache
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from rich.console import Console
from rich.table import Table

from graphmend.analysis.source import parse_file

#: Lines of source shown for a statement that spans more (an ``if`` and its body).
MOST_LINES = 14

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; }}
pre {{ font-family: Menlo, "DejaVu Sans Mono", Consolas, monospace; font-size: 13px; }}
.code {{ display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }}
.site {{ border-top: 1px solid #ccc; padding-top: .5em; }}
</style>
</head>
<body>
<h1>{title}</h1>
{body}
</body>
</html>
"""


def _rich_html(renderable: Any) -> str:
    """``renderable`` as rich draws it on a terminal, exported with inline styles."""
    console = Console(record=True, width=160, file=io.StringIO(), color_system="truecolor")
    console.print(renderable)
    return console.export_html(inline_styles=True, code_format="<pre>{code}</pre>")


def _code(text: str, first_line: int | None = None, marked: tuple[int, ...] = ()) -> str:
    """``text`` highlighted by Pygments, lines numbered from ``first_line``
    (none where it is not file lines) and the ``marked`` ones (file lines)
    highlighted."""
    formatter = HtmlFormatter(noclasses=True, linenos="inline" if first_line else False,
                              linenostart=first_line or 1,
                              hl_lines=[line - first_line + 1 for line in marked] if first_line else [])
    return highlight(text, PythonLexer(), formatter)


def _source(filename: str, lineno: int) -> tuple[str, int, tuple[int, ...]]:
    """The source lines of the statement at ``filename:lineno`` (at most
    :data:`MOST_LINES`), the first one's number, and the lines the break
    is on: the statement, or the header of a compound one."""
    statement = parsed.statement_at(lineno) if (parsed := parse_file(filename)) is not None else None
    first, last = (statement.lineno, statement.end_lineno) if statement is not None else (lineno, lineno)
    body = getattr(statement, "body", None)
    header_end = body[0].lineno - 1 if body else last
    marked = tuple(range(first, max(header_end, first) + 1))
    last = min(last, first + MOST_LINES - 1)
    text = "".join(linecache.getline(filename, line) for line in range(first, last + 1))
    return text, first, marked


def _summary(report: Any) -> Table:
    table = Table(title="summary", show_lines=False)
    for column in ("", "graphs compiled", "graph runs per call", "breaks", "sites held", "fallbacks",
                   "graphs thrown away", "recompiles"):
        table.add_column(column, justify="right" if column else "left")
    for side in _sides(report):
        mended = side.view == "graphmend.compile"
        table.add_row(side.view, str(side.graph_count), "-" if side.graph_calls is None else str(side.graph_calls),
                      str(side.break_events), str(len(side.held)) if mended else "-",
                      str(len(side.fallbacks)) if mended else "-",
                      str(len(side.thrown_away)) if mended and side.thrown_away is not None else "-",
                      str(len(side.recompiles)))
    return table


def _sides(report: Any) -> list[Any]:
    return [report] if report.mended is None else [report, report.mended]


def _view_attributes(side: Any) -> str:
    numbers = {"view": side.view, "graphs": side.graph_count, "graph-runs": side.graph_calls,
               "breaks": side.break_events, "sites": len(side.breaks), "held": len(side.held),
               "fallbacks": len(side.fallbacks),
               "thrown-away": None if side.thrown_away is None else len(side.thrown_away),
               "recompiles": len(side.recompiles)}
    return " ".join(f'data-{name}="{html.escape(str(value))}"' for name, value in numbers.items() if value is not None)


def _site(index: int, row: Any) -> str:
    site = row.site
    text, first, marked = _source(site.filename, site.lineno)
    before = "-" if row.before is None else str(row.before.count)
    after = "held" if row.held is not None else "-" if row.after is None else str(row.after.count)
    status = (f"torch.compile: {'no break' if row.before is None else f'{row.before.count} break(s)'}; "
              f"graphmend.compile: " + (f"held by [{row.held.held_by}]" if row.held is not None
                                        else "no break" if row.after is None else f"{row.after.count} break(s)"))
    mended = (_code(row.mended_code) if row.mended_code
              else "<p>runs the statement as written</p>")
    return (f'<section class="site" id="site-{index}" data-file="{html.escape(site.filename)}" '
            f'data-line="{site.lineno}" data-category="{site.category}" data-torch-compile="{before}" '
            f'data-graphmend-compile="{after}">\n'
            f"<h3>{html.escape(site.category)} {html.escape(site.location)} {html.escape(site.function)}()</h3>\n"
            f"<p>{html.escape(status)}</p>\n<p>{html.escape(row.detail())}</p>\n"
            f'<div class="code"><div><h4>source</h4>{_code(text, first, marked)}</div>'
            f"<div><h4>graphmend.compile runs</h4>{mended}</div></div>\n</section>")


def render(report: Any, title: str = "graphmend diagnosis") -> str:
    """The page of ``report`` (a :class:`graphmend.diagnosis.Report`)."""
    views = "".join(f'<div class="view" {_view_attributes(side)}></div>' for side in _sides(report))
    sites = "\n".join(_site(index, row) for index, row in enumerate(report.rows()))
    parts = [f'<section id="summary">{views}{_rich_html(_summary(report))}</section>',
             f'<section id="table"><h2>sites</h2>{_rich_html(report.table())}</section>',
             f'<section id="sites">{sites}</section>']
    notes = report.notes()
    if notes:
        items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        parts.append(f'<section id="notes"><h2>notes</h2><ul>{items}</ul></section>')
    if report.recompiles:
        parts.append(f'<section id="recompiles"><h2>recompiles</h2>{_rich_html(report.recompile_table())}</section>')
    return _PAGE.format(title=html.escape(title), body="\n".join(parts))
