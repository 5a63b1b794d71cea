"""graphmend.mending.records: what graphmend.compile learnt, kept across processes."""

from __future__ import annotations

import json
import textwrap

import pytest

from graphmend.compat.codes import code_key
from graphmend.mending import records

pytestmark = pytest.mark.usefixtures("isolated_cache")


def _codes(path):
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["f"].__code__, namespace["g"].__code__


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""
        def f(x):
            return x + 1

        def g(x):
            return x * 2
    """))
    return path


def test_code_given_up_on_is_kept_with_why(source):
    f, g = _codes(source)
    records.store_uncaptured("r", [(f, "a captured value meets a guard: range(n)")])
    records.store_uncaptured("r", [(g, "the graph only reads values back"),
                                   (f, "a captured value meets a guard: range(n)")])
    assert records.load_uncaptured("r") == {code_key(f): "a captured value meets a guard: range(n)",
                                            code_key(g): "the graph only reads values back"}
    assert records.load_uncaptured("another") == {}


def test_the_kinds_of_one_record_are_kept_side_by_side(source):
    f, _ = _codes(source)
    records.store("r", [(str(source), 3)])
    records.store_uncaptured("r", [(f, "why")])
    records.store("r", [(str(source), 6)], "declined")
    assert records.load("r") == [(str(source), 3)]
    assert records.load("r", "declined") == [(str(source), 6)]
    assert records.load_uncaptured("r") == {code_key(f): "why"}


def test_an_edited_file_drops_what_was_kept_of_its_code(source):
    f, _ = _codes(source)
    records.store_uncaptured("r", [(f, "why")])
    source.write_text(source.read_text() + "\n# edited\n")
    assert records.load_uncaptured("r") == {}


def test_a_malformed_entry_is_ignored(source):
    f, _ = _codes(source)
    records.store_uncaptured("r", [(f, "why")])
    path = next(iter((records.cache_dir() / "records").glob("r.json")))
    data = json.loads(path.read_text())
    data["uncaptured"].append({"file": str(source), "line": 1, "sha256": data["uncaptured"][0]["sha256"]})
    data["uncaptured"].append("not an entry")
    path.write_text(json.dumps(data))
    assert records.load_uncaptured("r") == {code_key(f): "why"}
