"""What a user can do where [Capture] gives up on a frame: one line, from
the statement where a value read from a tensor met Python.

[Capture] gives up where Dynamo needs a Python value that only the data
decides (a guard on an unbacked symbol: "Could not extract specialized
integer", "generic_jump SymNodeVariable").  Dynamo's message names the
symbol, not what the code asked of it.  The statement at the guard's line
does: a ``range()`` to unroll, a one-hot width, a size, a Python
``max()``, a check that raises, a branch.  Each kind has a change in the user's code that keeps
the value in the graph; this module names it.  Where the statement is none
of these (or cannot be read), there is no advice rather than a guess.
"""

from __future__ import annotations

import ast
import re

from graphmend.analysis.scan import raises_only
from graphmend.analysis.source import statement_at
from graphmend.compat.capture import UNROLLED, unbacked_guard
from graphmend.vocabulary import SIZE_FUNCTION_POSITIONS, SIZE_METHODS

#: ``... at <file>:<line>``, how a fallback's reason ends (:mod:`graphmend.compat.capture`).
_AT = re.compile(r" at (?P<filename>.+):(?P<lineno>\d+)$")
#: Calls that take sizes as Python ints (torch functions and tensor methods
#: alike): the rules' tables, and factories only advice needs to name.
_SIZE_TAKERS = (frozenset(SIZE_FUNCTION_POSITIONS) | SIZE_METHODS
                | frozenset({"randint", "randperm", "eye", "linspace", "new_full", "unflatten"}))

#: Each kind of statement, the advice for it, in the order they are tried
#: (``one_hot(x, max(n, k))`` is a one-hot width before it is a ``max()``).
ADVICE = {
    "one_hot": "one_hot takes its number of classes as a Python int, read here from a tensor: pass the static "
               "count (e.g. the number of experts or classes) and check the indices against it after the call",
    "range": "range() of a value read from a tensor: Dynamo unrolls a Python loop while it traces and needs its "
             "count then; loop to a static bound and mask the extra steps with torch.where, or write the loop "
             "as tensor operations",
    "size": "a value read from a tensor is used as a size that Dynamo must know here: use a static size (an "
            "upper bound) and mask or slice the result, or keep the value a tensor",
    "min_max": "Python's max()/min() compares a value read from a tensor with a Python number: keep both sides "
               "tensors (torch.maximum, torch.clamp) or compare with a static bound",
    "check": "a check that raises decides on a value read from a tensor: state it as torch._check(...) "
             "(Dynamo assumes it and checks it when the graph runs, raising a RuntimeError of its own), or "
             "make it before the compiled call",
    "branch": "a Python branch decides on a value read from a tensor: compute both arms and select with "
              "torch.where, or move the test out of the compiled function",
}
#: A loop whose steps each make a data-dependent shape ([Capture]'s ``UNROLLED`` break).
UNROLLED_LOOP = ("each step of this loop makes a shape from the data, and [Capture] does not unroll such a loop "
                 "(a copy of its body per step, again for each trip count): do the steps as one batched tensor "
                 "operation, or call the loop outside the compiled function")


def for_fallback(why: str) -> str | None:
    """The advice for a fallback whose reason is ``why``: by the statement
    at the ``file:line`` a guard's reason ends in, or for a loop [Capture]
    does not unroll; None for other reasons and statements of no kind this
    module knows."""
    if UNROLLED in why:
        return UNROLLED_LOOP
    found = _AT.search(why)
    if found is None or not unbacked_guard(why):
        return None
    lineno = int(found["lineno"])
    statement = statement_at(found["filename"], lineno)  # None without source, or where it does not parse
    if statement is None:
        return None
    kind = kind_of(statement, lineno)
    return None if kind is None else ADVICE[kind]


def kind_of(statement: ast.stmt, lineno: int) -> str | None:
    """What ``statement`` asks of a value at ``lineno``: a key of
    :data:`ADVICE`, or None."""
    header = _header(statement)
    calls = [_called_name(node) for tree in header for node in ast.walk(tree) if isinstance(node, ast.Call)]
    if "one_hot" in calls:
        return "one_hot"
    if isinstance(statement, ast.For) and statement.lineno == lineno and "range" in calls:
        return "range"
    if any(name in _SIZE_TAKERS for name in calls):
        return "size"
    if "max" in calls or "min" in calls:
        return "min_max"
    if isinstance(statement, ast.Assert) or raises_only(statement) and not statement.orelse:
        return "check" if statement.lineno == lineno else None
    if isinstance(statement, (ast.If, ast.While)) and statement.lineno == lineno:
        return "branch"
    if any(isinstance(node, (ast.IfExp, ast.BoolOp)) for tree in header for node in ast.walk(tree)):
        return "branch"
    return None


def _header(statement: ast.stmt) -> list[ast.AST]:
    """The parts of ``statement`` that run at its first line: a compound
    statement's test or iterable (not its body), a simple statement whole."""
    if isinstance(statement, (ast.If, ast.While)):
        return [statement.test]
    if isinstance(statement, ast.For):
        return [statement.iter]
    if isinstance(statement, ast.With):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)):
        return []
    return [statement]


def _called_name(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id
    if isinstance(function, ast.Attribute):
        return function.attr
    return None
