"""Classifying a break: its category (DC, IO, GUARD, SCALAR, DS, OTHER) from
Dynamo's reason and the statement, and the rule expected to fix it (or Dynamo's hint).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend import vocabulary
from graphmend.analysis import scan
from graphmend.analysis.source import DEFS, ParsedFile, innermost, parse_file, statement_at
from graphmend.diagnosis.report import RULE_FOR


_SCALAR_HINT = (
    "torch._dynamo.config.capture_scalar_outputs = True keeps the scalar in the graph"
)
_NUMBER_TEST_HINT = (
    "the test is a Python number [Capture] holds (read back from a tensor before the test); [Where] "
    "predicates tensor tests only: keep the value a tensor, or read it back inside the test"
)
_LOOP_EXIT_HINT = (
    "the branch leaves its loop on one arm only (return, break or continue): [Where] runs both arms of "
    "what it merges, which leaving a loop cannot be"
)
_DS_HINT = (
    "torch._dynamo.config.capture_dynamic_output_shape_ops = True traces it with an "
    "unbacked size, if later code does not branch on that size"
)


def _calls(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def _base_category(reason: str) -> str:
    if "generic_jump" in reason or "Data-dependent" in reason or "data dependent" in reason:
        return "DC"
    if "item()" in reason or "tolist()" in reason or "capture_scalar_outputs" in reason:
        return "SCALAR"
    if "Dynamic shape operator" in reason or "capture_dynamic_output_shape_ops" in reason:
        return "DS"
    if "logging.Logger" in reason or "builtin operator `print`" in reason:
        return "IO"
    return "OTHER"


def _is_io_call(statement: ast.stmt | None) -> bool:
    """``print(...)``, ``warn(...)``, ``warnings.warn(...)`` or ``<logger>.<method>(...)``."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    if isinstance(func, ast.Name):
        return func.id in vocabulary.MESSAGE_FUNCTIONS
    if isinstance(func, ast.Attribute):
        owner = func.value
        owner_name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if owner_name == "warnings":
            return func.attr == "warn"
        return func.attr in vocabulary.LOGGER_METHODS and "log" in owner_name.lower()
    return False


def break_category(reason: str, filename: str, lineno: int) -> str:
    """The category of a break, from Dynamo's reason and the source: DC
    (data-dependent control flow), IO (print, logging, warnings), GUARD (a
    tensor test whose body only raises), SCALAR (``.item()``, ``int(t)``...),
    DS (data-dependent output shape) or OTHER."""
    category = _base_category(reason)
    statement = statement_at(filename, lineno)
    if category == "OTHER" and _is_io_call(statement):
        return "IO"  # e.g. warnings.warn: "Attempted to call function marked as skipped"
    if category == "OTHER" and isinstance(statement, ast.If) and "equal" in _calls(statement.test) and \
            gb_type(reason) == "Data dependent operator":
        category = "DC"  # ``if not torch.equal(a, b):`` reads the tensors back to branch on them
    if category == "DC" and scan.raises_only(statement):
        return "GUARD"
    return category


def _scalar_where_may_fix(filename: str, lineno: int, reason: str) -> bool:
    """A scalar that feeds a predicate, a statement reading back
    ``arange(...).tolist()`` or a tensor made of Python values, or, where
    Dynamo met an operator reading data
    back rather than ``.item()``, one indexing with what may be a 0-dim
    tensor (``x[i]``): [Where] is asked about them."""
    parsed = parse_file(filename)
    if parsed is None:
        return False
    node = innermost(parsed.tree, lineno, (ast.If, ast.While, ast.IfExp))
    if node is not None and _calls(node.test) & vocabulary.READ_BACKS:
        return True
    indexing = gb_type(reason) == "Data dependent operator"
    return _statement_holds(parsed, lineno, lambda n: scan.arange_tolist(n) or scan.static_read(n)
                            or indexing and scan.scalar_subscript(n))


def _jumps_on_a_captured_number(filename: str, lineno: int, reason: str) -> bool:
    """A jump on a number [Capture] holds (Dynamo's ``SymNodeVariable``)
    whose test [Where] cannot lower to a tensor: it reads no read-back
    (:func:`scan.reads_a_read_back`), so the rewritten test is the same
    number, which the runtime's predicated forms leave to Python's branch
    (xitorch's ``fval: float = float(f.item())`` ... ``if fval <
    self._best_f:``).  Mending it would only compile the frame again."""
    if "SymNodeVariable" not in reason:
        return False
    parsed = parse_file(filename)
    statement = None if parsed is None else parsed.statement_at(lineno)
    function = None if parsed is None else innermost(parsed.tree, lineno, DEFS)
    if statement is None or function is None:
        return False
    test = statement.test if isinstance(statement, (ast.If, ast.While)) else statement
    return not scan.reads_a_read_back(function, test)


def _branch_leaves_a_loop(filename: str, lineno: int) -> bool:
    """The ``if`` whose test holds the site leaves its loop on one arm
    (:func:`scan.leaves_a_loop`): [Where] declines it, so mending it
    first would only run the frame eagerly and compile it a call later."""
    parsed = parse_file(filename)
    branch = None if parsed is None else innermost(parsed.tree, lineno, (ast.If,))
    function = None if parsed is None else innermost(parsed.tree, lineno, DEFS)
    if branch is None or function is None or not branch.test.lineno <= lineno <= branch.test.end_lineno:
        return False
    return scan.leaves_a_loop(function, branch)


def gb_type(reason: str) -> str | None:
    """The gb_type of a break reason: its first line ("Data-dependent
    branching" for a data-dependent jump, whose reason has none)."""
    headline = reason.strip().split("\n", 1)[0].strip()
    return "Data-dependent branching" if headline.startswith("generic_jump") else headline or None


def dynamo_hint(reason: str) -> str | None:
    for line in reason.splitlines():
        if line.strip().startswith("Hint:"):
            return line.strip().removeprefix("Hint:").strip()
    return None


def static_fix(category: str, reason: str, filename: str, lineno: int) -> tuple[str | None, str | None]:
    """(rule, hint) from the category alone, before asking the rule itself."""
    if category == "SCALAR":
        if _holds(filename, lineno, scan.one_hot_call):
            return "trap", None  # a one-hot width read from data: encoded at a captured width
        if _branch_leaves_a_loop(filename, lineno):
            return None, f"{_LOOP_EXIT_HINT}; {_SCALAR_HINT}"
        if _scalar_where_may_fix(filename, lineno, reason):
            return "where", _SCALAR_HINT  # the hint, unless [Where] fixes it or says why not
        return None, _SCALAR_HINT
    if category == "DS":
        if _statement_is(filename, lineno, scan.masked_store):
            return "where", None
        if _statement_is(filename, lineno, scan.unique_binding):
            return "trap", None
        return None, _DS_HINT
    if category == "DC" and _jumps_on_a_captured_number(filename, lineno, reason):
        return None, _NUMBER_TEST_HINT
    if category == "DC" and _branch_leaves_a_loop(filename, lineno):
        return None, _LOOP_EXIT_HINT
    if category in RULE_FOR:
        return RULE_FOR[category], None
    if category == "OTHER" and _holds(filename, lineno, scan.builtin_pow):
        # Dynamo does not trace the builtin on a tensor; [Where] spells it ``**``.
        return "where", None
    return None, dynamo_hint(reason)


def _holds(filename: str, lineno: int, found: Callable[[ast.AST], bool]) -> bool:
    """Whether the statement at ``lineno`` holds a node ``found`` accepts."""
    parsed = parse_file(filename)
    return parsed is not None and _statement_holds(parsed, lineno, found)


def _statement_is(filename: str, lineno: int, found: Callable[[ast.AST], bool]) -> bool:
    """Whether the statement at ``lineno`` is one ``found`` accepts."""
    statement = statement_at(filename, lineno)
    return statement is not None and found(statement)


def _statement_holds(parsed: ParsedFile, lineno: int, found: Callable[[ast.AST], bool]) -> bool:
    """Whether the statement at ``lineno`` holds a node ``found`` accepts."""
    statement = parsed.statement_at(lineno)
    return statement is not None and any(found(n) for n in ast.walk(statement))
