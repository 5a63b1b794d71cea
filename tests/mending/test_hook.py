"""The import hook (graphmend.mending.hook) and ``graphmend run --mend``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import graphmend
from graphmend.mending.hook import check_prefixes

MODEL = """
import logging

import torch

logger = logging.getLogger(__name__)


def forward(x):
    y = x * 2
    logger.warning("y is %s", y.sum())
    return y + 1
"""

# Counts graphs with a counting backend; exits with a status of its own so
# the test can see that ``graphmend run`` keeps it.
SCRIPT = """
import sys

import torch

import {package}.model as model

graphs = []


def backend(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


out = torch.compile(model.forward, backend=backend)(torch.ones(3))
print("graphs", len(graphs), "mended", hasattr(model, "_graphmend"), "sum", float(out.sum()))
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture
def project(tmp_path):
    for package in ("named", "unnamed"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "model.py").write_text(MODEL)
        (tmp_path / f"use_{package}.py").write_text(SCRIPT.format(package=package))
    return tmp_path


def _graphmend(project, *args):
    env = dict(os.environ, GRAPHMEND_CACHE_DIR=str(project / "cache"))
    return subprocess.run(
        [sys.executable, "-m", "graphmend", *args], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


def test_run_mends_only_the_named_package_and_keeps_the_exit_status(project):
    before = {p: p.read_bytes() for p in project.rglob("*.py")}

    named = _graphmend(project, "run", "--mend", "named", "use_named.py", "3")
    unnamed = _graphmend(project, "run", "--mend", "named", "use_unnamed.py", "0")

    assert named.returncode == 3, named.stderr
    assert "graphs 1 mended True sum 9.0" in named.stdout
    assert "y is tensor(6.)" in named.stderr  # the deferred warning still reaches the handler
    assert unnamed.returncode == 0, unnamed.stderr
    assert "graphs 2 mended False sum 9.0" in unnamed.stdout
    assert {p: p.read_bytes() for p in before} == before  # no file modified
    assert not (project / "named" / "__pycache__").exists()  # the hook writes no bytecode
    assert list((project / "cache").iterdir()), "the rewritten source is cached"


def test_run_without_mend_is_plain_python(project):
    result = _graphmend(project, "run", "use_named.py", "0")
    assert result.returncode == 0
    assert "graphs 2 mended False" in result.stdout


# Which modules are never mended is one rule's (tests/mending/test_foreign.py); the
# hook refuses those, its own script, and what is no module name.
@pytest.mark.parametrize("prefix", ["torch.nn", "__main__", "", "not a name"])
def test_refused_prefixes(prefix, project):
    with pytest.raises(graphmend.GraphmendError):
        check_prefixes([prefix])
    result = _graphmend(project, "run", "--mend", prefix, "use_named.py", "0") if prefix else None
    if result is not None:
        assert result.returncode == 2
        assert "graphmend:" in result.stderr and "Traceback" not in result.stderr


def test_hook_in_process_maps_lines_and_leaves_bytecode_alone(project, monkeypatch):
    from graphmend.mending.hook import mending_imports

    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(project / "cache"))
    monkeypatch.syspath_prepend(str(project))
    (project / "named" / "lines.py").write_text(
        textwrap.dedent(
            """
            import torch


            def f(x):
                if x.sum() > 0:
                    x = x + 1
                else:
                    x = x - 1
                raise KeyError("here")
            """
        )
    )
    with mending_imports("named.lines"):
        import named.lines as lines
    try:
        assert hasattr(lines, "_graphmend")
        with pytest.raises(KeyError) as info:
            lines.f(__import__("torch").ones(2))
        assert info.traceback[-1].lineno + 1 == 10  # the raise's line in the file
        assert not list((project / "named").glob("__pycache__/lines*"))
    finally:
        sys.modules.pop("named.lines", None)
        sys.modules.pop("named", None)


def test_script_error_and_missing_script(project):
    (project / "boom.py").write_text("raise SystemExit(5)\n")
    assert _graphmend(project, "run", "--mend", "named", "boom.py").returncode == 5
    missing = _graphmend(project, "run", "--mend", "named", "missing.py")
    assert missing.returncode == 2 and "no such script" in missing.stderr
