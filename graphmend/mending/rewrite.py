"""Step 2 of mending: the rules on the skeleton of each file's functions.

The functions to mend in one file are planned together (:func:`plan_file`):
those whose source matches the loaded code and that might hold a site, inside
a skeleton of their file (:mod:`graphmend.analysis.source`: the prelude, and
the functions inside their class headers), with the message helpers and
callee summaries read from live objects (:mod:`.callees`).  Then each
skeleton's rewrite comes from the cache (:mod:`.cache`), from the helper
process (:mod:`.sidecar`), or from :func:`graphmend.pipeline.transform_skeleton`
run here (:class:`Rewrites`).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import linecache
import logging
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from graphmend import compat
from graphmend.compat.codes import fingerprint
from graphmend.analysis.scan import might_hold_site
from graphmend.analysis.source import ParsedFile, Skeleton, Unit, parse_file
from graphmend.analysis.summaries import Summarizer
from graphmend.conventions import RUNTIME_ALIAS, RUNTIME_MODULE
from graphmend.errors import SourceError
from graphmend.mending import cache
from graphmend.mending.callees import callee_summaries_of, effect_helpers_of
from graphmend.mending.resolve import left_alone
from graphmend.mending.scope import compile_in_scope
from graphmend.mending.sidecar import Sidecar, SidecarFailed
from graphmend.mending.swap import Coverage
from graphmend.rules.options import RuleOptions, built_in

logger = logging.getLogger("graphmend")


def runtime_bindings(code_text: str) -> dict[str, Any]:
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
class FilePlan:
    """One file's functions to mend, up to the skeleton the rules rewrite."""

    filename: str
    # The file's lines and imported names, not its parse tree: a plan may
    # wait past the first call for Dynamo to meet its functions, and the
    # trees of the files a call reaches are most of the objects the cyclic
    # collector would walk meanwhile.
    lines: list[str]
    imported: frozenset[str]
    targets: list[tuple[types.FunctionType, ast.AST, Unit, Coverage]]
    skeleton: Skeleton
    options: RuleOptions
    rule_names: tuple[str, ...]

    def by_unit(self) -> list[FilePlan]:
        """This plan as one plan per unit of its skeleton (a def, or a
        compound statement holding defs), each rewritten alone.  The rules
        read one unit at a time (each function's facts, the file's names,
        the callees' summaries), so each unit comes out as it does in the
        whole skeleton; but a function met while the others are still being
        rewritten waits for its own unit only (transformers'
        ``generation/utils.py``: 2.7 s of rules for thirty methods, 0.33 s
        for ``generate``)."""
        if len(self.skeleton.units) < 2:
            return [self]
        return [
            dataclasses.replace(self, skeleton=self.skeleton.subset([unit], prelude_read=True), targets=[
                target for target in self.targets if unit.start <= target[1].lineno <= unit.end])
            for unit in self.skeleton.units
        ]

    def cache_key(self, off: Iterable[str] = ()) -> str:
        return cache.cache_key(
            self.skeleton.text,
            rules=[rule for rule in self.rule_names if rule not in off],
            lines=self.options.lines,
            also_static=self.options.also_static,
            extra=[*sorted(self.options.effect_helpers),
                   *sorted(f"{name}: {summary}" for name, summary in self.options.callees)],
        )


def plan_file(filename: str, requests: list[tuple[types.FunctionType, Coverage]],
              rule_names: tuple[str, ...]) -> FilePlan | None:
    """The skeleton of the functions in one file (all matched statically or
    none) that the rules may change; ``None`` when there are none."""
    parsed = _source_of(filename, requests[0][0].__globals__)
    if parsed is None:
        for function, _ in requests:
            left_alone(function, "no source (defined by exec/compile, or the file is gone, or it does not parse)")
        return None
    helpers = parsed.effect_helpers | effect_helpers_of(f for f, _ in requests)
    targets: list[tuple[types.FunctionType, ast.AST, Unit, Coverage]] = []
    for function, coverage in requests:
        node = parsed.def_of(function.__code__)
        if node is None:
            left_alone(function, "its source does not match the loaded code (file edited since import?)")
            continue
        if not coverage.lines and built_in(rule_names) and not might_hold_site(node, helpers):
            left_alone(function, "no rule has a site in it")
            continue
        unit = parsed.unit_of(node)
        original = compile_in_scope(node, function, unit.scope_class, parsed.imported)  # leaves the tree as it is
        if fingerprint(original) != fingerprint(function.__code__):
            left_alone(function, "its source does not compile to the loaded code (file edited since import?)")
            continue
        targets.append((function, node, unit, coverage))
    if not targets:
        return None
    summarizer = Summarizer()  # the functions they call, each read once
    callees = frozenset().union(*(callee_summaries_of(f, summarizer) for f, *_ in targets))
    static = targets[0][3].static
    lines = frozenset().union(*(coverage.lines for *_, coverage in targets))
    options = RuleOptions(rules=frozenset(rule_names), lines=lines if lines or not static else None,
                          also_static=static and bool(lines), effect_helpers=helpers, callees=callees)
    return FilePlan(filename, parsed.lines, parsed.imported, targets, parsed.skeleton(unit for _, _, unit, _ in targets),
                    options, rule_names)


class Rewrites:
    """Each plan's rewritten skeleton (or why the rules failed on it), from
    the cache, the helper process or the rules run here.  ``plans`` are
    taken as they are made: each is sent to the helper before the next is
    planned.  In a process's first mend, compat is installed (its
    self-test run) while the helper works: a rule it turns off does not
    apply, and a helper's answer made with it is not used.  Once compat is
    installed, the helper is sent only the rules it leaves on.
    ``while_waiting`` is called once, before any helper's answer is read,
    when there are any to wait for."""

    def __init__(self, plans: Iterable[FilePlan], sidecar: Sidecar | None,
                 while_waiting: Callable[[], Any] | None) -> None:
        self.plans: list[FilePlan] = []
        self._sidecar = sidecar
        self._sent_off = set(compat.rules_off(_runtime())) if compat.installed() else set()
        self._cached: list[str | None] = []
        self._tickets: dict[int, int] = {}
        for plan in plans:  # sent as each comes: the helper rewrites it while the next is planned
            self.plans.append(plan)
            self._cached.append(cache.load(plan.cache_key(self._sent_off)))
            if sidecar is not None and self._cached[-1] is None:
                self._tickets[len(self.plans) - 1] = sidecar.submit(
                    plan.skeleton, self._options(plan, self._sent_off), plan.filename)
        self._off = set(compat.rules_off(_runtime())) if self.plans else self._sent_off
        if self._tickets and while_waiting is not None:
            while_waiting()

    @staticmethod
    def _options(plan: FilePlan, off: set[str]) -> RuleOptions:
        return dataclasses.replace(plan.options, rules=plan.options.rules - off) if off else plan.options

    def _stale(self, index: int) -> bool:
        """Whether a rule compat turned off after the helper was asked applies
        to plan ``index``: another cache entry, and not the helper's answer."""
        return bool((self._off - self._sent_off) & self.plans[index].options.rules)

    def from_helper(self, index: int) -> bool:
        """Whether plan ``index``'s text is the helper's answer, which
        :meth:`text` may wait for."""
        return index in self._tickets and not self._stale(index)

    def text(self, index: int) -> str | SourceError:
        """Plan ``index``'s rewritten skeleton, or why the rules failed on it
        (asked once per plan: the helper's answer is handed over once)."""
        plan, stale = self.plans[index], self._stale(index)
        text = cache.load(plan.cache_key(self._off)) if stale else self._cached[index]
        if text is not None:
            return text
        if self.from_helper(index):
            try:
                text = self._sidecar.result(self._tickets[index])
            except SidecarFailed as why:
                logger.debug("graphmend: the helper process did not rewrite %s (%s); rewriting here",
                             plan.filename, why)
        if text is None:
            from graphmend.pipeline import transform_skeleton

            try:
                text = transform_skeleton(plan.skeleton, self._options(plan, self._off), plan.filename).code
            except SourceError as err:
                return err
        cache.store(plan.cache_key(self._off), text)
        return text
