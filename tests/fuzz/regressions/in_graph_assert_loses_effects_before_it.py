# Found by the 10,000-program run of 2026-11-24 (seed 2031): Dynamo compiles
# ``assert tensor`` into an assertion inside the graph, which fails before
# the graph's Python effects happen.  The original broke the graph at the
# conditional expression, so ``acc.append`` happened before the assert
# failed; merged, the append was lost.  [Trap] cannot defer this assert
# (the append before it), so behind the rewrite it is checked in Python.
GRAD = False


def f(x, y, acc, ns):
    acc.append(x.sum())
    v0 = torch.tanh(y) if x.sum() < 0 else x / y
    v1 = v0
    assert torch.isfinite(v0).all()
    return torch.relu(x), y / x
