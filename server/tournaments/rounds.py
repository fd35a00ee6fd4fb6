"""A tournament's rounds and their tables: pairing, opening, results, the round clock.

A round begins (:meth:`Rounds.begin_round`): its format pairs the
active entrants into tables (and byes), and the lobby is asked to open each
table's room (:class:`~server.requests.OpenTable`). Its tables report
each deal's scores and the end of their series; the last table to finish ends
the round, and its format says whether the tournament goes on (after a break)
or is over. The round clock, a scheduled start and the break between rounds
run out in :meth:`Rounds.tick`.

Same deal on every table of a round: at creation the director draws a hash
chain of round secrets (:func:`server.series.secret_chain`) and publishes the
first one's commitment. Every table of round k is opened on the same table root,
an HMAC of round k's secret (:func:`engine.deal.table_root`), from which each
deal of the table takes its own secret, and with the same seat contribution
(:func:`~server.tournaments.model.round_contribution`, made from every
entrant's contribution), so every table of the round is dealt the same cards.
Nothing published before the round is over (the commitments, the earlier
rounds' secrets, the contributions) lets anyone compute a table's secrets. When
the round is over its secret is revealed and its embargo lifted
(:mod:`server.visibility`): until then nobody but the players of a table sees
the cards of its deals (docs/fairness.md, Tournaments).

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from engine.deal import commitment, table_root
from protocol.fields import Visibility
from protocol.names import printable
from protocol.rooms import RoomOrigin
from protocol.tournaments import TableStatus
from server import visibility
from server.events import (
    EmbargoLifted,
    TournamentChange,
    TournamentRoundBegan,
    TournamentRoundEnded,
    TournamentStatus,
    TournamentTableChanged,
)
from server.requests import OpenTable, Reveal, StopTable
from server.room import Outbound, RoomSettings
from server.tournaments.base import DirectorBase, Reply
from server.tournaments.model import Phase, Round, Table, round_contribution


def _leader(t: Table) -> str | None:
    """The player ahead at a table on the deals it finished: deals won (the best
    score alone), then points; None if level."""
    if len(t.players) < 2:
        return None
    won = dict.fromkeys(t.players, 0)
    for deal in t.deals:
        best = max(deal.values(), default=0)
        top = [p for p, score in deal.items() if score == best]
        if len(top) == 1 and top[0] in won:
            won[top[0]] += 1

    def key(p: str) -> tuple[int, int]:
        return (won[p], t.points.get(p, 0))

    first, second = sorted(t.players, key=key, reverse=True)[:2]
    return first if key(first) > key(second) else None


class Rounds:
    """A tournament's rounds played and its tables' results kept: a part of its
    :class:`~server.tournaments.director.Director`, acting on the director's state
    (``director``). The director's entry points of the same names run these as
    its steps."""

    def __init__(self, director: DirectorBase) -> None:
        self.director = director

    def tick(self, now_ms: int) -> list[Outbound]:
        d = self.director
        outs: list[Outbound] = []
        if d.phase == Phase.REGISTERING and d.next_at is not None and now_ms >= d.next_at:
            if len(d.active()) >= 2:
                d.note(TournamentStatus(d.id, TournamentChange.STARTED, None, now_ms))
                return self.begin_round(now_ms)
            return self.close(Phase.CANCELLED, now_ms)
        expires = d.expires_at
        if d.phase == Phase.REGISTERING and expires is not None and now_ms >= expires:
            return self.close(Phase.CANCELLED, now_ms)
        if d.phase == Phase.BETWEEN and d.next_at is not None and now_ms >= d.next_at:
            return self.begin_round(now_ms)
        current = d.rounds[-1] if d.rounds else None
        if (
            current is not None
            and not current.finished
            and not current.stopped
            and now_ms >= current.ends_at
        ):
            current.stopped = True
            d.ask(*(StopTable(t.room_id) for t in current.open_tables() if t.room_id))
        if d.push_due is not None and now_ms >= d.push_due:
            outs += d.push(now_ms)
        return outs

    def table_opened(self, round_number: int, table: int, room_id: str, series_id: str) -> None:
        """The lobby opened a table's room (within the step that carries out the
        director's OpenTable): the table plays there. Stored with :meth:`tables_opened`."""
        d = self.director
        r = d.rounds[round_number - 1]
        t = r.tables[table - 1]
        t.room_id, t.series_id = room_id, series_id
        d.tables_by_room[room_id] = (r, t)
        d.opened_tables.append((r, t))

    def deal_ended(self, room_id: str, scores: dict[str, int], now_ms: int) -> list[Outbound]:
        """A deal of a table's series is over: its scores count at once."""
        return self._deal_ended(room_id, scores, now_ms)

    def _deal_ended(self, room_id: str, scores: Mapping[str, int], now_ms: int) -> list[Outbound]:
        d = self.director
        found = d.tables_by_room.get(room_id)
        if found is None:
            return []
        _, t = found
        t.deals.append(dict(scores))
        for pid, score in scores.items():
            t.points[pid] = t.points.get(pid, 0) + score
        return d.changed(now_ms)

    def playing_tables(self) -> list[tuple[str, str]]:
        """(room id, series id) of every table still playing."""
        d = self.director
        return [(room, t.series_id) for room, (_, t) in d.tables_by_room.items() if t.series_id]

    def catch_up(
        self,
        room_id: str,
        deals: Sequence[Mapping[str, int]],
        finished: bool,
        winner_id: str | None,
        now_ms: int,
    ) -> list[Outbound]:
        """After a restart: the deals of a table's stored series (scores in deal
        order) that came after the snapshot count now, and a series that was over
        ends the table, as they would have when they happened."""
        d = self.director
        found = d.tables_by_room.get(room_id)
        if found is None:
            return []
        _, t = found
        outs: list[Outbound] = []
        for scores in deals[len(t.deals) :]:
            outs += self._deal_ended(room_id, scores, now_ms)
        if finished:
            outs += self._table_ended(room_id, winner_id, now_ms)
        return outs

    def table_ended(self, room_id: str, winner_id: str | None, now_ms: int) -> list[Outbound]:
        """A table's series is over (``winner_id`` None: a draw)."""
        return self._table_ended(room_id, winner_id, now_ms)

    def _table_ended(self, room_id: str, winner_id: str | None, now_ms: int) -> list[Outbound]:
        d = self.director
        found = d.tables_by_room.pop(room_id, None)
        if found is None:
            return []
        r, t = found
        return self._end_table(r, t, winner_id, now_ms)

    def _end_table(self, r: Round, t: Table, winner_id: str | None, now_ms: int) -> list[Outbound]:
        d = self.director
        t.status = TableStatus.FINISHED
        t.winner = d.format.table_winner(d, t, winner_id)
        self._table_event(r, t, now_ms)
        if d.over and not r.open_tables() and not r.finished:
            self._reveal(r, now_ms)  # the last table of a cancelled round: nobody plays on
        if d.over or r.open_tables():
            return d.changed(now_ms)
        return self._end_round(r, now_ms)

    def _table_event(self, r: Round, t: Table, now_ms: int) -> None:
        d = self.director
        d.note(
            TournamentTableChanged(
                tournament_id=d.id,
                round=r.number,
                table=t.number,
                room_id=t.room_id,
                series_id=t.series_id,
                players=t.players,
                status=t.status,
                winner_id=t.winner,
                points=tuple(sorted(t.points.items())),
                at_ms=now_ms,
            )
        )

    def begin_round(self, now_ms: int, reply: Reply | None = None) -> list[Outbound]:
        d = self.director
        number = len(d.rounds) + 1
        playing = [e for e in d.active() if e.joined_round <= number]
        pairing = d.format.pair(d, number, playing, now_ms)
        if pairing is None:
            return self.close(Phase.FINISHED, now_ms, reply)
        groups, byes = pairing.groups, pairing.byes
        contributors = [(e.player.id, e.contribution) for e in playing]
        contribution = round_contribution(d.id, number, [c for _, c in contributors])
        secret = d.round_secrets[number - 1]
        root = table_root(secret, d.id, number)
        tables = [Table(i + 1, g) for i, g in enumerate(groups)]
        tables += [
            Table(len(groups) + i + 1, (p,), status=TableStatus.BYE, winner=p)
            for i, p in enumerate(byes)
        ]
        r = Round(
            number,
            secret,
            contribution,
            tables,
            now_ms,
            now_ms + d.settings.round_clock_ms,
        )
        d.rounds.append(r)
        if d.phase != Phase.PLAYING:
            d.go(Phase.PLAYING)
        d.next_at = None
        d.note(
            TournamentRoundBegan(
                d.id,
                number,
                contribution,
                tuple(contributors),
                commitment(secret),
                now_ms,
            )
        )
        s = d.settings
        for t in tables:
            if t.status == TableStatus.BYE:
                self._table_event(r, t, now_ms)
                continue
            players = tuple(d.entrants[p].player for p in t.players)
            d.ask(
                OpenTable(
                    tournament_id=d.id,
                    round=number,
                    table=t.number,
                    players=players,
                    strategies=tuple(d.entrants[p].strategy for p in t.players),
                    contribution=contribution,
                    root=root,
                    embargo=visibility.round_embargo(d.id, number),
                    settings=RoomSettings(
                        name=f"{printable(s.name, 24)} r{number} t{t.number}",
                        visibility=Visibility.PRIVATE,
                        seats=len(t.players),
                        pace=s.pace,
                        card_clock_ms=s.card_clock_ms,
                        deal_clock_ms=s.deal_clock_ms,
                        best_of=s.best_of,
                        origin=RoomOrigin.TOURNAMENT,
                    ),
                )
            )
        if not r.open_tables():
            return self._end_round(r, now_ms, reply)
        # The update goes out once the tables are open and have their room ids
        # (tables_opened), so that everyone learns where to play from it.
        if reply is not None:
            d.reply_after_tables = reply
        return []

    def tables_opened(self, now_ms: int) -> list[Outbound]:
        """The tables asked for (OpenTable) are open: store where each plays, and tell
        everyone."""
        d = self.director
        opened, d.opened_tables = d.opened_tables, []
        for r, t in opened:
            self._table_event(r, t, now_ms)
        reply, d.reply_after_tables = d.reply_after_tables, None
        return d.push(now_ms, reply)

    def _reveal(self, r: Round, now_ms: int) -> None:
        """Every table of round ``r`` has finished: its secret is revealed and its
        deals' embargo lifted (stored, and told to the tables' rooms)."""
        d = self.director
        r.finished = True
        embargo = visibility.round_embargo(d.id, r.number)
        d.note(TournamentRoundEnded(d.id, r.number, r.secret, now_ms))
        d.note(EmbargoLifted(embargo, now_ms))
        rooms = tuple(t.room_id for t in r.tables if t.room_id is not None)
        if rooms:
            d.ask(Reveal(embargo, rooms))

    def _end_round(self, r: Round, now_ms: int, reply: Reply | None = None) -> list[Outbound]:
        d = self.director
        self._reveal(r, now_ms)
        if d.format.round_ended(d, r, now_ms):
            return self.close(Phase.FINISHED, now_ms, reply)
        if d.phase == Phase.PLAYING:
            d.go(Phase.BETWEEN)
            d.next_at = now_ms + d.settings.between_rounds_ms
        return d.push(now_ms, reply)

    def close(self, phase: Phase, now_ms: int, reply: Reply | None = None) -> list[Outbound]:
        """Finish or cancel: stop any table still playing, store the final standings."""
        d = self.director
        current = d.rounds[-1] if d.rounds else None
        if current is not None and not current.finished:
            current.stopped = True
            d.ask(*(StopTable(t.room_id) for t in current.open_tables() if t.room_id))
            if not current.open_tables():
                self._reveal(current, now_ms)
        d.go(phase)
        d.next_at = None
        d.finished_at = now_ms
        final = tuple(s.model_dump(mode="json") for s in d.standings())
        d.changed_to(TournamentChange(phase.value), now_ms, final)
        return d.push(now_ms, reply)

    def resumed(self, alive: Collection[str], now_ms: int) -> list[Outbound]:
        """After a restart, once its tables' series are rebuilt and caught up: a round
        whose clock had run out asks again for its tables still playing to be
        stopped, and the tables still playing whose room is not in ``alive`` (it
        could not be rebuilt) end with the deals they finished, as if the round
        clock had stopped them there (docs/tournaments.md)."""
        d = self.director
        current = d.rounds[-1] if d.rounds else None
        if current is not None and not current.finished and current.stopped:
            stop = [t.room_id for t in current.open_tables() if t.room_id in alive]
            d.ask(*(StopTable(room_id) for room_id in stop if room_id is not None))
        outs: list[Outbound] = []
        for r in d.rounds:
            for t in r.tables:
                if t.status != TableStatus.PLAYING or (
                    t.room_id is not None and t.room_id in alive
                ):
                    continue
                if t.room_id is not None:
                    d.tables_by_room.pop(t.room_id, None)
                outs += self._end_table(r, t, _leader(t), now_ms)
        return outs
