"""The deal being played: dealing it, placing its cards, the bot seats' moves.

:meth:`Dealer.deal_next` deals the series' next deal to every seat, on the
seed of its secret and the seats' contributions, and stores its start. A card
placed (a player's, already checked, or one the server places: a bot seat's, an
absent seat's, one a clock overtook) goes on its board and is recorded
(:meth:`Dealer.put_card`); :meth:`Dealer.advance` then works out
what follows: the next card (lockstep: once everyone has placed; a race: to
the one who placed), a ``progress``, now or held back
(:data:`PROGRESS_DELAY_MS`), or the end of the deal. Bot seats play at once,
or are asked for their moves (:class:`~server.room.state.BotTurn`) when the
server thinks for them elsewhere; :meth:`server.room.machine.Room.bot_move` takes the
move back.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from engine.deal import commitment, deal, room_seed
from engine.grid import cell_name
from protocol.deals import MatchStarted, PlacedWhy
from protocol.fields import Pace
from protocol.prepared import placed_message
from server.events import CardPlaced, MatchBegan, SeriesBegan, player_record
from server.fallback import CellChooser, fallback_cell
from server.room import views
from server.room.addressing import Addresser
from server.room.base import RoomBase
from server.room.outbound import Outbound
from server.room.phases import Phase
from server.room.results import Results
from server.room.state import TURNS, Board, BotTurn, DealInPlay, Placement

# Why the server placed a person's card when it was the person's own doing (its clock ran
# out, or it was away), as against the deal being ended for everyone (others left, a
# tournament's round clock).
IDLE_REASONS: frozenset[str | None] = frozenset({"card_clock", "deal_clock", "away"})

# A placement that leaves the turn open is announced in a ``progress`` this long
# after it, together with every other placement made meanwhile; a placement that
# completes a turn or the match is announced at once (docs/protocol.md, progress).
# As long as a room update's interval: at 100 ms, players thinking about a second
# each made about three ``progress`` frames per member and turn, at 250 ms about
# two (docs/benchmarks.md, fourth optimisation round).
PROGRESS_DELAY_MS = 250


class Dealer:
    """A room's deals in play: dealt, placed, advanced; a bot seat's moves asked or
    made. It acts on the room's state (``room``), sends through the room's
    addresser (``out``) and hands a deal every board has finished to ``results``."""

    def __init__(self, room: RoomBase, out: Addresser, results: Results) -> None:
        self.room = room
        self.out = out
        self.results = results

    def end_deal_now(self, now_ms: int, why: PlacedWhy) -> list[Outbound]:
        """End the deal in play at once: every card still unplaced, on every board,
        is placed automatically (shown as such in the result; ``why`` says to the
        player whose card it was), and it is scored."""
        m = self.room.match
        if self.room.phase != Phase.PLAYING or m is None:
            return []
        outs: list[Outbound] = []
        for seat in self.room.seats:
            while m.boards[seat.player.id].placed < TURNS:
                outs += self.auto_place(seat.player.id, now_ms, why)
        return outs + self.advance(now_ms)

    def put_card(
        self,
        player_id: str,
        cell: int,
        now_ms: int,
        *,
        auto: bool,
        why: PlacedWhy | None = None,
        ref: str | None = None,
    ) -> list[Outbound]:
        """Place the waiting card of ``player_id`` on a cell already checked legal
        (``auto``: by the server, for the reason ``why``)."""
        m = self.room.match
        assert m is not None
        board = m.boards[player_id]
        turn = board.placed + 1
        card = m.deal.cards[turn - 1]
        elapsed = max(0, now_ms - board.card_at)
        board.grid.place(cell, card)
        board.placements.append(Placement(turn, cell, card, elapsed, auto))
        board.card_at = now_ms
        name, text = cell_name(cell), str(card)
        self.room.note(CardPlaced(m.id, player_id, turn, name, text, elapsed, auto, now_ms))
        if not auto and self.room.series.started == 1:
            self.room.series.moved.add(player_id)
        seat = self.room.seat_of(player_id)
        if seat is None or not seat.receives or turn > board.dealt:
            # Not a member, or the deal clock ran out and the server is filling the
            # board with cards this player never saw: the result will show them.
            return []
        placed = placed_message(self.room.id, turn, name, text, auto, ref, why if auto else None)
        return [self.out.address([player_id], placed)]

    def auto_place(self, player_id: str, now_ms: int, why: PlacedWhy | None) -> list[Outbound]:
        """Place the waiting card of ``player_id`` for it: a server bot's by its bot (its
        own move), any other by the fallback rule, marked ``auto`` for the reason ``why``."""
        m = self.room.match
        assert m is not None
        board = m.boards[player_id]
        card = m.deal.cards[board.placed]
        seat = self.room.seat_of(player_id)
        chooser: CellChooser = fallback_cell
        if seat is not None and seat.bot is not None and not self.room.think_elsewhere:
            chooser = seat.bot
        cell = chooser(board.grid.copy(), card)
        if board.grid.why_illegal(cell) is not None:
            cell = fallback_cell(board.grid.copy(), card)
        # A bot thinking elsewhere that the clock overtook is placed for, like a person.
        auto = seat is None or seat.bot is None or self.room.think_elsewhere
        if seat is not None and seat.bot is None and why in IDLE_REASONS:
            board.clocked += 1
        return self.put_card(player_id, cell, now_ms, auto=auto, why=why)

    def bots_play(self, now_ms: int) -> list[Outbound]:
        """Bot seats holding a card: place it now, or ask for the move (think_elsewhere)."""
        outs: list[Outbound] = []
        m = self.room.match
        # Lockstep plays an absent seat's card as it is dealt to everyone. A race
        # fills an absent seat's board only once everyone else has finished: its
        # later cards would show cards nobody else has reached yet.
        race = self.room.settings.pace == Pace.RACE
        others_done = m is not None and all(
            m.boards[s.player.id].placed == TURNS for s in self.room.seats if not s.autopilot
        )
        person = any(
            s.bot is None and not s.player.bot and not s.autopilot for s in self.room.seats
        )
        for seat in self.room.seats:
            if seat.autopilot and m is not None:
                if race and not others_done:
                    continue
                while views.waiting_turn(self.room, seat.player.id) is not None:
                    outs += self.auto_place(seat.player.id, now_ms, "away")
                continue
            if seat.bot is None or m is None:
                continue
            if not self.room.think_elsewhere:  # the bot's own move, not placed for it: no why
                while views.waiting_turn(self.room, seat.player.id) is not None:
                    outs += self.auto_place(seat.player.id, now_ms, None)
                continue
            turn = views.waiting_turn(self.room, seat.player.id)
            if turn is not None and seat.asked < turn:
                seat.asked = turn
                board = m.boards[seat.player.id]
                self.room.ask_bot(
                    BotTurn(
                        room_id=self.room.id,
                        player_id=seat.player.id,
                        strategy=seat.strategy,
                        seed=seat.bot_seed,
                        turn=turn,
                        placements=tuple((p.cell, str(p.card)) for p in board.placements),
                        card=str(m.deal.cards[turn - 1]),
                        person=person,
                    )
                )
        return outs

    def deal_next(self, now_ms: int, *, ref: str | None = None, actor: str = "") -> list[Outbound]:
        """Deal the series' next deal to every seat."""
        assert self.room.seats, "a room always seats its creator"
        series = self.room.series
        series.next_at = None
        series.started += 1
        number = series.started
        if number == 1:
            series.players = tuple(s.player.id for s in self.room.seats)
            match_id = series.id
        else:
            match_id = self.room.ids.match_id() if self.room.ids else f"{series.id}.{number}"
        secret = series.secret(number)
        contributions = tuple(s.contribution or s.player.id for s in self.room.seats)
        seed = room_seed(secret, contributions)
        m = DealInPlay(
            id=match_id,
            seed=seed,
            deal=deal(seed),
            contributions=contributions,
            started_at=now_ms,
            boards={s.player.id: Board(card_at=now_ms) for s in self.room.seats},
            turn=1,
            turn_started=now_ms,
        )
        self.room.match = m
        for seat in self.room.seats:
            seat.asked = 0  # a new deal: bot seats are asked for their moves from turn 1 again
        self.room.go(Phase.PLAYING)
        s = self.room.settings
        if number == 1:
            self.room.note(
                SeriesBegan(
                    series_id=series.id,
                    room_id=self.room.id,
                    best_of=series.best_of,
                    rated=s.rated,
                    pace=s.pace,
                    origin=s.origin,
                    players=tuple(player_record(seat.player) for seat in self.room.seats),
                    at_ms=now_ms,
                    root_secret=series.root,
                    secret_scheme=series.scheme.value,
                    seat_bots=self._bot_seats(),
                )
            )
        self.room.note(
            MatchBegan(
                match_id=m.id,
                room_id=self.room.id,
                pace=s.pace,
                players=tuple(
                    (i, player_record(seat.player), contributions[i])
                    for i, seat in enumerate(self.room.seats)
                ),
                seed=seed,
                server_secret=secret,
                seed_commitment=commitment(seed),
                server_commitment=commitment(secret),
                card_clock_ms=s.card_clock_ms,
                deal_clock_ms=s.deal_clock_ms,
                at_ms=now_ms,
                series_id=series.id,
                deal=number,
                embargo=series.embargo or "",
            )
        )
        started = MatchStarted(
            room_id=self.room.id,
            match_id=m.id,
            pace=s.pace,
            seed_commitment=commitment(seed),
            server_commitment=commitment(secret),
            contributions=list(contributions),
            card_clock_ms=s.card_clock_ms,
            deal_clock_ms=s.deal_clock_ms,
            deal=number,
            best_of=series.best_of,
        )
        outs = self.out.room_update(
            now_ms, ref=ref, actor=actor, at_once=True
        ) + self.out.to_members(started)
        for seat in self.room.seats:
            outs += self.out.card_for(seat.player.id, now_ms)
        outs += self.bots_play(now_ms)
        return outs + self.advance(now_ms)

    def advance(self, now_ms: int, placed_by: str | None = None) -> list[Outbound]:
        """After placements: deal the next card, finish, or report progress.

        Lockstep deals the next card to everyone once everyone has placed; race
        deals it to ``placed_by`` alone, who has just placed the previous one.
        Progress goes out at once when a turn was completed (or the match began,
        or the clock placed cards); a single player's placement that leaves the
        turn open only makes one due :data:`PROGRESS_DELAY_MS` later, which
        :meth:`tick` sends, so a turn's placements share their announcements.
        """
        m = self.room.match
        assert m is not None
        outs: list[Outbound] = []
        completed = False
        if self.room.settings.pace == Pace.LOCKSTEP:
            while all(b.placed >= m.turn for b in m.boards.values()):
                if m.turn == TURNS:
                    return outs + self.results.finish_deal(now_ms)
                completed = True
                m.turn += 1
                m.turn_started = now_ms
                for board in m.boards.values():
                    board.card_at = now_ms
                for seat in self.room.seats:
                    outs += self.out.card_for(seat.player.id, now_ms)
                outs += self.bots_play(now_ms)
        else:
            if placed_by is not None:
                outs += self.out.card_for(placed_by, now_ms)
            outs += self.bots_play(now_ms)
            if all(b.placed == TURNS for b in m.boards.values()):
                return outs + self.results.finish_deal(now_ms)
        if placed_by is not None and not completed:
            if self.room.progress_due is None:
                self.room.progress_due = now_ms + PROGRESS_DELAY_MS
            return outs
        return outs + self.out.progress_now(now_ms)

    def _bot_seats(self) -> tuple[tuple[str, str], ...]:
        """Each seat's server bot as (level, seed), ('', '') for everyone else; () if none."""
        if all(s.bot is None or not s.strategy for s in self.room.seats):
            return ()
        return tuple(
            (s.strategy, s.bot_seed) if s.bot is not None else ("", "") for s in self.room.seats
        )
