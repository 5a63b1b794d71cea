"""[Trap] ``torch.unique`` whose values only tests and messages read: the
tests answer as on the unique values, and a failing check's message shows
them as the original did.

What it does
    ``u = torch.unique(x)`` (or ``x.unique()``) whose every read is a test of its elements
    under a whole-tensor ``any``/``all`` (``torch.any((u != 0) & (u != 1))``)
    or part of a ``raise``'s or an ``assert``'s message becomes ``u =
    _graphmend.unique_tested(x)``, and each read in a message becomes
    the call again, which [Trap] then reads after the graph
    (``_graphmend.message_read("torch.unique", x)``).  This is the label
    check of torchmetrics' classification metrics.

Why it breaks the graph
    ``torch.unique``'s output size depends on the data (a dynamic-shape
    operator): Dynamo ends the graph before it and runs it eagerly.

Before
    ::

        unique_values = torch.unique(target, dim=None)
        if torch.any((unique_values != 0) & (unique_values != 1)):
            raise RuntimeError(f"Detected the following values in `target`: {unique_values}")

After
    ::

        unique_values = _graphmend.unique_tested(target, dim=None)
        if _graphmend.deferred_check(torch.any((unique_values != 0) & (unique_values != 1)), "RuntimeError", __name__, lambda target=target: (_graphmend.lazy_format("Detected the following values in `target`: {}", _graphmend.message_read("torch.unique", target)),)):
            raise RuntimeError(f"Detected the following values in `target`: {torch.unique(target, dim=None)}")

Safety
    * Eagerly ``unique_tested`` is ``torch.unique`` as written.  Under
      torch.compile it returns ``x`` itself: an element-wise predicate
      (comparisons with a number, ``&``, ``|``, ``^``, ``~``, ``isnan`` and
      friends) holds for some (every) unique value exactly when it holds
      for some (every) element, so ``any``/``all`` give the same 0-dim
      bool; order, repeats and shape do not matter to them.
    * Only where that is so at run time: ``x`` is a plain strided tensor of
      a dtype ``torch.unique`` supports, and every name a test compares
      with is None or a Python number at the binding (a tensor would
      broadcast against ``x``'s shape instead of the unique values').
      Otherwise ``torch.unique`` runs, the original break.
    * A message read is the same call made again on ``x`` (also inside
      ``len(u)``, ``u.tolist()``, ``str(u)``: [Trap] reads the call's
      values after the graph, and then these), only where the
      binding is the one value the name can hold there (the rest of its
      block, before another binding), and nothing from the binding to the
      last read rebinds ``x``, updates a tensor in place or calls what may
      (no unknown functions).
    * Declined, with the reason: any other read outside a message (``len(u)``, ``u.sum()``,
      a return, a read in a nested function), a binding in a loop, ``try``
      or ``with``, ``return_inverse``/``return_counts``/``dim`` options, a
      global ``u``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary
from graphmend.analysis.bindings import code, following, iter_children, name_uses, nested_scopes, statements
from graphmend.analysis.effects import UNIQUE_DEFAULT_OPTIONS, call_impurity, in_place_hazard, message_impurity
from graphmend.analysis.facts import FunctionFacts, Metadata
from graphmend.analysis.tensorness import COMPARISON_OPERATORS
from graphmend.rules.base import Context, Declined, declining, keyword, runtime_call, thunk, tuple_of

_LOGICAL = (cst.BitAnd, cst.BitOr, cst.BitXor)
_NUMBER = m.Integer() | m.Float() | m.Imaginary() | m.Name("True") | m.Name("False") | m.Name("None") | \
    m.UnaryOperation(operator=m.Minus() | m.Plus(), expression=m.Integer() | m.Float() | m.Imaginary())
#: Options of ``torch.unique`` that keep its result the unique values alone
#: (in any order: the tests do not mind it, and a message makes the same call).
_PLAIN_OPTIONS = {**UNIQUE_DEFAULT_OPTIONS, "sorted": m.Name("True") | m.Name("False")}
_BLOCKS = (cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.ExceptHandler, cst.Finally)


@dataclass
class _Reads:
    """What the reads of one binding need."""

    messages: list[cst.Name] = field(default_factory=list)
    operands: dict[str, None] = field(default_factory=dict)  # names the tests compare with
    tests: int = 0
    #: The statements from the binding on, in order, and how many of them
    #: reach the last read.
    span: list[cst.CSTNode] = field(default_factory=list)
    last: int = 0


def lower_unique_reads(ctx: Context, facts: FunctionFacts) -> cst.FunctionDef | None:
    """``facts.function`` with every such binding rewritten, or None."""
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    for path in _bindings(facts):
        assign = path[-1]
        if not ctx.wanted(assign, "trap"):
            continue
        rewritten = ctx.attempt("trap", assign, lambda: _rewrite(ctx, facts, path))
        if isinstance(rewritten, Declined):
            continue
        replacements.update(rewritten)
        ctx.record(assign, "trap", "torch.unique read only by tests -> the tensor itself under torch.compile")
    if not replacements:
        return None
    return facts.function.visit(_Substituting(replacements, ctx.metadata))


def _bindings(facts: FunctionFacts) -> Iterator[list[cst.CSTNode]]:
    """Paths from the function down to each ``u = torch.unique(x, ...)``."""
    def walk(node: cst.CSTNode, path: list[cst.CSTNode]):
        for child in iter_children(node):
            if isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                continue
            if m.matches(child, m.Assign(targets=[m.AssignTarget(m.Name())], value=m.Call())) and \
                    _unique_call(facts, child.value) is not None:
                yield [*path, child]
            elif isinstance(child, (cst.BaseStatement, cst.BaseSuite, cst.Else)):
                yield from walk(child, [*path, child])
    yield from walk(facts.function, [facts.function])


def _rewrite(ctx: Context, facts: FunctionFacts, path: list[cst.CSTNode]) -> dict[cst.CSTNode, cst.CSTNode]:
    assign: cst.Assign = path[-1]
    name = assign.targets[0].target.value
    # Statically, only a binding some test reads is worth a word.
    with declining(quiet=not (ctx.diagnosed(assign) or _tested(facts, name))):
        return _rewrite_binding(ctx, facts, path)


def _rewrite_binding(ctx: Context, facts: FunctionFacts, path: list[cst.CSTNode]) -> dict[cst.CSTNode, cst.CSTNode]:
    assign: cst.Assign = path[-1]
    name = assign.targets[0].target.value
    call: cst.Call = assign.value
    taken, options = _plain_unique(facts, call)
    tensor = taken.value
    if name not in facts.locals or name == tensor:
        raise Declined(f"`{name}` is not a local of the function" if name != tensor else
                       f"`{name}` is bound to its own unique values")
    if any(isinstance(p, _BLOCKS) for p in path):
        raise Declined("torch.unique in a loop, try or with: its value may reach reads before it")
    if any(name in name_uses(scope).loads_names() for scope in nested_scopes(facts.function.body)):
        raise Declined(f"a nested function reads `{name}`")
    line, block = path[-2], path[-3]
    if not isinstance(line, cst.SimpleStatementLine):
        raise Declined("torch.unique in a one-line block")
    # The rest of its line and of its block, where it is the one value of the name.
    own_block = len(line.body) - line.body.index(assign) - 1 + len(block.body) - block.body.index(line) - 1
    reads = _Reads()
    _scan(facts, name, following(path), own_block, reads)
    if not reads.tests:
        raise Declined(f"no test reads `{name}` element by element under any()/all()")
    _check_span(facts, tensor, line, reads)
    operands = sorted(reads.operands)
    args = [cst.Arg(taken), *options]
    if isinstance(call.func, cst.Attribute) and call.func.value is taken:
        args.append(keyword("method", cst.Name("True")))  # ``x.unique()``: eagerly, the method
    if operands:
        args.append(keyword("operands", thunk(tuple_of(map(cst.Name, operands)), operands)))
    replacements: dict[cst.CSTNode, cst.CSTNode] = {call: runtime_call("unique_tested", args)}
    for read in reads.messages:
        replacements[read] = ctx.metadata.copy(call)
    return replacements


def _unique_call(facts: FunctionFacts, call: cst.Call) -> tuple[cst.BaseExpression | None, list[cst.Arg]] | None:
    """(what it takes the unique values of, its options) for
    ``torch.unique(x, ...)`` or ``x.unique(...)``; None for other calls."""
    if vocabulary.torch_function(facts.qualified_name(call.func)) == "unique":
        first = call.args[0] if call.args else None
        if first is None or first.keyword is not None or first.star:
            return None, list(call.args)
        return first.value, list(call.args[1:])
    if m.matches(call.func, m.Attribute(value=m.Name(), attr=m.Name("unique"))) and \
            facts.is_local(call.func.value.value):
        return call.func.value, list(call.args)
    return None


def _plain_unique(facts: FunctionFacts, call: cst.Call) -> tuple[cst.Name, list[cst.Arg]]:
    """The name whose unique values ``call`` makes, and the call's options;
    Declined for options that make more than the unique values."""
    taken, options = _unique_call(facts, call)
    if not isinstance(taken, cst.Name) or not facts.is_local(taken.value):
        shown = code(taken) if taken is not None else "no positional argument"
        raise Declined(f"torch.unique of {shown}: only a local name's unique values are rewritten")
    for option in options:
        pattern = _PLAIN_OPTIONS.get(option.keyword.value) if option.keyword is not None else None
        if pattern is None or not m.matches(option.value, pattern):
            raise Declined(f"unique(..., {code(option).rstrip(', ')}) returns more than the unique values")
    return taken, options


def _scan(facts: FunctionFacts, name: str, after: list[cst.CSTNode], own_block: int, reads: _Reads,
          sole: bool = True) -> None:
    """Classify the reads of ``name`` the binding may reach in ``after``
    (statements in the order they may run; the first ``own_block`` are the
    rest of its own block, where it is the only value ``name`` can hold)
    until a statement binds ``name`` again."""
    for index, statement in enumerate(after):
        sole = sole and index < own_block
        binds = name in name_uses(statement).stores
        if not binds:
            reads.span.append(statement)
            _sort_reads(facts, name, statement, sole, reads)
            continue
        if m.matches(statement, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget(m.Name(name))])])):
            reads.span.append(statement)
            _sort_reads(facts, name, statement.body[0].value, sole, reads)
            return
        if not isinstance(statement, cst.If):
            raise Declined(f"`{name}` is bound again in a {type(statement).__name__} statement")
        reads.span.append(statement)
        _sort_reads(facts, name, statement.test, sole, reads)
        arms = [statements(statement.body)]
        if isinstance(statement.orelse, cst.If):
            arms.append([statement.orelse])
        elif isinstance(statement.orelse, cst.Else):
            arms.append(statements(statement.orelse.body))
        for arm in arms:
            _scan(facts, name, arm, len(arm), reads, sole)
        sole = False  # past an arm that binds it, either value may reach


def _sort_reads(facts: FunctionFacts, name: str, node: cst.CSTNode, sole: bool, reads: _Reads) -> None:
    """Sort the reads of ``name`` in ``node`` into tests and message reads;
    Declined for any other read."""
    loads = [n for n in name_uses(node).loads if n.value == name]
    if not loads:
        return
    reads.last = len(reads.span)
    tested: set[int] = set()
    untested: dict[int, cst.BaseExpression] = {}  # read under any()/all(), but not element by element
    for call in m.findall(node, m.Call()):
        operand = _whole_reduction(facts, call)
        if operand is not None:
            found = _element_wise(facts, name, operand, reads.operands)
            if found is not None:
                tested |= found
            else:
                untested.update((id(n), operand) for n in name_uses(operand).loads)
    shown = {id(n) for part in m.findall(node, m.Raise() | m.Assert())
             for n in name_uses(part.exc if isinstance(part, cst.Raise) else part.msg or cst.Pass()).loads}
    for load in loads:
        if id(load) in tested:
            reads.tests += 1
        elif id(load) in shown and sole:
            reads.messages.append(load)
        elif id(load) in shown:
            raise Declined(f"a message shows `{name}` where another value of it may reach")
        elif id(load) in untested:
            raise Declined(f"{code(untested[id(load)])} is not a test of each element alone (comparisons "
                           "with a number or a local, &, |, ^, ~, isnan...)")
        else:
            raise Declined(f"`{name}` is read for more than a test of its elements under any()/all()")


def _whole_reduction(facts: FunctionFacts, call: cst.Call) -> cst.BaseExpression | None:
    """``E`` of ``torch.any(E)``, ``torch.all(E)``, ``E.any()``, ``E.all()``."""
    if vocabulary.torch_function(facts.qualified_name(call.func)) in ("any", "all"):
        if len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
            return call.args[0].value
        return None
    if m.matches(call.func, m.Attribute(attr=m.Name("any") | m.Name("all"))) and not call.args:
        return call.func.value
    return None


def _element_wise(facts: FunctionFacts, name: str, expr: cst.BaseExpression,
                  operands: dict[str, None]) -> set[int] | None:
    """The reads of ``name`` in ``expr`` when ``expr`` computes each element
    from the same element of ``name`` alone; None otherwise.  Names it
    compares with are added to ``operands``."""
    if m.matches(expr, m.Name(name)):
        return {id(expr)}
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1 and \
            isinstance(expr.comparisons[0].operator, COMPARISON_OPERATORS):
        sides = (expr.left, expr.comparisons[0].comparator)
        for side, other in (sides, sides[::-1]):
            found = _element_wise(facts, name, side, operands)
            if found is not None and not m.matches(other, m.Name(name)) and _scalar(facts, other, operands):
                return found
        return None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _LOGICAL):
        left = _element_wise(facts, name, expr.left, operands)
        right = _element_wise(facts, name, expr.right, operands)
        return left | right if left is not None and right is not None else None
    if m.matches(expr, m.UnaryOperation(operator=m.BitInvert())):
        return _element_wise(facts, name, expr.expression, operands)
    if isinstance(expr, cst.Call) and all(a.keyword is None and not a.star for a in expr.args):
        if vocabulary.torch_function(facts.qualified_name(expr.func)) in vocabulary.VALUE_PREDICATES and len(expr.args) == 1:
            return _element_wise(facts, name, expr.args[0].value, operands)
        if m.matches(expr.func, m.Attribute(attr=m.Name())) and expr.func.attr.value in vocabulary.VALUE_PREDICATES and not expr.args:
            return _element_wise(facts, name, expr.func.value, operands)
    return None


def _scalar(facts: FunctionFacts, expr: cst.BaseExpression, operands: dict[str, None]) -> bool:
    """A number, None, or a local the runtime checks holds one."""
    if m.matches(expr, _NUMBER):
        return True
    if isinstance(expr, cst.Name) and facts.is_local(expr.value) and expr.value not in facts.declared_global:
        operands[expr.value] = None
        return True
    return False


def _check_span(facts: FunctionFacts, tensor: str, binding: cst.CSTNode, reads: _Reads) -> None:
    """Nothing from the binding to its last read may change ``tensor`` or
    the names the tests compare with."""
    span = reads.span[: reads.last]
    bound = facts.bound_before(binding)
    for operand in reads.operands:
        if operand not in bound:
            raise Declined(f"`{operand}` may be unbound at torch.unique")
    watched = {tensor, *reads.operands}
    for statement in span:
        rebound = watched & set(name_uses(statement).stores)
        if rebound:
            raise Declined(f"`{min(rebound)}` is bound again before the last read")
        made_by_messages = _message_calls(facts, statement)
        for call in m.findall(statement, m.Call()):
            reason = None if id(call) in made_by_messages else call_impurity(
                call, facts.qualified_name, callee=facts.callee)
            if reason:
                raise Declined(f"before the last read, {_first_line(statement)} {reason}")
    reason = in_place_hazard(facts.function, {tensor}, span, facts.alias_classes)
    if reason:
        raise Declined(f"before the last read, {reason.removeprefix('the function ')}")


def _message_calls(facts: FunctionFacts, statement: cst.CSTNode) -> set[int]:
    """The calls in ``statement`` that make a ``raise``'s exception or an
    ``assert``'s message a deferred check may build too (see
    :func:`~graphmend.analysis.effects.message_impurity`): the exception's
    class, and what formats its arguments."""
    calls: set[int] = set()
    for part in m.findall(statement, m.Raise() | m.Assert()):
        message = part.exc if isinstance(part, cst.Raise) else part.msg
        arguments = message.args if isinstance(message, cst.Call) and isinstance(part, cst.Raise) else (
            [cst.Arg(message)] if message is not None else [])
        if isinstance(message, cst.Call) and isinstance(part, cst.Raise):
            calls.add(id(message))
        for argument in arguments:
            if message_impurity(argument.value, facts.qualified_name, facts.is_static, facts.callee) is None:
                calls.update(id(call) for call in m.findall(argument.value, m.Call()))
    return calls


def _tested(facts: FunctionFacts, name: str) -> bool:
    """Whether some ``any``/``all`` in the function reads ``name``."""
    operands = (_whole_reduction(facts, call) for call in m.findall(facts.function, m.Call()))
    return any(operand is not None and name in name_uses(operand).loads_names() for operand in operands)


def _first_line(statement: cst.CSTNode) -> str:
    return f"`{code(statement).strip().splitlines()[0]}`"


class _Substituting(cst.CSTTransformer):
    """Replaces nodes by identity; every node built on the way answers like
    the one it stands for (its line, for the converters)."""

    def __init__(self, replacements: dict[cst.CSTNode, cst.CSTNode], metadata: Metadata) -> None:
        super().__init__()
        self.replacements = replacements
        self.metadata = metadata

    def on_leave(self, original_node, updated_node):
        new = self.replacements.get(original_node, updated_node)
        if new is not original_node:
            self.metadata.adopt(new, original_node)
        return new
