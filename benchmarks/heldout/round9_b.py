"""Held-out round nine (r9b): stable-baselines3, cooper-optim and galore-torch.

Drafted by reading each library's source before any row was run under
graphmend, torch.compile or Dynamo (each row was only checked to build and run
eagerly, twice from fresh builds, with identical results); to be measured once
and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row` (tiny configs,
seeded random weights and inputs, nothing downloaded); a row whose ``modes``
is one mode only says why in its ``notes``.

The stable-baselines3 training rows build the algorithm on a tiny
``gymnasium.Env`` that only declares its spaces (it is never reset or stepped),
fill the rollout / replay buffer by hand with seeded random transitions, and
call the algorithm's own ``train()``; SB3 draws minibatch order and replay
indices from NumPy's global RNG, so those rows seed it (``np.random.seed(0)``)
at the start of the call.  The algorithm object is an argument, so each build
trains a fresh model.  The cooper rows solve a small constrained least-squares
problem (a 6-dim primal vector, inequality constraints ``x_i <= 0.3`` and an
equality ``sum(x) = 1``); the galore rows step a tiny two-layer MLP whose
gradients come from a backward that the call runs itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

STABLE_BASELINES3 = ("stable-baselines3", "2.9.2")
COOPER = ("cooper-optim", "1.0.1")
GALORE = ("galore-torch", "1.0")


# --- stable-baselines3 helpers -------------------------------------------------------


def _r9b_spaces_env(observation_space: Any, action_space: Any) -> Any:
    """A gymnasium Env that only declares its spaces: SB3 needs one to build an
    algorithm, and these rows never reset or step it (the buffers are filled by hand)."""
    import gymnasium as gym

    class _R9bSpacesEnv(gym.Env):
        def __init__(self) -> None:
            self.observation_space = observation_space
            self.action_space = action_space

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:  # never called
            raise RuntimeError("r9b rows do not reset the env")

        def step(self, action: Any) -> Any:  # never called
            raise RuntimeError("r9b rows do not step the env")

    return _R9bSpacesEnv()


def _r9b_silent_logger() -> Any:
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def _r9b_train_out(model: Any) -> dict[str, Any]:
    """The trained policy's parameters and the logger's recorded values (as a float64
    tensor in key order)."""
    logged = model.logger.name_to_value
    keys = sorted(logged)
    return {
        "params": [p.detach().clone() for p in model.policy.parameters()],
        "logged": torch.tensor([float(logged[k]) for k in keys], dtype=torch.float64),
    }


def _r9b_fill_replay(model: Any, n: int, obs_dim: int, action: Any) -> None:
    """``n`` seeded random transitions into ``model.replay_buffer`` (one env)."""
    buffer = model.replay_buffer
    for i in range(n):
        obs = torch.randn(1, obs_dim).numpy()
        next_obs = torch.randn(1, obs_dim).numpy()
        reward = torch.randn(1).numpy()
        done = np.array([i % 5 == 4])
        buffer.add(obs, next_obs, action(), reward, done, [{}])


# --- stable-baselines3 -------------------------------------------------------------


def _r9b_sb3_ppo_train(training: bool) -> Built:
    from gymnasium import spaces
    from stable_baselines3 import PPO

    env = _r9b_spaces_env(spaces.Box(-1.0, 1.0, (4,), np.float32), spaces.Box(-1.0, 1.0, (2,), np.float32))
    model = PPO(
        "MlpPolicy", env, n_steps=16, batch_size=8, n_epochs=4, learning_rate=1e-2, target_kl=0.001,
        clip_range=0.2, clip_range_vf=0.5, verbose=1, device="cpu", policy_kwargs={"net_arch": [16]},
    )
    model.set_logger(_r9b_silent_logger())
    buffer = model.rollout_buffer
    buffer.reset()
    with torch.no_grad():
        for i in range(16):
            obs = torch.rand(1, 4) * 2 - 1
            actions, values, log_probs = model.policy(obs)
            buffer.add(obs.numpy(), actions.numpy(), torch.randn(1).numpy(), np.array([i == 0 or i == 9]),
                       values, log_probs)
        last_values = model.policy.predict_values(torch.rand(1, 4) * 2 - 1)
    buffer.compute_returns_and_advantage(last_values=last_values, dones=np.array([False]))

    def ppo_train(model: Any) -> dict[str, Any]:
        np.random.seed(0)  # SB3's minibatch permutation draws from NumPy's global RNG
        with torch.enable_grad():  # train() backprops its losses itself
            model.train()
        return _r9b_train_out(model)

    return ppo_train, (model,), {}


def _r9b_sb3_dqn_train(training: bool) -> Built:
    from gymnasium import spaces
    from stable_baselines3 import DQN

    env = _r9b_spaces_env(spaces.Box(-1.0, 1.0, (4,), np.float32), spaces.Discrete(3))
    model = DQN(
        "MlpPolicy", env, buffer_size=64, batch_size=8, learning_starts=0, target_update_interval=1, tau=0.5,
        learning_rate=1e-3, device="cpu", policy_kwargs={"net_arch": [16]},
    )
    model.set_logger(_r9b_silent_logger())
    _r9b_fill_replay(model, 24, 4, lambda: np.array([[int(torch.randint(0, 3, ()))]]))

    def dqn_train_then_target_update(model: Any) -> dict[str, Any]:
        np.random.seed(0)  # ReplayBuffer.sample draws indices from NumPy's global RNG
        with torch.enable_grad():  # train() backprops its loss itself
            model.train(gradient_steps=3, batch_size=8)
        model._on_step()  # the target-network soft update (polyak_update) of DQN's collect loop
        out = _r9b_train_out(model)
        out["target"] = [p.detach().clone() for p in model.q_net_target.parameters()]
        return out

    return dqn_train_then_target_update, (model,), {}


def _r9b_sb3_sac_train(training: bool) -> Built:
    from gymnasium import spaces
    from stable_baselines3 import SAC

    env = _r9b_spaces_env(spaces.Box(-1.0, 1.0, (3,), np.float32), spaces.Box(-2.0, 2.0, (2,), np.float32))
    model = SAC(
        "MlpPolicy", env, buffer_size=64, batch_size=8, learning_starts=0, ent_coef="auto_0.2",
        target_update_interval=1, tau=0.05, learning_rate=1e-3, device="cpu", policy_kwargs={"net_arch": [16]},
    )
    model.set_logger(_r9b_silent_logger())
    _r9b_fill_replay(model, 24, 3, lambda: (torch.rand(1, 2) * 4 - 2).numpy())

    def sac_train(model: Any) -> dict[str, Any]:
        np.random.seed(0)  # ReplayBuffer.sample draws indices from NumPy's global RNG
        with torch.enable_grad():  # train() backprops its losses itself
            model.train(gradient_steps=2, batch_size=8)
        out = _r9b_train_out(model)
        out["log_ent_coef"] = model.log_ent_coef.detach().clone()
        return out

    return sac_train, (model,), {}


def _r9b_sb3_multicategorical_evaluate(training: bool) -> Built:
    from gymnasium import spaces
    from stable_baselines3.common.policies import ActorCriticPolicy

    policy = ActorCriticPolicy(
        spaces.MultiDiscrete([3, 4, 2]), spaces.MultiDiscrete([2, 3]), lambda _: 3e-4, net_arch=[16],
    )
    obs = torch.stack([torch.randint(0, n, (6,)) for n in (3, 4, 2)], dim=1)
    actions = torch.stack([torch.randint(0, n, (6,)) for n in (2, 3)], dim=1)
    return policy.evaluate_actions, (obs, actions), {}


# --- cooper helpers ----------------------------------------------------------------


def _r9b_cooper_target() -> torch.Tensor:
    return torch.tensor([0.9, -0.2, 0.5, 0.1, 0.7, -0.4])


def _r9b_cooper_cmp(multiplier_kind: str = "dense", formulation: str = "lagrangian") -> Any:
    """min ||x - target||^2 s.t. x_i <= 0.3 (6 inequalities), sum(x) = 1 (one equality).

    ``multiplier_kind="indexed"`` samples 3 of the 6 inequality constraints per call
    (``torch.randperm``, the global RNG) and passes their indices as constraint features
    to an IndexedMultiplier."""
    import cooper

    target = _r9b_cooper_target()
    formulations = cooper.formulations
    ineq_formulation = formulations.AugmentedLagrangian if formulation == "augmented" else formulations.Lagrangian

    class _R9bBoxSimplexCMP(cooper.ConstrainedMinimizationProblem):
        def __init__(self) -> None:
            super().__init__()
            if multiplier_kind == "indexed":
                ineq_multiplier = cooper.multipliers.IndexedMultiplier(num_constraints=6)
            else:
                ineq_multiplier = cooper.multipliers.DenseMultiplier(num_constraints=6)
            extra = {}
            if formulation == "augmented":
                extra = {"penalty_coefficient": cooper.penalty_coefficients.DensePenaltyCoefficient(
                    init=torch.ones(6))}
            self.upper = cooper.Constraint(
                multiplier=ineq_multiplier, constraint_type=cooper.ConstraintType.INEQUALITY,
                formulation_type=ineq_formulation, **extra,
            )
            self.simplex = cooper.Constraint(
                multiplier=cooper.multipliers.DenseMultiplier(num_constraints=1),
                constraint_type=cooper.ConstraintType.EQUALITY, formulation_type=cooper.formulations.Lagrangian,
            )

        def compute_cmp_state(self, x: torch.Tensor) -> Any:
            loss = ((x - target) ** 2).sum()
            if multiplier_kind == "indexed":
                idx = torch.randperm(6)[:3]
                upper = cooper.ConstraintState(violation=x[idx] - 0.3, constraint_features=idx)
            else:
                upper = cooper.ConstraintState(violation=x - 0.3)
            simplex = cooper.ConstraintState(violation=(x.sum() - 1.0).reshape(1))
            return cooper.CMPState(loss=loss, observed_constraints={self.upper: upper, self.simplex: simplex})

    return _R9bBoxSimplexCMP()


def _r9b_cooper_out(x: torch.Tensor, cmp: Any, roll_outs: list[Any]) -> dict[str, Any]:
    return {
        "x": x.detach().clone(),
        "multipliers": [m.weight.detach().clone() for m in cmp.multipliers()],
        "losses": torch.stack([r.loss.detach() for r in roll_outs]),
        "primal_lagrangians": torch.stack([r.primal_lagrangian_store.lagrangian.detach() for r in roll_outs]),
    }


# --- cooper ------------------------------------------------------------------------


def _r9b_cooper_rolls(optimizer: Any, x: torch.Tensor) -> dict[str, Any]:
    """Four ``optimizer.roll()`` calls on the same primal parameter ``x``."""
    with torch.enable_grad():  # roll() backprops the Lagrangians itself
        outs = [optimizer.roll(compute_cmp_state_kwargs={"x": x}) for _ in range(4)]
    return _r9b_cooper_out(x, optimizer.cmp, outs)


def _r9b_cooper_lagrangian(training: bool) -> Built:
    cmp = _r9b_cooper_cmp()
    with torch.no_grad():  # a multiplier that has taken a few dual steps
        cmp.upper.multiplier.weight.copy_(torch.tensor([0.5, 0.0, 0.2, 0.0, 0.8, 0.0]))
        cmp.simplex.multiplier.weight.copy_(torch.tensor([-0.3]))

    def primal_and_dual_lagrangians(cmp: Any, x: torch.Tensor) -> dict[str, Any]:
        state = cmp.compute_cmp_state(x)
        primal = state.compute_primal_lagrangian()
        dual = state.compute_dual_lagrangian()
        return {
            "primal": primal.lagrangian,
            "dual": dual.lagrangian,
            "multiplier_values": list(primal.observed_multiplier_values()),
        }

    return primal_and_dual_lagrangians, (cmp, torch.randn(6) * 0.5), {}


def _r9b_cooper_simultaneous_nupi(training: bool) -> Built:
    import cooper

    cmp = _r9b_cooper_cmp()
    x = torch.nn.Parameter(torch.randn(6) * 0.5)
    primal = torch.optim.SGD([x], lr=0.1)
    dual = cooper.optim.nuPI(cmp.dual_parameters(), lr=0.2, Kp=torch.tensor(0.5), Ki=torch.tensor(1.0),
                             ema_nu=0.1, maximize=True, init_type=cooper.optim.nuPIInitType.ZEROS)
    optimizer = cooper.optim.SimultaneousOptimizer(cmp, primal_optimizers=primal, dual_optimizers=dual)

    return _r9b_cooper_rolls, (optimizer, x), {}


def _r9b_cooper_indexed_sparse_nupi(training: bool) -> Built:
    import cooper

    cmp = _r9b_cooper_cmp(multiplier_kind="indexed")
    x = torch.nn.Parameter(torch.randn(6) * 0.5)
    primal = torch.optim.Adam([x], lr=0.05)
    dual = cooper.optim.nuPI(cmp.dual_parameters(), lr=0.2, Kp=torch.tensor(0.3), Ki=torch.tensor(1.0),
                             maximize=True, init_type=cooper.optim.nuPIInitType.SGD)
    optimizer = cooper.optim.AlternatingDualPrimalOptimizer(cmp, primal_optimizers=primal, dual_optimizers=dual)

    return _r9b_cooper_rolls, (optimizer, x), {}


def _r9b_cooper_extragradient_augmented(training: bool) -> Built:
    import cooper

    cmp = _r9b_cooper_cmp(formulation="augmented")
    x = torch.nn.Parameter(torch.randn(6) * 0.5)
    primal = cooper.optim.ExtraAdam([x], lr=0.05)
    dual = cooper.optim.ExtraSGD(cmp.dual_parameters(), lr=0.2, maximize=True)
    optimizer = cooper.optim.ExtrapolationConstrainedOptimizer(cmp, primal_optimizers=primal, dual_optimizers=dual)
    updater = cooper.penalty_coefficients.MultiplicativePenaltyCoefficientUpdater(
        growth_factor=1.5, violation_tolerance=0.05, has_restart=True,
    )

    def rolls_with_penalty_updates(optimizer: Any, updater: Any, x: torch.Tensor) -> dict[str, Any]:
        outs = []
        with torch.enable_grad():  # roll() backprops the Lagrangians itself
            for _ in range(3):
                out = optimizer.roll(compute_cmp_state_kwargs={"x": x})
                updater.step(out.cmp_state.observed_constraints)
                outs.append(out)
        result = _r9b_cooper_out(x, optimizer.cmp, outs)
        result["penalty"] = optimizer.cmp.upper.penalty_coefficient.value.clone()
        return result

    return rolls_with_penalty_updates, (optimizer, updater, x), {}


# --- galore-torch helpers ------------------------------------------------------------


def _r9b_galore_mlp() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(12, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))


def _r9b_galore_groups(model: torch.nn.Module, proj_type: str, rank: int = 3, gap: int = 2) -> list[dict[str, Any]]:
    """GaLore's recommended grouping: the 2-D weights in a GaLore group, the rest plain."""
    galore_params = [p for p in model.parameters() if p.dim() == 2]
    other_params = [p for p in model.parameters() if p.dim() != 2]
    return [
        {"params": other_params},
        {"params": galore_params, "rank": rank, "update_proj_gap": gap, "scale": 0.25, "proj_type": proj_type},
    ]


def _r9b_galore_steps(optimizer: Any, model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor,
                      steps: int) -> dict[str, Any]:
    """``steps`` training steps (backward under enable_grad, optimizer.step()); the
    parameters and each step's loss."""
    losses = []
    with torch.enable_grad():
        for _ in range(steps):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
    return {"params": [p.detach().clone() for p in model.parameters()], "losses": torch.stack(losses)}


# --- galore-torch ------------------------------------------------------------------


def _r9b_galore_adamw(training: bool) -> Built:
    from galore_torch import GaLoreAdamW

    model = _r9b_galore_mlp()
    optimizer = GaLoreAdamW(_r9b_galore_groups(model, "std"), lr=1e-2, weight_decay=0.01,
                            no_deprecation_warning=True)

    def galore_adamw_steps(optimizer: Any, model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> dict[str, Any]:
        return _r9b_galore_steps(optimizer, model, x, y, steps=5)

    return galore_adamw_steps, (optimizer, model, torch.randn(8, 12), torch.randn(8, 4)), {}


def _r9b_galore_adafactor_relative(training: bool) -> Built:
    from galore_torch import GaLoreAdafactor

    model = _r9b_galore_mlp()
    optimizer = GaLoreAdafactor(_r9b_galore_groups(model, "std"), lr=None, relative_step=True,
                                scale_parameter=True, warmup_init=False)

    def galore_adafactor_steps(optimizer: Any, model: torch.nn.Module, x: torch.Tensor,
                               y: torch.Tensor) -> dict[str, Any]:
        return _r9b_galore_steps(optimizer, model, x, y, steps=4)

    return galore_adafactor_steps, (optimizer, model, torch.randn(8, 12), torch.randn(8, 4)), {}


def _r9b_galore_adafactor_momentum(training: bool) -> Built:
    from galore_torch import GaLoreAdafactor

    model = _r9b_galore_mlp()
    optimizer = GaLoreAdafactor(_r9b_galore_groups(model, "reverse_std", rank=2, gap=3), lr=None,
                                relative_step=True, warmup_init=False, scale_parameter=True, beta1=0.9,
                                weight_decay=0.05, clip_threshold=0.5)

    def galore_adafactor_steps(optimizer: Any, model: torch.nn.Module, x: torch.Tensor,
                               y: torch.Tensor) -> dict[str, Any]:
        return _r9b_galore_steps(optimizer, model, x, y, steps=4)

    return galore_adafactor_steps, (optimizer, model, torch.randn(8, 12), torch.randn(8, 4)), {}


# --- rows --------------------------------------------------------------------------

SB3_TRAIN_NOTES = (
    "an optimizer-driven training update: train() runs its own backward and Adam steps on the policy's "
    "parameters in place, so there is no gradient path to compare; the call wraps it in torch.enable_grad() "
    "(the harness's inference mode runs under no_grad); the algorithm (with its hand-filled buffer) is an argument, "
    "so each build trains a "
    "fresh model; the call seeds NumPy's global RNG because SB3's buffers draw from it"
)
COOPER_ROLL_NOTES = (
    "a constrained optimizer's roll(): it backprops the primal and dual Lagrangians itself and steps the primal "
    "and dual optimizers in place, so there is no gradient path to compare; the call wraps the rolls in "
    "torch.enable_grad() (the harness's inference mode runs under no_grad); the optimizer (holding the CMP) and "
    "the primal parameter are arguments, so each build solves afresh"
)
GALORE_NOTES = (
    "optimizer steps: the call runs its own backward (under torch.enable_grad) and the optimizer writes the "
    "parameters in place under @torch.no_grad, so there is no gradient path to compare; optimizer and model are "
    "arguments, so each build steps a fresh model"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r9b_sb3_ppo_train_kl_early_stop", *STABLE_BASELINES3,
            "stable_baselines3.PPO('MlpPolicy', box env, n_steps=16, batch_size=8, n_epochs=4, lr=1e-2, "
            "target_kl=0.001, clip_range_vf=0.5, verbose=1).train() on a hand-filled rollout buffer",
            ("stable_baselines3",), _r9b_sb3_ppo_train, modes=INFERENCE, notes=SB3_TRAIN_NOTES,
            patterns="ppo.py `train`: per minibatch `self.rollout_buffer.get(batch_size)` (a generator: "
            "`np.random.permutation`, `while start_idx < buffer_size * n_envs`, `th.tensor` of NumPy slices), "
            "`th.clamp(values - old_values, -clip_range_vf, clip_range_vf)`, "
            "`if self.normalize_advantage and len(advantages) > 1`, "
            "`pg_losses.append(policy_loss.item())`, `clip_fraction = th.mean((th.abs(ratio - 1) > "
            "clip_range).float()).item()`, `value_loss.item()`, `entropy_loss.item()`, `approx_kl_div = "
            "th.mean(...).cpu().numpy()` then `if self.target_kl is not None and approx_kl_div > 1.5 * "
            "self.target_kl:` -> `print(f'Early stopping ...')` and `break` (taken in the second epoch, when some "
            "ratios have left the clip range), "
            "`th.nn.utils.clip_grad_norm_` + Adam step; after the loop `explained_variance` on NumPy arrays "
            "(`np.nan if var_y == 0 else ...`), `loss.item()`, `th.exp(self.policy.log_std).mean().item()` "
            "logged; DiagGaussian `Normal(...)` with torch.distributions argument validation "
            "(`torch._is_all_true(valid)` raise)",
        ),
        Row(
            "r9b_sb3_dqn_train_target_polyak", *STABLE_BASELINES3,
            "stable_baselines3.DQN('MlpPolicy', box env / Discrete(3), tau=0.5, target_update_interval=1)"
            ".train(gradient_steps=3, batch_size=8) then ._on_step() on a hand-filled replay buffer",
            ("stable_baselines3",), _r9b_sb3_dqn_train, modes=INFERENCE, notes=SB3_TRAIN_NOTES,
            patterns="dqn.py `train`: `ReplayBuffer.sample` (`upper_bound = buffer_size if self.full else "
            "self.pos`, `np.random.randint` batch and env indices, `self.to_torch` = `th.tensor` of NumPy "
            "arrays), target `next_q_values.max(dim=1)` and TD target, `th.gather(..., "
            "replay_data.actions.long())`, `losses.append(loss.item())`, `clip_grad_norm_`, Adam step; "
            "`logger.record('train/loss', np.mean(losses))`; `_on_step`: `if self._n_calls % max(... // "
            "self.n_envs, 1) == 0:` -> `polyak_update(q_net, q_net_target, tau)` (under `th.no_grad`, "
            "`zip_strict` = `zip(..., strict=True)` over parameter generators, in-place `mul_` / `th.add(..., "
            "out=...)`) and `polyak_update(batch_norm_stats, ..., 1.0)`; exploration schedule float",
        ),
        Row(
            "r9b_sb3_sac_train_auto_entropy", *STABLE_BASELINES3,
            "stable_baselines3.SAC('MlpPolicy', box env, ent_coef='auto_0.2', target_update_interval=1, "
            "tau=0.05).train(gradient_steps=2, batch_size=8) on a hand-filled replay buffer",
            ("stable_baselines3",), _r9b_sb3_sac_train, modes=INFERENCE, notes=SB3_TRAIN_NOTES,
            patterns="sac.py `train`: `ReplayBuffer.sample` (NumPy indices), `actor.action_log_prob` "
            "(SquashedDiagGaussian: `rsample` from the global RNG, tanh, squash correction "
            "`log_prob -= th.sum(th.log(1 - actions**2 + eps), dim=1)`, `sum_independent_dims` with "
            "`if len(tensor.shape) > 1`); "
            "`ent_coef = th.exp(self.log_ent_coef.detach())`, `ent_coef_loss.item()`, `ent_coef.item()`, "
            "entropy-coefficient Adam step; twin-critic target `th.min(th.cat(...), dim=1, keepdim=True)`, "
            "`critic_loss.item()`, `actor_loss.item()`; `if gradient_step % self.target_update_interval == 0:` "
            "-> `polyak_update` of critic and batch-norm stats (in-place under `th.no_grad`); "
            "torch.distributions `Normal` argument validation (`torch._is_all_true(valid)` raise)",
        ),
        Row(
            "r9b_sb3_multicategorical_evaluate_actions", *STABLE_BASELINES3,
            "stable_baselines3 ActorCriticPolicy(MultiDiscrete([3, 4, 2]) obs, MultiDiscrete([2, 3]) actions, "
            "net_arch=[16]).evaluate_actions(obs (6, 3) long, actions (6, 2) long)",
            ("stable_baselines3",), _r9b_sb3_multicategorical_evaluate,
            notes="training mode backprops values, log-probs and entropies into the policy's parameters (the "
            "observations and actions are integer)",
            patterns="`preprocess_obs` for MultiDiscrete: `th.split(obs.long(), 1, dim=1)` and per sub-space "
            "`F.one_hot(obs_.long(), num_classes=int(observation_space.nvec[idx]))` (one_hot checks the values "
            "against num_classes), `.view(obs.shape[0], sum(observation_space.nvec))` (a NumPy sum as a size); "
            "MultiCategoricalDistribution: `th.split(action_logits, list(self.action_dims), dim=1)` and one "
            "`Categorical(logits=split)` per sub-space (torch.distributions validation of the logits: "
            "`if not torch._is_all_true(valid): raise ValueError`), `log_prob` over `th.unbind(actions, dim=1)` "
            "(each `_validate_sample` checks the action is in the support: `torch._is_all_true(valid)`), entropy "
            "stacked",
        ),
        Row(
            "r9b_cooper_lagrangian_primal_dual", *COOPER,
            "cooper CMP.compute_cmp_state(x).compute_primal_lagrangian() / .compute_dual_lagrangian() "
            "(Lagrangian formulation, 6 inequality + 1 equality constraints, dense multipliers)",
            ("cooper",), _r9b_cooper_lagrangian,
            notes="training mode backprops the primal Lagrangian into x and the dual Lagrangian into the "
            "multipliers (their weights are autograd leaves inside the CMP argument)",
            patterns="control: `_compute_primal_or_dual_lagrangian` filters constraints on Python bools "
            "(`contributes_to_primal_update`), `evaluate_constraint_factor` (`if value.dim() == 0`, "
            "`if not value.requires_grad and value.numel() == 1`: flags and shapes), `extract_violations` "
            "unsqueezes 0-d violations, einsum `'i...,i...->'` of detached multipliers and violations (and "
            "vice versa): no tensor value meets Python",
        ),
        Row(
            "r9b_cooper_simultaneous_nupi_roll", *COOPER,
            "cooper.optim.SimultaneousOptimizer(cmp, SGD([x]), nuPI(dual, Kp=0.5, Ki=1, ema_nu=0.1, "
            "init_type=ZEROS, maximize=True)).roll(compute_cmp_state_kwargs={'x': x}) x4",
            ("cooper",), _r9b_cooper_simultaneous_nupi, modes=INFERENCE, notes=COOPER_ROLL_NOTES,
            patterns="nuPI `step` (@torch.no_grad) per multiplier, zero init (`_nupi_zero_init`): "
            "`if 'xi' not in state and xit_m1_coef.ne(0).any():`, `if et_coef.ne(0).any():`, "
            "`if xit_m1_coef.ne(0).any():`, `if 'xi' in state and xit_m1_coef.ne(0).any():` (tensor bools "
            "from the 0-d gain tensors), in-place `param.add_`; `dual_step` then `multiplier.post_step_()` "
            "projects inequality multipliers `weight.data = torch.relu(weight.data)` (data attribute swap); "
            "roll: `zero_grad(set_to_none=True)`, two `LagrangianStore.backward()` "
            "(`if self.lagrangian is not None`), primal SGD step",
        ),
        Row(
            "r9b_cooper_indexed_sparse_nupi_roll", *COOPER,
            "cooper.optim.AlternatingDualPrimalOptimizer(cmp with IndexedMultiplier over 3 sampled of 6 "
            "constraints, Adam([x]), nuPI(dual, Kp=0.3, Ki=1, init_type=SGD, maximize=True)).roll(...) x4",
            ("cooper",), _r9b_cooper_indexed_sparse_nupi, modes=INFERENCE, notes=COOPER_ROLL_NOTES,
            patterns="`IndexedMultiplier.forward`: `if indices.dtype != torch.long: raise`, "
            "`F.embedding(indices, weight, sparse=True)` (sparse gradient); nuPI picks "
            "`_sparse_nupi_sgd_init` on `p.grad.is_sparse`: `error.coalesce()` (data-dependent nnz), "
            "`error.indices()`, `if detached_error_values.numel() == 0: return`, "
            "`Ki[error_indices] if Ki.numel() > 1 else Ki`, `uses_ki_term = ....ne(0).any()` / "
            "`uses_kp_term` used in `if`, `state['xi'].sparse_mask(error)._values()`, "
            "`torch.where(state['needs_error_initialization_mask'].sparse_mask(error)._values(), ...)`, "
            "`torch.sparse_coo_tensor(...)` update, `state['xi'][error_indices] = ...` and "
            "`needs_error_initialization_mask[error_indices] *= False` index writes; the dense equality "
            "multiplier takes `_nupi_sgd_init`; `post_step_` relu projection; randomly sampled constraint "
            "indices (`torch.randperm`) per roll",
        ),
        Row(
            "r9b_cooper_extragradient_augmented_penalty", *COOPER,
            "cooper.optim.ExtrapolationConstrainedOptimizer(cmp with AugmentedLagrangian inequalities, "
            "ExtraAdam([x]), ExtraSGD(dual, maximize=True)).roll(...) then "
            "MultiplicativePenaltyCoefficientUpdater(growth_factor=1.5, violation_tolerance=0.05).step(...) x3",
            ("cooper",), _r9b_cooper_extragradient_augmented, modes=INFERENCE, notes=COOPER_ROLL_NOTES,
            patterns="extrapolation roll: two passes `for call_extrapolation in (True, False)` each with "
            "compute_cmp_state and two backward calls; `ExtragradientOptimizer.extrapolation`: "
            "`is_empty = len(self.params_copy) == 0`, `u = self.update(p, group)` / `if u is None: continue`, "
            "`self.params_copy.append(p.data.clone())`, `p.data.add_(u)`; `step`: "
            "`if len(self.params_copy) == 0: raise RuntimeError`, `p.data = self.params_copy[i].add_(u)` "
            "(rebinding `.data`); ExtraAdam `if len(state) == 0` init, `math.sqrt(bias_correction2)`; "
            "AugmentedLagrangian `relu(detached_multiplier + rho * violation) ** 2`; penalty updater "
            "`violation_measure > self.violation_tolerance`, `torch.where(torch.eq(violation_measure, 0), "
            "init, new_value)` restart, `penalty_coefficient.value = new_value.detach()` setter "
            "(`if value.requires_grad: raise`, shape check)",
        ),
        Row(
            "r9b_galore_adamw_projector_refresh", *GALORE,
            "galore_torch.GaLoreAdamW([{bias}, {2-D weights, rank=3, update_proj_gap=2, scale=0.25, "
            "proj_type='std'}], lr=1e-2, weight_decay=0.01).step() x5 on a 12-16-4 MLP",
            ("galore_torch",), _r9b_galore_adamw, modes=INFERENCE, notes=GALORE_NOTES,
            patterns="control: `GaLoreProjector.project`: `if full_rank_grad.shape[0] >= "
            "full_rank_grad.shape[1]` (shapes), `if self.ortho_matrix is None or iter % self.update_proj_gap == "
            "0` (Python int step counter) -> `get_orthogonal_matrix`: `torch.linalg.svd(matrix, "
            "full_matrices=False)` of `.data`, `U[:, :rank]` / `Vh[:rank, :]` (refreshed at steps 0, 2, 4); "
            "Adam moments on the low-rank gradient, `math.sqrt(bias_correction2)` of Python floats, "
            "`project_back(...) * scale`, `if group['weight_decay'] > 0.0` float test; no tensor value meets "
            "Python",
        ),
        Row(
            "r9b_galore_adafactor_relative_step", *GALORE,
            "galore_torch.GaLoreAdafactor([{bias}, {2-D weights, rank=3, update_proj_gap=2, proj_type='std'}], "
            "lr=None, relative_step=True, scale_parameter=True).step() x4 on a 12-16-4 MLP",
            ("galore_torch",), _r9b_galore_adafactor_relative, modes=INFERENCE, notes=GALORE_NOTES,
            patterns="`state['RMS'] = self._rms(p)` (a 0-d tensor), `_get_lr`: `rel_step_sz = min(1e-2, 1.0 / "
            "math.sqrt(step))` and `param_scale = max(param_group['eps'][1], param_state['RMS'])` (Python "
            "`max` compares a float with a 0-d tensor: a tensor bool), so `lr` is a float or a tensor by data; "
            "`beta2t = 1.0 - math.pow(step, decay_rate)`; factored second moment (`len(grad_shape) >= 2`), "
            "`_approx_sq_grad` rsqrt, `update.div_((self._rms(update) / clip_threshold).clamp_(min=1.0))`, "
            "`update.mul_(lr)`; GaLore projection with SVD refresh every 2 steps (`iter % update_proj_gap`)",
        ),
        Row(
            "r9b_galore_adafactor_momentum_decay", *GALORE,
            "galore_torch.GaLoreAdafactor([{bias}, {2-D weights, rank=2, update_proj_gap=3, "
            "proj_type='reverse_std'}], lr=None, relative_step=True, beta1=0.9, weight_decay=0.05, "
            "clip_threshold=0.5).step() x4 on a 12-16-4 MLP",
            ("galore_torch",), _r9b_galore_adafactor_momentum, modes=INFERENCE, notes=GALORE_NOTES,
            patterns="`_get_lr`: `min(1e-2, 1 / sqrt(step))`, "
            "`max(eps[1], state['RMS'])` (float vs 0-d tensor comparison: a tensor bool picks the scale); "
            "`if group['weight_decay'] != 0: p.add_(p, alpha=(-weight_decay * lr))` with `lr` a 0-d tensor "
            "(`alpha` converted to a Python scalar), first moment `exp_avg.mul_(beta1).add_(update, ...)`, "
            "unfactored second moment for the biases (`exp_avg_sq.rsqrt()`), `update.div_((rms / "
            "clip_threshold).clamp_(min=1.0))`; 'reverse_std' projection (`shape[0] >= shape[1]` picks left "
            "vs right SVD factors), refresh at steps 0 and 3",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round nine (r9b)")
