"""Post-game analysis for the client: which boards to analyse, and how to show it.

The engine (:mod:`engine.analysis`) does the work: the hindsight best board
and the expert's review of every move. This module turns what the client has
(a seed and typed placements, a stored match, a :class:`BoardResult` from a
result or a replay) into the engine's input, runs it, and renders the answer
as text for the three front ends (``cribsquares analyze``, ``--plain``, the
full-screen client). It never does I/O: fetching a match is the caller's job,
and the analysis is CPU-bound, so a front end runs it off its event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.text import Text

from client_cli.render import card_text
from engine.analysis import (
    DEFAULT_SEARCH_BUDGET,
    HindsightBoard,
    MoveReview,
    analyse_game,
    hindsight_best,
    review_moves,
)
from engine.bots.strategies import DEFAULT_SIMULATIONS
from engine.cards import Card
from engine.errors import EngineError, HandSizeError
from engine.grid import CELLS, Grid, cell_name, parse_cell
from protocol.deals import BoardResult

# The seed of the analysis's own random draws: fixed, so that the same game
# gives the same figures in every front end and on every run.
ANALYSIS_SEED: Final = "analysis"
SIMULATIONS: Final = DEFAULT_SIMULATIONS
SEARCH_BUDGET: Final = DEFAULT_SEARCH_BUDGET
# How many of the costliest moves are marked, and the least loss worth a mark.
MARKED_MOVES: Final = 3
MARK_FROM: Final = 0.5


@dataclass(frozen=True)
class BoardInput:
    """One board to analyse: the deal, the cells played in order, whose it is."""

    cards: tuple[Card, ...]
    starter: Card
    placements: tuple[int, ...]
    player: str | None = None
    rank: int | None = None

    @property
    def complete(self) -> bool:
        return len(self.placements) == CELLS


@dataclass(frozen=True)
class BoardAnalysis:
    """The engine's analysis of one board; ``score`` is None for an unfinished one."""

    board: BoardInput
    score: int | None
    hindsight: HindsightBoard
    moves: tuple[MoveReview, ...]

    @property
    def total_loss(self) -> float:
        return sum(m.loss for m in self.moves)

    def marked(self) -> set[int]:
        """The turns of the costliest moves, worth pointing at."""
        costly = sorted(
            (m for m in self.moves if m.loss >= MARK_FROM), key=lambda m: (-m.loss, m.turn)
        )
        return {m.turn for m in costly[:MARKED_MOVES]}

    def review_at(self, turn: int) -> MoveReview | None:
        return next((m for m in self.moves if m.turn == turn), None)

    def to_dict(self) -> dict[str, object]:
        """The engine's ``GameAnalysis.to_dict()`` (score null when unfinished)."""
        return {
            "cards": [str(c) for c in self.board.cards],
            "starter": str(self.board.starter),
            "placements": [cell_name(i) for i in self.board.placements],
            "score": self.score,
            "hindsight": self.hindsight.to_dict(),
            "moves": [m.to_dict() for m in self.moves],
            "total_loss": round(self.total_loss, 3),
        }


def analyse(
    board: BoardInput,
    *,
    simulations: int = SIMULATIONS,
    budget: int = SEARCH_BUDGET,
    seed: str = ANALYSIS_SEED,
) -> BoardAnalysis:
    """Run the engine on one board. A finished board gets the full analysis;
    an unfinished one, the best completion of its placements and their review."""
    if board.complete:
        game = analyse_game(
            board.cards,
            board.starter,
            board.placements,
            seed=seed,
            simulations=simulations,
            search_budget=budget,
        )
        return BoardAnalysis(board, game.score, game.hindsight, game.moves)
    n = len(board.placements)
    hindsight = hindsight_best(
        board.cards, board.starter, fixed=board.placements, budget=budget, seed=seed
    )
    moves = review_moves(board.cards[:n], board.placements, seed=seed, simulations=simulations)
    return BoardAnalysis(board, None, hindsight, moves)


# --------------------------------------------------------------------------
# Inputs


def board_from_moves(cards: Sequence[Card], starter: Card, moves: Sequence[str]) -> BoardInput:
    """A deal and typed cell names (1 to 16, in deal order); raise EngineError."""
    if not 1 <= len(moves) <= CELLS:
        raise HandSizeError(f"give 1 to {CELLS} placements, got {len(moves)}")
    cells = tuple(parse_cell(m) for m in moves)
    grid = Grid()
    for turn, (cell, card) in enumerate(zip(cells, cards, strict=False), start=1):
        error = grid.why_illegal(cell)
        if error is not None:
            raise type(error)(f"move {turn} ({cell_name(cell)}): {error}")
        grid.place(cell, card)
    return BoardInput(tuple(cards), starter, cells)


def board_from_result(board: BoardResult, starter: str) -> BoardInput:
    """A finished board as the server reports it (a result or a stored match)."""
    ordered = sorted(board.placements, key=lambda p: p.turn)
    if len(ordered) != CELLS or [p.turn for p in ordered] != list(range(1, CELLS + 1)):
        raise EngineError(f"the board of {board.player.name} does not have its 16 placements")
    return BoardInput(
        tuple(Card.parse(p.card) for p in ordered),
        Card.parse(starter),
        tuple(parse_cell(p.cell) for p in ordered),
        player=board.player.name,
        rank=board.rank,
    )


def pick_boards(boards: Sequence[BoardResult], player: str | None) -> list[BoardResult]:
    """Every board in rank order, or the one of ``player`` (name or id, any case)."""
    if player is None:
        return sorted(boards, key=lambda b: (b.rank, b.seat))
    want = player.casefold()
    found = [b for b in boards if want in (b.player.name.casefold(), b.player.id.casefold())]
    if not found:
        names = ", ".join(b.player.name for b in boards) or "nobody"
        raise EngineError(f"no board of {player} in this match (players: {names})")
    return found[:1]


def board_of(boards: Sequence[BoardResult], player_id: str | None) -> BoardResult | None:
    """The board of ``player_id`` if it played, else the best-ranked one."""
    mine = [b for b in boards if player_id is not None and b.player.id == player_id]
    ranked = sorted(boards, key=lambda b: (b.rank, b.seat))
    found = mine or ranked
    return found[0] if found else None


# --------------------------------------------------------------------------
# Text


def _grid_lines(cells: Sequence[Card | None], *, glyphs: bool) -> list[Text]:
    lines = [Text("    " + "".join(f"{c:>4}" for c in "abcd"))]
    for row in range(4):
        line = Text(f"{row + 1:>3} ")
        for col in range(4):
            card = cells[4 * row + col]
            line.append(" ")
            line.append_text(card_text(str(card) if card else None, glyphs=glyphs))
        lines.append(line)
    return lines


def _side_by_side(left: list[Text], right: list[Text], gap: int = 6) -> list[Text]:
    width = max(len(t.plain) for t in left) + gap
    out = []
    for i in range(max(len(left), len(right))):
        line = left[i].copy() if i < len(left) else Text()
        line.pad_right(width - len(line.plain))
        if i < len(right):
            line.append_text(right[i])
        out.append(line)
    return out


def played_cells(board: BoardInput) -> list[Card | None]:
    cells: list[Card | None] = [None] * CELLS
    for card, cell in zip(board.cards, board.placements, strict=False):
        cells[cell] = card
    return cells


def method_text(h: HindsightBoard) -> str:
    if h.optimal and h.method == "exhaustive":
        return f"proved optimal: every reachable completion tried ({h.work:,})"
    if h.optimal:
        return f"proved optimal: it meets the upper bound of {h.upper_bound}"
    bound = f", upper bound {h.upper_bound}" if h.upper_bound is not None else ""
    return f"best found within a budget of {h.work:,} swaps tried{bound}"


def summary_lines(a: BoardAnalysis, *, glyphs: bool = True) -> list[Text]:
    """The two boards side by side and how the best one was found."""
    b = a.board
    played = Text("as played: ", "bold")
    if a.score is None:
        played.append(f"{len(b.placements)} of 16 placed", "yellow")
        best_head = Text("best completion: ", "bold")
    else:
        played.append(f"{a.score} points", "bold cyan")
        best_head = Text("hindsight best: ", "bold")
    best_head.append(f"{a.hindsight.score} points", "bold green")
    left = [played, *_grid_lines(played_cells(b), glyphs=glyphs)]
    right = [best_head, *_grid_lines(a.hindsight.cells, glyphs=glyphs)]
    lines = _side_by_side(left, right)
    how = Text("search: ", "dim")
    how.append(method_text(a.hindsight), "dim")
    lines.append(how)
    gap = Text()
    if a.score is not None:
        gap.append(f"{a.hindsight.score - a.score} points short of the hindsight best; ")
    gap.append(f"expected loss against the expert {a.total_loss:.1f} points", "bold")
    lines.append(gap)
    return lines


def move_lines(a: BoardAnalysis, *, glyphs: bool = True) -> list[Text]:
    """One line per move: card, cell played, the expert's cell, expected loss."""
    marked = a.marked()
    lines = [Text("turn  card  played  expert  loss", "bold")]
    for m in a.moves:
        line = Text(f"{m.turn:>4}  ")
        line.append_text(card_text(str(m.card), glyphs=glyphs))
        line.append(f"   {cell_name(m.played):<6}  ")
        line.append(f"{cell_name(m.bot_cell):<6}", "" if m.bot_cell == m.played else "yellow")
        style = "bold red" if m.turn in marked else ("" if m.loss >= 0.05 else "dim")
        line.append(f"{m.loss:>6.1f}", style)
        if m.turn in marked:
            line.append("  ◀ costly" if glyphs else "  <- costly", "bold red")
        lines.append(line)
    return lines


def analysis_lines(a: BoardAnalysis, *, glyphs: bool = True) -> list[Text]:
    head = Text()
    if a.board.player is not None:
        head.append(f"board of {a.board.player}", "bold")
        if a.board.rank is not None:
            head.append(f" (rank {a.board.rank})")
        head.append(", ")
    head.append("starter ")
    head.append_text(card_text(str(a.board.starter), glyphs=glyphs, width=0))
    return [head, *summary_lines(a, glyphs=glyphs), Text(), *move_lines(a, glyphs=glyphs)]


def step_text(a: BoardAnalysis, turn: int, *, glyphs: bool = True) -> Text:
    """The review of one move, for a replay: the expert's cell and the loss."""
    m = a.review_at(turn)
    if m is None:
        return Text()
    out = Text(f"played {cell_name(m.played)}, expert {cell_name(m.bot_cell)}")
    if m.loss >= 0.05:
        out.append(f", expected loss {m.loss:.1f}", "bold red" if turn in a.marked() else "yellow")
    else:
        out.append(", no loss", "green")
    return out
