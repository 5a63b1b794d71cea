"""The ecosystem corpus: real PyTorch-ecosystem code (not transformers) that breaks.

A second benchmark beside :mod:`benchmarks.corpus`.  Each :class:`Row` calls a
third-party library's *own* function or ``nn.Module`` the way a user would
(tiny configs, seeded random weights and inputs, nothing downloaded) down a
code path on which ``torch.compile`` (torch 2.13) reports at least one graph
break in at least one of the two modes:

* inference: ``torch.no_grad()``, modules in eval mode (unless the row says
  the module only makes sense in train mode);
* training: gradients enabled, every floating input tensor requires grad
  (except the ones a row names in ``frozen``), modules in train mode where
  that makes sense, and ``row.loss(output)`` reduces the output to a scalar
  for ``backward()``.

``modules`` are the module-name prefixes where the break sites live: what
``graphmend.mend(callable, modules=row.modules)`` is told to rewrite.

The libraries are imported only inside ``build()``; their versions are pinned
in ``constraints-ecosystem.txt`` (``pip install -c constraints-ecosystem.txt
'.[ecosystem]'``).  ``python -m benchmarks --corpus ecosystem`` measures every row in both
modes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.utils._pytree as pytree

Built = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]

SEED = 0
INPUT_SEED = 1
#: Seed set right before every call of a row's callable (rows that sample:
#: schedulers, rejection samplers, k-means init) so two calls compare.
CALL_SEED = 2


def default_loss(output: Any) -> torch.Tensor | None:
    """The sum of every floating tensor leaf of ``output`` that carries a
    gradient, in pytree order; ``None`` when there is none (the row has no
    gradient path, e.g. a validation function returning a bool)."""
    total = None
    for leaf in pytree.tree_leaves(output):
        if isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and leaf.requires_grad:
            part = leaf.sum()
            total = part if total is None else total + part
    return total


@dataclass(frozen=True)
class Row:
    """One ecosystem corpus row."""

    name: str
    library: str  # the pip name
    version: str
    title: str
    modules: tuple[str, ...]
    # make(training) -> (callable, args, kwargs); called under a fixed seed.
    make: Callable[[bool], Built]
    # What the break sites contain, in words (the report's "patterns" column).
    patterns: str = ""
    # Module rows: put the module in train mode for the training mode.
    train_mode: bool = True
    # Inputs (positional index as a str, or keyword name) that never require
    # grad, e.g. an image written in place, or integer-valued floats.
    frozen: tuple[str, ...] = ()
    loss: Callable[[Any], torch.Tensor | None] = default_loss
    notes: str = ""
    modes: tuple[str, ...] = field(default=("inference", "training"))

    def build(self, training: bool = False) -> Built:
        """A fresh, seeded ``(callable, args, kwargs)``; call it as ``fn(*args, **kwargs)``."""
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(SEED)
            fn, args, kwargs = self.make(training)
        module = fn if isinstance(fn, torch.nn.Module) else getattr(fn, "__self__", None)
        if isinstance(module, torch.nn.Module):
            module.train(training and self.train_mode)
        if training:
            args = tuple(self._requires_grad(str(i), a) for i, a in enumerate(args))
            kwargs = {k: self._requires_grad(k, v) for k, v in kwargs.items()}
        return fn, args, kwargs

    def _requires_grad(self, key: str, value: Any) -> Any:
        if key in self.frozen:
            return value
        if isinstance(value, torch.Tensor) and value.is_floating_point() and not value.requires_grad:
            return value.detach().clone().requires_grad_(True)
        return value


# --- helpers used by several rows ----------------------------------------------


# --- kornia --------------------------------------------------------------------

KORNIA = ("kornia", "0.9.0")


def _kornia_draw_point2d(training: bool) -> Built:
    from kornia.image.draw import draw_point2d

    image = torch.rand(3, 8, 8)
    points = torch.tensor([[1, 2], [3, 4], [6, 0]])
    color = torch.tensor([1.0, 0.5, 0.0])
    return draw_point2d, (image, points, color), {}


def _kornia_crop_by_boxes(training: bool) -> Built:
    from kornia.geometry.transform import crop_by_boxes

    src = torch.tensor([[[1.0, 1.0], [4.0, 1.0], [4.0, 4.0], [1.0, 4.0]]]).repeat(2, 1, 1)
    src[1] += 2.0
    dst = torch.tensor([[[0.0, 0.0], [3.0, 0.0], [3.0, 3.0], [0.0, 3.0]]]).repeat(2, 1, 1)
    return crop_by_boxes, (torch.rand(2, 3, 8, 8), src, dst), {"align_corners": True}


def _kornia_validate_bbox(training: bool) -> Built:
    from kornia.geometry.bbox import validate_bbox

    boxes = torch.tensor([[[0.0, 0.0], [3.0, 0.0], [3.0, 2.0], [0.0, 2.0]]]).repeat(2, 1, 1)
    boxes = boxes + torch.rand(2, 1, 1)
    return validate_bbox, (boxes,), {}


def _kornia_camtoworld(training: bool) -> Built:
    from kornia.geometry.conversions import camtoworld_to_worldtocam_Rt

    q = torch.nn.functional.normalize(torch.randn(2, 4), dim=-1)
    w, x, y, z = q.unbind(-1)
    R = torch.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
        ],
        -1,
    ).reshape(2, 3, 3)
    return camtoworld_to_worldtocam_Rt, (R, torch.randn(2, 3, 1)), {"check_rotation": True}


# --- torchmetrics ---------------------------------------------------------------

TORCHMETRICS = ("torchmetrics", "1.9.0")


def _tm_tweedie(training: bool) -> Built:
    from torchmetrics.functional import tweedie_deviance_score

    return tweedie_deviance_score, (torch.rand(16) + 0.1, torch.rand(16) + 0.1), {"power": 1.5}


def _tm_pearson(training: bool) -> Built:
    from torchmetrics.functional import pearson_corrcoef

    return pearson_corrcoef, (torch.randn(16, 2), torch.randn(16, 2)), {}


def _tm_retrieval_ap(training: bool) -> Built:
    from torchmetrics.functional.retrieval import retrieval_average_precision

    target = torch.tensor([1, 0, 0, 1, 0, 1, 0, 0, 0, 1]).bool()
    return retrieval_average_precision, (torch.randn(10), target), {}


def _tm_binary_accuracy(training: bool) -> Built:
    from torchmetrics.functional.classification import binary_accuracy

    return binary_accuracy, (torch.randn(16), torch.randint(0, 2, (16,))), {}


def _tm_ssim_root(training: bool) -> Built:
    # The deprecated root import a lot of user code still has: a wrapper whose
    # first statement is a helper that only warns (FutureWarning).
    from torchmetrics.functional import structural_similarity_index_measure

    return structural_similarity_index_measure, (torch.rand(2, 3, 16, 16), torch.rand(2, 3, 16, 16)), {}


def _tm_r2(training: bool) -> Built:
    from torchmetrics.functional import r2_score

    return r2_score, (torch.randn(16, 3), torch.randn(16, 3)), {"multioutput": "raw_values"}


# --- torchdiffeq ----------------------------------------------------------------

TORCHDIFFEQ = ("torchdiffeq", "0.2.5")


class VectorField(torch.nn.Module):
    """The user's vector field, as torchdiffeq's README writes one: f(t, y)."""

    def __init__(self, dim: int = 3) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(dim, dim)

    def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.linear(y))


def _odeint(method: str, **options: Any) -> Callable[[bool], Built]:
    def make(training: bool) -> Built:
        from torchdiffeq import odeint

        func = VectorField()
        kwargs: dict[str, Any] = {"method": method}
        if method == "dopri5":
            kwargs.update(rtol=1e-3, atol=1e-4)
        if options:
            kwargs["options"] = options
        return odeint, (func, torch.randn(2, 3), torch.linspace(0.0, 1.0, 3)), kwargs

    return make


# --- pyro -------------------------------------------------------------------------

PYRO = ("pyro-ppl", "1.9.2")


def _pyro_nanmasked(with_nan: bool) -> Callable[[bool], Built]:
    def make(training: bool) -> Built:
        import pyro.distributions as dist

        loc, scale = torch.randn(5), torch.rand(5) + 0.5
        if training:
            loc.requires_grad_(True)
            scale.requires_grad_(True)
        value = torch.randn(5)
        if with_nan:
            value[1] = float("nan")
        return dist.NanMaskedNormal(loc, scale).log_prob, (value,), {}

    return make


def _pyro_von_mises_3d(training: bool) -> Built:
    import pyro.distributions as dist

    concentration = torch.randn(2, 3)
    if training:
        concentration.requires_grad_(True)
    value = torch.nn.functional.normalize(torch.randn(2, 3), dim=-1)
    return dist.VonMises3D(concentration, validate_args=True).log_prob, (value,), {}


def _pyro_rejection_gamma(training: bool) -> Built:
    from pyro.distributions.testing.rejection_gamma import RejectionStandardGamma

    concentration = torch.full((6,), 1.2) + torch.rand(6)
    if training:
        concentration.requires_grad_(True)
    return RejectionStandardGamma(concentration).rsample, (), {}


# --- linear_operator ----------------------------------------------------------------

LINEAR_OPERATOR = ("linear-operator", "0.6.1")


def _psd_safe_cholesky(rank_deficient: bool) -> Callable[[bool], Built]:
    def make(training: bool) -> Built:
        from linear_operator.utils.cholesky import psd_safe_cholesky

        if rank_deficient:
            B = torch.randn(4, 2, dtype=torch.float64)
            A = B @ B.T  # positive semi-definite, rank 2: Cholesky fails, jitter is added
        else:
            B = torch.randn(4, 4, dtype=torch.float64)
            A = B @ B.T + 4 * torch.eye(4, dtype=torch.float64)
        return psd_safe_cholesky, (A,), {}

    return make


# --- vector-quantize-pytorch ----------------------------------------------------------

VQ = ("vector-quantize-pytorch", "1.32.0")


def _vq(kmeans: bool) -> Callable[[bool], Built]:
    def make(training: bool) -> Built:
        from vector_quantize_pytorch import VectorQuantize

        if kmeans:
            vq = VectorQuantize(dim=16, codebook_size=32, kmeans_init=True, kmeans_iters=2, threshold_ema_dead_code=2)
        else:
            vq = VectorQuantize(dim=16, codebook_size=32)
        return vq, (torch.randn(2, 8, 16),), {}

    return make


def _vq_loss(output: Any) -> torch.Tensor | None:
    quantized, _indices, commit_loss = output
    return quantized.sum() + commit_loss.sum()


# --- zuko ---------------------------------------------------------------------------

ZUKO = ("zuko", "1.6.0")


def _zuko_odeint(training: bool) -> Built:
    from zuko.utils import odeint

    func = VectorField()
    # zuko's odeint takes the field as f(t, x) and its parameters as phi.
    return odeint, (func, torch.randn(3), torch.tensor(0.0), torch.tensor(1.0)), {
        "phi": tuple(func.parameters()),
        "atol": 1e-4,
        "rtol": 1e-3,
    }


# --- monai ----------------------------------------------------------------------------

MONAI = ("monai", "1.6.1")


def _monai_focal(training: bool) -> Built:
    from monai.losses import FocalLoss

    target = torch.randint(0, 2, (2, 3, 8, 8)).float()
    return FocalLoss(weight=[1.0, 2.0, 0.5]), (torch.randn(2, 3, 8, 8), target), {}


def _monai_aucm(training: bool) -> Built:
    from monai.losses import AUCMLoss

    return AUCMLoss(), (torch.rand(8, 1), torch.tensor([[0.0], [1.0], [1.0], [0.0], [0.0], [1.0], [0.0], [0.0]])), {}


def _monai_dice(training: bool) -> Built:
    from monai.losses import DiceLoss

    target = torch.randint(0, 2, (2, 3, 8, 8)).float()
    return DiceLoss(sigmoid=True), (torch.randn(2, 3, 8, 8), target), {}


# --- diffusers ---------------------------------------------------------------------------

DIFFUSERS = ("diffusers", "0.36.0")


def _diffusers_step(kind: str) -> Callable[[bool], Built]:
    def make(training: bool) -> Built:
        import diffusers

        scheduler = getattr(diffusers, kind)(num_train_timesteps=100)
        if kind == "DDPMScheduler":
            timestep = torch.tensor(50)
        else:
            scheduler.set_timesteps(10)
            timestep = scheduler.timesteps[2]
        model_output, sample = torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8)
        return scheduler.step, (model_output, timestep, sample), {"return_dict": False}

    return make


# --- torch_geometric ---------------------------------------------------------------------

PYG = ("torch-geometric", "2.8.1")

_EDGES = [
    [0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 2, 2, 5],
    [1, 0, 2, 1, 4, 4, 3, 6, 5, 8, 7, 0, 2, 1, 6],
]


def _pyg_gcn(training: bool) -> Built:
    from torch_geometric.nn import GCNConv

    return GCNConv(8, 4), (torch.randn(10, 8), torch.tensor(_EDGES)), {}


def _pyg_coalesce(training: bool) -> Built:
    from torch_geometric.utils import coalesce

    return coalesce, (torch.tensor(_EDGES), torch.randn(15, 2)), {}


def _pyg_to_dense_batch(training: bool) -> Built:
    from torch_geometric.utils import to_dense_batch

    return to_dense_batch, (torch.randn(10, 8), torch.tensor([0] * 4 + [1] * 6)), {}


# --- the rows -------------------------------------------------------------------------------


def _rows() -> list[Row]:
    return [
        # kornia
        Row(
            "kornia_draw_point2d", *KORNIA, "kornia.image.draw.draw_point2d",
            ("kornia.image.draw",), _kornia_draw_point2d,
            patterns="raise guard on (x<0)|(x>=w)|... .any() with an f-string of ints; item store image[y, x] = color after it",
            frozen=("0",),
        ),
        Row(
            "kornia_crop_by_boxes", *KORNIA, "kornia.geometry.transform.crop_by_boxes",
            ("kornia.geometry.transform.crop2d",), _kornia_crop_by_boxes,
            patterns="`if not (a.all() and b.all()): raise AssertionError(f'... {bbox[0]} ...')`; int(t.item()) used as output size",
        ),
        Row(
            "kornia_validate_bbox", *KORNIA, "kornia.geometry.bbox.validate_bbox",
            ("kornia.geometry.bbox",), _kornia_validate_bbox,
            patterns="`if not torch.isfinite(b).all(): return False`, `if torch.any(d > 1e-4): return False`, `return not torch.any(...)` (Python bool result)",
        ),
        Row(
            "kornia_camtoworld_check", *KORNIA, "kornia.geometry.conversions.camtoworld_to_worldtocam_Rt(check_rotation=True)",
            ("kornia.geometry.conversions",), _kornia_camtoworld,
            patterns="helper _check_is_rotation: `if not bool((err <= tol).all()): raise ValueError(f'... {float(err.max())} ...')`, `if bool((det <= 0).any()): raise`",
        ),
        # torchmetrics
        Row(
            "tm_tweedie", *TORCHMETRICS, "torchmetrics.functional.tweedie_deviance_score(power=1.5)",
            ("torchmetrics.functional.regression.tweedie_deviance",), _tm_tweedie,
            patterns="raise guard `if torch.any(p <= 0) or torch.any(t < 0): raise ValueError(f'...{power}...')` nested in static elif",
        ),
        Row(
            "tm_pearson", *TORCHMETRICS, "torchmetrics.functional.pearson_corrcoef",
            ("torchmetrics.functional.regression.pearson",), _tm_pearson,
            patterns="`if (a).any() or (b).any() or ~isfinite(..).any() ...: rank_zero_warn(f'...')` (helper warn in a tensor arm, 5-way `or`); `if valid_mask.any():` boolean-mask store",
        ),
        Row(
            "tm_retrieval_ap", *TORCHMETRICS, "torchmetrics.functional.retrieval.retrieval_average_precision",
            ("torchmetrics.utilities.checks", "torchmetrics.functional.retrieval.average_precision"), _tm_retrieval_ap,
            patterns="guard `if not allow and (t.max() > 1 or t.min() < 0): raise`; `if not target.sum(): return tensor(0.0)` early return; arange(...)[target > 0]",
        ),
        Row(
            "tm_binary_accuracy", *TORCHMETRICS, "torchmetrics.functional.classification.binary_accuracy",
            ("torchmetrics.functional.classification.stat_scores", "torchmetrics.utilities.compute"), _tm_binary_accuracy,
            patterns="torch.unique in validation; `if check: raise RuntimeError(f'... {unique_values} ...')`; `if not torch.all((t >= 0) * (t <= 1)): t = t.sigmoid()`",
        ),
        Row(
            "tm_ssim_root_import", *TORCHMETRICS, "torchmetrics.functional.structural_similarity_index_measure (deprecated root import)",
            ("torchmetrics.functional", "torchmetrics.utilities.prints", "torchmetrics.functional.image.ssim"), _tm_ssim_root,
            patterns="wrapper calls _deprecated_root_import_func -> _future_warning = partial(warnings.warn, ...) (helper that only warns); builtin pow(tensor, 2)",
        ),
        Row(
            "tm_r2", *TORCHMETRICS, "torchmetrics.functional.r2_score(multioutput='raw_values')",
            ("torchmetrics.functional.regression.r2",), _tm_r2,
            patterns="boolean-mask stores raw_scores[cond] = ...",
        ),
        # torchdiffeq
        Row(
            "odeint_euler", *TORCHDIFFEQ, "torchdiffeq.odeint(method='euler')",
            ("torchdiffeq",), _odeint("euler"),
            patterns="`assert (t[1:] > t[:-1]).all(), '...'.format(name)`; `assert a.all() or (~a).all()`; `if len(t) > 1 and t[0] > t[1]`; `assert g[0] == t[0] and g[-1] == t[-1]`; nested `if t == t0: return ...` / `if t == t1:`",
        ),
        Row(
            "odeint_rk4", *TORCHDIFFEQ, "torchdiffeq.odeint(method='rk4', step_size=0.25)",
            ("torchdiffeq",), _odeint("rk4", step_size=0.25),
            patterns="as euler, plus `niters = torch.ceil(...).item()` used as a range bound",
        ),
        Row(
            "odeint_dopri5", *TORCHDIFFEQ, "torchdiffeq.odeint(method='dopri5')",
            ("torchdiffeq",), _odeint("dopri5"),
            patterns="`while next_t > self.rk_state.t1:` adaptive loop; `if d0 < 1e-5 or d1 < 1e-5`; `assert t0 + dt > t0, 'underflow in dt {}'.format(dt.item())`; `.tolist()` + bisect; `if accept_step:`",
        ),
        # pyro
        Row(
            "pyro_nanmasked", *PYRO, "pyro.distributions.NanMaskedNormal.log_prob (no NaN)",
            ("pyro.distributions.nanmasked",), _pyro_nanmasked(False),
            patterns="`if ok.all(): return super().log_prob(value)` early return; the rest boolean-mask indexing; torch.distributions sample validation inside super()",
        ),
        Row(
            "pyro_nanmasked_nan", *PYRO, "pyro.distributions.NanMaskedNormal.log_prob (one NaN)",
            ("pyro.distributions.nanmasked",), _pyro_nanmasked(True),
            patterns="as pyro_nanmasked, down the masked path: `if ok.any():` then loc[ok], result[ok] = ...",
        ),
        Row(
            "pyro_von_mises_3d", *PYRO, "pyro.distributions.VonMises3D(validate_args=True).log_prob",
            ("pyro.distributions.von_mises_3d",), _pyro_von_mises_3d,
            patterns="`if not (torch.abs(v.norm(2, -1) - 1) < 1e-6).all(): raise ValueError('...')` inside `if self._validate_args:`",
        ),
        Row(
            "pyro_rejection_gamma", *PYRO, "pyro RejectionStandardGamma.rsample (pyro.distributions.Rejector)",
            ("pyro.distributions.rejector", "pyro.distributions.testing.rejection_gamma"), _pyro_rejection_gamma,
            patterns="`while not done.all():` rejection loop with `if accept.any(): x[accept] = ...; done |= accept`",
        ),
        # linear_operator
        Row(
            "psd_safe_cholesky_pd", *LINEAR_OPERATOR, "linear_operator.utils.cholesky.psd_safe_cholesky (p.d. matrix)",
            ("linear_operator.utils.cholesky",), _psd_safe_cholesky(False),
            patterns="`if settings.trace_mode.on() or not torch.any(info): return L` early return (static `or` tensor)",
        ),
        Row(
            "psd_safe_cholesky_jitter", *LINEAR_OPERATOR, "linear_operator.utils.cholesky.psd_safe_cholesky (rank-deficient: jitter)",
            ("linear_operator.utils.cholesky",), _psd_safe_cholesky(True),
            patterns="as _pd, then `if isnan.any(): raise NanError(f'{isnan.sum().item()} ...')`; loop with in-place add_, warnings.warn(f'{jitter:.1e}'), `if not torch.any(info): return L`",
        ),
        # vector-quantize-pytorch
        Row(
            "vq_eval", *VQ, "vector_quantize_pytorch.VectorQuantize (no k-means init)",
            ("vector_quantize_pytorch.vector_quantize_pytorch",), _vq(False),
            loss=_vq_loss,
            patterns="`if self.initted: return` on a bool buffer, followed by in-place buffer init (copy_)",
        ),
        Row(
            "vq_kmeans_train", *VQ, "vector_quantize_pytorch.VectorQuantize(kmeans_init=True, threshold_ema_dead_code=2)",
            ("vector_quantize_pytorch.vector_quantize_pytorch",), _vq(True),
            loss=_vq_loss,
            patterns="as vq_eval plus loguru logger.warning(f'...'), `if not torch.any(expired_codes): return`, mask.sum().item(), loss.requires_grad_()",
        ),
        # zuko
        Row(
            "zuko_odeint", *ZUKO, "zuko.utils.odeint (adaptive Dormand-Prince)",
            ("zuko.utils",), _zuko_odeint,
            patterns="autograd.Function forward: `while sign * (t1 - t) > 0:` with an inner `while True:` and error = t.item() used as a float",
        ),
        # monai
        Row(
            "monai_focal_weight", *MONAI, "monai.losses.FocalLoss(weight=[...])",
            ("monai.losses.focal_loss",), _monai_focal,
            patterns="`if (cw < 0).any(): raise ValueError('...')` nested under static ifs",
        ),
        Row(
            "monai_aucm", *MONAI, "monai.losses.AUCMLoss",
            ("monai.losses.aucm_loss",), _monai_aucm,
            patterns="`if not torch.all((t == 0) | (t == 1)): raise ValueError`; `float(pos_mask.mean())` as a value; helper `if denom.item() == 0: return zeros`",
            frozen=("1",),
        ),
        Row(
            "monai_dice", *MONAI, "monai.losses.DiceLoss(sigmoid=True)",
            ("monai.losses.dice",), _monai_dice,
            patterns="`reduce_axis = torch.arange(2, len(input.shape)).tolist()`: a tensor built from static ints turned back into a list",
            frozen=("1",),
        ),
        # diffusers
        Row(
            "diffusers_ddpm_step", *DIFFUSERS, "diffusers.DDPMScheduler.step",
            ("diffusers.schedulers.scheduling_ddpm",), _diffusers_step("DDPMScheduler"),
            patterns="`a[prev_t] if prev_t >= 0 else self.one` on a tensor timestep (twice); `if t > 0:` sampling noise with randn_tensor",
        ),
        Row(
            "diffusers_ddim_step", *DIFFUSERS, "diffusers.DDIMScheduler.step",
            ("diffusers.schedulers.scheduling_ddim",), _diffusers_step("DDIMScheduler"),
            patterns="`self.alphas_cumprod[prev] if prev >= 0 else self.final_alpha_cumprod` on a tensor timestep (step and _get_variance)",
        ),
        Row(
            "diffusers_euler_step", *DIFFUSERS, "diffusers.EulerDiscreteScheduler.step",
            ("diffusers.schedulers.scheduling_euler_discrete",), _diffusers_step("EulerDiscreteScheduler"),
            patterns="logger.warning (static flag); (timesteps == t).nonzero() then .item(); `min(...) if s_tmin <= sigma <= s_tmax else 0.0` chained tensor comparison",
        ),
        # torch_geometric
        Row(
            "pyg_gcn", *PYG, "torch_geometric.nn.GCNConv",
            ("torch_geometric.utils.loop", "torch_geometric.nn.conv.gcn_conv"), _pyg_gcn,
            patterns="add_remaining_self_loops: edge_index[:, mask] (boolean mask; data-dependent shape)",
        ),
        Row(
            "pyg_coalesce", *PYG, "torch_geometric.utils.coalesce",
            ("torch_geometric.utils._coalesce", "torch_geometric.utils.num_nodes"), _pyg_coalesce,
            patterns="int(edge_index.max()) + 1 as a size; `if mask.all(): return edge_index, edge_attr` early return; edge_index[:, mask]",
        ),
        Row(
            "pyg_to_dense_batch", *PYG, "torch_geometric.utils.to_dense_batch",
            ("torch_geometric.utils._to_dense_batch",), _pyg_to_dense_batch,
            patterns="`batch_size = int(batch.max()) + 1`, `max_num_nodes = int(num_nodes.max())` used as output shapes",
        ),
    ]


def row_lookup(rows: tuple[Row, ...], corpus: str) -> Callable[[str], Row]:
    """A corpus module's ``get``: its row of that name, or a KeyError listing them."""
    by_name = {row.name: row for row in rows}

    def get(name: str) -> Row:
        try:
            return by_name[name]
        except KeyError:
            raise KeyError(f"no {corpus} row {name!r}; rows: {', '.join(by_name)}") from None

    return get


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "ecosystem")
