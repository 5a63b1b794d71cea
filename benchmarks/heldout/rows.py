"""Held-out round five: 34 entry points of 13 libraries that neither corpus has.

Chosen by reading each library's source, written down in ROWS.md beside this
file and committed before any row was run; measured once by
``python -m benchmarks.bench_ecosystem --corpus benchmarks.heldout.rows`` and
not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs,
seeded random weights and inputs, nothing downloaded); a row whose
``modes`` is one mode only says why in its ``notes``.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, VectorField, row_lookup

# --- pytorch-crf ---------------------------------------------------------------------

CRF = ("pytorch-crf", "0.7.2")


def _crf_inputs(batch_first: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    emissions = torch.randn(2, 6, 5)
    tags = torch.randint(0, 5, (2, 6))
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]], dtype=torch.bool)
    if not batch_first:
        emissions, tags, mask = emissions.transpose(0, 1), tags.t(), mask.t()
    return emissions, tags, mask


def _crf_nll(reduction: str):
    def make(training: bool) -> Built:
        from torchcrf import CRF as Crf

        crf = Crf(5, batch_first=True)
        emissions, tags, mask = _crf_inputs(True)
        return crf, (emissions, tags), {"mask": mask, "reduction": reduction}

    return make


def _crf_decode(masked: bool):
    def make(training: bool) -> Built:
        from torchcrf import CRF as Crf

        crf = Crf(5, batch_first=masked)
        emissions, _, mask = _crf_inputs(masked)
        return crf.decode, (emissions,), ({"mask": mask} if masked else {})

    return make


# --- torch-struct ----------------------------------------------------------------------

STRUCT = ("torch-struct", "0.5")
LENGTHS = [6, 4]


def linear_chain_partition(log_potentials: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    from torch_struct import LinearChainCRF

    return LinearChainCRF(log_potentials, lengths=lengths).partition


def linear_chain_argmax(log_potentials: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    from torch_struct import LinearChainCRF

    return LinearChainCRF(log_potentials, lengths=lengths).argmax


def linear_chain_marginals(log_potentials: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    from torch_struct import LinearChainCRF

    return LinearChainCRF(log_potentials, lengths=lengths).marginals


def semi_markov_partition(log_potentials: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    from torch_struct import SemiMarkovCRF

    return SemiMarkovCRF(log_potentials, lengths=lengths).partition


def dependency_partition(log_potentials: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    from torch_struct import DependencyCRF

    return DependencyCRF(log_potentials, lengths=lengths).partition


def _struct(fn: Any, shape: tuple[int, ...], lengths: list[int]):
    def make(training: bool) -> Built:
        return fn, (torch.randn(*shape), torch.tensor(lengths)), {}

    return make


def _struct_from_parts(training: bool) -> Built:
    from torch_struct import LinearChain

    # A one-hot chain of tag transitions (b x (N-1) x C x C), as argmax returns.
    tags = torch.randint(0, 4, (2, 6))
    edge = torch.zeros(2, 5, 4, 4)
    for n in range(1, 6):
        edge[torch.arange(2), n - 1, tags[:, n], tags[:, n - 1]] = 1
    return LinearChain.from_parts, (edge,), {}


# --- st-moe-pytorch --------------------------------------------------------------------

ST_MOE = ("st-moe-pytorch", "0.1.8")


def _st_moe(block: bool):
    def make(training: bool) -> Built:
        from st_moe_pytorch import MoE, SparseMoEBlock

        moe = MoE(dim=16, num_experts=4, gating_top_n=2)
        module = SparseMoEBlock(moe, add_ff_before=True, add_ff_after=True) if block else moe
        return module, (torch.randn(2, 8, 16),), {}

    return make


# --- mixture-of-experts ----------------------------------------------------------------

MOE = ("mixture-of-experts", "0.2.3")


def _moe(hierarchical: bool):
    def make(training: bool) -> Built:
        from mixture_of_experts import HeirarchicalMoE, MoE

        module = HeirarchicalMoE(dim=16, num_experts=(2, 2)) if hierarchical else MoE(dim=16, num_experts=4)
        return module, (torch.randn(2, 8, 16),), {}

    return make


# --- soft-moe-pytorch --------------------------------------------------------------------

SOFT_MOE = ("soft-moe-pytorch", "0.1.9")


def _soft_moe_masked(training: bool) -> Built:
    from soft_moe_pytorch import SoftMoE

    mask = torch.tensor([[True] * 8, [True] * 5 + [False] * 3])
    return SoftMoE(dim=16, seq_len=8, num_experts=4), (torch.randn(2, 8, 16),), {"mask": mask}


def _soft_moe_dynamic(training: bool) -> Built:
    from soft_moe_pytorch import DynamicSlotsSoftMoE

    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    return DynamicSlotsSoftMoE(dim=16, num_experts=4, geglu=True), (torch.randn(2, 7, 16),), {"mask": mask}


# --- local-attention ---------------------------------------------------------------------

LOCAL = ("local-attention", "1.11.2")


def _local_attention(causal: bool):
    def make(training: bool) -> Built:
        from local_attention import LocalAttention

        attention = LocalAttention(window_size=4, causal=causal, autopad=not causal, dim=8)
        n = 16 if causal else 14
        q, k, v = torch.randn(2, n, 8), torch.randn(2, n, 8), torch.randn(2, n, 8)
        kwargs = {} if causal else {"mask": torch.arange(n).unsqueeze(0) < torch.tensor([[n], [9]])}
        return attention, (q, k, v), kwargs

    return make


def _local_transformer(training: bool) -> Built:
    from local_attention import LocalTransformer

    model = LocalTransformer(num_tokens=20, max_seq_len=16, dim=16, depth=1, heads=2, dim_head=8,
                             local_attn_window_size=4, causal=True)
    return model, (torch.randint(0, 20, (2, 12)),), {}


def _local_generate(training: bool) -> Built:
    from local_attention import LocalTransformer

    model = LocalTransformer(num_tokens=20, max_seq_len=16, dim=16, depth=1, heads=2, dim_head=8,
                             local_attn_window_size=4, causal=True)
    return model.generate, (torch.randint(0, 20, (1, 4)), 4), {}


# --- rotary-embedding-torch ------------------------------------------------------------

ROTARY = ("rotary-embedding-torch", "0.9.1")


def _rotary(xpos: bool):
    def make(training: bool) -> Built:
        from rotary_embedding_torch import RotaryEmbedding

        rotary = RotaryEmbedding(dim=8, use_xpos=xpos)
        q, k = torch.randn(1, 2, 12, 16), torch.randn(1, 2, 12, 16)
        if xpos:
            return rotary.rotate_queries_and_keys, (q, k), {}
        return rotary.rotate_queries_or_keys, (q,), {}

    return make


# --- pytorch-msssim ----------------------------------------------------------------------

MSSSIM = ("pytorch-msssim", "1.0.0")


def _ssim_small(training: bool) -> Built:
    from pytorch_msssim import ssim

    # 8x8 images with the default 11-wide window: gaussian_filter warns and skips the blur.
    return ssim, (torch.rand(1, 3, 8, 8), torch.rand(1, 3, 8, 8)), {"data_range": 1.0}


def _ms_ssim(training: bool) -> Built:
    from pytorch_msssim import ms_ssim

    return ms_ssim, (torch.rand(1, 1, 40, 40), torch.rand(1, 1, 40, 40)), {"data_range": 1.0, "win_size": 3}


def _ssim_module(training: bool) -> Built:
    from pytorch_msssim import SSIM

    module = SSIM(data_range=1.0, size_average=False, channel=3, nonnegative_ssim=True)
    return module, (torch.rand(2, 3, 24, 24), torch.rand(2, 3, 24, 24)), {}


# --- julius / torch-dct --------------------------------------------------------------------

JULIUS = ("julius", "0.2.8")
DCT = ("torch-dct", "0.1.6")


def _julius_resample(training: bool) -> Built:
    from julius import resample_frac

    return resample_frac, (torch.randn(2, 64), 4, 5), {}


def _dct_2d(training: bool) -> Built:
    from torch_dct import dct_2d

    return dct_2d, (torch.randn(2, 8, 8),), {"norm": "ortho"}


# --- torchode ---------------------------------------------------------------------------------

TORCHODE = ("torchode", "1.0.1")


def torchode_adaptive(field: torch.nn.Module, y0: torch.Tensor, t_eval: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    import torchode

    term = torchode.ODETerm(field)
    controller = torchode.IntegralController(atol=1e-4, rtol=1e-3, term=term)
    solution = torchode.solve_ivp(term, y0, t_eval, method="dopri5", controller=controller)
    return solution.ys, solution.status


def torchode_fixed(field: torch.nn.Module, y0: torch.Tensor, t_eval: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    import torchode

    term = torchode.ODETerm(field)
    solution = torchode.solve_ivp(term, y0, t_eval, method="euler", controller=torchode.FixedStepController(),
                                  dt0=torch.full((y0.shape[0],), 0.125))
    return solution.ys, solution.status


def _torchode(fn: Any):
    def make(training: bool) -> Built:
        return fn, (VectorField(), torch.randn(2, 3), torch.linspace(0.0, 1.0, 4).repeat(2, 1)), {}

    return make


# --- ptwt -------------------------------------------------------------------------------------

PTWT = ("ptwt", "1.0.1")


def ptwt_roundtrip(data: torch.Tensor) -> torch.Tensor:
    import ptwt

    return ptwt.waverec(ptwt.wavedec(data, "db2", level=2), "db2")


def _signal(fn: Any):
    def make(training: bool) -> Built:
        return fn, (torch.randn(2, 32),), {}

    return make


def _ptwt_wavedec(training: bool) -> Built:
    import ptwt

    return ptwt.wavedec, (torch.randn(2, 32), "haar"), {"level": 2}


def _ptwt_wavedec2(training: bool) -> Built:
    import ptwt

    return ptwt.wavedec2, (torch.randn(1, 16, 16), "haar"), {"level": 2}


# --- reformer-pytorch -----------------------------------------------------------------------

REFORMER = ("reformer-pytorch", "1.4.4")


def _lsh_self_attention(training: bool) -> Built:
    from reformer_pytorch import LSHSelfAttention

    attention = LSHSelfAttention(dim=32, heads=2, bucket_size=4, n_hashes=2, causal=False)
    return attention, (torch.randn(1, 16, 32),), {}


def _reformer_lm(training: bool) -> Built:
    from reformer_pytorch import ReformerLM

    model = ReformerLM(num_tokens=20, dim=32, depth=1, max_seq_len=16, heads=2, bucket_size=4, n_hashes=2,
                       lsh_dropout=0.0, causal=True)
    return model, (torch.randint(0, 20, (1, 16)),), {}


INFERENCE = ("inference",)
TRAINING = ("training",)


def _rows() -> list[Row]:
    return [
        # pytorch-crf
        Row("crf_nll_mean", *CRF, "torchcrf.CRF.forward(mask, reduction='mean')", ("torchcrf",), _crf_nll("mean"),
            patterns="_validate: `mask[:, 0].all()` in a raise guard; `assert mask[0].all()`"),
        Row("crf_nll_token_mean", *CRF, "torchcrf.CRF.forward(mask, reduction='token_mean')", ("torchcrf",),
            _crf_nll("token_mean"), patterns="as crf_nll_mean; mask.float().sum() as a divisor"),
        Row("crf_decode_masked", *CRF, "torchcrf.CRF.decode(mask) (Viterbi)", ("torchcrf",), _crf_decode(True),
            modes=INFERENCE, notes="returns lists of ints: no gradient path",
            patterns="seq_ends = mask.long().sum(0) - 1; best_last_tag.item(); a Python loop over batch and history"),
        Row("crf_decode_full", *CRF, "torchcrf.CRF.decode (no mask, seq first)", ("torchcrf",), _crf_decode(False),
            modes=INFERENCE, notes="returns lists of ints: no gradient path",
            patterns="as crf_decode_masked with an all-ones mask built inside"),
        # torch-struct
        Row("ts_linear_partition", *STRUCT, "torch_struct.LinearChainCRF(lengths).partition", ("torch_struct",),
            _struct(linear_chain_partition, (2, 5, 4, 4), LENGTHS),
            patterns="`assert max(lengths) <= N` iterating a tensor; edge.requires_grad_(True) on the input"),
        Row("ts_linear_argmax", *STRUCT, "torch_struct.LinearChainCRF(lengths).argmax", ("torch_struct",),
            _struct(linear_chain_argmax, (2, 5, 4, 4), LENGTHS), modes=TRAINING,
            notes="computed by torch.autograd.grad(create_graph=True): needs grad mode, so training only",
            patterns="as ts_linear_partition, then torch.autograd.grad inside the call"),
        Row("ts_linear_marginals", *STRUCT, "torch_struct.LinearChainCRF(lengths).marginals", ("torch_struct",),
            _struct(linear_chain_marginals, (2, 5, 4, 4), LENGTHS), modes=TRAINING,
            notes="computed by torch.autograd.grad(create_graph=True): needs grad mode, so training only",
            patterns="as ts_linear_argmax"),
        Row("ts_semimarkov_partition", *STRUCT, "torch_struct.SemiMarkovCRF(lengths).partition", ("torch_struct",),
            _struct(semi_markov_partition, (2, 5, 3, 4, 4), LENGTHS),
            patterns="`assert max(lengths) ...` on a tensor; length masks"),
        Row("ts_dependency_partition", *STRUCT, "torch_struct.DependencyCRF(lengths).partition", ("torch_struct",),
            _struct(dependency_partition, (2, 5, 5), [5, 3]),
            patterns="`for b in range(batch): zero_(arc_scores[:, b, lengths[b] + 1:])` (tensor slice bounds); "
                     "`for i, l in enumerate(lengths)` indexing"),
        Row("ts_linear_from_parts", *STRUCT, "torch_struct.LinearChain.from_parts (one-hot edges -> tags)",
            ("torch_struct",), _struct_from_parts, modes=INFERENCE,
            notes="integer output from a one-hot input: no gradient path",
            patterns="on = edge.nonzero(); loop over on.shape[0]; `if on[i][1] == 0:` and tensor indices"),
        # st-moe-pytorch
        Row("st_moe", *ST_MOE, "st_moe_pytorch.MoE(top-2 gating)", ("st_moe_pytorch",), _st_moe(False),
            patterns="top-n routing with capacity; Experts: torch.distributed checks, `if len(outs) > 0`"),
        Row("st_moe_block", *ST_MOE, "st_moe_pytorch.SparseMoEBlock(MoE, ff before and after)", ("st_moe_pytorch",),
            _st_moe(True), patterns="as st_moe inside a block"),
        # mixture-of-experts
        Row("moe_top2", *MOE, "mixture_of_experts.MoE (top-2 gating)", ("mixture_of_experts",), _moe(False),
            patterns="top-2 gating, second expert by 'random' policy in train (uniform_), 'threshold' in eval"),
        Row("moe_hierarchical", *MOE, "mixture_of_experts.HeirarchicalMoE((2, 2))", ("mixture_of_experts",),
            _moe(True), patterns="two levels of top-2 gating with importance masks"),
        # soft-moe-pytorch
        Row("soft_moe_masked", *SOFT_MOE, "soft_moe_pytorch.SoftMoE(mask)", ("soft_moe_pytorch",),
            _soft_moe_masked, patterns="masked_fill of dispatch logits; Experts: distributed checks, offload to cpu"),
        Row("soft_moe_dynamic_slots", *SOFT_MOE, "soft_moe_pytorch.DynamicSlotsSoftMoE(mask)", ("soft_moe_pytorch",),
            _soft_moe_dynamic, patterns="pads the sequence to a multiple of the slot count; masked means"),
        # local-attention
        Row("local_attn_causal", *LOCAL, "local_attention.LocalAttention(causal)", ("local_attention",),
            _local_attention(True), patterns="look_around windows; causal masks; `assert (n % window_size) == 0`"),
        Row("local_attn_masked_autopad", *LOCAL, "local_attention.LocalAttention(autopad, mask)", ("local_attention",),
            _local_attention(False), patterns="pad_to_multiple (`m.is_integer()`); input mask padded and windowed"),
        Row("local_transformer", *LOCAL, "local_attention.LocalTransformer.forward", ("local_attention",),
            _local_transformer, patterns="hyper-connection residual streams; dynamic position bias off"),
        Row("local_generate", *LOCAL, "local_attention.LocalTransformer.generate (kv cache, top-k sampling)",
            ("local_attention",), _local_generate, modes=INFERENCE,
            notes="sampling decode loop: integer tokens, no gradient path",
            patterns="decode loop with kv cache slicing, torch.topk, torch.multinomial, torch.cat growth"),
        # rotary-embedding-torch
        Row("rotary_rotate_q", *ROTARY, "rotary_embedding_torch.RotaryEmbedding.rotate_queries_or_keys",
            ("rotary_embedding_torch",), _rotary(False),
            patterns="frequency cache: `if should_cache and ... <= self.cached_freqs_seq_len: return cached`, "
                     "in-place cache write `self.cached_freqs[:seq_len] = freqs.detach()`"),
        Row("rotary_xpos_qk", *ROTARY, "rotary_embedding_torch.RotaryEmbedding(use_xpos).rotate_queries_and_keys",
            ("rotary_embedding_torch",), _rotary(True), patterns="as rotary_rotate_q plus the scale cache"),
        # pytorch-msssim
        Row("msssim_ssim_small", *MSSSIM, "pytorch_msssim.ssim (8x8 images: window larger than the image)",
            ("pytorch_msssim",), _ssim_small, patterns="warnings.warn(...) in gaussian_filter; shape raise guards"),
        Row("msssim_ms_ssim", *MSSSIM, "pytorch_msssim.ms_ssim(win_size=3)", ("pytorch_msssim",), _ms_ssim,
            patterns="assert on sizes; per-level avg_pool loop; torch.relu of cs"),
        Row("msssim_ssim_module", *MSSSIM, "pytorch_msssim.SSIM(nonnegative_ssim, size_average=False)",
            ("pytorch_msssim",), _ssim_module, patterns="module wrapper of ssim"),
        # julius / torch-dct
        Row("julius_resample_frac", *JULIUS, "julius.resample_frac(x, 4, 5)", ("julius",), _julius_resample,
            patterns="a cached ResampleFrac built per call (sinc kernels from math), conv1d with stride"),
        Row("dct_2d_ortho", *DCT, "torch_dct.dct_2d(norm='ortho')", ("torch_dct",), _dct_2d,
            patterns="torch.fft.fft of a reordered signal; a control row with no data-dependent code"),
        # torchode
        Row("torchode_dopri5", *TORCHODE, "torchode.solve_ivp(dopri5, IntegralController)", ("torchode",),
            _torchode(torchode_adaptive), frozen=("2",),
            patterns="`while True:` step loop ended by `if not running.any(): break`; "
                     "`if to_be_evaluated.any(): nonzero = to_be_evaluated.nonzero()`; status codes"),
        Row("torchode_euler_fixed", *TORCHODE, "torchode.solve_ivp(euler, FixedStepController)", ("torchode",),
            _torchode(torchode_fixed), frozen=("2",), patterns="as torchode_dopri5 with fixed steps"),
        # ptwt
        Row("ptwt_wavedec_haar", *PTWT, "ptwt.wavedec(haar, level=2)", ("ptwt",), _ptwt_wavedec,
            patterns="pywt.Wavelet objects and NumPy filter banks inside the call; argsort(...).tolist() of axes"),
        Row("ptwt_roundtrip_db2", *PTWT, "ptwt.waverec(ptwt.wavedec(x, db2, level=2))", ("ptwt",),
            _signal(ptwt_roundtrip), patterns="as ptwt_wavedec_haar plus the reconstruction's padding trims"),
        Row("ptwt_wavedec2_haar", *PTWT, "ptwt.wavedec2(haar, level=2)", ("ptwt",), _ptwt_wavedec2,
            patterns="2-D: fold/unfold of batch dims with np.prod; pywt objects"),
        # reformer-pytorch
        Row("reformer_lsh_self_attention", *REFORMER, "reformer_pytorch.LSHSelfAttention", ("reformer_pytorch",),
            _lsh_self_attention, patterns="random rotations drawn in forward; argsort of buckets; sort/unsort gathers"),
        Row("reformer_lm", *REFORMER, "reformer_pytorch.ReformerLM (reversible layers)", ("reformer_pytorch",),
            _reformer_lm, patterns="reversible blocks (autograd.Function recording RNG state) around LSH attention"),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out")
