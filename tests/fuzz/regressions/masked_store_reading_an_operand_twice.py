# The hypothesis fuzz test in a clean clone at d1aa5de: a masked store whose
# value reads x[mask0] twice ran, eagerly and where it falls back, as
# value_of(x[mask0]) with one indexing for both reads, so autograd summed
# the two reads' gradients before scattering them (x.grad 1.9999998 where
# eager gives 2.0).  The store now takes one parameter per read.
GRAD = True


def f(x, y, acc, ns):
    v0 = x
    mask0 = x > 0
    v1 = x.clone()
    v1[mask0] = 1 - x[mask0] / x[mask0]
    return v1 + x, torch.maximum(y, v0)
