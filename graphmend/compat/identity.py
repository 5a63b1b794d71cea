"""Where the identity guards a frame failed were installed.

Dynamo guards the ``id`` of some objects it traces: ``copy.deepcopy``'s
memo reads ``id(x)``.  An object a caller builds at every call fails that
guard at every call, so Dynamo traces the frame again, up to the recompile
limit, and then runs it eagerly.  Which frame holds the guard is decided
by where the breaks are.  In Chronos, ``ChronosModel`` builds a
``GenerationConfig`` per call, and transformers' ``generate`` deep-copies
it in ``_prepare_generation_config``.  That function breaks, so under
torch.compile the guard sits on a small frame of its own.  Once graphmend
mends that break, the copy is inlined into ``generate``'s frame, which then
holds the guard: Dynamo traced it twice a call, and after the limit it ran
``generate`` eagerly, 3,121 Python calls where torch.compile's warm call
makes 1,983.

:func:`identity_misses` gives the user stack of each identity guard that
the frame's compiled entries failed, so that graphmend.compile can give
the inlined function its original code back (:mod:`graphmend.api`).  A
live entry reports its failing guard's stack itself (``check_verbose``).
An entry whose guarded object was freed does not: Dynamo replaces its
guard manager (``DeletedGuardManagerWrapper``).
:func:`_keep_identity_stacks` keeps the stacks such an entry loses.
"""

from __future__ import annotations

import functools
import logging
import types
import weakref
from typing import Any

logger = logging.getLogger("graphmend")

#: On a guard manager Dynamo builds: the user stack of each identity guard
#: in it, by the guarded source's name.
_STACKS = "graphmend_identity_stacks"
#: On the manager Dynamo puts in place of a freed object's entry: the user
#: stack of the identity guard on that object.
_STACK = "graphmend_identity_stack"
#: How Dynamo's identity guard reads in a verbose guard failure.
_IDENTITY_CHECK = "___check_obj_id("
#: Whether :func:`_keep_identity_stacks` is installed (its probe passed).
KEEPS_STACKS = False
#: Functions given back their original code for good in this process
#: (:func:`graphmend.mending.live.keep_original_behind`), with why: a
#: diagnosis names it at their breaks (:func:`kept_original_at`).
KEPT_ORIGINAL: weakref.WeakKeyDictionary[types.FunctionType, str] = weakref.WeakKeyDictionary()


def _keep_identity_stacks() -> None:
    """Keep each identity guard's user stack on its guard manager
    (``GuardBuilder.id_match_unchecked``). When the guarded object is freed,
    move it to the manager that replaces the entry's
    (``CheckFunctionManager.invalidate``)."""
    global KEEPS_STACKS
    from torch._dynamo import guards

    id_match = guards.GuardBuilder.id_match_unchecked
    invalidate = guards.CheckFunctionManager.invalidate
    if getattr(id_match, "_graphmend_keeps_stacks", False):
        KEEPS_STACKS = True
        return

    @functools.wraps(id_match)
    def id_match_unchecked(self, guard, *args, **kwargs):
        id_match(self, guard, *args, **kwargs)
        if guard.user_stack:
            stacks = getattr(self.guard_manager, _STACKS, None)
            if stacks is None:
                stacks = {}
                setattr(self.guard_manager, _STACKS, stacks)
            stacks[guard.name] = guard.user_stack

    @functools.wraps(invalidate)
    def invalidate_keeping_stack(self, obj_str):
        live = getattr(self, "guard_manager", None)
        invalidate(self, obj_str)
        # Called by a weakref finalizer, wherever the object dies: never raises.
        try:
            dead = getattr(self, "guard_manager", None)
            stack = getattr(live, _STACKS, {}).get(obj_str)
            if dead is not live and stack is not None:
                setattr(dead, _STACK, stack)
        except Exception:  # pragma: no cover - a bug here must not surface in a finalizer
            logger.debug("graphmend: keeping an identity guard's stack failed", exc_info=True)

    id_match_unchecked._graphmend_keeps_stacks = True
    guards.GuardBuilder.id_match_unchecked = id_match_unchecked
    guards.CheckFunctionManager.invalidate = invalidate_keeping_stack
    KEEPS_STACKS = True


def identity_misses(code: Any, f_locals: dict[str, Any]) -> list[Any]:
    """The user stack of each identity guard that an entry compiled for
    ``code`` fails on ``f_locals``, a frame Dynamo is about to convert
    again. Entries whose guarded object was freed count too. Entries that
    fail on anything else do not."""
    from torch._dynamo import eval_frame
    from torch._dynamo.guards import DeletedGuardManagerWrapper

    stacks = []
    for entry in eval_frame._debug_get_cache_entry_list(code):
        manager = entry.guard_manager
        if isinstance(manager, DeletedGuardManagerWrapper):
            stack = getattr(manager, _STACK, None)
        else:
            failure = manager.check_verbose(f_locals)
            parts = failure.verbose_code_parts
            identity = not failure.result and len(parts) == 1 and parts[0].startswith(_IDENTITY_CHECK)
            stack = failure.user_stack if identity else None
        if stack:
            stacks.append(stack)
    return stacks


def runs_at(code: types.CodeType, filename: str, name: str, lineno: int) -> bool:
    """Whether a user stack's frame ``name`` at ``filename``:``lineno`` is
    one of ``code`` itself (a function nested in it has a code of its own;
    mended code keeps the file's name and line numbers)."""
    return code.co_filename == filename and code.co_name == name \
        and any(line == lineno for *_, line in code.co_lines())


def kept_original_at(filename: str, name: str, lineno: int) -> str | None:
    """Why graphmend keeps the original code of the function whose frame
    ``name`` runs ``filename``:``lineno`` (:data:`KEPT_ORIGINAL`), naming it;
    None where it keeps none there."""
    for function, why in list(KEPT_ORIGINAL.items()):
        if runs_at(function.__code__, filename, name, lineno):
            return f"graphmend.compile keeps the original code of {function.__qualname__}(): {why}"
    return None
