"""Held-out round twenty-six (r26c): torch-dftd.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(tiny systems built with ASE in ``make``, from its own tables: a water
molecule (3 atoms), methane (5), methanol (6), ethanol (9), water + methane as
a batch of two graphs (8 atoms), and a periodic 2-atom diamond-silicon
primitive cell (a = 5.43 A) with its positions rattled by 0.05 A of seeded
noise and a 5 A cutoff (56 periodic edges); the neighbour lists are built in
``make`` with the library's ``calc_edge_index`` unless the row times it;
positions, cells and shifts float32 (the modules' default ``dtype``); the
energies come back float64 (D3 sums the pair energies in float64, D2's tables
are float64 whatever its ``dtype``);
nothing downloaded, nothing written to disk, no data file read other than the
package's own parameter table); a row whose ``modes`` is one mode only says why
in its ``notes``.

torch-dftd 0.5.3 (package ``torch_dftd``, Preferred Networks) is Grimme's
DFT-D2 and DFT-D3 dispersion correction in PyTorch: ``nn.DFTD3Module`` /
``nn.DFTD2Module`` (``nn.Module``s holding the C6/R0/covalent-radius tables as
buffers, with no ``forward``: users call ``calc_energy_batch`` (the
differentiable energy per graph), ``calc_energy`` (energies as Python floats
under ``no_grad``) or ``calc_energy_and_forces`` (energy, forces and stress as
numpy arrays, differentiating itself)) on atomic numbers, positions, an edge
index and, for periodic systems, the cell and the per-edge shift vectors; the
functions behind them (``functions.dftd3.edisp`` with the coordination numbers
``_ncoord``, the C6 interpolation ``_getc6`` and the Axilrod-Teller-Muto
three-body term, ``functions.dftd2.edisp_d2``, ``calc_distances``,
``poly_smoothing``, ``calc_triplets``), neighbour lists
(``functions.edge_extraction.calc_edge_index``: brute force for molecules,
pymatgen (or ASE) for periodic cells), the functional-dependent parameters
(``dftd3_xc_params.get_dftd3_default_params``) and an ASE calculator
(``TorchDFTD3Calculator``).

The data-dependent code on the rows' paths (file:line relative to the
``torch_dftd`` package).  Every ``DFTD3Module`` call passes ``cnthr``, so
``_ncoord`` (functions/dftd3.py:21-66) selects the pairs within it with
``torch.nonzero(r <= cutoff).reshape(-1)`` (47: a data-dependent output shape)
and gathers ``r``, ``idx_i``, ``idx_j`` with the result (48-52).  With
``n_chunks``, ``_getc6`` (69-105) computes the chunk size as a tensor,
``torch.ceil(Zi.shape[0] / torch.tensor(n_chunks)).to(torch.int64)`` (98-99),
and slices the edge tensors with ``slice(chunk_start, chunk_start +
chunk_size)`` of 0-d tensors (102-104: slice bounds read through
``__index__``).  With ``abc=True`` (edisp, 291-386): ``edge_index[:,
within_cutoff]`` and ``shift_pos[within_cutoff]`` (292-298: boolean-mask
indexing), then ``calc_triplets`` under ``no_grad`` (312-324 -> functions/
triplets.py:8-64: ``dst[is_larger]`` masks (32-34), ``argsort``,
``torch.unique_consecutive(..., return_counts=True)`` (51: data-dependent
shapes), ``str(unique.device) == "cpu"`` (57) -> ``_calc_triplets_core``
(67-137): ``if n_triplets == 0`` (70: a tensor's truth), a loop ``for i in
range(len(unique))`` (85: bounded by the number of distinct sources) with
``unique[i].item()``, ``counts[i].item()``, ``counts_cumsum[i].item()``,
``batch_edge[...].item()`` (86-90), a slice ``dst[counts_cumsum[i] :
counts_cumsum[i + 1]]`` (88: tensor bounds), nested loops ``range(_n_edges -
1)`` / ``range(j + 1, _n_edges)`` (91-92: bounded by ``.item()`` values) with
``_dst[j].item()``, ``_dst[k].item()`` (93-94), Python comparisons and asserts
on those ints (98-127) appending to Python lists, and ``torch.as_tensor`` /
``torch.tensor`` of the lists (130-136: a shape from the loop count)); back in
``edisp`` the ``r_jk <= cnthr`` mask selects the triplets (333-353).  In
``edisp_d2`` with a batch, ``n_graphs = int(batch[-1]) + 1`` (functions/
dftd2.py:75-78: a tensor read into Python, sizing the output).  The base
module's ``calc_energy`` (nn/base_dftd_module.py:45-86) runs the energy under
``torch.no_grad()`` (75) and returns ``E_disp.item()`` (80) or, with a batch,
``int(batch[-1]) + 1`` (85) and a list of ``E_disp[i].item()`` (86);
``calc_energy_and_forces`` (88-178) sets ``pos.requires_grad_(True)`` and
``shift_pos.requires_grad_(True)`` on the caller's tensors (116, 123), calls
``E_disp.sum().backward()`` itself (129), reads ``-pos.grad`` (130), returns
``E_disp.item()`` and ``forces.cpu().numpy()`` (132) and, with a cell, the
stress from ``torch.det(cell)`` and ``pos.grad`` / ``shift_pos.grad`` products
summed in float64, as ``.detach().cpu().numpy()`` (145-158).
``calc_edge_index`` (functions/edge_extraction.py:65-113) tests ``if pbc is
None or torch.all(~pbc)`` (85: a tensor's truth), ``assert cell is None``
(86), finds pairs with ``torch.where(distances < cutoff**2)`` (89: a
data-dependent shape) and keeps ``left_ind < right_ind`` by boolean masks
(95-97).

Controls (no tensor value reaches Python): ``r26c_d3_edisp_function_control``
(``calc_distances`` then ``edisp`` called as a function with its defaults,
``cutoff=None`` and ``cnthr=None``, so ``_ncoord`` skips the ``nonzero``
selection (45): gathers of the tables by atomic number, ``scatter_add_`` of
the coordination numbers, the C6 softmax interpolation, zero damping, a
float64 sum) and ``r26c_d2_periodic_poly_smoothing_control``
(``DFTD2Module.calc_energy_batch`` on the periodic cell with shifts and
``cutoff_smoothing="poly"``: ``calc_distances`` with ``Rj += shift_pos``,
table gathers, the D2 Fermi damping, ``poly_smoothing``'s nested
``torch.where``, a sum; ``damping != "zero"`` and ``batch_edge is None`` are
Python tests).  Every ``DFTD3Module`` call goes through the ``nonzero`` of
``_ncoord``, so the D3 control calls ``edisp`` directly.

Global state on import (the builders import the library; this module imports
only torch): ``import torch_dftd`` imports only its version; the modules the
rows use import numpy, ASE (``ase.neighborlist``, ``ase.units``), and
``functions.edge_extraction`` imports ``pymatgen.core`` (with monty, ruamel,
scipy, orjson, tabulate).  Those imports add four warning filters (pymatgen's
ruamel.yaml ``once`` filters for ``MantissaNoDotYAML1_1Warning`` and
``UnsafeLoaderWarning``, scipy's ``always`` for ``SpecialFunctionWarning`` and
``ignore`` for "the matrix subclass is not the recommended way") and a
``NullHandler`` on the ``charset_normalizer`` logger; no environment variable
is set, torch's default dtype, deterministic flags, matmul precision and
thread count are unchanged, ``torch._dynamo`` is not imported.
``functions.triplets_kernel`` tries ``import cupy`` and ``import
pytorch_pfn_extras`` (both absent: the GPU triplet kernel is not defined, the
CPU loop is used).

Library quirks met (eagerly): the modules have no ``forward`` (calling one
raises ``NotImplementedError`` from ``nn.Module``); ``calc_energy_and_forces``
cannot run under ``torch.no_grad()`` (its own ``backward`` raises "element 0
of tensors does not require grad"), mutates its inputs' ``requires_grad`` and
accumulates into ``pos.grad`` (a second call on the same ``pos`` tensor
returns the forces summed over both calls), and returns numpy arrays and
Python floats (no gradient leaves the call).  ``calc_energy_batch``'s default
``shift_pos`` is ``pos.new_zeros((n_edges, 3, 3))`` (nn/dftd3_module.py:82,
nn/dftd2_module.py:57), the wrong shape for ``Rj += shift_pos`` (it is only
used when ``cell`` is given, and then the caller must pass shifts); with a
batch, ``edisp`` sizes the output by ``cell.size(0)`` (dftd3.py:284), so a
batched D3 call needs a (n_graphs, 3, 3) cell even for molecules (the
calculator's ``batch_calculate`` passes identity cells), while ``edisp_d2``
reads ``int(batch[-1]) + 1``.  ``DFTD2Module`` stores its ``dtype`` argument
but never uses it: its C6/R0 tables are float64 (nn/params/dftd2_params.py:
197-200), so float32 positions give float64 D2 energies by type promotion (D3
casts its tables to ``dtype`` and sums in float64: float64 energies too).  The
three-body term ignores ``cutoff_smoothing`` (a TODO, dftd3.py:381).  The
``_calc_triplets_core`` asserts compare the loop index ``i`` (not the source
atom) with the neighbours (124-125).  ``DFTD3Module`` prints a WARNING when
``cnthr > cutoff`` (nn/dftd3_module.py:54-59): the periodic rows pass
``cnthr=cutoff``.  A perfect silicon crystal has (numerically) zero forces,
hence the rattled positions.

Dropped: ``TorchDFTD3Calculator.calculate`` / ``batch_calculate`` (an ASE
driver: numpy positions to tensors, the neighbour list, then the module calls
the rows make; the paths are those of ``r26c_d3_calc_energy_two_molecules``
and ``r26c_d3_forces_stress_periodic``); ``calc_edge_index`` on a periodic cell
alone (pymatgen's ``get_neighbor_list`` on numpy copies of the tensors,
edge_extraction.py:45-62: numpy in, numpy out, no gradient; it builds the
periodic rows' edges in ``make``); ``calc_neighbor_by_ase`` (the fallback when
pymatgen raises ``NotImplementedError``); ``calc_triplets`` alone (its whole
path is inside the three-body row); the ``bjm`` and ``zerom`` variants of the
D3 damping (branches of the same element-wise code as ``zero`` and ``bj``
beyond the one ``zerom`` row); the GPU triplet kernel (needs cupy and CUDA).
No candidate was dropped for failing or for differing between runs.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

TORCH_DFTD = ("torch-dftd", "0.5.3")
MODULES = ("torch_dftd",)
INFERENCE = ("inference",)
TRAINING = ("training",)

SI_CUTOFF = 5.0  # angstrom: cutoff (and cnthr) of the periodic rows
SI_RATTLE = 0.05  # angstrom: seeded noise on the silicon positions

# --- helpers -------------------------------------------------------------------------------


def _molecule(name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Atomic numbers (long) and positions (float32, angstrom) of an ASE molecule (``ase.build.molecule``)."""
    from ase.build import molecule

    atoms = molecule(name)
    return torch.tensor(atoms.numbers), torch.tensor(atoms.positions, dtype=torch.float32)


def _edges(pos: torch.Tensor, bidirectional: bool = False) -> torch.Tensor:
    """The molecule's edge index from the library's brute-force neighbour list (default 95 bohr cutoff)."""
    from torch_dftd.functions.edge_extraction import calc_edge_index

    edge_index, _ = calc_edge_index(pos, None, None, bidirectional=bidirectional)
    return edge_index


def _batch(*names: str) -> dict[str, torch.Tensor]:
    """Molecules concatenated into one batch as ``batch_calculate`` builds it: Z, pos, edge_index (offset per
    graph, one direction), batch (per atom), batch_edge (per edge)."""
    zs, ps, es, bs, bes, offset = [], [], [], [], [], 0
    for i, name in enumerate(names):
        z, p = _molecule(name)
        e = _edges(p)
        zs.append(z)
        ps.append(p)
        es.append(e + offset)
        bs.append(torch.full((len(z),), i, dtype=torch.long))
        bes.append(torch.full((e.shape[1],), i, dtype=torch.long))
        offset += len(z)
    return {"Z": torch.cat(zs), "pos": torch.cat(ps), "edge_index": torch.cat(es, dim=1), "batch": torch.cat(bs),
            "batch_edge": torch.cat(bes)}


def _silicon() -> dict[str, torch.Tensor]:
    """The rattled 2-atom diamond silicon cell: Z, pos, edge_index and shift_pos (S @ cell, as the calculator
    computes them with pymatgen's neighbour list, bidirectional, 5 A cutoff), cell, pbc."""
    from ase.build import bulk
    from torch_dftd.functions.edge_extraction import calc_edge_index

    atoms = bulk("Si", "diamond", a=5.43)
    pos = torch.tensor(atoms.positions, dtype=torch.float32) + SI_RATTLE * torch.randn(len(atoms), 3)
    cell = torch.tensor(atoms.cell.array, dtype=torch.float32)
    pbc = torch.tensor(atoms.pbc)
    edge_index, shifts = calc_edge_index(pos, cell, pbc, cutoff=SI_CUTOFF, bidirectional=True)
    return {"Z": torch.tensor(atoms.numbers), "pos": pos, "edge_index": edge_index, "cell": cell, "pbc": pbc,
            "shift_pos": torch.mm(shifts, cell)}


def _d3(damping: str = "zero", **kwargs: Any) -> Any:
    from torch_dftd.dftd3_xc_params import get_dftd3_default_params
    from torch_dftd.nn.dftd3_module import DFTD3Module

    return DFTD3Module(get_dftd3_default_params(damping, "pbe"), **kwargs)


def _d2(**kwargs: Any) -> Any:
    from torch_dftd.dftd3_xc_params import get_dftd3_default_params
    from torch_dftd.nn.dftd2_module import DFTD2Module

    return DFTD2Module(get_dftd3_default_params("zero", "pbe", old=True), **kwargs)


def _edges_then_energy(module: Any, Z: torch.Tensor, pos: torch.Tensor, pbc: torch.Tensor) -> torch.Tensor:
    """What the ASE calculator does for a molecule, on tensors: the library's neighbour list, then the energy."""
    from torch_dftd.functions.edge_extraction import calc_edge_index

    edge_index, shifts = calc_edge_index(pos, None, pbc, cutoff=module.cutoff, bidirectional=module.bidirectional)
    return module.calc_energy_batch(Z, pos, edge_index, None, pbc, shifts)


def _edisp_no_cutoffs(module: Any, Z: torch.Tensor, pos: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
    """The D3 energy (eV) from the functions, with ``edisp``'s defaults (no cutoff, no ``cnthr``), using the
    module's tables, as ``DFTD3Module.calc_energy_batch`` calls it otherwise."""
    from torch_dftd.functions.dftd3 import d3_autoang, d3_autoev, edisp
    from torch_dftd.functions.distance import calc_distances

    r = calc_distances(pos / d3_autoang, edge_index)
    return d3_autoev * edisp(Z, r, edge_index, c6ab=module.c6ab, r0ab=module.r0ab, rcov=module.rcov,
                             r2r4=module.r2r4, params=module.params)


# --- builders ------------------------------------------------------------------------------


def _d3_water(training: bool) -> Built:
    Z, pos = _molecule("H2O")
    return _d3().calc_energy_batch, (Z, pos, _edges(pos)), {}


def _d3_abc_methane(training: bool) -> Built:
    Z, pos = _molecule("CH4")
    return _d3(abc=True, bidirectional=True).calc_energy_batch, (Z, pos, _edges(pos, bidirectional=True)), {}


def _d3_bj_chunked(training: bool) -> Built:
    Z, pos = _molecule("CH3OH")
    module = _d3("bj", n_chunks=2, cutoff_smoothing="poly")
    return module.calc_energy_batch, (Z, pos, _edges(pos)), {"damping": "bj"}


def _d2_batched(training: bool) -> Built:
    b = _batch("H2O", "CH4")
    return _d2().calc_energy_batch, (b["Z"], b["pos"], b["edge_index"]), {"batch": b["batch"],
                                                                          "batch_edge": b["batch_edge"]}


def _d3_calc_energy_batched(training: bool) -> Built:
    b = _batch("H2O", "CH4")
    cell = torch.eye(3).expand(2, 3, 3).clone()  # identity cells, as batch_calculate passes for molecules
    shift_pos = torch.zeros(b["edge_index"].shape[1], 3)
    return _d3("zerom").calc_energy, (b["Z"], b["pos"], b["edge_index"], cell, None, shift_pos, b["batch"],
                                      b["batch_edge"]), {"damping": "zerom"}


def _d3_forces_stress(training: bool) -> Built:
    si = _silicon()
    module = _d3(cutoff=SI_CUTOFF, cnthr=SI_CUTOFF, bidirectional=True)
    return module.calc_energy_and_forces, (si["Z"], si["pos"], si["edge_index"], si["cell"], si["pbc"],
                                           si["shift_pos"]), {}


def _d3_edges_then_energy(training: bool) -> Built:
    Z, pos = _molecule("CH3CH2OH")
    return _edges_then_energy, (_d3(), Z, pos, torch.zeros(3, dtype=torch.bool)), {}


def _edisp_control(training: bool) -> Built:
    Z, pos = _molecule("CH4")
    return _edisp_no_cutoffs, (_d3(), Z, pos, _edges(pos)), {}


def _d2_periodic_control(training: bool) -> Built:
    si = _silicon()
    module = _d2(cutoff=SI_CUTOFF, bidirectional=True, cutoff_smoothing="poly")
    return module.calc_energy_batch, (si["Z"], si["pos"], si["edge_index"], si["cell"], si["pbc"],
                                      si["shift_pos"]), {}


# --- rows ------------------------------------------------------------------------------------

_DISTANCES = "`calc_distances` (functions/distance.py:7-36: gathers, `sqrt(sum(d**2) + eps)`)"
_DISTANCES_PBC = ("`calc_distances` (functions/distance.py:7-36: gathers, `Rj += shift_pos` (33: `if cell is not "
                  "None`, a Python test), `sqrt`)")
_NCOORD = ("`_ncoord` (functions/dftd3.py:21-66: `torch.nonzero(r <= cutoff).reshape(-1)` (47: the pairs within "
           "`cnthr`, a data-dependent shape), gathers of `r`, `idx_i`, `idx_j` by it (48-52), the covalent-radius "
           "damping, `scatter_add_` (63-65))")
_C6 = ("`_getc6` -> `_getc6_impl` (functions/dftd3.py:108-130: table gathers by `Zi * 95 + Zj`, `cn0.size(0) == 0` "
       "(124: a shape), `torch.where(cn0 > 0, ...)`, `softmax` interpolation)")
def _d3_call(distances: str = _DISTANCES) -> str:
    return ("`DFTD3Module.calc_energy_batch` (nn/dftd3_module.py:69-113: `shift_pos is None` default `new_zeros` "
            "(82), bohr conversion, " + distances + ") -> `edisp` (functions/dftd3.py:133-387: ")


_D3_CALL = _d3_call()
_D3_TAIL = ("`damping` string branches (227-267), `e68.to(torch.float64).sum()[None]` (278: `batch_edge is None`), "
            "`if not bidirectional: g *= 2.0` (288-289))")
_TRIPLETS = ("`abc` (291-386): `edge_index[:, within_cutoff]` (292-298: boolean-mask indexing), `calc_triplets` "
             "under `no_grad` (312-324 -> functions/triplets.py:8-64: `dst[is_larger]` masks (32-34), `argsort` "
             "(36), `unique_consecutive(return_counts=True)` (51: data-dependent shapes), `str(unique.device)` (57) "
             "-> `_calc_triplets_core` (67-137: `if n_triplets == 0` (70: a tensor's truth), `for i in "
             "range(len(unique))` (85), `unique[i].item()`, `counts[i].item()`, `counts_cumsum[i].item()`, "
             "`batch_edge[counts_cumsum[i]].item()` (86-90), `dst[counts_cumsum[i] : counts_cumsum[i + 1]]` (88: a "
             "slice with tensor bounds), nested `range(_n_edges - 1)` / `range(j + 1, _n_edges)` (91-92: bounded by "
             "`.item()` values) with `_dst[j].item()`, `_dst[k].item()` (93-94), Python comparisons and asserts "
             "(98-127), `torch.as_tensor`/`torch.tensor` of the lists (130-136: sizes from the loops))), "
             "`r_jk <= cnthr` and the triplets selected by it (332-353: boolean-mask indexing), the ATM damping, "
             "`c6_mem[edge_index[0], edge_index[1]] = c6` (367-369: index_put), `sqrt`, `e3.sum()` (383-384)")
_BATCH_NOTE = "two graphs (water + methane, 8 atoms, 13 one-directional edges, offset per graph)"


def _rows() -> list[Row]:
    return [
        Row(
            "r26c_d3_energy_batch_water", *TORCH_DFTD,
            "method: DFTD3Module(PBE zero-damping params).calc_energy_batch(Z (3,) long, pos (3, 3), edge_index "
            "(2, 3) long) on a water molecule; returns the energy (1,) float64 (eV)",
            MODULES, _d3_water,
            notes="the D3(zero) dispersion energy of one molecule, the module's differentiable call (what a "
            "model adding D3 to an ML potential compiles); in training the positions require grad (forces "
            "= -grad)",
            patterns=_D3_CALL + _NCOORD + ", " + _C6 + ", c8 from `r2r4`, zero damping (239-250), " + _D3_TAIL + ")",
        ),
        Row(
            "r26c_d3_energy_batch_abc_methane", *TORCH_DFTD,
            "method: DFTD3Module(PBE zero, abc=True, bidirectional=True).calc_energy_batch(Z (5,) long, pos (5, 3), "
            "edge_index (2, 20) long) on methane; returns the energy (1,) float64 with the three-body term",
            MODULES, _d3_abc_methane,
            notes="D3 with the Axilrod-Teller-Muto three-body term (10 triplets, found by the CPU triplet loop) "
            "on bidirectional edges as the ASE calculator builds them; in training the positions require grad "
            "(through the pair and triplet distances; the triplet search runs under `no_grad`)",
            patterns=_D3_CALL + _NCOORD + ", " + _C6 + ", zero damping, " + _D3_TAIL + ", " + _TRIPLETS + ")",
        ),
        Row(
            "r26c_d3_energy_batch_bj_chunked_c6", *TORCH_DFTD,
            "method: DFTD3Module(PBE Becke-Johnson params, n_chunks=2, cutoff_smoothing='poly').calc_energy_batch("
            "Z (6,) long, pos (6, 3), edge_index (2, 15) long, damping='bj') on methanol; returns (1,) float64",
            MODULES, _d3_bj_chunked,
            notes="D3(BJ) with the C6 interpolation split in chunks to bound peak memory (the library's "
            "`n_chunks` option: 15 edges in chunks of 8) and the polynomial cutoff smoothing; in training the "
            "positions require grad",
            patterns=_D3_CALL + _NCOORD + " with `poly_smoothing` (58-59; functions/smoothing.py:5-25: nested "
            "`torch.where`), `_getc6` (69-105: `torch.tensor(n_chunks)` (98), `chunk_size = torch.ceil(Zi.shape[0] "
            "/ n_chunks_t).to(torch.int64)` (99: a 0-d tensor), `for i in range(0, n_chunks)` (101: a Python int), "
            "`slice(chunk_start, chunk_start + chunk_size)` of 0-d tensors indexing `Zi`, `Zj`, `nci`, `ncj` "
            "(102-104: slice bounds read from tensors), " + _C6 + " per chunk, `cat`), BJ damping with `sqrt(c8 / "
            "c6)` (227-238), `e68 *= poly_smoothing(r, cutoff)` (273-274), " + _D3_TAIL + ")",
        ),
        Row(
            "r26c_d2_energy_batch_two_molecules", *TORCH_DFTD,
            "method: DFTD2Module(PBE D2 params).calc_energy_batch(Z (8,) long, pos (8, 3), edge_index (2, 13) long, "
            "batch=(8,) long, batch_edge=(13,) long) on water + methane; returns the energies (2,) float64",
            MODULES, _d2_batched,
            notes="batched D2 energies of " + _BATCH_NOTE + ", the layout a GNN potential batches graphs in; in "
            "training the positions require grad",
            patterns="`DFTD2Module.calc_energy_batch` (nn/dftd2_module.py:44-81: `new_zeros` default shifts (57), "
            "bohr conversion, " + _DISTANCES + ") -> `edisp_d2` (functions/dftd2.py:9-84: gathers of `c6ab`, "
            "`r0ab` by `Zi, Zj` (62-63), Fermi damping (63-65), `batch.size()[0] == 0` (75: a shape), `n_graphs = "
            "int(batch[-1]) + 1` (78: a tensor read into Python, the output's size), `new_zeros((n_graphs,))`, "
            "`scatter_add_` (79-80), `g *= 2.0` (82-83))",
        ),
        Row(
            "r26c_d3_calc_energy_two_molecules", *TORCH_DFTD,
            "method: DFTD3Module(PBE zerom params).calc_energy(Z (8,), pos (8, 3), edge_index (2, 13), cell=(2, 3, "
            "3) identity, pbc=None, shift_pos=(13, 3) zeros, batch=(8,), batch_edge=(13,), damping='zerom') on "
            "water + methane; returns [{'energy': float}, {'energy': float}]",
            MODULES, _d3_calc_energy_batched, modes=INFERENCE,
            notes="inference only: `calc_energy` runs the energy under `torch.no_grad()` and returns Python "
            "floats (no gradient path). The energy-only API on " + _BATCH_NOTE + ", with identity cells and "
            "zero shifts as `TorchDFTD3Calculator.batch_calculate` passes for molecules",
            patterns="`calc_energy` (nn/base_dftd_module.py:45-86: `with torch.no_grad()` (75), `batch.size()[0] "
            "== 0` (82), `n_graphs = int(batch[-1]) + 1` (85: a tensor read), `[{'energy': E_disp[i].item()} for i "
            "in range(n_graphs)]` (86: a loop bounded by it, `.item()` per graph)) -> "
            + _d3_call(_DISTANCES_PBC) + _NCOORD
            + ", " + _C6 + ", modified zero damping (251-265), `n_graphs = cell.size(0)` (281-284: a shape), "
            "`scatter_add_` into float64 (285-286), `g *= 2.0` (288-289))",
        ),
        Row(
            "r26c_d3_forces_stress_periodic", *TORCH_DFTD,
            "method: DFTD3Module(PBE zero, cutoff=5, cnthr=5, bidirectional=True).calc_energy_and_forces(Z (2,) "
            "long, pos (2, 3), edge_index (2, 56) long, cell (3, 3), pbc (3,) bool, shift_pos (56, 3)) on a "
            "rattled diamond-Si primitive cell; returns [{'energy': float, 'forces': ndarray (2, 3), 'stress': "
            "ndarray (6,)}]",
            MODULES, _d3_forces_stress, modes=TRAINING,
            notes="training only: the method differentiates itself (`E_disp.sum().backward()` on positions and "
            "shifts it sets `requires_grad_` on), which raises under `torch.no_grad()`; its outputs are numpy "
            "arrays and a float, so the default loss is None and the harness runs no backward of its own (the "
            "library's backward fills `pos.grad` and `shift_pos.grad` of the row's leaves). What an MD step or "
            "the ASE calculator calls for energy, forces and stress of a periodic cell",
            patterns="`calc_energy_and_forces` (nn/base_dftd_module.py:88-178: `pos.requires_grad_(True)` (116), "
            "`assert isinstance(shift_pos, Tensor)` (122), `shift_pos.requires_grad_(True)` (123), "
            + _d3_call(_DISTANCES_PBC) + _NCOORD + ", " + _C6 + ", zero damping, " + _D3_TAIL + "), "
            "`E_disp.sum().backward()` (129: a backward inside the call), `forces = -pos.grad` (130), "
            "`E_disp.item()` and `forces.cpu().numpy()` (132), `torch.det(cell).abs()`, `pos[:, voigt_left] * "
            "pos.grad[:, voigt_right]` and the same of `shift_pos.grad` summed in float64 (149-157), "
            "`stress.detach().cpu().numpy()` (158))",
        ),
        Row(
            "r26c_d3_edges_then_energy_ethanol", *TORCH_DFTD,
            "function: calc_edge_index(pos (9, 3), None, pbc=(3,) bool all False, cutoff=95 bohr) then "
            "DFTD3Module(PBE zero).calc_energy_batch(Z (9,), pos, edge_index, None, pbc, shifts) via a 3-line "
            "wrapper, on ethanol; returns (1,) float64",
            MODULES, _d3_edges_then_energy,
            notes="the ASE calculator's path for a molecule on tensors (its `_preprocess_atoms` passes the "
            "`pbc` tensor and `shift_pos = S`): the library's neighbour list, then the energy; in training the "
            "positions require grad",
            patterns="`calc_edge_index` (functions/edge_extraction.py:65-113: `if pbc is None or torch.all(~pbc)` "
            "(85: a tensor's truth), `assert cell is None` (86), squared distances with an in-place `pow_` (88), "
            "`torch.where(distances < cutoff**2)` (89: a data-dependent shape), `left_ind < right_ind` boolean "
            "masks (95-97), `new_zeros` shifts (99)) -> " + _D3_CALL + _NCOORD + ", " + _C6 + ", zero damping, "
            + _D3_TAIL + ")",
        ),
        Row(
            "r26c_d3_edisp_function_control", *TORCH_DFTD,
            "function: calc_distances(pos / d3_autoang, edge_index) then d3_autoev * edisp(Z (5,), r (10,), "
            "edge_index (2, 10), the DFTD3Module's c6ab/r0ab/rcov/r2r4 buffers, PBE zero params) via a 2-line "
            "wrapper, on methane; returns (1,) float64",
            MODULES, _edisp_control,
            notes="control: the D3 energy from the library's functions with `edisp`'s defaults (no cutoff, no "
            "`cnthr`: every `DFTD3Module` call passes `cnthr`, whose `nonzero` reads the data, so the control "
            "calls the function); in training the positions require grad (the tables are buffers read off the "
            "module, not inputs)",
            patterns="control: no tensor value reaches Python. " + _DISTANCES + "; `edisp` (functions/dftd3.py:"
            "133-387: `_ncoord` with `cutoff=None` (45: a Python test; gathers, damping, `scatter_add_` (53-65)), "
            + _C6 + ", c8, zero damping (239-250), " + _D3_TAIL + ")",
        ),
        Row(
            "r26c_d2_periodic_poly_smoothing_control", *TORCH_DFTD,
            "method: DFTD2Module(PBE D2 params, cutoff=5, bidirectional=True, cutoff_smoothing='poly')."
            "calc_energy_batch(Z (2,), pos (2, 3), edge_index (2, 56), cell (3, 3), pbc (3,) bool, shift_pos "
            "(56, 3)) on the rattled Si cell; returns (1,) float64",
            MODULES, _d2_periodic_control,
            notes="control: the periodic D2 energy with shifted images and the smooth cutoff; in training the "
            "positions, cell and shifts require grad (the cell only gates the shift addition: its gradient is "
            "None)",
            patterns="control: no tensor value reaches Python. `DFTD2Module.calc_energy_batch` (nn/dftd2_module."
            "py:44-81: bohr conversion of pos, cell, shifts, " + _DISTANCES_PBC + ") -> `edisp_d2` (functions/"
            "dftd2.py:9-84: `damping != 'zero'` (52: a Python string), gathers by `Zi, Zj`, Fermi damping, "
            "`e6 *= poly_smoothing(r, cutoff)` (67-68; functions/smoothing.py:5-25: nested `torch.where`), "
            "`e6.sum()[None]` (70-72: `batch_edge is None`))",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-six (c)")
