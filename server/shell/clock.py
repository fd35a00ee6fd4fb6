"""The server's one clock: wall time in milliseconds, read here and passed into the
synchronous core (rooms, lobby, directors), which never read a clock themselves. The
shell reads it as ``clock.now_ms()``, so that a test moves time by patching this one name."""

from __future__ import annotations

import time


def now_ms() -> int:
    return time.time_ns() // 1_000_000
