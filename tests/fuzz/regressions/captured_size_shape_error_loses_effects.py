# Found by the fuzzer once its compiled arm ran inside [Capture]'s scope
# (reduced from the unique-values check against a (4,) tensor).  Compiled
# arm, input row 0 (x < 1.5 selects two elements): eagerly the append
# happens, then the (2,) + (4,) add raises "The size of tensor a (2) must
# match ...".  With the selection's size an unbacked symbol, the add is
# in the same graph as the append, the graph raises Dynamo's runtime
# assert ("Runtime assertion failed for expression u0 >= 4") and the
# append, replayed after the graph, never happens.  Same cause as
# captured_size_of_one_broadcasts; plain torch.compile breaks at the mask.
# Fixed: a frame whose graph would assume a captured size (any run-time
# assert but a size's natural bounds) is compiled without capture
# (graphmend.compat.capture.assumed_fact).
GRAD = False


def f(x, y, acc, ns):
    acc.append(y.sum())
    return x[x < 1.5] + y
