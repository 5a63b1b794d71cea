"""Held-out round fifteen (r15b): litgpt and chemprop.

Chosen by reading each library's source, written down in ROUND15.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

litgpt 0.5.13: every model is a ``litgpt.GPT`` (or ``litgpt.lora.GPT``) built
from a tiny ``litgpt.Config`` (vocabulary 48, 1-2 layers, 16-32 channels,
RMSNorm, LLaMA MLP, full rotary) with random weights; the tokenizer is never
loaded, prompts are int64 token tensors.  The generation rows allocate the KV
cache in the builder, as litgpt's own ``generate`` mains do once per model
(``set_kv_cache``): every cache position a call reads is first written by that
call (``input_pos_maxp1`` slicing, causal mask), so calls repeat bit for bit.
They decode greedily (``temperature=0``): ``multinomial_num_samples_1``
(generate/base.py:31-36) samples with ``torch.multinomial`` eagerly but with an
exponential race plus ``argmax`` when ``torch._dynamo.is_compiling()``, so a
sampled row could never match its eager output once compiled.  The
data-dependent code: ``generate_fn`` (generate/base.py:129-234: ``int_token =
token.item()`` per generated token, a Python stop-sequence match on it that
``return`` s early, a loop whose trip count is cut by the data); speculative
decoding (generate/speculative_decoding.py:61-300: ``while input_pos <
max_returned_tokens - 1`` (a tensor in a ``while``), ``(max_returned_tokens -
input_pos - 1).item()``, ``if target_prob >= draft_prob`` and ``if not
should_discard_token`` (0-d tensors in Python ``if`` s), ``len(new_tokens)``
of a data-sized result, ``new_token in stop_tokens``); the mixture of experts
(model.py:859-885: ``torch.where(mask)`` per expert, a data-sized index
``y[token_idx] += ...``) behind a DeepSeek-style ``GroupedTopkRouter``
(model.py:888-931); the sliding-window KV cache (model.py:1266-1284:
``max_pos = input_pos.max().item()``, ``if max_pos < self.max_cache_len`` and a
slice ``k[:, :, :max_pos + 1]`` at a bound read from the data).  The control
is ``litgpt.lora.GPT``'s forward with LoRA on q, k, v, projection, MLP and head
(all three of q, k, v enabled, so ``zero_pad`` returns early and the lazily
registered ``lora_ind`` buffer is never built; no KV cache).

chemprop 2.3.1: molecules are featurized from SMILES (``CCO``, ``c1ccccc1O``,
``CC(=O)N``, ``C#N``) by ``SimpleMoleculeMolGraphFeaturizer`` (rdkit, in the
builder: numpy, no torch) into a ``BatchMolGraph`` (16 atoms, 26 directed
bonds); message passing, aggregation and predictors are built small (hidden 32,
FFN hidden 16) with random weights.  The data-dependent code: every
aggregation's ``dim_size = batch.max().int() + 1`` (nn/agg.py:75, 92, 124: a
tensor value read into Python as the size of the output); ``ConstrainerFFN``
(nn/ffn.py:93-141: ``pred_has_constraint = ~torch.isnan(constraints)[0]``, a
boolean-mask column selection ``constraints[:, pred_has_constraint]`` and
setitem ``cor_shape_preds[:, pred_has_constraint] = corrections``) under
``MolAtomBondMPNN.forward``; ``SpearmanEvaluator.evaluate``
(uncertainty/evaluator.py:190-199: a per-task boolean-mask selection of
data-dependent length, a torchmetrics ``SpearmanCorrCoef`` built per task,
whose ``__init__`` warns, and whose ``_rank_data`` (torchmetrics
functional/regression/spearman.py:31-39) ranks with ``torch.unique(...,
return_inverse=True, return_counts=True)``, a data-sized result).  The control
is ``AtomMessagePassing`` on its own (undirected, with atom descriptors):
gathers, ``scatter_reduce_`` into a zeros tensor sized by the graph's atom
count (a shape, not a value), linear layers; no aggregation.

Global state on import: neither library changes torch's global state (default
dtype and device, grad mode, threads, torch-function modes, anomaly mode,
deterministic flag, matmul precision, cuDNN/TF32 flags, print options).  Both
import lightning (2.6.6) and torchmetrics (1.9.0), and through them
``torch._dynamo`` and ``torch._inductor`` (a plain ``import torch`` loads
neither; litgpt's generate modules also ``import torch._dynamo.config``, and
set Dynamo/Inductor config only inside their CLI ``main(compile=True)``);
``import litgpt`` also imports transformers, tokenizers, huggingface_hub,
jsonargparse, pandas, scipy and sklearn, ``import chemprop`` also rdkit,
sklearn, scipy, pandas, networkx and mordred.  Each adds the same nine warning
filters (sympy ``once`` SymPyDeprecationWarning, ``ignore`` FutureWarning
'.*FSDP.state_dict_type.*', lightning ``default`` LightningDeprecationWarning,
scipy ``always`` SpecialFunctionWarning, numpy ``ignore`` 'the matrix subclass
is not the recommended way', four urllib3/requests filters) and configures
logging: ``lightning``, ``lightning.pytorch``, ``lightning.fabric`` and
``torchmetrics`` loggers at INFO with a stderr handler (``lightning.pytorch`` and
``lightning.fabric`` with ``propagate=False``), ``transformers`` (WARNING, own
handler, no propagation) and ``huggingface_hub`` (WARNING, handler); chemprop
also gives the ``rdkit`` logger WARNING, a handler and ``propagate=False``.
The root logger is left alone.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

LITGPT = ("litgpt", "0.5.13")
CHEMPROP = ("chemprop", "2.3.1")

#: The stop token of the greedy generate row (a token the greedy continuation
#: reaches part way, so that the stop-sequence branch ``return`` s early).
R15B_GENERATE_EOS = 7
#: The stop token of the speculative decoding row (reached part way likewise).
R15B_SPECULATIVE_STOP = 34

KV_NO_GRAD = (
    "inference only: litgpt decodes under `@torch.inference_mode()` and writes the KV cache buffers in place "
    "with `index_copy_`; the cache (allocated in the builder, as litgpt's generate mains do once per model) is "
    "only meant for inference"
)


# --- litgpt ----------------------------------------------------------------------------


def _r15b_config(**overrides: Any) -> Any:
    from litgpt import Config

    base = dict(
        n_layer=2, n_head=4, n_embd=32, block_size=32, vocab_size=48, padding_multiple=16, rotary_percentage=1.0,
        parallel_residual=False, bias=False, norm_class_name="RMSNorm", mlp_class_name="LLaMAMLP",
        intermediate_size=64,
    )
    base.update(overrides)
    return Config(**base)


def _r15b_generate_run(model: Any, prompt: torch.Tensor) -> torch.Tensor:
    from litgpt.generate.base import generate

    return generate(model, prompt, 16, temperature=0.0, top_k=8, eos_id=R15B_GENERATE_EOS)


def _r15b_litgpt_generate(training: bool) -> Built:
    from litgpt import GPT

    model = GPT(_r15b_config(n_query_groups=2)).eval()
    model.max_seq_length = 16
    model.set_kv_cache(batch_size=1)
    prompt = torch.randint(0, 48, (5,))
    return _r15b_generate_run, (model, prompt), {}


def _r15b_speculative_run(draft: Any, target: Any, prompt: torch.Tensor) -> tuple[torch.Tensor, float]:
    from litgpt.generate.speculative_decoding import generate

    return generate(
        draft, target, prompt, 16, temperature=0.0, top_k=16, stop_tokens=[R15B_SPECULATIVE_STOP],
        speculative_k=3,
    )


def _r15b_litgpt_speculative(training: bool) -> Built:
    from litgpt import GPT

    target = GPT(_r15b_config()).eval()
    # The draft: the target's first layer, embeddings and head (copied, then perturbed by N(0, 0.1) noise), so
    # that some draft tokens are accepted and some rejected.
    draft = GPT(_r15b_config(n_layer=1)).eval()
    draft.load_state_dict(target.state_dict(), strict=False)
    with torch.no_grad():
        for p in draft.parameters():
            p.add_(0.1 * torch.randn_like(p))
    for model in (draft, target):
        model.max_seq_length = 16
        model.set_kv_cache(batch_size=1)
    prompt = torch.randint(0, 48, (4,))
    return _r15b_speculative_run, (draft, target, prompt), {}


def _r15b_litgpt_moe(training: bool) -> Built:
    from litgpt import GPT

    config = _r15b_config(
        mlp_class_name="LLaMAMoE", n_expert=4, n_expert_per_token=2, moe_intermediate_size=16, n_shared_expert=1,
        first_k_dense_replace=1, n_expert_groups=2, n_topk_groups=1, n_topk_scores_per_group=1, norm_topk_prob=True,
        routed_scaling_factor=2.5,
    )
    model = GPT(config)
    # `GroupedTopkRouter.weight` is `torch.empty` (model.py:897) and only `GPT._init_weights` fills it (as
    # litgpt's pretraining does), so initialize every weight that way.
    model.apply(model._init_weights)
    return model, (torch.randint(0, 48, (2, 8)),), {}


def _r15b_sliding_window_run(model: Any, tokens: torch.Tensor) -> torch.Tensor:
    prefill = 4
    logits = [model(tokens[:, :prefill], input_pos=torch.arange(prefill), input_pos_maxp1=prefill)[:, -1]]
    for pos in range(prefill, tokens.shape[1]):
        step = model(tokens[:, pos:pos + 1], input_pos=torch.tensor([pos]), input_pos_maxp1=pos + 1)
        logits.append(step[:, -1])
    return torch.stack(logits, dim=1)


def _r15b_litgpt_sliding_window(training: bool) -> Built:
    from litgpt import GPT

    model = GPT(_r15b_config(sliding_window_size=4, sliding_window_indices=[1, 0], n_query_groups=2)).eval()
    model.max_seq_length = 12
    model.set_kv_cache(batch_size=1)
    return _r15b_sliding_window_run, (model, torch.randint(0, 48, (1, 9))), {}


def _r15b_litgpt_lora_control(training: bool) -> Built:
    import litgpt.lora as lora

    base = dict(
        n_layer=2, n_head=4, n_embd=32, block_size=32, vocab_size=48, padding_multiple=16, rotary_percentage=1.0,
        parallel_residual=False, bias=False, norm_class_name="RMSNorm", mlp_class_name="LLaMAMLP",
        intermediate_size=64, n_query_groups=2,
    )
    config = lora.Config(
        **base, lora_r=4, lora_alpha=8, lora_dropout=0.1, lora_query=True, lora_key=True, lora_value=True,
        lora_projection=True, lora_mlp=True, lora_head=True,
    )
    model = lora.GPT(config)
    lora.mark_only_lora_as_trainable(model)
    for module in model.modules():
        if isinstance(module, lora.LoRALinear) and module.r > 0:
            # lora_B starts at zero; make the LoRA branch contribute.
            torch.nn.init.normal_(module.lora_B, std=0.05)
    return model, (torch.randint(0, 48, (2, 9)),), {}


# --- chemprop --------------------------------------------------------------------------

R15B_SMILES = ("CCO", "c1ccccc1O", "CC(=O)N", "C#N")


def _r15b_molgraphs() -> tuple[Any, list[Any]]:
    from chemprop.featurizers import SimpleMoleculeMolGraphFeaturizer
    from chemprop.utils import make_mol

    featurizer = SimpleMoleculeMolGraphFeaturizer()
    return featurizer, [featurizer(make_mol(s, keep_h=False, add_h=False)) for s in R15B_SMILES]


def _r15b_chemprop_mpnn(training: bool) -> Built:
    from chemprop import nn as cnn
    from chemprop.data import BatchMolGraph
    from chemprop.models import MPNN

    featurizer, mgs = _r15b_molgraphs()
    model = MPNN(
        cnn.BondMessagePassing(featurizer.atom_fdim, featurizer.bond_fdim, d_h=32, depth=3, dropout=0.1),
        cnn.MeanAggregation(),
        cnn.RegressionFFN(n_tasks=2, input_dim=32 + 3, hidden_dim=16, n_layers=1, dropout=0.1),
        batch_norm=True,
    )
    return model, (BatchMolGraph(mgs), None, torch.randn(4, 3)), {}


def _r15b_chemprop_mol_atom_bond(training: bool) -> Built:
    from chemprop import nn as cnn
    from chemprop.data.collate import BatchMolAtomBondGraph
    from chemprop.models.mol_atom_bond import MolAtomBondMPNN

    featurizer, mgs = _r15b_molgraphs()
    model = MolAtomBondMPNN(
        cnn.MABBondMessagePassing(featurizer.atom_fdim, featurizer.bond_fdim, d_h=32, depth=2, dropout=0.1),
        agg=cnn.NormAggregation(norm=10.0),
        mol_predictor=cnn.RegressionFFN(n_tasks=1, input_dim=32, hidden_dim=16),
        atom_predictor=cnn.RegressionFFN(n_tasks=2, input_dim=32, hidden_dim=16),
        bond_predictor=cnn.RegressionFFN(n_tasks=1, input_dim=64, hidden_dim=16),
        atom_constrainer=cnn.ConstrainerFFN(n_constraints=1, fp_dim=32, hidden_dim=16),
        bond_constrainer=cnn.ConstrainerFFN(n_constraints=1, fp_dim=64, hidden_dim=16),
    )
    # Per molecule: atom targets sum to a value in column 0, column 1 unconstrained (NaN); bond targets sum
    # to a value.  A list, not a tuple: forward does `[None] + constraints` (models/mol_atom_bond.py:277).
    atom_constraints = torch.tensor([[0.5, float("nan")], [-1.0, float("nan")], [0.0, float("nan")],
                                     [2.0, float("nan")]])
    bond_constraints = torch.tensor([[1.0], [0.0], [-0.5], [0.3]])
    return model, (BatchMolAtomBondGraph(mgs),), {"constraints": [atom_constraints, bond_constraints]}


def _r15b_chemprop_spearman(training: bool) -> Built:
    from chemprop.uncertainty import SpearmanEvaluator

    preds = torch.randn(10, 2)
    targets = torch.randn(10, 2)
    # Uncertainties on a grid of quarters, so that ranks tie.
    uncs = torch.round(torch.rand(10, 2) * 4.0) / 4.0 + 0.1
    mask = torch.ones(10, 2, dtype=torch.bool)
    mask[2, 0] = False
    mask[7, 1] = False
    mask[8, 1] = False
    return SpearmanEvaluator().evaluate, (preds, uncs, targets, mask), {}


def _r15b_chemprop_atom_mp_control(training: bool) -> Built:
    from chemprop import nn as cnn
    from chemprop.data import BatchMolGraph

    featurizer, mgs = _r15b_molgraphs()
    mp = cnn.AtomMessagePassing(
        featurizer.atom_fdim, featurizer.bond_fdim, d_h=32, depth=3, dropout=0.1, undirected=True, d_vd=2,
    )
    bmg = BatchMolGraph(mgs)
    return mp, (bmg, torch.randn(bmg.V.shape[0], 2)), {}


# --- rows ------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r15b_litgpt_generate_greedy_eos", *LITGPT,
            "wrapper: litgpt.generate.base.generate(GPT(Config(n_layer=2, n_head=4, n_query_groups=2, n_embd=32, "
            "vocab 48, RMSNorm, LLaMAMLP)) with set_kv_cache(batch_size=1) in the builder, prompt (5,) int64, "
            "max_returned_tokens=16, temperature=0.0, top_k=8, eos_id=R15B_GENERATE_EOS)",
            ("litgpt.generate.base", "litgpt.model"), _r15b_litgpt_generate, modes=INFERENCE,
            notes=KV_NO_GRAD + "; greedy because `multinomial_num_samples_1` samples differently once compiled "
            "(see the module docstring); the stop token is reached part way, so the early return is taken",
            patterns="`generate` (generate/base.py:373-426, `@torch.inference_mode()`) -> `generate_fn` "
            "(base.py:129-234): `assert`/`raise` on Python ints, `yield prompt`, `all(m.__class__.__name__ != "
            "'ThunderModule' for m in model.modules())`, then per token `next_token` -> `GPT.forward` with "
            "`input_pos` (model.py:85-182: `batched_index_select` of the rope and mask caches at `input_pos`, "
            "`mask[..., :input_pos_maxp1]`, per block `CausalSelfAttention` with `KVCache.forward`'s "
            "`index_copy_` into the cache buffers, `k[..., :input_pos_maxp1, :]`, `repeat_interleave(2)` for the "
            "grouped queries, SDPA with the boolean mask) -> `sample` (base.py:54-74: `logits[0, -1]`, "
            "`torch.topk` + `full_like(-inf).scatter_`, greedy `argmax`) -> `int_token = token.item()` (a tensor "
            "value read into Python, every token) -> the stop-sequence match `if int_token == seq[stop_progress"
            "[i]]` (Python ints from the data; on the stop token `yield from tokens[...]` and `return`: the "
            "generation length depends on the data) -> `input_pos = torch.tensor([prompt_size])` then "
            "`input_pos.add_(1)` (an in-place update of a tensor fed back to the model) -> `torch.cat(token_list)`",
        ),
        Row(
            "r15b_litgpt_speculative_decoding", *LITGPT,
            "wrapper: litgpt.generate.speculative_decoding.generate(draft GPT(1 layer: the target's first "
            "layer, embeddings and head plus N(0, 0.1) noise), target GPT(2 layers, n_embd=32), prompt (4,) "
            "int64, max_returned_tokens=16, temperature=0.0, top_k=16, stop_tokens=[R15B_SPECULATIVE_STOP], "
            "speculative_k=3), KV caches set in the builder; returns (tokens, acceptance rate)",
            ("litgpt.generate.speculative_decoding", "litgpt.generate.base", "litgpt.model"),
            _r15b_litgpt_speculative, modes=INFERENCE,
            notes=KV_NO_GRAD + "; greedy (the speculative `sample` calls the same `multinomial_num_samples_1`); "
            "the rejection test still draws `torch.rand(1)` from the global generator, seeded by the harness "
            "before each call",
            patterns="`generate` (generate/speculative_decoding.py:173-302, `@torch.inference_mode()`): prefill "
            "of both models through `next_token` (GPT.forward with `input_pos`, as in the generate row), then "
            "`while input_pos < max_returned_tokens - 1:` (a 1-element tensor in a Python `while`), "
            "`_speculative_k = min(speculative_k, (max_returned_tokens - input_pos - 1).item())` -> "
            "`speculative_decoding` (speculative_decoding.py:61-169): `speculative_k` draft forwards with "
            "`sample` (topk/scatter, argmax, softmax probs) and `draft_input_pos.add_(1)`, one target forward "
            "over the k+1 candidates, per candidate `draft_probs[idx][draft_token]` (tensor indexing) and `if "
            "target_prob >= draft_prob:` (a 0-d tensor in a Python `if`), else `torch.rand(1) <= discard_prob` "
            "and `if not should_discard_token:` (another), and on rejection the adjusted distribution "
            "(`clamp`, `/ sum()`) sampled and an early `return torch.cat(...)` of data-dependent length; when "
            "all are accepted one more draft forward -> back in `generate`: `len(new_tokens)` (a data-sized "
            "result's length into Python counters), `for new_token in new_tokens: if new_token in stop_tokens:` "
            "(tensor `==` against Python ints, truth value read; the stop token breaks the loop part way), "
            "`input_pos.add_(accepted_tokens_len)`, `torch.stack(tokens)`, `torch.cat([prompt, tokens])`, "
            "`total_accepted / total_generated`",
        ),
        Row(
            "r15b_litgpt_moe_grouped_router", *LITGPT,
            "litgpt.GPT(Config(n_layer=2, LLaMAMoE with n_expert=4, n_expert_per_token=2, moe_intermediate_size="
            "16, n_shared_expert=1, first_k_dense_replace=1, n_expert_groups=2, n_topk_groups=1, "
            "n_topk_scores_per_group=1, norm_topk_prob=True, routed_scaling_factor=2.5)) after "
            "`model.apply(model._init_weights)`, on idx (2, 8) int64",
            ("litgpt.model",), _r15b_litgpt_moe,
            notes="the input is int64 token ids (no input gradient); in training every parameter gets the "
            "gradient (the router through the gathered top-k weights; `get_topk_indices` is no_grad)",
            patterns="`GPT.forward` without `input_pos` (model.py:85-182: rope cache slices, causal SDPA) -> "
            "block 0 a dense `LLaMAMLP` (`first_k_dense_replace`) -> block 1 `LLaMAMoE.forward` (model.py:"
            "859-885): `GroupedTopkRouter.forward` (model.py:921-931: float32 `F.linear`, sigmoid, "
            "`get_topk_indices` under `@torch.no_grad()`: per-group `topk`, group `topk(sorted=False)`, "
            "`scatter_` of a group mask, `masked_fill(~score_mask.bool(), 0.0)`, `topk`; `gather`, "
            "`topk_weights /= denominator` in place) -> `probs * routed_scaling_factor` -> `masks = "
            "indices.unsqueeze(-1) == arange(n_expert)`, `for mask, expert in zip(masks, self.experts):` "
            "(iterating a tensor's first dimension) `token_idx, expert_idx = torch.where(mask)` (nonzero: a "
            "data-dependent number of routed tokens per expert) and `y[token_idx] += probs[token_idx, "
            "expert_idx, None] * expert(x[token_idx])` (data-sized gather, expert MLP on it, index "
            "read-modify-write setitem) -> shared expert added -> RMSNorm, lm_head",
        ),
        Row(
            "r15b_litgpt_sliding_window_kv_decode", *LITGPT,
            "wrapper: litgpt.GPT(Config(n_layer=2, n_query_groups=2, sliding_window_size=4, "
            "sliding_window_indices=[1, 0])) with max_seq_length=12 and set_kv_cache(batch_size=1) in the "
            "builder; prefill of tokens[:, :4] (input_pos arange(4), input_pos_maxp1=4) then 5 single-token "
            "decode forwards at positions 4..8 (input_pos tensor([p]), input_pos_maxp1=p+1) over tokens (1, 9); "
            "returns the 6 last-position logits stacked (1, 6, 48)",
            ("litgpt.model",), _r15b_litgpt_sliding_window, modes=INFERENCE,
            notes=KV_NO_GRAD + " (here the forwards are plain calls under the harness's no_grad); "
            "single-token decode steps only: a multi-token chunk after the ring buffer wraps would attend to "
            "future positions (the mask is the global causal row cut to the window length, model.py:521-524, "
            "not remapped to ring slots)",
            patterns="`GPT.forward` with `input_pos` (model.py:120-182: `batched_index_select` of cos/sin and "
            "of the mask cache at `input_pos`, `mask[..., :input_pos_maxp1]`) -> layer 0 (sliding window): "
            "`KVCache.forward` ring buffer (model.py:1266-1284: `prefill_len > self.max_cache_len` test on a "
            "shape, `cache_positions = input_pos % 4`, `index_copy_` at those positions, `max_pos = "
            "input_pos.max().item()` (a tensor value read into Python, every step), `if max_pos < "
            "self.max_cache_len:` then `k[:, :, : max_pos + 1, :]` (a slice bounded by the data: 4 prefill "
            "positions, then the full 4-slot window once the buffer wraps)) -> `CausalSelfAttention` "
            "(model.py:519-529: `if mask.size(-1) != actual_kv_len: mask = mask[..., :actual_kv_len]`, a "
            "size taken from the data-sized keys; `k[..., :input_pos_maxp1, :]`) -> layer 1 (global): the "
            "plain `index_copy_` cache -> `repeat_interleave(2)` of k/v for grouped queries, SDPA with the "
            "boolean mask",
        ),
        Row(
            "r15b_litgpt_lora_control", *LITGPT,
            "litgpt.lora.GPT(lora.Config(n_layer=2, n_head=4, n_query_groups=2, n_embd=32, lora_r=4, "
            "lora_alpha=8, lora_dropout=0.1, LoRA on query, key, value, projection, mlp and head)) with "
            "`mark_only_lora_as_trainable` and lora_B drawn N(0, 0.05), on idx (2, 9) int64",
            ("litgpt.lora", "litgpt.model"), _r15b_litgpt_lora_control,
            notes="in training only the LoRA matrices require grad (`mark_only_lora_as_trainable`) and get it; "
            "LoRA dropout (0.1) draws from the global generator, seeded by the harness before each call",
            patterns="control: no tensor value reaches Python. `GPT.forward` without `input_pos` (shape tests "
            "on Python ints, `cos[:T]`) -> per block `LoRAQKVLinear.forward` (lora.py:381-415: pretrained "
            "linear, dropout, `F.linear` with lora_A, `conv1d` (lora.py:328-362: grouped queries, so "
            "`chunk(3)` and `split(qkv_shapes)` with per-part `F.conv1d`, `cat`), `zero_pad` returns early "
            "(all of q, k, v enabled: `all(self.enable_lora)`), scaling) -> rope, `repeat_interleave(2)` for "
            "grouped queries, causal SDPA (`is_causal=True`) -> LoRA projection -> LoRA `LLaMAMLP` (three "
            "`LoRALinear`s: `pretrained + (dropout(x) @ A.T @ B.T) * scaling`, lora.py:165-172) -> RMSNorm "
            "-> LoRA head",
        ),
        Row(
            "r15b_chemprop_mpnn_bond_mean_agg", *CHEMPROP,
            "chemprop.models.MPNN(BondMessagePassing(72, 14, d_h=32, depth=3, dropout=0.1), MeanAggregation(), "
            "RegressionFFN(n_tasks=2, input_dim=35, hidden_dim=16, n_layers=1, dropout=0.1), batch_norm=True) on "
            "(BatchMolGraph of 4 SMILES (16 atoms, 26 directed bonds), V_d=None, X_d (4, 3))",
            ("chemprop.models", "chemprop.nn"), _r15b_chemprop_mpnn,
            notes="the BatchMolGraph is a dataclass of tensors (atom/bond features, edge index), not an input "
            "that requires grad; in training X_d and the model's parameters get the gradient; BatchNorm uses "
            "batch statistics in training (its running stats, updated per call, are only read in inference)",
            patterns="`MPNN.forward` (models/model.py:142-146) -> `fingerprint` (model.py:126-134) -> "
            "`BondMessagePassing.forward` (nn/message_passing/base.py:196-212: `graph_transform` identity, "
            "`initialize` (mixins.py:8-9: `V[edge_index[0]]` gather, cat with E, W_i), depth-1 rounds of "
            "`message` (mixins.py:11-18: `scatter_reduce_(..., 'sum', include_self=False)` into zeros sized "
            "by the atom count, gather back at `edge_index[0]`, minus `H[rev_edge_index]`) and `update`, "
            "final scatter to atoms, `finalize` (cat with V, W_o, ReLU, dropout)) -> `MeanAggregation.forward` "
            "(nn/agg.py:73-79: `dim_size = batch.max().int() + 1` (a tensor value read into Python as the "
            "output's first dimension), `scatter_reduce_(..., 'mean')`) -> BatchNorm1d -> `torch.cat((H, "
            "X_d))` -> `RegressionFFN.forward` (MLP, `output_transform` identity)",
        ),
        Row(
            "r15b_chemprop_mol_atom_bond_constrained", *CHEMPROP,
            "chemprop.models.mol_atom_bond.MolAtomBondMPNN(MABBondMessagePassing(72, 14, d_h=32, depth=2, "
            "dropout=0.1), agg=NormAggregation(norm=10), mol/atom/bond RegressionFFN (1/2/1 tasks), "
            "atom and bond ConstrainerFFN(n_constraints=1)) on a BatchMolAtomBondGraph of the 4 SMILES with "
            "constraints=[atom sums (4, 2) with column 1 NaN, bond sums (4, 1)]; returns [mol (4, 1), atom "
            "(16, 2), bond (13, 1)] predictions",
            ("chemprop.models", "chemprop.nn"), _r15b_chemprop_mol_atom_bond,
            notes="the graph and the constraint tensors are inputs without gradient (the constraints sit in a "
            "list, which the harness leaves alone); in training the model's parameters get the gradient",
            patterns="`MolAtomBondMPNN.forward` (models/mol_atom_bond.py:255-289) -> `fingerprint` "
            "(mol_atom_bond.py:215-237) -> `MABBondMessagePassing.forward` (nn/message_passing/"
            "mol_atom_bond.py:284-305: bond messages as in the MPNN row, `vertex_finalize` and "
            "`edge_finalize`) -> `NormAggregation.forward` -> `SumAggregation.forward` (nn/agg.py:90-96: "
            "`dim_size = batch.max().int() + 1`, a tensor value read into Python as a size) `/ norm` -> "
            "`H_e[bmg.rev_edge_index]` cat -> the three predictors (the bond one wrapped: `(preds[::2] + "
            "preds[1::2]) / 2`, mol_atom_bond.py:140-145) -> `if constraints is not None:` loop over "
            "`[None, atom_constrainer, bond_constrainer]` with `bmg.bond_batch[::2]` and `[None] + "
            "constraints` -> `ConstrainerFFN.forward` (nn/ffn.py:93-141, twice: MLP, `exp`, `n_mols = "
            "constraints.shape[0]`, two `scatter_reduce_` per-molecule sums, `pred_has_constraint = "
            "~torch.isnan(constraints)[0]` (a boolean mask from the data), `constraints[:, "
            "pred_has_constraint] - per_mol_preds[:, pred_has_constraint]` (data-sized boolean-mask column "
            "selections), `w * deviation[batch]`, `cor_shape_preds[:, pred_has_constraint] = corrections` (a "
            "boolean-mask setitem), `preds + cor_shape_preds`)",
        ),
        Row(
            "r15b_chemprop_spearman_uncertainty_eval", *CHEMPROP,
            "chemprop.uncertainty.SpearmanEvaluator().evaluate(preds (10, 2), uncs (10, 2) on a grid of "
            "quarters (ties), targets (10, 2), mask (10, 2) bool with 3 entries False)",
            ("chemprop.uncertainty", "torchmetrics"), _r15b_chemprop_spearman, modes=INFERENCE,
            notes="inference only: the Spearman coefficient is computed on ranks (`argsort`, `unique`, integer "
            "rank sums), so nothing it returns carries a gradient",
            patterns="`SpearmanEvaluator.evaluate` (uncertainty/evaluator.py:190-199): per task `mask_j = "
            "mask[:, j]`, `preds[:, j][mask_j]`, `targets[:, j][mask_j]`, `uncs[:, j][mask_j]` (boolean-mask "
            "selections of data-dependent length: 9 and 8), `abs` errors, a new torchmetrics "
            "`SpearmanCorrCoef()` per task (regression/spearman.py:81-96: `rank_zero_warn` (a UserWarning "
            "inside the call), `add_state` list states) called -> `Metric.forward` (torchmetrics metric.py:"
            "287-396, `_forward_reduce_state_update`: state caching, `update`, `compute`, state restore) -> "
            "`update` (`_spearman_corrcoef_update`: dtype test, `_check_same_shape`, "
            "`_check_data_shape_to_num_outputs`; list append) -> `compute` (`dim_zero_cat`, "
            "`_spearman_corrcoef_compute` -> `_rank_data` twice (functional/regression/spearman.py:31-39: "
            "`argsort`, index setitem `rank[idx[:n]] = arange`, `torch.unique(sorted=True, return_inverse=True, "
            "return_counts=True)` (data-sized output), `scatter_add_`, `sum_ranks / counts`, `mean_ranks[inv]`), "
            "centered covariance, `clamp`) -> `torch.stack` of the two coefficients",
        ),
        Row(
            "r15b_chemprop_atom_mp_control", *CHEMPROP,
            "chemprop.nn.AtomMessagePassing(72, 14, d_h=32, depth=3, dropout=0.1, undirected=True, d_vd=2) on "
            "(BatchMolGraph of the 4 SMILES, V_d (16, 2))",
            ("chemprop.nn",), _r15b_chemprop_atom_mp_control,
            notes="in training V_d and the parameters get the gradient",
            patterns="control: no tensor value reaches Python. `_MessagePassingBase.forward` (nn/message_"
            "passing/base.py:196-212): `initialize` (mixins.py:22-23: `W_i(V[edge_index[0]])`), per round "
            "`(H + H[rev_edge_index]) / 2` (undirected), `message` (mixins.py:25-30: cat with E, "
            "`scatter_reduce_` into zeros sized by `bmg.V.shape[0]` (a shape), gather at `edge_index[0]`), "
            "`update` (W_h, ReLU, dropout) -> final `scatter_reduce_` to atoms -> `finalize` (base.py:"
            "143-194: W_o on cat with V, ReLU, dropout, `V_d_transform` identity, `try: W_d(cat((H, V_d)))` "
            "`except RuntimeError: raise InvalidShapeError` (not raised), dropout)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round fifteen (r15b)")
