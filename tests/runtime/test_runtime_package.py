"""graphmend.runtime as rewritten code sees it: every name a rule writes
after ``_graphmend.`` (and every name in the fixtures' expected output,
which is what ``graphmend fix`` wrote before) is an attribute of the
package; the replays Dynamo must know are registered; and every function
of the package is skipped as a frame of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import torch

from graphmend import compat, runtime
from graphmend.conventions import RUNTIME_ALIAS
from locations import FIXTURES, ROOT

BUILDERS = {"runtime_call", "runtime_function", "is_runtime_call"}


def _names_the_rules_write() -> set[str]:
    names = set()
    for path in [*(ROOT / "graphmend" / "rules").rglob("*.py"), ROOT / "graphmend" / "pipeline.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in BUILDERS:
                names.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return names


def _names_in_written_code() -> set[str]:
    names = set()
    for path in FIXTURES.rglob("*.out.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == RUNTIME_ALIAS:
                names.add(node.attr)
    return names


def test_every_name_the_rules_write_is_exported() -> None:
    written = _names_the_rules_write()
    assert len(written) > 20, written  # the reader finds them
    assert written <= set(runtime.__all__), written - set(runtime.__all__)


def test_every_name_in_written_code_resolves() -> None:
    written = _names_in_written_code()
    assert {"where", "deferred_print", "deferred_check", "both_arms"} <= written
    missing = {name for name in written if not callable(getattr(runtime, name, None))}
    assert not missing, missing


def test_every_exported_name_is_there() -> None:
    assert all(callable(getattr(runtime, name)) for name in runtime.__all__)


def test_the_replays_are_registered_with_dynamo() -> None:
    registered = torch._dynamo.config.reorderable_logging_functions
    replays = [value for module in runtime.MODULES for name, value in vars(module).items()
               if name.startswith("_replay_")]
    assert len(replays) == 7
    assert all(replay in registered for replay in replays)


def test_every_module_of_the_runtime_is_known_to_compat() -> None:
    # compat treats the runtime's replayable calls as rewritten code's by
    # these files; a module added to the package but not to MODULES would
    # be missed.
    files = {str(path) for path in Path(runtime.__file__).parent.glob("*.py")} - {runtime.__file__}
    assert {module.__file__ for module in runtime.MODULES} == files
    assert files <= compat.tracing.RUNTIME_FILES


def test_the_runtime_reads_every_reader_the_analysis_allows() -> None:
    from graphmend import vocabulary
    from graphmend.runtime import encoding

    assert set(encoding._READERS) == vocabulary.MESSAGE_READERS | vocabulary.MESSAGE_METHOD_READERS | vocabulary.UNIQUE_READERS | {"len"}
