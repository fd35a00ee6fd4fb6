"""The end of a deal and of a series: scores, ranks, the result, and what is stored.

:meth:`Results.finish_deal` scores every board of a deal all have placed
(:mod:`engine.scoring`), ranks them (:mod:`engine.ranking`: whoever left the
series last, then lockstep by score, a race by score then time used, with a
note saying why wherever the score did not decide), records the deal in the
series, and sends its result to those who may see it; then the series goes on to its next deal, or
it is over (decided, aborted, or a clock above the room ran out) and is stored,
with the secret of a rematch committed to. Once a tournament round's embargo
is lifted, the spectators are sent the result they were not shown
(:meth:`server.room.machine.Room.lift_embargo`, which sends them).

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.deal import commitment
from engine.ranking import competition_ranks
from engine.scoring import BoardScore, score_board
from protocol.deals import RankNote
from protocol.fields import Pace, PlayerInfo
from protocol.prepared import ResultBoard, match_result_message
from server.events import Abandonment, BoardOutcome, MatchEnded, SeriesEnded
from server.room import views
from server.room.addressing import Addresser
from server.room.base import RoomBase
from server.room.outbound import Outbound
from server.room.phases import Phase
from server.room.state import TURNS, Board, Seat
from server.series import DealOutcome


class Results:
    """A room's deals and series ended: scored, ranked, recorded and told. It acts on
    the room's state (``room``) and sends through the room's addresser (``out``)."""

    def __init__(self, room: RoomBase, out: Addresser) -> None:
        self.room = room
        self.out = out

    def finish_deal(self, now_ms: int) -> list[Outbound]:
        """Every board of the deal is full: score, rank, record and tell it."""
        m = self.room.match
        assert m is not None
        starter = m.deal.starter
        race = self.room.settings.pace == Pace.RACE
        clocked = self._clocked_forfeits(now_ms) if self.room.settings.rated else {}
        # (rank key, seat, seat's board, score). The key: who left the series
        # first (0: stayed) is last, whatever its board (the server played it);
        # then lockstep, total score only, equal totals share a rank; race, total
        # score then less time used, equal on both share a rank. Computed once: a
        # score's total is not cheap.
        order = self.room.series.forfeit_order
        rows: list[tuple[tuple[int, int, int], int, Seat, Board, BoardScore]] = []
        for i, seat in enumerate(self.room.seats):
            pid = seat.player.id
            board = m.boards[pid]
            score = score_board(board.grid.cards(), starter)
            out = len(order) - order.index(pid) if pid in order else 0
            key = (out, -score.total, board.time_used_ms if race else 0)
            rows.append((key, i, seat, board, score))
        rows.sort(key=lambda r: (r[0], r[1]))
        ranks = competition_ranks([row[0] for row in rows])
        ranking = rank_notes([(key, seat.player) for key, _, seat, _, _ in rows], ranks, clocked)
        results: list[ResultBoard] = []
        outcomes: list[BoardOutcome] = []
        for rank, (_, i, seat, board, score) in zip(ranks, rows, strict=True):
            detail = score.to_dict()
            results.append(
                ResultBoard(
                    seat.player,
                    i,
                    rank,
                    board.cells(),
                    [p.fields() for p in board.placements],
                    detail,
                    board.time_used_ms,
                )
            )
            outcomes.append(
                BoardOutcome(
                    player_id=seat.player.id,
                    seat=i,
                    rank=rank,
                    score=score.total,
                    time_used_ms=board.time_used_ms,
                    cells=tuple(c or "" for c in board.cells()),
                    detail=detail,
                )
            )
        series = self.room.series
        series.deals.append(
            DealOutcome(
                match_id=m.id,
                ranks={o.player_id: o.rank for o in outcomes},
                scores={o.player_id: o.score for o in outcomes},
                times={o.player_id: o.time_used_ms for o in outcomes},
            )
        )
        self.room.note(MatchEnded(m.id, str(starter), tuple(outcomes), now_ms, tuple(ranking)))
        outs = self.out.progress_now(now_ms)
        idle = series.aborts() if self.room.settings.rated else []
        if idle:  # a side placed no card of the first deal: nobody is rated on it
            series.aborted = True
            for pid in idle:
                if pid not in series.gone:  # never left nor went away: it never moved
                    series.gone.add(pid)
                    self.room.abandoned(pid, Abandonment.IDLE, now_ms)
        if series.aborted or series.decided() or self.room.last_deal:
            self.room.go(Phase.FINISHED)
            self._close_series(now_ms)
        else:
            self.room.go(Phase.BETWEEN)
            series.next_at = now_ms + self.room.between_deals_ms
        # Kept as its text (written without the boards' models): a finished deal's
        # boards, placements and itemized scores as live models were most of what
        # a young collection walked.
        m.result = match_result_message(
            self.room.id,
            m.id,
            str(starter),
            m.seed,
            series.secret(series.started),
            commitment(m.seed),
            results,
            series.started,
            self.room.series_info(now_ms),
            ranking,
        )
        seeing = [p for p in self.room.members() if views.sees_result(self.room, p)]
        if seeing:
            outs.append(self.out.address(seeing, m.result))
        return outs + self.out.room_update(now_ms, at_once=True)

    def _clocked_forfeits(self, now_ms: int) -> dict[str, int]:
        """In a rated deal, a person the clock played for (most of its cards placed by
        the server: it stayed idle, connected or not) is ranked as one who left, with
        an idle mark: no rating from the fallback rule's play, which the server's own
        ladder rates well above a beginner (docs/ratings.md). Returns how many cards
        the clock placed for each of them."""
        m = self.room.match
        assert m is not None
        series, found = self.room.series, {}
        for seat in self.room.seats:
            pid = seat.player.id
            if seat.bot is not None or pid in series.forfeited:
                continue
            clocked = m.boards[pid].clocked
            if clocked * 2 > TURNS:
                found[pid] = clocked
                series.forfeit(pid)
                if pid not in series.gone:
                    series.gone.add(pid)
                    self.room.abandoned(pid, Abandonment.IDLE, now_ms)
        return found

    def _close_series(self, now_ms: int) -> None:
        """The series is over: record it, and commit to the secret of a rematch."""
        series = self.room.series
        series.finished = True
        series.next_at = None
        self.room.finished_at = now_ms
        self.room.note(
            SeriesEnded(
                series_id=series.id,
                room_id=self.room.id,
                rated=self.room.settings.rated,
                pace=self.room.settings.pace,
                standings=tuple(
                    (st.player_id, st.deals_won, st.points, st.time_used_ms, st.forfeited)
                    for st in series.standings()
                ),
                winner_id=series.winner(),
                deals=len(series.deals),
                at_ms=now_ms,
                aborted=series.aborted,
            )
        )
        if self.room.ids is not None:
            self.room.next_series = self.room.new_series(
                self.room.ids.match_id(), self.room.ids.server_secret()
            )
            self.room.server_commitment = self.room.next_series.commitment

    def end_series(self, now_ms: int) -> list[Outbound]:
        """Between deals, the series was decided without the next deal (a forfeit)."""
        self.room.go(Phase.FINISHED)
        self._close_series(now_ms)
        return self.out.room_update(now_ms, at_once=True)


def rank_notes(
    rows: list[tuple[tuple[int, int, int], PlayerInfo]],
    ranks: list[int],
    clocked: Mapping[str, int] | None = None,
) -> list[RankNote]:
    """Why each board the score alone did not place ranks where it does, from the
    boards' rank keys (who left, minus the score, the time used) in rank order: a
    player who left is last (``clocked``: those of them the clock played for, with
    the cards it placed); of two level on points, the quicker is above."""
    notes: list[RankNote] = []
    for key, player in rows:
        if key[0]:
            n = (clocked or {}).get(player.id)
            why = f"let the clock place {n} of its {TURNS} cards" if n else "resigned"
            notes.append(
                RankNote(
                    player_id=player.id, reason="left", text=f"{player.name} {why}: ranked last"
                )
            )
    for ((a, above), rank), ((b, below), _) in zip(
        zip(rows, ranks, strict=True), zip(rows[1:], ranks[1:], strict=True), strict=False
    ):
        if a[0] or b[0] or a[1] != b[1] or a[2] == b[2]:
            continue  # one left, or not level on points, or level on time too (shared)
        won = "won" if rank == 1 else f"ranked above {below.name}"
        quick, slow = seconds_text(a[2], b[2])
        notes.append(
            RankNote(
                player_id=above.id,
                reason="time_used",
                text=f"{above.name} {won} on time used: {quick} s against {below.name}'s {slow} s",
                against=below.id,
                time_used_ms=a[2],
                against_ms=b[2],
            )
        )
    return notes


def seconds_text(a_ms: int, b_ms: int) -> tuple[str, str]:
    """Two times in seconds, to the hundredth, or the thousandth where the
    hundredths would read the same."""
    places = 2 if round(a_ms / 1000, 2) != round(b_ms / 1000, 2) else 3
    return f"{a_ms / 1000:.{places}f}", f"{b_ms / 1000:.{places}f}"
