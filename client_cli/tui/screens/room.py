"""The room before the match: its terms, every seat, who is ready."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import (
    DataTable,
    Footer,
    Static,
)

from client_cli.tui.screens.base import BaseScreen, _quiet
from client_cli.tui.widgets import (
    EventLog,
)
from protocol.fields import Pace


class RoomScreen(BaseScreen):
    TITLE = "room"
    HELP = """\
The room before the match: who is seated and who is ready.
The match starts when every seat is taken and everyone is ready,
or when the room's creator starts it.

Space / r   toggle ready
s           start the match now (creator only)
b           fill an empty seat with a bot (creator only)
Escape      leave the room
?           this help"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("space", "ready", "Ready"),
        Binding("r", "ready", "Ready", show=False),
        Binding("s", "start", "Start"),
        Binding("b", "bot", "Add bot"),
        Binding("escape", "leave", "Leave"),
    ]

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="room-head", classes="heading")
        yield _quiet(DataTable(id="seats", cursor_type="none", zebra_stripes=True))
        yield Static("", id="room-note", classes="note")
        yield EventLog(id="room-log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#seats", DataTable).add_columns("seat", "player", "ready", "connection")
        self.query_one("#room-log", EventLog).show(self.crib.log_lines)

    def show(self) -> None:
        super().show()
        room = self.model.room
        if room is None:
            return
        head = Text()
        head.append(room.name, "bold")
        head.append(f"   {room.visibility.value}, {room.pace.value}, ")
        clock = (
            f"{room.card_clock_ms // 1000}s per card"
            if room.pace == Pace.LOCKSTEP
            else f"{room.deal_clock_ms // 1000}s per deal"
        )
        head.append(clock)
        if room.deals > 1 or room.rated:
            head.append(f", {'best of ' + str(room.deals) if room.deals > 1 else 'one deal'}")
            head.append(", rated" if room.rated else ", casual", "bold" if room.rated else "")
        head.append(f"   id {room.id}", "dim")
        if room.invite_code:
            head.append("\ninvite code: ", "bold")
            head.append(room.invite_code, "bold yellow")
        self.query_one("#room-head", Static).update(head)
        table = self.query_one("#seats", DataTable)
        table.clear()
        for s in sorted(room.players, key=lambda s: s.seat):
            me = self.model.me is not None and s.player.id == self.model.me.id
            name = s.player.name + (" (you)" if me else "") + (" [bot]" if s.player.bot else "")
            if s.player.id == room.creator.id:
                name += " ★"
            table.add_row(
                str(s.seat + 1),  # seats are 0-based on the wire, 1-based for people
                Text(name, "bold" if me else ""),
                Text("✔ ready", "green") if s.ready else Text("· not ready", "dim"),
                Text("online", "green") if s.connected else Text("disconnected", "bold red"),
            )
        for _ in range(room.seats - len(room.players)):
            table.add_row("", Text("(empty seat)", "dim"), "", "")
        note = Text()
        if self.model.match is not None and self.model.match.result is not None:
            note.append("The last match is over. ", "italic")
        if self.model.am_ready():
            note.append("You are ready. ", "green")
        else:
            note.append("Press Space when you are ready. ", "bold")
        if self.model.is_creator:
            note.append("You created this room: s starts the match now, b adds a bot.")
        else:
            note.append(f"{room.creator.name} can start the match.")
        self.query_one("#room-note", Static).update(note)

    def log_line(self, line: str) -> None:
        for log in self.query("#room-log").results(EventLog):
            log.show(self.crib.log_lines)

    def action_ready(self) -> None:
        self.crib.set_ready(not self.model.am_ready())

    def action_start(self) -> None:
        if not self.model.is_creator:
            self.crib.tell("only the room's creator can start the match; press Space to be ready")
            return
        self.crib.start_match()

    def action_bot(self) -> None:
        if not self.model.is_creator:
            self.crib.tell("only the room's creator can add a bot")
            return
        self.pick_level("Add a bot", "adding a bot", self.crib.add_bot)

    def action_leave(self) -> None:
        self.crib.leave_room()
