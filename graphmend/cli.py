"""The ``graphmend`` command: ``main(argv) -> int``, no global settings."""

from __future__ import annotations

import argparse
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
    from graphmend.diagnose import BreakRecorder

    script_args, trailing_format = _split_trailing_format(list(args.script_args))
    fmt = trailing_format or args.format
    if not os.path.isfile(args.script):
        print(f"graphmend: no such script: {args.script}", file=sys.stderr)
        return 2
    with BreakRecorder() as recorder:
        status = run_script(args.script, script_args)
    report = recorder.report()
    sys.stdout.flush()
    if fmt == "json":
        print(report.to_json())
    else:
        report.show(Console())
    return status


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
            "(nothing is run twice) and reported when the script ends. The exit status is "
            "the script's."
        ),
        epilog="Example: graphmend diagnose train.py --epochs 1 --format json",
    )
    diagnose.add_argument(
        "--format",
        choices=_FORMATS,
        default="table",
        help="table (default) or json: an object with graph_count, break_count and a "
        "'breaks' list; a final '--format X' after the script's arguments counts too",
    )
    diagnose.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    diagnose.add_argument(
        "script_args", nargs=argparse.REMAINDER, metavar="ARGS", help="the script's arguments"
    )
    diagnose.set_defaults(handler=_cmd_diagnose)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
