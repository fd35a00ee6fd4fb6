"""The daily deal for the client: its text, and yesterday's board to analyse.

Shared by the full-screen client (``d`` in the lobby) and ``--plain``
(``daily``): what a ``daily`` message says, as lines of text, and, once a day is
over, one's own board as the engine's input (:mod:`client_cli.analysis`) and
where the field put each card beside it. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta

from rich.text import Text

from client_cli.analysis import BoardAnalysis, BoardInput, board_from_moves
from client_cli.render import card_text
from engine.cards import Card
from engine.grid import cell_name
from protocol.daily import Daily, DailyEntry
from protocol.fields import Pace

STATUS_TEXT = {
    "upcoming": "to come",
    "open": "open today",
    "closing": "over: an attempt begun before midnight is being finished",
    "over": "over: its deal is revealed",
}


def yesterday_of(day: str) -> str:
    """The UTC day before ``day`` (both ``YYYY-MM-DD``)."""
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def clock_text(pace: Pace | None, card_clock_ms: int = 0, deal_clock_ms: int = 0) -> str:
    if pace == Pace.RACE:
        return f"race, {deal_clock_ms // 1000}s for the deal"
    return f"lockstep, {card_clock_ms // 1000}s a card"


def left_text(ms: int) -> str:
    """``3h 07m`` / ``12m 05s`` / ``40s``."""
    seconds = max(0, ms // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def short(digest: str | None, n: int = 16) -> str:
    return "-" if not digest else digest[:n] + "…"


def head_lines(view: Daily, left_ms: int, play_hint: str = "p plays it") -> list[Text]:
    """The day, its state and commitment, and one's own attempt and streaks
    (``left_ms``: the time left in the day now)."""
    line = Text()
    line.append(f"Daily deal {view.day}", "bold")
    line.append(f"  {STATUS_TEXT[view.status]}", "yellow" if view.status == "open" else "dim")
    if view.status == "open":
        line.append(f"  ends in {left_text(left_ms)} (midnight UTC)", "dim")
    lines = [line]
    commit = Text("commitment ", "dim")
    commit.append(view.commitment or "-")
    lines.append(commit)
    you = view.you
    if you is not None:
        mine = Text("you: ", "bold")
        if you.status == "none":
            mine.append("not played" + (f"  ({play_hint})" if view.status == "open" else ""))
        elif you.status == "playing":
            mine.append("playing now", "bold yellow")
        else:
            mine.append(f"{you.score} points", "bold cyan")
            mine.append(f", rank {you.rank} of {view.finished}, percentile {you.percentile}")
        mine.append(f"   streak {you.streak} day{'s' if you.streak != 1 else ''}")
        mine.append(f" (longest {you.longest_streak})", "dim")
        lines.append(mine)
    count = Text(f"{view.players} played, {view.finished} finished", "dim")
    lines.append(count)
    if (held := held_text(view)) is not None:
        lines.append(Text(held, "italic"))
    return lines


def held_text(view: Daily) -> str | None:
    """Why the standings show no scores (the server holds them back from a player who
    may still play the day); None when they show them."""
    if view.scores_shown:
        return None
    if view.you is not None and view.you.status == "playing":
        return "the field's scores once your attempt is over"
    if view.you is not None:
        return "play today's deal to see the field's scores (or wait for midnight UTC)"
    return "the field's scores once the day is over"


def standings_row(e: DailyEntry, me: str | None) -> list[str]:
    """rank, player, score, percentile, streak, pace: the standings' columns."""
    name = (
        e.player.name
        + (" [bot]" if e.player.bot else "")
        + ("  ← you" if e.player.id == me else "")
    )
    if e.status == "playing":
        return ["…", name, "playing", "", str(e.streak), e.pace.value]
    if e.score is None:  # held back from this viewer (held_text says why)
        return ["", name, "done", "", str(e.streak), e.pace.value]
    return [str(e.rank), name, str(e.score), f"{e.percentile}%", str(e.streak), e.pace.value]


STANDINGS_COLUMNS = ("rank", "player", "score", "pctl", "streak", "pace")


def schedule_lines(view: Daily) -> list[Text]:
    """The days committed to: the secrets of the days over, the commitments ahead."""
    lines = [Text("the schedule (SHA-256 of each day's secret, published ahead)", "bold")]
    for d in view.schedule:
        today = d.day == view.today
        line = Text("▸ " if today else "  ", "bold")
        line.append(f"{d.day}  ", "bold" if today else "")
        line.append(d.commitment, "" if today else "dim")
        lines.append(line)
        if d.secret is not None:
            lines.append(Text(f"  secret      {d.secret}", "green"))
    return lines


def my_moves(view: Daily) -> list[str] | None:
    """One's own cells in deal order, once the day's deal is shown; None otherwise."""
    deal, you = view.deal, view.you
    if deal is None or you is None or you.cells is None:
        return None
    where = {card: i for i, card in enumerate(you.cells) if card}
    if any(card not in where for card in deal.cards):
        return None
    return [cell_name(where[card]) for card in deal.cards]


def board_input(view: Daily) -> BoardInput | None:
    """One's own board of a day that is over, for the engine (EngineError: not a board)."""
    moves = my_moves(view)
    if moves is None or view.deal is None:
        return None
    cards = [Card.parse(c) for c in view.deal.cards]
    return board_from_moves(cards, Card.parse(view.deal.starter), moves)


def field_lines(
    view: Daily, analysis: BoardAnalysis | None = None, *, glyphs: bool = True, top: int = 3
) -> list[Text]:
    """A day that is over, card by card: where you put it, where the field did (the
    most chosen cells, in percent of the finished boards), and where the hindsight
    best board has it."""
    deal = view.deal
    if deal is None:
        return []
    moves = my_moves(view) or []
    best = None if analysis is None else [cell_name(i) for i in analysis.hindsight.placements]
    lines: list[Text] = []
    if analysis is not None and analysis.score is not None:
        lost = Text("you lost ", "bold")
        lost.append(f"{analysis.hindsight.score - analysis.score} points", "bold red")
        lost.append(f" to the hindsight best ({analysis.hindsight.score}); ")
        lost.append(f"expected loss against the expert {analysis.total_loss:.1f}")
        lines.append(lost)
    head = "turn card  you  " + ("best " if best else "") + "where the field put it"
    lines.append(Text(head, "bold"))
    for turn, (card, counts) in enumerate(zip(deal.cards, deal.field, strict=True), start=1):
        total = sum(counts) or 1
        line = Text(f"{turn:>4} ")
        line.append_text(card_text(card, glyphs=glyphs))
        mine = moves[turn - 1] if moves else "-"
        line.append(f"   {mine:<3}")
        if best is not None:
            line.append(f"  {best[turn - 1]:<3}", "green" if best[turn - 1] == mine else "yellow")
        ranked = sorted(range(16), key=lambda c: (-counts[c], c))
        parts = [f"{cell_name(c)} {100 * counts[c] // total}%" for c in ranked[:top] if counts[c]]
        line.append("  " + "  ".join(parts), "dim")
        lines.append(line)
    return lines


def standings_text(view: Daily, me: str | None) -> list[str]:
    """The standings as plain lines (``--plain``)."""
    rows = [list(STANDINGS_COLUMNS)] + [standings_row(e, me) for e in view.standings]
    widths = [max(len(r[i]) for r in rows) for i in range(len(STANDINGS_COLUMNS))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def verify_lines(view: Daily, first_seen: Mapping[str, str]) -> list[str]:
    """A day that is over, checked here as docs/fairness.md says: the secret's SHA-256
    is the day's commitment as this client was first told it (``first_seen``: in a
    schedule, days ahead, if it was running then), and it deals the cards shown."""
    from engine.deal import commitment, deal, room_seed

    d = view.deal
    if d is None or view.commitment is None:
        return []
    published = first_seen.get(view.day, view.commitment)
    ok_commit = commitment(d.secret) == view.commitment == published
    seed = room_seed(d.secret, [d.contribution])
    dealt = deal(seed)
    ok_cards = seed == d.seed and [str(c) for c in dealt.cards] == d.cards
    ok_cards = ok_cards and str(dealt.starter) == d.starter
    return [
        f"{'✔' if ok_commit else '✖'} the secret's SHA-256 is the day's commitment",
        f"{'✔' if ok_cards else '✖'} room_seed(secret, [{d.contribution}]) deals these cards",
    ]


def cards_line(cards: Sequence[str], starter: str, *, glyphs: bool = True) -> Text:
    line = Text("the deal: ", "bold")
    for c in cards:
        line.append_text(card_text(c, glyphs=glyphs, width=0))
        line.append(" ")
    line.append(" starter ")
    line.append_text(card_text(starter, glyphs=glyphs, width=0))
    return line
