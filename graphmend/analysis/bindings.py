"""Which names code reads and binds, and which are surely bound where.

Read-only facts over libcst trees, conservative in the direction that
makes a rule decline: a name is "maybe unbound" unless every path binds it.

* :func:`name_uses` -- the names an expression or statement reads and binds.
* :func:`definitely_bound` / :func:`read_before_bound` -- facts about a
  list of statements (an arm of an ``if``).
* :class:`DefiniteAssignment` -- for every statement of a function, the
  names surely bound when it starts (a forward must-analysis over the
  structured code: both arms of an ``if`` must bind a name, a loop body may
  not run, a statement after ``return``/``raise`` is never reached).
"""

from __future__ import annotations

from collections import Counter

import dataclasses
import functools
from collections.abc import Iterator, Sequence

import libcst as cst
import libcst.matchers as m

from graphmend import vocabulary


#: Fields that hold layout, not code (whitespace, parentheses, commas).
_LAYOUT_FIELDS = frozenset(
    "lpar rpar comma semicolon leading_lines lines_after_decorators header footer newline equal "
    "star colon dot asynchronous".split()
)


@functools.cache
def _code_fields(cls: type) -> tuple[str, ...]:
    return tuple(
        f.name for f in dataclasses.fields(cls)
        if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
    )


@functools.cache
def _is_node_type(cls: type) -> bool:
    return issubclass(cls, cst.CSTNode)


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The children of ``node`` that hold code (no whitespace or commas):
    a cheaper ``node.children`` for read-only walks."""
    for name in _code_fields(type(node)):
        value = getattr(node, name)
        if _is_node_type(type(value)):
            yield value
        elif type(value) in (list, tuple):
            for item in value:
                if _is_node_type(type(item)):
                    yield item


class _NameUses:
    """Names read (``loads``) and bound (``stores``) in some code.  Nested
    function and class bodies are scopes of their own: their names are not
    this code's, but the names they read from outside are reads."""

    def __init__(self) -> None:
        self.loads: list[cst.Name] = []
        self.stores: list[str] = []

    def visit(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if kind is cst.Name:
            self.loads.append(node)
        elif kind is cst.Attribute:
            self.visit(node.value)  # ``.attr`` is not a variable
        elif kind is cst.Arg:
            self.visit(node.value)  # ``keyword=`` is not a variable
        elif kind is cst.Param:
            if node.default is not None:
                self.visit(node.default)  # ``lambda a=a:`` reads the outer ``a``
        elif kind is cst.AssignTarget:
            self.store(node.target)
        elif kind is cst.AnnAssign:
            if node.value is not None:
                self.visit(node.value)
            self.store(node.target)
        elif kind is cst.AugAssign:
            self.visit(node.value)
            self.visit(node.target)  # read, then written
            self.store(node.target)
        elif kind is cst.For:
            self.visit(node.iter)
            self.store(node.target)
            self.visit(node.body)
            if node.orelse is not None:
                self.visit(node.orelse)
        elif kind is cst.AsName:
            self.store(node.name)
        elif kind is cst.NamedExpr:
            self.visit(node.value)
            self.store(node.target)
        elif kind is cst.FunctionDef:
            for decorator in node.decorators:
                self.visit(decorator)
            self.visit(node.params)
            self.stores.append(node.name.value)
            inner = name_uses(node.body)
            own = set(inner.stores) | parameter_names(node)
            self.loads.extend(n for n in inner.loads if n.value not in own)
        elif kind is cst.Lambda:
            self.visit(node.params)
            own = parameter_names(node)
            self.loads.extend(n for n in name_uses(node.body).loads if n.value not in own)
        elif kind is cst.ClassDef:
            for part in (*node.decorators, *node.bases, *node.keywords):
                self.visit(part)
            self.stores.append(node.name.value)
            inner = name_uses(node.body)
            self.loads.extend(n for n in inner.loads if n.value not in inner.stores)
        else:
            for child in iter_children(node):
                self.visit(child)

    def loads_names(self) -> set[str]:
        return {name.value for name in self.loads}

    def store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.stores.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.store(element.value)
        elif isinstance(target, cst.StarredElement):
            self.store(target.value)
        else:  # attribute or subscript store: its object is read
            self.visit(target)


def name_uses(node: cst.CSTNode) -> _NameUses:
    uses = _NameUses()
    uses.visit(node)
    return uses


def code(node: cst.CSTNode) -> str:
    """The source text of ``node`` (what a reason quotes)."""
    return cst.Module([]).code_for_node(node)


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a name or a chain of attributes of a name; None for
    anything else (``f(x).any`` is no dotted name, whatever libcst's
    ``get_full_name_for_node`` makes of it)."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def read_names(node: cst.CSTNode) -> set[str]:
    return {name.value for name in name_uses(node).loads}


def computed_from(function: cst.FunctionDef, names: set[str]) -> set[str]:
    """``names`` and every local some binding in ``function`` (anywhere,
    in any order: an over-approximation) computes from one of them,
    transitively: ``bin_idx = searchsorted(edges, x)[..., None]`` is
    computed from ``x``."""
    bindings = []
    for node in walk_own(function.body):
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) and node.value is not None:
            bindings.append((read_names(node.value), stored_names(node)))
        elif isinstance(node, (cst.For, cst.CompFor)):
            bindings.append((read_names(node.iter), target_names(node.target)))
    found = set(names)
    grew = True
    while grew:
        grew = False
        for reads, stores in bindings:
            if reads & found and not set(stores) <= found:
                found.update(stores)
                grew = True
    return found


def path_reads(node: cst.CSTNode) -> Counter:
    """How many times ``node`` may read each name along one path through
    it: the two branches of an ``if`` or a conditional expression count as
    the larger of the two."""
    counts = Counter(name.value for name in name_uses(node).loads)
    for branching in _outermost_branchings(node):
        if isinstance(branching, cst.If):
            branches = [branching.body, branching.orelse.body if isinstance(branching.orelse, cst.Else) else branching.orelse]
        else:
            branches = [branching.body, branching.orelse]
        first, second = (path_reads(b) if b is not None else Counter() for b in branches)
        counts.subtract(first + second)
        counts.update(first | second)
    return counts


def _outermost_branchings(node: cst.CSTNode):
    if isinstance(node, (cst.If, cst.IfExp)):
        yield node
        return
    for child in iter_children(node):
        yield from _outermost_branchings(child)


def stored_names(node: cst.CSTNode) -> list[str]:
    """Names ``node`` binds, in order of appearance, without repeats."""
    return list(dict.fromkeys(name_uses(node).stores))


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds (``a``, ``a, *b``, ``[a, b]``)."""
    uses = _NameUses()
    uses.store(target)
    return uses.stores


def parameter_names(function: cst.FunctionDef | cst.Lambda) -> frozenset[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return frozenset(p.name.value for p in every)


def local_names(function: cst.FunctionDef) -> frozenset[str]:
    """Names the function binds itself (not its parameters)."""
    return frozenset(name_uses(function.body).stores) - parameter_names(function)


def truth_only_names(function: cst.FunctionDef) -> frozenset[str]:
    """Names ``function`` reads only for their truth: every read is the test
    of an ``if``, ``while``, ``assert`` or conditional expression, or an
    operand of ``not``, or of ``and``/``or`` in such a place.  Any value with
    the same truth may stand for theirs.  Empty when the function reads its
    locals by name (``locals()``, ``eval``)."""
    tested: set[int] = set()

    def mark(test: cst.BaseExpression) -> None:
        if isinstance(test, cst.Name):
            tested.add(id(test))
        elif m.matches(test, m.UnaryOperation(operator=m.Not())):
            mark(test.expression)
        elif isinstance(test, cst.BooleanOperation):
            mark(test.left)
            mark(test.right)

    for node in walk(function.body):
        if isinstance(node, (cst.If, cst.While, cst.IfExp, cst.Assert)):
            mark(node.test)
        elif m.matches(node, m.UnaryOperation(operator=m.Not())):
            mark(node.expression)
    uses = name_uses(function.body)
    if any(name.value in vocabulary.DYNAMIC_SCOPE_CALLS for name in uses.loads):
        return frozenset()
    read_otherwise = {name.value for name in uses.loads if id(name) not in tested}
    bound = set(uses.stores) | parameter_names(function)
    return frozenset(bound - read_otherwise)


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, parents first."""
    yield node
    for child in iter_children(node):
        yield from walk(child)


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """Nodes from ``root`` down to ``target`` (both included), or None."""
    if root is target:
        return [root]
    for child in iter_children(root):
        rest = path_to(child, target)
        if rest is not None:
            return [root, *rest]
    return None


def following(path: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """The statements that may run after the last node of ``path`` (the
    nodes from a function definition, or above, down to it) within the
    innermost function: the rest of each enclosing block, and every
    enclosing loop again (its next iteration)."""
    after: list[cst.CSTNode] = []
    node = path[-1]
    for parent in reversed(path[:-1]):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(parent, (cst.For, cst.While)):
            after.append(parent)
        elif isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine, cst.Module)) and node in parent.body:
            after.extend(parent.body[parent.body.index(node) + 1 :])
        node = parent
    return after


def walk_own(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Like :func:`walk`, without descending into nested functions, lambdas
    and classes (code that does not run where ``node`` runs)."""
    yield node
    for child in iter_children(node):
        if type(child) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        yield from walk_own(child)


def nested_scopes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The functions, lambdas and classes defined in ``node``'s own code."""
    scopes = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    return (child for own in walk_own(node) for child in iter_children(own) if isinstance(child, scopes))


# -- statement lists ----------------------------------------------------------------


def statements(body: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a suite (``if t: x = 1`` on one line is one line)."""
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [cst.SimpleStatementLine(list(body.body))]


def else_statements(node: cst.If) -> list[cst.BaseStatement]:
    """An ``if``'s else arm: ``[elif-if]``, the else block, or ``[]``."""
    if isinstance(node.orelse, cst.If):
        return [node.orelse]
    return statements(node.orelse.body) if node.orelse is not None else []


def assigned_targets(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets]
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        return [small.target]
    return []


def ends_abruptly(body: Sequence[cst.CSTNode]) -> bool:
    """Whether every path through ``body`` ends in ``return``, ``raise``,
    ``break`` or ``continue`` (control never reaches the next statement)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            if any(isinstance(s, (cst.Return, cst.Raise, cst.Break, cst.Continue)) for s in statement.body):
                return True
        elif isinstance(statement, cst.If):
            if ends_abruptly(statements(statement.body)) and statement.orelse is not None and \
                    ends_abruptly(else_statements(statement)):
                return True
    return False


def definitely_bound(body: Sequence[cst.CSTNode]) -> set[str]:
    """Names ``body`` binds on every path that reaches its end."""
    names: set[str] = set()
    for statement in body:
        if isinstance(statement, cst.If):
            arms = [statements(statement.body), else_statements(statement)]
            completing = [arm for arm in arms if not ends_abruptly(arm)]
            if completing:
                names |= set.intersection(*(definitely_bound(arm) for arm in completing))
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for target in assigned_targets(small):
                    names.update(target_names(target))
        elif isinstance(statement, cst.With):
            names.update(stored_names(statement))
    return names


def read_before_bound(body: Sequence[cst.CSTNode], name: str) -> bool:
    """Whether some path through ``body`` reads ``name`` before binding it."""
    for statement in body:
        if isinstance(statement, cst.If):
            if name in read_names(statement.test):
                return True
            if read_before_bound(statements(statement.body), name) or \
                    read_before_bound(else_statements(statement), name):
                return True
        elif name in read_names(statement):
            return True
        if name in definitely_bound([statement]):
            return False
    return False


class DefiniteAssignment:
    """For every statement of a function: the names surely bound when it
    starts (``before``).  Parameters are bound at the start; a ``for``
    target inside its body; a loop body or an ``except`` handler may not
    run, so what they bind is not surely bound after them."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.before: dict[int, frozenset[str]] = {}
        self._block(statements(function.body), frozenset(parameter_names(function)))

    def at(self, statement: cst.CSTNode) -> frozenset[str]:
        return self.before.get(id(statement), frozenset())

    def _block(self, body: Sequence[cst.CSTNode], bound: frozenset[str]) -> frozenset[str] | None:
        """Names bound after ``body``, or None when control never gets there."""
        current: frozenset[str] | None = bound
        for statement in body:
            if current is None:  # unreachable: bind nothing, claim nothing
                self._record_unreachable(statement)
                continue
            self.before[id(statement)] = current
            current = self._statement(statement, current)
        return current

    def _record_unreachable(self, statement: cst.CSTNode) -> None:
        for node in walk_own(statement):
            if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
                self.before.setdefault(id(node), frozenset())

    def _statement(self, statement: cst.CSTNode, bound: frozenset[str]) -> frozenset[str] | None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self.before[id(small)] = bound
                if isinstance(small, (cst.Return, cst.Raise, cst.Break, cst.Continue)):
                    return None
                bound = bound | set(target_names_of(small))
            return bound
        if isinstance(statement, cst.If):
            then = self._block(statements(statement.body), bound)
            otherwise = self._block(else_statements(statement), bound) if statement.orelse is not None else bound
            if isinstance(statement.orelse, cst.If):
                self.before[id(statement.orelse)] = bound
            arms = [arm for arm in (then, otherwise) if arm is not None]
            return frozenset.intersection(*arms) if arms else None
        if isinstance(statement, (cst.For, cst.While)):
            inside = bound | set(target_names(statement.target)) if isinstance(statement, cst.For) else bound
            self._block(statements(statement.body), frozenset(inside))
            if statement.orelse is not None:
                self._block(statements(statement.orelse.body), bound)
            return bound
        if isinstance(statement, cst.With):
            inside = bound | {n for item in statement.items if item.asname for n in target_names(item.asname.name)}
            after = self._block(statements(statement.body), frozenset(inside))
            return bound if after is None else after  # a context manager may swallow the exception
        if isinstance(statement, (cst.Try, cst.TryStar)):
            self._block(statements(statement.body), bound)
            for handler in statement.handlers:
                named = {handler.name.name.value} if handler.name and isinstance(handler.name.name, cst.Name) else set()
                self._block(statements(handler.body), bound | named)
            if statement.orelse is not None:
                self._block(statements(statement.orelse.body), bound)
            if statement.finalbody is not None:
                self._block(statements(statement.finalbody.body), bound)
            return bound
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return bound | {statement.name.value}
        # match and anything else: whatever may run inside binds nothing surely
        for node in walk_own(statement):
            if node is not statement and isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
                self.before.setdefault(id(node), bound)
        return bound


def target_names_of(small: cst.BaseSmallStatement) -> list[str]:
    """Names a simple statement binds: assignment targets, imports, ``x := ...``."""
    if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        return stored_names(small)
    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
        return [(a.asname.name.value if a.asname else cst.helpers.get_full_name_for_node(a.name).split(".")[0])
                for a in small.names]
    return [n for n in stored_names(small)]
