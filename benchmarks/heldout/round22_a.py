"""Held-out round twenty-two (r22a): sb3-contrib.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 4-dimensional Box observations, 2 to 5 actions, 16-unit MLPs,
8-unit LSTMs, batches of 4 to 10, 16 stored transitions; seeded random data,
nothing downloaded, nothing written to disk, no environment ever stepped or
rendered); a row whose ``modes`` is one mode only says why in its ``notes``.

sb3-contrib 2.9.2 (the contributed algorithms of Stable-Baselines3 2.9.2, on
gymnasium 1.0.0) holds RecurrentPPO (``RecurrentActorCriticPolicy``: actor and
critic LSTMs between the features extractor and the MLP heads, fed sequences
with episode-start resets), MaskablePPO (``MaskableActorCriticPolicy`` with
``MaskableCategorical`` distributions whose invalid actions get logit -1e8),
QR-DQN (``QuantileNetwork``), TQC (truncated quantile critics), CrossQ
(SAC-style actor and critics with ``BatchRenorm1d`` layers and no target
network), TRPO (conjugate gradient on the Fisher-vector product plus a
backtracking line search), ARS (plain MLP/linear policies searched by random
perturbation through ``AsyncEval`` worker processes) and helpers
(``quantile_huber_loss``, ``conjugate_gradient_solver``, ``flat_grad``,
wrappers, envs).  Policies are built from ``gymnasium.spaces`` with a constant
learning-rate schedule; the two ``train`` rows build the algorithm on
``_SpacesEnv`` (an env defined here that only carries the spaces; sb3 wraps it
in ``Monitor`` and ``DummyVecEnv``, neither writes nor resets) and fill the
rollout or replay buffer with seeded synthetic transitions, as
``collect_rollouts`` would, without stepping anything.

The data-dependent code on the rows' paths (file:line relative to the
``sb3_contrib`` package; ``sb3/`` is ``stable_baselines3``).  Every sb3
distribution builds torch ``Normal``/``Categorical`` objects with argument
validation on (torch's default): ``Distribution.__init__`` tests ``not
torch._is_all_true(constraint.check(param))`` and ``log_prob`` tests the sample's
support the same way (torch/distributions/distribution.py:75-76, 322-323):
tensor truth in Python on every policy call below.  RecurrentPPO:
``_process_sequence`` (common/recurrent/policies.py:161-210) reshapes to
sequences, tests ``if th.all(episode_starts == 0.0)`` (190, a tensor's truth)
and either runs the LSTM once (191-193) or loops in Python over the time steps
(197-206), resetting the states by ``(1.0 - episode_start)`` per step;
``forward`` (212-257), ``evaluate_actions`` (310-345) and ``predict``
(367-431: ``obs_to_tensor`` of numpy, ``th.tensor`` of the numpy states,
``.cpu().numpy()`` of states and actions, ``np.clip``) all go through it.
MaskablePPO: ``MaskableCategorical.apply_masking`` (common/maskable/
distributions.py:46-70: ``th.as_tensor`` of the mask, numpy or tensor, a
three-argument ``th.where`` and a validated ``Categorical`` re-init), its
masked ``entropy`` (72-82), ``MaskableMultiCategoricalDistribution.apply_masking``
(235-247: ``th.as_tensor`` of a numpy mask, ``view``, ``split``, a Python loop);
``MaskableActorCriticPolicy.forward`` (common/maskable/policies.py:113-143) and
``evaluate_actions`` (325-353).  CrossQ: ``BatchRenorm.forward``
(common/torch_layers.py:60-110) branches on ``self.training`` (a Python bool)
and then on ``if self.steps > self.warmup_steps`` (78: a long buffer compared
in Python), and updates ``ra_mean``, ``ra_var`` and ``steps`` in place
(96-98).  TRPO: ``train`` (trpo/trpo.py:232-388) takes the whole rollout from
``RolloutBuffer.get`` (sb3/common/buffers.py:481-506: ``np.random.permutation``,
numpy ``swap_and_flatten``, ``th.tensor`` per field), ``copy.copy`` of the old
distribution, ``kl_divergence``, ``_compute_actor_grad`` (176-230: a Python loop
over named parameters skipping ``"value"`` ones, ``autograd.grad`` with
``create_graph``, ``is not None`` tests), ``conjugate_gradient_solver``
(common/utils.py:73-137: ``if residual_squared_norm < residual_tol`` (109) and
the early stop ``if new_residual_squared_norm < residual_tol`` (130), tensor
truths, around ``flat_grad`` Hessian-vector products), ``float(th.matmul(...))``
(303-305), ``np.sqrt``, a backtracking line search under ``no_grad`` that
assigns ``param.data`` and stops on ``if (kl_div < self.target_kl) and
(new_policy_objective > policy_objective)`` (341, two tensor truths), then
``.item()`` reads (355-359), the critic's mini-batch loop with
``value_loss.item()`` (366), ``backward`` and Adam steps, ``explained_variance``
in numpy and ``logger.record`` of numpy means and of ``log_std`` ``.item()``.
TQC: ``train`` (tqc/tqc.py:197-297) samples the replay buffer
(sb3/common/buffers.py:285-323: ``np.random.randint`` indices, numpy gathers,
``th.tensor``), reads ``ent_coef_loss.item()``, ``ent_coef.item()``,
``critic_loss.item()`` and ``actor_loss.item()`` per gradient step (232, 236,
267, 277), sorts and truncates the target quantiles (253-255: a Python int),
steps three optimizers and ``polyak_update``s the target critic and
batch-norm stats (286-288).

Controls (no tensor value reaches Python): ``quantile_huber_loss``
(common/utils.py:7-70: ``ndim``/``shape`` tests of Python ints, ``arange``,
a three-argument ``th.where``, ``(delta.detach() < 0).float()``) and
``QuantileNetwork.forward`` (qrdqn/policies.py:61-69: the flatten extractor,
an MLP, ``view``).

Global state on import (the builders import the library; this module imports
only torch): ``stable_baselines3`` imports gymnasium (a ``once`` filter for
``DeprecationWarning``s of ``gymnasium.*``), tqdm (an ``ignore`` filter for
``TqdmExperimentalWarning``) and, in ``vec_env/patch_gym.py:7-13``, tries
``import gym``: in this venv the old ``gym`` 0.26.2 is installed (d3rlpy
requires it), so importing sb3 prints gym's "Gym has been unmaintained since
2022" notice to stderr, adds a ``once`` filter for ``gym.*``
``DeprecationWarning``s and sets ``SDL_AUDIODRIVER=dsp`` and
``PYGAME_HIDE_SUPPORT_PROMPT=hide`` in ``os.environ`` (gym/__init__.py).  No
logger is configured; ``torch._dynamo`` is not imported.  The ``train`` rows
give the algorithm an sb3 ``Logger(folder=None, output_formats=[])`` (records
in memory, writes nothing) instead of the one ``learn`` would configure.  The
buffers draw from numpy's global generator, which the harness does not seed:
those builders call ``np.random.seed(...)`` (every harness call follows a fresh
build); nothing else on the rows' paths draws from numpy or Python's
``random``; sampled actions come from torch's generator.

No library bug or quirk was met on the rows' paths (checked eagerly).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

SB3C = ("sb3-contrib", "2.9.2")
MODULES = ("sb3_contrib", "stable_baselines3")
INFERENCE = ("inference",)
LSTM = 8

# --- helpers -------------------------------------------------------------------------------


def _lr(_: float) -> float:
    return 3e-4


def _obs_space() -> Any:
    import numpy as np
    from gymnasium import spaces

    return spaces.Box(-1.0, 1.0, (4,), np.float32)


def _box() -> Any:
    import numpy as np
    from gymnasium import spaces

    return spaces.Box(-1.0, 1.0, (2,), np.float32)


def _lstm_states(n_seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Carried-over LSTM (hidden, cell) states, (1, n_seq, LSTM) each."""
    return torch.randn(1, n_seq, LSTM) * 0.5, torch.randn(1, n_seq, LSTM) * 0.5


def _recurrent_policy(action_space: Any, **kwargs: Any) -> Any:
    from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy

    return RecurrentActorCriticPolicy(_obs_space(), action_space, _lr, net_arch=[16], lstm_hidden_size=LSTM,
                                      **kwargs)


def _masks(n: int, sizes: tuple[int, ...]) -> torch.Tensor:
    """Random bool action masks (n, sum(sizes)) with at least one valid action per sub-space."""
    parts = []
    for size in sizes:
        mask = torch.rand(n, size) < 0.6
        mask[torch.arange(n), torch.randint(0, size, (n,))] = True
        parts.append(mask)
    return torch.cat(parts, dim=1)


def _spaces_env(action_space: Any) -> Any:
    """A gymnasium env that only carries the spaces (sb3 needs one to build an algorithm); never stepped."""
    import gymnasium as gym
    import numpy as np

    class _SpacesEnv(gym.Env):
        def __init__(self) -> None:
            self.observation_space, self.action_space = _obs_space(), action_space

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
            return np.zeros(4, np.float32), {}

        def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
            return np.zeros(4, np.float32), 0.0, False, False, {}

    return _SpacesEnv()


def _silent_logger(model: Any) -> Any:
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def _train(model: Any, **kwargs: Any) -> tuple[tuple[torch.Tensor, ...], dict[str, Any]]:
    """``model.train(**kwargs)`` under ``torch.enable_grad()`` (the update differentiates itself); returns the
    updated policy parameters and the values the update recorded in the logger."""
    with torch.enable_grad():
        model.train(**kwargs)
    return tuple(p.detach().clone() for p in model.policy.parameters()), dict(model.logger.name_to_value)


# --- builders ------------------------------------------------------------------------------


def _recurrent_evaluate_actions(training: bool) -> Built:
    from gymnasium import spaces
    from sb3_contrib.common.recurrent.type_aliases import RNNStates

    policy = _recurrent_policy(spaces.Discrete(3))
    starts = torch.zeros(10)
    starts[0] = 1.0  # the first of the two sequences starts an episode, the second continues one
    states = RNNStates(_lstm_states(2), _lstm_states(2))
    return policy.evaluate_actions, (torch.randn(10, 4), torch.randint(0, 3, (10,)), states, starts), {}


def _recurrent_forward(training: bool) -> Built:
    from sb3_contrib.common.recurrent.type_aliases import RNNStates

    policy = _recurrent_policy(_box(), shared_lstm=True, enable_critic_lstm=False)
    pi = _lstm_states(4)
    return policy.forward, (torch.randn(4, 4), RNNStates(pi, pi), torch.zeros(4)), {}


def _recurrent_predict(training: bool) -> Built:
    import numpy as np

    policy = _recurrent_policy(_box())
    h, c = _lstm_states(3)
    return policy.predict, (torch.randn(3, 4).numpy(),), {
        "state": (h.numpy(), c.numpy()), "episode_start": np.array([True, False, False]), "deterministic": True}


def _maskable_evaluate_actions(training: bool) -> Built:
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = MaskableActorCriticPolicy(_obs_space(), spaces.Discrete(5), _lr, net_arch=[16])
    masks = _masks(8, (5,))
    actions = torch.multinomial(masks.float(), 1).squeeze(1)  # valid actions, as the rollout stored them
    return policy.evaluate_actions, (torch.randn(8, 4), actions), {"action_masks": masks}


def _maskable_forward_multidiscrete(training: bool) -> Built:
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = MaskableActorCriticPolicy(_obs_space(), spaces.MultiDiscrete([3, 4]), _lr, net_arch=[16])
    return policy.forward, (torch.randn(6, 4),), {"action_masks": _masks(6, (3, 4)).numpy()}


def _crossq_critic(training: bool) -> Built:
    from sb3_contrib.common.torch_layers import BatchRenorm
    from sb3_contrib.crossq.policies import CrossQPolicy

    policy = CrossQPolicy(_obs_space(), _box(), _lr, net_arch=[16, 16], renorm_warmup_steps=4)
    with torch.no_grad():  # some steps into training: past the warmup, running statistics moved
        for layer in policy.critic.modules():
            if isinstance(layer, BatchRenorm):
                layer.steps.fill_(10)
                layer.ra_mean.normal_(0.0, 0.2)
                layer.ra_var.uniform_(0.5, 1.5)
    return policy.critic, (torch.randn(8, 4), torch.rand(8, 2) * 2 - 1), {}


def _trpo_train(training: bool) -> Built:
    import numpy as np
    from sb3_contrib import TRPO

    model = _silent_logger(TRPO("MlpPolicy", _spaces_env(_box()), n_steps=16, batch_size=8, n_critic_updates=2,
                                cg_max_steps=5, policy_kwargs={"net_arch": [16]}, device="cpu"))
    buffer = model.rollout_buffer
    with torch.no_grad():  # a rollout as collect_rollouts stores it: the policy's own samples, values, log-probs
        for step in range(16):
            obs = torch.rand(1, 4) * 2 - 1
            actions, values, log_probs = model.policy(obs)
            buffer.add(obs.numpy(), actions.numpy(), torch.randn(1).numpy(), np.array([step % 7 == 0]), values,
                       log_probs)
        buffer.compute_returns_and_advantage(last_values=model.policy.predict_values(torch.rand(1, 4)),
                                             dones=np.array([False]))
    np.random.seed(2201)  # RolloutBuffer.get permutes with numpy's global generator
    return _train, (model,), {}


def _tqc_train(training: bool) -> Built:
    import numpy as np
    from sb3_contrib import TQC

    model = _silent_logger(TQC("MlpPolicy", _spaces_env(_box()), buffer_size=32, learning_starts=0, batch_size=8,
                               top_quantiles_to_drop_per_net=1, device="cpu",
                               policy_kwargs={"net_arch": [16], "n_quantiles": 5, "n_critics": 2}))
    for step in range(16):
        model.replay_buffer.add(torch.rand(1, 4).numpy() * 2 - 1, torch.rand(1, 4).numpy() * 2 - 1,
                                torch.rand(1, 2).numpy() * 2 - 1, torch.randn(1).numpy(),
                                np.array([step % 5 == 4]), [{}])
    np.random.seed(2202)  # ReplayBuffer.sample draws indices from numpy's global generator
    return _train, (model,), {"gradient_steps": 2, "batch_size": 8}


def _quantile_huber_loss(training: bool) -> Built:
    from sb3_contrib.common.utils import quantile_huber_loss

    return quantile_huber_loss, (torch.randn(8, 2, 5), torch.randn(8, 1, 8) * 2), {"sum_over_quantiles": False}


def _qrdqn_quantile_net(training: bool) -> Built:
    from gymnasium import spaces
    from sb3_contrib.qrdqn.policies import QRDQNPolicy

    policy = QRDQNPolicy(_obs_space(), spaces.Discrete(3), _lr, n_quantiles=8, net_arch=[16, 16])
    return policy.quantile_net, (torch.randn(8, 4),), {}


# --- rows ------------------------------------------------------------------------------------

_VALIDATION = ("torch's distribution validation (`not torch._is_all_true(constraint.check(...))`, torch/"
               "distributions/distribution.py:75-76, 322-323, outside `modules`)")
_TRAIN_NOTES = ("inference only: the update differentiates itself (run under `torch.enable_grad()` by the wrapper) "
                "and returns detached parameters and logged floats; ")


def _rows() -> list[Row]:
    return [
        Row(
            "r22a_recurrent_ppo_evaluate_actions", *SB3C,
            "method: RecurrentActorCriticPolicy(Box(4), Discrete(3), net_arch=[16], lstm_hidden_size=8)"
            ".evaluate_actions(obs (10, 4), actions (10,) int64, RNNStates(pi=(h, c), vf=(h, c)) each (1, 2, 8), "
            "episode_starts (10,) with a 1 at step 0); returns (values (10, 1), log_prob (10,), entropy (10,))",
            MODULES, _recurrent_evaluate_actions, frozen=("3",),
            notes="RecurrentPPO's loss evaluation on one mini-batch of 2 padded sequences of 5 steps, the first "
            "starting an episode; in training the observations and parameters require grad (episode starts are "
            "0/1 floats: frozen; the nested LSTM states are constants as in the buffer)",
            patterns="`_process_sequence` twice (actor and critic LSTM; common/recurrent/policies.py:161-210: "
            "`reshape`/`swapaxes`, `if th.all(episode_starts == 0.0)` (190: a tensor's truth, False here), a "
            "Python loop over the 5 steps (197-206) with `(1.0 - episode_start).view(...) * state` resets, "
            "`th.cat`, `flatten`), `evaluate_actions` (310-345), sb3's `CategoricalDistribution` (`Categorical("
            "logits=...)` and `log_prob`: " + _VALIDATION + "), `entropy`",
        ),
        Row(
            "r22a_recurrent_ppo_forward_shared_lstm", *SB3C,
            "method: RecurrentActorCriticPolicy(Box(4), Box(2), net_arch=[16], lstm_hidden_size=8, shared_lstm="
            "True, enable_critic_lstm=False).forward(obs (4, 4), RNNStates(pi, pi) (1, 4, 8), episode_starts "
            "zeros (4,)); returns (actions (4, 2), values (4, 1), log_prob (4,), RNNStates)",
            MODULES, _recurrent_forward, frozen=("2",),
            notes="RecurrentPPO's rollout step for 4 environments none of which just reset (the fast path), "
            "actions sampled with `rsample` from torch's generator; in training the observations and parameters "
            "require grad (episode starts frozen)",
            patterns="`forward` (common/recurrent/policies.py:212-257: the shared-LSTM branch with `detach`), "
            "`_process_sequence` (161-210: `if th.all(episode_starts == 0.0)` (190: a tensor's truth, True "
            "here) then one LSTM call), sb3's `DiagGaussianDistribution` (sb3/common/distributions.py:155-185: "
            "`Normal(mean, std)`, `rsample`, `log_prob`, `sum_independent_dims`: " + _VALIDATION + ")",
        ),
        Row(
            "r22a_recurrent_ppo_predict", *SB3C,
            "method: RecurrentActorCriticPolicy(Box(4), Box(2), net_arch=[16], lstm_hidden_size=8).predict(obs "
            "(3, 4) numpy, state=(h, c) (1, 3, 8) numpy, episode_start=[True, False, False], deterministic=True); "
            "returns (actions (3, 2) numpy, states numpy)",
            MODULES, _recurrent_predict, modes=INFERENCE,
            notes="inference only: numpy in, numpy out under the method's own `no_grad`. Acting with a recurrent "
            "policy in 3 environments, the first just reset",
            patterns="`predict` (common/recurrent/policies.py:367-431: `set_training_mode`, `obs_to_tensor` "
            "(sb3/common/policies.py:236-277: `np.array`, `is_vectorized_observation`, `reshape`, `th.as_tensor`), "
            "`th.tensor` of the numpy states and starts (406-409), `_predict`/`get_distribution` (259-278, "
            "347-365) through `_process_sequence` (`if th.all(episode_starts == 0.0)` (190: False) and a 1-step "
            "Python loop), `Normal` validation, `mode`, `.cpu().numpy()` of states and actions (413, 416), "
            "`np.clip` to the Box (425))",
        ),
        Row(
            "r22a_maskable_ppo_evaluate_actions", *SB3C,
            "method: MaskableActorCriticPolicy(Box(4), Discrete(5), net_arch=[16]).evaluate_actions(obs (8, 4), "
            "actions (8,) int64, action_masks=(8, 5) bool); returns (values (8, 1), log_prob (8,), entropy (8,))",
            MODULES, _maskable_evaluate_actions,
            notes="MaskablePPO's loss evaluation on one mini-batch with invalid actions masked out; in training the "
            "observations and parameters require grad",
            patterns="`evaluate_actions` (common/maskable/policies.py:325-353), `MaskableCategorical` (common/"
            "maskable/distributions.py:34-82: a validated `Categorical` init, `apply_masking` (46-70: `th.as_tensor"
            "(masks, dtype=bool)`, `reshape`, a three-argument `th.where` with -1e8, `__dict__.pop('probs')`, a "
            "second validated `Categorical.__init__`), masked `entropy` (72-82: `logits * probs`, `th.where`)), "
            "`log_prob` with sample validation: " + _VALIDATION,
        ),
        Row(
            "r22a_maskable_ppo_forward_multidiscrete", *SB3C,
            "method: MaskableActorCriticPolicy(Box(4), MultiDiscrete([3, 4]), net_arch=[16]).forward(obs (6, 4), "
            "action_masks=(6, 7) numpy bool); returns (actions (6, 2), values (6, 1), log_prob (6,))",
            MODULES, _maskable_forward_multidiscrete,
            notes="MaskablePPO's rollout step for 6 environments with two masked discrete sub-actions, masks as the "
            "env's `action_masks()` gives them (numpy); actions sampled from torch's generator; in training the "
            "observations and parameters require grad",
            patterns="`forward` (common/maskable/policies.py:113-143), `MaskableMultiCategoricalDistribution` "
            "(common/maskable/distributions.py:191-247: `th.split` into 2 validated `MaskableCategorical`s, "
            "`apply_masking` (235-247: `th.as_tensor` of the numpy mask mid-forward, `view`, `split`, a Python loop "
            "of `MaskableCategorical.apply_masking` (46-70: re-validated `Categorical` inits)), `sample` "
            "(`multinomial`), `log_prob` with sample validation): " + _VALIDATION,
        ),
        Row(
            "r22a_crossq_critic_batch_renorm", *SB3C,
            "module: CrossQPolicy(Box(4), Box(2), net_arch=[16, 16], renorm_warmup_steps=4).critic(obs (8, 4), "
            "actions (8, 2)) with every BatchRenorm1d at steps=10; returns 2 Q-value tensors (8, 1)",
            MODULES, _crossq_critic,
            notes="CrossQ's critics (BatchRenorm before each Linear) past the renorm warmup, on one batch; in "
            "training the layers use and update batch statistics (the data-dependent branch), in inference "
            "(eval) they use the running statistics only and no tensor value reaches Python; in training "
            "observations, actions and parameters require grad",
            patterns="`CrossQCritic.forward` (crossq/policies.py:303-309: `set_grad_enabled`, `cat`, a Python "
            "loop over 2 Q-networks), per `BatchRenorm1d` (3 per network; common/torch_layers.py:60-110): `if "
            "self.training`, batch `mean`/`var`, `if self.steps > self.warmup_steps` (78: a long buffer's value "
            "tested in Python), detached clamped `r`/`d` renorm factors, in-place `ra_mean += ...`, `ra_var += "
            "...`, `steps += 1` (96-98)",
        ),
        Row(
            "r22a_trpo_train", *SB3C,
            "wrapper: TRPO('MlpPolicy', env with Box(4)/Box(2) spaces, n_steps=16, batch_size=8, "
            "n_critic_updates=2, cg_max_steps=5, net_arch=[16]).train() on a synthetic 16-step rollout; returns "
            "(updated policy parameters, logged values)",
            MODULES, _trpo_train, modes=INFERENCE,
            notes=_TRAIN_NOTES + "one TRPO update (natural-gradient actor step with line search, two critic "
            "epochs of two mini-batches) on a rollout of the policy's own samples (torch's generator, in the "
            "builder); numpy seeded in the builder for the buffer's permutation",
            patterns="`TRPO.train` (trpo/trpo.py:232-388: `RolloutBuffer.get` (numpy permutation, `th.tensor`), "
            "`copy.copy` of the old distribution, `kl_divergence`, `_compute_actor_grad` (176-230: a Python "
            "loop over named parameters, `autograd.grad(create_graph=True)`, `is not None` tests), "
            "`conjugate_gradient_solver` (common/utils.py:73-137: `if residual_squared_norm < residual_tol` (109), "
            "per iteration `if new_residual_squared_norm < residual_tol` (130), Hessian-vector products by "
            "`flat_grad`), `float(th.matmul(...))` (303-305), `np.sqrt`, a line search assigning `param.data` "
            "that stops on `if (kl_div < self.target_kl) and (new_policy_objective > policy_objective)` (341), "
            "`.item()` (355-359), a critic loop with `value_loss.item()` (366), `backward`, Adam `step`, numpy "
            "`explained_variance`, `logger.record` of `np.mean`s and `th.exp(log_std).mean().item()` (386); "
            + _VALIDATION,
        ),
        Row(
            "r22a_tqc_train", *SB3C,
            "wrapper: TQC('MlpPolicy', env with Box(4)/Box(2) spaces, buffer_size=32, "
            "top_quantiles_to_drop_per_net=1, net_arch=[16], n_quantiles=5, n_critics=2).train(gradient_steps=2, "
            "batch_size=8) on 16 synthetic transitions; returns (updated policy parameters, logged values)",
            MODULES, _tqc_train, modes=INFERENCE,
            notes=_TRAIN_NOTES + "two TQC gradient steps (entropy coefficient, truncated-quantile critic, actor, "
            "Polyak target update); numpy seeded in the builder for the replay sampling; the actions are "
            "`rsample`d from torch's generator in the call",
            patterns="`TQC.train` (tqc/tqc.py:197-297: `ReplayBuffer.sample` (sb3/common/buffers.py:285-323: "
            "`np.random.randint`, numpy gathers, `th.tensor`), `Actor.action_log_prob` (tqc/policies.py:146-175: "
            "`SquashedDiagGaussianDistribution`, validated `Normal`), `ent_coef_loss.item()` (232), "
            "`ent_coef.item()` (236), `backward`/`step` of three optimizers, `th.sort` and truncation of the "
            "target quantiles by a Python int (253-255), in-place `unsqueeze_`, `quantile_huber_loss`, "
            "`critic_loss.item()` (267), `actor_loss.item()` (277), `polyak_update` (sb3/common/utils.py:530-553: "
            "`no_grad`, in-place `mul_`, `th.add(out=)`), `np.mean`s into `logger.record`)",
        ),
        Row(
            "r22a_tqc_quantile_huber_loss_control", *SB3C,
            "function: sb3_contrib.common.utils.quantile_huber_loss(current (8, 2, 5), target (8, 1, 8), "
            "sum_over_quantiles=False); returns a 0-d tensor",
            ("sb3_contrib",), _quantile_huber_loss, frozen=("1",),
            notes="control: TQC's critic loss between 2 critics' 5 quantiles and 8 truncated target quantiles; "
            "in training the current quantiles require grad (the target is computed under no_grad in TQC: "
            "frozen)",
            patterns="control: no tensor value reaches Python. `quantile_huber_loss` (common/utils.py:7-70: "
            "`ndim`/`shape` tests of Python ints, `arange` cumulative probabilities, `view`, broadcast "
            "differences, `abs`, a three-argument `th.where(abs_delta > 1, ...)`, `(delta.detach() < 0).float()`, "
            "`mean`)",
        ),
        Row(
            "r22a_qrdqn_quantile_net_control", *SB3C,
            "module: QRDQNPolicy(Box(4), Discrete(3), n_quantiles=8, net_arch=[16, 16]).quantile_net(obs (8, 4)); "
            "returns (8, 8, 3)",
            ("sb3_contrib",), _qrdqn_quantile_net,
            notes="control: QR-DQN's quantile network on one batch of observations; in training the observations "
            "and parameters require grad",
            patterns="control: no tensor value reaches Python. `QuantileNetwork.forward` (qrdqn/policies.py:61-69: "
            "`extract_features` (sb3's `preprocess_obs` for a Box: `float()`, `FlattenExtractor`), an MLP of "
            "`Linear`/`ReLU`, `view(-1, 8, 3)`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-two (a)")
