"""The client-side model: everything the player sees, updated from server messages.

Both front ends (the Textual app and ``--plain``) render this model and nothing
else. :meth:`ClientModel.apply` takes one typed server message and returns the
readable lines worth telling the player; it does no I/O and never reads the
clock itself (callers pass ``now``, a monotonic time in seconds), so tests can
drive it with plain data.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from engine import WIN_SCORE, Card, Grid, commitment, deal, parse_cell, room_seed
from engine.errors import EngineError
from protocol.messages import (
    BoardResult,
    CardDealt,
    ErrorMessage,
    Left,
    MatchResult,
    MatchStarted,
    Pace,
    Placed,
    PlacementOut,
    PlayerInfo,
    Pong,
    Progress,
    RoomInfo,
    Rooms,
    RoomState,
    RoomStatus,
    RoomSummary,
    RoomUpdate,
    ServerMessage,
    Welcome,
)


class View(StrEnum):
    """Which main screen the model calls for."""

    SIGN_IN = "sign_in"
    LOBBY = "lobby"
    ROOM = "room"
    GAME = "game"
    RESULTS = "results"


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


def verify_result(
    result: MatchResult,
    contributions: Sequence[str],
    server_commitment: str | None,
    received: dict[int, str],
    my_contribution: str | None = None,
    my_seat: int | None = None,
) -> Verification:
    """Check a revealed deal; every check is listed, passed or not."""
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
                    hashlib.sha256(result.server_secret.encode()).hexdigest() == server_commitment,
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

    @property
    def placed_count(self) -> int:
        return sum(1 for c in self.cells if c is not None)

    def grid(self) -> Grid:
        return Grid.replay(
            (parse_cell(p.cell), Card.parse(p.card)) for p in sorted(self.placements, key=_turn)
        )


def _turn(p: PlacementOut) -> int:
    return p.turn


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
        self.revision = 0  # bumped on every change, so views can skip redundant work

    # -- derived -------------------------------------------------------------

    @property
    def view(self) -> View:
        if self.me is None:
            return View.SIGN_IN
        if self.room is None:
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

    # -- updates -------------------------------------------------------------

    def dismiss_results(self) -> None:
        if self.match is not None and self.match.result is not None:
            self.match.dismissed = True
            self.revision += 1

    def forget_room(self) -> None:
        """Back to the lobby without waiting for the server (a finished room)."""
        self.room, self.match = None, None
        self.revision += 1

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
            return [f"connection lost: {note}" if note else "connection lost: reconnecting"]
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
            self.room, self.match = None, None
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
        return self._set_room(msg.room)

    def _set_room(self, room: RoomInfo) -> list[str]:
        old = self.room
        self.room = room
        lines: list[str] = []
        if old is None or old.id != room.id:
            self.match = None
            where = f"joined room {room.name} ({room.id})"
            if room.invite_code:
                where += f", invite code {room.invite_code}"
            lines.append(where)
            return lines
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

    def _on_Left(self, msg: Left, now: float) -> list[str]:
        if self.room is not None and self.room.id == msg.room_id:
            name = self.room.name
            self.room = None
            self.match = None
            return [f"left room {name}"]
        return []

    def _on_MatchStarted(self, msg: MatchStarted, now: float) -> list[str]:
        if self._other_room(msg.room_id):
            return []
        if self.match is not None and self.match.match_id == msg.match_id:
            return []
        self.match = MatchView(
            match_id=msg.match_id,
            pace=msg.pace,
            seed_commitment=msg.seed_commitment,
            contributions=list(msg.contributions),
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
            server_commitment=msg.server_commitment,
        )
        if self.room is not None:
            self.room = self.room.model_copy(update={"status": RoomStatus.PLAYING})
        clock = msg.card_clock_ms if msg.pace == Pace.LOCKSTEP else msg.deal_clock_ms
        per = "per card" if msg.pace == Pace.LOCKSTEP else "for the whole deal"
        return [
            f"match {msg.match_id} started ({msg.pace.value}, {clock // 1000}s {per}); "
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
        match.turn, match.card, match.legal, match.clock = None, None, [], None
        match.verification = verify_result(
            msg,
            match.contributions,
            match.server_commitment or (self.room.server_commitment if self.room else None),
            match.received,
            self.contribution,
            self.my_seat(),
        )
        return result_lines(msg, match.verification, self.me)

    def _on_RoomState(self, msg: RoomState, now: float) -> list[str]:
        lines = self._set_room(msg.room)
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
                server_commitment=msg.room.server_commitment,
            )
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
            lines.append(
                f"match in progress: card {match.turn}/16 is {match.card}; "
                f"legal: {' '.join(match.legal)}"
            )
        return lines


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
