# Found by the fuzzer (10,000-program run, eager arm): `torch.any(x < 1) or
# torch.any(v0 > 1)` with `v0` a Python float.  The lowered test evaluated
# the right operand even when the left one decided, and `torch.any` of a
# Python bool raises TypeError where the original went on (to an
# AttributeError later).  The right operand is now a thunk: Python's
# short-circuit decides eagerly, and when it raises while traced.
GRAD = False


def f(x, y, acc, ns):
    v0 = 3.0
    v2 = v0 if torch.any(x < 1) or torch.any(v0 > 1) else torch.maximum(v0, v0)
    return v2.sum(), v0 * v0
