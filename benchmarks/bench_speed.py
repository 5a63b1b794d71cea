"""``python -m benchmarks --speed``: how long graphmend itself takes.

Three measurements, each as a user meets it (whole fresh processes, empty
graphmend cache), repeated and interleaved where there is a comparison:

* ``graphmend fix --check`` on transformers' ``modeling_t5.py`` against a
  process that only imports LibCST and parses the same file
  (``libcst.parse_module``): the floor of any LibCST codemod;
* ``graphmend fix --check`` over every ``modeling_*.py`` of the installed
  transformers, with the number of sites it finds;
* mending T5 from a diagnosis (``graphmend.api.mend_report``, what
  ``graphmend.compile(..., diagnose=True)`` does) with an empty cache, in a
  process that has already built and diagnosed the model;
* the reach walk ``graphmend.compile`` starts with (``graphmend.mending.reach``):
  functions reached, objects visited and the walk's time (median of 5), for
  T5, a torchmetrics metric and torchdiffeq's dopri5 solver (the ecosystem
  rows, where those libraries are installed);
* what a warm call costs beside the graph it runs: a one-operation
  function called eagerly, through ``torch.compile`` (twice: the control)
  and through ``graphmend.compile`` (Dynamo's eager backend), 20,000 calls
  each, interleaved, in fresh processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from benchmarks.timing import Spread


def _transformers_models() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("transformers")
    return Path(spec.origin).parent / "models"


def _wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


_MEND_FROM_DIAGNOSIS = """
import json, sys, time, torch, graphmend
from benchmarks import corpus
from graphmend.api import mend_report
row = corpus.ROWS["t5"]
model = row.model()
args, kwargs = row.inputs()
with torch.no_grad():
    report = graphmend.diagnose(model, *args, mended=False, **kwargs)
start = time.perf_counter()
mended = mend_report(model, report)
print(json.dumps({"seconds": time.perf_counter() - start, "functions": len(mended)}))
"""


_REACH = """
import json, statistics, warnings
warnings.filterwarnings("ignore")
from benchmarks import corpus, ecosystem
from graphmend.mending.reach import reach
row = corpus.ROWS["t5"]
targets = {"T5 (module)": (row.model(), row.inputs()[0])}
for name in ("tm_pearson", "odeint_dopri5"):
    try:
        function, args, _ = ecosystem.get(name).make(False)
    except ImportError:  # the ecosystem's libraries are an extra
        continue
    targets[f"{ecosystem.get(name).title} ({name})"] = (function, args)
results = {}
for title, (obj, args) in targets.items():
    walks = [reach(obj, args) for _ in range(5)]
    results[title] = {"functions": len(walks[0].functions), "visited": walks[0].visited,
                      "ms": statistics.median(w.seconds for w in walks) * 1e3}
print(json.dumps(results))
"""


_WARM_CALL = """
import json, time, warnings
warnings.filterwarnings("ignore")
import torch, graphmend
torch.set_num_threads(1)
def f(x):
    return x * 2 + 1
x = torch.randn(8)
arms = {"eager": f, "torch": torch.compile(f, backend="eager"), "control": torch.compile(f, backend="eager"),
        "graphmend": graphmend.compile(f, backend="eager")}
for arm in arms.values():
    for _ in range(100):
        arm(x)
times = {name: [] for name in arms}
for _ in range(5):
    for name, arm in arms.items():
        start = time.perf_counter()
        for _ in range(20000):
            arm(x)
        times[name].append((time.perf_counter() - start) / 20000 * 1e6)
print(json.dumps({name: sorted(t)[2] for name, t in times.items()}))
"""


def _child_json(script: str, env: dict[str, str] | None = None) -> dict:
    """The JSON a fresh ``python -c script`` prints last."""
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _warm_call(repetitions: int) -> dict:
    """Microseconds a warm call costs in each arm (median over fresh
    processes of each process's median), and graphmend's and the control's
    ratio to torch.compile, paired by process."""
    runs = [_child_json(_WARM_CALL) for _ in range(repetitions)]
    return {
        **{f"{arm}_us": Spread.of([r[arm] for r in runs]) for arm in ("eager", "torch", "control", "graphmend")},
        "graphmend_ratio": Spread.of([r["graphmend"] / r["torch"] for r in runs]),
        "control_ratio": Spread.of([r["control"] / r["torch"] for r in runs]),
    }


def run(repetitions: int = 5) -> dict:
    t5 = _transformers_models() / "t5" / "modeling_t5.py"
    results: dict = {}
    fix_times, parse_times = [], []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GRAPHMEND_CACHE_DIR": cache}
        fix = [sys.executable, "-m", "graphmend", "fix", "--check", str(t5)]
        parse = [sys.executable, "-c", f"import libcst; libcst.parse_module(open({str(t5)!r}).read())"]
        for index in range(repetitions):
            for name in (("fix", "parse") if index % 2 == 0 else ("parse", "fix")):
                if name == "fix":
                    fix_times.append(_wall(fix, env))
                else:
                    parse_times.append(_wall(parse, env))
        results["t5_fix_check_s"] = Spread.of(fix_times)
        results["t5_parse_s"] = Spread.of(parse_times)
        results["t5_ratio"] = Spread.of([f / p for f, p in zip(fix_times, parse_times)])

        files = sorted(str(p) for p in _transformers_models().glob("*/modeling_*.py"))
        lines = sum(len(Path(p).read_text().splitlines()) for p in files)
        start = time.perf_counter()
        completed = subprocess.run([sys.executable, "-m", "graphmend", "fix", "--check", "--format", "json", *files],
                                   env=env, capture_output=True, text=True, check=False)
        results["all_modeling_s"] = time.perf_counter() - start
        data = json.loads(completed.stdout)
        results["all_modeling_files"] = len(files)
        results["all_modeling_lines"] = lines
        results["all_modeling_sites"] = sum(len(f["sites"]) for f in data["files"])
        results["all_modeling_errors"] = sum(1 for f in data["files"] if f["error"])

    mend_times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as cache:
            mend_times.append(_child_json(_MEND_FROM_DIAGNOSIS, {**os.environ, "GRAPHMEND_CACHE_DIR": cache})["seconds"])
    results["t5_mend_from_diagnosis_s"] = Spread.of(mend_times)
    results["reach"] = _child_json(_REACH)
    results["warm_call"] = _warm_call(repetitions)
    results["cores"] = os.cpu_count()
    return results


def markdown(results: dict) -> str:
    return "\n".join([
        "| measurement | result |",
        "|---|---|",
        f"| `graphmend fix --check modeling_t5.py`, whole process | {results['t5_fix_check_s'].text('.2f')} s |",
        f"| `libcst.parse_module(modeling_t5.py)`, whole process | {results['t5_parse_s'].text('.2f')} s |",
        f"| ratio fix / parse (paired) | {results['t5_ratio'].text('.2f')}x |",
        f"| `graphmend fix --check` over every `modeling_*.py` ({results['all_modeling_files']} files, "
        f"{results['all_modeling_lines']:,} lines), {results['cores']} cores | {results['all_modeling_s']:.0f} s, "
        f"{results['all_modeling_sites']} sites, {results['all_modeling_errors']} errors |",
        f"| mend T5 from a diagnosis, empty cache | {results['t5_mend_from_diagnosis_s'].text('.2f')} s |",
        *(f"| reach walk of {title}: {r['functions']} functions, {r['visited']} objects visited | {r['ms']:.1f} ms |"
          for title, r in results["reach"].items()),
        *_warm_call_rows(results["warm_call"]),
    ]) + "\n"


def _warm_call_rows(warm: dict) -> list[str]:
    calls = ", ".join(f"{arm} {warm[f'{arm}_us'].text('.1f')}" for arm in ("eager", "torch", "control", "graphmend"))
    return [f"| a warm call of `x * 2 + 1`, µs: {calls} | graphmend / torch.compile "
            f"{warm['graphmend_ratio'].text('.2f')}x (control {warm['control_ratio'].text('.2f')}x) |"]


def write(results: dict, out: Path) -> str:
    """speed.json and speed.md in ``out``; the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(results)
    (out / "speed.md").write_text(text)
    def plain_value(value):
        if isinstance(value, Spread):
            return asdict(value)
        return {k: plain_value(v) for k, v in value.items()} if isinstance(value, dict) else value

    plain = {k: plain_value(v) for k, v in results.items()}
    (out / "speed.json").write_text(json.dumps(plain, indent=2))
    return text
