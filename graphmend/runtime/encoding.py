"""Values that travel to a replay.

Dynamo replays a call only when every argument is a tensor or a constant
(a fresh one: a value read from a local arrives wrapped, and is refused).
Shapes, dtypes, devices, enums and containers of these are flattened to
such tokens while tracing (:func:`encode`) and rebuilt when the call is
replayed (:func:`decode`).  Messages that format or read tensors
(:func:`fstring`, :func:`lazy_format`, :func:`message_read`) travel as
templates and snapshots, formatted or read only at the replay.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from graphmend import compat, vocabulary
from graphmend.runtime.common import compiling, global_value


def snapshot(value, keep_grad: bool = False):
    """``value``, or under torch.compile a copy of a tensor ``value``.

    A tensor handed to a replayed call is the graph's final value of that
    tensor: an in-place update later in the graph would show in the
    message.  The copy keeps the value at the call site.  A tensor that
    requires grad is not copied, since its text shows its ``grad_fn``, which
    a copy would change (``CloneBackward0``): with ``keep_grad`` (the rule
    proved nothing updates it in place later) it travels as it is;
    otherwise the graph breaks there, so that the call is made eagerly
    with the tensor itself, as the original was.
    """
    if isinstance(value, torch.Tensor) and compiling():
        if value.requires_grad:
            if not keep_grad:
                compat.graph_break("graphmend: a message shows a tensor that requires grad and is updated in "
                                   "place later (its text would show the update)")
            return value
        return value.clone()
    return value


def _encode(value, tokens: list, keep_grad: bool) -> bool:
    """Append ``value``'s tokens; whether Dynamo can replay them all."""
    if isinstance(value, torch.Tensor):
        tokens.append("t")
        tokens.append(snapshot(value, keep_grad))
    elif isinstance(value, _Read):
        # As an f-string's values: [Trap] defers only a check that no
        # in-place update of a tensor its message shows follows.
        tokens.append("read")
        tokens.append(value.reader)
        return _encode(value.value, tokens, True)
    elif isinstance(value, _Format):
        # As an f-string's values (fstring's keep_grad): [Trap] defers only
        # a check that no in-place update follows.
        tokens.append("format")
        tokens.append(value.template)
        return _encode(value.values, tokens, True)
    elif isinstance(value, torch.Size):
        tokens.append("size")
        tokens.append(len(value))
        for size in value:
            tokens.append(int(size))
    elif isinstance(value, torch.dtype):
        tokens.append("dtype")
        tokens.append(str(value))
    elif isinstance(value, torch.device):
        tokens.append("device")
        tokens.append(str(value))
    elif isinstance(value, enum.Enum):
        tokens.append("enum")
        tokens.append(str(type(value).__module__))
        tokens.append(str(type(value).__qualname__))
        tokens.append(str(value.name))
    elif isinstance(value, (tuple, list)) and type(value) in (tuple, list):
        tokens.append("tuple" if isinstance(value, tuple) else "list")
        tokens.append(len(value))
        replayable = True
        for item in value:
            replayable = _encode(item, tokens, keep_grad) and replayable
        return replayable
    elif type(value) is dict:
        tokens.append("dict")
        tokens.append(len(value))
        replayable = True
        for key, item in value.items():
            replayable = _encode(key, tokens, keep_grad) and replayable
            replayable = _encode(item, tokens, keep_grad) and replayable
        return replayable
    elif type(value) is bool:
        tokens.append("c")
        tokens.append(bool(value))
    elif type(value) is int:
        tokens.append("c")
        tokens.append(int(value))
    elif type(value) is float:
        tokens.append("c")
        tokens.append(float(value))
    elif type(value) is str:
        # "{}".format() of a constant is a fresh constant; of a string
        # formatter (an f-string's fstring()), a formatter over it.
        tokens.append("c")
        tokens.append("{}".format(value))
    else:  # None, or what Dynamo refuses to replay (an object, a class, a function)
        tokens.append("c")
        tokens.append(value)
        return value is None
    return True


def encode(values, keep_grad: bool = False, strict: bool = False, named=frozenset()) -> list | None:
    """``values`` as a flat list of tokens Dynamo can replay; with
    ``strict``, None when one of them is a value it cannot replay (a call
    replaying such tokens graph-breaks, then runs in place).  The values at
    the positions in ``named`` are dotted names of module globals (a class
    such as ``UserWarning``), which :func:`decode` resolves."""
    tokens: list = []
    replayable = True
    for position, value in enumerate(values):
        if position in named:
            tokens.append("global")
            tokens.append("{}".format(value))
        else:
            replayable = _encode(value, tokens, keep_grad) and replayable
    return tokens if replayable or not strict else None


def decode(tokens, module: str | None = None) -> list:
    """The values :func:`encode` flattened (a global name is resolved in
    ``module``'s globals)."""
    values = []
    position = 0

    def one():
        nonlocal position
        kind, position = tokens[position], position + 1
        if kind in ("t", "c"):
            position += 1
            return tokens[position - 1]
        if kind == "size":
            count = tokens[position]
            position += 1 + count
            return torch.Size(tokens[position - count : position])
        if kind == "global":
            position += 1
            return global_value(module, tokens[position - 1])
        if kind == "format":
            position += 1
            return tokens[position - 1].format(*one())
        if kind == "read":
            position += 1
            return _READERS[tokens[position - 1]](one())
        if kind == "dtype":
            position += 1
            return getattr(torch, tokens[position - 1].removeprefix("torch."))
        if kind == "device":
            position += 1
            return torch.device(tokens[position - 1])
        if kind == "enum":
            defined_in, qualname, name = tokens[position : position + 3]
            position += 3
            owner = importlib.import_module(defined_in)
            for part in qualname.split("."):
                owner = getattr(owner, part)
            return owner[name]
        count = tokens[position]
        position += 1
        if kind == "dict":
            return dict((one(), one()) for _ in range(count))
        items = [one() for _ in range(count)]
        return tuple(items) if kind == "tuple" else items

    while position < len(tokens):
        values.append(one())
    return values


def fstring(template: str, *values, keep_grad: bool = True) -> str:
    """An f-string split into ``template`` and the ``values`` it embeds.

    ``template.format(*values)`` formats exactly as the f-string did.  Under
    torch.compile Dynamo keeps the call as a string formatter over the
    snapshots and formats it only when the message is replayed
    (``keep_grad``: see :func:`snapshot`).
    """
    return template.format(*(snapshot(value, keep_grad) for value in values))


class _Format(NamedTuple):
    """``template.format(*values)``, not made yet: a check's message, which
    the original formats only when it raises (a named tuple: Dynamo traces
    making one)."""

    template: str
    values: tuple


#: How a message reads a value into Python (see :func:`message_read`).
_READERS: dict[str, Callable[[Any], Any]] = {
    "float": float, "int": int, "bool": bool, "str": str, "repr": repr,
    "item": lambda value: value.item(), "tolist": lambda value: value.tolist(),
    "unique": lambda value: value.unique(), "torch.unique": torch.unique, "len": len,
}


#: The readers whose result shows a ``grad_fn`` (given the tensor itself).
_SHOWS_GRAD = frozenset({"str", "repr"}) | vocabulary.UNIQUE_READERS


class _Read(NamedTuple):
    """``<reader>(value)`` of a tensor, not made yet (see :func:`message_read`)."""

    reader: str
    value: torch.Tensor | _Read


def message_read(reader: str, value):
    """``float(value)`` in a deferred check's message, or another of
    :data:`_READERS` (``int``, ``bool``, ``str``, ``repr``, ``.item()``,
    ``.tolist()``, ``torch.unique``).  Under torch.compile a tensor's value
    would be read while tracing (a graph break; ``unique``'s data-dependent
    shape too); instead a copy of the tensor at the guard travels to the
    replay and is read there, only if the check fails: the same value
    (``str``, ``repr`` and ``unique`` of a tensor that requires grad take
    the tensor itself, as :func:`snapshot` keeps it, for its ``grad_fn``).
    A tensor the reader refuses (several elements for a one-element
    reader, complex for ``float``/``int``) raises here, while traced, so
    the check runs the original way.

    ``value`` may itself be a read of unique values not made yet
    (``message_read("tolist", message_read("torch.unique", x))``, or
    ``"len"``): the replay makes both.  A one-element reader of these
    raises here (how many values there are, only the data tells)."""
    if isinstance(value, _Read) and compiling():
        if value.reader not in vocabulary.UNIQUE_READERS or reader in vocabulary.ONE_ELEMENT_READERS:
            raise TypeError(f"graphmend: {reader}() of unique values is left to the original check")
        return _Read(reader, value)
    if not (isinstance(value, torch.Tensor) and compiling()):
        return _READERS[reader](value)
    if reader in vocabulary.ONE_ELEMENT_READERS and (value.numel() != 1 or (value.is_complex() and reader in ("float", "int"))):
        raise TypeError(f"graphmend: {reader}() of this tensor is left to the original check")
    return _Read(reader, value if reader in _SHOWS_GRAD else value.detach())


def lazy_format(template: str, *values):
    """``template.format(*values)`` (an f-string split, or a literal's
    ``.format``) in the message of a deferred check.  Eagerly the string;
    under torch.compile the template and snapshots of the values, which
    travel to the check's replay as tokens and are formatted only if it
    raises: formatting a tensor after every graph would read its data (a
    device sync) on every call."""
    if not compiling():
        return template.format(*values)
    return _Format(template, values)  # the check's encode() takes the snapshots
