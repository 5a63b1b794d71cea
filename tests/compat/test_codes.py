"""graphmend.compat.codes: code objects compared by what they do."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from graphmend.compat.codes import code_key, fingerprint

SOURCE = textwrap.dedent('''
    def member(x):
        return x in {"alpha", "beta", "gamma", "delta", "epsilon"}
''')


def _compiled(source: str, filename: str = "<case>"):
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["member"].__code__


def test_the_same_code_at_the_same_place_has_one_key():
    assert code_key(_compiled(SOURCE)) == code_key(_compiled(SOURCE))
    assert fingerprint(_compiled(SOURCE)) == fingerprint(_compiled(SOURCE))


def test_other_code_or_another_place_has_another_key():
    other = SOURCE.replace('"delta", ', "")
    assert code_key(_compiled(other)) != code_key(_compiled(SOURCE))
    assert code_key(_compiled(SOURCE, "<another file>")) != code_key(_compiled(SOURCE))
    assert code_key(_compiled("\n" + SOURCE)) != code_key(_compiled(SOURCE))  # another first line


def test_the_key_is_the_same_in_every_process():
    """A frozenset constant iterates in an order string hashing decides,
    which differs from process to process (PYTHONHASHSEED)."""
    script = ("import sys; from graphmend.compat.codes import code_key; ns = {}; "
              f"exec(compile({SOURCE!r}, '<case>', 'exec'), ns); "
              "print(code_key(ns['member'].__code__), list(ns['member'].__code__.co_consts[-1]))")
    seen = set()
    orders = set()
    for seed in ("1", "2", "3"):
        out = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONHASHSEED=seed),
                             capture_output=True, text=True, check=True).stdout.split(maxsplit=1)
        seen.add(out[0])
        orders.add(out[1])
    assert len(orders) > 1, "the seeds did not change the frozenset's order: the test checks nothing"
    assert len(seen) == 1
