"""Quick play's queue and the open challenges, copied to Redis for the next coordinator.

The coordinator keeps them in its lobby (server/head_to_head.py) and runs them for
every node. After each of its steps it writes what changed to the hash
``cs:waiting`` (``q:PLAYER`` → a player's place, ``c:ID`` → an open challenge,
removed when it is over), in one script that writes only while the node holds
the coordinator's lease under the token it had: a deposed coordinator that wakes
up cannot write over its successor's copy. A node that takes the lease over reads
the hash and takes each entry back (:meth:`HeadToHead.restore`): a player keeps
their place, ticket and all (the time they joined, their rating, what they asked
for), if they are still connected to a node they were connected to when the
entry was written and that node is alive; a player whose connection was on the
node that went lost it with the connection, as on one server. Redis is trusted
(docs/scaling.md, *Security*); an entry that does not decode is logged and dropped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol.fields import PlayerInfo
from protocol.head_to_head import ChallengeInfo, QuickPlay
from server.head_to_head import HeadToHead, OpenChallenge, Waiting
from server.matchmaking import Ticket
from server.shell.cluster.leases import COORDINATOR, lease_key

log = logging.getLogger(__name__)

WAITING = "cs:waiting"

# KEYS: the coordinator's lease, the hash. ARGV: "NODE TOKEN", how many entries to
# set, then field, value for each, then the fields to remove.
_WRITE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[2])
for i = 3, 2 + 2 * n, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
for i = 3 + 2 * n, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
return 1
"""


@dataclass
class Taken:
    """What the previous coordinator left: the entries, and the nodes each player
    was connected to when its entry was written."""

    waiting: list[Waiting] = field(default_factory=list)
    challenges: list[OpenChallenge] = field(default_factory=list)
    via: dict[str, set[str]] = field(default_factory=dict)

    def present(
        self, connected: Callable[[str], Collection[str]], alive: Collection[str]
    ) -> set[str]:
        """The players still connected to an alive node they were connected to then."""
        up = set(alive)
        return {pid for pid, then in self.via.items() if then & set(connected(pid)) & up}


def changes(
    desk: HeadToHead,
    changed: tuple[Collection[str], Collection[str]],
    connected: Callable[[str], Collection[str]],
) -> tuple[dict[str, str], list[str]]:
    """What to write (field → JSON) and what to remove after a step of ``desk`` that
    ``changed`` (players, challenges: its output's notes, server/step.py)."""
    players, challenges = changed
    upsert: dict[str, str] = {}
    remove: list[str] = []
    for pid in players:
        entry = desk.waiting(pid)
        if entry is None:
            remove.append(f"q:{pid}")
        else:
            upsert[f"q:{pid}"] = _waiting_json(entry, connected)
    for cid in challenges:
        open_ = desk.challenges.get(cid)
        if open_ is None:
            remove.append(f"c:{cid}")
        else:
            upsert[f"c:{cid}"] = _challenge_json(open_, connected)
    return upsert, remove


def write_args(holder: str, upsert: dict[str, str], remove: Iterable[str]) -> list[Any]:
    """The script's keys and arguments, as one ``EVAL`` command after the script."""
    args: list[Any] = [2, lease_key(COORDINATOR), WAITING, holder, len(upsert)]
    for key, value in upsert.items():
        args += [key, value]
    return [_WRITE, *args, *remove]


def read(entries: Mapping[Any, Any]) -> Taken:
    """The hash's entries (HGETALL), decoded."""
    taken = Taken()
    for key, text in entries.items():
        try:
            data = json.loads(text)
            via = {pid: set(nodes) for pid, nodes in data["via"].items()}
            if key.startswith("q:"):
                player = PlayerInfo.model_validate(data["player"])
                asked = QuickPlay.model_validate_json(data["asked"])
                bot_after = data["bot_after_ms"]
                ticket = Ticket(
                    player=player.id,
                    rating=float(data["rating"]),
                    since_ms=int(data["since_ms"]),
                    pace=asked.pace.value,
                    bot_after_ms=None if bot_after is None else int(bot_after),
                    pool=str(asked.deals),
                )
                taken.waiting.append(Waiting(player, asked, ticket))
            elif key.startswith("c:"):
                info = ChallengeInfo.model_validate(data["info"])
                taken.challenges.append(
                    OpenChallenge(info, str(data["contribution"]), int(data["expires_at"]))
                )
            else:
                continue
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            log.warning("cluster: a waiting entry %r that does not decode (%s)", key, exc)
            continue
        for pid, nodes in via.items():
            taken.via.setdefault(pid, set()).update(nodes)
    return taken


def _waiting_json(entry: Waiting, connected: Callable[[str], Collection[str]]) -> str:
    ticket = entry.ticket
    return json.dumps(
        {
            "player": entry.player.model_dump(mode="json"),
            "asked": entry.asked.model_dump_json(),
            "rating": ticket.rating,
            "since_ms": ticket.since_ms,
            "bot_after_ms": ticket.bot_after_ms,
            "via": {entry.player.id: sorted(connected(entry.player.id))},
        },
        separators=(",", ":"),
    )


def _challenge_json(open_: OpenChallenge, connected: Callable[[str], Collection[str]]) -> str:
    info = open_.info
    players = (info.challenger.id, info.opponent.id)
    return json.dumps(
        {
            "info": info.model_dump(mode="json"),
            "contribution": open_.contribution,
            "expires_at": open_.expires_at,
            "via": {pid: sorted(connected(pid)) for pid in players},
        },
        separators=(",", ":"),
    )
