# Found by the fuzzer (compiled arm): [Where] turns the conditional
# expression into _graphmend.select(c, lambda: ..., lambda: torch.sin(v0)),
# so v0 becomes a cell variable of f.  Reading v0 before it is bound then
# raises UnboundLocalError eagerly (as the original does) but, under
# torch.compile, NameError("cannot access free variable 'v0' ...") from
# Dynamo's resume function after the .item() graph break, where the cell is
# a free variable.  The original compiled raises UnboundLocalError.
# Fixed: the thunks take the locals they read as default arguments
# (rules.base.thunk), so v0 stays a plain local; a local that may be unbound
# there makes [Where] decline the expression.
GRAD = False


def f(x, y, acc, ns):
    if y.min().item() != 0:
        print("step", v0.sum())
    v0 = y * y
    v3 = torch.where(x > 0, x, x) if float(v0.max()) > -1 else torch.sin(v0)
    return v3
