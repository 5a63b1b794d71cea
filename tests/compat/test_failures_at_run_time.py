"""A graph that raises while it runs makes the deferred calls recorded
before the failing operation, as eager code made them, or says on its
exception why it cannot (graphmend.compat.failures_at_run_time)."""

from __future__ import annotations

import torch

from harness import check_equivalent, compiled_outcome, mend_source, outcome_of

#: ``abs`` of a bool tensor: Dynamo's fake tensors accept it, the CPU kernel does not.
_FAILS = "flags.abs()"


def _program(body: str) -> str:
    return f"""
import torch


def f(x):
    flags = x > 0.5
{body}
"""


def _notes(mended, *args) -> list[str]:
    torch._dynamo.reset()
    try:
        torch.compile(mended.f, backend="eager")(*args)
    except NotImplementedError as error:
        return getattr(error, "__notes__", [])
    raise AssertionError("the compiled call did not raise")


def test_only_the_messages_before_the_failing_operation_are_made(tmp_path):
    body = f'    print("before", x.sum())\n    y = {_FAILS}\n    print("after", y)\n    return y'
    check_equivalent(_program(body), "f", [(torch.tensor([0.25, 2.0]),)], tmp_path, rules=["defer"], graphs=None)


def test_a_check_before_the_failing_operation_raises_its_exception(tmp_path):
    body = f'    if (x < 0).any():\n        raise ValueError("negative")\n    print("ok")\n    return {_FAILS}'
    check_equivalent(_program(body), "f", [(torch.tensor([-1.0, 2.0]),), (torch.tensor([1.0, 2.0]),)], tmp_path,
                     rules=["trap", "defer"], graphs=None)


def test_the_nodes_run_again_in_the_grad_mode_the_graph_was_entered_in(tmp_path):
    """The graph fails inside ``no_grad``, and Dynamo's eager backend leaves
    grad mode off after it (torch 2.13): the message is still made with
    its ``grad_fn``, as eagerly."""
    body = f'    print("before", x.sum())\n    with torch.no_grad():\n        y = x * 2\n        z = {_FAILS}\n    return y + z'
    with torch.enable_grad():
        check_equivalent(_program(body), "f", [(torch.tensor([0.25, 2.0], requires_grad=True),)], tmp_path,
                         rules=["defer"], graphs=None)


def _with_function(forward: str, body: str) -> str:
    """A program whose graph applies an ``autograd.Function`` (Dynamo's
    ``autograd_function_apply``, as ``x`` requires grad) before ``body``."""
    return f"""
import torch


class Doubled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
{forward}

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def f(x):
    flags = x > 0.5
{body}
"""


def test_an_autograd_function_before_the_failing_operation_runs_again(tmp_path):
    """graphmend's own ``scalar_index`` is one under autograd (the fuzz,
    seed 31150): its forward graph passes the tests its nodes would."""
    body = f'    if (x < 0).any():\n        raise ValueError("negative")\n    return Doubled.apply(x) + {_FAILS}'
    check_equivalent(_with_function("        return x * 2", body), "f",
                     [(torch.tensor([-1.0, 2.0], requires_grad=True),)], tmp_path, rules=["trap"], graphs=None)


def test_no_op_after_an_autograd_function_whose_forward_updates_in_place(tmp_path):
    body = f'    print("before", x.sum())\n    return Doubled.apply(x) + {_FAILS}'
    _, mended, _ = mend_source(_with_function("        return x.clone().mul_(2)", body), tmp_path, rules=["defer"])
    assert _notes(mended, torch.tensor([0.25, 2.0], requires_grad=True)) == [
        "graphmend: messages or checks deferred in this graph before the operation that raised were not made: "
        "the graph updates a tensor in place (mul_) in a graph autograd_function_apply runs before it fails"]


def test_a_merge_by_torch_cond_before_the_failing_operation_runs_again(tmp_path):
    """[Where] merges an ``if`` on a tensor under autograd with ``torch.cond``."""
    body = (f'    if (x < 0).any():\n        raise ValueError("negative")\n    if x.sum() > 0:\n'
            f'        y = torch.sin(x) * 2\n    else:\n        y = torch.cos(x) * 3\n    return y + {_FAILS}')
    check_equivalent(_program(body), "f", [(torch.tensor([-1.0, 2.0], requires_grad=True),)], tmp_path,
                     rules=["trap", "where"], graphs=None)


def test_no_op_after_an_update_in_place(tmp_path):
    """The failed run updated ``x``; running the nodes again would update it
    twice: nothing is made, and the exception says so."""
    body = f'    print("before", x.sum())\n    x.add_(1)\n    return {_FAILS}'
    _, mended, _ = mend_source(_program(body), tmp_path, rules=["defer"])
    x = torch.tensor([0.25, 2.0])
    outcome, _ = compiled_outcome(mended.f, x)
    assert outcome.stdout == "" and outcome.error[0] is NotImplementedError
    assert torch.equal(x, torch.tensor([1.25, 3.0])), "updated once"
    assert _notes(mended, torch.tensor([0.25, 2.0])) == [
        "graphmend: messages or checks deferred in this graph before the operation that raised were not made: "
        "the graph updates a tensor in place (add_) before it fails"]


def test_no_op_after_a_random_draw_and_the_random_state_is_the_failed_runs(tmp_path):
    body = f'    print("before", x.sum())\n    noise = torch.rand_like(x)\n    return noise + {_FAILS}'
    _, mended, _ = mend_source(_program(body), tmp_path, rules=["defer"])
    x = torch.tensor([0.25, 2.0])
    torch.manual_seed(0)
    outcome_of(torch.rand, 7)
    torch.manual_seed(0)
    outcome, _ = compiled_outcome(mended.f, x)
    after_failure = torch.random.get_rng_state()
    torch.manual_seed(0)
    eager = outcome_of(mended.f, x)
    assert eager.stdout and eager.error == outcome.error
    assert outcome.stdout == ""
    assert torch.equal(after_failure, torch.random.get_rng_state()), "one draw, as eagerly"
    assert "draws random numbers" in _notes(mended, x)[0]


def test_no_op_where_the_operations_run_eagerly_do_not_raise(tmp_path, monkeypatch):
    """A failure of the compiled code alone (a backend's): nothing is made."""
    from graphmend.compat import failures_at_run_time

    body = '    print("before", x.sum())\n    return flags.float() * 2'
    _, mended, _ = mend_source(_program(body), tmp_path, rules=["defer"])

    def failing(compiled, plan):
        def call(*args):
            raise NotImplementedError("the backend's")
        return failures_at_run_time.replaying_on_failure(call, plan)

    monkeypatch.setattr("graphmend.compat.patches.replaying_on_failure", failing)
    assert _notes(mended, torch.tensor([0.25, 2.0])) == [
        "graphmend: messages or checks deferred in this graph before the operation that raised were not made: "
        "its operations, run eagerly, do not raise"]


def test_a_graph_that_replays_nothing_is_handed_back_as_the_backend_made_it(tmp_path):
    from graphmend.compat.failures_at_run_time import replaying_on_failure

    def compiled(*args):
        return args

    assert replaying_on_failure(compiled, None) is compiled
