"""[Trap] validation-guard lowering: a tensor guard is checked after the graph
and raises the same exception (type and message), after the messages that
precede it in program order and before those that follow it.

What it does
    Rewrites the test of ``if T: raise E(args)`` (an ``if`` whose body only
    raises, and whose test may be a tensor: ``x is None``, shapes and
    ``len`` are left alone) into ``_graphmend.deferred_check(T, "E",
    __name__, lambda n=n: (args,))``, and ``assert T, message`` on a tensor
    into ``assert _graphmend.deferred_assert(T, __name__, lambda n=n:
    (message,)), message``.  The ``raise``/``assert`` stays as written for
    eager code.  ``E`` is a module-level or built-in exception class (or a
    dotted path to one); ``raise E`` without a call works too.  The message
    may be any expression over the guard's parameters and locals that can
    be built while tracing (``tuple(y.shape)``, ``y.max()``, ``len(xs)``,
    f-strings of those); ``not``/``and``/``or`` in ``T`` become tensor
    predicates (:mod:`graphmend.rules.predicates`).  A ``raise`` inside an
    arm of a tensor ``if`` that [Where] rewrites becomes
    ``_graphmend.deferred_raise`` gated by the arms around it, and a guard
    there a check on the conjunction of the enclosing predicates.  The
    ``torch.unique`` a label check tests is lowered before this pass
    (:mod:`graphmend.rules.unique_reads`).

Why it breaks the graph
    ``if T:`` on a tensor calls ``bool(T)``: Dynamo cannot branch on a
    tensor's value, so it compiles the graph so far and resumes after it.

Before
    ::

        if (input_ids < 0).any():
            raise ValueError(f"negative ids in {name}: {tuple(input_ids.shape)}")

After
    ::

        if _graphmend.deferred_check((input_ids < 0).any(), "ValueError", __name__, lambda name=name, input_ids=input_ids: (_graphmend.fstring("negative ids in {}: {}", name, tuple(input_ids.shape)),)):
            raise ValueError(f"negative ids in {name}: {tuple(input_ids.shape)}")

Safety
    * Run-time dispatch: ``deferred_check`` returns ``T`` itself unless
      ``T`` is a tensor under torch.compile, so eager code and Python-bool
      tests run the original ``if``/``raise`` (``bool()`` errors included);
      the message thunk runs only in the deferred case.  Dynamo folds the
      ``isinstance`` test.
    * A message that reads a str or number the compiled frame was called
      with, which nothing before the guard read (a validation helper
      compiled as its own frame, called with each field's name): built in
      the graph, Dynamo would guard on its value, a graph per value and,
      past the recompile limit, the frame run eagerly.  ``deferred_check``
      then hands the tensor back and the ``if`` breaks on it, as the
      original did.
    * Under torch.compile the condition is computed in the graph and the
      check is replayed after it, in program order with [Defer]'s messages:
      it raises ``E(*args)`` (same type and message; a multi-element ``T``
      raises ``bool()``'s same ambiguity error) after the messages before
      it and before the ones after it.  No device-side assert.  A later
      Python ``raise`` or ``assert`` makes Dynamo end the graph first, so
      the deferred check still raises first.
    * Guaranteed when the check fails: no in-place update, item store,
      ``+=`` or container method runs after the guard in this function
      (all declined, see :mod:`graphmend.analysis.effects`; ``+=`` and
      ``out=`` through a name or attribute that nothing after the guard
      rebinds and the test does not read are passed as ``untouched=``,
      and the check waits only if each holds None or a number while
      traced, so that they write no tensor); stores into
      attributes, globals and cells after it wait for the graph's end,
      after the replayed checks, so a failing check skips them as the
      original's raise did.  And no store into an object, list, dict,
      global or cell that existed before the frame waits for the graph's
      end at the guard: a failing check would lose it.  Only the
      trace knows which objects are older than the frame (a solver or a
      distribution the frame built is not), so the runtime decides: with
      such a store pending, the check is taken in Python, a graph break
      at the guard as in the original (``diagnose`` reports it with the
      reason).
    * The message: under torch.compile it is built while tracing whether
      or not the check fails (and formatted only when it fails, with the
      values at the guard), so it may only read names surely bound at the
      guard and call what cannot fail (no indexing with a tensor, no
      unknown functions); otherwise the guard is declined with the reason.
      A read of a tensor's value into Python that the message formats as
      it is (``t.item()``, ``t.tolist()``, ``float(t)``, ``int(t)``,
      ``bool(t)``, ``str(t)``, ``repr(t)`` as a field or argument) becomes
      ``_graphmend.message_read``: a copy of the tensor at the guard is
      read after the graph, only if the check fails.  A read the message
      computes with (``t.item() * 2``) is declined.
      A tensor that requires grad reaches the message as it is (its text
      shows its ``grad_fn``, which a copy would change), so a guard whose
      message shows a tensor that an update in place after it may reach,
      even one the function made itself, is declined too.
    * Declined as well: a guard inside ``try``/``with``/``except`` (the
      raise would escape the block), generator functions, ``raise ...
      from``, keyword or starred exception arguments, an exception that is
      not a global name, and a guard followed by an index that is a
      tensor (subscript, ``gather``, ``embedding``-like calls): its tested
      tensor, a value the function computes from it (``bin_idx =
      searchsorted(edges, x)``), or any other tensor the function makes;
      or by a call that rejects some values (``torch.linalg.cholesky``,
      ``inv``, ``solve``, ``multinomial``).  These would fail inside the
      graph before the check could raise; given a rejected input, eager
      code raises the guard's exception first.  A parameter used as an
      index is not seen (it may hold an int).
    * An ``assert`` on a tensor that no diagnosis names still matters:
      Dynamo compiles it into an assertion inside the graph, which fails
      (RuntimeError) before the graph's deferred messages and checks and
      its Python effects happen.  Behind a site this pass rewrote in the
      same function (the break there used to flush them), the assert is
      deferred, or, when it cannot be, its test becomes
      ``_graphmend.checked_in_python(T)``: the graph ends at the assert.
    * Not guaranteed (not visible in the function): effects of functions it
      calls after the guard (e.g. BatchNorm's running statistics in
      training), code of callers compiled into the same graph, errors
      raised inside the graph by other operations on the rejected input
      (out of range in an index it computes in a function it calls, a
      kernel missing for a dtype) where the graph updates a tensor in
      place or draws random numbers before them (elsewhere the graph's
      operations run again eagerly up to the failing one, and the checks
      before it raise first: :mod:`graphmend.compat.failures_at_run_time`),
      and an in-graph assert behind a rewrite in a function it calls or
      later in an enclosing loop's body (an earlier iteration).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.bindings import code, computed_from, dotted_name, following, walk
from graphmend.analysis.effects import (
    hazards_around, in_place_updates, index_uses, literal_format, message_impurity, message_read,
)
from graphmend.analysis.facts import FunctionFacts
from graphmend.analysis.tensorness import Tensorness
from graphmend.rules.base import (
    Context, Declined, declining, is_dispatch, is_runtime_call, keyword, runtime_call, string, thunk, tuple_of,
)
from graphmend.rules.defer import deferred_text
from graphmend.rules.predicates import lower_test, test_kind

_RAISE_ONLY = m.IndentedBlock(body=[m.SimpleStatementLine(body=[m.Raise()])]) | m.SimpleStatementSuite(
    body=[m.Raise()]
)
#: The runtime functions a guard or a raise becomes (a [Where] arm gates them).
DEFERRED_CHECKS = ("deferred_check", "deferred_assert", "deferred_raise")


def is_guard(node: cst.If) -> bool:
    """``if T: raise ...`` with no else."""
    return node.orelse is None and m.matches(node.body, _RAISE_ONLY)


def convert_guard(ctx: Context, original: cst.If, updated: cst.If) -> cst.If:
    facts = ctx.facts
    if (
        facts is None
        or is_runtime_call(updated.test, *DEFERRED_CHECKS)
        or is_dispatch(updated.test)
        or not ctx.wanted(original, "trap")
        # Never a tensor (``x is None``, shapes, ``len``): Dynamo
        # evaluates it while tracing; there is nothing to defer.
        or test_kind(facts, original.test) is Tensorness.STATIC
    ):
        return updated
    raise_ = original.body.body[0].body[0] if isinstance(original.body, cst.IndentedBlock) else original.body.body[0]
    exception, message = exception_parts(ctx, raise_)
    untouched = check_placement(ctx, original, [*ctx.ancestors])
    test = lower_test(facts, original.test, updated.test, original)
    args = [cst.Arg(test), cst.Arg(string(exception)), cst.Arg(cst.Name("__name__"))]
    if message is not None:
        args.append(cst.Arg(message_thunk(facts, message, original)))
    args += [untouched] if untouched is not None else []
    ctx.record(original, "trap", "raise guard -> deferred check")
    return updated.with_changes(test=runtime_call("deferred_check", args))


def convert_assert(ctx: Context, original: cst.Assert, updated: cst.Assert) -> cst.Assert:
    """``assert T, msg`` on a tensor -> ``assert deferred_assert(T, ...), msg``.

    Dynamo compiles an ``assert`` on a tensor into an assertion inside the
    graph (no break): failing, it raises before the graph's Python effects
    and deferred messages happen.  Behind a site this pass rewrote (whose
    break used to flush them), the assert is therefore deferred even when
    no diagnosis named it, or, when it cannot be, checked in Python
    (``checked_in_python``: the break moves to the assert)."""
    facts = ctx.facts
    if facts is None or is_runtime_call(updated.test, "deferred_assert", "checked_in_python") or not ctx.enabled("trap"):
        return updated
    kind = test_kind(facts, original.test)
    if kind is Tensorness.STATIC:
        return updated
    behind_a_rewrite = any(ctx.line(facts.function) <= site.lineno < ctx.line(original) for site in ctx.sites)
    wanted = ctx.wanted(original, "trap") and (kind is Tensorness.TENSOR or ctx.diagnosed(original))
    if not (wanted or behind_a_rewrite):
        return updated
    in_python = dict(
        suffix="; after a rewritten site, the assert is checked in Python (a graph break), after the "
               "effects, messages and checks before it",
        instead=updated.with_changes(test=runtime_call("checked_in_python", [updated.test])),
    ) if behind_a_rewrite else {}
    with declining(**in_python):
        untouched = check_placement(ctx, original, [*ctx.ancestors])
        test = lower_test(facts, original.test, updated.test, original)
        args = [cst.Arg(test), cst.Arg(cst.Name("__name__"))]
        if original.msg is not None:
            args.append(cst.Arg(message_thunk(facts, [cst.Arg(original.msg)], original)))
        args += [untouched] if untouched is not None else []
    ctx.record(original, "trap", "assert -> deferred check")
    return updated.with_changes(test=runtime_call("deferred_assert", args))


def deferred_raise(ctx: Context, raise_: cst.Raise, path: Sequence[cst.CSTNode]) -> cst.SimpleStatementLine:
    """``_graphmend.deferred_raise("E", __name__, thunk)`` for a ``raise``
    in a tensor arm ([Where] adds the gate); ``path`` holds the original
    nodes from the module down to ``raise_``.  Raises Declined."""
    if not ctx.enabled("trap"):
        raise Declined("a branch raises")
    exception, message = exception_parts(ctx, raise_)
    untouched = check_placement(ctx, raise_, path)
    args = [cst.Arg(string(exception)), cst.Arg(cst.Name("__name__"))]
    if message is not None:
        args.append(cst.Arg(message_thunk(ctx.facts, message, raise_)))
    args += [untouched] if untouched is not None else []
    return cst.SimpleStatementLine([cst.Expr(runtime_call("deferred_raise", args))])


def exception_parts(ctx: Context, raise_: cst.Raise) -> tuple[str, list[cst.Arg] | None]:
    """The exception's dotted global name and its message arguments (None
    for ``raise E``); raises Declined."""
    if raise_.exc is None:
        raise Declined("a bare 'raise' re-raises the active exception")
    if raise_.cause is not None:
        raise Declined("'raise ... from' is not deferred")
    exception, message = raise_.exc, None
    if isinstance(exception, cst.Call):
        exception, message = exception.func, list(exception.args)
    dotted = ctx.facts.global_dotted(exception)
    if dotted is None:
        raise Declined(f"{code(exception)} is not a global name")
    for arg in message or ():
        if arg.star or arg.keyword is not None:
            raise Declined("keyword or starred exception argument")
    return dotted, message


def message_thunk(facts: FunctionFacts, message: list[cst.Arg], at: cst.CSTNode) -> cst.Lambda:
    """``lambda a=a: (args,)``: evaluated only when the check is deferred
    (while tracing), so it must be safe to build then; every local it reads
    must be bound at ``at``.  Raises Declined."""
    bound = facts.bound_before(at)
    for arg in message:
        reason = message_impurity(arg.value, facts.qualified_name, facts.is_static, facts.callee)
        if reason:
            raise Declined(
                f"message argument {code(arg.value)}: {reason} (under torch.compile the message is "
                "built while tracing, even when the check passes)"
            )
    read_locals = sorted(set().union(*(facts.own_reads(arg.value) for arg in message)))
    unbound = [name for name in read_locals if name not in bound]
    if unbound:
        raise Declined(
            f"message reads {', '.join(unbound)}, which may be unbound at the guard "
            "(under torch.compile the message is built even when the check passes)"
        )
    reads = _ReadsInMessage(facts)
    return thunk(tuple_of(_lazy_text(arg.value.visit(reads)) for arg in message), read_locals)


class _ReadsInMessage(cst.CSTTransformer):
    """``x.item()`` -> ``_graphmend.message_read("item", x)`` (and
    ``.tolist()``, ``.unique()``, ``torch.unique``, ``float``, ``int``,
    ``bool``, ``str``, ``repr``) where ``x`` may be a tensor: made after the
    graph, only if the check fails (see :func:`graphmend.runtime.message_read`).
    Bottom-up, so a read of unique values (``len(torch.unique(x))``) reads
    the inner read."""

    def __init__(self, facts: FunctionFacts) -> None:
        super().__init__()
        self.facts = facts

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        read = message_read(original_node, self.facts.qualified_name)
        if read is None or self.facts.is_static(read[1]):
            return updated_node
        operand = updated_node.func.value if read[0] in vocabulary.MESSAGE_METHOD_READERS else updated_node.args[0].value
        return runtime_call("message_read", [cst.Arg(string(read[0])), cst.Arg(operand)])


def _lazy_text(value: cst.BaseExpression) -> cst.BaseExpression:
    """A message argument formatted only when it is raised: an f-string, or
    a literal's ``.format(...)`` (the same ``str.format``), becomes
    ``_graphmend.lazy_format(template, *values)``.  Under torch.compile a
    formatted string is a value Dynamo makes after the graph on every call,
    a tensor's text included, though the check passes."""
    if literal_format(value):
        return runtime_call("lazy_format", [cst.Arg(value.func.value), *value.args])
    return deferred_text(value, formatter="lazy_format")


def _message_of(guard: cst.CSTNode) -> cst.CSTNode:
    """What a guard's raise or assert formats (the guard itself where unsure)."""
    if isinstance(guard, cst.Assert):
        return guard.msg if guard.msg is not None else cst.Pass()
    if isinstance(guard, cst.Raise):
        return guard.exc if guard.exc is not None else cst.Pass()
    if isinstance(guard, cst.Call):  # a check a runtime function makes: its message shows no value
        return cst.Pass()
    return guard


def check_placement(ctx: Context, guard: cst.CSTNode, ancestors: Sequence[cst.CSTNode],
                    tested_value: cst.BaseExpression | None = None) -> cst.Arg | None:
    """Declined unless deferring the raise is invisible (see Safety), or
    invisible provided what :func:`_untouched` names holds no tensor at the
    guard (the ``untouched=`` argument of the runtime call, or None).
    ``ancestors`` are the original nodes from the module down to ``guard``
    (``guard`` may be among them); ``tested_value`` is what the check tests
    (default: the guard's test)."""
    facts = ctx.facts
    function = facts.function
    if facts.is_generator:
        raise Declined("generator function: code after a yield runs after the caller resumes it")
    chain = list(ancestors)
    if not chain or chain[-1] is not guard:
        chain.append(guard)
    inside = chain[chain.index(function) + 1 : -1]
    if any(isinstance(p, (cst.Try, cst.TryStar, cst.With, cst.ExceptHandler, cst.Finally)) for p in inside):
        raise Declined("guard inside try/with/except: the deferred raise would leave the block")
    after = following(chain)
    variables = facts.parameters | facts.locals
    test = tested_value if tested_value is not None else guard.test if isinstance(guard, (cst.If, cst.Assert)) else None
    tested = {n.value for n in m.findall(test, m.Name()) if n.value in variables} if test is not None else set()
    hazards = hazards_around(facts.effects, guard, after)
    bound = facts.bound_before(guard)
    for hazard in hazards:
        # Left to the runtime only where it may hold a number: not what the test computes with.
        reads = facts.own_reads(hazard.through) if hazard.through is not None else None
        if (reads is None or not reads <= bound or reads & tested
                or facts.tensorness(hazard.through) is Tensorness.TENSOR):
            raise Declined(hazard.reason)
    shown = {facts.alias_classes.get(n, n) for n in facts.own_reads(_message_of(guard))}
    waived = frozenset(id(hazard.node) for hazard in hazards)
    for root, _, _ in in_place_updates(after, function, exempt=waived) if shown else ():
        # A message's tensor that requires grad travels as it is (its text shows its grad_fn).
        if root is None or facts.alias_classes.get(root, root) in shown:
            raise Declined(f"after the guard, {'a tensor' if root is None else f'`{root}`'} is updated in place, "
                           "and the message would show the update")
    # A rejected input would reach the index: out of range, it fails in the graph before the check.
    derived = computed_from(function, tested) - tested if tested else set()
    for statement in after:
        for used in index_uses(statement):
            reads = {n.value for n in m.findall(used, m.Name())}
            if tested & reads:
                raise Declined(
                    f"after the guard, {code(used)} indexes with the tested tensor: it could fail in the "
                    "graph before the check"
                )
            if derived & reads:
                raise Declined(
                    f"after the guard, the index {code(used)} is computed from the tested tensor: it could fail "
                    "in the graph before the check"
                )
    for statement in after:  # what a helper does: an update in place runs in the graph, before the check
        for node in walk(statement):
            summary = facts.callee(node) if isinstance(node, cst.Call) else None
            if summary is not None and summary.updates is not None:
                raise Declined(f"after the guard, calls {code(node.func)}(), which {summary.updates}")
    failure = facts.fails_when_run(after)
    if failure is not None:
        # Given an input the guard rejects as well, eager code raises the guard's exception first.
        raise Declined(f"after the guard, {failure}: that fails in the graph before the check")
    return _untouched([hazard.through for hazard in hazards], facts)


def _untouched(through: list[cst.BaseExpression], facts: FunctionFacts) -> cst.Arg | None:
    """``untouched=lambda self=self: (self.n,)``: what an update after the
    guard writes through, which must hold None or a Python number at the
    guard for the update to write no tensor (see
    :func:`graphmend.runtime.deferred_check`); None when there is none."""
    if not through:
        return None
    chains = list({dotted_name(chain): chain for chain in through}.values())
    read_locals = sorted(set().union(*(facts.own_reads(chain) for chain in chains)))
    return keyword("untouched", thunk(tuple_of(chains), read_locals))
