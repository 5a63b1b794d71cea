"""[Where] a test stored in a flag read only for its truth: a tensor predicate.

The fixtures in ``tests/fixtures/where`` pin the rewritten text; these tests run it.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from graphmend.pipeline import transform_source
from harness import assert_same_outcome, compiled_outcome, load_module, outcome_of
from where_support import fixture


def test_bool_flag_read_for_its_truth_merges_in_one_graph(tmp_path):
    """torchdiffeq's ``accept_step = False`` in a tensor arm: the function
    only tests the flag, so it is merged as a 0-dim bool tensor, and with
    the final ``if`` (diagnosed, so transformed) the step is one graph."""
    from harness import assert_same_outcome

    source = fixture("bool_flag_read_for_its_truth")
    every_line = frozenset(range(1, source.count("\n") + 2))
    result = transform_source(source, rules=["where"], lines=every_line)
    assert not result.skips, result.skips
    original, mended = load_module(source, tmp_path, "orig"), load_module(result.code, tmp_path, "mended")
    limits = (torch.tensor(1.0), torch.tensor(1e-6))
    for ratio in (torch.tensor(0.5), torch.tensor(2.0), torch.tensor([0.5, 2.0])):
        for dt in (torch.tensor(0.1), torch.tensor(5.0), torch.tensor(1e-9)):
            expected = outcome_of(original.step, ratio, dt, *limits)
            assert_same_outcome(expected, outcome_of(mended.step, ratio, dt, *limits), "eager")
            outcome, graphs = compiled_outcome(mended.step, ratio, dt, *limits)
            assert_same_outcome(expected, outcome, "compiled")
            if ratio.numel() == 1:
                assert graphs == 1, (ratio, dt)


TRUTH_CASES = {
    # (function body, is `flag` read only for its truth)
    "if_test": ("flag = False\nif flag:\n    pass", True),
    "while_and_assert": ("while flag and x:\n    flag = False\nassert not flag", True),
    "conditional_expression": ("y = 1 if not (flag or x) else 2", True),
    "returned": ("return flag", False),
    "and_as_value": ("y = flag and x", False),
    "stored": ("ns.flag = flag", False),
    "argument": ("print(flag)", False),
    "augmented": ("flag += 1", False),
    "read_by_locals": ("if flag:\n    pass\nprint(locals())", False),
    "nested_function_reads_it": ("def g():\n    return flag\nif flag:\n    pass", False),
}


@pytest.mark.parametrize("name", sorted(TRUTH_CASES))
def test_which_names_are_read_only_for_their_truth(name):
    import libcst as cst

    from graphmend.analysis.bindings import truth_only_names

    body, expected = TRUTH_CASES[name]
    function = cst.parse_module("def f(x, ns, flag):\n" + textwrap.indent(body, "    ") + "\n").body[0]
    assert ("flag" in truth_only_names(function)) is expected
