"""The self-test: rewritten code as the rules write it, compiled under
``torch.compile(backend="eager", fullgraph=True)`` against the runtime,
checking end to end that a deferred print inside an inlined helper is
replayed once, a deferred log call keeps its logger and level, and a
deferred check raises the exact exception."""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import types
from collections.abc import Iterator
from typing import Any

import torch

from graphmend.compat.counters import trial_compiles
from graphmend.conventions import RUNTIME_ALIAS

logger = logging.getLogger("graphmend")



#: Rewritten code as the rules write it: a deferred print inside an inlined
#: helper, a deferred log call and a deferred check.  Compiled afresh from
#: this text by each :func:`self_test`, so its code objects (and the cache
#: entries Dynamo keeps on them) are its own and die with it.
_SELF_TEST_SOURCE = """
def helper(x):
    _graphmend.deferred_print("graphmend self-test", x, stream="_graphmend_self_test")
    return x + 1

def printed(x):
    return helper(x) * 2

def logged(x):
    _graphmend.deferred_log(logger, "warning", "graphmend self-test %s", x)
    return x * 2

def checked(x):
    if _graphmend.deferred_check((x > 0).any(), "ValueError", "graphmend.compat", lambda: ("graphmend self-test",)):
        raise ValueError("graphmend self-test")
    return x * 2

def everything(x):
    y = printed(x)
    logged(x)
    return checked(y)
"""


#: check -> the rules that cannot work without it.
SELF_TEST_RULES = {
    "a deferred print inside an inlined helper is replayed once": ("defer", "trap"),
    "a deferred log call keeps its logger and level": ("defer",),
    "a deferred check raises the exact exception": ("trap",),
}


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def _recorded(test_logger: logging.Logger, handler: logging.Handler) -> Iterator[None]:
    """``test_logger`` at DEBUG, writing to ``handler`` only, and out of
    reach of ``logging.disable(...)`` (a benchmark script's, a service's):
    a logger reads that from its manager, and it gets one of its own for
    the while.  The log check would otherwise fail there, turn [Defer]
    off, and have every rewrite the helper process made for the first
    call made again in this process (10 s of a first call of Chronos's
    T5).  The runtime finds a deferred call's logger by name, so it stays
    the registered one."""
    saved = test_logger.handlers[:], test_logger.propagate, test_logger.level, test_logger.disabled
    test_logger.manager = logging.Manager(logging.root)  # an instance attribute over the class's
    test_logger.handlers[:] = [handler]
    test_logger.propagate, test_logger.disabled = False, False
    test_logger.setLevel(logging.DEBUG)
    test_logger._cache.clear()  # isEnabledFor's answers, made under the process's manager
    try:
        yield
    finally:
        test_logger.handlers[:], test_logger.propagate, level, test_logger.disabled = saved
        del test_logger.manager
        test_logger.setLevel(level)
        test_logger._cache.clear()


def self_test(runtime: types.ModuleType) -> dict[str, str]:
    """Check end to end, under ``torch.compile(backend="eager",
    fullgraph=True)``, that ``runtime``'s deferred calls (``graphmend.runtime``,
    handed over by the caller) work on this torch:
    a deferred print inside an inlined helper is replayed once, a deferred
    check raises the exact exception, a deferred log call keeps its logger
    and level.  Returns rule -> why it is off (empty when all pass).

    One compile of one function when everything works; the checks are
    compiled one by one only to tell which failed.  The functions are
    compiled from source each time (fresh code objects) and their cache
    entries are dropped afterwards; ``torch._dynamo.reset()`` is not used,
    so the user's compiled code is untouched, and Dynamo's graph counter
    and break list are left as they were.
    """
    if torch.compiler.is_compiling():  # never while Dynamo traces
        return {}
    logger_name = "graphmend.self_test"
    test_logger = logging.getLogger(logger_name)
    namespace: dict[str, Any] = {RUNTIME_ALIAS: runtime, "logger": test_logger, "__name__": "graphmend.compat"}
    handler = _Records()
    x = torch.ones(2)
    expected_print = f"graphmend self-test {x}\n"
    expected_message = f"graphmend self-test {x}"

    def run(function) -> tuple[str, BaseException | None]:
        # The print goes to a stream of its own (``sys._graphmend_self_test``),
        # so other threads' output is never caught here.
        handler.records.clear()
        out = io.StringIO()
        sys._graphmend_self_test = out
        try:
            torch.compile(function, backend="eager", fullgraph=True)(x.clone())
        except BaseException as error:  # noqa: BLE001 -- reported, not raised
            return out.getvalue(), error
        finally:
            del sys._graphmend_self_test
        return out.getvalue(), None

    def check_print(out: str, error: BaseException | None) -> str | None:
        if out != expected_print:
            return f"printed {out!r}, expected {expected_print!r}"
        return None

    def check_log() -> str | None:
        records = [(r.name, r.levelno, r.getMessage()) for r in handler.records]
        expected = [(logger_name, logging.WARNING, expected_message)]
        return None if records == expected else f"logged {records!r}, expected {expected!r}"

    def check_raise(error: BaseException | None) -> str | None:
        if type(error) is ValueError and error.args == ("graphmend self-test",):
            return None
        return f"raised {_describe(error)}" if error else "raised nothing"

    failures: dict[str, str] = {}
    with trial_compiles(_SELF_TEST_SOURCE, "<graphmend self-test>", namespace), _recorded(test_logger, handler):
        try:
            out, error = run(namespace["everything"])
            combined = check_print(out, error) or check_log() or check_raise(error)
            if combined:
                names = list(SELF_TEST_RULES)
                for name, function, verdict in (
                    (names[0], "printed", lambda out, error: _describe(error) or check_print(out, error)),
                    (names[1], "logged", lambda out, error: _describe(error) or check_log()),
                    (names[2], "checked", lambda out, error: check_raise(error)),
                ):
                    why = verdict(*run(namespace[function]))
                    if why:
                        failures[name] = why
                if not failures:  # each passes alone: the combination fails
                    failures[names[0]] = f"the checks fail together: {combined}"
        except Exception as error:  # noqa: BLE001 -- the self-test itself must not fail the mend
            failures = {name: f"the self-test failed: {type(error).__name__}: {error}" for name in SELF_TEST_RULES}

    off: dict[str, str] = {}
    for name, why in failures.items():
        for rule in SELF_TEST_RULES[name]:
            off.setdefault(rule, f"self-test: {name} failed ({why}) (torch {torch.__version__})")
    return off


#: The warm-up's function: one graph, no break, nothing captured.
_WARM_UP_SOURCE = """
def warm_up(x):
    return (x * 2).sum()
"""


def warm_up() -> None:
    """Compile a tiny fresh function (``backend="eager"``) and leave no
    trace of it: the first trace in a process pays for Dynamo's lazy
    imports and set-up (0.6 s, of which 0.5 s comes off the next trace),
    and graphmend.compile's first call does it while the rules' helper
    process rewrites, when this process would otherwise wait.  Dynamo's
    graph counter is left as it was and the function's cache entries are
    dropped; a failure costs only the time."""
    if torch.compiler.is_compiling():
        return
    with trial_compiles(_WARM_UP_SOURCE, "<graphmend warm-up>", {}) as namespace:
        try:
            torch.compile(namespace["warm_up"], backend="eager", fullgraph=True)(torch.ones(2))
        except Exception:  # noqa: BLE001 -- a warm-up must not fail the compile
            logger.debug("graphmend: the warm-up compile failed", exc_info=True)


def _describe(error: BaseException | None) -> str | None:
    if error is None:
        return None
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__

