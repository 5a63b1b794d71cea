"""MkDocs hooks: the pages generated from the code (``mkdocs.yml`` names this file).

* ``rules/*.md`` -- one page per rule module, from its docstring (What it
  does / Why it breaks the graph / Before / After / Safety), and
  ``rules/index.md``, the catalogue: nothing about a rule is written twice;
* ``cli.md`` -- every ``graphmend`` command's ``--help``, from
  :func:`graphmend.cli.build_parser`;
* ``changelog.md`` -- the repository's ``CHANGELOG.md``;
* ``<!-- docstring: graphmend.x -->`` in a page becomes module
  ``graphmend.x``'s docstring (the architecture page is made of them);
* in ``benchmarks.md``, ``<!-- results: FILE.csv -->`` becomes the CSV file
  of ``benchmarks/results/`` as a table, and ``<!-- results: summary -->``
  the table of every measurement in ``summary.json``.

Docstrings are written in reST's plain conventions (a heading line over an
indented block, ``::`` before a literal block, ````code````, ``:mod:`x```);
:func:`docstring_to_markdown` turns exactly those into Markdown.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import textwrap
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

#: (page slug, module file, short name) in the order of the catalogue.
RULE_PAGES = [
    ("where", "graphmend/rules/where/__init__.py", "[Where]"),
    ("where-if-statement", "graphmend/rules/where/if_statement.py", "[Where] if statement"),
    ("where-returns", "graphmend/rules/where/returns.py", "[Where] early returns"),
    ("where-conditional-expression", "graphmend/rules/where/conditional_expression.py",
     "[Where] conditional expression"),
    ("where-while-loop", "graphmend/rules/where/while_loop.py", "[Where] while loop"),
    ("where-truth-assignment", "graphmend/rules/where/truth_assignment.py", "[Where] flags"),
    ("where-masked-store", "graphmend/rules/where/masked_store.py", "[Where] masked store"),
    ("where-scalar-index", "graphmend/rules/where/scalar_index.py", "[Where] scalar index"),
    ("where-static-values", "graphmend/rules/where/static_values.py", "[Where] static values"),
    ("where-builtin-operators", "graphmend/rules/where/builtin_operators.py", "[Where] builtin pow"),
    ("where-state-update", "graphmend/rules/where/state_update.py", "[Where] state updates"),
    ("where-count-facts", "graphmend/rules/where/count_facts.py", "[Where] count facts"),
    ("defer", "graphmend/rules/defer.py", "[Defer]"),
    ("trap", "graphmend/rules/trap.py", "[Trap]"),
    ("unique-reads", "graphmend/rules/unique_reads.py", "[Trap] unique reads"),
    ("one-hot", "graphmend/rules/one_hot.py", "[Trap] one-hot"),
    ("predicates", "graphmend/rules/predicates.py", "test predicates (shared)"),
    ("library-predicates", "graphmend/rules/library_predicates.py", "library predicates (shared)"),
]

_SPEC_REF = re.compile(r"\s*\(SPEC [\d., ]+\)")
_ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc):`~?\.?([^`]+)`")


def _inline(text: str) -> str:
    text = _SPEC_REF.sub("", text)
    text = _ROLE.sub(r"`\1`", text)
    text = text.replace("``", "`").replace("\\ ", "")
    return text


def _is_heading(lines: list[str], i: int) -> bool:
    line = lines[i]
    if not line.strip() or line[0].isspace() or i + 1 >= len(lines):
        return False
    following = lines[i + 1]
    return (
        bool(following.strip())
        and following.startswith("    ")
        and len(line) < 60
        and not line.rstrip().endswith((".", ":", ","))
    )


def docstring_to_markdown(doc: str, heading_level: int = 2) -> str:
    """A module docstring (its first line dropped by the caller) as Markdown."""
    lines = doc.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_heading(lines, i):
            out += ["", "#" * heading_level + " " + line.strip(), ""]
            # The indented block under the heading, dedented.
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith("    ")):
                j += 1
            block = textwrap.dedent("\n".join(lines[i + 1 : j])).splitlines()
            out += _paragraphs(block)
            i = j
            continue
        j = i
        while j < len(lines) and not _is_heading(lines, j):
            j += 1
        out += _paragraphs(lines[i:j])
        i = j
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def _paragraphs(lines: list[str]) -> list[str]:
    """Text lines with ``::`` literal blocks as fenced Python."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.rstrip()
        if stripped.endswith("::"):
            lead = stripped[:-2].rstrip()
            if lead.strip():
                out.append(_inline(lead) + ":")
            indent = len(line) - len(line.lstrip())
            j = i + 1
            code: list[str] = []
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                code.append(lines[j])
                j += 1
            while code and not code[-1].strip():
                code.pop()
            out += ["", "```python", *textwrap.dedent("\n".join(code)).strip("\n").splitlines(), "```", ""]
            i = j
            continue
        # reST nests a list under a numbered item with 3 spaces; Markdown needs 4.
        nested = re.match(r"^( {1,3})([*-] )", line)
        if nested and out and any(re.match(r"^\d+\. ", previous) for previous in out[-40:]):
            line = "    " + line[len(nested.group(1)):]
        out.append(_inline(line))
        i += 1
    return out


def _module_doc(path: str) -> str:
    return ast.get_docstring(ast.parse((ROOT / path).read_text())) or ""


def _title_and_rest(doc: str) -> tuple[str, str]:
    """The summary (the first paragraph, which may wrap) and the rest."""
    title, _, rest = doc.partition("\n\n")
    return " ".join(title.split()), rest


def rule_page(slug: str, path: str) -> str:
    title, rest = _title_and_rest(_module_doc(path))
    module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return (
        f"# {_inline(title).rstrip('.')}\n\n"
        f"*Generated from the docstring of `{module}` (`{path}` in the repository).*\n\n"
        + docstring_to_markdown(rest)
    )


def rules_index() -> str:
    rows = ["| rule | what it rewrites | page |", "|---|---|---|"]
    for slug, path, name in RULE_PAGES:
        title, rest = _title_and_rest(_module_doc(path))
        what = f"**{_inline(title).rstrip('.')}.**"
        first = _first_sentence(rest)
        # A sentence that leads into a code block, or holds a "|" (which a
        # table cell cannot show inside code), stays on the rule's page.
        if first and not first.endswith(":") and "|" not in first and len(first) < 400:
            what += " " + first
        rows.append(f"| {name} | {what} | [{slug}]({slug}.md) |")
    return (
        "# Rule catalogue\n\n"
        "*Generated from the rule modules' docstrings.* Every rule is exact or it declines: a site whose "
        "preconditions a rule cannot prove keeps its code and its break, and `diagnose` and "
        "`graphmend fix -v` say why. The pipeline applies the rules in one pass over each function, "
        "bottom up, in the order [Trap], [Where], [Defer] (see [Architecture](../architecture.md)).\n\n"
        + "\n".join(rows)
        + "\n"
    )


def _first_sentence(text: str) -> str:
    md = docstring_to_markdown(text)
    for block in md.split("\n\n"):
        block = block.strip()
        if not block or block.startswith(("#", "```")):
            continue
        sentence = " ".join(block.split())
        end = re.search(r"(?<!e\.g)(?<!i\.e)\.\s", sentence + " ")
        sentence = sentence[: end.start() + 1] if end else sentence
        return sentence
    return ""


def cli_page() -> str:
    import argparse

    from graphmend.cli import build_parser

    os.environ["COLUMNS"] = "100"
    parser = build_parser()
    parts = [
        "# Command-line reference\n",
        "*Generated from `graphmend.cli.build_parser()`: what `graphmend --help` and "
        "`graphmend COMMAND --help` print.*\n",
        "```text",
        parser.format_help().rstrip(),
        "```\n",
    ]
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subparsers.choices.items():
        parts += [f"## graphmend {name}\n", "```text", sub.format_help().rstrip(), "```\n"]
    return "\n".join(parts)


def _csv_table(name: str) -> str:
    with open(RESULTS / name, newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    lines = ["| " + " | ".join(h.replace("_", " ") for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]
    return "\n".join(lines) + f"\n\n*From `benchmarks/results/{name}`.*"


def _summary_table() -> str:
    data = json.loads((RESULTS / "summary.json").read_text())
    lines = ["| measurement | command | date | machine | torch |", "|---|---|---|---|---|"]
    for key, entry in data.items():
        if not isinstance(entry, dict):
            continue
        lines.append(
            f"| {key.replace('_', ' ')} | `{entry.get('command', '')}` | {entry.get('date', '')} | "
            f"{entry.get('machine', '')} | {entry.get('torch', '')} |"
        )
    return "\n".join(lines)


_RESULTS_MARKER = re.compile(r"<!-- results: ([\w.-]+) -->")
_DOCSTRING_MARKER = re.compile(r"<!-- docstring: ([\w.]+) -->")


def module_docstring(name: str) -> str:
    """The docstring of module ``name`` (a file or a package) as Markdown,
    its first line in bold, headings one level below the page's sections."""
    base = ROOT / name.replace(".", "/")
    path = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
    doc = _module_doc(str(path.relative_to(ROOT)))
    if not doc:
        raise ValueError(f"docs: {name} has no module docstring")
    title, rest = _title_and_rest(doc)
    return (f"**{_inline(title).rstrip('.')}.** *(From the docstring of `{name}`.)*\n\n"
            + docstring_to_markdown(rest, heading_level=4))


def on_files(files: Files, config) -> Files:
    for slug, path, _name in RULE_PAGES:
        files.append(File.generated(config, f"rules/{slug}.md", content=rule_page(slug, path)))
    files.append(File.generated(config, "rules/index.md", content=rules_index()))
    files.append(File.generated(config, "cli.md", content=cli_page()))
    changelog = (ROOT / "CHANGELOG.md").read_text()
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        return _summary_table() if name == "summary" else _csv_table(name)

    markdown = _DOCSTRING_MARKER.sub(lambda match: module_docstring(match.group(1)), markdown)
    return _RESULTS_MARKER.sub(replace, markdown)


def on_config(config):
    # The watcher of `mkdocs serve` also follows the sources the pages come from.
    for extra in ("graphmend", "benchmarks/results", "CHANGELOG.md"):
        if str(ROOT / extra) not in config.watch:
            config.watch.append(str(ROOT / extra))
    return config

