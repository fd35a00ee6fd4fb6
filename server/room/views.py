"""The wire views of a room: pure functions of its state, changing nothing.

:func:`info` (the room as its members see it), :func:`summary` (a line of the
lobby's list), :func:`series_info`, :func:`progress` and :func:`view_for` (the
full snapshot one player may see: its own board, nobody else's, the result only
if :mod:`server.visibility` lets it see it). Which turn a player holds and how
long its clock has left are read here too, for the views and the machine alike.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.deal import commitment
from engine.grid import cell_name
from protocol.deals import DealtToAll, MatchResult, Progress, SeriesInfo, SeriesStanding, YourBoard
from protocol.fields import Pace, PlayerInfo
from protocol.rooms import RoomInfo, RoomOrigin, RoomState, RoomStatus, RoomSummary, SeatInfo
from server import visibility
from server.room.phases import Phase
from server.room.state import TURNS, DealInPlay, RoomSettings, Seat
from server.series import Series


class RoomData(Protocol):
    """What the views read of a room (:class:`server.room.machine.Room` has it)."""

    id: str
    settings: RoomSettings
    creator: PlayerInfo
    invite_code: str | None
    phase: Phase
    seats: list[Seat]
    spectators: dict[str, PlayerInfo]
    match: DealInPlay | None
    series: Series
    next_series: Series | None  # committed to once a series ends: a rematch's
    server_commitment: str


def status(room: RoomData) -> RoomStatus:
    """The wire's status: between two deals of a series is still "playing"."""
    if room.phase == Phase.BETWEEN:
        return RoomStatus.PLAYING
    return RoomStatus(room.phase.value)


def waiting_turn(room: RoomData, player_id: str) -> int | None:
    """The turn whose card ``player_id`` holds and has not placed, if any."""
    m = room.match
    if m is None or room.phase != Phase.PLAYING or player_id not in m.boards:
        return None
    placed = m.boards[player_id].placed
    if room.settings.pace == Pace.LOCKSTEP:
        return m.turn if placed < m.turn else None
    return placed + 1 if placed < TURNS else None


def deadline_left(room: RoomData, now_ms: int) -> int:
    """Milliseconds left on the clock that runs now: the card's (lockstep) or the deal's."""
    m = room.match
    assert m is not None
    if room.settings.pace == Pace.LOCKSTEP:
        end = m.turn_started + room.settings.card_clock_ms
    else:
        end = m.started_at + room.settings.deal_clock_ms
    return max(0, end - now_ms)


def sees_result(room: RoomData, player_id: str) -> bool:
    """May ``player_id`` see the result of the deal that is over (server.visibility)?"""
    m = room.match
    series = room.series
    seated = m is not None and player_id in m.boards
    return visibility.sees_result(seated, series.embargo, series.embargo_lifted)


def series_info(
    room: RoomData, now_ms: int | None = None, results: bool = True
) -> SeriesInfo | None:
    """The series as members see it; None before its first deal. Without ``results``
    (a member who may not see the deal's result: :func:`sees_result`), its standings
    are empty and its winner null: they are the deals' scores."""
    series = room.series
    if not series.started:
        return None
    names = {s.player.id: s.player for s in room.seats}
    winner = series.winner()
    next_ms = None
    if series.next_at is not None and now_ms is not None:
        next_ms = max(0, series.next_at - now_ms)
    return SeriesInfo(
        best_of=series.best_of,
        deal=series.started,
        standings=[
            SeriesStanding(
                player=names[st.player_id],
                deals_won=st.deals_won,
                points=st.points,
                time_used_ms=st.time_used_ms,
                forfeited=st.forfeited,
            )
            for st in series.standings()
            if st.player_id in names and results
        ],
        finished=series.finished,
        aborted=series.aborted,
        winner=names.get(winner) if winner is not None and results else None,
        next_deal_ms=next_ms,
    )


def info(room: RoomData, now_ms: int, results: bool = True) -> RoomInfo:
    """The room as its members see it; without ``results``, its series' standings
    held back (:func:`series_info`)."""
    s = room.settings
    return RoomInfo(
        id=room.id,
        name=s.name,
        visibility=s.visibility,
        invite_code=room.invite_code,
        pace=s.pace,
        seats=s.seats,
        status=status(room),
        card_clock_ms=s.card_clock_ms,
        deal_clock_ms=s.deal_clock_ms,
        creator=room.creator,
        players=[
            SeatInfo(
                seat=i,
                player=seat.player,
                ready=seat.ready,
                connected=seat.connected and seat.present,
            )
            for i, seat in enumerate(room.seats)
        ],
        spectators=len(room.spectators),
        server_commitment=room.server_commitment,
        deals=s.best_of,
        rated=s.rated,
        series=series_info(room, now_ms, results),
        rematch=[seat.player.id for seat in room.seats if seat.rematch],
        origin=s.origin,
        can_rematch=can_rematch(room),
    )


def can_rematch(room: RoomData) -> bool:
    """May a rematch be offered now: the series is over, the room committed to the
    next one, it is not a tournament table nor a daily attempt, and every person
    seated is still in the room (one who left cannot accept it)."""
    return (
        room.phase == Phase.FINISHED
        and room.next_series is not None
        and room.settings.origin not in (RoomOrigin.TOURNAMENT, RoomOrigin.DAILY)
        and all(seat.present or seat.bot is not None for seat in room.seats)
    )


def summary(room: RoomData) -> RoomSummary:
    s = room.settings
    return RoomSummary(
        id=room.id,
        name=s.name,
        visibility=s.visibility,
        pace=s.pace,
        seats=s.seats,
        taken=len(room.seats),
        status=status(room),
        card_clock_ms=s.card_clock_ms,
        deal_clock_ms=s.deal_clock_ms,
        creator=room.creator,
    )


def summary_key(room: RoomData) -> tuple[Any, ...]:
    """All that :func:`summary` depends on (keep the two together): equal keys, equal
    summaries, so a list kept elsewhere is written again only when the key changed."""
    return (room.id, room.phase, len(room.seats), room.settings, room.creator)


def common_card(room: RoomData) -> tuple[int, str] | None:
    """The latest card every seated player holds, with its turn, while the deal is
    played (server.visibility.common_turn): what its spectators may see of it."""
    m = room.match
    if m is None or room.phase != Phase.PLAYING:
        return None
    played_for, sent = [], []
    for seat in room.seats:
        board = m.boards.get(seat.player.id)
        if board is None:
            continue
        if seat.receives:
            sent.append(board.dealt)
        else:
            played_for.append(max(board.dealt, len(board.placements)))
    turn = visibility.common_turn(
        room.settings.pace == Pace.LOCKSTEP, m.turn, played_for, room.series.embargo, sent
    )
    return None if turn is None else (turn, str(m.deal.cards[turn - 1]))


def progress_fields(room: RoomData, now_ms: int) -> dict[str, Any]:
    """The fields of a ``progress``: who has placed how many cards, who is connected,
    and the card everyone holds (:func:`common_card`)."""
    m = room.match
    assert m is not None
    if room.settings.pace == Pace.LOCKSTEP:
        turn = m.turn
    else:
        turn = max(min(b.placed + 1, TURNS) for b in m.boards.values())
    return {
        "room_id": room.id,
        "turn": turn,
        "placed": {pid: len(b.placements) for pid, b in m.boards.items()},
        "connected": {s.player.id: s.connected and s.present for s in room.seats},
        "deadline_ms": deadline_left(room, now_ms) if room.phase == Phase.PLAYING else None,
        "dealt": common_card(room),
    }


def progress(room: RoomData, now_ms: int) -> Progress:
    fields = progress_fields(room, now_ms)
    dealt = fields.pop("dealt")
    shown = None if dealt is None else DealtToAll(turn=dealt[0], card=dealt[1])
    return Progress(**fields, dealt=shown)


def view_for(room: RoomData, player_id: str, now_ms: int, ref: str | None = None) -> RoomState:
    """The full snapshot ``player_id`` may see: its own board, nobody else's."""
    m = room.match
    you: YourBoard | None = None
    shown: Progress | None = None
    if m is not None:
        shown = progress(room, now_ms)
        board = m.boards.get(player_id)
        if board is not None:
            turn = waiting_turn(room, player_id)
            you = YourBoard(
                cells=board.cells(),
                placements=[p.out() for p in board.placements],
                turn=turn,
                card=str(m.deal.cards[turn - 1]) if turn is not None else None,
                legal=[cell_name(c) for c in board.grid.legal_cells()] if turn else [],
                deadline_ms=deadline_left(room, now_ms) if turn is not None else None,
                time_used_ms=board.time_used_ms,
            )
    return RoomState(
        room=info(room, now_ms, sees_result(room, player_id)),
        match_id=m.id if m else None,
        seed_commitment=commitment(m.seed) if m else None,
        contributions=list(m.contributions) if m else [],
        you=you,
        progress=shown,
        result=(
            MatchResult.model_validate_json(m.result.text)
            if m and m.result and sees_result(room, player_id)
            else None
        ),
        ref=ref,
    )
