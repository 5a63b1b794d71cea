"""Held-out round twenty-four (r24b): pypots.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: batches of 4 series of 6 to 12 steps and 3 features, hidden
widths 4 to 8, one layer or block, 4 diffusion steps; seeded random data,
nothing downloaded, nothing written to disk, no data set or data file used, no
``fit``: the rows call the models' ``core.py`` modules (``_TimesNet``,
``_BRITS``, ``_GRUD``, ``_CSDI``, ``_Autoformer``, ``_Koopa``, ``_CRLI``,
``_SAITS``) on the dict batches the high-level classes assemble); a row whose
``modes`` is one mode only says why in its ``notes``.  The rows call small
wrappers that build the dict batch from tensor arguments (so that in training
the data can require grad), and the builders set the model's train/eval mode
themselves (the harness only does that when the callable is the module).

pypots 1.5 (with tsdb 0.8, pygrinder 0.7, benchpots, ai4ts) holds models for
partially-observed time series: imputation (SAITS, Transformer, BRITS, M-RNN,
GP-VAE, US-GAN, CSDI, TimesNet, Autoformer, Koopa, ImputeFormer, TEFN, LOCF,
...), classification (BRITS, GRU-D, Raindrop, ...), clustering (CRLI, VaDER),
forecasting and anomaly detection.  Each model is a high-level class
(``model.py``: ``fit``/``predict`` over ``DataLoader``s of a ``Dataset*`` class)
around an ``nn.Module`` in ``core.py`` whose ``forward(inputs: dict,
calc_criterion=...)`` takes ``X``, ``missing_mask``, ``X_ori``,
``indicating_mask`` (and model-specific keys) and returns a results dict with
the imputation and, with ``calc_criterion``, a ``loss`` (train mode) or
``metric`` (eval mode).  The masked losses (``MAE``/``MSE`` in
nn/modules/loss.py) call ``calc_mae``/``calc_mse`` (nn/functional/error.py),
which validate their inputs on every call.

The data-dependent code on the rows' paths (file:line relative to the
``pypots`` package):

* every masked loss and metric: ``_check_inputs`` (nn/functional/error.py:
  14-52) runs ``assert not torch.isnan(predictions).any()``, the same for
  ``targets`` and ``masks`` (34, 35, 50: tensor truths in asserts) before
  ``calc_mae``/``calc_mse`` (101, 152).  Reached by ``r24b_timesnet_imputation``
  (one loss or metric), ``r24b_brits_imputation`` (three MAE losses per step
  and direction: 36 calls, nn/modules/brits/backbone.py:134, 139, 144) and
  ``r24b_crli_generator`` (two ``calc_mse``, clustering/crli/core.py:74-75).
* ``r24b_timesnet_imputation``: ``nonstationary_norm`` (nn/functional/
  normalization.py:40: ``if torch.isnan(X).any()``; 60: in-place ``X_enc /=
  stdev``); ``TimesBlock.forward`` (nn/modules/timesnet/layers.py:42-71) ->
  ``FFT_for_Period`` (16-25: ``topk`` then ``top_list.detach().cpu().numpy()``
  (23: the top frequencies leave torch), ``x.shape[1] // top_list`` (24: numpy
  periods), ``abs(xf).mean(-1)[:, top_list]`` (25: indexing by a numpy array));
  per period ``if (seq_len + pred_len) % period != 0`` (50: padding to a
  data-chosen length; here periods 4 and 2 of 9 steps, both padded) and
  ``reshape(B, length // period, period, N)`` (58: shapes from tensor values).
* ``r24b_brits_imputation``: ``_parse_delta_torch`` (data/utils.py:32-78:
  Python loops over the samples, iterating a tensor, and the steps), the RITS
  step loops with the 36 checked MAE losses above, ``_reverse`` (nn/modules/
  brits/backbone.py:222-236: ``torch.tensor(range(...)[::-1])``).
* ``r24b_grud_dataset_classify``: ``DatasetForGRUD.__init__`` (classification/
  grud/data.py:58-67) -> ``locf_torch`` (imputation/locf/core.py:88-155:
  ``np.maximum.accumulate`` of an index tensor (123: a tensor through numpy), a
  Python loop zipping the data tensor with that numpy array and indexing by its
  rows (126-127), ``if torch.isnan(X_imputed).any()`` (132: a tensor's truth),
  the "backward" branch recursing into ``locf_torch(..., "zero")`` (141-145,
  again numpy and ``isnan().any()``)), ``_parse_delta_torch``, per-sample
  ``__getitem__`` (data/dataset/base.py:447-462, grud/data.py:69-112), then
  ``_GRUD.forward`` (classification/grud/core.py:49-91: the GRU-D decay loop,
  nn/modules/grud/backbone.py:31-75, no tensor value reaches Python there) and
  ``CrossEntropy``.
* ``r24b_locf_median``: ``locf_torch(first_step_imputation="median")``
  (imputation/locf/core.py: 123, 126-127, 132 as above, ``torch.nanmedian``
  (149), ``for i, v in enumerate(median_values.values)`` (150: iterating a
  tensor), ``torch.nan_to_num(..., nan=v)`` (151: a 0-d tensor converted to a
  Python float by the argument parser) written in place, a second
  ``if torch.isnan(X_imputed).any()`` (152)).
* ``r24b_csdi_criterion``: ``BackboneCSDI.calc_loss`` (nn/modules/csdi/
  backbone.py:86-106: ``torch.randint`` diffusion steps, ``self.alpha_torch[t]``,
  ``num_eval if num_eval > 0 else 1`` (105: a tensor's truth)); in eval mode
  ``calc_loss_valid`` (79-84: a Python loop over the steps, each with the same
  test, ``loss.detach()`` accumulated).
* ``r24b_autoformer_imputation`` (training only): ``AutoCorrelation.forward``
  (nn/modules/autoformer/layers.py:128-163: ``if self.training``) ->
  ``time_delay_agg_training`` (37-60: ``mean_value[:, index[i]]`` (49),
  ``torch.roll(tmp_values, -int(index[i]), -1)`` (56: a top-k delay read into a
  Python int)).  In eval mode (inference) ``time_delay_agg_inference`` (62-95)
  gathers by delay tensors and no tensor value reaches Python.
* ``r24b_koopa_imputation``: ``KPLayer.one_step_forward`` (nn/modules/koopa/
  layers.py:93-109: ``torch.linalg.lstsq``, ``if torch.isnan(self.K).any():``
  (100: a tensor's truth; its ``print`` and identity fallback are not taken
  with these inputs), ``self.K`` stored on the module); ``BackboneKoopa.
  forward`` asserts ``self.mask_spectrum is not None`` (Python state).
* ``r24b_crli_generator``: the two checked ``calc_mse`` above, then
  ``torch.linalg.svd`` of the latent on the first call (clustering/crli/
  core.py:78-80: ``self.counter_for_updating_F`` test on a Python int,
  ``self.term_F`` stored on the module).

Controls (no tensor value reaches Python): ``r24b_saits_control`` (``_SAITS``
without a criterion: imputation/saits/core.py:63-131, nn/modules/saits/
backbone.py:93-131, attention with ``masked_fill(attn_mask == 0, -inf)``
(nn/modules/transformer/attention.py:107), shape-only ``if len(...shape) ==
4``) and ``r24b_csdi_sampling_control`` (``BackboneCSDI.forward``, nn/modules/
csdi/backbone.py:108-145: Python-int loops over samples and diffusion steps,
``randn_like``, ``torch.tensor([t])``, numpy-float schedule coefficients
(constants), in-place ``current_sample +=`` and ``imputed_samples[:, i] =
current_sample.detach()``).  CSDI's diffusion model runs torch's
``nn.TransformerEncoder`` (nn/modules/csdi/layers.py:15-17), whose eval-mode
fast path is torch's code, not pypots'.

Global state on import (the builders import the library; this module imports
only torch): ``import pypots`` imports every subpackage.  It PRINTS an ANSI
coloured ai4ts banner to stdout (pypots/timeseries_ai -> ai4ts).  It imports
``torch._dynamo`` (measured: ``'torch._dynamo' in sys.modules`` after ``import
pypots``): pypots/imputation/timellm -> nn/modules/timellm/backbone.py:12
imports ``transformers`` (4.52.4 installed), whose integrations/
flex_attention.py decorates a class with ``torch.compiler.disable``, which
imports ``torch._dynamo`` and ``torch._inductor`` (the latter sets
``TORCHINDUCTOR_CACHE_DIR`` in ``os.environ``); nothing is compiled, and the
eager check's WARN for ``torch._dynamo`` is this import.  The tsdb/pypots/
benchpots loggers ("TSDB running log", "PyPOTS running log", "BenchPOTS
running log") get a stderr ``StreamHandler`` at DEBUG with
``propagate=False``; ``transformers`` and ``huggingface_hub`` get stderr
handlers at WARNING; urllib3/requests/charset_normalizer NullHandlers.
Warning filters added: sympy's ``once`` for ``SymPyDeprecationWarning``,
urllib3's and requests' filters, scipy's ``always`` for
``SpecialFunctionWarning`` and ``ignore`` for "the matrix subclass is not the
recommended way".  sklearn sets ``KMP_DUPLICATE_LIB_OK=True`` and
``KMP_INIT_AT_FORK=FALSE``.  No handler on the root logger; torch's default
dtype, deterministic flags, matmul precision and thread count are unchanged.

Library quirks met (eagerly): ``nonstationary_norm`` divides in place
(``X_enc /= stdev``, normalization.py:60) a tensor autograd saved for the
variance, so with an ``X`` that requires grad the backward raises "one of the
variables needed for gradient computation has been modified by an inplace
operation"; pypots never feeds an ``X`` requiring grad, and the TimesNet row
freezes ``X`` in training (the parameters still get gradients).
``locf_torch(first_step_imputation="median")`` passes a 0-d tensor as
``nan_to_num``'s ``nan`` (locf/core.py:151): accepted when it does not require
grad, ``TypeError: nan_to_num(): argument 'nan' must be float, not Tensor``
when it does, so ``r24b_locf_median`` is inference only.  ``BackboneKoopa``
builds ``FourierFilter(self.mask_spectrum)`` while ``mask_spectrum`` is still
``None`` (koopa/backbone.py:33-34) and ``init_mask_spectrum`` only rebinds the
backbone's attribute, so the filter indexes ``mask[:, None, :] = 0`` (layers.py:
27), zeroing the whole mask: the "time-variant" part is always 0 and the
time-invariant part is the whole input (the row calls ``init_mask_spectrum``
as ``Koopa.fit`` does, on a one-batch list standing in for the loader).
``_CSDI`` warns at construction (torch's ``enable_nested_tensor is True, but
self.use_nested_tensor is False``), and its sampling detaches the samples
(backbone.py:144), so in training only ``X`` gets a gradient there.  ``_CRLI``
builds an sklearn ``KMeans`` it does not use in ``forward``.  ``DatasetForGRUD``
needs the labels as a tensor the same length as ``X`` (asserted in
``_check_array_input``).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

PYPOTS = ("pypots", "1.5")
MODULES = ("pypots",)
INFERENCE = ("inference",)

# --- helpers -------------------------------------------------------------------------------


def _batch(n: int, t: int, f: int, rate: float = 0.3) -> tuple[torch.Tensor, ...]:
    """A small imputation batch as pypots' datasets give it: ``X`` (0-filled where missing), ``missing_mask``
    (1 = observed in ``X``), ``X_ori`` (0-filled where originally missing) and ``indicating_mask`` (1 = held out
    artificially, observed in ``X_ori``)."""
    x_ori = torch.randn(n, t, f)
    observed = torch.rand(n, t, f) > 0.1
    held_out = observed & (torch.rand(n, t, f) < rate)
    missing_mask = (observed & ~held_out).float()
    x = x_ori * missing_mask
    return x, missing_mask, x_ori * observed.float(), held_out.float()


def _with_nans(n: int, t: int, f: int) -> torch.Tensor:
    """A batch with NaNs for the missing values, some of them at the start of a series."""
    x = torch.randn(n, t, f)
    x[torch.rand(n, t, f) < 0.3] = float("nan")
    x[0, :3, 0] = float("nan")
    x[1, :2, 1] = float("nan")
    return x


def _impute(model: Any, X: torch.Tensor, missing_mask: torch.Tensor, X_ori: torch.Tensor,
            indicating_mask: torch.Tensor, calc_criterion: bool = True) -> dict:
    """``model(inputs, calc_criterion=...)`` on the dict batch a pypots imputation model assembles."""
    inputs = {"X": X, "missing_mask": missing_mask, "X_ori": X_ori, "indicating_mask": indicating_mask}
    return model(inputs, calc_criterion=calc_criterion)


def _brits(model: Any, X: torch.Tensor, missing_mask: torch.Tensor, X_ori: torch.Tensor,
           indicating_mask: torch.Tensor) -> dict:
    """BRITS' dict batch as ``DatasetForBRITS`` builds it (imputation/brits/data.py:64-70: time gaps from the
    masks, the backward direction flipped in time), then ``model(inputs, calc_criterion=True)``."""
    from pypots.data.utils import _parse_delta_torch

    backward_X, backward_mask = torch.flip(X, dims=[1]), torch.flip(missing_mask, dims=[1])
    inputs = {
        "forward": {"X": X, "missing_mask": missing_mask, "deltas": _parse_delta_torch(missing_mask)},
        "backward": {"X": backward_X, "missing_mask": backward_mask, "deltas": _parse_delta_torch(backward_mask)},
        "X_ori": X_ori,
        "indicating_mask": indicating_mask,
    }
    return model(inputs, calc_criterion=True)


def _grud_dataset_classify(model: Any, X: torch.Tensor, y: torch.Tensor) -> dict:
    """``DatasetForGRUD({'X': X, 'y': y})`` (LOCF, masks, time gaps, empirical mean), its samples collated into
    one batch as the DataLoader does, then ``model(inputs, calc_criterion=True)`` as ``GRUD`` assembles them."""
    from pypots.classification.grud.data import DatasetForGRUD

    dataset = DatasetForGRUD({"X": X, "y": y}, return_y=True)
    _, x, x_locf, mask, deltas, mean, labels = torch.utils.data.default_collate([dataset[i] for i in range(len(X))])
    inputs = {"X": x, "X_filledLOCF": x_locf, "missing_mask": mask, "deltas": deltas, "empirical_mean": mean,
              "y": labels}
    return model(inputs, calc_criterion=True)


def _csdi_criterion(model: Any, X_ori: torch.Tensor, indicating_mask: torch.Tensor, cond_mask: torch.Tensor,
                    observed_tp: torch.Tensor) -> dict:
    """CSDI's training/validation batch (features first, as ``CSDI._assemble_input_for_training`` permutes it),
    then ``model(inputs, calc_criterion=True)``."""
    inputs = {"X_ori": X_ori.permute(0, 2, 1), "indicating_mask": indicating_mask.permute(0, 2, 1),
              "cond_mask": cond_mask.permute(0, 2, 1), "observed_tp": observed_tp}
    return model(inputs, calc_criterion=True)


def _csdi_sample(model: Any, X: torch.Tensor, cond_mask: torch.Tensor, observed_tp: torch.Tensor) -> dict:
    """CSDI's test batch (``CSDI._assemble_input_for_testing``), then the sampling forward with 2 samples."""
    inputs = {"X": X.permute(0, 2, 1), "cond_mask": cond_mask.permute(0, 2, 1), "observed_tp": observed_tp}
    return model(inputs, calc_criterion=False, n_sampling_times=2)


def _crli_generator(model: Any, X: torch.Tensor, missing_mask: torch.Tensor) -> dict:
    """One generator step's forward of CRLI (``CRLI._train_model`` calls it with ``training_object='generator'``)."""
    return model({"X": X, "missing_mask": missing_mask}, training_object="generator")


def _mae_mae() -> dict[str, Any]:
    from pypots.nn.modules.loss import MAE

    return {"training_loss": MAE(), "validation_metric": MAE()}


def _set_mode(model: torch.nn.Module, training: bool) -> torch.nn.Module:
    """The rows call a wrapper, so the harness does not switch the model's mode: do it here."""
    return model.train(training)


# --- builders ------------------------------------------------------------------------------


def _timesnet(training: bool) -> Built:
    from pypots.imputation.timesnet.core import _TimesNet

    model = _TimesNet(n_layers=1, n_steps=9, n_features=3, top_k=2, d_model=8, d_ffn=8, n_kernels=2, dropout=0.0,
                      apply_nonstationary_norm=True, **_mae_mae())
    return _impute, (_set_mode(model, training), *_batch(4, 9, 3)), {}


def _brits_builder(training: bool) -> Built:
    from pypots.imputation.brits.core import _BRITS

    model = _BRITS(n_steps=6, n_features=3, rnn_hidden_size=8, **_mae_mae())
    return _brits, (_set_mode(model, training), *_batch(4, 6, 3)), {}


def _grud(training: bool) -> Built:
    from pypots.classification.grud.core import _GRUD
    from pypots.nn.modules.loss import CrossEntropy

    model = _GRUD(n_steps=6, n_features=3, rnn_hidden_size=8, n_classes=2, training_loss=CrossEntropy(),
                  validation_metric=CrossEntropy())
    return _grud_dataset_classify, (_set_mode(model, training), _with_nans(4, 6, 3), torch.tensor([0, 1, 1, 0])), {}


def _locf_median(training: bool) -> Built:
    from pypots.imputation.locf.core import locf_torch

    x = _with_nans(4, 6, 3)
    x[:, :, 2] = float("nan")  # a feature never observed: still NaN after the median fill
    return locf_torch, (x,), {"first_step_imputation": "median"}


def _csdi_model(training: bool) -> Any:
    from pypots.imputation.csdi.core import _CSDI

    model = _CSDI(n_features=3, n_layers=1, n_heads=2, n_channels=8, d_time_embedding=8, d_feature_embedding=4,
                  d_diffusion_embedding=8, is_unconditional=False, n_diffusion_steps=4, schedule="quad",
                  beta_start=1e-4, beta_end=0.5)
    return _set_mode(model, training)


def _csdi_loss(training: bool) -> Built:
    model = _csdi_model(training)
    _, missing_mask, x_ori, indicating_mask = _batch(4, 6, 3)
    observed_tp = torch.arange(6.0).repeat(4, 1)
    return _csdi_criterion, (model, x_ori, indicating_mask, missing_mask, observed_tp), {}


def _csdi_sampling(training: bool) -> Built:
    model = _csdi_model(training)
    x, missing_mask, _, _ = _batch(4, 6, 3)
    observed_tp = torch.arange(6.0).repeat(4, 1)
    return _csdi_sample, (model, x, missing_mask, observed_tp), {}


def _autoformer(training: bool) -> Built:
    from pypots.imputation.autoformer.core import _Autoformer

    model = _Autoformer(n_steps=12, n_features=3, n_layers=1, d_model=8, n_heads=2, d_ffn=8, factor=1,
                        moving_avg_window_size=3, dropout=0.0, ORT_weight=1.0, MIT_weight=1.0, **_mae_mae())
    return _impute, (_set_mode(model, training), *_batch(4, 12, 3)), {"calc_criterion": False}


def _koopa(training: bool) -> Built:
    from pypots.imputation.koopa.core import _Koopa

    model = _Koopa(n_steps=8, n_features=3, n_seg_steps=2, d_dynamic=4, d_hidden=8, n_hidden_layers=2, n_blocks=1,
                   multistep=False, alpha=0.2, ORT_weight=1.0, MIT_weight=1.0, **_mae_mae())
    batch = _batch(4, 8, 3)
    # as Koopa.fit does before training: the shared spectrum from the training loader's X (index 1 of a batch)
    model.backbone.init_mask_spectrum([(torch.arange(4), batch[0])])
    return _impute, (_set_mode(model, training), *batch), {"calc_criterion": False}


def _crli(training: bool) -> Built:
    from pypots.clustering.crli.core import _CRLI

    model = _CRLI(n_steps=6, n_features=3, n_clusters=2, n_generator_layers=1, rnn_hidden_size=8,
                  decoder_fcn_output_dims=None, lambda_kmeans=1.0, rnn_cell_type="GRU")
    x, missing_mask, _, _ = _batch(4, 6, 3)
    return _crli_generator, (_set_mode(model, training), x, missing_mask), {}


def _saits(training: bool) -> Built:
    from pypots.imputation.saits.core import _SAITS

    model = _SAITS(n_layers=1, n_steps=8, n_features=3, d_model=8, n_heads=2, d_k=4, d_v=4, d_ffn=8, dropout=0.1,
                   attn_dropout=0.1, diagonal_attention_mask=True, ORT_weight=1.0, MIT_weight=1.0, **_mae_mae())
    return _impute, (_set_mode(model, training), *_batch(4, 8, 3)), {"calc_criterion": False}


# --- rows ------------------------------------------------------------------------------------

_CHECK = ("`_check_inputs` (nn/functional/error.py:14-52: `assert not torch.isnan(predictions).any()`, the same "
          "for `targets` and `masks` (34, 35, 50: tensor truths in asserts))")
_MAE = "`MAE` (nn/modules/loss.py) -> `calc_mae` (nn/functional/error.py:55-103) -> " + _CHECK


def _rows() -> list[Row]:
    return [
        Row(
            "r24b_timesnet_imputation", *PYPOTS,
            "wrapper: _TimesNet(n_layers=1, n_steps=9, n_features=3, top_k=2, d_model=8, d_ffn=8, n_kernels=2, "
            "apply_nonstationary_norm=True, MAE)({'X', 'missing_mask', 'X_ori', 'indicating_mask'} (4, 9, 3), "
            "calc_criterion=True); returns the results dict",
            MODULES, _timesnet, frozen=("1", "2", "4"),
            notes="TimesNet imputation of a batch of 4 series of 9 steps and 3 features with 30% held out (with this "
            "data the periods found are 4 and 2, both padded to 12 and 10 steps); in "
            "training the masked MAE loss on the observed part (train mode), in inference the MAE metric on the "
            "held-out part (eval mode); in training X is frozen (the library's in-place `X_enc /= stdev` breaks "
            "backward when X requires grad, see the docstring; pypots never feeds an X requiring grad), the masks "
            "are data (frozen), X_ori requires grad (unused by the training loss: no gradient) and the parameters "
            "get gradients",
            patterns="`nonstationary_norm` (nn/functional/normalization.py:40: `if torch.isnan(X).any()`, a "
            "tensor's truth; 60: in-place `X_enc /= stdev`), `DataEmbedding`, `TimesBlock.forward` (nn/modules/"
            "timesnet/layers.py:42-71) -> `FFT_for_Period` (16-25: `rfft`, `frequency_list[0] = 0`, `topk`, "
            "`top_list.detach().cpu().numpy()` (23: the top frequencies leave torch), `x.shape[1] // top_list` "
            "(24: numpy periods), `abs(xf).mean(-1)[:, top_list]` (25: indexing by a numpy array)); per period a "
            "Python branch `if (seq_len + pred_len) % period != 0` (50: zero padding to a data-chosen length) and "
            "`reshape(B, length // period, period, N)` (58: shapes from tensor values), Inception convolutions; "
            "`nonstationary_denorm`; " + _MAE,
        ),
        Row(
            "r24b_brits_imputation", *PYPOTS,
            "wrapper: _BRITS(n_steps=6, n_features=3, rnn_hidden_size=8, MAE) on the DatasetForBRITS-style dict "
            "(forward/backward X, missing_mask, deltas from `_parse_delta_torch`; X_ori, indicating_mask), "
            "calc_criterion=True; returns the results dict",
            MODULES, _brits_builder, frozen=("2", "4"),
            notes="bidirectional recurrent imputation of 4 series of 6 steps and 3 features; every step of both "
            "RITS directions computes three masked MAE losses; in training X and X_ori require grad (masks frozen)",
            patterns="`_parse_delta_torch` (data/utils.py:32-78: Python loops over the samples (iterating a tensor) "
            "and steps, `torch.concat`); `BackboneBRITS.forward` (nn/modules/brits/backbone.py:239-266) -> two "
            "`BackboneRITS.forward` (84-165: a Python loop over the steps with `TemporalDecay` (nn/modules/grud/"
            "layers.py:61-79), `LSTMCell`, `FeatureRegression`, and three `self.training_loss(...)` per step "
            "(134, 139, 144) = " + _MAE + "), `_reverse` (222-236: `torch.tensor(range(...)[::-1])`, "
            "`index_select`), consistency loss",
        ),
        Row(
            "r24b_grud_dataset_classify", *PYPOTS,
            "wrapper: DatasetForGRUD({'X': X (4, 6, 3) with NaNs, 'y': (4,)}), its 4 samples collated by "
            "`default_collate`, then _GRUD(n_steps=6, n_features=3, rnn_hidden_size=8, n_classes=2, "
            "CrossEntropy)(inputs, calc_criterion=True); returns the results dict",
            MODULES, _grud,
            notes="GRU-D classification from raw series with NaNs: the dataset's preprocessing (LOCF, masks, time "
            "gaps, empirical mean) then the decaying GRU and the cross-entropy loss (train mode) or metric (eval "
            "mode); in training X requires grad (labels are integers)",
            patterns="`BaseDataset.__init__` (data/dataset/base.py: `_check_array_input` asserts on shapes); "
            "`DatasetForGRUD.__init__` (classification/grud/data.py:58-67) -> `locf_torch` (imputation/locf/"
            "core.py:88-161: `torch.where(~mask, arange, 0)`, `np.maximum.accumulate(idx, axis=2)` (123: a tensor "
            "through numpy), a Python loop zipping the tensor with the numpy array and indexing by it (126-127), "
            "`if torch.isnan(X_imputed).any()` (132: a tensor's truth), recursion into `locf_torch(..., 'zero')` "
            "(141-145) with its own numpy accumulate and `isnan().any()`, `flip`), `nan_to_num`, "
            "`_parse_delta_torch` (data/utils.py:32-78: Python loops), `torch.sum` means; per sample "
            "`_fetch_data_from_array` (69-112: `torch.tensor(idx)`, `.to`); `default_collate`; `_GRUD.forward` "
            "(classification/grud/core.py:49-93) -> `BackboneGRUD.forward` (nn/modules/grud/backbone.py:31-75: "
            "Python loop over steps, `TemporalDecay`, `GRUCell`), softmax, `CrossEntropy`",
        ),
        Row(
            "r24b_locf_median", *PYPOTS,
            "function: locf_torch(X (4, 6, 3) with NaNs, one feature never observed, first_step_imputation="
            "'median'); returns (4, 6, 3)",
            MODULES, _locf_median, modes=INFERENCE,
            notes="inference only: with an X requiring grad the median fill raises `TypeError: nan_to_num(): "
            "argument 'nan' must be float, not Tensor` (a 0-d tensor that requires grad is not accepted as a "
            "Python float; see the docstring). Last-observation-carried-forward imputation with the leading gaps "
            "filled by each feature's median over the batch (the never-observed feature falls back to 0)",
            patterns="`locf_torch` (imputation/locf/core.py:88-161): `torch.where(~mask, arange, 0)`, "
            "`np.maximum.accumulate(idx, axis=2)` (123: a tensor through numpy), a Python loop zipping the tensor "
            "with the numpy array and indexing by numpy rows (126-127), `if torch.isnan(X_imputed).any()` (132: a "
            "tensor's truth), `torch.nanmedian` (149), `for i, v in enumerate(median_values.values)` (150: "
            "iterating a tensor) with `torch.nan_to_num(..., nan=v)` (151: a 0-d tensor as a Python scalar "
            "argument) written in place `X_imputed[:, :, i] = ...`, a second `if torch.isnan(X_imputed).any()` "
            "(152) and `nan_to_num(nan=0)` (153)",
        ),
        Row(
            "r24b_csdi_criterion", *PYPOTS,
            "wrapper: _CSDI(n_features=3, n_layers=1, n_heads=2, n_channels=8, d_time_embedding=8, "
            "d_feature_embedding=4, d_diffusion_embedding=8, n_diffusion_steps=4, schedule='quad')({'X_ori', "
            "'indicating_mask', 'cond_mask' (4, 3, 6), 'observed_tp' (4, 6)}, calc_criterion=True); returns "
            "{'loss'} (training) or {'metric'} (inference)",
            MODULES, _csdi_loss, frozen=("2", "3", "4"),
            notes="the conditional score-based diffusion imputer's loss: in training (train mode) one random "
            "diffusion step per sample (torch's generator, seeded by the harness) and the noise-prediction loss "
            "on the held-out entries; in inference (eval mode) the validation loss averaged over all 4 steps; in "
            "training X_ori requires grad (masks and time points frozen)",
            patterns="`_CSDI.get_side_info` (imputation/csdi/core.py:66-82: sinusoidal time embedding written by "
            "slices, feature `Embedding`, `cat`); training: `BackboneCSDI.calc_loss` (nn/modules/csdi/backbone.py:"
            "89-107: `torch.randint` steps, `self.alpha_torch[t]` gather, `diff_model` (two `nn.TransformerEncoder` "
            "layers per residual block), `num_eval = target_mask.sum()` and `num_eval if num_eval > 0 else 1` "
            "(106: a tensor's truth)); inference: `calc_loss_valid` (82-87: a Python loop over the diffusion steps, "
            "each `calc_loss(set_t=t)` with the same `num_eval > 0` test, `loss.detach()` accumulated)",
        ),
        Row(
            "r24b_csdi_sampling_control", *PYPOTS,
            "wrapper: the same _CSDI({'X', 'cond_mask'} (4, 3, 6), 'observed_tp' (4, 6)}, calc_criterion=False, "
            "n_sampling_times=2); returns {'imputation', 'reconstruction'} (4, 2, 6, 3)",
            MODULES, _csdi_sampling, frozen=("2", "3"),
            notes="control: CSDI's reverse-diffusion imputation, 2 samples of 4 denoising steps each (noise from "
            "torch's generator, seeded by the harness); the samples are detached by the library, so in training "
            "only X gets a gradient (through the observed part) and the parameters none",
            patterns="control: no tensor value reaches Python. `BackboneCSDI.forward` (nn/modules/csdi/backbone.py:"
            "109-145: Python-int loops over samples and diffusion steps, `randn_like`, `torch.tensor([t])`, numpy "
            "float schedule coefficients (constants), `diff_model`, in-place `current_sample +=`, "
            "`imputed_samples[:, i] = current_sample.detach()`), `repeat`, `permute`",
        ),
        Row(
            "r24b_autoformer_imputation", *PYPOTS,
            "wrapper: _Autoformer(n_steps=12, n_features=3, n_layers=1, d_model=8, n_heads=2, d_ffn=8, factor=1, "
            "moving_avg_window_size=3)({'X', 'missing_mask', 'X_ori', 'indicating_mask'} (4, 12, 3), "
            "calc_criterion=False); returns {'imputation', 'reconstruction'}",
            MODULES, _autoformer, frozen=("2", "4"),
            notes="Autoformer (auto-correlation attention, series decomposition) imputing 4 series of 12 steps; "
            "the attention's time-delay aggregation differs by mode: train mode (training) reads the top-k delays "
            "into Python, eval mode (inference) gathers them as tensors; in training X and X_ori require grad",
            patterns="`SaitsEmbedding`; `AutoformerEncoder` -> `AutoCorrelation.forward` (nn/modules/autoformer/"
            "layers.py:128-163: `rfft`, `irfft`, `if self.training`): training `time_delay_agg_training` (36-59: "
            "`topk` of the batch-mean correlation, `mean_value[:, index[i]]` (47: a 0-d index tensor), "
            "`torch.roll(tmp_values, -int(index[i]), -1)` (56: a tensor read into a Python int as the shift)); "
            "inference `time_delay_agg_inference` (61-91: `topk`, `gather` by delay tensors, no tensor value reaches "
            "Python); `SeriesDecompositionBlock` moving averages",
        ),
        Row(
            "r24b_koopa_imputation", *PYPOTS,
            "wrapper: _Koopa(n_steps=8, n_features=3, n_seg_steps=2, d_dynamic=4, d_hidden=8, n_hidden_layers=2, "
            "n_blocks=1, multistep=False, alpha=0.2) after `backbone.init_mask_spectrum` ({'X', 'missing_mask', "
            "'X_ori', 'indicating_mask'} (4, 8, 3), calc_criterion=False); returns {'imputation', 'reconstruction'}",
            MODULES, _koopa, frozen=("2", "4"),
            notes="Koopa (Koopman predictors: a learned time-invariant operator and a per-batch DMD operator found "
            "by least squares) imputing 4 series of 8 steps; in training X and X_ori require grad",
            patterns="`SaitsEmbedding`; `BackboneKoopa.forward` (nn/modules/koopa/backbone.py:109-125: `assert "
            "self.mask_spectrum is not None`) -> `FourierFilter` (nn/modules/koopa/layers.py:24-30: `rfft`, "
            "in-place `mask[:, self.mask_spectrum, :] = 0`, `irfft`), `TimeInvKP`, `TimeVarKP.forward` (202-221) "
            "-> `KPLayer.forward` (107-115) -> `one_step_forward` (93-105: `torch.linalg.lstsq`, "
            "`if torch.isnan(self.K).any():` (100: a tensor's truth) with a `print` and an identity fallback, "
            "`self.K` stored on the module, `bmm`)",
        ),
        Row(
            "r24b_crli_generator", *PYPOTS,
            "wrapper: _CRLI(n_steps=6, n_features=3, n_clusters=2, n_generator_layers=1, rnn_hidden_size=8, "
            "rnn_cell_type='GRU')({'X', 'missing_mask'} (4, 6, 3), training_object='generator'); returns the "
            "results dict with 'generation_loss'",
            MODULES, _crli, frozen=("2",),
            notes="CRLI clustering's generator step: bidirectional GRU imputation, discriminator, decoder, and "
            "the k-means loss from the SVD of the latent (first call: `counter_for_updating_F == 0`); in "
            "training X requires grad (the mask is frozen)",
            patterns="`BackboneCRLI.forward` (nn/modules/crli/backbone.py:33-37: `CrliGenerator` / "
            "`CrliDiscriminator` / `CrliDecoder` (nn/modules/crli/layers.py: Python loops over steps and layers "
            "of GRU cells, `reverse_tensor`)); `_CRLI.forward` (clustering/crli/core.py:54-88: "
            "`binary_cross_entropy_with_logits`, two `calc_mse` (77-78) -> " + _CHECK + ", `torch.linalg.svd` "
            "(82) with `self.term_F` stored on the module, `trace`)",
        ),
        Row(
            "r24b_saits_control", *PYPOTS,
            "wrapper: _SAITS(n_layers=1, n_steps=8, n_features=3, d_model=8, n_heads=2, d_k=4, d_v=4, d_ffn=8, "
            "dropout=0.1, attn_dropout=0.1, diagonal_attention_mask=True)({'X', 'missing_mask', ...} (4, 8, 3), "
            "calc_criterion=False); returns the results dict",
            MODULES, _saits, frozen=("2", "4"),
            notes="control: SAITS imputation (two diagonally-masked self-attention blocks and the attention-"
            "weighted combination) as `SAITS.predict` runs it, without a criterion; in training X and X_ori "
            "require grad (masks frozen; X_ori is unused, so no gradient)",
            patterns="control: no tensor value reaches Python. `_SAITS.forward` (imputation/saits/core.py:63-105: "
            "`1 - torch.eye(n_steps)` mask) -> `BackboneSAITS.forward` (nn/modules/saits/backbone.py:93-131: "
            "`SaitsEmbedding`, `TransformerEncoderLayer`s with `ScaledDotProductAttention` (`masked_fill(attn_mask "
            "== 1, -1e9)`), `clone`, shape-only `if len(...shape) == 4`, `sigmoid` combination)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-four (b)")
