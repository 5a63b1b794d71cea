# The arm of `if flag0:` reads `v0`, which the function binds only after
# the `if`.  Predicated (the flag is read only for its truth, so it merges),
# the arm ran under torch.compile when not taken and raised
# UnboundLocalError.  Fixed: an arm reading a local that may be unbound
# before the `if` is declined.
GRAD = False


def f(x, y, acc, ns):
    flag0 = bool(y.max() > -1)
    if float(x.min()) > -1:
        flag0 = False
    if flag0:
        v1 = torch.where(v0 > 0, v0, v0) if not torch.any(v0 < 0) else x * 2
    v0 = y.abs() + 1
