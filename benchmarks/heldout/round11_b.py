"""Held-out round eleven (r11b): geotorch and FrEIA.

Chosen by reading each library's source, written down in ROUND11.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

geotorch's parametrized ``forward`` (what runs on every ``layer.weight`` read)
is straight-line tensor code: skew frames, ``matrix_exp``, products.  Its
data-dependent code is in the other half of the parametrization, the
``right_inverse`` that runs when a user assigns a weight (``layer.weight = X``,
geotorch's documented way to initialise, e.g. ``layer.weight = M.sample()``):
manifold membership checks that turn tensors into Python bools (``.item()``,
``torch.allclose``, ``(... ).all()`` in ``if not``) guarding raises, eigen/SVD
decompositions, boolean-mask clamps in ``sample()``, a Lyapunov solve with a
residual test, and random orthogonal completions.  So three geotorch rows are
"assign a weight, then call the layer" wrappers (a ``positive_definite``
Linear given an SPD matrix, an ``alpha_stable`` Linear given its own
``sample()``, an ``almost_orthogonal`` rectangular Linear given a matrix with
singular values in range), and the control is an orthogonal ``Conv2d`` forward.

FrEIA's data-dependent code: ``ActNorm``'s first-call data initialisation
(a Python flag, ``.data`` writes of the batch std/mean), the
``GaussianMixtureModel`` (boolean-mask setitems building Cholesky factors, a
seeded ``torch.Generator`` component pick turned into per-sample indices used
in a Python loop), and ``IResNetLayer.lipschitz_correction`` (power iteration
with ``torch.randn``, ``if spectral_norm > spectral_norm_max:`` on a tensor,
in-place ``.data`` rescale) followed by its fixed-point inverse.  The control
is a conditional ``GraphINN`` of ``AllInOneBlock``s run in reverse (no tensor
value reaches Python; attribute writes of the householder permutation inside
``forward``).  FrEIA draws permutations from numpy's global RNG at
construction (``np.random.permutation``, scipy ``special_ortho_group``), so
every FrEIA build seeds numpy as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

GEOTORCH = ("geotorch", "0.4.0")
FREIA = ("FrEIA", "0.2")


# --- helpers ----------------------------------------------------------------------


def _r11b_assign_then_call(layer: nn.Module, value: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``layer.weight = value`` (the parametrization's ``right_inverse``), then ``layer(x)``."""
    layer.weight = value
    return layer(x)


def _r11b_sample_assign_then_call(layer: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """``layer.weight = M.sample()`` (geotorch's documented initialisation), then ``layer(x)``."""
    manifold = layer.parametrizations.weight[0]
    layer.weight = manifold.sample()
    return layer(x)


def _r11b_subnet_fc(c_in: int, c_out: int) -> nn.Module:
    """FrEIA's tutorial subnet: a two-layer MLP."""
    return nn.Sequential(nn.Linear(c_in, 16), nn.ReLU(), nn.Linear(16, c_out))


def _r11b_gmm_sample(gmm: nn.Module, z: torch.Tensor, w: torch.Tensor, mu: torch.Tensor,
                     u_entries: torch.Tensor, seed: int) -> Any:
    """``gmm([z], c=[w, mu, U, seed], rev=True)`` with the tensors as top-level arguments (so the
    training mode makes them require grad; the module takes them inside lists)."""
    return gmm([z], c=[w, mu, u_entries, seed], rev=True, jac=True)


def _r11b_iresnet_correct_then_invert(inn: Any, z: torch.Tensor) -> Any:
    """The i-ResNet step a user runs: project every block back to Lipschitz < 1, then invert."""
    from FrEIA.modules import IResNetLayer

    for block in inn.module_list:
        if isinstance(block, IResNetLayer):
            block.lipschitz_correction()
    return inn(z, rev=True, jac=False)


# --- geotorch ---------------------------------------------------------------------


def _r11b_geo_orthogonal_conv(training: bool) -> Built:
    import geotorch

    conv = nn.Conv2d(3, 4, 3, padding=1)
    geotorch.orthogonal(conv, "weight")  # each (out, in) 3x3 kernel orthogonal
    return conv, (torch.randn(2, 3, 8, 8),), {}


def _r11b_geo_positive_definite_assign(training: bool) -> Built:
    import geotorch

    layer = nn.Linear(5, 5)
    geotorch.positive_definite(layer, "weight")
    a = torch.randn(5, 5)
    target = a @ a.T / 5 + 0.5 * torch.eye(5)  # SPD, eigenvalues >= 0.5
    layer.train(training)
    return _r11b_assign_then_call, (layer, target, torch.randn(6, 5)), {}


def _r11b_geo_alpha_stable_sample_assign(training: bool) -> Built:
    import geotorch

    layer = nn.Linear(4, 4)
    geotorch.alpha_stable(layer, "weight", alpha=0.5)
    layer.train(training)
    return _r11b_sample_assign_then_call, (layer, torch.randn(6, 4)), {}


def _r11b_geo_almost_orthogonal_assign(training: bool) -> Built:
    import geotorch

    # weight (6, 4), rank 4; a wide weight (nn.Linear(6, 4)) fails at registration in geotorch 0.4.0:
    # AlmostOrthogonal.sample returns the untransposed (6, 4) Stiefel sample for the (4, 6) tensor
    layer = nn.Linear(4, 6)
    geotorch.almost_orthogonal(layer, "weight", lam=0.5)
    u, _ = torch.linalg.qr(torch.randn(6, 4))
    v, _ = torch.linalg.qr(torch.randn(4, 4))
    s = torch.tensor([0.6, 0.9, 1.2, 1.4])  # inside (1 - lam, 1 + lam)
    target = (u * s) @ v.T  # (6, 4)
    layer.train(training)
    return _r11b_assign_then_call, (layer, target, torch.randn(5, 4)), {}


# --- FrEIA ------------------------------------------------------------------------


def _r11b_freia_actnorm_glow(training: bool) -> Built:
    from FrEIA.framework import SequenceINN
    from FrEIA.modules import ActNorm, GLOWCouplingBlock, PermuteRandom

    np.random.seed(0)
    inn = SequenceINN(6)
    inn.append(ActNorm)
    inn.append(GLOWCouplingBlock, subnet_constructor=_r11b_subnet_fc, clamp=2.0)
    inn.append(PermuteRandom, seed=1)
    inn.append(ActNorm)
    inn.append(GLOWCouplingBlock, subnet_constructor=_r11b_subnet_fc, clamp=2.0)
    x = 3.0 * torch.randn(16, 6) + torch.linspace(-2.0, 2.0, 6)  # far from N(0, 1)
    return inn, (x,), {"jac": True}


def _r11b_freia_allinone_graph_rev(training: bool) -> Built:
    from FrEIA.framework import ConditionNode, GraphINN, InputNode, Node, OutputNode
    from FrEIA.modules import AllInOneBlock

    np.random.seed(0)
    x_in = InputNode(4, name="x")
    cond = ConditionNode(3, name="c")
    b1 = Node(x_in, AllInOneBlock, {"subnet_constructor": _r11b_subnet_fc, "affine_clamping": 2.0,
                                    "permute_soft": True, "learned_householder_permutation": 2},
              conditions=cond, name="aio1")
    b2 = Node(b1, AllInOneBlock, {"subnet_constructor": _r11b_subnet_fc, "affine_clamping": 2.0,
                                  "reverse_permutation": True},
              conditions=cond, name="aio2")
    out = OutputNode(b2, name="z")
    inn = GraphINN([x_in, cond, b1, b2, out])
    return inn, (torch.randn(8, 4),), {"c": torch.randn(8, 3), "rev": True, "jac": True}


def _r11b_freia_gmm_seeded(training: bool) -> Built:
    from FrEIA.modules import GaussianMixtureModel

    batch, k, d = 5, 4, 3
    gmm = GaussianMixtureModel([(d,)], [(k,), (k, d), (k, d * (d + 1) // 2), (1,)])
    w = GaussianMixtureModel.normalize_weights(torch.randn(batch, k))
    mu = torch.randn(batch, k, d)
    u_entries = 0.3 * torch.randn(batch, k, d * (d + 1) // 2)
    z = torch.randn(batch, d)
    return _r11b_gmm_sample, (gmm, z, w, mu, u_entries, 7), {}


def _r11b_freia_iresnet(training: bool) -> Built:
    from FrEIA.framework import GraphINN, InputNode, Node, OutputNode
    from FrEIA.modules import IResNetLayer

    np.random.seed(0)
    args = {"internal_size": 12, "n_internal_layers": 1, "fixed_point_iterations": 30,
            "lipschitz_iterations": 8, "lipschitz_batchsize": 6, "spectral_norm_max": 0.9}
    x_in = InputNode(4, name="x")
    b1 = Node(x_in, IResNetLayer, args, name="ires1")
    b2 = Node(b1, IResNetLayer, args, name="ires2")
    out = OutputNode(b2, name="z")
    inn = GraphINN([x_in, b1, b2, out])
    inn.train(training)
    return _r11b_iresnet_correct_then_invert, (inn, torch.randn(8, 4)), {}


# --- rows -------------------------------------------------------------------------

PARAM_GET = ("every `layer.weight` read goes through torch's parametrize property "
             "(torch/nn/utils/parametrize.py: `get_parametrized`, cache test, `ParametrizationList.forward`)")
ASSIGN = ("`layer.weight = value` -> torch `ParametrizationList.right_inverse` (parametrize.py, under no_grad, "
          "dtype tests, `_maybe_set(original, value)`) -> geotorch's `right_inverse`")
FROZEN_VALUE = ("the assigned weight goes through `right_inverse` under no_grad and is frozen (no gradient path); "
                "gradients flow to the new `original` tensors and the bias")


def _rows() -> list[Row]:
    return [
        Row(
            "r11b_geo_orthogonal_conv_control", *GEOTORCH,
            "geotorch.orthogonal(nn.Conv2d(3, 4, 3, padding=1), 'weight') then conv(x (2, 3, 8, 8))",
            ("geotorch",), _r11b_geo_orthogonal_conv,
            notes="control: registration (in the build) samples and checks the weight; the call only runs "
            "the parametrization forward, straight-line tensor code with Python tests on sizes and flags",
            patterns=PARAM_GET + "; `Stiefel.forward` under the `@transpose` decorator (utils.py:9-18, "
            "`if self.transposed` Python bool), `frame` = `F.pad(X, (0, n - k))` (stiefel.py:36-38), "
            "`SO.forward` (so.py:78-80): `Skew.frame` (tril, transpose, subtract), `self.base @ "
            "torch.linalg.matrix_exp(X)` on a (4, 3, 3, 3) batch, `X[..., :k]`; then `conv2d`",
        ),
        Row(
            "r11b_geo_positive_definite_assign", *GEOTORCH,
            "wrapper: `layer.weight = target` then `layer(x)` on nn.Linear(5, 5) with "
            "geotorch.positive_definite(layer, 'weight'); target (5, 5) SPD (eigenvalues >= 0.5), x (6, 5)",
            ("geotorch",), _r11b_geo_positive_definite_assign, frozen=("1",),
            notes=FROZEN_VALUE,
            patterns=ASSIGN + ": `SymF.right_inverse` -> `submersion_inv` (symmetric.py:138-149): "
            "`torch.linalg.eigh` under no_grad, `if check_in_manifold and not self.in_manifold_eigen(L): raise "
            "InManifoldError` with `PSSDFixedRank.in_manifold_eigen` (pssdfixedrank.py:52-65): `SymF."
            "in_manifold_eigen` (symmetric.py:156-174: size test, `(L[..., -rank:] >= -eps).all().item()`) `and "
            "(L[..., -rank:] >= eps).all().item()`, `if self.inv is None: raise`, `inv_softplus_epsilon` "
            "(expm1/log); `ProductManifold.right_inverse` (product.py) -> `Stiefel.right_inverse` (`n == k`: no "
            "completion) -> `SO.right_inverse` `self.base.copy_(X)` (buffer write), `Rn.right_inverse`; "
            "`frame_inv` (`new_zeros`, in-place `copy_`/diagonal `add_`); " + PARAM_GET + ": `SymF.forward` "
            "(Stiefel/SO `matrix_exp` of the re-based skew part, softplus eigenvalues, `(Q * L) @ Q^T`); linear",
        ),
        Row(
            "r11b_geo_alpha_stable_sample_assign", *GEOTORCH,
            "wrapper: `layer.weight = layer.parametrizations.weight[0].sample()` then `layer(x)` on "
            "nn.Linear(4, 4) with geotorch.alpha_stable(layer, 'weight', alpha=0.5); x (6, 4)",
            ("geotorch",), _r11b_geo_alpha_stable_sample_assign,
            notes="the sample is drawn inside the call (xavier_normal_ from the global generator, seeded by "
            "the harness before every call) and assigned under no_grad; the Lyapunov solve's residual stays "
            "below tol=1e-4 in float32 here",
            patterns="`Hurwitz.sample` (hurwitz.py:137-163, no_grad): two `PSD.sample`s (pssdfixedrank.py:67-99: "
            "`SymF.sample` xavier draw, `X @ X^T`, `eigh`, boolean-mask clamp `L[L < eps] = eps`), a `Skew` frame, "
            "`submersion`; " + ASSIGN + ": `Hurwitz.right_inverse` -> `submersion_inv` (hurwitz.py:73-122): "
            "`if check_in_manifold and not self.in_manifold_eigen(A): raise` (`torch.linalg.eigvals(A).real <= "
            "-alpha + eps).all().item()`, :129-135), `torch.vmap` of a Kronecker sum, `torch.linalg.solve` of the "
            "Lyapunov system, `if residual >= tol: raise ValueError(f'... {residual:.2e}')` (a tensor in `if` and "
            "in a format string), `torch.linalg.inv`; `ProductManifold.right_inverse([Q, P, S])` with "
            "check_in_manifold=True: two `PSD.right_inverse` (eigh, `in_manifold_eigen` `.item()` tests, raise "
            "guards) and `Skew.right_inverse` (`if check_in_manifold and not torch.allclose(X, -X.mT, "
            "atol=tol): raise`, skew.py:49-56); three `original{i}` tensors written; " + PARAM_GET + ": "
            "`Hurwitz.forward(X1, X2, X3)` (two PSD forwards with `matrix_exp`, skew frame, `P @ (S - Q/2) - "
            "alpha I`); linear",
        ),
        Row(
            "r11b_geo_almost_orthogonal_assign", *GEOTORCH,
            "wrapper: `layer.weight = target` then `layer(x)` on nn.Linear(4, 6) with "
            "geotorch.almost_orthogonal(layer, 'weight', lam=0.5); target (6, 4) with singular values "
            "(0.6, 0.9, 1.2, 1.4), x (5, 4)",
            ("geotorch",), _r11b_geo_almost_orthogonal_assign, frozen=("1",),
            notes=FROZEN_VALUE + "; a tall weight: geotorch 0.4.0 cannot register almost_orthogonal on a wide "
            "one (nn.Linear(6, 4) fails in `_register_manifold`, its sample is not transposed); the (6, 4) Stiefel "
            "factor is completed to a square orthogonal base with a "
            "random normal block (global generator, seeded by the harness before every call)",
            patterns=ASSIGN + ": `LowRank.right_inverse` under `@transpose` (`if self.transposed`, False here), "
            "`AlmostOrthogonal.submersion_inv` (almostorthogonal.py:87-98): `if self.inv is None: raise`, "
            "`LowRank.submersion_inv` (lowrank.py:80-85: `torch.linalg.svd`, `if check_in_manifold and not "
            "self.in_manifold_singular_values(S): raise`), `AlmostOrthogonal.in_manifold_singular_values` "
            "(:100-107, run twice: `LowRank.in_manifold_singular_values` size test `and ((S - 1.0).abs() <= "
            "lam).all().item()`), `if self.lam < 1e-6` Python, `asin`; `ProductManifold.right_inverse` -> "
            "`Stiefel.right_inverse` (stiefel.py:47-65) for the (6, 4) factor: `N.normal_()` under no_grad, two "
            "rounds of projection and `torch.linalg.qr(N).Q`, `torch.cat`, `SO.right_inverse` base `copy_`; the "
            "square factor; `frame_inv` in-place writes; " + PARAM_GET + ": `LowRank.forward` (frame tril/diagonal/"
            "triu slices, two Stiefel `matrix_exp` forwards, `1 + lam * sin(S)`, `(U * S) @ V^T`, transpose); linear",
        ),
        Row(
            "r11b_freia_actnorm_glow_sequence", *FREIA,
            "FrEIA.framework.SequenceINN(6) of ActNorm, GLOWCouplingBlock(clamp=2), PermuteRandom(seed=1), "
            "ActNorm, GLOWCouplingBlock(clamp=2) (subnets Linear-ReLU-Linear, 16 hidden)(x (16, 6), jac=True)",
            ("FrEIA",), _r11b_freia_actnorm_glow,
            notes="x = 3 * randn + a per-feature offset, so ActNorm's data initialisation matters; each build "
            "makes fresh ActNorms, so the measured first call runs the initialisation (later calls of the same "
            "module skip it: `init_on_next_batch` is False after the first)",
            patterns="`SequenceINN.forward` (framework/sequence_inn.py:76-110): `torch.is_tensor` test, Python "
            "loop over blocks with `self.conditions[i] is None`, `log_det_jac = j + log_det_jac` starting from "
            "int 0; `ActNorm.forward` (modules/invertible_resnet.py:66-77): `if self.init_on_next_batch:` "
            "(attribute flag) -> `_initialize_with_data` (:54-64): `assert all([...shape...])`, "
            "`self.scale.data.view(-1)[:] = torch.log(1 / data...std(dim=-1))` and `self.bias.data.view(-1)[:] = "
            "-...mean(dim=-1)` (`.data` writes of statistics of the batch), `self.init_on_next_batch = False` "
            "(attribute write), `(self.scale.sum() * np.prod(self.dims_in[1:])).repeat(batch)`; "
            "`GLOWCouplingBlock` (modules/coupling_layers.py:77-102 `_BaseCouplingBlock.forward`, torch.split, "
            "subnets, soft clamp `0.636 * atan`, exp); `PermuteRandom` (fixed_transforms.py:37-41: numpy index array "
            "`x[0][:, self.perm]`)",
        ),
        Row(
            "r11b_freia_allinone_graph_rev_control", *FREIA,
            "FrEIA.framework.GraphINN of InputNode(4), ConditionNode(3), AllInOneBlock(affine_clamping=2, "
            "permute_soft=True, learned_householder_permutation=2) and AllInOneBlock(reverse_permutation=True), "
            "both conditioned (z (8, 4), c=c (8, 3), rev=True, jac=True)",
            ("FrEIA",), _r11b_freia_allinone_graph_rev,
            notes="control: no tensor value reaches Python on this path (Python tests on shapes, flags, dict "
            "lookups; attribute writes of the householder permutation inside forward); numpy is seeded in the "
            "build for scipy's special_ortho_group and np.random.permutation",
            patterns="`GraphINN.forward` (framework/graph_inn.py:242-326): `torch.is_tensor` tests, "
            "`torch.zeros(batch).to(x)`, length raises, dict `outs[node, idx]`, reversed node loop with "
            "`try: node.module(...) except Exception as e: raise RuntimeError(...) from e`, `_check_output` "
            "(isinstance/len tests, :328-365), `jacobian = jacobian + mod_jac`; `AllInOneBlock.forward` "
            "(modules/all_in_one_block.py:227-268): `if self.householder:` -> `_construct_householder_permutation` "
            "(:170-179, Python loop `for vk in self.vk_householder` over a Parameter's rows, `torch.eye(...).to(device)`, "
            "`torch.ger`, `torch.dot` division) and attribute writes `self.w_perm = ...`, `self.w_perm_inv = "
            "w_perm.transpose(0, 1).contiguous()`; `_permute(rev=True)` (`F.linear` with the permutation, "
            "softplus global scale), `torch.split`, `torch.cat([x1, *c], 1)`, subnet, `_affine(rev=True)` "
            "(in-place `a *= 0.1` on the subnet output, tanh clamp, exp), `_pre_permute`, "
            "`x_out[0, :1].numel()`, `(-1)**rev * n_pixels * global_scaling_jac`",
        ),
        Row(
            "r11b_freia_gmm_seeded_component_rev", *FREIA,
            "wrapper: FrEIA.modules.GaussianMixtureModel(dims_in=[(3,)], ...)([z (5, 3)], c=[w (5, 4) "
            "normalised, mu (5, 4, 3), U_entries (5, 4, 6), 7], rev=True, jac=True)",
            ("FrEIA",), _r11b_freia_gmm_seeded,
            notes="the wrapper only passes the tensors as top-level arguments (the module takes them in lists, "
            "which the training mode would not make require grad); sampling from a mixture: the component of each sample is picked inside the call from the "
            "weights by `pick_mixture_component(w, seed=7)` (its own torch.Generator); w gets no gradient (it "
            "only meets a comparison), mu and U_entries do",
            patterns="`GaussianMixtureModel.forward` (modules/gaussian_mixture.py:94-170): `assert len(x) == 1`, "
            "`torch.zeros(batch, K, D, D)`, boolean-mask setitems `U[self.mask_upper.expand(...)] = "
            "U_entries[:, :, D:].reshape(-1)` and `U[self.mask_diagonal.expand(...)] = ...exp().reshape(-1)`, "
            "`if not isinstance(i, torch.Tensor):` -> `pick_mixture_component` (:33-51): `torch.cumsum`, "
            "`torch.Generator(device=w.device)`, `if isinstance(seed, int): rng.manual_seed(seed)`, `torch.rand(..., "
            "generator=rng)`, `torch.sum(u > w_thresholds, dim=1).int()` (component indices from data); "
            "`torch.stack([U_entries[b, i[b], :D].sum(-1) for b in range(batch)])` and `j *= -1`; "
            "`torch.stack([mu[b, i[b], :] + torch.matmul(torch.inverse(U[b, i[b], :, :]), x[b, :]) for b in "
            "range(batch)])` (a Python loop indexing with 0-d int tensors from data, a 3x3 inverse per sample)",
        ),
        Row(
            "r11b_freia_iresnet_lipschitz_inverse", *FREIA,
            "wrapper: `block.lipschitz_correction()` for each IResNetLayer of a GraphINN(InputNode(4), "
            "IResNetLayer x2 (internal_size=12, n_internal_layers=1, fixed_point_iterations=30, "
            "lipschitz_iterations=8, lipschitz_batchsize=6, spectral_norm_max=0.9)), then inn(z (8, 4), rev=True, "
            "jac=False)",
            ("FrEIA",), _r11b_freia_iresnet,
            notes="the i-ResNet step a user runs after each optimiser step (spectral normalisation), then the "
            "inverse; jac=False because IResNetLayer's log-det calls torch.autograd.grad inside forward, which "
            "fails under no_grad (and SequenceINN cannot run IResNetLayer with jac=False: `None + 0`), hence "
            "GraphINN; the power iteration draws from the global generator (seeded by the harness before "
            "every call); four of the six weight matrices are rescaled (spectral norms 1.26, 1.02, 1.15, 1.02 at "
            "init), two are not (0.70, 0.77); a second call on the same module rescales again by a rounding-sized "
            "factor (its estimates are then about 0.9), so repeated calls differ in the last bits; each build is fresh",
            patterns="`IResNetLayer.lipschitz_correction` (modules/invertible_resnet.py:134-157, no_grad): per "
            "layer `torch.randn` start, `for j in range(lipschitz_iterations)` power iteration `W.t().matmul("
            "W.matmul(x))`, `spectral_norm = (norm(...) / norm(x)).max()`, `if spectral_norm > "
            "self.spectral_norm_max:` (tensor bool) -> in-place `self.layers[i].weight.data *= max / "
            "spectral_norm`; `GraphINN.forward` (reversed node loop, try/except, `_check_output` with `mod_jac "
            "is None`, `if jac:`); `IResNetLayer.forward(rev=True, jac=False)` (:160-175): `if jac:` Python, "
            "fixed-point iteration `for i in range(fixed_point_iterations): x_hat = y - self.residual(x_hat)` "
            "under no_grad, then `y - self.residual(x_hat.detach())` with grad",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round eleven (b)")
