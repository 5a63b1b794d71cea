"""Held-out round twelve (r12a): pytorch-metric-learning and entmax.

Chosen by reading each library's source, written down in ROUND12.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

pytorch-metric-learning's data-dependent code is in the miners, in the index
bookkeeping between a miner and a loss, and in the reducers.  A user calls
``loss_func(embeddings, labels, miner(embeddings, labels))``; the miner runs
under ``torch.no_grad()`` and returns index tuples whose lengths come from the
data: ``torch.where`` over all label pairs/triplets (``get_all_pairs_indices``,
``get_all_triplets_indices``), boolean-mask selection of the tuples that
violate a margin (``TripletMarginMiner``, ``PairMarginMiner``), sorting and
``torch.where`` against per-row extremes (``MultiSimilarityMiner``), masked
row minima/maxima with boolean-mask setitems (``BatchEasyHardMiner``).  The
losses test those lengths in Python (``if len(anchor_idx) == 0``, ``if all(len(x)
<= 1 ...)``, ``if len(pos_pair_dist) > 0``), assert ``not torch.any(pos & neg)``
(mat-based pair losses), and the reducers filter losses by value
(``ThresholdReducer``/``AvgNonZeroReducer``: ``losses[losses > 0]``, ``len``,
``if num_past_filter >= 1``), or test ``torch.isnan(output)`` in an ``if``
(``DivisorReducer``).  With ``collect_stats=True`` (a constructor option of every
miner, loss, reducer and distance) the statistics are Python floats from
``.item()``.  Every pytorch-metric-learning row is a miner + loss wrapper; none
is a control (every loss path holds at least one ``len`` of a data-sized index).

entmax's data-dependent code is the partial-sort option ``k`` of ``sparsemax``,
``entmax15`` and their losses: ``torch.topk`` of the ``k`` largest, a support
size from a cumulative test, then ``if torch.any(unsolved):`` (rows whose
support reached ``k``) and a recursive call with ``2 * k`` on the boolean-mask
selected rows, written back by boolean-mask setitem; ``sparsemax``'s backward
zeroes its gradient by boolean-mask setitem; ``_GenericLoss`` with
``ignore_index >= 0`` turns the count of kept targets into a Python float with
``.item()``.  The bisection functions (``entmax_bisect``) run a fixed number of
iterations with ``torch.where`` updates and nothing reaching Python: the control.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

PML = ("pytorch-metric-learning", "2.9.0")
ENTMAX = ("entmax", "1.3")


# --- helpers ----------------------------------------------------------------------


def _r12a_mine_then_loss(loss_func: nn.Module, miner: nn.Module, embeddings: torch.Tensor,
                         labels: torch.Tensor) -> torch.Tensor:
    """The documented pytorch-metric-learning step: ``loss_func(emb, labels, miner(emb, labels))``."""
    indices_tuple = miner(embeddings, labels)
    return loss_func(embeddings, labels, indices_tuple)


def _r12a_clustered_embeddings(n_classes: int = 4, per_class: int = 4, dim: int = 8,
                               spread: float = 0.7) -> tuple[torch.Tensor, torch.Tensor]:
    """Seeded embeddings around one random centre per class (so margins split the tuples), and labels."""
    centres = torch.randn(n_classes, dim)
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    embeddings = centres[labels] + spread * torch.randn(n_classes * per_class, dim)
    return embeddings, labels


def _r12a_weighted_sum(output: Any) -> torch.Tensor:
    """A loss for probability outputs: their plain sum is 1 per row (a zero gradient), so weight each
    entry by a fixed, position-dependent factor."""
    weights = torch.arange(output.numel(), dtype=output.dtype).reshape(output.shape).sin()
    return (output * weights).sum()


# --- pytorch-metric-learning --------------------------------------------------------


def _r12a_pml_triplet_semihard(training: bool) -> Built:
    from pytorch_metric_learning import losses, miners, reducers

    miner = miners.TripletMarginMiner(margin=0.2, type_of_triplets="semihard", collect_stats=True)
    loss_func = losses.TripletMarginLoss(margin=0.1, reducer=reducers.AvgNonZeroReducer(collect_stats=True))
    embeddings, labels = _r12a_clustered_embeddings()
    return _r12a_mine_then_loss, (loss_func, miner, embeddings, labels), {}


def _r12a_pml_multisimilarity(training: bool) -> Built:
    from pytorch_metric_learning import losses, miners

    miner = miners.MultiSimilarityMiner(epsilon=0.1)
    loss_func = losses.MultiSimilarityLoss(alpha=2, beta=50, base=0.5)
    embeddings, labels = _r12a_clustered_embeddings()
    return _r12a_mine_then_loss, (loss_func, miner, embeddings, labels), {}


def _r12a_pml_contrastive_pair_margin(training: bool) -> Built:
    from pytorch_metric_learning import losses, miners

    miner = miners.PairMarginMiner(pos_margin=0.6, neg_margin=1.0, collect_stats=True)
    loss_func = losses.ContrastiveLoss(pos_margin=0.8, neg_margin=0.9)
    embeddings, labels = _r12a_clustered_embeddings()
    return _r12a_mine_then_loss, (loss_func, miner, embeddings, labels), {}


def _r12a_pml_proxy_anchor_batch_hard(training: bool) -> Built:
    from pytorch_metric_learning import losses, miners

    miner = miners.BatchHardMiner()
    # five proxies, four classes in the batch: one proxy without positives
    loss_func = losses.ProxyAnchorLoss(num_classes=5, embedding_size=8, margin=0.1, alpha=32)
    loss_func.train(training)
    embeddings, labels = _r12a_clustered_embeddings()
    return _r12a_mine_then_loss, (loss_func, miner, embeddings, labels), {}


# --- entmax -------------------------------------------------------------------------


def _r12a_entmax_sparsemax_topk(training: bool) -> Built:
    from entmax import sparsemax

    x = torch.randn(6, 10)
    x[:2] *= 0.2  # two flat rows: wide supports (6 and 7), beyond k=4
    return sparsemax, (x,), {"dim": -1, "k": 4}


def _r12a_entmax_entmax15_dim1_topk(training: bool) -> Built:
    from entmax import Entmax15

    x = torch.randn(2, 12, 5)
    x[0, :, :2] *= 0.3  # flat columns: supports of 12 along dim 1
    return Entmax15(dim=1, k=3), (x,), {}


def _r12a_entmax15_loss_ignore_index(training: bool) -> Built:
    from entmax import Entmax15Loss

    x = torch.randn(8, 10)
    x[:3] *= 0.3
    target = torch.tensor([1, 0, 3, 0, 9, 2, 0, 5])  # three targets equal ignore_index
    return Entmax15Loss(k=3, ignore_index=0, reduction="elementwise_mean"), (x, target), {}


def _r12a_entmax_bisect_alpha(training: bool) -> Built:
    from entmax import entmax_bisect

    x = torch.randn(4, 7)
    alpha = torch.tensor([[1.2], [1.5], [1.8], [2.0]])  # one alpha per row
    return entmax_bisect, (x, alpha), {"dim": -1, "n_iter": 30}


# --- rows -------------------------------------------------------------------------

PML_INPUTS = ("embeddings (16, 8) = a random centre per class + 0.7 randn, labels 4 classes x 4")
MINER_FORWARD = ("`BaseMiner.forward` (miners/base_miner.py:38-56): `reset_stats`, under no_grad `check_shapes` "
                 "(shape raises), `set_ref_emb`, `mine`, then `output_assertion` (`len` of each index tensor, "
                 "`assert` equal lengths, attribute writes of the counts)")
LOSS_FORWARD = ("`BaseMetricLossFunction.forward` (losses/base_metric_loss_function.py:17-37): `check_shapes`, "
                "`compute_loss`, regularizer test, `self.reducer(loss_dict, ...)`")
DIST = "`LpDistance` (`F.normalize`, `torch.cdist`, `assert mat.size() == ...`)"
K_RETRY = ("`if k is None or k >= X.shape[dim]` (Python ints) -> `torch.topk(X, k)`, cumulative support test, "
           "`support_size` by `sum`, `gather`; `unsolved = (support_size == k)`, `if torch.any(unsolved):` "
           "(tensor bool) -> `_roll_last(X, dim)[unsolved]` (boolean-mask rows, a data-sized batch), recursive call "
           "with `2 * k`, written back by boolean-mask setitems `_roll_last(tau, dim)[unsolved] = tau_`")


def _rows() -> list[Row]:
    return [
        Row(
            "r12a_pml_triplet_semihard_miner_loss", *PML,
            "wrapper: `loss_func(emb, labels, miner(emb, labels))` with "
            "TripletMarginMiner(margin=0.2, type_of_triplets='semihard', collect_stats=True) and "
            "TripletMarginLoss(margin=0.1, reducer=AvgNonZeroReducer(collect_stats=True)); " + PML_INPUTS,
            ("pytorch_metric_learning",), _r12a_pml_triplet_semihard,
            notes="labels are integer (no gradient); the miner returns 46 semihard triplets of the 576, "
            "and 18 of their 46 losses pass the reducer's `> 0` filter",
            patterns=MINER_FORWARD + "; `TripletMarginMiner.mine` (miners/triplet_margin_miner.py:29-57): "
            "`get_all_triplets_indices` (Python product-of-sizes test against INT_MAX, `torch.where` of a (16, 16, "
            "16) match x diff tensor: data-sized index tensors), " + DIST + ", fancy-index gathers, `set_stats` "
            "(collect_stats: three `torch.mean(...).item()`), boolean-mask selection `anchor_idx[threshold_condition]` "
            "(`<= margin` `&= > 0`); " + LOSS_FORWARD + ": `TripletMarginLoss.compute_loss` (`convert_to_triplets` "
            "`len(indices_tuple) == 3`, `if len(anchor_idx) == 0:` on the mined count, gathers, relu); "
            "`AvgNonZeroReducer` (reducers/threshold_reducer.py:32-57): `losses[losses > 0]` (boolean-mask "
            "selection), `num_past_filter = len(losses)`, `if num_past_filter >= 1:` mean, `set_stats` "
            "(`torch.sum(low_condition).item()`)",
        ),
        Row(
            "r12a_pml_multisimilarity_miner_loss", *PML,
            "wrapper: `loss_func(emb, labels, miner(emb, labels))` with MultiSimilarityMiner(epsilon=0.1) and "
            "MultiSimilarityLoss(alpha=2, beta=50, base=0.5) (CosineSimilarity); " + PML_INPUTS,
            ("pytorch_metric_learning",), _r12a_pml_multisimilarity,
            notes="the miner keeps 22 of 48 positive pairs and 30 of 192 negative pairs (the loss has a "
            "gradient through the similarity matrix; the mined pairs only set masks)",
            patterns=MINER_FORWARD + "; `MultiSimilarityMiner.mine` (miners/multi_similarity_miner.py:15-62): "
            "CosineSimilarity matrix, `get_all_pairs_indices` (`torch.where` of the match/diff masks), `if len(a1) == "
            "0 or len(a2) == 0:` on data-sized counts, index setitems `mat[a2, n] = inf`, `fill_diagonal_`, two "
            "`torch.sort`, `torch.where(pos_sorted - eps < neg_sorted[:, -1:])` / `torch.where(neg_sorted + eps > "
            "pos_sorted[:, :1])` (data-sized index pairs), gathers; " + LOSS_FORWARD + ": `GenericPairLoss."
            "compute_loss` (`convert_to_pairs`, `if all(len(x) <= 1 for x in indices_tuple)`), `mat_based_loss` "
            "(index setitems into zero masks, `assert not torch.any((pos_mask != 0) & (neg_mask != 0))`: a tensor "
            "bool in an assert), `MultiSimilarityLoss._compute_loss` (two masked `lmu.logsumexp`: `masked_fill`, "
            "`cat` of zeros, `masked_fill(~torch.any(keep_mask))`); `MeanReducer`",
        ),
        Row(
            "r12a_pml_contrastive_pair_margin_miner", *PML,
            "wrapper: `loss_func(emb, labels, miner(emb, labels))` with PairMarginMiner(pos_margin=0.6, "
            "neg_margin=1.0, collect_stats=True) and ContrastiveLoss(pos_margin=0.8, neg_margin=0.9) "
            "(two sub-losses, MultipleReducers of AvgNonZeroReducer); " + PML_INPUTS,
            ("pytorch_metric_learning",), _r12a_pml_contrastive_pair_margin,
            notes="the miner keeps 36 of 48 positive pairs (distance > 0.6) and 18 of 192 negative pairs "
            "(distance < 1.0); the reducers keep 14 of the 36 positive losses (distance > 0.8) and 10 of the 18 "
            "negative ones (distance < 0.9)",
            patterns=MINER_FORWARD + "; `PairMarginMiner.mine` (miners/pair_margin_miner.py:24-40): " + DIST +
            ", `get_all_pairs_indices` (`torch.where`), gathers, `set_stats` (collect_stats: `torch.mean(...)."
            "item() if len(pos_pair) > 0 else 0`), boolean-mask selections `a1[pos_mask]`, `a2[neg_mask]`; " +
            LOSS_FORWARD + ": `GenericPairLoss.compute_loss` (`if all(len(x) <= 1 ...)`), `pair_based_loss` "
            "(`if len(a1) > 0:` / `if len(a2) > 0:` on mined counts, gathers), `ContrastiveLoss._compute_loss` "
            "(`if len(pos_pair_dist) > 0` twice, relu margins); `MultipleReducers.forward` "
            "(reducers/multiple_reducers.py:15-29: `torch.zeros(2)`, Python loop over the loss dict, "
            "`sub_losses[i] = loss_val` setitem, sum) with two `AvgNonZeroReducer`s (`losses[losses > 0]`, "
            "`len`, `if num_past_filter >= 1`)",
        ),
        Row(
            "r12a_pml_proxy_anchor_batch_hard_miner", *PML,
            "wrapper: `loss_func(emb, labels, miner(emb, labels))` with BatchHardMiner() and "
            "ProxyAnchorLoss(num_classes=5, embedding_size=8, margin=0.1, alpha=32) (proxies kaiming-initialised "
            "in the build; one of the five classes has no sample in the batch); " + PML_INPUTS,
            ("pytorch_metric_learning",), _r12a_pml_proxy_anchor_batch_hard,
            notes="the loss module holds the proxies (a Parameter; they get gradients in training); the mined "
            "triplets only weight the loss terms (`convert_to_weights`), so the batch-hard indices carry no "
            "gradient; 16 triplets (every anchor kept), 4 of the 5 proxies have positives (divisor 4)",
            patterns=MINER_FORWARD + "; `BatchEasyHardMiner.mine` (miners/batch_easy_hard_miner.py:58-113, "
            "hard/hard): " + DIST + ", `get_all_pairs_indices` (`torch.where`), `get_x_per_row` twice (:143-169: "
            "`mask[anchor_idx, other_idx] = 1` index setitem, `torch.any(mask != inf, dim=1)`, boolean-mask setitem "
            "`mat[mask == inf] = inf`, `torch.max`/`torch.min` with indices), `torch.where(a1p_keep & a2n_keep)`, "
            "gathers; " + LOSS_FORWARD + ": `ProxyAnchorLoss.compute_loss` (losses/proxy_anchor_loss.py:29-78): "
            "`cast_types` (`.data` write of the proxies), `lmu.convert_to_weights` (`all(len(x) == 0 ...)`, "
            "`torch.cat`, `torch.unique(return_counts=True)` (data-sized), `weights[indices] = counts / "
            "torch.max(counts)` setitem), CosineSimilarity logits, `one_hot`, `with_pos_proxies = "
            "torch.where(torch.sum(pos_mask, dim=0) != 0)[0]` and its `len` as the divisor (a Python int from "
            "data), two masked `logsumexp` over dim 0; `MultipleReducers` with two `DivisorReducer`s "
            "(reducers/divisor_reducer.py:21-28: `if divisor != 0:`, `if torch.isnan(output) and losses.dtype == "
            "torch.float16:` (a tensor bool evaluated first))",
        ),
        Row(
            "r12a_entmax_sparsemax_topk_retry", *ENTMAX,
            "entmax.sparsemax(x, dim=-1, k=4); x (6, 10) randn with the first two rows scaled by 0.2",
            ("entmax",), _r12a_entmax_sparsemax_topk, loss=_r12a_weighted_sum,
            notes="supports (6, 7, 3, 4, 3, 3): three rows reach k=4 and are re-solved with k=8 (one recursion, "
            "three masked rows); loss: a fixed position-weighted sum (the plain sum of each row is 1)",
            patterns="`SparsemaxFunction.forward` (entmax/activations.py:151-159): max shift, "
            "`_sparsemax_threshold_and_support` (:35-88): " + K_RETRY + "; `clamp(X - tau, min=0)`; "
            "`SparsemaxFunction.backward` (:161-171): `grad_input[output == 0] = 0` (boolean-mask setitem), "
            "support-size division, `torch.where(output != 0, ...)`",
        ),
        Row(
            "r12a_entmax_entmax15_dim1_topk_retry", *ENTMAX,
            "entmax.Entmax15(dim=1, k=3)(x); x (2, 12, 5) randn with x[0, :, :2] scaled by 0.3",
            ("entmax",), _r12a_entmax_entmax15_dim1_topk, loss=_r12a_weighted_sum,
            notes="supports along dim 1 (12, 12, 8, 6, 2 / 5, 5, 4, 9, 2): eight of ten columns reach k=3 and go "
            "to k=6 (through `_roll_last`'s permute), five of those reach 6 and go to k=12 (a full sort); "
            "a negative dim other than -1 (dim=-2) fails in entmax 1.3 once a retry happens (`_roll_last` "
            "computes `X.dim() - dim`), so the row uses dim=1; loss: a fixed position-weighted sum",
            patterns="`Entmax15.forward` -> `Entmax15Function.forward` (entmax/activations.py:175-186): max shift, "
            "`/ 2`, `_entmax_threshold_and_support` (:91-148): " + K_RETRY + " (twice, through `_roll_last`: "
            "`if dim == -1` / `elif dim < 0` Python tests, a permute list comprehension); `clamp(...) ** 2`; "
            "backward: sqrt, sums, in-place `dX -= q * gppr`",
        ),
        Row(
            "r12a_entmax15_loss_ignore_index_topk", *ENTMAX,
            "entmax.Entmax15Loss(k=3, ignore_index=0, reduction='elementwise_mean')(x, target); x (8, 10) randn "
            "with the first three rows scaled by 0.3; target (8,) with three entries equal to 0",
            ("entmax",), _r12a_entmax15_loss_ignore_index,
            notes="target is integer (no gradient); supports (10, 10, 9, 7, 4, 2, 5, 4): seven rows reach k=3 "
            "and go to k=6, four of those reach 6 and go to k=12 (a full sort)",
            patterns="`_GenericLoss.forward` (entmax/losses.py:16-29): `Entmax15LossFunction.apply` "
            "(`_GenericLossFunction.forward` :33-47: `assert X.shape[0] == target.shape[0]`, `entmax15(X, k=3)` "
            "-> " + K_RETRY + " (twice), omega, in-place `scatter_add_`, einsum); `if self.ignore_index >= 0:` "
            "(Python int) -> `ignored_positions = target == 0`, `size = float((target.size(0) - "
            "ignored_positions.sum()).item())` (a tensor count into a Python float), in-place "
            "`loss.masked_fill_(ignored_positions, 0.0)`, `loss.sum() / size`; backward "
            "`grad_output.unsqueeze(1) * p_star`",
        ),
        Row(
            "r12a_entmax_bisect_alpha_control", *ENTMAX,
            "entmax.entmax_bisect(x, alpha, dim=-1, n_iter=30); x (4, 7) randn, alpha (4, 1) = (1.2, 1.5, 1.8, "
            "2.0), one per row",
            ("entmax",), _r12a_entmax_bisect_alpha, loss=_r12a_weighted_sum,
            notes="control: a fixed number of bisection steps, `torch.where` updates, no tensor value reaches "
            "Python; in training alpha requires grad, so the backward takes the `ctx.needs_input_grad[1]` "
            "branch (the gradient with respect to alpha); loss: a fixed position-weighted sum",
            patterns="`EntmaxBisectFunction.forward` (entmax/root_finding.py:30-70): `isinstance(alpha, "
            "torch.Tensor)` test, `alpha.expand`, max, tau bounds from `alpha`, `for it in range(n_iter)` (30, a "
            "Python int): `dm /= 2` in place, `clamp(...) ** (1 / (alpha - 1))`, `f_m = p_m.sum(dim) - 1`, "
            "`torch.where(f_m >= 0, tau_m, tau_lo)`; `p_m /= p_m.sum(...)`; backward (:72-102): `torch.where(Y > "
            "0, ...)`, in-place `dX -= q * gppr`, `if ctx.needs_input_grad[1]:` (a Python flag) -> Shannon terms "
            "`torch.where(Y > 0, Y * log Y, 0)`, alpha gradient",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twelve (a)")
