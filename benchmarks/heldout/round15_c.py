"""Held-out round fifteen (r15c): pytorch-forecasting.

Chosen by reading the library's source, written down in ROUND15.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The model rows build a ``TimeSeriesDataSet`` in the builder over a seeded
pandas frame (3 series of 14 steps, encoder up to 6 steps, decoder up to 3,
a ``GroupNormalizer`` target) and the model with ``from_dataset`` (tiny
sizes); the batch is the dataset's own collate function (the one its
dataloader uses) over chosen windows, so encoder and decoder lengths differ
within the batch.  A model's output is a namedtuple whose class the model makes
on its first call (``to_network_output``, utils/_utils.py:497-516), one class
per model instance, so those rows call a small wrapper returning the output as
a dict (two builds' outputs compare); the wrapper takes the model as an
argument and the builder sets its train/eval mode.  The metric rows call the
metric module as the base model's step does (``loss(prediction, y)`` with ``y
= (target, weight)`` and a ``PackedSequence`` target when decoder lengths
differ); a metric is a torchmetrics ``Metric`` whose ``forward`` computes the
batch value from a reset state and merges it into the running state, so every
call returns the same value.

The data-dependent code: ``TemporalFusionTransformer.forward``
(models/temporal_fusion_transformer/_tft.py:543: ``int(encoder_lengths.max())``
slicing the time axis; ``get_attention_mask``, _tft.py:482-527: ``arange`` of
``decoder_lengths.max()`` and ``create_mask(encoder_lengths.max(), ...)``, tensor
sizes); the zero-length-capable RNNs (models/nn/rnn.py:86-177: ``assert
lengths.min() >= 0``, ``if max_length == 0:``, ``if min_length == 0:`` with a
``masked_scatter`` of the initial state, ``pack_padded_sequence(x,
lengths.cpu())``), run directly (GRU with an empty sequence) and inside TFT and
DeepAR; ``interpret_output`` (_tft.py:706-871: boolean-mask setitems of NaN,
``torch.full`` sized by ``max_encoder_length - encoder_lengths.max()``,
``integer_histogram``'s ``torch.unique``); DeepAR's sampling
(models/deepar/_deepar.py:328-441: ``assert encoder_lengths.min() > 0``, a
zero-length encoding, ``repeat_interleave`` by n_samples,
``decode_autoregressive``'s Python loop with ``Normal`` argument validation,
``if not torch._is_all_true(valid): raise`` in torch/distributions/
distribution.py:76); the metrics' ``update``/``compute``
(metrics/base_metrics/_base_metrics.py:893-980: ``if not
torch.isfinite(losses): warnings.warn``, ``assert not torch.isnan(loss)``,
``assert torch.isfinite(loss)``); ``MASE.calculate_scaling``
(metrics/point.py:251-298: ``assert (total_lengths > 1).all()``, ``if
(total_lengths != max_length).any():``, a boolean-mask read and ``if
len(...) > 0``); ``MultivariateNormalDistributionLoss`` (a validated
``LowRankMultivariateNormal`` and ``_validate_sample`` of the target, torch/
distributions/distribution.py:68-80 and 280-329); the ``EncoderNormalizer``
(data/encoders.py:673: ``if (np.asarray(self.scale_) < 1e-7).any():
warnings.warn``, encoders.py:706: ``self.get_parameters().numpy()``).  The
control is N-BEATS (trend and seasonality blocks: MLPs and fixed basis
matrices, no lengths).

Global state on import: ``import pytorch_forecasting`` changes none of torch's
global state (default dtype and device, grad mode, threads, torch-function
modes, deterministic flag, matmul precision, print options, anomaly mode) and
emits no warning.  It imports lightning (2.6.6), torchmetrics, sklearn, scipy,
pandas, sympy, and through lightning.fabric.wrappers ``torch._dynamo`` (110
``torch._dynamo``/``torch._inductor`` modules loaded, their artifact loggers
registered) and, through torchmetrics' BERTScore module, transformers.  It
adds nine warning filters (lightning: ``default`` for
LightningDeprecationWarning, ``ignore`` for FutureWarnings matching
``.*FSDP.state_dict_type.*``; sympy ``once``; scipy ``always`` for
SpecialFunctionWarning and an ``ignore`` of the matrix-subclass warning;
urllib3 and requests filters).  Logging: the ``lightning`` logger gets level
INFO and a stderr handler (level INFO), ``lightning.pytorch`` and
``lightning.fabric`` INFO with a stderr handler and ``propagate=False``,
``torchmetrics`` INFO with a stderr handler, ``transformers`` WARNING with a
handler and ``propagate=False``, ``huggingface_hub`` WARNING with a handler;
the root logger is untouched.  Building a model warns through lightning's
``save_hyperparameters`` ("Attribute 'loss' is an instance of `nn.Module`"),
in the builder, not in the call.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

PYTORCH_FORECASTING = ("pytorch-forecasting", "1.8.0")

MODEL_NOTE = (
    "the model is built by `from_dataset` from a TimeSeriesDataSet over a seeded 3-series pandas frame (in the "
    "builder; nothing on disk) and put in train or eval mode there (the callable is a function taking the model); "
    "the output is returned as a dict because its namedtuple class is made per model instance"
)


# --- helpers ---------------------------------------------------------------------------


def _r15c_dataset(min_encoder_length: int = 2, covariates: bool = True) -> Any:
    """A ``TimeSeriesDataSet`` over a tiny seeded frame: 3 series ("a", "b", "c")
    of 14 steps (a random walk around 10), encoder 6 steps (at least
    ``min_encoder_length``), decoder 3 steps (at least 1), target normalized
    per group; with ``covariates`` a static categorical (the group) and two
    known reals (time_idx, a random covariate).  Without covariates (N-BEATS)
    the target is the only variable and every window has full lengths."""
    import numpy as np
    import pandas as pd
    from pytorch_forecasting import GroupNormalizer, TimeSeriesDataSet

    n = 14
    frame = pd.DataFrame({
        "group": np.repeat(["a", "b", "c"], n),
        "time_idx": np.tile(np.arange(n), 3),
        "value": (torch.randn(3 * n).cumsum(0) + 10.0).numpy().astype("float32"),
        "x_known": torch.randn(3 * n).numpy().astype("float32"),
    })
    if not covariates:
        return TimeSeriesDataSet(
            frame, time_idx="time_idx", target="value", group_ids=["group"],
            max_encoder_length=6, min_encoder_length=6, max_prediction_length=3, min_prediction_length=3,
            time_varying_unknown_reals=["value"], target_normalizer=GroupNormalizer(groups=["group"]),
        )
    return TimeSeriesDataSet(
        frame, time_idx="time_idx", target="value", group_ids=["group"],
        max_encoder_length=6, min_encoder_length=min_encoder_length, max_prediction_length=3,
        min_prediction_length=1, static_categoricals=["group"], time_varying_known_reals=["time_idx", "x_known"],
        time_varying_unknown_reals=["value"], target_normalizer=GroupNormalizer(groups=["group"]),
    )


def _r15c_batch(dataset: Any, indices: list[int]) -> dict[str, torch.Tensor]:
    """The dataloader's batch of the windows at ``indices`` (the dataset's own
    collate function, the one ``to_dataloader`` uses), inputs only."""
    x, _ = dataset._collate_fn([dataset[i] for i in indices])
    return x


# Windows (min_encoder_length=2): encoder lengths 6, 3, 2, 2, 5, 2; decoder lengths 3, 3, 1, 2, 3, 1.
_R15C_TFT_WINDOWS = [0, 8, 11, 22, 30, 36]
# Windows whose encoders are all shorter than 6: encoder 5, 2, 2, 4, 2, 5; decoder 3, 3, 1, 3, 2, 3.
_R15C_INTERPRET_WINDOWS = [6, 9, 11, 19, 34, 41]
# Windows (min_encoder_length=1): encoder lengths 6, 4, 1, 2, 5, 1; decoder lengths 3, 3, 2, 3, 3, 1.
_R15C_DEEPAR_WINDOWS = [0, 7, 11, 22, 32, 12]


def _r15c_tft(dataset: Any) -> Any:
    from pytorch_forecasting import TemporalFusionTransformer
    from pytorch_forecasting.metrics import QuantileLoss

    return TemporalFusionTransformer.from_dataset(
        dataset, hidden_size=8, attention_head_size=2, hidden_continuous_size=4, lstm_layers=1, dropout=0.1,
        loss=QuantileLoss(quantiles=[0.1, 0.5, 0.9]),
    )


# --- models ----------------------------------------------------------------------------


def _r15c_forward(model: Any, x: dict[str, torch.Tensor], **kwargs: Any) -> dict[str, Any]:
    """``model(x, **kwargs)`` with its output as a plain dict: the network output is an instance of a
    namedtuple class that each model makes on its first call (``to_network_output``), a different class
    per model instance, so two builds' outputs would not compare as equal structures."""
    return dict(model(x, **kwargs).items())


def _r15c_tft_forward(training: bool) -> Built:
    dataset = _r15c_dataset(min_encoder_length=2)
    model = _r15c_tft(dataset)
    model.train(training)
    return _r15c_forward, (model, _r15c_batch(dataset, _R15C_TFT_WINDOWS)), {}


def _r15c_tft_interpret(training: bool) -> Built:
    dataset = _r15c_dataset(min_encoder_length=2)
    model = _r15c_tft(dataset)
    model.eval()
    with torch.no_grad():
        out = model(_r15c_batch(dataset, _R15C_INTERPRET_WINDOWS))
    return model.interpret_output, (out,), {"reduction": "sum"}


def _r15c_deepar_sample(training: bool) -> Built:
    from pytorch_forecasting import DeepAR
    from pytorch_forecasting.metrics import NormalDistributionLoss

    dataset = _r15c_dataset(min_encoder_length=1)
    model = DeepAR.from_dataset(dataset, hidden_size=8, rnn_layers=1, dropout=0.1, loss=NormalDistributionLoss())
    model.eval()
    return _r15c_forward, (model, _r15c_batch(dataset, _R15C_DEEPAR_WINDOWS)), {"n_samples": 4}


def _r15c_nbeats_control(training: bool) -> Built:
    from pytorch_forecasting import NBeats

    dataset = _r15c_dataset(covariates=False)
    model = NBeats.from_dataset(
        dataset, stack_types=["trend", "seasonality"], num_blocks=[1, 1], num_block_layers=[2, 2],
        widths=[16, 16], sharing=[False, False], expansion_coefficient_lengths=[3, 3], dropout=0.1,
    )
    model.train(training)
    return _r15c_forward, (model, _r15c_batch(dataset, [0, 4, 13, 17])), {}


# --- rnn helper, metrics, normalizer ---------------------------------------------------


def _r15c_gru_zero_length(training: bool) -> Built:
    from pytorch_forecasting.models.nn import GRU

    gru = GRU(input_size=3, hidden_size=4, num_layers=1, batch_first=True)
    x = torch.randn(4, 5, 3)
    hx = torch.randn(1, 4, 4)
    return gru, (x, hx), {"lengths": torch.tensor([5, 0, 3, 2]), "enforce_sorted": False}


def _r15c_quantile_packed(training: bool) -> Built:
    from torch.nn.utils import rnn

    from pytorch_forecasting.metrics import QuantileLoss

    metric = QuantileLoss(quantiles=[0.1, 0.5, 0.9])
    y_pred = torch.randn(4, 3, 3)
    target = rnn.pack_padded_sequence(
        torch.randn(4, 3), torch.tensor([3, 1, 2, 3]), batch_first=True, enforce_sorted=False,
    )
    weight = torch.rand(4) + 0.5
    # y as the base model passes it: (packed decoder target, per-sample weight).
    return metric, (y_pred, (target, weight)), {}


def _r15c_mase(training: bool) -> Built:
    from torch.nn.utils import rnn

    from pytorch_forecasting.metrics import MASE

    metric = MASE()
    y_pred = torch.randn(4, 3)
    target = rnn.pack_padded_sequence(
        torch.randn(4, 3), torch.tensor([3, 2, 3, 1]), batch_first=True, enforce_sorted=False,
    )
    encoder_lengths = torch.tensor([5, 3, 4, 2])
    encoder_target = torch.randn(4, 5) * (torch.arange(5)[None] < encoder_lengths[:, None])
    # y as the base model passes it: (packed decoder target, no weight); a bare PackedSequence would be
    # unpacked as (target, weight) by MASE.update's tuple test (point.py:208-213).
    return metric, (y_pred, (target, None), encoder_target, encoder_lengths), {}


def _r15c_mvn_run(loss: Any, normalizer: Any, raw: torch.Tensor, target_scale: torch.Tensor,
                  target: torch.Tensor) -> torch.Tensor:
    parameters = loss.rescale_parameters(raw, target_scale=target_scale, encoder=normalizer)
    return loss(parameters, target)


def _r15c_mvn_loss(training: bool) -> Built:
    from pytorch_forecasting.data.encoders import TorchNormalizer
    from pytorch_forecasting.metrics import MultivariateNormalDistributionLoss

    loss = MultivariateNormalDistributionLoss(rank=3)
    normalizer = TorchNormalizer(method="identity", center=False, transformation="softplus")
    raw = torch.randn(4, 3, 2 + 3) * 0.5  # (series, time, loc + diag + 3 cov factors)
    target_scale = torch.stack([torch.randn(4) * 0.1, torch.rand(4) + 0.5], dim=-1)
    target = torch.rand(4, 3) + 0.5  # positive: the softplus transform's codomain
    return _r15c_mvn_run, (loss, normalizer, raw, target_scale, target), {}


def _r15c_normalizer_run(y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    from pytorch_forecasting import EncoderNormalizer

    normalizer = EncoderNormalizer(method="robust", max_length=10, transformation="softplus")
    normalizer.fit(y)
    scaled = normalizer.transform(y)
    return scaled, normalizer.inverse_transform(scaled), normalizer.get_parameters()


def _r15c_encoder_normalizer(training: bool) -> Built:
    import pytorch_forecasting  # noqa: F401  (imported here, not in the timed call)

    return _r15c_normalizer_run, (torch.rand(12) * 5.0 + 0.5,), {}


# --- rows ------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r15c_tft_forward_varying_lengths", *PYTORCH_FORECASTING,
            "wrapper: dict(model(x).items()) of TemporalFusionTransformer.from_dataset(dataset, hidden_size=8, "
            "attention_head_size=2, hidden_continuous_size=4, lstm_layers=1, dropout=0.1, loss=QuantileLoss("
            "[0.1, 0.5, 0.9])) on the dataset's collated batch of 6 windows (encoder lengths 6, 3, 2, 2, 5, 2; "
            "decoder lengths 3, 3, 1, 2, 3, 1)",
            ("pytorch_forecasting",), _r15c_tft_forward,
            notes=MODEL_NOTE + "; the batch is a dict of tensors (no input gradient): in training the model's "
            "parameters get the gradient",
            patterns="`TemporalFusionTransformer.forward` (models/temporal_fusion_transformer/_tft.py:530-678): "
            "`max_encoder_length = int(encoder_lengths.max())` (_tft.py:543, a tensor read into a Python int "
            "that then slices the time axis) -> `MultiEmbedding` and the variable selection networks "
            "(sub_modules.py: Python loops over the variable dicts) -> `lstm_encoder`/`lstm_decoder` with "
            "`lengths=` (models/nn/rnn.py:86-177, `RNN.forward`: `min_length = lengths.min()`, `max_length = "
            "lengths.max()`, `assert min_length >= 0` (a tensor in an assert), `if max_length == 0:` and `if "
            "min_length == 0:` (tensors in Python `if`s; neither taken here), `lengths.where(lengths > 0, 1)`, "
            "`rnn.pack_padded_sequence(x, pack_lengths.cpu(), enforce_sorted=False)` (a device copy of the "
            "lengths, which set the packed batch sizes), `pad_packed_sequence` (output length = the longest "
            "length)) -> gated skip connections -> `get_attention_mask` (_tft.py:482-527: `decoder_length = "
            "decoder_lengths.max()` used as `torch.arange(decoder_length)` (causal mask), `create_mask("
            "encoder_lengths.max(), encoder_lengths)` (utils/_utils.py:162-196: `torch.arange(size)` with a "
            "tensor size)) -> interpretable multi-head attention (`masked_fill` with mask_bias) -> "
            "`transform_output` (QuantileLoss.rescale_parameters -> `GroupNormalizer.__call__`, encoders.py:"
            "777-820) -> `to_network_output` (utils/_utils.py:497-516: on the first call `namedtuple('output', "
            "results)` and a class statement, stored on the model)",
        ),
        Row(
            "r15c_tft_interpret_output", *PYTORCH_FORECASTING,
            "TemporalFusionTransformer.interpret_output(out, reduction='sum') (same model config) on the output "
            "the model gave, under no_grad in the builder, for 6 windows whose encoders are all shorter than "
            "max_encoder_length (encoder lengths 5, 2, 2, 4, 2, 5; decoder lengths 3, 3, 1, 3, 2, 3)",
            ("pytorch_forecasting",), _r15c_tft_interpret, modes=INFERENCE,
            notes="inference only: interpret_output reads a finished forward's attention and variable weights "
            "(the library calls it on `detach(out)`, `_log_interpretation`), so nothing it returns carries a "
            "gradient; the forward runs in the builder",
            patterns="`interpret_output` (_tft.py:706-871): `decoder_attention.clone()` and a boolean-mask "
            "setitem of NaN (`decoder_attention[decoder_mask[..., None, None].expand_as(...)] = nan`, _tft.py:"
            "748), the encoder attention rolled by `encoder_lengths` (`torch.gather`), `if encoder_attention."
            "size(-1) < max_encoder_length:` (taken: the batch's longest encoder is 5 < 6) -> `torch.full(("
            "..., max_encoder_length - out['encoder_lengths'].max()), nan)` (_tft.py:780-795, a shape taken from "
            "a tensor's value), `attention[attention < 1e-5] = nan` (_tft.py:799, a boolean-mask setitem) -> "
            "`integer_histogram` twice (utils/_utils.py:20-48: `torch.unique(data, return_counts=True)`, a "
            "data-sized result scattered into a fixed-size histogram) -> `create_mask`/`masked_fill` averages of "
            "the variable weights (`lengths.where(lengths > 0, 1)`) -> `masked_op` (utils/_utils.py:607-640: "
            "`~isnan` masks, masked sums and means) over heads and then over the batch",
        ),
        Row(
            "r15c_deepar_sample_autoregressive", *PYTORCH_FORECASTING,
            "wrapper: dict(model(x, n_samples=4).items()) of DeepAR.from_dataset(dataset (min_encoder_length=1), "
            "hidden_size=8, rnn_layers=1, dropout=0.1, loss=NormalDistributionLoss()) in eval mode on 6 windows "
            "(encoder lengths 6, 4, 1, 2, 5, 1; decoder lengths 3, 3, 2, 3, 3, 1); 4 sampled paths per window",
            ("pytorch_forecasting",), _r15c_deepar_sample, modes=INFERENCE,
            notes="inference only: the sampling path is the prediction path (`forward` asserts `n_samples is "
            "None` in train mode, _deepar.py:463-464) and its samples are drawn by `Distribution.sample` under "
            "no_grad; the samples come from torch's global generator, seeded by the harness before each call; "
            + MODEL_NOTE,
            patterns="`DeepAR.forward` (models/deepar/_deepar.py:443-472) -> `encode` (_deepar.py:328-338: "
            "`assert x['encoder_lengths'].min() > 0` (a tensor in an assert), lengths minus one, "
            "`construct_input_vector` (target rolled by one, `input_vector[:, 1:]`), the LSTM with `lengths=` "
            "(models/nn/rnn.py:86-177: `assert min_length >= 0`, `if max_length == 0:`, `if min_length == 0:` "
            "taken (two windows have encoder length 1, i.e. 0 steps to encode) -> `no_encoding = (lengths == "
            "0)[None, :, None]`, `LSTM.handle_no_encoding` (`masked_scatter` of the initial state), "
            "`pack_padded_sequence(x, pack_lengths.cpu())`) -> the one-off target gathered at `encoder_lengths "
            "- 1` -> `decode` with n_samples (_deepar.py:395-441: `repeat_interleave(4, 0)` of the inputs, "
            "hidden state and target scale) -> `decode_autoregressive` (models/base/_base_model.py:2475-2613: a "
            "Python loop over the 3 decoder steps, each `decode_one` (in-place setitem of the fed-back target, "
            "the LSTM without lengths, the distribution projector) -> `output_to_prediction` (_base_model.py:"
            "2404-2473: `transform_output` -> `NormalDistributionLoss.rescale_parameters` (stores "
            "`self._transformation` on the loss), `reshape(int(x.size(0) / n_samples), n_samples, -1)`, "
            "`loss.sample` -> `map_x_to_distribution` (`Normal(loc, scale)` whose argument validation runs `if "
            "not torch._is_all_true(valid): raise ValueError` in torch/distributions/distribution.py:76, a tensor "
            "read into a Python `if`; `TransformedDistribution` with an `AffineTransform`), `sample((1,))`, "
            "`GroupNormalizer.transform(prediction, target_scale=...)` back to the normalized scale)) -> "
            "`torch.stack` and a reshape to (6, 3, 4)",
        ),
        Row(
            "r15c_rnn_gru_zero_length", *PYTORCH_FORECASTING,
            "pytorch_forecasting.models.nn.GRU(input_size=3, hidden_size=4, batch_first=True) on x (4, 5, 3) and "
            "an initial state hx (1, 4, 4), with lengths=[5, 0, 3, 2] (one empty sequence) and "
            "enforce_sorted=False; returns (padded output, hidden state)",
            ("pytorch_forecasting",), _r15c_gru_zero_length,
            notes="the GRU helper is the zero-length-capable RNN every recurrent model of the library uses "
            "(LSTM or GRU by `cell_type`); the integer lengths are a keyword argument; in training x, hx and "
            "the GRU weights get the gradient (hx also through the zero-length sequence's replaced state)",
            patterns="`RNN.forward` (models/nn/rnn.py:86-177): `min_length = lengths.min()`, `max_length = "
            "lengths.max()`, `assert min_length >= 0, ...` (a tensor in an assert), `if max_length == 0:` (a "
            "tensor in a Python `if`; not taken), `pack_lengths = lengths.where(lengths > 0, ones)` -> "
            "`rnn.pack_padded_sequence(x, pack_lengths.cpu(), enforce_sorted=False, batch_first=True)` (sorting "
            "by length and the packed batch sizes computed from the lengths' values) -> `nn.GRU.forward` on the "
            "packed sequence -> `if min_length == 0:` (taken) -> `no_encoding = (lengths == 0)[None, :, None]`, "
            "`GRU.handle_no_encoding` (rnn.py:223-229: `hidden_state.masked_scatter(no_encoding, hx)`, a "
            "masked scatter whose number of taken source elements is the mask's count) -> "
            "`rnn.pad_packed_sequence` (output time length from the lengths)",
        ),
        Row(
            "r15c_quantile_loss_packed_target", *PYTORCH_FORECASTING,
            "QuantileLoss(quantiles=[0.1, 0.5, 0.9]) called as loss(y_pred (4, 3, 3), (target, weight)) with "
            "target a PackedSequence of (4, 3) with lengths [3, 1, 2, 3] and weight (4,), as the base model's "
            "step passes y for windows of different decoder lengths",
            ("pytorch_forecasting", "torchmetrics"), _r15c_quantile_packed,
            notes="a torchmetrics Metric: `forward` computes the batch value from a reset state and then merges "
            "it into the running state, so every call returns the same value; the target and weight sit in a "
            "tuple (no input gradient for them); in training y_pred gets the gradient",
            patterns="torchmetrics `Metric.forward` (torchmetrics/metric.py:287-320) -> "
            "`_forward_reduce_state_update` (metric.py:364-402: state copy, `reset`, `update`, `compute`, "
            "`_reduce_states` under no_grad) -> `MultiHorizonMetric.update` (metrics/base_metrics/"
            "_base_metrics.py:855-891: the tuple test (a PackedSequence is a tuple), `unpack_sequence` "
            "(utils/_utils.py:282-307: `pad_packed_sequence`, the padded length being the longest length), "
            "`QuantileLoss.loss` (metrics/quantile.py:34-42: a Python loop over the quantiles, `torch.max` of "
            "the pinball terms), `losses * unsqueeze_like(weight, losses)`) -> `_update_losses_and_lengths` "
            "(_base_metrics.py:893-909: `mask_losses` (`arange >= lengths` mask, `masked_fill`), `losses.sum()`, "
            "`if not torch.isfinite(losses):` (a tensor in a Python `if`; not taken) with a `warnings.warn` "
            "behind it) -> `compute` -> `reduce_loss` (_base_metrics.py:947-980: sum over lengths, `assert not "
            "torch.isnan(loss)` and `assert torch.isfinite(loss)`, tensors in asserts)",
        ),
        Row(
            "r15c_mase_varying_lengths", *PYTORCH_FORECASTING,
            "MASE() called as loss(y_pred (4, 3), (target, None), encoder_target (4, 5), encoder_lengths) with "
            "target a PackedSequence of (4, 3) with lengths [3, 2, 3, 1] and encoder lengths [5, 3, 4, 2] "
            "(zero-padded encoder targets), as the base model's step calls a MASE loss",
            ("pytorch_forecasting", "torchmetrics"), _r15c_mase, frozen=("2",),
            notes="the encoder target is data (frozen); the decoder target sits in the tuple (MASE asserts it "
            "does not require grad); in training y_pred gets the gradient; a torchmetrics Metric as in the "
            "QuantileLoss row (every call returns the batch value)",
            patterns="torchmetrics `Metric.forward` -> `_forward_reduce_state_update` -> `MASE.update` "
            "(metrics/point.py:187-241: tuple unpacking, `unpack_sequence` of the packed target, `assert not "
            "target.requires_grad`) -> `calculate_scaling` (point.py:251-298: `assert (total_lengths > 1)."
            "all()` (a tensor in an assert), `if (total_lengths != max_length).any():` (a tensor in a Python "
            "`if`; taken) -> `scatter_` of the decoder target right after each encoder's last value, `diffs` of "
            "neighbours, `zero_correction_indices = total_lengths[not_maximum_length] - 1` (a boolean-mask read "
            "of data-dependent length), `if len(zero_correction_indices) > 0:` (its length in a Python `if`), "
            "advanced-index setitem `diffs[arange[not_maximum_length], zero_correction_indices] = 0.0`) -> "
            "`MASE.loss` (scaled absolute error) -> `_update_losses_and_lengths` (`masked_fill` mask from the "
            "lengths, `if not torch.isfinite(losses):`) -> `compute`/`reduce_loss` (`assert not "
            "torch.isnan(loss)`, `assert torch.isfinite(loss)`)",
        ),
        Row(
            "r15c_multivariate_normal_loss", *PYTORCH_FORECASTING,
            "wrapper: MultivariateNormalDistributionLoss(rank=3).rescale_parameters(raw (4 series, 3 steps, 5), "
            "target_scale (4, 2), encoder=TorchNormalizer(method='identity', center=False, transformation="
            "'softplus')), then loss(parameters, target (4, 3), positive) (the DeepVAR loss)",
            ("pytorch_forecasting", "torchmetrics"), _r15c_mvn_loss,
            notes="the normalizer only gives its transformation (not fitted); in training raw, target_scale "
            "and the (positive) target get the gradient; a torchmetrics Metric as in the QuantileLoss row",
            patterns="`MultivariateNormalDistributionLoss.rescale_parameters` (metrics/distributions.py:141-166: "
            "stores `self._transformation` on the loss, softplus diagonal plus `_diag_bias`, the "
            "cov factor scaled by sqrt(rank), concat with the target scale) -> torchmetrics `Metric.forward` -> "
            "`MultiHorizonMetric.update` (tuple test, full lengths) -> `MultivariateDistributionLoss.loss` "
            "(_base_metrics.py:1142-1156) -> `map_x_to_distribution` (metrics/distributions.py:114-139: `assert "
            "x.device.type != 'mps'`, permute, `LowRankMultivariateNormal(loc, cov_factor, cov_diag)` (argument "
            "validation: `if not torch._is_all_true(valid): raise ValueError` per constraint, torch/"
            "distributions/distribution.py:68-80, tensors read into Python `if`s; the capacitance Cholesky), "
            "`AffineTransform(event_dim=1)`, `TransformedDistribution(..., [scaler, SoftplusTransform()])` "
            "(data/encoders.py:61-81)) -> `log_prob` (`_validate_sample`: the support check, `if not "
            "torch._is_all_true(valid): raise ValueError`, distribution.py:280-329; `softplus_inv` (encoders.py:"
            "46-48: `y.where(y > 20.0, ...)`), the affine inverse and log-det terms, the low-rank Mahalanobis "
            "term) -> `.sum() * batch` -> `_update_losses_and_lengths` (0-d losses: no mask; `if not "
            "torch.isfinite(losses):`) -> `reduce_loss` (`assert not torch.isnan(loss)`, `assert "
            "torch.isfinite(loss)`)",
        ),
        Row(
            "r15c_encoder_normalizer_robust_softplus", *PYTORCH_FORECASTING,
            "wrapper: EncoderNormalizer(method='robust', max_length=10, transformation='softplus'); .fit(y (12,) "
            "positive); returns (.transform(y), .inverse_transform(scaled), .get_parameters())",
            ("pytorch_forecasting",), _r15c_encoder_normalizer, modes=INFERENCE,
            notes="inference only: fitting reads the scale into numpy (`np.asarray(self.scale_)`, encoders.py:"
            "673) and `transform` without a target scale calls `.numpy()` (encoders.py:706), both of which raise "
            "on a tensor that requires grad; the library fits normalizers on data (the dataset's per-window "
            "encoder normalization), never on a gradient path; the normalizer is built inside the call (it "
            "keeps its fitted center and scale)",
            patterns="`EncoderNormalizer.fit` (data/encoders.py:885-916: `_slice(y, slice(-10, None))`, "
            "`preprocess` -> `softplus_inv` (encoders.py:46-48, `y.where(y > 20.0, ...)`)) -> "
            "`TorchNormalizer._set_parameters` (encoders.py:589-678: robust branch, `y.quantile(0.5)`, "
            "quantiles 0.75/0.25, `if (np.asarray(self.scale_) < 1e-7).any(): warnings.warn(...)` (a tensor "
            "converted to numpy and its test in a Python `if`)) -> `transform` (encoders.py:680-757: "
            "`preprocess`, `self.get_parameters().numpy()[None, :]` (`torch.stack` of `torch.as_tensor` center "
            "and scale, then a tensor to numpy), `torch.from_numpy(center)`/`torch.from_numpy(scale)`, `(y - "
            "center) / scale`, `y.type(dtype)`) -> `inverse_transform` (encoders.py:759-775) -> `__call__` "
            "(encoders.py:777-820: `isinstance(dtype, np.dtype)` test, `prediction * norm[:, 1, None] + "
            "norm[:, 0, None]`, `inverse_preprocess` -> `F.softplus`, `squeeze(0)`, `.type`)",
        ),
        Row(
            "r15c_nbeats_control", *PYTORCH_FORECASTING,
            "wrapper: dict(model(x).items()) of NBeats.from_dataset(target-only dataset (encoder 6, decoder 3, "
            "fixed lengths), stack_types=['trend', 'seasonality'], num_blocks=[1, 1], num_block_layers=[2, 2], "
            "widths=[16, 16], sharing=[False, False], expansion_coefficient_lengths=[3, 3], dropout=0.1) on a "
            "collated batch of 4 windows",
            ("pytorch_forecasting",), _r15c_nbeats_control,
            notes=MODEL_NOTE + "; in training the model's parameters get the gradient (the batch is a dict of "
            "data tensors)",
            patterns="control: no tensor value reaches Python. `NBeats.forward` (models/nbeats/_nbeats_adapter.py:"
            "36-114): zero-initialized forecast buffers (`self.device`), a Python loop over the 2 blocks with "
            "`isinstance` tests on the block types -> `NBEATSTrendBlock`/`NBEATSSeasonalBlock` (layers/_nbeats/"
            "_blocks.py: MLP with dropout, theta layers, `mm` with the fixed polynomial and Fourier basis "
            "buffers) -> residual backcast updates -> five `transform_output` calls (MAE.rescale_parameters -> "
            "`GroupNormalizer.__call__`: affine de-normalization, no transformation) -> `to_network_output` "
            "(the namedtuple class made on the first call)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round fifteen (r15c)")
