"""What a user can do where [Capture] gives up (issue 45, pattern 3): one
line per kind of statement a guard on a captured value stands in, none
where the statement is of no known kind or cannot be read."""

from __future__ import annotations

import ast
import warnings

import pytest
import torch
import torch.nn.functional as F

import graphmend
from graphmend.compat.capture import UNROLLED
from graphmend.diagnosis.advice import ADVICE, UNROLLED_LOOP, for_fallback, kind_of

GUARD_REASON = ("a captured value meets a guard: Could not extract specialized integer from data-dependent "
                "expression u0 (unhinted: u0).  (Size-like symbols: none) at {where}")


@pytest.mark.parametrize(("source", "line", "kind"), [
    ("y = F.one_hot(i, max(m + 1, 4))", 1, "one_hot"),
    ("for k in range(n):\n    y = y + k", 1, "range"),
    ("y = x.new_zeros(n, 3)", 1, "size"),
    ("y = x.view(n, -1)", 1, "size"),
    ("y = max(n, 4)", 1, "min_max"),
    ("if n > 3:\n    y = x", 1, "branch"),
    ("while n:\n    n = n - 1", 1, "branch"),
    ("y = x if n > 3 else -x", 1, "branch"),
    ("assert n > 0", 1, "check"),
    ("if n < 0:\n    raise ValueError(n)", 1, "check"),
    ("if n < 0:\n    raise ValueError(n)\nelse:\n    y = x", 1, "branch"),
    ("y = x + n", 1, None),  # nothing in it needs a Python value: no guess
    ("for k in x.tolist():\n    y = y + k", 1, None),
])
def test_each_kind_of_statement(source: str, line: int, kind: str | None) -> None:
    statement = ast.parse(source).body[0]
    assert kind_of(statement, line) == kind


def test_a_body_line_of_a_loop_is_not_its_header() -> None:
    loop = ast.parse("for k in range(4):\n    y = x + k").body[0]
    assert kind_of(loop, 2) is None


def test_a_guard_reads_the_statement_at_its_line(tmp_path) -> None:
    path = tmp_path / "routing.py"
    path.write_text("import torch\n\ndef route(i, n):\n    return torch.nn.functional.one_hot(i, int(n))\n")
    assert for_fallback(GUARD_REASON.format(where=f"{path}:4")) == ADVICE["one_hot"]


def test_no_advice_where_the_source_cannot_be_read(tmp_path) -> None:
    assert for_fallback(GUARD_REASON.format(where=f"{tmp_path / 'gone.py'}:4")) is None


def test_no_advice_for_a_reason_that_is_not_a_guard(tmp_path) -> None:
    path = tmp_path / "sizes.py"
    path.write_text("def f(x, n):\n    return x.view(n, -1)\n")
    why = f"the compiled graph would assume a captured size: u0 >= 2 at {path}:2"
    assert for_fallback(why) is None


def test_a_loop_not_unrolled_has_its_own_advice() -> None:
    why = f"Dynamo cannot compile the frame with the switches on: {UNROLLED}: 3 data-dependent shapes made at x.py:3"
    assert for_fallback(why) == UNROLLED_LOOP


def route(indexes, n: int = 4):
    max_index = indexes.max().item()
    return F.one_hot(indexes, max(max_index + 1, n)).float().sum(0)


def count_up(x):
    total = x.new_zeros(())
    for i in range(int(x.sum())):
        total = total + i
    return total


@pytest.mark.parametrize(("fn", "x", "kind"), [
    (route, torch.tensor([0, 2, 1]), "one_hot"),
    (count_up, torch.tensor([1.0, 2.0]), "range"),
])
def test_the_report_of_a_compiled_object_says_what_to_change(fn, x, kind) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = graphmend.compile(fn)
        compiled(x)
        report = graphmend.diagnose(compiled, x)
    [fallback] = report.fallbacks
    assert fallback.function == fn.__name__
    assert fallback.advice == ADVICE[kind]
    notes = report.notes()
    assert notes[notes.index(next(n for n in notes if n.startswith("fallback: "))) + 1] == \
        f"  what you can do: {ADVICE[kind]}"
    assert report.to_dict()["fallbacks"][0]["advice"] == ADVICE[kind]

