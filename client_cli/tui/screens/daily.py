"""The daily deal: today's commitment, one's attempt, the standings, the streak,
the schedule, and yesterday's deal analysed against the field."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Input, Label, Static

from client_cli import daily as dd
from client_cli.analysis import BoardAnalysis
from client_cli.tui.forms import FormDialog, is_race, number_field, pace
from client_cli.tui.screens.base import BaseScreen, _quiet
from engine.errors import EngineError
from protocol.daily import Daily


class DailyDialog(FormDialog[dict[str, Any]]):
    """Today's attempt: the pace, and its clock."""

    SUBMIT = "play"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("The daily deal", "bold"), classes="title")
            yield Static(
                Text(
                    "Today's deal, the same for everyone, alone. One attempt: it counts "
                    "from its first card, and leaving forfeits it.",
                    "dim",
                ),
                classes="hint-line",
            )
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace(
                    "dl-pace", "lockstep: a clock for each card", "race: one clock for the deal"
                )
            yield from number_field(
                "Clock", "dl-clock", "seconds: 5-120 a card (lockstep), 30-1800 the deal (race)",
                value="30", max_length=4,
            )  # fmt: skip
            yield from self.compose_buttons("Play")

    def on_mount(self) -> None:
        self.query_one("#dl-pace").focus()  # the first field; Enter plays at once

    def _value(self) -> dict[str, Any] | None:
        race = is_race(self, "dl-pace")
        seconds = int(self.query_one("#dl-clock", Input).value.strip() or "30")
        if race and not 30 <= seconds <= 1800:
            self.refuse("a race's clock for the daily deal is 30 to 1800 seconds")
            return None
        if not race and not 5 <= seconds <= 120:
            self.refuse("a card clock for the daily deal is 5 to 120 seconds")
            return None
        if race:
            return {"pace": "race", "deal_clock_ms": seconds * 1000}
        return {"pace": "lockstep", "card_clock_ms": seconds * 1000}


class DailyScreen(BaseScreen):
    TITLE = "daily deal"
    HELP = """\
One deal a day for everyone (a UTC day, from midnight to midnight). Its
commitment, the SHA-256 of its secret, is published a week ahead; the secret
is revealed when the day is over, and anyone can check that it deals the
cards everyone played. One attempt per registered player, at the pace of your
choice; it counts from its first card (leaving forfeits it: the server places
the rest). Nobody sees anyone's cards before the day is over, only scores.

p       play today's deal (pace and clock)
y       yesterday / today
a       yesterday: analyse your board (points lost, the hindsight best)
s       the schedule of commitments
r       reload
Escape  back"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("escape", "app.pop_screen", "Back"),
        Binding("p", "play", "Play"),
        Binding("y", "yesterday", "Yesterday/today"),
        Binding("a", "analyse", "Analyse"),
        Binding("s", "schedule", "Schedule"),
        Binding("r", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    #daily-head { padding: 0 1; height: auto; }
    #daily-standings { height: auto; max-height: 35%; }
    #daily-scroll { height: 1fr; }
    #daily-body { padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.day: str | None = None  # None: today; or "yesterday"
        self.schedule = False
        self.analysis: BoardAnalysis | None = None
        self.analysing = False
        self.note = ""
        self.received: dict[str, tuple[Daily, float]] = {}  # when each view arrived

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("loading…", id="daily-head")
        yield _quiet(DataTable(id="daily-standings", cursor_type="none", zebra_stripes=True))
        yield VerticalScroll(Static("", id="daily-body"), id="daily-scroll")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#daily-standings", DataTable)
        table.add_columns(*dd.STANDINGS_COLUMNS)
        self.query_one("#daily-scroll").focus()  # the arrows scroll the day's analysis
        self.action_reload()
        self.set_interval(5, self._tick)

    def _tick(self) -> None:
        if self.app.screen is self:
            self.action_reload()

    def view(self) -> Daily | None:
        """The day shown: the one asked for, or the latest today the server told."""
        todays = [d for d in self.model.dailies.values() if d.day == d.today]
        latest = max(todays, key=lambda d: d.day, default=None)
        if self.day == "yesterday":
            return self.model.dailies.get(dd.yesterday_of(latest.today)) if latest else None
        return latest

    def action_reload(self) -> None:
        self.crib.ask_daily(self.day, 20, done=self._refused)

    def _refused(self, reason: str) -> None:
        self.note = f"✖ {reason}"
        if self.is_mounted:
            self.show()

    def action_play(self) -> None:
        found = self.view()
        if found is not None and found.you is not None and found.you.status != "none":
            self.crib.tell("you have played today's deal: one attempt a day")
            return
        self.app.push_screen(DailyDialog(), self._chosen)

    def _chosen(self, fields: dict[str, Any] | None) -> None:
        if fields is not None:
            self.crib.play_daily(fields)

    def action_yesterday(self) -> None:
        self.day = None if self.day else "yesterday"
        self.analysis, self.note = None, ""
        self.action_reload()
        self.show()

    def action_schedule(self) -> None:
        self.schedule = not self.schedule
        self.show()

    def action_analyse(self) -> None:
        found = self.view()
        if found is None or found.deal is None:
            self.crib.tell("a day's deal is analysed once it is over: y shows yesterday")
            return
        try:
            board = dd.board_input(found)
        except EngineError as exc:
            self.crib.refused(f"cannot analyse: {exc}")
            return
        if board is None:
            self.crib.tell("you did not play that day")
            return
        self.analysing = True
        self.show()
        assert found.you is not None and found.you.match_id is not None
        me = self.model.me.id if self.model.me else ""
        self.crib.analyse_input((found.you.match_id, me), board, self._analysed)

    def _analysed(self, found: BoardAnalysis | None) -> None:
        self.analysis, self.analysing = found, False
        if self.is_mounted:
            self.show()

    def show(self) -> None:
        super().show()
        if not self.is_mounted:
            return
        found = self.view()
        if found is not None:
            seen = self.received.get(found.day)
            if seen is None or seen[0] is not found:
                self.received[found.day] = (found, self.crib.now())
                if seen is not None:
                    self.note = ""  # a fresh answer: an earlier refusal is over
        head = self.query_one("#daily-head", Static)
        table = self.query_one("#daily-standings", DataTable)
        body = self.query_one("#daily-body", Static)
        if found is None:
            head.update(Text(self.note or "loading…", "bold red" if self.note else "italic"))
            table.clear()  # not another day's standings under this day's refusal
            table.display = False
            body.update("")
            return
        got = self.received.get(found.day)
        left = found.left_ms - (int((self.crib.now() - got[1]) * 1000) if got else 0)
        lines = dd.head_lines(found, left)
        if self.note:
            lines.append(Text(self.note, "bold red"))
        head.update(Text("\n").join(lines))
        me = self.model.me.id if self.model.me else None
        table.clear()
        for e in found.standings:
            row = dd.standings_row(e, me)
            style = "bold cyan" if e.player.id == me else ""
            table.add_row(*(Text(c, style) for c in row))
        table.display = bool(found.standings)
        out: list[Text] = []
        if self.schedule:
            out += dd.schedule_lines(found)
        elif found.deal is not None:
            glyphs = True
            out.append(dd.cards_line(found.deal.cards, found.deal.starter, glyphs=glyphs))
            out += [Text(line, "green" if line.startswith("✔") else "bold red")
                    for line in dd.verify_lines(found, self.model.daily_commitments)]  # fmt: skip
            if self.analysing:
                out.append(Text("analysing your board… (a few seconds)", "italic"))
            elif self.analysis is None and dd.my_moves(found) is not None:
                out.append(
                    Text("a: how many points you lost (hindsight best, expert review)", "dim")
                )
            out += dd.field_lines(found, self.analysis, glyphs=glyphs)
        elif found.status == "open":
            hint = "p plays today's deal" if found.you and found.you.status == "none" else ""
            out.append(Text(
                "Scores only until midnight UTC: nobody's cards are shown before the day "
                f"is over.  y: yesterday's deal against the field.  {hint}", "dim"))  # fmt: skip
        else:
            out.append(Text(dd.STATUS_TEXT[found.status], "dim"))
        body.update(Text("\n").join(out))
