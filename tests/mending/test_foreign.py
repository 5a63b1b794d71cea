"""Code graphmend never mends (graphmend.mending.foreign): torch, the
standard library and graphmend itself; one rule, which the walk, ``mend``
and the import hook all ask."""

from __future__ import annotations

import json
import logging

import pytest

from graphmend.errors import GraphmendError
from graphmend.mending.foreign import foreign_module
from graphmend.mending.hook import check_prefixes
from graphmend.mending.live import mend
from graphmend.mending.swap import MENDED


@pytest.mark.parametrize(("name", "never"), [
    ("torch", True), ("torch.nn.functional", True), ("graphmend", True), ("graphmend.runtime.defer", True),
    ("os", True), ("json.decoder", True),
    ("transformers.models.t5", False), ("torchvision", False), ("graphmendish", False), ("gm_case_user", False),
])
def test_torch_the_standard_library_and_graphmend_are_never_mended(name: str, never: bool) -> None:
    assert foreign_module(name) is never
    if never:
        with pytest.raises(GraphmendError, match="never rewritten"):
            check_prefixes(name)
    else:
        assert check_prefixes(name) == (name,)


def test_mend_leaves_such_code_alone_even_when_named(caplog) -> None:
    with caplog.at_level(logging.DEBUG, logger="graphmend"):
        mend(json.dumps, modules="json")
    assert json.dumps not in MENDED
    assert "not mending dumps: torch's, the standard library's or graphmend's own code" in caplog.text
