"""Held-out round nineteen (r19a): torchist.

Chosen by reading the library's source, written down in ROUND19.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tens of points, seeded random inputs,
nothing downloaded, nothing written to disk); a row whose ``modes`` is one mode
only says why in its ``notes``.

torchist 1.0.1 (François Rozet's NumPy-style histograms in torch, pure Python
on torch, no dependency but torch) holds ``histogramdd`` (the counts, or the
summed ``weights``, of points ``x`` (*, D) in a grid of bins, dense or as a
sparse COO tensor, the bins given by their number and bounds, uniform, or by
their edges), ``histogram`` (the 1-D case), ``histogramdd_edges`` and
``histogram_edges`` (the uniform edges ``histogramdd`` uses), ``reduce_
histogramdd`` (the sum of the histograms of a sequence of chunks),
``normalize`` and ``marginalize`` (dense or sparse), ``ravel_multi_index`` and
``unravel_index`` (in ``torchist/histograms.py``), and metrics between
histograms in ``torchist/metrics.py``: ``entropy``, ``kl_divergence``,
``js_divergence`` (dense or sparse), ``sinkhorn_transport`` (entropic optimal
transport, Sinkhorn-Knopp) and ``em_distance`` (the regularized earth mover's
distance over the grid).  ``torchist/__init__.py`` re-exports ``histogram``,
``histogram_edges``, ``histogramdd``, ``ravel_multi_index`` and
``unravel_index``; the rows import the rest from ``torchist.histograms`` and
``torchist.metrics``.  A histogram is what Dynamo handles worst: the points are
filtered by their values, counted by sort-and-unique or ``bincount``, and the
shape of the result is read into Python from tensors.

The data-dependent code (file:line relative to the ``torchist`` package):
``histogramdd`` (histograms.py:89-197) takes ``x.reshape(-1, D).detach()``; with
no edges, ``bound = bound or (low is None and upp is None)`` and missing bounds
come from the data (``x.min(dim=0).values``, ``x.max(dim=0).values``,
histograms.py:131-138); with edges (one tensor, or one per dimension) the bins,
``low`` and ``upp`` come from them (``e.numel() - 1``, ``e[0]``, ``e[-1]``: 0-d
tensors in a Python list, histograms.py:139-148); ``torch.as_tensor`` of the
bins, bounds (a list of 0-d tensors with edges) and ``squeeze``
(histograms.py:150-152); ``assert torch.all(upp > low), ...`` (histograms.py:154,
a tensor's truth in a Python ``assert``); unless bound, ``mask =
~out_of_bounds(x, low, upp)`` (histograms.py:48-65: ``x < low``, ``x > upp``,
``if x.ndim > 1: any(dim=-1)``, ``logical_or``) then ``x = x[mask]`` and
``weights = weights[mask]`` (histograms.py:160-166: boolean-mask reads, the
number of points kept from the data; the rows take it at all, all but one, one
and none); the bin of each point by ``quantize`` (histograms.py:68-86, a
``@torch.no_grad()`` function: ``(x - low) / (upp - low)``, ``(bins *
x).long()``, ``clip(max=bins - 1)``) or ``torch.bucketize(x, edges[1:-1],
right=True)`` (one tensor of edges, histograms.py:172; per dimension in a list
comprehension over ``range(D)`` then ``stack``, histograms.py:174-178); ``shape
= bins.expand(D).tolist()`` (histograms.py:181: the histogram's shape, a Python
list read from a tensor); dense: ``ravel_multi_index`` (histograms.py:10-26:
``coords.new_tensor((*shape, 1))``, ``flipud().cumprod(0)``) then
``idx.bincount(weights, minlength=math.prod(shape)).reshape(shape)``
(histograms.py:195: ``bincount``, whose output length is ``max(idx) + 1`` or
``minlength``, a size from the data); sparse: ``torch.unique(idx, dim=0,
return_counts=True)`` (histograms.py:185, the occupied bins and their counts, a
number from the data) or, with weights, ``torch.unique(idx, dim=0,
return_inverse=True)``, ``weights.new_zeros(len(idx))`` (a Python ``len`` of a
data-dependent size) and ``scatter_add`` (histograms.py:187-189), then
``torch.sparse_coo_tensor(idx.t(), values, shape)`` and the in-place
``hist._coalesced_(True)`` (histograms.py:191-192).  ``histogramdd_edges``
(histograms.py:200-237) takes the bounds from ``x.min(dim=0)[0]``/``x.max(dim=
0)[0]`` or ``torch.as_tensor(low).squeeze().expand(D)`` and builds ``[torch.
linspace(l, u, b + 1) for (l, u, b) in zip(low, upp, bins)]`` (iterating three
tensors; ``linspace`` with 0-d tensor endpoints and a 0-d long tensor as the
number of steps, read into Python).  ``normalize`` and ``marginalize``
(histograms.py:328-375) branch in Python on ``hist.is_sparse``, on ``type(dim)
is int``, ``keep`` (a list comprehension over ``range(hist.ndim)``) and ``if
dim:`` and reduce by ``torch.sparse.sum`` (the sparse path: a sparse result
whose number of entries comes from the data) or ``sum``.  ``entropy``
(metrics.py:10-28) takes ``p.coalesce().values()`` of a sparse histogram (as
many values as stored entries) and masks ``p * p.log()`` by ``torch.where(p >
0.0, ...)``; the dense ``kl_divergence`` (metrics.py:55-58) is ``p * (p.log() -
q.clip(min=eps).log())`` masked by ``torch.where``.  ``sinkhorn_transport``
(metrics.py:84-131, under ``em_distance``, metrics.py:134-169: ``p.new_tensor(
p.shape)``, ``torch.arange(p.numel())``, ``unravel_index``, ``torch.cdist``)
iterates ``for i in range(max_iter)`` with, every ``step`` iterations, ``err =
torch.linalg.norm(marginal - c)`` and ``if err < threshold: break``
(metrics.py:120-129: a tensor's truth in a Python ``if`` decides the trip
count).  The controls (no tensor value reaches Python on their path): the dense
``kl_divergence`` (one row; ``p.is_sparse`` is a Python attribute).  No
torchist path a row takes prints, warns or logs; torch itself warns once per
process, on the first ``torch.sparse_coo_tensor`` built without an explicit
``check_invariants`` (``UserWarning: Sparse invariant checks are implicitly
disabled``, from ATen's Context.cpp), which the first of the two sparse
``histogramdd`` rows run in a process triggers.

Global state on import: ``import torchist`` (and ``torchist.histograms``,
``torchist.metrics``) imports ``math``, ``typing`` and torch, and no other
module (not ``torch._dynamo``); checked by comparing before and after the
import: it adds no warning filter, logger or handler, changes no environment
variable, writes no file, draws from no generator, and changes none of torch's
global state (default dtype and device, grad mode, threads, deterministic
flag, matmul precision, anomaly mode, print options, the sparse invariant
checks).  ``histograms.py`` defines a ``benchmark()`` function (numpy,
timeit, prints) that nothing calls on import.

Library bugs (checked eagerly; no row takes a failing path): (1) ``histogramdd``'s
docstring says it is differentiable with respect to ``weights``, and its output
requires grad when the weights do, but backward fails on both paths:
``bincount`` has no derivative in torch (``derivative for aten::bincount is not
implemented``, histograms.py:195) and the sparse path's in-place
``hist._coalesced_(True)`` (histograms.py:192) has none either (``derivative for
aten::_coalesced_ is not implemented``), so no gradient reaches the weights.
(2) ``quantize`` (histograms.py:82-84) puts points lying on its own edges into
the bin below by rounding: ``histogram(torch.linspace(-0.7, 0.7, 8), 7, -0.7,
0.7)`` gives ``[2, 0, 1, 2, 0, 1, 2]`` where ``histogram(..., edges=histogram_
edges(...))`` and ``numpy.histogram`` with those edges give ``[1, 1, 1, 1, 1, 1,
2]`` (NumPy corrects the computed index by comparing with the edges; torchist
does not).  (3) ``histogramdd_edges``/``histogram_edges`` call ``torch.linspace``
without a dtype or device (histograms.py:237): the edges of a float64 ``x`` come
back float32 (the default dtype), and a CUDA ``x`` would get CPU edges (not
run: CPU only).  (4) ``em_distance``'s sparse path (metrics.py:150-155) reads
``q, idx_q = p.values(), p.indices()`` after ``p`` was rebound to its values
tensor: every sparse input raises ``values expected sparse tensor layout but got
Strided`` (and ``q`` is never read).  (5) ``kl_divergence``'s sparse path
returns ``kl._values().sum()`` (metrics.py:53): ``_values()`` is not
differentiable, so the sparse divergence has no ``grad_fn`` even when ``p`` and
``q`` require grad (silently: the dense path is differentiable).  (6) The dense
``entropy`` and ``kl_divergence`` mask ``p * p.log()`` with ``torch.where(p >
0.0, ...)`` after computing it (metrics.py:25-26, 57-58): the forward value is
right, but the gradient at an empty bin of ``p`` is NaN (``where``'s zero times
``log(0)``'s infinite derivative): a (4, 4) distribution with 8 empty bins gets
8 NaN gradients from ``entropy`` (the KL row's ``p`` has no empty bin for this
reason; its ``q``'s empty bins are clipped, with finite gradients).  Limitations,
also checked: the histogram of a constant tensor with no bounds fails the
``assert torch.all(upp > low)`` (NumPy widens such a range by 0.5); with
``bound=True`` a point below ``low`` gives a negative index and ``bincount``
raises, while a point above ``upp`` is silently counted in the last bin
(``quantize`` clips only the maximum); ``normalize`` of a histogram with no
point (every point out of bounds) is NaN (0 / 0) without a warning.
"""

from __future__ import annotations

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

TORCHIST = ("torchist", "1.0.1")


# --- histograms --------------------------------------------------------------------------


def _r19a_histogramdd_all_inside(training: bool) -> Built:
    from torchist import histogramdd

    x = torch.rand(24, 2)  # in [0, 1): every point inside the bounds
    return histogramdd, (x,), {"bins": 4, "low": 0.0, "upp": 1.0}


def _r19a_histogramdd_weights_one_outside(training: bool) -> Built:
    from torchist import histogramdd

    x = torch.rand(24, 3) * 2.0 - 1.0
    x[3] = 1.0  # on the upper bound in every dimension: inside, counted in the last bins
    x[7, 1] = 1.5  # the one point outside (dimension 1 only)
    weights = torch.rand(24)
    kwargs = {"bins": [2, 3, 4], "low": [-1.0, -1.0, -1.0], "upp": [1.0, 1.0, 1.0], "weights": weights}
    return histogramdd, (x,), kwargs


def _r19a_histogram_all_outside(training: bool) -> Built:
    from torchist import histogram

    x = torch.rand(16)  # in [0, 1), every value below low=2
    return histogram, (x, 5, 2.0, 3.0), {}


def _r19a_histogramdd_min_max(training: bool) -> Built:
    from torchist import histogramdd

    x = torch.randn(20, 2)
    return histogramdd, (x,), {"bins": [5, 3]}


def _r19a_sparse_entries(hist: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The stored entries of a coalesced sparse COO histogram: (indices (D, nnz), values (nnz,))."""
    return hist.indices(), hist.values()


def _r19a_histogramdd_sparse_run(x: torch.Tensor, bins: int, low: float, upp: float) -> tuple[torch.Tensor, ...]:
    from torchist import histogramdd

    return _r19a_sparse_entries(histogramdd(x, bins, low, upp, sparse=True))


def _r19a_histogramdd_sparse_counts(training: bool) -> Built:
    x = torch.randn(30, 3)  # 12 of the 30 points inside [-1, 1]^3
    return _r19a_histogramdd_sparse_run, (x, 2, -1.0, 1.0), {}


_R19A_EDGES = (
    (0.0, 0.1, 0.4, 1.0),
    (0.0, 0.25, 0.5, 0.6, 1.0),
)


def _r19a_histogramdd_sparse_edges_run(
    x: torch.Tensor, edges: list[torch.Tensor], weights: torch.Tensor
) -> torch.Tensor:
    from torchist import histogramdd

    return histogramdd(x, edges=edges, weights=weights, sparse=True).to_dense()


def _r19a_histogramdd_sparse_weighted_edges(training: bool) -> Built:
    x = torch.rand(20, 2) * 1.4 - 0.2  # in [-0.2, 1.2): some points outside the edges
    x[0] = torch.tensor([0.1, 0.5])  # on an inner edge in both dimensions (the bin above)
    x[1] = torch.tensor([1.0, 1.0])  # on the last edges (included in the last bins)
    x[2] = torch.tensor([0.0, 0.6])  # on the first edge and an inner one
    edges = [torch.tensor(e) for e in _R19A_EDGES]
    return _r19a_histogramdd_sparse_edges_run, (x, edges, torch.rand(20)), {}


def _r19a_histogram_edges_one_inside(training: bool) -> Built:
    from torchist import histogram

    x = torch.rand(12) * 2.0 + 1.5  # in [1.5, 3.5): outside the edges
    x[5] = 0.25  # the one value inside
    edges = torch.tensor([0.0, 0.2, 0.3, 0.5, 0.8, 1.0])  # non-uniform
    return histogram, (x,), {"edges": edges}


def _r19a_histogramdd_edges_min_max(training: bool) -> Built:
    from torchist.histograms import histogramdd_edges

    return histogramdd_edges, (torch.randn(12, 3), [2, 3, 4]), {}


# --- normalize, marginalize and metrics ---------------------------------------------------


def _r19a_masked(shape: tuple[int, ...], keep: float) -> torch.Tensor:
    """A non-negative float histogram with about ``1 - keep`` of its bins empty (exact zeros)."""
    return torch.rand(shape) * (torch.rand(shape) < keep).float()


def _r19a_distribution(shape: tuple[int, ...], keep: float) -> torch.Tensor:
    p = _r19a_masked(shape, keep)
    return p / p.sum()


def _r19a_sparse_normalize_marginalize_run(hist: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    from torchist.histograms import marginalize, normalize

    p, norm = normalize(hist.to_sparse())
    return marginalize(p, dim=1, keep=True).to_dense(), norm


def _r19a_sparse_normalize_marginalize(training: bool) -> Built:
    return _r19a_sparse_normalize_marginalize_run, (_r19a_masked((3, 4, 2), 0.6),), {}


def _r19a_entropy_sparse_run(p: torch.Tensor) -> torch.Tensor:
    from torchist.metrics import entropy

    return entropy(p.to_sparse())


def _r19a_entropy_sparse(training: bool) -> Built:
    return _r19a_entropy_sparse_run, (_r19a_distribution((4, 4), 0.5),), {}


def _r19a_kl_divergence_dense(training: bool) -> Built:
    from torchist.metrics import kl_divergence

    p = _r19a_distribution((5, 4), 1.1)  # no empty bin (an empty bin of p has a NaN gradient: bug (6))
    q = _r19a_distribution((5, 4), 0.7)  # about 30% of its bins empty
    return kl_divergence, (p, q), {}


def _r19a_em_distance(training: bool) -> Built:
    from torchist.metrics import em_distance

    p = _r19a_distribution((3, 3), 1.1)  # no empty bin
    q = _r19a_distribution((3, 3), 1.1)
    return em_distance, (p, q), {"gamma": 10.0, "max_iter": 60, "step": 5, "threshold": 1e-5}


# --- rows --------------------------------------------------------------------------------

_PRE = (
    "`histogramdd` (histograms.py:89-197): `x.reshape(-1, D).detach()`, Python tests of `edges`, `low`, `upp`"
)
_BOUNDS = (
    "`torch.as_tensor(bins/low/upp).squeeze()` (histograms.py:150-152), `assert torch.all(upp > low)` "
    "(histograms.py:154, a tensor's truth in a Python `assert`)"
)
_MASK = (
    "`mask = ~out_of_bounds(x, low, upp)` (histograms.py:160-161 -> 48-65: `x < low`, `x > upp`, `if x.ndim > 1`: "
    "`any(dim=-1)`, `logical_or`), `x = x[mask]` (histograms.py:163, a boolean-mask read, the number of points "
    "kept from the data)"
)
_WMASK = "`weights = weights.flatten()`, `weights[mask]` (histograms.py:156-166, a second boolean-mask read)"
_QUANT = (
    "`quantize` (histograms.py:68-86, `@torch.no_grad()`: `(x - low) / (upp - low)`, `(bins * x).long()`, "
    "`clip(max=bins - 1)`)"
)
_SHAPE = "`shape = bins.expand(D).tolist()` (histograms.py:181, the shape read from a tensor)"
_DENSE = (
    "`ravel_multi_index` (histograms.py:10-26: `new_tensor((*shape, 1))`, `flipud().cumprod(0).flipud()`, a "
    "weighted sum), `idx.bincount(weights, minlength=math.prod(shape)).reshape(shape)` (histograms.py:195: "
    "`bincount`'s length is `max(idx) + 1` or `minlength`, a size from the data)"
)
_SPARSE_END = (
    "`torch.sparse_coo_tensor(idx.t(), values, shape)`, the in-place `hist._coalesced_(True)` (histograms.py:"
    "191-192)"
)
_NOGRAD_X = "`x` is detached by `histogramdd` (histograms.py:129) and the bins are integers: no gradient path"
_WARN = (
    "torch warns once per process on the first `sparse_coo_tensor` built without `check_invariants` "
    "(`UserWarning: Sparse invariant checks are implicitly disabled`, ATen), in whichever sparse row runs first"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r19a_torchist_histogramdd_bounds_all_inside", *TORCHIST,
            "torchist.histogramdd(x (24, 2) uniform in [0, 1), bins=4, low=0.0, upp=1.0); returns the (4, 4) int64 "
            "counts",
            ("torchist",), _r19a_histogramdd_all_inside, modes=INFERENCE,
            notes="every point inside the bounds: the out-of-bounds mask keeps all 24 (the mask is still computed "
            "and applied); inference only: " + _NOGRAD_X + " (int64 counts)",
            patterns=_PRE + " (bounds given: `bound` stays False), " + _BOUNDS + ", " + _MASK + " (all kept), "
            + _QUANT + ", " + _SHAPE + ", " + _DENSE,
        ),
        Row(
            "r19a_torchist_histogramdd_weights_one_outside", *TORCHIST,
            "torchist.histogramdd(x (24, 3) in [-1, 1) with row 3 at (1, 1, 1) and x[7, 1] = 1.5, bins=[2, 3, 4], "
            "low=[-1.0] * 3, upp=[1.0] * 3, weights=w (24,) uniform in [0, 1)); returns the (2, 3, 4) float32 sums of "
            "the weights",
            ("torchist",), _r19a_histogramdd_weights_one_outside, modes=INFERENCE,
            notes="one point outside (dimension 1 only): the mask keeps 23 points and 23 weights; row 3 lies on "
            "the upper bound (inside; `quantize` clips its index into the last bins); per-dimension bins and "
            "bounds; inference only: the docstring says the histogram is differentiable in `weights`, but "
            "`bincount` has no derivative (backward raises `derivative for aten::bincount is not implemented`: "
            "the module docstring's bug (1)), and " + _NOGRAD_X,
            patterns=_PRE + ", " + _BOUNDS + " (lists of Python floats), " + _WMASK + ", " + _MASK + " (all but "
            "one kept), " + _QUANT + ", " + _SHAPE + " ([2, 3, 4]), " + _DENSE + " (weighted)",
        ),
        Row(
            "r19a_torchist_histogram_bounds_all_outside", *TORCHIST,
            "torchist.histogram(x (16,) uniform in [0, 1), 5, 2.0, 3.0) (bins, low, upp positional); returns the (5,) "
            "int64 counts, all zero",
            ("torchist",), _r19a_histogram_all_outside, modes=INFERENCE,
            notes="every value below `low`: the mask keeps none, `quantize` and `bincount` run on 0 points and "
            "`minlength` gives the 5 zero bins; inference only: " + _NOGRAD_X,
            patterns="`histogram` (histograms.py:240-262: `x.unsqueeze(-1)`, D = 1) -> " + _PRE + ", " + _BOUNDS
            + ", " + _MASK + " (none kept: an empty selection), " + _QUANT + " (of 0 points), " + _SHAPE + ", "
            + _DENSE + " (of 0 indices)",
        ),
        Row(
            "r19a_torchist_histogramdd_data_bounds", *TORCHIST,
            "torchist.histogramdd(x (20, 2) ~ N(0, 1), bins=[5, 3]) (no bounds: the data's min and max); returns the "
            "(5, 3) int64 counts",
            ("torchist",), _r19a_histogramdd_min_max, modes=INFERENCE,
            notes="no `low` nor `upp`: the bounds are the data's per-dimension min and max and `bound` becomes True, "
            "so no point is masked; the maximum of each dimension lands on index `bins` and is clipped into the "
            "last bin; inference only: " + _NOGRAD_X,
            patterns=_PRE + " (`bound = bound or (low is None and upp is None)`: True), `x.min(dim=0).values`, "
            "`x.max(dim=0).values` (histograms.py:131-138: the bounds from the data), " + _BOUNDS + " (tensors "
            "from the data), no mask (`if not bound` false), " + _QUANT + " (with the data's bounds), " + _SHAPE
            + ", " + _DENSE,
        ),
        Row(
            "r19a_torchist_histogramdd_sparse_counts", *TORCHIST,
            "wrapper: torchist.histogramdd(x (30, 3) ~ N(0, 1), 2, -1.0, 1.0, sparse=True) (a (2, 2, 2) sparse "
            "COO histogram); returns its (indices (3, nnz) int64, values (nnz,) int64)",
            ("torchist",), _r19a_histogramdd_sparse_counts, modes=INFERENCE,
            notes="the mask keeps the 12 points inside [-1, 1]^3 (18 dropped) and the stored entries are the 5 "
            "occupied bins of 8 (counts 1, 2, 4, 2, 3; their number from the data); the wrapper returns the "
            "coalesced tensor's `indices()` and `values()` so the harness compares plain tensors; inference only: "
            + _NOGRAD_X
            + "; " + _WARN,
            patterns=_PRE + ", " + _BOUNDS + ", " + _MASK + " (many kept, many dropped), " + _QUANT + ", " + _SHAPE
            + ", `torch.unique(idx, dim=0, return_counts=True)` (histograms.py:185: the occupied bins and their "
            "counts, a size from the data), " + _SPARSE_END,
        ),
        Row(
            "r19a_torchist_histogramdd_sparse_weighted_edges", *TORCHIST,
            "wrapper: torchist.histogramdd(x (20, 2) in [-0.2, 1.2), edges=[[0, 0.1, 0.4, 1], [0, 0.25, 0.5, 0.6, "
            "1]], weights=w (20,), sparse=True).to_dense(); returns the (3, 4) float32 sums of the weights",
            ("torchist",), _r19a_histogramdd_sparse_weighted_edges, modes=INFERENCE,
            notes="non-uniform edges per dimension; 8 of the 20 points outside the edges (dropped by the mask), "
            "one on inner edges (counted in the bin above), one on the last edges (in the last bins), one on the first "
            "edge; the wrapper densifies the sparse result; inference only: backward of the weighted sparse "
            "histogram raises `derivative for aten::_coalesced_ is not implemented` (the module docstring's bug "
            "(1)), and " + _NOGRAD_X + "; " + _WARN,
            patterns=_PRE + ", the edges per dimension (histograms.py:145-148: `e.flatten().detach().to(x)`, "
            "`e.numel() - 1`, `e[0]`, `e[-1]` in Python lists), " + _BOUNDS + " (lists of 0-d tensors), "
            + _WMASK + ", " + _MASK + ", `x.T.contiguous()` and `torch.bucketize(x[i], edges[i][1:-1], "
            "right=True)` per dimension in a list comprehension over `range(D)`, `stack` (histograms.py:173-178), "
            + _SHAPE + ", `torch.unique(idx, dim=0, return_inverse=True)`, `weights.new_zeros(len(idx))` (a Python "
            "`len` of a size from the data), `scatter_add` (histograms.py:187-189), " + _SPARSE_END + ", "
            "`to_dense()`",
        ),
        Row(
            "r19a_torchist_histogram_edges_one_inside", *TORCHIST,
            "torchist.histogram(x (12,) in [1.5, 3.5) with x[5] = 0.25, edges=tensor([0, 0.2, 0.3, 0.5, 0.8, 1])); "
            "returns the (5,) int64 counts (one point, in bin 1)",
            ("torchist",), _r19a_histogram_edges_one_inside, modes=INFERENCE,
            notes="one tensor of non-uniform edges (`bins`, `low`, `upp` come from it; the default bins=10 is "
            "ignored); the mask keeps one value of 12 and `bucketize` and `bincount` run on one element; "
            "inference only: " + _NOGRAD_X,
            patterns="`histogram` (histograms.py:240-262) -> " + _PRE + ", `torch.is_tensor(edges)`: "
            "`edges.flatten().detach().to(x)`, `bins = edges.numel() - 1`, `edges[0]`, `edges[-1]` (histograms."
            "py:139-143), " + _BOUNDS + ", " + _MASK + " (one kept), `torch.bucketize(x, edges[1:-1], right=True)` "
            "(histograms.py:172), " + _SHAPE + ", " + _DENSE,
        ),
        Row(
            "r19a_torchist_histogramdd_edges_data_bounds", *TORCHIST,
            "torchist.histogramdd_edges(x (12, 3) ~ N(0, 1), [2, 3, 4]); returns a list of 3 float32 edge tensors "
            "(3,), (4,), (5,) from each dimension's min to its max",
            ("torchist",), _r19a_histogramdd_edges_min_max, modes=INFERENCE,
            notes="the uniform edges `histogramdd` uses for these bins without bounds; inference only: "
            "`torch.linspace` with tensor endpoints is not differentiable (the edges do not require grad even when "
            "x does, so there is nothing to run backward on)",
            patterns="`histogramdd_edges` (histograms.py:200-237): `reshape`, `torch.as_tensor(bins).long()."
            "expand(D)`, `x.min(dim=0)[0]`, `x.max(dim=0)[0]` (Python tests of `low`, `upp`), `[torch.linspace(l, "
            "u, b + 1) for (l, u, b) in zip(low, upp, bins)]` (iterating three tensors into 0-d tensors; "
            "`linspace` with 0-d tensor endpoints and a 0-d int64 tensor as its number of steps, a size read from "
            "a tensor)",
        ),
        Row(
            "r19a_torchist_sparse_normalize_marginalize", *TORCHIST,
            "wrapper: p, norm = torchist.histograms.normalize(hist (3, 4, 2) float32 with 7 of 24 bins empty"
            ".to_sparse()); returns (torchist.histograms.marginalize(p, dim=1, keep=True).to_dense() (4,), norm)",
            ("torchist",), _r19a_sparse_normalize_marginalize,
            notes="a float histogram (as `histogramdd` with weights gives) made sparse in the wrapper, so that in "
            "training the input is a dense leaf and its gradient dense; `to_sparse` stores the 17 non-empty bins "
            "(their number from the data); in training the gradient reaches the histogram through the sparse "
            "sums and the division (the empty bins, not stored, get zeros)",
            patterns="`Tensor.to_sparse()` (the non-zero entries, a size from the data) -> `normalize` "
            "(histograms.py:328-343: `if hist.is_sparse` -> `torch.sparse.sum(hist)` (a 0-d dense tensor), "
            "`hist / norm` (sparse)) -> `marginalize` (histograms.py:346-375: `type(dim) is int` -> `[dim]`, "
            "`keep` -> `[i for i in range(hist.ndim) if i not in dim]` ([0, 2]), `if dim:`, `hist.is_sparse` -> "
            "`torch.sparse.sum(hist, dim=[0, 2])` (a sparse result, its entries from the data)), `to_dense()`",
        ),
        Row(
            "r19a_torchist_entropy_sparse", *TORCHIST,
            "wrapper: torchist.metrics.entropy(p.to_sparse()) for p (4, 4) float32 a distribution with 8 of its 16 "
            "bins empty; returns the entropy (a 0-d tensor)",
            ("torchist",), _r19a_entropy_sparse,
            notes="the sparse path of `entropy`: only the 8 stored (non-empty) bins enter (so, unlike the dense "
            "path, no NaN gradient at the empty bins: the module docstring's bug (6)); the input is densely "
            "given and made sparse in the wrapper (a dense leaf, a dense gradient in training); in training the "
            "gradient reaches p's non-empty bins through the stored values",
            patterns="`Tensor.to_sparse()` (the non-zero entries, a size from the data) -> `entropy` (metrics.py:"
            "10-28: `if p.is_sparse` -> `p.coalesce().values()` (as many values as stored entries), "
            "`p.new_tensor(0.0)`, `p * p.log()`, `torch.where(p > 0.0, h, zero)`, `-h.sum()`)",
        ),
        Row(
            "r19a_torchist_kl_divergence_dense_control", *TORCHIST,
            "torchist.metrics.kl_divergence(p (5, 4), q (5, 4)) (float32 distributions, p with no empty bin, q with "
            "8 of 20 empty); returns KL(p || q) (a 0-d tensor)",
            ("torchist",), _r19a_kl_divergence_dense,
            notes="the dense path; q's empty bins enter through `q.clip(min=1e-42)` (a subnormal in float32, its "
            "log about -96.7; in training their gradient is 0, through the clip); p has no empty bin, since an "
            "empty bin of p gets a NaN gradient through the `where` (the module docstring's bug (6)), so `where` "
            "selects every bin; in training the gradient reaches p and q",
            patterns="control: no tensor value reaches Python. `kl_divergence` (metrics.py:31-60: `if p."
            "is_sparse` (a Python attribute, False), `p.new_tensor(0.0)`, `p * (p.log() - q.clip(min=eps).log())`, "
            "`torch.where(p > 0.0, kl, zero)`, `kl.sum()`)",
        ),
        Row(
            "r19a_torchist_em_distance_sinkhorn_break", *TORCHIST,
            "torchist.metrics.em_distance(p (3, 3), q (3, 3), gamma=10.0, max_iter=60, step=5, threshold=1e-5) "
            "(float32 distributions over a 3 x 3 grid, no empty bin); returns the regularized transport cost "
            "(a 0-d tensor)",
            ("torchist",), _r19a_em_distance,
            notes="Sinkhorn-Knopp over the 9 grid cells, the cost the Euclidean distance of the cells' scaled "
            "coordinates; the error is checked at i = 0, 5, 10, ... and falls below 1e-5 at i = 35 (the eighth "
            "check: 36 of at most 60 iterations run, the error from 0.22 down to 4.5e-6); in training the "
            "gradient reaches p and q through every iteration",
            patterns="`em_distance` (metrics.py:134-169: `p.new_tensor(p.shape)`, `if p.is_sparse` (False), "
            "`torch.arange(p.numel())`, `unravel_index` (histograms.py:29-45: `new_tensor((*shape, 1))`, "
            "`cumprod`, `torch.div(..., rounding_mode='trunc')`, `%`), `torch.cdist`) -> `sinkhorn_transport` "
            "(metrics.py:84-131: `exp`, `full_like(r, 1 / len(r))`, `for i in range(max_iter)`: `v = c / (Kt @ u)`, "
            "`u = r / (K @ v)`, `if i % step == 0` (Python ints): `err = torch.linalg.norm(marginal - c)`, `if err "
            "< threshold: break` (metrics.py:128-129: a tensor's truth in a Python `if` sets the trip count)), "
            "`(T * M).sum()`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round nineteen (a)")
