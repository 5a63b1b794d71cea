# The 10,000-program run at 0992e8a: `while v1.sum() < 50:` became
# torch.while_loop, after `ns.v = x`; Dynamo (2.13, 2.14) then dropped the
# later `ns.v = y` (it puts back a copy of the side effects recorded before
# the loop), so ns.v was x.  torch.cond does the same.  No higher-order op
# is traced now once the frame has stored into an attribute.
GRAD = False


def f(x, y, acc, ns):
    ns.v = x
    v1 = y.abs() + 1
    while v1.sum() < 50:
        v1 = v1 * 2 + 1
    ns.v = y
    return y - v1
