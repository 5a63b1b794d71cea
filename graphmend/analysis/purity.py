"""Can this code run when its branch is not taken?  Read-only checks for
[Where], which evaluates both branches of an ``if`` unconditionally.

The answer is a reason (why not) or ``None``.  The checks are timid: a call
is pure only when it is a known-pure ``torch`` function, a known-pure tensor
method, a pure builtin or graphmend's own runtime; indexing other than by
slices may raise; anything else is declined with a reason.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import walk

QualifiedName = Callable[[cst.CSTNode], str | None]

#: Builtins that neither raise on tensors nor have effects.
PURE_BUILTINS = frozenset("abs min max len isinstance hasattr tuple".split())
#: Tensor methods that return a new value and touch nothing else.
PURE_TENSOR_METHODS = frozenset(
    """abs all amax amin any argmax argmin bool clamp clamp_max clamp_min clone contiguous cos
    cumsum detach double exp expand expand_as flatten float half int isfinite isinf isnan log
    logical_not long masked_fill max maximum mean min minimum ne eq gt ge lt le neg norm permute
    pow prod reciprocal relu reshape round rsqrt sigmoid sign sin softmax sqrt square squeeze sum
    t tanh to transpose type_as unsqueeze view where""".split()
)
#: graphmend.runtime helpers that only compute values ([Where]'s own).
PURE_RUNTIME_HELPERS = frozenset("is_tensor where select exact_item exact_float exact_int".split())
#: ``torch`` functions with effects beyond their result (random state, files).
IMPURE_TORCH_FUNCTIONS = frozenset(
    """bernoulli dropout alpha_dropout feature_alpha_dropout manual_seed multinomial normal
    poisson rand rand_like randint randint_like randn randn_like randperm save load seed
    set_printoptions""".split()
)


def call_impurity(call: cst.Call, qualified_name: QualifiedName) -> str | None:
    """Why calling ``call`` when its branch is not taken may be observable."""
    name = qualified_name(call.func) or ""
    shown = cst.Module([]).code_for_node(call.func)
    if name == "builtins.print":
        return "print() in a branch (I/O)"
    if name.startswith("builtins."):
        return None if name.removeprefix("builtins.") in PURE_BUILTINS else f"calls {shown}()"
    if name.startswith("graphmend.runtime."):
        helper = name.removeprefix("graphmend.runtime.")
        return None if helper in PURE_RUNTIME_HELPERS else f"calls {shown}(), which has effects"
    if name.startswith("torch."):
        function = name.rsplit(".", 1)[-1]
        if function.endswith("_") or function in IMPURE_TORCH_FUNCTIONS:
            return f"calls {shown}(), which has effects"
        if any(m.matches(arg, m.Arg(keyword=m.Name("out"))) for arg in call.args):
            return f"calls {shown}(out=...), which writes its argument"
        return None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in PURE_TENSOR_METHODS:
        return None
    return f"calls {shown}(), which may have effects"


def expression_impurity(expr: cst.CSTNode, qualified_name: QualifiedName) -> str | None:
    """Why evaluating ``expr`` unconditionally may be observable, or None."""
    for node in walk(expr):
        if isinstance(node, cst.Call):
            reason = call_impurity(node, qualified_name)
        elif isinstance(node, cst.Subscript):
            reason = None if all(map(_cannot_raise, node.slice)) else "indexing may raise IndexError"
        elif isinstance(node, cst.Lambda):
            reason = "a lambda with parameters" if _has_params(node) else None
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            reason = "a comprehension"
        elif isinstance(node, (cst.Yield, cst.Await, cst.NamedExpr)):
            reason = f"a {type(node).__name__} expression"
        else:
            reason = None
        if reason:
            return reason
    return None


def _cannot_raise(element: cst.SubscriptElement) -> bool:
    """Slices clamp instead of raising; None and ... add or keep dimensions."""
    if isinstance(element.slice, cst.Slice):
        return True
    return m.matches(element.slice.value, m.Name("None") | m.Ellipsis())


def _has_params(node: cst.Lambda) -> bool:
    params = node.params
    return bool(params.params or params.posonly_params or params.kwonly_params
                or isinstance(params.star_arg, cst.Param) or params.star_kwarg)
