"""Mending live objects: rewriting, in memory, the functions a call reaches.

The entry points (``mend``, ``mend_sites``, ``unmend``, ``show``) are
:mod:`.live`'s; it runs the steps, one module each:

* which functions: :mod:`.reach` (what a call of an object reaches),
  :mod:`.search` (the ``modules=`` search), :mod:`.sites` (the function
  behind a site a diagnosis reported), never code :mod:`.foreign` names;
* step 1, :mod:`.resolve`: the Python function whose code changes;
* step 2, :mod:`.rewrite`: the rules on the skeleton of its file, with the
  summaries of the functions it calls read from live objects
  (:mod:`.callees`), cached on disk (:mod:`.cache`) and run in a helper
  process while this one works (:mod:`.sidecar`);
* step 3, :mod:`.scope`: each rewritten def compiled as the function it
  replaces;
* step 4, :mod:`.swap`: ``__code__`` swapped in place, and undone; its
  registry is the one record of what is mended.

The helper's rewrites may be finished after graphmend.compile's first call
has started: as Dynamo meets each function (:mod:`.live`).

Around them: :mod:`.records` (what ``graphmend.compile`` learnt, kept across
processes) and :mod:`.hook` (modules mended as they are imported).

Importing this package imports nothing: the helper process
(``python -m graphmend.mending.sidecar``) needs no torch.
"""
