"""Past matches from the server's read-only HTTP JSON, and replays of them.

:func:`parse_match` turns the server's match JSON into a :class:`Replay`, a
pure object that answers "what did every board look like after placement N".
Both front ends use it; the fetching helpers return readable lines for
``--plain``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from client_cli.model.checks import verify_result
from client_cli.ratings import RatingEvent, RatingsError, parse_ratings, ratings_path
from client_cli.render import board_lines, score_lines
from engine.verification import Verification
from protocol.deals import BoardResult, MatchResult, RankNote

if TYPE_CHECKING:
    from client_cli.model.state import ClientModel
    from client_cli.session import Session


@dataclass(frozen=True)
class MatchSummary:
    match_id: str
    when: str
    room: str
    players: int
    rank: int | None
    score: int | None
    status: str
    raw: dict[str, Any]


@dataclass(frozen=True)
class Replay:
    match_id: str
    starter: str
    boards: tuple[BoardResult, ...]
    seed: str = ""
    seed_commitment: str = ""
    server_secret: str = ""
    server_commitment: str = ""
    contributions: tuple[str, ...] = ()
    room: str = ""
    ranking: tuple[RankNote, ...] = ()  # why a board ranks where its score alone would not
    # Under an embargo (docs/fairness.md): one's own table, its seed not revealed yet.
    embargoed: bool = False

    EMBARGO_TEXT = (
        "the deal is checked once nobody can still play it (for the daily deal, once"
        " the day is over; for a tournament, once its round is): its seed is revealed then"
    )

    def verification(self) -> Verification | None:
        """The deal checked from the stored seed, as at the end of the match."""
        if not (self.seed and self.server_secret and self.boards):
            return None
        result = MatchResult(
            room_id="",
            match_id=self.match_id,
            starter=self.starter,
            seed=self.seed,
            server_secret=self.server_secret,
            seed_commitment=self.seed_commitment,
            boards=list(self.boards),
        )
        return verify_result(result, self.contributions, self.server_commitment, {})

    def placement_at(self, board: BoardResult, step: int) -> str:
        for p in board.placements:
            if p.turn == step:
                return f"{p.card} on {p.cell}" + (" (auto)" if p.auto else "")
        return "-"


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if isinstance(data, dict) and key in data:
            return data[key]
    return None


def _board(raw: dict[str, Any]) -> BoardResult:
    """A stored board (``score`` a number, ``detail`` the itemized score) -> BoardResult."""
    data = dict(raw)
    if isinstance(data.get("detail"), dict):
        data["score"] = data.pop("detail")
    data.pop("contribution", None)
    return BoardResult.model_validate(data)


def parse_match(data: Any) -> Replay:
    """The server's match JSON -> :class:`Replay`; raise ValueError if unusable."""
    if not isinstance(data, dict) or not isinstance(data.get("boards"), list):
        raise ValueError("the server's match has no boards")
    if data.get("embargoed") and not data.get("starter"):
        raise ValueError(
            "others may still play this deal: its boards are shown once nobody can (for the"
            " daily deal, once the day is over; for a tournament, once its round is)"
        )
    if data.get("status") not in (None, "finished") or not data.get("starter"):
        raise ValueError("that match is not finished yet: nothing to replay")
    try:
        boards = tuple(_board(b) for b in data["boards"] if isinstance(b, dict))
        ranking = tuple(RankNote.model_validate(n) for n in data.get("ranking") or ())
    except ValidationError as exc:
        raise ValueError(f"the server's match is not readable: {exc.errors()[0]['msg']}") from None
    room = data.get("room")
    return Replay(
        match_id=str(_dig(data, "match_id", "id") or ""),
        starter=str(data.get("starter") or ""),
        boards=tuple(sorted(boards, key=lambda b: (b.rank, b.seat))),
        seed=str(data.get("seed") or ""),
        seed_commitment=str(data.get("seed_commitment") or ""),
        server_secret=str(data.get("server_secret") or ""),
        server_commitment=str(data.get("server_commitment") or ""),
        contributions=tuple(str(c) for c in data.get("contributions") or ()),
        room=str(room.get("name", "")) if isinstance(room, dict) else str(room or ""),
        ranking=ranking,
        embargoed=bool(data.get("embargoed")),
    )


def stored_verification(data: Any) -> Verification | None:
    """A stored deal (the server's match JSON) checked from its seed, as at the end of
    the match; None where there is nothing to check yet (not over, or its seed not
    revealed: an embargo)."""
    try:
        return parse_match(data).verification()
    except ValueError:
        return None


def _when(ms: Any) -> str:
    if not isinstance(ms, (int, float)):
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def parse_history(data: Any) -> list[MatchSummary]:
    items = data.get("matches") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError("the server's history is not a list of matches")
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        room = item.get("room")
        players = item.get("players")
        out.append(
            MatchSummary(
                match_id=str(_dig(item, "match_id", "id") or "?"),
                when=_when(_dig(item, "finished_ms", "started_ms")),
                room=str(room.get("name", "")) if isinstance(room, dict) else str(room or ""),
                players=len(players) if isinstance(players, list) else (_int(players) or 0),
                rank=_int(item.get("rank")),
                score=_int(item.get("score")),
                status=str(item.get("status") or ""),
                raw=item,
            )
        )
    return out


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


# Endpoint paths: the server's read-only HTTP JSON. A player is named by id or name.
def history_path(player_id: str) -> str:
    return f"/api/players/{player_id}/matches"


def match_path(match_id: str) -> str:
    return f"/api/matches/{match_id}"


async def fetch_history(session: Session, player_id: str) -> list[MatchSummary]:
    from client_cli.session import SessionError, path_quote

    data = await session.get_json(history_path(path_quote(player_id)))
    try:
        return parse_history(data)
    except ValueError as exc:
        raise SessionError(str(exc)) from None


async def fetch_replay(session: Session, match_id: str) -> Replay:
    from client_cli.session import NotFound, SessionError, path_quote

    try:
        data = await session.get_json(match_path(path_quote(match_id)))
    except NotFound:
        raise SessionError(f"no match {match_id} on this server (see history)") from None
    try:
        return parse_match(data)
    except ValueError as exc:
        raise SessionError(str(exc)) from None


@dataclass(frozen=True)
class HistoryRow:
    """One past deal as the history lists it: against whom, and how it went."""

    summary: MatchSummary
    opponents: tuple[str, ...]  # names, "[bot]" marked
    result: str  # "win", "loss", "draw", "solo", or "" (not finished, or not known)
    rating: str = ""  # on a rated series' last deal: "1500 -> 1522 (+22)"
    series: str = ""  # on a series' last deal: how it ended ("won the series 2–1")


def deal_result(my_rank: int | None, other_ranks: list[int]) -> str:
    """A deal's result for one player: first alone wins, first shared is a draw."""
    if my_rank is None:
        return ""
    if not other_ranks:
        return "solo"
    if my_rank == 1:
        return "draw" if 1 in other_ranks else "win"
    return "loss"


def series_outcome(series: Any, me: str, names: dict[str, str], myself: str = "you") -> str:
    """How a series of several deals ended for player ``me``, said on its last deal's row
    of a history (the list's ``series``; ``names``: player id -> name): "won the series
    2–1", "lost the series 1–1, you resigned", "won the series 1–0, bo resigned",
    "series drawn 1–1", "series aborted"; "" on its other deals, while it is played, or
    where its result is not shown yet. ``myself``: how ``me`` is named ("you")."""
    if not isinstance(series, dict) or series.get("deal") != series.get("deals"):
        return ""
    status = series.get("status")
    if status == "aborted":
        return "series aborted"
    standings = [s for s in series.get("standings") or () if isinstance(s, dict)]
    if status != "finished" or not standings:
        return ""
    mine = next((s for s in standings if s.get("player_id") == me), None)
    other = next((s for s in standings if s is not mine), None)
    if mine is None or other is None:
        return ""
    score = f"{mine.get('deals_won', 0)}\u2013{other.get('deals_won', 0)}"
    winner = series.get("winner_id")
    said = (
        "series drawn " + score
        if winner is None
        else ("won" if winner == me else "lost") + " the series " + score
    )
    gone = [
        myself if s is mine else names.get(str(s.get("player_id")), "?")
        for s in standings
        if s.get("forfeited")
    ]
    return said + (f", {' and '.join(gone)} resigned" if gone else "")


def history_rows(
    matches: list[MatchSummary],
    details: dict[str, dict[str, Any]],
    events: list[RatingEvent],
    me: str,
) -> list[HistoryRow]:
    """Each listed match with its opponents and result (from ``details``, the
    server's match objects) and, on the last deal of a rated series, the rating
    change (from ``events``, the player's rating history)."""
    by_series = {e.series_id: e for e in events if e.series_id}
    last_deal: dict[str, tuple[int, str]] = {}
    for m in matches:
        d = details.get(m.match_id) or {}
        sid, deal = d.get("series_id"), _int(d.get("deal")) or 1
        if isinstance(sid, str) and deal >= last_deal.get(sid, (0, ""))[0]:
            last_deal[sid] = (deal, m.match_id)
    rows = []
    for m in matches:
        d = details.get(m.match_id) or {}
        others = [b for b in d.get("boards", []) if _dig(b.get("player"), "id") != me]
        names = tuple(
            str(_dig(b.get("player"), "name") or "?")
            + (" [bot]" if _dig(b.get("player"), "bot") else "")
            for b in others
        )
        ranks = [r for b in others if (r := _int(b.get("rank"))) is not None]
        finished = m.status in ("", "finished")
        result = deal_result(m.rank, ranks) if finished else ""
        rating = ""
        sid = d.get("series_id")
        event = by_series.get(sid) if isinstance(sid, str) else None
        if event is not None and last_deal.get(str(sid), (0, ""))[1] == m.match_id:
            rating = f"{event.before} -> {event.after} ({event.after - event.before:+d})"
        ids = {
            str(_dig(o.get("player"), "id")): str(_dig(o.get("player"), "name") or "?")
            for o in m.raw.get("opponents") or ()
            if isinstance(o, dict)
        }
        series = series_outcome(m.raw.get("series"), me, ids)
        rows.append(HistoryRow(m, names, result, rating, series))
    return rows


async def fetch_history_rows(session: Session, player_id: str, limit: int = 20) -> list[HistoryRow]:
    """The player's last ``limit`` matches with opponents, results and rating changes:
    the match list, each match's object (a few at a time) and the rating history."""
    import asyncio

    from client_cli.session import SessionError, path_quote

    matches = (await fetch_history(session, player_id))[:limit]
    gate = asyncio.Semaphore(6)

    async def detail(match_id: str) -> tuple[str, dict[str, Any]]:
        async with gate:
            try:
                data = await session.get_json(match_path(path_quote(match_id)))
            except SessionError:
                return match_id, {}
        return match_id, data if isinstance(data, dict) else {}

    found = await asyncio.gather(*(detail(m.match_id) for m in matches))
    events: list[RatingEvent] = []
    # No rated game yet, or a server without ratings: no rating column.
    with contextlib.suppress(SessionError, RatingsError):
        events = parse_ratings(await session.get_json(ratings_path(player_id))).history
    return history_rows(matches, dict(found), events, player_id)


def history_line(row: HistoryRow) -> str:
    """One history line for ``--plain``."""
    m = row.summary
    bits = [f"match {m.match_id}"]
    if m.status and m.status != "finished":
        bits.append(m.status)
    if m.when:
        bits.append(m.when)
    if m.room:
        bits.append(f"room {m.room}")
    if m.players:
        bits.append(f"{m.players} player{'s' if m.players != 1 else ''}")
    if row.opponents:
        bits.append("vs " + ", ".join(row.opponents))
    if row.result and row.result != "solo":
        bits.append(row.result + (f" (rank {m.rank} of {m.players})" if m.players > 2 else ""))
    if m.score is not None:
        bits.append(f"{m.score} points")
    if row.series:
        bits.append(row.series)
    if row.rating:
        bits.append(f"rating {row.rating}")
    return ", ".join(bits)


async def history_lines(session: Session, model: ClientModel) -> list[str]:
    if model.me is None:
        return ["not signed in"]
    rows = await fetch_history_rows(session, model.me.id)
    if not rows:
        return ["no finished matches yet"]
    return [history_line(r) for r in rows]


async def replay_lines(session: Session, match_id: str) -> list[str]:
    replay = await fetch_replay(session, match_id)
    lines = [f"replay of match {replay.match_id}: {len(replay.boards)} boards"]
    verification = replay.verification()
    if verification is not None:
        lines.append(verification.summary)
    elif replay.embargoed:
        lines.append(replay.EMBARGO_TEXT)
    for step in range(1, 17):
        moves = "; ".join(f"{b.player.name} {replay.placement_at(b, step)}" for b in replay.boards)
        lines.append(f"placement {step}: {moves}")
    lines.append(f"starter: {replay.starter}")
    for b in replay.boards:
        bot = " [bot]" if b.player.bot else ""
        lines.append(f"board of {b.player.name}{bot}: rank {b.rank}, {b.score.total} points")
        lines += [t.plain for t in board_lines(b.cells, b.score, glyphs=False)]
        lines += ["  " + t.plain for t in score_lines(b.score, glyphs=False)]
    lines += [note.text for note in replay.ranking]  # the server's words, as live
    return lines
