"""[Where] predicated control flow: a tensor ``if`` computes both arms and
merges what they bind, bit-identical to the arm taken, with gradients equal
to eager's where autograd is on, or it keeps its break and says why.

What it does
    Rewrites an ``if`` whose test is a tensor, and whose arms compute values,
    into code that evaluates both arms and merges every name they bind with
    ``torch.where``.  One converter per construct:

    * :mod:`.if_statement` -- ``if``/``elif``/``else`` at any depth (inner
      ``if``s are rewritten first and run inside the outer arms), else-less
      updates, arms that bind different names, stores into module
      attributes and buffers (``self.x = ...``, ``self.register_buffer``),
      memoised initialisation (``if not hasattr(self, "a")``), and effects
      inside an arm: a print/log/warning there is replayed only if its arm
      was taken (a *gated* deferred call), and a ``raise`` there, or a guard,
      is a deferred check on the conjunction of the enclosing tests;
    * :mod:`.returns` -- early returns: ``if T: return a`` followed by more
      code makes the rest of the function the else arm, at any depth, and
      the returned values merge leaf by leaf over equal pytrees;
    * :mod:`.conditional_expression` -- ``a if T else b``;
    * :mod:`.while_loop` -- ``while T:`` over tensors of loop-invariant
      shape and dtype with a pure body becomes ``torch.while_loop``.
    * :mod:`.static_values` -- ``float(torch.tensor(x).log2())`` and the
      like over Python values, computed while tracing; and
      ``torch.arange(a, b).tolist()`` over Python
      ints becomes ``list(range(a, b))``, with no tensor data read back.
    * :mod:`.scalar_index` -- ``x[i]`` with a 0-dim integer tensor ``i``
      (a read back into Python) gathers with integer index tensors, where a
      diagnosis found that read and the value only feeds arithmetic.
    * :mod:`.builtin_operators` -- ``pow(a, b)`` becomes ``a ** b`` (Dynamo
      does not trace the builtin on a tensor; Python defines the two as one).
    * :mod:`.count_facts` -- ``n = int((x > 0).sum())`` that a later test
      compares: the bounds it proves, ``torch._check``'d for [Capture].
    * :mod:`.masked_store` -- ``t[m] = f(a[m], b[m])`` (a bool mask, a
      data-dependent shape) becomes ``torch.where(m, f(a, b), t)`` copied
      into ``t``, for element-wise ``f`` that rounds each element alone.

    Tests are lowered by :mod:`graphmend.rules.predicates`: ``not``/``and``/
    ``or`` over tensors become ``~``/``&``/``|`` (or the runtime's exact
    ``not_``/``and_``/``or_``), ``bool(t)`` becomes ``t``, and ``t.item() >
    3``, ``float(t) < 0.5``, ``int(t) == 2`` compare exactly.

Why it breaks the graph
    ``if T:`` calls ``bool(T)``; Dynamo cannot trace a Python branch on a
    tensor's value, so it compiles the graph so far and resumes after it.

Before
    ::

        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

After
    ::

        _gm_cond_1 = hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() | torch.isnan(hidden_states).any()
        )
        def _gm_then_arm_1(hidden_states=hidden_states):
            hidden_states__then = hidden_states
            clamp_value__then = torch.finfo(hidden_states__then.dtype).max - 1000
            hidden_states__then = torch.clamp(hidden_states__then, min=-clamp_value__then, ...)
            return (hidden_states__then,)
        _gm_arms_1 = _graphmend.both_arms(_gm_cond_1, _gm_then_arm_1, _graphmend.empty_arm)
        if isinstance(_gm_arms_1, tuple):
            hidden_states__then, = _gm_arms_1
            hidden_states = _graphmend.where(_gm_cond_1, hidden_states__then, hidden_states, grad=True)
        elif _gm_arms_1:
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

Safety
    * Dispatch at run time: when the test is not a tensor (a Python bool),
      or the code runs eagerly, ``both_arms`` gives the test's truth and the
      original arm runs exactly as before; Dynamo folds that check to a
      constant.  A NumPy array in traced code counts as the tensor Dynamo
      traces it as (``np.asarray(t) < eps``).
    * Each arm runs as a function of its own (a thunk taking the locals it
      reads as default arguments, so no local becomes a cell; each must be
      bound before the ``if``).  An arm that raises while not taken (a
      shape error, ``v.clone()`` of a ``None``), or a graph break inside
      one, makes the whole ``both_arms`` call fall back to the original
      ``if``: no half of the predicated form is ever left to run eagerly.
    * A static half of a test (``x is not None and T``) keeps Python's
      short-circuit.
    * Both arms must be free of effects and must not raise inside the
      graph when not taken: only known-pure ``torch`` functions and tensor
      methods, pure builtins and ``float()``, slice indexing and integer
      literal indices (out of range they raise while traced: the original
      ``if`` runs), ``x[i]`` where the test proves ``i >= 0`` where taken
      (a conditional expression: clamped at 0 where not taken, see
      ``_graphmend.nonnegative_row``); effect calls [Defer] rewrote (gated), raises and
      guards [Trap] can defer (gated, with [Trap]'s preconditions); no
      loops, in-place or augmented assignment, item assignment, calls of
      unknown functions.  Memoised initialisation,
      ``if not hasattr(obj, "a"): obj.a = ...`` (Phi-3's ``long_inv_freq``),
      is read when present and computed into a local otherwise, never
      stored (a changed ``hasattr`` guard would recompile the next call).
    * A name bound in one arm only must be bound before the ``if``; a name
      read later must be merged (liveness), a name no code reads again is
      not.  Merges whose value is a Python constant in an arm are declined
      (``torch.where`` cannot select non-tensors), but for ``True`` or
      ``False`` bound to a name the function reads only for its truth
      (every read a test: ``accept = False`` ... ``if accept:``): merged
      with ``truth=True``, a Python bool and a one-element tensor become
      0-dim bool tensors of the same truth.  When an arm always raises, the
      other arm's values are taken as they are.
    * ``_graphmend.where`` selects with ``torch.where`` only when the test
      is a one-element tensor and both values have the same dtype, shape,
      device and layout (so no promotion or broadcast can change a bit);
      otherwise it makes the original Python choice, ``bool()`` and its
      errors included.
    * Training (gradients enabled): under autograd ``torch.where`` gives the arm not
      taken a zero gradient, which is exact only if it stays zero through
      that arm.  The rule marks a merge ``grad=True`` when every operation
      of both arms has a derivative that does not depend on the values
      (additions, products with literals, reshapes, ``relu``, reductions:
      ``graphmend.vocabulary.LINEAR_CALLS``).  The two arms merge as one
      ``torch.cond`` (``both_arms(..., by_cond=(...))``) where they may,
      which runs only the taken arm's backward: when no arm calls a runtime
      helper with effects and each reads every value that may carry a
      gradient once along any path (a value read twice there and again
      after the ``if`` would get the arm's two gradients summed first, a
      different rounding); at run time also only if the merged tensors
      agree in dtype, shape, strides and whether they require grad.  Arms
      that are also linear (``linear=True``) fall back to ``torch.where``
      where ``torch.cond`` cannot merge them: it sums the untaken arm's zero
      gradient in, exact but for the sign of a zero (``-0.0 + 0.0``).  Else
      ``_graphmend.where`` keeps the Python choice (and the break) under
      autograd, so ``0 * inf`` never becomes NaN.  Each merge also names what only one arm's value may
      depend on (``one_sided=``, :mod:`graphmend.analysis.gradients`):
      ``torch.where`` gives those a zero gradient where eager code leaves
      it ``None``, so the merge applies under autograd only when none of
      them requires grad.  For ``torch.cond`` that includes a value one arm
      reads and the other reaches only through what both read (``x`` where
      the other arm reads ``v0 = x.abs()``): ``torch.cond`` gives it a zero
      gradient of its own, which summed with the other turns ``-0.0`` into
      ``0.0``.
    * Buffers are updated in place (``copy_``) when no other attribute of
      the module is the same tensor (Phi-3's ``original_inv_freq`` starts as
      ``inv_freq``); otherwise they are re-registered, as before.
    * Functions that may update tensors in place anywhere (``x.add_()``,
      ``x[i] = y``, ``x += y``) are left alone: a merged value is a new
      tensor, so an alias the original had (``v = x if T else y`` followed
      by ``v.mul_(2)`` updates ``y`` when ``T`` is false) would be lost.
      Only updates that may reach what the ``if`` binds or reads count
      (alias classes), and none after the next statement when that one
      rebinds every name the ``if`` binds to a new tensor
      (``dt = dt.clamp(lo, hi)``).
    * A conditional expression's thunks take the locals they read as
      default arguments, so each must be bound before the expression; a
      thunk that raises under torch.compile makes the original choice.
"""

from graphmend.rules.where.builtin_operators import calls_pow, convert_builtin_pow
from graphmend.rules.where.conditional_expression import convert_ifexp
from graphmend.rules.where.count_facts import convert_count_facts
from graphmend.rules.where.if_statement import convert_elif, convert_if, has_elif, worth_trying
from graphmend.rules.where.masked_store import convert_masked_store
from graphmend.rules.where.returns import lower_returns
from graphmend.rules.where.scalar_index import convert_scalar_index
from graphmend.rules.where.state_update import convert_state_update
from graphmend.rules.where.static_values import calls_tolist, convert_static_read, convert_static_tolist, reads_back
from graphmend.rules.where.truth_assignment import convert_truth_assignment
from graphmend.rules.where.while_loop import convert_while

__all__ = ["calls_pow", "calls_tolist", "convert_builtin_pow", "convert_count_facts", "convert_elif", "convert_if",
           "convert_ifexp", "convert_masked_store", "convert_scalar_index", "convert_state_update", "convert_static_read",
           "convert_static_tolist", "convert_truth_assignment", "convert_while", "has_elif", "lower_returns",
           "reads_back", "worth_trying"]
