"""Held-out round nineteen (r19c): ogb.

Chosen by reading the library's source, written down in ROUND19.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny inputs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

ogb 1.3.6 (the Open Graph Benchmark) holds, besides its dataset loaders (which
download, or need torch-geometric, DGL or RDKit: no row uses one), the
evaluators that every OGB leaderboard entry reports through and the molecular
feature encoders of its baselines: ``ogb.graphproppred.Evaluator`` (ROC-AUC,
average precision, RMSE, accuracy, subtoken F1), ``ogb.nodeproppred.Evaluator``
(ROC-AUC, accuracy), ``ogb.linkproppred.Evaluator`` (Hits@K, MRR, ROC-AUC),
the large-scale challenge's ``MAG240MEvaluator`` (accuracy) and
``WikiKG90Mv2Evaluator`` (MRR from top-10 predictions), and
``ogb.graphproppred.mol_encoder``'s ``AtomEncoder``/``BondEncoder`` (a sum of
one ``nn.Embedding`` per integer feature column: 9 atom features, 3 bond
features, ``utils/features.py``).  An evaluator is built from a data set's name
(``Evaluator('ogbg-molhiv')``): ``__init__`` reads the ``master.csv`` shipped
beside the module with pandas (graphproppred/evaluate.py:17, the same in
nodeproppred and linkproppred) for the number of tasks and the metric; nothing
is downloaded (checked with the socket module refusing connections) and
nothing written.  ``eval`` takes a dict of NumPy arrays or torch tensors (the
rows pass tensors, as the OGB examples do, drawn from torch's generator) and
returns a dict of Python floats (NumPy scalars where the metric is computed in
NumPy, torch tensors for the MRR lists).

The data-dependent code (file:line relative to the ``ogb`` package): every
``eval`` dispatches on the metric name (Python string tests, graphproppred/
evaluate.py:89-107, nodeproppred/evaluate.py:69-78, linkproppred/evaluate.py:
148-160), then ``_parse_and_check_input`` (graphproppred/evaluate.py:29-64,
nodeproppred/evaluate.py:29-63) tests the dict's keys (raising
``RuntimeError('Missing key ...')``), takes tensors out of torch by
``y_true.detach().cpu().numpy()`` and ``y_pred.detach().cpu().numpy()``
(graphproppred/evaluate.py:44-48, nodeproppred/evaluate.py:44-48, behind
``isinstance(..., torch.Tensor)``) and raises on ``isinstance(y_true,
np.ndarray)``, on ``y_true.shape == y_pred.shape``, ``ndim == 2`` and
``shape[1] == self.num_tasks``; the metrics then run in NumPy and
scikit-learn: a Python loop over the task columns (``for i in
range(y_true.shape[1])``) that computes ROC-AUC and AP only for a column with
both classes (``if np.sum(y_true[:,i] == 1) > 0 and np.sum(y_true[:,i] == 0) >
0:``, graphproppred/evaluate.py:177, 197, nodeproppred/evaluate.py:125), drops
the NaN labels by ``is_labeled = y_true[:,i] == y_true[:,i]`` and boolean-mask
reads ``y_true[is_labeled,i]``, ``y_pred[is_labeled,i]`` (graphproppred/
evaluate.py:179-180, 199-200, 217-218, 226-227, nodeproppred/evaluate.py:
126-127, 138-139) into ``roc_auc_score`` / ``average_precision_score`` (raising
``RuntimeError`` when no column qualifies, graphproppred/evaluate.py:182-183,
204-205), ``np.sqrt(((...)**2).mean())`` for RMSE and ``float(np.sum(correct))
/len(correct)`` for accuracy (graphproppred/evaluate.py:228,
nodeproppred/evaluate.py:140), averaged by Python ``sum(list)/len(list)``.  The
link evaluator keeps tensors in torch: ``_parse_and_check_input``
(linkproppred/evaluate.py:33-142) tests ``isinstance`` against ``np.ndarray``
and ``torch.Tensor`` (raising ``ValueError``), converts a NumPy side by
``torch.from_numpy``, moves ``y_pred_pos.to(y_pred_neg.device)``, records
``type_info = 'torch'`` and raises on ``ndim``; ``_eval_hits``
(linkproppred/evaluate.py:214-235) returns ``1.`` at once when ``len(y_pred_neg)
< self.K`` (linkproppred/evaluate.py:223-224), else takes the K-th negative
score by ``torch.topk(y_pred_neg, self.K)[0][-1]`` and reads the count of
positives above it into Python by ``float(torch.sum(y_pred_pos > kth).cpu())``
(linkproppred/evaluate.py:227-228); ``_eval_mrr`` (linkproppred/evaluate.py:
237-263) ranks each positive among its negatives in torch (``(y_pred_neg >
y_pred_pos).sum(dim=1)`` and ``>=``, their mean + 1 for ties, ``<= 1/3/10`` as
float, ``1./ranking``) and returns the four per-edge tensors; its ROC-AUC
(linkproppred/evaluate.py:280-296) takes both score vectors out by
``.cpu().numpy()`` (no ``detach``), builds the labels with
``np.concatenate`` and calls ``roc_auc_score``.  ``MAG240MEvaluator.eval``
(lsc/mag240m.py:125-138) converts NumPy by ``torch.from_numpy``, asserts on
``numel`` and ``dim`` and returns ``int((y_true == y_pred).sum()) /
y_true.numel()``.  ``WikiKG90Mv2Evaluator.eval`` (lsc/wikikg90mv2.py:178-214)
asserts on the dict's keys and the shapes, then loops over the triplets in
Python: ``if len(torch.unique(t_pred_top10[i][t_pred_top10[i] >= 0])) !=
len(t_pred_top10[i][t_pred_top10[i] >= 0]):`` (lsc/wikikg90mv2.py:203-206: a
boolean-mask read of data-dependent size, twice, and ``torch.unique``, their
lengths compared in Python) breaks at the first triplet with a duplicated
prediction and ``print``\\ s 'Found duplicated tail prediction ...' with the
MRR set to the int ``0`` (lsc/wikikg90mv2.py:208-210); else
``_calculate_mrr`` (lsc/wikikg90mv2.py:216-229): ``tmp = torch.nonzero(t.view(
-1,1) == t_pred_top10)`` (a data-dependent number of hits), ``rr =
torch.zeros(len(t)).to(tmp.device)``, ``rr[tmp[:,0]] = 1./(tmp[:,1].float() +
1.)`` (an index setitem of data-dependent size) and ``float(rr.mean().item())``.
The selections come in 0, 1 and many: task columns skipped (all NaN, one class
only, no positive), computed from one positive, computed with the NaN mask
selecting some or all labels; triplets whose true tail is at rank 1, at a later
rank or not in the top 10, rows whose ``>= 0`` mask selects all 10 or 7
predictions.  No evaluator has a gradient path (every metric is a comparison, a
count or a NumPy/scikit-learn value): the evaluator rows are inference only.
The encoders are the controls (``AtomEncoder.forward``, graphproppred/
mol_encoder.py:19-24, and ``BondEncoder.forward``, mol_encoder.py:39-44: ``for i
in range(x.shape[1]): x_embedding += self.atom_embedding_list[i](x[:,i])``, a
loop over a static size summing embedding lookups; no tensor value reaches
Python): both modes, the gradient reaching the embedding tables.  One row
prints (``r19c_ogb_lsc_wikikg90mv2_duplicate_prediction``, said in its notes); no
row warns or logs.

Global state on import: ``import ogb`` runs ``ogb/version.py``, which sets
``os.environ['OUTDATED_IGNORE'] = '1'`` (version.py:8, unconditionally,
overwriting a user's value), imports the ``outdated`` package (0.2.2; it
imports requests and littleutils) and starts a background ``threading.Thread``
running ``check_outdated('ogb', '1.3.6')`` (version.py:25-27, the thread's
exceptions swallowed by ``except Exception: pass``).  Importing ``outdated``
adds one warning filter (``('ignore', OutdatedWarningBase)``,
outdated/mywarnings.py:32-33, because the variable is set) and starts a second
thread checking the ``outdated`` package itself (outdated/__init__.py:125-126,
119-120).  In the round's venv both threads end at once: ``check_outdated``
begins with ``from pkg_resources import parse_version`` (outdated/__init__.py:
36) and the venv has no setuptools, so the ``ModuleNotFoundError`` is swallowed
(ogb's) or turned into an ``OutdatedCheckFailedWarning`` that the new filter
ignores (outdated's own): no network request, no ``outdated_cache_*`` file in
the temporary directory, no output (checked: two threads started, none alive
3 s later, nothing printed, no new file in the temp dir or the cwd).  With
``pkg_resources`` importable, the threads would fetch PyPI's JSON (three tries,
a second apart, littleutils ``retry``), write ``outdated_cache_ogb`` in the
temp dir, and for an outdated version call the root-level ``logging.warning``,
which installs a stderr handler on the root logger (``basicConfig``) from a
background thread (read, not run).  Otherwise importing ``ogb``,
``ogb.graphproppred``, ``ogb.nodeproppred``, ``ogb.linkproppred`` and
``ogb.lsc`` changes none of torch's global state (default dtype, grad mode,
threads, deterministic flag, matmul precision, cuDNN/TF32 flags, print options,
anomaly mode, RNG) nor NumPy's global generator, configures no logger of its
own (the root logger untouched) and loads neither ``torch._dynamo`` nor
``torch._inductor``; its dependencies add their own warning filters and loggers
(scikit-learn via ``sklearn.metrics``: scipy's ``always`` for
``SpecialFunctionWarning`` and the matrix-subclass ``ignore``, and
``KMP_DUPLICATE_LIB_OK=True``, ``KMP_INIT_AT_FORK=FALSE`` set in
``os.environ``; requests/urllib3: four filters and ``NullHandler``\\ s).  The
subpackages try ``dataset_pyg`` and ``dataset_dgl`` and swallow their
``ImportError`` (graphproppred/__init__.py:4-14); ``ogb.lsc`` swallows the
``ImportError`` of the PCQM4M(v2) modules (lsc/__init__.py:1-29; they import
``smiles2graph``, which needs RDKit).

Library bugs (checked eagerly; no row takes these paths): (1) the link ROC-AUC
(``ogbl-vessel``) converts scores by ``y_pred_pos.cpu().numpy()``
(linkproppred/evaluate.py:285-286, no ``detach``, unlike the graph and node
evaluators), so scores that require grad (a model's output evaluated without
``torch.no_grad()``) raise ``RuntimeError: Can't call numpy() on Tensor that
requires grad``, while the Hits@K and MRR paths of the same evaluator accept
them.  (2) ``_eval_hits`` returns ``{'hits@K': 1.}`` whenever there are fewer
negatives than K (linkproppred/evaluate.py:223-224), whatever the scores:
``Evaluator('ogbl-ppa')`` (Hits@100) on 10 positives scored -5 against 64
negatives scored 0 reports a perfect 1.0, silently.  (3) A task column with
every label NaN gives a NaN RMSE (``mean`` of an empty selection, NumPy's
"Mean of empty slice" RuntimeWarning) that makes the averaged ``rmse`` NaN
(graphproppred/evaluate.py:215-220), and the accuracy of such a column divides
by ``len(correct) == 0``: ``ZeroDivisionError`` (graphproppred/evaluate.py:
226-228, nodeproppred/evaluate.py:137-140), where ROC-AUC and AP skip it.  (4)
The input checks test only ``y_true``'s type: nodeproppred/evaluate.py:51 reads
``isinstance(y_true, np.ndarray) and isinstance(y_true, np.ndarray)`` (y_true
twice) and graphproppred/evaluate.py:52 tests y_true alone, so a ``y_pred``
given as a list fails with ``AttributeError: 'list' object has no attribute
'shape'`` instead of the intended ``RuntimeError``.  (5) ``utils.torch_util.
all_numpy`` (utils/torch_util.py:28-41) ignores its recursive calls' results:
for any dict or list it returns True (``all_numpy([torch.zeros(2)])`` is True),
so ``DatasetSaver``'s checks ``if not all_numpy(graph_list)`` and ``if not
all_numpy(split_dict)`` (io/save_dataset.py:357, 404) never reject tensors.
(6) ``PCQM4Mv2Evaluator`` (lsc/pcqm4mv2.py:150-178, MAE in torch, no RDKit
needed) cannot be imported without RDKit: its module imports ``smiles2graph``
at the top and ``ogb.lsc`` swallows the ``ImportError``, so ``from ogb.lsc
import PCQM4Mv2Evaluator`` fails with "cannot import name" (why no row
has it).
"""

from __future__ import annotations

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

OGB = ("ogb", "1.3.6")

_NAN = float("nan")


# --- graph property prediction: ROC-AUC, AP, RMSE -------------------------------------------


def _r19c_graph_rocauc_tox21(training: bool) -> Built:
    from ogb.graphproppred import Evaluator

    evaluator = Evaluator("ogbg-moltox21")  # 12 tasks, rocauc
    y_true = (torch.rand(16, 12) < 0.35).float()
    y_true[torch.rand(16, 12) < 0.15] = _NAN
    y_true[0], y_true[1] = 1.0, 0.0  # both classes labelled in every column, then the columns that differ:
    y_true[2:, 2] = (torch.rand(14) < 0.35).float()  # column 2: no NaN (the mask selects all 16)
    y_true[:, 4] = _NAN  # column 4: every label NaN (skipped)
    y_true[:, 7] = torch.where(torch.rand(16) < 0.25, _NAN, 0.0)  # column 7: one class only (skipped)
    y_true[:, 9] = torch.where(torch.rand(16) < 0.25, _NAN, 0.0)
    y_true[5, 9] = 1.0  # column 9: one positive
    y_pred = torch.randn(16, 12)
    return evaluator.eval, ({"y_true": y_true, "y_pred": y_pred},), {}


def _r19c_graph_ap_muv(training: bool) -> Built:
    from ogb.graphproppred import Evaluator

    evaluator = Evaluator("ogbg-molmuv")  # 17 tasks, ap
    y_true = torch.zeros(24, 17)
    y_true[torch.rand(24, 17) < 0.3] = _NAN
    for j in range(6, 12):  # columns 6..11: one positive each
        y_true[int(torch.randint(0, 24, ())), j] = 1.0
    for j in range(12, 17):  # columns 12..16: three positives each
        y_true[torch.randperm(24)[:3], j] = 1.0
    y_pred = torch.randn(24, 17)  # columns 0..5 have no positive (skipped)
    return evaluator.eval, ({"y_true": y_true, "y_pred": y_pred},), {}


def _r19c_graph_rmse_esol(training: bool) -> Built:
    from ogb.graphproppred import Evaluator

    evaluator = Evaluator("ogbg-molesol")  # 1 task, rmse
    y_true = torch.randn(20, 1) * 2.0 - 3.0  # log solubilities
    y_true[[3, 11, 17], 0] = _NAN  # three unlabelled molecules
    y_pred = torch.randn(20, 1) * 2.0 - 3.0
    return evaluator.eval, ({"y_true": y_true, "y_pred": y_pred},), {}


# --- node property prediction: accuracy -------------------------------------------------------


def _r19c_node_acc_arxiv(training: bool) -> Built:
    from ogb.nodeproppred import Evaluator

    evaluator = Evaluator("ogbn-arxiv")  # 1 task, acc, 40 classes
    y_true = torch.randint(0, 40, (24, 1))
    y_pred = torch.where(torch.rand(24, 1) < 0.4, y_true, torch.randint(0, 40, (24, 1)))
    return evaluator.eval, ({"y_true": y_true, "y_pred": y_pred},), {}


# --- link property prediction: Hits@K, MRR, ROC-AUC -------------------------------------------


def _r19c_link_hits_collab(training: bool) -> Built:
    from ogb.linkproppred import Evaluator

    evaluator = Evaluator("ogbl-collab")  # hits@50
    y_pred_pos = torch.sigmoid(torch.randn(40) + 1.0)
    y_pred_neg = torch.sigmoid(torch.randn(80))
    return evaluator.eval, ({"y_pred_pos": y_pred_pos, "y_pred_neg": y_pred_neg},), {}


def _r19c_link_mrr_citation2(training: bool) -> Built:
    from ogb.linkproppred import Evaluator

    evaluator = Evaluator("ogbl-citation2")  # mrr
    y_pred_pos = torch.randint(0, 6, (12,)).float()  # scores on a coarse grid: ties with the negatives
    y_pred_neg = torch.randint(0, 6, (12, 20)).float()
    return evaluator.eval, ({"y_pred_pos": y_pred_pos, "y_pred_neg": y_pred_neg},), {}


def _r19c_link_rocauc_vessel(training: bool) -> Built:
    from ogb.linkproppred import Evaluator

    evaluator = Evaluator("ogbl-vessel")  # rocauc
    y_pred_pos = torch.randn(30) + 0.5
    y_pred_neg = torch.randn(40)
    return evaluator.eval, ({"y_pred_pos": y_pred_pos, "y_pred_neg": y_pred_neg},), {}


# --- large-scale challenge: MAG240M accuracy, WikiKG90Mv2 MRR ---------------------------------


def _r19c_lsc_mag240m_acc(training: bool) -> Built:
    from ogb.lsc import MAG240MEvaluator

    y_true = torch.randint(0, 153, (32,))  # 153 arXiv subject areas
    y_pred = torch.where(torch.rand(32) < 0.5, y_true, torch.randint(0, 153, (32,)))
    return MAG240MEvaluator().eval, ({"y_pred": y_pred, "y_true": y_true},), {}


_RANKS = (0, 3, 6, 1, 9, 2)  # the true tail's rank in triplets 0..5; triplets 6..9 miss the top 10


def _r19c_wikikg_top10() -> tuple[torch.Tensor, torch.Tensor]:
    """10 triplets: top-10 tail predictions (distinct entity ids < 1000 per triplet; triplets 2 and 8 padded
    with -1 in their last 3 slots) and the true tails."""
    perms = torch.stack([torch.randperm(1000)[:11] for _ in range(10)])
    t_pred_top10 = perms[:, :10].clone()
    t = perms[:, 10].clone()  # not among the triplet's predictions
    for i, rank in enumerate(_RANKS):
        t[i] = t_pred_top10[i, rank]
    t_pred_top10[2, 7:] = -1
    t_pred_top10[8, 7:] = -1
    return t_pred_top10, t


def _r19c_lsc_wikikg90mv2_mrr(training: bool) -> Built:
    from ogb.lsc import WikiKG90Mv2Evaluator

    t_pred_top10, t = _r19c_wikikg_top10()
    return WikiKG90Mv2Evaluator().eval, ({"h,r->t": {"t_pred_top10": t_pred_top10, "t": t}},), {}


def _r19c_lsc_wikikg90mv2_duplicate(training: bool) -> Built:
    from ogb.lsc import WikiKG90Mv2Evaluator

    t_pred_top10, t = _r19c_wikikg_top10()
    t_pred_top10[6, 4] = t_pred_top10[6, 1]  # triplet 6 predicts one tail twice
    return WikiKG90Mv2Evaluator().eval, ({"h,r->t": {"t_pred_top10": t_pred_top10, "t": t}},), {}


# --- molecule encoders (controls) -------------------------------------------------------------


def _r19c_features(dims: list[int], n: int) -> torch.Tensor:
    """Integer feature rows as ``smiles2graph`` gives them: column j in 0..dims[j] - 1 (int64)."""
    return torch.stack([torch.randint(0, d, (n,)) for d in dims], dim=1)


def _r19c_atom_encoder(training: bool) -> Built:
    from ogb.graphproppred.mol_encoder import AtomEncoder
    from ogb.utils.features import get_atom_feature_dims

    return AtomEncoder(16), (_r19c_features(get_atom_feature_dims(), 20),), {}


def _r19c_bond_encoder(training: bool) -> Built:
    from ogb.graphproppred.mol_encoder import BondEncoder
    from ogb.utils.features import get_bond_feature_dims

    return BondEncoder(16), (_r19c_features(get_bond_feature_dims(), 30),), {}


# --- rows ----------------------------------------------------------------------------------------

_NO_GRAD = "no gradient path"
_GRAPH_CHECK = (
    "`Evaluator.eval` (graphproppred/evaluate.py:89-107: Python tests of `self.eval_metric`) -> "
    "`_parse_and_check_input` (graphproppred/evaluate.py:29-64: key tests raising `RuntimeError`, "
    "`isinstance(y_true, torch.Tensor)` -> `y_true.detach().cpu().numpy()` and the same for y_pred (lines 44-48: "
    "the tensors leave torch), `isinstance(y_true, np.ndarray)`, shape, `ndim == 2` and `shape[1] == "
    "self.num_tasks` tests raising `RuntimeError`)"
)
_LINK_CHECK = (
    "`Evaluator.eval` (linkproppred/evaluate.py:148-160: `'hits@' in self.eval_metric`, string tests) -> "
    "`_parse_and_check_input` (linkproppred/evaluate.py:{lines}: key tests raising `RuntimeError`, `isinstance` "
    "tests against `np.ndarray` and `torch.Tensor` raising `ValueError`, `y_pred_pos.to(y_pred_neg.device)`, "
    "`type_info = 'torch'`, `ndim` tests raising `RuntimeError`)"
)
_WIKIKG = (
    "`WikiKG90Mv2Evaluator.eval` (lsc/wikikg90mv2.py:178-214): asserts on the dict's keys, `isinstance(..., "
    "torch.Tensor)` tests, `assert t_pred_top10.shape[1] == 10 and len(t_pred_top10) == len(t)`, then `for i in "
    "range(len(t_pred_top10)):` `if len(torch.unique(t_pred_top10[i][t_pred_top10[i] >= 0])) != "
    "len(t_pred_top10[i][t_pred_top10[i] >= 0]):` (lines 203-206: per triplet two boolean-mask reads of "
    "data-dependent size and `torch.unique`, their lengths compared in Python; `duplicated = True; break`)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r19c_ogb_graph_rocauc_tox21_skipped_tasks", *OGB,
            "bound method: ogb.graphproppred.Evaluator('ogbg-moltox21').eval({'y_true': (16, 12) float32 0/1 with "
            "NaN, 'y_pred': (16, 12) float32 ~ N(0, 1)}); returns {'rocauc': the mean ROC-AUC over the 10 columns "
            "with both classes}",
            ("ogb",), _r19c_graph_rocauc_tox21, modes=INFERENCE,
            notes="inference only: the labels and scores leave torch by `.detach().cpu().numpy()` and the metric "
            "is scikit-learn's (a Python float), " + _NO_GRAD + "; the 12 task columns take every branch: column 4 "
            "all NaN and column 7 one class only (both skipped by the both-classes test), column 9 one positive, "
            "column 2 no NaN (the mask selects all 16), the others some NaN (the mask selects some)",
            patterns=_GRAPH_CHECK + " -> `_eval_rocauc` (graphproppred/evaluate.py:168-185: `for i in "
            "range(y_true.shape[1])`, `if np.sum(y_true[:,i] == 1) > 0 and np.sum(y_true[:,i] == 0) > 0:` (line "
            "177), `is_labeled = y_true[:,i] == y_true[:,i]` (line 179, the NaN mask), `roc_auc_score(y_true["
            "is_labeled,i], y_pred[is_labeled,i])` (boolean-mask reads of data-dependent size), `if len(rocauc_list) "
            "== 0: raise RuntimeError`, `sum(rocauc_list)/len(rocauc_list)`)",
        ),
        Row(
            "r19c_ogb_graph_ap_muv_sparse_positives", *OGB,
            "bound method: ogb.graphproppred.Evaluator('ogbg-molmuv').eval({'y_true': (24, 17) float32 0/1 with "
            "NaN (columns 0-5 no positive, 6-11 one, 12-16 three), 'y_pred': (24, 17) float32}); returns {'ap': "
            "the mean average precision over the 11 columns with a positive}",
            ("ogb",), _r19c_graph_ap_muv, modes=INFERENCE,
            notes="inference only: NumPy and scikit-learn on the detached labels and scores, " + _NO_GRAD + "; "
            "MUV's labels are sparse: about 30% NaN and a few positives per task, so six columns are skipped, six "
            "computed from a single positive and five from three",
            patterns=_GRAPH_CHECK + " -> `_eval_ap` (graphproppred/evaluate.py:188-207: `for i in "
            "range(y_true.shape[1])`, `if np.sum(y_true[:,i] == 1) > 0 and np.sum(y_true[:,i] == 0) > 0:` (line "
            "197), `is_labeled = y_true[:,i] == y_true[:,i]`, `average_precision_score(y_true[is_labeled,i], "
            "y_pred[is_labeled,i])` (lines 199-200), `if len(ap_list) == 0: raise RuntimeError`, `sum/len`)",
        ),
        Row(
            "r19c_ogb_graph_rmse_esol_unlabelled", *OGB,
            "bound method: ogb.graphproppred.Evaluator('ogbg-molesol').eval({'y_true': (20, 1) float32 with rows "
            "3, 11, 17 NaN, 'y_pred': (20, 1) float32}); returns {'rmse': a NumPy float32}",
            ("ogb",), _r19c_graph_rmse_esol, modes=INFERENCE,
            notes="inference only: the RMSE is computed in NumPy on the detached arrays (a NumPy scalar), "
            + _NO_GRAD + "; the NaN mask selects 17 of 20 molecules",
            patterns=_GRAPH_CHECK + " -> `_eval_rmse` (graphproppred/evaluate.py:209-220: `for i in "
            "range(y_true.shape[1])`, `is_labeled = y_true[:,i] == y_true[:,i]`, `np.sqrt(((y_true[is_labeled,i] - "
            "y_pred[is_labeled,i])**2).mean())` (boolean-mask reads), `sum(rmse_list)/len(rmse_list)`)",
        ),
        Row(
            "r19c_ogb_node_acc_arxiv", *OGB,
            "bound method: ogb.nodeproppred.Evaluator('ogbn-arxiv').eval({'y_true': (24, 1) int64 in 0..39, "
            "'y_pred': (24, 1) int64 (40% copied from y_true)}); returns {'acc': a Python float}",
            ("ogb",), _r19c_node_acc_arxiv, modes=INFERENCE,
            notes="inference only: integer labels and predicted classes (what the OGB examples pass, `out.argmax("
            "dim=-1, keepdim=True)`), counted in NumPy, " + _NO_GRAD + "; 13 of 24 correct",
            patterns="`Evaluator.eval` (nodeproppred/evaluate.py:69-78: string tests of the metric) -> "
            "`_parse_and_check_input` (nodeproppred/evaluate.py:29-63: key tests, `isinstance(..., torch.Tensor)` "
            "-> `.detach().cpu().numpy()` (lines 44-48), `isinstance(y_true, np.ndarray) and isinstance(y_true, "
            "np.ndarray)` (line 51), shape, `ndim` and task-count tests raising `RuntimeError`) -> `_eval_acc` "
            "(nodeproppred/evaluate.py:134-142: `for i in range(y_true.shape[1])`, `is_labeled = y_true[:,i] == "
            "y_true[:,i]`, `correct = y_true[is_labeled,i] == y_pred[is_labeled,i]`, `float(np.sum(correct))/"
            "len(correct)`, `sum/len`)",
        ),
        Row(
            "r19c_ogb_link_hits50_collab", *OGB,
            "bound method: ogb.linkproppred.Evaluator('ogbl-collab').eval({'y_pred_pos': (40,) float32 sigmoid "
            "scores, 'y_pred_neg': (80,) float32 sigmoid scores}); returns {'hits@50': a Python float}",
            ("ogb",), _r19c_link_hits_collab, modes=INFERENCE,
            notes="inference only: the result is a count of comparisons read into a Python float, "
            + _NO_GRAD + "; 80 negatives >= K = 50, so the `topk` path runs (the early return needs fewer than "
            "50); 36 of the 40 positives score above the 50th negative",
            patterns=_LINK_CHECK.format(lines="33-86") + " -> `_eval_hits` (linkproppred/evaluate.py:214-235: `if "
            "len(y_pred_neg) < self.K: return {...: 1.}` (a size test, lines 223-224), `if type_info == 'torch'`, "
            "`torch.topk(y_pred_neg, self.K)[0][-1]` (the 50th negative score), `float(torch.sum(y_pred_pos > "
            "kth_score_in_negative_edges).cpu()) / len(y_pred_pos)` (line 228: a tensor read into Python), "
            "`'hits@{}'.format(self.K)`)",
        ),
        Row(
            "r19c_ogb_link_mrr_citation2_ties", *OGB,
            "bound method: ogb.linkproppred.Evaluator('ogbl-citation2').eval({'y_pred_pos': (12,) float32 in "
            "{0..5}, 'y_pred_neg': (12, 20) float32 in {0..5}}); returns {'hits@1_list', 'hits@3_list', "
            "'hits@10_list', 'mrr_list': (12,) float32 tensors}",
            ("ogb",), _r19c_link_mrr_citation2, modes=INFERENCE,
            notes="inference only: the outputs are comparisons cast to float and reciprocals of counts, "
            + _NO_GRAD + "; the scores lie on a grid of six values, so every positive ties with 1 to 6 of its 20 "
            "negatives (the rank is the mean of the optimistic and pessimistic ranks, a half-integer where they "
            "differ)",
            patterns=_LINK_CHECK.format(lines="88-142") + " -> `_eval_mrr` (linkproppred/evaluate.py:237-263: "
            "`if type_info == 'torch'`, `y_pred_pos.view(-1, 1)`, `(y_pred_neg > y_pred_pos).sum(dim=1)`, "
            "`(y_pred_neg >= y_pred_pos).sum(dim=1)`, `0.5 * (...) + 1`, `(ranking_list <= 1/3/10).to(torch.float)`, "
            "`1./ranking_list.to(torch.float)`; all in torch, a dict of four tensors)",
        ),
        Row(
            "r19c_ogb_link_rocauc_vessel", *OGB,
            "bound method: ogb.linkproppred.Evaluator('ogbl-vessel').eval({'y_pred_pos': (30,) float32, "
            "'y_pred_neg': (40,) float32}); returns {'rocauc': a Python float}",
            ("ogb",), _r19c_link_rocauc_vessel, modes=INFERENCE,
            notes="inference only: the scores leave torch and the metric is scikit-learn's, " + _NO_GRAD + " (and "
            "with scores that require grad the call raises: the module docstring's bug (1))",
            patterns=_LINK_CHECK.format(lines="33-86") + " -> `_eval_rocauc` (linkproppred/evaluate.py:280-296: "
            "`if type_info == 'torch'` -> `y_pred_pos.cpu().numpy()`, `y_pred_neg.cpu().numpy()` (lines 285-286, "
            "the tensors leave torch), `np.concatenate([np.ones(len(...)), np.zeros(len(...))]).astype(np.int32)`, "
            "`np.concatenate` of the scores, `roc_auc_score`)",
        ),
        Row(
            "r19c_ogb_lsc_mag240m_acc", *OGB,
            "bound method: ogb.lsc.MAG240MEvaluator().eval({'y_pred': (32,) int64 (half copied from y_true), "
            "'y_true': (32,) int64 in 0..152}); returns {'acc': a Python float}",
            ("ogb",), _r19c_lsc_mag240m_acc, modes=INFERENCE,
            notes="inference only: integer labels and predictions, the count read into a Python int, "
            + _NO_GRAD + "; 16 of 32 correct",
            patterns="`MAG240MEvaluator.eval` (lsc/mag240m.py:125-138): `assert 'y_pred' in input_dict and ...`, "
            "`isinstance(..., torch.Tensor)` tests (`torch.from_numpy` otherwise), `assert y_true.numel() == "
            "y_pred.numel()`, `assert y_true.dim() == y_pred.dim() == 1`, `int((y_true == y_pred).sum()) / "
            "y_true.numel()` (line 138: a tensor read into a Python int)",
        ),
        Row(
            "r19c_ogb_lsc_wikikg90mv2_mrr", *OGB,
            "bound method: ogb.lsc.WikiKG90Mv2Evaluator().eval({'h,r->t': {'t_pred_top10': (10, 10) int64 "
            "(distinct entity ids per triplet, triplets 2 and 8 padded with -1 in their last 3 slots), 't': (10,) "
            "int64 (at ranks 1, 4, 7, 2, 10, 3 in triplets 0-5, absent from 6-9)}}); returns {'mrr': a Python "
            "float}",
            ("ogb",), _r19c_lsc_wikikg90mv2_mrr, modes=INFERENCE,
            notes="inference only: integer entity ids, " + _NO_GRAD + "; the duplicate check's `>= 0` mask "
            "selects all 10 predictions of eight triplets and 7 of two, finds no duplicate and runs all 10 "
            "iterations; `nonzero` finds 6 hits (one per triplet at most), and the 4 missed triplets keep a "
            "reciprocal rank of 0",
            patterns=_WIKIKG + " -> `_calculate_mrr` (lsc/wikikg90mv2.py:216-229: `torch.nonzero(t.view(-1,1) == "
            "t_pred_top10, as_tuple=False)` (a data-dependent number of rows), `torch.zeros(len(t)).to(tmp.device)`, "
            "`rr[tmp[:,0]] = 1./(tmp[:,1].float() + 1.)` (an index setitem of data-dependent size), "
            "`float(rr.mean().item())`)",
        ),
        Row(
            "r19c_ogb_lsc_wikikg90mv2_duplicate_prediction", *OGB,
            "bound method: ogb.lsc.WikiKG90Mv2Evaluator().eval({'h,r->t': {'t_pred_top10': (10, 10) int64 as in "
            "r19c_ogb_lsc_wikikg90mv2_mrr but triplet 6 predicting one tail twice, 't': (10,) int64}}); prints "
            "'Found duplicated tail prediction ...' and returns {'mrr': 0} (a Python int)",
            ("ogb",), _r19c_lsc_wikikg90mv2_duplicate, modes=INFERENCE,
            notes="inference only: integer entity ids, " + _NO_GRAD + "; the duplicate check finds triplet 6's "
            "repeated id (`unique` gives 9 of 10), breaks out of the loop after 7 iterations and prints one line "
            "to stdout inside the call; `_calculate_mrr` is not called",
            patterns=_WIKIKG + " -> `if duplicated:` `print('Found duplicated tail prediction for some triplets! "
            "MRR is automatically set to 0.')`, `mrr = 0` (lsc/wikikg90mv2.py:208-210)",
        ),
        Row(
            "r19c_ogb_atom_encoder_control", *OGB,
            "module: ogb.graphproppred.mol_encoder.AtomEncoder(16)(x (20, 9) int64, column j in 0..[119, 5, 12, "
            "12, 10, 6, 6, 2, 2][j] - 1); returns the (20, 16) sum of nine embedding lookups",
            ("ogb",), _r19c_atom_encoder,
            notes="the atom featuriser of OGB's molecule baselines (GIN/GCN on ogbg-mol*), at emb_dim 16 (nine "
            "xavier-initialised tables, 174 rows in all); the features are int64 (never require grad): in training "
            "the gradient reaches the nine embedding tables",
            patterns="control: no tensor value reaches Python. `AtomEncoder.forward` (graphproppred/mol_encoder.py:"
            "19-24: `x_embedding = 0`, `for i in range(x.shape[1])` (a static size), `x_embedding += "
            "self.atom_embedding_list[i](x[:,i])` (a ModuleList indexed by a Python int, `nn.Embedding` lookups))",
        ),
        Row(
            "r19c_ogb_bond_encoder_control", *OGB,
            "module: ogb.graphproppred.mol_encoder.BondEncoder(16)(edge_attr (30, 3) int64, column j in 0..[5, 6, "
            "2][j] - 1); returns the (30, 16) sum of three embedding lookups",
            ("ogb",), _r19c_bond_encoder,
            notes="the bond featuriser of OGB's molecule baselines (the edge embedding of each GIN layer), at "
            "emb_dim 16; the features are int64: in training the gradient reaches the three embedding tables",
            patterns="control: no tensor value reaches Python. `BondEncoder.forward` (graphproppred/mol_encoder.py:"
            "39-44: `bond_embedding = 0`, `for i in range(edge_attr.shape[1])`, `bond_embedding += "
            "self.bond_embedding_list[i](edge_attr[:,i])`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round nineteen (c)")
