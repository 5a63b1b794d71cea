"""graphmend.mending.cache: keyed, checksummed, atomically written source text."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
import torch

import graphmend
from graphmend import pipeline, storage
from graphmend.mending import cache
from graphmend.analysis.source import parse_text
from graphmend.mending.live import mend, unmend
from harness import load_module
from test_mend import PLAIN
from toy_rules import MARK

pytestmark = pytest.mark.usefixtures("isolated_cache")


class Builder:
    """A ``build`` callback that counts its calls."""

    def __init__(self, text: str = "mended\n") -> None:
        self.text = text
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.text


def test_miss_then_hit():
    build = Builder()

    assert cache.cached("source", rules=["where"], lines=None, build=build) == "mended\n"
    assert cache.cached("source", rules=["where"], lines=None, build=build) == "mended\n"

    assert build.calls == 1
    assert [p.name for p in cache.cache_dir().iterdir()] == [
        f"{cache.cache_key('source', rules=['where'], lines=None)}.py.txt"
    ]


def test_key_changes_with_every_input(monkeypatch):
    base = dict(rules=["trap", "where"], lines=frozenset({3}))
    key = cache.cache_key("source", **base)
    assert cache.cache_key("source", rules=["trap", "where"], lines={3}) == key

    variants = {
        cache.cache_key("source 2", **base),
        cache.cache_key("source", rules=["trap"], lines=base["lines"]),
        cache.cache_key("source", rules=base["rules"], lines=frozenset({4})),
        cache.cache_key("source", rules=base["rules"], lines=None),
    }
    monkeypatch.setattr(graphmend, "__version__", "99.0")
    variants.add(cache.cache_key("source", **base))
    monkeypatch.undo()
    monkeypatch.setattr(torch, "__version__", "0.0.1")
    variants.add(cache.cache_key("source", **base))

    assert len(variants) == 6 and key not in variants


def test_the_key_follows_the_code_the_rules_may_read(tmp_path, monkeypatch, request):
    # The rule code in the key is every module of the layers the pipeline
    # may import (graphmend.layers): a vocabulary table the rules read is in
    # it, the public API is not.
    package = tmp_path / "graphmend"
    shutil.copytree(Path(graphmend.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(storage, "_PACKAGE_DIR", package)
    request.addfinalizer(storage.code_digest.cache_clear)

    def key() -> str:
        storage.code_digest.cache_clear()
        return cache.cache_key("source", rules=["where"], lines=None)

    def edit(name: str, old: str, new: str) -> None:
        path = package / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    before = key()
    edit("api.py", '"""``graphmend.compile``', '"""The public ``graphmend.compile``')
    assert key() == before
    edit("vocabulary.py", 'SCALAR_METHODS = _names("item tolist")', 'SCALAR_METHODS = _names("item tolist numpy")')
    assert key() != before


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # truncated
        lambda text: text.replace("mended", "mendeD"),  # a flipped bit
        lambda text: "",  # empty
        lambda text: text.split("\n", 1)[1],  # no header
    ],
)
def test_corrupt_entry_is_rebuilt(damage):
    build = Builder("line one\nmended line two\n")
    cache.cached("source", rules=[], lines=None, build=build)
    path = cache.cache_dir() / f"{cache.cache_key('source', rules=[], lines=None)}.py.txt"
    path.write_text(damage(path.read_text()))

    assert cache.cached("source", rules=[], lines=None, build=build) == build.text
    assert build.calls == 2
    assert cache.load(cache.cache_key("source", rules=[], lines=None)) == build.text  # rewritten whole


def test_concurrent_writers_never_expose_a_partial_entry():
    key = cache.cache_key("shared", rules=[], lines=None)
    bodies = [f"writer {i}\n" * 2000 for i in range(4)]
    seen: list[str | None] = []

    def write(body: str) -> None:
        for _ in range(25):
            cache.store(key, body)

    def read() -> None:
        for _ in range(200):
            seen.append(cache.load(key))

    threads = [threading.Thread(target=write, args=(b,)) for b in bodies] + [threading.Thread(target=read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert all(text is None or text in bodies for text in seen)
    assert cache.load(key) in bodies
    assert not [p for p in cache.cache_dir().iterdir() if p.name.startswith(".tmp-")]


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("GRAPHMEND_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "graphmend"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "graphmend"


def test_unwritable_cache_only_costs_speed(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(blocker / "cache"))
    build = Builder()

    assert cache.cached("source", rules=[], lines=None, build=build) == "mended\n"
    assert cache.cached("source", rules=[], lines=None, build=build) == "mended\n"
    assert build.calls == 2


def test_mend_reuses_the_cached_transform(tmp_path, fake_rules, monkeypatch):
    module = load_module(PLAIN, tmp_path, "cached")
    transforms = []
    real = pipeline.transform_skeleton
    monkeypatch.setattr(pipeline, "transform_skeleton", lambda *a, **k: transforms.append(1) or real(*a, **k))

    mend(module.plain, rules=MARK)
    unmend(module.plain)
    parse_text.cache_clear()  # as in a new process
    mend(module.plain, rules=MARK)

    assert len(transforms) == 1
    assert module.plain(1) == ("graphmend.runtime", 6)
    # One rewrite cached (beside compat's verdicts directory, where this test installs compat).
    assert len([entry for entry in Path(os.environ["GRAPHMEND_CACHE_DIR"]).iterdir() if entry.is_file()]) == 1
