"""A room rebuilt from what storage kept, after a restart or a lost write.

Trusted input (what this server stored), checked for being whole: a series
that does not make a deal raises Unresumable. A bot seat is rebuilt from its
stored level and seed (``Resumable.seat_bots``), never from its id.
"""

from __future__ import annotations

from engine.deal import deal, room_seed
from engine.grid import parse_cell
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.rooms import RoomOrigin
from server import errors
from server.recovery import Resumable, Unresumable
from server.room import bot_seats
from server.room.base import BETWEEN_DEALS_MS
from server.room.machine import Room
from server.room.phases import Phase
from server.room.state import (
    TURNS,
    Board,
    BotFactory,
    DealInPlay,
    Ids,
    Placement,
    RoomSettings,
    Seat,
)
from server.series import DealOutcome, SecretScheme


def restore(
    saved: Resumable,
    now_ms: int,
    *,
    grace_ms: int = 60_000,
    bots: BotFactory | None = None,
    think_elsewhere: bool = False,
    ids: Ids | None = None,
    between_deals_ms: int = BETWEEN_DEALS_MS,
) -> Room:
    """Rebuild a room whose series was being played when the server stopped.

    Everyone starts disconnected (their grace period starts now). Clocks are
    fair to the downtime: a lockstep card gets its whole clock again; a race
    clock is moved on by the time between the last stored placement (or
    the deal's start) and now, so nobody loses the time the server was
    away. Raises Unresumable if the stored facts do not make a deal.
    """
    settings = RoomSettings(
        name=saved.name,
        visibility=Visibility(saved.visibility),
        seats=saved.seats,
        pace=Pace(saved.pace),
        card_clock_ms=saved.card_clock_ms,
        deal_clock_ms=saved.deal_clock_ms,
        best_of=saved.deals_best_of,
        rated=saved.rated,
        origin=RoomOrigin(saved.origin),
    )
    if not saved.players or not saved.deals or not saved.root_secret:
        raise Unresumable(f"series {saved.series_id} is not resumable")
    players = [PlayerInfo(id=p.id, name=p.name, guest=p.guest, bot=p.bot) for p in saved.players]
    creator = next((p for p in players if p.id == saved.creator_id), players[0])
    room = Room(
        saved.room_id,
        settings,
        creator,
        now_ms=now_ms,
        server_secret=saved.root_secret,
        match_id=saved.series_id,
        invite_code=saved.invite_code,
        grace_ms=grace_ms,
        bots=bots,
        think_elsewhere=think_elsewhere,
        ids=ids,
        between_deals_ms=between_deals_ms,
        secret_scheme=SecretScheme(saved.secret_scheme),
        embargo=saved.embargo,
    )
    room.series.embargo_lifted = saved.embargo_lifted
    last = saved.deals[-1]
    if len(last.contributions) != len(players):
        raise Unresumable(f"series {saved.series_id}: seats and contributions differ")
    room.seats = []
    seat_bots = saved.seat_bots or (("", ""),) * len(players)
    if len(seat_bots) != len(players):
        raise Unresumable(f"series {saved.series_id}: seats and bot seats differ")
    for player, contribution, bot in zip(players, last.contributions, seat_bots, strict=True):
        seat = Seat(player, contribution, ready=True, present=player.id not in saved.forfeited)
        strategy, seed = bot
        if strategy:  # a seat the server plays; a bot program plays its own
            try:
                seat.bot = bot_seats.chooser(bots, strategy, seed)
            except errors.UnknownStrategy:  # a later release's bot, perhaps: set aside
                raise LookupError(f"no bot plays {strategy!r} in this release") from None
            seat.strategy, seat.bot_seed = strategy, seed
        else:
            seat.connected, seat.away_since = False, now_ms
        room.seats.append(seat)
    series = room.series
    series.players = tuple(p.id for p in players)
    for pid in saved.forfeited:  # in the order they left
        series.forfeit(pid)
    series.gone = set(saved.forfeited) | set(saved.timed_out)
    series.started = len(saved.deals)
    for d in saved.deals:
        if d.finished:
            series.deals.append(
                DealOutcome(
                    match_id=d.match_id,
                    ranks={pid: o[0] for pid, o in d.outcomes.items()},
                    scores={pid: o[1] for pid, o in d.outcomes.items()},
                    times={pid: o[2] for pid, o in d.outcomes.items()},
                )
            )
    if last.finished:
        room.resume_in(Phase.BETWEEN)
        series.next_at = now_ms + between_deals_ms
        return room
    if room_seed(series.secret(series.started), last.contributions) != last.seed:
        raise Unresumable(f"series {saved.series_id}: the stored seed is not the series'")
    the_deal = deal(last.seed)
    downtime = max(0, now_ms - saved.last_activity_ms)
    boards = {p.id: Board(card_at=now_ms) for p in players}
    for stored in last.placements:
        board = boards[stored.player_id]
        card = the_deal.cards[stored.turn - 1]
        if stored.turn != board.placed + 1 or str(card) != stored.card:
            raise Unresumable(f"match {last.match_id}: placements out of order")
        cell = parse_cell(stored.cell)
        board.grid.place(cell, card)
        board.placements.append(Placement(stored.turn, cell, card, stored.elapsed_ms, stored.auto))
    for board in boards.values():
        board.dealt = board.placed
    # The cards the server placed for a person (auto) in a deal not over were its
    # clock's or its absence's (a deal ended for everyone ends in the same step):
    # they count for the rated deal's forfeit rule as they did before the restart.
    people = {seat.player.id for seat in room.seats if seat.bot is None}
    for stored in last.placements:
        if stored.auto and stored.player_id in people:
            boards[stored.player_id].clocked += 1
    if series.started == 1:
        series.moved = {p.player_id for p in last.placements if not p.auto}
    low = min(b.placed for b in boards.values())
    room.match = DealInPlay(
        id=last.match_id,
        seed=last.seed,
        deal=the_deal,
        contributions=last.contributions,
        started_at=last.started_ms + downtime,
        boards=boards,
        turn=min(low + 1, TURNS),
        turn_started=now_ms,
    )
    room.resume_in(Phase.PLAYING)
    return room
