"""Held-out round eighteen (r18b): pycox.

Chosen by reading the library's source, written down in ROUND18.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

pycox 0.3.0 (Håvard Kvamme's survival analysis with PyTorch, on torchtuples
0.2.2, his small fit/predict framework) holds discrete-time models
(``LogisticHazard``, ``PMF``, ``MTLR``, ``DeepHitSingle``/``DeepHit``,
``PCHazard``, ``BCESurv``) and Cox models (``CoxPH``, ``CoxCC``, ``CoxTime``),
each a ``torchtuples.Model`` around the user's network and a loss from
``pycox.models.loss`` (the functional negative log-likelihoods and their
``nn.Module`` wrappers).  The labels are what pycox's label transforms produce:
``idx_durations`` (int64 indices of the discrete time interval), ``events``
(float32 0/1, or bool where a loss converts them), PC-Hazard's
``interval_frac`` (float32) and DeepHit's pairwise ``rank_mat`` (float32 n x n,
computed by ``pair_rank_mat`` when a batch is read).  No data set is used (the
``pycox.datasets`` loaders download): the rows' labels are synthetic, built in
the builders from torch's generator, with the sizes the loss expects (a net
output of 5 intervals, 4 for PC-Hazard; batches of 6 to 12).

The data-dependent code (file:line relative to the ``pycox`` package, or to
``torchtuples`` where said): ``nll_logistic_hazard``, ``nll_pmf`` (and
``nll_mtlr`` and ``DeepHitSingleLoss``, which call it) and ``bce_surv_loss``
begin with ``if phi.shape[1] <= idx_durations.max(): raise ValueError(...)``
(models/loss.py:40, 75, 357: a tensor compared with a Python int in a Python
``if``; the message, built only when it raises, would read ``.item()``), then
``if events.dtype is torch.bool`` (a Python dtype test) and the likelihood by
``scatter``/``gather`` at the duration indices; ``nll_pc_hazard_loss``
(models/loss.py:131-173) drops the rows whose duration index is -1 (what
``LabTransPCHazard.transform`` gives an event or censoring at the start time,
preprocessing/label_transforms.py:218-222) with ``keep = idx_durations.view(-1)
>= 0; phi = phi[keep, :]`` and three more boolean-mask reads (models/loss.py:
160-164: a batch of data-dependent size), then ``utils.log_softplus``
(models/utils.py:39-55: ``output = input.clone(); above = input >= -15.;
output[above] = F.softplus(input[above]).log()``, a boolean-mask read and a
boolean-mask setitem of data-dependent size) on the gathered log-hazards;
``DeepHitDataset.__getitem__`` (models/data.py:131-137, how DeepHit reads a
batch) takes the batch's labels out of torch (``target.to_numpy()``,
torchtuples tupletree.py:149-156: ``.detach().cpu().numpy()``) into
``pair_rank_mat`` (models/data.py:94-128, a ``@numba.njit`` double loop that
skips censored rows by ``if ev_i == 0: continue`` and compares durations
pairwise) and back by ``torch.from_numpy``.  The selections come in 0, 1 and
many: PC-Hazard batches keeping all rows, all but one, and one row, with the
``log_softplus`` mask selecting all, all but one, and none of the gathered
values; label batches with no event, one event and tied durations.  The Cox PH
loss (models/loss.py:407-438: ``durations.sort(descending=True)[1]``, index
reads by the sort's permutation, a running log-sum-exp by ``cumsum``,
``div(events.sum())``) keeps every value in torch: it is the control (one row).
The network row is torchtuples' own training-step computation
(``Model.compute_metrics``, torchtuples base.py:163-182: ``tuplefy``,
``to_device``, ``self.net(*input)``, ``{name: metric(*out, *target)}``) of a
``LogisticHazard`` around ``torchtuples.practical.MLPVanilla``.  No pycox path
a row takes prints, warns or logs.

Global state on import: any ``import pycox...`` runs ``pycox/__init__.py``,
which imports ``pycox.datasets`` (requests, h5py, pandas), ``pycox.evaluation``
(numba, scipy), ``pycox.preprocessing`` (scikit-learn), ``pycox.simulations``
and ``pycox.models`` (torchtuples, numpy, pandas, numba), and neither
``torch._dynamo`` nor ``torch._inductor``.  It changes none of torch's global
state (default dtype, grad mode, threads, deterministic flag, matmul precision,
cuDNN/TF32 flags, print options, anomaly mode) nor numpy's global generator,
and configures no logger (numba, h5py, sklearn get loggers without handlers;
requests, urllib3, charset_normalizer get a ``NullHandler``; the root logger is
untouched).  Its dependencies add six warning filters: scipy's ``always`` for
``SpecialFunctionWarning`` (scipy/special/_sf_error.py:10) and ``ignore`` for
numpy's matrix-subclass ``PendingDeprecationWarning`` message
(scipy/sparse/__init__.py:334), urllib3's three and requests' one.  Importing
scikit-learn sets ``KMP_DUPLICATE_LIB_OK=True`` and ``KMP_INIT_AT_FORK=FALSE``
in ``os.environ`` (``setdefault``, sklearn/__init__.py:56, 60).  The import
also runs ``_PATH_DATA.mkdir(parents=True, exist_ok=True)``
(datasets/_dataset_loader.py:12): it creates ``pycox/datasets/data`` inside
site-packages (or ``$PYCOX_DATA_DIR`` when set) when absent; in the round's
venv it exists (empty), so nothing is written.  The numba function
``_pair_rank_mat`` is compiled in memory on its first call (no cache file);
the DeepHit builders call it before the row's call.

Library bugs (checked eagerly; no row takes these paths): (1) the Cox PH losses
(``cox_ph_loss_sorted``, models/loss.py:407-423, and ``CoxPHLoss``) divide by
``events.sum()``, so a batch without an event, which ``CoxPH.fit``'s shuffled
batches can draw, gives a NaN loss and NaN gradients for every log-hazard
(0/0), silently; the losses also sort by duration without a tie rule, so tied
durations enter the running risk sets in the sort's order (the control row's
durations are distinct).  (2) ``NLLPCHazardLoss.forward`` takes a
``reduction='mean'`` argument (models/loss.py:509-510) that it ignores (it
passes ``self.reduction``, models/loss.py:524): with the module built with
``reduction='none'``, ``forward(..., reduction='sum')`` returns the (3,)
per-sample tensor.  (3) ``nll_pc_hazard_loss`` of a batch whose rows all have
index -1 (all dropped by ``keep``) returns NaN for ``'mean'`` (the mean of an
empty tensor).  (4) torchtuples' ``_predict_func_dl`` (base.py:487-498), under
every ``predict*`` method with ``eval_=True`` (the default), calls
``self.net.eval()`` before and ``self.net.train()`` after, whatever mode the
net was in: a net put in eval mode is in train mode after
``model.predict_surv(x)`` (dropout and batch-norm updates on in the user's next
plain forward).  (5) ``InterpolateDiscrete._surv_const_pdf``
(models/interpolation.py:68-96, the ``'const_pdf'`` interpolation of
LogisticHazard and BCESurv) writes the survival curve into ``torch.zeros(n,
...)`` (interpolation.py:93) with the default dtype and device: a float64
model's interpolated survival comes back float32 (checked: float64
``predict_surv``, float32 ``interpolate(4).predict_surv``), and on a GPU the
setitem would mix devices (not run here: CPU only).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

PYCOX = ("pycox", "0.3.0")

_M = 5  # discrete time intervals of the net output (PC-Hazard: 4)


# --- labels ------------------------------------------------------------------------------


def _r18b_events(n: int, rate: float = 0.6) -> torch.Tensor:
    """Event indicators as pycox's label transforms give them: float32 0/1."""
    return (torch.rand(n) < rate).float()


def _r18b_rank_mat(idx_durations: torch.Tensor, events: torch.Tensor) -> torch.Tensor:
    """DeepHit's pairwise rank matrix, by pycox's own ``pair_rank_mat`` (numba; what
    ``DeepHitDataset.__getitem__`` computes for every batch)."""
    from pycox.models.data import pair_rank_mat

    return torch.from_numpy(pair_rank_mat(idx_durations.numpy(), events.numpy()))


# --- losses ------------------------------------------------------------------------------


def _r18b_logistic_hazard_nll(training: bool) -> Built:
    from pycox.models.loss import NLLLogistiHazardLoss

    phi = torch.randn(8, _M)
    idx_durations = torch.randint(0, _M, (8,))
    return NLLLogistiHazardLoss(), (phi, idx_durations, _r18b_events(8)), {}


def _r18b_mtlr_nll_no_events(training: bool) -> Built:
    from pycox.models.loss import NLLMTLRLoss

    phi = torch.randn(6, _M)
    idx_durations = torch.randint(0, _M, (6,))
    events = torch.zeros(6, dtype=torch.bool)  # a batch without an event: all censored
    return NLLMTLRLoss(reduction="sum"), (phi, idx_durations, events), {}


def _r18b_deephit_single_ties(training: bool) -> Built:
    from pycox.models.loss import DeepHitSingleLoss

    phi = torch.randn(8, _M)
    # three rows tied at index 3 (two events, one censored), two at index 1 (one of each)
    idx_durations = torch.tensor([3, 1, 3, 0, 2, 3, 1, 4])
    events = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    rank_mat = _r18b_rank_mat(idx_durations, events)
    return DeepHitSingleLoss(alpha=0.2, sigma=0.1), (phi, idx_durations, events, rank_mat), {}


def _r18b_bce_surv_one_event(training: bool) -> Built:
    from pycox.models.loss import BCESurvLoss

    phi = torch.randn(6, _M)
    idx_durations = torch.randint(0, _M, (6,))
    events = torch.zeros(6, dtype=torch.bool)
    events[4] = True  # one event in the batch
    return BCESurvLoss(), (phi, idx_durations, events), {}


def _r18b_pc_hazard_batch(n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """PC-Hazard labels as ``LabTransPCHazard.transform`` gives them: indices in 0..3 (-1 for an
    event or censoring at the start time), float events, the fraction of the last interval."""
    phi = torch.randn(n, 4)
    idx_durations = torch.randint(0, 4, (n,))
    events = _r18b_events(n)
    interval_frac = torch.rand(n) * 0.9 + 0.05
    return phi, idx_durations, events, interval_frac


def _r18b_pc_hazard_all_kept(training: bool) -> Built:
    from pycox.models.loss import NLLPCHazardLoss

    return NLLPCHazardLoss(), _r18b_pc_hazard_batch(8), {}


def _r18b_pc_hazard_one_dropped(training: bool) -> Built:
    from pycox.models.loss import NLLPCHazardLoss

    phi, idx_durations, events, interval_frac = _r18b_pc_hazard_batch(8)
    # row 2 at the start time (the label transform sets its event and fraction to 0, then index -1)
    idx_durations[2], events[2], interval_frac[2] = -1, 0.0, 0.0
    # row 5's log-hazard at its interval below log_softplus's threshold (-15): the one value not selected
    phi[5, idx_durations[5]] = -20.0
    return NLLPCHazardLoss(), (phi, idx_durations, events, interval_frac), {}


def _r18b_pc_hazard_single_row(training: bool) -> Built:
    from pycox.models.loss import NLLPCHazardLoss

    phi, idx_durations, events, interval_frac = _r18b_pc_hazard_batch(6)
    idx_durations[:] = -1  # all at the start time but row 3
    events[:] = 0.0
    interval_frac[:] = 0.0
    idx_durations[3], events[3], interval_frac[3] = 2, 1.0, 0.5
    phi[3, 2] = -18.0  # the one gathered log-hazard is below the threshold: log_softplus selects none
    return NLLPCHazardLoss(), (phi, idx_durations, events, interval_frac), {}


def _r18b_cox_ph_control(training: bool) -> Built:
    from pycox.models.loss import CoxPHLoss

    log_h = torch.randn(8, 1)
    durations = torch.rand(8) * 10.0  # distinct (no tie for the sort to order)
    events = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    return CoxPHLoss(), (log_h, durations, events), {}


# --- network and loss: torchtuples' training-step computation ------------------------------


def _r18b_logistic_hazard_compute_metrics(training: bool) -> Built:
    import torchtuples as tt
    from pycox.models import LogisticHazard

    net = tt.practical.MLPVanilla(4, [16, 16], _M, batch_norm=True, dropout=0.1)
    model = LogisticHazard(net, device="cpu")  # loss: NLLLogistiHazardLoss; AdamW built, not stepped
    # torchtuples.Model is not an nn.Module: the harness does not set the net's mode, so the builder
    # does, as Model.fit_dataloader does (net.train() before its batches)
    net.train(training)
    x = torch.randn(10, 4)
    idx_durations = torch.randint(0, _M, (10,))
    return model.compute_metrics, ((x, (idx_durations, _r18b_events(10))),), {}


def _r18b_deephit_dataset_run(dataset: Any, index: list[int]) -> tuple[tuple[torch.Tensor, ...], ...]:
    """``DeepHitDataset.__getitem__`` for one batch of indices (what torchtuples' ``DataLoaderBatch``
    passes it: a list of ints from the batch sampler); the two TupleTrees returned as plain tuples."""
    input, target = dataset[index]
    return tuple(input), tuple(target)


def _r18b_deephit_dataset_batch(training: bool) -> Built:
    from pycox.models.data import DeepHitDataset

    x = torch.randn(12, 3)
    idx_durations = torch.randint(0, _M, (12,))
    idx_durations[7] = idx_durations[1]  # a tie, censored against an event
    events = _r18b_events(12, 0.5)
    events[1], events[7] = 1.0, 0.0
    dataset = DeepHitDataset(x, (idx_durations, events))
    others = [i for i in torch.randperm(12).tolist() if i not in (1, 7)][:6]
    index = others[:2] + [7] + others[2:5] + [1] + others[5:]  # 8 rows, the tied pair among them
    _r18b_rank_mat(idx_durations[:2], events[:2])  # numba compiles on the first call: here, not in the row's
    return _r18b_deephit_dataset_run, (dataset, index), {}


# --- rows --------------------------------------------------------------------------------

_CHECK = (
    "`if phi.shape[1] <= idx_durations.max(): raise ValueError(...)` (a 0-d tensor compared with a Python int in a "
    "Python `if`; false here, so the message, which would read `idx_durations.max().item()`, is not built)"
)
_BOOL = "`if events.dtype is torch.bool: events = events.float()` (a Python dtype test)"
_LABELS = (
    "the labels are not differentiable: `idx_durations` is int64 and the float event indicators (and PC-Hazard's "
    "interval fractions, DeepHit's rank matrix) are frozen"
)
_PC = (
    "`NLLPCHazardLoss.forward` (models/loss.py:509-524, its own `reduction` argument ignored) -> "
    "`nll_pc_hazard_loss` (models/loss.py:131-173): " + _BOOL + ", `view`s, `keep = idx_durations.view(-1) >= 0` "
    "then `phi[keep, :]`, `idx_durations[keep, :]`, `events[keep]`, `interval_frac[keep]` (models/loss.py:160-164: "
    "four boolean-mask reads, the batch's size from the data), `utils.log_softplus(phi.gather(1, "
    "idx_durations).view(-1))` (models/utils.py:39-55: `clone`, `above = input >= -15.`, `output[above] = "
    "F.softplus(input[above]).log()`: a boolean-mask read and a boolean-mask setitem of data-dependent size), "
    "`F.softplus`, `gather`, `pad_col(haz, where='start')` (models/utils.py:7-18: Python tests of `len(shape)`, "
    "`val`, `where`; `zeros_like`, `cat`), `cumsum(1).gather`, `_reduction` ('mean', a Python string test)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r18b_pycox_logistic_hazard_nll", *PYCOX,
            "module: pycox.models.loss.NLLLogistiHazardLoss()(phi (8, 5) ~ N(0, 1), idx_durations (8,) int64 in "
            "0..4, events (8,) float32 0/1 (4 events)); returns the mean negative log-likelihood (a 0-d tensor)",
            ("pycox",), _r18b_logistic_hazard_nll, frozen=("2",),
            notes="the loss LogisticHazard (Nnet-survival) trains with; " + _LABELS + "; in training the gradient "
            "reaches phi through the BCE's cumulative sum and the gather",
            patterns="`NLLLogistiHazardLoss.forward` (models/loss.py:467-468) -> `nll_logistic_hazard` "
            "(models/loss.py:18-51): " + _CHECK + " (models/loss.py:40), " + _BOOL + ", `view`s, `torch.zeros_like"
            "(phi).scatter(1, idx_durations, events)` (the event indicator put at each row's duration index), "
            "`F.binary_cross_entropy_with_logits(reduction='none')`, `cumsum(1).gather(1, idx_durations)`, "
            "`_reduction` ('mean')",
        ),
        Row(
            "r18b_pycox_mtlr_nll_no_events", *PYCOX,
            "module: pycox.models.loss.NLLMTLRLoss(reduction='sum')(phi (6, 5), idx_durations (6,) int64, events "
            "(6,) bool, all False: a batch without an event); returns the summed negative log-likelihood",
            ("pycox",), _r18b_mtlr_nll_no_events,
            notes="a batch of censored rows only (every row's likelihood is its survival past its interval); the "
            "events are a bool tensor, which the loss converts; in training the gradient reaches phi through "
            "the reverse cumulative sum and the PMF's log-sum-exp",
            patterns="`NLLMTLRLoss.forward` (models/loss.py:504-505) -> `nll_mtlr` (models/loss.py:94-129): "
            "`utils.cumsum_reverse(phi, dim=1)` (models/utils.py:57-61: a Python `dim != 1` test, `sum`, `pad_col("
            "where='start')`, `cumsum`, a slice) -> `nll_pmf` (models/loss.py:53-92): " + _CHECK + " (models/loss"
            ".py:75), " + _BOOL + " (taken: bool -> float), `pad_col` (models/utils.py:7-18), `max(1)[0]`, "
            "`sub(...).exp().cumsum(1)`, `gather` at the duration indices, `relu().add(1e-7).log()`, the event "
            "and censoring parts weighted by `events` and `1. - events`, `_reduction` ('sum')",
        ),
        Row(
            "r18b_pycox_deephit_single_loss_ties", *PYCOX,
            "module: pycox.models.loss.DeepHitSingleLoss(alpha=0.2, sigma=0.1)(phi (8, 5), idx_durations [3, 1, 3, "
            "0, 2, 3, 1, 4], events [1, 0, 1, 1, 0, 0, 1, 1] (float32), rank_mat (8, 8) float32 from "
            "pycox.models.data.pair_rank_mat); returns alpha * NLL + (1 - alpha) * rank loss (a 0-d tensor)",
            ("pycox",), _r18b_deephit_single_ties, frozen=("2", "3"),
            notes="tied durations: three rows at index 3 (two events, one censored) and two at index 1 (one of "
            "each); the rank matrix is computed in the builder by pycox's numba `pair_rank_mat` (models/data.py:"
            "94-128), as `DeepHitDataset` gives it with each batch (17 ordered pairs, ties counted where the "
            "other row is censored); " + _LABELS,
            patterns="`DeepHitSingleLoss.forward` (models/loss.py:586-590: `self.alpha` and `self.sigma` "
            "properties) -> `nll_pmf` (models/loss.py:53-92: " + _CHECK + " (models/loss.py:75), " + _BOOL + ", "
            "`pad_col`, the PMF likelihood by `gather`) and `rank_loss_deephit_single` (models/loss.py:213-250: "
            "`pad_col(phi).softmax(1)`, a one-hot `zeros_like(pmf).scatter(1, idx_durations, 1.)`) -> "
            "`_rank_loss_deephit` (models/loss.py:176-192) -> `_diff_cdf_at_time_i` (models/loss.py:194-211: "
            "`cumsum(1).matmul(y.T)`, `diag`, `torch.ones((n, 1), device=...)` with n from the shape, `matmul`, "
            "transpose), `rank_mat * exp(-r / sigma)`, `mean(1)`, `_reduction`; the weighted sum with Python floats",
        ),
        Row(
            "r18b_pycox_bce_surv_loss_one_event", *PYCOX,
            "module: pycox.models.loss.BCESurvLoss()(phi (6, 5), idx_durations (6,) int64, events (6,) bool with "
            "one True); returns the weighted binary cross-entropy (a 0-d tensor)",
            ("pycox",), _r18b_bce_surv_one_event,
            notes="a batch with exactly one event; the events are a bool tensor, which the loss converts; in "
            "training the gradient reaches phi through the BCE (its weights, from the labels, carry none)",
            patterns="`BCESurvLoss.forward` (models/loss.py:630-631) -> `bce_surv_loss` (models/loss.py:335-366): "
            + _CHECK + " (models/loss.py:357), " + _BOOL + " (taken), `torch.arange(phi.shape[1], dtype=..., "
            "device=...)`, `(y.view(1, -1) < idx_durations.view(-1, 1)).float()` (survived-interval targets), the "
            "censoring weights `y + (ones_like(y) - y) * events.view(-1, 1)`, `F.binary_cross_entropy_with_logits("
            "phi, y, c, reduction='mean')`",
        ),
        Row(
            "r18b_pycox_pc_hazard_nll_all_kept", *PYCOX,
            "module: pycox.models.loss.NLLPCHazardLoss()(phi (8, 4), idx_durations (8,) int64 in 0..3, events (8,) "
            "float32, interval_frac (8,) float32); returns the mean negative log-likelihood",
            ("pycox",), _r18b_pc_hazard_all_kept, frozen=("2", "3"),
            notes="no row at the start time: `keep` selects all 8 rows and `log_softplus`'s mask all 8 gathered "
            "log-hazards (the masks are still computed and applied); " + _LABELS,
            patterns=_PC,
        ),
        Row(
            "r18b_pycox_pc_hazard_nll_start_time_dropped", *PYCOX,
            "module: pycox.models.loss.NLLPCHazardLoss()(phi (8, 4), idx_durations (8,) with row 2 at -1 (the "
            "start time), events, interval_frac; row 5's gathered log-hazard -20); returns the mean over the 7 "
            "kept rows",
            ("pycox",), _r18b_pc_hazard_one_dropped, frozen=("2", "3"),
            notes="`keep` drops one row (index -1, as `LabTransPCHazard.transform` labels an event or censoring at "
            "the start time, with event and fraction 0) and `log_softplus`'s mask drops one of the 7 gathered "
            "values (below -15, returned as is); " + _LABELS + "; in training the dropped row's phi gets a zero "
            "gradient",
            patterns=_PC,
        ),
        Row(
            "r18b_pycox_pc_hazard_nll_single_row_kept", *PYCOX,
            "module: pycox.models.loss.NLLPCHazardLoss()(phi (6, 4), idx_durations (6,) all -1 but row 3 (index "
            "2, an event, fraction 0.5, gathered log-hazard -18), events, interval_frac); returns the mean over the "
            "one kept row",
            ("pycox",), _r18b_pc_hazard_single_row, frozen=("2", "3"),
            notes="`keep` selects one row and `log_softplus`'s mask none (the empty boolean-mask read and setitem "
            "run on 0 elements; the clone is returned unchanged); " + _LABELS + "; in training only row 3 of phi "
            "gets a gradient",
            patterns=_PC,
        ),
        Row(
            "r18b_pycox_cox_ph_loss_control", *PYCOX,
            "module: pycox.models.loss.CoxPHLoss()(log_h (8, 1), durations (8,) float32 distinct, events (8,) "
            "float32 (5 events)); returns the negative partial log-likelihood (a 0-d tensor)",
            ("pycox",), _r18b_cox_ph_control, frozen=("1", "2"),
            notes="DeepSurv's loss (CoxPH); the durations are distinct (the sort has no tie to order; the module "
            "docstring's bug (1) for a batch without an event); " + _LABELS + " (the durations too)",
            patterns="control: no tensor value reaches Python. `CoxPHLoss.forward` (models/loss.py:697-698) -> "
            "`cox_ph_loss` (models/loss.py:425-438: `durations.sort(descending=True)[1]`, `events[idx]`, "
            "`log_h[idx]` (index reads by the sort's permutation, fixed size)) -> `cox_ph_loss_sorted` "
            "(models/loss.py:407-423: " + _BOOL + ", `view`s, `gamma = log_h.max()` (a 0-d tensor kept in torch), "
            "`sub(gamma).exp().cumsum(0).add(eps).log().add(gamma)`, `mul(events).sum().div(events.sum())`)",
        ),
        Row(
            "r18b_pycox_logistic_hazard_compute_metrics_mlp", *PYCOX,
            "bound method: pycox.models.LogisticHazard(torchtuples.practical.MLPVanilla(4, [16, 16], 5, "
            "batch_norm=True, dropout=0.1), device='cpu').compute_metrics((x (10, 4), (idx_durations (10,) int64, "
            "events (10,) float32))); returns {'loss': the NLL (a 0-d tensor)}",
            ("pycox", "torchtuples"), _r18b_logistic_hazard_compute_metrics,
            notes="the loss of one training batch as `Model.fit` computes it (torchtuples base.py:163-182, called "
            "by `fit_dataloader` before `backward`); the model is not an nn.Module, so the builder sets the net's "
            "mode (train in training: dropout draws from torch's generator, seeded before the call, and batch "
            "norm uses batch statistics and updates its running buffers; eval in inference); the batch is one "
            "tuple argument, so x does not require grad: in training the gradient reaches the MLP's parameters "
            "(reached through the autograd graph); the optimizer `LogisticHazard` builds (torchtuples' AdamW) is "
            "not stepped",
            patterns="`Model.compute_metrics` (torchtuples base.py:163-182: `metrics is None` -> `self.metrics` "
            "({'loss': NLLLogistiHazardLoss()}), a Python test of `self.loss`, `input, target = data`, `_to_device` "
            "(torchtuples base.py:155-161 -> `tuplefy(...)` (tupletree.py:285-312: recursive `type(...) in types` "
            "tests building TupleTrees) -> `to_device` (`apply_leaf`: `.to(device)` per tensor)), `self.net(*input)` "
            "(MLPVanilla, torchtuples practical.py:67-84: two `DenseVanillaBlock`s (practical.py:47-64: Linear, "
            "ReLU, `if self.batch_norm:` BatchNorm1d, `if self.dropout:` Dropout, Python truthiness of submodules) "
            "and the output Linear), `tuplefy(out)`, a dict comprehension calling the loss with `*out, *target`) -> "
            "`NLLLogistiHazardLoss.forward` -> `nll_logistic_hazard` (models/loss.py:18-51: " + _CHECK + " (models/"
            "loss.py:40), " + _BOOL + ", `scatter`, BCE, `cumsum`, `gather`, 'mean')",
        ),
        Row(
            "r18b_pycox_deephit_dataset_batch", *PYCOX,
            "wrapper: pycox.models.data.DeepHitDataset(x (12, 3), (idx_durations (12,) int64, events (12,) float32))"
            "[index: a list of 8 of the 12 row numbers]; returns ((x_batch (8, 3),), (idx_durations (8,), events "
            "(8,), rank_mat (8, 8) float32)) as plain tuples",
            ("pycox", "torchtuples"), _r18b_deephit_dataset_batch, modes=INFERENCE,
            notes="inference only: the call reads a batch of labels and returns them with the rank matrix computed "
            "in numpy/numba (`torch.from_numpy` of a numba result has no gradient path; the labels have none "
            "anyway); it is how DeepHit (`DeepHitSingle.make_dataloader`, models/deephit.py:44-47) reads every "
            "training batch through torchtuples' `DataLoaderBatch`, which passes the batch sampler's list of ints; "
            "the batch holds ties (five rows at index 1, two of them events, three censored; 2 events in all, so "
            "two non-zero rows in the rank matrix); numba compiles "
            "`_pair_rank_mat` in the builder (its first call), not in the row's call; the wrapper only unpacks the "
            "two TupleTrees into tuples",
            patterns="`DeepHitDataset.__getitem__` (models/data.py:131-137) -> `DatasetTuple.__getitem__` "
            "(torchtuples data.py:90-93: `hasattr(index, '__iter__')` -> `self.data.iloc[index]`, tupletree.py:"
            "592-597: `x[index]` with a Python list of ints per tensor (an index read)) -> `target.to_numpy()` "
            "(tupletree.py:427-430 -> `tensor_to_numpy`, tupletree.py:149-156: `.detach()`, `.cpu().numpy()`: the "
            "labels leave torch) -> `pair_rank_mat` (models/data.py:109-128: `reshape`, `len`, `np.zeros((n, n))`) "
            "-> the `@numba.njit` `_pair_rank_mat` (models/data.py:94-107: for each row `if ev_i == 0: continue`, "
            "then a pairwise duration comparison with the tie rule, writing `mat[i, j] = 1`) -> `tt.tuplefy(*target, "
            "rank_mat).to_tensor()` (`type_of` tests, `torch.from_numpy` per array) -> `tt.tuplefy(input, target)`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round eighteen (b)")
