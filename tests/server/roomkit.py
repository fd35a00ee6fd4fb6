"""Helpers that drive a :class:`server.room.Room` or the lobby directly, no sockets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from protocol.deals import CardDealt, MatchResult, Place
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.rooms import JoinRoom, Ready
from server.events import Event
from server.fallback import first_legal_cell
from server.ids import IdSource
from server.lobby import Lobby
from server.room import BotFactory, BotTurn, Outbound, Room, RoomResult, RoomSettings

SECRET = "s" * 64


def player(name: str, *, guest: bool = False) -> PlayerInfo:
    return PlayerInfo(id=f"id-{name}", name=name, guest=guest)


ALICE, BOB, CAROL, DAVE = (player(n) for n in ("alice", "bob", "carol", "dave"))
SPECTATOR = player("sam")


class FixedIds(IdSource):
    def __init__(self) -> None:
        self.n = 0

    def _next(self, kind: str) -> str:
        self.n += 1
        return f"{kind}{self.n}"

    def room_id(self) -> str:
        return self._next("room")

    def match_id(self) -> str:
        return self._next("match")

    def invite_code(self) -> str:
        return self._next("code")

    def server_secret(self) -> str:
        return self._next("secret") * 8


def bots(strategy: str, seed: str):  # type: ignore[no-untyped-def]
    if strategy == "fallback":
        return first_legal_cell
    raise KeyError(strategy)


def make_room(
    seats: int = 2,
    *,
    pace: Pace = Pace.LOCKSTEP,
    card_clock_ms: int = 10_000,
    deal_clock_ms: int = 60_000,
    visibility: Visibility = Visibility.PUBLIC,
    creator: PlayerInfo = ALICE,
    grace_ms: int = 5_000,
    now_ms: int = 0,
    think_elsewhere: bool = False,
    strategies: BotFactory | None = None,
) -> Room:
    settings = RoomSettings(
        name="test room",
        visibility=visibility,
        seats=seats,
        pace=pace,
        card_clock_ms=card_clock_ms,
        deal_clock_ms=deal_clock_ms,
    )
    return Room(
        "room1",
        settings,
        creator,
        now_ms=now_ms,
        server_secret=SECRET,
        match_id="match1",
        invite_code="code1",
        contribution="alice's share",
        grace_ms=grace_ms,
        bots=strategies or bots,
        think_elsewhere=think_elsewhere,
    )


@dataclass
class Mailbox:
    """Everything each player received, in order."""

    inbox: dict[str, list[BaseModel]] = field(default_factory=dict)
    # What the room steps added here decided besides their messages, in order.
    events: list[Event] = field(default_factory=list)
    bot_turns: list[BotTurn] = field(default_factory=list)

    def add(self, result: RoomResult | list[Outbound]) -> list[Outbound]:
        """A room step's result (its events and bots' turns kept here), or messages."""
        if isinstance(result, RoomResult):
            self.events += result.events
            self.bot_turns += result.bot_turns
            result = result.messages
        for out in result:
            for pid in out.to:
                self.inbox.setdefault(pid, []).append(out.message)
        return result

    @classmethod
    def opening(cls, room: Room) -> Mailbox:
        """A mailbox for ``room`` just opened: its opening is the first event kept, as
        the lobby stores it (``Lobby.open_room``)."""
        return cls(events=[room.opened()])

    def take_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    def take_bot_turns(self) -> list[BotTurn]:
        turns, self.bot_turns = self.bot_turns, []
        return turns

    def of(self, who: PlayerInfo, kind: type[BaseModel] | None = None) -> list[BaseModel]:
        got = self.inbox.get(who.id, [])
        return [m for m in got if kind is None or isinstance(m, kind)]

    def last_card(self, who: PlayerInfo) -> CardDealt:
        cards = self.of(who, CardDealt)
        assert cards, f"{who.name} has no card"
        card = cards[-1]
        assert isinstance(card, CardDealt)
        return card

    def result(self, who: PlayerInfo) -> MatchResult:
        results = self.of(who, MatchResult)
        assert len(results) == 1
        result = results[0]
        assert isinstance(result, MatchResult)
        return result


def events_of(lobby: Lobby, *steps: Callable[[], list[Outbound]]) -> list[Event]:
    """Run each of ``steps`` as the server runs a lobby step (``Lobby.run``): the
    events they decided, in order."""
    return [event for step in steps for event in lobby.run(step).events]


def seat_and_start(room: Room, box: Mailbox, *others: PlayerInfo, now_ms: int = 0) -> None:
    for p in others:
        box.add(room.handle(p, JoinRoom(room_id=room.id, contribution=f"{p.name}'s share"), now_ms))
    for p in (room.creator, *others):
        box.add(room.handle(p, Ready(room_id=room.id), now_ms))


def place(room: Room, box: Mailbox, who: PlayerInfo, now_ms: int, cell: str | None = None) -> None:
    card = box.last_card(who)
    box.add(
        room.handle(who, Place(room_id=room.id, turn=card.turn, cell=cell or card.legal[0]), now_ms)
    )


def answer_bots(room: Room, box: Mailbox, now_ms: int) -> int:
    """The synchronous stand-in for the server's bot pool: answer every bot turn asked for."""
    from server.bots import think

    answered = 0
    while turns := box.take_bot_turns():
        for turn in turns:
            box.add(room.bot_move(turn.player_id, turn.turn, think(turn), now_ms))
            answered += 1
    return answered
