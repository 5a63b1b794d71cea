"""Held-out round fourteen (r14a): sentence-transformers and torchjd.

Chosen by reading the libraries' source, written down in ROUND14.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

sentence-transformers 5.7.0 (with transformers 4.52.4): the loss rows run a
real ``SentenceTransformer(modules=[WordEmbeddings, Pooling])`` built in memory
(a 20-word ``WhitespaceTokenizer`` vocabulary, a seeded (21, 8) embedding table
that is trained, mean pooling); the losses take already-tokenized
``sentence_features`` dicts, as the trainer passes them.  The data-dependent
code read: ``BatchAllTripletLoss``'s boolean-mask setitem
``triplet_loss[triplet_loss < 0] = 0`` and data-sized selection
``triplet_loss[triplet_loss > 1e-16]`` whose ``size(0)`` divides the loss;
``OnlineContrastiveLoss``'s first-call label check
``labels.ne(0).logical_and(labels.ne(1)).any().item()`` and its hard-pair
mining ``negs[negs < poss.max()]`` after ``distance_matrix[labels == 0]``
(``len(poss) > 1`` Python tests on data-sized selections); ``Pooling``'s
packed (flash-attention ``cu_seq_lens_q``) path with ``include_prompt=False``:
``int(pl[0].item())``, ``int(segment_ids.max().item()) + 1``, ``bincount``,
``int(seq_lengths.min().item())``, a boolean-mask selection of the non-prompt
tokens and ``repeat_interleave`` with tensor repeats; ``community_detection``'s
CPU branch (``if top_k_values[i][-1] >= threshold`` per row, a ``while`` on a
tensor test that widens ``topk``, a boolean-mask selection, ``.numpy()``,
``.tolist()``).

torchjd 0.18.0: aggregators are ``nn.Module`` s called on a Jacobian matrix
(one row per objective).  Several (UPGrad, DualProj, PCGrad, IMTLG, ConFIG,
GradDrop, CAGrad, ...) mix in ``_NonDifferentiable``, whose ``__call__`` runs
under ``torch.no_grad()``: their rows are inference only.  The data-dependent
code read: MGDA's Frank-Wolfe loop (``argmin`` index written with ``e_t[t] =
1.0``, ``if c <= a`` / ``elif b <= a`` 0-d tensor tests choosing the step, ``if
gamma < self.epsilon: break`` early stop), AlignedMTL's balance transform
(``eigh``, ``rank = sum(lambda_ > tol)`` a Python ``sum`` iterating a tensor,
``if rank == 0``, ``lambda_[order][:rank]`` slicing at a tensor bound), PCGrad's
projection loop (``for j in torch.randperm(m)`` iterating a tensor, ``if j ==
i``, ``if inner_product < 0.0``, indexed in-place updates at tensor indices).
``Krum`` (``topk`` at Python-int k, ``one_hot`` with a given ``num_classes``)
is the torchjd control.
"""

from __future__ import annotations

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

SENTENCE_TRANSFORMERS = ("sentence-transformers", "5.7.0")
TORCHJD = ("torchjd", "0.18.0")


# --- helpers and wrappers -------------------------------------------------------------


def _r14a_st_model():
    """A tiny in-memory SentenceTransformer: WordEmbeddings (20-word whitespace vocabulary, a (21, 8)
    seeded table, trainable) followed by mean Pooling."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, WordEmbeddings
    from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer

    vocab = [f"w{i}" for i in range(20)]
    embeddings = WordEmbeddings(
        WhitespaceTokenizer(vocab, do_lower_case=False), torch.randn(21, 8), update_embeddings=True
    )
    return SentenceTransformer(modules=[embeddings, Pooling(8, "mean")], device="cpu")


def _r14a_st_features(batch: int, length: int) -> dict[str, torch.Tensor]:
    """Tokenized features as the trainer passes them: input_ids in 1..20, right padding (id 0)."""
    input_ids = torch.randint(1, 21, (batch, length))
    lengths = torch.randint(2, length + 1, (batch,))
    attention_mask = (torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)).long()
    return {"input_ids": input_ids * attention_mask, "attention_mask": attention_mask}


def _r14a_pool_packed(
    pooling, token_embeddings: torch.Tensor, cu_seq_lens_q: torch.Tensor, seq_idx: torch.Tensor,
    prompt_length: torch.Tensor,
) -> torch.Tensor:
    """Pooling on packed (flattened) sequences, the way a flash-attention Transformer module hands them
    over: the features dict, then the pooled ``sentence_embedding``."""
    features = {
        "token_embeddings": token_embeddings,
        "cu_seq_lens_q": cu_seq_lens_q,
        "seq_idx": seq_idx,
        "prompt_length": prompt_length,
    }
    return pooling(features)["sentence_embedding"]


# --- sentence-transformers builders -----------------------------------------------------


def _r14a_st_batch_all_triplet(training: bool) -> Built:
    from sentence_transformers.sentence_transformer.losses import BatchAllTripletLoss

    loss = BatchAllTripletLoss(_r14a_st_model(), margin=0.5)
    features = _r14a_st_features(8, 6)
    labels = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
    return loss, ([features], labels), {}


def _r14a_st_online_contrastive(training: bool) -> Built:
    from sentence_transformers.sentence_transformer.losses import OnlineContrastiveLoss

    loss = OnlineContrastiveLoss(_r14a_st_model(), margin=2.0)
    first = _r14a_st_features(8, 6)
    second = _r14a_st_features(8, 6)
    labels = torch.tensor([1, 0, 1, 0, 0, 1, 0, 1])
    return loss, ([first, second], labels), {}


def _r14a_st_pooling_packed_prompt(training: bool) -> Built:
    from sentence_transformers.sentence_transformer.modules import Pooling

    pooling = Pooling(8, ("mean", "max", "weightedmean"), include_prompt=False)
    lengths = torch.tensor([5, 3, 6])  # three packed sequences, 14 tokens
    cu_seq_lens_q = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)])
    seq_idx = torch.repeat_interleave(torch.arange(3), lengths).unsqueeze(0)
    token_embeddings = torch.randn(1, 14, 8)
    prompt_length = torch.tensor([2])
    return (
        lambda *args: _r14a_pool_packed(pooling, *args),
        (token_embeddings, cu_seq_lens_q, seq_idx, prompt_length),
        {},
    )


def _r14a_st_community_detection(training: bool) -> Built:
    from sentence_transformers.util import community_detection

    embeddings = torch.randn(120, 3)
    return community_detection, (embeddings,), {"threshold": 0.1, "min_community_size": 20}


# --- torchjd builders -------------------------------------------------------------------


def _r14a_jd_mgda(training: bool) -> Built:
    from torchjd.aggregation import MGDA

    jacobian = torch.randn(3, 10)
    jacobian[2] = -0.5 * jacobian[0] + 0.3 * torch.randn(10)  # a conflicting objective
    return MGDA(epsilon=0.01, max_iters=50), (jacobian,), {}


def _r14a_jd_aligned_mtl_rank(training: bool) -> Built:
    from torchjd.aggregation import AlignedMTL

    jacobian = torch.randn(4, 10)
    jacobian[3] = jacobian[0] + jacobian[1]  # rank 3: the smallest eigenvalue is dropped
    return AlignedMTL(scale_mode="min"), (jacobian,), {}


def _r14a_jd_pcgrad(training: bool) -> Built:
    from torchjd.aggregation import PCGrad

    return PCGrad(), (torch.randn(4, 10),), {}


def _r14a_jd_krum(training: bool) -> Built:
    from torchjd.aggregation import Krum

    return Krum(n_byzantine=1, n_selected=2), (torch.randn(6, 10),), {}


# --- rows -------------------------------------------------------------------------------

NON_DIFFERENTIABLE = ("inference only: the aggregator mixes in torchjd's `_NonDifferentiable`, whose `__call__` "
                      "runs under `torch.no_grad()`, so the output has no gradient path")


def _rows() -> list[Row]:
    return [
        Row(
            "r14a_st_batch_all_triplet_loss", *SENTENCE_TRANSFORMERS,
            "sentence_transformers BatchAllTripletLoss(model, margin=0.5)([features], labels); model = in-memory "
            "SentenceTransformer(WordEmbeddings (21, 8) trainable, mean Pooling); features: input_ids (8, 6), "
            "right-padded attention_mask; labels (8,) four classes of two",
            ("sentence_transformers",), _r14a_st_batch_all_triplet,
            notes="input_ids, attention_mask and labels are integer; in training the gradient reaches the "
            "embedding table (sentence_embedder.0.emb_layer.weight); of the 48 valid triplets 8 have a negative "
            "loss (zeroed by the setitem) and 40 are kept by the selection",
            patterns="`SentenceTransformer.forward` (module loop, dict features), WordEmbeddings lookup, mean "
            "Pooling (mask sums, clamp); `batch_all_triplet_loss` (losses/batch_all_triplet.py:100-141): "
            "euclidean distances (`distances.eq(0)` mask, sqrt), (8, 8, 8) triplet tensor, "
            "`get_triplet_mask` (eye, logical ands), `triplet_loss[triplet_loss < 0] = 0` (boolean-mask "
            "setitem), `triplet_loss[triplet_loss > 1e-16]` (boolean-mask selection, data-sized), "
            "`num_positive_triplets = valid_triplets.size(0)` (a Python int from the data) dividing the sum",
        ),
        Row(
            "r14a_st_online_contrastive_loss", *SENTENCE_TRANSFORMERS,
            "sentence_transformers OnlineContrastiveLoss(model, margin=2.0)([features_a, features_b], labels); "
            "same in-memory model; two batches of input_ids (8, 6) right-padded; labels (8,) 0/1, four each",
            ("sentence_transformers",), _r14a_st_online_contrastive,
            notes="input_ids, attention_mask and labels are integer; in training the gradient reaches the "
            "embedding table; the binary-label check runs on the first call of a build only "
            "(`self._checked_labels`)",
            patterns="two model forwards (WordEmbeddings, mean Pooling); `compute_loss_from_embeddings` "
            "(losses/online_contrastive.py:81-102): first call `if labels.ne(0).logical_and(labels.ne(1))"
            ".any().item():` (tensor to Python bool, guards a `warnings.warn`), cosine distances, "
            "`distance_matrix[labels == 0]`, `[labels == 1]` (boolean-mask selections, data-sized), "
            "`poss.max() if len(poss) > 1 else ...` (len of data-sized), `negs[negs < poss.max()]`, "
            "`poss[poss > negs.min()]` (hard-pair selections, data-sized), pow/relu sums",
        ),
        Row(
            "r14a_st_pooling_packed_prompt", *SENTENCE_TRANSFORMERS,
            "wrapper: `Pooling(8, ('mean', 'max', 'weightedmean'), include_prompt=False)` on packed features "
            "{token_embeddings (1, 14, 8) randn, cu_seq_lens_q (0, 5, 8, 14), seq_idx (1, 14), prompt_length "
            "tensor([2])} -> ['sentence_embedding'] (3, 24)",
            ("sentence_transformers",), _r14a_st_pooling_packed_prompt,
            notes="cu_seq_lens_q, seq_idx and prompt_length are integer; in training token_embeddings gets the "
            "gradient (the 6 prompt tokens get zero)",
            patterns="`Pooling.forward` (modules/pooling.py:121-149): `int(pl[0].item())` (prompt length), "
            "`'cu_seq_lens_q' in features` -> `_forward_flattened` (:224-313): `int(segment_ids.max().item()) "
            "+ 1` (sequence count from data), `bincount(minlength=...)`, `int(seq_lengths.min().item())`, "
            "`repeat_interleave(cu_seq_lens_q[:-1], seq_lengths)` (tensor repeats, data-sized), "
            "`all_embeddings[valid]`, `segment_ids[valid]` (boolean-mask selections, 8 of 14 tokens), "
            "`index_add` sums, `scatter_reduce('amax')`, position weights; `torch.cat` of the three",
        ),
        Row(
            "r14a_st_community_detection", *SENTENCE_TRANSFORMERS,
            "sentence_transformers.util.community_detection(embeddings, threshold=0.1, min_community_size=20); "
            "embeddings (120, 3) randn",
            ("sentence_transformers",), _r14a_st_community_detection, modes=("inference",),
            notes="inference only: returns lists of Python ints (community member indices), no tensor with a "
            "gradient; CPU branch (the CUDA/NPU branch differs); three communities of 68, 23 and 20 members",
            patterns="`community_detection` (util/retrieval.py:281-358): normalize, `cos_scores.topk(k=20)`, "
            "per row `if top_k_values[i][-1] >= threshold:` (0-d tensor test, taken for all 120 rows), "
            "`cos_scores[i].topk(k=sort_max_size)`, `while top_val_large[-1] >= threshold and sort_max_size < "
            "len(embeddings):` (tensor test; taken once, on the first row: k widened from 50 to 100 and kept for "
            "the 119 later rows), `top_idx_large[top_val_large >= threshold]` (boolean-mask selection, "
            "data-sized), `.cpu().numpy()`, Python sort by length, numpy overlap removal, `.tolist()`",
        ),
        Row(
            "r14a_jd_mgda_frank_wolfe", *TORCHJD,
            "torchjd.aggregation.MGDA(epsilon=0.01, max_iters=50)(jacobian); jacobian (3, 10) randn, row 2 "
            "conflicting with row 0",
            ("torchjd",), _r14a_jd_mgda,
            notes="in training the jacobian requires grad (through the Frank-Wolfe weights and the "
            "combination `weights @ matrix`); the loop stops early at iteration 14 of 50 (every step takes the "
            "general `gamma = (b - a) / (b + c - 2a)` branch)",
            patterns="`Aggregator.__call__` `is_matrix` test; `compute_gramian` (J J^T); `MGDAWeighting.forward` "
            "(aggregation/_mgda.py:17-42): Python loop up to 50, `t = argmin(G @ alpha)`, `e_t[t] = 1.0` (setitem "
            "at a tensor index), `if c <= a:` / `elif b <= a:` (0-d tensor tests choosing gamma), `if gamma < "
            "self.epsilon: break` (early stop on a tensor test); `weights @ matrix`",
        ),
        Row(
            "r14a_jd_aligned_mtl_rank", *TORCHJD,
            "torchjd.aggregation.AlignedMTL(scale_mode='min')(jacobian); jacobian (4, 10) randn with row 3 = "
            "row 0 + row 1 (rank 3)",
            ("torchjd",), _r14a_jd_aligned_mtl_rank,
            notes="in training the jacobian requires grad (through eigh, the balance transform and the "
            "combination)",
            patterns="gramian; mean weighting; `_compute_balance_transformation` (aggregation/_aligned_mtl.py:"
            "43-68): `torch.linalg.eigh`, `tol = max(lambda_) * len(M) * eps`, `rank = sum(lambda_ > tol)` (Python "
            "`sum` iterating a tensor, 0-d tensor result 3), `if rank == 0:` (tensor test), `argsort`, "
            "`lambda_[order][:rank]`, `V[:, order][:, :rank]` (slices at a tensor bound, data-sized), `diag(1 / "
            "sqrt)`, `scale = lambda_[-1]`, `B @ w`",
        ),
        Row(
            "r14a_jd_pcgrad_projection", *TORCHJD,
            "torchjd.aggregation.PCGrad()(jacobian); jacobian (4, 10) randn",
            ("torchjd",), _r14a_jd_pcgrad, modes=("inference",),
            notes=NON_DIFFERENTIABLE + "; the permutations come from `torch.randperm` (seeded by the call seed)",
            patterns="gramian; `PCGradWeighting.forward` (aggregation/_pcgrad.py:14-47): `.to('cpu')`, for each of "
            "4 rows `for j in torch.randperm(4):` (iterating a tensor: 0-d tensors), `if j == i: continue` "
            "(tensor test), `inner_product = gramian[j] @ w`, `if inner_product < 0.0:` (tensor test), "
            "`current_weights[j] -= inner_product / gramian[j, j]` (in-place at a tensor index); "
            "`weights @ matrix`",
        ),
        Row(
            "r14a_jd_krum_control", *TORCHJD,
            "torchjd.aggregation.Krum(n_byzantine=1, n_selected=2)(jacobian); jacobian (6, 10) randn",
            ("torchjd",), _r14a_jd_krum,
            notes="control: no tensor value reaches Python; in training the jacobian requires grad (through the "
            "combination `weights @ matrix`; the one-hot weights carry none)",
            patterns="shape raises (Python ints); gramian; `KrumWeighting.forward` (aggregation/_krum.py:19-33): "
            "pairwise distances from the gramian diagonal, clamp, sqrt, `topk(k=4, largest=False)` (Python k), "
            "sum, `topk(k=2)`, `F.one_hot(num_classes=6)`, `sum / 2`; `weights @ matrix`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round fourteen (a)")
