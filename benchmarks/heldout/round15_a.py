"""Held-out round fifteen (r15a): torchdeq and torchkge.

Chosen by reading each library's source, written down in ROUND15.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The torchdeq rows build small deep equilibrium models by hand: an injection
``Linear`` and a contractive cell (weights scaled down so that the solvers
converge within their budgets), solved from zeros by a DEQ core from
``get_deq`` (``DEQSliced`` with ``fixed_point_iter``, ``DEQIndexing`` with
``anderson`` and implicit differentiation) or by a solver called directly
(``get_solver('broyden')`` with its line search).  The data-dependent code: the
solvers' convergence tests (solver/fp_iter.py:74 and solver/anderson.py:107:
``if not return_final and trace_dict[stop_mode][-1].max() < tol:`` then
``break``, a tensor in a Python ``if`` deciding the loop's trip count: the
fixed-point iteration stops at step 9 of 30 at evaluation and at 10 of 15 in the
first training slice, Anderson at 22 of 24; solver/broyden.py:182-219: ``while
nstep < max_iter:`` with ``if not return_final and new_objective < tol: break``,
the line search's ``_safe_norm`` (``if not torch.isfinite(v).all()``),
``scalar_search_armijo``'s ``if phi_a0 <= phi0 + c1*alpha0*derphi0:`` on a
tensor (the full step is accepted at each of the 9 steps here), and the NaN
scrubbing boolean-mask setitems ``vT[vT != vT] = 0``, ``u[u != u] = 0``); the implicit
gradient's backward (grad.py:155-181: ``IFTGrad.backward`` runs the backward
fixed-point solver, with its own convergence ``break``, inside autograd); the
spectral radius at evaluation (core.py:111-126 -> loss/jacobian.py:34-52: 100
``torch.autograd.grad`` calls of the power method under ``enable_grad``);
``fp_correction(..., return_loss_values=True)`` (loss/correction.py:110:
``loss_list.append(i_loss.item())`` per state).  The control is a
``DEQSliced`` with ``simple_fixed_point_iter`` (a fixed 12 steps, no
convergence test, statistics from the final step only).

The torchkge rows build tiny ``KnowledgeGraph`` objects from hand-drawn triples
(10 entities, 3 or 4 relations, 10-20 distinct facts; the builder's seeded
``torch.randint`` picks them) with ``ent2ix``/``rel2ix`` dictionaries, so the
filtering dictionaries are computed in the builder, and models from their
constructors (``init_embedding``: Xavier-uniform ``Embedding``).  The
data-dependent code: the negative samplers (sampling.py:278-327,
``BernoulliNegativeSampler.corrupt_batch``: ``bernoulli`` of per-relation
probabilities, ``n_h_cor = int(mask.sum().item())``, ``neg_heads[mask == 1] =
randint(1, n_ent, (n_h_cor,))``, a boolean-mask setitem whose value's size is
read from the data; sampling.py:428-504, ``PositionalNegativeSampler.
corrupt_batch``: ``int(mask.sum().item())``, ``relations[mask == 1]``, Python
loops of data-dependent length with ``rels[i].item()``, a dictionary lookup and
``choice_heads[i].item()`` (or ``randint(...).item()`` for a relation never
seen), ``tensor(corr)``); the filtered ranking (utils/modeling.py:76-100:
``filter_scores`` loops over the batch, ``dictionary[key1[i].item(),
key2[i].item()]``, ``true_targets.remove(true_idx[i].item())``,
``filt_scores[i][true_targets] = -inf``) and the metrics' ``.item()``
(evaluation.py:310-397); the triplet classification thresholds
(evaluation.py:513-541: ``if mask.sum() > 0:`` a tensor in a Python ``if``,
``neg_scores[mask].max()``) and accuracy (evaluation.py:576-580:
``.sum().item()``).  The control is ``ComplExModel.forward`` with hand-made
negatives and ``BinaryCrossEntropyLoss`` (embedding lookups and products; the
only Python decision, ``int(negative_heads.shape[0] / negative_relations.
shape[0])`` in models/interfaces.py:70-76, reads shapes).

Global state on import: neither library changes torch's global state (default
dtype and device, grad mode, threads, torch-function modes, deterministic flag,
matmul precision, print options, anomaly mode), the warning filters or the
logging configuration.  ``import torchdeq`` imports no third-party package beyond
torch and numpy; ``import torchkge`` imports pandas and tqdm (``tqdm.autonotebook``)
eagerly.  No row prints: every tqdm bar on these paths is disabled
(``verbose=False``) or absent.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

TORCHDEQ = ("torchdeq", "0.1.0")
TORCHKGE = ("torchkge", "0.17.7")


# --- torchdeq --------------------------------------------------------------------------


class _R15aDEQNet(nn.Module):
    """x (B, 6) -> injection (B, 16); the DEQ layer z = drop(tanh(cell(z) + inj)) solved
    from z0 = 0 by a torchdeq DEQ core; a linear head on the last returned state.
    ``reset_deq(self)`` at the start of every forward recomputes the weight-normed
    cell weight and clears the variational dropout mask, as torchdeq asks."""

    def __init__(self, deq_kwargs: dict, weight_norm: bool = False, dropout: float = 0.0) -> None:
        super().__init__()
        from torchdeq import get_deq
        from torchdeq.dropout import VariationalDropout
        from torchdeq.norm import apply_norm

        self.inject = nn.Linear(6, 16)
        self.cell = nn.Linear(16, 16, bias=False)
        with torch.no_grad():
            self.cell.weight.mul_(0.5)  # keep the layer contractive
        self.drop = VariationalDropout(dropout) if dropout > 0 else nn.Identity()
        self.head = nn.Linear(16, 3)
        if weight_norm:
            apply_norm(self, "weight_norm", filter_out=["inject", "head"])
        self.deq = get_deq(**deq_kwargs)

    def forward(self, x: torch.Tensor) -> tuple[Any, ...]:
        from torchdeq import reset_deq

        reset_deq(self)
        inj = self.inject(x)

        def f(z: torch.Tensor) -> torch.Tensor:
            return self.drop(torch.tanh(self.cell(z) + inj))

        z_out, info = self.deq(f, torch.zeros_like(inj))
        return self.head(z_out[-1]), list(z_out), info["nstep"], info["abs_lowest"], info["rel_lowest"]


class _R15aMultiDEQNet(nn.Module):
    """A two-tensor DEQ state (z1 (B, 16), z2 (B, 2, 4)) for torchdeq's MDEQ wrapper:
    z1 = tanh(a(z1) + b(z2) + inj1), z2 = tanh(c(z1) + inj2); solved by Anderson
    (DEQIndexing, implicit differentiation in training), spectral radius estimated at
    evaluation (``sradius_mode=True``)."""

    def __init__(self) -> None:
        super().__init__()
        from torchdeq import get_deq

        self.inject = nn.Linear(6, 24)
        self.a = nn.Linear(16, 16, bias=False)
        self.b = nn.Linear(8, 16, bias=False)
        self.c = nn.Linear(16, 8, bias=False)
        with torch.no_grad():
            for layer in (self.a, self.b, self.c):
                layer.weight.mul_(0.4)
        self.head = nn.Linear(24, 3)
        self.deq = get_deq(
            core="indexing", f_solver="anderson", b_solver="fixed_point_iter", f_max_iter=24, f_tol=1e-5,
            b_max_iter=30, b_tol=1e-6, ift=True,
        )

    def forward(self, x: torch.Tensor) -> tuple[Any, ...]:
        inj = self.inject(x)
        inj1, inj2 = inj[:, :16], inj[:, 16:]
        bsz = x.shape[0]

        def f(z1: torch.Tensor, z2: torch.Tensor) -> list[torch.Tensor]:
            n1 = torch.tanh(self.a(z1) + self.b(z2.reshape(bsz, 8)) + inj1)
            n2 = torch.tanh(self.c(z1) + inj2).reshape(bsz, 2, 4)
            return [n1, n2]

        z0 = [torch.zeros(bsz, 16), torch.zeros(bsz, 2, 4)]
        z_out, info = self.deq(f, z0, sradius_mode=True)
        z1, z2 = z_out[-1]
        logits = self.head(torch.cat([z1, z2.reshape(bsz, 8)], dim=1))
        return logits, z1, z2, info["nstep"], info["abs_lowest"], info["sradius"]


def _r15a_deq_sliced_fixed_point(training: bool) -> Built:
    net = _R15aDEQNet(
        dict(core="sliced", f_solver="fixed_point_iter", f_max_iter=30, f_tol=1e-4, n_states=2, grad=2),
        weight_norm=True, dropout=0.1,
    )
    return net, (torch.randn(4, 6),), {}


def _r15a_deq_indexing_anderson_ift(training: bool) -> Built:
    return _R15aMultiDEQNet(), (torch.randn(4, 6),), {}


class _R15aCell(nn.Module):
    """z -> tanh(w(z) + u(x)): the function whose fixed point the solver seeks."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Linear(16, 16, bias=False)
        self.u = nn.Linear(6, 16)
        with torch.no_grad():
            self.w.weight.mul_(0.6)

    def forward(self, z: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.w(z) + self.u(x))


def _r15a_broyden_run(cell: nn.Module, x: torch.Tensor) -> tuple[Any, ...]:
    from torchdeq.solver import get_solver

    solver = get_solver("broyden")
    z_star, _, info = solver(lambda z: cell(z, x), torch.zeros(x.shape[0], 16), max_iter=20, tol=1e-5, ls=True)
    return z_star, info["abs_lowest"], info["rel_lowest"], info["nstep"], info["abs_trace"]


def _r15a_deq_broyden_line_search(training: bool) -> Built:
    import torchdeq.solver  # noqa: F401

    return _r15a_broyden_run, (_R15aCell(), torch.randn(4, 6)), {}


def _r15a_mse(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return ((a - b) ** 2).mean()


def _r15a_fp_correction_run(z1: torch.Tensor, z2: torch.Tensor, z3: torch.Tensor, y: torch.Tensor) -> tuple[Any, ...]:
    from torchdeq.loss import fp_correction

    loss, values = fp_correction(_r15a_mse, ([z1, z2, z3], y), weight_func="exp", return_loss_values=True, gamma=0.8)
    return loss, values


def _r15a_deq_fp_correction(training: bool) -> Built:
    import torchdeq.loss  # noqa: F401

    y = torch.randn(4, 16)
    states = [y + torch.randn(4, 16) * s for s in (1.0, 0.5, 0.25)]
    return _r15a_fp_correction_run, (*states, y), {}


def _r15a_deq_simple_fp_control(training: bool) -> Built:
    net = _R15aDEQNet(dict(core="sliced", f_solver="simple_fixed_point_iter", f_max_iter=12, grad=2))
    return net, (torch.randn(4, 6),), {}


# --- torchkge --------------------------------------------------------------------------


def _r15a_kg(triples: list[tuple[int, int, int]], n_ent: int, n_rel: int) -> Any:
    """A torchkge KnowledgeGraph over entities 0..n_ent-1 and relations 0..n_rel-1
    from (head, tail, relation) triples (``evaluate_dicts`` runs in the builder)."""
    from torchkge import KnowledgeGraph

    t = torch.tensor(triples, dtype=torch.long)
    return KnowledgeGraph(
        kg={"heads": t[:, 0].clone(), "tails": t[:, 1].clone(), "relations": t[:, 2].clone()},
        ent2ix={f"e{i}": i for i in range(n_ent)}, rel2ix={f"r{i}": i for i in range(n_rel)},
    )


def _r15a_random_triples(n: int, n_ent: int, rels: list[int]) -> list[tuple[int, int, int]]:
    """n distinct (head, tail, relation) triples drawn from the builder's seeded generator,
    with several tails per (head, relation) so that filtered ranks differ from raw ones."""
    seen: list[tuple[int, int, int]] = []
    while len(seen) < n:
        h = int(torch.randint(0, n_ent // 2, ()).item())
        t = int(torch.randint(0, n_ent, ()).item())
        r = rels[int(torch.randint(0, len(rels), ()).item())]
        if (h, t, r) not in seen and h != t:
            seen.append((h, t, r))
    return seen


def _r15a_kge_bernoulli_step_run(model: Any, criterion: Any, sampler: Any, h: torch.Tensor, t: torch.Tensor,
                                 r: torch.Tensor) -> tuple[Any, ...]:
    n_h, n_t = sampler.corrupt_batch(h, t, r, n_neg=2)
    pos, neg = model(h, t, r, n_h, n_t)
    return criterion(pos, neg), n_h, n_t


def _r15a_kge_bernoulli_transh_margin(training: bool) -> Built:
    from torchkge.models import TransHModel
    from torchkge.sampling import BernoulliNegativeSampler
    from torchkge.utils import MarginLoss

    kg = _r15a_kg(_r15a_random_triples(16, 10, [0, 1, 2]), 10, 3)
    sampler = BernoulliNegativeSampler(kg)
    model = TransHModel(8, 10, 3)
    return _r15a_kge_bernoulli_step_run, (model, MarginLoss(1.0), sampler, kg.head_idx[:8], kg.tail_idx[:8],
                                          kg.relations[:8]), {}


def _r15a_kge_link_prediction_run(model: Any, kg: Any) -> tuple[Any, ...]:
    from torchkge.evaluation import LinkPredictionEvaluator

    evaluator = LinkPredictionEvaluator(model, kg)
    evaluator.evaluate(b_size=8, verbose=False)
    return (
        evaluator.rank_true_heads.clone(), evaluator.rank_true_tails.clone(),
        evaluator.filt_rank_true_heads.clone(), evaluator.filt_rank_true_tails.clone(),
        evaluator.mrr(), evaluator.hit_at_k(k=3), evaluator.mean_rank(),
    )


def _r15a_kge_link_prediction_filtered(training: bool) -> Built:
    from torchkge.models import DistMultModel

    kg = _r15a_kg(_r15a_random_triples(20, 10, [0, 1, 2]), 10, 3)
    return _r15a_kge_link_prediction_run, (DistMultModel(8, 10, 3), kg), {}


def _r15a_kge_triplet_classification_run(evaluator: Any) -> tuple[Any, ...]:
    evaluator.evaluate(b_size=6)
    accuracy = evaluator.accuracy(b_size=6)
    return evaluator.thresholds.clone(), accuracy


def _r15a_kge_triplet_classification(training: bool) -> Built:
    from torchkge.evaluation import TripletClassificationEvaluator
    from torchkge.models import ConvKBModel

    val = _r15a_kg(_r15a_random_triples(14, 10, [0, 1, 2]), 10, 4)
    # The test graph also uses relation 3, which the validation graph never does.
    test = _r15a_kg(_r15a_random_triples(10, 10, [0, 1, 2, 3]), 10, 4)
    model = ConvKBModel(8, 3, 10, 4)
    return _r15a_kge_triplet_classification_run, (TripletClassificationEvaluator(model, val, test),), {}


def _r15a_kge_complex_bce_run(model: Any, criterion: Any, h: torch.Tensor, t: torch.Tensor, r: torch.Tensor,
                              n_h: torch.Tensor, n_t: torch.Tensor) -> tuple[Any, ...]:
    pos, neg = model(h, t, r, n_h, n_t)
    return criterion(pos, neg), pos, neg


def _r15a_kge_complex_bce_control(training: bool) -> Built:
    from torchkge.models import ComplExModel
    from torchkge.utils import BinaryCrossEntropyLoss

    h = torch.randint(0, 10, (8,))
    t = torch.randint(0, 10, (8,))
    r = torch.randint(0, 3, (8,))
    # Two negatives per fact, corrupted by hand (no sampler): heads in the first half, tails in the second.
    n_h = torch.cat([torch.randint(0, 10, (8,)), h])
    n_t = torch.cat([t, torch.randint(0, 10, (8,))])
    return _r15a_kge_complex_bce_run, (ComplExModel(8, 10, 3), BinaryCrossEntropyLoss(), h, t, r, n_h, n_t), {}


# --- rows ------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r15a_deq_sliced_fixed_point_weight_norm", *TORCHDEQ,
            "wrapper module: Linear(6, 16) injection; cell Linear(16, 16) weight-normed by torchdeq's apply_norm; "
            "torchdeq VariationalDropout(0.1); get_deq(core='sliced', f_solver='fixed_point_iter', f_max_iter=30, "
            "f_tol=1e-4, n_states=2, grad=2); reset_deq at each forward; x (4, 6); returns (head logits (4, 3), "
            "returned states, info nstep, abs_lowest, rel_lowest)",
            ("torchdeq",), _r15a_deq_sliced_fixed_point,
            notes="the solver runs under `torch.no_grad` inside the core; in training the gradient comes from the "
            "two phantom-gradient steps per slice (both returned states carry it), and the variational dropout "
            "mask is drawn from torch's global generator (`bernoulli_`), seeded by the harness before each call",
            patterns="`reset_deq` (core.py:696-708) -> `reset_norm` (norm/base_norm.py:143-155: a loop over the "
            "modules with `hasattr(module, '_deq_norm')`) -> `WeightNorm.__call__`/`compute_weight` "
            "(norm/weight_norm.py:66-90, 172-180: `weight_v * g / ||weight_v||` per row, set as a plain attribute) "
            "and `reset_dropout` (dropout.py:348-357: `mask = None`) -> `DEQSliced.forward` (core.py:561-621): "
            "`deq_decorator` (utils/layer_utils.py:129-131, a `DEQWrapper`); training: `for f_max_iter, "
            "produce_grad in zip([15, 15], ...)` (`_compute_f_iter`, core.py:521-523: `f_max_iter // n_states` "
            "per slice) -> "
            "`_solve_fixed_point` (core.py:552: `torch.no_grad()`) -> `fixed_point_iter` (solver/fp_iter.py:9-85: "
            "per step the layer (`VariationalDropout.forward`, dropout.py:54-73: `if self.mask is None: "
            "self.reset_mask(x)` on the first call, `zeros(*x.shape).bernoulli_(0.9)`), `batch_flatten(...)."
            "norm(dim=1)` residuals, `update_state` (solver/utils.py:92-129: `is_lowest = (diff < lowest) + "
            "return_final`, `batch_masked_mixing` (mask * new + ~mask * old), `clone().detach()`), `if not "
            "return_final and trace_dict[stop_mode][-1].max() < tol:` (fp_iter.py:74, a tensor in a Python `if`; "
            "breaks at step 10 of 15 in the first slice, at step 1 in the second), the trace padded with the "
            "lowest values, `SolverStat.from_solver_info` (solver/stat.py:42-62: `torch.stack` of the traces)) -> "
            "`deq_func.detach` -> the phantom gradient `grad_func` (grad.py:211-215: two layer calls with grad, "
            "`tau == 1.0` tested in Python) -> the second slice resumes from `z_out[-1]`; evaluation: one solve "
            "with `eval_f_max_iter` 30 (breaks at step 9), `info['sradius'] = torch.zeros(1)`",
        ),
        Row(
            "r15a_deq_indexing_anderson_ift_sradius", *TORCHDEQ,
            "wrapper module: a two-tensor DEQ state (z1 (4, 16), z2 (4, 2, 4)) coupled through three Linear maps "
            "and an injection Linear(6, 24); get_deq(core='indexing', f_solver='anderson', f_max_iter=24, "
            "f_tol=1e-5, b_solver='fixed_point_iter', b_max_iter=30, b_tol=1e-6, ift=True); called with "
            "sradius_mode=True; x (4, 6); returns (head logits, z1, z2, info nstep, abs_lowest, sradius)",
            ("torchdeq",), _r15a_deq_indexing_anderson_ift,
            notes="in inference the spectral radius is estimated by the power method (`torch.randn_like` start "
            "from torch's global generator, seeded by the harness before each call; 100 `autograd.grad` calls "
            "under `enable_grad` even inside `torch.no_grad`, about 0.7 s); in training the gradient reaches "
            "the parameters through the one-step `func(z_pred)` and the implicit-differentiation backward",
            patterns="`DEQIndexing.forward` (core.py:338-405) -> `deq_decorator` (utils/layer_utils.py:129-139: a "
            "list state with statistics on -> `MDEQWrapper`: `np.cumsum` of the flattened sizes, `list2vec` "
            "(flatten, `cat`) and `vec2list` (slices at numpy-integer offsets, `view`) around every layer call) "
            "-> `_solve_fixed_point` (core.py:301-336, under `torch.no_grad()`, `indexing=[24]` in training) -> "
            "`anderson_solver` (solver/anderson.py:14-120: preallocated `X`/`F`/`H` histories written by index, "
            "`for k in range(2, max_iter)`: `torch.bmm`, `torch.linalg.solve` of the (m+1)-square system, mixing, "
            "`update_state` masks, `if indexing and (k+1) in indexing` (Python ints), `if not return_final and "
            "trace_dict[stop_mode][-1].max() < tol:` (anderson.py:107, a tensor in a Python `if`; breaks at step "
            "22 of 24, so the trajectory falls back to `indexing_list.append(lowest_xest)`)); training: "
            "`func_ift` (grad.py:179-181: one layer call with grad, `IFTGrad.apply`) whose backward (grad.py:"
            "162-178: `clone().detach().requires_grad_()`, the layer again under `enable_grad`, `grad_f = lambda "
            "x: autograd.grad(f, h, x, retain_graph=True)[0] + grad`, `fixed_point_iter(grad_f, zeros_like(grad), "
            "max_iter=30, tol=1e-6)`: the convergence `if` again, breaking at step 14) runs inside "
            "`backward()`; evaluation: `_sradius` (core.py:111-126: `z_star.requires_grad_()`, the layer under "
            "`enable_grad`) -> `power_method` (loss/jacobian.py:34-52: `for i in range(100)`: `autograd.grad(f0, "
            "z0, evector, retain_graph=(i < 99))`, Rayleigh quotient, renormalization) -> `torch.abs(evalue)`",
        ),
        Row(
            "r15a_deq_broyden_line_search", *TORCHDEQ,
            "wrapper: torchdeq.solver.get_solver('broyden')(lambda z: cell(z, x), zeros (4, 16), max_iter=20, "
            "tol=1e-5, ls=True) with cell z -> tanh(Linear(16, 16)(z) + Linear(6, 16)(x)); x (4, 6); returns "
            "(fixed point, info abs_lowest, rel_lowest, nstep, abs_trace)",
            ("torchdeq",), _r15a_deq_broyden_line_search, modes=INFERENCE,
            notes="inference only: a torchdeq solver is meant to run under `torch.no_grad` (the DEQ cores always "
            "call it so), and it is not differentiable as written: Broyden's rank-one history `Us`/`VTs` is "
            "written in place (`VTs[:, k] = vT`) after views of it were used by `matvec`, so a backward through "
            "the solver fails autograd's version check ('modified by an inplace operation')",
            patterns="`get_solver` (solver/__init__.py: `assert key in _solvers`) -> `broyden_solver` "
            "(solver/broyden.py:122-234): `batch_flatten`, `g = lambda y: func(y.view_as(x0)).reshape_as(y) - y`, "
            "preallocated `Us`/`VTs`, `matvec` (`if part_Us.nelement() == 0: return -x`, a shape test, then "
            "einsums) -> `while nstep < max_iter:` -> `line_search` (broyden.py:63-97: `tmp_phi = [torch.norm(g0)"
            "**2]`, `scalar_search_armijo` (broyden.py:21-60: `phi(1)` -> `if s == tmp_s[0]` (Python 1 == 0), "
            "`_safe_norm` (broyden.py:15-18: `if not torch.isfinite(v).all(): return np.inf`, a tensor in a "
            "Python `if`), then `if phi_a0 <= phi0 + c1*alpha0*derphi0:` (a tensor in a Python `if`; the full step "
            "is accepted at every one of the 9 iterations here, so the cubic-interpolation `while alpha1 > amin:` "
            "loop is not entered), back in `line_search` `if s == tmp_s[0]:` (s a Python 1, tmp_s a Python 1 "
            "after `phi` stored it) reuses the stored residual) -> `update_state` masks -> `new_objective = "
            "trace_dict[stop_mode][-1].max()`, `if not return_final and new_objective < tol: break` (broyden.py:"
            "204, a tensor in a Python `if`; breaks at step 9 of 20) -> the Broyden update: `rmatvec`/`matvec` "
            "einsums, `vT[vT != vT] = 0` and `u[u != u] = 0` (broyden.py:218-219, boolean-mask setitems), "
            "`VTs[:, (nstep-1) % LBFGS_thres] = vT` and `Us[...] = u` index setitems -> the trace padded to "
            "max_iter + 1 -> `SolverStat.from_solver_info`",
        ),
        Row(
            "r15a_deq_fp_correction_loss_values", *TORCHDEQ,
            "wrapper: torchdeq.loss.fp_correction(mse, ([z1, z2, z3], y), weight_func='exp', "
            "return_loss_values=True, gamma=0.8) on three (4, 16) states converging to a target y (4, 16); returns "
            "(weighted loss, list of the three per-state loss values)",
            ("torchdeq",), _r15a_deq_fp_correction, frozen=("3",),
            notes="the criterion is a hand-written mean squared error; in training the three states require grad "
            "and the target y is frozen",
            patterns="`fp_correction` (loss/correction.py:66-115): `_align_list` (type tests, the longest list "
            "gives max_len = 3; the single target is reused by `_get_idx`'s modulo), `_get_weight_func('exp')`, "
            "`loss = 0.0` then per state `i_weight = gamma ** (n-k-1)` (a Python float), `i_loss = crit(...)`, "
            "`loss += i_weight * i_loss`, `loss_list.append(i_loss.item())` (correction.py:110: each state's "
            "loss value read into Python)",
        ),
        Row(
            "r15a_deq_simple_fixed_point_control", *TORCHDEQ,
            "wrapper module: Linear(6, 16) injection; cell Linear(16, 16); get_deq(core='sliced', "
            "f_solver='simple_fixed_point_iter', f_max_iter=12, grad=2); x (4, 6); returns (head logits (4, 3), "
            "returned states, info nstep, abs_lowest, rel_lowest)",
            ("torchdeq",), _r15a_deq_simple_fp_control,
            notes="in training the model's parameters and x get the gradient through the two phantom-gradient "
            "steps",
            patterns="control: no tensor value reaches Python. `reset_deq` (no norm, no dropout: `hasattr` and "
            "`isinstance` loops over the modules) -> `DEQSliced.forward` (core.py:561-621; statistics off because "
            "the solver is `simple_fixed_point_iter`, core.py:92-94) -> `_compute_f_iter` ([12], from "
            "`np.diff(...).tolist()` of Python ints) -> `_solve_fixed_point` under `torch.no_grad()` -> "
            "`simple_fixed_point_iter` (solver/fp_iter.py:88-131: a fixed `for k in range(12)` of layer calls, "
            "`DEQWrapper.__call__` testing the Python float `tau == 1.0`) -> `solver_stat_from_final_step` "
            "(solver/stat.py:65-91: residual norms of the last step, `nstep * torch.ones(B)`) -> in training the "
            "phantom gradient `grad_func` (grad.py:211-215, two layer calls); in evaluation "
            "`info['sradius'] = torch.zeros(1)`",
        ),
        Row(
            "r15a_kge_bernoulli_transh_margin_step", *TORCHKGE,
            "wrapper (torchkge's training-loop step): n_h, n_t = BernoulliNegativeSampler(kg).corrupt_batch(h, t, "
            "r, n_neg=2); pos, neg = TransHModel(emb_dim=8, 10 entities, 3 relations)(h, t, r, n_h, n_t); "
            "MarginLoss(1.0)(pos, neg); a batch of 8 facts of a 16-fact graph; returns (loss, n_h, n_t)",
            ("torchkge",), _r15a_kge_bernoulli_transh_margin,
            notes="the sampler (its per-relation probabilities computed through pandas in the builder) draws "
            "from torch's global generator (`bernoulli`, `randint`), seeded by the harness before each call; in "
            "training the model's embeddings and normal vectors get the gradient (the indices are integer)",
            patterns="`BernoulliNegativeSampler.corrupt_batch` (sampling.py:278-327): `assert device == "
            "tails.device`, `heads.repeat(2)`, `self.bern_probs = self.bern_probs.to(device)` (an attribute "
            "write), `mask = bernoulli(self.bern_probs[relations].repeat(2)).double()`, `n_h_cor = "
            "int(mask.sum().item())` (sampling.py:319, a tensor value read into Python and used as a size), "
            "`neg_heads[mask == 1] = randint(1, n_ent, (n_h_cor,))` and `neg_tails[mask == 0] = randint(1, "
            "n_ent, (16 - n_h_cor,))` (boolean-mask setitems whose values' sizes come from the data) -> "
            "`Model.forward` (models/interfaces.py:39-82: `if negative_heads.shape[0] > "
            "negative_relations.shape[0]`, `n_neg = int(16 / 8)`, `pos.repeat(2)`) -> `TransHModel."
            "scoring_function` (models/translation.py:183-199: `self.evaluated_projections = False` (an attribute "
            "write), `normalize` of the entity embeddings and normal vectors, hyperplane `project`, "
            "`l2_dissimilarity` with its `assert len(a.shape) == len(b.shape)`) for positives and negatives -> "
            "`MarginLoss.forward` (utils/losses.py:23-44: `MarginRankingLoss(reduction='sum')` with `ones_like` "
            "targets)",
        ),
        Row(
            "r15a_kge_link_prediction_filtered_rank", *TORCHKGE,
            "wrapper: LinkPredictionEvaluator(DistMultModel(emb_dim=8, 10 entities, 3 relations), kg (20 facts))"
            ".evaluate(b_size=8, verbose=False); returns (raw and filtered head and tail ranks, .mrr(), "
            ".hit_at_k(k=3), .mean_rank())",
            ("torchkge",), _r15a_kge_link_prediction_filtered, modes=INFERENCE,
            notes="inference only: the evaluator writes integer ranks into preallocated long tensors and its "
            "metrics are Python floats, so nothing it returns carries a gradient; the evaluator is built inside "
            "the call (cheap: four `empty` tensors) and the graph's filtering dictionaries in the builder",
            patterns="`LinkPredictionEvaluator.evaluate` (evaluation.py:263-308): `next(model.parameters())."
            "is_cuda`, torchkge's `DataLoader` (utils/data.py:83-150: slices of 8, 8 and 4 facts), a disabled "
            "`tqdm`, per batch `DistMultModel.inference_prepare_candidates` (models/bilinear.py:247-266: "
            "embedding lookups, `ent_emb.weight.data` expanded as candidates) and `inference_scoring_function` "
            "(bilinear.py:224-245: shape-length tests, tail then head completion) -> `filter_scores` "
            "(utils/modeling.py:91-100: `for i in range(b_size)` -> `get_true_targets` (modeling.py:76-88: "
            "`dictionary[key1[i].item(), key2[i].item()].copy()`, `true_targets.remove(true_idx[i].item())`, "
            "`if len(true_targets) > 0: return tensor(list(true_targets))` (a set of Python ints read from the "
            "data), a `KeyError` caught as no filter) then `filt_scores[i][true_targets] = -inf` (an index "
            "setitem of data-dependent length)) -> `get_rank` (utils/operations.py:37-61: `gather` of the true "
            "score, `(data >= true_data).sum(dim=1)`) written into `rank_true_*[i * b: (i + 1) * b]` -> "
            "`mrr` (evaluation.py:376-397: `.item()`), `hit_at_k` (evaluation.py:332-374: `hit_at_k_heads`/"
            "`hit_at_k_tails`, `.item()`), `mean_rank` (evaluation.py:310-330: `.item()`)",
        ),
        Row(
            "r15a_kge_triplet_classification_accuracy", *TORCHKGE,
            "wrapper: TripletClassificationEvaluator(ConvKBModel(emb_dim=8, n_filters=3, 10 entities, 4 "
            "relations), kg_val (14 facts, relations 0-2), kg_test (10 facts, relations 0-3)); .evaluate(b_size=6); "
            ".accuracy(b_size=6); returns (per-relation thresholds (4,), accuracy)",
            ("torchkge",), _r15a_kge_triplet_classification, modes=INFERENCE,
            notes="inference only: the thresholds are detached in place (`thresholds.detach_()`) and the "
            "accuracy is a Python float; the evaluator (whose PositionalNegativeSampler computes its "
            "probabilities through pandas and its possible heads and tails with `.item()` loops) is built in the "
            "builder, and the call runs `evaluate` itself (it rebuilds the thresholds from zeros every time), so "
            "calls repeat; the sampler draws from torch's global generator, seeded by the harness",
            patterns="`TripletClassificationEvaluator.evaluate` (evaluation.py:513-541) -> "
            "`PositionalNegativeSampler.corrupt_kg(6, False, which='main')` (sampling.py:76-138: a loop over "
            "torchkge `DataLoader` batches of the validation graph) -> `corrupt_batch` (sampling.py:428-504: "
            "`bernoulli(self.bern_probs[relations])`, `n_heads_corrupted = int(mask.sum().item())`, "
            "`self.n_poss_heads[relations[mask == 1]]` (boolean-mask reads), `assert n_poss_heads.shape[0] == "
            "n_heads_corrupted`, `(n_poss * rand(n)).floor().long()`, then `for i in range(n_heads_corrupted)` "
            "and `for i in range(batch_size - n_heads_corrupted)` (data-dependent trip counts): `r = "
            "rels[i].item()`, `choices = self.possible_heads[r]`, `if len(choices) == 0: "
            "randint(...).item()` (taken for relation 3, which the validation graph lacks, in `accuracy`) else "
            "`choices[choice_heads[i].item()]`; `neg_heads[mask == 1] = tensor(corr)`) -> `get_scores` "
            "(evaluation.py:479-511: `SmallKG`, batches, `ConvKBModel.scoring_function` (models/deep.py:63-75: "
            "embeddings, `cat`, Conv1d, ReLU, Linear, Softmax, `[:, 1]`), `cat`) -> `thresholds = zeros(4)`, `for i "
            "in range(4)`: `mask = (r_idx == i).bool()`, `if mask.sum() > 0:` (evaluation.py:535, a tensor in a "
            "Python `if`; false for relation 3) `thresholds[i] = neg_scores[mask].max()` (a boolean-mask read) "
            "else `neg_scores.max()` -> `detach_()`; `accuracy` (evaluation.py:543-580): `corrupt_kg(which="
            "'test')` (the loops above over the test graph), `get_scores` of positives and negatives, "
            "`scores > self.thresholds[r_idx]`, `(scores.sum().item() + neg_scores.sum().item()) / (2 * n)`",
        ),
        Row(
            "r15a_kge_complex_bce_control", *TORCHKGE,
            "wrapper: pos, neg = ComplExModel(emb_dim=8, 10 entities, 3 relations)(h, t, r, n_h, n_t) with 8 facts "
            "and 16 hand-corrupted negatives (heads for the first 8, tails for the last 8); "
            "BinaryCrossEntropyLoss()(pos, neg); returns (loss, pos, neg)",
            ("torchkge",), _r15a_kge_complex_bce_control,
            notes="no sampler: the negatives are drawn in the builder; in training the four embedding tables get "
            "the gradient",
            patterns="control: no tensor value reaches Python. `Model.forward` (models/interfaces.py:39-82: "
            "`negative_heads.shape[0] > negative_relations.shape[0]` and `n_neg = int(16 / 8)`, shapes only, "
            "`pos.repeat(2)`, `negative_relations.repeat(2)`) -> `ComplExModel.scoring_function` "
            "(models/bilinear.py:460-473: real and imaginary embedding lookups, the real part of the Hermitian "
            "product) twice -> `BinaryCrossEntropyLoss.forward` (utils/losses.py:90-112: `Sigmoid`, "
            "`BCELoss(reduction='sum')` against `ones_like`/`zeros_like`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round fifteen (r15a)")
