"""``python -m benchmarks --corpus ecosystem``: the second corpus (benchmarks/ecosystem.py).

For every row and both modes (inference under torch.no_grad(); training with
gradients enabled and backward run), each in its own subprocess (Dynamo state
leaks between rows) with a timeout:

1. the original, eagerly: output (and in training the gradient of every
   parameter and input); then the product, ``graphmend.compile`` with
   default options, and ``torch.compile`` of the original, each called
   three times on a counting eager backend
   (:class:`graphmend.diagnosis.GraphCounter`): graphs compiled, graphs
   that never ran, and the graph runs of the third call (per call, at
   steady state).  ``--backend inductor`` counts the graphs inductor
   compiles instead (those it fails on are not counted: Dynamo runs their
   frames eagerly; a graph [Capture] gives up on after inductor compiled it
   counts, and never runs);
2. graphmend.diagnose of the original: graphs, breaks, every break site;
3. optionally torch._dynamo.explain of the original (--explain ROW...), to
   cross-check the break count;
4. graphmend.mend(callable, modules=row.modules), then graphmend.diagnose;
5. the mended code, eagerly, on a fresh build: output and gradients compared
   bit for bit with step 1 (graphmend.compare.first_difference);
6. the mended code under torch.compile(backend="eager"), on a fresh build:
   the same comparison (what a user of the mended code gets), beside the
   original under the same torch.compile (the control: where compiling the
   original already changes a bit, the mended code is not to blame);
7. graphmend.unmend.

Writes ecosystem-results.json and ecosystem-results.md to --out.  The
libraries come from the ``ecosystem`` extra, pinned by
constraints-ecosystem.txt (``make bench-ecosystem`` installs them).

``--corpus MODULE`` runs another module's rows the same way (a module with
``ROWS`` and ``get(name)``, rows as :class:`benchmarks.ecosystem.Row`), e.g.
a held-out set: ``--corpus benchmarks.heldout.rows``.  A row runs in the
modes its ``modes`` names.

    python -m benchmarks --corpus ecosystem [--rows ROW...] [--out DIR]
    python -m benchmarks.bench_ecosystem [--corpus MODULE] [--rows ROW...] [--modes inference training]
        [--explain ROW...] [--timeout S] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from benchmarks import child_pythonpath, ops_share, percent, steady_calls

DEFAULT_OUT = Path("bench-results") / "ecosystem"
DEFAULT_EXPLAIN = ("tm_tweedie", "odeint_euler")
DEFAULT_CORPUS = "benchmarks.ecosystem"


def corpus_module(name: str) -> Any:
    """The module that holds a corpus's ``ROWS`` and ``get``."""
    import importlib

    return importlib.import_module(name)


# --- the worker (one row, one mode, in its own process) ----------------------------


def _error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 1500 else text[:1500] + " ..."


def _report_dict(report: Any) -> dict[str, Any]:
    from graphmend.diagnosis import short_path

    return {
        "graph_count": report.graph_count,
        "break_count": report.break_count,
        "events": sum(b.count for b in report.breaks),
        "sites": len(report.breaks),
        "pct_ops": report.pct_ops,
        "breaks": [
            {
                "category": b.category,
                "location": f"{short_path(b.filename)}:{b.lineno}",
                "function": b.function,
                "statement": b.statement,
                "reason": b.reason,
                "hint": b.hint,
                "fixable": b.fixable,
                "rule": b.rule,
                "count": b.count,
                "rewritten": b.rewritten,
            }
            for b in report.breaks
        ],
    }


def _named_leaves(fn: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """Tensors whose gradients a user would look at, by name: parameters of
    every module among the callable, its ``__self__`` and the arguments, and
    the arguments themselves."""
    import torch

    named: dict[str, torch.Tensor] = {}

    def visit(prefix: str, value: Any, depth: int = 0) -> None:
        if isinstance(value, torch.nn.Module):
            for name, p in value.named_parameters():
                named.setdefault(f"{prefix}.{name}", p)
        elif isinstance(value, torch.Tensor):
            if value.requires_grad and value.is_leaf:
                named.setdefault(prefix, value)
        elif isinstance(value, (tuple, list)) and depth < 3:
            for i, item in enumerate(value):
                visit(f"{prefix}[{i}]", item, depth + 1)
        elif isinstance(value, dict) and depth < 3:
            for key, item in value.items():
                visit(f"{prefix}[{key!r}]", item, depth + 1)

    visit("fn", fn)
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, torch.nn.Module):
        for key, item in vars(owner).items():
            visit(f"self.{key}", item, 1)
    elif owner is not None:
        visit("self", owner)
    for i, a in enumerate(args):
        visit(f"args[{i}]", a)
    for k, v in kwargs.items():
        visit(f"kwargs[{k!r}]", v)
    return named


def _autograd_leaves(loss: Any) -> list[Any]:
    """Every leaf the loss depends on, in a deterministic graph walk order
    (for leaves no name reaches, e.g. a distribution's parameters before
    broadcasting)."""
    seen, order, stack = set(), [], [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None:
            order.append(variable)
        for child, _ in reversed(node.next_functions):
            stack.append(child)
    return order


def _run(row: Any, training: bool, fn: Any, args: tuple, kwargs: dict, compiled: Any = None) -> dict[str, Any]:
    """Call once (``compiled``, ``torch.compile`` of ``fn``, when given); in
    training run backward and collect gradients, named through ``fn``: a
    compiled module names its parameters ``_orig_mod.*``, and a compiled
    bound method has no ``__self__``."""
    import torch

    from benchmarks.ecosystem import CALL_SEED

    torch.manual_seed(CALL_SEED)
    call = fn if compiled is None else compiled
    if not training:
        with torch.no_grad():
            return {"output": call(*args, **kwargs), "grads": None, "loss": None}
    output = call(*args, **kwargs)
    loss = row.loss(output)
    if loss is None:
        return {"output": output, "grads": None, "loss": None}
    named = _named_leaves(fn, args, kwargs)
    extra = [t for t in _autograd_leaves(loss) if all(t is not n for n in named.values())]
    loss.backward()
    grads = {name: (t.grad.detach().clone() if t.grad is not None else None) for name, t in named.items()}
    for i, t in enumerate(extra):
        grads[f"autograd leaf #{i} {tuple(t.shape)}"] = t.grad.detach().clone() if t.grad is not None else None
    return {"output": output, "grads": grads, "loss": loss.detach().clone()}


def _compare(expected: dict[str, Any], actual: dict[str, Any]) -> dict[str, Any]:
    from graphmend.compare import first_difference

    result: dict[str, Any] = {"identical": None, "difference": None, "grads_identical": None, "grads_difference": None}
    difference = first_difference(expected["output"], actual["output"])
    result["identical"] = difference is None
    result["difference"] = difference
    if expected["grads"] is not None or actual["grads"] is not None:
        eg, ag = expected["grads"] or {}, actual["grads"] or {}
        result["grads_compared"] = len(eg)
        if list(eg) != list(ag):
            result["grads_identical"] = False
            result["grads_difference"] = f"gradient sets differ: {list(eg)} != {list(ag)}"
        else:
            for name in eg:
                d = first_difference(eg[name], ag[name])
                if d is not None:
                    result["grads_identical"] = False
                    result["grads_difference"] = f"{name}: {d}"
                    break
            else:
                result["grads_identical"] = True
    return result


def _diagnose(fn: Any, args: tuple, kwargs: dict, training: bool) -> Any:
    import torch

    import graphmend

    torch.manual_seed(0)
    with torch.set_grad_enabled(training):
        return graphmend.diagnose(fn, *args, mended=False, **kwargs)


class _RecompileLimitHits(logging.Handler):
    """Counts, while entered, Dynamo's warning that a frame hit its
    recompile limit: the frame then runs eagerly on every later call, so a
    steady count after it is that of the fallback (a row that builds fresh
    objects every call, guarded by identity, reaches it once a frame has
    been compiled as many times as the limit allows: 8 by default)."""

    LOGGER = "torch._dynamo.convert_frame"

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.hits = 0

    def emit(self, record: logging.LogRecord) -> None:
        if str(record.msg).startswith("torch._dynamo hit config."):
            self.hits += 1

    def __enter__(self) -> _RecompileLimitHits:
        logging.getLogger(self.LOGGER).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(self.LOGGER).removeHandler(self)


def _calls(row: Any, training: bool, fn: Any, args: tuple, kwargs: dict, compiled: Any, counter: Any,
           calls: int = 3, counted: int | None = None) -> dict[str, Any]:
    """``calls`` calls of ``compiled`` (``fn`` compiled on ``counter``; more
    until a call is steady, :func:`benchmarks.steady_calls`), fresh
    inputs after the first (a row's inputs may carry a graph that one
    backward frees): each call's break report and graph runs, the first
    call's outcome, and the error of a later call that could not run.  Then
    one more call under the profiler: the operators the steady state runs
    in graphs and outside them (a frame Dynamo gives up on runs eagerly,
    whole, with no graph run to count).  Graphs compiled are those of the
    first ``counted`` calls (all, by default): an arm that needs more calls
    to settle than the other made is not charged for the recompiles of
    calls the other never made."""
    from graphmend.diagnosis import BreakRecorder
    from graphmend.diagnosis.tracing import silenced

    reports, runs, compiled_per_call, first, later_error = [], [], [], None, None
    with _RecompileLimitHits() as limit:
        for call in steady_calls(compiled, calls, counter):
            if call:
                _, args, kwargs = row.build(training)
            before, graphs_before = counter.runs, counter.graphs
            try:
                with BreakRecorder() as recorder:
                    recorder.checkpoint(0)  # one call: breaks are its graphs - 1, as diagnose counts them
                    outcome = _run(row, training, fn, args, kwargs, compiled)
            except Exception as exc:
                if not call:
                    raise
                # A callable that cannot run twice (a distribution whose
                # parameters' graph the first backward freed): the process
                # settles where the calls that ran left it.
                later_error = _error(exc)
                break
            first = first or outcome
            reports.append(recorder.report(ask_rules=False))
            runs.append(counter.runs - before)
            compiled_per_call.append(counter.graphs - graphs_before)
    graphs = counter.graphs
    if counted is not None and later_error is None:
        graphs = sum(compiled_per_call[:counted])
    counts = {"graphs_compiled": graphs, "never_run": counter.never_run, "runs_per_call": runs[-1], "runs": runs,
              "compiled": compiled_per_call, "recompile_limit_hits": limit.hits}
    if later_error is None:
        _, args, kwargs = row.build(training)
        with silenced():
            profile = counter.profile(lambda: _run(row, training, fn, args, kwargs, compiled))
        counts.update(ops=profile.ops, ops_in_graphs=profile.ops_in_graphs)
    return {"reports": reports, "first": first, "later_error": later_error, "counts": counts}


def _default_path(row: Any, training: bool, original: dict[str, Any], backend: str = "eager") -> dict[str, Any]:
    """``graphmend.compile(fn)`` on a counting ``backend``, called three
    times: the first call's graphs, breaks and result (compared with the
    eager original's), the graphs compiled (and how many never ran) and the
    graph runs of the last call; and the graphs the process settles on:
    after those calls, Dynamo's caches are emptied and one more call
    compiles everything the mended code runs.  (The last call that compiled
    anything is not that: a call that recompiles one frame, for fresh
    inputs, reuses the others.)"""
    import torch

    import graphmend
    from graphmend.diagnosis import BreakRecorder, GraphCounter

    fn, args, kwargs = row.build(training)
    saved = os.environ.get("GRAPHMEND_CACHE_DIR")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRAPHMEND_CACHE_DIR"] = cache
        try:
            counter = GraphCounter(backend)
            compiled = graphmend.compile(fn, backend=counter)
            called = _calls(row, training, fn, args, kwargs, compiled, counter)
            reports = called["reports"]
            settled = None
            if called["later_error"] is None:
                torch._dynamo.reset()
                _, args, kwargs = row.build(training)
                with BreakRecorder() as recorder:
                    recorder.checkpoint(0)
                    _run(row, training, fn, args, kwargs, compiled)
                settled = recorder.report(ask_rules=False)
        finally:
            graphmend.unmend(fn)
            torch._dynamo.reset()
            if saved is None:
                os.environ.pop("GRAPHMEND_CACHE_DIR", None)
            else:
                os.environ["GRAPHMEND_CACHE_DIR"] = saved
    if settled is None:  # the calls that ran are all there is
        settled = next((r for r in reversed(reports) if r.graph_count), reports[0])
    return {"first": _report_dict(reports[0]), "settled": _report_dict(settled), "later_error": called["later_error"],
            "graphs_per_call": [r.graph_count for r in reports], **called["counts"],
            **_compare(original, called["first"])}


def _torch_compile(row: Any, training: bool, original: dict[str, Any], backend: str = "eager",
                   calls: int = 3) -> dict[str, Any]:
    """``torch.compile`` of the original on a counting ``backend``, called
    as :func:`_default_path` called graphmend's (``calls`` times, and more
    while it is not yet steady: code that compiles afresh every call, an
    attack's optimizer built per call, makes graphs per call in both arms,
    so its graphs compiled are those of the first ``calls``): its graphs
    compiled and graph runs, and whether its first call changes a bit (the
    control for the compiled comparisons)."""
    import torch

    from graphmend.diagnosis import GraphCounter

    fn, args, kwargs = row.build(training)
    counter = GraphCounter(backend)
    try:
        called = _calls(row, training, fn, args, kwargs, torch.compile(fn, backend=counter), counter, calls, calls)
    finally:
        torch._dynamo.reset()
    return {**called["counts"], "later_error": called["later_error"], **_compare(original, called["first"])}


def worker(corpus: str, name: str, mode: str, explain: bool, backend: str = "eager") -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    import graphmend

    row = corpus_module(corpus).get(name)
    training = mode == "training"
    result: dict[str, Any] = {
        "row": row.name,
        "library": row.library,
        "version": row.version,
        "title": row.title,
        "modules": list(row.modules),
        "mode": mode,
        "backend": backend,
        "errors": {},
    }
    errors = result["errors"]

    # 1. the original, eagerly
    try:
        original = _run(row, training, *row.build(training))
        result["has_grad_path"] = original["grads"] is not None if training else None
    except Exception as exc:
        errors["original_eager"] = _error(exc)
        result["traceback"] = traceback.format_exc()[-3000:]
        return result

    # 1a. the product: graphmend.compile with default options, the first
    #     compile of this process, an empty cache; three calls
    try:
        result["default"] = _default_path(row, training, original, backend)
    except Exception as exc:
        errors["default"] = _error(exc)

    # 1b. the original under torch.compile: its graphs and graph runs, and
    #     the control for step 6
    try:
        calls = len(result["default"]["runs"]) if "default" in result else 3
        result["compiled_original"] = _torch_compile(row, training, original, backend, calls)
    except Exception as exc:
        errors["original_compiled"] = _error(exc)

    # 2. diagnose the original
    try:
        start = time.perf_counter()
        report = _diagnose(*row.build(training), training)
        result["before"] = _report_dict(report)
        result["before_report"] = report
        result["before"]["seconds"] = round(time.perf_counter() - start, 2)
    except Exception as exc:
        errors["diagnose_before"] = _error(exc)

    # 3. torch._dynamo.explain, as a cross-check of the count
    if explain:
        try:
            fn, args, kwargs = row.build(training)
            torch._dynamo.reset()
            torch.manual_seed(0)
            with torch.set_grad_enabled(training):
                out = torch._dynamo.explain(fn)(*args, **kwargs)
            result["explain"] = {
                "graph_count": out.graph_count,
                "graph_break_count": out.graph_break_count,
                "break_reasons": [str(r.reason)[:200] for r in out.break_reasons],
            }
            torch._dynamo.reset()
        except Exception as exc:
            errors["explain"] = _error(exc)

    # 4. mend as graphmend.compile does (the sites the diagnosis reported,
    #    and the named modules statically), diagnose the mended code
    fn, args, kwargs = row.build(training)
    target = fn
    report = result.pop("before_report", None)
    try:
        from graphmend.api import mend_report

        start = time.perf_counter()
        graphmend.mend(target, modules=list(row.modules))
        if report is not None:
            mend_report(target, report, modules=list(row.modules))
        result["mend_seconds"] = round(time.perf_counter() - start, 2)
    except Exception as exc:
        errors["mend"] = _error(exc)
        return result
    try:
        try:
            start = time.perf_counter()
            result["after"] = _report_dict(_diagnose(fn, args, kwargs, training))
            result["after"]["seconds"] = round(time.perf_counter() - start, 2)
        except Exception as exc:
            errors["diagnose_after"] = _error(exc)

        # 5. the mended code, eagerly
        try:
            result["eager"] = _compare(original, _run(row, training, *row.build(training)))
        except Exception as exc:
            errors["mended_eager"] = _error(exc)

        # 6. the mended code under torch.compile (backend="eager")
        try:
            fn2, args2, kwargs2 = row.build(training)
            result["compiled"] = _compare(original, _run(row, training, fn2, args2, kwargs2,
                                                         torch.compile(fn2, backend="eager")))
        except Exception as exc:
            errors["mended_compiled"] = _error(exc)
    finally:
        # 7. unmend
        try:
            graphmend.unmend(target)
            result["unmended"] = True
        except Exception as exc:
            errors["unmend"] = _error(exc)
            result["unmended"] = False
    return result


# --- the driver --------------------------------------------------------------------


def _run_worker(corpus: str, name: str, mode: str, explain: bool, timeout: float, log_dir: Path,
                backend: str = "eager") -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as handle:
        path = handle.name
    log = log_dir / f"{name}.{mode}.log"
    command = [sys.executable, "-m", "benchmarks.bench_ecosystem", "--corpus", corpus, "--worker", name, mode, path]
    command += ["--explain-this"] if explain else []
    command += ["--backend", backend]
    start = time.perf_counter()
    env = dict(os.environ, PYTHONWARNINGS="default", PYTHONPATH=child_pythonpath())
    with open(log, "w") as out:
        try:
            proc = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=timeout, env=env)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = None
    wall = round(time.perf_counter() - start, 1)
    try:
        with open(path) as handle:
            result = json.load(handle)
    except (OSError, json.JSONDecodeError):
        result = {"row": name, "mode": mode, "errors": {}}
        result["errors"]["worker"] = "timed out" if code is None else f"worker exited {code} without a result"
    finally:
        if os.path.exists(path):
            os.unlink(path)
    result["wall_seconds"] = wall
    result["log"] = str(log)
    return result


def _errors(result: dict[str, Any]) -> dict[str, str]:
    """A result's errors by stage, with the error of a later call that
    could not run in either compiled arm (a first call that ran is what the
    counts and comparisons read; a user still meets the raise)."""
    errors = dict(result.get("errors", {}))
    for arm, key in (("default", "default"), ("compiled_original", "original_compiled")):
        later = (result.get(arm) or {}).get("later_error")
        if later:
            errors[f"{key} (a later call)"] = later
    return errors


def _cats(report: dict[str, Any] | None) -> str:
    if not report:
        return "?"
    counts: dict[str, int] = {}
    for b in report["breaks"]:
        counts[b["category"]] = counts.get(b["category"], 0) + b["count"]
    return " ".join(f"{k}:{v}" for k, v in sorted(counts.items())) or "-"


def _pct(report: dict[str, Any] | None) -> str:
    return percent(report.get("pct_ops")) if report else "?"


def _capture_lost(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """Fewer breaks can mean Dynamo gave up on a whole frame (it then runs
    eagerly, uncounted): flag a mended run with no graph or with a lower share
    of ops captured."""
    if not before or not after:
        return ""
    if after["graph_count"] == 0 and before["graph_count"] > 0:
        return "**CAPTURE LOST: no graph after mending (frame skipped)**"
    if before.get("pct_ops") is not None and after.get("pct_ops") is not None:
        if after["pct_ops"] < before["pct_ops"] - 0.05:
            return f"**CAPTURE LOST: ops captured {100 * before['pct_ops']:.0f}% -> {100 * after['pct_ops']:.0f}%**"
    return ""


def _fewer_ops_in_graphs(result: dict[str, Any]) -> str:
    """Fewer graph runs can mean less in graphs: flag a default path that
    runs a smaller share of its operators in graphs than torch.compile."""
    mended, original = ops_share(result.get("default") or {}), ops_share(result.get("compiled_original") or {})
    if mended is not None and original is not None and mended < original - 0.05:
        return f"**FEWER OPS IN GRAPHS than torch.compile: {percent(original)} -> {percent(mended)}**"
    return ""


def _at_recompile_limit(result: dict[str, Any]) -> str:
    """Flag a row whose steady count is, in an arm, that of the frames
    Dynamo runs eagerly after its recompile limit."""
    arms = _recompile_limit_hit(result.get("compiled_original") or {}, result.get("default") or {})
    return f"**AT DYNAMO'S RECOMPILE LIMIT: {arms}**" if arms not in ("", "none") else ""


def _yes(value: Any) -> str:
    return {True: "yes", False: "**NO**", None: "-"}.get(value, str(value))


def _compiled_yes(result: dict[str, Any], key: str, arm: str = "compiled") -> str:
    """A compiled arm's comparison, beside the original's own under torch.compile."""
    mended = (result.get(arm) or {}).get(key)
    original = (result.get("compiled_original") or {}).get(key)
    if mended is False and original is False:
        return "no, as the original compiled"
    return _yes(mended)


def _num(report: dict[str, Any] | None, key: str) -> str:
    return "?" if not report else str(report[key])


def markdown(results: list[dict[str, Any]], environment: dict[str, str], corpus: str = DEFAULT_CORPUS) -> str:
    lines = [
        f"# Corpus `{corpus}`: graph breaks before and after graphmend.mend",
        "",
        f"Generated by `python -m benchmarks.bench_ecosystem --corpus {corpus}`. "
        "graphs/breaks are `graphmend.diagnose`'s `graph_count` and `break_count` (graphs - 1, as "
        "`torch._dynamo.explain`); *events* is the sum of the per-site counts (how often Dynamo broke, "
        "including breaks with no graph after them, which `break_count` misses). "
        "*eager* compares the mended code run eagerly with the original, *compiled* the mended code "
        "under `torch.compile(backend='eager')` with the original run eagerly; both bit for bit, and in "
        "training also every gradient. Where the original under the same `torch.compile` already "
        "differs from its eager run, the cell says so (*as the original compiled*).",
        "",
        "Environment: " + ", ".join(f"{k} {v}" for k, v in environment.items()),
        "",
    ]
    for mode in ("inference", "training"):
        rows = [r for r in results if r.get("mode") == mode]
        if not rows:
            continue
        lines += [
            f"## {mode}",
            "",
            "| row | library | graphmend.compile, first process: graph runs per call, graphs compiled and "
            "operators in graphs (torch.compile → graphmend.compile), breaks (1st call → settled), identical | "
            "diagnosis path: graphs | breaks | events | sites | ops captured | remaining (category:events) | eager identical | eager grads | compiled identical | compiled grads | errors / warnings |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        totals = {"b0": 0, "b1": 0, "e0": 0, "e1": 0, "d": 0, "r0": 0, "r1": 0, "g0": 0, "g1": 0,
                  "i0": 0, "o0": 0, "i1": 0, "o1": 0}
        for r in rows:
            before, after, default = r.get("before"), r.get("after"), r.get("default")
            torch_compile = r.get("compiled_original") or {}
            if default and "runs_per_call" in torch_compile:
                totals["r0"] += torch_compile["runs_per_call"]
                totals["r1"] += default["runs_per_call"]
                totals["g0"] += torch_compile["graphs_compiled"]
                totals["g1"] += default["graphs_compiled"]
            if default and default.get("ops") and torch_compile.get("ops"):
                totals["i0"] += torch_compile["ops_in_graphs"]
                totals["o0"] += torch_compile["ops"]
                totals["i1"] += default["ops_in_graphs"]
                totals["o1"] += default["ops"]
            if before and after:
                totals["b0"] += before["break_count"]
                totals["b1"] += after["break_count"]
                totals["d"] += default["settled"]["break_count"] if default else after["break_count"]
                totals["e0"] += before["events"]
                totals["e1"] += after["events"]
            eager = r.get("eager") or {}
            errors = "; ".join(f"{k}: {v[:120]}" for k, v in _errors(r).items()).replace("|", "\\|")
            for lost in (_capture_lost(before, after), _fewer_ops_in_graphs(r), _at_recompile_limit(r)):
                if lost:
                    errors = (errors + "; " if errors else "") + lost
            lines.append(
                f"| {r['row']} | {r.get('library', '?')} {r.get('version', '')} "
                f"| {_default_cell(r)} "
                f"| {_num(before, 'graph_count')} → {_num(after, 'graph_count')} "
                f"| {_num(before, 'break_count')} → {_num(after, 'break_count')} "
                f"| {_num(before, 'events')} → {_num(after, 'events')} "
                f"| {_num(before, 'sites')} → {_num(after, 'sites')} "
                f"| {_pct(before)} → {_pct(after)} "
                f"| {_cats(after)} "
                f"| {_yes(eager.get('identical'))} | {_yes(eager.get('grads_identical'))} "
                f"| {_compiled_yes(r, 'identical')} | {_compiled_yes(r, 'grads_identical')} "
                f"| {errors or '-'} |"
            )
        lines += [
            "",
            f"Totals ({mode}, {len(rows)} rows): graph runs per call {totals['r0']} → {totals['r1']}, "
            f"graphs compiled {totals['g0']} → {totals['g1']}, operators in graphs "
            f"{percent(totals['i0'] / totals['o0'] if totals['o0'] else None)} → "
            f"{percent(totals['i1'] / totals['o1'] if totals['o1'] else None)} "
            "(torch.compile → graphmend.compile); "
            f"breaks {totals['b0']} → {totals['d']} (graphmend.compile, "
            f"first process) / {totals['b1']} (diagnosis path), events {totals['e0']} → {totals['e1']}.",
            "",
        ]
    lines += ["## Remaining break sites after mending", ""]
    for r in results:
        after = r.get("after")
        if not after or not after["breaks"]:
            continue
        lines.append(f"### {r['row']} ({r['mode']})")
        lines.append("")
        for b in after["breaks"]:
            hint = (b["hint"] or "").replace("\n", " ")
            lines.append(
                f"- {b['category']} x{b['count']} `{b['location']}` in `{b['function']}`: "
                f"`{(b['statement'].splitlines() or [''])[0][:100]}` — {b['reason'][:160]}; hint: {hint[:300]}"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


CSV_COLUMNS = (
    "row", "library", "mode", "runs_per_call_torch_compile", "runs_per_call_default", "graphs_compiled_torch_compile",
    "graphs_compiled_default", "never_run_default", "ops_in_graphs_torch_compile", "ops_torch_compile",
    "ops_in_graphs_default", "ops_default", "graphs_before", "breaks_before", "breaks_default_first_call",
    "breaks_default_settled", "default_graphs_per_call", "breaks_diagnosis_path", "identical_default", "gradients_identical_default",
    "identical_mended_eager", "gradients_identical_mended_eager", "identical_mended_compiled",
    "gradients_identical_mended_compiled", "remaining_default", "remaining_diagnosis_path", "recompile_limit_hit",
    "errors",
)


def write_csv(results: list[dict[str, Any]], path: Path) -> None:
    """One line a row and mode: graph runs per call and graphs compiled,
    torch.compile's and graphmend.compile's (and its graphs that never
    ran), and the operators a steady call runs in graphs and in all;
    breaks before, after the default path (its first call and where the
    process settles) and after the diagnosis path;
    whether outputs and gradients are bit-identical; the remaining break
    events by category; the arms whose calls hit Dynamo's recompile limit
    (their steady count is the fallback's); what failed."""
    import csv

    def cell(value: Any) -> str:
        return "" if value is None else str(value)

    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for r in results:
            before, after, default = r.get("before"), r.get("after"), r.get("default") or {}
            eager, compiled = r.get("eager") or {}, r.get("compiled") or {}
            errors = "; ".join(f"{k}: {(v.splitlines() or [''])[0][:200]}" for k, v in _errors(r).items())
            torch_compile = r.get("compiled_original") or {}
            writer.writerow([
                r["row"], f"{r.get('library', '?')} {r.get('version', '')}".strip(), r["mode"],
                cell(torch_compile.get("runs_per_call")), cell(default.get("runs_per_call")),
                cell(torch_compile.get("graphs_compiled")), cell(default.get("graphs_compiled")),
                cell(default.get("never_run")), cell(torch_compile.get("ops_in_graphs")), cell(torch_compile.get("ops")),
                cell(default.get("ops_in_graphs")), cell(default.get("ops")),
                cell(before and before["graph_count"]), cell(before and before["break_count"]),
                cell(default.get("first", {}).get("break_count")), cell(default.get("settled", {}).get("break_count")),
                " ".join(map(str, default.get("graphs_per_call", []))),
                cell(after and after["break_count"]), cell(default.get("identical")),
                cell(default.get("grads_identical")), cell(eager.get("identical")), cell(eager.get("grads_identical")),
                cell(compiled.get("identical")), cell(compiled.get("grads_identical")),
                _cats(default.get("settled")) if default else "", _cats(after) if after else "",
                _recompile_limit_hit(torch_compile, default), errors,
            ])


def _recompile_limit_hit(torch_compile: dict[str, Any], default: dict[str, Any]) -> str:
    """The arms whose calls hit Dynamo's recompile limit, ``none``, or
    nothing where neither arm's counts say (an arm that did not run)."""
    arms = {"torch.compile": torch_compile, "graphmend.compile": default}
    if not any("recompile_limit_hits" in counts for counts in arms.values()):
        return ""
    return " ".join(arm for arm, counts in arms.items() if counts.get("recompile_limit_hits")) or "none"


def _default_cell(result: dict[str, Any]) -> str:
    before, default = result.get("before"), result.get("default")
    if not default:
        return "-"
    torch_compile = result.get("compiled_original") or {}
    return (f"runs {torch_compile.get('runs_per_call', '?')} → {default.get('runs_per_call', '?')}, graphs "
            f"{torch_compile.get('graphs_compiled', '?')} → {default.get('graphs_compiled', '?')}"
            f"{' (%d never ran)' % default['never_run'] if default.get('never_run') else ''}, ops in graphs "
            f"{percent(ops_share(torch_compile))} → {percent(ops_share(default))}; "
            f"breaks {_num(before, 'break_count')} → {default['first']['break_count']} → "
            f"{default['settled']['break_count']}; {_compiled_yes(result, 'identical', 'default')}, "
            f"grads {_compiled_yes(result, 'grads_identical', 'default')}")


def environment(corpus: str = DEFAULT_CORPUS) -> dict[str, str]:
    import platform
    from importlib.metadata import version

    import torch

    import graphmend

    env = {"torch": torch.__version__, "graphmend": graphmend.__version__, "python": platform.python_version()}
    for lib in dict.fromkeys(row.library for row in corpus_module(corpus).ROWS):
        try:
            env[lib] = version(lib)
        except Exception:
            env[lib] = "not installed"
    env["machine"] = f"{platform.machine()}, {os.cpu_count()} cores"
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="module with the rows (ROWS, get); default: %(default)s")
    parser.add_argument("--rows", nargs="*", help="row names (default: all)")
    parser.add_argument("--modes", nargs="*", default=["inference", "training"], choices=["inference", "training"])
    parser.add_argument("--explain", nargs="*", default=list(DEFAULT_EXPLAIN), help="rows to cross-check with torch._dynamo.explain")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--backend", default="eager", choices=["eager", "inductor"],
                        help="the backend behind the two arms' graph counters (default: %(default)s); "
                             "the other steps compile with the eager backend")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--merge", action="store_true", help="update rows in an existing results.json instead of replacing it")
    parser.add_argument("--render", action="store_true", help="only rewrite results.md from an existing results.json")
    parser.add_argument("--csv", type=Path, help="also write one CSV line a row and mode to this path")
    parser.add_argument("--worker", nargs=3, metavar=("ROW", "MODE", "RESULT"), help=argparse.SUPPRESS)
    parser.add_argument("--explain-this", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)

    if options.worker:
        name, mode, path = options.worker
        try:
            result = worker(options.corpus, name, mode, options.explain_this, options.backend)
        except BaseException as exc:  # still hand back what went wrong
            result = {"row": name, "mode": mode, "errors": {"worker": _error(exc)}, "traceback": traceback.format_exc()[-3000:]}
        with open(path, "w") as handle:
            json.dump(result, handle, indent=1, default=str)
        return 0

    corpus = corpus_module(options.corpus)
    names = options.rows or [row.name for row in corpus.ROWS]
    for name in names:
        corpus.get(name)
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    log_dir = out / "ecosystem-logs"
    log_dir.mkdir(exist_ok=True)
    json_path = out / "ecosystem-results.json"
    if options.render:
        data = json.loads(json_path.read_text())
        (out / "ecosystem-results.md").write_text(markdown(data["results"], data["environment"], options.corpus))
        if options.csv:
            write_csv(data["results"], options.csv)
        return 0

    previous: list[dict[str, Any]] = []
    if options.merge and json_path.exists():
        previous = json.loads(json_path.read_text())["results"]
    results: list[dict[str, Any]] = []
    for name in names:
        for mode in options.modes:
            if mode not in corpus.get(name).modes:
                continue
            explain = name in options.explain and mode == "inference"
            result = _run_worker(options.corpus, name, mode, explain, options.timeout, log_dir, options.backend)
            results.append(result)
            _write(out, previous, results, options.corpus, options.csv)  # a run stopped early keeps what it measured
            before, after = result.get("before"), result.get("after")
            eager = result.get("eager") or {}
            default = (result.get("default") or {}).get("settled") or {}
            print(
                f"{name:28} {mode:9} breaks {_num(before, 'break_count')} -> {default.get('break_count', '?')}"
                f" (default) / {_num(after, 'break_count')} (diagnosis path)"
                f" events {_num(before, 'events')} -> {_num(after, 'events')}"
                f" identical {eager.get('identical')} grads {eager.get('grads_identical')}"
                f" {result['wall_seconds']}s {list(result.get('errors', {}))}",
                flush=True,
            )
    _write(out, previous, results, options.corpus, options.csv)
    print(f"wrote {json_path} and {out / 'ecosystem-results.md'}")
    return 0


def _write(out: Path, previous: list[dict[str, Any]], results: list[dict[str, Any]], corpus: str,
           csv_path: Path | None) -> None:
    if previous:
        fresh = {(r["row"], r["mode"]) for r in results}
        merged = [r for r in previous if (r["row"], r["mode"]) not in fresh] + results
        order = {row.name: i for i, row in enumerate(corpus_module(corpus).ROWS)}
        results = sorted(merged, key=lambda r: (order.get(r["row"], 999), r["mode"] != "inference"))
    env = environment(corpus)
    (out / "ecosystem-results.json").write_text(json.dumps({"environment": env, "results": results}, indent=1,
                                                           default=str))
    (out / "ecosystem-results.md").write_text(markdown(results, env, corpus))
    if csv_path:
        write_csv(results, csv_path)


if __name__ == "__main__":
    sys.exit(main())
