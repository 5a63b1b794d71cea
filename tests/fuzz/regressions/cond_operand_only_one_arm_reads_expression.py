# fuzz-s29 at 74106fb, as drawn (shortened): the conditional-expression form
# of cond_operand_only_one_arm_reads.py; `x` only the untaken arm reads got a
# zero gradient from torch.cond on top of the one through `v0`.
GRAD = True


def f(x, y, acc, ns):
    v0 = x.abs()
    v1 = x.argmax() - 5
    v2 = x[v1] * v0 if v1 > 0 else v0
    v3 = v0.argmax() - 5
    return v2 * v3
