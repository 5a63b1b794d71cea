"""Equivalence harness: run original and mended code on the same inputs.

An :class:`Outcome` is everything a user can observe of one call: the value,
stdout, stderr, log records, warnings and the exception.  Rule tests assert
that the mended code gives the same Outcome eagerly and under
``torch.compile``, and that it compiles to the expected number of graphs.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import logging
import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

from graphmend.compare import first_difference
from graphmend.diagnosis.counting import GraphCounter  # noqa: F401  (tests import it from here)
from graphmend.pipeline import TransformResult, transform_source

_module_ids = itertools.count()
_TORCH_DIR = os.path.dirname(torch.__file__)


@dataclass
class Outcome:
    value: Any = None
    stdout: str = ""
    stderr: str = ""
    logs: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[tuple[type, str]] = field(default_factory=list)
    error: tuple[type, str] | None = None


class _RecordingHandler(logging.Handler):
    def __init__(self, prefix: str) -> None:
        super().__init__(logging.NOTSET)
        self.prefix = prefix
        self.records: list[tuple[str, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(self.prefix):
            self.records.append((record.name, record.levelname, record.getMessage()))


def outcome_of(
    fn: Callable[..., Any], *args: Any, logs_from: str = "", torch_warnings: bool = True, **kwargs: Any
) -> Outcome:
    """Call ``fn`` and record everything observable about the call: the log
    records of loggers named ``logs_from...``, and the warnings, torch's own
    too unless ``torch_warnings`` is False (the filter goes by the warning's
    file: a user's warning with a ``stacklevel`` pointing into torch's
    ``torch.compile`` wrapper would be dropped too)."""
    outcome = Outcome()
    handler = _RecordingHandler(logs_from)
    root = logging.getLogger()
    root.addHandler(handler)
    # Torch's own log lines on stderr are Dynamo's diagnostics of the
    # compilation, some printed once per process (torch 2.15's "Graph break
    # from `Tensor.item()`" warning, torch 2.14's ERROR "failed while
    # attempting to run meta for aten.add.Tensor" from its fake tensors), so
    # whichever arm compiles first shows them: they are not the program's
    # output.
    torch_handlers = [
        (h, h.level)
        for name, logger in list(logging.root.manager.loggerDict.items())
        if (name == "torch" or name.startswith("torch.")) and isinstance(logger, logging.Logger)
        for h in logger.handlers
    ]
    for torch_handler, _ in torch_handlers:
        torch_handler.setLevel(logging.CRITICAL + 1)
    out, err = io.StringIO(), io.StringIO()
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(
            out
        ), contextlib.redirect_stderr(err):
            warnings.simplefilter("always")
            try:
                outcome.value = fn(*args, **kwargs)
            except Exception as exc:  # the exception is part of the outcome
                outcome.error = (type(exc), str(exc))
    finally:
        root.removeHandler(handler)
        for torch_handler, level in torch_handlers:
            torch_handler.setLevel(level)
    outcome.stdout, outcome.stderr = out.getvalue(), err.getvalue()
    outcome.logs = handler.records
    outcome.warnings = [(w.category, str(w.message)) for w in caught if torch_warnings or not _torch_warning(w)]
    return outcome


def _torch_warning(caught: warnings.WarningMessage) -> bool:
    """Torch's own warnings: from its Python code, or from its C++ code
    (``TORCH_WARN_ONCE``: once per process, so whichever arm runs first)."""
    return caught.filename.startswith(_TORCH_DIR) or "(Triggered internally at " in str(caught.message)


def assert_same_outcome(expected: Outcome, actual: Outcome, label: str) -> None:
    assert actual.error == expected.error, f"{label}: exception differs"
    assert actual.stdout == expected.stdout, f"{label}: stdout differs"
    assert actual.stderr == expected.stderr, f"{label}: stderr differs"
    assert actual.logs == expected.logs, f"{label}: log records differ"
    assert actual.warnings == expected.warnings, f"{label}: warnings differ"
    difference = first_difference(expected.value, actual.value)
    assert difference is None, f"{label}: {difference}"


def load_module(source: str, directory: Path, stem: str = "case") -> Any:
    """Import ``source`` from a real file, so inspect and tracebacks work."""
    name = f"gm_case_{stem}_{next(_module_ids)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compiled_outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Outcome, int]:
    """The Outcome of ``fn`` under ``torch.compile``, and its graph count."""
    torch._dynamo.reset()
    counter = GraphCounter()
    outcome = outcome_of(torch.compile(fn, backend=counter), *args, **kwargs)
    return outcome, counter.graphs


def mend_source(
    source: str, directory: Path, *, rules: list[str] | None = None, lines: frozenset[int] | None = None
) -> tuple[Any, Any, TransformResult]:
    """(original module, mended module, transform result) for ``source``
    (with ``lines``: mended as a diagnosis that reported them drives it)."""
    result = transform_source(source, rules=rules, lines=lines)
    return load_module(source, directory, "orig"), load_module(result.code, directory, "mended"), result


def check_equivalent(
    source: str,
    function: str,
    arg_sets: list[tuple[Any, ...]],
    directory: Path,
    *,
    rules: list[str] | None = None,
    graphs: int | None = 1,
    lines: frozenset[int] | None = None,
    rewritten: bool = True,
) -> TransformResult:
    """Original and mended ``function`` agree eagerly and compiled on every
    argument set, and the mended one compiles to ``graphs`` graphs.

    The rules must have done what the test is about, or the comparison
    would pass with the original compared to itself: with ``rewritten``,
    one of ``rules`` (any rule when None) rewrote a site; without, one of
    them declined a site and said why."""
    original, mended, result = mend_source(source, directory, rules=rules, lines=lines)
    named = (lambda rule: True) if rules is None else (lambda rule: rule in rules)
    if rewritten:
        assert any(named(site.rule) for site in result.sites), f"nothing rewritten; skips: {result.skips}"
    else:
        assert any(named(skip.rule) for skip in result.skips), f"nothing declined; sites: {result.sites}"
    for args in arg_sets:
        expected = outcome_of(getattr(original, function), *_clone(args))
        assert_same_outcome(expected, outcome_of(getattr(mended, function), *_clone(args)), "eager")
        outcome, graph_count = compiled_outcome(getattr(mended, function), *_clone(args))
        assert_same_outcome(expected, outcome, "compiled")
        if graphs is not None:
            assert graph_count == graphs, f"compiled to {graph_count} graphs, wanted {graphs}"
    return result


def _clone(args: tuple[Any, ...]) -> tuple[Any, ...]:
    # Each run gets its own copies so in-place mutation cannot leak between arms.
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
