"""Held-out round twenty-three (r23a): deepod.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 3 to 6 features, hidden widths 8 to 16, batches 4 to 8,
series of 20 steps cut into windows of 6 to 10; seeded random data, nothing
downloaded, nothing written to disk, no ``fit`` ever run: every fitted object is
built by hand, setting the attributes ``fit`` would set); a row whose ``modes``
is one mode only says why in its ``notes``.

deepod 0.4.1 (installed ``--no-deps`` beside torch 2.13; its metadata pins
torch<1.13.1) is a deep anomaly-detection library.  Every detector subclasses
``BaseDeepAD`` (core/base_model.py: ``fit`` runs ``training_prepare`` and an epoch
loop of ``training_forward`` steps; ``decision_function`` runs
``inference_prepare`` and ``_inference``, a loop of ``inference_forward`` steps,
collecting numpy scores).  Tabular detectors: DeepSVDD, DeepSAD, DevNet, PReNet,
FeaWAD, REPEN, RoSAS (semi/weakly supervised) and RCA, GOAD, NeuTraL, ICL, SLAD,
RDP, DeepIsolationForest (unsupervised), on ``MLPnet``/``MlpAE``/``ConvNet``
networks (core/networks/base_networks.py).  Time-series detectors: TimesNet,
AnomalyTransformer, TranAD, COUTA, USAD, TcnED and the ``*TS`` variants of the
tabular ones, on TCN, Transformer, GRU/LSTM and conv networks; several of them
(TimesNet, AnomalyTransformer, TranAD, COUTA, USAD) override ``fit`` and
``decision_function`` with their own loops.

The rows' paths and THE DATA-DEPENDENT CODE on them (file:line relative to the
``deepod`` package):

* ``TimesNetModel.forward`` (models/time_series/timesnet.py:159-186): the
  non-stationary normalisation (in-place ``x_enc /= stdev``), ``DataEmbedding``,
  then per ``TimesBlock`` (204-236) ``FFT_for_Period`` (356-365: ``torch.fft.rfft``,
  ``frequency_list[0] = 0``, ``torch.topk``, then ``top_list.detach().cpu()
  .numpy()`` (363: the top frequencies leave torch), ``period = x.shape[1] //
  top_list`` (364: a numpy array of periods), ``abs(xf).mean(-1)[:, top_list]``
  (365: indexing by that numpy array)); back in ``TimesBlock.forward`` a Python
  loop over k (209) reads ``period = period_list[i]`` (a numpy int from the data),
  branches on ``if (seq_len + pred_len) % period != 0`` (212: zero padding to a
  data-chosen length) and reshapes to ``(B, length // period, period, N)`` (221:
  shapes from tensor values) before the 2-D Inception convolutions.
* ``AnomalyTransformer.training`` (models/time_series/anomalytransformer.py:75-122,
  one batch): ``AnomalyTransformerModel`` (``AnomalyAttention`` 345-370: Gaussian
  prior from a Python-filled distance matrix, softmax series), a Python loop over
  the layers computing the association discrepancy with ``my_kl_loss`` (12-14) in
  both directions (88-103), ``(rec_loss - self.k * series_loss).item()`` (107),
  the minimax ``loss1.backward(retain_graph=True)``, ``loss2.backward()``,
  ``optimizer.step()`` (112-114), ``scheduler.step()`` (120), ``np.average`` of the
  Python floats (122).
* ``COUTA.decision_function`` (models/time_series/couta.py:148-187): numpy
  ``get_sub_seqs`` (utils/utility.py:5-28), a ``SubseqData`` ``DataLoader``,
  ``net.eval()``, a ``no_grad`` loop of ``COUTANet.forward`` (407-427: ``weight_norm``
  TCN blocks, three heads), ``torch.cat``, ``torch.sum((reps - self.c) ** 2,
  dim=1).data.cpu().numpy()`` (180) and the duplicate head's (183), ``np.hstack``
  padding (186).
* ``NeuTraL.training_forward`` (models/tabular/neutral.py:67-71):
  ``TabNeutralADNet.forward`` (142-158: ``torch.empty`` filled slice by slice in a
  Python loop over the transformations, in place) and the ``DCL`` loss (167-193:
  ``sim_matrix.masked_select(mask)`` (175: a data-dependent-size selection, then
  ``view(batch, n_trans, -1)``), ``np.abs``/``np.log`` of a Python int (180)).
* ``DeepSAD.training_prepare`` (models/tabular/dsad.py:109-146): numpy
  ``np.where``/``Counter`` of the labels, ``weight_map[label.item()] for data,
  label in dataset`` (125: one ``.item()`` per training sample, over a
  ``TensorDataset``), a ``WeightedRandomSampler`` ``DataLoader``, a fresh
  ``MLPnet``, and ``_set_c`` (174-190: ``net.eval()``, ``no_grad`` loop over the
  sampled loader, ``torch.cat``, ``mean``, then boolean-mask assignments
  ``c[(abs(c) < eps) & (c < 0)] = -eps`` and ``c[(abs(c) < eps) & (c > 0)] = eps``
  (188-189: ``index_put_`` with data-dependent masks)).
* ``RCA.decision_function`` (core/base_model.py:195-241 with RCA's overrides,
  models/tabular/rca.py:114-181): ``inference_prepare`` (a ``DataLoader``,
  ``criterion.reduction = 'none'``), RCA's ``_inference`` (157-181: ``net.train()``
  for the dropout ensemble, a ``tqdm.trange`` loop, per batch ``inference_forward``
  (147-155: ``RCANet`` two auto-encoders), ``torch.cat(...).data.cpu().numpy()``
  (177-178), ``np.array(...).mean``), numpy accumulation (223-236).
* ``ICL.training_forward`` (models/tabular/icl.py:148-160): ``ICLNet.forward``
  (247-253: ``positive_matrix_builder`` (255-281) indexes the repeated data with
  numpy index arrays (278-279), BatchNorm'd ``MLPnet``s, ``F.normalize``), then
  ``cal_logit`` (174-195: ``np.random.choice`` from numpy's global generator on
  every call (179), numpy-array column selections of tensors (180, 189),
  ``masked_fill_(identity == 1, -inf)`` (191)), ``CrossEntropyLoss``.  No tensor
  value reaches Python here: the Python-side work is numpy's generator and
  numpy-array indexing.
* ``RoSAS.training_forward`` with ``k=3`` (models/tabular/rosas.py:54-124): the
  n-samples mixup branch (86-119: Python loops over ``k``, ``torch.randperm``,
  ``torch.distributions.Dirichlet(torch.tensor([alpha, alpha]))`` whose argument
  validation tests ``not torch._is_all_true(constraint.check(...))`` (torch/
  distributions/distribution.py, outside ``modules``), ``Beta.sample``, in-place
  ``x_tilde +=``), ``self.criterion(...)`` (121: ``_RoSASLoss.forward`` 194-211,
  whose ``if pre_emb_loss != 0`` tensor test (205) is not reached with the
  default ``pre_emb_loss=None``).
* ``DeepSVDDTS.decision_function`` (core/base_model.py:195-241, time-series
  branch): numpy ``get_sub_seqs`` (220), ``inference_prepare``
  (models/time_series/dsvdd.py:135-139), ``BaseDeepAD._inference`` (362-381:
  ``net.eval()``, ``no_grad``, per batch ``inference_forward`` (dsvdd.py:147-151:
  ``TCNnet`` with ``weight_norm`` convolutions, ``DSVDDLoss(reduction='none')``),
  ``torch.cat(z_lst).data.cpu().numpy()`` and the scores' (378-379)), ``np.hstack``
  padding of ``seq_len - 1`` zeros (230-232).

Controls (no tensor value reaches Python): ``DevNet.training_forward``
(models/tabular/devnet.py:122-128: ``MLPnet``, ``DevLoss`` 165-179: a fresh
``torch.randn(5000)`` reference per call, ``mean``/``std``, ``torch.max`` with
zeros, a Python branch on the ``reduction`` string).

Global state on import (the builders import the library; this module imports
only torch): ``import deepod`` pulls in scipy, sklearn, tqdm and einops; scipy adds
an ``always`` filter for ``SpecialFunctionWarning`` and an ``ignore`` filter for
"the matrix subclass is not the recommended way"; sklearn sets
``KMP_DUPLICATE_LIB_OK=True`` and ``KMP_INIT_AT_FORK=FALSE`` in ``os.environ``; no
logger gets a handler; default dtype, deterministic flags and thread counts are
untouched; ``torch._dynamo`` is not imported.  Constructing any detector calls
``BaseDeepAD.set_seed(random_state)`` (core/base_model.py:411-417):
``torch.manual_seed``, ``torch.cuda.manual_seed(_all)``, ``np.random.seed`` and
``random.seed`` with 42 by default, i.e. building a detector reseeds every global
generator (inside the harness's ``fork_rng`` here; torch's generator is reseeded
with ``CALL_SEED`` before each call anyway).  ``weight_norm`` (TCN networks) is
torch's deprecated one and warns (``FutureWarning``) at construction.  The
AnomalyTransformer row builds an ``AdamW`` optimizer as ``fit`` does: torch 2.13's
``Optimizer.add_param_group`` is wrapped by ``torch._disable_dynamo``, which
imports ``torch._dynamo`` (torch's doing, in the builder; nothing is compiled).
Builders seed numpy themselves where a path draws from numpy's global generator
(ICL); every detector is built with ``device='cpu'`` and ``verbose=0``.

Library quirks met (eagerly), and what was dropped or changed: TranAD is broken on
torch 2.13: ``TranADNet`` feeds deepod's own ``TransformerEncoderLayer`` (whose
``forward`` has no ``is_causal``) to ``torch.nn.TransformerEncoder``, which passes
``is_causal=`` to its layers, so ``TranAD.decision_function`` (and ``fit``) raise a
``TypeError`` (models/time_series/tranad.py:153, 164, 208); its row was dropped for
COUTA's scoring.  ``TimesNetModel.anomaly_detection`` divides ``x_enc /= stdev``
in place (165) after ``torch.var`` saved ``x_enc`` for backward, so backward fails
("modified by an inplace operation") whenever the input requires grad; ``fit``
never makes its batches require grad, so the row freezes the input (training
differentiates the parameters only, as ``fit`` does).  ``DevLoss`` broadcasts the network's ``(B, 1)``
scores against the ``(B,)`` labels, so the deviation loss averages a ``(B, B)``
matrix (every score paired with every label); ``TimesNetModel`` passes its
``dropout`` positionally into ``DataEmbedding``'s ``embed_type`` slot, so the
embedding's dropout is always 0.1 whatever the model's ``dropout``; TranAD's
layers build ``nn.LeakyReLU(True)``, i.e. ``negative_slope=1.0`` (an identity),
not an in-place LeakyReLU; ``RoSAS.training_forward`` ignores its ``criterion``
argument and uses ``self.criterion`` (the row sets both); TimesNet, AnomalyTransformer,
TranAD and COUTA leave ``training_forward``/``inference_forward`` as stubs returning
``None`` (their own ``training``/``inference`` methods are the one-batch steps);
``AnomalyAttention``'s and the detectors' defaults put tensors on ``'cuda'``
(``device='cpu'`` given here).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

DEEPOD = ("deepod", "0.4.1")
MODULES = ("deepod",)
INFERENCE = ("inference",)

# --- helpers -------------------------------------------------------------------------------


def _params(module: torch.nn.Module) -> tuple[torch.Tensor, ...]:
    return tuple(p.detach().clone() for p in module.parameters())


def _series(steps: int, features: int) -> Any:
    """A float32 numpy series (steps, features): a period-3 sine per channel plus noise."""
    t = torch.arange(steps, dtype=torch.float32).unsqueeze(1)
    phase = torch.rand(1, features) * 6.283
    return (torch.sin(2.0943951 * t + phase) + 0.3 * torch.randn(steps, features)).numpy()


def _anomaly_transformer_step(model: Any, batches: list[torch.Tensor]) -> tuple[Any, tuple[torch.Tensor, ...]]:
    """``model.training(batches)`` under ``torch.enable_grad()`` (the step differentiates itself); returns the
    averaged loss (a numpy float) and the updated parameters."""
    with torch.enable_grad():
        loss = model.training(batches)
    return loss, _params(model.net)


def _dsad_prepare(model: Any, x: Any, y: Any) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    """``model.training_prepare(x, y)``; returns the hypersphere centre and the fresh network's parameters (the
    loader itself does not compare)."""
    _, net, criterion = model.training_prepare(x, y)
    return criterion.c, _params(net)


# --- builders ------------------------------------------------------------------------------


def _timesnet_forward(training: bool) -> Built:
    from deepod.models.time_series.timesnet import TimesNetModel

    net = TimesNetModel(seq_len=10, pred_len=0, enc_in=3, c_out=3, e_layers=2, d_model=8, d_ff=8, dropout=0.1,
                        top_k=2, num_kernels=2)
    return net, (torch.from_numpy(_series(40, 3)).reshape(4, 10, 3),), {}


def _anomaly_transformer_training(training: bool) -> Built:
    from deepod.models.time_series.anomalytransformer import AnomalyTransformer, AnomalyTransformerModel

    model = AnomalyTransformer(seq_len=8, lr=1e-3, epochs=1, batch_size=4, epoch_steps=-1, device="cpu", k=3,
                               verbose=0)
    model.n_features = 3
    model.net = AnomalyTransformerModel(win_size=8, enc_in=3, c_out=3, d_model=16, n_heads=2, e_layers=2, d_ff=16,
                                        dropout=0.0, device="cpu")
    model.optimizer = torch.optim.AdamW(model.net.parameters(), lr=model.lr, weight_decay=1e-5)
    model.scheduler = torch.optim.lr_scheduler.StepLR(model.optimizer, step_size=5, gamma=0.5)
    model.net.train()
    return _anomaly_transformer_step, (model, [torch.from_numpy(_series(32, 3)).reshape(4, 8, 3)]), {}


def _couta_decision_function(training: bool) -> Built:
    from deepod.models.time_series.couta import COUTA, COUTANet

    model = COUTA(seq_len=6, batch_size=8, hidden_dims=8, rep_dim=8, rep_hidden=8, pretext_hidden=8, device="cpu",
                  verbose=0)
    model.n_features = 4
    model.net = COUTANet(input_dim=4, hidden_dims=8, n_output=8, pretext_hidden=8, rep_hidden=8, out_dim=1,
                         kernel_size=2, dropout=0.0, bias=True, pretext=True, dup=True)  # as fit builds it
    model.c = torch.randn(8) * 0.5  # the centre `set_c` would compute
    return model.decision_function, (_series(20, 4),), {}


def _neutral_training_forward(training: bool) -> Built:
    from deepod.models.tabular.neutral import DCL, NeuTraL, TabNeutralADNet

    model = NeuTraL(n_trans=4, temp=0.1, rep_dim=8, hidden_dims="16", trans_hidden_dims=8, device="cpu", verbose=0)
    net = TabNeutralADNet(n_features=6, n_trans=4, trans_type="residual", enc_hidden_dims="16", trans_hidden_dims=8,
                          rep_dim=8, activation="LeakyReLU", bias=False, device="cpu")
    net.train(training)
    return model.training_forward, (torch.randn(8, 6), net, DCL(temperature=0.1)), {}


def _dsad_training_prepare(training: bool) -> Built:
    import numpy as np
    from deepod.models.tabular.dsad import DeepSAD

    model = DeepSAD(batch_size=8, rep_dim=8, hidden_dims="16", device="cpu", verbose=0)
    x = torch.randn(24, 5).numpy()
    y = np.zeros(24, dtype=np.int64)
    y[[3, 9, 17, 22]] = 1
    model.n_samples, model.n_features = x.shape  # as fit sets them
    return _dsad_prepare, (model, x, y), {}


def _rca_decision_function(training: bool) -> Built:
    from deepod.models.tabular.rca import RCA, RCANet

    model = RCA(batch_size=8, rep_dim=8, hidden_dims="16", dropout=0.5, inference_ensemble=3, device="cpu",
                verbose=0)
    model.n_features = 6
    model.net = RCANet(6, hidden_dims="16", rep_dim=8, activation="LeakyReLU", bias=False, dropout=0.5)
    model.criterion = torch.nn.MSELoss(reduction="mean")  # as training_prepare builds it
    return model.decision_function, ((torch.randn(20, 6) * 1.5).numpy(),), {}


def _icl_training_forward(training: bool) -> Built:
    import numpy as np
    from deepod.models.tabular.icl import ICL, ICLNet

    model = ICL(rep_dim=8, hidden_dims="16", kernel_size=2, temperature=0.01, device="cpu", verbose=0)
    net = ICLNet(n_features=6, kernel_size=2, hidden_dims="16", rep_dim=8, activation="LeakyReLU", bias=False)
    net.train(training)
    np.random.seed(2301)  # cal_logit draws its negatives from numpy's global generator
    return model.training_forward, (torch.randn(8, 6), net, torch.nn.CrossEntropyLoss()), {}


def _rosas_training_forward(training: bool) -> Built:
    from deepod.models.tabular.rosas import RoSAS, _RoSASLoss, _RoSASNet

    model = RoSAS(rep_dim=8, hidden_dims="16", margin=5.0, alpha=0.5, T=2, k=3, device="cpu", verbose=0)
    net = _RoSASNet(n_features=5, n_hidden="16", rep_dim=8, activation="LeakyReLU", bias=False)
    model.criterion = _RoSASLoss(margin=5.0, alpha=0.5, T=2, k=3, reduction="mean")
    batch = torch.randn(6, 3, 5)
    batch[:, 2] += 2.0  # the third of each triplet is a labelled anomaly
    return model.training_forward, (batch, net, model.criterion), {}


def _dsvdd_ts_decision_function(training: bool) -> Built:
    from deepod.core.networks.ts_network_tcn import TCNnet
    from deepod.models.time_series.dsvdd import DeepSVDDTS, DSVDDLoss

    model = DeepSVDDTS(network="TCN", seq_len=6, stride=1, batch_size=8, rep_dim=8, hidden_dims="8", act="ReLU",
                       device="cpu", verbose=0)
    model.n_features = 3
    model.net = TCNnet(n_features=3, n_hidden="8", n_output=8, kernel_size=2, bias=False, dropout=0.2,
                       activation="ReLU")
    model.c = torch.randn(8) * 0.5
    model.criterion = DSVDDLoss(c=model.c)
    return model.decision_function, (_series(20, 3),), {}


def _devnet_training_forward(training: bool) -> Built:
    from deepod.core.networks.base_networks import MLPnet
    from deepod.models.tabular.devnet import DevLoss, DevNet

    model = DevNet(hidden_dims="16", margin=5.0, l=5000, device="cpu", verbose=0)
    net = MLPnet(n_features=6, n_hidden="16", n_output=1, activation="ReLU", bias=False)
    net.train(training)
    x = torch.randn(8, 6).requires_grad_(training)  # inside the batch tuple, so the harness would not mark it
    y = torch.tensor([0, 0, 1, 0, 0, 1, 0, 0])
    return model.training_forward, ((x, y), net, DevLoss(margin=5.0, l=5000)), {}


# --- rows ------------------------------------------------------------------------------------

_NUMPY_OUT = "inference only: numpy in, numpy out (the scoring runs in eval mode or under its own no_grad). "
_SELF_GRAD = ("inference only: the step differentiates itself (run under `torch.enable_grad()` by the wrapper) "
              "and returns a numpy float and detached parameters; ")


def _rows() -> list[Row]:
    return [
        Row(
            "r23a_timesnet_forward", *DEEPOD,
            "module: TimesNetModel(seq_len=10, pred_len=0, enc_in=3, c_out=3, e_layers=2, d_model=8, d_ff=8, "
            "top_k=2, num_kernels=2)(x (4, 10, 3)); returns the reconstruction (4, 10, 3)",
            MODULES, _timesnet_forward, frozen=("0",),
            notes="TimesNet's reconstruction of 4 windows of a noisy period-3 series (the dominant frequency gives "
            "period 10 // 3 = 3, which does not divide 10: the padding branch; the second, period 2, divides it); "
            "the embedding's dropout (0.1) is active in training; in training the parameters require grad (the "
            "unused temporal embedding gets no gradient) and the windows do not (frozen: as in `fit`; the "
            "library's in-place `x_enc /= stdev` makes backward fail when the input requires grad)",
            patterns="`FFT_for_Period` per TimesBlock (models/time_series/timesnet.py:356-365: `rfft`, "
            "`frequency_list[0] = 0`, `topk`, `top_list.detach().cpu().numpy()` (363), `x.shape[1] // top_list` "
            "(364, numpy periods), `abs(xf).mean(-1)[:, top_list]` (365)); `TimesBlock.forward` (204-236): a "
            "Python loop over k reading `period_list[i]` (210), `if (seq_len + pred_len) % period != 0` (212: "
            "a branch on a data-chosen int), zero padding to `((T // period) + 1) * period`, `reshape(B, length "
            "// period, period, N)` (221: shapes from tensor values), Inception 2-D convs; in-place `x_enc /= "
            "stdev` (165)",
        ),
        Row(
            "r23a_anomaly_transformer_train_step", *DEEPOD,
            "wrapper: AnomalyTransformer(seq_len=8, k=3) with AnomalyTransformerModel(win_size=8, enc_in=3, "
            "d_model=16, n_heads=2, e_layers=2, d_ff=16).training([batch (4, 8, 3)]); returns (mean loss numpy "
            "float, updated parameters)",
            MODULES, _anomaly_transformer_training, modes=INFERENCE,
            notes=_SELF_GRAD + "one minimax step of the association-discrepancy objective (AdamW, StepLR) on one "
            "batch of 4 windows, the optimizer and scheduler built as `fit` builds them",
            patterns="`AnomalyTransformer.training` (models/time_series/anomalytransformer.py:75-122: "
            "`AnomalyTransformerModel` (`AnomalyAttention` 345-370: Gaussian prior from `sigma`, softmax series), "
            "a Python loop over the layers' series/prior lists with `my_kl_loss` (12-14) both ways and "
            "`.detach()` (88-103), `(rec_loss - self.k * series_loss).item()` (107), "
            "`loss1.backward(retain_graph=True)`, `loss2.backward()`, `optimizer.step()` (112-114), "
            "`scheduler.step()` (120), `np.average` (122))",
        ),
        Row(
            "r23a_couta_decision_function", *DEEPOD,
            "method: COUTA(seq_len=6, batch_size=8) with COUTANet(input_dim=4, hidden_dims=8, n_output=8, "
            "rep_hidden=8, pretext_hidden=8, out_dim=1) and centre c (8,).decision_function(X (20, 4) numpy "
            "float32); returns scores (20,) numpy float64",
            MODULES, _couta_decision_function, modes=INFERENCE,
            notes=_NUMPY_OUT + "COUTA's scoring of a 20-step, 4-channel series: 15 windows in 2 batches, the "
            "squared distances of both representation heads to the centre, summed, left-padded with zeros",
            patterns="`COUTA.decision_function` (models/time_series/couta.py:148-187: numpy `get_sub_seqs` "
            "(utils/utility.py:5-28), `SubseqData` dataset, `DataLoader`, `net.eval()`, a `no_grad` loop of "
            "`COUTANet.forward` (407-427: `weight_norm` TCN blocks, `out[:, -1]`, three heads), `torch.cat`, "
            "`torch.sum((reps - self.c) ** 2, dim=1).data.cpu().numpy()` (180) and the duplicate head's (183), "
            "`np.hstack` padding (186))",
        ),
        Row(
            "r23a_neutral_training_forward", *DEEPOD,
            "method: NeuTraL(n_trans=4).training_forward(batch (8, 6), TabNeutralADNet(n_features=6, n_trans=4, "
            "enc_hidden_dims='16', trans_hidden_dims=8, rep_dim=8), DCL(temperature=0.1)); returns a 0-d loss",
            MODULES, _neutral_training_forward,
            notes="NeuTraL's one-batch training loss: 4 learned residual transformations of each sample, encoded, "
            "and the deterministic contrastive loss; in training the batch and parameters require grad",
            patterns="`TabNeutralADNet.forward` (models/tabular/neutral.py:142-158: `torch.empty(...).to(x)` "
            "filled by `x_transform[:, i] = mask + x` in a Python loop (153), `cat`, encoder `MLPnet`, "
            "`reshape`); `DCL.forward` (167-193: `F.normalize`, `exp(matmul)`, a bool mask from `ones_like - eye`, "
            "`sim_matrix.masked_select(mask).view(batch_size, n_trans, -1)` (175: a data-dependent-size "
            "selection), `np.abs(K * np.log(1.0 / K))` of a Python int (180))",
        ),
        Row(
            "r23a_deepsad_training_prepare", *DEEPOD,
            "wrapper: DeepSAD(batch_size=8, rep_dim=8, hidden_dims='16').training_prepare(X (24, 5) numpy, y "
            "(24,) int64 with 4 anomalies); returns (hypersphere centre c (8,), fresh MLPnet parameters)",
            MODULES, _dsad_training_prepare, modes=INFERENCE,
            notes="inference only: a setup step that builds a loader and a network and computes the centre under "
            "its own `no_grad`; nothing to differentiate. What `fit` runs before the first epoch: relabel, "
            "balanced sampler, fresh network, centre of the sampled representations (the sampler draws from "
            "torch's generator)",
            patterns="`DeepSAD.training_prepare` (models/tabular/dsad.py:109-146: `np.where`, `Counter`, "
            "`TensorDataset` of `from_numpy`, `weight_map[label.item()] for data, label in dataset` (125: one "
            "`.item()` per sample), `WeightedRandomSampler`, `MLPnet`), `_set_c` (174-190: `net.eval()`, a "
            "`no_grad` loop over the sampled `DataLoader`, `cat`, `mean`, `c[(abs(c) < eps) & (c < 0)] = -eps` "
            "and `c[(abs(c) < eps) & (c > 0)] = eps` (188-189: boolean-mask `index_put_`, data-dependent))",
        ),
        Row(
            "r23a_rca_decision_function", *DEEPOD,
            "method: RCA(batch_size=8, rep_dim=8, hidden_dims='16', dropout=0.5, inference_ensemble=3) with "
            "RCANet(6, ...).decision_function(X (20, 6) numpy float32); returns scores (20,) numpy float64",
            MODULES, _rca_decision_function, modes=INFERENCE,
            notes=_NUMPY_OUT + "RCA's dropout-ensemble scoring: 3 passes with dropout on (torch's generator) "
            "over 2 batches, reconstruction errors of both auto-encoders averaged; tqdm's `trange` draws a "
            "progress bar on stderr",
            patterns="`BaseDeepAD.decision_function` (core/base_model.py:195-241: `n_ensemble` loop, "
            "`inference_prepare` (models/tabular/rca.py:114-117: `DataLoader`, `criterion.reduction = 'none'`), "
            "`decision_function_update`, `s_final += scores`, `representations.extend(z)`, `np.array`), "
            "`RCA._inference` (157-181: `net.train()`, a `trange` loop, `no_grad`, `inference_forward` "
            "(147-155: `RCANet` two encoder/decoder `MLPnet`s with dropout, `MSELoss(reduction='none')`, `sum`), "
            "`torch.cat(...).data.cpu().numpy()` (177-178), `np.array(...).mean(axis=0)` (180))",
        ),
        Row(
            "r23a_icl_training_forward", *DEEPOD,
            "method: ICL(kernel_size=2, temperature=0.01).training_forward(batch (8, 6), ICLNet(n_features=6, "
            "kernel_size=2, hidden_dims='16', rep_dim=8), CrossEntropyLoss()); returns a 0-d loss",
            MODULES, _icl_training_forward,
            notes="ICL's one-batch contrastive loss over 5 sub-vector/complement pairs per sample (BatchNorm in "
            "train mode in training, running stats in inference); numpy seeded in the builder for `cal_logit`'s "
            "negatives; in training the batch and parameters require grad",
            patterns="no tensor value reaches Python; the Python-side work is numpy: `ICLNet.forward` "
            "(models/tabular/icl.py:247-253: `positive_matrix_builder` (255-281: `unsqueeze`/`repeat`, tensor "
            "indexing by numpy index arrays (278-279)), BatchNorm'd `MLPnet`s, `F.normalize`), `cal_logit` "
            "(174-195: `np.random.choice(np.arange(n_pos), ...)` from numpy's global generator on every call "
            "(179), tensor columns selected by that numpy array (180, 189), `masked_fill_(identity_matrix == 1, "
            "-inf)` (191), `div`), `CrossEntropyLoss` over a permuted logit",
        ),
        Row(
            "r23a_rosas_training_forward_mixup", *DEEPOD,
            "method: RoSAS(rep_dim=8, hidden_dims='16', alpha=0.5, k=3).training_forward(batch (6, 3, 5) "
            "anchor/positive/anomaly triplets, _RoSASNet(n_features=5, n_hidden='16', rep_dim=8), "
            "_RoSASLoss(k=3)); returns a 0-d loss",
            MODULES, _rosas_training_forward,
            notes="RoSAS's one-batch loss with the n-samples (k=3) mixup: triplet embedding loss plus mixed-score "
            "regression and consistency; `randperm` and the Dirichlet mixing weights come from torch's generator; "
            "`training_forward` uses `self.criterion` (set to the same loss object); in training the triplets "
            "and parameters require grad",
            patterns="`RoSAS.training_forward` (models/tabular/rosas.py:54-124: three `_RoSASNet` passes, the "
            "`k != 2` branch (86-119): Python loops over k (95, 114) with `torch.randperm` gathers, "
            "`Dirichlet(torch.tensor([alpha, alpha]))` (105; argument validation `not torch._is_all_true("
            "constraint.check(...))` in torch/distributions/distribution.py, outside `modules`), `sample`, "
            "normalised weights, in-place `x_tilde +=`/`y_tilde +=`/`score_mix +=`), `_RoSASLoss.forward` "
            "(194-211: `TripletMarginLoss`, two `SmoothL1Loss`; the `if pre_emb_loss != 0` tensor test (205) not "
            "reached with `pre_emb_loss=None`)",
        ),
        Row(
            "r23a_deepsvdd_ts_decision_function", *DEEPOD,
            "method: DeepSVDDTS(network='TCN', seq_len=6, batch_size=8, rep_dim=8) with TCNnet(3, n_hidden='8', "
            "n_output=8) and DSVDDLoss(c (8,)).decision_function(X (20, 3) numpy float32); returns scores (20,) "
            "numpy float64",
            MODULES, _dsvdd_ts_decision_function, modes=INFERENCE,
            notes=_NUMPY_OUT + "the generic `BaseDeepAD` scoring of a time-series detector: 15 windows in 2 "
            "batches, squared distance of each window's TCN representation to the centre, left-padded with "
            "`seq_len - 1` zeros",
            patterns="`BaseDeepAD.decision_function` (core/base_model.py:195-241: `get_sub_seqs` (220, numpy), "
            "`inference_prepare` (models/time_series/dsvdd.py:135-139), `_inference` (core/base_model.py:362-381: "
            "`net.eval()`, `no_grad`, per batch `inference_forward` (dsvdd.py:147-151: `TCNnet` (core/networks/"
            "ts_network_tcn.py:93-96, 134-138: `weight_norm` convs, `Chomp1d` slicing), `DSVDDLoss` with "
            "`reduction='none'`), `torch.cat(z_lst).data.cpu().numpy()` and the scores' (378-379)), `np.hstack` "
            "padding (230-232), `np.array(representations)`)",
        ),
        Row(
            "r23a_devnet_training_forward_control", *DEEPOD,
            "method: DevNet(margin=5, l=5000).training_forward((x (8, 6), y (8,) int64), MLPnet(6, n_hidden='16', "
            "n_output=1), DevLoss(margin=5, l=5000)); returns a 0-d loss",
            MODULES, _devnet_training_forward,
            notes="control: DevNet's one-batch deviation loss (a fresh N(0, 1) reference of 5000 draws from "
            "torch's generator per call); the (8, 1) scores broadcast against the (8,) labels into an (8, 8) loss "
            "matrix (a library quirk); in training the features (made to require grad in the builder: they sit "
            "in a tuple) and parameters require grad",
            patterns="control: no tensor value reaches Python. `DevNet.training_forward` (models/tabular/"
            "devnet.py:122-128: tuple unpacking, `.float().to(device)`, `MLPnet` (core/networks/base_networks.py:"
            "144-198: `Linear`/`ReLU` blocks)), `DevLoss.forward` (165-179: `torch.randn(self.loss_l)`, `mean`, "
            "`std`, `abs`, `torch.max` with `zeros_like`, a Python branch on the `reduction` string)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-three (a)")
