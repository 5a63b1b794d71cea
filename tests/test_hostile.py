"""Hostile and odd inputs to every entry point: each gives the object back
unchanged (reason logged) or a clear GraphmendError; no traceback from
graphmend's internals; no file modified on error.  Builtins, C functions,
partials, lambdas, generators, coroutines and exec-defined functions given
to ``mend`` are covered in test_mend.py; odd files and symlink loops given
to ``fix`` in test_fix_cli.py."""

from __future__ import annotations

import dataclasses
import functools
import logging
import subprocess
import sys
import types

import pytest
import torch

import graphmend
from graphmend.api import compile as gm_compile
from graphmend.cli import main
from graphmend.mending.live import mend, unmend


def _decorated(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)

    return wrapper


@_decorated
def decorated(x):
    return x + 1


class Holder:
    @staticmethod
    def static(x):
        return x + 1

    @classmethod
    def klass(cls, x):
        return x + 1

    def bound(self, x):
        return x + 1


def _closure():
    k = 2

    def inner(x):
        return x * k

    return inner


ODD_CALLABLES = {
    "builtin": lambda: abs,
    "c_function": lambda: torch.relu,
    "lambda": lambda: (lambda x: x + 1),
    "closure": _closure,
    "partial": lambda: functools.partial(torch.add, other=1),
    "staticmethod": lambda: Holder.static,
    "classmethod": lambda: Holder.klass,
    "bound_method": lambda: Holder().bound,
    "decorated": lambda: decorated,
    "exec_defined": lambda: _exec("def g(x):\n    return x + 1\n")["g"],
    "type": lambda: Holder,
}


def _exec(text):
    namespace: dict = {}
    exec(text, namespace)
    return namespace


@pytest.mark.parametrize("name", ODD_CALLABLES)
def test_mend_of_odd_callables_returns_them_working(name):
    obj = ODD_CALLABLES[name]()
    assert mend(obj) is obj
    x = torch.ones(2)
    if name != "type":
        assert torch.equal(torch.as_tensor(obj(x)), torch.as_tensor(ODD_CALLABLES[name]()(x)))
    unmend(obj)


@pytest.mark.parametrize("name", ["builtin", "c_function", "lambda", "partial", "exec_defined", "decorated", "bound_method"])
def test_compile_of_odd_callables_gives_the_same_results(name):
    obj = ODD_CALLABLES[name]()
    x = torch.arange(3.0)
    compiled = gm_compile(obj, backend="eager")
    assert torch.equal(compiled(x), obj(x))
    unmend(obj)


def test_module_with_forward_replaced_on_the_instance():
    module = torch.nn.Linear(2, 2)

    def forward(x):
        print("replaced")
        return x * 3

    module.forward = forward  # an instance attribute shadowing the class's forward
    assert mend(module) is module
    assert module.forward is forward
    assert torch.equal(module(torch.ones(2)), torch.full((2,), 3.0))
    unmend(module)


@dataclasses.dataclass(eq=True)  # eq without frozen: __hash__ is None, as attrs' @attr.s makes it
class Unhashable(torch.nn.Module):
    restitution: float = 0.8

    def __post_init__(self):
        super().__init__()
        self.scale = torch.nn.Linear(2, 2)

    def forward(self, x):
        if x.sum() > 0:  # a data-dependent branch for graphmend to mend
            return self.scale(x) * self.restitution
        return x


def test_a_model_holding_an_unhashable_module_compiles_and_diagnoses():
    """``nn.Module.modules()`` raises ``TypeError: unhashable type`` on a
    module whose class defines ``__eq__`` without ``__hash__`` (torchdyn's
    ``EventCallback`` is an ``@attr.s`` class); the model itself and
    torch.compile run.  graphmend walks such a model by identity."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), Unhashable())
    x = torch.tensor([[1.0, 2.0]])
    expected = model(x)
    with pytest.raises(TypeError, match="unhashable"):
        list(model.modules())
    with torch.no_grad():
        assert torch.equal(gm_compile(model)(x), expected.detach())
    assert graphmend.diagnose(model, x) is not None
    unmend(model)


class UnrepresentableEstimator(torch.nn.Module):
    """An sklearn-style estimator whose ``__repr__`` reads a parameter that
    this subclass never set (torchdr's ``UMAP`` through ``BaseEstimator``)."""

    def __repr__(self):
        return f"UnrepresentableEstimator(a={self.a})"

    def fit_transform(self, x):
        if x.sum() > 0:
            return x * 2
        return x

    def forward(self, x):
        return self.fit_transform(x)


class UnrepresentableCallable:
    def __repr__(self):
        raise RuntimeError("no repr")

    def __call__(self, x):
        return x + 1


@pytest.mark.parametrize("entry", ["module", "bound_method", "callable_instance"])
def test_an_object_whose_repr_raises_compiles_and_diagnoses(entry):
    """graphmend never calls a user object's ``repr``: ``torch.compile``
    does not, and sklearn-style estimators' raise until fitted."""
    obj = {"module": UnrepresentableEstimator, "bound_method": lambda: UnrepresentableEstimator().fit_transform,
           "callable_instance": UnrepresentableCallable}[entry]()
    x = torch.tensor([1.0, -3.0])
    with pytest.raises((AttributeError, RuntimeError)):
        repr(obj)
    assert torch.equal(gm_compile(obj, backend="eager")(x), obj(x))
    assert graphmend.diagnose(obj, x) is not None
    unmend(obj)


def test_an_argument_dict_keyed_by_an_object_whose_repr_raises():
    """The call's argument structure names a dict's keys by value only when
    they are plain; any other key by its class (pytree's ``str(spec)`` would
    call the key's ``repr``)."""
    key_object = UnrepresentableCallable()

    def pick(table):
        x = table[key_object]
        if x.sum() > 0:
            return x * 2
        return x

    table = {key_object: torch.tensor([1.0, 2.0])}
    assert torch.equal(gm_compile(pick, backend="eager")(table), pick(table))
    unmend(pick)


def test_scripted_module_is_left_alone(caplog):
    scripted = torch.jit.script(torch.nn.Linear(2, 2))
    x = torch.ones(1, 2)
    expected = scripted(x)
    with caplog.at_level(logging.DEBUG, logger="graphmend"):
        assert mend(scripted) is scripted
    assert torch.equal(scripted(x), expected)


@pytest.mark.parametrize("value", [3, "forward", None, [1, 2], torch.ones(2)])
def test_non_callables_are_a_clear_error(value):
    with pytest.raises(graphmend.GraphmendError):
        mend(value)
    if value is not None:  # compile() with nothing to compile is a decorator, as torch.compile's is
        with pytest.raises(graphmend.GraphmendError):
            gm_compile(value)


def test_compile_of_nothing_is_a_decorator_and_a_non_callable_under_it_a_clear_error():
    decorator = gm_compile(backend="eager")
    with pytest.raises(graphmend.GraphmendError):
        decorator(3)


@pytest.mark.parametrize("value", [3, None, "text"])
def test_diagnose_of_a_non_callable_is_a_clear_error(value):
    with pytest.raises(graphmend.GraphmendError):
        graphmend.diagnose(value)


def test_diagnose_of_a_builtin_reports_without_crashing():
    report = graphmend.diagnose(torch.relu, torch.ones(2))
    assert report.break_count == 0 and report.breaks == []


def test_generator_and_coroutine_functions_compile_unchanged():
    def gen(x):
        yield x + 1

    async def coro(x):
        return x + 1

    assert mend(gen) is gen and mend(coro) is coro
    assert gen.__code__ is mend(gen).__code__


@pytest.mark.parametrize(
    "content",
    [b"def f(:\n", b"\xff\xfe\x00\x00", b"", b"import torch\n" * 3],
    ids=["syntax-error", "binary", "empty", "no-breaks"],
)
def test_cli_diagnose_and_run_of_odd_scripts(tmp_path, content):
    script = tmp_path / "odd.py"
    script.write_bytes(content)
    for command in (["diagnose"], ["run"], ["run", "--mend", "oddpkg"]):
        result = subprocess.run(
            [sys.executable, "-m", "graphmend", *command, str(script)], capture_output=True, text=True, timeout=300
        )
        assert result.returncode in (0, 1), result.stderr
        assert "graphmend/" not in result.stderr.replace("graphmend/cli.py", ""), result.stderr
        assert script.read_bytes() == content


def test_cli_directory_and_missing_script(tmp_path):
    assert main(["run", str(tmp_path)]) == 2
    assert main(["diagnose", str(tmp_path / "missing.py")]) == 2


def test_fix_of_a_directory_with_a_symlinked_file_loop(tmp_path):
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    # Each link is reported as unreadable (exit 2), and the walk ends.
    assert main(["fix", "--check", str(tmp_path)]) == 2


def test_unmend_of_something_never_mended_is_harmless():
    for obj in (abs, torch.nn.Linear(1, 1), types.SimpleNamespace(), decorated):
        assert unmend(obj) is obj
