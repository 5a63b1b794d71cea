"""[Defer] graph-epilogue side effects: replayed after the graph with the same
text, order, count, logger, level and warning category; in eager mode made
where the original made them.

What it does
    Rewrites ``print(...)``, ``<logger>.<debug|info|warning|warn|error|
    critical|exception|log|warning_once|info_once>(...)``,
    ``warnings.warn(...)`` and calls of a library's warning helper (a
    function whose only effect is one of these, e.g. ``rank_zero_warn``)
    statements inside functions into calls of :mod:`graphmend.runtime`
    that Dynamo replays after the graph.  Arguments may be anything Dynamo
    holds as a constant or a tensor: ``torch.Size`` and shapes, dtypes,
    devices, ``None``, enums, and tuples, lists and dicts of these.  An
    f-string argument becomes ``_graphmend.fstring(template, *values)``, so
    that under torch.compile it is formatted when the message is replayed.
    Loggers are a module-level name, ``self.logger`` or loguru's
    ``logger`` (the runtime replays only ``logging.Logger`` objects and loguru's
    own ``logger``, and calls anything else as written); ``print``'s
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
    * An argument that is a str or number the compiled frame was called
      with, which nothing before the call read: replayed, Dynamo would
      guard on its value (a graph per value and, past the recompile limit,
      the frame run eagerly); the call is made in place, as torch.compile
      makes it (``graphmend.compat.reads_an_unread_argument``).
    * Under torch.compile Dynamo replays the calls after the graph in
      program order; a call with an argument Dynamo cannot replay (not a
      tensor, constant or string formatter) graph-breaks and runs eagerly in
      place, as before (diagnose says which is the reason); a library
      helper given such an argument outside a tensor arm is called in place
      instead, as written, so that it breaks only if it reaches its message
      (``_handle_unused_kwargs(self, unused_kwargs)`` with nothing unused
      does not).  Tensor arguments, also inside f-strings, are
      snapshots, so an in-place update later in the graph does not show.
      Not covered: a string that other code built from a tensor (``str(t)``
      or ``"{}".format(t)`` in a helper) which is then updated in place
      later in the same graph.
    * The replay comes after the graph, so an error the graph raises while
      it runs would come before the messages deferred in it.  Tracing on
      fake tensors sees most errors (shapes, an int index out of range),
      and then Dynamo ends the graph before them; what only the data
      decides, or a kernel missing for a dtype whose meta kernel accepts
      it (``abs`` of a bool tensor), it cannot see.  Declined therefore: a
      call followed, in its function, by an index that is a tensor the
      function makes (``bins = bucketize(x, edges)`` ... ``y.gather(0,
      bins)``), or by a call that rejects some values
      (``torch.linalg.cholesky`` of a matrix that is not
      positive-definite, ``inv``/``solve`` of a singular one,
      ``multinomial`` of invalid probabilities).  Elsewhere (an index the
      function is given, a kernel missing for a dtype), a graph that
      raises while it runs makes the calls recorded before the failing
      operation, found by running its operations again eagerly up to it
      (:mod:`graphmend.compat.failures_at_run_time`), and then raises its
      error; where running them again could change what the failed run
      left (an update in place, a random draw, a module or custom operator
      before the failure), nothing is made and the exception carries a
      note saying so.
    * Not covered either: an error while formatting a replayed message
      (``{t:.4f}`` of a multi-element tensor) is raised after the graph,
      where eager code raised it at the call; the type and text are the same.
    * Loggers are found again by identity among the loggers
      ``logging.getLogger`` made (every library's are); a ``Logger``
      constructed directly is not found when replayed (``LookupError``).
      loguru's own ``logger`` is found again by name, and its record
      names the user's frame (``opt(depth=...)``); a loguru logger that
      ``bind()``, ``opt()`` or ``patch()`` made is called as written.
    * torch 2.13 drops replayable calls made inside inlined functions;
      :mod:`graphmend.compat` fixes that for rewritten code.
    * Inside a tensor arm that [Where] rewrites, the call is *gated*
      (``gate=``): replayed only if its arm was taken, in program order with
      the unconditional ones.
    * A helper's argument that names a builtin class or an imported name
      (``rank_zero_warn(msg, UserWarning)``) travels by its dotted name
      (``named=``) and is resolved in the module when the call is made:
      Dynamo replays names, not classes.  Module globals the file assigns
      itself are passed as values (they might change before the replay).
    * A tensor that requires grad travels as it is (its text keeps its
      ``grad_fn``), unless the function updates tensors in place somewhere
      (``keep_grad=False``): then the graph breaks at the call, as before.
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

import builtins

import re

import libcst as cst
import libcst.matchers as m

from graphmend.analysis.bindings import code, following
from graphmend.analysis.facts import FunctionFacts
from graphmend.rules.base import Context, Declined, declining, keyword, runtime_call, runtime_function, string

STREAMS = {"sys.stdout": "stdout", "sys.stderr": "stderr"}
PRINT_KEYWORDS = frozenset({"sep", "end", "file", "flush"})
WARN_PARAMETERS_IN_ORDER = ("message", "category", "stacklevel")
WARN_PARAMETERS = frozenset(WARN_PARAMETERS_IN_ORDER)
#: The runtime functions a deferred effect call becomes (a [Where] arm gates them).
DEFERRED_CALLS = ("deferred_print", "deferred_log", "deferred_warn", "deferred_call")


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


def append_args(call: cst.Call, new: list[cst.Arg]) -> cst.Call:
    """``call`` with ``new`` after its arguments."""
    args = list(call.args)
    return call.with_changes(args=insert_args(args, len(args), new) if args else new)


def deferred_text(node: cst.BaseExpression, keep_grad: bool = True, formatter: str = "fstring"
                  ) -> cst.BaseExpression:
    """A message argument with its f-string split into a
    ``_graphmend.<formatter>(template, *values)`` call (``fstring``, or
    ``lazy_format`` for a message that is formatted only if it is raised);
    anything else as is."""
    if not m.matches(node, m.FormattedString() | m.ConcatenatedString()):
        return node
    if not m.findall(node, m.FormattedString()):
        return node  # plain literals: a constant already
    values: list[cst.BaseExpression] = []
    template = _template(node, values)
    args = [cst.Arg(template)] + [cst.Arg(value) for value in values]
    if not keep_grad:
        args.append(keyword("keep_grad", cst.Name("False")))
    return runtime_call(formatter, args)


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


def convert_effect_call(ctx: Context, original: cst.Expr, updated: cst.Expr) -> cst.Expr:
    """``print(...)`` / ``logger.info(...)`` / ``warnings.warn(...)`` /
    ``helper(...)`` as a statement -> the runtime's deferred call."""
    facts = ctx.facts
    call = original.value
    if facts is None or not isinstance(call, cst.Call) or not ctx.wanted(original, "defer"):
        return updated
    kind = facts.effect_call(call)
    if kind is None:
        return updated
    builder = {"print": _print, "warnings.warn": _warn, "helper": _helper}.get(kind, _log)
    with declining(prefix=f"{kind}: "):
        _check_nothing_fails_later(ctx)
        # An expression holds no statement this pass rewrites, so the
        # original call is the updated one, and it carries the metadata.
        replacement = builder(ctx, call, kind)
    if facts.in_place_reason is not None:
        replacement = append_args(replacement, [keyword("keep_grad", cst.Name("False"))])
    ctx.record(original, "defer", f"{kind} -> deferred")
    return updated.with_changes(value=replacement)


def _check_nothing_fails_later(ctx: Context) -> None:
    """Declined where code after the call, in the same function, may raise
    when the graph runs (a tensor index out of range, a singular matrix):
    the graph's exception leaves before the replay, losing the message."""
    failure = ctx.facts.fails_when_run(following(ctx.ancestors))
    if failure is not None:
        raise Declined(f"after the call, {failure}: that fails when the graph runs, and the message, replayed "
                       "after the graph, would be lost")


def _keep_grad(ctx: Context) -> bool:
    return ctx.facts.in_place_reason is None


def _plain_args(call: cst.Call, keywords: frozenset[str]) -> None:
    for arg in call.args:
        if arg.star:
            raise Declined(f"'{arg.star}' argument")
        if arg.keyword is not None and arg.keyword.value not in keywords:
            raise Declined(f"keyword argument {arg.keyword.value}=")


def _print(ctx: Context, call: cst.Call, kind: str) -> cst.Call:
    _plain_args(call, PRINT_KEYWORDS)
    args = []
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "file":
            args.append(arg.with_changes(keyword=cst.Name("stream"), value=_stream(ctx.facts, arg.value)))
        else:
            args.append(arg.with_changes(value=deferred_text(arg.value, _keep_grad(ctx))))
    return call.with_changes(func=runtime_function("deferred_print"), args=args)


def _stream(facts: FunctionFacts, file: cst.BaseExpression) -> cst.SimpleString:
    if m.matches(file, m.Name("None")):
        return string("stdout")
    name = facts.qualified_name(file)
    if name in STREAMS:
        return string(STREAMS[name])
    raise Declined("file= is not sys.stdout or sys.stderr")


def _log(ctx: Context, call: cst.Call, method: str) -> cst.Call:
    _plain_args(call, frozenset())
    if method == "exception" and any(isinstance(a, cst.ExceptHandler) for a in ctx.ancestors):
        raise Declined("logger.exception inside 'except' needs the active exception")
    args = [arg.with_changes(value=deferred_text(arg.value, _keep_grad(ctx))) for arg in call.args]
    receiver = call.func.value
    return call.with_changes(
        func=runtime_function("deferred_log"),
        args=insert_args(args, 0, [cst.Arg(receiver), cst.Arg(string(method))]),
    )


def _warn(ctx: Context, call: cst.Call, kind: str) -> cst.Call:
    _plain_args(call, WARN_PARAMETERS)
    args = list(call.args)
    bound = {
        arg.keyword.value if arg.keyword else WARN_PARAMETERS_IN_ORDER[i]: i
        for i, arg in enumerate(args)
    }
    if "message" not in bound:
        raise Declined("no message")
    message = args[bound["message"]]
    args[bound["message"]] = message.with_changes(value=deferred_text(message.value, _keep_grad(ctx)))
    # The module travels as a keyword unless it follows a positional
    # category (``stacklevel`` may come positionally after it).
    module = keyword("module", cst.Name("__name__"))
    if "category" not in bound:
        return _warn_call(call, insert_args(args, bound["message"] + 1, [module]))
    index = bound["category"]
    category = args[index]
    if not m.matches(category.value, m.Name("None")):
        dotted = ctx.facts.global_dotted(category.value)
        if dotted is None:
            raise Declined("category is not a global name")
        category = category.with_changes(value=string(dotted))
    args[index] = category
    if category.keyword is None:
        module = cst.Arg(cst.Name("__name__"))
    return _warn_call(call, insert_args(args, index + 1, [module]))


def _warn_call(call: cst.Call, args: list[cst.Arg]) -> cst.Call:
    return call.with_changes(func=runtime_function("deferred_warn"), args=args)


def _helper(ctx: Context, call: cst.Call, kind: str) -> cst.Call:
    """``helper(a, b=c)`` -> ``_graphmend.deferred_call("helper", __name__, a, b=c)``."""
    dotted = ctx.facts.global_dotted(call.func)
    if dotted is None:
        raise Declined(f"{code(call.func)} is not a global name")
    for arg in call.args:
        if arg.star:
            raise Declined(f"'{arg.star}' argument")
        if arg.keyword is not None and arg.keyword.value in ("gate", "keep_grad", "named"):
            raise Declined(f"keyword argument {arg.keyword.value}= is graphmend's own")
    args, named = [], []
    for index, arg in enumerate(call.args):
        imported = _imported_name(ctx.facts, arg.value)
        if imported is None:
            args.append(arg.with_changes(value=deferred_text(arg.value, _keep_grad(ctx))))
            continue
        # A class (``rank_zero_warn(msg, UserWarning)``) travels by name.
        args.append(arg.with_changes(value=string(imported)))
        named.append(cst.Element(string(arg.keyword.value) if arg.keyword else cst.Integer(str(index))))
    head = [cst.Arg(string(dotted)), cst.Arg(cst.Name("__name__"))]
    call = call.with_changes(func=runtime_function("deferred_call"), args=insert_args(args, 0, head))
    if named:
        call = append_args(call, [keyword("named", cst.Tuple(named))])
    return call


def _imported_name(facts: FunctionFacts, value: cst.BaseExpression) -> str | None:
    """The dotted text of ``value`` when it names a builtin class or an
    imported module's attribute, which later code cannot rebind unnoticed
    (a module global assigned in the file might change before the replay)."""
    dotted = facts.global_dotted(value)
    if dotted is None:
        return None
    head = dotted.partition(".")[0]
    if head in facts.metadata.module_names.imports:
        return dotted
    qualified = facts.qualified_name(value) or ""
    builtin = getattr(builtins, qualified.removeprefix("builtins."), None) if qualified.startswith("builtins.") else None
    return dotted if isinstance(builtin, type) else None
