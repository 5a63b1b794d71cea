"""Held-out round seventeen (r17b): mambapy (mamba.py).

Chosen by reading the library's source, written down in ROUND17.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on. Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

mambapy 1.2.0 is pure PyTorch: ``mamba.py`` (``Mamba``/``MambaBlock``, the
selective scan), ``pscan.py`` (the Blelloch parallel scan as a
``torch.autograd.Function`` with a hand-written backward), ``jamba.py``
(``JambaLM``: Mamba and grouped-query attention layers, sparse MoE MLPs, its own
``generate``), ``vim.py`` (``VMamba``, the bidirectional Vision-Mamba blocks),
``lm.py`` (``LM`` over Mamba or Mamba-2) and ``onnx/`` (an export variant whose
``MambaLM.forward`` is one recurrent step).  Which scan the rows take: every
config keeps ``use_cuda=False`` (the default; ``MambaBlock.__init__``,
mamba.py:188-194, would otherwise try ``mamba_ssm``'s ``selective_scan_fn``)
and ``pscan=True`` (the default), so ``MambaBlock.ssm`` (mamba.py:236-272) takes
``selective_scan`` (mamba.py:274-295), which calls ``pscan`` (pscan.py:226);
no ``mamba_ssm``, ``causal_conv1d`` or triton code is imported or run (none is
installed).  The recurrent rows take ``MambaBlock.step``/``ssm_step``
(mamba.py:351-414), which never calls the scan.

The data-dependent code (file:line relative to the ``mambapy`` package): the
sparse MoE block (jamba.py:462-521: ``torch.topk`` of the routing softmax,
``one_hot`` of the chosen experts, then per expert ``idx, top_x =
torch.where(expert_mask[expert_idx])`` (a nonzero of data-dependent size), ``if
top_x.shape[0] == 0: continue`` (an expert that got no token is skipped: a
Python test on that size), ``top_x.tolist()`` and ``idx.tolist()`` (the routed
token and slot indices read into Python lists), ``x[None, top_x_list]`` and
``routing_weights[top_x_list, idx_list, None]`` (advanced indexing by those
lists) and ``index_add_`` by ``top_x``; the dense block's router logits are a
fresh ``torch.ones(..., requires_grad=x.requires_grad)`` leaf made in the call,
jamba.py:474-482); ``JambaLM.generate`` (jamba.py:204-247: ``self.eval()``,
the tokenizer call, per layer ``get_empty_cache``, a Python loop of single-token
``step`` calls under ``torch.no_grad()`` with ``input_ids[:, [i]]`` (a Python
list index), no sampling while the prompt is read, then ``softmax`` of
``logits / temperature``, ``topk`` and ``probs[probs < values[:, -1, None]] = 0``
(a boolean-mask setitem), ``torch.multinomial`` or ``argmax``, ``torch.cat`` of
the new token, ``if next_token.item() == tokenizer.eos_token_id: break``
(jamba.py:237, a tensor value read into Python that ends the loop), then
``output.tolist()`` and ``tokenizer.decode``, ``self.train()``); the recurrent
caches (jamba.py:379-388, 425-429, 442-443: ``if cache is None``, ``if
past_keys is not None`` then ``torch.cat`` of the kv cache, ``is_causal=(cache
is None)``; mamba.py:405: ``if h is None`` then zeros); ``load_balancing_loss``
(jamba.py:541-559: a list filter on ``r.shape[1] > 1``, ``topk``, ``one_hot``).
The parallel scan's Python decisions read shapes only (pscan.py:165-186:
``if L == npo2(L)`` clone or pad to the next power of two, ``num_steps =
int(math.log2(L))`` Python loops of in-place ``add_``/``mul_`` on strided views,
the 4/2/1-node tests on ``Xa.size(2)``; the backward, pscan.py:188-224, does the
same on the reversed scan and a shifted ``A``).  The control is ``VMamba``'s
bidirectional forward (no tensor value reaches Python).

Not chosen: ``mambapy.lm`` (``LM``, its ``generate`` and ``from_pretrained``)
cannot be imported in this environment: it imports ``mambapy.mamba2``, which
imports ``einops`` (not a declared dependency of the wheel, which requires only
torch) and then unconditionally ``mamba_ssm.ops.triton.ssd_combined``
(mamba2.py:18, 30-31), so ``LM`` is unusable without the CUDA/triton
``mamba_ssm`` even for a Mamba-1 config, and ``Mamba2Block`` asserts the triton
gated RMSNorm (mamba2.py:195).  ``onnx/onnx_convert.py`` and
``onnx/onnx_usage.py`` are scripts that download a checkpoint (and read stdin)
at import.  The plain ``Mamba`` backbone is on the Jamba rows' path (each
``MambaLayer`` is a ``MambaBlock``, with ``inner_layernorms=True``).

Library bugs found (checked eagerly): ``JambaLM.generate`` fails for
``batch_size > 1`` (jamba.py:237: ``next_token.item()`` on a ``(batch_size,)``
tensor raises "a Tensor with 2 elements cannot be converted to Scalar"), so the
generate rows use one prompt; ``JambaLM.__init__`` with ``tie_lm_weights=True``
(the default) does not keep the padding row of the embedding at zero
(jamba.py:166-169, 257-260: ``_init_weights`` zeroes ``embedding.weight
[padding_idx]``, then reaches the tied ``lm_head`` Linear last and redraws the
whole shared weight).  Neither matters to the rows (the padding id never occurs
in their inputs).

Global state on import: ``import mambapy.jamba`` and ``mambapy.vim`` import
only torch (and ``mambapy.mamba``/``mambapy.pscan``); they change none of
torch's global state (default dtype and device, grad mode, threads,
torch-function modes, deterministic flag, matmul precision, print options,
anomaly mode), add no warning filter and no logger.  No row prints, warns or
logs inside the call (``MambaBlock.__init__`` prints only when ``use_cuda=True``
and ``mamba_ssm`` is missing, and only at construction).  Note that
``JambaLM.generate`` leaves the model in training mode (``self.train()`` at its
end) and does not decorate itself with ``torch.no_grad()`` (only the model step
runs under a ``with torch.no_grad():`` block inside the loop).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

MAMBAPY = ("mambapy", "1.2.0")


# --- tiny models ---------------------------------------------------------------------------


def _r17b_jamba_config(**overrides: Any) -> Any:
    """Four layers: Mamba (dense MLP), Mamba (MoE), attention (dense MLP), Mamba (MoE); width 16, MLP 32,
    d_state 4, 4 query heads over 2 key-value heads, 4 experts with top-2 routing, vocabulary 32 (ids 0, 1, 2
    are pad, bos, eos); ``use_cuda=False``, ``pscan=True`` (the defaults)."""
    from mambapy.jamba import JambaLMConfig

    kwargs: dict[str, Any] = dict(
        d_model=16, n_layers=4, mlp_size=32, d_state=4, num_attention_heads=4, num_key_value_heads=2,
        num_experts=4, num_experts_per_tok=2, attn_layer_offset=2, attn_layer_period=4, expert_layer_offset=1,
        expert_layer_period=2, vocab_size=32, pad_token_id=0, initializer_range=0.5, use_cuda=False, pscan=True,
    )
    kwargs.update(overrides)
    return JambaLMConfig(**kwargs)


def _r17b_jamba(training: bool, **overrides: Any) -> Any:
    """A tiny JambaLM with random weights (``initializer_range=0.5``, so that greedy decoding does not repeat
    one token as it does at the default 0.02)."""
    from mambapy.jamba import JambaLM

    model = JambaLM(_r17b_jamba_config(**overrides))
    model.train(training)
    return model


class _R17bCharTokenizer:
    """A character tokenizer with the interface ``JambaLM.generate`` uses (``__call__(text, return_tensors=
    'pt').input_ids`` with a leading bos, ``decode(ids, skip_special_tokens=True)``, ``eos_token_id``); ids 0,
    1, 2 are pad, bos, eos, and 3..31 the characters below."""

    chars = "abcdefghijklmnopqrstuvwxyz .,"
    bos_token_id = 1
    eos_token_id = 2

    def __call__(self, text: str, return_tensors: str = "pt") -> SimpleNamespace:
        ids = [self.bos_token_id] + [3 + self.chars.index(c) for c in text]
        return SimpleNamespace(input_ids=torch.tensor([ids]))

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        out = []
        for i in ids:
            if i >= 3:
                out.append(self.chars[i - 3])
            elif not skip_special_tokens:
                out.append(f"<{i}>")
        return "".join(out)


# --- builders ------------------------------------------------------------------------------


def _r17b_jamba_lm_forward(training: bool) -> Built:
    model = _r17b_jamba(training)
    return model, (torch.randint(3, 32, (2, 6)),), {}


def _r17b_moe_run(dense: Any, sparse: Any, x: torch.Tensor) -> tuple[Any, ...]:
    """A dense block then a sparse block, with residuals, as in a Jamba layer pair; the load-balancing loss over
    both blocks' router logits (the dense block's one-column logits are filtered out by the library)."""
    from mambapy.jamba import load_balancing_loss

    h, dense_logits = dense(x)
    h = x + h
    y, sparse_logits = sparse(h)
    aux = load_balancing_loss([dense_logits, sparse_logits], sparse.num_experts, sparse.top_k)
    return h + y, sparse_logits, aux


def _r17b_moe_aux_loss(training: bool) -> Built:
    from mambapy.jamba import SparseMoEBlock

    config = _r17b_jamba_config(num_experts=8)
    dense = SparseMoEBlock(config, num_experts=1, num_experts_per_tok=1)
    sparse = SparseMoEBlock(config, num_experts=8, num_experts_per_tok=2)
    for block in (dense, sparse):
        for p in block.parameters():
            torch.nn.init.normal_(p, std=0.3)
        block.train(training)
    # 3 tokens routed to 2 of 8 experts each: at least 2 experts get no token
    return _r17b_moe_run, (dense, sparse, torch.randn(1, 3, 16)), {}


def _r17b_jamba_step_run(model: Any, tokens: torch.Tensor) -> tuple[Any, ...]:
    """Teacher-forced recurrent inference: empty caches from each layer's ``get_empty_cache``, then one
    ``JambaLM.step`` per position (as ``generate`` does, with grad left as the caller has it); returns the
    logits of every position and the final caches."""
    batch, length = tokens.shape
    caches = [layer.get_empty_cache(batch, tokens.device) for layer in model.jamba.layers]
    logits = []
    for i in range(length):
        out, caches = model.step(tokens[:, [i]], caches)
        logits.append(out)
    return torch.cat(logits, dim=1), caches


def _r17b_jamba_step_kv_cache(training: bool) -> Built:
    model = _r17b_jamba(training)
    return _r17b_jamba_step_run, (model, torch.randint(3, 32, (2, 5))), {}


def _r17b_jamba_generate_sample(training: bool) -> Built:
    model = _r17b_jamba(training)
    return model.generate, (), {"tokenizer": _R17bCharTokenizer(), "prompt": "hello", "max_tokens": 12,
                                "sample": True, "top_k": 5, "temperature": 0.7}


def _r17b_jamba_generate_greedy(training: bool) -> Built:
    model = _r17b_jamba(training, tie_lm_weights=False)
    return model.generate, (), {"tokenizer": _R17bCharTokenizer(), "prompt": "jamba", "max_tokens": 8,
                                "sample": False, "top_k": None}


def _r17b_vmamba_forward_control(training: bool) -> Built:
    from mambapy.vim import MambaConfig, VMamba

    model = VMamba(MambaConfig(d_model=16, n_layers=2, d_state=4, bidirectional=True, use_cuda=False, pscan=True))
    return model, (torch.randn(2, 6, 16),), {}


# --- rows ------------------------------------------------------------------------------------

_J_MODEL = (
    "JambaLM(JambaLMConfig(d_model=16, n_layers=4 (Mamba/dense, Mamba/MoE, attention/dense, Mamba/MoE), "
    "mlp_size=32, d_state=4, 4 heads over 2 kv heads, num_experts=4, top-2, vocab_size=32, initializer_range=0.5, "
    "use_cuda=False, pscan=True)), random weights"
)
_MOE = (
    "`SparseMoEBlock.forward` (jamba.py:462-521: `router` Linear, `softmax`, `topk(2)`, `zeros` accumulator, "
    "`one_hot(...).permute`, `for expert_idx in range(4)`: `idx, top_x = torch.where(expert_mask[expert_idx])` "
    "(a nonzero of data-dependent size), `if top_x.shape[0] == 0: continue` (a Python test on that size), "
    "`top_x.tolist()`, `idx.tolist()` (tensor values read into Python lists), `x[None, top_x_list]`, "
    "`routing_weights[top_x_list, idx_list, None]` (advanced indexing by Python lists), the expert MLP, "
    "`index_add_(0, top_x, ...)`); dense layers: `experts[0](x)` and `torch.ones((B*L, 1), requires_grad="
    "x.requires_grad)` (jamba.py:474-482, a fresh leaf made in the call)"
)
_MAMBA_SCAN = (
    "`MambaLayer.forward` (jamba.py:417-440: `if cache is None` -> `MambaBlock.forward` (mamba.py:205-234: "
    "`in_proj`, `chunk`, depthwise `conv1d` sliced to L, `silu`) -> `ssm` (mamba.py:236-272: `torch.split` of "
    "`x_proj` into dt/B/C, the inner RMSNorms, `use_cuda` false, `pscan` true) -> `selective_scan` (mamba.py:"
    "274-295) -> `PScan.apply` (pscan.py:151-186: `if L == npo2(L)`: L=6, so `pad_npo2` to 8 (`F.pad`); "
    "transposes; `PScan.pscan` (pscan.py:37-92: `int(math.log2(8))` steps, in-place `add_`/`mul_` on `view`s "
    "and strided slices, the `Xa.size(2) == 4` branch), `save_for_backward`, the slice back to L)"
)
_ATTN = (
    "`AttentionLayer.forward` (jamba.py:323-341) -> `AttentionSDPA.forward` (jamba.py:364-402: q/k/v "
    "projections, `repeat_kv` (jamba.py:561-571: `expand`, `reshape`), `scaled_dot_product_attention` with "
    "`is_causal=(cache is None)`)"
)
_STEP = (
    "`JambaLM.step` (jamba.py:189-201) -> `Jamba.step` (jamba.py:300-310: `caches[i]` rebound per layer) -> "
    "`MambaLayer.forward` with a cache (jamba.py:425-429: `x.squeeze(1)`, `MambaBlock.step` (mamba.py:351-382: "
    "`conv1d` over `cat([inputs, x_cache])` indexed at `d_conv - 1`, the rolled input cache) -> `ssm_step` "
    "(mamba.py:384-414: `if h is None:` zeros at the first position, `h = deltaA * h + BX`)); "
    "`AttentionSDPA.forward` with a cache (jamba.py:379-396: `if past_keys is not None:` `torch.cat` of the "
    "kv cache from the second position, `is_causal=False`)"
)
_GENERATE = (
    "`JambaLM.generate` (jamba.py:204-247: `self.eval()` (mode writes on every submodule), the tokenizer call, "
    "`.to(next(self.parameters()).device)`, `repeat(1, 1)`, per layer `get_empty_cache` (jamba.py:343-344, "
    "442-443), then `for i in range(prompt length + max_tokens - 1)`: under `with torch.no_grad():` "
    "`self.step(input_ids[:, [i]], caches)` (a Python-list index), `squeeze(1)`; once the prompt is read: "
    "`softmax(logits / temperature)`"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r17b_mambapy_jamba_lm_forward_moe", *MAMBAPY,
            f"module: {_J_MODEL} called with token ids (2, 6); returns (logits (2, 6, 32), router logits of the 4 "
            "layers: (12, 1), (12, 4), (12, 1), (12, 4))",
            ("mambapy",), _r17b_jamba_lm_forward,
            notes="the language-model forward (``mambapy.lm.LM`` cannot be imported without mamba_ssm, see the "
            "module docstring); in training the router logits of the two dense layers are leaves made in the "
            "call with `requires_grad=True` (the default loss sums them too), the lm head is tied to the "
            "embedding, and the parallel scan's hand-written backward (pscan.py:188-224) runs for the three "
            "Mamba layers; attention dropout is 0; with 12 tokens every expert gets some here (the `continue` "
            "test is false each time)",
            patterns="`JambaLM.forward` (jamba.py:171-187: embedding, `num_experts == 1` test) -> `Jamba.forward` "
            "(jamba.py:285-298: a Python list of router logits) -> per layer: " + _MAMBA_SCAN + "; " + _ATTN
            + "; then each layer's MoE MLP: " + _MOE + "; training: `PScan.backward` (pscan.py:188-224: `if L == "
            "npo2(L)` pad of the gradient and of A, the shifted `A` by `F.pad`, `PScan.pscan_rev` (pscan.py:95-149, "
            "in-place on views), `Q[:, :, 1:].add_(...)`, slices back to L)",
        ),
        Row(
            "r17b_mambapy_jamba_moe_aux_loss", *MAMBAPY,
            "wrapper: SparseMoEBlock(num_experts=1) then SparseMoEBlock(num_experts=8, num_experts_per_tok=2) "
            "(JambaLMConfig width 16, mlp_size 32; weights normal, std 0.3), with residuals, on x (1, 3, 16), then "
            "load_balancing_loss over both blocks' router logits; returns (hidden (1, 3, 16), sparse router logits "
            "(3, 8), auxiliary loss ())",
            ("mambapy",), _r17b_moe_aux_loss,
            notes="3 tokens are routed to 2 of 8 experts each, so at least 2 experts get no token and take the "
            "`continue` branch (3 here; how many depends on the router's outputs); in training x and every block "
            "weight get the gradient (the dense block's `torch.ones` router leaf is not in the loss)",
            patterns="dense `SparseMoEBlock.forward` (jamba.py:474-482: `num_experts == 1`, `experts[0](x)`, "
            "`torch.ones((3, 1), requires_grad=x.requires_grad)`) -> sparse `SparseMoEBlock.forward` (jamba.py:"
            "485-521: `view(-1, 16)`, router, `softmax`, `topk(2)`, `one_hot(num_classes=8).permute(2, 1, 0)`, for "
            "each of 8 experts `torch.where(expert_mask[e])` (nonzero), `if top_x.shape[0] == 0: continue` (a "
            "Python test on a data-dependent size), `top_x.tolist()`, `idx.tolist()`, `x[None, top_x_list]` and "
            "`routing_weights[top_x_list, idx_list, None]` (indexing by Python lists), the SiLU-gated MLP, "
            "`index_add_`) -> `load_balancing_loss` (jamba.py:541-559: `[r for r in router_logits if r.shape[1] > "
            "1]` (a Python filter on shapes), `cat`, `softmax`, `topk`, `one_hot`, means, `sum`)",
        ),
        Row(
            "r17b_mambapy_jamba_step_kv_cache", *MAMBAPY,
            f"wrapper: {_J_MODEL}, one `JambaLM.step` per position over token ids (2, 5) from empty caches "
            "(`get_empty_cache` per layer); returns (logits (2, 5, 32), final caches: per Mamba layer (h (2, 32, "
            "4), conv inputs (2, 32, 3)), for the attention layer (keys, values) (2, 2, 5, 4))",
            ("mambapy",), _r17b_jamba_step_kv_cache,
            notes="step-by-step (recurrent) inference as `generate` runs it, teacher-forced and batched (2 "
            "sequences: `generate` itself takes one, see the module docstring); the logits match the parallel "
            "forward's to 1.2e-5 (logits up to 6.7); in training the gradient flows through the recurrent "
            "states and the kv cache (no parallel scan on this path)",
            patterns="the wrapper's loop over 5 positions: `tokens[:, [i]]` -> " + _STEP + " -> per layer the MoE "
            "MLP on 2 tokens: " + _MOE + " (2 tokens, top-2 of 4: here 0 to 2 experts get no token per MoE "
            "layer and step, so the `continue` branch is taken at some steps and not at others)",
        ),
        Row(
            "r17b_mambapy_jamba_generate_sample", *MAMBAPY,
            f"bound method: ({_J_MODEL}).generate(tokenizer (a 32-id character tokenizer with bos/eos), "
            "prompt='hello', max_tokens=12, sample=True, top_k=5, temperature=0.7); returns the decoded string",
            ("mambapy",), _r17b_jamba_generate_sample, modes=INFERENCE,
            notes="inference only: the output is a Python string (sampled token ids, decoded); sampling uses "
            "`torch.multinomial` on torch's global generator (seeded by the harness before each call); with "
            "the harness's call seed the eos id is drawn as the 6th new token, so the loop breaks after 11 of "
            "its 17 steps (the eos test true once, data-dependently); `generate` puts the model in eval mode at "
            "its start and in train mode at its end",
            patterns=_GENERATE + ", `topk(probs, 5)`, `probs[probs < values[:, -1, None]] = 0` (a boolean-mask "
            "setitem), renormalization, `torch.multinomial(probs, 1)`, `torch.cat` of the new token, `if "
            "next_token.item() == tokenizer.eos_token_id: break` (jamba.py:237, a tensor value read into Python "
            "ending the loop); after the loop `output.tolist()` per row of `input_ids[:, 1:]`, `tokenizer.decode`, "
            "`self.train()`); each step: " + _STEP + "; the MoE layers on one token: " + _MOE + " (2 of 4 "
            "experts skipped per MoE layer and step)",
        ),
        Row(
            "r17b_mambapy_jamba_generate_greedy", *MAMBAPY,
            f"bound method: ({_J_MODEL.replace('use_cuda=False', 'tie_lm_weights=False, use_cuda=False')})"
            ".generate(tokenizer (a 32-id character tokenizer with bos/eos), prompt='jamba', max_tokens=8, "
            "sample=False, top_k=None); returns the decoded string",
            ("mambapy",), _r17b_jamba_generate_greedy, modes=INFERENCE,
            notes="inference only: greedy decoding (`argmax`, nothing random) returning a Python string; no top-k "
            "masking (`top_k=None`); eos is never the argmax here, so the loop runs its 13 steps (5 prompt "
            "tokens after bos, 8 new tokens) and the eos test is false at each of the 8; `generate` puts the "
            "model in eval mode at its start and in train mode at its end",
            patterns=_GENERATE + ", `top_k is None` (no masking), `argmax`, `torch.cat` of the new token, `if "
            "next_token.item() == tokenizer.eos_token_id: break` (jamba.py:237, a tensor value read into Python "
            "each step); `output.tolist()`, `tokenizer.decode`, `self.train()`); each step: " + _STEP + "; the "
            "MoE layers on one token: " + _MOE,
        ),
        Row(
            "r17b_mambapy_vmamba_forward_control", *MAMBAPY,
            "module: VMamba(vim.MambaConfig(d_model=16, n_layers=2, d_state=4, bidirectional=True, use_cuda=False, "
            "pscan=True)), random weights, called with x (2, 6, 16); returns (2, 6, 16)",
            ("mambapy",), _r17b_vmamba_forward_control,
            notes="the control: no tensor value reaches Python on this path (the scan's decisions read shapes); "
            "in training x and both directions' parameters get the gradient through two parallel scans per "
            "layer",
            patterns="`VMamba.forward` (vim.py:65-73) -> `ResidualBlock.forward` (vim.py:94-98: RMSNorm, residual) "
            "-> `VMambaBlock.forward` (vim.py:209-261: `in_proj`, `chunk`, `conv1d` sliced to L, `silu`, `ssm` "
            "forward; `xz.flip([1])`, the backward-direction `conv1d_b` and `ssm` with `A_log_b`/`x_proj_b`/"
            "`dt_proj_b`, `silu(z)` gates, `(y + y_b.flip([1])) / 2`, `out_proj`) -> `ssm` (vim.py:263-299: "
            "`use_cuda` false, `pscan` true) -> `selective_scan` (vim.py:301-322) -> `PScan.apply` (pscan.py:"
            "151-186: L=6 padded to 8, `PScan.pscan`'s in-place view updates); training: `PScan.backward` "
            "(pscan.py:188-224)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round seventeen (b)")
