"""Held-out round twenty-three (r23b): torch-rechub.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: vocabularies of 20 to 30 ids, 8-dimensional embeddings, 16-unit
MLPs, batches of 4 to 8, sequences of 5 or 6 ids; seeded random data made with
torch, nothing downloaded, nothing written to disk; the trainer rows run one or
two steps on an in-memory list of batches standing in for a ``DataLoader``); a
row whose ``modes`` is one mode only says why in its ``notes``.

torch-rechub 0.9.0 (package ``torch_rechub``) is a recommender-systems library:
feature descriptors (``basic/features.py``: ``SparseFeature``,
``SequenceFeature`` with mean/sum/concat pooling and ``shared_with`` tables,
``DenseFeature``), layers (``basic/layers.py``: ``EmbeddingLayer`` over a dict of
feature tensors, ``InputMask`` from padding ids, masked pooling, ``MLP`` with
BatchNorm, FM, CIN, cross networks, SENet, bilinear interaction,
``MultiInterestSA``, ``CapsuleNetwork`` dynamic routing, FFM/CEN, the HSTU
layers, AutoInt's interacting layer), ranking models (WideDeep, DeepFM, DCN,
DCNv2, DIN, DIEN, BST, EDCN, AFM, FiBiNet, DeepFFM, AutoInt), matching models
(DSSM, YoutubeDNN, YoutubeSBC, MIND, ComiRec SA/DR, GRU4Rec, SINE, NARM,
SASRec, STAMP), multi-task models (SharedBottom, ESMM, MMOE, PLE, AITM),
generative models (HSTU, HLLM, RQ-VAE, TIGER), losses (``basic/loss_func.py``),
numpy/sklearn metrics (``basic/metric.py``), trainers (``CTRTrainer``,
``MatchTrainer``, ``MTLTrainer``, ``SeqTrainer``, ``RQVAETrainer``) and utilities
(in-batch negative sampling, GradNorm/MetaBalance, HSTU position/time biases
and vocabulary masks, ONNX export, data preparation with pandas).

What each row's path holds, and THE DATA-DEPENDENT CODE on it (file:line
relative to the ``torch_rechub`` package):

* ``r23b_dien_forward``: ``DIEN.forward`` (models/ranking/dien.py:128-176) embeds
  the user, history, negative-history and target features through
  ``EmbeddingLayer.forward`` (basic/layers.py:78-133, a Python loop over the
  feature descriptors, ``InputMask`` 150-159), then per history feature:
  ``mask.sum(dim=1).cpu()`` (143), ``if has_hist.any()`` (147: a tensor's truth),
  boolean-mask gathers ``seq[has_hist]``/``seq_lens[has_hist]`` into
  ``pack_padded_sequence`` (148: CPU lengths whose values size the packed batch,
  torch/nn/utils/rnn.py:311-323), the GRU, ``pad_packed_sequence`` (150) and a
  boolean-mask write ``outs[has_hist] = unpacked`` (151); ``auxiliary``
  (111-126: boolean-mask gathers ``h[valid]`` (121), then ``if h.size(0) == 0``
  (122) on that data-dependent size); a second ``if has_hist.any()`` (163) with
  ``interest_extractor[has_hist, i]`` and ``h[has_hist] = h_valid`` (164-165);
  ``AUGRU.forward`` (48-66: ``masked_fill`` with -inf, softmax, ``if
  nan_rows.any()`` (57: a tensor's truth) guarding a boolean-mask write (58), a
  Python loop over the 5 steps of ``AUGRU_Cell``); the top ``MLP`` with ``Dice``
  (basic/activation.py:15-25).  One of the 6 users has an all-padding history.
* ``r23b_narm_forward``: ``NARM.forward`` (models/matching/narm.py:89-105) with no
  item feature scores every item: ``_compute_session_repr`` (47-65) counts the
  non-padding ids, ``.to("cpu").detach()`` (51) and passes them as the lengths of
  ``pack_padded_sequence`` (52: torch/nn/utils/rnn.py:311-323 ``as_tensor``,
  ``sort`` and ``_VF._pack_padded_sequence``, whose output size is the sum of the
  lengths), the GRU on the packed batch, ``pad_packed_sequence`` (56: padded to
  ``batch_sizes.size(0)``, the longest session, rnn.py:382), attention
  ``exp(q) * value_mask`` and an in-place ``/=`` (60-61).
* ``r23b_inbatch_nce_loss``: ``InBatchNCELoss.forward`` (basic/loss_func.py:207-244):
  logits by ``matmul``, ``log_softmax``, gather by ``targets``, ``mask = targets
  != ignore_index`` then ``if mask.any()`` (235: a tensor's truth) and
  ``loss = loss[mask]`` (236: a boolean-mask gather, data-dependent size); 2 of
  the 8 targets are the ignored id 0.
* ``r23b_rqvae_forward``: ``RQVAEModel.forward`` (models/generative/rqvae.py:501-522):
  encoder ``MLP``, ``ResidualVectorQuantizer.forward`` (352-398: a Python loop over
  2 ``VectorQuantizer`` stages), per stage ``VectorQuantizer.forward`` (212-274:
  ``if not self.initted and self.training`` (244, Python bools), squared
  distances, ``center_distance_for_constraint`` (198-210: ``max``/``min`` and
  ``assert amplitude > 0`` (208: a tensor's truth)), ``double()``,
  ``sinkhorn_algorithm`` (57-79: under ``@torch.no_grad``, ``exp``, in-place
  ``/=``, a Python loop of ``sk_iters`` iterations), ``if torch.isnan(Q).any() or
  torch.isinf(Q).any()`` (256: two tensor truths, guarding a print), ``argmax``,
  codebook ``Embedding``, MSE losses and the straight-through estimator), decoder
  ``MLP``.
* ``r23b_vocab_mask_apply``: ``VocabMask.apply_mask`` (utils/hstu_utils.py:196-222):
  ``clone``, ``masked_logits[..., ~self.mask] = -1e9`` (207: a boolean-mask
  ``index_put_``, data-dependent index count), ``dim``/``size`` checks of Python
  ints (212-217), ``masked_fill`` of out-of-range ids and ``scatter_`` (219-221).
* ``r23b_mtl_trainer_uwl_step``: ``MTLTrainer.train_one_epoch``
  (trainers/mtl_trainer.py:113-166) with uncertainty weighting (``"uwl"``) on an
  MMOE (models/multi_task/mmoe.py:39-58) over 2 batches: per-task ``BCELoss`` on
  ``y_preds[:, i]`` (121), ``isinstance(self.model, ESMM)`` (122), the UWL sum
  ``2 * loss_i * exp(-w_i) + w_i`` with ``clamp`` (127-131), ``RegularizationLoss``
  (basic/loss_func.py:34-68: Python loops over modules and parameters),
  ``backward``, Adam ``step``, ``total_loss += np.array([l.item() for l in
  loss_list])`` (159: every task loss to Python, every batch), ``print`` of the
  numpy mean losses (162), ``if self.loss_weight:`` (163, a ``ParameterList``'s
  length) and ``print`` of ``[w.item() for w in self.loss_weight]`` (164); tqdm.
* ``r23b_match_trainer_inbatch_step``: ``MatchTrainer.train_one_epoch``
  (trainers/match_trainer.py:105-176) with in-batch hard negatives on a STAMP
  (models/matching/stamp.py:55-91: ``torch.gather`` of the last valid id by the
  counted lengths, masked attention): ``user_tower``/``item_tower``, ``dim``/
  ``size`` tests of Python ints (122-129), ``inbatch_negative_sampling``
  (utils/match.py:104-147: a Python loop over the batch, ``row_scores[i] =
  float("-inf")``, ``topk``), ``gather_inbatch_logits`` (150-161),
  ``CrossEntropyLoss``, ``RegularizationLoss`` (basic/loss_func.py:34-68: Python
  loops over modules and parameters; all coefficients 0 so it returns 0.0),
  ``backward``, Adam ``step`` and ``loss.item()`` twice per batch (168-169).
* ``r23b_ctr_trainer_evaluate_din``: ``CTRTrainer.evaluate``
  (trainers/ctr_trainer.py:157-172): ``model.eval()``, ``no_grad``, ``DIN.forward``
  (models/ranking/din.py:38-55: ``EmbeddingLayer``, ``ActivationUnit`` target
  attention (77-93), ``MLP`` with ``Dice``) per batch, ``y.tolist()`` and
  ``y_pred.tolist()`` (170-171) and sklearn's ``roc_auc_score`` on the Python lists
  (172).

Controls (no tensor value reaches Python):

* ``r23b_mind_forward_control``: ``MIND.forward`` with ``dynamic_interest=True``
  (models/matching/mind.py:80-104): ``dynamic_interest_mask`` (17-36: ``sum``,
  ``log2``, ``floor``, ``clamp``, a comparison with ``arange``: a tensor mask, no
  Python value), ``user_tower`` (106-134), ``CapsuleNetwork.forward``
  (basic/layers.py:657-711: ``repeat``, ``torch.randn`` routing logits (679, from
  torch's generator, seeded before the call), 3 routing iterations (a Python
  constant) with a three-argument ``torch.where`` (686), squash), ``masked_fill``
  of inactive interests (98), ``argmax`` and advanced indexing (99-101).
* ``r23b_hstu_forward_control``: ``HSTUModel.forward``
  (models/generative/hstu.py:213-273): ``seq_len > self.max_seq_len`` on a shape,
  ``ne(0)`` padding mask, ``_time_diff_to_bucket`` (191-211: ``sqrt``, ``clamp``,
  ``long()`` used as embedding indices), ``HSTUBlock``/``HSTULayer.forward``
  (basic/layers.py:865-916, 955-970: projections, ``rab`` bias
  (utils/hstu_utils.py:129-166: ``arange`` relative positions, pairwise time
  buckets (117-127) used as gather indices), ``tril`` causal mask,
  ``masked_fill``, SiLU attention), tied output projection.

Global state on import (the builders import the library; this module imports
only torch): ``import torch_rechub`` imports ``basic``, ``models``, ``trainers``
and ``utils`` eagerly, which pull in pandas, tqdm, scipy and sklearn: sklearn
(and joblib) ``os.environ.setdefault`` ``KMP_DUPLICATE_LIB_OK=True`` and
``KMP_INIT_AT_FORK=FALSE``; scipy adds an ``always`` filter for
``SpecialFunctionWarning`` and an ``ignore`` filter for numpy's "the matrix
subclass is not the recommended way" warnings.  No logger handler, no torch
setting (default dtype, deterministic flags, threads) is changed;
``torch._dynamo`` is not imported by the library.  ``torch_rechub/__init__.py``
reads its own package metadata with ``importlib.metadata``.  The three trainer
rows build their ``torch.optim.Adam`` in the builder, and constructing any torch
optimizer imports ``torch._dynamo`` (torch's own doing, checked with a bare
``Adam``; nothing is compiled).

Library quirks met (eagerly), none on a row's measured behaviour:

* ``MTLTrainer.train_one_epoch`` with ``adaptive_params={"method": "gradnorm"}`` or
  ``"metabalance"`` fails on its first batch with ``UnboundLocalError: loss``
  (trainers/mtl_trainer.py:126-137: only the ``"uwl"`` branch assigns ``loss``
  before ``loss = loss + reg_loss``), so the GradNorm and MetaBalance paths
  (utils/mtl.py) cannot be reached through the trainer; the trainer row uses
  ``"uwl"``.  Also, GradNorm's ``__init__`` picks "the last fully connected shared
  layer" with ``share_layers[-i]`` from ``i = 0`` (83-86): the FIRST 2-d shared
  parameter.
* ``NARM`` (models/matching/narm.py:56-60) pads the GRU output only to the longest
  session in the batch, then multiplies by the full-width ``value_mask``: a batch
  where no session fills the padded width fails with a broadcasting error; the
  row's batch has one full-length session.
* ``MTLTrainer.train_one_epoch`` and ``CTRTrainer``/``MatchTrainer`` print and show
  tqdm bars (stdout/stderr only).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

RECHUB = ("torch-rechub", "0.9.0")
MODULES = ("torch_rechub",)
INFERENCE = ("inference",)
EMB = 8

# --- helpers -------------------------------------------------------------------------------


def _padded_ids(lengths: list[int], width: int, vocab: int) -> torch.Tensor:
    """(len(lengths), width) int64 ids in [1, vocab), post-padded with 0 after each row's length."""
    ids = torch.randint(1, vocab, (len(lengths), width))
    keep = torch.arange(width).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    return ids * keep


def _params(model: torch.nn.Module) -> tuple[torch.Tensor, ...]:
    return tuple(p.detach().clone() for p in model.parameters())


def _one_epoch(trainer: Any, batches: list[Any]) -> tuple[Any, tuple[torch.Tensor, ...]]:
    """``trainer.train_one_epoch(batches)`` under ``torch.enable_grad()`` (the step differentiates itself);
    returns the epoch's reported loss(es) and the updated parameters."""
    with torch.enable_grad():
        reported = trainer.train_one_epoch(batches)
    return reported, _params(trainer.model)


# --- builders ------------------------------------------------------------------------------


def _dien(training: bool) -> Built:
    from torch_rechub.basic.features import SequenceFeature, SparseFeature
    from torch_rechub.models.ranking import DIEN

    features = [SparseFeature("user_id", 20, EMB), SparseFeature("city", 10, EMB)]
    target = [SparseFeature("item_id", 30, EMB, padding_idx=0)]
    history = [SequenceFeature("hist_item_id", 30, EMB, pooling="concat", shared_with="item_id", padding_idx=0)]
    negative = [SequenceFeature("neg_hist_item_id", 30, EMB, pooling="concat", shared_with="item_id", padding_idx=0)]
    model = DIEN(features, history, negative, target, mlp_params={"dims": [16]})
    lengths = [5, 3, 0, 1, 4, 2]  # the third user has no history at all
    x = {"user_id": torch.randint(0, 20, (6,)), "city": torch.randint(0, 10, (6,)),
         "item_id": torch.randint(1, 30, (6,)), "hist_item_id": _padded_ids(lengths, 5, 30),
         "neg_hist_item_id": _padded_ids(lengths, 5, 30)}
    return model, (x,), {}


def _narm(training: bool) -> Built:
    from torch_rechub.basic.features import SequenceFeature
    from torch_rechub.models.matching import NARM

    model = NARM(SequenceFeature("hist_item_id", 30, EMB, pooling="concat"), hidden_dim=16, emb_dropout_p=0.25,
                 session_rep_dropout_p=0.5)
    return model, ({"hist_item_id": _padded_ids([6, 2, 4, 1, 5], 6, 30)},), {}


def _inbatch_nce(training: bool) -> Built:
    from torch_rechub.basic.loss_func import InBatchNCELoss

    targets = torch.randint(1, 30, (8,))
    targets[[2, 5]] = 0  # ignore_index: padding targets
    return InBatchNCELoss(temperature=0.1), (torch.randn(8, EMB), torch.randn(30, EMB), targets), {}


def _rqvae(training: bool) -> Built:
    from torch_rechub.models.generative import RQVAEModel

    model = RQVAEModel(in_dim=16, num_emb_list=[8, 8], e_dim=EMB, layers=[16], sk_epsilons=[0.003, 0.003],
                       sk_iters=20)
    return model, (torch.randn(8, 16),), {}


def _vocab_mask(training: bool) -> Built:
    from torch_rechub.utils.hstu_utils import VocabMask

    mask = VocabMask(20, invalid_items=[0, 7])
    invalid_ids = torch.randint(1, 20, (4, 3))
    invalid_ids[1, 2] = -1  # padding of the per-user history: skipped by the mask
    return mask.apply_mask, (torch.randn(4, 20), invalid_ids), {}


def _mtl_uwl(training: bool) -> Built:
    from torch_rechub.basic.features import DenseFeature, SparseFeature
    from torch_rechub.models.multi_task import MMOE
    from torch_rechub.trainers import MTLTrainer

    features = [SparseFeature("user_id", 20, EMB), SparseFeature("item_id", 30, EMB), DenseFeature("price")]
    model = MMOE(features, ["classification", "classification"], n_expert=2, expert_params={"dims": [16]},
                 tower_params_list=[{"dims": [8]}, {"dims": [8]}])
    trainer = MTLTrainer(model, ["classification", "classification"], adaptive_params={"method": "uwl"},
                         optimizer_params={"lr": 1e-2, "weight_decay": 1e-5}, n_epoch=1)
    batches = [({"user_id": torch.randint(0, 20, (8,)), "item_id": torch.randint(0, 30, (8,)),
                 "price": torch.rand(8)}, torch.randint(0, 2, (8, 2)).float()) for _ in range(2)]
    return _one_epoch, (trainer, batches), {}


def _match_inbatch(training: bool) -> Built:
    from torch_rechub.basic.features import SequenceFeature, SparseFeature
    from torch_rechub.models.matching import STAMP
    from torch_rechub.trainers import MatchTrainer

    model = STAMP(SequenceFeature("hist_item_id", 30, EMB, pooling="concat"), weight_std=0.5, emb_std=0.5,
                  item_feature=SparseFeature("item_id", 30, EMB))
    trainer = MatchTrainer(model, mode=0, in_batch_neg=True, in_batch_neg_ratio=3, hard_negative=True,
                           optimizer_params={"lr": 1e-2, "weight_decay": 1e-5}, n_epoch=1)
    batches = [({"hist_item_id": _padded_ids([5, 2, 3, 1, 4, 5], 5, 30), "item_id": torch.randint(1, 30, (6,))},
                torch.ones(6)) for _ in range(2)]
    return _one_epoch, (trainer, batches), {}


def _ctr_evaluate(training: bool) -> Built:
    from torch_rechub.basic.features import SequenceFeature, SparseFeature
    from torch_rechub.models.ranking import DIN
    from torch_rechub.trainers import CTRTrainer

    features = [SparseFeature("user_id", 20, EMB), SparseFeature("city", 10, EMB)]
    target = [SparseFeature("item_id", 30, EMB, padding_idx=0)]
    history = [SequenceFeature("hist_item_id", 30, EMB, pooling="concat", shared_with="item_id", padding_idx=0)]
    model = DIN(features, history, target, mlp_params={"dims": [16]}, attention_mlp_params={"dims": [16]})
    trainer = CTRTrainer(model, n_epoch=1)
    batches = []
    for _ in range(2):
        x = {"user_id": torch.randint(0, 20, (6,)), "city": torch.randint(0, 10, (6,)),
             "item_id": torch.randint(1, 30, (6,)), "hist_item_id": _padded_ids([5, 3, 1, 4, 2, 5], 5, 30)}
        batches.append((x, torch.tensor([1, 0, 1, 0, 0, 1])))
    return trainer.evaluate, (model, batches), {}


def _mind(training: bool) -> Built:
    from torch_rechub.basic.features import SequenceFeature, SparseFeature
    from torch_rechub.models.matching import MIND

    user = [SparseFeature("user_id", 20, EMB)]
    item = [SparseFeature("item_id", 30, EMB)]
    history = [SequenceFeature("hist_item_id", 30, EMB, pooling="concat", shared_with="item_id")]
    negative = [SequenceFeature("neg_items", 30, EMB, pooling="concat", shared_with="item_id")]
    model = MIND(user, history, item, negative, max_length=6, interest_num=3, dynamic_interest=True)
    x = {"user_id": torch.randint(0, 20, (5,)), "item_id": torch.randint(1, 30, (5,)),
         "hist_item_id": _padded_ids([6, 1, 3, 4, 2], 6, 30), "neg_items": torch.randint(1, 30, (5, 3))}
    return model, (x,), {}


def _hstu(training: bool) -> Built:
    from torch_rechub.models.generative import HSTUModel

    model = HSTUModel(vocab_size=30, d_model=16, n_heads=2, n_layers=2, dqk=8, dv=8, max_seq_len=8, dropout=0.1,
                      num_time_buckets=16)
    tokens = _padded_ids([6, 4, 2, 5], 6, 30)
    time_diffs = (torch.randint(0, 40000, (4, 6)) * (tokens > 0)).sort(dim=1, descending=True).values
    return model, (tokens,), {"time_diffs": time_diffs}


# --- rows ------------------------------------------------------------------------------------

_STEP_NOTES = ("inference only: the trainer's step differentiates itself (run under `torch.enable_grad()` by the "
               "wrapper) and returns Python/numpy losses and detached parameters; ")


def _rows() -> list[Row]:
    return [
        Row(
            "r23b_dien_forward", *RECHUB,
            "module: DIEN(user_id/city SparseFeature, hist_item_id and neg_hist_item_id SequenceFeature(30, 8, "
            "concat, shared with item_id, padding 0), item_id target, mlp dims=[16])(x dict of 6 users, histories "
            "of 5 post-padded ids, lengths 5,3,0,1,4,2); returns (prediction (6,), auxiliary loss ())",
            MODULES, _dien,
            notes="Deep Interest Evolution Network's CTR prediction with its auxiliary next-click loss; one user has "
            "an empty history (kept out of the GRU/AUGRU by the boolean masks); in training the parameters "
            "require grad (the inputs are ids) and the BatchNorm of the MLP uses batch statistics",
            patterns="`mask.sum(dim=1).cpu()` (models/ranking/dien.py:143), `if has_hist.any()` (147, 163: tensor "
            "truths), boolean-mask gathers/writes `seq[has_hist]`, `outs[has_hist] = ...`, `h[has_hist] = ...` "
            "(148-151, 164-165), `pack_padded_sequence` with CPU lengths and `pad_packed_sequence` (148-150: sizes "
            "from values, torch/nn/utils/rnn.py:311-323), `auxiliary` (111-126: `h[valid]` (121) then `if "
            "h.size(0) == 0` (122) on that data-dependent size), `AUGRU.forward` (48-66: `masked_fill` -inf, `if "
            "nan_rows.any()` (57: a tensor's truth), a Python loop over 5 steps), `EmbeddingLayer`/`InputMask` "
            "(basic/layers.py:78-159), `Dice` (basic/activation.py:15-25)",
        ),
        Row(
            "r23b_narm_forward", *RECHUB,
            "module: NARM(SequenceFeature(30, 8), hidden_dim=16, emb_dropout_p=0.25, session_rep_dropout_p=0.5)"
            "({'hist_item_id': (5, 6) post-padded ids, lengths 6,2,4,1,5}); returns scores over the 30 items (5, 30)",
            MODULES, _narm,
            notes="Neural Attentive Session-based Recommendation scoring every item for 5 sessions of different "
            "lengths; dropout draws from torch's generator (seeded before the call) in training; in training the "
            "parameters require grad (the input is ids)",
            patterns="`_compute_session_repr` (models/matching/narm.py:47-65): `value_mask.sum(...).to('cpu')` "
            "(51) as the lengths of `pack_padded_sequence` (52: torch/nn/utils/rnn.py:311-323 `as_tensor`, `sort`, "
            "`_VF._pack_padded_sequence`, output size = sum of the lengths), GRU on the packed batch, "
            "`pad_packed_sequence` (56: padded to the longest length, rnn.py:382), `exp(q) * value_mask`, in-place "
            "`/=` (60-61)",
        ),
        Row(
            "r23b_inbatch_nce_loss", *RECHUB,
            "module: InBatchNCELoss(temperature=0.1)(embeddings (8, 8), item_embeddings (30, 8), targets (8,) int64 "
            "with two 0s); returns a 0-d tensor",
            MODULES, _inbatch_nce,
            notes="the sampled-softmax loss of the generative models: user embeddings against the whole item table, "
            "padding targets (id 0) dropped; in training both embedding tensors require grad",
            patterns="`InBatchNCELoss.forward` (basic/loss_func.py:207-244): `matmul`, `log_softmax`, gather by "
            "targets, `if mask.any()` (235: a tensor's truth), `loss = loss[mask]` (236: a boolean-mask gather, "
            "data-dependent size), `mean`",
        ),
        Row(
            "r23b_rqvae_forward", *RECHUB,
            "module: RQVAEModel(in_dim=16, num_emb_list=[8, 8], e_dim=8, layers=[16], sk_epsilons=[0.003, 0.003], "
            "sk_iters=20)(x (8, 16)); returns (reconstruction (8, 16), quantization loss (), indices (8, 2) int64)",
            MODULES, _rqvae,
            notes="the residual-quantized VAE that makes TIGER's semantic ids: encode, two Sinkhorn-balanced "
            "codebook assignments, straight-through quantization, decode; in training the input and parameters "
            "require grad and the MLPs' BatchNorm uses batch statistics",
            patterns="`VectorQuantizer.forward` per stage (models/generative/rqvae.py:212-274: `if not self.initted "
            "and self.training` (244, Python bools), `center_distance_for_constraint` (198-210: `assert amplitude "
            "> 0` (208: a tensor's truth)), `sinkhorn_algorithm` (57-79: `no_grad`, in-place `/=`, a Python loop "
            "of 20 iterations), `if torch.isnan(Q).any() or torch.isinf(Q).any()` (256: tensor truths guarding a "
            "print), `argmax`, straight-through `x + (x_q - x).detach()`), `ResidualVectorQuantizer.forward` "
            "(352-398: a Python loop over stages, `stack`), encoder/decoder `MLP`",
        ),
        Row(
            "r23b_vocab_mask_apply", *RECHUB,
            "method: VocabMask(20, invalid_items=[0, 7]).apply_mask(logits (4, 20), invalid_ids (4, 3) int64 with "
            "one -1); returns masked logits (4, 20)",
            MODULES, _vocab_mask,
            notes="HSTU's ranking-time mask: padding and banned items and each user's already-seen items pushed to "
            "-1e9; in training the logits require grad",
            patterns="`VocabMask.apply_mask` (utils/hstu_utils.py:196-222): `clone`, `masked_logits[..., ~self.mask] "
            "= -1e9` (207: a boolean-mask `index_put_`, index count from the mask's values), `dim`/`size` checks "
            "of Python ints (212-217), range test, `masked_fill`, `scatter_` (219-221)",
        ),
        Row(
            "r23b_mtl_trainer_uwl_step", *RECHUB,
            "wrapper: MTLTrainer(MMOE(user_id, item_id sparse + price dense, 2 classification tasks, 2 experts "
            "dims=[16], towers dims=[8]), adaptive_params={'method': 'uwl'}, lr=1e-2).train_one_epoch(2 batches of "
            "8); returns (per-task mean losses [2 numpy floats], updated parameters incl. the 2 loss weights)",
            MODULES, _mtl_uwl, modes=INFERENCE,
            notes=_STEP_NOTES + "two multi-task steps of an MMOE with uncertainty-weighted task losses (the "
            "GradNorm/MetaBalance trainer paths fail in 0.9.0, see the module docstring)",
            patterns="`MTLTrainer.train_one_epoch` (trainers/mtl_trainer.py:113-166): per-task `BCELoss` (121), "
            "UWL sum with `clamp`/`exp` (127-131), `RegularizationLoss` (basic/loss_func.py:34-68, Python loops), "
            "`backward`, Adam `step`, `np.array([l.item() for l in loss_list])` (159: each task loss to Python "
            "every batch), `print` of numpy mean losses (162), `print` of `[w.item() ...]` (164), tqdm; MMOE "
            "forward (models/multi_task/mmoe.py:39-58)",
        ),
        Row(
            "r23b_match_trainer_inbatch_step", *RECHUB,
            "wrapper: MatchTrainer(STAMP(SequenceFeature(30, 8), item_feature=item_id), mode=0, in_batch_neg=True, "
            "in_batch_neg_ratio=3, hard_negative=True, lr=1e-2).train_one_epoch(2 batches of 6 sessions); returns "
            "(mean loss float, updated parameters)",
            MODULES, _match_inbatch, modes=INFERENCE,
            notes=_STEP_NOTES + "two in-batch-negative retrieval steps of a STAMP two-tower model, the 3 hardest "
            "in-batch items as negatives",
            patterns="`MatchTrainer.train_one_epoch` (trainers/match_trainer.py:105-176): `user_tower`/`item_tower` "
            "(models/matching/stamp.py:55-91: `gather` of the last valid id by counted lengths), shape tests of "
            "Python ints (122-129), `inbatch_negative_sampling` (utils/match.py:104-147: a Python loop over the "
            "batch, `row_scores[i] = float('-inf')`, `topk`), `gather_inbatch_logits` (150-161), cross entropy, "
            "`RegularizationLoss` (Python loops), `backward`, Adam `step`, `loss.item()` twice per batch (168-169)",
        ),
        Row(
            "r23b_ctr_trainer_evaluate_din", *RECHUB,
            "method: CTRTrainer(DIN(user_id/city sparse, hist_item_id sequence shared with item_id, mlp dims=[16], "
            "attention dims=[16])).evaluate(model, 2 batches of 6 with labels 1,0,1,0,0,1); returns the AUC float",
            MODULES, _ctr_evaluate, modes=INFERENCE,
            notes="inference only: `evaluate` runs the model under its own `no_grad` in eval mode and returns a "
            "Python float. Validation AUC of a Deep Interest Network over two batches",
            patterns="`CTRTrainer.evaluate` (trainers/ctr_trainer.py:157-172): `model.eval()`, `DIN.forward` "
            "(models/ranking/din.py:38-55, `ActivationUnit` 77-93, `Dice`), `y.tolist()` and `y_pred.tolist()` "
            "(170-171), sklearn `roc_auc_score` on the Python lists (172), tqdm",
        ),
        Row(
            "r23b_mind_forward_control", *RECHUB,
            "module: MIND(user_id, hist_item_id (6 ids shared with item_id), item_id, 3 negatives, max_length=6, "
            "interest_num=3, dynamic_interest=True)(x dict of 5 users); returns scores (5, 4) for the positive and "
            "3 negative items",
            MODULES, _mind,
            notes="control: Multi-Interest Network with Dynamic Routing, per-user interest counts from history "
            "length; the routing logits are drawn from torch's generator (seeded before the call); in training the "
            "parameters require grad",
            patterns="control: no tensor value reaches Python. `MIND.forward` (models/matching/mind.py:80-104), "
            "`dynamic_interest_mask` (17-36: tensor ops only), `CapsuleNetwork.forward` (basic/layers.py:657-711: "
            "`randn` routing logits (679), 3 routing iterations (a Python constant), a three-argument "
            "`torch.where` (686)), `masked_fill` (98), `argmax` and advanced indexing (99-101)",
        ),
        Row(
            "r23b_hstu_forward_control", *RECHUB,
            "module: HSTUModel(vocab_size=30, d_model=16, n_heads=2, n_layers=2, dqk=8, dv=8, max_seq_len=8, "
            "num_time_buckets=16)(x (4, 6) post-padded ids, time_diffs=(4, 6) seconds); returns logits (4, 6, 30)",
            MODULES, _hstu,
            notes="control: the HSTU generative recommender's next-item logits with relative position/time biases; "
            "dropout from torch's generator in training; in training the parameters require grad",
            patterns="control: no tensor value reaches Python. `HSTUModel.forward` (models/generative/hstu.py:"
            "213-273: a shape test, `ne(0)`, `_time_diff_to_bucket` (191-211: `long()` buckets used as indices)), "
            "`HSTUBlock`/`HSTULayer.forward` (basic/layers.py:865-916, 955-970: `rab` (utils/hstu_utils.py:129-166, "
            "pairwise time buckets as gather indices), `tril`, `masked_fill`, SiLU attention), tied output "
            "projection",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-three (b)")
