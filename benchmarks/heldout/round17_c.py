"""Held-out round seventeen (r17c): rwkv.

Chosen by reading the library's source, written down in ROUND17.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

rwkv 0.8.32 (BlinkDL's inference package for the RWKV language models) holds
``rwkv.model.RWKV`` (RWKV-4 to RWKV-6 in one class; the version is read from the
checkpoint's keys) and ``rwkv.utils.PIPELINE`` (tokenizer, ``sample_logits``,
``generate``).  ``RWKV(model, strategy)`` takes a checkpoint *file name*
(model.py:637-642: ``model.strip()``, ``.endswith('.pth')``, ``torch.load(name,
map_location='cpu')``) and converts the weights in its constructor (transposes,
``exp`` of the decays, the ``ln0`` layer norm folded into the embedding, uint8
quantization for an ``i8`` strategy).  No row writes a file: the builders
``torch.save`` a seeded random state dict into an ``io.BytesIO`` whose
``strip()`` returns itself and whose ``endswith()`` is true, so the library's own
constructor (unchanged, ``verbose=False``) ``torch.load``s it from memory.  The
models are tiny (width 32, two layers, FFN 64, head size 8; vocabulary 65536,
the world tokenizer's, for the ``generate`` rows, 256 or 128 elsewhere) in the
RWKV-4, 5.1, 5.2 and 6.0 layouts, on strategy ``'cpu fp32'`` (and ``'cpu
fp32i8'``, uint8 weights, for the RWKV-4 row).  ``PIPELINE(model,
'rwkv_vocab_v20230424')`` reads the vocabulary the package ships
(rwkv/rwkv_vocab_v20230424.txt, no download) into a pure-Python trie (about
2.5 s); it is built once per process and each build takes a shallow copy with
its own model, the fields ``__init__`` sets (``model``, ``tokenizer``), the
tokenizer being read-only.

The data-dependent code (file:line relative to the ``rwkv`` package):
``PIPELINE.sample_logits`` (utils.py:55-88): on a CPU tensor ``softmax`` then
``probs.cpu().numpy()`` (utils.py:63, the tensor leaves torch), ``np.argsort``,
``np.cumsum``, ``cutoff = float(sorted_probs[np.argmax(cumulative_probs >=
top_p)])`` (utils.py:67, a value read into Python), ``probs[probs < cutoff] =
0`` (a boolean-mask setitem, in numpy on the softmax's memory), the top-k
index setitem, ``probs ** (1 / temperature)``, ``np.random.choice(a=len(probs),
p=probs)`` and ``int(out)`` (numpy's global generator; the torch branch,
utils.py:76-88, with ``torch.multinomial`` and ``cumsum(...).cpu().numpy()``,
is taken only off the CPU); ``PIPELINE.generate`` (utils.py:90-135): the
prompt encoded by the trie (rwkv_tokenizer.py:170-222, Python on bytes), the
chunked prefill ``while len(tokens) > 0: out, state =
self.model.forward(tokens[:chunk_len], state)``, ``out[n] = -inf`` for banned
ids and ``out[n] -= presence + count * frequency`` for every id already
produced (index setitems on the logits), ``sample_logits``, ``if token in
args.token_stop: break`` (the loop's length decided by a sampled value), the
occurrence dictionary keyed by sampled ids, ``decode`` and ``if '\\ufffd' not in
tmp:`` (text emitted, and the callback called, only at whole UTF-8
characters).  ``RWKV.forward`` (model.py:1443-1677) itself holds no tensor
value in Python: it runs under ``with torch.no_grad()`` (model.py:1444), builds
the zero state list when ``state == None``, picks the sequence or the one-token
path by ``len(tokens) > 1`` (tokens are a Python list of ids, indexing the
embedding), reads ``os.environ["RWKV_CUDA_ON"]`` in the sequence path
(model.py:1486), writes the new state tensors into the caller's list in place,
and the sequence attention of RWKV-4, 5.2 and 6.0 is a Python loop over the
time steps with index setitems (model.py:1070-1084, 1245-1251, 1327-1333); it is
the control (one row).

Global state on import: rwkv.model reads environment variables when it is
imported (model.py:17-29, 99, 143, 170, 174): ``RWKV_JIT_ON`` (anything but
``'0'`` makes the model a ``torch.jit.ScriptModule`` with scripted methods and
functions, and the module sets it to ``'1'``), ``RWKV_CUDA_ON`` (``'1'``
compiles the CUDA kernels with ``torch.utils.cpp_extension.load``; otherwise the
module sets it to ``'0'``), ``RWKV_DML_ON`` (imports torch_directml) and
``RWKV_V7_ON`` (``'1'`` replaces ``RWKV`` by the RWKV-7 class, which is always
TorchScript); ``RWKV_RESCALE_LAYER`` is read by the constructor (unset here;
fp32 strategies then rescale nothing).  The builders set ``RWKV_JIT_ON=0``,
``RWKV_CUDA_ON=0`` and ``RWKV_V7_ON=0`` in ``os.environ`` before the first
``import rwkv.model`` (so the model is a plain ``nn.Module`` and its methods
and ``mm8``/``matmul`` helpers plain Python functions), and check
``rwkv.model.MyModule is torch.nn.Module`` afterwards (a module imported earlier
with other settings makes the builder raise).  The import itself sets
``torch.backends.cudnn.benchmark = True``, ``torch.backends.cudnn.allow_tf32 =
True`` (torch's default already) and ``torch.backends.cuda.matmul.allow_tf32 =
True`` (model.py:10-12, which turns ``torch.get_float32_matmul_precision()``
from ``'highest'`` to ``'high'``); the builder puts them back as they were right
after the import, through the same legacy attributes (torch refuses to read a
TF32 flag last written through the other API), so afterwards
``torch.backends.cuda.matmul.fp32_precision`` reads ``'ieee'`` where it read
``'none'`` (the same precision).  ``import rwkv.model`` loads no other package
(not ``torch._dynamo``), adds no warning filter and no logger, and changes
neither grad mode, default dtype or device, threads nor the deterministic flag;
with ``RWKV_V7_ON=1`` or ``RWKV_DML_ON=1`` it would also print a banner.  ``rwkv.utils`` imports
numpy.  Constructing a ``PIPELINE`` with the world tokenizer inserts the
package's directory at ``sys.path[0]`` (utils.py:29; once per construction:
the builders construct one per process) and imports ``rwkv_tokenizer`` a second
time as a top-level module.  The sampling rows draw from numpy's global
generator, which the harness does not seed: their builders call
``np.random.seed(...)`` (every harness call follows a fresh build); the greedy
rows (``top_p=0``) draw too, but from a one-hot distribution.  No row prints,
warns or logs inside the call.

Library bugs (checked eagerly; no row takes these paths): (1) ``top_p=1.0``
(meant as "no nucleus cut") usually decodes greedily: ``np.argmax(cumsum >=
top_p)`` (utils.py:67) is 0 when the float32 cumulative sum ends below 1.0
(0.9999968 for a 65536-way softmax), so the cutoff is the largest probability
(170 of 200 random 65536-logit vectors; ``sample_logits`` then returned the
argmax 20 times in 20); the torch branch (utils.py:80-81) has the same test.
(2) The version detection reads the head count from ``att.time_decay`` only
once an ``ln_x`` key has made the version 5 (model.py:667-675); in the
checkpoint's key order (``time_decay`` before ``ln_x`` within a block) the first
block's ``time_decay`` is skipped, so a one-layer RWKV-5 checkpoint (5.0, 5.1 or
5.2) never sets ``args.n_head`` and ``forward`` raises ``AttributeError``
(model.py:1470); models of two or more layers are detected correctly.
(3) ``generate`` waits for a whole UTF-8 character by decoding every id since
the last emitted text (utils.py:129-134), and ``TRIE_TOKENIZER.decode`` turns
every exception into ``'\\ufffd'`` (a bare ``except``, rwkv_tokenizer.py:225-228),
so once the pending bytes can never decode (a partial character followed by an
id that does not continue it, or an id without a vocabulary entry: 0, the
end-of-text id, and 65530-65535, whose ``KeyError`` is swallowed alike) the
call emits no more text and calls the callback no more, silently (seen with
this module's sampled RWKV-5.2 row under ``np.random.seed(1717)``: 5 pieces
for 8 ids); only ``token_stop`` or ``token_ban`` keeps the bad ids out.
"""

from __future__ import annotations

import copy
import functools
import io
import os
import sys
from typing import Any

import numpy as np
import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

RWKV_PKG = ("rwkv", "0.8.32")

_WORD_NAME = "rwkv_vocab_v20230424"


# --- the package, a model from an in-memory checkpoint, the pipeline -------------------


def _r17c_rwkv_model_module() -> Any:
    """``rwkv.model``, imported with TorchScript and the CUDA kernels off (the environment
    variables it reads at import), and torch's cuDNN/TF32 flags put back as they were."""
    os.environ["RWKV_JIT_ON"] = "0"
    os.environ["RWKV_CUDA_ON"] = "0"
    os.environ["RWKV_V7_ON"] = "0"
    if "rwkv.model" not in sys.modules:
        # model.py:10-12 sets these three through the legacy API; they are put back through it too (torch
        # refuses to read a TF32 flag last written through the other API).
        flags = [(torch.backends.cudnn, "benchmark"), (torch.backends.cudnn, "allow_tf32"),
                 (torch.backends.cuda.matmul, "allow_tf32")]
        saved = [getattr(owner, name) for owner, name in flags]
        precision = torch.get_float32_matmul_precision()
        import rwkv.model  # noqa: F401

        for (owner, name), value in zip(flags, saved):
            if getattr(owner, name) != value:
                setattr(owner, name, value)
        if torch.get_float32_matmul_precision() != precision:
            torch.set_float32_matmul_precision(precision)
    import rwkv.model as model_module

    if model_module.MyModule is not torch.nn.Module or getattr(model_module, "RWKV_x070", None) is not None:
        raise RuntimeError("rwkv.model was imported with RWKV_JIT_ON/RWKV_V7_ON set: the rows need plain nn.Modules")
    return model_module


class _R17cInMemoryCheckpoint(io.BytesIO):
    """A ``torch.save``d state dict in memory, passed where ``RWKV`` takes a file name: the
    constructor calls ``model.strip()`` and ``model.endswith('.pth')`` (model.py:637-639), then
    ``torch.load(model, map_location='cpu')`` (model.py:642), which reads a file-like object."""

    def strip(self) -> _R17cInMemoryCheckpoint:
        return self

    def endswith(self, suffix: Any) -> bool:
        return True


def _r17c_state_dict(version: float, vocab: int, width: int = 32, layers: int = 2, ffn: int = 64,
                     head_size: int = 8) -> dict[str, torch.Tensor]:
    """A random RWKV checkpoint in the layout (key names, shapes, key order) of BlinkDL's
    RWKV-4 / 5.1 / 5.2 / 6.0 ``.pth`` files; ``emb`` and ``head`` have std 1 (peaked logits)."""
    heads = width // head_size
    w: dict[str, torch.Tensor] = {"emb.weight": torch.randn(vocab, width)}

    def norm(name: str) -> None:
        w[name + ".weight"] = 1.0 + 0.1 * torch.randn(width)
        w[name + ".bias"] = 0.1 * torch.randn(width)

    def linear(name: str, rows: int, cols: int) -> None:
        w[name + ".weight"] = torch.randn(rows, cols) * cols ** -0.5

    for i in range(layers):
        b = f"blocks.{i}."
        if i == 0:
            norm(b + "ln0")
        norm(b + "ln1")
        norm(b + "ln2")
        a = b + "att."
        if version == 6.0:
            for k in "xwkvrg":
                w[a + f"time_maa_{k}"] = torch.rand(1, 1, width)
            w[a + "time_maa_w1"] = 0.1 * torch.randn(width, 5 * 4)
            w[a + "time_maa_w2"] = 0.1 * torch.randn(5, 4, width)
            w[a + "time_decay"] = torch.randn(1, 1, width)
            w[a + "time_decay_w1"] = 0.1 * torch.randn(width, 4)
            w[a + "time_decay_w2"] = 0.1 * torch.randn(4, width)
            w[a + "time_faaaa"] = 0.5 * torch.randn(heads, head_size)
        else:
            for k in "kvr" if version == 4 else "kvrg":
                w[a + f"time_mix_{k}"] = torch.rand(1, 1, width)
            shape = (width,) if version == 4 else (heads, head_size) if version == 5.2 else (heads,)
            w[a + "time_decay"] = torch.randn(shape)
            w[a + "time_first"] = 0.5 * torch.randn(shape)
        for k in ("receptance", "key", "value", "output"):
            linear(a + k, width, width)
        if version != 4:
            linear(a + "gate", width, width)
            norm(a + "ln_x")
        f = b + "ffn."
        for k in "kr":
            w[f + (f"time_maa_{k}" if version == 6.0 else f"time_mix_{k}")] = torch.rand(1, 1, width)
        linear(f + "key", ffn, width)
        linear(f + "receptance", width, width)
        linear(f + "value", width, ffn)
    norm("ln_out")
    w["head.weight"] = torch.randn(vocab, width)
    return w


def _r17c_model(version: float, vocab: int, strategy: str = "cpu fp32") -> Any:
    """``rwkv.model.RWKV`` built by its own constructor from a random checkpoint held in memory."""
    model_module = _r17c_rwkv_model_module()
    checkpoint = _R17cInMemoryCheckpoint()
    torch.save(_r17c_state_dict(version, vocab), checkpoint)
    checkpoint.seek(0)
    model = model_module.RWKV(checkpoint, strategy, verbose=False)
    assert model.version == version, (model.version, version)
    return model


@functools.lru_cache(maxsize=1)
def _r17c_pipeline_template() -> Any:
    """One ``PIPELINE`` with the world tokenizer per process (reading the package's vocabulary
    into the trie takes seconds)."""
    from rwkv.utils import PIPELINE

    return PIPELINE(None, _WORD_NAME)


def _r17c_pipeline(model: Any) -> Any:
    """A ``PIPELINE`` for ``model``: a shallow copy of the template with ``model`` set (the two
    fields ``PIPELINE.__init__`` sets; the tokenizer is shared and never written)."""
    pipeline = copy.copy(_r17c_pipeline_template())
    pipeline.model = model
    return pipeline


# --- rows' builders ----------------------------------------------------------------------

_PROMPT = "\nUser: hi there\n\nAssistant:"  # 9 tokens of the world vocabulary


def _r17c_forward_seq_control(training: bool) -> Built:
    model = _r17c_model(6.0, 256)
    tokens = torch.randint(0, 256, (8,)).tolist()
    return model, (tokens, None), {"full_output": True}


def _r17c_generate_run(pipeline: Any, ctx: str, token_count: int, args: Any,
                       state: Any = None) -> tuple[str, list[str]]:
    pieces: list[str] = []
    text = pipeline.generate(ctx, token_count=token_count, args=args, callback=pieces.append, state=state)
    return text, pieces


def _r17c_generate_greedy(training: bool) -> Built:
    from rwkv.utils import PIPELINE_ARGS

    pipeline = _r17c_pipeline(_r17c_model(6.0, 65536))
    args = PIPELINE_ARGS(temperature=1.0, top_p=0.0, alpha_frequency=0.3, alpha_presence=0.3, token_ban=[0],
                         chunk_len=4)
    return _r17c_generate_run, (pipeline, _PROMPT, 8, args), {}


def _r17c_generate_sampled_state(training: bool) -> Built:
    from rwkv.utils import PIPELINE_ARGS

    model = _r17c_model(5.2, 65536)
    pipeline = _r17c_pipeline(model)
    # a conversation's earlier turn, prefilled as a chat loop does, continued by generate
    _, state = model.forward(pipeline.encode("\nSystem: answer briefly.\n"), None)
    args = PIPELINE_ARGS(temperature=0.8, top_p=0.6, top_k=12, alpha_frequency=0.2, alpha_presence=0.2,
                         token_ban=[0])
    np.random.seed(1718)
    return _r17c_generate_run, (pipeline, "\nUser: hello\n\nAssistant:", 8, args, state), {}


# The id the greedy decode of this seeded model produces at its fifth step (checked eagerly).
_STOP_ID = 6700


def _r17c_generate_stop_i8(training: bool) -> Built:
    from rwkv.utils import PIPELINE_ARGS

    pipeline = _r17c_pipeline(_r17c_model(4, 65536, "cpu fp32i8"))
    args = PIPELINE_ARGS(temperature=1.0, top_p=0.0, alpha_frequency=0.25, alpha_presence=0.25,
                         token_ban=[0], token_stop=[_STOP_ID], chunk_len=5)
    return pipeline.generate, ("\nQ: why?\n\nA:",), {"token_count": 12, "args": args}


def _r17c_sample_logits(training: bool) -> Built:
    pipeline = _r17c_pipeline(None)
    np.random.seed(1720)
    return pipeline.sample_logits, (2.0 * torch.randn(65536),), {"temperature": 0.7, "top_p": 0.7, "top_k": 40}


def _r17c_token_decode_run(model: Any, pipeline: Any, prompt: list[int], token_count: int,
                           args: Any) -> tuple[list[int], torch.Tensor, list[torch.Tensor]]:
    """``PIPELINE.generate``'s loop (utils.py:91-125) on token ids, for a model whose vocabulary is
    not the world tokenizer's (as RWKV's music demos drive ``model.forward`` and
    ``pipeline.sample_logits``): no text, so every occurrence weighs 1; returns the ids, the last
    logits and the state."""
    all_tokens: list[int] = []
    occurrence: dict[int, float] = {}
    state = None
    for i in range(token_count):
        tokens = prompt if i == 0 else [token]
        while len(tokens) > 0:
            out, state = model.forward(tokens[:args.chunk_len], state)
            tokens = tokens[args.chunk_len:]
        for n in args.token_ban:
            out[n] = -float("inf")
        for n in occurrence:
            out[n] -= args.alpha_presence + occurrence[n] * args.alpha_frequency
        token = pipeline.sample_logits(out, temperature=args.temperature, top_p=args.top_p, top_k=args.top_k)
        if token in args.token_stop:
            break
        all_tokens += [token]
        for xxx in occurrence:
            occurrence[xxx] *= args.alpha_decay
        occurrence[token] = occurrence.get(token, 0) + 1
    return all_tokens, out, state


def _r17c_token_decode_loop(training: bool) -> Built:
    from rwkv.utils import PIPELINE_ARGS

    model = _r17c_model(5.1, 128)
    args = PIPELINE_ARGS(temperature=1.0, top_p=0.8, top_k=0, alpha_frequency=0.5, alpha_presence=0.5,
                         token_ban=[0], chunk_len=4)
    prompt = torch.randint(1, 128, (6,)).tolist()
    np.random.seed(1719)
    return _r17c_token_decode_run, (model, _r17c_pipeline(model), prompt, 10, args), {}


# --- rows ------------------------------------------------------------------------------

_NO_GRAD = (
    "`RWKV.forward` runs its whole body under `with torch.no_grad()` (model.py:1444) and the constructor sets "
    "`requires_grad = False` on every weight (model.py:775), so no call has a gradient path"
)
_BUILD = (
    "the model is built by rwkv's own constructor from a seeded random checkpoint `torch.save`d into memory (no "
    "file); the builder imports rwkv.model with RWKV_JIT_ON=0, RWKV_CUDA_ON=0, RWKV_V7_ON=0 (plain nn.Module, no "
    "TorchScript)"
)
_PIPE = (
    "the PIPELINE is a shallow copy, with this build's model, of one built per process with the package's world "
    "vocabulary (read from rwkv/rwkv_vocab_v20230424.txt in the builder, never in the call)"
)
_FWD = (
    "`RWKV.forward` (model.py:1443-1677: `with torch.no_grad()`, `state == None` -> the zero state list, "
    "`seq_mode = len(tokens) > 1`, the embedding indexed by the Python id list, per layer the ATT/FFN method chosen "
    "by Python version tests (model.py:1485-1518, `os.environ['RWKV_CUDA_ON']` read in the sequence path), weight "
    "dict lookups with `wtype == torch.uint8` tests, the new state tensors written into the caller's list, "
    "`x[-1, :]`, `ln_out`, the head, `.float()`)"
)
_SAMPLE = (
    "`PIPELINE.sample_logits` (utils.py:55-75: `temperature == 0` test, `F.softmax(logits.float())`, "
    "`probs.device.type in ['cpu', ...]` -> `probs.cpu().numpy()` (the tensor leaves torch), `np.argsort`, reversed "
    "fancy index, `np.cumsum`, `cutoff = float(sorted_probs[np.argmax(cumulative_probs >= top_p)])` (a value read "
    "into Python), `probs[probs < cutoff] = 0` (a boolean-mask setitem on the softmax's memory)"
)
_GEN = (
    "`PIPELINE.generate` (utils.py:90-135): `for i in range(token_count)`: at i = 0 `self.encode(ctx)` (the "
    "trie tokenizer, rwkv_tokenizer.py:207-222: a Python `while` over the prompt's bytes, `find_longest`), then "
    "`[token]` (a sampled Python int); `while len(tokens) > 0: out, state = self.model.forward(tokens[:chunk_len], "
    "state)`; `for n in args.token_ban: out[n] = -inf` and `for n in occurrence: out[n] -= (presence + "
    "occurrence[n] * frequency)` (index setitems on the logits keyed by sampled ids); `sample_logits`; `if token in "
    "args.token_stop: break`; the occurrence decay; `self.decode([token])` and `ttt in ' \\t0123456789'` (the "
    "occurrence weight); `tmp = self.decode(all_tokens[out_last:])`, `if '\\ufffd' not in tmp:` -> `if callback: "
    "callback(tmp)`, `out_str += tmp`"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r17c_rwkv_forward_seq_control", *RWKV_PKG,
            "module: RWKV(in-memory RWKV-6.0 checkpoint (vocabulary 256, width 32, 2 layers, 4 heads of 8), "
            "'cpu fp32')(tokens: a list of 8 ids, state=None, full_output=True); returns (logits (8, 256), the state "
            "list of 6 tensors)",
            ("rwkv",), _r17c_forward_seq_control, modes=INFERENCE,
            notes="inference only: " + _NO_GRAD + "; " + _BUILD,
            patterns="control: no tensor value reaches Python. " + _FWD + " in the sequence path: per layer "
            "`att_seq_v6_0` (model.py:1301-1340: token shift by `cat`, the data-dependent mix (`tanh`, `bmm`, "
            "`unbind`), decay `exp(-exp(...))`, `for t in range(T)` over the 8 steps with `out[t] = ...` (an index "
            "setitem per step) and the state recurrence, `group_norm`, gate) and `ffn_seq_v6` (model.py:1019-1029); "
            "the `matmul` helper (model.py:127-140: dtype tests) -> `matmul_float`",
        ),
        Row(
            "r17c_rwkv_pipeline_generate_greedy_penalties", *RWKV_PKG,
            "wrapper: PIPELINE(RWKV(in-memory RWKV-6.0 checkpoint (vocabulary 65536, width 32, 2 layers), "
            "'cpu fp32'), 'rwkv_vocab_v20230424').generate(a 9-token chat prompt, token_count=8, "
            "args=PIPELINE_ARGS(temperature=1.0, top_p=0.0, alpha_frequency=0.3, alpha_presence=0.3, token_ban=[0], "
            "chunk_len=4), callback=list.append); returns (the generated text, the callback's pieces)",
            ("rwkv",), _r17c_generate_greedy, modes=INFERENCE,
            notes="inference only: the call returns strings; " + _NO_GRAD + "; top_p=0 makes the nucleus the most "
            "probable id alone (greedy decoding; `np.random.choice` still draws from numpy's generator, but from a "
            "one-hot distribution); the 9-token prompt is prefilled in chunks of 4, 4 and 1, so the last chunk takes "
            "the one-token path; every step emits a piece (checked eagerly); " + _BUILD + "; " + _PIPE,
            patterns=_GEN + "; prefill: `RWKV.forward` sequence path twice (`att_seq_v6_0`'s `for t in range(4)` "
            "loop with `out[t] =` setitems) and the one-token path (`att_one_v6_0`, `ffn_one_v6`), then one "
            "one-token forward per step; " + _FWD + "; " + _SAMPLE + " with `top_p = 0` (the cutoff is the largest "
            "probability), `probs / np.sum(probs)`, `np.random.choice(a=65536, p=probs)`, `int(out)`)",
        ),
        Row(
            "r17c_rwkv_pipeline_generate_sampled_from_state", *RWKV_PKG,
            "wrapper: PIPELINE(RWKV(in-memory RWKV-5.2 checkpoint (vocabulary 65536, width 32, 2 layers), "
            "'cpu fp32'), 'rwkv_vocab_v20230424').generate('\\nUser: hello\\n\\nAssistant:', token_count=8, "
            "args=PIPELINE_ARGS(temperature=0.8, top_p=0.6, top_k=12, alpha_frequency=0.2, alpha_presence=0.2, "
            "token_ban=[0]), callback=list.append, state=the state after a prefilled system line); returns (text, "
            "pieces)",
            ("rwkv",), _r17c_generate_sampled_state, modes=INFERENCE,
            notes="inference only: the call returns strings; " + _NO_GRAD + "; the builder prefills an earlier "
            "turn with `model.forward` (as a chat loop keeps its state) and seeds numpy's global generator "
            "(`np.random.seed(1718)`), which `sample_logits` draws from and the harness does not seed; the call "
            "writes the new state tensors into that state list in place (a fresh one per build); all 8 sampled ids "
            "decode to whole characters, so every step emits a piece (checked eagerly); " + _BUILD + "; " + _PIPE,
            patterns=_GEN + "; the prompt in one chunk (chunk_len 256): `RWKV.forward` sequence path with the given "
            "state (`att_seq_v5_2`, model.py:1227-1258: a `for t in range(T)` loop with `out[t] =` setitems; "
            "`ffn_seq`), then the one-token path per step (`att_one_v5_1`, used for 5.2 too, model.py:1513; "
            "`ffn_one`); " + _FWD + "; " + _SAMPLE + ", `probs[sorted_ids[:-12]] = 0` (the top-k index setitem, "
            "utils.py:69-70), `probs ** (1.0 / 0.8)`, `probs / np.sum(probs)`, `np.random.choice` (a sampled id), "
            "`int(out)`)",
        ),
        Row(
            "r17c_rwkv_pipeline_generate_stop_token_int8", *RWKV_PKG,
            "bound method: PIPELINE(RWKV(in-memory RWKV-4 checkpoint (vocabulary 65536, width 32, 2 layers), "
            "'cpu fp32i8'), 'rwkv_vocab_v20230424').generate('\\nQ: why?\\n\\nA:', token_count=12, args="
            "PIPELINE_ARGS(temperature=1.0, top_p=0.0, alpha_frequency=0.25, alpha_presence=0.25, token_ban=[0], "
            f"token_stop=[{_STOP_ID}], chunk_len=5)); returns the generated text",
            ("rwkv",), _r17c_generate_stop_i8, modes=INFERENCE,
            notes="inference only: the call returns strings; " + _NO_GRAD + "; the 'i8' strategy quantizes the "
            "matrices to uint8 in the constructor (in the builder); greedy decoding (top_p=0); the stop id is the "
            "one this seeded model's greedy decode produces at its fifth step (checked eagerly), so the loop breaks "
            "there, before token_count; " + _BUILD + "; " + _PIPE,
            patterns=_GEN + " (`if token in args.token_stop: break` true at the fifth step); prefill in chunks of "
            "5 and 3: `RWKV.forward` sequence path (RWKV-4 `att_seq`, model.py:1058-1086: a `for t in range(T)` "
            "loop of the numerically stable WKV recurrence (`torch.maximum`, `exp`) with `sx[t] = ...` index "
            "setitems; `ffn_seq`), then `att_one`/`ffn_one` per step; every matrix product through `matmul` "
            "(model.py:127-140: `b.dtype == torch.uint8` -> four `assert ... is not None` -> `mm8` (model.py:122-125: "
            "`len(x.shape) == 1` picks `mm8_one`/`mm8_seq`) -> `torch_mm8_*` (dequantize and matmul, model.py:"
            "91-97)), the head by `mm8_one` (model.py:1669-1675); " + _FWD + "; " + _SAMPLE + " with `top_p = 0`, "
            "`np.random.choice` of a one-hot distribution, `int(out)`)",
        ),
        Row(
            "r17c_rwkv_pipeline_sample_logits_top_k", *RWKV_PKG,
            "bound method: PIPELINE(..., 'rwkv_vocab_v20230424').sample_logits(logits (65536,) ~ 2 * N(0, 1), "
            "temperature=0.7, top_p=0.7, top_k=40); returns the sampled id (a Python int)",
            ("rwkv",), _r17c_sample_logits, modes=INFERENCE,
            notes="inference only: the result is a Python int drawn by numpy; a logits tensor that requires grad "
            "cannot be sampled at all (`probs.cpu().numpy()` raises 'Can't call numpy() on Tensor that requires "
            "grad'; checked eagerly); the builder seeds numpy's global generator (`np.random.seed(1720)`), which "
            "the harness does not seed; " + _PIPE + " (no model)",
            patterns=_SAMPLE + ", `int(top_k)`, `top_k < len(probs) and top_k > 0` -> `probs[sorted_ids[:-40]] = "
            "0` (an index setitem of 65496 ids, utils.py:69-70), `temperature != 1.0` -> `probs ** (1.0 / 0.7)`, "
            "`probs / np.sum(probs)`, `np.random.choice(a=65536, p=probs)`, `int(out)`)",
        ),
        Row(
            "r17c_rwkv_token_decode_loop_sampled", *RWKV_PKG,
            "wrapper: PIPELINE.generate's decode loop written out on token ids (no tokenizer) over RWKV(in-memory "
            "RWKV-5.1 checkpoint, vocabulary 128, width 32, 2 layers, 'cpu fp32').forward and PIPELINE.sample_logits: "
            "a 6-id prompt, 10 steps, PIPELINE_ARGS(temperature=1.0, top_p=0.8, alpha_frequency=0.5, "
            "alpha_presence=0.5, token_ban=[0], chunk_len=4); returns (the sampled ids, the last logits (128,), the "
            "state list)",
            ("rwkv",), _r17c_token_decode_loop, modes=INFERENCE,
            notes="inference only: " + _NO_GRAD + "; the loop is utils.py:91-125 line for line except the text "
            "(no tokenizer: every occurrence weighs 1), as for a model whose vocabulary is not the world "
            "tokenizer's (RWKV's music demos drive `model.forward` and `pipeline.sample_logits` so); the builder "
            "seeds numpy's global generator (`np.random.seed(1719)`); " + _BUILD + "; " + _PIPE,
            patterns="the loop: `for i in range(10)`, the prompt then `[token]` (a sampled Python int), `while "
            "len(tokens) > 0:` chunks of 4 and 2 -> `RWKV.forward` sequence path (`att_seq_v5_1`, model.py:"
            "1184-1222: the decay matrix built in closed form from `arange`, `pow`, `pad`, `tile` of Python-int "
            "shapes, no loop; `ffn_seq`), then the one-token path (`att_one_v5_1`, model.py:1157-1181; `ffn_one`); "
            + _FWD + "; `out[0] = -inf`, `out[n] -= 0.5 + occurrence[n] * 0.5` (index setitems keyed by sampled "
            "ids), " + _SAMPLE + ", `probs / np.sum(probs)`, `np.random.choice(a=128, p=probs)`, `int(out)`); `if "
            "token in args.token_stop` (empty), the occurrence dictionary",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round seventeen (c)")
