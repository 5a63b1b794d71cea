"""Held-out round twenty (r20b): heavyball.

Chosen by reading the library's source, written down beside this file before any
row was run under graphmend, torch.compile or Dynamo (each row was only checked to
build and run eagerly, twice from fresh builds in separate processes, with
bit-identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
gradients, nothing downloaded, nothing written to disk); every row is an optimizer
row of one mode only, as in round six: ``modes=("inference",)``, because the step
runs under ``torch.no_grad`` and returns the parameters detached (no gradient
path; ``OPTIMIZER_NOTE``).

heavyball 3.2.1 (Lucas Nestler's "compile-first" optimizer library) builds every
optimizer as a ``ChainOpt``/``BaseOpt`` (chainable.py:2421-2731): a tuple of
transforms (``FunctionTransform`` subclasses: ``ZeroGuard``/``CopyGuard``/
``GeneralGuard`` create state on a parameter's first step, ``WarmupGuard`` runs
warm-up functions first, ``BucketGuard`` stacks same-shape parameters into a slab,
``SqueezeGrad`` drops unit dims) run by ``chain`` (chainable.py:2314-2359) on a
clone of the gradient, ending either in a fused ``update_by_*`` that writes the
parameter itself (returns ``_SKIP``) or in ``update_param_``.  Families: SGD/AdamW/
NAdam/AdEMAMix/LaProp/ADOPT (elementwise), Muon/MuonLaProp/Scion (orthogonalised
updates), SOAP/KLSOAP/KLShampoo (Shampoo eigenbases), PSGDKron/PSGDPRO/QSGD/LATHER/
PSGDLRA (PSGD preconditioners fitted by stochastic Lie-group steps), SFAdamW and
MSAMLaProp (schedule-free and momentum-SAM, with ``train()``/``eval()``), plus
options shared by all: ``caution`` (mask the update where it disagrees in sign
with the gradient), ``mars`` (MARS gradient correction), ``palm`` (beta2 schedule),
``warmup_steps`` (lr warm-up), ``gradient_clipping``/``update_clipping`` (a
``heavyball.utils`` function by name), ``storage_dtype`` (bf16 state with
stochastic rounding), ``multi_tensor`` (one chain over all parameters, or one per
parameter).  Every row steps a ``Linear(4, 3)`` whose weight and bias carry a
seeded random ``.grad`` (round six's ``linear_with_grads``) twice with round six's
``optimizer_steps`` and returns the parameters after.

Internal compilation, turned off in every builder: most numeric kernels are wrapped
by ``decorator_knowngood``/``decorator_no_fullgraph`` (utils.py:96-112), which on
their first call outside Dynamo build ``fusions.compile(func, fullgraph=...,
mode=compile_mode)`` = ``torch.compile(fn, backend=inductor_backend)`` (fusions.py:
317-347, an inductor backend with custom post-grad passes) unless the module global
``heavyball.utils.compile_mode`` is ``None`` (default ``"max-autotune-no-cudagraphs"``,
utils.py:25); ``decorator`` (utils.py:81-93) compiles only when
``compile_mode_recommended_to_none`` is set (default ``None``); ``compile_step=True``
would ``torch.compile`` the whole chain (chainable.py:2439-2440, default False).  Each
builder sets ``heavyball.utils.compile_mode = None`` (a process-wide module global,
left set) and passes ``compile_step=False``, so every row runs eagerly; under
Dynamo the wrappers call the plain function (``is_compiling()``).  Independently of
that switch, six linear-algebra calls are ``torch.compiler.disable``-wrapped
(``no_compile_qr``/``eigh``/``solve``/``svd``/``lobpcg``/``solve_triangular``,
utils.py:117-122) and every ``step`` enters ``torch._dynamo.utils.disable_cache_limit()``
(utils.py:1881), which sets ``torch._dynamo.config.recompile_limit`` and
``accumulated_recompile_limit`` to ``sys.maxsize`` for the duration of the step and
restores them after.  All rows pass ``consume_grad=False`` (a documented
``StatefulOptimizer`` attribute, utils.py:1542-1551): by default the step sets
``p.grad = None`` (utils.py:1647-1648), so a second ``step()`` without a new backward
finds no gradient and only increments ``step_count`` (chainable.py:2583-2585).

The data-dependent code on the rows' paths (file:line relative to the ``heavyball``
package).  Shared by every row: ``StatefulOptimizer.step`` (utils.py:1871-1890) asks
``psgd_should_update`` (utils.py:3558-3564: a Python float accumulated in
``inner_group`` and ``int(...) > int(...)``) whether to precondition, when the
optimizer has a ``precond_schedule``; ``ChainOpt._step_inner`` (chainable.py:
2572-2606) makes the step count a 0-d int64 tensor (``scalar_guard``, utils.py:
1133-1147) and the lr a 0-d tensor ``base_lr * step / step.clamp(min=warmup_steps +
1)`` (chainable.py:2594); ``not group["multi_tensor"] or len(p) == 1`` picks one chain
per parameter.  Tensor values read into Python: ``get_beta2`` with ``palm=True`` runs
``step = max(group.get("step", 1), 1)`` (utils.py:1106-1109: Python ``max`` of the
tensor step and 1, a ``bool`` of a tensor comparison), then ``1 - step **
-beta2_scale``; ``_compute_ademamix_hparams`` (utils.py:324-337) runs ``step =
int(step)`` on the tensor step and the warm-up schedulers compare it in Python
(``if step < warmup``, ``math.log``/``math.pow``, ``min(max(beta, 0.0), 1.0 -
eps)``, utils.py:293-321); PSGD's ``precond_init_scale`` (utils.py:2524-2576), on a
parameter's first step, computes ``mean_root(grad, 4) ** 0.5``, reads it by
``scale.item()`` ("slow, but necessary", utils.py:2551-2552), tests
``np.isfinite(scale)`` and ``scale > scale_max`` (with a ``warn_once`` arm) and, on a
non-finite scale, ``torch.allclose`` and ``torch.isfinite(x).all().item()`` before a
``raise``; PSGDKron's and PSGDPRO's preconditioner updates end by ``float_prob =
prob(group["step"])`` (chainable.py:1613-1617, 1650-1654), the default schedule
``max(min_prob, max_prob * decay ** max(n - flat_start, 0))`` (utils.py:3772-3775)
evaluated on the tensor step (two Python ``max`` of tensors), and ``cached and
float_prob < 0.5`` (a tensor ``bool`` when ``cached=True``).  Data-dependent control
flow and indexing in tensor code: SOAP's and LATHER's first step builds eigenbases
by ``_stable_symmetric_basis`` (utils.py:1030-1066: ``while True: try:
no_compile_eigh(m + eps * I)`` whose ``except RuntimeError`` arms move to float64
and raise ``eps`` until ``max_eps``: a retry loop driven by the decomposition's
success) and returns ``_SKIP`` (no parameter update on the first step,
``GeneralGuard`` with ``skip_first``, chainable.py:366-380); SOAP's later steps
re-orthogonalise by ``get_orthogonal_matrix_QR`` (utils.py:859-944: ``argsort`` of
the Rayleigh quotients, ``gather``/``scatter`` by that order, ``torch.linalg.qr``,
sign fixes by ``torch.where``); LATHER's by ``get_psgd_eigenbasis`` (utils.py:
991-1017: ``no_compile_qr``, ``argsort``, ``gather``); PSGDKron's fit
(``psgd_update_precond``, utils.py:3143-3181) solves triangular systems through
``no_compile_solve_triangular`` (utils.py:2953-2966) and estimates eigenvalues by
``max_eigenvalue_spd`` (utils.py:3037-3057: the row of largest norm picked by
``max(dim=-1)`` and ``gather``, a fixed number of power iterations); PSGDPRO's
(``psgd_pro_update_precond``, utils.py:3184-3233) adds ``max_singular_value``
(utils.py:3026-3034, shape tests then ``max_singular_value_power_iter``) and a
``torch.where(c2 < 0, ...)`` step size; PSGDLRA's (``update_lra_precond_``, utils.py:
2732-2807) wraps ``torch.linalg.lu_factor`` in ``try/except RuntimeError`` (an early
return that skips the update) and picks one element by ``divisor.bfloat16().flatten()
.argmax()`` and ``index_select`` (``_compilable_d_step``, utils.py:2682-2729);
``dampen_grad`` (utils.py:2819-2823) and PSGDPRO draw ``torch.randn_like`` probes.
Muon's Newton-Schulz (``zeropower_via_newtonschulz5``, utils.py:580-607) asserts the
rank, stochastically rounds its input to bf16 (``stochastic_round_``, utils.py:
2397-2411: ``torch.randint_like`` dither on the int32 view, ``bitwise_and``), so
the step draws from torch's generator (seeded before the call), and transposes by a
Python shape test; the same rounding runs on every state write of a bf16
``storage_dtype`` (``copy_stochastic_``, utils.py:2419-2426).  ``caution`` masks by
``g.signbit() ^ update.signbit()``, ``masked_fill`` and rescales by ``numel / (numel -
mask.sum()).clamp(min=1)`` (utils.py:3722-3728), in tensors only.  SFAdamW's
``update_by_schedule_free`` (chainable.py:935-965) runs ``abs(group["lr"]) **
weight_lr_power`` on the tensor lr, an identity test ``group.get("_sf_step") is not
group["step"]``, accumulates ``weight_sum`` from the Python ``0`` into a tensor and
divides inside ``try: ... except ZeroDivisionError`` (a tensor division never
raises).  Controls (no tensor value reaches Python): LaProp with bf16 state and SGD
with gradient and update clipping (``l2_clip_``/``trust_region_clip_`` compare only
Python floats, ``max(clip_at, eps)``, utils.py:3290-3314, 3501-3519).  No row's step
warns or logs.

Global state on import (checked in one process, before and after ``import
heavyball``): it imports ``torch._dynamo`` and ``torch._inductor`` (``from
torch._dynamo.exc import TorchDynamoException``, utils.py:17, and the
``torch.compiler.disable`` wrappers, utils.py:117-122) with sympy, mpmath and numpy;
importing sympy adds one warning filter (``once`` for ``SymPyDeprecationWarning``);
81 new loggers with no level or handler of their own; the root logger untouched.
Unchanged: torch's default dtype, grad mode, intra-/inter-op threads, deterministic
flag, float32 matmul precision, cuDNN and TF32 flags, ``torch.backends.opt_einsum``
(enabled, strategy), anomaly mode, print options, RNG state, ``os.environ``, every
``torch._dynamo.config`` and ``torch._inductor.config`` value.  ``utils.set_torch``
(utils.py:547-577) would change cuDNN, matmul-precision, opt_einsum and warning
settings, but only when called; nothing on import or on a row's path calls it.

Library bugs (checked eagerly; no row takes these paths): (1)
``SOAP(use_precond_schedule=True)`` (any SOAP variant with the schedule) fails on its
first ``step()``: ``psgd_should_update`` calls the schedule with the Python step
count (utils.py:3561) but ``precond_schedule`` (utils.py:2466-2470) expects a tensor:
``AttributeError: 'int' object has no attribute 'clamp'``.  (2)
``gradient_clipping="adaptive_gradient_clipping_"`` (or as ``update_clipping``) is
accepted by name (``apply_to_idx``, chainable.py:1972-1983, looks any callable up in
``heavyball.utils``) but called with the update list only, while the function takes
``(parameters, gradients, clip_val)`` (utils.py:485-493): ``TypeError: ...missing 2
required positional arguments: 'gradients' and 'clip_val'`` on the first step.
"""

from __future__ import annotations

from typing import Any

from benchmarks.ecosystem import Built, Row, row_lookup
from benchmarks.heldout.round6 import linear_with_grads, optimizer_steps

HEAVYBALL = ("heavyball", "3.2.1")

OPTIMIZER_NOTE = ("optimizer steps on the .grad set in make, under torch.no_grad (StatefulOptimizer.step); returns "
                  "the parameters detached: no gradient path; heavyball's internal torch.compile is off "
                  "(heavyball.utils.compile_mode = None, compile_step=False) and consume_grad=False keeps the "
                  "gradient for the second step")
INFERENCE = ("inference",)


def _r20b_optimizer(name: str, **kwargs: Any) -> Built:
    """``heavyball.<name>`` on a seeded ``Linear(4, 3)`` with gradients, eager (internal compilation off), keeping
    the gradients between steps; two ``step()``s."""
    import heavyball

    heavyball.utils.compile_mode = None  # no decorator_knowngood function calls torch.compile
    model = linear_with_grads()
    optimizer = getattr(heavyball, name)(model.parameters(), compile_step=False, consume_grad=False, **kwargs)
    return optimizer_steps, (optimizer, 2), {}


def _r20b_adamw_palm_caution(training: bool) -> Built:
    return _r20b_optimizer("AdamW", lr=0.01, weight_decay=0.01, palm=True, caution=True, cautious_weight_decay=True)


def _r20b_ademamix_warmup(training: bool) -> Built:
    return _r20b_optimizer("AdEMAMix", lr=0.01, beta3_warmup=4, alpha_warmup=4, multi_tensor=False)


def _r20b_psgd_kron_cached(training: bool) -> Built:
    return _r20b_optimizer("PSGDKron", lr=0.01, cached=True)


def _r20b_psgd_pro_half_prob(training: bool) -> Built:
    return _r20b_optimizer("PSGDPRO", lr=0.01, preconditioner_update_probability=0.5)


def _r20b_psgd_lra(training: bool) -> Built:
    return _r20b_optimizer("PSGDLRA", lr=0.01, rank=2)


def _r20b_lather(training: bool) -> Built:
    return _r20b_optimizer("LATHER", lr=0.01)


def _r20b_soap(training: bool) -> Built:
    return _r20b_optimizer("SOAP", lr=0.01, precondition_frequency=1)


def _r20b_muon(training: bool) -> Built:
    return _r20b_optimizer("Muon", lr=0.01)


def _r20b_sfadamw_warmup(training: bool) -> Built:
    return _r20b_optimizer("SFAdamW", lr=0.01, warmup_steps=2, weight_decay=0.01)


def _r20b_adopt_mars_caution(training: bool) -> Built:
    return _r20b_optimizer("ADOPT", lr=0.01, mars=True, caution=True)


def _r20b_laprop_bf16_control(training: bool) -> Built:
    return _r20b_optimizer("LaProp", lr=0.01, storage_dtype="bfloat16")


def _r20b_sgd_clipping_control(training: bool) -> Built:
    return _r20b_optimizer("SGD", lr=0.01, gradient_clipping="l2_clip_", update_clipping="trust_region_clip_",
                           multi_tensor=False)


_STEP = ("`StatefulOptimizer.step` (utils.py:1871-1890: `disable_cache_limit()`, `torch.no_grad`) -> "
         "`ChainOpt._step_inner` (chainable.py:2572-2606: tensor step via `scalar_guard`, tensor lr "
         "`base_lr * step / step.clamp(min=warmup_steps + 1)`, the `multi_tensor`/`len(p) == 1` test)")
_PSGD_INIT = ("first step `precond_init_scale` (utils.py:2524-2576: `mean_root(grad, 4)`, `scale.item()`, "
              "`np.isfinite(scale)`, `scale > scale_max`) in `init_Q_exprs` (utils.py:2592-2651)")
_PROB = ("`prob(group['step'])` on the tensor step: `max(min_prob, max_prob * decay ** max(n - flat_start, 0))` "
         "(utils.py:3772-3775, two Python `max` of tensors)")


def _rows() -> list[Row]:
    return [
        Row(
            "r20b_adamw_palm_caution", *HEAVYBALL,
            "heavyball.AdamW(linear.parameters(), lr=0.01, weight_decay=0.01, palm=True, caution=True, "
            "cautious_weight_decay=True, compile_step=False, consume_grad=False).step() x2; returns the parameters",
            ("heavyball",), _r20b_adamw_palm_caution, modes=INFERENCE,
            notes="PaLM's beta2 schedule reads the tensor step into a Python max; caution and cautious weight decay "
            "mask by sign agreement (fused into update_by_adam); " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `palm_beta2` (chainable.py:1965-1969: tensor `1 - step ** -beta2_scale` written into "
            "group['betas']); `update_by_adam` -> `fused_adam_` (chainable.py:774-792, utils.py:1978-2021) -> "
            "`get_beta2`: `step = max(group.get('step', 1), 1)` (utils.py:1106-1109, bool of a tensor comparison); "
            "`_compilable_update_` (utils.py:2429-2446): `_compilable_cautioning` (utils.py:3722-3728: signbit xor "
            "mask, masked_fill, `numel / (numel - mask.sum()).clamp(min=1)`) and the cautious-decay mask",
        ),
        Row(
            "r20b_ademamix_warmup", *HEAVYBALL,
            "heavyball.AdEMAMix(linear.parameters(), lr=0.01, beta3_warmup=4, alpha_warmup=4, multi_tensor=False, "
            "compile_step=False, consume_grad=False).step() x2; returns the parameters",
            ("heavyball",), _r20b_ademamix_warmup, modes=INFERENCE,
            notes="AdEMAMix with alpha and beta3 warm-ups: the schedulers take the step as a Python int; one chain "
            "per parameter (multi_tensor=False); " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `update_by_ademamix` -> `fused_ademamix_` (utils.py:2192-2239) -> "
            "`_compute_ademamix_hparams` (utils.py:324-337: `step = int(step)` on the tensor step, `len(betas)` "
            "test with a raise), `linear_warmup_scheduler`/`linear_hl_warmup_scheduler` (utils.py:293-321: `if step "
            "< warmup`, math.log/math.pow, `min(max(beta, 0.0), 1.0 - eps)`), then `scalar_guard` of the Python "
            "floats back into tensors; EMA lerps",
        ),
        Row(
            "r20b_psgd_kron_cached", *HEAVYBALL,
            "heavyball.PSGDKron(linear.parameters(), lr=0.01, cached=True, compile_step=False, consume_grad=False)"
            ".step() x2; returns the parameters",
            ("heavyball",), _r20b_psgd_kron_cached, modes=INFERENCE,
            notes="Kronecker-factored PSGD (triangular Q factors for both weight dims, a diagonal one for the bias, "
            "shape-bucketed by BucketGuard); the cache test reads the update-probability schedule evaluated on a "
            "tensor; "
            "trust_region_clip_ as the default update clipping; " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `psgd_should_update` (utils.py:3558-3564, Python floats); `BucketGuard` "
            "(chainable.py:544-629: same-shape buckets, `torch.stack`), `SqueezeGrad`, " + _PSGD_INIT + ", "
            "`triu_to_line` (utils.py:3523-3533: `torch.triu_indices`); `_update_psgd_precond` (chainable.py:"
            "1575-1620): `dampen_grad` randn_like (utils.py:2819-2823), `psgd_update_precond` (utils.py:3143-3181: "
            "`no_compile_solve_triangular` (a torch.compiler.disable wrapper), `max_eigenvalue_spd` (utils.py:"
            "3037-3057: max/gather, power iterations), `_update_lb` maximum), then " + _PROB + " and `cached and "
            "float_prob < 0.5` (bool of a tensor); `psgd_precond_grad` einsums; `trust_region_clip_` (utils.py:"
            "3501-3519)",
        ),
        Row(
            "r20b_psgd_pro_half_prob", *HEAVYBALL,
            "heavyball.PSGDPRO(linear.parameters(), lr=0.01, preconditioner_update_probability=0.5, "
            "compile_step=False, consume_grad=False).step() x2; returns the parameters",
            ("heavyball",), _r20b_psgd_pro_half_prob, modes=INFERENCE,
            notes="PSGD with the Procrustes (Q0.5EQ1.5) Q-update; with probability 0.5 the Python accumulator "
            "skips the preconditioner update on the first step and takes it on the second; " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `psgd_should_update` (utils.py:3558-3564: `int(0.5) > int(0)` false, then "
            "`int(1.0) > int(0.5)` true); " + _PSGD_INIT + "; `_update_psgd_pro_precond` (chainable.py:"
            "1623-1657: `if not group['is_preconditioning']: return`) -> `psgd_pro_update_precond` (utils.py:"
            "3184-3233: `psgd_balance_Q`, randn_like probe, `max_eigenvalue_spd`, `max_singular_value` (utils.py:"
            "3026-3034: shape tests, power iteration), `torch.where(c2 < 0, ...)`), then " + _PROB + "; fused "
            "`fused_psgd_precond_grad`",
        ),
        Row(
            "r20b_psgd_lra", *HEAVYBALL,
            "heavyball.PSGDLRA(linear.parameters(), lr=0.01, rank=2, compile_step=False, consume_grad=False)"
            ".step() x2; returns the parameters",
            ("heavyball",), _r20b_psgd_lra, modes=INFERENCE,
            notes="PSGD with one global low-rank-plus-diagonal preconditioner over both parameters (multi_tensor="
            "True): flattened and concatenated; U and V drawn by randn at the first step; " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `init_lra` (utils.py:2579-2589: `precond_init_scale` with `.item()`, "
            "`np.isfinite`, randn U and V); `_update_lra` (chainable.py:1685-1700: Python `precond_step % 2` "
            "choosing U or V) -> `update_lra_precond_` (utils.py:2732-2807: `_lra_flatten_and_balance` torch.where, "
            "`try: torch.linalg.lu_factor ... except RuntimeError: return` (skip the update), `lu_solve`, "
            "`_compilable_d_step` (utils.py:2682-2729: `divisor.bfloat16().flatten().argmax()` then "
            "`index_select` by that index, float64 step size)); `dampen_multiple` randn_like; `apply_lra_update` "
            "slicing the flat update per parameter",
        ),
        Row(
            "r20b_lather", *HEAVYBALL,
            "heavyball.LATHER(linear.parameters(), lr=0.01, compile_step=False, consume_grad=False).step() x2; "
            "returns the parameters",
            ("heavyball",), _r20b_lather, modes=INFERENCE,
            notes="Adam in the eigenbasis of the PSGD-Kron preconditioner: the first step only initialises (Q, its "
            "first fit and the eigenbasis by eigh) and skips the update; the second projects, runs Adam, refits Q "
            "and rotates the basis by QR; " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `_init_psgd_eigen_kron` (chainable.py:1092-1122: " + _PSGD_INIT + ", a first "
            "`_update_psgd_precond`, `init_psgd_eigenbasis` -> `_stable_symmetric_basis` (utils.py:1030-1066: "
            "`while True: try: no_compile_eigh(...)` with `except RuntimeError` arms moving to float64 and raising "
            "eps)) and `_SKIP`; `scale_by_lather` (chainable.py:1790-1831): `project` einsums, `adam_`, `if "
            "group['is_preconditioning']:` `_update_psgd_precond` (" + _PROB + ") and `update_psgd_eigenbasis` "
            "(utils.py:991-1027: `no_compile_qr`, argsort, gather, sign fix by torch.where)",
        ),
        Row(
            "r20b_soap", *HEAVYBALL,
            "heavyball.SOAP(linear.parameters(), lr=0.01, precondition_frequency=1, compile_step=False, "
            "consume_grad=False).step() x2; returns the parameters",
            ("heavyball",), _r20b_soap, modes=INFERENCE,
            notes="SOAP (Adam in Shampoo's eigenbasis), re-orthogonalising every step; the first step only builds "
            "GG and Q (eigh) and skips the update (weight decay 0.01 default); the bias has no preconditioner "
            "(precondition_1d=False); " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `psgd_should_update` with precond_schedule 1/precondition_frequency (Python floats); "
            "`_init_soap` -> `init_preconditioner` (utils.py:1406-1431: shape tests, `update_ggt`, "
            "`get_orthogonal_matrix` -> `_stable_symmetric_basis` (utils.py:1030-1066: eigh retry loop with "
            "`except RuntimeError` arms)) and `_SKIP`; `scale_by_soap` (chainable.py:1301-1319): `project` einsums "
            "(utils.py:1435-1456), `adam_`, `_apply_soap_preconditioner` -> `update_ggt` (utils.py:1250-1264), "
            "`get_orthogonal_matrix_QR` (utils.py:859-944: argsort of eigenvalue estimates, gather/scatter by the "
            "order, torch.linalg.qr, signs by torch.where, Python `min(64 * n * eps, 0.125)`)",
        ),
        Row(
            "r20b_muon", *HEAVYBALL,
            "heavyball.Muon(linear.parameters(), lr=0.01, compile_step=False, consume_grad=False).step() x2; "
            "returns the parameters",
            ("heavyball",), _r20b_muon, modes=INFERENCE,
            notes="Muon: Nesterov EMA then Newton-Schulz orthogonalisation of the (3, 4) weight (the bias passes "
            "through); Newton-Schulz starts from a stochastic bf16 rounding of the normalised update, drawn from "
            "torch's generator (seeded before the call); " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `nesterov_ema` (chainable.py:1179-1182); `orthogonalize_update` (chainable.py:"
            "1161-1170: per parameter, `if update.dim() < 2: return update`) -> `_compilable_orthogonal_` (utils.py:"
            "814-847: enum and shape tests, `max(1, rows / cols) ** 0.5` scale) -> `zeropower_via_newtonschulz5` "
            "(utils.py:580-607: `assert G.ndim >= 2`, `assert steps == 5`, `stochastic_round_` (utils.py:2397-2411: "
            "randint_like dither, int32 view, bitwise_and), `if G.size(-2) > G.size(-1)` transposes, five fixed "
            "iterations); no tensor value reaches Python",
        ),
        Row(
            "r20b_sfadamw_warmup", *HEAVYBALL,
            "heavyball.SFAdamW(linear.parameters(), lr=0.01, warmup_steps=2, weight_decay=0.01, compile_step=False, "
            "consume_grad=False).step() x2 (train mode); returns the parameters",
            ("heavyball",), _r20b_sfadamw_warmup, modes=INFERENCE,
            notes="schedule-free AdamW with lr warm-up: the schedule-free weights are computed from the tensor lr "
            "in Python expressions (abs, **, an identity test, try/except ZeroDivisionError around a tensor "
            "division); " + OPTIMIZER_NOTE,
            patterns=_STEP + " (lr = 0.01 * step / step.clamp(min=3)); `scale_by_exp_avg_sq` (chainable.py:"
            "749-757); `update_by_schedule_free` (chainable.py:935-965: `group.get('_sf_step') is not "
            "group['step']`, `abs(group['lr']) ** weight_lr_power * step.clamp(min=1) ** r`, `group.get("
            "'weight_sum', 0) + weight`, `try: ckp1 = weight / weight_sum except ZeroDivisionError`) -> "
            "`_compilable_schedule_free_` (utils.py:135-160)",
        ),
        Row(
            "r20b_adopt_mars_caution", *HEAVYBALL,
            "heavyball.ADOPT(linear.parameters(), lr=0.01, mars=True, caution=True, compile_step=False, "
            "consume_grad=False).step() x2; returns the parameters",
            ("heavyball",), _r20b_adopt_mars_caution, modes=INFERENCE,
            notes="ADOPT with the MARS correction and caution: the first step is ADOPT's warm-up (second moment "
            "only, no update), the second updates; " + OPTIMIZER_NOTE,
            patterns=_STEP + "; `mars` (chainable.py:686-691 -> `mars_correction`, utils.py:3686-3697: lerp with the "
            "stored gradient); `WarmupGuard` (chainable.py:632-655: `min(st.get(key, 0) ...)` over Python ints, "
            "`_adopt_warmup_1` then `_SKIP`); `update_by_adopt` -> `fused_adopt_` (utils.py:2351-2371) -> "
            "`_compilable_update_` caution mask (utils.py:3722-3728); no tensor value reaches Python",
        ),
        Row(
            "r20b_laprop_bf16_control", *HEAVYBALL,
            "heavyball.LaProp(linear.parameters(), lr=0.01, storage_dtype='bfloat16', compile_step=False, "
            "consume_grad=False).step() x2; returns the parameters",
            ("heavyball",), _r20b_laprop_bf16_control, modes=INFERENCE,
            notes="control: LaProp with bf16 optimizer state (float32 parameters): every state write is "
            "stochastically rounded with noise from torch's generator (seeded before the call); " + OPTIMIZER_NOTE,
            patterns="control: no tensor value reaches Python. " + _STEP + "; `update_by_laprop` -> `fused_laprop_` "
            "(chainable.py:909-926, utils.py:2303-2347: `_lerp`, `_compilable_exp_avg_sq_`) with `copy_stochastic_` "
            "(utils.py:2419-2426: dtype tests, `stochastic_round_` randint_like dither into bf16)",
        ),
        Row(
            "r20b_sgd_clipping_control", *HEAVYBALL,
            "heavyball.SGD(linear.parameters(), lr=0.01, gradient_clipping='l2_clip_', update_clipping="
            "'trust_region_clip_', multi_tensor=False, compile_step=False, consume_grad=False).step() x2; returns "
            "the parameters",
            ("heavyball",), _r20b_sgd_clipping_control, modes=INFERENCE,
            notes="control: heavy-ball SGD with per-tensor L2 gradient clipping at a Python threshold and the "
            "trust-region update clipping; one chain per parameter; " + OPTIMIZER_NOTE,
            patterns="control: no tensor value reaches Python. " + _STEP + "; `apply_to_idx` wrappers (chainable.py:"
            "1972-1983) of `l2_clip_` (utils.py:3290-3314: `max(clip_at, eps)` on Python floats, "
            "`norm.clamp`) and `trust_region_clip_` (utils.py:3501-3519: tanh/log1p/copysign, clamp); "
            "`heavyball_momentum` (chainable.py:1256-1259); `update_param_` (utils.py:2449-2463)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty (b)")
