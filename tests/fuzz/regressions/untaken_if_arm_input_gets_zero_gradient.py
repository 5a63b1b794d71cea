# The if-statement form of untaken_arm_input_gets_zero_gradient.py: `g`
# depends on `y` (through `h`) in the first arm only.
GRAD = True


def f(x, y, acc, ns):
    h = x * 2
    if x.sum() > 0:
        h = h + y
        g = h * 0.5
    else:
        g = h - 1
    return g
