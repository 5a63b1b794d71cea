"""analysis.source: the defs of a file and the blocks holding them, found
from the statements alone, and the innermost node at a line, found by a
walk of the subtrees that may hold it, agree with a walk of every node."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

import graphmend
from graphmend.analysis.source import DEFS, ParsedFile, first_line, innermost

EVERY_BLOCK = textwrap.dedent('''
    import functools

    class Outer:
        class Inner:
            @functools.cache
            def method(self):
                def local():
                    return lambda x: x if x else (lambda: 0)
                return local

    if True:
        def in_if(): ...
    else:
        def in_else(): ...

    try:
        def in_try(): ...
    except ValueError:
        def in_handler(): ...
    else:
        def in_try_else(): ...
    finally:
        def in_finally(): ...

    for _ in ():
        def in_for(): ...
    else:
        def in_for_else(): ...

    while False:
        async def in_while(): ...

    with open(__file__):
        def in_with(): ...

    match 1:
        case 1:
            def in_case(): ...

    @functools.lru_cache(
        maxsize=1 if True else 2,
    )
    def decorated(): return [y for y in () if (y if y else 0)]
''')


def _walked(parsed: ParsedFile) -> tuple[dict, dict]:
    parents = {child: node for node in ast.walk(parsed.tree) for child in ast.iter_child_nodes(node)}
    defs = {(n.name, first_line(n)): n for n in ast.walk(parsed.tree) if isinstance(n, DEFS)}
    return parents, defs


def _files() -> list[Path]:
    return sorted(Path(graphmend.__file__).parent.rglob("*.py"))


@pytest.mark.parametrize("parsed", [ParsedFile("<every block>", EVERY_BLOCK)] + [
    ParsedFile(str(path), path.read_text()) for path in _files()], ids=lambda p: Path(p.filename).name)
def test_defs_and_their_blocks_match_a_walk_of_every_node(parsed):
    parents, defs = _walked(parsed)
    assert parsed.defs == defs
    for node in defs.values():
        while node in parents:  # up to the module, through the same blocks
            assert parsed.parents[node] is parents[node]
            node = parents[node]
        assert isinstance(node, ast.Module) and node not in parsed.parents


def test_every_block_holds_its_def():
    names = {name for name, _ in ParsedFile("<every block>", EVERY_BLOCK).defs}
    assert names == {"method", "local", "in_if", "in_else", "in_try", "in_handler", "in_try_else", "in_finally",
                     "in_for", "in_for_else", "in_while", "in_with", "in_case", "decorated"}


def _innermost_of_every_node(tree: ast.AST, lineno: int, kinds: tuple[type, ...]) -> ast.AST | None:
    found = None
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.lineno <= lineno <= node.end_lineno:
            if found is None or (node.lineno, -node.end_lineno) >= (found.lineno, -found.end_lineno):
                found = node
    return found


@pytest.mark.parametrize("parsed", [ParsedFile("<every block>", EVERY_BLOCK)] + [
    ParsedFile(str(path), path.read_text()) for path in _files()[::7]], ids=lambda p: Path(p.filename).name)
def test_the_innermost_node_at_each_line_matches_a_walk_of_every_node(parsed):
    # A decorator's lines come before its def's first line, and a case
    # (``match_case``) has no lines of its own: the walk must still enter both.
    kinds_asked = [(ast.stmt,), (ast.If, ast.While, ast.IfExp), DEFS]
    for lineno in range(1, len(parsed.text.splitlines()) + 2):
        for kinds in kinds_asked:
            assert innermost(parsed.tree, lineno, kinds) is _innermost_of_every_node(parsed.tree, lineno, kinds)


def test_of_two_nodes_with_equal_lines_the_one_a_walk_of_every_node_finds_wins():
    parsed = ParsedFile("<one line>", "f((p if (q if r else s) else t), u if v else w); a = 1; b = 2\n")
    for kinds in [(ast.stmt,), (ast.IfExp,)]:
        assert innermost(parsed.tree, 1, kinds) is _innermost_of_every_node(parsed.tree, 1, kinds)


def test_a_files_text_is_one_object_until_linecache_reads_it_again(tmp_path):
    """The caches keyed by a file's text get the same string while
    linecache holds the same lines (a look-up compares it by identity, not
    300 KB at a time), and the new text once the file changed and
    linecache read it again."""
    import linecache
    import os

    from graphmend.analysis.source import loaded_source

    path = tmp_path / "edited.py"
    path.write_text("x = 1\n")
    first = loaded_source(str(path))
    assert first == "x = 1\n" and loaded_source(str(path)) is first
    path.write_text("x = 22\n")
    os.utime(path, (1, 1))  # another mtime, whatever the clock's resolution
    linecache.checkcache(str(path))
    assert loaded_source(str(path)) == "x = 22\n"
    assert loaded_source(str(tmp_path / "missing.py")) == ""
