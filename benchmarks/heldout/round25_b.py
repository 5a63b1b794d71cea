"""Held-out round twenty-five (r25b): TorchDrift.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: reference features (32, 4) drawn from a standard normal and
test features (24, 4) shifted by +0.5 (+0.25 for the MMD control), a 6-unit
feature extractor on (48, 8) reference inputs, images (2, 3, 8, 8) and
(2, 3, 16, 16) in 0..1, float32 throughout; the detectors and reducers are
fitted on the reference in ``make``, so a row's call is the detection; seeded
random data, nothing downloaded, nothing written to disk, no data set or data
file used); a row whose ``modes`` is one mode only says why in its ``notes``.

TorchDrift 0.1.0.post1 (package ``torchdrift``) detects dataset drift: drift
detectors (``nn.Module`` subclasses of ``Detector`` that are ``fit`` on
reference features and then return a test score or a p-value:
``KSDriftDetector``, per-feature two-sample Kolmogorov-Smirnov tests with a
Bonferroni-corrected p-value from an exact recursion, and
``KernelMMDDriftDetector``, the kernel maximum mean discrepancy with a
permutation-test p-value), the test statistics as functions
(``ks_two_sample_multi_dim``, ``ks_p_value``, ``kernel_mmd``), dimension
reducers (``PCAReducer``), drift-inducing image corruptions
(``torchdrift.data.functional``: Gaussian/shot/impulse/speckle noise,
Gaussian blur, at a severity 1-5) and experiment helpers (``utils.fit``,
``DriftDetectionExperiment``).

The data-dependent code on the rows' paths (file:line relative to the
``torchdrift`` package).  ``KSDriftDetector.predict_shift_from_features``
(detectors/ks.py:88-112) computes the per-feature KS statistics with
``ks_two_sample_multi_dim`` (53-71: ``argsort`` of the joint sample, a
``cumsum`` of signs, ``abs().max(0)``), takes the maximum and, for a p-value,
reads it into Python with ``ood_score.item()`` (109) and runs ``ks_p_value``
(23-50), a pure Python/numpy recursion (numba's ``njit`` is the identity when
numba is absent, 9-14): its row length ``int(2 * m * d + 2)`` (29) and every
row's start ``int(m * (i / n + d))`` (33) come from the statistic, so the inner
loop ``range(size)`` (36) is bounded by a tensor's value, the rows are numpy
arrays written element by element (30, 47), and the result is a numpy float
capped by ``min(1.0, ... * n_features)`` (109); ``Detector.compute_p_value``
(detectors/detector.py:35-45) and ``Detector.forward`` with
``return_p_value=True`` (47-65) both reach it.  Called with a 0-d tensor
statistic, ``ks_p_value`` itself reads it at 29 and 33 and tests ``if dist > d
or dist < -d`` (39: a tensor's truth in the inner loop, (n + 1) x size times).
``torchdrift.utils.check`` (utils/__init__.py:5-8) is ``if not check: raise``
(7): a tensor's truth when it is handed a tensor test.  The corruptions'
``interpolate_severity`` (data/functional/corruption_functions.py:52-61) tests
``severity >= 1 and severity <= 5`` (54: with a tensor severity, ``and`` takes
the first comparison's truth and ``check`` the second's) and indexes the
CIFAR and ImageNet parameter lists with ``cifar[severity - 1]`` (58: a Python
list indexed by a 0-d tensor through ``__index__``); ``gaussian_blur``
(103-123) sizes its kernel from that value (``int(math.ceil(sigma * 5))``,
``arange`` 111-116: a kernel shape chosen by a tensor's value).

Controls (no tensor value reaches Python):
``r25b_mmd_detector_compute_p_value_control`` (``kernel_mmd``'s permutation
test: ``cdist``, the median-lengthscale Gaussian kernel, a loop of ``n_perm``
(a Python int) ``randperm`` re-indexings of the kernel matrix, the count of
exceedances kept as a tensor, ``true_divide``; the ``check`` calls there test
Python ints and bools) and ``r25b_pca_fit_transform_control``
(``PCAReducer.fit`` then forward: ``mean``, ``svd``, slicing, matmul; its
``check`` tests Python ints).

Global state on import (the builders import the library; this module imports
only torch): ``import torchdrift`` imports its data, detectors, utils and
reducers packages, numpy (detectors/ks.py:4) and tqdm (utils/experiments.py:2,
utils/fit.py:6; both already imported by torch here), and tries ``import
numba`` (detectors/ks.py:9-14; not installed: ``njit`` is the identity, so
``ks_p_value`` runs as plain Python).  It adds no warning filter, no logging
handler, sets no environment variable and leaves torch's default dtype,
deterministic flags, matmul precision and thread count unchanged;
``torch._dynamo`` is not imported.

Library quirks met (eagerly): the KS detector's p-value is not a tensor: it is
a ``numpy.float64`` (``row[m - start_j]`` times the feature count), or the
Python float ``1.0`` when the Bonferroni cap applies (detectors/ks.py:109);
nothing on the detectors' paths has a gradient (``ks_two_sample_multi_dim``'s
signs come from ``argsort``, ks.py:66-67, and ``kernel_mmd`` detaches both
samples, mmd.py:99), so the detector rows are inference only.
``KSDriftDetector.predict_shift_from_features`` scores against
``self.base_outputs`` and ignores its ``base_outputs`` argument (ks.py:99)
except for the sample size in the p-value (106); its ``check`` message says
"MMD detector" (97).  ``ks_two_sample_multi_dim`` returns float32 whatever the
inputs' dtype (``.to(dtype=torch.float)``, 67).  ``ks_p_value`` accepts a
tensor statistic only because numba is absent (a numba-compiled version would
reject it); ``jjmax`` (48) is computed and unused.  ``kernel_mmd`` permutes
the kernel matrix cumulatively (``k = k[pi][:, pi]``, 119: each permutation
composes with the previous ones), and the default ``GaussianKernel()`` is one
instance shared through default arguments (mmd.py:82, 150).
``PCAReducer.fit`` stores ``mean`` and ``comp`` as plain attributes (not
buffers: not in the state dict; when fitted with grad they stay attached to
that call's graph) and uses the deprecated ``torch.svd`` (reducers/pca.py:31;
no warning was seen).  ``interpolate_severity`` accepts a 0-d integer tensor
severity (list indexing through ``__index__``) though it is annotated ``int``.

Dropped: ``DriftDetectionExperiment.evaluate`` (utils/experiments.py:30-89:
needs data modules with ``default_dataloader``, draws a tqdm progress bar on
stderr and runs a loop of experiments; its ``torch.tensor`` of a list of 0-d
tensors (78) and ``linspace`` with tensor ends (82) read values, but it is an
evaluation harness, not code one compiles); ``utils.fit`` (utils/fit.py:10-50:
a DataLoader loop with a tqdm bar; no tensor value read); ``shot_noise``
(``torch.poisson``'s gradient is zero, and with an int severity its path
reads no tensor value, as ``gaussian_noise``'s); ``impulse_noise`` and
``speckle_noise`` (the same ``interpolate_severity`` path as the noise row);
``KSDriftDetector``/``KernelMMDDriftDetector`` forward returning the score
only (subsets of the rows' paths, with no value read).  No candidate was
dropped for failing or for differing between runs.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCHDRIFT = ("torchdrift", "0.1.0.post1")
MODULES = ("torchdrift",)
INFERENCE = ("inference",)

SHIFT = 0.5  # mean shift of the test features
N_REF, N_TEST, N_FEAT = 32, 24, 4

# --- helpers -------------------------------------------------------------------------------


def _features(shift: float = SHIFT) -> tuple[torch.Tensor, torch.Tensor]:
    """Reference features (32, 4) from a standard normal and test features (24, 4) shifted by ``shift``."""
    return torch.randn(N_REF, N_FEAT), torch.randn(N_TEST, N_FEAT) + shift


def _ks_p_value_of_max(x: torch.Tensor, y: torch.Tensor) -> Any:
    """The largest per-feature KS statistic (a 0-d tensor) handed straight to the library's p-value recursion."""
    from torchdrift.detectors import ks_p_value, ks_two_sample_multi_dim

    return ks_p_value(len(y), len(x), ks_two_sample_multi_dim(x, y).max())


def _checked_gaussian_noise(x: torch.Tensor, severity: int) -> torch.Tensor:
    """Check that the images are in 0..1 (as the corruptions require) with the library's ``check``, then
    corrupt them with Gaussian noise."""
    import torchdrift.utils
    from torchdrift.data.functional import gaussian_noise

    torchdrift.utils.check(((x >= 0) & (x <= 1)).all(), "images must be in 0..1")
    return gaussian_noise(x, severity)


def _pca_fit_transform(reducer: Any, reference: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Fit the PCA reducer on the reference features, then reduce the test features."""
    reducer.fit(reference)
    return reducer(x)


# --- builders ------------------------------------------------------------------------------


def _ks_compute_p_value(training: bool) -> Built:
    from torchdrift.detectors import KSDriftDetector

    reference, test = _features()
    detector = KSDriftDetector()
    detector.fit(reference)
    return detector.compute_p_value, (test,), {}


def _ks_predict_shift(training: bool) -> Built:
    from torchdrift.detectors import KSDriftDetector

    reference, test = _features()
    detector = KSDriftDetector()
    detector.fit(reference)
    return detector.predict_shift_from_features, (reference, test), {"compute_score": True, "compute_p_value": True}


def _sequential_pipeline(training: bool) -> Built:
    from torchdrift.detectors import KSDriftDetector
    from torchdrift.reducers import PCAReducer

    extractor = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU())
    reducer = PCAReducer(n_components=2)
    detector = KSDriftDetector(return_p_value=True)
    reference = torch.randn(48, 8)
    with torch.no_grad():  # as torchdrift.utils.fit does (utils/fit.py:42-50), without its DataLoader and tqdm bar
        detector.fit(reducer.fit(extractor(reference)))
    return torch.nn.Sequential(extractor, reducer, detector), (torch.randn(N_TEST, 8) + SHIFT,), {}


def _ks_p_value_row(training: bool) -> Built:
    reference, test = _features()
    return _ks_p_value_of_max, (test, reference), {}


def _checked_noise(training: bool) -> Built:
    return _checked_gaussian_noise, (torch.rand(2, 3, 8, 8), 2), {}


def _blur_tensor_severity(training: bool) -> Built:
    from torchdrift.data.functional import gaussian_blur

    return gaussian_blur, (torch.rand(2, 3, 16, 16), torch.tensor(3)), {}


def _mmd_compute_p_value(training: bool) -> Built:
    from torchdrift.detectors import KernelMMDDriftDetector

    reference, test = _features(shift=0.25)
    detector = KernelMMDDriftDetector(n_perm=16)
    detector.fit(reference)
    return detector.compute_p_value, (test,), {}


def _pca_control(training: bool) -> Built:
    from torchdrift.reducers import PCAReducer

    reference, test = _features()
    return _pca_fit_transform, (PCAReducer(n_components=2), reference, test), {}


# --- rows ------------------------------------------------------------------------------------

_KS_SCORE = ("`ks_two_sample_multi_dim` (detectors/ks.py:53-71: `check` of Python ints (64), `argsort` of the joint "
             "sample (66), signs `.to(dtype=torch.float)` (67), `cumsum(0).abs().max(0)` (70))")
_KS_P_VALUE = ("`KSDriftDetector.predict_shift_from_features` (detectors/ks.py:88-112: `check` of a Python bool "
               "(96-98), " + _KS_SCORE + " against `self.base_outputs` (99), `.max()` (103), `ood_score.item()` "
               "(109: the statistic read into Python) -> `ks_p_value` (23-50, plain Python with numba absent: "
               "`int(2 * m * d + 2)` (29: the row length from the value), `numpy.zeros` (30), `range(n + 1)` (32), "
               "`int(m * (i / n + d))` (33), an inner loop `range(size)` (36: bounded by the value) with "
               "Python-float branches (39-46) and numpy element writes (47), `row[m - start_j]` (50: a numpy "
               "float)), `min(1.0, p * n_features)` (109))")
_DETECTOR_NOTES = ("inference only: the p-value is a numpy float, and nothing on the path has a gradient (the KS "
                   "signs come from `argsort`). ")


def _rows() -> list[Row]:
    return [
        Row(
            "r25b_ks_detector_compute_p_value", *TORCHDRIFT,
            "method: KSDriftDetector().compute_p_value(test features (24, 4)) after fit(reference features (32, 4)); "
            "returns the Bonferroni-corrected p-value (a numpy float64)",
            MODULES, _ks_compute_p_value, modes=INFERENCE,
            notes=_DETECTOR_NOTES + "A KS drift test of shifted features against the fitted reference",
            patterns="`Detector.compute_p_value` (detectors/detector.py:35-45: `check(self.base_outputs is not None)` "
            "(39-41: a Python bool)) -> " + _KS_P_VALUE,
        ),
        Row(
            "r25b_ks_predict_shift_from_features", *TORCHDRIFT,
            "method: KSDriftDetector().predict_shift_from_features(reference (32, 4), test (24, 4), "
            "compute_score=True, compute_p_value=True) after fit(reference); returns (score 0-d tensor, p-value "
            "numpy float64)",
            MODULES, _ks_predict_shift, modes=INFERENCE,
            notes=_DETECTOR_NOTES + "The score and the p-value in one call (the library scores against its fitted "
            "reference whatever `base_outputs` is passed)",
            patterns=_KS_P_VALUE,
        ),
        Row(
            "r25b_sequential_extractor_pca_ks_p_value", *TORCHDRIFT,
            "module: torch.nn.Sequential(Sequential(Linear(8, 6), ReLU()), PCAReducer(n_components=2), "
            "KSDriftDetector(return_p_value=True))(inputs (24, 8)), reducer and detector fitted on (48, 8) reference "
            "inputs; returns the p-value (a numpy float64)",
            MODULES, _sequential_pipeline, modes=INFERENCE,
            notes="inference only: the p-value is a numpy float (`.item()` cuts the extractor's gradient). A "
            "feature extractor + reducer + detector drift monitor as one module, as TorchDrift's examples chain "
            "them; fitted in `make` under `no_grad`, as `torchdrift.utils.fit` does",
            patterns="`Linear`, `ReLU`; `PCAReducer.forward` (reducers/pca.py:36-39: centre, matmul); "
            "`Detector.forward` (detectors/detector.py:47-65: `check` of a Python bool (53-55), "
            "`if self.return_p_value` (63: a Python bool)) -> " + _KS_P_VALUE,
        ),
        Row(
            "r25b_ks_p_value_tensor_statistic", *TORCHDRIFT,
            "function: torchdrift.detectors.ks_p_value(32, 24, d) with d = ks_two_sample_multi_dim(test (24, 4), "
            "reference (32, 4)).max() (a 0-d tensor) via a 2-line wrapper; returns the p-value (a numpy float64)",
            MODULES, _ks_p_value_row, modes=INFERENCE,
            notes="inference only: the p-value is a numpy float (no gradient path). The exact two-sample KS "
            "p-value recursion fed the statistic as the tensor it is computed as (works because `njit` is the "
            "identity without numba)",
            patterns=_KS_SCORE + "; `.max()`; `ks_p_value` (detectors/ks.py:23-50) with a 0-d tensor `d`: "
            "`int(2 * m * d + 2)` (29: the row length read from the tensor), `numpy.zeros` (30), `range(n + 1)` "
            "(32), `int(m * (i / n + d))` (33: a tensor read per row), an inner loop `range(size)` (36: bounded by "
            "the value) testing `if dist > d or dist < -d` (39: a tensor's truth, (n + 1) x size times), numpy "
            "element writes (47), `row[m - start_j]` (50)",
        ),
        Row(
            "r25b_check_unit_range_gaussian_noise", *TORCHDRIFT,
            "function: torchdrift.utils.check(((x >= 0) & (x <= 1)).all(), ...) then "
            "torchdrift.data.functional.gaussian_noise(x (2, 3, 8, 8), severity=2) via a 2-line wrapper; returns "
            "(2, 3, 8, 8)",
            MODULES, _checked_noise,
            notes="the corruptions require images in 0..1; the wrapper validates that with the library's own "
            "`check` before inducing drift with Gaussian noise (sampled: the call seed fixes it); in training the "
            "images require grad",
            patterns="`torchdrift.utils.check` (utils/__init__.py:5-8) with a 0-d bool tensor: `if not check` (7: a "
            "tensor's truth); `gaussian_noise` (data/functional/corruption_functions.py:64-70: "
            "`interpolate_severity` (52-61: `check` of Python comparisons (53-55), the image size, list indexing "
            "by the int severity), `randn_like`, `clamp`)",
        ),
        Row(
            "r25b_gaussian_blur_tensor_severity", *TORCHDRIFT,
            "function: torchdrift.data.functional.gaussian_blur(x (2, 3, 16, 16), severity=tensor(3)); returns "
            "(2, 3, 16, 16)",
            MODULES, _blur_tensor_severity,
            notes="a drift-inducing blur with the severity given as a 0-d int64 tensor, as a pipeline drawing "
            "random severities holds it; in training the images require grad (the severity is an integer tensor)",
            patterns="`interpolate_severity` (data/functional/corruption_functions.py:52-61: `severity >= 1 and "
            "severity <= 5` (54: `and` takes a tensor's truth) -> `torchdrift.utils.check` (utils/__init__.py:7: "
            "`if not check` on the other comparison, a tensor's truth), `cifar[severity - 1]` and "
            "`imagenet[severity - 1]` (58: Python lists indexed by a 0-d tensor, the sigma read into a Python "
            "float)); `gaussian_blur` (103-123: `int(math.ceil(sigma * 5))`, odd width (111-112: the kernel size "
            "from the tensor's value), `arange` (114-116), `exp`, in-place `/=` (120), depthwise `conv2d` with "
            "`padding=width // 2` (123))",
        ),
        Row(
            "r25b_mmd_detector_compute_p_value_control", *TORCHDRIFT,
            "method: KernelMMDDriftDetector(n_perm=16).compute_p_value(test features (24, 4)) after fit(reference "
            "features (32, 4)); returns the permutation p-value (0-d tensor)",
            MODULES, _mmd_compute_p_value, modes=INFERENCE,
            notes="control; inference only: `kernel_mmd` detaches both samples (no gradient path). The kernel MMD "
            "permutation test (16 `randperm`s: the call seed fixes them) of features shifted by 0.25",
            patterns="control: no tensor value reaches Python. `Detector.compute_p_value` (detectors/detector.py:"
            "35-45: `check` of a Python bool) -> `KernelMMDDriftDetector.predict_shift_from_features` (detectors/"
            "mmd.py:156-176: `check` of a Python bool (164)) -> `kernel_mmd` (82-135: `check(d == d2)` of Python "
            "ints (98), `detach`, `cat`, `cdist` (99-100), `GaussianKernel.__call__` (30-36: `dists.median()` as "
            "the lengthscale, a tensor), block sums, `if n_perm is None` (111: a Python value), a loop of "
            "`range(n_perm)` (115: a Python int) with `randperm` (118), `k[pi][:, pi]` (119), `count + (mmd_0 > "
            "mmd)` (130: kept a tensor), `true_divide` (133))",
        ),
        Row(
            "r25b_pca_fit_transform_control", *TORCHDRIFT,
            "function: PCAReducer(n_components=2).fit(reference (32, 4)) then reducer(test (24, 4)) via a 2-line "
            "wrapper; returns (24, 2)",
            MODULES, _pca_control,
            notes="control: fitting the PCA reducer and reducing test features; in training the reference and "
            "test features require grad (through the mean and the SVD's right singular vectors)",
            patterns="control: no tensor value reaches Python. `PCAReducer.fit` (reducers/pca.py:23-34: `check` of "
            "`min(batch, feat) >= n_components` (25-28: Python ints), `mean`, `svd` (31), slicing, matmul, "
            "attributes set on the module (29, 32)); `PCAReducer.forward` (36-39: centre, matmul)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-five (b)")
