"""[Where]: tensor predicates and merges of both arms.

Rewritten ``if T:`` statements read ``if is_tensor(c): <both arms, merged
by where()> elif c: <original arm> else: <original arm>``.  Every helper
here falls back to exactly what the original statement did whenever it
cannot prove that the predicated form selects the same bits: a value that
is not a tensor stays plain Python, and a merge ``torch.where`` cannot make
exactly is made by ``torch.cond`` or breaks the graph with the reason.
"""

from __future__ import annotations

import torch
import torch.utils._pytree as _pytree
from torch.fx.experimental.symbolic_shapes import has_static_value

from graphmend import compat
from graphmend.modules import parameters
from graphmend.runtime.common import _fall_back, _plain, compiling, static_truth


#: Non-tensor leaf types whose ``==`` means "the same value" (floats are
#: excluded: 0.0 == -0.0 and nan != nan).
_EXACT_EQUALITY_TYPES = (int, bool, str, type(None), torch.dtype, torch.device)

try:
    from numpy import ndarray
except ImportError:  # torch runs without NumPy: no test is then a NumPy array
    _NUMPY_ARRAYS: tuple[type, ...] = ()
else:
    #: A NumPy array in traced code is a tensor to Dynamo, which traces NumPy
    #: through ``torch._numpy`` (``np.asarray(t) < eps``) and breaks at a
    #: branch on it as on a tensor: a test the predicated form takes too.
    _NUMPY_ARRAYS = (ndarray,)

#: What a test is for the predicated form under torch.compile.
_TENSOR_TESTS = (torch.Tensor, *_NUMPY_ARRAYS)


def checked_in_python(test):
    """The test of an ``assert`` that stays in the code behind a rewritten
    site: ``test`` itself, but under torch.compile, when the frame traced
    so far has effects that wait for the graph's end
    (:func:`graphmend.compat.effects_pending`), a tensor ends the graph here
    and ``bool(test)`` runs in Python.  Dynamo would compile ``assert
    tensor`` into an assertion inside the graph, which fails (with a
    RuntimeError) before the graph's Python effects and deferred messages
    happen; the break a rewrite removed before the assert used to flush them.
    With nothing waiting, the assert stays in the graph, as the original's
    did in the graph after that break.  The break is a break inside this
    call, so Dynamo runs the call eagerly: a test that holds gives ``True``
    there (the assert would otherwise meet the tensor again and break a
    second time); one that fails gives the tensor back, for the assert to
    fail exactly as the original's does."""
    if isinstance(test, torch.Tensor) and (not compiling() or compat.effects_pending()):
        _fall_back("an assert that follows a rewritten site is checked in Python, after the effects before it")
        return True if bool(test) else test
    return test


def is_tensor(value: object) -> bool:
    """Whether the predicated form applies: a tensor test under
    torch.compile, or a NumPy array there (Dynamo traces one as a tensor);
    Dynamo folds this to a constant.  Eager code keeps the
    original Python branch: it computes one branch, not both, and raises
    exactly what the original raised, a branch that would fail when not
    taken included."""
    return isinstance(value, _TENSOR_TESTS) and compiling()


def arm(condition, taken: bool, outer=None):
    """The gate of one arm of a rewritten ``if``: whether ``bool(condition)
    is taken``, and-ed with the gate of the arm around it (``outer``).  A
    one-element bool tensor for a one-element tensor ``condition``; the
    Python answer otherwise (``bool()`` of a larger tensor raises, as the
    original ``if`` did)."""
    predicate = _scalar_predicate(condition)
    if predicate is None:
        here = bool(condition) is taken
    else:
        here = predicate if taken else predicate.logical_not()
    if outer is None:
        return here
    if isinstance(outer, torch.Tensor) or isinstance(here, torch.Tensor):
        return torch.logical_and(torch.as_tensor(outer), torch.as_tensor(here))
    return outer and here


def not_(value):
    """``not value``; a one-element tensor under torch.compile gives a
    tensor with that truth value instead of a graph break."""
    if is_tensor(value):
        predicate = _scalar_predicate(value)
        if predicate is not None:
            return predicate.logical_not()
    return not value


def equal(a, b):
    """``torch.equal(a, b)``, a Python bool that Dynamo reads back from the
    tensors (``aten.equal``, a "Data dependent operator" break).  Under
    torch.compile, for plain strided tensors of one dtype and device: False
    when the shapes differ (known while tracing), else ``(a == b).all()``,
    a 0-dim bool tensor with the same truth (a NaN is unequal to itself in
    both; the rule proved one operand a fresh result, so the two share no
    memory).  Otherwise, and eagerly, ``torch.equal`` itself."""
    if compiling() and _plain(a) and _plain(b):
        if a.dtype == b.dtype and a.device == b.device and a.layout == b.layout == torch.strided:
            return False if a.shape != b.shape else (a == b).all()
        _fall_back("torch.equal of tensors that differ in dtype, device or layout")
    return torch.equal(a, b)


def and_(left, right):
    """The truth value of ``left and right()``: ``right`` is a thunk of the
    right operand (the rule proved it free of effects).  Under
    torch.compile, with a tensor on the left, it is evaluated whatever
    ``left`` is, and one-element tensors or bools combine into a tensor;
    when it raises (``torch.any`` of a Python bool) or a side does not
    combine, and eagerly, Python's short-circuit decides."""
    combined = _combine(left, right, torch.logical_and)
    return (left and right()) if combined is None else combined


def or_(left, right):
    """The truth value of ``left or right()`` (see :func:`and_`)."""
    combined = _combine(left, right, torch.logical_or)
    return (left or right()) if combined is None else combined


def _combine(left, right, operation):
    if not (compiling() and isinstance(left, torch.Tensor)):
        return None
    try:
        value = right()
    except Exception:  # raised again by Python's order, only if the left side does not decide
        return None
    predicate = _scalar_predicate(left)
    if predicate is None:
        return None  # bool(left) raises (more than one element): Python's order decides, and raises
    if type(value) is bool:
        truth = static_truth(value)
        if truth is None:
            return None  # a symbolic bool, whose truth would guard
        if truth is (operation is torch.logical_or):
            return truth  # it decides: no tensor, so a test on it stays static
        return predicate
    value = _scalar_predicate(value)
    return None if value is None else operation(predicate, value)


def where(condition, if_true, if_false, grad: bool = False, one_sided=(), truth: bool = False):
    """``if_true if condition else if_false``, computed as ``torch.where``.

    Applied leaf by leaf to equal pytrees when ``condition`` is a
    one-element tensor and every pair of tensor leaves has the same dtype,
    shape, device and layout, so ``torch.where`` neither promotes nor
    broadcasts and copies exactly the selected bits.  Under autograd (grad
    enabled and a leaf requiring grad) it applies only with ``grad``: the
    rule proved every operation of both arms has a derivative that does not
    depend on values, so the unselected arm's zero gradient stays zero
    instead of turning ``0 * inf`` into NaN; and only when none of
    ``one_sided`` (the values just one arm's result may depend on, see
    :mod:`graphmend.analysis.gradients`) requires grad, since the merged
    value passes a zero gradient to them where the original passes none
    (``None``).  With ``truth`` the code reads the value only for its
    truth (the rule proved it), so a Python bool and a one-element tensor
    both become 0-dim bool tensors of the same truth and merge.  Where it
    does not apply, the original Python choice runs, ``bool(condition)``
    included, with its graph break (named with the reason) and its error
    for a multi-element tensor.
    """
    predicate = _scalar_predicate(condition)
    if predicate is not None and _same_tensors(if_true, if_false):  # merged already (by torch.cond in both_arms)
        return if_true
    if truth and predicate is not None:
        if_true, if_false = _truth_value(if_true, predicate), _truth_value(if_false, predicate)
    problem = ("the test is not a one-element tensor" if predicate is None
               else _merge_problem(if_true, if_false, grad, one_sided))
    if problem is not None:
        _fall_back(problem)
        return if_true if condition else if_false
    # The predicate moves to each leaf's device (a 0-dim bool copies exactly).
    return _pytree.tree_map(
        lambda a, b: torch.where(predicate.to(a.device), a, b) if isinstance(a, torch.Tensor)
        else _select_number(predicate, a, b) if _differing_numbers(a, b) else a,
        if_true,
        if_false,
    )


#: The dtype that holds every Python number of a type exactly (an int of the int64 range).
_NUMBER_DTYPES = {bool: torch.bool, int: torch.int64, float: torch.float64}


def _differing_numbers(a, b) -> bool:
    """Whether ``a`` and ``b`` are Python numbers of one type (a symbolic
    one [Capture] holds among them) that may differ: the merge selects
    between them in a tensor and reads the result back."""
    return type(a) is type(b) and type(a) in _NUMBER_DTYPES and not (
        a is b or has_static_value(a) and has_static_value(b) and a == b)


def _select_number(predicate, a, b):
    """``a if predicate else b`` for two Python numbers of one type,
    through a 0-dim tensor of the dtype that holds both exactly (a float's
    every bit, a -0.0 and a NaN included), read back as that type."""
    dtype = _NUMBER_DTYPES[type(a)]
    return torch.where(predicate, torch.scalar_tensor(a, dtype=dtype, device=predicate.device),
                       torch.scalar_tensor(b, dtype=dtype, device=predicate.device)).item()


def _same_tensors(if_true, if_false) -> bool:
    """Whether the two pytrees hold the very same tensors, and only tensors
    (Dynamo cannot trace ``is`` between two tuples, and torch 2.11's
    cannot trace ``bool()`` of a list)."""
    true_leaves, true_spec = _pytree.tree_flatten(if_true)
    false_leaves, false_spec = _pytree.tree_flatten(if_false)
    return len(true_leaves) > 0 and true_spec == false_spec and all(
        isinstance(a, torch.Tensor) and a is b for a, b in zip(true_leaves, false_leaves))


def select(condition, if_true, if_false, grad: bool = False, one_sided=tuple, by_cond: bool = False):
    """``if_true() if condition else if_false()`` (a conditional expression).

    With a tensor ``condition`` under torch.compile both thunks run (the
    rule proved them free of effects, see :func:`both_arms`) and
    :func:`where` merges them; otherwise only the chosen one runs.
    ``one_sided`` is a thunk of :func:`where`'s ``one_sided`` values; with
    ``by_cond`` (each branch reads its values once) a value that requires
    grad merges by ``torch.cond`` (see :func:`both_arms`).
    """
    values = both_arms(condition, lambda: (if_true(),), lambda: (if_false(),),
                       by_cond=one_sided() if by_cond else None, linear=grad)
    if not isinstance(values, tuple):
        return if_true() if values else if_false()
    return where(condition, *values, grad=grad, one_sided=one_sided() if grad else ())


def both_arms(condition, if_true, if_false, by_cond=None, linear: bool = False):
    """The values of both arms of a rewritten ``if`` (each a thunk giving a
    tuple), concatenated into one tuple for :func:`where` to merge; or,
    where the original ``if`` must run instead, ``bool(condition)``: the arm
    to run.  That is so eagerly, for a test that is not a one-element
    tensor under torch.compile, and when an arm raises.

    ``by_cond`` (given where the rule proved each arm reads every value
    that may carry a gradient once and has no effects, see
    :func:`_merged_by_cond`) holds the values only one arm may depend on:
    under autograd the values that require grad are then merged by one
    ``torch.cond`` over the two arms instead of ``torch.where``.  With
    ``linear`` (every operation of the arms has a derivative that does
    not depend on values) ``torch.where`` may merge them where
    ``torch.cond`` cannot: its gradients are exact but for the sign of a
    zero, since it adds the untaken arm's zero gradient (``-0.0 + 0.0`` is
    ``0.0``), which ``torch.cond`` never computes.

    An arm that is not taken may fail (``v.clone()`` of a ``None``, a
    shape error): its error must not be raised.  Dynamo either traces the
    ``except`` (then the graph breaks here, with the reason) or breaks at
    this call and runs it eagerly, where it takes the truth of the test at
    once; so does a graph break anywhere inside an arm.  Either way the
    original arm runs next, and raises only what the original raised: the
    arms are whole functions, so no half of the predicated form is ever
    left to run eagerly after a break inside it.  The truth is taken here,
    in the call that broke, so that falling back costs one graph break, as
    the original ``if`` did, not a second one at the dispatch's own test
    (an ``if`` nested in an arm whose merge falls back would otherwise add
    a break to every ``if`` around it).
    """
    if not is_tensor(condition):
        return bool(condition)
    if _scalar_predicate(condition) is None:
        _fall_back("the test is not a one-element tensor")
        return bool(condition)
    try:
        values = (*if_true(), *if_false())
    except Exception as error:
        _fall_back(f"a branch fails when not taken ({type(error).__name__})")
        return bool(condition)
    if by_cond is None or not torch.is_grad_enabled():
        return values
    return _merged_by_cond(condition, if_true, if_false, values, by_cond, linear)


def _merged_by_cond(condition, if_true, if_false, values: tuple, one_sided: tuple, linear: bool = False):
    """``values`` (both arms' values, see :func:`both_arms`) with each value
    that requires grad in either arm replaced, in both halves, by the value
    of one ``torch.cond`` over the two arms; or ``bool(condition)`` where
    that is not exact.

    Under autograd ``torch.where`` sends the arm not taken a zero gradient,
    which its backward can turn into NaN (``0 * inf`` in a division's
    derivative).  ``torch.cond`` runs only the taken arm's backward, so the
    gradients are the eager ones when: nothing in ``one_sided`` requires
    grad (``torch.cond`` gives those a zero gradient where eager code gives
    none); the merged tensors agree in dtype, shape, strides, device and
    whether they require grad (the original's result requires grad only if
    the taken arm's does); and each arm reads every value that may carry a
    gradient once (the rule proved it): a value read twice inside an arm
    and again outside would get the arm's two gradients summed first, a
    different rounding.  The arms ran once already while traced, so they
    trace again inside ``torch.cond``, which has no graph break to fall
    back to.  Each merged tensor is cloned inside its branch: ``torch.cond``
    may not return its inputs (the bits are the same; so was a
    ``torch.where``'s new tensor)."""
    half = len(values) // 2
    pairs = list(zip(values[:half], values[half:]))
    carried = [i for i, (a, b) in enumerate(pairs) if _requires_grad(a) or _requires_grad(b)]
    if not carried:
        return values
    problem = _cond_problem([pairs[i] for i in carried], one_sided)
    if problem is not None and linear:
        return values  # torch.where merges them
    if problem is not None:
        _fall_back(problem)
        return bool(condition)

    def branch(arm):
        def leaves():
            produced = arm()
            return tuple(leaf.clone() for i in carried for leaf in _pytree.tree_leaves(produced[i]))
        return leaves

    merged_leaves = iter(torch.cond(_scalar_predicate(condition), branch(if_true), branch(if_false), ()))
    merged = list(values[:half])
    for i in carried:
        leaves, spec = _pytree.tree_flatten(merged[i])
        merged[i] = _pytree.tree_unflatten([next(merged_leaves) for _ in leaves], spec)
    return (*merged, *merged)


#: Why no higher-order op is traced after an attribute store (see
#: :func:`graphmend.compat.attribute_stores_pending`).
_HOP_LOSES_STORES = ("the frame stored into an attribute (or read an object's __dict__) before: Dynamo would "
                     "drop its attribute stores after a torch.cond or torch.while_loop")


def _cond_problem(pairs: list, one_sided: tuple) -> str | None:
    """Why ``torch.cond`` cannot merge ``pairs`` exactly (see :func:`_merged_by_cond`), or None."""
    if compat.attribute_stores_pending():
        return _HOP_LOSES_STORES
    if _requires_grad(one_sided):
        # Also where a gradient reaches it through what both arms read: summed with that one, the zero
        # of its own turns a -0.0 into 0.0 (see rules.where.arms._cond_sources).
        return ("under autograd, a value only one branch reads requires grad: torch.cond would give it "
                "a zero gradient of its own, where the original gives none or one that may be -0.0")
    for if_true, if_false in pairs:
        true_leaves, true_spec = _pytree.tree_flatten(if_true)
        false_leaves, false_spec = _pytree.tree_flatten(if_false)
        if true_spec != false_spec:
            return "the branches give values of different structures"
        for a, b in zip(true_leaves, false_leaves):
            if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
                return "under autograd, a branch gives a tensor that requires grad and the other a Python value"
            if a.requires_grad != b.requires_grad:
                return "under autograd, one branch gives a tensor that requires grad and the other one that does not"
            if (a.dtype, a.shape, a.device) != (b.dtype, b.shape, b.device) or a.stride() != b.stride():
                return "the branches give tensors of different dtypes, shapes, strides or devices"
            if a.layout != torch.strided or b.layout != torch.strided or a.is_quantized or b.is_quantized:
                return "the branches give tensors of a layout torch.cond does not take"
    return None


def empty_arm() -> tuple:
    """The arm of an ``if`` that has none (an else-less ``if``): no values."""
    return ()


def _truth_value(value, like: torch.Tensor):
    """``value`` as a 0-dim bool tensor on ``like``'s device when its truth
    is one bool or one tensor element; else ``value`` unchanged."""
    if type(value) is bool:
        return torch.tensor(value, device=like.device)
    predicate = _scalar_predicate(value)
    return value if predicate is None else predicate


def _scalar_predicate(condition):
    """``condition`` as a 0-dim bool tensor with ``bool()``'s truth value, or
    None when ``bool(condition)`` would not read one tensor element."""
    if isinstance(condition, _NUMPY_ARRAYS) and compiling():
        condition = torch.as_tensor(condition)  # the tensor Dynamo traces it as: the same elements
    if not isinstance(condition, torch.Tensor) or condition.numel() != 1:
        return None
    scalar = condition.reshape(())
    # bool(t) is "t != 0" for every dtype, nan included.
    return scalar if scalar.dtype == torch.bool else scalar != 0


def _merge_problem(if_true, if_false, grad: bool, one_sided=()) -> str | None:
    """Why ``torch.where`` cannot merge the two values exactly, or None."""
    true_leaves, true_spec = _pytree.tree_flatten(if_true)
    false_leaves, false_spec = _pytree.tree_flatten(if_false)
    if true_spec != false_spec:
        return "the branches give values of different structures"
    under_autograd = torch.is_grad_enabled() and not grad
    for a, b in zip(true_leaves, false_leaves):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if a.dtype != b.dtype:
                return f"the branches give tensors of different dtypes ({a.dtype}, {b.dtype})"
            if a.shape != b.shape:
                # Ranks, not sizes: a size may be symbolic (dynamic shapes), and
                # graph_break's message must be a constant while traced.
                return f"the branches give tensors of different shapes (of {a.dim()} and {b.dim()} dimensions)"
            if a.device != b.device or a.layout != torch.strided or b.layout != torch.strided or a.is_quantized:
                return "the branches give tensors on different devices or layouts"
            if under_autograd and (a.requires_grad or b.requires_grad):
                return "under autograd, torch.where would not give the exact gradients of these branches"
        elif _differing_numbers(a, b):
            if type(a) is int and not all(_in_int64(value) for value in (a, b)):
                return "the branches give Python ints out of the int64 range"
        elif not (a is b or (type(a) is type(b) and isinstance(a, _EXACT_EQUALITY_TYPES) and a == b)):
            return "the branches give different Python values"
    if torch.is_grad_enabled() and grad and any(_requires_grad(value) for value in one_sided):
        return ("under autograd, a value only one branch reads requires grad: torch.where would give it "
                "a zero gradient where the original gives none")
    return None


def _in_int64(value) -> bool:
    """A symbolic int is one already (read from an int64 tensor, or Dynamo's own)."""
    return not has_static_value(value) or -2**63 <= value < 2**63


def _requires_grad(value) -> bool:
    """Whether a tensor in ``value`` (a pytree, or a module's parameters) requires grad."""
    if isinstance(value, torch.nn.Module):
        return any(parameter.requires_grad for parameter in parameters(value))
    return any(isinstance(leaf, torch.Tensor) and leaf.requires_grad for leaf in _pytree.tree_leaves(value))
