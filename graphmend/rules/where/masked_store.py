"""The masked-store converter of [Where]: ``t[m] = f(a[m], b[m])`` as
``t.copy_(torch.where(m, f(a, b), t))`` under torch.compile.

Before
    ::

        raw_scores = torch.ones_like(rss)
        raw_scores[cond] = 1 - (rss[cond] / tss[cond])

After
    ::

        raw_scores = torch.ones_like(rss)
        _graphmend.masked_store(raw_scores, cond, lambda rss, tss: 1 - (rss / tss), rss, tss)

Why it breaks the graph
    Indexing with a bool mask (``rss[cond]``) gives as many elements as the
    mask holds ``True``: an output shape that depends on data, which Dynamo
    does not trace ("Dynamic shape operator", DS).  torchmetrics computes
    its scores this way, to leave out the elements a division would make
    undefined.

Safety
    * Eagerly, and wherever the runtime cannot prove the whole-tensor form
      exact, :func:`graphmend.runtime.masked_store` runs the statement as
      written (``t[m] = f(a[m], b[m])``), with its graph break, named.
    * The value is computed on every element, then the mask selects.  That
      gives the selected elements the same bits only for operations whose
      result at an element depends on that element alone and is correctly
      rounded, whichever path (vectorised or not) the kernel takes for it:
      ``+ - * /``, unary ``-``, ``sqrt``, ``abs``, casts (``.to(dtype)``,
      ``.float()``) and ``squeeze()`` (the whole value is reshaped back:
      dropping dimensions of size one keeps each element's place); ``exp``
      or ``log`` are not (SIMD and scalar versions may round differently),
      nor is ``//`` (an integer division by zero raises, also on elements
      the mask leaves out).
    * Every tensor the value reads is indexed by the mask itself, and the
      mask is a plain name: nothing else can broadcast differently on the
      whole tensor.  At run time (constants to Dynamo): the mask is bool,
      the target, the mask and every operand have one shape and device, the
      target is dense (no element stored twice; a transposed target is
      fine, an expanded one is not), nothing is complex
      (complex products and quotients are not correctly rounded), and the
      whole value has the target's dtype (so ``torch.where`` does not
      promote).
    * Under autograd only where each operand is read once (else two
      gradients of one operand would be summed in another order) and no
      code shows the target's ``grad_fn``: the elements the mask leaves out
      reach the value detached (their gradient, which the original never
      computes, may be ``0 / 0``), and the others are gathered by integer
      indexing, whose backward sums into zeros as bool indexing's does
      (``0 + -0.0`` is ``0.0``): every gradient bit is the original's.
    * The target keeps its identity: it is updated in place, as the
      original's ``__setitem__`` did, so every alias sees the update.
    * In an arm of a tensor ``if`` that [Where] predicates (torchmetrics'
      ``if valid_mask.any(): corrcoef[valid_mask] = ...``) the store is
      gated (``gate=``): the mask is ``mask & gate``, so where the arm is
      not taken it writes back the target's own values, into the very
      tensor the original's store would update; the ``if``'s alias check
      therefore does not count it.  Only into a tensor the function made
      itself (no caller holds it, and it is an inference tensor only if
      made in inference mode, where writing it is allowed), and only with
      gradients disabled: else autograd may have saved it, and the write
      would change its version.  Otherwise the store breaks and the whole
      ``if`` runs as the original.
"""

from __future__ import annotations

import libcst as cst

from graphmend import vocabulary
from graphmend.analysis.bindings import code
from graphmend.rules.base import Context, Declined, keyword, runtime_call

#: Operators exact on every element (IEEE-754 correctly rounded).
_EXACT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


def convert_masked_store(ctx: Context, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
    facts = ctx.facts
    store = _masked_store(original)
    if store is None or facts is None or not ctx.wanted(original, "where"):
        return updated
    target, mask = store
    _check_exact(facts, original.value, mask)
    reads = list(_masked_names(original.value, mask))
    others = sorted(facts.own_reads(original.value) - {mask, *reads})
    unbound = [name for name in (target, mask, *reads, *others) if name in facts.own_reads(original)
               and name not in facts.bound_before(original)]
    if unbound:
        raise Declined(f"`{unbound[0]}` may be unbound here")
    ctx.record(original, "where", "masked store -> torch.where")
    # One parameter per read: the original indexes at each read, and so must
    # the store run as written (autograd sums the reads' gradients apart).
    parameters_of_reads = [name if not reads[:i].count(name) else f"{name}__{reads[:i].count(name) + 1}"
                           for i, name in enumerate(reads)]
    value = updated.value.visit(_Unmasked(mask, parameters_of_reads))
    parameters = cst.Parameters(
        [cst.Param(cst.Name(name)) for name in parameters_of_reads]
        + [cst.Param(cst.Name(name), default=cst.Name(name),
                     equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
           for name in others]
    )
    args = [cst.Name(target), cst.Name(mask), cst.Lambda(parameters, value), *map(cst.Name, reads)]
    # Each operand read once, and no code shows the target's grad_fn.
    if len(set(reads)) == len(reads) and not facts.shows_grad_fn({target}):
        args.append(keyword("grad", cst.Name("True")))
    return cst.Expr(runtime_call("masked_store", args))


def _masked_store(assign: cst.Assign) -> tuple[str, str] | None:
    """``(t, m)`` for ``t[m] = value`` whose value reads some ``a[m]``."""
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    mask = _name_index(target)
    if mask is None or not any(True for _ in _masked_names(assign.value, mask)):
        return None
    return target.value.value, mask


def _masked_names(node: cst.CSTNode, mask: str):
    """The names ``a`` of the ``a[mask]`` in ``node``."""
    if _is_masked(node, mask):
        yield node.value.value
        return
    for child in node.children:
        yield from _masked_names(child, mask)


def _name_index(node: cst.CSTNode) -> str | None:
    """``m`` for ``a[m]`` (both plain names), else None."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1):
        return None
    index = node.slice[0].slice
    if isinstance(index, cst.Index) and index.star is None and isinstance(index.value, cst.Name):
        return index.value.value
    return None


def _is_masked(node: cst.CSTNode, mask: str) -> bool:
    """``a[mask]``."""
    return _name_index(node) == mask


def _check_exact(facts, node: cst.BaseExpression, mask: str) -> None:
    """Raise :class:`Declined` unless ``node`` computes each element from
    the same elements of its ``a[mask]`` operands alone, correctly rounded."""
    if _is_masked(node, mask) or isinstance(node, (cst.Integer, cst.Float)):
        return
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _EXACT_OPERATORS):
        _check_exact(facts, node.left, mask)
        _check_exact(facts, node.right, mask)
        return
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        _check_exact(facts, node.expression, mask)
        return
    if isinstance(node, cst.Call) and not any(arg.star or arg.keyword for arg in node.args):
        func = node.func
        if vocabulary.torch_function(facts.qualified_name(func)) in vocabulary.EXACT_ELEMENTWISE:
            if len(node.args) == 1:
                _check_exact(facts, node.args[0].value, mask)
                return
        elif isinstance(func, cst.Attribute) and func.attr.value in vocabulary.EXACT_ELEMENTWISE:
            method = func.attr.value
            if method == "to" and len(node.args) == 1 and facts.is_static(node.args[0].value) or (
                    method != "to" and not node.args):
                _check_exact(facts, func.value, mask)
                return
    if isinstance(node, cst.Name):
        raise Declined(f"`{node.value}` is read without the mask `{mask}`, so it may not line up with it")
    raise Declined(f"`{code(node)}` may not give the same bits on the whole tensor as on the elements "
                   f"`{mask}` selects")


class _Unmasked(cst.CSTTransformer):
    """Each ``a[mask]``, in order -> the next of ``parameters``."""

    def __init__(self, mask: str, parameters: list[str]) -> None:
        super().__init__()
        self.mask = mask
        self.parameters = iter(parameters)

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if not _is_masked(original_node, self.mask):
            return updated_node
        return cst.Name(next(self.parameters), lpar=updated_node.lpar, rpar=updated_node.rpar)
