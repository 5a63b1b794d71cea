"""Two tiny plug-in rules for the tests of mending, so that they do not
depend on what the real rules rewrite (the ``fake_rules`` fixture,
tests/conftest.py, registers them):

* ``mark``: a call ``original(...)`` becomes ``_graphmend.__name__`` (the
  runtime module's name, so the rewrite is visible in the result, and the
  runtime must be bound in the function's globals), and the statement gets a
  ``pass`` after it, so the mended function is one line longer per site.
* ``fakewhere``: ``if T: v = E`` (no else) becomes ``v = torch.where(T, E, v)``.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.conventions import RUNTIME_ALIAS
from graphmend.rules.base import Context, Converter

#: ``rules=`` for the ``mark`` rule alone.
MARK = ["mark"]


def mark_call(ctx: Context, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    """``original(...)`` on a wanted line -> ``_graphmend.__name__``."""
    line = next((a for a in reversed(ctx.ancestors) if isinstance(a, cst.SimpleStatementLine)), None)
    if line is None or not ctx.wanted(line, "mark") or not m.matches(updated, m.Call(func=m.Name("original"))):
        return updated
    return cst.parse_expression(f"{RUNTIME_ALIAS}.__name__")


def mark_line(ctx: Context, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
    """A statement line ``mark`` changed gets a ``pass`` after it."""
    if not ctx.enabled("mark") or updated.deep_equals(original):
        return updated
    ctx.record(original, "mark", "marked")
    return cst.FlattenSentinel([updated, cst.parse_statement("pass\n")])


def fake_where(ctx: Context, original: cst.If, updated: cst.If) -> cst.BaseStatement:
    """``if T: v = E`` -> ``v = torch.where(T, E, v)``."""
    assign = m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(target=m.Name())])])
    if not (
        ctx.wanted(original, "fakewhere")
        and updated.orelse is None
        and m.matches(updated.body, m.IndentedBlock(body=[assign]))
    ):
        return updated
    statement = updated.body.body[0].body[0]
    name = statement.targets[0].target
    ctx.record(original, "fakewhere", "if -> torch.where")
    where = cst.parse_expression("torch.where(T, E, V)").with_changes(
        args=[cst.Arg(updated.test), cst.Arg(statement.value), cst.Arg(name)]
    )
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name)], where)])


#: The converters of both rules.
CONVERTERS = (
    Converter("mark.call", "mark", cst.Call, mark_call),
    Converter("mark.line", "mark", cst.SimpleStatementLine, mark_line),
    Converter("fakewhere.if_statement", "fakewhere", cst.If, fake_where),
)
