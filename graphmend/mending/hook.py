"""An import hook that mends the modules a user names as they are imported.

``graphmend run --mend transformers.models.t5 train.py`` (or
:func:`install`) puts a :class:`MendingFinder` first on ``sys.meta_path``.
For a module whose name is one of the given prefixes or lies under one, it
finds the module as the normal path finder would and, when the module is
plain Python source, loads it through :class:`MendingLoader`: the file's
text goes through :func:`graphmend.pipeline.transform_source` with static
matching (every site a rule can prove safe, or the rules selected), and
the result is compiled under the file's own name with its statements moved
back to the file's line numbers, so tracebacks and Dynamo's reports point
at the user's file.  Rewritten texts are kept in :mod:`graphmend.mending.cache`, so
a second run only pays the lookup.

What is never rewritten: modules already imported when the hook is
installed (the finder only sees new imports), extension modules, modules
without source, and -- refused when named -- the standard library, torch
and graphmend itself (:mod:`graphmend.mending.foreign`).  Nothing is written to disk except cache entries:
the loader never reads or writes ``__pycache__``, so a later run without
the hook gets the original code.  A file whose rewrite fails (a rule bug)
is loaded unchanged and the failure logged as a warning; one that does not
parse raises Python's own ``SyntaxError``, as without the hook.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import sys
from collections.abc import Iterable, Iterator, Sequence
from types import CodeType

from graphmend.mending import cache
from graphmend.errors import GraphmendError
from graphmend.analysis.source import line_map
from graphmend.mending.search import matches
from graphmend.mending.foreign import foreign_module
from graphmend.mending.scope import move_to_file_lines
from graphmend.pipeline import CONVERTERS, transform_source
from graphmend.rules.options import select_rules

logger = logging.getLogger("graphmend")

def check_prefixes(modules: str | Iterable[str]) -> tuple[str, ...]:
    """The module-name prefixes to mend; :class:`GraphmendError` for an empty
    one, one naming code never mended (:mod:`graphmend.mending.foreign`), or
    ``__main__`` (the script itself, which no finder imports)."""
    prefixes = tuple(p.strip() for p in ([modules] if isinstance(modules, str) else modules))
    if not prefixes:
        raise GraphmendError("name at least one module to mend")
    for prefix in prefixes:
        top = prefix.split(".")[0]
        if not prefix or not all(part.isidentifier() for part in prefix.split(".")):
            raise GraphmendError(f"{prefix!r} is not a module name")
        if foreign_module(prefix) or top == "__main__":
            raise GraphmendError(
                f"refusing to mend {prefix!r}: the standard library, torch and graphmend are never rewritten"
            )
    return prefixes


class MendingLoader(importlib.machinery.SourceFileLoader):
    """Loads a source file with the rules applied; never uses bytecode caches."""

    def __init__(self, fullname: str, path: str, rule_names: tuple[str, ...]) -> None:
        super().__init__(fullname, path)
        self.rule_names = rule_names

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)

    def source_to_code(self, data: bytes, path: str) -> CodeType:  # type: ignore[override]
        source = importlib.util.decode_source(data)
        try:
            tree = ast.parse(source, path)
        except SyntaxError:
            return compile(data, path, "exec", dont_inherit=True)  # Python's own error
        try:
            mended = cache.cached(
                source,
                rules=self.rule_names,
                lines=None,
                build=lambda: transform_source(source, rules=self.rule_names, filename=path).code,
            )
            if mended != source:
                tree = ast.parse(mended, path)
                mapping = line_map(source.splitlines(keepends=True), mended.splitlines(keepends=True), 1)
                move_to_file_lines(tree, mapping, 1)
                logger.debug("graphmend: mended %s on import", self.name)
        except Exception:  # a bug in a rule must not stop the user's import
            logger.warning("graphmend: mending %s on import failed; loaded unchanged", path, exc_info=True)
        return compile(tree, path, "exec", dont_inherit=True)


class MendingFinder(importlib.abc.MetaPathFinder):
    """Finds the named modules as the path finder would, to load them mended."""

    def __init__(self, prefixes: Sequence[str], rules: Iterable[str] | None = None) -> None:
        self.prefixes = check_prefixes(prefixes)
        self.rule_names = select_rules(rules, CONVERTERS.rule_names())

    def find_spec(self, fullname, path, target=None):
        if not matches(fullname, self.prefixes):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec  # extension module, namespace package, not found
        spec.loader = MendingLoader(fullname, spec.origin, self.rule_names)
        return spec


def install(modules: str | Iterable[str], *, rules: Iterable[str] | None = None) -> MendingFinder:
    """Mend the named modules (name prefixes) as they are imported from now on."""
    finder = MendingFinder([modules] if isinstance(modules, str) else list(modules), rules)
    already = sorted(name for name in sys.modules if matches(name, finder.prefixes))
    if already:
        logger.warning("graphmend: already imported, so not mended: %s", ", ".join(already))
    sys.meta_path.insert(0, finder)
    return finder


def uninstall(finder: MendingFinder) -> None:
    """Stop mending new imports (modules already loaded stay mended)."""
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)


@contextlib.contextmanager
def mending_imports(modules: str | Iterable[str], *, rules: Iterable[str] | None = None) -> Iterator[MendingFinder]:
    """``with mending_imports("mypkg"): import mypkg.model``."""
    finder = install(modules, rules=rules)
    try:
        yield finder
    finally:
        uninstall(finder)
