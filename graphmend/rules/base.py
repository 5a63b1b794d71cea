"""What every converter shares: the converter protocol and its registry,
results, options, the context and builders.

A converter rewrites one construct (an ``if`` statement, a conditional
expression, an effect call, a guard...) for one rule.  It declares what it
matches (:class:`Converter`: its rule, the node type, a cheap applicability
check) and a build step; the engine (:mod:`graphmend.pipeline`) runs all of
them in one bottom-up pass over a skeleton, in the order of a
:class:`Registry`, handing each the *original* node (whose facts and
metadata the converter reads) and the *updated* node (built from the
rewritten children, which is what the converter builds on, as LibCST's
``leave_*`` convention has it).

The books are kept in one place, :meth:`Context.attempt`, which the engine
runs every build step through: a step that cannot prove its preconditions
raises :class:`Declined` with the reason, and the attempt undoes what the
step recorded and records "skipped, because ..." under the converter's
rule.  A step words or places its reason with :func:`declining` around the
code that may decline (said of another node, with a prefix, not worth a
word, a fallback replacement, the last word on the node); it never records
a skip itself.  A rewrite is recorded with :meth:`Context.record`.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.facts import FunctionFacts, Metadata
from graphmend.conventions import GENERATED_PREFIX, RUNTIME_ALIAS
from graphmend.rules.options import RULE_NAMES, RuleOptions

__all__ = ["RULE_NAMES", "Context", "Converter", "Declined", "Registry", "RuleOptions", "Site", "Skip", "declining"]

T = TypeVar("T")

class Declined(Exception):
    """A site a rule leaves alone; ``str()`` is the reason recorded.

    How the reason is recorded (set with :func:`declining`):

    * ``at``: the node it is said of (default: the node the converter left);
    * ``quiet``: not recorded (a decline not worth a word);
    * ``instead``: the node's replacement nonetheless (default: the node as
      its children left it, which the next converter may then try);
    * ``final``: no other converter tries the node (its reason is the one
      that says what happened).
    """

    def __init__(self, reason: str, *, at: cst.CSTNode | None = None, quiet: bool = False,
                 instead: cst.CSTNode | None = None, final: bool = False) -> None:
        super().__init__(reason)
        self.at, self.quiet, self.instead, self.final = at, quiet, instead, final


@contextlib.contextmanager
def declining(*, prefix: str = "", suffix: str = "", at: cst.CSTNode | None = None, quiet: bool = False,
              instead: cst.CSTNode | None = None, final: bool = False,
              words: Mapping[str, str] | None = None) -> Iterator[None]:
    """A :class:`Declined` raised in the ``with`` block, reworded as
    ``prefix + reason + suffix`` (each of ``words`` replaced by its value)
    and recorded as the arguments say (see :class:`Declined`)."""
    try:
        yield
    except Declined as decline:
        reason = str(decline)
        for word, replacement in (words or {}).items():
            reason = reason.replace(word, replacement)
        raise Declined(f"{prefix}{reason}{suffix}", at=decline.at if at is None else at,
                       quiet=quiet or decline.quiet, instead=decline.instead if instead is None else instead,
                       final=final or decline.final) from None


@dataclass(frozen=True)
class Site:
    """A statement a rule rewrote."""

    rule: str
    lineno: int  # 1-based, in the source the pipeline was given
    what: str  # one line, e.g. "logger.warning_once -> deferred"


@dataclass(frozen=True)
class Skip:
    """A statement a rule looked at and left alone, and why."""

    rule: str
    lineno: int
    reason: str


@dataclass
class Context:
    """What a converter sees of the pass: options, metadata, the facts of
    the function being converted, and where to record results."""

    options: RuleOptions
    metadata: Metadata
    facts_stack: list[FunctionFacts] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    #: The original nodes from the module down to the one being left.
    ancestors: list[cst.CSTNode] = field(default_factory=list)
    #: Original nodes some converter rewrote (by id), in order.
    converted: dict[int, None] = field(default_factory=dict)
    #: updated node -> the original it was built from (every node the pass left).
    origins: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    #: ``if``s in elif position (by id): the ``if`` they belong to converts them.
    elifs: set[int] = field(default_factory=set)

    @property
    def facts(self) -> FunctionFacts | None:
        return self.facts_stack[-1] if self.facts_stack else None

    def line(self, node: cst.CSTNode) -> int:
        """``node``'s line in the source (not the skeleton)."""
        return self.metadata.source_line(node)

    def enabled(self, rule: str) -> bool:
        return rule in self.options.rules

    def wanted(self, node: cst.CSTNode, rule: str) -> bool:
        """Whether ``rule`` may act on ``node`` (selected, and on a wanted line)."""
        options = self.options
        return self.enabled(rule) and (options.lines is None or options.also_static or self.diagnosed(node))

    def diagnosed(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` starts on a line a diagnosis reported: a break
        there shows what static matching cannot (that a test is a tensor)."""
        lines = self.options.lines
        return lines is not None and self.line(node) in lines

    def record(self, node: cst.CSTNode, rule: str, what: str) -> None:
        self.sites.append(Site(rule, self.line(node), what))
        self.converted[id(node)] = None

    def attempt(self, rule: str, node: cst.CSTNode, step: Callable[[], T]) -> T | Declined:
        """``step()``'s result, or the :class:`Declined` it raised: then the
        sites it recorded are forgotten and, unless quiet, the reason is
        recorded under ``rule``, said of ``node`` (or the decline's ``at``).
        The only place a skip is recorded."""
        sites, converted = len(self.sites), len(self.converted)
        try:
            return step()
        except Declined as decline:
            del self.sites[sites:]
            for key in list(self.converted)[converted:]:
                del self.converted[key]
            if not decline.quiet:
                self.skips.append(Skip(rule, self.line(node if decline.at is None else decline.at), str(decline)))
            return decline

    def original(self, updated: cst.CSTNode) -> cst.CSTNode | None:
        """The original node ``updated`` was built from (None for new code)."""
        return self.origins.get(updated)


#: A build step: (context, original node, updated node) -> the replacement
#: (``updated`` itself when it leaves the node alone); raises
#: :class:`Declined` to leave it alone with a reason.
Build = Callable[[Context, cst.CSTNode, cst.CSTNode], "cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel"]


def _always(ctx: Context, original: cst.CSTNode) -> bool:
    return True


@dataclass(frozen=True)
class Converter:
    """One converter: what it matches, and how it rewrites.

    ``name`` names the construct (``"where.if_statement"``); ``rule`` is the
    rule it belongs to (the engine runs it only while that rule is
    enabled, and records its declines under it); ``node`` is the libcst
    node type it leaves; ``applies`` is a cheap check on the original node
    (no facts) that must hold for ``build`` to be tried; ``build`` returns
    the replacement (``updated`` itself to leave the node to the next
    converter, silently) or raises :class:`Declined` with the reason."""

    name: str
    rule: str
    node: type[cst.CSTNode]
    build: Build
    applies: Callable[[Context, cst.CSTNode], bool] = _always


class Registry:
    """The converters, in the order the engine tries them on one node: the
    first that changes the node wins.  Tests and plug-ins add converters
    with :meth:`register` (or :meth:`added`, for a while) and turn a rule
    off with :meth:`disabled`; nothing else changes the engine."""

    def __init__(self, converters: Iterable[Converter] = ()) -> None:
        self._converters: list[Converter] = []
        self._off: set[str] = set()
        for converter in converters:
            self.register(converter)

    def register(self, converter: Converter, *, first: bool = False) -> Converter:
        """Add ``converter`` (tried before the others on its node type with ``first``)."""
        if any(known.name == converter.name for known in self._converters):
            raise ValueError(f"a converter named {converter.name!r} is registered already")
        self._converters.insert(0 if first else len(self._converters), converter)
        return converter

    def unregister(self, name: str) -> Converter:
        """Remove the converter named ``name`` and give it back."""
        converter = next(known for known in self._converters if known.name == name)
        self._converters.remove(converter)
        return converter

    @contextlib.contextmanager
    def added(self, *converters: Converter, first: bool = False) -> Iterator[None]:
        """``converters`` registered for the duration of a ``with`` block."""
        for converter in reversed(converters) if first else converters:
            self.register(converter, first=first)
        try:
            yield
        finally:
            for converter in converters:
                self.unregister(converter.name)

    def disable(self, rule: str) -> None:
        """Turn ``rule`` off: its converters are not run and it is not among
        :meth:`rule_names` (how the test suite checks that it goes red
        without the rule)."""
        self._off.add(rule)

    def enable(self, rule: str) -> None:
        self._off.discard(rule)

    @contextlib.contextmanager
    def disabled(self, rule: str) -> Iterator[None]:
        """``rule`` off for the duration of a ``with`` block."""
        was_off = rule in self._off
        self.disable(rule)
        try:
            yield
        finally:
            if not was_off:
                self.enable(rule)

    @property
    def off(self) -> frozenset[str]:
        return frozenset(self._off)

    def for_node(self, node_type: type[cst.CSTNode]) -> tuple[Converter, ...]:
        """The converters of enabled rules for ``node_type``, in order."""
        return tuple(c for c in self._converters if c.node is node_type and c.rule not in self._off)

    def rule_names(self) -> tuple[str, ...]:
        """The built-in rules, then those plug-ins brought, less those turned off."""
        names = [*RULE_NAMES, *(c.rule for c in self._converters if c.rule not in RULE_NAMES)]
        return tuple(name for name in dict.fromkeys(names) if name not in self._off)

    def __iter__(self) -> Iterator[Converter]:
        return iter(list(self._converters))

    def __len__(self) -> int:
        return len(self._converters)


# -- builders ------------------------------------------------------------------------------


def runtime_function(name: str) -> cst.Attribute:
    """``_graphmend.<name>``."""
    return cst.Attribute(value=cst.Name(RUNTIME_ALIAS), attr=cst.Name(name))


def runtime_call(name: str, args: Iterable[cst.Arg | cst.BaseExpression]) -> cst.Call:
    """``_graphmend.<name>(*args)``."""
    return cst.Call(func=runtime_function(name), args=[a if isinstance(a, cst.Arg) else cst.Arg(a) for a in args])


def is_runtime_call(node: cst.CSTNode, *names: str) -> bool:
    """Whether ``node`` is ``_graphmend.<one of names>(...)`` (any name when none given)."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value == RUNTIME_ALIAS
        and (not names or node.func.attr.value in names)
    )


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` with no spaces around ``=``."""
    return cst.Arg(value, keyword=cst.Name(name),
                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))


def string(name: str) -> cst.SimpleString:
    """A double-quoted literal of ``name`` (a dotted identifier)."""
    return cst.SimpleString(f'"{name}"')


def generated(kind: str, line: int) -> cst.Name:
    """A variable a rule introduces: ``_gm_<kind>_<line>``."""
    return cst.Name(f"{GENERATED_PREFIX}{kind}_{line}")


def replacing(updated: cst.BaseCompoundStatement, statements: Sequence[cst.BaseStatement]) -> cst.FlattenSentinel:
    """``statements`` in place of the compound statement ``updated``, the
    blank lines and comments above it kept above the first of them."""
    first, *rest = statements
    return cst.FlattenSentinel([first.with_changes(leading_lines=updated.leading_lines), *rest])


def assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


def tuple_of(values: Iterable[cst.BaseExpression]) -> cst.Tuple:
    """``(a, b)``, and ``(a,)`` for one value."""
    elements = [cst.Element(value) for value in values]
    if len(elements) == 1:
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return cst.Tuple(elements)


def thunk(value: cst.BaseExpression, read_locals: Iterable[str] = ()) -> cst.Lambda:
    """``lambda a=a, b=b: value``, called right after it is made.

    The locals of the enclosing function that ``value`` reads (``read_locals``,
    all surely bound here) are default arguments, not free variables: a
    closure would turn them into cells, and a Dynamo resume function reads
    an unbound cell as a free variable (``NameError: cannot access free
    variable`` where the original raised ``UnboundLocalError``).
    """
    return cst.Lambda(_default_parameters(read_locals), value)


def statement_thunk(name: cst.Name, body: Sequence[cst.BaseStatement], results: Sequence[str],
                    read_locals: Iterable[str] = ()) -> cst.FunctionDef:
    """``def name(a=a, b=b): <body>; return (r1, r2)``: statements run as a
    function called right after it is made (see :func:`thunk` for why the
    locals it reads are default arguments)."""
    value = cst.Tuple([cst.Element(cst.Name(result)) for result in results])
    returned = cst.SimpleStatementLine([cst.Return(value)])
    return cst.FunctionDef(name, _default_parameters(read_locals), cst.IndentedBlock([*body, returned]))


def _default_parameters(read_locals: Iterable[str]) -> cst.Parameters:
    return cst.Parameters([
        cst.Param(
            cst.Name(name),
            default=cst.Name(name),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        for name in read_locals
    ])


def is_dispatch(test: cst.BaseExpression) -> bool:
    """Whether ``test`` is the test of graphmend's own dispatch: ``if
    _graphmend.is_tensor(c):`` or ``if isinstance(_gm_arms_L, tuple):``."""
    return is_runtime_call(test, "is_tensor") or m.matches(
        test,
        m.Call(func=m.Name("isinstance"),
               args=[m.Arg(m.Name(value=m.MatchIfTrue(lambda name: name.startswith(GENERATED_PREFIX)))),
                     m.Arg(m.Name("tuple"))]),
    )
