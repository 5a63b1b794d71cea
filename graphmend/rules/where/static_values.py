"""The static-value converter of [Where]: a list of ints read back from a
tensor that Dynamo could know without reading it.

``torch.arange(a[, b[, step]]).tolist()`` becomes
``_graphmend.arange_list(a[, b[, step]])``: ``list(range(...))`` when every
argument is a Python int (under torch.compile, a value Dynamo holds as a
constant), the original expression otherwise.  monai's losses spell their
reduction axes this way (``torch.arange(2, len(input.shape)).tolist()``).

Before
    ::

        reduce_axis: list[int] = torch.arange(2, len(input.shape)).tolist()

After
    ::

        reduce_axis: list[int] = _graphmend.arange_list(2, len(input.shape))

Why it breaks the graph
    ``.tolist()`` reads a tensor's data back into Python
    (``aten._local_scalar_dense``), which Dynamo does not trace without
    ``capture_scalar_outputs``; that the tensor was built from constants
    does not matter to it.

Safety
    * Decided at run time (:func:`graphmend.runtime.arange_list`): only
      Python ints (not bools, floats or tensors) of magnitude below 2**31,
      for which ``torch.arange``'s length, computed in doubles, is exact;
      a zero step, or one whose sign does not lead from start to end,
      raises as ``torch.arange`` does (the original runs; ``range()``
      would be empty).
    * Declined: keyword arguments (``dtype=``, ``device=``, ``end=``...)
      and starred ones.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from graphmend.rules.base import Context, Declined, runtime_function

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
