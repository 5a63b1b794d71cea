"""Held-out round twenty-four (r24a): ctgan.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(a tiny table of 40 rows: two continuous columns ``x`` (one Gaussian mode) and
``y`` (two modes) and two discrete columns ``c`` (strings a/b/c) and ``d``
(ints 0/1), drawn from torch's seeded generator; embedding 8, hidden widths
16, one residual/linear layer, batches of 8 to 20, pac 2; nothing downloaded,
nothing written to disk, no data set or data file used); a row whose
``modes`` is one mode only says why in its ``notes``.

ctgan 0.12.1 (with rdt 2.0.0) holds two synthesizers of tabular data: CTGAN
(synthesizers/ctgan.py: a conditional WGAN-GP with a residual ``Generator``, a
packed ``Discriminator`` with ``calc_gradient_penalty``, ``_apply_activate``
(tanh / gumbel-softmax per span of the transformer's output info),
``_cond_loss``, ``fit`` and ``sample``) and TVAE (synthesizers/tvae.py:
``Encoder``/``Decoder`` MLPs, ``_loss_function``, ``fit``, ``sample``).  Both
encode the table with ``DataTransformer`` (data_transformer.py: rdt's
``ClusterBasedNormalizer`` = a Bayesian GMM per continuous column giving one
tanh value and a one-hot mode, rdt's ``OneHotEncoder`` per discrete column) and
CTGAN draws its conditional vectors with ``DataSampler`` (data_sampler.py:
numpy draws from numpy's global generator).  ``fit`` and ``sample`` are
wrapped by ``random_state`` (synthesizers/base.py:42-58 ->
``set_random_states``, 11-39): with ``set_random_state(0)`` (every row that
reaches numpy's global generator sets it; without it the numpy draws would come
from numpy's unseeded global generator) each call swaps the synthesizer's own
numpy ``RandomState`` and torch ``Generator`` into the global generators
(``np.random.set_state``, ``torch.set_rng_state``) and saves them back after;
the two training-step rows are wrapped by that same decorator, so their
torch draws also come from the synthesizer's generator, not the harness seed.

The data-dependent code on the rows' paths (file:line relative to the
``ctgan`` package):

* ``CTGAN._apply_activate`` (synthesizers/ctgan.py:221-239): a Python loop over
  the transformer's output-info spans (static), each softmax span through
  ``_gumbel_softmax`` (193-219): up to 10 tries of ``gumbel_softmax`` with
  ``if not torch.isnan(transformed).any(): return`` (216: a tensor's truth per
  span per call) and ``raise ValueError`` after.  The span widths of the
  continuous columns' modes are ``numpy.int64`` (data_transformer.py:54
  ``sum(gm.valid_component_indicator)``), so the tensor slices take numpy
  ints as bounds.
* One discriminator step of ``fit`` (ctgan.py:391-430): ``DataSampler.
  sample_condvec`` (data_sampler.py:81-106: ``np.random.choice``, numpy fancy
  writes, ``_random_choice_prob_index`` 76-79: ``np.random.rand``, cumsum,
  ``argmax``), ``torch.from_numpy`` of the condition and mask (401-402),
  ``np.random.shuffle(perm)`` (405-406), ``sample_data`` (122-141: a Python loop
  over the batch with one ``np.random.choice`` per row), ``c1[perm]`` (410: a
  tensor indexed by a numpy array), the generator and ``_apply_activate`` (216),
  ``torch.from_numpy(real.astype('float32'))`` (415), ``Discriminator.forward``
  (59-62: ``assert input_.size()[0] % self.pac == 0``, a shape), and
  ``calc_gradient_penalty`` (35-57: ``torch.rand``, ``torch.autograd.grad(...,
  create_graph=True)`` of the critic w.r.t. the interpolates).
* One generator step of ``fit`` (ctgan.py:437-461): ``sample_condvec`` (above),
  ``from_numpy`` (444-445), generator, ``_apply_activate`` (216), critic,
  ``_cond_loss`` (241-263).
* ``CTGAN.fit`` (315-488): the above per step, plus ``DataTransformer.fit``/
  ``transform`` (data_transformer.py:88-189: rdt/sklearn, numpy only),
  ``DataSampler.__init__`` (data_sampler.py:9-74: ``np.nonzero`` per category),
  Adam steps, ``loss_g.detach().cpu().item()`` and ``loss_d...item()`` (467-468:
  the losses read into Python floats once per epoch), pandas ``loss_values``.
* ``CTGAN.sample`` (490-545): ``sample_original_condvec`` (data_sampler.py:
  108-120: ``np.random.choice`` with probabilities) or, with a condition,
  ``convert_column_name_value_to_id`` (data_transformer.py:240-265: rdt
  one-hot of the value, ``if sum(one_hot) == 0: raise`` (258), ``np.argmax``)
  and ``generate_cond_from_condition_column_info`` (data_sampler.py:147-153);
  ``torch.from_numpy`` (535), generator, ``_apply_activate`` (216),
  ``fakeact.detach().cpu().numpy()`` (540: the sample leaves torch), then
  ``DataTransformer.inverse_transform`` (data_transformer.py:206-238: numpy
  ``argmax`` of the mode one-hots (194), rdt ``reverse_transform``, pandas).
* ``TVAE.fit`` (synthesizers/tvae.py:135-209): a shuffled ``DataLoader``,
  ``Encoder``, reparameterisation, ``Decoder``, ``_loss_function`` (79-103),
  Adam, ``self.decoder.sigma.data.clamp_(0.01, 1.0)`` (189: in place on
  ``.data``), ``loss.detach().cpu().item()`` (192: per batch).
* ``TVAE.sample`` (211-236): ``decoder.eval()``, ``tanh``, ``.detach().cpu()
  .numpy()`` of the sample (232) and of the decoder's ``sigma`` (236), then
  ``inverse_transform`` with sigmas (data_transformer.py:191-197:
  ``np.random.normal`` around each continuous value).

Controls (no tensor value reaches Python): ``CTGAN._cond_loss`` (ctgan.py:
241-263: a static Python loop over spans, ``argmax`` of the condition as the
cross-entropy target, ``stack``, masked sum) and the TVAE ELBO (``Encoder``/
``Decoder`` forwards, ``randn_like``, ``_loss_function`` tvae.py:79-103: a static
loop over spans, ``sigmas[st]`` with a Python-int index (86), ``argmax`` targets,
``assert st == recon_x.size()[1]`` (101: shapes), the built-in ``sum`` of a
list of 0-d tensors (103)).

Global state on import (the builders import the library; this module imports
only torch): ``import ctgan`` imports pandas, tqdm, rdt (which imports scipy,
faker and joblib) but not scikit-learn (rdt imports ``sklearn.mixture`` when
a ``ClusterBasedNormalizer`` is fitted, i.e. in every builder here); joblib's
``__init__`` (and later scikit-learn's) sets ``KMP_INIT_AT_FORK=FALSE`` in
``os.environ`` (``setdefault``).  No warning filter is added by ctgan/rdt after
torch is imported; the first fit (in every builder) imports scikit-learn,
which sets ``KMP_DUPLICATE_LIB_OK=True`` (``setdefault``, sklearn/__init__.py
and threadpoolctl), and scipy.special/scipy.sparse, which add an ``always``
filter for scipy's ``SpecialFunctionWarning`` and an ``ignore`` filter for
numpy's "matrix subclass" warning.  No logging handler or level is set,
torch's default dtype, deterministic flags, matmul precision and thread count
are unchanged, and
``torch._dynamo`` is not imported by the package.  The two ``fit`` rows build
``torch.optim.Adam`` optimizers: ``torch.optim.Optimizer.add_param_group`` is
wrapped by torch's ``_disable_dynamo`` (torch/_compile.py), which imports
``torch._dynamo`` (nothing is compiled; any torch optimizer does this).

Library quirks met (eagerly): CTGAN never puts its generator in eval mode:
``sample`` runs it in train mode (BatchNorm on the sampled batch's statistics,
its running statistics updated by every ``sample`` call) and builds whole
batches of ``batch_size`` then cuts to ``n`` (519-543), so the rows sample
in train mode as the library does.  ``DataSampler._discrete_column_matrix_st``
is allocated as zeros and never filled (data_sampler.py:19), so
``generate_cond_from_condition_column_info`` (150-152) sets the category
``value_id`` of the *first* discrete column whatever ``condition_column`` is:
with this table (rdt's one-hot orders categories by first appearance: c
``['a', 'c', 'b']``, d ``[1, 0]``) conditioning on ``d=1`` conditions the
generator on ``c='a'``; the conditional-sample row conditions on ``c`` (the
first discrete column), where the vector is right.  A continuous column with
one mode (``x`` here) still gets a 1-wide softmax span, always 1 after the
gumbel-softmax.  ``sample``/``fit`` reach
numpy's global generator, so without ``set_random_state`` two processes
disagree (the rows set it).  ``TVAE.sample`` calls ``decoder.eval()`` and
leaves it there.  The ``fit`` rows run under ``torch.no_grad`` in inference
mode, where ``fit``'s backward would fail, so their wrappers run ``fit`` under
``torch.enable_grad()`` (as a user's call would be).
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

CTGAN_LIB = ("ctgan", "0.12.1")
MODULES = ("ctgan", "rdt")
INFERENCE = ("inference",)
TRAINING = ("training",)
DISCRETE = ("c", "d")
BATCH = 8

# --- helpers -------------------------------------------------------------------------------


def _table(n: int = 40) -> Any:
    """A small mixed table from torch's (seeded) generator: x ~ N(0, 1); y from two modes; c in {a, b, c}
    (unbalanced); d in {0, 1}."""
    import pandas as pd

    x = torch.randn(n, dtype=torch.float64)
    mode = torch.rand(n) < 0.5
    y = torch.where(mode, -2.0 + 0.3 * torch.randn(n, dtype=torch.float64),
                    3.0 + 0.5 * torch.randn(n, dtype=torch.float64))
    letters = torch.multinomial(torch.tensor([0.5, 0.3, 0.2]), n, replacement=True).tolist()
    d = torch.randint(0, 2, (n,)).tolist()
    return pd.DataFrame({"x": x.numpy(), "y": y.numpy(), "c": ["abc"[i] for i in letters], "d": d})


def _ctgan(batch_size: int = BATCH) -> Any:
    from ctgan import CTGAN

    synth = CTGAN(embedding_dim=8, generator_dim=(16,), discriminator_dim=(16,), batch_size=batch_size, epochs=2,
                  pac=2, enable_gpu=False)
    synth.set_random_state(0)
    return synth


def _fitted_ctgan(batch_size: int = BATCH) -> tuple[Any, Any, Any]:
    """A CTGAN with everything ``fit`` builds before its loop (ctgan.py:342-359): the fitted ``DataTransformer``,
    the ``DataSampler`` and a random-weight ``Generator``; plus a random-weight ``Discriminator`` and the
    transformed training matrix (numpy)."""
    from ctgan.data_sampler import DataSampler
    from ctgan.data_transformer import DataTransformer
    from ctgan.synthesizers.ctgan import Discriminator, Generator

    synth = _ctgan(batch_size)
    table = _table()
    synth._transformer = DataTransformer()
    synth._transformer.fit(table, DISCRETE)
    train = synth._transformer.transform(table)
    synth._data_sampler = DataSampler(train, synth._transformer.output_info_list, True)
    data_dim, cond_dim = synth._transformer.output_dimensions, synth._data_sampler.dim_cond_vec()
    synth._generator = Generator(8 + cond_dim, (16,), data_dim)
    discriminator = Discriminator(data_dim + cond_dim, (16,), pac=2)
    return synth, discriminator, train


def _frame_out(frame: Any) -> tuple[Any, ...]:
    """A sampled DataFrame as (continuous columns (n, 2) float64, c as a list of str, d as int64)."""
    return (torch.from_numpy(frame[["x", "y"]].to_numpy(dtype="float64")), frame["c"].tolist(),
            torch.from_numpy(frame["d"].to_numpy(dtype="int64")))


def _generate(synth: Any, generator: Any, fakez: torch.Tensor) -> torch.Tensor:
    """The generator's forward then the output activations, as in ``fit`` and ``sample`` (ctgan.py:412-413)."""
    return synth._apply_activate(generator(fakez))


def _discriminator_step(synth: Any, generator: Any, discriminator: Any, train_data: Any) -> tuple[Any, Any]:
    """One critic step of ``CTGAN.fit`` (ctgan.py:391-430, the conditional branch) up to its losses: returns
    (loss_d, gradient penalty); ``fit`` backpropagates both (433-434)."""
    import numpy as np

    mean = torch.zeros(synth._batch_size, synth._embedding_dim)
    std = mean + 1
    fakez = torch.normal(mean=mean, std=std)
    c1, m1, col, opt = synth._data_sampler.sample_condvec(synth._batch_size)
    c1 = torch.from_numpy(c1)
    fakez = torch.cat([fakez, c1], dim=1)
    perm = np.arange(synth._batch_size)
    np.random.shuffle(perm)
    real = synth._data_sampler.sample_data(train_data, synth._batch_size, col[perm], opt[perm])
    c2 = c1[perm]
    fake = generator(fakez)
    fakeact = synth._apply_activate(fake)
    real = torch.from_numpy(real.astype("float32"))
    fake_cat = torch.cat([fakeact, c1], dim=1)
    real_cat = torch.cat([real, c2], dim=1)
    y_fake = discriminator(fake_cat)
    y_real = discriminator(real_cat)
    pen = discriminator.calc_gradient_penalty(real_cat, fake_cat, synth._device, synth.pac)
    loss_d = -(torch.mean(y_real) - torch.mean(y_fake))
    return loss_d, pen


def _generator_step(synth: Any, generator: Any, discriminator: Any) -> torch.Tensor:
    """One generator step of ``CTGAN.fit`` (ctgan.py:437-461, the conditional branch) up to its loss."""
    mean = torch.zeros(synth._batch_size, synth._embedding_dim)
    std = mean + 1
    fakez = torch.normal(mean=mean, std=std)
    c1, m1, col, opt = synth._data_sampler.sample_condvec(synth._batch_size)
    c1 = torch.from_numpy(c1)
    m1 = torch.from_numpy(m1)
    fakez = torch.cat([fakez, c1], dim=1)
    fake = generator(fakez)
    fakeact = synth._apply_activate(fake)
    y_fake = discriminator(torch.cat([fakeact, c1], dim=1))
    cross_entropy = synth._cond_loss(fake, c1, m1)
    return -torch.mean(y_fake) + cross_entropy


def _ctgan_fit(synth: Any, table: Any, discrete: tuple[str, ...]) -> tuple[Any, ...]:
    """``synth.fit(table, discrete)`` under ``torch.enable_grad()`` (fit runs its own backward); returns the
    generator's parameters and the per-epoch losses."""
    with torch.enable_grad():
        synth.fit(table, discrete)
    params = tuple(p.detach().clone() for p in synth._generator.parameters())
    losses = synth.loss_values[["Generator Loss", "Discriminator Loss"]].to_numpy().tolist()
    return params, losses


def _ctgan_sample(synth: Any, n: int, column: str | None = None, value: Any = None) -> tuple[Any, ...]:
    return _frame_out(synth.sample(n, condition_column=column, condition_value=value))


def _tvae_fit(synth: Any, table: Any, discrete: tuple[str, ...]) -> tuple[Any, ...]:
    """``synth.fit(table, discrete)`` under ``torch.enable_grad()``; returns the decoder's parameters and the
    per-batch losses."""
    with torch.enable_grad():
        synth.fit(table, discrete)
    params = tuple(p.detach().clone() for p in synth.decoder.parameters())
    return params, synth.loss_values["Loss"].tolist()


def _tvae_sample(synth: Any, n: int) -> tuple[Any, ...]:
    return _frame_out(synth.sample(n))


def _tvae_elbo(encoder: Any, decoder: Any, real: torch.Tensor, output_info: Any, factor: float) -> tuple[Any, Any]:
    """The loss of one TVAE training batch (tvae.py:173-185): encode, reparameterise, decode, then
    ``_loss_function``; returns (reconstruction loss, KL)."""
    from ctgan.synthesizers.tvae import _loss_function

    mu, std, logvar = encoder(real)
    eps = torch.randn_like(std)
    emb = eps * std + mu
    rec, sigmas = decoder(emb)
    return _loss_function(rec, real, sigmas, mu, logvar, output_info, factor)


# --- builders ------------------------------------------------------------------------------


def _generator_activate(training: bool) -> Built:
    synth, _, _ = _fitted_ctgan()
    generator = synth._generator.train(training)
    fakez = torch.randn(BATCH, 8 + synth._data_sampler.dim_cond_vec())
    return _generate, (synth, generator, fakez), {}


def _d_step(training: bool) -> Built:
    from ctgan.synthesizers.base import random_state

    synth, discriminator, train = _fitted_ctgan()
    return random_state(_discriminator_step), (synth, synth._generator, discriminator, train), {}


def _g_step(training: bool) -> Built:
    from ctgan.synthesizers.base import random_state

    synth, discriminator, _ = _fitted_ctgan()
    return random_state(_generator_step), (synth, synth._generator, discriminator), {}


def _fit_ctgan(training: bool) -> Built:
    return _ctgan_fit, (_ctgan(batch_size=20), _table(), DISCRETE), {}


def _sample_ctgan(training: bool) -> Built:
    synth, _, _ = _fitted_ctgan()
    return _ctgan_sample, (synth, 6), {}


def _sample_ctgan_conditional(training: bool) -> Built:
    synth, _, _ = _fitted_ctgan()
    return _ctgan_sample, (synth, 6, "c", "b"), {}


def _tvae(batch_size: int) -> Any:
    from ctgan import TVAE

    synth = TVAE(embedding_dim=8, compress_dims=(16,), decompress_dims=(16,), batch_size=batch_size, epochs=2,
                 enable_gpu=False)
    synth.set_random_state(0)
    return synth


def _fit_tvae(training: bool) -> Built:
    return _tvae_fit, (_tvae(batch_size=16), _table(), DISCRETE), {}


def _sample_tvae(training: bool) -> Built:
    from ctgan.data_transformer import DataTransformer
    from ctgan.synthesizers.tvae import Decoder

    synth = _tvae(batch_size=BATCH)
    synth.transformer = DataTransformer()
    synth.transformer.fit(_table(), DISCRETE)
    synth.decoder = Decoder(8, (16,), synth.transformer.output_dimensions)
    return _tvae_sample, (synth, 6), {}


def _cond_loss(training: bool) -> Built:
    synth, _, _ = _fitted_ctgan()
    data = torch.randn(BATCH, synth._transformer.output_dimensions)
    column = torch.randint(0, 2, (BATCH,))
    mask = torch.nn.functional.one_hot(column, 2).float()
    # c has 3 categories at offset 0, d has 2 at offset 3 (the condition vector's layout)
    category = torch.where(column == 0, torch.randint(0, 3, (BATCH,)), 3 + torch.randint(0, 2, (BATCH,)))
    cond = torch.nn.functional.one_hot(category, 5).float()
    return synth._cond_loss, (data, cond, mask), {}


def _elbo(training: bool) -> Built:
    from ctgan.data_transformer import DataTransformer
    from ctgan.synthesizers.tvae import Decoder, Encoder

    transformer = DataTransformer()
    table = _table()
    transformer.fit(table, DISCRETE)
    real = torch.from_numpy(transformer.transform(table)[:BATCH].astype("float32"))
    dim = transformer.output_dimensions
    encoder, decoder = Encoder(dim, (16,), 8), Decoder(8, (16,), dim)
    return _tvae_elbo, (encoder, decoder, real, transformer.output_info_list, 2), {}


# --- rows ------------------------------------------------------------------------------------

_ACTIVATE = ("`CTGAN._apply_activate` (synthesizers/ctgan.py:221-239: a static loop over the output-info spans, "
             "numpy-int span widths as slice bounds, `tanh` spans, softmax spans through `_gumbel_softmax` "
             "(193-219: up to 10 `gumbel_softmax` tries, `if not torch.isnan(transformed).any()` (216: a tensor's "
             "truth per span), `raise ValueError` after))")
_CONDVEC = ("`DataSampler.sample_condvec` (data_sampler.py:81-106: `np.random.choice` from numpy's global "
            "generator, numpy fancy writes, `_random_choice_prob_index` (76-79: `np.random.rand`, cumsum, argmax)), "
            "`torch.from_numpy` of the condition")
_RANDOM_STATE = ("the library's `random_state` decorator (synthesizers/base.py:42-58 -> `set_random_states` 11-39: "
                 "`np.random.get_state`/`set_state`, `torch.get_rng_state`/`set_rng_state` swapping in the "
                 "synthesizer's generators, then saving them back)")
_INVERSE = ("`DataTransformer.inverse_transform` (data_transformer.py:206-238: per column, pandas frames of the "
            "numpy sample, `np.argmax` of the mode one-hots (194), rdt `ClusterBasedNormalizer`/`OneHotEncoder` "
            "`reverse_transform`, `np.column_stack`, `astype` of the raw dtypes)")
_SAMPLE_NOTES = ("inference only: `sample` detaches the generated batch into numpy (no gradient path) and returns "
                 "a DataFrame (the wrapper turns it into tensors and a list); ")
_FIT_NOTES = ("inference only: `fit` runs its own backward and Adam steps (the wrapper runs it under "
              "`torch.enable_grad()`) and returns detached parameters and Python floats; ")


def _rows() -> list[Row]:
    return [
        Row(
            "r24a_generator_apply_activate", *CTGAN_LIB,
            "wrapper: CTGAN._apply_activate(Generator(8 + 5, (16,), 10)(fakez (8, 13))) on a fitted "
            "DataTransformer's output info (x: tanh + 1-wide softmax, y: tanh + 2-wide softmax, c: 3, d: 2); "
            "returns (8, 10)",
            MODULES, _generator_activate,
            notes="the CTGAN generator's forward and output activations as `fit` and `sample` run them (tanh for "
            "the normalized values, gumbel-softmax with tau=0.2 for mode and category one-hots); the generator is "
            "put in eval mode for inference and train mode for training (BatchNorm); in training fakez and the "
            "generator's parameters require grad",
            patterns="`Generator.forward` (synthesizers/ctgan.py:95-98: `Residual` 74-79: linear, BatchNorm, relu, "
            "`cat`), " + _ACTIVATE,
        ),
        Row(
            "r24a_ctgan_discriminator_step", *CTGAN_LIB,
            "wrapper (under ctgan's `random_state` decorator): one critic step of CTGAN.fit on the 40-row table "
            "(batch 8, pac 2, conditional branch): condition vectors, real rows sampled per condition, "
            "Generator + _apply_activate, Discriminator(10 + 5, (16,), pac=2) on fake and real, "
            "calc_gradient_penalty; returns (loss_d, penalty)",
            MODULES, _d_step, modes=TRAINING,
            notes="training only: the gradient penalty differentiates the critic w.r.t. the interpolates "
            "(`torch.autograd.grad`), which needs grad enabled. The critic update's losses as `fit` builds them "
            "(`fit` backpropagates both); numpy and torch draws from the synthesizer's seeded generators; "
            "generator (train mode) and critic (train mode, dropout) parameters require grad",
            patterns=_RANDOM_STATE + "; `torch.normal`; " + _CONDVEC + "; `np.random.shuffle(perm)` (ctgan.py:"
            "405-406), `DataSampler.sample_data` (data_sampler.py:122-141: a Python loop over the batch, one "
            "`np.random.choice` per row, numpy row gather), `c1[perm]` (ctgan.py:410: a tensor indexed by a numpy "
            "array); generator; " + _ACTIVATE + "; `torch.from_numpy(real.astype('float32'))` (415); "
            "`Discriminator.forward` (59-62: `assert input_.size()[0] % self.pac == 0`, shape only, `view`); "
            "`calc_gradient_penalty` (35-57: `torch.rand`, `repeat`, `torch.autograd.grad(create_graph=True)`, "
            "norm)",
        ),
        Row(
            "r24a_ctgan_generator_step", *CTGAN_LIB,
            "wrapper (under ctgan's `random_state` decorator): one generator step of CTGAN.fit on the 40-row "
            "table (batch 8, conditional branch): condition vector and mask, Generator + _apply_activate, "
            "Discriminator, _cond_loss; returns loss_g (0-d)",
            MODULES, _g_step,
            notes="the generator update's loss as `fit` builds it (generator and critic in train mode in both "
            "modes, as `fit` leaves them); numpy and torch draws from the synthesizer's seeded generators; in "
            "training generator and critic parameters require grad",
            patterns=_RANDOM_STATE + "; `torch.normal`; " + _CONDVEC + " and mask (ctgan.py:444-445); generator; "
            + _ACTIVATE + "; `Discriminator.forward` (59-62: shape assert); `_cond_loss` (241-263: static span "
            "loop, `argmax` targets, `cross_entropy`, `stack`, masked sum)",
        ),
        Row(
            "r24a_ctgan_fit", *CTGAN_LIB,
            "wrapper: CTGAN(embedding_dim=8, generator_dim=(16,), discriminator_dim=(16,), batch_size=20, "
            "epochs=2, pac=2, set_random_state(0)).fit(40-row DataFrame, discrete ('c', 'd')); returns (generator "
            "parameters, per-epoch [generator loss, discriminator loss])",
            MODULES, _fit_ctgan, modes=INFERENCE,
            notes=_FIT_NOTES + "2 epochs of 2 steps (one critic and one generator update each) including fitting "
            "the DataTransformer (a Bayesian GMM per continuous column)",
            patterns=_RANDOM_STATE + " around `CTGAN.fit` (synthesizers/ctgan.py:315-488): validation in pandas; "
            "`DataTransformer.fit`/`transform` (data_transformer.py:88-189: rdt, sklearn, numpy); "
            "`DataSampler.__init__` (data_sampler.py:9-74: `np.nonzero` per category, numpy frequencies); "
            "`torch.optim.Adam` x2; per step the critic step (391-435: as r24a_ctgan_discriminator_step, then "
            "`pen.backward(retain_graph=True)`, `loss_d.backward()`, `optimizerD.step()`) and the generator step "
            "(437-465: as r24a_ctgan_generator_step, then backward and step); per epoch "
            "`loss_g.detach().cpu().item()` and `loss_d.detach().cpu().item()` (467-468), pandas `concat` "
            "(470-480)",
        ),
        Row(
            "r24a_ctgan_sample", *CTGAN_LIB,
            "wrapper: CTGAN.sample(6) with a fitted DataTransformer/DataSampler and a random-weight generator "
            "(batch 8, set_random_state(0)); returns (x, y as (6, 2) float64, c as a list of str, d as (6,) int64)",
            MODULES, _sample_ctgan, modes=INFERENCE,
            notes=_SAMPLE_NOTES + "unconditional sampling of 6 synthetic rows (one batch of 8, generator in "
            "train mode as the library leaves it)",
            patterns=_RANDOM_STATE + " around `CTGAN.sample` (synthesizers/ctgan.py:490-545): `torch.normal`, "
            "`DataSampler.sample_original_condvec` (data_sampler.py:108-120: numpy boolean filter of the "
            "frequencies, `np.random.choice(p=...)`), `torch.from_numpy` (535), generator, " + _ACTIVATE
            + ", `fakeact.detach().cpu().numpy()` (540), `np.concatenate`, then " + _INVERSE,
        ),
        Row(
            "r24a_ctgan_sample_conditional", *CTGAN_LIB,
            "wrapper: CTGAN.sample(6, condition_column='c', condition_value='b') with a fitted DataTransformer/"
            "DataSampler and a random-weight generator (batch 8, set_random_state(0)); returns (x, y as (6, 2) "
            "float64, c as a list of str, d as (6,) int64)",
            MODULES, _sample_ctgan_conditional, modes=INFERENCE,
            notes=_SAMPLE_NOTES + "sampling with every condition vector set to c='b' (the first discrete column, "
            "where the library's condition vector is right; see the docstring)",
            patterns=_RANDOM_STATE + " around `CTGAN.sample` (synthesizers/ctgan.py:490-545): "
            "`DataTransformer.convert_column_name_value_to_id` (data_transformer.py:240-265: rdt one-hot of the "
            "value, `if sum(one_hot) == 0: raise` (258), `np.argmax`), `generate_cond_from_condition_column_info` "
            "(data_sampler.py:147-153: numpy), `.copy()` per step, `torch.from_numpy` (535), generator, "
            + _ACTIVATE + ", `fakeact.detach().cpu().numpy()` (540), then " + _INVERSE,
        ),
        Row(
            "r24a_tvae_fit", *CTGAN_LIB,
            "wrapper: TVAE(embedding_dim=8, compress_dims=(16,), decompress_dims=(16,), batch_size=16, epochs=2, "
            "set_random_state(0)).fit(40-row DataFrame, discrete ('c', 'd')); returns (decoder parameters, "
            "per-batch losses)",
            MODULES, _fit_tvae, modes=INFERENCE,
            notes=_FIT_NOTES + "2 epochs of 3 shuffled batches (16, 16, 8) including fitting the DataTransformer",
            patterns=_RANDOM_STATE + " around `TVAE.fit` (synthesizers/tvae.py:135-209): `DataTransformer.fit`/"
            "`transform` (rdt, sklearn, numpy), `TensorDataset`/shuffled `DataLoader`, `Adam`; per batch "
            "`Encoder`, `randn_like`, `Decoder`, `_loss_function` (79-103: static span loop, `sigmas[st]`, "
            "`argmax` targets, shape assert, built-in `sum`), backward, `step`, "
            "`self.decoder.sigma.data.clamp_(0.01, 1.0)` (189: in place on `.data`), `loss.detach().cpu().item()` "
            "(192: one Python float per batch); pandas `loss_values`",
        ),
        Row(
            "r24a_tvae_sample", *CTGAN_LIB,
            "wrapper: TVAE.sample(6) with a fitted DataTransformer and a random-weight Decoder(8, (16,), 10) "
            "(batch 8, set_random_state(0)); returns (x, y as (6, 2) float64, c as a list of str, d as (6,) int64)",
            MODULES, _sample_tvae, modes=INFERENCE,
            notes=_SAMPLE_NOTES + "decoding 6 synthetic rows from Gaussian noise, continuous values redrawn "
            "around the decoded ones with the decoder's sigmas",
            patterns=_RANDOM_STATE + " around `TVAE.sample` (synthesizers/tvae.py:211-236): `decoder.eval()`, "
            "`torch.normal`, `Decoder.forward`, `tanh`, `fake.detach().cpu().numpy()` (232), "
            "`sigmas.detach().cpu().numpy()` (236), then " + _INVERSE.replace(
                "per column,", "per column (continuous: `np.random.normal(values, sigmas[st])`, 196-197),"),
        ),
        Row(
            "r24a_cond_loss_control", *CTGAN_LIB,
            "method: CTGAN._cond_loss(data (8, 10), c (8, 5) one-hot condition, m (8, 2) one-hot column mask) on "
            "a fitted DataTransformer's output info; returns a 0-d tensor",
            MODULES, _cond_loss, frozen=("1", "2"),
            notes="control: the generator's conditional cross-entropy (does the generated category match the "
            "condition, only for the conditioned column); in training the generator output requires grad (the "
            "condition and mask are data: frozen); the bound method's owner also exposes the unused generator's "
            "parameters, whose gradients stay None",
            patterns="control: no tensor value reaches Python. `CTGAN._cond_loss` (synthesizers/ctgan.py:241-263: "
            "a static Python loop over the output-info spans (numpy-int widths), `cross_entropy(data[:, st:ed], "
            "argmax(c[:, st_c:ed_c]), reduction='none')` per discrete column, `stack`, `(loss * m).sum() / "
            "batch`)",
        ),
        Row(
            "r24a_tvae_elbo_control", *CTGAN_LIB,
            "wrapper: Encoder(10, (16,), 8), reparameterisation, Decoder(8, (16,), 10), then "
            "tvae._loss_function(rec, real (8, 10), sigmas, mu, logvar, output_info, factor=2) as TVAE.fit's "
            "batch (tvae.py:173-185); returns (reconstruction loss, KL)",
            MODULES, _elbo, frozen=("2",),
            notes="control: the TVAE evidence lower bound of one batch of 8 transformed rows; in training the "
            "encoder's and decoder's parameters (sigma included) require grad (the data is frozen)",
            patterns="control: no tensor value reaches Python. `Encoder.forward` (synthesizers/tvae.py:41-47), "
            "`randn_like`, `Decoder.forward` (74-76), `_loss_function` (79-103: a static loop over the spans, "
            "`sigmas[st]` with a Python-int index (86), `tanh` residuals, `log(std)`, `cross_entropy` with "
            "`argmax` targets, `assert st == recon_x.size()[1]` (101: shapes), KL, the built-in `sum` of a list "
            "of 0-d tensors (103))",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-four (a)")
