"""Tournaments as the player sees them: list lines, standings, the knockout bracket.

Shared by every front end (the Textual screens and ``--plain``). It reads only
what the server sent (``tournaments`` and ``tournament`` messages, as the
client model keeps them) and never guesses at anything the server did not say:
a knockout round not yet drawn shows the winners already known and nothing
else. No I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import get_args

from client_cli.render import clock_text
from protocol.fields import Pace, PlayerInfo
from protocol.tournaments import (
    FormatOffer,
    TournamentInfo,
    TournamentListStatus,
    TournamentStanding,
    TournamentSummary,
    TournamentTable,
)


def format_title(t: TournamentInfo | TournamentSummary) -> str:
    """The format's name as the server words it (its wire name from an older server)."""
    return t.format_title or t.format.value


def player_name(player: PlayerInfo, me: str | None = None) -> str:
    """``"greedy bot 1 [bot]"``, ``"ada (you)"``."""
    return player.name + (" [bot]" if player.bot else "") + (" (you)" if player.id == me else "")


def clock_terms(pace: Pace, card_clock_ms: int, deal_clock_ms: int) -> str:
    if pace == Pace.LOCKSTEP:
        return f"lockstep, {card_clock_ms // 1000}s per card"
    return f"race, {deal_clock_ms // 1000}s per deal"


# The statuses ``list_tournaments`` may be asked for.
LIST_STATUSES: tuple[str, ...] = get_args(TournamentListStatus)


def offer_text(o: FormatOffer) -> str:
    """A format the server hosts, as ``welcome.formats`` offers it, in one line:
    ``"swiss: Swiss; --rounds counts rounds; one deal a table; late entries"``."""
    rounds = f"--rounds counts {o.rounds}" if o.rounds else "its rounds follow from its field"
    tables = (
        f"--best-of {' or '.join(map(str, o.best_of))}" if len(o.best_of) > 1
        else "one deal a table"
    )  # fmt: skip
    late = "late entries if you allow them" if o.late_join else "no late entries"
    return f"{o.format}: {o.title}; {rounds}; {tables}; {late}"


def winners_text(names: Sequence[str]) -> str:
    """``"won by ada"``, ``"won by ada and bo (shared)"``, or ``""``: the server's
    ``winners`` of a finished tournament."""
    if not names:
        return ""
    if len(names) == 1:
        return f"won by {names[0]}"
    return f"won by {', '.join(names[:-1])} and {names[-1]} (shared)"


def start_text(status: str, starts_ms: int | None) -> str:
    """When a tournament starts: ``"in 4:32"``, ``"by the host"``, or its status."""
    if status != "registering":
        return "-"
    return f"in {clock_text(starts_ms)}" if starts_ms is not None else "by the host"


def summary_line(t: TournamentSummary) -> str:
    """One line of the list, for ``--plain``."""
    where = f"round {t.round}" if t.round else "not started"
    line = (
        f"tournament {t.id}: {t.name}, {format_title(t)}, {t.pace.value}, "
        f"{t.length}, {t.entrants}/{t.max_players} entrants, "
        f"{t.status} ({where}), host {t.host.name}"
    )
    if t.status == "registering":
        line += f", starts {start_text(t.status, t.starts_ms)}"
    won = winners_text([w.name for w in t.winners])
    if won:
        line += f", {won}"
    return line


# ---------------------------------------------------------------------------
# Standings


def standing_columns(info: TournamentInfo) -> tuple[str, ...]:
    """The standings' column titles: rank and player, then the format's figures as
    the server titles them (``columns``), then a status mark."""
    return ("rank", "player", *info.columns, "")


def standing_cells(row: TournamentStanding, me: str | None = None) -> tuple[str, ...]:
    """One standings line as the cells under :func:`standing_columns` (the figures
    as the server words them: ``cells``)."""
    status = "" if row.status in ("active", "eliminated") else row.status
    return (str(row.rank), player_name(row.player, me), *row.cells, status)


def standing_line(row: TournamentStanding, columns: Sequence[str], me: str | None = None) -> str:
    """One standings line for ``--plain``: ``"1. ada (you): MP % 75.0, Matchpoints 3/4,
    Points 31, Deals 1"`` (each figure after its title, as the server words them)."""
    figures = ", ".join(f"{title} {cell}" for title, cell in zip(columns, row.cells, strict=False))
    status = "" if row.status in ("active", "eliminated") else f" [{row.status}]"
    return f"{row.rank}. {player_name(row.player, me)}: {figures}{status}"


def standings_state(info: TournamentInfo) -> str:
    """Whether the standings are final: ``""``, or what makes them live."""
    current = info.history[-1] if info.history else None
    if info.status in ("playing", "paused") and current is not None and current.status == "playing":
        before = f"after round {current.number - 1}" if current.number > 1 else "before any round"
        return (
            f"{current.finished_tables} of {current.tables} tables done in round"
            f" {current.number}: its results when the round is over (standings {before})"
        )
    if info.status in ("playing", "paused"):
        return "after the rounds played"
    return ""


def round_text(info: TournamentInfo, round_left_ms: int | None, next_round_ms: int | None) -> str:
    """Where the tournament stands: ``"round 2 of 5: 3/4 tables done, 3:12 left"``."""
    status = info.status
    current = info.history[-1] if info.history else None
    if status == "registering":
        when = (
            f"starts in {clock_text(next_round_ms)}"
            if next_round_ms is not None
            else "the host starts it"
        )
        return f"registration open: {when}"
    if status in ("finished", "cancelled"):
        played = f"{info.round} round{'s' if info.round != 1 else ''} played"
        text = f"{'over' if status == 'finished' else 'cancelled'}: {played}"
        won = winners_text([w.name for w in info.winners])
        if status == "finished" and won:
            text += f"; {won}"
        return text
    head = f"round {info.round} of {info.rounds}" if info.round else "not started"
    if status == "paused":
        head = (
            f"paused after {head}"
            if current and current.status == "finished"
            else (f"paused during {head} (it plays on to its end)")
        )
    if current is not None and current.status == "playing":
        head += f": {current.finished_tables}/{current.tables} tables done"
        if round_left_ms is not None:
            head += f", {clock_text(round_left_ms)} left on the round clock"
    elif current is not None and status == "playing":
        head += " is over"
        if next_round_ms is not None:
            head += f"; the next round in {clock_text(next_round_ms)}"
    return head


def table_text(
    table: TournamentTable | None,
    names: dict[str, PlayerInfo],
    me: str | None,
    round_number: int,
) -> str:
    """This player's table in the current round, for people."""
    if table is None:
        return "no table for you this round" if round_number else ""
    others = [names[p].name if p in names else p for p in table.players if p != me]
    head = f"round {round_number}, table {table.number}"
    if table.status == "bye":
        return f"{head}: a bye (you go through)"
    against = f" against {', '.join(others)}" if others else " (alone: the duplicate deal)"
    mine = table.points.get(me or "")
    if table.status == "playing":
        tail = "playing" + (f", {mine} points so far" if mine is not None else "")
    else:
        tail = "finished" + (f", {mine} points" if mine is not None else "")
        if mine is None and table.status == "finished" and table.winner is None:
            tail += " (the results when the round is over)"
        elif len(table.players) < 2:
            pass  # a duplicate board: its matchpoints are in the standings
        elif table.winner == me:
            tail += ", you won"
        elif table.winner in names:
            tail += f", {names[table.winner].name} won"
    return f"{head}{against}: {tail}"


def table_heading(info: TournamentInfo, table: TournamentTable | None) -> str:
    """Which tournament a match is a table of: ``"tournament Friday field — round 2,
    table 3"`` (just the tournament while its table is not known)."""
    head = f"tournament {info.name}"
    if table is None or not info.round:
        return head
    return f"{head} — round {info.round}, table {table.number}"


# ---------------------------------------------------------------------------
# The knockout bracket


@dataclass(frozen=True)
class Slot:
    """One side of a bracket match."""

    player: PlayerInfo | None  # None: a bye, a walkover, or not known yet
    seed: int | None = None
    points: int | None = None
    won: bool | None = None  # None while undecided


@dataclass(frozen=True)
class Match:
    top: Slot
    bottom: Slot
    status: str  # "playing", "finished", "bye", "walkover", "waiting" (not drawn yet)
    decided: str = ""  # how a match level on points was decided, for people


def tie_break(match: Match, pace: Pace, best_of: int) -> str:
    """Why the winner of a finished match won, when the points do not say it
    (docs/tournaments.md: deals won, then points, then in a race time used, then
    the better seed); "" when the winner simply scored more."""
    top, bottom = match.top, match.bottom
    if match.status != "finished" or top.points is None or bottom.points is None:
        return ""
    winner, loser = (top, bottom) if top.won else (bottom, top) if bottom.won else (None, None)
    if winner is None or loser is None or winner.points is None or loser.points is None:
        return ""
    if winner.points < loser.points:
        return "on deals won, with fewer points"
    if winner.points > loser.points:
        return ""
    if best_of > 1:
        return "level on points: by deals won, then " + (
            "time used, then seed" if pace == Pace.RACE else "seed"
        )
    if pace == Pace.RACE:
        return "level on points: on time used (then seed)"
    return "level on points: to the better seed"


def bracket(
    info: TournamentInfo, seen_tables: dict[int, list[TournamentTable]] | None = None
) -> list[list[Match]]:
    """Every round of a knockout, first round first, each its matches in bracket order.

    ``seen_tables`` holds the tables the client saw for each round (a round's
    points are only in the pushes made while it was current). Rounds not drawn
    yet are there too, with the players already known to go through.
    """
    if not info.bracket:
        return []
    seen = dict(seen_tables or {})
    seen[info.round] = list(info.tables)
    players = {e.player.id: e.player for e in info.entrants}
    seeds = {e.player.id: e.seed for e in info.entrants}
    size = len(info.bracket[0])
    rounds = max(1, size.bit_length() - 1)
    out: list[list[Match]] = []
    previous_winners: list[str | None] | None = None
    for k in range(rounds):
        drawn = info.bracket[k] if k < len(info.bracket) else None
        slots: list[str | None]
        if drawn is not None:
            slots = list(drawn)
        elif previous_winners is not None:
            slots = previous_winners
        else:
            slots = [None] * (size >> k)
        nxt = info.bracket[k + 1] if k + 1 < len(info.bracket) else None
        by_player = {p: t for t in seen.get(k + 1, []) for p in t.players}
        matches: list[Match] = []
        winners: list[str | None] = []
        for i in range(0, len(slots), 2):
            a, b = slots[i], slots[i + 1]
            table = by_player.get(a or b or "")
            winner: str | None = None
            if nxt is not None:
                winner = nxt[i // 2]
            elif table is not None and table.status in ("finished", "bye"):
                winner = table.winner
            if drawn is None:
                status = "waiting"
            elif a is None and b is None:
                status = "walkover"
            elif a is None or b is None:
                status = "bye" if k == 0 else "walkover"
                winner = winner or a or b
            elif nxt is not None or (table is not None and table.status == "finished"):
                status = "finished"
            else:
                status = "playing"
            top, bottom = (_slot(p, table, winner, players, seeds) for p in (a, b))
            match = Match(top, bottom, status)
            matches.append(replace(match, decided=tie_break(match, info.pace, info.best_of)))
            winners.append(winner if drawn is not None else None)
        out.append(matches)
        previous_winners = winners
    return out


def _slot(
    pid: str | None,
    table: TournamentTable | None,
    winner: str | None,
    players: dict[str, PlayerInfo],
    seeds: dict[str, int | None],
) -> Slot:
    if pid is None:
        return Slot(None)
    points = table.points.get(pid) if table is not None else None
    won = None if winner is None else pid == winner
    return Slot(players.get(pid, PlayerInfo(id=pid, name=pid)), seeds.get(pid), points, won)


def champion(rounds: Sequence[Sequence[Match]]) -> Slot | None:
    if not rounds or len(rounds[-1]) != 1:
        return None
    final = rounds[-1][0]
    for s in (final.top, final.bottom):
        if s.won:
            return s
    return None


def round_name(k: int, rounds: int) -> str:
    """``"round 1"``, ..., ``"semi-finals"``, ``"final"`` (``k`` counts from 0)."""
    left = rounds - k
    if left == 1:
        return "final"
    if left == 2 and rounds > 2:
        return "semi-finals"
    return f"round {k + 1}"


def slot_text(s: Slot, status: str, width: int = 24) -> str:
    """``"[1] ada          45 ✔"`` in ``width`` characters."""
    if s.player is None:
        label = {"bye": "(bye)", "walkover": "(walkover)", "waiting": "…"}.get(status, "—")
        return label.ljust(width)[:width]
    seed = f"[{s.seed}]" if s.seed else ""
    tail = "" if s.points is None else str(s.points)
    mark = " ✔" if s.won else ("  " if s.won is None else " ✖")
    name_w = width - len(seed) - (1 if seed else 0) - len(tail) - len(mark) - 1
    name = s.player.name + (" [bot]" if s.player.bot else "")
    if len(name) > name_w:
        name = name[: max(1, name_w - 1)] + "…"
    head = f"{seed} {name}" if seed else name
    return f"{head.ljust(width - len(tail) - len(mark))}{tail}{mark}"[:width]


@dataclass(frozen=True)
class Cell:
    """One piece of a bracket line: text, and what it shows (for colouring)."""

    text: str
    kind: str  # "slot", "won", "lost", "me", "empty", "line", "head"


def bracket_grid(rounds: Sequence[Sequence[Match]], me: str | None = None,
                 width: int = 24) -> list[list[Cell]]:  # fmt: skip
    """The bracket drawn as lines of cells: rounds as columns, the champion last.

    A match of round k (from 0) stands on two lines, its top slot on line
    ``i * 2**(k+2) + 2**k - 1`` and its bottom slot ``2**(k+1)`` lines below; a
    bracket line joins the two (``─┐``, ``│``, ``─┘``) and leaves from halfway
    (``├─``) to the slot of the next round where the match's winner plays: its
    top slot for an even match, its bottom slot for an odd one. The final's line
    leads to the champion. (The heading is line 0; the lines above count from 1.)
    """
    if not rounds:
        return []
    n = len(rounds)
    height = 4 * len(rounds[0]) - 1

    def top_line(k: int, i: int) -> int:
        return i * (1 << (k + 2)) + (1 << k) - 1

    def out_line(k: int, i: int) -> int:
        return i * (1 << (k + 2)) + (1 << (k + 1)) - 1

    def kind_of(s: Slot) -> str:
        if s.player is None:
            return "empty"
        if s.player.id == me:
            return "me"
        if s.won is True:
            return "won"
        if s.won is False:
            return "lost"
        return "slot"

    columns: list[list[Cell]] = []
    for k, matches in enumerate(rounds):
        col = [Cell(" " * width, "empty") for _ in range(height)]
        joint = [Cell("   ", "line") for _ in range(height)]
        for i, m in enumerate(matches):
            top = top_line(k, i)
            bottom = top + (1 << (k + 1))
            for line, s in ((top, m.top), (bottom, m.bottom)):
                col[line] = Cell(slot_text(s, m.status, width), kind_of(s))
            middle = out_line(k, i)
            for line in range(top, bottom + 1):
                glyph = "─┐ " if line == top else "─┘ " if line == bottom else " │ "
                joint[line] = Cell(" ├─" if line == middle else glyph, "line")
        columns += [col, joint]
    last = champion(rounds)
    crown = [Cell(" " * width, "empty") for _ in range(height)]
    text = slot_text(Slot(last.player, last.seed), "finished", width) if last else "…".ljust(width)
    kind = "me" if last and last.player and last.player.id == me else "won" if last else "empty"
    crown[out_line(n - 1, 0)] = Cell(text, kind)
    columns.append(crown)
    heads: list[Cell] = []
    for k in range(n):
        heads += [Cell(round_name(k, n).ljust(width)[:width], "head"), Cell("   ", "line")]
    heads.append(Cell("🏆 champion".ljust(width)[:width], "head"))
    lines = [heads]
    for row in range(height):
        lines.append([col[row] for col in columns])
    return lines


def tie_break_lines(rounds: Sequence[Sequence[Match]], me: str | None = None) -> list[str]:
    """Each match won on a tie-break, and how: ``"round 1: [2] bob beat [3] cy, level
    on points: to the better seed"``."""
    out = []
    n = len(rounds)
    for k, matches in enumerate(rounds):
        for m in matches:
            winner = m.top if m.top.won else m.bottom if m.bottom.won else None
            if m.decided and winner is not None:
                loser = m.bottom if winner is m.top else m.top
                beat = f"{_slot_name(winner, me)} beat {_slot_name(loser, me)}"
                out.append(f"{round_name(k, n)}: {beat}, {m.decided}")
    return out


def bracket_text_lines(rounds: Sequence[Sequence[Match]], me: str | None = None) -> list[str]:
    """The bracket round by round, one match a line, for ``--plain``."""
    out: list[str] = []
    n = len(rounds)
    for k, matches in enumerate(rounds):
        out.append(f"{round_name(k, n)}:")
        for m in matches:
            out.append("  " + _match_line(m, me))
    last = champion(rounds)
    if last is not None and last.player is not None:
        out.append(f"champion: {_slot_name(last, me)}")
    return out


def _slot_name(s: Slot, me: str | None) -> str:
    if s.player is None:
        return "?"
    seed = f"[{s.seed}] " if s.seed else ""
    return seed + player_name(s.player, me)


def _match_line(m: Match, me: str | None) -> str:
    if m.status == "waiting":
        known = [_slot_name(s, me) for s in (m.top, m.bottom) if s.player is not None]
        return " v ".join(known + ["?"] * (2 - len(known))) + " (not drawn yet)"
    if m.status in ("bye", "walkover"):
        s = m.top if m.top.player is not None else m.bottom
        if s.player is None:
            return "(empty)"
        return f"{_slot_name(s, me)}: {'a bye' if m.status == 'bye' else 'a walkover'}"

    def side(s: Slot) -> str:
        pts = f" {s.points}" if s.points is not None else ""
        mark = " (won)" if s.won else ""
        return f"{_slot_name(s, me)}{pts}{mark}"

    tail = "" if m.status == "finished" else " (playing)"
    if m.decided:
        tail += f" ({m.decided})"
    return f"{side(m.top)} v {side(m.bottom)}{tail}"
