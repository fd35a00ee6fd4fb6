"""Flood control: a connection's frame bucket (and a throttle on complaining about
it), and the quotas of what one remote address or one account may do how often."""

from __future__ import annotations

import ipaddress
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple


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


# ----------------------------------------------------------------------
# Quotas: how often one remote address, or one account, may do a thing

_PERIODS = {"s": 1, "second": 1, "min": 60, "minute": 60, "h": 3_600, "hour": 3_600,
            "day": 86_400}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Quota:
    """At most ``count`` times per ``period_s`` seconds, as a token bucket: a burst
    of ``count`` at once, then one more every ``period_s / count`` seconds.

    Its text form is ``"COUNT/PERIOD"`` with PERIOD one of s, min, h, day
    (``"60/h"``); ``Quota.parse`` reads it (ValueError: not one).
    """

    count: int
    period_s: float

    def __post_init__(self) -> None:
        if self.count < 1 or self.period_s <= 0:
            raise ValueError(f"a quota is at least 1 per a positive period, not {self}")

    @classmethod
    def parse(cls, text: str) -> Quota:
        count, sep, period = text.strip().partition("/")
        if not sep or period.strip() not in _PERIODS or not count.strip().isdigit():
            raise ValueError(f"{text!r} is not a quota like '60/min' (periods: s, min, h, day)")
        return cls(int(count), _PERIODS[period.strip()])

    def __str__(self) -> str:
        for name in ("day", "h", "min", "s"):
            if self.period_s == _PERIODS[name]:
                return f"{self.count}/{name}"
        return f"{self.count}/{self.period_s:g}s"

    def __repr__(self) -> str:
        return f"Quota.parse({str(self)!r})"


class QuotaBook:
    """One quota's token buckets, by key (a remote address, an account id).

    Bounded: at most ``max_keys`` buckets are kept, the least recently used
    going first, and a bucket that has refilled completely is worth nothing
    (a new one would be the same), so forgetting it loses no information.
    """

    __slots__ = ("_buckets", "max_keys", "quota")

    def __init__(self, quota: Quota, max_keys: int = 100_000) -> None:
        self.quota = quota
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, int]] = OrderedDict()  # key -> (tokens, ms)

    def __len__(self) -> int:
        return len(self._buckets)

    def _refilled(self, key: str, now_ms: int, *, pop: bool) -> tuple[float, float]:
        """``key``'s tokens now (a new key's bucket is full) and the refill per ms;
        ``pop``: taken out, to be put back as the most recently used (:meth:`_put`)."""
        quota = self.quota
        per_ms = quota.count / (quota.period_s * 1000.0)
        full = (float(quota.count), now_ms)
        tokens, last = self._buckets.pop(key, full) if pop else self._buckets.get(key, full)
        return min(float(quota.count), tokens + max(0, now_ms - last) * per_ms), per_ms

    def _put(self, key: str, tokens: float, now_ms: int) -> None:
        self._buckets[key] = (tokens, now_ms)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)

    def take(self, key: str, now_ms: int) -> float:
        """Spend one of ``key``'s turns: 0.0 if it had one, else the seconds until it has."""
        tokens, per_ms = self._refilled(key, now_ms, pop=True)
        if tokens >= 1.0:
            self._put(key, tokens - 1.0, now_ms)
            return 0.0
        self._put(key, tokens, now_ms)
        return (1.0 - tokens) / per_ms / 1000.0

    def owed(self, key: str, now_ms: int) -> float:
        """A budget spent by size (:meth:`spend`): 0.0 if ``key`` may go on, else the
        seconds until it has paid off what it overspent."""
        tokens, per_ms = self._refilled(key, now_ms, pop=False)
        return 0.0 if tokens > 0 else (1.0 - tokens) / per_ms / 1000.0

    def spend(self, key: str, cost: float, now_ms: int) -> None:
        """Spend ``cost`` of ``key``'s budget, going into debt if it must: what a
        thing costs (an answer's bytes) is known only once it is done, so it is
        allowed while :meth:`owed` is 0 and paid for after."""
        tokens, _ = self._refilled(key, now_ms, pop=True)
        self._put(key, tokens - cost, now_ms)

    def forget_full(self, now_ms: int, most: int = 1_000) -> None:
        """Drop up to ``most`` buckets that have refilled completely, least recently
        used first (they cost memory and say nothing); stop at one that has not."""
        quota = self.quota
        per_ms = quota.count / (quota.period_s * 1000.0)
        buckets = self._buckets
        for _ in range(most):
            if not buckets:
                return
            key, (tokens, last) = next(iter(buckets.items()))
            if tokens + max(0, now_ms - last) * per_ms < quota.count:
                return
            del buckets[key]


def quota_key(address: str) -> str:
    """The key an address's quotas are kept under: the address itself, or for IPv6
    its /64 network (one subscriber usually holds a whole /64)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return address


class Refusal(NamedTuple):
    """A quota said no: why, for people, and how long until it would say yes."""

    reason: str
    wait_s: int


class Quotas:
    """The quotas of one server: for each kind of request, a book per remote address
    and one per account (either may be None: not limited that way)."""

    def __init__(
        self, kinds: dict[str, tuple[str, Quota | None, Quota | None]], max_keys: int
    ) -> None:
        # kind -> (what it is called in a refusal, by address, by account)
        self._kinds = {
            kind: (label,
                   QuotaBook(by_address, max_keys) if by_address else None,
                   QuotaBook(by_account, max_keys) if by_account else None)
            for kind, (label, by_address, by_account) in kinds.items()
        }  # fmt: skip

    def take(
        self, kind: str, address: str | None, account: str | None, now_ms: int
    ) -> Refusal | None:
        """Spend a turn of ``kind`` for ``address`` and ``account``: None if both had
        one, else why not (a turn refused by the address is not spent by the account)."""
        return self._refusal(kind, address, account, lambda b, key: b.take(key, now_ms))

    def owed(
        self, kind: str, address: str | None, account: str | None, now_ms: int
    ) -> Refusal | None:
        """A budget of ``kind`` spent by size: None if neither ``address`` nor
        ``account`` is in debt, else why not (nothing is spent)."""
        return self._refusal(kind, address, account, lambda b, key: b.owed(key, now_ms))

    def _refusal(
        self,
        kind: str,
        address: str | None,
        account: str | None,
        wait_of: Callable[[QuotaBook, str], float],
    ) -> Refusal | None:
        """Ask the address's book, then the account's, how long to wait; the first
        that says to wait is the refusal."""
        label, by_address, by_account = self._kinds[kind]
        for book, key, whose in ((by_address, address, "your address"),
                                 (by_account, account, "you")):  # fmt: skip
            if book is None or key is None:
                continue
            wait = wait_of(book, key)
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                return Refusal(f"too many {label} from {whose}: at most {book.quota};"
                               f" try again in {seconds} s", seconds)  # fmt: skip
        return None

    def spend(
        self, kind: str, address: str | None, account: str | None, cost: float, now_ms: int
    ) -> None:
        """Pay ``cost`` of ``kind``'s budget from ``address`` and ``account``."""
        _, by_address, by_account = self._kinds[kind]
        for book, key in ((by_address, address), (by_account, account)):
            if book is not None and key is not None:
                book.spend(key, cost, now_ms)

    def sweep(self, now_ms: int, most: int = 1_000) -> None:
        """Forget a few buckets that have refilled (least recently used first)."""
        for _, by_address, by_account in self._kinds.values():
            for book in (by_address, by_account):
                if book is not None:
                    book.forget_full(now_ms, most)

    def keys(self) -> int:
        """Buckets held in all (what the quotas cost in memory)."""
        return sum(len(b) for _, a, c in self._kinds.values() for b in (a, c) if b is not None)
