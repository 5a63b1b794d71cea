"""[Trap] one-hot encodings whose width the data decides: the encoding in
the graph, one-hot's checks after it.

What it does
    ``F.one_hot(x, n)`` (``torch.nn.functional.one_hot`` by its qualified
    name) whose number of classes ``n`` is read from data -- a tensor, or a
    number read from one (``max(x.max() + 1, k)``, ``int(x.max()) + 1``, a
    local bound to one of these) -- becomes
    ``_graphmend.one_hot_encoding(x, n)``.  This is the "safe one-hot" of
    mixture-of-experts routing.

Why it breaks the graph
    ``one_hot`` takes its number of classes as a Python int, so Dynamo must
    know the value while tracing ("Data dependent operator", or with
    [Capture] on, "Could not extract specialized integer"): the graph ends
    before the call, however the width came about.

Before
    ::

        max_index = indexes.max() + 1
        one_hot_classes = max(max_index + 1, max_length)
        return F.one_hot(indexes, one_hot_classes)[..., :max_length]

After
    ::

        max_index = indexes.max() + 1
        one_hot_classes = max(max_index + 1, max_length)
        return _graphmend.one_hot_encoding(indexes, one_hot_classes, at_least=max_length)[..., :max_length]

Safety
    * Eagerly, and under torch.compile for anything but a plain int64 CPU
      input with a width that is a 0-dim int tensor or a symbolic int,
      ``one_hot_encoding`` calls ``one_hot`` as written (see
      :func:`graphmend.runtime.one_hot.one_hot_encoding`).  Otherwise it
      makes the encoding as ``one_hot`` itself makes it for fake tensors
      (``x.unsqueeze(-1) == arange(width)``, as int64: the same values,
      shape, dtype and contiguous strides, so a slice of it is the same
      view), its width a size [Capture] holds, and checks after the graph
      what ``one_hot`` checks, in its order, raising its RuntimeError with
      its message.
    * Where the width is ``max(e, k)`` (or a local every binding of which
      is), with ``k`` an int literal or a parameter never rebound,
      ``at_least=k`` tells Dynamo the width is not below ``k``, so a slice
      back to ``k`` has a static size (two such encodings multiply without
      an assumption that their captured widths are equal).  ``max`` is
      never below its arguments, so this adds no fact that may be false.
    * Those checks wait for the graph's end as [Trap]'s deferred guards
      do, under the same conditions (:func:`graphmend.rules.trap.check_placement`):
      no in-place update, helper that updates, index computed from ``x``
      or call that rejects values after the call, no ``try``/``with``
      around it, not a generator.  Within its statement the call may only
      stand alone or under slices and dtype conversions
      (``[..., :k]``, ``.float()``), so nothing else of the statement runs
      between the encoding and its checks.
    * Left alone without a word: a width that is a Python number whatever
      the data (a literal, a size, a name bound to one), and
      ``one_hot(x)``, whose width -1 is read from the values.  Declined with
      the reason: starred or unknown keyword arguments, a call inside a
      larger expression, and what the placement conditions decline.
    * Not guaranteed, as for [Trap]'s guards: effects of the callers
      compiled into the same graph after the call.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import code
from graphmend.analysis.tensorness import Tensorness
from graphmend.rules.base import Context, Declined, declining, keyword, runtime_function
from graphmend.rules.defer import append_args
from graphmend.rules.trap import check_placement

#: What names one-hot.
QUALIFIED_NAMES = frozenset({"torch.nn.functional.one_hot", "torch._C._nn.one_hot"})
#: Conversions that may stand around the encoding in its statement (no arguments).
_CONVERSIONS = frozenset({"float", "double", "half", "bfloat16", "long", "int", "short", "bool"})
#: What the builtins that read a number from a tensor or pick one of two are called.
_READS = frozenset({"builtins.int", "builtins.max", "builtins.min"})


def calls_one_hot(ctx: Context, original: cst.Call) -> bool:
    """The cheap test (every call of the file comes here): a call of a name or attribute ``one_hot``."""
    function = original.func
    return (isinstance(function, cst.Name) and function.value == "one_hot"
            or isinstance(function, cst.Attribute) and function.attr.value == "one_hot")


def convert_one_hot(ctx: Context, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    facts = ctx.facts
    if facts is None or not ctx.wanted(original, "trap") or facts.qualified_name(original.func) not in QUALIFIED_NAMES:
        return updated
    if any(arg.star for arg in original.args) or any(
            arg.keyword is not None and arg.keyword.value not in ("tensor", "num_classes") for arg in original.args):
        raise Declined("one_hot() with starred or unknown keyword arguments")
    if len(original.args) != 2:
        return updated  # the width -1 is read from the values: nothing a rewrite keeps
    indexes, width = (_argument(original, position, name) for position, name in ((0, "tensor"), (1, "num_classes")))
    if indexes is None or width is None or not _read_from_data(ctx, width, frozenset()):
        return updated
    _stands_alone(ctx)
    # The placement's reasons speak of a guard; here the call is where the checks stand.
    with declining(words={"the guard": "the one_hot() call", "guard inside": "one_hot() inside"}):
        untouched = check_placement(ctx, original, [*ctx.ancestors], tested_value=indexes)
    ctx.record(original, "trap", "one_hot of a width read from data -> encoded in the graph, checked after it")
    bound = _lower_bound(ctx, width)
    extra = [*([untouched] if untouched is not None else []), *([keyword("at_least", bound)] if bound is not None else [])]
    # The call as written, its layout kept: only the callee and the arguments appended change.
    return (append_args(updated, extra) if extra else updated).with_changes(func=runtime_function("one_hot_encoding"))


def _lower_bound(ctx: Context, width: cst.BaseExpression) -> cst.BaseExpression | None:
    """``k`` where the width is ``max(e, k)`` (or ``max(k, e)``), or a local
    every binding of which is, with ``k`` an int literal or a parameter the
    function never rebinds: the width is never below either argument of
    ``max`` (the runtime takes ``k`` only if it is a Python int >= 0).
    None otherwise."""
    facts = ctx.facts
    if isinstance(width, cst.Name) and width.value not in facts.parameters:
        bounds = [_lower_bound(ctx, value) for value in facts.sole_bindings.get(width.value, ())]
        same = bounds and None not in bounds and len({code(bound) for bound in bounds}) == 1
        return bounds[0] if same else None
    if not (isinstance(width, cst.Call) and facts.qualified_name(width.func) == "builtins.max" and len(width.args) == 2
            and all(arg.keyword is None and not arg.star for arg in width.args)):
        return None
    for arg in width.args:
        value = arg.value
        if isinstance(value, cst.Integer) or (isinstance(value, cst.Name) and value.value in facts.parameters
                                               and value.value not in facts.uses.stores):
            return value
    return None


def _argument(call: cst.Call, position: int, name: str) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if (arg.keyword is None and index == position) or (arg.keyword is not None and arg.keyword.value == name):
            return arg.value
    return None


def _read_from_data(ctx: Context, expr: cst.BaseExpression, seen: frozenset[str]) -> bool:
    """Whether ``expr`` may be a tensor or a number read from one: a tensor
    by its form, arithmetic on one, ``int()``/``max()``/``min()`` of one, a
    local some binding of which is one."""
    facts = ctx.facts
    if facts.tensorness(expr) is Tensorness.TENSOR:
        return True
    if isinstance(expr, cst.Name):
        if expr.value in seen or expr.value in facts.parameters:
            return False
        return any(_read_from_data(ctx, value, seen | {expr.value}) for value in facts.sole_bindings.get(expr.value, ()))
    if isinstance(expr, cst.BinaryOperation):
        return _read_from_data(ctx, expr.left, seen) or _read_from_data(ctx, expr.right, seen)
    if isinstance(expr, cst.UnaryOperation):
        return _read_from_data(ctx, expr.expression, seen)
    if isinstance(expr, cst.Call) and facts.qualified_name(expr.func) in _READS:
        return any(not arg.star and _read_from_data(ctx, arg.value, seen) for arg in expr.args)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "item":
        return not facts.is_static(expr.func.value)
    return False


def _stands_alone(ctx: Context) -> None:
    """Declined unless the call is its statement's whole value, under slices
    and conversions only: ``return one_hot(...)[..., :k]``,
    ``y = one_hot(...).float()``, where nothing else runs after it."""
    path = ctx.ancestors
    child = path[-1]
    for parent in reversed(path[:-1]):
        if isinstance(parent, cst.Subscript) and parent.value is child and all(
                _clamping(ctx, element.slice) for element in parent.slice):
            child = parent
        elif isinstance(parent, cst.Attribute) and parent.value is child and parent.attr.value in _CONVERSIONS:
            child = parent
        elif isinstance(parent, cst.Call) and parent.func is child and isinstance(child, cst.Attribute) \
                and not parent.args:
            child = parent
        elif isinstance(parent, (cst.Return, cst.Expr)) and parent.value is child or isinstance(parent, cst.Assign) \
                and parent.value is child and all(isinstance(target.target, cst.Name) for target in parent.targets):
            return
        else:
            break
    raise Declined("one_hot() inside a larger expression: the rest of it would run in the graph before one-hot's "
                   "checks")


def _clamping(ctx: Context, part: cst.BaseSlice) -> bool:
    """``...``, ``None`` or a slice (whose bounds clamp) by anything but a
    tensor: an integer index would need the width while tracing."""
    if isinstance(part, cst.Index):
        return isinstance(part.value, cst.Ellipsis) or m.matches(part.value, m.Name("None"))
    return all(bound is None or ctx.facts.tensorness(bound) is not Tensorness.TENSOR
               for bound in (part.lower, part.upper, part.step))
