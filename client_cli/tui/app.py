"""The full-screen terminal client (Textual).

:class:`CribApp` owns the client-side model and the network session. The
session runs in a ``@work`` worker on the app's event loop; every server
message is folded into the model, then the screen the model calls for is
shown and redrawn. Requests to the server are sent from short workers too,
so no key press ever waits on the network.
"""

from __future__ import annotations

import secrets
import time
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType

from client_cli.config import TokenStore
from client_cli.model import ClientModel, Connection, View
from client_cli.session import Session, SessionError
from client_cli.tui.screens import (
    BaseScreen,
    GameScreen,
    LobbyScreen,
    ResultsScreen,
    RoomScreen,
    SignInScreen,
)
from protocol.messages import (
    AddBot,
    CreateRoom,
    ErrorMessage,
    JoinRoom,
    LeaveRoom,
    ListRooms,
    Place,
    Ready,
    RoomStatus,
    ServerMessage,
    StartMatch,
)

BOT_PREFERENCE = ("expert", "fallback")


class CribApp(App[int]):
    CSS_PATH = "cribsquares.tcss"
    TITLE = "Cribbage Squares"
    ENABLE_COMMAND_PALETTE = False
    MODES: ClassVar[dict[str, Any]] = {
        View.SIGN_IN.value: SignInScreen,
        View.LOBBY.value: LobbyScreen,
        View.ROOM.value: RoomScreen,
        View.GAME.value: GameScreen,
        View.RESULTS.value: ResultsScreen,
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        guest: bool = False,
        store: TokenStore | None = None,
    ) -> None:
        super().__init__()
        self.model = ClientModel(url)
        self.store = store if store is not None else TokenStore()
        self.session = Session(
            url,
            name=name,
            guest=guest,
            store=self.store,
            listener=self.on_server_message,
            status=self.on_connection,
            resume_room=lambda: self.model.room.id if self.model.room else None,
        )
        self.model.server_url = self.session.url
        self.log_lines: list[str] = []
        self.sign_in_error: str | None = None
        self.connecting = False
        self.quiet_refs: set[str] = set()

    # -- lifecycle -----------------------------------------------------------

    def on_mount(self) -> None:
        self.switch_mode(View.SIGN_IN.value)
        if self.session.name or self.session.guest or self.store.get(self.session.url):
            self.sign_in(self.session.name)

    def sign_in(self, name: str | None) -> None:
        self.session.name = name
        self.sign_in_error = None
        self.connecting = True
        self.run_session()

    @work(exclusive=True, group="session", exit_on_error=False)
    async def run_session(self) -> None:
        try:
            await self.session.run()
        except SessionError as exc:
            self.sign_in_error = str(exc)
            self.model.me = None
            self.model.set_connection(Connection.OFFLINE, str(exc))
        finally:
            self.connecting = False
            self.refresh_views()

    async def action_quit(self) -> None:
        await self.session.close()
        self.exit(0)

    # -- model updates -------------------------------------------------------

    def on_server_message(self, msg: ServerMessage) -> None:
        if isinstance(msg, ErrorMessage) and (
            msg.ref in self.quiet_refs or msg.code == "unknown_strategy"
        ):
            self.quiet_refs.discard(msg.ref or "")
            return
        lines = self.model.apply(msg, time.monotonic())
        try:
            if isinstance(msg, ErrorMessage):
                self.refused(msg.reason)
            self._log(lines)
            self.refresh_views()
        except Exception as exc:  # a drawing bug must not cost the connection
            self.log.error(f"redraw failed on {msg.type}: {exc!r}")
            self.notify(f"display problem: {exc}", severity="error")

    def on_connection(self, state: Connection, note: str) -> None:
        lines = self.model.set_connection(state, note)
        if state == Connection.RECONNECTING:
            self.notify(f"Connection lost: {note or 'reconnecting'}", severity="warning", timeout=3)
        self._log(lines)
        self.refresh_views()

    def _log(self, lines: list[str]) -> None:
        self.log_lines += lines
        del self.log_lines[:-500]
        screen = self.screen
        writer = getattr(screen, "log_line", None)
        if writer is not None:
            for line in lines:
                writer(line)

    def refresh_views(self) -> None:
        """Show the screen the model calls for, and redraw it."""
        view = self.model.view
        if view.value != self.current_mode:
            # Dialogs and overlays belong to the view being left.
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self.switch_mode(view.value)
            return  # the new screen draws itself on resume
        for screen in self.screen_stack:
            if isinstance(screen, BaseScreen) and screen.is_mounted:
                screen.show()

    def tell(self, text: str) -> None:
        self.notify(text, timeout=4)

    def refused(self, reason: str) -> None:
        screen = self.screen
        if isinstance(screen, GameScreen):
            screen.refuse(reason)
        self.notify(reason, title="Refused", severity="error", timeout=5)

    # -- requests ------------------------------------------------------------

    @work(group="requests", exit_on_error=False)
    async def send(self, msg: BaseModel, quiet: bool = False) -> None:
        try:
            ref = await self.session.send(msg)
        except SessionError as exc:
            if not quiet:
                self.refused(str(exc))
            return
        if quiet:
            self.quiet_refs.add(ref)

    def _build(self, cls: type[BaseModel], **fields: Any) -> BaseModel | None:
        try:
            return cls(**fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            self.refused(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
            return None

    def _contribution(self) -> str:
        self.model.contribution = secrets.token_hex(16)
        return self.model.contribution

    def list_rooms(self) -> None:
        if self.session.connected:
            self.send(ListRooms())

    def create_room(self, fields: dict[str, Any]) -> None:
        msg = self._build(CreateRoom, contribution=self._contribution(), **fields)
        if msg is not None:
            self.send(msg)

    def join_room(self, *, room_id: str | None = None, invite_code: str | None = None) -> None:
        if invite_code is not None:
            self._join_code(invite_code)
            return
        msg = self._build(JoinRoom, room_id=room_id, contribution=self._contribution())
        if msg is not None:
            self.send(msg)

    @work(group="requests", exit_on_error=False)
    async def _join_code(self, code: str) -> None:
        # An invite code first; if no room has it, the text may be a room id.
        try:
            reply = await self.session.request(
                JoinRoom(invite_code=code, contribution=self._contribution())
            )
            if isinstance(reply, ErrorMessage) and reply.code == "room_not_found":
                await self.session.request(
                    JoinRoom(room_id=code, contribution=self._contribution())
                )
        except (SessionError, ValidationError) as exc:
            self.refused(str(exc))

    def _room_id(self) -> str | None:
        return self.model.room.id if self.model.room else None

    def set_ready(self, ready: bool) -> None:
        if (room := self._room_id()) is not None:
            self.send(Ready(room_id=room, ready=ready))

    def start_match(self) -> None:
        if (room := self._room_id()) is not None:
            self.send(StartMatch(room_id=room))

    @work(group="requests", exit_on_error=False)
    async def add_bot(self) -> None:
        room = self._room_id()
        if room is None:
            return
        try:
            # The strongest bot the server has; every server has "fallback".
            for strategy in BOT_PREFERENCE:
                reply = await self.session.request(AddBot(room_id=room, strategy=strategy))
                if not (isinstance(reply, ErrorMessage) and reply.code == "unknown_strategy"):
                    return
        except SessionError as exc:
            self.refused(str(exc))

    def leave_room(self) -> None:
        room = self.model.room
        if room is None:
            return
        if room.status == RoomStatus.FINISHED:
            # A finished room is over for good: go now, and let the server forget it quietly.
            self.model.forget_room()
            self.send(LeaveRoom(room_id=room.id), quiet=True)
            self.refresh_views()
        else:
            self.send(LeaveRoom(room_id=room.id))

    def place(self, cell: str) -> None:
        match = self.model.match
        if (room := self._room_id()) is not None and match is not None and match.turn:
            self.send(Place(room_id=room, turn=match.turn, cell=cell))
