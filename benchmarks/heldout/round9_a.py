"""Held-out round nine (r9a): opacus and higher.

Drafted by reading each library's source before any row was run under
graphmend, torch.compile or Dynamo (each row was only checked to build and run
eagerly, twice from fresh builds, with identical results); to be measured once
and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs,
seeded random weights and inputs, nothing downloaded); a row whose ``modes``
is one mode only says why in its ``notes``.

The opacus rows that take a DP-SGD step pass the wrapped model, the DP
optimizer (and the privacy engine, data loader or DP criterion) as arguments,
so every build, and every later call with fresh inputs, steps a fresh model.
Their noise comes from torch's global RNG (``secure_mode=False``, no
``noise_generator``: ``torch.normal(..., generator=None)``), which the harness
seeds before each call.  The higher rows run a few differentiable inner-loop
steps (``higher.innerloop_ctx``) on a tiny MLP classifier over 6 features with
3 classes; the model and its torch optimizer are arguments too.  The inner loop
differentiates its own loss (``torch.autograd.grad``), so every higher row (and
every opacus row that runs a backward) wraps its body in ``torch.enable_grad()``:
the harness's inference mode runs under ``torch.no_grad``.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

OPACUS = ("opacus", "1.6.0")
HIGHER = ("higher", "0.2.1")


# --- helpers ----------------------------------------------------------------------


def _r9a_mlp() -> torch.nn.Module:
    """6 features -> 16 hidden (ReLU) -> 3 classes."""
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))


def _r9a_sparse_features(n: int) -> torch.Tensor:
    """Non-negative, sparse count-like features (about half the entries zero); the first
    two features are absent from the whole batch (all zero), so the first layer's
    gradient has exactly-zero columns."""
    x = torch.relu(torch.randn(n, 6)) * (torch.rand(n, 6) > 0.3)
    x[:, :2] = 0.0
    return x


def _r9a_task(n_support: int = 10, n_query: int = 6) -> tuple[torch.Tensor, ...]:
    """A few-shot task: support features and labels, query features."""
    x_support = _r9a_sparse_features(n_support)
    y_support = torch.randint(0, 3, (n_support,))
    x_query = _r9a_sparse_features(n_query)
    return x_support, y_support, x_query


def _r9a_inner_loop(model: torch.nn.Module, opt: torch.optim.Optimizer, x_support: torch.Tensor,
                    y_support: torch.Tensor, x_query: torch.Tensor, steps: int,
                    **ctx_kwargs: Any) -> dict[str, Any]:
    """``steps`` differentiable steps of ``opt``'s kind on the support loss, then the
    adapted model's query logits and its final fast weights."""
    import higher

    with torch.enable_grad():
        with higher.innerloop_ctx(model, opt, **ctx_kwargs) as (fmodel, diffopt):
            for _ in range(steps):
                diffopt.step(F.cross_entropy(fmodel(x_support), y_support))
            return {"query_logits": fmodel(x_query), "fast_params": list(fmodel.parameters())}


def _r9a_token_classifier() -> torch.nn.Module:
    """Token ids (B, T) over a 20-word vocabulary -> embedding 8 -> per-token linear 8
    (3-D activations) -> mean over tokens -> 3 classes.  No buffers (opacus' strict
    validation)."""

    class TokenClassifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(20, 8)
            self.proj = torch.nn.Linear(8, 8)
            self.head = torch.nn.Linear(8, 3)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            return self.head(torch.tanh(self.proj(self.embed(ids))).mean(1))

    return TokenClassifier()


def _r9a_token_batch(n: int = 8, t: int = 5) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids with repeats within and across samples (the embedding norm sampler
    dedups (sample, token) pairs), and labels."""
    ids = torch.randint(0, 12, (n, t))
    ids[:, -1] = ids[:, 0]  # each sample repeats a token
    return ids, torch.randint(0, 3, (n,))


def _r9a_trained_params(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


# --- opacus -----------------------------------------------------------------------


def _r9a_dplstm_packed(training: bool) -> Built:
    from opacus.layers import DPLSTM

    lstm = DPLSTM(input_size=4, hidden_size=6, num_layers=2, bidirectional=True, batch_first=True)

    def run_packed(lstm: torch.nn.Module, x: torch.Tensor, lengths: torch.Tensor) -> dict[str, Any]:
        from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h_n, c_n) = lstm(packed)
        padded, out_lengths = pad_packed_sequence(out, batch_first=True)
        return {"out": padded, "lengths": out_lengths, "h_n": h_n, "c_n": c_n}

    lengths = torch.tensor([5, 2, 4, 1, 3])
    x = torch.randn(5, 5, 4) * (torch.arange(5)[None, :, None] < lengths[:, None, None])
    return run_packed, (lstm, x, lengths), {}


def _r9a_make_private_poisson(training: bool) -> Built:
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    dataset = TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,)))
    engine = PrivacyEngine(accountant="rdp", secure_mode=False)
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=DataLoader(dataset, batch_size=8),
        noise_multiplier=1.1, max_grad_norm=0.5, poisson_sampling=True,
    )
    model.train()

    def dp_sgd_step(model: Any, optimizer: Any, loader: Any, engine: Any) -> dict[str, Any]:
        with torch.enable_grad():
            x, y = next(iter(loader))  # a Poisson-sampled batch (size drawn from the RNG)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            grad_samples = [p.grad_sample.clone() for p in model.parameters()]
            optimizer.step()
        return {
            "batch": (x, y),
            "grad_samples": grad_samples,
            "noisy_grads": [p.grad.clone() for p in model.parameters()],
            "params": _r9a_trained_params(model),
            "epsilon": engine.get_epsilon(delta=1e-5),
        }

    return dp_sgd_step, (model, optimizer, loader, engine), {}


def _r9a_adaclip(training: bool) -> Built:
    from opacus import GradSampleModule
    from opacus.optimizers import AdaClipDPOptimizer

    model = GradSampleModule(torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)))
    model.train()
    optimizer = AdaClipDPOptimizer(
        torch.optim.SGD(model.parameters(), lr=0.1), noise_multiplier=1.0, max_grad_norm=0.3,
        expected_batch_size=8, target_unclipped_quantile=0.5, clipbound_learning_rate=0.2,
        max_clipbound=1.0, min_clipbound=0.05, unclipped_num_std=1.0,
    )

    def adaclip_steps(model: Any, optimizer: Any, x: torch.Tensor, y: torch.Tensor) -> dict[str, Any]:
        bounds = []
        with torch.enable_grad():
            for _ in range(2):
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
                bounds.append(torch.as_tensor(optimizer.max_grad_norm).clone())
        return {"params": _r9a_trained_params(model), "clip_bounds": bounds,
                "noisy_unclipped_count": torch.as_tensor(optimizer.unclipped_num).clone()}

    return adaclip_steps, (model, optimizer, torch.randn(8, 6) * 2.0, torch.randint(0, 3, (8,))), {}


def _r9a_ghost_clipping(training: bool) -> Built:
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    model = _r9a_token_classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    ids, labels = _r9a_token_batch()
    engine = PrivacyEngine(accountant="rdp", secure_mode=False)
    model, optimizer, criterion, _ = engine.make_private(
        module=model, optimizer=optimizer, criterion=torch.nn.CrossEntropyLoss(),
        data_loader=DataLoader(TensorDataset(ids, labels), batch_size=8),
        noise_multiplier=0.8, max_grad_norm=0.05, poisson_sampling=False, grad_sample_mode="ghost",
    )
    model.train()

    def ghost_step(model: Any, optimizer: Any, criterion: Any, ids: torch.Tensor, labels: torch.Tensor) -> dict[str, Any]:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = criterion(model(ids), labels)
            loss.backward()  # two backward passes: norms, then the clipped re-weighted loss
            norms = model.per_sample_gradient_norms.clone()
            optimizer.step()
        return {"loss": loss.item(), "per_sample_norms": norms, "params": _r9a_trained_params(model)}

    return ghost_step, (model, optimizer, criterion, ids, labels), {}


def _r9a_adaptive_ghost_clipping(training: bool) -> Built:
    from opacus.utils.adaptive_clipping.adaptive_clipping_utils import PrivacyEngineAdaptiveClipping
    from torch.utils.data import DataLoader, TensorDataset

    model = _r9a_token_classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    ids, labels = _r9a_token_batch(n=12)
    engine = PrivacyEngineAdaptiveClipping(accountant="rdp", secure_mode=False)
    model, optimizer, criterion, _ = engine.make_private(
        module=model, optimizer=optimizer, criterion=torch.nn.CrossEntropyLoss(reduction="mean"),
        data_loader=DataLoader(TensorDataset(ids, labels), batch_size=12),
        noise_multiplier=0.5, max_grad_norm=0.05, poisson_sampling=False, grad_sample_mode="ghost",
        target_unclipped_quantile=0.5, min_clipbound=0.01, max_clipbound=10.0, clipbound_learning_rate=0.2,
    )
    model.train()

    def adaptive_ghost_steps(model: Any, optimizer: Any, criterion: Any, ids: torch.Tensor,
                             labels: torch.Tensor) -> dict[str, Any]:
        bounds = []
        with torch.enable_grad():
            for _ in range(2):
                optimizer.zero_grad()
                criterion(model(ids), labels).backward()
                optimizer.step()
                bounds.append(optimizer.max_grad_norm)
        return {"clip_bounds": bounds, "noise_multiplier": optimizer._adjusted_noise_multiplier,
                "params": _r9a_trained_params(model)}

    return adaptive_ghost_steps, (model, optimizer, criterion, ids, labels), {}


def _r9a_check_per_sample_grads(training: bool) -> Built:
    conv_net = torch.nn.Sequential(
        torch.nn.Conv1d(3, 4, 3, padding=1), torch.nn.GroupNorm(2, 4), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(4 * 6, 2),
    )

    def check(conv_net: torch.nn.Module, x: torch.Tensor) -> dict[str, Any]:
        from opacus.utils.per_sample_gradients_utils import (
            check_per_sample_gradients_are_correct,
            compute_grad_samples_microbatch_and_opacus,
        )

        with torch.enable_grad():
            ok = check_per_sample_gradients_are_correct(x, conv_net, batch_first=True)
            micro, hooks = compute_grad_samples_microbatch_and_opacus(x, conv_net, batch_first=True,
                                                                      loss_reduction="mean")
        return {"correct": ok, "microbatch": micro, "opacus": hooks}

    return check, (conv_net, torch.randn(3, 3, 6)), {}


# --- higher -----------------------------------------------------------------------


def _r9a_higher_inner_loop_row(opt: torch.optim.Optimizer, model: torch.nn.Module) -> Built:
    """Three inner steps of ``higher.innerloop_ctx(model, opt)`` on a fresh task (the torch
    optimizer ``opt`` of ``model`` picks higher's differentiable counterpart)."""

    def inner_loop(model: torch.nn.Module, opt: Any, x_support: torch.Tensor, y_support: torch.Tensor,
                   x_query: torch.Tensor) -> dict[str, Any]:
        return _r9a_inner_loop(model, opt, x_support, y_support, x_query, 3, copy_initial_weights=False)

    return inner_loop, (model, opt, *_r9a_task()), {}


def _r9a_higher_maml_sgd(training: bool) -> Built:
    model = _r9a_mlp()
    return _r9a_higher_inner_loop_row(torch.optim.SGD(model.parameters(), lr=0.1), model)


def _r9a_higher_adam_masks(training: bool) -> Built:
    model = _r9a_mlp()
    return _r9a_higher_inner_loop_row(torch.optim.Adam(model.parameters(), lr=0.05, amsgrad=True), model)


def _r9a_higher_rprop(training: bool) -> Built:
    model = _r9a_mlp()
    return _r9a_higher_inner_loop_row(torch.optim.Rprop(model.parameters(), lr=0.02), model)


def _r9a_higher_adagrad(training: bool) -> Built:
    model = _r9a_mlp()
    return _r9a_higher_inner_loop_row(torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01), model)


def _r9a_higher_learned_hparams(training: bool) -> Built:
    model = _r9a_mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    x_support, y_support, x_query = _r9a_task()
    y_query = torch.randint(0, 3, (x_query.shape[0],))

    def hyper_step(model: torch.nn.Module, opt: Any, x_support: torch.Tensor, y_support: torch.Tensor,
                   x_query: torch.Tensor, y_query: torch.Tensor) -> dict[str, Any]:
        import higher

        hparams = higher.optim.get_trainable_opt_params(opt)
        with torch.enable_grad():
            with higher.innerloop_ctx(model, opt, override=hparams) as (fmodel, diffopt):
                for _ in range(2):
                    diffopt.step(F.cross_entropy(fmodel(x_support), y_support))
                meta_loss = F.cross_entropy(fmodel(x_query), y_query)
                lr, momentum = hparams["lr"][0], hparams["momentum"][0]
                g_lr, g_momentum = torch.autograd.grad(meta_loss, (lr, momentum))
        with torch.no_grad():
            lr -= 0.01 * g_lr
            momentum -= 0.01 * g_momentum
        higher.optim.apply_trainable_opt_params(opt, hparams)
        group = opt.param_groups[0]
        return {"meta_loss": meta_loss.detach(), "lr": group["lr"], "momentum": group["momentum"],
                "nesterov": group["nesterov"], "hypergrads": (g_lr, g_momentum)}

    return hyper_step, (model, opt, x_support, y_support, x_query, y_query), {}


# --- rows -------------------------------------------------------------------------

DP_STEP_NOTES = (
    "a DP-SGD step updates the parameters in place (optimizer.step under torch.no_grad) and fills "
    "p.grad_sample / p.grad through its own backward (run under torch.enable_grad, since the harness's "
    "inference mode runs under no_grad): the outputs are detached copies, no gradient path to compare; the "
    "model and optimizer are arguments, so each build and each call steps a fresh model"
)

INNER_LOOP_NOTES = (
    "higher's differentiable optimizer takes torch.autograd.grad of the support loss, so the row wraps the "
    "inner loop in torch.enable_grad() (the harness's inference mode runs under no_grad); "
    "copy_initial_weights=False, so training mode backprops the query logits (and the fast weights) through "
    "the unrolled steps into the model's parameters (second order) and the task's features; the model and "
    "its optimizer are arguments"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r9a_opacus_dplstm_packed", *OPACUS,
            "opacus.layers.DPLSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)"
            "(pack_padded_sequence(x (5, 5, 4), lengths=[5, 2, 4, 1, 3], enforce_sorted=False))",
            ("opacus",), _r9a_dplstm_packed,
            notes="the sequence is packed inside the call from the lengths tensor (an argument), then unpacked",
            patterns="`DPRNNBase.forward`: `input_data.split(tuple(batch_sizes))` (a tuple of ints from the packed "
            "batch_sizes tensor), `max_batch_size = int(batch_sizes[0])`, `cell.set_max_batch_length(...)`; "
            "`forward_layer` per time step: `batch_size_t = batch_sizes[t].item()`, `delta = batch_size_t - "
            "batch_size_prev`, `if delta > 0:` concatenates the initial state slice `h_0[batch_size_prev:"
            "batch_size_t]` (bounds from data), `cell(x[t], ..., batch_size_t)` slicing `h[:batch_size_t]`; "
            "reverse layers `batch_sizes.flip(0)`; `compute_seq_lengths(batch_sizes)`: `.item()` differences "
            "build a Python list of lengths, then per sequence `h_last[i, :] = h_temp[seq_len - 1][i, :]` "
            "(Python index from data)",
        ),
        Row(
            "r9a_opacus_make_private_poisson_step", *OPACUS,
            "opacus.PrivacyEngine(accountant='rdp').make_private(mlp, SGD, DataLoader(32 samples, batch 8), "
            "noise_multiplier=1.1, max_grad_norm=0.5, poisson_sampling=True); one batch from the DP loader, "
            "backward, optimizer.step(), engine.get_epsilon(1e-5)",
            ("opacus",), _r9a_make_private_poisson, modes=INFERENCE,
            notes=DP_STEP_NOTES + "; the Poisson sampler and the noise both draw from the global RNG "
            "(generator=None, secure_mode=False)",
            patterns="`UniformWithReplacementSampler.__iter__`: `mask = torch.rand(n) < sample_rate`, "
            "`indices = mask.nonzero().reshape(-1).tolist()` (data-dependent batch size); `DPDataLoader` collate "
            "`if len(batch) > 0` else an empty batch shaped from the first; GradSampleModule hooks: "
            "`if not self.hooks_enabled`, `module.activations.append(...)`, `p._forward_counter` counting, "
            "`max_batch_len` from the activations, per-layer einsum grad samplers, `if not "
            "self.grad_accumulation_allowed: if isinstance(p.grad_sample, list) and len(...) > 1: raise`; "
            "`DPOptimizer.pre_step`: `if len(self.grad_samples[0]) == 0` (empty Poisson batch), per-sample norms "
            "`torch.stack(...).norm(2, dim=1)`, clip factors `(max_grad_norm / (norms + 1e-6)).clamp(max=1.0)`, "
            "`hasattr(x, '_processed')` raise checks, `_generate_noise`: `if std == 0`, `torch.normal(..., "
            "generator=None)`, `p.grad /= expected_batch_size * accumulated_iterations`; the accountant hook "
            "appends `(noise_multiplier, sample_rate, 1)`; `get_epsilon`: RDP orders in NumPy, `np.isnan(eps)"
            ".all()`, `float(eps)`",
        ),
        Row(
            "r9a_opacus_adaclip_two_steps", *OPACUS,
            "opacus.optimizers.AdaClipDPOptimizer(SGD, noise_multiplier=1.0, max_grad_norm=0.3, "
            "target_unclipped_quantile=0.5, unclipped_num_std=1.0, min/max_clipbound=0.05/1.0) over "
            "GradSampleModule(mlp): two zero_grad/backward/step rounds on x (8, 6)",
            ("opacus",), _r9a_adaclip, modes=INFERENCE,
            notes=DP_STEP_NOTES,
            patterns="`clip_and_accumulate`: `self.unclipped_num += len(clip_factor) - (clip_factor < 1).sum()` "
            "(a count from a comparison, int + 0-d tensor); `add_noise`: `if self.noise_multiplier > 0`, noise on "
            "`self.unclipped_num.float()` from the global RNG, `self.unclipped_num = float(self.unclipped_num)` "
            "(tensor read into a Python float); `update_max_grad_norm`: `self.max_grad_norm *= torch.exp(...)` "
            "(the bound becomes a 0-d tensor), `if self.max_grad_norm > self.max_clipbound:` / `elif ... < "
            "self.min_clipbound:` (tensor bools), and the second step clips with the tensor bound; "
            "GradSampleModule hooks and per-sample clip factors as in DPOptimizer",
        ),
        Row(
            "r9a_opacus_ghost_clipping_embedding", *OPACUS,
            "opacus.PrivacyEngine.make_private(token classifier (Embedding 20x8, Linear, Linear), SGD, "
            "criterion=CrossEntropyLoss(), grad_sample_mode='ghost', noise_multiplier=0.8, max_grad_norm=0.05); "
            "loss = criterion(model(ids (8, 5)), labels); loss.backward(); optimizer.step(); loss.item()",
            ("opacus",), _r9a_ghost_clipping, modes=INFERENCE,
            notes=DP_STEP_NOTES + "; the DP criterion's backward runs two backward passes itself",
            patterns="`DPLossFastGradientClipping.__call__` swaps `criterion.reduction = 'none'`; "
            "`DPTensorFastGradientClipping.backward`: `reduced_loss.backward(retain_graph=True)`, "
            "`get_clipping_coef()` (per-sample norms stacked over parameters, `(max_grad_norm / (norm + 1e-6))"
            ".clamp(max=1.0)`), `disable_hooks()` then a second backward of the re-weighted per-sample loss; "
            "ghost norm samplers: `compute_embedding_norm_sample`: `torch.unique(paired_indices, dim=0, "
            "return_inverse=True)` over (sample, token id) pairs (data-dependent count of unique pairs), "
            "`torch.zeros(num_unique_paired_indices, ...)` sized from it, `index_add`, `scatter_add_`; "
            "`compute_linear_norm_sample`: `if backprops.dim() == 2 / == 3` (per-token 3-D branch with "
            "`clamp(min=0)`); capture hook raises `if use_ghost_clipping and p._forward_counter > 1`; "
            "`loss.item()` -> `.detach().item()`; noise from the global RNG in `add_noise`",
        ),
        Row(
            "r9a_opacus_adaptive_ghost_clipping", *OPACUS,
            "opacus.utils.adaptive_clipping.PrivacyEngineAdaptiveClipping(accountant='rdp').make_private(token "
            "classifier, SGD, grad_sample_mode='ghost', noise_multiplier=0.5, max_grad_norm=0.05, "
            "target_unclipped_quantile=0.5): two criterion(model(ids (12, 5)), labels).backward(); step() rounds",
            ("opacus",), _r9a_adaptive_ghost_clipping, modes=INFERENCE,
            notes=DP_STEP_NOTES + "; the adaptive DP criterion's backward runs two backward passes itself",
            patterns="`DPTensorFastGradientAdaptiveClipping.backward` -> `_update_clip_and_noise`: `assert "
            "self.module.max_grad_norm == self.optimizer.max_grad_norm`, `local_unclipped_num = (per_sample_norms "
            "<= current_max_norm).sum()`, `unclipped_num + torch.normal(mean=0.0, std=batch_size / 20.0, "
            "size=(1,)).item()` (global RNG, read as a float), `new_max_grad_norm = (current_max_norm * "
            "torch.exp(...)).clamp(min=..., max=...).item()`, `assert batch_size > 10 * "
            "self.initial_noise_multiplier`, `if self.initial_noise_multiplier > 0`; coefficients "
            "`torch.where(per_sample_norms <= max_grad_norm, ones, max_grad_norm / per_sample_norms)`; the "
            "updated float bound is written into module and optimizer (`module.max_grad_norm = ...`); embedding "
            "norm sampler `torch.unique(..., dim=0)` as in the ghost row",
        ),
        Row(
            "r9a_opacus_check_per_sample_grads_conv", *OPACUS,
            "opacus.utils.per_sample_gradients_utils.check_per_sample_gradients_are_correct(x (3, 3, 6), "
            "Sequential(Conv1d(3, 4, 3, padding=1), GroupNorm(2, 4), ReLU, Flatten, Linear(24, 2))) and "
            "compute_grad_samples_microbatch_and_opacus(..., loss_reduction='mean')",
            ("opacus",), _r9a_check_per_sample_grads, modes=INFERENCE,
            notes="a validation utility: returns a bool plus per-sample gradients that it computes with its own "
            "backward passes on copies of the module (run under torch.enable_grad); the per-sample "
            "gradients are read from `.grad` / `.grad_sample` after those backward passes: no gradient path. "
            "Drafted first on a DPGRU over a PackedSequence; the check deep-copies the module with "
            "torch.save/torch.load (pickling), which the wrapper class a DPGRU needs (the check's loss wrapper "
            "wants a single output) cannot pass when the row file is loaded by path, so the row uses a "
            "Conv1d/GroupNorm/Linear stack of torch modules",
            patterns="the check loops `for loss_reduction in ['sum', 'mean']`, each a fresh comparison; "
            "`torch.use_deterministic_algorithms(True)`, `torch.manual_seed(0)` / `np.random.seed(0)` inside the "
            "call; `clone_module` round-trips the module through torch.save/torch.load; micro-batch reference: "
            "`is_batch_empty(x)` raise check, `for x_i in iter(x)` one `loss_i.backward()` per sample reading "
            "`p.grad.detach().clone()`, `torch.stack`; opacus path: `GradSampleModule` hooks (conv grad sampler "
            "unfolds the padded input, GroupNorm and Linear samplers), `p.grad_sample`; comparison: `if "
            "microbatch_grad_samples.keys() != opacus_grad_samples.keys(): raise`, `if not "
            "opacus_grad_sample.shape == microbatch_grad_sample.shape: return False`, `if not "
            "torch.allclose(microbatch, opacus, atol, rtol): return False` (a tensor value read into a Python "
            "bool)",
        ),
        Row(
            "r9a_higher_maml_sgd", *HIGHER,
            "with higher.innerloop_ctx(mlp, SGD(lr=0.1), copy_initial_weights=False) as (fmodel, diffopt): "
            "3 x diffopt.step(cross_entropy(fmodel(x_support (10, 6)), y)); fmodel(x_query (6, 6))",
            ("higher",), _r9a_higher_maml_sgd,
            notes=INNER_LOOP_NOTES,
            patterns="control: no tensor value reaches Python; `monkeypatch` builds a stateless subclass per "
            "module, `patched_forward` runs under `warnings.catch_warnings()` and writes fast weights through "
            "`__setattr__`; `DifferentiableOptimizer.step`: `torch.autograd.grad(loss, params, create_graph=True, "
            "allow_unused=True)`, `if g is None: continue`, `if weight_decay != 0` / `if momentum != 0` on Python "
            "floats, `_add(p, -lr, g)`, `fmodel.update_params(new_params)`",
        ),
        Row(
            "r9a_higher_adam_amsgrad_masks", *HIGHER,
            "with higher.innerloop_ctx(mlp, Adam(lr=0.05, amsgrad=True), copy_initial_weights=False) as "
            "(fmodel, diffopt): 3 x diffopt.step(support loss); fmodel(x_query)",
            ("higher",), _r9a_higher_adam_masks,
            notes=INNER_LOOP_NOTES + "; two of the six features are zero across the task (sparse count "
            "features), so the first layer has exactly-zero gradient entries and Adam's zero-variance mask selects "
            "them",
            patterns="`DifferentiableAdam._update`: `if len(state) == 0` state init with `zeros_like(p.data)`, "
            "`mask = exp_avg_sq == 0.` and `_maybe_mask(exp_avg_sq, mask)`: `if tensor.requires_grad: "
            "tensor.register_hook(closure)` on an intermediate inside the step; the hook runs in backward as "
            "`grad = torch.where(mask, zeros_like(grad), grad)` and `if grad.requires_grad: "
            "grad.register_hook(...)` (recursive); amsgrad `torch.max(max_exp_avg_sq, exp_avg_sq)`; "
            "`step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)` from the Python step count",
        ),
        Row(
            "r9a_higher_rprop_sign_masks", *HIGHER,
            "with higher.innerloop_ctx(mlp, Rprop(lr=0.02), copy_initial_weights=False) as (fmodel, diffopt): "
            "3 x diffopt.step(support loss); fmodel(x_query)",
            ("higher",), _r9a_higher_rprop,
            notes=INNER_LOOP_NOTES,
            patterns="`DifferentiableRprop.__init__`: `warnings.warn(...)` on every construction (inside the "
            "call, via `get_diff_optim`); `_update`: `sign = g.mul(state['prev']).sign()`, boolean-mask writes "
            "`sign[sign.gt(0)] = etaplus`, `sign[sign.lt(0)] = etaminus`, `sign[sign.eq(0)] = 1` (index_put with "
            "data-dependent masks; the first step is all zeros, later ones mixed), `step_size.mul(sign).clamp(min, "
            "max)`, `g = torch.where(sign.eq(etaminus), zeros_like(g), g)`, `_addcmul(p, -1, g.sign(), "
            "step_size)`, `state['step_size'] = g.new().resize_as_(g).fill_(lr)` at init",
        ),
        Row(
            "r9a_higher_adagrad_tensor_step", *HIGHER,
            "with higher.innerloop_ctx(mlp, Adagrad(lr=0.1, lr_decay=0.01), copy_initial_weights=False) as "
            "(fmodel, diffopt): 3 x diffopt.step(support loss); fmodel(x_query)",
            ("higher",), _r9a_higher_adagrad,
            notes=INNER_LOOP_NOTES + "; torch's Adagrad creates its state (a 0-d tensor step and a sum) at "
            "construction, which higher copies (`_recursive_copy_and_cast`), so the step counter is a tensor; "
            "two features are zero across the task, so some accumulated sums stay exactly zero",
            patterns="`DifferentiableOptimizer.__init__`: `if p in other.state` copies the torch optimizer's "
            "state (`clone().detach()`), `_find_param_in_list` by identity; `DifferentiableAdagrad._update`: "
            "`state['step'] += 1` on a 0-d tensor, `clr = lr / (1 + (state['step'] - 1) * lr_decay)` (a tensor "
            "step size), `state['sum'] = _addcmul(state['sum'], 1, g, g)`, `mask = sum_ == 0.` and "
            "`_maybe_mask(sum_, mask)` registering a `torch.where(mask, 0, grad)` hook on the intermediate, "
            "`group['eps'] if 'eps' in group`, `_addcdiv(p, -clr, g, std)`",
        ),
        Row(
            "r9a_higher_learned_hparams", *HIGHER,
            "hp = higher.optim.get_trainable_opt_params(SGD(lr=0.1, momentum=0.5)); higher.innerloop_ctx(mlp, "
            "opt, override=hp): 2 inner steps, query loss, autograd.grad to lr/momentum, one hypergradient "
            "step; higher.optim.apply_trainable_opt_params(opt, hp)",
            ("higher",), _r9a_higher_learned_hparams, modes=INFERENCE,
            notes="a hyperparameter-learning step: the call takes its own hypergradient (torch.autograd.grad, "
            "under torch.enable_grad) and writes the updated hyperparameters back into the torch optimizer as "
            "Python floats/bools (`.item()`): the outputs are floats and detached tensors, no gradient path; the "
            "optimizer is an argument, so each call updates a fresh one",
            patterns="`get_trainable_opt_params`: every int/float/bool hyperparameter becomes "
            "`torch.tensor(float(x), requires_grad=True)` (including `dampening`, `weight_decay`, `nesterov`, "
            "`maximize`); `DifferentiableSGD._update` then branches on those 0-d tensors: `if weight_decay != 0:`, "
            "`if momentum != 0:`, `if nesterov:` (tensor bools), `'momentum_buffer' not in param_state`, "
            "`_add(buf.mul(momentum), 1 - dampening, g)`; `apply_trainable_opt_params` -> `_recursive_apply`: "
            "`if not isinstance(replacement, type(target))` then `type(target)(replacement.item())` (lr, momentum "
            "to float, nesterov to bool), `len(v) is 1` checks",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round nine (r9a)")
