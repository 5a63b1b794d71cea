# Found by the CI fuzz test once the grammar called helpers (its
# derandomized programs changed); it owes nothing to helpers and fails
# the same at 22c896a.  Compiled arm, second row, inputs requiring grad:
# Dynamo (torch 2.13) formats f"{v:.3f}" of a symbolic float into a float,
# so the f-string's join raises TypeError (see
# dynamo_formats_a_symbolic_float), and the runner's check that the
# compiled original does the same does not catch it here.
GRAD = True


def f(x, y, acc, ns):
    flag0 = not torch.any(x != 0)
    raise ValueError(f"max {y.max().item():.3f} all {y.tolist()} n={int(y.sum())}", repr(y.min()))
