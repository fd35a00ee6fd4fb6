"""A whole server without sockets, for the fair-play property tests.

The real lobby with its tournaments and rooms, the real storage on a temporary
file and the hub's own restart path (``Hub.resume_series``), driven step by step
on a clock the test moves; bots answer when the test says so, so tables go out of
step. Everything anyone could read is recorded: every outbound message with its
recipients, and before every step that begins a deal, everything the HTTP API
would answer from the database and the lobby (:func:`public_views`).

:func:`derived` lists what the code's constructions make of a published value
(SHA-256 chains, the tournament HMACs, room seeds over the contributions in
use), for the test to prove that no deal's seed or secret is among them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.deal import commitment, room_seed, table_deal_secret, table_root
from protocol.fields import PlayerInfo
from server import errors
from server.bots import bot_factory, think
from server.config import LobbyConfig, ServerConfig
from server.events import EmbargoLifted, Event, MatchBegan, MatchEnded
from server.ids import IdSource
from server.lobby import Lobby
from server.room import BotTurn, Outbound
from server.shell import clock as server_clock
from server.shell.hub import Hub
from server.storage import Storage
from server.tournaments.model import round_contribution

CONFIG = LobbyConfig(between_deals_ms=2_000, between_rounds_ms=3_000, grace_ms=20_000)
SHA_STEPS = 6  # a published value hashed up to this many times


class SeededIds(IdSource):
    """Unguessable-looking ids and secrets, the same for the same seed (reproducible examples)."""

    def __init__(self, seed: int) -> None:
        self.seed, self.n = seed, 0

    def _next(self, kind: str, size: int) -> str:
        self.n += 1
        return hashlib.sha256(f"{kind}/{self.seed}/{self.n}".encode()).hexdigest()[:size]

    def room_id(self) -> str:
        return "r" + self._next("room", 8)

    def match_id(self) -> str:
        return "m" + self._next("match", 12)

    def invite_code(self) -> str:
        return "c" + self._next("code", 8)

    def server_secret(self) -> str:
        return self._next("secret", 64)


def strings(value: Any) -> Iterator[str]:
    """Every text inside a JSON-like value (keys are field names: left out)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


@dataclass(frozen=True)
class Begun:
    """A deal that began at one table: what must not be foreseeable."""

    match_id: str
    key: str  # the deal every table of a round shares ("tid/round#deal"), else the match id
    step: int
    seed: str
    secret: str
    contributions: tuple[str, ...]


def deal_key(event: MatchBegan) -> str:
    return f"{event.embargo}#{event.deal}" if event.embargo else event.match_id


class Recorder(Hub):
    """The hub with its one path from a lobby step to storage and the wire, recorded."""

    def __init__(self, world: World, storage: Storage, lobby: Lobby) -> None:
        super().__init__(ServerConfig(), storage, lobby)
        self.world = world

    async def apply(self, produce: Callable[[], list[Outbound]]) -> None:
        output = self.lobby.run(produce)
        events = output.events
        await self.world.record(output.messages, events)
        await self.storage.persist(events)
        if any(isinstance(e, MatchEnded) for e in events):
            self.world.http_after[self.world.step] = await self.world.public_answers()
        self.world.turns.extend(output.bot_turns)


@dataclass
class World:
    path: Path
    seed: int
    now: int = 1_700_000_000_000
    step: int = 0
    turns: list[BotTurn] = field(default_factory=list)
    begun: list[Begun] = field(default_factory=list)
    # (step, recipient, texts): every message, as received
    seen: list[tuple[int, str, frozenset[str]]] = field(default_factory=list)
    # step -> everything the HTTP API showed before that step (taken when it begins a deal)
    http: dict[int, frozenset[str]] = field(default_factory=dict)
    # step -> every HTTP answer (JSON) after that step, taken when a deal ended in it
    http_after: dict[int, list[Any]] = field(default_factory=dict)
    # (step, recipient, message as JSON)
    messages: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    ended: dict[str, int] = field(default_factory=dict)  # match id -> step it ended
    lifted: dict[str, int] = field(default_factory=dict)  # embargo group -> step lifted
    seated: dict[str, frozenset[str]] = field(default_factory=dict)  # match id -> players
    embargo_of: dict[str, str] = field(default_factory=dict)  # match id -> its group
    # deal key -> player -> the step its table began that deal
    players_of: dict[str, dict[str, int]] = field(default_factory=dict)
    match_ids: list[str] = field(default_factory=list)
    series_ids: set[str] = field(default_factory=set)
    player_ids: set[str] = field(default_factory=set)
    contribution_lists: set[tuple[str, ...]] = field(default_factory=set)
    storage: Storage | None = None
    hub: Recorder | None = None

    @property
    def lobby(self) -> Lobby:
        assert self.hub is not None
        return self.hub.lobby

    def _new_lobby(self) -> Lobby:
        return Lobby(CONFIG, ids=SeededIds(self.seed + self.step), bots=bot_factory,
                     think_elsewhere=True)  # fmt: skip

    async def open(self) -> None:
        self.storage = await Storage.open(self.path, batch_wait_s=0, opened_ms=0)
        self.hub = Recorder(self, self.storage, self._new_lobby())

    async def close(self) -> None:
        if self.storage is not None:
            await self.storage.close()

    async def apply(self, produce: Callable[[], list[Outbound]]) -> bool:
        """One step; False if it was refused (a refusal changes nothing)."""
        assert self.hub is not None
        try:
            await self.hub.apply(produce)
        except errors.RoomError:
            return False
        return True

    async def record(self, outs: list[Outbound], events: Sequence[Event]) -> None:
        self.step += 1
        begun = [e for e in events if isinstance(e, MatchBegan)]
        if begun:  # what the HTTP API shows before this step's deals begin
            self.http[self.step] = frozenset(strings(await self.public_answers()))
        for e in begun:
            key = deal_key(e)
            contributions = tuple(c for _, _, c in e.players)
            self.begun.append(Begun(e.match_id, key, self.step, e.seed, e.server_secret,
                                    contributions))  # fmt: skip
            self.contribution_lists.add(contributions)
            self.match_ids.append(e.match_id)
            self.series_ids.add(e.series_id)
            self.seated[e.match_id] = frozenset(p.id for _, p, _ in e.players)
            if e.embargo:
                self.embargo_of[e.match_id] = e.embargo
            for _, p, _ in e.players:
                self.player_ids.add(p.id)
                self.players_of.setdefault(key, {}).setdefault(p.id, self.step)
        for e in events:
            if isinstance(e, MatchEnded):
                self.ended[e.match_id] = self.step
            elif isinstance(e, EmbargoLifted):
                self.lifted.setdefault(e.embargo, self.step)
        for out in outs:
            message = out.message.model_dump(mode="json")
            texts = frozenset(strings(message))
            for pid in out.to:
                self.seen.append((self.step, pid, texts))
                self.messages.append((self.step, pid, message))

    def shown_from(self, match_id: str) -> int:
        """The step from which anyone may see the cards of a match: its end, or for a
        tournament deal the lifting of its round's embargo (never: a huge step)."""
        group = self.embargo_of.get(match_id)
        if group is not None:
            return self.lifted.get(group, 1 << 60)
        return self.ended.get(match_id, 1 << 60)

    async def public_answers(self) -> list[Any]:
        """Every HTTP answer the server would give now, as JSON (its routes' views:
        matches, series, players' matches and ratings, tournaments with their live
        standings and exports, the public rooms)."""
        storage, lobby = self.storage, self.lobby
        assert storage is not None
        views: list[Any] = [await storage.recent_matches(1_000), await storage.tournaments()]
        for mid in self.match_ids:
            views.append(await storage.match(mid))
        for sid in self.series_ids:
            views.append(await storage.series(sid))
        for pid in self.player_ids:
            views.append(await storage.player_matches(pid))
            views.append(await storage.player_ratings(pid))
        for tid, director in lobby.tournaments.directors.items():
            views.append(await storage.tournament(tid))
            views.append(await storage.tournament_boards(tid))
            views.append([s.model_dump(mode="json") for s in director.standings()])
        views.append([r.summary().model_dump(mode="json") for r in lobby.rooms.values()])
        return views

    # ------------------------------------------------------------------

    async def tick(self, ms: int) -> None:
        self.now += ms
        await self.apply(lambda: self.lobby.tick(self.now))

    async def bot(self, index: int) -> None:
        """A pending bot move arrives (the index-th waiting, so tables go out of step)."""
        if not self.turns:
            return
        turn = self.turns.pop(index % len(self.turns))
        cell = think(turn)
        await self.apply(
            lambda: self.lobby.bot_move(turn.room_id, turn.player_id, turn.turn, cell, self.now)
        )

    async def restart(self, players: Sequence[PlayerInfo]) -> None:
        """The server stops and starts again on its database; everyone signs in again."""
        assert self.storage is not None and self.hub is not None
        self.turns.clear()
        self.hub = Recorder(self, self.storage, self._new_lobby())
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(server_clock, "now_ms", lambda: self.now)
            await self.hub.resume_series()
        for p in players:
            await self.apply(lambda p=p: self.lobby.connect(p, self.now))

    # ------------------------------------------------------------------

    def published_before(self, begun: Begun) -> Iterator[str]:
        """Everything someone who does not play ``begun``'s deal could have read before
        it began: messages to non-players in earlier steps, and the HTTP API then."""
        players = self.players_of.get(begun.key, {})
        for step, pid, texts in self.seen:
            if step >= begun.step:
                break
            if players.get(pid, begun.step + 1) > step:  # not (yet) a player of that deal
                yield from texts
        yield from self.http.get(begun.step, ())


def derived(value: str, tids: Sequence[str], rounds: int, deals: int,
            contribution_lists: Sequence[tuple[str, ...]]) -> set[str]:  # fmt: skip
    """What the code's constructions make of a published ``value``: itself, its SHA-256
    up to SHA_STEPS times, the tournament HMACs keyed by it (a table root of every
    round of every tournament, every deal's secret from it and from those roots),
    and the room seed of each of those with every list of contributions in use."""
    try:
        if not 1 <= len(value.encode("utf-8")) <= 256:
            return {value}
    except UnicodeEncodeError:
        return {value}
    made = {value}
    x = value
    for _ in range(SHA_STEPS):
        x = commitment(x)
        made.add(x)
    for j in range(1, deals + 1):
        made.add(table_deal_secret(value, j))
    for tid in tids:
        for k in range(1, rounds + 1):
            root = table_root(value, tid, k)
            made.add(root)
            made.update(table_deal_secret(root, j) for j in range(1, deals + 1))
    seeds = {room_seed(m, list(c)) for m in made for c in contribution_lists}
    return made | seeds


def round_contributions(world: World) -> set[str]:
    """Every round contribution the tournaments could have made of their entrants'
    published contributions (``round_contribution`` over published parts)."""
    made = set()
    for tid, director in world.lobby.tournaments.directors.items():
        contribs = [e.contribution for e in director.entrants.values()]
        for k in range(1, len(director.rounds) + 2):
            made.add(round_contribution(tid, k, contribs))
    return made


def card_leaks(value: Any, hidden: Callable[[str], bool]) -> Iterator[str]:
    """Where ``value`` (a message or an HTTP answer, as JSON) shows a card of a match
    ``hidden`` says is not to be shown: its seed, secret or starter, a board's cells,
    placements or itemized score. Yields a description of each."""
    if isinstance(value, dict):
        match_id = value.get("match_id")
        if isinstance(match_id, str) and hidden(match_id):
            for key in ("seed", "server_secret", "starter"):
                if value.get(key):
                    yield f"{key} of {match_id}"
            for board in value.get("boards") or []:
                for key in ("cells", "placements", "detail", "score"):
                    if isinstance(board, dict) and isinstance(board.get(key), (dict, list)):
                        yield f"a board's {key} of {match_id}"
            if value.get("cells"):
                yield f"cells of {match_id}"
        for v in value.values():
            yield from card_leaks(v, hidden)
    elif isinstance(value, list):
        for v in value:
            yield from card_leaks(v, hidden)


RESULT_KEYS = ("rank", "score", "time_used_ms")


def score_leaks(value: Any, hidden: Callable[[str], bool], best_of: int = 1) -> Iterator[str]:
    """Where ``value`` shows a result of a deal still hidden (the score embargo): a
    board's rank, score or time used of a match ``hidden`` says is, or its ranking
    notes, a listed row's or an opponent's; a tournament round being played's table
    points or winners (the ``tournament`` message, ``GET /api/tournaments/{id}``), or
    standings that count more deals than the rounds over hold (``best_of`` a round);
    the daily deal's standings with their numbers on a day still open, to anyone
    over HTTP or a registered player who has not finished it (a guest may see them:
    do not pass a guest's messages)."""
    if isinstance(value, dict):
        mid = value.get("match_id")
        if isinstance(mid, str) and hidden(mid):
            for board in value.get("boards") or []:
                for key in RESULT_KEYS:
                    if isinstance(board, dict) and board.get(key) is not None:
                        yield f"a board's {key} of {mid}"
            if value.get("ranking"):
                yield f"the ranking notes of {mid}"
            if "boards" not in value:  # a row of a list, or a stored tournament's deal
                for key in RESULT_KEYS:
                    if value.get(key) is not None:
                        yield f"the {key} of {mid} in a list"
                if value.get("results"):
                    yield f"the results of {mid}"
                for other in value.get("opponents") or []:
                    if isinstance(other, dict) and other.get("score") is not None:
                        yield f"an opponent's score of {mid}"
        history, tables = value.get("history"), value.get("tables")
        if isinstance(history, list) and history and isinstance(tables, list):
            playing = history[-1] if isinstance(history[-1], dict) else {}
            if playing.get("status") == "playing":
                for t in tables:
                    if isinstance(t, dict) and (t.get("points") or t.get("winner")):
                        yield f"round {playing.get('number')}'s table {t.get('number')}'s result"
                over = sum(1 for r in history if isinstance(r, dict) and r["status"] == "finished")
                for row in value.get("standings") or []:
                    if isinstance(row, dict) and row.get("deals", 0) > over * best_of:
                        yield f"standings counting round {playing.get('number')}"
        if "schedule" in value and value.get("status") == "open":  # a day of the daily deal
            you = value.get("you")
            if not isinstance(you, dict) or you.get("status") != "finished":
                for row in value.get("standings") or []:
                    if isinstance(row, dict) and (row.get("score") is not None or row.get("rank")):
                        yield "the day's scores to someone who may still play it"
        rounds = value.get("rounds")
        for r in rounds if isinstance(rounds, list) else []:
            if isinstance(r, dict) and "finished_ms" in r and r["finished_ms"] is None:
                for t in r.get("tables") or []:
                    if isinstance(t, dict) and (t.get("winner_id") or t.get("points")):
                        yield f"stored round {r.get('round')}'s table {t.get('table')}'s result"
        for v in value.values():
            yield from score_leaks(v, hidden, best_of)
    elif isinstance(value, list):
        for v in value:
            yield from score_leaks(v, hidden, best_of)
