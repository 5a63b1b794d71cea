# Found by the fuzzer (compiled arm): with the logger call deferred, Dynamo
# traced `v0 * None` in the same graph and raised TorchRuntimeError while
# tracing, and the message was lost; the original logged, then raised
# TypeError.  Now a frame of rewritten code that fails while Dynamo traces
# it runs eagerly (graphmend.runtime._run_frames_eagerly_once).
GRAD = True


def f(x, y, acc, ns):
    v0 = y / y
    v2 = None
    logger.error("step")
    return v2, v0 * v2
