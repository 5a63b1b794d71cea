"""Held-out round twenty-five (r25c): mpc.pytorch.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
from fresh builds, in two processes, with identical results); to be measured
once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny
problems: 3 states, 2 controls (the pendulum: 3 states, 1 control), horizon
T = 5, a batch of 2; random time-invariant linear dynamics ``[A | B]`` with A
near the identity, positive definite quadratic costs, float64 throughout (the
library follows the input's dtype; the pendulum's (g, m, l) are passed as a
float64 tensor); seeded random data, nothing downloaded, nothing written to
disk); a row whose ``modes`` is one mode only says why in its ``notes``.

mpc 0.0.6 (mpc.pytorch, package ``mpc``; Amos et al., "Differentiable MPC for
End-to-end Planning and Control", 2018) solves box-constrained finite-horizon
control problems with a quadratic cost, ``min sum_t 0.5 tau_t^T C_t tau_t +
c_t^T tau_t`` s.t. ``x_{t+1} = f(x_t, u_t)``, ``u_lower <= u <= u_upper``, by
iLQR / control-limited DDP (``mpc.MPC``: linearize the dynamics around the
current trajectory, one ``LQRStep`` per iteration: a backward Riccati recursion
in which the box turns each step's control problem into a small QP solved by
projected Newton (``pnqp``), then a forward rollout with a backtracking line
search), and differentiates the fixed point analytically (``LQRStepFn.backward``
solves a second LQR problem).  Dynamics are ``LinDx(F, f)`` or an
``nn.Module`` (``mpc.env_dx``: pendulum, cartpole), linearized analytically,
by autograd or by finite differences.  The MPC rows call ``MPC(...)(x_init,
cost, dx)`` through a wrapper that builds ``QuadCost``/``LinDx`` (or the
pendulum and its cost) from plain tensors.

The data-dependent code on the rows' paths (file:line relative to the ``mpc``
package).  ``MPC.forward`` (mpc.py:184-337): shape checks and ``isinstance``
asserts (187-228, no tensor value); a Python loop over ``lqr_iter`` (248) that
breaks on ``if max(full_du_norm) < self.eps or ...`` (299: Python ``max`` over
a tensor's elements, a tensor's truth: a convergence test); from the second
iteration on, ``for j in range(n_batch): if costs[j] <= best['costs'][j] +
self.best_cost_eps`` (279-285: a tensor's truth per example, writes into the
kept ``best['costs']`` tensor); ``if self.detach_unconverged: if
max(best['full_du_norm']) > self.eps`` (321-322: a tensor's truth) then
``assert False`` when ``exit_unconverged`` (323-324), two ``print``s when
``verbose >= 0`` (326-328), and masks ``full_du_norm < self.eps`` as products
(330-334); with ``verbose > 0`` ``print(... torch.mean(util.get_cost(...))
.item())`` (238-243) and ``util.table_log`` of ``torch.mean(best['costs'])
.item()``, ``max(full_du_norm).item()``, ``mean_alphas.item()`` and the
``total_qp_iters`` tensor (287-297; util.py:77-99 prints, and keeps the
tables already headed in the module-level list ``_seen_tables``: the header is
printed once per process).  Each iteration and the final (``no_op_forward``)
step build a new ``LQRStep`` (mpc.py:339-361, with ``f`` defaulting to a
float32 ``torch.Tensor()``).  ``LQRStepFn.forward`` (lqr_step.py:277-309):
the delta-space cost (a loop over T), ``lqr_backward`` (52-160): without
bounds and with 2 controls a Python list of ``torch.pinverse`` per batch
element (89-92); with bounds ``lb[lb < -delta_u] = -delta_u`` /
``ub[ub > delta_u] = delta_u`` (133-134: boolean-mask writes, with
``delta_u``), ``pnqp`` per time step (135-137, below), ``Qt_ux_[(1 - If)...
.bool()] = 0`` (143: a boolean-mask write), ``Tensor.lu_solve`` (148);
``lqr_forward`` (164-261): the line search ``while (current_cost is None or
(old_cost is not None and torch.any((current_cost > old_cost)).cpu().item()
== 1)) and i < max_linesearch_iter`` (176-179: ``.item()`` of a tensor test
stops the loop), ``torch.diag(alphas)`` step scaling (192), with ``delta_u``
``I = lb < lb_limit; lb[I] = lb_limit[I]`` and the same for ``ub`` (204-211:
boolean-mask gathers and writes), ``util.eclamp`` (213; util.py:56-70: ``I = x
< lower; x[I] = lower[I]`` (or ``= lower`` for a float) and the same for
``upper`` (64-68: in-place boolean-mask writes)), ``alphas[current_cost >
old_cost] *= linesearch_decay`` (247) and ``/=`` (252) (boolean-mask in-place
updates), and returns ``torch.Tensor([n_total_qp_iter])`` (308: a Python int
counted from pnqp's data-dependent iteration counts, as a new float32
tensor).  ``pnqp`` (pnqp.py:4-82): ``H.lu()``/``lu_solve`` (18-19: deprecated
``torch.lu``/``torch.lu_solve``), ``util.eclamp`` (23), a loop over
``n_iter`` (28) with active-set masks ``((x == lower) & (g > 0)) | ...``
(32), ``g_[Ic.bool()] = 0.`` (45) and ``H_[not_Hff_I.bool()] = 0.0`` (47)
(boolean-mask writes), ``H_.lu()``/``lu_solve`` (53-54), ``m =
J.sum().item()`` (57) and ``if m == 0: return`` (58-59: an early exit on a
tensor value), an Armijo loop ``while max_armijo <= GAMMA and count < 10``
(65: ``max_armijo = torch.max(armijos)`` (75), a tensor's truth) with
``armijos[J] = (...)[J] / ...[J]`` (72: boolean-mask gathers and write) and
``alpha[I] *= decay`` (74), and ``print("[WARNING] pnqp warning: Did not
converge")`` (81) when ``n_iter`` runs out.  In training the backward of the
final ``no_op_forward`` step (lqr_step.py:312-407) runs: the active set ``I =
(torch.abs(new_u - u_lower) <= 1e-8) | ...`` (325-326), a nested ``mpc.MPC(...,
u_zero_I=I, lqr_iter=1, verbose=-1, exit_unconverged=False)`` solve of the
backward LQR problem (328-340: the whole ``MPC.forward`` above again); with
``u_zero_I``, ``lqr_backward`` writes ``qt_u_[I.bool()] = 0`` (105),
``Qt_uu_[Qt_uu_I.bool()] = 0.`` (115), ``Qt_uu_[util.bdiag(I).bool()] +=
1e-8`` (116; util.py:30-37: ``d.type()`` strings and a uint8-mask write
``D[I] = d.view(-1)`` (36)), ``Qt_ux_[...bool()] = 0.`` (119) and
``Tensor.lu()``/``lu_solve`` (125-127) (2 controls) or divisions (1 control),
and ``lqr_forward`` ``new_ut[u_zero_I[t]] = 0.`` (198); ``time.time()``
(313, 406: unused); ``if f.nelement() > 0`` (397: a shape).  The nonlinear
rows linearize the pendulum every iteration (mpc.py:490-601, ``grad_method``
``AUTO_DIFF``: a loop over T and over the states of ``torch.autograd.grad``
(530-550); ``FINITE_DIFF``: a loop over the batch of ``util.jacobian``
(570-582; util.py:8-18: central differences in a loop over ``len(x)``)) and
roll the pendulum out inside the line search (lqr_step.py:224-225, ``.data``).

Controls (no tensor value reaches Python): ``r25c_pendulum_dx_step_control``
(one step of ``env_dx.pendulum.PendulumDx``: shape asserts, ``unbind`` of the
parameters, ``clamp`` of the torque, ``atan2``, the semi-implicit Euler step)
and ``r25c_util_get_cost_lindx_control`` (``util.get_cost``: the rollout of
``LinDx`` in a loop over T (util.py:102-126: shape asserts), then ``bquad`` /
``bdot`` of the costs (129-153)).  No solver path of the library is free of
tensor values reaching Python (every ``MPC`` call runs the line-search
``.item()`` and the convergence test), so the controls are its building
blocks.

Global state on import (the builders import the library; this module imports
only torch): ``mpc/__init__.py`` is empty and ``mpc.mpc`` (with ``mpc.util``,
``mpc.pnqp``, ``mpc.lqr_step``, ``mpc.dynamics``) imports only torch, numpy and
the stdlib.  ``mpc.env_dx.pendulum`` (and ``cartpole``) import matplotlib at
import time, call ``matplotlib.use('Agg')`` (the backend for the whole
process) and ``plt.style.use('bmh')`` (changes the global ``rcParams``)
(env_dx/pendulum.py:12-15).  No warning filter, logging handler or
environment variable is added; torch's default dtype, deterministic flags,
matmul precision and thread count are unchanged; ``torch._dynamo`` is not
imported.

Library quirks met (eagerly): the library predates torch 2 and uses
``Variable``, ``Tensor.lu`` and ``Tensor.lu_solve`` (UserWarnings "torch.lu is
deprecated", "torch.lu_solve is deprecated", once per process) and uint8 masks
(``util.bdiag``, "indexing with dtype torch.uint8 is now deprecated", in
training); all still run on torch 2.13.  ``util.get_data_maybe`` tests
``isinstance(x, Variable)``, true of every tensor now, so it always detaches:
``get_traj``/``get_cost`` carry no gradient to the dynamics, the costs or
``x_init`` (only ``u`` gets one).  ``LQRStepFn`` returns six outputs but its
``backward(ctx, dl_dx, dl_du, temp=None, temp2=None)`` takes four gradients
(lqr_step.py:312), so backpropagating from ``costs`` (or from a bare
``LQRStep``'s outputs) raises ``TypeError``; the MPC rows' ``loss`` sums the
states and controls only (what the final no-op step differentiates), and the
``LQRStep`` row is inference only.  The ``AUTO_DIFF`` linearization calls
``torch.autograd.grad`` without ``enable_grad`` (mpc.py:542), so it raises
"element 0 of tensors does not require grad" under ``torch.no_grad()``: the
autograd pendulum row is training only (the finite-difference one runs in
both modes).  ``lqr_iter=1`` with the default ``detach_unconverged=True``
always "fails to converge" (the norm of the first step is not below ``eps``),
prints the warning and detaches every example (all gradients zero), which is
why the LQR row sets ``detach_unconverged=False`` as the README does.
``lqr_forward``'s ``delta_u`` clamp tests ``isinstance(lb_limit, float)``
for the upper limit too (lqr_step.py:211; harmless when both bounds are
tensors, as here).  ``eclamp`` clamps in place (the row calls it on a copy,
as ``pnqp`` does).

Dropped: a cartpole row (``env_dx.cartpole.CartpoleDx`` has 5 states, above
this round's size limit; its path is the pendulum's); ``GradMethods.ANALYTIC``
with ``env_dx`` modules (they have no ``grad_input``; ``NNDynamics`` and
``AffineDynamics`` (dynamics.py) do, but are not in ``env_dx``); a
``slew_rate_penalty`` row (mpc.py:362-445, the same LQR step on an augmented
state), to stay at nine rows.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, default_loss, row_lookup

MPC_PYTORCH = ("mpc", "0.0.6")
MODULES = ("mpc",)
INFERENCE = ("inference",)

DTYPE = torch.float64
N_STATE, N_CTRL, HORIZON, N_BATCH = 3, 2, 5, 2  # the linear-quadratic problems (the pendulum has 3 states, 1 control)

# --- helpers -------------------------------------------------------------------------------


def _lq_problem() -> tuple[torch.Tensor, ...]:
    """A random time-invariant LQ problem, per example: x_init (2, 3), C (5, 2, 5, 5) positive definite,
    c (5, 2, 5), F (4, 2, 3, 5) = [A | B] with A near the identity, f (4, 2, 3)."""
    n_tau = N_STATE + N_CTRL
    A = torch.eye(N_STATE, dtype=DTYPE) + 0.1 * torch.randn(N_BATCH, N_STATE, N_STATE, dtype=DTYPE)
    B = torch.randn(N_BATCH, N_STATE, N_CTRL, dtype=DTYPE)
    F = torch.cat((A, B), 2).unsqueeze(0).repeat(HORIZON - 1, 1, 1, 1)
    f = 0.1 * torch.randn(HORIZON - 1, N_BATCH, N_STATE, dtype=DTYPE)
    L = torch.randn(N_BATCH, n_tau, n_tau, dtype=DTYPE)
    C = (L @ L.transpose(1, 2) + 0.5 * torch.eye(n_tau, dtype=DTYPE)).unsqueeze(0).repeat(HORIZON, 1, 1, 1)
    c = torch.randn(HORIZON, N_BATCH, n_tau, dtype=DTYPE)
    x_init = torch.randn(N_BATCH, N_STATE, dtype=DTYPE)
    return x_init, C, c, F, f


def _mpc_lq(x_init: torch.Tensor, C: torch.Tensor, c: torch.Tensor, F: torch.Tensor, f: torch.Tensor,
            **options: Any) -> tuple[torch.Tensor, ...]:
    """``mpc.MPC(3, 2, 5, **options)(x_init, QuadCost(C, c), LinDx(F, f))``; returns (x (5, 2, 3), u (5, 2, 2),
    costs (2,))."""
    from mpc import mpc

    return mpc.MPC(N_STATE, N_CTRL, HORIZON, **options)(x_init, mpc.QuadCost(C, c), mpc.LinDx(F, f))


def _mpc_pendulum(x_init: torch.Tensor, params: torch.Tensor, goal_weights: torch.Tensor, grad_method: str,
                  **options: Any) -> tuple[torch.Tensor, ...]:
    """Swing-up MPC of the library's pendulum (as its pendulum notebook and ``env_dx/control.py`` set it up:
    the quadratic cost from the goal state (1, 0, 0) and the goal weights, control penalty 1e-3, the torque box
    [-2, 2], the environment's line-search settings, autograd linearization), with the dynamics' (g, m, l) as
    a tensor; returns (x (5, 2, 3), u (5, 2, 1), costs (2,))."""
    from mpc import mpc
    from mpc.env_dx.pendulum import PendulumDx

    dx = PendulumDx(params, simple=True)
    goal_state = torch.tensor((1.0, 0.0, 0.0), dtype=DTYPE)
    q = torch.cat((goal_weights, 0.001 * torch.ones(dx.n_ctrl, dtype=DTYPE)))
    p = torch.cat((-torch.sqrt(goal_weights) * goal_state, torch.zeros(dx.n_ctrl, dtype=DTYPE)))
    Q = torch.diag(q).unsqueeze(0).unsqueeze(0).repeat(HORIZON, N_BATCH, 1, 1)
    p = p.unsqueeze(0).repeat(HORIZON, N_BATCH, 1)
    solver = mpc.MPC(dx.n_state, dx.n_ctrl, HORIZON, u_lower=dx.lower, u_upper=dx.upper,
                     linesearch_decay=dx.linesearch_decay, max_linesearch_iter=dx.max_linesearch_iter,
                     grad_method=mpc.GradMethods[grad_method], **options)
    return solver(x_init, mpc.QuadCost(Q, p), dx)


def _lqr_step(x_init: torch.Tensor, C: torch.Tensor, c: torch.Tensor, F: torch.Tensor,
              f: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """One box-DDP step from the zero control sequence, as ``MPC`` builds it: ``LQRStep(3, 2, 5, u_lower=-0.5,
    u_upper=0.5, true_cost, true_dynamics, current_x, current_u)(x_init, C, c, F, f)``; returns (new_x, new_u,
    n_total_qp_iter, costs, full_du_norm, mean_alphas)."""
    from mpc import mpc, util
    from mpc.lqr_step import LQRStep

    u = torch.zeros(HORIZON, N_BATCH, N_CTRL, dtype=DTYPE)
    x = util.get_traj(HORIZON, u, x_init, mpc.LinDx(F, f))
    step = LQRStep(N_STATE, N_CTRL, HORIZON, u_lower=-0.5, u_upper=0.5, true_cost=mpc.QuadCost(C, c),
                   true_dynamics=mpc.LinDx(F, f), current_x=x, current_u=u)
    return step(x_init, C, c, F, f)


def _eclamp(u: torch.Tensor, lower: torch.Tensor, upper: torch.Tensor) -> torch.Tensor:
    """``util.eclamp`` on a copy (it clamps in place, as ``pnqp`` calls it on a clone)."""
    from mpc import util

    return util.eclamp(u.clone(), lower, upper)


def _pendulum_step(params: torch.Tensor, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """One step of the library's pendulum dynamics with (g, m, l) as a tensor."""
    from mpc.env_dx.pendulum import PendulumDx

    return PendulumDx(params, simple=True)(x, u)


def _get_cost(u: torch.Tensor, x_init: torch.Tensor, C: torch.Tensor, c: torch.Tensor, F: torch.Tensor,
              f: torch.Tensor) -> torch.Tensor:
    """``util.get_cost(5, u, QuadCost(C, c), LinDx(F, f), x_init=x_init)``: the rollout's total cost (2,)."""
    from mpc import mpc, util

    return util.get_cost(HORIZON, u, mpc.QuadCost(C, c), mpc.LinDx(F, f), x_init=x_init)


def _trajectory_loss(output: Any) -> torch.Tensor | None:
    """The sum of the solved states and controls, not of ``costs``: the costs come out of an iterate's
    ``LQRStepFn``, whose backward takes 4 gradients for its 6 outputs (lqr_step.py:312: a TypeError)."""
    return default_loss(output[:2])


def _pendulum_state() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """x_init (2, 3) = (cos th, sin th, dth) at random angles, (g, m, l), the goal weights."""
    th = (torch.rand(N_BATCH, dtype=DTYPE) * 2 - 1) * torch.pi
    x_init = torch.stack((th.cos(), th.sin(), torch.randn(N_BATCH, dtype=DTYPE)), dim=1)
    return x_init, torch.tensor((10.0, 1.0, 1.0), dtype=DTYPE), torch.tensor((1.0, 1.0, 0.1), dtype=DTYPE)


# --- builders ------------------------------------------------------------------------------


def _lqr(training: bool) -> Built:
    return _mpc_lq, _lq_problem(), {"lqr_iter": 1, "verbose": -1, "exit_unconverged": False,
                                    "detach_unconverged": False}


def _box_ddp(training: bool) -> Built:
    lower = torch.full((HORIZON, N_BATCH, N_CTRL), -0.6, dtype=DTYPE)
    upper = torch.full((HORIZON, N_BATCH, N_CTRL), 0.4, dtype=DTYPE)
    return _mpc_lq, _lq_problem(), {"u_lower": lower, "u_upper": upper, "delta_u": 0.3, "lqr_iter": 8,
                                    "exit_unconverged": False}


def _pendulum(training: bool) -> Built:
    return _mpc_pendulum, _pendulum_state(), {"grad_method": "AUTO_DIFF", "lqr_iter": 10, "eps": 1e-2}


def _pendulum_verbose(training: bool) -> Built:
    return _mpc_pendulum, _pendulum_state(), {"grad_method": "FINITE_DIFF", "lqr_iter": 3, "eps": 1e-2, "verbose": 1,
                                                "exit_unconverged": False}


def _pnqp(training: bool) -> Built:
    from mpc.pnqp import pnqp

    L = torch.randn(N_BATCH, N_CTRL, N_CTRL, dtype=DTYPE)
    H = L @ L.transpose(1, 2) + 0.5 * torch.eye(N_CTRL, dtype=DTYPE)
    q = torch.randn(N_BATCH, N_CTRL, dtype=DTYPE)
    lower = torch.tensor([[-0.5, -1.0], [-1.0, -0.2]], dtype=DTYPE)
    return pnqp, (H, q, lower, lower + 1.0), {}


def _lqr_step_row(training: bool) -> Built:
    return _lqr_step, _lq_problem(), {}


def _eclamp_row(training: bool) -> Built:
    u = torch.randn(HORIZON, N_BATCH, N_CTRL, dtype=DTYPE)
    lower = -0.5 - 0.5 * torch.rand(HORIZON, N_BATCH, N_CTRL, dtype=DTYPE)
    return _eclamp, (u, lower, lower + 1.0), {}


def _pendulum_step_row(training: bool) -> Built:
    x_init, params, _ = _pendulum_state()
    return _pendulum_step, (params, x_init, 3.0 * torch.randn(N_BATCH, 1, dtype=DTYPE)), {}


def _get_cost_row(training: bool) -> Built:
    return _get_cost, (torch.randn(HORIZON, N_BATCH, N_CTRL, dtype=DTYPE), *_lq_problem()), {}


# --- rows ------------------------------------------------------------------------------------

_MPC = ("`MPC.forward` (mpc.py:184-337: the `lqr_iter` loop (248) with `if max(full_du_norm) < self.eps or ...: "
        "break` (299: Python `max` over a tensor, a tensor's truth)")
_LINESEARCH = ("`lqr_forward` (lqr_step.py:164-261: the line search `while ... torch.any((current_cost > old_cost))"
               ".cpu().item() == 1 ... and i < max_linesearch_iter` (176-179: `.item()` of a tensor test ends the "
               "loop), `torch.diag(alphas)` (192), `alphas[current_cost > old_cost] *= linesearch_decay` (247) and "
               "`/=` (252): boolean-mask in-place updates)")
_BOX = ("`lqr_backward` with bounds (lqr_step.py:128-148: `pnqp` per time step (135), `Qt_ux_[(1 - If)...bool()] = 0` "
        "(143: a boolean-mask write), `Tensor.lu_solve` (148) or a division (1 control))")
_PNQP = ("`pnqp` (pnqp.py:4-82: `H.lu()`/`lu_solve` (18-19, 2 controls), `util.eclamp` (23; util.py:56-70: `x[x < "
         "lower] = ...`, `x[x > upper] = ...` (64-68: boolean-mask writes)), active-set masks (32), "
         "`g_[Ic.bool()] = 0.` (45), `H_[not_Hff_I.bool()] = 0.0` (47), `m = J.sum().item()` (57) and "
         "`if m == 0: return` (58-59: an early "
         "exit on a tensor value), the Armijo loop `while max_armijo <= GAMMA and count < 10` (65: a 0-d tensor's "
         "truth, `torch.max(armijos)` (75)) with `armijos[J] = (...)[J] / ...[J]` (72: boolean-mask gathers and a "
         "write), `alpha[I] *= decay` (74), `print` when not converged (81))")
_BACKWARD = ("in training, `LQRStepFn.backward` of the final no-op step (lqr_step.py:312-407: the active set `I = "
             "(torch.abs(new_u - u_lower) <= 1e-8) | ...` (325-326), a nested `mpc.MPC(u_zero_I=I, lqr_iter=1, "
             "verbose=-1, exit_unconverged=False)` solve (328-340: `MPC.forward` again, with `qt_u_[I.bool()] = 0` "
             "(105), `Qt_uu_[Qt_uu_I.bool()] = 0.` (115), `Qt_uu_[util.bdiag(I).bool()] += 1e-8` (116; util.py:36: a "
             "uint8-mask write), `Qt_ux_[...bool()] = 0.` (119), `new_ut[u_zero_I[t]] = 0.` (198)))")
_DETACH = ("`if max(best['full_du_norm']) > self.eps` (mpc.py:321-322: a tensor's truth; `assert False` when "
           "`exit_unconverged` (324), `print`s when `verbose >= 0` (326-328), masks `full_du_norm < self.eps` as "
           "products (330-334))")
_PENDULUM = ("the solver's settings of `env_dx/control.py` (u in [-2, 2], linesearch_decay 0.2, "
             "max_linesearch_iter 5); in training x_init, the pendulum's (g, m, l) and the goal weights require grad "
             "(the parameters reach "
             "the solution through the linearization's offsets f); the loss sums x and u (not `costs`: see the "
             "docstring)")


def _rows() -> list[Row]:
    return [
        Row(
            "r25c_mpc_lqr_quadcost_lindx", *MPC_PYTORCH,
            "function: mpc.MPC(3, 2, 5, lqr_iter=1, verbose=-1, exit_unconverged=False, detach_unconverged=False)"
            "(x_init (2, 3), QuadCost(C (5, 2, 5, 5), c (5, 2, 5)), LinDx(F (4, 2, 3, 5), f (4, 2, 3))) via a "
            "wrapper; returns (x (5, 2, 3), u (5, 2, 2), costs (2,))",
            MODULES, _lqr, loss=_trajectory_loss,
            notes="unconstrained time-varying-batch LQR, one iteration (the README's LQR call); in training x_init, "
            "C, c, F and f require grad (the analytic LQR backward); the loss sums x and u (not `costs`: see the "
            "docstring)",
            patterns=_MPC + ", one iteration); `LQRStepFn.forward` (lqr_step.py:277-309: the delta-space cost loop, "
            "`lqr_backward` (52-160: a Python list of `torch.pinverse` per batch element (89-92)), " + _LINESEARCH
            + ", `torch.Tensor([n_total_qp_iter])` (308)); the final `no_op_forward` step; in training its backward "
            "(lqr_step.py:312-407: a nested `mpc.MPC(lqr_iter=1)` solve, unconstrained, whose `detach_unconverged` "
            "test `max(...) > eps` (mpc.py:322) and masks (330-334) run)",
        ),
        Row(
            "r25c_mpc_box_ddp_lindx_delta_u", *MPC_PYTORCH,
            "function: mpc.MPC(3, 2, 5, u_lower (5, 2, 2) = -0.6, u_upper (5, 2, 2) = 0.4, delta_u=0.3, lqr_iter=8, "
            "exit_unconverged=False)(x_init, QuadCost(C, c), LinDx(F, f)) via a wrapper; returns (x, u, costs)",
            MODULES, _box_ddp, loss=_trajectory_loss, frozen=("u_lower", "u_upper"),
            notes="box-constrained LQR by control-limited DDP with a trust region on each iteration's control change; "
            "converges in 5 iterations, the last with a backtracked step; in training x_init, C, c, F and f require "
            "grad (the bounds are frozen: MPC detaches them); the loss sums x and u",
            patterns=_MPC + ", `if costs[j] <= best['costs'][j] + self.best_cost_eps` (280: a tensor's truth per "
            "example, from the 2nd iteration), " + _DETACH + "); " + _BOX + " with `lb[lb < -delta_u] = -delta_u` / "
            "`ub[ub > delta_u] = delta_u` (133-134: boolean-mask writes); " + _PNQP + "; " + _LINESEARCH + " with "
            "`lb[I] = lb_limit[I]`, `ub[I] = ub_limit[I]` (204-211) and `util.eclamp` (213); " + _BACKWARD,
        ),
        Row(
            "r25c_mpc_pendulum_ilqr_autodiff", *MPC_PYTORCH,
            "function: mpc.MPC(3, 1, 5, u_lower=-2.0, u_upper=2.0, lqr_iter=10, eps=1e-2, grad_method=AUTO_DIFF, "
            "linesearch_decay=0.2, max_linesearch_iter=5)(x_init (2, 3), QuadCost(Q, p) of the swing-up goal, "
            "PendulumDx((g, m, l))) via a wrapper; returns (x (5, 2, 3), u (5, 2, 1), costs (2,))",
            MODULES, _pendulum, loss=_trajectory_loss, modes=("training",),
            notes="training only: the autograd linearization calls `torch.autograd.grad` without `enable_grad` "
            "(mpc.py:542), so it raises under `torch.no_grad()`. Nonlinear swing-up iLQR of the library's pendulum "
            "with the default `exit_unconverged=True` (converges in 4 iterations); " + _PENDULUM,
            patterns=_MPC + ", `if costs[j] <= best['costs'][j] + ...` (280), " + _DETACH + "); "
            "`linearize_dynamics` (mpc.py:490-601, AUTO_DIFF: loops over T and over the states of "
            "`torch.autograd.grad` (530-550)); " + _BOX + "; " + _PNQP + " (1 control: divisions); " + _LINESEARCH
            + " with the pendulum rolled out (224-225) and `util.eclamp` (213); " + _BACKWARD,
        ),
        Row(
            "r25c_mpc_pendulum_ilqr_finite_diff_verbose", *MPC_PYTORCH,
            "function: mpc.MPC(3, 1, 5, u_lower=-2.0, u_upper=2.0, lqr_iter=3, eps=1e-2, verbose=1, "
            "exit_unconverged=False, grad_method=FINITE_DIFF, linesearch_decay=0.2, max_linesearch_iter=5)(x_init, "
            "QuadCost(Q, p), PendulumDx((g, m, l))) via a wrapper; returns (x, u, costs)",
            MODULES, _pendulum_verbose, loss=_trajectory_loss,
            notes="the pendulum with finite-difference linearization, `verbose=1` as `env_dx/control.py` sets it "
            "(prints the initial cost and a per-iteration table) and too few iterations: it prints the 'LQR "
            "Warning' lines and detaches the unconverged examples; " + _PENDULUM,
            patterns=_MPC + ", `print(... .item())` (238-243), `util.table_log` of `.item()`s and a tensor (287-297; "
            "util.py:77-99: `print`, a module-level list of headed tables), `if costs[j] <= ...` (280), " + _DETACH
            + "); `linearize_dynamics` (FINITE_DIFF: a loop over the batch of `util.jacobian` (mpc.py:568-582; "
            "util.py:8-18: a loop over `len(x)`)); " + _BOX + "; " + _PNQP + "; " + _LINESEARCH + "; " + _BACKWARD,
        ),
        Row(
            "r25c_pnqp_box_qp", *MPC_PYTORCH,
            "function: mpc.pnqp.pnqp(H (2, 2, 2) positive definite, q (2, 2), lower (2, 2), upper (2, 2)); returns "
            "(x (2, 2), (LU, pivots) of the free block, If (2, 2) free-set mask, iterations (int))",
            MODULES, _pnqp,
            notes="the projected-Newton box QP solver on its own (one bound active per example: one Newton step "
            "with an Armijo search); in training H, q and the bounds require grad",
            patterns=_PNQP,
        ),
        Row(
            "r25c_lqr_step_box_forward", *MPC_PYTORCH,
            "function: mpc.lqr_step.LQRStep(3, 2, 5, u_lower=-0.5, u_upper=0.5, true_cost=QuadCost(C, c), "
            "true_dynamics=LinDx(F, f), current_x, current_u=0)(x_init, C, c, F, f) via a wrapper (the zero-control "
            "rollout by `util.get_traj`); returns (new_x, new_u, n_total_qp_iter, costs, full_du_norm, mean_alphas)",
            MODULES, _lqr_step_row, modes=INFERENCE,
            notes="inference only: `LQRStepFn` has six outputs but its backward takes four gradients (lqr_step.py:"
            "312), so any backward through this step raises TypeError. One box-DDP iteration from u = 0",
            patterns="`util.get_traj` (util.py:102-126); `LQRStepFn.forward` (lqr_step.py:277-309: the delta-space "
            "cost loop; " + _BOX + "; " + _PNQP + "; " + _LINESEARCH + " with `util.eclamp` (213: float bounds, `x[I] "
            "= lower`); `torch.Tensor([n_total_qp_iter])` (308: a Python int from the QP iteration counts))",
        ),
        Row(
            "r25c_util_eclamp", *MPC_PYTORCH,
            "function: mpc.util.eclamp(u (5, 2, 2), lower (5, 2, 2), upper (5, 2, 2)) on a copy via a 3-line "
            "wrapper; returns the clamped controls (5, 2, 2)",
            MODULES, _eclamp_row,
            notes="the element-wise clamp with tensor bounds that pnqp and the line search use (in place, so the "
            "wrapper clamps a clone); in training u and both bounds require grad",
            patterns="`eclamp` (util.py:56-70: `type(lower) == type(x)` size asserts, `I = x < lower; x[I] = "
            "lower[I]` and `I = x > upper; x[I] = upper[I]` (64-68: boolean-mask gathers and in-place writes))",
        ),
        Row(
            "r25c_pendulum_dx_step_control", *MPC_PYTORCH,
            "function: mpc.env_dx.pendulum.PendulumDx(params=(g, m, l), simple=True)(x (2, 3), u (2, 1)) via a "
            "3-line wrapper; returns the next state (2, 3)",
            MODULES, _pendulum_step_row,
            notes="control: one step of the library's pendulum; in training the parameters, state and torque require "
            "grad (both torques, of size ~3, get clamped to 2: their grad is zero)",
            patterns="control: no tensor value reaches Python. `PendulumDx.forward` (env_dx/pendulum.py:48-83: "
            "`ndimension()`/shape asserts, `hasattr`, `torch.unbind(self.params)`, `clamp` by Python floats, "
            "`atan2`, the Euler step, `stack`)",
        ),
        Row(
            "r25c_util_get_cost_lindx_control", *MPC_PYTORCH,
            "function: mpc.util.get_cost(5, u (5, 2, 2), QuadCost(C, c), LinDx(F, f), x_init=x_init) via a wrapper; "
            "returns the total cost per example (2,)",
            MODULES, _get_cost_row,
            notes="control: the rollout cost the solver evaluates; in training every input requires grad but only u "
            "gets one (`get_data_maybe` detaches every tensor: see the docstring; the other grads are None)",
            patterns="control: no tensor value reaches Python. `get_cost` (util.py:129-153: `get_data_maybe` "
            "(`.data`), `get_traj` (102-126: an `f.shape == F.shape[:3]` assert, a loop over T of `bmv` steps, "
            "`stack`), a loop over T of `bquad` + `bdot`, `sum`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-five (c)")
