"""One room: a synchronous state machine with no I/O, and what it is made of.

* :mod:`server.room.machine`: :class:`Room`, the commands, clock ticks and
  connection changes, on the state of :mod:`server.room.base`, composed of the
  three parts below;
* :mod:`server.room.dealing`: the deal being played: dealing, placing, the bot
  seats' moves;
* :mod:`server.room.results`: the end of a deal and of a series;
* :mod:`server.room.addressing`: the one place a room's messages are addressed;
* :mod:`server.room.base`: a room's state and its queries;
* :mod:`server.room.phases`: the phases, their transitions and which command
  each phase allows;
* :mod:`server.room.state`: the plain data a room holds (settings, seats,
  boards, the deal being played, a bot seat's turn);
* :mod:`server.room.views`: the pure wire views of a room (info, summary,
  series, the snapshot one player may see);
* :mod:`server.room.restore`: a room rebuilt from what storage kept;
* :mod:`server.room.bot_seats`: a bot seat's cell chooser;
* :mod:`server.room.outbound`: the addressed message envelope;
* :mod:`server.room.result`: what one step of a room decided, in one value.

:class:`Room` has one base of the project's, :class:`~server.room.base.RoomBase`
(its state and queries), and is composed of parts with one job each: ``out``
(the :class:`~server.room.addressing.Addresser`), ``results`` and ``dealer``. A
part reaches the room's state and the parts it is given, nothing else; the
methods one part calls on another have no underscore (``address``,
``deal_next``, ``advance``, ``finish_deal``, …). They are the room's own: the
lobby and the shell call only the commands, the queries, and what :class:`Room`
documents for them (``handle``, ``tick``, ``set_connected``, ``seat_player``,
``start``, ``send_state``, …).

These modules must never await, read a clock, or touch sockets or the database
(tests/test_quality.py holds them to it).
"""

from server.room.addressing import ROOM_UPDATE_INTERVAL_MS
from server.room.base import BETWEEN_DEALS_MS
from server.room.dealing import PROGRESS_DELAY_MS
from server.room.machine import Room
from server.room.outbound import Outbound
from server.room.phases import TRANSITIONS, Phase
from server.room.result import RoomResult
from server.room.state import TURNS, BotFactory, BotTurn, Ids, RoomSettings, Seat

__all__ = [
    "BETWEEN_DEALS_MS",
    "PROGRESS_DELAY_MS",
    "ROOM_UPDATE_INTERVAL_MS",
    "TRANSITIONS",
    "TURNS",
    "BotFactory",
    "BotTurn",
    "Ids",
    "Outbound",
    "Phase",
    "Room",
    "RoomResult",
    "RoomSettings",
    "Seat",
]
