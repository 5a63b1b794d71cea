"""``make compat``: graphmend on every torch version, as a matrix.

    python -m benchmarks.compat_matrix matrix [--venvs DIR...] [--fuzz N] [--out compat-results.md]
    python -m benchmarks.compat_matrix rows [--rows t5,phi3_longrope] [--json FILE]

``matrix`` runs, one venv after another (``.compat/torch-*`` by default,
each with graphmend installed editable), this file's ``rows`` and a fuzz
sample (``PYTHONPATH=tests python -m fuzz --programs N``), and writes a
markdown matrix (``--out``) plus the raw results beside it (``.json``).

``rows`` runs every corpus row (``benchmarks.corpus.ROWS``) in the current
interpreter: ``diagnose`` the original, ``mend`` it (only the row's
modules), ``diagnose`` again, then compare the mended model under
``torch.compile(backend="eager")`` with the original run eagerly, bit for
bit, on every input variant of the row.  LC and DC rows must end at 0
breaks; DS and mixed rows keep the breaks no rule fixes, reported as after
vs expected (``Row.expected_breaks`` is the original's count).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# -- one interpreter: the rows --------------------------------------------------------


def run_row(name: str) -> dict:
    import torch

    import graphmend
    from benchmarks import corpus
    from graphmend.compare import first_difference
    from graphmend.mending.live import unmend

    row = corpus.ROWS[name]
    result: dict = {"row": name, "family": row.family, "expected_breaks": row.expected_breaks}
    started = time.time()
    model = None
    try:
        torch._dynamo.reset()
        variants = ("default", *row.variants)
        with torch.no_grad():
            eager_model = row.model()
            eager = {v: eager_model(*row.inputs(v)[0], **row.inputs(v)[1]) for v in variants}
            del eager_model
            model = row.model()
            args, kwargs = row.inputs()
            result["before"] = graphmend.diagnose(row.model(), *args, mended=False, **kwargs).break_count
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                graphmend.mend(model, modules=row.modules)
            result["mend_warnings"] = [str(w.message)[:300] for w in caught if "graphmend" in str(w.message)]
            after = graphmend.diagnose(model, *args, mended=False, **kwargs)
            result["after"] = after.break_count
            result["after_sites"] = [f"{b.category} {b.location} x{b.count}: {b.reason[:120]}" for b in after.breaks]
            # A fresh mended model for the comparison (diagnose ran it twice:
            # a row that keeps state across calls must start clean).
            compared = row.model()
            graphmend.mend(compared, modules=row.modules)
            torch._dynamo.reset()
            compiled = torch.compile(compared, backend="eager")
            differences = []
            for variant in variants:
                v_args, v_kwargs = row.inputs(variant)
                difference = first_difference(eager[variant], compiled(*v_args, **v_kwargs))
                if difference is not None:
                    differences.append(f"{variant}: {difference}")
            result["identical"] = not differences
            result["difference"] = "; ".join(differences)[:500] or None
            unmend(compared)
    except Exception as error:  # noqa: BLE001 -- a row's failure is a result
        result["error"] = f"{type(error).__name__}: {str(error)[:500]}"
    finally:
        if model is not None:
            unmend(model)
        torch._dynamo.reset()
    result["seconds"] = round(time.time() - started, 1)
    return result


def rows_main(args: argparse.Namespace) -> int:
    import torch

    from graphmend import compat
    from benchmarks import corpus

    names = args.rows.split(",") if args.rows else list(corpus.ROWS)
    out = {"torch": torch.__version__, "python": sys.version.split()[0], "rows": []}
    for name in names:
        result = run_row(name)
        print(json.dumps(result), flush=True)
        out["rows"].append(result)
    out["disabled_rules"] = compat.disabled_rules()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


# -- the matrix: one venv after another -----------------------------------------------------


def _fuzz(python: str, programs: int, jobs: int, timeout: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests"), GRAPHMEND_FUZZ_PROGRAMS=str(programs))
    started = time.time()
    try:
        proc = subprocess.run([python, "-m", "fuzz", "--jobs", str(jobs), "--reduce", "0"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    text = proc.stdout + proc.stderr
    found = {key: re.search(pattern, text) for key, pattern in (
        ("programs", r"programs run: (\d+) \((\d+) also compiled\)"),
        ("mismatches", r"mismatches: (\d+)"),
        ("dynamo", r"torch.compile of the original shows too \(Dynamo's\): (\d+)"),
    )}
    result = {"seconds": round(time.time() - started), "returncode": proc.returncode}
    if found["programs"]:
        result["programs"], result["compiled"] = int(found["programs"][1]), int(found["programs"][2])
    if found["mismatches"]:
        result["mismatches"] = int(found["mismatches"][1])
    if found["dynamo"]:
        result["dynamo_divergences"] = int(found["dynamo"][1])
    if "mismatches" not in result:
        result["error"] = text[-1500:]
    else:
        result["kinds"] = re.findall(r"^\s+\d+\s+\S+ arm, .*$", text, re.MULTILINE)[:10]
    return result


def _versions_of(python: str) -> tuple[str, str]:
    """torch's and Python's versions in that interpreter."""
    out = subprocess.run([python, "-c", "import platform, torch; print(torch.__version__, platform.python_version())"],
                         capture_output=True, text=True, check=True).stdout.split()
    return out[0], out[1]


def matrix_main(args: argparse.Namespace) -> int:
    venvs = args.venvs or sorted(str(p) for p in (ROOT / ".compat").glob("torch-*"))
    results = []
    for venv in venvs:
        python = str(Path(venv) / "bin" / "python")
        entry: dict = {"venv": venv}
        try:
            entry["torch"], entry["python"] = _versions_of(python)
        except (subprocess.CalledProcessError, OSError) as error:
            entry["error"] = str(error)
            results.append(entry)
            continue
        print(f"== {venv}: torch {entry['torch']}, Python {entry['python']}", flush=True)
        raw = Path(args.out).with_suffix(f".{entry['torch']}-py{entry['python']}.rows.json")
        started = time.time()
        command = [python, "-m", "benchmarks.compat_matrix", "rows", "--json", str(raw)]
        if args.rows:
            command += ["--rows", args.rows]
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=args.row_timeout,
                              check=False)
        entry["rows_seconds"] = round(time.time() - started)
        if raw.exists():
            entry.update(json.loads(raw.read_text()))
            raw.unlink()
        else:
            entry["error"] = (proc.stdout + proc.stderr)[-2000:]
        for row in entry.get("rows", []):
            print(f"   {row['row']}: {row.get('before')} -> {row.get('after')} identical={row.get('identical')}"
                  f"{' ERROR ' + row['error'] if 'error' in row else ''}", flush=True)
        if args.fuzz:
            entry["fuzz"] = _fuzz(python, args.fuzz, args.jobs, args.fuzz_timeout)
            print(f"   fuzz: {entry['fuzz']}", flush=True)
        results.append(entry)
    Path(args.out).with_suffix(".json").write_text(json.dumps(results, indent=1))
    markdown = render(results)
    Path(args.out).write_text(markdown)
    print(markdown)
    return 0 if all(_passes(entry) for entry in results) else 1


def _row_ok(row: dict) -> bool:
    if "error" in row or not row.get("identical"):
        return False
    if row["family"] in ("LC", "DC"):
        return row.get("after") == 0
    return row.get("after") is not None and row["after"] <= row["expected_breaks"]


def _passes(entry: dict) -> bool:
    fuzz = entry.get("fuzz", {"mismatches": 0})
    return ("error" not in entry and bool(entry.get("rows")) and all(_row_ok(r) for r in entry["rows"])
            and fuzz.get("mismatches") == 0)


def render(results: list[dict]) -> str:
    lines = [("| torch | Python | LC/DC rows at 0 breaks | DS/mixed rows: breaks after / expected (before) | identical "
              "| fuzz mismatches | rules off | time |"), "|---|---|---|---|---|---|---|---|"]
    for entry in results:
        rows = entry.get("rows", [])
        zero = [r for r in rows if r["family"] in ("LC", "DC")]
        kept = [r for r in rows if r["family"] not in ("LC", "DC")]
        at_zero = sum(1 for r in zero if r.get("after") == 0 and "error" not in r)
        others = ", ".join(f"{r['row']} {r.get('after', '?')}/{r['expected_breaks']}"
                           + (f" ({r['before']})" if r.get("before") != r["expected_breaks"] else "") for r in kept)
        identical = sum(1 for r in rows if r.get("identical"))
        fuzz = entry.get("fuzz")
        fuzz_text = "-" if fuzz is None else (f"{fuzz['mismatches']} of {fuzz.get('programs', '?')}"
                                               if "mismatches" in fuzz else "error")
        off = ", ".join(sorted(entry.get("disabled_rules", {}))) or "none"
        seconds = entry.get("rows_seconds", 0) + (fuzz or {}).get("seconds", 0)
        lines.append(f"| {entry.get('torch', entry['venv'])} | {entry.get('python', '?')} | {at_zero}/{len(zero)} | {others or '-'} "
                     f"| {identical}/{len(rows)} | {fuzz_text} | {off} | {seconds} s |")
    failures = []
    for entry in results:
        for row in entry.get("rows", []):
            if not _row_ok(row):
                detail = row.get("error") or row.get("difference") or "; ".join(row.get("after_sites", []))
                failures.append(f"- torch {entry.get('torch')}, {row['row']}: {row.get('before')} -> "
                                f"{row.get('after')} breaks, identical={row.get('identical')}: {detail}")
        if "error" in entry:
            failures.append(f"- {entry['venv']}: {entry['error'][:500]}")
        fuzz = entry.get("fuzz") or {}
        if fuzz.get("mismatches") or "error" in fuzz:
            failures.append(f"- torch {entry.get('torch')}, fuzz: {fuzz.get('kinds') or fuzz.get('error', '')[:500]}")
    if failures:
        lines += ["", "Failures:", *failures]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compat_matrix", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rows = sub.add_parser("rows", help="the corpus rows in this interpreter")
    rows.add_argument("--rows", help="comma-separated row names (default: all)")
    rows.add_argument("--json", help="write the results here")
    matrix = sub.add_parser("matrix", help="rows and a fuzz sample in every venv, one after another")
    matrix.add_argument("--venvs", nargs="*", help="venv folders (default: .compat/torch-*)")
    matrix.add_argument("--rows", help="comma-separated row names (default: all)")
    matrix.add_argument("--fuzz", type=int, default=40, help="fuzz programs per venv (0: none)")
    matrix.add_argument("--jobs", type=int, default=5,
                        help="fuzz processes (each runs whole batches of 8: 40 programs = 5 jobs x 8)")
    matrix.add_argument("--out", default="compat-results.md")
    matrix.add_argument("--row-timeout", type=int, default=1800)
    matrix.add_argument("--fuzz-timeout", type=int, default=900)
    args = parser.parse_args(argv)
    return rows_main(args) if args.command == "rows" else matrix_main(args)


if __name__ == "__main__":
    sys.exit(main())
