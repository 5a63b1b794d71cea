"""Held-out round nineteen (r19b): deepctr-torch.

Chosen by reading the library's source, written down in ROUND19.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes`` (none here: every row has a gradient
path).

deepctr-torch 0.3.0 (Weichen Shen's click-through-rate models, the PyTorch port
of DeepCTR) holds feature-column descriptions (``SparseFeat``: an id field with
its vocabulary and embedding size; ``DenseFeat``: float columns;
``VarLenSparseFeat``: a padded sequence of ids, pooled by ``combiner`` 'mean',
'sum' or 'max', with its valid length either in a separate ``length_name``
column or taken as the non-zero ids), models that subclass ``BaseModel``
(``DeepFM``, ``WDL``, ``xDeepFM``, ``AutoInt``, ``DCN``, ``PNN``, ``AFN``, ...
and the behaviour-sequence models ``DIN`` and ``DIEN``, plus the multitask
``MMOE``/``PLE``/``ESMM``/``SharedBottom``) and their layers
(``SequencePoolingLayer``, ``AttentionSequencePoolingLayer``, ``DynamicGRU``
with ``AGRUCell``/``AUGRUCell``, ``FM``, ``CIN``, ``DNN``, ``Dice``).  Every
model's forward takes one float tensor ``X`` (batch, columns): what
``BaseModel.fit``/``predict`` build by concatenating the feature arrays in
``build_input_features`` order and calling ``.float()`` (models/basemodel.py:
191-194, 239, 345-353), so ids, sequence ids and lengths are stored as floats
beside the dense values, and each layer slices its columns back out with
``.long()``.  The builders make ``X`` that way (``_r19b_x``: ids from torch's
generator, sequences of ids >= 1 padded with 0 after their length, lengths in
their column), with vocabularies of 3 to 12 ids, embeddings of 4 (8 for one
layer row) and batches of 6 or 8; ``init_std=0.1`` (the default 1e-4 makes
every prediction 0.5 to four digits), and where deepctr builds a DNN at its
fixed std 1e-4 whatever ``init_std`` says (DIN's deep net, every attention
unit) the builder redraws its ``Linear`` weights from N(0, 0.1)
(``_r19b_spread``; bug (8) below).

The data-dependent code (file:line relative to the ``deepctr_torch`` package)
is DIEN's.  ``InterestExtractor.forward`` (models/dien.py:193-234) drops the
rows with an empty history: ``mask = keys_length > 0``, ``keys_length[mask]``
(a boolean-mask read, dien.py:211-212), ``if masked_keys_length.shape[0] ==
0: return zero_outputs,`` (a Python test of that data-dependent size,
dien.py:215-216), ``torch.masked_select(keys, mask.view(-1, 1, 1)).view(-1,
max_length, dim)`` (dien.py:218), then ``pack_padded_sequence(...,
lengths=masked_keys_length.cpu(), enforce_sorted=False)`` (dien.py:220-221;
torch/nn/utils/rnn.py:318-323: ``torch.sort`` of the lengths and
``_VF._pack_padded_sequence``, whose ``batch_sizes`` and data size come from
the length values), ``nn.GRU`` on the packed batch (torch/nn/modules/rnn.py:
1378-1437: ``max_batch_size = batch_sizes[0]`` as a ``torch.zeros`` size,
``check_forward_args`` -> ``int(batch_sizes[0])``, rnn.py:337) and
``pad_packed_sequence(..., total_length=max_length)`` (dien.py:223-224;
torch/nn/utils/rnn.py:382-399: a Python test of ``total_length`` against
``batch_sizes.size(0)``, ``lengths[unsorted_indices.cpu()]``).  With negative
sampling, ``_cal_auxiliary_loss`` (dien.py:236-273) repeats the drop for the
histories of length 1 (``masked_keys_length - 1``: ``keys_length[mask_shape]``
and ``if keys_length.shape[0] == 0``, dien.py:238-241; three
``masked_select``s, dien.py:244-247) and keeps the valid steps by
``view(...)[mask > 0]`` (dien.py:259, 265: boolean-mask reads of data-dependent
size) for a ``binary_cross_entropy``.  ``InterestEvolving.forward``
(dien.py:329-381) drops the empty rows again (``keys_length[mask]``, ``if
keys_length.shape[0] == 0: return zero_outputs``, ``masked_select`` of the
query, dien.py:346-353), runs its ``gru_type`` branch (Python string tests):
'GRU' packs, runs ``nn.GRU``, pads and pools by ``AttentionSequencePoolingLayer``
(dien.py:355-361); 'AIGRU' scales the interests by the attention scores, packs
and keeps ``nn.GRU``'s last hidden state (dien.py:362-368); 'AGRU'/'AUGRU' pack
the interests and the scores and run ``DynamicGRU`` (layers/sequence.py:
296-320: ``isinstance`` tests with a ``raise``, ``max_batch_size =
int(batch_sizes[0])``, then ``for batch in batch_sizes:`` a Python loop over a
tensor whose trip count is the longest length, slicing by 0-d tensors
``inputs[begin:begin + batch]``, ``hx[0:batch]`` and writing ``outputs[begin:
begin + batch] = new_hx``), pads, and picks each row's last state by
``_get_last_state`` (dien.py:319-327: ``states[mask]``, a boolean-mask read);
every branch ends by a boolean-mask setitem ``zero_outputs[mask] = outputs``
(dien.py:380) that puts the kept rows back among the zero rows of the empty
histories.  ``DIEN.forward`` stores the auxiliary loss on the module
(``self.add_auxiliary_loss`` -> ``self.aux_loss = aux_loss * alpha``,
dien.py:93, models/basemodel.py:436-437: an attribute written in the forward,
read by ``fit``).  The batches hold histories of length 0, 1 and many (the
longest at ``maxlen``).  The rest of the library reads no tensor value into
Python on the rows' paths, but the sequence paths build modules in the
forward: ``get_varlen_pooling_list`` (inputs.py:141-155), called by
``input_from_feature_columns`` (models/basemodel.py:360-386) and by
``Linear.forward`` (basemodel.py:58-88), constructs a ``SequencePoolingLayer``
per sequence feature per call (layers/sequence.py:27-36: a Python ``mode``
test with a ``raise``, ``torch.FloatTensor([1e-8]).to(device)`` (the legacy
typed constructor), ``self.to(device)``), masks either by the ids
(``features[:, a:b].long() != 0``, ``supports_masking=True``: the mask's
``float()`` sum is the length) or by the length column
(``_sequence_mask(lengths, maxlen=shape[1])``: ``torch.arange(0, maxlen, 1)``
compared with the lengths; its ``maxlen = lengths.max()`` branch,
sequence.py:41, is taken by no library caller), ``repeat_interleave`` by the
embedding size, and for 'mean' writes ``self.eps = self.eps.to(...)`` in the
forward (sequence.py:73); ``embedding_lookup`` (inputs.py:183-210, DIN's and
DIEN's lookups) and ``maxlen_lookup`` (inputs.py:241-245) turn the Python
column bounds into ``np.array(...)`` for the slice (inputs.py:204, 244).
``AttentionSequencePoolingLayer`` (layers/sequence.py:106-154) masks by
``torch.arange(max_length, dtype=keys_length.dtype).repeat(batch_size, 1) <
keys_length.view(-1, 1)`` and ``torch.where`` (with ``-2 ** 32 + 1`` paddings
and a softmax under ``weight_normalization``); its ``LocalActivationUnit``
runs a ``DNN`` whose ``Dice`` activation (layers/activation.py:35-45) asserts
``x.dim()`` and batch-normalizes the transposed scores.  Controls (no tensor
value reaches Python and nothing is built in the call): the DeepFM and
xDeepFM forwards on id and dense columns only (``FM``, ``CIN``,
``Linear.forward`` with no sequence feature) and the attention-pooling layer
row.  No path a row takes prints, warns or logs (``SparseFeat`` prints a
notice when built with ``use_hash=True``, inputs.py:31-33; no row does).

Global state on import: ``import deepctr_torch`` (any row's first import) runs
``check_version('0.3.0')`` (``__init__.py:6``, utils.py:19-44), which starts a
non-daemon ``threading.Thread`` that calls ``requests.get`` on PyPI's JSON page
without a timeout (the package's last line, after its own imports); offline
(the round's machine) the request fails at once and the thread's bare
``except`` prints "Please check the latest version manually on
https://pypi.org/project/deepctr-torch/#history" to stdout from the background
thread, then ends (here within milliseconds of the import's return, so the
line can land after the importer's next output).  Online, a newer release would be reported by
``logging.warning`` on the root logger, which, the root having no handler,
would run ``logging.basicConfig`` and add a stderr ``StreamHandler`` to the
root logger (not run here: no network); a network that drops packets would
keep the thread, and the interpreter's exit, waiting.  The import also loads
scikit-learn, scipy, pandas, tqdm and requests (basemodel.py:18-20,
utils.py:11): scikit-learn sets ``KMP_DUPLICATE_LIB_OK=True`` and
``KMP_INIT_AT_FORK=FALSE`` in ``os.environ`` (``setdefault``); six warning
filters are added (scipy's ``always`` for ``SpecialFunctionWarning`` and
``ignore`` for numpy's matrix-subclass message, urllib3's three, requests'
one); requests, urllib3 and charset_normalizer get a ``NullHandler``, the root
logger is untouched; neither ``torch._dynamo`` nor ``torch._inductor`` is
imported.  Checked before and after the import (and the thread's end): no
change to torch's default dtype, grad mode, intra-/inter-op threads,
deterministic flag, matmul precision, cuDNN/TF32 flags, print options, anomaly
mode or RNG state, nor numpy's global generator.  Building a model does change
global state: ``BaseModel.__init__`` calls ``torch.manual_seed(seed)``
(basemodel.py:96, ``seed=1024`` by default), reseeding torch's global
generator (the builders draw their inputs first; ``Row.build``'s
``fork_rng`` restores the generator after the builder).

Library bugs (checked eagerly; no row takes these paths): (1) ``DIEN`` fails on
a batch whose histories are all empty: ``InterestExtractor.forward`` returns
the one-element tuple ``zero_outputs,`` (dien.py:215-216) where
``DIEN.forward`` unpacks two (dien.py:92): ``ValueError: not enough values to
unpack (expected 2, got 1)``, for every ``gru_type``.  (2) 'max' pooling of a
sequence with a ``length_name`` raises: ``_sequence_mask`` discards
``mask.type(dtype)`` (sequence.py:46), so the mask stays bool and ``(1 - mask)``
(sequence.py:66) is ``RuntimeError: Subtraction, the `-` operator, with a bool
tensor is not supported`` (checked on the layer and through ``WDL``); with the
id mask instead, 'max' of an empty sequence returns the embeddings minus 1e9
(values near -1e9 fed to the next layer).  (3) ``AUGRUCell.__init__``
registers ``bias_hh`` under the name ``bias_ih`` (sequence.py:262): the cell's
input bias is dropped and one (3H,) parameter is added to both ``gi`` and
``gh`` (``named_parameters`` lists ``weight_ih``, ``weight_hh``, ``bias_ih``).
(4) ``DIN`` (and ``DIEN``) take the history lengths from the first
``VarLenSparseFeat`` with a ``length_name`` in column order (din.py:107-109, dien.py:134-137,
inputs.py:241-245): a non-history sequence with its own length column listed
before the history masks the attention by the wrong lengths (checked: the
attention saw ``tags_len`` [3, 1] for a history of lengths [2, 4]).  (5) With
``att_weight_normalization=True`` DIN's attention gives an empty history a
uniform softmax over its padding (sequence.py:137-148), so the pooled
interest is the embedding of id 0 (nn.Embedding without ``padding_idx``), not
zeros (checked).  (6) ``AGRUCell``/``AUGRUCell`` weights are ``torch.Tensor(
...)`` (uninitialized memory, sequence.py:205-208, 251-254); ``InterestEvolving``
initializes them, but a ``DynamicGRU`` built on its own keeps whatever memory
held (checked: values like 3e-41).  (7) ``InterestEvolving``'s unsupported-type
message is not an f-string ("gru_type: {gru_type} is not supported",
dien.py:289).  (8) ``init_std`` does not reach DIN's deep net (din.py:73-78
builds ``DNN`` without it) nor any attention unit's (``LocalActivationUnit``,
layers/core.py:41-47): their weights stay N(0, 1e-4) and, with the DIN row's
configuration unchanged, the prediction is the same for all 6 rows to float32
precision (checked; the rows redraw those weights).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

DEEPCTR = ("deepctr-torch", "0.3.0")

_STD = 0.1  # init_std of the models (the default 1e-4 gives 0.5 for every prediction)


# --- inputs ------------------------------------------------------------------------------


def _r19b_x(columns: list[Any], lengths: dict[str, list[int]]) -> torch.Tensor:
    """The model input ``X`` as deepctr builds it (the feature arrays concatenated in
    ``build_input_features`` order, then ``.float()``): sparse ids in 0..vocab-1, dense values in
    [0, 1), each sequence's ids in 1..vocab-1 for its first n positions and 0 after, with n from
    ``lengths[length_name]`` (written in that column) or, for a sequence masked by its ids,
    ``lengths[name]``."""
    from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat, build_input_features

    index = build_input_features(columns)
    n = len(next(iter(lengths.values()))) if lengths else 8
    x = torch.zeros(n, max(end for _, end in index.values()))
    for fc in columns:
        start, end = index[fc.name]
        if isinstance(fc, SparseFeat):
            x[:, start] = torch.randint(0, fc.vocabulary_size, (n,)).float()
        elif isinstance(fc, DenseFeat):
            x[:, start:end] = torch.rand(n, fc.dimension)
        elif isinstance(fc, VarLenSparseFeat):
            valid = torch.tensor(lengths[fc.length_name or fc.name])
            ids = torch.randint(1, fc.vocabulary_size, (n, fc.maxlen))
            x[:, start:end] = (ids * (torch.arange(fc.maxlen) < valid[:, None])).float()
            if fc.length_name is not None:
                x[:, index[fc.length_name][0]] = valid.float()
    return x


def _r19b_behaviour_columns(negative: bool = False) -> list[Any]:
    """DIN/DIEN columns: a user, the candidate item and its category, a dense score, the item and
    category histories (maxlen 5, lengths in 'seq_length', sharing the candidate's embeddings) and,
    for DIEN's negative sampling, the non-clicked histories."""
    from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat

    columns = [
        SparseFeat("user", 8, embedding_dim=4), SparseFeat("gender", 3, embedding_dim=4),
        SparseFeat("item", 12, embedding_dim=4), SparseFeat("cate", 6, embedding_dim=4), DenseFeat("score", 1),
    ]
    prefixes = ("hist_", "neg_hist_") if negative else ("hist_",)
    for prefix in prefixes:
        columns += [
            VarLenSparseFeat(SparseFeat(prefix + "item", 12, embedding_dim=4, embedding_name="item"), maxlen=5,
                             length_name="seq_length"),
            VarLenSparseFeat(SparseFeat(prefix + "cate", 6, embedding_dim=4, embedding_name="cate"), maxlen=5,
                             length_name="seq_length"),
        ]
    return columns


def _r19b_spread(*modules: torch.nn.Module) -> None:
    """Redraw from N(0, 0.1) the ``nn.Linear`` weights of DNNs that deepctr builds at its fixed std 1e-4
    whatever ``init_std`` says (DIN's deep net, din.py:73-78, and every attention unit's, sequence.py:
    102-104 -> core.py:41-47), as a trained model's would be spread: with std 1e-4 DIN's prediction is
    the same for every row to float32 precision and the attention scores are uniform."""
    for module in modules:
        for sub in module.modules():
            if isinstance(sub, torch.nn.Linear):
                torch.nn.init.normal_(sub.weight, std=_STD)


# --- models ------------------------------------------------------------------------------


def _r19b_din(training: bool) -> Built:
    from deepctr_torch.inputs import SparseFeat, VarLenSparseFeat
    from deepctr_torch.models import DIN

    columns = _r19b_behaviour_columns()
    # a non-history sequence masked by its ids (no length column): pooled by get_varlen_pooling_list
    columns.append(VarLenSparseFeat(SparseFeat("tags", 7, embedding_dim=4), maxlen=3, combiner="mean"))
    x = _r19b_x(columns, {"seq_length": [0, 1, 5, 3, 1, 2], "tags": [2, 0, 3, 1, 0, 1]})
    model = DIN(columns, ["item", "cate"], dnn_hidden_units=(8, 4), att_hidden_size=(8, 4), init_std=_STD,
                device="cpu")
    _r19b_spread(model.dnn, model.attention)
    return model, (x,), {}


def _r19b_dien(gru_type: str, lengths: list[int]) -> Built:
    from deepctr_torch.models import DIEN

    columns = _r19b_behaviour_columns()
    x = _r19b_x(columns, {"seq_length": lengths})
    model = DIEN(columns, ["item", "cate"], gru_type=gru_type, dnn_hidden_units=(8, 4), att_hidden_units=(8, 4),
                 init_std=_STD, device="cpu")
    _r19b_spread(model.interest_evolution.attention)
    return model, (x,), {}


def _r19b_dien_gru(training: bool) -> Built:
    return _r19b_dien("GRU", [2, 0, 5, 1, 4, 0])


def _r19b_dien_aigru(training: bool) -> Built:
    return _r19b_dien("AIGRU", [5, 1, 0, 3, 5, 2])


def _r19b_dien_forward_with_aux_loss(model: Any, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``DIEN.forward`` and the auxiliary loss it stores on the module (what ``BaseModel.fit`` adds to
    the loss, models/basemodel.py:259), so that the auxiliary net has a gradient path."""
    y_pred = model(x)
    return y_pred, model.aux_loss


def _r19b_dien_augru_negsampling(training: bool) -> Built:
    from deepctr_torch.models import DIEN

    columns = _r19b_behaviour_columns(negative=True)
    x = _r19b_x(columns, {"seq_length": [1, 4, 0, 5, 1, 2]})
    model = DIEN(columns, ["item", "cate"], gru_type="AUGRU", use_negsampling=True, dnn_hidden_units=(8, 4),
                 att_hidden_units=(8, 4), init_std=_STD, device="cpu")
    _r19b_spread(model.interest_evolution.attention)
    # a plain function: the harness does not set the model's mode, so the builder does
    model.train(training)
    return _r19b_dien_forward_with_aux_loss, (model, x), {}


def _r19b_wdl_varlen(training: bool) -> Built:
    from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat
    from deepctr_torch.models import WDL

    columns = [
        SparseFeat("user", 8, embedding_dim=4), SparseFeat("item", 12, embedding_dim=4), DenseFeat("price", 1),
        VarLenSparseFeat(SparseFeat("genres", 7, embedding_dim=4), maxlen=4, combiner="mean"),
        VarLenSparseFeat(SparseFeat("clicks", 12, embedding_dim=4, embedding_name="item"), maxlen=5,
                         combiner="sum", length_name="clicks_len"),
    ]
    x = _r19b_x(columns, {"genres": [0, 2, 4, 1, 3, 0], "clicks_len": [3, 0, 1, 5, 2, 5]})
    model = WDL(columns, columns, dnn_hidden_units=(8, 4), init_std=_STD, device="cpu")
    return model, (x,), {}


def _r19b_deepfm_control(training: bool) -> Built:
    from deepctr_torch.inputs import DenseFeat, SparseFeat
    from deepctr_torch.models import DeepFM

    columns = [
        SparseFeat("user", 10, embedding_dim=4), SparseFeat("item", 12, embedding_dim=4),
        SparseFeat("cate", 6, embedding_dim=4), SparseFeat("hour", 5, embedding_dim=4),
        DenseFeat("price", 1), DenseFeat("age", 1),
    ]
    x = _r19b_x(columns, {})
    model = DeepFM(columns, columns, dnn_hidden_units=(8, 4), dnn_dropout=0.2, init_std=_STD, device="cpu")
    return model, (x,), {}


def _r19b_xdeepfm_control(training: bool) -> Built:
    from deepctr_torch.inputs import DenseFeat, SparseFeat
    from deepctr_torch.models import xDeepFM

    columns = [
        SparseFeat("user", 10, embedding_dim=4), SparseFeat("item", 12, embedding_dim=4),
        SparseFeat("cate", 6, embedding_dim=4), DenseFeat("price", 1),
    ]
    x = _r19b_x(columns, {})
    model = xDeepFM(columns, columns, dnn_hidden_units=(8, 4), cin_layer_size=(4, 4), init_std=_STD, device="cpu")
    return model, (x,), {}


# --- layers ------------------------------------------------------------------------------


def _r19b_interest_extractor_neg(training: bool) -> Built:
    from deepctr_torch.models.dien import InterestExtractor

    keys = torch.randn(6, 5, 4)
    keys_length = torch.tensor([2, 0, 5, 1, 3, 1])
    neg_keys = torch.randn(6, 5, 4)
    return InterestExtractor(input_size=4, use_neg=True, init_std=_STD), (keys, keys_length, neg_keys), {}


def _r19b_interest_evolving_agru(training: bool) -> Built:
    from deepctr_torch.models.dien import InterestEvolving

    query = torch.randn(6, 8)
    keys_length = torch.tensor([3, 0, 6, 1, 0, 2])
    keys = torch.randn(4, 6, 8)  # the interests of the 4 non-empty rows (what InterestExtractor returns)
    layer = InterestEvolving(input_size=8, gru_type="AGRU", init_std=_STD, att_hidden_size=(8, 4),
                             att_activation="sigmoid", att_weight_normalization=True)
    _r19b_spread(layer.attention)
    return layer, (query, keys, keys_length), {}


def _r19b_attention_pooling(training: bool) -> Built:
    from deepctr_torch.layers.sequence import AttentionSequencePoolingLayer

    query = torch.randn(6, 1, 4)
    keys = torch.randn(6, 5, 4)
    keys_length = torch.tensor([[0], [1], [5], [3], [2], [1]])
    layer = AttentionSequencePoolingLayer(att_hidden_units=(8, 4), att_activation="Dice", weight_normalization=True,
                                          embedding_dim=4)
    _r19b_spread(layer)
    return layer, (query, keys, keys_length), {}


def _r19b_pool(layer: Any, seq_value: torch.Tensor, seq_len_or_mask: torch.Tensor) -> torch.Tensor:
    """``layer([seq_value, seq_len_or_mask])``: ``SequencePoolingLayer`` takes one list; the wrapper
    takes the two tensors as arguments so that the embeddings require grad in training."""
    return layer([seq_value, seq_len_or_mask])


def _r19b_pool_mean_lengths(training: bool) -> Built:
    from deepctr_torch.layers.sequence import SequencePoolingLayer

    seq_value = torch.randn(6, 6, 4)
    lengths = torch.tensor([[0], [1], [6], [3], [1], [4]])
    layer = SequencePoolingLayer(mode="mean", supports_masking=False, device="cpu")
    layer.train(training)
    return _r19b_pool, (layer, seq_value, lengths), {}


def _r19b_pool_max_id_mask(training: bool) -> Built:
    from deepctr_torch.layers.sequence import SequencePoolingLayer

    seq_value = torch.randn(6, 4, 4)
    ids = torch.tensor([[0, 0, 0, 0], [3, 1, 6, 2], [5, 0, 0, 0], [2, 4, 0, 0], [5, 0, 3, 0], [1, 0, 0, 0]])
    mask = ids != 0  # as get_varlen_pooling_list masks a sequence without a length column
    layer = SequencePoolingLayer(mode="max", supports_masking=True, device="cpu")
    layer.train(training)
    return _r19b_pool, (layer, seq_value, mask), {}


# --- rows --------------------------------------------------------------------------------

_X = (
    "X mixes ids, sequence ids and lengths stored as floats with dense values (as BaseModel.fit/predict build "
    "it), so it is frozen: in training the gradient reaches the embeddings and the layers' parameters"
)
_POOLING = (
    "`get_varlen_pooling_list` (inputs.py:141-155: a Python loop over the sequence columns, a "
    "`length_name is None` test) builds a `SequencePoolingLayer` per sequence per call (layers/sequence.py:27-36: "
    "a Python `mode` test with a `raise`, `torch.FloatTensor([1e-8]).to(device)`, `self.to(device)`) and calls it"
)
_ID_MASK = (
    "the id mask `features[:, a:b].long() != 0` -> `SequencePoolingLayer.forward` (sequence.py:49-77: "
    "`supports_masking` branch: `mask.float()`, `torch.sum(mask, dim=-1, keepdim=True)` as the length, "
    "`unsqueeze`, `repeat_interleave(mask, embedding_size, dim=2)` (a Python int from the shape), `* mask`, `sum`"
)
_LEN_MASK = (
    "the length column `.long()` -> `SequencePoolingLayer.forward` (sequence.py:49-77: `_sequence_mask(lengths, "
    "maxlen=shape[1])` (sequence.py:38-47: `torch.arange(0, maxlen, 1).to(device) < lengths.unsqueeze(-1)`, the "
    "discarded `mask.type(dtype)`), `transpose`, `repeat_interleave` by the embedding size, `* mask.float()`, `sum`"
)
_EMBED = (
    "`embedding_lookup` (inputs.py:183-210: a Python loop over columns with `feature_name in return_feat_list` "
    "tests, `np.array(sparse_input_dict[name])` as the slice bounds, `X[:, a:b].long()`, `nn.Embedding`, a "
    "`defaultdict(list)` flattened by `chain.from_iterable`)"
)
_DIEN_EMB = (
    "`DIEN._get_emb` (dien.py:106-146: Python loops splitting the sequence columns by name, three " + _EMBED
    + " calls, `maxlen_lookup` (inputs.py:241-245: `np.array` bounds, `.long()`), `squeeze`)"
)
_EXTRACTOR = (
    "`InterestExtractor.forward` (dien.py:193-234: `torch.zeros`, `mask = keys_length > 0`, `keys_length[mask]` "
    "(a boolean-mask read), `if masked_keys_length.shape[0] == 0: return zero_outputs,` (a Python test of a "
    "data-dependent size), `torch.masked_select(keys, mask.view(-1, 1, 1)).view(-1, max_length, dim)`, "
    "`pack_padded_sequence(masked_keys, lengths=masked_keys_length.cpu(), batch_first=True, enforce_sorted=False)` "
    "(torch/nn/utils/rnn.py:302-324: `lengths.to(int64)`, `torch.sort(descending=True)`, `index_select`, "
    "`_VF._pack_padded_sequence`: batch_sizes from the length values), `nn.GRU` on the PackedSequence "
    "(torch/nn/modules/rnn.py:1378-1470: `max_batch_size = batch_sizes[0]` as a `torch.zeros` size, "
    "`check_forward_args` -> `int(batch_sizes[0])` (rnn.py:337), `_VF.gru` with batch_sizes, `permute_hidden`), "
    "`pad_packed_sequence(total_length=max_length)` (torch/nn/utils/rnn.py:382-399: `if total_length < "
    "batch_sizes.size(0)`, `_VF._pad_packed_sequence`, `index_select` by `unsorted_indices`, "
    "`lengths[unsorted_indices.cpu()]`), `self.use_neg and neg_keys is not None`)"
)
_EVOLVING_HEAD = (
    "`InterestEvolving.forward` (dien.py:329-381: `zeros`, `mask = keys_length > 0`, `keys_length[mask]`, `if "
    "keys_length.shape[0] == 0: return zero_outputs`, `torch.masked_select(query, mask.view(-1, 1)).view(-1, "
    "dim).unsqueeze(1)` (data-dependent sizes), the `gru_type` string tests"
)
_EVOLVING_TAIL = "`zero_outputs[mask] = outputs` (dien.py:380: a boolean-mask setitem putting the kept rows back)"
_ATTENTION = (
    "`AttentionSequencePoolingLayer.forward` (layers/sequence.py:106-154: `keys.size()` unpacked, the "
    "`supports_masking` test, `torch.arange(max_length, dtype=keys_length.dtype).repeat(batch_size, 1) < "
    "keys_length.view(-1, 1)`, `LocalActivationUnit` (layers/core.py:51-64: `expand`, `cat` of query, keys, "
    "difference and product, `DNN`, `Linear`), `transpose`, the `weight_normalization` test (paddings of "
    "`-2 ** 32 + 1` or zeros), `torch.where`, softmax, the `return_score` test, `matmul`)"
)
_DNN_OUT = (
    "`combined_dnn_input` (inputs.py:126-138: Python `len` tests, `flatten`, `cat`), `DNN.forward` "
    "(layers/core.py:120-134: a Python loop over the layers, the `use_bn` test, in-place ReLU, Dropout), the "
    "output `Linear`, `PredictionLayer.forward` (core.py:154-160: `output += self.bias` in place, `sigmoid`)"
)
_LINEAR = (
    "`Linear.forward` (models/basemodel.py:58-88: list comprehensions of `nn.Embedding` lookups by the column "
    "slices, `X.new_zeros`, in-place `+=` of the sparse and dense logits, `matmul(self.weight)`)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r19b_deepctr_din_dice_forward", *DEEPCTR,
            "module: deepctr_torch.models.DIN(columns, ['item', 'cate'], dnn_hidden_units=(8, 4), att_hidden_size="
            "(8, 4), init_std=0.1, device='cpu')(X (6, 19) float32: user, gender, item, cate ids, a dense score, the "
            "item and category histories (maxlen 5) with seq_length [0, 1, 5, 3, 1, 2], tags (maxlen 3, mean, masked "
            "by ids, 2/0/3/1/0/1 tags)); returns the click probability (6, 1)",
            ("deepctr_torch",), _r19b_din, frozen=("0",),
            notes="Deep Interest Network with its default Dice attention activation (batch-normalized: batch "
            "statistics in training) and unnormalized attention weights; histories of length 0, 1 and 5 (maxlen); "
            "an empty history pools to zeros; the deep net's and the attention unit's Linear weights are redrawn "
            "from N(0, 0.1) after construction (module docstring's bug (8)); " + _X,
            patterns="no tensor value reaches Python; modules built in the call. `DIN.forward` (models/din.py:83-123)"
            " -> `input_from_feature_columns` (models/basemodel.py:360-386: Python filters of the columns by type, "
            "embedding lookups by column slices, `varlen_embedding_lookup` (inputs.py:213-227) of all three "
            "sequences, then " + _POOLING + " on the two histories (" + _LEN_MASK + ") and tags (" + _ID_MASK
            + "), 'mean' also `self.eps = self.eps.to(...)` (an attribute written in the forward) and `div`; the "
            "histories' pooled result is discarded), " + _EMBED + " three times, `varlen_embedding_lookup` and "
            "`get_varlen_pooling_list` again for tags, `maxlen_lookup` (inputs.py:241-245: a Python list of length "
            "names, `np.array` bounds), " + _ATTENTION + " with Dice (layers/activation.py:35-45: `assert x.dim() == "
            "3`, `transpose`, BatchNorm1d, `sigmoid`), `cat`, `view`, " + _DNN_OUT,
        ),
        Row(
            "r19b_deepctr_dien_gru_forward", *DEEPCTR,
            "module: deepctr_torch.models.DIEN(columns, ['item', 'cate'], gru_type='GRU', dnn_hidden_units=(8, 4), "
            "att_hidden_units=(8, 4), init_std=0.1, device='cpu')(X (6, 16) float32: user, gender, item, cate ids, "
            "a dense score, item and category histories (maxlen 5) with seq_length [2, 0, 5, 1, 4, 0]); returns the "
            "click probability (6, 1)",
            ("deepctr_torch",), _r19b_dien_gru, frozen=("0",),
            notes="Deep Interest Evolution Network, plain GRU evolution with attention pooling (relu attention, "
            "normalized weights); two empty histories (dropped by both layers and restored as zero rows), one of "
            "length 1 and one at maxlen; the attention unit's Linear weights redrawn from N(0, 0.1); " + _X,
            patterns="`DIEN.forward` (models/dien.py:88-104) -> " + _DIEN_EMB + ", " + _EXTRACTOR + ", "
            "`self.add_auxiliary_loss` (an attribute written in the forward, models/basemodel.py:436-437), "
            + _EVOLVING_HEAD + "; 'GRU' (dien.py:355-361): `pack_padded_sequence` of the kept rows, `nn.GRU`, "
            "`pad_packed_sequence(total_length=max_length)`, " + _ATTENTION + ", `squeeze`), " + _EVOLVING_TAIL
            + ", `_get_deep_input_emb` (dien.py:174-178: " + _EMBED + "), `concat_fun`, `get_dense_input` "
            "(inputs.py:230-238: `np.array` bounds), " + _DNN_OUT,
        ),
        Row(
            "r19b_deepctr_dien_aigru_forward", *DEEPCTR,
            "module: deepctr_torch.models.DIEN(columns, ['item', 'cate'], gru_type='AIGRU', dnn_hidden_units=(8, 4),"
            " att_hidden_units=(8, 4), init_std=0.1, device='cpu')(X (6, 16) float32 as in the GRU row, seq_length "
            "[5, 1, 0, 3, 5, 2]); returns the click probability (6, 1)",
            ("deepctr_torch",), _r19b_dien_aigru, frozen=("0",),
            notes="DIEN with attention-scaled inputs to a plain GRU whose last hidden state is the interest; one "
            "empty history, one of length 1, two at maxlen; the attention unit's Linear weights redrawn from N(0, "
            "0.1); " + _X,
            patterns="`DIEN.forward` (models/dien.py:88-104) -> " + _DIEN_EMB + ", " + _EXTRACTOR + ", "
            "`add_auxiliary_loss`, " + _EVOLVING_HEAD + "; 'AIGRU' (dien.py:362-368): " + _ATTENTION + " with "
            "`return_score=True`, `keys * att_scores.transpose(1, 2)`, `pack_padded_sequence(lengths=keys_length"
            ".cpu(), enforce_sorted=False)`, `nn.GRU` on the PackedSequence (its hidden state unsorted by "
            "`permute_hidden`), `squeeze(0)`), " + _EVOLVING_TAIL + ", `_get_deep_input_emb`, `get_dense_input`, "
            + _DNN_OUT,
        ),
        Row(
            "r19b_deepctr_dien_augru_negsampling_aux_loss", *DEEPCTR,
            "wrapper: y = deepctr_torch.models.DIEN(columns, ['item', 'cate'], gru_type='AUGRU', "
            "use_negsampling=True, dnn_hidden_units=(8, 4), att_hidden_units=(8, 4), init_std=0.1, device='cpu')(X "
            "(6, 26) float32: the GRU row's columns plus non-clicked item and category histories, seq_length [1, 4, "
            "0, 5, 1, 2]); returns (y (6, 1), model.aux_loss (0-d))",
            ("deepctr_torch",), _r19b_dien_augru_negsampling, frozen=("1",),
            notes="DIEN's full training computation: AUGRU evolution (DynamicGRU) and the auxiliary click/no-click "
            "loss that `fit` adds (the wrapper returns the attribute the forward stores); the builder sets the "
            "model's mode (a plain function); an empty history (dropped), two of length 1 (kept by the extractor, "
            "dropped by the auxiliary loss: no next step), one at maxlen; the AUGRU cell's two biases are one "
            "parameter (module docstring's bug (3)); the attention unit's Linear weights redrawn from N(0, 0.1); "
            + _X,
            patterns="`DIEN.forward` (models/dien.py:88-104) -> " + _DIEN_EMB + " (`use_negsampling`: a fourth "
            "lookup), " + _EXTRACTOR + " with `use_neg`: a `masked_select` of the negative keys and "
            "`_cal_auxiliary_loss` (dien.py:236-273: `mask_shape = keys_length > 0` on `masked_keys_length - 1`, "
            "`keys_length[mask_shape]`, `if keys_length.shape[0] == 0`, three `masked_select(...).view(-1, ...)`, "
            "`arange(...).repeat(batch_size, 1) < keys_length.view(-1, 1)`, two `DNN` (sigmoid) passes with "
            "`view(...)[mask > 0]` (boolean-mask reads of data-dependent size), `ones`/`zeros` of those sizes, "
            "`binary_cross_entropy`), `add_auxiliary_loss`, " + _EVOLVING_HEAD + "; 'AUGRU' (dien.py:369-378): "
            + _ATTENTION + " with `return_score=True`, two `pack_padded_sequence`s (interests, scores), "
            "`DynamicGRU.forward` (layers/sequence.py:296-320: `isinstance` tests with a `raise`, PackedSequence "
            "unpacking, `int(batch_sizes[0])`, `zeros`, `for batch in batch_sizes:` (a loop over a tensor: one "
            "step per time step), `inputs[begin:begin + batch]`, `hx[0:batch]`, `att_scores[begin:begin + batch]` "
            "(0-d tensors as slice bounds), `AUGRUCell.forward` (sequence.py:269-282: `F.linear`, `chunk`, gates), "
            "`outputs[begin:begin + batch] = new_hx`, `begin += batch`), `pad_packed_sequence`, `_get_last_state` "
            "(dien.py:319-327: `arange(...).repeat(...) == keys_length.view(-1, 1) - 1`, `states[mask]`)), "
            + _EVOLVING_TAIL + ", `_get_deep_input_emb`, `get_dense_input`, " + _DNN_OUT,
        ),
        Row(
            "r19b_deepctr_interest_extractor_negsampling", *DEEPCTR,
            "module: deepctr_torch.models.dien.InterestExtractor(input_size=4, use_neg=True, init_std=0.1)(keys "
            "(6, 5, 4), keys_length (6,) int64 [2, 0, 5, 1, 3, 1], neg_keys (6, 5, 4)); returns (interests (5, 5, "
            "4), aux_loss (0-d))",
            ("deepctr_torch",), _r19b_interest_extractor_neg,
            notes="DIEN's interest extractor layer on its own (GRU over the packed non-empty histories, padded back "
            "to maxlen) with the auxiliary loss of negative sampling; one empty history (the output has 5 rows), "
            "two of length 1 (no step for the auxiliary loss), one at maxlen; in training the keys and negative "
            "keys require grad",
            patterns=_EXTRACTOR + "; with `use_neg`: `masked_select` of `neg_keys`, `_cal_auxiliary_loss` "
            "(dien.py:236-273: `keys_length[mask_shape]` for lengths - 1 > 0, `if keys_length.shape[0] == 0`, "
            "`masked_select(...).view(-1, ...)` x3, an `arange` mask, `DNN` passes read by `[mask > 0]` (boolean-"
            "mask reads), `ones`/`zeros` of those sizes, `cat`, `binary_cross_entropy`)",
        ),
        Row(
            "r19b_deepctr_interest_evolving_agru", *DEEPCTR,
            "module: deepctr_torch.models.dien.InterestEvolving(input_size=8, gru_type='AGRU', init_std=0.1, "
            "att_hidden_size=(8, 4), att_activation='sigmoid', att_weight_normalization=True)(query (6, 8), keys "
            "(4, 6, 8) (the 4 non-empty rows' interests), keys_length (6,) int64 [3, 0, 6, 1, 0, 2]); returns (6, 8)",
            ("deepctr_torch",), _r19b_interest_evolving_agru,
            notes="DIEN's interest evolution layer with the attentional GRU (DynamicGRU over AGRUCell); two empty "
            "rows (zeros in the output), one of length 1, one at maxlen (6 loop steps); the attention unit's "
            "Linear weights redrawn from N(0, 0.1); in training the query and the keys require grad",
            patterns=_EVOLVING_HEAD + "; 'AGRU' (dien.py:369-378): " + _ATTENTION + " with `return_score=True`, "
            "`squeeze`, two `pack_padded_sequence(lengths=keys_length.cpu(), enforce_sorted=False)` (torch/nn/utils/"
            "rnn.py:302-324: `torch.sort`, `index_select`, `_VF._pack_padded_sequence`), `DynamicGRU.forward` "
            "(layers/sequence.py:296-320: `isinstance` tests with a `raise`, `int(batch_sizes[0])`, `for batch in "
            "batch_sizes:` with 0-d tensors as slice bounds, `AGRUCell.forward` (sequence.py:223-235), a slice "
            "setitem per step), `pad_packed_sequence(total_length=max_length)`, `_get_last_state` (dien.py:319-327:"
            " an `==` mask, `states[mask]`)), " + _EVOLVING_TAIL,
        ),
        Row(
            "r19b_deepctr_attention_pooling_dice_control", *DEEPCTR,
            "module: deepctr_torch.layers.sequence.AttentionSequencePoolingLayer(att_hidden_units=(8, 4), "
            "att_activation='Dice', weight_normalization=True, embedding_dim=4)(query (6, 1, 4), keys (6, 5, 4), "
            "keys_length (6, 1) int64 [0, 1, 5, 3, 2, 1]); returns (6, 1, 4)",
            ("deepctr_torch",), _r19b_attention_pooling,
            notes="control: DIN's attention pooling with normalized weights; the empty row's softmax is uniform "
            "over its padding (module docstring's bug (5)); Dice batch-normalizes (batch statistics in training); "
            "the Linear weights redrawn from N(0, 0.1); in training the query and keys require grad",
            patterns="control: no tensor value reaches Python. " + _ATTENTION + ", with Dice (layers/activation.py:"
            "35-45: `assert x.dim() == 3`, `transpose`, BatchNorm1d, `sigmoid`, the `alpha` blend)",
        ),
        Row(
            "r19b_deepctr_sequence_pooling_mean_lengths", *DEEPCTR,
            "wrapper: deepctr_torch.layers.sequence.SequencePoolingLayer(mode='mean', supports_masking=False, "
            "device='cpu')([seq_value (6, 6, 4), lengths (6, 1) int64 [0, 1, 6, 3, 1, 4]]); returns (6, 1, 4)",
            ("deepctr_torch",), _r19b_pool_mean_lengths,
            notes="the pooling of a sequence feature with a length column (what `get_varlen_pooling_list` builds "
            "and calls in every model's forward); lengths 0 (zeros: 0 / (0 + 1e-8)), 1 and maxlen; the wrapper "
            "only passes the layer its list, so that seq_value requires grad in training",
            patterns="no tensor value reaches Python. `SequencePoolingLayer.forward` (layers/sequence.py:49-77: the "
            "`supports_masking` test, `_sequence_mask(lengths, maxlen=shape[1])` (sequence.py:38-47: `maxlen is "
            "None` false, `torch.arange(0, maxlen, 1).to(device)`, `<` the unsqueezed lengths, `mask.type(dtype)` "
            "discarded), `transpose`, `repeat_interleave(mask, embedding_size, dim=2)`, the `mode` tests, "
            "`* mask.float()`, `sum`, `self.eps = self.eps.to(device)` (an attribute written in the forward), "
            "`div` by `lengths.type(float32) + eps`, `unsqueeze`)",
        ),
        Row(
            "r19b_deepctr_sequence_pooling_max_id_mask", *DEEPCTR,
            "wrapper: deepctr_torch.layers.sequence.SequencePoolingLayer(mode='max', supports_masking=True, "
            "device='cpu')([seq_value (6, 4, 4), mask (6, 4) bool: ids != 0, rows of 0, 4, 1, 2, 2 (with a gap) "
            "and 1 ids]); returns (6, 1, 4)",
            ("deepctr_torch",), _r19b_pool_max_id_mask,
            notes="'max' pooling of a sequence masked by its ids (the mask `get_varlen_pooling_list` builds without "
            "a length column; not a prefix where an id 0 sits inside); the empty row returns its embeddings minus "
            "1e9 (module docstring's bug (2)); the wrapper passes the layer its list, so that seq_value requires "
            "grad in training",
            patterns="no tensor value reaches Python. `SequencePoolingLayer.forward` (layers/sequence.py:49-68: "
            "`supports_masking` branch (`mask.float()`, `torch.sum(mask, dim=-1, keepdim=True)`, `unsqueeze(2)`), "
            "`repeat_interleave` by the embedding size, the `mode == 'max'` test, `seq_value - (1 - mask) * 1e9`, "
            "`torch.max(dim=1, keepdim=True)[0]`)",
        ),
        Row(
            "r19b_deepctr_wdl_varlen_forward", *DEEPCTR,
            "module: deepctr_torch.models.WDL(columns, columns, dnn_hidden_units=(8, 4), init_std=0.1, device="
            "'cpu')(X (6, 13) float32: user, item ids, a dense price, genres (maxlen 4, mean, masked by ids, "
            "0/2/4/1/3/0 genres), clicks (maxlen 5, sum, sharing item's embedding, clicks_len [3, 0, 1, 5, 2, 5])); "
            "returns the click probability (6, 1)",
            ("deepctr_torch",), _r19b_wdl_varlen, frozen=("0",),
            notes="Wide & Deep with both kinds of sequence feature in the wide (1-d embeddings) and the deep part: "
            "each forward builds four SequencePoolingLayers; empty, one-element and full sequences of both kinds; "
            + _X,
            patterns="no tensor value reaches Python; modules built in the call. `WDL.forward` (models/wdl.py:60-75)"
            " -> `input_from_feature_columns` (models/basemodel.py:360-386: embedding lookups by column slices, "
            "`varlen_embedding_lookup` (inputs.py:213-227: a `use_hash` test, `X[:, a:b].long()`), " + _POOLING
            + " for genres (" + _ID_MASK + ", 'mean': `self.eps = self.eps.to(...)`, `div`) and clicks (" + _LEN_MASK
            + "), 'sum')), " + _LINEAR + " with the same two pooled sequences (`get_varlen_pooling_list` again: two "
            "more layers built), " + _DNN_OUT,
        ),
        Row(
            "r19b_deepctr_deepfm_control", *DEEPCTR,
            "module: deepctr_torch.models.DeepFM(columns, columns, dnn_hidden_units=(8, 4), dnn_dropout=0.2, "
            "init_std=0.1, device='cpu')(X (8, 6) float32: user, item, cate, hour ids, dense price and age); returns "
            "the click probability (8, 1)",
            ("deepctr_torch",), _r19b_deepfm_control, frozen=("0",),
            notes="control: DeepFM on id and dense columns only (no sequence feature); dropout draws from torch's "
            "generator, seeded before the call; " + _X,
            patterns="control: no tensor value reaches Python and nothing is built in the call. `DeepFM.forward` "
            "(models/deepfm.py:67-86) -> `input_from_feature_columns` (models/basemodel.py:360-386: type filters, "
            "`nn.Embedding` lookups by column slices, empty sequence lists), " + _LINEAR + ", `use_fm` and `len` "
            "tests, `cat`, `FM.forward` (layers/interaction.py:26-34: square of sum minus sum of squares), `+=`, "
            + _DNN_OUT,
        ),
        Row(
            "r19b_deepctr_xdeepfm_control", *DEEPCTR,
            "module: deepctr_torch.models.xDeepFM(columns, columns, dnn_hidden_units=(8, 4), cin_layer_size=(4, 4), "
            "init_std=0.1, device='cpu')(X (8, 4) float32: user, item, cate ids, a dense price); returns the click "
            "probability (8, 1)",
            ("deepctr_torch",), _r19b_xdeepfm_control, frozen=("0",),
            notes="control: xDeepFM (compressed interaction network beside the DNN) on id and dense columns only; "
            + _X,
            patterns="control: no tensor value reaches Python and nothing is built in the call. `xDeepFM.forward` "
            "(models/xdeepfm.py:79-107) -> `input_from_feature_columns`, " + _LINEAR + ", `CIN.forward` (layers/"
            "interaction.py:207-248: a Python `len(inputs.shape)` test, a loop over the layer sizes: `einsum`, "
            "`reshape`, `Conv1d`, the activation test, `torch.split` by `split_half`), `cin_linear`, the Python "
            "`len` tests choosing the logit sum, " + _DNN_OUT,
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round nineteen (b)")
