# The 5,600-program run at 2b51e4e (seed 7001): `_random_same(v4)` of an
# integer tensor is `torch.rand_like` of a Long tensor, whose meta kernel
# accepts what the CPU kernel rejects.  Dynamo traces it without complaint,
# so the deferred print sits after a graph that raises NotImplementedError
# when it runs, and is never replayed; eagerly the print comes first.  Open,
# and named in [Defer]'s Safety ("a kernel missing for a dtype"): a failure
# that fake tensors do not foresee cannot be seen while tracing.
GRAD = False


def f(x, y, acc, ns):
    v4 = (x > 0).long()
    print(y.dtype)
    return _random_same(v4)
