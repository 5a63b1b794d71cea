"""The rules in a helper process, while the first mend's process does Dynamo's work.

The first ``graphmend.compile`` call in a process used to pay, one after
another: LibCST's import (0.8 s, most of it ``libcst.matchers``), the rules'
rewrite of the model's skeletons (0.3-0.6 s) and compat's self-test (a
Dynamo compile, 0.8 s in a fresh process).  Only the self-test needs torch;
the rewrite is text in, text out.  And a second core is usually idle at
that moment (a cold ``torch.compile`` is one thread of Python).  So the
first mend in a process starts a helper process before it parses anything,
hands it each skeleton it could not find in the cache as soon as it is
planned (one unit at a time, with the prelude statements it reads), and
runs the self-test while the helper rewrites them: the main
process never imports LibCST on that path.  The helper stays for the rest
of that first call: a fixable break the call meets (a test on a buffer,
which the source did not show) is rewritten there too, before the next
call, not by importing LibCST here (:func:`graphmend.mending.live.start_helper`).
After it, the helper is sent nothing more; it answers the rest of what it
was sent, at a lower priority, for the functions a later call meets.

The helper runs :func:`graphmend.pipeline.transform_skeleton`, the same
code on the same inputs as the in-process path, and imports no torch.  It
is only a way to run that function sooner: :func:`worthwhile` says when it
pays, and any failure (it cannot start, dies, or a rule raises in it) is
answered by running the rules in this process, which then gives the exact
error the in-process path gives.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any

from graphmend.rules.options import RuleOptions, built_in


#: How much lower than this process's the helper's priority is once it
#: only works ahead (after the first call): Unix niceness, 19 at most.
_BACKGROUND_NICENESS = 10


class SidecarFailed(Exception):
    """The helper could not answer; run the rules in this process."""


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def worthwhile(rule_names: tuple[str, ...]) -> bool:
    """Whether a helper saves this process time: LibCST not yet imported here
    (else the rewrite alone would move, and wait), compat's self-test still
    to run (the work it overlaps), a second CPU to run on, and only built-in
    rules (a rule plugged into this process's pipeline is not in the helper's)."""
    from graphmend import compat

    return (
        "libcst" not in sys.modules
        and not compat.installed()
        and usable_cpus() > 1
        and built_in(rule_names)
    )


class Sidecar:
    """One helper process; requests are answered in the order they were
    sent, but one whose answer this process waits for goes next."""

    def __init__(self, process: subprocess.Popen) -> None:
        self._process = process
        self._sent = 0
        self._answers: dict[int, tuple[str, Any]] = {}
        self._hurried: set[int] = set()
        self._ended = False  # the helper's output is at its end: no more answers come
        self._answered = threading.Condition()
        # Requests are written by a thread of their own: the helper reads
        # nothing until LibCST is imported, and a pipe holds only 64 KiB.
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        threading.Thread(target=self._write, name="graphmend-sidecar-writer", daemon=True).start()
        # Answers are read as they come, by a thread of their own too: after
        # the first call the helper goes on with what it was sent (a
        # function a later call meets waits for its own answer only), and
        # one nobody read would fill the pipe and stop it.
        threading.Thread(target=self._read, name="graphmend-sidecar-reader", daemon=True).start()

    def _write(self) -> None:
        stream = self._process.stdin
        try:
            while (request := self._outbox.get()) is not None:
                stream.write(request)
                stream.flush()
        except (OSError, ValueError):  # the helper is gone: result() says so
            pass
        finally:
            try:
                stream.close()
            except OSError:
                pass

    @classmethod
    def start(cls) -> Sidecar | None:
        """A helper running this interpreter with this process's import path;
        ``None`` when it cannot be started."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)}
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "graphmend.mending.sidecar"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            )
        except OSError:
            return None
        return cls(process)

    def submit(self, skeleton: Any, options: RuleOptions, filename: str) -> int:
        """Send one skeleton to rewrite; the ticket for :meth:`result`."""
        ticket = self._sent
        self._sent += 1
        try:
            self._outbox.put(pickle.dumps((ticket, skeleton, options, filename), pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as error:
            self._answers[ticket] = ("failed", f"cannot send it: {error}")
        return ticket

    def _read(self) -> None:
        stream = self._process.stdout
        try:
            while True:
                answered, *answer = pickle.load(stream)
                with self._answered:
                    self._answers[answered] = tuple(answer)
                    self._answered.notify_all()
        except Exception:  # noqa: BLE001 -- EOF, or the helper died mid-answer: no more answers
            pass
        finally:
            with self._answered:
                self._ended = True
                self._answered.notify_all()
            stream.close()
            self._process.wait()  # reaped here: it has closed its output

    def result(self, ticket: int) -> str:
        """The rewritten text for ``ticket``; :class:`SidecarFailed` when the
        helper could not give it."""
        with self._answered:
            if ticket not in self._answers and ticket not in self._hurried:
                self._hurried.add(ticket)
                self._outbox.put(pickle.dumps((ticket,), pickle.HIGHEST_PROTOCOL))
            self._answered.wait_for(lambda: ticket in self._answers or self._ended)
            if ticket not in self._answers:
                raise SidecarFailed("the helper process ended")
            status, value = self._answers.pop(ticket)
        if status != "ok":
            raise SidecarFailed(value)
        return value

    def close(self) -> None:
        """Send nothing more.  The helper answers what it was sent, at a
        lower priority than this process, and exits (one that was sent
        nothing is stopped at once): the answers are there for the functions
        a later call meets (:func:`graphmend.mending.live.settle`)."""
        if not self._sent:  # everything came from the cache: its imports are wasted work
            self._process.kill()
        else:
            with contextlib.suppress(AttributeError, OSError):  # setpriority: POSIX only
                niceness = os.getpriority(os.PRIO_PROCESS, 0) + _BACKGROUND_NICENESS
                os.setpriority(os.PRIO_PROCESS, self._process.pid, min(niceness, 19))
        self._outbox.put(None)


class _Requests:
    """The requests read so far (by a thread of their own, as they come), in
    the order they are to be answered: the oldest first, but a request the
    other process waits for (a message holding only its ticket) before it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._waiting: dict[int, tuple[Any, RuleOptions, str]] = {}
        self._hurried: list[int] = []
        self._ended = False
        self._changed = threading.Condition()
        threading.Thread(target=self._read, name="graphmend-sidecar-reader", daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                ticket, *request = pickle.load(self._stream)
                with self._changed:
                    if request:
                        self._waiting[ticket] = tuple(request)
                    else:
                        self._hurried.append(ticket)
                    self._changed.notify()
        except Exception:  # noqa: BLE001 -- EOF, or a broken pipe: no more requests
            with self._changed:
                self._ended = True
                self._changed.notify()

    def __iter__(self) -> Iterator[tuple[int, Any, RuleOptions, str]]:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._waiting or self._ended)
                if not self._waiting:
                    return
                hurried = [t for t in self._hurried if t in self._waiting]
                ticket = hurried[0] if hurried else min(self._waiting)
                request = self._waiting.pop(ticket)
            yield (ticket, *request)


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's loop: each request's rewritten text, or why it failed."""
    from graphmend.pipeline import transform_skeleton

    for ticket, skeleton, options, filename in _Requests(requests):
        try:
            answer: tuple[str, Any] = ("ok", transform_skeleton(skeleton, options, filename).code)
        except Exception as error:  # noqa: BLE001 -- the caller reruns it in-process for the real error
            answer = ("failed", f"{type(error).__name__}: {error}")
        pickle.dump((ticket, *answer), answers, pickle.HIGHEST_PROTOCOL)
        answers.flush()


def _main() -> None:
    import gc

    gc.disable()  # a short-lived process of syntax trees, which hold no cycles
    # Answers go to the original stdout; anything a rule prints goes to stderr.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    _main()
