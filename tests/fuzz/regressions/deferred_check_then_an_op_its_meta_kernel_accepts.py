# The fuzz at 24f5146 (seed 19003, seven programs of about 2,000): [Trap]'s
# twin of deferred_print_then_an_op_its_meta_kernel_accepts.  The guard is
# deferred to after the graph, and the graph holds `_random_same(v0)`, a
# `torch.rand_like` of a Long tensor, whose meta kernel accepts what the CPU
# kernel rejects: Dynamo traces it without complaint, the graph raises
# NotImplementedError when it runs, and the deferred ValueError is never
# raised; eagerly (and under torch.compile, which breaks at the guard) the
# guard raises first.  Open (the same before this commit, at cda6c74), and
# named in [Trap]'s Safety: a failure that fake tensors do not foresee
# cannot be seen while tracing.
GRAD = False


def f(x, y, acc, ns):
    v0 = x.argmax() - 1
    if torch.all(y < 100.0):
        raise ValueError("bad input")
    return _random_same(v0)
