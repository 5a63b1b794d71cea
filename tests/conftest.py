import os
import sys
from pathlib import Path

# Test helper modules (harness.py, programs/) import as top-level modules.
sys.path.insert(0, str(Path(__file__).parent))

# GRAPHMEND_DISABLE_RULE=where (or trap, defer) runs the suite with that
# rule turned off in the converter registry: the tests of the rule must go
# red, or they do not test it (the rule-off run: see tests/test_registry.py).
_OFF = os.environ.get("GRAPHMEND_DISABLE_RULE")
if _OFF:
    from graphmend import pipeline

    pipeline.CONVERTERS.disable(_OFF)
