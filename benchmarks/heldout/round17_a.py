"""Held-out round seventeen (r17a): trl.

Chosen by reading the library's source, written down in ROUND17.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on. Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

trl (0.19.1) is Hugging Face's RL-from-feedback library; most of it is
``Trainer`` subclasses that need datasets and tokenizers.  The rows use the
parts a user calls with tensors: the value-head wrapper
``AutoModelForCausalLMWithValueHead`` (built with ``from_pretrained`` from a
model object, which downloads nothing) and its ``forward`` and ``generate``;
PPO's rollout function ``batch_generation``; NashMD's
``GeometricMixtureWrapper`` (a ``GenerationMixin`` whose ``forward`` is
decorated ``@torch.inference_mode()``) and its ``generate``; GKD's static
``generalized_jsd_loss``; DPO's ``flush_right``/``flush_left``; PPO's
``masked_whiten``; and ``RunningMoments.update`` (decorated
``@torch.no_grad()``).  The models are tiny, built from configs with random
weights (``LlamaForCausalLM``: vocabulary 64, hidden 32, two layers, four
heads, two key-value heads; ``GPT2LMHeadModel`` likewise; token ids 0, 1, 2 are
pad, bos, eos) with ``attn_implementation='eager'``, so that transformers' SDPA
mask shortcut (``AttentionMaskConverter._ignore_causal_mask_sdpa``, a tensor
test) is not on any path; no tokenizer is used (token id tensors only).

The data-dependent code (file:line relative to the ``trl`` package, or to
``transformers`` where said): transformers' decoding loop, reached through
trl's ``generate`` wrappers (modeling_value_head.py:185-197; trainer/utils.py:
1378-1415 and the ``@torch.no_grad()`` ``batch_generation``, 1417-1447;
models/modeling_base.py:667-719): ``GenerationMixin.generate``
(transformers generation/utils.py:2225-...: the right-padding check ``torch.sum(
inputs_tensor[:, -1] == pad) > 0`` in a Python ``and``, utils.py:2384-2393;
``_prepare_special_tokens``, utils.py:2102-2182: ``isin_mps_friendly(eos,
pad).any()`` and ``(eos_token_tensor < 0).any()`` in Python ``if``\\ s), then
``_sample`` (utils.py:3464-3630: ``while self._has_unfinished_sequences(
this_peer_finished, ...)`` with ``this_peer_finished = unfinished_sequences.max()
== 0`` (utils.py:3616, a tensor tested by ``elif this_peer_finished:``,
utils.py:2748), ``torch.multinomial``, the finished rows' tokens replaced by the
pad id, the EOS criterion) and, with a cache, ``_cache_dependant_input_
preparation`` (utils.py:477-483: ``cache_position[-1] >= input_ids.shape[1]``,
a tensor in a Python ``or``); PPO's ``batch_generation`` then pads chunks whose
generated lengths depend on where the stop token was drawn (``pad``,
trainer/utils.py:427-491: ``np.max`` of the shapes, ``.tolist()``, a Python loop
of slice setitems); GKD's loss masks the divergence with a boolean mask
(gkd_trainer.py:148-217: ``jsd = jsd[labels != -100]``, a boolean-mask read of
data-dependent size); ``flush_left``/``flush_right`` (trainer/utils.py:1654-1746:
``int(empty_cols.to(torch.int8).argmax()) if empty_cols.any() else M``, a tensor
in a Python conditional and a tensor read as the slice bound); ``masked_var``
(core.py:51-67: ``if mask_sum == 0: raise ValueError``, a tensor in a Python
``if``); ``RunningMoments.update`` (trainer/utils.py:716-754, ``@torch.no_grad()``:
five ``.item()`` reads into the dataclass's Python floats).  The control is the
value-head model's ``forward`` (no tensor value reaches Python).

Global state on import: importing ``trl`` and the entry points used here
changes none of torch's global state (default dtype and device, grad mode,
threads, torch-function modes, deterministic flag, matmul precision, print
options, anomaly mode, cuDNN/TF32 flags) and leaves the root logger alone.
trl itself adds no warning filter; its dependencies add six (the same six
``import transformers, accelerate`` adds): accelerate's ignore of
``UserWarning``\\ s from ``torch.optim.lr_scheduler``, sympy's ``once`` for
``SymPyDeprecationWarning``, urllib3's and requests' four.  It imports
transformers (and through ``transformers.modeling_utils`` the ``torch._dynamo``
and ``torch._inductor`` packages, which a plain ``import torch`` does not load),
accelerate, datasets (pyarrow, pandas, aiohttp), huggingface_hub, safetensors,
rich, jinja2 and sympy.  The ``transformers`` logger gets level WARNING, a
handler and ``propagate=False``; ``datasets`` and ``huggingface_hub`` get level
WARNING and a handler.  ``from_pretrained`` (in the builders) creates accelerate's
``PartialState`` singleton (no environment variable is changed).  No row prints,
warns or logs inside the call (checked with warnings recorded and stderr
watched): the generation configs name the pad, bos and eos ids, so transformers'
"default values have been modified" message is not logged.

Library bugs found while reading (checked eagerly; no row takes these paths):
``AutoModelForCausalLMWithValueHead(pretrained_model)``, the documented
``__init__``, never sets ``is_peft_model`` (only ``from_pretrained`` does,
models/modeling_base.py:328), so its ``forward`` raises ``AttributeError:
'AutoModelForCausalLMWithValueHead' object has no attribute 'is_peft_model'``
(modeling_value_head.py:158); the rows build it with ``from_pretrained(model)``.
``RunningMoments.update`` of a single value, as DPO's ``bco_pair`` loss calls
it with a 0-d tensor (dpo_trainer.py:1068-1070), returns a NaN std
(``xs_var * 1 / (1 - 1)``, trainer/utils.py:754), and the first such update sets
``self.std`` to inf (``count`` starts at 1e-24, so ``tot_count - 1`` is 0.0 in
floating point, trainer/utils.py:750); ``bco_pair`` reads only ``mean``, so its
loss is unaffected.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

TRL = ("trl", "0.19.1")


# --- tiny models -------------------------------------------------------------------------


def _r17a_llama() -> Any:
    """A tiny LlamaForCausalLM with random weights; token ids 0, 1, 2 are pad, bos, eos."""
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, attn_implementation="eager", pad_token_id=0,
        bos_token_id=1, eos_token_id=2,
    )
    return transformers.LlamaForCausalLM(config)


def _r17a_gpt2() -> Any:
    import transformers

    config = transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                     attn_implementation="eager", pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return transformers.GPT2LMHeadModel(config)


def _r17a_value_head(base: Any) -> Any:
    from trl import AutoModelForCausalLMWithValueHead

    # from_pretrained accepts a model object (nothing is downloaded); the plain constructor leaves
    # `is_peft_model` unset (see the module docstring).
    return AutoModelForCausalLMWithValueHead.from_pretrained(base)


def _r17a_left_padded(batch: int, length: int, row: int, pads: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids in 3..63 with ``pads`` left pad positions (id 0) in row ``row``, and the attention mask."""
    ids = torch.randint(3, 64, (batch, length))
    mask = torch.ones(batch, length, dtype=torch.long)
    ids[row, :pads] = 0
    mask[row, :pads] = 0
    return ids, mask


# --- generation --------------------------------------------------------------------------


def _r17a_value_head_generate(training: bool) -> Built:
    model = _r17a_value_head(_r17a_gpt2())
    ids, mask = _r17a_left_padded(3, 6, row=2, pads=2)
    return model.generate, (), {"input_ids": ids, "attention_mask": mask, "max_new_tokens": 8, "do_sample": True,
                                "top_k": 20, "temperature": 0.8, "eos_token_id": [8, 10], "pad_token_id": 0}


def _r17a_batch_generation(training: bool) -> Built:
    from transformers import GenerationConfig
    from trl.trainer.utils import batch_generation

    policy = _r17a_llama()
    policy.eval()
    queries, _ = _r17a_left_padded(3, 5, row=0, pads=2)
    # PPO's rollout config (ppo_trainer.py:363-369) with the stop token as eos (ppo_trainer.py:145)
    config = GenerationConfig(max_new_tokens=6, temperature=0.7 + 1e-7, top_k=0.0, top_p=1.0, do_sample=True,
                              pad_token_id=0, bos_token_id=1, eos_token_id=10)
    return batch_generation, (policy, queries, 2, 0, config), {}


def _r17a_geometric_mixture_generate(training: bool) -> Built:
    from transformers import GenerationConfig
    from trl.models.modeling_base import GeometricMixtureWrapper

    policy, ref = _r17a_llama(), _r17a_llama()
    policy.eval()
    ref.eval()
    # NashMD's generation config (online_dpo_trainer.py:281-288, as NashMD inherits it) with the ids named
    config = GenerationConfig(max_new_tokens=6, temperature=0.9, top_k=50, top_p=1.0, do_sample=True,
                              pad_token_id=0, bos_token_id=1, eos_token_id=[2, 10])
    mixture = GeometricMixtureWrapper(policy, ref, config, mixture_coef=0.5, device=torch.device("cpu"))
    ids, mask = _r17a_left_padded(3, 5, row=1, pads=1)
    return mixture.generate, (), {"input_ids": ids, "attention_mask": mask, "generation_config": config}


# --- control: the value-head forward -----------------------------------------------------


def _r17a_value_head_forward_control(training: bool) -> Built:
    model = _r17a_value_head(_r17a_llama())
    ids = torch.randint(3, 64, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    ids[1, 6:] = 0
    mask[1, 6:] = 0
    labels = ids.masked_fill(mask == 0, -100)
    return model, (), {"input_ids": ids, "attention_mask": mask, "labels": labels, "use_cache": False}


# --- losses and tensor helpers -------------------------------------------------------------


def _r17a_gkd_jsd_loss(training: bool) -> Built:
    from trl.trainer.gkd_trainer import GKDTrainer

    student = torch.randn(3, 6, 64)
    teacher = torch.randn(3, 6, 64) * 2.0
    labels = torch.randint(3, 64, (3, 6))
    labels[:, :2] = -100  # the prompt positions
    labels[2, 4:] = -100  # padding
    return GKDTrainer.generalized_jsd_loss, (student, teacher), {"labels": labels, "beta": 0.5, "temperature": 0.9}


def _r17a_flush_keep_end_run(attention_mask: torch.Tensor, input_ids: torch.Tensor, loss_weights: torch.Tensor,
                             max_length: int) -> tuple[torch.Tensor, ...]:
    """DPO's 'keep_end' truncation of a concatenated prompt-completion batch (dpo_trainer.py:1255-1263):
    flush right, keep the last ``max_length`` columns, flush left."""
    from trl.trainer.utils import flush_left, flush_right

    attention_mask, input_ids, loss_weights = flush_right(attention_mask, input_ids, loss_weights)
    input_ids = input_ids[:, -max_length:]
    attention_mask = attention_mask[:, -max_length:]
    loss_weights = loss_weights[:, -max_length:]
    return flush_left(attention_mask, input_ids, loss_weights)


def _r17a_flush_keep_end(training: bool) -> Built:
    mask = torch.tensor([
        [0, 0, 1, 1, 1, 1, 1, 0, 0, 0],
        [0, 1, 1, 1, 1, 1, 1, 1, 0, 0],
        [0, 0, 0, 1, 1, 1, 0, 0, 0, 0],
    ])
    ids = torch.randint(3, 64, (3, 10)) * mask
    weights = torch.rand(3, 10) * mask  # per-token loss weights (DPO passes its 0/1 loss mask here)
    return _r17a_flush_keep_end_run, (mask, ids, weights, 6), {}


def _r17a_ppo_whiten_run(rewards: torch.Tensor, advantages: torch.Tensor,
                         padding_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's two whitenings (ppo_trainer.py:520, 534): the rewards without shifting the mean back, the
    advantages centred."""
    from trl.core import masked_whiten

    return masked_whiten(rewards, mask=~padding_mask, shift_mean=False), masked_whiten(advantages, ~padding_mask)


def _r17a_ppo_whiten(training: bool) -> Built:
    padding_mask = torch.zeros(3, 8, dtype=torch.bool)
    padding_mask[1, 5:] = True
    padding_mask[2, 3:] = True
    return _r17a_ppo_whiten_run, (torch.randn(3, 8) * 0.5 + 1.0, torch.randn(3, 8), padding_mask), {}


def _r17a_running_moments_run(moments: Any, batches: tuple[torch.Tensor, ...]) -> tuple[Any, ...]:
    """Updates the running moments with each batch; returns each update's (batch mean, batch std) and the final
    running (mean, std, var, count), all Python floats."""
    per_batch = [moments.update(xs) for xs in batches]
    return per_batch, moments.mean, moments.std, moments.var, moments.count


def _r17a_running_moments(training: bool) -> Built:
    from accelerate import PartialState
    from trl.trainer.utils import RunningMoments

    moments = RunningMoments(accelerator=PartialState())
    batches = (torch.randn(4) * 0.3, torch.randn(4) * 0.3 + 0.2, torch.randn(4) * 0.3 - 0.1)
    return _r17a_running_moments_run, (moments, batches), {}


# --- rows --------------------------------------------------------------------------------

_GEN = (
    "transformers `GenerationMixin.generate` (generation/utils.py:2225-..., `@torch.no_grad()`: "
    "`_prepare_generation_config` (a deep copy), `_prepare_special_tokens` (utils.py:2102-2182: "
    "`isin_mps_friendly(eos, pad).any()` and `(eos_token_tensor < 0).any()` in Python `if`s), the right-padding "
    "check `torch.sum(inputs_tensor[:, -1] == pad) > 0` (utils.py:2384-2393, a tensor in a Python `and`), "
    "logits processors and stopping criteria built from Python config tests) -> `_sample` (utils.py:3464-3630: "
    "`while self._has_unfinished_sequences(this_peer_finished, ...)` (utils.py:2734-2750: `elif "
    "this_peer_finished:`, a tensor in a Python `if` from the second step on) with `this_peer_finished = "
    "unfinished_sequences.max() == 0` (utils.py:3616) after each step"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r17a_trl_value_head_generate_sampling", *TRL,
            "bound method: AutoModelForCausalLMWithValueHead.from_pretrained(GPT2LMHeadModel (tiny)).generate("
            "input_ids (3, 6) (row 2 left-padded by 2), attention_mask, max_new_tokens=8, do_sample=True, top_k=20, "
            "temperature=0.8, eos_token_id=[8, 10], pad_token_id=0); returns the ids (3, 14)",
            ("trl", "transformers"), _r17a_value_head_generate, modes=INFERENCE,
            notes="inference only: the output is integer token ids, and transformers' `generate` is decorated "
            "`@torch.no_grad()`; tokens are drawn with `torch.multinomial` from torch's global generator (seeded by "
            "the harness before each call); row 0 draws a stop token at its 6th new token and row 2 at its 7th "
            "(pad ids after), row 1 runs to max_new_tokens; the value head is not used by `generate`",
            patterns="`AutoModelForCausalLMWithValueHead.generate` (modeling_value_head.py:185-197: "
            "`self.pretrained_model.generate(*args, **kwargs)`) -> " + _GEN + "; per step "
            "`prepare_inputs_for_generation` (utils.py:548-660: with the DynamicCache `_cache_dependant_input_"
            "preparation` (utils.py:477-483: `cache_position[-1] >= input_ids.shape[1]`, a tensor in a Python "
            "`or`), `position_ids` from the attention mask's `cumsum` and `masked_fill_`) -> the GPT2 forward "
            "(eager attention) -> `TemperatureLogitsWarper`, `TopKLogitsWarper` (`topk`, `masked_fill`) -> softmax, "
            "`torch.multinomial`, finished rows' tokens replaced by the pad id (`next_tokens * unfinished + pad * "
            "(1 - unfinished)`), `EosTokenCriteria` (`isin`) and `MaxLengthCriteria`, "
            "`_update_model_kwargs_for_generation` (the attention mask grown by `cat`))",
        ),
        Row(
            "r17a_trl_batch_generation_rollout", *TRL,
            "function: trl.trainer.utils.batch_generation(LlamaForCausalLM (tiny), queries (3, 5) (row 0 "
            "left-padded by 2), local_rollout_forward_batch_size=2, pad_token_id=0, GenerationConfig("
            "max_new_tokens=6, temperature=0.7 + 1e-7, top_k=0, top_p=1.0, do_sample=True, eos_token_id=10)); "
            "returns (query_responses (3, 11), the processed logits of each step (3, 6, 64))",
            ("trl", "transformers"), _r17a_batch_generation, modes=INFERENCE,
            notes="inference only: `batch_generation` is decorated `@torch.no_grad()` by trl (the PPO/RLOO rollout) "
            "and returns token ids and the sampled steps' scores without grad; the generation config is PPO's "
            "rollout config with the stop token (10) as eos; tokens are drawn from torch's global generator (seeded "
            "by the harness); in the first chunk row 0 draws the stop token at its 3rd new token (pad ids after, its "
            "scores still computed while row 1 runs 6 steps), the second chunk (row 2 alone) stops after 1 token, "
            "so `pad` pads it to 6 steps",
            patterns="`batch_generation` (trainer/utils.py:1417-1447, `@torch.no_grad()`): a Python loop over "
            "chunks of 2 queries -> `generate` (trainer/utils.py:1378-1415: `attention_mask = queries != pad` (a "
            "bool mask), `masked_fill`, `lm_backbone.generate(..., return_dict_in_generate=True, "
            "output_scores=True)`) -> " + _GEN + "; `_cache_dependant_input_preparation` (utils.py:477-483: "
            "`cache_position[-1] >= input_ids.shape[1]` in a Python `or`); the Llama forward (eager); "
            "`TemperatureLogitsWarper`; `torch.multinomial`; the finished rows' pad replacement; `EosTokenCriteria`; "
            "the chunk stops early when all its rows are finished) -> `torch.stack(output.scores, 1)`, `cat` of "
            "queries and responses -> `pad` twice (trainer/utils.py:427-491: `np.max([t.shape for t in tensors], "
            "0).tolist()` (the chunks' lengths, which depend on the drawn tokens), `torch.full`, a Python loop of "
            "slice setitems `output[i][slices] = t`) -> `view` and `[:batch_size]`",
        ),
        Row(
            "r17a_trl_geometric_mixture_generate", *TRL,
            "bound method: GeometricMixtureWrapper(policy LlamaForCausalLM (tiny), ref LlamaForCausalLM (tiny), "
            "GenerationConfig(max_new_tokens=6, temperature=0.9, top_k=50, top_p=1.0, do_sample=True, "
            "eos_token_id=[2, 10]), mixture_coef=0.5, device=cpu).generate(input_ids (3, 5) (row 1 left-padded by "
            "1), attention_mask, generation_config=...); returns the ids (3, 11)",
            ("trl", "transformers"), _r17a_geometric_mixture_generate, modes=INFERENCE,
            notes="inference only: the wrapper's `forward` is decorated `@torch.inference_mode()` by trl and "
            "`generate` `@torch.no_grad()` by transformers; the output is token ids drawn from the geometric mixture "
            "of the two models (torch's global generator, seeded by the harness): row 1 draws a stop token (10) at "
            "its 2nd new token, row 0 at its 5th (pad ids after), row 2 runs to max_new_tokens; the wrapper is not an "
            "`nn.Module`, so the builder puts both models in eval mode; NashMD calls it this way "
            "(nash_md_trainer.py:209-222)",
            patterns="`GenerationMixin.generate` on `GeometricMixtureWrapper` (models/modeling_base.py:667-719: "
            "`_validate_model_class` and `_validate_model_kwargs` delegated to the policy; `_supports_cache_class = "
            "False`, so no cache object) -> " + _GEN + "; per step the wrapper's `prepare_inputs_for_generation` "
            "(modeling_base.py:708-714: `use_cache=False`, the policy's and the reference's "
            "`prepare_inputs_for_generation` (position ids by `cumsum`/`masked_fill_`)) -> `__call__` -> `forward` "
            "(modeling_base.py:695-706, `@torch.inference_mode()`: the policy's and the reference model's full "
            "forwards, `log_softmax(0.5 * ref_logits + 0.5 * logits)` written into the output object) -> "
            "`TemperatureLogitsWarper`, `TopKLogitsWarper`, `torch.multinomial`, the finished rows' pad "
            "replacement, `EosTokenCriteria`)",
        ),
        Row(
            "r17a_trl_value_head_forward_control", *TRL,
            "module: AutoModelForCausalLMWithValueHead.from_pretrained(LlamaForCausalLM (tiny)) called with "
            "input_ids (2, 8) (row 1 right-padded by 2), attention_mask, labels (-100 at the pads), use_cache=False; "
            "returns (lm_logits (2, 8, 64), loss, value (2, 8))",
            ("trl", "transformers"), _r17a_value_head_forward_control,
            notes="in training the value head's dropout (`summary_dropout_prob` 0.1 by default) draws from torch's "
            "global generator (seeded by the harness), and the gradient reaches the Llama weights and the value "
            "head through the logits, the loss and the values",
            patterns="control: no tensor value reaches Python. `AutoModelForCausalLMWithValueHead.forward` "
            "(modeling_value_head.py:130-183: `kwargs['output_hidden_states'] = True`, `self.is_peft_model` "
            "(False) -> the Llama forward (transformers models/llama/modeling_llama.py: `_update_causal_mask` "
            "(483-550) takes the eager branch, `_prepare_4d_causal_attention_mask_with_cache_position` (552-...) "
            "builds the 4D mask with tensor ops and a slice setitem; eager attention; `ForCausalLMLoss` with "
            "`ignore_index=-100`) -> `hidden_states[-1]`, device test (Python), `ValueHead.forward` "
            "(modeling_value_head.py:50-59: dropout, a dtype test, `nn.Linear(32, 1)`) -> `squeeze(-1)`, a dtype "
            "test on the logits",
        ),
        Row(
            "r17a_trl_gkd_generalized_jsd_loss", *TRL,
            "function (static method): GKDTrainer.generalized_jsd_loss(student logits (3, 6, 64), teacher logits "
            "(3, 6, 64), labels (3, 6) with -100 at the 2 prompt positions and 2 padded positions of row 2, "
            "beta=0.5, temperature=0.9) (reduction 'batchmean'); returns the loss (a 0-d tensor)",
            ("trl",), _r17a_gkd_jsd_loss,
            notes="called as GKDTrainer.compute_loss calls it (gkd_trainer.py:241-246), without building the "
            "trainer; 10 of the 18 positions are kept by the mask; in training both logits require grad",
            patterns="`GKDTrainer.generalized_jsd_loss` (gkd_trainer.py:148-217): temperature scaling, two "
            "`log_softmax`, Python tests of `beta` (0.5: the mixture branch), `beta = torch.tensor(beta)` (a new "
            "tensor from a Python float), `torch.logsumexp(torch.stack([s + log(1 - beta), t + log(beta)]))`, two "
            "`F.kl_div(..., reduction='none', log_target=True)`, then `mask = labels != -100; jsd = jsd[mask]` "
            "(gkd_trainer.py:206-207: a boolean-mask read of data-dependent size, (10, 64)), `jsd.sum() / "
            "mask.sum()`",
        ),
        Row(
            "r17a_trl_dpo_flush_keep_end", *TRL,
            "wrapper: DPO's 'keep_end' truncation (dpo_trainer.py:1255-1263): trl.trainer.utils.flush_right("
            "attention_mask (3, 10), input_ids (3, 10), loss weights (3, 10)), the last 6 columns kept, then "
            "flush_left of the three; returns (attention_mask, input_ids, loss weights), each (3, 6)",
            ("trl",), _r17a_flush_keep_end,
            notes="DPO passes its 0/1 loss mask as the third tensor; here random per-token weights (a float tensor) "
            "take its place, so that in training the gradient flows through the two gathers and the slices to them; "
            "row 1's prompt-completion span (7 tokens) is longer than 6 and loses its first token",
            patterns="`flush_right` (trainer/utils.py:1719-1746: `clone`s, `fliplr`, `argmax`, `gather` by rolled "
            "indices, `col_sums = mask_roll.sum(0)`, `first_non_empty_col = int(non_empty_cols.to(torch.int8)."
            "argmax()) if non_empty_cols.any() else M` (trainer/utils.py:1740: a tensor in a Python conditional "
            "and a tensor read into a Python int), `mask_roll[:, first_non_empty_col:]` (a slice whose bound comes "
            "from the data: 3 leading columns dropped)) -> Python slices `[:, -6:]` -> `flush_left` (trainer/utils."
            "py:1654-1716: the same with `argmax` of the mask, `(pos + first_non_zero) % M`, `first_empty_col = "
            "int(empty_cols.to(torch.int8).argmax()) if empty_cols.any() else M` (trainer/utils.py:1709), "
            "`[:, :first_empty_col]` (here nothing to drop: the slice bound is M))",
        ),
        Row(
            "r17a_trl_ppo_masked_whiten", *TRL,
            "wrapper: PPO's two whitenings (ppo_trainer.py:520, 534): trl.core.masked_whiten(rewards (3, 8), "
            "~padding_mask, shift_mean=False) and masked_whiten(advantages (3, 8), ~padding_mask), with rows 1 "
            "and 2 padded from positions 5 and 3; returns the two whitened tensors (3, 8)",
            ("trl",), _r17a_ppo_whiten,
            notes="the mask is a bool tensor (PPO passes `~padding_mask`); in training the gradient reaches the "
            "rewards and advantages through the means and the variances",
            patterns="`masked_whiten` (core.py:70-76) -> `masked_mean` (core.py:43-48: `(values * mask).sum() / "
            "mask.sum()`) and `masked_var` (core.py:51-67: the centred masked mean, `mask_sum = mask.sum()`, `if "
            "mask_sum == 0: raise ValueError` (core.py:58, a tensor in a Python `if`), Bessel's correction "
            "`mask_sum / (mask_sum - 1)`) -> `(values - mean) * torch.rsqrt(var + 1e-8)`; the first call then "
            "`whitened += mean` (`shift_mean=False`, an in-place add); the same again for the advantages",
        ),
        Row(
            "r17a_trl_running_moments_update", *TRL,
            "wrapper: RunningMoments(accelerator=accelerate.PartialState()).update(xs) for three batches of 4 "
            "rewards; returns the three (batch mean, batch std) pairs and the final running (mean, std, var, count), "
            "all Python floats",
            ("trl",), _r17a_running_moments, modes=INFERENCE,
            notes="inference only: `update` is decorated `@torch.no_grad()` and returns Python floats (nothing to "
            "backpropagate); the RunningMoments (a dataclass that keeps its state in Python floats) is an argument, "
            "built fresh for every call; `update` reads only the accelerator's `use_distributed` (False); DPO's "
            "`bco_pair` loss keeps one such object (dpo_trainer.py:502, 1068-1070) but passes single values, which "
            "hit the NaN std of the module docstring, so the rows' batches have 4 values",
            patterns="per batch `RunningMoments.update` (trainer/utils.py:728-754, `@torch.no_grad()`): "
            "`self.accelerator.use_distributed` (a Python property), `xs.numel()`, `torch.var_mean(xs, "
            "unbiased=False)`, `.float()`, Python-float and tensor arithmetic mixed (`xs_mean - self.mean`, `delta**2 "
            "* self.count * xs_count / tot_count`), `self.mean += (...).item()`, `self.std = (...).float().sqrt()"
            ".item()`, `self.var = new_var.item()` (trainer/utils.py:748-751: tensor values read into the "
            "dataclass's Python floats, which the next update computes with), `return xs_mean.item(), (...).item()`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round seventeen (a)")
