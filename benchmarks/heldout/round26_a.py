"""Held-out round twenty-six (r26a): geomstats, with its PyTorch backend.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 4 to 12 points on the 2-sphere in R^3, in the 2-d Poincare
ball, or 3x3 SPD matrices, 5 rotations in SO(3), 2 pairs of points on the
Stiefel manifold St(4, 2); float64 throughout, because the backend makes
float64 torch's default dtype on import and mixes its own float64 constants
into every computation (the builders pass explicit float64 tensors, so the
rows do not depend on the import order); seeded random data, nothing
downloaded, nothing written to disk, no data set or data file used); a row
whose ``modes`` is one mode only says why in its ``notes``.

geomstats 2.8.0 (package ``geomstats``) is a library for Riemannian geometry
and statistics on manifolds: spaces (``Hypersphere``, ``PoincareBall``,
``Hyperboloid``, ``SPDMatrices``, ``SpecialOrthogonal``, ``Stiefel``, ...)
with ``belongs``/``projection``/``random_point``/``to_tangent``, metrics
(``space.metric``: ``exp``, ``log``, ``dist``, ``inner_product``,
``parallel_transport``), samplers, and scikit-learn-style estimators in
``geomstats.learning`` (``FrechetMean`` by gradient descent,
``ExponentialBarycenter``, ``RiemannianKMeans``, ``TangentPCA``,
``GeodesicRegression``, ...) whose ``fit`` returns the estimator, so the
estimator rows call it through a 2-line wrapper returning ``estimate_`` (or
the k-means centres, labels and inertia).  All array code goes through
``geomstats.backend`` (``gs``), a module assembled at import from the backend
named by ``GEOMSTATS_BACKEND``; this module sets it with
``os.environ.setdefault("GEOMSTATS_BACKEND", "pytorch")`` at its top, and the
builders check that ``geomstats.backend`` is the pytorch one (the variable is
read once, when geomstats is first imported).

The data-dependent code on the rows' paths (file:line relative to the
``geomstats`` package).  ``FrechetMean`` (learning/frechet_mean.py:604-708;
``__new__`` 630-641 picks ``CircleMean``/``LinearMean``/``ElasticMean`` by
``isinstance``) runs an optimizer's ``minimize``: the default
``GradientDescent.minimize`` (149-209) loops ``while iteration < max_iter``
(168, a Python int) and exits on ``if not (condition or iteration == 0):
break`` (184: ``condition = ~(isclose(var, 0) | less_equal(sq_dist, epsilon *
dim))``, 179-183, a 0-d bool tensor's truth), halves the step on ``if norm <
norm_old`` / ``elif norm > norm_old`` (191-194: two tensors compared, the
kept ``norm_old`` a tensor), and calls ``logging.warning`` when ``max_iter``
is reached (196-200); ``AdaptiveGradientDescent.minimize`` (275-373) loops
``while sq_norm_current_tangent_mean > epsilon**2 and iteration < max_iter``
(328-330: a tensor's truth), accepts a step on ``if sq_norm_next <
sq_norm_current`` (350: a tensor's truth) and adapts the Python-float ``tau``
with ``min``/``max`` (354, 356).  The SPD affine-invariant ``log``
(geometry/spd_matrices.py:621-645) takes ``logmh`` (27-32) ->
``apply_func_to_eigvalsh(..., check_positive=True)``
(geometry/hermitian_matrices.py:60-103: ``eigh``, ``if check_positive and
gs.any(eigvals < 0.0)`` (80: a tensor's truth) -> ``logging.warning`` (86)),
so every SPD log reads a value; ``exp`` (591-619) and ``powermh``/``expmh``
(15-57) pass ``check_positive=False`` (the ``and`` short-circuits on a Python
bool).  ``RiemannianKMeans.fit`` (learning/kmeans.py:136-211): ``X[labels_ ==
i]`` (173: boolean-mask indexing, a data-dependent number of rows), ``if
len(fold) > 0`` (175: that count read into Python) around a ``FrechetMean``
fit per cluster (176), ``cluster_centers[i] = estimate_`` (177: in-place row
writes), ``argmin`` labels (165, 186), and ``if gs.mean(cluster_centers_
distances) < self.tol: break`` (198: a tensor's truth), with a for-else
``logging.warning`` (203-207); the Poincare-ball metric under it
(geometry/poincare_ball.py) runs ``mobius_add`` (156-201) in ``exp``
(102-130) and ``log`` (132-154), and ``mobius_add`` projects both inputs and
its result with ``projection`` (73-96: ``if gs.any(l2_norm >= 1 - gs.atol)``
(90: a tensor's truth), three per addition).
``Hypersphere.random_riemannian_normal`` (geometry/hypersphere.py:558-659) is
a rejection sampler: ``while (n_accepted < n_samples) and (n_iter <
max_iter)`` (629) with ``n_accepted += gs.sum(criterion)`` (637: the count
becomes a 0-d tensor after the first round, so the loop test is a tensor's
truth), proposals ``gs.random.multivariate_normal(..., size=(n_samples -
n_accepted,))`` (630-632: a size from a tensor; _backend/pytorch/random.py:
38-43, ``torch.distributions.MultivariateNormal(...).sample``, whose
argument validation tests its tensors in torch's own code) and
``gs.random.rand(n_samples - n_accepted)`` (634), ``envelope[criterion]``
(636: boolean-mask indexing), ``if n_accepted < n_samples:
logging.warning`` (639-643), ``gs.zeros(n_accepted)`` (646: a shape from the
tensor), then ``log``/``parallel_transport``/``exp`` to the mean (649-658).
``ExponentialBarycenter`` (learning/exponential_barycenter.py:78-145) runs
``GradientDescent.minimize`` (18-75): ``for iteration in range(max_iter)``
(50) with ``if not (grad_norm > self.epsilon or iteration == 0): break``
(51-52: a tensor's truth) and a for-else ``logging.warning`` (67-71); each
step calls ``SpecialOrthogonal.log`` (geometry/special_orthogonal.py:245-277:
``if gs.any(self.are_antipodals(point, base_point)): raise ValueError``
(273-277: a tensor's truth; ``are_antipodals`` 220-243, ``isclose``/``all``))
-> ``MatrixLieGroup.log`` (geometry/lie_group.py:217-250) ->
``gs.linalg.logm``, the custom autograd Function ``_Logm``
(_backend/pytorch/linalg.py:24-61) whose forward (38-41) and backward (44-58:
a 2n x 2n block matrix) both run ``_Logm._logm`` (32-35:
``x.detach().cpu()`` handed to the numpy backend, ``torch.from_numpy``
back): ``logm`` (_backend/_shared_numpy/linalg.py:28-46: ``_np.array`` of the
tensor (_shared_numpy/_common.py:74), ``if _is_symmetric(new_x)`` (11-13, 32:
a numpy test), ``(eigvals > 0).all()`` (34), else scipy's ``logm`` per
matrix through ``np.vectorize`` (23-25, 41, 43)); the group ``exp`` is
``torch.linalg.matrix_exp`` (lie_group.py:183-215).  The Stiefel canonical
metric's ``log`` (``Connection.log``, geometry/connection.py:107-135 ->
``_StiefelLogSolver.log``, geometry/stiefel.py:513-572, Zimmermann's
algorithm): ``qr`` (441-457) and a complete ``qr`` (460-475), the Procrustes
step (478-511: ``svd``, ``for i in range(1, p + 1)`` with ``if gs.all(det >
0): break`` (500: a tensor's truth) and sign flips), a Python loop over the
batch, ``gs.stack([self._iter_log(p, x) for x in matrix_v])`` (566:
iterating a tensor), and ``_iter_log`` (574-598): up to ``max_iter=500``
rounds of ``gs.linalg.logm`` (577: the numpy/scipy path above), ``if
norm_matrix_c <= self.tol: break`` (581: a tensor's truth, so the round count
comes from the data), ``matrix_exp`` (584), ``warnings.warn`` on no
convergence (589) and ``gs.is_complex`` (591).  ``SPDMatrices.belongs``
(geometry/spd_matrices.py:455-473): ``SymmetricMatrices.belongs``
(geometry/symmetric_matrices.py:52-71: the shape test of
``MatrixVectorSpace.belongs`` (geometry/base.py:253-274, Python values), then
``if gs.any(belongs)`` (68: a tensor's truth), ``Matrices.is_symmetric``
(geometry/matrices.py:418-434 -> ``equal``, ``isclose``/``all`` with atol))
and ``Matrices.is_pd`` (geometry/matrices.py:437-458: a Python loop over the
matrices, ``gs.linalg.is_single_matrix_pd`` (_backend/pytorch/linalg.py:
125-141: ``try: torch.linalg.cholesky(mat); return True except RuntimeError:
return False`` (137-141: the exception raised by a matrix's values decides a
Python bool)), ``gs.array`` of the list of Python bools (457: stacked
``torch.tensor``s)).

Controls (no tensor value reaches Python):
``r26a_hypersphere_geodesic_ops_control`` (``Hypersphere.to_tangent``, the
sphere metric's ``log``, ``exp``, ``dist`` and ``parallel_transport``:
``clip``, ``arccos``, ``einsum`` and ``taylor_exp_even_func``
(algebra_utils.py:136-168: the Taylor series and the exact function chosen
elementwise by three-argument ``gs.where``), ``gs.where(theta == 0.0, ...)``
in the transport) and ``r26a_spd_affine_exp_projection_control`` (the SPD
affine-invariant ``exp`` and ``inner_product`` and ``SPDMatrices.projection``:
``eigh``, ``powermh``/``expmh`` with ``check_positive=False``, ``inv``,
``einsum``, three-argument ``gs.where`` on the eigenvalues).

Global state on import (the builders import the library; this module imports
only os, typing, torch and benchmarks.ecosystem, and sets
``GEOMSTATS_BACKEND=pytorch`` in ``os.environ`` with ``setdefault``): ``import
geomstats`` (any submodule runs ``geomstats/__init__.py``, which imports
``_backend``, ``_logging`` and a dozen geometry modules) appends a
``BackendImporter`` to ``sys.meta_path`` (_backend/__init__.py:303) that
builds ``geomstats.backend`` on first import and then calls
``set_default_dtype("float64")`` (293 -> _backend/pytorch/_dtype.py:51-65:
``torch.set_default_dtype(torch.float64)`` for the whole process, and
rewrites the ``dtype`` defaults of the backend functions registered for it);
every later ``torch.randn``/``torch.tensor``/``torch.zeros`` without a dtype
in the process, other libraries' rows included, makes float64.
``geomstats/_logging.py:3-4`` runs ``logging.basicConfig(format="%(levelname)s:
%(message)s")`` and sets the root logger's level to INFO: the root logger
gains a stderr ``StreamHandler``, so any library's ``logging.info`` that
propagates to the root is printed from then on.  Importing scipy (through
geomstats) adds two warning filters (ignore "the matrix subclass is not the
recommended way", always ``SpecialFunctionWarning``); the learning modules
import scikit-learn (learning/frechet_mean.py:10, kmeans.py:10), which sets
``KMP_DUPLICATE_LIB_OK=True`` and ``KMP_INIT_AT_FORK=FALSE`` in
``os.environ`` (``setdefault``, sklearn/__init__.py:56, 60) and imports
pandas, joblib and threadpoolctl.  Thread counts, deterministic flags and
matmul precision are unchanged; ``torch._dynamo`` is not imported.  The first
``MultivariateNormal`` in a process costs about 0.85 s: torch's
``broadcast_shapes`` lazily imports ``torch.fx.experimental.symbolic_shapes``
and sympy (torch's code, not geomstats'); later calls take milliseconds.

Library quirks met (eagerly): ``FrechetMean``'s default start is the first
sample (frechet_mean.py:155), so the first ``log`` is of a point at itself:
on the sphere ``arccos`` of an inner product of 1 and on the hyperboloid
``arccosh`` of 1, whose gradients are infinite, and the fitted mean's
gradient is NaN; the sphere row starts from the north pole with
``.set(init_point=...)`` (``set`` exists only on ``FrechetMean`` itself, not
on the classes ``__new__`` may return).  ``RiemannianKMeans``'s default
``init="random"`` draws with Python's ``random.randint`` (kmeans.py:7, 111)
and ``"kmeans++"`` with scipy's ``rv_discrete`` (numpy's global RNG), neither
seeded by ``torch.manual_seed``, and an empty cluster is refilled with
``randint`` (179); an array ``init`` becomes ``cluster_centers_`` itself and
is overwritten in place (123, 177: seen in a probe: the caller's tensor is
the fitted centres), so a second ``fit`` starts from the first one's result.
The k-means row passes a callable ``init`` returning a copy of the first two
samples.  The pytorch ``logm`` leaves torch for numpy/scipy in both forward
and backward (its gradient is exact but computed outside autograd).  The
Stiefel ``log`` cannot be differentiated: its orthogonal completion uses
``qr(..., mode="complete")`` on a 4x2 matrix (stiefel.py:473), whose backward
torch refuses ("The QR decomposition is not differentiable when
mode='complete' and nrows > ncols").  ``SPDMatrices.belongs`` tests positive
definiteness by Cholesky, which reads only the lower triangle, so a
non-symmetric matrix with a positive definite lower triangle passes
``is_pd`` (and fails the symmetry test).  ``vectorization.repeat_out`` slices
``out.shape[:-len(out_shape)]`` with ``out_shape=()``, i.e. ``[:0]``, so every
batched call broadcasts its output to the shape it already has.  With these
inputs: the sphere mean stops after 5 steps, the SPD adaptive mean after 12
steps, the k-means after 2 rounds (each cluster mean in 1 step), the
rejection sampler draws 10 then 1 proposals, the SO(3) barycenter takes 4
steps, and the Stiefel log runs 7 ``logm`` rounds over its 2 pairs.

Dropped: ``FrechetMean(..., method="batch")`` on the hyperboloid
(``BatchGradientDescent.minimize``, frechet_mean.py:215-269: ``while
convergence > self.epsilon`` (236) and ``if convergence < convergence_old``
(250) are the same tensor-truth loop pattern as the adaptive row, and
``Hyperboloid.regularize``'s ``if not gs.all(sq_norm): raise``
(geometry/hyperboloid.py:118) one more guard; kept to nine rows; its default
start gives NaN gradients, see the quirks); ``GeodesicRegression.fit``
(learning/geodesic_regression.py: its ``RiemannianGradientDescent`` calls
``gs.autodiff.value_and_grad``, which runs ``backward()`` inside the fit
(_backend/pytorch/autodiff.py:303-380): under ``no_grad`` the point's
``.grad`` is None and ``.detach()`` fails, and with inputs that require grad
the inner backward accumulates into them); ``TangentPCA`` (scikit-learn's
``_BasePCA`` machinery, numpy-side); ``random_von_mises_fisher`` in dimension
above 2 (scipy's ``beta.rvs``, numpy's global RNG, not seeded by torch) and
``random_uniform`` (its ``if num_bad_samples == 0`` loop (hypersphere.py:
448-456) exits on the first pass for Gaussian draws); ``Stiefel``'s
``lifting`` (``if column_r_i[i] <= 0: raise``, stiefel.py:332; a retraction
inverse, less used than ``log``).  No candidate failed eagerly or differed
between the two processes.
"""

from __future__ import annotations

import os

os.environ.setdefault("GEOMSTATS_BACKEND", "pytorch")  # before anything could import geomstats

from typing import Any  # noqa: E402

import torch  # noqa: E402

from benchmarks.ecosystem import Built, Row, row_lookup  # noqa: E402

GEOMSTATS = ("geomstats", "2.8.0")
MODULES = ("geomstats",)
INFERENCE = ("inference",)
F64 = torch.float64  # the library's pytorch backend sets torch's default dtype to float64 on import

# --- helpers -------------------------------------------------------------------------------


def _backend() -> Any:
    """``geomstats.backend``, checked to be the pytorch backend (the environment variable is read once, when
    geomstats is first imported)."""
    import geomstats.backend as gs

    if gs.__name__ != "geomstats.pytorch":
        raise RuntimeError(f"geomstats runs the {gs.__name__!r} backend; these rows need GEOMSTATS_BACKEND=pytorch "
                           "set before geomstats is first imported")
    return gs


def _unit(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True)


def _sphere_points(n: int, spread: float) -> torch.Tensor:
    """``n`` points on the 2-sphere in R^3: Gaussian perturbations of the north pole, normalised."""
    return _unit(torch.randn(n, 3, dtype=F64) * spread + torch.tensor([0.0, 0.0, 1.0], dtype=F64))


def _spd(*batch: int, scale: float = 0.5) -> torch.Tensor:
    """SPD 3x3 matrices: ``matrix_exp`` of symmetrised Gaussian matrices."""
    a = torch.randn(*batch, 3, 3, dtype=F64) * scale
    return torch.linalg.matrix_exp(a + a.transpose(-1, -2))


def _skew(v: torch.Tensor) -> torch.Tensor:
    """The skew-symmetric 3x3 matrices of the vectors ``v`` (..., 3)."""
    z = torch.zeros_like(v[..., 0])
    return torch.stack([torch.stack([z, -v[..., 2], v[..., 1]], -1),
                        torch.stack([v[..., 2], z, -v[..., 0]], -1),
                        torch.stack([-v[..., 1], v[..., 0], z], -1)], -2)


def _fit_estimate(estimator: Any, x: torch.Tensor) -> torch.Tensor:
    """Fit a geomstats mean estimator (``fit`` returns the estimator) and return its ``estimate_``."""
    return estimator.fit(x).estimate_


def _first_rows(x: torch.Tensor, n_clusters: int) -> torch.Tensor:
    """A deterministic k-means initialisation: the first ``n_clusters`` samples (a copy, as the library writes
    the centres in place)."""
    return x[:n_clusters].clone()


def _kmeans_fit(kmeans: Any, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Fit Riemannian k-means; the cluster centres, the labels and the inertia."""
    kmeans.fit(x)
    return kmeans.cluster_centers_, kmeans.labels_, kmeans.inertia_


def _sphere_geodesic_ops(sphere: Any, x: torch.Tensor, y: torch.Tensor,
                         v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Closed-form 2-sphere operations: exp_x(log_x(y)), d(x, y), and the parallel transport from x to y of v
    projected on the tangent space at x."""
    metric = sphere.metric
    tangent = sphere.to_tangent(v, x)
    return (metric.exp(metric.log(y, x), x), metric.dist(x, y),
            metric.parallel_transport(tangent, x, end_point=y))


def _spd_affine_ops(space: Any, base: torch.Tensor, tangent: torch.Tensor,
                    matrix: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Affine-invariant exp at ``base`` of the symmetric ``tangent``, its squared norm there, and the projection
    of an arbitrary ``matrix`` onto SPD(3)."""
    metric = space.metric
    return (metric.exp(tangent, base), metric.inner_product(tangent, tangent, base), space.projection(matrix))


# --- builders ------------------------------------------------------------------------------


def _frechet_mean_sphere(training: bool) -> Built:
    gs = _backend()
    from geomstats.geometry.hypersphere import Hypersphere
    from geomstats.learning.frechet_mean import FrechetMean

    estimator = FrechetMean(Hypersphere(dim=2)).set(init_point=gs.array([0.0, 0.0, 1.0]), epsilon=1e-8)
    return _fit_estimate, (estimator, _sphere_points(10, spread=0.6)), {}


def _frechet_mean_spd(training: bool) -> Built:
    _backend()
    from geomstats.geometry.spd_matrices import SPDMatrices
    from geomstats.learning.frechet_mean import FrechetMean

    return _fit_estimate, (FrechetMean(SPDMatrices(3), method="adaptive"), _spd(6)), {}


def _kmeans(training: bool) -> Built:
    _backend()
    from geomstats.geometry.poincare_ball import PoincareBall
    from geomstats.learning.kmeans import RiemannianKMeans

    centres = torch.tensor([[0.4, 0.2], [-0.3, -0.4]], dtype=F64)
    x = (torch.randn(6, 2, 2, dtype=F64) * 0.15 + centres).reshape(12, 2)  # rows alternate between the clusters
    kmeans = RiemannianKMeans(PoincareBall(dim=2), n_clusters=2, init=_first_rows)
    return _kmeans_fit, (kmeans, x), {}


def _riemannian_normal(training: bool) -> Built:
    _backend()
    from geomstats.geometry.hypersphere import Hypersphere

    mean = _unit(torch.tensor([0.3, -0.2, 1.0], dtype=F64))
    return Hypersphere(dim=2).random_riemannian_normal, (), {"mean": mean, "precision": 0.3, "n_samples": 10}


def _so3_barycenter(training: bool) -> Built:
    _backend()
    from geomstats.geometry.special_orthogonal import SpecialOrthogonal
    from geomstats.learning.exponential_barycenter import ExponentialBarycenter

    rotations = torch.linalg.matrix_exp(_skew(torch.randn(5, 3, dtype=F64) * 0.4))
    return _fit_estimate, (ExponentialBarycenter(SpecialOrthogonal(n=3)), rotations), {}


def _stiefel_log(training: bool) -> Built:
    _backend()
    from geomstats.geometry.stiefel import Stiefel

    stiefel = Stiefel(4, 2)
    base = torch.linalg.qr(torch.randn(2, 4, 2, dtype=F64))[0]
    with torch.no_grad():
        point = stiefel.metric.exp(stiefel.to_tangent(torch.randn(2, 4, 2, dtype=F64) * 0.3, base), base)
    return stiefel.metric.log, (point, base), {}


def _spd_belongs(training: bool) -> Built:
    _backend()
    from geomstats.geometry.spd_matrices import SPDMatrices

    matrices = _spd(4)
    matrices[2] -= 3.0 * torch.eye(3, dtype=F64)  # symmetric, indefinite
    matrices[3, 0, 1] += 0.1  # positive definite lower triangle, not symmetric
    return SPDMatrices(3).belongs, (matrices,), {}


def _sphere_control(training: bool) -> Built:
    _backend()
    from geomstats.geometry.hypersphere import Hypersphere

    return (_sphere_geodesic_ops,
            (Hypersphere(dim=2), _sphere_points(4, 0.8), _sphere_points(4, 0.8), torch.randn(4, 3, dtype=F64)), {})


def _spd_control(training: bool) -> Built:
    _backend()
    from geomstats.geometry.spd_matrices import SPDMatrices

    a = torch.randn(2, 3, 3, dtype=F64) * 0.3
    return _spd_affine_ops, (SPDMatrices(3), _spd(2), a + a.transpose(-1, -2), torch.randn(2, 3, 3, dtype=F64)), {}


# --- rows ------------------------------------------------------------------------------------

_TAYLOR = ("`taylor_exp_even_func` (algebra_utils.py:136-168: `gs.array` of the coefficients and powers, three-argument "
           "`gs.where`)")
_SPHERE_METRIC = ("the sphere metric's `log` (geometry/hypersphere.py:749-778: `clip`, `arccos`, " + _TAYLOR + ") and "
                  "`exp` (722-747: `to_tangent` (106-129), " + _TAYLOR + ")")
_GD = ("`GradientDescent.minimize` (learning/frechet_mean.py:149-209: `while iteration < max_iter` (168, a Python "
       "int), metric `log` (169), variance and tangent mean (171-177), `isclose`/`less_equal`/`logical_or` (179-183), "
       "`if not (condition or iteration == 0): break` (184: a 0-d bool tensor's truth), metric `exp` (187), `if norm < "
       "norm_old` / `elif norm > norm_old` (191-194: tensors compared, the step halved), `logging.warning` at "
       "`max_iter` (196-200))")
_SPD_LOG = ("the SPD affine-invariant `log` (geometry/spd_matrices.py:621-645: `powermh` (hermitian_matrices.py:34-57, "
            "`check_positive=False`), `logmh` (spd_matrices.py:27-32) -> `apply_func_to_eigvalsh(..., "
            "check_positive=True)` (hermitian_matrices.py:60-103: `eigh`, `if check_positive and gs.any(eigvals < "
            "0.0)` (80: a tensor's truth) -> `logging.warning` (86)))")
_SPD_EXP = ("the SPD affine-invariant `exp` (spd_matrices.py:591-619: `powermh`, `expmh` (hermitian_matrices.py:15-31), "
            "both `apply_func_to_eigvalsh` with `check_positive=False` (80: `and` short-circuits on a Python bool))")
_POINCARE = ("the Poincare-ball metric (geometry/poincare_ball.py: `exp` (102-130: `gs.where(gs.isclose(norm_tan, "
             "0.0), ...)`) and `log` (132-154) through `mobius_add` (156-201: `projection` of both inputs (181-183) and "
             "of the result (201): `projection` (73-96: `if gs.any(l2_norm >= 1 - gs.atol)` (90: a tensor's truth))), "
             "`dist` (220-241), `squared_norm` via `metric_matrix` (271-291))")
_LOGM = ("`gs.linalg.logm` = the autograd Function `_Logm` (_backend/pytorch/linalg.py:24-61: `_logm` (32-35: "
         "`x.detach().cpu()` handed to numpy, `torch.from_numpy` back) -> `logm` (_backend/_shared_numpy/linalg.py:28-46:"
         " `_np.array` of the tensor (_shared_numpy/_common.py:74), `if _is_symmetric(new_x)` (11-13, 32: a numpy test),"
         " scipy's `logm` per matrix through `np.vectorize` (23-25, 41, 43)))")


def _rows() -> list[Row]:
    return [
        Row(
            "r26a_frechet_mean_hypersphere_gd", *GEOMSTATS,
            "function: FrechetMean(Hypersphere(dim=2)).set(init_point=north pole, epsilon=1e-8).fit(X (10, 3)) "
            ".estimate_ via a 2-line wrapper; returns the mean (3,)",
            MODULES, _frechet_mean_sphere,
            notes="the Frechet (Karcher) mean of 10 points on the 2-sphere by the default Riemannian gradient descent "
            "(5 steps here); started from the north pole because the default start (the first sample) makes the "
            "first `log` that of a point at itself, whose `arccos` gradient is infinite (NaN mean gradient); in "
            "training the points require grad",
            patterns="`FrechetMean.__new__` (learning/frechet_mean.py:630-641: `isinstance` dispatch), `set` "
            "(651-661), `fit` (685-708) -> " + _GD + " with " + _SPHERE_METRIC + ", `squared_norm` (702-720)",
        ),
        Row(
            "r26a_frechet_mean_spd_adaptive", *GEOMSTATS,
            "function: FrechetMean(SPDMatrices(3), method=\"adaptive\").fit(X (6, 3, 3)).estimate_ via a 2-line "
            "wrapper; returns the mean (3, 3)",
            MODULES, _frechet_mean_spd,
            notes="the affine-invariant Frechet mean of 6 SPD matrices by the Levenberg-Marquardt-style adaptive "
            "gradient descent (12 steps here); in training the matrices require grad (through `eigh`)",
            patterns="`FrechetMean.fit` (learning/frechet_mean.py:685-708) -> `AdaptiveGradientDescent.minimize` "
            "(275-373: `while sq_norm_current_tangent_mean > self.epsilon**2 and iteration < self.max_iter` (328-330: "
            "a tensor's truth), `if sq_norm_next_tangent_mean < sq_norm_current_tangent_mean` (350: a tensor's "
            "truth), `tau = min(tau_max, ...)`/`max(tau_min, ...)` (354, 356: Python floats), `logging.warning` at "
            "`max_iter` (358-362)) with " + _SPD_LOG + " for every sample at every step, " + _SPD_EXP + ", "
            "`inner_product` (565-589: `inv`, `trace_product`)",
        ),
        Row(
            "r26a_kmeans_poincare_ball_fit", *GEOMSTATS,
            "function: RiemannianKMeans(PoincareBall(dim=2), n_clusters=2, init=first two samples).fit(X (12, 2)) via "
            "a 3-line wrapper; returns (cluster_centers_ (2, 2), labels_ (12,) int64, inertia_ 0-d)",
            MODULES, _kmeans,
            notes="Riemannian k-means of two clusters of 6 points in the Poincare ball (2 rounds, each cluster mean in "
            "1 gradient step here); the callable init (a copy of the first two samples, one per cluster) replaces "
            "the default `init=\"random\"`, which draws with Python's unseeded `random.randint`; in training the "
            "points require grad (the labels are integers)",
            patterns="`RiemannianKMeans.fit` (learning/kmeans.py:136-211: `_pick_init_cluster_centers` (87-134: a "
            "callable init, shape checks on Python ints), distances to each centre (160-164, `gs.hstack`), `argmin` "
            "(165, 186), `for index in range(self.max_iter)` (167), `X[self.labels_ == i]` (173: boolean-mask "
            "indexing, a data-dependent row count), `if len(fold) > 0` (175: the count read into Python), a "
            "`FrechetMean` fit per cluster (176) -> " + _GD + ", `cluster_centers[i] = estimate_` (177: in-place row "
            "writes), inertia (187-188), `if gs.mean(cluster_centers_distances) < self.tol: break` (198: a tensor's "
            "truth), for-else `logging.warning` (203-207)) on " + _POINCARE,
        ),
        Row(
            "r26a_hypersphere_riemannian_normal_sampler", *GEOMSTATS,
            "method: Hypersphere(dim=2).random_riemannian_normal(mean=(3,), precision=0.3, n_samples=10); returns "
            "samples (10, 3)",
            MODULES, _riemannian_normal,
            notes="rejection sampling of the spherical normal distribution (Hauberg 2018) around a unit mean "
            "(sampled: the call seed fixes it; 10 proposals then 1 here); in training the mean requires grad "
            "(through `log`, parallel transport and `exp`; the proposals are `sample`d, without gradient)",
            patterns="`random_riemannian_normal` (geometry/hypersphere.py:558-659: `isinstance(precision, (float, "
            "int))` (613), `inv` (618), `while (n_accepted < n_samples) and (n_iter < max_iter)` (629: a 0-d tensor "
            "count after the first round, a tensor's truth), `gs.random.multivariate_normal(..., size=(n_samples - "
            "n_accepted,))` (630-632: a size from a tensor; _backend/pytorch/random.py:38-43, "
            "`torch.distributions.MultivariateNormal(...).sample` with argument validation), the acceptance "
            "threshold (620-627: " + _TAYLOR + "), `gs.random.rand(n_samples - n_accepted)` (634), "
            "`envelope[criterion]` (636: boolean-mask indexing), `n_accepted += gs.sum(criterion)` (637), `if "
            "n_accepted < n_samples: logging.warning` (639-643), `gs.concatenate` of the accepted rows (644), "
            "`gs.zeros(n_accepted)` (646: a shape from the tensor), " + _SPHERE_METRIC + ", `parallel_transport` "
            "(821-870: `gs.where(theta == 0.0, ...)` (861)))",
        ),
        Row(
            "r26a_so3_exponential_barycenter", *GEOMSTATS,
            "function: ExponentialBarycenter(SpecialOrthogonal(n=3)).fit(R (5, 3, 3)).estimate_ via a 2-line wrapper; "
            "returns the barycenter (3, 3)",
            MODULES, _so3_barycenter,
            notes="the group exponential barycenter of 5 rotation matrices (4 steps here); the group log is scipy's "
            "matrix logarithm behind a custom autograd Function (numpy in forward and backward); in training the "
            "rotations require grad",
            patterns="`ExponentialBarycenter.fit` (learning/exponential_barycenter.py:118-145) -> "
            "`GradientDescent.minimize` (18-75: `for iteration in range(self.max_iter)` (50), `if not (grad_norm > "
            "self.epsilon or iteration == 0): break` (51-52: a tensor's truth), `inverse` (transpose, "
            "geometry/special_orthogonal.py:91-104), `compose` (matmul), `SpecialOrthogonal.log` "
            "(special_orthogonal.py:245-277: `if gs.any(self.are_antipodals(point, base_point)): raise ValueError` "
            "(273-277: a tensor's truth; `are_antipodals` 220-243: `isclose`, `all` over two axes)) -> "
            "`MatrixLieGroup.log` (geometry/lie_group.py:217-250) -> " + _LOGM + ", the group `exp` (lie_group.py:"
            "183-215: `torch.linalg.matrix_exp`), `norm` (63), for-else `logging.warning` (67-71)); in training "
            "`_Logm.backward` (_backend/pytorch/linalg.py:44-58: a 6x6 block matrix through the same numpy/scipy "
            "`logm`)",
        ),
        Row(
            "r26a_stiefel_log_zimmermann", *GEOMSTATS,
            "method: Stiefel(4, 2).metric.log(point (2, 4, 2), base_point (2, 4, 2)); returns tangent vectors (2, 4, 2)",
            MODULES, _stiefel_log, modes=INFERENCE,
            notes="inference only: the library's orthogonal completion calls `qr(..., mode=\"complete\")` on a 4x2 "
            "matrix, which torch cannot differentiate (the backward raises). The canonical-metric logarithm on the "
            "Stiefel manifold by Zimmermann's iterative algorithm (7 `logm` rounds over the 2 pairs here), the "
            "points made with the library's `exp` in `make`",
            patterns="`Connection.log` (geometry/connection.py:107-135: `_check_log_solver` (12-20, `hasattr`)) -> "
            "`_StiefelLogSolver.log` (geometry/stiefel.py:513-572: `if p == n` (549, Python ints), `qr` (441-457), "
            "complete `qr` (460-475), `_procrustes_preprocessing` (478-511: `svd`, `for i in range(1, p + 1)` with "
            "`det` and `if gs.all(det > 0): break` (500: a tensor's truth), sign flips), `gs.ndim(matrix_v) == 2` "
            "(565), `gs.stack([self._iter_log(p, x) for x in matrix_v])` (566: iterating a tensor) -> `_iter_log` "
            "(574-598: `for _ in range(self.max_iter)` (576, up to 500) of " + _LOGM + " (577), `if norm_matrix_c <= "
            "self.tol: break` (581: a tensor's truth, the round count from the data), `matrix_exp` of the skew part "
            "(584), `warnings.warn` when not converged (589), `gs.is_complex` (591)))",
        ),
        Row(
            "r26a_spd_belongs_cholesky", *GEOMSTATS,
            "method: SPDMatrices(3).belongs(matrices (4, 3, 3)) (two SPD, one symmetric indefinite, one "
            "non-symmetric with a positive definite lower triangle); returns (4,) bool",
            MODULES, _spd_belongs, modes=INFERENCE,
            notes="inference only: the result is a boolean tensor (no gradient path). The membership test a user "
            "runs before SPD computations, with both outcomes of the Cholesky test and of the symmetry test",
            patterns="`SPDMatrices.belongs` (geometry/spd_matrices.py:455-473) -> `SymmetricMatrices.belongs` "
            "(geometry/symmetric_matrices.py:52-71: `MatrixVectorSpace.belongs` (geometry/base.py:253-274: a shape "
            "comparison, `if belongs` of a Python bool), `if gs.any(belongs)` (68: a tensor's truth), "
            "`Matrices.is_symmetric` (geometry/matrices.py:418-434: `isclose` with atol, `all` over two axes)), "
            "`Matrices.is_pd` (matrices.py:437-458: a Python loop over the matrices (457), "
            "`gs.linalg.is_single_matrix_pd` (_backend/pytorch/linalg.py:125-141: `try: torch.linalg.cholesky(mat); "
            "return True` / `except RuntimeError: return False` (137-141: the exception a matrix's values raise "
            "decides a Python bool)), `gs.array` of the Python bools (457: `torch.tensor`s stacked)), "
            "`gs.logical_and` (a product of bool tensors)",
        ),
        Row(
            "r26a_hypersphere_geodesic_ops_control", *GEOMSTATS,
            "function: Hypersphere(dim=2): metric.exp(metric.log(y, x), x), metric.dist(x, y) and "
            "metric.parallel_transport(to_tangent(v, x), x, end_point=y) for x, y, v (4, 3) via a 4-line wrapper; "
            "returns ((4, 3), (4,), (4, 3))",
            MODULES, _sphere_control,
            notes="control: closed-form sphere geometry on a batch of 4 pairs; in training x, y and v require grad",
            patterns="control: no tensor value reaches Python. `Hypersphere.to_tangent` (geometry/hypersphere.py:"
            "106-129), " + _SPHERE_METRIC + ", `dist` (780-803: norms, `clip`, `arccos`), `parallel_transport` "
            "(821-870: `log` (853-854), `norm`, `gs.where(theta == 0.0, 1.0, theta)` (861), `sin`/`cos`, `einsum`)",
        ),
        Row(
            "r26a_spd_affine_exp_projection_control", *GEOMSTATS,
            "function: SPDMatrices(3): metric.exp(tangent, base), metric.inner_product(tangent, tangent, base) and "
            "projection(matrix) for base, tangent, matrix (2, 3, 3) via a 3-line wrapper; returns ((2, 3, 3), (2,), "
            "(2, 3, 3))",
            MODULES, _spd_control,
            notes="control: the affine-invariant exponential and squared norm at SPD base points and the projection "
            "of arbitrary matrices onto SPD(3); in training base, tangent and matrix require grad (through `eigh`)",
            patterns="control: no tensor value reaches Python. " + _SPD_EXP + ", `inner_product` (spd_matrices.py:"
            "565-589: `GeneralLinear.inverse` (`inv`), `Matrices.mul`, `trace_product` (`einsum`)), "
            "`SPDMatrices.projection` (475-495: `to_symmetric`, `eigh`, `gs.where(eigvals < gs.atol, gs.atol, "
            "eigvals)`, `einsum`, matmul)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-six (a)")
