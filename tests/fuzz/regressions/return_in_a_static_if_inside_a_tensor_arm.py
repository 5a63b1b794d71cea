# The 10,000-program run at ffca372 (the gated masked stores let the ifs
# around it merge; the bug itself was older): in a tensor arm's copy, the
# `return y` of a static `if hasattr(...)` became an assignment, and the
# code after the static if still ran, raising a deferred ValueError where
# the original returned y (and overwriting the returned value).  Such an
# arm is left alone now.
GRAD = False


def f(x, y, acc, ns):
    if y[-1] >= 0.5:
        if hasattr(ns, 'v'):
            v1 = torch.exp(y)
        else:
            return y
        if x.sum() > -1:
            raise ValueError("bad")
        v1 = y * 2
    return x * 2, x
