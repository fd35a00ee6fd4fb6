"""The client-side model: everything the player sees, updated from server messages.

Both front ends (the Textual app and ``--plain``) render this model and nothing
else. :meth:`ClientModel.apply` takes one typed server message and returns the
readable lines worth telling the player; it does no I/O and never reads the
clock itself (callers pass ``now``, a monotonic time in seconds), so tests can
drive it with plain data.
"""

from __future__ import annotations

import secrets

from client_cli.flood import is_drop_notice
from client_cli.model.checks import table_round_checks, tournament_checks, verify_result
from client_cli.model.events import rematch_lines, seat_lines, tournament_lines
from client_cli.model.text import (
    deal_heading,
    left_series_lines,
    match_terms,
    placed_for_you,
    rating_text,
    result_lines,
    series_text,
)
from client_cli.model.views import (
    ChallengeView,
    Clock,
    Connection,
    MatchView,
    PlayerProgress,
    Queued,
    TournamentView,
    View,
    entrant_count,
)
from engine import parse_cell
from engine.errors import EngineError
from engine.verification import TableDeal, Verification
from protocol.connection import ErrorMessage, Welcome
from protocol.daily import Daily
from protocol.deals import (
    CardDealt,
    MatchResult,
    MatchStarted,
    Placed,
    PlacementOut,
    Progress,
    SeriesInfo,
)
from protocol.fields import Pace, PlayerInfo
from protocol.head_to_head import (
    Bots,
    ChallengeUpdate,
    Leaderboard,
    QueueStatus,
    RatingChange,
    RatingsChanged,
)
from protocol.rooms import Left, RoomInfo, Rooms, RoomState, RoomStatus, RoomSummary, RoomUpdate
from protocol.tournaments import (
    FormatOffer,
    TournamentEntrant,
    TournamentInfo,
    Tournaments,
    TournamentSummary,
    TournamentUpdate,
)
from protocol.wire import ServerMessage


class ClientModel:
    """The client's whole picture of the server, the room and the match."""

    def __init__(self, server_url: str = "") -> None:
        self.server_url = server_url
        self.connection = Connection.OFFLINE
        self.connection_note = ""
        self.me: PlayerInfo | None = None
        # The tournament formats the server hosts, as its welcome offers them.
        self.formats: list[FormatOffer] = []
        self.rooms: list[RoomSummary] = []
        self.room: RoomInfo | None = None
        self.match: MatchView | None = None
        self.contribution: str | None = None  # what this client sent last for a seed
        # The room it went to: the first room this player is seated in after it was sent
        # (a room it created, joined, was matched or challenged into, or rematched in).
        # A deal elsewhere (the daily deal, a tournament's table, a room watched) took
        # none of this client's, and is not checked against it.
        self.contribution_room: str | None = None
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
        self.bots: Bots | None = None  # the server's bot levels and their ratings
        self.dailies: dict[str, Daily] = {}  # the daily deal, by day, as last told
        # Each day's commitment as this client was first told it (a schedule lists the
        # days ahead): a day revealed later is checked against it, not against itself.
        self.daily_commitments: dict[str, str] = {}
        self.tournament_list: list[TournamentSummary] = []  # the public ones, as last listed
        self.tournaments: dict[str, TournamentView] = {}  # every one the server sent us
        self.tournament_id: str | None = None  # the one the tournament screen shows
        self.watching: set[str] = set()  # tournaments this player spectates
        self.table_rooms: dict[str, str] = {}  # tournament table room id -> tournament id
        # Deals played at tournament tables whose round's secret is not yet revealed.
        self.table_deals: dict[tuple[str, int], list[TableDeal]] = {}

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
        return View.RESULTS

    @property
    def is_creator(self) -> bool:
        return bool(self.me and self.room and self.room.creator.id == self.me.id)

    def new_contribution(self) -> str:
        """A fresh contribution for a seed, to send; it belongs to the next room this
        player is seated in."""
        self.contribution = secrets.token_hex(16)
        self.contribution_room = None
        return self.contribution

    def my_contribution(self, room_id: str) -> str | None:
        """What this client contributed to ``room_id``'s deals, if anything."""
        return self.contribution if self.contribution_room == room_id else None

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

    def progress_rows(self, now: float | None = None) -> list[PlayerProgress]:
        """Each seated player: how far along, and whether placed, thinking or gone; in
        a race (given ``now``) the deal clock left to those still placing, and the time
        used by those done."""
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
            clock_ms = used_ms = None
            if match is not None and match.pace == Pace.RACE and now is not None:
                used_ms = match.used_ms.get(pid)
                if placed < 16 and match.result is None:
                    clock = match.clock if me and match.clock is not None else match.deal_clock
                    clock_ms = clock.left_ms(now) if clock is not None else None
            rows.append(PlayerProgress(seat.player, placed, state, me, clock_ms, used_ms))
        return rows

    def leaving_forfeits(self) -> str | None:
        """What leaving the room now forfeits (seated, a match or series under way):
        ``"the match"``, ``"the series"`` or ``"your table in the tournament"``; None
        when leaving costs nothing."""
        room, match = self.room, self.match
        if room is None or self.my_seat() is None or room.status == RoomStatus.FINISHED:
            return None
        if not (match is not None and match.result is None) and self.series_over():
            return None
        if room.origin == "tournament":
            return "your table in the tournament"
        return "the series" if room.deals > 1 else "the match"

    def spectating(self) -> bool:
        """In a room without a seat: watching its match."""
        return self.room is not None and self.me is not None and self.my_seat() is None

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

    def sending(self) -> None:
        """A placement of the card in hand was sent: no second one until it is answered
        (placed, refused, or the match state sent again)."""
        if self.match is not None:
            self.match.sent = self.match.turn

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
        if match.sent == match.turn:
            return f"your {match.card} is on its way: waiting for the server"
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

    def forget_room(self) -> None:
        """Back to the lobby without waiting for the server (a finished room)."""
        self._leave_room()

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
        if state == Connection.ONLINE and note:
            # Online, and something to tell about the line (a move to the room's
            # node, frames dropped): said each time, not kept as the state's note.
            self.connection, self.connection_note = state, ""
            return [note]
        changed = state != self.connection or note != self.connection_note
        was = self.connection
        if state == was and state in (Connection.RECONNECTING, Connection.CONNECTING) and not note:
            return []  # a new attempt: keep saying why and when
        self.connection, self.connection_note = state, note
        if not changed:
            return []
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
        if state == Connection.CONNECTING and note:
            return [f"cannot connect yet: {note}"]
        if state == Connection.ONLINE:
            return ["connected"]
        if state == Connection.OFFLINE and note:
            return [note]
        return []

    def apply(self, msg: ServerMessage, now: float) -> list[str]:
        """Fold one server message into the model; return lines to tell the player."""
        match msg:
            case Welcome():
                return self._on_welcome(msg, now)
            case ErrorMessage():
                return self._on_error_message(msg, now)
            case Rooms():
                return self._on_rooms(msg, now)
            case RoomUpdate():
                return self._on_room_update(msg, now)
            case RoomState():
                return self._on_room_state(msg, now)
            case Left():
                return self._on_left(msg, now)
            case MatchStarted():
                return self._on_match_started(msg, now)
            case CardDealt():
                return self._on_card_dealt(msg, now)
            case Placed():
                return self._on_placed(msg, now)
            case Progress():
                return self._on_progress(msg, now)
            case MatchResult():
                return self._on_match_result(msg, now)
            case QueueStatus():
                return self._on_queue_status(msg, now)
            case ChallengeUpdate():
                return self._on_challenge_update(msg, now)
            case RatingsChanged():
                return self._on_ratings_changed(msg, now)
            case Leaderboard():
                self.leaderboard = msg
            case Bots():
                self.bots = msg
            case Daily():
                self.dailies[msg.day] = msg
                for entry in msg.schedule:
                    self.daily_commitments.setdefault(entry.day, entry.commitment)
                if msg.commitment is not None:
                    self.daily_commitments.setdefault(msg.day, msg.commitment)
            case Tournaments():
                self.tournament_list = list(msg.tournaments)
            case TournamentUpdate():
                return self._on_tournament_update(msg, now)
        return []  # pong, and any message that changes nothing here

    def _on_welcome(self, msg: Welcome, now: float) -> list[str]:
        # Signed in again while online, as the same player: the end of a move to the
        # room's server node, which the session tells in a line of its own.
        moved = self.connection == Connection.ONLINE and self.me == msg.player
        self.me = msg.player
        self.formats = list(msg.formats)
        self.connection = Connection.ONLINE
        return [] if moved else [f"signed in as {msg.player.name} on {msg.server}"]

    def _on_error_message(self, msg: ErrorMessage, now: float) -> list[str]:
        if is_drop_notice(msg):
            # Frames dropped, a placement among them perhaps: it is not sent again
            # until the room's state, asked for after the back-off, says it is still
            # waiting (the session says so and asks: client_cli/flood.py).
            return []
        lines = [f"refused: {msg.reason}"]
        if self.match is not None:
            self.match.sent = None  # a placement refused (or dropped) may be sent again
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

    def _on_rooms(self, msg: Rooms, now: float) -> list[str]:
        self.rooms = list(msg.rooms)
        return []

    def _on_room_update(self, msg: RoomUpdate, now: float) -> list[str]:
        # Only a snapshot (room_state) moves us into a room; updates refresh it.
        if self._other_room(msg.room.id):
            return []
        return self._set_room(msg.room, now)

    def _set_room(self, room: RoomInfo, now: float = 0.0) -> list[str]:
        old = self.room
        self.room = room
        pending = self.contribution is not None and self.contribution_room is None
        if pending and self.my_seat() is not None:
            self.contribution_room = room.id  # the room the last one was sent for
        if old is None or old.id != room.id:
            self.match = None
            self.series, self.next_deal, self.secrets = None, None, {}
            self._set_series(room.series, now)
            where = f"joined room {room.name} ({room.id})"
            if room.invite_code:
                where += f", invite code {room.invite_code}"
            if room.deals > 1 or room.rated:
                where += f": {match_terms(room.pace, room.deals, room.rated)}"
            return [where]
        if room.series is not None:
            self._set_series(room.series, now)
        me = self.me.id if self.me else None
        return rematch_lines(old, room, me) + seat_lines(old, room)

    def _set_series(self, series: SeriesInfo | None, now: float) -> None:
        if series is None:
            return
        self.series = series
        if series.next_deal_ms is not None and not series.finished:
            self.next_deal = Clock(series.next_deal_ms, now)
        else:
            self.next_deal = None

    def _on_left(self, msg: Left, now: float) -> list[str]:
        if self.room is not None and self.room.id == msg.room_id:
            name = self.room.name
            self._leave_room()
            return [f"left room {name}", *left_series_lines(msg.series, self.me)]
        return []

    def _on_match_started(self, msg: MatchStarted, now: float) -> list[str]:
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
        heading = deal_heading(msg.deal, msg.best_of, self.series, self.me)
        which = f"{heading}: " if heading else ""
        return [
            f"{which}match {msg.match_id} started ({msg.pace.value}, {clock // 1000}s {per}); "
            f"deal commitment {msg.seed_commitment[:16]}..."
        ]

    def _on_card_dealt(self, msg: CardDealt, now: float) -> list[str]:
        match = self.match
        if match is None or self._other_room(msg.room_id):
            return []
        match.turn, match.card, match.legal = msg.turn, msg.card, list(msg.legal)
        match.received[msg.turn] = msg.card
        match.clock = Clock(msg.deadline_ms, now)
        if match.pace == Pace.RACE:
            match.deal_clock = match.clock  # a race: one clock for the deal, everyone's
        return [
            f"card {msg.turn}/16: {msg.card}, {msg.deadline_ms // 1000}s left; "
            f"legal: {' '.join(msg.legal)}"
        ]

    def _on_placed(self, msg: Placed, now: float) -> list[str]:
        match = self.match
        if match is None or self._other_room(msg.room_id):
            return []
        match.cells[parse_cell(msg.cell)] = msg.card
        match.received.setdefault(msg.turn, msg.card)
        if all(p.turn != msg.turn for p in match.placements):
            match.placements.append(
                PlacementOut(turn=msg.turn, cell=msg.cell, card=msg.card, auto=msg.auto)
            )
        if match.pace == Pace.RACE and match.placed_count == 16 and self.me is not None:
            left = match.clock.left_ms(now) if match.clock is not None else 0
            match.used_ms.setdefault(self.me.id, max(0, match.deal_clock_ms - left))
        if match.turn == msg.turn:
            match.turn, match.card, match.legal, match.clock = None, None, [], None
        how = f" ({placed_for_you(msg)})" if msg.auto else ""
        return [f"placed {msg.card} on {msg.cell}{how}"]

    def _on_progress(self, msg: Progress, now: float) -> list[str]:
        match = self.match
        if match is None or self._other_room(msg.room_id):
            return []
        match.progress = msg
        if match.pace == Pace.RACE and msg.deadline_ms is not None:
            match.deal_clock = Clock(msg.deadline_ms, now)
            for pid, placed in msg.placed.items():
                if placed >= 16:  # seen full now: it finished within the last ~300 ms
                    match.used_ms.setdefault(pid, max(0, match.deal_clock_ms - msg.deadline_ms))
        return []

    def _on_match_result(self, msg: MatchResult, now: float) -> list[str]:
        if self._other_room(msg.room_id):
            return []
        match = self.match
        unannounced = match is None or match.match_id != msg.match_id
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
            self.my_contribution(msg.room_id) if tournament is None else None,
            self.my_seat(),
            deal_number=msg.deal,
            series_commitment=series_commitment or None,
            previous_secret=self.secrets.get(msg.deal - 1),
            chained=tournament is None,
            # The commitment match_started (or a snapshot) showed before the result.
            seed_commitment=None if unannounced else match.seed_commitment or None,
        )
        if tournament is not None:
            extra = tournament_checks(tournament.info, match.contributions)
            match.verification = match.verification.extended(extra)
            info = tournament.info
            if self.my_seat() is not None:  # a player of the table, not a spectator
                self.table_deals.setdefault((info.id, info.round), []).append(
                    TableDeal(info.id, info.round, msg.deal, msg.match_id, msg.server_secret,
                              series_commitment)
                )  # fmt: skip
        self.secrets[msg.deal] = msg.server_secret
        self._set_series(msg.series, now)
        solo_table = tournament is not None and self.room is not None and self.room.seats == 1
        lines = result_lines(msg, match.verification, self.me, match.pace, ranked=not solo_table)
        if tournament is not None:  # a result seen after its round's secret: check it now
            lines += self._verify_rounds(tournament.info)
        if self.series is not None and msg.series is not None and not solo_table:
            lines.append(series_text(self.series, self.me, self.next_in_ms(now)))
        return lines

    def next_in_ms(self, now: float) -> int | None:
        return self.next_deal.left_ms(now) if self.next_deal is not None else None

    def _on_queue_status(self, msg: QueueStatus, now: float) -> list[str]:
        terms = match_terms(msg.pace, msg.deals, True)
        if msg.state == "waiting":
            self.queue = Queued(msg.pace, msg.deals, msg.rating, now, self.bot_after_ms)
            rating = f", your rating {msg.rating}" if msg.rating is not None else ""
            return [f"quick play: waiting for an opponent ({terms}{rating})"]
        self.queue = None
        if msg.state == "matched":
            return [f"quick play: matched, room {msg.room_id}"]
        return ["quick play cancelled"]

    def _on_challenge_update(self, msg: ChallengeUpdate, now: float) -> list[str]:
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

    def _on_ratings_changed(self, msg: RatingsChanged, now: float) -> list[str]:
        self.ratings = msg
        me = self.me.id if self.me else None
        lines = []
        for change in msg.changes:
            who = "your" if change.player.id == me else f"{change.player.name}'s"
            lines.append(f"{who} {msg.pace.value} {rating_text(change)}")
        return lines

    def _on_tournament_update(self, msg: TournamentUpdate, now: float) -> list[str]:
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
        me = self.me.id if self.me else None
        return tournament_lines(old.info if old else None, info, me) + self._verify_rounds(info)

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
                match.verification = match.verification.extended(checks)
            verified = Verification(checks)
            which = f"{info.name}, round {r.number}"
            if verified.ok:
                lines.append(f"{which}: your table's deals come from the round's revealed secret")
            else:
                failed = "; ".join(c.label for c in checks if not c.ok)
                lines.append(f"{which}: DEALS NOT VERIFIED: {failed}")
        return lines

    def _on_room_state(self, msg: RoomState, now: float) -> list[str]:
        lines = self._set_room(msg.room, now)
        if self.match is not None:
            self.match.sent = None  # the state as it stands: what it waits for is sendable
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
            lines += self._on_match_result(msg.result, now)
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
        round=info.round, entrants=entrant_count(info),
        max_players=info.max_players, host=info.host,
        starts_ms=info.next_round_ms if info.status == "registering" else None,
    )  # fmt: skip
