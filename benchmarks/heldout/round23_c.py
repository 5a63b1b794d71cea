"""Held-out round twenty-three (r23c): neuraloperator.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 1 to 4 channels, 8x8 grids, 2 to 4 Fourier modes, hidden 8,
1 or 2 layers, point clouds of 6 to 16 points in 2-d; seeded random data,
nothing downloaded, nothing written to disk, no data set or data file used);
a row whose ``modes`` is one mode only says why in its ``notes``.

neuraloperator 2.0.0 (package ``neuralop``) holds neural operators for PDEs:
FNO/TFNO, UNO, SFNO, LocalNO, CODANO, UQNO, GINO and FNOGNO (an FNO on a
latent grid followed by a graph neural operator to arbitrary query points),
the layers they are built of (spectral convolutions over tensorly-torch
weights, channel MLPs, skip connections, sinusoidal embeddings, padding,
``GNOBlock`` = ``NeighborSearch`` + ``IntegralTransform`` + ``segment_csr``),
losses (``LpLoss``, ``H1Loss`` over ``FiniteDiff``, equation losses for
Burgers/Poisson, ``non_uniform_fd``, ``FourierDiff``, meta losses
``SoftAdapt``/``Relobralo``), data transforms (``UnitGaussianNormalizer``,
``DefaultDataProcessor``, multigrid patching), datasets (not used here), and
training (``Trainer``, ``IncrementalFNOTrainer``, AdamW with GaLore).

The data-dependent code on the rows' paths (file:line relative to the
``neuralop`` package).  ``GNOBlock.forward`` (layers/gno_block.py:211-254)
runs ``NeighborSearch`` with the native search (no open3d here, and
``use_open3d_neighbor_search=False``): ``native_neighbor_search``
(layers/neighbor_search.py:84-120) takes ``cdist``, two three-argument
``torch.where``s, ``dists.nonzero()`` (109: a data-dependent number of
neighbour pairs), with a weighting function also ``dists[dists.nonzero(
as_tuple=True)]`` (111), and row splits by ``cumsum``;
``IntegralTransform.forward`` (layers/integral_transform.py:107-227) gathers
``y[neighbors_index]`` (158, 170: data-dependent lengths),
``repeat_interleave(x, num_reps)`` (177: repeats from a tensor), in-place
``mul_`` (198, 211), then the native ``segment_csr`` (layers/segment_csr.py:
8-98; ``use_torch_scatter_reduce=False``, torch_scatter is not installed
either) loops over the output points in Python and slices ``src`` with
``slice(indptr[i], indptr[i + 1])`` (87; batched ``indptr[0, i]``, 81: tensor
values as slice bounds) and tests ``if n_nbrs > 0`` (93: a tensor's truth),
``to_reduce /= n_nbrs`` (96), ``out[to_idx] += ...`` (97).  ``FNOGNO`` (models/
fnogno.py:319-407) runs the same out-GNO after its FNO blocks.
``PoissonEqnLoss`` (losses/equation_losses.py:247-285) takes
``autograd.grad(create_graph=True)`` of the output w.r.t. the query points
(137-183), ``assert not u_prime.isnan().any()`` and the same for ``u_yy``,
``u_xx`` (202-204: tensor truths in asserts), and ``PoissonBoundaryLoss``
reads ``int(num_boundary.item() * out_sub_level)`` (239) to slice the
boundary points.  ``IncrementalFNOTrainer`` (training/incremental.py) on
``Trainer.train`` (training/trainer.py:98-264): per batch ``backward``, an
optimizer ``step`` and ``loss.item()`` twice (301, 303), the scheduler step,
``evaluate`` under ``no_grad`` (385-467); after each epoch ``grad_explained``
(199-259) accumulates the spectral weight, then takes ``torch.norm`` per
mode, builds ``torch.Tensor(strength_vector)`` from a Python list of 0-d
tensors (244: each read into a Python float), ``compute_explained_variance``
(utils.py:216-221) and tests ``if explained_ratio < self.incremental_grad_eps``
(248: a tensor's truth) to grow the number of Fourier modes (259: sets
``n_modes``, which changes the slices of the next forward).
``UnitGaussianNormalizer.partial_fit`` with a mask (data/transforms/
normalizers.py:87-153): ``if self.n_elements:`` (97: after the first chunk
``n_elements`` is the tensor ``count_nonzero(mask) * batch``, its truth tested
per chunk), ``count_nonzero`` (114, 133), boolean-mask writes
``data_batch[:, self.mask == 1] = 0`` (118, 134) and ``self.mean[self.mask ==
1] = ...`` (119).  ``RandomMGPatch.__call__`` (data/transforms/
patching_transforms.py:79-113) draws the patch centre with ``torch.randint``
and ``[0]`` (102-103), then ``torch.roll(x, (shift_h, shift_w))`` with 0-d
tensor shifts (108, 110: each converted to a Python int).

Controls (no tensor value reaches Python): ``H1Loss`` (losses/data_losses.py:
218-495: ``FiniteDiff`` (losses/differentiation.py:11-660) non-periodic
differences by slicing, sums, a ratio) and ``Relobralo`` (losses/
meta_losses.py:368-447: Python-int ``step`` branches, ``stack``, ``max``,
``torch.bernoulli`` of a constant, ``exp``, in-place buffer writes).

tensorly / tensorly-torch (run in round 7): every ``SpectralConv`` imports
them (layers/spectral_convolution.py:8-10, 16-17: ``tl.set_backend
("pytorch")`` and tensorly's ``use_opt_einsum("optimal")`` at import), and
the "dense" default (``factorization=None``) is not plain torch: the weight
is a tltorch ``DenseTensor`` (spectral_convolution.py:341-355), indexed per
forward (474: ``DenseTensor.__getitem__`` builds a new module) and contracted
by ``_contract_dense`` (22-46: ``tl.ndim``, ``weight.to_tensor()``,
``tl.einsum`` = tensorly's cached ``opt_einsum.contract_expression`` keyed on
shapes).  So the two rows with FNO blocks (``r23c_fnogno_forward`` and
``r23c_incremental_fno_trainer_grad_explained``) call tensorly/tltorch code,
shape-only (no tensor value reaches Python there); ``modules`` stays
``("neuralop",)``.  The other seven rows never call tensorly or tltorch code
(they only import it with the package).

Global state on import (the builders import the library; this module imports
only torch): ``import neuralop`` imports the whole package: ``warnings.
filterwarnings("once", category=UserWarning)`` runs at import of losses/
data_losses.py:17, meta_losses.py:11, equation_losses.py:11, models/fno.py:13,
fnogno.py:7, gino.py:9, uno.py:8, local_no.py:12 and layers/
legacy_spectral_convolution.py:10 (a process-wide ``once`` filter for every
``UserWarning``); training/trainer.py:13-20 imports ``wandb`` (installed
here: ``wandb`` logger with a NullHandler, level INFO, ``propagate=False``;
urllib3/requests/charset_normalizer NullHandlers and their warning filters;
opentelemetry loggers); scipy's ``threadpoolctl`` sets
``KMP_DUPLICATE_LIB_OK=True`` in ``os.environ``; tensorly's backend is set to
pytorch with the opt-einsum plugin (above).  No logging handler on the root
logger, torch's default dtype, deterministic flags, matmul precision and
thread count are unchanged; ``torch._dynamo`` is not imported by the
package.  The trainer row builds an optimizer: ``torch.optim.Optimizer.
add_param_group`` is wrapped by torch's ``_disable_dynamo`` (torch/_compile.py:
47), which imports ``torch._dynamo`` (nothing is compiled; any torch optimizer
does this).

Library quirks met (eagerly): ``PoissonEqnLoss.__call__`` warns that its
keyword arguments "will be ignored" and then passes them on and uses them
(equation_losses.py:270-285, 209-223, 231-244: ``warnings.warn`` at 272, 211,
233): three ``UserWarning``s per
call (shown once per process under the library's ``once`` filter).
``IncrementalFNOTrainer.grad_explained`` accumulates the spectral *weight*,
not its gradient (226), loops ``for i in range(self.ndim)`` over
``fno_blocks.convs[i]`` (230-231: needs at least as many layers as spatial
dims; with one layer it raises ``IndexError``, so the row uses 2 layers) and
only updates the first block's ``n_modes`` (197, 259); ``torch.Tensor(list of
0-d tensors requiring grad)`` warns "Converting a tensor with requires_grad=
True to a scalar".  ``UnitGaussianNormalizer``'s masked fit zeroes the masked
entries of the caller's tensor in place (118, 134) and only works with
``dim=[0]`` (other ``dim``s raise ``IndexError`` in the mask writes).
``RandomMGPatch`` rolls dims ``(0, 1)`` of a ``(C, H, W)`` sample, i.e.
channels and height, not height and width (108, 110).
``Trainer.train_one_batch``/``eval_one_batch`` pass the whole sample dict as
keywords to the model and the losses (trainer.py:522, 536, 573, 581), so
``FNO.forward`` warns about ``y`` and ``H1Loss``/``LpLoss`` about ``x`` ("will
be ignored").  ``DefaultDataProcessor.preprocess`` writes the normalized ``x``/``y`` back
into the caller's sample dict (data_processors.py:98-129), so the trainer row
feeds it a ``DataLoader`` (fresh dicts each epoch) rather than a reused list.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

NEURALOP = ("neuraloperator", "2.0.0")
MODULES = ("neuralop",)
INFERENCE = ("inference",)
TRAINING = ("training",)

# --- helpers -------------------------------------------------------------------------------


def _gno(in_channels: int, out_channels: int, **kwargs: Any) -> Any:
    from neuralop.layers.gno_block import GNOBlock

    return GNOBlock(in_channels, out_channels, coord_dim=2, radius=0.35, channel_mlp_layers=[8],
                    use_torch_scatter_reduce=False, use_open3d_neighbor_search=False, **kwargs)


def _grid(n: int) -> torch.Tensor:
    """A regular (n, n, 2) grid of coordinates on the unit square."""
    axis = torch.linspace(0.0, 1.0, n)
    return torch.stack(torch.meshgrid(axis, axis, indexing="ij"), dim=-1)


def _poisson_loss(net: Any, loss: Any, queries: torch.Tensor, source: torch.Tensor, y: torch.Tensor,
                  num_boundary: torch.Tensor) -> torch.Tensor:
    """A PINN step's loss: the network on the query points (first ``num_boundary`` on the boundary), then
    ``PoissonEqnLoss`` (differentiates the output w.r.t. the queries)."""
    out = net(queries)
    return loss(out, y=y, output_queries=queries, output_source_terms_domain=source, num_boundary=num_boundary,
                out_sub_level=1.0)


def _trainer_train(trainer: Any, loader: Any, test_loader: Any, optimizer: Any, scheduler: Any, training_loss: Any,
                   eval_losses: dict[str, Any]) -> tuple[Any, ...]:
    """``trainer.train(...)`` under ``torch.enable_grad()`` (the trainer runs its own backward); returns the
    updated parameters, the grown modes and the epoch metrics without the wall-clock time."""
    with torch.enable_grad():
        metrics = trainer.train(loader, {"8": test_loader}, optimizer, scheduler, training_loss=training_loss,
                                eval_losses=eval_losses)
    metrics = {k: v for k, v in metrics.items() if k != "epoch_train_time"}
    model = trainer.model
    params = tuple(p.detach().clone() for p in model.parameters())
    return params, tuple(model.fno_blocks.convs[0].n_modes), metrics


def _partial_fit(normalizer: Any, data: torch.Tensor) -> tuple[torch.Tensor, ...]:
    normalizer.partial_fit(data, batch_size=2)
    return normalizer.mean, normalizer.std, normalizer.n_elements, normalizer.transform(data)


def _relobralo_steps(aggregator: Any, data0: torch.Tensor, physics0: torch.Tensor, data1: torch.Tensor,
                     physics1: torch.Tensor) -> Any:
    """Two training steps of loss balancing on {'data', 'physics'} losses: step 0 records the initial losses,
    step 1 reweights."""
    loss0, _ = aggregator({"data": data0, "physics": physics0}, 0)
    loss1, lmbda = aggregator({"data": data1, "physics": physics1}, 1)
    return loss0, loss1, lmbda.clone(), aggregator.prev_losses.clone()


def _mg_patch(patch: Any, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The transform as ``MGPTensorDataset.__getitem__`` applies it to one (x, y) sample."""
    return patch((x, y))


# --- builders ------------------------------------------------------------------------------


def _gno_linear_mean(training: bool) -> Built:
    gno = _gno(4, 4, transform_type="linear", reduction="mean", pos_embedding_type=None)
    return gno, (torch.rand(12, 2), torch.rand(6, 2)), {"f_y": torch.randn(12, 4)}


def _gno_nonlinear_mollified(training: bool) -> Built:
    from neuralop.layers.gno_weighting_functions import dispatch_weighting_fn

    weight = dispatch_weighting_fn("half_cos", sq_radius=0.35 ** 2, scale=1.0)
    gno = _gno(3, 3, transform_type="nonlinear", weighting_fn=weight, pos_embedding_type="transformer",
               pos_embedding_channels=4)
    return gno, (torch.rand(12, 2), torch.rand(6, 2)), {"f_y": torch.randn(2, 12, 3)}


def _fnogno(training: bool) -> Built:
    from neuralop.models import FNOGNO

    model = FNOGNO(in_channels=1, out_channels=1, gno_coord_dim=2, fno_n_modes=(4, 4), fno_hidden_channels=8,
                   fno_n_layers=1, gno_radius=0.3, gno_embed_channels=4, gno_channel_mlp_hidden_layers=[8],
                   gno_use_open3d=False, gno_use_torch_scatter=False, projection_channel_ratio=1,
                   fno_lifting_channel_ratio=1)
    return model, (_grid(8), torch.rand(10, 2), torch.randn(8, 8, 1)), {}


def _poisson(training: bool) -> Built:
    from neuralop.layers.channel_mlp import LinearChannelMLP
    from neuralop.losses.equation_losses import PoissonEqnLoss

    net = LinearChannelMLP(layers=[2, 8, 1])
    loss = PoissonEqnLoss(boundary_weight=1.0, interior_weight=0.5)
    queries = torch.rand(1, 10, 2)
    return _poisson_loss, (net, loss, queries, torch.randn(1, 6), torch.randn(1, 10, 1), torch.tensor(4)), {}


def _incremental_trainer(training: bool) -> Built:
    from neuralop.data.transforms.data_processors import DefaultDataProcessor
    from neuralop.data.transforms.normalizers import UnitGaussianNormalizer
    from neuralop.losses import H1Loss, LpLoss
    from neuralop.models import FNO
    from neuralop.training import AdamW
    from neuralop.training.incremental import IncrementalFNOTrainer

    model = FNO(n_modes=(2, 2), max_n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2)
    x, y = torch.randn(4, 1, 8, 8), torch.randn(4, 1, 8, 8)
    in_norm, out_norm = UnitGaussianNormalizer(dim=[0, 2, 3]), UnitGaussianNormalizer(dim=[0, 2, 3])
    in_norm.fit(x)
    out_norm.fit(y)
    processor = DefaultDataProcessor(in_norm, out_norm)
    samples = [{"x": x[i], "y": y[i]} for i in range(4)]
    loader = torch.utils.data.DataLoader(samples, batch_size=4, shuffle=False)
    test_loader = torch.utils.data.DataLoader(samples[:2], batch_size=2, shuffle=False)
    trainer = IncrementalFNOTrainer(model=model, n_epochs=2, data_processor=processor, incremental_grad=True,
                                    incremental_grad_max_iter=1, incremental_buffer=1, incremental_grad_eps=0.5)
    optimizer = AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    return _trainer_train, (trainer, loader, test_loader, optimizer, scheduler, H1Loss(d=2),
                            {"l2": LpLoss(d=2)}), {}


def _normalizer_masked(training: bool) -> Built:
    from neuralop.data.transforms.normalizers import UnitGaussianNormalizer

    mask = (torch.rand(2, 4) < 0.7).float()
    return _partial_fit, (UnitGaussianNormalizer(dim=[0], mask=mask), torch.randn(6, 2, 4)), {}


def _random_mg_patch(training: bool) -> Built:
    from neuralop.data.transforms.patching_transforms import RandomMGPatch

    return _mg_patch, (RandomMGPatch(levels=1), torch.randn(2, 8, 8), torch.randn(1, 8, 8)), {}


def _h1_loss(training: bool) -> Built:
    from neuralop.losses import H1Loss

    loss = H1Loss(d=2, periodic_in_x=False, periodic_in_y=False)
    return loss, (torch.randn(3, 2, 8, 8), torch.randn(3, 2, 8, 8)), {}


def _relobralo(training: bool) -> Built:
    from neuralop.losses import Relobralo

    aggregator = Relobralo([torch.nn.Parameter(torch.zeros(1))], num_losses=2, alpha=0.9, beta=0.5)
    losses = (torch.rand(()) + 0.5, torch.rand(()) + 1.0, torch.rand(()) + 0.2, torch.rand(()) + 1.5)
    return _relobralo_steps, (aggregator, *losses), {}


# --- rows ------------------------------------------------------------------------------------

_SEARCH = ("`native_neighbor_search` (layers/neighbor_search.py:84-120: `cdist`, three-argument `torch.where`s, "
           "`dists.nonzero()` (109: data-dependent number of pairs), `cumsum` row splits, `torch.cat` with a "
           "new `torch.tensor([0.])`)")
_INTEGRAL = ("`IntegralTransform.forward` (layers/integral_transform.py:107-227: `y[neighbors_index]` (158), "
             "`repeat_interleave(x, num_reps)` (177: repeats from a tensor), `channel_mlp`, in-place `mul_`)")
_SEGMENT = ("native `segment_csr` (layers/segment_csr.py:8-98: a Python loop over the output points, "
            "`slice(indptr[i], indptr[i + 1])` (87: tensor values as slice bounds), `if n_nbrs > 0` (93: a "
            "tensor's truth), `to_reduce /= n_nbrs` (96), `out[to_idx] += ...` (97))")
_TRAIN_NOTES = ("inference only: the trainer runs its own backward and optimizer steps (the wrapper runs it under "
                "`torch.enable_grad()`) and returns detached parameters and Python floats; ")


def _rows() -> list[Row]:
    return [
        Row(
            "r23c_gno_block_linear_mean", *NEURALOP,
            "module: GNOBlock(4, 4, coord_dim=2, radius=0.35, transform_type='linear', reduction='mean', "
            "pos_embedding_type=None, channel_mlp_layers=[8], native search and reduction)(y (12, 2), x (6, 2), "
            "f_y=(12, 4)); returns (6, 4)",
            MODULES, _gno_linear_mean,
            notes="a graph neural operator layer: kernel integral of f over the radius-0.35 neighbourhood of each "
            "of 6 query points among 12 data points, averaged; in training coordinates, f_y and parameters require "
            "grad",
            patterns="`GNOBlock.forward` (layers/gno_block.py:211-254) -> `NeighborSearch.forward` (40-83) -> "
            + _SEARCH + "; " + _INTEGRAL + "; " + _SEGMENT + " unbatched",
        ),
        Row(
            "r23c_gno_block_nonlinear_mollified_batched", *NEURALOP,
            "module: GNOBlock(3, 3, coord_dim=2, radius=0.35, transform_type='nonlinear', weighting_fn=half_cos "
            "mollifier, pos_embedding_type='transformer', pos_embedding_channels=4, channel_mlp_layers=[8], native "
            "search and reduction)(y (12, 2), x (6, 2), f_y=(2, 12, 3)); returns (2, 6, 3)",
            MODULES, _gno_nonlinear_mollified,
            notes="a mollified GNO layer (as in FNOGNO's output GNO with a weighting function) on a batch of 2 "
            "functions: neighbour distances returned and weighted by a half-cosine cutoff, sum reduction; in "
            "training coordinates, f_y and parameters require grad",
            patterns="`GNOBlock.forward` (layers/gno_block.py:211-254), `NeighborSearch` with `return_norm=True`: "
            + _SEARCH + " plus `dists[dists.nonzero(as_tuple=True)]` (111: boolean-sized gather) squared; "
            "`SinusoidalEmbedding.forward` (layers/embeddings.py:258-293: `assert x.ndim`, `einsum`, sin/cos); "
            + _INTEGRAL + " with the batched `f_y[:, neighbors_index, :]` (167), `repeat`, `cat`, the weighting "
            "function (layers/gno_weighting_functions.py:17-25) and `mul_(nbr_weights)` (211); " + _SEGMENT
            + " batched (`slice(indptr[0, i], indptr[0, i + 1])`, 81)",
        ),
        Row(
            "r23c_fnogno_forward", *NEURALOP,
            "module: FNOGNO(in_channels=1, out_channels=1, gno_coord_dim=2, fno_n_modes=(4, 4), "
            "fno_hidden_channels=8, fno_n_layers=1, gno_radius=0.3, gno_embed_channels=4, "
            "gno_channel_mlp_hidden_layers=[8], native search and reduction)(in_p (8, 8, 2) grid, out_p (10, 2), "
            "f (8, 8, 1)); returns (10, 1)",
            MODULES, _fnogno,
            notes="an FNO on an 8x8 latent grid then a GNO to 10 arbitrary query points (dense spectral weights; "
            "tensorly/tltorch called shape-only, see the docstring); in training the grid, queries, f and "
            "parameters require grad",
            patterns="`FNOGNO.forward` (models/fnogno.py:393-407), `latent_embedding` (319-350: `cat`, `permute`, "
            "lifting, `FNOBlocks` with `SpectralConv.forward` (layers/spectral_convolution.py:402-528: `rfftn`, "
            "`fftshift`, tltorch `DenseTensor` slicing, `tl.einsum`)), `integrate_latent` (352-391) -> "
            "`GNOBlock.forward` (layers/gno_block.py:211-254): " + _SEARCH + "; " + _INTEGRAL + "; " + _SEGMENT,
        ),
        Row(
            "r23c_poisson_eqn_loss", *NEURALOP,
            "function: PoissonEqnLoss(boundary_weight=1.0, interior_weight=0.5)(LinearChannelMLP([2, 8, 1])"
            "(queries), y=(1, 10, 1), output_queries=queries (1, 10, 2), output_source_terms_domain=(1, 6), "
            "num_boundary=tensor(4), out_sub_level=1.0) via a 3-line wrapper; returns a 0-d tensor",
            MODULES, _poisson, modes=TRAINING,
            notes="training only: the loss differentiates the network output w.r.t. the query points "
            "(`autograd.grad`), which needs grad enabled. A physics-informed step for nonlinear Poisson on 10 "
            "points (4 boundary, 6 interior); the queries, source, targets and the MLP's parameters require grad",
            patterns="`PoissonEqnLoss.__call__` (losses/equation_losses.py:270-285: `warnings.warn` of the "
            "keyword names), `PoissonInteriorLoss.autograd` (110-207: three `autograd.grad(create_graph=True)` "
            "(137-183), shape asserts, `assert not u_prime.isnan().any()`, `u_yy`, `u_xx` (202-204: tensor truths "
            "in asserts)), `PoissonBoundaryLoss.__call__` (231-244: `int(num_boundary.item() * out_sub_level)` "
            "(239) then slices by it), `F.mse_loss`",
        ),
        Row(
            "r23c_incremental_fno_trainer_grad_explained", *NEURALOP,
            "wrapper: IncrementalFNOTrainer(FNO(n_modes=(2, 2), max_n_modes=(4, 4), hidden_channels=8, "
            "n_layers=2), n_epochs=2, DefaultDataProcessor(UnitGaussianNormalizer x2), incremental_grad=True, "
            "incremental_grad_max_iter=1).train(DataLoader 4 samples 1x8x8, test loader 2 samples, neuralop "
            "AdamW, StepLR, H1Loss, {'l2': LpLoss}); returns (parameters, n_modes, epoch metrics)",
            MODULES, _incremental_trainer, modes=INFERENCE,
            notes=_TRAIN_NOTES + "two epochs of one batch each, each followed by an evaluation; the gradient-"
            "explained-variance rule grows the first block's modes after the second epoch; tensorly/tltorch "
            "called shape-only in the FNO (see the docstring)",
            patterns="`Trainer.train` (training/trainer.py:98-264) -> `IncrementalFNOTrainer.train_one_epoch` "
            "(training/incremental.py:127-160) -> `Trainer.train_one_epoch` (266-334: `train_one_batch` (487-541: "
            "`DefaultDataProcessor.preprocess`/`postprocess`, `FNO.forward`, `H1Loss`), `backward`, neuralop "
            "`AdamW.step` (training/adamw.py:114-200), `loss.item()` (301, 303), `scheduler.step`), "
            "`grad_explained` (199-259: `accumulated_grad += weight` (226), per mode `torch.norm` (238), "
            "`torch.Tensor(strength_vector)` of 0-d tensors (244: read into Python floats), "
            "`compute_explained_variance` (utils.py:216-221), `if explained_ratio < self.incremental_grad_eps` "
            "(248: a tensor's truth), `n_modes` reset (259)), `evaluate` (385-467: `no_grad`, `LpLoss`, "
            "tensor sums and division)",
        ),
        Row(
            "r23c_unit_gaussian_normalizer_partial_fit_masked", *NEURALOP,
            "wrapper: UnitGaussianNormalizer(dim=[0], mask=(2, 4) 0/1).partial_fit(data (6, 2, 4), batch_size=2) "
            "then .transform(data); returns (mean, std, n_elements, transformed (6, 2, 4))",
            MODULES, _normalizer_masked, modes=INFERENCE,
            notes="inference only: the masked fit writes zeros into the caller's data in place (a leaf requiring "
            "grad cannot be written). Fitting a masked normalizer in 3 chunks of 2 samples, then normalizing",
            patterns="`partial_fit` (data/transforms/normalizers.py:87-101: a Python loop over chunks, `if "
            "self.n_elements:` (97: a tensor's truth from the second chunk on)), `update_mean_std` (103-125: "
            "`count_nonzero(mask) * batch` (114), `data_batch[:, self.mask == 1] = 0` (118), `self.mean[self.mask "
            "== 1] = ...` (119: boolean-mask writes), `torch.std`), `incremental_update_mean_std` (127-153: "
            "`count_nonzero` (133), mask write (134), `sqrt`), `transform` (154-155)",
        ),
        Row(
            "r23c_random_mg_patch", *NEURALOP,
            "function: RandomMGPatch(levels=1)((x (2, 8, 8), y (1, 8, 8))) via a 1-line wrapper; returns (the "
            "2 x-patches concatenated (4, 4, 4), the finest y patch (1, 4, 4))",
            MODULES, _random_mg_patch,
            notes="multigrid patching of one training sample around a random centre (torch's generator, seeded "
            "by the harness before the call); in training x and y require grad",
            patterns="`RandomMGPatch.__call__` (data/transforms/patching_transforms.py:79-113: `torch.randint(...)"
            "[0]` twice (102-103), `torch.roll(x, (shift_h, shift_w), dims=(0, 1))` with 0-d tensor shifts "
            "(108, 110: converted to Python ints), recursive `_get_patches` slicing by Python ints (80-94), "
            "`torch.cat`)",
        ),
        Row(
            "r23c_h1_loss_control", *NEURALOP,
            "function: H1Loss(d=2, periodic_in_x=False, periodic_in_y=False)(y_pred (3, 2, 8, 8), y (3, 2, 8, 8)); "
            "returns a 0-d tensor",
            MODULES, _h1_loss, frozen=("1",),
            notes="control: the relative H1 training loss of neural operators on a batch of 3 two-channel 8x8 "
            "fields; in training the prediction requires grad (the target is data: frozen)",
            patterns="control: no tensor value reaches Python. `H1Loss.__call__`/`rel` (losses/data_losses.py:"
            "437-495: `uniform_quadrature` from shapes, `compute_terms` (302-361: `FiniteDiff` (losses/"
            "differentiation.py:115-145, 393-488: non-periodic differences by slicing into `zeros_like`), "
            "`flatten`), sums, `** 0.5`, division, `sum`)",
        ),
        Row(
            "r23c_relobralo_two_steps_control", *NEURALOP,
            "wrapper: Relobralo([param], num_losses=2, alpha=0.9, beta=0.5) called at step 0 then step 1 on two "
            "dicts of 2 scalar losses {'data', 'physics'} (a wrapper builds the dicts); returns (loss0, loss1, "
            "lmbda_ema (2,), prev_losses (2,))",
            MODULES, _relobralo,
            notes="control: adaptive loss balancing over two optimization steps (random lookback from torch's "
            "generator, seeded by the harness); in training the four scalar losses require grad",
            patterns="control: no tensor value reaches Python. `Relobralo.forward` (losses/meta_losses.py:"
            "368-447: `weigh_losses`, Python-int `step` branches, in-place buffer writes `init_losses[i] = ...`, "
            "`prev_losses[i] = ...`, `stack`, `max`, `torch.bernoulli(torch.tensor(beta))`, `exp` under `no_grad`, "
            "`lmbda_ema[i] = ...`, weighted sum)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-three (c)")
