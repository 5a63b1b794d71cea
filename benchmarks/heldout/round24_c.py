"""Held-out round twenty-four (r24c): torch-pme.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny problems: 8 atoms with random positions in a 4x4x4 cubic cell, random
charges summing to zero per channel, 1 or 2 charge channels, half neighbour
lists (all pairs i < j within a minimum-image cutoff of 1.8) built in ``make``
with plain torch, meshes of 4^3 to 16^3 points, float64 throughout as the
library's potentials keep float64 buffers; seeded random data, nothing
downloaded, nothing written to disk, no data set or data file used); a row
whose ``modes`` is one mode only says why in its ``notes``.

torch-pme 0.5.0 (package ``torchpme``) computes long-range interactions for
atomistic machine learning: calculators (``Calculator``: the bare real-space
pair sum; ``EwaldCalculator``, ``PMECalculator``, ``P3MCalculator``: a
real-space short-range sum plus a k-space part), potentials
(``CoulombPotential``, ``InversePowerLawPotential``, ``SplinePotential``,
``CombinedPotential``), the mesh interpolator, k-space filters, k-vector
generation, cubic splines, special functions, and tuning of the calculators'
parameters from error bounds.  The calculator rows call the calculator through
a 4-line wrapper that computes the pair distances from the positions
(minimum image), so that in training the forces reach the positions, as in an
MD or ML step.

The data-dependent code on the rows' paths (file:line relative to the
``torchpme`` package).  Every calculator forward runs ``_validate_parameters``
(_utils.py:4-170: shape, dtype and device checks that ``raise``; no tensor
value is read there).  ``EwaldCalculator._compute_kspace`` (calculators/
ewald.py:76-142) turns the cell into the number of k-vectors per axis with
``torch.ceil(ns_float).long()`` (93) and ``_generate_kvectors`` (lib/
kvectors.py:24-74) sizes ``torch.fft.fftfreq(ns[0])``, ``fftfreq(ns[1])``,
``fftfreq(ns[2])`` (56-66) with those 0-d tensors (read into Python ints: the
number of k-vectors depends on the cell's values); ``compute_batched_kvectors``
(139-166) does that in a Python loop over a batch of cells (157: iterating a
tensor) and pads with ``pad_sequence``.  ``PMECalculator._compute_kspace``
(calculators/pme.py:88-143, also P3M's) computes the mesh size from the cell
(``get_ns_mesh``, lib/kvectors.py:5-21: ``ceil(log2(...)).long()``), rebuilds
the k grid and the kernel on every call (``KSpaceFilter.update``/
``_prep_kvectors``, lib/kspace_filter.py:98-120, 199-222, storing them on the
module), ``MeshInterpolator.compute_weights`` (lib/mesh_interpolator.py:
303-377: ``floor``/``round(...).long()``, ``% self.ns_mesh``, index tensors
stored on the module), ``points_to_mesh`` (379-426: ``int(self.ns_mesh[0])``,
``[1]``, ``[2]`` (408-410: the mesh shape from tensor values), a Python loop
over the channels with ``index_put_(accumulate=True)`` (414-415)), and
``KSpaceFilter.forward`` (122-197) tests ``if torch.isnan(result).any():
raise`` (189: a tensor's truth).  ``InversePowerLawPotential`` keeps its
exponent as a float64 buffer, so ``if self.exponent > 3`` (potentials/
inversepowerlaw.py:136), ``>= 3`` (160), ``== 1`` (167) and
``gammaincc_over_powerlaw``'s ``if exponent == 1`` / ``== 2`` / ``== 3``
(lib/math.py:87-91) are tensor truths; for exponent 3 the kernel is ``exp1``:
``_CustomExp1.forward`` (lib/math.py:17-55) gathers with boolean masks
``x[mask & (x <= 1)]`` (34) and ``x[mask & (x > 1)]`` (46), tests
``numel() > 0`` (35, 47), runs a series with ``if torch.all(...): break`` (41:
an early exit on a tensor's truth) and a loop ``range(m.max(), 0, -1)`` (50: a
bound from tensor values), and writes back through boolean masks (43, 53).
``SplinePotential.__init__`` (potentials/spline.py:50-130) tests ``if
torch.min(r_grid) <= 0.0: raise`` (78), builds ``torch.tensor([0.0,
x_points[0], x_points[1]])`` and ``[y_at_zero, y_points[0], y_points[1]]``
from 0-d tensors (lib/splines.py:93-102), solves for the spline's second
derivatives with Python loops of element-wise in-place writes
(``compute_second_derivatives`` 149-188, ``_solve_tridiagonal`` 117-146),
and ``compute_spline_ft`` (193-364) reads ``1 / x_points[-1]`` etc. into
``torch.tensor`` (310-311) and sends ``k * r0`` through numpy and
``scipy.special.sici`` (320-322); its evaluation uses ``torch.searchsorted``
(31).  ``tune_p3m`` (tuning/p3m.py:69-195) reads ``float(torch.min(...))``
(155), ``TunerBase.__init__`` ``float((charges**2).sum())`` (tuning/tuner.py:
117), ``filter_neighbors`` a one-argument ``torch.where(neighbor_distances <
cutoff)`` (165: a data-dependent number of pairs), ``estimate_smearing``
``float(torch.abs(self.cell.det()))`` (142); ``GridSearchTuner.tune``
(245-267) loops over the parameter grid, reads ``float(error)`` (261) and
tests ``if error <= accuracy`` (264); ``P3MErrorBounds.err_kspace`` (tuning/
p3m.py:250-282) loops ``range(interpolation_nodes)`` over a 0-d tensor (279)
and indexes a Python table with it, ``A_COEF[m][interpolation_nodes]`` (277).

Controls (no tensor value reaches Python):
``r24c_ewald_given_kvectors_masked_control`` (the padded/batched Ewald path:
k-vectors given, so no
k-vector generation; node and pair masks as products; three-argument
``torch.where``s, einsums, in-place ``/=``, ``-=``) and
``r24c_direct_coulomb_exclusion_control`` (the bare real-space pair sum of
1/r with the exclusion cutoff: ``clamp``, three-argument ``torch.where``,
gathers, ``index_add_``).

Global state on import (the builders import the library; this module imports
only torch): ``import torchpme`` imports its calculators, potentials, lib and
tuning modules and tries ``torchpme.metatensor`` under
``contextlib.suppress(ImportError)`` (metatensor is not installed: nothing
imported).  It adds no warning filter, no logging handler, sets no
environment variable and leaves torch's default dtype, deterministic flags,
matmul precision and thread count unchanged; ``torch._dynamo`` is not
imported.  The spline row imports ``scipy.special`` on its first call
(lib/splines.py:226), which adds an ``always`` warning filter for scipy's own
``SpecialFunctionWarning`` (and nothing else seen here).

Library quirks met (eagerly): ``SplinePotential`` cannot be differentiated
w.r.t. its grid values: ``_solve_tridiagonal`` writes ``x[i] = d_prime[i] -
c_prime[i] * x[i + 1]`` in place into the tensor it reads (lib/splines.py:
142-145), so backward through the construction raises "one of the variables
needed for gradient computation has been modified by an inplace operation";
the spline row freezes ``r_grid`` and ``y_grid`` (only the evaluation points
require grad).  ``PMECalculator``/``P3MCalculator.forward`` mutate the module
on every call (``update`` stores the cell, mesh size, k-vectors, filter and
interpolation weights/indices as plain attributes), so after a training call
the module holds tensors attached to that call's graph.  The tuners time
calculators with ``time.monotonic`` (tuning/tuner.py:337-373) and pick the
fastest, so their result depends on the wall clock; the tuning row asks for an
accuracy no grid point meets, so nothing is timed (timing ``inf``) and the
library warns "No parameter meets the accuracy requirement" (tuning/p3m.py:
190, a ``UserWarning`` per call) and returns the smallest-error point.
``CombinedPotential`` does not forward ``pbc_correction`` to its parts (the
base class returns zeros), so a combined Coulomb term loses the slab
correction; the combined row is fully periodic, where it is zero anyway.  The
direct ``Calculator`` never uses the cell (its gradient is ``None`` in
training).  ``Calculator.forward``'s docstring gives charges as
``(n_channels, n_atoms)`` while the validation requires ``(n_atoms,
n_channels)``; the rows pass ``(n_atoms, n_channels)``.

Dropped: a ``tune_pme`` row (same tuner loop as ``tune_p3m``; its only extra
site is ``RMS_phi[interpolation_nodes - 1]``, tuning/pme.py:221), to stay at
ten rows; ``tune_ewald``/``tune_pme``/``tune_p3m`` at reachable accuracies
(they time calculators: wall-clock-dependent output, and several seconds).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCHPME = ("torch-pme", "0.5.0")
MODULES = ("torchpme",)
INFERENCE = ("inference",)

DTYPE = torch.float64
BOX = 4.0  # edge of the cubic cell
CUTOFF = 1.8  # real-space neighbour-list cutoff (< BOX / 2: minimum image)

# --- helpers -------------------------------------------------------------------------------


def _system(n: int = 8, channels: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``n`` random atoms in the cubic cell, charges (n, channels) summing to zero per channel, the cell."""
    positions = torch.rand(n, 3, dtype=DTYPE) * BOX
    charges = torch.randn(n, channels, dtype=DTYPE)
    charges = charges - charges.mean(dim=0, keepdim=True)
    return positions, charges, torch.eye(3, dtype=DTYPE) * BOX


def _min_image(positions: torch.Tensor, i: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
    d = positions[j] - positions[i]
    return d - BOX * torch.round(d / BOX)


def _half_list(positions: torch.Tensor, cutoff: float = CUTOFF) -> torch.Tensor:
    """All pairs i < j whose minimum-image distance is below ``cutoff`` (plain torch, built in ``make``)."""
    i, j = torch.triu_indices(len(positions), len(positions), 1)
    keep = _min_image(positions, i, j).norm(dim=1) < cutoff
    return torch.stack([i[keep], j[keep]], dim=1)


def _potentials(calculator: Any, charges: torch.Tensor, cell: torch.Tensor, positions: torch.Tensor,
                neighbor_indices: torch.Tensor, periodic: torch.Tensor | None = None) -> torch.Tensor:
    """Per-atom potentials as an MD/ML step computes them: the pair distances from the positions (minimum
    image in the cubic cell, so forces reach the positions), then the calculator."""
    distances = _min_image(positions, neighbor_indices[:, 0], neighbor_indices[:, 1]).norm(dim=1)
    return calculator(charges=charges, cell=cell, positions=positions, neighbor_indices=neighbor_indices,
                      neighbor_distances=distances, periodic=periodic)


def _mesh_roundtrip(cell: torch.Tensor, positions: torch.Tensor, charges: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Spread the charges on a 4x4x4 mesh with 3-node P3M weights and interpolate the mesh back to the atoms."""
    from torchpme.lib import MeshInterpolator

    interpolator = MeshInterpolator(cell=cell, ns_mesh=torch.tensor([4, 4, 4]), interpolation_nodes=3,
                                    method="P3M")
    interpolator.compute_weights(positions)
    mesh = interpolator.points_to_mesh(particle_weights=charges)
    return mesh, interpolator.mesh_to_points(mesh)


def _spline_potential(r_grid: torch.Tensor, y_grid: torch.Tensor, distances: torch.Tensor,
                      k_sq: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Build a reciprocal-axis spline potential from tabulated values (its k-space kernel computed from the
    spline), then evaluate it in real space and k space."""
    from torchpme.potentials import SplinePotential

    potential = SplinePotential(r_grid, y_grid, reciprocal=True, smearing=0.6)
    return (potential.lr_from_dist(distances), potential.lr_from_k_sq(k_sq), potential.self_contribution(),
            potential.yhat_grid)


def _tune_p3m(charges: torch.Tensor, cell: torch.Tensor, positions: torch.Tensor,
              neighbor_indices: torch.Tensor, neighbor_distances: torch.Tensor) -> tuple[Any, ...]:
    """``tune_p3m`` over a 2x2 parameter grid with an accuracy no grid point meets: every timing is skipped
    (``inf``), so the result (and the library's warning) is deterministic; returns (smearing, params, timing)."""
    from torchpme.tuning import tune_p3m

    return tune_p3m(charges, cell, positions, cutoff=CUTOFF, neighbor_indices=neighbor_indices,
                    neighbor_distances=neighbor_distances, nodes_lo=2, nodes_hi=3, mesh_lo=2, mesh_hi=3,
                    accuracy=1e-9)


# --- builders ------------------------------------------------------------------------------


def _ewald_coulomb(training: bool) -> Built:
    from torchpme import CoulombPotential, EwaldCalculator

    positions, charges, cell = _system()
    calculator = EwaldCalculator(CoulombPotential(smearing=0.6), lr_wavelength=1.0)
    return _potentials, (calculator, charges, cell, positions, _half_list(positions)), {}


def _pme_power_law(training: bool) -> Built:
    from torchpme import InversePowerLawPotential, PMECalculator

    positions, charges, cell = _system()
    calculator = PMECalculator(InversePowerLawPotential(exponent=3, smearing=0.6), mesh_spacing=1.0,
                               interpolation_nodes=4)
    return _potentials, (calculator, charges, cell, positions, _half_list(positions)), {}


def _p3m_slab(training: bool) -> Built:
    from torchpme import CoulombPotential, P3MCalculator

    positions, charges, cell = _system(channels=2)
    calculator = P3MCalculator(CoulombPotential(smearing=0.6), mesh_spacing=1.0, interpolation_nodes=3)
    periodic = torch.tensor([True, True, False])
    return _potentials, (calculator, charges, cell, positions, _half_list(positions), periodic), {}


def _ewald_combined(training: bool) -> Built:
    from torchpme import CombinedPotential, CoulombPotential, EwaldCalculator, InversePowerLawPotential

    positions, charges, cell = _system()
    potential = CombinedPotential([CoulombPotential(smearing=0.6), InversePowerLawPotential(exponent=2, smearing=0.6)],
                                  initial_weights=torch.tensor([1.0, 0.5], dtype=DTYPE), smearing=0.6)
    calculator = EwaldCalculator(potential, lr_wavelength=1.0)
    return _potentials, (calculator, charges, cell, positions, _half_list(positions)), {}


def _batched_kvectors(training: bool) -> Built:
    from torchpme.lib import compute_batched_kvectors

    cells = torch.stack([torch.eye(3, dtype=DTYPE) * 3.0, torch.diag(torch.tensor([4.0, 3.0, 2.0], dtype=DTYPE))])
    cells = cells + 0.1 * torch.randn(2, 3, 3, dtype=DTYPE)
    return compute_batched_kvectors, (1.5, cells), {}


def _mesh_interpolator(training: bool) -> Built:
    positions, charges, cell = _system(channels=2)
    return _mesh_roundtrip, (cell, positions, charges), {}


def _spline(training: bool) -> Built:
    r_grid = torch.logspace(-1, 1, 12, dtype=DTYPE)
    y_grid = torch.erf(r_grid / 0.6 / 2**0.5) / r_grid * (1 + 0.05 * torch.randn(12, dtype=DTYPE))
    distances = torch.rand(10, dtype=DTYPE) * 3.0 + 0.05
    k_sq = torch.rand(10, dtype=DTYPE) * 20.0
    return _spline_potential, (r_grid, y_grid, distances, k_sq), {}


def _tune_p3m_row(training: bool) -> Built:
    positions, charges, cell = _system()
    # a neighbour list with a longer cutoff (2.0) than the tuned one (1.8): the tuner filters it
    neighbor_indices = _half_list(positions, cutoff=2.0)
    distances = _min_image(positions, neighbor_indices[:, 0], neighbor_indices[:, 1]).norm(dim=1)
    return _tune_p3m, (charges, cell, positions, neighbor_indices, distances), {}


def _ewald_given_kvectors(training: bool) -> Built:
    from torchpme import CoulombPotential, EwaldCalculator
    from torchpme.lib import generate_kvectors_for_ewald

    positions, charges, cell = _system()
    neighbor_indices = _half_list(positions)
    distances = _min_image(positions, neighbor_indices[:, 0], neighbor_indices[:, 1]).norm(dim=1)
    kvectors = generate_kvectors_for_ewald(cell=cell, ns=torch.tensor([4, 4, 4]))
    node_mask = torch.ones(len(positions), dtype=torch.bool)
    node_mask[-2:] = False  # two padding atoms, as in a padded batch
    pair_mask = node_mask[neighbor_indices[:, 0]] & node_mask[neighbor_indices[:, 1]]
    calculator = EwaldCalculator(CoulombPotential(smearing=0.6), lr_wavelength=1.0)
    return calculator, (charges, cell, positions, neighbor_indices, distances), {
        "node_mask": node_mask, "pair_mask": pair_mask, "kvectors": kvectors}


def _direct_coulomb(training: bool) -> Built:
    from torchpme import Calculator, CoulombPotential

    positions, charges, cell = _system()
    calculator = Calculator(CoulombPotential(exclusion_radius=1.0), full_neighbor_list=False)
    return _potentials, (calculator, charges, cell, positions, _half_list(positions)), {}


# --- rows ------------------------------------------------------------------------------------

_VALIDATE = "`_validate_parameters` (_utils.py:4-170: shape/dtype/device `raise`s, no tensor value read)"
_RSPACE = ("`Calculator._compute_rspace` (calculators/calculator.py:43-87: `sr_from_dist`, gathers by the neighbour "
           "indices, `index_add_` both ways)")
_MESH = ("`get_ns_mesh` (lib/kvectors.py:5-21: `ceil(log2(...)).long()`, a mesh size computed from the cell), "
         "`MeshInterpolator.update` and `KSpaceFilter.update` (lib/kspace_filter.py:98-120, 199-222: "
         "`generate_kvectors_for_mesh` -> `_generate_kvectors` (lib/kvectors.py:24-74: `torch.fft.fftfreq(ns[0])`, "
         "`fftfreq(ns[1])`, `rfftfreq(ns[2])` (56-70: 0-d tensors as sizes, read into Python ints)), the kernel on the "
         "k grid stored on the module), `compute_weights` (lib/mesh_interpolator.py:303-377: `floor`/`round(...)"
         ".long()`, `% self.ns_mesh`, index tensors stored on the module), `points_to_mesh` (379-426: "
         "`int(self.ns_mesh[0])`, `int(ns_mesh[1])`, `int(ns_mesh[2])` (408-410: the mesh shape from tensor values), "
         "a Python loop over the channels with `index_put_(accumulate=True)` (414-415)), `KSpaceFilter.forward` "
         "(122-197: `rfftn`, filter, `irfftn`, `if torch.isnan(result).any(): raise` (189: a tensor's truth)), "
         "`mesh_to_points` (428-457: gathers)")


def _rows() -> list[Row]:
    return [
        Row(
            "r24c_ewald_coulomb_forward", *TORCHPME,
            "function: EwaldCalculator(CoulombPotential(smearing=0.6), lr_wavelength=1.0)(charges (8, 1), cell 4x4x4, "
            "positions (8, 3), neighbor_indices (half list, cutoff 1.8), neighbor_distances) via a 4-line wrapper "
            "computing the minimum-image distances from the positions; returns per-atom potentials (8, 1)",
            MODULES, _ewald_coulomb,
            notes="Ewald electrostatics of 8 neutral point charges in a periodic cubic cell; in training the charges, "
            "cell and positions require grad (forces, stress, charge gradients through the distances and k-sum)",
            patterns=_VALIDATE + "; " + _RSPACE + "; `EwaldCalculator._compute_kspace` (calculators/ewald.py:76-142: "
            "`torch.ceil(ns_float).long()` (93: the number of k-vectors per axis from the cell norms), "
            "`generate_kvectors_for_ewald` -> `_generate_kvectors` (lib/kvectors.py:24-74: `torch.fft.fftfreq(ns[0])` "
            "x3 (56-66: 0-d tensors as sizes, read into Python ints)), `CoulombPotential.lr_from_k_sq` (potentials/"
            "coulomb.py:122-142: three-argument `torch.where`s), einsums, in-place `/=`, `-=`, `_pbc_correction` "
            "(6-40: three-argument `torch.where`, `argmax`, `gather`))",
        ),
        Row(
            "r24c_pme_inverse_power_law_p3_forward", *TORCHPME,
            "function: PMECalculator(InversePowerLawPotential(exponent=3, smearing=0.6), mesh_spacing=1.0, "
            "interpolation_nodes=4)(charges (8, 1), cell 4x4x4, positions (8, 3), neighbor_indices, distances) via "
            "the distance wrapper; returns (8, 1)",
            MODULES, _pme_power_law,
            notes="particle-mesh Ewald of a 1/r^3 (dispersion-like) potential on a 16x16x16 mesh; in training the "
            "charges, cell and positions require grad",
            patterns=_VALIDATE + "; " + _RSPACE + " (`InversePowerLawPotential.lr_from_dist`: `gammainc`); "
            "`PMECalculator._compute_kspace` (calculators/pme.py:88-143): " + _MESH + "; the kernel "
            "`InversePowerLawPotential.lr_from_k_sq` (potentials/inversepowerlaw.py:109-141: `if self.exponent > 3` "
            "(136: a buffer tensor's truth), `gammaincc_over_powerlaw(self.exponent, ...)` (lib/math.py:79-104: "
            "`if exponent == 1` / `== 2` / `== 3` (87-91: tensor truths)) -> `exp1` -> `_CustomExp1.forward` "
            "(lib/math.py:17-55: boolean-mask gathers `x[mask & (x <= 1)]` (34) and `x[mask & (x > 1)]` (46), "
            "`if x_small.numel() > 0` (35, 47), a series loop with `if torch.all(torch.abs(r) <= ...): break` (41: an "
            "early exit on a tensor's truth), `range(m.max(), 0, -1)` (50: a loop bound from tensor values), "
            "boolean-mask writes `result[mask & ...] = ...` (43, 53); custom backward)); "
            "`self_contribution` (`gamma`), `background_correction` (`if self.exponent >= 3` (160)), "
            "`pbc_correction` (`if self.exponent == 1` (167))",
        ),
        Row(
            "r24c_p3m_coulomb_slab_forward", *TORCHPME,
            "function: P3MCalculator(CoulombPotential(smearing=0.6), mesh_spacing=1.0, interpolation_nodes=3)"
            "(charges (8, 2), cell 4x4x4, positions (8, 3), neighbor_indices, distances, periodic=[True, True, "
            "False]) via the distance wrapper; returns (8, 2)",
            MODULES, _p3m_slab,
            notes="P3M electrostatics of two charge channels in a slab geometry (2-d periodic, with the slab "
            "correction); in training the charges, cell and positions require grad (periodic is a bool tensor)",
            patterns=_VALIDATE + " (with `periodic`); " + _RSPACE + "; `PMECalculator._compute_kspace` (calculators/"
            "pme.py:88-143) with the P3M pieces: " + _MESH + "; `P3MKSpaceFilter.update` (lib/kspace_filter.py:"
            "294-305: `_compute_influence` (307-329, mode 0: `sinc` product, three-argument `torch.where`s)); "
            "`_pbc_correction` (potentials/coulomb.py:6-40: `sum(periodic)`, three-argument `torch.where`s, "
            "`argmax`, `gather`: the 2-d slab term)",
        ),
        Row(
            "r24c_ewald_combined_potential_forward", *TORCHPME,
            "function: EwaldCalculator(CombinedPotential([CoulombPotential(0.6), InversePowerLawPotential(2, 0.6)], "
            "initial_weights=[1.0, 0.5], smearing=0.6), lr_wavelength=1.0)(charges (8, 1), cell, positions, "
            "neighbor_indices, distances) via the distance wrapper; returns (8, 1)",
            MODULES, _ewald_combined,
            notes="Ewald sum of a learnable mix of 1/r and 1/r^2 potentials; in training the charges, cell, positions "
            "and the two mixing weights (a Parameter) require grad",
            patterns=_VALIDATE + "; " + _RSPACE + " (`CombinedPotential.sr_from_dist`: a Python list over the "
            "potentials, `stack`, `inner`); `EwaldCalculator._compute_kspace` (calculators/ewald.py:76-142: "
            "`torch.ceil(ns_float).long()` (93) -> `fftfreq(ns[0])` x3 (lib/kvectors.py:56-66: tensor sizes); "
            "`CombinedPotential.lr_from_k_sq` (potentials/combined.py:102-105) -> `InversePowerLawPotential."
            "lr_from_k_sq` (potentials/inversepowerlaw.py:109-141: `if self.exponent > 3` (136), "
            "`gammaincc_over_powerlaw` `if exponent == 1` / `== 2` (lib/math.py:87-89: tensor truths)); "
            "`self_contribution`, `background_correction` (`if self.exponent >= 3` (160): a tensor's truth))",
        ),
        Row(
            "r24c_compute_batched_kvectors", *TORCHPME,
            "function: torchpme.lib.compute_batched_kvectors(lr_wavelength=1.5, cells (2, 3, 3) of different sizes); "
            "returns zero-padded k-vectors (2, n_max, 3)",
            MODULES, _batched_kvectors,
            notes="k-vectors for a batch of two (slightly skewed) cells, as for batched Ewald; in training the cells "
            "require grad",
            patterns="`compute_batched_kvectors` (lib/kvectors.py:139-166: a Python loop over the cells (157: "
            "iterating a tensor), `torch.ceil(ns_float).long()` (160: sizes from the cell norms), "
            "`generate_kvectors_for_ewald` -> `_generate_kvectors` (24-74: shape `raise`s, `linalg.inv`, "
            "`torch.fft.fftfreq(ns[0])` x3 (56-66: 0-d tensors as sizes: data-dependent output lengths)), "
            "`pad_sequence` (166: pads to the data-dependent longest))",
        ),
        Row(
            "r24c_mesh_interpolator_p3m_roundtrip", *TORCHPME,
            "function: MeshInterpolator(cell, ns_mesh=tensor([4, 4, 4]), interpolation_nodes=3, method='P3M') then "
            "compute_weights(positions (8, 3)), points_to_mesh(charges (8, 2)), mesh_to_points(mesh) via a "
            "5-line wrapper; returns (mesh (2, 4, 4, 4), values at the atoms (8, 2))",
            MODULES, _mesh_interpolator,
            notes="charge assignment onto a mesh and back-interpolation, the two halves of every mesh Ewald step; "
            "in training the cell, positions and charges require grad",
            patterns="`MeshInterpolator.__init__`/`update` (lib/mesh_interpolator.py:39-125: `linalg.inv`, shape "
            "`raise`s), `compute_weights` (303-377: `round(...).long()` (340: odd node count), offsets, "
            "`_compute_1d_weights_P3M` (156-210), `% self.ns_mesh` (352), `meshgrid` index tensors stored on the "
            "module), `points_to_mesh` (379-426: `int(self.ns_mesh[0])`, `[1]`, `[2]` (408-410: the mesh shape from "
            "tensor values), a Python loop over the channels with in-place `index_put_(accumulate=True)` "
            "(414-415)), `mesh_to_points` (428-457: gathers by the index tensors, products, `sum`)",
        ),
        Row(
            "r24c_spline_potential_build_and_eval", *TORCHPME,
            "function: SplinePotential(r_grid (12,) log-spaced, y_grid (12,), reciprocal=True, smearing=0.6) built "
            "then lr_from_dist(distances (10,)), lr_from_k_sq(k_sq (10,)), self_contribution() via a 4-line wrapper; "
            "returns (V(r) (10,), V(k) (10,), V(0) (1,), yhat_grid (12,))",
            MODULES, _spline, frozen=("0", "1"),
            notes="a tabulated potential splined on a 1/r axis, its k-space kernel computed from the spline, then "
            "evaluated; in training the distances and k^2 require grad. The grids are frozen: the library's "
            "tridiagonal solver writes in place into a tensor it has read (lib/splines.py:142-145), so backward "
            "through the spline construction raises (see the docstring)",
            patterns="`SplinePotential.__init__` (potentials/spline.py:50-130: `if torch.min(r_grid) <= 0.0: raise` "
            "(78: a tensor's truth), `CubicSplineReciprocal.__init__` (lib/splines.py:62-103: "
            "`torch.tensor([0.0, x_points[0], x_points[1]])` and `[y_at_zero, y_points[0], y_points[1]]` (93-102: "
            "0-d tensors read into Python floats)), `CubicSpline.__init__` -> `compute_second_derivatives` (149-188: "
            "Python loops writing tensor elements in place (182-186)) -> `_solve_tridiagonal` (117-146: forward and "
            "backward sweeps of element-wise in-place writes (136-145)), `compute_spline_ft` (193-364: "
            "`torch.tensor([0, 1 / x_points[-1], 1 / x_points[-2]])` (310-311: 0-d tensors read), "
            "`scipy.special.sici((k * r0).detach().cpu().numpy())` (320-322: values through numpy and scipy, back "
            "with `torch.from_numpy`), three-argument `torch.where`), the k-space `CubicSplineReciprocal` and two "
            "evaluations at zero); `lr_from_dist`/`lr_from_k_sq` -> `CubicSplineReciprocal.forward` (105-114: "
            "three-argument `torch.where`s) -> `CubicSpline.forward` (24-40: `torch.searchsorted` (31), `clamp`, "
            "gathers by the found intervals)",
        ),
        Row(
            "r24c_tune_p3m_strict_accuracy", *TORCHPME,
            "function: torchpme.tuning.tune_p3m(charges (8, 1), cell, positions (8, 3), cutoff=1.8, neighbor_indices, "
            "neighbor_distances (half list, cutoff 2.0), nodes 2-3, mesh 2^2-2^3, accuracy=1e-9) via a wrapper; "
            "returns (smearing, {'interpolation_nodes', 'mesh_spacing'}, timing=inf)",
            MODULES, _tune_p3m_row, modes=INFERENCE,
            notes="inference only: the tuner returns Python floats and a dict (no gradient path). Parameter search "
            "for P3M on a tiny system; the accuracy is one no grid point meets, so no calculator is timed (timings "
            "would make the output depend on the wall clock) and the library warns and returns the smallest error",
            patterns="`tune_p3m` (tuning/p3m.py:69-195: `float(torch.min(torch.linalg.norm(cell, dim=1)))` (155)), "
            "`GridSearchTuner.__init__` (tuning/tuner.py:206-243) -> `TunerBase.__init__` (82-118: "
            "`_validate_parameters`, `float((charges**2).sum())` (117)), `filter_neighbors` (150-166: one-argument "
            "`torch.where(neighbor_distances < cutoff)` (165: data-dependent number of pairs) and the gathers), "
            "`TuningTimings.__init__`; `estimate_smearing` (123-147: `float(torch.abs(self.cell.det()))` (142)); "
            "`GridSearchTuner.tune` (245-267: a Python loop over the grid, `P3MErrorBounds.forward` (tuning/p3m.py:"
            "297-323: `torch.tensor` of the floats, `err_kspace` (250-282: `range(interpolation_nodes)` (279: a "
            "loop bound from a 0-d tensor), `A_COEF[m][interpolation_nodes]` (277: a Python list indexed by a "
            "tensor), a Python `sum` of tensors), `err_rspace`), `float(error)` (tuner.py:261), `if error <= "
            "accuracy` (264: a tensor's truth)), `warn` of `min(errs)` (tuning/p3m.py:190)",
        ),
        Row(
            "r24c_ewald_given_kvectors_masked_control", *TORCHPME,
            "module: EwaldCalculator(CoulombPotential(smearing=0.6), lr_wavelength=1.0)(charges (8, 1), cell, "
            "positions (8, 3), neighbor_indices, neighbor_distances, node_mask=(8,) bool, pair_mask bool, "
            "kvectors=(64, 3) precomputed); returns (8, 1)",
            MODULES, _ewald_given_kvectors,
            notes="control: the padded/batched Ewald path (k-vectors given, last two atoms masked out as padding); "
            "in training charges, cell, positions, distances and k-vectors require grad",
            patterns="control: no tensor value reaches Python. " + _VALIDATE + " (with the masks and k-vectors); "
            + _RSPACE + " with `pair_mask` products; `EwaldCalculator._compute_kspace` with `kvectors` given "
            "(calculators/ewald.py:76-142: no k-vector generation, `lr_from_k_sq` (three-argument `torch.where`s), "
            "einsums, in-place `/=`, `-=`, `_pbc_correction` (three-argument `torch.where`, `argmax`, `gather`), "
            "`node_mask` product)",
        ),
        Row(
            "r24c_direct_coulomb_exclusion_control", *TORCHPME,
            "function: Calculator(CoulombPotential(exclusion_radius=1.0))(charges (8, 1), cell, positions (8, 3), "
            "neighbor_indices, distances) via the distance wrapper; returns (8, 1)",
            MODULES, _direct_coulomb,
            notes="control: the bare real-space pair sum (no smearing, so no k-space part) of 1/r with the "
            "short-range exclusion cutoff; in training the charges and positions get grads (the cell is unused: "
            "its grad is None)",
            patterns="control: no tensor value reaches Python. " + _VALIDATE + "; `Calculator._compute_rspace` "
            "(calculators/calculator.py:43-87: `CoulombPotential.from_dist` (`clamp`, reciprocal) times `1 - "
            "f_cutoff` (potentials/potential.py:58-88: three-argument `torch.where` of a cosine), gathers, "
            "`index_add_` both ways, `/ 2`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-four (c)")
