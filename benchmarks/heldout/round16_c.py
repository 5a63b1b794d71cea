"""Held-out round sixteen (r16c): gluonts (torch side) and deepxde (PyTorch backend).

Chosen by reading each library's source, written down in ROUND16.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk by the rows); a row whose
``modes`` is one mode only says why in its ``notes``.

The gluonts rows build ``gluonts.torch`` modules and distribution heads directly
from their constructors and hand them tensors of the right shapes (no
estimator, no Lightning trainer, no pandas/time-feature pipeline).  The
data-dependent code: the binned distributions (distributions/binned_uniforms.py:
224-249, ``icdf``'s ``assert (quantiles >= 0.0).all()`` and ``<= 1.0``, tensors
in a Python ``assert``; :258-315 and :329-396, boolean-mask reads
``upper_edges[one_hot_bin_indicator].view(...)``, whose sizes come from the data,
and the mask setitems ``one_hot_bin_indicator[..., -1][higher_than_last] = True``
and :216-217 ``[..., -1][is_higher_than_last_edge] = 1``; :398-415, a sampling
loop with index setitems) under the spliced binned-Pareto head
(distributions/spliced_binned_pareto.py:103-176, 188-228, 230-273) and its
generalized Pareto tails (distributions/generalized_pareto.py:48-70: ``if
self._validate_args and not torch.lt(-self.beta, ...).all(): raise``); DeepNPTS'
discrete distribution (distributions/discrete_distribution.py:114-155: ``if
check_for_duplicates and torch.sum(torch.diff(values_sorted) == 0) > 0:``, then
per series ``if torch.sum(...) == 0`` (:72), ``torch.unique_consecutive(...,
return_counts=True)`` and ``torch.split(probs_sorted, list(counts))`` (:76-82),
split sizes read from the data); the truncated normal
(distributions/truncated_normal.py:116-123: ``if any((self.a >= self.b).view(-1)
.tolist()): raise``; :202-213 ``sample.data.copy_(sample_clip)``); DeepAR's loss
and sampling loop through torch.distributions, whose argument and sample
validation (torch/distributions/distribution.py:76 and :323, ``if not
torch._is_all_true(valid): raise ValueError``) tests a tensor in a Python ``if``
at every distribution built; warnings raised inside the calls
(deep_npts/_network.py:192 ``torch.tensor(feat_static_real)`` copy-construct
UserWarning; torch.distributions' "does not define `arg_constraints`/`support`"
UserWarnings for ``DiscreteDistribution``; util.py:205 ``a[idx]`` with a list
index, torch's "non-tuple sequence for multidimensional indexing is deprecated"
UserWarning).  The control is ``DLinearModel.loss`` with a ``QuantileOutput``
(mean scaler, series decomposition, linear heads, pinball loss: no tensor value
reaches Python).

The deepxde rows build a ``dde.Model`` on a ``dde.data.PDE`` (an ``Interval``
geometry, points on a uniform grid, so the numpy sampling is deterministic and
happens in the builder) or a network alone, with deepxde's initializers drawn
from torch's seeded generator.  The data-dependent code: deepxde's cached
autodiff (gradients/jacobian.py:64-136 and gradients/gradients_reverse.py:10-158:
``Jacobians``/``Hessians`` keep module-level dicts keyed by ``(ys, xs)`` tensor
tuples, so tensors are hashed and compared as dict keys, and ``JacobianReverse``
caches ``torch.autograd.grad(..., create_graph=True)`` rows in ``self.J``;
``grad.clear()`` resets the dicts), deepxde's ``Model`` loss closure
(model.py:319-351: ``torch.as_tensor(inputs)``, ``inputs.requires_grad_()`` on
the caller's tensor, ``self.net.train(mode=training)`` inside the call,
``torch.stack(losses)``, ``losses *= torch.as_tensor(self.loss_weights)``), the
PDE data's loss assembly (data/pde.py:138-195: ``get_num_args(self.pde)`` through
``inspect.signature`` on every call, ``np.cumsum`` of the boundary counts) and the
boundary conditions (icbc/boundary_conditions.py:74-93: numpy boundary values and
normals converted with ``torch.as_tensor`` and cached in a closure dict keyed by
``(id(X), beg, end)``, :410-414), and deepxde's NNCG optimizer
(optimizers/pytorch/nncg.py: the Nystrom sketch from ``torch.randn``, a ``try``
Cholesky ``except LinAlgError`` eigen-shift, ``torch.func.vmap`` over Hessian-vector
products, the preconditioned CG ``while torch.norm(resid) > tol and i <
max_iters:`` (:42) and ``if torch.norm(resid) > tol: print(...)`` (:57-61), ``if
torch.dot(d, g) <= 0: print(...)`` (:195), the Armijo line search ``while f1 > f0
+ alpha * t * gx.dot(dx):`` (:12) on ``float(closure())`` (:203), and ``p.data``
writes).  The control is ``DeepONetCartesianProd`` with the "split_branch"
multi-output strategy and ``mean_l2_relative_error`` (shape arithmetic only).

Global state on import.  ``import gluonts.torch`` (and every ``gluonts.torch``
model or distribution module) imports lightning 2.6.6, torchmetrics,
transformers, pandas, scipy, sklearn, matplotlib and, through lightning,
``torch._dynamo`` and ``torch._inductor`` (about 110 modules); it adds ten
warning filters (sympy, FSDP, LightningDeprecationWarning, an ``ignore`` for
UserWarnings from ``torch.optim.lr_scheduler``, numpy matrix, scipy, urllib3,
requests), gives the ``lightning``, ``lightning.pytorch``, ``lightning.fabric``
and ``torchmetrics`` loggers level INFO with a stderr handler (``propagate=False``
on the pytorch and fabric ones) and ``transformers``/``huggingface_hub`` WARNING
with a handler, and warns once (gluonts/json.py:102, "Using `json`-module").
``import deepxde`` selects its backend from ``DDE_BACKEND`` (then ``DDEBACKEND``,
then ``~/.deepxde/config.json``; with none of them it prints "No backend
selected" to stderr, picks the first importable of tensorflow,
tensorflow.compat.v1, pytorch, jax, paddle, writes ``~/.deepxde/config.json`` and
prints "Setting the default backend ..." to stdout), always prints "Using
backend: pytorch ..." to stderr, calls ``torch.set_default_device("cuda")`` when
CUDA is available (``"mps"`` on Apple GPUs, after ``torch._dynamo.disable()``),
imports matplotlib.pyplot (which may build its font cache under ``~/.cache``),
scipy, sklearn and scikit-optimize, and adds two warning filters (scipy,
numpy matrix).  Neither changes the default dtype, grad mode, threads,
torch-function modes, deterministic flag, matmul precision, print options or
anomaly mode on this CPU machine.  The deepxde builders call
``os.environ.setdefault("DDE_BACKEND", "pytorch")`` before importing deepxde,
so no config file is read or written for them.
"""

from __future__ import annotations

import os
from typing import Any

import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)
TRAINING = ("training",)

GLUONTS = ("gluonts", "0.17.0")
DEEPXDE = ("deepxde", "1.15.0")


# --- gluonts ---------------------------------------------------------------------------


class _R16cSplicedParetoHead(nn.Module):
    """h (B, T, 8) -> SplicedBinnedParetoOutput's argument projection -> the spliced
    binned-Pareto distribution; returns (mean NLL, NLL (B, T), two samples (2, B, T),
    PIT values cdf(y) (B, T), detached: the cdf's backward is NaN, see notes)."""

    def __init__(self) -> None:
        super().__init__()
        from gluonts.torch.distributions import SplicedBinnedParetoOutput

        self.distr_output = SplicedBinnedParetoOutput(
            bins_lower_bound=-3.0, bins_upper_bound=3.0, num_bins=12, tail_percentile_gen_pareto=0.1
        )
        self.proj = self.distr_output.get_args_proj(8)

    def forward(self, h: torch.Tensor, y: torch.Tensor) -> tuple[Any, ...]:
        distr = self.distr_output.distribution(self.proj(h))
        nll = -distr.log_prob(y)
        samples = distr.sample(torch.Size((2,)))
        pit = distr.cdf(y).detach()
        return nll.mean(), nll, samples, pit


def _r16c_gluonts_spliced_pareto(training: bool) -> Built:
    head = _R16cSplicedParetoHead()
    return head, (torch.randn(4, 5, 8), 2.0 * torch.randn(4, 5)), {}


class _R16cDeepNPTSStep(nn.Module):
    """DeepNPTS' training loss as DeepNPTSEstimator.train_model writes it
    (deep_npts/_estimator.py:375-382): distribution = net(**x); scale =
    LOSS_SCALING_MAP['standard_normal_scaling'](past_target)[1]; loss =
    (-distribution.log_prob(y) / scale).mean().  Returns (loss, the distribution's
    sorted probabilities and values)."""

    def __init__(self) -> None:
        super().__init__()
        from gluonts.torch.model.deep_npts import DeepNPTSNetworkDiscrete
        from gluonts.torch.model.deep_npts._estimator import LOSS_SCALING_MAP

        self.net = DeepNPTSNetworkDiscrete(
            context_length=8, num_hidden_nodes=[16, 16], cardinality=[3], embedding_dimension=[2],
            num_time_features=1, input_scaling="standard_normal_scaling",
        )
        self.loss_scaling = LOSS_SCALING_MAP["standard_normal_scaling"]

    def forward(self, feat_static_cat: torch.Tensor, feat_static_real: torch.Tensor, past_target: torch.Tensor,
                past_observed_values: torch.Tensor, past_time_feat: torch.Tensor,
                future_target: torch.Tensor) -> tuple[Any, ...]:
        distr = self.net(
            feat_static_cat=feat_static_cat, feat_static_real=feat_static_real, past_target=past_target,
            past_observed_values=past_observed_values, past_time_feat=past_time_feat,
        )
        scale = self.loss_scaling(past_target)[1]
        loss = (-distr.log_prob(future_target) / scale).mean()
        return loss, distr.probs_sorted, distr.values_sorted


def _r16c_gluonts_deep_npts_rps(training: bool) -> Built:
    step = _R16cDeepNPTSStep()
    past_target = torch.randint(0, 5, (4, 8)).float()
    past_target[0] = torch.arange(8).float()  # one series without repeated values
    kwargs = dict(
        feat_static_cat=torch.randint(0, 3, (4, 1)), feat_static_real=torch.rand(4, 1), past_target=past_target,
        past_observed_values=torch.ones(4, 8), past_time_feat=torch.randn(4, 8, 1),
        future_target=torch.randint(0, 5, (4, 1)).float(),
    )
    return step, (), kwargs


class _R16cTruncatedNormalHead(nn.Module):
    """h (B, T, 8) -> PtArgProj with TruncatedNormalOutput.domain_map (softplus scale) ->
    TruncatedNormal(loc, scale, min=-1, max=2, upscale=3, tanh_loc=True), built as
    TruncatedNormalOutput.distribution builds it (the output class itself cannot be
    constructed, see notes); returns (mean NLL, rsample((3,)), mean, entropy, cdf(y))."""

    def __init__(self) -> None:
        super().__init__()
        from gluonts.torch.distributions import TruncatedNormalOutput
        from gluonts.torch.distributions.output import PtArgProj
        from gluonts.torch.modules.lambda_layer import LambdaLayer

        self.proj = PtArgProj(8, {"loc": 1, "scale": 1}, LambdaLayer(TruncatedNormalOutput.domain_map))

    def forward(self, h: torch.Tensor, y: torch.Tensor) -> tuple[Any, ...]:
        from gluonts.torch.distributions.truncated_normal import TruncatedNormal

        loc, scale = self.proj(h)
        distr = TruncatedNormal(loc=loc, scale=scale, min=-1.0, max=2.0, upscale=3.0, tanh_loc=True)
        samples = distr.rsample(torch.Size((3,)))
        nll = -distr.log_prob(y)
        return nll.mean(), samples, distr.mean, distr.entropy, distr.cdf(y)


def _r16c_gluonts_truncated_normal(training: bool) -> Built:
    head = _R16cTruncatedNormalHead()
    return head, (torch.randn(4, 6, 8), 3.0 * torch.rand(4, 6) - 1.0), {}


def _r16c_deepar(distr_output: Any) -> Any:
    from gluonts.torch.model.deepar.module import DeepARModel

    return DeepARModel(
        freq="h", context_length=6, prediction_length=3, num_feat_dynamic_real=2, num_feat_static_real=1,
        num_feat_static_cat=1, cardinality=[3], num_layers=2, hidden_size=8, dropout_rate=0.1,
        distr_output=distr_output, lags_seq=[1, 2, 4], num_parallel_samples=4,
    )


def _r16c_deepar_inputs() -> dict[str, torch.Tensor]:
    past_length = 9  # context_length 6 + max(lags) 4 - 1
    observed = torch.ones(3, past_length)
    observed[0, -2] = 0.0
    return dict(
        feat_static_cat=torch.randint(0, 3, (3, 1)), feat_static_real=torch.rand(3, 1),
        past_time_feat=torch.randn(3, past_length, 2), past_target=torch.poisson(torch.full((3, past_length), 3.0)),
        past_observed_values=observed, future_time_feat=torch.randn(3, 3, 2),
    )


def _r16c_gluonts_deepar_negbin_loss(training: bool) -> Built:
    from gluonts.torch.distributions import NegativeBinomialOutput

    model = _r16c_deepar(NegativeBinomialOutput())
    kwargs = _r16c_deepar_inputs()
    kwargs["future_target"] = torch.poisson(torch.full((3, 3), 3.0))
    kwargs["future_observed_values"] = torch.ones(3, 3)
    return model.loss, (), kwargs


def _r16c_gluonts_deepar_studentt_sample(training: bool) -> Built:
    from gluonts.torch.distributions import StudentTOutput

    model = _r16c_deepar(StudentTOutput())
    return model, (), _r16c_deepar_inputs()


def _r16c_gluonts_dlinear_quantile_control(training: bool) -> Built:
    from gluonts.torch.distributions import QuantileOutput
    from gluonts.torch.model.d_linear.module import DLinearModel

    model = DLinearModel(
        prediction_length=4, context_length=12, hidden_dimension=8, distr_output=QuantileOutput([0.1, 0.5, 0.9]),
        kernel_size=5, scaling="mean",
    )
    past_observed = torch.ones(3, 12)
    past_observed[1, :3] = 0.0
    args = (3.0 * torch.randn(3, 12).abs(), past_observed, 3.0 * torch.randn(3, 4).abs(), torch.ones(3, 4))
    return model.loss, args, {}


# --- deepxde ---------------------------------------------------------------------------


def _r16c_deepxde() -> Any:
    """Import deepxde with the PyTorch backend chosen by environment variable, so that
    no ``~/.deepxde/config.json`` is read or written (a no-op once it is imported)."""
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    import deepxde

    return deepxde


def _r16c_poisson_model(dde: Any, neumann: bool, sizes: list[int], num_domain: int) -> Any:
    """-u'' = pi^2 sin(pi x) on [-1, 1]: u(-1) = 0 (Dirichlet) and, with ``neumann``,
    u'(1) = -pi; deepxde's FNN (tanh, Glorot normal); points on a uniform grid."""
    import numpy as np

    def pde(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        dy_xx = dde.grad.hessian(y, x)
        return -dy_xx - np.pi ** 2 * torch.sin(np.pi * x)

    geom = dde.geometry.Interval(-1, 1)
    if neumann:
        bcs = [
            dde.icbc.DirichletBC(geom, lambda x: np.zeros((len(x), 1)), lambda x, on: on and bool(np.isclose(x[0], -1))),
            dde.icbc.NeumannBC(geom, lambda x: -np.pi * np.ones((len(x), 1)),
                               lambda x, on: on and bool(np.isclose(x[0], 1))),
        ]
    else:
        bcs = [dde.icbc.DirichletBC(geom, lambda x: np.zeros((len(x), 1)), lambda x, on: on)]
    data = dde.data.PDE(geom, pde, bcs, num_domain=num_domain, num_boundary=2, train_distribution="uniform")
    net = dde.nn.FNN(sizes, "tanh", "Glorot normal")
    return dde.Model(data, net)


class _R16cModelLosses(nn.Module):
    """Calls a compiled deepxde Model's loss closure ``model.outputs_losses_train(x, None,
    None)``; the Model's network is registered here so its parameters are named."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.net = model.net
        self._model = [model]

    def forward(self, x: torch.Tensor) -> tuple[Any, ...]:
        return self._model[0].outputs_losses_train(x, None, None)


def _r16c_dde_pinn_outputs_losses(training: bool) -> Built:
    dde = _r16c_deepxde()
    model = _r16c_poisson_model(dde, neumann=True, sizes=[1, 16, 16, 1], num_domain=12)
    model.compile("adam", lr=1e-3, loss_weights=[1.0, 10.0, 10.0], verbose=0)
    return _R16cModelLosses(model), (torch.as_tensor(model.data.train_x).clone(),), {}


def _r16c_dde_nncg_step_run(model: Any, x: torch.Tensor) -> tuple[Any, ...]:
    """One NNCG step as deepxde's Model takes it (``model.train_step``, model.py:405-415),
    under ``enable_grad`` (the step differentiates the loss itself); returns the updated
    parameters, the accepted step size, the Nystrom eigenvalues, the Newton direction
    and the losses after the step."""
    with torch.enable_grad():
        model.train_step(x, None, None)
        losses = model.outputs_losses_train(x, None, None)[1]
    opt = model.opt
    params = [p.detach().clone() for p in model.net.parameters()]
    return params, opt.state[0]["t"], opt.S.detach().clone(), opt.old_dir.detach().clone(), losses.detach()


def _r16c_dde_nncg_train_step(training: bool) -> Built:
    dde = _r16c_deepxde()
    model = _r16c_poisson_model(dde, neumann=False, sizes=[1, 8, 8, 1], num_domain=10)
    dde.optimizers.set_NNCG_options(lr=1.0, rank=4, mu=1e-1, updatefreq=20, cgtol=1e-3, cgmaxiter=6,
                                    lsfun="armijo")
    model.compile("NNCG", verbose=0)
    return _r16c_dde_nncg_step_run, (model, torch.as_tensor(model.data.train_x).clone()), {}


class _R16cPFNNResidual(nn.Module):
    """A user's PINN loss written with deepxde's pieces: PFNN([2, [12, 12], [12, 12], 2],
    'LAAF-2 tanh') on (x, t) points whose first three rows are a PointSetBC's points;
    the residuals of u_t - 0.1 u_xx + u u_x and v_t - 0.1 v_xx from dde.grad.jacobian /
    dde.grad.hessian (some derivatives asked for twice, served from the caches), the
    point-set BC error, deepxde's mean_squared_error and mean_l2_relative_error."""

    def __init__(self) -> None:
        super().__init__()
        import numpy as np

        dde = _r16c_deepxde()
        self.net = dde.nn.PFNN([2, [12, 12], [12, 12], 2], "LAAF-2 tanh", "Glorot uniform")
        points = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0]], dtype=np.float32)
        values = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
        self.bc = dde.icbc.PointSetBC(points, values, component=[0, 1])

    def forward(self, xs: torch.Tensor, ref: torch.Tensor) -> tuple[Any, ...]:
        import deepxde as dde

        dde.grad.clear()
        y = self.net(xs)
        u_t = dde.grad.jacobian(y, xs, i=0, j=1)
        v_t = dde.grad.jacobian(y, xs, i=1, j=1)
        u_x = dde.grad.jacobian(y, xs, i=0, j=0)
        u_xx = dde.grad.hessian(y, xs, component=0, i=0, j=0)
        v_xx = dde.grad.hessian(y, xs, component=1, i=0, j=0)
        u_t_again = dde.grad.jacobian(y, xs, i=0, j=1)
        nb = len(self.bc)
        r1 = (u_t_again - 0.1 * u_xx + y[:, 0:1] * u_x)[nb:]
        r2 = (v_t - 0.1 * v_xx)[nb:]
        bc_err = self.bc.error(None, xs, y, 0, nb)
        mse = dde.losses.mean_squared_error
        losses = torch.stack([
            mse(torch.zeros_like(r1), r1), mse(torch.zeros_like(r2), r2), mse(torch.zeros_like(bc_err), bc_err),
            dde.losses.mean_l2_relative_error(ref, y[nb:]),
        ])
        return losses, r1, r2


def _r16c_dde_grad_cache_pfnn(training: bool) -> Built:
    module = _R16cPFNNResidual()
    xs = torch.cat([torch.as_tensor(module.bc.points), torch.rand(10, 2)])
    return module, (xs, torch.randn(10, 2)), {}


class _R16cDeepONetControl(nn.Module):
    """DeepONetCartesianProd(branch [6, 16, 16] relu, trunk [4, 16, 8] tanh, 2 outputs,
    'split_branch') with a feature transform x -> [x, sin(pi x)] on the trunk input and
    an output transform vanishing at x = 0 and x = 1; returns (mean_l2_relative_error
    against ref, outputs (5, 7, 2))."""

    def __init__(self) -> None:
        super().__init__()
        dde = _r16c_deepxde()
        self.net = dde.nn.DeepONetCartesianProd(
            [6, 16, 16], [4, 16, 8], {"branch": "relu", "trunk": "tanh"}, "Glorot normal", num_outputs=2,
            multi_output_strategy="split_branch",
        )
        self.net.apply_feature_transform(lambda x: torch.cat([x, torch.sin(torch.pi * x)], 1))
        self.net.apply_output_transform(
            lambda inputs, y: y * (inputs[1][:, 0:1].T * (1 - inputs[1][:, 0:1].T)).unsqueeze(-1)
        )

    def forward(self, u: torch.Tensor, locs: torch.Tensor, ref: torch.Tensor) -> tuple[Any, ...]:
        import deepxde as dde

        y = self.net((u, locs))
        return dde.losses.mean_l2_relative_error(ref, y), y


def _r16c_dde_deeponet_control(training: bool) -> Built:
    module = _R16cDeepONetControl()
    return module, (torch.randn(5, 6), torch.rand(7, 2), torch.randn(5, 7, 2)), {}


# --- rows ------------------------------------------------------------------------------

_DDE_IMPORT = (
    "the builder sets DDE_BACKEND=pytorch (os.environ.setdefault) before `import deepxde`, which prints "
    "'Using backend: pytorch' to stderr at import; float32 (deepxde's default `config.real`)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r16c_gluonts_spliced_binned_pareto_head", *GLUONTS,
            "wrapper module: SplicedBinnedParetoOutput(bins_lower_bound=-3, bins_upper_bound=3, num_bins=12, "
            "tail_percentile_gen_pareto=0.1).get_args_proj(8) on h (4, 5, 8); distribution(...); returns (mean "
            "NLL, -log_prob(y) (4, 5), sample((2,)) (2, 4, 5), cdf(y) detached) for y (4, 5)",
            ("gluonts",), _r16c_gluonts_spliced_pareto,
            notes="the NLL is float64 (the library casts the binned log-probability with `.double()`); sampling "
            "draws `torch.rand` from torch's global generator, seeded by the harness before each call; the "
            "samples are differentiable (quantiles through the inverse cdf of the softmaxed bins and the Pareto "
            "tails); the PIT values are returned detached because `SplicedBinnedPareto.cdf`'s backward is NaN "
            "(library bug, see ROUND16.md)",
            patterns="`PtArgProj.forward` (distributions/output.py:58-60: five Linear heads, `domain_map` abs) -> "
            "`SplicedBinnedParetoOutput.distribution` (spliced_binned_pareto.py:337-349) -> "
            "`SplicedBinnedPareto.__init__` (:50-98: `torch.tensor(0.1)`, two `GeneralizedPareto`s "
            "(generalized_pareto.py:48-70: `super().__init__()` twice, each validating `xi`/`beta` against "
            "`constraints.positive` (torch/distributions/distribution.py:76, `if not torch._is_all_true(valid): "
            "raise`), then `if self._validate_args and not torch.lt(-self.beta, ...).all(): raise ValueError`, a "
            "tensor in a Python `if`), `BinnedUniforms.__init__` (binned_uniforms.py:43-86: `linspace` bin edges, "
            "the constraint validation again)) -> `log_prob` (spliced_binned_pareto.py:103-176: `_icdf_binned` "
            "twice for the tail thresholds (binned_uniforms.py:258-315: cumsum, `one_hot_bin_indicator[..., -1]"
            "[higher_than_last] = True` (a boolean-mask setitem on a view), `upper_edges[one_hot_bin_indicator]"
            ".view(...)`, `lower_edges[...]`, `bins_prob[...]`, `incomplete_cdf_lower[...]` (boolean-mask reads "
            "whose sizes come from the data)), `log_binned_p` -> `get_one_hot_bin_indicator` (:181-222: shape "
            "asserts in Python loops, `[..., -1][is_higher_than_last_edge] = 1` and `[..., 0]"
            "[is_lower_than_first_edge] = 1` mask setitems), the Pareto tails' log_prob with `torch.where`) -> "
            "`sample((2,))` (binned_uniforms.py:398-415: `for i in range(2)`: `torch.rand`, `icdf` (:224-249: "
            "`assert (quantiles >= 0.0).all()` and `assert (quantiles <= 1.0).all()`, tensors in Python asserts) "
            "-> the spliced `_inverse_cdf` (spliced_binned_pareto.py:188-228: three `_icdf_binned` calls, the "
            "Pareto `icdf`s, `torch.where`), `samples[i, ...] = samples_i`) -> `cdf` (:230-273: `self.icdf("
            "tensor(0.1))` and `icdf(1 - 0.1)` (0-dim quantiles: the `repeat(batch_shape)` branch and the asserts "
            "again), `_cdf_binned` (binned_uniforms.py:329-396: the boolean-mask reads again), the Pareto cdfs, "
            "`torch.where`)",
        ),
        Row(
            "r16c_gluonts_deep_npts_discrete_rps_step", *GLUONTS,
            "wrapper module (DeepNPTSEstimator.train_model's loss): DeepNPTSNetworkDiscrete(context_length=8, "
            "num_hidden_nodes=[16, 16], cardinality=[3], embedding_dimension=[2], num_time_features=1, "
            "input_scaling='standard_normal_scaling') on a batch of 4 integer-valued series (three with repeated "
            "values, one without); loss = (-distr.log_prob(y) / standard_normal_scaling(past_target)[1]).mean(); "
            "returns (loss, probs_sorted (4, 8), values_sorted (4, 8))",
            ("gluonts",), _r16c_gluonts_deep_npts_rps,
            notes="the static categorical embedding lives in a plain Python list (library bug, see ROUND16.md), so "
            "its weight is not a parameter of the module: in training its gradient is reported as an extra "
            "autograd leaf; `feat_static_real` is copied by `torch.tensor(...)` inside the network, so it gets no "
            "gradient; the distribution's values are the past targets, which require grad in training",
            patterns="`DeepNPTSNetworkDiscrete.forward` (model/deep_npts/_network.py:247-270) -> "
            "`DeepNPTSNetwork.forward` (:161-211: `standard_normal_scaling` (scaling.py:32-36: `torch.std_mean`, "
            "`torch.where` against a `ones` tensor), `FeatureEmbedder.forward` (:80-99: a Python loop over the "
            "list of embedders, `.long()`), `torch.tensor(feat_static_real)` (:192, a copy of a tensor: torch's "
            "copy-construct UserWarning on every call), cat, the MLP) -> softplus and L1 `normalize` -> "
            "`DiscreteDistribution.__init__` (distributions/discrete_distribution.py:34-56: `torch.sort`, "
            "advanced-index gather, cumsum, `Distribution.__init__` with default validation: no "
            "`arg_constraints`, so torch warns (UserWarning) on every construction) -> `log_prob` -> `rps` "
            "(:114-155: `_validate_sample` (no `support`: another UserWarning), `if check_for_duplicates and "
            "torch.sum(torch.diff(values_sorted) == 0) > 0:` (a tensor in a Python `if`; taken) -> "
            "`adjust_probs` (:59-106: `map` over `torch.unbind` of the batch: per series `if "
            "torch.sum(torch.diff(values_sorted) == 0) == 0:` (a tensor in a Python `if`; true for the series "
            "without repeats), else `torch.unique_consecutive(..., return_counts=True)`, `torch.split(probs_sorted, "
            "list(counts))` (split sizes read from the data into a Python list), per-split cumsum, `diff(..., "
            "append=...) > 0` mask; `torch.stack`), cumsum CDF, `(probs_sorted > 0).int()`, `quantile_losses` "
            "(:157-168: shape asserts, `torch.where`)) -> the loss scaling (`standard_normal_scaling`, dim=1)",
        ),
        Row(
            "r16c_gluonts_truncated_normal_head", *GLUONTS,
            "wrapper module: PtArgProj(8, {loc: 1, scale: 1}, TruncatedNormalOutput.domain_map) on h (4, 6, 8); "
            "TruncatedNormal(loc, scale, min=-1, max=2, upscale=3, tanh_loc=True); returns (mean NLL of y "
            "(4, 6), rsample((3,)), mean, entropy, cdf(y))",
            ("gluonts",), _r16c_gluonts_truncated_normal,
            notes="`TruncatedNormalOutput(...)` itself cannot be constructed (its `__init__` passes `self` as "
            "DistributionOutput's `beta`, which pydantic rejects; library bug, see ROUND16.md), so the module "
            "builds the projection from the class's `domain_map` and the distribution as its `distribution` "
            "method would; `rsample` draws `uniform_` from torch's global generator, seeded by the harness",
            patterns="`PtArgProj.forward` (distributions/output.py:58-60; `domain_map` softplus and squeeze, "
            "truncated_normal.py:259-270) -> `TruncatedNormal.__init__` (truncated_normal.py:83-152: `clamp_min`, "
            "tanh location scaling, `broadcast_all`, `isinstance(a, Number)`, `Distribution.__init__` validating "
            "`loc` (real) and `scale` (greater_than(1e-6)) (torch/distributions/distribution.py:76: `if not "
            "torch._is_all_true(valid): raise`), `if self.a.dtype != self.b.dtype`, `if any((self.a >= "
            "self.b).view(-1).tolist()): raise ValueError` (:116-123, a tensor read into a Python list), erf-based "
            "normalizers) -> `rsample` (:225-232: `torch.empty(shape).uniform_(eps, 1 - eps)` -> `icdf` (:202-213: "
            "erfinv, `torch.stack(...).max(0)[0]` clipping on detached values, `sample.data.copy_(sample_clip)` "
            "(an in-place write through `.data`))) -> `log_prob` (:215-223: stack/min/max clamping to the "
            "bounds) -> `mean`/`entropy` properties -> `cdf` (:199-200)",
        ),
        Row(
            "r16c_gluonts_deepar_negbin_loss", *GLUONTS,
            "DeepARModel(context_length=6, prediction_length=3, lags_seq=[1, 2, 4], 2-layer LSTM hidden 8, "
            "dropout 0.1, NegativeBinomialOutput(), 1 static cat (cardinality 3), 1 static real, 2 dynamic "
            "reals).loss(...) on 3 count series (past 9, one past value unobserved, future 3); returns the "
            "per-series loss (3,)",
            ("gluonts",), _r16c_gluonts_deepar_negbin_loss,
            frozen=("past_observed_values", "future_observed_values"),
            notes="a bound method: the harness puts the model in train mode for training (LSTM dropout from "
            "torch's global generator, seeded before each call) and in eval mode for inference; the observed-"
            "value indicators are frozen, the targets (integer-valued floats) require grad in training",
            patterns="`DeepARModel.loss` (model/deepar/module.py:512-592: `prod(extra_shape)`, `repeat_along_dim` "
            "(util.py:158-181: `if repeats == 1: return a`), reshapes) -> `unroll_lagged_rnn` -> "
            "`prepare_rnn_input` (:215-265: `MeanScaler.__call__` (scaler.py:60-95: `torch.where(num_observed > "
            "0, scale, default_scale)`, clamp), `if future_length > 1: assert future_target is not None`, "
            "`lagged_sequence_values` (util.py:107-155: `assert max(indices) <= prior_sequence.shape[dim]`, a "
            "Python loop over the lags of `slice_along_dim` (util.py:203-205: `a[idx]` with a list index: torch "
            "warns that non-tuple sequence indexing is deprecated, a UserWarning inside the call)), `take_last`, "
            "`FeatureEmbedder`, `unsqueeze_expand`) -> LSTM -> `PtArgProj` (softplus total_count) -> "
            "`DistributionOutput`... `NegativeBinomialOutput.distribution` (distributions/negative_binomial.py:"
            "85-96: `logits += scale.log()`, an in-place add on a view of the projection's output) -> "
            "`NegativeBinomial.__init__` (torch validation of `total_count` and `logits`: distribution.py:76, `if "
            "not torch._is_all_true(valid): raise`) -> `log_prob` (torch/distributions/negative_binomial.py:130-: "
            "`_validate_sample` (distribution.py:280-327: the nonnegative-integer support check, `if not "
            "torch._is_all_true(valid): raise ValueError`)) -> `* observed_values`, `torch.mean` over time",
        ),
        Row(
            "r16c_gluonts_deepar_studentt_sampling", *GLUONTS,
            "DeepARModel(... same config, StudentTOutput(), num_parallel_samples=4)(...) on 3 series (past 9): "
            "the autoregressive sampling loop over 3 future steps; returns samples (3, 4, 3)",
            ("gluonts",), _r16c_gluonts_deepar_studentt_sample, modes=INFERENCE,
            notes="inference only: every sample is drawn by `Distribution.sample`, which runs under "
            "`torch.no_grad` (torch's TransformedDistribution.sample), so the output carries no gradient; the "
            "Student-t draws (`_standard_gamma`, `normal`) come from torch's global generator, seeded by the "
            "harness before each call",
            patterns="`DeepARModel.forward` (model/deepar/module.py:380-487): `unroll_lagged_rnn` on the context "
            "(the `MeanScaler`, `lagged_sequence_values` and `slice_along_dim` list-index UserWarning as in the "
            "loss row), `repeat_interleave` of scale, static features, past target, state and parameters, "
            "`output_distribution(..., trailing_n=1)` (:335-360: a list of sliced parameters) -> "
            "`DistributionOutput.distribution` (distribution_output.py:52-77: `if loc is None and scale is None` "
            "-> `AffineTransformed` (affine_transformed.py: `TransformedDistribution` with an `AffineTransform`)) "
            "-> torch's `StudentT.__init__` with validation of `df`, `loc`, `scale` (distribution.py:76: a tensor "
            "in a Python `if` for each) and TransformedDistribution's own checks -> `sample()` (no_grad: "
            "StudentT `rsample` via chi2/gamma and normal draws, the affine transform); then `for k in range(1, 3)`: "
            "lags of the scaled sample, LSTM step with the carried state, `param_proj`, a new `AffineTransformed` "
            "StudentT (the validation again), `sample()`; `torch.cat`, `post_process_samples` (`if "
            "self.nonnegative_pred_samples`, a Python bool), reshape",
        ),
        Row(
            "r16c_gluonts_dlinear_quantile_control", *GLUONTS,
            "DLinearModel(prediction_length=4, context_length=12, hidden_dimension=8, QuantileOutput([0.1, 0.5, "
            "0.9]), kernel_size=5, scaling='mean').loss(past_target (3, 12), past_observed_values (three values "
            "of one series unobserved), future_target (3, 4), future_observed_values); returns the per-series "
            "loss (3,)",
            ("gluonts",), _r16c_gluonts_dlinear_quantile_control,
            notes="a bound method: the harness sets train/eval on the model (no dropout in DLinear)",
            patterns="control: no tensor value reaches Python. `DLinearModel.loss` (model/d_linear/module.py:"
            "153-166) -> `forward` (:134-151: `MeanScaler.__call__` (scaler.py:60-95: sums, `torch.where("
            "num_observed > 0, ...)`, clamp, `if not self.keepdim`, a Python bool), `SeriesDecomp` -> `MovingAvg` "
            "(:39-46: repeat-padding, `AvgPool1d`), two linear heads, `PtArgProj` with `QuantileOutput."
            "domain_map` (identity)) -> `QuantileOutput.loss` (distributions/quantile_output.py:52-73: `if scale "
            "is not None`, `torch.as_tensor(self.quantiles)` from a Python list, the pinball loss) -> "
            "`weighted_average` (util.py:70-104: `torch.where(weights != 0, x * weights, zeros)`, `if dim`, a "
            "Python int)",
        ),
        Row(
            "r16c_dde_pinn_outputs_losses_poisson", *DEEPXDE,
            "wrapper module holding a deepxde Model(PDE(Interval(-1, 1), -u'' = pi^2 sin(pi x) with dde.grad.hessian, "
            "[DirichletBC at -1, "
            "NeumannBC u' = -pi at 1], num_domain=12, num_boundary=2, train_distribution='uniform'), FNN([1, 16, "
            "16, 1], 'tanh', 'Glorot normal')) compiled with adam and loss_weights [1, 10, 10]; "
            "model.outputs_losses_train(X (16, 1), None, None); returns (outputs (16, 1), weighted losses (3,))",
            ("deepxde",), _r16c_dde_pinn_outputs_losses, modes=TRAINING,
            notes="training only: the PDE residual is a second derivative by `torch.autograd.grad`, which under "
            "`torch.no_grad` raises (the network output has no grad_fn); in training the points require grad and "
            "the backward runs through the double-backward graph `create_graph=True` builds; the call is the loss "
            "closure deepxde's Model builds in `compile` (it sets `net.train(True)` itself); " + _DDE_IMPORT,
            patterns="`outputs_losses_train` -> `outputs_losses` (model.py:319-351): `self.net.auxiliary_vars = "
            "None`, `self.net.train(mode=True)`, `isinstance(inputs, tuple)`, `torch.as_tensor(inputs)`, "
            "`inputs.requires_grad_()`, `FNN.forward` (nn/pytorch/fnn.py:38-51: `if self._input_transform is not "
            "None`, `isinstance(self.activation, list)` per layer) -> `PDE.losses` (data/pde.py:138-195: "
            "`get_num_args(self.pde)` (utils/internal.py:164-: `inspect.signature` on every call) -> the user's "
            "pde -> `dde.grad.hessian` (gradients/gradients.py:44-72, `config.autodiff` string test) -> "
            "`Hessians.__call__` (gradients/gradients_reverse.py:121-145: a dict keyed by `(ys, xs, component)`, "
            "tensors hashed and looked up as dict keys) -> `Hessian.__init__` (:100-114) -> `jacobian` -> "
            "`Jacobians.__call__` (gradients/jacobian.py:76-132: `key = (ys, xs)`, `if key not in self.Js`) -> "
            "`JacobianReverse.__call__` (gradients_reverse.py:11-78: `Jacobian.__call__`'s range checks, "
            "`bkd.ndim`, `if i not in self.J`: `torch.autograd.grad(y, xs, ones_like(y), create_graph=True)`, "
            "twice); `np.cumsum([0] + self.num_bcs)`, `list(map(int, ...))`, per residual and BC "
            "`loss_fn[i](bkd.zeros_like(error), error)` (losses.py:15-22, MSE); `DirichletBC.error` "
            "(icbc/boundary_conditions.py:74-81: `self.func(X, beg, end, aux)` -> `wrapper_cache` (:410-414: `key "
            "= (id(X), beg, end)`, `if key not in cache`: the numpy BC values through `return_tensor` -> "
            "`torch.as_tensor`), `bkd.ndim(values) == 2 and bkd.shape(values)[1] != 1`), `NeumannBC.error` "
            "(:91-93 -> `normal_derivative` (:55-58: `grad.jacobian(outputs, inputs, i=0, j=None)` (the cached "
            "Jacobian row), `boundary_normal` cached the same way from numpy)) -> `torch.stack(losses)`, "
            "`losses *= torch.as_tensor(self.loss_weights)` (in place), `grad.clear()` (:350, resets the "
            "module-level dicts)",
        ),
        Row(
            "r16c_dde_nncg_train_step", *DEEPXDE,
            "deepxde Model(PDE(Interval(-1, 1), -u'' = pi^2 sin(pi x), DirichletBC on both ends, num_domain=10, "
            "num_boundary=2, uniform), FNN([1, 8, 8, 1], 'tanh', 'Glorot normal')) compiled with 'NNCG' after "
            "dde.optimizers.set_NNCG_options(lr=1, rank=4, mu=0.1, updatefreq=20, cgtol=1e-3, cgmaxiter=6, "
            "lsfun='armijo'); one model.train_step(X (14, 1), None, None) under torch.enable_grad(); returns "
            "(updated parameters, accepted step size, Nystrom eigenvalues (4,), Newton direction (97,), losses "
            "after the step)",
            ("deepxde",), _r16c_dde_nncg_train_step, modes=INFERENCE,
            notes="inference only: the call is an optimizer step that differentiates the loss itself (gradient, "
            "Hessian-vector products, double backward through the PINN residual) and writes the parameters in "
            "place, so it runs under `torch.enable_grad()` inside the wrapper and returns detached values; the "
            "Nystrom test matrix is `torch.randn` from torch's global generator, seeded by the harness; "
            "`set_NNCG_options` writes deepxde's module-level `NNCG_options` dict in the builder (process state, "
            "rewritten by every build); PCG stops at its cap of 6 iterations (the residual norm stalls near 7) "
            "and prints its warning to stdout, by design; " + _DDE_IMPORT,
            patterns="`train_step_nncg` (model.py:405-415) -> `NNCG.step` (optimizers/pytorch/nncg.py:153-224): "
            "`if self.n_iters == 0: self.old_dir = torch.zeros(...)`, the closure (`outputs_losses_train` as in "
            "the outputs-losses row: `inputs.requires_grad_()`, FNN, cached `dde.grad.hessian`, Dirichlet BC "
            "values cached by `id(X)`, `torch.stack`, `grad.clear()`; `torch.sum`, `opt.zero_grad()`), "
            "`torch.autograd.grad(loss, params, create_graph=True)`, `if self.n_iters % self.update_freq == 0` -> "
            "`_update_preconditioner` (:226-279: `torch.randn`, `torch.linalg.qr`, `torch.func.vmap` over "
            "`_hvp` (`autograd.grad(..., retain_graph=True)` with batched grad_outputs), `try: "
            "torch.linalg.cholesky` / `except torch.linalg.LinAlgError:` eigh shift and a second Cholesky (an "
            "exception raised by the data; taken here: the first Cholesky fails), "
            "`try: solve_triangular` / `except RuntimeError`, `svd`, `torch.max(S**2 - shift, tensor(0.0))`, `if "
            "self.verbose`) -> `_nystrom_pcg` (:25-63: `S[r - 1]`, in-place `x +=`/`resid -=` under no_grad, "
            "`while torch.norm(resid) > tol and i < max_iters:` (:42, a tensor in a Python `while`; 6 trips, "
            "the cap), `if torch.norm(resid) > tol: print(f'... {torch.norm(resid)}')` (:57-61, a tensor "
            "formatted and printed)) -> `if torch.dot(d, g) <= 0: print(...)` (:195, a tensor in a Python `if`; "
            "not taken) -> `_armijo` (:8-15: `obj_func` (`_add_grad` writing `p.data = p.data.add(...)`, "
            "`assert offset == self._numel()`, `float(closure())` (:203: a loss read into Python; torch warns "
            "about converting a tensor that requires grad), `_set_param` writing `p.data`), `while f1 > f0 + "
            "alpha * t * gx.dot(dx):` (:12, a Python float against a tensor in a `while`; one halving, t = 0.5)) "
            "-> `p.data.add_(-dp, alpha=t)` for each parameter; `self.n_iters += 1`",
        ),
        Row(
            "r16c_dde_grad_cache_pfnn_residual", *DEEPXDE,
            "wrapper module: deepxde PFNN([2, [12, 12], [12, 12], 2], 'LAAF-2 tanh', 'Glorot uniform') on xs "
            "(13, 2) = 3 PointSetBC points + 10 collocation points; residuals u_t - 0.1 u_xx + u u_x and v_t - "
            "0.1 v_xx by dde.grad.jacobian/hessian (u_t asked twice), PointSetBC(component=[0, 1]).error, "
            "dde.losses.mean_squared_error and mean_l2_relative_error against ref (10, 2); returns (losses (4,), "
            "r1 (10, 1), r2 (10, 1))",
            ("deepxde",), _r16c_dde_grad_cache_pfnn, modes=TRAINING,
            notes="training only: the residuals are derivatives by `torch.autograd.grad`, which under "
            "`torch.no_grad` raises; in training the points require grad and the backward runs through the "
            "double-backward graph; the call starts with `dde.grad.clear()` as deepxde's Model does, so the "
            "module-level caches hold only this call's entries; the L-LAAF slope `activation.a` is a trainable "
            "parameter; " + _DDE_IMPORT,
            patterns="`dde.grad.clear()` (gradients/gradients.py:75-80 -> gradients_reverse.py:155-158: the two "
            "module-level cache dicts replaced) -> `PFNN.forward` (nn/pytorch/fnn.py:175-201: `isinstance(layer, "
            "ModuleList)`/`isinstance(x, list)` per layer, `LLAAF.forward` (utils/pytorch.py:36-37: `n * a * x`), "
            "`torch.cat` of the two sub-network outputs) -> `dde.grad.jacobian` x4 (gradients/jacobian.py:76-132: "
            "`key = (ys, xs)`, `if key not in self.Js` (tensors hashed and compared as dict keys; one Jacobian "
            "object reused), `JacobianReverse.__call__` (gradients_reverse.py:11-78: `if i not in self.J`: "
            "`torch.autograd.grad(y[:, i:i+1], xs, create_graph=True)` for rows 0 and 1 only; `if (i, j) not in "
            "self.J`: column slices cached; the repeated u_t returned from the cache) -> `dde.grad.hessian` x2 "
            "(gradients_reverse.py:121-145: `key = (ys, xs, component)`, `Hessian.__init__` (:100-114: `if "
            "component >= dim_y: raise`, the gradient row from the Jacobian cache, a new `JacobianReverse` on "
            "it), `H(j, i)` -> a second `autograd.grad(create_graph=True)`) -> `PointSetBC.error` "
            "(icbc/boundary_conditions.py:213-234: `if self.batch_size is not None`, `isinstance(self.component, "
            "numbers.Number)`, `outputs[beg:end, [0, 1]] - self.values` (a list index)) -> `mean_squared_error` "
            "(losses.py:15-22: `bkd.reduce_mean(bkd.square(...))`) and `mean_l2_relative_error` (:25-26: "
            "`bkd.norm(..., axis=1)` ratios)",
        ),
        Row(
            "r16c_dde_deeponet_split_branch_control", *DEEPXDE,
            "wrapper module: deepxde DeepONetCartesianProd(branch [6, 16, 16] relu, trunk [4, 16, 8] tanh, "
            "'Glorot normal', num_outputs=2, multi_output_strategy='split_branch') with a trunk feature transform "
            "x -> [x, sin(pi x)] and an output transform x (1 - x); u (5, 6), locs (7, 2); returns "
            "(mean_l2_relative_error against ref (5, 7, 2), outputs (5, 7, 2))",
            ("deepxde",), _r16c_dde_deeponet_control,
            notes="no derivative is taken, so the row runs in both modes; " + _DDE_IMPORT,
            patterns="control: no tensor value reaches Python. `DeepONetCartesianProd.forward` (nn/pytorch/"
            "deeponet.py:256-265: `if self._input_transform is not None` -> the feature transform; `if "
            "self._output_transform is not None`) -> `SplitBranchStrategy.call` (nn/deeponet_strategy.py:125-137: "
            "branch FNN, trunk FNN + tanh, `size = x_loc.shape[1]` (a shape), a Python loop over the 2 outputs "
            "slicing the branch features, `merge_branch_trunk` (deeponet.py:247-250: `einsum('bi,ni->bn')`, `y += "
            "self.b[index]` in place on the einsum output)) -> `concatenate_outputs` (`torch.stack(dim=2)`) -> "
            "`mean_l2_relative_error` (losses.py:25-26)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round sixteen (r16c)")
