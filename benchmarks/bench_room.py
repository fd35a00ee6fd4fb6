"""In-process cost of one placement: the room state machine alone, no sockets, no database.

    python -m benchmarks.bench_room [--deals 300] [--seats 4] [--pace lockstep|race] [--repeat 5]

Four players (``--seats``) sit in one room and play ``--deals`` deals of 16 cards
back to back, each placing the first legal cell of the card it was sent; every
``place`` goes through :meth:`server.room.Room.handle` as the lobby calls it, and
the room's storage events are taken after each command, as the lobby does. What is
timed is the whole command: checks, the placement, the next card or the result,
and every outgoing message's JSON (``Outbound.text``, which the hub writes to the
sockets). Printed: microseconds per placement (median of ``--repeat`` runs, and
the fastest), and placements per second at one core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from protocol.deals import Place
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.rooms import JoinRoom, Ready
from server.room import Room, RoomSettings

SECRET = "b" * 64


def _players(seats: int) -> list[PlayerInfo]:
    return [PlayerInfo(id=f"id-p{i}", name=f"p{i}") for i in range(seats)]


def _cards_of(outs: Sequence[object]) -> dict[str, tuple[int, str]]:
    """(turn, first legal cell) of each ``card`` in ``outs``, by recipient."""
    cards: dict[str, tuple[int, str]] = {}
    for out in outs:
        message = out.message  # type: ignore[attr-defined]
        if message.type == "card":
            cards[out.to[0]] = (message.turn, message.legal[0])  # type: ignore[attr-defined]
    return cards


def play(deals: int, seats: int, pace: Pace) -> tuple[int, float]:
    """(placements, seconds spent in Room.handle for them and their messages' JSON)."""
    players = _players(seats)
    settings = RoomSettings(name="bench", visibility=Visibility.PUBLIC, seats=seats, pace=pace)
    spent = 0.0
    placements = 0
    now = 0
    for number in range(deals):
        room = Room(
            f"room{number}",
            settings,
            players[0],
            now_ms=now,
            server_secret=SECRET,
            match_id=f"match{number}",
        )
        for p in players[1:]:
            room.handle(p, JoinRoom(room_id=room.id), now)
        outs: list[object] = []
        for p in players:
            outs += room.handle(p, Ready(room_id=room.id), now).messages
        waiting = _cards_of(outs)
        while waiting:
            now += 5
            pid, (turn, cell) = next(iter(waiting.items()))
            del waiting[pid]
            player = next(p for p in players if p.id == pid)
            start = time.perf_counter()
            result = room.handle(player, Place(room_id=room.id, turn=turn, cell=cell), now)
            for out in result.messages:  # its events are in result.events
                out.text()
            spent += time.perf_counter() - start
            placements += 1
            waiting.update(_cards_of(result.messages))
    return placements, spent


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_room", description=__doc__)
    p.add_argument("--deals", type=int, default=300, help="deals per run (300)")
    p.add_argument("--seats", type=int, default=4, help="players in the room (4)")
    p.add_argument("--pace", choices=("lockstep", "race"), default="lockstep")
    p.add_argument("--repeat", type=int, default=5, help="runs; the median is printed (5)")
    args = p.parse_args(argv)
    if not (1 <= args.deals <= 100_000 and 1 <= args.seats <= 8 and 1 <= args.repeat <= 50):
        p.error("--deals 1..100000, --seats 1..8, --repeat 1..50")
    per_placement: list[float] = []
    for _ in range(args.repeat):
        placements, spent = play(args.deals, args.seats, Pace(args.pace))
        per_placement.append(spent / placements * 1e6)
    median = statistics.median(per_placement)
    print(
        f"{args.pace}, {args.seats} seats, {args.deals} deals x {args.repeat} runs: "
        f"{median:.1f} µs per placement (median; fastest {min(per_placement):.1f}), "
        f"{1e6 / median:,.0f} placements/s at one core"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
