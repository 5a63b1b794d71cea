"""The corpus rows break as often, and where, benchmarks.corpus records.

Each measurement builds a fresh row, compiles it with a backend that only
counts graphs, and reads the break reasons Dynamo appended to
``torch._dynamo.output_graph.graph_break_reasons`` during the call.  By
default a row per kind of break is measured; GRAPHMEND_SLOW=1 measures all.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
import torch._dynamo
import transformers
from torch._dynamo import output_graph

from benchmarks import corpus
from graphmend.compare import first_difference

RUN_SLOW = os.environ.get("GRAPHMEND_SLOW") == "1"
# A row per kind of break, each compiling in a few seconds: logger in an
# encoder-decoder (T5) and a decoder-only model (BioGPT), warnings.warn
# (LayoutLMv3), data-dependent `if` (Phi-3), logger plus .item() (Longformer).
FAST_ROWS = {"t5", "biogpt", "layoutlmv3", "phi3_longrope", "longformer"}

# Dynamo's reason (its first line) -> the break categories it can belong to.
REASON_CATEGORIES = {
    "logging.Logger method not supported": {"IO"},
    "Attempted to call function marked as skipped": {"IO"},  # warnings.warn
    "Data-dependent branching": {"DC", "GUARD"},
    "generic_jump TensorVariable": {"DC", "GUARD"},
    "Unsupported Tensor.item() call": {"SCALAR"},
    "Data dependent operator": {"SCALAR"},
    "Dynamic shape operator": {"DS"},
}
FAMILY_CATEGORIES = {"LC": {"IO"}, "DC": {"DC", "GUARD"}, "DS": {"DS"}}
RESUME_FUNCTION = re.compile(r"torch_dynamo_resume_in_(?P<name>.+)_at_\d+")
# BreakSite.path is relative to the folder transformers is installed in.
SITE_PACKAGES = Path(transformers.__file__).resolve().parent.parent


def _rows() -> list[Any]:
    slow = pytest.mark.skipif(not RUN_SLOW, reason="slow row: set GRAPHMEND_SLOW=1")
    return [pytest.param(name, marks=[] if name in FAST_ROWS else [slow], id=name) for name in corpus.ROWS]


def _compile_and_count(model: torch.nn.Module, args: tuple, kwargs: dict) -> tuple[int, list[Any]]:
    """Graphs compiled by one call of a fresh torch.compile, and its break reasons."""
    graphs = 0

    def counting_backend(gm: torch.fx.GraphModule, example_inputs: list) -> Any:
        nonlocal graphs
        graphs += 1
        return gm.forward

    torch._dynamo.reset()
    first = len(output_graph.graph_break_reasons)
    with torch.no_grad():
        torch.compile(model, backend=counting_backend)(*args, **kwargs)
    return graphs, output_graph.graph_break_reasons[first:]


def _site(reason: Any) -> tuple[str, str, str]:
    """(path under site-packages, function, first line) of the breaking statement."""
    frame = reason.user_stack[-1]
    path = Path(frame.filename).resolve()
    resumed = RESUME_FUNCTION.fullmatch(frame.name)
    return (
        path.relative_to(SITE_PACKAGES).as_posix(),
        resumed["name"] if resumed else frame.name,
        (frame.line or "").strip(),
    )


def _categories(reason: Any) -> set[str]:
    headline = reason.reason.splitlines()[0]
    return next(cats for prefix, cats in REASON_CATEGORIES.items() if headline.startswith(prefix))


def _module_of(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


@pytest.mark.parametrize("name", _rows())
def test_row_breaks_as_recorded(name: str) -> None:
    row = corpus.ROWS[name]
    graphs, reasons = _compile_and_count(*row.build())

    assert graphs - 1 == row.expected_breaks
    declared = {(site.path, site.function, site.code): site for site in row.sites}
    observed = {_site(reason) for reason in reasons}
    assert observed == set(declared)
    for reason in reasons:
        site = declared[_site(reason)]
        assert site.category in _categories(reason), (site, reason.reason)
        module = _module_of(site.path)
        assert any(module == prefix or module.startswith(prefix + ".") for prefix in row.modules)
    assert "torchvision" not in sys.modules


def test_row_metadata_is_consistent() -> None:
    known = set().union(*REASON_CATEGORIES.values())
    for row in corpus.ROWS.values():
        categories = {site.category for site in row.sites}
        assert categories <= known, row.name
        if row.family == "mixed":
            assert not any(categories <= allowed for allowed in FAMILY_CATEGORIES.values()), row.name
        else:
            assert categories <= FAMILY_CATEGORIES[row.family], row.name
        assert row.expected_breaks >= len(row.sites), row.name


def test_phi3_breaks_once_less_after_long_inv_freq_is_cached() -> None:
    # Why every measurement needs a fresh model: the first long call creates
    # `long_inv_freq`, and the `if not hasattr(...)` inside the break is gone.
    row = corpus.ROWS["phi3_longrope"]
    model, args, kwargs = row.build()
    with torch.no_grad():
        model(*args, **kwargs)
    graphs, _ = _compile_and_count(model, args, kwargs)
    assert graphs - 1 == row.expected_breaks - 1


def test_phi3_inputs_take_the_long_then_the_short_path() -> None:
    row = corpus.ROWS["phi3_longrope"]
    model = row.model()
    rotary = model.model.rotary_emb
    with torch.no_grad():
        for variant, factors in (("default", "long_inv_freq"), ("short", "original_inv_freq")):
            args, kwargs = row.inputs(variant)
            model(*args, **kwargs)
            assert rotary.inv_freq is getattr(rotary, factors), variant


@pytest.mark.parametrize("name", ["biogpt", "bart_fp16"])
def test_rows_are_reproducible(name: str) -> None:
    row = corpus.ROWS[name]
    outputs = []
    for _ in range(2):
        model, args, kwargs = row.build()
        with torch.no_grad():
            outputs.append(model(*args, **kwargs))
    assert first_difference(outputs[0], outputs[1]) is None
    assert next(model.parameters()).dtype == row.dtype


def test_building_leaves_the_global_rng_alone() -> None:
    torch.manual_seed(1234)
    expected = torch.rand(4)
    torch.manual_seed(1234)
    corpus.build("biogpt")
    assert torch.equal(torch.rand(4), expected)


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(KeyError, match="no input variant 'short'"):
        corpus.ROWS["t5"].inputs("short")
