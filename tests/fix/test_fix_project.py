"""``graphmend fix`` reads the files a file imports from its own project:
a message helper defined in another file of the project is deferred as one
defined in the file itself, and an arm calling a pure helper of another
file is merged as one calling a helper of the file itself.  Installed
libraries are not read."""

from __future__ import annotations

import importlib
import itertools
import textwrap

import pytest
import torch

from graphmend.cli import main
from graphmend.fix import fix_file
from harness import assert_same_outcome, compiled_outcome, outcome_of

HELPERS = """
import warnings


def warn_once(message):
    warnings.warn(message)


def not_a_helper(x):
    x.append(1)
    warnings.warn("and a write")
"""

MODEL = """
import torch

{imports}


def forward(x):
    {call}("scaled")
    return x * 2
"""


def _project(tmp_path, imports: str, call: str):
    """A package holding ``utils.py`` (the helpers) and ``model.py``, which
    imports from it and calls ``call``; the model's path."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(textwrap.dedent(HELPERS))
    model = package / "model.py"
    model.write_text(textwrap.dedent(MODEL.format(imports=imports, call=call)))
    return model


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from .utils import warn_once", "warn_once"),
        ("from .utils import warn_once as warn", "warn"),
        ("from . import utils", "utils.warn_once"),
        ("from pkg.utils import warn_once", "warn_once"),
        ("import pkg.utils", "pkg.utils.warn_once"),
    ],
)
def test_a_message_helper_of_another_project_file_is_deferred(tmp_path, capsys, imports, call):
    model = _project(tmp_path, imports, call)
    assert main(["fix", "--diff", str(model)]) == 1
    out = capsys.readouterr().out
    assert f'+    _graphmend.deferred_call("{call}", __name__, "scaled")' in out
    assert "[defer] fixable: helper -> deferred" in out


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from .utils import not_a_helper", "not_a_helper"),  # it writes its argument
        ("from .missing import warn_once", "warn_once"),  # no such file
        ("from warnings import warn", "warn_once"),  # not the project's
    ],
)
def test_what_is_not_a_project_message_helper_is_left_alone(tmp_path, imports, call):
    model = _project(tmp_path, imports, call)
    assert main(["fix", "--check", str(model)]) == 0


# -- callee summaries across files: an arm calling a pure helper of a sibling file ------------

UTILS = """
import torch


def normalize(x):
    return x / (x.abs().sum() + 1)


def scaled(x):
    return normalize(x) * 2


def shout(x):
    print("shouting")
    return x


def mean(x):
    print("averaging")  # a tensor method's name: the call is not one
    return x.mean()
"""

ARM = """
import torch
{imports}


def pick(x):
    if x.sum() > 0:
        y = {call}(x)
    else:
        y = x * 2
    return y
"""

_packages = itertools.count()


def _arm_project(tmp_path, monkeypatch, imports: str, call: str):
    """A fresh package holding ``utils.py`` and ``model.py`` (whose ``pick``
    calls ``call`` in an arm), importable; (package name, model path)."""
    name = f"gm_project_{next(_packages)}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(textwrap.dedent(UTILS))
    model = package / "model.py"
    model.write_text(textwrap.dedent(ARM.format(imports=imports.replace("PKG", name), call=call.replace("PKG", name))))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name, model


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from .utils import normalize", "normalize"),
        ("from .utils import scaled as twice", "twice"),  # and the helper it calls
        ("from . import utils", "utils.normalize"),
        ("import PKG.utils", "PKG.utils.normalize"),
        ("import PKG.utils as u", "u.normalize"),
    ],
)
def test_an_arm_calling_a_pure_helper_of_another_project_file_is_merged(tmp_path, monkeypatch, imports, call):
    """As ``graphmend.compile`` merges it reading the live helper; the fixed
    file gives what the original gives, eagerly and compiled, in one graph."""
    name, model = _arm_project(tmp_path, monkeypatch, imports, call)
    result = fix_file(str(model), rules=["where"], write=False).result
    assert [site.rule for site in result.sites] == ["where"] and not result.skips
    (model.parent / "fixed.py").write_text(result.code)
    original = importlib.import_module(f"{name}.model").pick
    fixed = importlib.import_module(f"{name}.fixed").pick
    with torch.no_grad():
        for x in (torch.tensor([1.0, 3.0]), torch.tensor([-1.0, -3.0])):
            expected = outcome_of(original, x)
            assert_same_outcome(expected, outcome_of(fixed, x), "eager")
            outcome, count = compiled_outcome(fixed, x)
            assert_same_outcome(expected, outcome, "compiled")
            assert count == 1


@pytest.mark.parametrize(
    "imports, call, reason",
    [
        ("from .utils import shout", "shout", "calls shout(), which prints"),
        ("from . import utils", "utils.mean", "calls utils.mean(), which prints"),
        ("from .missing import normalize", "normalize", "calls normalize(), which may have effects"),  # no such file
        ("from .utils import normalize\nnormalize = torch.relu", "normalize",
         "calls normalize(), which may have effects"),  # bound twice
    ],
)
def test_an_arm_calling_what_no_project_file_shows_pure_stays(tmp_path, monkeypatch, imports, call, reason):
    _, model = _arm_project(tmp_path, monkeypatch, imports, call)
    result = fix_file(str(model), rules=["where"], write=False).result
    assert not result.changed
    assert [skip.reason for skip in result.skips] == [reason]
