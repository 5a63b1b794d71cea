"""Mend live functions in memory: ``mend``, ``mend_sites``, ``unmend``, ``show``.

How a function is mended, one module per step:

1. :mod:`graphmend.resolve` -- the Python function whose code changes.
2. :mod:`graphmend.analysis.source` -- the skeleton of its file (prelude,
   and the functions being mended inside their class headers), which
   :func:`graphmend.pipeline.transform_skeleton` rewrites; results are
   cached on disk (:mod:`graphmend.cache`).
3. :mod:`graphmend.scope` -- each rewritten def compiled in a scope that
   reproduces the original's, at the file's line numbers.
4. :mod:`graphmend.swap` -- ``__code__`` swapped in place, and undone.

Which functions ``mend(model)`` reaches is :mod:`graphmend.discover`'s.
graphmend's own modules are never mended.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import importlib
import linecache
import logging
import sys
import textwrap
import types
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from graphmend import cache, compat, discover, swap
from graphmend.analysis.scan import might_hold_site
from graphmend.analysis.source import ParsedFile, Skeleton, Unit, collector_paused, first_line, line_map, parse_file
from graphmend.analysis.summaries import Summarizer
from graphmend.conventions import RUNTIME_ALIAS, RUNTIME_MODULE
from graphmend.errors import GraphmendError, SourceError
from graphmend.reach import reach
from graphmend.resolve import Unmendable, check_rebuildable, describe, resolve, resolve_quietly
from graphmend.rules.options import RuleOptions, built_in, select_rules
from graphmend.scope import compile_in_scope, fingerprint, mended_code, move_to_file_lines
from graphmend.sidecar import Sidecar, SidecarFailed, worthwhile
from graphmend.swap import LOCK, PATCHES, Coverage, Lines

logger = logging.getLogger("graphmend")

# What each object given to ``mend`` caused to be patched, for ``unmend``.
_OWNED: weakref.WeakKeyDictionary[Any, list[types.FunctionType]] = weakref.WeakKeyDictionary()


def _skip(obj: Any, reason: str) -> None:
    logger.debug("graphmend: not mending %s: %s", describe(obj), reason)


def _defs_by_name(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every def in ``tree`` by name, in source order."""
    defs: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node)
    for same_name in defs.values():
        same_name.sort(key=lambda n: (n.lineno, n.col_offset))
    return defs


def _runtime_bindings(code_text: str) -> dict[str, Any]:
    """What rewritten code needs bound in its globals: the runtime."""
    if RUNTIME_ALIAS not in code_text:
        return {}
    return {RUNTIME_ALIAS: _runtime()}


def _runtime() -> types.ModuleType:
    """The runtime, imported on first use (its import installs compat and
    runs the self-test, which a helper process overlaps)."""
    return importlib.import_module(RUNTIME_MODULE)


def _source_of(filename: str, globals_: dict[str, Any]) -> ParsedFile | None:
    # "<string>" and the like name no file; only a tool that registers its
    # text in linecache under a unique name (IPython) gives them source.
    if filename.startswith("<") and (filename == "<string>" or filename not in linecache.cache):
        return None
    return parse_file(filename, globals_)


@dataclass
class _FilePlan:
    """One file's functions to mend, up to the skeleton the rules rewrite."""

    filename: str
    parsed: ParsedFile
    targets: list[tuple[types.FunctionType, ast.AST, Unit, Coverage]]
    skeleton: Skeleton
    options: RuleOptions
    rule_names: tuple[str, ...]

    def cache_key(self, off: Iterable[str] = ()) -> str:
        return cache.cache_key(
            self.skeleton.text,
            rules=[rule for rule in self.rule_names if rule not in off],
            lines=self.options.lines,
            also_static=self.options.also_static,
            extra=[*sorted(self.options.effect_helpers),
                   *sorted(f"{name}: {summary}" for name, summary in self.options.callees)],
        )


def _plan_file(filename: str, requests: list[tuple[types.FunctionType, Coverage]],
               rule_names: tuple[str, ...]) -> _FilePlan | None:
    """The skeleton of the functions in one file (all matched statically or
    none) that the rules may change; ``None`` when there are none."""
    parsed = _source_of(filename, requests[0][0].__globals__)
    if parsed is None:
        for function, _ in requests:
            _skip(function, "no source (defined by exec/compile, or the file is gone, or it does not parse)")
        return None
    helpers = parsed.effect_helpers.union(*(discover.effect_helpers_of(f) for f, _ in requests))
    targets: list[tuple[types.FunctionType, ast.AST, Unit, Coverage]] = []
    for function, coverage in requests:
        node = parsed.def_of(function.__code__)
        if node is None:
            _skip(function, "its source does not match the loaded code (file edited since import?)")
            continue
        if not coverage.lines and built_in(rule_names) and not might_hold_site(node, helpers):
            _skip(function, "no rule has a site in it")
            continue
        unit = parsed.unit_of(node)
        original = compile_in_scope(node, function, unit.scope_class, parsed.imported)  # leaves the tree as it is
        if fingerprint(original) != fingerprint(function.__code__):
            _skip(function, "its source does not compile to the loaded code (file edited since import?)")
            continue
        targets.append((function, node, unit, coverage))
    if not targets:
        return None
    summarizer = Summarizer()  # the functions they call, each read once
    callees = frozenset().union(*(discover.callee_summaries_of(f, summarizer) for f, *_ in targets))
    static = targets[0][3].static
    lines = frozenset().union(*(coverage.lines for *_, coverage in targets))
    options = RuleOptions(rules=frozenset(rule_names), lines=lines if lines or not static else None,
                          also_static=static and bool(lines), effect_helpers=helpers, callees=callees)
    return _FilePlan(filename, parsed, targets, parsed.skeleton(unit for _, _, unit, _ in targets), options, rule_names)


def _rewrite_plans(plans: list[_FilePlan], sidecar: Sidecar | None,
                   while_waiting: Callable[[], Any] | None) -> list[str | SourceError]:
    """Each plan's rewritten skeleton (or why the rules failed on it), from
    the cache, the helper process or the rules run here.  compat is
    installed (its self-test run) while the helper works: a rule it turns
    off does not apply, and a helper's answer made with it is not used.
    ``while_waiting`` is called once, before the helper's answers are
    read, when there are any to wait for."""
    cached = [cache.load(plan.cache_key()) for plan in plans]
    tickets = {}
    if sidecar is not None:
        tickets = {index: sidecar.submit(plan.skeleton, plan.options, plan.filename)
                   for index, plan in enumerate(plans) if cached[index] is None}
    off = set(compat.rules_off(_runtime()))
    if tickets and while_waiting is not None:
        while_waiting()
    texts: list[str | SourceError] = []
    for index, plan in enumerate(plans):
        # A rule compat turned off: another cache entry, and not the helper's answer.
        stale = bool(off & plan.options.rules)
        text = cache.load(plan.cache_key(off)) if stale else cached[index]
        if text is None:
            if index in tickets and not stale:
                try:
                    text = sidecar.result(tickets[index])
                except SidecarFailed as why:
                    logger.debug("graphmend: the helper process did not rewrite %s (%s); rewriting here",
                                 plan.filename, why)
            if text is None:
                from graphmend.pipeline import transform_skeleton

                options = dataclasses.replace(plan.options, rules=plan.options.rules - off)
                try:
                    text = transform_skeleton(plan.skeleton, options, plan.filename).code
                except SourceError as err:
                    texts.append(err)
                    continue
            cache.store(plan.cache_key(off), text)
        texts.append(text)
    return texts


def _finish_file(plan: _FilePlan, mended_text: str | SourceError,
                 previous: dict[types.FunctionType, tuple[str, types.CodeType, Coverage]]) -> list[types.FunctionType]:
    """Compile and swap in each planned function's rewritten def.  A
    function mended again (``previous``: its earlier mended source and code)
    whose rewrite came out the same gets its earlier code back, so what
    Dynamo compiled for it stays valid."""
    targets, filename = plan.targets, plan.filename
    try:
        if isinstance(mended_text, SourceError):
            raise mended_text
        skeleton_tree = ast.parse(plan.skeleton.text, filename)
        mended_tree = ast.parse(mended_text, filename)
    except (SourceError, SyntaxError) as err:
        for function, *_ in targets:
            _skip(function, f"the rules failed on {filename}: {err}")
        return []

    to_skeleton = plan.skeleton.to_skeleton()
    mended_lines = mended_text.splitlines(keepends=True)
    skeleton_defs, mended_defs = _defs_by_name(skeleton_tree), _defs_by_name(mended_tree)
    patched = []
    for function, target, unit, coverage in targets:
        try:
            name = function.__code__.co_name
            # The rules add no defs, so the n-th def of a name stays the n-th.
            ordinal = [first_line(n) for n in skeleton_defs[name]].index(to_skeleton[first_line(target)])
            node = mended_defs[name][ordinal]
            before = plan.parsed.lines[first_line(target) - 1 : target.end_lineno]
            after = mended_lines[first_line(node) - 1 : node.end_lineno]
            if before == after:
                raise Unmendable("no rewrite applies to it")
            # Moved to file lines in place, so each target gets its own copy:
            # one target may be nested in another, and closures made by one
            # factory (a wrapper each subclass gets) share one def.
            node = copy.deepcopy(node)
            move_to_file_lines(node, line_map(before, after, first_line(target)), first_line(node))
            bindings = _runtime_bindings("".join(after))
            source = textwrap.dedent("".join(after))
            earlier_source, earlier_code, _ = previous.get(function, (None, None, None))
            code = earlier_code if source == earlier_source else mended_code(
                function, node, unit.scope_class, set(plan.parsed.imported) | set(bindings))
            swap.apply(function, code, source, coverage, bindings)
        except Unmendable as why:
            _skip(function, str(why))
            continue
        patched.append(function)
    return patched


@contextlib.contextmanager
def _file_failure(filename: str) -> Iterator[None]:
    """A bug in a rule or here must not break the user's program."""
    try:
        yield
    except Exception:
        logger.warning("graphmend: mending functions in %s failed; left unchanged", filename, exc_info=True)


def _is_own(function: types.FunctionType) -> bool:
    """graphmend's own code (its runtime above all) is never rewritten."""
    name = discover.module_name(function)
    return name == "graphmend" or name.startswith("graphmend.")


def _mend_functions(requests: Iterable[tuple[types.FunctionType, Lines]], rules: Iterable[str] | None,
                    while_waiting: Callable[[], Any] | None = None) -> list[types.FunctionType]:
    """Mend each (function, lines); the functions now mended (new or before)."""
    # A rule plugged into the pipeline is there; without the pipeline imported
    # (LibCST, which a cold first mend leaves to the helper) there are only the built-in ones.
    pipeline = sys.modules.get("graphmend.pipeline")
    rule_names = select_rules(rules, pipeline.RULE_NAMES) if pipeline is not None else select_rules(rules)
    merged: dict[types.FunctionType, Coverage] = {}
    for function, lines in requests:
        wanted = Coverage.of(lines)
        merged[function] = merged[function] | wanted if function in merged else wanted
    done: list[types.FunctionType] = []
    groups: dict[tuple[str, bool], list[tuple[types.FunctionType, Coverage]]] = {}
    previous: dict[types.FunctionType, tuple[str, types.CodeType, Coverage]] = {}  # mended again
    for function, wanted in merged.items():
        if _is_own(function):
            _skip(function, "graphmend's own code")
            continue
        patch = PATCHES.get(function)
        if patch is not None:
            if patch.coverage.covers(wanted):
                done.append(function)
                continue
            wanted = wanted | patch.coverage
            previous[function] = (patch.mended_source, function.__code__, patch.coverage)
            swap.restore(function)
        try:
            check_rebuildable(function)
        except Unmendable as why:
            _skip(function, str(why))
            continue
        groups.setdefault((function.__code__.co_filename, wanted.static), []).append((function, wanted))
    # The helper starts first: it imports LibCST while this process parses.
    sidecar = Sidecar.start() if groups and worthwhile(rule_names) else None
    try:
        with collector_paused():
            plans = []
            for (filename, _), group in groups.items():
                with _file_failure(filename):
                    plan = _plan_file(filename, group, rule_names)
                    if plan is not None:
                        plans.append(plan)
            if plans:
                for plan, text in zip(plans, _rewrite_plans(plans, sidecar, while_waiting)):
                    with _file_failure(plan.filename):
                        done.extend(_finish_file(plan, text, previous))
        for function, (source, code, coverage) in previous.items():
            if function not in PATCHES:  # mending it again failed: it keeps its earlier mending
                swap.apply(function, code, source, coverage, _runtime_bindings(source))
                done.append(function)
    finally:
        if sidecar is not None:
            sidecar.close()
    return done


# -- public API -----------------------------------------------------------------------


def mend(obj: Any, *, modules: str | Iterable[str] | None = None, rules: Iterable[str] | None = None,
         only_modules: bool = False, args: Iterable[Any] = (),
         while_waiting: Callable[[], Any] | None = None) -> Any:
    """Rewrite ``obj`` in memory, in place, so Dynamo meets fewer graph breaks.

    A function comes back as itself, its code mended and ``__wrapped__`` set
    to a copy running the original code.  An ``nn.Module`` comes back as
    itself with ``forward`` mended too.  By default every function a call
    of ``obj`` reaches is mended (:mod:`graphmend.reach`: through globals,
    closures, attributes, submodules, base classes and wrappers, across
    modules and libraries; ``args``, the call's arguments, may hold more,
    such as the model a step function is given); ``modules`` (module-name
    prefixes) limits mending to the functions defined there.  Anything that
    cannot be mended comes back unchanged, the reason logged at debug level
    on the ``graphmend`` logger.  ``rules`` selects rules by name (default:
    all).  With ``only_modules``, ``obj``'s own function is mended only if
    it lies in ``modules`` too.  ``while_waiting`` is work the caller needs
    done anyway, called while a helper process rewrites
    (:mod:`graphmend.sidecar`; ``graphmend.compile`` imports its backend
    there).  Raises :class:`GraphmendError` only for an ``obj`` that is not
    callable.
    """
    if not callable(obj) and not isinstance(obj, (staticmethod, classmethod)):
        raise GraphmendError(f"mend() needs a function or an nn.Module, not {type(obj).__name__}")
    with LOCK:
        if modules is None:
            functions = reachable(obj, args)
            if not functions:
                try:
                    resolve(obj)
                    _skip(obj, "it reaches no Python function outside torch, graphmend and the standard library")
                except Unmendable as why:
                    _skip(obj, str(why))
        else:
            prefixes = discover.prefixes(modules, "")
            if isinstance(obj, torch.nn.Module):
                candidates = discover.called_by_name(discover.model_functions(obj, prefixes),
                                                     discover.forward_roots(obj))
            else:
                candidates = discover.functions_in_modules(prefixes)
            try:
                own = [resolve(obj)]  # a module's forward, or the function itself
            except Unmendable as why:
                _skip(obj, str(why))
                own = []
            if only_modules:
                own = [f for f in own if discover.matches(discover.module_name(f), prefixes)]
            functions = own + discover.reached_in(candidates, prefixes)
        requests = [(function, None) for function in dict.fromkeys(functions)]
        _remember(obj, _mend_functions(requests, rules, while_waiting))
    return obj


def reachable(obj: Any, args: Iterable[Any] = ()) -> list[types.FunctionType]:
    """The functions a call ``obj(*args)`` reaches (:func:`graphmend.reach.reach`)."""
    found = reach(obj, args)
    logger.debug("graphmend: %s reaches %d function(s) (%d objects visited, %.3f s%s)", describe(obj),
                 len(found.functions), found.visited, found.seconds, ", truncated" if found.truncated else "")
    return found.functions


def mended_functions(obj: Any) -> list[types.FunctionType]:
    """The functions mending ``obj`` patched (and still patched)."""
    anchor = _anchor(obj)
    return [f for f in _OWNED.get(anchor, []) if f in PATCHES] if anchor is not None else []


def _anchor(obj: Any) -> Any:
    """What ``unmend(obj)`` finds its patches under: a module itself, else the
    function ``obj`` resolves to (a bound method is a new object each time)."""
    return obj if isinstance(obj, torch.nn.Module) else resolve_quietly(obj)


def _remember(obj: Any, functions: list[types.FunctionType]) -> None:
    anchor = _anchor(obj)
    if anchor is None or not functions:
        return
    owned = _OWNED.setdefault(anchor, [])
    owned.extend(f for f in functions if f not in owned)


def mend_sites(
    sites: Iterable[tuple[str, int]],
    candidates: Iterable[Any],
    *,
    modules: str | Iterable[str] | None = None,
    rules: Iterable[str] | None = None,
    anchor: Any = None,
) -> list[types.FunctionType]:
    """Mend the statements at ``sites`` (file, line), as a diagnosis reported
    them, in the live functions that contain them.

    A site's function is looked for among ``candidates`` (e.g. a model's
    methods) and then in the module whose ``__file__`` is the site's file; a
    site inside a nested function mends the live function around it, whose
    code holds the nested one's.  With ``modules`` (module-name prefixes),
    only functions defined in those modules are mended.  ``unmend(anchor)``
    undoes it.
    """
    prefixes = None if modules is None else discover.prefixes(modules, "")
    with LOCK:
        by_function: dict[types.FunctionType, set[int]] = {}
        pool = discover.live_functions(candidates)
        for filename, lineno in sites:
            function, statement_line = discover.function_at(filename, lineno, pool)
            if function is None:
                logger.debug("graphmend: no live function holds %s:%d; not mended", filename, lineno)
                continue
            if prefixes is not None and not discover.matches(discover.module_name(function), prefixes):
                _skip(function, f"outside the modules named {prefixes}")
                continue
            by_function.setdefault(function, set()).add(statement_line)
        patched = _mend_functions(((f, frozenset(ls)) for f, ls in by_function.items()), rules)
        _remember(anchor, patched)
        return patched


def unmend(obj: Any) -> Any:
    """Undo ``mend`` (and ``graphmend.compile``'s mending) of ``obj``; returns ``obj``."""
    with LOCK:
        function = resolve_quietly(obj)
        anchor = _anchor(obj)
        owned = _OWNED.pop(anchor, []) if anchor is not None else []
        for mended in [*owned, function]:
            if mended in PATCHES:
                swap.restore(mended)
    return obj


def unmend_functions(functions: Iterable[types.FunctionType]) -> None:
    """Undo the mending of these functions alone."""
    with LOCK:
        for function in functions:
            if function in PATCHES:
                swap.restore(function)


def mended_source(obj: Any) -> str:
    """The mended source of a mended function (or of a module's ``forward``)."""
    # A mended function is itself, even when it wraps another
    # (``__wrapped__``) that resolving would follow.
    function = obj if isinstance(obj, types.FunctionType) and obj in PATCHES else resolve_quietly(obj)
    patch = PATCHES.get(function) if function is not None else None
    if patch is None:
        raise GraphmendError(f"{describe(obj)} is not mended")
    return patch.mended_source


@contextlib.contextmanager
def preserved() -> Iterator[None]:
    """Mend and unmend at will inside: afterwards every function runs the
    code it ran before, mended or not, and ``unmend`` finds what it found.

    A diagnosis of what ``graphmend.compile`` runs mends the code it
    traces; the user's functions must not stay mended by it, nor lose the
    mending their own compiled objects made (whose code objects hold their
    Dynamo entries: the same code object is put back)."""
    with LOCK:
        saved = {function: (function.__code__, patch, {name: function.__globals__[name] for name in patch.injected})
                 for function, patch in PATCHES.items()}
        owned = {anchor: list(functions) for anchor, functions in _OWNED.items()}
    try:
        yield
    finally:
        with LOCK:
            for function in [f for f, patch in PATCHES.items() if saved.get(f, (None, None))[1] is not patch]:
                swap.restore(function)
            for function, (code, patch, bindings) in saved.items():
                if function not in PATCHES:
                    swap.apply(function, code, patch.mended_source, patch.coverage, bindings)
            _OWNED.clear()
            _OWNED.update(owned)


def mended_statement(filename: str, lineno: int) -> str | None:
    """The code a mended function runs for the statement at ``filename:lineno``
    (the lines the rewrite put in its place), or None where no live function
    holding it is mended or the rewrite left it as it was."""
    parsed = parse_file(filename)
    statement = parsed.statement_at(lineno) if parsed is not None else None
    if statement is None:
        return None
    with LOCK:
        by_first_line = {patch.original_code.co_firstlineno: patch for patch in PATCHES.values()
                         if patch.original_code.co_filename == filename}
    for node in sorted(parsed.defs_around(lineno), key=first_line, reverse=True):  # innermost first
        patch = by_first_line.get(first_line(node))
        if patch is None:
            continue
        before = textwrap.dedent("".join(parsed.lines[first_line(node) - 1 : node.end_lineno])).splitlines()
        after = patch.mended_source.splitlines()
        mapping = line_map(before, after, first_line(node))
        lines = [line for line, source in zip(after, mapping) if statement.lineno <= source <= statement.end_lineno]
        original = [line.strip() for line in parsed.lines[statement.lineno - 1 : statement.end_lineno]]
        return textwrap.dedent("\n".join(lines)) if [line.strip() for line in lines] != original else None
    return None


def show(obj: Any) -> str:
    """Print the mended source of a mended function, and return it."""
    source = mended_source(obj)
    print(source, end="" if source.endswith("\n") else "\n")
    return source
