"""Held-out round eighteen (r18c): torchcfm.

Chosen by reading the library's source, written down in ROUND18.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

torchcfm 1.0.7 (Tong, Fatras et al.'s conditional flow matching library) holds
the flow matchers of conditional_flow_matching.py (``ConditionalFlowMatcher``
(I-CFM), ``ExactOptimalTransportConditionalFlowMatcher`` (OT-CFM),
``TargetConditionalFlowMatcher`` (Lipman et al.'s flow matching),
``SchrodingerBridgeConditionalFlowMatcher`` (SB-CFM, [SF]2M with
``compute_lambda``) and ``VariancePreservingConditionalFlowMatcher``), whose
``sample_location_and_conditional_flow(x0, x1)`` draws the time ``t``, the point
``xt`` on the probability path and the target velocity ``ut`` that a user's
network regresses; the minibatch optimal-transport sampler ``OTPlanSampler``
and ``wasserstein`` of optimal_transport.py, built on POT (``ot``, 0.9.7.post1);
and ``torchcfm.models.MLP`` (models/models.py: ``Linear``/``SELU`` layers, the
input widened by one for the time when ``time_varying=True``), the velocity
network of the library's 2D examples, used here as every row's network (width
32).  The rows write the examples' training step: ``t, xt, ut =
FM.sample_location_and_conditional_flow(x0, x1)``, ``vt = model(torch.cat([xt,
t[:, None]], dim=-1))``, ``loss = torch.mean((vt - ut) ** 2)`` (the harness does
the backward in training; the samples ``x0``, ``x1`` are ``frozen``).  No row
imports ``torchcfm.utils`` (it imports matplotlib.pyplot and torchdyn.datasets)
or ``torchcfm.models.unet``, nor anything of torchvision or torchdyn.

The data-dependent code (file:line relative to the ``torchcfm`` package, POT's
relative to ``ot``): ``OTPlanSampler.get_map`` (optimal_transport.py:63-97):
``pot.unif`` marginals (NumPy), ``x.dim() > 2`` reshapes, ``M =
torch.cdist(x0, x1) ** 2``, with ``normalize_cost`` ``M = M / M.max()``
(optimal_transport.py:85-86, a tensor reduction, stays in torch), then ``p =
self.ot_fn(a, b, M.detach().cpu().numpy())`` (optimal_transport.py:87: the cost
matrix leaves torch for NumPy; POT's solver chosen in ``__init__``,
optimal_transport.py:48-57), ``if not np.all(np.isfinite(p)):`` -> four
``print``\\ s of the plan, of ``M.mean(), M.max()`` (tensors formatted into the
text) and of ``x0, x1`` (optimal_transport.py:88-92), and ``if np.abs(p.sum())
< 1e-8:`` -> ``warnings.warn("Numerical errors in OT plan, reverting to uniform
plan.")`` and ``p = np.ones_like(p) / p.size`` (optimal_transport.py:93-96);
``sample_map`` (optimal_transport.py:99-121): ``p = pi.flatten(); p = p /
p.sum()``, ``np.random.choice(bs * bs, p=p, size=bs, replace=replace)`` (NumPy's
global generator) and ``np.divmod(choices, bs)``; ``sample_plan`` /
``sample_plan_with_labels`` (optimal_transport.py:123-182): ``x0[i], x1[j]``
(and ``y0[i]``, ``y1[j]``), tensors indexed by NumPy index arrays drawn from the
plan (rows repeated and dropped by the draw); ``sample_trajectory``
(optimal_transport.py:184-214): a plan per pair of consecutive times, a Python
loop over the sample indices drawing ``np.random.choice(bs, p=pi[i] /
pi[i].sum())`` one at a time, ``X[:, t][indices[t]]`` and ``np.stack`` of the
tensors (the result is a NumPy array); ``wasserstein`` (optimal_transport.py:
217-266): ``torch.cdist``, ``.detach().cpu().numpy()``, ``pot.emd2`` and
``math.sqrt`` of the returned cost (a Python float).  In the matchers:
``pad_t_like_x`` (conditional_flow_matching.py:17-38: ``isinstance(t, (float,
int))``, a Python test of the type: the float ``sigma`` of I-CFM and OT-CFM is
returned as is, a tensor reshaped), ``sample_location_and_conditional_flow``
(conditional_flow_matching.py:158-198: ``t = torch.rand(x0.shape[0]).type_as(
x0)`` when no ``t`` is given, ``assert len(t) == x0.shape[0]`` (a size),
``torch.randn_like``); the OT matchers call ``self.ot_sampler.sample_plan`` (or
``sample_plan_with_labels`` in ``guided_sample_location_and_conditional_flow``)
first (conditional_flow_matching.py:267, 306, 502, 541).

What of POT the rows reach: ``ot.unif`` (utils.py:239-259); ``ot.emd`` (lp/
_network_simplex.py:221-529: ``list_to_array``, ``get_backend`` (NumPy),
``np.asarray(M, dtype=np.float64)``, ``np.testing.assert_almost_equal(a.sum(0),
b.sum(0), decimal=6)`` (lp/_network_simplex.py:414-420), ``b = b * a.sum() /
b.sum()``, ``check_number_threads``, ``_compute_active_subset`` of the nonzero
weights, the C++ network simplex ``emd_c`` (the compiled ``emd_wrap``),
``center_ot_dual``, ``np.any(~asel)``, ``check_result(result_code)`` (a warning
when the simplex stops early)); ``ot.emd2`` (lp/_network_simplex.py:531-...,
the same solver, returning the cost); ``ot.sinkhorn`` -> ``sinkhorn_knopp``
(bregman/_sinkhorn.py:21, 487-688: ``K = nx.exp(M / (-reg))``, ``for ii in
range(numItermax)`` (1000) with, every iteration, ``if nx.any(KtransposeU ==
0) or nx.any(nx.isnan(u)) or ...`` -> ``warnings.warn("Warning: numerical
errors at iteration %d")`` and ``break`` (bregman/_sinkhorn.py:635-644), every
tenth the marginal error ``if err < stopThr: break`` (stopThr 1e-9,
bregman/_sinkhorn.py:646-658), and the loop's ``else:`` ->
``warnings.warn("Sinkhorn did not converge. ...")`` (bregman/_sinkhorn.py:
664-670)); ``ot.unbalanced.sinkhorn_knopp_unbalanced`` (unbalanced/_sinkhorn.py:
565-...: ``get_parameter_pair(reg_m)``, ``K = exp(-M / reg) * a b^T``, ``for i in
range(numItermax)`` with the same ``nx.any`` tests and ``warnings.warn``
(unbalanced/_sinkhorn.py:752-771), ``max(nx.max(...), ..., 1.0)`` (NumPy
scalars compared in Python) and ``if err < stopThr: break`` (1e-6,
unbalanced/_sinkhorn.py:788)); ``ot.partial.entropic_partial_wasserstein`` ->
``_entropic_partial_wasserstein_sinkhorn`` (partial/partial_solvers.py:426-
647: ``m = min(sum a, sum b)``, ``if m < 0`` / ``if m > ...`` raises
(partial/partial_solvers.py:591-597), ``np.multiply(K, m / np.sum(K))``,
``while err > stopThr and cpt < numItermax:`` (partial/partial_solvers.py:616,
the error checked every tenth iteration)).  All of POT's work is NumPy on the
detached cost matrix; no gradient passes through a plan (the gradient reaches
the inputs only through the ``x0[i]``, ``x1[j]`` gathers).

Global state on import: ``import torchcfm`` (its ``__init__`` star-imports
conditional_flow_matching, which imports optimal_transport, which imports
``ot``) changes none of torch's state (default dtype, grad mode, threads,
deterministic flag, matmul precision, cuDNN flags, RNG) nor NumPy's global
generator, and does not load ``torch._dynamo``.  ``import ot`` takes about a
second: POT imports scipy, scikit-learn (ot/lowrank.py, ot/gromov), networkx,
pandas, pyarrow, joblib, threadpoolctl and rich.  Through them it adds two
warning filters (scipy.special's ``('always', SpecialFunctionWarning)`` and
scikit-learn's ``ignore`` of "the matrix subclass is not the recommended way"),
the loggers ``sklearn``, ``networkx`` (and ``networkx.utils``,
``networkx.utils.backends``) and ``charset_normalizer`` (a NullHandler), and sets
``KMP_DUPLICATE_LIB_OK=True`` and ``KMP_INIT_AT_FORK=FALSE`` in ``os.environ``
(scikit-learn's ``__init__``).  ``import torchcfm.models`` imports only
models/models.py (torch alone).  The rows that sample draw from NumPy's global
generator (``np.random.choice``), which the harness does not seed: their
builders call ``np.random.seed(...)`` (every harness call follows a fresh
build), and from torch's (``torch.rand`` for ``t``, ``torch.randn_like`` for the
noise; seeded by the harness before each call).  One row warns inside the call
(``r18c_torchcfm_sbcfm_small_sigma_uniform_fallback``, said in its notes); no
row prints or logs.

Library bugs found while reading (checked eagerly): (1) ``get_map`` hands POT
the cost matrix in the data's dtype (float32 for a user's tensors), and
Sinkhorn's kernel ``exp(-M / reg)`` underflows to zero in float32 once ``M /
reg`` passes about 103 (float64: about 745); as soon as one column of ``K``
is zero (one target point far from every source point), POT breaks at
iteration 0 with ``u, v`` at their initial ``1/n`` and returns the unscaled
kernel ``K / n**2``, whose sum is then typically far below ``get_map``'s 1e-8
threshold, so
``get_map`` replaces it by the uniform plan (with only a warning): the
"optimal-transport" minibatch coupling silently becomes the independent
(I-CFM) pairing.  ``OTPlanSampler(method="sinkhorn", reg=0.1)`` (what SB-CFM
builds for ``sigma = 0.05 ** 0.5``) on 64 points of N(0, I) against 64 of the
eight Gaussians at scale 5 fell back to the uniform plan in 3 of 3 seeded
batches (for the first: one zero column, 95% of ``K`` zero, the kernel's plan
summing to 8.8e-13), where the same points in float64 gave a proper plan; the row
``r18c_torchcfm_sbcfm_small_sigma_uniform_fallback`` takes this path on
purpose (its kernel is entirely zero in float32; in float64 it is at most
1e-292 and falls back the same way).  (2) The ``"partial"``
method with torchcfm's default ``reg=0.05`` on an unnormalized cost (squared
distances of a few units) gives a NaN plan: POT computes ``K = exp(-M / reg)``
in the cost's dtype, and in float32 a whole column of ``K`` underflows to zero
as soon as one target point lies farther than about 2.3 (``(103 *
0.05) ** 0.5``) from every source point; the first rescaling then divides 0
by 0 at that column (``q1 * Kprev / K1``, partial/partial_solvers.py:620), the
plan is NaN everywhere and POT prints "Warning: numerical errors at iteration
1"; ``get_map`` then prints "ERROR: p is not
finite", the plan, the cost's mean and max and both batches
(optimal_transport.py:88-92), but returns the NaN plan anyway (its
``np.abs(p.sum()) < 1e-8`` test is False for NaN), and ``sample_map`` would
raise ``ValueError: probabilities contain NaN`` in ``np.random.choice``; no row
takes this path (the partial row normalizes the cost).  (3) The partial
solver's default ``stopThr`` is 1e-100 (partial/partial_solvers.py:563), so
``while err > stopThr and cpt < numItermax`` always runs its 1000 iterations
(torchcfm cannot pass another; not a wrong result, a slow one: about 18 ms
for 12 points, the slowest row here).  (4) ``sample_trajectory`` documents a
``Tensor`` result but returns ``np.stack`` of tensors, a NumPy array (float32),
and raises ``RuntimeError: Can't call numpy() on Tensor that requires grad``
when ``X`` requires grad.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

TORCHCFM = ("torchcfm", "1.0.7")

_BATCH = 16


# --- data and the velocity network ----------------------------------------------------


def _r18c_source(n: int = _BATCH) -> torch.Tensor:
    """The source minibatch: a standard 2D Gaussian (the examples' ``x0``)."""
    return torch.randn(n, 2)


def _r18c_eight_gaussians(n: int = _BATCH, scale: float = 3.0, var: float = 0.1,
                          labels: bool = False) -> Any:
    """The target minibatch: the examples' eight Gaussians (torchcfm.utils.eight_normal_sample, written
    here in torch so that torchcfm.utils (matplotlib, torchdyn) is not imported); with ``labels`` also
    the mode each point was drawn from (int64)."""
    k = torch.randint(0, 8, (n,))
    angle = k.to(torch.float32) * (2 * math.pi / 8)
    centers = torch.stack([torch.cos(angle), torch.sin(angle)], dim=-1) * scale
    x = centers + math.sqrt(var) * torch.randn(n, 2)
    return (x, k) if labels else x


def _r18c_mlp(dim: int = 2, out_dim: int | None = None, training: bool = False) -> Any:
    """torchcfm's own velocity network (models/models.py), width 32, time as an extra input."""
    from torchcfm.models import MLP

    model = MLP(dim=dim, out_dim=out_dim, w=32, time_varying=True)
    model.train(training)
    return model


def _r18c_cfm_step(fm: Any, model: Any, x0: torch.Tensor, x1: torch.Tensor) -> torch.Tensor:
    """One flow-matching training step as torchcfm's 2D examples write it (the harness does the
    backward): draw (t, xt, ut) from the matcher, regress the velocity."""
    t, xt, ut = fm.sample_location_and_conditional_flow(x0, x1)
    vt = model(torch.cat([xt, t[:, None]], dim=-1))
    return torch.mean((vt - ut) ** 2)


# --- rows' builders -------------------------------------------------------------------


def _r18c_otcfm_step(training: bool) -> Built:
    from torchcfm.conditional_flow_matching import ExactOptimalTransportConditionalFlowMatcher

    fm = ExactOptimalTransportConditionalFlowMatcher(sigma=0.1)
    model = _r18c_mlp(training=training)
    x0, x1 = _r18c_source(), _r18c_eight_gaussians()
    np.random.seed(1801)
    return _r18c_cfm_step, (fm, model, x0, x1), {}


def _r18c_guided_step_run(fm: Any, model: Any, x0: torch.Tensor, x1: torch.Tensor,
                          y1: torch.Tensor) -> torch.Tensor:
    """The class-conditional OT-CFM step of torchcfm's conditional examples: the plan pairs the points,
    the target labels follow their points, the velocity network sees the label (one-hot here)."""
    t, xt, ut, _, y1 = fm.guided_sample_location_and_conditional_flow(x0, x1, y1=y1)
    cond = torch.nn.functional.one_hot(y1, 8).to(xt.dtype)
    vt = model(torch.cat([xt, cond, t[:, None]], dim=-1))
    return torch.mean((vt - ut) ** 2)


def _r18c_otcfm_guided(training: bool) -> Built:
    from torchcfm.conditional_flow_matching import ExactOptimalTransportConditionalFlowMatcher

    fm = ExactOptimalTransportConditionalFlowMatcher(sigma=0.0)
    model = _r18c_mlp(dim=2 + 8, out_dim=2, training=training)
    x0 = _r18c_source()
    x1, y1 = _r18c_eight_gaussians(labels=True)
    np.random.seed(1802)
    return _r18c_guided_step_run, (fm, model, x0, x1, y1), {}


def _r18c_sf2m_step_run(fm: Any, model: Any, score_model: Any, x0: torch.Tensor,
                        x1: torch.Tensor) -> torch.Tensor:
    """[SF]2M's training step (torchcfm's SB-CFM 2D example): flow and score regressed together, the
    score weighted by ``compute_lambda(t)``."""
    t, xt, ut, eps = fm.sample_location_and_conditional_flow(x0, x1, return_noise=True)
    lambda_t = fm.compute_lambda(t)
    inp = torch.cat([xt, t[:, None]], dim=-1)
    vt = model(inp)
    st = score_model(inp)
    flow_loss = torch.mean((vt - ut) ** 2)
    score_loss = torch.mean((lambda_t[:, None] * st + eps) ** 2)
    return flow_loss + score_loss


def _r18c_sbcfm_sinkhorn(training: bool) -> Built:
    from torchcfm.conditional_flow_matching import SchrodingerBridgeConditionalFlowMatcher

    fm = SchrodingerBridgeConditionalFlowMatcher(sigma=1.0, ot_method="sinkhorn")
    model, score_model = _r18c_mlp(training=training), _r18c_mlp(training=training)
    x0, x1 = _r18c_source(), _r18c_eight_gaussians()
    np.random.seed(1803)
    return _r18c_sf2m_step_run, (fm, model, score_model, x0, x1), {}


def _r18c_sbcfm_small_sigma(training: bool) -> Built:
    from torchcfm.conditional_flow_matching import SchrodingerBridgeConditionalFlowMatcher

    # reg = 2 * 0.1**2 = 0.02: exp(-M / 0.02) underflows for every pair of these batches
    fm = SchrodingerBridgeConditionalFlowMatcher(sigma=0.1, ot_method="sinkhorn")
    model = _r18c_mlp(training=training)
    x0 = _r18c_source()
    x1 = _r18c_eight_gaussians(scale=1.0, var=0.05) + torch.tensor([6.0, 0.0])
    np.random.seed(1804)
    return _r18c_cfm_step, (fm, model, x0, x1), {}


def _r18c_unbalanced_plan(training: bool) -> Built:
    from torchcfm.optimal_transport import OTPlanSampler

    sampler = OTPlanSampler(method="unbalanced", reg=0.05, reg_m=1.0, normalize_cost=True)
    x0 = torch.randn(12, 3)
    x1 = torch.randn(12, 3) * 0.7 + 1.0
    np.random.seed(1805)
    return sampler.sample_plan, (x0, x1), {"replace": False}


def _r18c_labels_per_class_run(sampler: Any, x0: torch.Tensor, x1: torch.Tensor, y0: torch.Tensor,
                               y1: torch.Tensor) -> tuple[Any, ...]:
    """A labelled minibatch coupling, then the displacement of each target class among the drawn
    pairs (a per-label selection of data-dependent size; a class the draw missed is absent)."""
    x0s, x1s, y0s, y1s = sampler.sample_plan_with_labels(x0, x1, y0, y1)
    per_class = {}
    for c in torch.unique(y1s).tolist():
        sel = y1s == c
        per_class[c] = (x1s[sel] - x0s[sel]).mean(0)
    return x0s, x1s, y0s, y1s, per_class


def _r18c_partial_labels(training: bool) -> Built:
    from torchcfm.optimal_transport import OTPlanSampler

    sampler = OTPlanSampler(method="partial", reg=0.1, normalize_cost=True)
    x0, y0 = _r18c_eight_gaussians(12, scale=2.0, labels=True)
    x1, y1 = _r18c_eight_gaussians(12, scale=4.0, labels=True)
    y0, y1 = y0 % 4, y1 % 4  # four classes
    np.random.seed(1806)
    return _r18c_labels_per_class_run, (sampler, x0, x1, y0, y1), {}


def _r18c_trajectory(training: bool) -> Built:
    from torchcfm.optimal_transport import OTPlanSampler

    sampler = OTPlanSampler(method="exact")
    # 10 cells observed at 4 time points (the single-cell examples' populations), drifting
    X = torch.randn(10, 4, 2) + torch.arange(4.0)[None, :, None] * torch.tensor([1.0, 0.5])
    np.random.seed(1807)
    return sampler.sample_trajectory, (X,), {}


def _r18c_wasserstein_run(x0: torch.Tensor, x1: torch.Tensor) -> tuple[float, float]:
    """The evaluation of torchcfm's examples and runners: W1 and W2 between generated and true points."""
    from torchcfm.optimal_transport import wasserstein

    return wasserstein(x0, x1, power=1), wasserstein(x0, x1, method="exact", power=2)


def _r18c_wasserstein(training: bool) -> Built:
    return _r18c_wasserstein_run, (_r18c_source(24) * 0.8 + 0.3, _r18c_eight_gaussians(20)), {}


def _r18c_matchers_control_run(fms: tuple[Any, ...], model: Any, x0: torch.Tensor,
                               x1: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return tuple(_r18c_cfm_step(fm, model, x0, x1) for fm in fms)


def _r18c_matchers_control(training: bool) -> Built:
    from torchcfm.conditional_flow_matching import (
        ConditionalFlowMatcher,
        TargetConditionalFlowMatcher,
        VariancePreservingConditionalFlowMatcher,
    )

    fms = (ConditionalFlowMatcher(sigma=0.1), TargetConditionalFlowMatcher(sigma=1e-4),
           VariancePreservingConditionalFlowMatcher(sigma=0.1))
    model = _r18c_mlp(training=training)
    return _r18c_matchers_control_run, (fms, model, _r18c_source(), _r18c_eight_gaussians()), {}


# --- rows ------------------------------------------------------------------------------

_MLP = (
    "`MLP.forward` (models/models.py:20-21: `nn.Sequential` of 4 `Linear` and 3 `SELU`)"
)
_STEP = (
    "the step: `torch.cat([xt, t[:, None]], dim=-1)`, " + _MLP + ", `torch.mean((vt - ut) ** 2)`"
)
_BASE = (
    "`ConditionalFlowMatcher.sample_location_and_conditional_flow` (conditional_flow_matching.py:158-198: "
    "`t is None` -> `torch.rand(x0.shape[0]).type_as(x0)`, `assert len(t) == x0.shape[0]`, `torch.randn_like`, "
    "`sample_xt` -> `compute_mu_t` and `compute_sigma_t` with `pad_t_like_x` (conditional_flow_matching.py:36: "
    "`isinstance(t, (float, int))`, a Python type test), `compute_conditional_flow`, `if return_noise`)"
)
_GET_MAP = (
    "`OTPlanSampler.get_map` (optimal_transport.py:63-97: `pot.unif` twice (NumPy), `x0.dim() > 2` tests, `M = "
    "torch.cdist(x0, x1) ** 2`, `M.detach().cpu().numpy()` (the cost leaves torch), `self.ot_fn(a, b, M)` "
    "(POT, below), `if not np.all(np.isfinite(p))` (False here: no print), `if np.abs(p.sum()) < 1e-8`"
)
_SAMPLE_MAP = (
    "`sample_map` (optimal_transport.py:99-121: `pi.flatten()`, `p / p.sum()`, `np.random.choice(n * n, p=p, "
    "size=n, replace=...)` from NumPy's global generator, `np.divmod(choices, n)`)"
)
_EMD = (
    "POT `ot.emd` (partial(pot.emd, numThreads=1); lp/_network_simplex.py:221-529: `list_to_array`, "
    "`get_backend` (NumPy), `np.asarray(M, dtype=np.float64)`, `np.testing.assert_almost_equal(a.sum(0), "
    "b.sum(0))`, `check_number_threads(1)`, `_compute_active_subset`, the compiled network simplex `emd_c`, "
    "`center_ot_dual`, `np.any(~asel)`, `check_result`, `nx.from_numpy(G, type_as=a)` (float64))"
)
_SINKHORN = (
    "POT `ot.sinkhorn(a, b, M, reg=2 * sigma**2)` -> `sinkhorn_knopp` (bregman/_sinkhorn.py:487-688: `K = "
    "nx.exp(M / (-reg))` in float32, `for ii in range(1000)`: `v = b / K.T u`, `u = 1 / (Kp v)`, `if nx.any("
    "KtransposeU == 0) or nx.any(nx.isnan(u)) or ... nx.any(nx.isinf(v))` (bregman/_sinkhorn.py:635-644: NumPy "
    "booleans in a Python `if`), every tenth iteration the marginal error `nx.norm(einsum(...) - b)` and `if "
    "err < stopThr: break` (1e-9), the loop's `else:` -> `warnings.warn('Sinkhorn did not converge. ...')` "
    "(bregman/_sinkhorn.py:664-670), the plan `u[:, None] * K * v[None, :]`)"
)
_SEEDED = (
    "the builder seeds NumPy's global generator (`np.random.seed`), which `sample_map` draws from and the harness "
    "does not seed"
)
_TRAIN = (
    "in training the gradient reaches the MLP's weights (the samples x0, x1 are data: frozen); the MLP has no "
    "dropout or normalization, so its mode changes nothing"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r18c_torchcfm_otcfm_training_step", *TORCHCFM,
            "wrapper: OT-CFM training step: ExactOptimalTransportConditionalFlowMatcher(sigma=0.1)."
            "sample_location_and_conditional_flow(x0 (16, 2) ~ N(0, I), x1 (16, 2) eight Gaussians), MLP(dim=2, "
            "w=32, time_varying=True) on cat([xt, t]), loss mean((vt - ut) ** 2); returns the loss",
            ("torchcfm",), _r18c_otcfm_step, frozen=("2", "3"),
            notes=_TRAIN + "; " + _SEEDED + " (seed 1801); the exact plan of two batches of 16 uniform points "
            "is a permutation (16 nonzero entries of 1/16), so the 16 draws with replacement repeat some pairs "
            "and drop others",
            patterns="`ExactOptimalTransportConditionalFlowMatcher.sample_location_and_conditional_flow` "
            "(conditional_flow_matching.py:267-268) -> `OTPlanSampler.sample_plan` (optimal_transport.py:143-145) "
            "-> " + _GET_MAP + " with " + _EMD + "), " + _SAMPLE_MAP + ", `x0[i], x1[j]` (tensors indexed by NumPy "
            "int64 arrays drawn from the plan) -> " + _BASE + " with the float sigma 0.1; " + _STEP,
        ),
        Row(
            "r18c_torchcfm_otcfm_guided_labels_training_step", *TORCHCFM,
            "wrapper: class-conditional OT-CFM step: ExactOptimalTransportConditionalFlowMatcher(sigma=0.0)."
            "guided_sample_location_and_conditional_flow(x0 (16, 2), x1 (16, 2) eight Gaussians, y1=their mode "
            "labels (16,) int64); MLP(dim=10, out_dim=2, w=32, time_varying=True) on cat([xt, one_hot(y1, 8), t]); "
            "loss mean((vt - ut) ** 2); returns the loss",
            ("torchcfm",), _r18c_otcfm_guided, frozen=("2", "3"),
            notes=_TRAIN + "; the labels are int64 (no gradient); " + _SEEDED + " (seed 1802); as torchcfm's "
            "conditional examples call it (`y0` left None: `y0[i] if y0 is not None else None`)",
            patterns="`ExactOptimalTransportConditionalFlowMatcher.guided_sample_location_and_conditional_flow` "
            "(conditional_flow_matching.py:306-312: `if return_noise`) -> `OTPlanSampler.sample_plan_with_labels` "
            "(optimal_transport.py:175-182) -> " + _GET_MAP + " with " + _EMD + "), " + _SAMPLE_MAP + ", `x0[i], "
            "x1[j]`, `y0[i] if y0 is not None else None`, `y1[j]` (the labels re-drawn with their points) -> " + _BASE
            + " with sigma 0.0 (`pad_t_like_x(0.0, x0)` returns the float; `0.0 * eps`); the step: "
            "`F.one_hot(y1, 8)` (the class count given), `torch.cat`, " + _MLP + ", the loss",
        ),
        Row(
            "r18c_torchcfm_sf2m_sinkhorn_training_step", *TORCHCFM,
            "wrapper: [SF]2M training step: SchrodingerBridgeConditionalFlowMatcher(sigma=1.0, ot_method="
            "'sinkhorn').sample_location_and_conditional_flow(x0 (16, 2), x1 (16, 2) eight Gaussians, "
            "return_noise=True), compute_lambda(t), a flow MLP and a score MLP (each dim=2, w=32, time_varying) "
            "on cat([xt, t]); loss mean((vt - ut)**2) + mean((lambda_t[:, None] * st + eps)**2); returns the loss",
            ("torchcfm",), _r18c_sbcfm_sinkhorn, frozen=("3", "4"),
            notes=_TRAIN.replace("the MLP's weights", "both MLPs' weights").replace("the MLP has", "the MLPs have")
            + "; " + _SEEDED + " (seed 1803); reg = 2 * sigma**2 = 2: POT's Sinkhorn loop meets its stopThr at "
            "iteration 50 (its length decided by the data); no warning (checked eagerly)",
            patterns="`SchrodingerBridgeConditionalFlowMatcher.sample_location_and_conditional_flow` "
            "(conditional_flow_matching.py:502-503) -> `OTPlanSampler.sample_plan` -> " + _GET_MAP + " with "
            + _SINKHORN + "), " + _SAMPLE_MAP + ", `x0[i], x1[j]` -> " + _BASE + " with the SB overrides "
            "(`compute_sigma_t` = `sigma * torch.sqrt(t * (1 - t))`, conditional_flow_matching.py:437; "
            "`compute_conditional_flow` (465-469): `pad_t_like_x`, `(1 - 2t) / (2t(1 - t) + 1e-8)`) and "
            "`return_noise=True`; `compute_lambda` (conditional_flow_matching.py:215-216: `2 * sigma_t / (sigma**2 "
            "+ 1e-8)`); the step: one `torch.cat`, two MLP forwards (" + _MLP + "), the two losses",
        ),
        Row(
            "r18c_torchcfm_sbcfm_small_sigma_uniform_fallback", *TORCHCFM,
            "wrapper: SB-CFM training step with SchrodingerBridgeConditionalFlowMatcher(sigma=0.1, ot_method="
            "'sinkhorn') (reg 0.02) on x0 (16, 2) ~ N(0, I) and x1 (16, 2) eight tight Gaussians shifted by "
            "(6, 0): the Sinkhorn kernel underflows, POT breaks at iteration 0, torchcfm warns and falls back to "
            "the uniform plan; MLP(dim=2, w=32, time_varying) on cat([xt, t]); returns the loss",
            ("torchcfm",), _r18c_sbcfm_small_sigma, frozen=("2", "3"),
            notes=_TRAIN + "; " + _SEEDED + " (seed 1804); the call warns four times, deterministically: NumPy's "
            "RuntimeWarnings 'divide by zero encountered in divide' and 'invalid value encountered in dot' (the "
            "all-zero kernel), POT's 'Warning: numerical errors at iteration 0' and torchcfm's 'Numerical errors "
            "in OT plan, reverting to uniform plan.' (optimal_transport.py:95); every squared distance of the two "
            "batches is above 0.02 * 673 (exp(-M / 0.02) is 0 in float32; in float64 it is at most 1e-292 and "
            "falls back alike; checked eagerly); "
            "the resulting pairing is independent (library bug (1) of the module docstring)",
            patterns="`SchrodingerBridgeConditionalFlowMatcher.sample_location_and_conditional_flow` -> "
            "`OTPlanSampler.sample_plan` -> `get_map` (optimal_transport.py:63-97: `pot.unif`, `torch.cdist(x0, "
            "x1) ** 2`, `M.detach().cpu().numpy()`) -> " + _SINKHORN.replace(
                "`for ii in range(1000)`", "`for ii in range(1000)` (here the first iteration only)")
            + " -> back in `get_map`: `np.all(np.isfinite(p))` (True), `if np.abs(p.sum()) < 1e-8:` (True: the "
            "data test behind the warning) -> `if self.warn:` -> `warnings.warn(...)`, `p = np.ones_like(p) / "
            "p.size` (optimal_transport.py:93-96) -> " + _SAMPLE_MAP + " from the uniform plan, `x0[i], x1[j]` -> "
            + _BASE + " with the SB overrides (`sigma * torch.sqrt(t * (1 - t))`, the SB conditional flow); "
            + _STEP,
        ),
        Row(
            "r18c_torchcfm_ot_sample_plan_unbalanced_normalized", *TORCHCFM,
            "bound method: OTPlanSampler(method='unbalanced', reg=0.05, reg_m=1.0, normalize_cost=True)."
            "sample_plan(x0 (12, 3), x1 (12, 3), replace=False); returns (x0[i], x1[j]), each (12, 3)",
            ("torchcfm",), _r18c_unbalanced_plan,
            notes="in training x0 and x1 require grad (features a user may differentiate): the gradient passes "
            "the two gathers (`M.max()` is taken on the attached cost, the plan on the detached one); " + _SEEDED
            + " (seed 1805); 12 distinct pairs drawn without replacement from the 144 entries of the plan "
            "(all positive)",
            patterns="`OTPlanSampler.sample_plan` (optimal_transport.py:143-145) -> `get_map` (optimal_transport.py:"
            "63-97: `pot.unif`, `torch.cdist(x0, x1) ** 2`, `if self.normalize_cost: M = M / M.max()` (a tensor "
            "reduction divided in torch), `M.detach().cpu().numpy()`) -> POT `ot.unbalanced.sinkhorn_knopp_"
            "unbalanced(a, b, M, reg=0.05, reg_m=1.0)` (unbalanced/_sinkhorn.py:565-...: `list_to_array`, "
            "`get_backend`, `len(a) == 0` tests, `get_parameter_pair(1.0)`, `K = exp(-M / reg) * (a b^T)`, "
            "`fi = reg_m / (reg_m + reg)`, `for i in range(1000)`: `u = (a / K v) ** fi`, `v = (b / K^T u) ** fi`, "
            "`if nx.any(Ktu == 0.0) or nx.any(nx.isnan(u)) or ...` (unbalanced/_sinkhorn.py:760-771), `err_u = "
            "nx.max(|u - uprev|) / max(nx.max(|u|), nx.max(|uprev|), 1.0)` (NumPy scalars in Python's `max`), "
            "`if err < stopThr: break` (1e-6, unbalanced/_sinkhorn.py:788), the plan) -> `np.isfinite`, "
            "`p.sum()` tests -> " + _SAMPLE_MAP.replace("replace=...", "replace=False") + " -> `x0[i], x1[j]`",
        ),
        Row(
            "r18c_torchcfm_ot_partial_plan_with_labels_per_class", *TORCHCFM,
            "wrapper: OTPlanSampler(method='partial', reg=0.1, normalize_cost=True).sample_plan_with_labels(x0 "
            "(12, 2), x1 (12, 2), y0 (12,), y1 (12,) int64 labels in 0..3), then for each class c in "
            "torch.unique(y1[j]).tolist() the mean displacement (x1[j] - x0[i])[y1[j] == c].mean(0); returns the "
            "four drawn tensors and the dict class -> (2,) tensor",
            ("torchcfm",), _r18c_partial_labels,
            notes="in training x0 and x1 require grad and reach the outputs through the gathers and the masked "
            "means; the labels are int64; " + _SEEDED + " (seed 1806); the per-class loop is the user's, over the "
            "classes present among the drawn pairs (how many, and how many pairs each, depends on the draw)",
            patterns="`OTPlanSampler.sample_plan_with_labels` (optimal_transport.py:175-182) -> `get_map` "
            "(optimal_transport.py:63-97: `torch.cdist ** 2`, `M / M.max()`, `M.detach().cpu().numpy()`) -> POT "
            "`ot.partial.entropic_partial_wasserstein(a, b, M, reg=0.1)` -> `_entropic_partial_wasserstein_"
            "sinkhorn` (partial/partial_solvers.py:534-647: `list_to_array`, `get_backend`, `len(a) == 0`, `m = "
            "nx.min(nx.stack((nx.sum(a), nx.sum(b))))`, `if m < 0` / `if m > ...` (NumPy scalars in Python `if`s, "
            "partial/partial_solvers.py:591-597), `nx.__name__ == 'numpy'` -> `np.exp(-M / reg)`, `np.multiply(K, "
            "m / np.sum(K))`, `while err > stopThr and cpt < numItermax:` (partial/partial_solvers.py:616-640: the "
            "row and column scalings by `nx.diag(nx.minimum(a / nx.sum(K, axis=1), dx))` and its transpose, the "
            "mass rescaling, `if nx.any(nx.isnan(K)) or nx.any(nx.isinf(K)): print(...); break` (False here), "
            "every tenth iteration `err = nx.norm(Kprev - K)`; it runs all 1000 iterations: POT's stopThr default "
            "is 1e-100, library bug (3))) -> `np.isfinite`, `p.sum()` tests -> "
            + _SAMPLE_MAP + " -> `x0[i], x1[j], y0[i], y1[j]`; then `torch.unique(y1s).tolist()` (label "
            "values into Python), per class `y1s == c` and the boolean-mask reads `x1s[sel]`, `x0s[sel]` (sizes "
            "from the data), `.mean(0)`",
        ),
        Row(
            "r18c_torchcfm_ot_sample_trajectory", *TORCHCFM,
            "bound method: OTPlanSampler(method='exact').sample_trajectory(X (10, 4, 2): 10 samples at 4 time "
            "points); returns a NumPy array (10, 4, 2) float32 of the OT-coupled trajectories",
            ("torchcfm",), _r18c_trajectory, modes=INFERENCE,
            notes="inference only: the result is a NumPy array (`np.stack` of tensors), and with an X that "
            "requires grad `np.stack` raises 'Can't call numpy() on Tensor that requires grad' (library bug (4) of "
            "the module docstring; checked eagerly); " + _SEEDED + " (seed 1807)",
            patterns="`OTPlanSampler.sample_trajectory` (optimal_transport.py:184-214): `times = X.shape[1]`, `for t "
            "in range(3)`: `get_map(X[:, t], X[:, t + 1])` (" + _GET_MAP.split(" (", 1)[1].rstrip(")") + " with "
            + _EMD + ")); `indices = [np.arange(10)]`, for each plan a Python loop over the 10 current indices "
            "drawing `np.random.choice(10, p=pi[i] / pi[i].sum())` one at a time (30 draws), `np.array(j)`; then "
            "`X[:, t][indices[t]]` (a tensor indexed by a NumPy array) for the 4 times and `np.stack(to_return, "
            "axis=1)` (NumPy converts each tensor through `__array__`)",
        ),
        Row(
            "r18c_torchcfm_wasserstein_w1_w2", *TORCHCFM,
            "wrapper: torchcfm.optimal_transport.wasserstein(x0 (24, 2), x1 (20, 2), power=1) and wasserstein(x0, "
            "x1, method='exact', power=2), as torchcfm's examples evaluate generated points; returns two Python "
            "floats",
            ("torchcfm",), _r18c_wasserstein, modes=INFERENCE,
            notes="inference only: `wasserstein` detaches the cost (`M.detach().cpu().numpy()`) and returns a "
            "Python float (`math.sqrt` of POT's NumPy cost for W2), so nothing has a gradient; batches of "
            "different sizes (24 and 20: non-square plans); no sampling",
            patterns="per call `wasserstein` (optimal_transport.py:217-266): `assert power == 1 or power == 2`, the "
            "method tests (`None` / 'exact' -> `pot.emd2`), `pot.unif(x0.shape[0])`, `x0.dim() > 2` tests, `M = "
            "torch.cdist(x0, x1)`, `if power == 2: M = M**2`, `M.detach().cpu().numpy()`, POT `ot.emd2(a, b, M, "
            "numItermax=10**7)` (lp/_network_simplex.py:531-...: `list_to_array`, `get_backend` (NumPy), the "
            "marginal check `np.testing.assert_almost_equal`, the compiled network simplex `emd_c`, "
            "`check_result`, the cost `nx.set_gradients(nx.from_numpy(cost, type_as=type_as), ...)` (NumPy: the "
            "cost as is)), `if power == 2: ret = math.sqrt(ret)` (a NumPy float into Python's math)",
        ),
        Row(
            "r18c_torchcfm_cfm_target_vp_matchers_control", *TORCHCFM,
            "wrapper: the same training step with three matchers in turn on one MLP(dim=2, w=32, time_varying): "
            "ConditionalFlowMatcher(sigma=0.1) (I-CFM), TargetConditionalFlowMatcher(sigma=1e-4) (Lipman et "
            "al.), VariancePreservingConditionalFlowMatcher(sigma=0.1); x0 (16, 2) ~ N(0, I), x1 (16, 2) eight "
            "Gaussians; returns the three losses",
            ("torchcfm",), _r18c_matchers_control, frozen=("2", "3"),
            notes=_TRAIN + "; no OT plan, no NumPy: the matchers draw only from torch's generator (t and the "
            "noise, seeded by the harness)",
            patterns="control: no tensor value reaches Python. A Python loop over the three matcher objects; each "
            + _BASE + " with the class's overrides: I-CFM (the float sigma: `pad_t_like_x(0.1, x0)` returns it, "
            "`mu_t + 0.1 * eps`, `ut = x1 - x0`); Target (conditional_flow_matching.py:342-388: `t * x1`, `sigma_t "
            "= 1 - (1 - sigma) * t` a tensor padded by `pad_t_like_x`, `ut = (x1 - (1 - sigma) * xt) / (1 - (1 - "
            "sigma) * t)`); VP (conditional_flow_matching.py:577-607: `torch.cos(math.pi / 2 * t) * x0 + torch."
            "sin(...) * x1`, `ut = pi / 2 * (cos * x1 - sin * x0)`); " + _STEP,
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round eighteen (c)")
