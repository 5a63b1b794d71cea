# The 5,000-program run at b226750 (seed 19005, 7 of its programs; there at
# a6f5b07 too): eagerly `_index_same(v0)` raises IndexError on a 0-dim
# tensor. graphmend.compile merged the `if`s, so Dynamo traced further and
# met the error on fake tensors in a rewritten frame (resuming `f` after a
# break), which graphmend then ran eagerly, but with its callees left to
# Dynamo: `_index_same`, a frame of its own that is not rewritten, met the
# error again while traced, and Dynamo raised the user's IndexError with
# its "from user code" stack appended to the message, where the eager
# original (and torch.compile of it, on these inputs) raise it bare.
# Fixed: what a frame run eagerly because its rewritten code fails calls
# runs eagerly too, this once.
GRAD = False


def f(x, y, acc, ns):
    v0 = x.argmax() - 1
    v1 = x[v0] * x if 0 <= v0 else x
    if y.min() < 0:
        v2 = torch.exp(v1)
    else:
        v2 = torch.sin(v1)
    v3 = v2 * v1
    mask0 = y > 0
    y[mask0] = (y[mask0] * x[mask0]).sqrt()
    return _index_same(v0)
