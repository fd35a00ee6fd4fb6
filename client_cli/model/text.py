"""Sentences for the player about a match, a series, ratings and results, shared by
every front end (the Textual screens, ``--plain`` and the bot runner). Pure
functions of protocol messages; no I/O.
"""

from __future__ import annotations

from engine import WIN_SCORE
from engine.verification import Verification
from protocol.messages import (
    BoardResult,
    MatchResult,
    Pace,
    PlayerInfo,
    RatingChange,
    SeriesInfo,
    SeriesStanding,
)


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


# ---------------------------------------------------------------------------
# Text for the series, ratings and challenges, shared by every front end


def match_terms(
    pace: Pace,
    deals: int,
    rated: bool,
    card_clock_ms: int | None = None,
    deal_clock_ms: int | None = None,
) -> str:
    """``"lockstep, best of 3, rated, 30s per card"``."""
    bits = [pace.value, f"best of {deals}" if deals > 1 else "one deal"]
    bits.append("rated" if rated else "casual")
    if pace == Pace.LOCKSTEP and card_clock_ms:
        bits.append(f"{card_clock_ms // 1000}s per card")
    elif pace == Pace.RACE and deal_clock_ms:
        bits.append(f"{deal_clock_ms // 1000}s per deal")
    return ", ".join(bits)


def _score(a: SeriesStanding, b: SeriesStanding) -> str:
    return f"{a.deals_won}\u2013{b.deals_won}"


def series_text(series: SeriesInfo, me: PlayerInfo | None, next_in_ms: int | None = None) -> str:
    """Where a series stands, for people: "deal 2 of 3 — you lead 1–0, next deal in 5s"."""
    standings = list(series.standings)  # ordered by the server: the leader first
    mine = next((s for s in standings if me is not None and s.player.id == me.id), None)
    others = [s for s in standings if s is not mine]
    forfeits = [s.player.name for s in standings if s.forfeited]
    if series.finished:
        head = f"best of {series.best_of}, {series.deal} deal{'s' if series.deal != 1 else ''}"
        winner = series.winner
        if mine is not None and others:
            rival = others[0]
            if winner is not None and winner.id == mine.player.id:
                score = f"you won the series {_score(mine, rival)}"
            elif winner is None:
                score = f"the series is drawn {_score(mine, rival)}"
            else:
                score = f"{winner.name} won the series {_score(rival, mine)}"
        elif winner is not None:
            score = f"{winner.name} won the series"
        else:
            score = "the series is drawn"
        if forfeits:
            score += f" ({', '.join(forfeits)} forfeited)"
        return f"{head} \u2014 {score}"
    head = f"deal {series.deal} of {series.best_of}"
    if mine is not None and others:
        rival = others[0]
        if mine.deals_won > rival.deals_won:
            score = f"you lead {_score(mine, rival)}"
        elif mine.deals_won < rival.deals_won:
            score = f"{rival.player.name} leads {_score(rival, mine)}"
        else:
            score = f"level {_score(mine, rival)}"
    elif len(standings) >= 2:
        a, b = standings[0], standings[1]
        score = f"{a.player.name} {a.deals_won}, {b.player.name} {b.deals_won}"
    else:
        score = ", ".join(f"{s.player.name} {s.deals_won}" for s in standings) or "no deals yet"
    text = f"{head} \u2014 {score}"
    if next_in_ms is not None:
        seconds = max(0, (next_in_ms + 999) // 1000)
        text += f", next deal in {seconds}s" if seconds else ", next deal starting"
    return text


def rating_text(change: RatingChange) -> str:
    """``"rating 1500 → 1662 (+162), provisional"``."""
    delta = change.after - change.before
    text = f"rating {change.before} \u2192 {change.after} ({delta:+d})"
    if change.provisional:
        text += ", provisional"
    return text
