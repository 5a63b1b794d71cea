"""Held-out round seven: 33 entry points of 17 libraries that no corpus and no earlier round has.

Chosen by reading each library's source, written down in ROUND7.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once by ``python -m benchmarks.bench_ecosystem
--corpus benchmarks.heldout.round7`` and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded); a row whose ``modes`` is one mode only says why in
its ``notes``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup
from benchmarks.heldout.round6 import linear_with_grads, optimizer_steps

INFERENCE = ("inference",)

TENSORLY = ("tensorly", "0.10.0")
TNTORCH = ("tntorch", "1.1.2")
TORCH_PCA = ("torch-pca", "1.1.0")


# --- helpers ----------------------------------------------------------------------


def _low_rank_3way(shape: tuple[int, int, int], rank: int, noise: float) -> torch.Tensor:
    """A CP tensor of the given rank plus a little Gaussian noise (so rank truncation and
    convergence tests have something to find)."""
    a, b, c = (torch.randn(n, rank) for n in shape)
    return torch.einsum("ir,jr,kr->ijk", a, b, c) + noise * torch.randn(*shape)


def _low_rank_tt(shape: tuple[int, ...], rank: int, noise: float) -> torch.Tensor:
    """A full tensor with TT ranks ``rank`` plus a little Gaussian noise."""
    ranks = [1] + [rank] * (len(shape) - 1) + [1]
    full = torch.ones(1, 1)
    for n, size in enumerate(shape):
        core = torch.randn(ranks[n], size, ranks[n + 1])
        full = torch.einsum("ar,rbs->abs", full, core).reshape(-1, ranks[n + 1])
    return full.reshape(shape) + noise * torch.randn(*shape)


def _tntorch_out(t: Any) -> dict[str, Any]:
    """A tntorch.Tensor as plain tensors: its cores, its Tucker factors (where set) and
    the decompressed full tensor."""
    return {
        "cores": list(t.cores),
        "Us": [u for u in t.Us if u is not None],
        "full": t.torch(),
    }


# --- tensorly ---------------------------------------------------------------------


def _tl_parafac_linesearch(training: bool) -> Built:
    import tensorly
    from tensorly.decomposition import parafac

    tensorly.set_backend("pytorch")

    def cp_als(tensor: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        weights, factors = parafac(
            tensor, rank=2, init="svd", n_iter_max=25, tol=1e-9, linesearch=True, cvg_criterion="rec_error",
        )
        return weights, list(factors)

    return cp_als, (_low_rank_3way((3, 4, 5), 2, 0.3),), {}


def _tl_tucker_hooi(training: bool) -> Built:
    import tensorly
    from tensorly.decomposition import tucker

    tensorly.set_backend("pytorch")

    def hooi(tensor: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        core, factors = tucker(tensor, rank=[2, 3, 3], n_iter_max=20, tol=1e-6)
        return core, list(factors)

    return hooi, (_low_rank_3way((4, 5, 6), 3, 0.3),), {}


def _tl_nn_parafac(training: bool) -> Built:
    import tensorly
    from tensorly.decomposition import non_negative_parafac

    tensorly.set_backend("pytorch")

    def nn_cp(tensor: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        weights, factors = non_negative_parafac(tensor, rank=2, init="svd", n_iter_max=20, tol=1e-4)
        return weights, list(factors)

    return nn_cp, (_low_rank_3way((3, 4, 5), 2, 0.3).abs(),), {}


# --- tntorch ----------------------------------------------------------------------


def _tn_tt_svd_ranks(training: bool) -> Built:
    import tntorch

    def tt_svd(full: torch.Tensor) -> dict[str, Any]:
        return _tntorch_out(tntorch.Tensor(full, ranks_tt=2))

    return tt_svd, (_low_rank_tt((4, 5, 6, 3), 2, 0.05),), {}


def _tn_tt_eps(training: bool) -> Built:
    import tntorch

    def tt_eps(full: torch.Tensor) -> dict[str, Any]:
        return _tntorch_out(tntorch.Tensor(full, eps=0.05))

    return tt_eps, (_low_rank_tt((4, 5, 6, 3), 2, 0.01),), {}


def _tn_tt_arith_round(training: bool) -> Built:
    import tntorch

    def sum_and_round(a0, a1, a2, a3, b0, b1, b2, b3) -> dict[str, Any]:
        a = tntorch.Tensor([a0, a1, a2, a3])
        b = tntorch.Tensor([b0, b1, b2, b3])
        total = a + b + a  # TT ranks add up to 6; the true ranks are at most 4
        rounded = tntorch.round_tt(total, eps=1e-5)
        out = _tntorch_out(rounded)
        out["norm"] = rounded.norm()
        out["dot"] = tntorch.dot(rounded, b)
        return out

    def cores(shape: tuple[int, ...], rank: int) -> list[torch.Tensor]:
        ranks = [1] + [rank] * (len(shape) - 1) + [1]
        return [torch.randn(ranks[n], size, ranks[n + 1]) for n, size in enumerate(shape)]

    shape = (4, 5, 6, 3)
    return sum_and_round, (*cores(shape, 2), *cores(shape, 2)), {}


# --- torch-pca --------------------------------------------------------------------


def _pca_variance_ratio(training: bool) -> Built:
    from torch_pca import PCA

    def fit_transform(x: torch.Tensor) -> list[torch.Tensor]:
        pca = PCA(n_components=0.9, svd_solver="full")
        # determinist=True (the default) flips signs in place: no gradient through the fit,
        # as the docstring says; the training mode takes the documented differentiable option.
        transformed = pca.fit_transform(x, determinist=not training)
        return [transformed, pca.components_, pca.explained_variance_ratio_, pca.noise_variance_]

    x = torch.randn(40, 3) @ torch.randn(3, 8) + 0.05 * torch.randn(40, 8)
    return fit_transform, (x,), {}


def _pca_mle_whiten(training: bool) -> Built:
    from torch_pca import PCA

    def fit_transform(x: torch.Tensor) -> list[torch.Tensor]:
        pca = PCA(n_components="mle", whiten=True)
        transformed = pca.fit_transform(x)
        return [transformed, pca.components_, pca.explained_variance_, pca.noise_variance_]

    x = torch.randn(48, 2) @ torch.randn(2, 4) + 0.1 * torch.randn(48, 4)
    return fit_transform, (x,), {}


def _rows_g5() -> list[Row]:
    return [
        Row(
            "tl_parafac_linesearch", *TENSORLY,
            "tensorly.decomposition.parafac(rank=2, init='svd', linesearch=True, cvg_criterion='rec_error', "
            "tol=1e-9)",
            ("tensorly",), _tl_parafac_linesearch,
            patterns="CP-ALS: `initialize_cp` SVD init whose `svd_flip` builds "
            "`tl.tensor([U[i, j] for (i, j) in zip(max_abs_cols, range(...))])` (iterates an argmax tensor, "
            "indexes with 0-d tensors, torch.tensor of tensors); per iteration `error_calc` norms, line search "
            "`if (new_rec_error / new_norm_tensor) < rec_errors[-1]:` (tensor bool) with `acc_fail` Python "
            "counter, and convergence `stop_flag = rec_error_decrease < tol` then `if stop_flag: break` "
            "(data-dependent iteration count; the line search runs from iteration 6)",
        ),
        Row(
            "tl_tucker_hooi", *TENSORLY, "tensorly.decomposition.tucker(rank=[2, 3, 3], tol=1e-7) (HOOI)",
            ("tensorly",), _tl_tucker_hooi,
            patterns="HOOI in `partial_tucker`: SVD init + per-mode `svd_interface` (`svd_flip` list "
            "comprehension over an argmax tensor into `tl.tensor`), `rec_error = sqrt(tl.abs(norm_tensor**2 - "
            "tl.norm(core, 2) ** 2)) / norm_tensor` with `math.sqrt` on a 0-d tensor (`__float__`), and "
            "`if tol and tl.abs(rec_errors[-2] - rec_errors[-1]) < tol: break` (tensor-valued loop exit)",
        ),
        Row(
            "tl_nn_parafac", *TENSORLY, "tensorly.decomposition.non_negative_parafac(rank=2, init='svd')",
            ("tensorly",), _tl_nn_parafac, modes=INFERENCE,
            notes="`initialize_cp` scales the NNDSVD factor in place (`tl.index_update(U, tl.index[:, :idx], "
            "U[:, :idx] * S[:idx])`), so backward fails eagerly ('modified by an inplace operation'): no "
            "gradient path",
            patterns="NNDSVD init `make_svd_non_negative`: per column `if m_p > m_n:` on products of norms "
            "(tensor bool) after `svd_flip`'s `tl.tensor([U[i, j] ...])`; multiplicative updates with "
            "`tl.clip(..., a_min=epsilon)` and convergence `stop_flag = tl.abs(rec_error_decrease) < tol` / "
            "`if stop_flag: break`",
        ),
        Row(
            "tn_tt_svd_ranks", *TNTORCH, "tntorch.Tensor(full, ranks_tt=2) (TT-SVD)", ("tntorch",),
            _tn_tt_svd_ranks,
            patterns="`round_tt`: `delta = (eps / max(1, torch.sqrt(torch.tensor([N - 1]))) * "
            "torch.norm(core)).item()`, Python `max` of an int and a tensor; per core `tn.truncated_svd`: "
            "`if svd[1][0] < 1e-13:` early return, single-argument `torch.where(cumsum(S[reverse]) <= "
            "delta**2)[0]`, `len(where)`, `rank = max(1, int(min(rmax, len(S) - 1 - where[-1])))` "
            "(data-dependent rank slices `left[..., :rank]`); `.torch()` sizes `torch.ones(1, "
            "self.ranks_tt[0])` from a `torch.tensor` of ranks",
        ),
        Row(
            "tn_tt_eps_round", *TNTORCH, "tntorch.Tensor(full, eps=0.05) (TT-SVD + Tucker rounding)",
            ("tntorch",), _tn_tt_eps,
            patterns="`Tensor.round(eps)`: `round_tt` (`.item()` delta, `torch.where(cond)` / `len` / `int(...)` "
            "rank choice in `truncated_svd`), then `reached = tn.relative_error(copy, self)` (TT arithmetic + "
            "`tn.dot` with `torch.ones([t2.ranks_tt[0], t1.ranks_tt[0]])` sized from rank tensors) and "
            "`if reached < eps:` (tensor bool) -> `round_tucker` with `truncated_svd(eps=...)`: `delta = eps * "
            "torch.norm(M).item()` and the same data-dependent rank truncation per mode",
        ),
        Row(
            "tn_tt_arith_round", *TNTORCH,
            "tntorch.round_tt(a + b + a, eps=1e-5) on tntorch.Tensor(cores); .norm(), tntorch.dot",
            ("tntorch",), _tn_tt_arith_round,
            patterns="TT `__add__` (`_broadcast` shape compare, block-diagonal core concatenation), then "
            "`round_tt` on the clone: `delta = (... * torch.norm(self.cores[-1])).item()`, per core "
            "`truncated_svd` with `if svd[1][0] < 1e-13:`, single-argument `torch.where(...)[0]`, `len(where)`, "
            "`int(min(rmax, len(S) - 1 - where[-1]))` (ranks 6 -> data-dependent); `tn.dot`/`norm` size "
            "`torch.ones([t2.ranks_tt[0], t1.ranks_tt[0]])` from `torch.tensor` rank vectors",
        ),
        Row(
            "pca_variance_ratio", *TORCH_PCA,
            "torch_pca.PCA(n_components=0.9, svd_solver='full').fit_transform(x)", ("torch_pca",),
            _pca_variance_ratio,
            notes="training passes determinist=False (the default flips signs of the SVD output in place; its "
            "docstring says the fit is then not differentiable)",
            patterns="`find_ncomponents` for a float ratio: `torch.searchsorted(torch.cumsum(ratio), "
            "n_components, right=True).item() + 1` (data-dependent component count), then slices "
            "`vh_mat[: self.n_components_]` and `if self.n_components_ < min(inputs.shape[-2:])` noise variance "
            "mean over the data-sized tail; inference's `svd_flip` argmax/take_along_dim sign fix",
        ),
        Row(
            "pca_mle_whiten", *TORCH_PCA,
            "torch_pca.PCA(n_components='mle', whiten=True).fit_transform(x) (auto -> covariance_eigh)",
            ("torch_pca",), _pca_mle_whiten, modes=INFERENCE,
            notes="the covariance_eigh solver clamps eigh's eigenvalues in place "
            "(`eigenvals[eigenvals < 0.0] = 0.0`) and whitening clamps the sqrt output `scale` in place, so "
            "backward fails eagerly: "
            "no gradient path",
            patterns="`choose_svd_solver` picks 'covariance_eigh' (tall data); boolean-mask assignment "
            "`eigenvals[eigenvals < 0.0] = 0.0`; Minka MLE `infer_mle`: per rank `if spectrum[rank - 1] < 1e-15:` "
            "(tensor bool), `torch.lgamma(...).item()`, Python `max(1e-15, torch.sum(...))`, `math.log` of "
            "tensors (`__float__`), nested Python loops of `log((spectrum[i] - spectrum[j]) * ...)`, "
            "`torch.argmax(log_likelihood).item()` (data-dependent component count); whitening "
            "`scale[scale < 1e-8] = 1e-8`",
        ),
    ]


ADABELIEF = ("adabelief-pytorch", "0.2.1")
MADGRAD = ("madgrad", "1.3")
CAME = ("came-pytorch", "0.1.3")
ADAN = ("adan-pytorch", "0.1.0")
ADAM_ATAN2 = ("adam-atan2-pytorch", "0.4.1")
TORCH_EMA = ("torch-ema", "0.3")

OPT_NOTES = "optimizer steps on the seeded .grad of a Linear(4, 3): no gradient path"


# --- helpers -------------------------------------------------------------------


def _optimizer(build: Callable[[torch.nn.Linear], torch.optim.Optimizer]) -> Callable[[bool], Built]:
    def make(training: bool) -> Built:
        layer = linear_with_grads()
        return optimizer_steps, (build(layer), 2), {}

    return make


# --- adabelief-pytorch ---------------------------------------------------------


def _adabelief(layer: torch.nn.Linear) -> torch.optim.Optimizer:
    from adabelief_pytorch import AdaBelief

    return AdaBelief(layer.parameters(), lr=1e-2, eps=1e-16, betas=(0.9, 0.999), weight_decay=1e-2,
                     amsgrad=True, weight_decouple=True, rectify=True, print_change_log=False)


# --- madgrad -------------------------------------------------------------------


def _madgrad(layer: torch.nn.Linear) -> torch.optim.Optimizer:
    from madgrad import MADGRAD as Madgrad

    return Madgrad(layer.parameters(), lr=1e-2, momentum=0.9, weight_decay=1e-2, eps=0.0, decouple_decay=True)


def _mirror_madgrad(layer: torch.nn.Linear) -> torch.optim.Optimizer:
    from madgrad import MirrorMADGRAD

    return MirrorMADGRAD(layer.parameters(), lr=1e-2, momentum=0.9, weight_decay=1e-2, eps=0.0)


# --- came-pytorch --------------------------------------------------------------


def _came(layer: torch.nn.Linear) -> torch.optim.Optimizer:
    from came_pytorch import CAME as Came

    return Came(layer.parameters(), lr=2e-4, weight_decay=1e-2, betas=(0.9, 0.999, 0.9999), eps=(1e-30, 1e-16))


# --- adan-pytorch --------------------------------------------------------------


def _adan_restart_on_spike(state: dict[str, Any]) -> torch.Tensor:
    """A user restart condition: restart the moments when the squared-gradient
    moment's total passes a bound (a 0-d bool tensor, as users write it)."""
    return state["n"].sum() > 0.1


def _adan(layer: torch.nn.Linear) -> torch.optim.Optimizer:
    from adan_pytorch import Adan

    return Adan(layer.parameters(), lr=1e-2, betas=(0.02, 0.08, 0.01), weight_decay=0.02,
                restart_cond=_adan_restart_on_spike)


# --- adam-atan2-pytorch --------------------------------------------------------


def _muon_adam_atan2(layer: torch.nn.Linear) -> torch.optim.Optimizer:
    from adam_atan2_pytorch import MuonAdamAtan2

    # weight (2-D) -> Muon group (Newton-Schulz + NorMuon), bias -> AdamAtan2 group
    return MuonAdamAtan2([layer.weight], list(layer.parameters()), lr=1e-2, weight_decay=1e-2,
                         decoupled_wd=True, cautious_factor=0.5, use_normuon=True)


# --- torch-ema -----------------------------------------------------------------


def ema_evaluate(ema: Any, model: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Validation with the averaged weights; the live weights come back after."""
    with ema.average_parameters():
        out = model(x)
    return out, [p.detach().clone() for p in model.parameters()]


def _ema_average(training: bool) -> Built:
    from torch_ema import ExponentialMovingAverage

    layer = linear_with_grads()
    ema = ExponentialMovingAverage(layer.parameters(), decay=0.9, use_num_updates=False)
    with torch.no_grad():  # two training steps so the shadow differs from the live weights
        for _ in range(2):
            for p in layer.parameters():
                p.sub_(0.1 * p.grad)
            ema.update()
    return ema_evaluate, (ema, layer, torch.randn(2, 4)), {}


# --- rows ----------------------------------------------------------------------


def _rows_g6() -> list[Row]:
    return [
        Row("adabelief_amsgrad_rectify_two_steps", *ADABELIEF,
            "adabelief_pytorch.AdaBelief(lr=1e-2, weight_decay=1e-2, amsgrad=True, weight_decouple=True, "
            "rectify=True, print_change_log=False).step() x2", ("adabelief_pytorch",),
            _optimizer(_adabelief), modes=INFERENCE, notes=OPT_NOTES,
            patterns="control: no tensor value reaches Python; `p.data.mul_` decoupled decay, amsgrad "
            "`torch.max(max_exp_avg_var, exp_avg_var.add_(eps), out=max_exp_avg_var)`, RAdam-style rectify "
            "with the shared Python list `group['buffer'][int(state['step'] % 10)]` mutated in step "
            "(Python-float `N_sma >= 5` test; on steps 1-2 N_sma < 5 so the degenerated-to-SGD `elif step_size > 0:` "
            "branch `p.data.add_(exp_avg, alpha=-step_size * lr)` runs), `if p.data.dtype == torch.float16` cast checks"),
        Row("madgrad_eps0_decoupled_two_steps", *MADGRAD,
            "madgrad.MADGRAD(lr=1e-2, momentum=0.9, weight_decay=1e-2, eps=0, decouple_decay=True).step() x2",
            ("madgrad",), _optimizer(_madgrad), modes=INFERENCE, notes=OPT_NOTES,
            patterns="`k = self.state['k'].item()` (a long step-counter tensor) feeds "
            "`lamb = lr * math.pow(k + 1, 0.5)`, used as `alpha=`/`value=` of `addcmul_`/`add_`; "
            "with `eps == 0` the boolean-mask write `rms[rms == 0] = float('inf')`; momentum path "
            "(`x0` state, `p.mul_(1 - ck).add_(z, alpha=ck)`), decoupled decay via `p_old = p.clone()`; "
            "`self.state['k'] += 1` in-place on state"),
        Row("madgrad_mirror_l2_two_steps", *MADGRAD,
            "madgrad.MirrorMADGRAD(lr=1e-2, momentum=0.9, weight_decay=1e-2, eps=0).step() x2", ("madgrad",),
            _optimizer(_mirror_madgrad), modes=INFERENCE, notes=OPT_NOTES,
            patterns="`k = self.state['k'].item()` then `update_ratio = math.pow(k/(k+1), 1/2)`, "
            "`lamb = math.pow(k+1, 1/3)` as Python floats in `grad_sum_sq.mul_(update_ratio)` and "
            "`z.data.addcdiv_(..., value=-lr*lamb)`; default `eps == 0` boolean-mask write "
            "`rms[rms == 0] = float('inf')`; coupled L2 decay `grad.add_(p, alpha=decay)` in place on `.grad`"),
        Row("came_factored_two_steps", *CAME,
            "came_pytorch.CAME(lr=2e-4, weight_decay=1e-2, betas=(0.9, 0.999, 0.9999)).step() x2",
            ("came_pytorch",), _optimizer(_came), modes=INFERENCE, notes=OPT_NOTES,
            patterns="control: no tensor value reaches Python; factored row/col second moments for the 2-D "
            "weight and an unfactored one for the bias (`len(param_shape) >= 2`), confidence-guided "
            "instability `res = (update - exp_avg)**2 + eps` factored again, 0-d `state['RMS'] = "
            "self._rms(p.data)` stored in state, clip `update.div_((self._rms(update) / clip).clamp_(min=1.0))` "
            "kept as a tensor"),
        Row("adan_restart_cond_two_steps", *ADAN,
            "adan_pytorch.Adan(lr=1e-2, weight_decay=0.02, restart_cond=lambda s: s['n'].sum() > 0.1).step() x2",
            ("adan_pytorch",), _optimizer(_adan), modes=INFERENCE, notes=OPT_NOTES,
            patterns="`if exists(restart_cond) and restart_cond(state):` truth-tests the 0-d bool tensor the "
            "user condition returns (false on step 1, true for the weight on step 2: then `m.data.copy_(grad)`, "
            "`v.zero_()`, `n.data.copy_(grad ** 2)` and a second nested `grad_step_` closure call); "
            "`if step > 0:` Python-int gate on the moment updates; `assert not grad.is_sparse`"),
        Row("adamatan2_muon_normuon_two_steps", *ADAM_ATAN2,
            "adam_atan2_pytorch.MuonAdamAtan2([weight], params, lr=1e-2, weight_decay=1e-2, decoupled_wd=True, "
            "cautious_factor=0.5, use_normuon=True).step() x2", ("adam_atan2_pytorch",),
            _optimizer(_muon_adam_atan2), modes=INFERENCE, notes=OPT_NOTES,
            patterns="control: no tensor value reaches Python; two param groups (bias: AdamAtan2 "
            "`exp_avg.mul(...).atan2_(den)`; weight: Muon `newtonschulz5` with einops `pack`/`unpack` and a "
            "5-step matmul loop, NorMuon `neuronwise_normalize` with lazily created "
            "`state['exp_avg_sq_orthog_row']`), cautious mask `torch.where((update * grad) > 0, ...)` with "
            "`scale.mean().clamp(min=1e-5)`, `list(set(params) - set(muon_params))` in `__init__`"),
        Row("torchema_average_parameters_eval", *TORCH_EMA,
            "with torch_ema.ExponentialMovingAverage(params, decay=0.9, use_num_updates=False)"
            ".average_parameters(): model(x)", ("torch_ema",), _ema_average, modes=INFERENCE,
            notes="evaluation with the EMA weights swapped in through `.data.copy_` and restored after the "
            "forward: the saved weight for backward is overwritten, so only inference is meaningful",
            patterns="control: no tensor value reaches Python; a `@contextlib.contextmanager` generator "
            "(`store` clones to `self.collected_params`, `copy_to`, `yield`, `finally: restore`) around the "
            "forward, weakref dereference of the params, `param.data.copy_` in-place swaps"),
    ]


NYSTROM = ("nystrom-attention", "0.0.14")
EGNN = ("egnn-pytorch", "0.2.8")
PERCEIVER = ("perceiver-pytorch", "0.11.0")
TORCHANI = ("torchani", "2.9.0")


# --- nystrom-attention ----------------------------------------------------------------


def _nystrom_masked_padded(training: bool) -> Built:
    from nystrom_attention import NystromAttention

    attn = NystromAttention(
        dim=16, dim_head=8, heads=2, num_landmarks=4, pinv_iterations=6, residual=True, residual_conv_kernel=3
    )
    x = torch.randn(2, 10, 16)  # n = 10 is not a multiple of num_landmarks = 4: front-padded to 12
    mask = torch.ones(2, 10, dtype=torch.bool)
    mask[1, 7:] = False
    return attn, (x,), {"mask": mask, "return_attn": True}


# --- egnn-pytorch ---------------------------------------------------------------------


def _chain_adjacency(n: int) -> torch.Tensor:
    adj = torch.zeros(n, n, dtype=torch.bool)
    idx = torch.arange(n - 1)
    adj[idx, idx + 1] = True
    adj[idx + 1, idx] = True
    adj[0, 3] = adj[3, 0] = True  # one ring closure: node 0 and 3 get degree 3
    return adj


def _egnn_layer_sparse_neighbors(training: bool) -> Built:
    from egnn_pytorch import EGNN

    layer = EGNN(
        dim=8,
        m_dim=8,
        fourier_features=2,
        only_sparse_neighbors=True,
        m_pool_method="mean",
        soft_edges=True,
        norm_coors=True,
    )
    feats = torch.randn(2, 6, 8)
    coors = torch.randn(2, 6, 3)
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[1, 4:] = False
    return layer, (feats, coors), {"mask": mask, "adj_mat": _chain_adjacency(6)}


def _egnn_network_adj_degrees(training: bool) -> Built:
    from egnn_pytorch import EGNN_Network

    net = EGNN_Network(
        num_tokens=6,
        dim=8,
        depth=2,
        num_adj_degrees=2,
        adj_dim=4,
        global_linear_attn_every=1,
        global_linear_attn_heads=2,
        global_linear_attn_dim_head=4,
        num_global_tokens=2,
        m_dim=8,
        only_sparse_neighbors=True,
    )
    tokens = torch.randint(0, 6, (2, 6))
    coors = torch.randn(2, 6, 3)
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[0, 5] = False
    return net, (tokens, coors), {"adj_mat": _chain_adjacency(6), "mask": mask}


# --- perceiver-pytorch ----------------------------------------------------------------


def _perceiver_io_masked_queries(training: bool) -> Built:
    from perceiver_pytorch import PerceiverIO

    model = PerceiverIO(
        depth=2,
        dim=8,
        queries_dim=8,
        logits_dim=5,
        num_latents=4,
        latent_dim=16,
        cross_heads=1,
        latent_heads=2,
        cross_dim_head=8,
        latent_dim_head=8,
        decoder_ff=True,
    )
    data = torch.randn(2, 7, 8)
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[1, 4:] = False
    queries = torch.randn(3, 8)  # 2-D queries: repeated over the batch inside forward
    return model, (data,), {"mask": mask, "queries": queries}


# --- torchani -------------------------------------------------------------------------

# Element indices 0..3 = H, C, N, O (torchani's internal "elem_idxs"; -1 is a padding atom).
_CH4 = [[0.0, 0.0, 0.0], [0.63, 0.63, 0.63], [-0.63, -0.63, 0.63], [-0.63, 0.63, -0.63], [0.63, -0.63, -0.63]]
_H2O_PADDED = [[0.0, 0.0, 0.0], [0.96, 0.0, 0.0], [-0.24, 0.93, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
# One "molecule" of six atoms in a periodic box; atom 1 sits near the x face, so it
# interacts with atom 0 only through a periodic image.
_BOX_ATOMS = [[0.5, 0.5, 0.5], [6.6, 0.4, 0.6], [3.5, 3.5, 3.5], [4.4, 3.6, 3.3], [1.8, 5.9, 2.2], [2.5, 6.5, 2.9]]
_BOX_ELEM_IDXS = [[1, 0, 3, 0, 2, 0]]


def _padded_batch() -> tuple[torch.Tensor, torch.Tensor]:
    elem_idxs = torch.tensor([[1, 0, 0, 0, 0], [3, 0, 0, -1, -1]])
    coords = torch.tensor([_CH4, _H2O_PADDED]) + 0.02 * torch.randn(2, 5, 3)
    # Padding atoms far apart (> every cutoff): narrow_down screens padding pairs only when
    # `not torch.compiler.is_compiling()`; compiled, the distance screen must drop them instead,
    # which at torchani's usual zero padding (two dummies at one point) it would not.
    coords[1, 3] = torch.tensor([50.0, 0.0, 0.0])
    coords[1, 4] = torch.tensor([100.0, 0.0, 0.0])
    return elem_idxs, coords


def _aev_from_constants(num_species: int = 4):
    from torchani.aev import AEVComputer

    return AEVComputer.from_constants(
        radial_cutoff=5.2,
        angular_cutoff=3.5,
        radial_eta=16.0,
        radial_shifts=[0.9, 1.7, 2.5, 3.3, 4.1, 4.9],
        angular_eta=8.0,
        angular_zeta=32.0,
        angular_shifts=[0.9, 1.55, 2.2, 2.85],
        sections=[0.19634954, 0.98174770, 1.76714587, 2.55254403],
        num_species=num_species,
        strategy="pyaev",
        cutoff_fn="cosine",
        neighborlist="all_pairs",
    )


def _ani_aev_allpairs_padded(training: bool) -> Built:
    aev = _aev_from_constants()
    elem_idxs, coords = _padded_batch()
    return aev, (elem_idxs, coords), {}


def _ani_aev_allpairs_pbc(training: bool) -> Built:
    from torchani.aev import AEVComputer

    aev = AEVComputer.like_1x(num_species=4, strategy="pyaev", neighborlist="all_pairs")
    elem_idxs = torch.tensor(_BOX_ELEM_IDXS)
    coords = torch.tensor([_BOX_ATOMS]) + 0.02 * torch.randn(1, 6, 3)
    cell = 8.0 * torch.eye(3)
    pbc = torch.tensor([True, True, True])
    return aev, (elem_idxs, coords, cell, pbc), {}


def _ani_aev_cell_list_pbc(training: bool) -> Built:
    from torchani.aev import AEVComputer

    # cutoff 3.0 in a 7.0 box: a 2x2x2 bucket grid
    aev = AEVComputer.like_1x(
        num_species=4, strategy="pyaev", neighborlist="cell_list", radial_cutoff=3.0, angular_cutoff=2.5
    )
    elem_idxs = torch.tensor(_BOX_ELEM_IDXS)
    coords = torch.tensor([_BOX_ATOMS]) + 0.02 * torch.randn(1, 6, 3)
    cell = 7.0 * torch.eye(3)
    pbc = torch.tensor([True, True, True])
    return aev, (elem_idxs, coords, cell, pbc), {}


class _SpeciesCoordsCall(torch.nn.Module):
    """Calls a torchani model that takes a ``(species, coords)`` tuple, returning its energies.

    The bench only gives top-level tensor arguments requires_grad, so the tuple is built here.
    """

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, species: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        return self.model((species, coords)).energies


class _AniEnergy(torch.nn.Module):
    """The documented TorchANI 2 composition: energies = networks(idxs, aevs) + self energies."""

    def __init__(self) -> None:
        super().__init__()
        from torchani.nn import ANINetworks, AtomicNetwork
        from torchani.sae import SelfEnergy

        self.aev_computer = _aev_from_constants()
        self.networks = ANINetworks(
            {
                s: AtomicNetwork(layer_dims=(self.aev_computer.out_dim, 16, 8, 1), activation="celu", bias=True)
                for s in ("H", "C", "N", "O")
            }
        )
        self.self_energy = SelfEnergy(("H", "C", "N", "O"), (-0.5, -37.8, -54.6, -75.0))

    def forward(self, elem_idxs: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        aevs = self.aev_computer(elem_idxs, coords)
        return self.networks(elem_idxs, aevs) + self.self_energy(elem_idxs)


def _ani_networks_energy(training: bool) -> Built:
    elem_idxs, coords = _padded_batch()
    return _AniEnergy(), (elem_idxs, coords), {}


def _ani_simple_ani_repulsion(training: bool) -> Built:
    from torchani.arch import simple_ani

    model = simple_ani(
        ("H", "C", "N", "O"),
        lot="wb97x-631gd",
        radial_shifts=8,
        angular_shifts=4,
        sections=4,
        strategy="pyaev",
        repulsion=True,
        self_energies={"H": -0.5, "C": -37.8, "N": -54.6, "O": -75.0},
    )
    atomic_nums = torch.tensor([[6, 1, 1, 1, 1], [8, 1, 1, -1, -1]])
    _, coords = _padded_batch()
    return _SpeciesCoordsCall(model), (atomic_nums, coords), {}


# --- rows -----------------------------------------------------------------------------

_NEIGHBOR_TRIPLES = (
    "`neighbors_to_triples`: `unique_consecutive(..., return_counts=True)`, `torch.repeat_interleave(pair_sizes)` "
    "(data-sized), `counts_max: int = int(zcounts.max())` into `torch.tril_indices`, boolean-mask column indexing "
    "`max_local_pairs.repeat(...)[:, mask.view(-1)]`; `discard_outside_cutoff`: `(distances <= cutoff).nonzero()`"
)


def _rows_g7() -> list[Row]:
    return [
        Row(
            "nystrom_attn_masked_padded",
            *NYSTROM,
            "nystrom_attention.NystromAttention(num_landmarks=4, residual_conv_kernel=3)(x, mask=mask, return_attn=True)",
            ("nystrom_attention",),
            _nystrom_masked_padded,
            patterns="control: `if remainder > 0:` pads x and mask (shape-only test, n=10, m=4); mask multiplies q/k/v, "
            "landmark masked mean via einops `reduce`, three `masked_fill_` on the similarities, "
            "`moore_penrose_iter_pinv` normalises by `torch.max(col) * torch.max(row)` (0-d tensors, no Python "
            "value) then a fixed 6-iteration Python loop; no data-dependent code on this path",
        ),
        Row(
            "egnn_layer_sparse_neighbors",
            *EGNN,
            "egnn_pytorch.EGNN(dim=8, only_sparse_neighbors=True, m_pool_method='mean', fourier_features=2, "
            "soft_edges=True, norm_coors=True)(feats, coors, mask=mask, adj_mat=adj)",
            ("egnn_pytorch",),
            _egnn_layer_sparse_neighbors,
            patterns="`if only_sparse_neighbors:` `num_nearest = int(adj_mat.float().sum(dim=-1).max().item())` "
            "(neighbour count read from the adjacency values) becomes the `k` of `ranking.topk(num_nearest, ...)` "
            "and the gathered neighbour dimension; `if exists(mask)` masked ranking, `safe_div` masked mean",
        ),
        Row(
            "egnn_network_adj_degrees",
            *EGNN,
            "egnn_pytorch.EGNN_Network(num_tokens=6, depth=2, num_adj_degrees=2, adj_dim=4, "
            "global_linear_attn_every=1, only_sparse_neighbors=True)(tokens, coors, adj_mat=adj, mask=mask)",
            ("egnn_pytorch",),
            _egnn_network_adj_degrees,
            patterns="2nd-degree adjacency built by `(adj_mat.float() @ adj_mat.float()) > 0` and `masked_fill_` of "
            "degree ids (adj embedding edges); each of the 2 EGNN layers reads "
            "`int(adj_mat.float().sum(dim=-1).max().item())` off the expanded adjacency as the `topk` k; "
            "`GlobalLinearAttention` with masked `masked_fill_` before each layer",
        ),
        Row(
            "perceiver_io_masked_queries",
            *PERCEIVER,
            "perceiver_pytorch.PerceiverIO(depth=2, num_latents=4, latent_dim=16, logits_dim=5, decoder_ff=True)"
            "(data, mask=mask, queries=queries)",
            ("perceiver_pytorch",),
            _perceiver_io_masked_queries,
            patterns="control: cross-attention `if exists(mask):` `sim.masked_fill_(~mask, max_neg_value)` after "
            "einops `repeat`; `queries.ndim == 2` (shape) repeat; `seq_dropout_prob` off; no tensor value meets "
            "Python on this path",
        ),
        Row(
            "ani_aev_allpairs_padded",
            *TORCHANI,
            "torchani.aev.AEVComputer.from_constants(..., num_species=4, neighborlist='all_pairs')(elem_idxs, coords)",
            ("torchani",),
            _ani_aev_allpairs_padded,
            patterns="`narrow_down`: `if not torch.compiler.is_compiling() and mask.any():` drops pairs with "
            "padding atoms (`elem_idxs == -1`) via `(~torch.any(mask, dim=0)).nonzero()`, then "
            "`(norm <= cutoff).nonzero()`; " + _NEIGHBOR_TRIPLES,
        ),
        Row(
            "ani_aev_allpairs_pbc",
            *TORCHANI,
            "torchani.aev.AEVComputer.like_1x(neighborlist='all_pairs')(elem_idxs, coords, cell, pbc)",
            ("torchani",),
            _ani_aev_allpairs_pbc,
            frozen=("2",),
            notes="the cell (8.0 * eye(3)) is integer-valued: frozen",
            patterns="`AEVComputer.forward` and `_validate_inputs`: `if pbc is not None and not pbc.any(): raise` "
            "(eager-only branches); `_all_pairs_pbc_shifts`: `torch.arange(1, num_repeats[i].item() + 1)` x3 "
            "(image counts from `ceil(cutoff * inv_distances)`) into `cartesian_prod`; `map_to_central`: "
            "`frac[frac >= 1.0] -= 1.0`, `frac[frac < 0.0] += 1.0`, `out[:, :, ~pbc] = ...` mask indexing; "
            "`narrow_down` `.nonzero()` screening; " + _NEIGHBOR_TRIPLES,
        ),
        Row(
            "ani_aev_cell_list_pbc",
            *TORCHANI,
            "torchani.aev.AEVComputer.like_1x(neighborlist='cell_list', radial_cutoff=3.0, angular_cutoff=2.5)"
            "(elem_idxs, coords, cell, pbc)",
            ("torchani",),
            _ani_aev_cell_list_pbc,
            frozen=("2",),
            notes="the cell (7.0 * eye(3)) is integer-valued: frozen",
            patterns="`cell_list`: `_validate_inputs` `not pbc.any()` / `not pbc.all()` raises; "
            "`if (grid_shape == 0).any(): raise`; `torch.bincount(..., minlength=int(grid_shape.prod()))`; "
            "`count_in_grid_max: int = int(count_in_grid.max())` sizes `tril_indices`/`arange`/`repeat`; "
            "`coords_to_fractional` `out[out >= 1.0] -= 1.0`; `fast_masked_select` = `mask.view(-1).nonzero()`; "
            "`(count_in_grid > 1).nonzero()`, `repeat_interleave` by counts; `map_to_central` `~pbc` indexing; "
            + _NEIGHBOR_TRIPLES,
        ),
        Row(
            "ani_networks_energy",
            *TORCHANI,
            "torchani.nn.ANINetworks({H,C,N,O: AtomicNetwork(celu)})(elem_idxs, AEVComputer.from_constants(...)"
            "(elem_idxs, coords)) + torchani.sae.SelfEnergy(...)(elem_idxs)",
            ("torchani",),
            _ani_networks_energy,
            patterns="`ANINetworks.forward`: for each element `selected_idxs = (flat_elem_idxs == i).nonzero()` and "
            "`if selected_idxs.shape[0] > 0:` (data-dependent size test; N has no atom, so one network is skipped) "
            "before `index_select`/`index_add_`; `SelfEnergy` `masked_fill(elem_idxs == -1, 0.0)`; the all_pairs "
            "AEV path with the `mask.any()` padding screen and " + _NEIGHBOR_TRIPLES,
        ),
        Row(
            "ani_simple_ani_repulsion",
            *TORCHANI,
            "torchani.arch.simple_ani(('H','C','N','O'), lot='wb97x-631gd', radial_shifts=8, angular_shifts=4, "
            "strategy='pyaev', repulsion=True, self_energies={...})((atomic_nums, coords)).energies",
            ("torchani",),
            _ani_simple_ani_repulsion,
            patterns="`SpeciesConverter`: `if (elem_idxs[atomic_nums != -1] == -1).any(): raise ValueError(...)` "
            "(boolean-mask index + tensor truth test, eager only); extra potential -> neighborlist branch of "
            "`ANI.forward`; `compute_from_neighbors` per potential `discard_outside_cutoff` `.nonzero()`; "
            "`RepulsionXTB` pair energies; ANINetworks per-element `.nonzero()` + `if selected_idxs.shape[0] > 0:`; "
            + _NEIGHBOR_TRIPLES,
        ),
    ]


ASTEROID_FB = ("asteroid-filterbanks", "0.4.0")
INFO_NCE = ("info-nce-pytorch", "0.1.4")
MLM = ("mlm-pytorch", "0.1.0")
RTDL = ("rtdl-num-embeddings", "0.0.12")


# --- asteroid-filterbanks -----------------------------------------------------------


class _AnalysisSynthesis(torch.nn.Module):
    """The user's encoder -> (mask) -> decoder pipeline around an asteroid Encoder/Decoder pair."""

    def __init__(self, enc: torch.nn.Module, dec: torch.nn.Module) -> None:
        super().__init__()
        self.enc = enc
        self.dec = dec

    def forward(self, wav: torch.Tensor, mask: torch.Tensor | None = None):
        from asteroid_filterbanks import transforms

        spec = self.enc(wav)
        if mask is None:
            return self.dec(spec, length=wav.shape[-1])
        masked = transforms.apply_mag_mask(spec, mask)
        return self.dec(masked, length=wav.shape[-1]), transforms.mag(spec)


def _ast_torch_stft_roundtrip(training: bool) -> Built:
    from asteroid_filterbanks import make_enc_dec

    enc, dec = make_enc_dec("torch_stft", n_filters=32, kernel_size=32, stride=8)
    return _AnalysisSynthesis(enc, dec), (torch.randn(2, 1, 256),), {}


def _ast_param_sinc_2d_mask(training: bool) -> Built:
    from asteroid_filterbanks import make_enc_dec

    enc, dec = make_enc_dec("param_sinc", n_filters=16, kernel_size=33, stride=8, sample_rate=8000.0)
    wav = torch.randn(2, 256)  # (batch, time): the 2-D input the Encoder warns about
    frames = (256 - 33) // 8 + 1
    mask = torch.rand(2, 8, frames)  # one real mask value per (re, im) pair
    return _AnalysisSynthesis(enc, dec), (wav, mask), {}


def _stft_encoder():
    from asteroid_filterbanks import STFTFB, Encoder

    return Encoder(STFTFB(n_filters=32, kernel_size=32, stride=8))


def _ast_griffin_lim(training: bool) -> Built:
    from asteroid_filterbanks import griffin_lim, transforms

    enc = _stft_encoder()
    with torch.no_grad():
        mag = transforms.mag(enc(torch.randn(2, 1, 256)))
    return griffin_lim, (mag, enc), {"n_iter": 4, "momentum": 0.9}


def _ast_misi(training: bool) -> Built:
    from asteroid_filterbanks import misi, transforms

    enc = _stft_encoder()
    sources = torch.randn(2, 2, 256)
    with torch.no_grad():
        mags = transforms.mag(enc(sources))  # (batch, n_src, freq, frames)
    return misi, (sources.sum(1), mags, enc), {"n_iter": 3}


# --- info-nce-pytorch -------------------------------------------------------------


def _info_nce_paired(training: bool) -> Built:
    from info_nce import InfoNCE

    loss = InfoNCE(temperature=0.1, reduction="mean", negative_mode="paired")
    return loss, (torch.randn(4, 8), torch.randn(4, 8), torch.randn(4, 5, 8)), {}


# --- mlm-pytorch ------------------------------------------------------------------


class TinyTransformer(torch.nn.Module):
    """The user's token model for MLM: Embedding -> 1-layer TransformerEncoder -> logits."""

    def __init__(self, num_tokens: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(num_tokens, dim)
        layer = torch.nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.to_logits = torch.nn.Linear(dim, num_tokens)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.to_logits(self.encoder(self.emb(tokens)))


def _mlm_random_tokens(training: bool) -> Built:
    from mlm_pytorch import MLM as Mlm

    trainer = Mlm(
        TinyTransformer(num_tokens=20),
        mask_prob=0.3,
        replace_prob=0.8,
        num_tokens=20,
        random_token_prob=0.1,
        mask_token_id=2,
        pad_token_id=0,
        mask_ignore_token_ids=[1],  # [cls]
    )
    seq = torch.randint(3, 20, (2, 12))
    seq[:, 0] = 1  # [cls]
    seq[1, 9:] = 0  # [pad]
    return trainer, (seq,), {}


# --- rtdl-num-embeddings ------------------------------------------------------------


def _tabular_x() -> torch.Tensor:
    """64 rows, 3 features: two continuous, one binary (0/1) flag."""
    return torch.cat([torch.randn(64, 2), torch.randint(0, 2, (64, 1)).float()], dim=1)


def _rtdl_compute_bins(training: bool) -> Built:
    from rtdl_num_embeddings import compute_bins

    return compute_bins, (_tabular_x(),), {"n_bins": 8}


def _rtdl_ple_encoding(training: bool) -> Built:
    from rtdl_num_embeddings import PiecewiseLinearEncoding, compute_bins

    x = _tabular_x()
    bins = compute_bins(x, n_bins=8)
    return PiecewiseLinearEncoding(bins), (torch.randn(5, 3),), {}


def _rtdl_ple_embeddings_b(training: bool) -> Built:
    from rtdl_num_embeddings import PiecewiseLinearEmbeddings, compute_bins

    x = _tabular_x()
    bins = compute_bins(x, n_bins=8)
    emb = PiecewiseLinearEmbeddings(bins, d_embedding=4, activation=False, version="B")
    return emb, (torch.randn(5, 3),), {}


def _rows_g8() -> list[Row]:
    return [
        Row(
            "astfb_torch_stft_roundtrip", *ASTEROID_FB,
            "asteroid_filterbanks.make_enc_dec('torch_stft', n_filters=32, kernel_size=32, stride=8): "
            "Decoder(Encoder(wav), length=T)",
            ("asteroid_filterbanks",), _ast_torch_stft_roundtrip,
            patterns="TorchSTFTFB.post_synthesis -> `ola_with_wdiv`: `min_mask = wsq_ola.abs() < 1e-11`; "
            "`if min_mask.any() and not torch.jit.is_scripting():` warnings.warn with f\"{wsq_ola.abs().min()}\" (False with "
            "center=True); "
            "boolean-mask read and write `wav[~min_mask] = wav[~min_mask] / wsq_ola[~min_mask]`; in-place "
            "`spec[..., 0, :] *= 2 ** 0.5` (_restore_freqs_an/_syn); reflect `pad_all_shapes`; every helper is "
            "wrapped by `script_if_tracing` (branches on `torch._C._is_tracing()`)",
        ),
        Row(
            "astfb_param_sinc_2d_mag_mask", *ASTEROID_FB,
            "asteroid_filterbanks.make_enc_dec('param_sinc', 16, 33, stride=8) on a 2-D (batch, time) wav, "
            "transforms.apply_mag_mask + transforms.mag, Decoder(length=T)",
            ("asteroid_filterbanks",), _ast_param_sinc_2d_mask,
            patterns="`multishape_conv1d`: `elif waveform.ndim == 2: warnings.warn(\"Input tensor was 2D ...\")` on "
            "every call; ParamSincFB.filters() rebuilt from `low_hz_`/`band_hz_` (abs, clamp, sin/cos, flip, cat) "
            "each forward; `check_complex` raise-if-odd shape checks in apply_mag_mask/mag; Decoder "
            "`length = min(length, wav.shape[-1])`",
        ),
        Row(
            "astfb_griffin_lim", *ASTEROID_FB,
            "asteroid_filterbanks.griffin_lim(mag, Encoder(STFTFB(32, 32, stride=8)), n_iter=4, momentum=0.9)",
            ("asteroid_filterbanks",), _ast_griffin_lim,
            patterns="with istft_dec=None builds the decoder inside the call: NumPy `perfect_synthesis_window` "
            "(np.roll/np.where/np.finfo loop over the ndarray `filterbank.window`, `int(0.5*len/hop)`), then "
            "constructs `Decoder(STFTFB(**stft_enc.get_config(), window=syn_win))` (np.fft.fft, torch.from_numpy, "
            "register_buffer); `angles = 2*pi*torch.rand_like(...)`; Python loop of n_iter decode/encode with "
            "`rebuilt = 0.0` float-then-tensor momentum",
        ),
        Row(
            "astfb_misi", *ASTEROID_FB,
            "asteroid_filterbanks.misi(mixture (batch, time), mags (batch, n_src, F, T), Encoder(STFTFB(32, 32, "
            "stride=8)), n_iter=3)",
            ("asteroid_filterbanks",), _ast_misi,
            patterns="`_mixture_consistency` with src_weights=None: `all_dims: List[int] = "
            "torch.arange(est_sources.ndim).tolist()` then list.pop; 2-D mixture through the Encoder hits "
            "`warnings.warn(\"Input tensor was 2D ...\")`; decoder built inside the call from NumPy "
            "`perfect_synthesis_window` + `STFTFB(...)`; `torch.rand_like` angles; multichannel "
            "`batch_packed_1d_conv` view/reshape",
        ),
        Row(
            "infonce_paired_negatives", *INFO_NCE,
            "info_nce.InfoNCE(temperature=0.1, negative_mode='paired')(query, positive_key, negative_keys)",
            ("info_nce",), _info_nce_paired,
            patterns="control: only shape checks (`query.dim() != 2`, `len(query) != len(negative_keys)`, raise "
            "ValueError) on the path; F.normalize, batched `query.unsqueeze(1) @ negative_keys.transpose(-2, -1)`, "
            "`torch.zeros(len(logits), dtype=torch.long)` labels, F.cross_entropy: no tensor value reaches Python",
        ),
        Row(
            "mlm_random_token_ignore_ids", *MLM,
            "mlm_pytorch.MLM(TinyTransformer, mask_prob=0.3, replace_prob=0.8, random_token_prob=0.1, "
            "num_tokens=20, mask_ignore_token_ids=[1])(seq)",
            ("mlm_pytorch",), _mlm_random_tokens,
            notes="integer token input: no input gradient; training mode still backprops the loss into the "
            "user's transformer",
            patterns="control: `mask_with_tokens` = functools.reduce(lambda acc, el: acc | (t == el)) over the "
            "Python set {1, 0}; `get_mask_subset_with_prob`: `math.ceil(prob * seq_len)` on the static length, "
            "cumsum/topk/`masked_fill_`/`scatter_`; `if self.random_token_prob > 0` on a Python float, "
            "`torch.randint` + `random_token_prob &= ~random_no_mask` + 3-arg torch.where; `uniform_` masks; "
            "no tensor value reaches Python",
        ),
        Row(
            "rtdl_compute_bins_quantile", *RTDL,
            "rtdl_num_embeddings.compute_bins(X (64, 3) with a binary column, n_bins=8)",
            ("rtdl_num_embeddings",), _rtdl_compute_bins, modes=INFERENCE,
            notes="returns bin edges (unique of quantiles): no gradient path",
            patterns="input checks on values: `if not X.isfinite().all(): raise`, "
            "`if (X == X[0]).all(dim=0).any(): raise`; `[q.unique() for q in torch.quantile(X, ...).T]` "
            "(data-dependent sizes); `_check_bins`: `len(feature_bins) < 2`, `if not feature_bins.isfinite().all()`, "
            "`if (feature_bins[:-1] >= feature_bins[1:]).any(): raise`, and `len(feature_bins) == 2` -> "
            "warnings.warn (taken for the binary column)",
        ),
        Row(
            "rtdl_ple_encoding_mixed_bins", *RTDL,
            "rtdl_num_embeddings.PiecewiseLinearEncoding(compute_bins(X, n_bins=8))(x (5, 3))",
            ("rtdl_num_embeddings",), _rtdl_ple_encoding,
            patterns="features with different bin counts (a binary column has one bin): forward returns "
            "`x[:, self.impl.mask]` (boolean-mask indexing with a bool buffer) instead of flatten; "
            "`single_bin_mask` buffer present -> 3-arg torch.where; addcmul + clamp/cat",
        ),
        Row(
            "rtdl_ple_embeddings_version_b", *RTDL,
            "rtdl_num_embeddings.PiecewiseLinearEmbeddings(compute_bins(X, n_bins=8), d_embedding=4, "
            "activation=False, version='B')(x (5, 3))",
            ("rtdl_num_embeddings",), _rtdl_ple_embeddings_b,
            patterns="control: the bin checks (`_check_bins`) run in __init__, not in forward; forward has "
            "`if x.ndim != 2` and `_NLinear`'s shape assert, LinearEmbeddings addcmul + PLE encoding (3-arg "
            "torch.where on the single_bin_mask buffer) + per-feature matmul: no tensor value reaches Python",
        ),
    ]


def _rows() -> list[Row]:
    return [*_rows_g5(), *_rows_g6(), *_rows_g7(), *_rows_g8()]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round seven")
