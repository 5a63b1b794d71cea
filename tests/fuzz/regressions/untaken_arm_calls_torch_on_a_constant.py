# Found by the 10,000-program fuzz run (compiled arm): the first arm binds
# `v1 = 3.0` and returns `torch.log(v1)`, which raises TypeError when that
# arm runs.  Merged with torch.where, both arms run under torch.compile, so
# the call raised although the arm was not taken.  An arm that gives a
# Python constant to a torch function or a tensor method is now declined.
GRAD = False


def f(x, y, acc, ns):
    y[1] = -3.0
    v0 = y - x
    if (v0 < 1).all():
        v1 = 3.0
        return None, torch.log(v1)
    elif x.sum() < 1:
        print(x, x, sep="|", end=";\n")
        v1 = x + y
        print("gm", x.sum())
    return torch.log(y), x
