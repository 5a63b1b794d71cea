"""Timings a user can trust: every arm in a fresh process.

The first call is what a user feels most, and it is the easiest number to
get wrong: a second arm in the same process reuses the first arm's inductor
kernels, imports and warmed allocator, and one run on a shared machine is
noise.  So here every measurement is a fresh Python process
(``python -m benchmarks.timing --worker``) with its own empty inductor cache
(``TORCHINDUCTOR_CACHE_DIR``) and graphmend cache (``GRAPHMEND_CACHE_DIR``),
threads pinned; the arms of a row run interleaved, their order alternating
from one repetition to the next; each figure is the median over the
repetitions with its spread (min-max), and a ratio's spread is that of the
ratios paired by repetition.  A *control* arm runs exactly the code of the
``torch.compile`` arm: when its ratio leaves 1.00 +- 0.05 the run is marked
noisy.

Arms (:data:`ARMS`): ``torch.compile`` of the original; ``graphmend.compile``
with an empty record; ``graphmend.compile`` in a second process, whose record
and mended sources an earlier (untimed) process left; and Dynamo's own
switches on the original code, which is what a user would try instead.

In the worker, model and inputs are built before the clock starts; *cold*
is the first call (mending, compilation and the call, under
``torch.no_grad()``), *to steady state* the first call and each later one
up to the last in which Dynamo converted a frame (traced it, whether or not
a graph came of it) or that graphmend's first call watched (a first call
that meets a site in a frame's own code runs the frame eagerly and a later
call compiles it mended: a first call alone can flatter; a frame that
Dynamo traces again at every call, up to its recompile limit, because it
guards the identity of an object each call makes, compiles no new graph in
torch.compile where its trace holds no operator, yet costs its trace each
call), *warm* the median of the calls after those.  The worker also
reports the graphs compiled, the break events, the messages the first call
emitted (prints, log records, warnings, in order) and saves its output, so
the parent can say whether an arm behaves as the original does: an arm that
ignores a log message has not kept the program's behaviour.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import child_pythonpath, watched

#: Control ratios outside this band mark a run as noisy.
CONTROL_TOLERANCE = 0.05

_LOGGER_METHODS = ("debug", "info", "warning", "warn", "error", "critical", "exception", "log")


@dataclass(frozen=True)
class ArmSpec:
    name: str
    #: What the arm does, for tables.
    title: str
    #: Whether the arm needs a graphmend cache left by an earlier process.
    primed: bool = False
    #: Whether the arm runs the original code under one of Dynamo's switches.
    switch: bool = False
    #: Whether the arm runs on the control row only.
    control_row_only: bool = False


ARMS: dict[str, ArmSpec] = {
    spec.name: spec
    for spec in (
        ArmSpec("torch", "torch.compile"),
        ArmSpec("control", "torch.compile again (control)", control_row_only=True),
        ArmSpec("graphmend", "graphmend.compile"),
        ArmSpec("graphmend_second", "graphmend.compile, second process", primed=True, control_row_only=True),
        ArmSpec("nested_graph_breaks", "torch.compile, nested_graph_breaks=True", switch=True),
        ArmSpec(
            "capture_scalar_outputs",
            "torch.compile, capture_scalar_outputs + capture_dynamic_output_shape_ops",
            switch=True,
        ),
        ArmSpec("ignore_logging", "torch.compile, ignore_logging_functions", switch=True),
        ArmSpec("reorderable_logging", "torch.compile, reorderable_logging_functions", switch=True),
    )
}

SWITCHES = tuple(name for name, spec in ARMS.items() if spec.switch)


# -- the worker: one arm, one fresh process ------------------------------------------------------


def _logging_functions() -> list[Callable[..., Any]]:
    """The logging entry points the corpus calls: Logger methods (transformers
    adds ``warning_once``/``info_once`` to the class) and ``warnings.warn``."""
    names = _LOGGER_METHODS + ("warning_once", "info_once", "warning_advice")
    return [getattr(logging.Logger, n) for n in names if hasattr(logging.Logger, n)] + [warnings.warn]


@contextlib.contextmanager
def _dynamo_switch(arm: str) -> Iterator[None]:
    import torch._dynamo.config as config

    if arm == "nested_graph_breaks":
        patch = {"nested_graph_breaks": True}
    elif arm == "capture_scalar_outputs":
        patch = {"capture_scalar_outputs": True, "capture_dynamic_output_shape_ops": True}
    elif arm == "ignore_logging":
        patch = {"ignore_logging_functions": set(_logging_functions())}
    elif arm == "reorderable_logging":
        patch = {"reorderable_logging_functions": set(_logging_functions())}
    else:
        patch = {}
    with config.patch(patch):
        yield


def _internal(logger_name: str) -> bool:
    """torch's and graphmend's own records (Dynamo traces through its
    loggers), which are not the program's messages."""
    return logger_name.split(".")[0] in ("torch", "graphmend")


class _Messages:
    """What a call prints, logs and warns, in order."""

    def __init__(self) -> None:
        self.events: list[str] = []

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        import torch

        events = self.events
        torch_folder = os.path.dirname(torch.__file__)
        original_handle = logging.Logger.handle
        original_showwarning = warnings.showwarning

        def handle(logger: logging.Logger, record: logging.LogRecord) -> None:
            if not _internal(record.name):
                events.append(f"log {record.name} {record.levelname}: {record.getMessage()}")
            original_handle(logger, record)

        def showwarning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
            if not filename.startswith(torch_folder):
                events.append(f"warning {category.__name__}: {message}")

        class Tee(io.TextIOBase):
            def write(self, text: str) -> int:
                if text.strip():
                    events.append(f"print: {text.rstrip()}")
                return len(text)

        logging.Logger.handle = handle
        warnings.showwarning = showwarning
        try:
            with contextlib.redirect_stdout(Tee()):
                yield
        finally:
            logging.Logger.handle = original_handle
            warnings.showwarning = original_showwarning


def _compiled(arm: str, model: Any, backend: str) -> Callable[..., Any]:
    import torch

    import graphmend

    if arm.startswith("graphmend"):
        return graphmend.compile(model, backend=backend)
    if arm == "eager":
        return model
    return torch.compile(model, backend=backend)


def worker(row_name: str, arm: str, *, backend: str, device: str, warm: int, threads: int, output: Path,
           large_batch: int = 0) -> dict:
    """Build the row's model, then time its first call and ``warm`` more;
    with ``large_batch``, ``warm`` more on the inputs repeated that many
    times along the batch dimension (after the recompile they cause)."""
    import torch
    import torch._dynamo.utils

    from benchmarks import corpus

    torch.set_num_threads(threads)
    warnings.filterwarnings("default")
    row = corpus.find(row_name)
    model = row.model()
    model = model.to(device) if isinstance(model, torch.nn.Module) else model
    args, kwargs = torch.utils._pytree.tree_map(
        lambda v: v.to(device) if isinstance(v, torch.Tensor) else v, row.inputs()
    )

    def synchronize() -> None:
        if device == "cuda":
            torch.cuda.synchronize()

    messages = _Messages()
    with torch.no_grad(), _dynamo_switch(arm):
        start = time.perf_counter()
        with messages.recording():
            compiled = _compiled(arm, model, backend)
            result = compiled(*args, **kwargs)
            synchronize()
        cold = time.perf_counter() - start

        counters = torch._dynamo.utils.counters

        def timed_calls(call_args: tuple, call_kwargs: dict) -> tuple[list[float], int]:
            """Two calls to settle (or recompile), then ``warm`` more: every
            call's seconds, and how many of them it took to reach the
            compiled steady state (up to the last that was watched by
            graphmend's first call, :func:`benchmarks.watched`, or in which
            Dynamo converted a frame)."""
            seconds, settling = [], 0
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for index in range(warm + 2):
                    was_watched = watched(compiled)
                    frames_before = counters["frames"]["total"]
                    start = time.perf_counter()
                    compiled(*call_args, **call_kwargs)
                    synchronize()
                    seconds.append(time.perf_counter() - start)
                    if was_watched or counters["frames"]["total"] > frames_before:
                        settling = index + 1
            return seconds, settling

        def warm_ms(seconds: list[float], settling: int) -> float | None:
            steady = seconds[max(2, settling):]
            return statistics.median(steady) * 1e3 if steady else None

        calls, settling = timed_calls(args, kwargs)
        warm_batch_1 = warm_ms(calls, settling)
        graphs, break_events = counters["stats"]["unique_graphs"], sum(counters["graph_break"].values())
        warm_large = None
        if large_batch > 1 and arm != "eager":
            from benchmarks.bench import batched

            warm_large = warm_ms(*timed_calls(*batched((args, kwargs), large_batch)))
    torch.save(torch.utils._pytree.tree_map(
        lambda v: v.cpu() if isinstance(v, torch.Tensor) else v, _plain(result)), output)
    return {
        "cold_s": cold,
        "steady_s": cold + sum(calls[:settling]),
        "steady_calls": 1 + settling,
        "warm_ms": warm_batch_1,
        "warm_large_ms": warm_large,
        "graphs": graphs if arm != "eager" else 0,
        "break_events": break_events,
        "messages": messages.events,
    }


def _plain(value: Any) -> Any:
    """A model output (a transformers ``ModelOutput``) as plain containers of tensors."""
    import torch

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (torch.Tensor, int, float, str, bool, type(None))) else repr(type(value))


# -- the parent: fresh processes, interleaved -----------------------------------------------------


@dataclass
class Sample:
    """One arm's measurement in one process."""

    cold_s: float
    warm_ms: float | None
    graphs: int
    break_events: int
    messages: list[str]
    output: str  # path of the saved output
    #: Warm latency at the large batch, when one was asked for.
    warm_large_ms: float | None = None
    #: The calls up to the compiled steady state, the first included: up to
    #: the last call graphmend's first call watched (where it met a site in
    #: a frame's own code, that frame ran eagerly and a later call compiles
    #: it mended) or in which Dynamo converted a frame; ``steady_calls`` of them.
    steady_s: float | None = None
    steady_calls: int | None = None


@dataclass
class Spread:
    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread | None:
        values = [v for v in values if v is not None]
        if not values:
            return None
        return cls(statistics.median(values), min(values), max(values))

    def crosses(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self, spec: str) -> str:
        return f"{format(self.median, spec)} [{format(self.low, spec)}-{format(self.high, spec)}]"


@dataclass
class ArmResult:
    arm: str
    #: Processes with empty caches: cold (and warm when there are no others).
    samples: list[Sample] = field(default_factory=list)
    #: More processes for warm latency only, compiling from a filled inductor cache.
    warm_only: list[Sample] = field(default_factory=list)

    def measured(self, measure: str) -> list[Sample]:
        """The processes a measure is taken from.  Warm latency comes from the
        warm-only processes when there are any: a process that has just
        compiled from an empty cache runs the same kernels up to 2x slower
        or faster than the next one (0.62-1.25 ms for BioGPT's), while
        processes that load them from the cache agree within 10%."""
        if measure in ("cold_s", "steady_s") or not self.warm_only:
            return self.samples
        return self.warm_only

    def cold(self) -> Spread | None:
        return Spread.of([s.cold_s for s in self.samples])

    def warm(self, measure: str = "warm_ms") -> Spread | None:
        return Spread.of([getattr(s, measure) for s in self.measured(measure)])


@dataclass
class RowTiming:
    row: str
    title: str
    arms: dict[str, ArmResult]
    #: Arm -> whether its outputs equal the torch.compile arm's bit for bit.
    same_output: dict[str, bool] = field(default_factory=dict)
    #: Arm -> whether its first call printed, logged and warned what the
    #: original does eagerly, in the same order.
    same_messages: dict[str, bool] = field(default_factory=dict)
    eager_messages: list[str] = field(default_factory=list)
    error: str | None = None

    def ratios(self, arm: str, measure: str, baseline: str = "torch") -> list[float]:
        """``arm`` over ``baseline``, one ratio per repetition."""
        ours, theirs = self.arms.get(arm), self.arms.get(baseline)
        if not ours or not theirs:
            return []
        pairs = zip(ours.measured(measure), theirs.measured(measure))
        return [getattr(a, measure) / getattr(b, measure) for a, b in pairs
                if getattr(a, measure) and getattr(b, measure)]

    def ratio(self, arm: str, measure: str, baseline: str = "torch") -> Spread | None:
        return Spread.of(self.ratios(arm, measure, baseline))


def _run_worker(row: str, arm: str, *, backend: str, device: str, warm: int, threads: int,
                graphmend_cache: str | None, scratch: Path, inductor_cache: str | None = None,
                large_batch: int = 0) -> Sample:
    """One fresh process for one arm, with empty caches (or the inductor
    cache given)."""
    with tempfile.TemporaryDirectory(dir=scratch) as empty, tempfile.TemporaryDirectory(dir=scratch) as own:
        env = {
            **os.environ,
            "TORCHINDUCTOR_CACHE_DIR": inductor_cache or empty,
            "GRAPHMEND_CACHE_DIR": graphmend_cache or own,
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            # Compile in the process: a pool of compile workers adds a start-up
            # whose cost depends on the machine's load, to both arms.
            "TORCHINDUCTOR_COMPILE_THREADS": "1",
            "PYTHONWARNINGS": "default",
            "PYTHONPATH": child_pythonpath(),
        }
        result_path = Path(own) / "result.json"
        output = scratch / f"{row}-{arm}-{time.monotonic_ns()}.pt"
        command = [sys.executable, "-m", "benchmarks.timing", "--worker", row, arm, "--backend", backend,
                   "--device", device, "--warm", str(warm), "--threads", str(threads),
                   "--result", str(result_path), "--output", str(output), "--large-batch", str(large_batch)]
        completed = subprocess.run(command, env=env, capture_output=True, text=True)
        if completed.returncode != 0:
            tail = (completed.stderr or completed.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"{row}/{arm} worker failed: " + " | ".join(tail))
        data = json.loads(result_path.read_text())
    return Sample(output=str(output), **data)


def _same_output(a: str, b: str) -> bool:
    import torch

    from graphmend.compare import first_difference

    return first_difference(torch.load(a, weights_only=False), torch.load(b, weights_only=False)) is None


def measure_row(row: str, arms: Sequence[str], *, repetitions: int, backend: str, device: str, warm: int,
                threads: int, scratch: Path, warm_processes: int = 0, large_batch: int = 0,
                progress: Callable[[str], None] = lambda _: None,
                checkpoint: Callable[[RowTiming], None] = lambda _: None) -> RowTiming:
    """Every arm of one row, ``repetitions`` times, interleaved; then
    ``warm_processes`` more processes per arm, interleaved, for warm
    latency.  ``checkpoint`` sees the row after each process (on a lent
    machine, a run cut short keeps every process it finished)."""
    from benchmarks import corpus

    timing = RowTiming(row, corpus.find(row).title, {arm: ArmResult(arm) for arm in arms})
    run = lambda arm, cache=None, inductor_cache=None: _run_worker(  # noqa: E731
        row, arm, backend=backend, device=device, warm=0 if arm == "eager" else warm, threads=threads,
        graphmend_cache=cache, scratch=scratch, inductor_cache=inductor_cache, large_batch=large_batch)
    progress(f"{row}: eager reference")
    eager = run("eager")
    timing.eager_messages = eager.messages
    primed_cache = None
    if any(ARMS[a].primed for a in arms):
        primed_cache = tempfile.mkdtemp(dir=scratch)
        progress(f"{row}: priming the graphmend cache")
        run("graphmend", primed_cache)

    def graphmend_cache(arm: str) -> str | None:
        # Each primed process gets a copy: its own run must not change the record.
        if not ARMS[arm].primed:
            return None
        cache = tempfile.mkdtemp(dir=scratch)
        shutil.copytree(primed_cache, cache, dirs_exist_ok=True)
        return cache

    # Each cold process starts from an empty inductor cache; the one an
    # arm's last cold process fills is kept for its warm-only processes to
    # load (the others are removed with their process).
    inductor_caches = {arm: tempfile.mkdtemp(dir=scratch) for arm in arms}
    for repetition in range(repetitions):
        kept = repetition == repetitions - 1
        for arm in list(arms) if repetition % 2 == 0 else list(reversed(arms)):
            progress(f"{row}: {arm} ({repetition + 1}/{repetitions})")
            timing.arms[arm].samples.append(run(arm, graphmend_cache(arm), inductor_caches[arm] if kept else None))
            checkpoint(timing)
    # Warm latency differs more from one process to the next than from one
    # call to the next, and most in processes that have just compiled from
    # an empty cache, so it takes more processes, loading the kernels.
    for repetition in range(warm_processes):
        for arm in list(arms) if repetition % 2 == 0 else list(reversed(arms)):
            progress(f"{row}: {arm} warm ({repetition + 1}/{warm_processes})")
            timing.arms[arm].warm_only.append(run(arm, graphmend_cache(arm), inductor_caches[arm]))
            checkpoint(timing)
    reference = timing.arms.get("torch")
    for arm, result in timing.arms.items():
        every = result.samples + result.warm_only
        timing.same_messages[arm] = all(s.messages == eager.messages for s in every)
        if reference and reference.samples:
            timing.same_output[arm] = all(_same_output(s.output, reference.samples[0].output) for s in every)
    return timing


# -- the report -----------------------------------------------------------------------------------


def control_ratios(results: Sequence[RowTiming]) -> dict[str, Spread | None]:
    rows = [r for r in results if "control" in r.arms and not r.error]
    return {
        measure: Spread.of([value for r in rows for value in r.ratios("control", measure)])
        for measure in ("cold_s", "steady_s", "warm_ms")
    }


def noisy(results: Sequence[RowTiming]) -> list[str]:
    """The measures ("cold_s", "warm_ms") whose control ratio left
    1.00 +- CONTROL_TOLERANCE: their ratios in this run are not to be trusted."""
    return [
        measure for measure, spread in control_ratios(results).items()
        if spread is not None and abs(spread.median - 1.0) > CONTROL_TOLERANCE
    ]


def verdict(ratio: Spread | None) -> str:
    if ratio is None:
        return "-"
    if ratio.low == ratio.high:
        return "one run: no spread to judge by"
    if ratio.crosses(1.0):
        return "even (spread crosses 1.00)"
    return "faster" if ratio.high < 1.0 else "slower"


def _graphs(result: ArmResult) -> str:
    if not result.samples:
        return "-"
    return f"{result.samples[0].graphs} / {result.samples[0].break_events}"


def markdown(results: Sequence[RowTiming], environment: dict[str, str], repetitions: int, warm: int,
             warm_processes: int = 0, large_batch: int = 0) -> str:
    over = (f"{warm_processes} more processes per arm that compile from the inductor cache the cold ones filled "
            "(a process that has just compiled from an empty cache is not timed warm: its latency varies up to 2x "
            "from one such process to the next)") if warm_processes else "those processes"
    lines = [
        f"Each figure: median over {repetitions} fresh processes per arm with empty caches, [min-max]; "
        f"warm = median of {warm} calls per process after its steady state, over {over}; to steady state = "
        "the first call and each later one until Dynamo converts no more frames and graphmend watches no more; "
        "ratios paired by repetition (graphmend / torch.compile; below 1 is faster).",
        "",
        "| row | graphs / breaks | torch.compile cold s | graphmend.compile cold s | cold ratio | cold | "
        "to steady state ratio | to steady | torch.compile warm ms | graphmend warm ms | warm ratio | warm |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if r.error:
            lines.append(f"| {r.title} | error: {r.error} |" + " |" * 10)
            continue
        for arm in [a for a in r.arms if a not in ("torch",) and not ARMS[a].switch]:
            torch_arm, ours = r.arms["torch"], r.arms[arm]
            label = r.title if arm == "graphmend" else f"{r.title}: {ARMS[arm].title}"
            cold, warm_ratio = r.ratio(arm, "cold_s"), r.ratio(arm, "warm_ms")
            to_steady = r.ratio(arm, "steady_s")
            lines.append(
                f"| {label} | {_graphs(torch_arm)} → {_graphs(ours)} "
                f"| {_text(torch_arm.cold(), '.2f')} | {_text(ours.cold(), '.2f')} "
                f"| {_text(cold, '.2f')} | {verdict(cold)} | {_text(to_steady, '.2f')} | {verdict(to_steady)} "
                f"| {_text(torch_arm.warm(), '.2f')} | {_text(ours.warm(), '.2f')} "
                f"| {_text(warm_ratio, '.2f')} | {verdict(warm_ratio)} |"
            )
    if large_batch > 1:
        lines += [
            "",
            f"Warm at {large_batch}x the batch (the inputs repeated along dim 0; same processes, after the "
            "recompile the new shape causes):",
            "",
            "| row | torch.compile warm ms | graphmend warm ms | warm ratio | warm |",
            "|---|---|---|---|---|",
        ]
        for r in results:
            if not r.error and "graphmend" in r.arms:
                ratio = r.ratio("graphmend", "warm_large_ms")
                lines.append(
                    f"| {r.title} | {_text(r.arms['torch'].warm('warm_large_ms'), '.2f')} "
                    f"| {_text(r.arms['graphmend'].warm('warm_large_ms'), '.2f')} "
                    f"| {_text(ratio, '.2f')} | {verdict(ratio)} |"
                )
    switches = [r for r in results if not r.error and any(ARMS[a].switch for a in r.arms)]
    if switches:
        lines += [
            "",
            "Dynamo's own switches on the original code, beside graphmend (same processes and method):",
            "",
            "| row | arm | graphs / breaks | output = torch.compile's | messages = eager's | cold s | cold ratio | warm ms | warm ratio |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in switches:
            for arm in [a for a in r.arms if ARMS[a].switch or a in ("torch", "graphmend")]:
                result = r.arms[arm]
                lines.append(
                    f"| {r.title} | {ARMS[arm].title} | {_graphs(result)} "
                    f"| {_yes(r.same_output.get(arm))} | {_yes(r.same_messages.get(arm))} "
                    f"| {_text(result.cold(), '.2f')} | {_text(r.ratio(arm, 'cold_s'), '.2f')} "
                    f"| {_text(result.warm(), '.2f')} | {_text(r.ratio(arm, 'warm_ms'), '.2f')} |"
                )
    control = control_ratios(results)
    lines += [
        "",
        "Control (torch.compile against itself): cold " + _text(control["cold_s"], ".2f")
        + ", warm " + _text(control["warm_ms"], ".2f")
        + (f" -- **noisy run** for {' and '.join(_MEASURES[m] for m in noisy(results))}: the control left "
           "1.00 ± 0.05, so those ratios are not to be trusted" if noisy(results) else " (within 1.00 ± 0.05)"),
        "",
        "Environment: " + ", ".join(f"{k} {v}" for k, v in environment.items()) + ".",
    ]
    return "\n".join(lines) + "\n"


_MEASURES = {"cold_s": "cold", "steady_s": "to steady state", "warm_ms": "warm"}


def _text(spread: Spread | None, spec: str) -> str:
    return "-" if spread is None else spread.text(spec)


def _yes(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "**no**")


def to_json(results: Sequence[RowTiming]) -> list[dict]:
    rows = []
    for r in results:
        data = asdict(r)
        data["ratios"] = {
            arm: {m: asdict(s) if (s := r.ratio(arm, m)) else None
                  for m in ("cold_s", "steady_s", "warm_ms", "warm_large_ms")}
            for arm in r.arms if arm != "torch"
        }
        rows.append(data)
    return rows


#: ``timing.csv``'s columns (``benchmarks/results/first-call-cpu.csv`` is one such file; files
#: written before the steady-state measure have ``first_two_calls`` columns in its place).
CSV_COLUMNS = ("row", "graphs_breaks_before", "graphs_breaks_after", *(
    f"{what}{bound}" for what in ("torch_cold_s", "graphmend_cold_s", "cold_ratio", "to_steady_ratio",
                                  "torch_warm_ms", "graphmend_warm_ms", "warm_ratio") for bound in ("", "_min", "_max")),
    "cold_verdict", "to_steady_verdict", "warm_verdict")


def to_csv(results: Sequence[RowTiming]) -> str:
    """The table :func:`markdown` shows, one line per row and arm, as CSV
    (medians, minima and maxima in columns of their own)."""
    def spread(value: Spread | None) -> list[str]:
        return ["", "", ""] if value is None else [f"{v:.2f}" for v in (value.median, value.low, value.high)]

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in results:
        if r.error:
            continue
        for arm in [a for a in r.arms if a != "torch" and not ARMS[a].switch]:
            torch_arm, ours = r.arms["torch"], r.arms[arm]
            cold, warm_ratio = r.ratio(arm, "cold_s"), r.ratio(arm, "warm_ms")
            to_steady = r.ratio(arm, "steady_s")
            writer.writerow([r.title if arm == "graphmend" else f"{r.title}: {ARMS[arm].title}",
                             _graphs(torch_arm), _graphs(ours), *spread(torch_arm.cold()), *spread(ours.cold()),
                             *spread(cold), *spread(to_steady), *spread(torch_arm.warm()), *spread(ours.warm()),
                             *spread(warm_ratio), verdict(cold), verdict(to_steady), verdict(warm_ratio)])
    return buffer.getvalue()


def run(rows: Sequence[str], arms: Sequence[str], *, repetitions: int, backend: str, device: str, warm: int,
        threads: int, out: Path, environment: dict[str, str], control_row: str | None, warm_processes: int = 0,
        large_batch: int = 0, progress: Callable[[str], None] = lambda _: None) -> list[RowTiming]:
    """Every row in turn (some arms on ``control_row`` only); results
    are written after each row, so a run stopped early keeps what it measured."""
    out.mkdir(parents=True, exist_ok=True)
    results: list[RowTiming] = []

    def write(rows_so_far: list[RowTiming]) -> None:
        data = {"environment": environment, "repetitions": repetitions, "warm": warm,
                "warm_processes": warm_processes, "large_batch": large_batch,
                "noisy": noisy(rows_so_far), "rows": to_json(rows_so_far)}
        (out / "timing.json").write_text(json.dumps(data, indent=2))
        (out / "timing.md").write_text(markdown(rows_so_far, environment, repetitions, warm, warm_processes,
                                                large_batch))
        (out / "timing.csv").write_text(to_csv(rows_so_far))

    with tempfile.TemporaryDirectory(prefix="graphmend-timing-") as scratch:
        for row in rows:
            row_arms = [a for a in arms if not ARMS[a].control_row_only or row == control_row]
            try:
                results.append(measure_row(row, row_arms, repetitions=repetitions, backend=backend, device=device,
                                           warm=warm, threads=threads, scratch=Path(scratch),
                                           warm_processes=warm_processes, large_batch=large_batch,
                                           progress=progress, checkpoint=lambda partial: write([*results, partial])))
            except Exception as error:  # one failing row must not hide the others
                from benchmarks import corpus

                results.append(RowTiming(row, corpus.find(row).title, {}, error=f"{type(error).__name__}: {error}"))
            write(results)
    return results


def _worker_main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.timing")
    parser.add_argument("--worker", nargs=2, metavar=("ROW", "ARM"), required=True)
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--result", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--large-batch", type=int, default=0)
    args = parser.parse_args(argv)
    row, arm = args.worker
    data = worker(row, arm, backend=args.backend, device=args.device, warm=args.warm, threads=args.threads,
                  output=Path(args.output), large_batch=args.large_batch)
    Path(args.result).write_text(json.dumps(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(_worker_main())
