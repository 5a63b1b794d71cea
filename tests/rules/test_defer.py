"""[Defer]: original and mended code agree eagerly and compiled, in one graph."""

from __future__ import annotations

import linecache
import logging
import sys
import warnings
from pathlib import Path

import pytest
import torch

from harness import GraphCounter, check_equivalent, mend_source
from graphmend.pipeline import transform_source


def test_print_sep_end_stderr_and_later_in_place_update(tmp_path):
    source = '''
import sys


def f(x):
    y = x * 2
    print("y", y, sep=" | ", end="!\\n")
    print("to stderr", y.sum(), file=sys.stderr, flush=True)
    y.add_(1)
    print("after", y)
    return y + 1
'''
    result = check_equivalent(source, "f", [(torch.arange(3.0),)], tmp_path, rules=["defer"])
    assert len(result.sites) == 3


def test_fstring_with_format_spec_and_conversions(tmp_path):
    source = '''
def f(x):
    total = x.sum()
    print(f"total {total:.4f} {x!r} {{braces}}", "tail" f" {x.shape[0]}")
    x.mul_(10)
    print(f"{total!s:>12}|")
    return x
'''
    result = check_equivalent(source, "f", [(torch.tensor([0.125, 1.5]),)], tmp_path, rules=["defer"])
    assert "_graphmend.fstring(" in result.code


def test_fstring_escapes_and_raw_prefix(tmp_path):
    source = r'''
def f(x):
    print(f"tab\t{x}\nnext \"quoted\" {{x}}")
    print(rf"raw \x7b {x}", "plain {braces}" f"{x!s}")
    return x
'''
    check_equivalent(source, "f", [(torch.tensor([1.5]),)], tmp_path, rules=["defer"])


def test_print_in_inlined_helper_is_not_dropped(tmp_path):
    # Dynamo records a replayable call made in an inlined function in that
    # function's own list, which it never replays; the runtime shares the
    # outer list.  Without that the helper's line would vanish.
    source = '''
def helper(y):
    print("helper sees", y)


def f(x):
    y = x + 1
    print("first")
    helper(y)
    print("last")
    return y
'''
    check_equivalent(source, "f", [(torch.ones(2),)], tmp_path, rules=["defer"])


LOGGING_SOURCE = '''
import logging

logger = logging.getLogger("gm.defer.test")
logger.setLevel(logging.DEBUG)


class Block:
    def __init__(self):
        self.logger = logging.getLogger("gm.defer.block")

    def forward(self, x):
        self.logger.info("block input %s", x)
        return x * 3


block = Block()


def f(x):
    y = x * 2
    logger.debug("debug %s", y)
    logger.info(f"info {y.sum():.3f}")
    y.add_(1)
    logger.warning("warning %s", y)
    logger.error("error %d", 7)
    logger.log(logging.CRITICAL, "via log %s", "text")
    return block.forward(y)
'''


def test_logger_methods_keep_name_level_and_text(tmp_path):
    result = check_equivalent(LOGGING_SOURCE, "f", [(torch.ones(2),)], tmp_path, rules=["defer"])
    assert len(result.sites) == 6


NAMED_LOG = '''
import logging

logger = logging.getLogger("gm.defer.named")


def f(x, name):
    y = x * 2
    logger.warning("%s: done", name)
    return y + 1
'''


def test_a_log_call_reading_an_argument_nothing_else_reads_keeps_the_break(tmp_path, caplog):
    """``name``, a str the compiled frame is called with, read by nothing
    but the log call: replayed after the graph, the call made Dynamo guard
    on it (one graph per name, then past the recompile limit the frame ran
    eagerly); now the call is made where it stands, as torch.compile makes
    it, with the same records."""
    original, mended, _ = mend_source(NAMED_LOG, tmp_path, rules=["defer"])
    names = [f"field{i}" for i in range(12)]
    counts, records = [], []
    for module in (original, mended):
        torch._dynamo.reset()
        counter = GraphCounter()
        compiled = torch.compile(module.f, backend=counter)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="gm.defer.named"):
            for name in names:
                compiled(torch.ones(2), name)
        counts.append(counter.graphs)
        records.append([(r.name, r.levelname, r.getMessage()) for r in caplog.records])
    assert records[0] == records[1] == [("gm.defer.named", "WARNING", f"{n}: done") for n in names]
    assert counts[1] <= counts[0] == 2


def test_log_record_points_at_the_call_site(tmp_path):
    original, mended, _ = mend_source(LOGGING_SOURCE, tmp_path, rules=["defer"])

    def warning_record(fn):
        records = []

        class Keep(logging.Handler):
            def emit(self, record):
                records.append(record)

        handler = Keep()
        logging.getLogger().addHandler(handler)
        try:
            fn(torch.ones(2))
        finally:
            logging.getLogger().removeHandler(handler)
        record = next(r for r in records if r.levelno == logging.WARNING)
        return record.funcName, linecache.getline(record.pathname, record.lineno).strip()

    assert warning_record(original.f) == ("f", 'logger.warning("warning %s", y)')
    # keep_grad=False: the function updates y in place after the call.
    assert warning_record(mended.f) == ("f", '_graphmend.deferred_log(logger, "warning", "warning %s", y, keep_grad=False)')
    torch._dynamo.reset()
    # Replayed, the record names the compiled function (its line is gone).
    assert warning_record(torch.compile(mended.f, backend="eager"))[0] == "f"


LOGURU_SOURCE = '''
from loguru import logger


def f(x):
    y = x * 2
    print("before", y.sum())
    logger.warning(f"got {x.shape[0]} rows, sum {y.sum():.3f}")
    logger.info("shape {}", y.shape)
    if y.sum() > 0:
        logger.debug("positive {}", y)
    print("after")
    return y + 1
'''


@pytest.fixture
def loguru_to_stdout():
    """loguru's records, as text, on the stdout the harness captures (a sink
    looked up on each record), in order with the prints."""
    loguru = pytest.importorskip("loguru")
    sink = loguru.logger.add(lambda message: sys.stdout.write(message), level="DEBUG",
                             format="{level} {function} {message}")
    yield
    loguru.logger.remove(sink)


def test_loguru_records_keep_level_function_text_and_order(tmp_path, loguru_to_stdout):
    result = check_equivalent(LOGURU_SOURCE, "f", [(torch.ones(2),), (-torch.ones(2),)], tmp_path,
                              rules=["where", "defer"])
    assert "logger.warning" not in result.code and "gate=_gm_then_10" in result.code


def test_a_traced_log_call_reads_no_module_table(monkeypatch):
    # Traced code that reads sys.modules makes Dynamo build a variable for
    # each module loaded (a tenth of a second per compile with a deferred log
    # call): the loguru check reads it only for an object of loguru's class.
    from graphmend.runtime import defer

    class WithoutModules:
        def __getattr__(self, name):
            if name == "modules":
                raise AssertionError("sys.modules was read")
            return getattr(sys, name)

    monkeypatch.setattr(defer, "sys", WithoutModules())
    logger = logging.getLogger("gm.defer.modules")

    def f(x):
        defer.deferred_log(logger, "info", "value %s", x)
        return x + 1

    torch._dynamo.reset()
    assert torch.equal(torch.compile(f, backend="eager", fullgraph=True)(torch.ones(2)), torch.full((2,), 2.0))


ONCE_SOURCE = '''
import logging
import transformers.utils.logging  # installs Logger.warning_once

logger = logging.getLogger("gm.defer.once")


def f(x):
    logger.warning_once(
        "Passing a tuple is deprecated "
        "and fires once."
    )
    logger.warning_once(f"shape {x.shape[0]}")
    return x + 1
'''


def _records_of(fn, *args, logger_name=""):
    """(fn's result, the (name, level, message) of every record it logged
    that reached logger ``logger_name`` (the root by default))."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append((record.name, record.levelname, record.getMessage()))

    handler = Keep()
    logging.getLogger(logger_name).addHandler(handler)
    try:
        result = fn(*args)
    finally:
        logging.getLogger(logger_name).removeHandler(handler)
    return result, records


def test_warning_once_fires_once_per_process(tmp_path):
    original, mended, _ = mend_source(ONCE_SOURCE, tmp_path, rules=["defer"])
    cache = logging.Logger.warning_once
    x = torch.ones(4)

    cache.cache_clear()
    expected = _records_of(original.f, x)[1] + _records_of(original.f, x)[1]

    cache.cache_clear()
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = torch.compile(mended.f, backend=counter)
    actual = _records_of(compiled, x)[1] + _records_of(compiled, x)[1]
    assert actual == expected
    assert len(actual) == 2  # two messages, each once, over two calls
    assert counter.graphs == 1
    # The cache key is the original call's: eager calls stay silent too.
    assert _records_of(original.f, x)[1] == [] and _records_of(mended.f, x)[1] == []
    cache.cache_clear()


def test_warning_once_with_a_tensor_argument_keeps_identity_caching(tmp_path):
    # The cache keys a tensor by identity: the same tensor warns once, a new
    # one warns again.  Such a call is made as written (a graph break).
    source = '''
import logging
import transformers.utils.logging  # installs Logger.warning_once

logger = logging.getLogger("gm.defer.once_tensor")


def f(x):
    logger.warning_once("input %s", x)
    return x + 1
'''
    original, mended, _ = mend_source(source, tmp_path, rules=["defer"])
    same, other = torch.ones(2), torch.zeros(2)

    def records(fn):
        logging.Logger.warning_once.cache_clear()
        return [_records_of(fn, x)[1] for x in (same, same, other)]

    expected = records(original.f)
    assert [len(r) for r in expected] == [1, 0, 1]
    torch._dynamo.reset()
    assert records(torch.compile(mended.f, backend="eager")) == expected
    logging.Logger.warning_once.cache_clear()


class ModelWarning(UserWarning):
    """A user-defined category both the original and the mended module import."""


WARN_SOURCE = '''
import warnings
from warnings import warn

from test_defer import ModelWarning


def f(x):
    warnings.warn("careful", FutureWarning, stacklevel=2)
    y = x * 2
    warn(f"custom {y.sum():.1f}", ModelWarning)
    warnings.warn(
        "deprecated argument",
        DeprecationWarning,
    )
    warnings.warn("no category")
    return y


def caller(x):
    return f(x)
'''


def test_warnings_warn_category_text_and_order(tmp_path):
    check_equivalent(WARN_SOURCE, "f", [(torch.ones(2),)], tmp_path, rules=["defer"])


def test_warning_location_is_the_original_in_eager(tmp_path):
    original, mended, _ = mend_source(WARN_SOURCE, tmp_path, rules=["defer"])

    def locations(module):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.caller(torch.ones(2))
        return [(w.category, linecache.getline(w.filename, w.lineno).strip()) for w in caught]

    expected = locations(original)
    assert expected[0] == (FutureWarning, "return f(x)")  # stacklevel=2: the caller's line
    assert locations(mended)[0] == expected[0]
    assert [c for c, _ in locations(mended)] == [c for c, _ in expected]


def test_warning_location_after_a_graph_break(tmp_path):
    # A Warning instance is not replayable: Dynamo breaks the graph and the
    # runtime warns eagerly, still from the user's line.
    source = '''
import warnings


def f(x):
    y = x + 1
    warnings.warn(UserWarning("an instance"))
    return y
'''
    _, mended, _ = mend_source(source, tmp_path, rules=["defer"])
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(mended.f, backend="eager")(torch.ones(2))
    [warning] = caught
    assert warning.filename == mended.__file__
    assert "deferred_warn" in linecache.getline(warning.filename, warning.lineno)


def test_default_filter_counts_once_per_location_when_compiled(tmp_path):
    original, mended, _ = mend_source(WARN_SOURCE, tmp_path, rules=["defer"])

    def count(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            for _ in range(3):
                fn(torch.ones(2))
        return sorted((w.category.__name__, str(w.message)) for w in caught)

    torch._dynamo.reset()
    assert count(torch.compile(mended.f, backend="eager")) == count(original.f)


def test_unreplayable_argument_graph_breaks_and_stays_correct(tmp_path):
    # A list is neither a tensor nor a constant: Dynamo breaks the graph and
    # the runtime prints it eagerly, in place.
    source = '''
def f(x):
    print("items", [1, 2], x)
    return x + 1
'''
    check_equivalent(source, "f", [(torch.ones(2),)], tmp_path, rules=["defer"], graphs=None)


_UNUSED_KWARGS_HELPER = '''
import warnings


def handle_unused(solver, unused):
    if len(unused) > 0:
        warnings.warn("{}: unexpected arguments {}".format(type(solver).__name__, unused))


class Solver:
    def __init__(self, **unused):
        handle_unused(self, unused)


def f(x):
    y = x * 2
    Solver()
    return y + 1


def g(x):
    y = x * 2
    Solver(step=1)
    return y + 1


def warn_with(message, category):
    warnings.warn(message, category)


CATEGORY = UserWarning


def h(x):
    y = x * 2
    if y.sum() < 0:
        warn_with("negative", CATEGORY)
        y = -y
    return y + 1


def k(x):
    y = x * 2
    if y.sum() < 0:
        warn_with("negative", UserWarning)
        y = -y
    warn_with("always", category=RuntimeWarning)
    return y + 1
'''


def test_helper_given_an_object_is_called_in_place_and_adds_no_break(tmp_path):
    # torchdiffeq's solvers call such a helper with themselves: an object
    # cannot be replayed after the graph, so the helper is called in place,
    # as written; Dynamo inlines it and, with nothing to warn about, the
    # graph does not break (replaying it did).
    result = check_equivalent(_UNUSED_KWARGS_HELPER, "f", [(torch.ones(2),)], tmp_path, rules=["defer"])
    assert "deferred_call" in result.code
    # When it warns, it breaks where the original broke, and warns the same.
    check_equivalent(_UNUSED_KWARGS_HELPER, "g", [(torch.ones(2),)], tmp_path, rules=["defer"], graphs=None)
    # In a tensor arm, a class the file binds itself (it might be rebound
    # before a replay, so it travels as a value): its replay breaks, and
    # runs in place.
    result = check_equivalent(_UNUSED_KWARGS_HELPER, "h", [(torch.ones(2),), (-torch.ones(2),)], tmp_path, graphs=None)
    assert '"negative", CATEGORY, gate=' in result.code


def test_helper_given_a_builtin_class_replays_it_by_name(tmp_path):
    # torchmetrics' rank_zero_warn(message, UserWarning) in a tensor arm:
    # the class travels as its name, so the replay does not break.
    result = check_equivalent(_UNUSED_KWARGS_HELPER, "k", [(torch.ones(2),), (-torch.ones(2),)], tmp_path)
    assert '"UserWarning", named=(1,)' in result.code and 'category="RuntimeWarning", named=("category",)' in result.code


def test_unreplayable_argument_is_reported_at_the_users_line(tmp_path):
    from graphmend.diagnosis import diagnose

    source = '''
class Box:
    pass


def f(x):
    print("box", Box(), x)
    return x + 1
'''
    _, mended, _ = mend_source(source, tmp_path, rules=["defer"])
    report = diagnose(mended.f, torch.ones(2))
    (site,) = report.breaks
    lines = Path(mended.__file__).read_text().splitlines()
    assert site.filename == mended.__file__ and "deferred_print" in lines[site.lineno - 1]
    assert site.reason.startswith("rewritten, still breaks: graphmend: an argument of the deferred message")


@pytest.mark.parametrize(
    "relative",
    [
        "models/layoutlmv3/processing_layoutlmv3.py",
        "modeling_utils.py",  # warning_once, warnings.warn, in a 5,000-line file
        "models/t5/modeling_t5.py",  # T5Stack.forward's warning_once
    ],
)
def test_transformers_sources_change_only_at_sites(relative):
    import ast
    import difflib

    import transformers

    path = f"{transformers.__file__.rsplit('/', 1)[0]}/{relative}"
    source = open(path).read()
    result = transform_source(source, rules=["defer"])
    ast.parse(result.code)
    assert result.sites
    # Every changed line belongs to a rewritten statement, but the import.
    starts = {site.lineno for site in result.sites}
    spans = [
        range(node.lineno, node.end_lineno + 2)  # + the line after, for insertions
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.stmt) and node.lineno in starts
    ]
    original_lines, mended_lines = source.splitlines(), result.code.splitlines()
    matcher = difflib.SequenceMatcher(None, original_lines, mended_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or [line for line in mended_lines[j1:j2] if line] == [
            "from graphmend import runtime as _graphmend"
        ]:
            continue
        assert any(i1 + 1 in span and max(i2, i1 + 1) in span for span in spans), (
            original_lines[i1:i2], mended_lines[j1:j2])


def test_t5_compiles_to_one_graph_with_the_warning_once_deferred():
    from transformers import T5Config, T5ForConditionalGeneration
    from transformers.models.t5 import modeling_t5

    import graphmend.mending.live

    torch.manual_seed(0)
    config = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                      decoder_start_token_id=0)
    model = T5ForConditionalGeneration(config).eval()
    inputs = dict(input_ids=torch.randint(0, 100, (1, 8)), decoder_input_ids=torch.randint(0, 100, (1, 8)))

    def graphs_and_logits():
        torch._dynamo.reset()
        counter = GraphCounter()
        with torch.no_grad():
            logits = torch.compile(model, backend=counter)(**inputs).logits
        return counter.graphs, logits

    before_graphs, before_logits = graphs_and_logits()
    graphmend.mending.live.mend(model, modules="transformers.models.t5", rules=["defer"])
    try:
        logging.Logger.warning_once.cache_clear()
        # transformers' loggers do not propagate to the root logger.
        (after_graphs, after_logits), records = _records_of(graphs_and_logits, logger_name="transformers")
    finally:
        graphmend.mending.live.unmend(model)
    assert (before_graphs, after_graphs) == (4, 1)
    assert torch.equal(before_logits, after_logits)
    assert [(name, level, text[:24]) for name, level, text in records] == [
        ("transformers.models.t5.modeling_t5", "WARNING", "Passing a tuple of `past")
    ]


def test_print_inside_checkpoint_graph_breaks_instead_of_failing(tmp_path):
    # A replayed value cannot come from a higher-order op's subgraph: the
    # runtime makes such a call a graph break, as print itself is.
    source = '''
import torch
import torch.utils.checkpoint


def body(x):
    y = x.sin()
    print("inside", y)
    return y * 2


def f(x):
    return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False) + 1
'''
    check_equivalent(source, "f", [(torch.ones(2),)], tmp_path, rules=["defer"], graphs=None)


def _message_then(body: str) -> str:
    return f"""
import logging

import torch

logger = logging.getLogger("gm.test")


def f(x, idx):
    {body}
"""


#: What fails only when the graph runs follows the message (an index the
#: function computes as a tensor, a factorisation of a matrix that is not
#: positive-definite): [Defer] declines, so the message is logged before the
#: error, as eagerly.
_FAILS_IN_THE_GRAPH_AFTER_THE_MESSAGE = {
    "subscript": ("index = torch.argmin(x) - 5\n    logger.warning(\"reading\")\n    return x[index.reshape(1)] * 2",
                  (torch.tensor([1.0, 2.0]), None)),
    "gather": ("bins = torch.bucketize(x, torch.tensor([0.0, 1.0, 4.0]))\n    print(\"bins\")\n"
               "    return x.gather(0, bins)", (torch.tensor([1.5, 5.0]), None)),
    "cholesky": ("logger.warning(\"factorising\")\n    return torch.linalg.cholesky(x * 2)",
                 (torch.tensor([[1.0, 2.0], [2.0, 1.0]]), None)),
}


@pytest.mark.parametrize("case", sorted(_FAILS_IN_THE_GRAPH_AFTER_THE_MESSAGE))
def test_a_message_before_what_fails_in_the_graph_is_kept_in_place(case, tmp_path):
    body, args = _FAILS_IN_THE_GRAPH_AFTER_THE_MESSAGE[case]
    check_equivalent(_message_then(body), "f", [args], tmp_path, rules=["defer"], graphs=None, rewritten=False)


_FAILS_WHEN_THE_GRAPH_RUNS = {
    # abs has no CPU kernel for bool: NotImplementedError.
    "missing_kernel": ("flags = x > 0.5\n    logger.warning(f\"max {x.max()}\")\n    return flags.abs() + 1",
                       (torch.tensor([0.25, 2.0]), torch.tensor([0]))),
    # An index the function is given, out of range: IndexError.  Whether a
    # parameter holds a tensor or an int, graphmend cannot tell.
    "index_out_of_range": ("logger.warning(\"looking up\")\n    return x[idx] * 2",
                           (torch.tensor([1.0, 2.0]), torch.tensor([5]))),
}


@pytest.mark.parametrize("case", sorted(_FAILS_WHEN_THE_GRAPH_RUNS))
def test_a_message_before_an_operation_that_fails_when_the_graph_runs(case, tmp_path):
    """Eagerly the warning is logged and then the operation raises;
    compiled, the graph raises before its replay, and its operations run
    again eagerly up to the one that raises make the warning first
    (graphmend.compat.failures_at_run_time)."""
    body, args = _FAILS_WHEN_THE_GRAPH_RUNS[case]
    check_equivalent(_message_then(body), "f", [args], tmp_path, rules=["defer"], graphs=None)
