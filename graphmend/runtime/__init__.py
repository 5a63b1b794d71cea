"""What rewritten code calls at run time.  It needs torch alone.

Rewritten code reaches this package as ``_graphmend`` (see
:mod:`graphmend.conventions`) and calls the names re-exported here; code
that ``graphmend fix`` wrote before the package was split keeps running,
since every name it calls is still an attribute of ``graphmend.runtime``.
In eager mode every function does exactly what the original statement
did, at the same point.  Under ``torch.compile`` the functions registered
in Dynamo's ``torch._dynamo.config.reorderable_logging_functions``
(through :mod:`graphmend.compat`) are recorded during tracing and replayed
after the graph, in program order, which is how [Defer] and [Trap] avoid
graph breaks without a home-made global queue.

Decisions that cannot be made statically (is this value a tensor?) are made
here, at run time, as TensorFlow AutoGraph's operators do; Dynamo folds an
``isinstance(x, torch.Tensor)`` test to a constant while tracing.

Gates: code that [Where] runs unconditionally for a tensor test (both arms
of an ``if``) passes ``gate=``, a one-element bool tensor (or a Python
bool) saying whether its arm was taken; a gated call is replayed, and a
gated check raises, only when its gate is true.

One module per construct, as AutoGraph's ``operators/``:

* :mod:`.encoding`: values that travel to a replay, and message reads;
* :mod:`.defer`: ``print``, logging, ``warnings.warn``, effect helpers;
* :mod:`.trap`: deferred checks, asserts and raises, ``torch.unique`` tests;
* :mod:`.one_hot`: one-hot encodings of a width read from data, checked after the graph;
* :mod:`.where`: tensor predicates and the merge of both arms;
* :mod:`.indexing`, :mod:`.stores`, :mod:`.loops`, :mod:`.scalars`:
  scalar indices, masked and buffer stores, ``while_loop``, scalars that
  stay tensors;
* :mod:`.common`: what they share.

Importing this package applies :mod:`graphmend.compat`'s patches and runs
its self-test (once per process), since rewritten code that imports it is
about to run under torch.compile.  It imports nothing of graphmend but
:mod:`graphmend.compat` and :mod:`graphmend.conventions`.
"""

from __future__ import annotations

import sys
import types

from graphmend import compat
from graphmend.runtime import (common, defer, encoding, facts, indexing, loops, one_hot, predicates, scalars, state,
                               stores, trap)
from graphmend.runtime import where as where_operators
from graphmend.runtime.common import compiling
from graphmend.runtime.defer import deferred_call, deferred_log, deferred_print, deferred_warn
from graphmend.runtime.encoding import decode, encode, fstring, lazy_format, message_read, snapshot
from graphmend.runtime.facts import count_facts
from graphmend.runtime.indexing import nonnegative_row, scalar_index
from graphmend.runtime.loops import while_loop
from graphmend.runtime.one_hot import one_hot_encoding
from graphmend.runtime.predicates import allclose, isclose_items, isfinite_item
from graphmend.runtime.scalars import (arange_list, captured_truth, exact_float, exact_int, exact_item, static_read,
                                       truth_item)
from graphmend.runtime.state import (frozen_test, predicated_augment, predicated_call, predicated_update,
                                     predicated_value)
from graphmend.runtime.stores import masked_store, store_buffer
from graphmend.runtime.trap import deferred_assert, deferred_check, deferred_raise, unique_tested
from graphmend.runtime.where import (and_, arm, both_arms, checked_in_python, empty_arm, equal, is_tensor, not_, or_,
                                     select, where)

__all__ = [
    "allclose", "and_", "arange_list", "arm", "both_arms", "captured_truth", "checked_in_python", "compiling",
    "count_facts", "decode", "deferred_assert",
    "deferred_call", "deferred_check", "deferred_log", "deferred_print", "deferred_raise", "deferred_warn",
    "empty_arm", "encode", "equal", "exact_float", "exact_int", "exact_item", "frozen_test", "fstring", "is_tensor",
    "isclose_items", "isfinite_item", "lazy_format", "masked_store", "message_read", "nonnegative_row", "not_",
    "one_hot_encoding", "or_",
    "predicated_augment", "predicated_call", "predicated_update", "predicated_value", "scalar_index",
    "select", "snapshot", "static_read", "store_buffer", "truth_item", "unique_tested", "where", "while_loop",
]

#: The modules whose functions rewritten code runs, directly or through
#: one another.
MODULES = (common, encoding, defer, trap, one_hot, where_operators, indexing, stores, loops, scalars, predicates, state,
           facts)

# --- Calls from eager code ----------------------------------------------------
# Dynamo inlines the functions of these modules into the graph of the
# rewritten code it traces, where ``torch.compiler.is_compiling()`` is True.
# Rewritten code that runs eagerly under torch.compile (the statement at a
# graph break, a frame Dynamo gave up on) calls them as frames of their own
# instead, and Dynamo would compile each of those with ``is_compiling()``
# folded to True: ``is_tensor`` would pick the predicated form in eager
# code.  Every module-level function of the package is skipped as a frame of
# its own (not a list, so a helper added later cannot be forgotten);
# inlining is unaffected.

compat.skip_frames(
    value
    for module in MODULES
    for value in list(vars(module).values())
    if isinstance(value, types.FunctionType) and value.__code__.co_filename == module.__file__
)
compat.install(sys.modules[__name__])
