# Found at e657261 by `python -m fuzz --seed 29051` (present before and after
# the first-call trace changes of 2026-12-05), not yet understood: the
# compiled arm raises TypeError("sequence item 1: expected str instance,
# float found") where eager and torch.compile raise the guard's ValueError.
# The guard is left alone by [Trap]; its f-string formats a value read back
# (`y.max().item():.3f`) in a frame traced with [Capture].  Each of the while
# loop, the `bool(v1[0] > -1)` arm and the one_hot arm is needed for it.
GRAD = False


def f(x, y, acc, ns):
    v0 = x * 2
    v1 = v0 * x
    v2 = x.abs() + 1
    while v2.sum() < 50:
        v2 = v2 * 2 + v2[v2 > 2].sum() * 0.5
    if v1.mean().item() < 0:
        return v1
    else:
        if not (v0.min() > -1):
            raise ValueError(f"max {y.max().item():.3f} all {y.tolist()} n={int(y.sum())}", repr(y.min()))
        if bool(v1[0] > -1):
            v3 = raises_other(y)
            print(y.shape)
        elif -1 < v1.sum() < 2.5:
            v3 = pow(x, 2) if -1 < v1[-1] < 1 else raises_other(v1)
        else:
            if x[0] != 0:
                c1 = (x.abs() * 2).long().clamp(max=6)
                h2 = torch.nn.functional.one_hot(c1, c1.max() + 1)
                v3 = y + h2.sum(-1).float()
                assert (v3 > -50).all(), "bad"
            return v2 - x
    return v1[:2]

