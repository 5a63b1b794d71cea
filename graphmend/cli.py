"""The ``graphmend`` command: ``main(argv) -> int``, no global settings."""

from __future__ import annotations

import argparse
import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Sequence

from rich.console import Console

_FORMATS = ("table", "json")

def _split_trailing_format(rest: list[str]) -> tuple[list[str], str | None]:
    """Take a final ``--format table|json`` off the script's arguments, so
    ``graphmend diagnose s.py a b --format json`` works as the README shows."""
    if len(rest) >= 2 and rest[-2] == "--format" and rest[-1] in _FORMATS:
        return rest[:-2], rest[-1]
    if rest and rest[-1].startswith("--format=") and rest[-1].split("=", 1)[1] in _FORMATS:
        return rest[:-1], rest[-1].split("=", 1)[1]
    return rest, None

def run_script(path: str, argv: list[str]) -> int:
    """Run ``path`` as ``__main__`` with ``argv``; return its exit status."""
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException:  # the script's own error: report it as Python would
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved_argv
        if sys.path and sys.path[0] != saved_path0:
            sys.path.pop(0)

def _cmd_diagnose(args: argparse.Namespace) -> int:
    from graphmend.diagnosis import BreakRecorder

    script_args, trailing_format = _split_trailing_format(list(args.script_args))
    fmt = trailing_format or args.format
    if not os.path.isfile(args.script):
        print(f"graphmend: no such script: {args.script}", file=sys.stderr)
        return 2
    if args.mended:
        from graphmend.api import as_torch_compile, compile_calls_made_with, diagnose_run

        # The torch.compile side: graphmend.compile calls made as torch.compile makes them.
        torch_side = compile_calls_made_with(as_torch_compile)
    else:
        torch_side = contextlib.nullcontext()
    with torch_side, BreakRecorder() as recorder:
        status = run_script(args.script, script_args)
    report = recorder.report()
    sys.stdout.flush()
    if args.capture:
        _attach_capture_verdicts(report, args.script, script_args)
    if args.mended:
        report.mended = diagnose_run(lambda: run_script(args.script, script_args), report)
    if args.html:
        with open(args.html, "w", encoding="utf-8") as page:
            page.write(report.to_html(title=f"graphmend diagnose {args.script}"))
    if fmt == "json":
        print(report.to_json())
    else:
        report.show(Console())
    return status

def _attach_capture_verdicts(report, script: str, script_args: list[str]) -> None:
    """[Capture]'s verdict on each DS / SCALAR site of ``report``, as the
    Python ``diagnose`` gives: the script runs once more, its output
    silenced, with the switches on (scoped to that run, the per-frame
    fallback included).  Dynamo is reset first: the graphs of the first
    run were compiled without capture, and their guards do not read the
    switches, so they would be reused."""
    import torch

    from graphmend.diagnosis import capture_verdicts
    from graphmend.compat import capture
    from graphmend.diagnosis.recording import BreakRecorder, original_function_name
    from graphmend.diagnosis.tracing import silenced

    def trace():
        torch._dynamo.reset()
        with silenced(), capture.scope(), BreakRecorder() as recorder:
            run_script(script, script_args)
        return recorder.report(ask_rules=False), capture.uncaptured_codes()

    capture_verdicts.attach(report, trace, original_function_name)

def _cmd_run(args: argparse.Namespace) -> int:
    from graphmend.errors import GraphmendError
    from graphmend.mending.hook import install, uninstall

    if not os.path.isfile(args.script):
        print(f"graphmend: no such script: {args.script}", file=sys.stderr)
        return 2
    finder = None
    if args.mend:
        try:
            rules = [name.strip() for name in args.select.split(",")] if args.select else None
            finder = install([name for name in args.mend.split(",") if name.strip()], rules=rules)
        except (GraphmendError, ValueError) as err:
            print(f"graphmend: {err}", file=sys.stderr)
            return 2
    try:
        return run_script(args.script, list(args.script_args))
    finally:
        if finder is not None:
            uninstall(finder)

def _cmd_fix(args: argparse.Namespace) -> int:
    import json

    from graphmend.fix import fix_paths
    from graphmend.pipeline import RULE_NAMES

    rules = None
    if args.select:
        rules = [name.strip() for name in args.select.split(",") if name.strip()]
        unknown = sorted(set(rules) - set(RULE_NAMES))
        if unknown:
            print(f"graphmend: unknown rule(s) {unknown}; known: {list(RULE_NAMES)}", file=sys.stderr)
            return 2
    missing = [p for p in args.paths if not os.path.exists(p)]
    for path in missing:
        print(f"{path}:1: no such file or folder", file=sys.stderr)
    run = fix_paths([p for p in args.paths if p not in missing], rules=rules, write=args.mode == "write",
                    jobs=args.jobs)
    if args.format == "json":
        print(json.dumps({"files": [f.to_dict() for f in run.files]}, indent=2))
    else:
        for item in run.files:
            if item.error:
                continue
            if args.mode == "diff":
                sys.stdout.write(item.diff())
            for site in item.result.sites:
                verb = "fixed" if args.mode == "write" else "fixable"
                print(f"{item.path}:{site.lineno}: [{site.rule}] {verb}: {site.what}")
            if args.verbose:
                for skip in item.result.skips:
                    print(f"{item.path}:{skip.lineno}: [{skip.rule}] left alone: {skip.reason}")
    for item in run.errors:
        print(item.error, file=sys.stderr)
    if missing or run.errors:
        return 2
    if args.mode in ("check", "diff") and run.changed:
        return 1
    return 0

def _script_arguments(parser: argparse.ArgumentParser) -> None:
    """SCRIPT and its own arguments, all that follows it."""
    parser.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, metavar="ARGS", help="the script's arguments")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graphmend",
        description="Find torch.compile graph breaks, say why, and mend the fixable ones.",
        epilog="See 'graphmend COMMAND --help' for each command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    diagnose = commands.add_parser(
        "diagnose",
        help="run a script and report every graph break of what it compiles",
        description=(
            "Run SCRIPT as __main__ with its own arguments. Every graph break of every "
            "torch.compile'd callable it runs is recorded from Dynamo's own break records "
            "(nothing is run twice, but with --capture or --mended) and reported when the script "
            "ends. The exit status is the script's (of its first run)."
        ),
        epilog="Example: graphmend diagnose --mended --html report.html train.py --epochs 1",
    )
    diagnose.add_argument(
        "--format",
        choices=_FORMATS,
        default="table",
        help="table (default) or json: an object with graph_count, break_count and a "
        "'breaks' list; a final '--format X' after the script's arguments counts too",
    )
    diagnose.add_argument(
        "--capture",
        action="store_true",
        help="say for each DS / SCALAR break whether graphmend.compile's [Capture] holds it in "
        "the graph, and why not: runs the script a second time, its output silenced, with "
        "Dynamo's capture switches on for that run only",
    )
    diagnose.add_argument(
        "--mended",
        action="store_true",
        help="also report what graphmend.compile runs: the script runs as written with every "
        "graphmend.compile made a torch.compile (the torch.compile side, its output shown), then "
        "a second time, its output silenced, with every torch.compile made a graphmend.compile "
        "(graphs compiled, the breaks left, the sites held, [Capture]'s fallbacks)",
    )
    diagnose.add_argument("--html", metavar="PAGE", help="also write the report to PAGE as one self-contained "
                          "HTML page (each site's source beside the code graphmend.compile runs there)")
    _script_arguments(diagnose)
    diagnose.set_defaults(handler=_cmd_diagnose)

    run = commands.add_parser(
        "run",
        help="run a script with the named modules mended as they are imported",
        description=(
            "Run SCRIPT as __main__ with its own arguments. With --mend, every module whose "
            "name is or lies under one of the given names is rewritten by the rules as it is "
            "imported (static matching, in memory; rewritten sources are cached). The "
            "standard library, torch and graphmend are never rewritten. The exit status is "
            "the script's (2 for graphmend's own usage errors)."
        ),
        epilog="Example: graphmend run --mend transformers.models.t5,mylib train.py --epochs 1",
    )
    run.add_argument("--mend", metavar="MODULES", help="comma-separated module names (prefixes) to mend on import")
    run.add_argument("--select", metavar="RULES", help="comma-separated rules to apply (default: all): trap,where,defer")
    _script_arguments(run)
    run.set_defaults(handler=_cmd_run)

    fix = commands.add_parser(
        "fix",
        help="rewrite source files so they compile without the fixable breaks",
        description=(
            "Static codemod over files and folders, run without executing them. Comments "
            "and formatting are kept; only the rewritten statements (and the import they "
            "need) change. Where whether a value is a tensor cannot be inferred, the "
            "rewrite dispatches at run time, which is correct either way."
        ),
        epilog=(
            "Exit status: 0 nothing to fix (or everything fixed with --write); 1 --check "
            "found fixable sites or --diff has changes; 2 an error (reported as "
            "file:line: message; the file is left untouched)."
        ),
    )
    fix.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (*.py, recursively)")
    mode = fix.add_mutually_exclusive_group()
    mode.add_argument("--diff", dest="mode", action="store_const", const="diff", help="print a unified diff")
    mode.add_argument("--write", dest="mode", action="store_const", const="write", help="rewrite the files in place, atomically")
    mode.add_argument("--check", dest="mode", action="store_const", const="check", help="list fixable sites; exit 1 if any (for CI)")
    fix.set_defaults(mode="check")
    fix.add_argument("--select", metavar="RULES", help="comma-separated rules to apply (default: all): trap,where,defer")
    fix.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    fix.add_argument("--jobs", type=int, metavar="N", help="processes to share the files out to (default: one per core)")
    fix.add_argument("-v", "--verbose", action="store_true", help="also list the sites each rule left alone, and why")
    fix.set_defaults(handler=_cmd_fix)

    return parser

def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.handler(args)

if __name__ == "__main__":
    sys.exit(main())
