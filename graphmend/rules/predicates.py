"""Tests that read a tensor, as tensor predicates: shared by every rule.

``if``, ``while``, conditional expressions, guards and ``assert`` all test
a value's truth.  Python's ``not``, ``and``, ``or`` and ``bool()`` call
``bool()`` on a tensor operand, a graph break; :func:`lower_test` rewrites
a test into one with the same truth value that stays a tensor under
``torch.compile``:

* ``not t`` -> ``~t`` when ``t`` is provably a 0-dim bool tensor, else
  ``_graphmend.not_(t)`` (exact for any value);
* ``a and b`` / ``a or b`` -> ``a & b`` / ``a | b`` for provable 0-dim bool
  tensors, else ``_graphmend.and_(a, lambda: b)`` / ``or_``: under
  torch.compile ``b`` is then evaluated even when ``a`` decides, so it must
  be free of effects and of errors that only the compiled graph would
  raise; when it raises while traced (``torch.any`` of a Python bool, an
  integer index out of range: ``t[-1]`` of an empty ``t``), or eagerly,
  Python's short-circuit decides.  A left operand
  that is never a tensor (``x is not None and ...``) keeps Python's
  short-circuit: it calls no ``bool()`` on a tensor;
* ``bool(t)`` -> ``t``; ``t.item()`` -> ``_graphmend.truth_item(t)``, ``t``
  itself where it has one element (the item's truth: nonzero, a NaN
  true), else ``t.item()``, which raises as it did;
* ``a < b <= c`` (a chain whose middle operands are names) -> as
  ``a < b and b <= c``, which is how Python evaluates it;
* ``t.item() > 3``, ``float(t) < 0.5``, ``int(t) == 2`` -> compared as 0-dim
  float64/int64 tensors, exactly as Python compares the numbers;
* ``torch.equal(a, b)`` with an arithmetic operand -> ``_graphmend.equal(a,
  b)``: ``(a == b).all()`` under torch.compile where that is exact;
* ``torch.allclose(a, b, ...)``, ``math.isfinite(t.item())`` and
  ``math.isclose(a.item(), b.item(), ...)`` -> their runtime forms
  (:mod:`graphmend.rules.library_predicates`); ``torch.isclose(a,
  b).all()`` is a tensor already.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import code
from graphmend.analysis.facts import FunctionFacts
from graphmend.analysis.tensorness import COMPARISON_OPERATORS, Tensorness
from graphmend.rules import library_predicates
from graphmend.rules.base import Declined, runtime_call, thunk
from graphmend.rules.library_predicates import ITEM, exact_literal

#: Expressions that need parentheses as an operand of ``&``, ``|`` or ``~``.
_LOOSE = (cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)


def _tight(expr: cst.BaseExpression, *, unary: bool = False) -> cst.BaseExpression:
    """``expr``, parenthesised when it would not bind as one operand."""
    if expr.lpar:
        return expr
    loose = isinstance(expr, _LOOSE) or m.matches(expr, m.UnaryOperation(operator=m.Not()))
    if unary:
        loose = loose or isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation))
    else:
        loose = loose or m.matches(expr, m.BinaryOperation(operator=m.BitOr() | m.BitXor()))
    if loose:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def test_kind(facts: FunctionFacts, test: cst.BaseExpression) -> Tensorness:
    """Whether a test reads a tensor: TENSOR, STATIC (never) or UNKNOWN."""
    if isinstance(test, cst.BooleanOperation):
        kinds = {test_kind(facts, test.left), test_kind(facts, test.right)}
    elif m.matches(test, m.UnaryOperation(operator=m.Not())):
        return test_kind(facts, test.expression)
    elif _is_bool_call(facts, test):
        return test_kind(facts, test.args[0].value)
    elif scalar_comparison(facts, test) is not None or library_predicates.matches(facts, test):
        return Tensorness.TENSOR
    else:
        return facts.tensorness(test)
    if Tensorness.TENSOR in kinds:
        return Tensorness.TENSOR
    return Tensorness.STATIC if kinds == {Tensorness.STATIC} else Tensorness.UNKNOWN


def lower_test(facts: FunctionFacts, original: cst.BaseExpression, updated: cst.BaseExpression,
               statement: cst.CSTNode) -> cst.BaseExpression:
    """``updated`` with the same truth value, a tensor under torch.compile
    when the test reads one; raises :class:`Declined`.  ``statement`` is the
    statement the test belongs to (what is bound when it is evaluated)."""
    if isinstance(original, cst.BooleanOperation):
        return _lower_boolean(facts, original, updated, statement)
    if m.matches(original, m.UnaryOperation(operator=m.Not())):
        if facts.is_static(original.expression):
            return updated
        inner = lower_test(facts, original.expression, updated.expression, statement)
        if facts.is_bool_scalar(original.expression):
            lowered = cst.UnaryOperation(cst.BitInvert(), _tight(inner, unary=True))
        else:
            lowered = runtime_call("not_", [inner])
        return lowered.with_changes(lpar=updated.lpar, rpar=updated.rpar)
    if _is_bool_call(facts, original):  # ``if bool(x):`` is ``if x:``
        return lower_test(facts, original.args[0].value, updated.args[0].value, statement)
    if m.matches(original, ITEM) and m.matches(updated, ITEM):  # ``if t.item():`` has ``t``'s truth
        return runtime_call("truth_item", [updated.func.value]).with_changes(lpar=updated.lpar, rpar=updated.rpar)
    if isinstance(original, cst.Comparison) and len(original.comparisons) > 1 and not facts.is_static(original):
        if not _is_name_chain(original):
            raise Declined(f"`{code(original)}`: Python calls bool() between the comparisons of a chain, "
                           "and its middle operands are not all names (to evaluate twice)")
        lowered = _lower_boolean(facts, _chain_as_and(original), _chain_as_and(updated), statement)
        return lowered.with_changes(lpar=updated.lpar, rpar=updated.rpar)
    kind = scalar_comparison(facts, original)
    if kind is not None:
        return _exact_comparison(updated, kind)
    if library_predicates.matches(facts, original):
        return library_predicates.lower(facts, original, updated)
    if _is_fresh_equal(facts, original):
        return runtime_call("equal", [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in updated.args])
    if facts.tensorness(original) is Tensorness.UNKNOWN and reads_a_read_back(facts, original):
        # Held in the graph by [Capture], the number would make Python's `if` guard on it.
        return runtime_call("captured_truth", [updated.with_changes(lpar=[], rpar=[])])
    return updated


_NUMBER_OF = m.Call(func=m.Name("int") | m.Name("float") | m.Name("bool"), args=[m.Arg(keyword=None, star="")])


def reads_a_read_back(facts: FunctionFacts, expr: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``expr`` reads a number read back from a tensor --
    ``t.item()``, ``int(t)``, ``float(t)``, ``bool(t)`` -- itself or
    through a local some binding of which does (``step = self.step.item()``,
    then ``should_update = step % n == 0``)."""
    if m.findall(expr, ITEM):
        return True
    for call in m.findall(expr, _NUMBER_OF):
        if facts.qualified_name(call.func) in ("builtins.int", "builtins.float", "builtins.bool") and \
                facts.tensorness(call.args[0].value) is Tensorness.TENSOR:
            return True
    return any(reads_a_read_back(facts, value, seen | {name})
               for name in sorted(facts.own_reads(expr) - seen) for value in facts.sole_bindings.get(name, ()))


def _is_fresh_equal(facts: FunctionFacts, expr: cst.BaseExpression) -> bool:
    """``torch.equal(a, b)`` with one operand an arithmetic result
    (``torch.equal(y, y ** 2)``, pytorch-ignite's binary check): fresh, it
    shares no memory with the other, where ``torch.equal`` may answer from
    the memory alone."""
    if not m.matches(expr, m.Call(args=[m.Arg(keyword=None, star=""), m.Arg(keyword=None, star="")])) or \
            facts.qualified_name(expr.func) != "torch.equal":
        return False
    fresh = m.BinaryOperation() | m.UnaryOperation(operator=m.Minus() | m.BitInvert())
    return any(m.matches(arg.value, fresh) for arg in expr.args)


def _lower_boolean(facts: FunctionFacts, original: cst.BooleanOperation, updated: cst.BooleanOperation,
                   statement: cst.CSTNode):
    right = lower_test(facts, original.right, updated.right, statement)
    if facts.is_static(original.left):
        # ``x is not None and t``: Python's short-circuit on a static value
        # calls no bool() on a tensor, and keeps ``t`` unevaluated when ``x`` is None.
        return updated.with_changes(right=right)
    left = lower_test(facts, original.left, updated.left, statement)
    # ``and``/``or`` skip the right operand when the left side decides; the
    # thunk below leaves a right operand that raises while traced to Python.
    reason = facts.impurity(original.right, traced_errors_fall_back=True)
    if reason:
        raise Declined(f"`{code(original)}`: {reason}")
    is_and = isinstance(original.operator, cst.And)
    if _proven_bool_scalar(facts, original.left) and _proven_bool_scalar(facts, original.right) and \
            not facts.impurity(original.right):
        operator = cst.BitAnd() if is_and else cst.BitOr()
        lowered = cst.BinaryOperation(_tight(left), operator, _tight(right))
    else:
        # A thunk: a right operand the left decides is never evaluated
        # eagerly, and one that raises when traced is left to Python.
        read_locals = sorted(facts.own_reads(original.right))
        bound = facts.bound_before(statement)
        unbound = [name for name in read_locals if name not in bound]
        if unbound:
            raise Declined(f"`{unbound[0]}` may be unbound here, and `{code(original.right)}` reads it")
        lowered = runtime_call("and_" if is_and else "or_", [left, thunk(right, read_locals)])
    return lowered.with_changes(lpar=updated.lpar, rpar=updated.rpar)


def _is_name_chain(expr: cst.BaseExpression) -> bool:
    """``a < b <= c``: a chained comparison whose middle operands are names
    (evaluated twice as ``a < b and b <= c``, they read the same value)."""
    return (
        isinstance(expr, cst.Comparison)
        and len(expr.comparisons) > 1
        and all(isinstance(target.operator, COMPARISON_OPERATORS) for target in expr.comparisons)
        and all(isinstance(target.comparator, cst.Name) for target in expr.comparisons[:-1])
    )


def _chain_as_and(chain: cst.Comparison) -> cst.BooleanOperation:
    """``a < b <= c`` as ``a < b and b <= c``: Python evaluates a chain so,
    calling ``bool()`` between the comparisons."""
    lefts = [chain.left, *(target.comparator for target in chain.comparisons[:-1])]
    parts = [cst.Comparison(left, [target]) for left, target in zip(lefts, chain.comparisons)]
    combined = parts[0]
    for part in parts[1:]:
        combined = cst.BooleanOperation(combined, cst.And(), part)
    return combined


def _proven_bool_scalar(facts: FunctionFacts, expr: cst.BaseExpression) -> bool:
    """A test whose lowered form is a 0-dim bool tensor: proven bool
    scalars, and ``not``/``and``/``or`` of them (lowered to ``~``/``&``/``|``)."""
    if isinstance(expr, cst.BooleanOperation):
        return _proven_bool_scalar(facts, expr.left) and _proven_bool_scalar(facts, expr.right)
    if m.matches(expr, m.UnaryOperation(operator=m.Not())):
        return facts.is_bool_scalar(expr.expression)
    return facts.is_bool_scalar(expr)


def _is_bool_call(facts: FunctionFacts, expr: cst.BaseExpression) -> bool:
    return m.matches(expr, m.Call(args=[m.Arg(keyword=None, star="")])) and \
        facts.qualified_name(expr.func) == "builtins.bool"


def scalar_comparison(facts: FunctionFacts, expr: cst.BaseExpression) -> str | None:
    """``"item"``/``"float"``/``"int"`` when ``expr`` is ``t.item() <op> literal``,
    ``float(t) <op> literal`` or ``int(t) <op> literal`` with a literal
    float64 holds exactly."""
    if not (isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1):
        return None
    if isinstance(expr.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
        return None
    left, right = expr.left, expr.comparisons[0].comparator
    for scalar, other in ((left, right), (right, left)):
        if exact_literal(other) is None:
            continue
        if m.matches(scalar, ITEM):
            return "item"
        if m.matches(scalar, m.Call(args=[m.Arg(keyword=None)])):
            name = facts.qualified_name(scalar.func)
            if name in ("builtins.float", "builtins.int"):
                return name.removeprefix("builtins.")
    return None


def _exact_comparison(comparison: cst.Comparison, kind: str) -> cst.Comparison:
    def exact(side: cst.BaseExpression, other: cst.BaseExpression) -> cst.BaseExpression:
        if exact_literal(other) is None or exact_literal(side) is not None:
            return side
        if kind == "item" and m.matches(side, m.Call(func=m.Attribute(attr=m.Name("item")))):
            return runtime_call("exact_item", [side.func.value, other])
        if kind == "float" and isinstance(side, cst.Call) and len(side.args) == 1:
            return runtime_call("exact_float", [side.args[0].value])
        if kind == "int" and isinstance(side, cst.Call) and len(side.args) == 1:
            return runtime_call("exact_int", [side.args[0].value, other])
        return side

    target = comparison.comparisons[0]
    return comparison.with_changes(
        left=exact(comparison.left, target.comparator),
        comparisons=[target.with_changes(comparator=exact(target.comparator, comparison.left))],
    )


def nonnegative_names(test: cst.BaseExpression, taken: bool = True) -> frozenset[str]:
    """The names ``test`` proves non-negative when its truth is ``taken``:
    ``i >= 0``, ``i > 0``, ``0 <= i``, ``0 < i`` (any non-negative integer
    literal), their ``not`` (for the other arm: ``not i < 0``), and every
    operand of an ``and`` that is true."""
    if m.matches(test, m.UnaryOperation(operator=m.Not())):
        return nonnegative_names(test.expression, not taken)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and taken:
        return nonnegative_names(test.left, True) | nonnegative_names(test.right, True)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return frozenset()
    left, (target,) = test.left, test.comparisons
    operator, right = target.operator, target.comparator
    lower_bound = (cst.GreaterThanEqual, cst.GreaterThan) if taken else (cst.LessThan, cst.LessThanEqual)
    upper_bound = (cst.LessThanEqual, cst.LessThan) if taken else (cst.GreaterThan, cst.GreaterThanEqual)
    if isinstance(left, cst.Name) and isinstance(operator, lower_bound) and _nonnegative_integer(right):
        return frozenset({left.value})
    if isinstance(right, cst.Name) and isinstance(operator, upper_bound) and _nonnegative_integer(left):
        return frozenset({right.value})
    return frozenset()


def _nonnegative_integer(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Integer) and expr.evaluated_value >= 0
