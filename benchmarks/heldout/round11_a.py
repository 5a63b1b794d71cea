"""Held-out round eleven (r11a): pypose.

Chosen by reading pypose 0.9.5's source, written down in ROUND11.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

pypose's data-dependent code sits in three places, and the rows cover each:
its second-order optimizers (``pypose.optim``: the Levenberg-Marquardt
rejection loop ``while self.last <= self.loss``, the trust-region strategy's
``if quality > pg['high']`` on a 0-d tensor and Python ``max``/``min`` on it,
robust kernels with ``assert torch.all(input >= 0)`` and boolean-mask writes,
the Triggs corrector's boolean-mask selection, solvers' ``assert not
torch.any(torch.isnan(...))`` and the ``StopOnPlateau`` scheduler's early stop
with ``print``); its geometry (``ICP`` with a ``ReduceToBason`` stepper whose
``while continual()`` stops on ``torch.all(loss < tol)`` and a patience count,
``svdtf``'s ``R[mask] = -R[mask]``, ``nbr_filter``'s radius mask that selects a
data-dependent number of points, then ``knn_filter``'s ``topk``); and its LieTensor kernels
(the small-angle branches of ``so3_Exp``/``so3_Jl`` written as boolean-mask
index writes, ``SO3_Log``'s three-way masks, ``mat2SO3``'s ``if not
torch.allclose(...): raise`` checks, and ``LieTensor.__torch_function__``).
The control is one step of the unscented Kalman filter (Cholesky sigma
points, ``pinv``, no tensor value reaching Python).  The two optimizer rows
are inference only (the optimizers' ``step`` is ``@torch.no_grad()`` and
updates the parameters in place); the others run in both modes.  Everything
is float64 except the so3 row (float32, where the small-angle threshold is
float32's eps) and the point-filter row (float32).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

PYPOSE = ("pypose", "0.9.5")
F64 = torch.float64


# --- pypose.optim -----------------------------------------------------------------


class _R11aPoseInv(nn.Module):
    """pypose's documented pose-inversion model: Log of a learned SE3 pose times the input."""

    def __init__(self, *dim: int, sigma: float = 1.0) -> None:
        import pypose as pp

        super().__init__()
        self.pose = pp.Parameter(pp.randn_SE3(*dim, sigma=sigma, dtype=F64))

    def forward(self, input: Any) -> torch.Tensor:
        return (self.pose @ input).Log().tensor()


def _r11a_lm_steps(optimizer: Any, model: nn.Module, poses: Any,
                   steps: int = 4) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A few LM steps; the losses, the number of rejected steps per call and the pose."""
    losses, rejects = [], []
    for _ in range(steps):
        losses.append(optimizer.step(poses).detach().clone())
        rejects.append(optimizer.reject_count)
    return torch.stack(losses), torch.tensor(rejects), model.pose.detach().tensor().clone()


def _r11a_lm_trust_region_huber(training: bool) -> Built:
    import pypose as pp

    model = _R11aPoseInv(3, sigma=2.0)
    poses = pp.randn_SE3(3, sigma=2.0, dtype=F64)
    optimizer = pp.optim.LM(model, kernel=pp.optim.kernel.Huber(delta=0.5),
                            strategy=pp.optim.strategy.TrustRegion(radius=1.0))
    return _r11a_lm_steps, (optimizer, model, poses), {}


class _R11aExpCurve(nn.Module):
    """y = a * exp(b * x) + c, residual's last dimension 1 (as pypose's optimizers document)."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Parameter(torch.tensor([1.5], dtype=F64))
        self.b = nn.Parameter(torch.tensor([-0.5], dtype=F64))
        self.c = nn.Parameter(torch.tensor([0.5], dtype=F64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a * torch.exp(self.b * x) + self.c


def _r11a_gn_plateau(scheduler: Any, model: nn.Module, x: torch.Tensor,
                     y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, ...]]:
    """StopOnPlateau.optimize (steps until the scheduler stops); the final loss, the
    number of steps taken and the fitted parameters."""
    scheduler.optimize(input=x, target=y)
    return (scheduler.optimizer.loss.detach().clone(), torch.tensor(scheduler.steps),
            tuple(p.detach().clone() for p in model.parameters()))


def _r11a_gn_cauchy_triggs(training: bool) -> Built:
    import pypose as pp

    model = _R11aExpCurve()
    x = torch.linspace(-1.0, 1.5, 16, dtype=F64).unsqueeze(-1)
    y = 2.0 * torch.exp(-0.7 * x) + 0.3 + 0.01 * torch.randn(16, 1, dtype=F64)
    y[[3, 9, 13]] += torch.tensor([[2.0], [-3.0], [4.0]], dtype=F64)  # outliers
    kernel = pp.optim.kernel.Cauchy(delta=0.5)
    optimizer = pp.optim.GN(model, kernel=kernel, corrector=pp.optim.corrector.Triggs(kernel))
    scheduler = pp.optim.scheduler.StopOnPlateau(optimizer, steps=10, patience=2, decreasing=1e-6,
                                                 verbose=True)
    return _r11a_gn_plateau, (scheduler, model, x, y), {}


# --- geometry ---------------------------------------------------------------------


def _r11a_icp(icp: nn.Module, source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """ICP's estimated SE3 transformation as a plain tensor."""
    return icp(source, target).tensor()


def _r11a_icp_batched(training: bool) -> Built:
    import pypose as pp

    source = torch.randn(2, 24, 3, dtype=F64)
    transform = pp.SE3(torch.cat([0.1 * torch.randn(2, 3, dtype=F64),
                                  pp.so3(0.15 * torch.randn(2, 3, dtype=F64)).Exp().tensor()], -1))
    target = transform.unsqueeze(-2).Act(source) + 0.01 * torch.randn(2, 24, 3, dtype=F64)
    target = target[:, torch.randperm(24)]
    icp = pp.module.ICP(stepper=pp.utils.ReduceToBason(steps=8, patience=2, verbose=True))
    return _r11a_icp, (icp, source, target), {}


def _r11a_nbr_knn_filter(points: torch.Tensor) -> torch.Tensor:
    """Outlier removal, then smoothing: drop points with fewer than 3 neighbours within 0.8,
    then average each kept point with its 3 nearest kept neighbours.  (knn_filter's own
    ``radius=`` does both in one call, but indexes the unfiltered columns into the filtered
    points, so it raises as soon as a point is removed; see ROUND11.md.)"""
    import pypose as pp

    inliers = pp.nbr_filter(points, nbr=3, radius=0.8)
    return pp.knn_filter(inliers, k=3)


def _r11a_nbr_knn_filter_outliers(training: bool) -> Built:
    inliers = 0.3 * torch.randn(20, 3)
    outliers = torch.tensor([[4.0, 0.0, 0.0], [0.0, -5.0, 1.0], [3.0, 3.0, 3.0]])
    points = torch.cat([inliers[:7], outliers[:1], inliers[7:14], outliers[1:], inliers[14:]])
    return _r11a_nbr_knn_filter, (points,), {}


# --- LieTensor --------------------------------------------------------------------


def _r11a_so3_roundtrip(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Exp of so3 vectors, Log back, and the right Jacobian of the rotations."""
    import pypose as pp

    R = pp.so3(x).Exp()
    return R.tensor(), R.Log().tensor(), R.Jr()


def _r11a_so3_small_angle(training: bool) -> Built:
    x = torch.randn(6, 3)
    x[1] = x[1] * 1e-9  # below float32 eps: the series branches of Exp and Jr, Log's idx3 branch
    x[4] = x[4] * 1e-12  # (an exactly zero row would give R.Jr() a NaN gradient: norm's backward at 0)
    return _r11a_so3_roundtrip, (x,), {}


def _r11a_mat2se3_log(mat: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A checked conversion of 4x4 transformation matrices to SE3, and its Log."""
    import pypose as pp

    T = pp.mat2SE3(mat, check=True)
    return T.tensor(), T.Log().tensor()


def _r11a_mat2se3_checked(training: bool) -> Built:
    import pypose as pp

    mats = pp.randn_SE3(5, sigma=1.0, dtype=F64).matrix()
    mats[2, :3, :3] = torch.eye(3, dtype=F64)  # identity rotation: Log's small-angle branches
    mats[3, :3, :3] = torch.diag(torch.tensor([1.0, -1.0, -1.0], dtype=F64))  # rotation by pi: trace -1
    return _r11a_mat2se3_log, (mats.contiguous(),), {}


# --- filters (control) ------------------------------------------------------------


class _R11aNLS:
    """Built lazily: pypose.module.NLS subclass of the UKF docstring (cos transition, sin observation)."""

    @staticmethod
    def make() -> nn.Module:
        import pypose as pp

        class NLS(pp.module.NLS):
            def state_transition(self, state, input, t=None):
                return state.cos() + input

            def observation(self, state, input, t=None):
                return state.sin() + input

        return NLS()


def _r11a_ukf_step(training: bool) -> Built:
    import pypose as pp

    n = 3
    ukf = pp.module.UKF(_R11aNLS.make())
    x = torch.randn(n, dtype=F64)
    y = torch.randn(n, dtype=F64)
    u = torch.randn(n, dtype=F64)
    P = torch.eye(n, dtype=F64) * 2.0 + 0.1 * torch.ones(n, n, dtype=F64)
    Q = torch.eye(n, dtype=F64) * 0.01
    R = torch.eye(n, dtype=F64) * 0.01
    return ukf, (x, y, u, P, Q, R), {}


# --- rows -------------------------------------------------------------------------

LIE_DISPATCH = (
    "every LieTensor op goes through `LieTensor.__torch_function__` (lietensor.py:950-968: a generator over "
    "`types`, `Tensor.__torch_function__`, `func.__name__ in HANDLED_FUNCTIONS`, `tree_flatten` of the args, "
    "a `wrap` closure that re-subclasses outputs and `warnings.warn`s on a wrong last dimension), "
    "`LieTensor(...)` construction with an `assert self.shape[-1:] == ltype.dimension`, `.tensor()` "
    "(`Tensor.as_subclass`)"
)
OPTIM_STEP = (
    "`modjac` (optim/functional.py:131-156: `torch.autograd.functional.jacobian` of a `functional_call`, "
    "vectorized, then `assert not hasnan(J)`), `flatten_row_jacobian`, `normalize_RWJ` (Python loops, "
    "`torch.cat`), `update_parameter` (`step.split([p.numel() ...])`, `p.add_(...)` in place; on a LieTensor "
    "parameter `add_` is a retraction `Exp(d) * X` copied in)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r11a_lm_trust_region_huber", *PYPOSE,
            "pypose.optim.LM(PoseInv(3), kernel=Huber(delta=0.5), strategy=TrustRegion(radius=1e2)) "
            "(Cholesky solver, FastTriggs corrector by default), 4 x step(poses); PoseInv = "
            "(pose @ input).Log() with a learned SE3 pose (3,) float64",
            ("pypose",), _r11a_lm_trust_region_huber, modes=INFERENCE,
            notes="inference only: `LM.step` is `@torch.no_grad()` and updates the pose in place (it builds "
            "its own Jacobian with `torch.autograd.functional.jacobian`); the model is the pose-inversion "
            "example of pypose's docs (float64, poses drawn with sigma=2); the loss falls from 6.8 to 2.3e-3 in "
            "the four steps, each accepted at once (the reject branch is not taken); returns the four losses, "
            "the reject count of each step and the pose",
            patterns="`LM.step` (optim/optimizer.py:623-676): " + OPTIM_STEP + "; the auto `FastTriggs` "
            "corrector (corrector.py:86-96: `assert not torch.is_inference_mode_enabled()`, `enable_grad` "
            "jacobian of the kernel sum, `.sqrt()`); `A.diagonal().clamp_(...)` in place; "
            "`self.last = self.loss = self.loss if hasattr(self, 'loss') else ...` (attribute test), "
            "`while self.last <= self.loss:` (0-d tensor compare as the loop test), "
            "`A.diagonal().add_(A.diagonal() * pg['damping'])` in place, `try: D = self.solver(...) except "
            "Exception as e: print(...); break`, `Cholesky` (solver.py:212-216: `cholesky_ex`, "
            "`assert not torch.any(torch.isnan(L))`), the Huber kernel (kernel.py:42-53: "
            "`assert torch.all(input >= 0)`, `mask = input.sqrt() < delta`, `output[mask] = input[mask]`, "
            "`output[~mask] = ...` boolean-mask reads and writes), `TrustRegion.update` (strategy.py:258-273: "
            "`quality = (last - loss) / ...` a 0-d tensor, `if quality > pg['high']: elif quality > "
            "pg['low']:`, `pg['radius'] = max(self.min, min(pg['radius'], self.max))`: Python `max`/`min` "
            "on tensors, written into the param-group dict), `if self.last < self.loss and self.reject_count "
            "< self.reject:` reject branch (undo the step, count) else `break`; " + LIE_DISPATCH,
        ),
        Row(
            "r11a_gn_cauchy_triggs_stop_on_plateau", *PYPOSE,
            "pypose.optim.scheduler.StopOnPlateau(GN(model, kernel=Cauchy(0.5), corrector=Triggs(kernel)), "
            "steps=10, patience=2, decreasing=1e-6, verbose=True).optimize(input=x, target=y) on "
            "y = a exp(b x) + c (3 parameters), x, y (16, 1) float64 with 3 outliers",
            ("pypose",), _r11a_gn_cauchy_triggs, modes=INFERENCE,
            notes="inference only: `optimize` is `@torch.no_grad()` and updates the parameters in place "
            "(`GN.step` computes its own Jacobian); it stops on patience after 6 steps (loss 4.62 -> 2.65); "
            "verbose prints one line per step and the stop reason; "
            "returns the final loss, the step count and the fitted parameters",
            patterns="`StopOnPlateau.optimize` (optim/scheduler.py:198-201): `while self.continual():` "
            "with `GN.step` (optimizer.py:311-329: " + OPTIM_STEP + "; `PINV` solver = `torch.linalg.pinv`; "
            "`self.last = self.loss if hasattr(self, 'loss') else ...`) and `StopOnPlateau.step` "
            "(scheduler.py:127-162: `assert self.optimizer.loss is not None`, `print('... {:.6e} ...'"
            ".format(last, loss, (last - loss) / (last + 1e-31)))` (0-d tensors formatted as floats), "
            "`if (self.optimizer.last - self.optimizer.loss) < self.decreasing:` (tensor in a Python `if`, "
            "Python patience counter), `if self.patience_count >= self.patience: self._continual = False; "
            "print(...)`, `hasattr(self.optimizer, 'reject_count')`); the `Triggs` corrector (corrector.py:"
            "143-166: `enable_grad` `grad(..., create_graph=True)` twice, `.detach_()`, "
            "`M = ~((x==0)|(g2 <=0)).squeeze(-1)` and boolean-mask reads and writes `x[M]`, `sR[M] = ...`, "
            "`sJ[M] = ...` (data-dependent counts: the Cauchy kernel is concave, so M selects none)); the "
            "Cauchy kernel's `assert torch.all(input >= 0)` on every loss and correction",
        ),
        Row(
            "r11a_icp_reduce_to_bason", *PYPOSE,
            "pypose.module.ICP(stepper=pypose.utils.ReduceToBason(steps=8, patience=2, verbose=True))"
            "(source (2, 24, 3), target (2, 24, 3)) (float64), `.tensor()` of the SE3 result",
            ("pypose",), _r11a_icp_batched,
            notes="target = a small random SE3 applied to source, plus noise, points shuffled; the stepper "
            "prints each step's batched error and the stop reason; source and target get gradients (through "
            "the SVDs and the nearest-neighbour gathers)",
            patterns="`ICP.forward` (module/icp.py:81-110): `self.stepper.reset()`, `while "
            "self.stepper.continual():` with `knn` (function/geometry.py:228-313: `torch.linalg.norm` of "
            "pairwise differences, `topk(k, largest=False)`), `torch.gather` of the nearest targets, `svdtf` "
            "(geometry.py:345-358: `torch.linalg.svd`, `mask = (R.det() + 1).abs() < 1e-6`, "
            "`R[mask] = - R[mask]` boolean-mask write, `mat2SE3(T, check=False)`), `T.unsqueeze(-2) @ "
            "temporal` (LieTensor Act), and `ReduceToBason.step` (utils/stepper.py:61-95: `print('ReduceToBason "
            "step', self.steps, 'loss', loss)` of a tensor, `if not torch.is_tensor(loss)`, `if "
            "torch.all(loss < self.tol):`, `if torch.all((self.last - loss)/loss < self.decreasing):` "
            "(tensor tests in Python `if`s), Python patience counter and `_continual` flag, tensor kept on "
            "`self.last`); a final `svdtf(source, temporal)`; `mat2SE3`'s `mat2SO3` mask arithmetic; "
            + LIE_DISPATCH,
        ),
        Row(
            "r11a_nbr_then_knn_filter", *PYPOSE,
            "wrapper: pypose.knn_filter(pypose.nbr_filter(points, nbr=3, radius=0.8), k=3) on points (23, 3) "
            "(float32; 20 clustered points, 3 far outliers)",
            ("pypose",), _r11a_nbr_knn_filter_outliers,
            notes="nbr_filter drops the points with fewer than 3 neighbours within 0.8 (here exactly the 3 "
            "outliers: 20 of 23 kept; the count depends on the data), then knn_filter averages each kept point with its 3 nearest kept neighbours; points "
            "get the gradient (through the masked selection and the gathered means); knn_filter's own "
            "`radius=` path is not used: it raises an index error whenever it removes a point (library bug)",
            patterns="`nbr_filter` (function/geometry.py:484-493: shape asserts, pairwise `torch.linalg.norm`, "
            "`count = torch.sum(norm <= radius, dim=-1) - 1`, `mask = count >= nbr`, `points[mask]` "
            "(boolean-mask selection: a data-dependent number of rows)), then `knn_filter` (geometry.py:"
            "646-664) on that data-sized tensor: `pdim = points.size(-1) if pdim == None`, pairwise norms of "
            "the kept points, `dist.topk(k+1, largest=False)`, `points.size() + torch.Size([k+1])` (a shape "
            "built from the data-dependent size), `expand`, `torch.gather(...).mean(-1)`",
        ),
        Row(
            "r11a_so3_exp_log_jr_small_angle", *PYPOSE,
            "wrapper: R = pypose.so3(x).Exp(); returns R.tensor(), R.Log().tensor(), R.Jr() for x (6, 3) "
            "float32 with two rows scaled by 1e-9 and 1e-12",
            ("pypose",), _r11a_so3_small_angle,
            notes="two of the six rotation angles are below float32's eps, so both sides of every small-angle "
            "branch run (and Log's third branch, `v_norm <= eps`, for those two); x gets the gradient, "
            "through the autograd Functions' own backward (so3_Jl, so3_Jl_inv) and through Jr's masked "
            "writes; no row is exactly zero: there Jr's gradient is NaN (`torch.linalg.norm` backward at 0)",
            patterns="`so3_Exp.forward` (lietensor/operation.py:340-358: `idx = theta > finfo.eps`, "
            "`imag_factor[idx] = ...`, `real_factor[~idx] = ...`: boolean-mask reads and index writes with "
            "data-dependent counts) and its backward `so3_Jl` (:7-20, the same masked writes into "
            "`coef1`/`coef2`); `SO3_Log` (:304-337: `v_norm > eps`, `w_abs > eps`, three mask products with "
            "`torch.nan_to_num` of each branch, `pm(w)`) and its backward `so3_Jl_inv` (`nan_to_num` masks); "
            "`SO3Type.Jr` = `X.Log().Jr()` -> `so3_Jl` masked writes again; custom `autograd.Function`s with "
            "`generate_vmap_rule` and `setup_context`; " + LIE_DISPATCH,
        ),
        Row(
            "r11a_mat2se3_checked_log", *PYPOSE,
            "wrapper: T = pypose.mat2SE3(mat, check=True); returns T.tensor(), T.Log().tensor() for mat (5, 4, 4) "
            "float64 (random SE3 matrices, one with the identity rotation, one a rotation by pi)",
            ("pypose",), _r11a_mat2se3_checked,
            notes="the identity rotation takes Log's small-angle branches, the rotation by pi (trace -1) "
            "the quaternion branch with `rmat_t[..., 2, 2] < atol` and a zero real part (SO3_Log's "
            "`idx2` branch, `pm(w) * pi`); mat gets the gradient (the checks run under no_grad)",
            patterns="`mat2SE3` (lietensor/convert.py:236-257: `if shape[-2:] == (4, 4) and check == True:` "
            "`if not torch.allclose(mat[..., 3, :], ...): warnings.warn(...)` (a tensor test guarding a "
            "warning)) and `mat2SO3` (convert.py:74-140: `with torch.no_grad(): if check: if not "
            "torch.allclose(mat @ mat.mT, eye): raise ValueError(...)`, `if not torch.allclose(torch.det(mat), "
            "ones): raise ValueError(...)` (raises guarded by tensor tests), then four comparison masks "
            "`type_as`-ed and multiplied in (branch-free selection), `q /= 2*torch.sqrt(...)` in place); "
            "`SE3_Log` (operation.py: `SO3_Log` three-way masks with `nan_to_num`, `so3_Jl_inv`) and in "
            "backward `calcQ`/`se3_Jl` (`nan_to_num` masks); " + LIE_DISPATCH,
        ),
        Row(
            "r11a_ukf_step_control", *PYPOSE,
            "pypose.module.UKF(NLS)(x (3,), y (3,), u (3,), P (3, 3), Q (3, 3), R (3, 3)) (float64; NLS: "
            "state.cos() + input, observation state.sin() + input, as in the UKF docstring)",
            ("pypose",), _r11a_ukf_step,
            notes="control: one unscented filter step; every input gets a gradient",
            patterns="control: no tensor value reaches Python on this path.  `UKF.forward` (module/ukf.py:"
            "163-205): `k = 3 - x.size(-1)` (shape), `Q if Q is not None else self.Q` (None tests), "
            "`self.model.set_refpoint(...)` (dynamics.py: `torch.atleast_1d`, attribute writes, two model "
            "evaluations), `sigma_weight_points` twice (shape assert, `torch.linalg.cholesky` of (n + k) P, "
            "`torch.full` weights, `torch.cat`), `compute_cov` (batched outer products), `torch.linalg.pinv`, "
            "`bmv` (`squeeze_` in place)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round eleven (a)")
