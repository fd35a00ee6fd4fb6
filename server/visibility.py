"""Who may see what of a deal, on every surface: the one place it is decided. Pure.

Every outward view of a deal is made here or by asking here: the messages a
room sends (:meth:`server.room.Room` asks :func:`sees_result` before it
addresses a result, and refuses to address one otherwise), the tournament
updates (:func:`round_secret`), the HTTP API and ``cribsquares history``
(storage hands what it read to :func:`public_match`, :func:`public_boards`,
:func:`public_round`, and lists only what :data:`LISTED_ROOM_SQL` allows).

The rules (docs/fairness.md, *Who sees a deal*):

* **The cards of a deal** are its seed, its server secret, the starter and
  every board's cells, placements and itemized score. While the deal is
  played nobody sees them but each player its own cards, as they are dealt
  (the room's one choke point, ``Room.address``, sees to that).
* **Once the deal is over** its players see its whole result. Everybody else
  (spectators, the HTTP API) sees it too, unless the deal is under an
  **embargo**: a deal of a tournament round is played by every table of the
  round, so its cards stay hidden from everyone but the players seated at a
  table that played it until every table of the round has finished. The round's
  embargo group (:func:`round_embargo`) is stored with each of its matches and
  lifted by a stored event (``EmbargoLifted``) when the round is over (or its
  tournament is cancelled or abandoned and no table plays any more), so the
  HTTP API, which reads the database, keeps it across restarts.
* **The card everyone holds.** While a deal is played, every member of its
  room (its spectators too) may see the latest card that every seated player
  has already been dealt (:func:`common_turn`): lockstep's card of the turn,
  sent to all at once; in a race the card of the lowest turn any board has
  reached. It tells nobody a card it does not hold. A deal under an embargo
  shows none: another table of the round, or another player of the day, may
  not have reached it.
* **Scores are held back with the cards** in the stored history: a deal under an
  embargo shows nobody but its own players its boards' ranks, scores, time used
  or ranking notes (:func:`public_match`, :func:`listed_result`); each of its
  players sees its own table whole but the seed and secret, and lists every
  deal it played. A tournament round's results (its tables' points and
  winners, the standings they make, a table's series standings to its
  spectators) wait for the round's end (:func:`round_results_shown`).
* **The daily deal** (server.daily) is one deal played by everyone who tries
  it on its day, each alone: its attempts are an embargo group of their own
  (:func:`daily_embargo`), lifted by a stored event once the day is over and no
  attempt of it is still being played. Until then each player sees its own
  board once its attempt is over, and everybody else the numbers (scores,
  ranks, percentiles, streaks); the day's secret, seed, starter and every
  board's cells, including where the field put each card, wait for the lift
  (:func:`daily_shown`).
* **Listing.** A match appears in public lists (a player's matches, recent
  matches) when its room was public, or rated (its result is public in the
  rating history anyway), or a table of a public tournament; in its own
  player's list, always. A private room's
  matches are found only by their id, which only its members were told.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# The hidden parts of a deal and of its boards, as the history API names them.
DEAL_FIELDS = ("seed", "server_secret", "starter")
BOARD_FIELDS = ("cells", "placements", "detail")
# What a board's result tells of the deal's worth: hidden, under an embargo, from
# everyone but the deal's own players until it is lifted (the score embargo).
RESULT_FIELDS = ("rank", "score", "time_used_ms")

# An SQL condition on a ``rooms`` row aliased ``r``: may its matches be listed publicly?
LISTED_ROOM_SQL = (
    "(r.visibility = 'public' OR r.rated = 1 OR EXISTS ("
    "SELECT 1 FROM tournament_tables lt JOIN tournaments lv ON lv.id = lt.tournament_id"
    " WHERE lt.room_id = r.id AND lv.visibility = 'public'))"
)

# A player lists every match it sat in itself, private rooms, bots and daily attempts
# included: there is no condition for that.


def round_embargo(tournament_id: str, round_number: int) -> str:
    """The embargo group of every deal of a tournament round."""
    return f"{tournament_id}/{round_number}"


def round_embargo_tournament(embargo: str | None) -> str | None:
    """The tournament whose round's embargo group ``embargo`` is (None: not a round's)."""
    if embargo is None or embargo.startswith("daily/"):
        return None
    tid, slash, number = embargo.rpartition("/")
    return tid if slash and tid and number.isdigit() else None


def daily_embargo(day: str) -> str:
    """The embargo group of every attempt at the daily deal of ``day`` (YYYY-MM-DD)."""
    return f"daily/{day}"


def daily_scores_shown(lifted: bool, open_today: bool, may_play: bool, own: str | None) -> bool:
    """May someone see the day's standings: each attempt's rank, score, percentile and
    time used? Anyone once the day's embargo is ``lifted``; before, a player whose
    ``own`` attempt is ``finished``; one ``playing`` it, no; one who has not played
    (``none``), only if it can no longer play the day (it may not, as a guest, or the
    day is no longer ``open_today``). Someone unknown (``own`` None: the HTTP API) is
    taken as someone who may still play it."""
    if lifted or own == "finished":
        return True
    if own == "none":
        return not (open_today and may_play)
    return False


def daily_shown(lifted: bool) -> bool:
    """May anyone see a day's deal (its secret, seed, cards, every board's cells and
    where the field put each card)? Only once the day's embargo is lifted."""
    return lifted


def tournament_found(visibility: str, member: bool) -> bool:
    """Is a tournament there at all for someone? A public one for anyone; a private one
    only for its members (the WebSocket's ``get_tournament`` by id and the HTTP
    API alike: the HTTP API knows no player, so it finds no private tournament),
    as a private room is found only by its members."""
    return visibility != "private" or member


def sees_result(seated: bool, embargo: str | None, lifted: bool) -> bool:
    """May a member of a room see the result of a deal that is over there?

    A player seated at the deal always may (it saw every card of it); a spectator
    may unless the deal is under an embargo not yet lifted.
    """
    return seated or embargo is None or lifted


def common_turn(
    lockstep: bool,
    turn: int,
    reached: Iterable[int],
    embargo: str | None,
    sent: Iterable[int] = (),
) -> int | None:
    """The latest turn whose card every seated player of a deal being played holds,
    which every member of the room may see; None for none (before the first card,
    or under an embargo).

    ``turn`` is lockstep's turn being played (its card goes to every seat at
    once); ``reached`` is, for each board the server plays (a server bot's, or a
    person's who is away), the highest turn whose card it was dealt or placed (a
    race deals each board its own way through the cards); ``sent`` is, for each
    seat that is sent its cards, the highest turn whose card that player was
    actually sent. A card the server placed for a player without sending it (the
    deal clock ran out, or everyone else left and the deal ended) is not held.
    """
    if embargo is not None:
        return None
    sent = list(sent)
    shown = turn if lockstep else min([*reached, *sent], default=0)
    if sent:
        shown = min(shown, *sent)
    return shown if shown >= 1 else None


def deal_open(status: str, embargo: str | None, lifted: bool) -> bool:
    """May anyone, whoever it is, see the cards of a stored deal?"""
    return status == "finished" and (embargo is None or lifted)


def round_results_shown(finished: bool) -> bool:
    """May anyone see the results of a tournament round's tables: their points and
    winners, and the standings they make? Only once the round is over: its tables
    all play its deal, and a score tells a table still playing what the deal is
    worth (the score embargo). Until then anyone sees which tables are done; each
    table's own players see their own result in its room (:func:`sees_result`)."""
    return finished


def round_secret(secret: str, finished: bool) -> str | None:
    """A tournament round's secret, as shown: only once the round is over."""
    return secret if finished else None


def public_match(facts: Mapping[str, Any], viewer: str | None = None) -> dict[str, Any]:
    """One stored match as ``viewer`` (a player id; None: anyone) may see it
    (``GET /api/matches/{id}``).

    ``facts`` is everything storage read, its internal ``embargo`` and
    ``embargo_lifted`` included. A deal not open shows who played it, the
    commitments and the contributions; never its seed, secret, starter, cells,
    placements or itemized scores; and, while it is under an embargo, nor each
    board's rank, score and time used, nor the ranking's notes, its boards in seat
    order (:func:`sees_result`). A player of a finished deal under an embargo sees
    its own table whole (every card of it was dealt to it), all but the seed and
    the secret, which wait for the lift. ``embargoed`` says whether a finished deal
    is still held back.
    """
    view = {k: v for k, v in facts.items() if k not in ("embargo", "embargo_lifted")}
    embargo = facts.get("embargo")
    lifted = bool(facts.get("embargo_lifted"))
    status = str(facts.get("status"))
    boards = list(facts.get("boards", []))
    seated = viewer is not None and any(b["player"]["id"] == viewer for b in boards)
    view["embargoed"] = embargo is not None and not lifted
    if deal_open(status, embargo, lifted):
        return view
    if seated and status == "finished":
        view["seed"] = view["server_secret"] = None
        return view
    for key in DEAL_FIELDS:
        view[key] = None
    hidden: tuple[str, ...] = BOARD_FIELDS
    if not sees_result(False, embargo, lifted):
        hidden += RESULT_FIELDS
        view["ranking"] = []
        boards.sort(key=lambda b: b["seat"])
    view["boards"] = [{k: v for k, v in b.items() if k not in hidden} for b in boards]
    return view


def listed_result(row: Mapping[str, Any], viewer: str | None, player: str) -> bool:
    """May ``viewer`` see, in ``player``'s list of matches, the rank and score of a
    listed match (``row``: its ``embargo`` and ``embargo_lifted_ms``)? Its own list
    always; anyone else's unless the match is under an embargo not yet lifted."""
    lifted = row["embargo_lifted_ms"] is not None
    return sees_result(viewer == player, row["embargo"], lifted)


def public_series(facts: Mapping[str, Any]) -> dict[str, Any]:
    """A stored series as anyone may see it (``GET /api/series/{id}``): each deal under
    an embargo not yet lifted without its results (its players' ranks and scores),
    and while one is, the series' standings and winner held back too (a tournament
    table's match, a daily attempt). ``facts``' deals carry their internal
    ``embargo`` and ``embargo_lifted``, which the view leaves out."""
    internal = ("embargo", "embargo_lifted")
    view = dict(facts)
    deals = []
    held = False
    for deal in facts.get("deals", []):
        shown = sees_result(False, deal.get("embargo"), bool(deal.get("embargo_lifted")))
        held = held or not shown
        row = {k: v for k, v in deal.items() if k not in internal}
        if not shown:
            row["results"] = {}
        deals.append(row)
    view["deals"] = deals
    if held:
        view["standings"], view["winner_id"] = None, None
    return view


def public_boards(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Stored boards (the tournament export) as anyone may see them: only those of
    open deals, each without the internal ``status``, ``embargo`` and ``embargo_lifted``."""
    internal = ("status", "embargo", "embargo_lifted")
    return [
        {k: v for k, v in row.items() if k not in internal}
        for row in rows
        if deal_open(str(row.get("status")), row.get("embargo"), bool(row.get("embargo_lifted")))
    ]


def public_round(facts: Mapping[str, Any]) -> dict[str, Any]:
    """A stored tournament round as anyone may see it: its secret, and its tables'
    winners, points and deals' ranks and scores, once it is over."""
    finished = facts.get("finished_ms") is not None
    view = dict(facts)
    view["server_secret"] = round_secret(str(facts.get("server_secret") or ""), finished) or None
    if not round_results_shown(finished):
        view["tables"] = [
            {
                **table,
                "winner_id": None,
                "points": {},
                "deals": [{**d, "results": {}} for d in table.get("deals", [])],
            }
            for table in facts.get("tables", [])
        ]
    return view
