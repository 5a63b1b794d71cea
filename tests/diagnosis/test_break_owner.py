"""Whose a graph break is: a rewritten line's (inside the runtime it
calls, or in a thunk of its own the runtime runs), or the user's function
that such a thunk calls in turn, which is then mended in its own right
(ema-pytorch's ``get_current_decay``, reached through a predicated call)."""

from __future__ import annotations

import os
from traceback import FrameSummary

import pytest

import graphmend
from graphmend.diagnosis import recording

RUNTIME = os.path.join(os.path.dirname(graphmend.__file__), "runtime", "state.py")
USER = "/project/ema.py"


def _stack(*frames: tuple[str, str]) -> list[FrameSummary]:
    return [FrameSummary(filename, line, name) for line, (filename, name) in enumerate(frames, 1)]


@pytest.mark.parametrize(("frames", "rewritten"), [
    # the runtime's own graph break (a predicated form that did not apply)
    (((USER, "update"), (RUNTIME, "predicated_call")), True),
    # in an arm's thunk, or a lambda, the runtime runs
    (((USER, "update"), (RUNTIME, "both_arms"), (USER, "_gm_then_arm_12")), True),
    (((USER, "update"), (RUNTIME, "predicated_call"), (USER, "<lambda>")), True),
    # in the user's helper a thunk calls: the helper's own break
    (((USER, "update"), (RUNTIME, "predicated_call"), (USER, "<lambda>"), (USER, "update_moving_average"),
      (USER, "get_current_decay")), False),
    # no runtime at all
    (((USER, "update"), (USER, "get_current_decay")), False),
])
def test_a_break_belongs_to_the_rewritten_line_only_inside_it(frames, rewritten):
    assert recording._in_runtime(_stack(*frames)) is rewritten
