"""Held-out round twenty-two (r22b): d3rlpy.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 6-dimensional observations, 2-dimensional continuous or 4 discrete
actions, batches of 8 transitions or 2 trajectories of 4 steps, 16-unit
encoders, 4 sampled actions; seeded random weights and data, nothing downloaded,
nothing written to disk, no environment); a row whose ``modes`` is one mode
only says why in its ``notes``.

d3rlpy 2.8.1 (Takuma Seno's offline reinforcement learning library) holds
algorithm configs (``d3rlpy.algos``: BC, NFQ, DQN, SAC, DDPG, TD3, TD3+BC,
BCQ, BEAR, CQL, Cal-QL, CRR, AWAC, IQL, PLAS, PRDC, ReBRAC, Decision
Transformer, TACR and their discrete variants) that ``create`` an algorithm
whose ``create_impl(observation_shape, action_size)`` builds an ``Impl``: a
plain Python object over a frozen dataclass of ``nn.Module``s (policies,
Q-function ensembles, VAEs, log-temperature/log-alpha ``Parameter``s) and
``OptimizerWrapper``s, with torch-level methods ``update(batch, grad_step)``
(``inner_update``: losses, backward and optimizer steps, metrics as Python
floats), ``compute_target``, ``compute_critic_loss``, ``compute_actor_loss``,
``predict_best_action``, ``sample_action``; the torch models
(``d3rlpy.models.torch``: encoders, mean/QR/IQN Q-functions and their ensemble
forwarders, deterministic, residual, Gaussian and categorical policies over
torch.distributions, VAEs, GPT-2 style Decision Transformers), scalers
(``d3rlpy.preprocessing``), replay buffers, evaluators, loggers and the
``fit`` loops (not called: they write ``d3rlpy_logs/``).  The rows build
algorithms through the config API (``compile_graph`` left ``False``: no
``CudaGraphWrapper``, so nothing on the paths calls ``torch.compile``), create
the impl from shapes and call the torch-level methods on a
``TorchMiniBatch``/``TorchTrajectoryMiniBatch`` made of seeded tensors.
Nothing on the rows' paths draws from numpy's or Python's generators (all
sampling is ``torch.randn``/``rsample``/``uniform_`` on torch's generator,
seeded by the harness before every call).

The data-dependent code (file:line relative to the ``d3rlpy`` package unless
torch's).  torch.distributions' argument validation (on by default): every
``Normal`` and ``Categorical`` d3rlpy builds runs ``constraint.check(value)``
and ``if not torch._is_all_true(valid): raise ValueError`` (torch/
distributions/distribution.py:76) and every ``log_prob`` validates its value
the same way (distribution.py:323): the squashed Gaussian of SAC/CQL/BEAR
(models/torch/distributions.py:117-170, built by ``build_squashed_gaussian_
distribution``, policies.py:44-49), the Gaussian of CRR/AWAC/IQL
(distributions.py:49-102, policies.py:37-41), the VAE encoder's ``Normal``
(models/torch/imitators.py:58-63) and ``kl_divergence`` against ``Normal(0.0,
1.0)`` (imitators.py:152-162), the categorical policy (policies.py:157-158).
Metrics read to Python: ``asdict_as_float`` (dataclass_utils.py:15-28:
``float(value.cpu().detach().numpy())`` per loss field) after every critic and
actor step (algos/qlearning/torch/ddpg_impl.py:108-138) and ``float(loss[...]
.cpu().detach().numpy())`` in the imitator updates (bcq_impl.py:139-142) and
the Decision Transformer update (decision_transformer_impl.py:157-181, which
also reads ``int(batch.masks.sum().cpu().detach().numpy())`` into a token
counter and branches on it in Python for the warmup/cosine learning-rate
schedule, writing ``param_group["lr"]``).  Backward and optimizer steps in
the middle of a loss: CQL's Lagrangian ``update_alpha`` inside
``compute_critic_loss`` (cql_impl.py:83-115), SAC's ``update_temp`` inside
``compute_actor_loss`` (sac_impl.py:83-114), BEAR's ``update_alpha``
(``backward(retain_graph=True)``, an Adam step and ``.data.clamp_``,
bear_impl.py:129-191).  numpy in the middle of torch code: PRDC's actor loss
reads the policy's actions to numpy (``.detach().cpu().numpy()``), asks
scikit-learn's ``NearestNeighbors.kneighbors`` for the nearest dataset
point and builds ``torch.tensor`` of the neighbour's action
(prdc_impl.py:61-88); the user-level ``sample_action`` converts numpy in and
out (algos/qlearning/base.py:341-368, torch_utility.py:95-121).  Discrete BCQ's
imitation threshold (bcq_impl.py:291-301) is a float mask (no data-dependent
shape) behind the categorical validation.  Controls (no tensor value reaches
Python): IQL's critic loss (iql_impl.py:72-120: the ensemble's MSE TD error,
models/torch/q_functions/ensemble_q_function.py:77-109, an in-place ``+=`` on
a fresh 0-d tensor, and the expectile value loss with its ``(diff < 0.0)
.float()`` weights) and the continuous Decision Transformer's forward
(models/torch/transformers.py:311-357, 59-93: embeddings, ``stack``,
``masked_fill`` of the causal mask, the Python ``self.training`` test, shape
asserts only).

Global state on import: ``import d3rlpy`` imports every subpackage (gym and
gymnasium: gym prints its "unmaintained" notice to stderr), runs a health check
of the gym, gymnasium and torch versions (healthcheck.py), configures
structlog's global processors (logging/logger.py:21-31), registers shimmy's
environments when shimmy is installed (it is not here) and, when CUDA is
available, sets ``torch._dynamo.config.compiled_autograd = True`` and
``torch.set_float32_matmul_precision("high")`` process-wide (__init__.py:
72-75): on a GPU machine importing d3rlpy changes how Dynamo compiles every
backward.  The builders import d3rlpy (nothing at import of this module).

Library bugs and quirks (checked eagerly; no row depends on them): (1)
``BEARConfig.alpha_learning_rate`` is never used: the alpha optimizer gets
``lr=actor_learning_rate`` (algos/qlearning/bear.py:241-245), and unlike CQL
and SAC the temperature and alpha optimizers are always created, so
``compute_actor_loss`` always steps them (and cannot run under ``no_grad``).
(2) PRDC's ``NearestNeighbors`` is a class attribute (prdc.py:118), shared by
every PRDC instance: fitting one algorithm refits all of them.  (3) The
health check compares the gym and gymnasium versions as plain strings
(healthcheck.py:9-23: ``VERSION < "0.26.0"``), so a gym "0.100.0" would be
refused as too old (torch's ``TorchVersion`` compares correctly).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

D3RLPY = ("d3rlpy", "2.8.1")

INFERENCE = ("inference",)
OBS, ACT, N = 6, 2, 8
DISTRIBUTIONS = ("d3rlpy", "torch.distributions")
UPDATE_NOTES = ("inference only: one training step (backward and in-place optimizer steps under "
                "`torch.enable_grad()` in the wrapper, as `fit` runs it) whose metrics are Python floats; the "
                "output also holds copies of every updated parameter, compared bit for bit")
# next observations (they reach the loss only through the no_grad target and detached policy samples) and the
# 0/1 terminals
FROZEN_TRANSITIONS = ("4", "5")


# --- helpers -------------------------------------------------------------------------------


def _r22b_encoder() -> Any:
    from d3rlpy.models import VectorEncoderFactory

    return VectorEncoderFactory(hidden_units=[16, 16])


def _r22b_impl(config_name: str, action_size: int = ACT, **kwargs: Any) -> Any:
    """``d3rlpy.algos.<config_name>(**kwargs).create(device="cpu:0")`` built from shapes (6-dimensional
    observations); returns the algorithm's impl."""
    import d3rlpy.algos

    algo = getattr(d3rlpy.algos, config_name)(**kwargs).create(device="cpu:0")
    algo.create_impl((OBS,), action_size)
    return algo.impl


def _r22b_actor_critic(config_name: str, **kwargs: Any) -> Any:
    encoder = _r22b_encoder()
    return _r22b_impl(config_name, actor_encoder_factory=encoder, critic_encoder_factory=encoder, **kwargs)


def _r22b_transitions(discrete: bool = False) -> tuple[torch.Tensor, ...]:
    """(observations, actions, rewards, next observations, terminals) of 8 transitions, the last two terminal;
    continuous actions in (-1, 1) or discrete ones (4 actions) as integer-valued floats."""
    actions = torch.randint(0, 4, (N, 1)).float() if discrete else torch.rand(N, ACT) * 1.8 - 0.9
    terminals = torch.zeros(N, 1)
    terminals[-2:] = 1.0
    return torch.randn(N, OBS), actions, torch.randn(N, 1), torch.randn(N, OBS), terminals


def _r22b_batch(obs: torch.Tensor, act: torch.Tensor | None = None, rew: torch.Tensor | None = None,
                next_obs: torch.Tensor | None = None, terminals: torch.Tensor | None = None) -> Any:
    """A ``TorchMiniBatch`` as ``TorchMiniBatch.from_batch`` makes one (unit intervals, zero returns-to-go);
    fields a loss does not read are zeros (the next observations default to the observations)."""
    from d3rlpy.torch_utility import TorchMiniBatch

    zeros = torch.zeros(obs.shape[0], 1)
    act = torch.zeros(obs.shape[0], ACT) if act is None else act
    return TorchMiniBatch(
        observations=obs, actions=act, rewards=zeros if rew is None else rew,
        next_observations=obs if next_obs is None else next_obs, next_actions=act, returns_to_go=zeros,
        terminals=zeros if terminals is None else terminals, intervals=torch.ones_like(zeros), device="cpu:0",
    )


def _r22b_trajectories(discrete: bool) -> tuple[torch.Tensor, ...]:
    """Two trajectories of 4 steps: observations, actions (4 discrete as integer-valued floats, or continuous),
    rewards, returns-to-go, int64 timesteps, masks (the second trajectory padded by one step at the front)."""
    actions = torch.randint(0, 4, (2, 4, 1)).float() if discrete else torch.rand(2, 4, ACT) * 1.8 - 0.9
    rewards = torch.rand(2, 4, 1)
    rtg = rewards.flip(1).cumsum(1).flip(1)
    masks = torch.ones(2, 4)
    masks[1, 0] = 0.0
    timesteps = torch.tensor([[3, 4, 5, 6], [0, 1, 2, 3]])
    return torch.randn(2, 4, OBS), actions, rewards, rtg, timesteps, masks


def _r22b_fields(loss: Any) -> tuple[torch.Tensor, ...]:
    """The tensors of one of d3rlpy's frozen loss dataclasses, in field order (no copy)."""
    return tuple(getattr(loss, f.name) for f in dataclasses.fields(loss))


def _r22b_params(impl: Any) -> tuple[torch.Tensor, ...]:
    """Copies of every parameter of the impl's modules, after the call's optimizer steps."""
    modules = impl.modules.get_torch_modules().values()
    return tuple(p.detach().clone() for m in modules for p in m.parameters())


def _r22b_first(output: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """The loss the library backpropagates: the first field (``actor_loss``)."""
    return output[0]


# --- wrappers ------------------------------------------------------------------------------


def _r22b_critic_loss(impl: Any, obs: torch.Tensor, act: torch.Tensor, rew: torch.Tensor,
                      next_obs: torch.Tensor, terminals: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The critic objective as ``compute_critic_grad`` builds it (algos/qlearning/torch/ddpg_impl.py:101-106),
    without its backward: ``compute_target`` then ``compute_critic_loss``; returns the loss fields."""
    batch = _r22b_batch(obs, act, rew, next_obs, terminals)
    return _r22b_fields(impl.compute_critic_loss(batch, impl.compute_target(batch)))


def _r22b_actor_loss(impl: Any, obs: torch.Tensor, act: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
    """The actor objective as ``compute_actor_grad`` builds it (ddpg_impl.py:126-131), without its backward:
    the policy's output on the observations, then ``compute_actor_loss``; returns the loss fields."""
    batch = _r22b_batch(obs, act)
    return _r22b_fields(impl.compute_actor_loss(batch, impl.policy(obs)))


def _r22b_update(impl: Any, grad_step: int, *transitions: torch.Tensor) -> tuple[dict[str, float], tuple]:
    """One ``impl.update(batch, grad_step)`` training step under ``torch.enable_grad()`` (as ``fit`` runs it);
    returns the step's metrics (Python floats) and the updated parameters."""
    with torch.enable_grad():
        metrics = impl.update(_r22b_batch(*transitions), grad_step)
    return metrics, _r22b_params(impl)


def _r22b_trajectory_update(impl: Any, obs: torch.Tensor, act: torch.Tensor, rew: torch.Tensor,
                            rtg: torch.Tensor, timesteps: torch.Tensor,
                            masks: torch.Tensor) -> tuple[dict[str, float], tuple]:
    """One Decision Transformer ``impl.update(batch, 1)`` on a ``TorchTrajectoryMiniBatch`` under
    ``torch.enable_grad()``; returns the metrics and the updated parameters."""
    from d3rlpy.torch_utility import TorchTrajectoryMiniBatch

    batch = TorchTrajectoryMiniBatch(observations=obs, actions=act, rewards=rew, returns_to_go=rtg,
                                     terminals=torch.zeros_like(rew), timesteps=timesteps, masks=masks,
                                     device="cpu:0")
    with torch.enable_grad():
        metrics = impl.update(batch, 1)
    return metrics, _r22b_params(impl)


# --- builders ------------------------------------------------------------------------------


def _r22b_cql_critic_loss(training: bool) -> Built:
    impl = _r22b_actor_critic("CQLConfig", n_action_samples=4, alpha_learning_rate=0.0)
    return _r22b_critic_loss, (impl, *_r22b_transitions()), {}


def _r22b_cql_update(training: bool) -> Built:
    impl = _r22b_actor_critic("CQLConfig", n_action_samples=4)
    return _r22b_update, (impl, 1, *_r22b_transitions()), {}


def _r22b_bear_actor_loss(training: bool) -> Built:
    encoder = _r22b_encoder()
    impl = _r22b_actor_critic("BEARConfig", imitator_encoder_factory=encoder, n_mmd_action_samples=4,
                              n_target_samples=4, n_action_samples=4)
    return _r22b_actor_loss, (impl, torch.randn(N, OBS)), {}


def _r22b_bcq_update(training: bool) -> Built:
    from d3rlpy.models import QRQFunctionFactory

    impl = _r22b_actor_critic("BCQConfig", imitator_encoder_factory=_r22b_encoder(), n_action_samples=4,
                              q_func_factory=QRQFunctionFactory(n_quantiles=8))
    return _r22b_update, (impl, 1, *_r22b_transitions()), {}


def _r22b_discrete_bcq_best_action(training: bool) -> Built:
    impl = _r22b_impl("DiscreteBCQConfig", action_size=4, encoder_factory=_r22b_encoder())
    return impl.predict_best_action, (torch.randn(N, OBS),), {}


def _r22b_prdc_actor_loss(training: bool) -> Built:
    import numpy as np

    impl = _r22b_actor_critic("PRDCConfig")
    obs, act = torch.randn(32, OBS), torch.rand(32, ACT) * 1.8 - 0.9
    # what PRDC.fit does before training (algos/qlearning/prdc.py:234-239): index beta * obs next to the actions
    impl._nbsr.fit(np.concatenate([np.multiply(obs.numpy(), 2.0), act.numpy()], axis=1))
    return _r22b_actor_loss, (impl, torch.randn(N, OBS)), {}


def _r22b_crr_actor_loss(training: bool) -> Built:
    impl = _r22b_actor_critic("CRRConfig", n_action_samples=4, advantage_type="max", weight_type="binary")
    obs, act, *_ = _r22b_transitions()
    return _r22b_actor_loss, (impl, obs, act), {}


def _r22b_sac_sample_action(training: bool) -> Built:
    import d3rlpy.algos
    from d3rlpy.preprocessing import MinMaxActionScaler, StandardObservationScaler

    encoder = _r22b_encoder()
    config = d3rlpy.algos.SACConfig(
        actor_encoder_factory=encoder, critic_encoder_factory=encoder,
        observation_scaler=StandardObservationScaler(mean=torch.randn(OBS).numpy(),
                                                     std=(torch.rand(OBS) + 0.5).numpy()),
        action_scaler=MinMaxActionScaler(minimum=torch.tensor([-2.0, 0.0]).numpy(),
                                         maximum=torch.tensor([2.0, 5.0]).numpy()),
    )
    algo = config.create(device="cpu:0")
    algo.create_impl((OBS,), ACT)
    return algo.sample_action, (torch.randn(N, OBS).numpy(),), {}


def _r22b_discrete_dt_update(training: bool) -> Built:
    impl = _r22b_impl("DiscreteDecisionTransformerConfig", action_size=4, encoder_factory=_r22b_encoder(),
                      context_size=4, max_timestep=20, num_heads=2, num_layers=1, warmup_tokens=4,
                      final_tokens=100)
    return _r22b_trajectory_update, (impl, *_r22b_trajectories(discrete=True)), {}


def _r22b_iql_critic_loss(training: bool) -> Built:
    encoder = _r22b_encoder()
    impl = _r22b_actor_critic("IQLConfig", value_encoder_factory=encoder)
    return _r22b_critic_loss, (impl, *_r22b_transitions()), {}


def _r22b_dt_forward(training: bool) -> Built:
    impl = _r22b_impl("DecisionTransformerConfig", encoder_factory=_r22b_encoder(), context_size=4,
                      max_timestep=20, num_heads=2, num_layers=1)
    obs, act, _, rtg, timesteps, masks = _r22b_trajectories(discrete=False)
    return impl.modules.transformer, (obs, act, rtg, timesteps, 1 - masks), {}


# --- rows ----------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r22b_cql_critic_loss", *D3RLPY,
            "wrapper: impl.compute_critic_loss(batch, impl.compute_target(batch)) for CQLConfig(n_action_samples=4, "
            "alpha_learning_rate=0.0, 16-16 encoders, 2 critics) built for obs (6,), actions (2,); batch of 8 "
            "transitions (obs (8, 6), actions (8, 2), rewards (8, 1), next obs (8, 6), terminals (8, 1)); returns "
            "(critic loss, scaled conservative loss, alpha) 0-d tensors",
            DISTRIBUTIONS, _r22b_cql_critic_loss, frozen=FROZEN_TRANSITIONS,
            notes="the conservative Q-learning objective with a fixed alpha (no Lagrangian step: the row runs in "
            "both modes); in training the observations, actions, rewards, the critics and log-alpha get the "
            "gradient (the next observations, frozen, reach the loss only through the no_grad target and CQL's "
            "detached policy samples; terminals are 0/1)",
            patterns="`CQLImpl.compute_critic_loss` (algos/qlearning/torch/cql_impl.py:83-106: the TD error, "
            "`_compute_conservative_loss` (161-199) -> `sample_q_values_with_policy` twice (algos/qlearning/torch/"
            "utility.py:54-94: `build_squashed_gaussian_distribution` -> `Normal(loc, std)` whose argument "
            "validation runs `if not torch._is_all_true(valid): raise` (torch/distributions/distribution.py:76), "
            "`sample_n_with_log_prob` -> `Normal.log_prob` validating the raw sample (distribution.py:323)), "
            "`_compute_random_is_values` (in-place `uniform_`), `logsumexp`; the Python `if "
            "self._modules.alpha_optim` test (None here); `exp().clamp(0, 1e6)[0][0]` of log-alpha); "
            "`compute_target` (201-236: deterministic target, `compute_target(..., reduction='min')`)",
        ),
        Row(
            "r22b_cql_update", *D3RLPY,
            "wrapper: impl.update(batch, 1) under enable_grad for CQLConfig(n_action_samples=4; Lagrangian alpha "
            "and temperature learnt) built for obs (6,), actions (2,); batch of 8 transitions; returns (metrics "
            "dict of 6 floats, updated parameters)",
            DISTRIBUTIONS, _r22b_cql_update, modes=INFERENCE,
            notes=UPDATE_NOTES + ". One CQL gradient step: critic, Lagrangian alpha, actor, temperature, soft "
            "target sync",
            patterns="`train_api` (torch_utility.py:507-514: `set_train` over the modules) -> `DDPGBaseImpl."
            "inner_update` (algos/qlearning/torch/ddpg_impl.py:140-148) -> `update_critic` (108-111: "
            "`compute_critic_grad` (zero_grad, `compute_target`, `CQLImpl.compute_critic_loss` with "
            "`update_alpha` (cql_impl.py:108-115: `zero_grad`, a backward and an Adam step in the middle of the "
            "loss), backward), `critic_optim.step()`, `asdict_as_float` (dataclass_utils.py:15-28: `assert "
            "value.ndim == 0`, `float(value.cpu().detach().numpy())` for 3 fields)) -> `update_actor` "
            "(133-138: `q_funcs.eval()`, the policy, `SACImpl.compute_actor_loss` (sac_impl.py:83-104: "
            "`sample_with_log_prob` of the squashed Gaussian (torch.distributions validation, distribution.py:76 "
            "and :323), `update_temp` (106-114: backward and Adam step inside the loss)), backward, step, "
            "`asdict_as_float` for 3 fields) -> `soft_sync` (torch_utility.py:60-66: a Python loop of in-place "
            "`mul_`/`add_` on `.data`)",
        ),
        Row(
            "r22b_bear_actor_loss", *D3RLPY,
            "wrapper: impl.compute_actor_loss(batch, impl.policy(obs)) for BEARConfig(n_mmd_action_samples=4, "
            "n_action_samples=4, n_target_samples=4, laplacian MMD kernel) built for obs (6,), actions (2,); obs "
            "(8, 6); returns (actor loss, temp loss, temp, mmd loss, alpha) 0-d tensors",
            DISTRIBUTIONS, _r22b_bear_actor_loss, modes=("training",), loss=_r22b_first,
            notes="training only: BEAR always steps its temperature and alpha optimizers inside the actor loss "
            "(backward of a loss on log-temperature and of `-mmd_loss`, library quirk 1), which raises under "
            "`no_grad`. The call steps log-temperature and log-alpha in place (Adam); the row's loss is the "
            "returned `actor_loss`, the one `compute_actor_grad` backpropagates (the temperature loss's graph is "
            "already freed by the call's own backward); the observations, the policy, the critics, "
            "log-temperature and log-alpha get the gradient",
            patterns="`BEARImpl.compute_actor_loss` (algos/qlearning/torch/bear_impl.py:129-142) -> "
            "`SACImpl.compute_actor_loss` (sac_impl.py:83-104: `build_squashed_gaussian_distribution` (`Normal` "
            "argument validation, torch/distributions/distribution.py:76), `sample_with_log_prob` (`log_prob` "
            "validation, :323), the Python `if self._modules.temp_optim` test, `update_temp` (106-114: "
            "`zero_grad`, backward, Adam `step`), `exp() * log_prob`, the ensemble's min Q) -> `_compute_mmd_loss` "
            "(157-160) -> `_compute_mmd` (193-246: `forward_vae_sample_n` under no_grad (imitators.py:119-149: "
            "`randn`, `clamp`, the decoder), a second squashed Gaussian and `sample_n_without_squash`, the Python "
            "kernel choice, three laplacian kernel means, `sqrt`) -> `update_alpha` (184-191: "
            "`backward(retain_graph=True)`, Adam `step`, `.data.clamp_(-5.0, 10.0)`) -> `exp()[0][0]` of log-alpha",
        ),
        Row(
            "r22b_bcq_update", *D3RLPY,
            "wrapper: impl.update(batch, 1) under enable_grad for BCQConfig(n_action_samples=4, rl_start_step=0, "
            "QRQFunctionFactory(n_quantiles=8), 2 critics) built for obs (6,), actions (2,); batch of 8 "
            "transitions; returns (metrics dict of 3 floats, updated parameters)",
            DISTRIBUTIONS, _r22b_bcq_update, modes=INFERENCE,
            notes=UPDATE_NOTES + ". One BCQ step: VAE imitator, quantile-regression critics, perturbation actor, "
            "soft target syncs",
            patterns="`BCQImpl.inner_update` (algos/qlearning/torch/bcq_impl.py:215-229) -> `update_imitator` "
            "(125-142: `compute_vae_error` (models/torch/imitators.py:152-162: the VAE encoder's `Normal` "
            "(argument validation, torch/distributions/distribution.py:76), `kl_divergence` against `Normal(0.0, "
            "1.0)` (validated too), `rsample`, the decoder, `mse_loss`), backward, step, `float(loss['loss']"
            ".cpu().detach().numpy())` (142)), `if grad_step < self._rl_start_step` (Python ints) -> "
            "`update_critic` (ddpg_impl.py:108-111: `compute_target` (bcq_impl.py:199-210: observations repeated "
            "4 times, `randn` latents, the decoder, the target perturbation policy, `compute_max_with_n_actions` "
            "(models/torch/q_functions/ensemble_q_function.py:294-358: quantiles gathered by max/min/argmax "
            "indices)), the quantile Huber TD error (q_functions/utility.py:36-70), backward, step, "
            "`asdict_as_float` (dataclass_utils.py:15-28: `float(...numpy())`)) -> `update_actor` "
            "(`compute_actor_grad`, bcq_impl.py:107-123) -> `asdict_as_float` -> two `soft_sync` loops",
        ),
        Row(
            "r22b_discrete_bcq_predict_best_action", *D3RLPY,
            "method: impl.predict_best_action(obs (8, 6)) for DiscreteBCQConfig(action_flexibility=0.3, shared "
            "16-16 encoder) built for obs (6,) and 4 discrete actions; returns int64 (8,)",
            DISTRIBUTIONS, _r22b_discrete_bcq_best_action, modes=INFERENCE,
            notes="inference only: the output is integer actions (an argmax, no gradient path). Discrete BCQ's "
            "greedy action among the actions the imitator deems likely enough",
            patterns="`eval_api` (torch_utility.py:497-504: `assert isinstance(self.modules, Modules)`, `set_eval` "
            "over the modules) -> `DiscreteBCQImpl.inner_predict_best_action` (algos/qlearning/torch/bcq_impl.py:"
            "291-301: the imitator `CategoricalPolicy` (models/torch/policies.py:157-158: `Categorical(logits=...)` "
            "whose argument validation runs `if not torch._is_all_true(valid): raise`, torch/distributions/"
            "distribution.py:76), `dist.logits` (normalized by `logsumexp`), `log_softmax`, the ratio to the "
            "max, the threshold mask `(ratio > log(0.3)).float()`, the Q ensemble, the min-shifted values times "
            "the mask, `argmax`)",
        ),
        Row(
            "r22b_prdc_actor_loss", *D3RLPY,
            "wrapper: impl.compute_actor_loss(batch, impl.policy(obs)) for PRDCConfig(alpha=2.5, beta=2.0) built "
            "for obs (6,), actions (2,), its NearestNeighbors fitted on 32 (beta * obs, action) rows as PRDC.fit "
            "does; obs (8, 6); returns (actor loss, dc loss) 0-d tensors",
            ("d3rlpy", "sklearn"), _r22b_prdc_actor_loss,
            notes="PRDC's policy-regularized actor objective (the dataset constraint pulls each action to its "
            "nearest dataset neighbour in the joint state-action space); the neighbours are found by "
            "scikit-learn on numpy; in training the observations, the policy and the critic get the gradient",
            patterns="`PRDCImpl.compute_actor_loss` (algos/qlearning/torch/prdc_impl.py:61-88: the first critic's "
            "Q of the policy's actions, `lam = alpha / q_t.abs().mean().detach()`, `torch.cat([obs * beta, "
            "actions]).detach().cpu().numpy()` (64-76), `self._nbsr.kneighbors(key, n_neighbors=1)` "
            "(scikit-learn: a KD-tree/brute query on numpy), `self._nbsr._fit_X[idx][:, :, -2:]` numpy fancy "
            "indexing, `torch.tensor(...)` of the neighbours' actions, `squeeze`, `mse_loss`)",
        ),
        Row(
            "r22b_crr_actor_loss", *D3RLPY,
            "wrapper: impl.compute_actor_loss(batch, impl.policy(obs)) for CRRConfig(n_action_samples=4, "
            "advantage_type='max', weight_type='binary') built for obs (6,), actions (2,); obs (8, 6), actions "
            "(8, 2); returns (actor loss,) 0-d tensor",
            DISTRIBUTIONS, _r22b_crr_actor_loss,
            notes="Critic Regularized Regression's binary-filtered behaviour cloning objective; in training the "
            "observations, the dataset actions and the policy get the gradient (the advantage is under no_grad)",
            patterns="`CRRImpl.compute_actor_loss` (algos/qlearning/torch/crr_impl.py:79-86: "
            "`build_gaussian_distribution` (models/torch/policies.py:37-41 -> distributions.py:49-58: `Normal` "
            "argument validation, torch/distributions/distribution.py:76), `log_prob(actions)` (sample "
            "validation, :323) -> `_compute_weight` (88-96: Python string tests) -> `_compute_advantage` "
            "(98-131: under no_grad a second validated `Normal`, `sample_n` (rsample, clamp), observations "
            "repeated 4 times, the Q ensemble, the Python `advantage_type` test, `max(dim=1).values`) -> "
            "`(advantages > 0.0).float()`)",
        ),
        Row(
            "r22b_sac_sample_action", *D3RLPY,
            "method: algo.sample_action(x (8, 6) numpy float32) for SACConfig(StandardObservationScaler(mean, "
            "std), MinMaxActionScaler([-2, 0], [2, 5]), 16-16 encoders) built for obs (6,), actions (2,); "
            "returns numpy (8, 2)",
            DISTRIBUTIONS, _r22b_sac_sample_action, modes=INFERENCE,
            notes="inference only: numpy in, numpy out, run under `no_grad` by the method. The user-level "
            "stochastic action of a SAC policy in the environment's action range; the first call also builds "
            "the scalers' torch copies of their numpy statistics",
            patterns="`QLearningAlgoBase.sample_action` (algos/qlearning/base.py:341-368: `assert self._impl`, "
            "`check_non_1d_array`, `convert_to_torch_recursively` (torch_utility.py:95-121: `isinstance` and "
            "numpy dtype tests, `torch.tensor(data=array)`), `StandardObservationScaler.transform` "
            "(preprocessing/observation_scalers.py:345-352: `_set_torch_value` on the first call, "
            "`add_leading_dims` with shape asserts), `eval_api`, `SACImpl.inner_sample_action` (algos/qlearning/"
            "torch/sac_impl.py:130-132: the squashed Gaussian (`Normal` argument validation, torch/distributions/"
            "distribution.py:76), `tanh(rsample())`), `MinMaxActionScaler.reverse_transform` (preprocessing/"
            "action_scalers.py:137-146), `.cpu().detach().numpy()`)",
        ),
        Row(
            "r22b_discrete_dt_update", *D3RLPY,
            "wrapper: impl.update(batch, 1) under enable_grad for DiscreteDecisionTransformerConfig(context_size=4, "
            "max_timestep=20, num_heads=2, num_layers=1, warmup_tokens=4, final_tokens=100, 16-16 encoder) built "
            "for obs (6,) and 4 actions; trajectories obs (2, 4, 6), actions (2, 4, 1), returns-to-go (2, 4, 1), "
            "timesteps (2, 4) int64, masks (2, 4); returns (metrics dict of loss and learning rate, updated "
            "parameters)",
            ("d3rlpy",), _r22b_discrete_dt_update, modes=INFERENCE,
            notes=UPDATE_NOTES + ". One Decision Transformer step with its token-count learning-rate schedule: "
            "7 real tokens pass the 4 warmup tokens, so the cosine branch sets the learning rate",
            patterns="`train_api` -> `DiscreteDecisionTransformerImpl.inner_update` (algos/transformer/torch/"
            "decision_transformer_impl.py:157-181: `compute_grad` (zero_grad, `compute_loss` (183-196: the "
            "GPT-2 transformer with a global position encoding, `cross_entropy` of the logits), backward), "
            "`optim.step()`, `self._tokens += int(batch.masks.sum().cpu().detach().numpy())` (164), `if "
            "self._tokens < self._warmup_tokens` (165: a Python branch on the tensor-derived count), `math.cos` "
            "progress, `max(0.1, ...)`, a Python loop writing `param_group['lr']`, `float(loss['loss'].cpu()"
            ".detach().numpy())` (179))",
        ),
        Row(
            "r22b_iql_critic_loss_control", *D3RLPY,
            "wrapper: impl.compute_critic_loss(batch, impl.compute_target(batch)) for IQLConfig(expectile=0.7, "
            "16-16 encoders, 2 critics) built for obs (6,), actions (2,); batch of 8 transitions; returns "
            "(critic loss, q loss, v loss) 0-d tensors",
            ("d3rlpy",), _r22b_iql_critic_loss, frozen=FROZEN_TRANSITIONS,
            notes="control: Implicit Q-Learning's critic and expectile value objective; in training the "
            "observations, actions, rewards, the critics and the value function get the gradient (the next "
            "observations, frozen, reach the loss only through the no_grad target; terminals are 0/1)",
            patterns="control: no tensor value reaches Python. `IQLImpl.compute_target` (algos/qlearning/torch/"
            "iql_impl.py:90-92: the value function under no_grad) -> `compute_critic_loss` (72-88: "
            "`compute_ensemble_q_function_error` (models/torch/q_functions/ensemble_q_function.py:77-109: "
            "`assert target.ndim == 2` (a shape), `torch.tensor(0.0)` and `+=` of each critic's mean MSE TD error "
            "with `gamma ** intervals`) -> `compute_value_loss` (113-120: the target ensemble's min Q, the "
            "value function, `(expectile - (diff < 0.0).float()).abs()` weights, mean))",
        ),
        Row(
            "r22b_dt_forward_control", *D3RLPY,
            "module: ContinuousDecisionTransformer (DecisionTransformerConfig(context_size=4, max_timestep=20, "
            "num_heads=2, num_layers=1, simple position encoding, 16-16 encoder) for obs (6,), actions (2,))"
            "(obs (2, 4, 6), actions (2, 4, 2), returns-to-go (2, 4, 1), timesteps (2, 4) int64, attention mask "
            "(2, 4) = 1 - masks); returns (2, 4, 2)",
            ("d3rlpy",), _r22b_dt_forward, frozen=("4",),
            notes="control: the Decision Transformer's action prediction over two padded trajectories; in "
            "training the dropout layers are active (torch's generator) and the observations, actions, "
            "returns-to-go and the transformer get the gradient (the 0/1 attention mask is frozen)",
            patterns="control: no tensor value reaches Python. `ContinuousDecisionTransformer.forward` (models/"
            "torch/transformers.py:311-357: `SimplePositionEncoding` (181-184: an `ndim` assert, an embedding), "
            "the encoder on flattened observations, linear action and return embeddings, `stack`/`transpose`/"
            "`reshape` into 12 tokens, the repeated mask, the Python `self.training` test (the last token dropped "
            "in eval), `GPT2` (248-255: one `Block`, `CausalSelfAttention` (59-93: shape asserts, `masked_fill` "
            "of the causal mask buffer, the padding mask times -10000, softmax, dropout)), `tanh` of every "
            "third token's output)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-two (b)")
