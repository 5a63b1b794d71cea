"""Held-out round thirteen (r13a): torcheval.

Chosen by reading the library's source, written down in ROUND13.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random inputs, nothing
downloaded, nothing written to disk); a row whose ``modes`` is one mode only
says why in its ``notes``.

torcheval 0.0.7 decorates almost every public functional metric and every
metric class's ``update``/``compute`` with ``@torch.inference_mode()``, so their
outputs are inference tensors with no gradient path: those rows are inference
only.  Two public functions are not decorated: ``bleu_score`` (its n-gram
``weights`` tensor gets a gradient) and ``aggregation.auc``; they are the rows
with a training mode.  Importing ``torcheval.metrics.functional`` applies
``@torch.jit.script`` to 19 private helpers at import time (the AUROC/AUPRC and
precision-recall-curve computes, the binned curves, accuracy's compute,
confusion matrix, f1's and MSE/R2's updates); no row here goes through any of
them, so every row's path is plain eager Python.

The data-dependent code read in torcheval: tensor tests guarding raises
(``perplexity``'s ``input.size(2) <= torch.max(_target)`` after a boolean-mask
filter, ``bleu_score``'s ``torch.min(possible_matches_by_order) == 0``, the
normalized-entropy range test ``input_max > 1.0 or input_min < 0.0``), a
0-d tensor comparison choosing a branch (BLEU's brevity penalty ``if input_len >
target_len``), boolean-mask selections with data-sized results (perplexity's
``probs[mask]``, precision's and recall's ``num_tp[mask]`` for macro/weighted
averages, ``RetrievalPrecision``'s ``input[indexes == i]``), boolean-mask
setitems (``reciprocal_rank``'s ``score[rank >= k] = 0.0``), degenerate-input
warnings (``if isnan_class.any():`` -> ``nonzero`` -> ``.tolist()`` ->
``logging.warning``), tensor membership tests (``if i in indexes``, ``1 not in
self.target[i]``) and ``len`` of data-sized tensors.  ``auc(x, y,
reorder=True)`` (a stable sort and a gather, shape-only Python tests) is the
control.
"""

from __future__ import annotations

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCHEVAL = ("torcheval", "0.0.7")


# --- wrappers -----------------------------------------------------------------------


def _r13a_retrieval_precision(input: torch.Tensor, target: torch.Tensor, indexes: torch.Tensor) -> torch.Tensor:
    """The documented metric-class use: a fresh ``RetrievalPrecision``, one ``update`` with query
    indexes, ``compute`` (made inside the call so that two calls on one build start from the same state)."""
    from torcheval.metrics import RetrievalPrecision

    metric = RetrievalPrecision(k=3, num_queries=4, avg="macro", empty_target_action="neg")
    return metric.update(input, target, indexes).compute()


def _r13a_windowed_normalized_entropy(inputs: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """A fresh ``WindowedBinaryNormalizedEntropy`` with a window of two updates, three updates (the
    window wraps), ``compute`` (lifetime and windowed values)."""
    from torcheval.metrics import WindowedBinaryNormalizedEntropy

    metric = WindowedBinaryNormalizedEntropy(num_tasks=2, max_num_updates=2)
    for step in range(inputs.shape[0]):
        metric.update(inputs[step], targets[step])
    return metric.compute()


# --- builders -----------------------------------------------------------------------


def _r13a_perplexity_ignore_index(training: bool) -> Built:
    from torcheval.metrics.functional import perplexity

    logits = torch.randn(2, 6, 10)
    target = torch.randint(0, 10, (2, 6))
    target[0, 4:] = -100  # padding: three positions ignored
    target[1, 5] = -100
    return perplexity, (logits, target), {"ignore_index": -100}


def _r13a_bleu_score_weights(training: bool) -> Built:
    from torcheval.metrics.functional import bleu_score

    candidates = ["the cat sat on the mat today", "a quick brown fox jumps over the dog"]
    references = [
        ["the cat is sitting on the mat today", "there is a cat on the mat today"],
        ["the quick brown fox jumped over the lazy dog"],
    ]
    weights = torch.tensor([0.4, 0.3, 0.2, 0.1])
    return bleu_score, (candidates, references), {"n_gram": 4, "weights": weights}


def _r13a_multiclass_recall_nan_warning(training: bool) -> Built:
    from torcheval.metrics.functional import multiclass_recall

    logits = torch.randn(12, 5)  # argmax hits class 4 three times
    target = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])  # class 4 never labelled
    return multiclass_recall, (logits, target), {"num_classes": 5, "average": None}


def _r13a_multiclass_precision_weighted(training: bool) -> Built:
    from torcheval.metrics.functional import multiclass_precision

    logits = torch.randn(12, 6)
    logits[:, 5] = -10.0  # class 5: never predicted and never labelled
    target = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3])
    return multiclass_precision, (logits, target), {"num_classes": 6, "average": "weighted"}


def _r13a_reciprocal_rank_topk(training: bool) -> Built:
    from torcheval.metrics.functional import reciprocal_rank

    scores = torch.randn(6, 8)
    target = torch.randint(0, 8, (6,))
    return reciprocal_rank, (scores, target), {"k": 4}


def _r13a_retrieval_precision_queries(training: bool) -> Built:
    import torcheval.metrics  # noqa: F401  (the wrapper's import is then a lookup)

    scores = torch.rand(14)
    target = torch.tensor([1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0])
    # query 0: 5 items, query 1: 4 items none relevant, query 2: no items, query 3: 5 items
    indexes = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3, 3])
    return _r13a_retrieval_precision, (scores, target, indexes), {}


def _r13a_windowed_normalized_entropy_build(training: bool) -> Built:
    import torcheval.metrics  # noqa: F401  (the wrapper's import is then a lookup)

    inputs = torch.rand(3, 2, 5)  # three updates of (num_tasks=2, 5) probabilities
    targets = (torch.rand(3, 2, 5) > 0.6).float()
    return _r13a_windowed_normalized_entropy, (inputs, targets), {}


def _r13a_auc_reorder(training: bool) -> Built:
    from torcheval.metrics.functional import auc

    x = torch.rand(2, 7)
    y = torch.randn(2, 7)
    return auc, (x, y), {"reorder": True}


# --- rows -------------------------------------------------------------------------

INFERENCE_MODE = ("inference only: the function is decorated `@torch.inference_mode()`, so its output is an "
                  "inference tensor with no gradient path")
CLASS_INFERENCE_MODE = ("inference only: the metric class's `update` and `compute` are decorated "
                        "`@torch.inference_mode()` (no gradient path)")


def _rows() -> list[Row]:
    return [
        Row(
            "r13a_te_perplexity_ignore_index", *TORCHEVAL,
            "torcheval.metrics.functional.perplexity(logits, target, ignore_index=-100); logits (2, 6, 10) randn, "
            "target (2, 6) int in 0..9 with three positions -100",
            ("torcheval",), _r13a_perplexity_ignore_index, modes=("inference",),
            notes=INFERENCE_MODE + "; target is integer; 9 of the 12 positions are kept by the mask",
            patterns="`_perplexity_input_check` (functional/text/perplexity.py:118-157): shape raises, `if "
            "ignore_index:` (a Python int) -> `deepcopy(target)`, `_target[_target.ne(-100)]` (boolean-mask "
            "selection, data-sized), `if input.size(2) <= torch.max(_target): raise` (a tensor test guarding a "
            "raise, `int(torch.max(...))` in its message); `_perplexity_update` (:66-107): softmax, "
            "`probs[mask]`, `target[mask]` (boolean-mask selections, 9 rows), `probs[:, target].diagonal()` (a "
            "(9, 9) gather), `torch.tensor(target.size(0))` (a count from the data's shape); exp(sum / count) "
            "`.double()`",
        ),
        Row(
            "r13a_te_bleu_score_weights", *TORCHEVAL,
            "torcheval.metrics.functional.bleu_score(candidates, references, n_gram=4, weights=w); two candidate "
            "sentences (7 and 8 words), references (two, one); w (4,) = (0.4, 0.3, 0.2, 0.1)",
            ("torcheval",), _r13a_bleu_score_weights,
            notes="candidates and references are Python strings; in training the n-gram weights require grad "
            "(the only floating input; the gradient is d BLEU / d w); candidate length 15 < reference length "
            "17, so the brevity-penalty `exp` branch runs",
            patterns="`_bleu_score_update` (functional/text/bleu.py:65-111): Python loops over the sentences, "
            "`str.split`, `Counter` n-grams (`_get_ngrams`), `input_len += len(...)` into 0-d tensors in place, "
            "`matches_by_order[len(ngram) - 1] += overlap[ngram]` (indexed in-place adds, one per overlapping "
            "n-gram), `possible_matches_by_order[i] += ...` under a Python test, `if "
            "torch.min(possible_matches_by_order) == 0: raise` (a tensor test guarding a raise); "
            "`_bleu_score_compute` (:114-135): `weights.size(0)` test, `log` precisions, `exp(sum(w * log p))`, "
            "`_calc_brevity_penalty` `if input_len > target_len:` (0-d tensor comparison choosing the branch)",
        ),
        Row(
            "r13a_te_multiclass_recall_nan_warning", *TORCHEVAL,
            "torcheval.metrics.functional.multiclass_recall(logits, target, num_classes=5, average=None); logits "
            "(12, 5) randn; target (12,) in 0..3 (class 4 never labelled, predicted three times)",
            ("torcheval",), _r13a_multiclass_recall_nan_warning, modes=("inference",),
            notes=INFERENCE_MODE + "; target is integer; `logging.warning` on the root logger (calls "
            "`logging.basicConfig()` the first time when the root has no handler) with class [4]",
            patterns="`_recall_update` (functional/classification/recall.py:156-181): shape raises, argmax, "
            "`assert isinstance(num_classes, int)`, three `scatter_(reduce='add')` counts, "
            "`target[input == target]` (boolean-mask selection, data-sized); `_recall_compute` (:184-215): "
            "`num_tp / num_labels`, `isnan_class = torch.isnan(recall)`, `if isnan_class.any():` (tensor bool, "
            "taken) -> `isnan_class.nonzero(as_tuple=True)[0]` (data-sized), `.tolist()` in an f-string, "
            "`logging.warning`, `nan_to_num`",
        ),
        Row(
            "r13a_te_multiclass_precision_weighted_mask", *TORCHEVAL,
            "torcheval.metrics.functional.multiclass_precision(logits, target, num_classes=6, average='weighted'); "
            "logits (12, 6) randn with column 5 = -10; target (12,) in 0..3",
            ("torcheval",), _r13a_multiclass_precision_weighted, modes=("inference",),
            notes=INFERENCE_MODE + "; target is integer; class 5 has neither labels nor predictions, so the "
            "mask keeps 5 of the 6 classes (the same input makes `multiclass_recall(average='weighted')` raise: "
            "a library bug, see ROUND13.md)",
            patterns="`_precision_update` (functional/classification/precision.py:115-139): shape raises, argmax, "
            "`target[input == target]` and `input[input != target]` (boolean-mask selections, data-sized) into "
            "`scatter_(reduce='add')`; `_precision_compute` (:142-177): `mask = (num_label != 0) | ((num_tp + "
            "num_fp) != 0)`, `num_tp[mask]`, `num_fp[mask]` (boolean-mask selections, 5 of 6), `average in (None, "
            "'None') and ...` (Python short-circuit, the NaN test not evaluated), `nan_to_num`, `torch.inner("
            "precision, num_label[mask] / num_label.sum())`",
        ),
        Row(
            "r13a_te_reciprocal_rank_topk_mask", *TORCHEVAL,
            "torcheval.metrics.functional.reciprocal_rank(scores, target, k=4); scores (6, 8) randn, target (6,) "
            "int in 0..7",
            ("torcheval",), _r13a_reciprocal_rank_topk, modes=("inference",),
            notes=INFERENCE_MODE + "; target is integer; ranks (3, 6, 5, 6, 5, 1): four of six are zeroed by "
            "the k=4 cut",
            patterns="`_reciprocal_rank_input_check` (functional/ranking/reciprocal_rank.py:50-63) ndim/shape "
            "raises; `gather` of the target scores, `torch.gt(...).sum(-1)` ranks, `reciprocal(rank + 1.0)`, `if k "
            "is not None:` -> `score[rank >= k] = 0.0` (boolean-mask setitem)",
        ),
        Row(
            "r13a_te_retrieval_precision_queries", *TORCHEVAL,
            "wrapper: `RetrievalPrecision(k=3, num_queries=4, avg='macro', empty_target_action='neg')"
            ".update(scores, target, indexes).compute()`; scores (14,) rand, target (14,) 0/1, indexes (14,) "
            "queries 0, 1, 3 (query 2 has no items, query 1 no relevant item)",
            ("torcheval",), _r13a_retrieval_precision_queries, modes=("inference",),
            notes=CLASS_INFERENCE_MODE + "; target and indexes are integer; per-query precisions "
            "(0.667, 0 ('neg'), nan (no items), 0.333), nanmean over the three defined (0.333); the builder imports "
            "torcheval.metrics so that the call does not time the import",
            patterns="`Metric.__init__` (`torch._C._log_api_usage_once`, `deepcopy` of the list states); "
            "`RetrievalPrecision.update` (ranking/retrieval_precision.py:121-145): input checks, `for i in "
            "range(4): if i in indexes:` (`Tensor.__contains__`: a tensor bool, 3 of 4 taken), `input[indexes == "
            "i]`, `target[indexes == i]` (boolean-mask selections, data-sized), `update_single_query`: `cat` with "
            "the empty state, `get_topk` (`min(k, size)` from the data-sized length, `topk`), gather; `compute` "
            "(:156-183): `if not len(self.target[i]):` (data-sized length), `elif 1 not in self.target[i]:` "
            "(tensor membership), `retrieval_precision(...)` (functional: `topk`, gather, sum, divided by k), "
            "`torch.cat`, `nanmean`",
        ),
        Row(
            "r13a_te_windowed_normalized_entropy", *TORCHEVAL,
            "wrapper: `WindowedBinaryNormalizedEntropy(num_tasks=2, max_num_updates=2)`, three `update(p, t)`, "
            "`compute()`; p (3, 2, 5) rand probabilities, t (3, 2, 5) 0/1 floats",
            ("torcheval",), _r13a_windowed_normalized_entropy_build, modes=("inference",),
            notes=CLASS_INFERENCE_MODE + "; three updates into a window of two (the window wraps); returns "
            "(lifetime, windowed) normalized entropies per task; the builder imports torcheval.metrics so that the "
            "call does not time the import",
            patterns="per update: `_binary_normalized_entropy_update` -> `_ne_input_check` "
            "(functional/classification/binary_normalized_entropy.py:120-152: shape/num_tasks raises, `input.max()`, "
            "`input.min()`, `if not from_logits and (input_max > 1.0 or input_min < 0.0): raise` (tensor bools "
            "in a Python `or` guarding a raise)), `binary_cross_entropy(reduction='none')`, weighted sums; "
            "in-place lifetime sums; column writes at a Python index `windowed_total_entropy[:, "
            "self.next_inserted] = ...` (window/normalized_entropy.py:169-178, index wraps mod 2); `compute` "
            "(:182-230): `if self.total_updates >= self.max_num_updates` (Python ints), `_baseline_update` "
            "(clamp, entropies), divisions",
        ),
        Row(
            "r13a_te_auc_reorder_control", *TORCHEVAL,
            "torcheval.metrics.functional.auc(x, y, reorder=True); x (2, 7) rand, y (2, 7) randn (two tasks)",
            ("torcheval",), _r13a_auc_reorder,
            notes="control: no tensor value reaches Python; in training x and y require grad (gradients through "
            "the sorted x and the gathered y)",
            patterns="`auc` (functional/aggregation/auc.py:69-104): `x.ndim > 1` -> `n_tasks = x.size(0)`; "
            "`_auc_update_input_check` (numel/shape/size Python tests); `_auc_compute`: numel tests, "
            "`torch.sort(x, dim=1, stable=True)`, `y.gather(1, idx)`, `torch.trapz(y, x)`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round thirteen (a)")
