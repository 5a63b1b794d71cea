"""graphmend.testing: assert_graphs and its pytest fixture, on a model that
breaks and one that does not."""

from __future__ import annotations

import pytest
import torch

import graphmend
from graphmend.testing import assert_graphs

pytest_plugins = ["pytester"]


class Breaking(torch.nn.Module):
    """Two breaks: a print (IO) and a branch on a tensor (DC)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.linear(x)
        print("activations", y.shape)
        if y.sum() > 0:
            y = y * 2
        return y.relu()


class Clean(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.linear(x).relu()


def test_a_clean_model_passes_and_returns_the_report():
    report = assert_graphs(Clean(), torch.randn(2, 4), max_graphs=1, forbid=("DC", "IO", "fixable"))
    assert report.graph_count == 1 and report.break_count == 0


def test_a_breaking_model_fails_with_the_diagnosis_table():
    with pytest.raises(AssertionError) as failure:
        assert_graphs(Breaking(), torch.randn(2, 4), max_graphs=1)
    message = str(failure.value)
    assert message.startswith("Breaking: 3 graphs, at most 1 allowed (2 break(s))")
    # The table: each break's category, the user's statement and the rule that fixes it.
    assert "print(\"activations\", y.shape)" in message and "if y.sum() > 0:" in message
    assert "IO" in message and "DC" in message and "defer" in message and "where" in message


def test_forbidden_categories_fail_even_within_the_graph_budget():
    x = torch.randn(2, 4)
    assert_graphs(Breaking(), x, max_graphs=3)  # the budget alone holds
    assert_graphs(Breaking(), x, max_graphs=None, forbid=("GUARD", "DS"))
    with pytest.raises(AssertionError, match=r"forbidden break \(IO\) at .*test_testing.py:\d+"):
        assert_graphs(Breaking(), x, max_graphs=None, forbid="IO")
    with pytest.raises(AssertionError, match=r"forbidden break \(fixable by \[where\]\)"):
        assert_graphs(Breaking(), x, max_graphs=None, forbid=("fixable",))
    with pytest.raises(ValueError, match="unknown categories"):
        assert_graphs(Breaking(), x, forbid=("io",))


def test_a_mended_model_meets_the_budget_the_original_misses():
    model, x = Breaking(), torch.randn(2, 4)
    with torch.no_grad():
        graphmend.mend(model)
        try:
            assert_graphs(model, x, max_graphs=1, forbid=("DC", "IO"))
        finally:
            graphmend.unmend(model)


def test_recompiles_over_several_argument_sets():
    def scale(x, n):
        return x * n

    calls = [(torch.ones(2), 2), (torch.ones(2), 3)]
    report = assert_graphs(scale, calls=calls, max_graphs=1)
    with pytest.raises(AssertionError, match="recompiles, at most 0 allowed"):
        assert_graphs(scale, calls=calls, max_graphs=1, max_recompiles=len(report.recompiles) - 1)


def test_the_pytest_fixture_takes_marker_and_ini_defaults(pytester):
    pytester.makeini("[pytest]\ngraphmend_forbid = DC\n")
    pytester.makepyfile(
        test_user="""
        import pytest, torch

        def branchy(x):
            if x.sum() > 0:
                return x * 2
            return x

        def clean(x):
            return x * 2

        def test_clean(assert_graphs):
            assert assert_graphs(clean, torch.ones(2)).graph_count == 1

        def test_what_ships_is_budgeted_as_it_runs(assert_graphs):
            import graphmend

            assert assert_graphs(graphmend.compile(branchy), torch.ones(2)).view == "graphmend.compile"

        def test_ini_forbids_dc(assert_graphs):
            assert_graphs(branchy, torch.ones(2), max_graphs=5)

        @pytest.mark.graphmend(max_graphs=5, forbid=())
        def test_marker_overrides_ini(assert_graphs):
            assert_graphs(branchy, torch.ones(2))
        """
    )
    result = pytester.runpytest()  # the plugin comes from the pytest11 entry point
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*test_ini_forbids_dc*", "*forbidden break (DC)*"])
