"""[Where]: the facts a captured count proves, written where a test reads it.

What it does
    After ``n = int((x > 0).sum())`` (also ``(x > 0).sum().item()`` and
    ``int((x > 0).sum().item())``: a count of a comparison of a local ``x``
    with a number), when a later test of the function compares ``n``,
    adds ``_graphmend.count_facts(n, x)``: under torch.compile,
    ``torch._check(n >= 0)`` and ``torch._check(n <= x.numel())``.

Why is this bad?
    Under [Capture] ``n`` is an unbacked integer.  A Python test on it
    that the bounds decide -- ``if n < 0: raise``, ``if n > x.size(0):
    raise`` -- is a guard Dynamo cannot decide without them, so the frame
    is compiled without capture and keeps its break (measured on torch
    2.13: two graphs and a recompile per new count without the facts, one
    graph with them).  Sizes alone (``torch.split(x, [n, len - n])``,
    ``x.narrow(0, 0, n)``, ``x[:n]``, ``F.pad``, ``new_zeros(n)``,
    ``topk(n)``, ``expand``) need no fact on torch 2.13.

Example
    ``n = int((x > 0).sum())`` / ``if n > x.size(0): raise ValueError(...)``

Use instead
    ``n = int((x > 0).sum())`` / ``_graphmend.count_facts(n, x)`` / the same test.

Fix safety
    Exact: the facts are true of every value the statement can produce (a
    sum of bools is at least 0 and at most the number of elements, and a
    comparison of a tensor with a number has the tensor's shape), so a
    check never fails; eagerly the call does nothing, and under
    torch.compile it states them only for a plain tensor ``x`` (a subclass
    may define its comparison otherwise; a NumPy array Dynamo traces is
    not one).  Only a statement that binds one name, a comparison with a
    numeric literal, and a count that a later comparison reads; nothing
    for a fact it cannot prove (a sum of anything but a comparison, a
    count with ``dim=``, ``int(idx.max())``).
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import walk_own
from graphmend.analysis.tensorness import COMPARISON_OPERATORS
from graphmend.rules.base import Context, is_runtime_call, runtime_call
from graphmend.rules.library_predicates import ITEM, exact_literal

_SUM = m.Call(func=m.Attribute(attr=m.Name("sum")), args=[])


def _counted(facts, value: cst.BaseExpression) -> cst.Name | None:
    """``x`` when ``value`` counts the true elements of ``x <op> literal``."""
    if m.matches(value, m.Call(args=[m.Arg(keyword=None, star="")])) and \
            facts.qualified_name(value.func) == "builtins.int":
        value = value.args[0].value
    if m.matches(value, ITEM):
        value = value.func.value
    if not m.matches(value, _SUM):
        return None
    mask = value.func.value
    if not (isinstance(mask, cst.Comparison) and len(mask.comparisons) == 1
            and isinstance(mask.comparisons[0].operator, COMPARISON_OPERATORS)):
        return None
    left, right = mask.left, mask.comparisons[0].comparator
    for tensor, number in ((left, right), (right, left)):
        if isinstance(tensor, cst.Name) and exact_literal(number) is not None:
            return tensor
    return None


def _compared_later(function: cst.FunctionDef, statement: cst.CSTNode, name: str) -> bool:
    """Whether a comparison after ``statement`` in ``function`` reads
    ``name``, and the next statement does not state its facts already
    (graphmend's own code, mended again)."""
    seen = next_statement = False
    for node in walk_own(function.body):
        if node is statement:
            seen = next_statement = True
        elif next_statement and isinstance(node, cst.SimpleStatementLine):
            next_statement = False
            if m.matches(node.body[0], m.Expr()) and is_runtime_call(node.body[0].value, "count_facts"):
                return False
        elif seen and isinstance(node, cst.Comparison):
            operands = [node.left, *(target.comparator for target in node.comparisons)]
            if any(isinstance(operand, cst.Name) and operand.value == name for operand in operands):
                return True
    return False


def convert_count_facts(ctx: Context, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
    """Leave a statement: itself and ``count_facts``, or ``updated``."""
    facts = ctx.facts
    if facts is None or len(original.body) != 1 or not isinstance(original.body[0], cst.Assign):
        return updated
    assign = original.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return updated
    tensor = _counted(facts, assign.value)
    if tensor is None or not ctx.wanted(original, "where"):
        return updated
    count = assign.targets[0].target
    function = next((a for a in reversed(ctx.ancestors) if isinstance(a, cst.FunctionDef)), None)
    if function is None or count.value == tensor.value or not _compared_later(function, original, count.value):
        return updated
    ctx.record(original, "where", "captured count -> its bounds stated (torch._check)")
    stated = cst.SimpleStatementLine([cst.Expr(runtime_call("count_facts", [cst.Name(count.value),
                                                                             cst.Name(tensor.value)]))])
    return cst.FlattenSentinel([updated, stated])
