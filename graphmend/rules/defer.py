"""[Defer] graph-epilogue side effects (SPEC 3.2).

What it does
    Rewrites ``print(...)``, ``<logger>.<debug|info|warning|warn|error|
    critical|exception|log|warning_once|info_once>(...)`` and
    ``warnings.warn(...)`` statements inside functions into calls of
    :mod:`graphmend.runtime` that Dynamo replays after the graph.  An
    f-string argument becomes ``_graphmend.fstring(template, *values)``, so
    that under torch.compile it is formatted when the message is replayed.
    Loggers are a module-level name or ``self.logger``; ``print``'s
    ``file`` is ``sys.stdout``/``sys.stderr``.  Aliases resolve through
    qualified names (``from warnings import warn``, ``import sys as s``).

Why it breaks the graph
    Dynamo cannot trace I/O: ``print`` is an unsupported builtin, logger
    methods are "not supported", ``warnings.warn`` is a skipped function.
    Each one ends the graph, runs eagerly and starts a new graph.

Before
    ::

        logger.warning_once("Passing a tuple of `past_key_values` is deprecated ...")
        print(f"loss {loss:.4f}", file=sys.stderr)
        warnings.warn("`feature_extractor` is deprecated", FutureWarning)

After
    ::

        _graphmend.deferred_log(logger, "warning_once", "Passing a tuple of ...")
        _graphmend.deferred_print(_graphmend.fstring("loss {:.4f}", loss), stream="stderr")
        _graphmend.deferred_warn("`feature_extractor` is deprecated", "FutureWarning", __name__)

Safety
    * Eagerly the runtime makes the original call at the same point with the
      same arguments: same text, logger, level, category, and the same
      record/warning location (``stacklevel`` is adjusted for the extra
      frame).  ``warning_once``/``info_once`` get exactly the original
      arguments, so their ``lru_cache`` key, and "once per process", are
      the original's.
    * Under torch.compile Dynamo replays the calls after the graph in
      program order; a call with an argument Dynamo cannot replay (not a
      tensor, constant or string formatter) graph-breaks and runs eagerly in
      place, as before.  Tensor arguments, also inside f-strings, are
      snapshots, so an in-place update later in the graph does not show.
      Not covered: a string that other code built from a tensor (``str(t)``
      or ``"{}".format(t)`` in a helper) which is then updated in place
      later in the same graph.
    * Not covered either: an error while formatting a replayed message
      (``{t:.4f}`` of a multi-element tensor) is raised after the graph,
      where eager code raised it at the call; the type and text are the same.
    * Loggers are found again by identity among the loggers
      ``logging.getLogger`` made (every library's are); a ``Logger``
      constructed directly is not found when replayed (``LookupError``).
    * torch 2.13 drops replayable calls made inside inlined functions; the
      runtime fixes that at import (see ``graphmend.runtime``), which every
      rewritten module imports.
    * Warning location: eagerly it is exact.  When replayed, Python's frame
      stack no longer holds the call site (inlined calls have no frames), so
      ``stacklevel`` counts from the compiled function, whose line is then
      its ``def`` line.  The location is fixed per compiled function and
      ``stacklevel``, so the default "once per location" filter still shows
      a warning once per site and text; two sites in one function warning
      the same text and category would count as one.
    * Declined: keyword arguments other than ``sep``/``end``/``file``/
      ``flush`` (print) and ``category``/``stacklevel`` (warn), ``*args``,
      f-strings with ``{x=}``, nested format specs or escapes that can
      spell a brace (``\\x7b``), bytes,
      ``logger.exception`` inside ``except`` (it needs the
      active exception), a category that is not a global name, a call whose
      value is used.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m
from libcst.metadata import GlobalScope, QualifiedNameProvider, ScopeProvider

from graphmend.rules.base import Declined, Rule, global_name, runtime_call, runtime_function, string

LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
)
#: transformers' ``lru_cache``d ``logging.Logger`` methods.
ONCE_METHODS = frozenset({"warning_once", "info_once"})
STREAMS = {"sys.stdout": "stdout", "sys.stderr": "stderr"}
PRINT_KEYWORDS = frozenset({"sep", "end", "file", "flush"})
WARN_PARAMETERS_IN_ORDER = ("message", "category", "stacklevel")
WARN_PARAMETERS = frozenset(WARN_PARAMETERS_IN_ORDER)


def with_comma(arg: cst.Arg) -> cst.Arg:
    """``arg`` followed by a comma, keeping one it already has."""
    if isinstance(arg.comma, cst.Comma):
        return arg
    return arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))


def insert_args(args: list[cst.Arg], index: int, new: list[cst.Arg]) -> list[cst.Arg]:
    """``args`` with ``new`` inserted before position ``index``, laid out
    like their neighbours: the last new argument ends as its predecessor
    did, and the commas between take the call's separator, so multi-line
    calls stay one argument per line."""
    if index == 0:
        return [with_comma(arg) for arg in new] + args
    before = args[index - 1]
    # The last argument's comma leads to the closing parenthesis; an inner
    # one leads to the next argument.
    separator = args[index - 2].comma if index == len(args) and index >= 2 else before.comma
    tight = cst.SimpleWhitespace("")
    spliced = [
        with_comma(arg.with_changes(comma=separator, whitespace_after_arg=tight))
        for arg in [before, *new[:-1]]
    ]
    last = new[-1].with_changes(comma=before.comma, whitespace_after_arg=before.whitespace_after_arg)
    return args[: index - 1] + spliced + [last] + args[index:]


def deferred_text(node: cst.BaseExpression) -> cst.BaseExpression:
    """A message argument with its f-string split into a
    ``_graphmend.fstring(template, *values)`` call; anything else as is."""
    if not m.matches(node, m.FormattedString() | m.ConcatenatedString()):
        return node
    if not m.findall(node, m.FormattedString()):
        return node  # plain literals: a constant already
    values: list[cst.BaseExpression] = []
    template = _template(node, values)
    return runtime_call("fstring", [cst.Arg(template)] + [cst.Arg(value) for value in values])


def _template(node: cst.BaseExpression, values: list[cst.BaseExpression]) -> cst.BaseExpression:
    """The ``str.format`` template of string literal ``node``, appending the
    expressions it embeds to ``values``.

    Every literal keeps its prefix (minus ``f``), quotes and layout, so its
    escapes read as before.  An f-string's text keeps its ``{{``/``}}``,
    which ``str.format`` reads the same way; a plain literal's braces are
    doubled.
    """
    if isinstance(node, cst.ConcatenatedString):
        left = _template(node.left, values)
        return node.with_changes(left=left, right=_template(node.right, values))
    if isinstance(node, cst.FormattedString):
        prefix = node.prefix.replace("f", "").replace("F", "")
        body = "".join(_template_piece(piece, values) for piece in node.parts)
        _check_escapes(prefix, body)
        return cst.SimpleString(f"{prefix}{node.start[len(node.prefix):]}{body}{node.end}")
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        quote_length = len(node.quote)
        body = node.value[len(node.prefix) + quote_length : -quote_length]
        _check_escapes(node.prefix, body)
        body = body.replace("{", "{{").replace("}", "}}")
        return node.with_changes(value=f"{node.prefix}{node.quote}{body}{node.quote}")
    raise Declined("bytes literal in a message")


#: Escapes that can spell a brace (``\x7b``, ``\N{LEFT CURLY BRACKET}``),
#: which ``str.format`` would then read as a field.
_BRACE_CAPABLE_ESCAPE = re.compile(r"\\[xuUN0-7]")


def _check_escapes(prefix: str, body: str) -> None:
    if "r" not in prefix.lower() and _BRACE_CAPABLE_ESCAPE.search(body):
        raise Declined("numeric or named escape in a message literal")


def _template_piece(piece: cst.BaseFormattedStringContent, values: list[cst.BaseExpression]) -> str:
    if isinstance(piece, cst.FormattedStringText):
        return piece.value
    assert isinstance(piece, cst.FormattedStringExpression)
    if piece.equal is not None:
        raise Declined("f-string self-documenting '{x=}' field")
    spec = ""
    if piece.format_spec is not None:
        if not all(isinstance(p, cst.FormattedStringText) for p in piece.format_spec):
            raise Declined("f-string field with a nested format spec")
        spec = ":" + "".join(p.value for p in piece.format_spec)
    conversion = f"!{piece.conversion}" if piece.conversion else ""
    values.append(piece.expression)
    return "{" + conversion + spec + "}"


class DeferRule(Rule):
    NAME = "defer"
    METADATA_DEPENDENCIES = (*Rule.METADATA_DEPENDENCIES, ScopeProvider)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._function_depth = 0
        self._except_depth = 0

    # -- where we are -------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._function_depth += 1

    def leave_FunctionDef(self, original_node, updated_node):
        self._function_depth -= 1
        return updated_node

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._except_depth += 1

    def leave_ExceptHandler(self, original_node, updated_node):
        self._except_depth -= 1
        return updated_node

    # -- the rewrite ----------------------------------------------------------
    def leave_Expr(self, original_node: cst.Expr, updated_node: cst.Expr) -> cst.Expr:
        call = original_node.value
        if self._function_depth == 0 or not isinstance(call, cst.Call) or not self.wanted(original_node):
            return updated_node
        kind = self._kind(call)
        if kind is None:
            return updated_node
        builder = {"print": self._print, "warnings.warn": self._warn}.get(kind, self._log)
        try:
            # An expression holds no statement this rule rewrites, so the
            # original call is the updated one, and it carries the metadata.
            replacement = builder(call, kind)
        except Declined as reason:
            self.skip(original_node, f"{kind}: {reason}")
            return updated_node
        self.record(original_node, f"{kind} -> deferred")
        return updated_node.with_changes(value=replacement)

    def _kind(self, call: cst.Call) -> str | None:
        """"print", "warnings.warn", a logger method name, or None (not ours)."""
        names = {q.name for q in self.get_metadata(QualifiedNameProvider, call.func, set())}
        if "builtins.print" in names:
            return "print"
        if "warnings.warn" in names:
            return "warnings.warn"
        if m.matches(call.func, m.Attribute(attr=m.Name())):
            method = call.func.attr.value
            if (method in LOG_METHODS or method in ONCE_METHODS) and self._is_logger(call.func.value):
                return method
        return None

    def _is_logger(self, receiver: cst.BaseExpression) -> bool:
        """A module-level name bound by assignment (or free in the source),
        or ``self.logger``; the runtime checks it is a Logger."""
        if m.matches(receiver, m.Attribute(value=m.Name("self"), attr=m.Name("logger"))):
            return True
        if not isinstance(receiver, cst.Name):
            return False
        assignments = self.get_metadata(ScopeProvider, receiver)[receiver.value]
        return all(
            isinstance(a.scope, GlobalScope) and isinstance(a.node, cst.Name) for a in assignments
        )

    @staticmethod
    def _plain_args(call: cst.Call, keywords: frozenset[str]) -> None:
        for arg in call.args:
            if arg.star:
                raise Declined(f"'{arg.star}' argument")
            if arg.keyword is not None and arg.keyword.value not in keywords:
                raise Declined(f"keyword argument {arg.keyword.value}=")

    def _print(self, call: cst.Call, kind: str) -> cst.Call:
        self._plain_args(call, PRINT_KEYWORDS)
        args = []
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "file":
                args.append(arg.with_changes(keyword=cst.Name("stream"), value=self._stream(arg.value)))
            else:
                args.append(arg.with_changes(value=deferred_text(arg.value)))
        return call.with_changes(func=runtime_function("deferred_print"), args=args)

    def _stream(self, file: cst.BaseExpression) -> cst.SimpleString:
        if m.matches(file, m.Name("None")):
            return string("stdout")
        for name in self.get_metadata(QualifiedNameProvider, file, set()):
            if name.name in STREAMS:
                return string(STREAMS[name.name])
        raise Declined("file= is not sys.stdout or sys.stderr")

    def _log(self, call: cst.Call, method: str) -> cst.Call:
        self._plain_args(call, frozenset())
        if method == "exception" and self._except_depth:
            raise Declined("logger.exception inside 'except' needs the active exception")
        args = [arg.with_changes(value=deferred_text(arg.value)) for arg in call.args]
        receiver = call.func.value
        return call.with_changes(
            func=runtime_function("deferred_log"),
            args=insert_args(args, 0, [cst.Arg(receiver), cst.Arg(string(method))]),
        )

    def _warn(self, call: cst.Call, kind: str) -> cst.Call:
        self._plain_args(call, WARN_PARAMETERS)
        args = list(call.args)
        bound = {
            arg.keyword.value if arg.keyword else WARN_PARAMETERS_IN_ORDER[i]: i
            for i, arg in enumerate(args)
        }
        if "message" not in bound:
            raise Declined("no message")
        message = args[bound["message"]]
        args[bound["message"]] = message.with_changes(value=deferred_text(message.value))
        # The module travels as a keyword unless it follows a positional
        # category (``stacklevel`` may come positionally after it).
        module = cst.Arg(cst.Name("__name__"), keyword=cst.Name("module"), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        if "category" not in bound:
            return self._warn_call(call, insert_args(args, bound["message"] + 1, [module]))
        index = bound["category"]
        category = args[index]
        if not m.matches(category.value, m.Name("None")):
            category = category.with_changes(value=string(global_name(self, category.value)))
        args[index] = category
        if category.keyword is None:
            module = cst.Arg(cst.Name("__name__"))
        return self._warn_call(call, insert_args(args, index + 1, [module]))

    @staticmethod
    def _warn_call(call: cst.Call, args: list[cst.Arg]) -> cst.Call:
        return call.with_changes(func=runtime_function("deferred_warn"), args=args)
