"""The results: every board itemized, the deal checked, the series, ratings and rematch."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.widgets import (
    Footer,
    Static,
)

from client_cli import analysis as ana
from client_cli import history as hist
from client_cli import tournaments as tt
from client_cli.model.text import rating_text, series_text, time_text
from client_cli.model.views import TournamentView
from client_cli.render import card_text
from client_cli.safe import visible
from client_cli.tui.screens.analysis import AnalysisScreen
from client_cli.tui.screens.base import BOARD_SCROLL, BaseScreen
from client_cli.tui.screens.replay import ReplayScreen
from client_cli.tui.widgets import (
    ResultBoard,
)
from protocol.fields import Pace


class ResultsScreen(BaseScreen):
    TITLE = "results"
    HELP = """\
Every board, revealed with the starter: each row and column scored as a
cribbage hand (fifteens, pairs, runs, flush, nobs), heels when the starter
is a jack, the total, the ranking and the wins (61 or more).

The ✔ mark says the client checked the deal itself: the revealed seed
matches the commitment published before the first card, comes from the
server's secret and every player's contribution, and deals exactly the
cards you received and the starter.

← → [ ] ↑ ↓ PgUp PgDn   scroll the boards
In a series (best of 3 or 5) the score of the series is on top and the next
deal starts by itself after a few seconds; at the end, the winner and, in a
rated match, how your rating moved.

← → [ ] ↑ ↓ PgUp PgDn   scroll the boards
p              replay this match placement by placement
a              analyse your board: the best board in hindsight and
               what each move cost against the expert bot
r              rematch: offer one, or accept your opponent's (again: withdraw);
               it starts when every player wants it
Enter/Escape   leave the room, back to the lobby (a tournament's table: back
               to the tournament; during a series: twice, since leaving
               forfeits it)
?              this help"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("p", "replay", "Replay"),
        Binding("a", "analyse", "Analyse"),
        Binding("r", "rematch", "Rematch"),
        Binding("enter", "leave", "Back"),  # to the lobby, or to the tournament from its table
        Binding("escape", "leave", "Lobby", show=False),
        Binding("left", "scroll_boards(-48, 0)", "←", show=False),
        Binding("right", "scroll_boards(48, 0)", "→", show=False),
        *BOARD_SCROLL,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.shown: str | None = None
        self.leaving = False  # Enter pressed once during a series: press again to forfeit
        self.series_was_over: tuple[bool, bool] | None = None

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="results-head", classes="heading")
        yield Static("", id="results-series", classes="heading")
        yield ScrollableContainer(id="boards", classes="boards", can_focus=False)
        yield Footer()

    def show(self) -> None:
        super().show()
        match = self.model.match
        if match is None or match.result is None:
            return
        result = match.result
        head = Text()
        head.append("Starter ", "bold")
        head.append_text(card_text(result.starter, width=0))
        me = self.model.me
        mine = next((b for b in result.boards if me and b.player.id == me.id), None)
        # A duplicate tournament's table has one board, ranked in the standings only.
        alone = len(result.boards) == 1
        daily = self.model.room is not None and self.model.room.origin == "daily"
        ranked = not (alone and (self.model.tournament_for_room() is not None or daily))
        race = match.pace == Pace.RACE
        if mine is not None:
            rank = f"#{mine.rank}, " if ranked else ""
            head.append(f"    you: {rank}{mine.score.total} points", "bold cyan")
            if race:
                head.append(f", {time_text(mine.time_used_ms)} used", "bold cyan")
            if mine.score.win:
                head.append("  (61+)", "bold green")
        if ranked:
            for note in result.ranking:  # why, where the score did not decide
                head.append("\n" + visible(note.text), "bold yellow")
        v = match.verification
        head.append("\n")
        if v is not None and v.ok:
            head.append("✔ deal verified", "bold green")
            head.append(
                visible(
                    f"  seed {result.seed[:16]}… matches commitment {result.seed_commitment[:16]}…"
                ),
                "dim",
            )
        elif v is not None:
            head.append(f"✖ {v.summary}", "bold red")
        self.query_one("#results-head", Static).update(head)
        self.show_series()
        if self.shown == result.match_id:
            return
        self.shown = result.match_id
        self.leaving = False
        self.refresh_bindings()  # whether a rematch is on offer here
        boards = self.query_one("#boards", ScrollableContainer)
        boards.remove_children()
        views = []
        # Your own board first, then the others by rank: on a narrow terminal the
        # board that is yours is never the one scrolled out of sight.
        order = sorted(result.boards, key=lambda b: not (me is not None and b.player.id == me.id))
        for board in order:
            view = ResultBoard()
            views.append((view, board))
        boards.mount_all([v for v, _ in views])
        for view, board in views:
            mine_too = me is not None and board.player.id == me.id
            view.show(board, mine_too, ranked=ranked, race=race)

    def on_mount(self) -> None:
        self.set_interval(0.5, self.show_series)

    def show_series(self) -> None:
        """The series, the rating change and the rematch: the lines that move by themselves."""
        model = self.model
        over = model.series_over()
        offered = model.room is not None and model.room.can_rematch
        if (over, offered) != self.series_was_over:  # the rematch key: the server's word
            self.series_was_over = (over, offered)
            self.refresh_bindings()
        t = Text()
        series = model.series
        if series is not None and series.best_of > 1:
            style = "bold green" if series.finished else "bold yellow"
            t.append(series_text(series, model.me, model.next_in_ms(self.crib.now())), style)
        change = model.my_rating_change()
        if change is not None:
            if t:
                t.append("\n")
            up = change.after >= change.before
            t.append(f"your {rating_text(change)}", "bold green" if up else "bold red")
        room = model.room
        tournament = model.tournament_for_room()
        if tournament is not None:
            if t:
                t.append("\n")
            t.append_text(self._tournament_line(tournament))
        elif model.spectating():
            if t:
                t.append("\n")
            t.append("You watched this match. Enter goes back to the lobby", "dim")
        elif room is not None and room.origin == "daily":
            if t:
                t.append("\n")
            t.append("Your attempt at today's daily deal is in: ", "bold")
            t.append("its rank and percentile are in the lobby's daily deal (d); the field's "
                     "boards, and yours analysed against them, once the day is over."
                     "  Enter goes back to the lobby", "dim")  # fmt: skip
        elif room is not None and model.series_over() and model.match is not None:
            wanted, others = model.rematch_state()
            seated = [s for s in room.players if not model.me or s.player.id != model.me.id]
            gone = [s.player.name for s in seated if not s.connected and not s.player.bot]
            waiting = [
                s.player.name
                for s in seated
                if s.player not in others and not s.player.bot and s.connected
            ]
            if t:
                t.append("\n")
            if not room.can_rematch:
                why = f"{', '.join(gone)} left the room: " if gone else ""
                t.append(f"{why}no rematch", "dim")
                t.append("  Enter goes back to the lobby", "dim")
            elif wanted and waiting:
                t.append(f"You asked for a rematch: waiting for {', '.join(waiting)}", "cyan")
                t.append("  (r withdraws)", "dim")
            elif wanted:
                t.append("Rematch: starting…", "cyan")
            elif others:
                names = ", ".join(p.name for p in others)
                verb = "wants" if len(others) == 1 else "want"
                t.append(f"{names} {verb} a rematch", "bold cyan")
                t.append("  r accepts", "bold")
            else:
                t.append("r offers a rematch, Enter goes back to the lobby", "dim")
        if self.leaving:
            if t:
                t.append("\n")
            t.append(
                "Leaving now forfeits the series: Enter again to leave, an arrow to stay",
                "bold red",
            )
        target = self.query_one("#results-series", Static)
        target.update(t)
        target.display = bool(t)

    def _tournament_line(self, view: TournamentView) -> Text:
        """Where this table's tournament stands, and the way back to it."""
        info, now = view.info, self.crib.now()
        me = self.model.me.id if self.model.me else None
        t = Text()
        t.append(f"🏆 {info.name}: ", "bold")
        t.append(tt.round_text(info, view.round_left_ms(now), view.next_round_ms(now)))
        mine = view.standing(me)
        if mine is not None:
            t.append(f"; you are #{mine.rank} of {len(info.standings)}", "bold cyan")
        if self.model.series_over():
            t.append("   Enter: back to the tournament's standings", "dim")
        return t

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            # Only when the server says a rematch can happen (the series is over,
            # nobody who would play it left, not a tournament's table nor a daily attempt).
            room = self.model.room
            offered = room is not None and room.can_rematch
            return self.model.series_over() and offered and not self.model.spectating()
        return True

    def action_leave(self) -> None:
        if not self.model.series_over() and not self.leaving:
            self.leaving = True
            self.show_series()
            return
        self.crib.leave_room()

    def action_rematch(self) -> None:
        self.leaving = False
        self.crib.rematch()
        self.show_series()

    def action_scroll_boards(self, dx: int, dy: int) -> None:
        if self.leaving:
            self.leaving = False
            self.show_series()
        super().action_scroll_boards(dx, dy)

    def action_replay(self) -> None:
        match = self.model.match
        if match is None or match.result is None:
            return
        r = match.result
        replay = hist.Replay(
            r.match_id,
            r.starter,
            tuple(r.boards),
            r.seed,
            r.seed_commitment,
            ranking=tuple(r.ranking),
        )
        self.app.push_screen(ReplayScreen(replay=replay))

    def action_analyse(self) -> None:
        match = self.model.match
        if match is None or match.result is None:
            return
        r = match.result
        board = ana.board_of(r.boards, self.model.me.id if self.model.me else None)
        if board is not None:
            self.app.push_screen(AnalysisScreen(r.match_id, r.starter, board))
