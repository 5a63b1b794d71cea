"""``graphmend fix`` reads the files a file imports from its own project:
a message helper defined in another file of the project is deferred as one
defined in the file itself.  Installed libraries are not read."""

from __future__ import annotations

import textwrap

import pytest

from graphmend.cli import main

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
