"""The benchmark corpus: real transformers models that break.

Each :class:`Row` builds a Hugging Face transformers 4.52.4 model from a small
config with seeded random weights (nothing is downloaded), in eval mode,
together with the inputs that drive it down the code paths that break the
graph.  ``expected_breaks`` is what ``torch._dynamo.explain`` calls the break
count (graphs - 1), measured on torch 2.13 CPU under ``torch.no_grad()``
before any mending; ``tests/test_corpus.py`` keeps it honest.

Configs are shrunk until one compile takes seconds on a CPU, but every switch
that decides *which* code runs (fusion, rope type, fp16, sequence length versus
a window or the original context, special tokens in a prompt, the masks a
processor would pass) is kept, because those decide the break count.  Where a
count differs from the paper's artifact, the row says why.

transformers is imported only when a row is built, so importing this module
is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

Call = tuple[tuple[Any, ...], dict[str, Any]]
Inputs = tuple[torch.nn.Module, tuple[Any, ...], dict[str, Any]]

SEED = 0


@dataclass(frozen=True)
class BreakSite:
    """A statement where Dynamo reports a graph break, as measured.

    ``path`` is the file relative to site-packages, ``function`` the enclosing
    function (resume functions named after the function they resume),
    ``code`` the first line of the statement, ``category`` the break category
    code (IO, DC, GUARD, SCALAR, DS).
    """

    path: str
    function: str
    code: str
    category: str


@dataclass(frozen=True)
class Row:
    """One corpus model: how to build it and what breaks in it."""

    name: str
    title: str
    # "LC": breaks only on logging/warnings; "DC": data-dependent control
    # flow; "mixed": several kinds; "DS": only data-dependent output shapes,
    # which no rule fixes.
    family: str
    expected_breaks: int
    # Module-name prefixes holding every break site: what `graphmend.mend`
    # is told to rewrite.
    modules: tuple[str, ...]
    # Every distinct site Dynamo reports a break at (a site can cost more
    # than one graph: once per frame it is inlined from).
    sites: tuple[BreakSite, ...]
    make_model: Callable[[], torch.nn.Module]
    # variant name -> (args, kwargs); every row has "default".
    make_inputs: Callable[[str], Call]
    # Input variants beyond "default" that the same model must answer, e.g.
    # Phi-3's "short" prompt, run after the long one.
    variants: tuple[str, ...] = ()
    dtype: torch.dtype = torch.float32

    def model(self) -> torch.nn.Module:
        """A fresh model in eval mode, its weights fixed by the seed.

        Build a new one per measurement: some rows keep state across calls
        (Phi-3 caches ``long_inv_freq`` on its first long input, after which
        it breaks once less).
        """
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(SEED)
            return self.make_model().to(self.dtype).eval()

    def inputs(self, variant: str = "default") -> Call:
        """Seeded inputs, the same whether or not the model was built first."""
        if variant != "default" and variant not in self.variants:
            raise KeyError(f"row {self.name!r} has no input variant {variant!r}")
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(SEED + 1)
            return self.make_inputs(variant)

    def build(self) -> Inputs:
        """``(model, args, kwargs)``: call ``model(*args, **kwargs)``."""
        args, kwargs = self.inputs()
        return self.model(), args, kwargs


def _ids(batch: int, length: int, vocab: int) -> torch.Tensor:
    # Token 0-3 are special (pad/bos/eos/...) in most configs; avoiding them keeps
    # the paths that depend on pad tokens out of the picture.
    return torch.randint(4, vocab, (batch, length))


VOCAB = 96


# --- encoder-decoder text models -------------------------------------------


def _t5() -> torch.nn.Module:
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(
        vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4
    )
    return T5ForConditionalGeneration(config)


def _seq2seq_inputs(variant: str) -> Call:
    return (), {"input_ids": _ids(2, 9, VOCAB), "decoder_input_ids": _ids(2, 5, VOCAB)}


def _bart_like(config_name: str, model_name: str) -> Callable[[], torch.nn.Module]:
    # BART and its descendants (Marian, Blenderbot) share config fields.
    def make() -> torch.nn.Module:
        import transformers

        config = getattr(transformers, config_name)(
            vocab_size=VOCAB,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=4,
            decoder_attention_heads=4,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            max_position_embeddings=64,
            pad_token_id=1,
            bos_token_id=0,
            eos_token_id=2,
            decoder_start_token_id=2,
        )
        return getattr(transformers, model_name)(config)

    return make


def _causal_lm(config_name: str, model_name: str, **fields: Any) -> Callable[[], torch.nn.Module]:
    def make() -> torch.nn.Module:
        import transformers

        config = getattr(transformers, config_name)(vocab_size=VOCAB, **fields)
        return getattr(transformers, model_name)(config)

    return make


def _causal_inputs(variant: str) -> Call:
    return (), {"input_ids": _ids(2, 9, VOCAB)}


# --- Whisper ----------------------------------------------------------------

WHISPER_MELS = 16
WHISPER_FRAMES = 32  # = 2 * max_source_positions: the conv stem halves it


def _whisper() -> torch.nn.Module:
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    config = WhisperConfig(
        vocab_size=VOCAB,
        num_mel_bins=WHISPER_MELS,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_source_positions=WHISPER_FRAMES // 2,
        max_target_positions=32,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=3,
        suppress_tokens=None,
        begin_suppress_tokens=None,
    )
    return WhisperForConditionalGeneration(config)


def _whisper_inputs(variant: str) -> Call:
    return (), {
        "input_features": torch.randn(2, WHISPER_MELS, WHISPER_FRAMES),
        "decoder_input_ids": _ids(2, 5, VOCAB),
    }


# --- Phi-3 with longrope ----------------------------------------------------

PHI3_HEAD_DIM = 8
PHI3_ORIGINAL_MAX = 16


def _phi3() -> torch.nn.Module:
    from transformers import Phi3Config, Phi3ForCausalLM

    half = PHI3_HEAD_DIM // 2
    config = Phi3Config(
        vocab_size=VOCAB,
        hidden_size=4 * PHI3_HEAD_DIM,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=4 * PHI3_ORIGINAL_MAX,
        original_max_position_embeddings=PHI3_ORIGINAL_MAX,
        rope_scaling={
            "type": "longrope",
            "short_factor": [1.0 + i / half for i in range(half)],
            "long_factor": [2.0 + i for i in range(half)],
        },
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    return Phi3ForCausalLM(config)


def _phi3_inputs(variant: str) -> Call:
    # "default" is longer than original_max_position_embeddings, so longrope
    # takes the long-factor branch; "short" takes the other one.
    length = PHI3_ORIGINAL_MAX + 4 if variant == "default" else PHI3_ORIGINAL_MAX // 2
    return (), {"input_ids": _ids(1, length, VOCAB)}


# --- LayoutLMv3 -------------------------------------------------------------


def _layoutlmv3() -> torch.nn.Module:
    from transformers import LayoutLMv3Config, LayoutLMv3Model

    config = LayoutLMv3Config(
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
        # The 2-D position embedding concatenates left, right, top, bottom
        # (coordinate_size each) and height, width (shape_size each).
        coordinate_size=6,
        shape_size=4,
        input_size=32,
        patch_size=16,
    )
    return LayoutLMv3Model(config)


def _layoutlmv3_inputs(variant: str) -> Call:
    length = 7
    corners = torch.randint(0, 500, (2, length, 2, 2))
    low, high = corners.min(dim=2).values, corners.max(dim=2).values
    bbox = torch.stack([low[..., 0], low[..., 1], high[..., 0], high[..., 1]], dim=-1)
    return (), {
        "input_ids": _ids(2, length, VOCAB),
        "bbox": bbox,
        "pixel_values": torch.randn(2, 3, 32, 32),
    }


# --- Longformer -------------------------------------------------------------

LONGFORMER_WINDOW = 8


def _longformer() -> torch.nn.Module:
    from transformers import LongformerConfig, LongformerModel

    config = LongformerConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
        attention_window=LONGFORMER_WINDOW,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    return LongformerModel(config)


def _longformer_inputs(variant: str) -> Call:
    # Not a multiple of the window: the padding path (and its logger) runs.
    length = 3 * LONGFORMER_WINDOW - 3
    return (), {"input_ids": _ids(2, length, VOCAB)}


# --- Grounding DINO ---------------------------------------------------------

# Big enough that the extra feature level, a stride-2 conv below Swin's last
# 4x4 stage, is still 2x2: GroupNorm needs more than one value per channel.
DINO_IMAGE = 128
# The model finds phrase boundaries by the BERT ids it hard-codes
# (SPECIAL_TOKENS = [CLS] 101, [SEP] 102, "." 1012, "?" 1029); a real prompt
# contains them, so the text vocabulary must hold them.
DINO_VOCAB = 1100
DINO_PROMPT = [101, 40, 41, 1012, 102]  # "[CLS] a cat . [SEP]"


def _grounding_dino() -> torch.nn.Module:
    # The non-timm Swin backbone: timm and torchvision stay unimported.
    from transformers import BertConfig, GroundingDinoConfig, GroundingDinoForObjectDetection, SwinConfig

    backbone = SwinConfig(
        image_size=DINO_IMAGE,
        patch_size=4,
        embed_dim=16,
        depths=[1, 1, 1, 1],
        num_heads=[1, 2, 2, 4],
        window_size=4,
        out_indices=[2, 3, 4],
    )
    text = BertConfig(
        vocab_size=DINO_VOCAB,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    config = GroundingDinoConfig(
        backbone_config=backbone,
        text_config=text,
        use_timm_backbone=False,
        num_queries=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        d_model=32,  # GroupNorm(32, d_model) in the input projections
        num_feature_levels=4,
        encoder_n_points=2,
        decoder_n_points=2,
        max_text_len=16,
        disable_custom_kernels=True,
    )
    return GroundingDinoForObjectDetection(config)


def _grounding_dino_inputs(variant: str) -> Call:
    # What the processor returns, masks included: without the masks the count
    # is 18, and 19 if the prompt also lacks special tokens.
    input_ids = torch.tensor([DINO_PROMPT])
    return (), {
        "pixel_values": torch.randn(1, 3, DINO_IMAGE, DINO_IMAGE),
        "pixel_mask": torch.ones(1, DINO_IMAGE, DINO_IMAGE, dtype=torch.long),
        "input_ids": input_ids,
        "token_type_ids": torch.zeros_like(input_ids),
        "attention_mask": torch.ones_like(input_ids),
    }


# --- CLAP -------------------------------------------------------------------

CLAP_MELS = 16
CLAP_SPEC = 32


def _clap() -> torch.nn.Module:
    from transformers import ClapConfig, ClapModel

    audio = {
        "window_size": 4,
        "num_mel_bins": CLAP_MELS,
        "spec_size": CLAP_SPEC,
        "patch_size": 2,
        "patch_stride": [2, 2],
        "patch_embeds_hidden_size": 16,
        "depths": [1, 1],
        "num_attention_heads": [2, 2],
        # Swin doubles the width per stage: hidden = patch_embeds * 2**(stages-1).
        "hidden_size": 32,
        "enable_fusion": True,
    }
    text = {
        "vocab_size": VOCAB,
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 64,
        "max_position_embeddings": 64,
    }
    return ClapModel(ClapConfig(text_config=text, audio_config=audio, projection_dim=16))


def _clap_inputs(variant: str) -> Call:
    # Fusion stacks 4 mel views (one global, three local crops); only the
    # clips flagged longer get the local ones fused in.
    return (), {
        "input_ids": _ids(2, 7, VOCAB),
        "input_features": torch.randn(2, 4, CLAP_SPEC, CLAP_MELS),
        "is_longer": torch.tensor([[True], [False]]),
    }


def _logger_site(model: str, function: str = "forward") -> BreakSite:
    return BreakSite(f"transformers/models/{model}/modeling_{model}.py", function, "logger.warning_once(", "IO")


def _fp16_clamp_site(model: str) -> BreakSite:
    # The encoder layer's overflow clamp: `if fp16 and (isinf(h).any() or isnan(h).any()): h = clamp(h)`.
    return BreakSite(
        f"transformers/models/{model}/modeling_{model}.py",
        "forward",
        "if hidden_states.dtype == torch.float16 and (",
        "DC",
    )


_DINO = "transformers/models/grounding_dino/modeling_grounding_dino.py"


def _logger_row(
    name: str,
    title: str,
    model: str,
    breaks: int,
    make_model: Callable[[], torch.nn.Module],
    make_inputs: Callable[[str], Call],
) -> Row:
    """A row whose only breaks are its decoder's legacy-cache ``logger.warning_once``.

    An encoder-decoder model breaks there three times: in the top frame
    (which inlines the decoder), in the decoder's own frame, and on resuming
    the top frame; a decoder-only model twice.
    """
    return Row(
        name=name,
        title=title,
        family="LC",
        expected_breaks=breaks,
        modules=(f"transformers.models.{model}",),
        sites=(_logger_site(model),),
        make_model=make_model,
        make_inputs=make_inputs,
    )


def _rows() -> list[Row]:
    # Break counts: graphs - 1 on a fresh model, torch 2.13 CPU, no_grad.
    return [
        _logger_row("t5", "T5 (T5ForConditionalGeneration)", "t5", 3, _t5, _seq2seq_inputs),
        _logger_row(
            "bart",
            "BART (BartForConditionalGeneration)",
            "bart",
            3,
            _bart_like("BartConfig", "BartForConditionalGeneration"),
            _seq2seq_inputs,
        ),
        _logger_row(
            "marian",
            "Marian (MarianMTModel)",
            "marian",
            3,
            _bart_like("MarianConfig", "MarianMTModel"),
            _seq2seq_inputs,
        ),
        _logger_row(
            "blenderbot",
            "Blenderbot (BlenderbotForConditionalGeneration)",
            "blenderbot",
            3,
            _bart_like("BlenderbotConfig", "BlenderbotForConditionalGeneration"),
            _seq2seq_inputs,
        ),
        _logger_row(
            "whisper", "Whisper (WhisperForConditionalGeneration)", "whisper", 3, _whisper, _whisper_inputs
        ),
        _logger_row(
            "biogpt",
            "BioGPT (BioGptForCausalLM)",
            "biogpt",
            2,
            _causal_lm(
                "BioGptConfig",
                "BioGptForCausalLM",
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=4,
                intermediate_size=64,
                max_position_embeddings=64,
            ),
            _causal_inputs,
        ),
        _logger_row(
            "pegasus_causal",
            "Pegasus causal (PegasusForCausalLM)",
            "pegasus",
            2,
            _causal_lm(
                "PegasusConfig",
                "PegasusForCausalLM",
                d_model=32,
                decoder_layers=2,
                decoder_attention_heads=4,
                decoder_ffn_dim=64,
                max_position_embeddings=64,
            ),
            _causal_inputs,
        ),
        Row(
            name="layoutlmv3",
            title="LayoutLMv3 (LayoutLMv3Model)",
            family="LC",
            expected_breaks=2,
            modules=("transformers.modeling_utils",),
            # get_extended_attention_mask warns that its `device` argument is deprecated.
            sites=(
                BreakSite("transformers/modeling_utils.py", "get_extended_attention_mask", "warnings.warn(", "IO"),
            ),
            make_model=_layoutlmv3,
            make_inputs=_layoutlmv3_inputs,
        ),
        Row(
            name="phi3_longrope",
            title="Phi-3 longrope (Phi3ForCausalLM)",
            family="DC",
            # 5 on a fresh model; 4 once a long call has cached `long_inv_freq`.
            expected_breaks=5,
            modules=("transformers.modeling_rope_utils",),
            sites=(
                BreakSite(
                    "transformers/modeling_rope_utils.py",
                    "longrope_frequency_update",
                    "if seq_len > original_max_position_embeddings:",
                    "DC",
                ),
            ),
            make_model=_phi3,
            make_inputs=_phi3_inputs,
            variants=("short",),
        ),
        # The clamp breaks in the first encoder layer's frame (the second layer
        # reuses its compiled code) and takes the top frame with it.
        Row(
            name="bart_fp16",
            title="BART fp16 (BartForConditionalGeneration)",
            family="mixed",
            expected_breaks=6,
            modules=("transformers.models.bart",),
            sites=(_fp16_clamp_site("bart"), _logger_site("bart")),
            make_model=_bart_like("BartConfig", "BartForConditionalGeneration"),
            make_inputs=_seq2seq_inputs,
            dtype=torch.float16,
        ),
        Row(
            name="marian_fp16",
            title="Marian fp16 (MarianMTModel)",
            family="mixed",
            expected_breaks=5,
            modules=("transformers.models.marian",),
            sites=(_fp16_clamp_site("marian"), _logger_site("marian")),
            make_model=_bart_like("MarianConfig", "MarianMTModel"),
            make_inputs=_seq2seq_inputs,
            dtype=torch.float16,
        ),
        Row(
            name="longformer",
            title="Longformer (LongformerModel)",
            family="mixed",
            expected_breaks=5,
            modules=("transformers.models.longformer",),
            sites=(
                _logger_site("longformer", "_pad_to_window_size"),
                BreakSite(
                    "transformers/models/longformer/modeling_longformer.py",
                    "forward",
                    "is_global_attn = is_index_global_attn.flatten().any().item()",
                    "SCALAR",
                ),
            ),
            make_model=_longformer,
            make_inputs=_longformer_inputs,
        ),
        # The artifact reports 16; 17 is the lowest found with realistic inputs.
        # 6+6 layers or 3 feature levels give 17 too; two_stage=False does not
        # build in 4.52.4 (its init touches a bias that Embedding lacks).
        Row(
            name="grounding_dino",
            title="Grounding DINO (GroundingDinoForObjectDetection)",
            family="mixed",
            expected_breaks=17,
            modules=("transformers.models.grounding_dino",),
            sites=(
                BreakSite(
                    _DINO,
                    "generate_masks_with_special_tokens_and_transfer_map",
                    "idxs = torch.nonzero(special_tokens_mask)",
                    "DS",
                ),
                # linspace(0.5, h - 0.5, h) with a 0-d tensor h reads h's value
                # (aten._local_scalar_dense, "Data dependent operator").
                BreakSite(
                    _DINO,
                    "get_reference_points",
                    "torch.linspace(0.5, height - 0.5, height, dtype=torch.float32, device=device),",
                    "SCALAR",
                ),
                BreakSite(
                    _DINO,
                    "forward",
                    "if (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() != sequence_length:",
                    "GUARD",
                ),
                # Slicing with tensor bounds calls .item() on them.
                BreakSite(
                    _DINO,
                    "generate_encoder_output_proposals",
                    "mask_flatten_ = padding_mask[:, current_position : (current_position + height * width)]",
                    "SCALAR",
                ),
            ),
            make_model=_grounding_dino,
            make_inputs=_grounding_dino_inputs,
        ),
        Row(
            name="clap",
            title="CLAP with fusion (ClapModel)",
            family="DS",
            expected_breaks=2,
            modules=("transformers.models.clap",),
            sites=(
                BreakSite(
                    "transformers/models/clap/modeling_clap.py",
                    "forward",
                    "is_longer_list_idx = torch.where(is_longer_list == 1)[0]",
                    "DS",
                ),
            ),
            make_model=_clap,
            make_inputs=_clap_inputs,
        ),
    ]


ROWS: dict[str, Row] = {row.name: row for row in _rows()}


def find(name: str) -> Any:
    """The row called ``name``, as the fresh-process timing harness calls
    it (``title``, ``model()``, ``inputs()``): of this corpus, of the
    detection corpus (:mod:`benchmarks.detection`, which needs
    torchvision), or a library row of the ecosystem corpus or a held-out
    round, in inference (:class:`LibraryRow`)."""
    if name in ROWS:
        return ROWS[name]
    from benchmarks import detection

    if name in detection.ROWS:
        return detection.ROWS[name]
    library = library_rows()
    if name in library:
        return LibraryRow(library[name])
    raise KeyError(f"no row {name!r} in the corpus, the detection corpus or the library corpora")


def library_rows() -> dict[str, Any]:
    """The library rows by name: the ecosystem corpus's and every held-out
    round's (their builders import their libraries when called)."""
    from benchmarks import ecosystem, heldout

    return {row.name: row for rows in (ecosystem.ROWS, *(round_.ROWS for round_ in heldout.rounds()))
            for row in rows}


class LibraryRow:
    """A library row (:class:`benchmarks.ecosystem.Row`) as a corpus row:
    ``model()`` builds its callable and arguments, in inference, and
    ``inputs()`` gives the arguments built with it."""

    def __init__(self, row: Any) -> None:
        self.row = row
        self.title = f"{row.title} ({row.library} {row.version})"
        self._inputs: Call | None = None

    def model(self) -> Any:
        fn, args, kwargs = self.row.build(False)
        self._inputs = (args, kwargs)
        return fn

    def inputs(self, variant: str = "default") -> Call:
        if self._inputs is None:
            self.model()
        return self._inputs


def build(name: str) -> Inputs:
    """``(model, args, kwargs)`` for corpus row ``name``: call ``model(*args, **kwargs)``."""
    return ROWS[name].build()
