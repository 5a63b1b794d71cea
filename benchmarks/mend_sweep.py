"""Mend every function of every transformers modeling module in memory, and
count the files whose mending failed (an exception inside graphmend, caught
and logged as "mending functions in FILE failed").

Wider reach walks more library files than any corpus row; each must mend or
decline with a reason, never crash.  This runs the live path (plan, rules,
scope, swap) over all of them, nothing else: no model is built or called.

    python -m benchmarks.mend_sweep [--limit N]
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mend_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N modules")
    options = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    os.environ.setdefault("GRAPHMEND_CACHE_DIR", tempfile.mkdtemp())
    import transformers.models

    from graphmend.mending import live, search
    from graphmend.mending.foreign import module_name

    failures: list[tuple[str, str]] = []
    current = ""

    class Failures(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                failures.append((current, record.getMessage()))

    logging.getLogger("graphmend").addHandler(Failures())
    names = sorted(m.name for m in pkgutil.walk_packages(transformers.models.__path__, "transformers.models.")
                   if ".modeling_" in m.name and "_tf_" not in m.name and "_flax_" not in m.name)
    start, modules, mended = time.perf_counter(), 0, 0
    for current in names[: options.limit]:
        try:
            importlib.import_module(current)
        except Exception:  # an optional dependency this environment lacks
            continue
        functions = search.functions_behind(search.functions_in_modules([current]))
        requests = [(f, None) for f in functions if module_name(f) == current]
        mended += len(live._mend_functions(requests, None))
        modules += 1
    print(f"{modules} modules, {mended} functions mended, {len(failures)} failures, "
          f"{time.perf_counter() - start:.0f} s")
    for module, message in failures:
        print(f"  {module}: {message}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
