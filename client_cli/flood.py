"""When the server drops this connection's frames (docs/protocol.md, *Limits*).

A frame that finds the connection's token bucket empty is dropped, not queued;
the first one dropped in any second is answered ``rate_limited`` with no
``ref``, the rest silently. What every client on :class:`client_cli.session.Session`
does about it lives here, pure (the caller passes the event loop's clock):

* nothing is sent within the shortest back-off of a notice (:meth:`Flood.quiet_s`):
  a frame dropped then would be dropped untold;
* a request that may have been dropped is not sent again blindly: the room is
  asked for as it stands (``resync``) once the back-off is over
  (:meth:`Flood.calm_at`), 1 s after a first notice, 2 s and then 4 s when the
  notices keep coming; the ``room_state`` says whether a placement was taken.

A ``rate_limited`` that carries a ``ref`` is a refusal of that request (a quota),
not a drop: :func:`is_drop_notice` is false for it.
"""

from __future__ import annotations

from protocol.connection import ErrorMessage
from protocol.wire import ServerMessage

RATE_LIMITED = "rate_limited"
# The waits after a notice before anything that may have been dropped is sent
# again (or the room asked for), one step longer for each notice in a row. At
# least a second: the server tells only the first drop of each second.
BACKOFF_S = (1.0, 2.0, 4.0)
# A notice within this long of the previous one counts as one more in a row.
IN_A_ROW_S = 10.0


def is_drop_notice(message: ServerMessage) -> bool:
    """True for the server's word that it drops this connection's frames."""
    return isinstance(message, ErrorMessage) and message.code == RATE_LIMITED and not message.ref


def backoff_s(drops: int) -> float:
    """The wait after the ``drops``-th drop in a row (0: the first)."""
    return BACKOFF_S[min(drops, len(BACKOFF_S) - 1)]


class Flood:
    """What the server said, on this connection, about dropping its frames."""

    def __init__(self) -> None:
        self.told_at: float | None = None  # when it last said so (the event loop's clock)
        self.in_a_row = 0  # notices before the last one, each within IN_A_ROW_S of the next

    def reset(self) -> None:
        """A new connection: a full bucket."""
        self.told_at, self.in_a_row = None, 0

    def heard(self, message: ServerMessage, now: float) -> bool:
        """Note ``message`` if it is a drop notice; True if it is."""
        if not is_drop_notice(message):
            return False
        told = self.told_at
        self.in_a_row = self.in_a_row + 1 if told is not None and now - told < IN_A_ROW_S else 0
        self.told_at = now
        return True

    @property
    def wait_s(self) -> float:
        """The back-off the last notice calls for."""
        return backoff_s(self.in_a_row)

    def quiet_s(self, now: float) -> float:
        """How long to send nothing yet (0: free to send)."""
        if self.told_at is None:
            return 0.0
        return max(0.0, self.told_at + BACKOFF_S[0] - now)

    def calm_at(self) -> float:
        """When what may have been dropped may be asked about again."""
        return (self.told_at or 0.0) + self.wait_s


def drop_note(reason: str, wait_s: float, room: bool) -> str:
    """The line telling the player the server drops frames, and what happens next."""
    then = ", then asking for the room as it stands" if room else ""
    return f"the server is dropping this client's messages ({reason}): waiting {wait_s:g} s{then}"
