"""Differential fuzzing of the rewrite rules.

``grammar`` generates small PyTorch functions as source text (Hypothesis
strategies over a statement tree); ``runner`` runs each program three ways
-- the original eagerly, the mended code eagerly, the mended code compiled
as ``graphmend.compile`` does (inside [Capture]'s scope) -- and compares
everything a user can observe; ``__main__`` is ``make fuzz``: many programs
in parallel processes and a summary.
"""
