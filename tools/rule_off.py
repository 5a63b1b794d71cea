"""The rule-off run: each rule, and each converter, turned off in turn must
turn some test red, or nothing tests it.

    .venv/bin/python tools/rule_off.py [NAME ...]

For each rule (``where``) and each converter (``where.masked_store``) of
``graphmend.pipeline.CONVERTERS``, or the names given, runs the fixtures
(tests/rules/test_fixtures.py) and then the rules' own tests (tests/rules)
with ``GRAPHMEND_DISABLE_RULE=NAME`` (tests/conftest.py turns it off),
stopping at the first failure, and prints the test that went red, or
GREEN.  Exits 1 when one stays green.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Behavioural tests only: the registry's own tests would go red for any
#: converter removed, whatever the converter does.
SUITES = (["tests/rules/test_fixtures.py"], ["tests/rules", "--deselect", "tests/rules/test_registry.py"])


def first_failure(name: str) -> str | None:
    """The first test that fails with ``name`` off, or None."""
    env = dict(os.environ, GRAPHMEND_DISABLE_RULE=name)
    for suite in SUITES:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-rf", *suite],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        failed = [line.split(" ", 2)[1] for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
        if failed:
            return failed[0]
        if proc.returncode not in (0, 5):
            return f"pytest exited {proc.returncode}"
    return None


def main(argv: list[str]) -> int:
    from graphmend import pipeline

    names = argv or [*pipeline.RULE_NAMES, *(converter.name for converter in pipeline.CONVERTERS)]
    green = []
    for name in names:
        failure = first_failure(name)
        print(f"{name:32} {failure or 'GREEN'}", flush=True)
        if failure is None:
            green.append(name)
    return 1 if green else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
