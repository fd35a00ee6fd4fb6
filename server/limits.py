"""Per-connection flood control: a token bucket, and a throttle on complaining about it."""

from __future__ import annotations


class TokenBucket:
    """``rate`` frames per second on average, bursts of up to ``burst``.

    Times are milliseconds passed in by the caller, so tests drive the clock.
    """

    __slots__ = ("_last_ms", "_tokens", "_warned_ms", "burst", "rate")

    def __init__(self, rate: float, burst: int, now_ms: int = 0) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last_ms = now_ms
        self._warned_ms: int | None = None

    def take(self, now_ms: int) -> bool:
        """Spend one token if there is one; False means the frame is over the limit."""
        elapsed = max(0, now_ms - self._last_ms)
        self._last_ms = now_ms
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate / 1000.0)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def should_warn(self, now_ms: int, every_ms: int = 1_000) -> bool:
        """Answer at most one ``rate_limited`` error per ``every_ms``; drop the rest silently."""
        if self._warned_ms is None or now_ms - self._warned_ms >= every_ms:
            self._warned_ms = now_ms
            return True
        return False
