"""The package's layers: which part of graphmend may import which.

Every module lies in exactly one layer of :data:`LAYERS` (a package's
modules in the package's layer) and imports only its own layer's modules
and those of the layers its entry names; ``tests/test_layers.py`` reads
every import in the source and holds the package to it, and fails for a
module that lies in no layer.  The cache keys a rewrite on the code of
the layers the pipeline may import (:func:`imported_by`,
:mod:`graphmend.mending.cache`), so no module the rules come to read is
left out of the key.

* ``graphmend.analysis`` reads code: it imports no rule, no engine, no mend.
* ``graphmend.rules`` rewrite: they read the analysis, and import no mend
  (``graphmend.mending``), no public API and no diagnosis.
* ``graphmend.runtime`` is what rewritten code imports: nothing of graphmend
  but ``conventions``, ``compat``, the vocabulary of calls and ``modules``
  (walking a model without hashing its modules): it needs torch alone.
* ``graphmend.compat`` imports nothing of graphmend but ``conventions``,
  the vocabulary and ``storage`` (where its self-tests' verdicts are kept).

It imports nothing.
"""

from __future__ import annotations

#: The words every layer shares; they import nothing of graphmend.
_WORDS = ("graphmend.conventions", "graphmend.vocabulary", "graphmend.errors", "graphmend.modules")

#: layer -> the layers it may import besides its own.  ``graphmend`` is the
#: package's own ``__init__`` (its public names, imported by name on first
#: use) and holds no other module.
LAYERS: dict[str, tuple[str, ...]] = {
    "graphmend.conventions": (),
    "graphmend.vocabulary": (),
    "graphmend.errors": (),
    "graphmend.modules": (),
    "graphmend.layers": (),
    "graphmend.compare": (),
    "graphmend.storage": ("graphmend.layers",),
    "graphmend.compat": ("graphmend.conventions", "graphmend.vocabulary", "graphmend.storage"),
    "graphmend.runtime": ("graphmend.conventions", "graphmend.vocabulary", "graphmend.modules", "graphmend.compat"),
    "graphmend.analysis": _WORDS,
    "graphmend.rules": (*_WORDS, "graphmend.analysis"),
    "graphmend.pipeline": (*_WORDS, "graphmend.analysis", "graphmend.rules", "graphmend.compat", "graphmend.runtime"),
    "graphmend.fix": (*_WORDS, "graphmend.analysis", "graphmend.pipeline"),
    "graphmend.mending": (*_WORDS, "graphmend", "graphmend.layers", "graphmend.storage", "graphmend.analysis",
                          "graphmend.rules", "graphmend.compat", "graphmend.pipeline"),
    "graphmend.diagnosis": (*_WORDS, "graphmend.analysis", "graphmend.rules", "graphmend.compat", "graphmend.pipeline"),
    "graphmend.testing": ("graphmend.diagnosis", "graphmend.api"),
    "graphmend.pytest_plugin": ("graphmend.testing",),
    "graphmend.api": (*_WORDS, "graphmend.compare", "graphmend.compat", "graphmend.mending", "graphmend.diagnosis"),
    "graphmend.cli": (*_WORDS, "graphmend.compat", "graphmend.pipeline", "graphmend.fix", "graphmend.mending",
                      "graphmend.diagnosis", "graphmend.api"),
    "graphmend.__main__": ("graphmend.cli",),
    "graphmend": (),
}


def layer_of(module: str) -> str | None:
    """The layer ``module`` lies in: the longest entry it is or lies under
    (``graphmend`` holds only itself); None when it lies in none."""
    holders = [layer for layer in LAYERS
               if module == layer or (layer != "graphmend" and module.startswith(layer + "."))]
    return max(holders, key=len, default=None)


def imported_by(layer: str) -> frozenset[str]:
    """``layer`` and every layer it may import, directly or through another."""
    found = {layer}
    pending = [layer]
    while pending:
        for lower in LAYERS[pending.pop()]:
            if lower not in found:
                found.add(lower)
                pending.append(lower)
    return frozenset(found)
