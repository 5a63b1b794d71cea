"""Held-out round ten (r10c): MEGABYTE-pytorch and recurrent-memory-transformer-pytorch.

Chosen by reading each library's source, written down in ROUND10.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The MEGABYTE rows use a 16-token vocabulary, 2 or 3 stages (patch sizes 4 or
2x2, fine width 8, coarse widths 12-16), 2 heads of width 8 and sequences of at
most 16 tokens.  The recurrent-memory-transformer rows use a 20-token
vocabulary, width 16, depth 2, 2 heads of width 8, 2 memory tokens, segments of
4 tokens and sequences of at most 11 tokens; the library's default hyper
connections (4 residual streams) pick a random initial stream per layer with
Python's ``random.randrange`` at construction, so the builders seed Python's
RNG (and restore its state afterwards).
"""

from __future__ import annotations

import random
from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

MEGABYTE = ("MEGABYTE-pytorch", "0.3.6")
RECURRENT_MEMORY_TRANSFORMER = ("recurrent-memory-transformer-pytorch", "0.7.0")


# --- helpers ----------------------------------------------------------------------


def _r10c_tokens(batch: int, length: int, vocab: int) -> torch.Tensor:
    """Token ids in [1, vocab) (0 is left for padding)."""
    return torch.randint(1, vocab, (batch, length))


def _r10c_rmt(**kwargs: Any) -> Any:
    """A tiny RecurrentMemoryTransformer, with Python's RNG seeded for the hyper
    connections' `randrange` (the caller's RNG state is restored)."""
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformer

    config = dict(num_tokens=20, depth=2, num_memory_tokens=2, seq_len=4, dim_head=8, heads=2)
    config.update(kwargs)
    state = random.getstate()
    random.seed(0)
    try:
        return RecurrentMemoryTransformer(16, **config)
    finally:
        random.setstate(state)


# --- MEGABYTE-pytorch --------------------------------------------------------------


def _r10c_mb_return_loss(training: bool) -> Built:
    from MEGABYTE_pytorch import MEGABYTE

    model = MEGABYTE(
        num_tokens=16, dim=(16, 12, 8), depth=(1, 1, 1), max_seq_len=(4, 2, 2), dim_head=8, heads=2, pad_id=0,
    )
    ids = _r10c_tokens(2, 13, 16)
    ids[1, 10:] = 0  # the second sequence is 10 tokens, right-padded with pad_id
    return model, (ids,), {"return_loss": True}


def _r10c_mb_generate(training: bool) -> Built:
    from MEGABYTE_pytorch import MEGABYTE

    model = MEGABYTE(
        num_tokens=16, dim=(16, 8), depth=(1, 1), max_seq_len=(4, 4), dim_head=8, heads=2, rel_pos=True,
    )
    return model.generate, (_r10c_tokens(2, 5, 16),), {"filter_thres": 0.8, "temperature": 0.7}


def _r10c_mb_flash_control(training: bool) -> Built:
    from MEGABYTE_pytorch import MEGABYTE

    model = MEGABYTE(
        num_tokens=16, dim=(16, 8), depth=(2, 1), max_seq_len=(4, 4), dim_head=8, heads=2, rel_pos=True,
        pos_emb=True, flash_attn=True,
    )
    return model, (_r10c_tokens(2, 12, 16).reshape(2, 3, 4),), {}  # already (batch, patches, patch size)


# --- recurrent-memory-transformer-pytorch -----------------------------------------


def _r10c_rmt_segment_loss(training: bool) -> Built:
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformerWrapper

    wrapper = RecurrentMemoryTransformerWrapper(_r10c_rmt(), truncate_at_step=2)
    tokens = _r10c_tokens(2, 11, 20)
    mask = torch.ones(2, 10, dtype=torch.bool)  # over the 10 input positions (tokens[:, :-1])
    mask[1, 7:] = False
    return wrapper, (tokens,), {"mask": mask, "return_loss": True}


def _r10c_rmt_flash_masked_logits(training: bool) -> Built:
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformerWrapper

    wrapper = RecurrentMemoryTransformerWrapper(_r10c_rmt(use_flash_attn=True, add_write_to_next_write_mem=True))
    tokens = _r10c_tokens(2, 10, 20)
    mask = torch.ones(2, 10, dtype=torch.bool)
    mask[0, 8:] = False
    mask[1, 6:] = False
    return wrapper, (tokens,), {"mask": mask}


def _r10c_rmt_generate(training: bool) -> Built:
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformerWrapper

    wrapper = RecurrentMemoryTransformerWrapper(_r10c_rmt(rotary_pos_emb=True, xl_mem_len=3))
    return wrapper.generate, (_r10c_tokens(1, 6, 20),), {"length": 12, "temperature": 0.7, "filter_thres": 0.8}


def _r10c_mrbp_step(wrapper: Any, tokens: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """One memory-replay-backprop step: the wrapper runs its own backward passes;
    returns the loss and the parameter gradients it accumulated."""
    with torch.enable_grad():
        loss = wrapper(tokens, memory_replay_backprop=True)
    grads = {name: p.grad.detach().clone() for name, p in wrapper.named_parameters() if p.grad is not None}
    return loss.detach(), grads


def _r10c_rmt_memory_replay(training: bool) -> Built:
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformerWrapper

    wrapper = RecurrentMemoryTransformerWrapper(_r10c_rmt(), truncate_at_step=2)
    return _r10c_mrbp_step, (wrapper, _r10c_tokens(2, 11, 20)), {}


# --- rows -------------------------------------------------------------------------

GENERATE_NOTES = (
    "generate samples integer token ids (gumbel-max over top-k-filtered logits, global-RNG `uniform_` noise): "
    "no gradient path"
)

MB_STAGES = (
    "stage loops over `zip_longest` of the embeddings and transformers (megabyte.py:359-404: per stage "
    "`token_emb(ids)`, einops `rearrange` of ids into coarser patches, `pack_one`, start-token concat, "
    "`F.pad(prev_stage_tokens_repr, (0, 0, 1, 0))`, `unpack_one`, projection of `attended[..., :-1, :]`); each "
    "`Transformer.forward` (:191-199) `token_shift` (`F.pad(t_shift, (0, 0, 1, -1))`), `Attention` and `FeedForward`"
)
RMT_SEGMENT = (
    "`RecurrentMemoryTransformer.forward` per segment (recurrent_memory_transformer.py:336-516): "
    "`has_xl_memories = exists(xl_memories) and len(xl_memories) > 0`, `assert n <= self.seq_len`, `frac_gradient` "
    "(:69-73, `t * frac + t.detach() * (1 - frac)`), read memories `read_memories + self.read_memory_emb` or, on the "
    "first segment, `repeat(self.read_memory_emb, ...)` (:375-386), einops `pack([read, x, write], 'b * d')` (:390), "
    "the custom causal mask rebuilt per segment (`torch.ones((n, n), dtype=bool).tril()` padded with False/True for "
    "the memory slots, `mask & causal_mask`, :399-411); hyper connections with 4 residual streams "
    "(hyper_connections.py: `Reduce(... 'repeat', s=4)` expand, per branch `width_connection`/`depth_connection` "
    "einops einsums, `tree_flatten`/`tree_unflatten` of the branch's output tuple :391-413); `Attention.forward` "
    "(:157-219): `assert not (exists(value_residual) ^ exists(...))`, value-residual `v.lerp(value_residual, mix)` "
    "from layer 2, null key/value concat, `F.pad(mask, (1, 0), value=True)`, `torch.stack((k, v))` as the next xl "
    "memories; next xl memories `torch.detach(t[..., -self.xl_mem_len:, :])` (:496-497); `unpack` (:501)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r10c_mb_return_loss_autopad", *MEGABYTE,
            "MEGABYTE_pytorch.MEGABYTE(num_tokens=16, dim=(16, 12, 8), depth=(1, 1, 1), max_seq_len=(4, 2, 2), "
            "dim_head=8, heads=2, pad_id=0)(ids (2, 13), return_loss=True) (second sequence right-padded with 0 "
            "after 10 tokens)",
            ("MEGABYTE_pytorch",), _r10c_mb_return_loss,
            patterns="`MEGABYTE.forward` (megabyte.py:325-435): `assert ids.ndim in {2, self.stages + 1}`, `if "
            "ids.numel() == 0:` (the `forward_empty` branch, not taken), padding from the sequence length: "
            "`remainder_to_mult(seq_len, reduce_mult(max_seq_len[1:]))` (:36-43, :338-340) then `F.pad(ids, (0, 3), "
            "value=self.pad_id)` 13 -> 16 tokens and `ids.reshape(batch, -1, 2, 2)` (4 patches); asserts on the "
            "patch dims (:348-349); " + MB_STAGES + "; non-flash `Attend.forward` (attend.py:92-129) `get_mask` "
            "`torch.ones((i, j), dtype=bool).triu(j - i + 1)` and `masked_fill`; return_loss path (:423-435): "
            "start-token logits gathered by an index tuple built from `logits.ndim`, `torch.cat`, "
            "`F.cross_entropy(preds[..., :-1], labels, ignore_index=self.pad_id)` (the mean's divisor counts the "
            "labels that are not pad tokens: 23 of 32 here, a value-dependent count inside the op)",
        ),
        Row(
            "r10c_mb_generate_prime_topk", *MEGABYTE,
            "MEGABYTE_pytorch.MEGABYTE(num_tokens=16, dim=(16, 8), depth=(1, 1), max_seq_len=(4, 4), dim_head=8, "
            "heads=2, rel_pos=True).generate(prime (2, 5), filter_thres=0.8, temperature=0.7)",
            ("MEGABYTE_pytorch",), _r10c_mb_generate, modes=INFERENCE, notes=GENERATE_NOTES,
            patterns="`generate` (megabyte.py:290-306, not under no_grad itself): `for _ in "
            "tqdm(range(total_seq_len - seq.shape[-1]))` (a tqdm progress bar written to stderr inside the call, "
            "time-based refreshes, tqdm's monitor thread started on first use; 11 steps), per step "
            "`self.forward(seq)[:, -1]` on the growing sequence (5..15 tokens): `remainder_to_mult` padding with "
            "`F.pad(ids, (0, 3/2/1/0), value=pad_id)` and `reshape(batch, -1, 4)` to 2, 3 or 4 patches (sizes from "
            "the step), `logits[:, :seq_len]`, " + MB_STAGES + ", rotary `RotaryEmbedding(n)` from the shape; "
            "`top_k` (:57-63): `k = max(int((1 - thres) * num_logits), 1)` (3 of 16), `torch.topk`, "
            "`torch.full_like(logits, -inf).scatter_(1, ind, val)`; `gumbel_sample` (:50-55): "
            "`torch.zeros_like(t).uniform_(0, 1)` (global RNG), `log(t.clamp(min=eps))`, `(t / temperature + "
            "noise).argmax()`; `torch.cat((seq, sampled))`; `seq.reshape(batch, 4, 4)`",
        ),
        Row(
            "r10c_mb_flash_shaped_control", *MEGABYTE,
            "MEGABYTE_pytorch.MEGABYTE(num_tokens=16, dim=(16, 8), depth=(2, 1), max_seq_len=(4, 4), dim_head=8, "
            "heads=2, rel_pos=True, pos_emb=True, flash_attn=True)(ids (2, 3, 4))",
            ("MEGABYTE_pytorch",), _r10c_mb_flash_control,
            patterns="control: no tensor value reaches Python. Ids come already shaped (batch, patches, patch "
            "size), so `flattened_dims` is False and no padding or output slice runs; `assert ids.ndim in {...}`, "
            "`if ids.numel() == 0:` (a shape test), asserts on the patch dims (megabyte.py:328-349); " + MB_STAGES +
            " with learned absolute positions (`pos_emb(torch.arange(tokens.shape[-2]))`) and rotary embeddings; "
            "flash `Attend.flash_attn` (attend.py:63-90): `with torch.nn.attention.sdpa_kernel(self.attn_cfg):` (a "
            "context manager that sets and restores the global SDPA backend flags: FLASH_ATTENTION, MATH, "
            "EFFICIENT_ATTENTION on CPU) around `F.scaled_dot_product_attention(..., is_causal=True)`, `dropout_p = "
            "self.dropout if self.training else 0.`",
        ),
        Row(
            "r10c_rmt_segments_return_loss_mask", *RECURRENT_MEMORY_TRANSFORMER,
            "recurrent_memory_transformer_pytorch.RecurrentMemoryTransformerWrapper(RecurrentMemoryTransformer(16, "
            "num_tokens=20, depth=2, num_memory_tokens=2, seq_len=4, dim_head=8, heads=2), truncate_at_step=2)"
            "(tokens (2, 11), mask=(2, 10) with 3 padded, return_loss=True)",
            ("recurrent_memory_transformer_pytorch",), _r10c_rmt_segment_loss,
            patterns="`RecurrentMemoryTransformerWrapper.forward` (recurrent_memory_transformer.py:587-715): "
            "`labels = None` then `x, labels = x[:, :-1], x[:, 1:]`, `x.split(seq_len)` into segments of 4, 4, 2 "
            "tokens, `segment_length_frac = tuple(t.shape[-1] / total_length ...)` (Python floats 0.4, 0.4, 0.2), "
            "`labels.split` and `mask.split` (the padding mask over the 10 inputs, 3 False in sequence 2), a `for "
            "step, ... in enumerate(zip_longest(...))` segment loop with `with forward_context():` (nullcontext), "
            "memories carried from segment to segment, `if exists(truncate_at_step) and divisible_by(step + 1, 2): "
            "memories = memories.detach()` (truncated BPTT after segment 2), `losses.append(output * loss_weight)`, "
            "`sum(losses)` (Python sum from int 0); " + RMT_SEGMENT + ", with the padding mask `F.pad(mask, (2, 2), "
            "value=True)` (:394-395) and `Attend.forward` (attend.py:105-147) `sim.masked_fill(~mask, -finfo.max)` "
            "(sequence 2 has its last position of segment 2 and both positions of segment 3 masked; the null key "
            "and the memory slots stay visible); loss `F.cross_entropy(..., ignore_index=-1)` per segment (:510-514)",
        ),
        Row(
            "r10c_rmt_flash_masked_logits", *RECURRENT_MEMORY_TRANSFORMER,
            "recurrent_memory_transformer_pytorch.RecurrentMemoryTransformerWrapper(RecurrentMemoryTransformer(16, "
            "num_tokens=20, depth=2, num_memory_tokens=2, seq_len=4, use_flash_attn=True, "
            "add_write_to_next_write_mem=True))(tokens (2, 10), mask=(2, 10) with 2 and 4 padded)",
            ("recurrent_memory_transformer_pytorch",), _r10c_rmt_flash_masked_logits,
            patterns="the wrapper's segment loop (recurrent_memory_transformer.py:587-715; no loss: `x.split(4)` "
            "into 4, 4, 2 tokens, `mask.split`, per-segment logits collected and `torch.cat(logits, dim=-2)`); " +
            RMT_SEGMENT + "; `add_write_to_next_write_mem`: `write_memories + torch.detach(read_memories)` "
            "(:369-371) from the second segment; flash `Attend.flash_attn` (attend.py:77-103): the (b, 1, i, j) "
            "mask `mask.expand(-1, heads, q_len, -1)`, `config = self.cuda_config if is_cuda else self.cpu_config`, "
            "`with torch.backends.cuda.sdp_kernel(**config._asdict()):`, which torch 2.13 marks deprecated, so "
            "every attention call runs a `warnings.warn(..., FutureWarning)` (6 per call: 3 segments x 2 layers) "
            "and enters `torch.nn.attention.sdpa_kernel` (global SDPA backend flags set and restored) around "
            "`F.scaled_dot_product_attention(q, k, v, attn_mask=mask)`",
        ),
        Row(
            "r10c_rmt_generate_xl_rotary", *RECURRENT_MEMORY_TRANSFORMER,
            "recurrent_memory_transformer_pytorch.RecurrentMemoryTransformerWrapper(RecurrentMemoryTransformer(16, "
            "num_tokens=20, depth=2, num_memory_tokens=2, seq_len=4, rotary_pos_emb=True, xl_mem_len=3))"
            ".generate(prime (1, 6), length=12, temperature=0.7, filter_thres=0.8)",
            ("recurrent_memory_transformer_pytorch",), _r10c_rmt_generate, modes=INFERENCE, notes=GENERATE_NOTES,
            patterns="`generate` (recurrent_memory_transformer.py:531-585): `@torch.no_grad()` and `eval_decorator` "
            "(:38-45: `self.eval()` / `self.train(was_training)` inside the call), `assert "
            "self.transformer.causal`, `*past_segments, curr_segment = prime.split(4)` (4 + 2 tokens), a catch-up "
            "loop over the past segment, then `for ind in range(length - start_len)` (6 steps) each calling the "
            "transformer on the current segment (2, 3, 4, 1, 2, 3 tokens) with the carried memories and xl "
            "memories, `logits[:, -1]`, `top_k` (:62-67: `k = math.ceil((1 - thres) * logits.shape[-1])` = 4, "
            "`torch.topk`, `full_like(-inf).scatter_`), `gumbel_sample` (:55-60: `max(temperature, 1e-10)`, "
            "`zeros_like(t).uniform_(0, 1)` global RNG, `argmax`), `torch.cat((curr_segment, sampled))`, `if "
            "divisible_by(curr_segment.shape[-1] - 1, seq_len):` memories and xl memories swapped in and the "
            "segment rolled over (`curr_segment[..., :seq_len]`, `[..., -1:]`, `past_segments.append`, once, at "
            "step 3), `torch.cat(past_segments)[:, start_len:]`; per call " + RMT_SEGMENT +
            "; xl memories `torch.cat((kx, k))` and `F.pad(mask, (xl_memories.shape[-2], 0), value=True)` "
            "(:201-207); rotary positions (:425-455): `q_pos += xl_mem_length` (in place, from the xl memories' "
            "shape), `F.pad(q_pos, (2, 2))`, `k_pos = torch.cat((torch.arange(3) + 10000, q_pos))`, `F.pad(k_pos, "
            "(1, 0), value=9999)`",
        ),
        Row(
            "r10c_rmt_memory_replay_backprop", *RECURRENT_MEMORY_TRANSFORMER,
            "recurrent_memory_transformer_pytorch.RecurrentMemoryTransformerWrapper(RecurrentMemoryTransformer(16, "
            "num_tokens=20, depth=2, num_memory_tokens=2, seq_len=4), truncate_at_step=2)(tokens (2, 11), "
            "memory_replay_backprop=True) under torch.enable_grad(), returning the loss and the parameter gradients",
            ("recurrent_memory_transformer_pytorch",), _r10c_rmt_memory_replay, modes=INFERENCE,
            notes="memory replay backprop (the library's memory-efficient training, arxiv 2010.06891) runs its own "
            "backward passes inside the call and returns a loss whose graph those passes have already freed (a "
            "second backward raises), and under torch.no_grad its first in-call backward raises; so the row wraps "
            "the call in torch.enable_grad(), returns that loss (detached) with the parameter gradients the call "
            "accumulated, and runs in inference mode only",
            patterns="the wrapper's forward with `memory_replay_backprop=True` "
            "(recurrent_memory_transformer.py:587-705) runs backward passes inside the call: `x, labels = x[:, "
            ":-1], x[:, 1:]`, `x.split(4)` (4, 4, 2 tokens), `forward_context = nullcontext if not "
            "memory_replay_backprop else torch.no_grad` (a context manager class chosen by a flag) for a first "
            "segment loop under no_grad that keeps a replay buffer of memories and xl memories (`memories.detach()` "
            "after segment 2 by `truncate_at_step`); then `memories_grad = torch.zeros_like(replay_buffer[-1])`, "
            "`zip_longest(*map(reversed, [...]))` and a reversed loop over the segments: `if "
            "exists(segment_memories): segment_memories.requires_grad_()` (a leaf made in the call), the "
            "transformer re-run with grad and with the stored xl memories (which the first loop never passed), "
            "`weighted_loss.backward(retain_graph=True)`, `next_segment_memories.backward(memories_grad)`, "
            "`total_loss += weighted_loss` (from the float 0.), `if is_first: continue`, `if divisible_by(step, 2): "
            "memories_grad.zero_()` (segment 3) `else: memories_grad.copy_(segment_memories.grad.data)` (segment 2, "
            "reading a gradient the in-call backward produced); per transformer call " + RMT_SEGMENT +
            "; the row's function wraps the call in `torch.enable_grad()` and reads every `p.grad` afterwards",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round ten (r10c)")
