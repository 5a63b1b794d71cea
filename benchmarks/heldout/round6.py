"""Held-out round six: 34 entry points of 13 libraries that no corpus and no earlier round has.

Chosen by reading each library's source, written down in ROUND6.md beside this
file before any row was run under graphmend or torch.compile (each row was only
checked to build and run eagerly, twice, with identical results); measured once
by ``python -m benchmarks.bench_ecosystem --corpus benchmarks.heldout.round6``
and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs,
seeded random weights and inputs, nothing downloaded); a row whose ``modes`` is
one mode only says why in its ``notes``.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

# --- shared helpers ---------------------------------------------------------------------


def _blobs(batch: int, per_cluster: int, dim: int) -> torch.Tensor:
    """Three well-separated Gaussian blobs per batch instance: (batch, 3 * per_cluster, dim)."""
    centers = torch.tensor([[0.0] * dim, [6.0] + [0.0] * (dim - 1), [0.0, 6.0] + [0.0] * (dim - 2)])
    points = centers.repeat_interleave(per_cluster, 0)
    return points.unsqueeze(0) + 0.5 * torch.randn(batch, 3 * per_cluster, dim)


def linear_with_grads(zero_bias: bool = False) -> torch.nn.Linear:
    """A Linear(4, 3) whose parameters carry a seeded random ``.grad``, as after a backward."""
    model = torch.nn.Linear(4, 3)
    if zero_bias:
        with torch.no_grad():
            model.bias.zero_()
    for p in model.parameters():
        p.grad = torch.randn_like(p)
    return model


def optimizer_steps(optimizer: torch.optim.Optimizer, steps: int) -> list[torch.Tensor]:
    """``optimizer.step()`` ``steps`` times on the gradients already there; the parameters after."""
    for _ in range(steps):
        optimizer.step()
    return [p.detach().clone() for group in optimizer.param_groups for p in group["params"]]


def _perturb(model: torch.nn.Module) -> None:
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p))


def ema_update(ema: Any) -> list[torch.Tensor]:
    """One ``ema.update()`` of an EMA over a module; the EMA model's parameters after."""
    ema.update()
    return [p.detach().clone() for p in ema.ema_model.parameters()]


def ema_update_pytree(ema: Any) -> dict[str, torch.Tensor]:
    """One ``ema.update()`` of an EMA over a dict of tensors; the EMA tensors after."""
    ema.update()
    return {name: t.detach().clone() for name, t in ema.ema_pytree.items()}


# --- performer-pytorch ----------------------------------------------------------------------

PERFORMER = ("performer-pytorch", "1.1.4")


def _performer_self_attention(training: bool) -> Built:
    from performer_pytorch import SelfAttention

    attention = SelfAttention(dim=16, heads=2, dim_head=8, nb_features=8)
    mask = torch.tensor([[True] * 8, [True] * 5 + [False] * 3])
    return attention, (torch.randn(2, 8, 16),), {"mask": mask}


def _performer_lm(training: bool) -> Built:
    from performer_pytorch import PerformerLM

    model = PerformerLM(num_tokens=20, max_seq_len=16, dim=16, depth=1, heads=2, dim_head=8, nb_features=8,
                        causal=True, feature_redraw_interval=1, ff_chunks=2)
    return model, (torch.randint(0, 20, (2, 12)),), {}


# --- product-key-memory ---------------------------------------------------------------------

PKM = ("product-key-memory", "0.3.0")


def _pkm_topk(training: bool) -> Built:
    from product_key_memory import PKM as Pkm

    memory = Pkm(dim=16, heads=2, num_keys=8, topk=4, dim_head=8)
    return memory, (torch.randn(2, 6, 16),), {"gumbel_noise_scale": 0.5}


def _pkm_masked_batchnorm(training: bool) -> Built:
    from product_key_memory import PKM as Pkm

    memory = Pkm(dim=16, heads=2, num_keys=8, topk=4, dim_head=8, use_layernorm=False)
    mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    # The queries are normed as rows '(b p h) t d': one mask row per batch, key half and head.
    return memory, (torch.randn(2, 6, 16),), {"input_mask": mask.repeat_interleave(2 * 2, 0)}


def _pkm_coor_descent(training: bool) -> Built:
    from product_key_memory import PKM as Pkm

    memory = Pkm(dim=16, heads=2, num_keys=8, topk=4, dim_head=8, differentiable_topk=True,
                 concat_values_and_combine=True)
    trainable = torch.rand(64) > 0.5
    return memory, (torch.randn(2, 6, 16),), {"mem_trainable_mask": trainable}


# --- colt5-attention ------------------------------------------------------------------------

COLT5 = ("colt5-attention", "0.11.2")


def _colt5_mask() -> torch.Tensor:
    return torch.tensor([[True] * 12, [True] * 9 + [False] * 3])


def _colt5_routed_ff(training: bool) -> Built:
    from colt5_attention import ConditionalRoutedFeedForward

    ff = ConditionalRoutedFeedForward(dim=16, num_heavy_tokens=4, light_ff_mult=0.5, heavy_ff_mult=2)
    return ff, (torch.randn(2, 12, 16),), {"mask": _colt5_mask()}


def _colt5_routed_attention(training: bool) -> Built:
    from colt5_attention import ConditionalRoutedAttention

    attention = ConditionalRoutedAttention(dim=16, num_heavy_tokens_q=4, num_heavy_tokens_kv=4, num_routed_kv=2,
                                           has_light_attn=False, heavy_dim_head=8, heavy_heads=2, rotary_emb=True)
    return attention, (torch.randn(2, 12, 16),), {"mask": _colt5_mask()}


def _colt5_router(training: bool) -> Built:
    from colt5_attention import CoordinateDescentRouter

    router = CoordinateDescentRouter(dim=16, num_routing_tokens=2, cosine_sim_routing=True)
    return router, (torch.randn(2, 12, 16),), {"num_tokens": 4, "mask": _colt5_mask()}


# --- ema-pytorch ------------------------------------------------------------------------------

EMA = ("ema-pytorch", "0.8.3")


def _ema_first(training: bool) -> Built:
    from ema_pytorch import EMA as Ema

    ema = Ema(torch.nn.Linear(4, 3), beta=0.9, update_after_step=1, update_every=1)
    return ema_update, (ema,), {}


def _ema_decay(training: bool) -> Built:
    from ema_pytorch import EMA as Ema

    model = torch.nn.Linear(4, 3)
    ema = Ema(model, beta=0.9, update_after_step=1, update_every=1)
    ema.update()  # step 0: initialise (copy)
    ema.update()  # step 1: still within update_after_step (copy)
    _perturb(model)
    return ema_update, (ema,), {}


def _karras_ema(training: bool) -> Built:
    from ema_pytorch import KarrasEMA

    model = torch.nn.Linear(4, 3)
    ema = KarrasEMA(model, sigma_rel=0.05, update_every=1)
    ema.update()  # step 0: initialise
    _perturb(model)
    return ema_update, (ema,), {}


def _ema_pytree(training: bool) -> Built:
    from ema_pytorch import EMA as Ema

    tensors = {"weight": torch.randn(3, 4), "bias": torch.randn(3)}
    ema = Ema(tensors, beta=0.9, update_after_step=1, update_every=1)
    ema.update()
    ema.update()
    with torch.no_grad():
        for t in tensors.values():
            t.add_(torch.randn_like(t))
    return ema_update_pytree, (ema,), {}


# --- prodigyopt -------------------------------------------------------------------------------

PRODIGY = ("prodigyopt", "1.1.2")


def _prodigy(variant: str):
    def make(training: bool) -> Built:
        from prodigyopt import Prodigy

        if variant == "default":
            model = linear_with_grads()
            optimizer = Prodigy(model.parameters(), lr=1.0, weight_decay=0.01)
        else:
            model = linear_with_grads(zero_bias=True)
            optimizer = Prodigy(model.parameters(), lr=1.0, weight_decay=0.1, decouple=False,
                                use_bias_correction=True, safeguard_warmup=True, slice_p=2)
        return optimizer_steps, (optimizer, 2), {}

    return make


# --- dadaptation --------------------------------------------------------------------------------

DADAPT = ("dadaptation", "3.2")


def _dadapt(kind: str):
    def make(training: bool) -> Built:
        import dadaptation

        model = linear_with_grads()
        if kind == "adam":
            optimizer = dadaptation.DAdaptAdam(model.parameters(), lr=1.0, weight_decay=0.01, decouple=True)
        elif kind == "sgd":
            optimizer = dadaptation.DAdaptSGD(model.parameters(), lr=1.0, momentum=0.9, log_every=1)
        else:
            optimizer = dadaptation.DAdaptAdaGrad(model.parameters(), lr=1.0, momentum=0.5)
        return optimizer_steps, (optimizer, 2), {}

    return make


# --- schedulefree ---------------------------------------------------------------------------------

SCHEDULEFREE = ("schedulefree", "1.4.1")


def _schedulefree(tensor_lr: bool):
    def make(training: bool) -> Built:
        from schedulefree import AdamWScheduleFree

        model = linear_with_grads()
        lr: Any = torch.tensor(0.01) if tensor_lr else 0.01
        optimizer = AdamWScheduleFree(model.parameters(), lr=lr, warmup_steps=2, weight_decay=0.01,
                                      foreach=not tensor_lr)
        optimizer.train()
        return optimizer_steps, (optimizer, 2), {}

    return make


# --- lion-pytorch ----------------------------------------------------------------------------------

LION = ("lion-pytorch", "0.2.5")


def _lion(training: bool) -> Built:
    from lion_pytorch import Lion

    model = linear_with_grads()
    optimizer = Lion(model.parameters(), lr=1e-3, weight_decay=0.1, decoupled_weight_decay=True)
    return optimizer_steps, (optimizer, 2), {}


# --- torch-kmeans ----------------------------------------------------------------------------------

TORCH_KMEANS = ("torch-kmeans", "0.2.0")


def _tkm_kmeans(training: bool) -> Built:
    from torch_kmeans import KMeans

    model = KMeans(init_method="rnd", num_init=2, max_iter=20, n_clusters=3, verbose=True, seed=123)
    return model, (_blobs(2, 8, 2),), {}


def _tkm_kmeans_pp(training: bool) -> Built:
    from torch_kmeans import KMeans

    model = KMeans(init_method="k-means++", num_init=1, max_iter=20, n_clusters=None, verbose=False, seed=123)
    return model, (_blobs(2, 8, 2),), {"k": torch.tensor([2, 3])}


def _tkm_soft_kmeans(training: bool) -> Built:
    from torch_kmeans import SoftKMeans

    model = SoftKMeans(num_init=1, max_iter=20, n_clusters=3, verbose=False, seed=123, temp=5.0)
    return model, (_blobs(2, 6, 4),), {}


def _tkm_constrained(training: bool) -> Built:
    from torch_kmeans import ConstrainedKMeans

    model = ConstrainedKMeans(init_method="rnd", num_init=2, max_iter=20, n_clusters=3, verbose=True, seed=123)
    weights = torch.full((2, 24), 0.05) + 0.05 * torch.rand(2, 24)
    return model, (_blobs(2, 8, 2),), {"weights": weights}


# --- kmeans-pytorch ----------------------------------------------------------------------------------

KMEANS_PYTORCH = ("kmeans-pytorch", "0.3")


def _kmp_kmeans(distance: str):
    def make(training: bool) -> Built:
        import numpy as np
        from kmeans_pytorch import kmeans

        # kmeans() draws its initial centers with np.random.choice: seed NumPy too.
        np.random.seed(0)
        return kmeans, (_blobs(1, 8, 2)[0], 3), {"distance": distance}

    return make


def _kmp_predict(training: bool) -> Built:
    from kmeans_pytorch import kmeans_predict

    centers = torch.tensor([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    return kmeans_predict, (_blobs(1, 8, 2)[0], centers), {"distance": "cosine"}


# --- pytorch-tabnet ------------------------------------------------------------------------------------

TABNET = ("pytorch-tabnet", "4.1.0")


def _tabnet_inputs() -> torch.Tensor:
    """8 rows of 5 features; columns 0 and 3 categorical (codes < 4 and < 6) stored as floats."""
    x = torch.randn(8, 5)
    x[:, 0] = torch.randint(0, 4, (8,)).float()
    x[:, 3] = torch.randint(0, 6, (8,)).float()
    return x


def _tabnet(kind: str):
    def make(training: bool) -> Built:
        from pytorch_tabnet.tab_network import TabNet, TabNetPretraining

        # Features 1 and 2 attended as one group (what pytorch_tabnet.utils.create_group_matrix([[1, 2]], 5)
        # returns; that module imports pandas, which the library does not declare).
        groups = torch.tensor([[1.0, 0, 0, 0, 0], [0, 0.5, 0.5, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]])
        common: dict[str, Any] = {"n_d": 4, "n_a": 4, "n_steps": 2, "n_independent": 1, "n_shared": 1,
                                  "virtual_batch_size": 4, "group_attention_matrix": groups}
        categorical = {"cat_idxs": [0, 3], "cat_dims": [4, 6], "cat_emb_dim": [2, 2]}
        if kind == "categorical":
            return TabNet(5, 3, **common, **categorical), (_tabnet_inputs(),), {}
        if kind == "entmax":
            return TabNet(5, 3, mask_type="entmax", **common), (torch.randn(8, 5),), {}
        if kind == "masks":
            model = TabNet(5, 3, **common, **categorical)
            return model.forward_masks, (_tabnet_inputs(),), {}
        model = TabNetPretraining(5, pretraining_ratio=0.4, **common, **categorical)
        return model, (_tabnet_inputs(),), {}

    return make


# --- sparsemax ------------------------------------------------------------------------------------------

SPARSEMAX = ("sparsemax", "0.1.9")


def _sparsemax(training: bool) -> Built:
    from sparsemax import Sparsemax

    return Sparsemax(dim=1), (torch.randn(2, 5, 3),), {}


# --- ncps -------------------------------------------------------------------------------------------------

NCPS = ("ncps", "1.0.1")


def _ncps_cfc(training: bool) -> Built:
    from ncps.torch import CfC

    rnn = CfC(3, 8, mixed_memory=True, batch_first=True, return_sequences=True)
    # One sequence: the cell multiplies `timespans[:, t].squeeze()` into a (batch, units) tensor, which
    # broadcasts only for batch 1.
    timespans = torch.rand(1, 5) + 0.5
    return rnn, (torch.randn(1, 5, 3),), {"timespans": timespans}


def _ncps_ltc(training: bool) -> Built:
    from ncps.torch import LTC
    from ncps.wirings import AutoNCP

    rnn = LTC(3, AutoNCP(8, 2, seed=7), batch_first=True, ode_unfolds=3)
    return rnn, (torch.randn(2, 5, 3),), {}


INFERENCE = ("inference",)
OPTIMIZER_NOTE = ("optimizer steps on the .grad set in make, in place on .data or under torch.no_grad; returns "
                  "the parameters detached: no gradient path")
EMA_NOTE = "an EMA update (in-place copies and lerps of detached tensors); returns the EMA weights: no gradient path"
KMEANS_NOTE = ("Lloyd iterations run under torch.no_grad: labels and centers carry no gradient, only the input "
               "echoed back (x_org) would")


def _rows() -> list[Row]:
    return [
        # performer-pytorch
        Row("performer_self_attention_masked", *PERFORMER, "performer_pytorch.SelfAttention(mask)",
            ("performer_pytorch",), _performer_self_attention,
            patterns="`if not empty(q)` (numel), `v.masked_fill_(~global_mask, 0.)` in place on a view; "
                     "`assert not exists(context)`; random-feature kernel with `.detach()`ed amax"),
        Row("performer_lm_redraw", *PERFORMER, "performer_pytorch.PerformerLM(causal, feature_redraw_interval=1)",
            ("performer_pytorch",), _performer_lm,
            patterns="ProjectionUpdater: `if not self.training: return`, then "
                     "`if exists(interval) and self.calls_since_last_redraw >= interval:` (a tensor buffer in a "
                     "Python if) whose arm redraws every projection (randn, linalg.qr on .cpu(), copy_ into "
                     "buffers) and `.zero_()`s the counter, else `+= 1`; chunked feed-forward"),
        # product-key-memory
        Row("pkm_topk_gumbel", *PKM, "product_key_memory.PKM(gumbel_noise_scale=0.5)", ("product_key_memory",),
            _pkm_topk,
            patterns="`if gumbel_noise_scale > 0.`: uniform_ noise; two-level product-key `dots.topk`, "
                     "`all_indices.gather(-1, final_indices)`, EmbeddingBag(per_sample_weights)"),
        Row("pkm_masked_batchnorm", *PKM, "product_key_memory.PKM(use_layernorm=False, input_mask)",
            ("product_key_memory",), _pkm_masked_batchnorm,
            patterns="MaskedBatchNorm1D: `x = x[mask]` (boolean-mask gather, data-dependent length) then "
                     "`initial_x[mask] = x` (boolean-mask store); BatchNorm1d on the gathered rows"),
        Row("pkm_coor_descent_topk", *PKM, "product_key_memory.PKM(differentiable_topk, mem_trainable_mask)",
            ("product_key_memory", "colt5_attention"), _pkm_coor_descent,
            patterns="colt5 topk: `k = torch.Tensor([k]).to(s)`, 20 coordinate-descent iterations with "
                     "`max(current_eps * eps_decay, eps)`; `assert len(mem_trainable_mask) == ...`; "
                     "`mem_trainable_mask[value_indices]` gather and a straight-through detach"),
        # colt5-attention
        Row("colt5_routed_ff_masked", *COLT5, "colt5_attention.ConditionalRoutedFeedForward(mask)",
            ("colt5_attention",), _colt5_routed_ff,
            patterns="CoordinateDescentRouter: `if n <= num_tokens:` shortcut, coor_descent loop, "
                     "`scores.topk(num_tokens)`, batched_gather by tensor indices; route_back "
                     "`src[batch_range, indices] = routed_tokens` (index_put)"),
        Row("colt5_routed_attention", *COLT5, "colt5_attention.ConditionalRoutedAttention(2 kv routes, rotary, mask)",
            ("colt5_attention",), _colt5_routed_attention,
            patterns="two routers (q and kv, two routing tokens: pack/unpack); `seq_rotary_emb[indices_q]` "
                     "advanced indexing; Attend masks; null-q-token scatter back"),
        Row("colt5_router_cosine", *COLT5, "colt5_attention.CoordinateDescentRouter(2 routing tokens, cosine sim)",
            ("colt5_attention",), _colt5_router,
            patterns="coor_descent on l2-normed scores (`torch.Tensor([k]).to(s)`, ε-scaling loop with Python "
                     "max), topk, straight-through scores `masked_fill(~selected_mask, 0.)` after a mask gather; "
                     "returns long indices, scores, routed tokens and the routed mask"),
        # ema-pytorch
        Row("ema_update_first", *EMA, "ema_pytorch.EMA.update (first call: initialise)", ("ema_pytorch",),
            _ema_first, modes=INFERENCE, notes=EMA_NOTE,
            patterns="`step = self.step.item()`; `if not self.initted.item():` whose arm copies every parameter "
                     "and writes `self.initted.data.copy_(torch.tensor(True))`"),
        Row("ema_update_decay", *EMA, "ema_pytorch.EMA.update (past update_after_step: lerp)", ("ema_pytorch",),
            _ema_decay, modes=INFERENCE, notes=EMA_NOTE,
            patterns="as ema_update_first down the other arm: `divisible_by(step, every)` on the read-back "
                     "step; get_current_decay: `if epoch.item() <= 0: return 0.`, `value.clamp(...).item()` "
                     "as the lerp weight"),
        Row("karras_ema_update", *EMA, "ema_pytorch.KarrasEMA(sigma_rel=0.05).update", ("ema_pytorch",),
            _karras_ema, modes=INFERENCE, notes=EMA_NOTE,
            patterns="`if (step % self.update_every) != 0: return` on `self.step.item()`; beta property "
                     "`(1. - 1. / (self.step.item() + 1.)) ** (1. + self.gamma)`; `if not self.initted.item():`"),
        Row("ema_pytree_update", *EMA, "ema_pytorch.EMA(dict of tensors) -> EMAPytree.update", ("ema_pytorch",),
            _ema_pytree, modes=INFERENCE, notes=EMA_NOTE,
            patterns="as ema_update_decay over torch.utils._pytree.tree_flatten of the dict; `is_tensor` filters"),
        # prodigyopt
        Row("prodigy_two_steps", *PRODIGY, "prodigyopt.Prodigy.step x2", ("prodigyopt",), _prodigy("default"),
            modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="first step `if p.any():` picks the p0 state; `torch.dot(...).item()` and `s.abs().sum().item()` "
                     "accumulate Python floats; `if d_denom == 0: return loss`; d = max(d, d_hat) on read-back floats"),
        Row("prodigy_safeguard_slice", *PRODIGY,
            "prodigyopt.Prodigy(bias correction, safeguard_warmup, slice_p=2, coupled decay).step x2",
            ("prodigyopt",), _prodigy("variant"), modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="as prodigy_two_steps with a zero bias (`if p.any()` false arm: p0 = torch.tensor(0)), "
                     "`flatten()[::slice_p]` slices, coupled `grad.add_(p.data, alpha=decay)`"),
        # dadaptation
        Row("dadapt_adam_steps", *DADAPT, "dadaptation.DAdaptAdam(decouple).step x2", ("dadaptation",),
            _dadapt("adam"), modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="`torch.dot(...).item()`, `s.abs().sum().item()` into Python floats; "
                     "`if sk_l1 == 0: return loss`; `d = max(d, min(d_hat, d * growth_rate))`"),
        Row("dadapt_sgd_logging", *DADAPT, "dadaptation.DAdaptSGD(momentum, log_every=1).step x2", ("dadaptation",),
            _dadapt("sgd"), modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="`if k == 0:` g0 norm from `(grad * grad).sum().item()` and math.sqrt; "
                     "`if global_sk_sq == 0: return loss`; `logging.info(f'...{d_hat}...')` every step"),
        Row("dadapt_adagrad_momentum", *DADAPT, "dadaptation.DAdaptAdaGrad(momentum=0.5).step x2", ("dadaptation",),
            _dadapt("adagrad"), modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="six `.sum().item()` reads per parameter per step; `if skl1 == 0: return loss`; "
                     "`if grad.is_sparse` arms (dense here)"),
        # schedulefree
        Row("schedulefree_adamw_warmup", *SCHEDULEFREE, "schedulefree.AdamWScheduleFree(warmup_steps=2).step x2",
            ("schedulefree",), _schedulefree(False), modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="Python-float schedule state (`if k < warmup_steps`, `max(lr, group['lr_max'])`, "
                     "`try: ckp1 = weight / weight_sum except ZeroDivisionError`), torch._foreach_* updates; "
                     "no tensor read back (the Python-state counterpart of schedulefree_adamw_tensor_lr)"),
        Row("schedulefree_adamw_tensor_lr", *SCHEDULEFREE,
            "schedulefree.AdamWScheduleFree(lr=tensor, foreach=False).step x2", ("schedulefree",),
            _schedulefree(True), modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="a tensor lr (the signature allows one): `max(lr, group['lr_max'])` compares a tensor in "
                     "Python, weight/ckp1 become tensors, `alpha=lr * (...)` a tensor scalar; per-parameter loop"),
        # lion-pytorch
        Row("lion_two_steps", *LION, "lion_pytorch.Lion(decoupled_weight_decay).step x2", ("lion_pytorch",), _lion,
            modes=INFERENCE, notes=OPTIMIZER_NOTE,
            patterns="control: `filter(lambda p: exists(p.grad), ...)`, `if len(state) == 0:` init, sign update; "
                     "no data-dependent code"),
        # torch-kmeans
        Row("tkm_kmeans_rnd", *TORCH_KMEANS, "torch_kmeans.KMeans(rnd init, num_init=2, verbose)",
            ("torch_kmeans",), _tkm_kmeans, modes=INFERENCE, notes=KMEANS_NOTE,
            patterns="_check_k: `if (k >= n).any(): raise`, `int(k.max())`; `torch.max(k).cpu().item()` as a "
                     "shape; `centers[k_mask] = inf` (mask store); `if (shift < self.tol).all(): print(f'...'); "
                     "break`; torch.jit.script helpers"),
        Row("tkm_kmeans_pp_k_per_instance", *TORCH_KMEANS, "torch_kmeans.KMeans(k-means++)(x, k=tensor([2, 3]))",
            ("torch_kmeans",), _tkm_kmeans_pp, modes=INFERENCE, notes=KMEANS_NOTE,
            patterns="as tkm_kmeans_rnd with a per-instance k tensor (k_mask non-empty); k-means++ init: "
                     "`for nc in range(1, k_max)` with k_max from `.item()`, `pot[msk[:, :, :nc]] = 0`, multinomial"),
        Row("tkm_soft_kmeans", *TORCH_KMEANS, "torch_kmeans.SoftKMeans (differentiable last iteration)",
            ("torch_kmeans",), _tkm_soft_kmeans,
            patterns="unit normalisation `x[z_msk] = eps`; no_grad loop with `if (shift < tol).all(): break`; "
                     "torch.enable_grad() final iteration; `if all_same.any(): warn(f'...{nonzero().tolist()}')`"),
        Row("tkm_constrained_kmeans", *TORCH_KMEANS, "torch_kmeans.ConstrainedKMeans(weights)",
            ("torch_kmeans",), _tkm_constrained, modes=INFERENCE, notes=KMEANS_NOTE,
            patterns="_check_weights `if not ((0 < w) & (w <= 1)).all(): raise`; capacity-aware assignment loop "
                     "with first_nonzero, `if not_assigned.any():`, `.nonzero(as_tuple=True)` loops; "
                     "`if (c_assign < 0).any():` feasibility repair"),
        # kmeans-pytorch
        Row("kmp_kmeans_euclidean", *KMEANS_PYTORCH, "kmeans_pytorch.kmeans(X, 3)", ("kmeans_pytorch",),
            _kmp_kmeans("euclidean"),
            patterns="print(f'...'); np.random.choice init; `while True:` loop, per cluster "
                     "`torch.nonzero(choice_cluster == index).squeeze()` + index_select (data-dependent size), "
                     "tqdm set_postfix(f'{center_shift ** 2:0.6f}'), `if center_shift ** 2 < tol: break`"),
        Row("kmp_kmeans_cosine", *KMEANS_PYTORCH, "kmeans_pytorch.kmeans(X, 3, distance='cosine')",
            ("kmeans_pytorch",), _kmp_kmeans("cosine"), patterns="as kmp_kmeans_euclidean with pairwise_cosine"),
        Row("kmp_predict_cosine", *KMEANS_PYTORCH, "kmeans_pytorch.kmeans_predict(distance='cosine')",
            ("kmeans_pytorch",), _kmp_predict, modes=INFERENCE, notes="returns integer cluster ids: no gradient path",
            patterns="print(f'predicting on {device}..'); pairwise cosine, argmin, .cpu()"),
        # pytorch-tabnet
        Row("tabnet_categorical", *TABNET, "pytorch_tabnet.tab_network.TabNet(cat_idxs, sparsemax)",
            ("pytorch_tabnet",), _tabnet("categorical"), frozen=("0",),
            patterns="EmbeddingGenerator: `for i, is_continuous in enumerate(self.continuous_idx): if is_continuous:` "
                     "(a bool tensor iterated and branched on); GBN `x.chunk(int(np.ceil(n / vbs)))`; "
                     "SparsemaxFunction sort/cumsum/gather"),
        Row("tabnet_entmax", *TABNET, "pytorch_tabnet.tab_network.TabNet(mask_type='entmax')", ("pytorch_tabnet",),
            _tabnet("entmax"),
            patterns="Entmax15Function (autograd.Function): sort, cumsum, `support_size = (tau <= Xsrt).sum(dim)` "
                     "then `tau.gather(dim, support_size - 1)`; GBN chunks; no embeddings (skip_embedding)"),
        Row("tabnet_forward_masks", *TABNET, "pytorch_tabnet.tab_network.TabNet.forward_masks (explain)",
            ("pytorch_tabnet",), _tabnet("masks"), frozen=("0",),
            patterns="as tabnet_categorical; a dict of per-step masks and an in-place `M_explain +=` accumulator"),
        Row("tabnet_pretraining", *TABNET, "pytorch_tabnet.tab_network.TabNetPretraining(pretraining_ratio=0.4)",
            ("pytorch_tabnet",), _tabnet("pretraining"), frozen=("0",),
            patterns="`if self.training:` RandomObfuscator torch.bernoulli group masks as the encoder prior, else a "
                     "ones mask; embeddings as tabnet_categorical; TabNetDecoder"),
        # sparsemax
        Row("sparsemax_dim1", *SPARSEMAX, "sparsemax.Sparsemax(dim=1) on a 3-D input", ("sparsemax",), _sparsemax,
            patterns="control: autograd.Function that transposes and flattens (ctx attributes), sort, cumsum, "
                     "max; a raise guard on static dims only; no data-dependent code"),
        # ncps
        Row("ncps_cfc_mixed_timespans", *NCPS, "ncps.torch.CfC(mixed_memory, timespans)", ("ncps",), _ncps_cfc,
            patterns="Python loop over the sequence, `1.0 if timespans is None else timespans[:, t].squeeze()`, "
                     "LSTMCell mixed memory, shape raise guards; no tensor read back"),
        Row("ncps_ltc_autoncp", *NCPS, "ncps.torch.LTC(AutoNCP wiring, ode_unfolds=3)", ("ncps",), _ncps_ltc,
            patterns="control: NumPy-seeded wiring masks as parameters, ODE unfold loop, softplus constraints; "
                     "no data-dependent code"),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round six")
