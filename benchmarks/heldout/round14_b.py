"""Held-out round fourteen (r14b): pykeen.

Chosen by reading the library's source, written down in ROUND14.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk by the calls); a row whose
``modes`` is one mode only says why in its ``notes``.  Every knowledge graph is
a 16-triple, 8-entity, 3-relation graph built in memory with
``TriplesFactory.from_labeled_triples``.

pykeen's data-dependent code sits in the training-side helpers and in the
representations, not in the interaction functions.  The margin losses'
``process_lcwa_scores`` turn the multi-hot label matrix into pairs with
``(labels == 1).nonzero()`` and boolean-mask selections whose sizes depend on
how many positives each row has; the adversarial losses' ``process_slcwa_scores``
re-densify filtered negatives with a boolean-mask setitem
(``negative_scores_[batch_filter] = negative_scores``), build a fill mask with
``fill_mask.all(dim=1)`` and write ``-inf`` through it.  The negative samplers
read ``mapped_triples.max().item()`` at construction; the Bernoulli sampler
draws ``torch.randint(size=(mask.sum(),))`` (a 0-d tensor as a size) and writes
the replacements through boolean masks, and the Python-set filterer sends the
whole negative batch to Python with ``.tolist()`` and tests tuple membership in
a ``set``.  R-GCN's representation drops edges with a ``torch.rand`` boolean
mask in training, loops ``for r in range(edge_types.max().item() + 1)`` with
``if mask.any():`` around the per-relation edge weights (inverse in-degree by
``torch.unique(return_counts)``), builds sparse stacked adjacency matrices
and caches the enriched embeddings on the module (so the wrapper calls
``post_parameter_update()``, as the training loop does after each step).
Every non-``Embedding`` representation (NodePiece's tokenizations, combined
representations) runs ``indices.unique(return_inverse=True)`` in
``Representation.forward``; ``EmbeddingBagRepresentation`` adds ``torch.isin``
masks, ``unique(return_counts=True)`` and a boolean-mask setitem of CSR
offsets.  Filtered rank-based evaluation (``@torch.inference_mode()``) finds
the known positives with ``(entity_filter & relation_filter).nonzero()``,
writes NaNs through them, tests ``if (...).any(): logger.warning``, and turns
the ranks into numpy metrics.  The control is TransE's ``score_hrt``: plain
``Embedding`` lookups (``unique=False``) and a norm.

Importing pykeen sets the ``pykeen`` logger's level to INFO and creates empty
directories under ``$PYSTOW_HOME`` (default ``~/.data``)/pykeen (see
ROUND14.md); torch's process state is left alone.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

PYKEEN = ("pykeen", "1.11.1")
PK_MODULES = ("pykeen",)

# (head, relation, tail): 8 entities, 3 relations, 16 triples; e0 and e2 have several r0 tails and
# (e1, r1) has two tails, so filtering and the Bernoulli probabilities have something to do.
_R14B_TRIPLES = (
    ("e0", "r0", "e1"), ("e0", "r0", "e2"), ("e0", "r0", "e3"), ("e1", "r0", "e2"),
    ("e2", "r0", "e3"), ("e2", "r0", "e4"), ("e3", "r0", "e5"), ("e4", "r0", "e6"),
    ("e1", "r1", "e0"), ("e1", "r1", "e5"), ("e5", "r1", "e6"), ("e6", "r1", "e7"),
    ("e7", "r2", "e0"), ("e3", "r2", "e1"), ("e5", "r2", "e2"), ("e6", "r2", "e4"),
)


def _r14b_factory(create_inverse_triples: bool = False) -> Any:
    import numpy
    from pykeen.triples import TriplesFactory

    return TriplesFactory.from_labeled_triples(
        numpy.array(_R14B_TRIPLES, dtype=str), create_inverse_triples=create_inverse_triples
    )


# --- wrappers -------------------------------------------------------------------------


def _r14b_rgcn_score_step(model: Any, hrt_batch: torch.Tensor) -> torch.Tensor:
    """``model.score_hrt(hrt_batch)``, then ``model.post_parameter_update()`` as pykeen's training loop
    does after each step (it drops R-GCN's cached enriched embeddings, so the next call recomputes)."""
    scores = model.score_hrt(hrt_batch)
    model.post_parameter_update()
    return scores


def _r14b_filtered_rank_evaluation(evaluator: Any, model: Any, mapped_triples: torch.Tensor,
                                   filter_triples: torch.Tensor) -> dict[str, float]:
    """``evaluator.evaluate(model, mapped_triples, batch_size=4, additional_filter_triples=...)`` without a
    progress bar, as a flat dict of the metric values."""
    result = evaluator.evaluate(
        model=model, mapped_triples=mapped_triples, batch_size=4, use_tqdm=False,
        additional_filter_triples=[filter_triples],
    )
    return result.to_flat_dict()


# --- builders -------------------------------------------------------------------------


def _r14b_pk_margin_ranking_lcwa(training: bool) -> Built:
    from pykeen.losses import MarginRankingLoss

    predictions = torch.randn(4, 8)
    labels = torch.zeros(4, 8)
    labels[0, [1, 2, 3]] = 1.0
    labels[1, 2] = 1.0
    labels[2, [3, 4]] = 1.0
    labels[3, 5] = 1.0
    return MarginRankingLoss(margin=1.0).process_lcwa_scores, (predictions, labels), {}


def _r14b_pk_nssa_slcwa_filtered(training: bool) -> Built:
    from pykeen.losses import NSSALoss

    batch_filter = torch.tensor([
        [True, True, False, True, True],
        [True, False, True, True, False],
        [False, False, False, False, False],  # every negative filtered: the no_inf_rows branch
        [True, True, True, True, True],
    ])
    positive_scores = torch.randn(4, 1)
    negative_scores = torch.randn(int(batch_filter.sum()))  # the sampler's filtered negatives, (12,)
    loss = NSSALoss(margin=3.0, adversarial_temperature=0.5)
    return loss.process_slcwa_scores, (positive_scores, negative_scores), {"batch_filter": batch_filter}


def _r14b_pk_bernoulli_sampler_filtered(training: bool) -> Built:
    from pykeen.sampling import BernoulliNegativeSampler

    factory = _r14b_factory()
    sampler = BernoulliNegativeSampler(
        mapped_triples=factory.mapped_triples, num_negs_per_pos=4, filtered=True, filterer="python-set"
    )
    positive_batch = factory.mapped_triples[torch.tensor([0, 3, 5, 8, 9, 12])]
    return sampler.sample, (positive_batch,), {}


def _r14b_pk_rgcn_score_hrt(training: bool) -> Built:
    from pykeen.models import RGCN

    factory = _r14b_factory()
    model = RGCN(
        triples_factory=factory, embedding_dim=8, num_layers=2, decomposition="bases",
        decomposition_kwargs=dict(num_bases=2), edge_weighting="inverse_in_degree", edge_dropout=0.4,
        self_loop_dropout=0.2,
    )
    model.train(training)
    hrt_batch = factory.mapped_triples[torch.tensor([0, 4, 7, 9, 13, 15])]
    return _r14b_rgcn_score_step, (model, hrt_batch), {}


def _r14b_pk_nodepiece_score_t(training: bool) -> Built:
    from pykeen.models import NodePiece

    factory = _r14b_factory(create_inverse_triples=True)
    model = NodePiece(triples_factory=factory, tokenizers="RelationTokenizer", num_tokens=3, embedding_dim=8,
                      interaction="DistMult")
    hr_batch = torch.tensor([[0, 0], [2, 0], [0, 1], [1, 2], [5, 4]])  # repeated head 0: unique dedups it
    return model.score_t, (hr_batch,), {}


def _r14b_pk_embedding_bag(training: bool) -> Built:
    from pykeen.nn.representation import EmbeddingBagRepresentation

    # (index, token) pairs: 6 indices with 1 to 3 of 7 tokens each
    assignment = torch.tensor([
        [0, 0], [0, 3], [1, 1], [2, 2], [2, 4], [2, 6], [3, 0], [4, 5], [4, 1], [5, 6], [5, 2],
    ])
    representation = EmbeddingBagRepresentation(assignment=assignment, shape=4, mode="mean")
    indices = torch.tensor([[2, 0, 4], [2, 5, 1]])  # index 2 twice, 3 never asked
    return representation, (indices,), {}


def _r14b_pk_rank_evaluator(training: bool) -> Built:
    from pykeen.evaluation import RankBasedEvaluator
    from pykeen.models import DistMult

    factory = _r14b_factory()
    model = DistMult(triples_factory=factory, embedding_dim=8)
    mapped = factory.mapped_triples
    evaluation = mapped[torch.tensor([0, 2, 5, 8, 10, 12, 14])]
    return _r14b_filtered_rank_evaluation, (RankBasedEvaluator(filtered=True), model, evaluation, mapped), {}


def _r14b_pk_transe_control(training: bool) -> Built:
    from pykeen.models import TransE

    factory = _r14b_factory()
    model = TransE(triples_factory=factory, embedding_dim=8, scoring_fct_norm=2)
    return model.score_hrt, (factory.mapped_triples[:6],), {}


# --- rows -----------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r14b_pk_margin_ranking_lcwa_pairs", *PYKEEN,
            "pykeen.losses.MarginRankingLoss(margin=1.0).process_lcwa_scores(predictions (4, 8), labels (4, 8) "
            "multi-hot)",
            PK_MODULES, _r14b_pk_margin_ranking_lcwa,
            frozen=("1",),
            notes="LCWA: each row is one (h, r) pair scored against all 8 tails; rows have 3, 1, 2 and 1 positives, "
            "so 7 positive rows and 7 * 7 = 49 (positive, negative) pairs; the labels are 0/1 data, frozen",
            patterns="`if label_smoothing: raise`, `_raise_on_weights`; `repeat_rows = (labels == 1)"
            ".nonzero()[:, 0]` (data-sized), `labels[repeat_rows] == 0` mask, `predictions[repeat_rows]"
            "[labels_negative]` (boolean-mask selection, data-sized), `(labels[repeat_rows] == 0).nonzero()`, "
            "`predictions[labels == 1][repeat_true_labels]`; relu(neg - pos + margin), mean",
        ),
        Row(
            "r14b_pk_nssa_slcwa_filtered_negatives", *PYKEEN,
            "pykeen.losses.NSSALoss(margin=3.0, adversarial_temperature=0.5).process_slcwa_scores(positive_scores "
            "(4, 1), negative_scores (12,) filtered, batch_filter=(4, 5) bool)",
            PK_MODULES, _r14b_pk_nssa_slcwa_filtered,
            notes="self-adversarial negative sampling loss (RotatE) on negatives the sampler has already "
            "filtered: 12 of 20 kept, row 2 has every negative filtered (the `no_inf_rows` fix keeps it finite); "
            "the adversarial weights are detached, so gradients flow through the loss terms only",
            patterns="`_raise_on_weights`, `if label_smoothing: raise`; positive term logsigmoid; "
            "`prepare_negative_scores_for_softmax`: `zeros_like(batch_filter)`, `negative_scores_[batch_filter] = "
            "negative_scores` (boolean-mask setitem of a data-sized tensor), `fill_mask & ~fill_mask.all(dim=1, "
            "keepdim=True)`, `negative_scores_[fill_mask] = -inf` (mask setitem); `assert ndimension() == 2`; "
            "detached softmax weights, `masked_fill(~isfinite)`, weighted sum, mean",
        ),
        Row(
            "r14b_pk_bernoulli_sampler_python_set_filter", *PYKEEN,
            "pykeen.sampling.BernoulliNegativeSampler(mapped_triples=(16, 3), num_negs_per_pos=4, filtered=True, "
            "filterer='python-set').sample(positive_batch (6, 3))",
            PK_MODULES, _r14b_pk_bernoulli_sampler_filtered,
            modes=("inference",),
            notes="inference only: a sampler of integer triple ids, nothing floating reaches the output; returns "
            "(negative_batch (6, 4, 3) int64, filter mask (6, 4) bool); draws random numbers (the harness seeds "
            "each call with CALL_SEED)",
            patterns="construction (build): `mapped_triples.max().item() + 1`, `torch.unique(dim=0, "
            "return_counts)`, per-relation masks; call: per-triple head-corruption probability gather, "
            "`torch.rand < p` head mask, `repeat_interleave`, for head and tail: `random_replacement_(selection="
            "mask, size=mask.sum())` -> `torch.randint(high, size=(0-d tensor,))` (data-dependent size), "
            "`replacement >= batch[mask, index]` (boolean-mask selection), `batch[mask, index] = replacement` "
            "(boolean-mask setitem); `PythonSetFilterer.contains`: `batch.view(-1, 3).tolist()`, "
            "`tuple(triple) in self.triples` per negative (Python set membership), `torch.as_tensor(list of "
            "bools)`, `~`",
        ),
        Row(
            "r14b_pk_rgcn_bases_edge_dropout_score_hrt", *PYKEEN,
            "wrapper: pykeen.models.RGCN(triples_factory, embedding_dim=8, num_layers=2, decomposition='bases', "
            "num_bases=2, edge_weighting='inverse_in_degree', edge_dropout=0.4).score_hrt(hrt (6, 3)), then "
            "model.post_parameter_update()",
            PK_MODULES, _r14b_pk_rgcn_score_hrt,
            notes="the representation caches the enriched embeddings on the module (`cache=True` is the model's "
            "default), so the wrapper calls `post_parameter_update()` after scoring as pykeen's training loop "
            "does after each step; without it a second training call would reuse the first call's freed graph. "
            "Training mode drops edges (`torch.rand`, CALL_SEED) and self-loop dropout; hrt are ids, so the "
            "gradients are on the parameters; the build logs pykeen's 'No random seed is specified' warning",
            patterns="`RGCNRepresentation._real_forward_all`: `if self.enriched_embeddings is not None` (cache "
            "test); training: `edge_keep_mask = torch.rand(E) > 0.4`, `sources[edge_keep_mask]` etc. "
            "(boolean-mask selections, data-sized edge lists); `sources.numel() > 0`, `for r in "
            "range(edge_types.max().item() + 1)`, `mask = edge_types == r`, `if mask.any():` (tensor into `if`), "
            "`edge_weights[mask] = InverseInDegreeEdgeWeighting(sources[mask], targets[mask])` "
            "(`torch.unique(return_counts, return_inverse)`, boolean-mask setitem); per layer: self-loop Linear + "
            "Dropout, forward and backward `BasesDecomposition`: `adjacency_tensor_to_stacked_matrix` "
            "(`torch.sparse_coo_tensor` from data-sized indices; torch warns once per process that sparse "
            "invariant checks are disabled), vertical stacking: `torch.spmm`, bases einsum; "
            "`x[indices]`; DistMult; `post_parameter_update` walks `self.modules()`",
        ),
        Row(
            "r14b_pk_nodepiece_relation_tokens_score_t", *PYKEEN,
            "pykeen.models.NodePiece(triples_factory (with inverse triples), tokenizers='RelationTokenizer', "
            "num_tokens=3, embedding_dim=8, interaction='DistMult').score_t(hr_batch (5, 2))",
            PK_MODULES, _r14b_pk_nodepiece_score_t,
            notes="entities are bags of up to 3 of their (relation, direction) tokens, padded; the tokenization "
            "(a `torch.randperm` per entity and a tqdm bar) happens in the build; head 0 appears twice in the "
            "batch, so `unique` deduplicates it; hr are ids, so training's gradients are on the token embeddings",
            patterns="`score_t`: `if slice_size and ...`, `_check_slicing`, `unsqueeze`; heads: `NodePieceRepresentation` "
            "-> `Representation.forward`: `unique=True` (inferred for non-Embedding) -> `indices.unique("
            "return_inverse=True)` (data-sized), `TokenizationRepresentation`: `assignment[indices]` gather, "
            "vocabulary Embedding, `ConcatAggregationCombination` (mean over tokens), `x[inverse]`; tails: "
            "`indices=None` path (all 8 entities); relations: Embedding; DistMult broadcast product; "
            "`_repeat_when_missing_representations`",
        ),
        Row(
            "r14b_pk_embedding_bag_representation", *PYKEEN,
            "pykeen.nn.representation.EmbeddingBagRepresentation(assignment (11, 2), shape=4, mode='mean')"
            "(indices (2, 3))",
            PK_MODULES, _r14b_pk_embedding_bag,
            notes="6 indices over 7 tokens (1 to 3 tokens each); the 6 asked indices hold 4 distinct ones "
            "(index 2 twice); indices are ids, so training's gradients are on the EmbeddingBag weight",
            patterns="`Representation.forward` (`unique=False` here); `_plain_forward`: `indices.unique("
            "return_inverse=True)` (data-sized), `torch.isin(assignment[:, 0], unique_indices)` -> "
            "`self.assignment[mask]` (boolean-mask selection, data-sized), `selection[:, 0].unique("
            "return_counts=True)` (data-sized), `torch.isin(..., assume_unique=True)` -> `offsets[mask] = bag_size` "
            "(boolean-mask setitem), cumsum CSR offsets, `nn.EmbeddingBag(sub_indices, offsets)`, `[inverse]` "
            "gather, `view`",
        ),
        Row(
            "r14b_pk_rank_based_evaluator_filtered", *PYKEEN,
            "wrapper: pykeen.evaluation.RankBasedEvaluator(filtered=True).evaluate(DistMult(triples_factory, "
            "embedding_dim=8), mapped_triples (7, 3), batch_size=4, use_tqdm=False, additional_filter_triples="
            "[all 16]).to_flat_dict()",
            PK_MODULES, _r14b_pk_rank_evaluator,
            modes=("inference",),
            notes="inference only: `evaluate` is `@torch.inference_mode()` and ranks are counts, so the metrics "
            "have no gradient path; returns a dict of Python floats (head, tail and both sides x optimistic/"
            "realistic/pessimistic x every rank-based metric); `evaluate` puts the model in eval mode and leaves "
            "it there",
            patterns="`prepare_filter_triples`: `torch.cat([...]).unique(dim=0)` (data-sized); "
            "`determine_maximum_batch_size`, `model.eval()`, tqdm (disabled); torch_max_mem's "
            "`maximize_memory_utilization` (hash of the kwargs with `id(evaluator)`, a per-hash cache of the "
            "working batch size, a logged warning about CPU tensors, OOM retry loop) around "
            "`@torch.inference_mode()` `evaluate`: `evaluator.clear()`, Python loop over `mapped_triples.split(4)` "
            "and the two sides; per batch and side: `model.predict` -> `predict_h`/`predict_t` (`self.eval()`, "
            "DistMult scores of all 8 entities), `create_sparse_positive_filter_`: `(entity_filter & "
            "relation_filter).nonzero()` (data-sized), index gather; true-score gather; `filter_scores_`: NaN "
            "setitem by the positive indices, `if ((scores != scores).sum(dim=1) == num_entities).any(): "
            "logger.warning`; true-score setitem; `process_scores_`: `Ranks.from_scores` (comparisons, sums), "
            "`.detach().cpu().numpy()` appended to Python lists; `finalize`: numpy concatenation per side and "
            "rank type and every rank-based metric in numpy (expectations, variances, z-scores), `to_flat_dict`",
        ),
        Row(
            "r14b_pk_transe_score_hrt_control", *PYKEEN,
            "pykeen.models.TransE(triples_factory, embedding_dim=8, scoring_fct_norm=2).score_hrt(hrt (6, 3))",
            PK_MODULES, _r14b_pk_transe_control,
            notes="control: plain Embedding lookups (`unique=False` for Embedding, no normalizer, regularizer "
            "or dropout) and the TransE distance; hrt are ids, so training's gradients are on the embeddings",
            patterns="control: `_get_representations` (Python list comprehensions over the representation "
            "modules), `Embedding._plain_forward` (`nn.Embedding(indices)`), `TransEInteraction.score_hrt` "
            "(`-(h + r - t).norm(p=2)`), Python shape tests only",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round fourteen (b)")
