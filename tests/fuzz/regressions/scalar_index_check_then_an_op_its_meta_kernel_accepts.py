# The fuzz at 86e5e3e (seed 21002, the first 200 programs): [Where]'s
# scalar index defers its out-of-range IndexError to after the graph, and
# the graph then holds `_random_same(v3)`, a `torch.rand_like` of a Long
# tensor, which raises only when the graph runs.  The graph's operations
# are run again eagerly up to the failing one to make the check first, but
# the out-of-range test `(i < 0) | (i >= n)` is `operator.or_`, which was
# taken for an update in place (its trailing underscore), so nothing was
# made and NotImplementedError overtook eager's IndexError.  (Before
# 86e5e3e the known xfail deferred_check_then_an_op_its_meta_kernel_accepts
# matched it and hid it.)
GRAD = False


def f(x, y, acc, ns):
    v3 = x.argmin() - 5
    v4 = torch.outer(y, x)
    v5 = -v4[v3, None]
    return _random_same(v3)
