import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# Test helper modules (harness.py, locations.py, toy_rules.py, programs/,
# fuzz/) import as top-level modules from every folder of the suite.
sys.path.insert(0, str(Path(__file__).parent))

# GRAPHMEND_DISABLE_RULE=where (or trap, defer) runs the suite with that
# rule turned off in the converter registry, =where.masked_store with that
# one converter: the tests of the rule must go red, or they do not test it
# (the rule-off run: tools/rule_off.py).
_OFF = os.environ.get("GRAPHMEND_DISABLE_RULE")
if _OFF:
    from graphmend import pipeline

    if "." in _OFF:
        pipeline.CONVERTERS.unregister(_OFF)
    else:
        pipeline.CONVERTERS.disable(_OFF)


def pytest_configure(config):
    """One empty cache folder for the run: what graphmend keeps across
    processes (rewrites, the records of first calls, the self-tests'
    verdicts) comes from this run's tests, as on a fresh CI machine, never
    from an earlier run's (a record of frames [Capture] gave up on would
    spare a later run the attempts a test looks for)."""
    config._graphmend_cache = tempfile.mkdtemp(prefix="graphmend-tests-")
    os.environ["GRAPHMEND_CACHE_DIR"] = config._graphmend_cache


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_graphmend_cache", ""), ignore_errors=True)


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    """A cache folder of the test's own (the tests of mending use it throughout)."""
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def fake_rules():
    """The toy rules (toy_rules.py), registered before the built-in converters of their nodes."""
    from graphmend import pipeline
    from graphmend.rules.options import RULE_NAMES
    from toy_rules import CONVERTERS

    with pipeline.CONVERTERS.added(*CONVERTERS, first=True):
        assert pipeline.RULE_NAMES == (*RULE_NAMES, "mark", "fakewhere")
        yield
