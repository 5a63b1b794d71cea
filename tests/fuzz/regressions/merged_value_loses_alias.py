# Found by the fuzzer (compiled arm): [Where] turned the conditional
# expression into a merged value, a new tensor, but the function later
# updates v0 in place; the original's v0 *is* y when the test is false, so
# the update reached y, and the mended code's did not.  Conditional
# expressions skipped the in-place check that if statements had; both now
# decline a function with in-place updates, item stores or augmented
# assignment anywhere.
GRAD = False


def f(x, y, acc, ns):
    v0 = torch.relu(x) if y.sum() < 0 else y
    v0.mul_(x)
    return v0
