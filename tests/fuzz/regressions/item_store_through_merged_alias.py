# The statement form of merged_value_loses_alias.py, through an item store
# on an alias of the merged name: [Where] checked in-place methods and
# augmented assignment on merged names, not `v1[0] = ...` on an alias.
GRAD = False


def f(x, y, acc, ns):
    v0 = x
    if y.sum() > 0:
        v0 = y
    v1 = v0
    v1[0] = 2.5
    return v1
