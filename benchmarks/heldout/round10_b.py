"""Held-out round ten (r10b): sbi and En-transformer.

Chosen by reading each library's source, written down in ROUND10.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The sbi rows share one tiny simulation-based-inference problem: a 2-D
``BoxUniform(-1, 1)`` prior and a 3-D simulator ``x = (t0 + t1, t0 - t1, t0 * t1)
+ 0.1 * noise``, 64 simulated (theta, x) pairs from which sbi's builders
(``posterior_nn`` / ``likelihood_nn``) build untrained density estimators with
16 hidden features and 2 transforms (z-scoring statistics from those pairs);
posteriors wrap them as a user would after training (no training is run).
Samplers draw 30-40 samples; the leakage correction uses 100 rejection samples.
The En-transformer rows use width 16, 2 heads of size 32 (the library asserts
``dim_head >= 32``), depth 2, 10-12 nodes with 3-D coordinates, and graphs from
data: chain-like bond graphs (adjacency up to degree 2) and radius graphs built
from the coordinates inside the call.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

SBI = ("sbi", "0.27.0")
EN_TRANSFORMER = ("En-transformer", "1.6.6")


# --- helpers ----------------------------------------------------------------------


def _r10b_simulate(theta: torch.Tensor) -> torch.Tensor:
    """The tiny simulator: (n, 2) parameters -> (n, 3) observations."""
    t0, t1 = theta[:, 0], theta[:, 1]
    clean = torch.stack((t0 + t1, t0 - t1, t0 * t1), dim=-1)
    return clean + 0.1 * torch.randn(theta.shape[0], 3)


def _r10b_sbi_problem(num_simulations: int = 64) -> tuple[Any, torch.Tensor, torch.Tensor]:
    """prior, theta (n, 2) drawn from it, x (n, 3) simulated."""
    from sbi.utils import BoxUniform

    prior = BoxUniform(low=-torch.ones(2), high=torch.ones(2))
    theta = prior.sample((num_simulations,))
    return prior, theta, _r10b_simulate(theta)


def _r10b_theta_eval() -> torch.Tensor:
    """Six parameter sets: four inside the prior box, two outside it."""
    inside = torch.rand(4, 2) * 1.8 - 0.9
    outside = torch.tensor([[2.2, -0.3], [-0.5, -2.4]])
    return torch.cat((inside, outside))


# --- sbi --------------------------------------------------------------------------


def _r10b_sbi_nsf_log_prob(training: bool) -> Built:
    from sbi.neural_nets import posterior_nn

    _, theta, x = _r10b_sbi_problem()
    estimator = posterior_nn("nsf", hidden_features=16, num_transforms=2, num_bins=4)(theta, x)
    theta_eval = _r10b_theta_eval()
    return estimator.log_prob, (theta_eval,), {"condition": _r10b_simulate(theta_eval)}


def _r10b_sbi_mdn_likelihood_loss(training: bool) -> Built:
    from sbi.neural_nets import likelihood_nn

    _, theta, x = _r10b_sbi_problem()
    estimator = likelihood_nn("mdn", hidden_features=16, num_components=3)(theta, x)
    theta_batch = theta[:8].clone()
    return estimator.loss, (_r10b_simulate(theta_batch),), {"condition": theta_batch}


def _r10b_sbi_direct_sample(training: bool) -> Built:
    from sbi.inference import DirectPosterior
    from sbi.neural_nets import posterior_nn

    prior, theta, x = _r10b_sbi_problem()
    estimator = posterior_nn("maf", hidden_features=16, num_transforms=2)(theta, x)
    posterior = DirectPosterior(estimator, prior)
    x_o = _r10b_simulate(torch.tensor([[0.4, -0.2]]))
    return posterior.sample, ((40,),), {"x": x_o, "show_progress_bars": False}


def _r10b_sbi_direct_log_prob_leakage(training: bool) -> Built:
    from sbi.inference import DirectPosterior
    from sbi.neural_nets import posterior_nn

    prior, theta, x = _r10b_sbi_problem()
    estimator = posterior_nn("zuko_maf", hidden_features=16, num_transforms=2)(theta, x)
    posterior = DirectPosterior(estimator, prior)
    x_o = _r10b_simulate(torch.tensor([[0.4, -0.2]]))
    posterior.set_default_x(x_o)
    return posterior.log_prob, (_r10b_theta_eval(),), {
        "x": x_o.clone(),
        "track_gradients": training,
        "leakage_correction_params": {"num_rejection_samples": 100},
    }


def _r10b_sbi_rejection_nle_sample(training: bool) -> Built:
    from sbi.inference import RejectionPosterior
    from sbi.inference.potentials import likelihood_estimator_based_potential
    from sbi.neural_nets import likelihood_nn

    prior, theta, x = _r10b_sbi_problem()
    estimator = likelihood_nn("maf", hidden_features=16, num_transforms=2)(theta, x)
    potential_fn, theta_transform = likelihood_estimator_based_potential(estimator, prior, x_o=None)
    posterior = RejectionPosterior(
        potential_fn, proposal=prior, theta_transform=theta_transform,
        num_samples_to_find_max=64, num_iter_to_find_max=5, m=1.2,
    )
    x_trials = _r10b_simulate(torch.tensor([[0.4, -0.2]]).expand(2, 2))  # 2 iid trials
    return _r10b_rejection_sample, (posterior, (30,), x_trials), {}


def _r10b_rejection_sample(posterior: Any, sample_shape: tuple[int, ...], x: torch.Tensor) -> torch.Tensor:
    """``posterior.sample`` as a user calls it, with grad mode on: its search for the
    maximum potential/proposal ratio runs Adam steps (``loss.backward()``) inside."""
    with torch.enable_grad():
        return posterior.sample(sample_shape, x=x, show_progress_bars=False)


# --- En-transformer ---------------------------------------------------------------


def _r10b_chain_adjacency(n: int, extra_bonds: tuple[tuple[int, int], ...]) -> torch.Tensor:
    """A chain 0-1-...-(n-1) plus extra bonds (ring closures), symmetric, no self loops."""
    adj = torch.zeros(n, n, dtype=torch.bool)
    i = torch.arange(n - 1)
    adj[i, i + 1] = True
    adj[i + 1, i] = True
    for u, v in extra_bonds:
        adj[u, v] = adj[v, u] = True
    return adj


def _r10b_en_bond_degrees(training: bool) -> Built:
    from en_transformer import EnTransformer

    model = EnTransformer(
        dim=16, depth=2, dim_head=32, heads=2, neighbors=2, num_adj_degrees=2, adj_dim=4, rel_pos_emb=True,
    )
    feats = torch.randn(2, 12, 16)
    coors = torch.randn(2, 12, 3)
    mask = torch.ones(2, 12, dtype=torch.bool)
    mask[1, 10:] = False  # the second graph has 10 atoms
    adj = torch.stack((_r10b_chain_adjacency(12, ()), _r10b_chain_adjacency(12, ((2, 7), (4, 10)))))
    return model, (feats, coors), {"mask": mask, "adj_mat": adj}


def _r10b_en_radius_graph_forward(model: Any, tokens: torch.Tensor, coors: torch.Tensor, edges: torch.Tensor,
                                  mask: torch.Tensor, cutoff: float) -> Any:
    """Sparse-neighbour EGNN-style call on a radius graph built from the coordinates."""
    adj_mat = torch.cdist(coors, coors) < cutoff  # self loops included
    return model(tokens, coors, edges=edges, mask=mask, adj_mat=adj_mat)


def _r10b_en_sparse_radius(training: bool) -> Built:
    from en_transformer import EnTransformer

    model = EnTransformer(
        dim=16, depth=2, dim_head=32, heads=2, num_tokens=5, num_edge_tokens=3, edge_dim=4,
        only_sparse_neighbors=True,
    )
    model.train(training)
    tokens = torch.randint(0, 5, (2, 10))
    coors = torch.randn(2, 10, 3)
    edges = torch.randint(0, 3, (2, 10, 10))
    mask = torch.ones(2, 10, dtype=torch.bool)
    mask[0, 8:] = False
    return _r10b_en_radius_graph_forward, (model, tokens, coors, edges, mask, 1.4), {}


# --- rows -------------------------------------------------------------------------

PROBLEM = ("2-D BoxUniform(-1, 1) prior, 3-D simulator, estimator built by sbi's builder from 64 simulated "
           "(theta, x) pairs")
NO_GRAD_SAMPLES = ("samples come out of `accept_reject_sample`/`rejection_sample`, which run under torch.no_grad "
                   "(rejection.py:130, :230): no gradient path")
PROCESS_X = ("`_x_else_default_x` (base_posterior.py:187-198) -> `process_x` (user_input_checks.py:594-634): "
             "`assert_all_finite` `if not torch.isfinite(quantity).all(): raise` (torchutils.py:743-744)")
ACCEPT_REJECT = (
    "`accept_reject_sample` (@torch.no_grad, samplers/rejection/rejection.py:230-457): `tqdm(disable=True, ...)` "
    "progress bar (:318), `while num_remaining > 0:` (:336) on a Python int decremented by "
    "`num_accepted.min().item()` (:393), `time.time()` timeout test (:337-340), proposal `sample` of the flow, "
    "`within_support(prior, theta)` (sbiutils.py:728-765: `prior.support.check(samples)`, `if sample_check.shape "
    "== samples.shape`), per-observation boolean-mask selection `candidates_to_reject[are_accepted[:, i], i]` "
    "(:383-384, data-dependent sizes), `acceptance_rate.min().item()` (:400), next batch size "
    "`int(1.5 * num_remaining / max(min_acceptance_rate, 1e-12))` (:406-409), low-acceptance `logging.warning` "
    "guarded by that rate (:410-445), `pbar.update`, `torch.cat(accepted[i])[:num_samples]` and "
    "`assert samples.shape[0] == num_samples` (:450-455)"
)
EN_ATTN = (
    "`EquivariantAttention.forward` (en_transformer.py:282-514): `num_nodes = mask.sum(dim=-1)` (:297-298, unused), "
    "`rel_dist` ranking, `if 0 < num_nn < n:` (:325, a Python test on the data-derived count; if it fails with a "
    "mask the code reaches `q_mask * k_mask` with `k_mask` undefined), `nbhd_ranking.masked_fill(~ranking_mask, "
    "1e5)` for padding (:327-329), `nbhd_ranking.topk(num_nn, dim=-1, largest=False)` with k from data (:331), "
    "`nbhd_masks = nbhd_values <= valid_neighbor_radius` (:332), einx `get_at` gathers of k, v, rel_dist, "
    "rel_coors, mask (:348-364), `mask &= nbhd_masks` (:368-369), in-place `coor_weights.masked_fill_(~coor_mask, "
    "...)` (:418-421) and `sim.masked_fill_(~mask, ...)` (:485-487)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r10b_sbi_nsf_posterior_log_prob", *SBI,
            "sbi.neural_nets.posterior_nn('nsf', hidden_features=16, num_transforms=2, num_bins=4)(theta (64, 2), "
            "x (64, 3)).log_prob(theta_eval (6, 2) with 2 outside the spline's tail bound, condition=x_eval (6, 3))",
            ("sbi",), _r10b_sbi_nsf_log_prob,
            notes=PROBLEM + "; two of the six evaluated theta lie outside the prior box; in each of the two "
            "coupling splines one of the six transformed values lies beyond tail_bound=3 after z-scoring, so both the "
            "linear-tail and the spline branch run",
            patterns="`NFlowsFlow.log_prob` (neural_nets/estimators/nflows_flow.py:77-97): `_broadcast_and_align` "
            "(estimators/base.py:144-200: `if input.dim() <= ...` unsqueeze, `torch.broadcast_shapes` in try/except "
            "raise, expands) then nflows `Flow.log_prob`; each `PiecewiseRationalQuadraticCouplingTransform` runs "
            "`unconstrained_rational_quadratic_spline` (nflows/transforms/splines/rational_quadratic.py:13-60): "
            "`inside_interval_mask = (inputs >= -tail_bound) & (inputs <= tail_bound)`, boolean-mask setitems "
            "`outputs[outside_interval_mask] = inputs[outside_interval_mask]`, `logabsdet[outside_interval_mask] = 0`, "
            "in-place `unnormalized_derivatives[..., 0] = constant`, `if torch.any(inside_interval_mask):` (tensor "
            "bool), boolean-mask gathers `inputs[inside_interval_mask]`, `unnormalized_widths[inside_interval_mask, "
            ":]` (data-dependent sizes) and boolean-mask setitems of the results; `rational_quadratic_spline` "
            "(:63-...): `if torch.min(inputs) < left or torch.max(inputs) > right: raise InputOutsideDomain()` "
            "(:78-79, two tensor bools), `searchsorted` (nflows/utils/torchutils.py:134-136: in-place "
            "`bin_locations[..., -1] += eps`, `torch.sum(inputs[..., None] >= bin_locations) - 1`), `gather` of bin "
            "parameters; `LULinear` and the z-score `PointwiseAffineTransform` between them",
        ),
        Row(
            "r10b_sbi_mdn_likelihood_loss", *SBI,
            "sbi.neural_nets.likelihood_nn('mdn', hidden_features=16, num_components=3)(theta (64, 2), x (64, 3))"
            ".loss(x (8, 3), condition=theta (8, 2))",
            ("sbi",), _r10b_sbi_mdn_likelihood_loss,
            notes=PROBLEM + " (the likelihood p(x | theta): x is the density's input, theta its condition)",
            patterns="`MixtureDensityEstimator.loss` -> `log_prob` (neural_nets/estimators/"
            "mixture_density_estimator.py:481-533): `_check_condition_shape` / `_check_input_shape` (shape raises, "
            "estimators/base.py:86-142), `has_sample_dim` shape test, z-score `_transform_input` with buffers, "
            "`get_uncorrected_mog` -> `MultivariateGaussianMDN.get_mixture_components` (:163-230): "
            "`torch.zeros` precision factors with index-put writes `precision_factors[..., diag_ix, diag_ix] = "
            "diagonal` and the upper triangle, in-place `precisions[..., arange, arange] += epsilon`; constructing "
            "the `MoG` dataclass runs `__post_init__` (estimators/mog.py:56-132): shape raises and four tensor-bool "
            "raises `if not torch.all(torch.isfinite(self.logits)):` / means / precisions / precision_factors "
            "(:96-101, :131-132); `MoG.log_prob` (:177-264): `if inputs.dim() == 2`, matmul quadratic forms, "
            "`if self.precision_factors is not None` log-det, logsumexp; `_log_det_jacobian_forward` "
            "`-torch.log(self._transform_scale).sum()`",
        ),
        Row(
            "r10b_sbi_direct_posterior_sample", *SBI,
            "sbi.inference.DirectPosterior(posterior_nn('maf', hidden_features=16, num_transforms=2)(theta, x), "
            "BoxUniform prior).sample((40,), x=x_o (1, 3), show_progress_bars=False)",
            ("sbi",), _r10b_sbi_direct_sample, modes=INFERENCE,
            notes=PROBLEM + "; the untrained MAF puts most of its mass outside the prior box, so the rejection loop "
            "runs more than one round; " + NO_GRAD_SAMPLES,
            patterns="`DirectPosterior.sample` (inference/posteriors/direct_posterior.py:136-210): " + PROCESS_X + "; "
            "`reshape_to_batch_event` shape raises, `if x.shape[0] > 1: raise` (shape); " + ACCEPT_REJECT + "; the "
            "proposal is `NFlowsFlow.sample` (nflows_flow.py:111-128) -> nflows `Flow._sample`: "
            "`check.is_positive_int` raises, `StandardNormal` noise, `repeat_rows`, and each "
            "`MaskedAffineAutoregressiveTransform.inverse` (nflows/transforms/autoregressive.py:42-51: "
            "`num_inputs = np.prod(inputs.shape[1:])`, a Python loop of that many MADE passes), `RandomPermutation` "
            "index_select; `samples[:, 0]`",
        ),
        Row(
            "r10b_sbi_direct_posterior_log_prob_leakage", *SBI,
            "sbi.inference.DirectPosterior(posterior_nn('zuko_maf', hidden_features=16, num_transforms=2)(theta, x), "
            "BoxUniform prior) with set_default_x(x_o), .log_prob(theta_eval (6, 2) with 2 outside the prior, "
            "x=x_o.clone(), track_gradients=<training>, leakage_correction_params={'num_rejection_samples': 100})",
            ("sbi",), _r10b_sbi_direct_log_prob_leakage,
            notes=PROBLEM + "; `track_gradients` is True only in the training mode (the library runs the density "
            "under `torch.set_grad_enabled(track_gradients)`); the two theta outside the prior box get -inf, whose "
            "gradient is zero; the leakage factor is computed under no_grad and cached on the posterior "
            "(`_leakage_density_correction_factor`), fresh on every build",
            patterns="`DirectPosterior.log_prob` (inference/posteriors/direct_posterior.py:301-380): " + PROCESS_X +
            "; `ensure_theta_batched`, `reshape_to_sample_batch_event` shape raises, `if x_density_estimator.shape[0] "
            "> 1: raise` (shape), `self.posterior_estimator.eval()` (mode write inside the call), "
            "`torch.set_grad_enabled(track_gradients)`, zuko MAF `log_prob` (estimators/zuko_flow.py:101-125), "
            "`within_support(self.prior, theta)` (sbiutils.py:728-765) and `torch.where(in_prior_support, ..., "
            "torch.tensor(-inf))`; `log(self.leakage_correction(x=x, ...))` (:460-517, @torch.no_grad): "
            "`is_new_x = self.default_x is None or (x is not self.default_x and (x != self.default_x).any())` "
            "(a tensor bool in Python `and`/`or`; False here), `if is_new_x:` / `elif not_saved_at_default_x or "
            "force_update:` then attribute write `self._leakage_density_correction_factor = acceptance_at(...)`, "
            "whose `accept_reject_sample(..., sample_for_correction_factor=True)` returns the acceptance rate: "
            + ACCEPT_REJECT + " (here drawing 100 samples of the zuko MAF)",
        ),
        Row(
            "r10b_sbi_rejection_posterior_nle_sample", *SBI,
            "sbi.inference.RejectionPosterior(likelihood_estimator_based_potential(likelihood_nn('maf', "
            "hidden_features=16, num_transforms=2)(theta, x), prior, None), proposal=prior, "
            "num_samples_to_find_max=64, num_iter_to_find_max=5).sample((30,), x=x_trials (2 iid trials, 3), "
            "show_progress_bars=False)",
            ("sbi",), _r10b_sbi_rejection_nle_sample, modes=INFERENCE,
            notes=PROBLEM + "; the samples are proposal (prior) draws kept by rejection; " + NO_GRAD_SAMPLES +
            "; the Adam search for the maximum ratio backpropagates inside the call, so the wrapper runs it under "
            "`torch.enable_grad()` (under the harness's no_grad it fails: `loss.backward()` on a tensor without "
            "grad_fn)",
            patterns="`RejectionPosterior.sample` (inference/posteriors/rejection_posterior.py:131-226): "
            "`self.potential_fn.set_x(self._x_else_default_x(x))` (" + PROCESS_X + "; attribute writes on the "
            "potential), then `rejection_sample` (samplers/rejection/rejection.py:18-227): "
            "`proposal.sample((64,))` BoxUniform draws, `gradient_ascent` (utils/sbiutils.py:1159-1284): "
            "`init_probs = potential_fn(inits).detach()`, `torch.argsort` and `sorted_inits[-num_to_optimize:]`, "
            "`Adam([optimize_inits])` on a leaf created inside the call, `while iter_ < num_iter:` (5 steps) with "
            "`loss.backward()` / `optimizer.step()` inside the call, `if iter_ % save_best_every == 0 or ...` "
            "re-evaluations, `optimize_inits[torch.argmax(...)]` and `if best_log_prob_iter > "
            "best_log_prob_overall:` (tensor bool, :1260); `if m < 1.0: warnings.warn`; the rejection loop under "
            "no_grad: `tqdm(disable=True)`, `while num_remaining > 0:` on Python ints, `time.time()` timeout test, "
            "`candidates[target_proposal_ratio > uniform_rand]` (boolean mask, data-dependent count, :179), "
            "`num_remaining -= samples.shape[0]`, `acceptance_rate = (num_samples - num_remaining) / "
            "num_sampled_total` (Python), `int(1.5 * num_remaining / max(acceptance_rate, 1e-12))` next batch size, "
            "`logging.warning` on low acceptance (:200-217), `torch.cat(accepted)[:num_samples]`, shape assert; "
            "every potential call is `LikelihoodBasedPotential.__call__` (inference/potentials/"
            "likelihood_based_potential.py:97-130): `if self.x_is_iid:` -> `_log_likelihoods_over_trials` "
            "(:186-240: expand over trials, `assert next(estimator.parameters()).device == x.device ...`, MAF "
            "log_prob summed over trials) + `BoxUniform.log_prob` (log of in-box indicator; -inf outside)",
        ),
        Row(
            "r10b_en_bond_degree_neighbors", *EN_TRANSFORMER,
            "en_transformer.EnTransformer(dim=16, depth=2, dim_head=32, heads=2, neighbors=2, num_adj_degrees=2, "
            "adj_dim=4, rel_pos_emb=True)(feats (2, 12, 16), coors (2, 12, 3), mask=(2, 12) with 2 padded, "
            "adj_mat=(2, 12, 12) bool chain bond graphs, the second with two ring closures)",
            ("en_transformer",), _r10b_en_bond_degrees,
            notes="with num_adj_degrees=2 the layers get `adj_mat = (A @ A) > 0` (two-bond paths; on these graphs it "
            "holds none of the direct bonds), at most 4 atoms per node here, so every layer's top-k takes "
            "k = 2 + (4 + 1) = 7 of the 12 nodes",
            patterns="`EnTransformer.forward` (en_transformer.py:603-668): argument asserts, `if len(adj_mat.shape) "
            "== 2`, `adj_indices = adj_mat.clone().long()`, `for ind in range(num_adj_degrees - 1)`: "
            "`next_degree_adj_mat = (adj_mat.float() @ adj_mat.float()) > 0`, `(... - adj_mat.float()).bool()`, "
            "in-place `adj_indices.masked_fill_(next_degree_mask, degree)`, `adj_mat = next_degree_adj_mat.clone()`, "
            "`adj_emb` embedding of those indices as edges; per layer `EquivariantAttention.forward`: "
            "`adj_mat.masked_fill_(self_mask, False)` (in place, :315), "
            "`max_adj_neighbors = adj_mat.long().sum(dim=-1).max().item() + 1` (:317, `.item()`), "
            "`num_nn = num_nn + max_adj_neighbors` (Python int from data), `nbhd_ranking.masked_fill(adj_mat, 0.)`; "
            + EN_ATTN + "; `rel_pos_emb`: `seq_rel_dist = seq - nbhd_indices` (:376-381, gathered indices as float "
            "positions); the edge MLP on gathered adjacency-degree embeddings (:404-411)",
        ),
        Row(
            "r10b_en_sparse_radius_graph", *EN_TRANSFORMER,
            "EnTransformer(dim=16, depth=2, dim_head=32, heads=2, num_tokens=5, num_edge_tokens=3, edge_dim=4, "
            "only_sparse_neighbors=True)(tokens (2, 10), coors (2, 10, 3), edges=(2, 10, 10) ids, mask=(2, 10) "
            "with 2 padded, adj_mat=cdist(coors, coors) < 1.4) built inside the call",
            ("en_transformer",), _r10b_en_sparse_radius,
            notes="the radius graph is built from the input coordinates inside the call (`torch.cdist(coors, coors) "
            "< 1.4`, self loops included), so the neighbour count is the data's (here at most 4 neighbours, so each "
            "layer's top-k takes k = 4 + 1 = 5 of 10 nodes); the module's train mode is set in "
            "the builder (the callable is a function); tokens, edge ids, masks and the cutoff carry no gradient",
            patterns="`torch.cdist(...) < cutoff` adjacency in the wrapper; `EnTransformer.forward` "
            "(en_transformer.py:603-668): token and edge-type `nn.Embedding`s, `only_sparse_neighbors` sets "
            "`num_adj_degrees=1` (no degree loop; `adj_indices` computed and unused), `if len(adj_mat.shape) == 2` "
            "(3-D here, so the layers get the wrapper's tensor itself); per layer `EquivariantAttention.forward`: "
            "in-place `adj_mat.masked_fill_(self_mask, False)` (:315, writes the self loops out of the shared "
            "adjacency), `max_adj_neighbors = adj_mat.long().sum(dim=-1).max().item() + 1` (:317, `.item()`), "
            "`num_nn = max_adj_neighbors` and `valid_neighbor_radius = 0` (:319-320), ranking "
            "`masked_fill(self_mask, -1.)` / `masked_fill(adj_mat, 0.)` so only bonded nodes pass "
            "`nbhd_values <= 0`; " + EN_ATTN + "; edges gathered `get_at('b i [j] d, b i k -> b i k d', edges, "
            "nbhd_indices)` into the edge MLP (:404-411)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round ten (r10b)")
