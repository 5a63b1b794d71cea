"""graphmend's pytest plugin: the ``assert_graphs`` fixture.

Loaded through the ``pytest11`` entry point whenever graphmend is installed
(``-p no:graphmend`` turns it off).  Importing it costs nothing: torch is
imported only when a test calls the fixture.

Defaults, most specific first: the keyword arguments of the call, a
``@pytest.mark.graphmend(max_graphs=..., forbid=..., max_recompiles=..., mended=...)``
marker on the test (or its class or module), then the ini options
``graphmend_max_graphs`` (default 1) and ``graphmend_forbid`` (default none).
See :mod:`graphmend.testing`.
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("graphmend_max_graphs", "assert_graphs: default graph budget (default 1)", default="1")
    parser.addini("graphmend_forbid", "assert_graphs: break categories forbidden by default", type="args",
                  default=[])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "graphmend(max_graphs=1, forbid=(), max_recompiles=None, mended=None): assert_graphs defaults "
        "for this test"
    )


@pytest.fixture
def assert_graphs(request: pytest.FixtureRequest):
    """:func:`graphmend.testing.assert_graphs` with this test's defaults."""
    from graphmend.testing import assert_graphs as check

    max_graphs = request.config.getini("graphmend_max_graphs")
    defaults: dict[str, Any] = {
        "max_graphs": None if str(max_graphs).lower() == "none" else int(max_graphs),
        "forbid": tuple(request.config.getini("graphmend_forbid")),
    }
    marker = request.node.get_closest_marker("graphmend")
    if marker is not None:
        defaults.update(marker.kwargs)

    def assert_graphs(fn, *args: Any, **kwargs: Any):
        options = {key: kwargs.pop(key) for key in ("max_graphs", "forbid", "max_recompiles", "calls", "mended")
                   if key in kwargs}
        return check(fn, *args, **{**defaults, **options}, **kwargs)

    return assert_graphs
