"""Source files as graphmend reads them: one parse cache, skeletons, one line map.

Read-only.  Everything that maps between a file and the code the rules see
goes through here: diagnose (the statement at a line Dynamo reports), mend
(the functions to rewrite and the file lines of their rewritten code), fix
and the import hook (whole files).

* :func:`parse_file` / :func:`parse_text` -- a file's :class:`ParsedFile`
  (its ``ast`` tree, defs, prelude), cached by text.
* :meth:`ParsedFile.skeleton` -- what the rules see of a file: its prelude
  (imports, simple assignments: so ``import torch as t`` and
  ``logger = logging.getLogger(...)`` mean what they mean in the module),
  and a few *units* (top-level statements holding the functions to
  rewrite, inside the headers of the classes around them).  libcst costs
  time in proportion to the text it is given, so the rest is left out.
* :func:`line_map` -- for rewritten lines, the original lines they come from.
"""

from __future__ import annotations

import builtins

import ast
import collections
import contextlib
import difflib
import functools
import gc
import linecache
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from graphmend.analysis.message_helpers import effect_helpers

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def first_line(node: ast.AST) -> int:
    """A def's or class's first line, decorators included."""
    decorators = getattr(node, "decorator_list", ())
    return min([node.lineno, *(d.lineno for d in decorators)])


@dataclass(frozen=True)
class Unit:
    """A top-level statement (or one inside class bodies) that the rules
    see whole: a def, or a compound statement holding defs."""

    node: ast.stmt
    header_lines: tuple[int, ...]  # the enclosing classes' header lines
    scope_class: str | None  # the innermost enclosing class

    @property
    def start(self) -> int:
        return first_line(self.node)

    @property
    def end(self) -> int:
        return self.node.end_lineno


@dataclass(frozen=True)
class PreludeStatement:
    """A statement of a file's prelude: its file lines, the names it binds
    and those it reads; ``always``: kept with every unit (``from
    __future__``, ``import *``)."""

    lines: range
    binds: frozenset[str]
    reads: frozenset[str]
    always: bool

    @classmethod
    def of(cls, statement: ast.stmt) -> PreludeStatement:
        imports_from = [node for node in ast.walk(statement) if isinstance(node, ast.ImportFrom)]
        always = any(node.module == "__future__" or any(a.name == "*" for a in node.names) for node in imports_from)
        return cls(range(statement.lineno, statement.end_lineno + 1), frozenset(bound_by(statement)),
                   frozenset(node.id for node in ast.walk(statement) if isinstance(node, ast.Name)), always)


@dataclass(frozen=True)
class Skeleton:
    """The text the rules see, and where each part of it comes from."""

    text: str
    kept: tuple[int, ...]  # file line of each skeleton line
    units: tuple[Unit, ...]
    module_names: ModuleNames = None  # what the file's top-level names are
    prelude: frozenset[int] = frozenset()  # the prelude's file lines
    prelude_statements: tuple[PreludeStatement, ...] = ()

    def subset(self, units: Iterable[Unit], *, prelude_read: bool = False) -> Skeleton:
        """The same skeleton with only ``units`` (a prefix of nothing new).
        With ``prelude_read``, only the prelude statements that bind a name
        the units read, or that such a statement reads, and those every
        unit keeps (``from __future__``, ``import *``): a rule reads a
        statement of the prelude for the names it binds, and LibCST's work
        on a unit of transformers' ``generation/utils.py`` or pandas'
        ``frame.py`` was a third its prelude's (116 and 255 lines a unit)."""
        chosen = sorted(units, key=lambda u: u.start)
        around = set()
        for unit in chosen:
            around.update(unit.header_lines)
            around.update(range(unit.start, unit.end + 1))
        lines = self.text.splitlines(keepends=True)
        prelude = self._prelude_read("".join(line for file_line, line in zip(self.kept, lines)
                                             if file_line in around)) if prelude_read else self.prelude
        wanted = around | prelude
        kept = tuple(line for line in self.kept if line in wanted)
        text = "".join(line for file_line, line in zip(self.kept, lines) if file_line in wanted)
        return Skeleton(text, kept, tuple(chosen), self.module_names, prelude, self.prelude_statements)

    def _prelude_read(self, units_text: str) -> frozenset[int]:
        """The lines of the prelude statements ``units_text`` needs (see
        :meth:`subset`); the whole prelude where it does not parse alone."""
        try:
            tree = ast.parse(units_text)
        except SyntaxError:
            return self.prelude
        read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        needed = [statement for statement in self.prelude_statements if statement.always]
        pending = [statement for statement in self.prelude_statements if not statement.always]
        found = True
        while found:
            found = False
            for statement in list(pending):
                if not statement.binds.isdisjoint(read):
                    needed.append(statement)
                    pending.remove(statement)
                    read |= statement.reads
                    found = True
        return frozenset(line for statement in needed for line in statement.lines)

    def unit_at(self, line: int) -> Unit | None:
        """The unit holding file line ``line``."""
        return next((u for u in self.units if u.start <= line <= u.end), None)

    def to_skeleton(self) -> dict[int, int]:
        return {line: index + 1 for index, line in enumerate(self.kept)}

    def unit_texts(self, rewritten: str) -> list[list[str]]:
        """The lines of each unit in ``rewritten``: the skeleton after rules
        that change nothing outside functions, so every unit sits where it
        sat, at the same place among the statements around it."""
        before, after = ast.parse(self.text), ast.parse(rewritten)
        lines = rewritten.splitlines(keepends=True)
        to_skeleton = self.to_skeleton()
        out = []
        for unit in self.units:
            node = _follow(after, _path_to_line(before, to_skeleton[unit.start]))
            out.append(lines[first_line(node) - 1 : node.end_lineno])
        return out


def _path_to_line(tree: ast.AST, line: int) -> list[int]:
    """Indices through module and class bodies to the statement starting on ``line``."""
    for index, statement in enumerate(tree.body):
        if first_line(statement) == line:
            return [index]
        if isinstance(statement, ast.ClassDef) and first_line(statement) < line <= statement.end_lineno:
            return [index, *_path_to_line(statement, line)]
    raise LookupError(f"no statement starts on line {line}")


def _block_parents(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(statement, block owner) for every statement, ``except`` handler and
    ``case`` of ``tree``, each before those inside it."""
    pending = [tree]
    while pending:
        node = pending.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):  # not an IfExp's or a Lambda's expression
                for child in children:
                    yield child, node
                    pending.append(child)


def _follow(tree: ast.AST, path: list[int]) -> ast.stmt:
    for index in path:
        tree = tree.body[index]
    return tree


class ParsedFile:
    """A module's ``ast`` tree and what graphmend reads from it."""

    def __init__(self, filename: str, text: str) -> None:
        self.filename = filename
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text, filename)
        self.imported = _imported_names(self.tree)
        self.module_names = ModuleNames.of(self.tree)
        self.prelude = frozenset(
            line for s in self.tree.body if _is_prelude(s) for line in range(s.lineno, s.end_lineno + 1)
        )

    @functools.cached_property
    def prelude_statements(self) -> tuple[PreludeStatement, ...]:
        return tuple(PreludeStatement.of(s) for s in self.tree.body if _is_prelude(s))

    # Made only when asked (many files are parsed only to look for attribute
    # stores: a base class's module), and from the blocks alone, where a def
    # can sit: a walk of every expression node cost a cold first mend a third
    # of its time in the main process.
    @functools.cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        """The block holding each statement, ``except`` handler and ``case``."""
        return dict(_block_parents(self.tree))

    @functools.cached_property
    def defs(self) -> dict[tuple[str, int], ast.AST]:
        return {(n.name, first_line(n)): n for n in self.parents if isinstance(n, DEFS)}

    @functools.cached_property
    def effect_helpers(self) -> frozenset[str]:
        """Module-level functions of the file whose only effect is a message."""
        return effect_helpers(self.tree)

    def def_of(self, code) -> ast.AST | None:
        """The def that compiled to ``code`` (by name and first line)."""
        return self.defs.get((code.co_name, code.co_firstlineno))

    def defs_around(self, lineno: int) -> list[ast.AST]:
        return [n for n in self.defs.values() if first_line(n) <= lineno <= n.end_lineno]

    def statement_at(self, lineno: int) -> ast.stmt | None:
        return innermost(self.tree, lineno, (ast.stmt,))

    def unit_of(self, node: ast.AST) -> Unit:
        """The unit holding ``node`` (a def or a statement)."""
        chain = [node]
        while chain[-1] in self.parents and not isinstance(self.parents[chain[-1]], ast.Module):
            chain.append(self.parents[chain[-1]])
        chain.reverse()  # outermost first
        headers: list[int] = []
        unit = chain[-1]
        for ancestor in chain:
            if not isinstance(ancestor, ast.ClassDef) or ancestor is node:
                unit = ancestor
                break
            body_start = first_line(ancestor.body[0])  # its decorators are not the header's
            if body_start == ancestor.lineno:  # ``class A: ...`` on one line
                unit = ancestor
                break
            headers.extend(range(ancestor.lineno, body_start))
        classes = [a for a in chain[:-1] if isinstance(a, ast.ClassDef)]
        return Unit(unit, tuple(headers), classes[-1].name if classes else None)

    def skeleton(self, units: Iterable[Unit]) -> Skeleton:
        """The prelude and ``units`` (overlapping units merged into the outer one)."""
        chosen: dict[int, Unit] = {}
        for unit in sorted(units, key=lambda u: (u.start, -u.end)):
            if any(u.start <= unit.start and unit.end <= u.end for u in chosen.values()):
                continue
            chosen[unit.start] = unit
        kept = set(self.prelude)
        for unit in chosen.values():
            kept.update(unit.header_lines)
            kept.update(range(unit.start, unit.end + 1))
        ordered = tuple(sorted(kept))
        text = "".join(self.lines[line - 1] for line in ordered)
        if text and not text.endswith("\n"):
            text += "\n"
        return Skeleton(text, ordered, tuple(sorted(chosen.values(), key=lambda u: u.start)), self.module_names,
                        self.prelude, self.prelude_statements)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a burst of parsing and
    rewriting.  Syntax trees allocate hundreds of thousands of objects,
    which trigger full collections, and in a process holding a model each
    of them walks every module and tensor: a quarter of a mend's time.  The
    trees hold no cycles, so nothing is left for the collector."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@functools.lru_cache(maxsize=64)
def parse_text(filename: str, text: str) -> ParsedFile:
    """``text`` parsed; raises ``SyntaxError``."""
    return ParsedFile(filename, text)


def forget_parsed() -> None:
    """Let go of the parse trees cached.  graphmend.compile's first mend
    does before its call runs: the trees of the files the call reaches
    (460,000 objects for 64 files of transformers, pandas and the hub) were
    made with the collector paused, and its next collections would walk
    each of them, twice, while Dynamo traces (a second of that call)."""
    parse_text.cache_clear()


#: Each file's joined text, with the linecache list it was joined from.
_JOINED: dict[str, tuple[list[str], str]] = {}


def loaded_source(filename: str, module_globals: dict | None = None) -> str:
    """The module's source as Python last loaded it (:mod:`linecache`); ''
    without source.  The same string object while linecache holds the same
    lines: the caches keyed by a file's text (:func:`parse_text`) then
    hash and compare it at no cost, where a new join of a 300 KB file is
    hashed and compared in full on each look-up (a first mend asks for
    the files it reads a few thousand times)."""
    lines = linecache.getlines(filename, module_globals)
    joined = _JOINED.get(filename)
    if joined is not None and joined[0] is lines:  # held here, so the list's id is not reused
        return joined[1]
    text = "".join(lines)
    if text:
        _JOINED[filename] = (lines, text)
    return text


def parse_file(filename: str, module_globals: dict | None = None) -> ParsedFile | None:
    """:func:`loaded_source`, parsed; None without source or when it does
    not parse."""
    text = loaded_source(filename, module_globals)
    if not text:
        return None
    try:
        return parse_text(filename, text)
    except (SyntaxError, ValueError):
        return None


def _is_prelude(statement: ast.stmt) -> bool:
    """Top-level statements that tell the rules what names mean."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        return isinstance(statement.value, (ast.Call, ast.Name, ast.Attribute))
    if isinstance(statement, (ast.If, ast.Try)):  # guarded imports
        inner = list(ast.walk(statement))
        return any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in inner) and not any(
            isinstance(n, (*DEFS, ast.ClassDef)) for n in inner
        )
    return False


def bound_by(statement: ast.stmt) -> list[str]:
    """The names a statement of a module or class body binds there."""
    if isinstance(statement, (*DEFS, ast.ClassDef)):
        return [statement.name]
    bound = []
    for node in ast.walk(statement):
        if isinstance(node, (*DEFS, ast.ClassDef)):
            bound.append(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.extend((a.asname or a.name).partition(".")[0] for a in node.names)
    return bound


def _imported_names(tree: ast.Module) -> frozenset[str]:
    """Names the module binds by import statements at module scope."""
    names: set[str] = set()
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif not isinstance(node, (*DEFS, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)


@dataclass(frozen=True)
class ModuleNames:
    """What a module's top-level names are, read from its whole ``ast``
    (a skeleton leaves most definitions out): the dotted targets of its
    imports (``t`` -> ``torch``, ``warn`` -> ``warnings.warn``), and the names
    plain assignments and other statements bind."""

    imports: dict[str, str]
    assigned: frozenset[str]  # by ``name = ...`` alone
    other: frozenset[str]  # by def, class, for, with, or an assignment beside an import
    star_import: bool = False  # ``from m import *``: which names exist is not known

    def defines(self, name: str) -> bool:
        """Whether ``name`` may be a global of the module (or a builtin)."""
        return (self.star_import or name in self.imports or name in self.assigned or name in self.other
                or hasattr(builtins, name))

    @classmethod
    def of(cls, tree: ast.Module) -> ModuleNames:
        imports: dict[str, str] = {}
        assigned: set[str] = set()
        other: set[str] = set()
        star_import = False
        pending = list(tree.body)
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        imports[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        imports[head] = head
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    star_import = star_import or alias.name == "*"
                    if alias.name != "*":
                        target = f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name
                        imports[alias.asname or alias.name] = target
            elif isinstance(node, (*DEFS, ast.ClassDef)):
                other.add(node.name)
            elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
                assigned.update(t.id for t in node.targets)
            else:
                for child in ast.walk(node) if not isinstance(node, (ast.If, ast.Try, ast.With)) else ():
                    if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                        other.add(child.id)
                if isinstance(node, (ast.If, ast.Try, ast.With)):
                    pending.extend(ast.iter_child_nodes(node))
        imports_only = {name: target for name, target in imports.items() if name not in assigned | other}
        return cls(imports_only, frozenset(assigned - other - imports.keys()),
                   frozenset(other | (assigned & imports.keys())), star_import)

    def __hash__(self) -> int:
        return id(self)


def _spans(node: ast.AST, lineno: int) -> bool:
    end = getattr(node, "end_lineno", None)
    return end is not None and node.lineno <= lineno <= end


def _may_hold(node: ast.AST, lineno: int) -> bool:
    """Whether a node below ``node`` may contain ``lineno``: a node's lines
    hold its children's, but for a def's or class's decorators, which come
    before its first line; a node without positions (``arguments``,
    ``match_case``) may hold anything."""
    end = getattr(node, "end_lineno", None)
    if end is None:
        return True
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
    return start <= lineno <= end


def innermost(tree: ast.AST, lineno: int, kinds: tuple[type, ...]) -> ast.AST | None:
    """The deepest node of one of ``kinds`` whose lines contain ``lineno``.

    Only subtrees that may hold the line are walked: a walk of every node
    of the file cost a diagnosis of Faster R-CNN's first call a second
    (111 look-ups)."""
    found = None
    pending = collections.deque([tree])  # breadth first, as ast.walk: of two equal spans, the same one wins
    while pending:
        node = pending.popleft()
        if isinstance(node, kinds) and _spans(node, lineno):
            if found is None or (node.lineno, -node.end_lineno) >= (found.lineno, -found.end_lineno):
                found = node
        pending.extend(child for child in ast.iter_child_nodes(node) if _may_hold(child, lineno))
    return found


def statement_at(filename: str, lineno: int) -> ast.stmt | None:
    parsed = parse_file(filename)
    return parsed.statement_at(lineno) if parsed else None


def line_map(before: Sequence[str], after: Sequence[str], first: int) -> list[int]:
    """For each line of ``after``: the line of ``before`` it came from
    (numbered from ``first``), or, inside a rewritten region, the first line
    of code (not blank, not a comment) of what it replaced."""
    mapping = [first] * len(after)
    matcher = difflib.SequenceMatcher(a=list(before), b=list(after), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        replaced = next((i for i in range(i1, i2) if before[i].strip() and not before[i].lstrip().startswith("#")), i1)
        for j in range(j1, j2):
            i = i1 + (j - j1) if tag == "equal" else min(replaced, len(before) - 1)
            mapping[j] = first + i
    return mapping
