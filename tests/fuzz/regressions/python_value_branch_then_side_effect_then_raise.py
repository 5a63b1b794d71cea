# The 10,000-program run at da7bfed: `y[:2] if T else 3.0` was rewritten to
# _graphmend.select, whose fallback (a tensor cannot be selected against a
# float) handed the code after it a tensor on one call and a float on the
# next.  Dynamo 2.13 recompiles that resume function with an unspecialised
# float and, when `v0.argmax()` of the float raises, drops the pending
# acc.append(y).  A branch that is a Python value is now left alone.
GRAD = False


def f(x, y, acc, ns):
    v0 = y[:2] if x[-1] > 0 or y[0] > 0 else 3.0
    acc.append(y)
    v1 = v0.argmax() - 5
