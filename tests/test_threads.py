"""Concurrency: deferred messages from many threads, and the source cache
under two processes mending at once."""

from __future__ import annotations

import logging
import multiprocessing
import re
import sys
import threading
import warnings

import torch

from harness import GraphCounter, load_module
from graphmend.pipeline import transform_source

SOURCE = """
import logging
import warnings

import torch

logger = logging.getLogger("gm.threads")


def step(x):
    y = x * 2
    print(f"print {y.sum()} end")
    logger.warning("log %s end", y.sum())
    warnings.warn(f"warn {y.sum()} end")
    return y + 1
"""

THREADS = 8
CALLS = 5


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.messages: list[str] = []
        self.lock_ = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self.lock_:
            self.messages.append(record.getMessage())


def test_eight_threads_keep_every_deferred_message_intact(tmp_path, capfd):
    result = transform_source(SOURCE)
    assert [site.rule for site in result.sites] == ["defer"] * 3
    module = load_module(result.code, tmp_path)
    counter = GraphCounter()
    compiled = torch.compile(module.step, backend=counter)
    compiled(torch.ones(3))  # compile once, before the threads start
    assert counter.graphs == 1
    capfd.readouterr()

    handler = _Lines()
    logging.getLogger("gm.threads").addHandler(handler)
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(thread: int) -> None:
        try:
            start.wait()
            for call in range(CALLS):
                x = torch.full((3,), float(thread * 100 + call))
                out = compiled(x)
                assert torch.equal(out, x * 2 + 1)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    logging.getLogger("gm.threads").removeHandler(handler)
    assert not errors, errors
    assert counter.graphs == 1, "no thread recompiled"

    # Each call's sum names its thread and call; the f-strings format it
    # with Tensor.__format__ (as a number), "%s" with str (as a tensor).
    sums = [(torch.full((3,), float(t * 100 + c)) * 2).sum() for t in range(THREADS) for c in range(CALLS)]
    # print() writes its text and its end ("\n") separately, so another
    # thread's text can come between them -- in the original code too.  A
    # message is intact when its text is one piece of the output.
    out = capfd.readouterr().out
    printed = re.findall(r"print [0-9.]+ end", out)
    assert "".join(printed) == out.replace("\n", ""), "a message's text was interleaved"
    logged = handler.messages
    warned = [str(w.message) for w in caught]
    for kind, lines in (("print", printed), ("log", logged), ("warn", warned)):
        wanted = sorted(f"{kind} {str(s) if kind == 'log' else format(s)} end" for s in sums)
        assert sorted(lines) == wanted, f"{kind}: lost, duplicated or interleaved"
    # One thread's calls keep their order.
    third = [f"print {format(s)} end" for s in sums[3 * CALLS : 4 * CALLS]]
    assert [m for m in printed if m in third] == third


def _mend_in_process(cache_dir: str, package_dir: str, results) -> None:
    import os

    os.environ["GRAPHMEND_CACHE_DIR"] = cache_dir
    sys.path.insert(0, package_dir)
    import graphmend.mending.live
    import race_model

    graphmend.mending.live.mend(race_model.step)
    results.put(graphmend.mending.live.mended_source(race_model.step))


def test_two_processes_mending_one_module_share_a_sound_cache(tmp_path, monkeypatch):
    from graphmend.mending import cache

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "race_model.py").write_text(SOURCE)
    cache_dir = tmp_path / "cache"
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    processes = [
        context.Process(target=_mend_in_process, args=(str(cache_dir), str(tmp_path / "pkg"), results))
        for _ in range(2)
    ]
    for process in processes:
        process.start()
    sources = [results.get(timeout=300) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0

    assert sources[0] == sources[1]
    assert "_graphmend.deferred_print" in sources[0]
    entries = list(cache_dir.glob("*.py.txt"))  # the rewrites (beside them: the self-tests' passes)
    assert entries and not list(cache_dir.rglob(".tmp-*")), "no temporary file left behind"
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(cache_dir))
    for entry in entries:  # every entry is whole: load() checks its header's hash
        assert cache.load(entry.name.removesuffix(".py.txt")) is not None
