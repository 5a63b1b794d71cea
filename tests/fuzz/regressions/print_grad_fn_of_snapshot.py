# Found by the fuzzer (compiled arm): a deferred print of a tensor that
# requires grad shows grad_fn=<CloneBackward0> instead of <SumBackward0>,
# because runtime.snapshot() clones tensors under torch.compile and the
# clone is what the replayed print formats.
GRAD = True


def f(x, y, acc, ns):
    print("gm", y.sum())
