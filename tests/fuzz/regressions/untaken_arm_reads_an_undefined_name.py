# The 10,000-program run's mismatch as the reducer left it (it keeps any
# compiled-arm error): an arm that reads a name defined nowhere raises
# NameError only when taken; merged, it ran under torch.compile although
# not taken.  Such an arm is now declined.
GRAD = False


def f(x, y, acc, ns):
    v0 = y - x
    if (v0 < 1).all():
        return None, torch.log(v1)
    return torch.log(y), x
