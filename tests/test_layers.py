"""The package's layers (graphmend.layers), held to the imports in its
source: every import, at module level or inside a function (an import
moved into a function to dodge a cycle is still a cycle).

* Every module lies in a layer, and imports only what its layer may.
* ``graphmend.diagnosis`` by concern, each module importing only those
  before it: the counting, the HTML page, the report, a break's category,
  the dry run of the rules, the recording, [Capture]'s verdicts, the entry
  points.
* No import cycle anywhere in the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

from graphmend.layers import LAYERS, layer_of

PACKAGE = Path(__file__).resolve().parent.parent / "graphmend"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(name: str) -> set[str]:
    """The graphmend modules ``name`` imports (``from graphmend import x``
    names module ``graphmend.x`` when there is one)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _within(name: str, *packages: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def test_every_module_lies_in_a_layer() -> None:
    assert [name for name in MODULES if layer_of(name) is None] == []


def test_a_layer_imports_only_the_layers_it_names() -> None:
    wrong = {(name, target) for name, targets in GRAPH.items() for target in targets
             if layer_of(target) not in (layer_of(name), *LAYERS[layer_of(name)])}
    assert not wrong, sorted(wrong)


#: The diagnosis package's modules, each importing only those before it.
DIAGNOSIS_ORDER = ("advice", "counting", "page", "report", "categories", "dry_run", "recording", "capture_verdicts", "tracing")


def test_diagnosis_modules_import_only_those_before_them() -> None:
    modules = [f"graphmend.diagnosis.{name}" for name in DIAGNOSIS_ORDER]
    assert set(modules) == {name for name in MODULES if name.startswith("graphmend.diagnosis.")}
    wrong = {(name, target) for index, name in enumerate(modules) for target in GRAPH[name]
             if _within(target, "graphmend.diagnosis") and target not in modules[:index]}
    assert not wrong, sorted(wrong)


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for target in sorted(GRAPH[name]):
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in on_stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for name in sorted(GRAPH):
        if name not in index:
            visit(name)
    return components


def test_no_import_cycle() -> None:
    assert _cycles() == []


def test_the_reader_sees_the_imports() -> None:
    # The contract is only as good as the reader: a few imports it must see.
    assert "graphmend.compat" in GRAPH["graphmend.runtime.defer"]
    assert "graphmend.runtime" in GRAPH["graphmend.pipeline"]  # imported inside a function
    assert "graphmend.analysis.scan" in GRAPH["graphmend.mending.rewrite"]
