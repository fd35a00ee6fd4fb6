"""A bot you can read in a minute: keep pairs and runs together, fifteens across.

Run it against a server (it is labelled a bot there):

    python examples/my_bot.py --server ws://127.0.0.1:8765/ws --quickplay
    python examples/my_bot.py --server ws://127.0.0.1:8765/ws --arena   # rated, bots only
    cribsquares bot --strategy examples/my_bot.py:choose --room Xk3r9TqZ

A bot is one function: the visible state in (an ``engine.bots.BotView``), a
cell out (an index 0..15 in reading order a1, b1, c1, d1, a2, ..., or a name
like ``"b2"``). It sees its own grid and the card to place, never the cards to
come: exactly what a human player sees.
"""

from __future__ import annotations

from engine.bots import BotView
from engine.cards import Card


def affinity(card: Card, other: Card) -> int:
    """How much ``card`` likes sharing a row or column with ``other`` (a rough guess)."""
    score = 0
    if card.rank == other.rank:
        score += 4  # a pair: 2 points now, more if a third comes
    elif abs(card.rank - other.rank) <= 2:
        score += 2  # part of a possible run
    if card.value + other.value == 15:
        score += 3  # a fifteen
    if card.suit == other.suit:
        score += 1  # keeps a flush possible
    return score


def choose(view: BotView) -> int:
    """The legal cell whose row and column hold the friendliest cards."""
    best_cell, best_score = -1, -1
    for cell in view.legal_cells():
        row, col = divmod(cell, 4)
        line_cells = [row * 4 + c for c in range(4)] + [r * 4 + col for r in range(4)]
        score = sum(
            affinity(view.card, other)
            for i in line_cells
            if i != cell and (other := view.cells[i]) is not None
        )
        # Ties: the cell with more free neighbours in its lines keeps options open.
        if score > best_score:
            best_cell, best_score = cell, score
    return best_cell


if __name__ == "__main__":
    from client_cli.botkit import main

    raise SystemExit(main(choose, name="my bot"))
