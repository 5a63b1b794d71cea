"""Held-out sets: rows of libraries in neither corpus, written down before they are run (ROWS.md)."""
