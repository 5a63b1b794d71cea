"""Deferred calls a graph recorded before an operation that fails while
the graph runs.

Dynamo replays graphmend's deferred calls (messages, effects, checks)
after the graph.  An operation whose meta kernel accepts what its kernel
rejects (``torch.rand_like`` of a Long tensor, ``abs`` of a bool tensor,
an index out of range that only the data decides) traces without a
complaint and raises while the graph runs, so the replay never comes;
eagerly the calls before that operation were made first (a check's
exception instead of the operation's).

Each graph that replays calls keeps its nodes as the backend was handed
them and, for each call, the last node traced before it.  When the
compiled graph raises, its nodes are run again eagerly, one by one, on
the same inputs, up to the one that raises; the calls recorded before
that node are made with the values they were given, in program order,
and then the graph's exception is raised (or the first check's that
fails).

Timid, since running the nodes again must not change what the failed run
left: before any node that updates a tensor in place, changes state
other than grad mode (restored), calls a module, a custom operator or a
higher-order operator (but an ``autograd.Function``'s or a
``torch.cond``, whose graphs pass the same tests: graphmend's own
``scalar_index`` and [Where]'s merge under autograd), or after one that
draws random numbers (the random state is restored), nothing is made;
nor where the nodes run eagerly do not raise.  The exception then carries
a note saying so, so that a message or a check is never lost silently.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import torch

from graphmend.compat.tracing import _updates_in_place


class Replays(list):
    """The outermost translator's ``debug_locals`` (the calls Dynamo replays
    after the graph), each call with the last node of the graph when it was
    recorded."""

    def __init__(self, output: Any) -> None:
        super().__init__()
        self.output = output
        self.anchors: list[Any] = []

    def append(self, call: Any) -> None:
        super().append(call)
        self.anchors.append(next(reversed(self.output.graph.nodes), None))


@functools.cache
def _cuda_generators() -> bool:
    return torch.cuda.is_available()


def _random_state() -> tuple[Any, Any]:
    cuda = torch.cuda.get_rng_state_all() if _cuda_generators() and torch.cuda.is_initialized() else None
    return torch.random.get_rng_state(), cuda


def _restore_random_state(state: tuple[Any, Any]) -> None:
    torch.random.set_rng_state(state[0])
    if state[1] is not None:
        torch.cuda.set_rng_state_all(state[1])


def _same_random_state(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    return torch.equal(a[0], b[0]) and (a[1] is None or all(map(torch.equal, a[1], b[1] or ())))


#: Higher-order operators that, called eagerly, run no graph but the ones
#: at these argument positions: an ``autograd.Function`` (``Function.apply``
#: traced with autograd on) runs its forward graph and records a backward
#: that nothing here calls; ``torch.cond`` runs one of its two branches.
_GRAPHS_RUN = {"autograd_function_apply": (0,), "cond": (1, 2)}


def _why_not_again(node: Any, module: Any) -> str | None:
    """Why running ``node`` (of ``module``'s graph) again could change what
    the failed run left."""
    if node.op == "call_module":
        return f"calls a module ({node.target})"
    if _updates_in_place(node):
        return f"updates a tensor in place ({getattr(node.target, '__name__', node.target)})"
    if node.op != "call_function":
        return None
    target = node.target
    if target is torch._C._set_grad_enabled:
        return None
    if isinstance(target, torch._ops.HigherOrderOperator):
        return _why_not_graphs_again(node, module)
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        namespace = target.namespace if isinstance(target, torch._ops.OpOverload) else target._qualified_op_name
        if namespace.split("::")[0] not in ("aten", "prims"):
            return f"calls a custom operator ({target})"
        return None
    name = getattr(target, "__name__", "")
    if name.startswith(("_enter", "_exit", "_set", "set_", "_push", "_pop")) or "hooks" in name:
        return f"changes state ({name})"
    return None


def _why_not_graphs_again(node: Any, module: Any) -> str | None:
    """Why running a higher-order operator's node again could change what
    the failed run left: it is not one of :data:`_GRAPHS_RUN`, or a node of
    a graph it runs would (an ``autograd.Function`` that marks an output
    dirty updates it in place)."""
    name = node.target.name()
    refused = f"calls a higher-order operator ({name})"
    if name not in _GRAPHS_RUN or node.kwargs.get("dirty_idx"):
        return refused
    for position in _GRAPHS_RUN[name]:
        argument = node.args[position] if position < len(node.args) else None
        graph = getattr(argument, "op", None) == "get_attr" and _attribute(module, argument.target)
        if not isinstance(graph, torch.fx.GraphModule):
            return refused
        for inner in graph.graph.nodes:
            why = _why_not_again(inner, graph)
            if why is not None:
                return f"{why} in a graph {name} runs"
    return None


def _attribute(module: Any, target: str) -> Any:
    """``module``'s attribute that a ``get_attr`` node names (a dotted path)."""
    return functools.reduce(getattr, target.split("."), module)


class _Step(NamedTuple):
    """A node of the graph as the backend was handed it (the backend may
    rewrite the graph in place afterwards: inductor's passes)."""

    node: Any
    op: str
    target: Any
    args: tuple
    kwargs: dict


def _run(step: _Step, env: dict[Any, Any], inputs: Any, module: Any) -> Any:
    """``step`` run eagerly on the values in ``env``, as fx's interpreter runs a node."""
    if step.op == "placeholder":
        return next(inputs)
    if step.op == "get_attr":
        return _attribute(module, step.target)
    args = torch.fx.node.map_arg(step.args, env.__getitem__)
    kwargs = torch.fx.node.map_arg(step.kwargs, env.__getitem__)
    if step.op == "call_method":
        return getattr(args[0], step.target)(*args[1:], **kwargs)
    return step.target(*args, **kwargs)


class _Constant(NamedTuple):
    value: Any

    def made(self, env: dict[Any, Any]) -> Any:
        return self.value


class _Node(NamedTuple):
    node: Any

    def made(self, env: dict[Any, Any]) -> Any:
        return env[self.node]


class _Formatted(NamedTuple):
    """A string formatter Dynamo replays: ``template.format(*args, **kwargs)``."""

    template: str
    args: tuple
    kwargs: dict

    def made(self, env: dict[Any, Any]) -> Any:
        return self.template.format(*(a.made(env) for a in self.args),
                                    **{k: v.made(env) for k, v in self.kwargs.items()})


_CONSTANTS = (type(None), bool, int, float, str)


def _argument(variable: Any, nodes: dict[Any, int]) -> Any:
    """How to make the value Dynamo passes for ``variable`` to a replayed
    call, from the values of the graph's ``nodes``; None where it cannot be told."""
    from torch._dynamo.variables import ConstantVariable, StringFormatVariable, TensorVariable
    from torch._dynamo.variables.lazy import LazyVariableTracker

    variable = variable.unwrap() if isinstance(variable, LazyVariableTracker) else variable
    if isinstance(variable, LazyVariableTracker):
        # Never realized while tracing (a parameter's default): realizing it now would add a guard.
        value = variable.peek_value()
        return _Constant(value) if type(value) in _CONSTANTS else None
    if isinstance(variable, ConstantVariable):
        return _Constant(variable.as_python_constant())
    if isinstance(variable, TensorVariable):
        node = variable.as_proxy().node
        return _Node(node) if node in nodes else None
    if isinstance(variable, StringFormatVariable):
        args = [_argument(a, nodes) for a in variable.sym_args]
        kwargs = {k: _argument(v, nodes) for k, v in variable.sym_kwargs.items()}
        if None in args or None in kwargs.values():
            return None
        return _Formatted(variable.format_string, tuple(args), kwargs)
    return None


class FailurePlan:
    """What a graph's replayed calls need when it fails: its nodes as the
    backend was handed them, and each call's function, values and place
    among them."""

    def __init__(self, module: Any, steps: list[_Step], calls: list[tuple[int, Any, list[Any]]]) -> None:
        self.module, self.steps, self.calls = module, steps, calls
        # Planned as the backend is called, with the global state the frame was entered with.
        self.grad = torch.is_grad_enabled()

    @classmethod
    def of(cls, gm: Any, replays: Any) -> FailurePlan | None:
        """The plan for ``gm``, whose calls ``replays`` recorded; None where
        it replays none, or a call takes a value that is not a constant or
        a node of the graph."""
        if not isinstance(replays, Replays) or not replays:
            return None
        steps = [_Step(n, n.op, n.target, n.args, n.kwargs) for n in gm.graph.nodes if n.op != "output"]
        order = {step.node: index for index, step in enumerate(steps)}
        calls = []
        for (variable, arguments), anchor in zip(replays, replays.anchors):
            # A node dead-code elimination removed keeps its last neighbour before it.
            while anchor is not None and getattr(anchor, "_erased", False):
                anchor = anchor._prev
            values = [_argument(argument, order) for argument in arguments]
            if None in values:
                return None
            calls.append((order.get(anchor, -1), variable.value, values))
        return cls(gm, steps, calls)

    def calls_before_failure(self, inputs: tuple[Any, ...]) -> list[tuple[Any, list[Any]]] | str:
        """The calls recorded before the node that fails on ``inputs``, each
        with the values it is made with; or why none can be told."""
        env: dict[Any, Any] = {}
        remaining = iter(inputs)
        # The failed run may have left grad mode as a node in the graph set it: it is left so.
        grad, random_state = torch.is_grad_enabled(), _random_state()
        torch._C._set_grad_enabled(self.grad)
        try:
            for position, step in enumerate(self.steps):
                why = _why_not_again(step, self.module)
                if why is not None:
                    return f"the graph {why} before it fails"
                before = _random_state()
                try:
                    env[step.node] = _run(step, env, remaining, self.module)
                except Exception:  # noqa: BLE001 -- any error is the failure looked for
                    break
                if not _same_random_state(before, _random_state()):
                    return f"the graph draws random numbers ({step.target}) before it fails"
            else:
                return "its operations, run eagerly, do not raise"
        finally:
            torch._C._set_grad_enabled(grad)
            _restore_random_state(random_state)
        return [(function, [value.made(env) for value in values])
                for anchor, function, values in self.calls if anchor < position]


def replaying_on_failure(compiled: Any, plan: FailurePlan | None) -> Any:
    """``compiled``, made to make the calls ``plan`` holds that come before
    an operation that raises while it runs (as it is without a plan)."""
    if plan is None:
        return compiled
    from torch.fx._lazy_graph_module import _LazyGraphModule

    # Dynamo compiles a lazy graph module's code when it is returned as it is (the eager backend).
    lazy = compiled if isinstance(compiled, _LazyGraphModule) else getattr(compiled, "__self__", None)
    if isinstance(lazy, _LazyGraphModule):
        _LazyGraphModule.force_recompile(lazy)
        if compiled is not lazy:
            compiled = lazy.forward

    def replaying(*args: Any) -> Any:
        try:
            return compiled(*args)
        except Exception as error:  # noqa: BLE001 -- raised below, after the calls made before it
            failure = error
        try:
            calls = plan.calls_before_failure(args)
        except Exception as error:  # noqa: BLE001 -- the graph's own error is what the user gets
            calls = f"{type(error).__name__}: {error}"
        if isinstance(calls, str):
            failure.add_note(f"graphmend: messages or checks deferred in this graph before the operation "
                             f"that raised were not made: {calls}")
        else:
            # Outside the handler: a deferred check that fails raises its exception as eagerly, with no context.
            for function, values in calls:
                function(*values)
        raise failure

    return replaying
