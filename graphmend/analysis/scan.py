"""Which functions of a file can hold a site: a cheap filter before libcst.

Read-only and coarse by design: over ``ast`` (about ten times cheaper than
libcst, and it needs no metadata), it keeps every def that *might* hold a
site some rule rewrites, judging by the names a statement mentions, and
drops the rest.  It must never drop a function a rule would rewrite; it may
keep ones no rule touches (the rules then decide exactly, with facts).  The
vocabulary is :mod:`graphmend.vocabulary`'s.

A def might hold a site when its own code (nested defs are judged on
their own) has

* a call spelled like an effect call: ``print``, ``warn``, a logger
  method, or a known effect helper's name;
* an ``if``/``while``/conditional expression/``assert`` whose test calls
  something tensor-like (a ``torch`` function, a tensor method, ``.item()``,
  ``int()``/``float()``/``bool()``) or reads a local assigned from such a
  call;
* the same test stored in a name (``flag = a or b``, ``not``, ``bool()``,
  a chained comparison);
* an ``if`` whose body only raises, unless its test is plainly static
  (``is None``, ``isinstance``, shapes, constants);
* ``arange(...).tolist()``, a read-back of ``tensor(...)`` through calls
  (``float(tensor(x).log2())``), or a call of ``pow()``;
* a store through a mask that its value also indexes with (``t[m] = a[m] * 2``);
* a name bound to ``unique(...)`` that an ``any``/``all`` reads.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from graphmend import vocabulary
from graphmend.analysis.source import DEFS, ParsedFile, Unit

_TENSOR_LIKE_CALLS = (
    vocabulary.TENSOR_FUNCTIONS | vocabulary.TENSOR_METHODS | vocabulary.SCALAR_METHODS | vocabulary.SCALAR_BUILTINS
    | vocabulary.REDUCTIONS | vocabulary.BOOL_PREDICATES
    | {"allclose"}  # a Python bool read from tensors: rules.library_predicates lowers it
)
_EFFECT_NAMES = vocabulary.MESSAGE_FUNCTIONS | vocabulary.LOGGER_METHODS


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _own_nodes(function: ast.AST):
    """The nodes of ``function``'s own code (not of defs nested in it)."""
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (*DEFS, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


def _mentions_call(node: ast.AST, callees: frozenset[str] | set[str] = _TENSOR_LIKE_CALLS) -> bool:
    return any(isinstance(n, ast.Call) and _callee(n) in callees for n in ast.walk(node))


def _names_assigned_from(function: ast.AST, callees: frozenset[str] | set[str] = _TENSOR_LIKE_CALLS,
                         own_nodes: list[ast.AST] | None = None) -> set[str]:
    """Locals assigned (directly or through other such locals) from a call
    of one of ``callees`` (by default a tensor-like call): a fixed point
    over the function's plain assignments (``name = value``); ``own_nodes``:
    :func:`_own_nodes` of ``function``, where the caller has them."""
    assignments = [
        (target.id, node.value)
        for node in (own_nodes if own_nodes is not None else _own_nodes(function)) if isinstance(node, ast.Assign)
        for target in node.targets if isinstance(target, ast.Name)
    ]
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in assignments:
            if name in names:
                continue
            if _mentions_call(value, callees) or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value)):
                names.add(name)
                changed = True
    return names


def reads_a_read_back(function: ast.AST, test: ast.AST) -> bool:
    """Whether ``test`` reads a number back from a tensor (``t.item()``,
    ``float(t)``...) or reads a local assigned from one, through plain
    assignments (``n = (x > 0).sum().item()`` ... ``if n > 3:``): where
    [Where] may lower the test to a tensor test.  What
    :func:`graphmend.rules.predicates.reads_a_read_back` finds over libcst
    facts, and more (``float(x)`` of anything; a name only some of whose
    stores read one back): a coarse yes keeps a break [Where]'s."""
    if _mentions_call(test, vocabulary.READ_BACKS):
        return True
    names = _names_assigned_from(function, vocabulary.READ_BACKS)
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(test))


def leaves_a_loop(function: ast.AST, branch: ast.If) -> bool:
    """Whether ``branch``, an ``if`` inside a loop of ``function``, leaves
    the loop on one arm only: a ``break`` or ``continue``, or a ``return``
    that the other arm does not match (torchattacks' CW: ``if cost.item() >
    prev_cost: return best_adv_images`` in its step loop).  [Where] runs
    both arms of the ``if`` it merges, and leaving a loop cannot be run
    both ways: the rules leave such a branch as it is
    (:mod:`graphmend.rules.where.returns` lowers no return inside a loop;
    an arm with a ``break`` or ``continue`` is declined)."""
    loops = [n for n in _own_nodes(function) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]
    if not any(branch is n for loop in loops for n in ast.walk(loop)):
        return False

    def exits(arm: list[ast.stmt]) -> tuple[bool, bool]:
        """(returns, breaks or continues) somewhere in ``arm``'s own code."""
        nodes = [n for statement in arm for n in (statement, *_own_nodes(statement))]
        return (any(isinstance(n, ast.Return) for n in nodes),
                any(isinstance(n, (ast.Break, ast.Continue)) for n in nodes))

    (then_returns, then_jumps), (else_returns, else_jumps) = exits(branch.body), exits(branch.orelse)
    return then_jumps or else_jumps or then_returns != else_returns


def _plainly_static(test: ast.AST) -> bool:
    """``x is None``, ``isinstance(...)``, ``len(...) > 2``, ``x.shape[0] == 3``, constants."""
    if isinstance(test, ast.Constant):
        return True
    if isinstance(test, ast.Compare):
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
            return True
        return all(_plainly_static(side) for side in (test.left, *test.comparators))
    if isinstance(test, ast.BoolOp):
        return all(_plainly_static(value) for value in test.values)
    if isinstance(test, ast.UnaryOp):
        return _plainly_static(test.operand)
    if isinstance(test, ast.Call):
        return _callee(test) in vocabulary.STATIC_BUILTINS | vocabulary.STATIC_METHODS
    if isinstance(test, ast.Attribute):
        return test.attr in vocabulary.STATIC_ATTRIBUTES
    if isinstance(test, ast.Subscript):
        return _plainly_static(test.value)
    return False


def raises_only(node: ast.AST) -> bool:
    """``if test: raise ...``: an ``if`` whose body only raises (a validation guard)."""
    return isinstance(node, ast.If) and all(isinstance(s, ast.Raise) for s in node.body)


def arange_tolist(node: ast.AST) -> bool:
    """``arange(...).tolist()``."""
    return (isinstance(node, ast.Call) and _callee(node) == "tolist" and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call) and _callee(node.func.value) == "arange")


def static_read(node: ast.AST) -> bool:
    """``float(...)``, ``int(...)``, ``bool(...)``, ``.item()`` or ``.tolist()``
    of a chain of calls that starts at ``tensor(...)`` or ``as_tensor(...)``."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id in vocabulary.SCALAR_BUILTINS and len(node.args) == 1:
        chain = node.args[0]
    elif isinstance(node.func, ast.Attribute) and node.func.attr in vocabulary.SCALAR_METHODS and not node.args:
        chain = node.func.value
    else:
        return False
    while isinstance(chain, ast.Call):
        if _callee(chain) in ("tensor", "as_tensor"):
            return True
        chain = chain.func.value if isinstance(chain.func, ast.Attribute) and isinstance(chain.func.value, ast.Call) \
            else (chain.args[0] if chain.args else None)
    return False


def scalar_subscript(node: ast.AST) -> bool:
    """``x[i]`` (or ``x[..., i + 1, :]``) with an index element that is not
    a literal or a slice: it may be a 0-dim tensor, read back as an int."""
    if not isinstance(node, ast.Subscript):
        return False
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(not isinstance(element, (ast.Slice, ast.Constant)) for element in elements)


def builtin_pow(node: ast.AST) -> bool:
    """``pow(a, b)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pow"


def one_hot_call(node: ast.AST) -> bool:
    """``one_hot(x, n)`` or ``F.one_hot(x, n)`` (two arguments: one-hot's width given)."""
    return isinstance(node, ast.Call) and _callee(node) == "one_hot" and len(node.args) + len(node.keywords) == 2


def masked_store(node: ast.AST) -> bool:
    """``t[m] = value`` whose value reads some ``a[m]`` (``m`` a name)."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return False
    target = node.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Name)):
        return False
    mask = target.slice.id
    return any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id == mask
               for n in ast.walk(node.value))


def unique_binding(node: ast.AST) -> bool:
    """``u = unique(...)``."""
    return (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _callee(node.value) == "unique"
            and all(isinstance(target, ast.Name) for target in node.targets))


def tested_unique(nodes: list[ast.AST]) -> bool:
    """Among a def's own nodes (:func:`_own_nodes`): ``u = unique(...)`` and
    an ``any``/``all`` that reads ``u``."""
    bound = {target.id for node in nodes if unique_binding(node) for target in node.targets}
    return bool(bound) and any(
        isinstance(node, ast.Call) and _callee(node) in ("any", "all")
        and any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(node))
        for node in nodes)


def might_hold_site(function: ast.AST, effect_helpers: frozenset[str] = frozenset()) -> bool:
    effect_names = _EFFECT_NAMES | {name.rsplit(".", 1)[-1] for name in effect_helpers}
    tensor_names = None
    nodes = list(_own_nodes(function))  # walked once: the tests below read them again
    for node in nodes:
        if isinstance(node, ast.Call) and _callee(node) in effect_names:
            return True
        if arange_tolist(node) or static_read(node) or builtin_pow(node) or masked_store(node) or one_hot_call(node):
            return True
        test = getattr(node, "test", None) if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) else None
        if isinstance(node, ast.Assign) and _calls_bool(node.value):
            test = node.value  # ``flag = a or b``: a test stored in a name
        if test is None:
            continue
        if raises_only(node) and not _plainly_static(test):
            return True
        if _mentions_call(test):
            return True
        if tensor_names is None:
            tensor_names = _names_assigned_from(function, own_nodes=nodes)
        if any(isinstance(n, ast.Name) and n.id in tensor_names for n in ast.walk(test)):
            return True
    return tested_unique(nodes)


def _calls_bool(value: ast.AST) -> bool:
    """``a or b``, ``not a``, ``bool(a)``, ``a < b < c``: a value whose
    evaluation calls ``bool()`` on an operand."""
    return (
        isinstance(value, ast.BoolOp)
        or isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
        or isinstance(value, ast.Compare) and len(value.ops) > 1
        or isinstance(value, ast.Call) and _callee(value) == "bool"
    )


def candidate_units(parsed: ParsedFile, effect_helpers: frozenset[str] = frozenset(),
                    lines: Iterable[int] | None = None, also_static: bool = False) -> list[Unit]:
    """The units of ``parsed`` that the rules must see: those holding a def
    that might hold a site (with ``lines``: a def around one of them, and
    with ``also_static`` those that might hold a site besides)."""
    defs = list(parsed.defs.values())
    wanted = set(lines or ())
    chosen = [d for d in defs if any(d.lineno <= line <= d.end_lineno for line in wanted)
              or (lines is None or also_static) and might_hold_site(d, effect_helpers)]
    return list({unit.start: unit for unit in map(parsed.unit_of, chosen)}.values())
