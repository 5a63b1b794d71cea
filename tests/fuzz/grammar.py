"""A grammar of small PyTorch functions, as Hypothesis strategies.

A program is a function ``f(x, y, acc, ns)``: ``x`` and ``y`` are float32
tensors of shape (4,), ``acc`` a list it may append to and ``ns`` a
namespace it may store attributes on (the runner observes both, and the
inputs, after the call).  Its body is a tree of :class:`Stmt` nodes drawn
from everything the rules touch -- data-dependent ``if``/``elif``/``else``
(nested), conditional expressions, early returns, ``print``/logger/
``warnings.warn`` with tensor arguments and f-strings, guards that raise,
``.item()`` and ``float()`` predicates, calls of helpers (pure and impure,
of this module and of :mod:`fuzz.helpers`; state helpers that update
``ns.buf``, a fresh zero tensor each call, in place) in arms, loop bodies and
messages, messages that read tensors
(``.item()``, ``.tolist()``, ``int``, ``repr``), a library's message helper given
tensors, shapes, a class or an object, reduction axes from
``torch.arange(...).tolist()``, flags reset in tensor arms and tested
after, integer indices (some out of range) right of ``or``, chained
comparisons, unique values tested under ``any``/``all``, 0-dim indices,
data-dependent shapes and scalars ([Capture]'s DS / SCALAR sites: mask
indexing, ``nonzero``, ``masked_select``, ``unique``, ``repeat_interleave``,
``.item()`` / ``int(t)`` as a size, a bound or a value, ``.tolist()`` loops,
per-group loops over ``torch.unique``, selections of none, one or many
elements, custom operators with a data-dependent output size, one-hots as
wide as the data says; at the top, in arms and in loop bodies, and values of a dynamic shape
returned) -- and everything that must stop
them: in-place updates, aliases, list appends, attribute stores, static
Python tests and values of other shapes or dtypes.

The tree (not only its text) is kept so that ``runner.reduce`` can delete
statements and flatten ``if``s of a failing program.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

INPUTS = ("x", "y")
HEADER = """\
import logging
import warnings

import torch
from fuzz.helpers import (describe_other, grow_other, kept, kept_claims_one, prints_other, pure_other, raises_other,
                          view_other, writes_other)

logger = logging.getLogger("gm.fuzz")
logger.setLevel(logging.DEBUG)


# A library's warning helper: its only effect is a message.
def report(message, value):
    print("report:", message, value)


# Helpers of this module: pure (one indexes with a literal), and ones
# that write an attribute, print or draw random numbers.
def _pure_same(a, b):
    return torch.maximum(a * 0.5, b) - 1


def _grow_same(a):
    return a + a.abs()


def _index_same(a):
    return a - a[0]


def _describe_same(a):
    return a.shape[0]


def _writes_same(ns, a):
    ns.seen = a.sum()
    return a * 2


def _prints_same(a):
    print("same:", a.sum())
    return a + 1


def _random_same(a):
    return a + torch.rand_like(a) * 0


# State helpers, called for their effects under a tensor test: ns.buf (a
# fresh zero (4,) tensor each call) updated in place -- predicated by
# [Where] -- and, in the last two, something a predicated call must not do
# whether or not its test holds (a Python store, an index from a tensor).
def _state_copy(ns, a):
    ns.buf.copy_(a)


def _state_lerp(ns, a):
    ns.buf.lerp_(a * 2, 0.25)
    ns.buf.add_(1.0)


def _state_count(ns, a):
    ns.buf.copy_(a)
    ns.count += 1


def _state_index(ns, a):
    ns.buf.copy_(a[(a > 100).long()])


# ema-pytorch's get_current_decay: 0.0, or a value read back.
def _decay(a):
    value = (a.abs().mean() / (1 + a.abs().mean())).clamp(max=0.999)
    if a.sum().item() <= 0:
        return 0.0
    return value.item()


def _state_decay(ns, a):
    ns.buf.lerp_(a, 1.0 - _decay(a))


# An object a message shows (Dynamo cannot replay it), with a fixed text.
class Tag:
    def __repr__(self):
        return "Tag()"

"""


@dataclass(frozen=True)
class Stmt:
    """One statement; ``body``/``orelse`` hold the nested ones of an ``if``.

    ``text`` is the statement's first line (``if <test>:`` for an ``if``);
    ``elifs`` are ``(test, body)`` pairs of an ``if`` chain.
    """

    text: str
    body: tuple[Stmt, ...] = ()
    elifs: tuple[tuple[str, tuple[Stmt, ...]], ...] = ()
    orelse: tuple[Stmt, ...] = ()

    def lines(self, indent: str) -> list[str]:
        out = [indent + self.text]
        if self.text.startswith(("while ", "for ")):
            return out + _block(self.body, indent + "    ")
        if not self.text.startswith("if "):
            return out
        out += _block(self.body, indent + "    ")
        for test, body in self.elifs:
            out.append(f"{indent}elif {test}:")
            out += _block(body, indent + "    ")
        if self.orelse:
            out.append(f"{indent}else:")
            out += _block(self.orelse, indent + "    ")
        return out


def _block(body: tuple[Stmt, ...], indent: str) -> list[str]:
    lines = [line for stmt in body for line in stmt.lines(indent)]
    return lines or [indent + "pass"]


@dataclass(frozen=True)
class Program:
    """A function ``f`` (renamed when rendered) and whether to run it with
    inputs requiring grad, or (``inference``) under ``torch.no_grad()``."""

    body: tuple[Stmt, ...]
    grad: bool = False
    name: str = "f"
    inference: bool = False

    def source(self, name: str | None = None) -> str:
        lines = [f"def {name or self.name}(x, y, acc, ns):"]
        lines += _block(self.body, "    ")
        return "\n".join(lines) + "\n"

    def module(self) -> str:
        return HEADER + self.source()

    def __repr__(self) -> str:  # Hypothesis prints the falsifying program as code
        return f"Program(grad={self.grad}, inference={self.inference}):\n{self.source()}"

    def with_body(self, body: tuple[Stmt, ...]) -> Program:
        return replace(self, body=body)


@dataclass(frozen=True)
class SourceProgram:
    """A program kept as text (a saved regression): ``def f(x, y, acc, ns):``."""

    text: str
    grad: bool = False
    inference: bool = False

    def source(self, name: str | None = None) -> str:
        return self.text.replace("def f(", f"def {name or 'f'}(", 1)

    @classmethod
    def from_file(cls, text: str) -> SourceProgram:
        """A regression file: a comment saying what it caught, ``GRAD = ...``
        (and ``INFERENCE = True`` where it ran under ``torch.no_grad()``)
        and ``def f(x, y, acc, ns):``."""
        return cls(text[text.index("def f(") :], "GRAD = True" in text, "INFERENCE = True" in text)


# -- expressions ------------------------------------------------------------------

# Same shape and dtype as the inputs, so torch.where can merge them exactly.
_UNARY = ("{a} * 2", "{a} - 1.5", "torch.sin({a})", "torch.relu({a})", "torch.exp({a})",
          "torch.log({a})", "-{a}", "{a}.abs()", "torch.tanh({a})", "{a}.clone()",
          "{a}.sum() * {a}", "torch.sqrt({a})", "pow({a}, 2)", "{a} * float({a}.sum())", "{a}[0] * {a}",
          "{a}.amax(dim=torch.arange({a}.dim()).tolist(), keepdim=True) * {a}")  # fmt: skip
_BINARY = ("{a} + {b}", "{a} * {b}", "{a} / {b}", "torch.where({a} > 0, {a}, {b})",
           "torch.maximum({a}, {b})", "{a} - {b}")  # fmt: skip
# Calls of helpers, read from their source: pure ones (of this module and
# another), and ones with an effect the rules must see.
_HELPER_CALLS = ("_pure_same({a}, {b})", "pure_other({a}, {b})", "_index_same({a})", "view_other({a}) * 1",
                 "_grow_same({a})", "grow_other({a})", "_writes_same(ns, {a})", "writes_other(ns, {a})",
                 "_prints_same({a})", "prints_other({a})", "_random_same({a})", "raises_other({a})")  # fmt: skip
# Other shapes or dtypes: [Where] must fall back to the Python choice.
_ODD = ("{a}.sum()", "{a}.double()", "{a}[:2]", "{a}.long()", "3.0", "None",
        "{a}.sum(dim=torch.arange(0, {a}.dim()).tolist())")

_SCALAR = ("{a}.sum()", "{a}.mean()", "{a}.max()", "{a}.min()", "{a}[0]", "{a}[-1]")
_COMPARE = ("> 0", "< 0", ">= 0.5", "< 1", "> -1", "!= 0")


@st.composite
def tensor_expr(draw, names: tuple[str, ...], odd: bool = True) -> str:
    kind = draw(st.sampled_from(("name", "unary", "unary", "binary", "binary", "helper") + (("odd",) if odd else ())))
    a = draw(st.sampled_from(names))
    if kind == "name":
        return a
    if kind == "helper":
        return draw(st.sampled_from(_HELPER_CALLS)).format(a=a, b=draw(st.sampled_from(names)))
    if kind == "unary":
        return draw(st.sampled_from(_UNARY)).format(a=a)
    if kind == "odd":
        return draw(st.sampled_from(_ODD)).format(a=a)
    return draw(st.sampled_from(_BINARY)).format(a=a, b=draw(st.sampled_from(names)))


@st.composite
def predicate(draw, names: tuple[str, ...]) -> str:
    a = draw(st.sampled_from(names))
    scalar = draw(st.sampled_from(_SCALAR)).format(a=a)
    compare = draw(st.sampled_from(_COMPARE))
    kind = draw(st.sampled_from(("tensor", "tensor", "tensor", "any", "item", "float", "static", "and", "not",
                                 "function_form", "or_any", "bool", "or_index", "chain", "equal")))
    if kind == "any":
        return f"({a} {compare}).{draw(st.sampled_from(('any', 'all')))}()"
    if kind == "function_form":
        reduction = draw(st.sampled_from(("any", "all")))
        negated = draw(st.sampled_from(("", "not ")))
        return f"{negated}torch.{reduction}({a} {compare})"
    if kind == "or_any":
        other = draw(st.sampled_from(names))
        return f"torch.any({a} {compare}) or torch.any({other} > 1)"
    if kind == "bool":
        return f"bool({scalar} {compare})"
    if kind == "chain":  # split at a name; a call in the middle declines
        middle = draw(st.sampled_from((a, scalar)))
        return f"-1 < {middle} {draw(st.sampled_from(('<', '<=')))} {draw(st.sampled_from(('1', '2.5')))}"
    if kind == "or_index":  # an integer index in the right operand; 5 is out of range
        other, index = draw(st.sampled_from(names)), draw(st.sampled_from(("0", "-1", "3", "5")))
        return f"{scalar} {compare} or {other}[{index}] > 0"
    if kind == "equal":  # pytorch-ignite's binary check; two names keep torch.equal
        other = draw(st.sampled_from((f"{a} ** 2", f"{a} * 1", f"{a}.round() * 1", *names)))
        return f"{draw(st.sampled_from(('', 'not ')))}torch.equal({a}, {other})"
    if kind == "item":
        return f"{scalar}.item() {compare}"
    if kind == "float":
        return f"float({scalar}) {compare}"
    if kind == "static":  # a Python bool: must stay a Python test
        return draw(st.sampled_from((f"{a}.dim() == 1", f"{a}.shape[0] > 2", "len(acc) > 0", "hasattr(ns, 'v')")))
    if kind == "and":
        other = draw(st.sampled_from(names))
        return f"{scalar} {compare} and {other}.sum() > 0"
    if kind == "not":
        return f"not ({scalar} {compare})"
    return f"{scalar} {compare}"


# -- statements -------------------------------------------------------------------

_MESSAGES = ("step", "value is", "gm")


@st.composite
def effect(draw, names: tuple[str, ...]) -> Stmt:
    """print / logger / warnings.warn with tensor arguments and f-strings."""
    a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    word = draw(st.sampled_from(_MESSAGES))
    text = draw(
        st.sampled_from(
            (
                f"print({a})",
                f'print("{word}", {a}.sum())',
                f'print(f"{word} {{{a}}} {{{b}.sum()}}")',
                f'print({a}, {b}, sep="|", end=";\\n")',
                f'logger.info("{word} %s", {a})',
                f'logger.warning(f"{word} {{{a}.max()}}")',
                f'logger.debug("%s and %s", {a}.sum(), {b})',
                f'logger.error("{word}")',
                f'warnings.warn(f"{word} {{{a}}}")',
                f'warnings.warn("{word}", RuntimeWarning)',
                f'warnings.warn(f"{word} {{{a}.sum()}}", FutureWarning)',
                f"print({a}.shape)",
                f"print({a}.dtype, {a}.device, None, ({a}.shape[0], [1, 2.5]))",
                f'logger.info("shape %s of %s", {a}.shape, {a}.dtype)',
                f'report("{word}", {a}.sum())',
                f'report("{word}", {a}.shape)',
                f'report("{word}", UserWarning)',
                f'report("{word}", Tag())',
                f'print("{word}", _pure_same({a}, {b}))',
                f'logger.info("{word} %s", pure_other({a}, {b}))',
                f'print("{word}", describe_other({a}), _describe_same({b}))',
            )
        )
    )
    return Stmt(text)


@st.composite
def guard(draw, names: tuple[str, ...]) -> Stmt:
    a = draw(st.sampled_from(names))
    raise_ = draw(
        st.sampled_from(
            (
                'raise ValueError("bad input")',
                f'raise RuntimeError(f"bad {{{a}}}")',
                "raise AssertionError",
                f'raise ValueError(f"sum {{{a}.sum()}}")',
                f'raise ValueError(f"shape {{tuple({a}.shape)}} max {{{a}.max()}} n={{len({a})}}")',
                f'raise ValueError(f"max {{{a}.max().item():.3f}} all {{{a}.tolist()}} n={{int({a}.sum())}}", repr({a}.min()))',
                f'raise ValueError(f"shape {{describe_other({a})}} rows {{_describe_same({a})}}")',
                f'raise ValueError(f"value {{_pure_same({a}, {a})}}")',
                f'raise ValueError(f"printed {{_prints_same({a})}}")',
            )
        )
    )
    if draw(st.integers(0, 4)) == 0:
        message = draw(st.sampled_from(("", f', f"not finite: {{{a}.shape}}"', ', "bad"',
                                        f', "sum {{}}".format({a}.sum().item())')))
        return Stmt(f"assert {draw(st.sampled_from((f'torch.isfinite({a}).all()', f'({a} > -50).all()', f'{a}.sum() < 1000')))}{message}")
    return Stmt(f"if {draw(predicate(names))}:", body=(Stmt(raise_),))


#: Data-dependent sites a loop body adds to its growing local ``{w}``
#: (at least 1 everywhere, or nan): none is negative, so the loop still ends.
_LOOP_SITES = ("{w}[{w} > 2].sum() * 0.5", "int(({w} > 3).sum().item())", "{w}.max().item()",
               "torch.nonzero({w} >= 2).numel()", "torch.masked_select({w}, {w} < 4).mean()",
               "len({w}.tolist())")  # fmt: skip


@st.composite
def loop(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """A loop on a tensor that ends: a fresh local grows until a bound."""
    a = draw(st.sampled_from(scope.names()))
    w = scope.new()
    grow = draw(st.sampled_from((f"{w} * 2", f"{w} * 2 + 1", f"{w} + {w}.abs()", f"_grow_same({w})",
                                 f"grow_other({w})", f"_grow_same({w}) + _pure_same({a}, {a}).sum() * 0",
                                 f"_prints_same({w}) * 2", f"view_other({w}) * 2", f"_writes_same(ns, {w})",
                                 *(f"{w} * 2 + {site.format(w=w)}" for site in _LOOP_SITES))))
    return (Stmt(f"{w} = {a}.abs() + 1"), Stmt(f"while {w}.sum() < 50:", body=(Stmt(f"{w} = {grow}"),)))


@st.composite
def flag(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """A flag set from a test, reset in tensor arms, and only tested after
    (torchdiffeq's ``accept_step``); not a tensor name for expressions."""
    names = scope.names()
    name = scope.new_flag()
    resets = tuple(
        Stmt(f"if {draw(predicate(names))}:", body=(Stmt(f"{name} = {draw(st.sampled_from(('False', 'True')))}"),))
        for _ in range(draw(st.integers(1, 2)))
    )
    test = draw(st.sampled_from((name, f"not {name}", f"{name} and {draw(predicate(names))}")))
    outer = list(scope.locals)
    body = draw(statements(scope, 1, 3))
    scope.locals[:] = outer
    orelse = draw(st.one_of(st.just(()), statements(scope, 1, 3)))
    scope.locals[:] = outer
    return (Stmt(f"{name} = {draw(predicate(names))}"), *resets, Stmt(f"if {test}:", body=body, orelse=orelse))


@st.composite
def index_ternary(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """An index a test bounds below, read in the arm the test guards
    (diffusers' ``alphas_cumprod[prev_t] if prev_t >= 0 else one``): the
    index may be negative, past the start too, where the arm is not taken."""
    names = scope.names()
    a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    index = scope.new()
    offset = draw(st.sampled_from(("1", "2", "5")))
    test = draw(st.sampled_from((f"{index} >= 0", f"{index} > 0", f"0 <= {index}")))
    return (Stmt(f"{index} = {a}.argmax() - {offset}"),
            Stmt(f"{scope.new()} = {a}[{index}] * {b} if {test} else {b}"))


@st.composite
def rebound_after_if(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """A name an ``if`` binds, rebound to a new tensor by the next statement,
    then an in-place update (torchdiffeq's ``dt = dt.clamp(...)``)."""
    names = scope.names()
    name = scope.new()
    update = draw(st.sampled_from(("x.add_(0.5)", f"{name}.add_(1)", f"{name} += {draw(st.sampled_from(names))}")))
    return (Stmt(f"{name} = {draw(st.sampled_from(names))}.abs() + 1"),
            Stmt(f"if {draw(predicate(names))}:", body=(Stmt(f"{name} = {draw(st.sampled_from(names))}"),)),
            Stmt(f"{name} = {name}.clamp(-2, 2)"), Stmt(update))


#: One read of ``{a}`` through an operation whose derivative depends on
#: its value (and a few that do not).
_ONE_READ = ("torch.exp({a})", "torch.sqrt({a})", "torch.log({a})", "torch.sin({a})", "torch.tanh({a})",
             "torch.sigmoid({a})", "{a}.abs()", "{a} * 2", "-{a}", "pow({a}, 2)", "{a} / 3")  # fmt: skip


@st.composite
def one_read_arms(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """An ``if`` whose arms each read one name once (under autograd a
    ``torch.cond`` merges them), the name read again after the ``if``
    (its gradients from inside and outside the arm add up), with or
    without an ``else``."""
    names = scope.names()
    a = draw(st.sampled_from(names))
    target = scope.new()
    then = Stmt(f"{target} = {draw(st.sampled_from(_ONE_READ)).format(a=a)}")
    other = Stmt(f"{target} = {draw(st.sampled_from(_ONE_READ)).format(a=a)}")
    after = Stmt(f"{scope.new()} = {target} * {a}")
    if draw(st.booleans()):
        return (Stmt(f"if {draw(predicate(names))}:", body=(then,), orelse=(other,)), after)
    return (other, Stmt(f"if {draw(predicate(names))}:", body=(then,)), after)


#: Values of a store through ``{m}``: exact element-wise ones (each operand
#: read once, or twice: not under autograd), and ones [Where] declines.
_MASKED_VALUES = ("1 - {a}[{m}] / {b}[{m}]", "({a}[{m}] * {b}[{m}]).sqrt()", "-{a}[{m}].abs() * 0.5",
                  "{a}[{m}] * {a}[{m}]", "({a}[{m}] / 3).squeeze().to({t}.dtype)", "torch.exp({a}[{m}])",
                  "{a}[{m}] + {b}.sum()")  # fmt: skip
_MASKS = ("{a} > 0", "{b} != 0", "{a} > 1000", "{a} > -1000", "torch.isfinite({a} / {b})")
_MASKED_TARGETS = ("torch.zeros_like({a})", "{b}.clone()", "{a} * 1", "torch.full_like({a}, float('nan'))")


@st.composite
def masked_store(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """torchmetrics' masked scores: a store through a bool mask (selecting
    some, none or every element) that its value indexes with too, dividing
    by zeros the mask leaves out; into a fresh tensor, or into an input."""
    a, b = draw(st.sampled_from(INPUTS)), draw(st.sampled_from(INPUTS))
    mask = scope.new_mask()
    target = draw(st.sampled_from((scope.new(), draw(st.sampled_from(INPUTS)))))
    stores = [Stmt(f"{mask} = {draw(st.sampled_from(_MASKS)).format(a=a, b=b)}")]
    if target not in INPUTS:
        stores.append(Stmt(f"{target} = {draw(st.sampled_from(_MASKED_TARGETS)).format(a=a, b=b)}"))
    value = draw(st.sampled_from(_MASKED_VALUES)).format(a=a, b=b, m=mask, t=target)
    return (*stores, Stmt(f"{target}[{mask}] = {value}"))


#: 0-dim indices made in the graph (some out of range, some negative), and
#: reads with them of a (4,) or (4, 4) tensor.
_SCALAR_INDICES = ("{a}.argmax()", "{a}.argmax() - 1", "{a}.argmin() - 5", "{a}.argmin() + 3",
                   "torch.bucketize({a}.sum(), torch.tensor([-1.0, 0.0, 1.0]))")
_SCALAR_READS = ("{v}[{i}]", "{v}[{i} + 1]", "{m}[:, {i}]", "{m}[..., {i}]", "{m}[1:, {i}]", "{m}[{i}, None]",
                 "{m}[{i}, ...]", "{m}[-1, {i}]")  # fmt: skip


@st.composite
def scalar_index(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """torchcde's interpolation: a 0-dim integer index made in the graph,
    then reads with it that arithmetic uses, directly or through a name
    (or that are returned as they are, a view [Where] leaves alone)."""
    names = scope.names()
    a, v = draw(st.sampled_from(names)), draw(st.sampled_from(INPUTS))
    index, matrix = scope.new(), scope.new()
    head = [Stmt(f"{index} = {draw(st.sampled_from(_SCALAR_INDICES)).format(a=a)}"),
            Stmt(f"{matrix} = torch.outer({v}, {draw(st.sampled_from(INPUTS))})")]
    read = draw(st.sampled_from(_SCALAR_READS)).format(v=v, m=matrix, i=index)
    # A comparison is used as a number: a bool name would reach ``.abs()``,
    # which has no bool kernel, a failure on every input whatever the rules
    # do (and one a deferred message before it cannot survive, see README).
    use = draw(st.sampled_from(("{r} * 2 + 1", "{r} - {b}.sum()", "-{r}", "({r} > 0.5) * 1.0")))
    b = draw(st.sampled_from(names))
    if draw(st.booleans()):
        return (*head, Stmt(f"{scope.new()} = {use.format(r=read, b=b)}"))
    name = scope.new()
    return (*head, Stmt(f"{name} = {read}"), Stmt(f"{scope.new()} = {use.format(r=name, b=b)}"))


#: Bin edges over [-1, 1] (the last a little past 1): a bin index is out of
#: range exactly where the domain guard fails.
_DOMAIN_EDGES = "torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0001])"
_BIN_READS = ("{v}.gather(0, {i})", "{v}[{i}]", "torch.index_select({v}, 0, {i})")


@st.composite
def domain_guard(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """nflows' spline: a domain guard on an input, then a bin index computed
    from it (``searchsorted``-like), which indexes another tensor: out of
    range, the index fails exactly where the guard should raise first."""
    a, v = draw(st.sampled_from(INPUTS)), draw(st.sampled_from(INPUTS))
    index = scope.new()
    raise_ = Stmt('raise ValueError("outside the domain")')
    read = draw(st.sampled_from(_BIN_READS)).format(v=v, i=index)
    return (Stmt(f"if torch.min({a}) < -1.0 or torch.max({a}) > 1.0:", body=(raise_,)),
            Stmt(f"{index} = torch.sum({a}[..., None] >= {_DOMAIN_EDGES}, dim=-1) - 1"),
            Stmt(f"{scope.new()} = {read} * 2"))


#: Element-wise tests of unique values under any/all (``{k}``: what they compare with).
_UNIQUE_TESTS = ("torch.any(({u} > 1) & ({u} != {k}))", "(~torch.isnan({u}) & ({u} >= {k})).all()",
                 "torch.all({u} != {k})", "{u}.isfinite().all()", "torch.any({u} < {k})")  # fmt: skip


@st.composite
def unique_check(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """torchmetrics' label check: the unique values of rounded data,
    tested element by element under ``any``/``all`` against a number, a
    local number or a 0-dim tensor (not a (4,) one: unique values are
    fewer on most rows, a shape error), maybe after other code, then a guard whose
    message shows them (or a read that needs them: ``len``, ``.sum()``)."""
    names = scope.names()
    rounded, unique = scope.new(), scope.new_unique()
    k = draw(st.sampled_from(("0", "-1", "2.5", "lim", *(f"{name}.sum()" for name in names))))
    test = draw(st.sampled_from(_UNIQUE_TESTS)).format(u=unique, k=k)
    show = draw(st.sampled_from((f"{{{unique}}}", f"{{{unique}.tolist()}} of {{{rounded}.shape}}", f"{{len({unique})}}",
                                 f"{{{unique}}}")))
    head = [Stmt("lim = 1"), Stmt(f"{rounded} = {draw(st.sampled_from(names))}.round()"),
            Stmt(draw(st.sampled_from((f"{unique} = torch.unique({rounded})", f"{unique} = {rounded}.unique()",
                                       f"{unique} = torch.unique({rounded}, sorted=False)"))))]
    if draw(st.booleans()):
        head.append(draw(statement(scope, 1 if draw(st.booleans()) else 2)))
    if draw(st.integers(0, 5)) == 0:  # a read that needs the unique values
        head.append(Stmt(f"{scope.new()} = {rounded} * {unique}.sum()"))
    raise_ = Stmt(f'raise ValueError(f"values {show}")')
    if draw(st.booleans()):
        return (*head, Stmt(f"if {test}:", body=(raise_,)))
    check = scope.new_flag()
    return (*head, Stmt(f"{check} = {test}"), Stmt(f"if {check}:", body=(raise_,)))


# -- data-dependent shapes and scalars ([Capture]'s DS / SCALAR sites) --------------

#: Bool masks of an input: on some row each selects none, one, some or every element.
_DS_MASKS = ("{a} > 0", "{a} < 0.5", "{a} != 0", "{a} > 1000", "{a} > -1000", "{a} >= {a}.min()",
             "{a} >= {a}.max()", "{a} == {a}[2]")  # fmt: skip
#: A number of elements, 0 to 4, read from a mask ``{m}``: a size or a bound.
_DS_COUNTS = ("int({m}.sum().item())", "int({m}.sum())", "{m}.sum().item()", "int(torch.count_nonzero({m}))",
              "len(torch.nonzero({m}))")  # fmt: skip
#: (4,) float32 values from a data-dependent shape or a scalar read from a
#: tensor: ``{a}``, ``{b}`` inputs, ``{m}`` a mask.  Each is legal on every
#: input (an empty selection is summed, never ``max``-ed), so an arm the
#: mended code runs though it is not taken cannot fail.
_DS_VALUES = (
    "{a}[{m}].sum() * {b}", "{a}[{m}].mean() + {b}", "{a}[{m}].abs().sum() * {b}", "{a}[{m}].numel() * {b}",
    "{a}[torch.nonzero({m}).squeeze(1)].sum() * {b}", "{b}.index_select(0, torch.nonzero({m})[:, 0]).sum() + {a}",
    "{a}.gather(0, torch.nonzero({m}, as_tuple=True)[0]).mean() * {b}", "{a}[torch.where({m})[0]].sum() + {b}",
    "{a}[{m}.nonzero().flatten()].sum() * {b}", "torch.masked_select({a}, {m}).sum() * {b}",
    "{a}.masked_select({m}).numel() + {b}", "{a} * {b}.max().item()", "torch.clamp({a}, min={b}.min().item() - 1)",
    "{a} + {b}.sum().item()", "{a} / ({b}.abs().max().item() + 1)", "{a} * {b}.tolist()[0]",
    "{b} * sum({a}.tolist())", "{b} * sum({m}.long().tolist())", "{a} * max({m}.int().cumsum(0).tolist())", "{b} * torch.unique({a}.round()).numel()", "{b} + torch.unique({a}.round()).sum()",
    "{b} * len(torch.unique({m}))", "{b} * torch.unique({a}.round(), return_counts=True)[1].max()",
    "torch.repeat_interleave({a}, ({b} > 0).long() + 1).sum() * {b}",
    "{a}.repeat_interleave(({a} > 0).long()).sum() + {b}", "{a}[torch.repeat_interleave({m}.long())].sum() * {b}",
    # a selection of 0, 1 or many broadcast against a full row, sliced, or summed per row
    "({a}[{m}][:, None] * {b}).sum(0)", "{a}[{m}][:1].sum() * {b}", "({a}[{m}][None, :] + {b}[:, None]).sum(1)",
    # custom operators whose output size is data: one declares it as torchvision's nms does, one
    # claims a minimum of 1 its kernel does not keep (an assertion eager never makes)
    "{a}[kept({a})].sum() * {b}", "kept({a}).numel() + {b}", "{a}[kept({b})].sum() + {b}",
    "{b} * kept_claims_one({a}).numel()", "{a}[kept_claims_one({a})].sum() + {b}",
    # tensors made of Python values, read back (static reads, computed while tracing)
    "{b} * float(torch.tensor(0.37).log2().round())", "{a} + torch.tensor([1.5, -2.5]).abs().sum().item()",
    "{b} * int(torch.tensor(len({a}.shape) + 2).pow(2))", "{a} * sum(torch.as_tensor([0.5, 1.0]).cumsum(0).tolist())",
    "{a} - torch.log2(torch.tensor([0.25, 0.125][0], dtype=torch.float32)).item()",
)  # fmt: skip
#: The same from a count ``{n}`` (0 to 4) used as a size or a bound.
_DS_SIZED = ("torch.zeros({n}).sum() + {b}", "torch.ones({n}).sum() * {b}", "torch.arange({n}).float().sum() + {b}",
             "{a}[:{n}].sum() * {b}", "{a}[{n}:].sum() + {b}", "{a}.narrow(0, 0, {n}).sum() * {b}",
             "{b}.new_zeros({n}).sum() + {a}", "torch.full(({n},), 2.0).sum() * {b}", "{b} * {n}")  # fmt: skip
#: (4,) int64 labels for a one-hot (``{m}`` a mask): in range, or not (negative, a NaN cast).
_ONE_HOT_LABELS = ("{m}.long()", "({a}.abs() * 2).long().clamp(max=6)", "({a} * 2).long()", "{m}.long().cumsum(0)")
#: One-hot widths read from the data: as wide as the labels need (the "safe
#: one-hot"), a count (too narrow, even empty, for some rows), -1 (inferred).
_ONE_HOT_WIDTHS = ("max({c}.max() + 2, 3)", "{c}.max() + 1", "int({m}.sum()) + 1", "int({c}.max()) + 1",
                   "int({m}.sum())", "torch.tensor(-1)")  # fmt: skip
#: Values of a dynamic shape, returned as they are (compared with their shape).
DS_RETURNS = ("{a}[{a} > 0]", "torch.nonzero({a} < 0.5)", "torch.unique({a}.round())",
              "{a}[:int(({b} > 0).sum())]", "torch.masked_select({a}, {b} != 0)")  # fmt: skip


@st.composite
def data_dependent(draw, scope: "_Scope") -> tuple[Stmt, ...]:
    """[Capture]'s sites: mask-indexed reductions, ``nonzero`` gathers,
    ``masked_select``, ``unique``, ``repeat_interleave`` with tensor
    repeats, ``.item()`` / ``int(t)`` / ``len`` as a size, a bound or a
    value, and loops over ``.tolist()`` or ``range(n)`` of a count (some
    Dynamo cannot hold with the value captured: a guard on it, ``range``
    of it; those fall back).  Each binds a fresh (4,) float32 local that
    later statements may use; its helpers' names (masks, counts, loop
    variables) are not ones tensor expressions draw."""
    a, b = draw(st.sampled_from(INPUTS)), draw(st.sampled_from(INPUTS))
    mask_expr = draw(st.sampled_from(_DS_MASKS)).format(a=draw(st.sampled_from(INPUTS)))
    head: list[Stmt] = []
    if draw(st.booleans()):  # the mask through a name, or inline
        mask = scope.new_mask()
        head.append(Stmt(f"{mask} = {mask_expr}"))
    else:
        mask = f"({mask_expr})"
    kind = draw(st.sampled_from(("value", "value", "value", "sized", "sized", "tolist", "tolist_test",
                                 "range", "static_loop", "per_group", "one_hot")))
    if kind == "value":
        return (*head, Stmt(f"{scope.new()} = {draw(st.sampled_from(_DS_VALUES)).format(a=a, b=b, m=mask)}"))
    if kind == "one_hot":  # mixture-of-experts routing: a one-hot as wide as the data says
        labels, encoded = scope.new_aux("c"), scope.new_aux("h")
        width = draw(st.sampled_from(_ONE_HOT_WIDTHS)).format(c=labels, m=mask)
        cut = draw(st.sampled_from(("", "[..., :3]", "[:, :2]")))
        return (*head, Stmt(f"{labels} = {draw(st.sampled_from(_ONE_HOT_LABELS)).format(a=a, m=mask)}"),
                Stmt(f"{encoded} = torch.nn.functional.one_hot({labels}, {width}){cut}"),
                Stmt(f"{scope.new()} = {b} + {encoded}.sum(-1).float()"))
    if kind == "per_group":  # torchvision's per-class nms: groups of 1 to 4, each keeping 0, 1 or many
        groups, group, members, out = scope.new_aux("g"), scope.new_aux("v"), scope.new_aux("i"), scope.new()
        keep = draw(st.sampled_from((f"{members}[kept({a}[{members}])]", f"{members}[{a}[{members}] > 0]",
                                     members)))
        body = (Stmt(f"{members} = torch.where({groups} == {group})[0]"),
                Stmt(draw(st.sampled_from((f"{out} = {out} + {a}[{keep}].sum()",
                                           f"{out}[{keep}] = {b}[{keep}] * 2")))))
        return (*head, Stmt(f"{groups} = {draw(st.sampled_from((f'{a}.round()', f'({a} > 0).long()')))}"),
                Stmt(f"{out} = {b} * 1"), Stmt(f"for {group} in torch.unique({groups}):", body=body))
    count = draw(st.sampled_from(_DS_COUNTS)).format(m=mask)
    if kind == "sized":
        if draw(st.booleans()):
            n = scope.new_aux("n")
            head.append(Stmt(f"{n} = {count}"))
        else:
            n = count
        return (*head, Stmt(f"{scope.new()} = {draw(st.sampled_from(_DS_SIZED)).format(a=a, b=b, n=n)}"))
    item = scope.new_aux("e")
    # Dynamo captures the elements of an integer tensor's .tolist() only
    # (torch 2.13: "Tensor.tolist() with non-integer tensor" breaks).
    listed = draw(st.sampled_from((f"{a}.tolist()", f"{mask}.tolist()", f"{mask}.long().tolist()",
                                   f"{mask}.int().cumsum(0).tolist()")))
    if kind == "tolist":  # Python numbers summed in order: the graph must add them the same way
        total = scope.new_aux("s")
        return (*head, Stmt(f"{total} = 0.0"),
                Stmt(f"for {item} in {listed}:", body=(Stmt(f"{total} = {total} + {item}"),)),
                Stmt(f"{scope.new()} = {b} * {total}"))
    if kind == "tolist_test":  # a Python test of each captured number: a guard, so it falls back
        total = scope.new_aux("k")
        return (*head, Stmt(f"{total} = 0"),
                Stmt(f"for {item} in {listed}:", body=(Stmt(f"if {item}:", body=(Stmt(f"{total} = {total} + 1"),)),)),
                Stmt(f"{scope.new()} = {b} + {total}"))
    out = scope.new()
    if kind == "range":  # range() of a captured count needs a Python int: falls back
        return (*head, Stmt(f"{out} = {b} * 1"),
                Stmt(f"for {item} in range({count}):", body=(Stmt(f"{out} = {out} + {a}[{item}]"),)))
    # A loop Dynamo unrolls, a site in its body: two trips keep capture; from
    # three on, [Capture] gives the loop up at its first shape (its iterator
    # says how many trips are left), over a range or a list.
    value = draw(st.sampled_from(_DS_VALUES)).format(a=a, b=b, m=f"({a} > {item})")
    trips = draw(st.sampled_from((2, 2, 3, 4)))
    loop = f"range({trips})" if draw(st.booleans()) else f"[{', '.join(str(i) for i in range(trips))}]"
    return (*head, Stmt(f"{out} = {b} * 1"),
            Stmt(f"for {item} in {loop}:", body=(Stmt(f"{out} = {out} + {value}"),)))


@st.composite
def mutation(draw, names: tuple[str, ...], locals_: tuple[str, ...]) -> Stmt:
    """In-place updates (of locals and, through aliases, inputs), appends,
    attribute stores (into ``ns``, and into an object the function makes,
    which a deferred check may lose unseen), ``ns.count +=`` a number (a
    store) or a tensor (then an update in place of that tensor)."""
    a = draw(st.sampled_from(names))
    # In-place updates are drawn one time in four: [Where] declines a whole
    # function that has one, so more would hide most of its sites.
    if draw(st.integers(0, 3)) > 0:
        return Stmt(draw(st.sampled_from((f"acc.append({a})", f"acc.append({a}.sum())", f"ns.v = {a}",
                                          f"ns.n = {a}.max()", f"Tag().last = {a}", "ns.count += 1",
                                          f"ns.count += {a}.sum()"))))
    choices = ["x.add_(0.5)", "y[1] = -3.0"]
    if locals_:
        t = draw(st.sampled_from(locals_))
        choices += [f"{t}.add_(1)", f"{t}.mul_({a})", f"{t}[0] = 2.5", f"{t} += {a}"]
    return Stmt(draw(st.sampled_from(choices)))


class _Scope:
    """The names bound so far; a fresh local each time one is asked for."""

    def __init__(self) -> None:
        self.locals: list[str] = []
        self.flags = 0
        self.masks = 0
        self.uniques = 0
        self.aux = 0

    def names(self) -> tuple[str, ...]:
        return (*INPUTS, *self.locals)

    def new(self) -> str:
        name = f"v{len(self.locals)}"
        self.locals.append(name)
        return name

    def new_flag(self) -> str:
        self.flags += 1
        return f"flag{self.flags - 1}"

    def new_unique(self) -> str:
        """A name for unique values: other statements leave it alone (they
        would read it for more than a test), a few read it on purpose."""
        self.uniques += 1
        return f"uniq{self.uniques - 1}"

    def new_aux(self, prefix: str) -> str:
        """A count, a loop variable or a total: not a tensor name for expressions."""
        self.aux += 1
        return f"{prefix}{self.aux - 1}"

    def new_mask(self) -> str:
        """A bool mask's name, not one for tensor expressions."""
        self.masks += 1
        return f"mask{self.masks - 1}"


@st.composite
def state_helper(draw, scope: _Scope) -> tuple[Stmt, ...]:
    """``if <tensor test>:`` whose arm (and sometimes ``else`` arm) calls
    state helpers (issue #45 pattern 2): [Where] predicates the updates
    they make, or the call falls back to the ``if`` where a helper does
    more."""
    names = scope.names()

    def arm() -> tuple[Stmt, ...]:
        calls = draw(st.lists(st.sampled_from(("_state_copy", "_state_copy", "_state_lerp", "_state_decay",
                                                "_state_count", "_state_index")), min_size=1, max_size=2))
        body: list[Stmt] = []
        for call in calls:
            operand = draw(st.sampled_from(names))
            if draw(st.integers(0, 3)) == 0:  # a local of the arm, read by its next statement
                local = scope.new_aux("arm")
                body.append(Stmt(f"{local} = {operand} * 2"))
                operand = local
            statement = Stmt(f"{call}(ns, {operand})")
            if draw(st.integers(0, 4)) == 0:  # an if nested in the arm, on a test of its own
                statement = Stmt(f"if {draw(predicate(names))}:", body=(statement,))
            body.append(statement)
        return tuple(body)

    # One time in four the test reads a number back (`step = self.step.item()`, then `if step > 0:`).
    read = ()
    test = draw(predicate(names))
    if draw(st.integers(0, 3)) == 0:
        number = scope.new_aux("read")
        read = (Stmt(f"{number} = {draw(st.sampled_from(names))}.sum().item()"),)
        test = f"{number} > 0"
    # An else arm, one time in three: predicated on the test's `not`.
    body, orelse = arm(), arm() if draw(st.integers(0, 2)) == 0 else ()
    return (*read, Stmt(f"if {test}:", body=body, orelse=orelse),
            Stmt(f"{scope.new()} = {draw(st.sampled_from(names))} + ns.buf"))


#: Multi-statement forms drawn at the top of a function: (1 in odds, form),
#: tried in this order.
_TOP_LEVEL_FORMS = (
    (10, loop),
    (10, flag),
    (12, lambda scope: st.one_of(index_ternary(scope), rebound_after_if(scope))),
    (12, one_read_arms),
    (12, masked_store),
    (12, unique_check),
    (12, scalar_index),
    (12, domain_guard),
    (12, state_helper),
    (3, data_dependent),
)


@st.composite
def statements(draw, scope: _Scope, depth: int, size: int) -> tuple[Stmt, ...]:
    body = []
    for _ in range(draw(st.integers(1, size))):
        if depth == 0:
            drawn = next((draw(form(scope)) for odds, form in _TOP_LEVEL_FORMS
                          if draw(st.integers(0, odds - 1)) == 0), None)
            if drawn is not None:
                body.extend(drawn)
                continue
        elif draw(st.integers(0, 11)) == 0:  # in a tensor arm, where [Where] gates the store
            body.extend(draw(masked_store(scope)))
            continue
        elif draw(st.integers(0, 5)) == 0:  # a DS / SCALAR site in a tensor arm
            body.extend(draw(data_dependent(scope)))
            continue
        body.append(draw(statement(scope, depth)))
        if body[-1].text.startswith(("return", "raise")):
            break
    return tuple(body)


@st.composite
def statement(draw, scope: _Scope, depth: int) -> Stmt:
    kinds = ["assign", "assign", "assign", "effect", "effect", "mutate", "alias", "ternary", "guard"]
    if depth < 3:
        kinds += ["if", "if", "if"]
    if depth > 0:
        kinds += ["return", "raise"]
    kind = draw(st.sampled_from(kinds))
    names = scope.names()
    if kind == "assign":
        value = draw(tensor_expr(names))
        target = draw(st.sampled_from((*scope.locals, "new"))) if scope.locals else "new"
        return Stmt(f"{scope.new() if target == 'new' else target} = {value}")
    if kind == "alias":
        return Stmt(f"{scope.new()} = {draw(st.sampled_from(names))}")
    if kind == "effect":
        return draw(effect(names))
    if kind == "mutate":
        return draw(mutation(names, tuple(scope.locals)))
    if kind == "guard":
        return draw(guard(names))
    if kind == "ternary":
        test = draw(predicate(names))
        a, b = draw(tensor_expr(names)), draw(tensor_expr(names))
        return Stmt(f"{scope.new()} = {a} if {test} else {b}")
    if kind == "return":
        return Stmt(f"return {draw(return_value(names))}")
    if kind == "raise":  # a raise after other statements in an arm
        a = draw(st.sampled_from(names))
        return Stmt(draw(st.sampled_from((f'raise ValueError(f"arm {{tuple({a}.shape)}}")', "raise RuntimeError"))))
    # An ``if`` chain: a name first bound inside it is not visible after it
    # (it may be unbound), so the outer scope keeps only what it had.
    outer = list(scope.locals)
    test = draw(predicate(names))
    body = draw(statements(scope, depth + 1, 3))
    scope.locals[:] = outer
    elifs = []
    for _ in range(draw(st.integers(0, 2))):
        elif_test = draw(predicate(names))
        elifs.append((elif_test, draw(statements(scope, depth + 1, 3))))
        scope.locals[:] = outer
    orelse = draw(st.one_of(st.just(()), statements(scope, depth + 1, 3)))
    scope.locals[:] = outer
    return Stmt(f"if {test}:", body=body, elifs=tuple(elifs), orelse=orelse)


@st.composite
def return_value(draw, names: tuple[str, ...]) -> str:
    if draw(st.integers(0, 7)) == 0:  # a value of a data-dependent shape
        a, b = draw(st.sampled_from(INPUTS)), draw(st.sampled_from(INPUTS))
        return f"{draw(st.sampled_from(DS_RETURNS)).format(a=a, b=b)}, {draw(tensor_expr(names, odd=False))}"
    if draw(st.booleans()):
        return draw(tensor_expr(names))
    return f"{draw(tensor_expr(names))}, {draw(tensor_expr(names, odd=False))}"


@st.composite
def programs(draw) -> Program:
    scope = _Scope()
    body = draw(statements(scope, 0, 6))
    if not body[-1].text.startswith("return"):
        body += (Stmt(f"return {draw(return_value(scope.names()))}"),)
    grad = draw(st.booleans())
    return Program(body=body, grad=grad, inference=not grad and draw(st.booleans()))

