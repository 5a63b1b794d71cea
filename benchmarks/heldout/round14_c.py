"""Held-out round fourteen (r14c): evotorch and pytorch-frame.

Chosen by reading each library's source, written down in ROUND14.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The evotorch rows never start ray (``num_actors`` left unset: single process).
A search algorithm keeps state (its distribution, population, the problem's
best-so-far), so each searcher row builds its ``Problem`` (with ``seed=0``: the
problem's own ``torch.Generator``, which every sample and operator draws from)
and its searcher inside the call and steps it three times: every call starts
from the same state.  The data-dependent code: ``Problem.evaluate`` ->
``Problem._get_best_and_worst`` (core.py:2330-2399: ``if first_is_better(
best_score, self._best_evals[i_obj], i_obj):`` a 0-d tensor comparison in a
Python ``if``, then ``float(self._best[0].evals[0])``), run on every
evaluation of SNES and the genetic algorithm; ``Problem.__init__`` logs four
INFO lines through the ``evotorch`` logger; ``SolutionBatch.utility`` (core.py:
4270: ``if torch.any(torch.isnan(evdata)): raise ValueError``); the genetic
operators' boolean masks (``SimulatedBinaryCrossOver._do_cross_over``,
operators/real.py:461: ``betas[u > 0.5] = ...``; ``GaussianMutation._do``,
real.py:63: ``data[mutation_matrix] += stdev * make_gaussian_shaped_like(
data[mutation_matrix])``, the number of Gaussian draws being the mask's count);
the NSGA-II pareto ranking (core.py:3463-3563: ``while unranked.any():`` with
boolean-mask setitems and a crowding distance of ``utils[new_non_dominated]``
per front, then ``_pareto_sort``'s ``for front_idx in range(torch.amax(ranks) +
1)`` with ``torch.argwhere(ranks == front_idx)``).  The control is the
functional PGPE with ClipUp (``evotorch.algorithms.functional``: sampling,
centered ranking by ``argsort`` and index setitem, the symmetric gradient, the
ClipUp step's three-argument ``torch.where``; only shapes and ints reach
Python), which also has a gradient path from ``center_init``.

The pytorch-frame rows build a tiny ``TensorFrame`` by hand with NaN (-1 for
integer stypes) where the library imputes, and hand-written column stats
(nothing from ``torch_frame.datasets``).  The data-dependent code:
``EmbeddingEncoder.encode_forward`` (nn/encoder/stype_encoder.py:305-311:
``feat[na_mask] = 0``, a boolean-mask setitem); ``StypeEncoder.na_forward`` for
3-D timestamp features (stype_encoder.py:239-244: ``for col, fill_value in
enumerate(self.fill_values)`` over a tensor, ``col_data[col_na_mask] =
fill_value``), then ``PositionalEncoding``/``CyclicEncoding``'s ``assert
torch.all(...)`` (nn/encoding/*.py); ``MultiNestedTensor.fillna_col`` and the
column select ``feat[:, i]`` (data/multi_nested_tensor.py:238-290 and
data/multi_tensor.py:363-398: ``_batched_arange``'s ``repeat_interleave(count,
output_size=ptr[-1])``, a size read from the data, and ``values_col[values_col
== -1] = fill_value``); ``ExcelFormer``'s HIDDEN-MIX (``feature_mixup``:
``torch.distributions.Beta`` whose argument validation runs ``if not
torch._is_all_true(valid): raise ValueError`` in torch.distributions, ``randperm``);
``CatToNumTransform._forward`` (transforms/fittable_base_transform.py:32-61:
``if nan_mask.all(): raise``, ``if not nan_mask.any(): continue``, boolean-mask
setitem; cat_to_num_transform.py:112: ``if ... tf.y.max() > 1:``).  The control
is ``ResNet`` over a numerical-only frame with a ``LinearEncoder`` (no NaN
strategy: ``nan_to_num``, linear, residual MLP blocks).

Global state on import: neither library changes torch's global state (default
dtype and device, grad mode, threads, torch-function modes, deterministic flag,
matmul precision, print options).  ``import evotorch`` imports ray, gymnasium,
matplotlib, scipy, pandas and cma eagerly, adds thirteen warning filters and
configures logging: the ``evotorch`` logger gets level INFO, two handlers and
``propagate=False`` (``set_default_logger_config``, evotorch/__init__.py:53),
the ``ray`` logger INFO with one handler; ``import torch_frame`` (which imports
pandas, pyarrow and PIL) changes neither the warning filters nor logging.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

EVOTORCH = ("evotorch", "0.6.1")
PYTORCH_FRAME = ("pytorch-frame", "0.3.0")

EVO_NO_GRAD = (
    "inference only: a searcher samples into the population's preallocated storage in place and evaluates "
    "under `torch.no_grad()`-decorated bookkeeping, so no output is connected to any input by autograd"
)


# --- evotorch --------------------------------------------------------------------------


def _r14c_sphere(x: torch.Tensor) -> torch.Tensor:
    return (x * x).sum(dim=-1)


def _r14c_evo_snes_run(center: torch.Tensor) -> tuple[Any, ...]:
    from evotorch import Problem
    from evotorch.algorithms import SNES

    problem = Problem("min", _r14c_sphere, solution_length=8, initial_bounds=(-3.0, 3.0), vectorized=True, seed=0)
    searcher = SNES(problem, popsize=16, center_init=center, stdev_init=1.0)
    for _ in range(3):
        searcher.step()
    status = searcher.status
    return (
        status["center"].as_subclass(torch.Tensor).clone(),
        status["stdev"].as_subclass(torch.Tensor).clone(),
        searcher.population.evals.as_subclass(torch.Tensor).clone(),
        status["best_eval"],
    )


def _r14c_evo_snes_step(training: bool) -> Built:
    import evotorch.algorithms  # noqa: F401  (imported here, not in the timed call)

    return _r14c_evo_snes_run, (torch.randn(8),), {}


def _r14c_evo_ga_run(target: torch.Tensor) -> tuple[Any, ...]:
    from evotorch import Problem
    from evotorch.algorithms import GeneticAlgorithm
    from evotorch.operators import GaussianMutation, SimulatedBinaryCrossOver

    def fitness(x: torch.Tensor) -> torch.Tensor:
        return ((x - target) ** 2).sum(dim=-1)

    problem = Problem(
        "min", fitness, solution_length=8, initial_bounds=(-3.0, 3.0), bounds=(-5.0, 5.0), vectorized=True, seed=0,
    )
    ga = GeneticAlgorithm(
        problem, popsize=16,
        operators=[
            SimulatedBinaryCrossOver(problem, tournament_size=4, eta=8.0),
            GaussianMutation(problem, stdev=0.3, mutation_probability=0.3),
        ],
    )
    for _ in range(3):
        ga.step()
    return (
        ga.population.values.as_subclass(torch.Tensor).clone(),
        ga.population.evals.as_subclass(torch.Tensor).clone(),
        ga.status["best_eval"],
    )


def _r14c_evo_ga_sbx_mutation(training: bool) -> Built:
    import evotorch.algorithms  # noqa: F401
    import evotorch.operators  # noqa: F401

    return _r14c_evo_ga_run, (torch.randn(8),), {}


def _r14c_evo_pareto_run(problem: Any, values: torch.Tensor, evals: torch.Tensor) -> tuple[Any, ...]:
    from evotorch import SolutionBatch

    batch = SolutionBatch(problem, popsize=values.shape[0], empty=True)
    batch.set_values(values)
    batch.set_evals(evals)
    info = batch.arg_pareto_sort()
    best = batch.take_best(5)
    return (
        [f.clone() for f in info.fronts],
        info.ranks.clone(),
        best.values.as_subclass(torch.Tensor).clone(),
        best.evals.as_subclass(torch.Tensor).clone(),
    )


def _r14c_evo_pareto_sort(training: bool) -> Built:
    from evotorch import Problem

    problem = Problem(["min", "max"], _r14c_sphere, solution_length=8, initial_bounds=(-1.0, 1.0), vectorized=True)
    values = torch.randn(16, 8)
    # Rounded objectives so that some solutions tie and several fronts form.
    evals = torch.round(torch.stack([torch.rand(16), torch.rand(16)], dim=-1) * 4.0) / 4.0
    return _r14c_evo_pareto_run, (problem, values, evals), {}


def _r14c_evo_pgpe_run(center: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    from evotorch.algorithms.functional import pgpe, pgpe_ask, pgpe_tell

    state = pgpe(
        center_init=center, center_learning_rate=0.5, stdev_learning_rate=0.1, objective_sense="min",
        stdev_init=1.0, optimizer="clipup",
    )
    for _ in range(3):
        values = pgpe_ask(state, popsize=16)
        state = pgpe_tell(state, values, _r14c_sphere(values))
    return state.optimizer_state.center, state.stdev


def _r14c_evo_func_pgpe_control(training: bool) -> Built:
    import evotorch.algorithms.functional  # noqa: F401

    return _r14c_evo_pgpe_run, (torch.randn(8),), {}


# --- pytorch-frame ---------------------------------------------------------------------


def _r14c_tf_num_stats(n: int) -> list[dict]:
    from torch_frame.data.stats import StatType

    return [
        {StatType.MEAN: 0.1 * i, StatType.STD: 1.0 + 0.1 * i, StatType.QUANTILES: [-2.0, -0.6, 0.0, 0.6, 2.0]}
        for i in range(n)
    ]


def _r14c_tf_num_cat_frame() -> tuple[Any, dict]:
    """A (6 rows) frame: 3 numerical columns with 2 NaN, 2 categorical columns
    (3 categories) with 2 missing (-1), and a 3-class target."""
    from torch_frame import TensorFrame, stype
    from torch_frame.data.stats import StatType

    num = torch.randn(6, 3)
    num[1, 0] = float("nan")
    num[4, 2] = float("nan")
    cat = torch.randint(0, 3, (6, 2))
    cat[2, 1] = -1
    cat[5, 1] = -1
    cols = {stype.numerical: ["n0", "n1", "n2"], stype.categorical: ["c0", "c1"]}
    tf = TensorFrame({stype.numerical: num, stype.categorical: cat}, cols, y=torch.tensor([0, 1, 2, 1, 0, 2]))
    col_stats = dict(zip(cols[stype.numerical], _r14c_tf_num_stats(3)))
    for c in cols[stype.categorical]:
        col_stats[c] = {StatType.COUNT: (["a", "b", "c"], [3, 2, 1])}
    return tf, col_stats


def _r14c_tf_fttransformer(training: bool) -> Built:
    from torch_frame import NAStrategy, stype
    from torch_frame.nn.encoder import EmbeddingEncoder, LinearEncoder
    from torch_frame.nn.models import FTTransformer

    tf, col_stats = _r14c_tf_num_cat_frame()
    model = FTTransformer(
        channels=8, out_channels=3, num_layers=1, col_stats=col_stats, col_names_dict=tf.col_names_dict,
        stype_encoder_dict={
            stype.numerical: LinearEncoder(na_strategy=NAStrategy.MEAN),
            stype.categorical: EmbeddingEncoder(),
        },
    )
    return model, (tf,), {}


def _r14c_tf_timestamp_stats() -> list[dict]:
    from torch_frame.data.stats import StatType

    return [
        {
            StatType.YEAR_RANGE: [2000, 2011],
            StatType.NEWEST_TIME: torch.tensor([2011, 11, 27, 6, 23, 59, 59]),
            StatType.OLDEST_TIME: torch.tensor([2000, 0, 0, 0, 0, 0, 0]),
            StatType.MEDIAN_TIME: torch.tensor([2005 + i, 5, 14, 3, 12, 30, 30]),
        }
        for i in range(2)
    ]


def _r14c_tf_timestamp_encoder(training: bool) -> Built:
    from torch_frame import stype
    from torch_frame.nn.encoder import TimestampEncoder

    encoder = TimestampEncoder(out_channels=8, stats_list=_r14c_tf_timestamp_stats(), stype=stype.timestamp)
    # [6 rows, 2 columns, (year, month, day, dayofweek, hour, minute, second)]
    high = torch.tensor([12, 12, 28, 7, 24, 60, 60])
    ts = (torch.rand(6, 2, 7) * high).long()
    ts[..., 0] += 2000
    ts[3, 0] = -1  # missing timestamps (all seven fields -1)
    ts[0, 1] = -1
    ts[5, 1] = -1
    return encoder, (ts,), {}


def _r14c_tf_multicat_encoder(training: bool) -> Built:
    from torch_frame import NAStrategy, stype
    from torch_frame.data import MultiNestedTensor
    from torch_frame.data.stats import StatType
    from torch_frame.nn.encoder import MultiCategoricalEmbeddingEncoder

    t = torch.tensor
    empty = torch.tensor([], dtype=torch.long)
    feat = MultiNestedTensor.from_tensor_mat([
        [t([0, 2]), t([1])],
        [t([-1]), t([0, 1, 3])],
        [t([1]), empty],
        [t([0, 1]), t([-1, 2])],
        [t([2]), t([0])],
        [empty, t([1, 2, -1])],
    ])
    stats = [{StatType.MULTI_COUNT: (["x", "y", "z"], [4, 3, 2])}, {StatType.MULTI_COUNT: (["p", "q", "r", "s"], [5, 4, 3, 1])}]
    encoder = MultiCategoricalEmbeddingEncoder(
        out_channels=8, stats_list=stats, stype=stype.multicategorical, na_strategy=NAStrategy.ZEROS,
    )
    return encoder, (feat,), {}


def _r14c_tf_excelformer_mixup(training: bool) -> Built:
    from torch_frame import TensorFrame, stype
    from torch_frame.nn.models import ExcelFormer

    num = torch.randn(6, 4)
    num[2, 1] = float("nan")
    cols = {stype.numerical: ["n0", "n1", "n2", "n3"]}
    tf = TensorFrame({stype.numerical: num}, cols, y=torch.tensor([0, 1, 2, 1, 0, 2]))
    model = ExcelFormer(
        in_channels=8, out_channels=3, num_cols=4, num_layers=1, num_heads=2,
        col_stats=dict(zip(cols[stype.numerical], _r14c_tf_num_stats(4))), col_names_dict=tf.col_names_dict,
        mixup="hidden", beta=0.5,
    )
    return model, (tf,), {"mixup_encoded": True}


def _r14c_tf_cat_to_num_run(transform: Any, tf: Any) -> torch.Tensor:
    from torch_frame import stype

    return transform(tf).feat_dict[stype.numerical]


def _r14c_tf_cat_to_num(training: bool) -> Built:
    from torch_frame.transforms import CatToNumTransform

    tf, col_stats = _r14c_tf_num_cat_frame()
    transform = CatToNumTransform()
    transform.fit(tf, col_stats)
    return _r14c_tf_cat_to_num_run, (transform, tf), {}


def _r14c_tf_resnet_control(training: bool) -> Built:
    from torch_frame import TensorFrame, stype
    from torch_frame.nn.encoder import LinearEncoder
    from torch_frame.nn.models import ResNet

    cols = {stype.numerical: ["n0", "n1", "n2", "n3"]}
    tf = TensorFrame({stype.numerical: torch.randn(6, 4)}, cols)
    model = ResNet(
        channels=8, out_channels=3, num_layers=2, col_stats=dict(zip(cols[stype.numerical], _r14c_tf_num_stats(4))),
        col_names_dict=tf.col_names_dict, stype_encoder_dict={stype.numerical: LinearEncoder()},
    )
    return model, (tf,), {}


# --- rows ------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r14c_evo_snes_step_best_worst", *EVOTORCH,
            "wrapper: Problem('min', sphere (vectorized), solution_length=8, initial_bounds=(-3, 3), seed=0); "
            "SNES(problem, popsize=16, center_init=x (8,), stdev_init=1.0); three .step(); returns (status "
            "center, stdev, population evals, status best_eval)",
            ("evotorch",), _r14c_evo_snes_step, modes=INFERENCE,
            notes=EVO_NO_GRAD + "; the problem and searcher are built inside the call (a searcher is stateful), "
            "and every sample is drawn from the problem's own generator (seed=0), so calls repeat bit for bit",
            patterns="`Problem.__init__` (core.py: four `logger.info` calls through the `evotorch` logger, "
            "`manual_seed` of its own `torch.Generator`) -> `SNES.__init__` (SeparableGaussian from center_init) "
            "-> `SearchAlgorithm.step` (searchalgorithm.py:380-397: clear/update status dicts) -> "
            "`GaussianSearchAlgorithm._step_non_distributed` (algorithms/distributed/gaussian.py:274-367): "
            "`distribution.sample(out=population values, generator=problem)` in place, `Problem.evaluate` -> "
            "`_evaluate_all` (the vectorized fitness, `set_evals`) -> `_get_best_and_worst` (core.py:2330-2399, "
            "`@torch.no_grad`: `argbest`/`argworst` (argmin/argmax), `if first_is_better(best_score, "
            "self._best_evals[0], 0):` (a 0-d tensor comparison in a Python `if`; taken on improvements) -> "
            "`batch[best_sln_index].clone()` (a Solution at a tensor index), `float(self._best[0].evals[0])`, "
            "`float(self._worst[0].evals[0])` (tensor values read into Python)); from step 2: "
            "`compute_gradients` with 'nes' ranking (`argsort`, index setitem `ranks[indices] = arange`, "
            "`weights[ranks]`), `update_parameters` (exp update of sigma), `modify_tensor` bounds",
        ),
        Row(
            "r14c_evo_ga_sbx_gaussian_mutation", *EVOTORCH,
            "wrapper: Problem('min', squared distance to target (8,), solution_length=8, initial_bounds=(-3, 3), "
            "bounds=(-5, 5), seed=0); GeneticAlgorithm(popsize=16, operators=[SimulatedBinaryCrossOver("
            "tournament_size=4, eta=8), GaussianMutation(stdev=0.3, mutation_probability=0.3)]); three .step(); "
            "returns (population values, evals, status best_eval)",
            ("evotorch",), _r14c_evo_ga_sbx_mutation, modes=INFERENCE,
            notes=EVO_NO_GRAD + " (the operators write children into fresh SolutionBatch storage); the target "
            "only enters the fitness; built inside the call with its own generator (seed=0), as in the SNES row",
            patterns="`GeneticAlgorithm._step` (ga.py:650-666, elitist) -> `_make_extended_population` "
            "(ga.py:158-196: `problem.evaluate` of parents and children, each through `_get_best_and_worst`'s "
            "tensor `if` and `float()`) -> `CrossOver._do_tournament` (operators/base.py:264-303: "
            "`batch.utility(ranking_method='centered')` with `if torch.any(torch.isnan(evdata)): raise "
            "ValueError` (core.py:4270, a tensor guarding a raise; not raised), `make_randint` tournaments, "
            "`argmax` of ranks, `int(len(parents) / 2)` split) -> `SimulatedBinaryCrossOver._do_cross_over` "
            "(operators/real.py:456-482: `betas[u > 0.5] = (1 / (2 * (1 - u[u > 0.5]))).pow(...)`, a boolean-mask "
            "read and setitem, `_respect_bounds` clamp) -> `GaussianMutation._do` (real.py:60-67: `deepcopy` of "
            "the batch, `mutation_matrix = uniform <= 0.3`, `data[mutation_matrix] += 0.3 * "
            "make_gaussian_shaped_like(data[mutation_matrix])` (a masked read whose data-dependent length sets "
            "how many normals are drawn, then a masked setitem)) -> `SolutionBatch.cat`, `take_best(16)` "
            "(`argsort` of evals, a slice of the batch)",
        ),
        Row(
            "r14c_evo_solutionbatch_pareto_sort", *EVOTORCH,
            "wrapper: SolutionBatch(Problem(['min', 'max'], ...), popsize=16, empty=True); .set_values(values "
            "(16, 8)); .set_evals(evals (16, 2), rounded to quarters so that solutions tie); .arg_pareto_sort(); "
            ".take_best(5); returns (fronts, ranks, best values, best evals)",
            ("evotorch",), _r14c_evo_pareto_sort, modes=INFERENCE,
            notes="inference only: `arg_pareto_sort` and `compute_pareto_ranks` are `@torch.no_grad()`, the "
            "outputs are integer ranks and indices, and `take_best` copies values through an index; the Problem "
            "(two objectives, no generator needed) is built in the builder and only gives senses and dtypes",
            patterns="`SolutionBatch.set_values`/`set_evals` (no_grad copies into the batch storage) -> "
            "`arg_pareto_sort` (core.py:3870-3910) -> `utils()` -> `utility` per objective (`if "
            "torch.any(torch.isnan(evdata)): raise ValueError`, not raised; sign flip for the 'min' objective) "
            "-> `_pareto_sort` -> `_compute_pareto_ranks` (core.py:3491-3561: the dense domination matrix, "
            "`while unranked.any():` (a tensor in a Python `while`: 5 fronts here, 5 iterations), "
            "`ranks[new_non_dominated] = current_rank` and `unranked[new_non_dominated] = False` (boolean-mask "
            "setitems), `_crowding_distance_assignment(utils[new_non_dominated])` (a data-sized boolean-mask "
            "read: argsort per objective, index setitems of inf, a Python loop over the 2 objectives with "
            "`clamp_` and `crowding[idx[1:-1]] += ...`), `crowdsort_ranks[new_non_dominated] = argsort(...)`) "
            "-> `n_fronts = torch.amax(ranks) + 1`, `for front_idx in range(n_fronts)` (a tensor as the "
            "range bound), `torch.argwhere(ranks == front_idx).flatten()` (data-sized), `front[crowdsort_ranks"
            "[front]]`; `take_best(5)` (multi-objective: `compute_pareto_ranks(crowdsort=True)` again, "
            "combined float ranks, `argsort[:5]`, a sliced SolutionBatch)",
        ),
        Row(
            "r14c_evo_func_pgpe_clipup_control", *EVOTORCH,
            "wrapper: evotorch.algorithms.functional.pgpe(center_init=x (8,), center_learning_rate=0.5, "
            "stdev_learning_rate=0.1, objective_sense='min', stdev_init=1.0, optimizer='clipup'); three rounds of "
            "values = pgpe_ask(state, popsize=16), state = pgpe_tell(state, values, sphere(values)); returns "
            "(center, stdev)",
            ("evotorch",), _r14c_evo_func_pgpe_control,
            notes="the functional API samples with torch's global generator (`torch.randn` in the symmetric "
            "Gaussian's functional sampler; the harness seeds it before each call); in training x requires grad "
            "and gets it through the sampled values, ClipUp's center update and the stdev update (the ranking "
            "weights are computed under no_grad)",
            patterns="control: no tensor value reaches Python. `pgpe` (funcpgpe.py: `torch.as_tensor`, "
            "`_get_stdev_init`, ndim/shape tests, `clipup` state) -> `pgpe_ask` -> `expects_ndim` decorator "
            "(decorators.py:690-860: argument ndim bookkeeping in Python, no vmap for unbatched inputs) -> the "
            "symmetric functional sampler (`int(num_solutions)`, `torch.randn` of half the population, "
            "`cat([mu + eps, mu - eps])`) -> `pgpe_tell`: `_symmetric_grad` (centered ranking: `argsort`, index "
            "setitem `ranks[indices] = weights`, under no_grad; the symmetric mu/sigma gradient sums) -> "
            "`clipup_tell` -> `_clipup_step` (funcclipup.py:95-108: `g / norm(g)`, momentum, `must_clip = (vnorm "
            "> max_speed).expand(...)`, three-argument `torch.where`) -> `_follow_stdev_grad` -> `modify_vector` "
            "(max-change clamp via `expects_ndim`)",
        ),
        Row(
            "r14c_tf_fttransformer_nan_embedding", *PYTORCH_FRAME,
            "torch_frame.nn.models.FTTransformer(channels=8, out_channels=3, num_layers=1, stype_encoder_dict="
            "{numerical: LinearEncoder(na_strategy=MEAN), categorical: EmbeddingEncoder()}) on a TensorFrame "
            "of 6 rows: 3 numerical columns with 2 NaN, 2 categorical columns (3 categories) with 2 missing (-1)",
            ("torch_frame",), _r14c_tf_fttransformer,
            notes="hand-written column stats (mean, std, quantiles; category counts); in training the model's "
            "parameters get the gradient (the TensorFrame is not a tensor, so it has no input gradient)",
            patterns="`FTTransformer.forward` (nn/models/ft_transformer.py) -> `StypeWiseFeatureEncoder.forward` "
            "(loop over the frame's stypes) -> `StypeEncoder.forward` (stype_encoder.py:150-171: column-count "
            "test, `na_forward`, `encode_forward`, `nan_to_num`) -> numerical `na_forward` (2-D: `get_na_mask` "
            "isnan, `assert feat.size(-1) == fill_values.size(-1)`, three-argument `torch.where(na_mask, "
            "fill_values, feat)`) and `LinearEncoder.encode_forward` (standardize, per-column linear) -> "
            "`EmbeddingEncoder.encode_forward` (stype_encoder.py:298-311: `na_mask = feat < 0`, `feat = feat + "
            "offset + 1`, `feat[na_mask] = 0` (a boolean-mask setitem; 2 entries), `Embedding` with padding_idx "
            "0) -> `torch.cat` of the column embeddings -> `FTTransformerConvs` (CLS token concat, "
            "TransformerEncoder layer) -> LayerNorm/ReLU/Linear decoder on the CLS embedding",
        ),
        Row(
            "r14c_tf_timestamp_encoder_nan_fill", *PYTORCH_FRAME,
            "torch_frame.nn.encoder.TimestampEncoder(out_channels=8, stats_list=2 timestamp columns' stats, "
            "stype=timestamp) (default na_strategy MEDIAN_TIMESTAMP, out_size=8) on ts (6, 2, 7) int64 "
            "(year..second) with 3 missing timestamps (all fields -1)",
            ("torch_frame",), _r14c_tf_timestamp_encoder,
            notes="the input is an int64 tensor (no input gradient); in training the encoder's weight and bias "
            "get the gradient",
            patterns="`StypeEncoder.forward` -> `na_forward` (stype_encoder.py:212-250): `get_na_mask` (`tensor "
            "== -1`, integer branch), `clone`, the 3-D branch `for col, fill_value in enumerate(self.fill_values)` "
            "(iterating over a buffer tensor's rows in Python), `col_na_mask = na_mask[:, col].any(dim=-1)`, "
            "`col_data[col_na_mask] = fill_value` (a boolean-mask setitem of a 7-vector; 1 row in column 0, "
            "2 in column 1) -> `TimestampEncoder.encode_forward` (stype_encoder.py:914-938): float cast, year "
            "minus `min_year`, the rest divided by the cyclic normalization constants, `PositionalEncoding."
            "forward` (nn/encoding/positional_encoding.py:31: `assert torch.all(input_tensor >= 0)`, a tensor "
            "in an assert; holds because the NaNs were filled), `CyclicEncoding.forward` "
            "(nn/encoding/cyclic_encoding.py:33: `assert torch.all((x >= 0) & (x <= 1))`), sin/cos, `einsum` "
            "with the per-column weight, bias -> `nan_to_num`",
        ),
        Row(
            "r14c_tf_multicategorical_embedding_bag", *PYTORCH_FRAME,
            "torch_frame.nn.encoder.MultiCategoricalEmbeddingEncoder(out_channels=8, stats_list=2 columns (3 and "
            "4 categories), stype=multicategorical, na_strategy=ZEROS) on a MultiNestedTensor (6 rows, 2 "
            "columns, ragged lists of 0-3 category ids, 3 missing ids (-1), 2 empty cells)",
            ("torch_frame",), _r14c_tf_multicat_encoder,
            notes="the input is a MultiNestedTensor of int64 ids (no input gradient); in training the two "
            "EmbeddingBag weights get the gradient",
            patterns="`StypeEncoder.forward` (`isinstance(feat, dict)` test, column count) -> `na_forward` "
            "(stype_encoder.py:212-238): a new `MultiNestedTensor` over cloned values, `for col, fill_value in "
            "enumerate(fill_values)` -> `MultiNestedTensor.fillna_col` (data/multi_nested_tensor.py:270-290: "
            "strided `arange`, `diff` of offsets, `_batched_arange(diff)` (data/multi_tensor.py:363-398: "
            "`cumsum`, `repeat_interleave(count, output_size=ptr[-1])` with a size taken from the data, index "
            "arithmetic), gathered values, `values_col[values_col == -1] = 0` (a boolean-mask setitem), "
            "`self.values[values_index] = values_col` (index setitem)) -> `encode_forward` (stype_encoder.py:"
            "365-380): per column `feat[:, i]` (`_MultiTensor.__getitem__` -> `select(slice)` then "
            "`_single_index_select(i, dim=1)`: `_normalize_index`, again `_batched_arange` with its "
            "data-sized `repeat_interleave`, a gathered values tensor of data-dependent length, `cumsum` "
            "offsets), `EmbeddingBag(values + 1, offset[:-1])` (mean mode, padding_idx 0), `torch.stack`",
        ),
        Row(
            "r14c_tf_excelformer_hidden_mixup", *PYTORCH_FRAME,
            "torch_frame.nn.models.ExcelFormer(in_channels=8, out_channels=3, num_cols=4, num_layers=1, "
            "num_heads=2, mixup='hidden', beta=0.5) on a numerical TensorFrame (6, 4) with one NaN and a 3-class "
            "target, called with mixup_encoded=True; returns (logits, mixed-up one-hot targets)",
            ("torch_frame",), _r14c_tf_excelformer_mixup,
            notes="the mixup draws from torch's global generator (Beta sample, `randperm`, `torch.rand`), "
            "seeded by the harness before each call; in training the model's parameters get the gradient "
            "(the mixed-up targets carry none)",
            patterns="`ExcelFormer.forward` (nn/models/excelformer.py:225-262): `StypeWiseFeatureEncoder` -> "
            "numerical `na_forward` (MEAN: three-argument `torch.where`) -> `ExcelFormerEncoder.encode_forward` "
            "(standardize, tanh gating) -> `assert tf.y is not None` -> `feature_mixup` (excelformer.py:22-111: "
            "`assert num_classes > 0`, `torch.tensor(beta)`, `torch.distributions.Beta(beta, beta)` (argument "
            "validation in torch.distributions: `constraint.check(value)` then `if not torch._is_all_true(valid): "
            "raise ValueError` (distribution.py:76-77), a tensor read into a Python `if`; the inner "
            "Dirichlet's validation likewise), `.sample((6, 1))`, "
            "`randperm(6)`, `assert x.ndim == 3`, hidden mask `torch.rand(b, d) < shuffle_rates`, `mixup_mask * "
            "x + ~mixup_mask * x[shuffled_idx]`, `y[shuffled_idx]`, `F.one_hot` of the targets (one_hot infers "
            "`num_classes` unless given: given here) and the lam mix) -> `ExcelFormerConv` (DiaM attention with "
            "a triangular mask, AiuM gating) -> `ExcelFormerDecoder`",
        ),
        Row(
            "r14c_tf_cat_to_num_transform", *PYTORCH_FRAME,
            "wrapper: CatToNumTransform() fitted in the builder on the 6-row frame (2 categorical columns with 2 "
            "missing, 3-class target); transform(tf).feat_dict[numerical] (6, 7)",
            ("torch_frame",), _r14c_tf_cat_to_num, modes=INFERENCE,
            notes="inference only: the transform replaces categorical ids by target statistics gathered by "
            "index (integer inputs, no parameters), so nothing it returns carries a gradient; fitting (which "
            "computes column stats through pandas) happens in the builder",
            patterns="`FittableBaseTransform.__call__` (`copy.copy(tf)`) -> `forward` (`is_fitted` test, "
            "`_forward`, `transformed_tf.validate()`: feature shape checks) -> `CatToNumTransform._forward` "
            "(transforms/cat_to_num_transform.py:100-140) -> `_replace_nans` (fittable_base_transform.py:32-61: "
            "`clone`, a Python loop over the columns, `nan_mask = column_data < 0`, `if nan_mask.all(): raise "
            "ValueError` and `if not nan_mask.any(): continue` (tensors in Python `if`s; column 0 has no missing "
            "id and takes the `continue`), `column_data[nan_mask] = fill_value` (boolean-mask setitem)) -> `if "
            "not torch.is_floating_point(tf.y) and tf.y.max() > 1:` (a tensor in a Python `if`; multiclass, "
            "taken) -> `F.one_hot(tf.y, self.num_classes)` (num_classes a tensor kept from fit), per column "
            "`index_select` of the category counts, target-mean arithmetic into slices, `torch.cat` with the "
            "numerical features, new col_names_dict",
        ),
        Row(
            "r14c_tf_resnet_control", *PYTORCH_FRAME,
            "torch_frame.nn.models.ResNet(channels=8, out_channels=3, num_layers=2, stype_encoder_dict="
            "{numerical: LinearEncoder()}) on a numerical TensorFrame (6, 4) without NaN",
            ("torch_frame",), _r14c_tf_resnet_control,
            notes="in training the model's parameters get the gradient",
            patterns="control: no tensor value reaches Python. `ResNet.forward` (nn/models/resnet.py) -> "
            "`StypeWiseFeatureEncoder` -> `StypeEncoder.forward` (column-count test, `na_forward` returns early "
            "with no strategy, `LinearEncoder.encode_forward`: standardize and per-column linear, "
            "`nan_to_num`) -> flatten -> 2 `FCResidualBlock`s (Linear, LayerNorm, ReLU, dropout 0.2 in "
            "training, shortcut) -> LayerNorm/ReLU/Linear decoder",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round fourteen (c)")
