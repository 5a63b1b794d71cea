"""Held-out round eight, rows of helper d (prefix ``r8d``): fairscale, kymatio, nnAudio, e3nn and
pytorch-tcn.

Chosen by reading each library's source and written down in round8_d.md beside this file before
any row was run under graphmend, torch.compile or Dynamo (each row was only checked to build and
run eagerly, twice from fresh builds, with identical results). Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and inputs, nothing
downloaded); a row whose ``modes`` is one mode only says why in its ``notes``.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row

INFERENCE = ("inference",)

FAIRSCALE = ("fairscale", "0.4.13")
KYMATIO = ("kymatio", "0.3.0")
NNAUDIO = ("nnAudio", "0.3.4")
E3NN = ("e3nn", "0.6.0")
PYTORCH_TCN = ("pytorch-tcn", "1.2.3")


# --- fairscale --------------------------------------------------------------------


def _r8d_top2gate(training: bool) -> Built:
    from fairscale.nn.moe import Top2Gate

    gate = Top2Gate(model_dim=8, num_experts=4)
    # 16 tokens (capacity 2 * 16 // 4 = 8 per expert); a shared component pulls most tokens'
    # first choice onto the same experts, so the capacity masks drop some assignments.
    tokens = torch.randn(16, 8) + 1.5 * torch.randn(1, 8)
    return gate, (tokens,), {}


def _r8d_set_grads(params: list[torch.Tensor], grads: list[torch.Tensor]) -> None:
    for p, g in zip(params, grads):
        p.grad = g.clone()


def _r8d_loss_scaler_steps(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, scaler: Any, grad_sets: list[list[torch.Tensor]],
) -> tuple[list[torch.Tensor], torch.Tensor]:
    """A mixed-precision loop's tail per iteration: the (scaled) gradients arrive, then
    ``scaler.step(optimizer)`` and ``scaler.update()``; the parameters and the loss scales after."""
    scales = []
    for grads in grad_sets:
        _r8d_set_grads(list(model.parameters()), grads)
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.loss_scale)
    return [p.detach().clone() for p in model.parameters()], torch.tensor(scales)


def _r8d_dynamic_loss_scaler(training: bool) -> Built:
    from fairscale.experimental.optim.dynamic_loss_scaler import DynamicLossScaler

    model = torch.nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = DynamicLossScaler(init_scale=2.0**10, scale_window=2)
    finite = [torch.randn_like(p) * 2.0**10 for p in model.parameters()]
    overflow = [g.clone() for g in finite]
    overflow[0][1, 2] = float("inf")
    again = [torch.randn_like(p) * 2.0**9 for p in model.parameters()]
    return _r8d_loss_scaler_steps, (model, optimizer, scaler, [finite, overflow, again]), {}


def _r8d_layerwise_steps(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, scaler: Any, grad_sets: list[list[torch.Tensor]],
) -> tuple[list[torch.Tensor], torch.Tensor]:
    """LayerwiseGradientScaler's documented loop per iteration (scale(), the gradients arrive,
    unscale(), step(optimizer)); the parameters and every layer's scaling factor after."""
    for grads in grad_sets:
        scaler.scale()
        _r8d_set_grads(list(model.parameters()), grads)
        scaler.unscale()
        scaler.step(optimizer)
    factors = torch.tensor([info.scaling_factor for info in scaler.get_layer_info()])
    return [p.detach().clone() for p in model.parameters()], factors


def _r8d_layerwise_scaler(training: bool) -> Built:
    from fairscale.optim.layerwise_gradient_scaler import LayerwiseGradientScaler

    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = LayerwiseGradientScaler(model, {"0": 2.0**6, "2": 2.0**4}, growth_interval=2)
    scales = [2.0**6, 2.0**6, 2.0**4, 2.0**4]  # weight, bias of layer "0"; weight, bias of layer "2"

    def grads() -> list[torch.Tensor]:
        return [torch.randn_like(p) * s for p, s in zip(model.parameters(), scales)]

    finite1, overflow, finite2, finite3 = grads(), grads(), grads(), grads()
    overflow[2][0, 1] = float("inf")  # layer "2" weight overflows: step skipped, its factor backs off
    return _r8d_layerwise_steps, (model, optimizer, scaler, [finite1, overflow, finite2, finite3]), {}


# --- kymatio ----------------------------------------------------------------------


def _r8d_scattering1d(training: bool) -> Built:
    # `from kymatio.torch import Scattering1D` fails to import with the installed scipy
    # (kymatio.scattering3d imports scipy.special.sph_harm, removed in scipy 1.17); the
    # documented entry point with frontend='torch' imports only the 1-D torch frontend.
    from kymatio import Scattering1D

    # shape 128 (not 64): at J=3 a 64-sample support warns that it is too small to avoid border effects
    scattering = Scattering1D(J=3, shape=(128,), Q=4, frontend="torch")
    t = torch.arange(128, dtype=torch.float32)
    x = torch.sin(2 * torch.pi * t / 9.0).unsqueeze(0) + 0.3 * torch.randn(2, 128)
    return scattering, (x,), {}


# --- nnAudio ----------------------------------------------------------------------


class _StftRoundTrip(torch.nn.Module):
    """STFT of a waveform and its inverse back to the waveform's length."""

    def __init__(self, stft: torch.nn.Module, length: int) -> None:
        super().__init__()
        self.stft = stft
        self.length = length

    def forward(self, wave: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        spec = self.stft(wave)
        return spec, self.stft.inverse(spec, length=self.length)


def _r8d_stft_inverse(training: bool) -> Built:
    from nnAudio.features import STFT

    stft = STFT(n_fft=64, hop_length=16, iSTFT=True, output_format="Complex", verbose=False)
    t = torch.arange(256, dtype=torch.float32)
    wave = 0.5 * torch.sin(2 * torch.pi * 440.0 * t / 8000.0).unsqueeze(0) + 0.1 * torch.randn(2, 256)
    return _StftRoundTrip(stft, 256), (wave,), {}


# --- e3nn -------------------------------------------------------------------------


class _PointsNetwork(torch.nn.Module):
    """e3nn's gate_points_2102.Network on a batch of point clouds given as (pos, batch)."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, pos: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        return self.net({"pos": pos, "batch": batch})


def _r8d_e3nn_points_network(training: bool) -> Built:
    from e3nn import o3
    from e3nn.nn.models.gate_points_2102 import Network

    net = Network(
        irreps_in=None, irreps_hidden="4x0e + 4x0o + 2x1e + 2x1o", irreps_out="1x0e + 1x1o",
        irreps_node_attr=None, irreps_edge_attr=o3.Irreps.spherical_harmonics(2), layers=1, max_radius=1.2,
        number_of_basis=4, radial_layers=1, radial_neurons=8, num_neighbors=3.0, num_nodes=5.0,
    )
    pos = torch.rand(10, 3) * 1.5  # two clouds of 5 points in the same box: the batch test drops cross edges
    batch = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    return _PointsNetwork(net), (pos, batch), {}


# --- pytorch-tcn ------------------------------------------------------------------


class _TcnStream(torch.nn.Module):
    """Streaming (block-wise causal) inference of a TCN: reset the padding buffers, then feed
    the signal chunk by chunk through ``tcn.inference``."""

    def __init__(self, tcn: torch.nn.Module, chunk: int) -> None:
        super().__init__()
        self.tcn = tcn
        self.chunk = chunk

    def forward(self, signal: torch.Tensor) -> torch.Tensor:
        self.tcn.reset_buffers()
        outs = [self.tcn.inference(block) for block in signal.split(self.chunk, dim=-1)]
        return torch.cat(outs, dim=-1)


def _r8d_tcn_streaming(training: bool) -> Built:
    from pytorch_tcn import TCN

    tcn = TCN(num_inputs=3, num_channels=[8, 8, 6], kernel_size=3, dropout=0.1, causal=True)
    return _TcnStream(tcn, chunk=6), (torch.randn(1, 3, 18),), {}


# --- rows -------------------------------------------------------------------------

OPT_NOTES = "optimizer steps on seeded .grad tensors (gradients assigned in the call): no gradient path"


def _rows() -> list[Row]:
    return [
        Row(
            "r8d_fs_top2gate_capacity", *FAIRSCALE,
            "fairscale.nn.moe.Top2Gate(model_dim=8, num_experts=4)(tokens (16, 8))", ("fairscale",), _r8d_top2gate,
            patterns="control: `top2gating` computes `capacity = 2 * num_tokens // num_experts` from static "
            "shapes (`assert num_tokens % num_experts == 0` on ints), argmax + scatter one_hot, Gumbel noise "
            "from the global RNG (`gumbel_map` dict cache of `Gumbel(zero, one).rsample`), `masked_fill` with "
            "-inf, cumsum locations, `mask1 *= torch.lt(locations1, capacity)` capacity drop, clamp + in-place "
            "`gates1_s /= denom_s`, one_hot of locations and `combine_weights.bool()` dispatch mask: no tensor "
            "value reaches Python",
        ),
        Row(
            "r8d_fs_dynamic_loss_scaler", *FAIRSCALE,
            "fairscale.experimental.optim.dynamic_loss_scaler.DynamicLossScaler(init_scale=2**10, "
            "scale_window=2): scaler.step(SGD) + scaler.update(), 3 iterations (the 2nd overflows)",
            ("fairscale",), _r8d_dynamic_loss_scaler, modes=INFERENCE, notes=OPT_NOTES,
            patterns="`_get_gradients_norm` returns `total_norm.item()` (norm of stacked per-grad norms); "
            "`_check_overflow`: `if grad_norm == float('inf') or grad_norm != grad_norm:` on that float -> "
            "Python counters, `_decrease_loss_scale` and `raise OverflowError` caught in `step` "
            "(`return None`, optimizer step skipped on the inf iteration); otherwise `unscale_` "
            "(`param.grad.data.mul_(1 / float(loss_scale))`) and `optimizer.state_dict()` then SGD-momentum "
            "`optimizer.step()`; `update()` grows the Python scale every `scale_window` iterations",
        ),
        Row(
            "r8d_fs_layerwise_grad_scaler", *FAIRSCALE,
            "fairscale.optim.layerwise_gradient_scaler.LayerwiseGradientScaler(Linear-ReLU-Linear, "
            "{'0': 2**6, '2': 2**4}, growth_interval=2): scale(), unscale(), step(SGD), 4 iterations "
            "(the 2nd has an inf in layer '2')",
            ("fairscale",), _r8d_layerwise_scaler, modes=INFERENCE, notes=OPT_NOTES,
            patterns="`_check_for_inf_or_nan`: per layer and parameter `if torch.isinf(param.grad).any().item() or "
            "torch.isnan(param.grad).any().item():` -> `found_inf_or_nan = True; break`; `step`: "
            "`if not any(...found_inf_or_nan...)`: optimizer.step() skipped on the overflow iteration; "
            "`_update_scale` Python backoff/growth of per-layer factors; `unscale` multiplies grads of layers "
            "whose flag is clear (`param.grad.mul_(1.0 / scaling_factor)`) and `scale` registers/removes "
            "full backward hooks per layer",
        ),
        Row(
            "r8d_kymatio_scattering1d", *KYMATIO,
            "kymatio.Scattering1D(J=3, shape=(128,), Q=4, frontend='torch')(x (2, 128))", ("kymatio",),
            _r8d_scattering1d,
            patterns="control: forward runs `input_checks` (`x is None`), `_check_runtime_args` on Python config, "
            "`load_filters` re-reads the filter buffers into the Python filter dicts, then `scattering1d`: "
            "reflect pad, `rfft` (zeros + complex fft), `cdgmm` dtype/device/shape checks, "
            "`subsample_fourier` view+mean, `ifft`, `ModulusStable` (custom autograd.Function: backward "
            "`masked_fill_(output == 0, 0)`), Python loops over the first/second-order filters with "
            "`if j2 > j1` on Python ints, unpad slices, concatenate: no tensor value reaches Python",
        ),
        Row(
            "r8d_nnaudio_stft_inverse", *NNAUDIO,
            "nnAudio.features.STFT(n_fft=64, hop_length=16, iSTFT=True)(wave) then .inverse(spec, length=256)",
            ("nnAudio",), _r8d_stft_inverse,
            patterns="`STFTBase.inverse_stft`: `self.nonzero_indices = self.w_sum > 1e-10` (window sum-square "
            "from `fold`), then boolean-mask indexing and in-place masked assignment "
            "`real[:, self.nonzero_indices] = real[:, self.nonzero_indices].div(self.w_sum[self.nonzero_indices])` "
            "(data-dependent sizes: the periodic Hann window's zero end-points are left out); module "
            "attribute writes (`self.num_samples = x.shape[-1]`, `self.w_sum`, `self.nonzero_indices`) inside "
            "the call; `extend_fbins` in-place negation of a flipped slice; `real /= self.n_fft` in place",
        ),
        Row(
            "r8d_e3nn_gate_points_network", *E3NN,
            "e3nn.nn.models.gate_points_2102.Network(irreps_hidden='4x0e+4x0o+2x1e+2x1o', "
            "irreps_edge_attr=sh(2), layers=1, max_radius=1.2)({'pos': pos (10, 3), 'batch': batch})",
            ("e3nn",), _r8d_e3nn_points_network,
            patterns="`radius_graph`: `((r < r_max) & (r > 0)).nonzero().T` on a cdist (data-dependent edge "
            "count), then boolean-mask column selection `index[:, batch[index[0]] == batch[index[1]]]`; "
            "`smooth_cutoff` in-place boolean-mask writes `y[u > 0] = 0` (selects nothing after the radius test), "
            "`y[u < -1] = 1` (edges shorter than max_radius / 2); output "
            "`scatter(x, batch, dim_size=int(batch.max()) + 1)` (a size from data); edge gathers "
            "`x[edge_src]`, `scatter_add_` messages, fx-codegen TensorProducts and Gate",
        ),
        Row(
            "r8d_tcn_streaming_inference", *PYTORCH_TCN,
            "pytorch_tcn.TCN(3, [8, 8, 6], kernel_size=3, causal=True): reset_buffers(), then "
            ".inference(chunk) over 3 chunks of 6 steps",
            ("pytorch_tcn",), _r8d_tcn_streaming,
            patterns="control: streaming `TemporalPad1d.pad_inference`: raises on `not self.causal` and "
            "`x.shape[0] != 1` (shape check), `torch.cat((self.buffer, x), -1)` and `self.buffer = "
            "x[..., -self.pad_len:]` (registered-buffer reassignment: module state carried between chunks, "
            "not value-dependent); `reset_buffers` via `self.apply` -> `self.buffer.zero_()` and a buffer "
            "shape check; weight-normed convs, dropout from the global RNG: no tensor value reaches Python",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
