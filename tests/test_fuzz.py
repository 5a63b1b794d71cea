"""Differential fuzzing (CI size): random programs agree original vs mended,
eagerly and compiled.  ``make fuzz`` runs the same check at scale (see
``tests/fuzz/``).  The programs the fuzzer found mismatching, reduced, live
in ``tests/fuzz/regressions/`` and run here every time."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fuzz.grammar import Program, SourceProgram, Stmt, programs
from fuzz.runner import Mismatch, check_batch, reduce
from graphmend.pipeline import transform_source

BATCH = 8
EXAMPLES = int(os.environ.get("GRAPHMEND_FUZZ_CI_EXAMPLES", "12"))  # batches of BATCH/2 to BATCH programs
REGRESSIONS = Path(__file__).parent / "fuzz" / "regressions"

#: Open bugs, by regression file: how their mismatches read.  The fuzz test
#: tolerates only these; the regression tests below are strict xfails, so
#: fixing a bug turns its test into a failure until its entry is removed.
KNOWN_BUGS: dict = {
    "where_merge_under_autograd_sums_a_zero_gradient": (
        "torch.where's merge under autograd sums the untaken arm's +0.0 gradient into a -0.0 one (SPEC 3.5 "
        "allows a zero's sign in a gradient; [Where] names it)",
        lambda m: m.arm == "compiled" and m.detail.startswith("grads:") and m.detail.endswith("-0.0 != 0.0"),
    ),
}


def _unknown(mismatches: list[Mismatch]) -> list[Mismatch]:
    return [m for m in mismatches if not any(known(m) for _, known in KNOWN_BUGS.values())]


_row = st.tuples(*[st.lists(st.floats(-3, 3, width=32), min_size=4, max_size=4)] * 2)


@settings(
    derandomize=True,
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    # Hypothesis would shrink a batch by re-running it hundreds of times;
    # runner.reduce shrinks the one failing program instead.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(batch=st.lists(programs(), min_size=BATCH // 2, max_size=BATCH), row=_row)
def test_random_programs_agree_in_every_arm(batch, row, tmp_path, isolated_cache):
    tally = check_batch(batch, tmp_path, extra_rows=(row,), api_every=2)
    unknown = _unknown(tally.mismatches)
    if unknown:
        reduced = reduce(unknown[0], tmp_path, extra_rows=(row,))
        pytest.fail(f"reduced:\n{reduced.report()}\nas generated:\n{unknown[0].report()}")


def _regression_cases():
    for path in sorted(REGRESSIONS.glob("*.py")):
        marks = ()
        if path.stem in KNOWN_BUGS:
            marks = pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[path.stem][0])
        yield pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", _regression_cases())
def test_regression_program(path, tmp_path, isolated_cache):
    tally = check_batch([SourceProgram.from_file(path.read_text())], tmp_path, api_every=1)
    assert not tally.mismatches, tally.mismatches[0].report()


def test_oracle_sees_a_wrong_rewrite(tmp_path, monkeypatch):
    """The comparison is not vacuous: a rewrite that drops a print is caught."""
    import fuzz.runner as runner
    from graphmend.pipeline import TransformResult

    def dropping_print(source, **options):
        return TransformResult(source.replace('print("gm", x)', "pass"), True, (), ())

    monkeypatch.setattr(runner, "transform_source", dropping_print)
    program = SourceProgram('def f(x, y, acc, ns):\n    print("gm", x)\n    return x\n')
    tally = check_batch([program], tmp_path)
    assert tally.mismatches and "stdout" in tally.mismatches[0].detail


def test_the_api_arm_sees_a_wrong_compile(tmp_path, isolated_cache, monkeypatch):
    """The fourth arm runs ``graphmend.compile`` itself: a compile that
    loses a print is caught there, and reduced in that arm."""
    import graphmend

    compile_for_real = graphmend.compile

    def losing_prints(function, **options):
        compiled = compile_for_real(function, **options)
        return lambda *args: contextlib.redirect_stdout(io.StringIO()).__enter__() and compiled(*args)

    monkeypatch.setattr(graphmend, "compile", losing_prints)
    program = Program((Stmt("v0 = x * 2"), Stmt('print("gm", x)'), Stmt("return x")))
    assert not check_batch([program], tmp_path).mismatches
    tally = check_batch([program], tmp_path, api_every=1)
    assert tally.through_api == 1
    assert [(m.arm, m.detail.split(":")[0]) for m in tally.mismatches] == [("graphmend.compile", "stdout")]
    reduced = reduce(tally.mismatches[0], tmp_path)
    assert reduced.arm == "graphmend.compile" and "v0" not in reduced.program.source()


def test_the_api_arm_leaves_every_function_running_its_own_code(tmp_path, isolated_cache, monkeypatch):
    """graphmend.compile mends the helpers a call reaches in place; the
    other arms call the same helpers, so the API arm puts them back."""
    import fuzz.helpers as helpers
    from graphmend.mending import live

    codes = {name: function.__code__ for name, function in vars(helpers).items() if callable(function)
             and hasattr(function, "__code__")}
    mended_during = []
    compile_for_real = __import__("graphmend").compile

    def watching(function, **options):
        compiled = compile_for_real(function, **options)

        def call(*args):
            result = compiled(*args)
            mended_during.append(helpers.prints_other.__code__ is not codes["prints_other"])
            return result

        return call

    monkeypatch.setattr("graphmend.compile", watching)
    program = SourceProgram("def f(x, y, acc, ns):\n    return prints_other(x) + 1\n")
    tally = check_batch([program], tmp_path, api_every=1)
    assert not tally.mismatches and tally.through_api == 1
    assert any(mended_during)  # the helper was mended while the arm ran...
    assert {name: function.__code__ for name, function in vars(helpers).items() if name in codes} == codes  # ... and not after
    assert helpers.prints_other not in live.MENDED


def test_mended_module_imports_the_runtime_once():
    source = "import torch\n\n\ndef f(x):\n    y = x if x.sum() > 0 else -x\n    print(y)\n    return y\n"
    code = transform_source(source).code
    assert code.count("runtime as _graphmend") == 1, code


def test_compiled_arm_captures_as_graphmend_compile_does(tmp_path):
    """The compiled arm runs inside [Capture]'s scope: a mask-indexed sum is
    held in the one graph, and ``range()`` of a captured count falls back
    to its break; the tally counts one site of each."""
    captured = "def f(x, y, acc, ns):\n    return x[x > 0].sum() * y\n"
    falls_back = ("def f(x, y, acc, ns):\n    v0 = y * 1\n    for i in range(int((x > 0).sum())):\n"
                  "        v0 = v0 + x[i]\n    return v0\n")
    tally = check_batch([SourceProgram(captured), SourceProgram(falls_back)], tmp_path)
    assert not tally.mismatches, tally.mismatches[0].report()
    assert (tally.sites_captured, tally.sites_fell_back) == (1, 1)
    assert (tally.capture_held, tally.capture_fell_back) == (1, 1)
    assert (tally.fixable, tally.one_graph) == (1, 1)
    assert sum(tally.fallback_reasons.values()) == 1, tally.fallback_reasons


POPS_THE_FIRST = ("def f(x, y, acc, ns):\n    order = collections.OrderedDict(a=1.0, b=2.0).copy()\n"
                  "    return x + order.popitem(last=False)[1]\n")


def test_a_difference_torch_compile_shows_too_is_counted_and_kept(tmp_path):
    """torch 2.13's Dynamo pops the last item for ``popitem(last=False)`` of
    an OrderedDict's ``copy()``:
    the compiled arm differs from eager as torch.compile of the original
    does, which is Dynamo's, not a mismatch; the program is kept so that it
    can be looked at (``--save`` writes it)."""
    import collections

    import torch

    namespace = {"collections": collections}
    exec(POPS_THE_FIRST, namespace)
    x = torch.zeros(2)
    if torch.equal(torch.compile(namespace["f"], backend="eager")(x, x, [], {}), namespace["f"](x, x, [], {})):
        pytest.skip("this torch's Dynamo pops the first item")
    tally = check_batch([SourceProgram("import collections\n\n\n" + POPS_THE_FIRST)], tmp_path)
    assert not tally.mismatches, tally.mismatches[0].report()
    assert tally.dynamo_divergences >= 1
    assert "popitem(last=False)" in tally.dynamo_examples[0]
