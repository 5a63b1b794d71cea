"""The pre-commit hooks in .pre-commit-hooks.yaml, run by pre-commit itself
(``pre-commit try-repo``) on a sample repository.

The hook that runs is ``graphmend-fix-system``, the graphmend installed here:
``graphmend-fix`` (``language: python``) would pip-install graphmend, and so
torch, into a fresh environment on every test run.  Both share their entry
(``graphmend fix --check``), and both are checked against pre-commit's own
manifest schema.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from locations import ROOT

BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

FIXABLE = textwrap.dedent(
    """\
    import torch


    def forward(x):
        y = x * 2
        print("y is", y)
        return y
    """
)
CLEAN = "import torch\n\n\ndef forward(x):\n    return x * 2\n"


def test_the_manifest_is_valid_for_pre_commit():
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"graphmend-fix", "graphmend-fix-system"}
    assert hooks["graphmend-fix"]["language"] == "python"
    assert {hook["entry"] for hook in hooks.values()} == {"graphmend fix --check"}
    assert all(hook["types"] == ["python"] for hook in hooks.values())


def _try_repo(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", PRE_COMMIT_HOME=str(home),
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    return subprocess.run(
        [str(BIN / "pre-commit"), "try-repo", str(ROOT), "graphmend-fix-system", "--all-files", "--verbose"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture
def sample(tmp_path):
    repo = tmp_path / "sample"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "clean.py").write_text(CLEAN)
    (repo / "README.txt").write_text("not Python\n")
    return repo


def test_try_repo_passes_a_clean_repository(sample, tmp_path):
    run = _try_repo(sample, tmp_path / "home")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Passed" in run.stdout


def test_try_repo_fails_on_a_fixable_site_and_names_it(sample, tmp_path):
    (sample / "model.py").write_text(FIXABLE)
    run = _try_repo(sample, tmp_path / "home")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Failed" in run.stdout
    assert "model.py:6: [defer] fixable: print -> deferred" in run.stdout
    assert "clean.py" not in run.stdout.split("Failed", 1)[1].split("model.py", 1)[0]
    assert (sample / "model.py").read_text() == FIXABLE  # --check changes nothing
