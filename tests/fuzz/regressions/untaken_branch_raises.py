# Found by the fuzzer (eager arm, then compiled arm): [Where] turned the
# conditional expression into _graphmend.select(c, <then>, <else>), which
# computed both branches whenever the test was a tensor, so the branch not
# taken raised first (AttributeError about 'clone' where the original, taking
# the else branch, raised the one about 'double').  Now eager code keeps the
# Python choice, and under torch.compile a thunk that raises makes it too.
GRAD = True


def f(x, y, acc, ns):
    v1 = None
    v2 = v1.clone() if x.min() > -1 else v1.double()
