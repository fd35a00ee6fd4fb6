"""How a failure to reach a server is told: one wording, whichever command or
library met it (the play client's WebSocket, the HTTP of ``leaderboard``,
``ratings`` and ``tournament``)."""

from __future__ import annotations

import errno

REFUSED = "connection refused (is the server running?)"


def os_error_text(exc: BaseException) -> str:
    """A network error from the operating system, for people."""
    if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
        return REFUSED
    if isinstance(exc, TimeoutError):
        return "the server did not answer in time"
    nested = getattr(exc, "reason", None) or getattr(exc, "os_error", None)
    if isinstance(nested, BaseException) and nested is not exc:
        return os_error_text(nested)  # urllib's URLError, aiohttp's connector errors
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return str(exc) or type(exc).__name__


def unreachable(where: str, exc: BaseException) -> str:
    """``"cannot reach http://HOST:PORT: connection refused (is the server running?)"``."""
    return f"cannot reach {where}: {os_error_text(exc)}"
