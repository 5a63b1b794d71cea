"""Is an expression a tensor?  A three-valued, purely syntactic guess, and
a proof for the cases where a rule must be sure.

Rules use the guess only to decide whether a site is worth rewriting:
rewritten code still asks ``isinstance(value, torch.Tensor)`` at run time,
so a wrong guess costs a pointless rewrite, never a wrong result.

* ``STATIC``  -- never a tensor: constants, ``is`` tests, ``isinstance``,
  ``.dtype``/``.shape`` and friends.  Dynamo evaluates these while tracing.
* ``TENSOR``  -- a tensor: a ``torch`` function that returns one, a tensor
  method, a comparison or arithmetic with a tensor, a local name assigned one.
* ``UNKNOWN`` -- anything else.

:func:`is_bool_scalar` is a proof, not a guess: a rule that writes ``~t``
for ``not t`` (or ``a & b`` for ``a and b``) relies on ``t`` being a 0-dim
``torch.bool`` tensor, since ``~True`` is ``-2``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.bindings import walk_own


class Tensorness(enum.Enum):
    STATIC = "static"
    TENSOR = "tensor"
    UNKNOWN = "unknown"


QualifiedName = Callable[[cst.CSTNode], "str | None"]
#: Comparisons that compare elements (not ``is`` or ``in``, which see the object).
COMPARISON_OPERATORS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
                        cst.Equal, cst.NotEqual)


def tensorness_of(
    expr: cst.BaseExpression,
    qualified_name: QualifiedName,
    tensor_names: frozenset[str] = frozenset(),
) -> Tensorness:
    """Guess whether ``expr`` evaluates to a tensor.

    ``qualified_name`` maps a node to its dotted qualified name (or None);
    ``tensor_names`` are local names some assignment binds to a tensor.
    """
    def go(node: cst.BaseExpression) -> Tensorness:
        return tensorness_of(node, qualified_name, tensor_names)

    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return Tensorness.STATIC
    if m.matches(expr, m.Name("None") | m.Name("True") | m.Name("False")):
        return Tensorness.STATIC
    if isinstance(expr, cst.Name):
        return Tensorness.TENSOR if expr.value in tensor_names else Tensorness.UNKNOWN
    if isinstance(expr, cst.Attribute):
        name = qualified_name(expr) or ""
        if expr.attr.value in vocabulary.STATIC_ATTRIBUTES or name.startswith(vocabulary.CONSTANT_PREFIXES):
            return Tensorness.STATIC
        return Tensorness.UNKNOWN
    if isinstance(expr, cst.UnaryOperation):
        # ``not t`` is a Python bool, but it reads a tensor's value: callers
        # ask "does this test depend on a tensor?", so it stays TENSOR.
        return go(expr.expression)
    if isinstance(expr, (cst.BooleanOperation, cst.BinaryOperation)):
        return _join(go(expr.left), go(expr.right))
    if isinstance(expr, cst.Comparison):
        ops = [target.operator for target in expr.comparisons]
        if all(isinstance(op, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for op in ops):
            return Tensorness.STATIC
        if not all(isinstance(op, COMPARISON_OPERATORS) for op in ops):
            return Tensorness.UNKNOWN
        result = go(expr.left)
        for target in expr.comparisons:
            result = _join(result, go(target.comparator))
        return result
    if isinstance(expr, cst.Call):
        return _call_tensorness(expr, qualified_name, go)
    return Tensorness.UNKNOWN


def is_static_size(
    expr: cst.BaseExpression,
    qualified_name: QualifiedName,
    tensor_names: frozenset[str] = frozenset(),
    sizes: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``expr`` is a Python number whatever the data: ``STATIC`` by
    :func:`tensorness_of` (constants, ``x.shape``, ``len(x)``), or what only
    a size needs besides: a name in ``sizes``, indexing (``x.shape[1]``), a
    size method on a receiver of unknown type (``x.size(0)``; Dynamo keeps
    sizes symbolic, never data-dependent), and arithmetic, tuples and lists
    of these."""
    def go(node: cst.BaseExpression) -> bool:
        return is_static_size(node, qualified_name, tensor_names, sizes)

    if tensorness_of(expr, qualified_name, tensor_names) is Tensorness.STATIC:
        return True
    if isinstance(expr, cst.Name):
        return expr.value in sizes
    if isinstance(expr, cst.Subscript):
        return go(expr.value)
    if isinstance(expr, cst.Call):
        return isinstance(expr.func, cst.Attribute) and expr.func.attr.value in vocabulary.STATIC_METHODS
    if isinstance(expr, cst.UnaryOperation):
        return go(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return go(expr.left) and go(expr.right)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(go(e.value) for e in expr.elements)
    return False


def _join(a: Tensorness, b: Tensorness) -> Tensorness:
    """Tensorness of an arithmetic or comparison combining ``a`` and ``b``."""
    if Tensorness.TENSOR in (a, b):
        return Tensorness.TENSOR
    if a is b is Tensorness.STATIC:
        return Tensorness.STATIC
    return Tensorness.UNKNOWN


def _call_tensorness(
    call: cst.Call, qualified_name: QualifiedName, go: Callable[[cst.BaseExpression], Tensorness]
) -> Tensorness:
    name = qualified_name(call.func) or ""
    if vocabulary.builtin(name) in vocabulary.STATIC_BUILTINS:
        return Tensorness.STATIC
    if vocabulary.torch_function(name) in vocabulary.TENSOR_FUNCTIONS:
        return Tensorness.TENSOR
    if isinstance(call.func, cst.Attribute):
        receiver = go(call.func.value)
        if call.func.attr.value in vocabulary.STATIC_METHODS and receiver is not Tensorness.UNKNOWN:
            return Tensorness.STATIC
        if call.func.attr.value in vocabulary.TENSOR_METHODS and receiver is not Tensorness.STATIC:
            # Few non-tensors have these methods; the run-time check covers them.
            return Tensorness.TENSOR
    return Tensorness.UNKNOWN


# -- proofs -----------------------------------------------------------------------------


def is_torch_tensor(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    """True when ``expr`` provably evaluates to a torch tensor: a ``torch``
    function that returns one, a tensor method of one, or arithmetic and
    comparisons with one."""
    if isinstance(expr, cst.Call):
        if vocabulary.torch_function(qualified_name(expr.func)) in vocabulary.TENSOR_FUNCTIONS:
            return True
        return isinstance(expr.func, cst.Attribute) and expr.func.attr.value in vocabulary.TENSOR_METHODS and \
            is_torch_tensor(expr.func.value, qualified_name)
    if isinstance(expr, cst.BinaryOperation):
        return is_torch_tensor(expr.left, qualified_name) or is_torch_tensor(expr.right, qualified_name)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.BitInvert)):
        return is_torch_tensor(expr.expression, qualified_name)
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1 and \
            isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS):
        return is_torch_tensor(expr.left, qualified_name) or \
            is_torch_tensor(expr.comparisons[0].comparator, qualified_name)
    return False


def _no_dimension(call: cst.Call, positional: int) -> bool:
    """A reduction called without a dimension: ``positional`` positional
    arguments (the input, for the function form) and no keywords."""
    return len(call.args) == positional and all(a.keyword is None and not a.star for a in call.args)


def is_zero_dim(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    """True when ``expr`` provably evaluates to a 0-dim torch tensor."""
    if isinstance(expr, cst.Call):
        function = vocabulary.torch_function(qualified_name(expr.func))
        if function in vocabulary.REDUCTIONS and _no_dimension(expr, 1):
            return True  # a torch reduction returns a tensor whatever it is given
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in vocabulary.REDUCTIONS and _no_dimension(expr, 0):
            return is_torch_tensor(expr.func.value, qualified_name)
        return False
    if isinstance(expr, cst.BinaryOperation):
        sides = (expr.left, expr.right)
        return all(is_zero_dim(s, qualified_name) or _is_number(s) for s in sides) and \
            any(is_zero_dim(s, qualified_name) for s in sides)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.BitInvert)):
        return is_zero_dim(expr.expression, qualified_name)
    if isinstance(expr, cst.Comparison):
        return is_bool_scalar(expr, qualified_name)
    return False


def _is_number(expr: cst.BaseExpression) -> bool:
    if m.matches(expr, m.UnaryOperation(operator=m.Minus())):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def is_bool_tensor(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    """True when ``expr`` provably evaluates to a ``torch.bool`` tensor."""
    if isinstance(expr, cst.Call):
        function = vocabulary.torch_function(qualified_name(expr.func))
        if function in vocabulary.BOOL_PREDICATES:
            return True
        if function in vocabulary.BOOL_REDUCTIONS and len(expr.args) == 1:
            return is_bool_tensor(expr.args[0].value, qualified_name)
        if isinstance(expr.func, cst.Attribute) and is_torch_tensor(expr.func.value, qualified_name):
            method = expr.func.attr.value
            if method in vocabulary.BOOL_PREDICATES or method == "bool":
                return True
            if method in vocabulary.BOOL_REDUCTIONS:
                return is_bool_tensor(expr.func.value, qualified_name)
        return False
    if isinstance(expr, cst.Comparison):
        return len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS) and \
            is_torch_tensor(expr, qualified_name)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return is_bool_tensor(expr.expression, qualified_name)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return is_bool_tensor(expr.left, qualified_name) and is_bool_tensor(expr.right, qualified_name)
    return False


def is_bool_scalar(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    """True when ``expr`` provably evaluates to a 0-dim ``torch.bool`` tensor:
    ``<bool tensor>.any()``/``.all()`` and their function forms, a
    comparison of a 0-dim tensor with a number or another 0-dim tensor
    (``x.sum() > 0``), and ``~``/``&``/``|`` of those."""
    if isinstance(expr, cst.Call):
        function = vocabulary.torch_function(qualified_name(expr.func))
        if function in vocabulary.BOOL_REDUCTIONS and _no_dimension(expr, 1):
            return is_bool_tensor(expr.args[0].value, qualified_name)
        if m.matches(expr.func, m.Attribute(attr=m.Name("any") | m.Name("all"))) and _no_dimension(expr, 0):
            return is_bool_tensor(expr.func.value, qualified_name)
        return False
    if isinstance(expr, cst.Comparison):
        if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS):
            return False
        sides = (expr.left, expr.comparisons[0].comparator)
        return all(is_zero_dim(s, qualified_name) or _is_number(s) for s in sides) and \
            any(is_zero_dim(s, qualified_name) for s in sides)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return is_bool_scalar(expr.expression, qualified_name)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return is_bool_scalar(expr.left, qualified_name) and is_bool_scalar(expr.right, qualified_name)
    return False


def tensor_names(function: cst.FunctionDef, qualified_name: QualifiedName) -> frozenset[str]:
    """Local names that some simple assignment in ``function`` binds to a tensor.

    Iterates to a fixed point so ``a = torch.max(x); b = a + 1`` marks both.
    """
    assignments: list[tuple[str, cst.BaseExpression]] = []
    for node in walk_own(function.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    assignments.append((target.target.value, node.value))
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in assignments:
            if name not in names and tensorness_of(value, qualified_name, frozenset(names)) is Tensorness.TENSOR:
                names.add(name)
                changed = True
    return frozenset(names)
