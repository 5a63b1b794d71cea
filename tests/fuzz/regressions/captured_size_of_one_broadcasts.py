# Found by the fuzzer once its compiled arm ran inside [Capture]'s scope
# (as graphmend.compile does).  Compiled arm, input row 3 (x > 0.2 selects
# one element): eagerly the (1,) selection broadcasts against y; with the
# selection's size an unbacked symbol u0, Dynamo (torch 2.13, _refs'
# _broadcast_shapes) cannot decide u0 == 1, picks the non-broadcast path
# and asserts Eq(u0, 4) at run time, so the captured graph raises
# "Runtime assertion failed for expression u0 >= 4" on an input eager runs.
# Plain torch.compile breaks at the mask index instead and is exact.
# Fixed: a frame whose graph would assume a captured size (any run-time
# assert but a size's natural bounds) is compiled without capture
# (graphmend.compat.capture.assumed_fact).
GRAD = False


def f(x, y, acc, ns):
    return x[x > 0.2] + y
