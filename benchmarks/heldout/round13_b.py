"""Held-out round thirteen (r13b): torchsurv and mixture-of-attention.

Chosen by reading each library's source, written down in ROUND13.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

torchsurv's losses and metrics validate their inputs with pydantic models
(tools/validators.py) whose validators test tensors in Python: ``if not
event.any(): raise``, ``if torch.any(time < 0.0): raise``, ``if
torch.any(torch.isnan(...))`` / ``isinf`` raises, ``torch.equal`` of a sorted
copy and ``len(torch.unique(...))`` for new times, ``(time[:-1] ==
time[1:]).nonzero().tolist()`` with a ``torch.allclose`` per tied pair for
time-varying Cox.  The Cox loss (loss/cox.py) starts with ``event.sum().item()
== 0``, loops over ``torch.unique(strata)`` with boolean-mask selections,
decides ``has_ties`` from ``len(torch.unique(...))`` of the masked event times,
``warnings.warn``s on ties, and in Efron takes ``int(m.max().item())`` as the
width of a padded tensor; the time-varying paths build per-unique-time lists of
``torch.where(cond)[0]`` index tensors.  The discrete-time likelihood
(loss/survival.py) loops over subjects with a boolean-mask selection of the
evaluation grid per subject (data-sized ``torch.trapezoid`` inputs) and
searchsorted index setitems.  The metrics: the Kaplan-Meier estimator
(stats/kaplan_meier.py, used by ``get_ipcw`` and ``Auc``) groups the sorted times
with ``itertools.groupby`` keyed on 0-d tensors (tensor ``==`` into Python) and
``.item()``s every event and time; ``get_ipcw`` selects by ``ct > 0`` and tests
``if torch.any(ct == 0.0)``; ``ConcordanceIndex`` walks the sorted times with
``while end < n and time[order[end]] == time_i``, ``if event[order[j]]:``, a
dict of masks, ``assert event_i`` and a Python accumulation loop, then its
Noether variance uses ``sum(self.weight)`` (a Python sum over a tensor) and
``if cindex_se > 0`` / ``if self.cindex >= 0.5``; ``BrierScore`` raises on
``torch.any(estimate < 0)``, loops over the evaluation times, and its
confidence interval tests ``if torch.any(se) == 0``; ``Auc`` takes its
evaluation times from ``torch.unique(time[event & (time < max)])`` (a
data-sized output), writes ``mask[torch.nonzero(ties) - 1] = False`` per time,
and its integral and Blanche interval run Kaplan-Meier again, Python loops with
``if f[i] > eps`` and ``range(torch.sum(new_time <= tmax))``.  No torchsurv row
is a control.

mixture-of-attention routes tokens to attention experts with CoLT5's
``CoordinateDescentRouter``: 20 coordinate-descent iterations (a Python loop
with ``max(eps * decay, eps)`` on floats, ``torch.Tensor([k])`` built inside the
call), then ``scores.topk`` whose indices select the routed tokens
(``batched_gather`` advanced indexing), and the outputs are scattered back with
``scatter_add`` and a ``counts == 0`` mask choosing a learned null token.  The
default ``flash_attn=True`` enters ``torch.backends.cuda.sdp_kernel(...)``, a
deprecated context manager that calls ``warnings.warn(FutureWarning)`` on every
call.  The autoregressive variant (through the package's ``Transformer``)
windows the sequence (``pad_to_multiple`` with ``m.is_integer()``, a shape test)
and adds local-attention's windowed causal attention.  The control routes
nothing: with ``num_routed_*`` at least the sequence lengths the routers return
early on a shape test, and ``flash_attn=False`` takes the einsum attention.
Importing either library leaves torch's default dtype/device, grad mode,
threads and function modes alone (see ROUND13.md; torchsurv's import runs
``torch.jit.script`` once and, through torchmetrics/scipy, adds two warnings
filters).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCHSURV = ("torchsurv", "0.2.0")
MOA = ("mixture-of-attention", "0.0.25")
MOA_MODULES = ("mixture_of_attention", "colt5_attention", "local_attention")


# --- torchsurv helpers ---------------------------------------------------------------


def _r13b_survival_data() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """16 subjects in two strata, shuffled: stratum 0 has tied event times (2, 2 and 3, 3),
    stratum 1 has none; 12 events, 4 censored."""
    perm = torch.randperm(16)
    time = torch.tensor([1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 5.0, 6.0, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5])
    event = torch.tensor([1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0]).bool()
    strata = torch.tensor([0] * 8 + [1] * 8)
    return time[perm], event[perm], strata[perm]


def _r13b_brier_ipcw(estimate: torch.Tensor, event: torch.Tensor, time: torch.Tensor,
                     new_time: torch.Tensor) -> Any:
    """IPCW Brier score as torchsurv's docs write it: ``get_ipcw`` at the subjects' times and at
    ``new_time``, ``BrierScore()(...)``, then ``integral()`` and the parametric ``confidence_interval()``."""
    from torchsurv.metrics.brier_score import BrierScore
    from torchsurv.stats.ipcw import get_ipcw

    weight = get_ipcw(event, time)
    weight_new_time = get_ipcw(event, time, new_time)
    brier = BrierScore()
    score = brier(estimate, event, time, new_time=new_time, weight=weight, weight_new_time=weight_new_time)
    return score, brier.integral(), brier.confidence_interval(), weight, weight_new_time


def _r13b_cindex_uno(estimate: torch.Tensor, event: torch.Tensor, time: torch.Tensor) -> Any:
    """Uno's C: ``ConcordanceIndex()(estimate, event, time, weight=get_ipcw(event, time))``, then the
    Noether ``confidence_interval()`` and ``p_value()``."""
    from torchsurv.metrics.cindex import ConcordanceIndex
    from torchsurv.stats.ipcw import get_ipcw

    cindex = ConcordanceIndex()
    c = cindex(estimate, event, time, weight=get_ipcw(event, time))
    return c, cindex.confidence_interval(), cindex.p_value()


def _r13b_auc(estimate: torch.Tensor, event: torch.Tensor, time: torch.Tensor) -> Any:
    """Cumulative/dynamic AUC at every event time (``new_time`` left to the metric), then
    ``integral()`` and the Blanche ``confidence_interval()`` and ``p_value()``."""
    from torchsurv.metrics.auc import Auc

    auc = Auc()
    a = auc(estimate, event, time)
    return a, auc.integral(), auc.confidence_interval(), auc.p_value()


# --- torchsurv builders --------------------------------------------------------------


def _r13b_ts_cox_efron_strata(training: bool) -> Built:
    from torchsurv.loss.cox import neg_partial_log_likelihood

    time, event, strata = _r13b_survival_data()
    log_hz = torch.randn(16)
    return neg_partial_log_likelihood, (log_hz, event, time), {"ties_method": "efron", "strata": strata}


def _r13b_ts_cox_time_varying_breslow(training: bool) -> Built:
    from torchsurv.loss.cox import neg_partial_log_likelihood

    time = torch.tensor([1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 4.0, 5.0, 6.0, 7.0])[torch.randperm(10)]
    event = torch.tensor([1, 1, 1, 0, 1, 0, 1, 1, 0, 1]).bool()
    # log hazard of subject i at the time of subject j: a_i + b_i * time_j (so columns of tied
    # times are equal, as the validator requires)
    log_hz = torch.randn(10, 1) + 0.1 * torch.randn(10, 1) * time[None, :]
    return neg_partial_log_likelihood, (log_hz, event, time), {"ties_method": "breslow"}


def _r13b_ts_survival_nll(training: bool) -> Built:
    from torchsurv.loss.survival import neg_log_likelihood

    _, event, _ = _r13b_survival_data()
    time = torch.rand(16) * 9.0
    eval_time = torch.linspace(0.0, 9.0, 10)
    log_hz = torch.randn(16, 10)
    return neg_log_likelihood, (log_hz, event, time, eval_time), {}


def _r13b_ts_brier(training: bool) -> Built:
    import torchsurv.metrics.brier_score  # noqa: F401
    import torchsurv.stats.ipcw  # noqa: F401

    time, event, _ = _r13b_survival_data()
    estimate = torch.rand(16, 4)  # survival probabilities at new_time
    new_time = torch.tensor([2.0, 3.0, 4.5, 6.0])
    return _r13b_brier_ipcw, (estimate, event, time, new_time), {}


def _r13b_ts_cindex(training: bool) -> Built:
    import torchsurv.metrics.cindex  # noqa: F401
    import torchsurv.stats.ipcw  # noqa: F401

    time, event, _ = _r13b_survival_data()
    return _r13b_cindex_uno, (torch.randn(16), event, time), {}


def _r13b_ts_auc(training: bool) -> Built:
    import torchsurv.metrics.auc  # noqa: F401

    time, event, _ = _r13b_survival_data()
    return _r13b_auc, (torch.randn(16), event, time), {}


# --- mixture-of-attention builders ---------------------------------------------------


def _r13b_moa_routed_mask(training: bool) -> Built:
    from mixture_of_attention import MixtureOfAttention

    module = MixtureOfAttention(dim=16, num_routed_queries=4, num_routed_key_values=6, num_experts=2,
                                dim_head=8, heads=2, use_triton=False, average_routed=True)
    x = torch.randn(2, 12, 16)
    mask = torch.ones(2, 12, dtype=torch.bool)
    mask[1, 9:] = False
    return module, (x,), {"mask": mask}


def _r13b_moa_autoregressive_transformer(training: bool) -> Built:
    from mixture_of_attention.transformer import Transformer

    module = Transformer(dim=16, num_tokens=32, depth=1, seq_len=14, local_attn_window_size=4,
                         num_routed_queries=3, num_routed_key_values=5, num_experts=2, dim_head=8,
                         heads=2, use_triton=False)
    return module, (torch.randint(0, 32, (2, 14)),), {}


def _r13b_moa_cross_unrouted(training: bool) -> Built:
    from mixture_of_attention import MixtureOfAttention

    module = MixtureOfAttention(dim=16, dim_context=12, num_routed_queries=10, num_routed_key_values=8,
                                num_experts=2, dim_head=8, heads=2, use_triton=False, flash_attn=False)
    context_mask = torch.ones(2, 8, dtype=torch.bool)
    context_mask[0, 6:] = False
    return module, (torch.randn(2, 10, 16),), {"context": torch.randn(2, 8, 12), "context_mask": context_mask}


# --- rows -----------------------------------------------------------------------------

METRIC_NO_GRAD = ("inference only: the metric's value is built from comparisons and counts "
                  "(`est_j < est_i`, `is_case`/`is_control` masks, cumsums of 0/1 weights), so it has no "
                  "gradient path to the estimate")


def _rows() -> list[Row]:
    return [
        Row(
            "r13b_ts_cox_efron_strata_ties", *TORCHSURV,
            "torchsurv.loss.cox.neg_partial_log_likelihood(log_hz (16,), event (16,) bool, time (16,), "
            "ties_method='efron', strata (16,) long)",
            ("torchsurv",), _r13b_ts_cox_efron_strata,
            frozen=("2",),
            notes="two strata, shuffled: stratum 0 has tied event times (Efron), stratum 1 none (plain Cox); "
            "time is integer-valued event data, so it is frozen; the loss casts log_hz to float32 "
            "(ModelInputs `.float()`)",
            patterns="`if any([event.sum().item() == 0, ...])`; pydantic `SurvivalInputs` (`if not "
            "event.any(): raise`, `torch.any(isnan)`/`isinf` raises, `if torch.any(time < 0.0): raise`, "
            "`len` checks) and `ModelInputs` (`.float()`, isnan raise, shape tests); `torch.sort`, "
            "`torch.unique(strata)` and a Python loop over its elements with boolean-mask selections; "
            "`has_ties = len(torch.unique(time[event])) != len(time[event])`; `warnings.warn('Ties in "
            "`time` detected; ...')` (stratum 0); `_partial_likelihood_efron`: `torch.unique`, "
            "`len(time_unique)`, searchsorted via `.cpu()`, `time_to_k[event]` mask, `scatter_add_` into "
            "zeros, `max_ties = max(1, int(m.max().item()))` sizing an arange and a (K, max_ties) padded "
            "tensor, `[include]` mask; `_partial_likelihood_cox` (stratum 1): flip/logcumsumexp, "
            "`[event_sorted]` mask; `torch.cat`, `nanmean`",
        ),
        Row(
            "r13b_ts_cox_time_varying_breslow", *TORCHSURV,
            "torchsurv.loss.cox.neg_partial_log_likelihood(log_hz (10, 10) time-varying, event (10,), "
            "time (10,), ties_method='breslow')",
            ("torchsurv",), _r13b_ts_cox_time_varying_breslow,
            frozen=("2",),
            notes="extended Cox model: log_hz[i, j] is subject i's log hazard at subject j's time "
            "(a_i + b_i t_j in the build, so tied times have equal columns); ties at t=2 and t=4",
            patterns="`event.sum().item() == 0`; SurvivalInputs/ModelInputs raises as in the Efron row "
            "(plus the (n, n) shape test); `log_hz[idx[:, None], idx]`; `TimeVaryingCoxInputs`: `(time[:-1] "
            "== time[1:]).nonzero().squeeze(1)`, `for i in tie_indices.tolist(): if not "
            "torch.allclose(log_hz[:, i], log_hz[:, i + 1]): raise`; `torch.unique(strata)` loop; "
            "`has_ties` from `len(torch.unique(...))`; `warnings.warn`; `_partial_likelihood_breslow` "
            "time-varying: `K = len(torch.unique(time))`, per-time lists `torch.where((time == t_k) & "
            "event)[0]` and `torch.where(time >= t_k)[0]` (data-sized index tensors), "
            "`torch.tensor([len(h) for h in H])`, `torch.tensor([len(h) > 0 ...])`, gathers `log_hz[h, h]`, "
            "`log_hz[R[k]][:, H[k]][:, :1]` logsumexp (empty for censored-only times), `torch.stack`, "
            "`[include]` mask",
        ),
        Row(
            "r13b_ts_survival_nll_eval_grid", *TORCHSURV,
            "torchsurv.loss.survival.neg_log_likelihood(log_hz (16, 10), event (16,), time (16,), "
            "eval_time (10,) = linspace(0, 9, 10))",
            ("torchsurv",), _r13b_ts_survival_nll,
            frozen=("2", "3"),
            notes="discrete-time hazard model: each subject's log hazard on a 10-point grid; time and the "
            "grid are data, frozen; the gradient reaches log_hz through per-subject setitems",
            patterns="`event.sum().item() == 0`; SurvivalInputs/ModelInputs raises; `EvalTimeInputs` "
            "(`if torch.any(eval_times[:-1] >= eval_times[1:]): raise`, shape tests); "
            "`_cumulative_hazard_trapezoid(respective_times=True)`: `for t in range(16)`: `mask_time = "
            "eval_time <= time[t]`, `eval_time[mask_time]` and `log_hz[t, mask_time]` (data-sized "
            "selections), `torch.trapezoid`, setitem `cum_hazard[t] = ...`; `for i in range(16)`: "
            "`torch.searchsorted(eval_time, time[i]) - torch.tensor(1)`, setitem `log_hz_at_time[i] = "
            "log_hz[i, idx.clamp(min=0)]` (0-d tensor index); mean",
        ),
        Row(
            "r13b_ts_brier_ipcw_integral_ci", *TORCHSURV,
            "wrapper: torchsurv get_ipcw(event, time), get_ipcw(event, time, new_time), BrierScore()(estimate "
            "(16, 4), event, time, new_time=(2, 3, 4.5, 6), weight=..., weight_new_time=...), .integral(), "
            ".confidence_interval()",
            ("torchsurv",), _r13b_ts_brier,
            frozen=("2", "3"),
            notes="estimate are survival probabilities in [0, 1] (rand); the Brier score is differentiable "
            "in them, so training backprops the score, its integral and its interval; time and new_time "
            "are data, frozen; the IPCW weights carry no gradient",
            patterns="`get_ipcw` x2: device test, SurvivalInputs raises, `KaplanMeierEstimator(censoring_"
            "dist=True)`: `itertools.groupby(range(n), key=lambda i: time[order[i]])` (0-d tensor keys "
            "compared with `==` in Python), `sum(event[order[i]].item() ...)`, setitems from "
            "`time[...].item()`, in-place `n_at_risk -= n_events`, `torch.where`, cumprod; `predict`: "
            "`km_pred[extends] = ...`, `new_time[~extends]` masks, searchsorted, `idx[abs(...) >= eps] -= 1` "
            "boolean-mask in-place; `mask = ct > 0`, `ipcw[mask] = _inverse_censoring_dist(ct[mask])` "
            "(`if torch.any(ct == 0.0)` -> `nonzero().tolist()` + warn); BrierScore: `if torch.any(estimate "
            "< 0) or torch.any(estimate > 1): raise`, `NewTimeInputs` (`torch.equal` of a sort, "
            "`len(torch.unique)`), Python loop over new_time with setitems `residuals[:, i] = ...`; "
            "`integral()` (`len(new_time) == 1` test, trapezoid); `confidence_interval()`: `if "
            "torch.any(se) == 0:` (tensor into `if`)",
        ),
        Row(
            "r13b_ts_cindex_uno_ipcw_noether", *TORCHSURV,
            "wrapper: torchsurv ConcordanceIndex()(estimate (16,), event, time, weight=get_ipcw(event, "
            "time)), .confidence_interval(), .p_value() (Noether)",
            ("torchsurv",), _r13b_ts_cindex,
            modes=("inference",),
            notes=METRIC_NO_GRAD + "; Uno's C (IPCW weights from the Kaplan-Meier censoring estimate)",
            patterns="`get_ipcw` (Kaplan-Meier `itertools.groupby` on 0-d tensor keys, `.item()` per "
            "sample, boolean masks, `if torch.any(ct == 0.0)`); `_update_weight` (boolean-mask setitem); "
            "SurvivalInputs raises; `_get_comparable_and_tied_time`: `while i < n - 1`, `while end < n and "
            "time[order[end]] == time_i` (tensor compare in a while), `if event[order[j]]:` (tensor into "
            "`if`), mask setitems, dict of masks, `if len(comparable) == 0: raise`; main loop over the dict: "
            "`assert event_i` (tensor), tie/concordance masks `con[~ties].sum()`, Python `+=` accumulation "
            "of 0-d tensors, lists -> `torch.stack`; `_concordance_index_se`: `N = sum(self.weight)` (Python "
            "sum over a tensor), `if cindex_se > 0` (x2), Normal icdf/cdf, `if self.cindex >= "
            "torch.tensor(0.5)`, in-place `p *= 2`",
        ),
        Row(
            "r13b_ts_auc_cumulative_integral_blanche", *TORCHSURV,
            "wrapper: torchsurv Auc()(estimate (16,), event, time) (auc_type='cumulative', new_time from "
            "the data), .integral(), .confidence_interval(), .p_value() (Blanche)",
            ("torchsurv",), _r13b_ts_auc,
            modes=("inference",),
            notes=METRIC_NO_GRAD + "; new_time is left to the metric: the unique event times below the "
            "largest time (10 here), so the output length depends on the data",
            patterns="`_update_auc_new_time`: `mask = event & (time < max(time))`, `torch.unique(time[mask], "
            "return_inverse, return_counts)` (data-sized evaluation grid), sort/cumsum index; "
            "SurvivalInputs/NewTimeInputs raises (`torch.equal`, `len(torch.unique)`, `if new_time.max() >= "
            "time.max() or ...`); argsort/gather; per time: `mask_no_ties[torch.nonzero(is_tied) - 1] = "
            "False`, `tp[mask_no_ties]` (data-sized), `torch.trapz`, setitem; `integral()`: Kaplan-Meier "
            "(`itertools.groupby` on 0-d tensor keys, `.item()`), `predict` masks, `tmax_index = "
            "torch.sum(new_time <= tmax)` used as `range(tmax_index)`, `if f[i] > eps`/`if wT != 0.0` "
            "in Python loops; `confidence_interval()`/`p_value()`: `_auc_se` (Kaplan-Meier again, `if "
            "torch.any(time != sorted): raise`, Python loops over samples and times, (16, 16, 16) phi "
            "setitems), `if torch.all(auc_se) >= 0`, `if torch.all(auc_se >= 0.0)`, `p[mask] = 1 - p[mask]`",
        ),
        Row(
            "r13b_moa_routed_self_attn_padding_mask", *MOA,
            "mixture_of_attention.MixtureOfAttention(dim=16, num_routed_queries=4, num_routed_key_values=6, "
            "num_experts=2, dim_head=8, heads=2, use_triton=False, average_routed=True)(x (2, 12, 16), "
            "mask=(2, 12) bool, last 3 positions of sample 1 padded)",
            MOA_MODULES, _r13b_moa_routed_mask,
            notes="flash_attn=True (the default) on CPU: F.scaled_dot_product_attention inside the "
            "deprecated `torch.backends.cuda.sdp_kernel` context manager; use_triton=False (CPU)",
            patterns="two `CoordinateDescentRouter`s (colt5_attention): `if n <= num_tokens` (shape), "
            "einsum scores, `coor_descent`: `torch.Tensor([k]).to(s)` (legacy constructor of a Python float "
            "inside the call), masked_fill with the padding mask, 20-step Python loop with `max(eps * decay, "
            "eps)` on floats; `scores.topk(k)` -> straight-through scores, `batched_gather` of tokens and "
            "mask by the top-k indices (data-dependent selection); Attention: RMSNorm, grouped Conv1d, "
            "`F.pad(mask)`, `with torch.backends.cuda.sdp_kernel(...)` (`@deprecated` -> "
            "`warnings.warn(FutureWarning)` every call), SDPA with a bool mask; scatter back: "
            "`scatter_add` by the top-k indices, counts `scatter_add`, `not_routed_mask = counts == 0` "
            "-> masked_fill, `counts.clamp` average, `torch.where(not_routed_mask, null_routed_token, "
            "out)`, output masked_fill",
        ),
        Row(
            "r13b_moa_autoregressive_transformer", *MOA,
            "mixture_of_attention.transformer.Transformer(dim=16, num_tokens=32, depth=1, seq_len=14, "
            "local_attn_window_size=4, num_routed_queries=3, num_routed_key_values=5, num_experts=2, "
            "dim_head=8, heads=2, use_triton=False)(tokens (2, 14) int64)",
            MOA_MODULES, _r13b_moa_autoregressive_transformer,
            notes="the package's own language model over `MixtureOfAutoregressiveAttention` (flash_attn "
            "left at its default True, rotary embeddings on); 14 tokens with windows of 4 (padded to 16: "
            "3 routed windows); inputs are token ids, so training's gradients are on the parameters",
            patterns="embeddings, `RotaryEmbedding`; `MixtureOfAutoregressiveAttention`: `num_windows = "
            "ceil(n / w) - 1`, `if num_windows == 0` (shape), local_attention `LocalMHA` (causal windowed "
            "attention, autopad, look-around masks), `pad_to_multiple` (`m.is_integer()`), windowed "
            "context with a `tril` context mask; routers as in the routed row (`torch.Tensor([k])`, "
            "20-step coordinate descent, `topk` indices -> `batched_gather`), rotary gather by the top-k "
            "indices and `rotary_emb[kv_indices]`; Attention under `torch.backends.cuda.sdp_kernel` "
            "(FutureWarning every call); `scatter_add` of outputs and counts by the top-k indices, "
            "`fill_null_token = counts == 0 & ~mask` (precedence: `counts == (0 & ~mask)`), `torch.where` "
            "with per-expert null tokens, un-windowing, `reduce` sum, feed-forward, logits",
        ),
        Row(
            "r13b_moa_cross_attn_unrouted_control", *MOA,
            "mixture_of_attention.MixtureOfAttention(dim=16, dim_context=12, num_routed_queries=10, "
            "num_routed_key_values=8, num_experts=2, dim_head=8, heads=2, use_triton=False, "
            "flash_attn=False)(x (2, 10, 16), context=(2, 8, 12), context_mask=(2, 8) bool)",
            MOA_MODULES, _r13b_moa_cross_unrouted,
            notes="control: the routed counts equal the sequence lengths, so both routers return early on "
            "a shape test (no top-k, no scatter) and flash_attn=False avoids the deprecated context "
            "manager; the router tokens and the null routed token get no gradient on this path",
            patterns="control: routers `if n <= num_tokens` (shape) -> `repeat` x per expert, ones scores; "
            "Attention: RMSNorm, grouped Conv1d, null key/values, `F.pad(context_mask)`, Attend einsum "
            "path with `masked_fill(~mask)` (the input mask), softmax; `need_route_queries` is a Python "
            "`is not None` test; `reduce(..., 'mean')` over experts",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round thirteen (b)")
