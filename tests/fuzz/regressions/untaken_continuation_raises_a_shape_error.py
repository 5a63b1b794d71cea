# An early return lowered: the code after it became the else arm, and
# predicated, both arms ran under torch.compile.  The conditional expression
# inside the continuation fell back (its branches differ in shape), Dynamo
# broke the graph there, and the rest of the predicated form then ran
# eagerly: `v2 + v1` raised a shape error although the then arm returns.
# Fixed: each arm is a thunk run by _graphmend.both_arms; a break or an
# error inside an arm makes the whole call run eagerly, which gives None,
# and the original `if` runs.
GRAD = False


def f(x, y, acc, ns):
    if torch.any(y > -1) or torch.any(y > 1):
        return y / x
    v0 = y * x
    v1 = y * x if y.sum() < 0 else y[:2]
    v2 = v0 + v0
    return torch.where(y > 0, y, v0), v2 + v1
