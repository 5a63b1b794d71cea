"""Callee summaries: a call to a function graphmend can read is judged by
what that function does (:mod:`graphmend.analysis.summaries`).

* the summaries themselves, read from source (static: the functions of one
  file; live: the objects a function's globals hold, in another module);
* the rules using them: an arm or a loop body calling a pure helper is
  rewritten, and the rewrite gives what the original gives, eagerly and
  compiled, in one graph; a helper with an effect is declined, named.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
import torch

import graphmend
from graphmend.mending import callees
from graphmend.analysis.source import parse_text
from graphmend.analysis.summaries import MAX_DEPTH, Summarizer, static_summaries
from harness import assert_same_outcome, check_equivalent, compiled_outcome, load_module, outcome_of
from locations import FIXTURES

HELPERS = '''
import math
import random
import torch
import torch.nn.functional as F

def pure(x, s):
    """A docstring."""
    y = x * s
    if s is None:
        return x
    return torch.maximum(y, x.abs()).clamp(0, 10)

def calls_pure(x):
    return pure(x, 2.0) + 1

def view(x):
    return x.view(-1)

def writes_attribute(self, x):
    self.count = self.count + 1
    return x

def writes_item(x):
    x[0] = 1
    return x

def updates_in_place(x):
    return x.add_(1)

def writes_out(x, y):
    return torch.add(x, 1, out=y)

def updates_its_own(x):
    out = torch.remainder(x, 1.0)
    out[out >= 1.0] -= 1.0
    y = out.view(-1)
    y.add_(1)
    return out

def writes_out_into_its_own(x):
    # torchani's cumsum_from_zero
    cumsum = torch.zeros_like(x)
    torch.cumsum(x[:-1], dim=0, out=cumsum[1:])
    return cumsum

def writes_out_through_a_call_with_effects(x):
    out = torch.zeros_like(x)
    helper(x, out=out)
    return out

def updates_a_view_of_its_argument(x):
    out = x.view(-1)
    out[0] = 1
    return out

def updates_what_may_be_its_argument(x, s):
    out = x * 2
    if s is None:
        out = x
    out += 1
    return out

def prints(x):
    print("x is", x)
    return x

def draws(x):
    return x + torch.rand_like(x)

def draws_python(x):
    return x * random.random()

def c_code(x):
    return x * math.sqrt(2.0)

def raises(x):
    if x.dim() != 2:
        raise ValueError("not 2-d")
    return x

def indexes(x):
    return x[0]

def tensor_if(x):
    if x.sum() > 0:
        return x
    return -x

def reads(x):
    return x.item()

def loops(x):
    for _ in range(3):
        x = x * 2
    return x

def calls_argument(fn, x):
    return fn(x)

def ping(x):
    return pong(x)

def pong(x):
    return ping(x)

@torch.no_grad()
def decorated(x):
    return x * 2

def conditional_expression(x, flag):
    return x * 2 if flag else x

def static_conditional_expression(x):
    return x * 2 if x.dim() > 1 else x * 3

def uses_global(x):
    global COUNT
    COUNT = 1
    return x
'''


def _summaries(source: str, *called: str) -> dict:
    parsed = parse_text("<helpers>", source)
    return dict(static_summaries(parsed, [ast.parse(f"{name}(1)") for name in called]))


@pytest.fixture(scope="module")
def helpers() -> dict:
    names = [line[4:].split("(")[0] for line in HELPERS.splitlines() if line.startswith("def ")]
    return _summaries(HELPERS, *names)


@pytest.mark.parametrize(("name", "kind", "effect"), [
    ("pure", "pure", None),
    ("calls_pure", "pure", None),
    ("view", "pure", None),
    ("writes_attribute", "writes", "writes `self.count`"),
    ("writes_item", "writes", "stores into `x[0]`"),
    ("updates_in_place", "writes", "updates `x` in place (.add_())"),
    ("writes_out", "writes", "writes through out= in torch.add()"),
    ("updates_its_own", "pure", None),
    ("writes_out_into_its_own", "pure", None),
    ("writes_out_through_a_call_with_effects", "unreadable", "calls helper(), which may have effects"),
    ("updates_a_view_of_its_argument", "writes", "stores into `out[0]`"),
    ("updates_what_may_be_its_argument", "writes", "updates `out` in place (augmented assignment)"),
    ("prints", "message", "prints"),
    ("draws", "random", "draws random numbers (torch.rand_like)"),
    ("draws_python", "unreadable", "calls random.random(), which may have effects"),
    ("c_code", "unreadable", "calls math.sqrt(), which may have effects"),
    ("raises", "raises", "may raise ValueError"),
    ("indexes", "raises", "indexes `x[0]`, which may raise IndexError"),
    ("tensor_if", "unreadable", "tests `x.sum() > 0`, which may be a tensor"),
    ("reads", "reads", "reads a tensor's value (.item())"),
    ("loops", "unreadable", "has a `for` statement"),
    ("calls_argument", "unreadable", "calls fn(), which may have effects"),
    ("ping", "unreadable", "calls pong(), which calls ping(), which is recursive (not read)"),
    ("decorated", "unreadable", "is decorated (what runs is the decorator's)"),
    ("uses_global", "writes", "declares `global COUNT`"),
    ("conditional_expression", "unreadable", "tests `x * 2 if flag else x`, which may be a tensor"),
    ("static_conditional_expression", "pure", None),
])
def test_summary_names_what_a_helper_does(helpers, name, kind, effect):
    summary = helpers[name]
    assert (summary.kind, summary.effect) == (kind, effect)


def test_an_index_that_raises_only_while_traced_is_pure_where_traced_errors_fall_back(helpers):
    assert helpers["indexes"].traced_effect is None
    # A raise runs in Python, while tracing (its tests are static): it falls back too.
    assert helpers["raises"].traced_effect is None


def test_updates_in_place_are_told_apart_from_attribute_stores(helpers):
    """An attribute store waits for the graph's end; an update in place runs in it."""
    assert helpers["writes_attribute"].updates is None
    assert helpers["writes_item"].updates == "stores into `x[0]`"
    assert helpers["updates_in_place"].updates == "updates `x` in place (.add_())"
    assert helpers["writes_out"].updates == "writes through out= in torch.add()"
    # Updates of a tensor the helper made itself (and of a view of it) are seen by no caller.
    assert helpers["updates_its_own"].updates is None and helpers["updates_its_own"].fresh
    assert helpers["updates_a_view_of_its_argument"].updates == "stores into `out[0]`"


def test_fresh_results(helpers):
    assert helpers["pure"].fresh is False  # returns its argument ``x`` when ``s is None``
    assert helpers["calls_pure"].fresh is True
    assert helpers["view"].fresh is False


def test_depth_is_bounded():
    chain = "\n".join(f"def f{i}(x):\n    return f{i + 1}(x) * 2\n" for i in range(MAX_DEPTH + 3))
    chain += f"def f{MAX_DEPTH + 3}(x):\n    return x + 1\n"
    summary = _summaries(chain, "f0")["f0"]
    assert summary.kind == "unreadable" and summary.effect.endswith(f"is more than {MAX_DEPTH} calls down (not read)")
    # A shallow chain is read through.
    assert _summaries(chain, f"f{MAX_DEPTH}")[f"f{MAX_DEPTH}"].effect is None


def test_a_name_bound_twice_is_not_summarised():
    source = "def f(x):\n    return x\n\ndef f(x):\n    print(x)\n"
    assert _summaries(source, "f") == {}


# -- the live summaries: the objects a function's globals hold, in another module -----------

LIBRARY = '''
import torch
import torch.nn.functional as F


def _hysteresis_step(edges, kernel):
    weak = (edges == 0.5).to(edges.dtype)
    strong = (edges == 1).to(edges.dtype)
    magnitude = F.conv2d(edges, kernel, padding=1)
    magnitude = (magnitude > 0).to(edges.dtype) * weak + strong
    return magnitude


def _shift(x, s):
    return x * s + 1


def _noisy(x):
    return x + torch.rand_like(x)


def _count(state, x):
    state.calls = state.calls + 1
    return x * 2
'''

USER = '''
import torch
from {library} import _hysteresis_step, _shift, _noisy, _count


def hysteresis(edges, kernel):
    edges_old = -torch.ones_like(edges)
    steps = torch.zeros((), dtype=torch.int64)
    while (edges_old != edges).any():
        edges_old = edges * 1
        edges = _hysteresis_step(edges, kernel)
        steps = steps + 1
    return edges, steps


def arm(x, s):
    if x.sum() > 0:
        x = _shift(x, s)
    else:
        x = x - 1
    return x


def noisy_arm(x):
    if x.sum() > 0:
        x = _noisy(x)
    return x


def counting_arm(state, x):
    if x.sum() > 0:
        x = _count(state, x)
    return x
'''


@pytest.fixture
def two_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "cache"))
    library = load_module(LIBRARY, tmp_path, "library")
    user = load_module(USER.format(library=library.__name__), tmp_path, "user")
    yield library, user
    sys.modules.pop(library.__name__, None)
    sys.modules.pop(user.__name__, None)


def test_live_summaries_read_the_helpers_of_another_module(two_modules):
    _, user = two_modules
    summarizer = Summarizer()
    found = dict(callees.callee_summaries_of(user.hysteresis, summarizer))
    assert found["_hysteresis_step"].effect is None and found["_hysteresis_step"].fresh
    assert set(found) == {"_hysteresis_step"}  # torch's own functions are not read
    assert dict(callees.callee_summaries_of(user.noisy_arm, summarizer))["_noisy"].kind == "random"
    assert dict(callees.callee_summaries_of(user.counting_arm, summarizer))["_count"].effect == \
        "writes `state.calls`"


def _edges() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    edges = (torch.rand(1, 1, 8, 8) * 3).floor() / 2  # 0, 0.5 and 1
    edges[0, 0, 0, 0] = 1.0
    return edges, torch.ones(1, 1, 3, 3)


def _mended_and_equal(function, *args, graphs: int = 1) -> None:
    original = function.__wrapped__
    expected = outcome_of(original, *[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    assert_same_outcome(expected, outcome_of(function, *[a.clone() for a in args]), "eager")
    outcome, count = compiled_outcome(function, *[a.clone() for a in args])
    assert_same_outcome(expected, outcome, "compiled")
    assert count == graphs


def test_a_while_loop_calling_a_pure_helper_of_another_module_becomes_torch_while_loop(two_modules):
    _, user = two_modules
    mended = graphmend.mend(user.hysteresis, rules=["where"])
    assert "_graphmend.while_loop" in graphmend.show(mended)
    with torch.no_grad():
        _mended_and_equal(mended, *_edges())


def test_an_if_calling_a_pure_helper_of_another_module_is_merged(two_modules):
    _, user = two_modules
    mended = graphmend.mend(user.arm, rules=["where"])
    assert "_graphmend.both_arms" in graphmend.show(mended)
    for sign in (1, -1):
        _mended_and_equal(mended, torch.arange(4.0) * sign, torch.tensor(3.0))


@pytest.mark.parametrize("function", ["noisy_arm", "counting_arm"])
def test_an_if_calling_an_impure_helper_of_another_module_stays(two_modules, function):
    _, user = two_modules
    mended = graphmend.mend(getattr(user, function), rules=["where"])
    assert not hasattr(mended, "__wrapped__") or "both_arms" not in graphmend.show(mended)


# -- the static path: equivalence of the fixtures' kind of code --------------------------

SAME_MODULE = '''
import torch


def _step(x, s):
    return torch.maximum(x * s, x.abs() - 1)


def grow(x, s):
    while x.abs().sum() < 100:
        x = _step(x, s) + 1
    return x


def pick(x, s):
    if x.sum() > 0:
        y = _step(x, s)
    else:
        y = x * 2
    return y
'''


@pytest.mark.parametrize(("function", "arg_sets"), [
    ("grow", [(torch.tensor([1.0, -2.0]), torch.tensor(2.0)), (torch.tensor([200.0]), torch.tensor(2.0))]),
    ("pick", [(torch.tensor([1.0, 2.0]), torch.tensor(3.0)), (torch.tensor([-1.0, -2.0]), torch.tensor(3.0))]),
])
def test_a_pure_helper_of_the_same_module_is_rewritten_and_equivalent(tmp_path, function, arg_sets):
    with torch.no_grad():
        result = check_equivalent(SAME_MODULE, function, arg_sets, tmp_path, rules=["where"])
    assert [site.lineno for site in result.sites] and not result.skips


# -- the fixtures that call helpers: equivalent, eagerly and compiled, in one graph ---------



def _t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


FIXTURE_CASES = {
    "where/pure_helper_in_an_arm": ("clip_if_large", [(_t(1, 5), 2.0), (_t(1, -1), 2.0)]),
    "where/pure_helper_in_a_while_body": ("settle", [(_t(4, -3), _t(0.5, 0.5)), (_t(0.5, 0.5), _t(0.5, 0.5))]),
    # Run where not taken, x[0] of an empty tensor raises while traced: the original if runs.
    "where/helper_indexing_with_a_literal_in_an_arm": ("maybe_center", [(_t(3, 1),), (_t(-3, 1),), (_t(),)]),
    # A matrix: the helper raises while traced where its arm is not taken, and the original if runs.
    "where/helper_raising_under_a_static_test_in_an_arm": (
        "maybe_double", [(_t(1, 2),), (_t(-1, -2),), (torch.ones(2, 2),), (-torch.ones(2, 2),)]),
    "trap/message_calls_a_pure_helper": ("check", [(_t(1, 2),), (_t(1, float("nan")),)]),
}


@pytest.mark.parametrize("case", sorted(FIXTURE_CASES))
def test_fixture_calling_a_helper_is_equivalent(case: str, tmp_path: Path) -> None:
    function, arg_sets = FIXTURE_CASES[case]
    rule, name = case.split("/")
    with torch.no_grad():
        for args in arg_sets:
            result = check_equivalent((FIXTURES / rule / f"{name}.in.py").read_text(), function, [args], tmp_path,
                                      rules=[rule], graphs=None if args[0].dim() != 1 or not args[0].numel() else 1)
    assert result.sites and not result.skips


def test_a_loop_carrying_its_previous_value_becomes_one_graph(tmp_path: Path) -> None:
    """kornia's hysteresis loop: ``edges_old = edges`` carries the value the
    body was given, which torch.while_loop takes as a copy."""
    edges, kernel = _edges()
    source = (FIXTURES / "where" / "while_carries_the_previous_value.in.py").read_text()
    with torch.no_grad():
        result = check_equivalent(source, "hysteresis", [(edges, kernel), (torch.zeros_like(edges), kernel)],
                                  tmp_path, rules=["where"])
    assert [site.lineno for site in result.sites] == [16] and not result.skips


GRADIENT_SOURCE = '''
import torch


def _root(x):
    return torch.sqrt(x) * 2


def root_if_positive(x):
    if x.sum() > 0:
        y = _root(x)
    else:
        y = x * 3
    return y
'''


def test_an_arm_calling_a_helper_under_autograd_has_the_original_gradients(tmp_path: Path) -> None:
    """A helper's derivative is not read: the arms merge by ``torch.cond``,
    whose untaken arm is never differentiated (sqrt'(0) is inf)."""
    from graphmend.compare import first_difference
    from harness import mend_source

    original, mended, result = mend_source(GRADIENT_SOURCE, tmp_path, rules=["where"])
    assert result.sites and "by_cond" in result.code
    for values in ((0.0, 4.0), (-1.0, 0.0)):
        expected = _gradients(original.root_if_positive, _t(*values))
        assert first_difference(expected, _gradients(mended.root_if_positive, _t(*values))) is None
        torch._dynamo.reset()
        compiled = torch.compile(mended.root_if_positive, backend="eager")
        assert first_difference(expected, _gradients(compiled, _t(*values))) is None


def _gradients(fn, x: torch.Tensor):
    leaf = x.detach().clone().requires_grad_(True)
    value = fn(leaf)
    value.sum().backward()
    return value.detach(), leaf.grad


# -- methods: ``self.helper(x)`` in a method, resolved through the class -------------------

METHOD_FIXTURE_CASES = {
    "where/pure_method_in_an_arm": ("SoftClip", (2.0,), [_t(1, 5), _t(1, -1)]),
    "where/pure_inherited_method_in_an_arm": ("Centered", (), [_t(1, 5), _t(-1, -3)]),
    "where/pure_method_in_a_while_body": ("Settle", (0.5,), [_t(7, -3), _t(0.5, 0.25)]),
    "trap/message_calls_a_pure_method": ("Checked", (), [_t(1, -2), _t(1, float("nan"))]),
}


@pytest.mark.parametrize("case", sorted(METHOD_FIXTURE_CASES))
def test_fixture_calling_a_method_is_equivalent(case: str, tmp_path: Path) -> None:
    """Both arms taken (or the check failing), eagerly and compiled, in one
    graph; under autograd, the original's values and gradients."""
    from graphmend.compare import first_difference
    from harness import mend_source

    class_name, init, inputs = METHOD_FIXTURE_CASES[case]
    rule, name = case.split("/")
    original, mended, result = mend_source((FIXTURES / rule / f"{name}.in.py").read_text(), tmp_path, rules=[rule])
    assert result.sites and not result.skips
    before, after = getattr(original, class_name)(*init), getattr(mended, class_name)(*init)
    for x in inputs:
        with torch.no_grad():
            expected = outcome_of(before, x.clone())
            assert_same_outcome(expected, outcome_of(after, x.clone()), "eager")
            outcome, count = compiled_outcome(after, x.clone())
        assert_same_outcome(expected, outcome, "compiled")
        assert count == 1
        if expected.error is not None:
            continue  # raised: no gradients
        expected = _gradients(before, x)
        assert first_difference(expected, _gradients(after, x)) is None
        torch._dynamo.reset()
        assert first_difference(expected, _gradients(torch.compile(after, backend="eager"), x)) is None


CLIP_LIBRARY = '''
import torch


def _shift(x, s):
    return x * s + 1


def _announce(x):
    print("announcing")
    return x


class Clip(torch.nn.Module):
    def _step(self, x):
        return x.clamp(-1, 1) * 2

    def forward(self, x):
        if x.sum() > 0:
            x = self._step(x)
        return x
'''

CLIP_USER = '''
import torch
import {library} as ops
from {library} import Clip, _announce


def through_module(x, s):
    if x.sum() > 0:
        x = ops._shift(x, s)
    return x


def calls_announce(x):
    return _announce(x)


class LoudClip(Clip):
    def _step(self, x):
        print("clipping")
        return x.clamp(-1, 1) * 2
'''


@pytest.fixture
def clip_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "cache"))
    library = load_module(CLIP_LIBRARY, tmp_path, "clip_library")
    yield library, lambda: load_module(CLIP_USER.format(library=library.__name__), tmp_path, "clip_user")
    for name in [name for name in sys.modules if name.startswith(("gm_case_clip_library", "gm_case_clip_user"))]:
        sys.modules.pop(name)


def test_a_method_of_a_live_class_without_overrides_is_read_and_merged(clip_modules):
    library, _ = clip_modules
    assert dict(callees.callee_summaries_of(library.Clip.forward))["Clip()._step"].pure
    clip = library.Clip()
    graphmend.mend(clip, rules=["where"])
    assert "_graphmend.both_arms" in graphmend.show(clip.forward)
    original = library.Clip.forward.__wrapped__
    for x in (_t(0.5, 3), _t(-0.5, -3)):
        with torch.no_grad():
            expected = outcome_of(original, clip, x)
            assert_same_outcome(expected, outcome_of(clip, x), "eager")
            outcome, count = compiled_outcome(clip, x)
        assert_same_outcome(expected, outcome, "compiled")
        assert count == 1


def test_a_method_a_loaded_subclass_overrides_is_not_read(clip_modules):
    """``LoudClip`` prints in its ``_step``: which one runs depends on the
    object, so ``Clip.forward``'s arm stays (named), for every instance."""
    library, load_user = clip_modules
    user = load_user()
    summary = dict(callees.callee_summaries_of(library.Clip.forward))["Clip()._step"]
    assert summary.kind == "unreadable"
    assert summary.effect == "is overridden in LoudClip (which one runs depends on the object; not read)"
    graphmend.mend(user.LoudClip(), rules=["where"])
    assert "__wrapped__" not in library.Clip.forward.__dict__  # not mended: the arm stays


def test_a_function_called_through_a_module_object_is_read_and_merged(clip_modules):
    _, load_user = clip_modules
    user = load_user()
    assert dict(callees.callee_summaries_of(user.through_module))["ops._shift"].pure
    mended = graphmend.mend(user.through_module, rules=["where"])
    assert "_graphmend.both_arms" in graphmend.show(mended)
    for sign in (1, -1):
        _mended_and_equal(mended, _t(1, 2) * sign, torch.tensor(3.0))


def test_a_mended_helper_is_summarised_from_its_rewritten_source(clip_modules):
    """What runs is the rewritten def: its summary reads that one (here a
    call into graphmend's runtime, not read), not the file's original."""
    library, load_user = clip_modules
    user = load_user()
    assert dict(callees.callee_summaries_of(user.calls_announce))["_announce"].effect == "prints"
    graphmend.mend(library._announce, rules=["defer"])
    assert "_graphmend" in graphmend.show(library._announce)
    summary = dict(callees.callee_summaries_of(user.calls_announce))["_announce"]
    assert summary.kind == "unreadable" and "_graphmend." in summary.effect


def test_a_files_attribute_stores_are_read_once_for_every_class_and_name(tmp_path, monkeypatch):
    """A method call on ``self`` reads the file of every class an instance
    may have, for each name called: gpytorch's sixty kernels were parsed
    again for each one (167 files parsed 543 times in one first call)."""
    from graphmend.analysis import summaries

    module = load_module("class A:\n    def f(self):\n        self.kept = 1\n        setattr(self, 'named', 2)\n",
                         tmp_path)
    source = module.__file__
    parsed = []
    monkeypatch.setattr(summaries, "parse_text", lambda filename, text: parsed.append(filename) or parse_text(
        filename, text))
    summaries._attribute_stores.cache_clear()
    found = [summaries.file_stores_attribute(source, vars(module), name) for name in ("kept", "named", "other")]
    assert [ast.unparse(node) if node is not None else None for node in found] == [
        "self.kept", "setattr(self, 'named', 2)", None]
    assert parsed == [source]
    assert summaries.file_stores_attribute(str(tmp_path / "missing.py"), {}, "kept") is None
