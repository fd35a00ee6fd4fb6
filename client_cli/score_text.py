"""Itemized scores as plain text, for ``hand``, ``score`` and ``solo``.

Only formatting: the numbers all come from :mod:`engine.scoring`, so what the
terminal shows is what the server and the ``--json`` forms count.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.grid import COLUMN_LETTERS, SIZE, Grid
from engine.scoring import WIN_SCORE, BoardScore, HandScore


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards)


def _item(label: str, cards: Sequence[Card], points: int) -> str:
    return f"  {label:<9}{cards_text(cards):<15}{points:>3}"


def hand_items(score: HandScore) -> list[str]:
    """One text line per scoring combination, then the total with its parts."""
    lines = [_item("fifteen", combo, 2) for combo in score.fifteens]
    lines += [_item("pair", pair, 2) for pair in score.pairs]
    lines += [_item("run", run, len(run)) for run in score.runs]
    if score.flush:
        lines.append(_item("flush", score.flush, len(score.flush)))
    if score.nobs is not None:
        lines.append(_item("nobs", [score.nobs], 1))
    if not lines:
        lines.append("  nothing scores")
    parts = [
        f"{name} {points}"
        for name, points in (
            ("fifteens", score.fifteen_points),
            ("pairs", score.pair_points),
            ("runs", score.run_points),
            ("flush", score.flush_points),
            ("nobs", score.nobs_points),
        )
        if points
    ]
    summary = f"  ({', '.join(parts)})" if len(parts) > 1 else ""
    lines.append(f"  {'total':<24}{score.total:>3}{summary}")
    return lines


def hand_text(score: HandScore) -> str:
    head = f"{cards_text(score.hand)}  starter {score.starter}"
    return "\n".join([head, *hand_items(score)])


def line_names() -> list[tuple[str, str]]:
    """(name, span) of the 8 scored lines in BoardScore.lines order."""
    last = COLUMN_LETTERS[-1]
    rows = [(f"row {r}", f"a{r}-{last}{r}") for r in range(1, SIZE + 1)]
    columns = [(f"column {c}", f"{c}1-{c}{SIZE}") for c in COLUMN_LETTERS]
    return rows + columns


def board_picture(cards: Sequence[Card], score: BoardScore) -> str:
    """The grid with each row's total on its right and each column's below."""
    grid = Grid.replay(enumerate(cards))
    picture = grid.render().splitlines()
    lines = [picture[0]]
    for row, text in enumerate(picture[1:]):
        lines.append(f"{text}  = {score.rows[row].total:>2}")
    lines.append("   " + "  ".join("==" for _ in range(SIZE)))
    lines.append("   " + "  ".join(f"{h.total:>2}" for h in score.columns))
    return "\n".join(lines)


def board_text(cards: Sequence[Card], score: BoardScore) -> str:
    """The picture, every line itemized, heels, the total and the verdict."""
    out = [f"starter {score.starter}", "", board_picture(cards, score)]
    for (name, span), line in zip(line_names(), score.lines, strict=True):
        out.append("")
        out.append(f"{name} ({span}): {cards_text(line.hand)}  = {line.total}")
        out.extend(hand_items(line)[:-1])  # the header line already has the total
    out.append("")
    lines_total = sum(h.total for h in score.lines)
    out.append(f"lines  {lines_total:>3}")
    why = "  (the starter is a jack)" if score.heels else ""
    out.append(f"heels  {score.heels:>3}{why}")
    verdict = "a win" if score.win else f"no win: {WIN_SCORE} needed"
    out.append(f"total  {score.total:>3}  {verdict}")
    return "\n".join(out)
