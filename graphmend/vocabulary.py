"""What graphmend knows about the callables code calls: one table.

Every rule asks the same questions of a call -- does it return a tensor, a
one-element bool, is it safe to evaluate when its branch is not taken, does
it update its argument, does it draw random numbers, is an argument an
index, is its derivative independent of values, does it print or log -- and
the answers live here, keyed by the qualified name of a ``torch`` function,
the name of a tensor method, or the name of a builtin.  The analysis, the
scan, diagnose and the runtime all read it.  It imports nothing: ``graphmend
fix`` runs without torch, and the runtime with torch alone.

The tables are timid: a name that is not listed is unknown, and an unknown
call makes a rule decline.
"""

from __future__ import annotations

import builtins


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Every name Python's builtins module defines.
BUILTIN_NAMES = frozenset(dir(builtins))


# -- torch functions (``torch.<name>``) and tensor methods (``t.<name>()``) ---------

#: ``torch.<name>(...)`` returns a tensor.
TENSOR_FUNCTIONS = _names(
    """abs all amax amin any argmax argmin clamp count_nonzero eq ge greater gt isfinite
    isinf isnan isneginf isposinf le less logical_and logical_not logical_or logical_xor
    lt max mean min ne norm prod sum tensor where maximum minimum sign sqrt exp log sin cos
    tanh sigmoid relu neg square isclose bucketize searchsorted"""
)
#: ``t.<name>(...)`` returns a tensor when ``t`` is one.
TENSOR_METHODS = _names(
    """abs all amax amin any argmax argmin bool clamp count_nonzero double eq float ge gt
    half isfinite isinf isnan le logical_not lt max mean min ne norm prod sum to"""
)
#: Tensor methods that return a new value and touch nothing else.
PURE_METHODS = _names(
    """abs all amax amin any argmax argmin bool clamp clamp_max clamp_min clone contiguous cos
    cumsum detach double exp expand expand_as flatten flip float half int isfinite isinf isnan log
    logical_not long masked_fill max maximum mean min minimum ne eq gt ge lt le neg norm permute
    pow prod reciprocal relu repeat reshape roll round rsqrt sigmoid sign sin softmax sqrt square
    squeeze sum t tanh tile to transpose type_as unsqueeze view where new_empty new_zeros new_ones
    new_full new_tensor"""
)
#: ``torch`` functions with effects beyond their result (random state, files).
IMPURE_FUNCTIONS = _names(
    """bernoulli dropout alpha_dropout feature_alpha_dropout manual_seed multinomial normal
    poisson rand rand_like randint randint_like randn randn_like randperm save load seed
    set_printoptions"""
)
#: In-place tensor methods that draw random numbers.
RANDOM_METHODS = _names("uniform_ normal_ bernoulli_ random_ exponential_ geometric_ cauchy_ log_normal_")
#: Those of :data:`IMPURE_FUNCTIONS` whose effect is not a random draw.
NOT_RANDOM = _names("save load set_printoptions")
#: torch functions whose first argument is not a tensor (sizes, data, dtypes).
NOT_TENSOR_FIRST = _names(
    """tensor as_tensor asarray scalar_tensor zeros ones full empty eye arange linspace logspace
    finfo iinfo is_tensor is_storage device dtype Size get_default_dtype promote_types result_type
    can_cast broadcast_shapes einsum"""
)
#: Tensor methods that may return their receiver or a view of it.
VIEW_METHODS = _names(
    """view view_as reshape reshape_as t transpose permute squeeze unsqueeze expand expand_as
    flatten unflatten narrow select contiguous to type_as detach float double half long int bool
    type movedim swapaxes chunk split unbind diagonal as_strided real imag broadcast_to
    broadcast_tensors atleast_1d atleast_2d atleast_3d as_tensor asarray dropout alpha_dropout
    feature_dropout feature_alpha_dropout moveaxis swapdims tensor_split hsplit vsplit dsplit
    view_as_real view_as_complex conj resolve_conj resolve_neg adjoint Parameter from_numpy
    frombuffer from_dlpack"""
)
#: The namespaces of torch whose functions are tensor operations: a result
#: is a new tensor unless the function is a view (``VIEW_METHODS``) or
#: writes ``out=``.  Elsewhere (``torch.utils.checkpoint``, ``torch.func``,
#: ``torch.cond``...) a function may hand back what a callback returned.
OPERATION_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft")
HIGHER_ORDER = _names("cond while_loop map vmap compile checkpoint")
#: Functions and methods whose result is a bool tensor of the input's shape.
BOOL_PREDICATES = _names(
    "isinf isnan isfinite isneginf isposinf eq ne gt ge lt le logical_not logical_and "
    "logical_or logical_xor greater less isclose"
)
#: Element-wise predicates that give the same answer for equal elements
#: (not ``signbit``: ``torch.unique`` keeps one of ``0.0`` and ``-0.0``).
VALUE_PREDICATES = _names("isnan isinf isfinite isposinf isneginf isreal logical_not")
#: Reductions to a 0-dim tensor when called without a dimension.
REDUCTIONS = _names("all any sum mean max min amax amin prod norm count_nonzero argmax argmin")
#: Reductions whose 0-dim result is a bool tensor whatever the input
#: (``torch.all`` of a uint8 tensor is uint8, so only for bool inputs).
BOOL_REDUCTIONS = _names("all any")
#: Functions (qualified names) that raise on some values of their input
#: when the graph runs, which tracing on fake tensors cannot see: a matrix
#: that is not positive-definite or is singular, probabilities that are
#: negative, infinite or sum to zero.
RAISING_FUNCTIONS = _names(
    "torch.cholesky torch.linalg.cholesky torch.inverse torch.linalg.inv torch.linalg.solve torch.multinomial"
)
#: The tensor methods of these.
RAISING_METHODS = _names("cholesky inverse multinomial")
#: Calls (by the callee's last name) an argument of which is used as an index.
INDEXING_CALLS = _names(
    """gather index_select take take_along_dim one_hot scatter scatter_add scatter_reduce
    index_add index_copy index_fill index_put bincount nll_loss cross_entropy embedding
    embedding_bag"""
)
#: Operations whose derivative does not depend on the values they see, so
#: a zero gradient through them stays zero (never ``0 * inf = nan``):
#: [Where] may merge arms made of these with ``torch.where`` under autograd.
LINEAR_CALLS = _names(
    """clone contiguous reshape view flatten squeeze unsqueeze permute transpose t expand
    expand_as sum mean cumsum neg to float double half relu where masked_fill clamp clamp_min
    clamp_max maximum minimum detach cat stack"""
)
#: Calls whose value carries a gradient from their receiver, or (as
#: ``torch.<name>(x, ...)``) from their first argument, whatever the values.
GRADIENT_FROM_FIRST_OPERAND = _names(
    """clone contiguous reshape view flatten squeeze unsqueeze permute transpose t expand
    expand_as sum mean cumsum neg float double half relu clamp clamp_min clamp_max
    exp log sin cos tanh sigmoid softmax log_softmax sqrt rsqrt abs square pow gelu silu"""
)
#: Calls whose value carries a gradient from their first two operands.
GRADIENT_FROM_TWO_OPERANDS = _names("maximum minimum matmul mm bmm add sub mul div")

#: Element-wise operations (methods, and ``torch`` functions of one
#: tensor) whose value at an element depends on that element alone and is
#: correctly rounded, whichever kernel path (vectorised or not) computes
#: it: computed on a whole tensor, they give each element the bits they
#: give it computed on a selection.  ``squeeze`` changes only the shape.
EXACT_ELEMENTWISE = _names("abs neg negative sqrt to float double half squeeze")

#: Attributes of a tensor that Dynamo treats as constants.
STATIC_ATTRIBUTES = _names(
    "dtype shape ndim device is_cuda is_floating_point requires_grad training layout"
)
#: Tensor methods whose result is static (sizes, dtypes).
STATIC_METHODS = _names("size dim numel is_floating_point is_complex element_size nelement")
#: ``torch.<prefix>...`` attributes that are constants (dtypes).
CONSTANT_PREFIXES = ("torch.float", "torch.int", "torch.bool", "torch.uint", "torch.bfloat",
                     "torch.half", "torch.double", "torch.long", "torch.complex")

#: Tensor attributes whose store changes the tensor (``x.data = y``), not
#: an object's Python state.
TENSOR_STATE_ATTRIBUTES = _names("data grad requires_grad real imag retains_grad")

#: Methods that read a tensor's value into Python (a graph break).
SCALAR_METHODS = _names("item tolist")
#: Builtins that read a tensor's value into Python.
SCALAR_BUILTINS = _names("int float bool")
#: Either, by the callee's last name.
READ_BACKS = SCALAR_METHODS | SCALAR_BUILTINS
#: Builtins a deferred message may apply to a tensor: its value read into
#: Python (or its text), which the runtime makes after the graph.
MESSAGE_READERS = SCALAR_BUILTINS | _names("str repr")
#: Calls (by the callee's last name) that take sizes: the positions of the
#: size arguments when called as a ``torch`` function (``F.pad(x, pad)``,
#: ``torch.zeros(*size)``; None: every position), and keywords that are
#: sizes.  As a tensor method (``x.view(*size)``) every argument is one.
#: A tensor there makes the result's shape depend on the data.
SIZE_FUNCTION_POSITIONS: dict[str, tuple[int, ...] | None] = {
    "pad": (1,), "zeros": None, "ones": None, "empty": None, "rand": None, "randn": None, "arange": None,
    "full": (0,), "reshape": (1,), "narrow": (2, 3), "split": (1,), "tile": (1,),
}
SIZE_METHODS = _names("view reshape expand repeat tile narrow split new_zeros new_ones new_empty")
SIZE_KEYWORDS = _names("pad size shape sizes split_size_or_sections length start end step")
#: torch functions and tensor methods whose result's size depends on the
#: data: Dynamo ends the graph at them.
DATA_DEPENDENT_SHAPES = _names("unique unique_consecutive nonzero argwhere masked_select")
#: Tensor methods a deferred message may call, made after the graph: reads
#: into Python, and ``unique`` (a data-dependent shape, a break in the graph).
MESSAGE_METHOD_READERS = SCALAR_METHODS | _names("unique")
#: The message reads that make a tensor (the unique values), which another read may read in turn.
UNIQUE_READERS = _names("unique torch.unique")
#: The message reads that take a one-element tensor.
ONE_ELEMENT_READERS = _names("float int bool item")


# -- builtins --------------------------------------------------------------------------

#: Builtins that neither raise on tensors nor have effects.
PURE_BUILTINS = _names("abs min max len isinstance hasattr tuple pow")
#: Builtins whose result shares no tensor and no object with their
#: arguments or with global state: a number, a string, a bool, or a new
#: tensor (``abs``, ``pow``).
FRESH_BUILTINS = _names("abs bool callable complex float hasattr int isinstance len pow range str")
#: Builtins that hand back what they were given (an argument, or its
#: elements in a new container), and nothing else.
PASSING_BUILTINS = _names("enumerate list max min reversed sorted tuple zip")
#: Builtins that are pure where a graph break or an error while tracing
#: falls back (see :func:`graphmend.analysis.effects.call_impurity`).
TRACED_PURE_BUILTINS = _names("float")
#: Builtins whose result is never a tensor.
STATIC_BUILTINS = _names("isinstance hasattr callable len type")
#: Builtins a deferred message may call: evaluated while tracing, they
#: neither fail nor read a tensor's value when given shapes, sizes,
#: strings and numbers.
MESSAGE_BUILTINS = _names("tuple list len str repr int float bool sorted min max type isinstance round")
#: Calls that can read any local by name: with these every local is live.
DYNAMIC_SCOPE_CALLS = _names("locals vars eval exec")


# -- effects ---------------------------------------------------------------------------

#: ``logging.Logger`` methods [Defer] replays.
LOG_METHODS = _names("debug info warning warn error critical exception log")
#: transformers' ``lru_cache``d ``logging.Logger`` methods.
ONCE_METHODS = _names("warning_once info_once")
#: Every logger method that emits a message.
LOGGER_METHODS = LOG_METHODS | ONCE_METHODS
#: Functions (by the name called) that emit a message: ``print``, and
#: ``warn`` (``warnings.warn``, or imported from ``warnings``).
MESSAGE_FUNCTIONS = _names("print warn")
#: Methods that mutate a list, dict or set in place.
CONTAINER_MUTATORS = _names(
    """append extend insert pop remove clear update setdefault popitem add discard sort
    reverse __setitem__ __delitem__"""
)


#: ``nn.Module``'s public methods (torch 2.13): called on a module, they
#: change the module (its attributes, hooks, devices), not tensors in place.
MODULE_METHODS = _names(
    """add_module apply bfloat16 buffers children compile cpu cuda double eval extra_repr float forward
    get_buffer get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia named_buffers
    named_children named_modules named_parameters parameters register_backward_hook register_buffer
    register_forward_hook register_forward_pre_hook register_full_backward_hook register_full_backward_pre_hook
    register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module register_parameter
    register_state_dict_post_hook register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule
    share_memory state_dict to to_empty train type xpu zero_grad"""
)
#: In-place tensor methods whose update is elementwise and keeps the
#: target's shape: a predicated update applies one to a copy of its target
#: and selects the copy back (``rules/where/state_update.py``).
PREDICATED_METHODS = _names("copy_ fill_ zero_ add_ sub_ mul_ div_ lerp_")


def in_place_method(name: str) -> bool:
    """``add_``, ``masked_fill_``: PyTorch's in-place naming (not dunders)."""
    return name.endswith("_") and not name.endswith("__") and name != "_"


def torch_function(qualified: str | None) -> str | None:
    """``"all"`` for ``"torch.all"`` (and ``torch.functional``/``torch.special``
    forms), else None."""
    if not qualified or not qualified.startswith("torch."):
        return None
    return qualified.rsplit(".", 1)[-1]


def builtin(qualified: str | None) -> str | None:
    """``"len"`` for ``"builtins.len"``, else None."""
    if not qualified or not qualified.startswith("builtins."):
        return None
    return qualified.removeprefix("builtins.")
