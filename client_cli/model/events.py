"""What changed, told as sentences: a room's seats, a rematch, a tournament.

Each function compares the server's previous snapshot with the new one, as the
client model keeps them, and returns the lines worth telling the player. Pure;
no I/O.
"""

from __future__ import annotations

from client_cli.model.views import entrant_count, entrant_in, standing_in, table_in
from client_cli.tournaments import format_title, winners_text
from protocol.rooms import RoomInfo, RoomStatus
from protocol.tournaments import TournamentInfo


def seat_lines(old: RoomInfo, room: RoomInfo) -> list[str]:
    """Who sat down, got ready, dropped, came back or left."""
    lines: list[str] = []
    before = {s.player.id: s for s in old.players}
    after = {s.player.id: s for s in room.players}
    forfeited = _forfeited(room) - _forfeited(old)
    for pid, seat in after.items():
        was = before.get(pid)
        if was is None:
            # Seats are 0-based on the wire, 1-based for people (as the room's table).
            lines.append(f"{seat.player.name} sits down (seat {seat.seat + 1})")
        elif was.ready != seat.ready:
            lines.append(f"{seat.player.name} is {'ready' if seat.ready else 'not ready'}")
        elif was.connected != seat.connected:
            if seat.connected:
                lines.append(f"{seat.player.name} reconnected")
            elif pid in forfeited:
                # Left during the match: the server plays the seat out, the series is lost.
                what = "the series" if room.deals > 1 else "the match"
                lines.append(f"{seat.player.name} left: {seat.player.name} forfeits {what}")
            elif room.status == RoomStatus.FINISHED:
                # After the match a seat empties when its player goes back to the lobby.
                lines.append(f"{seat.player.name} left the room")
            else:
                lines.append(f"{seat.player.name} disconnected")
    for pid, seat in before.items():
        if pid not in after:
            lines.append(f"{seat.player.name} left")
    return lines


def _forfeited(room: RoomInfo) -> set[str]:
    series = room.series
    return {s.player.id for s in series.standings if s.forfeited} if series else set()


def rematch_lines(old: RoomInfo, room: RoomInfo, me: str | None) -> list[str]:
    """Who wants a rematch now, or no longer."""
    names = {s.player.id: s.player.name for s in room.players}
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


def tournament_lines(old: TournamentInfo | None, info: TournamentInfo, me: str | None) -> list[str]:
    """What changed in a tournament, from this player's side, as sentences."""
    name = info.name
    lines: list[str] = []
    if old is None:
        active = entrant_count(info)
        line = (
            f"tournament {name} ({info.id}): {format_title(info)}, {info.status}, "
            f"{active} entrant{'s' if active != 1 else ''}"
        )
        if info.invite_code:
            line += f", invite code {info.invite_code}"
        lines.append(line)
    before = {e.player.id: e.status for e in old.entrants} if old else {}
    mine_before = before.get(me or "")
    entry = entrant_in(info, me)
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
        table = table_in(info, me)
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
        mine = standing_in(info, me)
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
    if info.status == "finished" and old_status != "finished" and info.winners:
        line = f"{name}: {winners_text([w.name for w in info.winners])}"
        mine = standing_in(info, me)
        if mine is not None:
            line += f"; you finished #{mine.rank} of {len(info.standings)}"
        lines.append(line)
    return lines
