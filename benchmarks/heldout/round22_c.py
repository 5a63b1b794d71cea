"""Held-out round twenty-two (r22c): skada.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 16 source and 16 target samples of dimension 6 or 8 (2 for the
net's raw input), 3 classes, at most 20 L-BFGS iterations, a 32-sample target
memory bank; seeded random data, nothing downloaded, nothing written to disk);
a row whose ``modes`` is one mode only says why in its ``notes``.

skada 0.6.0 (scikit-learn-style domain adaptation; source samples carry a
positive ``sample_domain``, target samples a negative one and the masked label
-1) holds shallow adapters on numpy and scikit-learn, a few of which optimize
torch objectives, and, in ``skada.deep`` (on skorch 1.4.0), PyTorch losses,
modules and ``DomainAwareNet`` (DeepCORAL, DAN, CAN, DeepJDOT, DANN, CDAN, MDD,
MCC, SPA).  Four rows call the shallow torch code: the objective terms of
``TransferSubspaceLearningAdapter`` and the fits of it and of
``MMDLSConSMappingAdapter`` (both through ``skada.utils.torch_minimize``).  Six
call ``skada.deep``: ``DomainAwareCriterion`` with ``DANLoss``, ``CANLoss`` with
its fitted ``SphericalKMeans``, ``SphericalKMeans.fit``, ``SPALoss`` with a
memory bank, one skorch training step's loss of an ``MDD`` net, and
``DeepCoralLoss``.  No row calls POT (``ot``, skada's optimal-transport
dependency, behind ``DeepJDOTLoss`` and the OT adapters): POT's solvers were
already run in round 18 (``ot.emd``, ``ot.sinkhorn``), so they are not fresh.

The data-dependent code (file:line relative to the ``skada`` package; skorch's
as ``skorch/``).  ``TransferSubspaceLearningAdapter._F`` with
``base_method='flda'`` (_subspace.py:809-836): ``torch.unique`` of the labels,
a Python loop over its 0-d elements in boolean masks ``X_source[y_source ==
c]`` (data-dependent shapes), ``sqrt`` of the counts, a ratio of traces.
``torch_minimize`` (utils.py:969-1037): ``torch.tensor`` copies (1004),
``torch.optim.LBFGS`` with a strong-Wolfe line search (``float(closure())``,
``if opt_cond: break``, the line search's tensor comparisons), ``if grad_norm >
tol: warnings.warn`` (1021-1029), ``.numpy()`` (1032), ``.item()`` (1035).
``TransferSubspaceLearningAdapter.fit`` (837-911) and
``MMDLSConSMappingAdapter.fit`` (_mapping.py:1148-1178, 1079-1146:
``torch.unique(y_source).numpy()`` (1108), a Python loop over the numpy classes
setting ``R[:, i] = (y_source == c).int()``, ``R.detach().numpy()`` (1142)).
``DomainAwareCriterion.forward`` (deep/base.py:82-143): ``source_idx =
sample_domain >= 0`` (102) and boolean-mask indexing of the predictions,
domain predictions, features, sample indices and labels (data-dependent
shapes).  ``cdd_loss`` (deep/losses.py:198-333): ``len(y_s.unique())`` (243),
the ambiguity mask ``features_t[mask_t]`` (256-261), ``bincount`` and the class
mask (264-268), ``if valid_classes[c1] and valid_classes[c2]`` (288) and ``if
mask.sum() > 0`` (295, 306, 319).  ``SphericalKMeans`` (deep/utils.py:159-333):
``if torch.any(labels == k)`` and ``X[labels == k].sum(0)`` (247-248), ``if
torch.allclose(...): break`` (252), ``.item()`` of the inertia (331) compared
as Python floats (201).  ``nap_loss`` (deep/losses.py:481-515): ``dis[...,
sample_idx_t] = inf`` (502), ``torch.sum(weight_).item()`` (513).
``DomainAwareNet.get_loss`` (deep/base.py:862-896):
``sample_weight[X["sample_domain"] > 0]`` (888) and ``len(sample_weight) > 1``
(889).  Controls (no tensor value reaches Python): ``TransferSubspace
LearningAdapter._D`` (_subspace.py:786-807: covariances, ``linalg.inv``,
``cholesky``, ``cdist``, ``exp``, means) and ``DeepCoralLoss``
(deep/losses.py:20-52: ``torch.cov``, ``mse_loss``).

Global state on import: ``import skada`` imports scikit-learn, scipy, pandas
and POT (``ot``, which imports torch), calls ``sklearn.set_config(
enable_metadata_routing=True)`` (skada/__init__.py:72, process-wide), and sets
the ``skada`` logger to DEBUG (_utils.py:22-23) without a handler.  ``import
skada.deep`` also imports skorch and tabulate and builds module-level empty
tensors (deep/base.py:31-32); it leaves the warnings filters and the torch,
numpy and Python generators as they were (checked).  ``torch.optim``'s
``Optimizer.__init__`` imports ``torch._dynamo`` on first use (about 2 s, eager
only): the L-BFGS rows' builders construct a throwaway ``LBFGS`` and the MDD
row's ``net.initialize()`` builds skorch's SGD optimizer, so no call pays that
import.  Nothing on the rows' paths draws from numpy's or Python's generators;
``SphericalKMeans`` draws ``torch.randperm`` from torch's global one.

Library bugs and quirks (checked eagerly unless marked read; no row depends on
them beyond what its notes say): (1) ``TransferSubspaceLearningAdapter._F``,
``_D`` and ``_torch_cov`` read ``self.torch``, which only ``fit`` sets
(_subspace.py:857): before a fit they raise ``AttributeError`` (the objective
rows set it in the builder).  (2) Both shallow adapters hand
``torch_minimize`` tensors, which it copies with ``torch.tensor(x, ...)``:
torch warns "To copy construct from a tensor" on every fit.  (3)
``torch_minimize`` tests the gradient of the optimizer's last closure
evaluation (a line-search trial point), not of the returned point, and warns
"Optimization did not converge" with ``MMDLSConSMappingAdapter``'s default
``tol=1e-5`` on these data (the row passes ``tol=1e-3``).  (4) In
``_F('flda')`` the matrix named ``S_W`` is the covariance of the size-weighted
class means and ``S_B`` that of all source samples (read).  (5) ``cdd_loss``
calls ``cosine_similarity(features_t.unsqueeze(1), centers.unsqueeze(0))``
with the default ``dim=1``, the centroid axis (losses.py:256-258): the result
is (n_target, n_features), not (n_target, n_clusters), so the ambiguity filter
depends only on each target feature's sign pattern (two distinct values here,
0.016 and 0.041, hence the row's ``distance_threshold=0.03``; at the default
0.5 nothing is ever dropped).  (6) ``DomainClassifier`` ends in ``nn.Softmax()``
without ``dim`` (modules.py:181: a deprecation warning per call); with its
default ``n_classes=1`` (the discriminator DANN, CDAN and SPA build) that is a
softmax over one logit, a constant 1, so the adversarial BCE cannot train.
(7) ``ModifiedCrossEntropyLoss`` indexes ``smooth_prob[..., target]``
(_adversarial.py:413): an (N, N) matrix of every sample's probability of every
pseudo-label, not a gather; and MDD feeds the discriminator's softmax output to
``CrossEntropyLoss`` (a second softmax, read).  (8) ``DomainAwareCriterion``
takes ``sample_domain >= 0`` as source but ``get_loss`` keeps the weights of
``sample_domain > 0``: with domain 0 (``_DEFAULT_SAMPLE_DOMAIN_``) and weights
it raises a size-mismatch ``RuntimeError``; with weights and the default
``reduction='mean'`` it raises ``ValueError`` (the MDD row passes 'none').
(9) ``SphericalKMeans`` never reads ``random_state`` and updates centroids to
unnormalized sums (read).  (10) ``MemoryBank.on_batch_end`` writes ``+
self.momentum * features_t.clone()`` as a separate statement
(deep/callbacks.py:159-167), so the memory only decays by ``1 - momentum``
(read).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

SKADA = ("skada", "0.6.0")

INFERENCE = ("inference",)

# --- helpers -------------------------------------------------------------------------------


def _r22c_domains(d: int = 8, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    """16 source samples (n, d), 16 shifted and shrunk target samples, and int64 source labels 0, 1, 2 (all
    present)."""
    xs = torch.randn(16, d, dtype=dtype)
    xt = torch.randn(16, d, dtype=dtype) * 0.8 + 0.5
    return xs, xt, torch.arange(16) % 3


def _r22c_encoded(d: int = 8, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    """skada's encoding of the same problem: X (32, d) (the source then the target samples), y (32,) int64 with
    the target labels masked as -1 (``_NO_LABEL_``, deep/base.py:34), sample_domain (32,) int64, 1 for the source
    and -2 for the target."""
    xs, xt, ys = _r22c_domains(d, dtype)
    y = torch.cat((ys, torch.full((16,), -1)))
    sample_domain = torch.cat((torch.ones(16, dtype=torch.int64), torch.full((16,), -2)))
    return torch.cat((xs, xt)), y, sample_domain


def _r22c_skada_data() -> tuple[Any, ...]:
    """The shallow adapters' input: ``_r22c_encoded(6, float64)`` as numpy arrays."""
    return tuple(t.numpy() for t in _r22c_encoded(6, torch.float64))


def _r22c_tsl(**kwargs: Any) -> Any:
    """A ``TransferSubspaceLearningAdapter`` with ``self.torch`` set, as ``fit`` sets it (library quirk 2)."""
    from skada import TransferSubspaceLearningAdapter

    adapter = TransferSubspaceLearningAdapter(n_components=2, **kwargs)
    adapter.torch = True
    return adapter


def _r22c_fit(adapter: Any, names: tuple[str, ...], X: Any, y: Any, sample_domain: Any) -> tuple[Any, ...]:
    """``adapter.fit(X, y, sample_domain=sample_domain)``; returns the fitted attributes ``names`` (numpy)."""
    adapter.fit(X, y, sample_domain=sample_domain)
    return tuple(getattr(adapter, name) for name in names)


def _r22c_fit_args(adapter: Any, names: tuple[str, ...]) -> Built:
    torch.optim.LBFGS([torch.zeros(1, requires_grad=True)])  # torch's lazy torch._dynamo import, out of the call
    return _r22c_fit, (adapter, names, *_r22c_skada_data()), {}


def _r22c_criterion(criterion: Any, y_pred: torch.Tensor, features: torch.Tensor, sample_domain: torch.Tensor,
                    sample_idx: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``criterion((y_pred, None, features, sample_domain, sample_idx), y)``: the tuple ``DomainAwareModule``
    returns in train mode (deep/base.py:454) for a net without a domain classifier."""
    return criterion((y_pred, None, features, sample_domain, sample_idx), y)


def _r22c_kmeans_fit(kmeans: Any, X: torch.Tensor) -> tuple[Any, ...]:
    """``kmeans.fit(X)``; returns (cluster_centers_, inertia_, n_iter_)."""
    kmeans.fit(X)
    return kmeans.cluster_centers_, kmeans.inertia_, kmeans.n_iter_


def _r22c_net_step(net: Any, X: torch.Tensor, sample_domain: torch.Tensor, sample_weight: torch.Tensor,
                   sample_idx: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """skorch's ``train_step_single`` (skorch/net.py:999-1030) without its ``_set_training`` (done in the builder)
    and its ``backward``: ``net.infer`` of the batch dict, then ``net.get_loss``."""
    batch = {"X": X, "sample_domain": sample_domain, "sample_weight": sample_weight, "sample_idx": sample_idx}
    return net.get_loss(net.infer(batch), y, X=batch, training=True)


# --- builders ------------------------------------------------------------------------------


def _r22c_tsl_flda(training: bool) -> Built:
    xs, _, ys = _r22c_domains(6, torch.float64)
    w = torch.linalg.qr(torch.randn(6, 2, dtype=torch.float64))[0]
    return _r22c_tsl(base_method="flda")._F, (w, xs, ys), {}


def _r22c_tsl_divergence(training: bool) -> Built:
    xs, xt, _ = _r22c_domains(6, torch.float64)
    w = torch.linalg.qr(torch.randn(6, 2, dtype=torch.float64))[0]
    return _r22c_tsl()._D, (w, xs, xt), {}


def _r22c_tsl_fit(training: bool) -> Built:
    from skada import TransferSubspaceLearningAdapter

    return _r22c_fit_args(TransferSubspaceLearningAdapter(n_components=2, max_iter=20), ("W_",))


def _r22c_mmdlscons_fit(training: bool) -> Built:
    from skada import MMDLSConSMappingAdapter

    return _r22c_fit_args(MMDLSConSMappingAdapter(gamma=0.1, tol=1e-3, max_iter=20), ("W_", "B_", "G_", "H_"))


def _r22c_dan_criterion(training: bool) -> Built:
    from skada.deep import DANLoss
    from skada.deep.base import DomainAwareCriterion

    X, y, sample_domain = _r22c_encoded()
    criterion = DomainAwareCriterion(torch.nn.CrossEntropyLoss(), DANLoss())
    return _r22c_criterion, (criterion, torch.randn(32, 3), X, sample_domain, torch.arange(32) % 16, y), {}


def _r22c_can(training: bool) -> Built:
    from skada.deep import CANLoss
    from skada.deep.utils import SphericalKMeans

    xs, xt, ys = _r22c_domains()
    # The target clustering skada's ComputeSourceCentroids callback fits each epoch (deep/callbacks.py:53-75).
    centroids = torch.stack([torch.nn.functional.normalize(xs[ys == c], dim=1).sum(0) for c in range(3)])
    kmeans = SphericalKMeans(n_clusters=3, random_state=0, initial_centroids=centroids).fit(xt)
    return CANLoss(distance_threshold=0.03, class_threshold=4, target_kmeans=kmeans), (ys, xs, xt), {}


def _r22c_kmeans(training: bool) -> Built:
    from skada.deep.utils import SphericalKMeans

    return _r22c_kmeans_fit, (SphericalKMeans(n_clusters=3), _r22c_encoded()[0]), {}


def _r22c_spa(training: bool) -> Built:
    from skada.deep import SPALoss

    xs, xt, _ = _r22c_domains()
    # A 32-sample target memory bank as MemoryBank means to fill it (deep/callbacks.py:115-122, 155-157; quirk 10).
    probs = torch.softmax(torch.randn(32, 3), dim=1)
    loss = SPALoss(max_epochs=10, memory_features=torch.nn.functional.normalize(torch.rand(32, 8), dim=1),
                   memory_outputs=probs**2 / (probs**2).sum(0))
    loss.n_epochs = 5  # as CountEpochs sets it in the fifth epoch (deep/callbacks.py:180-182)
    return loss, (torch.randn(16, 3), torch.rand(16), torch.rand(16), xs, xt, torch.randperm(32)[:16]), {}


def _r22c_mdd_net(training: bool) -> Built:
    from skada.deep import MDD
    from skada.deep.modules import ToyModule2D

    net = MDD(ToyModule2D(n_classes=3, num_features=8), layer_name="dropout", num_features=8, n_classes=3,
              criterion__reduction="none", train_split=None)
    net.initialize()
    net._set_training(True)  # as train_step_single does first; DomainAwareModule returns its tuple only in train mode
    _, y, sample_domain = _r22c_encoded()
    return _r22c_net_step, (net, torch.randn(32, 2), sample_domain, torch.rand(32) + 0.5, torch.arange(32) % 16,
                            y), {}


def _r22c_coral(training: bool) -> Built:
    from skada.deep import DeepCoralLoss

    xs, xt, _ = _r22c_domains()
    return DeepCoralLoss(), (xs, xt), {}


# --- rows ----------------------------------------------------------------------------------

_FIT_NOTES = ("inference only: numpy in, numpy out (the adapter's fit runs its own L-BFGS; `LBFGS.step` enables "
              "grad for its closure, so it also runs under the harness's no_grad)")
_LBFGS = ("`torch_minimize` (utils.py:969-1037: `torch.tensor` copies of the initial values (1004, torch warns), "
          "`torch.optim.LBFGS(max_iter=20, tolerance_grad=tol, line_search_fn='strong_wolfe')`, one `step` of "
          "closures (zero_grad, objective, backward) with L-BFGS's `float(closure())`, `if opt_cond` tensor "
          "tests and the strong-Wolfe line search's tensor comparisons (torch/optim/lbfgs.py), then `grad_norm = "
          "cat(...).abs().max()`, `if grad_norm > tol` (1026: a tensor's truth; the warning formats its value), "
          "`.detach().numpy()` (1032), `loss(*x0).item()` (1035))")


def _rows() -> list[Row]:
    return [
        Row(
            "r22c_tsl_flda_objective", *SKADA,
            "method: TransferSubspaceLearningAdapter(n_components=2, base_method='flda')._F(W (6, 2) orthonormal, "
            "X_source (16, 6), y_source (16,) int64 in {0, 1, 2}) float64; returns a 0-d tensor",
            ("skada",), _r22c_tsl_flda,
            notes="the Fisher-LDA subspace term TSL's fit minimizes (with `self.torch` set as fit sets it, quirk 2); "
            "in training the projection W and the source samples require grad",
            patterns="`_F` (skada/_subspace.py:809-836: `import torch` inside, the Python `base_method` test, "
            "`torch.unique(y_source)` (819: a data-dependent size), a Python loop over its elements (0-d tensors) "
            "with boolean masks `X_source[y_source == c]` (821: data-dependent shapes) and `torch.sum(y_source == "
            "c)` (823), `stack`, `sqrt` of int counts, two `_torch_cov` (773-784: mean, `.T @`, `trace`, `eye`), "
            "a ratio of traces)",
        ),
        Row(
            "r22c_tsl_fit", *SKADA,
            "wrapper: TransferSubspaceLearningAdapter(n_components=2, max_iter=20).fit(X (32, 6) float64, y (32,) "
            "int64 [target -1], sample_domain (32,) [1 x16, -2 x16]); returns the fitted W_ (numpy (6, 2))",
            ("skada",), _r22c_tsl_fit, modes=INFERENCE,
            notes=_FIT_NOTES + ". Transfer Subspace Learning (Si et al.) of a 2-D projection: FLDA term plus "
            "0.1 x a Bregman (Gaussian-kernel) divergence between the projected domains; converges (no warning) "
            "besides torch's copy-construct warning (quirk 3)",
            patterns="`fit` (skada/_subspace.py:837-911: `check_X_domain`, `source_target_split` (numpy masks), "
            "`torch.tensor` of the numpy arrays, `torch.eye(..., requires_grad=True)[:, :2]`), the closure `func` "
            "(894-898: `_orth` (a `type(W) is np.ndarray` test, `torch.linalg.qr`), `_F` as in "
            "r22c_tsl_flda_objective, `_D`), " + _LBFGS + ", then `_orth` in numpy",
        ),
        Row(
            "r22c_mmdlscons_fit", *SKADA,
            "wrapper: MMDLSConSMappingAdapter(gamma=0.1, tol=1e-3, max_iter=20).fit(X (32, 6) float64, y (32,) "
            "int64 [target -1], sample_domain (32,) [1 x16, -2 x16]); returns (W_ (16, 6), B_ (16, 6), G_ (3, 6), "
            "H_ (3, 6)) numpy",
            ("skada",), _r22c_mmdlscons_fit, modes=INFERENCE,
            notes=_FIT_NOTES + ". Location-scale conditional-shift mapping (Zhang et al.) with class-wise scale "
            "and shift learnt by minimizing a kernel MMD to the target; converges at tol=1e-3 (quirk 4) besides "
            "torch's copy-construct warning (quirk 3)",
            patterns="`fit` (skada/_mapping.py:1148-1178: `check_X_domain`, `source_target_split`), "
            "`_mapping_optimization` (1079-1146: `_find_y_type` (numpy `isnan`, `type_of_target`), `torch.tensor` "
            "of numpy arrays, `exp(-gamma * cdist)`, `linalg.inv`, `torch.unique(y_source).numpy()` (1108: a "
            "data-dependent size read to numpy), a Python loop over the numpy classes with `R[:, i] = (y_source "
            "== c).int()` (1110-1111), the MMD closure `func` (1121-1134: `cdist`, `exp`, matmuls, sums)), "
            + _LBFGS + ", `R.detach().numpy()` (1142), numpy products",
        ),
        Row(
            "r22c_deep_dan_criterion", *SKADA,
            "wrapper: DomainAwareCriterion(CrossEntropyLoss(), DANLoss(), reg=1)((y_pred (32, 3), None, features "
            "(32, 8), sample_domain (32,) int64 [1 x16, -2 x16], sample_idx (32,)), y (32,) int64 [target -1]); "
            "returns a 0-d tensor",
            ("skada",), _r22c_dan_criterion,
            notes="skada.deep's training criterion for DAN as skorch calls it on one balanced batch: cross-entropy "
            "on the source rows plus the multi-kernel MMD between source and target features (33 Gaussian "
            "bandwidths scaled by the median source distance); in training the logits and the features require grad",
            patterns="`DomainAwareCriterion.forward` (deep/base.py:82-143: the tuple unpack, `source_idx = "
            "sample_domain >= 0` (102), boolean-mask indexing `y_pred[source_idx]`, `y_pred[~source_idx]` (103-104: "
            "data-dependent shapes), the Python `None` tests (106-125) with the masks of features (114-115) and "
            "sample_idx (121-122), the `train_on_target` test, `y_true[source_idx]` (130, 134), the base "
            "cross-entropy) -> `DANLoss.forward` (deep/_divergence.py:129-137) -> `dan_loss` (deep/losses.py:152-195: "
            "`torch.median(torch.cdist(...))` (179-181), `torch.tensor` of a 33-float Python list (183), "
            "`_maximum_mean_discrepancy` (141-149) of `_gaussian_kernel` (130-138: `cdist`, `view`, `matmul`, `exp`, "
            "`sum`, `view_as`))",
        ),
        Row(
            "r22c_deep_can_loss", *SKADA,
            "method: CANLoss(distance_threshold=0.03, class_threshold=4, target_kmeans=SphericalKMeans(n_clusters=3) "
            "fitted on features_t from the source class centroids)(y_s (16,) int64 in {0, 1, 2}, features_s (16, 8), "
            "features_t (16, 8)) float32; returns a 0-d tensor",
            ("skada",), _r22c_can,
            notes="the contrastive domain discrepancy of CAN (Kang et al.) on one batch, its target clustering "
            "fitted in the builder as skada's ComputeSourceCentroids callback fits it; both filters bite on these "
            "data: 4 of the 16 target samples are dropped as ambiguous and cluster 0 keeps 3 samples (< 4), so only "
            "the class pairs (1, 1), (1, 2), (2, 2) enter; in training both feature sets require grad",
            patterns="`CANLoss.forward` (deep/_divergence.py:227-245) -> `cdd_loss` (deep/losses.py:198-333: "
            "`len(y_s.unique())` (243: a data-dependent size as a Python int), the `type(...) is not "
            "SphericalKMeans` test (246), `SphericalKMeans.predict` (deep/utils.py:262-286: `no_grad`, "
            "`check_is_fitted`, cosine dissimilarities, `argmin`), `cosine_similarity` and `max` (256-259: the "
            "ambiguity mask), boolean-mask indexing `features_t[mask_t]`, `cluster_labels_t[mask_t]` (260-261, "
            "266-268: data-dependent shapes), `bincount(minlength=n_classes)` (264), `torch.median(torch.cdist(...))`"
            " and `torch.tensor` of a Python list (271-279), a Python double loop over the classes with `if "
            "valid_classes[c1] and valid_classes[c2]` (288: tensor truths) and per term `if mask.sum() > 0` (295, "
            "306, 319: tensor truths), `_gaussian_kernel` (130-138), float masks, sums, divisions, "
            "`len(valid_classes)` (329-331))",
        ),
        Row(
            "r22c_deep_spherical_kmeans_fit", *SKADA,
            "wrapper: skada.deep.utils.SphericalKMeans(n_clusters=3) (n_init=10, max_iter=300, tol=1e-4).fit(X "
            "(32, 8) float32); returns (cluster_centers_ (3, 8), inertia_ float, n_iter_ int)",
            ("skada",), _r22c_kmeans, modes=INFERENCE,
            notes="inference only: `fit` runs under `torch.no_grad()` (deep/utils.py:183), nothing has a "
            "gradient. The spherical k-means CAN clusters target features with, here with 10 random restarts "
            "(`random_state` is never read: the initial centroids come from `torch.randperm` on the global "
            "generator, which the harness seeds before the call)",
            patterns="`SphericalKMeans.fit` (deep/utils.py:167-217: `no_grad`, `isinstance`, `norm` normalization, a "
            "Python loop of `n_init` restarts: `_init_centroids` (159-165: `torch.randperm`, gather, normalize), "
            "`_run_single_kmean` (219-260: up to `max_iter` iterations of cosine dissimilarities and `argmin`, per "
            "cluster `if torch.any(labels == k)` (247: a tensor's truth) and the masked sum `X[labels == k]"
            ".sum(dim=0)` (248: a data-dependent shape) written into a row, `if torch.allclose(centroids, "
            "new_centroids, atol=self.tol): break` (252: a loop stopping on tensor values), the `centroids[labels]` "
            "gather and `_compute_dissimilarity_loss` (310-333: `.sum().item()` (331))), `if best_inertia is None "
            "or inertia < best_inertia` (201: Python floats read from tensors))",
        ),
        Row(
            "r22c_deep_spa_loss", *SKADA,
            "method: SPALoss(max_epochs=10, memory_features (32, 8), memory_outputs (32, 3); n_epochs set to 5)"
            "(y_pred_t (16, 3), domain_pred_s (16,) and domain_pred_t (16,) in (0, 1), features_s (16, 8), "
            "features_t (16, 8), sample_idx_t (16,) int64 rows of the memory) float32; returns a 0-d tensor",
            ("skada",), _r22c_spa,
            notes="SPA's (Xiao et al.) loss on one batch: the adversarial BCE weighted by a numpy scheduler, the "
            "graph spectral alignment (singular values of two Gaussian-kernel random-walk Laplacians) and the "
            "neighbourhood-aware pseudo-label loss against a target memory bank (K=5 neighbours) holding what skada's "
            "MemoryBank callback computes (normalized features, squared-softmax outputs; quirk 10); in training the "
            "predictions, domain probabilities and features require grad (the memory bank, an attribute, does not)",
            patterns="`SPALoss.forward` (deep/_graph_alignment.py:88-135: labels from `.size()`, `_scheduler_adv` "
            "(76-83: `np.exp` of Python numbers, a numpy float64 times tensors), `BCELoss`, `_scheduler_nap` (85-86))"
            " -> `gda_loss` (deep/losses.py:454-478: `_adj` (413-429: Python metric tests, `cdist`, `exp`), "
            "`_laplacian` (432-451: `diag`, matmul), two `torch.linalg.svd`, `norm`) -> `nap_loss` (481-515: `cdist` "
            "of the detached features (501), `dis[..., sample_idx_t] = inf` (502: an index_put with an index "
            "tensor), `topk` (505), `scatter_` (509), `max` of `w.mm(memory_outputs)` (511), per-sample "
            "cross-entropy (512), `torch.sum(weight_).item()` (513: a tensor value read to Python))",
        ),
        Row(
            "r22c_deep_mdd_net_step", *SKADA,
            "wrapper: net = MDD(ToyModule2D(n_classes=3, num_features=8), layer_name='dropout', num_features=8, "
            "n_classes=3, criterion__reduction='none') (a skada DomainAwareNet, initialized, train mode); "
            "net.get_loss(net.infer(batch), y (32,) int64 [target -1], X=batch) with batch = {'X': (32, 2), "
            "'sample_domain': (32,) [1 x16, -2 x16], 'sample_weight': (32,), 'sample_idx': (32,)}; returns a 0-d "
            "tensor",
            ("skada",), _r22c_mdd_net, frozen=("3",),
            notes="one skorch training step's loss for MDD (Zhang et al.) with per-sample weights, as "
            "`train_step_single` computes it before `backward`; `reduction='none'` since with the default 'mean' "
            "`get_loss` raises on weighted batches (deep/base.py:889-892); in training X requires grad (sample_weight "
            "is frozen) and the module's parameters get gradients (the discriminator's through skada's "
            "gradient-reversal layer)",
            patterns="`NeuralNet.infer` (skorch/net.py:1670-1687: `to_tensor` of the dict (skorch/utils.py:63-118), "
            "`isinstance(x, Mapping)`, `_merge_x_and_fit_params` (1659-1668)) -> `DomainAwareModule.forward` "
            "(deep/base.py:430-462: `if self.training`, the `sample_weight is not None` test, `ToyModule2D` "
            "(deep/modules.py:46-73: Linear, ReLU, Dropout, Linear, `if self.proba`), the forward hook "
            "`IntermediateLayerHook` writing the 'dropout' output into a dict (deep/utils.py:17-31) read back (445), "
            "`DomainClassifier` (deep/modules.py:156-196: `GradientReversalLayer.apply` (136-153: a custom autograd "
            "Function), Linear, BatchNorm1d (train), ReLU, Linear, `nn.Softmax()` without dim (a deprecation "
            "warning), `squeeze`)); `DomainAwareNet.get_loss` (deep/base.py:862-896) -> `NeuralNetClassifier"
            ".get_loss` (skorch/classifier.py:149-155: an `isinstance` test) -> `NeuralNet.get_loss` (net.py:"
            "1801-1831: `to_tensor`) -> `DomainAwareCriterion.forward` (deep/base.py:82-143: boolean masks of "
            "`sample_domain >= 0` (102) on predictions, domain predictions, features, sample_idx and labels) -> "
            "`MDDLoss.forward` (deep/_adversarial.py:450-470: `argmax` pseudo-labels, cross-entropy, "
            "`ModifiedCrossEntropyLoss` (388-419: `smooth_prob[..., target]` (413), `log`, `mean`)); then "
            "`'sample_weight' in X` (886), `to_tensor`, `sample_weight[X['sample_domain'] > 0]` (888: boolean-mask "
            "indexing), `if loss.dim() == 0 and len(sample_weight) > 1` (889: the length of a data-dependent "
            "shape), `sample_weight * loss`, `mean`",
        ),
        Row(
            "r22c_tsl_divergence_control", *SKADA,
            "method: TransferSubspaceLearningAdapter(n_components=2)._D(W (6, 2) orthonormal, X_source (16, 6), "
            "X_target (16, 6)) float64; returns a 0-d tensor",
            ("skada",), _r22c_tsl_divergence,
            notes="control: TSL's Bregman divergence between the projected source and target distributions "
            "(Gaussian kernel density estimates); in training W and both sample sets require grad",
            patterns="control: no tensor value reaches Python. `_D` (skada/_subspace.py:786-807: `import torch` "
            "inside, two projections, three `_torch_cov` (773-784: mean, `.T @`, `trace`, `eye`) sums, "
            "`linalg.cholesky(linalg.inv(...))` three times, three `exp(-0.5 * cdist(...))`, means)",
        ),
        Row(
            "r22c_deep_coral_control", *SKADA,
            "method: DeepCoralLoss()(features_s (16, 8), features_t (16, 8)) float32; returns a 0-d tensor",
            ("skada",), _r22c_coral,
            notes="control: the DeepCORAL alignment loss (Sun and Saenko) between one source and one target batch; "
            "in training both feature sets require grad",
            patterns="control: no tensor value reaches Python. `DeepCoralLoss.forward` (deep/_divergence.py:47-55) "
            "-> `deepcoral_loss` (deep/losses.py:20-52: the Python `assume_centered` test, centering by means, two "
            "`torch.cov`, `mse_loss(reduction='sum')`, a Python scale from `shape[1]`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-two (c)")
