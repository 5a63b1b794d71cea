"""Mend live functions in memory: ``mend``, ``mend_sites``, ``unmend``, ``show``.

How a function is mended, one module per step:

1. :mod:`graphmend.mending.resolve` -- the Python function whose code changes.
2. :mod:`graphmend.mending.rewrite` -- the rules on the skeleton of its file
   (:func:`graphmend.pipeline.transform_skeleton`), cached on disk and run
   in a helper process while this one works.
3. :mod:`graphmend.mending.scope` -- each rewritten def compiled in a scope
   that reproduces the original's, at the file's line numbers.
4. :mod:`graphmend.mending.swap` -- ``__code__`` swapped in place, and undone.

graphmend.compile's first mend does not wait for the helper process's
rewrites (step 2) before the call starts, but for those of the call's
first frames (:func:`_first_frames`).  The helper rewrites one unit (a
def) at a time, in the order a call is likely to meet them, and answers
first the one this process waits for; each other function is finished
(steps 3 and 4) when Dynamo first meets it (:class:`_Awaited`, through
:func:`graphmend.compat.await_mending`), in the first call or a later
one, and all of them when an entry point here needs them (:func:`settle`).
xitorch's minimiser reaches twelve functions to mend and runs none of
them; transformers' ``generate`` reaches thirty methods of one file, the
beam searches among them, which a sampling call never runs; Chronos's
``encode`` reaches 179 units of 34 files (pandas' ``DataFrame`` among
them) and meets none.

Which functions ``mend(model)`` reaches is :mod:`graphmend.mending.reach`'s
(with ``modules=``, :mod:`graphmend.mending.search`'s; for a reported site,
:mod:`graphmend.mending.sites`'s).  torch, the standard library and
graphmend itself are never mended (:mod:`graphmend.mending.foreign`).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import functools
import heapq
import itertools
import logging
import os
import sys
import textwrap
import types
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from graphmend.analysis.source import collector_paused, first_line, forget_parsed, line_map, parse_file
from graphmend import compat
from graphmend.compat.identity import KEPT_ORIGINAL, runs_at
from graphmend.errors import GraphmendError, SourceError
from graphmend.mending import search, swap
from graphmend.mending.foreign import foreign, module_name
from graphmend.mending.reach import called_in_place, reach
from graphmend.mending.resolve import (Unmendable, chain, check_rebuildable, describe, left_alone, resolve,
                                      resolve_quietly)
from graphmend.mending.rewrite import FilePlan, Rewrites, plan_file, runtime_bindings
from graphmend.mending.scope import mended_code, move_to_file_lines
from graphmend.mending.sidecar import Sidecar, worthwhile
from graphmend.mending.sites import function_at
from graphmend.mending.swap import LOCK, MENDED, Coverage
from graphmend.rules.options import select_rules

logger = logging.getLogger("graphmend")

# What each object given to ``mend`` caused to be mended, for ``unmend``.
_OWNED: weakref.WeakKeyDictionary[Any, list[types.FunctionType]] = weakref.WeakKeyDictionary()


def _defs_by_name(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every def in ``tree`` by name, in source order."""
    defs: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node)
    for same_name in defs.values():
        same_name.sort(key=lambda n: (n.lineno, n.col_offset))
    return defs


def _finish_file(plan: FilePlan, mended_text: str | SourceError,
                 previous: dict[types.FunctionType, tuple[str, types.CodeType, Coverage]]) -> list[types.FunctionType]:
    """Compile and swap in each planned function's rewritten def.  A
    function mended again (``previous``: its earlier mended source and code)
    whose rewrite came out the same gets its earlier code back, so what
    Dynamo compiled for it stays valid."""
    targets, filename = plan.targets, plan.filename
    if mended_text == plan.skeleton.text:  # most units a call reaches: no parse needed to say so
        for function, *_ in targets:
            left_alone(function, "no rewrite applies to it")
        return []
    try:
        if isinstance(mended_text, SourceError):
            raise mended_text
        skeleton_tree = ast.parse(plan.skeleton.text, filename)
        mended_tree = ast.parse(mended_text, filename)
    except (SourceError, SyntaxError) as err:
        for function, *_ in targets:
            left_alone(function, f"the rules failed on {filename}: {err}")
        return []

    to_skeleton = plan.skeleton.to_skeleton()
    mended_lines = mended_text.splitlines(keepends=True)
    skeleton_defs, mended_defs = _defs_by_name(skeleton_tree), _defs_by_name(mended_tree)
    mended = []
    for function, target, unit, coverage in targets:
        try:
            name = function.__code__.co_name
            # The rules add no defs, so the n-th def of a name stays the n-th.
            ordinal = [first_line(n) for n in skeleton_defs[name]].index(to_skeleton[first_line(target)])
            node = mended_defs[name][ordinal]
            before = plan.lines[first_line(target) - 1 : target.end_lineno]
            after = mended_lines[first_line(node) - 1 : node.end_lineno]
            if before == after:
                raise Unmendable("no rewrite applies to it")
            # Moved to file lines in place, so each target gets its own copy:
            # one target may be nested in another, and closures made by one
            # factory (a wrapper each subclass gets) share one def.
            node = copy.deepcopy(node)
            move_to_file_lines(node, line_map(before, after, first_line(target)), first_line(node))
            bindings = runtime_bindings("".join(after))
            source = textwrap.dedent("".join(after))
            earlier_source, earlier_code, _ = previous.get(function, (None, None, None))
            code = earlier_code if source == earlier_source else mended_code(
                function, node, unit.scope_class, set(plan.imported) | set(bindings))
            swap.apply(function, code, source, coverage, bindings)
        except Unmendable as why:
            left_alone(function, str(why))
            continue
        mended.append(function)
    return mended


@contextlib.contextmanager
def _file_failure(filename: str) -> Iterator[None]:
    """A bug in a rule or here must not break the user's program."""
    try:
        yield
    except Exception:
        logger.warning("graphmend: mending functions in %s failed; left unchanged", filename, exc_info=True)


@dataclasses.dataclass
class _Awaited:
    """Units the helper process is still rewriting, in graphmend.compile's
    first mend (a file's, or one def's: :meth:`FilePlan.by_unit`): each is
    finished when Dynamo first meets one of its functions (:func:`_met`),
    in the first call or a later one, and all of them by :func:`settle`
    (every entry point here but ``mend_sites`` and ``mending_now``).  A
    function Dynamo has not met has run only eagerly, if at all, where its
    original code does what the mended code does; so it can take its
    mended code at any time, and no graph is compiled for code that is
    then replaced."""

    rewrites: Rewrites
    sidecar: Sidecar | None
    anchor: Callable[[], Any]  # what ``unmend`` finds the functions under (weakly: the call may be the last)
    plans: dict[int, FilePlan]  # by index in ``rewrites``
    by_function: dict[types.FunctionType, int]
    by_code: dict[types.CodeType, int]  # the original codes, for frames Dynamo starts at

    def finish(self, index: int) -> None:
        plan = self.plans.pop(index)
        for function, *_ in plan.targets:
            del self.by_function[function]
            self.by_code.pop(function.__code__, None)
        with _file_failure(plan.filename):
            mended = _finish_file(plan, self.rewrites.text(index), {})
            if mended:
                logger.debug("graphmend: mended %s (awaited)", sorted(f.__qualname__ for f in mended))
            _remember_under(self.anchor(), mended)


_AWAITED: _Awaited | None = None


def _forget_awaited_in_child() -> None:
    """In a forked child (a ``fork`` start method's worker): no thread reads
    the helper's answers there (threads are not forked), so waiting for one
    would hang.  What is still awaited keeps its original code in the
    child; nothing is locked here, as a lock another thread held at the
    fork stays held in the child."""
    global _AWAITED
    _AWAITED = None
    compat.await_mending(None)


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_forget_awaited_in_child)


def _met(obj: Any) -> bool:
    """Dynamo met ``obj``: a function it is about to trace, or the code of
    a frame it is about to start.  Its file, if still being rewritten, is
    finished now; whether it was (a frame so met runs its original code:
    Dynamo should not compile it)."""
    with LOCK:
        awaited = _AWAITED
        if awaited is None:
            return False
        if isinstance(obj, types.CodeType):
            index = awaited.by_code.get(obj)
        else:  # Dynamo's function variables hold TorchScript functions too
            index = awaited.by_function.get(obj) if isinstance(obj, types.FunctionType) else None
        if index is None:
            return False
        awaited.finish(index)
        if not awaited.plans:
            settle()
        return True


def settle() -> None:
    """Finish every file still being rewritten (waiting for the helper)."""
    with LOCK:
        awaited = _stop_awaiting()
        if awaited is None:
            return
        try:
            with collector_paused():
                for index in list(awaited.plans):
                    awaited.finish(index)
        finally:
            if awaited.sidecar is not None:
                awaited.sidecar.close()


def _stop_awaiting() -> _Awaited | None:
    """The units still awaited, no longer finished as Dynamo meets them."""
    global _AWAITED
    with LOCK:
        awaited, _AWAITED = _AWAITED, None
        if awaited is not None:
            compat.await_mending(None)
        return awaited


def _settled(function: Callable[..., Any]) -> Callable[..., Any]:
    """Public entry points see every file finished."""

    @functools.wraps(function)
    def settled(*args: Any, **kwargs: Any) -> Any:
        settle()
        return function(*args, **kwargs)

    return settled


def _roots(obj: Any) -> list[types.FunctionType]:
    """The functions a call of ``obj`` enters first."""
    while isinstance(obj, functools.partial):
        obj = obj.func
    try:
        return chain(obj)
    except Unmendable:
        return []


def _first_frames(obj: Any) -> set[types.FunctionType]:
    """The functions a call of ``obj`` starts in: Dynamo's first frame, and
    for a module's method called in place of its forward (peft's
    ``model.generate``), the model's methods it names itself: it breaks
    early (peft's hooks' ``with``) and Dynamo starts frames in them
    without having met them.  What those call, Dynamo meets as it traces
    them (:func:`_met`)."""
    first = _roots(obj)
    named = set().union(*(search.code_names(f.__code__, variables=True) for f in first))
    return set(first) | {f for f in called_in_place(obj) if f.__name__ in named}


def _planned(filename: str, group: list[tuple[types.FunctionType, Coverage]],
             rule_names: tuple[str, ...]) -> FilePlan | None:
    with _file_failure(filename):
        return plan_file(filename, group, rule_names)
    return None  # the rules failed on the file: logged, its functions left as they are


def _in_order_met(groups: dict[tuple[str, bool], list[tuple[types.FunctionType, Coverage]]],
                  rule_names: tuple[str, ...], first_frames: set[types.FunctionType],
                  roots: list[types.FunctionType], reached: list[types.FunctionType]) -> Iterator[FilePlan]:
    """The plans of ``groups`` for graphmend.compile's first mend with a
    helper: one per unit (:meth:`FilePlan.by_unit`), those holding a first
    frame first (the call starts once they are in place), then those
    ``roots`` name, breadth first by name, a class's name naming its
    constructor (a call roughly meets them in that order, and the helper
    answers in order), then the rest of ``reached`` in order.  The files
    are planned in that order too, and a unit is handed out as soon as no
    file still to plan can hold one that comes before it: the helper
    rewrites the first while this process plans the rest (it sat idle for
    the second that planning transformers' ``generate`` takes)."""
    order = search.called_by_name(reached, roots, constructors=True) + reached
    rank: dict[types.FunctionType, int] = {}
    for index, function in enumerate(order):
        rank.setdefault(function, index)

    def place(functions: list[types.FunctionType]) -> tuple[bool, int]:
        return first_frames.isdisjoint(functions), min(rank.get(f, len(rank)) for f in functions)

    files = sorted(((place([function for function, _ in group]), filename, group)
                    for (filename, _), group in groups.items()), key=lambda file: file[0])
    planned: list[tuple[tuple[bool, int], int, FilePlan]] = []  # a heap; the count keeps equal places in order
    count = itertools.count()
    for position, (_, filename, group) in enumerate(files):
        bound = files[position + 1][0] if position + 1 < len(files) else None  # the next file's place
        plan = _planned(filename, group, rule_names)
        for unit in plan.by_unit() if plan is not None else ():
            if unit.targets:
                heapq.heappush(planned, (place([function for function, *_ in unit.targets]), next(count), unit))
        while planned and (bound is None or planned[0][0] < bound):
            yield heapq.heappop(planned)[2]


def _rule_names(rules: Iterable[str] | None) -> tuple[str, ...]:
    # A rule plugged into the pipeline is there; without the pipeline imported
    # (LibCST, which a cold first mend leaves to the helper) there are only the built-in ones.
    pipeline = sys.modules.get("graphmend.pipeline")
    return select_rules(rules, pipeline.RULE_NAMES) if pipeline is not None else select_rules(rules)


def start_helper(rules: Iterable[str] | None) -> Sidecar | None:
    """A helper process running ``rules``, where one saves this process
    time (:func:`~graphmend.mending.sidecar.worthwhile`), else ``None``.
    graphmend.compile's first call starts one, hands it to every
    :func:`mend` and :func:`mend_sites` of that call and closes it: the
    sites the call meets are rewritten where LibCST is already imported,
    not by importing it here (0.9 s)."""
    return Sidecar.start() if worthwhile(_rule_names(rules)) else None


def _mend_functions(requests: Iterable[tuple[types.FunctionType, Coverage]], rules: Iterable[str] | None,
                    while_waiting: Callable[[], Any] | None = None, *,
                    lazily_for: Any = None, helper: Sidecar | None = None) -> list[types.FunctionType]:
    """Mend each (function, what to mend in it); the functions now mended
    (new or before).
    With ``lazily_for`` (the object graphmend.compile compiles), the files
    the helper process rewrites are finished later (:class:`_Awaited`),
    but the one holding the first frame of its call.  ``helper`` is a
    helper process the caller started and closes; without one, a first
    mend starts its own."""
    global _AWAITED
    first_frames = _first_frames(lazily_for) if lazily_for is not None else set()
    rule_names = _rule_names(rules)
    merged: dict[types.FunctionType, Coverage] = {}
    for function, wanted in requests:
        merged[function] = merged[function] | wanted if function in merged else wanted
    done: list[types.FunctionType] = []
    groups: dict[tuple[str, bool], list[tuple[types.FunctionType, Coverage]]] = {}
    previous: dict[types.FunctionType, tuple[str, types.CodeType, Coverage]] = {}  # mended again
    for function, wanted in merged.items():
        if foreign(function):
            left_alone(function, "torch's, the standard library's or graphmend's own code: never mended")
            continue
        kept = _kept_original(function)
        if kept is not None:
            left_alone(function, kept)
            continue
        swapped = MENDED.get(function)
        if swapped is not None:
            if swapped.coverage.covers(wanted):
                done.append(function)
                continue
            wanted = wanted | swapped.coverage
            previous[function] = (swapped.mended_source, function.__code__, swapped.coverage)
            swap.restore(function)
        try:
            check_rebuildable(function)
        except Unmendable as why:
            left_alone(function, str(why))
            continue
        groups.setdefault((function.__code__.co_filename, wanted.static), []).append((function, wanted))
    # The helper starts first: it imports LibCST while this process parses.
    own_helper = helper is None and bool(groups) and worthwhile(rule_names)
    sidecar = Sidecar.start() if own_helper else helper
    awaited = None
    try:
        with collector_paused():
            if lazily_for is not None and sidecar is not None and not previous:
                plans = _in_order_met(groups, rule_names, first_frames, _roots(lazily_for), list(merged))
            else:
                plans = (plan for (filename, _), group in groups.items()
                         if (plan := _planned(filename, group, rule_names)) is not None)
            rewrites = Rewrites(plans, sidecar, while_waiting)  # each plan sent to the helper as it is made
            if rewrites.plans:
                # Only a first mend has a helper, and nothing mended before.
                if lazily_for is not None and not previous and compat.awaits_mending():
                    awaited = _Awaited(rewrites, sidecar if own_helper else None, _weak_anchor(lazily_for), {}, {}, {})
                for index, plan in enumerate(rewrites.plans):
                    if awaited is not None and rewrites.from_helper(index) \
                            and first_frames.isdisjoint(function for function, *_ in plan.targets):
                        awaited.plans[index] = plan
                        for function, *_ in plan.targets:
                            awaited.by_function[function] = index
                            awaited.by_code[function.__code__] = index
                        continue
                    with _file_failure(plan.filename):
                        done.extend(_finish_file(plan, rewrites.text(index), previous))
        for function, (source, code, coverage) in previous.items():
            if function not in MENDED:  # mending it again failed: it keeps its earlier mending
                swap.apply(function, code, source, coverage, runtime_bindings(source))
                done.append(function)
    finally:
        if awaited is not None and awaited.plans:
            _AWAITED = awaited
            compat.await_mending(_met)
        elif own_helper and sidecar is not None:
            sidecar.close()
    return done


# -- public API -----------------------------------------------------------------------


@_settled
def mend(obj: Any, *, modules: str | Iterable[str] | None = None, rules: Iterable[str] | None = None,
         only_modules: bool = False, args: Iterable[Any] = (),
         while_waiting: Callable[[], Any] | None = None, lazily: bool = False,
         helper: Sidecar | None = None) -> Any:
    """Rewrite ``obj`` in memory, in place, so Dynamo meets fewer graph breaks.

    A function comes back as itself, its code mended and ``__wrapped__`` set
    to a copy running the original code.  An ``nn.Module`` comes back as
    itself with ``forward`` mended too.  By default every function a call
    of ``obj`` reaches is mended (:mod:`graphmend.mending.reach`: through globals,
    closures, attributes, submodules, base classes and wrappers, across
    modules and libraries; ``args``, the call's arguments, may hold more,
    such as the model a step function is given); ``modules`` (module-name
    prefixes) limits mending to the functions defined there.  Anything that
    cannot be mended comes back unchanged, the reason logged at debug level
    on the ``graphmend`` logger.  ``rules`` selects rules by name (default:
    all).  With ``only_modules``, ``obj``'s own function is mended only if
    it lies in ``modules`` too.  ``while_waiting`` is work the caller needs
    done anyway, called while a helper process rewrites
    (:mod:`graphmend.mending.sidecar`; ``graphmend.compile`` imports its backend
    there).  With ``lazily`` (``graphmend.compile``'s first mend), the
    files the helper still rewrites when the call starts are finished as
    Dynamo meets their functions, and by :func:`settle`; every other entry
    point here settles first.  ``helper`` (:func:`start_helper`) is the
    helper process to rewrite in, which the caller closes.  Raises
    :class:`GraphmendError` only for an ``obj`` that is not callable.
    """
    if not callable(obj) and not isinstance(obj, (staticmethod, classmethod)):
        raise GraphmendError(f"mend() needs a function or an nn.Module, not {type(obj).__name__}")
    with LOCK:
        if modules is None:
            functions = reach(obj, args).functions
            if not functions:
                try:
                    resolve(obj)
                    left_alone(obj, "it reaches no Python function outside torch, graphmend and the standard library")
                except Unmendable as why:
                    left_alone(obj, str(why))
        else:
            prefixes = search.prefixes(modules, "")
            if isinstance(obj, torch.nn.Module):
                candidates = search.called_by_name(search.model_functions(obj, prefixes), search.forward_roots(obj))
            else:
                candidates = search.functions_in_modules(prefixes)
            try:
                own = [resolve(obj)]  # a module's forward, or the function itself
            except Unmendable as why:
                left_alone(obj, str(why))
                own = []
            if only_modules:
                own = [f for f in own if search.matches(module_name(f), prefixes)]
            functions = own + search.functions_behind_in(candidates, prefixes)
        requests = [(function, Coverage(static=True)) for function in dict.fromkeys(functions)]
        mended = _mend_functions(requests, rules, while_waiting, lazily_for=obj if lazily else None, helper=helper)
        logger.debug("graphmend: mended %s", sorted(f.__qualname__ for f in mended))
        _remember(obj, mended)
        if lazily:  # the call follows at once: no parse tree of the files it reaches is kept for it
            forget_parsed()
    return obj


@_settled
def mended_functions(obj: Any) -> list[types.FunctionType]:
    """The functions mending ``obj`` mended (and still mended)."""
    anchor = _anchor(obj)
    return [f for f in _OWNED.get(anchor, []) if f in MENDED] if anchor is not None else []


def mending_now() -> dict[types.FunctionType, str]:
    """Each mended function and its mended source, as they are now: in
    graphmend.compile's first call, without waiting for the files still
    being rewritten (their functions run their original code)."""
    with LOCK:
        return {function: swapped.mended_source for function, swapped in MENDED.items()}


def _anchor(obj: Any) -> Any:
    """What ``unmend(obj)`` finds what it mended under: a module itself, else the
    function ``obj`` resolves to (a bound method is a new object each time)."""
    return obj if isinstance(obj, torch.nn.Module) else resolve_quietly(obj)


def _weak_anchor(obj: Any) -> Callable[[], Any]:
    anchor = _anchor(obj)  # a module or a function: weakly referable, as _OWNED's keys are
    return (lambda: None) if anchor is None else weakref.ref(anchor)


def _remember(obj: Any, functions: list[types.FunctionType]) -> None:
    _remember_under(_anchor(obj), functions)


def _remember_under(anchor: Any, functions: list[types.FunctionType]) -> None:
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
    helper: Sidecar | None = None,
    also_static: bool = False,
) -> list[types.FunctionType]:
    """Mend the statements at ``sites`` (file, line), as a diagnosis reported
    them, in the live functions that contain them.

    A site's function is looked for among ``candidates`` (e.g. a model's
    methods) and then in the module whose ``__file__`` is the site's file; a
    site inside a nested function mends the live function around it, whose
    code holds the nested one's.  With ``modules`` (module-name prefixes),
    only functions defined in those modules are mended.  With
    ``also_static``, each such function is mended at the sites the rules
    match statically too, as :func:`mend` mends what a call reaches.
    ``unmend(anchor)`` undoes it.  ``helper``: as for :func:`mend`.  In
    graphmend.compile's first call, only the functions it mends are
    finished first if their files are still being rewritten
    (:class:`_Awaited`), not every file.
    """
    prefixes = None if modules is None else search.prefixes(modules, "")
    with LOCK:
        by_function: dict[types.FunctionType, set[int]] = {}
        pool = search.functions_behind(candidates)
        for filename, lineno in sites:
            function, statement_line = function_at(filename, lineno, pool)
            if function is None:
                logger.debug("graphmend: no live function holds %s:%d; not mended", filename, lineno)
                continue
            if prefixes is not None and not search.matches(module_name(function), prefixes):
                left_alone(function, f"outside the modules named {prefixes}")
                continue
            by_function.setdefault(function, set()).add(statement_line)
        for function in by_function:
            _met(function)
        requests = ((f, Coverage(also_static, frozenset(ls))) for f, ls in by_function.items())
        mended = _mend_functions(requests, rules, helper=helper)
        _remember(anchor, mended)
        return mended


@_settled
def unmend(obj: Any) -> Any:
    """Undo ``mend`` (and ``graphmend.compile``'s mending) of ``obj``; returns ``obj``."""
    with LOCK:
        function = resolve_quietly(obj)
        anchor = _anchor(obj)
        owned = _OWNED.pop(anchor, []) if anchor is not None else []
        for mended in [*owned, function]:
            if mended in MENDED:
                swap.restore(mended)
    return obj


@_settled
def unmend_functions(functions: Iterable[types.FunctionType]) -> None:
    """Undo the mending of these functions alone."""
    with LOCK:
        for function in functions:
            if function in MENDED:
                swap.restore(function)


#: Why a function :func:`keep_original_behind` gave back its original code
#: is not mended again.
PER_CALL_IDENTITY = ("its mended code moved an identity guard on an object built per call (a copy.deepcopy's) "
                     "into its caller's frame, which Dynamo then traced at every call; its break keeps the guard "
                     "in a frame of its own, as under torch.compile")


#: Where an earlier process gave a function back its original code
#: (file, first line of its def), by graphmend.compile's record: a function
#: found there is not mended (:func:`_kept_original`).
_KEPT_AT: dict[tuple[str, int], str] = {}


def location(function: types.FunctionType) -> tuple[str, int]:
    """Where ``function``'s original code lies: its file and first line."""
    code = swap.original_code(function)
    return code.co_filename, code.co_firstlineno


def keep_original_at(locations: Iterable[tuple[str, int]]) -> None:
    """Never mend the functions at ``locations`` (file, first line) in this
    process: functions an earlier process gave back their original code
    (:func:`keep_original_behind`), so that this one pays no retraces to
    find out again."""
    with LOCK:
        for place in locations:
            _KEPT_AT.setdefault(place, PER_CALL_IDENTITY)


def _kept_original(function: types.FunctionType) -> str | None:
    """Why ``function`` keeps its original code, or None where it may be
    mended; one found by its location joins :data:`KEPT_ORIGINAL`, where a
    diagnosis names it."""
    why = KEPT_ORIGINAL.get(function)
    if why is None and _KEPT_AT:
        why = _KEPT_AT.get(location(function))
        if why is not None:
            KEPT_ORIGINAL[function] = why
    return why


def keep_original_behind(stacks: Iterable[Any]) -> list[types.FunctionType]:
    """Give back its original code, for good in this process, to each
    mended function that installed two or more of the failed identity
    guards ``stacks`` (user stacks, outermost first: the frame Dynamo
    converts): the innermost mended function each stack passes through,
    other than the frame's own. Mended, it is inlined into the frame, whose
    every entry a per-call object then fails. Unmended, its break starts a
    frame of its own that holds the guard, as in torch.compile, and the
    caller's frame stays compiled. The functions given back."""
    counts: Counter[types.FunctionType] = Counter()
    with LOCK:
        for stack in stacks:
            for frame in reversed(list(stack)[1:]):
                function = next((f for f in MENDED if runs_at(f.__code__, frame.filename, frame.name, frame.lineno)),
                                None)
                if function is not None:
                    counts[function] += 1
                    break
        kept = [function for function, misses in counts.items() if misses >= 2]
        for function in kept:
            swap.restore(function)
            KEPT_ORIGINAL[function] = PER_CALL_IDENTITY
            left_alone(function, PER_CALL_IDENTITY)
    return kept


@_settled
def mended_source(obj: Any) -> str:
    """The mended source of a mended function (or of a module's ``forward``)."""
    # A mended function is itself, even when it wraps another
    # (``__wrapped__``) that resolving would follow.
    function = obj if isinstance(obj, types.FunctionType) and obj in MENDED else resolve_quietly(obj)
    swapped = MENDED.get(function) if function is not None else None
    if swapped is None:
        raise GraphmendError(f"{describe(obj)} is not mended")
    return swapped.mended_source


@contextlib.contextmanager
@_settled
def preserved() -> Iterator[None]:
    """Mend and unmend at will inside: afterwards every function runs the
    code it ran before, mended or not, and ``unmend`` finds what it found.

    A diagnosis of what ``graphmend.compile`` runs mends the code it
    traces; the user's functions must not stay mended by it, nor lose the
    mending their own compiled objects made (whose code objects hold their
    Dynamo entries: the same code object is put back)."""
    with LOCK:
        saved = {function: (function.__code__, swapped, {name: function.__globals__[name] for name in swapped.injected})
                 for function, swapped in MENDED.items()}
        owned = {anchor: list(functions) for anchor, functions in _OWNED.items()}
    try:
        yield
    finally:
        with LOCK:
            # What was mended inside and is still awaited keeps the code it has.
            dropped = _stop_awaiting()
            if dropped is not None and dropped.sidecar is not None:
                dropped.sidecar.close()
            for function in [f for f, swapped in MENDED.items() if saved.get(f, (None, None))[1] is not swapped]:
                swap.restore(function)
            for function, (code, swapped, bindings) in saved.items():
                if function not in MENDED:
                    swap.apply(function, code, swapped.mended_source, swapped.coverage, bindings)
            _OWNED.clear()
            _OWNED.update(owned)


@_settled
def mended_statement(filename: str, lineno: int) -> str | None:
    """The code a mended function runs for the statement at ``filename:lineno``
    (the lines the rewrite put in its place), or None where no live function
    holding it is mended or the rewrite left it as it was."""
    parsed = parse_file(filename)
    statement = parsed.statement_at(lineno) if parsed is not None else None
    if statement is None:
        return None
    with LOCK:
        by_first_line = {swapped.original_code.co_firstlineno: swapped for swapped in MENDED.values()
                         if swapped.original_code.co_filename == filename}
    for node in sorted(parsed.defs_around(lineno), key=first_line, reverse=True):  # innermost first
        swapped = by_first_line.get(first_line(node))
        if swapped is None:
            continue
        before = textwrap.dedent("".join(parsed.lines[first_line(node) - 1 : node.end_lineno])).splitlines()
        after = swapped.mended_source.splitlines()
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
