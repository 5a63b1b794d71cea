# The 10,000-program run at ffca372 (already so at 4a9ce4c): a deferred
# check's message showed v0, which requires grad and so travels as it is
# (its text shows its grad_fn); `v0 += v0` after the guard (a tensor the
# function made: no hazard for the raise) then showed in the message
# (2.0 where eager shows 1.0, AddBackward0 for MulBackward0).  A guard whose
# message shows a tensor updated in place after it is left alone.
GRAD = True


def f(x, y, acc, ns):
    v0 = y * 1
    if y.min().item() > -1:
        if v0.mean() < 1 or v0[3] > 0:
            raise RuntimeError(f"bad {v0}")
    v0 += v0
    return v0 / y
