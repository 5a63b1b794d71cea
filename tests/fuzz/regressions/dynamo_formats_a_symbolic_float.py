# Found by the fuzzer (compiled arm), a false alarm: on the second row the
# float from .item() has changed, Dynamo recompiles with it as a symbol,
# and torch 2.13 then formats f"{v:.3f}" into a float, so the f-string's
# join raises TypeError.  The original compiled does the same, but the
# runner compiled it fresh for the failing row only, where it traced the
# float as a constant and formatted it.  Fixed in the runner: the compiled
# original is first called on the same earlier rows.
GRAD = False


def f(x, y, acc, ns):
    v0 = torch.sin(y)
    raise ValueError(f"max {v0.max().item():.3f} all {v0.tolist()} n={int(v0.sum())}", repr(v0.min()))
