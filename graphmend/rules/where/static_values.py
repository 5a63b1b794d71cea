"""The static-value converters of [Where]: values read back from tensors
that Dynamo could know without reading them.

What it does
    * ``torch.arange(a[, b[, step]]).tolist()`` becomes
      ``_graphmend.arange_list(a[, b[, step]])``: ``list(range(...))`` when
      every argument is a Python int (under torch.compile, a value Dynamo
      holds as a constant), the original expression otherwise.  monai's
      losses spell their reduction axes this way
      (``torch.arange(2, len(input.shape)).tolist()``).
    * A tensor made only of Python values and read back -- ``float``,
      ``int``, ``bool``, ``.item()`` or ``.tolist()`` of ``torch.tensor(...)``
      (or ``torch.as_tensor``) through method calls and ``torch`` functions
      -- becomes ``_graphmend.static_read(...)`` with the same operations
      as data: where every argument is a constant, the value is computed by
      those operations while Dynamo traces (a multi-scale RoI pooler's
      ``2 ** float(torch.tensor(approx_scale).log2().round())``).

Before
    ::

        reduce_axis: list[int] = torch.arange(2, len(input.shape)).tolist()
        scale = 2 ** float(torch.tensor(approx_scale).log2().round())

After
    ::

        reduce_axis: list[int] = _graphmend.arange_list(2, len(input.shape))
        scale = 2 ** _graphmend.static_read("float", (torch.tensor, (approx_scale,), {}), ("log2", (), {}), ("round", (), {}))

Why it breaks the graph
    ``.tolist()``, ``.item()`` and ``float(t)`` read a tensor's data back
    into Python (``aten._local_scalar_dense``), which Dynamo does not trace
    without ``capture_scalar_outputs``; that the tensor was built from
    constants does not matter to it.

Safety
    * Decided at run time (:func:`graphmend.runtime.arange_list`,
      :func:`graphmend.runtime.static_read`).  ``arange_list``: only Python
      ints (not bools, floats or tensors) of magnitude below 2**31, for
      which ``torch.arange``'s length, computed in doubles, is exact; a
      zero step, or one whose sign does not lead from start to end, raises
      as ``torch.arange`` does (the original runs; ``range()`` would be
      empty).  ``static_read``: only constants (numbers, bools, strings,
      None, dtypes, devices, in tuples and lists) are computed while
      tracing, by the same torch operations, so the value is the eager
      one to the bit; Dynamo guards each constant where it comes from, so
      another value recompiles; a tensor, a dynamic size or a dynamic
      float runs the operations as written, and the read breaks as before.
    * Declined: keyword or starred arguments of ``arange``; for a static
      read, an argument that is not built of names, attributes, subscripts
      by a literal, literals, arithmetic, tuples and lists and builtins
      without effects (``len``, ``abs``, ``min``, ``max``, ``float``,
      ``int``...): anything else would be evaluated before the tensor
      operations, not between them; a method that draws random numbers or
      works in place; a function outside torch's operation namespaces.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.bindings import code
from graphmend.rules.base import Context, Declined, runtime_call, runtime_function

_ARANGE_TOLIST = m.Call(func=m.Attribute(value=m.Call(), attr=m.Name("tolist")), args=[])


def calls_tolist(ctx: Context, original: cst.Call) -> bool:
    """The cheap test (every call of the file comes here): a call of a ``.tolist`` attribute."""
    return isinstance(original.func, cst.Attribute) and original.func.attr.value == "tolist"


def convert_static_tolist(ctx: Context, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    facts = ctx.facts
    if facts is None or not m.matches(original, _ARANGE_TOLIST) or not ctx.wanted(original, "where"):
        return updated
    if facts.qualified_name(original.func.value.func) != "torch.arange":
        return updated
    arange = updated.func.value
    if not 1 <= len(arange.args) <= 3 or any(arg.star or arg.keyword is not None for arg in arange.args):
        raise Declined("torch.arange(...).tolist() with keyword or starred arguments")
    ctx.record(original, "where", "torch.arange(...).tolist() -> range")
    # The arguments as written, layout included.
    return arange.with_changes(func=runtime_function("arange_list"))


#: The calls that make a tensor from Python values (the first step of a static read).
_MAKERS = ("torch.tensor", "torch.as_tensor")
#: How a value is read back: builtins by qualified name, methods by name.
_READ_BUILTINS = {f"builtins.{name}": name for name in vocabulary.SCALAR_BUILTINS}
_READ_METHODS = vocabulary.SCALAR_METHODS
#: Arguments evaluated with no effect, in any order: names, attributes,
#: subscripts by a literal, literals, arithmetic, tuples and lists of these,
#: and builtins without effects called on them.
_PLAIN = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
_PLAIN_BUILTINS = frozenset(f"builtins.{name}" for name in vocabulary.PURE_BUILTINS | vocabulary.SCALAR_BUILTINS)


def reads_back(ctx: Context, original: cst.Call) -> bool:
    """The cheap test (every call of the file comes here): ``float(x)``,
    ``int(x)``, ``bool(x)`` of a call, or ``x.item()`` / ``x.tolist()`` of one."""
    if isinstance(original.func, cst.Name):
        return original.func.value in vocabulary.SCALAR_BUILTINS and len(original.args) == 1 \
            and isinstance(original.args[0].value, cst.Call)
    return isinstance(original.func, cst.Attribute) and original.func.attr.value in _READ_METHODS \
        and isinstance(original.func.value, cst.Call) and not original.args


def convert_static_read(ctx: Context, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    facts = ctx.facts
    if facts is None or not ctx.wanted(original, "where"):
        return updated
    if isinstance(original.func, cst.Name):
        read = _READ_BUILTINS.get(facts.qualified_name(original.func))
        tensor, made = original.args[0].value, updated.args[0].value
        if read is None or original.args[0].star or original.args[0].keyword is not None:
            return updated
    else:
        read, tensor, made = original.func.attr.value, original.func.value, updated.func.value
    steps = _steps(ctx, tensor, made)
    if steps is None:
        return updated
    ctx.record(original, "where", f"{read}() of a tensor made from Python values -> computed while tracing")
    return runtime_call("static_read", [cst.Arg(cst.SimpleString(f'"{read}"')), *(cst.Arg(step) for step in steps)])


def _steps(ctx: Context, original: cst.BaseExpression, updated: cst.BaseExpression) -> list[cst.Tuple] | None:
    """The operations that make ``original`` from Python values, as
    ``(callee, args, kwargs)`` tuples (built from ``updated``); None where
    it is no such chain (``updated`` no longer one either: ``int(t.item())``
    once ``t.item()`` is a static read).  Raises :class:`Declined` for a
    chain whose arguments or operations a static read cannot take."""
    if not isinstance(original, cst.Call) or not isinstance(original.func, (cst.Name, cst.Attribute)):
        return None
    if not isinstance(updated, cst.Call) or type(updated.func) is not type(original.func):
        return None
    qualified = ctx.facts.qualified_name(original.func)
    if qualified in _MAKERS:
        return [_step(ctx, updated.func, updated.args)]
    if qualified is not None and qualified.rpartition(".")[0] in vocabulary.OPERATION_NAMESPACES:
        # ``torch.log2(t, ...)``: the tensor is the first argument.
        if not original.args or original.args[0].star or original.args[0].keyword is not None:
            return None
        inner = _steps(ctx, original.args[0].value, updated.args[0].value)
        if inner is None:
            return None
        if qualified.rpartition(".")[2] in vocabulary.IMPURE_FUNCTIONS:
            raise Declined(f"a static read through {qualified}(), which draws random numbers or has effects")
        return [*inner, _step(ctx, updated.func, updated.args[1:])]
    if isinstance(original.func, cst.Attribute) and qualified is None:
        # ``t.log2(...)``: a method of the tensor the chain made so far.
        inner = _steps(ctx, original.func.value, updated.func.value)
        if inner is None:
            return None
        method = original.func.attr.value
        if method.endswith("_") or method in vocabulary.IMPURE_FUNCTIONS:
            raise Declined(f"a static read through .{method}(), which works in place or draws random numbers")
        return [*inner, _step(ctx, cst.SimpleString(f'"{method}"'), updated.args)]
    return None


def _step(ctx: Context, callee: cst.BaseExpression, args) -> cst.Tuple:
    """``(callee, (args...), {"keyword": value...})``."""
    positional = [arg for arg in args if arg.keyword is None]
    keywords = [arg for arg in args if arg.keyword is not None]
    for arg in args:
        if arg.star or not _plain(ctx, arg.value):
            raise Declined(f"a static read with the argument `{code(arg.value)}`: it would be evaluated before "
                           "the tensor operations, not between them")
    return cst.Tuple([
        cst.Element(callee),
        cst.Element(cst.Tuple([cst.Element(arg.value) for arg in positional])),
        cst.Element(cst.Dict([cst.DictElement(cst.SimpleString(f'"{arg.keyword.value}"'), arg.value)
                              for arg in keywords])),
    ])


def _plain(ctx: Context, value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(not isinstance(element, cst.StarredElement) and _plain(ctx, element.value)
                   for element in value.elements)
    if isinstance(value, cst.UnaryOperation):
        return isinstance(value.operator, (cst.Minus, cst.Plus)) and _plain(ctx, value.expression)
    if isinstance(value, cst.BinaryOperation):
        return _plain(ctx, value.left) and _plain(ctx, value.right)
    if isinstance(value, cst.Subscript):
        return _plain(ctx, value.value) and all(
            isinstance(element.slice, cst.Index) and isinstance(element.slice.value, (cst.Integer, cst.SimpleString))
            for element in value.slice)
    if isinstance(value, cst.Attribute):
        return _plain(ctx, value.value)
    if isinstance(value, cst.Call):
        return ctx.facts.qualified_name(value.func) in _PLAIN_BUILTINS and all(
            not arg.star and arg.keyword is None and _plain(ctx, arg.value) for arg in value.args)
    return isinstance(value, _PLAIN)
