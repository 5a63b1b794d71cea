"""Held-out round sixteen (r16a): openai-whisper and torchdr.

Chosen by reading each library's source, written down in ROUND16.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.

The whisper rows build one tiny ``whisper.model.Whisper`` from
``ModelDimensions`` (80 mels, audio context 16 (mel length 32), width 32, 2
heads, 1 audio layer; the full multilingual vocabulary 51865, text context 24,
2 text layers) with random weights.  The builder initializes two tensors the
library leaves to the checkpoint: the text decoder's ``positional_embedding``
(model.py:214, ``torch.empty``: uninitialized memory, so two builds would differ)
and the token embedding (normal, std 0.02, as in GPT-style inits; with
``nn.Embedding``'s std-1 init the residual stream is the token's own embedding
and greedy decoding repeats one token).  The multilingual tokenizer is read
from the package's own ``assets/multilingual.tiktoken`` (no download); the
builders warm ``get_tokenizer``'s ``lru_cache`` so no call reads the file.
The data-dependent code: the decoding loop (decoding.py:680-710: per step the
kv-cached decoder, ``no_speech_probs = probs[...].tolist()`` at step 0, the
logit filters, the token decoder, ``if completed or tokens.shape[-1] >
self.n_ctx: break``, a tensor in a Python ``if``); the logit filters
(decoding.py:410-505: ``SuppressBlank``'s shape test, ``SuppressTokens``' index
setitem, ``ApplyTimestampRules.apply``: a Python loop over the batch with
``sampled_tokens.tolist()``, Python tests on token ids, a boolean-mask read
``sampled_tokens[sampled_tokens.ge(timestamp_begin)]``, ``if timestamps.numel()
> 0``, ``timestamps[-1]`` used as a slice bound, ``if timestamp_logprob >
max_text_token_logprob:`` on tensors); ``GreedyDecoder.update``
(decoding.py:277-293: argmax, a boolean-mask setitem ``next_tokens[tokens[:, -1]
== eot] = eot``, ``completed = (...).all()``) and ``finalize`` (``.tolist()``);
``BeamSearchDecoder.update``/``finalize`` (decoding.py:323-403: ``tokens[idx].
tolist()``, ``topk`` pairs read with ``.item()`` into Python dicts keyed by
token tuples, ``sorted`` by score, ``torch.tensor(next_tokens)``,
``rearrange_kv_cache``'s list comparison and fancy index, ``np.argsort`` of a
tensor row); ``DecodingTask.run`` (decoding.py:713-789: ``(t == eot).nonzero()[0,
0]`` as a slice bound, the ranker's ``np.argmax``, ``tolist``, the tokenizer's
``decode``, zlib ``compression_ratio``); ``detect_language`` (decoding.py:18-77:
a boolean-mask setitem of -inf and 99 ``.item()`` calls per audio into
dictionaries).  The control is ``Whisper.forward`` (encoder then teacher-forced
decoder, no cache): its only Python decisions read shapes.

The torchdr rows use tiny point clouds (24-32 points in 4 dimensions) with the
pure-torch backend (``backend=None``, ``device='cpu'``, no KeOps, no FAISS) and
``verbose=False``.  The data-dependent code: ``binary_search`` and
``init_bounds`` (utils/root_search.py:16-77, 146-198: ``if not active.any():
break`` and ``if not mask.any(): break`` convergence tests, boolean-mask reads
and ``masked_scatter_``; the functions are decorated ``@torch.compiler.disable``
by the library); the tensor-valued neighbor counts of ``check_neighbor_param``
(utils/validation.py:223-243) meeting ``if k >= A.shape[dim]`` and ``topk(k=k)``
in ``kmin`` (utils/utils.py:228-241); Sinkhorn's ``check_NaNs`` (``if
torch.isnan(x).any()``) and ``if torch.norm(dual - reduction) < tol: break``
(affinity/entropic.py:738-743); the silhouette score's ``torch.unique``,
``torch.where`` index lists, Python loops over the clusters, ``if
pos_i.shape[0] > 1`` on data-dependent sizes and ``warnings.warn`` for a
one-point cluster (eval/silhouette.py:94-168); the neighbor-embedding fit loops
(affinity_matcher.py:389-431: ``check_NaNs`` per step, ``if self.n_iter_ %
self.check_interval == 0`` on a tensor, ``grad.norm(2).item()`` and a Python
convergence test; base.py:132-144: ``torch.unique(X, dim=0,
return_inverse=True)`` and a size test for duplicate points; UMAP's sparse
symmetrization with ``torch.unique`` and ``counts.max().item()`` as a size
(utils/sparse.py:55, 129-130), its per-edge epoch counters (boolean-mask
updates) and ``repeat_interleave`` of data-dependent counts).

Global state on import: neither library changes torch's global state (default
dtype and device, grad mode, threads, torch-function modes, deterministic flag,
matmul precision, print options, anomaly mode, cuDNN flags) or the warning
filters.  ``import whisper`` loads numba, llvmlite, scipy, tiktoken and yaml,
but not ``torch._dynamo``.  ``import torchdr`` loads ``torch._dynamo`` and
``torch._inductor`` (its ``@torch.compiler.disable`` decorators), sklearn, scipy,
pandas, matplotlib, sympy and triton.  It raises an ``ImportWarning`` (FAISS
not installed; ignored by the default filters).  It also makes a logger
``NormalizedGaussianAffinity`` (level WARNING, a stderr handler, propagating),
because ``KernelPCA``'s default argument builds an affinity at import.  No row
prints, except the silhouette row's own ``UserWarning``, which the library raises
by design.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)
TRAINING = ("training",)

WHISPER = ("openai-whisper", "20250625")
TORCHDR = ("torchdr", "0.5")


# --- whisper ---------------------------------------------------------------------------


def _r16a_whisper_model() -> Any:
    """A tiny multilingual Whisper with random weights, and the tokenizers decode and
    detect_language look up (warmed here so that no call reads the tiktoken file)."""
    from whisper.model import ModelDimensions, Whisper
    from whisper.tokenizer import get_tokenizer

    dims = ModelDimensions(
        n_mels=80, n_audio_ctx=16, n_audio_state=32, n_audio_head=2, n_audio_layer=1, n_vocab=51865,
        n_text_ctx=24, n_text_state=32, n_text_head=2, n_text_layer=2,
    )
    model = Whisper(dims)
    with torch.no_grad():
        # torch.empty in the library (a checkpoint fills it): initialize it.
        model.decoder.positional_embedding.normal_(0.0, 0.02)
        model.decoder.token_embedding.weight.normal_(0.0, 0.02)
    get_tokenizer(True, num_languages=99, language="en", task="transcribe")
    get_tokenizer(True, num_languages=99)
    return model


def _r16a_whisper_results(results: Any) -> list[tuple[Any, ...]]:
    if not isinstance(results, list):
        results = [results]
    return [
        (r.tokens, r.text, r.language, r.avg_logprob, r.no_speech_prob, r.compression_ratio, r.audio_features)
        for r in results
    ]


def _r16a_whisper_decode_run(model: Any, mel: torch.Tensor, options: Any) -> list[tuple[Any, ...]]:
    import whisper

    return _r16a_whisper_results(whisper.decode(model, mel, options))


def _r16a_whisper_decode_greedy(training: bool) -> Built:
    from whisper.decoding import DecodingOptions

    model = _r16a_whisper_model()
    return _r16a_whisper_decode_run, (model, torch.randn(3, 80, 32), DecodingOptions(fp16=False, sample_len=10)), {}


def _r16a_whisper_decode_beam(training: bool) -> Built:
    from whisper.decoding import DecodingOptions

    model = _r16a_whisper_model()
    options = DecodingOptions(fp16=False, language="en", beam_size=2, patience=1.5, sample_len=8)
    return _r16a_whisper_decode_run, (model, torch.randn(80, 32), options), {}


def _r16a_whisper_detect_language(training: bool) -> Built:
    model = _r16a_whisper_model()
    return model.detect_language, (torch.randn(3, 80, 32),), {}


def _r16a_whisper_filters_run(model: Any, task: Any, mel: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    logits = model(mel, tokens)[:, -1]
    for logit_filter in task.logit_filters:
        logit_filter.apply(logits, tokens)
    return logits.softmax(dim=-1)


def _r16a_whisper_filters_step(training: bool) -> Built:
    from whisper.decoding import DecodingOptions, DecodingTask

    model = _r16a_whisper_model()
    task = DecodingTask(model, DecodingOptions(fp16=False, language="en"))
    sot = list(task.initial_tokens)  # <|startoftranscript|><|en|><|transcribe|>
    ts, eot = task.tokenizer.timestamp_begin, task.tokenizer.eot
    tokens = torch.tensor([
        sot + [ts, 1411, ts + 16, ts + 16],  # a closed timestamp pair: text must follow
        sot + [ts, 1411, 2220, ts + 26],  # an opening timestamp: no text, no earlier timestamp
        sot + [ts + 1, 1411, ts + 8, 2220],  # text last: timestamps before ts + 9 masked
        sot + [ts, 1411, ts + 12, eot],  # finished with EOT (treated as text by the rules)
    ])
    return _r16a_whisper_filters_run, (model, task, torch.randn(4, 80, 32), tokens), {}


def _r16a_whisper_forward_control(training: bool) -> Built:
    model = _r16a_whisper_model()
    tokens = torch.tensor([[50258, 50259, 50359, 50364, 1411, 2220, 50380]] * 2)
    return model, (torch.randn(2, 80, 32), tokens), {}


# --- torchdr ---------------------------------------------------------------------------


def _r16a_tdr_entropic(training: bool) -> Built:
    from torchdr import EntropicAffinity

    return EntropicAffinity(perplexity=5, max_iter=100, device="cpu"), (torch.randn(30, 4),), {}


def _r16a_tdr_sinkhorn(training: bool) -> Built:
    from torchdr import SinkhornAffinity

    affinity = SinkhornAffinity(eps=5.0, tol=1e-5, max_iter=60, with_grad=True, device="cpu")
    return affinity, (torch.randn(24, 4),), {}


def _r16a_tdr_silhouette_run(X: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    from torchdr import silhouette_score

    return silhouette_score(X, labels, metric="manhattan")


def _r16a_tdr_silhouette(training: bool) -> Built:
    import torchdr  # noqa: F401

    # Three clusters of 10, 9 and 10 points and one point alone (cluster 3).
    labels = torch.tensor([0] * 10 + [1] * 9 + [2] * 10 + [3])
    X = torch.randn(30, 4) + 2.0 * labels[:, None].float()
    return _r16a_tdr_silhouette_run, (X, labels), {}


def _r16a_tdr_umap(training: bool) -> Built:
    from torchdr import UMAP

    X = torch.randn(32, 4)
    X[30] = X[3]  # two duplicated points: fit_transform reduces to the 30 unique ones
    X[31] = X[7]
    umap = UMAP(n_neighbors=5, max_iter=30, check_interval=10, backend=None, device="cpu")
    return umap.fit_transform, (X,), {}


def _r16a_tdr_tsne(training: bool) -> Built:
    from torchdr import TSNE

    tsne = TSNE(perplexity=5, max_iter=20, early_exaggeration_iter=10, check_interval=5, backend=None, device="cpu")
    return tsne.fit_transform, (torch.randn(30, 4),), {}


# --- rows ------------------------------------------------------------------------------

_W_MODEL = (
    "Whisper(ModelDimensions(n_mels=80, n_audio_ctx=16, n_audio_state=32, n_audio_head=2, n_audio_layer=1, "
    "n_vocab=51865, n_text_ctx=24, n_text_state=32, n_text_head=2, n_text_layer=2)), random weights"
)
_W_INIT = (
    "the builder fills the decoder's `positional_embedding` (left `torch.empty` by the library, model.py:214) and "
    "the token embedding with normal(0, 0.02), and warms `get_tokenizer`'s lru_cache (the tiktoken file is read "
    "from the package's assets in the builder, never in the call)"
)
_W_LOOP = (
    "`DecodingTask._main_loop` (decoding.py:680-710): `for i in range(sample_len)`: `PyTorchInference.logits` "
    "(decoding.py:155-163: `if not self.kv_cache` installs the kv-cache forward hooks on the first step "
    "(model.py:310-341; `save_to_cache` tests `output.shape[1] > n_text_ctx` and `torch.cat(...).detach()`s), "
    "`tokens[:, -1:]` after the first step; `TextDecoder.forward` reads the offset from a cached tensor's shape "
    "(model.py:234), `MultiHeadAttention.forward` tests `self.key not in kv_cache` (model.py:101), SDPA with "
    "`is_causal` from Python shapes (model.py:123-126)); at step 0 `no_speech_probs = probs_at_sot[:, "
    "no_speech].tolist()` (decoding.py:693); the logit filters `SuppressBlank` (decoding.py:415-417: `if "
    "tokens.shape[1] == sample_begin` then an index setitem of -inf on ' ' and EOT), `SuppressTokens` "
    "(decoding.py:424-425: an index setitem of -inf over 90 ids)"
)
_W_TS = (
    "`ApplyTimestampRules.apply` (decoding.py:440-505): `logits[:, no_timestamps] = -inf`; `for k in "
    "range(batch)`: `seq = sampled_tokens.tolist()`, Python tests `seq[-1] >= timestamp_begin` deciding "
    "`logits[k, timestamp_begin:] = -inf` or `logits[k, :eot] = -inf`, `timestamps = sampled_tokens["
    "sampled_tokens.ge(timestamp_begin)]` (a boolean-mask read), `if timestamps.numel() > 0:` then "
    "`logits[k, timestamp_begin : timestamps[-1] (+ 1)] = -inf` (a tensor as a slice bound); at the first step "
    "`logits[:, :timestamp_begin] = -inf` and the `max_initial_timestamp` cut; then `log_softmax` and per row "
    "`if timestamp_logprob > max_text_token_logprob:` (decoding.py:504, a tensor in a Python `if`) -> "
    "`logits[k, :timestamp_begin] = -inf`"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r16a_whisper_decode_greedy_timestamps", *WHISPER,
            f"wrapper: whisper.decode({_W_MODEL}, mel (3, 80, 32), DecodingOptions(fp16=False, sample_len=10)) "
            "(language detected, timestamps on, greedy); returns per audio (tokens, text, language, avg_logprob, "
            "no_speech_prob, compression_ratio, audio_features)",
            ("whisper",), _r16a_whisper_decode_greedy, modes=INFERENCE,
            notes="inference only: `decode` and `DecodingTask.run` are decorated `@torch.no_grad()` and return "
            "token ids, strings and Python floats (only the encoder features are tensors, without grad); " + _W_INIT
            + "; no sequence reaches EOT within the 10 steps (the timestamp rules force timestamp pairs around "
            "one text token), so `completed` is tested and false at every step",
            patterns="`decode` (decoding.py:792-826: `mel.ndim == 2`, `replace(options)`) -> `DecodingTask.__init__` "
            "(decoding.py:514-570: tokenizer, suppress-token list, `round(max_initial_timestamp / precision)`) -> "
            "`run` (decoding.py:713-789): the encoder (`assert x.shape[1:] == positional_embedding.shape`, "
            "model.py:197), `_detect_language` (decoding.py:666-678) -> `detect_language` (decoding.py:18-77: "
            "`mask[list(all_language_tokens)] = False`, `logits[:, mask] = -inf` (a boolean-mask setitem), argmax, "
            "softmax, 3 x 99 `language_token_probs[i, j].item()` into dicts), `max(probs, key=probs.get)` in "
            "Python, `tokens[:, sot_index + 1] = lang_tokens`; " + _W_LOOP + "; " + _W_TS + "; `GreedyDecoder."
            "update` (decoding.py:277-293: `temperature == 0` -> argmax, `log_softmax`, gather, `sum_logprobs += "
            "current_logprobs * (tokens[:, -1] != eot)`, `next_tokens[tokens[:, -1] == eot] = eot` (a boolean-mask "
            "setitem), `completed = (...).all()`) -> `if completed or tokens.shape[-1] > n_ctx: break` "
            "(decoding.py:705, a tensor in a Python `if`; false at all 10 steps); then `GreedyDecoder.finalize` "
            "(`F.pad`, `sum_logprobs.tolist()`), `t[sample_begin : (t == eot).nonzero()[0, 0]]` (a nonzero read "
            "as a slice bound, decoding.py:750), `MaximumLikelihoodRanker.rank` (decoding.py:199-213: `np.argmax` of "
            "Python scores), `.tolist()`, `tokenizer.decode`, `compression_ratio` (utils.py:45-47, zlib)",
        ),
        Row(
            "r16a_whisper_decode_beam_search", *WHISPER,
            f"wrapper: whisper.decode({_W_MODEL}, mel (80, 32), DecodingOptions(fp16=False, language='en', "
            "beam_size=2, patience=1.5, sample_len=8)) (timestamps on); returns [(tokens, text, language, "
            "avg_logprob, no_speech_prob, compression_ratio, audio_features)]",
            ("whisper",), _r16a_whisper_decode_beam, modes=INFERENCE,
            notes="inference only: `decode` runs under `@torch.no_grad()` and returns token ids, strings and "
            "floats; one audio, because this release's beam search fails for a batch (decoding.py:734 repeats "
            "the tokens by the beam size but not the audio features, so cross-attention raises a size mismatch "
            "for 2 audios; with one audio the features broadcast); no beam finishes within 8 steps, so "
            "`finalize` fills the candidates from the unfinished beams; " + _W_INIT,
            patterns="`decode` -> `DecodingTask.__init__` (`BeamSearchDecoder(2, eot, inference, 1.5)`: "
            "`max_candidates = round(2 * 1.5)`) -> `run`: encoder, no language detection, `tokens.repeat_interleave"
            "(2)`; " + _W_LOOP + "; " + _W_TS + "; `BeamSearchDecoder.update` (decoding.py:323-380: `if "
            "tokens.shape[0] % beam_size`, `finished_sequences` lists, `log_softmax`, per beam `prefix = "
            "tokens[idx].tolist()` and `for logprob, token in zip(*logprobs[idx].topk(3))`: `(sum_logprobs[idx] + "
            "logprob).item()`, `token.item()` into a dict keyed by token tuples; `sorted(scores, key=scores.get)`, "
            "`if sequence[-1] == eot`, `sum_logprobs[len(next_tokens)] = score` (a Python float written into a "
            "tensor), `torch.tensor(next_tokens)`, `rearrange_kv_cache(source_indices)` (decoding.py:172-176: "
            "`if source_indices != list(range(...))` then each cached k/v `[source_indices].detach()`), finished "
            "bookkeeping, `completed = all(len(...) >= max_candidates)` (Python)) -> loop `break` test; "
            "`finalize` (decoding.py:383-403: `for j in list(np.argsort(sum_logprobs[i]))[::-1]` (numpy on a "
            "tensor), `preceding_tokens[i, j].tolist()`, `sum_logprobs[i][j].item()`, `torch.tensor(seq)`) -> "
            "the `nonzero` slice, the length-normalized ranker, `tokenizer.decode`",
        ),
        Row(
            "r16a_whisper_detect_language", *WHISPER,
            f"bound method: ({_W_MODEL}).detect_language(mel (3, 80, 32)); returns (language token ids (3,), "
            "3 dicts of 99 language probabilities)",
            ("whisper",), _r16a_whisper_detect_language, modes=INFERENCE,
            notes="inference only: `detect_language` is decorated `@torch.no_grad()` and returns token ids and "
            "Python floats; the tokenizer is looked up inside the call (`get_tokenizer(True, num_languages=99)`, "
            "warmed in the builder)",
            patterns="`detect_language` (decoding.py:18-77): `get_tokenizer` (lru_cache), `tokenizer.language_token "
            "not in tokenizer.sot_sequence` (Python), `mel.ndim == 2`, `if mel.shape[-2:] != (n_audio_ctx, "
            "n_audio_state)` -> the encoder (model.py:188-204: two Conv1d + GELU, the shape `assert`, one block); "
            "`torch.tensor([[sot]] * 3)`, `model.logits` (the decoder, no cache) `[:, 0]`; `mask = ones(51865, "
            "bool)`, `mask[list(tokenizer.all_language_tokens)] = False`, `logits[:, mask] = -inf` (a boolean-mask "
            "setitem), `argmax`, `softmax`, then `for i in range(3)`: a dict comprehension of 99 "
            "`language_token_probs[i, j].item()` (297 tensor values read into Python)",
        ),
        Row(
            "r16a_whisper_logit_filters_teacher_forced", *WHISPER,
            f"wrapper: logits = ({_W_MODEL})(mel (4, 80, 32), tokens (4, 7))[:, -1]; the logit filters of "
            "DecodingTask(model, DecodingOptions(fp16=False, language='en')) (SuppressBlank, SuppressTokens, "
            "ApplyTimestampRules) applied in place; returns the softmax of the filtered logits (4, 51865)",
            ("whisper",), _r16a_whisper_filters_step,
            notes="the four token prefixes (start-of-transcript sequence then 4 sampled tokens) put the rows in "
            "different branches of the timestamp rules: a closed timestamp pair, an opening timestamp, text last, "
            "and a row ending in EOT; in training the filters write -inf in place into a view of the decoder's "
            "output and the gradient reaches the parameters and the mel through the softmax; the DecodingTask "
            "(tokenizer, filters) is built in the builder; the greedy decoder's `update` is left out, because it "
            "cannot be backpropagated (decoding.py:286 indexes with `next_tokens`, which line 289 then writes in "
            "place: autograd's version check fails; checked eagerly); " + _W_INIT,
            patterns="`Whisper.forward` (model.py:293-296: encoder, decoder without cache) -> `SuppressBlank.apply` "
            "(decoding.py:415-417: `tokens.shape[1] == sample_begin` false) -> `SuppressTokens.apply` "
            "(decoding.py:424-425: index setitem of -inf) -> " + _W_TS + " (rows 0-2 take the three pair branches; "
            "not the first step)",
        ),
        Row(
            "r16a_whisper_forward_control", *WHISPER,
            f"module: ({_W_MODEL})(mel (2, 80, 32), tokens (2, 7)); returns logits (2, 7, 51865)",
            ("whisper",), _r16a_whisper_forward_control,
            notes="teacher-forced forward without kv cache; " + _W_INIT,
            patterns="control: no tensor value reaches Python. `Whisper.forward` (model.py:293-296) -> "
            "`AudioEncoder.forward` (model.py:188-204: Conv1d/GELU twice, `permute`, `assert x.shape[1:] == "
            "self.positional_embedding.shape` (shapes), one `ResidualAttentionBlock`, `LayerNorm` in float) -> "
            "`TextDecoder.forward` (model.py:227-249: `offset = ... if kv_cache else 0` (None), embeddings, two "
            "blocks with causal self-attention (`is_causal = mask is not None and n_ctx > 1`, Python shapes) and "
            "cross-attention (`kv_cache is None`), `LayerNorm`, logits against the tied embedding `.float()`)",
        ),
        Row(
            "r16a_tdr_entropic_affinity_binary_search", *TORCHDR,
            "module (its own __call__): EntropicAffinity(perplexity=5, max_iter=100, device='cpu') (sparsity on, "
            "backend None)(X (30, 4)); returns (affinity (30, 15), neighbor indices (30, 15) int32)",
            ("torchdr",), _r16a_tdr_entropic, modes=INFERENCE,
            notes="inference only: the affinity cannot be backpropagated to X as written: `logsumexp_red` saves "
            "the log-affinity (entropic.py:303) and the next two statements subtract from it in place "
            "(entropic.py:305, 308), so backward fails autograd's version check ('modified by an inplace "
            "operation'; checked eagerly); TSNE computes it once per fit on data without grad",
            patterns="`SparseLogAffinity.__call__` (affinity/base.py:673-716: `to_torch`, `return_indices` branch, "
            "`.exp()`) -> `compile_if_requested` wrapper (utils/wrappers.py:196-266: `self.compile` false -> eager) "
            "-> `EntropicAffinity._compute_sparse_log_affinity` (affinity/entropic.py:230-312): `check_neighbor_"
            "param(5, tensor(30.))` (utils/validation.py:223-243: the tensor branch, a long tensor `clamp`), `k = 3 "
            "* perplexity` (a tensor), `_distance_matrix(X, k=k)` -> `pairwise_distances` -> "
            "`pairwise_distances_torch` (distance/torch.py:63-125: norms, diagonal mask setitem of 1e12) -> `kmin` "
            "(utils/utils.py:223-241: `if k >= A.shape[dim]` with a tensor `k` (a tensor in a Python `if`), "
            "`topk(k=k)` (a tensor read as an int)); `_bounds_entropic_affinity` (entropic.py:51-115: a 1-D "
            "`binary_search` with `max_iter=1000`, `kmax`/`kmin`); `binary_search(entropy_gap, n=30, begin, end, "
            "max_iter=100)` (utils/root_search.py:16-77, `@torch.compiler.disable`): `init_bounds` (root_search."
            "py:146-198: `if b.shape != (n,)`, two loops `mask = f(b) > 0; if not mask.any(): break` with "
            "`masked_scatter_` of boolean-mask reads), then `for _ in range(max_iter)`: `active = abs(f_m) >= tol; "
            "if not active.any(): break` (a tensor in a Python `if`), `b.masked_scatter_(mask1, m[mask1])` "
            "(boolean-mask reads of data-dependent size), `e.masked_scatter_`; then `_log_Pe`, "
            "`register_buffer('eps_')`, `logsumexp_red`, two in-place subtractions",
        ),
        Row(
            "r16a_tdr_sinkhorn_affinity_with_grad", *TORCHDR,
            "module (its own __call__): SinkhornAffinity(eps=5.0, tol=1e-5, max_iter=60, with_grad=True, "
            "device='cpu')(X (24, 4)); returns the doubly stochastic affinity (24, 24)",
            ("torchdr",), _r16a_tdr_sinkhorn,
            notes="`with_grad=True` keeps the Sinkhorn iterations on the autograd tape, so in training the "
            "gradient reaches X through all 24 iterations; the loop stops by its tolerance test at iteration 23 "
            "of 60 in both modes",
            patterns="`LogAffinity.__call__` (affinity/base.py:280-306: `to_torch`, `log=False` -> `.exp()`) -> "
            "`compile_if_requested` (eager) -> `SinkhornAffinity._compute_log_affinity` (affinity/entropic.py:"
            "693-755): `_distance_matrix` (full sqeuclidean, diagonal mask setitem), `log_K = -C / eps`, "
            "`register_buffer('dual_', zeros)`, `contextlib.nullcontext()`, `for k in range(60)`: `sum_matrix_"
            "vector` + `logsumexp(0)`, `self.dual_ = 0.5 * (...)` (a buffer reassigned through "
            "`Module.__setattr__`), `check_NaNs` (utils/validation.py:19-28: `if torch.isnan(input).any(): raise`, a "
            "tensor in a Python `if` every iteration), `if torch.norm(self.dual_ - reduction) < self.tol: break` "
            "(a tensor in a Python `if`; breaks at k = 23), `self.n_iter_ = k`; `_log_Pds`, in-place `-= "
            "log(24)`",
        ),
        Row(
            "r16a_tdr_silhouette_score_singleton", *TORCHDR,
            "wrapper: torchdr.silhouette_score(X (30, 4), labels (30,) (clusters of 10, 9, 10 and 1 points), "
            "metric='manhattan'); returns the mean silhouette coefficient (a 0-d tensor)",
            ("torchdr",), _r16a_tdr_silhouette,
            notes="the one-point cluster makes the library warn (`UserWarning`, silhouette.py:131-136, "
            "`warn=True` by default) inside the call by design; the Manhattan metric keeps the gradient finite "
            "(the Euclidean one takes `sqrt` of exact zeros on the intra-cluster diagonals); in training the "
            "gradient reaches X",
            patterns="`silhouette_score` (eval/silhouette.py:171-262: `sample_size is None`) -> "
            "`silhouette_samples` (silhouette.py:21-168): `to_torch`, `squeeze`, `unique_labels = torch.unique"
            "(labels)` (data-dependent size), `pos_labels = [torch.where(labels == label)[0] for label in "
            "unique_labels]` (iterating a tensor; nonzero reads of data-dependent length), `for i, pos_i in "
            "enumerate(pos_labels)`: `if pos_i.shape[0] > 1` (a data-dependent size in a Python `if`; false for "
            "cluster 3 -> `warnings.warn`), `pairwise_distances(X[pos_i], X[pos_i], metric='manhattan')` "
            "(distance/base.py:25-... -> distance/torch.py:96-98), `/ (pos_i.shape[0] - 1)`, `A[pos_i] = ...` "
            "(index setitems of data-dependent length), the inner `for pos_j in pos_labels[i + 1:]` (6 pairs) with "
            "`B[pos_i] = torch.minimum(...)`; `(B - A) / torch.maximum(A, B)`, `nan_to_num`, `.mean()`; "
            "`input_is_numpy` false (no `.item()`)",
        ),
        Row(
            "r16a_tdr_umap_fit_transform", *TORCHDR,
            "bound method: UMAP(n_neighbors=5, max_iter=30, check_interval=10, backend=None, device='cpu') "
            "(init='pca', SGD with LinearLR).fit_transform(X (32, 4), 2 rows duplicated); returns the embedding "
            "(32, 2)",
            ("torchdr",), _r16a_tdr_umap, modes=INFERENCE,
            notes="inference only: UMAP optimizes its own embedding (a leaf it creates) with closed-form gradients "
            "computed under `@torch.no_grad()` (neighbor_embedding/base.py:246) and assigned to `.grad`; no "
            "gradient reaches X or the caller; negative samples are drawn with `torch.rand` from torch's global "
            "generator, seeded by the harness; `find_ab_params` (a scipy `curve_fit`) runs in the constructor, in "
            "the builder; the estimator is fitted once per build",
            patterns="`handle_input_output` wrapper (utils/wrappers.py:131-190: `to_torch`, `validate_tensor`) -> "
            "`DRModule.fit_transform` (base.py:105-159): `torch.unique(X, dim=0, return_inverse=True)`, `if "
            "X_unique.shape[0] < X.shape[0]` (a data-dependent size; true: 2 duplicates, `logger.info` silent), "
            "`_fit_transform(X_unique)` then `embedding_unique[inverse_indices]` -> `NeighborEmbedding."
            "_fit_transform` (neighbor_embedding/base.py:282-302) -> `AffinityMatcher._fit_transform` "
            "(affinity_matcher.py:262-434): `UMAPAffinity._compute_sparse_affinity` (affinity/knn_normalized.py:"
            "423-527: k-NN by `topk`, `rho` by `kmin`, `binary_search` of the bandwidths (the `.any()` breaks "
            "above), `symmetrize_sparse` (utils/sparse.py:181-220: `torch.unique(keys, return_inverse=True)` "
            "(sparse.py:55), `bincount`, `max_k_out = counts.max().item()` (sparse.py:130) used as a size)); UMAP's "
            "`on_affinity_computation_end` (umap.py: `mask = nn_indices >= 0`, `repeat_interleave` of row counts, "
            "`nn_indices[mask]`, `affinity_in_[edge_mask]` (boolean-mask reads), `masked_fill_`); `_init_embedding` "
            "(PCA by `torch.linalg` SVD, `/ embedding_[:, 0].std()`); then `for step in range(30)`: "
            "`n_iter_.fill_(step)`, `_training_step` (affinity_matcher.py:436-513: closed-form gradients: "
            "`mask_affinity_in = epoch_of_next_sample <= n_iter_ + 1` and `epoch_of_next_sample[mask] += "
            "epochs_per_sample[mask]` (boolean-mask read and setitem), `segment_reduce`; negatives: "
            "`repeat_interleave` of data-dependent counts, `_draw_flat_with_exclusions` (`torch.rand`, "
            "`searchsorted`), `if negative_sources.numel() == 0`; `embedding_.grad = ...`, `SGD.step`, "
            "`LinearLR.step`), `check_NaNs(embedding_)` (`if isnan(...).any()`), `if self.n_iter_ % "
            "self.check_interval == 0:` (a tensor in a Python `if`, true at steps 0, 10, 20) -> `grad_norm = "
            "self.embedding_.grad.norm(2).item()`, `if grad_norm < min_grad_norm: break` (never); `clear_memory`",
        ),
        Row(
            "r16a_tdr_tsne_fit_transform", *TORCHDR,
            "bound method: TSNE(perplexity=5, max_iter=20, early_exaggeration_iter=10, check_interval=5, "
            "backend=None, device='cpu') (init='pca', lr='auto', SGD).fit_transform(X (30, 4)); returns the "
            "embedding (30, 2)",
            ("torchdr",), _r16a_tdr_tsne, modes=TRAINING, frozen=("0",),
            notes="training only: TSNE's fit calls `loss.backward()` on its own loss at every step "
            "(affinity_matcher.py:504-505), which under torch.no_grad raises ('element 0 of tensors does not "
            "require grad'); X is frozen, because an input that requires grad puts the input affinity on every "
            "step's graph (and the entropic affinity cannot be backpropagated, see the EntropicAffinity row); "
            "the measured gradient is that of the returned embedding, a leaf the fit creates (its `.grad` still "
            "holds the last step's gradient, to which the harness's backward adds); the estimator is fitted once "
            "per build",
            patterns="`handle_input_output` -> `DRModule.fit_transform` (base.py:132-156: `torch.unique(X, dim=0, "
            "return_inverse=True)`, `if X_unique.shape[0] < X.shape[0]` false) -> `NeighborEmbedding."
            "_fit_transform` (neighbor_embedding/base.py:282-302: `_check_n_neighbors`) -> `AffinityMatcher."
            "_fit_transform` (affinity_matcher.py:262-434): `EntropicAffinity` (the binary searches and tensor "
            "`k` of the EntropicAffinity row), `on_affinity_computation_end` (chunk indices, `int(chunk_start)`), "
            "PCA init, `_set_learning_rate` (`max(30 / 12 / 4, 50)`), SGD with momentum 0.5; `for step in "
            "range(20)`: `_training_step` (affinity_matcher.py:436-513: `zero_grad`, `TSNE._compute_attractive_"
            "loss` (tsne.py:162-170: `pairwise_distances_indexed` of the neighbor pairs, cross-entropy) and "
            "`_compute_repulsive_loss` (tsne.py:172-180: full distances, `logsumexp_red`), `loss.backward()`, "
            "`SGD.step`), `on_training_step_end` (neighbor_embedding/base.py:306-319: `if "
            "early_exaggeration_coeff_ > 1 and self.n_iter_ == self.early_exaggeration_iter` (a tensor in a Python "
            "`and`; true at step 10: the optimizer is rebuilt with momentum 0.8)), `check_NaNs(embedding_)`, `if "
            "self.n_iter_ % 5 == 0:` (a tensor in a Python `if`) -> `embedding_.grad.norm(2).item()` and the "
            "Python convergence test (never met); `clear_memory`",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round sixteen (r16a)")
