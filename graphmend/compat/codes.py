"""Code objects compared by what they do.

:func:`fingerprint` is what must match for two code objects to behave
alike, lines aside (the mender compares a recompiled original with the
loaded code by it); :func:`code_key` is a digest of it and of the code's
place (file, first line, qualified name) that reads the same in every
process, for what graphmend keeps about a code object across processes
(:mod:`graphmend.mending.records`).  A constant whose ``repr`` names an
address gives a key no other process makes: what was kept for it is not
found, which costs only the work it would have saved.
"""

from __future__ import annotations

import hashlib
import types
from typing import Any


def _const_key(const: Any) -> Any:
    # repr tells 0.0 from -0.0; a frozenset is sorted, its order depending on string hashing.
    if isinstance(const, types.CodeType):
        return fingerprint(const)
    if isinstance(const, tuple):
        return tuple, tuple(_const_key(c) for c in const)
    if isinstance(const, frozenset):
        return frozenset, tuple(sorted(repr(_const_key(c)) for c in const))
    return type(const), repr(const)


def fingerprint(code: types.CodeType) -> tuple:
    """What must match for two code objects to behave alike (lines aside)."""
    consts = tuple(_const_key(c) for c in code.co_consts)
    return (
        code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
        code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags, consts,
    )  # fmt: skip


def code_key(code: types.CodeType) -> str:
    """A name for ``code`` that every process gives the same code at the
    same place: its file, first line and qualified name, and its
    :func:`fingerprint`."""
    place = (code.co_filename, code.co_firstlineno, getattr(code, "co_qualname", code.co_name))
    return hashlib.sha256(repr((place, fingerprint(code))).encode()).hexdigest()
