"""Held-out round eight (r8b): solvers with convergence loops from xitorch, torchopt and torchdyn.

Chosen by reading each library's source (xitorch's rootfinder/equilibrium/minimize,
iterative linear solve and adaptive IVP solver; torchopt's conjugate-gradient solve
used by implicit differentiation and its gradient-norm clipping; torchdyn's adaptive
``odeint``, its adjoint and its hybrid-event solver), written down in round8_b.md
before any row was run under graphmend, torch.compile or Dynamo: each row was only
checked to build and run eagerly, twice from fresh builds, with identical outputs and
gradients.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs, seeded random
weights and inputs, nothing downloaded); a row whose ``modes`` is one mode only says
why in its ``notes``.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row

INFERENCE = ("inference",)

XITORCH = ("xitorch", "0.5.1")
TORCHOPT = ("torchopt", "0.7.3")
TORCHDYN = ("torchdyn", "1.0.6")


# --- xitorch ------------------------------------------------------------------------


def _r8b_residual(y: torch.Tensor, A: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """xitorch's documented rootfinder example, batched over columns: f(y) = tanh(A y + b) + y / 2."""
    return torch.tanh(A @ y + b) + y / 2.0


def _r8b_xi_rootfinder_broyden1(training: bool) -> Built:
    from xitorch.optimize import rootfinder

    def solve_root(A: torch.Tensor, b: torch.Tensor, y0: torch.Tensor) -> torch.Tensor:
        return rootfinder(_r8b_residual, y0, params=(A, b), method="broyden1", line_search=True,
                          f_tol=1e-8, x_tol=1e-8, maxiter=60)

    A = 1.5 * torch.randn(4, 4, dtype=torch.float64)
    b = torch.randn(4, 2, dtype=torch.float64)
    y0 = torch.zeros(4, 2, dtype=torch.float64)
    return solve_root, (A, b, y0), {}


def _r8b_deq_layer(y: torch.Tensor, W: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A deep-equilibrium cell z = tanh(z W^T + x) (W scaled to be contractive)."""
    return torch.tanh(y @ W.T + x)


def _r8b_xi_equilibrium_anderson(training: bool) -> Built:
    from xitorch.optimize import equilibrium

    def deq(W: torch.Tensor, x: torch.Tensor, z0: torch.Tensor) -> torch.Tensor:
        return equilibrium(_r8b_deq_layer, z0, params=(W, x), method="anderson_acc", msize=4,
                           f_tol=1e-7, x_tol=1e-7, maxiter=80)

    W = torch.randn(4, 4, dtype=torch.float64)
    W = 0.8 * W / torch.linalg.matrix_norm(W, ord=2)
    x = torch.randn(2, 4, dtype=torch.float64)
    z0 = torch.zeros(2, 4, dtype=torch.float64)
    return deq, (W, x, z0), {}


def _r8b_xi_solve_bicgstab(training: bool) -> Built:
    import xitorch
    from xitorch.linalg import solve

    def solve_linear(amat: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A = xitorch.LinearOperator.m(amat)  # not flagged Hermitian
        return solve(A, B, method="bicgstab", rtol=1e-8, atol=1e-10, max_niter=40,
                     bck_options={"method": "bicgstab", "rtol": 1e-8, "atol": 1e-10, "max_niter": 40})

    n = 8
    amat = torch.randn(n, n, dtype=torch.float64) / n ** 0.5 + 2.0 * torch.eye(n, dtype=torch.float64)
    B = torch.randn(n, 2, dtype=torch.float64)
    return solve_linear, (amat, B), {}


def _r8b_damped_oscillator(t: torch.Tensor, y: torch.Tensor, k: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """y = (position, velocity) per column: y' = (v, -k x - c v + 0.3 sin t)."""
    pos, vel = y[0], y[1]
    return torch.stack([vel, -k * pos - c * vel + 0.3 * torch.sin(t)])


def _r8b_xi_solve_ivp_rk45(training: bool) -> Built:
    from xitorch.integrate import solve_ivp

    def integrate(ts: torch.Tensor, y0: torch.Tensor, k: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return solve_ivp(_r8b_damped_oscillator, ts, y0, params=(k, c), method="rk45", atol=1e-6, rtol=1e-4)

    ts = torch.linspace(0.0, 3.0, 4, dtype=torch.float64)
    y0 = torch.randn(2, 3, dtype=torch.float64)
    k = 1.0 + torch.rand(3, dtype=torch.float64)
    c = 0.2 * torch.rand(3, dtype=torch.float64)
    return integrate, (ts, y0, k, c), {}


def _r8b_regularised_loss(y: torch.Tensor, X: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """A softplus-regression loss with an L2 term (one scalar)."""
    return torch.nn.functional.softplus(X @ y - t).pow(2).mean() + 0.05 * (y * y).sum()


def _r8b_xi_minimize_adam(training: bool) -> Built:
    from xitorch.optimize import minimize

    def fit(X: torch.Tensor, t: torch.Tensor, y0: torch.Tensor) -> torch.Tensor:
        return minimize(_r8b_regularised_loss, y0, params=(X, t), method="adam", step=0.05, maxiter=200,
                        f_rtol=1e-7, x_rtol=1e-6)

    X = torch.randn(10, 3, dtype=torch.float64)
    t = torch.randn(10, dtype=torch.float64)
    y0 = torch.zeros(3, dtype=torch.float64)
    return fit, (X, t, y0), {}


# --- torchopt -----------------------------------------------------------------------


def _r8b_to_implicit_ridge(training: bool) -> Built:
    import torchopt
    from torchopt.diff.implicit import custom_root

    def ridge_optimality(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
        # gradient of 0.5 |X w - y|^2 + 0.5 lam |w|^2
        return X.T @ (X @ w - y) + lam * w

    @custom_root(ridge_optimality, argnums=(1, 2, 3), solve=torchopt.linear_solve.solve_cg(rtol=1e-8, maxiter=30))
    def ridge_solver(w0: torch.Tensor, X: torch.Tensor, y: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
        # the inner problem solved with torchopt's own CG on the normal equations
        return torchopt.linalg.cg(lambda v: X.T @ (X @ v) + lam * v, X.T @ y, x0=w0, rtol=1e-8, maxiter=30)

    def fit(X: torch.Tensor, y: torch.Tensor, lam: torch.Tensor, w0: torch.Tensor) -> torch.Tensor:
        return ridge_solver(w0, X, y, lam)

    X = torch.randn(12, 5)
    y = X @ torch.randn(5) + 0.1 * torch.randn(12)
    lam = torch.tensor(0.5)
    w0 = torch.zeros(5)
    return fit, (X, y, lam, w0), {}


def _r8b_to_clip_adam_schedule(training: bool) -> Built:
    import torchopt

    schedule = torchopt.schedule.linear_schedule(init_value=0.1, end_value=0.01, transition_steps=4)
    optimizer = torchopt.chain(
        torchopt.clip_grad_norm(max_norm=1.0, error_if_nonfinite=True),
        torchopt.adam(lr=schedule),
    )

    def two_steps(w: torch.Tensor, b: torch.Tensor, gw1: torch.Tensor, gb1: torch.Tensor,
                  gw2: torch.Tensor, gb2: torch.Tensor) -> dict[str, Any]:
        # two functional, differentiable (inplace=False) updates from given gradients, as in a
        # meta-learning inner loop: the new parameters stay functions of the old ones and the gradients
        params = (w, b)
        state = optimizer.init(params)
        for grads in ((gw1, gb1), (gw2, gb2)):
            updates, state = optimizer.update(grads, state, params=params, inplace=False)
            params = torchopt.apply_updates(params, updates, inplace=False)
        return {"w": params[0], "b": params[1]}

    w, b = torch.randn(4, 2), torch.zeros(2)
    # gradient norms of about 4: the clip coefficient is below one on both steps
    grads = (2.0 * torch.randn(4, 2), 2.0 * torch.randn(2), 2.0 * torch.randn(4, 2), 2.0 * torch.randn(2))
    return two_steps, (w, b, *grads), {}


# --- torchdyn -----------------------------------------------------------------------


def _r8b_vector_field(dim: int = 2, hidden: int = 16, gain: float = 6.0) -> torch.nn.Module:
    """torchdyn's README vector field: an nn.Sequential without a time argument (wrapped by NeuralODE).
    The output layer is scaled by ``gain`` (a field with the magnitude of a trained one) so that the
    adaptive solver takes several steps per interval and rejects some."""
    field = torch.nn.Sequential(torch.nn.Linear(dim, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, dim))
    with torch.no_grad():
        field[2].weight.mul_(gain)
    return field


def _r8b_dyn_neuralode_dopri5(training: bool) -> Built:
    from torchdyn.core import NeuralODE

    model = NeuralODE(_r8b_vector_field(), solver="dopri5", sensitivity="autograd", atol=1e-5, rtol=1e-5)
    t_span = torch.linspace(0.0, 2.0, 5)
    return model, (torch.randn(6, 2),), {"t_span": t_span}


def _r8b_dyn_neuralode_adjoint(training: bool) -> Built:
    from torchdyn.core import NeuralODE

    model = NeuralODE(_r8b_vector_field(), solver="dopri5", interpolator="4th", sensitivity="adjoint",
                      solver_adjoint="dopri5", atol=1e-4, rtol=1e-4, atol_adjoint=1e-4, rtol_adjoint=1e-4)
    t_span = torch.linspace(0.0, 2.0, 4)
    return model, (torch.randn(6, 2),), {"t_span": t_span}


class _R8bBall(torch.nn.Module):
    """A bouncing ball: x = (height, velocity), dx/dt = (v, -g) with a learnable drag."""

    def __init__(self) -> None:
        super().__init__()
        self.drag = torch.nn.Parameter(torch.tensor(0.1))

    def forward(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([x[..., 1], -9.81 - self.drag * x[..., 1]], -1)


def _r8b_dyn_odeint_hybrid_bounce(training: bool) -> Built:
    from torchdyn.numerics import odeint_hybrid
    from torchdyn.numerics.utils import EventCallback

    class GroundBounce(EventCallback):
        """Event: height below zero; jump: reflect the velocity with restitution 0.8."""

        def check_event(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return (x[..., 0] <= 0).all()

        def jump_map(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return torch.stack([x[..., 0].abs(), -0.8 * x[..., 1]], -1)

    field = _R8bBall()
    callbacks = [GroundBounce()]

    def bounce(x0: torch.Tensor, t_span: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return odeint_hybrid(field, x0, t_span, j_span=4, solver="dopri5", callbacks=callbacks,
                             atol=1e-4, rtol=1e-4, event_tol=1e-3)

    x0 = torch.tensor([[1.0, 0.0]]) + 0.1 * torch.rand(1, 2)
    return bounce, (x0, torch.linspace(0.0, 1.5, 4)), {}


# --- rows ---------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r8b_xi_rootfinder_broyden1", *XITORCH,
            "xitorch.optimize.rootfinder(tanh(A y + b) + y/2, y0, params=(A, b), method='broyden1', "
            "line_search=True, f_tol=1e-8, x_tol=1e-8)",
            ("xitorch",), _r8b_xi_rootfinder_broyden1,
            patterns="`_nonlin_solver` (rootsolver.py): `if (y_norm == 0): return`; BroydenFirst.setup "
            "`if normy0:` (0-d tensor truth); per iteration `if dx_norm == 0: raise ValueError`, Armijo line "
            "search `_scalar_search_armijo` (`if phi_a0 <= phi0 + c1*alpha0*derphi0: return`, cubic "
            "`while alpha1 > amin and niter < max_niter` on tensors, `phi(s)` compares `s == tmp_s[0]`, "
            "`_safe_norm`'s `if not torch.isfinite(v).all()`), `if y_norm_new < best_ynorm`, "
            "`TerminationCondition.check` returns `xtcheck and xrcheck and ytcheck and yrcheck` of 0-d bool "
            "tensors -> `if to_stop: break`, `eta_A = float(gamma * (y_norm_new / y_norm)**2)`, "
            "`warnings.warn(ConvergenceWarning)` when not converged (here it converges after 37 iterations, 16 of "
            "them backtracking in the line search); training backward (implicit): `jac` of f gives an 8x8 "
            "non-matrix LinearOperator, so `xitorch.linalg.solve` picks bicgstab (power-iteration posdef test, "
            "`.item()` residual norms, `if torch.all(resid_norm < stop_matrix): break`)",
        ),
        Row(
            "r8b_xi_equilibrium_anderson", *XITORCH,
            "xitorch.optimize.equilibrium(tanh(z W^T + x), z0, params=(W, x), method='anderson_acc', msize=4, "
            "f_tol=1e-7, x_tol=1e-7)",
            ("xitorch",), _r8b_xi_equilibrium_anderson,
            patterns="`anderson_acc` (_impls/optimize/equilibrium.py): `if devnorm == 0: return x0`, "
            "`for k in range(2, maxiter)` ended by `TerminationCondition.check` (`dxnorm < x_tol and ... and "
            "ynorm < f_rtol * f0_norm`, 0-d tensors and-ed in Python) -> `if to_stop: break`, in-place history "
            "writes `xcollect[..., k % msize, :] = xnew`, `torch.linalg.solve` on the Anderson system; "
            "`warnings.warn(ConvergenceWarning)` if not converged (converges after 26 iterations); training "
            "backward (implicit): `jac` of "
            "y - f(y) then `xitorch.linalg.solve` of an 8x8 non-Hermitian LinearOperator -> bicgstab with "
            "power-iteration posdef test (`if torch.all(dnorm <= rtol*xnorm + atol): break`, "
            "`bool(torch.all(...).item())`), `.item()` residual norms and `if torch.all(resid_norm < stop_matrix)`",
        ),
        Row(
            "r8b_xi_solve_bicgstab", *XITORCH,
            "xitorch.linalg.solve(LinearOperator.m(A), B, method='bicgstab', rtol=1e-8, "
            "bck_options={'method': 'bicgstab', ...})",
            ("xitorch",), _r8b_xi_solve_bicgstab,
            patterns="`solve_torchfcn.forward`: `if torch.all(B == 0):` special case; `bicgstab` "
            "(_impls/linalg/solve.py): `if torch.allclose(B, B * 0, ...)`, `_setup_linear_problem` with "
            "posdef=None: `_get_largest_eival` power iteration from `torch.randn` with "
            "`if torch.all(dnorm <= rtol * xnorm + atol): break`, `if torch.all(negeival)`, "
            "`posdef = bool(torch.all(...).item())` (picks A or A^T A); per iteration `_safedenom`'s boolean-mask "
            "write `r[r == 0] = eps`, `max_resid_norm = resid_norm.max().item()`, `if max_resid_norm < "
            "best_resid` (float vs 0-d tensor), `if torch.all(resid_norm < stop_matrix): break` (8 iterations); "
            "`warnings.warn(ConvergenceWarning)` if not converged; training backward solves A^H v = grad "
            "with bicgstab again",
        ),
        Row(
            "r8b_xi_solve_ivp_rk45", *XITORCH,
            "xitorch.integrate.solve_ivp(damped oscillator, ts, y0, params=(k, c), method='rk45', atol=1e-6, "
            "rtol=1e-4)",
            ("xitorch",), _r8b_xi_solve_ivp_rk45,
            patterns="`RKAdaptiveStepSolver` (_impls/integrate/ivp/adaptive_rk.py): `if direction < 0:` on "
            "`ts[1] - ts[0]`; `_step`: `while not t1_achieved`; `_single_step`: `while not accepted:` with "
            "`t1_achieved = t0 + h > t1` and `accepted = errnorm < 1` (0-d bool tensors), "
            "`hstep = t1 - t0 if t1_achieved else h`, `if errnorm == 0`, "
            "`factor = min(self.max_factor, self.step_mult * errnorm ** exp)` (Python min of float and "
            "tensor), in-place `K[s] = func(...)` stage writes; training backward is the adjoint: per interval "
            "another `_SolveIVP.apply` of the augmented system with the same adaptive loops, plus "
            "`grad_ts` from `torch.dot` per time point",
        ),
        Row(
            "r8b_xi_minimize_adam", *XITORCH,
            "xitorch.optimize.minimize(softplus regression loss, y0, params=(X, t), method='adam', step=0.05, "
            "f_rtol=1e-7, x_rtol=1e-6)",
            ("xitorch",), _r8b_xi_minimize_adam,
            patterns="`adam` (_impls/optimize/minimizer.py) loop ended by `TerminationCondition.to_stop`: five "
            "`float(t.detach()...item())` reads per iteration (`xnorm`, `dxnorm`, `fabs`, `df`, `fval`), "
            "Python comparisons `dxnorm < self.x_rtol * xnorm`, `res = (i > 0 and converge)`, best-x tracking "
            "`if fval < self._best_f: self._best_x = x`; `get_best_x` `warnings.warn` + returns the best x when "
            "not converged (converges after 90 iterations); the forward function takes `torch.autograd.grad` of the loss inside "
            "`torch.enable_grad()`; training backward: `jac` of the gradient (Hessian operator, 3x3 -> "
            "exactsolve)",
        ),
        Row(
            "r8b_to_implicit_ridge_cg", *TORCHOPT,
            "torchopt.diff.implicit.custom_root(ridge optimality, argnums=(1, 2, 3), "
            "solve=torchopt.linear_solve.solve_cg(rtol=1e-8)) around torchopt.linalg.cg(normal equations)",
            ("torchopt",), _r8b_to_implicit_ridge,
            patterns="forward: `torchopt.linalg.cg` `_cg_solve` (linalg/cg.py): every dot product is "
            "`tree_vdot_real` -> `torch.dot(x.real, y.real).item()` (pytree.py), `atol2 = max(rtol**2 * b2, "
            "atol**2)`, `while cond_fn(value):` with `rs > atol2 and k < maxiter` (data-dependent iteration "
            "count), `alpha = gamma / tree_vdot_real(p, Ap)` Python floats used as `add(..., alpha=alpha)`; "
            "`custom_root`'s `ImplicitMetaGradient.forward` keeps `t.data` of outputs; training backward: "
            "`functorch.vjp` of the optimality function then `solve_cg` -> the same `.item()`/`while` CG loop on "
            "the transposed system",
        ),
        Row(
            "r8b_to_clip_adam_linear_schedule", *TORCHOPT,
            "torchopt.chain(torchopt.clip_grad_norm(max_norm=1.0, error_if_nonfinite=True), "
            "torchopt.adam(lr=torchopt.schedule.linear_schedule(0.1, 0.01, 4))).update(grads, state, "
            "inplace=False) + apply_updates, two steps from given gradients",
            ("torchopt",), _r8b_to_clip_adam_schedule,
            patterns="`clip_grad_norm.update_fn` (clip.py): `total_norm` of stacked norms under no_grad, "
            "`if error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf()): raise`, "
            "`clip_coefficient = max_norm / (float(total_norm) + 1e-6)` and Python `min(clip_coefficient, 1.0)` "
            "used as the `mul` factor (clipping active: the gradients' norm is about 6); adam "
            "`scale_by_adam` bias correction and a scheduled lr from the int64 step count (`torch.clamp` on a "
            "count tensor, `inc_count`'s `c + (c != INT64_MAX)`), `apply_updates(inplace=False)`; training "
            "differentiates the new parameters with respect to the old ones and the gradients (a meta-gradient "
            "through two steps; the clip factor is a Python float, so no gradient flows through it)",
        ),
        Row(
            "r8b_dyn_neuralode_dopri5", *TORCHDYN,
            "torchdyn.core.NeuralODE(nn.Sequential(Linear(2, 16), Tanh(), Linear(16, 2)), solver='dopri5', "
            "sensitivity='autograd', atol=1e-5, rtol=1e-5)(x, t_span=linspace(0, 2, 5)) (output layer x6)",
            ("torchdyn",), _r8b_dyn_neuralode_dopri5, frozen=("t_span",), notes="t_span is frozen",
            patterns="`odeint` (numerics/odeint.py): `if t_span[1] < t_span[0]`; `init_step` (numerics/utils.py) "
            "`if d0 < 1e-5 or d1 < 1e-5`, `if d1 <= 1e-15 and d2 <= 1e-15`, Python `max(d1, d2)` of tensors; "
            "`_adaptive_odeint`: `while t < T:`, `if t + dt > T`, checkpoint `(t + dt > t_eval[ckpt_counter])` "
            "resets dt, `accept_step = error_ratio <= 1; if accept_step:`, `if t + dt == t_eval[ckpt_counter]` "
            "appends, `adapt_step` (`@torch.no_grad`, `if error_ratio == 0`, `if error_ratio < 1`): 10 steps, "
            "one rejected (error ratio 4.4); "
            "`DEFunc.forward` increments `self.nfe` and walks `named_modules` per evaluation",
        ),
        Row(
            "r8b_dyn_neuralode_adjoint_interp", *TORCHDYN,
            "torchdyn.core.NeuralODE(nn.Sequential(...), solver='dopri5', interpolator='4th', "
            "sensitivity='adjoint', solver_adjoint='dopri5')(x, t_span=linspace(0, 2, 4)) (output layer x6)",
            ("torchdyn",), _r8b_dyn_neuralode_adjoint, frozen=("t_span",),
            notes="t_span is frozen; the autograd.Function also returns t_eval as a differentiable output, so "
            "the training loss includes its sum (the backward subtracts that gradient in `A[-1, -1:] -= ...`)",
            patterns="forward through `_gather_odefunc_adjoint`'s autograd.Function: the adaptive `while t < T` "
            "loop with the 4th-order interpolator branch `while (ckpt_counter < len(t_eval)) and (t + dt > "
            "t_eval[ckpt_counter]):` (dense output instead of step clipping: 5 steps, the two inner time points "
            "interpolated), `if coefs == None`, "
            "`accept_step = error_ratio <= 1`; training backward: per interval a reverse-time `odeint` of the "
            "adjoint system with `seminorm=(True, n)` (`if t_span[1] < t_span[0]` flips the field, error on "
            "`x_err[:state_dim]`), `if dt == None`, in-place `A[-1, -1:] -= grad_output[0][i - 1]` and "
            "`A[...] += ...`, `dLdt[i-1] = ...`",
        ),
        Row(
            "r8b_dyn_odeint_hybrid_bounce", *TORCHDYN,
            "torchdyn.numerics.odeint_hybrid(ball field, x0, t_span=linspace(0, 1.5, 4), j_span=4, solver='dopri5', "
            "callbacks=[ground bounce EventCallback], event_tol=1e-3)",
            ("torchdyn",), _r8b_dyn_odeint_hybrid_bounce, frozen=("1",),
            notes="t_span is frozen; the event bisection runs under torch.no_grad(), so in training the "
            "gradient reaches x0 and the drag only through the steps the library keeps on the graph",
            patterns="`odeint_hybrid` (numerics/odeint.py): initial `EventState([cb.check_event(t, x) ...])` and "
            "`triggered_events = sum([(a_ != b_) & (b_ == False) ...])` of 0-d bool tensors, "
            "`if triggered_events > 0:`; `while t < T and jnum < j_span:`, `if t + dt > t_span[-1]`, "
            "checkpoint test `t + dt > t_eval[ckpt_counter]`; on an event, bisection "
            "`while niters < max_iters and event_tol < dt_inner:` under `torch.no_grad()` with "
            "`if triggered_events == 0`, `min([i for i, idx in enumerate(evid) if idx == True])` (tensor "
            "`== True`), `jump_map`; otherwise `accept_step = error_ratio <= 1; if accept_step:` and "
            "`adapt_step`; the solution's length depends on the number of accepted steps and events (two "
            "bounces, at t = 0.47 and 1.19: 9 saved points)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
