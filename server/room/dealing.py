"""The deal being played: dealing it, placing its cards, the bot seats' moves.

:meth:`DealingRoom.deal_next` deals the series' next deal to every seat, on the
seed of its secret and the seats' contributions, and stores its start. A card
placed (a player's, already checked, or one the server places: a bot seat's, an
absent seat's, one a clock overtook) goes on its board and is recorded
(:meth:`DealingRoom.put_card`); :meth:`DealingRoom.advance` then works out
what follows: the next card (lockstep: once everyone has placed; a race: to
the one who placed), a ``progress``, now or held back
(:data:`PROGRESS_DELAY_MS`), or the end of the deal. Bot seats play at once,
or are asked for their moves (:class:`~server.room.state.BotTurn`) when the
server thinks for them elsewhere; :meth:`DealingRoom.bot_move` takes the move
back.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from engine.deal import commitment, deal, room_seed
from engine.grid import cell_name
from protocol.deals import MatchStarted, Place, PlacedWhy
from protocol.fields import Pace
from protocol.prepared import placed_message
from server import errors
from server.events import CardPlaced, MatchBegan, SeriesBegan, player_record
from server.fallback import CellChooser, fallback_cell
from server.room import phases, views
from server.room.outbound import Outbound
from server.room.phases import Phase
from server.room.result import RoomResult
from server.room.results import ResultsRoom
from server.room.state import TURNS, Board, BotTurn, DealInPlay, Placement
from server.stepping import step

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


class DealingRoom(ResultsRoom):
    """A room that deals and plays its deals."""

    @step(RoomResult)
    def resume(self, now_ms: int) -> list[Outbound]:
        """After :func:`server.room.restore.restore`: deal on, ask the bots, finish a
        deal already complete."""
        self.now = now_ms
        if self.phase != Phase.PLAYING:
            return []
        return self.bots_play(now_ms) + self.advance(now_ms)

    @step(RoomResult)
    def time_up(self, now_ms: int) -> list[Outbound]:
        """A clock above the room's ran out (a tournament's round clock): every card
        still unplaced is placed automatically, as when a race's deal clock runs
        out, and the series ends with this deal."""
        self.now = now_ms
        self.last_deal = True
        if self.phase == Phase.BETWEEN:
            return self.end_series(now_ms)
        return self.end_deal_now(now_ms, "round_clock")

    def end_deal_now(self, now_ms: int, why: PlacedWhy) -> list[Outbound]:
        """End the deal in play at once: every card still unplaced, on every board,
        is placed automatically (shown as such in the result; ``why`` says to the
        player whose card it was), and it is scored."""
        m = self.match
        if self.phase != Phase.PLAYING or m is None:
            return []
        outs: list[Outbound] = []
        for seat in self.seats:
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
        m = self.match
        assert m is not None
        board = m.boards[player_id]
        turn = board.placed + 1
        card = m.deal.cards[turn - 1]
        elapsed = max(0, now_ms - board.card_at)
        board.grid.place(cell, card)
        board.placements.append(Placement(turn, cell, card, elapsed, auto))
        board.card_at = now_ms
        name, text = cell_name(cell), str(card)
        self.note(CardPlaced(m.id, player_id, turn, name, text, elapsed, auto, now_ms))
        if not auto and self.series.started == 1:
            self.series.moved.add(player_id)
        seat = self.seat_of(player_id)
        if seat is None or not seat.receives or turn > board.dealt:
            # Not a member, or the deal clock ran out and the server is filling the
            # board with cards this player never saw: the result will show them.
            return []
        placed = placed_message(self.id, turn, name, text, auto, ref, why if auto else None)
        return [self.address([player_id], placed)]

    def auto_place(self, player_id: str, now_ms: int, why: PlacedWhy | None) -> list[Outbound]:
        """Place the waiting card of ``player_id`` for it: a server bot's by its bot (its
        own move), any other by the fallback rule, marked ``auto`` for the reason ``why``."""
        m = self.match
        assert m is not None
        board = m.boards[player_id]
        card = m.deal.cards[board.placed]
        seat = self.seat_of(player_id)
        chooser: CellChooser = fallback_cell
        if seat is not None and seat.bot is not None and not self.think_elsewhere:
            chooser = seat.bot
        cell = chooser(board.grid.copy(), card)
        if board.grid.why_illegal(cell) is not None:
            cell = fallback_cell(board.grid.copy(), card)
        # A bot thinking elsewhere that the clock overtook is placed for, like a person.
        auto = seat is None or seat.bot is None or self.think_elsewhere
        if seat is not None and seat.bot is None and why in IDLE_REASONS:
            board.clocked += 1
        return self.put_card(player_id, cell, now_ms, auto=auto, why=why)

    def bots_play(self, now_ms: int) -> list[Outbound]:
        """Bot seats holding a card: place it now, or ask for the move (think_elsewhere)."""
        outs: list[Outbound] = []
        m = self.match
        # Lockstep plays an absent seat's card as it is dealt to everyone. A race
        # fills an absent seat's board only once everyone else has finished: its
        # later cards would show cards nobody else has reached yet.
        race = self.settings.pace == Pace.RACE
        others_done = m is not None and all(
            m.boards[s.player.id].placed == TURNS for s in self.seats if not s.autopilot
        )
        person = any(s.bot is None and not s.player.bot and not s.autopilot for s in self.seats)
        for seat in self.seats:
            if seat.autopilot and m is not None:
                if race and not others_done:
                    continue
                while views.waiting_turn(self, seat.player.id) is not None:
                    outs += self.auto_place(seat.player.id, now_ms, "away")
                continue
            if seat.bot is None or m is None:
                continue
            if not self.think_elsewhere:  # the bot's own move, not placed for it: no why
                while views.waiting_turn(self, seat.player.id) is not None:
                    outs += self.auto_place(seat.player.id, now_ms, None)
                continue
            turn = views.waiting_turn(self, seat.player.id)
            if turn is not None and seat.asked < turn:
                seat.asked = turn
                board = m.boards[seat.player.id]
                self.ask_bot(
                    BotTurn(
                        room_id=self.id,
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

    def bot_waits(self, player_id: str, turn: int) -> bool:
        """Whether the bot seat ``player_id`` still has ``turn`` to place (the clock did
        not place it first, and the deal is not over)."""
        return self.match is not None and views.waiting_turn(self, player_id) == turn

    @step(RoomResult)
    def bot_move(self, player_id: str, turn: int, cell: int, now_ms: int) -> list[Outbound]:
        """The move a bot seat's strategy chose for ``turn`` (trusted: from the server itself).

        Refused, changing nothing, when the turn is no longer waiting (the clock
        placed the card first, or the match is over) or the cell is not legal.
        """
        self.now = now_ms
        seat = self.seat_of(player_id)
        if seat is None or seat.bot is None:
            raise errors.NotSeated(f"{player_id} is not a bot seat of room {self.id}")
        phases.require(self.phase, Place)
        m = self.match
        assert m is not None
        if views.waiting_turn(self, player_id) != turn:
            raise errors.PastTurn(f"turn {turn} is not waiting for {player_id}")
        problem = m.boards[player_id].grid.why_illegal(cell)
        if problem is not None:
            raise errors.RuleError.from_engine(problem)
        outs = self.put_card(player_id, cell, now_ms, auto=False)
        return outs + self.advance(now_ms, placed_by=player_id)

    def deal_next(self, now_ms: int, *, ref: str | None = None, actor: str = "") -> list[Outbound]:
        """Deal the series' next deal to every seat."""
        assert self.seats, "a room always seats its creator"
        series = self.series
        series.next_at = None
        series.started += 1
        number = series.started
        if number == 1:
            series.players = tuple(s.player.id for s in self.seats)
            match_id = series.id
        else:
            match_id = self.ids.match_id() if self.ids else f"{series.id}.{number}"
        secret = series.secret(number)
        contributions = tuple(s.contribution or s.player.id for s in self.seats)
        seed = room_seed(secret, contributions)
        m = DealInPlay(
            id=match_id,
            seed=seed,
            deal=deal(seed),
            contributions=contributions,
            started_at=now_ms,
            boards={s.player.id: Board(card_at=now_ms) for s in self.seats},
            turn=1,
            turn_started=now_ms,
        )
        self.match = m
        for seat in self.seats:
            seat.asked = 0  # a new deal: bot seats are asked for their moves from turn 1 again
        self.go(Phase.PLAYING)
        s = self.settings
        if number == 1:
            self.note(
                SeriesBegan(
                    series_id=series.id,
                    room_id=self.id,
                    best_of=series.best_of,
                    rated=s.rated,
                    pace=s.pace,
                    origin=s.origin,
                    players=tuple(player_record(seat.player) for seat in self.seats),
                    at_ms=now_ms,
                    root_secret=series.root,
                    secret_scheme=series.scheme.value,
                    seat_bots=self._bot_seats(),
                )
            )
        self.note(
            MatchBegan(
                match_id=m.id,
                room_id=self.id,
                pace=s.pace,
                players=tuple(
                    (i, player_record(seat.player), contributions[i])
                    for i, seat in enumerate(self.seats)
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
            room_id=self.id,
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
        outs = self.room_update(ref=ref, actor=actor, now=True) + self.to_members(started)
        for seat in self.seats:
            outs += self.card_for(seat.player.id, now_ms)
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
        m = self.match
        assert m is not None
        outs: list[Outbound] = []
        completed = False
        if self.settings.pace == Pace.LOCKSTEP:
            while all(b.placed >= m.turn for b in m.boards.values()):
                if m.turn == TURNS:
                    return outs + self.finish_deal(now_ms)
                completed = True
                m.turn += 1
                m.turn_started = now_ms
                for board in m.boards.values():
                    board.card_at = now_ms
                for seat in self.seats:
                    outs += self.card_for(seat.player.id, now_ms)
                outs += self.bots_play(now_ms)
        else:
            if placed_by is not None:
                outs += self.card_for(placed_by, now_ms)
            outs += self.bots_play(now_ms)
            if all(b.placed == TURNS for b in m.boards.values()):
                return outs + self.finish_deal(now_ms)
        if placed_by is not None and not completed:
            if self.progress_due is None:
                self.progress_due = now_ms + PROGRESS_DELAY_MS
            return outs
        return outs + self.progress_now(now_ms)

    def _bot_seats(self) -> tuple[tuple[str, str], ...]:
        """Each seat's server bot as (level, seed), ('', '') for everyone else; () if none."""
        if all(s.bot is None or not s.strategy for s in self.seats):
            return ()
        return tuple(
            (s.strategy, s.bot_seed) if s.bot is not None else ("", "") for s in self.seats
        )
