# `-1 < y < 1` over a four-element `y`, in an arm not taken: Python calls
# bool() between the two comparisons and raises when the arm runs; split
# into `and_(-1 < y, lambda: y < 1)`, the predicated arm ran it under
# torch.compile when not taken and raised.  Fixed by the arm thunks
# (_graphmend.both_arms): the failing arm makes the original `if` run.
GRAD = True


def f(x, y, acc, ns):
    flag0 = -1 < y.max() <= 2.5
    if not flag0:
        v0 = y if -1 < y < 1 else y
