"""Held-out round twelve (r12c): captum and pomegranate.

Chosen by reading each library's source, written down in ROUND12.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The captum rows explain a small classifier (``Linear(6, 8)``, ``ReLU``,
``Linear(8, 3)``) the way captum's tutorials do.  Integrated gradients with
the target being the model's own prediction as a 0-d tensor (``target =
model(x).argmax()``, the tutorials' ``pred_label_idx``): ``_select_targets``
calls ``target.item()`` on every forward, internal batching splits the steps
into a Python loop, and the convergence delta runs two more forwards under
``no_grad``.  ``FeatureAblation`` with a grouped feature mask
(``torch.unique(mask)`` and ``.item()`` per group make the dict of features that
the ablation loop walks) and ``KernelShap`` with a mask whose indices start at 1
(``torch.min(mask).item()`` and a shift warning, per sample a
``Categorical.sample()`` and a ``kthvalue(...).item()`` threshold, the
similarity kernel's ``int(sample.sum().item())``, a scikit-learn
``LinearRegression`` fit through NumPy, then ``coefs[i].item()`` per feature)
both run under captum's own ``torch.no_grad()``, so they are inference only.
``DeepLift`` with a per-example target tensor is the control: module hooks,
``torch.where`` rescale rules, ``torch.gather`` of the targets, and only flags
and shapes reaching Python.

The pomegranate (1.x, torch-based) rows: ``GeneralMixtureModel.fit`` of three
diagonal Normals with ``verbose=True`` (k-means initialisation with boolean-mask
selections per cluster, the EM loop's ``if improvement < self.tol: break`` on a
0-d tensor, a ``print`` of that tensor each iteration, the Normal cache's
``if self.covs.sum() > 0.0`` and ``torch.any(self.covs < 0)`` raise), inference
only because fitting writes the parameters in place through
``nn.Parameter`` wrappers (no gradient path); ``DenseHMM.predict_proba`` with
Categorical emissions and soft ``priors`` (the priors' range and sum checks
``(priors < 0).sum() > 0``, ``torch.any(torch.abs(delta) > eps)`` raise behind
tensor tests, the ``check_data`` buffer compared in a Python ``if``, the
forward and backward loops over the sequence); ``BayesClassifier.predict_proba``
over fitted Exponential and Gamma components (the non-negativity test of the
data per component, ``check_data`` tests); and, as the control,
``DenseHMM.forward_backward`` on given emissions (a shape test only).

Importing pomegranate imports apricot (and through it scipy/numba/sklearn
pieces), which adds warning filters but leaves torch's global state (default
dtype, device, grad mode, function modes) alone; captum's import changes
nothing either.  No row draws from NumPy's global generator (GradientShap,
which does, was left out); the k-means initialisation of the mixture uses a
``numpy.random.RandomState(0)`` made inside the call from ``random_state=0``,
and KernelShap samples from torch's global generator (seeded by the harness
before the call).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)
TRAINING = ("training",)

CAPTUM = ("captum", "0.9.0")
POMEGRANATE = ("pomegranate", "1.1.2")


# --- captum helpers ----------------------------------------------------------------


def _r12c_classifier() -> nn.Module:
    """The small classifier every captum row explains (a module ReLU, as DeepLift
    needs)."""
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))


def _r12c_ig_predicted(model: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Integrated gradients of the predicted class, as captum's tutorials write
    it: the target is the model's own argmax, a 0-d tensor; returns
    (attributions, convergence delta)."""
    from captum.attr import IntegratedGradients

    target = model(x).argmax()
    ig = IntegratedGradients(model)
    return ig.attribute(x, baselines=torch.zeros_like(x), target=target, n_steps=16,
                        internal_batch_size=5, return_convergence_delta=True)


def _r12c_captum_ig_argmax_target(training: bool) -> Built:
    import captum.attr  # noqa: F401  (imported here, not on the first call: it pulls in matplotlib)

    return _r12c_ig_predicted, (_r12c_classifier(), torch.randn(1, 6)), {}


def _r12c_captum_feature_ablation(training: bool) -> Built:
    from captum.attr import FeatureAblation

    ablation = FeatureAblation(_r12c_classifier())
    feature_mask = torch.tensor([[0, 0, 1, 1, 2, 3]])
    return ablation.attribute, (torch.randn(4, 6),), {
        "baselines": 0.0, "target": torch.tensor([0, 1, 2, 1]), "feature_mask": feature_mask,
        "perturbations_per_eval": 2,
    }


def _r12c_captum_kernel_shap(training: bool) -> Built:
    import sklearn.linear_model  # noqa: F401  (captum imports these inside the call to fit the
    import sklearn.svm  # noqa: F401  interpretable model; loaded here so the call does not time the import)
    from captum.attr import KernelShap

    shap = KernelShap(_r12c_classifier())
    feature_mask = torch.tensor([[1, 1, 2, 3, 3, 4]])  # starts at 1: captum shifts it and warns
    return shap.attribute, (torch.randn(1, 6),), {
        "baselines": 0.0, "target": 1, "feature_mask": feature_mask, "n_samples": 24,
        "perturbations_per_eval": 4,
    }


def _r12c_captum_deeplift_control(training: bool) -> Built:
    from captum.attr import DeepLift

    deeplift = DeepLift(_r12c_classifier())
    x = torch.randn(4, 6)
    return deeplift.attribute, (x, torch.zeros(4, 6)), {"target": torch.tensor([0, 2, 1, 0])}


# --- pomegranate helpers -------------------------------------------------------------


def _r12c_blobs() -> torch.Tensor:
    """40 points in 2-D around three centres (12, 14, 14)."""
    centres = torch.tensor([[-2.0, 0.0], [2.0, 1.0], [0.0, 3.5]])
    counts = (12, 14, 14)
    return torch.cat([c + 0.6 * torch.randn(n, 2) for c, n in zip(centres, counts)])


def _r12c_gmm_fit(model: Any, X: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Fit the mixture by EM (k-means initialisation, verbose) and return the
    fitted means, variances and priors and the posteriors of the data."""
    model.fit(X)
    means = torch.stack([d.means.detach().clone() for d in model.distributions])
    covs = torch.stack([d.covs.detach().clone() for d in model.distributions])
    return means, covs, model.priors.detach().clone(), model.predict_proba(X)


def _r12c_pg_gmm_fit(training: bool) -> Built:
    from pomegranate.distributions import Normal
    from pomegranate.gmm import GeneralMixtureModel

    model = GeneralMixtureModel([Normal(covariance_type="diag") for _ in range(3)], max_iter=25,
                                tol=1e-3, random_state=0, verbose=True)
    return _r12c_gmm_fit, (model, _r12c_blobs()), {}


def _r12c_categorical_hmm() -> Any:
    from pomegranate.distributions import Categorical
    from pomegranate.hmm import DenseHMM

    emissions = [Categorical([[0.4, 0.3, 0.2, 0.1]]), Categorical([[0.1, 0.2, 0.3, 0.4]])]
    return DenseHMM(emissions, edges=[[0.8, 0.15], [0.25, 0.7]], starts=[0.6, 0.4], ends=[0.05, 0.05])


def _r12c_pg_hmm_predict_proba_priors(training: bool) -> Built:
    model = _r12c_categorical_hmm()
    X = torch.randint(0, 4, (3, 8, 1))
    priors = torch.softmax(torch.randn(3, 8, 2), dim=-1)
    return model.predict_proba, (X,), {"priors": priors}


def _r12c_pg_bayes_classifier(training: bool) -> Built:
    from pomegranate.bayes_classifier import BayesClassifier
    from pomegranate.distributions import Exponential, Gamma

    X_train = torch.cat([torch.rand(10, 3) * 2.0 + 0.1, torch.rand(10, 3) * 4.0 + 1.0])
    y_train = torch.tensor([0] * 10 + [1] * 10)
    model = BayesClassifier([Exponential(), Gamma()]).fit(X_train, y_train)
    return model.predict_proba, (torch.rand(6, 3) * 4.0 + 0.05,), {}


def _r12c_pg_hmm_forward_backward_control(training: bool) -> Built:
    from pomegranate.distributions import Normal
    from pomegranate.hmm import DenseHMM

    emissions = [Normal([0.0, 1.0], [1.0, 0.5], covariance_type="diag"),
                 Normal([1.5, -1.0], [0.7, 1.2], covariance_type="diag"),
                 Normal([-1.0, 0.0], [0.5, 0.5], covariance_type="diag")]
    model = DenseHMM(emissions, edges=[[0.7, 0.2, 0.05], [0.1, 0.8, 0.05], [0.2, 0.2, 0.5]],
                     starts=[0.5, 0.3, 0.2], ends=[0.05, 0.05, 0.1])
    return model.forward_backward, (), {"emissions": torch.randn(2, 7, 3) - 2.0}


# --- rows -------------------------------------------------------------------------

CAPTUM_RUN_FORWARD = (
    "`_run_forward` (_utils/common.py: `_format_inputs`, `forward_func(*inputs, *additional_forward_args)`, "
    "`isinstance(output, Future)`, `_select_targets`)"
)
PG_CHECK = (
    "`_check_parameter` (_utils.py:102-253) called with `check_parameter=self.check_data`, a 0-d bool "
    "buffer: `if check_parameter == False:` is a tensor in a Python `if`"
)


def _r12c_first_state(output: torch.Tensor) -> torch.Tensor:
    """The posteriors of the first state/class summed (the sum over all of them is
    the constant number of rows, whose gradient is only rounding noise)."""
    return output[..., 0].sum()


def _rows() -> list[Row]:
    return [
        Row(
            "r12c_captum_ig_argmax_target_batched", *CAPTUM,
            "captum.attr.IntegratedGradients(Sequential(Linear(6, 8), ReLU, Linear(8, 3))).attribute(x (1, 6), "
            "baselines=zeros, target=model(x).argmax() (a 0-d tensor), n_steps=16, internal_batch_size=5, "
            "return_convergence_delta=True); returns (attributions, delta)",
            ("captum",), _r12c_captum_ig_argmax_target,
            notes="the model and x are arguments of a wrapper that computes the target as the tutorials do; in "
            "training the gradient flows through `total_grad * (input - baseline)` of the first step batch only: "
            "captum's gradients are taken without `create_graph`, and `_batch_attribution` adds later batches "
            "`.detach()`-ed; the delta is computed under `no_grad`",
            patterns="the wrapper's forward and `argmax()`; `attribute` (attr/_core/integrated_gradients.py): "
            "`_format_input_baseline`, `_validate_input` (`n_steps >= 0` and method asserts), `_batch_attribution` "
            "(attr/_utils/batching.py:25-103: `step_count = max(1, internal_batch_size // num_examples)`, a "
            "`while cumulative_steps < n_steps` loop, 4 batches of 5, 5, 5, 1 steps, each `_attribute` with spliced "
            "gauss-legendre step sizes and alphas (NumPy, Python lists), `torch.cat([baseline + alpha * (input - "
            "baseline) for alpha in alphas]).requires_grad_()`, `_expand_target` (a 0-d tensor passes through), "
            "`compute_gradients` (_utils/gradient.py:103-131: `set_grad_enabled(True)`, " + CAPTUM_RUN_FORWARD +
            " with `torch.numel(target) == 1 and isinstance(target.item(), int)` then `_verify_select_column(output, "
            "target.item())` (a tensor value read into Python on every forward), `assert outputs[0].numel() == 1`, "
            "`torch.autograd.grad(torch.unbind(outputs), inputs)`), `torch.tensor(step_sizes)` scaling, "
            "`_reshape_and_sum`, `total_grad * (input - baseline)`, `current.detach() + prev_total`); "
            "`compute_convergence_delta` (attr/_utils/attribution.py:202-340: `_tensorize_baseline`, shape "
            "asserts, `_validate_target`, two more forwards under `torch.no_grad()` each with `target.item()`, "
            "`_sum_rows`, `attr_sum - (end_out_sum - start_out_sum)`)",
        ),
        Row(
            "r12c_captum_feature_ablation_grouped_mask", *CAPTUM,
            "captum.attr.FeatureAblation(Sequential(Linear(6, 8), ReLU, Linear(8, 3))).attribute(x (4, 6), "
            "baselines=0.0, target=tensor([0, 1, 2, 1]), feature_mask=[[0, 0, 1, 1, 2, 3]], "
            "perturbations_per_eval=2)",
            ("captum",), _r12c_captum_feature_ablation, modes=INFERENCE,
            notes="inference only: `FeatureAblation.attribute` runs its forwards inside its own `torch.no_grad()` "
            "(attr/_core/feature_ablation.py), so the attributions carry no gradient in either mode",
            patterns="`attribute` (attr/_core/feature_ablation.py:291-): `_format_input_baseline`, "
            "`_format_feature_mask`, the `perturbations_per_eval >= 1` assert, under `torch.no_grad()` the initial "
            + CAPTUM_RUN_FORWARD + " (a 1-D target: `torch.gather`), `process_initial_eval` (`numel`, zeros "
            "accumulators), `_get_feature_idx_to_tensor_idx` (_utils/common.py:926-939: `for feature_idx in "
            "torch.unique(mask): if feature_idx.item() not in ...` three `.item()` per group, a dict keyed by "
            "tensor values: the list of features the loop walks comes from the mask's data), "
            "`_maybe_expand_parameters` (inputs and target repeated twice), then for each pair of groups (2 "
            "evaluations) `_should_skip_inputs_and_warn` (numel tests, `logger` calls on a skip), "
            "`_construct_ablated_input_across_tensors` (`(input_mask == feature_idx).long()` masks, `ablated_input"
            "[start:end] = ...` slice writes), the forward, `check_output_shape_valid` once (shape assert), "
            "`_process_ablated_out_full` (`eval_diff = initial - modified`, `total_attrib[i] += (eval_diff * "
            "mask).sum(0)` in place)",
        ),
        Row(
            "r12c_captum_kernel_shap_shifted_mask", *CAPTUM,
            "captum.attr.KernelShap(Sequential(Linear(6, 8), ReLU, Linear(8, 3))).attribute(x (1, 6), "
            "baselines=0.0, target=1, feature_mask=[[1, 1, 2, 3, 3, 4]] (starts at 1), n_samples=24, "
            "perturbations_per_eval=4)",
            ("captum",), _r12c_captum_kernel_shap, modes=INFERENCE,
            notes="inference only: `LimeBase.attribute` is `@torch.no_grad()` (attr/_core/lime.py) and the "
            "interpretable model is fitted by scikit-learn on NumPy copies, so no gradient path exists; the "
            "samples come from torch's global generator (`Categorical.sample`, `torch.randn`), seeded by the "
            "harness before the call",
            patterns="`KernelShap.attribute` (attr/_core/kernel_shap.py:47-293): `construct_feature_mask` "
            "(attr/_core/lime.py:698-730: `int(min(torch.min(mask).item() ...))`, `if min_interp_features != 0: "
            "warnings.warn(...)` and the shift (taken here), `_get_max_feature_index`'s `int(max(torch.max(mask)"
            ".item() ...))` + 1 = 4 features), Shapley subset-size probabilities (`probs[0] = 0.0`) into "
            "`torch.distributions.Categorical`; `Lime._attribute_kwargs` (lime.py:1132-: `construct_feature_mask` "
            "again, `if bsz > 1` (no: batch 1)) -> `LimeBase.attribute` (`@torch.no_grad()`, lime.py:242-460): "
            "`for _ in range(24)` over `kernel_shap_perturb_generator` (kernel_shap.py:325-368: the all-ones and "
            "all-zeros samples, then per sample `num_select_distribution.sample()`, `torch.randn(1, 4)`, "
            "`torch.kthvalue(rand_vals, 4 - k).values.item()` (a tensor value as the threshold; 22 times), `(rand "
            "> threshold).long()`), `default_from_interp_rep_transform` (lime.py:593-: `curr_sample[0]"
            "[feature_mask].bool()`, an index gather, mixing input and baseline), the similarity kernel "
            "(kernel_shap.py:301-323: `int(interpretable_sample.sum(dim=1).item())`, `if num_selected == 0 or "
            "== num_features` (weight 1e6 twice, 1.0 22 times), `torch.tensor([w])`), every 4 samples "
            "`_evaluate_batch` (" + CAPTUM_RUN_FORWARD + " with an int target, `assert model_out.numel() == "
            "len(...)`), `torch.cat`s into a `TensorDataset` and `DataLoader`, `SkLearnLinearRegression.fit` "
            "(_utils/models/linear_model/train.py `sklearn_train_linear_model`: `x.cpu().numpy()` per batch, "
            "`sklearn.linear_model.LinearRegression().fit(x, y, sample_weight=w)`, coefficients back as "
            "`torch.FloatTensor(coef_)`), then `_convert_output_shape` (lime.py:1296-1319: "
            "`coefs[single_feature].item() * (mask == single_feature).float()` for each of the 4 features)",
        ),
        Row(
            "r12c_captum_deeplift_control", *CAPTUM,
            "captum.attr.DeepLift(Sequential(Linear(6, 8), ReLU, Linear(8, 3))).attribute(x (4, 6), baselines "
            "zeros (4, 6), target=tensor([0, 2, 1, 0]))",
            ("captum",), _r12c_captum_deeplift_control,
            patterns="control: no tensor value reaches Python. `DeepLift.attribute` (attr/_core/deep_lift.py:"
            "140-364): `apply_gradient_requirements` (requires_grad flags, a warning on a flag), the fixed "
            "`warnings.warn('Setting forward, backward hooks ...')`, `_tensorize_baseline`, "
            "`_hook_main_model` (a forward pre-hook concatenating inputs and baselines, a forward hook splitting "
            "the outputs), `model.apply(self._register_hooks)` on the ReLU (forward and pre-forward hooks saving "
            "input and output, `_register_backward_hook`), `_expand_target(..., repeat)` (`torch.cat([target] * 2)`), "
            "`compute_gradients` with `torch.gather` of the targets and `autograd.grad`, the ReLU's `nonlinear` "
            "rule (`torch.where(abs(delta_in) < eps, grad_input, grad_output * delta_out / delta_in)`), "
            "`(input - baseline) * gradient`, hooks removed in `finally`",
        ),
        Row(
            "r12c_pg_gmm_fit_em_verbose", *POMEGRANATE,
            "pomegranate.gmm.GeneralMixtureModel([Normal(covariance_type='diag')] * 3, max_iter=25, tol=1e-3, "
            "random_state=0, verbose=True).fit(X (40, 2) around three centres), then predict_proba(X); returns "
            "(means, variances, priors, posteriors)",
            ("pomegranate",), _r12c_pg_gmm_fit, modes=INFERENCE,
            notes="inference only: fitting writes the parameters in place (`_update_parameter`'s `value[...] = "
            "nn.Parameter(new)`, the statistics buffers `+=`), and `nn.Parameter(...)` detaches, so no gradient "
            "reaches the data; like round eleven's in-place optimizer rows it is measured without grad. The model "
            "is an argument (a fresh unfitted one per build)",
            patterns="`GeneralMixtureModel.fit` (gmm.py:201-264): `for i in range(self.max_iter)`, `summarize` "
            "(`_check_parameter(X, ndim=2)`, first call `_initialize` (gmm.py:121-169): `KMeans(3, init='random', "
            "max_iter=3, random_state=0).fit_predict` (kmeans.py: `_initialize_centroids`'s `k.item()` of an int "
            "Parameter and `RandomState(0).choice`, `_check_parameter` range tests on tensors (`(x < min).sum() > "
            "0`), `if self.frozen:` on a 0-d buffer, 3 iterations with `improvement = d_previous - d_current` and "
            "`if improvement < self.tol: break` (a 0-d tensor; tested twice, not taken), `scatter_add_`), then "
            "per component `idx = y_hat == i`, "
            "`sample_weight[idx]`, `X[idx]` (boolean-mask selections, sizes from the data) and `Normal.fit` (`if "
            "self.frozen == True` on a buffer, `_reshape_weights`' `(w < 0).sum() > 0` raise test, "
            "`_update_parameter` (`getattr(value, 'frozen')`, `if inertia == 0.0` on a 0-d buffer, `value[...] = "
            "...`), `_reset_cache`: `if self.covs.sum() > 0.0:` and `if torch.any(self.covs < 0): raise`), "
            "`self.priors[i] = ...`), the emission matrix (`e[:, i] = d.log_probability(X)` with " + PG_CHECK +
            ", `torch.logsumexp`), per component `summarize` (buffer `[:] =` writes), `self._w_sum[i] = ...`; "
            "from the second iteration `improvement = logp - last_logp`, `print('[{}] Improvement: {}, Time: "
            "{:4.4}s'.format(i, improvement, duration))` (a tensor formatted), `if improvement < self.tol: break` "
            "(a 0-d tensor in an `if`; tested three times, the loop breaks at i = 3 of 25: improvements 0.036, "
            "0.0036, 0.00043), `from_summaries` (each Normal's, then `priors = "
            "_w_sum / sum`, `_update_parameter`, `_reset_cache` re-registering buffers); then `predict_proba`",
        ),
        Row(
            "r12c_pg_dense_hmm_predict_proba_priors", *POMEGRANATE,
            "pomegranate.hmm.DenseHMM([Categorical([[.4, .3, .2, .1]]), Categorical([[.1, .2, .3, .4]])], "
            "edges 2x2, starts, ends).predict_proba(X (3, 8, 1) int in 0..3, priors=softmax(randn(3, 8, 2)))",
            ("pomegranate",), _r12c_pg_hmm_predict_proba_priors, loss=_r12c_first_state,
            notes="X is integer (no gradient); in training the priors require grad and get one through "
            "`torch.log(priors)` in the emission matrix; the model's parameters are `nn.Parameter`s with "
            "requires_grad=False; the loss is the first state's posteriors summed (all states sum to a constant)",
            patterns="`predict_proba` -> `predict_log_proba` (hmm/_base.py:460-517) -> `forward_backward` "
            "(dense_hmm.py) -> `_check_inputs` -> `_emission_matrix` (hmm/_base.py:250-308): " + PG_CHECK + " "
            "for X (`ndim=3`, shape) and for the priors with `min_value=0.0, max_value=1.0, value_sum=1.0, "
            "value_sum_dim=-1`: `if (priors < 0).sum() > 0: raise`, `if (priors > 1).sum() > 0: raise`, `if "
            "torch.any(torch.abs(torch.sum(priors, dim=-1) - 1.0) > 1e-6): raise` (tensor tests guarding raises); "
            "`Categorical.log_probability` per state (categorical.py: the same checks with `min_value=0.0, "
            "max_value=n_keys - 1` on X, `logps += self._log_probs[i][X[:, i]]`, an integer-index gather), "
            "`e[:, i] = logp.reshape(n, k).T` into `torch.empty`, `e += torch.log(priors)` in place; `forward` "
            "(`f = clone(...)`, `f[0] += starts`, `f[1:] += t_max`, a Python loop over 7 steps with `f[i] += "
            "log(p @ t) + p_max` in-place row writes) and `backward` (a loop over 7 steps writing `b[i] = ...` into "
            "a `-inf` tensor); `forward_backward`'s transitions `int(t.shape[1] ** 0.5)`, `logsumexp`s; the "
            "posteriors `exp(r)`",
        ),
        Row(
            "r12c_pg_bayes_classifier_exp_gamma", *POMEGRANATE,
            "pomegranate.bayes_classifier.BayesClassifier([Exponential(), Gamma()]).fit(X_train (20, 3) positive, "
            "y_train) in the builder, then .predict_proba(X (6, 3) positive)",
            ("pomegranate",), _r12c_pg_bayes_classifier, loss=_r12c_first_state,
            notes="fitted in the builder (under the build seed); the call only evaluates, so X gets a gradient in "
            "training (the fitted parameters are `nn.Parameter`s with requires_grad=False); the loss is the "
            "first class's posteriors summed (all classes sum to a constant)",
            patterns="`BayesMixin.predict_proba` -> `_emission_matrix` (_bayes.py:31-77): " + PG_CHECK + " for "
            "X (ndim, shape) and for `priors=None`; `torch.empty(6, 2)` filled per component by "
            "`Exponential.log_probability` and `Gamma.log_probability` (exponential.py, gamma.py: "
            "`_check_parameter(X, min_value=0.0, ...)`: `if (X < 0.0).sum() > 0: raise ValueError` (a tensor test "
            "guarding a raise, per component) after the `check_data` test), `e[:, i] = ...` column writes, "
            "`+ self._log_priors`, `exp(e - logsumexp(e))`",
        ),
        Row(
            "r12c_pg_dense_hmm_forward_backward_control", *POMEGRANATE,
            "pomegranate.hmm.DenseHMM([Normal(means, variances, covariance_type='diag')] x 3, edges 3x3, "
            "starts).forward_backward(emissions=randn(2, 7, 3) - 2)",
            ("pomegranate",), _r12c_pg_hmm_forward_backward_control,
            notes="the ends default to uniform (log(1/3)); in training the emissions require grad",
            patterns="control: no tensor value reaches Python. `_check_inputs` (hmm/_base.py:21-31: "
            "`_check_parameter(emissions, ndim=3)` with the default Python `check_parameter=True`: only "
            "`len(shape) != 3`), `forward` (dense_hmm.py: `self.edges.max()`, `exp`, `clone`, `f[0] += starts`, "
            "`f[1:] += t_max`, a Python loop over 6 steps of `f[i] += log(p @ t) + p_max`) and `backward` (a loop "
            "writing `b[i] = ...`), `logsumexp`s, transitions reshaped with `int(t.shape[1] ** 0.5)` (a size), "
            "starts/ends posteriors; returns (transitions, responsibilities, starts, ends, logp)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twelve (c)")
