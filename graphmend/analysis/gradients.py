"""Which values a gradient through an arm may reach, and which it surely reaches.

Under autograd, ``torch.where(c, a, b)`` passes a gradient (zero where ``c``
does not select) to everything ``a`` and ``b`` were computed from, while
the original ``a if c else b`` gives one only to what the taken arm
computed from: a parameter only the untaken arm reads gets a zero gradient
where eager code leaves it ``None`` (and an optimiser such as Adam moves a
parameter whose gradient is zero, not one whose gradient is ``None``).
[Where] therefore hands the runtime the values that only one arm's result
may depend on (:func:`one_sided`), and ``_graphmend.where`` keeps the
Python choice under autograd when one of them requires grad.

Values are *chains*: names and attribute chains of names (``h``,
``self.bias``), read where they are not called.  Two approximations meet:

* :func:`read_chains` -- every chain an expression reads, bar static
  attributes (``x.shape``): whatever its gradient may reach (an
  over-approximation);
* :func:`gradient_chains` -- the chains a gradient through the expression
  surely reaches, however small (an under-approximation): operands of
  arithmetic, the differentiable operands of the calls in a table, the
  indexed value of a subscript.  ``detach()``, ``.to()``, comparisons,
  indices and unknown calls cut the path.

What only one side may depend on is then every chain either side may read
less those both surely reach, and less what those reach in turn through
the assignments before the ``if`` (:func:`reached_before`): ``w`` in
``h = x * w; if T: h = h + w`` gets a gradient through ``h`` either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from graphmend import vocabulary
from graphmend.analysis.bindings import dotted_name, iter_children, target_names_of

QualifiedName = Callable[[cst.CSTNode], "str | None"]

_CONSTANTS = frozenset({"True", "False", "None"})
#: The target that stands for an arm's returned value.
RETURN = "return"


def _chain(node: cst.CSTNode) -> str | None:
    """:func:`dotted_name`, but not of ``True``, ``False`` or ``None``."""
    chain = dotted_name(node)
    return None if chain in _CONSTANTS else chain


def read_chains(node: cst.CSTNode) -> set[str]:
    """Every chain ``node`` reads as a value (see the module docstring)."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        chain = _chain(node)
        if chain is not None:
            last = chain.rpartition(".")[2]
            return set() if "." in chain and last in vocabulary.STATIC_ATTRIBUTES else {chain}
    if isinstance(node, cst.Call):
        parts = [node.func.value] if isinstance(node.func, cst.Attribute) else []  # a method's receiver
        parts += [arg.value for arg in node.args]
    elif isinstance(node, cst.AssignTarget):  # bound, not read
        parts = []
    elif isinstance(node, cst.AnnAssign):
        parts = [node.value] if node.value is not None else []
    elif isinstance(node, (cst.For, cst.CompFor)):
        parts = [child for child in iter_children(node) if child is not node.target]
    elif isinstance(node, cst.WithItem):
        parts = [node.item]
    else:
        parts = list(iter_children(node))
    found = set()
    for part in parts:
        found |= read_chains(part)
    return found


def gradient_chains(expr: cst.CSTNode, qualified_name: QualifiedName) -> set[str]:
    """The chains a gradient through ``expr`` surely reaches."""
    if isinstance(expr, (cst.Name, cst.Attribute)):
        chain = _chain(expr)
        return set() if chain is None else read_chains(expr)
    if isinstance(expr, cst.Subscript):
        return gradient_chains(expr.value, qualified_name)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return gradient_chains(expr.expression, qualified_name)
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply)):
            return gradient_chains(expr.left, qualified_name) | gradient_chains(expr.right, qualified_name)
        if isinstance(expr.operator, cst.Power):
            return gradient_chains(expr.left, qualified_name)
        return set()
    if isinstance(expr, cst.Call):
        return _call_gradient_chains(expr, qualified_name)
    if isinstance(expr, cst.IfExp):  # whichever branch is taken
        return gradient_chains(expr.body, qualified_name) & gradient_chains(expr.orelse, qualified_name)
    return set()


def _call_gradient_chains(call: cst.Call, qualified_name: QualifiedName) -> set[str]:
    function = vocabulary.torch_function(qualified_name(call.func))
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if function is None and isinstance(call.func, cst.Attribute):  # a method: the receiver comes first
        name = call.func.attr.value
        positional = [call.func.value, *positional]
    else:
        name = function
    operands: list[cst.BaseExpression] = []
    if name in vocabulary.GRADIENT_FROM_FIRST_OPERAND:
        operands = positional[:1]
    elif name in vocabulary.GRADIENT_FROM_TWO_OPERANDS:
        operands = positional[:2]
    elif name == "where":
        operands = positional[1:3]
    elif name == "masked_fill":
        operands = [positional[0], *positional[2:3]]
    elif name in ("cat", "stack") and positional and isinstance(positional[0], (cst.List, cst.Tuple)):
        operands = [element.value for element in positional[0].elements if not isinstance(element, cst.StarredElement)]
    found: set[str] = set()
    for operand in operands:
        found |= gradient_chains(operand, qualified_name)
    return found


def arm_dependencies(statements: Sequence[cst.BaseStatement], target: str,
                     qualified_name: QualifiedName) -> tuple[set[str], set[str]]:
    """(may, surely): the chains bound before the arm that the value
    ``target`` (a name, ``obj.attr``, or ``return`` for the returned
    value) has when the arm ``statements`` ends may depend on, and those a
    gradient through it surely reaches.  Single assignments are followed
    precisely, through nested ``if`` statements too (what a nested ``if``
    binds may depend on its test and either branch, and surely reaches what
    both branches surely reach); whatever another statement binds (a loop,
    a ``with``) may depend on everything it reads and surely reaches nothing."""
    may, surely = _flow(statements, {}, {}, qualified_name)
    if target not in may:
        return {target}, {target}
    return may[target], surely[target]


Dependencies = dict[str, set[str]]  # for each chain the arm bound so far


def _flow(statements: Sequence[cst.BaseStatement], may: Dependencies, surely: Dependencies,
          qualified_name: QualifiedName) -> tuple[Dependencies, Dependencies]:
    may, surely = dict(may), dict(surely)
    for statement in statements:
        if isinstance(statement, cst.If):
            _flow_if(statement, may, surely, qualified_name)
            continue
        small = statement.body if isinstance(statement, cst.SimpleStatementLine) else None
        single = small[0] if small is not None and len(small) == 1 else None
        if isinstance(single, cst.Assign) and len(single.targets) == 1:
            bound, value = _chain(single.targets[0].target), single.value
        elif isinstance(single, cst.Return) and single.value is not None:
            bound, value = RETURN, single.value
        else:
            bound, value = None, None
        reads = _expand(read_chains(statement), may)
        reached = _expand(gradient_chains(value, qualified_name), surely) if value is not None else set()
        for chain in _stores(statement):
            _bind(chain, reads, set(), may, surely)
        if bound is not None:
            _bind(bound, _expand(read_chains(value), may), reached, may, surely)
    return may, surely


def _bind(chain: str, may_value: set[str], surely_value: set[str], may: Dependencies, surely: Dependencies) -> None:
    """Record what ``chain`` now depends on.  A ``return`` seen before was on
    another path (it left the arm there): the returned value is either."""
    if chain == RETURN and chain in may:
        may_value, surely_value = may[chain] | may_value, surely[chain] & surely_value
    may[chain], surely[chain] = may_value, surely_value


def _flow_if(statement: cst.If, may: Dependencies, surely: Dependencies, qualified_name: QualifiedName) -> None:
    """Update ``may`` and ``surely`` by a nested ``if`` (in place)."""
    test = _expand(read_chains(statement.test), may)
    orelse = statement.orelse
    else_body = [orelse] if isinstance(orelse, cst.If) else list(orelse.body.body) if orelse else []
    sides = [_flow(list(statement.body.body), may, surely, qualified_name),
             _flow(else_body, may, surely, qualified_name)]
    for chain in {c for side_may, _ in sides for c in side_may}:
        # A side that does not bind the chain keeps its value from before;
        # one that does not return goes on to a later return instead.
        present = [side for side in sides if chain in side[0] or chain != RETURN]
        before_may, before_surely = may.get(chain, {chain}), surely.get(chain, {chain})
        may[chain] = test.union(*(side_may.get(chain, before_may) for side_may, _ in present))
        surely[chain] = set.intersection(*(side_surely.get(chain, before_surely) for _, side_surely in present))


def _stores(statement: cst.CSTNode) -> set[str]:
    """The names and attribute chains ``statement`` binds anywhere in it."""
    found: set[str] = set()
    for node in [statement, *_descendants(statement)]:
        if isinstance(node, cst.BaseSmallStatement):
            found.update(target_names_of(node))
            targets = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets = [node.target]
            found.update(c for c in map(_chain, targets) if c is not None)
        elif isinstance(node, cst.Return):
            found.add(RETURN)
    return found


def _descendants(node: cst.CSTNode):
    for child in iter_children(node):
        yield child
        yield from _descendants(child)


def _expand(chains: set[str], surely: dict[str, set[str]]) -> set[str]:
    """``chains`` with each one the arm bound replaced by what it surely reaches."""
    out: set[str] = set()
    for chain in chains:
        out |= surely[chain] if chain in surely else {chain}
    return out


def reached_before(body: Sequence[cst.BaseStatement], statement: cst.CSTNode,
                   qualified_name: QualifiedName) -> Dependencies:
    """For each chain the statements of ``body`` before ``statement`` bind,
    the chains a gradient through it surely reaches, as they stand when
    ``statement`` starts (a chain rebound since is left out)."""
    before = []
    for candidate in body:
        if candidate is statement:
            break
        before.append(candidate)
    else:
        return {}
    may, surely = _flow(before, {}, {}, qualified_name)
    return {chain: reached - may.keys() for chain, reached in surely.items()}


def one_sided(then_deps: tuple[set[str], set[str]], else_deps: tuple[set[str], set[str]],
              reached: Dependencies | None = None) -> set[str]:
    """What only one arm's value may depend on: either side's ``may`` less
    what both sides surely reach, directly or (``reached``, see
    :func:`reached_before`) through what they reach."""
    (then_may, then_surely), (else_may, else_surely) = then_deps, else_deps
    both = then_surely & else_surely
    covered = both.union(*((reached or {}).get(chain, set()) for chain in both))
    return (then_may | else_may) - covered
