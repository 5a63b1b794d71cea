"""Held-out round twenty-one (r21c): netcal.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: batches of 16 logits over 4 classes, 24 to 60 calibration
samples, 4 inducing points, 8 random GP samples, 2 to 4 epochs; seeded random
data, nothing downloaded, nothing written to disk); a row whose ``modes`` is one
mode only says why in its ``notes``.

netcal 1.4.0 (Fabian Kueppers' calibration framework for neural networks, on
numpy, scipy, scikit-learn, torch, pyro and gpytorch) holds confidence
calibration by binning (``netcal.binning``: ``HistogramBinning``,
``IsotonicRegression``, ``BBQ``, ``ENIR``, ``NearIsotonicRegression``: numpy
and scikit-learn only) and by scaling (``netcal.scaling``:
``TemperatureScaling``, ``LogisticCalibration``, ``BetaCalibration`` and their
``...Dependent`` variants, all on ``AbstractLogisticRegression``: a pyro
``model`` whose weights are ``pyro.sample`` sites, fitted by scipy's
``minimize`` over a torch loss (``method='mle'``), by Adam over
``pyro.condition``ed weights (``'momentum'``, detection mode only), by pyro SVI
with a Normal/LogNormal guide (``'variational'``) or by NUTS (``'mcmc'``);
``transform`` maps numpy confidences to numpy calibrated ones through the
torch model); regression calibration (``netcal.regression``:
``IsotonicRegression`` and ``VarianceScaling`` in numpy/scipy, and the
Gaussian-process recalibration ``GPNormal``, ``GPBeta``, ``GPCauchy`` on
``AbstractGP``, a ``gpytorch.models.ApproximateGP`` with an
``LMCVariationalStrategy`` over a ``VariationalStrategy`` with learnt inducing
points, netcal's moment-matching ``GaussianRBFKernel`` and pyro likelihoods
``ScaledNormalLikelihood``, ``ScaledMultivariateNormalLikelihood``,
``BetaLikelihood``, ``CauchyLikelihood``, fitted by pyro SVI with a vectorized
``Trace_ELBO``); training-time regularizers (``netcal.regularization``:
``MMCEPenalty``, ``DCAPenalty``, ``ConfidencePenalty`` as torch ``_Loss``
modules, ``confidence_penalty`` in numpy); metrics (``netcal.metrics``: ECE,
ACE, MCE, MMCE, UCE, ENCE, QCE, PICP, NLL, pinball loss: numpy and scipy, with
torch only inside ``NLL`` for multivariate inputs) and ``netcal.presentation``
(matplotlib diagrams).  The rows call what runs torch per step or per batch:
the regularizers' forwards, the GP kernel and likelihoods, the SVI objective
that ``AbstractGP.fit`` and ``AbstractLogisticRegression.variational`` step
(``Trace_ELBO.differentiable_loss`` of netcal's ``model``/``guide``), the GP
and variational ``transform``s, and three short fits.  Wrappers that touch
pyro's global parameter store do so inside ``pyro.get_param_store().scope()``
(as ``AbstractGP.fit`` does), so no build sees another's parameters.  Nothing
on the rows' paths draws from numpy's or Python's generators: the GP samples,
pyro's guide samples, ``Predictive`` and the shuffling ``DataLoader`` of
``AbstractGP.fit`` draw from torch's generator (seeded by the harness before
every call); netcal's ``manual_seed`` context (Context.py:17-50) is entered
with ``seed=None`` and does nothing; the only ``np.random`` call
(scaling/AbstractLogisticRegression.py:536) is under ``tensorboard=True``,
which the rows never pass (``fit``'s default there is ``True``: a
``SummaryWriter`` would write event files; the rows pass ``False``).

The data-dependent code (file:line relative to the ``netcal`` package).
``MMCEPenalty.forward`` (regularization/MMCEPenalty.py:43-77) takes the
``max`` of the softmax, a three-argument ``torch.where`` for the matches
(line 50), ``n_correct = torch.sum(matched)``, splits the confidences by
boolean masks ``probs[matched == 0]`` and ``probs[matched == 1]`` (55-56:
data-dependent shapes), and for each of the three kernel terms tests a tensor
in a Python conditional expression and divides by ``float`` of a tensor
(``... / float((n_samples - n_correct) ** 2) if n_samples - n_correct > 0 else
0.``, 71-73).  ``GaussianRBFKernel.forward`` (regression/gp/kernel/
GaussianRBFKernel.py:47-141) only asserts on ``ndim`` and tests Python flags
(control below).  The GP objective: ``AbstractGP.model`` (regression/gp/
AbstractGP.py:352-414: ``assert x.ndim == 2``, ``int(np.sqrt(...))`` of a
shape under ``correlations``, ``pyro.module`` (re-registers every parameter in
the param store and ``load_state_dict``s them back, pyro/primitives.py),
``pyro_model`` (gpytorch's ``ApproximateGP.pyro_model``: the prior through the
variational strategy), a ``pyro.plate``, ``pyro.sample`` of the latent
functions, the test ``function_samples.ndim == 3`` and the likelihood's
``log_prob`` by ``pyro.sample(..., obs=y)``) and ``AbstractGP.guide``
(332-350: ``pyro_guide``, a plate, a sample); on every call through the
variational strategy gpytorch reads ``variational_params_initialized.item()``
(gpytorch/variational/_variational_strategy.py:345) and
``updated_strategy.item()`` (variational_strategy.py:381), and the Cholesky
of the inducing covariance is ``psd_safe_cholesky`` (linear_operator/utils/
cholesky.py:22: ``if ... not torch.any(info): return L``, a tensor's truth,
then NaN checks and a jitter retry loop with ``warnings.warn`` when it fails);
pyro's ``Trace_ELBO`` walks the traces in Python (``poutine.trace``,
``torch._C`` state checks, ``is_identically_zero`` tests of the scores).  The
likelihoods: ``ScaledMultivariateNormalLikelihood.reconstruct``
(regression/gp/likelihood/ScaledMultivariateNormalLikelihood.py:64-106:
``int(np.sqrt(...))`` of a shape, an index setitem by ``tril_indices``, an
in-place ``diagonal_view[:] = 1.``) under ``rescale`` (108-139) and torch's
``MultivariateNormal`` (``cholesky``); ``BetaLikelihood.log_prob``
(likelihood/BetaLikelihood.py:142-200: the CDF and density under ``no_grad``
with ``clamp(..., out=)``, ``logsumexp``, ``softplus``);
``BetaLikelihood.cdf`` with an integer ``t`` (202-317) reads the normal's
``icdf`` bounds to numpy (``.cpu().numpy()``, line 252), builds sampling points
with ``np.linspace`` and ``torch.from_numpy`` (``_generate_sampling_points``,
319-374: a test of ``ndim == 5``), and for ``max_iter + 1 = 6`` iterations
(256-297) computes the calibrated CDF, breaks at ``it == max_iter``, reads it
to numpy (266), finds the first/last sampling point above/below the target
quantile with ``np.argmax`` of numpy comparisons, clamps the indices by
boolean-mask setitems on numpy arrays (279-280) and ``np.take_along_axis``
(283-295) to set the next bounds: data-dependent numpy bounds for the next
torch round.  ``GPBeta.transform`` (regression/gp/GPBeta.py:136-281) and
``GPCauchy.transform`` (GPCauchy.py:130-205) convert the numpy input
(``_get_input``, AbstractGP.py:530-625: ``meanvar`` in numpy,
``torch.from_numpy``, ``log``), iterate a ``DataLoader`` (``pin_memory=True``:
torch warns that no accelerator is found), enter the stored pyro scope, run
the GP in ``eval`` mode under ``no_grad``, sample ``n_random_samples``
functions, and for GPBeta build ``BetaLikelihood`` and call its integer-``t``
``cdf`` (GPBeta.py:265) and ``log_prob`` (269); each returns ``.numpy()``
arrays.  ``AbstractGP.fit`` (627-783) converts the input, initializes the
model (``_init_gp_model``, 418-528: ``torch.min``/``max`` values read to numpy
(``.numpy()``, 473-476) for an ``np.linspace`` of the inducing points, then
``torch.from_numpy``), builds a shuffling ``DataLoader``, and per epoch steps
``SVI`` per batch (``svi.step(...) / len(batch_X)``: pyro returns the loss as
a Python float), takes ``np.mean`` of the batch losses, tests ``epoch_loss <
best_loss`` (numpy floats read from tensors) and ``deepcopy``s the
``state_dict``, with a ``tqdm`` bar (``pbar.set_description`` of the float
loss) that cannot be disabled through the API (AbstractGP.py:700); at the end
``load_state_dict`` of the best copy.  The scaling fits: ``AbstractLogistic
Regression.fit`` (scaling/AbstractLogisticRegression.py:343-431) runs
``AbstractCalibration.fit`` (AbstractCalibration.py:80-209: numpy range checks,
``np.unique`` of the labels and a ``print`` when a class is missing (never
here)), ``prepare`` (numpy logits or Beta features, ``torch.from_numpy``),
``prior`` (pyro distributions with ``validate_args=True``) and
``.independent(1)`` (pyro warns that ``independent`` is deprecated, a
``DeprecationWarning`` on every call); ``convex`` (550-628) hands scipy's
``minimize`` a closure ``MLE`` that builds ``torch.from_numpy`` weights,
conditions the pyro model and returns ``loss.item()`` (line 578) once per
function evaluation (scipy's finite differences: tens of ``.item()`` reads),
and with ``mask_negative`` (BetaCalibration) calls ``mask``
(scaling/BetaCalibration.py:360-420: ``np.where`` of negative weights, ``len``
tests, Python lists of bounds) and reruns ``minimize``; ``momentum``
(630-716) asserts ``self.detection``, iterates a ``DataLoader``, conditions the
model on ``nn.Parameter``s, steps Adam and tests ``if loss < best_loss`` (684:
the truth of a tensor comparison), then formats ``"%.6f" % best_loss`` (a
``float`` of a tensor that requires grad: torch warns) for a ``tqdm`` bar that
cannot be disabled (664), and reads the parameters back with
``.detach().cpu().numpy()`` and ``np.clip``.  ``variational`` (486-548) steps
``SVI`` under a ``tqdm`` bar (513, not disableable) and stores
``pyro.get_param_store().get_state()``.  The SVI objective of
``BetaCalibration`` (``method='variational'``): ``AbstractLogisticRegression.
guide`` (272-299: a Python loop over the sites, ``pyro.param`` with
constraints, an ``isinstance`` test of the constraint picking ``LogNormal``,
``.independent(1)``, ``validate_args=True`` samples) and ``BetaCalibration.
model`` (BetaCalibration.py:285-358: ``pyro.sample`` of bias and weights,
``torch.log(weights + 1)``, ``assert (weights >= 0).all().item() == True``
(line 311, a tensor read), ``weights[torch.isinf(weights)] = torch.log(...)``
(315: a boolean-mask setitem), a plate, ``matmul`` over the permuted Beta
features, ``softmax`` and ``pyro.sample("obs", Categorical(validate_args=
True), obs=y)``: torch's argument and support validation test tensors'
``all()`` in Python).  ``transform`` (720-886) for ``'variational'``
(``mean_estimate=False``) restores the stored param store
(``set_state``, 826), draws ``num_samples`` weight sets with pyro's
``Predictive`` (827-832), then loops in Python over the samples and the sites
(841-848), runs the conditioned model once per sample (``process_model``,
755-768: ``softmax``), stacks, reads ``.cpu().numpy()`` (858),
``squeeze_generic`` and ``np.clip``.  Controls (no tensor value reaches
Python): ``DCAPenalty.forward`` (regularization/DCAPenalty.py:35-48: ``max`` of
the softmax, a three-argument ``torch.where``, ``mean`` of the detached
matches, ``abs``), ``GaussianRBFKernel.forward`` with ``cov=False``
(GaussianRBFKernel.py:72-76 ``ndim`` asserts, 107-118, 120-136: ``exp`` of the
log-variances, broadcast sums with the squared lengthscale, ``diag_embed``,
``prod``, ``matmul`` Mahalanobis, the Python ``diag`` flag) and
``mv_cauchy_log_density`` (Helper.py:507-541: ``torch.tensor`` of a shape and
of constants, ``linalg.inv``, ``logdet``, ``lgamma``, ``log1p``-style
arithmetic).

Global state on import: ``import netcal`` alone imports numpy, scipy and
torch only (its subpackages are not imported by the package ``__init__``).
The builders import the subpackages they need (nothing is built or imported at
import of this module): ``netcal.scaling`` imports pyro (which configures the
``pyro`` logger: level INFO with a ``StreamHandler`` on stderr, pyro/
logger.py:8-13), ``torch.utils.tensorboard`` (nothing is written), tqdm and
scikit-learn; ``netcal.regression.gp`` also imports gpytorch, linear_operator
(whose module-level ``torch.jit.script`` helpers, linear_operator/utils/
linear_cg.py:17-50, make torch warn that ``torch.jit.script`` is deprecated, a
``DeprecationWarning`` per helper at import) and matplotlib's pyplot
(regression/gp/AbstractGP.py:14).

Library bugs and quirks (checked eagerly; no row depends on them): (1)
``ConfidencePenalty(threshold=t)`` with ``t > 0`` calls ``torch.maximum(0.0,
self.threshold - loss)`` (regularization/ConfidencePenalty.py:110) and raises
``TypeError: maximum(): argument 'input' (position 1) must be Tensor, not
float``: the thresholded penalty never ran.  (2) ``AbstractLogistic
Regression.transform(..., mean_estimate=True)`` after a variational fit calls
``torch.from_numpy`` on the stored pyro parameters (scaling/
AbstractLogisticRegression.py:803), which are tensors: ``TypeError: expected
np.ndarray (got Tensor)``.  (3) ``BetaLikelihood.cdf`` with an integer ``t``
calls ``.cpu().numpy()`` on the calibrated CDF (likelihood/
BetaLikelihood.py:266) and so raises "Can't call numpy() on Tensor that
requires grad" unless run under ``no_grad`` (``GPBeta.transform`` does).  (4)
``AbstractGP.fit`` and every GP ``transform`` build their ``DataLoader`` with
``pin_memory=True`` (AbstractGP.py:670, GPBeta.py:215, GPCauchy.py:165): on a
machine without an accelerator torch warns ("'pin_memory' argument is set as
true but no accelerator is found"). (5) ``AbstractGP.fit`` builds its
``Trace_ELBO`` with ``vectorize_particles=True`` and no ``max_plate_nesting``
(AbstractGP.py:674), so pyro guesses it on the first step and logs "Guessed
max_plate_nesting = 2" at INFO through the ``pyro`` logger's stderr handler
on every fit.  (6) The ``tqdm`` bars of ``AbstractGP.fit``,
``AbstractLogisticRegression.variational`` and ``momentum`` take no
``disable`` argument: the fit rows' wrappers run them under
``contextlib.redirect_stderr`` into a discarded ``io.StringIO`` (the bar and
the warnings' text go there; pyro's log line does not, its handler holding
the original stream).  (7) ``LogisticCalibration``'s and ``BetaCalibration``'s
multiclass ``'mle'`` fits take 1.5 to 3 s on 60 samples (scipy's
finite-difference gradients, one torch forward and one ``.item()`` per
evaluation): the rows fit temperature scaling (one weight) and a binary Beta
calibration instead.  (8) ``BetaCalibration``'s MLE passes the ``positive``
constraint of its shape weights to scipy as the bound ``(0, inf)``
(``_get_scipy_constraints``, scaling/AbstractLogisticRegression.py:927-948),
so the weights can never come out negative and the ``mask_negative`` rerun
(614-621, ``BetaCalibration.mask``) finds nothing to mask: on anti-calibrated
data the weights simply stop at 0.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

NETCAL = ("netcal", "1.4.0")

INFERENCE = ("inference",)

# --- helpers -------------------------------------------------------------------------------


def _r21c_logits(n: int = 16, k: int = 4, n_right: int = 9) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits (n, k) and int64 targets: the first ``n_right`` targets are the argmax (right predictions), the rest
    drawn uniformly (some right by chance), so both the matched and the unmatched sets are non-empty."""
    logits = torch.randn(n, k) * 1.5
    target = torch.randint(0, k, (n,))
    target[:n_right] = logits[:n_right].argmax(dim=1)
    target[n_right] = (logits[n_right].argmax() + 1) % k
    return logits, target


def _r21c_softmax_data(n: int = 60, k: int = 4) -> tuple[Any, Any]:
    """Over-confident float64 softmax confidences (n, k) as numpy and numpy int64 labels drawn from a softened
    softmax, every class present."""
    logits = torch.randn(n, k, dtype=torch.float64) * 2.0
    labels = torch.distributions.Categorical(logits=logits * 0.5).sample()
    labels[:k] = torch.arange(k)
    return torch.softmax(logits, dim=1).numpy(), labels.numpy()


def _r21c_regression_data(n: int = 24, d: int = 1) -> tuple[Any, Any, Any]:
    """A probabilistic regressor's float64 means and standard deviations (n, [d]) and targets whose noise is about
    twice the predicted deviation, as numpy arrays."""
    shape = (n,) if d == 1 else (n, d)
    mean = torch.randn(shape, dtype=torch.float64)
    std = torch.rand(shape, dtype=torch.float64) * 0.4 + 0.3
    target = mean + torch.randn(shape, dtype=torch.float64) * std * 2.0
    return mean.numpy(), std.numpy(), target.numpy()


def _r21c_gp(cls_name: str, d: int = 1, correlations: bool = False) -> tuple[Any, Any, Any, Any]:
    """A netcal GP recalibration model set up as ``AbstractGP.fit`` sets it up before its first SVI step
    (``_get_input``, ``_init_gp_model``, float64), without running the fit: the variational parameters are marked
    initialized and every parameter is moved by seeded noise (a model some steps into training); returns the model
    and its (mean, std, target) numpy data."""
    import netcal.regression.gp as gp_module

    mean, std, target = _r21c_regression_data(24, d)
    kwargs: dict[str, Any] = {"correlations": True} if correlations else {}
    gp = getattr(gp_module, cls_name)(n_inducing_points=4, n_random_samples=8, n_epochs=2, batch_size=24, **kwargs)
    with torch.no_grad():
        (x_mean, x_var), _ = gp._get_input((mean, std), target)
    gp._init_gp_model(x_mean, x_var)
    gp.to(dtype=gp.precision)
    with torch.no_grad():
        for param in gp.parameters():
            param.add_(0.1 * torch.randn_like(param))
        gp.variational_strategy.base_variational_strategy.variational_params_initialized.fill_(1)
    return gp, mean, std, target


def _r21c_gp_elbo(gp: Any, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The objective ``AbstractGP.fit`` steps (regression/gp/AbstractGP.py:673-711): the vectorized ``Trace_ELBO``
    over ``n_random_samples`` particles of netcal's pyro ``model``/``guide`` under the fit's Cholesky jitter,
    as a differentiable loss, in a fresh pyro param-store scope (``max_plate_nesting=2``, the value the fit's
    ELBO guesses, given so nothing is logged)."""
    import gpytorch
    import pyro

    with pyro.get_param_store().scope():
        elbo = pyro.infer.Trace_ELBO(num_particles=gp.n_random_samples, vectorize_particles=True,
                                     max_plate_nesting=2)
        with gpytorch.settings.cholesky_jitter(float_value=gp.jitter, double_value=gp.jitter):
            return elbo.differentiable_loss(gp.model, gp.guide, x, y)


def _r21c_gp_elbo_args(gp: Any, mean: Any, std: Any, target: Any) -> Built:
    with torch.no_grad():
        (x_mean, x_var), y = gp._get_input((mean, std), target)
    gp.train()  # the fit's mode (AbstractGP.py:688); gp is an argument: the harness does not set it
    return _r21c_gp_elbo, (gp, torch.cat((x_mean, x_var), dim=1), y), {}


def _r21c_fit_sites(cal: Any, X: Any, y: Any, **kwargs: Any) -> tuple[Any, ...]:
    """``cal.fit(X, y, **kwargs)`` under ``torch.enable_grad()`` (the momentum fit backpropagates itself and fails
    under no_grad), its tqdm bar (if any) written into a discarded buffer; returns the fitted values of every pyro
    site (numpy arrays)."""
    with torch.enable_grad(), contextlib.redirect_stderr(io.StringIO()):
        cal.fit(X, y, **kwargs)
    return tuple(site["values"].copy() for site in cal._sites.values())


# --- builders ------------------------------------------------------------------------------


def _r21c_mmce(training: bool) -> Built:
    from netcal.regularization import MMCEPenalty

    logits, target = _r21c_logits()
    return MMCEPenalty(weight=1.0), (logits, target), {}


def _r21c_dca(training: bool) -> Built:
    from netcal.regularization import DCAPenalty

    logits, target = _r21c_logits()
    return DCAPenalty(weight=1.0), (logits, target), {}


def _r21c_rbf_kernel(training: bool) -> Built:
    from netcal.regression.gp.kernel import GaussianRBFKernel

    kernel = GaussianRBFKernel(cov=False).double()
    with torch.no_grad():
        kernel.lengthscale = torch.tensor(0.8, dtype=torch.float64)
    x1 = torch.cat((torch.randn(6, 2, dtype=torch.float64), torch.randn(6, 2, dtype=torch.float64) * 0.3 - 1.0), 1)
    x2 = torch.cat((torch.randn(5, 2, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64) * 0.3 - 1.0), 1)
    return kernel.forward, (x1, x2), {}


def _r21c_mv_cauchy(training: bool) -> Built:
    from netcal import mv_cauchy_log_density

    a = torch.randn(8, 2, 2, dtype=torch.float64) * 0.5
    cov = a @ a.transpose(-2, -1) + torch.eye(2, dtype=torch.float64) * 0.5
    return mv_cauchy_log_density, (torch.randn(8, 2, dtype=torch.float64), torch.randn(8, 2, dtype=torch.float64),
                                   cov), {}


def _r21c_gp_normal_elbo(training: bool) -> Built:
    return _r21c_gp_elbo_args(*_r21c_gp("GPNormal"))


def _r21c_gp_beta_elbo(training: bool) -> Built:
    return _r21c_gp_elbo_args(*_r21c_gp("GPBeta"))


def _r21c_gp_normal_correlations_elbo(training: bool) -> Built:
    return _r21c_gp_elbo_args(*_r21c_gp("GPNormal", d=2, correlations=True))


def _r21c_gp_beta_transform(training: bool) -> Built:
    gp, mean, std, _ = _r21c_gp("GPBeta")
    gp.eval()
    return gp.transform, ((mean[:6], std[:6]),), {"t": 16}


def _r21c_gp_cauchy_transform(training: bool) -> Built:
    gp, mean, std, _ = _r21c_gp("GPCauchy")
    gp.eval()
    return gp.transform, ((mean[:8], std[:8]),), {}


def _r21c_gp_fit_run(gp: Any, mean: Any, std: Any, target: Any) -> tuple[torch.Tensor, ...]:
    """``gp.fit((mean, std), target)`` under ``torch.enable_grad()`` (under no_grad pyro's ``Trace_ELBO`` skips the
    backward and the fit silently does not train), its tqdm bar and warnings' text written into a discarded
    buffer; returns the fitted parameters (the best epoch's, as the fit restores them)."""
    with torch.enable_grad(), contextlib.redirect_stderr(io.StringIO()):
        gp.fit((mean, std), target)
    return tuple(p.detach().clone() for p in gp.parameters())


def _r21c_gp_normal_fit(training: bool) -> Built:
    from netcal.regression.gp import GPNormal

    mean, std, target = _r21c_regression_data(24)
    gp = GPNormal(n_inducing_points=4, n_random_samples=8, n_epochs=3, batch_size=12)
    return _r21c_gp_fit_run, (gp, mean, std, target), {}


def _r21c_beta_likelihood_cdf(training: bool) -> Built:
    from netcal.regression.gp.likelihood import BetaLikelihood

    loc = torch.randn(1, 1, 6, 1, dtype=torch.float64)
    logvar = torch.randn(1, 1, 6, 1, dtype=torch.float64) * 0.3 - 1.0
    parameters = torch.randn(1, 4, 6, 3, dtype=torch.float64) * 0.5

    def cdf(loc: torch.Tensor, logvar: torch.Tensor, parameters: torch.Tensor, t: int) -> Any:
        """``BetaLikelihood(loc, logvar, parameters).cdf(t)``: the recalibrated CDF's sampling points and values."""
        return BetaLikelihood(loc, logvar, parameters).cdf(t)

    return cdf, (loc, logvar, parameters, 16), {}


def _r21c_temperature_scaling_fit(training: bool) -> Built:
    from netcal.scaling import TemperatureScaling

    conf, labels = _r21c_softmax_data(40, 3)
    return _r21c_fit_sites, (TemperatureScaling(method="mle"), conf, labels), {"tensorboard": False}


def _r21c_beta_calibration_fit(training: bool) -> Built:
    from netcal.scaling import BetaCalibration

    conf = torch.rand(40, dtype=torch.float64)
    labels = (torch.rand(40, dtype=torch.float64) < (1.0 - conf) ** 2).long()  # anti-calibrated: weights at 0
    return _r21c_fit_sites, (BetaCalibration(method="mle"), conf.numpy(), labels.numpy()), {"tensorboard": False}


def _r21c_vi_elbo(cal: Any, data: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The objective ``AbstractLogisticRegression.variational`` steps (scaling/AbstractLogisticRegression.py:
    505-517): ``Trace_ELBO`` of netcal's pyro ``model`` and ``guide`` on the prepared features, as a
    differentiable loss, in a fresh pyro param-store scope (the guide's parameters start at the sites' inits)."""
    import pyro

    with pyro.get_param_store().scope():
        return pyro.infer.Trace_ELBO(max_plate_nesting=1).differentiable_loss(cal.model, cal.guide, data, y)


def _r21c_beta_calibration_vi_elbo(training: bool) -> Built:
    from netcal import AbstractCalibration
    from netcal.scaling import BetaCalibration

    conf, labels = _r21c_softmax_data(60, 4)
    cal = BetaCalibration(method="variational")
    # what AbstractLogisticRegression.fit does before `variational` (scaling/AbstractLogisticRegression.py:374-395)
    X, y = AbstractCalibration.fit(cal, conf, labels)
    data = cal.prepare(X)
    cal.num_features = 1
    cal.prior(dtype=data.dtype)
    for site in cal._sites.values():
        site["prior"] = site["prior"].independent(1)
    return _r21c_vi_elbo, (cal, data, torch.from_numpy(y).to(data.dtype)), {}


def _r21c_vi_transform_run(cal: Any, X: Any, num_samples: int) -> Any:
    """``cal.transform(X, num_samples=...)`` in a pyro param-store scope (transform ``set_state``s the global
    store with the fitted variational parameters)."""
    import pyro

    with pyro.get_param_store().scope():
        return cal.transform(X, num_samples=num_samples)


def _r21c_logistic_calibration_vi_transform(training: bool) -> Built:
    import pyro
    from netcal.scaling import LogisticCalibration

    conf, labels = _r21c_softmax_data(60, 4)
    cal = LogisticCalibration(method="variational", vi_epochs=3)
    with pyro.get_param_store().scope(), contextlib.redirect_stderr(io.StringIO()):
        cal.fit(conf, labels, tensorboard=False)
    return _r21c_vi_transform_run, (cal, conf[:8], 6), {}


def _r21c_logistic_calibration_momentum_fit(training: bool) -> Built:
    from netcal.scaling import LogisticCalibration

    conf = torch.rand(40, 3, dtype=torch.float64)
    labels = (torch.rand(40, dtype=torch.float64) < conf[:, 0]).long()
    cal = LogisticCalibration(method="momentum", momentum_epochs=4, detection=True)
    return _r21c_fit_sites, (cal, conf.numpy(), labels.numpy()), {"tensorboard": False}


# --- rows ------------------------------------------------------------------------------------

_GP_MODULES = ("netcal", "gpytorch", "linear_operator", "pyro")
_GP_SETUP = (
    "the model set up as `AbstractGP.fit` sets it up (24 samples, 4 inducing points, float64; the variational "
    "parameters marked initialized and every parameter moved by seeded noise: a model some steps into training)"
)
_ELBO_NOTES = (
    "the objective `AbstractGP.fit` steps per batch, in a fresh pyro param-store scope; the latent functions are "
    "sampled from torch's generator in the call (8 vectorized particles); the model is in train mode in both modes "
    "(as the fit runs it; it is an argument, not the callable's __self__); in training the input (means and "
    "log-variances) requires grad, the targets are frozen (the GP's parameters get gradients through "
    "`pyro.module`)"
)
_ELBO_PATTERNS = (
    "`Trace_ELBO.differentiable_loss` (pyro: vectorized particles in a plate, `poutine.trace` of guide and model, "
    "Python loops over the sites, `is_identically_zero` tests), `AbstractGP.guide` (regression/gp/AbstractGP.py:"
    "332-350: gpytorch's `pyro_guide`, a plate, a sample) and `AbstractGP.model` (352-414: `assert x.ndim == 2`, "
    "slicing by a Python `n_dims`, `pyro.module` (re-registers and `load_state_dict`s every parameter), "
    "`pyro_model`, a plate, the sample of the latent functions, `* inv_gamma + delta`, the test "
    "`function_samples.ndim == 3`, the likelihood, `to_event(1)` when not correlated, `pyro.sample(obs=y)`); "
    "through gpytorch's variational strategies `variational_params_initialized.item()` (gpytorch/variational/"
    "_variational_strategy.py:345) and `updated_strategy.item()` (variational_strategy.py:381), "
    "`psd_safe_cholesky` (linear_operator/utils/cholesky.py:22: `not torch.any(info)`, a tensor's truth), "
    "`GaussianRBFKernel.forward` (kernel/GaussianRBFKernel.py:47-141) under `ScaleKernel`"
)
_FIT_NOTES = (
    "inference only: a fit that runs its own optimizer and returns numpy arrays (nothing differentiable comes out)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r21c_netcal_mmce_penalty", *NETCAL,
            "module: netcal.regularization.MMCEPenalty(weight=1.0)(logits (16, 4), target (16,) int64: 9 right "
            "by construction, the rest random); returns a 0-d tensor",
            ("netcal",), _r21c_mmce,
            notes="the trainable MMCE calibration penalty on one training batch, with both right and wrong "
            "predictions (so all three kernel terms are computed); in training the logits require grad",
            patterns="`MMCEPenalty.forward` (regularization/MMCEPenalty.py:43-77: `max` of the softmax, `clamp`, "
            "a three-argument `torch.where`, `len`, `n_correct = torch.sum(matched)`, boolean-mask indexing "
            "`probs[matched == 0]` and `probs[matched == 1]` (55-56: data-dependent shapes), the Laplacian "
            "`kernel` (37-41) on the masked sets, `matmul`s, then three Python conditional expressions that test "
            "a tensor (`if n_samples - n_correct > 0`, `if n_correct > 0`, `if (n_samples - n_correct) * n_correct "
            "> 0`) and divide by `float(...)` of a tensor (71-73), `sqrt`)",
        ),
        Row(
            "r21c_netcal_gp_normal_elbo", *NETCAL,
            "wrapper: pyro.infer.Trace_ELBO(num_particles=8, vectorize_particles=True, max_plate_nesting=2)"
            ".differentiable_loss(gp.model, gp.guide, x (24, 2) float64 [mean, log-variance], y (24, 1)) for "
            "gp = netcal.regression.gp.GPNormal(n_inducing_points=4, n_random_samples=8) under the fit's "
            "cholesky_jitter; returns a 0-d tensor",
            _GP_MODULES, _r21c_gp_normal_elbo, frozen=("2",),
            notes="GP-Normal (variance rescaling by a GP) one SVI objective; " + _GP_SETUP + "; " + _ELBO_NOTES,
            patterns=_ELBO_PATTERNS + "; the likelihood `ScaledNormalLikelihood` (likelihood/"
            "ScaledNormalLikelihood.py:45-62: `exp` of the log-variance times the exponentiated parameters)",
        ),
        Row(
            "r21c_netcal_gp_beta_elbo", *NETCAL,
            "wrapper: the vectorized Trace_ELBO differentiable loss (8 particles) of "
            "netcal.regression.gp.GPBeta(n_inducing_points=4, n_random_samples=8)'s model/guide on x (24, 2) "
            "float64, y (24, 1); returns a 0-d tensor",
            _GP_MODULES, _r21c_gp_beta_elbo, frozen=("2",),
            notes="GP-Beta (Song et al.'s distribution calibration: a beta calibration map of the CDF whose three "
            "parameters a GP gives per sample, with learnt scale and shift) one SVI objective; " + _GP_SETUP + "; "
            + _ELBO_NOTES,
            patterns=_ELBO_PATTERNS + "; the likelihood `BetaLikelihood.log_prob` (likelihood/BetaLikelihood.py:"
            "142-200: the normal CDF and density under `no_grad` with `clamp(..., out=)`, `[..., 0::3]` slices, "
            "`logsumexp`, `_get_beta_logit` (376-420: `stack`, `exp`), `softplus`)",
        ),
        Row(
            "r21c_netcal_gp_normal_correlations_elbo", *NETCAL,
            "wrapper: the vectorized Trace_ELBO differentiable loss (8 particles) of "
            "netcal.regression.gp.GPNormal(n_inducing_points=4, n_random_samples=8, correlations=True)'s "
            "model/guide on x (24, 5) float64 [mean (2), Cholesky factor (3)], y (24, 2); returns a 0-d tensor",
            _GP_MODULES, _r21c_gp_normal_correlations_elbo, frozen=("2",),
            notes="GP-Normal covariance estimation for 2-D regression (the GP rescales an LDL* decomposition of "
            "the covariance; netcal builds the input covariances from the deviations and the targets' "
            "correlation, `np.corrcoef`, in `_get_input`); " + _GP_SETUP + "; " + _ELBO_NOTES,
            patterns=_ELBO_PATTERNS + " with `cov=True` (`int(np.sqrt(...))` of a shape, index setitems by "
            "`tril_indices`, an in-place `diagonal[:] = ...` on a view, `linalg.inv`, `linalg.det`), "
            "`AbstractGP.model`'s `int(np.sqrt(8 * x.shape[-1] + 9))` (AbstractGP.py:375); the likelihood "
            "`ScaledMultivariateNormalLikelihood` (likelihood/ScaledMultivariateNormalLikelihood.py:55-139: "
            "`reconstruct` twice: `int(np.sqrt(...))` of a shape, `zeros`, an index setitem by `tril_indices`, "
            "`diagonal_view.clone()`, an in-place `diagonal_view[:] = 1.`; `square`, `exp`, `diag_embed`, two "
            "`@`; torch's `MultivariateNormal` (`cholesky`) with `validate_args=False`)",
        ),
        Row(
            "r21c_netcal_beta_calibration_vi_elbo", *NETCAL,
            "wrapper: pyro.infer.Trace_ELBO(max_plate_nesting=1).differentiable_loss(cal.model, cal.guide, data "
            "(60, 4, 2) float64 Beta features, y (60,) float64 labels) for cal = netcal.scaling.BetaCalibration("
            "method='variational') with its priors set as fit sets them; returns a 0-d tensor",
            ("netcal", "pyro"), _r21c_beta_calibration_vi_elbo, frozen=("2",),
            notes="Bayesian Beta calibration (Kueppers et al.) one SVI objective for 4 classes, in a fresh "
            "pyro param-store scope (the guide's Normal/LogNormal parameters start at the sites' inits); weights "
            "sampled from torch's generator in the call; in training the features require grad, the labels are "
            "frozen. pyro warns (DeprecationWarning) that `independent` is deprecated on every guide call",
            patterns="`Trace_ELBO.differentiable_loss` (pyro's trace machinery), `AbstractLogisticRegression.guide` "
            "(scaling/AbstractLogisticRegression.py:272-299: a Python loop over the sites, `pyro.param` with "
            "`positive`/`real` constraints, an `isinstance` test choosing `LogNormal`, `.independent(1)`, samples "
            "with `validate_args=True`), `BetaCalibration.model` (scaling/BetaCalibration.py:285-358: the Python "
            "`method in [...]` test, `torch.log(weights + 1)`, `assert (weights >= 0).all().item() == True` "
            "(311: a tensor read), `weights[torch.isinf(weights)] = torch.log(torch.tensor(finfo.max))` (315: a "
            "boolean-mask setitem), a plate, `reshape`, `matmul` over the permuted features, `transpose`, "
            "`softmax`, `pyro.sample('obs', Categorical(probs, validate_args=True), obs=y)`: torch's "
            "`Distribution` validation tests `constraint.check(...).all()` in Python)",
        ),
        Row(
            "r21c_netcal_gp_beta_transform", *NETCAL,
            "method: gp.transform((mean (6,), std (6,)) numpy float64, t=16) for "
            "gp = netcal.regression.gp.GPBeta(n_inducing_points=4, n_random_samples=8); returns three numpy "
            "(16, 6, 1) arrays (sampling points, recalibrated PDF, CDF)",
            _GP_MODULES, _r21c_gp_beta_transform, modes=INFERENCE,
            notes="inference only: numpy in, numpy out, run under `no_grad` by the method. GP-Beta recalibration "
            "of 6 predictive distributions into non-parametric ones over 16 points; " + _GP_SETUP + "; the "
            "functions sampled from torch's generator in the call; torch warns about `pin_memory` without an "
            "accelerator",
            patterns="`GPBeta.transform` (regression/gp/GPBeta.py:136-281: `_get_input` (AbstractGP.py:530-625: "
            "`meanvar` in numpy, `torch.from_numpy`, `log`), `isinstance(t, np.ndarray)`, a `DataLoader` loop "
            "with `len(batch)`, `pyro.get_param_store().scope(...)`, `self.to(...)`, the GP call in eval mode "
            "(gpytorch: `variational_params_initialized.item()`, `updated_strategy.item()`, cached "
            "`psd_safe_cholesky` with `torch.any(info)`), `output(torch.Size([8]))` samples, `BetaLikelihood.cdf("
            "16)` (likelihood/BetaLikelihood.py:239-297: `icdf` bounds read with `.cpu().numpy()`, six rounds of "
            "`np.linspace` + `torch.from_numpy` sampling points, the calibrated CDF read back with "
            "`.cpu().numpy()` (266), `np.argmax` of numpy comparisons, boolean-mask setitems on numpy indices "
            "(279-280), `np.take_along_axis`, the `it == max_iter` break), `BetaLikelihood.log_prob`, `mean`, "
            "`.to(float32)`, `cat`, three `.numpy()`)",
        ),
        Row(
            "r21c_netcal_gp_cauchy_transform", *NETCAL,
            "method: gp.transform((mean (8,), std (8,)) numpy float64) for "
            "gp = netcal.regression.gp.GPCauchy(n_inducing_points=4, n_random_samples=8); returns numpy (8, 1)",
            _GP_MODULES, _r21c_gp_cauchy_transform, modes=INFERENCE,
            notes="inference only: numpy in, numpy out, run under `no_grad` by the method. GP-Cauchy recalibrated "
            "Cauchy scales for 8 predictions; " + _GP_SETUP + "; the functions sampled from torch's generator in "
            "the call; torch warns about `pin_memory` without an accelerator",
            patterns="`GPCauchy.transform` (regression/gp/GPCauchy.py:130-205: `_get_input` (numpy `meanvar`, "
            "`torch.from_numpy`), a `DataLoader` loop, the pyro param-store scope, the GP call in eval mode "
            "(gpytorch's `.item()` reads of the strategy flags, `psd_safe_cholesky`'s `torch.any(info)` test), "
            "`output(torch.Size([8]))`, `exp`, `mean`, `.to(float32)`, `cat`, `.numpy()`)",
        ),
        Row(
            "r21c_netcal_gp_normal_fit", *NETCAL,
            "wrapper: netcal.regression.gp.GPNormal(n_inducing_points=4, n_random_samples=8, n_epochs=3, "
            "batch_size=12).fit((mean (24,), std (24,)), target (24,)) numpy float64, its tqdm bar redirected "
            "into a discarded buffer; returns the 7 fitted parameters",
            _GP_MODULES, _r21c_gp_normal_fit, modes=INFERENCE,
            notes=_FIT_NOTES + ". Three epochs of two shuffled batches (the shuffle, the particles and the "
            "variational initialization draw from torch's generator in the call); the fit's tqdm bar cannot be "
            "disabled through the API (written into an `io.StringIO` by the wrapper); pyro logs 'Guessed "
            "max_plate_nesting = 2' at INFO to stderr on every fit (its handler is not redirected); torch warns "
            "about `pin_memory`",
            patterns="`AbstractGP.fit` (regression/gp/AbstractGP.py:627-783: `clear` (a loop over children with "
            "`hasattr`), `_get_input` (numpy), `_init_gp_model` (418-528: `torch.min`/`max` values read with "
            "`.numpy()` into `np.linspace`, `torch.from_numpy`, building the LMC/variational strategies, kernels "
            "and parameters), a shuffling `DataLoader`, `SVI` with a vectorized `Trace_ELBO` (pyro guesses "
            "`max_plate_nesting` on the first step by tracing the model and guide), `version.parse` of gpytorch, "
            "a tqdm bar; per batch `self.zero_grad()`, `svi.step(...)` (ELBO, backward, pyro's Adam; returns a "
            "Python float) `/ len(batch_X)`; per epoch `np.mean`, `if epoch_loss < best_loss` (floats read from "
            "tensors), `deepcopy(self.state_dict())`, `pbar.set_description`; then `load_state_dict`, `cpu`, "
            "`eval`); the model path as in r21c_netcal_gp_normal_elbo",
        ),
        Row(
            "r21c_netcal_beta_likelihood_cdf", *NETCAL,
            "function: BetaLikelihood(loc (1, 1, 6, 1), logvar (1, 1, 6, 1), parameters (1, 4, 6, 3)) float64"
            ".cdf(16); returns (sampling points (16, 1, 6, 1), recalibrated CDF (16, 4, 6, 1))",
            _GP_MODULES, _r21c_beta_likelihood_cdf, modes=INFERENCE,
            notes="inference only: the method reads the calibrated CDF with `.numpy()` and raises when the "
            "parameters require grad (library quirk 3). The iterative search for the relevant support of GP-Beta's "
            "recalibrated CDF, for 6 predictions and 4 sampled parameter sets",
            patterns="`BetaLikelihood.__init__` (likelihood/BetaLikelihood.py:131-140: `exp`, `sqrt`, a pyro "
            "`Normal`), `BetaLikelihood.cdf` with an int `t` (202-317: `icdf` of 1e-7 and 1 - 1e-7, the bounds "
            "read with `.cpu().numpy()` (252), `_generate_sampling_points` (319-374: `np.linspace`, "
            "`torch.from_numpy`, an `ndim == 5` test, `cdf`, `clamp(out=)`), then `for it in range(6)`: "
            "`_get_beta_logit` (376-420), `sigmoid`, `if it == max_iter: break`, `.cpu().numpy()` of the CDF "
            "(266), `np.argmax` of numpy comparisons, `np.min`/`np.max`, boolean-mask setitems on numpy index "
            "arrays (279-280), two `np.take_along_axis` of `sampling_points.numpy()`, the next "
            "`_generate_sampling_points`)",
        ),
        Row(
            "r21c_netcal_temperature_scaling_fit", *NETCAL,
            "wrapper: netcal.scaling.TemperatureScaling(method='mle').fit(conf (40, 3) numpy float64 softmax, "
            "labels (40,) int64, tensorboard=False); returns the fitted temperature weight (numpy (1,))",
            ("netcal", "pyro"), _r21c_temperature_scaling_fit, modes=INFERENCE,
            notes=_FIT_NOTES + " (scipy's L-BFGS-B drives the torch loss). Temperature scaling of over-confident "
            "3-class softmax outputs; pyro warns (DeprecationWarning) that `independent` is deprecated",
            patterns="`AbstractLogisticRegression.fit` (scaling/AbstractLogisticRegression.py:343-431: "
            "`AbstractCalibration.fit` (AbstractCalibration.py:80-209: numpy checks, `np.unique`), `prepare` "
            "(LogisticCalibration.py:159-195: numpy inverse softmax, `torch.from_numpy`), `torch.from_numpy(y)`, "
            "`prior` (pyro `Normal(validate_args=True)`), `.independent(1)`, `manual_seed(None)`), `convex` "
            "(550-628: `initial_weights` by `.cpu().numpy()`, scipy `minimize(fun=MLE, bounds=...)` calling the "
            "closure `MLE` (566-578) per evaluation: a Python loop over the sites, `torch.from_numpy(w[...])`, "
            "`pyro.condition(self.model, data=...)(x)` (LogisticCalibration.py:253-317: `pyro.sample` of the "
            "conditioned weight, the Python `temperature_only` test, a plate, `mul`), `CrossEntropyLoss`, "
            "`.item()` (578: one float read per function evaluation); `site['values'] = result.x...astype`)",
        ),
        Row(
            "r21c_netcal_beta_calibration_fit", *NETCAL,
            "wrapper: netcal.scaling.BetaCalibration(method='mle').fit(conf (40,) numpy float64, labels (40,) "
            "anti-correlated with conf, tensorboard=False); returns the fitted (bias (1,), weights (2,))",
            ("netcal", "pyro"), _r21c_beta_calibration_fit, modes=INFERENCE,
            notes=_FIT_NOTES + ". Binary Beta calibration (Kull et al.) of an anti-calibrated classifier: both "
            "shape weights end on their lower bound 0 (28 function evaluations), `mask_negative` then finds no "
            "negative weight and `minimize` is not rerun (library quirk 8); pyro warns (DeprecationWarning) that "
            "`independent` is deprecated",
            patterns="`AbstractLogisticRegression.fit` as in r21c_netcal_temperature_scaling_fit with "
            "`BetaCalibration.prepare` (scaling/BetaCalibration.py:157-219: a Python loop over the columns, "
            "`np.stack`, `np.clip`, `np.log`, `torch.from_numpy`), `convex` (550-628: two scipy `minimize` runs "
            "whose closure reads `loss.item()` per evaluation (578); the conditioned `BetaCalibration.model` "
            "(285-358: `reshape`, `matmul`, `sigmoid`), `BCELoss`), `_get_scipy_constraints` (927-948: `hasattr` "
            "tests of the `positive` constraint's bounds), then, `mask_negative` being set, `mask` "
            "(BetaCalibration.py:360-420: `np.where(weights.flatten() < 0)`, the `len` test) and `if bounds` (618: "
            "empty, no second `minimize`)",
        ),
        Row(
            "r21c_netcal_logistic_calibration_vi_transform", *NETCAL,
            "wrapper: cal.transform(conf (8, 4) numpy float64, num_samples=6) in a pyro param-store scope, for cal "
            "= netcal.scaling.LogisticCalibration(method='variational', vi_epochs=3) fitted in the builder; "
            "returns numpy (6, 8, 4)",
            ("netcal", "pyro"), _r21c_logistic_calibration_vi_transform, modes=INFERENCE,
            notes="inference only: numpy in, numpy out (no gradient path: the sampled weights are detached). "
            "Bayesian logistic (vector) scaling: 6 weight sets drawn from the variational posterior by pyro's "
            "Predictive (torch's generator, in the call) and 6 calibrated outputs; pyro warns "
            "(DeprecationWarning) that `independent` is deprecated",
            patterns="`AbstractLogisticRegression.transform` (scaling/AbstractLogisticRegression.py:720-886: "
            "`AbstractCalibration.transform` (numpy shape checks, `squeeze_generic`), `self.to` (314-341: "
            "`assert isinstance` checks, a loop re-placing prior and variational tensors), `prepare` "
            "(`torch.from_numpy`), the dtype test, `pyro.get_param_store().set_state(self.vi_model)` (826), "
            "`Predictive(model, guide, num_samples=6)` (pyro: vectorized-or-looped trace of the guide and model "
            "over the samples), `torch.squeeze`, two Python loops over the samples and sites (841-848: "
            "`samples[site][i].detach()`), a Python loop of `process_model` (755-768: `pyro.condition`, the "
            "model, `softmax`) per sample, `torch.stack(...).cpu().numpy()` (858), `squeeze_generic`, `np.clip`)",
        ),
        Row(
            "r21c_netcal_logistic_calibration_momentum_fit", *NETCAL,
            "wrapper: netcal.scaling.LogisticCalibration(method='momentum', momentum_epochs=4, detection=True)"
            ".fit(X (40, 3) numpy float64 [confidence, 2 box features], labels (40,) int64, tensorboard=False), "
            "its tqdm bar redirected into a discarded buffer; returns the fitted (weights (3,), bias (1,))",
            ("netcal", "pyro"), _r21c_logistic_calibration_momentum_fit, modes=INFERENCE,
            notes=_FIT_NOTES + ". Detection calibration (Kueppers et al.'s multivariate Platt scaling over the "
            "confidence and two box features) by 4 epochs of Adam; the tqdm bar cannot be disabled through the "
            "API (written into an `io.StringIO` by the wrapper); torch warns, once per process, about converting a "
            "tensor that requires grad to a scalar (the bar's `'%.6f' % best_loss`); pyro warns "
            "(DeprecationWarning) that `independent` is deprecated",
            patterns="`AbstractLogisticRegression.fit` (343-431, detection: `prepare` with the numpy inverse "
            "sigmoid of the first column), `momentum` (scaling/AbstractLogisticRegression.py:630-716: `assert "
            "self.detection`, a `DataLoader` of one batch, `nn.Parameter`s of the inits, `Adam`, a tqdm bar; per "
            "epoch and batch a dict of the parameters, `pyro.condition(self.model, ...)` (LogisticCalibration.py:"
            "253-317: `reshape`, `matmul`, `squeeze`), `BCEWithLogitsLoss`, `zero_grad`, `backward`, `step`, `if "
            "loss < best_loss` (684: the truth of a tensor comparison, the first against `np.inf`), `'%.6f' % "
            "best_loss` (a float read), `pbar.refresh`; then `param.detach().cpu().numpy()` (698), "
            "`_get_scipy_constraints` and `np.clip` with Python lists of bounds)",
        ),
        Row(
            "r21c_netcal_dca_penalty_control", *NETCAL,
            "module: netcal.regularization.DCAPenalty(weight=1.0)(logits (16, 4), target (16,) int64); returns a "
            "0-d tensor",
            ("netcal",), _r21c_dca,
            notes="control: the difference-between-confidence-and-accuracy penalty on one training batch; in "
            "training the logits require grad (the accuracy term is detached)",
            patterns="control: no tensor value reaches Python. `DCAPenalty.forward` (regularization/DCAPenalty.py:"
            "35-48: `max` of the softmax, a three-argument `torch.where`, `mean` of the detached float matches, "
            "`abs` of the difference)",
        ),
        Row(
            "r21c_netcal_rbf_kernel_control", *NETCAL,
            "method: netcal.regression.gp.kernel.GaussianRBFKernel(cov=False) (float64, lengthscale 0.8)"
            ".forward(x1 (6, 4), x2 (5, 4)) [means (2), log-variances (2)]; returns (6, 5)",
            ("netcal", "gpytorch"), _r21c_rbf_kernel,
            notes="control: the moment-matching Gaussian kernel between two sets of 2-D Gaussian inputs that "
            "netcal's GP recalibration uses; in training both inputs and the raw lengthscale require grad",
            patterns="control: no tensor value reaches Python. `GaussianRBFKernel.forward` (regression/gp/kernel/"
            "GaussianRBFKernel.py:47-141: two `ndim` asserts (Python ints), the Python `cov` test, `exp` of the "
            "log-variances, broadcast sums with `square(lengthscale)` (gpytorch's `lengthscale` property: the "
            "`Positive` constraint's softplus of the raw parameter), `diag_embed(1 / variances)`, `prod`, "
            "`unsqueeze`, two `matmul`s for the Mahalanobis term, `exp`, `pow(lengthscale, n_dims)` with a "
            "Python int, `div`, `sqrt`, the Python `diag` test)",
        ),
        Row(
            "r21c_netcal_mv_cauchy_log_density_control", *NETCAL,
            "function: netcal.mv_cauchy_log_density(value (8, 2), loc (8, 2), cov (8, 2, 2) SPD) float64; "
            "returns (8,)",
            ("netcal",), _r21c_mv_cauchy,
            notes="control: the multivariate Cauchy log-density netcal's NLL metric uses for multivariate "
            "GP-Cauchy outputs; in training the value, the location and the scale matrices require grad",
            patterns="control: no tensor value reaches Python. `mv_cauchy_log_density` (Helper.py:507-541: "
            "`unsqueeze`, `linalg.inv`, `torch.tensor(loc.shape[-1])` (a Python int), `lgamma` of "
            "`torch.tensor(0.5)`, `log` of `torch.tensor(np.pi)` (constants), `logdet`, a transposed `@` "
            "Mahalanobis, `log`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-one (c)")
