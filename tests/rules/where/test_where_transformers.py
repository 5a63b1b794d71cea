"""[Where] on real targets (transformers 4.52.4), mended in memory: the function's
source goes through the rule and its ``__code__`` is swapped for the mended one for
the duration of a test.
"""

from __future__ import annotations

import contextlib
import inspect
import textwrap
from types import ModuleType
from typing import Any, Callable, Iterator

import pytest
import torch
from torch._dynamo.testing import CompileCounter

import graphmend.runtime
from graphmend.compare import first_difference
from graphmend.pipeline import transform_source
from where_support import assert_updated_in_place


# -- real targets: transformers 4.52.4 ---------------------------------------------


@contextlib.contextmanager
def mended_in_place(function: Callable[..., Any], module: ModuleType) -> Iterator[None]:
    """Swap ``function.__code__`` for its [Where]-mended version, then restore."""
    source = "import torch\nfrom torch import nn\n\n\n" + textwrap.dedent(inspect.getsource(function))
    result = transform_source(source, rules=["where"])
    assert result.sites and not result.skips, result.skips
    namespace = dict(vars(module))
    exec(compile(result.code, f"<mended {function.__qualname__}>", "exec"), namespace)
    original_code = function.__code__
    function.__code__ = namespace[function.__name__].__code__
    module._graphmend = graphmend.runtime
    try:
        yield
    finally:
        function.__code__ = original_code
        del module._graphmend


def _run_compiled(model: torch.nn.Module, inputs: list[torch.Tensor]) -> tuple[list[Any], list[int]]:
    """Outputs of compiled ``model`` on each input, and the graphs compiled so
    far after each call (one graph after the first call: no break)."""
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=False)  # static shapes compile faster
    outputs, counts = [], []
    with torch.no_grad():
        for ids in inputs:
            outputs.append(compiled(ids).last_hidden_state)
            counts.append(counter.frame_count)
    return outputs, counts


def _phi3() -> torch.nn.Module:
    from transformers import Phi3Config, Phi3Model

    torch.manual_seed(0)
    config = Phi3Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=64, original_max_position_embeddings=16, pad_token_id=0,
        rope_scaling={"type": "longrope", "short_factor": [1.0, 1.1, 1.2, 1.3],
                      "long_factor": [2.0, 2.3, 2.6, 2.9]},
    )
    return Phi3Model(config).eval()


def test_phi3_longrope() -> None:
    import transformers.modeling_rope_utils as rope_utils
    from transformers.models.phi3 import modeling_phi3

    wrapper = modeling_phi3.Phi3RotaryEmbedding.forward.__wrapped__  # under torch.no_grad
    closure = dict(zip(wrapper.__code__.co_freevars, (c.cell_contents for c in wrapper.__closure__)))
    update = closure["longrope_frequency_update"]
    long_ids, short_ids = torch.randint(1, 64, (1, 24)), torch.randint(1, 64, (1, 8))
    sequence = [long_ids, long_ids, short_ids]
    reference = _phi3()
    with torch.no_grad():
        expected = [reference(ids).last_hidden_state for ids in sequence]
    assert _run_compiled(_phi3(), [long_ids])[1] != [1]  # the original breaks
    with mended_in_place(update, rope_utils):
        outputs, counts = _run_compiled(_phi3(), sequence)
        # No break.  A fresh model's ``original_inv_freq`` is its ``inv_freq``
        # tensor; the first long call must separate them (long frequencies
        # cannot go into the tensor that keeps the short ones) and Dynamo
        # guards on that aliasing, so the second call recompiles once.  The
        # original changes the same aliasing on its first call.
        assert counts[:2] == [1, 2]
        # An eager call runs the original code, which makes ``inv_freq`` the
        # ``long_inv_freq`` tensor itself; the first compiled call cannot copy
        # into a tensor another attribute holds and re-registers it, so the
        # second recompiles once.  Once separated, the buffer is updated in
        # place and nothing recompiles.
        model = _phi3()
        with torch.no_grad():
            model(long_ids)
        assert model.rotary_emb.inv_freq is model.rotary_emb.long_inv_freq
        _, counts = _run_compiled(model, [long_ids, long_ids])
        assert counts == [1, 2]
        buffer = model.rotary_emb.inv_freq
        assert _run_compiled(model, [long_ids, long_ids])[1] == [1, 1]
        assert_updated_in_place(model.rotary_emb.inv_freq, buffer, buffer.clone())
    assert first_difference(expected, outputs) is None


def _encoder(config_class: type, model_class: type, overflow: bool) -> torch.nn.Module:
    torch.manual_seed(0)
    config = config_class(
        vocab_size=64, d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32,
        pad_token_id=1, decoder_start_token_id=2,
    )
    encoder = model_class(config).half().eval().get_encoder()
    if overflow:  # push the first layer's output past fp16's range: the clamp must run
        with torch.no_grad():
            encoder.layers[0].final_layer_norm.weight.fill_(60000)
    return encoder


def _overflows(encoder: torch.nn.Module, ids: torch.Tensor) -> bool:
    """Whether the first layer's output before its clamp has an inf."""
    seen = []
    hook = encoder.layers[0].final_layer_norm.register_forward_hook(
        lambda module, args, output: seen.append(bool(torch.isinf(output).any()))
    )
    with torch.no_grad():
        encoder(ids)
    hook.remove()
    return seen[0]


@pytest.mark.parametrize("family", ["bart", "marian"])
def test_fp16_encoder_clamp(family: str) -> None:
    from transformers import BartConfig, BartModel, MarianConfig, MarianModel
    from transformers.models.bart import modeling_bart
    from transformers.models.marian import modeling_marian

    config_class, model_class, module, layer = {
        "bart": (BartConfig, BartModel, modeling_bart, modeling_bart.BartEncoderLayer),
        "marian": (MarianConfig, MarianModel, modeling_marian, modeling_marian.MarianEncoderLayer),
    }[family]
    ids = torch.randint(3, 64, (1, 8))
    expected = {}
    for overflow in (False, True):
        with torch.no_grad():
            expected[overflow] = _encoder(config_class, model_class, overflow)(ids).last_hidden_state
    assert _run_compiled(_encoder(config_class, model_class, False), [ids])[1] != [1]  # the original breaks
    with mended_in_place(layer.forward, module):
        for overflow in (False, True):
            with torch.no_grad():
                eager = _encoder(config_class, model_class, overflow)(ids).last_hidden_state
            assert first_difference(expected[overflow], eager) is None
            outputs, counts = _run_compiled(_encoder(config_class, model_class, overflow), [ids])
            assert counts == [1]
            assert first_difference(expected[overflow], outputs[0]) is None
    assert _overflows(_encoder(config_class, model_class, True), ids)
    assert not _overflows(_encoder(config_class, model_class, False), ids)
    assert first_difference(expected[True], expected[False]) is not None
