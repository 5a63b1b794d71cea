"""Held-out round twelve (r12b): torchquad and pytorch-minimize (torchmin).

Chosen by reading each library's source, written down in ROUND12.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

torchquad integrates a user function over a domain; the rows integrate
functions of tensor parameters, with tensor integration domains (so training
differentiates the integral with respect to both).  Its data-dependent code is
in ``VEGAS``: the adaptive map (``VEGASMap``: interval ids from ``floor`` of
the samples, ``scatter_add_`` weights, ``if anp.any(counts == 0)`` neighbour
filling, ``if anp.any(weights_sums == 0.0)``, boolean-mask range compression
``d_tmp[d_tmp != 0] = ...``, edge indices from a float64 ``cumsum`` cast to
int64, ``if not anp.all(isfinite(edges))``), the stratification
(``torch.repeat_interleave`` with per-cube counts from the data, so the number
of samples per iteration is data-dependent; ``d_tmp[d_tmp < 0.0] = 0.0``;
``if d_sum != 0``), f-strings that format 0-d tensors into (disabled) loguru
calls, and the every-fifth-iteration abort test (``if (err <= ...) and chi2 /
5.0 < 1.0``, ``int(self._starting_N * anp.sqrt(acc / ...))``) that decides how
many iterations run; ``return_error=True`` adds ``float(chi2)`` into SciPy.
Every integrator with a tensor domain checks it with ``if anp.min(domain[:, 1]
- domain[:, 0]) < 0.0: raise``; ``GaussLegendre`` with a vector-valued
integrand broadcasts its weights with ``torch.repeat_interleave`` by a 0-d
tensor (``anp.prod`` of a shape tensor) and a reshape whose sizes are tensor
elements.  The control is ``MonteCarlo`` over a Python-list domain (no tensor
value reaches Python).  Importing torchquad does not change torch's default
dtype or device (it disables its own loguru records); ``set_up_backend`` /
``set_precision`` would (``torch.set_default_dtype``, an environment variable),
so no row calls them: every domain is a tensor with an explicit dtype.

torchmin's ``minimize`` methods are ``@torch.no_grad()`` around their own
autograd closures (``x.detach().requires_grad_(True)``, ``f.detach()``), so
their results carry no gradient path and those rows are inference only.  The
data-dependent code: convergence tests on 0-d tensors (``if g.norm(p=normp) <=
gtol: break``, ``if (s.norm() <= xtol) | (...)``, ``if ~f.isfinite()``), the
strong-Wolfe line search (``float(f)``, ``float(t)``, Python loops comparing
tensors, ``torch.optim.lbfgs._cubic_interpolate``), the BFGS curvature skip
``if rho_inv <= 1e-10: return``, Newton-CG's inner CG loop (``if r.norm() <
tol: break``, ``if curv_sum < 0``), the trust-region loop (``if
predicted_reduction <= 0``, ``if rho < 0.25`` / ``elif rho > 0.75 and
hits_boundary``, ``if m.jac_mag < gtol``) with its CG subproblem (``while
True``, ``if dBd <= 0``, ``if norm(z_next) >= trust_radius``), and ``print``
of tensors (``'%0.4f' % f``) with ``disp=2``.  ``least_squares`` (TRF) is not
under ``no_grad``: its result is built from residuals evaluated with grad
enabled, so that row also runs in training.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCHQUAD = ("torchquad", "0.6.0")
TORCHMIN = ("pytorch-minimize", "0.1.0")


# --- torchquad helpers ---------------------------------------------------------------


def _r12b_gaussian_peak(x: torch.Tensor, center: torch.Tensor, width: torch.Tensor) -> torch.Tensor:
    """A narrow 2-D Gaussian bump (what VEGAS adapts to); one value per point."""
    return torch.exp(-((x - center) ** 2).sum(-1) / (2.0 * width**2))


def _r12b_vegas(integrator: Any, rng: Any, domain: torch.Tensor, center: torch.Tensor,
                width: torch.Tensor) -> Any:
    """``VEGAS().integrate(peak, dim=2, N=2000, ..., rng=rng, return_error=True)``; the tensors
    are top-level arguments (the integrand gets them through ``args``)."""
    res = integrator.integrate(_r12b_gaussian_peak, dim=2, N=2000, integration_domain=domain,
                               rng=rng, eps_rel=1e-3, max_iterations=20, return_error=True,
                               args=(center, width))
    return res.integral, res.sdev, res.chi2, torch.tensor([res.dof, res.nr_of_fevals])


def _r12b_vector_integrand(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    """A vector-valued integrand: (N, 2) points -> (N, 3) values."""
    phase = x[:, :1] * freqs + x[:, 1:2] * freqs.flip(0)
    return torch.stack([torch.sin(phase[:, 0]), torch.cos(phase[:, 1]), phase[:, 2] ** 2], dim=1)


def _r12b_gauss_legendre(integrator: Any, domain: torch.Tensor, freqs: torch.Tensor) -> Any:
    return integrator.integrate(_r12b_vector_integrand, dim=2, N=100, integration_domain=domain,
                                args=(freqs,))


def _r12b_scalar_integrand(x: torch.Tensor, coef: torch.Tensor) -> torch.Tensor:
    return torch.exp(coef[0] * x[:, 0]) * torch.cos(coef[1] * x[:, 1]) + coef[2] * x[:, 0] * x[:, 1]


def _r12b_boole(integrator: Any, domain: torch.Tensor, coef: torch.Tensor) -> Any:
    return integrator.integrate(_r12b_scalar_integrand, dim=2, N=144, integration_domain=domain,
                                args=(coef,))


def _r12b_mc_integrand(x: torch.Tensor, coef: torch.Tensor) -> torch.Tensor:
    return torch.sin(x @ coef) + x[:, 0] * x[:, 2]


def _r12b_monte_carlo(integrator: Any, coef: torch.Tensor) -> Any:
    return integrator.integrate(_r12b_mc_integrand, dim=3, N=2000,
                                integration_domain=[[0.0, 1.0], [-1.0, 1.0], [0.0, 2.0]], seed=5,
                                args=(coef,))


# --- torchmin helpers ----------------------------------------------------------------


def _r12b_result_tensors(res: Any) -> tuple[torch.Tensor, ...]:
    """The tensors of a scipy ``OptimizeResult`` (a dict subclass pytree does not flatten), plus
    its counters as a tensor so the comparison sees how many iterations ran."""
    counters = torch.tensor([int(res.nit), int(res.nfev), int(res.status)])
    return res.x, res.fun, res.grad, counters


def _r12b_bfgs(x0: torch.Tensor, shift: torch.Tensor) -> Any:
    """``minimize(rosen, x0, method='bfgs', disp=2)`` on a shifted 4-D Rosenbrock function."""
    from torchmin import minimize

    def rosen(x):
        z = x - shift
        return (100.0 * (z[1:] - z[:-1] ** 2) ** 2 + (1.0 - z[:-1]) ** 2).sum()

    res = minimize(rosen, x0, method="bfgs", disp=2)
    return (*_r12b_result_tensors(res), res.hess_inv)


def _r12b_cg(w0: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> Any:
    """``minimize(nll, w0, method='cg', disp=2)``: L2-regularised logistic regression."""
    from torchmin import minimize

    def nll(w):
        logits = X @ w
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, y) + 1e-2 * w.dot(w)

    res = minimize(nll, w0, method="cg", disp=2)
    return _r12b_result_tensors(res)


def _r12b_trust_exact(x0: torch.Tensor, A: torch.Tensor, b: torch.Tensor) -> Any:
    """``minimize(f, x0, method='trust-exact', disp=2)`` on a non-convex quartic (indefinite
    Hessian at the start)."""
    from torchmin import minimize

    def f(x):
        return 0.25 * (x**4).sum() - 0.5 * x.dot(A @ x) + b.dot(x)

    res = minimize(f, x0, method="trust-exact", disp=2, options={"initial_trust_radius": 0.5})
    return _r12b_result_tensors(res)


def _r12b_least_squares(x0: torch.Tensor, t: torch.Tensor, obs: torch.Tensor) -> Any:
    """``least_squares(residuals, x0)`` (trust-region reflective, the default 'lsmr' subproblem
    solver): fit ``a exp(-k t) + c`` to noisy observations."""
    from torchmin import least_squares

    def residuals(p):
        return p[0] * torch.exp(-p[1] * t) + p[2] - obs

    res = least_squares(residuals, x0)
    return res.x, res.cost, res.fun, res.grad, torch.tensor([res.nfev, res.njev, res.status])


# --- torchquad builders --------------------------------------------------------------


def _r12b_tq_vegas(training: bool) -> Built:
    import scipy.special  # noqa: F401  (goodness_of_fit_q imports it inside the call)
    from torchquad import RNG, VEGAS

    domain = torch.tensor([[-1.0, 1.0], [-1.0, 1.0]], dtype=torch.float64)
    center = torch.tensor([0.3, -0.2], dtype=torch.float64)
    width = torch.tensor(0.15, dtype=torch.float64)
    rng = RNG(backend="torch", seed=11, torch_save_state=True)
    return _r12b_vegas, (VEGAS(), rng, domain, center, width), {}


def _r12b_tq_gauss_legendre(training: bool) -> Built:
    from torchquad import GaussLegendre

    domain = torch.tensor([[0.0, 1.5], [-0.5, 1.0]], dtype=torch.float64)
    freqs = torch.rand(3, dtype=torch.float64) * 2.0 + 0.5
    return _r12b_gauss_legendre, (GaussLegendre(), domain, freqs), {}


def _r12b_tq_boole(training: bool) -> Built:
    from torchquad import Boole

    domain = torch.tensor([[0.0, 1.0], [-1.0, 2.0]])
    coef = torch.randn(3)
    return _r12b_boole, (Boole(), domain, coef), {}


def _r12b_tq_monte_carlo(training: bool) -> Built:
    from torchquad import MonteCarlo

    return _r12b_monte_carlo, (MonteCarlo(), torch.randn(3)), {}


# --- torchmin builders ---------------------------------------------------------------


def _r12b_tm_bfgs(training: bool) -> Built:
    import torchmin  # noqa: F401  (imported here so the call's own import is a cache lookup)

    x0 = torch.tensor([-1.2, 1.0, -0.5, 0.8], dtype=torch.float64)
    shift = 0.1 * torch.randn(4, dtype=torch.float64)
    return _r12b_bfgs, (x0, shift), {}


def _r12b_tm_cg(training: bool) -> Built:
    import torchmin  # noqa: F401

    X = torch.randn(32, 5, dtype=torch.float64)
    w_true = torch.randn(5, dtype=torch.float64)
    y = (torch.sigmoid(X @ w_true) > torch.rand(32, dtype=torch.float64)).to(torch.float64)
    return _r12b_cg, (torch.zeros(5, dtype=torch.float64), X, y), {}


def _r12b_tm_trust_exact(training: bool) -> Built:
    import torchmin  # noqa: F401
    # torch's autograd imports this lazily on the first `autograd.grad` with batched grad_outputs
    # (torchmin's `_vmap` of a vector-Jacobian/Hessian product); imported here, not in the call
    import torch.fx.experimental.symbolic_shapes  # noqa: F401

    q = torch.randn(4, 4, dtype=torch.float64)
    A = q @ q.T / 4 + 0.5 * torch.eye(4, dtype=torch.float64)  # x = 0 is a saddle/maximum region
    b = 0.1 * torch.randn(4, dtype=torch.float64)
    x0 = 0.05 * torch.randn(4, dtype=torch.float64)
    return _r12b_trust_exact, (x0, A, b), {}


def _r12b_tm_least_squares(training: bool) -> Built:
    import torchmin  # noqa: F401
    # torch's autograd imports this lazily on the first `autograd.grad` with batched grad_outputs
    # (torchmin's `_vmap` of a vector-Jacobian/Hessian product); imported here, not in the call
    import torch.fx.experimental.symbolic_shapes  # noqa: F401

    t = torch.linspace(0.0, 4.0, 24, dtype=torch.float64)
    obs = 2.5 * torch.exp(-1.3 * t) + 0.4 + 0.02 * torch.randn(24, dtype=torch.float64)
    x0 = torch.tensor([1.0, 0.5, 0.0], dtype=torch.float64)
    return _r12b_least_squares, (x0, t, obs), {}


# --- rows -----------------------------------------------------------------------------

NO_GRAD_MIN = ("inference only: torchmin's minimize routines are `@torch.no_grad()` and evaluate the "
               "objective on `x.detach().requires_grad_(True)`, returning `f.detach()`/`grad.detach()`: "
               "the result carries no gradient path to x0 or to the objective's tensors")


def _rows() -> list[Row]:
    return [
        Row(
            "r12b_tq_vegas_peak_return_error", *TORCHQUAD,
            "wrapper: torchquad.VEGAS().integrate(gaussian_peak, dim=2, N=2000, integration_domain="
            "domain (2, 2) float64, rng=RNG('torch', seed=11, torch_save_state=True), eps_rel=1e-3, "
            "max_iterations=20, return_error=True, args=(center (2,), width ()))",
            ("torchquad",), _r12b_tq_vegas,
            notes="the RNG is built in the build with its own saved generator state (torch_save_state=True, "
            "seed 11), so the samples do not depend on the global generator; the integrand is a narrow "
            "Gaussian (width 0.15) so the map and the stratification adapt; the wrapper returns the "
            "VEGASResult's tensors (integral, sdev, chi2) and its int counters as a tensor; only the "
            "integral has a gradient (VEGAS detaches the variances), to the domain, center and width",
            patterns="`_check_integration_domain` (`if anp.min(domain[:, 1] - domain[:, 0]) < 0.0: raise`); "
            "warmup: 5 x (`RNG.uniform` swapping `torch.get_rng_state`/`set_rng_state`, `VEGASMap.get_X`/"
            "`get_Jac` with int64 interval ids from `floor`, `accumulate_weight` `scatter_add_`, "
            "`update_map`: `_smooth_map` (`if anp.any(counts == 0)` -> masked divide and 10-round neighbour "
            "fill with `if not anp.any(z_idx): break`, `if anp.any(weights_sums == 0.0)`, boolean-mask "
            "setitem `d_tmp[d_tmp != 0] = ...`), per dim float64 `cumsum / delta_d` cast to int64 indices, "
            "`scatter_add_`, gather of edges, `if not anp.all(isfinite(edges))`, `if self.results[-1] != "
            "0.0` on a tensor); main `while True:` loop: `strat.get_NH` (`floor`, `clip`, int64 counts), "
            "`get_Y` (`torch.repeat_interleave(arange, nevals)`: sample count from data, boolean-mask "
            "setitem `positions[positions >= 1.0] = 0.999999`), `strat.accumulate_weight` (repeat_interleave, "
            "scatter_add_), `update_DH` (`d_tmp[d_tmp < 0.0] = 0.0`, `if d_sum != 0`), `logger.info(f'... "
            "{acc:.4e} ... {self.results[-1]:.4e}')` formatting 0-d tensors (the f-string runs although "
            "torchquad's loguru records are disabled); `_check_abort_conditions` every fifth iteration "
            "(Python `sum` over lists of 0-d tensors, `if (err <= eps_rel * res_abs or ...) and chi2 / 5.0 "
            "< 1.0`, `int(self._starting_N * anp.sqrt(acc / ...))`, fevals budget test); `_get_result`/"
            "`_get_error`/`_get_chisq` (`any(sig2 == 0.0 for ...)`, generator sums with tensor `!=` "
            "filters); `goodness_of_fit_q`: `float(chi2)` into scipy `gammaincc`",
        ),
        Row(
            "r12b_tq_gauss_legendre_vector_integrand", *TORCHQUAD,
            "wrapper: torchquad.GaussLegendre().integrate(vector_integrand (N, 2) -> (N, 3), dim=2, N=100, "
            "integration_domain=domain (2, 2) float64, args=(freqs (3,),))",
            ("torchquad",), _r12b_tq_gauss_legendre,
            notes="a vector-valued integrand (three integrals at once); each build makes a fresh "
            "integrator, so the call computes (and caches) the numpy Legendre nodes; in training the domain "
            "requires grad, which switches the grid to the `requires_grad` roots",
            patterns="`_setup_integration_domain` (shape test), `_check_integration_domain` (`if anp.min("
            "domain[:, 1] - domain[:, 0]) < 0.0: raise`, run twice: integrate and IntegrationGrid); "
            "`IntegrationGrid` (`int(N ** (1 / dim))`, `hasattr(domain, 'requires_grad')` -> "
            "`roots.requires_grad = True` on a tensor made from numpy's `leggauss` (`_cached_points_and_"
            "weights`: dict cache, `MAX_NODES` test), `_resize_roots`, `meshgrid`, `stack`); `_weights` "
            "(numpy -> tensor, meshgrid product); `evaluate_integrand` with weights and a 2-D result: "
            "`integrand_shape = anp.array([3], like='torch')` (a tensor of sizes), `anp.repeat(..., "
            "anp.prod(integrand_shape))` = `torch.repeat_interleave` by a 0-d tensor, `.reshape((n, "
            "*integrand_shape))` (sizes unpacked from a tensor), in-place `result *= weights`; "
            "`expand_func_values_and_squeeze_integral`, einsum string built in Python, `assert new_shape == "
            "list(...)`, `_apply_composite_rule` loop over dims",
        ),
        Row(
            "r12b_tq_boole_adjusted_n_domain_grad", *TORCHQUAD,
            "wrapper: torchquad.Boole().integrate(fn, dim=2, N=144, integration_domain=domain (2, 2) "
            "float32, args=(coef (3,),))",
            ("torchquad",), _r12b_tq_boole,
            notes="N=144 gives 12 points per dimension, which Boole's rule cannot use (N per dim must be "
            "1 + 4n): `_adjust_N` warns and lowers it to 9 per dimension inside the call; in training the "
            "domain requires grad (gradients of the integral with respect to the bounds, through "
            "`_linspace_with_grads`)",
            patterns="`Boole._adjust_N`: `warnings.warn(f'... {n_per_dim} -> {new_n_per_dim}.')`; "
            "`_check_integration_domain` twice (`if anp.min(...) < 0.0: raise` on a tensor); "
            "`IntegrationGrid`: `if hasattr(domain, 'requires_grad')` -> `_linspace_with_grads` "
            "(`new_zeros`/`new_ones`, linspace, in-place `grid *= stop - start`, `grid += start`) or plain "
            "linspace, `h` from grid differences, meshgrid; integrand; "
            "`expand_func_values_and_squeeze_integral` (1-D result -> `expand_dims`, `squeeze`); "
            "`_apply_composite_rule` strided slices `[..., ::4]` per dim",
        ),
        Row(
            "r12b_tq_monte_carlo_list_domain_control", *TORCHQUAD,
            "wrapper: torchquad.MonteCarlo().integrate(fn, dim=3, N=2000, integration_domain=[[0, 1], "
            "[-1, 1], [0, 2]] (a Python list), seed=5, args=(coef (3,),))",
            ("torchquad",), _r12b_tq_monte_carlo,
            notes="control: the domain is a Python list, checked in Python before it becomes a float32 "
            "tensor, so no tensor value reaches Python; `seed=5` makes the RNG call "
            "`torch.random.manual_seed(5)` inside the call (the global generator is reseeded, as torchquad "
            "does for a seeded MonteCarlo)",
            patterns="control: `_check_inputs` on the list (Python floats), `_setup_integration_domain` "
            "(environment lookups for the default backend/precision, `anp.array(list)`), `RNG(seed=5)` -> "
            "`torch.random.manual_seed`, `torch.rand` scaled to the domain, integrand, `evaluate_integrand` "
            "(backend and shape tests), `expand_func_values_and_squeeze_integral`, volume `prod`, sum / N",
        ),
        Row(
            "r12b_tm_bfgs_rosenbrock_disp", *TORCHMIN,
            "wrapper: torchmin.minimize(rosen, x0 (4,) float64, method='bfgs', disp=2) on a 4-D "
            "Rosenbrock function shifted by shift (4,)",
            ("torchmin",), _r12b_tm_bfgs,
            modes=("inference",),
            notes=NO_GRAD_MIN + "; disp=2 prints the initial value, every iteration and a summary",
            patterns="`_minimize_bfgs_core` (`@torch.no_grad()`): `ScalarFunction.closure` (`enable_grad`, "
            "`autograd.grad`, `f.numel() != 1` raise test), `print('initial fval: %0.4f' % f)` (a 0-d tensor "
            "formatted), `min(1., g.norm(p=1).reciprocal())`; per iteration `if gtd > -gtd_tol: break`, "
            "`strong_wolfe` (`float(f)`, `float(t)`, torch.optim.lbfgs `_strong_wolfe`: `while ls_iter < "
            "max_ls` with `if f_new > (f + c1 * t * gtd) or ...`, `abs(gtd_new) <= -c2 * gtd`, "
            "`_cubic_interpolate` on tensors turned to floats, zoom loop with `max(bracket)`/`min(bracket)`; "
            "`dir_evaluate` returns `float(f)`), `print('iter %3d - fval: %0.4f' % (n_iter, f_new))`, "
            "`BFGS.update` (`if rho_inv <= 1e-10: return`, `if self.n_updates == 0`, `addr` with `out=`), "
            "`if (s.norm(p=normp) <= xtol) | ((f_new - f).abs() <= xtol): break`, in-place `f[...] = "
            "f_new`, `x.copy_`, `if g.norm(p=normp) <= gtol: break`, `if ~f.isfinite(): break`; summary "
            "`print('... %f' % f)`, scipy `OptimizeResult`",
        ),
        Row(
            "r12b_tm_cg_logistic", *TORCHMIN,
            "wrapper: torchmin.minimize(nll, w0 = zeros(5) float64, method='cg', disp=2); nll = "
            "BCE-with-logits of X (32, 5) @ w against labels y (32,) + 1e-2 |w|^2",
            ("torchmin",), _r12b_tm_cg,
            modes=("inference",),
            notes=NO_GRAD_MIN + "; the labels are drawn from a logistic model in the build; 'cg' rather than "
            "'newton-cg'/'trust-ncg': their Hessian-vector products go through `JacobianLinearOperator`, a "
            "`@torch.jit.script` class (TorchScript-compiled on the first call, ~0.7 s)",
            patterns="`_minimize_cg` (`@torch.no_grad()`): closure (`enable_grad`, `autograd.grad`), "
            "`print('initial fval: %0.4f' % f)`, `grad_norm = g.norm(p=normp)`, `t0 = ...`; per iteration "
            "`if t0 <= 0: break` (tensor), `strong_wolfe(..., c2=0.4, extra_condition=descent_condition)` -> "
            "torchmin's `_strong_wolfe_extra` (`d.abs().max()`, `float(f)`, `float(t)`, `while ls_iter < "
            "max_ls:` with `if f_new > (f + c1 * t * gtd) or ...` and `if abs(gtd_new) <= -c2 * gtd and "
            "extra_condition(t, f_new, g_new):` where the extra condition is the tensor `cond1 | cond2` "
            "(`grad_norm <= gtol`, `dot(d_next, g_next) <= -0.01 * dot(g_next, g_next)`) after a "
            "Polak-Ribiere step written through `cached_step[:] = ...` and `torch.norm(..., out=grad_norm)`; "
            "`_cubic_interpolate`, zoom loop with `max(bracket)`/`min(bracket)` on mixed floats and "
            "tensors), `if t == cached_step[0]:` reuse test, `print('iter %3d - fval: %0.4f' % (niter, f))`, "
            "`if grad_norm <= gtol: break`; summary prints",
        ),
        Row(
            "r12b_tm_trust_exact_nonconvex", *TORCHMIN,
            "wrapper: torchmin.minimize(f, x0 (4,) float64, method='trust-exact', disp=2, "
            "options={'initial_trust_radius': 0.5}); f = sum(x^4)/4 - x.A x/2 + b.x with A (4, 4) SPD",
            ("torchmin",), _r12b_tm_trust_exact,
            modes=("inference",),
            notes=NO_GRAD_MIN + "; x0 is near 0, where the Hessian (3 diag(x^2) - A) is negative definite, "
            "so the first subproblems meet failed Cholesky factorisations",
            patterns="`_minimize_trust_region` (`@torch.no_grad()`): `ScalarFunction` with `hess=True` "
            "(`torch._vmap_internals._vmap` of a Hessian-vector product over an identity); `IterativeSubproblem."
            "__init__` (`'cholesky_ex' in dir(torch.linalg)`, Gershgorin bounds, norms, `CLOSE_TO_ZERO`); "
            "`while k < max_iter:` with `try: m.solve(...) except RuntimeError`; `_initial_values` (`if "
            "tr_radius < self.previous_tr_radius`, `if lambda_lb == 0`); `solve`'s `while True:` on "
            "`torch.linalg.cholesky_ex` info (`if info == 0 and self.jac_mag > self.CLOSE_TO_ZERO:` / `elif "
            "...` / `else: singular_leading_submatrix(H, U, info)` (the info tensor used as an index), `if "
            "p_norm <= tr_radius and lambda_current == 0`, `estimate_smallest_singular_value` (Python loop, "
            "`if wp.abs() + norm(pp, 1) >= ...`), `min(ta, tb, key=torch.abs)`, `if relative_error <= "
            "self.k_hard`); `if predicted_reduction <= 0: break`, `if rho < 0.25` / `elif rho > 0.75 and "
            "hits_boundary`, `if rho > eta`, `print('iter %d - fval: %0.4f' % (k, m.fun))`, `if m.jac_mag < "
            "gtol: break`; summary prints",
        ),
        Row(
            "r12b_tm_least_squares_trf_lsmr", *TORCHMIN,
            "wrapper: torchmin.least_squares(residuals, x0 (3,) float64) (method='trf', tr_solver='lsmr', "
            "the defaults) fitting a exp(-k t) + c to obs (24,) at t (24,)",
            ("torchmin",), _r12b_tm_least_squares,
            notes="least_squares is not under no_grad: the residuals are evaluated with grad enabled, so "
            "`res.x`, `res.cost`, `res.fun` carry gradients "
            "(`res.x` is x0 plus steps computed from detached Jacobian products and lsmr solves, so its "
            "gradient to x0 is the identity; `res.fun`/`res.cost` are the residuals at the final x, with "
            "gradients to x0, t and obs); "
            "tr_solver='exact' was dropped: its training backward fails (see ROUND12.md)",
            patterns="`least_squares`: `torch.any(lb >= ub)` / `not in_bounds(x0, lb, ub)` raise guards, "
            "`make_strictly_feasible` (boolean masks), `if not f0.isfinite().all(): raise`; `trf`: `if "
            "lb.isneginf().all() and ub.isposinf().all()`; `trf_no_bounds`: `jacobian_linop` (double-backward "
            "jvp, `autograd.grad` closures), `if Delta == 0`, `while True:` (`g.norm(np.inf)`, `if g_norm < "
            "gtol`); `lsmr` (`@torch.no_grad()`: `for itn in range(...)` with tensor tests every 10th "
            "iteration and `if stop: break`); `torch.vstack`, `torch.linalg.qr` on CPU, `J_h.matmul(S)` -> "
            "`TorchLinearOperator.matmat`: `try: _vmap(self.matvec)(X.T).T except: torch.hstack([...])` "
            "(bare except fallback); inner `while actual_reduction <= 0 and nfev < max_nfev:` (0-d tensor); "
            "`solve_trust_region_2d` (`try: cholesky ... if p.dot(p) <= Delta**2: return` / `except "
            "RuntimeError`, else `B.data.cpu().numpy()`, `float(Delta)`, `np.roots`, back to a tensor); "
            "`if not f_new.isfinite().all()`, `update_tr_radius` (`if predicted_reduction > 0`, `if ratio < "
            "0.25` / `elif ratio > 0.75 and bound_hit`), `check_termination` (tensor tests -> status int), "
            "`if actual_reduction > 0:` accept",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twelve (b)")
