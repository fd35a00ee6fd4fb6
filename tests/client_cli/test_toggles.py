"""Radio buttons and checkboxes read without colour: the mark says on or off
(Textual's own draw the same mark both ways, told apart by colour alone)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import RadioSet

from client_cli.tui.toggles import Choice, Tick


class Toggles(App[None]):
    def compose(self) -> ComposeResult:
        with RadioSet():
            yield Choice("lockstep", value=True, id="lockstep")
            yield Choice("race", id="race")
        yield Tick("private", id="private")


def mark(app: App[None], id: str) -> str:
    return str(app.query_one(f"#{id}").render())


async def test_the_mark_says_on_or_off() -> None:
    app = Toggles()
    async with app.run_test() as pilot:
        assert "◉" in mark(app, "lockstep") and "○" in mark(app, "race")
        assert "✓" not in mark(app, "private")
        app.query_one("#race", Choice).value = True  # the set moves the choice
        app.query_one("#private", Tick).value = True
        await pilot.pause()
        assert "○" in mark(app, "lockstep") and "◉" in mark(app, "race")
        assert "✓" in mark(app, "private")
