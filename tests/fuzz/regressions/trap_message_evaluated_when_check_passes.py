# Found by the fuzzer (compiled arm, input row 3, where the guard is false):
# [Trap] lowers the guard to _graphmend.deferred_check(test, ..., make_args)
# and, under torch.compile, runtime.deferred_check calls make_args() while
# tracing even when the check will pass, so a message that cannot be
# evaluated (here an unbound name) raises NameError although the original
# never raises.  The original evaluates the message only when it raises.
GRAD = False


def f(x, y, acc, ns):
    v1 = y
    if (v1 != 0).all():
        raise RuntimeError(f"bad {v0}")
    return v1
