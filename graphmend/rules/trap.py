"""[Trap] validation-guard lowering (SPEC 3.3).

What it does
    Rewrites the test of ``if T: raise E(args)`` (an ``if`` whose body only
    raises, and whose test may be a tensor: ``x is None``, shapes and
    ``len`` are left alone) into ``_graphmend.deferred_check(T, "E", __name__, lambda
    n=n: (args,))`` (the names the message reads become default arguments,
    so no local turns into a closure cell).  The ``raise`` statement stays as written.  ``E`` is a
    module-level or built-in exception class (or a dotted path to one);
    ``raise E`` without a call works too; f-string messages are split like
    [Defer]'s.

Why it breaks the graph
    ``if T:`` on a tensor calls ``bool(T)``: Dynamo cannot branch on a
    tensor's value, so it compiles the graph so far and resumes after it.

Before
    ::

        if (input_ids < 0).any():
            raise ValueError(f"negative ids in {name}")

After
    ::

        if _graphmend.deferred_check((input_ids < 0).any(), "ValueError", __name__, lambda name=name: (_graphmend.fstring("negative ids in {}", name),)):
            raise ValueError(f"negative ids in {name}")

Safety
    * Run-time dispatch: ``deferred_check`` returns ``T`` itself unless
      ``T`` is a tensor under torch.compile, so eager code and Python-bool
      tests run the original ``if``/``raise`` (``bool()`` errors included);
      the message thunk runs only in the deferred case.  Dynamo folds the
      ``isinstance`` test.
    * Under torch.compile the condition is computed in the graph and the
      check is replayed after it, in program order with [Defer]'s messages:
      it raises ``E(*args)`` (same type and message; a multi-element ``T``
      raises ``bool()``'s same ambiguity error) after the messages before
      it and before the ones after it.  No device-side assert.  A later
      Python ``raise`` or ``assert`` makes Dynamo end the graph first, so
      the deferred check still raises first.
    * Guaranteed when the check fails: no in-place update, store or
      ``global``/``nonlocal`` runs after the guard in this function (all
      declined, see :mod:`graphmend.analysis.effects`), and no Python
      effect on state the function does not own runs before it (Dynamo
      applies those after the replayed checks).  The message arguments are
      literals, names, attributes and f-strings of those: under torch.compile
      they are evaluated even when the check passes, so they must not fail.
    * Declined as well: a guard inside ``try``/``with``/``except`` (the
      raise would escape the block), generator functions, ``raise ...
      from``, keyword or starred
      exception arguments, an exception that is not a global name, and a
      guard whose tested tensor is used as an index (subscript, ``gather``,
      ``embedding``-like calls) after it: an out-of-range index would fail
      inside the graph before the check could raise.
    * Not guaranteed (not visible in the function): effects of functions it
      calls after the guard (e.g. BatchNorm's running statistics in
      training), code of callers compiled into the same graph, and errors
      raised inside the graph by other operations on the rejected input.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.metadata import QualifiedNameProvider, ScopeProvider

from graphmend.analysis.bindings import parameter_names
from graphmend.analysis.effects import hazards_around, local_names
from graphmend.analysis.tensorness import Tensorness, classify
from graphmend.rules.base import RUNTIME_ALIAS, Declined, Rule, global_name, runtime_call, string, thunk
from graphmend.rules.defer import deferred_text

#: Calls whose argument is used as an index (the last name of the callee).
INDEXING_CALLS = frozenset(
    {"gather", "index_select", "take", "take_along_dim", "one_hot", "scatter", "scatter_add",
     "scatter_reduce", "index_add", "index_copy", "index_fill", "index_put", "bincount",
     "nll_loss", "cross_entropy", "embedding", "embedding_bag"}
)

_RAISE_ONLY = m.IndentedBlock(body=[m.SimpleStatementLine(body=[m.Raise()])]) | m.SimpleStatementSuite(
    body=[m.Raise()]
)
_ALREADY_DEFERRED = m.Call(func=m.Attribute(value=m.Name(RUNTIME_ALIAS), attr=m.Name("deferred_check")))


class TrapRule(Rule):
    NAME = "trap"
    METADATA_DEPENDENCIES = (*Rule.METADATA_DEPENDENCIES, ScopeProvider)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._functions: list[cst.FunctionDef] = []
        #: The original nodes from the module down to the one being visited.
        self._ancestors: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._ancestors.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        try:
            return super().on_leave(original_node, updated_node)
        finally:
            self._ancestors.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node, updated_node):
        self._functions.pop()
        return updated_node

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        if (
            not self._functions
            or original_node.orelse is not None
            or not m.matches(original_node.body, _RAISE_ONLY)
            or m.matches(original_node.test, _ALREADY_DEFERRED)
            or not self.wanted(original_node)
            # Never a tensor (``x is None``, shapes, ``len``): Dynamo
            # evaluates it while tracing; there is nothing to defer.
            or classify(original_node.test, self._qualified_name) is Tensorness.STATIC
        ):
            return updated_node
        try:
            check = self._check(original_node, updated_node.test)
        except Declined as reason:
            self.skip(original_node, str(reason))
            return updated_node
        self.record(original_node, "raise guard -> deferred check")
        return updated_node.with_changes(test=check)

    def _qualified_name(self, node: cst.CSTNode) -> str | None:
        names = self.get_metadata(QualifiedNameProvider, node, set())
        return min((q.name for q in names), default=None)

    def _check(self, guard: cst.If, test: cst.BaseExpression) -> cst.Call:
        """``_graphmend.deferred_check(test, "E", __name__[, thunk])`` for the
        original ``guard``, or Declined."""
        raise_ = guard.body.body[0].body[0] if isinstance(guard.body, cst.IndentedBlock) else guard.body.body[0]
        if raise_.cause is not None:
            raise Declined("'raise ... from' is not deferred")
        exception, message = raise_.exc, None
        if isinstance(exception, cst.Call):
            exception, message = exception.func, exception.args
        name = global_name(self, exception)
        self._check_placement(guard)
        args = [cst.Arg(test), cst.Arg(string(name)), cst.Arg(cst.Name("__name__"))]
        if message is not None:
            args.append(cst.Arg(self._thunk(message, guard)))
        return runtime_call("deferred_check", args)

    def _thunk(self, message: list[cst.Arg], guard: cst.If) -> cst.Lambda:
        """``lambda a=a: (args,)``: evaluated only when the check is deferred;
        every name it reads is bound at the guard (or it is declined)."""
        bound = self._bound_at(guard)
        for arg in message:
            if arg.star or arg.keyword is not None:
                raise Declined("keyword or starred exception argument")
            if not _inert(arg.value):
                raise Declined(
                    f"message argument {cst.Module([]).code_for_node(arg.value)} is not a literal, "
                    "name, attribute or f-string of those (it would be evaluated when the check passes)"
                )
            unbound = sorted(_roots(arg.value) - bound)
            if unbound:
                raise Declined(
                    f"message reads {', '.join(unbound)}, which may be unbound at the guard "
                    "(under torch.compile the message is built even when the check passes)"
                )
        elements = [cst.Element(deferred_text(arg.value)) for arg in message]
        if len(elements) == 1:
            elements[0] = elements[0].with_changes(comma=cst.Comma())
        captured = sorted(set().union(*(_roots(arg.value) for arg in message)))
        return thunk(cst.Tuple(elements), captured)

    def _bound_at(self, guard: cst.If) -> set[str]:
        """Names surely bound when ``guard`` runs: the function's parameters
        and the targets of plain assignments in its body before the
        statement that holds the guard.  (A global could be missing too, so
        a message reading one is declined.)"""
        function = self._functions[-1]
        holder = next(a for a in self._ancestors if a in function.body.body)
        bound = set(parameter_names(function))
        for statement in function.body.body[: function.body.body.index(holder)]:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    targets = small.targets if isinstance(small, cst.Assign) else []
                    for target in targets:
                        bound |= {n.value for n in m.findall(target.target, m.Name())}
        return bound

    def _check_placement(self, guard: cst.If) -> None:
        """Declined unless deferring the raise is invisible (see Safety)."""
        function = self._functions[-1]
        if m.findall(function.body, m.Yield()):
            raise Declined("generator function: code after a yield runs after the caller resumes it")
        after: list[cst.CSTNode] = []
        node: cst.CSTNode = guard
        parents = reversed(self._ancestors[: self._ancestors.index(guard)])
        while node is not function:
            parent = next(parents)
            if isinstance(parent, (cst.Try, cst.TryStar, cst.With, cst.ExceptHandler, cst.Finally)):
                raise Declined("guard inside try/with/except: the deferred raise would leave the block")
            if isinstance(parent, (cst.For, cst.While)):
                after.append(parent)  # the next iteration runs the whole loop again
            elif isinstance(parent, (cst.IndentedBlock, cst.Module)) and node in parent.body:
                after.extend(parent.body[parent.body.index(node) + 1 :])
            node = parent
        hazards = hazards_around(function, guard, after)
        if hazards:
            raise Declined(hazards[0].reason)
        variables = parameter_names(function) | local_names(function)
        tested = {n.value for n in m.findall(guard.test, m.Name()) if n.value in variables}
        for statement in after:
            for used in _index_uses(statement):
                if tested & {n.value for n in m.findall(used, m.Name())}:
                    raise Declined(
                        f"after the guard, {cst.Module([]).code_for_node(used)} indexes with the "
                        "tested tensor: it could fail in the graph before the check"
                    )


def _inert(node: cst.BaseExpression) -> bool:
    """A literal, name, attribute chain, or an f-string of those."""
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float, cst.Name)):
        return True
    if isinstance(node, cst.Attribute):
        return _inert(node.value)
    if isinstance(node, cst.ConcatenatedString):
        return _inert(node.left) and _inert(node.right)
    if isinstance(node, cst.FormattedString):
        return all(
            _inert(part.expression)
            for part in node.parts
            if isinstance(part, cst.FormattedStringExpression)
        )
    return False


def _roots(node: cst.BaseExpression) -> set[str]:
    """The names an :func:`_inert` expression reads (an attribute chain's root)."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Attribute):
        return _roots(node.value)
    if isinstance(node, cst.ConcatenatedString):
        return _roots(node.left) | _roots(node.right)
    if isinstance(node, cst.FormattedString):
        return set().union(
            *(_roots(p.expression) for p in node.parts if isinstance(p, cst.FormattedStringExpression))
        )
    return set()


def _index_uses(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """Subscript indices and arguments of indexing calls in ``statement``."""
    uses: list[cst.CSTNode] = [element for sub in m.findall(statement, m.Subscript()) for element in sub.slice]
    for call in m.findall(statement, m.Call()):
        callee = cst.helpers.get_full_name_for_node(call.func) or ""
        last = callee.rsplit(".", 1)[-1]
        if last in INDEXING_CALLS or "embed" in last.lower():
            uses.extend(call.args)
    return uses
