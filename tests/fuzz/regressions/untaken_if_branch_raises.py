# The statement form of untaken_branch_raises.py.  Under torch.compile the
# predicated form evaluates both branches; `v1.clone()` raises while Dynamo
# traces, Dynamo gives up on the frame and runs it eagerly, and there the
# frame's call of _graphmend.is_tensor became a frame Dynamo compiled on its
# own, with torch.compiler.is_compiling() folded to True: eager code took
# the predicated form and raised the then-branch's error for an input that
# takes the else branch.  Fixed: the runtime's functions are never compiled
# as frames of their own (runtime._skip_frames_of_eager_calls).
GRAD = False


def f(x, y, acc, ns):
    v1 = None
    v2 = x
    if x.min() > -1:
        v2 = v1.clone()
    else:
        v2 = v1.double()
    return v2
