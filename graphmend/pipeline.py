"""parse -> scan -> skeleton -> facts -> converters (one pass) -> code.

The order lives only here:

1. A cheap ``ast`` scan (:mod:`graphmend.analysis.scan`) picks the
   functions that might hold a site; only they, inside a skeleton of their
   file (:mod:`graphmend.analysis.source`), ever reach libcst.
2. LibCST's byte-span positions are resolved once per skeleton
   (:class:`graphmend.analysis.facts.Metadata`); names are resolved from
   the file's ``ast`` and each function's bindings.
3. Two lowerings rewrite whole functions first, as AutoGraph's do: a
   ``torch.unique`` that only tests and messages read becomes the tensor
   itself under torch.compile, its message reads the call again
   (:mod:`graphmend.rules.unique_reads`, one binding and its reads, which
   no single converter sees together); then early returns, in the
   functions where a tensor ``if`` returns
   (:mod:`graphmend.rules.where.returns`): the ``if`` converter then sees
   arms that return on every path.
4. One bottom-up pass runs every converter of :data:`CONVERTERS` (a
   :class:`graphmend.rules.base.Registry`; tests and plug-ins register
   theirs there).  Inner code is rewritten
   before the code around it, so each rule applies inside the others'
   results: a ``print`` in a tensor arm is already a deferred call when
   its ``if`` is predicated (which gates it), a guard there already a
   deferred check.  On one node the converters are tried in registry order,
   and the first that changes it wins.  Each build step runs through
   :meth:`graphmend.rules.base.Context.attempt`, which records the reason
   of one that declines (:class:`graphmend.rules.base.Declined`) and
   forgets what it recorded; then the next converter tries the node, unless
   the decline was final or gave a replacement:

   * ``if``: [Trap] for a guard (``if T: raise``), else [Where] (a state
     update, the ``if``, or, where the ``if`` stays, its ``elif``);
   * ``assert``: [Trap];
   * conditional expression, ``while``: [Where];
   * expression statement: [Defer] (print, logging, warnings, helpers);
   * call: [Trap] (``one_hot`` of a width read from data), [Where]
     (``torch.arange(...).tolist()`` of Python ints, ``pow()``);
   * assignment: [Where] (a test stored in a flag, a store through a bool
     mask).

Functions whose lowered returns no ``if`` then merged are converted again
from their original text, so restructuring never shows without a reason.
Sites and skips are reported in the numbering of the source given.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from graphmend.analysis.bindings import iter_children, path_to
from graphmend.analysis.facts import FunctionFacts, Metadata
from graphmend.analysis.scan import candidate_units
from graphmend.analysis.source import Skeleton, parse_text
from graphmend.analysis.summaries import Imported, Summary, static_summaries
from graphmend.conventions import RUNTIME_ALIAS, RUNTIME_MODULE
from graphmend.errors import SourceError
from graphmend.rules import defer, one_hot, trap, unique_reads, where
from graphmend.rules.base import Context, Converter, Declined, Registry, RuleOptions, Site, Skip
from graphmend.rules.options import built_in, select_rules

__all__ = ["CONVERTERS", "RULE_NAMES", "SkeletonResult", "TransformResult", "disabled_rules", "transform_skeleton",
           "transform_source"]


@dataclass(frozen=True)
class TransformResult:
    code: str
    changed: bool
    sites: tuple[Site, ...]
    skips: tuple[Skip, ...]


@dataclass(frozen=True)
class SkeletonResult:
    """The rules' output for one skeleton: its text after the rules, each
    unit's lines in it, and what was rewritten or declined (skeleton lines)."""

    code: str
    unit_lines: tuple[tuple[str, ...], ...]
    sites: tuple[Site, ...] = ()
    skips: tuple[Skip, ...] = ()

    @property
    def needs_runtime(self) -> bool:
        """Whether a rewrite calls graphmend's runtime (``pow(a, b) -> a ** b`` does not)."""
        return bool(self.sites) and f"{RUNTIME_ALIAS}." in self.code


def _not_a_guard_for_trap(ctx: Context, original: cst.If) -> bool:
    """A guard (``if T: raise``) is [Trap]'s alone while [Trap] is on."""
    return not (trap.is_guard(original) and ctx.enabled("trap"))


#: The converters, in the order they are tried on one node (the first that
#: changes it wins); see the module docstring.
CONVERTERS = Registry([
    Converter("trap.guard", "trap", cst.If, trap.convert_guard, applies=lambda ctx, node: trap.is_guard(node)),
    Converter("where.state_update", "where", cst.If, where.convert_state_update, applies=_not_a_guard_for_trap),
    Converter("where.if_statement", "where", cst.If, where.convert_if, applies=_not_a_guard_for_trap),
    Converter("where.elif_statement", "where", cst.If, where.convert_elif, applies=where.has_elif),
    Converter("trap.assert_statement", "trap", cst.Assert, trap.convert_assert),
    Converter("where.conditional_expression", "where", cst.IfExp, where.convert_ifexp),
    Converter("where.while_loop", "where", cst.While, where.convert_while),
    Converter("defer.effect_call", "defer", cst.Expr, defer.convert_effect_call),
    Converter("trap.one_hot", "trap", cst.Call, one_hot.convert_one_hot, applies=one_hot.calls_one_hot),
    Converter("where.static_values", "where", cst.Call, where.convert_static_tolist, applies=where.calls_tolist),
    Converter("where.static_reads", "where", cst.Call, where.convert_static_read, applies=where.reads_back),
    Converter("where.builtin_operators", "where", cst.Call, where.convert_builtin_pow, applies=where.calls_pow),
    Converter("where.scalar_index", "where", cst.Subscript, where.convert_scalar_index),
    Converter("where.truth_assignment", "where", cst.Assign, where.convert_truth_assignment),
    Converter("where.masked_store", "where", cst.Assign, where.convert_masked_store),
    Converter("where.count_facts", "where", cst.SimpleStatementLine, where.convert_count_facts),
])


def __getattr__(name: str):
    # ``RULE_NAMES`` follows the registry: a plug-in's rule is among them,
    # a rule turned off is not.
    if name == "RULE_NAMES":
        return CONVERTERS.rule_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Engine(cst.CSTTransformer):
    """The one pass: every converter, bottom-up (see the module docstring)."""

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.ctx.ancestors.append(node)
        if isinstance(node, cst.FunctionDef):
            self.ctx.facts_stack.append(
                FunctionFacts(node, self.ctx.metadata, self.ctx.options.effect_helpers, self.ctx.facts,
                              self.ctx.options.callees))
        elif isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
            self.ctx.elifs.add(id(node.orelse))
        return True

    def on_leave(self, original_node, updated_node):
        self.ctx.ancestors.pop()
        if isinstance(original_node, cst.FunctionDef):
            self.ctx.facts_stack.pop()
        result = updated_node
        for converter in CONVERTERS.for_node(type(original_node)):
            if not (self.ctx.enabled(converter.rule) and converter.applies(self.ctx, original_node)):
                continue
            self.ctx.ancestors.append(original_node)
            try:
                result = self.ctx.attempt(converter.rule, original_node,
                                          lambda: converter.build(self.ctx, original_node, updated_node))
            finally:
                self.ctx.ancestors.pop()
            if isinstance(result, Declined):
                if result.final or result.instead is not None:
                    result = updated_node if result.instead is None else result.instead
                    break
                result = updated_node
            elif result is not updated_node:
                break
        if isinstance(result, cst.CSTNode):
            self.ctx.origins[result] = original_node
        return result


class _Replace(cst.CSTTransformer):
    """Swaps the lowered functions in, keeping every other node itself (so
    its metadata still answers)."""

    def __init__(self, module: cst.Module, replacements: dict[cst.FunctionDef, cst.FunctionDef],
                 metadata: Metadata) -> None:
        super().__init__()
        self.replacements = replacements
        self.metadata = metadata
        # Only the nodes on the way to a replaced function are rebuilt.
        self.on_path: set[cst.CSTNode] = set()
        for function in replacements:
            self.on_path.update(path_to(module, function) or ())

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node in self.on_path and node not in self.replacements

    def on_leave(self, original_node, updated_node):
        if original_node in self.replacements:
            return self.replacements[original_node]
        if original_node not in self.on_path:
            return original_node
        self.metadata._origin[updated_node] = self.metadata.original(original_node)
        return updated_node


def _lower(ctx: Context, module: cst.Module, returns: bool) -> tuple[dict, list]:
    """The lowered form of every function that needs it, and the functions
    whose early returns were lowered (see where.returns).  ``torch.unique``
    read only by tests is lowered first (see unique_reads): its reads are
    rewritten where they are, before any continuation is copied."""
    replacements, returns_lowered = {}, []
    for node in _functions(module):
        current = node
        # The tests a torch.unique is lowered for are guards [Trap] defers;
        # without [Trap] they still break, and the lowering would be for nothing.
        if ctx.enabled("trap"):
            current = _with_facts(ctx, current, unique_reads.lower_unique_reads) or current
        if returns and ctx.enabled("where"):
            lowered = _with_facts(ctx, current, lambda c, facts: where.lower_returns(
                c, facts, lambda i, inside: (c.wanted(i, "where") or inside and c.enabled("where"))
                and where.worth_trying(c, i, i.test, inside=inside)))
            if lowered is not None:
                current = lowered
                returns_lowered.append(node)
        if current is not node:
            replacements[node] = current
    return replacements, returns_lowered


def _with_facts(ctx: Context, function: cst.FunctionDef, lowering):
    """``lowering(ctx, facts)`` with ``function``'s facts on the stack."""
    facts = FunctionFacts(function, ctx.metadata, ctx.options.effect_helpers, callees=ctx.options.callees)
    ctx.facts_stack.append(facts)
    try:
        return lowering(ctx, facts)
    finally:
        ctx.facts_stack.pop()


def _functions(node: cst.CSTNode):
    """The outermost function definitions under ``node``."""
    for child in iter_children(node):
        if isinstance(child, cst.FunctionDef):
            yield child
        else:
            yield from _functions(child)


def _convert(metadata: Metadata, options: RuleOptions, lower: bool) -> tuple[cst.Module, Context, list]:
    ctx = Context(options, metadata)
    module = metadata.module
    replacements, returns_lowered = _lower(ctx, module, lower)
    if replacements:
        module = module.visit(_Replace(module, replacements, metadata))
    return module.visit(_Engine(ctx)), ctx, returns_lowered


def _rewrite(skeleton: Skeleton, options: RuleOptions, filename: str, lower: bool):
    try:
        module = cst.parse_module(skeleton.text)
    except cst.ParserSyntaxError as err:
        raise SourceError(filename, skeleton.kept[min(err.raw_line, len(skeleton.kept)) - 1], err.message) from None
    metadata = Metadata(module, skeleton.kept, skeleton.module_names)
    converted, ctx, returns_lowered = _convert(metadata, options, lower)
    # Returns lowered for nothing: that restructuring must not show.
    undone = {
        skeleton.unit_at(start)
        for start, end in (_source_span(metadata, function) for function in returns_lowered)
        if not any(s.what.startswith("if/return") and start <= s.lineno <= end for s in ctx.sites)
    }
    return converted.code, ctx, undone


def disabled_rules() -> dict[str, str]:
    """Rule name -> why it is off on this torch (:func:`graphmend.compat.disabled_rules`,
    installing the compat module first).  Nothing is off where torch is not
    imported: ``graphmend fix`` needs no torch, and the runtime its output
    imports checks the torch it meets (and warns)."""
    if "torch" not in sys.modules:
        return {}
    from graphmend import compat, runtime

    return compat.rules_off(runtime)


def transform_skeleton(skeleton: Skeleton, options: RuleOptions, filename: str = "<string>") -> SkeletonResult:
    """Apply the rules to ``skeleton`` (lines, sites and skips in source lines).
    A rule that is off on this torch (:func:`disabled_rules`) does not apply,
    so no message or check is rewritten into a form that would drop it; nor
    does one turned off in the registry (:meth:`Registry.disable`)."""
    off = options.rules & (set(disabled_rules()) | CONVERTERS.off)
    if off:
        options = dataclasses.replace(options, rules=options.rules - off)
    code, ctx, undone = _rewrite(skeleton, options, filename, lower=True)
    units = skeleton.unit_texts(code)
    sites, skips = list(ctx.sites), list(ctx.skips)
    if undone:
        again = skeleton.subset(undone)
        again_code, again_ctx, _ = _rewrite(again, options, filename, lower=False)
        spans = [(unit.start, unit.end) for unit in undone]
        inside = lambda item: any(start <= item.lineno <= end for start, end in spans)  # noqa: E731
        # Sites from the code as written; reasons from the lowered attempt,
        # which say why its ifs could not be merged.
        sites = [s for s in sites if not inside(s)] + again_ctx.sites
        redone = dict(zip(again.units, again.unit_texts(again_code)))
        units = [redone.get(unit, text) for unit, text in zip(skeleton.units, units)]
        code = _splice(skeleton, units)
    return SkeletonResult(code, tuple(tuple(u) for u in units), tuple(dict.fromkeys(sites)), tuple(skips))


def _splice(skeleton: Skeleton, units: list[list[str]]) -> str:
    """The skeleton's text with each unit's lines replaced."""
    lines = skeleton.text.splitlines(keepends=True)
    out: list[str] = []
    starts = {unit.start: (unit, text) for unit, text in zip(skeleton.units, units)}
    position = 0
    while position < len(skeleton.kept):
        found = starts.get(skeleton.kept[position])
        if found is None:
            out.append(lines[position])
            position += 1
        else:
            unit, text = found
            out.extend(text)
            position += unit.end - unit.start + 1
    return "".join(out)


def _source_span(metadata: Metadata, function: cst.FunctionDef) -> tuple[int, int]:
    return metadata.source_line(function), metadata.source_line(function, metadata.end_line(function))


def transform_source(
    source: str,
    *,
    rules: Iterable[str] | None = None,
    lines: frozenset[int] | None = None,
    also_static: bool = False,
    filename: str = "<string>",
    effect_helpers: frozenset[str] = frozenset(),
    callees: frozenset[tuple[str, Summary]] = frozenset(),
    imported: Imported | None = None,
) -> TransformResult:
    """Apply the selected rules to the module ``source``.

    ``lines`` limits every rule to statements starting on those lines (the
    sites a diagnosis reported); ``None`` lets each rule match statically;
    ``also_static`` does both.  ``callees``: summaries of the functions
    global names hold (see :attr:`RuleOptions.callees`), read from live
    objects; they replace those read from the file's own defs, and from
    the other files ``imported`` leads to (see :func:`static_summaries`).
    Raises :class:`SourceError` when ``source`` does not parse.
    """
    try:
        parsed = parse_text(filename, source)
    except (SyntaxError, ValueError) as err:
        raise SourceError(filename, getattr(err, "lineno", None) or 1, getattr(err, "msg", str(err))) from None
    helpers = effect_helpers | parsed.effect_helpers
    selected = select_rules(rules, CONVERTERS.rule_names())
    if built_in(selected) or lines is not None:
        units = candidate_units(parsed, helpers, lines, also_static)
    else:
        units = list({u.start: u for u in map(parsed.unit_of, parsed.defs.values())}.values())
    if not units:
        return TransformResult(source, False, (), ())
    skeleton = parsed.skeleton(units)
    options = RuleOptions(rules=frozenset(selected), lines=lines, also_static=also_static, effect_helpers=helpers,
                          callees=frozenset({**dict(static_summaries(parsed, [unit.node for unit in units], imported)),
                                             **dict(callees)}.items()))
    result = transform_skeleton(skeleton, options, filename)
    out = list(parsed.lines)
    for unit, new in sorted(zip(skeleton.units, result.unit_lines), key=lambda pair: -pair[0].start):
        if new and unit.end == len(out) and not out[-1].endswith("\n"):
            new = (*new[:-1], new[-1].removesuffix("\n"))
        out[unit.start - 1 : unit.end] = new
    code = "".join(out)
    if result.needs_runtime:
        code = add_runtime_import(code, filename)
    return TransformResult(code, code != source, result.sites, result.skips)


def add_runtime_import(code: str, filename: str = "<string>") -> str:
    """``code`` importing graphmend's runtime, through ``AddImportsVisitor``
    run on the file's head (docstring, ``__future__`` and the imports at the
    top), so the rest of the file never reaches libcst again."""
    import ast

    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    lines = code.splitlines(keepends=True)
    head_end = 0
    for index, statement in enumerate(ast.parse(code, filename).body):
        docstring = index == 0 and isinstance(statement, ast.Expr) and isinstance(
            getattr(statement, "value", None), ast.Constant) and isinstance(statement.value.value, str)
        if not (docstring or isinstance(statement, (ast.Import, ast.ImportFrom))):
            break
        head_end = statement.end_lineno
    rest = lines[head_end:]
    leading = 0
    while leading < len(rest) and (not rest[leading].strip() or rest[leading].lstrip().startswith("#")):
        leading += 1
    # A placeholder stands for the rest, so the visitor lays out the lines
    # around the new import as it would in the whole file.
    head = "".join(lines[:head_end] + rest[:leading]) + "pass\n"
    context = CodemodContext(filename=filename)
    package, _, module = RUNTIME_MODULE.rpartition(".")
    AddImportsVisitor.add_needed_import(context, package, module, asname=RUNTIME_ALIAS)
    new_head = AddImportsVisitor(context).transform_module(cst.parse_module(head)).code
    return new_head.removesuffix("pass\n") + "".join(rest[leading:])
