"""The builtin-operator converter of [Where]: ``pow(a, b)`` as ``a ** b``.

Before
    ::

        c1 = pow(k1 * data_range, 2)

After
    ::

        c1 = (k1 * data_range) ** 2

Why it breaks the graph
    Dynamo does not trace the builtin ``pow`` with a tensor argument
    ("Failed to trace builtin operator"; its hint: use an equivalent
    function or method).  It traces the ``**`` operator.  torchmetrics'
    SSIM spells its constants this way.

Safety
    * Python defines the two-argument ``pow(base, exp)`` as ``base ** exp``:
      both call ``PyNumber_Power`` with no modulus, so the same
      ``__pow__``/``__rpow__`` run and raise the same errors, for tensors
      and for anything else.  Nothing is decided at run time.
    * Only the builtin, by its qualified name (a ``pow`` the module binds
      itself is left alone), with exactly two positional arguments: the
      three-argument form (a modulus) has no operator.
    * Operands are parenthesised as the operator's precedence needs
      (``pow(-x, 2)`` is ``(-x) ** 2``, not ``-x ** 2``).
"""

from __future__ import annotations

import libcst as cst

from graphmend.rules.base import Context, Declined

#: Operands that bind tighter than ``**`` on its left: no parentheses.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
          cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Tuple, cst.List, cst.Dict, cst.Set)


def calls_pow(ctx: Context, original: cst.Call) -> bool:
    """The cheap test (every call of the file comes here): a call of a name ``pow``."""
    return isinstance(original.func, cst.Name) and original.func.value == "pow"


def convert_builtin_pow(ctx: Context, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    facts = ctx.facts
    if facts is None or not ctx.wanted(original, "where") or facts.qualified_name(original.func) != "builtins.pow":
        return updated
    if len(updated.args) != 2 or any(arg.star or arg.keyword is not None for arg in updated.args):
        raise Declined("pow() with a modulus, keyword or starred arguments")
    base, exponent = (_operand(arg.value) for arg in updated.args)
    ctx.record(original, "where", "pow(a, b) -> a ** b")
    power = cst.BinaryOperation(base, cst.Power(), exponent)
    if _binds_tighter_than_power(ctx.ancestors[-2], original):
        power = power.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return power


def _binds_tighter_than_power(parent: cst.CSTNode, call: cst.Call) -> bool:
    """Whether ``call`` in ``parent`` needs parentheses once it is ``a ** b``:
    ``pow(a, b).sum()``, ``pow(a, b)[0]``, ``pow(a, b)(x)``, ``pow(a, b) ** c``."""
    if isinstance(parent, (cst.Attribute, cst.Subscript)):
        return parent.value is call
    if isinstance(parent, cst.Call):
        return parent.func is call
    if isinstance(parent, cst.BinaryOperation):
        return isinstance(parent.operator, cst.Power)
    return isinstance(parent, cst.Await)


def _operand(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` parenthesised unless it is an atom (or already is)."""
    if value.lpar or isinstance(value, _ATOMS):
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
