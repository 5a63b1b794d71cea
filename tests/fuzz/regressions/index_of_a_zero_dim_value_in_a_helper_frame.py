# Found by the fuzzer (seed 31751, at 17d138f; also at 85d47f2) once its
# grammar had per-group loops over torch.unique.  Compiled arm, input row 1:
# after the loop `v1` is a 0-dim value and `_index_same(v1)` indexes it, an
# IndexError eager raises too.  graphmend.compile reached `_index_same` as a
# frame of its own, not rewritten, whose trace met the error on a fake
# tensor: Dynamo raised it with its stack appended to the message ("from
# user code: ..."), where eager and torch.compile (which never traces that
# frame) raise it as it is.  Fixed: inside graphmend's call, a frame whose
# trace meets the user's error runs eagerly (graphmend.compat.patches), and
# the fuzz's compiled arm runs inside a GraphmendCall as graphmend.compile's
# callable does.
GRAD = False
INFERENCE = False


def f(x, y, acc, ns):
    if x.mean() < 0:
        mask0 = y > 0
        x[mask0] = 1 - y[mask0] / x[mask0]
        g0 = x.round()
        v1 = x * 1
        for v1 in torch.unique(g0):
            i2 = torch.where(g0 == v1)[0]
            v1 = v1 + x[i2[kept(x[i2])]].sum()
        v2 = _index_same(v1) if not (v1.max() < 1) else v0 * v1
    elif float(y[0]) >= 0.5:
        raise RuntimeError
    else:
        ns.count += x.sum()
        v0 = x * float(torch.tensor(0.37).log2().round())
        mask1 = y == y[2]
        s4 = 0.0
        for e3 in mask1.tolist():
            s4 = s4 + e3
        v1 = x * s4
    if torch.min(y) < -1.0 or torch.max(y) > 1.0:
        raise ValueError("outside the domain")
    v0 = torch.sum(y[..., None] >= torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0001]), dim=-1) - 1
    v1 = x.gather(0, v0) * 2
    if torch.min(y) < -1.0 or torch.max(y) > 1.0:
        raise ValueError("outside the domain")
    v2 = torch.sum(y[..., None] >= torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0001]), dim=-1) - 1
    v3 = y[v2] * 2
    return torch.unique(y.round()), v0.amax(dim=torch.arange(v0.dim()).tolist(), keepdim=True) * v0

