"""Facts in the source (issue #34 item 2): a count of a mask's true
elements is at least 0 and at most the mask's size.  Written where a test
reads the count, they let [Capture] hold a guard Dynamo otherwise cannot
decide on an unbacked integer; for sizes alone torch 2.13 needs none, and
the rule writes none (the forms measured below)."""

from __future__ import annotations

import textwrap

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 -- torch's own spelling

from graphmend.compat import capture
from graphmend.pipeline import transform_source
from harness import GraphCounter, load_module

SOURCE = textwrap.dedent("""
    import torch


    def take_positive(x):
        n = int((x > 0).sum())
        if n > x.size(0):
            raise ValueError("more positives than elements")
        if n < 0:
            raise ValueError("negative count")
        return x[:n] * 2 + n
""")
INPUTS = [torch.tensor([1.0, -2.0, 3.0, 0.5]), torch.tensor([1.0, 2.0, 3.0, 0.5]),
          torch.tensor([-1.0, -2.0, -3.0, -0.0]), torch.tensor([float("nan"), 2.0, -3.0, 0.5])]


def _graphs_per_call(fn, reference):
    """Graphs compiled by each call of ``fn`` inside [Capture]'s scope, each
    output checked bit for bit against ``reference``'s."""
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = capture.wrap(torch.compile(fn, backend=counter))
    graphs = []
    for x in INPUTS:
        before = counter.graphs
        expected, got = reference(x.clone()), compiled(x.clone())
        assert torch.equal(got.view(torch.int32), expected.view(torch.int32))
        graphs.append(counter.graphs - before)
    return graphs


def test_the_facts_hold_the_guards_in_one_graph(tmp_path):
    result = transform_source(SOURCE, rules=["where"], lines=frozenset({6}))
    assert [site.lineno for site in result.sites] == [6]
    assert "    n = int((x > 0).sum())\n    _graphmend.count_facts(n, x)\n" in result.code
    original = load_module(SOURCE, tmp_path, "facts_orig").take_positive
    mended = load_module(result.code, tmp_path, "facts_mended").take_positive
    # Without the facts the frame meets `n > x.size(0)` on an unbacked n, is
    # compiled without capture and breaks at the count, with a recompile
    # per new count; with them: one graph, reused for every count.
    assert _graphs_per_call(original, original)[0] > 1
    assert _graphs_per_call(mended, original) == [1, 0, 0, 0]


def test_eagerly_nothing_is_checked():
    from graphmend.runtime import count_facts

    count_facts(-1, torch.ones(2))  # a false "fact" eagerly: no check runs
    count_facts(True, "not a tensor")


#: Sizes from a captured count that torch 2.13 compiles in one graph with no
#: fact (measured without and with ``torch._check(0 <= n <= x.numel())``:
#: the same one graph), which is why the rule writes facts only for tests.
SIZE_FORMS = {
    "split": lambda x, n: torch.split(x, [n, x.size(0) - n])[0].sum(),
    "narrow": lambda x, n: x.narrow(0, 0, n).sum(),
    "slice then cat": lambda x, n: torch.cat([x[:n], x.new_zeros(3)]).sum(),
    "pad": lambda x, n: F.pad(x, (0, n)).sum(),
    "new_zeros": lambda x, n: x.new_zeros(n).sum() + x.sum(),
    "topk": lambda x, n: x.topk(n).values.sum(),
}


@pytest.mark.parametrize("form", sorted(SIZE_FORMS))
def test_sizes_need_no_fact_on_this_torch(form):
    size = SIZE_FORMS[form]

    def f(x):
        return size(x, int((x > 0).sum())) * 2

    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = capture.wrap(torch.compile(f, backend=counter))
    for x in INPUTS[:3]:
        assert torch.equal(compiled(x.clone()), f(x.clone()))
    assert counter.graphs == 1
