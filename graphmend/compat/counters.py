"""What a diagnosis reads: Dynamo's own counters and caches, as
``torch._dynamo.explain`` reads them.  No public API gives a break's reason
with its user stack, or resets one code object's compiled entries; and
automatic dynamic shapes' memory (``torch._dynamo.pgo``'s code state) is
isolated so that a diagnosis starts from it as a fresh process does."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch



#: Why Dynamo runs a frame eagerly that breaks inside a loop.
IN_A_LOOP = "the break is in a loop"


@dataclasses.dataclass
class FrameRunEagerly:
    """A graph break Dynamo met inside a loop: it cannot resume there, so it
    runs the whole frame of ``function`` eagerly, and records the break
    nowhere (``torch._dynamo.explain`` shows no graph and no break).  Kept
    as a ``GraphCompileReason`` gives a break: ``reason`` and ``user_stack``.
    Also a frame Dynamo failed to trace inside a call of graphmend's, which
    then runs eagerly (``because`` says which)."""

    reason: str
    user_stack: list[Any]
    function: str
    because: str = IN_A_LOOP


#: How the profiler ranges Dynamo puts around its own work while a call
#: compiles end (``torch._dynamo.utils.dynamo_timed``: tracing a frame,
#: building guards, the backend's compile); the operators in them run on
#: fake tensors (checked on torch 2.13 and 2.14; where the suffix is gone,
#: those operators count as the call's, as before it was read).
COMPILE_RANGE_SUFFIX = "(dynamo_timed)"

#: The frames Dynamo ran eagerly this way in this process, oldest first
#: (filled by :func:`graphmend.compat.patches._record_frames_run_eagerly`,
#: and by graphmend.compile's fallback, once per compiled object and frame).
FRAMES_RUN_EAGERLY: list[FrameRunEagerly] = []


def frames_run_eagerly() -> list[FrameRunEagerly]:
    """:data:`FRAMES_RUN_EAGERLY`, the list itself (readers slice it from a
    length they noted, as :func:`graph_break_reasons`)."""
    return FRAMES_RUN_EAGERLY


def graph_break_reasons() -> list[Any]:
    """Every graph break Dynamo has recorded in this process, oldest first
    (each with ``reason`` and ``user_stack``)."""
    from torch._dynamo import output_graph

    return output_graph.graph_break_reasons


def graphs_compiled() -> int:
    """How many graphs Dynamo has handed to any backend in this process."""
    from torch._dynamo.utils import counters

    return counters["stats"]["unique_graphs"]


def guard_failures() -> dict[Any, list[str]]:
    """Per code object, the guard failures that made Dynamo recompile it."""
    from torch._dynamo.utils import guard_failures as failures

    return failures


def compiled_codes() -> list[Any]:
    """The code objects Dynamo has been asked to compile and that still live."""
    from torch._dynamo import convert_frame

    return [code for ref in convert_frame.input_codes.seen if (code := ref()) is not None]


def compiled_entry_count(code) -> int:
    """How many compiled entries Dynamo holds for ``code``, every
    ``isolate_recompiles`` region's included (torch 2.13; before it, the one
    list there is)."""
    from torch._dynamo import eval_frame

    if hasattr(eval_frame, "_get_total_cache_entry_count"):
        return eval_frame._get_total_cache_entry_count(code)
    return len(eval_frame._debug_get_cache_entry_list(code))


def private_compile_options() -> dict[str, Any]:
    """``torch.compile`` keyword arguments for a diagnosis's own compiles:
    their entries in a region of their own (``isolate_recompiles``, torch
    2.13), so that neither theirs nor the user's count toward the other's
    recompile limit (8 entries per code object by default: a process that
    diagnosed the user's compiled code a few times would otherwise leave it
    no room to recompile, and a diagnosis of code the user recompiled often
    would find Dynamo running it eagerly).  Where torch has no regions,
    nothing (the diagnosis resets what it made, as before)."""
    return {"isolate_recompiles": True} if "isolate_recompiles" in inspect.signature(torch.compile).parameters else {}


def has_compiled_entries(code) -> bool:
    return compiled_entry_count(code) > 0


def reset_code(code) -> None:
    """Forget ``code``'s compiled entries and Dynamo's decisions about it."""
    from torch._dynamo.eval_frame import reset_code as reset

    reset(code)


def forget(codes: Iterable[Any]) -> None:
    """:func:`reset_code` each of ``codes`` (graphmend's own trial
    compiles: the self-tests'), where this torch can."""
    try:
        from torch._dynamo.eval_frame import reset_code as reset
    except ImportError:
        return
    for code in codes:
        reset(code)


@contextlib.contextmanager
def trial_compiles(source: str, filename: str, namespace: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """graphmend's own trial compiles (the self-tests', the warm-up): the
    functions ``source`` defines, compiled afresh into ``namespace`` (so
    their code objects, and the cache entries Dynamo keeps on them, are
    their own); within, ``namespace``; after, Dynamo's graph counter and
    break list as they were and the functions' cache entries dropped."""
    from torch._dynamo import output_graph
    from torch._dynamo.utils import counters

    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 -- graphmend's own constant sources
    codes = [value.__code__ for value in namespace.values() if inspect.isfunction(value)]
    graphs, breaks = counters["stats"]["unique_graphs"], len(output_graph.graph_break_reasons)
    try:
        yield namespace
    finally:
        counters["stats"]["unique_graphs"] = graphs
        del output_graph.graph_break_reasons[breaks:]
        forget(codes)


@contextlib.contextmanager
def isolated_code_state() -> Iterator[None]:
    """Within: Dynamo's automatic-dynamic memory as a fresh process has it;
    after: the memory as it was, untouched.

    Dynamo remembers, per code (``torch._dynamo.pgo``'s code state), which
    sizes a recompile saw change, and compiles that code with those sizes
    dynamic from then on, even after its compiled entries are reset.  A
    second diagnosis of code whose sizes change inside one call (a
    recursion on fewer rows: entmax) thus counted fewer graphs than the
    first, and a diagnosis after mending looked like a gain.  Where this
    torch keeps no such state, nothing is done."""
    try:
        from torch._dynamo import pgo
    except ImportError:
        pgo = None
    if pgo is None or not hasattr(pgo, "_CODE_STATE"):
        yield
        return
    saved = pgo._CODE_STATE
    pgo._CODE_STATE = None  # made anew on first use, as in a fresh process
    try:
        yield
    finally:
        pgo._CODE_STATE = saved


def what_dynamo_calls(compiled: Any) -> Any:
    """The callable Dynamo itself runs for a backend's result: a lazy graph
    module's ``forward`` (what the eager backend returns) recompiled and
    called directly.  Called through its ``_lazy_forward``, every run goes
    through ``GraphModule.__call__``, which prints the generated code of a
    graph that raises to stderr, where Dynamo's own call prints nothing."""
    from torch.fx._lazy_graph_module import _LazyGraphModule

    owner = getattr(compiled, "__self__", None)
    if isinstance(owner, _LazyGraphModule) and getattr(compiled, "__name__", None) == "_lazy_forward":
        _LazyGraphModule.force_recompile(owner)
        return owner.forward
    return compiled
