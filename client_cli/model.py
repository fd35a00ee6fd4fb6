"""The client-side model: everything the player sees, updated from server messages.

Both front ends (the Textual app and ``--plain``) render this model and nothing
else. :meth:`ClientModel.apply` takes one typed server message and returns the
readable lines worth telling the player; it does no I/O and never reads the
clock itself (callers pass ``now``, a monotonic time in seconds), so tests can
drive it with plain data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from engine import WIN_SCORE, Card, Grid, commitment, deal, parse_cell, room_seed
from engine.deal import table_deal_secret, table_root
from engine.errors import EngineError
from protocol.messages import (
    BoardResult,
    CardDealt,
    ChallengeInfo,
    ChallengeUpdate,
    ErrorMessage,
    Leaderboard,
    Left,
    MatchResult,
    MatchStarted,
    Pace,
    Placed,
    PlacementOut,
    PlayerInfo,
    Pong,
    Progress,
    QueueStatus,
    RatingChange,
    RatingsChanged,
    RoomInfo,
    Rooms,
    RoomState,
    RoomStatus,
    RoomSummary,
    RoomUpdate,
    SeriesInfo,
    SeriesStanding,
    ServerMessage,
    TournamentEntrant,
    TournamentInfo,
    Tournaments,
    TournamentStanding,
    TournamentSummary,
    TournamentTable,
    TournamentUpdate,
    Welcome,
)


class View(StrEnum):
    """Which main screen the model calls for."""

    SIGN_IN = "sign_in"
    LOBBY = "lobby"
    ROOM = "room"
    GAME = "game"
    RESULTS = "results"
    TOURNAMENT = "tournament"


class Connection(StrEnum):
    OFFLINE = "offline"
    CONNECTING = "connecting"
    ONLINE = "online"
    RECONNECTING = "reconnecting"


@dataclass(frozen=True)
class Clock:
    """A countdown: ``remaining_ms`` at monotonic time ``at``."""

    remaining_ms: int
    at: float

    def left_ms(self, now: float) -> int:
        return max(0, self.remaining_ms - int((now - self.at) * 1000))


@dataclass(frozen=True)
class Check:
    label: str
    ok: bool


@dataclass(frozen=True)
class Verification:
    """The deal checked from the revealed seed against what was committed and dealt."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def summary(self) -> str:
        if self.ok:
            return "deal verified: the seed matches its commitment and deals exactly these cards"
        failed = [c.label for c in self.checks if not c.ok]
        return "DEAL NOT VERIFIED: " + "; ".join(failed)


@dataclass(frozen=True)
class PlayerProgress:
    player: PlayerInfo
    placed: int
    state: str  # "placed", "thinking", "done", "disconnected", "ready", "not ready"
    me: bool


def chain_back(secret: str, steps: int) -> str:
    """``secret`` hashed ``steps`` times: deal k's secret, hashed k times, is the
    series' published commitment (each deal's commitment is the previous deal's secret)."""
    for _ in range(steps):
        secret = commitment(secret)
    return secret


def verify_result(
    result: MatchResult,
    contributions: Sequence[str],
    server_commitment: str | None,
    received: dict[int, str],
    my_contribution: str | None = None,
    my_seat: int | None = None,
    *,
    deal_number: int = 1,
    series_commitment: str | None = None,
    previous_secret: str | None = None,
    chained: bool = True,
) -> Verification:
    """Check a revealed deal; every check is listed, passed or not.

    ``server_commitment`` is the one the match was announced with. Deal k of a
    series also has to link to what was published before: deal 1's commitment
    is the room's (``series_commitment``), deal k's is the secret revealed by
    deal k-1 (``previous_secret``), and in any case deal k's secret hashed k
    times gives the room's commitment, so a client that missed a deal still
    checks the chain. A tournament table's deal secrets are not a chain
    (``chained`` False): they are checked against the round's secret once the
    round is over (:func:`table_round_checks`).
    """
    checks: list[Check] = []
    try:
        checks.append(
            Check(
                "the seed matches its commitment", commitment(result.seed) == result.seed_commitment
            )
        )
        if server_commitment:
            checks.append(
                Check(
                    "the server's secret matches its commitment",
                    commitment(result.server_secret) == server_commitment,
                )
            )
        if deal_number == 1 and series_commitment and server_commitment:
            checks.append(
                Check(
                    "the deal's commitment is the one the room published",
                    server_commitment == series_commitment,
                )
            )
        if chained and deal_number > 1 and previous_secret is not None and server_commitment:
            checks.append(
                Check(
                    f"deal {deal_number}'s commitment is the secret revealed by deal "
                    f"{deal_number - 1}",
                    server_commitment == previous_secret,
                )
            )
        if chained and deal_number > 1 and series_commitment:
            checks.append(
                Check(
                    f"the secret hashed {deal_number} times is the room's commitment",
                    chain_back(result.server_secret, deal_number) == series_commitment,
                )
            )
        if contributions:
            checks.append(
                Check(
                    "the seed comes from the server's secret and every contribution",
                    room_seed(result.server_secret, list(contributions)) == result.seed,
                )
            )
        if my_contribution is not None and contributions:
            used = (
                my_seat is not None
                and 0 <= my_seat < len(contributions)
                and contributions[my_seat] == my_contribution
            )
            checks.append(Check("my contribution was used, at my seat", used))
        dealt = deal(result.seed)
        cards = [str(c) for c in dealt.cards]
        if received:
            mine_ok = all(cards[t - 1] == c for t, c in received.items() if 1 <= t <= 16)
            checks.append(Check(f"the {len(received)} cards I received are the deal's", mine_ok))
        boards_ok = all(
            all(cards[p.turn - 1] == p.card for p in board.placements) for board in result.boards
        )
        checks.append(Check("every board holds the deal's cards", boards_ok))
        checks.append(Check("the starter is the deal's", str(dealt.starter) == result.starter))
    except EngineError as exc:
        checks.append(Check(f"the revealed seed is unusable ({exc})", False))
    return Verification(tuple(checks))


def tournament_checks(info: TournamentInfo, contributions: Sequence[str]) -> tuple[Check, ...]:
    """A tournament table's deal against what the tournament published, as soon as
    the deal is over (docs/fairness.md, *Tournaments*): every seat has the round's
    contribution, and the round's commitment is the tournament's (round 1) or the
    secret the round before revealed. That the table's secrets come from the
    round's secret is checked once the round is over (:func:`table_round_checks`)."""
    k = info.round
    current = next((r for r in info.history if r.number == k), None)
    if current is None:
        return (Check(f"round {k} of the tournament was published", False),)
    checks = [
        Check(
            f"every seat has round {k}'s published contribution",
            bool(contributions) and all(c == current.contribution for c in contributions),
        ),
    ]
    if k == 1:
        checks.append(
            Check(
                "round 1's commitment is the one the tournament published at its creation",
                current.server_commitment == info.commitment,
            )
        )
    else:
        before = next((r for r in info.history if r.number == k - 1), None)
        if before is not None and before.server_secret:
            checks.append(
                Check(
                    f"round {k}'s commitment is the secret revealed by round {k - 1}",
                    current.server_commitment == before.server_secret,
                )
            )
    return tuple(checks)


@dataclass(frozen=True)
class TableDeal:
    """A deal this player played at a tournament table, kept until its round's secret
    is revealed: then its secret is checked against it (:func:`table_round_checks`)."""

    tournament_id: str
    round: int
    deal: int
    match_id: str
    server_secret: str  # revealed by the deal's result
    table_commitment: str  # the room's, published when the table opened


def table_round_checks(
    info: TournamentInfo, number: int, deals: Sequence[TableDeal]
) -> tuple[Check, ...]:
    """Once round ``number`` is over: its revealed secret matches the commitment the
    round began with, and every deal of the table took its secret from it:
    ``table_deal_secret(table_root(secret, tournament id, round), deal)``, the first
    deal's hashing to the table's published commitment (docs/fairness.md)."""
    revealed = next((r for r in info.history if r.number == number), None)
    if revealed is None or not revealed.server_secret:
        return (Check(f"round {number}'s secret was revealed", False),)
    secret = revealed.server_secret
    checks = [
        Check(
            f"round {number}'s revealed secret matches its commitment",
            commitment(secret) == revealed.server_commitment,
        )
    ]
    try:
        root = table_root(secret, info.id, number)
        for d in deals:
            checks.append(
                Check(
                    f"deal {d.deal}'s secret comes from round {number}'s secret",
                    table_deal_secret(root, d.deal) == d.server_secret,
                )
            )
        first = commitment(table_deal_secret(root, 1))
        checks.append(
            Check(
                "the table's commitment comes from the round's secret",
                all(d.table_commitment == first for d in deals),
            )
        )
    except EngineError as exc:
        checks.append(Check(f"the revealed round secret is unusable ({exc})", False))
    return tuple(checks)


@dataclass
class MatchView:
    """The current (or last) match of the room, as this player knows it."""

    match_id: str
    pace: Pace
    seed_commitment: str
    contributions: list[str]
    card_clock_ms: int
    deal_clock_ms: int
    cells: list[str | None] = field(default_factory=lambda: [None] * 16)
    placements: list[PlacementOut] = field(default_factory=list)
    received: dict[int, str] = field(default_factory=dict)  # turn -> card dealt to me
    turn: int | None = None
    card: str | None = None
    legal: list[str] = field(default_factory=list)
    clock: Clock | None = None
    progress: Progress | None = None
    result: MatchResult | None = None
    verification: Verification | None = None
    dismissed: bool = False  # the player has left the results for the room
    server_commitment: str = ""  # as published before the match
    deal: int = 1  # which deal of the series
    best_of: int = 1
    series_commitment: str = ""  # the room's commitment when the series began

    @property
    def placed_count(self) -> int:
        return sum(1 for c in self.cells if c is not None)

    def grid(self) -> Grid:
        return Grid.replay(
            (parse_cell(p.cell), Card.parse(p.card)) for p in sorted(self.placements, key=_turn)
        )


def _turn(p: PlacementOut) -> int:
    return p.turn


@dataclass(frozen=True)
class ChallengeView:
    """An open challenge, to or from this player, with its answer clock."""

    info: ChallengeInfo
    clock: Clock
    incoming: bool  # True: this player is challenged and may accept or decline

    @property
    def other(self) -> PlayerInfo:
        return self.info.challenger if self.incoming else self.info.opponent

    def terms(self) -> str:
        return match_terms(
            self.info.pace, self.info.deals, self.info.rated, self.info.card_clock_ms,
            self.info.deal_clock_ms,
        )  # fmt: skip


@dataclass
class TournamentView:
    """A tournament as the server last told it, received at monotonic time ``at``."""

    info: TournamentInfo
    at: float
    # The tables of every round as last seen while it was current: a round's
    # points are only in the pushes made during it (the bracket shows them).
    tables: dict[int, list[TournamentTable]] = field(default_factory=dict)

    def round_left_ms(self, now: float) -> int | None:
        left = self.info.round_left_ms
        return None if left is None else Clock(left, self.at).left_ms(now)

    def next_round_ms(self, now: float) -> int | None:
        left = self.info.next_round_ms
        return None if left is None else Clock(left, self.at).left_ms(now)

    @property
    def over(self) -> bool:
        return self.info.status in ("finished", "cancelled")

    def entrant(self, player_id: str | None) -> TournamentEntrant | None:
        return next((e for e in self.info.entrants if e.player.id == player_id), None)

    def standing(self, player_id: str | None) -> TournamentStanding | None:
        return next((s for s in self.info.standings if s.player.id == player_id), None)

    def table_of(self, player_id: str | None) -> TournamentTable | None:
        """The player's table in the current (or last) round."""
        return next((t for t in self.info.tables if player_id in t.players), None)

    def seeds(self) -> dict[str, int | None]:
        return {e.player.id: e.seed for e in self.info.entrants}

    def names(self) -> dict[str, PlayerInfo]:
        return {e.player.id: e.player for e in self.info.entrants}


@dataclass(frozen=True)
class Queued:
    """Waiting in the quick-play queue since monotonic time ``since``."""

    pace: Pace
    deals: int
    rating: int | None
    since: float
    bot_after_ms: int | None = None

    def waited_s(self, now: float) -> int:
        return max(0, int(now - self.since))


class ClientModel:
    """The client's whole picture of the server, the room and the match."""

    def __init__(self, server_url: str = "") -> None:
        self.server_url = server_url
        self.connection = Connection.OFFLINE
        self.connection_note = ""
        self.server_name = ""
        self.me: PlayerInfo | None = None
        self.rooms: list[RoomSummary] = []
        self.room: RoomInfo | None = None
        self.match: MatchView | None = None
        self.contribution: str | None = None  # what this client sent for the seed
        self.last_error: ErrorMessage | None = None
        self.series: SeriesInfo | None = None  # the room's series, as last told
        self.next_deal: Clock | None = None  # until the next deal of the series starts
        # The last "match in progress" line: after a reconnect the server pushes the
        # room's state and the client's resync asks for it again; say it once.
        self._in_progress_note: str | None = None
        self.secrets: dict[int, str] = {}  # deal number -> server secret revealed, this series
        self.queue: Queued | None = None  # waiting for a quick-play opponent
        self.bot_after_ms: int | None = None  # what the last quick-play request asked for
        self.challenges: dict[str, ChallengeView] = {}  # open challenges by id
        self.ratings: RatingsChanged | None = None  # the last rating change seen
        self.leaderboard: Leaderboard | None = None
        self.tournament_list: list[TournamentSummary] = []  # the public ones, as last listed
        self.tournaments: dict[str, TournamentView] = {}  # every one the server sent us
        self.tournament_id: str | None = None  # the one the tournament screen shows
        self.watching: set[str] = set()  # tournaments this player spectates
        self.table_rooms: dict[str, str] = {}  # tournament table room id -> tournament id
        # Deals played at tournament tables whose round's secret is not yet revealed.
        self.table_deals: dict[tuple[str, int], list[TableDeal]] = {}
        self.revision = 0  # bumped on every change, so views can skip redundant work

    # -- derived -------------------------------------------------------------

    @property
    def view(self) -> View:
        if self.me is None:
            return View.SIGN_IN
        if self.room is None:
            if self.tournament_id is not None and self.tournament_id in self.tournaments:
                return View.TOURNAMENT
            return View.LOBBY
        match = self.match
        if match is None:
            return View.ROOM
        if match.result is None:
            return View.GAME
        return View.ROOM if match.dismissed else View.RESULTS

    @property
    def is_creator(self) -> bool:
        return bool(self.me and self.room and self.room.creator.id == self.me.id)

    def my_seat(self) -> int | None:
        if self.me is None or self.room is None:
            return None
        for seat in self.room.players:
            if seat.player.id == self.me.id:
                return seat.seat
        return None

    def am_ready(self) -> bool:
        if self.me is None or self.room is None:
            return False
        return any(s.ready for s in self.room.players if s.player.id == self.me.id)

    def progress_rows(self) -> list[PlayerProgress]:
        """Each seated player: how far along, and whether placed, thinking or gone."""
        if self.room is None:
            return []
        match = self.match
        progress = match.progress if match else None
        rows = []
        for seat in sorted(self.room.players, key=lambda s: s.seat):
            pid = seat.player.id
            me = self.me is not None and pid == self.me.id
            placed = progress.placed.get(pid, 0) if progress else 0
            if me and match is not None:
                placed = max(placed, match.placed_count)
            connected = seat.connected
            if progress is not None and pid in progress.connected:
                connected = progress.connected[pid]
            if not connected:
                state = "disconnected"
            elif match is None:
                state = "ready" if seat.ready else "not ready"
            elif placed >= 16:
                state = "done"
            elif match.pace == Pace.LOCKSTEP and progress is not None and placed >= progress.turn:
                state = "placed"
            else:
                state = "thinking"
            rows.append(PlayerProgress(seat.player, placed, state, me))
        return rows

    def series_over(self) -> bool:
        """True when no further deal of the room's series will start by itself."""
        series = self.series
        return series is None or series.finished

    def rematch_state(self) -> tuple[bool, list[PlayerInfo]]:
        """(whether I asked for a rematch, the other seated players who want one)."""
        room = self.room
        if room is None:
            return False, []
        me = self.me.id if self.me else None
        wanted = set(room.rematch)
        others = [
            s.player
            for s in sorted(room.players, key=lambda s: s.seat)
            if s.player.id != me and s.player.id in wanted
        ]
        return me in wanted, others

    def my_rating_change(self) -> RatingChange | None:
        """My change in the last rated series of the current room, if it is over."""
        ratings, me = self.ratings, self.me
        if ratings is None or me is None or self.room is None or ratings.room_id != self.room.id:
            return None
        return next((c for c in ratings.changes if c.player.id == me.id), None)

    def incoming(self) -> list[ChallengeView]:
        return [c for c in self.challenges.values() if c.incoming]

    def outgoing(self) -> list[ChallengeView]:
        return [c for c in self.challenges.values() if not c.incoming]

    def why_not(self, cell_text: str) -> str | None:
        """The reason placing on ``cell_text`` now would be refused, or ``None``."""
        match = self.match
        if match is None or self.room is None:
            return "no match is being played"
        if match.result is not None:
            return "the match is over"
        if match.card is None or match.turn is None:
            if match.placed_count >= 16:
                return "your board is full: waiting for the others"
            return "no card to place yet: wait for the next card"
        try:
            index = parse_cell(cell_text)
        except EngineError as exc:
            return str(exc)
        name = cell_text.strip().lower()
        if name in match.legal:
            return None
        try:
            error = match.grid().why_illegal(index)
        except EngineError:
            error = None
        if error is not None:
            return str(error)
        return f"{name} is not a legal cell for this card"

    # -- tournaments ---------------------------------------------------------

    def shown_tournament(self) -> TournamentView | None:
        """The tournament the tournament screen shows, once the server has sent it."""
        return self.tournaments.get(self.tournament_id or "")

    def show_tournament(self, tournament_id: str | None) -> None:
        """Show this tournament (None: back to the lobby); its snapshot may follow."""
        self.tournament_id = tournament_id
        self.revision += 1

    def is_host(self, tournament_id: str | None) -> bool:
        view = self.tournaments.get(tournament_id or "")
        return bool(view and self.me and view.info.host.id == self.me.id)

    def my_entry(self, tournament_id: str | None) -> TournamentEntrant | None:
        view = self.tournaments.get(tournament_id or "")
        return view.entrant(self.me.id if self.me else None) if view else None

    def entered(self, tournament_id: str | None) -> bool:
        """Registered and not withdrawn nor removed (knocked out still counts)."""
        entry = self.my_entry(tournament_id)
        return entry is not None and entry.status in ("active", "eliminated")

    def tournament_role(self, tournament_id: str | None) -> str:
        """How this player takes part: entrant, out, withdrawn, removed, spectator, host
        (hosting without playing), or "" (just looking)."""
        entry = self.my_entry(tournament_id)
        if entry is not None:
            return {"active": "entrant", "eliminated": "out"}.get(entry.status, entry.status)
        if tournament_id in self.watching:
            return "spectator"
        return "host" if self.is_host(tournament_id) else ""

    def gets_updates(self, tournament_id: str | None) -> bool:
        """True when the server pushes this tournament's changes to this player."""
        return (
            self.is_host(tournament_id)
            or self.entered(tournament_id)
            or tournament_id in self.watching
        )

    def tournament_of_room(self, room_id: str) -> str | None:
        """Which tournament a table room belongs to, if any."""
        found = self.table_rooms.get(room_id)
        if found is not None:
            return found
        me = self.me.id if self.me else None
        for tid, view in self.tournaments.items():
            if any(t.room_id == room_id for t in view.info.tables):
                return tid
        # A round's first push comes before its tables open (their rooms are not
        # in it yet): the table is the one of a tournament where this player is
        # waiting for a room.
        for tid, view in self.tournaments.items():
            table = view.table_of(me)
            if (
                table is not None
                and table.room_id is None
                and table.status == "playing"
                and not view.over
            ):
                return tid
        return None

    def tournament_for_room(self) -> TournamentView | None:
        """The tournament whose table the current room is."""
        room = self.room
        if room is None or room.origin != "tournament":
            return None
        tid = self.tournament_of_room(room.id)
        return self.tournaments.get(tid or "")

    # -- updates -------------------------------------------------------------

    def dismiss_results(self) -> None:
        if self.match is not None and self.match.result is not None:
            self.match.dismissed = True
            self.revision += 1

    def forget_room(self) -> None:
        """Back to the lobby without waiting for the server (a finished room)."""
        self._leave_room()
        self.revision += 1

    def _leave_room(self) -> None:
        room = self.room
        if room is not None and room.origin == "tournament":
            # A tournament's table: back to its standings, not to the lobby.
            tid = self.tournament_of_room(room.id)
            if tid is not None:
                self.tournament_id = tid
        self.room, self.match = None, None
        self.series, self.next_deal, self.secrets = None, None, {}

    def set_connection(self, state: Connection, note: str = "") -> list[str]:
        changed = state != self.connection or note != self.connection_note
        was = self.connection
        if state == was == Connection.RECONNECTING and not note:
            return []  # a new attempt: keep saying why and when
        self.connection, self.connection_note = state, note
        if not changed:
            return []
        self.revision += 1
        if state == Connection.RECONNECTING:
            lines = [f"connection lost: {note}" if note else "connection lost: reconnecting"]
            if self.queue is not None:
                # The server takes a dropped player out of the queue.
                self.queue = None
                lines.append("quick play cancelled: the connection dropped")
            if self.challenges:
                self.challenges.clear()
                lines.append("open challenges dropped with the connection")
            return lines
        if state == Connection.ONLINE:
            return ["connected"]
        if state == Connection.OFFLINE and note:
            return [note]
        return []

    def apply(self, msg: ServerMessage, now: float) -> list[str]:
        """Fold one server message into the model; return lines to tell the player."""
        self.revision += 1
        handler = getattr(self, f"_on_{type(msg).__name__}", None)
        if handler is None:
            return []
        lines: list[str] = handler(msg, now)
        return lines

    def _on_Welcome(self, msg: Welcome, now: float) -> list[str]:
        self.me = msg.player
        self.server_name = msg.server
        self.connection = Connection.ONLINE
        return [f"signed in as {msg.player.name} on {msg.server}"]

    def _on_ErrorMessage(self, msg: ErrorMessage, now: float) -> list[str]:
        self.last_error = msg
        lines = [f"refused: {msg.reason}"]
        if (
            msg.code in ("not_in_room", "room_not_found")
            and self.room is not None
            and msg.room_id == self.room.id
        ):
            # The room is gone (closed while we were away): back to the lobby.
            lines.append(f"room {self.room.name} is closed")
            self._leave_room()
        if msg.code == "tournament_not_found" and self.tournament_id not in self.tournaments:
            self.tournament_id = None  # asked to show one the server does not know
        return lines

    def _other_room(self, room_id: str) -> bool:
        return self.room is None or self.room.id != room_id

    def _on_Pong(self, msg: Pong, now: float) -> list[str]:
        return []

    def _on_Rooms(self, msg: Rooms, now: float) -> list[str]:
        self.rooms = list(msg.rooms)
        return []

    def _on_RoomUpdate(self, msg: RoomUpdate, now: float) -> list[str]:
        # Only a snapshot (room_state) moves us into a room; updates refresh it.
        if self._other_room(msg.room.id):
            return []
        return self._set_room(msg.room, now)

    def _set_room(self, room: RoomInfo, now: float = 0.0) -> list[str]:
        old = self.room
        self.room = room
        lines: list[str] = []
        if old is None or old.id != room.id:
            self.match = None
            self.series, self.next_deal, self.secrets = None, None, {}
            self._set_series(room.series, now)
            where = f"joined room {room.name} ({room.id})"
            if room.invite_code:
                where += f", invite code {room.invite_code}"
            if room.deals > 1 or room.rated:
                where += f": {match_terms(room.pace, room.deals, room.rated)}"
            lines.append(where)
            return lines
        if room.series is not None:
            self._set_series(room.series, now)
        lines += self._rematch_lines(old, room)
        before = {s.player.id: s for s in old.players}
        after = {s.player.id: s for s in room.players}
        for pid, seat in after.items():
            was = before.get(pid)
            if was is None:
                lines.append(f"{seat.player.name} sits down (seat {seat.seat})")
            elif was.ready != seat.ready:
                lines.append(f"{seat.player.name} is {'ready' if seat.ready else 'not ready'}")
            elif was.connected != seat.connected:
                gone = "reconnected" if seat.connected else "disconnected"
                lines.append(f"{seat.player.name} {gone}")
        for pid, seat in before.items():
            if pid not in after:
                lines.append(f"{seat.player.name} left")
        return lines

    def _set_series(self, series: SeriesInfo | None, now: float) -> None:
        if series is None:
            return
        self.series = series
        if series.next_deal_ms is not None and not series.finished:
            self.next_deal = Clock(series.next_deal_ms, now)
        else:
            self.next_deal = None

    def _rematch_lines(self, old: RoomInfo, room: RoomInfo) -> list[str]:
        names = {s.player.id: s.player.name for s in room.players}
        me = self.me.id if self.me else None
        lines = []
        for pid in room.rematch:
            if pid not in old.rematch:
                who = "you" if pid == me else names.get(pid, "someone")
                lines.append(f"{who} {'want' if pid == me else 'wants'} a rematch")
        for pid in old.rematch:
            if pid not in room.rematch and room.status == RoomStatus.FINISHED:
                who = "you" if pid == me else names.get(pid, "someone")
                lines.append(f"{who} no longer {'want' if pid == me else 'wants'} a rematch")
        if room.server_commitment != old.server_commitment and room.rematch:
            lines.append(f"rematch: the next series commits to {room.server_commitment[:16]}...")
        return lines

    def _on_Left(self, msg: Left, now: float) -> list[str]:
        if self.room is not None and self.room.id == msg.room_id:
            name = self.room.name
            self._leave_room()
            return [f"left room {name}"]
        return []

    def _on_MatchStarted(self, msg: MatchStarted, now: float) -> list[str]:
        if self._other_room(msg.room_id):
            return []
        if self.match is not None and self.match.match_id == msg.match_id:
            return []
        if msg.deal == 1:
            # A new series (the first, or a rematch): a new chain of secrets.
            self.secrets, self.ratings = {}, None
        self.next_deal = None
        self.match = MatchView(
            match_id=msg.match_id,
            pace=msg.pace,
            seed_commitment=msg.seed_commitment,
            contributions=list(msg.contributions),
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
            server_commitment=msg.server_commitment,
            deal=msg.deal,
            best_of=msg.best_of,
            series_commitment=self.room.server_commitment if self.room else "",
        )
        if self.room is not None:
            self.room = self.room.model_copy(update={"status": RoomStatus.PLAYING, "rematch": []})
        clock = msg.card_clock_ms if msg.pace == Pace.LOCKSTEP else msg.deal_clock_ms
        per = "per card" if msg.pace == Pace.LOCKSTEP else "for the whole deal"
        which = f"deal {msg.deal} of {msg.best_of}: " if msg.best_of > 1 else ""
        return [
            f"{which}match {msg.match_id} started ({msg.pace.value}, {clock // 1000}s {per}); "
            f"deal commitment {msg.seed_commitment[:16]}..."
        ]

    def _on_CardDealt(self, msg: CardDealt, now: float) -> list[str]:
        match = self.match
        if match is None or self._other_room(msg.room_id):
            return []
        match.turn, match.card, match.legal = msg.turn, msg.card, list(msg.legal)
        match.received[msg.turn] = msg.card
        match.clock = Clock(msg.deadline_ms, now)
        return [
            f"card {msg.turn}/16: {msg.card}, {msg.deadline_ms // 1000}s left; "
            f"legal: {' '.join(msg.legal)}"
        ]

    def _on_Placed(self, msg: Placed, now: float) -> list[str]:
        match = self.match
        if match is None or self._other_room(msg.room_id):
            return []
        match.cells[parse_cell(msg.cell)] = msg.card
        match.received.setdefault(msg.turn, msg.card)
        if all(p.turn != msg.turn for p in match.placements):
            match.placements.append(
                PlacementOut(turn=msg.turn, cell=msg.cell, card=msg.card, auto=msg.auto)
            )
        if match.turn == msg.turn:
            match.turn, match.card, match.legal, match.clock = None, None, [], None
        how = " (out of time: placed for you)" if msg.auto else ""
        return [f"placed {msg.card} on {msg.cell}{how}"]

    def _on_Progress(self, msg: Progress, now: float) -> list[str]:
        if self.match is not None and not self._other_room(msg.room_id):
            self.match.progress = msg
        return []

    def _on_MatchResult(self, msg: MatchResult, now: float) -> list[str]:
        if self._other_room(msg.room_id):
            return []
        match = self.match
        if match is None or match.match_id != msg.match_id:
            match = MatchView(
                match_id=msg.match_id,
                pace=self.room.pace if self.room else Pace.LOCKSTEP,
                seed_commitment=msg.seed_commitment,
                contributions=[],
                card_clock_ms=0,
                deal_clock_ms=0,
            )
            self.match = match
        match.result = msg
        match.deal = msg.deal
        if msg.series is not None:
            match.best_of = msg.series.best_of
        match.turn, match.card, match.legal, match.clock = None, None, [], None
        series_commitment = match.series_commitment or (
            self.room.server_commitment if self.room else ""
        )
        tournament = self.tournament_for_room()
        match.verification = verify_result(
            msg,
            match.contributions,
            match.server_commitment or (series_commitment if msg.deal == 1 else None),
            match.received,
            # A tournament table's seats share the round's contribution, made from
            # every entrant's: checked against what the tournament published instead.
            self.contribution if tournament is None else None,
            self.my_seat(),
            deal_number=msg.deal,
            series_commitment=series_commitment or None,
            previous_secret=self.secrets.get(msg.deal - 1),
            chained=tournament is None,
        )
        if tournament is not None:
            extra = tournament_checks(tournament.info, match.contributions)
            match.verification = Verification(match.verification.checks + extra)
            info = tournament.info
            if self.my_seat() is not None:  # a player of the table, not a spectator
                self.table_deals.setdefault((info.id, info.round), []).append(
                    TableDeal(info.id, info.round, msg.deal, msg.match_id, msg.server_secret,
                              series_commitment)
                )  # fmt: skip
        self.secrets[msg.deal] = msg.server_secret
        self._set_series(msg.series, now)
        lines = result_lines(msg, match.verification, self.me)
        if tournament is not None:  # a result seen after its round's secret: check it now
            lines += self._verify_rounds(tournament.info)
        solo_table = tournament is not None and self.room is not None and self.room.seats == 1
        if self.series is not None and msg.series is not None and not solo_table:
            lines.append(series_text(self.series, self.me, self.next_in_ms(now)))
        return lines

    def next_in_ms(self, now: float) -> int | None:
        return self.next_deal.left_ms(now) if self.next_deal is not None else None

    def _on_QueueStatus(self, msg: QueueStatus, now: float) -> list[str]:
        terms = match_terms(msg.pace, msg.deals, True)
        if msg.state == "waiting":
            self.queue = Queued(msg.pace, msg.deals, msg.rating, now, self.bot_after_ms)
            rating = f", your rating {msg.rating}" if msg.rating is not None else ""
            return [f"quick play: waiting for an opponent ({terms}{rating})"]
        self.queue = None
        if msg.state == "matched":
            return [f"quick play: matched, room {msg.room_id}"]
        return ["quick play cancelled"]

    def _on_ChallengeUpdate(self, msg: ChallengeUpdate, now: float) -> list[str]:
        info = self.me
        challenge = msg.challenge
        incoming = info is not None and challenge.opponent.id == info.id
        view = ChallengeView(challenge, Clock(challenge.expires_ms, now), incoming)
        other = view.other.name
        if msg.state == "offered":
            self.challenges[challenge.id] = view
            secs = challenge.expires_ms // 1000
            if incoming:
                return [f"{other} challenges you: {view.terms()} (answer within {secs}s)"]
            return [f"you challenge {other}: {view.terms()} (waiting {secs}s for an answer)"]
        self.challenges.pop(challenge.id, None)
        if msg.state == "accepted":
            who = "you accept" if incoming else f"{other} accepts"
            return [f"{who} the challenge: room {msg.room_id}"]
        if msg.state == "declined":
            return [f"you decline {other}'s challenge" if incoming else f"{other} declines"]
        if msg.state == "cancelled":
            if incoming:
                return [f"{other} withdrew the challenge"]
            return [f"you withdrew your challenge to {other}"]
        if incoming:
            return [f"the challenge from {other} expired"]
        return [f"{other} did not answer: the challenge expired"]

    def _on_RatingsChanged(self, msg: RatingsChanged, now: float) -> list[str]:
        self.ratings = msg
        me = self.me.id if self.me else None
        lines = []
        for change in msg.changes:
            who = "your" if change.player.id == me else f"{change.player.name}'s"
            lines.append(f"{who} {msg.pace.value} {rating_text(change)}")
        return lines

    def _on_Leaderboard(self, msg: Leaderboard, now: float) -> list[str]:
        self.leaderboard = msg
        return []

    def _on_Tournaments(self, msg: Tournaments, now: float) -> list[str]:
        self.tournament_list = list(msg.tournaments)
        return []

    def _on_TournamentUpdate(self, msg: TournamentUpdate, now: float) -> list[str]:
        info = msg.tournament
        old = self.tournaments.get(info.id)
        view = TournamentView(info, now, dict(old.tables) if old else {})
        if info.round:
            view.tables[info.round] = list(info.tables)
        self.tournaments[info.id] = view
        for t in info.tables:
            if t.room_id is not None:
                self.table_rooms[t.room_id] = info.id
        if info.status in ("finished", "cancelled"):
            self.watching.discard(info.id)
        # Keep the list's line of this tournament as fresh as the push.
        self.tournament_list = [
            _summary_of(info) if t.id == info.id else t for t in self.tournament_list
        ]
        lines = self._tournament_lines(old.info if old else None, view, now)
        return lines + self._verify_rounds(info)

    def _verify_rounds(self, info: TournamentInfo) -> list[str]:
        """Rounds now over whose deals this player played: check them against the
        round's revealed secret, and say so."""
        lines: list[str] = []
        for r in info.history:
            deals = self.table_deals.get((info.id, r.number))
            if not deals or not r.server_secret:
                continue
            del self.table_deals[(info.id, r.number)]
            checks = table_round_checks(info, r.number, deals)
            match = self.match
            mine = match is not None and any(d.match_id == match.match_id for d in deals)
            if match is not None and mine and match.verification is not None:
                match.verification = Verification(match.verification.checks + checks)
            verified = Verification(checks)
            which = f"{info.name}, round {r.number}"
            if verified.ok:
                lines.append(f"{which}: your table's deals come from the round's revealed secret")
            else:
                failed = "; ".join(c.label for c in checks if not c.ok)
                lines.append(f"{which}: DEALS NOT VERIFIED: {failed}")
        return lines

    def _tournament_lines(
        self, old: TournamentInfo | None, view: TournamentView, now: float
    ) -> list[str]:
        info = view.info
        me = self.me.id if self.me else None
        name = info.name
        lines: list[str] = []
        if old is None:
            active = sum(1 for e in info.entrants if e.status == "active")
            line = (
                f"tournament {name} ({info.id}): {info.format.value}, {info.status}, "
                f"{active} entrant{'s' if active != 1 else ''}"
            )
            if info.invite_code:
                line += f", invite code {info.invite_code}"
            lines.append(line)
        before = {e.player.id: e.status for e in old.entrants} if old else {}
        mine_before = before.get(me or "")
        entry = view.entrant(me)
        if entry is not None and entry.status != mine_before:
            lines.append(
                {
                    "active": f"you are registered in {name}",
                    "withdrawn": f"you withdrew from {name}",
                    "removed": f"the host removed you from {name}",
                    "eliminated": f"you are out of {name}",
                }[entry.status]
            )
        if old is not None:
            new = [e for e in info.entrants if e.player.id not in before and e.player.id != me]
            if 0 < len(new) <= 3:
                names = ", ".join(e.player.name + (" [bot]" if e.player.bot else "") for e in new)
                lines.append(f"{names} registered in {name}")
            elif new:
                lines.append(f"{len(new)} new entrants in {name}")
            for e in info.entrants:
                was = before.get(e.player.id)
                if was == "active" and e.status in ("withdrawn", "removed") and e.player.id != me:
                    lines.append(f"{e.player.name} {e.status} from {name}")
        old_status = old.status if old else None
        began = old_status == "registering" and info.status in ("playing", "paused")
        if old is not None and began:
            lines.append(f"{name} has started")
        old_round = old.round if old else 0
        if info.round > old_round and info.status != "registering":
            line = f"{name}: round {info.round} of {info.rounds} begins"
            table = view.table_of(me)
            if table is not None and table.status == "bye":
                line += "; you have a bye"
            lines.append(line)
        current = info.history[-1] if info.history else None
        old_current = next(
            (r for r in (old.history if old else []) if current and r.number == current.number),
            None,
        )
        if (
            current is not None
            and current.status == "finished"
            and (old_current is None or old_current.status != "finished")
            and old is not None
        ):
            line = f"{name}: round {current.number} is over"
            mine = view.standing(me)
            if mine is not None:
                line += f"; you are #{mine.rank} of {len(info.standings)}"
            lines.append(line)
        if old is not None and info.status != old_status and not began:
            text = {
                "playing": f"{name} resumes",
                "paused": f"{name} is paused: no new round starts until the host resumes",
                "finished": f"{name} is over",
                "cancelled": f"{name} was cancelled: the standings so far are final",
            }.get(info.status)
            if text:
                lines.append(text)
        if info.status == "finished" and old_status != "finished" and info.standings:
            first = [s.player.name for s in info.standings if s.rank == 1]
            line = f"{name}: {' and '.join(first)} {'win' if len(first) > 1 else 'wins'}"
            mine = view.standing(me)
            if mine is not None:
                line += f"; you finished #{mine.rank} of {len(info.standings)}"
            lines.append(line)
        return lines

    def _on_RoomState(self, msg: RoomState, now: float) -> list[str]:
        lines = self._set_room(msg.room, now)
        if msg.match_id is None:
            self.match = None
            return lines
        if self.match is None or self.match.match_id != msg.match_id:
            self.match = MatchView(
                match_id=msg.match_id,
                pace=msg.room.pace,
                seed_commitment=msg.seed_commitment or "",
                contributions=list(msg.contributions),
                card_clock_ms=msg.room.card_clock_ms,
                deal_clock_ms=msg.room.deal_clock_ms,
                deal=series.deal if (series := msg.room.series) else 1,
                best_of=msg.room.deals,
            )
            # Once a series is over the room may already commit to the next one
            # (a rematch on offer): only a series under way vouches for its commitment.
            if series is None or not series.finished or msg.result is None:
                self.match.series_commitment = msg.room.server_commitment
                if self.match.deal == 1:
                    # Deal 1's commitment is the room's; a later one was announced before it.
                    self.match.server_commitment = msg.room.server_commitment
        match = self.match
        if msg.contributions:
            match.contributions = list(msg.contributions)
        if msg.seed_commitment:
            match.seed_commitment = msg.seed_commitment
        if msg.you is not None:
            you = msg.you
            match.cells = list(you.cells)
            match.placements = list(you.placements)
            for p in you.placements:
                match.received.setdefault(p.turn, p.card)
            match.turn, match.card, match.legal = you.turn, you.card, list(you.legal)
            if you.turn is not None and you.card is not None:
                match.received.setdefault(you.turn, you.card)
            match.clock = Clock(you.deadline_ms, now) if you.deadline_ms is not None else None
        if msg.progress is not None:
            match.progress = msg.progress
        if msg.result is not None and match.result is None:
            lines += self._on_MatchResult(msg.result, now)
        elif match.result is None and match.card is not None:
            note = (
                f"match in progress: card {match.turn}/16 is {match.card}; "
                f"legal: {' '.join(match.legal)}"
            )
            if note != self._in_progress_note:
                lines.append(note)
            self._in_progress_note = note
        return lines


def _summary_of(info: TournamentInfo) -> TournamentSummary:
    return TournamentSummary(
        id=info.id, name=info.name, format=info.format, status=info.status,
        visibility=info.visibility, pace=info.pace, rounds=info.rounds, best_of=info.best_of,
        round=info.round, entrants=sum(1 for e in info.entrants if e.status == "active"),
        max_players=info.max_players, host=info.host,
        starts_ms=info.next_round_ms if info.status == "registering" else None,
    )  # fmt: skip


def result_lines(
    msg: MatchResult, verification: Verification | None, me: PlayerInfo | None
) -> list[str]:
    lines = [f"starter: {msg.starter}"]
    for board in msg.boards:
        lines.append(_board_line(board, me))
    if verification is not None:
        lines.append(verification.summary)
    return lines


def _board_line(board: BoardResult, me: PlayerInfo | None) -> str:
    who = board.player.name + (" (you)" if me is not None and board.player.id == me.id else "")
    win = " WIN" if board.score.total >= WIN_SCORE else ""
    return f"#{board.rank} {who}: {board.score.total} points{win}"


# ---------------------------------------------------------------------------
# Text for the series, ratings and challenges, shared by every front end


def match_terms(
    pace: Pace,
    deals: int,
    rated: bool,
    card_clock_ms: int | None = None,
    deal_clock_ms: int | None = None,
) -> str:
    """``"lockstep, best of 3, rated, 30s per card"``."""
    bits = [pace.value, f"best of {deals}" if deals > 1 else "one deal"]
    bits.append("rated" if rated else "casual")
    if pace == Pace.LOCKSTEP and card_clock_ms:
        bits.append(f"{card_clock_ms // 1000}s per card")
    elif pace == Pace.RACE and deal_clock_ms:
        bits.append(f"{deal_clock_ms // 1000}s per deal")
    return ", ".join(bits)


def _score(a: SeriesStanding, b: SeriesStanding) -> str:
    return f"{a.deals_won}\u2013{b.deals_won}"


def series_text(series: SeriesInfo, me: PlayerInfo | None, next_in_ms: int | None = None) -> str:
    """Where a series stands, for people: "deal 2 of 3 — you lead 1–0, next deal in 5s"."""
    standings = list(series.standings)  # ordered by the server: the leader first
    mine = next((s for s in standings if me is not None and s.player.id == me.id), None)
    others = [s for s in standings if s is not mine]
    forfeits = [s.player.name for s in standings if s.forfeited]
    if series.finished:
        head = f"best of {series.best_of}, {series.deal} deal{'s' if series.deal != 1 else ''}"
        winner = series.winner
        if mine is not None and others:
            rival = others[0]
            if winner is not None and winner.id == mine.player.id:
                score = f"you won the series {_score(mine, rival)}"
            elif winner is None:
                score = f"the series is drawn {_score(mine, rival)}"
            else:
                score = f"{winner.name} won the series {_score(rival, mine)}"
        elif winner is not None:
            score = f"{winner.name} won the series"
        else:
            score = "the series is drawn"
        if forfeits:
            score += f" ({', '.join(forfeits)} forfeited)"
        return f"{head} \u2014 {score}"
    head = f"deal {series.deal} of {series.best_of}"
    if mine is not None and others:
        rival = others[0]
        if mine.deals_won > rival.deals_won:
            score = f"you lead {_score(mine, rival)}"
        elif mine.deals_won < rival.deals_won:
            score = f"{rival.player.name} leads {_score(rival, mine)}"
        else:
            score = f"level {_score(mine, rival)}"
    elif len(standings) >= 2:
        a, b = standings[0], standings[1]
        score = f"{a.player.name} {a.deals_won}, {b.player.name} {b.deals_won}"
    else:
        score = ", ".join(f"{s.player.name} {s.deals_won}" for s in standings) or "no deals yet"
    text = f"{head} \u2014 {score}"
    if next_in_ms is not None:
        seconds = max(0, (next_in_ms + 999) // 1000)
        text += f", next deal in {seconds}s" if seconds else ", next deal starting"
    return text


def rating_text(change: RatingChange) -> str:
    """``"rating 1500 → 1662 (+162), provisional"``."""
    delta = change.after - change.before
    text = f"rating {change.before} \u2192 {change.after} ({delta:+d})"
    if change.provisional:
        text += ", provisional"
    return text
