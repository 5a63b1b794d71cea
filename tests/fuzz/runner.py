"""Run fuzz programs three ways and compare everything observable.

The arms: the original eagerly (the reference), the mended code eagerly, and
the mended code compiled as ``graphmend.compile`` compiles it --
``torch.compile`` inside [Capture]'s scope
(:func:`graphmend.compat.capture.wrap`: Dynamo's ``capture_scalar_outputs``
and ``capture_dynamic_output_shape_ops`` on for that callable's calls, a
frame where capture fails compiled again without; plain ``torch.compile``
when transformed as ``graphmend fix`` does) -- with a graph-counting
backend (no inductor) that also records where a graph holds a
data-dependent value (a DS / SCALAR site captured).  Each arm runs every
program on a battery of inputs chosen so the
predicates of the grammar (signs of sums, means, extremes, first and last
elements) go both ways, plus inputs Hypothesis draws; for a program with
``grad=True`` the inputs require grad and the gradients are compared too;
one with ``inference=True`` runs under ``torch.no_grad()``, as inference
does (where predicated state updates apply).

What is compared, bit for bit (:func:`graphmend.compare.first_difference`):
the return value, the inputs, ``acc`` and ``ns`` after the call, stdout,
stderr, the program's log records (name, level, message), its warnings
(category, message), the exception (type and message) and the gradients.

Speed: the pipeline (libcst) costs about as much per line as Dynamo costs
per function, so a batch of programs is transformed as one module (one
parse, one metadata pass per rule), and all programs of a batch share one
``torch._dynamo.reset()``.

A compiled difference that plain ``torch.compile`` of the *original* (no
[Capture]) shows as well is Dynamo's, not graphmend's: it is counted apart
("dynamo") and not reported as a mismatch.  A difference only the captured
graph shows is graphmend's: it turned the switches on.
"""

from __future__ import annotations

import logging
import re
import sys
import tempfile
import warnings
import weakref
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import torch

from fuzz.grammar import HEADER, Program, Stmt
from graphmend.analysis.summaries import Summarizer
from graphmend.compat.capture import disabled as capture_disabled
from graphmend.compat.capture import uncaptured_codes
from graphmend.compat.capture import wrap as in_capture_scope
from graphmend.compat import GraphmendCall
from graphmend.compare import first_difference
from graphmend.mending.callees import callee_summaries_of
from graphmend.mending.live import preserved
from graphmend.diagnosis import BreakRecorder
from graphmend.pipeline import transform_source
from harness import GraphCounter, load_module, outcome_of

# Dynamo logs the errors of fake-tensor propagation (a program that fails
# eagerly fails while tracing too) at ERROR level, to the real stderr.
logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)

# Signs chosen so that every sum/mean/max/min/[0]/[-1] comparison of the
# grammar is true for some row and false for another; the last row holds
# -0.0, a huge value (exp -> inf, gradients -> nan) and a negative (log -> nan).
BATTERY = (
    ([0.5, 1.0, 1.5, 2.0], [1.0, 2.0, 0.25, 3.0]),
    ([-0.5, -1.0, -1.5, -2.0], [0.75, 0.5, 1.25, 0.1]),
    ([0.3, -0.2, 0.1, 0.4], [-1.0, -2.0, -0.5, -3.0]),
    ([-0.0, 100.0, -7.0, 0.0], [0.0, -0.25, 2.0, -0.0]),
)


@dataclass
class Outcome:
    value: Any = None
    inputs: Any = None  # x, y after the call
    acc: list = field(default_factory=list)
    ns: dict = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    logs: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    error: tuple[str, str] | None = None
    grads: Any = None


class Namespace:
    """What a program's ``ns`` is: one class for every call, so that a
    compiled program is reused from row to row (Dynamo guards the class),
    and replaying a cached graph's deferred calls is tested too.  Its
    ``count`` starts as the class's number (``ns.count += 1`` stores an
    instance's)."""

    count = 0


def _inputs(row: tuple[list[float], list[float]], grad: bool) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """(leaves, arguments): with grad the arguments are non-leaf copies, so an
    in-place update of an input is legal and gradients reach the leaves."""
    leaves = [torch.tensor(v, dtype=torch.float32, requires_grad=grad) for v in row]
    return leaves, [leaf * 1 if grad else leaf for leaf in leaves]


def run(fn: Callable[..., Any], row: tuple[list[float], list[float]], grad: bool, inference: bool = False) -> Outcome:
    """Call ``fn(x, y, acc, ns)`` (and take gradients; or, for
    ``inference``, under ``torch.no_grad()``) and record everything observable."""
    leaves, (x, y) = _inputs(row, grad)
    acc: list = []
    ns = Namespace()
    ns.buf = torch.zeros(4)  # the state helpers' buffer

    def call():
        if inference:
            with torch.no_grad():
                return fn(x, y, acc, ns), None
        value = fn(x, y, acc, ns)
        return value, _gradients(value, leaves) if grad else None

    seen = outcome_of(call, logs_from="gm.", torch_warnings=False)  # the program's logs and warnings
    value, grads = (None, None) if seen.error is not None else seen.value
    error = None if seen.error is None else (f"{seen.error[0].__module__}.{seen.error[0].__qualname__}", seen.error[1])
    return Outcome(
        value=value, inputs=(x, y), acc=acc, ns=dict(vars(ns)), stdout=seen.stdout, stderr=seen.stderr,
        logs=seen.logs, warnings=[(category.__name__, message) for category, message in seen.warnings],
        error=error, grads=grads,
    )


def _gradients(value: Any, leaves: list[torch.Tensor]) -> Any:
    outputs = value if isinstance(value, tuple) else (value,)
    differentiable = [
        o for o in outputs if isinstance(o, torch.Tensor) and o.requires_grad and o.is_floating_point()
    ]
    if not differentiable:
        return None
    loss = sum(o.sum() for o in differentiable)
    return torch.autograd.grad(loss, leaves, allow_unused=True)


def _dynamo_error(error: tuple[str, str] | None) -> bool:
    return error is not None and error[0].startswith("torch._dynamo.")


def _without_traced_code(error: tuple[str, str] | None) -> tuple[str, str] | None:
    return error and (error[0], error[1].split("\n\nfrom user code:", 1)[0])


def _comparable_errors(expected: tuple[str, str] | None,
                       actual: tuple[str, str] | None) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """Two errors as compared where the traced code differs: of two errors
    Dynamo raised itself, the types (their messages quote the file and line
    it was tracing, and a backend's failure names the backend object);
    other errors Dynamo met while tracing (an IndexError of a fake tensor)
    without the "from user code:" quote."""
    if _dynamo_error(expected) and _dynamo_error(actual):
        return (expected[0],), (actual[0],)
    return _without_traced_code(expected), _without_traced_code(actual)


def difference(expected: Outcome, actual: Outcome, *, dynamo_messages: bool = True) -> str | None:
    """The first observable difference between two outcomes, or ``None``.

    ``dynamo_messages=False`` compares errors as :func:`_comparable_errors`
    does: the original and the mended module are traced from different
    files and lines.
    """
    if not dynamo_messages:
        expected_error, actual_error = _comparable_errors(expected.error, actual.error)
        if expected_error != actual_error:
            return f"error: {expected_error!r} != {actual_error!r}"
        expected, actual = replace(expected, error=None), replace(actual, error=None)
    for name in ("error", "stdout", "stderr", "logs", "warnings"):
        if getattr(expected, name) != getattr(actual, name):
            return f"{name}: {getattr(expected, name)!r} != {getattr(actual, name)!r}"
    for name in ("value", "inputs", "acc", "ns", "grads"):
        found = first_difference(getattr(expected, name), getattr(actual, name))
        if found is not None:
            return f"{name}: {found}"
    return None


def _raised_otherwise(expected: Outcome, actual: Outcome) -> str | None:
    """What ``actual`` raised that ``expected`` did not (or the other way),
    the errors compared as :func:`_comparable_errors` does."""
    expected_error, actual_error = _comparable_errors(expected.error, actual.error)
    return None if expected_error == actual_error else f"error: {expected_error!r} != {actual_error!r}"


@dataclass
class Mismatch:
    program: Program
    arm: str  # "eager", "compiled" or "graphmend.compile"
    row: int
    detail: str

    def report(self) -> str:
        return f"{self.arm} arm, input row {self.row}: {self.detail}\n{self.program.source()}"


#: How many programs :class:`Tally` keeps for each kind of break that stays,
#: and of the compiled differences that are Dynamo's.
STAY_EXAMPLES = 5


@dataclass
class Tally:
    """What a run saw, summed over programs."""

    programs: int = 0
    compiled: int = 0
    #: Programs also run through ``graphmend.compile`` itself (:func:`_check_api`).
    through_api: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    dynamo_divergences: int = 0
    fired: Counter = field(default_factory=Counter)
    declined: Counter = field(default_factory=Counter)
    runner_errors: Counter = field(default_factory=Counter)  # batches the runner itself failed on
    #: Compiled programs graphmend rewrote or whose DS / SCALAR site [Capture]
    #: held in a graph, where no rule declined a site and
    #: no break left is of a category no rewrite removes (``Break.fixable`` false):
    #: every break they had is fixable.
    fixable: int = 0
    #: Of those, the ones whose mended form compiled to one graph on every row.
    one_graph: int = 0
    #: What still breaks in the others (category: reason), one count per program.
    stays: Counter = field(default_factory=Counter)
    #: Compiled programs (no mismatch) by how many graphs their mended form made over all rows.
    graphs: Counter = field(default_factory=Counter)
    #: DS / SCALAR sites (lines of a program) the compiled arm held in a
    #: graph, and ones that still broke there (capture fell back, or never applied).
    sites_captured: int = 0
    sites_fell_back: int = 0
    #: Programs with a DS / SCALAR site: every one captured / one or more not.
    capture_held: int = 0
    capture_fell_back: int = 0
    #: Why [Capture] compiled a frame again without the switches, one count per frame.
    fallback_reasons: Counter = field(default_factory=Counter)
    #: Why [Capture] is off on this torch (then the compiled arm is plain torch.compile).
    capture_off: str | None = None
    #: The first programs seen for each kind in ``stays`` (their source,
    #: with the break's line), so that a summary can show what stays.
    stay_examples: dict = field(default_factory=dict)
    #: The first programs counted in ``dynamo_divergences`` (their source,
    #: with the row and the difference), so that they can be looked at.
    dynamo_examples: list = field(default_factory=list)

    def merge(self, other: Tally) -> None:
        self.programs += other.programs
        self.compiled += other.compiled
        self.through_api += other.through_api
        self.fixable += other.fixable
        self.one_graph += other.one_graph
        self.stays.update(other.stays)
        self.graphs.update(other.graphs)
        self.sites_captured += other.sites_captured
        self.sites_fell_back += other.sites_fell_back
        self.capture_held += other.capture_held
        self.capture_fell_back += other.capture_fell_back
        self.fallback_reasons.update(other.fallback_reasons)
        self.capture_off = self.capture_off or other.capture_off
        for what, examples in other.stay_examples.items():
            mine = self.stay_examples.setdefault(what, [])
            mine.extend(examples[: STAY_EXAMPLES - len(mine)])
        self.mismatches += other.mismatches
        self.dynamo_divergences += other.dynamo_divergences
        self.dynamo_examples.extend(other.dynamo_examples[: STAY_EXAMPLES - len(self.dynamo_examples)])
        self.fired.update(other.fired)
        self.declined.update(other.declined)
        self.runner_errors.update(other.runner_errors)


def _reason_kind(reason: str) -> str:
    """A skip reason with the code it quotes blanked, to count reasons by
    kind (a reason may start with a quote: "`v0` may be unbound here")."""
    reason = re.sub(r"`[^`]*`", "`_`", reason)
    for stop in ('"', "'", "("):
        reason = reason.split(stop, 1)[0]
    return reason.strip()[:80]


def check_batch(
    programs: list[Program],
    directory: Path,
    *,
    extra_rows: tuple = (),
    compile_every: int = 1,
    tally: Tally | None = None,
    static: bool = False,
    backend: str = "eager",
    api_every: int = 0,
) -> Tally:
    """Transform ``programs`` as one module and compare the three arms on
    each; every ``compile_every``-th program also gets the compiled arm,
    and every ``api_every``-th (0: none) a fourth, ``graphmend.compile``
    itself (:func:`_check_api`; not with ``static``).

    The transform is ``graphmend.mend``'s: every line counts as one a
    diagnosis reported, so a test whose tensorness the code does not show
    (``y[0] < 0`` of a parameter) is tried, and dispatches at run time.
    ``static`` transforms as ``graphmend fix`` does instead: without a
    diagnosis, only tests that look like tensors.  As ``graphmend.mend``
    does, the helpers a program calls are read from the live objects (those
    of :mod:`fuzz.helpers` too); ``graphmend fix`` reads the file's own.

    ``backend="inductor"`` compiles the compiled arm with inductor, whose
    code rounds otherwise than eager's kernels: only what is raised is
    compared there (a graph that raises where eager runs, the class of an
    assertion inductor's own passes add on a captured size)."""
    tally = tally if tally is not None else Tally()
    names = [f"f{i}" for i in range(len(programs))]
    source = HEADER + "\n\n".join(p.source(n) for p, n in zip(programs, names))
    every_line = frozenset(range(1, source.count("\n") + 2))
    original = load_module(source, directory, "fuzz_orig")
    summarizer = Summarizer()
    callees = frozenset() if static else frozenset().union(
        *(callee_summaries_of(getattr(original, name), summarizer) for name in names))
    result = transform_source(source, lines=None if static else every_line, callees=callees)
    for site in result.sites:
        tally.fired[f"{site.rule}: {site.what}"] += 1
    for skip in result.skips:
        tally.declined[f"{skip.rule}: {_reason_kind(skip.reason)}"] += 1
    mended = load_module(result.code, directory, "fuzz_mended")
    api_copy = load_module(source, directory, "fuzz_api") if api_every and not static else None
    tally.capture_off = None if static else capture_disabled()
    torch._dynamo.reset()
    rows = BATTERY + tuple(extra_rows)
    spans = _spans(source, names)
    for index, (program, name) in enumerate(zip(programs, names)):
        tally.programs += 1
        compiled = index % compile_every == 0
        tally.compiled += compiled
        first, last = spans[name]
        rewritten = any(first <= s.lineno <= last for s in result.sites)
        declined = any(first <= s.lineno <= last for s in result.skips)
        divergences = tally.dynamo_divergences
        counter = SiteCounter(mended.__file__, backend) if compiled else None
        fell_back_before = set(uncaptured_codes())
        with BreakRecorder() as recorder:  # the compiled arm's breaks
            found = _check_program(program, getattr(original, name), getattr(mended, name), rows, counter, tally,
                                   capture=not static, raises_only=backend != "eager")
        if found is None and compiled and tally.dynamo_divergences == divergences:
            report = recorder.report(ask_rules=False)
            tally.graphs[recorder.graph_count] += 1
            captured = _count_sites(report, counter, set(uncaptured_codes()) - fell_back_before, tally)
            if (rewritten or captured) and not declined:
                _count_graphs(report, program, tally)
        if found is None and api_copy is not None and index % api_every == 0:
            tally.through_api += 1
            found = _check_api(program, getattr(original, name), getattr(api_copy, name), rows, tally, backend,
                               raises_only=backend != "eager")
        if found is not None:
            tally.mismatches.append(found)
    return tally


class SiteCounter(GraphCounter):
    """A graph counter that also records the lines of ``path`` where a graph
    it is given holds a data-dependent value: a node that binds a new
    unbacked symbol (``nonzero``, a mask index, ``.item()``; Dynamo's
    ``unbacked_bindings``) is a captured DS / SCALAR site.  A frame
    [Capture] gives up on never reaches the backend; its site breaks in the
    frame compiled without capture, which :func:`_count_sites` reads."""

    def __init__(self, path: str, backend: str = "eager") -> None:
        super().__init__(backend)
        self.path = path
        self.lines: set[int] = set()

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        for node in gm.graph.nodes:
            if node.meta.get("unbacked_bindings"):
                lines = [int(line) for file, line in re.findall(r'File "([^"]+)", line (\d+)',
                                                                 node.meta.get("stack_trace") or "")
                         if file == self.path]
                self.lines.update(lines[-1:])  # the innermost frame of the program's own code
        return super().__call__(gm, example_inputs)


def _count_sites(report, counter: SiteCounter, fell_back_codes: set, tally: Tally) -> bool:
    """One program's DS / SCALAR sites: captured (held in a graph, no break
    left there) or not (a DS / SCALAR break left at that line); whether one
    was captured."""
    broken = {b.lineno for b in report.breaks if b.category in ("DS", "SCALAR") and b.filename == counter.path}
    captured = counter.lines - broken
    tally.sites_captured += len(captured)
    tally.sites_fell_back += len(broken)
    if broken:
        tally.capture_fell_back += 1
    elif captured:
        tally.capture_held += 1
    reasons = uncaptured_codes()
    for code in fell_back_codes:
        tally.fallback_reasons[_reason_kind(reasons[code].split(" at ")[0])] += 1
    return bool(captured)


def _spans(source: str, names: list[str]) -> dict[str, tuple[int, int]]:
    """The lines each program's function occupies in the batch module."""
    starts = {line.split("(")[0][4:]: number for number, line in enumerate(source.splitlines(), 1)
              if line.startswith("def f")}
    ordered = [starts[name] for name in names] + [source.count("\n") + 2]
    return {name: (ordered[i], ordered[i + 1] - 1) for i, name in enumerate(names)}


def _count_graphs(report, program: Program, tally: Tally) -> None:
    """One program's contribution to the one-graph rate (see :class:`Tally`)."""
    declined_at_run_time = [b for b in report.breaks if b.reason.startswith("rewritten, still breaks: graphmend:")]
    if declined_at_run_time or any(not (b.fixable or b.rewritten) for b in report.breaks):
        # A break no rewrite removes, or one the runtime declined with its
        # reason (values of different dtypes, autograd): not a fixable program.
        for what in sorted({_reason_kind(b.reason) for b in declined_at_run_time}):
            tally.declined[f"runtime: {what.removeprefix('rewritten, still breaks: graphmend: ')}"] += 1
        return
    tally.fixable += 1
    if not report.breaks:
        tally.one_graph += 1
    for what in sorted({f"{b.category}: {_reason_kind(b.reason)}" for b in report.breaks}):
        tally.stays[what] += 1
        examples = tally.stay_examples.setdefault(what, [])
        if len(examples) < STAY_EXAMPLES:
            statements = sorted({b.statement for b in report.breaks})
            examples.append(_example(program, f"breaks at: {statements}"))


def _example(program, what: str) -> str:
    """A kept program: ``what`` was seen, in which mode, then its source."""
    return f"# {what}\n# grad={program.grad}, inference={program.inference}\n{program.source()}"


def _as_graphmend_calls(compiled):
    """``compiled`` called as graphmend.compile's callable calls it: inside
    a :class:`graphmend.compat.GraphmendCall`, with its own record of the
    frames Dynamo fails on (a frame whose trace meets the user's error runs
    eagerly, as eager raises it)."""
    failed = weakref.WeakSet()

    def call(*args, **kwargs):
        return GraphmendCall(failed).run(compiled, args, kwargs)

    return call


def _check_program(program, original, mended, rows, counter, tally, capture=True, raises_only=False) -> Mismatch | None:
    # As graphmend.compile compiles it: inside [Capture]'s scope and
    # a GraphmendCall (a file `graphmend fix` wrote is compiled by plain
    # torch.compile).
    compiled_mended = torch.compile(mended, backend=counter) if counter is not None else None
    if compiled_mended is not None and capture:
        compiled_mended = _as_graphmend_calls(in_capture_scope(compiled_mended))
    for row_index, row in enumerate(rows):
        expected = run(original, row, program.grad, program.inference)
        found = difference(expected, run(mended, row, program.grad, program.inference))
        if found is not None:
            return Mismatch(program, "eager", row_index, found)
        if compiled_mended is not None:
            actual = run(compiled_mended, row, program.grad, program.inference)
            found = _judged(program, original, rows, row_index, expected, actual, "compiled", tally, counter.backend,
                            raises_only)
            if found is not None:
                return found
    return None


def _check_api(program, original, copy, rows, tally, backend="eager", raises_only=False) -> Mismatch | None:
    """The program through the real API: ``graphmend.compile`` of ``copy``
    (the same function, from a copy of the original module), with its reach
    walk, mending, watched calls and graph reuse, against eager."""
    import graphmend

    expected_rows = [run(original, row, program.grad, program.inference) for row in rows]
    # Its mending may swap the code of helpers the original calls too: every
    # function runs its own code again before anything else runs.
    with preserved():
        compiled = graphmend.compile(copy, backend=GraphCounter(backend))
        actual_rows = [run(compiled, row, program.grad, program.inference) for row in rows]
    for row_index, (expected, actual) in enumerate(zip(expected_rows, actual_rows)):
        found = _judged(program, original, rows, row_index, expected, actual, "graphmend.compile", tally, backend,
                        raises_only)
        if found is not None:
            return found
    return None


def _judged(program, original, rows, row_index, expected, actual, arm, tally, backend, raises_only) -> Mismatch | None:
    """A compiled arm's outcome on one row: None where it is eager's, or
    where plain torch.compile of the original differs from eager the same
    way (Dynamo's doing, counted in ``tally``); else the mismatch."""
    found = _raised_otherwise(expected, actual) if raises_only else difference(expected, actual)
    if found is None:
        return None
    compiled_original = torch.compile(original, backend=GraphCounter(backend))
    # Called on the same rows before, it reaches the same Dynamo state
    # (a float that changed between calls is traced as a symbol, and
    # 2.13 then formats ``f"{v.item():.3f}"`` into a float, a TypeError).
    for earlier in rows[:row_index]:
        run(compiled_original, earlier, program.grad, program.inference)
    again = run(compiled_original, rows[row_index], program.grad, program.inference)
    between_compiled = (_raised_otherwise(again, actual) if raises_only
                        else difference(again, actual, dynamo_messages=False))
    if between_compiled is None:
        tally.dynamo_divergences += 1
        if len(tally.dynamo_examples) < STAY_EXAMPLES:
            tally.dynamo_examples.append(_example(program, f"{arm} arm, row {row_index}: {found}"))
        return None
    return Mismatch(program, arm, row_index, found)


# -- reduction --------------------------------------------------------------------


def _variants(body: tuple[Stmt, ...]):
    """Smaller bodies: one statement deleted, an ``if`` replaced by one of its
    blocks, or the same done inside a block."""
    for i, stmt in enumerate(body):
        yield body[:i] + body[i + 1 :]
        blocks = [stmt.body, *(b for _, b in stmt.elifs), stmt.orelse] if stmt.text.startswith("if ") else []
        for block in blocks:
            yield body[:i] + block + body[i + 1 :]
        if stmt.elifs:
            yield body[:i] + (Stmt(stmt.text, stmt.body, stmt.elifs[:-1], stmt.orelse),) + body[i + 1 :]
        if stmt.orelse:
            yield body[:i] + (Stmt(stmt.text, stmt.body, stmt.elifs, ()),) + body[i + 1 :]
        for which, block in (("body", stmt.body), ("orelse", stmt.orelse)):
            for smaller in _variants(block) if block else ():
                fields = {"body": stmt.body, "orelse": stmt.orelse, which: smaller}
                yield body[:i] + (Stmt(stmt.text, fields["body"], stmt.elifs, fields["orelse"]),) + body[i + 1 :]


def reduce(mismatch: Mismatch, directory: Path, extra_rows: tuple = (), static: bool = False,
           backend: str = "eager") -> Mismatch:
    """Delete statements and flatten ``if``s while the program still
    mismatches in the same arm (greedy, to a fixpoint)."""
    current = mismatch
    progress = True
    while progress:
        progress = False
        for body in _variants(current.program.body):
            if not body:
                continue
            candidate = current.program.with_body(body)
            tally = check_batch([candidate], directory, extra_rows=extra_rows, static=static, backend=backend,
                                api_every=int(current.arm == "graphmend.compile"))
            if tally.mismatches and tally.mismatches[0].arm == current.arm:
                current, progress = tally.mismatches[0], True
                break
    return current


# -- make fuzz -------------------------------------------------------------------

FUZZ_BATCH = 8


def worker(hypothesis_seed: int, programs: int, compile_every: int, deadline: float, static: bool = False,
           backend: str = "eager", api_every: int = 1) -> Tally:
    """``make fuzz``'s worker process: about ``programs`` programs from
    Hypothesis seed ``hypothesis_seed``, mismatches recorded rather than
    raised; no new batch starts after ``deadline`` (``time.time()``)."""
    import os
    import time

    from hypothesis import HealthCheck, Phase, given, seed, settings
    from hypothesis import strategies as st

    from fuzz.grammar import programs as program_strategy

    warnings.simplefilter("ignore")
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # graph-break notes, thousands of them
    tally = Tally()
    directory = Path(tempfile.mkdtemp(prefix="gm-fuzz-"))
    # graphmend.compile's records of sites met (the API arm) stay in this
    # run: one left by an earlier run would change what a call mends.
    os.environ["GRAPHMEND_CACHE_DIR"] = str(directory / "cache")

    @settings(
        max_examples=max(1, programs // FUZZ_BATCH),
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(batch=st.lists(program_strategy(), min_size=FUZZ_BATCH, max_size=FUZZ_BATCH))
    def one_batch(batch):
        if time.time() > deadline:
            return
        found = len(tally.mismatches)
        try:
            check_batch(batch, directory, compile_every=compile_every, tally=tally, static=static, backend=backend,
                        api_every=api_every)
            for mismatch in tally.mismatches[found:]:  # as found: a long run shows them before it ends
                print(f"seed {hypothesis_seed}: mismatch: {mismatch.report()}", file=sys.stderr, flush=True)
        except Exception as exc:  # the runner itself failed on a batch: count it, go on
            tally.runner_errors[f"{type(exc).__name__}: {str(exc)[:100]}"] += 1
        if tally.programs % (25 * FUZZ_BATCH) == 0:  # a sign of life on long runs
            print(f"seed {hypothesis_seed}: {tally.programs} programs, {len(tally.mismatches)} mismatches",
                  file=sys.stderr, flush=True)

    seed(hypothesis_seed)(one_batch)()
    return tally
