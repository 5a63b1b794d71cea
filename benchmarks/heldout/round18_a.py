"""Held-out round eighteen (r18a): torch-nl.

Chosen by reading the library's source, written down in ROUND18.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny structures, seeded random positions
and cells, nothing downloaded, nothing written to disk); a row whose ``modes``
is one mode only says why in its ``notes``.

torch-nl 0.3 (``torch_nl``) builds neighbour lists for batches of atomic
structures, the input of message-passing interatomic potentials: positions
``pos`` (n_atom, 3) wrapped inside their cells, the cells stacked as (3 *
n_structure, 3) (a zero cell for a structure without periodic boundaries, as
its tests give molecules), ``pbc`` (n_structure, 3) bool and ``batch`` (the
structure of each atom, sorted).  ``compute_neighborlist`` (the linked-cell
method) and ``compute_neighborlist_n2`` (the naive all-pairs method) return
``mapping`` (2, n_pair) (centre and neighbour atom), ``batch_mapping`` (the
structure of each pair) and ``shifts_idx`` (n_pair, 3) (the integer cell
shifts, in the positions' float dtype); ``compute_cell_shifts`` and
``compute_distances`` turn these into the pair distances, through which an
energy's gradient reaches the positions and the cells (forces, stress).
``strict_nl`` filters a candidate list by a cutoff, ``ase2data`` turns a list
of ``ase.Atoms`` into the batched tensors.  Both ``compute_neighborlist*`` are
``@torch.jit.script`` functions (neighbor_list.py:55, 102): called eagerly
they run in the TorchScript interpreter (which compiles, recursively, every
library function they call), while Dynamo inlines the original Python
function that ``torch.jit.script`` keeps in the ``_torchdynamo_inline``
attribute; the helpers (``strict_nl``, ``linked_cell``, ``ase2data``, the
``utils`` functions) are plain Python functions.  Every row that goes through
the scripted functions was also checked eagerly against the Python originals
(``fn._torchdynamo_inline``): the same outputs, and in training the same
gradients, bit for bit.  The wrappers compute what a potential computes from
the list (the distances and a cosine-cutoff pair energy per structure summed
by ``index_add``), so that in training the gradient has a path.

The data-dependent code (file:line relative to the ``torch_nl`` package):
both entry points count the atoms per structure with ``torch.bincount(batch)``
(neighbor_list.py:92, 140: the number of structures is a value of ``batch``)
and loop over the structures in Python (``for i_structure in
range(n_atoms.shape[0])``, naive_impl.py:51, linked_cell.py:313), slicing each
structure's atoms by bounds read from the cumulative sum ``stride`` (a 0-d
tensor as a slice bound, naive_impl.py:54, linked_cell.py:316).  The number of
periodic images per direction comes from the cells: ``has_pbc =
pbc.prod(dim=1, dtype=bool)``, ``reciprocal_cell[has_pbc] =
torch.linalg.inv(cell[has_pbc]).transpose(2, 1)`` (utils.py:47-51, a boolean
mask read and setitem), ``torch.ceil(cutoff * norm).to(long)``, ``torch.where(
pbc, ...)``; ``get_cell_shift_idx`` (utils.py:58-72) makes ``torch.arange(
-num_repeats[ii], num_repeats[ii] + 1)`` (a size from a tensor value) for the
three directions, ``torch.sort(abs)`` and ``cartesian_prod``.  The linked cell
(``linked_cell``, linked_cell.py:118-264) builds the images of the atoms,
encloses them in a box (``min``/``max``), cuts it into bins of side
``cutoff``: ``nbins = int(torch.prod(nbins_s))`` (linked_cell.py:178, a tensor
read into Python), ``torch.bincount(bin_index_j, minlength=nbins)`` and
``max_n_atom_per_bin = int(n_atom_j_per_bin.max())`` (linked_cell.py:181-182),
the bin table by ``sort`` and ``scatter_`` (``scatter_bin_index``,
linked_cell.py:80-115, sized ``nbins * max_n_atom_per_bin``), the occupied bins
of the atoms by ``torch.unique`` (linked_cell.py:191), their 27 neighbour bins
kept by a boolean mask (``neigh_bins_s[mask]``, linked_cell.py:211-217),
``repeats = mask.view(-1, 27).sum(dim=1)`` and a Python list comprehension
over it, one ``torch.arange(rr)`` per occupied bin (linked_cell.py:221-228: the
trip count is the number of occupied bins, each size a tensor value), tables
sized by those Python ints, an index setitem ``bin_id_ij[neigh_i_bins_l] =
bin_id_j[neigh_j_bins_l]`` (linked_cell.py:245), then boolean-mask reads that
drop the empty slots and the self pairs (``neigh_atom[:, neigh_atom[1] !=
n_images]``, ``neigh_atom[:, neigh_atom[0] != neigh_atom[1]]``,
linked_cell.py:250-254), ``argsort`` and ``remainder``.  The naive method
(``get_fully_connected_mapping``, naive_impl.py:7-30) takes every pair of a
structure with every image (``repeat_interleave``, ``cartesian_prod``) and
drops the self pairs by a boolean mask (``mapping[mask, :]``, naive_impl.py:
28-29).  Both end in ``strict_nl`` (neighbor_list.py:8-52): ``d2 < cutoff *
cutoff`` and three boolean-mask reads (``mapping[:, mask]``,
``batch_mapping[mask]``, ``shifts_idx[mask]``, neighbor_list.py:48-51), whose
size is the number of pairs within the cutoff: the rows take it at many, one
(a lone atom with ``self_interaction=True``) and none (a cutoff below every
distance).  ``ase2data`` (utils.py:6-31) loops over the frames in Python and
then over ``zip(stride[:-1], stride[1:])`` (iterating tensors: 0-d tensors as
the slice bounds of ``batch[st:nd] = ii``, utils.py:21-22).
``compute_cell_shifts`` and ``compute_distances`` (geometry.py:5-30) read no
tensor value (``if cell is None``, ``assert mapping.dim() == 2``, ``assert
mapping.shape[0] == 2``: Python values and shapes only); they are the control.
Nothing in the package prints, warns or logs (linked_cell.py:263 is a
commented-out ``print``).

Global state on import: ``import torch_nl`` compiles the two scripted
functions (and what they call) with ``torch.jit.script`` at import (about
0.03 s); it imports numpy and nothing else outside torch (not
``torch._dynamo``), adds no warning filter, handler or logger, and changes none
of torch's global state (default dtype, grad mode, threads, deterministic flag,
matmul precision).  ``torch_nl/__init__.py`` imports ``compute_distances`` and
``compute_cell_shifts`` from ``geometry`` and re-exports ``linked_cell``,
``build_naive_neighborhood`` and ``ase2data``; ``test_nl.py`` (which imports
pytest and ase) ships inside the package but is not imported.  ase (a declared
dependency of torch-nl) is imported only by the ``ase2data`` row's builder;
importing ``ase`` adds no warning filter either.  No row reads or draws from a
random generator inside the call.

Library bugs found while reading (checked eagerly; no row takes these paths):
(1) partial periodic boundaries are silently ignored: ``has_pbc`` is the
product of a structure's three flags (utils.py:47), so for a slab (``pbc=[True,
True, False]``) the reciprocal cell stays zero, no image is made in the
periodic directions either, and both methods return the non-periodic list
(22 pairs where ``ase.neighborlist.neighbor_list`` finds 42 for 6 atoms in a
4 x 4 x 10 cell, cutoff 3); the docstrings say "Partial PBC are not supported
yet", but nothing raises.  (2) A structure with no atoms in the batch (a
``batch`` that skips a structure index, which ``bincount`` counts as 0) makes
the linked cell raise ``min(): Expected reduction dim 0 to have non-zero size``
(linked_cell.py:169) and the naive method ``step must be nonzero``
(naive_impl.py:24-26, ``torch.arange(0, 0, 0)``).  (3) The linked cell's tables
are sized by the volume of the box around the atoms and their images, not by
the occupied bins: ``bin_id_ij`` has ``nbins * 27 * max_n_atom_per_bin`` entries
(linked_cell.py:238-243), so two non-periodic atoms 40 A apart on each axis
with a 0.5 A cutoff allocate 81**3 * 27 int64 entries (about 115 MB) to find no
pair.  With full periodicity or none, both methods agree with
``ase.neighborlist.neighbor_list`` (sorted distances) on 20 random triclinic
cells of 1 to 7 atoms at cutoffs 1, 2.5 and 4, with and without
self-interaction.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

TORCH_NL = ("torch-nl", "0.3")


# --- structures --------------------------------------------------------------------------


def _r18a_cell(lengths: tuple[float, float, float], tilt: float = 0.0) -> torch.Tensor:
    """A (3, 3) cell with the given diagonal and, for ``tilt`` > 0, random lower off-diagonal
    entries in [-tilt, tilt] (a triclinic cell)."""
    cell = torch.diag(torch.tensor(lengths))
    if tilt > 0.0:
        cell = cell + torch.tril((2.0 * torch.rand(3, 3) - 1.0) * tilt, diagonal=-1)
    return cell


def _r18a_wrapped(n: int, cell: torch.Tensor) -> torch.Tensor:
    """``n`` positions drawn uniformly inside ``cell`` (fractional coordinates in [0.05, 0.95))."""
    return (0.05 + 0.9 * torch.rand(n, 3)) @ cell


def _r18a_batch(structures: list[tuple[torch.Tensor, torch.Tensor, bool]]) -> tuple[torch.Tensor, ...]:
    """The batched ``(pos, cell (3 * n_structure, 3), pbc (n_structure, 3), batch)`` of a list of
    ``(positions, cell, periodic)``; a non-periodic structure's cell is all zeros (as ase gives
    molecules)."""
    pos = torch.cat([p for p, _, _ in structures])
    cell = torch.cat([c for _, c, _ in structures])
    pbc = torch.tensor([[periodic] * 3 for _, _, periodic in structures])
    batch = torch.cat([torch.full((p.shape[0],), i, dtype=torch.long) for i, (p, _, _) in enumerate(structures)])
    return pos, cell, pbc, batch


def _r18a_pair_energy(distances: torch.Tensor, batch_mapping: torch.Tensor, n_structure: int,
                      cutoff: float) -> torch.Tensor:
    """A cosine-cutoff pair energy per structure, ``sum 0.5 * (cos(pi d / rc) + 1) * exp(-d)``, summed
    by ``index_add`` over each pair's structure (as an interatomic potential reduces pair terms)."""
    terms = 0.5 * (torch.cos(torch.pi * distances / cutoff) + 1.0) * torch.exp(-distances)
    return torch.zeros(n_structure, dtype=distances.dtype).index_add(0, batch_mapping, terms)


def _r18a_distances_energy(pos: torch.Tensor, cell: torch.Tensor, mapping: torch.Tensor,
                           batch_mapping: torch.Tensor, shifts_idx: torch.Tensor,
                           cutoff: float) -> tuple[torch.Tensor, torch.Tensor]:
    from torch_nl import compute_cell_shifts, compute_distances

    distances = compute_distances(pos, mapping, compute_cell_shifts(cell, shifts_idx, batch_mapping))
    return distances, _r18a_pair_energy(distances, batch_mapping, cell.shape[0] // 3, cutoff)


def _r18a_linked_cell_run(pos: torch.Tensor, cell: torch.Tensor, pbc: torch.Tensor, batch: torch.Tensor,
                          cutoff: float, self_interaction: bool = False) -> tuple[torch.Tensor, ...]:
    """``compute_neighborlist`` (the linked cell), then the pair distances and a pair energy per
    structure computed from the list; returns (mapping, batch_mapping, shifts_idx, distances, energy)."""
    from torch_nl import compute_neighborlist

    mapping, batch_mapping, shifts_idx = compute_neighborlist(cutoff, pos, cell, pbc, batch, self_interaction)
    distances, energy = _r18a_distances_energy(pos, cell, mapping, batch_mapping, shifts_idx, cutoff)
    return mapping, batch_mapping, shifts_idx, distances, energy


def _r18a_n2_run(pos: torch.Tensor, cell: torch.Tensor, pbc: torch.Tensor, batch: torch.Tensor,
                 cutoff: float, self_interaction: bool = False) -> tuple[torch.Tensor, ...]:
    """``compute_neighborlist_n2`` (the naive method), then the distances and the pair energy."""
    from torch_nl import compute_neighborlist_n2

    mapping, batch_mapping, shifts_idx = compute_neighborlist_n2(cutoff, pos, cell, pbc, batch, self_interaction)
    distances, energy = _r18a_distances_energy(pos, cell, mapping, batch_mapping, shifts_idx, cutoff)
    return mapping, batch_mapping, shifts_idx, distances, energy


# --- rows' builders ----------------------------------------------------------------------


def _r18a_linked_cell_batch_pbc(training: bool) -> Built:
    import torch_nl  # noqa: F401

    cubic = _r18a_cell((3.0, 3.0, 3.0))
    ortho = _r18a_cell((2.6, 3.4, 4.0))
    tric = _r18a_cell((3.2, 2.9, 3.5), tilt=0.8)
    pos, cell, pbc, batch = _r18a_batch([(_r18a_wrapped(5, cubic), cubic, True),
                                         (_r18a_wrapped(8, ortho), ortho, True),
                                         (_r18a_wrapped(3, tric), tric, True)])
    return _r18a_linked_cell_run, (pos, cell, pbc, batch), {"cutoff": 2.2}


def _r18a_linked_cell_cluster(training: bool) -> Built:
    import torch_nl  # noqa: F401

    pos, cell, pbc, batch = _r18a_batch([(2.4 * torch.rand(20, 3), torch.zeros(3, 3), False)])
    return _r18a_linked_cell_run, (pos, cell, pbc, batch), {"cutoff": 1.5, "self_interaction": True}


def _r18a_linked_cell_one_atom(training: bool) -> Built:
    import torch_nl  # noqa: F401

    pos, cell, pbc, batch = _r18a_batch([(torch.rand(1, 3), torch.zeros(3, 3), False)])
    return _r18a_linked_cell_run, (pos, cell, pbc, batch), {"cutoff": 2.0, "self_interaction": True}


def _r18a_n2_batch_mixed(training: bool) -> Built:
    import torch_nl  # noqa: F401

    tric = _r18a_cell((3.0, 3.3, 2.8), tilt=0.6)
    small = _r18a_cell((2.0, 2.0, 2.0))
    pos, cell, pbc, batch = _r18a_batch([(_r18a_wrapped(6, tric), tric, True),
                                         (2.0 * torch.rand(5, 3), torch.zeros(3, 3), False),
                                         (_r18a_wrapped(1, small), small, True)])
    return _r18a_n2_run, (pos, cell, pbc, batch), {"cutoff": 2.3}


def _r18a_n2_empty(training: bool) -> Built:
    import torch_nl  # noqa: F401

    # 8 atoms on a 2 x 2 x 2 grid of spacing 1.5, jittered by at most 0.2: every distance is above 1.1
    grid = torch.cartesian_prod(*[torch.tensor([0.0, 1.5])] * 3)
    pos, cell, pbc, batch = _r18a_batch([(grid + 0.4 * (torch.rand(8, 3) - 0.5), torch.zeros(3, 3), False)])
    return _r18a_n2_run, (pos, cell, pbc, batch), {"cutoff": 0.9}


def _r18a_linked_cell_candidates(training: bool) -> Built:
    from torch_nl import linked_cell
    from torch_nl.utils import get_number_of_cell_repeats

    cell = _r18a_cell((2.2, 2.5, 2.8), tilt=0.4)
    pos = _r18a_wrapped(4, cell)
    num_repeats = get_number_of_cell_repeats(1.8, cell, torch.tensor([True, True, True]))[0]
    return linked_cell, (pos, cell, 1.8, num_repeats), {"self_interaction": False}


def _r18a_strict_nl_run(cutoff: float, pos: torch.Tensor, cell: torch.Tensor, mapping: torch.Tensor,
                        batch_mapping: torch.Tensor, shifts_idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``strict_nl`` filtering a long-range list down to a short cutoff, then the short-range
    distances and pair energy; returns (mapping, batch_mapping, shifts_idx, distances, energy)."""
    from torch_nl import strict_nl

    mapping, batch_mapping, shifts_idx = strict_nl(cutoff, pos, cell, mapping, batch_mapping, shifts_idx)
    distances, energy = _r18a_distances_energy(pos, cell, mapping, batch_mapping, shifts_idx, cutoff)
    return mapping, batch_mapping, shifts_idx, distances, energy


def _r18a_strict_nl_short(training: bool) -> Built:
    from torch_nl import compute_neighborlist

    a = _r18a_cell((3.1, 3.1, 3.1))
    b = _r18a_cell((2.7, 3.6, 3.0), tilt=0.5)
    pos, cell, pbc, batch = _r18a_batch([(_r18a_wrapped(6, a), a, True), (_r18a_wrapped(4, b), b, True)])
    # the long-range list (cutoff 3.0) a two-cutoff model builds once; the call filters it to 1.6
    mapping, batch_mapping, shifts_idx = compute_neighborlist(3.0, pos, cell, pbc, batch, False)
    return _r18a_strict_nl_run, (1.6, pos, cell, mapping, batch_mapping, shifts_idx), {}


def _r18a_cell_images_run(cutoff: float, cell: torch.Tensor, pbc: torch.Tensor) -> tuple[Any, ...]:
    """The periodic images per structure as both neighbour-list builders compute them
    (naive_impl.py:45-53, linked_cell.py:308, 152): the repeats per direction, then each structure's
    integer cell shifts; returns (num_repeats (n_structure, 3), [shifts (n_image_s, 3) per structure])."""
    from torch_nl.utils import get_cell_shift_idx, get_number_of_cell_repeats

    num_repeats = get_number_of_cell_repeats(cutoff, cell, pbc)
    shifts = [get_cell_shift_idx(num_repeats[i], cell.dtype) for i in range(num_repeats.shape[0])]
    return num_repeats, shifts


def _r18a_cell_images(training: bool) -> Built:
    import torch_nl  # noqa: F401

    cells = torch.cat([_r18a_cell((1.5, 1.5, 1.5)), torch.zeros(3, 3), _r18a_cell((4.0, 2.2, 5.5), tilt=1.0)])
    pbc = torch.tensor([[True] * 3, [False] * 3, [True] * 3])
    return _r18a_cell_images_run, (2.5, cells, pbc), {}


def _r18a_ase2data(training: bool) -> Built:
    from ase import Atoms
    from torch_nl import ase2data

    crystal = _r18a_cell((3.0, 3.2, 2.9), tilt=0.5)
    frames = [
        Atoms("SiSiOO", positions=_r18a_wrapped(4, crystal).double().numpy(), cell=crystal.double().numpy(),
              pbc=True),
        Atoms("OH2", positions=(2.0 * torch.rand(3, 3)).double().numpy()),
        Atoms("Cu", positions=[[0.0, 0.0, 0.0]], cell=[2.5, 2.5, 2.5], pbc=True),
    ]
    return ase2data, (frames,), {}


def _r18a_geometry_control_run(pos: torch.Tensor, cell: torch.Tensor, mapping: torch.Tensor,
                               batch_mapping: torch.Tensor, shifts_idx: torch.Tensor,
                               cutoff: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``compute_cell_shifts`` and ``compute_distances`` of a given list and the pair energy; returns
    (cell_shifts (n_pair, 3), distances, energy per structure)."""
    from torch_nl import compute_cell_shifts, compute_distances

    cell_shifts = compute_cell_shifts(cell, shifts_idx, batch_mapping)
    distances = compute_distances(pos, mapping, cell_shifts)
    return cell_shifts, distances, _r18a_pair_energy(distances, batch_mapping, cell.shape[0] // 3, cutoff)


def _r18a_geometry_control(training: bool) -> Built:
    from torch_nl import compute_neighborlist

    a = _r18a_cell((2.8, 3.0, 3.2), tilt=0.4)
    b = _r18a_cell((3.3, 3.3, 3.3))
    pos, cell, pbc, batch = _r18a_batch([(_r18a_wrapped(5, a), a, True), (_r18a_wrapped(4, b), b, True)])
    mapping, batch_mapping, shifts_idx = compute_neighborlist(2.4, pos, cell, pbc, batch, False)
    return _r18a_geometry_control_run, (pos, cell, mapping, batch_mapping, shifts_idx, 2.4), {}


# --- rows --------------------------------------------------------------------------------

_SCRIPTED = (
    "`compute_neighborlist*` are `@torch.jit.script` functions: eagerly they run in the TorchScript interpreter, "
    "Dynamo inlines the Python original (`_torchdynamo_inline`), which gives the same outputs and gradients bit "
    "for bit (checked eagerly)"
)
_GRAD = (
    "in training the positions (and the cells, where periodic) require grad: the list itself is integer indices "
    "and integer-valued shifts (no gradient), and the gradient reaches the positions and cells through the "
    "distances and the pair energy computed from the list in the wrapper (forces and stress, as a potential "
    "computes them)"
)
_ZERO = "the zero cell of a non-periodic structure is frozen (a placeholder: no image is made from it)"
_ENTRY = (
    "`torch.bincount(batch)` (neighbor_list.py:92/140: the structure count is a value of `batch`); "
    "`get_number_of_cell_repeats` (utils.py:41-55: `has_pbc = pbc.prod(dim=1, dtype=bool)`, "
    "`reciprocal_cell[has_pbc] = torch.linalg.inv(cell[has_pbc]).transpose(2, 1)` (a boolean-mask read and "
    "setitem), `ceil(cutoff * norm).to(long)`, `torch.where(pbc, ...)`); `strides_of` (utils.py:33-38: "
    "`cumsum(out=stride[1:])`); a Python loop over the structures (`range(n_atoms.shape[0])`) slicing each "
    "structure's atoms by `stride[i]:stride[i + 1]` (0-d tensors as slice bounds); per structure "
    "`get_cell_shift_idx(num_repeats[i])` (utils.py:58-72: `torch.arange(-num_repeats[ii], num_repeats[ii] + 1)` "
    "for the 3 directions, a size from a tensor value; `sort(abs)`; `cartesian_prod`)"
)
_LINKED = (
    "`build_linked_cell_neighborhood` (linked_cell.py:267-334) -> per structure `linked_cell` (linked_cell.py:"
    "118-264: the images `pos[i_ids] + cell_shifts` (`repeat_interleave`, `compute_cell_shifts`), the box by "
    "`min`/`max`, `nbins = int(torch.prod(nbins_s))` (linked_cell.py:178, a tensor read into Python), "
    "`get_linear_bin_idx` (`linalg.solve`, `floor`, `ravel_3d`), `torch.bincount(bin_index_j, minlength=nbins)`, "
    "`max_n_atom_per_bin = int(n_atom_j_per_bin.max())` (linked_cell.py:182), `scatter_bin_index` "
    "(linked_cell.py:80-115: `sort`, `torch.full((nbins * max_n_atom_per_bin,))`, `scatter_`), the atoms' "
    "occupied bins by `torch.unique(bin_index_i)` (linked_cell.py:191), `unravel_3d`, their 27 neighbour bins, "
    "`neigh_bins_s[mask]` (a boolean-mask read of the bins inside the box, linked_cell.py:211-217), `repeats = "
    "mask.view(-1, 27).sum(dim=1)` and a list comprehension `torch.arange(rr) + i_bins_l[ii] * 27 for ii, rr in "
    "enumerate(repeats)` (linked_cell.py:222-228: one iteration per occupied bin, each size a tensor value), "
    "`torch.empty((2, n_atom * max_neigh_per_atom))`, `torch.full((nbins * 27, max_n_atom_per_bin))`, the index "
    "setitem `bin_id_ij[neigh_i_bins_l] = bin_id_j[neigh_j_bins_l]` (linked_cell.py:245), `neigh_atom[:, "
    "neigh_atom[1] != n_images]` (the empty slots dropped, a boolean-mask read), `if not self_interaction: "
    "neigh_atom[:, neigh_atom[0] != neigh_atom[1]]` (a Python bool; a boolean-mask read), `argsort`, the shifts "
    "gathered, `remainder`) -> `+ stride[i]` and `cat` over the structures"
)
_NAIVE = (
    "`build_naive_neighborhood` (naive_impl.py:33-72): per structure `get_fully_connected_mapping` "
    "(naive_impl.py:7-30: `repeat_interleave(i_ids, n_cell_image, output_size=...)`, `cartesian_prod`, "
    "`shifts_idx.repeat((n_atom ** 2, 1))`, and `if not self_interaction:` the self pairs' ids by `arange`, "
    "`mask[ids] = False`, `mapping[mask, :]` and `shifts_idx[mask]` (boolean-mask reads, naive_impl.py:18-29)), "
    "`torch.full((s_mapping.shape[0],), i_structure)`, then `cat` over the structures"
)
_STRICT = (
    "`strict_nl` (neighbor_list.py:8-52: `compute_cell_shifts` (einsum over `cell.view(-1, 3, 3)[batch_mapping]`), "
    "`d2 = (pos[i] - pos[j] - shifts).square().sum(1)`, `mask = d2 < cutoff * cutoff`, `mapping[:, mask]`, "
    "`batch_mapping[mask]`, `shifts_idx[mask]` (three boolean-mask reads, neighbor_list.py:48-51)"
)
_DIST = (
    "then in the wrapper `compute_cell_shifts` and `compute_distances` (geometry.py:5-30: `if cell is None`, "
    "`assert mapping.dim() == 2`, `assert mapping.shape[0] == 2` on shapes only, `pos[mapping[1]] - "
    "pos[mapping[0]] + cell_shifts`, `norm`) and the cosine-cutoff pair energy (`index_add` by `batch_mapping`)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r18a_torchnl_linked_cell_batch_pbc", *TORCH_NL,
            "wrapper: torch_nl.compute_neighborlist(cutoff=2.2, pos (16, 3), cell (9, 3), pbc (3, 3) all True, "
            "batch (16,)) (the linked cell) for three periodic structures of 5, 8 and 3 atoms (a cubic, an "
            "orthorhombic and a triclinic cell), then compute_cell_shifts, compute_distances and a cosine-cutoff "
            "pair energy per structure; returns (mapping (2, n_pair), batch_mapping, shifts_idx, distances, energy "
            "(3,))",
            ("torch_nl",), _r18a_linked_cell_batch_pbc,
            notes=_GRAD + "; " + _SCRIPTED + "; one image shell per direction in each cell (27 images per atom); "
            "the linked cell proposes 1060 candidate pairs (335, 644, 81 per structure) and the cutoff keeps 116 "
            "(36, 68, 12)",
            patterns="`compute_neighborlist` (neighbor_list.py:102-148): " + _ENTRY + "; " + _LINKED + "; "
            + _STRICT + " (many pairs kept); " + _DIST,
        ),
        Row(
            "r18a_torchnl_linked_cell_cluster_self_interaction", *TORCH_NL,
            "wrapper: torch_nl.compute_neighborlist(cutoff=1.5, pos (20, 3) uniform in a 2.4 A cube, zero cell, pbc "
            "False, batch zeros, self_interaction=True) (a dense non-periodic cluster, the linked cell), then the "
            "distances and the pair energy; returns (mapping, batch_mapping, shifts_idx, distances, energy (1,))",
            ("torch_nl",), _r18a_linked_cell_cluster, frozen=("1",),
            notes=_GRAD + "; " + _ZERO + "; " + _SCRIPTED + "; no periodic image (num_repeats 0: one image, the "
            "structure itself); 8 bins, 7 occupied by 1 to 7 atoms, all neighbours of each other, so all 400 "
            "ordered pairs are candidates and the cutoff keeps 172, the 20 self pairs (distance 0, where the norm's "
            "gradient is 0) included",
            patterns="`compute_neighborlist` (neighbor_list.py:102-148): " + _ENTRY + " (here `has_pbc` all False: "
            "an empty boolean-mask read and setitem; `arange(0, 1)` per direction); " + _LINKED + " (with "
            "`self_interaction=True` the self-pair mask is skipped by a Python test); " + _STRICT + " (many pairs, "
            "the self pairs included); " + _DIST,
        ),
        Row(
            "r18a_torchnl_linked_cell_one_atom_self", *TORCH_NL,
            "wrapper: torch_nl.compute_neighborlist(cutoff=2.0, pos (1, 3), zero cell, pbc False, batch [0], "
            "self_interaction=True) (one isolated atom, the linked cell), then the distances and the pair energy; "
            "returns (mapping (2, 1), batch_mapping (1,), shifts_idx (1, 3), distances (1,), energy (1,))",
            ("torch_nl",), _r18a_linked_cell_one_atom, frozen=("1",),
            notes=_GRAD + " (one pair, the atom with itself at distance 0: the norm's gradient there is 0, so the "
            "position's gradient is zeros); " + _ZERO + "; " + _SCRIPTED + "; every selection has one element: "
            "one structure, one bin, one occupied bin (`torch.unique` of one value), one pair kept",
            patterns="`compute_neighborlist` (neighbor_list.py:102-148): " + _ENTRY + " (one structure: the loop "
            "runs once); " + _LINKED + " (one image, a box of side 1e-3, `nbins` 1, `max_n_atom_per_bin` 1, the "
            "list comprehension runs once, the empty-slot mask keeps one entry); " + _STRICT + " (a mask of one "
            "True); " + _DIST,
        ),
        Row(
            "r18a_torchnl_n2_batch_mixed_pbc", *TORCH_NL,
            "wrapper: torch_nl.compute_neighborlist_n2(cutoff=2.3, pos (12, 3), cell (9, 3), pbc (3, 3), batch) "
            "(the naive method) for a periodic triclinic cell of 6 atoms, a non-periodic cluster of 5 atoms (zero "
            "cell) and a periodic cubic 2.0 A cell of 1 atom (whose only neighbours are its own 6 images), then the "
            "distances and the pair energy; returns (mapping, batch_mapping, shifts_idx, distances, energy (3,))",
            ("torch_nl",), _r18a_n2_batch_mixed,
            notes=_GRAD + "; the cell tensor requires grad as a whole (its zero block, the cluster's, gets a zero "
            "gradient); " + _SCRIPTED + "; the mixed `pbc` makes `has_pbc` select 2 of 3 cells; the lone periodic "
            "atom has 124 candidate images (2 shells) and keeps 6",
            patterns="`compute_neighborlist_n2` (neighbor_list.py:55-99): " + _ENTRY + "; " + _NAIVE + "; "
            + _STRICT + "; " + _DIST,
        ),
        Row(
            "r18a_torchnl_n2_cutoff_below_all_empty", *TORCH_NL,
            "wrapper: torch_nl.compute_neighborlist_n2(cutoff=0.9, pos (8, 3) a jittered 2x2x2 grid of spacing 1.5 "
            "(every distance above 1.1), zero cell, pbc False, batch zeros) (the naive method), then the distances "
            "and the pair energy; returns (mapping (2, 0), batch_mapping (0,), shifts_idx (0, 3), distances (0,), "
            "energy (1,) zero)",
            ("torch_nl",), _r18a_n2_empty, frozen=("1",),
            notes=_GRAD + " (here an empty list: the loss is 0 and the positions' gradient zeros); " + _ZERO + "; "
            + _SCRIPTED + "; the 56 candidate pairs all fail the cutoff, so every selection after `strict_nl`'s "
            "mask is empty",
            patterns="`compute_neighborlist_n2` (neighbor_list.py:55-99): " + _ENTRY + "; " + _NAIVE + " (64 "
            "pairs, 8 self pairs dropped); " + _STRICT + " (an all-False mask: empty selections); " + _DIST + " "
            "(of zero pairs)",
        ),
        Row(
            "r18a_torchnl_linked_cell_candidates", *TORCH_NL,
            "function: torch_nl.linked_cell(pos (4, 3) in a triclinic cell, cell (3, 3), cutoff=1.8, num_repeats "
            "[1, 1, 1] (from get_number_of_cell_repeats in the builder), self_interaction=False) (one structure's "
            "binning and candidate pairs, before the strict cutoff); returns (neigh_atom (2, n_candidates), "
            "neigh_shift_idx (n_candidates, 3))",
            ("torch_nl",), _r18a_linked_cell_candidates, modes=INFERENCE,
            notes="inference only: the outputs are integer indices and integer-valued float shifts from `arange`, "
            "with no gradient path from the positions or the cell (both only place atoms in bins, through `floor` "
            "and `.to(long)`); the plain Python function the builders call per structure (re-exported as "
            "`torch_nl.linked_cell`), not scripted",
            patterns=_LINKED.split(" -> per structure ")[1].split(" -> `+ stride[i]`")[0] + " with `get_cell_shift_idx(num_repeats)` (utils.py:"
            "58-72: `torch.arange(-num_repeats[ii], num_repeats[ii] + 1)`, sizes from tensor values) and "
            "`torch.zeros(n_images, dtype=long)` (no device, linked_cell.py:157) for `compute_cell_shifts`",
        ),
        Row(
            "r18a_torchnl_strict_nl_short_cutoff", *TORCH_NL,
            "wrapper: torch_nl.strict_nl(1.6, pos (10, 3), cell (6, 3), mapping, batch_mapping, shifts_idx) filtering "
            "a long-range list (compute_neighborlist at cutoff 3.0, in the builder) of two periodic structures (6 "
            "and 4 atoms) to a short cutoff, then the short-range distances and pair energy; returns (mapping, "
            "batch_mapping, shifts_idx, distances, energy (2,))",
            ("torch_nl",), _r18a_strict_nl_short, frozen=("5",),
            notes=_GRAD + "; the shifts (integer-valued floats) are frozen; a model with two cutoffs builds one "
            "list at the long cutoff and filters it (the call keeps 34 of the long list's 174 pairs: 22 and 12 per "
            "structure)",
            patterns=_STRICT + " with the cell shifts of the long list; " + _DIST,
        ),
        Row(
            "r18a_torchnl_cell_repeats_shift_images", *TORCH_NL,
            "wrapper: torch_nl.utils.get_number_of_cell_repeats(2.5, cell (9, 3), pbc (3, 3)) for a small cubic "
            "periodic cell (1.5 A), a non-periodic zero cell and a triclinic periodic cell, then get_cell_shift_idx "
            "per structure (as both builders do); returns (num_repeats (3, 3) long, [the integer cell shifts of each "
            "structure: (125, 3), (1, 3), (45, 3)])",
            ("torch_nl",), _r18a_cell_images, modes=INFERENCE,
            notes="inference only: the outputs are integers (`ceil(...).to(long)`) and `arange`s built from them, "
            "with no gradient path from the cells; the mixed `pbc` makes the boolean mask select 2 of 3 cells",
            patterns="`get_number_of_cell_repeats` (utils.py:41-55: `has_pbc = pbc.prod(dim=1, dtype=bool)`, "
            "`reciprocal_cell[has_pbc, :, :] = torch.linalg.inv(cell[has_pbc, :, :]).transpose(2, 1)` (a boolean-mask "
            "read and setitem), `norm`, `ceil(cutoff * ...).to(long)`, `torch.where(pbc, ...)`); a Python loop over "
            "the structures (`range(num_repeats.shape[0])`) -> `get_cell_shift_idx(num_repeats[i])` (utils.py:58-72: "
            "three `torch.arange(-num_repeats[ii], num_repeats[ii] + 1)` whose sizes are tensor values, `sort(abs)`, "
            "`r1[indices]`, `cartesian_prod`)",
        ),
        Row(
            "r18a_torchnl_ase2data_frames", *TORCH_NL,
            "function: torch_nl.ase2data([ase.Atoms (4 atoms, triclinic cell, pbc), ase.Atoms (3 atoms, no cell), "
            "ase.Atoms (1 atom, cubic cell, pbc)]) (frames built in memory from seeded positions); returns (pos (8, "
            "3) float64, cell (9, 3), pbc (9,) bool, batch (8,), n_atoms (3,))",
            ("torch_nl",), _r18a_ase2data, modes=INFERENCE,
            notes="inference only: the input is a list of ase.Atoms (NumPy arrays), so no tensor input can require "
            "grad and the outputs come from NumPy; ase is a declared dependency of torch-nl and is imported only in "
            "the builder",
            patterns="`ase2data` (utils.py:6-31): a Python loop over the frames (`len(ff)`, `torch.from_numpy` of "
            "`get_positions()`, `get_cell().array`, `get_pbc()`), `cat`s, `stride = torch.from_numpy(np.cumsum("
            "n_atoms))`, `for ii, (st, nd) in enumerate(zip(stride[:-1], stride[1:])): batch[st:nd] = ii` (utils.py:"
            "21-22: iterating tensors; 0-d tensors as the slice bounds of a setitem), `torch.Tensor(n_atoms[1:])"
            ".to(long)`, `.to(device='cpu')`",
        ),
        Row(
            "r18a_torchnl_geometry_distances_control", *TORCH_NL,
            "wrapper: torch_nl.compute_cell_shifts(cell (6, 3), shifts_idx, batch_mapping) and "
            "torch_nl.compute_distances(pos (9, 3), mapping, cell_shifts) for a given list (compute_neighborlist "
            "at cutoff 2.4 of two periodic structures of 5 and 4 atoms, in the builder), then the pair energy; "
            "returns (cell_shifts (n_pair, 3), distances, energy (2,))",
            ("torch_nl",), _r18a_geometry_control, frozen=("4",),
            notes="in training the positions and the cells require grad (the shifts, integer-valued floats, are "
            "frozen); the gradient reaches both through the cell shifts and the distances",
            patterns="control: no tensor value reaches Python. `compute_cell_shifts` (geometry.py:21-30: `if cell "
            "is None` (a Python test), `torch.einsum('jn,jnm->jm', shifts_idx, cell.view(-1, 3, 3)[batch_mapping])`), "
            "`compute_distances` (geometry.py:5-18: `assert mapping.dim() == 2`, `assert mapping.shape[0] == 2` "
            "(shapes, not values), `if cell_shifts is None`, `pos[mapping[1]] - pos[mapping[0]] + cell_shifts`, "
            "`norm(p=2, dim=1)`); the pair energy (`cos`, `exp`, `index_add` by `batch_mapping`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round eighteen (a)")
