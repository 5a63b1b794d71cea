# A 400-program run at dfeb735: arms whose derivatives do not depend on
# values (`x * 2`, `x / 3`) merged by torch.where under autograd, which sends
# the untaken arm a zero gradient; summed into the taken arm's -0.0 it gave
# x.grad +0.0 where eager gives -0.0 (row 3 holds -0.0).  Arms that read
# their values once now merge by torch.cond, which runs only the taken
# arm's backward.
GRAD = True


def f(x, y, acc, ns):
    v0 = x.argmax() - 1
    if float(v0.max()) != 0:
        v2 = x * 2
    else:
        v2 = x / 3
    v3 = v2 * x
    v5 = -x * x
    return v3 * v5
