# Found by the fuzzer (compiled arm): with the print deferred there is no
# graph break before the failing statement, so Dynamo meets the shape error
# while tracing and raises torch._dynamo.exc.TorchRuntimeError (another
# type and message) where the original, breaking at the print, raised the
# plain RuntimeError.  The deferred print is lost as well.
# Fixed: a frame of rewritten code that fails while Dynamo traces it runs
# eagerly: the print, then the plain RuntimeError, as the original eagerly.
GRAD = False


def f(x, y, acc, ns):
    print(x)
    return y + y[:2]
