"""Sentences for the player about a match, a series, ratings and results, shared by
every front end (the Textual screens, ``--plain`` and the bot runner). Pure
functions of protocol messages; no I/O.
"""

from __future__ import annotations

from engine import WIN_SCORE
from engine.verification import Verification
from protocol.deals import BoardResult, MatchResult, Placed, SeriesInfo, SeriesStanding
from protocol.fields import Pace, PlayerInfo
from protocol.head_to_head import RatingChange


def result_lines(
    msg: MatchResult,
    verification: Verification | None,
    me: PlayerInfo | None,
    pace: Pace = Pace.LOCKSTEP,
    *,
    ranked: bool = True,
) -> list[str]:
    """The starter, every board, the deal check (``ranked`` false: a duplicate
    tournament's table, whose one board is ranked in the standings, not here)."""
    lines = [f"starter: {msg.starter}"]
    for board in msg.boards:
        lines.append(board_line(board, me, pace, ranked=ranked))
    if ranked:
        lines += [note.text for note in msg.ranking]  # why, where the score did not decide
    if verification is not None:
        lines.append(verification.summary)
    return lines


# Why the server placed a card for the player (``placed.why``), in its words; an
# older server says no why.
PLACED_WHY = {
    "card_clock": "out of time",
    "deal_clock": "the deal's clock ran out",
    "round_clock": "the round's clock ran out",
    "others_left": "the others left, so the deal ended",
    "away": "you were away",
}


def placed_for_you(msg: Placed) -> str:
    """``"out of time: placed for you"``, or why else the server placed it ("" if it
    did not)."""
    if not msg.auto:
        return ""
    why = PLACED_WHY.get(msg.why or "")
    return f"{why}: placed for you" if why else "placed for you by the server"


def time_text(ms: int) -> str:
    """A time used, to the tenth of a second: ``"1:52.4"``, ``"0:07.0"``."""
    tenths = max(0, ms) // 100
    return f"{tenths // 600}:{tenths // 10 % 60:02d}.{tenths % 10}"


def board_line(
    board: BoardResult, me: PlayerInfo | None, pace: Pace = Pace.LOCKSTEP, *, ranked: bool = True
) -> str:
    """``"#2 bob: 58 points, 1:52.4 used"`` (a race's tie-break is the time used; a
    board alone, as at a duplicate table, has no rank)."""
    who = board.player.name + (" [bot]" if board.player.bot else "")
    who += " (you)" if me is not None and board.player.id == me.id else ""
    # 61 or more: the solitaire's win, marked; between players the rank decides
    win = " (61+)" if board.score.total >= WIN_SCORE else ""
    used = f", {time_text(board.time_used_ms)} used" if pace == Pace.RACE else ""
    rank = f"#{board.rank} " if ranked else ""
    return f"{rank}{who}: {board.score.total} points{win}{used}"


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
    if series.finished and forfeits and not series.aborted:
        return resigned_text(series, me)
    if series.finished and series.best_of == 1:
        # One deal is not a series: no "series", no score of deals (a shared first
        # counts for both, so a draw would read 1–1).
        winner = series.winner
        if winner is None:
            score = "a draw"
        elif mine is not None and winner.id == mine.player.id:
            score = "you won"
        else:
            score = f"{winner.name} won"
        if forfeits:
            score += f" ({', '.join(forfeits)} forfeited)"
        return f"best of 1, 1 deal — {score}"
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
    text = f"deal {series.deal} of {series.best_of} \u2014 {series_score(series, me)}"
    if next_in_ms is not None:
        seconds = max(0, (next_in_ms + 999) // 1000)
        text += f", next deal in {seconds}s" if seconds else ", next deal starting"
    return text


def resigned_text(series: SeriesInfo, me: PlayerInfo | None) -> str:
    """A series ended by a resignation: "ada resigned — you win the series 2–1"
    (a spectator's: "ada resigned — bo wins the series 2–1"; one deal: "… you win").
    Where the deals won do not say it ("… 1–1"), the score is the one at the
    resignation: "ada resigned at 1–1 — you win the series"."""
    standings = list(series.standings)
    gone = [s for s in standings if s.forfeited]
    names = ", ".join("you" if me is not None and s.player.id == me.id else s.player.name
                      for s in gone)  # fmt: skip
    winner = series.winner
    if winner is None:
        return f"{names} resigned"
    first = next(s for s in standings if s.player.id == winner.id)
    rival = next((s for s in standings if s is not first), None)
    mine = me is not None and winner.id == me.id
    who, verb = ("you", "win") if mine else (winner.name, "wins")
    if series.best_of == 1 or rival is None:
        return f"{names} resigned — {who} {verb}"
    if first.deals_won <= rival.deals_won:
        return f"{names} resigned at {_score(first, rival)} — {who} {verb} the series"
    return f"{names} resigned — {who} {verb} the series {_score(first, rival)}"


def left_series_lines(series: SeriesInfo | None, me: PlayerInfo | None) -> list[str]:
    """What leaving a series under way did, for the one who left (the ``left`` message's
    ``series``): "you resigned at 1–1 — bo wins the series"."""
    if series is None:
        return []
    if not series.finished:
        return ["you forfeited the series: the others play on"]
    if not series.standings:  # its result is not shown yet (a tournament's round)
        return ["you forfeited the series"]
    return [series_text(series, me)]


def series_score(series: SeriesInfo, me: PlayerInfo | None) -> str:
    """The deals won so far, from this player's side: "you lead 1–0", "level 1–1"."""
    standings = list(series.standings)
    mine = next((s for s in standings if me is not None and s.player.id == me.id), None)
    others = [s for s in standings if s is not mine]
    if mine is not None and others:
        rival = others[0]
        if mine.deals_won > rival.deals_won:
            return f"you lead {_score(mine, rival)}"
        if mine.deals_won < rival.deals_won:
            return f"{rival.player.name} leads {_score(rival, mine)}"
        return f"level {_score(mine, rival)}"
    if len(standings) >= 2:
        a, b = standings[0], standings[1]
        return f"{a.player.name} {a.deals_won}, {b.player.name} {b.deals_won}"
    return ", ".join(f"{s.player.name} {s.deals_won}" for s in standings) or "no deals yet"


def deal_heading(deal: int, best_of: int, series: SeriesInfo | None, me: PlayerInfo | None) -> str:
    """Which deal of a series is being played, and the score before it:
    ``"deal 2 of 3 — you lead 1–0"`` (``""`` for a match of one deal)."""
    if best_of <= 1:
        return ""
    if deal <= 1 or series is None or not series.standings:
        return f"deal {deal} of {best_of}"
    return f"deal {deal} of {best_of} \u2014 {series_score(series, me)}"


def rating_text(change: RatingChange) -> str:
    """``"rating 1500 → 1662 (+162), provisional"``."""
    delta = change.after - change.before
    text = f"rating {change.before} \u2192 {change.after} ({delta:+d})"
    if change.provisional:
        text += ", provisional"
    return text
