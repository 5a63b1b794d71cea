# Found by the fuzzer (eager arm): [Defer] rewrites warnings.warn(msg) with
# no category to _graphmend.deferred_warn(msg, module=__name__), but
# runtime.deferred_warn required ``category`` positionally: TypeError
# (fixed during the session; kept as a regression).
GRAD = False


def f(x, y, acc, ns):
    warnings.warn(f"value is {y}")
