"""Held-out round thirteen (r13c): hummingbird-ml and torch-hd.

Chosen by reading each library's source, written down in ROUND13.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The hummingbird-ml rows fit a tiny scikit-learn model in the builder (seeded
NumPy data, fixed ``random_state``), convert it with
``hummingbird.ml.convert(model, "torch")`` and call the converted model's
``.model``, the ``Executor`` ``nn.Module``, on a tensor (or, for the string
label encoder, on the NumPy string array a user passes).  ``Executor.forward``
(_executor.py:68) wraps every call in its own ``torch.no_grad()``, so no
converted model has a gradient path: every hummingbird row is inference only.
The data-dependent code: ``SGDClassifier(loss="modified_huber")`` with three
classes (``LinearModel.forward``, _linear_implementations.py:74: ``if
torch.any(all_zero):`` on the per-row probability sums, then the boolean-mask
setitems ``output[all_zero, :] = 1`` and ``prob_sum[all_zero] = 3``; the query
has two rows whose three decision values are all below -1, so the branch is
taken); ``KNeighborsClassifier(weights="distance")`` (``KNeighborsModel.forward``,
_kneighbors_implementations.py:104-131: ``topk`` of the distances whose indices
gather the training labels, ``d[inf_row] = inf_mask[inf_row].float()``, a
boolean-mask setitem selected by ``torch.any(isinf(1 / d))``; two queries are
training points, so two rows are selected); ``LabelEncoder`` over strings
(``StringLabelEncoder.forward``, _label_encoder_implementations.py:48-51:
``.nonzero(as_tuple=True)`` whose length is the number of matches, then ``assert
result.shape[0] == x.shape[0]``, a size from the data in an assert).  The
control is a ``SimpleImputer -> StandardScaler -> GradientBoostingClassifier``
pipeline converted with ``tree_implementation="tree_trav"``: NaN replacement by
three-argument ``torch.where``, the scaler, and the tree traversal's fixed loop
over the depth with ``index_select``/``gather`` of node indices computed from
the data and a three-argument ``torch.where`` per level, then the per-class sum
and softmax; no tensor value reaches Python.

The torch-hd rows: ``DistHD.fit`` with dimension regeneration (the epoch loop
under tqdm's ``trange``, ``Centroid.add_online``'s ``if is_wrong.sum().item() ==
0: return`` and boolean-mask selections, ``regen_score``'s ``.item()`` early
return, masks and label-indexed gathers, ``torch.topk`` of the scores whose
indices select the dimensions that are zeroed and redrawn with ``normal_()``),
inference only; an ``OnlineHD`` classifier fitted in the builder with one of its
four classes absent from the data, called forward (the MAP
``cosine_similarity``'s ``if torch.isclose(magnitude, 0).any():
warnings.warn(...)``, taken on every call because of the empty class's zero
prototype); ``SparseDistributed.read`` (``is_active.nonzero().T`` unpacked into
two index tensors whose length is the number of active addresses,
``index_add_`` of the gathered values); ``torchhd.cleanup`` with a threshold
(``if value.item() < threshold: raise KeyError``); and, as the control,
``torchhd.ngrams`` (permute, bind, multiset: ``roll``, products, a sum, only
shapes reaching Python).

Neither library changes torch's global state on import (default dtype and
device, grad mode, threads, torch-function modes, deterministic flag, matmul
precision, print options compared before and after).  Importing
``hummingbird.ml`` imports scikit-learn, scipy, pandas and onnx, which add two
warning filters (scipy's ``SpecialFunctionWarning`` 'always', NumPy's matrix
subclass 'ignore') and a ``NullHandler`` on the ``charset_normalizer`` logger;
importing ``torchhd`` also imports ``requests``/``urllib3`` (through
``torchhd.datasets``), which add four more filters and ``NullHandler``s.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

HUMMINGBIRD = ("hummingbird-ml", "0.4.12")
TORCHHD = ("torch-hd", "5.8.4")

HB_NO_GRAD = (
    "inference only: the converted model's `Executor.forward` (hummingbird/ml/_executor.py:68) runs every "
    "call inside its own `torch.no_grad()`, so nothing it returns carries a gradient in either mode (and the "
    "operators' weights are `nn.Parameter`s with requires_grad=False)"
)


# --- hummingbird-ml helpers ----------------------------------------------------------


def _r13c_blobs(n_features: int = 4) -> tuple[Any, Any]:
    """30 training points (NumPy float32) around three centres, labels 0, 1, 2."""
    import numpy as np

    rng = np.random.RandomState(0)
    centres = 2.0 * np.eye(3, n_features)
    X = np.concatenate([rng.randn(10, n_features) + c for c in centres]).astype(np.float32)
    y = np.repeat([0, 1, 2], 10)
    return X, y


def _r13c_hb_sgd_modified_huber(training: bool) -> Built:
    import hummingbird.ml
    from sklearn.linear_model import SGDClassifier

    X, y = _r13c_blobs()
    sgd = SGDClassifier(loss="modified_huber", max_iter=50, tol=None, random_state=0).fit(X, y)
    executor = hummingbird.ml.convert(sgd, "torch").model
    x = 2.0 * torch.randn(6, 4)
    # Two rows whose three decision values are all below -1: every clipped
    # probability is 0 there, so `if torch.any(all_zero)` is taken.
    x[0] = torch.tensor([2.0, -0.5, -0.4, 3.2])
    x[3] = torch.tensor([1.0, 1.5, 0.7, 1.3])
    return executor, (x,), {}


def _r13c_hb_knn_distance(training: bool) -> Built:
    import hummingbird.ml
    from sklearn.neighbors import KNeighborsClassifier

    X, y = _r13c_blobs()
    knn = KNeighborsClassifier(n_neighbors=3, weights="distance").fit(X, y)
    executor = hummingbird.ml.convert(knn, "torch", extra_config={"batch_size": 6}).model
    # Rows 0 and 3 are training points: distance 0, weight inf.
    x = torch.randn(6, 4)
    x[0] = torch.from_numpy(X[0])
    x[3] = torch.from_numpy(X[15])
    return executor, (x,), {}


def _r13c_hb_string_label_encoder(training: bool) -> Built:
    import hummingbird.ml
    import numpy as np
    from sklearn.preprocessing import LabelEncoder

    encoder = LabelEncoder().fit(np.array(["cat", "dog", "emu", "gnu", "yak"]))
    executor = hummingbird.ml.convert(encoder, "torch").model
    words = np.array(["dog", "gnu", "cat", "dog", "yak", "emu", "cat", "gnu"])
    return executor, (words,), {}


def _r13c_hb_gbdt_pipeline_control(training: bool) -> Built:
    import hummingbird.ml
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = _r13c_blobs()
    X[np.random.RandomState(1).rand(*X.shape) < 0.1] = np.nan
    pipeline = make_pipeline(
        SimpleImputer(), StandardScaler(),
        GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0),
    ).fit(X, y)
    executor = hummingbird.ml.convert(pipeline, "torch", extra_config={"tree_implementation": "tree_trav"}).model
    x = torch.randn(6, 4)
    x[1, 2] = float("nan")
    x[4, 0] = float("nan")
    return executor, (x,), {}


# --- torch-hd helpers ----------------------------------------------------------------------


def _r13c_hd_data(n_classes: int, n_per_class: int, spread: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Shuffled points in 5-D around ``n_classes`` centres."""
    centres = spread * torch.randn(n_classes, 5)
    X = torch.cat([c + torch.randn(n_per_class, 5) for c in centres])
    y = torch.arange(n_classes).repeat_interleave(n_per_class)
    perm = torch.randperm(len(y))
    return X[perm], y[perm]


def _r13c_disthd_fit(model: Any, state: dict[str, torch.Tensor], loader: list, x: torch.Tensor) -> tuple[Any, ...]:
    """Fit from the same starting state every call (the builder's), then score
    ``x``; returns (logits, fitted prototypes, regenerated encoder weight)."""
    model.load_state_dict(state)
    model.fit(loader)
    return model(x), model.model.weight.detach().clone(), model.encoder.weight.detach().clone()


def _r13c_hd_disthd_fit_regen(training: bool) -> Built:
    from torchhd.classifiers import DistHD

    X, y = _r13c_hd_data(4, 8, 0.8)
    loader = [(X[i:i + 8], y[i:i + 8]) for i in range(0, 32, 8)]
    model = DistHD(5, 128, 4, regen_freq=2, regen_rate=0.04, epochs=4, lr=0.5)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return _r13c_disthd_fit, (model, state, loader, torch.randn(6, 5)), {}


def _r13c_hd_onlinehd_empty_class(training: bool) -> Built:
    from torchhd.classifiers import OnlineHD

    X, y = _r13c_hd_data(3, 8, 2.0)  # classes 0..2 only; the model has 4
    model = OnlineHD(5, 128, 4, epochs=2, lr=0.5)
    model.fit([(X[i:i + 8], y[i:i + 8]) for i in range(0, 24, 8)])
    return model, (torch.randn(6, 5),), {}


def _r13c_hd_sdm_read(training: bool) -> Built:
    import torchhd
    from torchhd.memory import SparseDistributed

    sdm = SparseDistributed(40, 64, 16, requires_grad=True)  # threshold 26 (binom.ppf)
    keys = sdm.keys.detach()[:6].clone()
    sdm.write(keys, torchhd.random(6, 16))
    flip = torch.rand(keys.shape) < 0.1  # queries: the stored keys with ~10% of the signs flipped
    query = torch.where(flip, -keys, keys)
    return sdm.read, (query,), {}


def _r13c_hd_cleanup_threshold(training: bool) -> Built:
    import torchhd

    memory = torchhd.random(8, 128)
    query = memory[3] * torch.where(torch.rand(128) < 0.2, -1.0, 1.0)  # item 3, 20% noise
    return torchhd.cleanup, (query, memory), {"threshold": 0.3}


def _r13c_hd_ngrams_control(training: bool) -> Built:
    import torchhd

    return torchhd.ngrams, (torchhd.random(7, 64),), {"n": 3}


# --- rows -----------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r13c_hb_sgd_modified_huber_all_zero", *HUMMINGBIRD,
            "hummingbird.ml.convert(SGDClassifier(loss='modified_huber', max_iter=50, tol=None, random_state=0)"
            ".fit(X (30, 4), y 3 classes), 'torch').model(x (6, 4)), two rows with every decision value < -1",
            ("hummingbird",), _r13c_hb_sgd_modified_huber, modes=INFERENCE, notes=HB_NO_GRAD,
            patterns="`Executor.forward` (_executor.py:68-125: `with torch.no_grad()`, an assert on the input "
            "count, `isinstance`/dtype tests, the operator loop) -> `LinearModel.forward` "
            "(operator_converters/_linear_implementations.py:43-86): `addmm`, `argmax` and `index_select` of "
            "the classes, `clip`, `+= 1`, `/= 2` in place, `prob_sum = sum(dim=1)`, `all_zero = prob_sum == 0`, "
            "`if torch.any(all_zero):` (a tensor in a Python `if`; taken: rows 0 and 3) -> `output[all_zero, :] "
            "= 1` and `prob_sum[all_zero] = len(self.classes)` (boolean-mask setitems), `output /= "
            "prob_sum.view(...)`; returns (labels, probabilities)",
        ),
        Row(
            "r13c_hb_knn_distance_weights", *HUMMINGBIRD,
            "hummingbird.ml.convert(KNeighborsClassifier(n_neighbors=3, weights='distance').fit(X (30, 4), y), "
            "'torch', extra_config={'batch_size': 6}).model(x (6, 4)), rows 0 and 3 equal to training points",
            ("hummingbird",), _r13c_hb_knn_distance, modes=INFERENCE, notes=HB_NO_GRAD,
            patterns="`Executor.forward` (no_grad, input checks) -> `KNeighborsModel.forward` "
            "(operator_converters/_kneighbors_implementations.py:95-131): `torch.cdist(..., compute_mode="
            "'donot_use_mm_for_euclid_dist')`, `torch.topk(k, 3, largest=False)` whose indices gather the "
            "training labels (`index_select`), `d = pow(d, -1)` (inf for the two exact matches), `inf_mask = "
            "isinf(d)`, `inf_row = torch.any(inf_mask, axis=1)`, `d[inf_row] = inf_mask[inf_row].float()` "
            "(boolean-mask read and setitem; 2 rows selected), `scatter_add` of the weights into the "
            "(batch_size, 3) buffer, `torch.where(proba_sum == 0, ...)`, normalisation, `argmax`",
        ),
        Row(
            "r13c_hb_string_label_encoder", *HUMMINGBIRD,
            "hummingbird.ml.convert(LabelEncoder().fit(['cat', 'dog', 'emu', 'gnu', 'yak']), 'torch').model("
            "numpy str array of 8 words)",
            ("hummingbird",), _r13c_hb_string_label_encoder, modes=INFERENCE,
            notes=HB_NO_GRAD + "; the input is the NumPy string array a user passes (no floating tensor), "
            "which the executor turns into int32 codes",
            patterns="`Executor.forward` (_executor.py: `type(input_) is np.ndarray`, the string-dtype test, "
            "`assert self.max_string_length is not None`, `from_strings_to_ints` (NumPy `|S8` view as int32), "
            "`torch.from_numpy`) -> `StringLabelEncoder.forward` (operator_converters/"
            "_label_encoder_implementations.py:46-52): `x.view(-1, 1, 2)`, `torch.prod(condition_tensors == x, "
            "dim=2).nonzero(as_tuple=True)[1]` (a length from the data: the number of matches), `assert "
            "result.shape[0] == x.shape[0]` (the data-sized length in an assert whose message formats the "
            "tensors)",
        ),
        Row(
            "r13c_hb_gbdt_pipeline_tree_trav_control", *HUMMINGBIRD,
            "hummingbird.ml.convert(make_pipeline(SimpleImputer(), StandardScaler(), GradientBoostingClassifier("
            "n_estimators=5, max_depth=3, random_state=0)).fit(X (30, 4) with 10% NaN, y 3 classes), 'torch', "
            "extra_config={'tree_implementation': 'tree_trav'}).model(x (6, 4) with two NaN)",
            ("hummingbird",), _r13c_hb_gbdt_pipeline_control, modes=INFERENCE,
            notes=HB_NO_GRAD + "; the tree strategies compare against thresholds and gather by index, with no "
            "differentiable path to the input in any case",
            patterns="control: no tensor value reaches Python. `Executor.forward` (no_grad, input checks, the "
            "operator loop over 3 operators) -> `SimpleImputer.forward` (_imputer_implementations.py:45: "
            "`torch.where(torch.isnan(x), replace_values.expand(...), x)`, three-argument) -> `Scaler.forward` "
            "(`x - offset`, `* scale`) -> `TreeTraversalGBDTImpl` (_tree_implementations.py:276-305: "
            "`_expand_indexes`, a Python loop over the fixed max depth 3 with `index_select` of feature ids, "
            "thresholds, lefts and rights at node indices computed from the data, `torch.gather(x, 1, ...)`, "
            "three-argument `torch.where(le(...), lefts, rights)`, offsets; `index_select` of the leaf values; "
            "`aggregation`: view, `.sum(2)` per class, `ApplySoftmaxBasePredictionPostTransform` (`x += "
            "base_prediction` in place, softmax); `argmax`)",
        ),
        Row(
            "r13c_hd_disthd_fit_regen", *TORCHHD,
            "wrapper: DistHD(5, 128, 4, regen_freq=2, regen_rate=0.04, epochs=4, lr=0.5): load_state_dict(the "
            "builder's state), .fit(4 batches of (8, 5) points around 4 close centres, labels), then model(x (6, "
            "5)); returns (logits, prototypes, encoder weight)",
            ("torchhd",), _r13c_hd_disthd_fit_regen, modes=INFERENCE,
            notes="inference only: `Centroid.add_online` is `@torch.no_grad()` and the regeneration writes "
            "`.data` in place (`zero_()`, `normal_()`), and the encoder and prototypes are Parameters with "
            "requires_grad=False, so nothing carries a gradient; the regeneration draws `normal_()` from "
            "torch's global generator (seeded by the harness before the call); the wrapper restores the "
            "builder's state first so every call fits from the same start. Library bug avoided by the data: "
            "when every batch is predicted right at a regeneration epoch, `regen_score` returns the int 0 for "
            "each and `torch.topk(0, ...)` raises TypeError (classifiers.py:477-482, 496-497); the 4 close "
            "centres keep some batch wrong",
            patterns="`DistHD.fit` (classifiers.py:461-486): `for epoch_idx in trange(4, desc='fit')` (tqdm "
            "writes a progress bar to stderr), per batch `Projection` encoder (`F.linear`, `as_subclass("
            "MAPTensor)`) and `Centroid.add_online` (models.py:132-150: `cosine_similarity` with MAP's `if "
            "torch.isclose(magnitude, 0).any(): warnings.warn(...)` (taken in the first batches, while some "
            "prototypes are still zero), `argmax`, `is_wrong = target != pred`, `if is_wrong.sum().item() == 0: "
            "return` (taken in 3 of the 16 batch updates), boolean-mask selections of logits/input/target/pred "
            "(sizes from the data), `gather`s, two `index_add_`); at epochs 1 and 3 `regen_score` per batch "
            "(classifiers.py:488-530: `topk(k=2)`, `if is_wrong.sum().item() == 0: return 0` (taken in 2 of the "
            "8 calls: an int returned), boolean masks, `weight[labels[partial]]` gathers, sums), `scores += "
            "...` (an int plus tensors), `torch.topk(scores, 6, largest=False).indices` selecting the "
            "dimensions whose prototype columns "
            "are zeroed and encoder rows redrawn with `normal_()` in place",
        ),
        Row(
            "r13c_hd_onlinehd_forward_empty_class", *TORCHHD,
            "torchhd.classifiers.OnlineHD(5, 128, 4, epochs=2, lr=0.5) fitted in the builder on 24 points of "
            "classes 0-2 only (class 3's prototype stays zero), called on x (6, 5)",
            ("torchhd",), _r13c_hd_onlinehd_empty_class,
            notes="fitted in the builder (under the build seed); in training x requires grad and gets one "
            "through the Sinusoid encoder (the encoder and prototypes are Parameters with requires_grad=False)",
            patterns="`Classifier.forward` (classifiers.py:88-89) -> `Sinusoid.forward` (embeddings.py:933-937: "
            "`F.linear`, `cos(projected + bias) * sin(projected)`, `as_subclass(MAPTensor)`) -> "
            "`Centroid.forward` (models.py:97-100) -> `functional.cosine_similarity` -> "
            "`MAPTensor.cosine_similarity` (tensors/map.py:374-399: sums, `sqrt`, the outer product of "
            "magnitudes, `if torch.isclose(magnitude, torch.zeros_like(magnitude), equal_nan=True).any():` "
            "(a tensor in a Python `if`; taken every call: the empty class's prototype has norm 0) -> "
            "`import warnings; warnings.warn('The norm of a vector is nearly zero ...')`, `clamp`, "
            "`dot_similarity` / magnitude); every op dispatched through the `MAPTensor` subclass's "
            "`__torch_function__`",
        ),
        Row(
            "r13c_hd_sdm_read_nonzero", *TORCHHD,
            "torchhd.memory.SparseDistributed(40, 64, 16, requires_grad=True) with 6 values written in the "
            "builder, .read(query (6, 64): the 6 written keys with ~10% of signs flipped)",
            ("torchhd",), _r13c_hd_sdm_read, frozen=("0",),
            notes="in training the memory's `values` Parameter (requires_grad=True) gets the gradient through "
            "the gathered `values[from_indices]`; the query is frozen (it only reaches the output through a "
            "`>=` comparison, so it would get no gradient)",
            patterns="`SparseDistributed.read` (memory.py:112-140): `query.dim()` test, `similarity = query @ "
            "keys.T`, `is_active = similarity >= self.threshold` (threshold 26), `to_indices, from_indices = "
            "is_active.nonzero().T` (a length from the data: the number of active addresses, 7 here, "
            "unpacked into two tensors), `torch.zeros`, `read.index_add_(0, to_indices, "
            "self.values[from_indices])` (an index gather), `as_subclass(MAPTensor)`",
        ),
        Row(
            "r13c_hd_cleanup_threshold", *TORCHHD,
            "torchhd.cleanup(query (128,): item 3 of memory with 20% of signs flipped, memory = "
            "torchhd.random(8, 128), threshold=0.3)",
            ("torchhd",), _r13c_hd_cleanup_threshold, frozen=("0",),
            notes="in training the memory requires grad and gets it through the selected row; the query is "
            "frozen (it only chooses the row, through `max`'s index)",
            patterns="`functional.cleanup` (functional.py:1499-1536): `ensure_vsa_tensor` (`isinstance`, "
            "dtype tests, `as_subclass`), `cosine_similarity` (MAP: the `if torch.isclose(magnitude, 0)"
            ".any(): warnings.warn` test, not taken), `value, index = torch.max(scores, dim=-1)`, `if "
            "value.item() < threshold: raise KeyError(...)` (a tensor value read into Python, guarding a raise; "
            "not taken: 0.59 > 0.3), `torch.index_select(memory, -2, index)` (an index from the data)",
        ),
        Row(
            "r13c_hd_ngrams_control", *TORCHHD,
            "torchhd.ngrams(torchhd.random(7, 64), n=3)",
            ("torchhd",), _r13c_hd_ngrams_control,
            notes="in training the symbol hypervectors require grad and get it through the binds",
            patterns="control: no tensor value reaches Python. `functional.ngrams` (functional.py:1284-1323): "
            "`ensure_vsa_tensor`, `permute` (`MAPTensor.permute`: `torch.roll`) of sliced windows, a Python "
            "loop over n-1 = 2 `bind`s (`MAPTensor.bind`: `torch.mul`), `multiset` (`sum(dim=-2)`); MAPTensor "
            "subclass dispatch throughout",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round thirteen (c)")
