"""The one place a room's messages are addressed, and the messages every part sends.

Hidden information is filtered here and only here. :meth:`Addresser.address`
builds every :class:`Outbound` a room sends: it refuses to address a private
message (a dealt card, a placement, a snapshot with a board) to anyone but its
owner, a card not yet due to that owner, a placement of a card its owner was
never sent, the match result before the deal has finished, and the result to
anyone :mod:`server.visibility` does not let see it (a spectator of a
tournament table before its round is over), and a card shown to every member
(``progress.dealt``) that not every seated player already holds. Snapshots come only from
:meth:`~server.room.base.RoomBase.view_for`, which puts in the recipient's own
board and nothing of anyone else's, and the result only for those who may see
it.

On top of that choke point, the messages the other parts of a room send: one to
every member (:meth:`Addresser.to_members`), the room update, held back to
one an interval (:data:`ROOM_UPDATE_INTERVAL_MS`), a player's snapshot, the
``progress`` and the card a player must place now.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from pydantic import BaseModel

from engine.grid import cell_name, legal_mask, mask_cells
from protocol.deals import CardDealt, MatchResult, Placed, Progress
from protocol.prepared import Prepared, card_message, legal_json, progress_message
from protocol.rooms import Left, RoomState, RoomUpdate
from server.room import views
from server.room.base import RoomBase
from server.room.outbound import Outbound
from server.room.phases import Phase

# Members hear of a change of seats, spectators, readiness or connections at once
# if they heard of none in this long, else when it is up, with the room as it is
# then: however many joins and leaves come in, a member gets at most a few
# ``room`` a second. The start and end of a deal are told at once (protocol.md, room).
ROOM_UPDATE_INTERVAL_MS = 250


# Messages that carry one player's hidden state: they may go to that player only.
PRIVATE_MESSAGES = (CardDealt, Placed, RoomState)


@functools.lru_cache(maxsize=4096)
def _legal_names(mask: int) -> tuple[list[str], str | None]:
    """The names of the cells in ``mask`` in reading order, and their JSON (shared: read only).

    Bounded: boards reach tens of thousands of different legal sets, and a
    cache of every one of them grew the server by megabytes over hours.
    """
    names = [cell_name(c) for c in mask_cells(mask)]
    return names, legal_json(names)


class Addresser:
    """The one place a room's messages are addressed (:meth:`address`), and the
    messages every part of the room sends. It reads the room's state (``room``) to
    decide who may see what; it writes only what it tells: which card each player
    was shown, and when the members next get an update or a ``progress``."""

    def __init__(self, room: RoomBase) -> None:
        self.room = room

    def address(self, to: Iterable[str], message: BaseModel | Prepared) -> Outbound:
        """``message`` addressed to ``to``, once checked that they may see it
        (AssertionError if not: a bug of the room, never a player's doing)."""
        recipients = tuple(to)
        if isinstance(message, Prepared):  # its JSON already written
            kind = message.kind
            if issubclass(kind, PRIVATE_MESSAGES):  # placed or card
                if len(recipients) != 1:
                    raise AssertionError(f"{kind.__name__} may only go to its owner")
                if kind is CardDealt:
                    self._check_card_due(recipients[0], message.fields["turn"])
                if kind is Placed:
                    self._check_card_seen(recipients[0], message.fields["turn"])
            if kind is MatchResult:  # the result, kept as its text
                self._check_result_shown(recipients)
            if kind is Progress and message.fields.get("dealt") is not None:
                shown = message.fields["dealt"]
                self._check_card_common(shown["turn"], shown["card"])
            return Outbound(recipients, message)
        if isinstance(message, PRIVATE_MESSAGES):
            if len(recipients) != 1:
                raise AssertionError(f"{message.type} may only go to its owner")
            if isinstance(message, CardDealt):
                self._check_card_due(recipients[0], message.turn)
            if isinstance(message, Placed):
                self._check_card_seen(recipients[0], message.turn)
        if isinstance(message, MatchResult):
            self._check_result_shown(recipients)
        for progress in (message, getattr(message, "progress", None)):
            if isinstance(progress, Progress) and progress.dealt is not None:
                self._check_card_common(progress.dealt.turn, progress.dealt.card)
        shown = message.result if isinstance(message, RoomState) else None
        if shown is not None and not views.sees_result(self.room, recipients[0]):
            raise AssertionError("the result is under its round's embargo")
        room = message.room if isinstance(message, (RoomState, RoomUpdate)) else None
        series = room.series if room is not None else None
        if isinstance(message, Left):
            series = message.series
        standings = series.standings if series is not None else []
        if standings and not all(views.sees_result(self.room, p) for p in recipients):
            raise AssertionError("the series' standings are under its round's embargo")
        return Outbound(recipients, message)

    def _check_result_shown(self, recipients: tuple[str, ...]) -> None:
        if (
            self.room.match is None
            or self.room.match.result is None
            or self.room.phase == Phase.PLAYING
        ):
            raise AssertionError("the result may only be sent once the deal is over")
        if not all(views.sees_result(self.room, p) for p in recipients):
            raise AssertionError("the result is under its round's embargo")

    def _check_card_common(self, turn: int, card: str) -> None:
        """A card shown to every member must be one every seated player holds."""
        common = views.common_card(self.room)
        if common is None or turn > common[0] or self.room.match is None:
            raise AssertionError("a card shown to the room that not every player holds")
        for seat in self.room.seats:  # and, on its own, every player sent cards was sent it
            board = self.room.match.boards.get(seat.player.id)
            if seat.receives and board is not None and board.dealt < turn:
                raise AssertionError("a card shown to the room that a player was never sent")
        if card != str(self.room.match.deal.cards[turn - 1]):
            raise AssertionError("a card shown to the room that is not that turn's")

    def _check_card_due(self, player_id: str, turn: int) -> None:
        m = self.room.match
        if m is None or player_id not in m.boards:
            raise AssertionError("a card for a player not in the match")
        if turn != views.waiting_turn(self.room, player_id):
            raise AssertionError("a card not yet due to that player")

    def _check_card_seen(self, player_id: str, turn: int) -> None:
        m = self.room.match
        if m is None or player_id not in m.boards or turn > m.boards[player_id].dealt:
            raise AssertionError("a placement of a card that player was never sent")

    def to_members(
        self,
        message: BaseModel | Prepared,
        *,
        ref: str | None = None,
        actor: str = "",
        members: list[str] | None = None,
    ) -> list[Outbound]:
        """One message to every member (or to ``members``, some of them); the acting
        member's copy echoes its ``ref``."""
        members = self.room.members() if members is None else members
        if ref is None or actor not in members:
            return [self.address(members, message)] if members else []
        if isinstance(message, Prepared):
            message = message.model()
        others = [m for m in members if m != actor]
        outs = [self.address([actor], message.model_copy(update={"ref": ref}))]
        if others:
            outs.append(self.address(others, message))
        return outs

    def room_update(
        self, now_ms: int, *, ref: str | None = None, actor: str = "", at_once: bool = False
    ) -> list[Outbound]:
        """Tell the members the room changed (ROOM_UPDATE_INTERVAL_MS), as of ``now_ms``.

        ``at_once`` (a deal starts or ends) tells everyone at once. Any other change
        goes out at once if the last update is an interval old, else it makes one
        due when the interval is up (:meth:`tick` sends it, with the room as it is
        then); the member whose command changed it (``actor``) is answered at once.
        """
        room = self.room
        sent = room.room_sent_at
        if at_once or sent is None or now_ms - sent >= ROOM_UPDATE_INTERVAL_MS:
            room.room_due = None
            room.room_sent_at = now_ms
            return self._room_to_members(now_ms, ref, actor)
        if room.room_due is None:
            room.room_due = sent + ROOM_UPDATE_INTERVAL_MS
        if actor and room.is_member(actor):
            shown = views.sees_result(room, actor)
            return [self.address([actor], RoomUpdate(room=room.info(now_ms, shown), ref=ref))]
        return []

    def _room_to_members(self, now_ms: int, ref: str | None, actor: str) -> list[Outbound]:
        """The room to every member: those who may not see the deal's result (a
        spectator under its round's embargo) get it without the series' standings."""
        by_sight: dict[bool, list[str]] = {}
        for member in self.room.members():
            by_sight.setdefault(views.sees_result(self.room, member), []).append(member)
        outs: list[Outbound] = []
        for shown, group in by_sight.items():
            update = RoomUpdate(room=self.room.info(now_ms, shown))
            outs += self.to_members(update, ref=ref, actor=actor, members=group)
        return outs

    def send_state(self, player_id: str, now_ms: int, ref: str | None = None) -> Outbound:
        """Send ``player_id`` its snapshot (:meth:`view_for`). A command, not a query:
        the card the snapshot shows now counts as dealt to that player."""
        state = self.room.view_for(player_id, now_ms, ref)
        if state.you is not None and state.you.turn is not None:
            self._mark_dealt(player_id, state.you.turn)
        return self.address([player_id], state)

    def _mark_dealt(self, player_id: str, turn: int) -> None:
        """The card of ``turn`` has been shown to ``player_id``."""
        assert self.room.match is not None
        board = self.room.match.boards[player_id]
        board.dealt = max(board.dealt, turn)

    def progress_now(self, now_ms: int) -> list[Outbound]:
        """A ``progress`` to every member now; any delayed one is no longer due."""
        self.room.progress_due = None
        return self.to_members(progress_message(**views.progress_fields(self.room, now_ms)))

    def card_for(self, player_id: str, now_ms: int) -> list[Outbound]:
        """The card ``player_id`` must place now, to that player alone."""
        m = self.room.match
        seat = self.room.seat_of(player_id)
        turn = views.waiting_turn(self.room, player_id)
        if m is None or seat is None or not seat.receives or turn is None:
            return []
        self._mark_dealt(player_id, turn)
        board = m.boards[player_id]
        legal, legal_text = _legal_names(legal_mask(board.grid.filled_mask))
        message = card_message(
            self.room.id,
            turn,
            str(m.deal.cards[turn - 1]),
            legal,
            views.deadline_left(self.room, now_ms),
            legal_text,
        )
        return [self.address([player_id], message)]
