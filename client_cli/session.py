"""The client's network session: one WebSocket to the server, kept alive.

:class:`Session` connects, signs in (``hello`` with the saved token, or a name
to register), hands every parsed server message to a listener, and when the
connection drops reconnects with exponential backoff and signs in again with
the token, asking for a fresh ``room_state`` of the room it was in. It also
fetches the server's read-only HTTP JSON (history, matches, leaderboards).

On a server of several nodes it follows ``node_hint`` (docs/protocol.md): its
``hello`` says ``"follow_node": true`` (said again without it, once, to a server
that predates the field and refuses it as ``bad_message``), and a hint moves the
connection to the node that runs the room: once no request it sent is
unanswered, it closes with 1000 and signs in again at the same address with
``node=NODE`` in the URL's query (:mod:`client_cli.nodes`). What is sent
meanwhile waits for the new connection. When the server says it drops this
connection's frames (``rate_limited`` without a ``ref``), nothing is sent for a
second, and after the back-off the room is asked for as it stands
(:mod:`client_cli.flood`); both are told through the status listener as a note
with :attr:`Connection.ONLINE`.

It knows nothing about screens: front ends pass callbacks. It must never let
an exception escape to the user as a traceback: failures become
:class:`SessionError` with a readable message, or a status note.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import aiohttp
from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from client_cli.config import SavedSignIn, TokenStore
from client_cli.flood import Flood, drop_note
from client_cli.model.views import Connection
from client_cli.nodes import Moves, node_of, with_node
from client_cli.reach import os_error_text, unreachable
from client_cli.safe import clean, visible
from protocol.connection import ErrorMessage, Hello, NodeHint, Welcome
from protocol.fields import PROTOCOL_VERSION
from protocol.names import MAX_NAME
from protocol.wire import SERVER_ADAPTER, ServerMessage, frame_messages

CLIENT_NAME = "cribsquares-cli"
MAX_NAME_TRIES = 20  # a bot whose name is taken tries NAME-2 … NAME-20


def numbered(name: str, n: int) -> str:
    """The ``n``-th name a bot program tries after ``name`` was taken: ``NAME-n``, or
    before a last word ``bot`` (``expert-2 bot``: ``expert bot-2`` would read as the
    server's own bot ``expert bot 2``, a name nobody else may take)."""
    stem, space, last = name.rpartition(" ")
    suffix = f"-{n}"
    if space and last.casefold() == "bot":
        return stem[: MAX_NAME - len(suffix) - len(space + last)] + suffix + space + last
    return name[: MAX_NAME - len(suffix)] + suffix


# A request unanswered this long counts as lost (a frame the server dropped
# untold): a move to another node waits no longer for it.
REPLY_WAIT_S = 10.0
# How long a message sent while moving to another node waits for its connection.
MOVE_WAIT_S = 10.0

Listener = Callable[[ServerMessage], None]
StatusListener = Callable[[Connection, str], None]


class SessionError(Exception):
    """A failure to tell the player in one line (bad URL, sign-in refused...)."""


class SignInRefused(SessionError):
    """The server is up and answered the sign-in with a refusal (a taken name...)."""


class _SavedSignInForgotten(Exception):
    """The server refused the saved token (its database was reset, say): the name is
    registered again on a fresh connection, at once."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotFound(SessionError):
    """The server's HTTP side has nothing at that path (a 404)."""


class NotConnected(SessionError):
    def __init__(self) -> None:
        super().__init__("not connected to the server: reconnecting")


def normalize_url(url: str) -> str:
    """Accept ``host:port``, ``http://host:port`` or a full ``ws://host:port/ws``."""
    raw = url.strip()
    if "://" not in raw:
        raw = "ws://" + raw
    parts = urlsplit(raw)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    expected = "expected HOST:PORT or ws://HOST:PORT/ws"
    if scheme not in ("ws", "wss") or not parts.netloc or not parts.hostname:
        raise SessionError(f"not a server address: {visible(url)!r} ({expected})")
    try:
        parts.port  # noqa: B018 - a port that is not a number in range raises here
    except ValueError:
        raise SessionError(
            f"not a server address: {visible(url)!r} "
            f"(the port must be a number from 0 to 65535; {expected})"
        ) from None
    path = parts.path if parts.path not in ("", "/") else "/ws"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


def http_base(ws_url: str) -> str:
    parts = urlsplit(ws_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return urlunsplit((scheme, parts.netloc, "", "", ""))


def wire(msg: BaseModel) -> dict[str, Any]:
    """A client message as sent: fields left at their defaults are left out, so a
    server that predates an optional field still understands the message."""
    data = msg.model_dump(mode="json", exclude_defaults=True)
    data["type"] = getattr(msg, "type")  # noqa: B009 - every message has one
    return data


def describe(exc: BaseException) -> str:
    """A one-line, human description of a connection failure (what the server said
    in it made visible)."""
    return visible(_describe(exc))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ConnectionClosed):
        rcvd = exc.rcvd
        if rcvd is not None and rcvd.reason:
            return f"the server closed the connection ({rcvd.reason})"
        return "the connection was closed"
    if isinstance(exc, InvalidHandshake):
        return f"the server refused the WebSocket handshake ({exc})"
    return os_error_text(exc)


class Session:
    """A signed-in, self-healing connection to one server."""

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        guest: bool = False,
        store: TokenStore | None = None,
        listener: Listener | None = None,
        status: StatusListener | None = None,
        resume_room: Callable[[], str | None] | None = None,
        give_up_after: int | None = None,
        backoff: tuple[float, float] = (0.5, 10.0),
        bot: bool = False,
        client: str = CLIENT_NAME,
        follow_node: bool = True,
        resync_after_drop: bool = True,
    ) -> None:
        self.url = normalize_url(url)  # the address: its sign-in is saved under it
        self.ws_url = self.url  # what is connected to: the address, and the node followed
        self.name = name
        self.guest = guest
        self.store = store
        self.listener = listener or (lambda msg: None)
        self.status = status or (lambda state, note: None)
        self.resume_room = resume_room or (lambda: None)
        self.give_up_after = give_up_after
        self.backoff = backoff
        self.bot = bot  # a program playing on its own: signs in with "bot": true
        self.client = client
        # Say "follow_node" in hello (cleared for a server that refuses the field).
        self.follow_node = follow_node
        # After a drop notice, ask for the room as it stands (the bot kit does it per request).
        self.resync_after_drop = resync_after_drop
        self.flood = Flood()
        self._moves = Moves()
        self._move_to: str | None = None  # a hint followed, waiting for answers
        self._leaving = False  # this connection is closing to move to another node
        self._relocating = False  # from that close until signed in on the new node
        self._unanswered: dict[str, float] = {}  # ref -> when sent, on this connection
        self._tasks: set[asyncio.Task[None]] = set()  # a close for a move, a resync
        self._move_timer: asyncio.TimerHandle | None = None
        self._resync: asyncio.Task[None] | None = None  # waiting for the back-off to end
        self.welcome: Welcome | None = None
        self.token: str | None = None
        self._ws: ClientConnection | None = None
        self._closing = False
        self._pending: dict[str, asyncio.Future[ServerMessage]] = {}
        self._quiet: set[str] = set()  # refs whose error reply goes to the caller only
        self._held: list[ServerMessage] = []  # what came after the welcome in its frame
        self._refs = itertools.count(1)
        self._signed_in = asyncio.Event()

    # -- lifecycle -----------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._ws is not None and self.welcome is not None

    async def wait_signed_in(self, timeout: float | None = None) -> Welcome:
        await asyncio.wait_for(self._signed_in.wait(), timeout)
        assert self.welcome is not None
        return self.welcome

    async def close(self) -> None:
        self._closing = True
        self._stop_tasks()
        ws = self._ws
        if ws is not None:
            await ws.close()

    async def run(self) -> None:
        """Stay connected until :meth:`close`; raise :class:`SessionError` if hopeless."""
        try:
            await self._stay_connected()
        finally:
            self._stop_tasks()
        self.status(Connection.OFFLINE, "")

    async def _stay_connected(self) -> None:
        failures = 0
        ever_connected = False
        while not self._closing:
            note = ""
            if not self._relocating:  # a move is no connection lost: nothing to tell yet
                again = Connection.RECONNECTING if ever_connected else Connection.CONNECTING
                self.status(again, "")
            try:
                async with connect(
                    self.ws_url, open_timeout=5, ping_interval=15, ping_timeout=15, max_size=2**22
                ) as ws:
                    self._ws = ws
                    self.flood.reset()
                    await self._sign_in(ws, reconnect=ever_connected)
                    ever_connected = True
                    failures = 0
                    self.status(Connection.ONLINE, self._arrived())
                    async for frame in ws:
                        self._dispatch(frame)
                    reason = ws.close_reason
                    why = f" ({visible(reason)})" if reason else ""
                    note = "the server closed the connection" + why
            except SessionError:
                raise
            except _SavedSignInForgotten as exc:
                self.status(
                    Connection.CONNECTING,
                    f"the server no longer knows the saved sign-in ({exc.reason}):"
                    f" registering {self.name} as a new player",
                )
                continue  # at once, on a fresh connection: not a failure to reach it
            except InvalidURI as exc:
                raise SessionError(f"not a server address: {exc}") from None
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as exc:
                note = describe(exc)
            except Exception as exc:  # never let the session die: say so and reconnect
                note = f"unexpected error: {exc!r}"
            finally:
                self._ws = None
                self.welcome = None
                self._signed_in.clear()
                self._fail_pending()
                self._move_to = None  # a hint is per connection: a new one may follow
                if self._move_timer is not None:
                    self._move_timer.cancel()
            if self._closing:
                break
            if self._leaving:
                self._leaving = False
                continue  # to the room's node, at once: not a failure
            self._relocating = False  # the new node's connection failed: a reconnection now
            failures += 1
            if not ever_connected and self.give_up_after and failures >= self.give_up_after:
                raise SessionError(f"cannot reach {self.url}: {note}")
            delay = min(self.backoff[1], self.backoff[0] * 2 ** (failures - 1))
            delay *= random.uniform(0.8, 1.2)
            again = Connection.RECONNECTING if ever_connected else Connection.CONNECTING
            self.status(again, f"{note}; retrying in {delay:.0f}s")
            await asyncio.sleep(delay)

    def _stop_tasks(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._move_timer is not None:
            self._move_timer.cancel()

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- following node_hint -------------------------------------------------

    def _hinted(self, hint: NodeHint) -> None:
        """A hint naming the node that runs a room of ours: followed unless the URL
        names that node already or the moves of the last minute are used up."""
        now = asyncio.get_running_loop().time()
        if not self.follow_node or self._closing or self._leaving or hint.node == self._move_to:
            return
        if self._moves.follow(self.ws_url, hint.node, now):
            self._move_to = hint.node
            self._maybe_move()

    def _maybe_move(self) -> None:
        """Move to the node hinted once no request sent is unanswered (one unanswered
        for :data:`REPLY_WAIT_S` counts as dropped): close with 1000; :meth:`run`
        connects again at once, to the URL with ``node`` set."""
        node, ws = self._move_to, self._ws
        if node is None or ws is None or self._leaving:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        left = [sent + REPLY_WAIT_S - now for sent in self._unanswered.values()]
        left = [s for s in left if s > 0]
        if self._move_timer is not None:
            self._move_timer.cancel()
        if left:
            self._move_timer = loop.call_later(min(left), self._maybe_move)
            return
        self._move_to = None
        self.ws_url = with_node(self.ws_url, node)
        self._leaving = self._relocating = True
        self._signed_in.clear()  # what is sent now waits for the new connection
        self._spawn(ws.close(code=1000, reason="moving to the room's server node"))

    def _arrived(self) -> str:
        """Signed in: the note to tell, if this connection is the end of a move."""
        moved, self._relocating = self._relocating, False
        return f"moved to the room's server node {node_of(self.ws_url)}" if moved else ""

    # -- when the server drops frames ----------------------------------------

    def _dropped(self, notice: ErrorMessage) -> None:
        room = self.resume_room() if self.resync_after_drop else None
        note = drop_note(notice.reason, self.flood.wait_s, room is not None)
        self.status(Connection.ONLINE, note)
        waiting = self._resync
        if self.resync_after_drop and (waiting is None or waiting.done()):
            self._resync = self._spawn(self._resync_when_calm(self._ws))

    async def _resync_when_calm(self, ws: ClientConnection | None) -> None:
        """Once the back-off is over, ask for the room as it stands: what was dropped
        is not sent again blindly, the snapshot says what the server has. Every
        notice is followed by a resync sent after it: one that comes while this
        one is on its way calls for another."""
        loop = asyncio.get_running_loop()
        while True:
            told = self.flood.told_at
            while (left := self.flood.calm_at() - loop.time()) > 0:
                await asyncio.sleep(left)
            room = self.resume_room()
            if room is None or ws is None or ws is not self._ws:
                return
            with contextlib.suppress(NotConnected):
                await self.send_raw({"type": "resync", "room_id": room})
            if self.flood.told_at == told:
                return

    async def _sign_in(self, ws: ClientConnection, *, reconnect: bool) -> None:
        saved = self.store.get(self.url) if self.store else None
        if self.token is None and saved is not None:
            self.token = saved.token
        if self.token is not None:
            welcome = await self._hello(
                ws,
                Hello(
                    protocol=PROTOCOL_VERSION, token=self.token, client=self.client, bot=self.bot
                ),
            )
            if isinstance(welcome, ErrorMessage):
                self.token = None
                if self.store is not None and welcome.code == "bad_token":
                    self.store.forget(self.url)
                if not self.name:
                    raise SignInRefused(
                        f"the saved sign-in was refused ({welcome.reason}); "
                        "start again with --name NAME"
                    )
                # Registration needs a fresh connection: the server may close this one.
                raise _SavedSignInForgotten(welcome.reason)
        else:
            if not self.name and not self.guest:
                raise SessionError("no saved sign-in for this server: choose a name with --name")
            hello = Hello(
                protocol=PROTOCOL_VERSION,
                name=self.name,
                guest=self.guest,
                client=self.client,
                bot=self.bot,
            )
            welcome = await self._hello(ws, hello)
            # A bot program's name is registered like a person's (docs/protocol.md,
            # *Names*): taken (by itself on an earlier run, say), it registers as
            # NAME-2, NAME-3 … (expert-2 bot …) instead, on the same connection.
            base = self.name or ""
            for n in range(2, MAX_NAME_TRIES + 1):
                taken = isinstance(welcome, ErrorMessage) and welcome.code == "name_taken"
                if not (self.bot and taken and base):
                    break
                renamed = hello.model_copy(update={"name": numbered(base, n)})
                welcome = await self._hello(ws, renamed)
            if isinstance(welcome, ErrorMessage):
                raise SignInRefused(f"sign-in refused: {welcome.reason}")
        assert isinstance(welcome, Welcome)
        if welcome.token:
            self.token = welcome.token  # guests too: a reconnect must be the same player
        if welcome.token and self.store is not None and not welcome.player.guest:
            self.store.put(
                self.url, SavedSignIn(welcome.token, welcome.player.name, welcome.player.id)
            )
        self.welcome = welcome
        self._signed_in.set()
        self.listener(welcome)
        held, self._held = self._held, []
        for msg in held:
            self._deliver(msg)
        room = self.resume_room() if reconnect else None
        if room:
            await self.send_raw({"type": "resync", "room_id": room})

    async def _hello(self, ws: ClientConnection, hello: Hello) -> Welcome | ErrorMessage:
        """Say ``hello`` (with ``follow_node``, and again without it to a server that
        refuses the field) and read up to its answer."""
        if self.follow_node:
            answer = await self._say_hello(ws, hello.model_copy(update={"follow_node": True}))
            if not (
                isinstance(answer, ErrorMessage)
                and answer.code == "bad_message"
                and "follow_node" in answer.reason
            ):
                return answer
            self.follow_node = False  # a server that predates node_hint: never sends one
        return await self._say_hello(ws, hello)

    async def _say_hello(self, ws: ClientConnection, hello: Hello) -> Welcome | ErrorMessage:
        """Say ``hello`` and read up to its answer. What the answer's frame held after a
        welcome is kept in ``_held``, to be handled once the welcome is (in order)."""
        await ws.send(json.dumps(wire(hello)))
        while True:
            frame = await asyncio.wait_for(ws.recv(), 10)
            messages = self._parse(frame)
            for i, msg in enumerate(messages):
                if isinstance(msg, Welcome):
                    self._held = messages[i + 1 :]
                    return msg
                if isinstance(msg, ErrorMessage):
                    for after in messages[i + 1 :]:
                        self.listener(after)
                    return msg
                self.listener(msg)

    # -- frames --------------------------------------------------------------

    def _parse(self, frame: str | bytes) -> list[ServerMessage]:
        """A frame's messages, typed, their text made safe to show (client_cli.safe).

        A protocol-2 frame may be a JSON array of messages (docs/protocol.md,
        *Frames*); a message this client does not understand is left out, said so."""
        try:
            data: Any = json.loads(frame)
        except ValueError:
            self._not_understood(None)
            return []
        if not isinstance(data, list):
            message = self._typed(data, frame)
            return [] if message is None else [message]
        typed = (self._typed(item, None) for item in frame_messages(data))
        return [message for message in typed if message is not None]

    def _typed(self, data: Any, frame: str | bytes | None) -> ServerMessage | None:
        """One message (``frame``: its own JSON text, when it is a whole frame) typed."""
        try:
            safe = clean(data)
            text = frame if frame is not None and safe == data else json.dumps(safe)
            return SERVER_ADAPTER.validate_json(text)
        except (ValueError, ValidationError):
            self._not_understood(data.get("type") if isinstance(data, dict) else None)
            return None

    def _not_understood(self, kind: Any) -> None:
        shown = kind if kind is None else visible(str(kind))
        self.listener(
            ErrorMessage(
                code="client_parse",
                reason=f"ignored a server message ({shown!r}) this client does not understand",
            )
        )

    def _dispatch(self, frame: str | bytes) -> None:
        for msg in self._parse(frame):
            self._deliver(msg)

    def _deliver(self, msg: ServerMessage) -> None:
        if isinstance(msg, NodeHint):
            self._hinted(msg)
            return
        if self.flood.heard(msg, asyncio.get_running_loop().time()):
            assert isinstance(msg, ErrorMessage)
            self._dropped(msg)
        ref = getattr(msg, "ref", None)
        if ref:
            self._unanswered.pop(ref, None)
        if not (isinstance(msg, ErrorMessage) and ref in self._quiet):
            self.listener(msg)
        if ref and ref in self._pending:
            fut = self._pending.pop(ref)
            if not fut.done():
                fut.set_result(msg)
        if ref and self._move_to is not None:
            self._maybe_move()

    def _fail_pending(self) -> None:
        """The connection is gone: the requests sent on it will not be answered. One
        not sent yet (waiting for the node a hint moves to) is sent on the next."""
        for ref in self._unanswered:
            fut = self._pending.pop(ref, None)
            if fut is not None and not fut.done():
                fut.set_exception(NotConnected())
        self._unanswered.clear()
        if not self._relocating:
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(NotConnected())
            self._pending.clear()

    # -- sending -------------------------------------------------------------

    def next_ref(self) -> str:
        return f"c{next(self._refs)}"

    async def send_raw(self, data: dict[str, Any]) -> None:
        """Send one message: after a move has begun, on the new node's connection once
        signed in there; within a second of a drop notice, once that second is over."""
        loop = asyncio.get_running_loop()
        if self._relocating:
            try:
                await asyncio.wait_for(self._signed_in.wait(), MOVE_WAIT_S)
            except TimeoutError:
                raise NotConnected() from None
        quiet = self.flood.quiet_s(loop.time())
        if quiet > 0:
            await asyncio.sleep(quiet)
        ws = self._ws
        if ws is None or (self.welcome is None and data.get("type") != "hello"):
            raise NotConnected()
        ref = data.get("ref")
        if isinstance(ref, str):
            self._unanswered[ref] = loop.time()
        try:
            await ws.send(json.dumps(data))
        except ConnectionClosed:
            if isinstance(ref, str):
                self._unanswered.pop(ref, None)
            raise NotConnected() from None

    async def send(self, msg: BaseModel) -> str:
        """Send a client message with a fresh ``ref``; return that ref."""
        ref = self.next_ref()
        data = wire(msg)
        data["ref"] = ref
        await self.send_raw(data)
        return ref

    async def request(
        self, msg: BaseModel, timeout: float = 10.0, *, quiet: bool = False
    ) -> ServerMessage:
        """Send and wait for the first reply echoing its ref (an error included).

        ``quiet``: an error reply goes to the caller only, not to the listener (an
        attempt the caller may follow with another, such as an id then a code)."""
        ref = self.next_ref()
        data = wire(msg)
        data["ref"] = ref
        fut: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending[ref] = fut
        if quiet:
            self._quiet.add(ref)
        try:
            await self.send_raw(data)
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise SessionError("the server did not answer in time") from None
        finally:
            self._pending.pop(ref, None)
            self._quiet.discard(ref)

    # -- read-only HTTP ------------------------------------------------------

    async def get_json(self, path: str, **params: str | int) -> Any:
        """GET ``path`` on the server's HTTP side; raise :class:`SessionError`."""
        url = http_base(self.url) + path
        headers = {}
        token = self.token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            timeout = aiohttp.ClientTimeout(total=10)
            async with (
                aiohttp.ClientSession(timeout=timeout) as http,
                http.get(
                    url, params={k: str(v) for k, v in params.items()}, headers=headers
                ) as resp,
            ):
                if resp.status == 404:
                    raise NotFound(f"the server has nothing at {path}")
                if resp.status >= 400:
                    text = visible((await resp.text())[:200])
                    raise SessionError(f"{path}: HTTP {resp.status} {text}")
                return clean(await resp.json(content_type=None))
        except (aiohttp.ClientConnectionError, TimeoutError, OSError) as exc:
            raise SessionError(unreachable(http_base(self.url), exc)) from None
        except (aiohttp.ClientError, ValueError) as exc:
            raise SessionError(f"{path}: {visible(str(exc))}") from None


def path_quote(part: str) -> str:
    return quote(part, safe="")


# The strongest bot first; every server has "fallback".
BOT_PREFERENCE = ("expert", "fallback")


async def add_bot(session: Session, room_id: str, strategy: str | None = None) -> ServerMessage:
    """Seat a bot playing ``strategy``, or the strongest one the server has."""
    from protocol.rooms import AddBot

    reply: ServerMessage | None = None
    for name in (strategy,) if strategy else BOT_PREFERENCE:
        reply = await session.request(AddBot(room_id=room_id, strategy=name))
        if not (isinstance(reply, ErrorMessage) and reply.code == "unknown_strategy"):
            break
    assert reply is not None
    return reply


async def start_vs_bot(
    session: Session, my_name: str, contribution: str, strategy: str | None = None
) -> str:
    """One step to a game against a bot: a private 2-seat room, a bot, start.

    Three ordinary requests (``create_room``, ``add_bot``, ``start``); the
    listener sees their replies like any others. Returns the room id; raises
    :class:`SessionError` with the server's reason if a step is refused (the
    room is then left, so a failed attempt leaves no half-made room behind).
    """
    from protocol.fields import Visibility
    from protocol.rooms import CreateRoom, LeaveRoom, RoomState, StartMatch

    room = await session.request(
        CreateRoom(
            name=f"{my_name} vs bot"[:40],
            seats=2,
            visibility=Visibility.PRIVATE,
            contribution=contribution,
        )
    )
    if isinstance(room, ErrorMessage):
        raise SessionError(f"refused: {room.reason}")
    if not isinstance(room, RoomState):
        raise SessionError(f"unexpected reply to create_room: {room.type}")
    room_id = room.room.id
    reply = await add_bot(session, room_id, strategy)
    if not isinstance(reply, ErrorMessage):
        reply = await session.request(StartMatch(room_id=room_id))
    if isinstance(reply, ErrorMessage):
        await session.request(LeaveRoom(room_id=room_id))
        raise SessionError(f"refused: {reply.reason}")
    return room_id
