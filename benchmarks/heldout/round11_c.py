"""Held-out round eleven (r11c): snntorch and neurodiffeq.

Chosen by reading each library's source, written down in ROUND11.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The snntorch rows are small spiking networks run over 5-7 time steps (widths
4-8, batches 2-3), as the library's tutorials write them: a user module whose
forward loops over time and calls the neuron layers, with the hidden states
reset at the start of every call through each layer's own ``reset_mem()`` (so a
second call on the same module starts from the same state; ``snntorch.utils.reset``
is not used, because it walks the class-level ``SpikingNeuron.instances`` list,
which holds every neuron any build ever made).  They cover reset-to-zero with
``reset_delay=False`` (the reset branch tests a tensor buffer every step),
winner-take-all inhibition (argmax and an index write), ``init_hidden`` layers
with ``output=True``, learnable thresholds and graded spikes, recurrent
``RLeaky``, the triangular surrogate (a boolean-mask write in its backward),
latency coding whose number of steps comes from the data (``bypass=True``), and
the ``snntorch.functional`` losses and accuracy (a per-element index loop in a
custom backward, boolean-mask writes, ``.numpy()``).  One control uses only
``Synaptic`` and ``Leaky`` with their default reset (no tensor value reaches
Python).

The neurodiffeq rows solve u' + u = 0 (an IVP) or the oscillator system u' = v,
v' = -u with 8-by-8 ``FCNN`` networks (tanh or ``SinActv``) on at most 12
points: the validation epoch of a ``Solver1D`` on a ``FilterGenerator`` (a
boolean mask and a size from the data, ``.item()`` of the loss and the metric,
the best-net test with ``deepcopy``), one training epoch (one Adam step, its
own ``backward`` and an ``h1`` loss), ``Solver1D.get_residuals`` (the
residuals through ``neurodiffeq.diff``'s ``autograd.grad``), and a control that
only enforces an IVP on a network's output.  ``diff`` needs autograd even at
inference, so those rows run in one mode (see their notes).

Importing neurodiffeq changes the process: its ``__init__`` calls
``set_tensor_type(float_bits=64)``, i.e. ``torch.set_default_dtype(torch.float64)``
and ``torch.set_default_device("cpu")`` (a global ``DeviceContext`` torch-function
mode that every later torch call passes through), and
``warnings.simplefilter('always', FutureWarning)``.  The builders import it before
making any tensor, so every neurodiffeq row runs in float64 under that mode, as a
neurodiffeq user's code does; the state is left as the library leaves it.  A
snntorch row run in the same process after a neurodiffeq import fails (its
surrogates return ``(x > 0).float()`` spikes into float64 layers), so the rows
are meant to run one process per row, as ``bench_ecosystem`` runs them.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)
TRAINING = ("training",)

SNNTORCH = ("snntorch", "1.0.0")
NEURODIFFEQ = ("neurodiffeq", "0.7.0")


# --- snntorch helpers ----------------------------------------------------------------


class _R11cLeakyNet(nn.Module):
    """Two fully connected Leaky layers over time: reset to zero without delay in
    the hidden layer (learned threshold), winner-take-all inhibition and learned
    graded spikes in the output layer."""

    def __init__(self) -> None:
        super().__init__()
        import snntorch as snn

        self.fc1 = nn.Linear(6, 8)
        self.lif1 = snn.Leaky(beta=0.85, threshold=0.6, learn_threshold=True, reset_mechanism="zero",
                              reset_delay=False)
        self.fc2 = nn.Linear(8, 4)
        self.lif2 = snn.Leaky(beta=0.9, threshold=0.5, inhibition=True, reset_delay=False,
                              graded_spikes_factor=0.5, learn_graded_spikes_factor=True)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mem1 = self.lif1.reset_mem()
        mem2 = self.lif2.reset_mem()
        spikes, mems = [], []
        for step in range(x.size(0)):
            spk1, mem1 = self.lif1(self.fc1(x[step]), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spikes.append(spk2)
            mems.append(mem2)
        return torch.stack(spikes), torch.stack(mems)


class _R11cHiddenNet(nn.Module):
    """``init_hidden`` layers: Synaptic (``output=True``, triangular surrogate)
    then Alpha (returns spikes only); the states live on the layers."""

    def __init__(self) -> None:
        super().__init__()
        import snntorch as snn
        from snntorch import surrogate

        self.fc1 = nn.Linear(5, 6)
        self.syn1 = snn.Synaptic(alpha=0.8, beta=0.7, threshold=0.8, init_hidden=True, output=True,
                                 spike_grad=surrogate.triangular())
        self.fc2 = nn.Linear(6, 4)
        self.alpha2 = snn.Alpha(alpha=0.9, beta=0.8, threshold=0.1, init_hidden=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.syn1.reset_mem()
        self.alpha2.reset_mem()
        spikes = []
        for step in range(x.size(0)):
            spk1, _syn1, _mem1 = self.syn1(self.fc1(x[step]))
            spikes.append(self.alpha2(self.fc2(spk1)))
        return torch.stack(spikes)


class _R11cRecurrentNet(nn.Module):
    """A recurrent (all-to-all) RLeaky hidden layer and a Leaky output layer."""

    def __init__(self) -> None:
        super().__init__()
        import snntorch as snn

        self.fc1 = nn.Linear(5, 6)
        self.rlif1 = snn.RLeaky(beta=0.8, linear_features=6, threshold=0.7)
        self.fc2 = nn.Linear(6, 3)
        self.lif2 = snn.Leaky(beta=0.9, threshold=0.4)

    def forward(self, spk_in: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        spk1, mem1 = self.rlif1.reset_mem()
        mem2 = self.lif2.reset_mem()
        spikes, mems = [], []
        for step in range(spk_in.size(0)):
            spk1, mem1 = self.rlif1(self.fc1(spk_in[step]), spk1, mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spikes.append(spk2)
            mems.append(mem2)
        return torch.stack(spikes), torch.stack(mems)


class _R11cSynapticNet(nn.Module):
    """Synaptic then Leaky with explicit states and the default reset by
    subtraction (one step delayed): the control."""

    def __init__(self) -> None:
        super().__init__()
        import snntorch as snn
        from snntorch import surrogate

        self.fc1 = nn.Linear(6, 8)
        self.syn1 = snn.Synaptic(alpha=0.9, beta=0.8, spike_grad=surrogate.fast_sigmoid(slope=25))
        self.fc2 = nn.Linear(8, 4)
        self.lif2 = snn.Leaky(beta=0.9, threshold=0.5, spike_grad=surrogate.sigmoid(slope=10))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        syn1, mem1 = self.syn1.reset_mem()
        mem2 = self.lif2.reset_mem()
        spikes, mems = [], []
        for step in range(x.size(0)):
            spk1, syn1, mem1 = self.syn1(self.fc1(x[step]), syn1, mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spikes.append(spk2)
            mems.append(mem2)
        return torch.stack(spikes), torch.stack(mems)


def _r11c_temporal_loss_step(net: nn.Module, x: torch.Tensor,
                             target_times: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The network's output spikes and ``mse_temporal_loss`` on their first spike
    times (targets given as times, -1 meaning the last step, tolerance 1)."""
    import snntorch.functional as SF

    spk_rec = net(x)
    loss = SF.mse_temporal_loss(target_is_time=True, tolerance=1)(spk_rec, target_times)
    return loss, spk_rec


def _r11c_latency_step(net: nn.Module, data: torch.Tensor,
                       targets: torch.Tensor) -> tuple[torch.Tensor, float, torch.Tensor, torch.Tensor]:
    """Latency-code the data (the number of steps is the last spike time, from the
    data), run the network over those steps, and score it with the rate
    cross-entropy and the rate accuracy."""
    import snntorch.functional as SF
    from snntorch import spikegen

    spk_in = spikegen.latency(data, threshold=0.5, tau=2, bypass=True, clip=True)
    spk_rec, mem_rec = net(spk_in)
    loss = SF.ce_rate_loss()(spk_rec, targets)
    accuracy = SF.accuracy_rate(spk_rec, targets)
    return loss, float(accuracy), spk_rec, mem_rec


def _r11c_snn_leaky_zero_inhibition(training: bool) -> Built:
    return _R11cLeakyNet(), (torch.randn(7, 3, 6) * 1.5,), {}


def _r11c_snn_hidden_temporal_loss(training: bool) -> Built:
    target_times = torch.tensor([[1.0, -1.0, 3.0, -1.0], [-1.0, 2.0, -1.0, 0.0]])
    return _r11c_temporal_loss_step, (_R11cHiddenNet(), torch.randn(6, 2, 5) * 2.0, target_times), {}


def _r11c_snn_latency_recurrent(training: bool) -> Built:
    data = 0.55 + 0.45 * torch.rand(3, 5)  # all above the latency threshold 0.5
    return _r11c_latency_step, (_R11cRecurrentNet(), data, torch.tensor([0, 2, 1])), {}


def _r11c_snn_synaptic_control(training: bool) -> Built:
    return _R11cSynapticNet(), (torch.randn(5, 3, 6) * 1.5,), {}


# --- neurodiffeq helpers --------------------------------------------------------------


def _r11c_decay(u: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
    """The residual of u' + u = 0."""
    from neurodiffeq import diff

    return [diff(u, t) + u]


def _r11c_oscillator(u: torch.Tensor, v: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
    """The residuals of u' = v, v' = -u."""
    from neurodiffeq import diff

    return [diff(u, t) - v, diff(v, t) + u]


def _r11c_decay_mse(u: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return ((u - torch.exp(-t)) ** 2).mean()


def _r11c_fcnn(sin: bool = False) -> nn.Module:
    from neurodiffeq.networks import FCNN, SinActv

    return FCNN(n_input_units=1, n_output_units=1, hidden_units=(8, 8), actv=SinActv if sin else nn.Tanh)


def _r11c_keep_points(xs: list[torch.Tensor]) -> torch.Tensor:
    """FilterGenerator's filter: drop the noisy points below t = 0.25."""
    return xs[0] >= 0.25


def _r11c_valid_epoch(solver: Any) -> tuple[float, float, float, int]:
    """One validation epoch of the solver, as ``fit`` runs it after each training
    epoch; the residuals need autograd, so it runs under enable_grad."""
    with torch.enable_grad():
        solver.run_valid_epoch()
    history = solver.metrics_history
    return history["valid_loss"][-1], history["valid__mse"][-1], solver.lowest_loss, \
        solver.generator["valid"].generator.size


def _r11c_train_epoch(solver: Any) -> tuple[float, float, list[torch.Tensor]]:
    """One training epoch of the solver (one batch, one Adam step); it runs its
    own backward, so it runs under enable_grad.  The loss, the best loss and the
    updated parameters."""
    with torch.enable_grad():
        solver.run_train_epoch()
    params = [p.detach().clone() for net in solver.nets for p in net.parameters()]
    return solver.metrics_history["train_loss"][-1], solver.lowest_loss, params


def _r11c_nde_valid_epoch_filtered(training: bool) -> Built:
    from neurodiffeq.conditions import IVP
    from neurodiffeq.generators import FilterGenerator, Generator1D
    from neurodiffeq.solvers import Solver1D

    solver = Solver1D(
        ode_system=_r11c_decay, conditions=[IVP(t_0=0.0, u_0=1.0)], nets=[_r11c_fcnn()],
        train_generator=Generator1D(8, t_min=0.0, t_max=2.0, method="equally-spaced"),
        valid_generator=FilterGenerator(
            Generator1D(12, t_min=0.0, t_max=2.0, method="equally-spaced-noisy", noise_std=0.2),
            filter_fn=_r11c_keep_points,
        ),
        n_batches_valid=2, metrics={"mse": _r11c_decay_mse},
    )
    return _r11c_valid_epoch, (solver,), {}


def _r11c_nde_train_epoch_h1(training: bool) -> Built:
    from neurodiffeq.conditions import IVP
    from neurodiffeq.generators import Generator1D
    from neurodiffeq.solvers import Solver1D

    solver = Solver1D(
        ode_system=_r11c_decay, conditions=[IVP(t_0=0.0, u_0=1.0)], nets=[_r11c_fcnn(sin=True)],
        train_generator=Generator1D(10, t_min=0.0, t_max=2.0, method="uniform"),
        valid_generator=Generator1D(10, t_min=0.0, t_max=2.0, method="equally-spaced"),
        loss_fn="h1", n_batches_train=1, n_batches_valid=0,
    )
    return _r11c_train_epoch, (solver,), {}


def _r11c_nde_residuals_oscillator(training: bool) -> Built:
    from neurodiffeq.conditions import IVP
    from neurodiffeq.solvers import Solver1D

    solver = Solver1D(
        ode_system=_r11c_oscillator, conditions=[IVP(t_0=0.0, u_0=1.0), IVP(t_0=0.0, u_0=0.0)],
        nets=[_r11c_fcnn(), _r11c_fcnn(sin=True)], t_min=0.0, t_max=3.0,
    )
    return solver.get_residuals, (torch.rand(2, 5) * 3.0,), {"best": False}


def _r11c_nde_ivp_control(training: bool) -> Built:
    from neurodiffeq.conditions import IVP

    condition = IVP(t_0=0.0, u_0=1.0, u_0_prime=0.5)
    return condition.enforce, (_r11c_fcnn(sin=True), torch.rand(9, 1) * 2.0), {}


# --- rows -------------------------------------------------------------------------

LEAKY_FORWARD = (
    "`Leaky.forward` per step (_neurons/leaky.py:196-236): `if not mem == None` (a tensor compared with None), "
    "`self.mem = mem` (a buffer reassigned in forward), `if not self.mem.shape == input_.shape` (zeros on the "
    "first step), `self.reset = self.mem_reset(self.mem)` (neurons.py: `spike_grad(mem - threshold).clone()"
    ".detach()`), the state function chosen at construction from the `reset_mechanism_val` buffer "
    "(`beta.clamp(0, 1) * mem + input_` minus the reset), `fire` (`spike_grad(mem - threshold) * "
    "graded_spikes_factor`), the ATan surrogate `torch.autograd.Function` (surrogate.py:156-213: `(input_ > "
    "0).float()` forward, `alpha / 2 / (1 + (pi / 2 * alpha * input_).pow_(2)) * grad` backward)"
)
NDE_SOLUTION = (
    "`BaseSolution.__call__` (solvers.py:682-720: `torch.tensor(c)` unless already a tensor, `reshape(-1, 1)`, "
    "`isinstance(to_numpy, str)`) and `IVP.enforce` (conditions.py:41-57, 249-274: `net(torch.cat(coordinates, "
    "dim=1))`, `if self.ith_unit is not None`, `callable(self.u_0)`, `u_0 + (1 - torch.exp(-t + t_0)) * out`) "
    "per function; `FCNN` (networks.py:68-70) a Sequential of Linear and Tanh or `SinActv`"
)
NDE_IMPORT = (
    "importing neurodiffeq (in the builder, before any tensor is made) sets the default dtype to float64 and "
    "calls torch.set_default_device('cpu'), which leaves a global DeviceContext torch-function mode active: the "
    "row runs in float64 under it"
)
NDE_DIFF = (
    "`neurodiffeq.diff` (neurodiffeq.py:6-82: the `deprecated_alias` wrapper's `_rename_kwargs`, `safe_diff`'s "
    "shape tests and raises, `unsafe_diff`: `autograd.grad(u, t, create_graph=True, grad_outputs=ones_like(u), "
    "allow_unused=True)`, `if der is None:` then `der.requires_grad_()`)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r11c_snn_leaky_zero_nodelay_inhibition", *SNNTORCH,
            "a two-layer snntorch.Leaky network (Linear(6, 8), Leaky(beta=0.85, threshold=0.6, "
            "learn_threshold=True, reset_mechanism='zero', reset_delay=False), Linear(8, 4), Leaky(beta=0.9, "
            "threshold=0.5, inhibition=True, reset_delay=False, graded_spikes_factor=0.5, "
            "learn_graded_spikes_factor=True)) over 7 steps, x (7, 3, 6)",
            ("snntorch",), _r11c_snn_leaky_zero_inhibition,
            patterns="the row's forward: `reset_mem()` of each layer, then per step (7) " + LEAKY_FORWARD +
            "; with `reset_delay=False` every step runs `do_reset = spk / self.graded_spikes_factor - "
            "self.reset` and `if self.reset_mechanism_val == 0:` / `elif self.reset_mechanism_val == 1:` (a "
            "0-d tensor buffer compared in a Python `if`, leaky.py:222-229: subtract in the output layer, zero "
            "in the hidden layer), the zero reset's `_base_zero` reassigning `self.mem` inside the state "
            "function; the output layer's `fire_inhibition` (neurons.py: `torch.argmax(mem_shift, dim=1)`, "
            "`mask_spk1[torch.arange(batch_size), index] = 1`, an index write from data); the learned threshold "
            "and graded-spike factor are parameters",
        ),
        Row(
            "r11c_snn_init_hidden_temporal_loss", *SNNTORCH,
            "snntorch.functional.mse_temporal_loss(target_is_time=True, tolerance=1)(spikes, target_times) on a "
            "network of init_hidden layers (Linear(5, 6), Synaptic(alpha=0.8, beta=0.7, threshold=0.8, "
            "init_hidden=True, output=True, spike_grad=surrogate.triangular()), Linear(6, 4), Alpha(alpha=0.9, "
            "beta=0.8, threshold=0.1, init_hidden=True)) over 6 steps, x (6, 2, 5), target times (2, 4) with "
            "four -1 entries; returns (loss, spikes)",
            ("snntorch",), _r11c_snn_hidden_temporal_loss, frozen=("2",), loss=lambda out: out[0],
            notes="target_times is frozen: `SpikeTime.forward` writes into it in place "
            "(`targets[targets < 0] = ...`), which a leaf that requires grad refuses; the loss is the first "
            "output (the spikes are returned for comparison)",
            patterns="per step (6) `Synaptic.forward` (_neurons/synaptic.py:216-264: `not syn == None`, the "
            "`init_hidden and (...)` raise guard, shape tests, `mem_reset`, `_base_sub`, returns (spk, syn, mem) "
            "for `output=True`) and `Alpha.forward` (alpha.py:155-200: three state buffers, `_base_zero` with "
            "in-place `-=` on the new states, `tau_alpha` from logs of the clamped buffers, returns spk only for "
            "`init_hidden`); the triangular surrogate's backward (surrogate.py:84-90: `grad[input_ >= 0] = "
            "-grad[input_ >= 0]`, a boolean-mask write); `mse_temporal_loss.__call__` (functional/loss.py:"
            "799-812) -> `SpikeTime.forward` (:460-488): `targets[targets < 0] = spk_out.size(0) + "
            "targets[targets < 0]` (boolean-mask read and write), `FirstSpike.apply` (:502-546: an autograd "
            "Function whose forward masks later spikes with `~first_spike_time.bool()` per step and whose "
            "backward loops over batch x outputs (8) writing `spk_time_grad[first_spike_time[i, j].long(), i, j] "
            "= 1.0`, an index read from a tensor element), `Tolerance.apply` (:619-637: "
            "`spk_time_clone[torch.abs(spk_time - target) < tolerance] = (...)[mask]`), `MSELoss` on times / "
            "num_steps",
        ),
        Row(
            "r11c_snn_latency_bypass_rleaky_ce_rate", *SNNTORCH,
            "snntorch.spikegen.latency(data (3, 5) in [0.55, 1], threshold=0.5, tau=2, bypass=True, clip=True) "
            "into a network (Linear(5, 6), RLeaky(beta=0.8, linear_features=6, threshold=0.7), Linear(6, 3), "
            "Leaky(beta=0.9, threshold=0.4)) over the coded steps, then functional.ce_rate_loss()(spikes, "
            "targets) and functional.accuracy_rate(spikes, targets); returns (loss, accuracy, spikes, membranes)",
            ("snntorch",), _r11c_snn_latency_recurrent, frozen=("1",),
            notes="the data is frozen: latency coding scatters constant ones at rounded spike times, so no "
            "gradient reaches it (the network's parameters get gradients through the surrogates)",
            patterns="`spikegen.latency` (spikegen.py:154-330): `if torch.min(data) < 0 or torch.max(data) > "
            "1: raise` (tensor tests), `latency_code` (`idx = data < threshold`, `_latency_errors`, "
            "`latency_code_log`: `clamp`, `tau * torch.log(data / (data - threshold))`), then with `bypass=True` "
            "`num_steps = int(torch.round(torch.max(spike_time)).long() + 1)` (the number of time steps from the "
            "data) and `if num_steps <= 0: raise`, `torch.zeros((num_steps, 3, 5))`, `rm_idx = "
            "torch.round(spike_time).long() > num_steps - 1`, `scatter` of the rounded spike times, `* ~rm_idx`, "
            "`clip`'s `* ~idx`; the row's forward loops over `spk_in.size(0)` steps (a loop count from the data): "
            "`RLeaky.forward` (_neurons/rleaky.py:310-358: explicit spk/mem states, `self.recurrent(self.spk)` "
            "an all-to-all Linear, `self.spk = self.fire(...)`) and " + LEAKY_FORWARD + "; `ce_rate_loss` "
            "(functional/loss.py:71-128: `nn.LogSoftmax`, `nn.NLLLoss` built in the call, `loss += ...` per step "
            "into a `torch.zeros(1)`); `accuracy_rate` (functional/acc.py:5-27: `spk_out.sum(dim=0).max(1)`, "
            "`np.mean((targets == idx).detach().cpu().numpy())`, a numpy float)",
        ),
        Row(
            "r11c_snn_synaptic_leaky_control", *SNNTORCH,
            "a two-layer network (Linear(6, 8), snntorch.Synaptic(alpha=0.9, beta=0.8, "
            "spike_grad=surrogate.fast_sigmoid(slope=25)), Linear(8, 4), Leaky(beta=0.9, threshold=0.5, "
            "spike_grad=surrogate.sigmoid(slope=10))) with explicit states over 5 steps, x (5, 3, 6)",
            ("snntorch",), _r11c_snn_synaptic_control,
            patterns="control: no tensor value reaches Python. Per step (5) `Synaptic.forward` "
            "(_neurons/synaptic.py:216-264, default reset by subtraction with `reset_delay=True`: `not syn == "
            "None` / `not mem == None` (tensors compared with None), buffers reassigned, shape tests, "
            "`mem_reset`, `_base_sub`) and " + LEAKY_FORWARD.replace("the ATan surrogate", "surrogate") +
            "; fast-sigmoid and sigmoid surrogate `autograd.Function`s (surrogate.py:104-153, 263-320: "
            "`ctx.slope` saved on the context, `(input_ > 0).float()` forward)",
        ),
        Row(
            "r11c_nde_solver_valid_epoch_filtered", *NEURODIFFEQ,
            "neurodiffeq.solvers.Solver1D(u' + u = 0, [IVP(t_0=0, u_0=1)], nets=[FCNN(hidden_units=(8, 8))], "
            "valid_generator=FilterGenerator(Generator1D(12, 0, 2, method='equally-spaced-noisy', "
            "noise_std=0.2), filter_fn=t >= 0.25), n_batches_valid=2, metrics={'mse': vs exp(-t)})"
            ".run_valid_epoch() under torch.enable_grad(); returns (valid loss, valid mse, lowest loss, "
            "points kept)",
            ("neurodiffeq",), _r11c_nde_valid_epoch_filtered, modes=INFERENCE,
            notes="inference only: the residual needs `autograd.grad` of the network output, which under "
            "torch.no_grad raises (the output has no grad_fn), so the row's function runs the epoch under "
            "`torch.enable_grad()`, as `Solver1D.fit` runs it (outside no_grad); the epoch returns nothing and "
            "the row returns the Python floats it recorded (no gradient path); " + NDE_IMPORT,
            patterns="`BaseSolver._run_epoch('valid')` (solvers.py:343-424): `if self.n_batches[key] <= 0`, "
            "per batch (2) `_generate_batch` -> `SamplerGenerator.get_examples` (generators.py:1046-1057) -> "
            "`FilterGenerator.get_examples` (:933-944): `Generator1D`'s `torch.normal(mean=examples, std=0.2)` "
            "(global RNG), `mask = filter_fn(xs)`, `x[mask]` (a boolean mask: a size from the data), "
            "`self.size = len(xs[0])` (a data-dependent size stored on the generator), then `reshape(-1, 1)`; "
            "the closure: " + NDE_SOLUTION + "; `self.metrics_fn[name](*funcs, *batch).item()`, the ODE "
            "through " + NDE_DIFF + ", `torch.cat(residuals, dim=1)`, the default l2 loss `(r ** 2).mean()` + "
            "`additional_loss` (0.0) in a `try/except TypeError` that warns, `epoch_loss += "
            "closure().item()`; `_update_history` (dict appends, `elif metric_type in self.metrics_fn`); "
            "`_update_best` (:434-441): `if (self.lowest_loss is None) or current_loss < self.lowest_loss:` "
            "then `deepcopy(self.nets)`",
        ),
        Row(
            "r11c_nde_solver_train_epoch_h1", *NEURODIFFEQ,
            "neurodiffeq.solvers.Solver1D(u' + u = 0, [IVP(t_0=0, u_0=1)], nets=[FCNN(hidden_units=(8, 8), "
            "actv=SinActv)], train_generator=Generator1D(10, 0, 2, method='uniform'), loss_fn='h1', "
            "n_batches_train=1, n_batches_valid=0).run_train_epoch() under torch.enable_grad(); returns (train "
            "loss, lowest loss, updated parameters)",
            ("neurodiffeq",), _r11c_nde_train_epoch_h1, modes=INFERENCE,
            notes="inference only: one training epoch runs its own `loss.backward()` and an Adam step inside "
            "the call (and under torch.no_grad the residual's `autograd.grad` raises), so the row's function "
            "runs it under `torch.enable_grad()`, as round10_a's optimizer row did, and returns the loss and "
            "the updated parameters; " + NDE_IMPORT,
            patterns="`BaseSolver._run_epoch('train')` (solvers.py:343-424): `_requires_closure(self.optimizer)` "
            "(`inspect.signature(optimizer.step)`, solvers.py:29-32), `optimizer.zero_grad()`, one batch from "
            "`Generator1D` 'uniform' (`examples + torch.rand(10) * 2`, global RNG), the closure: " +
            NDE_SOLUTION + "; the ODE through " + NDE_DIFF + "; the `h1` loss (losses.py:17-20: "
            "`operators.grad(residual, t)`, a second `autograd.grad(..., create_graph=True)` with `if g is "
            "None:` per input, `torch.cat([residual, *g])`) in the `try/except TypeError`, `loss.backward()` "
            "and `batch_loss = loss.item()` inside the call; `_update_history`; `if key == 'valid' or "
            "self.n_batches['valid'] == 0:` -> `_update_best('train')` (`current_loss < self.lowest_loss`, "
            "`deepcopy(self.nets)`); `self.optimizer.step()` (Adam)",
        ),
        Row(
            "r11c_nde_get_residuals_oscillator", *NEURODIFFEQ,
            "neurodiffeq.solvers.Solver1D(u' = v, v' = -u, [IVP(0, 1), IVP(0, 0)], nets=[FCNN(hidden_units="
            "(8, 8)), FCNN(hidden_units=(8, 8), actv=SinActv)], t_min=0, t_max=3).get_residuals(ts (2, 5), "
            "best=False)",
            ("neurodiffeq",), _r11c_nde_residuals_oscillator, modes=TRAINING,
            notes="training only: the residuals are derivatives of the network outputs by `autograd.grad`, "
            "which under torch.no_grad raises (the outputs have no grad_fn); in training the points require "
            "grad and the backward runs through the double-backward graph `create_graph=True` builds; " + NDE_IMPORT,
            patterns="`BaseSolver.get_residuals` (solvers.py:606-646): `torch.tensor(c)` unless a tensor, "
            "`c.reshape(-1, 1).requires_grad_()` (on a tensor that already requires grad), `get_solution(copy="
            "False, best=False)` (`Solution1D(self.nets, self.conditions)`, solvers.py:1144-1160, "
            "`BaseSolution.__init__`'s `isinstance(nets, nn.Module)`), then " + NDE_SOLUTION + " for both "
            "functions, `isinstance(funcs, torch.Tensor)`, the system's two residuals each through " + NDE_DIFF +
            ", `r.reshape(*original_shape)`, `residuals if len(residuals) > 1 else residuals[0]`",
        ),
        Row(
            "r11c_nde_ivp_enforce_control", *NEURODIFFEQ,
            "neurodiffeq.conditions.IVP(t_0=0, u_0=1, u_0_prime=0.5).enforce(FCNN(hidden_units=(8, 8), "
            "actv=SinActv), t (9, 1))",
            ("neurodiffeq",), _r11c_nde_ivp_control, notes=NDE_IMPORT,
            patterns="control: no tensor value reaches Python and no derivative is taken. `BaseCondition.enforce` "
            "(conditions.py:41-57): `net(torch.cat(coordinates, dim=1))`, `if self.ith_unit is not None`; "
            "`IVP.parameterize` (:249-274): `callable(self.u_0)`, `if self.u_0_prime is None` (no: the "
            "second-order form `u_0 + (t - t_0) * u_0_prime + (1 - torch.exp(-t + t_0)) ** 2 * out`); `FCNN` "
            "(networks.py:68-70) with `SinActv` (`torch.sin`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round eleven (c)")
