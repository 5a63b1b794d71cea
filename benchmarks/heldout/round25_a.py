"""Held-out round twenty-five (r25a): hypll.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 5 to 16 points in a 2- or 3-dimensional Poincare ball, 2x3x6x6
or 2x3x4x4 images, a 10-node embedding table; float32 throughout, as the
library's curvature is a float32 parameter; points are put on the ball with the
exponential map at the origin of seeded Gaussian tangent vectors; seeded random
data and weights, nothing downloaded, nothing written to disk, no data set or
data file used); a row whose ``modes`` is one mode only says why in its
``notes``.

hypll 0.1.1 (the Hyperbolic Learning Library, package ``hypll``) is a
hyperbolic-deep-learning toolkit for PyTorch: the Poincare ball and Euclidean
manifolds (``PoincareBall(c=Curvature(...))``: gyrovector addition,
exponential/logarithmic maps, parallel transport, distances, Frechet means and
variances, the HNN++ fully connected operation, beta-concatenation for flatten
and unfold), wrapper objects that carry a tensor with its manifold and manifold
dimension (``ManifoldTensor``, ``TangentTensor``, and ``ManifoldParameter``: a
``torch.nn.Parameter`` subclass whose data lives in an inner Parameter),
hyperbolic layers (``HLinear``, ``HConvolution2d``, ``HBatchNorm``/
``HBatchNorm2d``, ``HAvgPool2d``, ``HMaxPool2d``, ``HReLU``, ``HFlatten``,
``HEmbedding``, ``ChangeManifold``, ``TangentSequential``) and Riemannian
optimizers (``RiemannianAdam``, ``RiemannianSGD``).  Layers take and return
``ManifoldTensor``s, so every row calls the library through a few-line wrapper
that wraps plain tensors (``ManifoldTensor(x, ball)`` or ``ball.expmap(
TangentTensor(x, manifold=ball))``) and returns ``.tensor``.

The data-dependent code on the rows' paths (file:line relative to the
``hypll`` package).  The Frechet mean (``PoincareBall.frechet_mean``,
manifolds/poincare_ball/manifold.py:155-167 -> ``frechet_mean``,
manifolds/poincare_ball/math/stats.py:91-101 -> the custom autograd Function
``FrechetMean.forward`` (22-63: tolerances looked up by dtype, ``_TOLEPS[x.dtype]``
(44))) runs ``frechet_ball_forward`` (171-224): a fixed-point iteration of up to
``max_iter=1000`` steps, ``for _ in range(max_iter)`` (194), that stops on
``if (dist < atol).all() or (dist / prev_dist < rtol).all(): break`` (218: an
early exit on two tensors' truth, so the number of iterations depends on the
points), with ``l_prime`` (164-168: three-argument ``torch.where``) inside.  Its
backward (``FrechetMean.backward``, 65-88 -> ``frechet_ball_backward``,
340-375) tests ``if not torch.is_tensor(K)`` (359), computes the inverse
Hessian under ``torch.no_grad()`` (``inverse_hessian``, 277-337:
``torch.eye(y.shape[-1]).to(X)`` (316), ``torch.inverse`` (336)), then under
``torch.enable_grad()`` wraps ``X`` and the curvature in fresh
``nn.Parameter``s (367-369), ``.squeeze()``s (371) and calls
``torch.autograd.grad`` inside the backward (373).  ``HBatchNorm.forward``
(nn/modules/batchnorm.py:32-54) uses that mean unless ``use_midpoint``, and
``HBatchNorm2d`` (82-94) reshapes into it; ``HAvgPool2d.forward``
(nn/modules/pooling.py:39-72) takes the Frechet mean of every pooling window
(66) unless ``use_midpoint``.  ``PoincareBall.inner(..., safe_mode=True)``
(manifold.py:111-120) runs ``check_tangent_tensor_positions``
(utils/tensor_utils.py:32-47: ``if not equal(broadcasted_manifold_points[0],
bmp): raise`` (44: ``torch.equal``, a Python bool from the values of the two
base-point tensors)).  ``ManifoldTensor.__getitem__``
(tensors/manifold_tensor.py:52-110) with a boolean mask turns the mask into a
Python list of 0-d tensors, ``list(args[0])`` (75: iterating a tensor), tests
``Ellipsis in arg_list`` (77: ``==`` between ``Ellipsis`` and each 0-d
tensor), loops over them to track the manifold dimension (87-108) and indexes
``self.tensor.__getitem__(*args)`` (82: boolean-mask indexing, a
data-dependent number of rows); with a long tensor it tests ``args[0].dtype ==
long`` (61) and gathers (67).  The wrapper objects are on every path:
``ManifoldTensor`` and ``TangentTensor`` are plain Python classes holding the
tensor in ``.tensor`` and defining ``__torch_function__`` classmethods that
``raise TypeError`` (manifold_tensor.py:205-211, tangent_tensor.py:149-155),
``TangentTensor.__init__`` (tangent_tensor.py:10-69) runs ``broadcast_shapes``
in ``try``/``except RuntimeError`` (37-44) and compares modules
``manifold_points.manifold != manifold`` (62), ``check_dims_with_broadcasting``
(utils/tensor_utils.py:8-29) has the same ``try``/``except`` (11-14), and
layers mutate the wrappers' ``.tensor`` attribute (``op_in_tangent_space``,
utils/layer_utils.py:30-33; batchnorm.py:50; manifold.py:264, 303-310).
``ManifoldParameter`` (tensors/manifold_parameter.py:11-78; ``HLinear.z``,
``HConvolution2d.weights``, ``HEmbedding.weight``) is a ``Parameter`` subclass
built empty (``__new__`` 17-18: ``Parameter.__new__(cls)`` with no data) whose
real data is an inner ``Parameter`` in ``.tensor`` (28-31); its
``__torch_function__`` (64-78) forwards only ``method-wrapper``s (attribute
descriptors such as ``.grad``, ``.is_leaf``, ``.requires_grad``) and a short
allow-list to ``.tensor`` and raises ``TypeError`` for every other torch
function, and ``__getattr__`` (45-62) raises for methods of the inner tensor;
``RiemannianAdam.step`` (optim/adam.py:42-147) reads ``param.grad`` through
that redirect (54), keeps a Python-int ``state["step"] += 1`` (69) that sets
the Python-float bias corrections (81-82), tests ``if grad is None:
continue`` (55-56) and ``len(state) == 0`` (62), and builds ``ManifoldTensor``/
``TangentTensor`` wrappers around ``param`` in every step (57-59, 92-103).

Controls (no tensor value reaches Python):
``r25a_hbatchnorm_midpoint_control`` (``HBatchNorm(use_midpoint=True)``: the
closed-form Einstein midpoint instead of the Frechet iteration, the variance
around it, transport and maps: tensor arithmetic in the same wrappers) and
``r25a_poincare_gyrovector_ops_control`` (``mobius_add``, ``logmap``,
``expmap``, ``gyration``, ``dist``, ``cdist``: closed-form tensor arithmetic,
``clamp_min``, ``atanh``/``tanh``, three-argument ``torch.where`` in
``project``).

Global state on import (the builders import the library; this module imports
only torch): ``import hypll`` imports nothing (an empty ``__init__``); the
builders import ``hypll.manifolds.poincare_ball``, ``hypll.manifolds.
euclidean``, ``hypll.tensors``, ``hypll.nn`` and ``hypll.optim`` (with them
every ``hypll`` submodule).  They add no warning filter, no logging handler,
set no environment variable and leave torch's default dtype, deterministic
flags, matmul precision and thread count unchanged; ``torch._dynamo`` is not
imported.  ``stats.py`` builds a module-level default ``torch.Tensor([1])``
for ``frechet_ball_forward``'s curvature (173) at import.

Library quirks met (eagerly): ``ManifoldParameter``'s outer ``Parameter`` is
a shell built without data; ``shape``, ``data``, ``grad``,
``requires_grad`` and ``is_leaf`` read through to the inner Parameter, so
``module.parameters()`` and the optimizers work, but the gradient lives on
``param.tensor``.  ``RiemannianSGD`` with momentum never updates its stored
momentum buffer (``euc_to_tangent`` returns a new tensor, which the in-place
``mul_``/``add_`` then update, optim/sgd.py:222-227), so its "momentum" is the
first step's gradient forever (seen in a probe; no row uses it).
``PoincareBall.frechet_variance``'s default ``batch_dim=-1`` is the manifold
dimension of an ``(N, D)`` tensor; the rows pass explicit batch dims.
``FrechetMean.backward`` squeezes the gradient (stats.py:371), so a batch or
vector dimension of size 1 would be dropped; the rows keep every size above 1.
``Curvature(value)`` is a float32 ``Parameter`` passed through ``softplus``
(curvature.py:33-41), so ``Curvature(1.0)`` is a ball of curvature
``softplus(1) = 1.313`` (radius 0.873), not 1: points made with the unit-ball
formula fall outside it and the Frechet iteration returns NaN after its 1000
steps; the rows put their points on the ball with the actual curvature.  It
stays frozen unless built with ``requires_grad=True`` (the Frechet-mean row
does, so the curvature gets the custom backward's ``dK``).
``PoincareBall.inner`` with the default ``keepdim=False`` multiplies the
``(n, 1)`` conformal factor by an ``(n,)`` dot product (math/diffgeom.py:
132-136), an ``(n, n)`` result; the inner-product row passes ``keepdim=True``.
With these inputs the Frechet iteration stops after 13 (Frechet-mean row), 8
(batch-norm row), 8 (average-pool row) and 5 (CNN batch-norm) iterations.

Dropped: a ``PoincareBall.frechet_variance(x)`` (``mu=None``) row (the same
Frechet iteration as the Frechet-mean row, then ``dist``); ``RiemannianSGD``
steps (its momentum buffer is never updated, see the quirks; the Adam row
covers the optimizer path); ``HConvolution2d`` alone (inside the CNN row).
No candidate failed eagerly or differed between the two processes.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

HYPLL = ("hypll", "0.1.1")
MODULES = ("hypll",)
INFERENCE = ("inference",)

# --- helpers -------------------------------------------------------------------------------


def _ball(curvature: float = 1.0, learnable: bool = False) -> Any:
    from hypll.manifolds.poincare_ball import Curvature, PoincareBall

    return PoincareBall(c=Curvature(value=curvature, requires_grad=learnable))


def _points(ball: Any, *shape: int, scale: float = 0.5) -> torch.Tensor:
    """Points on ``ball`` (last dimension): the exponential map at the origin, ``tanh(sqrt(c) |v|) v / (sqrt(c)
    |v|)``, of Gaussian ``v`` (plain torch; ``c = softplus(value)`` is the ball's curvature)."""
    v = torch.randn(*shape) * scale
    sqrt_c_norm = ball.c().detach().sqrt() * v.norm(dim=-1, keepdim=True)
    return torch.tanh(sqrt_c_norm) * v / sqrt_c_norm


def _frechet_mean(ball: Any, x: torch.Tensor) -> torch.Tensor:
    """Frechet means of the points ``x`` (groups, points, dim) within each group."""
    from hypll.tensors import ManifoldTensor

    return ball.frechet_mean(ManifoldTensor(x, manifold=ball), batch_dim=1).tensor


def _on_ball(layer: Any, x: torch.Tensor) -> torch.Tensor:
    """Apply a hyperbolic layer to points ``x`` (manifold dimension 1) of its ball."""
    from hypll.tensors import ManifoldTensor

    return layer(ManifoldTensor(x, manifold=layer.manifold, man_dim=1)).tensor


def _from_euclidean(model: Any, ball: Any, x: torch.Tensor) -> torch.Tensor:
    """The hypll tutorials' input step: map Euclidean images (channels = manifold dimension 1) onto the ball with
    the exponential map at the origin, then the hyperbolic model."""
    from hypll.tensors import TangentTensor

    return model(ball.expmap(TangentTensor(x, manifold=ball, man_dim=1))).tensor


def _poincare_embedding_loss(embedding: Any, edges: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The Poincare-embedding loss of hypll's tutorial: distances between the embedded endpoints of each
    (positive or negative) edge, softmax of the negative distances, minus the log-probability of the positives."""
    points = embedding(edges)  # ManifoldTensor (batch, edges, 2, dim)
    dists = embedding.manifold.dist(x=points[:, :, 0, :], y=points[:, :, 1, :])
    logits = dists.neg().exp()
    numerator = torch.where(targets, logits, 0).sum(dim=-1)
    return (numerator / logits.sum(dim=-1)).log().mean().neg()


def _adam_steps(optimizer: Any, embedding: Any, edges: torch.Tensor, targets: torch.Tensor,
                steps: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """A few RiemannianAdam steps on the Poincare-embedding loss; the losses and the updated embedding table.
    The loop backpropagates itself, so it runs under enable_grad."""
    losses = []
    with torch.enable_grad():
        for _ in range(steps):
            optimizer.zero_grad()
            loss = _poincare_embedding_loss(embedding, edges, targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
    return torch.stack(losses), embedding.weight.tensor.detach().clone()


def _transported_inner(ball: Any, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor,
                       v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Riemannian inner products <u, v> at x and <P u, P v> at y after parallel transport from x to y (equal in
    exact arithmetic), both with the library's default ``safe_mode=True`` position check; ``keepdim=True``, as
    with the default ``keepdim=False`` the library broadcasts an (n, 1) factor against (n,) into an (n, n) result."""
    from hypll.tensors import ManifoldTensor, TangentTensor

    xm, ym = ManifoldTensor(x, manifold=ball), ManifoldTensor(y, manifold=ball)
    ut, vt = TangentTensor(u, manifold_points=xm, manifold=ball), TangentTensor(v, manifold_points=xm, manifold=ball)
    return ball.inner(ut, vt, keepdim=True), ball.inner(ball.transp(ut, ym), ball.transp(vt, ym), keepdim=True)


def _masked_midpoint(ball: Any, x: torch.Tensor, radius: float = 0.5) -> tuple[torch.Tensor, torch.Tensor]:
    """Select the points within Euclidean radius ``radius`` of the origin with a boolean mask on the
    ``ManifoldTensor``; returns the selected points and their Einstein midpoint."""
    from hypll.tensors import ManifoldTensor

    points = ManifoldTensor(x, manifold=ball)
    inner = points[x.norm(dim=-1) < radius]
    return inner.tensor, ball.midpoint(inner, batch_dim=0).tensor


def _gyrovector_ops(ball: Any, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Closed-form Poincare-ball operations: x (+) y, exp_x(log_x(y)), gyr[x, y] w, d(x, y), pairwise distances."""
    from hypll.tensors import ManifoldTensor

    xm, ym, wm = (ManifoldTensor(t, manifold=ball) for t in (x, y, w))
    return (ball.mobius_add(xm, ym).tensor, ball.expmap(ball.logmap(xm, ym)).tensor,
            ball.gyration(xm, ym, wm).tensor, ball.dist(xm, ym), ball.cdist(xm.unsqueeze(0), ym.unsqueeze(0)))


# --- builders ------------------------------------------------------------------------------


def _frechet_mean_row(training: bool) -> Built:
    ball = _ball(learnable=True)
    return _frechet_mean, (ball, _points(ball, 2, 8, 3)), {}


def _hbatchnorm(use_midpoint: bool) -> Any:
    def make(training: bool) -> Built:
        from hypll.nn import HBatchNorm

        ball = _ball()
        layer = HBatchNorm(features=3, manifold=ball, use_midpoint=use_midpoint)
        with torch.no_grad():
            layer.bias.copy_(0.2 * torch.randn(3))
        return _on_ball, (layer, _points(ball, 16, 3)), {}

    return make


def _havgpool(training: bool) -> Built:
    from hypll.nn import HAvgPool2d

    ball = _ball()
    pool = HAvgPool2d(kernel_size=2, manifold=ball, use_midpoint=False)
    return _on_ball, (pool, _points(ball, 2, 4, 4, 3).permute(0, 3, 1, 2).contiguous()), {}


def _cnn(training: bool) -> Built:
    from hypll import nn as hnn

    ball = _ball()
    model = torch.nn.Sequential(
        hnn.HConvolution2d(in_channels=3, out_channels=4, kernel_size=3, manifold=ball, padding=1),
        hnn.HBatchNorm2d(features=4, manifold=ball),
        hnn.HReLU(manifold=ball),
        hnn.HMaxPool2d(kernel_size=2, manifold=ball),
        hnn.HFlatten(),
        hnn.HLinear(in_features=36, out_features=5, manifold=ball),
    )
    return _from_euclidean, (model, ball, torch.rand(2, 3, 6, 6)), {}


def _edges() -> tuple[torch.Tensor, torch.Tensor]:
    """4 batches of 1 positive + 3 negative edges over 10 nodes; targets mark the positives."""
    edges = torch.randint(0, 10, (4, 4, 2))
    targets = torch.zeros(4, 4, dtype=torch.bool)
    targets[:, 0] = True
    return edges, targets


def _embedding_loss(training: bool) -> Built:
    from hypll.nn import HEmbedding

    embedding = HEmbedding(num_embeddings=10, embedding_dim=2, manifold=_ball())
    return _poincare_embedding_loss, (embedding, *_edges()), {}


def _adam(training: bool) -> Built:
    from hypll.nn import HEmbedding
    from hypll.optim import RiemannianAdam

    embedding = HEmbedding(num_embeddings=10, embedding_dim=2, manifold=_ball())
    optimizer = RiemannianAdam(embedding.parameters(), lr=0.05)
    return _adam_steps, (optimizer, embedding, *_edges()), {}


def _inner(training: bool) -> Built:
    ball = _ball()
    x, y = _points(ball, 6, 3), _points(ball, 6, 3)
    return _transported_inner, (ball, x, y, torch.randn(6, 3), torch.randn(6, 3)), {}


def _masked(training: bool) -> Built:
    ball = _ball()
    return _masked_midpoint, (ball, _points(ball, 12, 3)), {}


def _gyro(training: bool) -> Built:
    ball = _ball(curvature=0.5)
    return _gyrovector_ops, (ball, _points(ball, 5, 3), _points(ball, 5, 3), torch.randn(5, 3) * 0.3), {}


# --- rows ------------------------------------------------------------------------------------

_WRAPPERS = ("`ManifoldTensor`/`TangentTensor` wrapper objects (plain classes holding `.tensor`, "
             "`__torch_function__` classmethods that `raise TypeError`: tensors/manifold_tensor.py:205-211, "
             "tensors/tangent_tensor.py:149-155)")
_TANGENT_INIT = ("`TangentTensor.__init__` (tensors/tangent_tensor.py:10-69: `broadcast_shapes` in `try`/`except "
                 "RuntimeError` (37-44), `manifold_points.manifold != manifold` (62: module comparison))")
_FRECHET = ("`FrechetMean.forward` (manifolds/poincare_ball/math/stats.py:22-63: `_TOLEPS[x.dtype]` (44), movedim/"
            "flatten of the batch dims) -> `frechet_ball_forward` (171-224: `for _ in range(max_iter)` (194, up to "
            "1000) with `if (dist < atol).all() or (dist / prev_dist < rtol).all(): break` (218: an early exit on "
            "tensors' truth, iteration count from the data), `l_prime` (164-168: three-argument `torch.where`))")
_FRECHET_BACKWARD = ("in training the custom backward `FrechetMean.backward` (stats.py:65-88) -> "
                     "`frechet_ball_backward` (340-375: `if not torch.is_tensor(K)` (359), `inverse_hessian` under "
                     "`no_grad` (277-337: `torch.eye(y.shape[-1]).to(X)` (316), `torch.inverse` (336)), fresh "
                     "`nn.Parameter`s of X and K under `enable_grad` (367-369), `.squeeze()` (371), "
                     "`torch.autograd.grad` inside the backward (373))")
_BATCHNORM = ("`HBatchNorm.forward` (nn/modules/batchnorm.py:32-54: `check_if_manifolds_match` (utils/layer_utils.py:"
              "9-14: `layer.manifold != input.manifold`), `expmap` of the bias in a `TangentTensor`, ")
_BATCHNORM_TAIL = ("`frechet_variance` with the mean (manifolds/poincare_ball/math/stats.py:129-161: `dist`, `pow`, "
                   "`mean`), `logmap` at the mean, `transp` to the bias (manifold.py:95-105: "
                   "`check_dims_with_broadcasting`, utils/tensor_utils.py:8-29, `try`/`except`), rescaling by "
                   "writing the `TangentTensor`'s `.tensor` (50), `expmap`)")
_MANIFOLD_PARAMETER = ("`ManifoldParameter` weights (tensors/manifold_parameter.py:11-78: an empty `Parameter` "
                       "subclass whose data is an inner Parameter in `.tensor`; `__torch_function__` (64-78) forwards "
                       "attribute descriptors (`method-wrapper`s) to `.tensor` and raises `TypeError` otherwise; "
                       "`__getattr__` (45-62))")


def _rows() -> list[Row]:
    return [
        Row(
            "r25a_poincare_frechet_mean", *HYPLL,
            "function: PoincareBall(Curvature(1.0, requires_grad=True)).frechet_mean(ManifoldTensor(x (2, 8, 3)), "
            "batch_dim=1) via a 3-line wrapper; returns the two groups' means (2, 3)",
            MODULES, _frechet_mean_row,
            notes="Frechet (Karcher) means of two groups of 8 points in the 3-d Poincare ball with a learnable "
            "curvature; in training the points and the curvature (a Parameter) get the custom backward's gradients",
            patterns="`PoincareBall.frechet_mean` (manifolds/poincare_ball/manifold.py:155-167: `sum(bd < x.man_dim "
            "...)`) -> `frechet_mean` (math/stats.py:91-101) -> " + _FRECHET + "; `Curvature.forward` (softplus); "
            + _FRECHET_BACKWARD,
        ),
        Row(
            "r25a_hbatchnorm_frechet_forward", *HYPLL,
            "module: hypll.nn.HBatchNorm(features=3, manifold=PoincareBall(Curvature(1.0)), use_midpoint=False)(ManifoldTensor(x "
            "(16, 3))) via a 3-line wrapper; returns (16, 3)",
            MODULES, _hbatchnorm(use_midpoint=False),
            notes="hyperbolic batch normalisation (Lou et al. 2020) of 16 points, the batch mean being the Frechet "
            "mean; the bias is set to small random values; in training the points, bias and weight require grad",
            patterns=_BATCHNORM + "`PoincareBall.frechet_mean` (manifold.py:155-167) -> " + _FRECHET + ", "
            + _BATCHNORM_TAIL + "; " + _WRAPPERS + "; " + _FRECHET_BACKWARD,
        ),
        Row(
            "r25a_havgpool2d_frechet_forward", *HYPLL,
            "module: hypll.nn.HAvgPool2d(kernel_size=2, manifold=PoincareBall(Curvature(1.0)), use_midpoint=False)("
            "ManifoldTensor(x (2, 3, 4, 4), man_dim=1)) via the wrapper; returns (2, 3, 2, 2)",
            MODULES, _havgpool,
            notes="hyperbolic average pooling: the Frechet mean of every 2x2 window of a 4x4 map of points in the "
            "3-d ball (channels are the manifold dimension); in training the input requires grad",
            patterns="`HAvgPool2d.forward` (nn/modules/pooling.py:39-72: `check_if_manifolds_match`, "
            "`check_if_man_dims_match` (utils/layer_utils.py:9-27), `int(...)` of Python sizes) -> "
            "`PoincareBall.unfold` (manifold.py:244-274: `beta_func` of Python floats (utils/math.py:7-14: `math."
            "lgamma`), `logmap0`, writing the `TangentTensor`'s `.tensor` (264), `F.unfold`, `expmap0`), `.view` "
            "into windows, `frechet_mean(batch_dim=2)` (pooling.py:66) -> " + _FRECHET + " over 8 windows at "
            "once; " + _WRAPPERS + "; " + _FRECHET_BACKWARD,
        ),
        Row(
            "r25a_hyperbolic_cnn_forward", *HYPLL,
            "module: torch.nn.Sequential(HConvolution2d(3, 4, 3, padding=1), HBatchNorm2d(4), HReLU(), "
            "HMaxPool2d(2), HFlatten(), HLinear(36, 5)) on PoincareBall(Curvature(1.0)), applied to ball.expmap(TangentTensor("
            "images (2, 3, 6, 6), man_dim=1)) via a 3-line wrapper; returns (2, 5)",
            MODULES, _cnn,
            notes="a small hyperbolic CNN in the style of hypll's CIFAR tutorial (images mapped onto the ball at "
            "the origin); in training the images and every weight (the inner Parameters of the ManifoldParameters) "
            "require grad",
            patterns="`HConvolution2d.forward` (nn/modules/convolution.py:70-113: manifold checks, "
            "`_output_side_length` (116-134: Python `raise`s on sizes), `PoincareBall.unfold` (manifold.py:244-274: "
            "`beta_func`, `.tensor` writes), `fully_connected` (141-153 -> math/linalg.py: `movedim`, `matmul`, "
            "`asinh`) with " + _MANIFOLD_PARAMETER + "); `HBatchNorm2d.forward` (batchnorm.py:82-94: permute/"
            "flatten into a new `ManifoldTensor`) -> " + _BATCHNORM + "Frechet mean: " + _FRECHET + ", "
            + _BATCHNORM_TAIL + "; `HReLU`/`HMaxPool2d` (`op_in_tangent_space`, utils/layer_utils.py:30-33: "
            "logmap0, op on `.tensor`, expmap0); `HFlatten` -> `PoincareBall.flatten` (manifold.py:276-320: "
            "`functools.reduce` over the shape, `beta_func` of Python floats, `.tensor`/`.man_dim` writes); "
            "`HLinear.forward` (nn/modules/linear.py:36-39) with a `ManifoldParameter`; " + _WRAPPERS + "; "
            + _FRECHET_BACKWARD,
        ),
        Row(
            "r25a_poincare_embedding_loss", *HYPLL,
            "function: Poincare-embedding loss of hypll.nn.HEmbedding(10, 2, PoincareBall(Curvature(1.0)))(edges (4, 4, 2) "
            "long): PoincareBall.dist of the endpoints, softmax over 1 positive + 3 negatives, -log p(positive), "
            "via a 6-line wrapper (hypll's tutorial loss); returns a scalar",
            MODULES, _embedding_loss,
            notes="the hypll Poincare-embeddings tutorial's forward and loss on a 10-node table; the edges and the "
            "boolean targets are integer/bool inputs; in training the embedding table (the ManifoldParameter's "
            "inner Parameter) gets the gradient",
            patterns="`HEmbedding.forward` (nn/modules/embedding.py:39-40: `self.weight[input]`) on a "
            + _MANIFOLD_PARAMETER + " -> `ManifoldTensor.__getitem__` (tensors/manifold_tensor.py:52-110: "
            "`isinstance(args[0], Tensor) and args[0].dtype == long` (61), gather (67)); then `points[:, :, 0, :]` "
            "twice (`__getitem__` with a tuple: `Ellipsis in arg_list` (77), a Python loop over the index entries "
            "tracking the manifold dimension (87-108)); `PoincareBall.dist` (manifold.py:107-109: "
            "`check_dims_with_broadcasting` (utils/tensor_utils.py:8-29: `try`/`except`), `mobius_add`, `atanh`); "
            "three-argument `torch.where`",
        ),
        Row(
            "r25a_riemannian_adam_embedding_steps", *HYPLL,
            "hypll.optim.RiemannianAdam(HEmbedding(10, 2, PoincareBall(Curvature(1.0))).parameters(), lr=0.05), 3 x "
            "(zero_grad, poincare_embedding_loss(...).backward(), step()) via a wrapper; returns (losses (3,), "
            "updated table (10, 2))",
            MODULES, _adam, modes=INFERENCE,
            notes="inference only: an optimizer loop that backpropagates itself (the callable wraps it in "
            "torch.enable_grad()) and updates the embedding table in place (the step itself is under no_grad); "
            "the curvature Parameter has no grad and is skipped",
            patterns="the embedding loss of `r25a_poincare_embedding_loss`; `Optimizer.zero_grad` on the "
            "`ManifoldParameter` (`.grad` set through its `__torch_function__` redirect); `RiemannianAdam.step` "
            "(optim/adam.py:42-147: `isinstance(param, ManifoldParameter)` (52), `param.grad` through the "
            "redirect (54), `if grad is None: continue` (55-56, the frozen curvature), a `ManifoldTensor` of the "
            "grad (57-59), `len(state) == 0` (62), `state['step'] += 1` (69: a Python int in the optimizer state, "
            "so the Python-float bias corrections `1 - beta ** step` (81-82) change every step), in-place "
            "`add_`/`mul_` on `grad.tensor` and the moments, `euc_to_tangent` and `inner(safe_mode=False)` "
            "(wrapper objects), `TangentTensor`s at the parameter (92-103: " + _TANGENT_INIT + "), `expmap`, "
            "`transp`, `param.tensor.copy_`, `exp_avg.copy_`)",
        ),
        Row(
            "r25a_poincare_transported_inner_safe_mode", *HYPLL,
            "function: PoincareBall(Curvature(1.0)).inner(u, v, keepdim=True) at x and inner(transp(u, y), transp(v, "
            "y), keepdim=True) at y, safe_mode=True (the default), for x, y (6, 3) points and u, v (6, 3) tangent "
            "vectors, via a 5-line wrapper; returns two (6, 1) tensors",
            MODULES, _inner,
            notes="checks that parallel transport preserves the Riemannian inner product (equal in exact "
            "arithmetic); in training the points and the tangent vectors require grad",
            patterns="`PoincareBall.inner` (manifolds/poincare_ball/manifold.py:111-120: "
            "`check_dims_with_broadcasting` (utils/tensor_utils.py:8-29: `try`/`except`), `if safe_mode:` -> "
            "`check_tangent_tensor_positions` (32-47: `any`/`all` over the base points, `broadcast_to`, `if not "
            "equal(broadcasted_manifold_points[0], bmp): raise` (44: `torch.equal`, a Python bool from tensor "
            "values)), twice); `PoincareBall.transp` (95-105: `gyration`, conformal factors) twice; "
            + _TANGENT_INIT + " for the four tangent tensors; " + _WRAPPERS,
        ),
        Row(
            "r25a_manifold_tensor_mask_select_midpoint", *HYPLL,
            "function: ManifoldTensor(x (12, 3), PoincareBall(Curvature(1.0)))[x.norm(dim=-1) < 0.5] then "
            "PoincareBall.midpoint(selected, batch_dim=0), via a 4-line wrapper; returns (selected (k, 3), "
            "midpoint (3,))",
            MODULES, _masked,
            notes="boolean-mask selection of the points near the origin on a ManifoldTensor (k depends on the data) "
            "and their Einstein midpoint; in training the points require grad",
            patterns="`ManifoldTensor.__getitem__` (tensors/manifold_tensor.py:52-110) with a boolean mask: "
            "`args[0].dtype == long` (61, false), `list(args[0])` (75: iterating the mask tensor into 0-d "
            "tensors), `Ellipsis in arg_list` (77: `==` of each 0-d tensor with `Ellipsis`), "
            "`self.tensor.__getitem__(mask)` (82: boolean-mask indexing, data-dependent row count), a Python loop "
            "over the 0-d tensors with `is None`/`isinstance` tests counting down to the manifold dimension "
            "(87-108); `PoincareBall.midpoint` (manifold.py:169-192: `x.man_dim in batch_dim`) -> `midpoint` "
            "(math/stats.py:104-126: closed form, `clamp_min`, `squeeze`)",
        ),
        Row(
            "r25a_hbatchnorm_midpoint_control", *HYPLL,
            "module: hypll.nn.HBatchNorm(features=3, manifold=PoincareBall(Curvature(1.0)), use_midpoint=True)(ManifoldTensor(x "
            "(16, 3))) via the wrapper; returns (16, 3)",
            MODULES, _hbatchnorm(use_midpoint=True),
            notes="control: hyperbolic batch normalisation with the closed-form Einstein midpoint as the batch "
            "mean (no Frechet iteration); in training the points, bias and weight require grad",
            patterns="control: no tensor value reaches Python. " + _BATCHNORM + "`PoincareBall.midpoint` "
            "(manifold.py:169-192) -> `midpoint` (math/stats.py:104-126: closed form), " + _BATCHNORM_TAIL + "; "
            + _WRAPPERS,
        ),
        Row(
            "r25a_poincare_gyrovector_ops_control", *HYPLL,
            "function: PoincareBall(Curvature(0.5)): mobius_add(x, y), expmap(logmap(x, y)), gyration(x, y, w), dist(x, y), "
            "cdist(x[None], y[None]) for (5, 3) points, via a 5-line wrapper; returns 5 tensors",
            MODULES, _gyro,
            notes="control: closed-form gyrovector operations of the Poincare ball; in training x, y, w require grad",
            patterns="control: no tensor value reaches Python. `PoincareBall.mobius_add`/`logmap`/`expmap`/"
            "`gyration`/`dist`/`cdist` (manifolds/poincare_ball/manifold.py:64-109, 322-323) -> "
            "math/diffgeom.py (`mobius_add` 4-18, `project` 21-32 (three-argument `torch.where`), `expmap` 45-54, "
            "`logmap` 57-66, `gyration` 69-87, `dist` 108-119, `cdist`/`mobius_add_batch` 153-173: `clamp_min`, "
            "`tanh`/`atanh`, `einsum`); `check_dims_with_broadcasting` (utils/tensor_utils.py:8-29: shape-only "
            "`try`/`except`); " + _WRAPPERS,
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-five (a)")
