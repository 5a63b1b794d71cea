"""A graph identical to one the backend compiled before is not compiled again.

Mending gives a function new code.  Dynamo guards the code of every
function it inlined into a graph, so a frame compiled through a function
mended after that trace compiles again on the next call, into the same
graph (POT's ``unif`` and its ``np.asarray`` prefix in torchcfm's OT-CFM
step: 14 graphs compiled where torch.compile compiles 14, 16 with
graphmend.compile, at one graph run fewer).  Frames guarded on the ``id``
of an object built per call do the same in any compile (``copy.deepcopy``
of a config in trl's geometric-mixture generation).  Inside
graphmend.compile's calls, :class:`CompiledGraphs` hands the user's
backend each distinct graph once and gives a frame whose graph is
identical to one compiled before what the backend made of that one; Dynamo
still traces the frame, installs its own guards and wraps the function
per frame (replays, [Defer]).

"Identical" is decided, timidly, on everything that decides what a
backend makes of a graph (:func:`graph_key`): the backend itself; the
graph's nodes, operation by operation (the very target, or for Dynamo's
wrapper of a NumPy call what it wraps; every constant argument by value,
floats by their bits), and its submodules' alike; the tensors it holds as
attributes, by identity; every example input's type, dtype, device, size,
stride, storage offset, ``requires_grad``, leaf-ness and dispatch keys,
and a static input (a parameter Dynamo marked) by identity; the global
state Dynamo guards on, inference mode and the active torch-function and
dispatch modes (by identity); and the configs of Dynamo, AOTAutograd and
inductor.  A graph is not reused where the key cannot say it all
(:class:`NotReused`): a symbolic size anywhere in it (a backend adds its
guards to the frame's shape environment, which another frame's would
lack), an input that is not a plain dense unquantized tensor, two inputs
sharing a storage (AOTAutograd then adds guards of its own), freezing
(inductor folds the parameters' values into the graph), or an argument of
a kind not listed above.
"""

from __future__ import annotations

import functools
import operator
import struct
import sys
import types
from collections.abc import Callable, Hashable
from typing import Any

import torch


class NotReused(Exception):
    """Why a graph is compiled as any other, not looked up."""


class _Same:
    """An object compared by identity (a tensor's ``==`` is elementwise; a
    graph holding one tensor computes with that tensor, not an equal one)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


#: Arguments compared by value (``bool`` before ``int``: ``True == 1``, so the type is in the key).
_PLAIN = (bool, int, str, type(None), type(Ellipsis), torch.dtype, torch.device, torch.layout, torch.memory_format)

#: Arguments compared by identity: what a node calls or hands to what it calls.
_CALLABLE = (types.FunctionType, types.BuiltinFunctionType, torch._ops.OpOverload, torch._ops.OpOverloadPacket,
             torch._ops.HigherOrderOperator)

#: The tensor types an input may have (a subclass brings its own dispatch).
_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


@functools.cache
def numpy_wrappers() -> dict[type, str]:
    """Dynamo's wrappers of the NumPy calls it traces, built afresh by each
    trace, each decided by one attribute: the function, method or operator
    it wraps."""
    from torch._dynamo import utils

    wrappers = {"numpy_to_tensor_wrapper": "f", "numpy_method_wrapper": "method", "numpy_operator_wrapper": "op"}
    return {getattr(utils, name): attribute for name, attribute in wrappers.items() if hasattr(utils, name)}


def _target_key(target: Any) -> Hashable:
    attribute = numpy_wrappers().get(type(target))
    if attribute is None:
        return _Same(target)
    wrapped = getattr(target, attribute)
    return (type(target), wrapped if isinstance(wrapped, str) else _Same(wrapped))


def _symbolic(value: Any) -> bool:
    from torch.fx.experimental.symbolic_shapes import free_symbols

    for leaf in torch.utils._pytree.tree_leaves(value):
        if isinstance(leaf, (torch.SymInt, torch.SymFloat, torch.SymBool, torch.Tensor)) and free_symbols(leaf):
            return True
    return False


def _value_key(value: Any, nodes: dict[Any, int]) -> Hashable:
    if isinstance(value, torch.fx.Node):
        return ("node", nodes[value])
    if isinstance(value, _PLAIN):
        return (type(value), value)
    if isinstance(value, float):
        return (float, struct.pack("<d", value))
    if isinstance(value, complex):
        return (complex, struct.pack("<2d", value.real, value.imag))
    if isinstance(value, slice):
        return (slice, _value_key(value.start, nodes), _value_key(value.stop, nodes), _value_key(value.step, nodes))
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_value_key(item, nodes) for item in value))
    if isinstance(value, dict):
        return (dict, tuple((_value_key(k, nodes), _value_key(v, nodes)) for k, v in value.items()))
    if isinstance(value, _CALLABLE):
        return _Same(value)
    raise NotReused(f"an argument of type {type(value).__name__}")


def _attribute_key(module: torch.nn.Module, target: str) -> Hashable:
    attribute = operator.attrgetter(target)(module)
    if isinstance(attribute, torch.fx.GraphModule):
        return _module_key(attribute)
    if isinstance(attribute, (torch.Tensor, torch.nn.Module, torch.ScriptObject)):
        return _Same(attribute)
    raise NotReused(f"an attribute of type {type(attribute).__name__}")


def _module_key(gm: torch.fx.GraphModule) -> Hashable:
    nodes: dict[Any, int] = {}
    key = []
    for index, node in enumerate(gm.graph.nodes):
        nodes[node] = index
        if _symbolic(node.meta.get("example_value", node.meta.get("val"))):
            raise NotReused("a symbolic size")
        if node.op == "call_function":
            target: Hashable = _target_key(node.target)
        elif node.op in ("get_attr", "call_module"):
            target = _attribute_key(gm, node.target)
        elif node.op == "call_method":
            target = node.target
        else:  # placeholder, output: their names decide nothing
            target = None
        key.append((node.op, target, _value_key(node.args, nodes), _value_key(node.kwargs, nodes)))
    return tuple(key)


def _inputs_key(example_inputs: list[Any]) -> Hashable:
    from torch.multiprocessing.reductions import StorageWeakRef

    key, storages = [], set()
    for value in example_inputs:
        if type(value) not in _PLAIN_TENSORS or value.layout != torch.strided or value.is_quantized:
            raise NotReused(f"an input of type {type(value).__name__}")
        storages.add(StorageWeakRef(value.untyped_storage()))
        # A static input (a parameter Dynamo marked, mark_static_address) by
        # identity: a backend may keep its address (CUDA graphs) or values.
        static = getattr(value, "_dynamo_static_input_type", None)
        key.append((type(value), value.dtype, value.device, tuple(value.shape), value.stride(),
                    value.storage_offset(), value.requires_grad, value.is_leaf, value._is_view(),
                    torch._C._dispatch_keys(value).raw_repr(), static, static and _Same(value)))
    if len(storages) < len(example_inputs):
        raise NotReused("two inputs share a storage")
    return tuple(key)


def _state_key() -> Hashable:
    from torch._C._dynamo.guards import GlobalStateGuard
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    dynamo = torch._dynamo.config
    if getattr(dynamo, "debug_backend_override", None) or getattr(dynamo, "debug_inductor_config_override", None):
        raise NotReused("a backend chosen per graph (Dynamo's debug overrides)")
    inductor = sys.modules.get("torch._inductor.config")
    if getattr(dynamo, "prepare_freezing", False) or getattr(inductor, "freezing", False):
        raise NotReused("freezing: the backend folds parameters' values into the graph")
    configs = tuple(sys.modules[name].get_hash() for name in ("torch._dynamo.config", "torch._functorch.config",
                                                              "torch._inductor.config") if name in sys.modules)
    return (GlobalStateGuard().__getstate__(), torch.is_inference_mode_enabled(), configs,
            tuple(_Same(mode) for mode in _get_current_function_mode_stack()),
            tuple(_Same(mode) for mode in _get_current_dispatch_mode_stack()))


def graph_key(backend: Any, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Hashable:
    """What decides what ``backend`` makes of ``gm`` for ``example_inputs``
    (in the global state of the call); raises :class:`NotReused` where it
    cannot say it all."""
    return (_Same(backend), _module_key(gm), _inputs_key(example_inputs), _state_key())


class CompiledGraphs:
    """What a backend compiled, by :func:`graph_key`: one compiled object's graphs."""

    def __init__(self) -> None:
        self._compiled: dict[Hashable, Any] = {}
        #: Graphs given what the backend made of an identical one.
        self.reused = 0

    def compile(self, backend: Any, gm: torch.fx.GraphModule, example_inputs: list[Any],
                compile: Callable[[], Any]) -> Any:
        """What ``compile()`` (``backend`` on ``gm``) returned for a graph
        identical to this one, or ``compile()``'s result, kept."""
        try:
            key = graph_key(backend, gm, example_inputs)
        except Exception:  # NotReused, or a graph the key does not foresee: it compiles as ever
            return compile()
        compiled = self._compiled.get(key)
        if compiled is not None:
            self.reused += 1
            return compiled
        compiled = self._compiled[key] = compile()
        return compiled
