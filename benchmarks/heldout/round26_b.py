"""Held-out round twenty-six (r26b): torchvinecopulib.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 64 to 128 seeded draws of a correlated Gaussian (each column
after the first is ``0.6 * z0 + 0.8 * z``), mapped to pseudo-observations in
(0, 1) with ``torch.special.ndtr`` where a copula needs them; bivariate copulas
on a 64 x 64 grid, a 3-dimensional vine, 8 to 32 query points; float64
throughout, as the library keeps every buffer in float64 and casts its inputs
to it (``obs.to(dtype=self.dtype)``), and ``solve_ITP`` writes the solution
into its bracket tensors (a dtype mismatch would fail), except the float32
ranks row; the copulas, vine and marginal KDE are fitted in ``make`` (with
``mtd_kde="fastKDE"``: see the quirks), so a row's call is the evaluation,
except the two fit rows, whose call fits, then evaluates; seeded random data, nothing
downloaded, nothing written to disk, no data set or data file used); a row
whose ``modes`` is one mode only says why in its ``notes``.

torchvinecopulib 1.1.2 (package ``torchvinecopulib``) fits and samples vine
copulas in PyTorch: ``BiCop`` (an ``nn.Module`` without ``forward``: a
bivariate copula density estimated by kernel density estimation (pyvinecopulib's
TLL or ``fastkde``) and cached on a uniform grid with its CDF and h-function
grids; ``cdf``/``pdf``/``log_pdf``/``hfunc_l``/``hfunc_r`` by bilinear
interpolation, ``hinv_l``/``hinv_r`` by the ITP root finder, ``sample`` by the
inverse Rosenblatt transform), ``VineCop`` (an ``nn.Module``: D-/C-/R-vine
structure selection by Dissmann's greedy MST with a bivariate dependence
measure per edge, 1D KDE marginals, ``log_pdf``, ``forward`` = mean negative
log-likelihood, ``sample`` and a Monte Carlo ``cdf``) and ``util`` (dependence
measures ``kendall_tau``/``mutual_info``/``ferreira_tail_dep_coeff``/
``chatterjee_xi`` behind the enum ``ENUM_FUNC_BIDEP``, the 1D KDE
``kdeCDFPPF1D`` (an ``nn.Module``: CDF/PPF/PDF by linear interpolation on a
fastkde grid, ``forward`` = mean negative log-likelihood) and the
Interpolate-Truncate-Project root finder ``solve_ITP``).

The data-dependent code on the rows' paths (file:line relative to the
``torchvinecopulib`` package).  ``solve_ITP`` (util/__init__.py:318-390, under
``torch.no_grad()``) brackets the roots with ``torch.where`` on ``|f| <
epsilon`` (348-349), sizes its projection radius from the widest bracket
(``(x_wid / epsilon).max()...log2().ceil()...int()``, 352-354: kept a tensor),
then runs ``for _ in range(num_iter_max)`` (359, 31 steps at most) and stops on
``if (x_wid < eps_2).all(): break`` (360: a tensor's truth, so the number of
iterations depends on the function's values: eagerly, the KDE-quantile row at
``epsilon=1e-6`` stops after 10 iterations, while the h-function inverses at
the default ``epsilon=1e-10`` read the test at each of their 31), updating the brackets with
boolean-mask writes ``x_b[idx], y_b[idx] = x_itp[idx], y_itp[idx]`` and the
complement (384-387: masks from ``y_itp > 0``).  ``BiCop.hinv_l``/``hinv_r``
(bicop/__init__.py:316-338/340-361) solve the h-function on [0, 1] with it, and
``VineCop.sample`` (vinecop/__init__.py:716-862) reseeds the global generator
(``torch.manual_seed(seed=seed)``, 811), counts references with the pure-Python
``ref_count_hfunc`` (178-237), draws ``torch.rand`` (840) and walks the vine,
calling ``hinv_l`` (774) / ``hinv_r`` (783) per conditional and the marginals'
``kdeCDFPPF1D.ppf`` (util:241-259) at the end (860-862).  ``chatterjee_xi``
(util:102-138, ``no_grad``) builds ``torch.as_tensor([xy_sum(m) for m in
range(1, M + 1)])`` (135: a tensor made from a list of tuples of 0-d rank sums,
each read into Python); ``ENUM_FUNC_BIDEP.__call__`` (151-152) is how the vine
calls it.  ``mutual_info`` (util:50-74, ``no_grad``) hands tensors to the numpy
``fastkde.pdf`` (67-69: ``__array__`` conversions), wraps the numpy grids back
with ``torch.as_tensor`` and takes ``joint[joint > 0.0].log().mean()`` and the
marginals' likewise (71-73: boolean-mask indexing, data-dependent shapes).
``kdeCDFPPF1D.__init__`` (util:158-211) reads ``x.min().item()`` and
``x.max().item()`` into the grid's Python bounds (182-183), sizes the grid with
``int(2 ** torch.log2(torch.tensor(x.numel())).ceil().item()) + 1`` (186), runs
``fastkde.pdf(x.view(-1).cpu().numpy(), ...)`` (189: a numpy conversion) and
wraps the result with ``torch.from_numpy`` (190-191).  ``BiCop.fit``
(bicop/__init__.py:130-238, ``no_grad``) with ``mtd_kde="fastKDE"`` hands
``obs[:, 0].cpu()`` and ``obs[:, 1].cpu()`` to ``fastkde.pdf`` (194-200:
numpy conversions), pads/trims by the returned grid's shape (202-220: Python
ints from numpy), runs ``num_iter_max`` (a Python int) Sinkhorn sweeps
(223-225) and reassigns its buffers (229-238).

Controls (no tensor value reaches Python): ``r26b_vinecop_forward_nll_control``
(``VineCop.forward`` -> ``log_pdf``: the marginals' ``kdeCDFPPF1D.cdf``
(``clamp`` to Python-float bounds fixed at fit time, ``searchsorted``, gathers,
``torch.where``), the bicops' ``hfunc_l``/``hfunc_r``/``log_pdf`` (``_interp``:
``floor().long()`` indices, gathers, bilinear weights), dict lookups keyed by
Python tuples, ``if bcp.is_indep`` (a Python bool)) and
``r26b_bicop_hfunc_l_control`` (``BiCop.hfunc_l`` -> ``_interp``).

Global state on import (the builders import the library; this module imports
only torch): ``import torchvinecopulib`` imports numpy, scipy (``scipy.stats``;
scipy adds two warning filters: ``always`` for ``SpecialFunctionWarning`` and
``ignore`` for "the matrix subclass is not the recommended way"), fastkde,
pyvinecopulib, ``matplotlib.pyplot`` (bicop/__init__.py:39; backend ``agg``
here, not interactive) with ``mpl_toolkits.mplot3d``, PIL, fontTools and
networkx, and charset_normalizer (which installs a ``NullHandler`` on its own
logger); it sets no environment variable, adds no handler to the root logger,
starts no thread and leaves torch's default dtype, deterministic flags, matmul
precision and thread count unchanged; ``torch._dynamo`` is not imported.  On
the call paths: ``BiCop.sample`` and ``VineCop.sample`` (so ``VineCop.cdf``)
reset the global torch generator with ``torch.manual_seed(seed)``
(bicop:416, vinecop:811); the first ``torch.from_numpy`` of fastkde's
read-only grid warns once per process ("The given NumPy array is not
writable", util:190), and fastkde's ``numpy.array(tensor)`` emits a numpy
``DeprecationWarning`` (ignored by the default filters).

Library quirks met (eagerly): the default fit is broken with the installed
pyvinecopulib 1.0.1: ``BiCop.fit(mtd_kde="tll")`` (the default, also
``VineCop.fit``'s) calls ``pv.Bicop.from_data(data=...)`` (bicop:180), a
keyword pyvinecopulib no longer accepts (``TypeError``; ``pv.tll`` also warns
as deprecated), so every fit here uses ``mtd_kde="fastKDE"``.  ``BiCop`` has
no ``forward``; ``hinv_l``/``hinv_r``/``sample``/``fit``, ``VineCop.sample``/
``cdf``/``fit``, ``solve_ITP`` and all four dependence measures run under
``torch.no_grad()`` (their outputs carry no gradient), while ``cdf``/``pdf``/
``log_pdf``/``hfunc_*`` and ``VineCop.log_pdf``/``forward`` are
differentiable.  ``kdeCDFPPF1D`` fits in its constructor, outside ``no_grad``:
``x.view(-1).cpu().numpy()`` (util:189) raises on a sample that requires grad,
so its row freezes the sample.  ``BiCop.__init__`` documents
``num_step_grid`` as a power of 2 while ``kdeCDFPPF1D`` wants a power of 2
plus 1; ``kdeCDFPPF1D.__init__``'s docstring says ``pad`` defaults to 1.0 (it
is 0.1); ``VineCop.cdf``'s docstring says ``seed`` defaults to 0 (42).
``BiCop.log_pdf`` maps ``log(0)`` to -13.8155 with ``nan_to_num``
(bicop:390), but its gradient there is NaN (``inf`` times the zero gradient of
``clamp_min(0.0)``): the fastKDE grid has zero density along its border, so the
fit row queries [0.1, 0.9]^2.  ``mutual_info`` can be negative on small samples (the three fastkde grids are
averaged separately).  In the sampled vine the edge (1, 2; 0) is truncated to
independence by the Kendall's tau test (``thresh_trunc=0.01``).

Dropped: ``VineCop.cdf`` (vinecop:864-905: ``sample`` with a Sobol engine, then
a broadcast ``<=``, ``all`` and a count: the sample row's path plus no further
value read); ``BiCop.sample`` and ``hinv_l`` (the same ``solve_ITP`` path as
``hinv_r``; ``VineCop.sample`` reaches them); ``VineCop.fit`` (Dissmann's
algorithm: a Python-heavy structure search through scipy's ``kendalltau``,
``fastkde`` and a union-find, returning ``None``; not something one compiles);
``BiCop.fit(mtd_kde="tll")`` (broken, above); ``kendall_tau`` (a straight
handoff to ``scipy.stats.kendalltau``); ``ferreira_tail_dep_coeff`` (pure torch
under ``no_grad``: no value read, no gradient); ``draw_lv``/``draw_dag``/
``imshow``/``plot`` (matplotlib/networkx plotting, ``w.item()`` for labels).
No candidate was dropped for failing or for differing between runs.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCHVINECOPULIB = ("torchvinecopulib", "1.1.2")
MODULES = ("torchvinecopulib",)
INFERENCE = ("inference",)

F64 = torch.float64
GRID = 64  # BiCop / VineCop grid steps per dimension (a power of 2)
RHO = 0.6  # correlation of every column with the first

# --- helpers -------------------------------------------------------------------------------


def _gaussian(n: int, d: int, dtype: torch.dtype = F64) -> torch.Tensor:
    """(n, d) standard normals; every column after the first is mixed with the first (correlation 0.6)."""
    z = torch.randn(n, d, dtype=dtype)
    z[:, 1:] = RHO * z[:, :1] + (1.0 - RHO**2) ** 0.5 * z[:, 1:]
    return z


def _pseudo_obs(n: int, d: int) -> torch.Tensor:
    """(n, d) copula pseudo-observations in (0, 1): the normal CDF of correlated Gaussians."""
    return torch.special.ndtr(_gaussian(n, d))


def _fitted_bicop() -> Any:
    from torchvinecopulib import BiCop

    cop = BiCop(num_step_grid=GRID)
    cop.fit(_pseudo_obs(128, 2), mtd_kde="fastKDE")
    return cop


def _kde_quantile_itp(kde: Any, q: torch.Tensor) -> torch.Tensor:
    """Quantiles of a fitted 1D KDE by root finding: solve ``kde.cdf(x) = q`` on the KDE's support with the
    library's ITP solver, to a tolerance of 1e-6."""
    from torchvinecopulib.util import solve_ITP

    lo, hi = torch.full_like(q, kde.x_min), torch.full_like(q, kde.x_max)
    return solve_ITP(lambda x: kde.cdf(x) - q, lo, hi, epsilon=1e-6)


def _kde_fit_ppf(x: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Fit the library's 1D KDE marginal on a sample, then evaluate its quantile function."""
    from torchvinecopulib.util import kdeCDFPPF1D

    return kdeCDFPPF1D(x).ppf(q)


def _bicop_fit_log_pdf(cop: Any, obs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Fit the bivariate copula on pseudo-observations (fastKDE), then evaluate its log-density at query points."""
    cop.fit(obs, mtd_kde="fastKDE")
    return cop.log_pdf(u)


# --- builders ------------------------------------------------------------------------------


def _kde_quantile(training: bool) -> Built:
    from torchvinecopulib.util import kdeCDFPPF1D

    kde = kdeCDFPPF1D(_gaussian(96, 1).view(-1))
    return _kde_quantile_itp, (kde, torch.rand(8, 1, dtype=F64)), {}


def _bicop_hinv_r(training: bool) -> Built:
    cop = _fitted_bicop()
    return cop.hinv_r, (torch.rand(16, 2, dtype=F64),), {}


def _vinecop_sample(training: bool) -> Built:
    from torchvinecopulib import VineCop

    vine = VineCop(num_dim=3, is_cop_scale=False, num_step_grid=GRID)
    vine.fit(_gaussian(96, 3), mtd_kde="fastKDE")
    return vine.sample, (), {"num_sample": 32, "seed": 5}


def _chatterjee_xi(training: bool) -> Built:
    from torchvinecopulib.util import ENUM_FUNC_BIDEP

    z = _gaussian(64, 2, dtype=torch.float32)
    return ENUM_FUNC_BIDEP.chatterjee_xi, (z[:, :1].contiguous(), z[:, 1:].contiguous()), {"M": 3}


def _mutual_info(training: bool) -> Built:
    from torchvinecopulib.util import mutual_info

    u = _pseudo_obs(64, 2)
    return mutual_info, (u[:, :1].contiguous(), u[:, 1:].contiguous()), {}


def _kde_fit_ppf_row(training: bool) -> Built:
    return _kde_fit_ppf, (_gaussian(96, 1).view(-1), torch.rand(8, dtype=F64)), {}


def _bicop_fit_log_pdf_row(training: bool) -> Built:
    from torchvinecopulib import BiCop

    u = 0.1 + 0.8 * torch.rand(16, 2, dtype=F64)  # query points in [0.1, 0.9]^2, where the density is positive
    return _bicop_fit_log_pdf, (BiCop(num_step_grid=GRID), _pseudo_obs(128, 2), u), {}


def _vinecop_forward(training: bool) -> Built:
    from torchvinecopulib import VineCop

    vine = VineCop(num_dim=3, is_cop_scale=False, num_step_grid=GRID)
    vine.fit(_gaussian(96, 3), mtd_kde="fastKDE")
    return vine, (_gaussian(16, 3),), {}


def _bicop_hfunc_l(training: bool) -> Built:
    cop = _fitted_bicop()
    return cop.hfunc_l, (torch.rand(16, 2, dtype=F64),), {}


# --- rows ------------------------------------------------------------------------------------

_ITP = ("`solve_ITP` (util/__init__.py:318-390, `no_grad`: `fun` at both ends (346), `torch.where` on `|f| < "
        "epsilon` (348-349), `eps_scale` from `(x_wid / epsilon).max()...ceil().int()` (352-354: kept a tensor), "
        "`for _ in range(num_iter_max)` (359: 31 at most) with `if (x_wid < eps_2).all(): break` (360: a tensor's "
        "truth, the iteration count set by the values), interpolation/truncation/projection by `torch.where` and "
        "`copysign` (366-381), `fun(x_itp)` (383), boolean-mask writes `x_b[idx], y_b[idx] = x_itp[idx], "
        "y_itp[idx]` and the complement (384-387), in-place `eps_scale *= 0.5` (389))")
_INTERP = ("`BiCop._interp` (bicop/__init__.py:241-267: `clamp`, `floor().long()` (252), gathers from the grid "
           "(258-261), bilinear weights, `clamp_min`)")


def _hfunc(side: str, lines: str) -> str:
    return (f"`BiCop.hfunc_{side}` (bicop/__init__.py:{lines}: `.to(dtype=self.dtype)`, `if self.is_indep` (a Python "
            "bool)) -> " + _INTERP)


_KDE_CDF = ("`kdeCDFPPF1D.cdf` (util/__init__.py:221-239: `.to(float64)`, `clamp` to the Python-float bounds, "
            "`searchsorted` (232), gathers, `torch.where`)")
_KDE_PPF = ("`kdeCDFPPF1D.ppf` (util/__init__.py:241-259: `clamp`, `searchsorted` on the CDF grid (252), gathers, "
            "`torch.where`, `clamp` to the Python-float bounds)")
_NO_GRAD = "inference only: the call runs under the library's `torch.no_grad()` (no gradient path). "


def _rows() -> list[Row]:
    return [
        Row(
            "r26b_kde_quantile_solve_itp", *TORCHVINECOPULIB,
            "function: torchvinecopulib.util.solve_ITP(lambda x: kde.cdf(x) - q, x_min, x_max, epsilon=1e-6) with kde "
            "= kdeCDFPPF1D(sample (96,)) fitted in make and q (8, 1) via a 3-line wrapper; returns (8, 1) quantiles",
            MODULES, _kde_quantile, modes=INFERENCE,
            notes=_NO_GRAD + "Quantiles of a fitted KDE marginal by the library's own ITP root finder on the "
            "KDE's support, as its h-function inverses use it, to a tolerance of 1e-6 (eagerly the convergence test "
            "ends the loop after 10 of its 31 iterations)",
            patterns=_ITP + " with `fun` = " + _KDE_CDF + " minus `q`",
        ),
        Row(
            "r26b_bicop_hinv_r", *TORCHVINECOPULIB,
            "method: BiCop(num_step_grid=64).hinv_r(obs (16, 2)) after fit(pseudo-obs (128, 2), "
            "mtd_kde='fastKDE'); returns (16, 1)",
            MODULES, _bicop_hinv_r, modes=INFERENCE,
            notes=_NO_GRAD + "The inverse right h-function (u1 given u2 and a level p) of a fitted KDE copula, "
            "the inverse-Rosenblatt step of copula sampling (at the default tolerance 1e-10 the convergence test is "
            "read at each of the 31 iterations)",
            patterns="`BiCop.hinv_r` (bicop/__init__.py:340-361: `.to(dtype=self.dtype)`, `if self.is_indep` (a "
            "Python bool), column slices) -> " + _ITP + " with `fun` = " + _hfunc("r", "300-314") + " of "
            "`torch.hstack` minus `p`; `clamp` (361)",
        ),
        Row(
            "r26b_vinecop_sample", *TORCHVINECOPULIB,
            "method: VineCop(num_dim=3, is_cop_scale=False, num_step_grid=64).sample(num_sample=32, seed=5) after "
            "fit(data (96, 3), mtd_kde='fastKDE'); returns (32, 3) samples on the data scale",
            MODULES, _vinecop_sample, modes=INFERENCE,
            notes=_NO_GRAD + "Sampling a fitted R-vine with KDE marginals by the inverse Rosenblatt transform; "
            "the library reseeds the global generator itself",
            patterns="`VineCop.sample` (vinecop/__init__.py:716-862: `torch.manual_seed(seed=seed)` (811: global "
            "RNG state), `ref_count_hfunc` (178-237: pure Python over the structure), `torch.rand` (840), a walk "
            "from each source vertex (849-853) through `_visit` (751-807: dict bookkeeping, `bcp.is_indep` (a "
            "Python bool), `BiCop.hinv_l` (774) / `hinv_r` (783) -> " + _ITP + ", `hfunc_l`/`hfunc_r` (795) -> "
            + _INTERP + ", reference-count deletes (746-749)), `hstack` (855), the marginals' " + _KDE_PPF
            + " (860-862))",
        ),
        Row(
            "r26b_chatterjee_xi_enum", *TORCHVINECOPULIB,
            "function: torchvinecopulib.util.ENUM_FUNC_BIDEP.chatterjee_xi(x (64, 1), y (64, 1), M=3) (float32); "
            "returns a 0-d tensor",
            MODULES, _chatterjee_xi, modes=INFERENCE,
            notes=_NO_GRAD + "Chatterjee's rank correlation (Lin-Han M-nearest-neighbour form) called through the "
            "dependence enum, as the vine's structure search calls its edge weight",
            patterns="`ENUM_FUNC_BIDEP.__call__` (util/__init__.py:151-152: `self.value(x, y, **kw)`) -> "
            "`chatterjee_xi` (102-138, `no_grad`: double `argsort` ranks (118-121), rank gathers (122), `xy_sum` "
            "(126-130: `min`, slices, `sum`: 0-d tensors), `torch.as_tensor([xy_sum(m) for m in range(1, M + "
            "1)])` (135: a list of tuples of 0-d tensors read into a new tensor), `sum`, `max`, arithmetic with "
            "Python ints)",
        ),
        Row(
            "r26b_mutual_info_fastkde", *TORCHVINECOPULIB,
            "function: torchvinecopulib.util.mutual_info(u (64, 1), v (64, 1)) on pseudo-observations; returns a "
            "0-d tensor",
            MODULES, _mutual_info, modes=INFERENCE,
            notes=_NO_GRAD + "The fastMI copula mutual-information estimate, one of the vine's edge-weight "
            "measures",
            patterns="`mutual_info` (util/__init__.py:50-74, `no_grad`: `clamp`, `view(-1).cpu()` (65-66), "
            "`fastkde.pdf(x, y)`, `fastkde.pdf(x)`, `fastkde.pdf(y)` on tensors (67-69: `__array__` numpy "
            "conversions, numpy grids wrapped back by `torch.as_tensor`), `joint[joint > 0.0]` and the marginals' "
            "likewise (71-73: boolean-mask indexing, data-dependent shapes), `log().mean()`)",
        ),
        Row(
            "r26b_kde1d_fit_ppf", *TORCHVINECOPULIB,
            "function: torchvinecopulib.util.kdeCDFPPF1D(sample (96,)).ppf(q (8,)) via a 2-line wrapper; returns "
            "(8,) quantiles",
            MODULES, _kde_fit_ppf_row, frozen=("0",),
            notes="fitting a 1D KDE marginal (as `VineCop.fit` does per column) and evaluating its quantile "
            "function; in training the levels require grad and the sample is frozen: the constructor's "
            "`x.view(-1).cpu().numpy()` (util:189) raises on a tensor that requires grad",
            patterns="`kdeCDFPPF1D.__init__` (util/__init__.py:158-211: `x.min().item() - pad` and `x.max().item() "
            "+ pad` (182-183: values read into the grid's Python bounds), `int(2 ** torch.log2(torch.tensor("
            "x.numel())).ceil().item()) + 1` (186: the grid size), `fastkde.pdf(x.view(-1).cpu().numpy(), "
            "num_points=...)` (189: a numpy conversion), `torch.from_numpy` (190-191), Simpson weights by slice "
            "writes (193-195), `cumsum`, slopes, `register_buffer`s (202-210), `negloglik` (211: `log_pdf` -> "
            "`pdf`, util:261-286)) -> " + _KDE_PPF,
        ),
        Row(
            "r26b_bicop_fit_fastkde_log_pdf", *TORCHVINECOPULIB,
            "function: BiCop(num_step_grid=64).fit(pseudo-obs (128, 2), mtd_kde='fastKDE') then log_pdf(u (16, 2) "
            "in [0.1, 0.9]^2) via a 2-line wrapper; returns (16, 1)",
            MODULES, _bicop_fit_log_pdf_row, frozen=("1",),
            notes="fitting a KDE copula and scoring query points with it; the fit runs under `no_grad`, so in "
            "training only the query points require grad (the pseudo-observations are frozen); the query points avoid "
            "the grid's zero-density border, where the gradient of `log_pdf` is NaN",
            patterns="`BiCop.fit` (bicop/__init__.py:130-238, `no_grad`: `num_obs.copy_(obs.shape[0])` (160), "
            "`clamp`, `fkpdf(obs[:, 0].cpu(), obs[:, 1].cpu(), num_points=129)` (194-200: numpy conversions of "
            "tensors, the numpy grid wrapped back), `if H < self.num_step_grid` / `if W < ...` padding (202-219: "
            "Python ints from the returned shape), slicing, `clamp_min`, `.T` (220-221), `for _ in "
            "range(num_iter_max)` Sinkhorn sweeps (223-225: a Python int, in-place `*=`), buffers reassigned "
            "(229-238: `negloglik` via `log_pdf`, `cumsum` CDF and h-function grids, `clamp_`)); `BiCop.log_pdf` "
            "(377-390: `pdf` (363-375) -> " + _INTERP + ", `log`, `nan_to_num`)",
        ),
        Row(
            "r26b_vinecop_forward_nll_control", *TORCHVINECOPULIB,
            "module: VineCop(num_dim=3, is_cop_scale=False, num_step_grid=64)(x (16, 3)) after fit(data (96, 3), "
            "mtd_kde='fastKDE'); returns the mean negative log-likelihood (0-d)",
            MODULES, _vinecop_forward,
            notes="control: the vine's negative log-likelihood, the loss a user trains or evaluates with; in "
            "training the data require grad (through the marginal CDFs, the h-functions and the densities)",
            patterns="control: no tensor value reaches Python. `VineCop.forward` (vinecop/__init__.py:697-706) -> "
            "`VineCop.log_pdf` (623-695: the marginals' " + _KDE_CDF + ", `hstack`, a loop over the fitted "
            "trees (Python dicts, 672-690), `_visit_hfunc` (648-670: `if bcp.is_indep` (a Python bool), "
            "`hfunc_r`/`hfunc_l` -> " + _INTERP + "), `BiCop.log_pdf` (bicop:377-390), the marginals' `log_pdf` "
            "(util:278-286: `pdf` (261-276), `log`, `nan_to_num`)); `neg().mean()`",
        ),
        Row(
            "r26b_bicop_hfunc_l_control", *TORCHVINECOPULIB,
            "method: BiCop(num_step_grid=64).hfunc_l(obs (16, 2)) after fit(pseudo-obs (128, 2), "
            "mtd_kde='fastKDE'); returns (16, 1)",
            MODULES, _bicop_hfunc_l,
            notes="control: the left h-function (conditional CDF of u2 given u1) of a fitted KDE copula; in "
            "training the query points require grad (through the bilinear weights)",
            patterns="control: no tensor value reaches Python. " + _hfunc("l", "284-298") + "; `unsqueeze`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-six (b)")
