"""Step 3 of mending: compile a rewritten def as the function it replaces.

Each mended function is compiled on its own, inside a scope that reproduces
the original's: for methods, a module-level class of the same name (so
``__private`` names are mangled alike, zero-argument ``super()`` finds
``__class__`` and the class name stays a global), an enclosing function
binding its free variables (so closures keep the same ``co_freevars``; a
rewrite that drops the last use of one keeps a dead reference to it), and
the module's imports, declared but never run.  Statements are moved to the
file's line numbers (unchanged statements keep their exact lines, a
rewritten one points at the line of the statement it replaced) and the
filename is the original's, so tracebacks and Dynamo's reports point at the
user's file.  The original source is compiled the same way first: when that
does not reproduce the loaded bytecode (file edited since import, a lying
``__qualname__``), the function is left alone.
"""

from __future__ import annotations

import __future__
import ast
import functools
import inspect
import types
from collections.abc import Iterable

from graphmend.mending.resolve import Unmendable

_FUTURE_FLAGS = functools.reduce(
    lambda flags, name: flags | getattr(__future__, name).compiler_flag,
    __future__.all_feature_names,
    0,
)
_SCOPE = "__graphmend_scope__"


def compile_in_scope(
    node: ast.AST, function: types.FunctionType, scope_class: str | None, imported: Iterable[str]
) -> types.CodeType:
    """Compile the def ``node`` as ``function``'s code: same scope, same lines.

    The module-level imports are declared too (never executed): CPython 3.11
    compiles ``name.attr(...)`` differently when ``name`` was imported.
    """
    original = function.__code__
    bound = [v for v in original.co_freevars if not (scope_class and v == "__class__")]
    header = f"import {', '.join(sorted(imported))}\n" if imported else ""
    indent = ""
    if scope_class:  # at module level, so its name is a global as in the file
        header += f"class {scope_class}:\n    pass\n"
        indent = "    "
    if bound:
        header += f"{indent}def {_SCOPE}():\n{indent}    {' = '.join(bound)} = None\n"
    wrapper = ast.parse(header)
    body = wrapper.body
    for _ in range(bool(scope_class) + bool(bound)):
        body = body[-1].body
    if scope_class and not bound:
        body.clear()  # the class's placeholder ``pass``
    body.append(node)
    module_code = compile(
        wrapper,
        original.co_filename,
        "exec",
        flags=original.co_flags & _FUTURE_FLAGS,
        dont_inherit=True,
    )
    code = module_code
    for _ in range(1 + bool(scope_class) + bool(bound)):  # module -> (class ->) (scope ->) function
        code = [c for c in code.co_consts if isinstance(c, types.CodeType)][-1]
    nested = original.co_flags & inspect.CO_NESTED
    code = code.replace(co_flags=(code.co_flags & ~inspect.CO_NESTED) | nested)
    return requalify(code, code.co_qualname, original.co_qualname)


def requalify(code: types.CodeType, old: str, new: str) -> types.CodeType:
    """Give ``code`` and the code nested in it qualnames under ``new``, not the
    scope's (nested functions take ``__qualname__`` from their code)."""
    consts = tuple(requalify(c, old, new) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    qualname = code.co_qualname
    if qualname.startswith(old):
        qualname = new + qualname[len(old) :]
    return code.replace(co_qualname=qualname, co_consts=consts)


def move_to_file_lines(node: ast.AST, mapping: list[int], offset: int) -> None:
    for sub in ast.walk(node):
        if getattr(sub, "lineno", None) is None:
            continue
        sub.lineno = mapping[sub.lineno - offset]
        end = getattr(sub, "end_lineno", None)
        if end is not None:
            sub.end_lineno = max(mapping[end - offset], sub.lineno)
            if sub.end_lineno == sub.lineno and sub.end_col_offset < sub.col_offset:
                sub.end_col_offset = sub.col_offset


def mended_code(function: types.FunctionType, node: ast.AST, scope_class: str | None,
                imported: Iterable[str]) -> types.CodeType:
    """Compile ``node`` (already at file lines) so that its free variables are
    exactly the original's: a rewrite that drops the last use of one gets a
    dead reference (``if False: (name,)``, removed by the compiler but kept in
    the symbol table), because ``__code__`` can only be swapped for code with
    as many free variables as the function has closure cells."""
    original = function.__code__
    code = compile_in_scope(node, function, scope_class, imported)
    missing = sorted(set(original.co_freevars) - set(code.co_freevars))
    if missing:
        reference = ast.parse(f"if False: ({', '.join(missing)},)").body[0]
        ast.increment_lineno(reference, node.end_lineno - 1)
        node.body.append(reference)
        code = compile_in_scope(node, function, scope_class, imported)
    if code.co_freevars != original.co_freevars:
        raise Unmendable(
            f"the mended code's free variables {code.co_freevars} differ from the closure's "
            f"{original.co_freevars}"
        )
    return code
