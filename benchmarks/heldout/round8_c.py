"""Held-out round eight (r8c): entry points of electra-pytorch, pykan and torchlibrosa.

pytorch-toolbelt 0.8.0 was assigned too but has no rows: its losses, modules,
inference and utils packages all import torchvision (not installed), and the only
subpackage that imports without it (optimization: LR schedulers, parameter
groups) has no tensor values reaching Python.

Chosen by reading each library's source, written down in round8_c.md beside this
file before any row was run under graphmend, torch.compile or Dynamo (each row
was only checked to build and run eagerly, twice from fresh builds, with
identical results); to be measured once and not tuned on.  Rows are
:class:`benchmarks.ecosystem.Row` (tiny configs, seeded random weights and
inputs, nothing downloaded, nothing written to disk); a row whose ``modes`` is
one mode only says why in its ``notes``.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row

INFERENCE = ("inference",)

ELECTRA_PYTORCH = ("electra-pytorch", "0.0.1")
PYKAN = ("pykan", "0.2.8")
TORCHLIBROSA = ("torchlibrosa", "0.1.0")


# --- electra-pytorch ---------------------------------------------------------------


def _r8c_electra_forward(training: bool) -> Built:
    from electra_pytorch import Electra

    vocab, dim = 24, 16
    generator = torch.nn.Sequential(
        torch.nn.Embedding(vocab, dim), torch.nn.Linear(dim, dim), torch.nn.GELU(), torch.nn.Linear(dim, vocab),
    )
    discriminator = torch.nn.Sequential(
        torch.nn.Embedding(vocab, dim), torch.nn.Linear(dim, dim), torch.nn.GELU(), torch.nn.Linear(dim, 1),
        torch.nn.Sigmoid(),
    )
    electra = Electra(generator, discriminator, pad_token_id=0, mask_token_id=2, mask_prob=0.25)
    tokens = torch.randint(3, vocab, (3, 10))
    tokens[1, 7:] = 0  # padded sequences
    tokens[2, 5:] = 0
    return electra, (tokens,), {}


def _r8c_electra_transformer(training: bool) -> Built:
    from electra_pytorch import Electra

    vocab, dim = 20, 16

    class TinyEncoder(torch.nn.Module):
        def __init__(self, out_dim: int, sigmoid: bool) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(vocab, dim)
            self.pos = torch.nn.Parameter(0.02 * torch.randn(1, 12, dim))
            self.layer = torch.nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, dropout=0.0,
                                                          batch_first=True)
            self.head = torch.nn.Linear(dim, out_dim)
            self.sigmoid = sigmoid

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            h = self.layer(self.embed(tokens) + self.pos[:, : tokens.shape[1]])
            out = self.head(h)
            return out.sigmoid() if self.sigmoid else out

    electra = Electra(TinyEncoder(vocab, False), TinyEncoder(1, True), pad_token_id=0, mask_token_id=2,
                      mask_prob=0.3)
    tokens = torch.randint(3, vocab, (4, 12))
    tokens[0, 9:] = 0
    tokens[3, 4:] = 0
    return electra, (tokens,), {}


# --- pykan -------------------------------------------------------------------------


def _r8c_kan_model(width: list[int]) -> Any:
    from kan import KAN

    # auto_save=False: no checkpoint directory, no history file
    model = KAN(width=width, grid=3, k=3, seed=0, auto_save=False, noise_scale=0.5)
    # KANLayer.__init__ fits its initial coefficients with torch.linalg.lstsq, whose CPU result
    # varies in the last bits from call to call; draw spline coefficients (as after some
    # training) from the seeded RNG instead, so every build is bit-identical.
    with torch.no_grad():
        for layer in model.act_fun:
            layer.coef.copy_(0.3 * torch.randn_like(layer.coef))
    return model


def _r8c_kan_fix_symbolic_fit(training: bool) -> Built:
    model = _r8c_kan_model([2, 3, 1])

    def fit_symbolic(model: Any, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        model(x)  # collects model.acts / spline_postacts for the fit
        r2 = model.fix_symbolic(0, 1, 2, "sin", fit_params_bool=True, log_history=False)
        return model(x), r2

    x = torch.rand(32, 2) * 2 - 1
    return fit_symbolic, (model, x), {}


def _r8c_kan_pruned(widths: list[int], layer: int, weak: tuple[int, ...], prune: str) -> Built:
    """A KAN whose ``weak`` nodes of ``layer`` barely reach the next layer (as after
    sparsity-regularized training), called, pruned with its ``prune`` method and called
    again."""
    inputs = widths[0]  # read first: KAN rewrites the list it is given in place
    model = _r8c_kan_model(widths)
    with torch.no_grad():
        for node in weak:
            model.act_fun[layer].scale_base[node] *= 1e-4
            model.act_fun[layer].scale_sp[node] *= 1e-4

    def prune_and_forward(model: Any, x: torch.Tensor) -> torch.Tensor:
        model(x)
        pruned = getattr(model, prune)(threshold=1e-2, log_history=False)
        return pruned(x)

    x = torch.rand(24, inputs) * 2 - 1
    return prune_and_forward, (model, x), {}


def _r8c_kan_prune_node(training: bool) -> Built:
    return _r8c_kan_pruned([3, 5, 1], 1, (1, 3), "prune_node")  # hidden nodes 1 and 3 nearly dead


def _r8c_kan_prune_input(training: bool) -> Built:
    return _r8c_kan_pruned([4, 3, 1], 0, (2,), "prune_input")  # input 2: an irrelevant feature


# --- torchlibrosa ------------------------------------------------------------------


def _r8c_wave(batch: int, length: int, sr: int) -> torch.Tensor:
    """Tone bursts with a little noise, each clip zero-padded at its end (digital silence)."""
    t = torch.arange(length) / sr
    freqs = 300.0 + 900.0 * torch.rand(batch, 1)
    wave = 0.5 * torch.sin(2 * torch.pi * freqs * t) + 0.01 * torch.randn(batch, length)
    for b in range(batch):
        wave[b, length // 2 + 64 * b:] = 0.0
    return wave


def _r8c_tlr_logmel_top_db(training: bool) -> Built:
    from torchlibrosa.stft import LogmelFilterBank, Spectrogram

    sr, n_fft = 8000, 64
    frontend = torch.nn.Sequential(
        Spectrogram(n_fft=n_fft, hop_length=16),
        LogmelFilterBank(sr=sr, n_fft=n_fft, n_mels=16, fmin=50.0, fmax=4000.0, top_db=80.0),
    )
    return frontend, (_r8c_wave(2, 512, sr),), {}


def _r8c_tlr_specaug(training: bool) -> Built:
    from torchlibrosa.augmentation import SpecAugmentation
    from torchlibrosa.stft import LogmelFilterBank, Spectrogram

    sr, n_fft = 8000, 64
    spectrogram = Spectrogram(n_fft=n_fft, hop_length=16)
    logmel = LogmelFilterBank(sr=sr, n_fft=n_fft, n_mels=16, fmin=50.0, fmax=4000.0, top_db=None)
    augment = SpecAugmentation(time_drop_width=6, time_stripes_num=2, freq_drop_width=4, freq_stripes_num=2)
    augment.train()  # SpecAugment draws stripes only in train mode (the harness does not touch it)

    def augmented_logmel(wave: torch.Tensor) -> torch.Tensor:
        return augment(logmel(spectrogram(wave)))

    return augmented_logmel, (_r8c_wave(3, 512, sr),), {}


def _r8c_tlr_stft_istft(training: bool) -> Built:
    from torchlibrosa.stft import ISTFT, STFT

    n_fft, hop = 64, 16
    stft = STFT(n_fft=n_fft, hop_length=hop)
    istft = ISTFT(n_fft=n_fft, hop_length=hop)

    def resynthesize(wave: torch.Tensor) -> torch.Tensor:
        real, imag = stft(wave)
        return istft(real, imag, wave.shape[-1])

    return resynthesize, (_r8c_wave(2, 512, 8000),), {}


# --- rows --------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        Row(
            "r8c_electra_forward", *ELECTRA_PYTORCH,
            "electra_pytorch.Electra(generator, discriminator, mask_prob=0.25)(tokens (3, 10) with padding) "
            "(tiny embedding/MLP generator and sigmoid discriminator)",
            ("electra_pytorch",), _r8c_electra_forward,
            patterns="`Electra.forward`: `mask_prob = torch.zeros_like(input).float().uniform_(0, 1)`, "
            "`print(masked_input.shape)` inside the call, `mask_indices = torch.nonzero(mask, as_tuple=True)` "
            "(data-dependent count of masked tokens), `logits[mask_indices].softmax(-1)` (advanced indexing "
            "with the nonzero result), `torch.multinomial(sample_logits, 1)` sampling, and the index_put "
            "`disc_input[mask_indices] = sampled.squeeze(-1)` into a clone of the tokens; MLM cross-entropy "
            "with ignore_index=pad plus the discriminator's BCE",
        ),
        Row(
            "r8c_electra_transformer", *ELECTRA_PYTORCH,
            "electra_pytorch.Electra(generator, discriminator, mask_prob=0.3)(tokens (4, 12) with padding) "
            "(one-layer nn.TransformerEncoderLayer generator and discriminator)",
            ("electra_pytorch",), _r8c_electra_transformer,
            patterns="same `Electra.forward` as r8c_electra_forward (uniform_ mask draw, `print(...)`, "
            "`torch.nonzero(mask, as_tuple=True)` with a data-dependent count, `logits[mask_indices]`, "
            "`torch.multinomial`, index_put `disc_input[mask_indices] = ...`) around transformer encoder "
            "layers (self-attention, layer norm) instead of MLPs",
        ),
        Row(
            "r8c_kan_fix_symbolic_fit", *PYKAN,
            "kan.KAN(width=[2, 3, 1], grid=3, k=3, auto_save=False): forward, "
            "fix_symbolic(0, 1, 2, 'sin', fit_params_bool=True, log_history=False), forward",
            ("kan",), _r8c_kan_fix_symbolic_fit,
            notes="the KAN is built with auto_save=False (no files) and its spline coefficients are redrawn from "
            "the seeded RNG after construction: the lstsq fit in KANLayer.__init__ is not bit-reproducible on CPU",
            patterns="`utils.fit_params` (three zoom iterations over a 101x101 (a, b) grid): "
            "`best_id = torch.argmax(r2)`, `a_id, b_id = torch.div(best_id, ...), best_id % grid_number`, "
            "`if a_id == 0 or a_id == grid_number - 1 or b_id == 0 or ...` (tensor bools), `a_range = [a_[a_id-1], "
            "a_[a_id+1]]` (0-d tensor indices become the next linspace bounds), `print(f'r2 is {r2_best}')` and "
            "`if r2_best < 0.9: print(...)`, then `LinearRegression().fit(post_fun.detach().cpu().numpy(), ...)` "
            "(sklearn on numpy) and `torch.from_numpy(reg.coef_)`; `Symbolic_KANLayer.fix_symbolic`: "
            "`if x == None or y == None`, `self.affine.data[j][i] = params`; `MultKAN.fix_symbolic`: "
            "`if mask[i, j] == 0:` (tensor bool) and `set_mode` writes into `mask.data`; the second forward "
            "runs the fitted symbolic branch",
        ),
        Row(
            "r8c_kan_prune_node", *PYKAN,
            "kan.KAN(width=[3, 5, 1], grid=3, k=3, auto_save=False): forward, "
            "prune_node(threshold=1e-2, log_history=False), forward of the pruned model",
            ("kan",), _r8c_kan_prune_node,
            notes="the KAN is built with auto_save=False (no files) and its spline coefficients are redrawn from "
            "the seeded RNG after construction: the lstsq fit in KANLayer.__init__ is not bit-reproducible on CPU",
            patterns="`prune_node` -> `attribute()` (edge/node scores from the saved activation stds); "
            "`overall_important_up = self.node_scores[i+1] > threshold`, `num_sums.append(num_sum.item())` / "
            "`num_mults.append(num_mult.item())` (pruned widths from data), single-argument "
            "`torch.where(overall_important_up == True)[0]`, `if i not in active_neurons_up[l + 1]` (tensor "
            "`__contains__`) -> `remove_node` in-place mask writes; builds a new `MultKAN` of the data-dependent "
            "width (its __init__ reseeds torch/numpy/random) and slices `.data` of node/subnode affines and "
            "`KANLayer.get_subset` by the kept-index tensors (2 of 5 hidden nodes are nearly dead)",
        ),
        Row(
            "r8c_kan_prune_input", *PYKAN,
            "kan.KAN(width=[4, 3, 1], grid=3, k=3, auto_save=False): forward, "
            "prune_input(threshold=1e-2, log_history=False), forward of the pruned model",
            ("kan",), _r8c_kan_prune_input,
            notes="the KAN is built with auto_save=False (no files) and its spline coefficients are redrawn from "
            "the seeded RNG after construction: the lstsq fit in KANLayer.__init__ is not bit-reproducible on CPU",
            patterns="`prune_input` -> `attribute()`; `input_mask = input_score > threshold`, "
            "`print('keep:', input_mask.tolist())` (tensor values printed), single-argument "
            "`input_id = torch.where(input_mask == True)[0]` (data-dependent count), a new `MultKAN` "
            "(__init__ reseeds torch/numpy/random), `KANLayer.get_subset(input_id, ...)` / "
            "`Symbolic_KANLayer.get_subset` index by that tensor, `model2.width[0] = [len(input_id), 0]`; the "
            "pruned forward gathers `x[:, self.input_id.long()]` and asserts `x.shape[1] == self.width_in[0]` "
            "(input 2 of 4 is nearly irrelevant and dropped)",
        ),
        Row(
            "r8c_tlr_logmel_top_db", *TORCHLIBROSA,
            "torchlibrosa Spectrogram(n_fft=64, hop_length=16) -> LogmelFilterBank(sr=8000, n_mels=16, "
            "top_db=80.0)(wave (2, 512))",
            ("torchlibrosa",), _r8c_tlr_logmel_top_db,
            patterns="`LogmelFilterBank.power_to_db`: `log_spec = torch.clamp(log_spec, min=log_spec.max().item() "
            "- self.top_db, max=np.inf)` (the clip level is a Python float from the data; the zero-padded tails "
            "are clipped); otherwise conv1d STFT, power and mel matmul",
        ),
        Row(
            "r8c_tlr_specaug", *TORCHLIBROSA,
            "torchlibrosa SpecAugmentation(time_drop_width=6, time_stripes_num=2, freq_drop_width=4, "
            "freq_stripes_num=2) (train mode) on LogmelFilterBank(top_db=None)(Spectrogram(wave (3, 512)))",
            ("torchlibrosa",), _r8c_tlr_specaug,
            notes="the augmenter is put in train mode in make (the callable is a closure, so the harness leaves "
            "it), so both modes draw stripes; in training the stripes are written into the log-mel output, "
            "a non-leaf, and gradients reach the waveform",
            patterns="`DropStripes.transform_slice` per example and stripe: `distance = torch.randint(low=0, "
            "high=self.drop_width, size=(1,))[0]`, `bgn = torch.randint(low=0, high=total_width - distance, "
            "...)[0]` (a 0-d tensor as randint's bound) and in-place slice writes `e[:, bgn : bgn + distance, :] = "
            "0` with tensor slice bounds (data-dependent slice sizes), over Python loops of batch x stripes; "
            "`if self.training is False` mode test; logmel with `top_db=None` has no `.item()`",
        ),
        Row(
            "r8c_tlr_stft_istft", *TORCHLIBROSA,
            "torchlibrosa ISTFT(n_fft=64, hop_length=16)(*STFT(n_fft=64, hop_length=16)(wave (2, 512)), 512)",
            ("torchlibrosa",), _r8c_tlr_stft_istft,
            patterns="control: conv1d STFT with reflect padding, `_get_full_stft` flip/cat, conv IDFT, "
            "`F.fold` overlap-add divided by the clamped window sum, `_trim_edges` slicing; shape asserts and "
            "`if self.onnx` / `if self.center` config branches only: no tensor value reaches Python",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
