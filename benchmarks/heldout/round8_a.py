"""Held-out round eight (r8a): torchattacks and torch-pruning.

Drafted by reading each library's source before any row was run under
graphmend, torch.compile or Dynamo (each row was only checked to build and run
eagerly, twice from fresh builds, with identical results); to be measured once
and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs,
seeded random weights and inputs, nothing downloaded); a row whose ``modes``
is one mode only says why in its ``notes``.

The torchattacks rows attack a tiny untrained 2-layer MLP over 1x8x8 images in
[0, 1] with 3 classes; the labels are the model's own predictions except for
sample 0, whose label is shifted so that one sample starts out misclassified
(the attacks' "already fooled" paths run too).  The torch-pruning rows pass
the pruner (which holds its own freshly built tiny CNN) as an argument, so
every build, and every later call with fresh inputs, prunes a fresh model.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from benchmarks.ecosystem import Built, Row

INFERENCE = ("inference",)

TORCHATTACKS = ("torchattacks", "3.5.1")
TORCH_PRUNING = ("torch-pruning", "1.6.1")


# --- helpers ----------------------------------------------------------------------


def _r8a_classifier_batch(n: int = 6) -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor]:
    """A tiny 3-class MLP over 1x8x8 images, a batch of images in [0, 1], and labels:
    the model's predictions, with sample 0's label shifted (one sample starts out
    misclassified)."""
    model = torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(64, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3),
    ).eval()
    images = torch.rand(n, 1, 8, 8)
    with torch.no_grad():
        labels = model(images).argmax(1)
    labels[0] = (labels[0] + 1) % 3
    return model, images, labels


def _r8a_attack_fn(attack: Any, enable_grad: bool) -> Any:
    """The attack as a function of (images, labels).  ``enable_grad``: the attack takes
    input gradients without enabling grad itself, so a caller under torch.no_grad (an
    evaluation loop; the harness's inference mode) wraps it in torch.enable_grad()."""
    if enable_grad:
        def attack_with_grad(images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                return attack(images, labels)

        return attack_with_grad

    def run_attack(images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return attack(images, labels)

    return run_attack


class _R8aTinyCNN(torch.nn.Module):
    """conv-bn-relu, conv-bn-relu-maxpool, flatten, fc-relu, fc: 1x8x8 -> 3 classes."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 12, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(12)
        self.fc1 = torch.nn.Linear(12 * 4 * 4, 16)
        self.fc2 = torch.nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def _r8a_pruned_out(model: torch.nn.Module, x: torch.Tensor) -> dict[str, Any]:
    """The pruned model's logits on x and its (pruned) parameters, in registration order."""
    return {"logits": model(x), "params": list(model.parameters())}


def _r8a_backward_on_batch(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> None:
    """One training-loop backward: fills the parameters' .grad (even under torch.no_grad)."""
    with torch.enable_grad():
        model.zero_grad()
        F.cross_entropy(model(x), y).backward()


# --- torchattacks -----------------------------------------------------------------


def _r8a_cw(training: bool) -> Built:
    import torchattacks

    model, images, labels = _r8a_classifier_batch()
    attack = torchattacks.CW(model, c=1.0, kappa=0.0, steps=20, lr=0.01)
    return _r8a_attack_fn(attack, enable_grad=True), (images, labels), {}


def _r8a_deepfool(training: bool) -> Built:
    import torchattacks

    model, images, labels = _r8a_classifier_batch()
    attack = torchattacks.DeepFool(model, steps=5, overshoot=0.02)
    return _r8a_attack_fn(attack, enable_grad=True), (images, labels), {}


def _r8a_fab(training: bool) -> Built:
    import torchattacks

    model, images, labels = _r8a_classifier_batch()
    attack = torchattacks.FAB(model, norm="L2", eps=0.5, steps=5, n_restarts=1, n_classes=3)
    return _r8a_attack_fn(attack, enable_grad=False), (images, labels), {}


def _r8a_square(training: bool) -> Built:
    import torchattacks

    model, images, labels = _r8a_classifier_batch()
    attack = torchattacks.Square(model, norm="L2", eps=0.5, n_queries=20, n_restarts=1, loss="margin")
    return _r8a_attack_fn(attack, enable_grad=False), (images, labels), {}


def _r8a_apgd(training: bool) -> Built:
    import torchattacks

    model, images, labels = _r8a_classifier_batch()
    attack = torchattacks.APGD(model, norm="Linf", eps=8 / 255, steps=10, n_restarts=1, loss="dlr")
    return _r8a_attack_fn(attack, enable_grad=False), (images, labels), {}


def _r8a_multiattack(training: bool) -> Built:
    import torchattacks

    model, images, labels = _r8a_classifier_batch()
    attack = torchattacks.MultiAttack([
        torchattacks.FGSM(model, eps=8 / 255),
        torchattacks.PGD(model, eps=8 / 255, alpha=2 / 255, steps=4, random_start=True),
        torchattacks.DeepFool(model, steps=5, overshoot=0.02),
    ])
    return _r8a_attack_fn(attack, enable_grad=True), (images, labels), {}


# --- torch-pruning ----------------------------------------------------------------


def _r8a_tp_global_magnitude(training: bool) -> Built:
    import torch_pruning as tp

    model = _R8aTinyCNN()
    pruner = tp.pruner.MetaPruner(
        model, torch.rand(1, 1, 8, 8), tp.importance.MagnitudeImportance(p=2),
        global_pruning=True, pruning_ratio=0.5, ignored_layers=[model.fc2],
    )
    model.train(training)  # the dependency-graph trace leaves the model in eval mode

    def prune_step(pruner: Any, x: torch.Tensor) -> dict[str, Any]:
        pruner.step()
        return _r8a_pruned_out(pruner.model, x)

    return prune_step, (pruner, torch.rand(4, 1, 8, 8)), {}


def _r8a_tp_groupnorm_regularize(training: bool) -> Built:
    import torch_pruning as tp

    model = _R8aTinyCNN()
    pruner = tp.pruner.GroupNormPruner(
        model, torch.rand(1, 1, 8, 8), tp.importance.GroupMagnitudeImportance(p=2), reg=1e-3,
        pruning_ratio=0.5, round_to=4, ignored_layers=[model.fc2],
    )
    model.train()

    def sparse_step_then_prune(pruner: Any, x: torch.Tensor, y: torch.Tensor) -> dict[str, Any]:
        model = pruner.model
        _r8a_backward_on_batch(model, x, y)
        pruner.regularize(model)
        regularized = [p.grad.clone() for p in model.parameters()]
        pruner.step()
        return {"regularized_grads": regularized, **_r8a_pruned_out(model, x)}

    return sparse_step_then_prune, (pruner, torch.rand(4, 1, 8, 8), torch.tensor([0, 1, 2, 1])), {}


def _r8a_tp_taylor_isomorphic(training: bool) -> Built:
    import torch_pruning as tp

    model = _R8aTinyCNN()
    pruner = tp.pruner.MetaPruner(
        model, torch.rand(1, 1, 8, 8), tp.importance.TaylorImportance(),
        global_pruning=True, isomorphic=True, pruning_ratio=0.5, iterative_steps=2,
        ignored_layers=[model.fc2],
    )
    model.train()

    def taylor_prune_step(pruner: Any, x: torch.Tensor, y: torch.Tensor) -> dict[str, Any]:
        _r8a_backward_on_batch(pruner.model, x, y)
        pruner.step()
        return _r8a_pruned_out(pruner.model, x)

    return taylor_prune_step, (pruner, torch.rand(4, 1, 8, 8), torch.tensor([0, 1, 2, 1])), {}


# --- rows -------------------------------------------------------------------------

ATTACK_NOTES = (
    "the attack detaches its inputs (`images.clone().detach()`) and returns new adversarial images: "
    "no gradient path from the output to the inputs or the model"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r8a_ta_cw_adam_early_stop", *TORCHATTACKS,
            "torchattacks.CW(mlp, c=1, kappa=0, steps=20, lr=0.01)(images (6, 1, 8, 8), labels)",
            ("torchattacks",), _r8a_cw, modes=INFERENCE,
            notes=ATTACK_NOTES + "; CW backprops its own loss into w (optim.Adam), so the row wraps the call in "
            "torch.enable_grad() (the harness's inference mode runs under no_grad)",
            patterns="per step: `cost.backward()` + Adam step on the tanh-space variable; "
            "`torch.eye(n)[labels]` one-hot; success mask `condition = (pre != labels).float()` times "
            "`best_L2 > current_L2` blended into best_adv_images; early stop every `max(steps // 10, 1)` steps: "
            "`if cost.item() > prev_cost: return best_adv_images` / `prev_cost = cost.item()` (taken here: "
            "the loss rises after ~10 of the 20 steps)",
        ),
        Row(
            "r8a_ta_deepfool_per_sample", *TORCHATTACKS,
            "torchattacks.DeepFool(mlp, steps=5, overshoot=0.02)(images (6, 1, 8, 8), labels)",
            ("torchattacks",), _r8a_deepfool, modes=INFERENCE,
            notes=ATTACK_NOTES + "; DeepFool calls backward per logit without enabling grad itself, so the row "
            "wraps the call in torch.enable_grad()",
            patterns="`while (True in correct) and (curr_steps < self.steps)` (`in` on a bool tensor), per-sample "
            "Python loop `if not correct[idx]: continue`; `_forward_indiv`: `_, pre = torch.max(fs, 0)` then "
            "`if pre != label: return (True, pre, image)` (tensor bool, taken for the misclassified sample), "
            "`wrong_classes = [i for i in range(len(fs)) if i != label]` (int vs 0-d tensor), Jacobian by one "
            "`y_element.backward(retain_graph=...)` per class reading `x.grad`, `_, hat_L = torch.min(value, 0)`, "
            "`hat_L if hat_L < label else hat_L + 1`, `target_labels[idx] = pre`; a list of per-sample images "
            "`torch.cat` at the end",
        ),
        Row(
            "r8a_ta_fab_l2_projection", *TORCHATTACKS,
            "torchattacks.FAB(mlp, norm='L2', eps=0.5, steps=5, n_classes=3)(images (6, 1, 8, 8), labels)",
            ("torchattacks",), _r8a_fab, modes=INFERENCE,
            notes=ATTACK_NOTES + "; FAB enables grad itself around its logits (runs as called)",
            patterns="`torch.random.manual_seed(self.seed)` inside the call; `ind_to_fool = acc.nonzero().squeeze()`, "
            "`if len(ind_to_fool.shape) == 0`, `if ind_to_fool.numel() != 0`; `attack_single_run`: "
            "`if pred.sum() == 0: return x`, `pred.nonzero()` subset; per-class `y.backward(grad_mask)` "
            "Jacobian; `projection_l2`: `torch.zeros(c2.sum())` (size from a mask count), "
            "`math.ceil(math.log2(w.shape[1]))` bisection with gather/torch.where, `r[r == -1e12] *= -1`, "
            "`if c4.any():` / `if c2.any():` boolean-mask writes `d[c2] = ...`; per step "
            "`if is_adv.sum() > 0:` then `is_adv.nonzero()` writes into adv/res2/x1; final "
            "`(acc_curr == 0).nonzero()` scatter into the output",
        ),
        Row(
            "r8a_ta_square_l2_queries", *TORCHATTACKS,
            "torchattacks.Square(mlp, norm='L2', eps=0.5, n_queries=20, loss='margin')(images (6, 1, 8, 8), labels)",
            ("torchattacks",), _r8a_square, modes=INFERENCE,
            notes=ATTACK_NOTES + "; the score-based attack runs under its own torch.no_grad",
            patterns="`torch.random.manual_seed(self.seed)` inside the call; `acc.nonzero().squeeze()` subset of "
            "samples to fool; per query `idx_to_fool = (margin_min > 0.0).nonzero().flatten()` and "
            "`if len(idx_to_fool) == 0: break`; square size `int(round(math.sqrt(p * n_features / c)))` from "
            "the query count; `vh = self.random_int(0, h - s)` (a long tensor) used as slice bounds "
            "`[:, :, vh : vh + s, vw : vw + s]`; `eta()` has `if torch.rand([1]) > 0.5: delta = delta.permute`; "
            "`assert (x_new != x_new).sum() == 0`; `ind_succ = (margin_min <= 0.0).nonzero().squeeze()` and "
            "`if ind_succ.numel() == n_ex_total: break`; `logits[u, y] = -float('inf')` margin",
        ),
        Row(
            "r8a_ta_apgd_dlr_step_size", *TORCHATTACKS,
            "torchattacks.APGD(mlp, norm='Linf', eps=8/255, steps=10, loss='dlr')(images (6, 1, 8, 8), labels)",
            ("torchattacks",), _r8a_apgd, modes=INFERENCE,
            notes=ATTACK_NOTES + "; APGD enables grad itself around its loss (runs as called)",
            patterns="`torch.random.manual_seed(self.seed)` inside the call; `acc.nonzero().squeeze()` with "
            "`if len(ind_to_fool.shape) == 0` / `ind_to_fool.numel() != 0`; DLR loss `x.sort(dim=1)` with "
            "`x[np.arange(x.shape[0]), y]` (NumPy index); per step `x_best_adv[(pred == 0).nonzero().squeeze()] = "
            "...`, `ind = (y1 > loss_best).nonzero().squeeze()` index writes, `loss_steps[i] = y1.cpu()`; every "
            "k steps `check_oscillation` on `loss_steps.detach().cpu().numpy()`, "
            "`loss_best_last_check.cpu().numpy() >= loss_best.cpu().numpy()`, `if np.sum(fl_oscillation) > 0:` "
            "halves `step_size[u[fl_oscillation]]` and restores `x_adv[np.where(...)]`, "
            "`k = np.maximum(k - size_decr, steps_min)`",
        ),
        Row(
            "r8a_ta_multiattack_fallback", *TORCHATTACKS,
            "torchattacks.MultiAttack([FGSM(eps=8/255), PGD(eps=8/255, alpha=2/255, steps=4, random_start=True), "
            "DeepFool(steps=5)])(images (6, 1, 8, 8), labels)",
            ("torchattacks",), _r8a_multiattack, modes=INFERENCE,
            notes=ATTACK_NOTES + "; FGSM/PGD/DeepFool take input gradients without enabling grad, so the row "
            "wraps the call in torch.enable_grad()",
            patterns="per attack `attack(images[fails], labels[fails])` on the still-unfooled subset, "
            "`_, pre = torch.max(outputs.data, 1)`, `succeeds = torch.masked_select(fails, wrongs)` and "
            "`fails = torch.masked_select(fails, corrects)` (data-dependent sizes), `final_images[succeeds] = "
            "adv_images[succeeds_of_fails]`, `if len(fails) == 0: break`; inner PGD random start "
            "(`uniform_`), inner DeepFool's `while (True in correct)` per-sample loop with `if pre != label`",
        ),
        Row(
            "r8a_tp_global_magnitude_step", *TORCH_PRUNING,
            "torch_pruning.pruner.MetaPruner(cnn, example, MagnitudeImportance(p=2), global_pruning=True, "
            "pruning_ratio=0.5, ignored_layers=[fc2]).step(); then the pruned cnn(x (4, 1, 8, 8))",
            ("torch_pruning",), _r8a_tp_global_magnitude,
            notes="the pruner (holding a freshly built model) is an argument, so each build and each call prunes "
            "a fresh model; training mode backprops the pruned model's logits (and its new parameters, "
            "autograd leaves created in the call) into x",
            patterns="`_prune` (@torch.no_grad generator): `_check_pruning_ratio` compares current "
            "`out_channels` with the initial ones; per group `MagnitudeImportance`: `weight.data[idxs]` with "
            "Python index lists, `torch.tensor(root_idxs)` scatter_add_, mean normalizer; `dim_imp = imp.cpu()`; "
            "global scope: `n_pruned = len(concat_imp) - int(...)`, `torch.topk(concat_imp, k=n_pruned, "
            "largest=False)`, `thres = topk_imp[-1]`, per layer `(imp <= thres).nonzero().view(-1)` "
            "(data-dependent channel counts: conv1 8 -> 2, conv2 12 -> 9, fc1 16 -> 7), `torch.argsort(imp)`, "
            "`torch.unique(torch.cat(...)).tolist()`; `group.prune()`: `set(range(n)) - set(idxs)`, "
            "`torch.LongTensor(keep_idxs)` index_select into new `nn.Parameter`s and `layer.out_channels = ...` "
            "module attribute writes; the flatten index mapping expands each conv2 channel to its fc1 inputs "
            "(`range(i.idx * stride, (i.idx + 1) * stride)`, Python ints) for the conv2 -> fc1 dependency",
        ),
        Row(
            "r8a_tp_groupnorm_regularize_step", *TORCH_PRUNING,
            "torch_pruning.pruner.GroupNormPruner(cnn, example, GroupMagnitudeImportance(p=2), reg=1e-3, "
            "pruning_ratio=0.5, round_to=4): backward on a batch, .regularize(cnn), .step(); then cnn(x)",
            ("torch_pruning",), _r8a_tp_groupnorm_regularize, modes=INFERENCE,
            notes="a sparse-training step: the output includes the .grad tensors that `regularize` writes in place "
            "(`layer.weight.grad.data[idxs] += reg * g`) after the call's own backward (run under "
            "torch.enable_grad), and the pruned parameters carry those gradients over: no gradient path to "
            "compare; the pruner is an argument, so each call prunes a fresh model",
            patterns="`regularize` (@torch.no_grad): per group `imp = self.estimate_importance(group).sqrt()`, "
            "`if torch.any(torch.isnan(imp)): continue` (tensor bool), `gamma = alpha**((imp.max() - imp) / "
            "(imp.max() - imp.min()))`, `torch.index_select(gamma, 0, torch.tensor(root_idxs))`, in-place "
            "`layer.weight.grad.data[idxs] += ...` / `[:, idxs]` with Python index lists; then local `step()`: "
            "`torch.topk(concat_imp, k=n_pruned, largest=False)` per layer, `if len(_pruning_indices) > 0 and "
            "self.round_to:` -> `_round_to` and `imp_argsort[:n_pruned]`, `torch.unique(...).tolist()`, "
            "`group.prune()` (`set` differences, index_select into new Parameters, grads carried over "
            "`pruned_weight.grad = torch.index_select(weight.grad, ...)`)",
        ),
        Row(
            "r8a_tp_taylor_isomorphic_step", *TORCH_PRUNING,
            "torch_pruning.pruner.MetaPruner(cnn, example, TaylorImportance(), global_pruning=True, "
            "isomorphic=True, pruning_ratio=0.5, iterative_steps=2): backward on a batch, .step(); then cnn(x)",
            ("torch_pruning",), _r8a_tp_taylor_isomorphic, modes=INFERENCE,
            notes="the Taylor score needs .grad: the call runs its own backward (under torch.enable_grad) and the "
            "pruned parameters carry those gradients (`pruned_weight.grad = index_select(weight.grad)`), so a "
            "second backward would add onto them: no clean gradient path; the pruner is an argument, so each "
            "call prunes a fresh model",
            patterns="`TaylorImportance` (@torch.no_grad): `idxs.sort()` on the group's index list, "
            "`(w * dw).abs().sum(1)` from `weight.grad.data[idxs]`, `torch.tensor(root_idxs)` scatter_add_ and "
            "mean normalizer; iterative schedule (step 1 of 2: ratio 0.25); isomorphic scopes keyed by a string "
            "of module types and in/out handlers; per scope `len(concat_imp)`, `torch.topk(..., k=n_pruned, "
            "largest=False)`, `thres = topk_imp[-1]`, `(imp <= thres).nonzero().view(-1)` (data-dependent "
            "counts), `torch.unique(...).tolist()`, `group.prune()` with `set` differences and "
            "`torch.LongTensor(keep_idxs)` index_select into new Parameters",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
