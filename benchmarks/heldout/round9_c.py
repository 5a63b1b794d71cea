"""Held-out round nine (r9c): routing-transformer, sinkhorn-transformer,
linear-attention-transformer and torchkbnufft.

Chosen by reading each library's source, written down in ROUND9.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The three transformer libraries' rows use vocabularies of 8-20 tokens, model
width 16, 2 heads and sequences of at most 16 tokens.  The torchkbnufft rows
use an 8x8 image (grid 16x16, 6x6 Kaiser-Bessel neighbourhoods) and a radial
trajectory of 4 spokes x 12 readout points (k-space in radians/voxel); complex
tensors enter and leave as real tensors with a trailing dimension of 2 (the
library's real-input convention), so every input and output is floating.  The
trajectory is frozen (a fixed acquisition; the library gives it no gradient).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

ROUTING_TRANSFORMER = ("routing-transformer", "1.6.1")
SINKHORN_TRANSFORMER = ("sinkhorn-transformer", "0.11.4")
LINEAR_ATTENTION_TRANSFORMER = ("linear-attention-transformer", "0.19.1")
TORCHKBNUFFT = ("torchkbnufft", "1.5.2")


# --- helpers ----------------------------------------------------------------------


def _r9c_tokens(batch: int, length: int, vocab: int) -> torch.Tensor:
    """Token ids in [1, vocab) (0 is left for padding)."""
    return torch.randint(1, vocab, (batch, length))


def _r9c_radial_traj(n_spokes: int = 4, n_read: int = 12, rotation: float = 0.0) -> torch.Tensor:
    """A radial k-space trajectory, shape (2, n_spokes * n_read), in [-pi, pi)."""
    radius = torch.linspace(-math.pi, math.pi, n_read + 1)[:-1]
    angles = torch.arange(n_spokes) * (math.pi / n_spokes) + rotation
    kx = torch.cos(angles)[:, None] * radius[None, :]
    ky = torch.sin(angles)[:, None] * radius[None, :]
    return torch.stack((kx.reshape(-1), ky.reshape(-1)))


def _r9c_as_complex(t: torch.Tensor) -> torch.Tensor:
    return torch.view_as_complex(t)


# --- routing-transformer -----------------------------------------------------------


def _r9c_rt_lm_kmeans(training: bool) -> Built:
    from routing_transformer import RoutingTransformerLM

    model = RoutingTransformerLM(
        num_tokens=20, dim=16, depth=2, max_seq_len=16, heads=2, dim_head=8, window_size=4,
        n_local_attn_heads=1, local_attn_window_size=4, causal=False,
    )
    tokens = _r9c_tokens(2, 16, 20)
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[1, 12:] = False  # the second sequence is padded
    return model, (tokens,), {"input_mask": mask}


def _r9c_rt_reversible_layer_drop(training: bool) -> Built:
    from routing_transformer import Autopadder, RoutingTransformerLM

    model = RoutingTransformerLM(
        num_tokens=20, dim=16, depth=2, max_seq_len=16, heads=2, dim_head=8, window_size=4,
        n_local_attn_heads=1, local_attn_window_size=4, reversible=True, layer_dropout=0.5,
        _register_kmeans_update=False,
    )
    return Autopadder(model), (_r9c_tokens(2, 14, 20),), {}


def _r9c_rt_encdec_loss(training: bool) -> Built:
    from routing_transformer import RoutingTransformerEncDec

    model = RoutingTransformerEncDec(
        dim=16,
        enc_num_tokens=20, enc_depth=1, enc_heads=2, enc_dim_head=8, enc_max_seq_len=8, enc_window_size=4,
        dec_num_tokens=20, dec_depth=1, dec_heads=2, dec_dim_head=8, dec_max_seq_len=8, dec_window_size=4,
    )
    src = _r9c_tokens(2, 8, 20)
    src_mask = torch.ones(2, 8, dtype=torch.bool)
    src_mask[0, 6:] = False
    tgt = _r9c_tokens(2, 9, 20)
    return model, (src, tgt), {"return_loss": True, "enc_input_mask": src_mask}


# --- sinkhorn-transformer ----------------------------------------------------------


def _r9c_sk_random_truncate_loss(training: bool) -> Built:
    from sinkhorn_transformer import SinkhornTransformerLM
    from sinkhorn_transformer.autoregressive_wrapper import AutoregressiveWrapper

    model = SinkhornTransformerLM(
        num_tokens=20, dim=16, depth=2, max_seq_len=16, heads=2, bucket_size=4, causal=True, n_top_buckets=2,
    )
    wrapper = AutoregressiveWrapper(model)
    return wrapper, (_r9c_tokens(3, 15, 20),), {"return_loss": True, "randomly_truncate_sequence": True}


def _r9c_sk_generate(training: bool) -> Built:
    from sinkhorn_transformer import SinkhornTransformerLM
    from sinkhorn_transformer.autoregressive_wrapper import AutoregressiveWrapper, top_p

    model = SinkhornTransformerLM(
        num_tokens=12, dim=16, depth=1, max_seq_len=16, heads=2, bucket_size=4, causal=True, n_top_buckets=2,
    )
    wrapper = AutoregressiveWrapper(model)
    return wrapper.generate, (_r9c_tokens(1, 5, 12), 8), {
        "eos_token": 5, "filter_logits_fn": top_p, "filter_thres": 0.1,
    }


def _r9c_sk_sortcut_control(training: bool) -> Built:
    from sinkhorn_transformer import Autopadder, SinkhornTransformer

    model = SinkhornTransformer(
        dim=16, depth=2, max_seq_len=16, heads=2, bucket_size=4, n_sortcut=2, non_permutative=True,
    )
    x = torch.randn(2, 14, 16)
    mask = torch.ones(2, 14, dtype=torch.bool)
    mask[1, 10:] = False
    return Autopadder(model), (x,), {"input_mask": mask}


# --- linear-attention-transformer --------------------------------------------------


def _r9c_la_generate(training: bool) -> Built:
    from linear_attention_transformer import LinearAttentionTransformerLM
    from linear_attention_transformer.autoregressive_wrapper import AutoregressiveWrapper, top_p

    model = LinearAttentionTransformerLM(
        num_tokens=12, dim=16, depth=1, max_seq_len=16, heads=2, dim_head=8, causal=True,
        n_local_attn_heads=1, local_attn_window_size=4,
    )
    wrapper = AutoregressiveWrapper(model)
    return wrapper.generate, (_r9c_tokens(1, 5, 12), 8), {
        "eos_token": 6, "filter_logits_fn": top_p, "filter_thres": 0.1,
    }


# --- torchkbnufft ------------------------------------------------------------------


def _r9c_tkbn_dynamic_forward(training: bool) -> Built:
    import torchkbnufft as tkbn

    golden = math.pi * (math.sqrt(5) - 1) / 2
    omega = torch.stack([_r9c_radial_traj(rotation=f * golden) for f in range(3)])  # (3 frames, 2, 48)
    image = torch.randn(3, 1, 8, 8, 2)
    smaps = torch.randn(3, 4, 8, 8, 2) * 0.5
    return tkbn.KbNufft(im_size=(8, 8)), (image, omega), {"smaps": smaps}


def _r9c_dcomp_adjoint_recon(adj_ob: Any, kdata: torch.Tensor, omega: torch.Tensor,
                             smaps: torch.Tensor) -> torch.Tensor:
    """Density-compensated coil-combined gridding reconstruction."""
    import torchkbnufft as tkbn

    dcomp = tkbn.calc_density_compensation_function(omega, im_size=(8, 8), num_iterations=8)
    image = adj_ob(_r9c_as_complex(kdata) * dcomp, omega, smaps=_r9c_as_complex(smaps))
    return torch.view_as_real(image)


def _r9c_tkbn_dcomp_adjoint(training: bool) -> Built:
    import torchkbnufft as tkbn

    omega = _r9c_radial_traj()
    kdata = torch.randn(1, 4, omega.shape[1], 2)
    smaps = torch.randn(1, 4, 8, 8, 2) * 0.5
    return _r9c_dcomp_adjoint_recon, (tkbn.KbNufftAdjoint(im_size=(8, 8)), kdata, omega, smaps), {}


def _r9c_toeplitz_normal(toep_ob: Any, image: torch.Tensor, omega: torch.Tensor, weights: torch.Tensor,
                         smaps: torch.Tensor) -> torch.Tensor:
    """A'WA applied through a Toeplitz kernel (as in an iterative SENSE solver)."""
    import torchkbnufft as tkbn

    kernel = tkbn.calc_toeplitz_kernel(omega, im_size=(8, 8), weights=weights, norm="ortho")
    out = toep_ob(_r9c_as_complex(image), kernel, smaps=_r9c_as_complex(smaps), norm="ortho")
    return torch.view_as_real(out)


def _r9c_tkbn_toeplitz(training: bool) -> Built:
    import torchkbnufft as tkbn

    omega = _r9c_radial_traj()
    # abs(k) ramp weights (radial density compensation), strictly positive
    weights = (omega.norm(dim=0) / math.pi + 0.05)[None, :]
    image = torch.randn(2, 1, 8, 8, 2)
    smaps = torch.randn(2, 3, 8, 8, 2) * 0.5
    return _r9c_toeplitz_normal, (tkbn.ToepNufft(), image, omega, weights, smaps), {}


def _r9c_spmatrix_adjoint(adj_ob: Any, kdata: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
    """Adjoint NUFFT with a precomputed sparse interpolation matrix."""
    import torchkbnufft as tkbn

    interp_mats = tkbn.calc_tensor_spmatrix(omega, im_size=(8, 8))
    return adj_ob(kdata, omega, interp_mats=interp_mats)


def _r9c_tkbn_spmatrix(training: bool) -> Built:
    import torchkbnufft as tkbn

    omega = _r9c_radial_traj()
    kdata = torch.randn(2, 2, omega.shape[1], 2)
    return _r9c_spmatrix_adjoint, (tkbn.KbNufftAdjoint(im_size=(8, 8)), kdata, omega), {}


# --- rows -------------------------------------------------------------------------

GENERATE_NOTES = (
    "generate (@torch.no_grad) samples integer token ids with torch.multinomial: no gradient path; "
    "top_p with filter_thres=0.1 removes tokens past cumulative probability 0.9 (nucleus p=0.9)"
)
TRAJ_NOTES = "omega (the k-space trajectory) is frozen: a fixed acquisition, and the library returns no gradient for it"

KMEANS_INIT = (
    "`Kmeans.init` (@torch.no_grad, routing_transformer.py:304-327) on every call: `if self.initted: return` "
    "(0-d bool buffer in a Python `if`; False on a fresh build), `if num_samples >= num_clusters:` "
    "`torch.randperm(num_samples)[:num_clusters]` initial means, `for _ in range(KMEAN_INIT_ITERS)` (10) "
    "`kmeans_iter` (`batched_bincount` scatter_add_, `zero_mask = bins.long() == 0`, 3-arg torch.where), "
    "`self.initted.data.copy_(torch.tensor(True))`"
)
KMEANS_ATTN = (
    "`KmeansAttention.forward` (:382-453): `dists_and_buckets` argmax under no_grad, `distribution` "
    "`dists.topk(k=window_size, dim=-2)` routing indices, `batched_index_select` gathers of q/k/v, "
    "mask gathers `expand_dim(query_mask, 1, h).gather(2, indices)` and `dots.masked_fill_(~mask, ...)`, "
    "`scatter_mean` back to sequence order"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r9c_rt_lm_kmeans_init_update", *ROUTING_TRANSFORMER,
            "routing_transformer.RoutingTransformerLM(num_tokens=20, dim=16, depth=2, max_seq_len=16, heads=2, "
            "window_size=4, n_local_attn_heads=1, local_attn_window_size=4)(tokens (2, 16), input_mask=(2, 16) "
            "with 4 padded positions)",
            ("routing_transformer",), _r9c_rt_lm_kmeans,
            notes="fresh build: the k-means buffers are uninitialised, so the first call runs the k-means init; "
            "training mode also accumulates new means and the LM's backward hook (`update_kmeans_on_backwards`, "
            "registered by default) writes them into the `means` buffer during the harness's backward",
            patterns=KMEANS_INIT + "; " + KMEANS_ATTN + "; training only (`update_kmeans = self.training and not "
            "is_reverse`): `Kmeans.forward(..., update_means=True)` runs `kmeans_iter` under no_grad and "
            "`ema(self.new_means, means, self.num_new_means / (self.num_new_means + 1))` with the Python counter "
            "`self.num_new_means += 1` (module attribute writes); `register_backward_hook` (:248-254) whose hook "
            "calls `Kmeans.update`: `assert exists(new_means)`, `ema_inplace` (`is_empty` check, "
            "`moving_avg.data.mul_(decay).add_(...)`), `del self.new_means`; `SelfAttention.forward` makes a new "
            "leaf `torch.tensor(0., requires_grad=True)` (:566) for the aux loss; SequentialSequence "
            "`aux_loss += loss`",
        ),
        Row(
            "r9c_rt_reversible_layer_drop", *ROUTING_TRANSFORMER,
            "routing_transformer.Autopadder(RoutingTransformerLM(num_tokens=20, dim=16, depth=2, max_seq_len=16, "
            "window_size=4, n_local_attn_heads=1, local_attn_window_size=4, reversible=True, "
            "layer_dropout=0.5))(tokens (2, 14))",
            ("routing_transformer",), _r9c_rt_reversible_layer_drop,
            notes="training mode drops one of the two reversible blocks (its parameters get no gradient); "
            "inference runs both blocks",
            patterns="`Autopadder.forward` (autopadder.py:31-47): `pad_to_multiple` (`m = seqlen / multiple; "
            "if m.is_integer()`, `math.ceil(m) * multiple - seqlen`) pads 14 -> 16 tokens and a new input_mask "
            "with False, output sliced `out[:, 0:t]`; training only: `layer_drop` (reversible.py:20-24) "
            "`to_drop = torch.empty(len(layers)).uniform_(0, 1) < prob` then "
            "`[block for block, drop in zip(layers, to_drop) if not drop]` (a bool tensor element in a Python "
            "`if`; here block 1 of 2 is dropped) and `layers[:1] if len(blocks) == 0`; `_ReversibleFunction.apply` "
            "(custom autograd.Function, Python loop over blocks, `ctx.y = x.detach()`, per-block aux losses "
            "`torch.stack`ed), `ReversibleBlock.forward` under torch.no_grad with `Deterministic.record_rng` "
            "(`torch.get_rng_state()`, `if torch.cuda._initialized`), and in backward `backward_pass` re-runs "
            "each block under `torch.random.fork_rng` + `torch.set_rng_state`, sets `y1.requires_grad = True` and "
            "calls `torch.autograd.backward` inside the backward; " + KMEANS_INIT + " (again in the reverse pass, "
            "now returning early); " + KMEANS_ATTN,
        ),
        Row(
            "r9c_rt_encdec_return_loss", *ROUTING_TRANSFORMER,
            "routing_transformer.RoutingTransformerEncDec(dim=16, enc_/dec_ depth=1, heads=2, max_seq_len=8, "
            "window_size=4)(src (2, 8), tgt (2, 9), return_loss=True, enc_input_mask=(2, 8) with 2 padded)",
            ("routing_transformer",), _r9c_rt_encdec_loss,
            notes="the returned aux loss is a fresh leaf `torch.tensor(0., requires_grad=True)`; training mode's "
            "backward runs the model's k-means update hook (registered in __init__)",
            patterns="`extract_and_set_enc_dec_kwargs` (encoder_decoder.py:203-212): kwargs grouped by "
            "`re.match(f'^{prefix}', key)` and `dec_kwargs.setdefault('context_mask', enc_kwargs['input_mask'])`; "
            "encoder and decoder each run " + KMEANS_INIT + "; the decoder's `AutoregressiveWrapper.forward` "
            "(autoregressive_wrapper.py:141-168) `xi, xo = x[:, :-1], x[:, 1:]`, cross_entropy with ignore_index, "
            "`loss + aux_loss`; causal shared-qk self-attention masks on routed indices "
            "(`q_mask >= kv_mask`, `dots.masked_fill_(mask, TOKEN_SELF_ATTN_VALUE)`); the context layer "
            "(`receives_context`) runs k-means on `torch.cat((q, k), dim=2)`, `split_at_index`, and gathers the "
            "encoder mask through the routed kv indices; " + KMEANS_ATTN + "; training: means accumulated with the "
            "Python counter `self.num_new_means += 1` and applied by the `register_backward_hook` hook "
            "(`Kmeans.update`, `ema_inplace` in place on the buffer)",
        ),
        Row(
            "r9c_sk_random_truncate_loss", *SINKHORN_TRANSFORMER,
            "sinkhorn_transformer.autoregressive_wrapper.AutoregressiveWrapper(SinkhornTransformerLM(num_tokens=20, "
            "dim=16, depth=2, max_seq_len=16, bucket_size=4, causal=True))(tokens (3, 15), return_loss=True, "
            "randomly_truncate_sequence=True)",
            ("sinkhorn_transformer",), _r9c_sk_random_truncate_loss,
            notes="the truncation lengths come from torch's global RNG (7, 11, 10 tokens under the call seed)",
            patterns="`random_truncate_inputs` (autoregressive_wrapper.py:35-42): `rand_lengths = torch.randint(2, t, "
            "(b, 1))`, `rand_mask = torch.arange(t) < rand_lengths`, per-sample `t.masked_select(mask)` (data-"
            "dependent lengths), `pad_sequence_left`: `m = max([len(s) for s in seqs])` and "
            "`F.pad(s, (m - len(s), 0))` (sizes from those lengths; batch becomes (3, 11)); "
            "`assert m.shape == x.shape[0:2]`; `Autopadder` (pad_left=True, autopadder.py:39-71) on the "
            "data-dependent length: `m.is_integer()`, `padding = math.ceil(m) * multiple - seqlen` (10 -> 12), "
            "`if padding != 0:` `F.pad(input_mask, (padding, 0), value=False)`, `out[:, padding:]`; "
            "`SinkhornTransformerLM.forward` `assert t <= self.max_seq_len`; `SinkhornCausalAttention` with masks: "
            "in-place `q_mask[hh_slice] = rotate_left(...)`, `R.abs().argmax(dim=-1)` gather of the key mask, "
            "`mask_reordering_matrix` (`torch.triu_indices`, `R.masked_fill_`), `differentiable_topk` Python loop "
            "with in-place `x.scatter_(-1, indices, float('-inf'))`",
        ),
        Row(
            "r9c_sk_generate_top_p_eos", *SINKHORN_TRANSFORMER,
            "sinkhorn_transformer AutoregressiveWrapper(SinkhornTransformerLM(num_tokens=12, dim=16, depth=1, "
            "max_seq_len=16, bucket_size=4, causal=True)).generate(start (1, 5), 8, eos_token=5, "
            "filter_logits_fn=top_p, filter_thres=0.1)",
            ("sinkhorn_transformer",), _r9c_sk_generate, modes=INFERENCE, notes=GENERATE_NOTES,
            patterns="`generate` (autoregressive_wrapper.py:53-90): `self.net.eval()` / "
            "`self.net.train(was_training)`, "
            "per step `out[:, -self.max_seq_len:]`, `Autopadder` left-pads the growing sequence (5..8 tokens -> 8: "
            "`if padding != 0:` mask `F.pad(..., value=False)`, `out[:, padding:]`), `top_p` (:13-22): `torch.sort`, "
            "cumsum of softmax, `sorted_indices_to_remove[:, 1:] = ...clone()` in-place shifts, boolean-mask "
            "setitem `sorted_logits[sorted_indices_to_remove] = float('-inf')`; `torch.multinomial(probs, 1)`; "
            "`if eos_token is not None and (sample == eos_token).all(): break` (tensor bool; taken at the 4th "
            "sampled token, so 4 of the 8 steps run)",
        ),
        Row(
            "r9c_sk_sortcut_autopad_control", *SINKHORN_TRANSFORMER,
            "sinkhorn_transformer.Autopadder(SinkhornTransformer(dim=16, depth=2, max_seq_len=16, heads=2, "
            "bucket_size=4, n_sortcut=2, non_permutative=True))(x (2, 14, 16), input_mask=(2, 14) with 4 padded)",
            ("sinkhorn_transformer",), _r9c_sk_sortcut_control,
            patterns="control: no tensor value reaches Python; `Autopadder` pads on shapes only (`m.is_integer()`, "
            "14 -> 16, `F.pad(input_mask, (0, 2), value=False)`, `out[:, 0:t]`); `SinkhornSelfAttention` asserts on "
            "shapes (`divisible_by(t, bucket_size)`); `AttentionSortNet` bucket means and `differentiable_topk(R, "
            "k=2)` (a Python loop over k with `softmax().topk(1)`, `zeros_like().scatter_`, in-place "
            "`x.scatter_(-1, indices, float('-inf'))`); sortcut `b_k_r[:, 0:n_sortcut]`; key-mask gather "
            "`batched_index_select(mk, R.abs().argmax(dim=-1))`, `dots.masked_fill_(~mask, ...)`",
        ),
        Row(
            "r9c_la_generate_top_p_eos", *LINEAR_ATTENTION_TRANSFORMER,
            "linear_attention_transformer AutoregressiveWrapper(LinearAttentionTransformerLM(num_tokens=12, dim=16, "
            "depth=1, max_seq_len=16, causal=True, n_local_attn_heads=1, local_attn_window_size=4))"
            ".generate(start (1, 5), 8, eos_token=6, filter_logits_fn=top_p, filter_thres=0.1)",
            ("linear_attention_transformer",), _r9c_la_generate, modes=INFERENCE, notes=GENERATE_NOTES,
            patterns="`generate` (autoregressive_wrapper.py:36-74): `self.net.eval()` / "
            "`self.net.train(was_training)`, "
            "per step `out[:, -self.max_seq_len:]`, `Autopadder` (pad_to = lcm(blindspot 1, local window 4) = 4; "
            "autopadder.py:37-58) pads the growing sequence (5..9 tokens -> 8 or 12) with `if padding != 0:` and a "
            "False-padded input_mask; `top_p` (:9-18) `torch.sort`, cumsum, in-place shifted mask, boolean-mask "
            "setitem `sorted_logits[sorted_indices_to_remove] = float('-inf')`; `torch.multinomial`; "
            "`if eos_token is not None and (sample == eos_token).all(): break` (taken at the 5th sampled token); "
            "inside the model `causal_linear_attn` with `kv_mask`: in-place `k.masked_fill_(~mask, 0.)`, "
            "bucketed cumsums, `assert (n % bucket_size) == 0`",
        ),
        Row(
            "r9c_tkbn_dynamic_forward_smaps", *TORCHKBNUFFT,
            "torchkbnufft.KbNufft(im_size=(8, 8))(image (3, 1, 8, 8, 2), omega (3, 2, 48) (3 golden-angle-rotated "
            "radial frames), smaps=(3, 4, 8, 8, 2))",
            ("torchkbnufft",), _r9c_tkbn_dynamic_forward, frozen=("1",), notes=TRAJ_NOTES,
            patterns="`KbNufft.forward` (modules/kbnufft.py:125-228): `if not image.is_complex()` real-input path "
            "(`view_as_complex`/`view_as_real`), `image * smaps`; `fft_and_scale` (@torch.jit.script, "
            "_nufft/fft.py:35-76): `pad_sizes.append(int(gd - im))` over the `grid_size`/`im_size` buffers (tensor "
            "values as pad sizes); `table_interp` (_nufft/interp.py:315-403): `num_threads = "
            "int(torch.get_num_threads())`, `factors[torch.remainder(torch.tensor(num_threads), factors) == 0]` "
            "(boolean-mask index), `for factor in factors.flip(0): if num_threads // int(factor) <= "
            "omega.shape[0]` (tensor elements to int), `if USING_OMP ...: torch.set_num_threads(...)` around "
            "`table_interp_fork_over_batchdim` (jit script, `torch.jit.fork` per chunk, `table[it_distind + "
            "center]` table lookups, `image[:, :, arr_ind]` gathers); backward (`KbTableInterpForward`) runs "
            "`table_interp_adjoint` (:587-726): `output_prod = int(torch.prod(grid_size))`, `for el in grid_size: "
            "output_size.append(int(el))`, `sort_data` per frame (`torch.sort` of flattened grid indices), "
            "`fork_and_accum` per-coil `index_add_`",
        ),
        Row(
            "r9c_tkbn_dcomp_adjoint_recon", *TORCHKBNUFFT,
            "torchkbnufft.calc_density_compensation_function(omega (2, 48), (8, 8), num_iterations=8), then "
            "KbNufftAdjoint(im_size=(8, 8))(kdata (1, 4, 48) * dcomp, omega, smaps=(1, 4, 8, 8)) (complex, passed "
            "as real (..., 2) tensors)",
            ("torchkbnufft",), _r9c_tkbn_dcomp_adjoint, frozen=("2",), notes=TRAJ_NOTES,
            patterns="`calc_density_compensation_function` (_nufft/dcomp.py:10-119): `init_fn` builds the "
            "Kaiser-Bessel tables (NumPy/SciPy), `for _ in range(num_iterations)` (8) adjoint then forward table "
            "interpolation and `test_sig = test_sig / torch.abs(new_sig)`; each `table_interp_adjoint` "
            "(_nufft/interp.py:587-726): `factors[... == 0]` boolean-mask index, `for factor in factors.flip(0): "
            "int(factor)` fork count, `output_prod = int(torch.prod(grid_size))`, `for el in grid_size: "
            "int(el)` output shape, `sort_one_batch` (`for d, dim in enumerate(grid_size)`, `torch.sort`), "
            "`fork_and_accum` `index_add_`; each `table_interp` (single trajectory on CPU): `for factor in "
            "factors.flip(0): if omega.shape[1] / (num_threads // int(factor)) >= min_kspace_per_fork`, "
            "`if USING_OMP: torch.set_num_threads(...)`, `table_interp_fork_over_kspace` strided writes "
            "`kdat[:, :, ind:klength:num_forks] = ...`; then `KbNufftAdjoint.forward` (:307-410) coil combine "
            "`torch.sum(output * smaps.conj(), dim=1)`, `ifft_and_scale` -> `crop_dims`: "
            "`for dim, end in zip(dim_list, end_list): torch.index_select(image, dim, torch.arange(end))` "
            "(0-d tensors as dim and length)",
        ),
        Row(
            "r9c_tkbn_toeplitz_normal_op", *TORCHKBNUFFT,
            "torchkbnufft.calc_toeplitz_kernel(omega (2, 48), (8, 8), weights (1, 48), norm='ortho'), then "
            "ToepNufft()(image (2, 1, 8, 8), kernel, smaps=(2, 3, 8, 8), norm='ortho') (complex, passed as real "
            "(..., 2) tensors)",
            ("torchkbnufft",), _r9c_tkbn_toeplitz, frozen=("2",), notes=TRAJ_NOTES + "; the density weights "
            "(abs(k) ramp) get a gradient through the kernel's adjoint NUFFTs",
            patterns="`calc_toeplitz_kernel` (_nufft/toep.py:11-120): shape checks, `calc_one_batch_toeplitz_kernel` "
            "builds a `KbNufftAdjoint` inside the call, `if omega.shape[0] > 1:` `adjoint_flip_and_concat` "
            "(adjoint NUFFTs of omega and `flip_coef * omega`, each with the `table_interp_adjoint` code: "
            "`int(torch.prod(grid_size))`, `for el in grid_size: int(el)`, `factors[...]` mask index, `torch.sort`, "
            "`index_add_`), `zero_block_shape = torch.tensor(kernel1.shape)` then `torch.zeros(*zero_block_shape)` "
            "(tensor elements as sizes); `reflect_conj_concat`: `flipdims = torch.arange(dim, kernel.ndim)` and "
            "`for d in flipdims: tmp_block.index_select(d, ...)` with `tmp_block.shape[d]` (0-d tensors as dims), "
            "`torch.zeros(*zero_block_shape)`; `hermitify`; `scale_factor = torch.sqrt(torch.prod(2 * "
            "adj_ob.im_size) / torch.prod(adj_ob.grid_size))`; `ToepNufft.forward` (modules/kbnufft.py:486-547) "
            "dtype/shape checks, `toep_batch_loop` Python loop `for mini_image, smap in zip(image, smaps)`; "
            "`fft_filter` (_nufft/fft.py): `torch.tensor(image.shape[2:])`, `pad_sizes.append(int(gd - im))`, "
            "`crop_dims` with `torch.arange(end)` from tensor elements",
        ),
        Row(
            "r9c_tkbn_spmatrix_adjoint", *TORCHKBNUFFT,
            "torchkbnufft.calc_tensor_spmatrix(omega (2, 48), im_size=(8, 8)), then "
            "KbNufftAdjoint(im_size=(8, 8))(kdata (2, 2, 48, 2), omega, interp_mats=...)",
            ("torchkbnufft",), _r9c_tkbn_spmatrix, frozen=("2",), notes=TRAJ_NOTES,
            patterns="`calc_tensor_spmatrix` (_nufft/spmat.py:10-105): `if not omega.ndim == 2: raise`, "
            "`build_numpy_spmatrix(omega=omega.cpu().numpy(), ...)` (tensor to NumPy; _nufft/utils.py:16-119: "
            "`np.floor`/`np.mod` grid offsets, boolean-mask writes `cur_coeff[indices] = special.iv(...)` with "
            "`indices = np.absolute(kern_in) < npts / 2`, scipy `coo_matrix`), back with `torch.tensor(indices)` / "
            "`torch.tensor(np.real(values))` and two `torch.sparse_coo_tensor`s; `KbNufftAdjoint.forward` "
            "interp_mats path -> `KbSpmatInterpAdjoint.apply` -> `spmat_interp_adjoint` (_nufft/interp.py:50-85): "
            "`output_size = [batch_size, num_coils] + grid_size.tolist()` (tensor to a Python shape list), sparse "
            "`torch.mm`; `ifft_and_scale` `crop_dims` (`torch.arange(end)` with 0-d tensor ends); backward runs "
            "`spmat_interp` (sparse `torch.mm`, `view_as_complex`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round nine (r9c)")
