"""Held-out round twenty (r20a): torchnmf.

Chosen by reading the library's source, written down in ROUND20.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny factorizations of tens of elements,
ranks 2 and 3, a few dozen iterations at most, seeded random data and
initial factors, nothing downloaded, nothing written to disk); a row whose
``modes`` is one mode only says why in its ``notes`` (every fitting loop and
optimizer step: they update the factors in place and return no
differentiable output).

torchnmf 0.3.5 (Chin-Yun Yu's non-negative matrix factorization in PyTorch,
pure Python on torch and tqdm) holds, in ``torchnmf/nmf.py``, the models
``NMF`` (V ~ H W^T, ``F.linear``), ``NMFD`` (1-D convolutive, ``conv1d``),
``NMF2D`` and ``NMF3D`` (2-D and 3-D convolutive, ``conv2d``/``conv3d``) on a
``BaseComponent`` module whose parameters ``W`` (templates) and ``H``
(activations) are drawn as ``|randn|`` from given shapes or copied from given
non-negative tensors (``trainable_W``/``trainable_H`` freeze them), whose
forward is the reconstruction, and whose ``fit`` (multiplicative updates for
the beta divergence: beta 2 Euclidean, 1 Kullback-Leibler, 0 Itakura-Saito,
any other value, with an L1/L2 penalty ``alpha``/``l1_ratio``, on a dense or,
for ``NMF`` only, a sparse COO target) and ``sparse_fit`` (Hoyer's projected
gradient with sparseness constraints ``sW``/``sH``) learn the factors in
place; in ``torchnmf/plca.py`` the probabilistic models ``PLCA``, ``SIPLCA``,
``SIPLCA2`` and ``SIPLCA3`` (a third parameter ``Z``, the component prior,
and factors normalized to distributions) with an EM ``fit`` under Dirichlet
priors ``W_alpha``/``H_alpha``/``Z_alpha``; in ``torchnmf/trainer.py`` two
optimizers, ``BetaMu`` (the multiplicative update as a ``torch.optim``
optimizer driven by a closure returning ``(V, WH)``) and ``SparsityProj``
(gradient steps projected onto a sparseness, with backtracking); in
``torchnmf/metrics.py`` the divergences ``kl_div``, ``euclidean``,
``is_div``, ``beta_div`` and Hoyer's ``sparseness``.  Every ``fit`` shows a
tqdm bar only when ``verbose=True``: the rows leave ``verbose=False`` (the
default: ``tqdm(..., disable=True)``, nothing printed).

The data-dependent code (file:line relative to the ``torchnmf`` package).
``BaseComponent.fit`` (nmf.py:298-409) starts with ``assert torch.all((V.
_values() if V.is_sparse else V) >= 0.)`` (nmf.py:329-330, a tensor's truth in
a Python ``assert``) and ``if (V.is_sparse or V.min() == 0) and beta <= 0:
raise ValueError`` (nmf.py:332-336: for a dense V the truth of ``V.min() ==
0`` is read before ``beta`` is looked at); a sparse target is ``coalesce()``d
and its norm taken by ``_get_V_norm`` (nmf.py:162-170: ``assert
V.is_coalesced()``, Python tests of ``beta``); the initial loss is
``beta_div(WH, V, beta).mul(2).sqrt().item()`` (nmf.py:355-362, a tensor read
into a Python float).  Then ``for n_iter in range(max_iter)`` (nmf.py:366)
updates W then H (``if W.requires_grad``, ``if H.requires_grad``: Python
attributes) by ``_double_backward_update`` (nmf.py:52-92: Python tests of
``beta`` pick the two gradients, ``WH.backward(output_neg, retain_graph=...)``
and ``WH.backward(output_pos)`` (two backward calls inside the fit; for beta 1
the positive part is precomputed by ``_get_W_kl_positive``/``_get_H_kl_
positive``, nmf.py:122-131, and only one backward runs), ``param.grad.relu_()
.add_(eps)``, Python tests of the penalties, ``neg.div_(pos)``, ``pow_(gamma)``
unless gamma is 1, ``param.data.mul_``) or, for a sparse target,
``_sp_double_backward_update`` (nmf.py:95-119) on the two terms of
``_nmf_sp_recon_beta_pos_neg`` (nmf.py:617-638, a ``torch.jit.script``
function: ``V.indices()``, ``V.values()``, ``_nmf_sparse_reconstruct``
(nmf.py:602-614, scripted: ``n_vals = indices.shape[1]``, the number of stored
entries, and a Python loop over batches of them with advanced indexing
``W[jj[batch], :] * H[ii[batch], :]``), ``log`` or ``pow``).  Every tenth
iteration (``if n_iter % 10 == 9``) the loss is read again by ``.item()``
(nmf.py:393-402), shown by ``pbar.set_postfix`` and tested: ``if
(previous_loss - loss) / loss_init < tol: break`` (nmf.py:405-406: Python
floats read from tensors decide the trip count); ``fit`` returns ``n_iter +
1``.  ``sparse_fit`` (nmf.py:412-599) has the same ``assert`` and ``raise``
(nmf.py:448-455), projects each column of W and H onto the sparseness at the
start (nmf.py:459-475: a Python loop over the rank calling ``_proj_func``) and,
for a constrained factor, steps along ``loss.backward()``'s gradient with up
to 10 halvings, each projecting every column (``_proj_func(Wnew[:, j], L1a *
norms[j], norms[j] ** 2)``: 0-d tensors passed for the scripted function's
``float`` parameters, converted to Python floats at the call) and stopping at
``if new_loss <= loss: break`` (nmf.py:516-535 and 564-584, a tensor's truth),
renormalizes by ``_renorm`` (nmf.py:142-159) and reads the loss by ``.item()``
every tenth iteration (nmf.py:587-598, no tolerance test: ``sparse_fit``
always runs ``max_iter`` iterations).  ``_proj_func`` (nmf.py:21-49, a
``torch.jit.script`` function, Hoyer's projection onto given L1 and L2 norms)
is ``while True:`` with ``k1 / (N - zero_coef.count_nonzero())``, ``v.add_(w,
alpha=alphap.item())`` (nmf.py:38, a tensor read into a Python float) and
``mask = v < 0; if not torch.any(mask): break`` (nmf.py:40-42: the trip count
from the data).  ``BaseComponent.__init__`` given tensors asserts
``torch.all(W >= 0.)`` and ``torch.all(H >= 0.)`` (nmf.py:215, 227) and
copies them into new parameters.  The trainer: ``SparsityProj.step``
(trainer.py:146-190, ``@torch.no_grad()``) takes the closure's loss and
gradient under ``enable_grad`` (trainer.py:161-163), then ``for i in
range(max_iter)``: a step of ``-lr`` times the gradient, ``_proj_func`` of
every column with ``L1 * norms[j]`` and ``norms[j] ** 2`` (0-d tensors for
``float`` parameters, trainer.py:170-177), the closure again and ``if loss <=
init_loss: break`` (trainer.py:179-181, a tensor's truth); ``BetaMu.step``
(trainer.py:35-121, ``@torch.no_grad()``, the closure wrapped in
``enable_grad``) toggles ``requires_grad`` per parameter, calls the closure
per parameter, runs two ``WH.backward`` calls and multiplies in place; no
tensor value reaches Python there (``if not WH.requires_grad`` and the
``beta``/penalty tests are Python attributes and floats).  ``PLCA``'s
``fit`` (plca.py:193-304): ``assert torch.all(V >= 0.)`` (plca.py:236),
``norm = V.sum()``, the initial loss ``kl_div(...).mul(2).sqrt().item()``
(plca.py:244-247), ``for n_iter in range(max_iter)``: ``zero_grad``,
``WZH.backward(V / WZH.add(eps))`` (the E-step as a backward), in-place
M-steps with ``if Z_alpha != 1`` / ``if W_alpha != 1`` / ``if H_alpha != 1``
(plca.py:259, 273, 286: the priors may be tensors, and then the test reads a
tensor's truth), ``F.threshold(..., inplace=True)`` and ``get_norm``
divisions, and every tenth iteration two ``.item()`` reads (the KL loss and
``_log_probability``, plca.py:291-297) and ``if (previous_loss - loss) /
loss_init < tol: break`` (plca.py:300-301); it returns ``(n_iter, norm)``.
The PLCA constructors divide the given or drawn factors by their sums
(plca.py:94-127, with ``assert torch.all(... >= 0.)`` for given tensors).
The controls (no tensor value reaches Python on their path): the
``SIPLCA2`` forward (``conv2d`` of H with the flipped templates scaled by Z,
times ``norm``; Python ``is None`` tests) and ``metrics.beta_div`` with beta
0.5 (Python tests of the float ``beta``, metrics.py:60-96); the ``BetaMu``
row reads no tensor value either but runs backward calls inside a
``no_grad`` optimizer step.  No path a row takes prints, warns or logs, except
torch's own ``UserWarning`` that ``torch.chain_matmul`` is deprecated, raised
by the sparse Euclidean path (nmf.py:622; no row takes it: the sparse row is
beta 1).

Global state on import: ``import torchnmf`` imports ``torchnmf.nmf``,
``plca``, ``trainer``, ``metrics`` and ``constants`` (not ``utils``), and
tqdm (already imported by torch itself in this environment); at import it
compiles three functions with ``torch.jit.script`` (``_proj_func``,
``_nmf_sparse_reconstruct``, ``_nmf_sp_recon_beta_pos_neg``), each of which
raises torch's ``DeprecationWarning: `torch.jit.script` is deprecated``
(torch/jit/_script.py:1488; hidden by Python's default filters, shown under
``-W default``).  Checked by comparing before and after the import in one
process: no warning filter, logger, handler or environment variable added or
changed, no draw from torch's generator, neither ``torch._dynamo`` nor
``torch._inductor`` imported (so their configs are untouched), and none of
torch's global state changed (default dtype, grad and inference mode, intra-
and inter-op threads, deterministic flag, matmul precision, cuDNN/TF32 flags,
print options, anomaly mode, the TorchScript executor settings).

Library bugs (checked eagerly; no row takes these paths): (1)
``SparsityProj.step``'s backtracking (trainer.py:168-185) undoes a rejected
step by ``p.add_(g, alpha=lr)`` but not the projection applied after it, so
each rejected try leaves the parameter projected, rescaled to its current
norms and re-stepped: on V (8, 6), rank 3, ``|randn|`` factors and sparsity
0.5, the first step is rejected 10 times and returns a loss of 73876 from an
initial 99.7 (the sparseness constraint met, the fit destroyed); the row
uses a setting whose tries are all accepted at once.  (2) ``PLCA``'s ``fit``
returns ``n_iter`` (plca.py:304), the index of the last iteration, where the
docstring says "total number of iterations" and ``NMF.fit`` returns ``n_iter
+ 1``: a fit of 60 iterations returns 59.  (3) The PLCA docstring allows
``W_alpha``/``H_alpha``/``Z_alpha`` as "a tensor that is broadcastable to W"
(and H, Z), but ``if W_alpha != 1:`` (plca.py:259, 273, 286) raises
``RuntimeError: Boolean value of Tensor with more than one value is
ambiguous`` for any tensor of more than one element (checked with (6, 3) and
(1, 3) priors); only a 0-d tensor works.  (4) ``fit`` and ``sparse_fit`` of
both modules with ``max_iter=0`` raise ``UnboundLocalError`` (``n_iter`` is
read after an empty loop, nmf.py:409, 599, plca.py:304).  (5) A PLCA model of
rank 1 with a frozen ``Z`` (``trainable_Z=False``) fails in ``fit``:
``Z_prior = W_divider.squeeze()`` (plca.py:268) is 0-d and indexing it by
``[(slice(None),)]`` for H (plca.py:283-284) raises ``IndexError: too many
indices for tensor of dimension 0``.  (6) ``sparse_fit``'s docstring gives
``beta``'s default as 1 where the signature has 2 (nmf.py:414, 436).
Limitations, also checked: ``fit`` does not run under ``torch.no_grad()`` (it
backpropagates itself: ``element 0 of tensors does not require grad``), so the
rows' functions wrap it in ``torch.enable_grad()``; ``NMFD``/``NMF2D``/
``NMF3D`` with a sparse target raise ``NotImplementedError`` (documented);
``fit`` with beta <= 0 and a target holding a zero raises ``ValueError``
(documented).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

TORCHNMF = ("torchnmf", "0.3.5")


# --- fitting loops -----------------------------------------------------------------------


def _r20a_fit(model: Any, V: torch.Tensor, **kwargs: Any) -> tuple[int, torch.Tensor, torch.Tensor]:
    """``model.fit(V, **kwargs)`` (verbose=False: the tqdm bar disabled) under ``torch.enable_grad()``:
    ``fit`` backpropagates itself (nmf.py:77-83) and fails under the harness's ``no_grad``; returns the
    iteration count and the fitted W and H."""
    with torch.enable_grad():
        n_iter = model.fit(V, verbose=False, **kwargs)
    return n_iter, model.W.detach().clone(), model.H.detach().clone()


def _r20a_nmf(V: torch.Tensor, rank: int = 3) -> Any:
    from torchnmf.nmf import NMF

    return NMF(V.shape, rank)


def _r20a_nmf_fit_euclidean(training: bool) -> Built:
    V = torch.rand(8, 6)
    return _r20a_fit, (_r20a_nmf(V), V), {"beta": 2, "tol": 1e-2, "max_iter": 60}


def _r20a_nmf_fit_kl(training: bool) -> Built:
    V = torch.rand(8, 6)
    return _r20a_fit, (_r20a_nmf(V), V), {"beta": 1, "tol": 1e-4, "max_iter": 25}


def _r20a_nmf_fit_is(training: bool) -> Built:
    V = torch.rand(8, 6) + 0.1  # no zero: beta 0 accepts it
    return _r20a_fit, (_r20a_nmf(V), V), {"beta": 0, "tol": 1e-4, "max_iter": 35}


def _r20a_nmf_fit_regularized(training: bool) -> Built:
    V = torch.rand(8, 6)
    kwargs = {"beta": 1.5, "tol": 1e-4, "max_iter": 35, "alpha": 0.1, "l1_ratio": 0.5}
    return _r20a_fit, (_r20a_nmf(V), V), kwargs


def _r20a_nmf_fit_sparse_target(training: bool) -> Built:
    dense = torch.rand(8, 6) * (torch.rand(8, 6) < 0.5).float()  # about half the entries zero
    V = dense.to_sparse()  # a sparse COO target with the non-zero entries stored
    return _r20a_fit, (_r20a_nmf(dense), V), {"beta": 1, "tol": 1e-4, "max_iter": 35}


def _r20a_nmfd_fit(training: bool) -> Built:
    from torchnmf.nmf import NMFD

    V = torch.rand(1, 5, 9)
    return _r20a_fit, (NMFD(V.shape, 2, T=3), V), {"beta": 3, "tol": 1e-3, "max_iter": 50}


def _r20a_nmf2d_fit(training: bool) -> Built:
    from torchnmf.nmf import NMF2D

    V = torch.rand(1, 2, 5, 6)
    return _r20a_fit, (NMF2D(V.shape, 2, kernel_size=(2, 3)), V), {"beta": 1, "tol": 1e-3, "max_iter": 45}


def _r20a_nmf3d_fixed_template_run(W: torch.Tensor, H: torch.Tensor, V: torch.Tensor,
                                   **kwargs: Any) -> tuple[int, torch.Tensor]:
    """Builds ``NMF3D(W=W, H=H, trainable_W=False)`` in the call (the constructor asserts both tensors
    non-negative) and fits the activations only, under ``torch.enable_grad()``; the count and H."""
    from torchnmf.nmf import NMF3D

    model = NMF3D(W=W, H=H, trainable_W=False)
    with torch.enable_grad():
        n_iter = model.fit(V, verbose=False, **kwargs)
    return n_iter, model.H.detach().clone()


def _r20a_nmf3d_fixed_template(training: bool) -> Built:
    V = torch.rand(1, 2, 3, 4, 4)
    W = torch.rand(2, 2, 2, 2, 2)  # channels 2, rank 2, a 2 x 2 x 2 kernel
    H = torch.rand(1, 2, 2, 3, 3)
    return _r20a_nmf3d_fixed_template_run, (W, H, V), {"beta": 2, "tol": 1e-3, "max_iter": 55}


def _r20a_sparse_fit_run(model: Any, V: torch.Tensor, **kwargs: Any) -> tuple[int, torch.Tensor, torch.Tensor]:
    """``model.sparse_fit(V, **kwargs)`` (verbose=False) under ``torch.enable_grad()``; the count, W and H."""
    with torch.enable_grad():
        n_iter = model.sparse_fit(V, verbose=False, **kwargs)
    return n_iter, model.W.detach().clone(), model.H.detach().clone()


def _r20a_nmf_sparse_fit(training: bool) -> Built:
    V = torch.rand(8, 6)
    return _r20a_sparse_fit_run, (_r20a_nmf(V), V), {"beta": 2, "max_iter": 10, "sW": 0.3, "sH": 0.6}


def _r20a_plca_fit_run(model: Any, V: torch.Tensor, **kwargs: Any) -> tuple[Any, ...]:
    """``model.fit(V, **kwargs)`` (verbose=False) under ``torch.enable_grad()`` (the E-step is a
    backward); the returned ``(n_iter, norm)`` and the fitted W, H and Z."""
    with torch.enable_grad():
        n_iter, norm = model.fit(V, verbose=False, **kwargs)
    return n_iter, norm, model.W.detach().clone(), model.H.detach().clone(), model.Z.detach().clone()


def _r20a_plca_fit_priors(training: bool) -> Built:
    from torchnmf.plca import PLCA

    V = torch.rand(8, 6)
    kwargs = {"tol": 1e-4, "max_iter": 60, "W_alpha": torch.tensor(1.2), "H_alpha": 0.9, "Z_alpha": 1.1}
    return _r20a_plca_fit_run, (PLCA(V.shape, 3), V), kwargs


def _r20a_siplca_fit_fixed_z(training: bool) -> Built:
    from torchnmf.plca import SIPLCA

    V = torch.rand(1, 5, 9)
    W = torch.rand(5, 2, 3)
    H = torch.rand(1, 2, 7)
    model = SIPLCA(W=W, H=H, Z=torch.tensor([0.7, 0.3]), trainable_Z=False)
    return _r20a_plca_fit_run, (model, V), {"tol": 1e-4, "max_iter": 45}


# --- optimizers --------------------------------------------------------------------------


def _r20a_sparsity_proj_run(optimizer: Any, model: Any, V: torch.Tensor,
                            steps: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """``steps`` calls of ``optimizer.step(closure)``, the closure zeroing the gradients and returning the
    Euclidean loss of the model against V; the losses the steps return and the updated H."""
    from torchnmf.metrics import beta_div

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        return beta_div(model(), V, beta=2)

    losses = [optimizer.step(closure) for _ in range(steps)]
    return torch.stack(losses), model.H.detach().clone()


def _r20a_sparsity_proj(training: bool) -> Built:
    from torchnmf.nmf import NMF
    from torchnmf.trainer import SparsityProj

    V = torch.rand(8, 6)
    W = torch.rand(6, 3) * 0.3
    H = torch.rand(8, 3)
    model = NMF(W=W, H=H)
    return _r20a_sparsity_proj_run, (SparsityProj([model.H], sparsity=0.3), model, V), {}


def _r20a_betamu_run(optimizer: Any, model: Any, V: torch.Tensor, steps: int = 3) -> tuple[torch.Tensor, ...]:
    """``steps`` calls of ``optimizer.step(closure)``, the closure zeroing the gradients and returning
    ``(V, model())`` as BetaMu expects; the updated W and H."""

    def closure() -> tuple[torch.Tensor, torch.Tensor]:
        optimizer.zero_grad()
        return V, model()

    for _ in range(steps):
        optimizer.step(closure)
    return model.W.detach().clone(), model.H.detach().clone()


def _r20a_betamu(training: bool) -> Built:
    from torchnmf.trainer import BetaMu

    V = torch.rand(8, 6)
    model = _r20a_nmf(V)
    optimizer = BetaMu(model.parameters(), beta=0.5, l1_reg=0.1, l2_reg=0.1, orthogonal=0.1)
    return _r20a_betamu_run, (optimizer, model, V), {}


# --- controls ----------------------------------------------------------------------------


def _r20a_siplca2_forward(training: bool) -> Built:
    from torchnmf.plca import SIPLCA2

    model = SIPLCA2((1, 2, 5, 6), 2, kernel_size=(2, 3))
    H = torch.rand(1, 2, 4, 4)
    return model, (H,), {"norm": 20.0}


def _r20a_beta_div(training: bool) -> Built:
    from torchnmf.metrics import beta_div

    return beta_div, (torch.rand(4, 6) + 0.05, torch.rand(4, 6)), {"beta": 0.5}


# --- rows --------------------------------------------------------------------------------

_WRAP = (
    "the row's function wraps `fit` in `torch.enable_grad()` (fit backpropagates itself and fails under no_grad) "
    "and returns the iteration count with the fitted factors; verbose=False (tqdm disabled, nothing printed)"
)
_INF = (
    "inference only: a fitting loop that updates the factors in place (`param.data.mul_`) and returns an int; "
    "nothing differentiable comes out"
)
_FIT_HEAD = (
    "`BaseComponent.fit` (nmf.py:298-409): `assert torch.all(V >= 0.)` (nmf.py:329-330, a tensor's truth), "
    "`if (V.is_sparse or V.min() == 0) and beta <= 0` (nmf.py:332-336: the truth of `V.min() == 0` read), Python "
    "tests of `beta` for gamma (nmf.py:341-346), `beta_div(WH, V, beta).mul(2).sqrt().item()` (nmf.py:355-362, "
    "a Python float read from a tensor), `for n_iter in range(max_iter)`"
)
_DBU = (
    "`_double_backward_update` (nmf.py:52-92: Python tests of `beta`, `WH.backward(output_neg, retain_graph=...)` "
    "and `WH.backward(output_pos)` (backward calls inside the loop), `param.grad.relu_().add_(eps)`, `neg.div_(pos)`"
    ", `param.data.mul_`)"
)
_CHECK = (
    "every tenth iteration `beta_div(...).mul(2).sqrt().item()` (nmf.py:393-402), `pbar.set_postfix` (disabled "
    "tqdm), `if (previous_loss - loss) / loss_init < tol: break` (nmf.py:405-406: floats read from tensors set the "
    "trip count)"
)
_PROJ = (
    "`_proj_func` (nmf.py:21-49, torch.jit.script: `while True:`, `k1 / (N - zero_coef.count_nonzero())`, "
    "`torch.where`, `v.add_(w, alpha=alphap.item())` (nmf.py:38, a float read from a tensor), `mask = v < 0`, "
    "`if not torch.any(mask): break` (nmf.py:41-42, the trip count from the data), `zero_coef |= mask`, "
    "`count_nonzero` again)"
)
_PLCA_FIT = (
    "`plca.BaseComponent.fit` (plca.py:193-304): `assert torch.all(V >= 0.)` (plca.py:236), `norm = V.sum()`, "
    "`kl_div(WZH * norm, V * norm).mul(2).sqrt().item()` (plca.py:244-247), `for n_iter in range(max_iter)`: "
    "`zero_grad`, `WZH.backward(V / WZH.add(eps))` (the E-step as a backward, plca.py:251-253)"
)
_PLCA_CHECK = (
    "every tenth iteration two `.item()` reads (the KL loss and `_log_probability`, plca.py:291-297), "
    "`pbar.set_postfix`, `if (previous_loss - loss) / loss_init < tol: break` (plca.py:300-301)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r20a_torchnmf_nmf_fit_euclidean_tol_break", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF((8, 6), 3).fit(V (8, 6) float32 uniform in [0, 1), beta=2, tol=1e-2, "
            "max_iter=60) under enable_grad; returns (n_iter (int), W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_nmf_fit_euclidean, modes=INFERENCE,
            notes="Euclidean multiplicative updates (gamma 1, no penalty); the tolerance stops the loop at the "
            "third check (30 of at most 60 iterations: the loss read at 10, 20, 30 falls 1.18, 1.03, 0.91); "
            + _WRAP + "; " + _INF,
            patterns=_FIT_HEAD + ": `if W.requires_grad` / `if H.requires_grad` (Python attributes), "
            "`NMF.reconstruct` (nmf.py:691-693: `F.linear`), " + _DBU + " (beta 2: V and WH as the two "
            "gradients), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf_fit_kl_max_iter", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF((8, 6), 3).fit(V (8, 6) float32 uniform in [0, 1), beta=1, tol=1e-4, "
            "max_iter=25) under enable_grad; returns (n_iter, W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_nmf_fit_kl, modes=INFERENCE,
            notes="Kullback-Leibler updates: the positive part precomputed from the other factor's sums (one "
            "backward per factor); the checks at iterations 10 and 20 pass and the loop runs to max_iter (25); "
            + _WRAP + "; " + _INF,
            patterns=_FIT_HEAD + ", `_get_W_kl_positive(H.detach())` / `_get_H_kl_positive(W.detach())` "
            "(nmf.py:122-131: Python lists of dims, `sum(keepdims=True)`), `NMF.reconstruct` (`F.linear`), "
            + _DBU + " (beta 1: `V / WH.add(eps)`, one backward with `retain_graph=False`), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf_fit_itakura_saito", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF((8, 6), 3).fit(V (8, 6) float32 uniform in [0.1, 1.1), beta=0, tol=1e-4, "
            "max_iter=35) under enable_grad; returns (n_iter, W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_nmf_fit_is, modes=INFERENCE,
            notes="Itakura-Saito updates (gamma 1/2: `pow_(0.5)` of the multiplier); V has no zero, so the "
            "`V.min() == 0` test is false and the ValueError is not raised; no check stops the loop: all 35 "
            "iterations run (three loss reads); " + _WRAP + "; " + _INF,
            patterns=_FIT_HEAD + " (`V.min() == 0` false with beta 0: the test decides the raise), `NMF.reconstruct`,"
            " " + _DBU + " (beta 0: `WH.add(eps).reciprocal_()`, `square().mul_(V)`, `multiplier.pow_(gamma)`), "
            "`metrics.is_div` in the loss (metrics.py:42-57), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf_fit_beta_l1_l2", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF((8, 6), 3).fit(V (8, 6) float32 uniform in [0, 1), beta=1.5, tol=1e-4, "
            "max_iter=35, alpha=0.1, l1_ratio=0.5) under enable_grad; returns (n_iter, W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_nmf_fit_regularized, modes=INFERENCE,
            notes="a beta between the named ones (the general `pow` branch, gamma 1) with both penalties "
            "(l1_reg = l2_reg = 0.05: `pos.add_(l1_reg)`, `pos.add(param.data, alpha=l2_reg)`); no check stops the "
            "loop: all 35 iterations run; " + _WRAP + "; "
            + _INF,
            patterns=_FIT_HEAD + ", `NMF.reconstruct`, " + _DBU + " (general beta: `WH_eps.pow(beta - 2).mul_(V)`, "
            "`WH_eps.pow_(beta - 1)`; `if l1_reg > 0`, `if l2_reg > 0`), `metrics.beta_div` general branch "
            "(metrics.py:84-96: `reshape`, `pow`, `@`), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf_fit_sparse_target_kl", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF((8, 6), 3).fit(V, beta=1, tol=1e-4, max_iter=35) under enable_grad, V a "
            "sparse COO (8, 6) float32 tensor storing the non-zero entries (about half) of a uniform matrix; returns "
            "(n_iter, W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_nmf_fit_sparse_target, modes=INFERENCE,
            notes="the sparse-target path: the KL loss and gradients from the stored entries only (the model is "
            "evaluated at their coordinates by a scripted batched gather); no check stops the loop: all 35 iterations "
            "run (the third check's fall, 2.399 to 2.395, is above the tolerance); " + _WRAP + "; " + _INF,
            patterns="`BaseComponent.fit` (nmf.py:298-409): `assert torch.all(V._values() >= 0.)` (nmf.py:329-330), "
            "`V.is_sparse` true (no `V.min()` read), `V.coalesce()`, `_get_V_norm` (nmf.py:162-170: `assert "
            "V.is_coalesced()`, `V.values() @ V.values().log() - V.values().sum()`), `NMF._sp_recon_beta_pos_neg` "
            "(nmf.py:695-697: `assert V.is_sparse`) -> `_nmf_sp_recon_beta_pos_neg` (nmf.py:617-638, torch.jit."
            "script: `V.indices()`, `V.values()`, `_nmf_sparse_reconstruct` (nmf.py:602-614, scripted: `n_vals = "
            "indices.shape[1]` (the stored entries, a size from the data), `torch.empty(n_vals)`, a Python loop over "
            "batches `dot_vals[batch] = (W[jj[batch], :] * H[ii[batch], :]).sum(1)`), `W.sum(0) @ H.sum(0)`, "
            "`V_vals @ WH_vals.add(eps).log()`), `.item()` of the initial loss, `_sp_double_backward_update` "
            "(nmf.py:95-119: `neg_out.backward()`, the precomputed positive part, `param.data.mul_`), " + _CHECK
            + " (on `V_norm + pos - neg`)",
        ),
        Row(
            "r20a_torchnmf_nmfd_fit_beta3", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMFD((1, 5, 9), 2, T=3).fit(V (1, 5, 9) float32 uniform in [0, 1), beta=3, "
            "tol=1e-3, max_iter=50) under enable_grad; returns (n_iter, W (5, 2, 3), H (1, 2, 7))",
            ("torchnmf",), _r20a_nmfd_fit, modes=INFERENCE,
            notes="1-D convolutive NMF with beta above 2 (gamma 1/2); the tolerance stops the loop at the fourth "
            "check (40 of at most 50 iterations); " + _WRAP + "; " + _INF,
            patterns=_FIT_HEAD + ", `NMFD.reconstruct` (nmf.py:776-779: `W.shape[2] - 1` padding, `conv1d` of H "
            "with `W.flip(2)`), " + _DBU + " (general beta, `multiplier.pow_(gamma)`), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf2d_fit_kl_max_iter", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF2D((1, 2, 5, 6), 2, kernel_size=(2, 3)).fit(V (1, 2, 5, 6) float32 uniform "
            "in [0, 1), beta=1, tol=1e-3, max_iter=45) under enable_grad; returns (n_iter, W (2, 2, 2, 3), H (1, 2, "
            "4, 4))",
            ("torchnmf",), _r20a_nmf2d_fit, modes=INFERENCE,
            notes="2-D convolutive NMF with KL updates (the positive parts precomputed from sums over the other "
            "factor's non-rank dims); no check stops the loop: all 45 iterations run (four loss reads); " + _WRAP
            + "; " + _INF,
            patterns=_FIT_HEAD + ", `_get_W_kl_positive` / `_get_H_kl_positive` (nmf.py:122-131), `NMF2D."
            "reconstruct` (nmf.py:861-865: `conv2d` with `W.flip((2, 3))`, padding from the kernel shape), " + _DBU
            + " (beta 1), `metrics.kl_div` in the loss (metrics.py:6-22), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf3d_fixed_template_fit", *TORCHNMF,
            "wrapper: m = torchnmf.nmf.NMF3D(W=W (2, 2, 2, 2, 2), H=H (1, 2, 2, 3, 3), trainable_W=False) built in "
            "the call (float32 uniform in [0, 1)), m.fit(V (1, 2, 3, 4, 4) float32 uniform, beta=2, tol=1e-3, "
            "max_iter=55) under enable_grad; returns (n_iter, H (1, 2, 2, 3, 3))",
            ("torchnmf",), _r20a_nmf3d_fixed_template, modes=INFERENCE,
            notes="3-D convolutive NMF with fixed templates (only H is updated: `W.requires_grad` is False); the "
            "model is built from tensors in the call, so the constructor's non-negativity asserts run; the "
            "tolerance stops the loop at the fifth check (50 of at most 55); the function wraps `fit` in "
            "`torch.enable_grad()`; " + _INF,
            patterns="`BaseComponent.__init__` (nmf.py:205-251: `assert torch.all(W >= 0.)`, `assert torch.all(H "
            ">= 0.)` (nmf.py:215, 227: tensors' truth in Python asserts), `Parameter(torch.empty(...))`, "
            "`data.copy_`, rank and shape asserts on Python ints), " + _FIT_HEAD + ": `if W.requires_grad` false "
            "(no W update), `NMF3D.reconstruct` (nmf.py:938-942: `conv3d` with `W.flip((2, 3, 4))`), " + _DBU
            + " (beta 2, H only), " + _CHECK,
        ),
        Row(
            "r20a_torchnmf_nmf_sparse_fit_hoyer", *TORCHNMF,
            "wrapper: torchnmf.nmf.NMF((8, 6), 3).sparse_fit(V (8, 6) float32 uniform in [0, 1), beta=2, "
            "max_iter=10, sW=0.3, sH=0.6) under enable_grad; returns (n_iter (10), W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_nmf_sparse_fit, modes=INFERENCE,
            notes="Hoyer's NMF with sparseness constraints on both factors: projected gradient steps with "
            "backtracking (up to 10 halvings each) and Hoyer's projection per column (a `while` loop until no "
            "entry is negative); `sparse_fit` has no tolerance: it runs its 10 iterations, one loss read; the "
            "function wraps `sparse_fit` in `torch.enable_grad()`; verbose=False (tqdm disabled); " + _INF,
            patterns="`BaseComponent.sparse_fit` (nmf.py:412-599): `assert torch.all(V >= 0.)`, `V.min() == 0` "
            "read (nmf.py:448-455), the initial projection of every column of W and H (nmf.py:459-475: `for i in "
            "range(W.shape[1])`, " + _PROJ + "), `for n_iter in range(max_iter)`: `beta_div(WH, V, beta)."
            "backward()`, `for i in range(10)`: `Wnew = W - stepsize_W * W.grad`, `_get_norm`, `_proj_func(Wnew[:, "
            "j], L1a * norms[j], norms[j] ** 2)` per column (0-d tensors for the scripted `float` parameters: "
            "converted to Python floats at the call), `if new_loss <= loss: break` (nmf.py:529-530, 578-579, a "
            "tensor's truth), `W.copy_(Wnew)`; the same for H; `_renorm(W, H, 'H')` (nmf.py:142-159, no_grad, "
            "in place); every tenth iteration `.item()` of the loss (nmf.py:587-598)",
        ),
        Row(
            "r20a_torchnmf_sparsity_proj_step", *TORCHNMF,
            "wrapper: 3 x torchnmf.trainer.SparsityProj([m.H], sparsity=0.3).step(closure) on m = NMF(W=W (6, 3) "
            "uniform in [0, 0.3), H=H (8, 3) uniform in [0, 1)), the closure zeroing gradients and returning "
            "beta_div(m(), V (8, 6), beta=2); returns (the 3 losses (3,), H (8, 3))",
            ("torchnmf",), _r20a_sparsity_proj, modes=INFERENCE,
            notes="projected gradient steps on H to sparseness 0.3 (each column rescaled to its norm before the "
            "step); in this setting every step's first try lowers the loss, so the backtracking (whose undo is "
            "wrong: the module docstring's bug (1)) never runs; inference only: an optimizer step under no_grad "
            "that updates H in place (the losses it returns carry no graph)",
            patterns="`SparsityProj.step` (trainer.py:146-190, `@torch.no_grad()`: `with torch.enable_grad(): "
            "closure().backward()`, a list of `(p, p.grad.clone())`, `for i in range(max_iter)`: `_get_norm(p, dim)`"
            ", `p.add_(g, alpha=-lr)`, `for j in range(p.shape[dim])`: `p[slicer] = _proj_func(p[slicer], L1 * "
            "norms[j], norms[j] ** 2)` (trainer.py:174-177: 0-d tensors for `float` parameters), " + _PROJ + ", "
            "`loss = closure()`, `if loss <= init_loss: break` (trainer.py:180-181, a tensor's truth), `lr *= 1.2`, "
            "`group['lr'] = lr`), the closure: `zero_grad`, `NMF.forward` (`F.linear`), `metrics.euclidean` "
            "(`mse_loss(reduction='sum') * 0.5`)",
        ),
        Row(
            "r20a_torchnmf_plca_fit_dirichlet_priors", *TORCHNMF,
            "wrapper: torchnmf.plca.PLCA((8, 6), 3).fit(V (8, 6) float32 uniform in [0, 1), tol=1e-4, max_iter=60, "
            "W_alpha=tensor(1.2) (0-d), H_alpha=0.9, Z_alpha=1.1) under enable_grad; returns (n_iter (int), norm "
            "(0-d), W (6, 3), H (8, 3), Z (3,))",
            ("torchnmf",), _r20a_plca_fit_priors, modes=INFERENCE,
            notes="PLCA's EM with Dirichlet priors on all three factors, the W prior a 0-d tensor (as the docstring "
            "allows; a tensor of more elements raises: the module docstring's bug (3)), so `W_alpha != 1` is a "
            "tensor's truth; the loss read at iterations 10 and 20 is the same to five digits (2.83472), so the "
            "tolerance stops the loop at the second check (the fit returns 19 for 20 "
            "iterations: bug (2)); the function wraps `fit` in `torch.enable_grad()` (the E-step is a backward); "
            "verbose=False (tqdm disabled); inference only: the factors are updated in place through `.data`",
            patterns=_PLCA_FIT + ", Z's M-step (`Z.data.mul_(Z.grad.relu())`, `Z.clone()`, `if Z_alpha != 1`, "
            "`add_`, `F.threshold(..., inplace=True)`, `div_(Z.sum())`, plca.py:256-262), W's (`if Z_prior is "
            "None` false: divided by the prior, `if W_alpha != 1` (plca.py:273, a 0-d tensor's truth), `add_` of "
            "`W_alpha - 1` (a tensor), threshold, `get_norm` (plca.py:23-31, no_grad)), H's (plca.py:278-289), "
            "`PLCA.reconstruct` (plca.py:371-373: `H @ (W * Z).T`), `_log_probability` with the tensor prior "
            "(plca.py:18-20), " + _PLCA_CHECK,
        ),
        Row(
            "r20a_torchnmf_siplca_fit_fixed_z", *TORCHNMF,
            "wrapper: torchnmf.plca.SIPLCA(W=W (5, 2, 3), H=H (1, 2, 7), Z=tensor([0.7, 0.3]), trainable_Z=False)"
            ".fit(V (1, 5, 9) float32 uniform in [0, 1), tol=1e-4, max_iter=45) under enable_grad (W, H uniform "
            "in [0, 1)); returns (n_iter, norm (0-d), W, H, Z)",
            ("torchnmf",), _r20a_siplca_fit_fixed_z, modes=INFERENCE,
            notes="shift-invariant PLCA with a frozen component prior: W's and H's M-steps divide by their own "
            "sums (`Z_prior is None`), the priors are the default 1 (no threshold); no check stops the loop: all 45 "
            "iterations run (the fit returns 44: the module docstring's bug (2)); the function wraps `fit` in "
            "`torch.enable_grad()`; verbose=False (tqdm disabled); inference only: the factors are updated in place",
            patterns=_PLCA_FIT + ", `if Z.requires_grad` false, W's M-step (`W.data.mul_(W.grad.relu())`, `if "
            "Z_prior is None` true: `W_divider = get_norm(W)`, `Z_prior = W_divider.squeeze()`, `div_`, `if W_alpha "
            "!= 1` false (a float)), H's (divided by `Z_prior[(slice(None), None)]`), `SIPLCA.reconstruct` "
            "(plca.py:446-449: `conv1d` with `W.flip(2) * Z.view(-1, 1)`), " + _PLCA_CHECK,
        ),
        Row(
            "r20a_torchnmf_betamu_step", *TORCHNMF,
            "wrapper: 3 x torchnmf.trainer.BetaMu(m.parameters(), beta=0.5, l1_reg=0.1, l2_reg=0.1, "
            "orthogonal=0.1).step(closure) on m = NMF((8, 6), 3), the closure zeroing gradients and returning "
            "(V (8, 6) float32 uniform in [0, 1), m()); returns (W (6, 3), H (8, 3))",
            ("torchnmf",), _r20a_betamu, modes=INFERENCE,
            notes="the multiplicative update as an optimizer, beta 0.5 (gamma 2/3) with L1, L2 and orthogonality "
            "penalties; no tensor value reaches Python (the steps' data-independent content is the backward calls "
            "inside a no_grad step and the `requires_grad` toggling); inference only: an optimizer step under "
            "no_grad that updates the parameters in place and returns None",
            patterns="no tensor value reaches Python. `BetaMu.step` (trainer.py:35-121, `@torch.no_grad()`: the "
            "closure wrapped by `torch.enable_grad()`, `requires_grad` saved and set False for every parameter, "
            "Python tests of the floats `beta` (gamma), per parameter: `p.requires_grad = True`, `closure()` "
            "(`zero_grad`, `NMF.forward` -> `F.linear`), `if not WH.requires_grad` (an attribute), `WH.add(eps)`, "
            "`pow(beta - 2).mul_(V)`, `pow_(beta - 1)`, `WH.backward(output_neg, retain_graph=True)`, "
            "`clone(p.grad).relu_()`, `p.grad.zero_()`, `WH.backward(output_pos)`, `p.grad.add_(-neg)`, the "
            "penalties (`pos.add_(l1_reg)`, `pos.add_(p, alpha=l2_reg)`, `pos.add_(p.sum(1, keepdims=True) - p, "
            "alpha=ortho)`), `neg.div_(pos)`, `pow_(gamma)`, `p.mul_(multiplier)`; `requires_grad` restored)",
        ),
        Row(
            "r20a_torchnmf_siplca2_forward_control", *TORCHNMF,
            "module: torchnmf.plca.SIPLCA2((1, 2, 5, 6), 2, kernel_size=(2, 3))(H (1, 2, 4, 4) float32 uniform in "
            "[0, 1), norm=20.0); returns the scaled reconstruction (1, 2, 5, 6)",
            ("torchnmf",), _r20a_siplca2_forward,
            notes="control: the 2-D shift-invariant PLCA reconstruction with an activation given as input and "
            "the model's own W and Z (normalized at construction), scaled by norm (the `V.sum()` a fit returns); "
            "in training H requires grad and W and Z get gradients",
            patterns="control: no tensor value reaches Python. `plca.BaseComponent.forward` (plca.py:153-183: "
            "Python `is None` tests, `if norm is None` false, `result * norm`) -> `SIPLCA2.reconstruct` (plca.py:"
            "521-525: padding from `W.shape`, `conv2d(H, W.flip((2, 3)) * Z.view(-1, 1, 1))`)",
        ),
        Row(
            "r20a_torchnmf_beta_div_control", *TORCHNMF,
            "torchnmf.metrics.beta_div(input (4, 6) float32 uniform in [0.05, 1.05), target (4, 6) float32 uniform "
            "in [0, 1), beta=0.5); returns the divergence (0-d)",
            ("torchnmf",), _r20a_beta_div,
            notes="control: the general beta branch (neither 2, 1 nor 0; beta not negative, so no eps on the "
            "target); in training the gradient reaches both input and target",
            patterns="control: no tensor value reaches Python. `beta_div` (metrics.py:60-96: Python tests of the "
            "float `beta` (`== 2`, `== 1`, `== 0`, `< 0`), `input.reshape(-1).add(eps)`, `target.reshape(-1)`, "
            "`pow(beta).sum()` twice, `target @ input.pow(beta - 1)`, the combination divided by `beta * (beta - "
            "1)`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty (a)")
