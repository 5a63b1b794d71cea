# The fuzz at c6a1066 (seed 31150, one program of about 2,000): under
# autograd, [Where]'s `scalar_index` is an autograd.Function, which Dynamo
# puts in the graph as the higher-order operator `autograd_function_apply`.
# The graph then fails at `_random_same(v0)` (a `torch.rand_like` of a Long
# tensor, which only the kernel rejects), and its operations were not run
# again to make the deferred check first: a higher-order operator was
# refused whole, so NotImplementedError overtook eager's ValueError. An
# autograd.Function's forward graph is now checked node by node, as the
# graph's own nodes are.
GRAD = True


def f(x, y, acc, ns):
    v0 = y.argmin() - 5
    v1 = torch.outer(y, x)
    v2 = v1[1:, v0]
    v3 = (v2 > 0.5) * 1.0
    if v3.shape[0] > 2:
        if torch.any(v3 < 1) or torch.any(v0 > 1):
            raise ValueError(f"sum {v1.sum()}")
    return _random_same(v0), y - 1.5
