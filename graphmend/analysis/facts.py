"""Facts about one function, computed once and shared by every converter.

:class:`Metadata` resolves LibCST's byte-span positions once per parsed
skeleton (names are resolved from the file's ``ast`` and the function's
own bindings, not by LibCST's scope or qualified-name providers) and maps
nodes that a rewrite copied back to the nodes they copy, so a copy
answers like its original.  :class:`FunctionFacts` holds what the converters ask of a
function -- its parameters and receiver, which names are surely bound
before a statement and which may be read after it, which locals hold
tensors, whether it updates tensors in place anywhere, whether a call is
an effect call -- each computed on first use and then kept, as
AutoGraph's static analyses annotate a function once for all its
converters.
"""

from __future__ import annotations

import bisect
import functools
from collections import Counter
from collections.abc import Iterable

import libcst as cst
import libcst.matchers as m
from libcst.metadata import ByteSpanPositionProvider, MetadataWrapper

from graphmend import vocabulary
from graphmend.analysis.bindings import (
    code,
    dotted_name,
    iter_children,
    DefiniteAssignment,
    name_uses,
    path_reads,
    parameter_names,
    read_names,
    truth_only_names,
    walk,
    walk_own,
)
from graphmend.analysis.effects import (
    alias_classes,
    alias_sources,
    constant_names,
    constant_operand,
    expression_impurity,
    fresh_locals,
    function_effects,
    in_place_hazard,
    in_place_update,
    index_uses,
    linear_impurity,
    merged_names,
    rebinds_afresh,
)
from graphmend.analysis.gradients import reached_before
from graphmend.analysis.liveness import Liveness
from graphmend.analysis.source import ModuleNames
from graphmend.analysis.summaries import Summary, method_key
from graphmend.analysis.tensorness import (
    COMPARISON_OPERATORS, Tensorness, is_bool_scalar, is_bool_tensor, is_static_size, tensor_names, tensorness_of,
)


class Metadata:
    """What the converters read of one parsed skeleton besides its facts:
    line numbers (LibCST's byte-span positions, resolved once), where each
    skeleton line comes from, and what the module's top-level names are.

    Names are resolved from the file's whole ``ast`` (:class:`ModuleNames`)
    and the functions' own bindings (:class:`FunctionFacts`), not by LibCST's
    scope and qualified-name providers: those cost six times the parse of
    the skeleton itself, and a skeleton leaves out most of the definitions
    they would need to see.
    """

    def __init__(self, module: cst.Module, source_lines: tuple[int, ...] | None = None,
                 module_names: ModuleNames | None = None) -> None:
        #: The line of the source each line of ``module`` comes from (a skeleton's ``kept``).
        self.source_lines = source_lines
        # Without the module's names, any global may exist.
        self.module_names = module_names or ModuleNames({}, frozenset(), frozenset(), star_import=True)
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.module = wrapper.module
        self._spans = wrapper.resolve(ByteSpanPositionProvider)
        starts, offset = [], 0
        for line in module.code.encode("utf-8").splitlines(keepends=True):
            starts.append(offset)
            offset += len(line)
        self._line_starts = starts
        self._origin: dict[cst.CSTNode, cst.CSTNode] = {}

    def original(self, node: cst.CSTNode) -> cst.CSTNode:
        return self._origin.get(node, node)

    @functools.cached_property
    def method_owners(self) -> dict[cst.FunctionDef, str]:
        """The undecorated methods of the module's classes (at module level
        or inside such classes), each with its class's qualified name."""
        owners: dict[cst.FunctionDef, str] = {}
        pending = [("", statement) for statement in self.module.body]
        while pending:
            prefix, node = pending.pop()
            if isinstance(node, cst.ClassDef):
                qualname = prefix + node.name.value
                for inner in node.body.body:
                    if isinstance(inner, cst.FunctionDef) and not inner.decorators:
                        owners[inner] = qualname
                    pending.append((f"{qualname}.", inner))
        return owners

    def copy(self, node: cst.CSTNode) -> cst.CSTNode:
        """A deep copy of ``node`` whose nodes answer like the originals."""
        clone = node.deep_clone()
        pending = [(clone, node)]
        while pending:
            new, old = pending.pop()
            self._origin[new] = self.original(old)
            pending.extend(zip(iter_children(new), iter_children(old)))
        return clone

    def adopt(self, new: cst.CSTNode, old: cst.CSTNode) -> None:
        """Make ``new`` and the nodes under it that answer for nothing yet
        answer like ``old`` (code a rewrite built in its place)."""
        pending = [new]
        while pending:
            node = pending.pop()
            if node in self._origin or node in self._spans:
                continue
            self._origin[node] = self.original(old)
            pending.extend(iter_children(node))

    def _line_at(self, offset: int) -> int:
        return bisect.bisect_right(self._line_starts, offset)

    def line(self, node: cst.CSTNode) -> int:
        """``node``'s first line in the skeleton."""
        return self._line_at(self._spans[self.original(node)].start)

    def end_line(self, node: cst.CSTNode) -> int:
        span = self._spans[self.original(node)]
        return self._line_at(span.start + max(span.length - 1, 0))

    def source_line(self, node: cst.CSTNode, line: int | None = None) -> int:
        """``node``'s line (or ``line``) in the source the skeleton was cut from."""
        line = self.line(node) if line is None else line
        return self.source_lines[line - 1] if self.source_lines else line


class FunctionFacts:
    """What the converters need to know about one function definition."""

    def __init__(self, function: cst.FunctionDef, metadata: Metadata,
                 effect_helpers: frozenset[str] = frozenset(), outer: FunctionFacts | None = None,
                 callees: Iterable[tuple[str, Summary]] = ()) -> None:
        self.function = function
        self.metadata = metadata
        self.outer = outer  # the facts of the function this one is defined in
        self.effect_helpers = effect_helpers
        #: The summaries of the functions global names hold (see :meth:`callee`).
        self.callees: dict[str, Summary] = dict(callees)
        self.parameters = parameter_names(function)
        positional = [*function.params.posonly_params, *function.params.params]
        #: The first positional parameter (``self`` of a method).
        self.receiver = positional[0].name.value if positional else None
        #: :meth:`fails_when_run`'s answer for each statement (by id) it was asked about.
        self._failures: dict[int, str | None] = {}

    # -- names ------------------------------------------------------------------
    @functools.cached_property
    def _definite(self) -> DefiniteAssignment:
        return DefiniteAssignment(self.function)

    @functools.cached_property
    def _liveness(self) -> Liveness:
        return Liveness(self.function)

    def bound_before(self, statement: cst.CSTNode) -> frozenset[str]:
        """Names surely bound when ``statement`` (of this function) starts."""
        return self._definite.at(statement)

    def live_after(self, statement: cst.CSTNode, names: Iterable[str]) -> set[str]:
        """Those of ``names`` that code after ``statement`` may read."""
        live = self._liveness.after(statement)
        return {name for name in names if name in live}

    @functools.cached_property
    def declared_global(self) -> frozenset[str]:
        """Names a ``global`` or ``nonlocal`` statement declares."""
        return frozenset(alias.name.value for node in walk_own(self.function.body)
                         if isinstance(node, (cst.Global, cst.Nonlocal)) for alias in node.names)

    @functools.cached_property
    def uses(self):
        """The function's own loads and stores of names
        (:func:`~graphmend.analysis.bindings.name_uses`), found once."""
        return name_uses(self.function.body)

    @functools.cached_property
    def locals(self) -> frozenset[str]:
        return frozenset(self.uses.stores) - self.parameters - self.declared_global

    @functools.cached_property
    def sole_bindings(self) -> dict[str, tuple[cst.BaseExpression, ...]]:
        """The names every store of which is a plain ``name = value``
        (never a loop target, an augmented assignment, an unpacking or a
        chained assignment), each with those values in source order."""
        values: dict[str, list[cst.BaseExpression]] = {}
        for assignment in m.findall(self.function.body, m.Assign(targets=[m.AssignTarget(m.Name())])):
            values.setdefault(assignment.targets[0].target.value, []).append(assignment.value)
        stores = Counter(self.uses.stores)
        return {name: tuple(bound) for name, bound in values.items() if len(bound) == stores[name]}

    @functools.cached_property
    def truth_only(self) -> frozenset[str]:
        """Variables of the function read only for their truth (see
        :func:`~graphmend.analysis.bindings.truth_only_names`)."""
        return truth_only_names(self.function) & (self.locals | self.parameters)

    @functools.cached_property
    def is_generator(self) -> bool:
        return any(isinstance(node, (cst.Yield, cst.Await)) for node in walk_own(self.function.body))

    # -- values -----------------------------------------------------------------
    @functools.cached_property
    def tensor_names(self) -> frozenset[str]:
        return tensor_names(self.function, self.qualified_name)

    def is_local(self, name: str) -> bool:
        """Whether ``name`` is a variable of this function or of one around it."""
        if name in self.locals or name in self.parameters:
            return True
        return self.outer is not None and name not in self.declared_global and self.outer.is_local(name)

    def qualified_name(self, node: cst.CSTNode) -> str | None:
        """The dotted name ``node`` (a name or an attribute chain) refers to
        at module level: ``torch.all`` for ``t.all`` under ``import torch as
        t``, ``warnings.warn`` for ``warn``, ``builtins.print`` for ``print``;
        None for locals, undefined names and other expressions."""
        dotted = self.global_dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        names = self.metadata.module_names
        if head in names.imports:
            target = names.imports[head]
            return f"{target}.{rest}" if rest else target
        if head in names.assigned or head in names.other:
            return dotted
        return f"builtins.{dotted}" if head in vocabulary.BUILTIN_NAMES else None

    def global_dotted(self, node: cst.CSTNode) -> str | None:
        """``node``'s dotted text when it names a module global or builtin
        (so :func:`graphmend.runtime.common.global_value` finds the same object later)."""
        dotted = dotted_name(node)
        if dotted is None or self.is_local(dotted.partition(".")[0]):
            return None
        return dotted

    def tensorness(self, expr: cst.BaseExpression) -> Tensorness:
        return tensorness_of(expr, self.qualified_name, self.tensor_names)

    def is_mask(self, expr: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``expr`` surely indexes as a mask: a bool tensor (a
        predicate, ``~``/``&``/``|`` of masks, or a local every binding of
        which is one) or a comparison (of numbers, a Python bool)."""
        if is_bool_tensor(expr, self.qualified_name) or (
                isinstance(expr, cst.Comparison)
                and all(isinstance(c.operator, COMPARISON_OPERATORS) for c in expr.comparisons)):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self.is_mask(expr.expression, seen)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            return self.is_mask(expr.left, seen) and self.is_mask(expr.right, seen)
        if not isinstance(expr, cst.Name) or expr.value in self.parameters or expr.value in seen:
            return False
        bound = self.sole_bindings.get(expr.value, ())
        return bool(bound) and all(self.is_mask(value, seen | {expr.value}) for value in bound)

    def fails_when_run(self, statements: Iterable[cst.CSTNode]) -> str | None:
        """What in ``statements`` may raise only when the graph runs, which
        tracing on fake tensors cannot see, or None: an index (subscript
        indices, not slices, and the arguments of indexing calls) that is a
        tensor the function makes (:meth:`reads_tensor`) and not a mask,
        whose shape tracing checks; or a call that rejects some values
        (:data:`~graphmend.vocabulary.RAISING_FUNCTIONS`, and their
        methods on a tensor the function makes).  Parameters may hold
        anything (an int index), so they do not count."""
        for statement in statements:
            # Each message and guard asks of every statement after it: one answer per statement.
            key = id(statement)
            if key not in self._failures:
                self._failures[key] = self._fails_when_run(statement)
            if self._failures[key] is not None:
                return self._failures[key]
        return None

    def _fails_when_run(self, statement: cst.CSTNode) -> str | None:
        for used in index_uses(statement):
            if isinstance(used, cst.SubscriptElement):
                # A slice's bounds clamp; a tensor bound is read (and breaks) while tracing.
                index = used.slice.value if isinstance(used.slice, cst.Index) else None
            else:
                index = used.value
            if index is not None and self.reads_tensor(index) and not self.is_mask(index):
                return f"`{code(index)}` indexes with a tensor, which may be out of range"
        for call in walk(statement):
            if not isinstance(call, cst.Call):
                continue
            method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
            if self.qualified_name(call.func) in vocabulary.RAISING_FUNCTIONS or (
                    method in vocabulary.RAISING_METHODS and self.reads_tensor(call.func.value)):
                return f"`{code(call.func)}()` rejects some values"
        return None

    def reads_tensor(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is a tensor by its own form, or reads a name the
        function binds to one (``index.reshape(1)``).  A parameter or an
        attribute, which may hold anything, does not count."""
        reads = {name.value for name in m.findall(expr, m.Name())}
        return bool(reads & self.tensor_names) or self.tensorness(expr) is Tensorness.TENSOR

    def is_static(self, expr: cst.BaseExpression) -> bool:
        return self.tensorness(expr) is Tensorness.STATIC

    @functools.cached_property
    def sizes(self) -> frozenset[str]:
        """Locals every binding of which is a size read from a shape (see
        :func:`~graphmend.analysis.tensorness.is_static_size`), to a fixed
        point."""
        sizes: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, values in self.sole_bindings.items():
                if name not in sizes and name not in self.parameters and all(
                        is_static_size(v, self.qualified_name, self.tensor_names, frozenset(sizes)) for v in values):
                    sizes.add(name)
                    changed = True
        return frozenset(sizes)

    def is_static_size(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is a Python number whatever the data (see
        :func:`~graphmend.analysis.tensorness.is_static_size`)."""
        return is_static_size(expr, self.qualified_name, self.tensor_names, self.sizes)

    def is_bool_scalar(self, expr: cst.BaseExpression) -> bool:
        return is_bool_scalar(expr, self.qualified_name)

    # -- effects ----------------------------------------------------------------
    def impurity(self, node: cst.CSTNode, *, traced_errors_fall_back: bool = False,
                 nonnegative: frozenset[str] = frozenset()) -> str | None:
        """Why evaluating ``node`` when its branch is not taken may be observable
        (see :func:`~graphmend.analysis.effects.expression_impurity`)."""
        return expression_impurity(node, self.qualified_name, traced_errors_fall_back=traced_errors_fall_back,
                                   nonnegative=nonnegative, callee=self.callee)

    @functools.cached_property
    def method_owner(self) -> str | None:
        """The qualified name of the class this function is an undecorated
        method of, when its receiver is never rebound."""
        owner = self.metadata.method_owners.get(self.metadata.original(self.function))
        if owner is None or self.receiver is None or self.receiver in self.uses.stores:
            return None
        return owner

    def callee(self, call: cst.Call) -> Summary | None:
        """The summary of the Python function ``call`` reaches through a
        global (dotted) name of the module, or, in a method, on its receiver
        (see :mod:`graphmend.analysis.summaries`); None: a local, a method
        of another value, or a function no summary was made of."""
        if not self.callees:
            return None
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self.receiver:
            owner = self.method_owner
            return self.callees.get(method_key(owner, func.attr.value)) if owner is not None else None
        name = self.global_dotted(func)
        return self.callees.get(name) if name is not None else None

    def alias_sources(self, value: cst.BaseExpression) -> set[str]:
        """The names whose tensor ``value`` may be (see
        :func:`graphmend.analysis.effects.alias_sources`)."""
        return alias_sources(value, self.qualified_name, self.callee)

    def gradient_impurity(self, node: cst.CSTNode) -> str | None:
        """Why a zero gradient through ``node`` might not stay zero."""
        return linear_impurity(node, self.qualified_name)

    @functools.cached_property
    def in_place_reason(self) -> str | None:
        """Why the function may update a tensor in place anywhere, or None."""
        return in_place_update(self.function)

    @functools.cached_property
    def alias_classes(self) -> dict[str, str]:
        """Which names may share a tensor (see
        :func:`graphmend.analysis.effects.alias_classes`)."""
        return alias_classes(self.function, self.qualified_name)

    def merged_names(self, statements) -> set[str]:
        """What merging the values ``statements`` bind replaces (see
        :func:`graphmend.analysis.effects.merged_names`)."""
        return merged_names(statements, self.qualified_name)

    def rebinds_afresh(self, statement: cst.CSTNode, names: set[str]) -> bool:
        """Whether ``statement`` rebinds all of ``names`` to new tensors (see
        :func:`graphmend.analysis.effects.rebinds_afresh`)."""
        return rebinds_afresh(statement, names, self.qualified_name)

    @functools.cached_property
    def fresh_locals(self) -> frozenset[str]:
        """Locals that only ever hold objects the function made itself (see
        :func:`graphmend.analysis.effects.fresh_locals`)."""
        return fresh_locals(self.function, self.alias_classes)

    @functools.cached_property
    def effects(self) -> list:
        """Every effect in the function that may happen inside the graph (see
        :func:`graphmend.analysis.effects.function_effects`), found once for
        all its guards."""
        return function_effects(self.function, self.fresh_locals)

    def in_place_hazard(self, names: set[str], after: list[cst.CSTNode] | None = None,
                        exempt: frozenset[int] = frozenset()) -> str | None:
        """Why an in-place update in the function (in ``after``, when given;
        not the assignments in ``exempt``, by id) may reach a tensor one of
        ``names`` (names or dotted chains) holds (see
        :func:`graphmend.analysis.effects.in_place_hazard`)."""
        if self.in_place_reason is None:
            return None
        return in_place_hazard(self.function, names, after, self.alias_classes, exempt)

    def effect_call(self, call: cst.Call) -> str | None:
        """What kind of effect call ``call`` is: ``"print"``,
        ``"warnings.warn"``, a logger method's name (``"warning_once"``), or
        ``"helper"`` (a function whose only effect is one of these); None
        when it is none of them."""
        name = self.qualified_name(call.func)
        if name == "builtins.print":
            return "print"
        if name == "warnings.warn":
            return "warnings.warn"
        if self.effect_helpers and self.global_dotted(call.func) in self.effect_helpers:
            return "helper"
        if m.matches(call.func, m.Attribute(attr=m.Name())):
            method = call.func.attr.value
            if method in vocabulary.LOGGER_METHODS and self._is_logger(call.func.value):
                return method
        return None

    def _is_logger(self, receiver: cst.BaseExpression) -> bool:
        """A module-level name bound by assignment (or free in the source),
        ``self.logger``, or loguru's ``logger``; the runtime checks it is a
        Logger (or loguru's)."""
        if m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name("logger"))):
            return True
        if self.qualified_name(receiver) == "loguru.logger":
            return True
        if not isinstance(receiver, cst.Name) or self.is_local(receiver.value):
            return False
        names = self.metadata.module_names
        return receiver.value not in names.imports and receiver.value not in names.other

    def shows_grad_fn(self, names: set[str]) -> bool:
        """Whether the function may show the ``grad_fn`` of one of ``names``:
        passes it to an effect call, formats it, or reads ``.grad_fn``."""
        for node in walk(self.function.body):
            if isinstance(node, cst.Attribute) and node.attr.value == "grad_fn":
                return True
            if isinstance(node, cst.FormattedString) and read_names(node) & names:
                return True
            if isinstance(node, cst.Call) and read_names(node) & names and (
                self.effect_call(node) is not None
                or self.qualified_name(node.func) in ("builtins.str", "builtins.repr", "builtins.format")
                or (isinstance(node.func, cst.Attribute) and node.func.attr.value == "format")
            ):
                return True
        return False

    @functools.cached_property
    def constant_names(self) -> frozenset[str]:
        """Locals that only ever hold a literal constant (see
        :func:`graphmend.analysis.effects.constant_names`)."""
        return constant_names(self.function)

    @functools.cached_property
    def _bound_anywhere(self) -> frozenset[str]:
        """Every name the function binds in any way and any scope inside it:
        imports, comprehension and loop targets, lambda parameters, ``as``."""
        bound: set[str] = set()
        for node in walk(self.function):
            if isinstance(node, cst.ImportAlias) and node.asname is None:  # ``import a.b`` binds ``a``
                bound.add(dotted_name(node.name).partition(".")[0])
            elif isinstance(node, (cst.CompFor, cst.For)):
                bound.update(read_names(node.target))
            elif isinstance(node, cst.AsName):  # ``import a as b``, ``with``, ``except``
                bound.update(read_names(node.name))
            elif isinstance(node, cst.Param):
                bound.add(node.name.value)
            elif isinstance(node, cst.NamedExpr):
                bound.update(read_names(node.target))
        return frozenset(bound)

    def undefined_name(self, statements) -> str | None:
        """Why running ``statements`` (an arm) raises ``NameError`` for sure:
        it reads a name that nothing binds (no local, global or builtin)."""
        for statement in statements:
            for name in sorted(read_names(statement)):
                if not (self.is_local(name) or name in self._bound_anywhere
                        or self.metadata.module_names.defines(name)):
                    return f"`{name}` is not defined: reading it raises NameError when its arm is not taken"
        return None

    def constant_operand(self, statements) -> str | None:
        """Why ``statements`` (an arm) surely raise when run (see
        :func:`graphmend.analysis.effects.constant_operand`)."""
        return constant_operand(statements, self.qualified_name, self.constant_names)

    def gradient_sources(self, chains: Iterable[str], statement: cst.CSTNode) -> list[str] | None:
        """``chains`` (see :mod:`graphmend.analysis.gradients`) that may hold
        a tensor, sorted, to be read again when ``statement`` has run; None
        when one may be unbound there (a local not surely bound before
        ``statement``, a name bound inside it, such as a loop variable).
        Imported modules and builtins are left out: they hold no gradients."""
        bound = self.bound_before(statement)
        names = self.metadata.module_names
        kept = []
        for chain in sorted(chains):
            root = chain.partition(".")[0]
            if self.is_local(root):
                if root not in bound:
                    return None
                kept.append(chain)
            elif root in names.assigned or root in names.other:
                kept.append(chain)
            elif root not in names.imports and root not in vocabulary.BUILTIN_NAMES:
                return None
        return kept

    def read_more_than_once(self, statements) -> str | None:
        """A name ``statements`` may read more than once along one path
        (see :func:`path_reads`) that may hold a tensor (anything but an
        imported module or a builtin), or None."""
        names = self.metadata.module_names
        reads = sum((path_reads(statement) for statement in statements), Counter())
        return next((name for name, count in sorted(reads.items()) if count > 1 and (
            self.is_local(name) or (name not in names.imports and name not in vocabulary.BUILTIN_NAMES))), None)

    def reached_before(self, statement: cst.CSTNode) -> dict[str, set[str]]:
        """What a gradient through each chain the function binds before
        ``statement`` (one of its top-level statements) surely reaches (see
        :func:`graphmend.analysis.gradients.reached_before`); empty for a
        nested statement."""
        return reached_before(self.function.body.body, statement, self.qualified_name)

    def own_reads(self, node: cst.CSTNode) -> set[str]:
        """The locals and parameters of this function that ``node`` reads."""
        own = self.locals | self.parameters
        return {name for name in read_names(node) if name in own}

