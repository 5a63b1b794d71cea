# Found by `python -m fuzz --seed 29051`: the compiled arm raised
# TypeError("sequence item 1: expected str instance, float found") where
# eager raises the guard's ValueError.  Dynamo's own bug, reached because
# graphmend compiles the frames after the while loop (torch.compile runs
# them eagerly): the float read back by `y.max().item()` is a resumed
# frame's input, made dynamic on its second value, and torch 2.13 rebuilt
# its `:.3f` at the `y.tolist()` break as the float itself.  Fixed by
# compat's _format_dynamic_numbers_as_python_does.
GRAD = False


def f(x, y, acc, ns):
    v0 = x * 2
    v1 = v0 * x
    v2 = x.abs() + 1
    while v2.sum() < 50:
        v2 = v2 * 2 + v2[v2 > 2].sum() * 0.5
    if v1.mean().item() < 0:
        return v1
    else:
        if not (v0.min() > -1):
            raise ValueError(f"max {y.max().item():.3f} all {y.tolist()} n={int(y.sum())}", repr(y.min()))
        if bool(v1[0] > -1):
            v3 = raises_other(y)
            print(y.shape)
        elif -1 < v1.sum() < 2.5:
            v3 = pow(x, 2) if -1 < v1[-1] < 1 else raises_other(v1)
        else:
            if x[0] != 0:
                c1 = (x.abs() * 2).long().clamp(max=6)
                h2 = torch.nn.functional.one_hot(c1, c1.max() + 1)
                v3 = y + h2.sum(-1).float()
                assert (v3 > -50).all(), "bad"
            return v2 - x
    return v1[:2]

