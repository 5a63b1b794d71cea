"""graphmend.mend / unmend / show: rewrites applied to live functions.

The machinery is tested with two tiny rules (tests/toy_rules.py), so the
tests do not depend on what the real rules rewrite.
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
import textwrap
import traceback

import pytest
import torch

import graphmend
from graphmend import pipeline
from graphmend.mending.live import mend, mend_sites, show, unmend
from harness import load_module
from toy_rules import MARK

pytestmark = pytest.mark.usefixtures("isolated_cache")


def load(source: str, tmp_path):
    return load_module(textwrap.dedent(source), tmp_path, "mend")


PLAIN = """
import functools


def original(*args):
    return "original"


def plain(a, b=2, *, c=3):
    '''doc'''
    return original(a), a + b + c


def calls_plain():
    return plain(1)


class Counter:
    def __init__(self, start):
        self.__start = start

    def value(self):
        return original(), self.__start, __class__.__name__

    @staticmethod
    def static(x):
        return original(x)

    @classmethod
    def klass(cls):
        return original(), cls.__name__


class Sub(Counter):
    def value(self):
        return super().value() + ("sub",)


def outer(zeta):
    def inner(x):
        return original(zeta), x + zeta
    return inner


def outer_dropping(zeta):
    def inner(x):
        return original(zeta)
    return inner


def decorate(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapper


@decorate
def decorated(x, y=1):
    return original(x)


def fails(x):
    y = original(x)
    z = x + 1
    raise ValueError(z)
"""


def test_function_is_mended_in_place_with_same_signature_and_wrapped_original(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    plain, signature, code = module.plain, inspect.signature(module.plain), module.plain.__code__

    assert mend(plain, rules=MARK) is plain
    assert plain(1) == ("graphmend.runtime", 6)
    assert plain.__code__ is not code
    assert inspect.signature(plain) == signature
    assert (plain.__name__, plain.__qualname__, plain.__doc__) == ("plain", "plain", "doc")
    assert plain.__wrapped__.__code__ is code
    assert plain.__wrapped__(1) == ("original", 6)
    assert module.calls_plain() == ("graphmend.runtime", 6)  # a caller in the library sees it
    assert module._graphmend is graphmend.runtime


def test_methods_are_patched_for_every_instance(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    first, second = module.Counter(1), module.Sub(2)

    mend(first.value, rules=MARK)

    # name mangling (self.__start) and __class__ behave as in the class
    assert second.value() == ("graphmend.runtime", 2, "Counter", "sub")
    assert module.Counter.value(first) == ("graphmend.runtime", 1, "Counter")


def test_static_and_class_methods(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    static, bound_classmethod = module.Counter.__dict__["static"], module.Counter.klass

    assert mend(static, rules=MARK) is static
    assert mend(bound_classmethod, rules=MARK) is bound_classmethod
    assert module.Counter.static(1) == "graphmend.runtime"
    assert module.Sub.klass() == ("graphmend.runtime", "Sub")


def test_closure_keeps_its_cells(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    inner = module.outer(10)
    freevars = inner.__code__.co_freevars

    mend(inner, rules=MARK)

    assert inner.__code__.co_freevars == freevars == ("zeta",)
    assert inner(1) == ("graphmend.runtime", 11)
    assert inner.__code__.co_qualname == "outer.<locals>.inner"


def test_closure_whose_rewrite_drops_a_free_variable(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    inner = module.outer_dropping(10)

    mend(inner, rules=MARK)

    assert inner(0) == "graphmend.runtime"
    assert inner.__code__.co_freevars == ("zeta",)


def test_wrapper_mends_the_function_it_wraps(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    wrapper = module.decorated
    inner = wrapper.__wrapped__
    signature = inspect.signature(wrapper)

    assert mend(wrapper, rules=MARK) is wrapper
    assert wrapper(1) == "graphmend.runtime"
    assert wrapper.__wrapped__ is inner  # the wrapper's own attribute is untouched
    assert inspect.signature(wrapper) == signature
    unmend(wrapper)
    assert wrapper(1) == "original"


FACTORY = """
import functools


def original(*args):
    return "original"


def factory(function):
    def helper(x):
        return original(x)

    @functools.wraps(function)
    def wrapper(*args):
        return function(*args), helper(1)

    return wrapper


class Holder:
    @factory
    def method(self, x):
        return x
"""


def test_site_in_a_helper_held_by_a_decorators_closure(tmp_path, fake_rules):
    # transformers' dynamic_rope_update keeps longrope_frequency_update this way
    module = load(FACTORY, tmp_path)
    helper_line = module.factory.__code__.co_firstlineno + 2

    mended = mend_sites([(module.__file__, helper_line)], [module.Holder.method], rules=MARK)

    assert [f.__qualname__ for f in mended] == ["factory.<locals>.helper"]
    assert module.Holder().method(5) == (5, "graphmend.runtime")
    unmend(mended[0])
    assert module.Holder().method(5) == (5, "original")


def test_module_prefixes_reach_into_decorator_closures(tmp_path, fake_rules):
    module = load(FACTORY, tmp_path)

    mend(module.Holder().method, modules=[module.__name__], rules=MARK)

    assert module.Holder().method(5) == (5, "graphmend.runtime")
    unmend(module.Holder.method)
    assert module.Holder().method(5) == (5, "original")


def test_unmend_restores_code_wrapped_and_globals(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    code, static_code = module.plain.__code__, module.Counter.static.__code__
    mend(module.plain, rules=MARK)
    mend(module.Counter.static, rules=MARK)

    unmend(module.plain)
    assert module.plain.__code__ is code
    assert not hasattr(module.plain, "__wrapped__")
    assert module._graphmend is graphmend.runtime  # still used by Counter.static

    unmend(module.Counter.static)
    assert module.Counter.static.__code__ is static_code
    assert not hasattr(module, "_graphmend")
    assert module.plain(1) == ("original", 6)


def test_mend_twice_is_idempotent(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    mend(module.plain, rules=MARK)
    code = module.plain.__code__

    mend(module.plain, rules=MARK)

    assert module.plain.__code__ is code
    unmend(module.plain)
    assert module.plain(1) == ("original", 6)


def test_traceback_points_at_the_original_lines(tmp_path, fake_rules):
    module = load(PLAIN, tmp_path)
    mend(module.fails, rules=MARK)  # the rewrite adds a line above the raise

    with pytest.raises(ValueError) as caught:
        module.fails(1)

    frame = traceback.extract_tb(caught.value.__traceback__)[-1]
    assert frame.filename == module.__file__
    assert frame.line == "raise ValueError(z)"
    assert module.fails.__code__.co_firstlineno == module.fails.__wrapped__.__code__.co_firstlineno


def test_show_prints_the_mended_source(tmp_path, fake_rules, capsys):
    module = load(PLAIN, tmp_path)
    with pytest.raises(graphmend.GraphmendError, match="not mended"):
        show(module.plain)
    mend(module.plain, rules=MARK)

    source = show(module.plain)

    assert source.startswith("def plain(a, b=2, *, c=3):")
    assert "return _graphmend.__name__, a + b + c\n    pass\n" in source
    assert capsys.readouterr().out.strip() == source.strip()


def test_lines_limit_the_rewrite_to_reported_statements(tmp_path, fake_rules):
    module = load(
        """
        def original(*args):
            return "original"


        def two(x):
            a = original(x)
            b = original(x)
            return a, b
        """,
        tmp_path,
    )
    first_line = module.two.__code__.co_firstlineno

    mend_sites([(module.__file__, first_line + 2)], [module.two], rules=MARK)
    assert module.two(0) == ("original", "graphmend.runtime")

    mend_sites([(module.__file__, first_line + 1)], [module.two], rules=MARK)
    assert module.two(0) == ("graphmend.runtime", "graphmend.runtime")


def test_diagnosed_lines_add_to_static_matching():
    """``also_static``: the rules act on what they match statically and on
    the diagnosed lines besides (an ``if`` on a buffer is a tensor test only
    a diagnosis shows); neither alone finds both."""
    source = textwrap.dedent("""
        import torch


        def forward(self, x):
            if (x < 0).any():
                raise ValueError("negative")
            if self.mode == 0:
                x = x * 2
            return x
        """)
    buffer_test = source.splitlines().index("    if self.mode == 0:") + 1

    def sites(**options):
        return sorted((s.rule, s.lineno) for s in pipeline.transform_source(source, **options).sites)

    guard = [("trap", buffer_test - 2)]
    assert sites() == guard
    assert sites(lines=frozenset({buffer_test})) == [("where", buffer_test)]
    assert sites(lines=frozenset({buffer_test}), also_static=True) == [*guard, ("where", buffer_test)]


async def _coroutine():
    return 1


async def _async_generator():
    yield 1


def _generator():
    yield 1


def _exec_defined():
    namespace: dict = {}
    exec("def made_by_exec(x):\n    return original(x)\n", namespace)
    return namespace["made_by_exec"]


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda: len, "not a Python function"),
        (lambda: math.sqrt, "not a Python function"),
        (lambda: torch.add, "not a Python function"),
        (lambda: (1).__add__, "not a Python function"),
        (lambda: torch.nn.Linear, "a class"),
        (lambda: functools.partial(print, 1), "functools.partial"),
        (lambda: (lambda x: x), "lambda"),
        (lambda: _generator, "generator"),
        (lambda: _coroutine, "coroutine"),
        (lambda: _async_generator, "async generator"),
        (_exec_defined, "no source"),
    ],
)
def test_what_cannot_be_mended_is_returned_unchanged_with_a_reason(make, reason, caplog, fake_rules):
    obj = make()
    code = getattr(obj, "__code__", None)

    with caplog.at_level(logging.DEBUG, logger="graphmend"):
        assert mend(obj, rules=MARK) is obj

    assert getattr(obj, "__code__", None) is code
    assert getattr(obj, "__wrapped__", None) is None
    assert any(reason in record.getMessage() for record in caplog.records), caplog.text


def test_function_edited_since_import_is_left_alone(tmp_path, fake_rules, caplog):
    module = load(PLAIN, tmp_path)
    path = module.__file__
    with open(path) as file:
        text = file.read()
    with open(path, "w") as file:
        file.write(text.replace("a + b + c", "a - b - c"))
    import linecache

    linecache.checkcache(path)
    code = module.plain.__code__

    with caplog.at_level(logging.DEBUG, logger="graphmend"):
        mend(module.plain, rules=MARK)

    assert module.plain.__code__ is code
    assert "does not compile to the loaded code" in caplog.text


def test_runtime_alias_taken_by_the_module_is_a_reason(tmp_path, fake_rules, caplog):
    module = load(PLAIN, tmp_path)
    module._graphmend = "the user's own"
    code = module.plain.__code__

    with caplog.at_level(logging.DEBUG, logger="graphmend"):
        mend(module.plain, rules=MARK)

    assert module.plain.__code__ is code
    assert module._graphmend == "the user's own"
    assert "already binds '_graphmend'" in caplog.text


def test_callable_instance_mends_its_class_call(tmp_path, fake_rules):
    module = load(
        """
        def original(*args):
            return "original"


        class Greeter:
            def __call__(self, x):
                return original(x)
        """,
        tmp_path,
    )
    greeter = module.Greeter()

    assert mend(greeter, rules=MARK) is greeter
    assert greeter(1) == "graphmend.runtime"


def test_non_callable_is_an_error():
    with pytest.raises(graphmend.GraphmendError, match="not int"):
        mend(3)


MODEL = """
import torch
from torch import nn


def original(*args):
    return "original"


def helper(x):
    return x + 1, original()


class Block(nn.Module):
    def forward(self, x):
        return helper(x)[0] * 2, original()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.linear = nn.Linear(2, 2)

    def forward(self, x):
        y, tag = self.block(x)
        return self.linear(y), tag, original()
"""


def test_module_mends_forward_and_what_it_reaches(tmp_path, fake_rules):
    module = load(MODEL, tmp_path)
    model = module.Model()
    linear_forward = torch.nn.Linear.forward.__code__
    x = torch.ones(1, 2)
    expected = model(x)[0]

    assert mend(model, rules=MARK) is model

    out, tag, own = model(x)
    assert (tag, own) == ("graphmend.runtime", "graphmend.runtime")
    assert module.helper(x)[1] == "graphmend.runtime"
    assert torch.equal(out, expected)
    assert torch.nn.Linear.forward.__code__ is linear_forward  # another module: untouched

    unmend(model)
    assert model(x)[1:] == ("original", "original")
    assert module.helper(x)[1] == "original"


def test_module_option_names_the_modules_to_mend(tmp_path, fake_rules):
    module = load(MODEL, tmp_path)
    model = module.Model()

    mend(model, modules=["torch.nn.modules.nothing_here"], rules=MARK)

    # the model's own forward is always mended; its module's helpers were not named
    assert model(torch.ones(1, 2))[1:] == ("original", "graphmend.runtime")
    unmend(model)


def test_torch_compile_of_a_mended_module(tmp_path, fake_rules):
    module = load(MODEL, tmp_path)
    model = module.Model()
    x = torch.ones(1, 2)
    mend(model, rules=MARK)
    expected = model(x)
    torch._dynamo.reset()

    compiled = torch.compile(graphmend.mending.live.mend(model, rules=MARK), backend="eager")

    out = compiled(x)
    assert out[1:] == ("graphmend.runtime", "graphmend.runtime")
    assert torch.equal(out[0], expected[0])
    unmend(model)


DEFINED_UNDER_AN_IF = """
import torch


def configure():
    torch.set_default_dtype(torch.float32)


if torch.__version__:
    configure()

    def double(x):
        if x.sum() > 0:
            x = x * 2
        return x
"""


def test_a_function_defined_under_a_module_level_if_is_mended(tmp_path):
    # Its skeleton keeps the module-level `if` around it, whose arm calls a helper: no function's facts there.
    module = load_module(DEFINED_UNDER_AN_IF, tmp_path, "under_if")
    graphmend.mend(module.double)
    assert "_graphmend.where" in graphmend.show(module.double)
    assert torch.equal(module.double(torch.ones(2)), torch.full((2,), 2.0))


EFFECT_HELPERS = '''
import functools
import warnings


def warn_once(message):
    warnings.warn(message)


def only_on_rank_zero(function):
    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapped


@only_on_rank_zero
def rank_zero_warn(message):
    warn_once(message)


def first(x):
    rank_zero_warn("first")
    return x


def second(x):
    rank_zero_warn("second")
    return len(x)
'''


def _judgements(monkeypatch) -> list[tuple[object, int]]:
    """Each (object, depth) ``effect_helpers_of`` judges from now on, in order."""
    from graphmend.mending import callees

    judged = []
    judge = callees._judge_effect_helper
    monkeypatch.setattr(callees, "_judge_effect_helper",
                        lambda value, depth, memo: judged.append((value, depth)) or judge(value, depth, memo))
    return judged


def test_the_message_helpers_of_a_files_functions_are_each_judged_once(tmp_path, monkeypatch):
    """A wrapper whose only effect is a warning, called by both functions,
    is a message helper of both, and judged once for the two: a file's
    functions share their globals."""
    from graphmend.mending import callees

    module = load_module(EFFECT_HELPERS, tmp_path)
    judged = _judgements(monkeypatch)
    assert callees.effect_helpers_of([module.first, module.second]) == {"rank_zero_warn"}
    assert judged.count((module.rank_zero_warn, 0)) == 1


NOT_A_HELPER = '''
import warnings


def warn_once(message):
    warnings.warn(message)


def total_and_warn(x):
    total = x.sum()
    warn_once("summed")
    return total


def caller(x):
    return total_and_warn(x)
'''


def test_a_function_that_is_no_helper_even_if_its_callees_were_has_them_left_unjudged(tmp_path, monkeypatch):
    """``total_and_warn`` computes a sum: no helper whatever ``warn_once``
    is, so ``warn_once`` is not judged for it (most of the functions a
    library's code names fail that way, and their callees cost the
    judging)."""
    from graphmend.mending import callees

    module = load_module(NOT_A_HELPER, tmp_path)
    judged = _judgements(monkeypatch)
    assert callees.effect_helpers_of([module.caller]) == frozenset()
    assert [value for value, _ in judged] == [module.total_and_warn]
    assert callees.effect_helpers_of([module.total_and_warn]) == {"warn_once"}
