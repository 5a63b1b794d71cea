"""graphmend: find torch.compile graph breaks, and mend the fixable ones."""

from graphmend.diagnose import Break, Report, diagnose
from graphmend.errors import GraphmendError, SourceError, VerificationError

__version__ = "0.1.0"

__all__ = [
    "Break",
    "GraphmendError",
    "Report",
    "SourceError",
    "VerificationError",
    "__version__",
    "diagnose",
]
