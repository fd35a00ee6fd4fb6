"""Cards, boards and itemized scores as rich text, shared by both front ends.

Everything returns :class:`rich.text.Text`; the plain front end prints
``text.plain``. Suits are coloured here and nowhere else: hearts and diamonds
red, clubs and spades in the default colour.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from protocol.deals import BoardScoreOut, HandScoreOut

SUIT_GLYPH = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAME = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RED = "bold red"
BLACK = "bold"
COLUMNS = "abcd"


def suit_style(card: str) -> str:
    return RED if card[-1:] in "DH" else BLACK


def card_text(card: str | None, *, glyphs: bool = True, width: int = 3) -> Text:
    """``"TH"`` -> ``"10♥"`` in red (``glyphs``), or ``"TH"`` canonical (not)."""
    if not card:
        return Text("·".rjust(width) if glyphs else "..".rjust(width), style="dim")
    if not glyphs:
        return Text(card.rjust(width), style=suit_style(card))
    rank = "10" if card[0] == "T" else card[0]
    return Text((rank + SUIT_GLYPH.get(card[-1], card[-1])).rjust(width), style=suit_style(card))


def cards_text(cards: Sequence[str], *, glyphs: bool = True, sep: str = " ") -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(sep)
        out.append_text(card_text(c, glyphs=glyphs, width=0))
    return out


def hand_items(hand: HandScoreOut, *, glyphs: bool = True) -> Text:
    """One line naming every scoring combination of a row or column."""
    out = Text()
    parts: list[tuple[str, list[list[str]], int]] = []
    if hand.fifteens:
        parts.append(("fifteen", hand.fifteens, hand.points.get("fifteens", 0)))
    if hand.pairs:
        parts.append(("pair", hand.pairs, hand.points.get("pairs", 0)))
    if hand.runs:
        parts.append(("run", hand.runs, hand.points.get("runs", 0)))
    if hand.flush:
        parts.append(("flush", [hand.flush], hand.points.get("flush", 0)))
    if hand.nobs:
        parts.append(("nobs", [[hand.nobs]], hand.points.get("nobs", 0)))
    if not parts:
        return Text("nothing", style="dim")
    for i, (label, combos, points) in enumerate(parts):
        if i:
            out.append("; ")
        plural = "s" if len(combos) > 1 and label not in ("flush", "nobs") else ""
        out.append(f"{label}{plural} ", style="italic")
        for j, combo in enumerate(combos):
            if j:
                out.append(", ")
            out.append_text(cards_text(combo, glyphs=glyphs, sep="+"))
        out.append(f" ({points})", style="cyan")
    return out


def board_lines(
    cells: Sequence[str | None],
    score: BoardScoreOut | None = None,
    *,
    glyphs: bool = True,
    highlight: Sequence[int] = (),
    marks: Sequence[int] = (),
) -> list[Text]:
    """A compact board: column letters, four rows with row totals, column totals.

    ``marks`` (cell indices, empty cells) show their names, ``highlight`` is reversed.
    """
    lines = [Text("    " + "".join(f"{c:>4}" for c in COLUMNS))]
    for row in range(4):
        line = Text(f"{row + 1:>3} ")
        for col in range(4):
            i = 4 * row + col
            t = Text(" ")
            if cells[i] is None and i in marks:
                t.append(f"{COLUMNS[col]}{row + 1}".rjust(3), style="green")
            else:
                t.append_text(card_text(cells[i], glyphs=glyphs))
            if i in highlight:
                t.stylize("reverse")
            line.append_text(t)
        if score is not None:
            line.append(f"  {score.rows[row].total:>3}", style="cyan")
        lines.append(line)
    if score is not None:
        totals = Text("    ")
        for col in range(4):
            totals.append(f"{score.columns[col].total:>4}", style="cyan")
        lines.append(totals)
    return lines


def score_lines(score: BoardScoreOut, *, glyphs: bool = True) -> list[Text]:
    """Every row and column with its itemized score, then heels and the total."""
    lines: list[Text] = []
    for label, hands in (("row", score.rows), ("col", score.columns)):
        for i, hand in enumerate(hands):
            name = f"{label} {i + 1}" if label == "row" else f"col {COLUMNS[i]}"
            line = Text(f"{name:<6}", style="bold")
            line.append(f"{hand.total:>3}  ", style="cyan")
            line.append_text(hand_items(hand, glyphs=glyphs))
            lines.append(line)
    if score.heels:
        lines.append(Text(f"heels {score.heels:>3}  the starter is a jack", style="bold"))
    total = Text(f"total {score.total:>3}", style="bold")
    if score.win:
        total.append("  61+", style="bold green")  # the solitaire's win; the rank decides here
    lines.append(total)
    return lines


def clock_text(ms: int | None) -> str:
    if ms is None:
        return "--:--"
    seconds = (ms + 999) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def score_table(score: BoardScoreOut, *, glyphs: bool = True) -> Table:
    """:func:`score_lines` as a grid, so long itemizations wrap under themselves."""
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(style="cyan", justify="right", no_wrap=True)
    table.add_column(ratio=1)
    for label, hands in (("row", score.rows), ("col", score.columns)):
        for i, hand in enumerate(hands):
            name = f"row {i + 1}" if label == "row" else f"col {COLUMNS[i]}"
            table.add_row(name, str(hand.total), hand_items(hand, glyphs=glyphs))
    if score.heels:
        table.add_row("heels", str(score.heels), Text("the starter is a jack"))
    win = Text("61+", "bold green") if score.win else Text("")
    table.add_row(Text("total", "bold"), Text(str(score.total), "bold cyan"), win)
    return table
