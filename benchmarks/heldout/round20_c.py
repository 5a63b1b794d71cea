"""Held-out round twenty (r20c): pfrl.

Chosen by reading the library's source, written down in ROUND20.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, in two
processes, with identical results); to be measured once and not tuned on.  Rows
are :class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk, no environment stepped); a
row whose ``modes`` is one mode only says why in its ``notes``.

pfrl 0.4.0 (Preferred Networks' deep reinforcement learning library, the
PyTorch port of ChainerRL) holds agents (``DQN`` and its variants
``CategoricalDQN``, ``IQN``, ``DoubleDQN``; ``PPO``, ``TRPO``, ``A2C``/``A3C``,
``ACER``, ``SAC``, ``TD3``, ``DDPG``), each a plain Python object (not an
``nn.Module``) holding its models, optimizer and replay buffer, whose
``batch_act``/``batch_observe`` drive the update; the action-value structs the
Q-functions return (``pfrl.action_value``: ``DiscreteActionValue``,
``DistributionalDiscreteActionValue``, ``QuantileDiscreteActionValue``,
``QuadraticActionValue``, built in the forward, with ``lazy_property``
caches); Q-functions and policies (``pfrl.q_functions``, ``pfrl.policies``:
heads that return ``torch.distributions``); ``pfrl.nn`` (``MLP``,
``Branched``, ``EmpiricalNormalization``, ``FactorizedNoisyLinear``,
``ConcatObsAndAction``, recurrent containers) and ``pfrl.utils``
(``conjugate_gradient``, ``clip_l2_grad_norm_``, ``batch_states``,
``mode_of_distribution``).  The rows call what an agent's update computes per
step on tensors built by the builders (replay minibatches as
``batch_experiences`` makes them, PPO/TRPO transitions as the agents store
them: float32 ndarray observations, Python rewards), with agents constructed
but never run on an environment: batches of 6 or 8 (1 for ACER's per-step
losses), 4 observation dimensions, 3 discrete actions or 2 continuous ones, 5
atoms, 4-6 quantiles.  An agent is an argument of a wrapper (not the
callable's ``__self__``), so every build has a fresh one; the builder sets its
model's mode.  Nothing on the rows' paths draws from numpy's or Python's
generators (``pfrl.utils.random`` and the minibatch shuffles of
``_yield_minibatches`` are off the paths); IQN's quantile thresholds, ACER's
sampled actions and ``evaluator`` samples come from torch's generator in the
call (seeded by the harness before every call).

The data-dependent code (file:line relative to the ``pfrl`` package).  The
value-based losses read tensors into numpy for their statistics and the
prioritized-replay errors: ``DQN._compute_loss`` (agents/dqn.py:432-470)
extends ``self.q_record`` (a deque on the agent) with
``y.detach().cpu().numpy().ravel()`` (dqn.py:445) and, given ``errors_out``
(``DQN.update`` always passes a list, dqn.py:351-353), clears it, takes
``torch.abs(y - t)``, tests ``delta.ndim`` and appends each element of
``delta.detach().cpu().numpy()`` in a Python loop (dqn.py:447-454), then
``"weights" in exp_batch`` picks ``compute_weighted_value_loss``
(dqn.py:70-104: ``smooth_l1_loss(reduction='none')`` under ``clip_delta``,
``/ y.shape[0]``).  ``CategoricalDQN`` (agents/categorical_dqn.py) does the
same with the distributions: ``_compute_y_and_t`` (147-176) gathers the taken
actions' distributions by advanced indexing
(``DistributionalDiscreteActionValue.evaluate_actions_as_distribution``,
action_value.py:143-154: ``q_dist[torch.arange(batch), actions]``), the
target's greedy distributions (``max_as_distribution``, action_value.py:
128-138, a ``lazy_property`` over the ``lazy_property`` ``greedy_actions``:
argmax of the atom-weighted sums), ``_apply_categorical_projection``
(categorical_dqn.py:7-57: ``clamp`` by the tensor bounds ``z[0]``/``z[-1]``,
``floor``/``ceil``, two ``scatter_add_`` into a flat view of a zero tensor)
and, under ``no_grad``, ``self.q_record.extend(... .numpy().ravel())``
(categorical_dqn.py:174); ``_compute_loss`` (178-204) loops over
``delta.detach().cpu().numpy()`` into ``errors_out`` (185-192) and weights the
cross-entropy by ``compute_weighted_value_loss`` (79-102: ``matmul`` with the
weights).  ``IQN._compute_loss`` (agents/iqn.py:373-400) draws its quantile
thresholds with ``torch.rand`` three times (iqn.py:297, 313, 359), evaluates
the ``ImplicitQuantileQFunction`` closure (106-124, 63-80: shape ``assert``s,
``CosineBasisLinear``'s ``cos`` embedding, 11-60), gathers the taken and the
greedy actions' quantiles (``QuantileDiscreteActionValue``, action_value.py:
183-229: advanced indexing by ``arange`` and ``actions.long()``), extends
``q_record`` with numpy (iqn.py:369) and ``errors_out`` with
``delta.detach().cpu().numpy()`` (iqn.py:385-389) around
``compute_eltwise_huber_quantile_loss`` (176-208: ``(t < y).float()``,
``smooth_l1_loss``).  PPO's loss ``PPO._lossfun`` (agents/ppo.py:634-671)
computes the clipped surrogate and the clipped value loss
(``_elementwise_clip``, ppo.py:28-33) and appends ``float(loss_value_func)``
and ``float(loss_policy)`` to its statistics deques (ppo.py:662-663) before
summing (with grad enabled torch warns, once per process, "Converting a tensor
with requires_grad=True to a scalar", ppo.py:662).  ``_make_dataset`` (ppo.py:228-244) collates the stored observations
(``batch_states``, utils/batch_states.py:75-93: ``default_collate`` of the
ndarrays, ``_to_recursive`` type tests), normalizes them by the agent's
``EmpiricalNormalization(update=False)``, runs the model twice under
``no_grad`` and ``evaluating``, ``torch.tensor`` of the Python actions, reads
``log_prob``, ``v_pred`` and ``next_v_pred`` back as numpy arrays and writes
them into the transition dicts (ppo.py:110-142), then computes GAE in Python
floats over each reversed episode (ppo.py:36-53).  TRPO:
``_compute_kl_constrained_step`` (agents/trpo.py:557-598) takes
``autograd.grad(kl, create_graph=True)`` and ``assert``s on the gradients,
runs ``pfrl.utils.conjugate_gradient`` (utils/conjugate_gradient.py:4-33: a
``for`` loop that returns early ``if torch.norm(r1) < tol``, line 28) with
``_hessian_vector_product`` as the product (trpo.py:59-68: ``autograd.grad``
with ``retain_graph``, an ``assert all(grad is not None ...)``), then
``dId = float(step_direction.dot(...))`` and a Python ``** 0.5`` for the step
scale (trpo.py:596-597).  ``_line_search`` (trpo.py:600-699) collates the
stored observations, builds ``torch.tensor`` of the stored actions (a list of
float32 ndarrays: torch warns "Creating a tensor from a list of
numpy.ndarrays is extremely slow", trpo.py:639), then for up to
``line_search_max_backtrack + 1`` steps writes the candidate parameters into
the policy (``_split_and_reshape_to_ndarrays``, ``_replace_params_data``:
``assert``s on shapes and ``isinstance``, ``param.data.copy_``, trpo.py:45-56),
evaluates the gain and KL under ``no_grad``, logs through ``logger.info`` (the
``pfrl.agents.trpo`` logger: not emitted at the default level, its arguments
evaluated), computes ``improve = float(new_gain) - float(gain)``, tests ``not
torch.isfinite(new_gain)``, ``not torch.isfinite(new_kl)``, ``improve < 0``
and ``float(new_kl) > self.max_kl`` and either breaks (recording
``float(new_kl)`` and the step size) or halves the step; the ``for ... else``
restores the old parameters.  ``EmpiricalNormalization.forward``
(nn/empirical_normalization.py:86-105) calls ``experience`` (61-84): ``if
self.until is not None and self.count >= self.until: return`` (a Python test
of a 0-d buffer), ``count_x == 0``, ``self.count += count_x`` in place,
``rate = count_x / self.count.float()``, ``assert rate > 0`` and ``assert rate
<= 1`` (tensor asserts), ``var_mean`` and in-place buffer updates, and clears
the ``_cached_std_inverse`` attribute that the ``_std_inverse`` property
(54-59) refills in the same forward.  ACER (agents/acer.py):
``compute_importance`` (16-18) is ``float(torch.exp(pi.log_prob(x) -
mu.log_prob(x)))`` under ``no_grad``; ``compute_policy_gradient_loss`` (73-115)
asserts ``np.isscalar`` of the advantage and value, truncates by the Python
``min(truncation_threshold, rho)`` and adds, for a Categorical policy,
``compute_policy_gradient_full_correction`` (30-46: ``isinstance`` asserts,
``relu(1 - c * rho_all_inv)``, ``q_values[0] - v``) and otherwise
``compute_policy_gradient_sample_correction`` (49-70: a sampled action, ``if
truncation_threshold > 0 and rho_dash_inv >= 1 / truncation_threshold: return
torch.as_tensor(0)``, ``max(0, 1 - c * rho_dash_inv)``, ``assert
correction_weight <= 1``, ``float(action_value.evaluate_actions(...))``, which
for ``ACERContinuousActionHead`` (138-169) runs the advantage network on
``n`` fresh samples in a Python ``sum``); ``compute_loss_with_kl_constraint``
(207-248: ``assert param.shape[0] == 1`` and ``param.requires_grad``, two
``autograd.grad`` with ``retain_graph``, Python ``sum`` of ``dot``s, ``if
kk_dot > 0`` (a tensor test), ``max(0, (kg_dot - delta) / kk_dot)`` (a Python
``max`` comparing a 0-d tensor), ``float(kl)``); ``ACER.compute_loss``
(461-552) loops over the segment backwards in Python: ``compute_importance``,
``Q_ret``/``Q_opc`` as Python floats with ``assert np.isscalar``,
``advantage = Q_ret - float(v)`` (torch warns, once per process,
"Converting a tensor with requires_grad=True to a scalar", acer.py:504), ``compute_one_step_pi_loss``
(423-458: the policy-gradient loss, the trust region, the entropy),
``Q_loss += mse_loss(torch.tensor(Q_ret), Q) / 2`` (acer.py:518), ``if
self.process_idx == 0: self.logger.debug(..., float(v), float(Q), ...)``, the
Python ``min(1, rho)`` and ``Q_ret = c * (Q_ret - float(Q)) + float(v)``, and
at the end ``float(pi_loss)``, ``float(Q_loss)`` for another ``debug``.
``clip_l2_grad_norm_`` (utils/clip_l2_grad_norm.py:5-38) tests
``parameters[0].is_cuda``, filters the parameters by ``p.grad is not None``,
computes the norm in numpy (``np.linalg.norm`` of each
``p.grad.detach().cpu().numpy()``) and scales the gradients in place ``if
clip_coef < 1`` (a numpy test).  Controls (no tensor value reaches Python):
``_apply_categorical_projection`` on its own and the NAF Q-function
``FCQuadraticStateQFunction`` (q_functions/state_q_functions.py:194-219:
``scale_by_tanh`` with ``torch.from_numpy`` of the action bounds, 18-23;
``lower_triangular_matrix``, functions/lower_triangular_matrix.py:5-28: index
setitems by ``np.tril_indices``/``np.diag_indices``; ``QuadraticActionValue``,
action_value.py:232-324: ``torch.as_tensor`` of the bounds in its
constructor, ``lazy_property`` ``greedy_actions``/``max``, ``matmul``s).

Global state on import: ``import pfrl`` imports gym 0.26.2 (pfrl/__init__.py
imports ``pfrl.wrappers``, whose modules ``import gym``; pfrl/envs/abc.py too),
and gym prints its four-line notice ("Gym has been unmaintained since 2022 and
does not support NumPy 2.0 amongst other critical functionality. ...") with
``print(..., file=sys.stderr)`` from gym/__init__.py (the text comes from the
``gym_notices`` package): a plain stderr write once per process, not a
warning and not through ``logging``, so warning filters and logging
configuration cannot silence it.  gym also sets ``os.environ
["SDL_AUDIODRIVER"] = "dsp"`` and ``os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] =
"hide"`` and adds one warning filter (``("once", DeprecationWarning,
module=r"^gym\\.")``, gym/logger.py:18).  pfrl's modules create their loggers
(``pfrl.agents.dqn``, ``pfrl.agents.trpo``, ... by ``getLogger``, no handler,
no level) and ``filelock`` is imported; the root logger is untouched.  Checked
in one process before and after the import: no change to torch's default
dtype, grad mode, intra-/inter-op threads, deterministic flag, matmul
precision, anomaly mode, print options or RNG state, nor numpy's global
generator; neither ``torch._dynamo`` nor ``torch._inductor`` is imported by
it, so none of their config values can change.  (Building the agent rows
imports ``torch._dynamo``: torch's own ``Optimizer.add_param_group`` is wrapped
by ``torch._disable_dynamo``, torch/_compile.py:47, which imports it the first
time any optimizer is constructed; nothing is compiled.)

Library bugs and quirks (checked eagerly; no row depends on them): (1) the
(state, action) Q-functions of ``pfrl.q_functions`` (``FCSAQFunction``,
``FCBNSAQFunction``, ``FCLateActionSAQFunction``, ...) define ``forward(state,
action)``, but DDPG, TD3, SAC and ACER call their critics with one tuple
(``self.q_func1((batch_state, actions))``, agents/soft_actor_critic.py:230-241,
281-282; ddpg.py:161-180; acer.py:162-165): ``FCSAQFunction(4, 2, 8, 1)((s,
a))`` raises ``TypeError: FCSAQFunction.forward() missing 1 required
positional argument: 'action'`` (the ACER row builds its advantage network
from ``ConcatObsAndAction`` and ``MLP``, as pfrl's examples do).  (2)
``ACER.compute_loss`` calls ``mse_loss(torch.tensor(Q_ret), Q)`` (acer.py:518,
523) with the target as the input and the prediction (shape (1,)) as the
target: torch warns "Using a target size (torch.Size([1])) that is different
to the input size (torch.Size([]))" at every step of every update (the value
is the same, the loss being symmetric); ``float(v)`` of a value that requires
grad warns once per process (acer.py:504), as PPO's ``float(loss_value_func)``
does (ppo.py:662): pfrl reads its statistics from tensors that carry graphs.  (3) ``TRPO._line_search`` builds
``torch.tensor`` from the list of stored ndarray actions (trpo.py:639), which
torch warns is extremely slow, on every update of a continuous-action agent;
its log messages misspell "Backtracking" ("Bakctracking", trpo.py:676-682).
(4) The docstring of ``pfrl.utils.conjugate_gradient`` still speaks of numpy
and cupy arrays; the early exit compares ``torch.norm(r1)`` with ``tol``
(default 1e-10), which float32 residuals rarely reach, so TRPO's CG runs its
``max_iter`` iterations (here 5), each paying the Python test.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

PFRL = ("pfrl", "0.4.0")

# --- builders -------------------------------------------------------------------------------


def _r20c_transitions(n: int = 6, obs: int = 4, n_actions: int = 3) -> dict[str, torch.Tensor]:
    """A replay minibatch as `pfrl.replay_buffer.batch_experiences` builds it (float32 states, int64 actions,
    float32 rewards, terminal flags and discounts gamma ** n_steps), drawn from torch's generator."""
    return {
        "state": torch.randn(n, obs),
        "action": torch.randint(0, n_actions, (n,)),
        "reward": torch.randn(n),
        "next_state": torch.randn(n, obs),
        "is_state_terminal": torch.tensor([0.0, 0.0, 1.0, 0.0, 0.0, 1.0])[:n],
        "discount": torch.full((n,), 0.99),
    }


def _r20c_stale_target(agent: Any) -> None:
    """Move the target network off the online one (DQN deep-copies the model at construction), as it is between
    two target syncs."""
    with torch.no_grad():
        for p in agent.target_model.parameters():
            p.add_(0.1 * torch.randn_like(p))


def _r20c_value_loss(agent: Any, state: torch.Tensor, action: torch.Tensor, reward: torch.Tensor,
                     next_state: torch.Tensor, is_state_terminal: torch.Tensor, discount: torch.Tensor,
                     weights: torch.Tensor | None = None) -> tuple[torch.Tensor, list[Any]]:
    """``agent._compute_loss(exp_batch, errors_out)`` as ``DQN.update`` calls it (agents/dqn.py:337-353): the
    minibatch dict (with the importance weights of prioritized replay when given) and the list the loss fills
    with the per-example errors (what ``update_errors`` writes back as priorities); returns both."""
    exp_batch = {"state": state, "action": action, "reward": reward, "next_state": next_state,
                 "is_state_terminal": is_state_terminal, "discount": discount}
    if weights is not None:
        exp_batch["weights"] = weights
    errors_out: list[Any] = []
    loss = agent._compute_loss(exp_batch, errors_out=errors_out)
    return loss, errors_out


def _r20c_value_args(agent: Any, weights: bool) -> Built:
    batch = _r20c_transitions()
    args = (agent, batch["state"], batch["action"], batch["reward"], batch["next_state"], batch["is_state_terminal"],
            batch["discount"])
    if weights:
        args += (torch.rand(6) * 0.8 + 0.2,)
    return _r20c_value_loss, args, {}


def _r20c_categorical_dqn_loss(training: bool) -> Built:
    from pfrl.agents import CategoricalDQN
    from pfrl.explorers import Greedy
    from pfrl.q_functions import DistributionalFCStateQFunctionWithDiscreteAction
    from pfrl.replay_buffers import ReplayBuffer

    q_func = DistributionalFCStateQFunctionWithDiscreteAction(4, 3, n_atoms=5, v_min=-2.0, v_max=2.0,
                                                             n_hidden_channels=8, n_hidden_layers=1)
    agent = CategoricalDQN(q_func, torch.optim.Adam(q_func.parameters()), ReplayBuffer(100), gamma=0.99,
                           explorer=Greedy(), replay_start_size=10, minibatch_size=6, target_update_interval=100)
    _r20c_stale_target(agent)
    agent.model.train(training)  # a plain function: the harness does not set the model's mode
    return _r20c_value_args(agent, weights=True)


def _r20c_dqn_loss(training: bool) -> Built:
    from pfrl.agents import DQN
    from pfrl.explorers import Greedy
    from pfrl.q_functions import FCStateQFunctionWithDiscreteAction
    from pfrl.replay_buffers import ReplayBuffer

    q_func = FCStateQFunctionWithDiscreteAction(4, 3, n_hidden_channels=8, n_hidden_layers=1)
    agent = DQN(q_func, torch.optim.Adam(q_func.parameters()), ReplayBuffer(100), gamma=0.99, explorer=Greedy(),
                replay_start_size=10, minibatch_size=6, target_update_interval=100, clip_delta=True)
    _r20c_stale_target(agent)
    agent.model.train(training)
    return _r20c_value_args(agent, weights=True)


def _r20c_iqn_loss(training: bool) -> Built:
    from pfrl.agents import IQN
    from pfrl.agents.iqn import CosineBasisLinear, ImplicitQuantileQFunction
    from pfrl.explorers import Greedy
    from pfrl.replay_buffers import ReplayBuffer

    q_func = ImplicitQuantileQFunction(
        psi=torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU()),
        phi=torch.nn.Sequential(CosineBasisLinear(6, 8), torch.nn.ReLU()),
        f=torch.nn.Linear(8, 3),
    )
    agent = IQN(q_func, torch.optim.Adam(q_func.parameters()), ReplayBuffer(100), gamma=0.99, explorer=Greedy(),
                replay_start_size=10, minibatch_size=6, target_update_interval=100, quantile_thresholds_N=4,
                quantile_thresholds_N_prime=5, quantile_thresholds_K=3)
    _r20c_stale_target(agent)
    agent.model.train(training)
    return _r20c_value_args(agent, weights=False)


def _r20c_ppo_model() -> torch.nn.Module:
    from pfrl.nn import Branched
    from pfrl.policies import SoftmaxCategoricalHead

    return torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.Tanh(),
        Branched(torch.nn.Sequential(torch.nn.Linear(8, 3), SoftmaxCategoricalHead()), torch.nn.Linear(8, 1)),
    )


def _r20c_ppo_minibatch_loss(agent: Any, states: torch.Tensor, actions: torch.Tensor, advs: torch.Tensor,
                             log_probs_old: torch.Tensor, vs_pred_old: torch.Tensor,
                             vs_teacher: torch.Tensor) -> torch.Tensor:
    """The body of ``PPO._update``'s minibatch loop up to the backward (agents/ppo.py:489-525): the model's
    forward, then ``_lossfun`` on the entropies, values and log-probabilities (advantages already
    standardized)."""
    distribs, vs_pred = agent.model(states)
    return agent._lossfun(distribs.entropy(), vs_pred, distribs.log_prob(actions), vs_pred_old=vs_pred_old[..., None],
                          log_probs_old=log_probs_old, advs=advs, vs_teacher=vs_teacher[..., None])


def _r20c_ppo_loss(training: bool) -> Built:
    from pfrl.agents import PPO

    model = _r20c_ppo_model()
    agent = PPO(model, torch.optim.Adam(model.parameters()), clip_eps=0.2, clip_eps_vf=0.2)
    states = torch.randn(8, 4)
    actions = torch.randint(0, 3, (8,))
    with torch.no_grad():
        distribs, vs = model(states)
        # the policy and value function that collected the data: a few updates ago
        log_probs_old = distribs.log_prob(actions) + 0.3 * torch.randn(8)
        vs_pred_old = vs[:, 0] + 0.4 * torch.randn(8)
    advs = torch.randn(8)
    std, mean = torch.std_mean(advs, unbiased=False)
    advs = (advs - mean) / (std + 1e-8)
    vs_teacher = vs_pred_old + torch.randn(8)
    model.train(training)
    return _r20c_ppo_minibatch_loss, (agent, states, actions, advs, log_probs_old, vs_pred_old, vs_teacher), {}


def _r20c_ppo_make_dataset_call(agent: Any, episodes: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """``_make_dataset`` with the agent's settings, as ``PPO._update_if_dataset_is_ready`` calls it
    (agents/ppo.py:433-442)."""
    from pfrl.agents.ppo import _make_dataset

    return _make_dataset(episodes=episodes, model=agent.model, phi=agent.phi, batch_states=agent.batch_states,
                         obs_normalizer=agent.obs_normalizer, gamma=agent.gamma, lambd=agent.lambd,
                         device=agent.device)


def _r20c_ppo_make_dataset(training: bool) -> Built:
    from pfrl.agents import PPO
    from pfrl.nn import EmpiricalNormalization

    model = _r20c_ppo_model()
    normalizer = EmpiricalNormalization(4, clip_threshold=5.0)
    normalizer.experience(torch.randn(16, 4) * 2.0 + 0.5)
    agent = PPO(model, torch.optim.Adam(model.parameters()), obs_normalizer=normalizer, gamma=0.9, lambd=0.95)
    episodes = []
    for length, done in ((3, True), (4, False)):  # a terminated episode, one cut by the update interval
        states = (torch.randn(length + 1, 4) * 2.0 + 0.5).numpy()  # gym observations: float32 ndarrays
        actions = torch.randint(0, 3, (length,)).tolist()
        rewards = torch.randn(length).tolist()
        episodes.append([
            {"state": states[t], "action": actions[t], "reward": rewards[t], "next_state": states[t + 1],
             "nonterminal": 0.0 if done and t == length - 1 else 1.0}
            for t in range(length)
        ])
    return _r20c_ppo_make_dataset_call, (agent, episodes), {}


def _r20c_trpo_agent() -> Any:
    from pfrl.agents import TRPO
    from pfrl.policies import GaussianHeadWithStateIndependentCovariance

    policy = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2),
                                 GaussianHeadWithStateIndependentCovariance(2, var_type="diagonal"))
    vf = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1))
    return TRPO(policy, vf, torch.optim.Adam(vf.parameters()), max_kl=0.01, conjugate_gradient_max_iter=5,
                line_search_max_backtrack=6)


def _r20c_trpo_batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    states = torch.randn(8, 4)
    actions = torch.randn(8, 2)
    advs = torch.randn(8)
    std, mean = torch.std_mean(advs, unbiased=False)
    return states, actions, (advs - mean) / (std + 1e-8), torch.randn(8) * 0.5 - 2.5


def _r20c_trpo_step_call(agent: Any, states: torch.Tensor, actions: torch.Tensor, advs: torch.Tensor,
                         log_prob_old: torch.Tensor) -> torch.Tensor:
    """``TRPO._update_policy`` up to the line search (agents/trpo.py:445-469): the policy's forward, the surrogate
    gain, the old distribution (no grad) and ``_compute_kl_constrained_step``.  TRPO's update never runs under
    no_grad (it takes second derivatives): the wrapper enables grad, so that the inference mode can run it."""
    with torch.enable_grad():
        distrib = agent.policy(states)
        gain = agent._compute_gain(log_prob=distrib.log_prob(actions), log_prob_old=log_prob_old,
                                   entropy=distrib.entropy(), advs=advs)
        with torch.no_grad():
            distrib_old = agent.policy(states)
        return agent._compute_kl_constrained_step(action_distrib=distrib, action_distrib_old=distrib_old, gain=gain)


def _r20c_trpo_kl_step(training: bool) -> Built:
    agent = _r20c_trpo_agent()
    return _r20c_trpo_step_call, (agent, *_r20c_trpo_batch()), {}


def _r20c_trpo_line_search_call(agent: Any, full_step: torch.Tensor, dataset: list[dict[str, Any]],
                                advs: torch.Tensor, action_distrib_old: Any,
                                gain: torch.Tensor) -> tuple[torch.Tensor, list[float], list[float]]:
    """``TRPO._line_search`` (agents/trpo.py:600-699), which writes the accepted parameters into the policy and
    returns nothing: returns the policy's flat parameters after it and the step sizes and KLs it recorded."""
    agent._line_search(full_step=full_step, dataset=dataset, advs=advs, action_distrib_old=action_distrib_old,
                       gain=gain)
    flat = torch.cat([p.detach().flatten() for p in agent.policy.parameters()])
    return flat, list(agent.policy_step_size_record), list(agent.kl_record)


def _r20c_trpo_line_search(training: bool) -> Built:
    agent = _r20c_trpo_agent()
    states, actions, advs, log_prob_old = _r20c_trpo_batch()
    full_step = 4.0 * _r20c_trpo_step_call(agent, states, actions, advs, log_prob_old)  # overshoots: backtracks
    with torch.no_grad():
        distrib_old = agent.policy(states)
        gain = agent._compute_gain(log_prob=distrib_old.log_prob(actions), log_prob_old=log_prob_old,
                                   entropy=distrib_old.entropy(), advs=advs)
    # the transitions as TRPO stores them: gym observations and sampled actions as float32 ndarrays
    dataset = [{"state": s, "action": a, "log_prob": float(lp)}
               for s, a, lp in zip(states.numpy(), actions.numpy(), log_prob_old)]
    return _r20c_trpo_line_search_call, (agent, full_step, dataset, advs, distrib_old, gain), {}


def _r20c_cg_call(matrix: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``pfrl.utils.conjugate_gradient`` of ``A x = b`` with the product by a symmetric positive-definite
    matrix (TRPO passes its Fisher-vector product)."""
    from pfrl.utils import conjugate_gradient

    return conjugate_gradient(lambda v: torch.mv(matrix, v), b, tol=1e-4, max_iter=10)


def _r20c_conjugate_gradient(training: bool) -> Built:
    m = torch.randn(5, 5)
    return _r20c_cg_call, (m @ m.T / 5 + torch.eye(5), torch.randn(5)), {}


def _r20c_empirical_normalization(training: bool) -> Built:
    from pfrl.nn import EmpiricalNormalization

    normalizer = EmpiricalNormalization(4, until=12, clip_threshold=3.0)
    normalizer.experience(torch.randn(6, 4) * 2.0 + 1.0)  # count 6: this call learns (6 < 12), a next one not
    model = torch.nn.Sequential(normalizer, torch.nn.Linear(4, 3))
    return model, (torch.randn(6, 4) * 2.0 + 1.0,), {}


def _r20c_acer_loss_call(agent: Any, obs: torch.Tensor, actions: list[int], rewards: list[float],
                         mu_logits: torch.Tensor, R: float) -> torch.Tensor:
    """What ``ACER.update`` computes (agents/acer.py:554-600) for a replayed segment of ``len(obs)`` steps: per
    step the model's forward (policy, action values, value), the average model's policy (no grad) and the
    behaviour policy from the stored logits, then ``ACER.compute_loss``.  ACER's update runs with grad enabled
    (the trust region takes ``autograd.grad``): the wrapper enables it, so that the inference mode can run it."""
    with torch.enable_grad():
        distribs, action_values, values, mus, avgs = {}, {}, {}, {}, {}
        for i in range(obs.shape[0]):
            distribs[i], action_values[i], values[i] = agent.model(obs[i:i + 1])
            with torch.no_grad():
                avgs[i], _, _ = agent.shared_average_model(obs[i:i + 1])
            mus[i] = torch.distributions.Categorical(logits=mu_logits[i:i + 1])
        return agent.compute_loss(t_start=0, t_stop=obs.shape[0], R=R, actions=dict(enumerate(actions)),
                                  rewards=dict(enumerate(rewards)), values=values, action_values=action_values,
                                  action_distribs=distribs, action_distribs_mu=mus, avg_action_distribs=avgs)


def _r20c_acer_discrete_loss(training: bool) -> Built:
    from pfrl.agents import ACER
    from pfrl.agents.acer import ACERDiscreteActionHead
    from pfrl.policies import SoftmaxCategoricalHead
    from pfrl.q_functions import DiscreteActionValueHead
    from pfrl.replay_buffers import EpisodicReplayBuffer

    model = ACERDiscreteActionHead(
        pi=torch.nn.Sequential(torch.nn.Linear(4, 3), SoftmaxCategoricalHead()),
        q=torch.nn.Sequential(torch.nn.Linear(4, 3), DiscreteActionValueHead()),
    )
    agent = ACER(model, torch.optim.Adam(model.parameters()), t_max=4, gamma=0.9,
                 replay_buffer=EpisodicReplayBuffer(100), truncation_threshold=5, trust_region_delta=0.1,
                 use_trust_region=True)
    with torch.no_grad():  # the average model trails the current one
        for p in agent.shared_average_model.parameters():
            p.add_(0.2 * torch.randn_like(p))
    agent.process_idx = 0  # the first actor process logs (as train_agent_async numbers them)
    agent.model.train(training)
    obs = torch.randn(4, 4)
    actions = torch.randint(0, 3, (4,)).tolist()
    rewards = torch.randn(4).tolist()
    mu_logits = torch.randn(4, 3)
    return _r20c_acer_loss_call, (agent, obs, actions, rewards, mu_logits, 0.5), {}


def _r20c_acer_pg_call(head: Any, obs: torch.Tensor, action: torch.Tensor, mu_loc: torch.Tensor,
                       mu_scale: torch.Tensor, advantage: float, v: float) -> torch.Tensor:
    """``compute_policy_gradient_loss`` for a continuous policy as ``ACER.compute_one_step_pi_loss`` calls it
    (agents/acer.py:423-443): the model's forward, the behaviour policy from its stored loc and scale, the
    advantage and value as Python floats (ACER passes ``float(v)``)."""
    from pfrl.agents.acer import compute_policy_gradient_loss

    distrib, action_value, _ = head(obs)
    mu = torch.distributions.Independent(torch.distributions.Normal(mu_loc, mu_scale), 1)
    return compute_policy_gradient_loss(action=action, advantage=advantage, action_distrib=distrib,
                                        action_distrib_mu=mu, action_value=action_value, v=v,
                                        truncation_threshold=5.0)


def _r20c_acer_gaussian_pg(training: bool) -> Built:
    from pfrl.agents.acer import ACERContinuousActionHead
    from pfrl.nn import ConcatObsAndAction, MLP
    from pfrl.policies import GaussianHeadWithStateIndependentCovariance

    head = ACERContinuousActionHead(
        pi=torch.nn.Sequential(torch.nn.Linear(4, 2), GaussianHeadWithStateIndependentCovariance(2, "diagonal")),
        v=torch.nn.Linear(4, 1),
        adv=torch.nn.Sequential(ConcatObsAndAction(), MLP(6, 1, (8,))),
        n=3,
    )
    obs = torch.randn(1, 4)
    action = torch.randn(1, 2)
    # a behaviour policy far from the current one: the sampled correction term is not truncated away
    mu_loc = torch.randn(1, 2) + 3.0
    mu_scale = torch.full((1, 2), 0.3)
    return _r20c_acer_pg_call, (head, obs, action, mu_loc, mu_scale, 0.7, -0.2), {}


def _r20c_clip_call(module: torch.nn.Module, max_norm: float) -> tuple[Any, list[torch.Tensor]]:
    """``pfrl.utils.clip_l2_grad_norm_`` on the module's gradients (what DQN, SAC and TRPO call between the
    backward and the optimizer step with ``max_grad_norm``); returns the norm and the clipped gradients."""
    from pfrl.utils import clip_l2_grad_norm_

    total_norm = clip_l2_grad_norm_(module.parameters(), max_norm)
    return total_norm, [p.grad for p in module.parameters()]


def _r20c_clip_l2_grad_norm(training: bool) -> Built:
    from pfrl.nn import MLP

    module = MLP(4, 3, (8,))
    (module(torch.randn(6, 4)) ** 2).sum().backward()
    return _r20c_clip_call, (module, 0.5), {}


def _r20c_categorical_projection(training: bool) -> Built:
    from pfrl.agents.categorical_dqn import _apply_categorical_projection

    z = torch.linspace(-2.0, 2.0, 5)
    reward = torch.randn(6, 1)
    terminal = torch.tensor([[0.0], [0.0], [1.0], [0.0], [0.0], [1.0]])
    tz = reward + (1.0 - terminal) * 0.9 * z  # the Bellman-shifted atoms, some outside [v_min, v_max]
    y_probs = torch.softmax(torch.randn(6, 5), dim=1)
    return _apply_categorical_projection, (tz, y_probs, z), {}


def _r20c_naf_call(q_func: torch.nn.Module, state: torch.Tensor,
                   action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The NAF Q-function's ``QuadraticActionValue``: its greedy actions (mu clipped to the action bounds), its
    max (evaluated at them) and the values of the given actions."""
    av = q_func(state)
    return av.greedy_actions, av.max, av.evaluate_actions(action)


def _r20c_naf(training: bool) -> Built:
    import gym
    import numpy as np
    from pfrl.q_functions import FCQuadraticStateQFunction

    space = gym.spaces.Box(low=np.array([-1.0, -0.5], dtype=np.float32), high=np.array([1.0, 2.0], dtype=np.float32),
                           dtype=np.float32)
    q_func = FCQuadraticStateQFunction(4, 2, n_hidden_channels=8, n_hidden_layers=1, action_space=space)
    q_func.train(training)
    return _r20c_naf_call, (q_func, torch.randn(6, 4), torch.rand(6, 2) * 2.0 - 1.0), {}


# --- rows --------------------------------------------------------------------------------

_AGENT = (
    "the agent is the wrapper's first argument (a fresh one per build; the builder sets its model's mode)"
)
_Q_RECORD = "`self.q_record.extend(... .detach().cpu().numpy().ravel())` (a numpy read into a deque on the agent)"
_MINIBATCH = (
    "a replay minibatch of 6 (float32 states, int64 actions among 3, rewards, two terminal flags, discount 0.99) "
    "with prioritized-replay weights; the target network is the model's deep copy moved by N(0, 0.1) (a stale "
    "target); the rewards, next states, terminal flags, discounts and weights are frozen (the target is computed "
    "under no_grad; weights come from the buffer): in training the states and the model's parameters require grad"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r20c_pfrl_categorical_dqn_loss", *PFRL,
            "wrapper: pfrl.agents.CategoricalDQN(DistributionalFCStateQFunctionWithDiscreteAction(4, 3, n_atoms=5, "
            "v_min=-2, v_max=2, n_hidden_channels=8, n_hidden_layers=1), Adam, ReplayBuffer(100), gamma=0.99, "
            "explorer=Greedy())._compute_loss(exp_batch (6 transitions, weights), errors_out=[]); returns (loss "
            "(0-d), errors_out (6 numpy float32))",
            ("pfrl",), _r20c_categorical_dqn_loss, frozen=("3", "4", "5", "6", "7"),
            notes="categorical DQN's (C51) loss as `DQN.update` calls it, with prioritized replay's weights and "
            "error list; " + _MINIBATCH + "; " + _AGENT,
            patterns="`CategoricalDQN._compute_loss` (agents/categorical_dqn.py:178-204) -> `_compute_y_and_t` "
            "(147-176: the model's forward -> `DistributionalDiscreteActionValue.__init__` (action_value.py:107-118: "
            "`isinstance`/`ndim`/shape asserts, atom-weighted sum), `evaluate_actions_as_distribution` (143-154: "
            "`q_dist[torch.arange(batch), actions]`), a shape assert; under no_grad `_compute_target_values` "
            "(114-145: the target's forward, `max_as_distribution` (lazy_property over the lazy_property "
            "`greedy_actions`: argmax, `q_dist[arange, greedy]`), a shape assert, the Bellman atoms, "
            "`_apply_categorical_projection` (7-57: shape asserts, `clamp` by `z[0]`/`z[-1]`, `floor`/`ceil`, two "
            "`scatter_add_` into `z_probs.view(-1)`)), `evaluate_actions`, " + _Q_RECORD + "), `-t * log(clamp(y))`, "
            "`errors_out` given: `del errors_out[:]`, `delta.detach().cpu().numpy()` appended element by element in "
            "a Python loop (185-192), `\"weights\" in exp_batch` -> `compute_weighted_value_loss` (79-102: a string "
            "assert, `weights.to(device)`, `matmul`, `/ batch_size`)",
        ),
        Row(
            "r20c_pfrl_dqn_loss_prioritized", *PFRL,
            "wrapper: pfrl.agents.DQN(FCStateQFunctionWithDiscreteAction(4, 3, n_hidden_channels=8, "
            "n_hidden_layers=1), Adam, ReplayBuffer(100), gamma=0.99, explorer=Greedy(), clip_delta=True)"
            "._compute_loss(exp_batch (6 transitions, weights), errors_out=[]); returns (loss (0-d), errors_out (6 "
            "numpy float32))",
            ("pfrl",), _r20c_dqn_loss, frozen=("3", "4", "5", "6", "7"),
            notes="DQN's Huber (clip_delta) loss with prioritized replay's weights and TD-error list; " + _MINIBATCH
            + "; " + _AGENT,
            patterns="`DQN._compute_loss` (agents/dqn.py:432-470) -> `_compute_y_and_t` (407-430: the model's "
            "forward -> `DiscreteActionValue` (action_value.py:44-94: an `isinstance` assert), `evaluate_actions` "
            "(`gather`), `reshape`; under no_grad `_compute_target_values` (388-405: the target's forward, the "
            "lazy_property `max` over `greedy_actions` (`argmax(...).int()`, `.long()`, `gather`))), " + _Q_RECORD
            + " (dqn.py:445), `errors_out` given: `del errors_out[:]`, `abs(y - t)`, `if delta.ndim == 2`, "
            "`delta.detach().cpu().numpy()` appended in a Python loop (447-454), `\"weights\" in exp_batch` -> "
            "`compute_weighted_value_loss` (70-104: a string assert, `reshape`, `smooth_l1_loss(reduction='none')`, "
            "`* weights`, `sum`, `/ y.shape[0]`)",
        ),
        Row(
            "r20c_pfrl_iqn_loss", *PFRL,
            "wrapper: pfrl.agents.IQN(ImplicitQuantileQFunction(psi=Linear(4, 8)+ReLU, phi=CosineBasisLinear(6, 8)"
            "+ReLU, f=Linear(8, 3)), Adam, ReplayBuffer(100), gamma=0.99, explorer=Greedy(), quantile_thresholds_N=4, "
            "N_prime=5, K=3)._compute_loss(exp_batch (6 transitions), errors_out=[]); returns (loss (0-d), "
            "errors_out (6 numpy float32))",
            ("pfrl",), _r20c_iqn_loss, frozen=("3", "4", "5", "6"),
            notes="implicit quantile networks' quantile Huber loss; the quantile thresholds are drawn with "
            "torch.rand in the call (seeded by the harness); the minibatch as in the DQN rows without weights; the "
            "target network moved by N(0, 0.1); in training the states and the model's parameters require grad; "
            + _AGENT,
            patterns="`IQN._compute_loss` (agents/iqn.py:373-400) -> `_compute_y_and_taus` (337-371: "
            "`ImplicitQuantileQFunction.forward` (106-124: a closure over psi(x), `ndim`/shape asserts), "
            "`torch.rand` thresholds, the closure -> `_evaluate_psi_x_with_quantile_thresholds` (63-80: shape "
            "asserts, `CosineBasisLinear` (32-60: `cosine_basis_functions` with a shape assert, `reshape`, "
            "`Linear`), `QuantileDiscreteActionValue` (action_value.py:183-229)), "
            "`evaluate_actions_as_quantiles` (`quantiles[arange, :, actions.long()]`), " + _Q_RECORD + " of the "
            "lazy_property `q_values`); under no_grad `_compute_target_values` (289-335: `len(reward)`, two "
            "`torch.rand`, the target closure twice, `greedy_actions`, shape asserts), "
            "`compute_eltwise_huber_quantile_loss` (176-208: a shape assert, `broadcast_tensors`, `(t < y).float()`, "
            "`smooth_l1_loss`), `errors_out.extend(delta.detach().cpu().numpy())` under no_grad (385-389), "
            "`\"weights\" in exp_batch` false -> `compute_value_loss` (211-231: asserts, `mean((0, 2)).sum()`)",
        ),
        Row(
            "r20c_pfrl_ppo_minibatch_loss", *PFRL,
            "wrapper: PPO(Sequential(Linear(4, 8), Tanh, Branched(Linear(8, 3)+SoftmaxCategoricalHead, Linear(8, "
            "1))), Adam, clip_eps=0.2, clip_eps_vf=0.2): distribs, vs_pred = agent.model(states (8, 4)); "
            "agent._lossfun(entropy, vs_pred, log_prob(actions), vs_pred_old, log_probs_old, advs, vs_teacher); "
            "returns the loss (0-d)",
            ("pfrl",), _r20c_ppo_loss, frozen=("1", "3", "4", "5", "6"),
            notes="one PPO minibatch step up to the backward (agents/ppo.py:489-525) with the clipped surrogate and "
            "the clipped value loss; old log-probabilities and values are the current ones plus noise (the data of "
            "a few updates ago: some ratios are clipped), advantages standardized in the builder; the states and the "
            "stored targets are frozen (PPO builds them with torch.tensor from the stored transitions): in training "
            "the model's parameters require grad; " + _AGENT,
            patterns="`Branched.forward` (nn/branched.py: a tuple of the children's outputs), `SoftmaxCategoricalHead`"
            " (a Categorical), `PPO._lossfun` (agents/ppo.py:634-671: `exp` of the log-ratio, `min` of the clipped "
            "and unclipped surrogates, the `clip_eps_vf is None` test, `_elementwise_clip` (28-33), `max` of the two "
            "`mse_loss(reduction='none')`, `float(loss_value_func)` and `float(loss_policy)` appended to the "
            "statistics deques (662-663), the weighted sum)",
        ),
        Row(
            "r20c_pfrl_ppo_make_dataset", *PFRL,
            "wrapper: pfrl.agents.ppo._make_dataset(episodes (2 episodes of 3 and 4 transitions: float32 ndarray "
            "observations, int actions, float rewards), model (the PPO row's), phi, batch_states, "
            "obs_normalizer=EmpiricalNormalization(4, clip_threshold=5) (16 observations learnt), gamma=0.9, "
            "lambd=0.95, device=cpu); returns the 7 transition dicts with log_prob, v_pred, next_v_pred, adv, "
            "v_teacher",
            ("pfrl",), _r20c_ppo_make_dataset, modes=("inference",),
            notes="inference only: `_make_dataset` runs the model under no_grad and returns numpy values and "
            "Python floats (no gradient path). PPO's (and TRPO's) dataset: log-probabilities and values of the "
            "stored transitions and GAE advantages; the first episode ends terminal, the second is cut by the update "
            "interval; " + _AGENT,
            patterns="`_make_dataset` (agents/ppo.py:228-244) -> `_add_log_prob_and_value_to_episodes` (110-142: "
            "`itertools.chain`, `batch_states` twice (utils/batch_states.py:75-93: `default_collate` of the "
            "ndarrays, `isinstance` tests, `.to(device)`), `if obs_normalizer:` and its forward with update=False "
            "(nn/empirical_normalization.py:86-105: the `_std_inverse` cache property, `clamp`), under no_grad and "
            "`evaluating` the model twice, `torch.tensor` of the Python actions, `log_prob(...).cpu().numpy()`, "
            "`vs_pred.cpu().numpy().ravel()` twice, a Python loop writing numpy scalars into the dicts), "
            "`_add_advantage_and_value_target_to_episodes` (36-53: GAE in Python floats over each reversed "
            "episode), `list(chain.from_iterable(episodes))`",
        ),
        Row(
            "r20c_pfrl_trpo_kl_constrained_step", *PFRL,
            "wrapper: TRPO(policy=Sequential(Linear(4, 6), Tanh, Linear(6, 2), "
            "GaussianHeadWithStateIndependentCovariance(2, 'diagonal')), vf, Adam, max_kl=0.01, "
            "conjugate_gradient_max_iter=5): distrib = policy(states (8, 4)); gain = agent._compute_gain(...); "
            "agent._compute_kl_constrained_step(distrib, distrib_old (no grad), gain); returns the full step (46,)",
            ("pfrl",), _r20c_trpo_kl_step, modes=("inference",),
            notes="inference only: the step is built from gradients taken without create_graph and a detached gain "
            "gradient (no gradient path to the output). TRPO's natural-gradient step (agents/trpo.py:445-469); the "
            "wrapper enables grad (TRPO's update takes second derivatives and never runs under no_grad), so the "
            "inference mode runs it; continuous actions (8, 2), standardized advantages, old log-probabilities; "
            + _AGENT,
            patterns="`GaussianHeadWithStateIndependentCovariance.forward` (policies/gaussian_policy.py:44-58: "
            "softplus, `Independent(Normal)`), `_compute_gain` (agents/trpo.py:415-420), "
            "`_compute_kl_constrained_step` (557-598: `kl_divergence`, `autograd.grad(create_graph=True)`, "
            "`assert all(g is not None ...)`, `_flatten_and_concat_variables` (32-34), `assert all(g.requires_grad "
            "...)`, a second `autograd.grad`, `pfrl.utils.conjugate_gradient` (utils/conjugate_gradient.py:4-33: "
            "`for _ in range(max_iter)`, `if torch.norm(r1) < tol: return x` (a tensor test per iteration), each "
            "product `fisher_vector_product_func` -> `torch.as_tensor`, `_hessian_vector_product` (59-68: "
            "`autograd.grad(retain_graph=True)`, an `assert all(grad is not None ...)`), damping), `dId = "
            "float(step_direction.dot(...))` (596), Python `(2 * max_kl / (dId + 1e-8)) ** 0.5`)",
        ),
        Row(
            "r20c_pfrl_trpo_line_search", *PFRL,
            "wrapper: TRPO(the kl-step row's agent, line_search_max_backtrack=6)._line_search(full_step (46,) = 4 x "
            "the KL-constrained step, dataset (8 transitions: ndarray observations and actions, float log_probs), "
            "advs (8,), action_distrib_old, gain (0-d)); returns (the policy's flat parameters after it, the step "
            "sizes and KLs it recorded)",
            ("pfrl",), _r20c_trpo_line_search, modes=("inference",),
            notes="inference only: the line search evaluates under no_grad and writes the parameters through "
            "`.data` (no gradient path). The backtracking line search of a TRPO update; the full step is 4 times "
            "the KL-constrained one, so the KL test rejects steps 1, 0.5 and 0.25 and step 0.125 is accepted; "
            + _AGENT,
            patterns="`TRPO._line_search` (agents/trpo.py:600-699: `numel`/`shape` lists, "
            "`_flatten_and_concat_variables`, the `recurrent` test, `batch_states` of the ndarray observations, "
            "`torch.tensor` of a list of ndarray actions (a UserWarning), a `for ... else` over backtracks: "
            "`logger.info` (arguments evaluated), `_split_and_reshape_to_ndarrays` (45-48: `torch.split`), "
            "`_replace_params_data` (51-56: shape and `isinstance` asserts, `param.data.copy_`), under no_grad and "
            "`evaluating` the policy's forward, `_compute_gain`, `kl_divergence`, `improve = float(new_gain) - "
            "float(gain)`, `not torch.isfinite(new_gain)`, `not torch.isfinite(new_kl)`, `improve < 0`, "
            "`float(new_kl) > self.max_kl` (Python tests of tensor values), `kl_record.append(float(new_kl))`, "
            "`break`, `step_size *= 0.5`)",
        ),
        Row(
            "r20c_pfrl_conjugate_gradient_early_exit", *PFRL,
            "wrapper: pfrl.utils.conjugate_gradient(lambda v: torch.mv(A, v), b, tol=1e-4, max_iter=10) with A (5, "
            "5) symmetric positive definite (M M^T / 5 + I), b (5,); returns x (5,)",
            ("pfrl",), _r20c_conjugate_gradient,
            notes="the solver TRPO uses for its natural gradient, on an explicit matrix; it converges in 5 "
            "iterations and returns early on the residual test (the 6th-10th never run); in training A and b "
            "require grad (the solution is differentiable through the loop)",
            patterns="`conjugate_gradient` (utils/conjugate_gradient.py:4-33: `zeros_like`, the product closure, a "
            "`for _ in range(max_iter)` loop of `matmul` ratios, `if torch.norm(r1) < tol: return x` (a Python test "
            "of a tensor value that ends the loop))",
        ),
        Row(
            "r20c_pfrl_empirical_normalization_until", *PFRL,
            "module: Sequential(pfrl.nn.EmpiricalNormalization(4, until=12, clip_threshold=3.0) (6 observations "
            "learnt), Linear(4, 3))(x (6, 4)); returns (6, 3)",
            ("pfrl",), _r20c_empirical_normalization, frozen=("0",),
            notes="observation normalization with running statistics learnt in the forward until 12 observations "
            "(count 6 -> 12 in this call; a next call skips the update: the count test flips); the observations are "
            "frozen (the statistics' in-place updates would otherwise carry a graph into the buffers): in training "
            "the Linear's parameters require grad",
            patterns="`EmpiricalNormalization.forward` (nn/empirical_normalization.py:86-105) -> `experience` "
            "(61-84: `if self.until is not None and self.count >= self.until` (a Python test of a 0-d buffer), "
            "`count_x == 0`, `self.count += count_x` in place, `count_x / self.count.float()`, `assert rate > 0`, "
            "`assert rate <= 1` (tensor asserts), `var_mean`, in-place `_mean`/`_var` updates, `_cached_std_inverse "
            "= None`), the `_std_inverse` property (54-59: an attribute cache refilled in the forward), the "
            "`clip_threshold` test, `clamp`",
        ),
        Row(
            "r20c_pfrl_acer_discrete_compute_loss", *PFRL,
            "wrapper: ACER(ACERDiscreteActionHead(pi=Linear(4, 3)+SoftmaxCategoricalHead, q=Linear(4, 3)+"
            "DiscreteActionValueHead), Adam, t_max=4, gamma=0.9, EpisodicReplayBuffer(100), truncation_threshold=5, "
            "trust_region_delta=0.1): per step of a 4-step segment model(obs[i:i+1]), the average model, "
            "Categorical(mu_logits[i:i+1]); agent.compute_loss(0, 4, R=0.5, ...); returns the loss (1,)",
            ("pfrl",), _r20c_acer_discrete_loss, frozen=("1", "4"),
            notes="ACER's off-policy actor-critic loss with Retrace targets, truncated importance weights with the "
            "full bias correction and the trust region, on a replayed segment of 4 steps (batch of 1 each); the "
            "average model trails the current one by N(0, 0.2); process_idx 0 (the logging actor); the wrapper "
            "enables grad (the trust region takes autograd.grad; ACER's update never runs under no_grad); the "
            "observations and behaviour logits are frozen: in training the model's parameters require grad; "
            + _AGENT,
            patterns="`ACER.compute_loss` (agents/acer.py:461-552: `assert np.isscalar(R)`, an `isinstance` test, a "
            "reversed Python loop: `torch.as_tensor(actions[i]).unsqueeze(0)`, `compute_importance` (16-18: "
            "`float(exp(log_prob - log_prob))` under no_grad), Python `Q_ret`/`Q_opc` with `np.isscalar` asserts, "
            "`advantage = Q_ret - float(v)` (a UserWarning), `compute_one_step_pi_loss` (423-458: "
            "`compute_policy_gradient_loss` (73-115: `np.isscalar` asserts, `compute_importance`, Python "
            "`min(truncation_threshold, rho)`, `isinstance(Categorical)`, `compute_policy_gradient_full_correction` "
            "(30-46: asserts, `compute_full_importance` (21-27), `relu`, `q_values[0] - v`)), "
            "`compute_loss_with_kl_constraint` (207-248: `get_params_of_distribution` (172-180: `isinstance` "
            "tests), `assert param.shape[0] == 1`, `assert param.requires_grad`, two `autograd.grad(retain_graph="
            "True)`, Python `sum` of `dot`s, `if kk_dot > 0` (a tensor test), `max(0, (kg_dot - delta) / kk_dot)` "
            "(a Python max comparing a 0-d tensor), `float(kl)`), `entropy`), `evaluate_actions`, `assert "
            "Q.requires_grad`, `mse_loss(torch.tensor(Q_ret), Q)` (a UserWarning), `if self.process_idx == 0: "
            "logger.debug(..., float(v), float(Q), ...)`, `min(1, rho)`, `Q_ret = c * (Q_ret - float(Q)) + "
            "float(v)`; then the `normalize_loss_by_steps` division, `logger.debug(float(pi_loss), float(Q_loss))`, "
            "`reshape`)",
        ),
        Row(
            "r20c_pfrl_acer_gaussian_policy_gradient", *PFRL,
            "wrapper: distrib, action_value, _ = ACERContinuousActionHead(pi=Linear(4, 2)+"
            "GaussianHeadWithStateIndependentCovariance(2, 'diagonal'), v=Linear(4, 1), adv=ConcatObsAndAction+"
            "MLP(6, 1, (8,)), n=3)(obs (1, 4)); pfrl.agents.acer.compute_policy_gradient_loss(action (1, 2), "
            "advantage=0.7, distrib, mu=Independent(Normal(mu_loc, 0.3)), action_value, v=-0.2, "
            "truncation_threshold=5.0); returns (1,)",
            ("pfrl",), _r20c_acer_gaussian_pg, frozen=("1", "3", "4"),
            notes="ACER's truncated policy gradient with the sampled bias correction of a continuous policy; the "
            "behaviour policy sits 3 away from the current one, so the importance weight is truncated (rho ~ 1e25 "
            "-> 5) and the sampled action's inverse weight (~ 1e-29) keeps the correction term; samples drawn in the "
            "call (seeded by the harness); observations and the behaviour distribution's parameters frozen: in "
            "training the action and the head's parameters require grad (the policy's get gradients; the value and "
            "advantage networks get none on this path: v is passed as a float and the correction evaluates them "
            "under no_grad)",
            patterns="`ACERContinuousActionHead.forward` (agents/acer.py:156-169: a `SingleActionValue` over a "
            "closure), `compute_policy_gradient_loss` (73-115: `np.isscalar` asserts, `log_prob`, "
            "`compute_importance` (16-18: `float(...)` under no_grad), the `truncation_threshold is None` test, "
            "Python `min(truncation_threshold, rho)`, `isinstance(Categorical)` false -> "
            "`compute_policy_gradient_sample_correction` (49-70: `sample()`, `compute_importance`, `if "
            "truncation_threshold > 0 and rho_dash_inv >= 1 / truncation_threshold` (a Python test of a value read "
            "from a tensor), Python `max(0, ...)`, `assert correction_weight <= 1`, "
            "`float(action_value.evaluate_actions(sample))` (action_value.py:327-343 -> the evaluator: a Python "
            "`sum` of the advantage network over 3 fresh samples, `ConcatObsAndAction`, `MLP`), the weighted "
            "log-probability))",
        ),
        Row(
            "r20c_pfrl_clip_l2_grad_norm", *PFRL,
            "wrapper: pfrl.utils.clip_l2_grad_norm_(MLP(4, 3, (8,)).parameters() (gradients of a backward taken "
            "in the builder), max_norm=0.5); returns (the unclipped norm (numpy float32), the 4 clipped gradients)",
            ("pfrl",), _r20c_clip_l2_grad_norm, modes=("inference",),
            notes="inference only: the function rescales `.grad` in place from numpy (no gradient path). The "
            "gradient clipping DQN, SAC, TD3 and TRPO call between backward and the optimizer step with "
            "`max_grad_norm` (on CPU); the norm (~25) exceeds max_norm, so the gradients are scaled",
            patterns="`clip_l2_grad_norm_` (utils/clip_l2_grad_norm.py:5-38: an `isinstance` test, `list`, the "
            "empty test, `parameters[0].is_cuda`, a `filter` on `p.grad is not None`, `np.linalg.norm` of each "
            "`p.grad.detach().cpu().numpy()` (numpy reads), Python `max_norm / (total_norm + 1e-6)`, `if clip_coef "
            "< 1` (a numpy test), in-place `p.grad.detach().mul_(clip_coef)`)",
        ),
        Row(
            "r20c_pfrl_categorical_projection_control", *PFRL,
            "function: pfrl.agents.categorical_dqn._apply_categorical_projection(Tz (6, 5): reward + (1 - "
            "terminal) * 0.9 * z, y_probs (6, 5) softmax, z (5,) linspace(-2, 2)); returns (6, 5)",
            ("pfrl",), _r20c_categorical_projection, frozen=("2",),
            notes="control: C51's projection of the Bellman-shifted atoms back onto the support (some atoms fall "
            "outside [-2, 2], two rows are terminal: all mass on the reward); z frozen (the support): in training "
            "the shifted atoms and their probabilities require grad",
            patterns="control: no tensor value reaches Python. `_apply_categorical_projection` (agents/"
            "categorical_dqn.py:7-57: shape asserts (Python shapes), `z[1] - z[0]`, `z[0]`, `z[-1]` as 0-d tensors, "
            "`clamp` by tensor bounds, `clamp(0, n_atoms - 1)`, `floor`/`ceil`, `zeros`, an int32 `arange` offset, "
            "two `z_probs.view(-1).scatter_add_` with `long()` indices)",
        ),
        Row(
            "r20c_pfrl_naf_quadratic_control", *PFRL,
            "wrapper: av = pfrl.q_functions.FCQuadraticStateQFunction(4, 2, n_hidden_channels=8, n_hidden_layers=1, "
            "action_space=gym.spaces.Box([-1, -0.5], [1, 2]))(state (6, 4)); returns (av.greedy_actions (6, 2), "
            "av.max (6,), av.evaluate_actions(action (6, 2)) (6,))",
            ("pfrl",), _r20c_naf,
            notes="control: the normalized advantage function (NAF) Q-function and its QuadraticActionValue, with "
            "action bounds (greedy actions clipped, max evaluated at them); the builder sets the module's mode; in "
            "training the state, the actions and the parameters require grad",
            patterns="control: no tensor value reaches Python. `FCQuadraticStateQFunction.forward` "
            "(q_functions/state_q_functions.py:194-219: a Python loop over the hidden layers, `scale_by_tanh` (18-23:"
            " numpy bounds, `torch.from_numpy`, `unsqueeze`, `tanh`), `exp`, the `hasattr` test, "
            "`lower_triangular_matrix` (functions/lower_triangular_matrix.py:5-28: `isinstance` asserts, `zeros`, "
            "index setitems by `np.tril_indices`/`np.diag_indices`), `matmul` with the transpose), "
            "`QuadraticActionValue.__init__` (action_value.py:251-270: `isinstance` tests, `torch.as_tensor(bounds)"
            ".to(device).float()`), the lazy_property `greedy_actions` (272-279: `max`/`min` with the expanded "
            "bounds), `max` (281-288: the `None` tests -> `evaluate_actions`), `evaluate_actions` (290-300: two "
            "`matmul`s, `[:, 0, 0]`, `reshape`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty (c)")
