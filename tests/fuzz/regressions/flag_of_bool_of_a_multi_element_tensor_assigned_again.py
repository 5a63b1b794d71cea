# `bool()` of a row of an outer product raises when the row holds more
# than one element; stored in a flag only ever tested, [Where] lowered
# `bool(t)` to `t`, so the raise moved to the flag's read, and a branch
# that assigns the flag again first made it vanish (eagerly too).  Fixed
# by declining a flag whose `bool()` operand may hold several elements.
GRAD = False


def f(x, y, acc, ns):
    flag0 = bool(torch.outer(x, x)[-1] < 1)
    if y.sum() > -1000:
        flag0 = False
    if flag0:
        raise RuntimeError
    return x * 2
