"""``graphmend fix``: the static codemod over files and folders.

Nothing is executed.  Each file is read as bytes, decoded with the encoding
Python itself would use (PEP 263), rewritten by the pipeline with every rule
matching statically (with what it imports from its own project's other
files: :mod:`graphmend.analysis.project`), and, with ``write``, replaced
atomically: a temporary
file in the same folder, the original's permissions, then ``os.replace``.
A file that cannot be read or parsed is reported and left byte for byte
untouched.  Files are independent: with more than one, they are shared
out over a pool of processes, one per core (``jobs``), and reported in the
order given.
"""

from __future__ import annotations

import ast
import concurrent.futures
import difflib
import functools
import io
import multiprocessing
import os
import shutil
import sys
import tempfile
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from graphmend.analysis.project import imported_effect_helpers, imported_target
from graphmend.analysis.source import collector_paused
from graphmend.errors import SourceError
from graphmend.pipeline import TransformResult, transform_source


@dataclass
class FileResult:
    path: str
    result: TransformResult | None = None
    error: str | None = None  # "file:line: message"
    original: str = ""

    @property
    def changed(self) -> bool:
        return self.result is not None and self.result.changed

    def diff(self) -> str:
        if not self.changed:
            return ""
        return "".join(
            difflib.unified_diff(
                self.original.splitlines(keepends=True),
                self.result.code.splitlines(keepends=True),
                fromfile=f"a/{self.path}",
                tofile=f"b/{self.path}",
            )
        )

    def to_dict(self) -> dict:
        result = self.result
        return {
            "path": self.path,
            "changed": self.changed,
            "error": self.error,
            "sites": [vars(s) for s in result.sites] if result else [],
            "skips": [vars(s) for s in result.skips] if result else [],
        }


@dataclass
class FixRun:
    files: list[FileResult] = field(default_factory=list)

    @property
    def errors(self) -> list[FileResult]:
        return [f for f in self.files if f.error]

    @property
    def changed(self) -> list[FileResult]:
        return [f for f in self.files if f.changed]


def python_files(paths: Iterable[str]) -> Iterator[str]:
    """The ``.py`` files named or found under folders, each once.

    Symbolic links to folders are not followed, so a link loop cannot make
    the walk endless.
    """
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.endswith(".py"):
                        candidate = os.path.join(root, name)
                        if candidate not in seen:
                            seen.add(candidate)
                            yield candidate
        elif path not in seen:
            seen.add(path)
            yield path


def _decode(raw: bytes, path: str) -> tuple[str, str]:
    """(text, encoding) the way Python decodes a source file."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding), encoding
    except (SyntaxError, UnicodeDecodeError, LookupError) as err:
        raise SourceError(path, 1, f"cannot decode: {err}") from None


def _check_syntax(text: str, path: str) -> None:
    try:
        ast.parse(text, path)
    except SyntaxError as err:
        raise SourceError(path, err.lineno or 1, err.msg) from None


def fix_file(path: str, *, rules: Iterable[str] | None, write: bool) -> FileResult:
    outcome = FileResult(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        if b"\0" in raw:
            raise SourceError(path, 1, "binary file, not Python source")
        text, encoding = _decode(raw, path)
        outcome.original = text
        if "torch" not in text:
            # No rule applies to a file that never mentions torch (TorchFix skips
            # them too); a syntax error is still reported, cheaply.
            _check_syntax(text, path)
            outcome.result = TransformResult(text, False, (), ())
            return outcome
        try:
            helpers = imported_effect_helpers(path, ast.parse(text, path))
        except SyntaxError as err:
            raise SourceError(path, err.lineno or 1, err.msg) from None
        try:
            outcome.result = transform_source(text, rules=rules, filename=path, effect_helpers=helpers,
                                              imported=imported_target)
        except Exception as err:  # a bug in graphmend: this file is reported and left alone, the others go on
            raise SourceError(path, 1, f"graphmend failed on this file ({type(err).__name__}: {err}); it is left "
                              "untouched (a bug in graphmend: please report it)") from err
        if write and outcome.changed:
            _replace_atomically(path, outcome.result.code.encode(encoding))
    except SourceError as err:
        outcome.error = str(err)
    except OSError as err:
        outcome.error = f"{path}:1: {err.strerror or err}"
    return outcome


def _replace_atomically(path: str, data: bytes) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".graphmend-", suffix=".py", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _fix_quickly(path: str, *, rules: tuple[str, ...] | None, write: bool) -> FileResult:
    with collector_paused():
        return fix_file(path, rules=rules, write=write)


def fix_paths(paths: Iterable[str], *, rules: Iterable[str] | None = None, write: bool = False,
              jobs: int | None = None) -> FixRun:
    rules = tuple(rules) if rules is not None else None
    files = list(python_files(paths))
    fix = functools.partial(_fix_quickly, rules=rules, write=write)
    jobs = min(jobs or os.cpu_count() or 1, len(files))
    if jobs <= 1:
        return FixRun([fix(path) for path in files])
    # Forking a process that holds torch's thread pools is unsafe; the CLI
    # (which imports no torch) forks, a library caller with torch spawns.
    context = multiprocessing.get_context("spawn" if "torch" in sys.modules else "fork")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        return FixRun(list(pool.map(fix, files, chunksize=max(1, len(files) // (jobs * 8)))))
