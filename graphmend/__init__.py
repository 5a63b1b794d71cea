"""graphmend: find torch.compile graph breaks, and mend the fixable ones.

    graphmend.diagnose(fn, *args)   every break: site, category, reason, fix
    graphmend.mend(model)           rewrite in memory, in place
    graphmend.compile(model)        diagnose on the first call, mend, torch.compile
"""

from graphmend.api import compile
from graphmend.diagnose import Break, Recompile, Report, call, diagnose, diagnose_calls
from graphmend.errors import GraphmendError, SourceError, VerificationError
from graphmend.patch import mend, show, unmend

__version__ = "0.1.0"

__all__ = [
    "Break",
    "GraphmendError",
    "Recompile",
    "Report",
    "SourceError",
    "VerificationError",
    "__version__",
    "call",
    "compile",
    "diagnose",
    "diagnose_calls",
    "mend",
    "show",
    "unmend",
]
