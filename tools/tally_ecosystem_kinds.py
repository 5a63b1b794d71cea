"""Map every break site left after mending (ecosystem-results.json) to the rewrite it needs, and count.

The kinds are explained in ../notes/ecosystem-report.md; N and L kinds are not fixable under the SPEC."""

import json, collections
import sys
d = json.load(open(sys.argv[1] if len(sys.argv) > 1 else '/work/notes/ecosystem-results.json'))
K = {
 "torchmetrics/functional/regression/tweedie_deviance.py:67": "T1 trap keeps Python or/and/not/bool() in the deferred condition",
 "torchmetrics/utilities/checks.py:147": "T1 trap keeps Python or/and/not/bool() in the deferred condition",
 "kornia/geometry/conversions.py:2955": "T1 trap keeps Python or/and/not/bool() in the deferred condition",
 "monai/losses/aucm_loss.py:119": "T1 trap keeps Python or/and/not/bool() in the deferred condition",
 "kornia/geometry/bbox.py:84": "W0 where merged Python-bool returns (rewritten, still breaks)",
 "kornia/geometry/bbox.py:67": "N  Python-bool result of a tensor test (return False): not fixable",
 "kornia/geometry/transform/crop2d.py:308": "T2 trap message formats tensors / calls float(t.max())",
 "kornia/geometry/conversions.py:2950": "T2 trap message formats tensors / calls float(t.max())",
 "torchmetrics/functional/classification/stat_scores.py:76": "T2 trap message formats tensors / calls float(t.max())",
 "kornia/image/draw.py:119": "N  guard followed by an in-place store into an input: not fixable (SPEC 3.3)",
 "linear_operator/utils/cholesky.py:26": "T3 trap declined for a mutation of a fresh local clone",
 "torchdiffeq/_impl/rk_common.py:233": "N  data-dependent shape (unique) + state stored before guard",
 "torchdiffeq/_impl/misc.py:107": "A  assert on a tensor",
 "torchdiffeq/_impl/misc.py:383": "A  assert on a tensor",
 "torchdiffeq/_impl/solvers.py:104": "A  assert on a tensor",
 "torchdiffeq/_impl/rk_common.py:284": "A  assert on a tensor",
 "torchdiffeq/_impl/rk_common.py:285": "A  assert on a tensor",
 "torchdiffeq/_impl/interp.py:38": "A  assert on a tensor",
 "torchdiffeq/_impl/rk_common.py:244": "L  while on a tensor (impure body): not fixable by while_loop",
 "zuko/utils.py:535": "L  while on a tensor (impure body): not fixable by while_loop",
 "pyro/distributions/rejector.py:67": "L  while on a tensor (impure body): not fixable by while_loop",
 "torchmetrics/functional/regression/pearson.py:123": "E  effect-only tensor arm (helper warn) + 5-way or",
 "torchmetrics/functional/regression/pearson.py:141": "N  masked store under tensor if (DS)",
 "torchdiffeq/_impl/misc.py:270": "N  tensor test sets a Python flag that drives control flow",
 "torchdiffeq/_impl/rk_common.py:267": "W2 where declined: function-wide in-place/augmented-assignment check",
 "torchdiffeq/_impl/rk_common.py:325": "W2 where declined: function-wide in-place/augmented-assignment check",
 "torchdiffeq/_impl/rk_common.py:327": "W2 where declined: function-wide in-place/augmented-assignment check",
 "torchdiffeq/_impl/rk_common.py:336": "N  large tensor if with callbacks/state updates (torch.cond at best)",
 "pyro/distributions/nanmasked.py:26": "N  early return whose else arm is DS",
 "pyro/distributions/nanmasked.py:34": "N  masked store under tensor if (DS)",
 "vector_quantize_pytorch/vector_quantize_pytorch.py:454": "N  early return on a bool buffer before in-place init (torch.cond with mutation)",
 "vector_quantize_pytorch/vector_quantize_pytorch.py:593": "N  early return before .item()/nonzero/masked stores",
 "linear_operator/utils/cholesky.py:22": "N  early return before a jitter loop with in-place add_/warn/raise",
 "linear_operator/utils/cholesky.py:46": "N  early return before a jitter loop with in-place add_/warn/raise",
 "torch_geometric/utils/_coalesce.py:166": "N  early return whose else arm is DS",
 "diffusers/schedulers/scheduling_ddpm.py:512": "N  tensor if whose arm draws random numbers",
 "diffusers/schedulers/scheduling_euler_discrete.py:748": "W4 ternary with chained tensor comparison, Python-float arms",
 "diffusers/schedulers/scheduling_ddpm.py:473": "W3 ternary indexing with a tensor index ('indexing may raise')",
 "diffusers/schedulers/scheduling_ddpm.py:354": "W3 ternary indexing with a tensor index ('indexing may raise')",
 "diffusers/schedulers/scheduling_ddim.py:442": "W3 ternary indexing with a tensor index ('indexing may raise')",
 "diffusers/schedulers/scheduling_ddim.py:275": "W3 ternary indexing with a tensor index ('indexing may raise')",
 "torchmetrics/utilities/compute.py:233": "W1 `not torch.all(x)` predicate not lowered to ~",
 "torchmetrics/functional/retrieval/average_precision.py:58": "N  `not t.sum()` early return whose rest is DS",
 "torchdiffeq/_impl/solvers.py:176": "W5 early-return chain of tensor ifs: declined though diagnose says fixable",
 "torchdiffeq/_impl/solvers.py:178": "W5 early-return chain of tensor ifs: declined though diagnose says fixable",
 "torchdiffeq/_impl/misc.py:88": "W5 early-return chain of tensor ifs: declined though diagnose says fixable",
 "torchdiffeq/_impl/misc.py:90": "W5 early-return chain of tensor ifs: declined though diagnose says fixable",
 "torchdiffeq/_impl/misc.py:60": "W6 or/and of 0-d tensors not proven bool scalars",
 "torchdiffeq/_impl/misc.py:71": "W6 or/and of 0-d tensors not proven bool scalars",
 "torchdiffeq/_impl/rk_common.py:70": "N  tensor if binds a Python enum (diagnose wrongly says fixable)",
 "kornia/geometry/transform/crop2d.py:313": "N  .item() used as a size",
 "kornia/geometry/transform/crop2d.py:314": "N  .item() used as a size",
 "torchdiffeq/_impl/solvers.py:91": "N  .item() used as a size",
 "torchdiffeq/_impl/rk_common.py:238": "N  .tolist() fed to bisect (Python index)",
 "torchdiffeq/_impl/rk_common.py:239": "N  .tolist() fed to bisect (Python index)",
 "torch_geometric/utils/_to_dense_batch.py:106": "N  .item() used as a size",
 "torch_geometric/utils/_to_dense_batch.py:113": "N  .item() used as a size",
 "torch_geometric/utils/num_nodes.py:32": "N  .item() used as a size",
 "vector_quantize_pytorch/vector_quantize_pytorch.py:565": "N  .item() used as a size",
 "diffusers/schedulers/scheduling_euler_discrete.py:661": "S1 .item() used as an index (could stay a 0-d tensor)",
 "monai/losses/dice.py:200": "S2 .tolist() of a tensor built only from static ints",
 "torchmetrics/functional/classification/stat_scores.py:71": "N  data-dependent shape",
 "torchmetrics/functional/regression/pearson.py:143": "N  data-dependent shape",
 "torchmetrics/functional/retrieval/average_precision.py:61": "N  data-dependent shape",
 "torchmetrics/functional/regression/r2.py:89": "N  data-dependent shape",
 "torchmetrics/functional/regression/r2.py:90": "N  data-dependent shape",
 "pyro/distributions/nanmasked.py:35": "N  data-dependent shape",
 "pyro/distributions/nanmasked.py:36": "N  data-dependent shape",
 "torch_geometric/utils/loop.py:650": "N  data-dependent shape",
 "torch_geometric/utils/_coalesce.py:174": "N  data-dependent shape",
 "diffusers/schedulers/scheduling_euler_discrete.py:653": "N  data-dependent shape",
 "torchmetrics/utilities/prints.py:70": "D1 helper that only warns: partial(warnings.warn, ...)",
 "torchmetrics/functional/image/ssim.py:120": "B  builtin pow(tensor, int)",
 "torchmetrics/functional/image/ssim.py:121": "B  builtin pow(tensor, int)",
 "loguru/_logger.py:1961": "D2 loguru logger call (not logging.Logger)",
 "vector_quantize_pytorch/vector_quantize_pytorch.py:1315": "N  Tensor.requires_grad_() on a buffer (training)",
 "torchdiffeq/_impl/odeint.py:80": "N  Dynamo step_unsupported after breaks inside the solver",
}
for mode in ("inference", "training"):
    kinds = collections.Counter(); sites = collections.defaultdict(set); rows = collections.defaultdict(set)
    for r in d['results']:
        if r['mode'] != mode: continue
        for b in r['after']['breaks']:
            k = K.get(b['location'], "?? " + b['location'])
            kinds[k] += b['count']; sites[k].add(b['location']); rows[k].add(r['row'])
    print(f"== {mode}")
    for k, v in sorted(kinds.items(), key=lambda kv: (kv[0].startswith("N"), -kv[1])):
        print(f"{v:4} events {len(sites[k]):3} sites {len(rows[k]):3} rows  {k}")

for mode in ("inference", "training"):
    fix = nfix = 0; fsites = set()
    for r in d['results']:
        if r['mode'] != mode: continue
        for b in r['after']['breaks']:
            k = K.get(b['location'], "??")
            if k.startswith("N") or k.startswith("L") or k.startswith("??"):
                nfix += b['count']
            else:
                fix += b['count']; fsites.add(b['location'])
    print(f"{mode}: fixable-in-principle {fix} events at {len(fsites)} sites; not fixable {nfix} events")
