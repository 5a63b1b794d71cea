"""The scalar-index converter of [Where]: a 0-dim integer tensor used as an
index, as a one-element index under torch.compile.

Before
    ::

        index = torch.bucketize(t.detach(), self._t.detach()).sub(1).clamp(0, maxlen)
        fractional_part = t - self._t[index]

After
    ::

        index = torch.bucketize(t.detach(), self._t.detach()).sub(1).clamp(0, maxlen)
        fractional_part = t - _graphmend.scalar_index(self._t, index)

Why it breaks the graph
    ``Tensor.__getitem__`` takes a 0-dim integer tensor as a Python int: it
    reads the value back (``aten._local_scalar_dense``), which Dynamo does
    not trace without ``capture_scalar_outputs`` ("Data dependent
    operator", SCALAR).  torchcde's interpolations index their knots and
    coefficients this way with the bucket of ``t``.

Safety
    * Decided at run time (:func:`graphmend.runtime.scalar_index`): only an
      index holding one 0-dim integer tensor, beside ints, slices of ints,
      ``None`` and an ``...`` of one dimension, into a plain contiguous
      tensor, is gathered with integer index tensors (the same elements
      and shape); any other index is the original indexing (a break,
      named, where the original breaks).  Out of range, ``select``'s
      ``IndexError`` (same text) is raised after the graph, in program
      order with deferred messages, on every backend: inside the graph it
      would be the backend's error (inductor's kernel raises
      ``RuntimeError``, and an unused gather drops its check).  Under
      autograd the gradient is copied into zeros at the elements, as
      ``select``'s backward does, so it keeps the sign of a zero.
    * The result is a copy where the original's is a view of the tensor.
      Nothing can tell only where the value is an operand of element-wise
      arithmetic or a comparison (a new tensor made from it at once, its
      elements in the same order), directly or through a name bound once
      and read only so; and where the function updates no tensor in place
      (which a view would show).  Otherwise declined, with the reason.
    * Only on a line a diagnosis found such a read at, or indexing with a
      name that indexes there too (a break hides the reads after it in
      its frame): statically most tensor indices hold several elements
      (advanced indexing, no break).
"""

from __future__ import annotations

import libcst as cst

from graphmend.analysis.bindings import code, iter_children, name_uses, nested_scopes, walk_own
from graphmend.analysis.tensorness import COMPARISON_OPERATORS, Tensorness
from graphmend.rules.base import Context, Declined, declining, runtime_call

#: Operators whose result at an element depends on that element alone (not ``@``).
_ELEMENT_WISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
                 cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)
_UNARY = (cst.Minus, cst.Plus, cst.BitInvert)


def convert_scalar_index(ctx: Context, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
    facts = ctx.facts
    if facts is None or not ctx.enabled("where"):
        return updated
    if isinstance(ctx.ancestors[-2], (cst.AssignTarget, cst.AugAssign, cst.Del)):
        return updated  # a store, not a read
    if ctx.options.lines is None:
        return updated  # no diagnosed line: no read back below is diagnosed or reads like one
    candidates = [element for element in original.slice if _may_be_scalar(facts, element)]
    if not candidates or _in_a_thunk(ctx):
        return updated
    if not (ctx.diagnosed(original) or _indexes_like_a_diagnosed_read(ctx, facts, candidates)):
        return updated
    # Said only of an index that looks like a tensor: on a diagnosed line,
    # most other subscripts index with Python values or masks, which do not break.
    with declining(quiet=not any(facts.tensorness(element.slice.value) is Tensorness.TENSOR
                                 for element in candidates)):
        if any(isinstance(element.slice, cst.Index) and element.slice.star for element in original.slice):
            raise Declined("a starred index")
        reason = facts.in_place_reason
        if reason:
            raise Declined(f"{reason}: the indexed value is a view there, which an update in place would show")
        _check_use(facts, original, ctx.ancestors[-2])
    ctx.record(original, "where", "0-dim tensor index -> one-element index")
    return runtime_call("scalar_index", [cst.Arg(updated.value), cst.Arg(_index_value(updated.slice))])


def _in_a_thunk(ctx: Context) -> bool:
    """Whether the subscript is in a conditional expression or a lambda of
    its function: [Where] may run that code where it is not taken
    (``select``'s thunks), where it clamps an index the test bounds below
    (``nonnegative_row``) or declines an index that may be out of range."""
    function = max(i for i, node in enumerate(ctx.ancestors) if isinstance(node, cst.FunctionDef))
    return any(isinstance(node, (cst.IfExp, cst.Lambda)) for node in ctx.ancestors[function + 1:-1])


def _indexes_like_a_diagnosed_read(ctx: Context, facts, candidates: list[cst.SubscriptElement]) -> bool:
    """Whether an index here reads a name that indexes on a diagnosed line
    of the function too: Dynamo reports the first read back of a frame, and
    a break hides the next ones (``prev = c[..., i, :]`` after ``t[i]``)."""
    names = set().union(*(name_uses(element.slice.value).loads_names() for element in candidates))
    for node in walk_own(facts.function.body):
        if isinstance(node, cst.Subscript) and ctx.diagnosed(node):
            diagnosed = (e for e in node.slice if _may_be_scalar(facts, e))
            if any(names & name_uses(e.slice.value).loads_names() for e in diagnosed):
                return True
    return False


def _may_be_scalar(facts, element: cst.SubscriptElement) -> bool:
    """Whether the element may be a 0-dim integer tensor (not a slice, a
    literal, a static value, or a bool mask)."""
    return isinstance(element.slice, cst.Index) and not facts.is_static(element.slice.value) and \
        not facts.is_mask(element.slice.value)


def _check_use(facts, subscript: cst.Subscript, parent: cst.CSTNode) -> None:
    """Declined unless the indexed value is only an operand of element-wise
    arithmetic, itself or through a name bound to it once."""
    if _is_operand(subscript, parent):
        return
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)):
        raise Declined(f"{code(subscript)} is not an operand of element-wise arithmetic (a view of it could show)")
    name = parent.targets[0].target.value
    function = facts.function
    if name in facts.parameters or facts.uses.stores.count(name) != 1 or \
            facts.declared_global and name in facts.declared_global:
        raise Declined(f"`{name}` is bound more than once")
    loads = {id(load) for load in facts.uses.loads if load.value == name}
    reads = [(node, child) for node in walk_own(function.body) for child in iter_children(node) if id(child) in loads]
    if any(name in name_uses(scope).loads_names() for scope in nested_scopes(function.body)):
        raise Declined(f"a nested function reads `{name}`")
    if not reads:
        raise Declined(f"`{name}` is never read")
    for node, read in reads:
        if not _is_operand(read, node):
            raise Declined(f"`{name}` is read for more than element-wise arithmetic (a view of it could show)")


def _is_operand(expression: cst.BaseExpression, parent: cst.CSTNode) -> bool:
    if isinstance(parent, cst.BinaryOperation):
        return isinstance(parent.operator, _ELEMENT_WISE)
    if isinstance(parent, cst.UnaryOperation):
        return isinstance(parent.operator, _UNARY)
    if isinstance(parent, cst.ComparisonTarget):
        return isinstance(parent.operator, COMPARISON_OPERATORS)
    return isinstance(parent, cst.Comparison) and parent.left is expression and all(
        isinstance(target.operator, COMPARISON_OPERATORS) for target in parent.comparisons)


def _index_value(elements) -> cst.BaseExpression:
    """What the subscript passes ``__getitem__``: its one element, or a tuple."""
    values = [_element_value(element.slice) for element in elements]
    if len(values) == 1 and isinstance(elements[0].slice, cst.Index):
        return values[0]
    return cst.Tuple([cst.Element(value) for value in values])


def _element_value(element: cst.BaseSlice) -> cst.BaseExpression:
    if isinstance(element, cst.Index):
        return element.value
    parts = [element.lower, element.upper, element.step]
    while len(parts) > 2 and parts[-1] is None:
        parts.pop()  # slice(1, None) is ``1:``; slice(1) would be ``:1``
    if parts == [None, None]:
        parts = [None]  # slice(None) is ``:``
    return cst.Call(cst.Name("slice"), [cst.Arg(part if part is not None else cst.Name("None")) for part in parts])
