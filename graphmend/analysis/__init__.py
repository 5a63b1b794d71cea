"""Read-only facts about source code: these modules annotate, never rewrite."""
