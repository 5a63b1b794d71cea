"""Message helpers: functions whose only effect is a message.

A module-level function that emits a message (``print``, a logger method,
``warn`` or another such helper) and does nothing else that calling it
later could change (compute locals, test, raise under a test) is an effect
call for [Defer], as ``print`` is: a library's warning helper.  Read over
``ast`` alone, with :mod:`graphmend.vocabulary`'s vocabulary, so that the
cheap scan (:mod:`graphmend.analysis.scan`) and a parsed file
(:attr:`graphmend.analysis.source.ParsedFile.effect_helpers`) share it.
"""

from __future__ import annotations

import ast

from graphmend import vocabulary


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_effect_call(call: ast.Call, helpers: set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in vocabulary.MESSAGE_FUNCTIONS | helpers
    if isinstance(func, ast.Attribute):
        return func.attr in vocabulary.LOGGER_METHODS | {"warn"}
    return False


def _effect_only(body: list[ast.stmt], helpers: set[str], guarded: bool = False) -> bool:
    """Whether ``body`` does nothing but compute locals, test and emit
    messages (print, a logger method, ``warn``, another such helper), and
    raise under a test (a misconfiguration check)."""
    for statement in body:
        if isinstance(statement, ast.Raise) and guarded:
            continue
        if isinstance(statement, (ast.Pass, ast.Break, ast.Continue)):
            continue
        if isinstance(statement, ast.Expr):
            value = statement.value
            if isinstance(value, ast.Constant):  # a docstring
                continue
            if not (isinstance(value, ast.Call) and _is_effect_call(value, helpers)):
                return False
        elif isinstance(statement, ast.Return):
            value = statement.value
            if value is not None and not (
                _inert(value) or isinstance(value, ast.Call) and _is_effect_call(value, helpers)
            ):
                return False
        elif isinstance(statement, ast.Assign):
            if not all(isinstance(t, ast.Name) for t in statement.targets) or not _inert(statement.value):
                return False
        elif isinstance(statement, ast.If):
            if not (_inert(statement.test) and _effect_only(statement.body, helpers, True)
                    and _effect_only(statement.orelse, helpers, True)):
                return False
        else:
            return False
    return True


_INERT_CALLS = vocabulary.MESSAGE_BUILTINS | vocabulary.STATIC_METHODS | {"format", "join", "getattr", "isinstance"}


def _inert(expr: ast.AST) -> bool:
    """Computes a value without effects: calls only of string formatting,
    sizes and harmless builtins."""
    return all(_callee(n) in _INERT_CALLS for n in ast.walk(expr) if isinstance(n, ast.Call))


def _emits(body: list[ast.stmt], helpers: set[str]) -> bool:
    """Whether ``body`` emits a message somewhere: a helper that only
    raises (``check_shapes``) has nothing to defer, and deferring its raise
    would skip [Trap]'s checks."""
    for statement in body:
        # ``print(...)``, and ``return fn(...)`` of a wrapper (lightning's ``rank_zero_only``).
        if isinstance(statement, (ast.Expr, ast.Return)) and isinstance(statement.value, ast.Call) and \
                _is_effect_call(statement.value, helpers):
            return True
        if isinstance(statement, ast.If) and (_emits(statement.body, helpers) or _emits(statement.orelse, helpers)):
            return True
    return False


def effect_only(function: ast.AST, helpers: set[str]) -> bool:
    """Whether the def ``function`` is a message helper: it emits a message
    (calls print, a logger method, ``warn`` or one of ``helpers``) and does
    nothing else that calling it later could change."""
    return _emits(function.body, helpers) and _effect_only(function.body, helpers)


def effect_helpers(tree: ast.Module) -> frozenset[str]:
    """Names of the module-level functions (undecorated) whose only effect
    is a message: calling one later, with the same arguments, is
    indistinguishable but for when the message appears."""
    candidates = {
        node.name: node for node in tree.body
        if isinstance(node, ast.FunctionDef) and not node.decorator_list
    }
    found: set[str] = set()
    changed = True
    while changed:  # a helper may call another helper
        changed = False
        for name, node in candidates.items():
            if name not in found and effect_only(node, found):
                found.add(name)
                changed = True
    return frozenset(found)
