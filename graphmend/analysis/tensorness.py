"""Is an expression a tensor?  A three-valued, purely syntactic guess.

[Where] uses the answer only to decide whether a site is worth rewriting:
rewritten code still asks ``isinstance(value, torch.Tensor)`` at run time, so
a wrong guess costs a pointless rewrite, never a wrong result.

* ``STATIC``  -- never a tensor: constants, ``is`` tests, ``isinstance``,
  ``.dtype``/``.shape`` and friends.  Dynamo evaluates these while tracing.
* ``TENSOR``  -- a tensor: a ``torch`` function that returns one, a tensor
  method, a comparison or arithmetic with a tensor, a local name assigned one.
* ``UNKNOWN`` -- anything else.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import walk


class Tensorness(enum.Enum):
    STATIC = "static"
    TENSOR = "tensor"
    UNKNOWN = "unknown"


#: ``torch.<name>(...)`` that returns a tensor.
TENSOR_FUNCTIONS = frozenset(
    """abs all amax amin any argmax argmin clamp count_nonzero eq ge greater gt isfinite
    isinf isnan isneginf isposinf le less logical_and logical_not logical_or logical_xor
    lt max mean min ne norm prod sum tensor where""".split()
)
#: ``t.<name>(...)`` that returns a tensor when ``t`` is one.
TENSOR_METHODS = frozenset(
    """abs all amax amin any argmax argmin bool clamp count_nonzero double eq float ge gt
    half isfinite isinf isnan le logical_not lt max mean min ne norm prod sum to""".split()
)
#: Attributes of a tensor that are static under Dynamo.
STATIC_ATTRIBUTES = frozenset(
    "dtype shape ndim device is_cuda is_floating_point requires_grad training layout".split()
)
#: Builtins whose result is never a tensor.
STATIC_BUILTINS = frozenset("isinstance hasattr callable len type".split())
#: ``torch.<name>`` attributes that are constants (dtypes).
TORCH_CONSTANT_PREFIXES = ("torch.float", "torch.int", "torch.bool", "torch.uint", "torch.bfloat",
                           "torch.half", "torch.double", "torch.long", "torch.complex")

QualifiedName = Callable[[cst.CSTNode], str | None]
_COMPARISON_OPS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
                   cst.Equal, cst.NotEqual)


def classify(
    expr: cst.BaseExpression,
    qualified_name: QualifiedName,
    tensor_names: frozenset[str] = frozenset(),
) -> Tensorness:
    """Guess whether ``expr`` evaluates to a tensor.

    ``qualified_name`` maps a node to its dotted qualified name (or None);
    ``tensor_names`` are local names some assignment binds to a tensor.
    """
    def go(node: cst.BaseExpression) -> Tensorness:
        return classify(node, qualified_name, tensor_names)

    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
        return Tensorness.STATIC
    if m.matches(expr, m.Name("None") | m.Name("True") | m.Name("False")):
        return Tensorness.STATIC
    if isinstance(expr, cst.Name):
        return Tensorness.TENSOR if expr.value in tensor_names else Tensorness.UNKNOWN
    if isinstance(expr, cst.Attribute):
        name = qualified_name(expr) or ""
        if expr.attr.value in STATIC_ATTRIBUTES or name.startswith(TORCH_CONSTANT_PREFIXES):
            return Tensorness.STATIC
        return Tensorness.UNKNOWN
    if isinstance(expr, cst.UnaryOperation):
        # ``not t`` is a Python bool, but it reads a tensor's value: callers
        # ask "does this test depend on a tensor?", so it stays TENSOR.
        return go(expr.expression)
    if isinstance(expr, cst.BooleanOperation):
        return _join(go(expr.left), go(expr.right))
    if isinstance(expr, cst.BinaryOperation):
        return _join(go(expr.left), go(expr.right))
    if isinstance(expr, cst.Comparison):
        ops = [target.operator for target in expr.comparisons]
        if all(isinstance(op, (cst.Is, cst.IsNot)) for op in ops):
            return Tensorness.STATIC
        if not all(isinstance(op, _COMPARISON_OPS) for op in ops):
            return Tensorness.UNKNOWN
        result = go(expr.left)
        for target in expr.comparisons:
            result = _join(result, go(target.comparator))
        return result
    if isinstance(expr, cst.Call):
        return _classify_call(expr, qualified_name, go)
    return Tensorness.UNKNOWN


def _join(a: Tensorness, b: Tensorness) -> Tensorness:
    """Tensorness of an arithmetic or comparison combining ``a`` and ``b``."""
    if Tensorness.TENSOR in (a, b):
        return Tensorness.TENSOR
    if a is b is Tensorness.STATIC:
        return Tensorness.STATIC
    return Tensorness.UNKNOWN


def _classify_call(
    call: cst.Call, qualified_name: QualifiedName, go: Callable[[cst.BaseExpression], Tensorness]
) -> Tensorness:
    name = qualified_name(call.func) or ""
    if name.startswith("builtins.") and name.removeprefix("builtins.") in STATIC_BUILTINS:
        return Tensorness.STATIC
    if name.startswith("torch.") and name.rsplit(".", 1)[-1] in TENSOR_FUNCTIONS:
        return Tensorness.TENSOR
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in TENSOR_METHODS:
        # Few non-tensors have these methods; the run-time check covers them.
        if go(call.func.value) is not Tensorness.STATIC:
            return Tensorness.TENSOR
    return Tensorness.UNKNOWN


def is_bool_scalar(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    """True when ``expr`` provably evaluates to a 0-dim ``torch.bool`` tensor.

    The proof is ``<bool tensor>.any()`` or ``.all()`` with no arguments
    (0-dim; bool because its input is bool), where ``<bool tensor>`` is a
    ``torch.isinf``-style predicate or a comparison's result.
    """
    if not m.matches(expr, m.Call(func=m.Attribute(attr=m.Name("any") | m.Name("all")), args=[])):
        return False
    return _is_bool_tensor(expr.func.value, qualified_name)


_BOOL_PREDICATES = frozenset(
    "isinf isnan isfinite isneginf isposinf eq ne gt ge lt le logical_not".split()
)


def _is_bool_tensor(expr: cst.BaseExpression, qualified_name: QualifiedName) -> bool:
    if isinstance(expr, cst.Call):
        name = qualified_name(expr.func) or ""
        return name.startswith("torch.") and name.rsplit(".", 1)[-1] in _BOOL_PREDICATES
    return False


def tensor_names(function: cst.FunctionDef, qualified_name: QualifiedName) -> frozenset[str]:
    """Local names that some simple assignment in ``function`` binds to a tensor.

    Iterates to a fixed point so ``a = torch.max(x); b = a + 1`` marks both.
    """
    assignments: list[tuple[str, cst.BaseExpression]] = []
    for node in walk(function.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    assignments.append((target.target.value, node.value))
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in assignments:
            if name not in names and classify(value, qualified_name, frozenset(names)) is Tensorness.TENSOR:
                names.add(name)
                changed = True
    return frozenset(names)
