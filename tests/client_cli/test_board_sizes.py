"""The board grows with the terminal: small at 80x24, large at 120x40 with each row's
and column's points so far; a click lands on the cell drawn under it at both sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical

from client_cli.tui.app import CribApp
from client_cli.tui.widgets import LARGE, SMALL, TOP, BoardView

CSS = Path(__file__).resolve().parents[2] / "client_cli" / "tui" / "cribsquares.tcss"
CELLS: list[str | None] = [None] * 16
CELLS[0], CELLS[1], CELLS[4], CELLS[5] = "5H", "TD", "5D", "KS"  # a1 b1 a2 b2


class Board(App[None]):
    CSS_PATH = str(CSS)
    HORIZONTAL_BREAKPOINTS = CribApp.HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = CribApp.VERTICAL_BREAKPOINTS

    def compose(self) -> ComposeResult:
        with Horizontal(id="game"), Vertical(id="board-pane"):
            yield BoardView(id="board")


def lines(board: BoardView) -> list[str]:
    return [line.plain.rstrip() for line in board.render().renderables]  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_board_is_large_with_its_points_where_there_is_room(
    size: tuple[int, int],
) -> None:
    app = Board()
    async with app.run_test(size=size) as pilot:
        board = app.query_one(BoardView)
        board.set_board(CELLS, legal=[2, 6, 8, 9, 10])
        await pilot.pause()
        large = size == (120, 40)
        g = LARGE if large else SMALL
        assert board.geometry == g
        assert (board.size.width, board.size.height) == (g.width, g.height), board.size
        drawn = lines(board)
        assert len(drawn) == g.height
        assert all(len(line) <= g.width for line in drawn), drawn
        assert app.screen.region.contains_region(board.region)
        if large:
            # Row 1 (5, 10: fifteen two) 2, row 2 (5, K: fifteen) 2; columns a (5, 5:
            # a pair) 2, b (10, K) 0, c and d 0; rows 3 and 4 empty: 0.
            middles = [drawn[TOP + g.cell_h * r + 2] for r in range(4)]
            assert [int(m.split()[-1]) for m in middles] == [2, 2, 0, 0], middles
            assert drawn[0].split()[-1] == "pts" and drawn[-1].split() == [
                "pts",
                "2",
                "0",
                "0",
                "0",
            ]
        else:
            assert not any(line.rstrip().endswith(" 2") for line in drawn), drawn


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_click_chooses_the_cell_under_it(size: tuple[int, int]) -> None:
    app = Board()
    chosen: list[int] = []
    async with app.run_test(size=size) as pilot:
        board = app.query_one(BoardView)
        board.set_board(CELLS, legal=[2, 6, 8, 9, 10])
        await pilot.pause()
        g = board.geometry
        original = board.post_message

        def note(message: object) -> bool:
            if isinstance(message, BoardView.CellChosen):
                chosen.append(message.index)
            return original(message)  # type: ignore[arg-type]

        board.post_message = note  # type: ignore[method-assign]
        for index in (10, 15, 0):
            row, col = divmod(index, 4)
            await pilot.click(BoardView, offset=(g.left + col * g.cell_w + 2,
                                                 TOP + row * g.cell_h + g.cell_h // 2))  # fmt: skip
        assert chosen == [10, 15, 0], chosen
