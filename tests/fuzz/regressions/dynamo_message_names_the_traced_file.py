# Found by the fuzzer (compiled arm), a harness false positive: indexing a
# 0-d tensor raises IndexError while Dynamo traces it, and Dynamo appends
# "from user code: File ..., line ..." to the message, naming the module it
# traced.  torch.compile of the original raises the same error naming the
# original module; the runner now compares such errors without that suffix.
GRAD = False


def f(x, y, acc, ns):
    v0 = x.abs()
    v0 = v0.sum()
    v1 = y.sum() * y if not (v0[-1] > 0) else v0 - v0
