"""[Trap]: validation guards (``if T: raise E(...)``, ``assert T``) checked
after the graph.

``deferred_check``, ``deferred_assert`` and ``deferred_raise`` return the
truth the ``if`` or ``assert`` tests eagerly.  Under torch.compile a tensor
test is recorded for a replay that raises the same exception, with the same
message, after the deferred messages that preceded it; where waiting could
lose a store or an update, the graph ends and the test is taken in Python.
``unique_tested`` lets tests of ``torch.unique``'s values read the tensor
itself where the answer is the same.
"""

from __future__ import annotations


import torch

from graphmend import compat
from graphmend.runtime.common import _fall_back, _open, _plain, compiling, global_value
from graphmend.runtime.encoding import decode, encode, snapshot


def deferred_check(test, exception: str, module: str, make_args=None, gate=None, untouched=None):
    """The truth test of ``if test: raise <exception>(*make_args())``.

    Returns ``test``'s truth, for the ``if`` to test exactly as before,
    unless ``test`` is a tensor under torch.compile: then the check is made
    after the graph (raising ``<exception>(*make_args())``, or ``raise
    <exception>`` when ``make_args`` is None) and the ``if`` sees False.
    ``exception`` is resolved like :func:`deferred_warn`'s category.
    ``make_args`` is a thunk so that eager code evaluates the message only
    when it raises, as before.  A ``gate`` (an arm of a rewritten ``if``)
    makes the check count only when its arm was taken.  ``untouched``
    (a thunk) gives what an update after the guard writes through
    (``self.n`` of ``self.n += 1``, ``out`` of ``out=out``): the check
    waits only if each is None or a Python number, so that the update
    writes no tensor inside the graph before the check could raise.
    """
    if isinstance(test, torch.Tensor) and compiling() and gate is None \
            and compat.reads_an_unread_argument("make_args"):
        # The ``if`` breaks on the tensor, as the original's did, and the
        # message is built eagerly.  A break inside this call would rebuild
        # the thunk to make the call eagerly, and read the argument anyway.
        return test
    if isinstance(test, torch.Tensor) and compiling() and _may_wait(untouched):
        called = make_args is not None
        _replay_check(gate, snapshot(test), exception, module, called, *encode(_message(make_args)))
        return False
    if gate is not None and not bool(gate):
        return False
    return _truth(test)


def _may_wait(untouched=None) -> bool:
    """Under torch.compile, whether a check may wait for the graph's end.
    Not after a store into an object, list, dict, global or cell that
    existed before the frame (:func:`graphmend.compat.stores_pending`):
    Dynamo applies such stores after the graph's replayed calls, so a
    check that fails there would lose them, where the original raised
    after they were made.  Nor when ``untouched()`` gives a value that is
    not None or a Python number (or cannot be read): an update after the
    guard would write that tensor inside the graph.  Then the graph ends
    here, the call runs eagerly, and the test is taken in Python, as the
    original's was."""
    if compat.stores_pending():
        _fall_back("a store into an object from before the frame waits for the graph's end, and a deferred "
                   "check that fails would lose it: checked in Python")
        return False
    if untouched is not None and not _numbers_or_none(untouched):
        _fall_back("an update after the guard writes through a tensor (`+=` or out=), inside the graph before "
                   "a deferred check could raise: checked in Python")
        return False
    return True


#: What ``+=`` rebinds rather than updates in place: Python numbers, and
#: the symbolic ones Dynamo traces a changing number as.
_NUMBERS = (bool, int, float, complex, torch.SymBool, torch.SymInt, torch.SymFloat)


def _numbers_or_none(values) -> bool:
    """Whether each of ``values()`` is None or a number."""
    try:
        return all(value is None or type(value) in _NUMBERS for value in values())
    except Exception:  # noqa: BLE001 - unreadable at the guard (unset yet): be safe
        return False


def _truth(test):
    """``bool(test)`` for a tensor (what the ``if`` or ``assert`` would
    take), so that a check Dynamo runs eagerly after a break inside it
    hands back no tensor to break on again; anything else as it is."""
    return bool(test) if isinstance(test, torch.Tensor) else test


def deferred_assert(test, module: str, make_args=None, gate=None, untouched=None):
    """The test of ``assert test, message``: ``test`` itself, unless it is a
    tensor under torch.compile; then ``not test`` is checked after the
    graph (raising ``AssertionError(*make_args())``) and the assert passes
    (``untouched``: see :func:`deferred_check`).  A message that reads an
    argument nothing read before is not constant, so the ``assert`` breaks
    on the tensor handed back, as the original did (see
    :func:`deferred_check`)."""
    if isinstance(test, torch.Tensor) and compiling() and gate is None \
            and compat.reads_an_unread_argument("make_args"):
        return test
    if isinstance(test, torch.Tensor) and compiling() and _may_wait(untouched):
        called = make_args is not None
        _replay_assert(gate, snapshot(test), module, called, *encode(_message(make_args)))
        return True
    if gate is not None and not bool(gate):
        return True
    return _truth(test)


def deferred_raise(exception: str, module: str, make_args=None, gate=None, untouched=None) -> None:
    """``raise <exception>(*make_args())`` in an arm of a rewritten ``if``
    that runs unconditionally: raised after the graph when ``gate`` (the
    arm was taken) is true (``untouched``: see :func:`deferred_check`)."""
    called = make_args is not None
    if compiling() and _may_wait(untouched):
        _replay_check(gate, True, exception, module, called, *encode(_message(make_args)))
    elif _open(gate):
        raised = global_value(module, exception)
        raise raised(*make_args()) if called else raised


#: The dtypes ``torch.unique`` takes (on CPU and CUDA alike).
_UNIQUE_DTYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                            torch.float16, torch.bfloat16, torch.float32, torch.float64})


def unique_tested(value, operands=None, method=False, **options):
    """``torch.unique(value, **options)`` (``value.unique(**options)`` with
    ``method``) whose values only tests of their elements under a
    whole-tensor ``any``/``all`` read (a message makes the call again; see
    :mod:`graphmend.rules.unique_reads`).  Under torch.compile ``value``
    itself, where the tests then give the same answer (see
    :func:`_unique_problem`); otherwise the graph breaks here with the
    reason, and the call runs as written, as it does eagerly."""
    if compiling():
        problem = _unique_problem(value, operands)
        if problem is None:
            return value
        _fall_back(problem)
    return value.unique(**options) if method else torch.unique(value, **options)


def _unique_problem(value, operands) -> str | None:
    """Why the tests might answer differently on ``value`` than on its
    unique values, or why ``unique`` might fail where ``value`` does not: a
    tensor subclass (its own ``unique``), a layout, device or dtype
    ``unique`` may refuse, or something to compare with (``operands()``)
    that is not None or a number: a tensor pairs its elements with the
    values by position, and those differ."""
    if not _plain(value):
        return f"unique of a {type(value).__name__} is made as written"
    if value.layout != torch.strided or value.dtype not in _UNIQUE_DTYPES or value.device.type not in ("cpu", "cuda"):
        return f"unique of a {value.dtype} tensor ({value.layout}, {value.device.type}) is made as written"
    if operands is not None and not _numbers_or_none(operands):
        return "a test compares the unique values with a tensor (it would meet other elements than theirs)"
    return None


def _message(make_args) -> tuple:
    """The exception's arguments, built while tracing (even when the check
    will pass).  Where building them fails then (an integer index out of
    range: ``{t[0]}`` of an empty ``t``), the graph breaks here and Dynamo
    runs the whole check eagerly, which tests the original way and builds
    the message only to raise it."""
    if make_args is None:
        return ()
    try:
        return make_args()
    except Exception as error:
        _fall_back(f"the message cannot be built while traced ({type(error).__name__})")
        raise


@compat.register_replay
def _replay_check(gate, test, exception: str, module: str, called: bool, *tokens) -> None:
    if _open(gate) and test:
        raised = global_value(module, exception)
        raise raised(*decode(tokens)) if called else raised


@compat.register_replay
def _replay_assert(gate, test, module: str, called: bool, *tokens) -> None:
    if _open(gate) and not test:
        raise AssertionError(*decode(tokens)) if called else AssertionError
