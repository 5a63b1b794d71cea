"""Held-out round sixteen (r16b): peft.

Chosen by reading the library's source, written down in ROUND16.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

peft wraps a transformers model: ``get_peft_model(model, config)`` replaces the
targeted ``Linear``/``Conv1D`` layers by tuner layers and returns a
``PeftModelForCausalLM`` whose ``forward`` and ``generate`` a user calls.  Every
row builds a tiny model from a config with random weights
(``LlamaForCausalLM``: vocabulary 64, hidden 32, two layers, four heads, two
key-value heads; ``GPT2LMHeadModel`` likewise) with ``attn_implementation=
'eager'``, so that transformers' SDPA mask shortcut, which tests
``torch.all(attention_mask == 1)`` and ``is_torchdynamo_compiling()``
(modeling_attn_mask_utils.py:264-292), is not on any path; the model calls pass
``use_cache=False`` (no ``DynamicCache`` object in the outputs) except
``generate``.  Adapter weights are made non-trivial in the builders
(``init_lora_weights=False`` or seeded draws), as after some training.

The data-dependent code (file:line relative to the ``peft`` package):
AdaLoRA's budget allocation (tuners/adalora/layer.py:390-515, called by
``AdaLoraModel.update_and_allocate``, tuners/adalora/model.py:328-364): the
sensitivity EMAs of every ``lora_`` parameter from ``p * p.grad``, then
``torch.kthvalue(torch.cat(all_score), k=init_bgt - budget)[0].item()`` (the
masking threshold read into Python), ``p.masked_fill_(triplet_ipt[n] <=
threshold, 0.0)`` and ``(~(...)).view(-1).tolist()`` (the rank pattern as
Python bools), and in the final phase ``torch.Tensor(rank_pattern[key])`` back
from those lists; activated LoRA's invocation search
(tuners/lora/variants.py:652-720: per row ``(sequence == tok0).nonzero()``,
``start_idx_tensor.item()`` per candidate, ``torch.equal`` of a slice with the
invocation tokens, offsets as Python ints) and its masked update
(variants.py:633-648: ``res_flat[mask_flat] += lora_B(lora_A(x_flat[mask_flat]))``,
a boolean-mask setitem whose row count comes from the data); the mixed-batch
forward (tuners/lora/layer.py:853-897: ``set(adapter_names)``, Python index
lists, ``x[indices]`` and ``result[indices] +=``); Poly's router
(tuners/poly/router.py:62-80: ``if task_ids.max().item() >= self.n_tasks:
raise``, once per adapted layer); CPT (tuners/cpt/model.py:66-201:
``if torch.any(projection_mask):`` with boolean-mask multiply-setitems, the
projected weight assigned to ``delta_embedding.weight.data`` at every forward,
and the weighted loss's per-example ``.unique()`` of the label types, a Python
loop over them with boolean-mask setitems, ``loss[shift_labels_bool]``;
peft_model.py:2173-2227: ``input_type_mask[input_type_mask > 0] += ...``,
``cpt_labels[~labels_idx] = -100``); PSOFT's Cayley-Neumann bound
(tuners/psoft/layer.py:118-121: ``if torch.isfinite(norm) and norm > eps:``);
VB-LoRA's training-time check (tuners/vblora/layer.py:192: ``if self.training
and vblora_logits_A[0, 0].isinf().any(): raise``); the safe merge
(tuners/lora/layer.py:984, 996: ``if not torch.isfinite(orig_weight).all():
raise``, and DoRA's weight norm, tuners/lora/variants.py:170-195, with the
unmerge-and-replay of the other adapter, layer.py:738-772).  The control is
AdaLoRA's forward with its orthogonal regularization (no tensor value reaches
Python).

Global state on import: ``import peft`` changes none of torch's global state
(default dtype and device, grad mode, threads, torch-function modes,
deterministic flag, matmul precision, print options, anomaly mode, cuDNN/TF32
flags), adds no warning filter and leaves the root logger alone.  It imports
transformers (and through ``transformers.modeling_utils`` ->
``transformers.integrations.flex_attention`` the ``torch._dynamo`` and part of
the ``torch._inductor`` packages, which a plain ``import torch`` does not load),
accelerate, huggingface_hub, safetensors, tqdm, and via transformers'
generation utilities sklearn, scipy and pandas; the ``transformers`` logger
gets level WARNING, a handler and ``propagate=False``, ``huggingface_hub``
WARNING and a handler.  No row prints, warns or logs inside the call (checked
with warnings recorded and stderr watched); ``merge_and_unload`` builds a
disabled ``tqdm`` (``progressbar=False``).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

PEFT = ("peft", "0.21.2")


# --- tiny base models ------------------------------------------------------------------


def _r16b_llama() -> Any:
    """A tiny LlamaForCausalLM with random weights; token ids 0, 1, 2 are pad, bos, eos."""
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, attn_implementation="eager", pad_token_id=0,
        bos_token_id=1, eos_token_id=2,
    )
    return transformers.LlamaForCausalLM(config)


def _r16b_gpt2() -> Any:
    import transformers

    config = transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                     attn_implementation="eager")
    return transformers.GPT2LMHeadModel(config)


def _r16b_padded_batch(batch: int, length: int, pad_last: int = 2) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token ids in 7..63 (so that no id is an invocation token by chance), a right-padded attention mask
    (the last row has ``pad_last`` pad positions) and labels with -100 at the pads."""
    ids = torch.randint(7, 64, (batch, length))
    mask = torch.ones(batch, length, dtype=torch.long)
    mask[-1, length - pad_last:] = 0
    ids[-1, length - pad_last:] = 0
    labels = ids.masked_fill(mask == 0, -100)
    return ids, mask, labels


# --- AdaLoRA -----------------------------------------------------------------------------


def _r16b_adalora_model(training: bool) -> Any:
    from peft import AdaLoraConfig, get_peft_model

    config = AdaLoraConfig(
        init_r=6, target_r=2, tinit=1, tfinal=2, deltaT=1, total_step=6, lora_alpha=8, orth_reg_weight=0.1,
        target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM",
    )
    model = get_peft_model(_r16b_llama(), config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_E" in name:
                p.normal_(std=0.05)  # singular values of a partly trained adapter
    return model


def _r16b_adalora_steps_run(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                            labels: torch.Tensor) -> tuple[Any, ...]:
    """Six AdaLoRA training steps as peft documents them (forward with labels, ``loss.backward()``, the
    optimizer step, ``model.base_model.update_and_allocate(step)``, zero grad), the optimizer being a plain SGD
    update written inline; returns the losses, the final singular values and the final rank pattern."""
    params = [p for p in model.parameters() if p.requires_grad]
    losses = []
    with torch.enable_grad():
        for step in range(6):
            out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels, use_cache=False)
            out.loss.backward()
            with torch.no_grad():
                for p in params:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=-0.5)
            model.base_model.update_and_allocate(step)
            for p in params:
                p.grad = None
            losses.append(out.loss.detach())
    singular_values = [p.detach().clone() for n, p in model.named_parameters() if "lora_E" in n]
    return torch.stack(losses), singular_values, dict(model.peft_config["default"].rank_pattern)


def _r16b_adalora_update_and_allocate(training: bool) -> Built:
    model = _r16b_adalora_model(training)
    model.train()
    ids, mask, labels = _r16b_padded_batch(2, 8)
    return _r16b_adalora_steps_run, (model, ids, mask, labels), {}


def _r16b_adalora_forward_control(training: bool) -> Built:
    model = _r16b_adalora_model(training)
    ids = torch.randint(7, 64, (2, 8))
    return model, (), {"input_ids": ids, "labels": ids.clone(), "use_cache": False}


# --- LoRA: activated LoRA, mixed batches, generate, DoRA merge -----------------------------


def _r16b_alora_ids() -> torch.Tensor:
    """Four rows of 10 token ids with the invocation sequence [5, 6] twice (row 0: the last occurrence
    counts), a lone 5 (row 1: a candidate start that does not match), once mid-sequence (row 2) and at the
    end (row 3)."""
    ids = torch.randint(7, 64, (4, 10))
    ids[0, 3:5] = torch.tensor([5, 6])
    ids[0, 7:9] = torch.tensor([5, 6])
    ids[1, 6] = 5
    ids[2, 5:7] = torch.tensor([5, 6])
    ids[3, 8:10] = torch.tensor([5, 6])
    return ids


def _r16b_alora_config() -> Any:
    from peft import LoraConfig

    return LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "k_proj", "v_proj"], task_type="CAUSAL_LM",
                      alora_invocation_tokens=[5, 6], init_lora_weights=False)


def _r16b_alora_forward(training: bool) -> Built:
    from peft import get_peft_model

    model = get_peft_model(_r16b_llama(), _r16b_alora_config())
    ids = _r16b_alora_ids()
    return model, (), {"input_ids": ids, "labels": ids.clone(), "use_cache": False}


def _r16b_mixed_batch(training: bool) -> Built:
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(_r16b_llama(), _r16b_alora_config(), adapter_name="act")
    model.add_adapter("plain", LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "o_proj"],
                                          use_rslora=True, init_lora_weights=False, task_type="CAUSAL_LM"))
    ids = _r16b_alora_ids()
    return model, (), {"input_ids": ids, "adapter_names": ["act", "plain", "__base__", "act"], "use_cache": False}


def _r16b_alora_generate(training: bool) -> Built:
    from peft import get_peft_model

    model = get_peft_model(_r16b_llama(), _r16b_alora_config())
    ids = _r16b_alora_ids()[[0, 1, 2]]
    return model.generate, (), {"input_ids": ids, "attention_mask": torch.ones_like(ids), "max_new_tokens": 4,
                                "do_sample": False}


def _r16b_merge_run(model: Any, input_ids: torch.Tensor) -> tuple[Any, ...]:
    merged = model.merge_and_unload(safe_merge=True)
    logits = merged(input_ids=input_ids, use_cache=False).logits
    block = merged.transformer.h[0]
    return logits, block.attn.c_attn.weight.detach().clone(), block.mlp.c_fc.bias.detach().clone()


def _r16b_dora_merge_and_unload(training: bool) -> Built:
    from peft import LoraConfig, get_peft_model

    dora = LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_proj"], fan_in_fan_out=True, use_dora=True,
                      init_lora_weights=False, task_type="CAUSAL_LM")
    plain = LoraConfig(r=2, lora_alpha=4, target_modules=["c_attn", "c_fc"], fan_in_fan_out=True, use_rslora=True,
                       lora_bias=True, init_lora_weights=False, task_type="CAUSAL_LM")
    model = get_peft_model(_r16b_gpt2(), dora)
    model.add_adapter("second", plain)
    model.base_model.set_adapter(["second", "default"])
    model.eval()
    return _r16b_merge_run, (model, torch.randint(0, 64, (2, 8))), {}


# --- Poly, CPT, PSOFT, VB-LoRA ---------------------------------------------------------------


def _r16b_poly_forward(training: bool) -> Built:
    from peft import PolyConfig, get_peft_model

    config = PolyConfig(r=4, target_modules=["q_proj", "v_proj"], n_tasks=3, n_skills=2, n_splits=2,
                        init_weights=False, task_type="CAUSAL_LM")
    model = get_peft_model(_r16b_llama(), config)
    ids, mask, labels = _r16b_padded_batch(3, 8)
    return model, (), {"input_ids": ids, "attention_mask": mask, "labels": labels,
                       "task_ids": torch.tensor([2, 0, 1]), "use_cache": False}


def _r16b_cpt_run(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor, labels: torch.Tensor,
                  input_type_mask: torch.Tensor) -> tuple[Any, ...]:
    out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels, input_type_mask=input_type_mask,
                use_cache=False)
    return out.loss, out.logits


def _r16b_cpt_forward(training: bool) -> Built:
    from peft import CPTConfig, get_peft_model

    # Two in-context examples as CPT's token types write them: 1 input template, 2 input, 3 output template,
    # 4 output; the second example's types are shifted by 4.
    config = CPTConfig(
        cpt_token_ids=[10, 11, 12, 13, 14, 15, 16, 10, 17, 18, 14, 19, 20], cpt_mask=[1] * 13,
        cpt_tokens_type_mask=[1, 2, 2, 3, 4, 4, 4, 5, 6, 6, 7, 8, 8], opt_weighted_loss_type="decay",
        opt_loss_decay_factor=0.9, opt_projection_epsilon=0.2, opt_projection_format_epsilon=0.1,
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(_r16b_llama(), config)
    encoder = model.prompt_encoder["default"]
    with torch.no_grad():
        encoder.delta_embedding.weight.normal_(std=0.1)  # a trained delta, one token left untouched
        encoder.delta_embedding.weight[3] = 0.0
    model.train(training)
    ids = torch.randint(7, 64, (2, 7))
    mask = torch.ones(2, 7, dtype=torch.long)
    mask[0, -1] = 0
    types = torch.tensor([[1, 2, 2, 3, 4, 4, 0], [1, 2, 3, 4, 4, 4, 4]])
    return _r16b_cpt_run, (model, ids, mask, ids.clone(), types), {}


def _r16b_psoft_forward(training: bool) -> Built:
    from peft import PsoftConfig, get_peft_model

    config = PsoftConfig(r=4, target_modules=["q_proj", "v_proj"], use_cayley_neumann=True,
                         cayley_neumann_eps=0.9, init_weights=False, task_type="CAUSAL_LM")
    model = get_peft_model(_r16b_llama(), config)
    with torch.no_grad():
        # the first layer's generators grow past the bound (rescaled), the second layer's stay inside it
        for name, p in model.named_parameters():
            if "psoft_R" in name and name.endswith("weight") and "layers.0." in name:
                p.mul_(6.0)
    ids, mask, labels = _r16b_padded_batch(2, 8)
    return model, (), {"input_ids": ids, "attention_mask": mask, "labels": labels, "use_cache": False}


def _r16b_vblora_forward(training: bool) -> Built:
    from peft import VBLoRAConfig, get_peft_model

    config = VBLoRAConfig(r=2, num_vectors=8, vector_length=8, topk=2, target_modules=["q_proj", "v_proj"],
                          task_type="CAUSAL_LM")
    model = get_peft_model(_r16b_llama(), config)
    ids, mask, labels = _r16b_padded_batch(2, 8)
    return model, (), {"input_ids": ids, "attention_mask": mask, "labels": labels, "use_cache": False}


# --- rows ------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r16b_adalora_update_and_allocate_steps", *PEFT,
            "wrapper: six AdaLoRA training steps on get_peft_model(LlamaForCausalLM (tiny), AdaLoraConfig(init_r=6, "
            "target_r=2, tinit=1, tfinal=2, deltaT=1, total_step=6, orth_reg_weight=0.1, q_proj/v_proj of 2 layers)): "
            "per step forward with labels (input ids (2, 8), one row right-padded), loss.backward(), an inline SGD "
            "update, model.base_model.update_and_allocate(step), zero grad; returns (the 6 losses, the 4 final "
            "lora_E (6, 1), the final rank pattern dict of Python bool lists)",
            ("peft", "transformers"), _r16b_adalora_update_and_allocate, modes=INFERENCE,
            notes="inference only: the call is itself a training loop (it runs backward under `torch.enable_grad()` "
            "inside the harness's `no_grad`, writes the parameters in place and masks `lora_E` in place after the "
            "forward saved it, so a further backward by the harness would fail autograd's version check); the "
            "model is put in train mode by the builder and passed as an argument, so every call starts from a "
            "fresh model and a fresh RankAllocator; the optimizer is a plain SGD update (lr 0.5) written inline, "
            "as torch.optim is not peft's code; no randomness (lora_dropout 0)",
            patterns="per step: `PeftModelForCausalLM.forward` (peft_model.py:2085-2128: `get_alora_offsets_for_"
            "forward` -> `is_alora_relevant_in_batch` (Python config tests), `_enable_peft_forward_hooks` (nothing "
            "to do)) -> `AdaLoraModel.forward` (tuners/adalora/model.py:229-257: the Llama forward through "
            "`SVDLinear.forward` (adalora/layer.py:176-199: `result += (dropout(x) @ (lora_A * lora_E).T @ "
            "lora_B.T) * scaling / ranknum`), then the orthogonal regularization: a loop over named parameters, "
            "`p.shape == torch.Size([0])`, `torch.eye(*size, out=torch.empty_like(...))`, `torch.norm(... - I, "
            "'fro')`, `outputs.loss += 0.1 * regu_loss` (an in-place add on the output's loss)) -> `backward()` "
            "inside the call -> `AdaLoraModel.update_and_allocate(step)` (adalora/model.py:328-364: Python "
            "comparisons of step with total_step - tfinal = 4) -> `RankAllocator.update_and_allocate` "
            "(adalora/layer.py:492-502): steps 0-3 `update_ipt` (layer.py:409-433: `deepspeed_config()` (None), "
            "`(p * p.grad).abs()`, the two EMAs, dict writes); `budget_schedule` (layer.py:390-407, Python "
            "ints: steps 0-1 warm-up, budget 24, no mask; steps 2 and 3 budgets 12 and 8 (cubic schedule), "
            "`mask_ind` from `step % 1 == 0`) "
            "-> `mask_to_budget` (layer.py:440-490, steps 2, 3 and 4 (forced, budget 8)): per-triplet scores "
            "(`mean`, `cat`, sums), `torch.kthvalue(torch.cat(all_score), k=24 - budget)[0].item()` (layer.py:"
            "478-481, the threshold read into Python), per lora_E `p.masked_fill_(triplet_ipt[n] <= threshold, "
            "0.0)` and `(~(triplet_ipt[n] <= threshold)).view(-1).tolist()` (layer.py:488-489, the rank pattern "
            "as Python bools), `if rank_pattern:` and `lora_config.rank_pattern = ...` (config writes); step 4 "
            "also `reset_ipt()`; step 5 `mask_using_rank_pattern` (layer.py:504-515: `next(iter(keys))` string "
            "test, `torch.Tensor(rank_pattern[key])` built from the Python lists, `p.masked_fill_(~mask.bool(), "
            "0.0)`)",
        ),
        Row(
            "r16b_adalora_orth_reg_forward_control", *PEFT,
            "module: get_peft_model(LlamaForCausalLM (tiny), AdaLoraConfig(init_r=6, target_r=2, total_step=6, "
            "orth_reg_weight=0.1, q_proj/v_proj)) called with input ids (2, 8), labels, use_cache=False; returns "
            "the CausalLMOutputWithPast (loss with the orthogonal regularization, logits (2, 8, 64))",
            ("peft", "transformers"), _r16b_adalora_forward_control,
            notes="in training the lora_A/lora_E/lora_B parameters get the gradient (the base weights are frozen by "
            "peft); no attention mask is passed, so transformers builds the causal mask from cache_position alone",
            patterns="control: no tensor value reaches Python. `PeftModelForCausalLM.forward` (peft_model.py:"
            "2085-2128: Python config tests, `self.base_model.config.model_type == 'mpt'`, an empty "
            "`_enable_peft_forward_hooks` context, a dict comprehension over kwargs) -> `AdaLoraModel.forward` "
            "(tuners/adalora/model.py:229-257) -> the Llama forward (eager attention; `_update_causal_mask` "
            "builds the 4D mask from `cache_position` with tensor ops only) through four `SVDLinear.forward` "
            "(adalora/layer.py:176-199: `result += (x @ (A * E).T @ B.T) * scaling / (ranknum + 1e-5)`) -> "
            "transformers' `ForCausalLMLoss` -> the orthogonal regularization (model.py:239-256: a Python loop over "
            "`named_parameters()` with name tests, `p.shape == torch.Size([0])` (a shape), `torch.eye(*size, "
            "out=torch.empty_like(para_cov))`, `I.requires_grad = False`, Frobenius norms summed, `if num_param > "
            "0` (a Python int), `outputs.loss += 0.1 * regu_loss`)",
        ),
        Row(
            "r16b_alora_invocation_forward", *PEFT,
            "module: get_peft_model(LlamaForCausalLM (tiny), LoraConfig(r=4, alpha=8, q/k/v_proj, "
            "alora_invocation_tokens=[5, 6])) called with input ids (4, 10) (invocation [5, 6] twice in row 0, a "
            "lone 5 in row 1, once mid-row in row 2, at the end of row 3), labels, use_cache=False; returns the "
            "CausalLMOutputWithPast (loss, logits (4, 10, 64))",
            ("peft", "transformers"), _r16b_alora_forward,
            notes="activated LoRA applies the adapter only from the last invocation sequence on; in training the "
            "lora_A/lora_B weights get the gradient through the masked rows only; needs transformers >= 4.52.1 "
            "(tuners/lora/model.py:581-585 raises otherwise; 4.52.4 is installed)",
            patterns="`PeftModelForCausalLM.forward` -> `get_alora_offsets_for_forward` (tuners/lora/variants.py:"
            "742-770) -> `calculate_alora_offsets` (variants.py:652-720): a Python loop over the 4 rows, "
            "`torch.tensor(invocation_tokens)`, per row `possible_starts = (sequence == tok[0]).nonzero(as_tuple="
            "True)[0]` (a data-dependent size: 2, 1, 1, 1 candidates), `for start_idx_tensor in possible_starts: "
            "idx = start_idx_tensor.item()` (variants.py:709-710, iteration over a tensor and a value read into "
            "Python), `if torch.equal(sequence[idx:idx + 2], tok)` (variants.py:712, a tensor comparison as a "
            "Python bool; false for row 1), `max`, offsets [3, None, 5, 2] as Python ints -> "
            "`LoraModel._enable_peft_forward_hooks` (tuners/lora/model.py:566-630: the transformers version "
            "check, `GradientCheckpointingLayer` tests over `named_modules()`, a forward pre-hook registered on "
            "each of the 6 LoRA layers inside the call and removed at exit) -> per LoRA layer `Linear.forward` "
            "(tuners/lora/layer.py:1074-1113) -> `ALoraLinearVariant.forward` (variants.py:605-649: "
            "`torch.tensor([0 if o is None else min(int(o), T) ...])` from the Python offsets, `pos >= (T - "
            "offsets)` mask, `res_flat[mask_flat] += lora_B(lora_A(dropout(x_flat[mask_flat]))) * scaling` "
            "(variants.py:648: a boolean-mask read and an in-place boolean-mask setitem of 10 rows))",
        ),
        Row(
            "r16b_lora_mixed_batch_adapter_names", *PEFT,
            "module: get_peft_model(LlamaForCausalLM (tiny)) with two adapters, 'act' (aLoRA, r=4, q/k/v_proj, "
            "invocation [5, 6]; active) and 'plain' (LoRA r=4, use_rslora, q/v/o_proj), called with input ids "
            "(4, 10), adapter_names=['act', 'plain', '__base__', 'act'], use_cache=False; returns the "
            "CausalLMOutputWithPast (logits (4, 10, 64))",
            ("peft", "transformers"), _r16b_mixed_batch, modes=INFERENCE,
            notes="inference only: peft refuses `adapter_names` in training mode (tuners/lora/model.py:633-634 "
            "raises 'Cannot pass `adapter_names` when the model is in training mode'); `set(adapter_names)` "
            "iterates in an order that depends on string hashing, but the sub-batches are disjoint, so the "
            "result does not",
            patterns="`PeftModelForCausalLM.forward` -> `get_alora_offsets_for_forward` (the active adapter is an "
            "aLoRA) -> `calculate_alora_offsets` with adapter_names (tuners/lora/variants.py:652-720: rows 1 and 2 "
            "skipped by name (`'__base__'`, no invocation tokens), rows 0 and 3: `nonzero`, `.item()` per "
            "candidate, `torch.equal`) -> `LoraModel._enable_peft_forward_hooks` (tuners/lora/model.py:566-645: "
            "pre-hooks for the offsets and for the adapter names on every LoRA layer, registered and removed "
            "inside the call; the check of the names against every layer's `lora_A.keys()`) -> per LoRA layer "
            "`_check_forward_args` (tuners/lora/layer.py:826-851: `len(x) != len(adapter_names)`, merged and DoRA "
            "tests) -> `_mixed_batch_forward` (layer.py:853-897: `unique_adapters = set(adapter_names)`, Python "
            "index lists per adapter, `sub_batch = x[indices]` (advanced indexing by a Python list); 'plain': "
            "`result[indices] += lora_B(lora_A(dropout(sub_batch))) * scaling`; 'act': the offsets sliced per "
            "sub-batch, `ALoraLinearVariant.forward` on `result[indices]` (variants.py:605-649: the boolean-mask "
            "setitem `res_flat[mask_flat] += ...`), then `result[indices] = lora_output` (an index setitem))",
        ),
        Row(
            "r16b_alora_generate_greedy", *PEFT,
            "bound method: PeftModelForCausalLM.generate of get_peft_model(LlamaForCausalLM (tiny), aLoRA "
            "LoraConfig(r=4, q/k/v_proj, invocation [5, 6])) with input ids (3, 10), attention mask of ones, "
            "max_new_tokens=4, do_sample=False; returns the generated ids (3, 14)",
            ("peft", "transformers"), _r16b_alora_generate, modes=INFERENCE,
            notes="inference only: the output is integer token ids (greedy decoding; nothing random); the model "
            "decodes with a DynamicCache; the generated continuations stop at max_new_tokens (no eos is drawn)",
            patterns="`PeftModelForCausalLM.generate` (peft_model.py:2229-2248: swaps `prepare_inputs_for_"
            "generation` on the base model (attribute writes), restores it after) -> `get_alora_offsets_for_"
            "generate` (tuners/lora/variants.py:772-807) -> `calculate_alora_offsets` on the prompt (variants.py:"
            "652-720: `nonzero`, `.item()` per candidate start, `torch.equal`; offsets [3, None, 5]) -> "
            "`_enable_peft_forward_hooks` (offset pre-hooks on the 6 LoRA layers) -> transformers "
            "`GenerationMixin.generate` -> `_sample` (transformers/generation/utils.py:3464-3630, the decoding loop: "
            "`while self._has_unfinished_sequences(this_peer_finished, ...)` (utils.py:2734-2750: `elif "
            "this_peer_finished:`, a tensor in a Python `if` from the second step on) with `this_peer_finished = "
            "unfinished_sequences.max() == 0` (utils.py:3616) after each step, "
            "stopping criteria (`MaxLengthCriteria`), `argmax`, `torch.cat` of the new token) -> per step "
            "`PeftModelForCausalLM.prepare_inputs_for_generation` (peft_model.py:2252-2380: version comparisons, "
            "`is_prefill = cache_position[0] == 0` kept as a tensor) -> the Llama forward -> per LoRA layer "
            "`ALoraLinearVariant.forward` (variants.py:605-649: offsets clipped to T (10 at prefill, 1 per decode "
            "step) by `min(int(o), T)`, `res_flat[mask_flat] += ...`)",
        ),
        Row(
            "r16b_dora_merge_and_unload_safe", *PEFT,
            "wrapper: merge_and_unload(safe_merge=True) of get_peft_model(GPT2LMHeadModel (tiny, Conv1D layers)) "
            "with adapters 'second' (LoRA r=2, use_rslora, lora_bias=True, c_attn/c_fc) and 'default' (DoRA r=4, "
            "c_attn/c_proj), both active in that order, then the merged model's forward on input ids (2, 8); "
            "returns (logits (2, 8, 64), block 0's merged c_attn weight (32, 96), its merged c_fc bias (128,))",
            ("peft", "transformers"), _r16b_dora_merge_and_unload, modes=INFERENCE,
            notes="inference only: merging writes `weight.data` and `bias.data` (no gradient path to the adapter "
            "weights), and the merged base weights are frozen; the peft model is an argument, built fresh for "
            "every call, because the merge replaces its layers; c_attn carries both adapters, so the DoRA merge "
            "unmerges and re-merges the plain one",
            patterns="`BaseTuner._unload_and_optionally_merge` (tuners/tuners_utils.py:679-740: `_check_merge_"
            "allowed`, a walk of `named_modules()` with prefix tests, a disabled `tqdm`, `onload_layer`, per tuner "
            "layer `Linear.merge(safe_merge=True)` then `_replace_module`) -> `Linear.merge` (tuners/lora/layer.py:"
            "952-1018: `check_adapters_to_merge`; plain LoRA: `weight.data.clone()`, `get_delta_weight` (transpose "
            "for fan_in_fan_out), `if not torch.isfinite(orig_weight).all(): raise` (layer.py:984, a tensor in a "
            "Python `if`), the bias `new_bias = bias + lora_B.bias * scaling`, `if not torch.isfinite(new_bias)."
            "all(): raise` (layer.py:996), `.data` assignments; DoRA: `DoraLinearVariant.merge_safe` "
            "(tuners/lora/variants.py:170-195) -> `_unmerged_base_weight(safe_merge=True)` (layer.py:738-772: "
            "on c_attn `self.unmerge()` of 'second' (`weight.data -= delta`, `bias.data -= ...`), a cloned weight "
            "cached, then in `finally` `self.merge(safe_merge=True, ['second'])` again with its isfinite checks) -> "
            "`DoraLinearLayer.get_weight_norm` (dora.py:86-91: `torch.linalg.norm(weight, dim=1)`), the DoRA factor, "
            "`_cache_store`) then layer.py:984's check) -> the `tie_word_embeddings` test (tuners_utils.py:722-738: "
            "`data_ptr()` comparison of the embeddings, Python) -> the merged GPT2 forward",
        ),
        Row(
            "r16b_poly_task_ids_forward", *PEFT,
            "module: get_peft_model(LlamaForCausalLM (tiny), PolyConfig(r=4, n_tasks=3, n_skills=2, n_splits=2, "
            "q_proj/v_proj)) called with input ids (3, 8) (last row right-padded), attention mask, labels, "
            "task_ids [2, 0, 1], use_cache=False; returns the CausalLMOutputWithPast (loss, logits (3, 8, 64))",
            ("peft", "transformers"), _r16b_poly_forward,
            notes="in training the router's skill weights are sampled (`RelaxedBernoulli(...).rsample()`, from "
            "torch's global generator, seeded by the harness before each call) and the router logits and the "
            "LoRA skill matrices get the gradient; in evaluation they are `sigmoid`s",
            patterns="`PeftModelForCausalLM.forward` (peft_model.py:2116-2117: `kwargs['task_ids'] = task_ids` for "
            "POLY) -> `PolyModel.forward` (tuners/poly/model.py:70-100: `_manage_pre_hooks`: a forward pre-hook "
            "that injects task_ids registered on each of the 4 Poly layers inside the call, removed in `finally`) "
            "-> per Poly layer `Linear.forward` (tuners/poly/layer.py:129-161) -> `PolyRouter.forward` (tuners/poly/"
            "router.py:62-80: `if task_ids.max().item() >= self.n_tasks: raise ValueError` (router.py:65, a tensor "
            "value read into Python in a Python `if`, 4 times per call), `module_logits[task_ids]`, training: "
            "`RelaxedBernoulli(temperature=1.0, logits=...).rsample()` (torch.distributions: argument validation "
            "of the logits) / evaluation: `sigmoid`; normalization) -> two `einsum`s mixing the skills per "
            "example, `result += x.bmm(A).bmm(B) / r` (in place)",
        ),
        Row(
            "r16b_cpt_forward_decay_loss", *PEFT,
            "wrapper: get_peft_model(LlamaForCausalLM (tiny), CPTConfig(13 context tokens of two examples with "
            "token types [1, 2, 2, 3, 4, 4, 4, 5, 6, 6, 7, 8, 8], opt_weighted_loss_type='decay', "
            "opt_loss_decay_factor=0.9)) called with input ids (2, 7), attention mask (one pad), labels and "
            "input_type_mask (2, 7); returns (loss, logits (2, 20, 64))",
            ("peft", "transformers"), _r16b_cpt_forward,
            notes="the model is an argument (built fresh for every call) because CPT's forward overwrites its own "
            "delta embedding (`delta_embedding.weight.data = self.get_projection()`) at every call; it is put in "
            "train or eval mode by the builder; the delta embedding is drawn in the builder (one token left at "
            "zero, so the projection mask is mixed); in training only `delta_embedding.weight` gets the gradient, "
            "masked by CPT's registered tensor hook to the template and input tokens; note that the call also "
            "rewrites the caller's `input_type_mask` in place (a fresh one per build)",
            patterns="`PeftModelForCausalLM.forward` (peft_model.py:2130-2160: `_get_batch_size`, the prompt "
            "attention mask concatenated (`torch.ones(2, 13)`, `cat`), `_adjust_prompt_learning_kwargs`) -> "
            "`_cpt_forward` (peft_model.py:2173-2227): `get_prompt` -> `CPTEmbedding.forward` (tuners/cpt/model.py:"
            "66-85: the frozen embedding under `no_grad`, then `self.delta_embedding.weight.data = "
            "self.get_projection()` (a `.data` write) -> `get_projection` (model.py:126-143: row norms, "
            "`projection_mask = token_norm > 0`, `if torch.any(projection_mask):` (model.py:137, a tensor in a "
            "Python `if`), `get_epsilon` (model.py:104-124: `torch.Tensor` of the Python type list, three "
            "boolean-mask setitems), `new_embeddings_weights[projection_mask] *= ...` (a boolean-mask "
            "multiply-setitem of 12 rows))); `cat` of prompts and embeddings; labels: `torch.Tensor(cpt_token_ids)`, "
            "`adjusted_input_type_mask[adjusted_input_type_mask > 0] += prefix_type_mask.max()` (peft_model.py:"
            "2208, a boolean-mask setitem on the caller's tensor), `cpt_labels[~labels_idx] = -100` (a boolean-mask "
            "setitem) -> the Llama forward on inputs_embeds (2, 20, 32) -> `CPTEmbedding.calculate_loss` (model.py:"
            "145-201: `CrossEntropyLoss(reduction='none')`, per example `labels_ids = shift_cpt_type_mask[i]"
            "[idx_labels].unique()` (model.py:188, a boolean-mask read then `unique`: 3 label types per example here), "
            "`for label_mask_idx in torch.flip(labels_ids, [0]):` (iteration over a tensor of data-dependent "
            "length) `exponential_decay[mask == label_mask_idx] = decay_value` (boolean-mask setitems, the decay a "
            "Python float), `loss[shift_labels_bool] * weights[shift_labels_bool]` (boolean-mask reads), `.mean()`; "
            "`base_model_output.loss = loss`); in training CPT's tensor hook (model.py:98-102) masks the gradient",
        ),
        Row(
            "r16b_psoft_cayley_neumann_forward", *PEFT,
            "module: get_peft_model(LlamaForCausalLM (tiny), PsoftConfig(r=4, q_proj/v_proj, use_cayley_neumann="
            "True, cayley_neumann_eps=0.9, random R generators, scaled by 6 in layer 0)) called with input ids "
            "(2, 8) (last row right-padded), attention mask, labels, use_cache=False; returns the "
            "CausalLMOutputWithPast (loss, logits (2, 8, 64))",
            ("peft", "transformers"), _r16b_psoft_forward,
            notes="the frozen A/B factors come from an SVD of the base weights in the builder; in training the "
            "skew generators and the two magnitude vectors of each OrthLayer get the gradient",
            patterns="per PSOFT layer `Linear.forward` (tuners/psoft/layer.py:447-483: `_get_psoft_ab_cache_"
            "buffers`, `x @ A.t()`) -> `OrthLayer.forward` (layer.py:99-107) -> `get_matrix` (layer.py:125-171: "
            "`_skew_symmetric` (`index_put` into a zero matrix), `_project_Q` (layer.py:118-121: `norm = "
            "torch.linalg.norm(Q, ord='fro')`, `if torch.isfinite(norm) and norm > eps:` (a tensor in a Python "
            "`if`, once per PSOFT layer: true for the two layer-0 generators (norms 1.9 and 1.8, rescaled), "
            "false for the two layer-1 ones (0.24 and 0.38)), `t = int(5)`, the "
            "Neumann series with in-place `add_`s on a clone of the identity, the magnitude vectors) -> `(xr - "
            "xa) @ B.t()`, `result + delta_y * scaling`",
        ),
        Row(
            "r16b_vblora_forward", *PEFT,
            "module: get_peft_model(LlamaForCausalLM (tiny), VBLoRAConfig(r=2, num_vectors=8, vector_length=8, "
            "topk=2, q_proj/v_proj)) called with input ids (2, 8) (last row right-padded), attention mask, labels, "
            "use_cache=False; returns the CausalLMOutputWithPast (loss, logits (2, 8, 64))",
            ("peft", "transformers"), _r16b_vblora_forward,
            notes="in training the shared vector bank and the logits get the gradient; the data-dependent check "
            "runs in training only (in evaluation `self.training` short-circuits it)",
            patterns="per VB-LoRA layer `Linear.forward` (tuners/vblora/layer.py:235-252) -> `_get_lora_matrices` "
            "(layer.py:187-214: `if self.training and vblora_logits_A[0, 0].isinf().any(): raise RuntimeError` "
            "(layer.py:192, a tensor in a Python `if`, training only), then `_get_low_rank_matrix` twice "
            "(layer.py:182-185: `logits.topk(2)`, `softmax`, `vector_bank[indices]` (a gather by the top-k "
            "indices), weighted sum)) -> `F.linear(F.linear(dropout(x), A), B)`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round sixteen (r16b)")
