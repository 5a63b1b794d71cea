"""``graphmend.compile``: a drop-in for ``torch.compile`` that mends first;
``graphmend.diagnose``: what it runs, beside what ``torch.compile`` runs.

The first call mends statically, with no extra trace: every function a
call of the object reaches (:mod:`graphmend.mending.reach`: the model's
``forward``, the helpers its code names in any module or library, the
model a step function or a lambda holds or is given), every site the rules
can prove safe, reached by that input or not.  It adds the sites a
persistent record (:mod:`graphmend.mending.records`) kept from earlier processes,
then compiles with the user's keyword arguments and makes the call.
Mending costs a cheap walk over live objects, an ``ast`` scan and, the
first time a source is seen, the rules on the functions that hold sites
(run in a helper process; the call waits only for the file of its first
frame, and for each other file when Dynamo first meets one of its
functions); the rewritten sources are cached, so a second process pays
for the walk alone.  The user's backend sees only the final graphs.

The first calls are watched (Dynamo's own break records, not another
trace).  A fixable break one meets in code the static mending did not
mend -- a line the rules only try when a break points at it, such as an
``if`` on a buffer -- is mended in this process where the trace meets it
(``compat.mending_first``).  Where the site lies in a function the traced
frame calls, nothing of the frame has run yet: it is traced again with
that function's mended code inlined, and compiled in this call; where the
rules decline the site, it is traced again too and compiles as
torch.compile compiles it.  Where the site lies in the frame's own code
(a running frame keeps the code it started with), the frame is not
compiled but runs eagerly this once, so no graph is compiled for code the
next call replaces, and the *next* call, watched, compiles the mended
code; running the call again mended would repeat what it did (a training
step's update, a printed line).  The sites mended, and those declined,
are written to the record, which spares the next process those traces
and rounds.  ``diagnose=True`` runs one diagnosis trace with the real
arguments before mending instead, so that even the first call compiles
those sites, for the price of that trace.

:func:`diagnose` of what ``graphmend.compile`` returned reports what it
runs (:meth:`_FirstCall.diagnosis`): a fresh copy of it, with a private
counting backend, mends, settles and is traced as a fresh process would
run it, and the mending is undone afterwards.

The extra runs that ``diagnose=True`` and ``verify=True`` make must leave
nothing behind for the real call: they get copies of the arguments, run in
the caller's grad/autocast mode, and afterwards the RNG states, every
submodule's attributes and registered parameters, buffers and submodules
(bindings), and the buffers' values are put back.  Parameters are not
copied (that would double the memory); one that a forward modifies in
place is reported with a warning.  What they print, and the warnings they
raise, are discarded so the user sees them once; log records are not,
because ``logger.warning_once`` would remember a suppressed message and
never show it.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import importlib
import inspect
import io
import logging
import random
import sys
import threading
import weakref
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch
import torch.utils._pytree as pytree

from graphmend.compare import first_difference
from graphmend.mending import records
from graphmend.compat import capture
from graphmend.conventions import RUNTIME_MODULE
from graphmend.diagnosis import MENDED, RULE_FOR, BreakRecorder, Call, Report, call, fixable_site, short_path
from graphmend.diagnosis.recording import eager_frame_hint
from graphmend.diagnosis.report import fallback_holding
from graphmend.diagnosis import diagnose_calls as diagnose_calls_torch
from graphmend.diagnosis.tracing import argument_sets, recording_fallbacks, silenced, trace_calls
from graphmend.errors import GraphmendError, VerificationError
from graphmend.modules import submodules
from graphmend import compat
from graphmend.mending.live import (PER_CALL_IDENTITY, keep_original_at, keep_original_behind, location, mend,
                                    mend_sites, mended_functions, mended_source, mended_statement, mending_now,
                                    preserved, start_helper, unmend, unmend_functions)
from graphmend.mending.sidecar import Sidecar
from graphmend.mending.sites import code_holds
from graphmend.mending.reach import arguments_reached, reach

logger = logging.getLogger("graphmend")

_PLAIN = (bool, int, float, complex, str, bytes, type(None))


class _SavedState:
    """The state of ``obj`` that a run may change, and how to put it back."""

    _REGISTRIES = ("_parameters", "_buffers", "_modules")

    def __init__(self, obj: Any) -> None:
        self.cpu_rng = torch.random.get_rng_state()
        self.cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
        self.python_rng = random.getstate()
        modules = submodules(obj) if isinstance(obj, torch.nn.Module) else []
        # Bindings: every attribute (a forward may rebind ``self.inv_freq`` or
        # count calls in ``self.step``) and the registries' entries.
        self.bindings = [
            (module, dict(vars(module)), {r: dict(getattr(module, r)) for r in self._REGISTRIES})
            for module in modules
        ]
        # Values: buffers are copied, parameters only watched (copying them
        # would double the model's memory, and a forward rarely writes them).
        self.buffers = [
            (buffer, buffer._version, buffer.detach().clone())
            for module in modules
            for buffer in module._buffers.values()
            if buffer is not None
        ]
        self.parameters = [
            (name, parameter, parameter._version)
            for module in modules
            for name, parameter in module._parameters.items()
            if parameter is not None
        ]

    def restore(self) -> None:
        torch.random.set_rng_state(self.cpu_rng)
        if self.cuda_rng is not None:
            torch.cuda.set_rng_state_all(self.cuda_rng)
        random.setstate(self.python_rng)
        for module, attributes, registries in self.bindings:
            current = vars(module)
            for added in current.keys() - attributes.keys():
                del current[added]
            current.update(attributes)
            for registry, entries in registries.items():
                getattr(module, registry).clear()
                getattr(module, registry).update(entries)
        for buffer, version, saved in self.buffers:
            if buffer._version != version:
                with torch.no_grad():
                    buffer.copy_(saved)
        for name, parameter, version in self.parameters:
            if parameter._version != version:
                logger.warning(
                    "graphmend: the forward modified parameter %r in place while graphmend "
                    "diagnosed it; the real call sees the modified value",
                    name,
                )


def _copy_leaf(leaf: Any) -> Any:
    if isinstance(leaf, torch.Tensor):
        copied = leaf.detach().clone()
        return copied.requires_grad_(leaf.requires_grad) if leaf.requires_grad else copied
    if isinstance(leaf, _PLAIN):
        return leaf
    try:
        return copy.deepcopy(leaf)  # e.g. a KV cache object that the forward appends to
    except Exception:  # not copyable: share it, as torch.compile would
        return leaf


def _copies(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    return pytree.tree_map(_copy_leaf, (args, kwargs))


def _quietly(state: _SavedState, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run ``fn`` on copies of the arguments, discarding stdout, stderr and
    warnings, and put the state back afterwards."""
    args, kwargs = _copies(args, kwargs)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(
            io.StringIO()
        ), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    finally:
        state.restore()


def mend_report(
    obj: Any,
    report: Any,
    *,
    modules: str | Iterable[str] | None = None,
    rules: Iterable[str] | None = None,
) -> list[Any]:
    """Mend the fixable sites a diagnosis of ``obj`` reported, wherever they
    live (``modules`` limits them to functions defined there); the functions
    now mended.  ``unmend(obj)`` undoes it."""
    sites = [(b.filename, b.lineno) for b in report.breaks if b.fixable]
    return mend_sites(sites, _candidates(obj), modules=modules, rules=rules, anchor=obj)


def _diagnose(obj: Any, *args: Any, **kwargs: Any) -> Any:
    # The traced call only: the capture statistics would cost two more runs.
    return diagnose_calls_torch(obj, [call(*args, **kwargs)], statistics=False, ask_rules=False)


#: How many calls after the first are watched for breaks to mend: each
#: round mends only sites no earlier round tried, so it ends.
_WATCHED_ROUNDS = 3


class _FirstCall:
    """Mend and compile on the first call; watch the first calls for
    fixable breaks that mending did not reach, mend them in this process
    and let Dynamo compile the mended code on the next call."""

    def __init__(
        self,
        obj: Any,
        modules: str | Iterable[str] | None,
        rules: Iterable[str] | None,
        verify: bool,
        diagnose: bool,
        compile_kwargs: dict[str, Any],
        capture: bool = True,
    ) -> None:
        self.obj = obj
        self.capture = capture
        self.modules = modules
        self.rules = None if rules is None else tuple(rules)
        self.verify = verify
        self.diagnose = diagnose
        self.compile_kwargs = compile_kwargs
        #: The backend whose numerics [Capture] keeps: the user's, also where
        #: a diagnosis's copy compiles for its own counter (:meth:`_like`).
        self.numerics_backend = compile_kwargs.get("backend", "inductor")
        self.compiled: Callable[..., Any] | None = None
        self.record: str | None = None  # what graphmend.mending.records keeps it under (set by the first call)
        self._lock = threading.Lock()
        self._rounds_left = _WATCHED_ROUNDS
        self._tried: set[tuple[str, int]] = set()  # sites mended after a watched call
        self._unconfirmed: set[tuple[str, int]] = set()  # ... and not yet seen gone
        self._watched_codes: weakref.WeakSet[Any] = weakref.WeakSet()  # what Dynamo compiled for them
        self._at_once = _MendedAtOnce()  # what the watched call's traces mended as they met it
        self._pool: list[Any] | None = None  # where a met site's function is looked for first
        self._helper: Sidecar | None = None  # the rules' helper process, for the first call only
        #: What the backend compiled: a frame compiled again into an identical graph reuses it.
        self.graphs = compat.CompiledGraphs()
        #: The codes Dynamo failed to trace in this object's calls: they run eagerly.
        self.failed_in_dynamo: weakref.WeakSet[Any] = weakref.WeakSet()
        #: [Capture]: DS/SCALAR sites held in the graph while this callable's
        #: frames convert (made with the compiled callable).
        self.capturing: capture.Capturing | None = None
        #: Whether warm calls run with room on CPython's frame stack (where a
        #: call thrashes a chunk of it, :mod:`graphmend.compat.headroom`).
        self.room = compat.RoomWhereItPays()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Inside a GraphmendCall: a frame Dynamo itself fails on runs eagerly
        # rather than raise where eager runs; an identical graph is not
        # compiled twice; [Capture] holds its switches while frames convert.
        if self.compiled is not None and not self._rounds_left:  # every call after the first few
            if torch.compiler.is_compiling():  # inlined into a caller's graph, as torch.compile's own
                return self.compiled(*args, **kwargs)
            call = compat.GraphmendCall(self.failed_in_dynamo, self.graphs, self.capturing, self._keep_original_behind)
            if next(self.room.plain, False):
                return call.run(self.compiled, args, kwargs)
            return self.room.run(call.run, (self.compiled, args, kwargs), {})
        return self._first_calls(args, kwargs)

    def _keep_original_behind(self, stacks: list[Any]) -> None:
        """A frame of this object's call failed identity guards (their user
        ``stacks``) before Dynamo traces it again: the mended functions that
        moved such guards into it from a frame of their own get their
        original code back (:func:`keep_original_behind`), and the record
        keeps them so for the next process."""
        kept = keep_original_behind(stacks)
        if kept:
            if self.record is not None:
                records.store(self.record, [location(function) for function in kept], "kept")
            logger.info("graphmend: %s keep their original code: %s", ", ".join(f.__qualname__ for f in kept),
                        PER_CALL_IDENTITY)

    def _first_calls(self, args: tuple, kwargs: dict) -> Any:
        call = compat.GraphmendCall(self.failed_in_dynamo, self.graphs, self.capturing, self._keep_original_behind)
        with self._lock:
            try:
                if self.compiled is None:
                    self._helper = start_helper(self.rules)
                    call.run(self._prepare, (args, kwargs), {})
                    call.capturing = self.capturing
                if self._rounds_left:
                    return call.run(self._watched, (args, kwargs), {})
            finally:
                # Sites the first call meets were rewritten by the helper;
                # a later call's are rare enough to rewrite here.
                if self._helper is not None:
                    self._helper.close()
                    self._helper = None
        return call.run(self.compiled, args, kwargs)

    def _prepare(self, args: tuple, kwargs: dict) -> None:
        state = _SavedState(self.obj) if self.verify or self.diagnose else None
        expected = _quietly(state, self.obj, *args, **kwargs) if self.verify else None
        # What the call reaches through its arguments (a model handed to a
        # step function); kept for later rounds, so no tensor is held.
        self.arguments = tuple(arguments_reached(self.obj, args, kwargs))
        self.record = records.key(self.obj, args, kwargs)
        # Given back their original code by an earlier process: not mended.
        keep_original_at(records.load(self.record, "kept"))
        # Lazily: the functions the helper process still rewrites are mended
        # as Dynamo meets them, in this call or a later one.
        mend(self.obj, modules=self.modules, rules=self.rules, only_modules=self.modules is not None,
             args=self.arguments, while_waiting=self._while_rules_run, lazily=not self.verify, helper=self._helper)
        sites = records.load(self.record)
        # Met before and declined: compiled as they are, no round spent on them.
        self._tried |= set(records.load(self.record, "declined"))
        # Given up on by [Capture] before: compiled without it, no attempt spent on them.
        capture.given_up_before(records.load_uncaptured(self.record))
        if self.diagnose:
            report = _quietly(state, _diagnose, self.obj, *args, **kwargs)
            sites += [(b.filename, b.lineno) for b in report.breaks if b.fixable]
        if sites:
            self._mend_sites(sites)
        mended = mended_functions(self.obj) if self.verify else []
        if mended:
            actual = _quietly(state, self.obj, *args, **kwargs)
            difference = first_difference(expected, actual)
            if difference is not None:
                unmend(self.obj)
                raise VerificationError(
                    f"the mended code's output differs from the original's: {difference} "
                    f"(mended: {', '.join(sorted({f.__qualname__ for f in mended}))}); the mending was undone"
                )
        # compat's patches before the first compiled call, mended code or not:
        # the watched call needs them (mending_first), not only rewritten code.
        compat.install(importlib.import_module(RUNTIME_MODULE))
        self.capturing = capture.Capturing(self.capture, self.numerics_backend)
        self.compiled = torch.compile(self.obj, **self.compile_kwargs)

    def _mend_sites(self, sites: Iterable[tuple[str, int]]) -> list[Any]:
        if self._pool is None:  # what the call reaches stays what it was: one walk serves every round
            self._pool = _candidates(self.obj, self.arguments)
        # A function a call meets at a site is mended as one the call
        # reaches statically would be: at the sites the rules match too, so
        # a site met later in it (behind the first) costs no second round,
        # whose new code makes Dynamo compile its frames again.
        return mend_sites(sites, self._pool, modules=self.modules, rules=self.rules, anchor=self.obj,
                          helper=self._helper, also_static=True)

    def _while_rules_run(self) -> None:
        """What the first call does anyway, done while the rules run in a
        helper process: run [Capture]'s once-per-process checks (a probe and
        a compile), and import inductor's compiler (2 s in a fresh process,
        longer than the rules take) or, for another backend, warm Dynamo up
        (:func:`graphmend.compat.warm_up`)."""
        if self.capture:
            capture.disabled()
        if self.compile_kwargs.get("backend", "inductor") == "inductor":
            importlib.import_module("torch._inductor.compile_fx")
        else:
            compat.warm_up()

    def _watched(self, args: tuple, kwargs: dict) -> Any:
        """A compiled call, watched (Dynamo's own break records, no extra
        trace).  Fixable breaks it meets that no round tried yet are mended
        now, and the code Dynamo compiled for this call is forgotten, so the
        next call compiles the mended code: the call that met a break has
        already run its graphs, and running it again would repeat its
        effects (a training step's update).  Sites a round mended that the
        next call no longer meets go to the record, which spares the next
        process this round."""
        self._rounds_left -= 1
        codes_before = {id(code) for code in compat.compiled_codes()}
        uncaptured_before = capture.uncaptured_codes()
        # What the helper still rewrites when the call ends waits for a
        # later call to meet it (or for an entry point that settles), not
        # this call's end: what a call reaches is much more than it runs.
        with BreakRecorder() as recorder, compat.mending_first(self._mended_next, self._mend_at_once):
            result = self.compiled(*args, **kwargs)
        # Dynamo's tracker lists a code once, however often it is reset.
        self._watched_codes.update(code for code in compat.compiled_codes() if id(code) not in codes_before)
        uncaptured = [(code, why) for code, why in capture.uncaptured_codes().items() if code not in uncaptured_before]
        if uncaptured:
            records.store_uncaptured(self.record, uncaptured)
        met = {(b.filename, b.lineno) for b in recorder.report(ask_rules=False).breaks if b.fixable}
        gone = self._unconfirmed - met
        if gone:
            records.store(self.record, gone)
        self._unconfirmed -= gone
        at_once, self._at_once = self._at_once, _MendedAtOnce()
        at_once.record(self.record)
        new = met - self._tried
        if not new:
            if not at_once.ran_eagerly:
                self._rounds_left = 0
            return result
        self._tried |= new
        self._mend_met(sorted(new), args, kwargs)
        return result

    @property
    def watching(self) -> bool:
        """Whether the next call is watched: it may mend the sites it meets
        and run their frames eagerly this once, so its graph runs are not
        yet those of the calls after it."""
        return self.compiled is None or self._rounds_left > 0

    def _mended_next(self, reason: Any) -> bool:
        """Whether a graph break the watched call meets is at a site this
        round will mend: the frame then runs eagerly this once, and nothing
        is compiled for code the next call replaces."""
        site = fixable_site(reason)
        return site is not None and site not in self._tried

    def _mend_changing(self, sites: list[tuple[str, int]]) -> list[Any]:
        """Mend ``sites`` (:meth:`_mend_sites`); the functions whose code
        changed.  A function mended before is mended again with the
        sites' lines; where the rules declined them all, its code is what it
        was, and nothing needs compiling again."""
        previously = mending_now()
        patched = self._mend_sites(sites)
        now = mending_now()
        return [f for f in patched if previously.get(f) != now.get(f)]

    def _mend_at_once(self, reason: Any, code: Any) -> bool | None:
        """Mend the site of a break the watched call's trace meets while the
        trace waits; whether the frame (``code``) is traced again at once,
        or None where the rules decline the site.

        It is where the site lies in a function the frame calls: traced
        again, the frame inlines that function's mended code, and no call
        runs it eagerly for a round (transformers' ``generate`` met one
        site a call, in three functions).  Where the rules decline the
        site, the trace goes on, and the frame compiles with the break, as
        torch.compile compiles it.  A site in the frame's own code makes it
        run eagerly this once (a running frame keeps its code), and the
        next call, watched, compiles the mended code.  Not while verifying,
        which compares calls of the object before and after the mending."""
        site = fixable_site(reason)
        if self.verify or site is None:
            return False
        self._tried.add(site)
        if not self._mend_changing([site]):
            self._at_once.declined.add(site)
            return None
        self._at_once.mended.add(site)
        if code_holds(code, *site):
            self._at_once.ran_eagerly = True
            return False
        return True

    def _mend_met(self, sites: list[tuple[str, int]], args: tuple, kwargs: dict) -> None:
        state = _SavedState(self.obj) if self.verify else None
        before = _quietly(state, self.obj, *args, **kwargs) if self.verify else None
        patched = self._mend_changing(sites)
        if not patched:
            records.store(self.record, sites, "declined")
            # With mending_first the call ran its frame eagerly from the
            # declined site on: what lies after it (a site in the arm of
            # diffusers' `if t > 0:`) is met by the next watched call.
            if not compat.mends_first():
                self._rounds_left = 0
            return
        if self.verify:
            difference = first_difference(before, _quietly(state, self.obj, *args, **kwargs))
            if difference is not None:
                unmend_functions(patched)
                raise VerificationError(
                    f"the mended code's output differs from the original's: {difference} "
                    f"(mended after a call: {', '.join(sorted(f.__qualname__ for f in patched))}); "
                    "that mending was undone"
                )
        self._unconfirmed |= set(sites)
        if not self._rounds_left:
            # No watched call is left to see them gone: the rewrite of their
            # functions stands for it, so that the next process mends them
            # before its first call instead of spending this round again
            # (a call of transformers' `generate` run eagerly).
            records.store(self.record, sites)
        if not compat.mends_first():
            # Frames compiled with those breaks in them: forgotten, so the
            # next call compiles the mended code (with mending_first they
            # ran eagerly instead, and what did compile stays valid: Dynamo
            # guards the code of the functions it inlined).
            for code in self._watched_codes:
                compat.reset_code(code)
        logger.info(
            "graphmend: the first call met %d fixable break site(s) the static mending did not reach (%s); "
            "mended, the next call compiles them", len(sites), _named(sites),
        )

    @property
    def mended_and_gone(self) -> set[tuple[str, int]]:
        """Sites the watched calls met, mended, and then no longer met."""
        return self._tried - self._unconfirmed

    def _mending(self) -> dict[Any, str]:
        """Each function mending this object patched -> its mended source."""
        return {f: mended_source(f) for f in mended_functions(self.obj)}

    def _like(self, tried: set[tuple[str, int]], **compile_kwargs: Any) -> _FirstCall:
        """A fresh first call with this one's options, compiled with
        ``compile_kwargs`` (a diagnosis's backend) and ``dynamic`` as the
        user asked (``mode``, ``options`` and ``fullgraph`` are the user's
        backend's business or would raise at a break the diagnosis
        reports), verifying nothing.  ``tried`` is shared: the sites an
        earlier copy met are not met as new (its first call would run
        their frames eagerly again)."""
        kept = {name: value for name, value in self.compile_kwargs.items() if name == "dynamic"}
        like = _FirstCall(self.obj, self.modules, self.rules, False, self.diagnose, {**kept, **compile_kwargs},
                          self.capture)
        like._tried = tried
        like.numerics_backend = self.numerics_backend
        return like

    def diagnosis(self, calls: list[Call], *, statistics: bool = True, before: Report | None = None) -> Report:
        """What this object runs on ``calls``, as a fresh process runs it.

        A fresh copy (:meth:`_like`, on a private counting backend) mends,
        compiles under [Capture] and makes the calls, its first calls
        watched as the real ones are; where they meet new sites, it is
        traced again, until a trace meets none and mends nothing.  That trace is the report:
        graphs compiled, graph runs of a warm call, the breaks left, the
        frames [Capture] gave up on and the graphs never run.  ``held``
        compares it with ``before``, torch.compile's report of the same
        calls (by default: of the code as it was handed over, this
        object's mending undone for that trace).  Afterwards every function
        runs the code it ran before (:func:`graphmend.mending.live.preserved`):
        the user's compiled objects keep what they compiled.  Only the
        torch.compile trace shows the program's output."""
        with preserved():
            if before is None:
                unmend_functions(mended_functions(self.obj))
                before = trace_calls(functools.partial(torch.compile, self.obj), calls, statistics=False)
            tried: set[tuple[str, int]] = set()
            with silenced():
                for _ in range(_WATCHED_ROUNDS + 1):
                    mending, met = self._mending(), len(tried)
                    report = trace_calls(functools.partial(self._like, tried), calls, view=MENDED,
                                         statistics=statistics)
                    # A trace that met a new site ran its frame eagerly from
                    # there (mending_first), even where the rules declined it.
                    if self._mending() == mending and len(tried) == met:
                        break
            _compare(report, before, self.capture)
        return report


@dataclasses.dataclass
class _MendedAtOnce:
    """What a watched call's traces mended as they met it
    (:meth:`_FirstCall._mend_at_once`)."""

    mended: set[tuple[str, int]] = dataclasses.field(default_factory=set)
    declined: set[tuple[str, int]] = dataclasses.field(default_factory=set)
    #: Whether a frame ran eagerly from a site mended in its own code: what
    #: follows the site is met by the next watched call.
    ran_eagerly: bool = False

    def record(self, name: str) -> None:
        """Keep the sites in record ``name``: a later process mends them, or
        compiles the declined ones as they are, before its first call."""
        if self.mended:
            records.store(name, self.mended)
        if self.declined:
            records.store(name, self.declined, "declined")
        met = sorted(self.mended | self.declined)
        if met:
            logger.info("graphmend: the first calls' traces met %d fixable break site(s) the static mending did "
                        "not reach (%s); mended as met", len(met), _named(met))


def _named(sites: list[tuple[str, int]]) -> str:
    """The first five of ``sites`` as ``file:line``, for a log line."""
    return ", ".join(f"{short_path(file)}:{line}" for file, line in sites[:5])


def _compare(report: Report, before: Report, capture_on: bool) -> None:
    """Fill in what graphmend.compile's ``report`` holds of ``before``'s
    breaks, and the code it runs for each site a rule rewrote (read while
    the mending is in place)."""
    left = {b.key for b in report.breaks}
    for b in before.breaks:
        if b.key in left:
            continue
        rewritten = mended_statement(b.filename, b.lineno)
        if rewritten is not None:
            held_by = b.rule or RULE_FOR.get(b.category, "a rule")
        elif capture_on and b.category in ("DS", "SCALAR"):
            held_by = "capture"
        else:
            held_by = "no longer met"
        report.held.append(dataclasses.replace(b, held_by=held_by, mended_code=rewritten))
    for b in report.breaks:
        b.mended_code = mended_statement(b.filename, b.lineno)
        holding = fallback_holding(b, report.fallbacks) if b.category in ("DS", "SCALAR") else None
        if holding is not None:
            b.hint = "; ".join(filter(None, [f"[capture] gave up on this frame of {b.function}(): {holding.why}",
                                             b.run_eagerly and eager_frame_hint(b.run_eagerly)]))


def diagnose_run(run: Callable[[], Any], before: Report) -> Report:
    """What ``graphmend.compile`` runs of a whole program: ``run()`` (its
    output silenced) with every ``torch.compile`` and ``graphmend.compile``
    it calls made by ``graphmend.compile``, its breaks recorded from
    Dynamo's records as a script's are (``graphmend diagnose --mended``).
    Sites the program's first calls met and mended, and then no longer met,
    are held, not left; ``held`` compares with ``before``, the program's
    torch.compile report.  Dynamo is reset first (the graphs of an earlier
    run hold no mending and no [Capture], and would be reused): for a
    process of its own.  The mending is undone afterwards."""
    made: list[Any] = []

    def as_graphmend(obj: Any = None, **kwargs: Any) -> Any:
        made.append(compile(obj, **kwargs))
        return made[-1]

    with preserved():
        torch._dynamo.reset()
        with silenced(), compile_calls_made_with(as_graphmend), recording_fallbacks() as fallbacks, \
                BreakRecorder() as recorder:
            run()
        report = recorder.report()
        gone = set().union(*(first_call.mended_and_gone for first_call in filter(None, (
            _first_call_of(compiled)[0] for compiled in made))))
        report.breaks = [b for b in report.breaks if b.key not in gone]
        report.view, report.fallbacks = MENDED, fallbacks
        _compare(report, before, capture_on=True)
    torch._dynamo.reset()
    return report


def as_torch_compile(obj: Any = None, *, modules: Any = None, rules: Any = None, verify: bool = False,
                     diagnose: bool = False, capture: bool = True, **torch_compile_kwargs: Any) -> Any:
    """``graphmend.compile``'s call made as ``torch.compile`` makes it: a
    program's torch.compile view (``graphmend diagnose --mended``)."""
    return torch.compile(obj, **torch_compile_kwargs)


@contextlib.contextmanager
def compile_calls_made_with(make: Callable[..., Any]) -> Iterator[None]:
    """Within: the program's ``torch.compile(obj, **kwargs)`` and
    ``graphmend.compile(obj, **kwargs)`` calls made by ``make(obj, **kwargs)``;
    torch's and graphmend's own calls of ``torch.compile`` (graphmend.compile
    compiles with it, the self-tests too) stay torch.compile's."""
    graphmend = sys.modules["graphmend"]  # the package whose public name is replaced, not a layer below
    real = torch.compile

    def stand_in(obj: Any = None, **kwargs: Any) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        return real(obj, **kwargs) if caller.partition(".")[0] in ("torch", "graphmend") else make(obj, **kwargs)

    saved = vars(graphmend).get("compile")
    torch.compile = graphmend.compile = stand_in
    try:
        yield
    finally:
        torch.compile = real
        if saved is None:
            del graphmend.compile
        else:
            graphmend.compile = saved


def _first_call_of(obj: Any) -> tuple[_FirstCall | None, Any]:
    """What ``graphmend.compile`` made ``obj`` with (None for anything else),
    and the object's ``self`` where ``obj`` is a method it decorated."""
    if inspect.ismethod(obj):
        return getattr(obj.__func__, "_graphmend_first_call", None), obj.__self__
    return getattr(obj, "_graphmend_first_call", None), None


def compiled_by_graphmend(obj: Any) -> bool:
    """Whether ``obj`` is what :func:`compile` returned (or a method it decorated)."""
    return _first_call_of(obj)[0] is not None


def diagnose(obj: Any, *args: Any, mended: bool | None = None, **kwargs: Any) -> Report:
    """Report the graph breaks of ``obj(*args, **kwargs)`` under
    ``torch.compile``, under ``graphmend.compile``, or both.

    * What :func:`compile` returned: what that object runs (``mended``
      None or True): the mended code under [Capture], traced as a fresh
      process runs it.  The report (``view == "graphmend.compile"``) gives
      graphs compiled and graph runs per call, each break left with its
      reason, each site a rule mended or [Capture] held (``held``, against
      torch.compile of the code it was handed), each frame [Capture] gave
      up on (``fallbacks``) and each graph compiled and never run
      (``thrown_away``).
    * Anything else: what ``torch.compile`` runs (the report's own fields,
      ``view == "torch.compile"``) and, beside it, what
      ``graphmend.compile(obj)`` would run (``report.mended``); the table
      shows both, one row per site.  ``mended=True`` gives the second
      alone, ``mended=False`` the first alone (as
      :func:`graphmend.diagnosis.diagnose`).

    Nothing of the user's stays changed: their compiled objects keep their
    graphs, their functions the code they ran (mended or not), and
    [Capture]'s switches their values.
    """
    return diagnose_calls(obj, [call(*args, **kwargs)], mended=mended)


def diagnose_calls(obj: Any, calls: Iterable[Any], *, mended: bool | None = None,
                   statistics: bool = True) -> Report:
    """:func:`diagnose` over several argument sets in order (items as
    :func:`graphmend.diagnosis.diagnose_calls` takes them); a guard that
    fails on a later set is a recompile.  ``statistics=False`` skips the
    warm call (graph runs per call and capture statistics)."""
    first_call, receiver = _first_call_of(obj)
    calls = argument_sets(obj, calls)
    if receiver is not None and first_call is not None:
        calls = [Call((receiver, *c.args), c.kwargs) for c in calls]
    original = first_call.obj if first_call is not None else obj
    # What graphmend.compile made, or what graphmend.compile(obj) would make.
    as_compiled = first_call or _FirstCall(obj, None, None, False, False, {})
    # A frame Dynamo fails to trace, where torch.compile raises, is a row of
    # the report (graphmend.compile runs it eagerly), not the diagnosis's error.
    def diagnosed() -> Report:
        if mended is False or (mended is None and first_call is None):
            report = diagnose_calls_torch(original, calls, statistics=statistics)
            if mended is None:
                report.mended = as_compiled.diagnosis(calls, statistics=statistics, before=report)
            return report
        return as_compiled.diagnosis(calls, statistics=statistics)

    return compat.GraphmendCall(weakref.WeakSet()).run(diagnosed, (), {})


def _candidates(obj: Any, args: Iterable[Any] = ()) -> list[Any]:
    """Where a reported site's live function is looked for first."""
    return reach(obj, args).functions


class MendedModule(torch.nn.Module):
    """What :func:`compile` returns for an ``nn.Module``: like the
    ``OptimizedModule`` of ``torch.compile``, it holds the model as
    ``_orig_mod`` and forwards attribute access to it."""

    def __init__(self, module: torch.nn.Module, first_call: _FirstCall) -> None:
        super().__init__()
        self._orig_mod = module
        self._graphmend_first_call = first_call

    @property
    def _graphmend_original(self) -> torch.nn.Module:
        return self._orig_mod

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._graphmend_first_call(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod" or name.startswith("__"):
                raise
            return getattr(self._orig_mod, name)


def compile(
    obj: Any = None,
    *,
    modules: str | Iterable[str] | None = None,
    rules: Iterable[str] | None = None,
    verify: bool = False,
    diagnose: bool = False,
    capture: bool = True,
    **torch_compile_kwargs: Any,
) -> Any:
    """``torch.compile(obj, **torch_compile_kwargs)``, after mending.

    Like ``torch.compile``, a decorator too: ``@graphmend.compile`` or
    ``@graphmend.compile(backend=...)``, on a function or a method.

    Everything a call of ``obj`` reaches is mended, however ``obj`` is
    handed over (a module, a bound method, a function, a lambda, a
    ``functools.partial``, a training step; see :mod:`graphmend.mending.reach`);
    ``modules`` limits mending to the functions defined in the named
    modules (module name prefixes, e.g. ``"transformers.models.t5"``);
    ``rules`` selects rules by name.  The first calls are watched: a fixable
    break one meets is mended at once and compiled by the next call (see
    the module docstring).  With ``diagnose=True`` the first call first runs
    one diagnosis trace and mends every fixable site it reports, so that
    call already compiles them.  With ``verify=True`` the first call also
    runs the original and the mended code eagerly and raises
    :class:`VerificationError` (undoing the mending) if their outputs differ
    in any bit; eager against eager, so the comparison judges the rewrite,
    not the backend's numerics.  Compiling what ``graphmend.compile``
    returned compiles its original again.
    ``capture=False`` turns [Capture] off (see :mod:`graphmend.compat.capture`):
    data-dependent shapes and scalars then break the graph, as by default.
    """
    if obj is None:
        return functools.partial(compile, modules=modules, rules=rules, verify=verify, diagnose=diagnose,
                                 capture=capture, **torch_compile_kwargs)
    obj = getattr(obj, "_graphmend_original", obj)  # compiling a compiled one again
    if not callable(obj):
        raise GraphmendError(f"compile() needs a function or an nn.Module, not {type(obj).__name__}")
    first_call = _FirstCall(obj, modules, rules, verify, diagnose, torch_compile_kwargs, capture)
    if isinstance(obj, torch.nn.Module):
        return MendedModule(obj, first_call)

    @functools.wraps(obj)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        return first_call(*args, **kwargs)

    compiled._graphmend_original = obj
    compiled._graphmend_first_call = first_call
    return compiled
