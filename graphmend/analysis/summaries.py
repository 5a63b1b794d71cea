"""Callee summaries: what calling a Python function does, read from its source.

Read-only, over ``ast`` (no libcst: the process that plans a mend reads
them, and ``graphmend fix`` must stay cheap).  A :class:`Summary` says what
a call of one function does besides computing values -- nothing (pure);
writes an argument, an attribute, an item or a global; prints, logs or
warns; raises; draws random numbers; reads a tensor's value; calls what
cannot be read -- and whether its result is a new value (never an
argument, a global, or a view of one).  It is computed once per function
by a :class:`Summarizer`, which follows the calls the function makes to
other functions it can read (recursively, cycles and depth bounded) and
keeps every answer.

Where the functions come from is the caller's business (:class:`Target`):
:func:`graphmend.mending.callees.callee_summaries_of` reads the live objects a
function's globals hold (``graphmend.compile``/``mend``), and
:func:`static_summaries` the module-level functions of the file being
rewritten and, through ``imported``, of the project files it imports
(``graphmend fix``).  The rules read the summaries of the global names a
function calls (``f``, ``ops.f`` through a module) from
:attr:`graphmend.rules.options.RuleOptions.callees` (see
:meth:`graphmend.analysis.facts.FunctionFacts.callee`).

A method's call of another method on its receiver (``self.helper(x)``,
``self`` the first parameter of an undecorated method) is keyed by
:func:`method_key`: which function runs depends on the class of the
object.  Live, it is read only when the class the method is defined in
and every subclass loaded resolve the name to the same function, and no
file of theirs stores an attribute of that name (an instance may hold its
own); statically, only when the class is final in the file (no class of
the file derives from it) and the name resolves in the file.  Otherwise
the call stays unreadable, and the summary says why.  A name no class
binds (a submodule, ``self.norm``) gets no summary: the rules judge that
call as they judge any other.

Conservative where it must be: a helper is pure only when every statement
is an assignment to a local name, a ``return``, ``pass``, a docstring or an
``if`` on a plainly static test (``x is None``, shapes) whose arms are so
too; and every call in it is a pure torch operation, a pure tensor method,
a pure builtin or another pure helper.  An update in place is no effect
only through a local every binding of which is a new value (``out =
torch.remainder(x, 1.0)``, then ``out[out >= 1.0] -= 1.0``): no caller
can see that tensor but through what the function returns.  Everything
else is named.
"""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import weakref
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from graphmend import vocabulary
from graphmend.analysis.scan import _own_nodes, _plainly_static
from graphmend.analysis.source import DEFS, ModuleNames, ParsedFile, bound_by, loaded_source, parse_text

#: How many calls down a summary follows (deeper calls are "too deep to read").
MAX_DEPTH = 4



@dataclass(frozen=True)
class Summary:
    """What calling one function does, as the rules ask it.

    ``effect``: why calling it where the original does not may be
    observable (it reads as the end of "calls f(), which ..."), or None
    (pure); ``traced_effect``: the same where an error raised while
    tracing falls back to the original (an arm run by ``both_arms``: an
    integer index out of range raises then, never in the graph).
    ``kind``: ``pure``, ``writes``, ``message``, ``raises``, ``random``,
    ``reads`` (a tensor's value into Python) or ``unreadable``.
    ``fresh``: every value it returns is new (never an argument, a global,
    or a view of one).  ``updates``: why it may update in place a tensor,
    a list or a dict it can reach (an item store, ``add_``, ``out=``,
    ``append``), or None; a store into an attribute or a global is not one
    (Dynamo makes it after the graph).
    """

    effect: str | None = None
    traced_effect: str | None = None
    kind: str = "pure"
    fresh: bool = False
    updates: str | None = None

    @property
    def pure(self) -> bool:
        return self.effect is None


def unreadable(reason: str) -> Summary:
    return Summary(reason, reason, "unreadable")


class Target:
    """A function a summary can be asked of: ``key`` identifies it (a code
    object, a file and name), :meth:`source` gives its def and its module's
    names (or why there is none), :meth:`resolve` the target a global name
    of it holds (None: not a function graphmend can read)."""

    key: Hashable
    #: Whether it is a method, whose receiver's methods :meth:`resolve` finds.
    method: bool = False

    def source(self) -> tuple[ast.AST, ModuleNames] | str:
        raise NotImplementedError

    def resolve(self, dotted: str) -> Target | str | None:
        """The target ``dotted`` calls (``receiver.name`` too, for a
        method), or why it is not read, or None (not a Python function)."""
        raise NotImplementedError


def method_key(class_name: str, name: str) -> str:
    """The name :attr:`RuleOptions.callees` gives the method ``name`` that
    a method of class ``class_name`` (its qualified name) calls on its receiver."""
    return f"{class_name}().{name}"


class Summarizer:
    """Summaries of :class:`Target` functions, each computed once."""

    def __init__(self, max_depth: int = MAX_DEPTH) -> None:
        self.max_depth = max_depth
        self._done: dict[Hashable, Summary] = {}
        self._active: set[Hashable] = set()

    def of(self, target: Target, depth: int = 0) -> Summary:
        key = target.key
        if key in self._done:
            return self._done[key]
        if key in self._active:
            return unreadable("is recursive (not read)")
        if depth > self.max_depth:
            return unreadable(f"is more than {self.max_depth} calls down (not read)")
        self._active.add(key)
        try:
            found = target.source()
            if isinstance(found, str):
                summary = unreadable(found)
            else:
                node, names = found

                def callee(dotted: str) -> Summary | None:
                    inner = target.resolve(dotted)
                    if isinstance(inner, str):
                        return unreadable(inner)
                    return None if inner is None else self.of(inner, depth + 1)

                summary = summarize(node, names, callee, method=target.method)
        finally:
            self._active.discard(key)
        self._done[key] = summary  # a cut-off cycle or depth leaves it conservative: still sound
        return summary


def summarize(function: ast.AST, names: ModuleNames, callee: Callable[[str], Summary | None], *,
              method: bool = False) -> Summary:
    """The summary of the def ``function`` of a module whose top-level
    names are ``names``; ``callee`` gives the summary of the function a
    global (dotted) name holds, or None when it holds no function
    graphmend can read; of a ``method``, also that of ``receiver.name``."""
    if not isinstance(function, ast.FunctionDef):
        return unreadable("is a coroutine" if isinstance(function, ast.AsyncFunctionDef) else "is not a function")
    if function.decorator_list:
        return unreadable("is decorated (what runs is the decorator's)")
    return _Reader(function, names, callee, method).summary()


@dataclass
class _Found:
    strict: tuple[str, str] | None = None  # (kind, effect)
    traced: tuple[str, str] | None = None
    updates: str | None = None

    def update(self, effect: str) -> None:
        """An update in place of a tensor, a list or a dict (or an item store)."""
        if self.updates is None:
            self.updates = effect
        self.add("writes", effect)

    def add(self, kind: str, effect: str, *, traced: bool = True) -> None:
        if self.strict is None:
            self.strict = (kind, effect)
        if traced and self.traced is None:
            self.traced = (kind, effect)


class _Reader:
    def __init__(self, function: ast.FunctionDef, names: ModuleNames, callee: Callable[[str], Summary | None],
                 method: bool = False) -> None:
        self.function = function
        self.names = names
        self.callee = callee
        args = function.args
        self.params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
        stored = {node.id for node in _own_nodes(function)
                  if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        self.locals = self.params | stored
        #: A method's receiver (never rebound), whose methods ``callee`` resolves.
        self.receiver = receiver_of(function) if method else None
        if self.receiver in stored:
            self.receiver = None
        self.found = _Found()
        #: For each local, the names whose values its bindings may be (see :meth:`_sources`).
        self.bound: dict[str, set[str]] = {}
        self.returned: set[str] = set()
        self.summaries: dict[int, Summary | None] = {}  # by id of the call node
        #: Updates in place through a local (its name, the effect), judged once every binding is read.
        self.local_updates: list[tuple[str, str]] = []

    def summary(self) -> Summary:
        self._block(self.function.body)
        for name, effect in self.local_updates:
            # A tensor the function made itself: nobody else can see the update.
            if not self._new_values({name}):
                self.found.update(effect)
        strict, traced = self.found.strict, self.found.traced
        kind = strict[0] if strict else "pure"
        return Summary(strict and strict[1], traced and traced[1], kind, self._fresh(), self.found.updates)

    # -- statements ------------------------------------------------------------
    def _block(self, body: Iterable[ast.stmt]) -> None:
        for statement in body:
            self._statement(statement)

    def _statement(self, node: ast.stmt) -> None:
        found = self.found
        if isinstance(node, ast.Pass):
            return
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return  # a docstring
            self._expression(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self._store(target, node.value)
            if node.value is not None:
                self._expression(node.value)
        elif isinstance(node, ast.AugAssign):
            self._update(node.target, f"updates `{ast.unparse(node.target)}` in place (augmented assignment)")
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self._expression(node.value)
                self.returned |= self._sources(node.value)
        elif isinstance(node, ast.If):
            if not _plainly_static(node.test):
                found.add("unreadable", f"tests `{ast.unparse(node.test)}`, which may be a tensor")
            self._expression(node.test)
            self._block(node.body)
            self._block(node.orelse)
        elif isinstance(node, ast.Raise):
            # Python raises, never the graph: while tracing, where an error then falls back.
            exception = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            found.add("raises", f"may raise {ast.unparse(exception)}" if exception is not None else "may re-raise",
                      traced=False)
        elif isinstance(node, ast.Assert):
            found.add("raises", "may raise AssertionError")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.add("writes", f"declares `{type(node).__name__.lower()} {', '.join(node.names)}`")
        elif isinstance(node, ast.Delete):
            found.update(f"deletes `{', '.join(map(ast.unparse, node.targets))}`")
        else:
            found.add("unreadable", f"has a `{type(node).__name__.lower()}` statement")

    def _store(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._store(element, None if value is None else value)
        elif isinstance(target, ast.Starred):
            self._store(target.value, value)
        elif isinstance(target, ast.Name):
            sources = self._sources(value) if value is not None else set()
            self.bound.setdefault(target.id, set()).update(sources)
        elif isinstance(target, ast.Attribute) and target.attr not in vocabulary.TENSOR_STATE_ATTRIBUTES:
            self.found.add("writes", f"writes `{ast.unparse(target)}`")
        else:
            self._update(target, f"stores into `{ast.unparse(target)}`")

    # -- expressions -----------------------------------------------------------
    def _expression(self, expr: ast.expr) -> None:
        found = self.found
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                forms = [out_of_range(element) for element in elements]
                if any(form is not OutOfRange.CLAMPS for form in forms):
                    traced = OutOfRange.MAY_RAISE in forms
                    found.add("raises", f"indexes `{ast.unparse(node)}`, which may raise IndexError", traced=traced)
            elif isinstance(node, ast.Lambda) or isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                                    ast.GeneratorExp)):
                found.add("unreadable", f"has a {type(node).__name__}")
            elif isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
                found.add("unreadable", "is a generator")
            elif isinstance(node, (ast.IfExp, ast.BoolOp, ast.UnaryOp, ast.Compare)) and not _truth_is_static(node):
                found.add("unreadable", f"tests `{ast.unparse(node)}`, which may be a tensor")
            elif isinstance(node, ast.NamedExpr):
                found.add("unreadable", "has an assignment expression")
            elif isinstance(node, ast.JoinedStr):
                found.add("reads", "formats text (an f-string)")

    def _dotted(self, node: ast.expr) -> str | None:
        """``a.b.c`` for a chain of attributes on a name that is not local."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.locals:
            return None
        return ".".join([node.id, *reversed(parts)])

    def _qualified(self, dotted: str) -> str | None:
        head, _, rest = dotted.partition(".")
        names = self.names
        if head in names.imports:
            target = names.imports[head]
            return f"{target}.{rest}" if rest else target
        if head in names.assigned or head in names.other or names.star_import:
            return dotted
        return f"builtins.{dotted}" if hasattr(builtins, head) else None

    def _call(self, call: ast.Call) -> None:
        found = self.found
        shown = ast.unparse(call.func)
        for keyword in call.keywords:
            if keyword.arg == "out":  # then judged as a call like any other
                self._update(keyword.value, f"writes through out= in {shown}()")
        dotted = self._dotted(call.func)
        qualified = self._qualified(dotted) if dotted is not None else None
        name = vocabulary.builtin(qualified)
        if name is not None:
            if name == "print":
                found.add("message", "prints")
            elif name in vocabulary.PURE_BUILTINS:
                pass
            elif name in vocabulary.TRACED_PURE_BUILTINS:
                found.add("reads", f"calls {name}()", traced=False)
            else:
                found.add("reads" if name in vocabulary.SCALAR_BUILTINS else "unreadable", f"calls {name}()")
            return
        if qualified == "warnings.warn":
            found.add("message", "warns (warnings.warn)")
            return
        function = vocabulary.torch_function(qualified)
        if function is not None:
            namespace = qualified.rpartition(".")[0]
            if function in vocabulary.IMPURE_FUNCTIONS:
                found.add("message" if function == "set_printoptions" else "random" if function not in vocabulary.NOT_RANDOM
                          else "writes", f"{'draws random numbers' if function not in vocabulary.NOT_RANDOM else 'has effects'} "
                          f"({shown})")
            elif vocabulary.in_place_method(function):
                found.update(f"updates its argument in place ({shown})")
            elif namespace not in vocabulary.OPERATION_NAMESPACES or function in vocabulary.HIGHER_ORDER:
                found.add("unreadable", f"calls {shown}(), which may have effects")
            elif qualified in vocabulary.RAISING_FUNCTIONS:
                found.add("raises", f"calls {shown}(), which rejects some values")
            elif function in vocabulary.INDEXING_CALLS:
                found.add("raises", f"calls {shown}(), whose index may be out of range")
            elif function in vocabulary.DATA_DEPENDENT_SHAPES:
                found.add("reads", f"calls {shown}(), whose size depends on the data", traced=False)
            return
        if self.receiver is not None and _receiver_call(call, self.receiver):
            self._summarized(call, shown, self.callee(f"{self.receiver}.{call.func.attr}"))
            return
        if isinstance(call.func, ast.Attribute) and dotted is None:  # a method of a value
            method = call.func.attr
            if vocabulary.in_place_method(method) or method in vocabulary.CONTAINER_MUTATORS:
                self._update(call.func.value, f"updates `{ast.unparse(call.func.value)}` in place (.{method}())")
            elif method in vocabulary.SCALAR_METHODS:
                found.add("reads", f"reads a tensor's value (.{method}())")
            elif method in vocabulary.RAISING_METHODS:
                found.add("raises", f"calls .{method}(), which rejects some values")
            elif method not in vocabulary.PURE_METHODS and method not in vocabulary.STATIC_METHODS:
                found.add("unreadable", f"calls {shown}(), which may have effects")
            return
        if isinstance(call.func, ast.Attribute) and dotted is not None and (
                call.func.attr in vocabulary.LOGGER_METHODS):
            found.add("message", f"logs ({shown})")
            return
        self._summarized(call, shown, self.callee(dotted) if dotted is not None else None)

    def _summarized(self, call: ast.Call, shown: str, summary: Summary | None) -> None:
        """A call of a Python function whose summary is ``summary`` (None: not read)."""
        found = self.found
        self.summaries[id(call)] = summary
        if summary is None:
            found.add("unreadable", f"calls {shown}(), which may have effects")
        else:
            if summary.updates is not None:
                found.update(f"calls {shown}(), which {summary.updates}")
            if summary.effect is not None:
                found.add(summary.kind, f"calls {shown}(), which {summary.effect}", traced=False)
            if summary.traced_effect is not None:
                found.add(summary.kind, f"calls {shown}(), which {summary.traced_effect}")

    def _update(self, target: ast.expr, effect: str) -> None:
        """An update in place of what ``target`` holds (``out[m] -= 1``,
        ``out.add_(1)``, ``buf[i] = 0``): through a local that is not a
        parameter, judged at the end (:meth:`summary`)."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Starred)):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.locals and root.id not in self.params:
            self.local_updates.append((root.id, effect))
        else:
            self.found.update(effect)

    # -- what the result may be ---------------------------------------------------
    def _sources(self, expr: ast.expr) -> set[str]:
        """The names whose values ``expr``'s value may be (or view): empty
        for a new value."""
        go = self._sources
        if isinstance(expr, ast.Name):
            return {expr.id}
        if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Starred)):
            return go(expr.value)
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*map(go, expr.elts))
        if isinstance(expr, ast.Dict):
            return set().union(*(go(v) for v in expr.values))
        if isinstance(expr, ast.IfExp):
            return go(expr.body) | go(expr.orelse)
        if isinstance(expr, ast.BoolOp):  # ``a or b`` is one of them
            return set().union(*map(go, expr.values))
        if isinstance(expr, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant, ast.JoinedStr)):
            return set()  # new values (a number's operators make numbers, a tensor's new tensors)
        if isinstance(expr, ast.Call):
            if self.receiver is not None and _receiver_call(expr, self.receiver):
                summary = self.summaries.get(id(expr))
                return set() if summary is not None and summary.fresh else {self.receiver, "<unknown>"}
            if isinstance(expr.func, ast.Attribute) and self._dotted(expr.func) is None:
                method = expr.func.attr
                if method in vocabulary.VIEW_METHODS:
                    return go(expr.func.value)
                if method in vocabulary.PURE_METHODS or method in vocabulary.STATIC_METHODS:
                    return set()
            dotted = self._dotted(expr.func)
            qualified = self._qualified(dotted) if dotted is not None else None
            function = vocabulary.torch_function(qualified)
            if function is not None and qualified.rpartition(".")[0] in vocabulary.OPERATION_NAMESPACES and not (
                    vocabulary.in_place_method(function) or function in vocabulary.VIEW_METHODS | vocabulary.HIGHER_ORDER):
                return set()
            if vocabulary.builtin(qualified) in ("len", "isinstance", "hasattr", "abs", "pow"):
                return set()
            summary = self.summaries.get(id(expr))
            if summary is not None and summary.fresh:
                return set()
        return {node.id for node in ast.walk(expr) if isinstance(node, ast.Name)} | {"<unknown>"}

    def _fresh(self) -> bool:
        """Whether every returned value is new."""
        return self._new_values(self.returned)

    def _new_values(self, names: set[str]) -> bool:
        """Whether every value ``names`` are ever bound to is new: their
        sources, followed through locals (every binding, wherever it is),
        reach no parameter, no global and no unknown call's result."""
        seen: set[str] = set()
        pending = list(names)
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            if name not in self.locals or name in self.params:
                return False  # a parameter, a global, or what an unknown call handed back
            pending.extend(self.bound.get(name, ()))
        return True


def receiver_of(function: ast.AST) -> str | None:
    """The first positional parameter of ``function`` (a method's receiver)."""
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def _receiver_call(call: ast.Call, receiver: str) -> bool:
    """Whether ``call`` calls a method of ``receiver`` (``self.helper(x)``)."""
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver


def _truth_is_static(node: ast.expr) -> bool:
    """Whether the truth ``node`` takes of a value (the test of ``a if t
    else b``, the operands of ``and``/``or``/``not``, the middle of
    ``a < b < c``) is surely a Python bool's: a tensor's breaks the graph."""
    if isinstance(node, ast.IfExp):
        return _plainly_static(node.test)
    if isinstance(node, ast.BoolOp):
        return all(map(_plainly_static, node.values[:-1]))
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not) or _plainly_static(node.operand)
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 or _plainly_static(node)
    return True


class OutOfRange(enum.Enum):
    """What one index of a subscript does out of range: the rule both
    readers of an index follow (this module's, over ``ast``, and
    :mod:`graphmend.analysis.effects`', over libcst)."""

    #: A slice clamps; None and ... add or keep dimensions: never raises.
    CLAMPS = "clamps"
    #: An integer literal (negated or not) raises while Dynamo traces (a
    #: tensor's shape is known then, a symbolic size is guarded, and sizes
    #: 0 and 1 are specialised), never inside the compiled graph.
    RAISES_WHILE_TRACING = "raises while tracing"
    #: Anything else may raise IndexError inside the graph.
    MAY_RAISE = "may raise"


def out_of_range(element: ast.expr) -> OutOfRange:
    """What the index ``element`` does out of range (see :class:`OutOfRange`)."""
    if _clamps(element):
        return OutOfRange.CLAMPS
    if isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub):
        element = element.operand
    if _clamps(element) or (isinstance(element, ast.Constant) and type(element.value) is int):
        return OutOfRange.RAISES_WHILE_TRACING
    return OutOfRange.MAY_RAISE


def _clamps(element: ast.expr) -> bool:
    return isinstance(element, ast.Slice) or (isinstance(element, ast.Constant) and element.value in (None, ...))


# -- the functions of one file -----------------------------------------------------------

#: Where a dotted name a file calls leads outside the file (see :func:`static_summaries`).
Imported = Callable[[ParsedFile, str], "Target | None"]


class _FileTarget(Target):
    """A def of a parsed file: the module-level def ``name``, or, with
    ``owner`` (a class's qualified name), the method ``name`` that an
    instance of ``owner`` calls on itself.  Its global names resolve to the
    file's other module-level defs (undecorated), or through ``imported``."""

    def __init__(self, parsed: ParsedFile, name: str, owner: str | None = None,
                 imported: Imported | None = None) -> None:
        self.parsed = parsed
        self.name = name
        self.owner = owner
        self.method = owner is not None
        self.imported = imported
        self.key = (parsed.filename, id(parsed), owner, name)

    def source(self) -> tuple[ast.AST, ModuleNames] | str:
        node = _module_defs(self.parsed)[self.name] if self.owner is None else self._method()
        return node if isinstance(node, str) else (node, self.parsed.module_names)

    def _method(self) -> ast.AST | str:
        return _file_method(self.parsed, self.owner, self.name)

    def resolve(self, dotted: str) -> Target | str | None:
        head, _, attribute = dotted.partition(".")
        if self.owner is not None and head == receiver_of(self._method()):
            return self.of_method(self.parsed, self.owner, attribute, self.imported)
        return file_target(self.parsed, dotted, self.imported)

    @classmethod
    def of_method(cls, parsed: ParsedFile, owner: str, name: str, imported: Imported | None) -> Target | str | None:
        found = _file_method(parsed, owner, name)
        return found if found is None or isinstance(found, str) else cls(parsed, name, owner, imported)


def _file_classes(parsed: ParsedFile) -> dict[str, ast.ClassDef]:
    """The classes of the file at module level or inside such classes, by qualified name."""
    classes: dict[str, ast.ClassDef] = {}
    pending = [("", statement) for statement in parsed.tree.body]
    while pending:
        prefix, node = pending.pop()
        if isinstance(node, ast.ClassDef):
            classes[prefix + node.name] = node
            pending.extend((f"{prefix}{node.name}.", inner) for inner in node.body)
    return classes


def _file_method(parsed: ParsedFile, owner: str, name: str) -> ast.AST | str | None:
    """The def an instance of the file's class ``owner`` finds for ``name``,
    when the class is final in the file (a class of another file deriving
    from it is not seen) and the name is a def of it or of its single line
    of bases in the file; else why not; None where no class of that line
    binds the name (a submodule, an attribute, a base's method: no method
    the file defines)."""
    classes = _file_classes(parsed)
    current = classes.get(owner)
    if current is None:
        return f"is a method of {owner}, which is not a class of the file (not read)"
    short = owner.rpartition(".")[2]
    for qualname, other in classes.items():
        if any(ast.unparse(base).rpartition(".")[2] == short for base in other.bases):
            return f"may be overridden: {qualname} derives from {owner} (not read)"
    store = stores_attribute(parsed, name)
    if store is not None:
        return f"may be an instance's own attribute (`{ast.unparse(store)}` in the file; not read)"
    while True:
        bound = [statement for statement in current.body if name in bound_by(statement)]
        if bound:
            if len(bound) == 1 and isinstance(bound[0], DEFS):
                return bound[0]
            return f"is bound otherwise in {current.name} (not read)"
        bases = [classes.get(ast.unparse(base)) for base in current.bases]
        if any(base is not None for base in bases) and (len(bases) != 1 or current.keywords):
            return f"may be defined by one of {current.name}'s bases (not read)"
        if not bases or bases[0] is None:
            return None
        current = bases[0]


def stores_attribute(parsed: ParsedFile, name: str) -> ast.AST | None:
    """A store into an attribute ``name`` in the file (``x.name = ...``,
    ``del x.name``, ``setattr(x, "name", ...)``), or None.  A ``setattr``
    whose name is computed is not followed."""
    return _attribute_stores(parsed.filename, parsed.text).get(name)


def file_stores_attribute(filename: str, module_globals: dict, name: str) -> ast.AST | None:
    """:func:`stores_attribute` in :func:`~graphmend.analysis.source.loaded_source`
    (None without source, or where it does not parse), parsed only where
    no earlier call read that source.  A method call on ``self`` reads the
    file of every class its instance may have (gpytorch's ``Kernel`` has
    sixty subclasses): parsed again for each call, they cost a first call a
    second of its time in the main process."""
    text = loaded_source(filename, module_globals)
    if not text:
        return None
    try:
        return _attribute_stores(filename, text).get(name)
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=1024)  # by source: each attribute store is a small subtree, the file's tree is let go
def _attribute_stores(filename: str, text: str) -> dict[str, ast.AST]:
    stores: dict[str, ast.AST] = {}
    for node in ast.walk(parse_text(filename, text).tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            stores.setdefault(node.attr, node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
            stores.setdefault(str(node.args[1].value), node)
    return stores


_DEFS: weakref.WeakKeyDictionary[ParsedFile, dict[str, ast.AST]] = weakref.WeakKeyDictionary()
_SINGLE: weakref.WeakKeyDictionary[ParsedFile, frozenset[str]] = weakref.WeakKeyDictionary()


def single_bindings(parsed: ParsedFile) -> frozenset[str]:
    """The names the file's module-level statements bind once (which one
    a global name holds is known)."""
    bound = _SINGLE.get(parsed)
    if bound is None:
        counts: dict[str, int] = {}
        for statement in parsed.tree.body:
            for name in bound_by(statement):
                counts[name] = counts.get(name, 0) + 1
        bound = _SINGLE[parsed] = frozenset(name for name, count in counts.items() if count == 1)
    return bound


def _module_defs(parsed: ParsedFile) -> dict[str, ast.AST]:
    """The file's module-level defs bound once, by name."""
    defs = _DEFS.get(parsed)
    if defs is None:
        once = single_bindings(parsed)
        defs = _DEFS[parsed] = {statement.name: statement for statement in parsed.tree.body
                                if isinstance(statement, DEFS) and statement.name in once}
    return defs


def file_target(parsed: ParsedFile, dotted: str, imported: Imported | None = None) -> Target | None:
    """The target a global (dotted) name of ``parsed`` holds: a module-level
    def of it, or, through ``imported``, of another file."""
    if dotted in _module_defs(parsed):
        return _FileTarget(parsed, dotted, imported=imported)
    return imported(parsed, dotted) if imported is not None else None


def called_names(nodes: Iterable[ast.AST]) -> set[str]:
    """The dotted names ``nodes`` call (``f`` of ``f(x)``, ``m.f`` of ``m.f(x)``)."""
    called = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Call):
                parts, func = [], node.func
                while isinstance(func, ast.Attribute):
                    parts.append(func.attr)
                    func = func.value
                if isinstance(func, ast.Name):
                    called.add(".".join([func.id, *reversed(parts)]))
    return called


def receiver_calls(function: ast.AST) -> set[str]:
    """The names of the methods ``function`` (a method) calls on its
    receiver (``helper`` of ``self.helper(x)``); none where the receiver is
    rebound or the def is decorated (``staticmethod``: no receiver)."""
    receiver = receiver_of(function)
    own = list(_own_nodes(function))
    if receiver is None or function.decorator_list or any(
            isinstance(node, ast.Name) and node.id == receiver and not isinstance(node.ctx, ast.Load) for node in own):
        return set()
    return {node.func.attr for node in own if isinstance(node, ast.Call) and _receiver_call(node, receiver)}


def _method_owner(parsed: ParsedFile, function: ast.AST) -> str | None:
    """The qualified name of the class ``function`` is a method of, when
    the class is at module level or inside such classes."""
    parts, node = [], parsed.parents.get(function)
    while isinstance(node, ast.ClassDef):
        parts.append(node.name)
        node = parsed.parents.get(node)
    return ".".join(reversed(parts)) if parts and isinstance(node, ast.Module) else None


def static_summaries(parsed: ParsedFile, nodes: Iterable[ast.AST], imported: Imported | None = None
                     ) -> frozenset[tuple[str, Summary]]:
    """The summaries of the functions ``nodes`` (the defs the rules will
    see) call: by a global (dotted) name, a module-level def of ``parsed``
    or, through ``imported``, a def of another file; in a method of a class
    of the file, on its receiver (keyed by :func:`method_key`)."""
    nodes = list(nodes)
    summarizer = Summarizer()
    found: dict[str, Summary] = {}
    for dotted in sorted(called_names(nodes)):
        target = file_target(parsed, dotted, imported)
        if target is not None:
            found[dotted] = summarizer.of(target)
    for function in (node for root in nodes for node in ast.walk(root) if isinstance(node, DEFS)):
        owner = _method_owner(parsed, function)
        for name in sorted(receiver_calls(function)) if owner is not None else ():
            target = _FileTarget.of_method(parsed, owner, name, imported)
            if target is not None:
                found[method_key(owner, name)] = (
                    unreadable(target) if isinstance(target, str) else summarizer.of(target))
    return frozenset(found.items())
