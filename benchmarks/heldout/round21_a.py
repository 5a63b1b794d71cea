"""Held-out round twenty-one (r21a): chronos-forecasting.

Chosen by reading the library's source before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, in two processes, with identical results);
to be measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs, seeded random
weights and inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is one mode only says why
in its ``notes``.

chronos-forecasting 2.3.2 (Amazon's pretrained time-series forecasting models, import name ``chronos``) holds
three model families and their pipelines.  Chronos (chronos.py): a ``ChronosTokenizer``
(``MeanScaleUniformBins``) that mean-scales a NaN left-padded batch of series and quantizes it into token ids
(``context_input_transform``, ``label_input_transform``) and back (``output_transform``); ``ChronosModel``, a
wrapper of a transformers T5 (or causal LM) whose ``forward`` samples future tokens through ``generate`` and
whose ``encode`` returns the encoder embeddings; ``ChronosPipeline`` (``predict`` of sample paths,
``predict_quantiles``, ``embed``).  Chronos-Bolt (chronos_bolt.py): ``ChronosBoltModelForForecasting``, a T5
encoder-decoder over patches of the instance-normalized series (``InstanceNorm``, ``Patch``, ``ResidualBlock``
embeddings, a [REG] token) with a direct multi-quantile head and a pinball loss given a target;
``ChronosBoltPipeline``.  Chronos-2 (chronos2/): ``Chronos2Model``, an encoder-only model with time attention
(RoPE) and group attention across the series of a batch (multivariate targets and known covariates, grouped by
``group_ids``), future covariate patches and a quantile head; ``Chronos2Pipeline``, whose ``predict`` takes
tensors, lists or dicts with past and future (numeric or categorical) covariates through ``chronos2.preprocess``
(numpy and pandas), ``Chronos2Dataset`` and a ``DataLoader``, and a long-horizon heuristic; plus ``fit`` (a
transformers ``Trainer``; not a row: it writes checkpoints and draws from numpy's generator) and data-frame
helpers (``predict_df``).  ``chronos.utils`` holds ``left_pad_and_stack_1D``, ``interpolate_quantiles`` and
``weighted_quantile``.  The pipelines are built from model objects (``ChronosPipeline(tokenizer, model)``,
``ChronosBoltPipeline(model)``, ``Chronos2Pipeline(model)``), as their ``from_pretrained`` does after loading;
the builders build tiny models from configs (T5 d_model 16, one layer each side, 64 tokens; Chronos-2 one
block; contexts of 30-40 steps cut to 32, horizons 6-8, 3 samples, 9 or 13 quantiles) and set their mode (the
pipelines' models in eval mode, as ``from_pretrained`` returns them).  Nothing on the rows' paths draws from
numpy's or Python's generators (``Chronos2Dataset`` draws with ``np.random`` only in its TRAIN mode; the
pipelines use TEST); Chronos-T5's sampling draws from torch's generator in the call (``torch.multinomial``), and
dropout in the training modes too (both seeded by the harness before every call).

The data-dependent code (file:line relative to the ``chronos`` package unless a transformers file is named).
The tokenizer: ``MeanScaleUniformBins._input_transform`` (chronos.py:170-196) builds the NaN mask
``~torch.isnan(context)``, computes the mean scale by ``nansum`` and replaces non-positive scales through a
boolean mask, ``scale[~(scale > 0)] = 1.0`` (chronos.py:178), buckets the scaled values and writes the PAD token
through the inverted NaN mask, ``token_ids[~attention_mask] = pad_token_id`` (chronos.py:194);
``context_input_transform`` (209-220) cuts the context to the model's length by a Python shape test and appends
EOS; ``label_input_transform`` (222-231) ``assert``s the label length (Python ints) and reuses the given scale;
chronos's training recipe then masks the missing labels with ``labels[labels_mask == 0] = -100`` (a boolean-mask
setitem, in the training row's wrapper).  ``ChronosModel.forward`` (chronos.py:292-352) calls transformers'
``generate``, whose sampling loop ``_sample`` (transformers generation/utils.py:3464-3640) runs ``while
self._has_unfinished_sequences(this_peer_finished, ...)``, where ``this_peer_finished = unfinished_sequences.max()
== 0`` (3615) is a 0-d tensor whose truth ``elif this_peer_finished`` reads every step (2748), draws each token by
``torch.multinomial`` and tests the stopping criteria (``EosTokenCriteria``: ``isin``).  ``ChronosPipeline.
predict`` (chronos.py:430-511) stacks a list input with ``left_pad_and_stack_1D`` (utils.py:11-19: a Python loop
over the series), logs ``logger.warning`` (chronos.py:485) when the horizon exceeds the model's, and loops
``while remaining > 0`` (Python ints), feeding the median sample path back into the context (chronos.py:509).
Chronos-Bolt: ``encode`` (chronos_bolt.py:281-333) builds the NaN mask ``torch.isnan(context).logical_not()``,
``InstanceNorm`` (105-122: ``nanmean``, ``nan_to_num``, three-argument ``torch.where``), ``Patch`` (80-92: NaN
left padding by a Python shape test, ``unfold``), masks the patches by ``torch.where(patched_mask > 0.0, ...)``;
the loss (355-386) ``assert``s the target length, builds the mask ``~torch.isnan(target)`` and zeroes the missing
targets through it, ``target[~target_mask] = 0.0`` (chronos_bolt.py:365, a boolean-mask setitem);
``ChronosBoltPipeline.predict`` (504-598) warns through ``warnings.warn`` (550) past the horizon and then runs
the model on the context extended by every quantile path, reducing by ``torch.quantile``; its
``predict_quantiles`` (600-648) logs ``logger.warning`` (626) for levels outside the trained ones.  Chronos-2:
``Chronos2Model._prepare_patched_future`` (chronos2/model.py:444-516) raises ``if
torch.isnan(future_covariates).any()`` (463: a tensor's truth, after the NaN entries were masked by
``torch.where``); ``_prepare_patched_context`` (392-442) the same NaN mask, instance norm and patching as Bolt;
the group mask ``group_ids[:, None] == group_ids[None, :]`` combined by ``einsum`` (123-142); ``_compute_loss``
(518-567) masks by ``~torch.isnan(future_target)``.  ``Chronos2Pipeline.predict`` (chronos2/pipeline.py:467-654,
``@torch.no_grad()``) converts dict inputs with numpy and pandas (``preprocess.from_list_of_dicts``,
chronos2/preprocess.py:217-309: ``np.asarray`` of the tensors, ``np.concatenate``, pandas category codes,
target encoding by ``np.bincount`` and ``np.isfinite`` (612-686), ``torch.from_numpy``), iterates a
``DataLoader`` over ``Chronos2Dataset`` (chronos2/dataset.py:86-337: ``int(prepared['n_targets'])``, NaN left
padding in a Python loop), warns past the horizon (pipeline.py:607) and unrolls: ``_get_prob_mass_per_quantile_
level`` ``assert``s ``quantile_levels.min() > 0.0 and quantile_levels.max() < 1.0`` (pipeline.py:70, tensors'
truth), ``interpolate_quantiles`` (utils.py:22-132) ``assert``s on ``min()``/``max()`` of the levels (65-70) and
chooses its padding by ``if original_quantile_levels.min() > 0.0`` / ``.max() < 1.0`` (100, 105: tensors'
truth), and ``weighted_quantile`` (135-212) ``assert``s ``sample_weights.min() > 0.0`` (179).  No ``.item()``,
``.tolist()``, ``nonzero`` or ``unique`` is on the rows' paths in chronos itself; the values reach Python through
tensors' truth (asserts, ``if``, generate's loop), numpy conversions, and the shapes of boolean-mask setitems are
not data-dependent (they write in place).  Controls (no tensor value reaches Python): ``output_transform``
(chronos.py:233-240: a clamp and a gather of the bin centers), ``ChronosModel.encode`` (265-290: asserts on the
config's Python attributes, the T5 encoder: masks, relative position buckets, eager attention) and
``left_pad_and_stack_1D`` (utils.py:11-19: Python lengths only).

Global state on import: ``import chronos`` imports transformers 4.52.4 (with accelerate, huggingface_hub,
sklearn, scipy, pandas, einops), which imports ``torch._dynamo`` and ``torch._inductor`` (so their configs are
loaded; nothing is compiled) and sets ``os.environ`` ``KMP_DUPLICATE_LIB_OK='True'`` and
``KMP_INIT_AT_FORK='FALSE'`` (sklearn/threadpoolctl) and ``TORCHINDUCTOR_CACHE_DIR`` (torch._inductor);
chronos2/layers.py appends ``Chronos2LayerNorm`` to transformers' global ``ALL_LAYERNORM_LAYERS`` list and
base.py's ``PipelineRegistry`` metaclass records every pipeline class; loggers are created without handlers
(chronos.py and chronos_bolt.py name theirs by ``__file__``, a path).  Checked in one process before and after
the import: no warning filter added, the root logger untouched, no change to torch's default dtype, grad mode,
threads, deterministic flag, matmul precision, cuDNN/TF32 flags, anomaly mode, print options or RNG state.

Library quirks (checked eagerly on torch 2.13.0 and transformers 4.52.4; no row depends on them): (1) the T5
decoder called without a cache but with ``use_cache`` (Chronos-Bolt's ``decode``, chronos_bolt.py:433-439, and
the teacher-forced T5 forward of Chronos training) goes through transformers' legacy-tuple branch (T5Stack tests
``not isinstance(past_key_values, EncoderDecoderCache)`` before ``past_key_values is None``,
modeling_t5.py:1012-1025) and logs, once per process, "Passing a tuple of `past_key_values` is deprecated";
``generate`` logs, once, that "`generation_config` default values have been modified to match model-specific
defaults".  (2) ``InstanceNorm`` (Bolt and Chronos-2) scales the NaN-holding context before the NaN entries are
masked by ``torch.where``, so the gradient with respect to the context is NaN on every entry of every series
that holds a NaN (the masked branch's zero gradient times NaN through the scale); the parameters' gradients are
finite (the loc/scale carry no parameter), and the rows freeze the context.  Chronos-T5's tokenizer does not
have this (``nansum`` of ``abs(context) * mask``).  (3) ``Chronos2Pipeline.predict`` checks that the unrolled
quantiles (default 0.1-0.9) are a subset of the model's even when the horizon needs no unrolling: a model
trained on other levels raises ``ValueError`` on every ``predict``/``predict_quantiles`` unless
``unrolled_quantiles`` is passed.  (4) The same "We recommend keeping prediction length <= ..." message goes
through ``logger.warning`` in ``ChronosPipeline`` (chronos.py:485) and ``warnings.warn`` in the Bolt and
Chronos-2 pipelines (chronos_bolt.py:550, chronos2/pipeline.py:607).  (5) Models built from a config are in
train mode (dropout 0.1 active); only ``from_pretrained`` returns them in eval mode.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

CHRONOS = ("chronos-forecasting", "2.3.2")

_QUANTILES9 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
_QUANTILES13 = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]


# --- tiny models (seeded by the harness before every build) ---------------------------------


def _r21a_chronos_config() -> Any:
    """The ChronosConfig of a (tiny) Chronos-T5 checkpoint: 64 tokens (2 special: PAD 0, EOS 1), mean scaling to
    uniform bins on [-15, 15], context 32, horizon 6, 3 samples, top-k 50."""
    from chronos import ChronosConfig

    return ChronosConfig(
        tokenizer_class="MeanScaleUniformBins", tokenizer_kwargs={"low_limit": -15.0, "high_limit": 15.0},
        context_length=32, prediction_length=6, n_tokens=64, n_special_tokens=2, pad_token_id=0, eos_token_id=1,
        use_eos_token=True, model_type="seq2seq", num_samples=3, temperature=1.0, top_k=50, top_p=1.0,
    )


def _r21a_chronos_model(training: bool) -> Any:
    """``ChronosModel(config, T5ForConditionalGeneration(T5Config(...)))``, d_model 16, one encoder and one
    decoder layer, 2 heads, the vocabulary of the ChronosConfig; in the mode of the row (``from_pretrained``
    returns models in eval mode)."""
    from chronos import ChronosModel
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
                      pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    model = ChronosModel(_r21a_chronos_config(), T5ForConditionalGeneration(config))
    return model.train(training)


def _r21a_bolt(training: bool) -> Any:
    """A tiny ``ChronosBoltModelForForecasting``: d_model 16, one encoder and one decoder layer, context 32,
    patches of 4, horizon 6, 9 quantiles, the [REG] token."""
    from chronos.chronos_bolt import ChronosBoltModelForForecasting
    from transformers import T5Config

    config = T5Config(d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2,
                      decoder_start_token_id=0, pad_token_id=0,
                      chronos_config={"context_length": 32, "prediction_length": 6, "input_patch_size": 4,
                                      "input_patch_stride": 4, "quantiles": _QUANTILES9, "use_reg_token": True})
    return ChronosBoltModelForForecasting(config).train(training)


def _r21a_chronos2(training: bool) -> Any:
    """A tiny ``Chronos2Model``: d_model 16, one encoder block (time attention, group attention, MLP), 2 heads,
    context 32, patches of 4, up to 2 output patches (horizon 8), 13 quantiles, [REG] token, arcsinh scaling."""
    from chronos.chronos2 import Chronos2Model
    from chronos.chronos2.config import Chronos2CoreConfig

    config = Chronos2CoreConfig(d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                                chronos_config={"context_length": 32, "input_patch_size": 4, "input_patch_stride": 4,
                                                "output_patch_size": 4, "quantiles": _QUANTILES13,
                                                "use_reg_token": True, "use_arcsinh": True,
                                                "max_output_patches": 2})
    return Chronos2Model(config).train(training)


def _r21a_series(length: int, level: float) -> torch.Tensor:
    """A seasonal series of ``length`` steps around ``level`` (period 6, noise from torch's generator)."""
    t = torch.arange(length, dtype=torch.float32)
    return level + 2.0 * torch.sin(2 * torch.pi * t / 6) + 0.5 * torch.randn(length)


def _r21a_ragged() -> list[torch.Tensor]:
    """Three series of unequal length (40, 21 with a missing value, 12 all zero): a pipeline's list input."""
    middle = _r21a_series(21, 3.0)
    middle[7] = torch.nan
    return [_r21a_series(40, 10.0), middle, torch.zeros(12)]


def _r21a_padded(length: int = 40) -> torch.Tensor:
    """The ragged batch left-padded with NaN to ``length`` columns (as `left_pad_and_stack_1D` builds it)."""
    rows = []
    for series in _r21a_ragged():
        series = series[-length:]
        rows.append(torch.cat([torch.full((length - len(series),), torch.nan), series]))
    return torch.stack(rows)


# --- Chronos (T5 over tokens) ---------------------------------------------------------------


def _r21a_context_input_transform(training: bool) -> Built:
    tokenizer = _r21a_chronos_config().create_tokenizer()
    return tokenizer.context_input_transform, (_r21a_padded(40),), {}


def _r21a_label_input_transform(training: bool) -> Built:
    tokenizer = _r21a_chronos_config().create_tokenizer()
    label = torch.stack([_r21a_series(6, 10.0), _r21a_series(6, 3.0), torch.zeros(6)])
    label[1, 2] = torch.nan  # a missing future value: the PAD token
    label[0, 4] = 400.0  # far above the bins: clamped to the last token
    return tokenizer.label_input_transform, (label, torch.tensor([9.8, 2.9, 1.0])), {}


def _r21a_output_transform(training: bool) -> Built:
    tokenizer = _r21a_chronos_config().create_tokenizer()
    samples = torch.randint(0, 64, (3, 3, 6))  # includes the special tokens 0 and 1 (clamped to the first bin)
    return tokenizer.output_transform, (samples, torch.tensor([9.8, 2.9, 1.0])), {}


def _r21a_t5_train_loss_call(tokenizer: Any, model: Any, context: torch.Tensor,
                             future: torch.Tensor) -> torch.Tensor:
    """One Chronos training example as chronos's training script builds it (scripts/training/train.py,
    ``ChronosDataset.to_hf_format``: context tokens, label tokens with the context's scale, missing labels set to
    -100), then the inner T5's teacher-forced cross-entropy (``model.model(...).loss``)."""
    input_ids, attention_mask, scale = tokenizer.context_input_transform(context)
    labels, labels_mask = tokenizer.label_input_transform(future, scale)
    labels[labels_mask == 0] = -100
    return model.model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss


def _r21a_t5_train_loss(training: bool) -> Built:
    model = _r21a_chronos_model(training)  # a plain function: the harness does not set the model's mode
    future = torch.stack([_r21a_series(6, 10.0), _r21a_series(6, 3.0), torch.zeros(6)])
    future[1, 2] = torch.nan
    return _r21a_t5_train_loss_call, (model.config.create_tokenizer(), model, _r21a_padded(40), future), {}


def _r21a_model_generate(training: bool) -> Built:
    model = _r21a_chronos_model(False)
    token_ids, attention_mask, _ = model.config.create_tokenizer().context_input_transform(_r21a_padded(40))
    return model, (token_ids, attention_mask), {"prediction_length": 6, "num_samples": 3}


def _r21a_encode(training: bool) -> Built:
    model = _r21a_chronos_model(training)
    token_ids, attention_mask, _ = model.config.create_tokenizer().context_input_transform(_r21a_padded(40))
    return model.encode, (token_ids, attention_mask), {}


def _r21a_pipeline_predict_long(training: bool) -> Built:
    from chronos import ChronosPipeline

    model = _r21a_chronos_model(False)
    pipeline = ChronosPipeline(tokenizer=model.config.create_tokenizer(), model=model)
    return pipeline.predict, (_r21a_ragged(),), {"prediction_length": 10}


# --- Chronos-Bolt ---------------------------------------------------------------------------


def _r21a_bolt_forward_loss(training: bool) -> Built:
    context = torch.stack([_r21a_series(38, 10.0), _r21a_series(38, 3.0), _r21a_series(38, -1.0)])
    context[0, :14] = torch.nan  # a shorter series, left-padded
    context[1, 20:23] = torch.nan  # missing values
    context[2, :30] = torch.nan  # 8 observed steps: the first patches all missing
    target = torch.stack([_r21a_series(5, 10.0), _r21a_series(5, 3.0), _r21a_series(5, -1.0)])
    target[2, 1] = torch.nan
    return _r21a_bolt(training), (context,), {"target": target}


def _r21a_bolt_pipeline_predict_long(training: bool) -> Built:
    from chronos import ChronosBoltPipeline

    return ChronosBoltPipeline(_r21a_bolt(False)).predict, (_r21a_ragged(),), {"prediction_length": 10}


def _r21a_bolt_predict_quantiles(training: bool) -> Built:
    from chronos import ChronosBoltPipeline

    pipeline = ChronosBoltPipeline(_r21a_bolt(False))
    return pipeline.predict_quantiles, (_r21a_padded(36),), {"quantile_levels": [0.05, 0.25, 0.5, 0.75, 0.95]}


# --- Chronos-2 ------------------------------------------------------------------------------


def _r21a_chronos2_forward_loss(training: bool) -> Built:
    context = torch.stack([_r21a_series(30, 10.0), _r21a_series(30, 3.0), _r21a_series(30, 5.0),
                           _r21a_series(30, 0.5)])
    context[0, :10] = torch.nan
    context[3, 12:14] = torch.nan
    # rows 0 and 1: targets (future unknown); row 2: a known covariate; row 3: a covariate known 5 steps ahead
    future_covariates = torch.full((4, 7), torch.nan)
    future_covariates[2] = _r21a_series(7, 5.0)
    future_covariates[3, :5] = _r21a_series(5, 0.5)
    future_target = torch.stack([_r21a_series(7, 10.0), _r21a_series(7, 3.0), _r21a_series(7, 5.0),
                                 _r21a_series(7, 0.5)])
    future_target[1, 4] = torch.nan
    kwargs = {"group_ids": torch.tensor([0, 0, 1, 1]), "future_covariates": future_covariates,
              "num_output_patches": 2, "future_target": future_target}
    return _r21a_chronos2(training), (context,), kwargs


def _r21a_chronos2_predict_dicts(training: bool) -> Built:
    import numpy as np
    from chronos import Chronos2Pipeline

    kinds = np.array(["sunny", "cloudy", "rainy"])
    inputs = []  # numeric values as tensors (the docstring allows tensors or arrays), the categorical as str arrays
    for length in (30, 22):
        codes = torch.randint(0, 3, (length + 10,)).numpy()
        inputs.append({
            "target": _r21a_series(length, 10.0),
            "past_covariates": {"temperature": _r21a_series(length, 20.0), "weather": kinds[codes[:length]]},
            "future_covariates": {"temperature": _r21a_series(10, 20.0), "weather": kinds[codes[length:]]},
        })
    pipeline = Chronos2Pipeline(_r21a_chronos2(False))
    return pipeline.predict, (inputs,), {"prediction_length": 10, "unrolled_quantiles": [0.1, 0.5, 0.9]}


def _r21a_chronos2_predict_quantiles(training: bool) -> Built:
    from chronos import Chronos2Pipeline

    inputs = torch.stack([torch.stack([_r21a_series(30, 10.0), _r21a_series(30, 4.0)]),
                          torch.stack([_r21a_series(30, 1.0), _r21a_series(30, -2.0)])])
    inputs[1, :, :12] = torch.nan  # the second series (both variates) is shorter
    pipeline = Chronos2Pipeline(_r21a_chronos2(False))
    kwargs = {"prediction_length": 6, "quantile_levels": [0.15, 0.5, 0.85], "cross_learning": True}
    return pipeline.predict_quantiles, (inputs,), kwargs


# --- utilities ------------------------------------------------------------------------------


def _r21a_interpolate_quantiles(training: bool) -> Built:
    from chronos.utils import interpolate_quantiles

    values = torch.sort(torch.randn(3, 6, 9) * 2.0 + 5.0, dim=-1).values  # (batch, horizon, 9 quantile levels)
    return interpolate_quantiles, ([0.05, 0.25, 0.5, 0.75, 0.97], _QUANTILES9, values), {}


def _r21a_weighted_quantile(training: bool) -> Built:
    from chronos.utils import weighted_quantile

    weights = torch.rand(6) * 0.5 + 0.1
    return weighted_quantile, ([0.1, 0.5, 0.9], weights, torch.randn(2, 5, 6) * 3.0), {}


def _r21a_left_pad_call(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``left_pad_and_stack_1D([a, b, c])`` (the pipelines' list input), the tensors as separate arguments."""
    from chronos.utils import left_pad_and_stack_1D

    return left_pad_and_stack_1D([a, b, c])


def _r21a_left_pad(training: bool) -> Built:
    return _r21a_left_pad_call, tuple(_r21a_ragged()), {}


# --- rows -----------------------------------------------------------------------------------

_TINY_T5 = (
    "a tiny Chronos-T5 (T5ForConditionalGeneration: d_model 16, 1 encoder + 1 decoder layer, 2 heads, 64 tokens, "
    "context 32, horizon 6, 3 samples, top-k 50; seeded random weights)"
)
_TINY_BOLT = (
    "a tiny Chronos-Bolt (d_model 16, 1 encoder + 1 decoder layer, 2 heads, context 32, patches of 4, horizon 6, "
    "9 quantiles 0.1-0.9, [REG] token; seeded random weights)"
)
_TINY_C2 = (
    "a tiny Chronos-2 (d_model 16, 1 encoder block, 2 heads, sdpa, context 32, patches of 4, at most 2 output "
    "patches (horizon 8), 13 quantiles 0.01-0.99, [REG] token, arcsinh scaling; seeded random weights)"
)
_RAGGED = (
    "a list of 3 series of unequal length (40 steps around 10, 21 steps around 3 with a missing value, 12 zeros)"
)
_INPUT_TRANSFORM = (
    "`MeanScaleUniformBins._input_transform` (chronos.py:170-196: `~torch.isnan(context)` (a NaN mask), "
    "`nansum(abs(context) * mask) / nansum(mask)` (the mean scale), `scale[~(scale > 0)] = 1.0` (chronos.py:178, "
    "a boolean-mask setitem), `bucketize` on the bin boundaries, `clamp_`, `token_ids[~attention_mask] = "
    "pad_token_id` (chronos.py:194, a boolean-mask setitem))"
)
_CONTEXT_TRANSFORM = (
    "`context_input_transform` (chronos.py:209-220: the context cut to the last 32 steps by a Python shape test, "
    + _INPUT_TRANSFORM + ", `_append_eos_token` (198-207: `torch.full`, `concat`))"
)
_T5_ENCODER = (
    "the T5 encoder (transformers T5Stack.forward, modeling_t5.py:951-1190: Python tests of the arguments, the "
    "inverted padding mask `(1 - mask) * finfo.min`, the relative-position bias (`_relative_position_bucket`: "
    "`torch.where`, `log`, `min`), eager attention, `if hidden_states.dtype == torch.float16` (a dtype test))"
)
_GENERATE = (
    "`GenerationMixin.generate` (transformers generation/utils.py: `GenerationConfig` validation, the encoder "
    "once, `_expand_inputs_for_generation` (num_return_sequences), logits processors "
    "(`MinNewTokensLengthLogitsProcessor`: the EOS score set to -inf while too short; `TopKLogitsWarper`), "
    "`_sample` (3464-3640: `while self._has_unfinished_sequences(this_peer_finished, ...)` (2734-2750: `elif "
    "this_peer_finished` is the truth of the 0-d tensor `unfinished_sequences.max() == 0`, generation/utils.py:"
    "3615), the decoder with its cache (`EncoderDecoderCache`), `softmax`, `torch.multinomial` (torch's "
    "generator), `next_tokens * unfinished + pad * (1 - unfinished)`, the stopping criteria (`MaxLengthCriteria`, "
    "`EosTokenCriteria`: `isin`)))"
)
_BOLT_FORWARD = (
    "`ChronosBoltModelForForecasting.forward` (chronos_bolt.py:335-397) -> `encode` (281-333: "
    "`torch.isnan(context).logical_not()` (the NaN mask), the context cut to 32 steps (a Python shape test), "
    "`InstanceNorm.forward` (105-122: `nanmean`, `nan_to_num`, `torch.where(scale == 0, eps, scale)`), `Patch` "
    "(80-92: NaN left padding to a multiple of 4 by a Python shape test, `unfold`), `nan_to_num` of the patched "
    "mask, `torch.where(patched_mask > 0.0, ...)`, `attention_mask = patched_mask.sum(-1) > 0`, the input "
    "`ResidualBlock`, the [REG] embedding, the T5 encoder with the float mask), `decode` (405-441: the T5 decoder "
    "on one start token, cross-attending to the encoder)"
)
_BOLT_DECODER_CACHE = (
    "(the T5 decoder, called with `use_cache` from the config and no cache, takes the legacy-tuple branch and "
    "logs, once per process, \"Passing a tuple of `past_key_values` is deprecated\" by `logger.warning_once`, "
    "modeling_t5.py:1019)"
)
_C2_FORWARD = (
    "`Chronos2Model.forward` (chronos2/model.py:637-775) -> `encode` (569-635) -> `_validate_input` (334-390: "
    "Python shape tests), `_prepare_patched_context` (392-442: the NaN mask `torch.isnan(context).logical_not()`, "
    "`InstanceNorm` with arcsinh (chronos_bolt.py:105-122: `nanmean`, `nan_to_num`, `torch.where(scale == 0, "
    "...)`), `Patch` (NaN left padding, `unfold`), `torch.where(patched_mask > 0.0, ...)`, the time encoding), "
    "`_prepare_patched_future` (444-516: the covariates scaled by the context's loc/scale, the NaN mask, "
    "`torch.where(future_covariates_mask > 0.0, ...)`, `if torch.isnan(future_covariates).any(): raise "
    "ValueError(...)` (model.py:463, a tensor's truth), zero padding to whole patches), the [REG] embedding, "
    "`Chronos2Encoder.forward` (144-197: `_construct_and_invert_group_time_mask` (123-142: `group_ids[:, None] == "
    "group_ids[None, :]`, `einsum` of the boolean group mask with the time mask, `torch.is_floating_point`), per "
    "block time self-attention with RoPE and group self-attention across the batch (chronos2/layers.py:191-411: "
    "`scaled_dot_product_attention` with `scale=1.0`), the MLP), `assert hidden_states.shape == ...` (model.py:"
    "728, Python shapes), the output `ResidualBlock`, `rearrange`, `InstanceNorm.inverse` (sinh)"
)
_C2_PREDICT = (
    "`Chronos2Pipeline.predict` (chronos2/pipeline.py:467-654, `@torch.no_grad()`: keyword handling, `set("
    "unrolled_quantiles).issubset(...)`, `torch.tensor(unrolled_quantiles)`, the horizon test and "
    "`warnings.warn` (pipeline.py:607) when it exceeds the model's, `Chronos2Dataset` (chronos2/dataset.py:"
    "128-180) and a `DataLoader(batch_size=None)` over it (single process), `for batch in test_loader`: "
    "`_generate_sequential_batches` (300-311) -> `_build_batch` (244-274: per input `_construct_slice` (182-242: "
    "`int(prepared['n_targets'])`, slicing by Python lengths), `torch.full` group ids, `left_pad_and_cat_2D` "
    "(32-46: NaN left padding in a Python loop)), `assert batch['future_target'] is None`, `_predict_batch` "
    "(656-718: `_predict_step` (720-748: NaN padding of the future covariates, the model under no_grad)"
)
_UNROLL = (
    "the long-horizon heuristic (`_prepare_inputs_for_long_horizon_unrolling`, 384-417: `repeat` along the "
    "unrolled quantiles, shifted group ids, `_get_prob_mass_per_quantile_level` (51-77: `assert "
    "quantile_levels.min() > 0.0 and quantile_levels.max() < 1.0`, tensors' truth) twice, `outer`; "
    "`_autoregressive_unroll_for_long_horizon` (419-466: `interpolate_quantiles` of the first prediction, the "
    "context extended, `_slide_context_and_future_covariates` (750-761: `torch.where(torch.isnan(...))`, an index "
    "setitem), the model again on batch x 3 paths, `weighted_quantile` over the 3 x 13 samples))"
)
_INTERPOLATE = (
    "`interpolate_quantiles` (utils.py:22-132: `assert torch.is_floating_point`, list -> `torch.tensor`, "
    "`assert query.min() >= 0.0 and query.max() <= 1.0` and the same for the original levels (utils.py:65-70: "
    "tensors' truth, `and` short-circuits on the first), `clamp`, `sort` and `gather`, `if "
    "original_quantile_levels.min() > 0.0` / `if original_quantile_levels.max() < 1.0` (utils.py:100, 105: "
    "tensors' truth choose the extrapolation padding), `cat`, einops `repeat`, `searchsorted(right=True)`, "
    "`gather` x 4, `nan_to_num` of the interpolation weight)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r21a_chronos_tokenizer_context_input_transform", *CHRONOS,
            "bound method: MeanScaleUniformBins(-15, 15, config).context_input_transform(context (3, 40) float32); "
            "returns (token_ids (3, 33) int64, attention_mask (3, 33) bool, scale (3,))",
            ("chronos",), _r21a_context_input_transform,
            notes="the Chronos tokenizer on a NaN left-padded batch longer than the context length (cut to 32): a "
            "full series around 10, one of 21 steps around 3 with a missing value, one of 12 zeros (its mean "
            "scale is 0 and is replaced by 1 through the boolean mask); in training the context requires grad "
            "(the scale is differentiable; the tokens are not)",
            patterns=_CONTEXT_TRANSFORM,
        ),
        Row(
            "r21a_chronos_tokenizer_label_input_transform", *CHRONOS,
            "bound method: MeanScaleUniformBins(-15, 15, config).label_input_transform(label (3, 6) float32, scale "
            "(3,)); returns (token_ids (3, 7) int64, attention_mask (3, 7) bool)",
            ("chronos",), _r21a_label_input_transform, modes=INFERENCE,
            notes="inference only: token ids and a boolean mask come out (nothing differentiable). The labels of a "
            "training example tokenized with the context's scale: a missing value (PAD), a value far above the "
            "bins (clamped to the last token), a zero series with scale 1; EOS appended",
            patterns="`label_input_transform` (chronos.py:222-231: `assert length == self.config.prediction_length` "
            "(Python ints), `MeanScaleUniformBins._input_transform` with the given scale (chronos.py:170-196: "
            "`~torch.isnan(label)` (a NaN mask), the `scale is None` branch skipped, `bucketize` on the bin "
            "boundaries, `clamp_`, `token_ids[~attention_mask] = pad_token_id` (chronos.py:194, a boolean-mask "
            "setitem)), `_append_eos_token` (198-207))",
        ),
        Row(
            "r21a_chronos_tokenizer_output_transform_control", *CHRONOS,
            "bound method: MeanScaleUniformBins(-15, 15, config).output_transform(samples (3, 3, 6) int64 in [0, "
            "64), scale (3,)); returns (3, 3, 6)",
            ("chronos",), _r21a_output_transform,
            notes="control: sampled token ids back to values (special tokens 0 and 1 clamp to the first bin); in "
            "training the scale requires grad",
            patterns="control: no tensor value reaches Python. `output_transform` (chronos.py:233-240: `unsqueeze` "
            "x 2, `clamp(samples - n_special_tokens - 1, 0, len(self.centers) - 1)` (a Python length), "
            "`self.centers[indices]` (advanced indexing by an int64 tensor: a gather), `* scale`)",
        ),
        Row(
            "r21a_chronos_t5_training_loss", *CHRONOS,
            "wrapper: input_ids, attention_mask, scale = tokenizer.context_input_transform(context (3, 40)); labels, "
            "labels_mask = tokenizer.label_input_transform(future (3, 6), scale); labels[labels_mask == 0] = -100; "
            "returns ChronosModel.model(input_ids, attention_mask, labels=labels).loss (0-d)",
            ("chronos", "transformers"), _r21a_t5_train_loss, frozen=("2", "3"),
            notes="one training step's loss of Chronos-T5 as chronos's training script builds the example "
            "(scripts/training/train.py, `ChronosDataset.to_hf_format`), on " + _TINY_T5 + "; the context (NaN "
            "left-padded, one zero series) and the future (a missing value: label -100) are frozen (tokenized: no "
            "gradient path): in training the model's parameters get gradients (dropout 0.1 active); the builder "
            "sets the model's mode",
            patterns=_CONTEXT_TRANSFORM + ", `label_input_transform` (chronos.py:222-231: `assert length == "
            "prediction_length`, the same NaN mask and boolean-mask setitem with the context's scale, EOS), "
            "`labels[labels_mask == 0] = -100` (a boolean-mask setitem), `T5ForConditionalGeneration.forward` "
            "(`_shift_right`: `masked_fill_(ids == -100, pad)`; " + _T5_ENCODER + "; the decoder with its causal "
            "mask; the LM head scaled by `d_model ** -0.5`; `CrossEntropyLoss(ignore_index=-100)`)",
        ),
        Row(
            "r21a_chronos_model_generate", *CHRONOS,
            "module: ChronosModel(config, T5ForConditionalGeneration)(token_ids (3, 33), attention_mask (3, 33), "
            "prediction_length=6, num_samples=3) on the tokenized NaN-padded context; returns sample tokens (3, 3, "
            "6) int64",
            ("chronos", "transformers"), _r21a_model_generate, modes=INFERENCE,
            notes="inference only: sampling returns token ids (nothing differentiable). Chronos-T5's ancestral "
            "sampling of 3 paths of 6 tokens (min_new_tokens = max_new_tokens = 6, temperature 1, top-k 50, top-p "
            "1) on " + _TINY_T5 + "; the draws come from torch's generator (seeded by the harness)",
            patterns="`ChronosModel.forward` (chronos.py:292-352: `None` tests filling the config defaults, "
            "`assert callable(getattr(self.model, 'generate', None))`, a `GenerationConfig` built per call, `preds"
            "[..., 1:]`, `reshape`) -> " + _GENERATE,
        ),
        Row(
            "r21a_chronos_pipeline_predict_long_horizon", *CHRONOS,
            "bound method: ChronosPipeline(tokenizer, ChronosModel).predict(" + _RAGGED + ", prediction_length=10); "
            "returns samples (3, 3, 10)",
            ("chronos", "transformers"), _r21a_pipeline_predict_long, modes=INFERENCE,
            notes="inference only: sampling (token ids decoded by a gather; no gradient path to the inputs). "
            "Chronos-T5's forecast past its horizon (10 > 6): `logger.warning`, then two rounds of sampling, the "
            "second on the context extended by the first round's median path; on " + _TINY_T5 + " in eval mode",
            patterns="`ChronosPipeline.predict` (chronos.py:430-511): `_prepare_and_validate_context` (388-396: "
            "`isinstance`, `left_pad_and_stack_1D` (utils.py:11-19: `max(len(c) ...)`, a Python loop of NaN "
            "paddings and asserts), `ndim` asserts), the horizon test and `logger.warning(msg)` (chronos.py:485, "
            "the module logger: no handler, emitted through logging's last resort), `while remaining > 0` (Python "
            "ints): " + _CONTEXT_TRANSFORM + ", `ChronosModel.forward` -> " + _GENERATE + ", `output_transform` "
            "(the gather), `prediction.median(dim=1).values` appended to the context (chronos.py:509)",
        ),
        Row(
            "r21a_chronos_model_encode_control", *CHRONOS,
            "bound method: ChronosModel(config, T5ForConditionalGeneration).encode(token_ids (3, 33), attention_mask "
            "(3, 33)) on the tokenized NaN-padded context; returns (3, 33, 16)",
            ("chronos", "transformers"), _r21a_encode,
            notes="control: Chronos-T5's encoder embeddings (what `ChronosPipeline.embed` returns) on " + _TINY_T5
            + "; the harness sets the model's mode; in training the parameters get gradients (the inputs are "
            "token ids and a boolean mask)",
            patterns="control: no tensor value reaches Python. `ChronosModel.encode` (chronos.py:265-290: asserts "
            "on the config's Python `model_type` and `hasattr`), " + _T5_ENCODER,
        ),
        Row(
            "r21a_chronos_bolt_forward_quantile_loss", *CHRONOS,
            "module: ChronosBoltModelForForecasting(T5Config)(context (3, 38) float32 with NaNs, target=(3, 5) with "
            "a NaN); returns ChronosBoltOutput(loss (0-d), quantile_preds (3, 9, 6))",
            ("chronos", "transformers"), _r21a_bolt_forward_loss, frozen=("0",),
            notes="Chronos-Bolt's training forward on " + _TINY_BOLT + ": the context longer than 32 (cut), a "
            "left-padded series, missing values, a series with 8 observed steps (its first patches all missing); "
            "the target shorter than the horizon (padded) with a missing value; the context is frozen (data; its "
            "gradient would be NaN on every series that holds a NaN: the module docstring's quirk (2)): in training "
            "the target and the parameters get gradients (dropout 0.1 active)",
            patterns=_BOLT_FORWARD + " " + _BOLT_DECODER_CACHE + "; then the output `ResidualBlock`, the loss "
            "(chronos_bolt.py:355-386: the target scaled by the context's loc/scale, `assert prediction_length >= "
            "target.shape[-1]` (Python ints), the NaN mask `~torch.isnan(target)`, `target[~target_mask] = 0.0` "
            "(chronos_bolt.py:365, a boolean-mask setitem), zero padding of target and mask to the horizon, the "
            "pinball loss `2 * abs((t - q) * ((t <= q).float() - levels)) * mask`), `InstanceNorm.inverse`",
        ),
        Row(
            "r21a_chronos_bolt_pipeline_predict_long_horizon", *CHRONOS,
            "bound method: ChronosBoltPipeline(ChronosBoltModelForForecasting).predict(" + _RAGGED + ", "
            "prediction_length=10); returns quantiles (3, 9, 10)",
            ("chronos", "transformers"), _r21a_bolt_pipeline_predict_long, modes=INFERENCE,
            notes="inference only: `predict` runs the model under no_grad. Chronos-Bolt past its horizon (10 > 6) on "
            + _TINY_BOLT + " in eval mode: a UserWarning, then the second block on the context extended by each "
            "of the 9 quantile paths (batch 27), reduced by `torch.quantile`",
            patterns="`ChronosBoltPipeline.predict` (chronos_bolt.py:504-598): `_prepare_and_validate_context` "
            "(base.py:67-75: `left_pad_and_stack_1D`, utils.py:11-19: a Python loop of NaN paddings), the horizon "
            "test and `warnings.warn(msg)` (chronos_bolt.py:550), the context cut (a Python shape test), under "
            "no_grad " + _BOLT_FORWARD + " " + _BOLT_DECODER_CACHE + ", `if remaining > 0`: `unsqueeze(1).repeat`, "
            "`torch.tensor(self.quantiles)`, `while remaining > 0` (Python ints): `cat` and cut, the model on the "
            "reshaped batch, `torch.quantile(prediction, q, dim=1)` (a sort), `[..., :prediction_length]`",
        ),
        Row(
            "r21a_chronos_bolt_predict_quantiles_extrapolated", *CHRONOS,
            "bound method: ChronosBoltPipeline(ChronosBoltModelForForecasting).predict_quantiles(context (3, 36) "
            "NaN left-padded, quantile_levels=[0.05, 0.25, 0.5, 0.75, 0.95]); returns (quantiles (3, 6, 5), mean "
            "(3, 6))",
            ("chronos", "transformers"), _r21a_bolt_predict_quantiles, modes=INFERENCE,
            notes="inference only: `predict` runs the model under no_grad and the result is detached. Quantile "
            "levels outside the trained 0.1-0.9 (0.05, 0.95: `logger.warning`) and between them (0.25, 0.75): "
            "interpolated by `torch.quantile` over the 9 predictions with the extremes repeated; on " + _TINY_BOLT
            + " in eval mode",
            patterns="`ChronosBoltPipeline.predict_quantiles` (chronos_bolt.py:600-648): `predict` (504-598, one "
            "block: " + _BOLT_FORWARD + " " + _BOLT_DECODER_CACHE + "), `detach().swapaxes`, `set(...).issubset` "
            "(Python floats), Python `min`/`max` of the levels and `logger.warning(...)` (chronos_bolt.py:626, an "
            "f-string of the lists), `cat` of the first and last quantile, `torch.quantile` with a tensor of levels, "
            "`permute`, the median by `training_quantile_levels.index(0.5)`",
        ),
        Row(
            "r21a_chronos2_forward_covariates_loss", *CHRONOS,
            "module: Chronos2Model(Chronos2CoreConfig)(context (4, 30) float32 with NaNs, group_ids=[0, 0, 1, 1], "
            "future_covariates=(4, 7) NaN for the targets, num_output_patches=2, future_target=(4, 7) with a NaN); "
            "returns Chronos2Output(loss (0-d), quantile_preds (4, 13, 8), (), ())",
            ("chronos",), _r21a_chronos2_forward_loss, frozen=("0",),
            notes="Chronos-2's training forward on " + _TINY_C2 + ": two groups (a bivariate target; a target with "
            "a known covariate whose future is known 5 of 7 steps), a left-padded series and missing values, the "
            "future (7 steps) padded to 2 patches; the context is frozen (data; its gradient would be NaN on every "
            "series that holds a NaN: the module docstring's quirk (2)): in training the future covariates (NaN "
            "gradients at their NaN entries), the target and the parameters get gradients (dropout 0.1 active)",
            patterns=_C2_FORWARD + ", `_compute_loss` (518-567: `assert` on Python shapes, the target scaled, the "
            "NaN mask `~torch.isnan(future_target)`, `torch.where(mask > 0.0, ...)`, zero padding, the pinball "
            "loss masked by the missing targets and the known covariates)",
        ),
        Row(
            "r21a_chronos2_pipeline_predict_dict_covariates", *CHRONOS,
            "bound method: Chronos2Pipeline(Chronos2Model).predict([2 dicts: target (30,) / (22,) tensors, "
            "past_covariates {temperature: tensor, weather: numpy str array}, future_covariates {temperature: "
            "(10,) tensor, weather: (10,) str array}], prediction_length=10, unrolled_quantiles=[0.1, 0.5, 0.9]); "
            "returns [(1, 13, 10), (1, 13, 10)]",
            ("chronos",), _r21a_chronos2_predict_dicts, modes=INFERENCE,
            notes="inference only: `predict` is `@torch.no_grad()` and goes through numpy and pandas. Chronos-2 "
            "with a numeric and a categorical known covariate (three weather strings, target-encoded), two series "
            "of unequal length, past its horizon (10 > 8: a UserWarning and one step of the long-horizon "
            "heuristic on 3 unrolled quantiles); on " + _TINY_C2 + " in eval mode",
            patterns="`Chronos2Dataset.__init__` -> `preprocess.from_list_of_dicts` (chronos2/preprocess.py:"
            "217-309): `_validate_list_of_dicts` (481-606: `np.asarray` of every value, tensors included), "
            "`np.asarray(d['target'], dtype=np.float32)` of the target tensors (a numpy conversion), "
            "`np.concatenate`, `_stack_covariate` (312-316: `np.asarray` of the covariate tensors, a pandas Series, "
            "`np.issubdtype` choosing float32 or 'category'), `_build_prepared_inputs` (369-478: "
            "`_encode_categorical` (319-366: pandas category codes, `get_indexer`, `np.where`) -> `_target_encode` "
            "(612-686: `np.isfinite`, `np.bincount`, per-item smoothed means), a Python loop over the series filling "
            "numpy arrays, `torch.from_numpy`); then " + _C2_PREDICT + " -> " + _C2_FORWARD + "), " + _UNROLL
            + ", `cat`, the slices by `target_idx_ranges` (Python ints)",
        ),
        Row(
            "r21a_chronos2_predict_quantiles_cross_learning", *CHRONOS,
            "bound method: Chronos2Pipeline(Chronos2Model).predict_quantiles(inputs (2, 2, 30) float32, the second "
            "series NaN for 12 steps, prediction_length=6, quantile_levels=[0.15, 0.5, 0.85], cross_learning=True); "
            "returns ([2 x (2, 6, 3)], [2 x (2, 6)])",
            ("chronos",), _r21a_chronos2_predict_quantiles, modes=INFERENCE,
            notes="inference only: `predict` is `@torch.no_grad()`. Two bivariate series forecast jointly (cross "
            "learning: one group for the whole batch) within the horizon (2 patches), levels 0.15 and 0.85 "
            "interpolated between the trained ones; on " + _TINY_C2 + " in eval mode",
            patterns="`Chronos2Pipeline.predict_quantiles` (chronos2/pipeline.py:763-820) -> `predict`: "
            "`preprocess.from_tensor` (chronos2/preprocess.py:28-69: a Python loop over the series, `clone`, NaN "
            "future covariates), " + _C2_PREDICT + " -> " + _C2_FORWARD + " (group ids zeroed by `zeros_like`)); "
            "then per series `rearrange`, `set(...).issubset` (false), Python `min`/`max` tests, per series "
            + _INTERPOLATE + ", the median by `index(0.5)`",
        ),
        Row(
            "r21a_chronos_interpolate_quantiles", *CHRONOS,
            "function: chronos.utils.interpolate_quantiles([0.05, 0.25, 0.5, 0.75, 0.97], [0.1, ..., 0.9], values "
            "(3, 6, 9) sorted along the levels); returns (3, 6, 5)",
            ("chronos",), _r21a_interpolate_quantiles,
            notes="the quantile interpolation Chronos-2's pipeline applies to its predictions (levels inside and "
            "outside the 9 given ones: 0.05 and 0.97 extrapolate flat); in training the values require grad",
            patterns=_INTERPOLATE,
        ),
        Row(
            "r21a_chronos_weighted_quantile", *CHRONOS,
            "function: chronos.utils.weighted_quantile([0.1, 0.5, 0.9], sample_weights (6,) in [0.1, 0.6), samples "
            "(2, 5, 6)); returns (2, 5, 3)",
            ("chronos",), _r21a_weighted_quantile,
            notes="the weighted empirical quantiles Chronos-2's long-horizon heuristic reduces its samples with; in "
            "training the samples and the weights require grad",
            patterns="`weighted_quantile` (utils.py:135-212: `assert torch.is_floating_point`, list -> "
            "`torch.tensor`, `ndim` and `len` asserts, `assert query.min() >= 0.0 and query.max() <= 1.0`, `assert "
            "sample_weights.min() > 0.0` (utils.py:179, a tensor's truth), weights normalized, `sort` and `gather`, "
            "`cumsum`, `clamp`) -> " + _INTERPOLATE + " with 2-D levels (the shape assert)",
        ),
        Row(
            "r21a_chronos_left_pad_and_stack_control", *CHRONOS,
            "wrapper: chronos.utils.left_pad_and_stack_1D([a (40,), b (21,), c (12,)]); returns (3, 40) NaN "
            "left-padded",
            ("chronos",), _r21a_left_pad,
            notes="control: how every pipeline stacks a list of series of unequal length (b holds a NaN); the "
            "wrapper takes the tensors as separate arguments so that in training they require grad",
            patterns="control: no tensor value reaches Python. `left_pad_and_stack_1D` (utils.py:11-19: `max(len(c) "
            "for c in tensors)` (Python lengths), a Python loop: `isinstance` and `ndim` asserts, `torch.full` of "
            "NaN, `concat`; `stack`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-one (a)")
