"""A griffe extension for the API reference: graphmend's docstrings use
reST's inline roles (``:class:`Report```, ``:func:`graphmend.diagnose```),
which Markdown shows as written; they become code spans."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj):`~?\.?([^`]+)`")


class InlineRoles(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(r"`\1`", obj.docstring.value)
