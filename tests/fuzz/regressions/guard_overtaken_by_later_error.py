# Found by the fuzzer (compiled arm): [Trap] defers the guard's raise to
# after the graph, so when a later statement of the same graph fails (here a
# shape mismatch, reported by Dynamo while tracing as TorchRuntimeError) the
# user sees that error instead of ValueError("bad input"); the original
# raises ValueError (eagerly and compiled).
# Fixed: a frame of rewritten code that fails while Dynamo traces it runs
# eagerly, where the check raises first (runtime._run_frames_eagerly_once).
GRAD = False


def f(x, y, acc, ns):
    v0 = y[:2]
    if x.sum() > 0:
        raise ValueError("bad input")
    return y + v0
