import sys
from pathlib import Path

# Test helper modules (harness.py, programs/) import as top-level modules.
sys.path.insert(0, str(Path(__file__).parent))
