"""Playing a deal: a placement, the cards, the progress, the result, the series.

``place`` is the one command of play; ``match_started`` publishes the deal's
commitment before any card, ``card`` deals each turn's card to its player,
``placed`` acknowledges a placement, ``progress`` says how many cards each
player has placed (never where or which), ``match_result`` reveals the starter,
the seed and every board, scored and ranked. The series (best of 1, 3 or 5)
shapes live here too: a deal's result carries where the series stands.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from protocol.fields import CellName, Message, Pace, PlayerInfo, Ref, Request, RoomId


class Place(Request):
    """Place the card of ``turn`` (1..16) on ``cell`` (``"a1"``..``"d4"``)."""

    type: Literal["place"] = "place"
    room_id: RoomId
    turn: Annotated[int, Field(ge=1, le=16)]
    cell: CellName
    ref: Ref = None


class SeriesStanding(Message):
    player: PlayerInfo
    deals_won: int  # deals ranked first (shared firsts count for each)
    points: int  # total over the deals played
    time_used_ms: int
    forfeited: bool = False  # left the match: it counts as lost


class SeriesInfo(Message):
    """Where a best-of-N series stands. Ordered: most deals won, then points,
    then (race pace) least time used; ``winner`` is None while it goes on and
    for a draw."""

    best_of: int
    deal: int  # the deal being played, or the last one played
    standings: list[SeriesStanding]
    finished: bool = False
    # Rated, and a side placed no card of the first deal itself: over, rated for
    # nobody, no winner (docs/ratings.md). (Added in protocol 1, optional.)
    aborted: bool = False
    winner: PlayerInfo | None = None
    next_deal_ms: int | None = None  # time until the next deal starts


class HandScoreOut(Message):
    """One row or column, itemized (engine HandScore.to_dict())."""

    hand: list[str]
    starter: str
    fifteens: list[list[str]]
    pairs: list[list[str]]
    runs: list[list[str]]
    flush: list[str]
    nobs: str | None
    points: dict[str, int]
    total: int


class BoardScoreOut(Message):
    """A whole board, itemized (engine BoardScore.to_dict())."""

    starter: str
    rows: list[HandScoreOut]
    columns: list[HandScoreOut]
    heels: int
    total: int
    win: bool


class PlacementOut(Message):
    turn: int
    cell: str
    card: str
    auto: bool = False
    elapsed_ms: int = 0


class BoardResult(Message):
    player: PlayerInfo
    seat: int
    rank: int  # 1 = best; equal boards share a rank
    cells: list[str | None]  # 16 entries row by row (a1, b1, c1, d1, a2, ...)
    placements: list[PlacementOut]
    score: BoardScoreOut
    time_used_ms: int


class MatchStarted(Message):
    """The deal is fixed: its commitment is published before any card."""

    type: Literal["match_started"] = "match_started"
    room_id: str
    match_id: str
    pace: Pace
    seed_commitment: str  # SHA-256 of the deal's seed, see docs/fairness.md
    server_commitment: str
    contributions: list[str]  # every seat's contribution, in seat order
    card_clock_ms: int
    deal_clock_ms: int
    deal: int = 1  # which deal of the series
    best_of: int = 1


class CardDealt(Message):
    """The card of ``turn`` for this player to place."""

    type: Literal["card"] = "card"
    room_id: str
    turn: int
    card: str
    legal: list[str]  # the cells where it may go on this player's grid
    deadline_ms: int  # lockstep: time left for this card; race: left on the deal clock


# Why the server placed a player's card for it (``placed.why``): lockstep's card clock,
# a race's deal clock or a tournament round's clock ran out; everyone else left, so the
# deal ended at once; or the player was away beyond the grace period.
PlacedWhy = Literal["card_clock", "deal_clock", "round_clock", "others_left", "away"]


class Placed(Message):
    """This player's placement was accepted (``auto``: made by the server, ``why``)."""

    type: Literal["placed"] = "placed"
    room_id: str
    turn: int
    cell: str
    card: str
    auto: bool = False
    why: PlacedWhy | None = None  # auto: why the server placed it (optional, protocol 1)
    ref: Ref = None


class DealtToAll(Message):
    """The latest card every seated player has been dealt (server.visibility.common_turn)."""

    turn: int
    card: str


class Progress(Message):
    """Who has placed how many cards: never where; of the cards, only the one
    every seated player already holds."""

    type: Literal["progress"] = "progress"
    room_id: str
    turn: int  # lockstep: the current turn; race: the highest turn reached
    placed: dict[str, int]  # player id -> cards placed so far
    connected: dict[str, bool]
    # Time left while the match is played: lockstep on this turn's card clock,
    # race on the deal clock; None once it is over. (Added in protocol 1, optional.)
    deadline_ms: int | None = None
    # What a spectator may see of the cards while the deal is played: none under
    # an embargo, and none before the first card or after the last. (Optional.)
    dealt: DealtToAll | None = None


class RankNote(Message):
    """Why a board ranks where its score alone would not say: a race's tie on
    points broken by the time used (``time_used``: ``player_id`` ranked above
    ``against``, with both times), or a player who resigned or left the series
    (``left``: ranked below everyone who stayed, whatever its board scored).
    ``text`` is the sentence every client shows as it is."""

    player_id: str
    reason: Literal["time_used", "left"]
    text: str
    against: str | None = None  # time_used: the player ranked below
    time_used_ms: int | None = None  # time_used: the figures that decided
    against_ms: int | None = None


class MatchResult(Message):
    """The starter is revealed, every board scored and ranked, the seed revealed."""

    type: Literal["match_result"] = "match_result"
    room_id: str
    match_id: str
    starter: str
    seed: str
    server_secret: str
    seed_commitment: str
    boards: list[BoardResult]  # ordered by rank
    deal: int = 1
    series: SeriesInfo | None = None  # the series after this deal
    ranking: list[RankNote] = Field(default_factory=list)  # why, where score did not decide


class YourBoard(Message):
    """One's own board and turn state, part of a ``room_state`` snapshot."""

    cells: list[str | None]
    placements: list[PlacementOut]
    turn: int | None  # the turn whose card is waiting, None when done
    card: str | None
    legal: list[str]
    deadline_ms: int | None
    time_used_ms: int


# This area's client message (protocol.wire assembles the union of every area's):
# a placement, answered by its room's owner.
DealRequest = Place
# This area's server messages: protocol.wire assembles the server's union the same way.
DealNews = MatchStarted | CardDealt | Placed | Progress | MatchResult
