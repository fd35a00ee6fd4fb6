"""The per-placement messages, serialized without building their models.

A placement makes a ``placed``, usually a ``card`` and a share of a
``progress``; building each as a pydantic model (validating the server's own
values) and then serializing it was a tenth of the server's time per
placement. These functions write the same JSON text directly and build the
model only if something asks for it. Their output is byte for byte that of
:func:`~protocol.wire.dump_server` on the model
(tests/server/test_fastpath.py); a value they do not handle (a string that
would need escaping, a non-int number) makes them build the model instead.
A finished deal's ``match_result`` is written the same way, and so is a
tournament's ``tournament`` from its info written once (:class:`TournamentText`).

This module must never import from ``server/`` or do I/O.
"""

from __future__ import annotations

from typing import Any, NamedTuple, get_args

from pydantic import BaseModel

from protocol.deals import (
    BoardResult,
    BoardScoreOut,
    CardDealt,
    MatchResult,
    Placed,
    PlacedWhy,
    PlacementOut,
    Progress,
    RankNote,
    SeriesInfo,
)
from protocol.fields import PlayerInfo
from protocol.tournaments import TournamentInfo, TournamentUpdate
from protocol.wire import dump_server


class Prepared:
    """A server message whose JSON text is already written; its model is built on demand.

    :meth:`of` keeps only the text of a model already built (``fields`` empty):
    what a room holds on to after sending it (a finished deal's result) is then
    one string, not a graph of models the garbage collector walks, and the
    model is parsed back from the text each time it is asked for.
    """

    __slots__ = ("_model", "fields", "kind", "text")

    def __init__(self, kind: type[BaseModel], fields: dict[str, Any], text: str) -> None:
        self.kind = kind
        self.fields = fields
        self.text = text  # exactly dump_server(self.model())
        self._model: BaseModel | None = None

    @classmethod
    def of(cls, message: BaseModel) -> Prepared:
        """``message`` as its text alone (the model is not kept)."""
        return cls(type(message), {}, dump_server(message))

    def model(self) -> BaseModel:
        if self._model is not None:
            return self._model
        if not self.fields:  # text alone: parsed again every time, never kept
            return self.kind.model_validate_json(self.text)
        self._model = self.kind(**self.fields)
        return self._model

    def __repr__(self) -> str:
        return f"Prepared({self.text})"


def _plain(text: object) -> bool:
    """Written in JSON as is, between quotes: printable ASCII without quote or backslash
    (string methods: a regular expression's match cost more, a dozen times a placement)."""
    return (
        type(text) is str
        and text.isascii()
        and text.isprintable()
        and '"' not in text
        and "\\" not in text
    )


def legal_json(legal: list[str]) -> str | None:
    """The JSON of a ``card``'s ``legal`` list, for :func:`card_message` (None: not plain)."""
    if not all(_plain(c) for c in legal):
        return None
    return '["' + '","'.join(legal) + '"]' if legal else "[]"


_WHYS = frozenset(get_args(PlacedWhy))  # written as they are: plain ASCII words


def _is_int(value: object) -> bool:
    return type(value) is int


def placed_message(
    room_id: str,
    turn: int,
    cell: str,
    card: str,
    auto: bool,
    ref: str | None,
    why: PlacedWhy | None = None,
) -> Prepared | Placed:
    fields: dict[str, Any] = {
        "room_id": room_id,
        "turn": turn,
        "cell": cell,
        "card": card,
        "auto": auto,
        "why": why,
        "ref": ref,
    }
    if not (
        _plain(room_id)
        and _is_int(turn)
        and _plain(cell)
        and _plain(card)
        and type(auto) is bool
        and (why is None or why in _WHYS)
        and (ref is None or _plain(ref))
    ):
        return Placed(**fields)
    quoted_ref = "null" if ref is None else '"' + ref + '"'
    quoted_why = "null" if why is None else '"' + why + '"'
    text = (
        f'{{"type":"placed","room_id":"{room_id}","turn":{turn},"cell":"{cell}","card":"{card}",'
        f'"auto":{"true" if auto else "false"},"why":{quoted_why},"ref":{quoted_ref}}}'
    )
    return Prepared(Placed, fields, text)


def card_message(
    room_id: str,
    turn: int,
    card: str,
    legal: list[str],
    deadline_ms: int,
    legal_text: str | None = None,
) -> Prepared | CardDealt:
    """``legal_text``: ``legal_json(legal)``, when the caller keeps it (a room caches it)."""
    fields: dict[str, Any] = {
        "room_id": room_id,
        "turn": turn,
        "card": card,
        "legal": legal,
        "deadline_ms": deadline_ms,
    }
    if legal_text is None and type(legal) is list:
        legal_text = legal_json(legal)
    if not (
        _plain(room_id)
        and _is_int(turn)
        and _plain(card)
        and legal_text is not None
        and _is_int(deadline_ms)
    ):
        return CardDealt(**fields)
    text = (
        f'{{"type":"card","room_id":"{room_id}","turn":{turn},"card":"{card}",'
        f'"legal":{legal_text},"deadline_ms":{deadline_ms}}}'
    )
    return Prepared(CardDealt, fields, text)


def progress_message(
    room_id: str,
    turn: int,
    placed: dict[str, int],
    connected: dict[str, bool],
    deadline_ms: int | None,
    dealt: tuple[int, str] | None = None,
) -> Prepared | Progress:
    fields: dict[str, Any] = {
        "room_id": room_id,
        "turn": turn,
        "placed": placed,
        "connected": connected,
        "deadline_ms": deadline_ms,
        "dealt": None if dealt is None else {"turn": dealt[0], "card": dealt[1]},
    }
    if not (
        _plain(room_id)
        and _is_int(turn)
        and type(placed) is dict
        and type(connected) is dict
        and all(_plain(k) and _is_int(v) for k, v in placed.items())
        and all(_plain(k) and type(v) is bool for k, v in connected.items())
        and (deadline_ms is None or _is_int(deadline_ms))
        and (dealt is None or (_is_int(dealt[0]) and _plain(dealt[1])))
    ):
        return Progress(**fields)
    counts = ",".join([f'"{k}":{v}' for k, v in placed.items()])
    links = ",".join([f'"{k}":{"true" if v else "false"}' for k, v in connected.items()])
    deadline = "null" if deadline_ms is None else deadline_ms
    shown = "null" if dealt is None else f'{{"turn":{dealt[0]},"card":"{dealt[1]}"}}'
    text = (
        f'{{"type":"progress","room_id":"{room_id}","turn":{turn},"placed":{{{counts}}},'
        f'"connected":{{{links}}},"deadline_ms":{deadline},"dealt":{shown}}}'
    )
    return Prepared(Progress, fields, text)


class ResultBoard(NamedTuple):
    """One board of a ``match_result``, as :func:`match_result_message` takes it:
    ``placements`` as (turn, cell, card, auto, elapsed_ms), ``score`` as the
    engine's ``BoardScore.to_dict()``."""

    player: PlayerInfo
    seat: int
    rank: int
    cells: list[str | None]
    placements: list[tuple[int, str, str, bool, int]]
    score: dict[str, Any]
    time_used_ms: int


def match_result_message(
    room_id: str,
    match_id: str,
    starter: str,
    seed: str,
    server_secret: str,
    seed_commitment: str,
    boards: list[ResultBoard],
    deal: int,
    series: SeriesInfo | None,
    ranking: list[RankNote] | None = None,
) -> Prepared:
    """A ``match_result`` as its text alone (see :meth:`Prepared.of`), written without
    building its boards' models (a model per placement and per hand) when every
    value is plain and no note explains the ranking (a tie broken, a player who
    left: rare); otherwise through the model, as before."""
    ids = (room_id, match_id, starter, seed, server_secret, seed_commitment)
    seen = [s for s in ids if type(s) is str]  # every text written between quotes
    written = [_result_board_json(board, seen) for board in boards]
    if (
        not ranking
        and len(seen) >= len(ids)
        and _is_int(deal)
        and (series is None or type(series) is SeriesInfo)
        and None not in written
        and _plain("".join(seen))  # one check for all of them
    ):
        text = (
            f'{{"type":"match_result","room_id":"{room_id}","match_id":"{match_id}",'
            f'"starter":"{starter}","seed":"{seed}","server_secret":"{server_secret}",'
            f'"seed_commitment":"{seed_commitment}","boards":[{",".join(written)}],'  # type: ignore[arg-type]
            f'"deal":{deal},"series":{"null" if series is None else dump_server(series)},'
            '"ranking":[]}'
        )
        return Prepared(MatchResult, {}, text)
    return Prepared.of(
        match_result_model(
            room_id, match_id, starter, seed, server_secret, seed_commitment, boards, deal, series,
            ranking,
        )
    )  # fmt: skip


def match_result_model(
    room_id: str,
    match_id: str,
    starter: str,
    seed: str,
    server_secret: str,
    seed_commitment: str,
    boards: list[ResultBoard],
    deal: int,
    series: SeriesInfo | None,
    ranking: list[RankNote] | None = None,
) -> MatchResult:
    """The ``match_result`` :func:`match_result_message` writes, as its model."""
    return MatchResult(
        room_id=room_id,
        match_id=match_id,
        starter=starter,
        seed=seed,
        server_secret=server_secret,
        seed_commitment=seed_commitment,
        boards=[
            BoardResult(
                player=b.player,
                seat=b.seat,
                rank=b.rank,
                cells=b.cells,
                placements=[
                    PlacementOut(turn=t, cell=c, card=k, auto=a, elapsed_ms=e)
                    for t, c, k, a, e in b.placements
                ],
                score=BoardScoreOut.model_validate(b.score),
                time_used_ms=b.time_used_ms,
            )
            for b in boards
        ],
        deal=deal,
        series=series,
        ranking=list(ranking or ()),
    )


_HAND_KEYS = ("hand", "starter", "fifteens", "pairs", "runs", "flush", "nobs", "points", "total")
_BOARD_KEYS = ("starter", "rows", "columns", "heels", "total", "win")


def _result_board_json(board: ResultBoard, seen: list[str]) -> str | None:
    """One board's JSON as ``BoardResult``'s, or None if a value is not of its type;
    its texts are added to ``seen``, for the caller to check that they are plain."""
    player, seat, rank, cells, placements, score, used = board
    if not (
        type(player) is PlayerInfo
        and _is_int(seat)
        and _is_int(rank)
        and _is_int(used)
        and type(cells) is list
        and type(placements) is list
    ):
        return None
    cells_json = _cells_json(cells, seen)
    moves: list[str] = []
    for move in placements:
        if type(move) is not tuple or len(move) != 5:
            return None
        turn, cell, card, auto, elapsed = move
        if not (
            _is_int(turn) and type(cell) is str and type(card) is str and type(auto) is bool
            and _is_int(elapsed)
        ):  # fmt: skip
            return None
        seen += (cell, card)
        moves.append(
            f'{{"turn":{turn},"cell":"{cell}","card":"{card}",'
            f'"auto":{"true" if auto else "false"},"elapsed_ms":{elapsed}}}'
        )
    score_json = _board_score_json(score, seen)
    if cells_json is None or score_json is None:
        return None
    return (
        f'{{"player":{dump_server(player)},"seat":{seat},"rank":{rank},"cells":{cells_json},'
        f'"placements":[{",".join(moves)}],"score":{score_json},"time_used_ms":{used}}}'
    )


def _cells_json(cells: list[Any], seen: list[str]) -> str | None:
    parts: list[str] = []
    for cell in cells:
        if cell is None:
            parts.append("null")
        elif type(cell) is str:
            parts.append(f'"{cell}"')
            seen.append(cell)
        else:
            return None
    return "[" + ",".join(parts) + "]"


def _board_score_json(score: Any, seen: list[str]) -> str | None:
    if type(score) is not dict or tuple(score) != _BOARD_KEYS:
        return None
    starter, rows, columns, heels, total, win = (score[k] for k in _BOARD_KEYS)
    if not (
        type(starter) is str and _is_int(heels) and _is_int(total) and type(win) is bool
        and type(rows) is list and type(columns) is list
    ):  # fmt: skip
        return None
    seen.append(starter)
    hands = [_hand_score_json(h, seen) for h in rows], [_hand_score_json(h, seen) for h in columns]
    if None in hands[0] or None in hands[1]:
        return None
    return (
        f'{{"starter":"{starter}","rows":[{",".join(hands[0])}],'  # type: ignore[arg-type]
        f'"columns":[{",".join(hands[1])}],"heels":{heels},"total":{total},'  # type: ignore[arg-type]
        f'"win":{"true" if win else "false"}}}'
    )


def _hand_score_json(hand: Any, seen: list[str]) -> str | None:
    if type(hand) is not dict or tuple(hand) != _HAND_KEYS:
        return None
    cards, starter, fifteens, pairs, runs, flush, nobs, points, total = (
        hand[k] for k in _HAND_KEYS
    )
    lists = [_names_json(cards, seen), _groups_json(fifteens, seen), _groups_json(pairs, seen),
             _groups_json(runs, seen), _names_json(flush, seen)]  # fmt: skip
    if not (
        None not in lists
        and type(starter) is str
        and (nobs is None or type(nobs) is str)
        and type(points) is dict
        and all(type(k) is str and _is_int(v) for k, v in points.items())
        and _is_int(total)
    ):
        return None
    seen.append(starter)
    if nobs is not None:
        seen.append(nobs)
    seen += points
    counts = ",".join([f'"{k}":{v}' for k, v in points.items()])
    nobs_json = "null" if nobs is None else '"' + nobs + '"'
    return (
        f'{{"hand":{lists[0]},"starter":"{starter}","fifteens":{lists[1]},"pairs":{lists[2]},'
        f'"runs":{lists[3]},"flush":{lists[4]},"nobs":{nobs_json},'
        f'"points":{{{counts}}},"total":{total}}}'
    )


def _groups_json(groups: Any, seen: list[str]) -> str | None:
    if type(groups) is not list:
        return None
    parts = [_names_json(g, seen) for g in groups]
    if None in parts:
        return None
    return "[" + ",".join(parts) + "]"  # type: ignore[arg-type]


def _names_json(names: Any, seen: list[str]) -> str | None:
    if type(names) is not list or not all(type(n) is str for n in names):
        return None
    seen += names
    return '["' + '","'.join(names) + '"]' if names else "[]"


# ----------------------------------------------------------------------
# A tournament: written once, answered many times

_TIMERS = '"next_round_ms":null,"round_left_ms":null'


class TournamentText(NamedTuple):
    """A tournament's info written once, but for its two timers (they change every
    millisecond): the text before and after them. A big tournament's info is
    hundreds of kilobytes; :func:`tournament_update` answers from this in a copy."""

    info: TournamentInfo  # with both timers None
    head: str
    tail: str

    @classmethod
    def of(cls, info: TournamentInfo) -> TournamentText:
        untimed = info.model_copy(update={"next_round_ms": None, "round_left_ms": None})
        # A quote inside a JSON string is escaped, so the timers' text is found
        # only where the fields themselves are.
        head, found, tail = untimed.model_dump_json().partition(_TIMERS)
        if not found:
            raise AssertionError("a tournament's info without its timers")
        return cls(untimed, head, tail)


def tournament_update(
    written: TournamentText, next_round_ms: int | None, round_left_ms: int | None, ref: str | None
) -> Prepared:
    """``tournament``, byte for byte ``dump_server(TournamentUpdate(tournament=info, ref=ref))``
    with the info's timers set."""
    info = written.info
    if next_round_ms is not None or round_left_ms is not None:
        info = info.model_copy(
            update={"next_round_ms": next_round_ms, "round_left_ms": round_left_ms}
        )
    fields: dict[str, Any] = {"tournament": info, "ref": ref}
    if ref is not None and not _plain(ref):
        return Prepared.of(TournamentUpdate(**fields))
    timers = f'"next_round_ms":{_number(next_round_ms)},"round_left_ms":{_number(round_left_ms)}'
    ref_text = "null" if ref is None else f'"{ref}"'
    text = (f'{{"type":"tournament","tournament":{written.head}{timers}{written.tail}'
            f',"ref":{ref_text}}}')  # fmt: skip
    return Prepared(TournamentUpdate, fields, text)


def _number(value: int | None) -> str:
    return "null" if value is None else str(int(value))
