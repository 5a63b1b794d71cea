"""Held-out round ten (r10a): qpth and torchimize.

Chosen by reading each library's source, written down in ROUND10.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The qpth rows solve batches of 2-5 small QPs (4-6 variables, 4-6 inequality
constraints, 0-2 equality constraints) with the batched primal-dual interior
point solver (``QPSolvers.PDIPM_BATCHED``, the default), in float32 and
float64; the OptNet-style layer is 8 -> 12 -> 4 features with a QP of 4
variables and 6 inequalities.  The torchimize rows are its Gauss-Newton
optimizer (``GNA``) on a 3-6-2 MLP with 8 samples (the control) and its
finite-difference Jacobian on a 4-parameter skewed Gaussian sampled at 16
points.  torchimize's least-squares solvers (``lsq_lma``, ``lsq_gna``,
``gradient_descent`` and their parallel versions) are left out: each step calls
``torch.linalg.lstsq`` with the default CPU driver ``gelsy``, whose pivot
workspace torch leaves uninitialised, so two eager runs differ in the last bits
(see ROUND10.md).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

QPTH = ("qpth", "0.0.18")
TORCHIMIZE = ("torchimize", "0.0.16")


# --- helpers ----------------------------------------------------------------------


def _r10a_spd(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A random symmetric positive definite matrix (batch of), shape (*shape, n, n)."""
    n = shape[-1]
    lower = torch.randn(*shape, n, dtype=dtype)
    return lower @ lower.transpose(-1, -2) + 0.5 * torch.eye(n, dtype=dtype)


def _r10a_feasible_h(G: torch.Tensor, batch: int, nz: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-hand sides h = G z0 + s0 (s0 > 0) that a point z0 satisfies strictly; returns (h, z0)."""
    nineq = G.shape[-2]
    z0 = torch.randn(batch, nz, dtype=dtype)
    s0 = torch.rand(batch, nineq, dtype=dtype) + 0.1
    h = (G @ z0.unsqueeze(-1)).squeeze(-1) if G.dim() == 3 else z0 @ G.T
    return h + s0, z0


# --- qpth -------------------------------------------------------------------------


def _r10a_qp_ineq(Q: torch.Tensor, p: torch.Tensor, G: torch.Tensor, h: torch.Tensor, A: torch.Tensor,
                  b: torch.Tensor) -> torch.Tensor:
    """A batch of inequality-constrained QPs, float32, with a float32-sized tolerance."""
    from qpth.qp import QPFunction

    return QPFunction(eps=1e-5)(Q, p, G, h, A, b)


def _r10a_qpth_ineq_batched(training: bool) -> Built:
    batch, nz, nineq = 3, 4, 6
    Q = _r10a_spd(batch, nz)
    p = torch.randn(batch, nz)
    G = torch.randn(batch, nineq, nz)
    h, _ = _r10a_feasible_h(G, batch, nz, torch.float32)
    empty = torch.Tensor()  # no equality constraints (qpth's documented convention)
    return _r10a_qp_ineq, (Q, p, G, h, empty, empty.clone()), {}


def _r10a_qp_eq_verbose(Q: torch.Tensor, p: torch.Tensor, G: torch.Tensor, h: torch.Tensor, A: torch.Tensor,
                        b: torch.Tensor) -> torch.Tensor:
    """Equality- and inequality-constrained QPs, float64, printing the solver's progress."""
    from qpth.qp import QPFunction

    return QPFunction(verbose=1, maxIter=30)(Q, p, G, h, A, b)


def _r10a_qpth_eq_ineq_shared(training: bool) -> Built:
    batch, nz, nineq, neq = 2, 5, 4, 2
    dt = torch.float64
    Q = _r10a_spd(nz, dtype=dt)  # shared across the batch (2-D; qpth expands it)
    G = torch.randn(nineq, nz, dtype=dt)  # shared
    A = torch.randn(neq, nz, dtype=dt)  # shared
    p = torch.randn(batch, nz, dtype=dt)
    h, z0 = _r10a_feasible_h(G, batch, nz, dt)
    b = z0 @ A.T  # z0 satisfies the equalities
    return _r10a_qp_eq_verbose, (Q, p, G, h, A, b), {}


class _R10aOptNet(nn.Module):
    """OptNet's fully connected classifier (qpth's README / the OptNet paper): two
    Linear+BatchNorm+ReLU layers, then a QP layer with a learned Cholesky factor,
    learned inequalities G z <= G z0 + s0, and log_softmax."""

    def __init__(self, n_features: int = 8, n_hidden: int = 12, n_cls: int = 4, nineq: int = 6,
                 eps: float = 1e-4) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_features, n_hidden)
        self.bn1 = nn.BatchNorm1d(n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_cls)
        self.bn2 = nn.BatchNorm1d(n_cls)
        self.register_buffer("M", torch.tril(torch.ones(n_cls, n_cls)))
        self.L = nn.Parameter(torch.tril(torch.rand(n_cls, n_cls)))
        self.G = nn.Parameter(torch.empty(nineq, n_cls).uniform_(-1, 1))
        self.z0 = nn.Parameter(torch.zeros(n_cls))
        self.s0 = nn.Parameter(torch.ones(nineq))
        self.eps = eps
        self.n_cls = n_cls

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        from qpth.qp import QPFunction

        x = F.relu(self.bn1(self.fc1(x)))
        x = F.relu(self.bn2(self.fc2(x)))
        L = self.M * self.L
        Q = L.mm(L.t()) + self.eps * torch.eye(self.n_cls)
        h = self.G.mv(self.z0) + self.s0
        e = torch.Tensor()
        x = QPFunction()(Q, x, self.G, h, e, e)
        return F.log_softmax(x, dim=1)


def _r10a_qpth_optnet(training: bool) -> Built:
    return _R10aOptNet(), (torch.randn(5, 8),), {}


def _r10a_simplex_projection(x: torch.Tensor) -> torch.Tensor:
    """Euclidean projection of each row of x onto the probability simplex, as a QP layer:
    argmin_z 1/2 z^T z - x^T z  subject to  -z <= 0,  1^T z = 1 (float32, qpth defaults)."""
    from qpth.qp import QPFunction

    n = x.shape[1]
    Q = torch.eye(n, dtype=x.dtype)
    G = -torch.eye(n, dtype=x.dtype)
    h = torch.zeros(n, dtype=x.dtype)
    A = torch.ones(1, n, dtype=x.dtype)
    b = torch.ones(1, dtype=x.dtype)
    return QPFunction()(Q, -x, G, h, A, b)


def _r10a_weighted_loss(output: torch.Tensor) -> torch.Tensor | None:
    """Coordinate-weighted sum: a projection onto the simplex always sums to 1, so the
    default loss (the plain sum) would have a zero gradient."""
    if not output.requires_grad:
        return None
    weights = torch.arange(1, output.shape[-1] + 1, dtype=output.dtype)
    return (output * weights).sum()


def _r10a_qpth_simplex(training: bool) -> Built:
    return _r10a_simplex_projection, (2 * torch.randn(4, 6),), {}


# --- torchimize -------------------------------------------------------------------


def _r10a_gna_steps(optimizer: Any, model: nn.Module, x: torch.Tensor, y: torch.Tensor,
                    steps: int = 3) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    """A few Gauss-Newton optimizer steps on an MLP regression loss; the losses and the
    updated parameters.  The loop backpropagates itself, so it runs under enable_grad."""
    losses = []
    with torch.enable_grad():
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step(x)
            losses.append(loss.detach())
    return torch.stack(losses), tuple(p.detach().clone() for p in model.parameters())


def _r10a_tmz_gna_optimizer(training: bool) -> Built:
    from torchimize.optimizer.gna_opt import GNA

    model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
    optimizer = GNA(model.parameters(), lr=0.1, model=model)  # hessian_approx=True (J^T J), the default
    return _r10a_gna_steps, (optimizer, model, torch.randn(8, 3), torch.randn(8, 2)), {}


def _r10a_skewed_gaussian(p: torch.Tensor, n: int = 16) -> torch.Tensor:
    """torchimize's skewed-Gaussian test model (tests/unit_test_skewed_gaussian.py) on n points, float32 output."""
    x = torch.linspace(-5, 5, n, dtype=p.dtype, device=p.device)
    amp = p[0] / (p[2] * (2 * torch.pi) ** 0.5)
    spread = torch.exp((-(x - p[1]) ** 2.0) / (2 * p[2] ** 2.0))
    skew = 1 + torch.erf((p[3] * (x - p[1])) / (p[2] * 2**0.5))
    return (amp * spread * skew).float()


def _r10a_skewed_gaussian_cost(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (y - _r10a_skewed_gaussian(p)) ** 2


def _r10a_fd_jacobian(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The finite-difference Jacobian that torchimize's test passes to lsq_lma as jac_function."""
    from torchimize.functions.jacobian import jacobian_approx_loop

    return jacobian_approx_loop(p, f=_r10a_skewed_gaussian_cost, dp=1e-6, args=(y,))


def _r10a_tmz_jacobian_loop(training: bool) -> Built:
    y = _r10a_skewed_gaussian(torch.tensor([10.0, -1.0, 2.0, 5.0], dtype=torch.float64))
    y = y + 0.01 * torch.randn(y.shape)
    # initial guess as in the library's test, but with skew 0 (the `p[j] != 0` test's other branch)
    p = torch.tensor([7.5, -0.5, 0.5, 0.0], dtype=torch.float64)
    return _r10a_fd_jacobian, (p, y), {}


# --- rows -------------------------------------------------------------------------

QP_CALL = (
    "`QPFunction(...)` (qp.py:18-183) defines a new `autograd.Function` subclass on every call and returns "
    "its `.apply`; forward (:23-125): `extract_nBatch`/`expandParam` (util.py:44-60, `ndimension()`/`nelement()` "
    "tests), `if check_Q_spd: try: torch.linalg.cholesky(Q) except: raise RuntimeError('Q is not SPD.')` "
    "(a raise decided by the data), `neq = A.size(1) if A.nelement() > 0 else 0`; `pdipm_b.pre_factor_kkt` "
    "(solvers/pdipm/batch.py:375-429: `try: lu_hack(Q) except: raise`, `torch.IntTensor(range(...))` pivots); "
    "`pdipm_b.forward` (batch.py:47-207): boolean-mask writes `I = M < 0; s[I] -= M[I] - 1` and the same for z "
    "(:78-87), then `for i in range(maxIter)`: `try: factor_kkt(...) except: return best` (:110-113; factor_kkt "
    "(:435-470) caches a module-global `factor_kkt_eye` (`global`, rebuilt when `.size()` changes), "
    "`T[factor_kkt_eye] += ...` mask write, `torch.lu_unpack` of the pivots and in-place pivot/LU block writes "
    "into the saved `S_LU`), `I = resids < best['resids']; if I.sum() > 0:` (tensor in a Python `if`, Python "
    "counter `nNotImproved`), masked writes `best['x'][I_nz] = x[I_nz]` etc., the stop "
    "`if nNotImproved == notImprovedLim or best['resids'].max() < eps or mu.min() > 1e32:` (:140) and "
    "`if best['resids'].max() > 1. and verbose >= 0: print(INACC_ERR)` (:141-142, :205-206); `get_step` "
    "(:210-213) `a[dv > 0] = max(1.0, a.max())` (Python `max` of a float and a 0-d tensor, then a mask write); "
    "in-place `x += ...`, `s += ...`, `z += ...`"
)
QP_BACKWARD = (
    "backward (qp.py:128-182): `torch.clamp(ctx.lams, min=1e-8) / torch.clamp(ctx.slacks, ...)`, "
    "`factor_kkt` again (global eye cache, in-place writes into `ctx.S_LU`), `solve_kkt` (batch.py:349-372, "
    "`lu_solve`s), `bger` outer products, `if G_e: dGs = dGs.mean(0)` etc. (Python bools from `expandParam`), "
    "`if neq > 0:` branch"
)
QP_FLOAT32_DEFAULT_EPS = (
    "with float32 and the default eps=1e-12 the eps test cannot pass: once mu is tiny the iterates turn NaN "
    "(NaN comparisons are False, so `best` keeps the last finite iterate per instance) and the loop ends on "
    "`nNotImproved == notImprovedLim` (3 iterations in which no instance of the batch improved)"
)
GNA_CONTROL = (
    "control: no tensor value reaches Python on this path.  `GNA.step` (optimizer/gna_opt.py:43-101, "
    "@torch.no_grad): `if closure is not None` (Python), `if p.grad is not None` (None tests), "
    "`dict(self._model.named_parameters())`, `torch.autograd.functional.jacobian` of a `torch.func.functional_call` "
    "of the model over its parameters (vectorize=False: one autograd.grad per output element, a shape-driven "
    "Python loop), per parameter `j.flatten(...)`, `try: h = j.T.matmul(j) except RuntimeError: h = None` "
    "(fails on shapes or memory only), `gna_update` (:103-132): `if h is None` fallback, diagonal "
    "`as_strided(...).copy_` of `h.diagonal() + eps`, `h.pinverse()`, `if h_i.shape[-1] == d_p.flatten().shape[0]` "
    "(shape test) else `raise Exception`, `param.add_(d2_p, alpha=-lr)`; around it the caller's loop: "
    "`zero_grad`, `mse_loss`, `loss.backward()`, `loss.detach()`"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r10a_qpth_ineq_batched_pdipm", *QPTH,
            "qpth.qp.QPFunction(eps=1e-5)(Q (3, 4, 4), p (3, 4), G (3, 6, 4), h (3, 6), e, e) (float32, "
            "batched PDIPM, no equality constraints: e = torch.Tensor())",
            ("qpth",), _r10a_qpth_ineq_batched, frozen=("4", "5"),
            notes="per-instance Q (SPD), p, G and strictly feasible h; the empty equality tensors are frozen "
            "(qpth returns None for them); eps=1e-5 suits float32 (the default 1e-12 is below float32 precision)",
            patterns=QP_CALL + "; the loop ends on the eps test (`best['resids'].max() < eps`, 7th iteration); "
            + QP_BACKWARD,
        ),
        Row(
            "r10a_qpth_eq_ineq_shared_verbose", *QPTH,
            "qpth.qp.QPFunction(verbose=1, maxIter=30)(Q (5, 5), p (2, 5), G (4, 5), h (2, 4), A (2, 5), "
            "b (2, 2)) (float64; Q, G, A shared across a batch of 2)",
            ("qpth",), _r10a_qpth_eq_ineq_shared,
            notes="verbose=1 prints one progress line per interior-point iteration (8 lines); the shared 2-D Q, "
            "G, A are expanded in forward and their gradients averaged over the batch (`.mean(0)`) in backward",
            patterns=QP_CALL + "; with equality constraints: `pre_factor_kkt` LU of A Q^-1 A^T with "
            "`torch.lu_unpack` and `S_LU_pivots[:, :neq] = ...`, `factor_kkt` re-pivots the S_LU_21 block "
            "(`if neq > 0:`), `best['y'][I_neq] = y[I_neq]`; verbose: `print('iter: {}, pri_resid: {:.5e}, ...'"
            ".format(i, pri_resid.mean(), dual_resid.mean(), mu.mean()))` each iteration (batch.py:115-117: "
            "0-d tensors formatted as Python floats); the loop ends on `best['resids'].max() < eps` (1e-12, "
            "float64, 8th iteration); " + QP_BACKWARD + " with `Q_e`/`G_e`/`A_e` True (`.mean(0)`)",
        ),
        Row(
            "r10a_qpth_optnet_layer", *QPTH,
            "OptNet-style nn.Module: Linear(8, 12)+BatchNorm1d+ReLU, Linear(12, 4)+BatchNorm1d+ReLU, then "
            "QPFunction()(Q = L L^T + 1e-4 I (4, 4), x, G (6, 4), h = G z0 + s0, e, e), log_softmax; x (5, 8)",
            ("qpth",), _r10a_qpth_optnet,
            notes="the OptNet classifier of qpth's README / the OptNet paper (learned tril factor L masked by a "
            "tril buffer, learned G, z0, s0); training mode uses batch statistics in BatchNorm; QPFunction "
            "defaults (eps=1e-12, verbose=0, notImprovedLim=3, maxIter=20) in float32",
            patterns="module forward builds `torch.eye`, `torch.Tensor()` and calls " + QP_CALL + "; "
            + QP_FLOAT32_DEFAULT_EPS + " (11-13 of the 20 iterations); " + QP_BACKWARD
            + " with `Q_e`/`G_e`/`h_e` True (`.mean(0)`)",
        ),
        Row(
            "r10a_qpth_simplex_projection", *QPTH,
            "projection of x (4, 6) onto the probability simplex as a QP layer: QPFunction()(I, -x, -I, 0, "
            "ones (1, 6), ones (1,)) (float32, one equality and 6 inequality constraints, all shared)",
            ("qpth",), _r10a_qpth_simplex, loss=_r10a_weighted_loss,
            notes="the constraint tensors are built inside the call (constants); x gets the gradient; the "
            "projections are sparse (17 of 24 coordinates at 0), so several inequalities are active; the loss "
            "weights coordinate i by i + 1 (every projection sums to 1, so the plain sum has zero gradient)",
            patterns=QP_CALL + "; with one equality constraint (`neq > 0` branches: `pre_factor_kkt` LU of "
            "A Q^-1 A^T, `factor_kkt` re-pivoting, `best['y'][I_neq] = y[I_neq]`); " + QP_FLOAT32_DEFAULT_EPS
            + " (12 iterations); " + QP_BACKWARD + " with every constraint tensor expanded (their "
            "gradients are computed, averaged with `.mean(0)` and dropped: they need none)",
        ),
        Row(
            "r10a_tmz_gna_optimizer_control", *TORCHIMIZE,
            "torchimize.optimizer.gna_opt.GNA(model.parameters(), lr=0.1, model=model) (hessian_approx=True), "
            "3 x (zero_grad, mse_loss(model(x), y).backward(), step(x)) on Linear(3, 6)-Tanh-Linear(6, 2), "
            "x (8, 3), y (8, 2)",
            ("torchimize",), _r10a_tmz_gna_optimizer, modes=INFERENCE,
            notes="inference only: an optimizer loop that backpropagates itself (the callable wraps it in "
            "torch.enable_grad(), as round9_b did) and updates the parameters in place; returns the three "
            "losses and the updated parameters; importing gna_opt warns (distutils LooseVersion deprecation)",
            patterns=GNA_CONTROL,
        ),
        Row(
            "r10a_tmz_jacobian_approx_loop", *TORCHIMIZE,
            "torchimize.functions.jacobian.jacobian_approx_loop(p (4,) float64, f=cost, dp=1e-6, args=(y (16,),)) "
            "on the library's skewed-Gaussian test cost (y - model(p))**2 (float32 model output)",
            ("torchimize",), _r10a_tmz_jacobian_loop, frozen=("0",),
            notes="the finite-difference Jacobian that torchimize's tests pass to lsq_lma as jac_function "
            "(tests/unit_test_skewed_gaussian.py), here on 16 points; p (the evaluation point) is frozen: each "
            "perturbed point is rebuilt with torch.tensor (no graph), so a gradient for p would see only half "
            "of each difference quotient; the data y gets the gradient",
            patterns="`jacobian_approx_loop` (functions/jacobian.py:60-84): `n = len(p)`, "
            "`jac = torch.zeros([n, len(args[0])])`, `for j in range(n):` "
            "`dpj = abs(p[j]) * dp if p[j] != 0 else dp` (a 0-d tensor in a Python conditional; both branches "
            "taken: the skew starts at 0), `p_plus = torch.tensor([(pi if k != j else pi + dpj) for k, pi in "
            "enumerate(p)])` (iterating a tensor, Python `!=` on ints, a new tensor built from 0-d tensors, "
            "i.e. Python floats), `jac[j] = (fun(p_plus) - fun(p)) / dpj` (row writes), `return jac.T`; the "
            "cost calls `torch.linspace(..., dtype=p.dtype)` and `.float()`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round ten (r10a)")
