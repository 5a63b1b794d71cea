# compiled arm: NameError: name '_gm_return_21__then' is not defined.
# A return-complete if (after lowering) whose then-arm always raises: the
# merge read that arm's return variable, which it never assigns (the merge
# must take the other arm's value).
GRAD = False


def f(x, y, acc, ns):
    v0 = x / x
    v1 = y.abs() + 1
    v2 = v0
    v3 = torch.log(x) if bool(x.min() < 1) else v0.sum()
    if not (v1.min() >= 0.5):
        pass
    elif (v1 < 0).any():
        print(v1)
        if y.sum() < 1:
            raise ValueError("bad input")
        raise RuntimeError
    else:
        return v3 * v2, torch.sin(x)
