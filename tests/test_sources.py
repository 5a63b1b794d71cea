"""The package's sources compile without a warning.

Python warns about an invalid escape sequence (a ``\\ `` in a docstring) only
when it compiles a file, so a user's first process shows it, among the
program's own messages, and later ones, reading the cached bytecode, do
not: the benchmark's first-process arm read "messages differ from eager"
for that warning alone."""

from __future__ import annotations

import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "graphmend"


def test_every_module_compiles_without_a_warning() -> None:
    warned = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
        if caught:
            warned[str(path.relative_to(PACKAGE.parent))] = [str(w.message) for w in caught]
    assert warned == {}
