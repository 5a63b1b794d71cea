# fuzz-s29 at 74106fb (reduced): `x` is read by the then arm only, and the
# else arm reaches it through `v0 = x.abs()`.  torch.cond gave `x` a zero
# gradient of its own when the else arm ran, summed with the one through
# `v0`: -0.0 + 0.0 made x.grad +0.0 where eager gives -0.0 (row 3).  A value
# only one arm reads now counts for torch.cond even when the other arm
# reaches it.
GRAD = True


def f(x, y, acc, ns):
    v0 = x.abs()
    if x.sum() > 100:
        v2 = torch.sin(x) * v0
    else:
        v2 = v0 * 1.5
    return v2 * -4
