"""The writer's side: a batch of submissions in one transaction, and each event's SQL.

Runs on the writer's thread, on the :class:`~server.storage.sql.Tx` of either
backend. Only persists what the rooms, the lobby and the directors decided
(server.events); the tournaments', pruning's and the players' own SQL are in
their modules (:mod:`server.storage.tournaments`, :mod:`server.storage.daily`,
:mod:`server.storage.pruning`, :mod:`server.storage.players`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeGuard

from server.events import (
    Abandoned,
    CardPlaced,
    EmbargoLifted,
    Event,
    MatchBegan,
    MatchEnded,
    RatingChanged,
    RoomOpened,
    SeriesBegan,
    SeriesEnded,
)
from server.records import Draw, Fence, FencedOut, NameInUse
from server.storage import daily, players, pruning, quarantine, tournaments
from server.storage.records import AbandonSeries, NewPlayer
from server.storage.sql import Tx, chunks

Write = (
    Event | NewPlayer | AbandonSeries | tournaments.Abandon | pruning.Prune | Draw | Fence
    | quarantine.SetAside | quarantine.Resumed
)  # fmt: skip
_OWN = (
    NewPlayer, AbandonSeries, tournaments.Abandon, pruning.Prune, Draw, Fence,
    quarantine.SetAside, quarantine.Resumed,
)  # fmt: skip


def is_event(write: Write) -> TypeGuard[Event]:
    return not isinstance(write, _OWN)


def write_batch(
    tx: Tx, batch: list[Sequence[Write]], unique_violation: Callable[[BaseException], bool]
) -> list[BaseException | None]:
    """Write every submission of ``batch`` in the transaction ``tx``.

    Returns one outcome per submission: None, or :class:`NameInUse` for a
    registration refused (undone alone, in its savepoint: the rest of the batch
    still commits). Anything else that fails raises, and the caller rolls the
    whole transaction back: nothing of the batch is stored. Placements, the bulk
    of the traffic, go in with one :meth:`~server.storage.sql.Tx.append` per run
    of consecutive placements, in submission order with everything else.

    The fences (every step of a room's owner carries its token) come first, each
    key and token once, in one statement (:func:`_write_fences`): the first write
    of a fence holds its row until the commit, so checking them all before the
    rest of the transaction comes out as checking each where it stands.
    """
    _write_fences(tx, batch)
    outcomes: list[BaseException | None] = []
    placements: list[tuple[object, ...]] = []
    for events in batch:
        failure: BaseException | None = None
        for event in events:
            if isinstance(event, CardPlaced):
                placements.append(_placement_row(event))
                continue
            if type(event) is Fence:
                continue
            if placements:
                _insert_placements(tx, placements)
                placements = []
            if isinstance(event, NewPlayer):
                try:
                    with tx.savepoint():
                        _apply(tx, event)
                except players.NameTaken:
                    failure = NameInUse(event.player.name)
                except Exception as exc:
                    # A unique key taken: the name's (or its token's); anything else is
                    # a failed write.
                    if not unique_violation(exc):
                        raise
                    failure = NameInUse(event.player.name)
                continue
            _apply(tx, event)
        outcomes.append(failure)
    if placements:
        _insert_placements(tx, placements)
    return outcomes


def _write_fences(tx: Tx, batch: list[Sequence[Write]]) -> None:
    """Every fence of ``batch``: the keys with one token in the batch (nearly always all
    of them) in one statement, a key with several (a lease taken again meanwhile) a
    statement a token, in order. Raises :class:`FencedOut` if any is stale."""
    tokens: dict[str, list[int]] = {}
    for events in batch:
        for event in events:
            if type(event) is Fence:
                seen = tokens.setdefault(event.key, [])
                if event.token not in seen:
                    seen.append(event.token)
    once = [(key, seen[0]) for key, seen in tokens.items() if len(seen) == 1]
    for part in chunks(once):
        _fence(tx, part)
    for key, seen in tokens.items():
        if len(seen) > 1:
            for token in seen:
                _fence(tx, [(key, token)])


def _fence(tx: Tx, fences: Sequence[tuple[str, int]]) -> None:
    if len(fences) == 1:
        key, token = fences[0]
        stale = FencedOut(f"{key}: a newer owner holds it (token {token} is stale)")
    else:
        stale = FencedOut(f"a newer owner holds one or more of {len(fences)} keys")
    rows = ", ".join(f"({{key_{i}}}, {{token_{i}}})" for i in range(len(fences)))
    args: dict[str, object] = {}
    for i, (key, token) in enumerate(fences):
        args[f"key_{i}"], args[f"token_{i}"] = key, token
    tx.expect(
        f"INSERT INTO fences (key, token) VALUES {rows}"
        " ON CONFLICT (key) DO UPDATE SET token = excluded.token"
        " WHERE excluded.token >= fences.token",
        args,
        len(fences),
        stale,
    )


PLACEMENT_COLUMNS = (
    "match_id", "player_id", "turn", "cell", "card", "elapsed_ms", "auto", "placed_ms",
)  # fmt: skip


def _placement_row(event: CardPlaced) -> tuple[object, ...]:
    return (
        event.match_id, event.player_id, event.turn, event.cell, event.card,
        event.elapsed_ms, int(event.auto), event.at_ms,
    )  # fmt: skip


def _insert_placements(tx: Tx, rows: list[tuple[object, ...]]) -> None:
    tx.append("placements", PLACEMENT_COLUMNS, rows)


def _apply(tx: Tx, event: Write) -> None:
    if isinstance(event, pruning.Prune):
        pruning.apply(tx, event)
        return
    if tournaments.apply(tx, event):  # type: ignore[arg-type]
        return
    if daily.apply(tx, event):
        return
    if quarantine.apply(tx, event):
        return
    match event:
        case NewPlayer(player=p, token_hash=h):
            players.new_player(tx, p.id, p.name, p.guest, p.bot, h, event.at_ms)
        case RoomOpened():
            tx.insert(
                "rooms",
                ("id", "name", "visibility", "pace", "seats", "card_clock_ms", "deal_clock_ms",
                 "creator_id", "server_commitment", "created_ms", "invite_code", "deals",
                 "rated", "origin"),
                [(event.room_id, event.name, event.visibility, event.pace, event.seats,
                  event.card_clock_ms, event.deal_clock_ms, event.creator_id,
                  event.server_commitment, event.at_ms, event.invite_code, event.deals,
                  int(event.rated), event.origin)],
                skip_existing=True,
            )  # fmt: skip
        case MatchBegan():
            players.seat_players(
                tx, [(p.id, p.name, p.guest, p.bot) for _, p, _ in event.players], event.at_ms
            )
            if event.embargo:
                tx.insert("embargoes", ("id",), [(event.embargo,)], skip_existing=True)
            tx.insert(
                "matches",
                ("id", "room_id", "pace", "status", "seed_commitment", "server_commitment",
                 "card_clock_ms", "deal_clock_ms", "started_ms", "series_id", "deal", "embargo"),
                [(event.match_id, event.room_id, event.pace, "playing", event.seed_commitment,
                  event.server_commitment, event.card_clock_ms, event.deal_clock_ms,
                  event.at_ms, event.series_id or None, event.deal, event.embargo or None)],
            )  # fmt: skip
            tx.insert(
                "match_players", ("match_id", "seat", "player_id", "contribution"),
                [(event.match_id, seat, p.id, c) for seat, p, c in event.players],
            )  # fmt: skip
            tx.insert(
                "seeds", ("match_id", "seed", "server_secret", "contributions"),
                [(event.match_id, event.seed, event.server_secret,
                  json.dumps([c for _, _, c in event.players]))],
            )  # fmt: skip
        case CardPlaced():
            _insert_placements(tx, [_placement_row(event)])
        case MatchEnded():
            tx.write(
                "UPDATE matches SET status = 'finished', starter = {starter},"
                " finished_ms = {at_ms}, ranking = {ranking} WHERE id = {id}",
                {
                    "starter": event.starter,
                    "at_ms": event.at_ms,
                    "ranking": json.dumps([note.model_dump() for note in event.ranking]),
                    "id": event.match_id,
                },
            )
            tx.insert(
                "results",
                ("match_id", "player_id", "seat", "rank", "score", "time_used_ms", "cells",
                 "detail"),
                [
                    (
                        event.match_id, o.player_id, o.seat, o.rank, o.score, o.time_used_ms,
                        json.dumps(list(o.cells)), json.dumps(o.detail),
                    )
                    for o in event.outcomes
                ],
            )  # fmt: skip
        case AbandonSeries(series_id=series_id):
            tx.write("UPDATE series SET status = 'abandoned' WHERE id = {id}", {"id": series_id})
            tx.write(
                "UPDATE matches SET status = 'abandoned'"
                " WHERE series_id = {id} AND status = 'playing'",
                {"id": series_id},
            )
        case SeriesBegan():
            players.seat_players(
                tx, [(p.id, p.name, p.guest, p.bot) for p in event.players], event.at_ms
            )
            tx.insert(
                "series",
                ("id", "room_id", "best_of", "rated", "pace", "origin", "status", "started_ms",
                 "root_secret", "secret_scheme"),
                [(event.series_id, event.room_id, event.best_of, int(event.rated), event.pace,
                  event.origin, "playing", event.at_ms, event.root_secret,
                  event.secret_scheme)],
            )  # fmt: skip
            bots = event.seat_bots or (("", ""),) * len(event.players)
            tx.insert(
                "series_players",
                ("series_id", "seat", "player_id", "strategy", "bot_seed"),
                [
                    (event.series_id, seat, p.id, strategy, seed)
                    for seat, (p, (strategy, seed)) in enumerate(
                        zip(event.players, bots, strict=True)
                    )
                ],
            )
        case SeriesEnded():
            standings = [
                {"player_id": pid, "deals_won": won, "points": points, "time_used_ms": used,
                 "forfeited": forfeited}
                for pid, won, points, used, forfeited in event.standings
            ]  # fmt: skip
            tx.write(
                "UPDATE series SET status = {status}, winner_id = {winner_id}, deals = {deals},"
                " standings = {standings}, finished_ms = {at_ms} WHERE id = {id}",
                {
                    "status": "aborted" if event.aborted else "finished",
                    "winner_id": event.winner_id, "deals": event.deals,
                    "standings": json.dumps(standings), "at_ms": event.at_ms,
                    "id": event.series_id,
                },
            )  # fmt: skip
        case EmbargoLifted():
            tx.write(
                "INSERT INTO embargoes (id, lifted_ms) VALUES ({id}, {at_ms}) ON CONFLICT (id)"
                " DO UPDATE SET lifted_ms = COALESCE(embargoes.lifted_ms, excluded.lifted_ms)",
                {"id": event.embargo, "at_ms": event.at_ms},
            )
        case Abandoned():
            tx.insert(
                "abandonments", ("player_id", "room_id", "series_id", "match_id", "kind", "at_ms"),
                [(event.player_id, event.room_id, event.series_id, event.match_id, event.kind,
                  event.at_ms)],
            )  # fmt: skip
        case RatingChanged():
            rating, deviation, volatility = event.after
            tx.write(
                "INSERT INTO ratings (player_id, pace, rating, deviation, volatility, games,"
                " updated_ms) VALUES ({player_id}, {pace}, {rating}, {deviation}, {volatility},"
                " {games}, {at_ms})"
                " ON CONFLICT (player_id, pace) DO UPDATE SET rating = excluded.rating,"
                " deviation = excluded.deviation, volatility = excluded.volatility,"
                " games = excluded.games, updated_ms = excluded.updated_ms",
                {"player_id": event.player_id, "pace": event.pool, "rating": rating,
                 "deviation": deviation, "volatility": volatility, "games": event.games,
                 "at_ms": event.at_ms},
            )  # fmt: skip
            tx.insert(
                "rating_history",
                ("player_id", "pace", "series_id", "room_id", "opponent_id", "score",
                 "rating_before", "deviation_before", "rating_after", "deviation_after",
                 "volatility_after", "at_ms"),
                [(event.player_id, event.pool, event.series_id, event.room_id,
                  event.opponent_id, event.score, event.before[0], event.before[1],
                  rating, deviation, volatility, event.at_ms)],
            )  # fmt: skip
