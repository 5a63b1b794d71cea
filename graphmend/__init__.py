"""graphmend: find torch.compile graph breaks, and mend the fixable ones."""

from graphmend.diagnose import Break, Recompile, Report, call, diagnose, diagnose_calls
from graphmend.errors import GraphmendError, SourceError, VerificationError

__version__ = "0.1.0"

__all__ = [
    "Break",
    "Recompile",
    "GraphmendError",
    "Report",
    "SourceError",
    "VerificationError",
    "__version__",
    "call",
    "diagnose",
    "diagnose_calls",
]
