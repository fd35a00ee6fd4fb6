"""A room's state and its queries: what every part of a room stands on.

:class:`RoomBase` holds a room's plain state (settings, seats, spectators, the
series and the deal being played, the timers of its delayed messages) and
answers questions about it: who is a member, when the room next needs a tick,
whether the lobby may forget it, the wire views (:mod:`server.room.views`).
Beyond reading, it only records: a phase change, checked against the
transition table (:meth:`RoomBase.go`; a restart's too, :meth:`RoomBase.resume_in`),
what a step decided (:meth:`RoomBase.note`, handed over by :meth:`RoomBase.conclude`),
and a player abandoning the series (:meth:`RoomBase.abandoned`). The room's parts
act on it: the one place messages are addressed (:mod:`server.room.addressing`),
the end of a deal and a series (:mod:`server.room.results`) and the deal being
played (:mod:`server.room.dealing`), composed by :class:`~server.room.machine.Room`,
which adds the commands, connections and time.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from typing import Any

from protocol.deals import SeriesInfo
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.rooms import RoomInfo, RoomState, RoomStatus, RoomSummary
from server.events import Abandoned, Abandonment, Event, RoomOpened
from server.room import views
from server.room.outbound import Outbound
from server.room.phases import RESUMED, TRANSITIONS, Phase
from server.room.result import RoomResult
from server.room.state import BotFactory, BotTurn, DealInPlay, Ids, RoomSettings, Seat
from server.series import SecretScheme, Series, deal_secrets

# How long the results of one deal of a series stay up before the next deal.
BETWEEN_DEALS_MS = 8_000


class RoomBase:
    """A room's state and its queries (the room's parts act on it)."""

    def __init__(
        self,
        room_id: str,
        settings: RoomSettings,
        creator: PlayerInfo,
        *,
        now_ms: int,
        server_secret: str,
        match_id: str,
        invite_code: str | None = None,
        contribution: str = "",
        grace_ms: int = 60_000,
        bots: BotFactory | None = None,
        think_elsewhere: bool = False,
        ids: Ids | None = None,
        between_deals_ms: int = BETWEEN_DEALS_MS,
        secret_scheme: SecretScheme = SecretScheme.CHAIN,
        embargo: str | None = None,
    ) -> None:
        self.id = room_id
        self.settings = settings
        self.creator = creator
        self.invite_code = invite_code if settings.visibility == Visibility.PRIVATE else None
        self.grace_ms = grace_ms
        self.phase = Phase.WAITING
        self.seats: list[Seat] = [Seat(creator, contribution)]
        self.spectators: dict[str, PlayerInfo] = {}
        self.match: DealInPlay | None = None
        self.finished_at: int | None = None
        self.created_at = now_ms
        # The time of the step being run (server.stepping.step), with its notes below.
        self.step_at: int | None = None
        self.ids = ids
        self.bot_factory = bots
        self.think_elsewhere = think_elsewhere
        self.between_deals_ms = between_deals_ms
        # When the members are next due a progress (None: they are up to date).
        self.progress_due: int | None = None
        # When they are next due a room update, and when they last got one.
        self.room_due: int | None = None
        self.room_sent_at: int | None = None
        # A clock above the room's ran out (a tournament round): no deal after this one.
        self.last_deal = False
        self.series = self.new_series(match_id, server_secret, secret_scheme, embargo)
        self.server_commitment = self.series.commitment
        # Series over: what the server has committed to for a rematch.
        self.next_series: Series | None = None
        # What the step being run has noted so far: it leaves with the step's result
        # (server.room.result), so it is empty between steps.
        self._events: list[Event] = []
        self._bot_turns: list[BotTurn] = []

    def new_series(
        self,
        series_id: str,
        root_secret: str,
        scheme: SecretScheme = SecretScheme.CHAIN,
        embargo: str | None = None,
    ) -> Series:
        deals = self.settings.best_of
        return Series(
            id=series_id,
            best_of=deals,
            players=(),
            secrets=deal_secrets(scheme, root_secret, deals),
            race=self.settings.pace == Pace.RACE,
            root=root_secret,
            scheme=scheme,
            embargo=embargo,
        )

    def opened(self) -> RoomOpened:
        """The event of this room's opening (the lobby stores it as it opens the room)."""
        s = self.settings
        return RoomOpened(
            room_id=self.id,
            name=s.name,
            visibility=s.visibility,
            pace=s.pace,
            seats=s.seats,
            card_clock_ms=s.card_clock_ms,
            deal_clock_ms=s.deal_clock_ms,
            creator_id=self.creator.id,
            server_commitment=self.series.commitment,
            at_ms=self.created_at,
            invite_code=self.invite_code,
            deals=s.best_of,
            rated=s.rated,
            origin=s.origin,
        )

    def conclude(self, messages: list[Outbound]) -> RoomResult:
        """A step's ``messages`` with everything it noted, as its one result; the room
        keeps nothing of it (server.room.result.step calls this for every entry point;
        the lobby too, for a step a bug cut short)."""
        result = RoomResult(messages, self._events, self._bot_turns)
        self._events, self._bot_turns, self.step_at = [], [], None
        return result

    def note(self, event: Event) -> None:
        """An event for storage, decided by the step being run."""
        self._events.append(event)

    def ask_bot(self, turn: BotTurn) -> None:
        """A bot seat's turn to think about elsewhere, decided by the step being run."""
        self._bot_turns.append(turn)

    def seat_of(self, player_id: str) -> Seat | None:
        for seat in self.seats:
            if seat.player.id == player_id:
                return seat
        return None

    def members(self) -> list[str]:
        """Everyone who receives this room's messages: present humans and spectators."""
        return [s.player.id for s in self.seats if s.receives] + list(self.spectators)

    def is_member(self, player_id: str) -> bool:
        seat = self.seat_of(player_id)
        return (seat is not None and seat.receives) or player_id in self.spectators

    # The wire views (server.room.views): pure, they change nothing.

    def status(self) -> RoomStatus:
        return views.status(self)

    def series_info(self, now_ms: int | None = None) -> SeriesInfo | None:
        return views.series_info(self, now_ms)

    def info(self, now_ms: int, results: bool = True) -> RoomInfo:
        return views.info(self, now_ms, results)

    def summary(self) -> RoomSummary:
        return views.summary(self)

    def summary_key(self) -> tuple[Any, ...]:
        return views.summary_key(self)

    def view_for(self, player_id: str, now_ms: int, ref: str | None = None) -> RoomState:
        """The full snapshot ``player_id`` may see: its own board, nobody else's."""
        return views.view_for(self, player_id, now_ms, ref)

    def closable(self, now_ms: int, finished_ttl_ms: int) -> bool:
        """Nobody needs this room any more: the lobby may forget it."""
        if self.phase == Phase.WAITING:
            return not any(s.bot is None for s in self.seats)
        if self.phase == Phase.FINISHED:
            assert self.finished_at is not None
            # A player whose connection dropped, or who is moving to another node of a
            # cluster (node_hint), is still waited for: its grace period keeps the room.
            waited = any(s.receives and (s.connected or self._in_grace(s, now_ms))
                         for s in self.seats)  # fmt: skip
            return not (waited or self.spectators) or now_ms - self.finished_at >= finished_ttl_ms
        return False

    def _in_grace(self, seat: Seat, now_ms: int) -> bool:
        return seat.away_since is not None and now_ms - seat.away_since < self.grace_ms

    def next_deadline(self, now_ms: int) -> int | None:
        """The next time :meth:`tick` has something to do, as of ``now_ms`` (None:
        nothing timed)."""
        times: list[int] = [
            s.away_since + self.grace_ms
            for s in self.seats
            if s.away_since is not None
            and not s.timed_out
            and s.present
            and self.phase in (Phase.WAITING, Phase.PLAYING)
        ]
        if self.phase == Phase.FINISHED:  # looked at again when a grace ends: it may close
            times += [s.away_since + self.grace_ms for s in self.seats
                      if s.receives and s.away_since is not None
                      and self._in_grace(s, now_ms)]  # fmt: skip
        if self.phase == Phase.BETWEEN and self.series.next_at is not None:
            times.append(self.series.next_at)
        if self.room_due is not None:
            times.append(self.room_due)
        m = self.match
        if m is not None and self.phase == Phase.PLAYING:
            if self.settings.pace == Pace.LOCKSTEP:
                times.append(m.turn_started + self.settings.card_clock_ms)
            else:
                times.append(m.started_at + self.settings.deal_clock_ms)
            if self.progress_due is not None:
                times.append(self.progress_due)
        return min(times) if times else None

    def go(self, phase: Phase) -> None:
        if phase not in TRANSITIONS[self.phase]:
            raise AssertionError(f"no transition from {self.phase} to {phase}")
        self.phase = phase

    def resume_in(self, phase: Phase) -> None:
        """A room built anew takes back a stored series in ``phase`` (a restart,
        server/room/restore.py): through the table, by the way :data:`RESUMED` gives;
        ValueError for a phase a restart does not resume a room in."""
        way = RESUMED.get(phase)
        if way is None or self.phase != Phase.WAITING:
            raise ValueError(f"a room is not resumed {phase} (it is {self.phase})")
        for step in way:
            self.go(step)

    def abandoned(self, player_id: str, kind: Abandonment, now_ms: int) -> None:
        """``player_id`` left the series being played, went away too long, or never moved."""
        match_id = self.match.id if self.match else ""
        self.note(Abandoned(player_id, self.id, self.series.id, match_id, kind, now_ms))
