"""The exceptions graphmend raises on purpose; anything else is a bug."""


class GraphmendError(Exception):
    """Base class of graphmend's own errors."""


class SourceError(GraphmendError):
    """Source that cannot be read or parsed; ``str()`` is ``file:line: message``."""

    def __init__(self, filename: str, lineno: int, message: str) -> None:
        super().__init__(f"{filename}:{lineno}: {message}")
        self.filename = filename
        self.lineno = lineno
        self.message = message


class VerificationError(GraphmendError):
    """``graphmend.compile(..., verify=True)`` saw the mended output differ."""


class Unmendable(Exception):
    """Why one function is left alone (logged, never raised to users)."""
