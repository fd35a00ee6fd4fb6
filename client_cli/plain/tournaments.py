"""The ``--plain`` commands of tournaments: list, show, register, watch, withdraw,
host, manage and add bots."""

from __future__ import annotations

import time
from typing import Any

from client_cli import tournaments as tt
from client_cli.plain.base import PlainBase
from client_cli.plain.words import (
    _first_error,
    _host_parser,
)
from client_cli.render import clock_text
from client_cli.safe import visible
from client_cli.session import (
    SessionError,
)
from protocol.fields import Pace, Visibility
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    GetTournament,
    LeaveTournament,
    ListTournaments,
    ManageTournament,
    Tournaments,
    TournamentUpdate,
)


class TournamentCommands:
    def __init__(self, base: PlainBase) -> None:
        self.base = base  # the model, the session, printing and the shared helpers

    async def cmd_tournaments(self, args: list[str]) -> None:
        plain = self.base
        if len(args) > 1 or (args and args[0] not in tt.LIST_STATUSES):
            raise SessionError(f"usage: tournaments [{'|'.join(tt.LIST_STATUSES)}]")
        status = args[0] if args else None
        reply = await plain.request(ListTournaments(status=status))  # type: ignore[arg-type]
        listed = reply.tournaments if isinstance(reply, Tournaments) else []
        if not listed and status:
            plain.say(f"no public tournament {status}")
        elif not listed:
            plain.say(
                "no public tournaments: host one with: host NAME (tournaments finished: past)"
            )
        for t in listed:
            mine = " (you are in it)" if plain.model.entered(t.id) else ""
            plain.say(tt.summary_line(t) + mine)

    async def cmd_tournament(self, args: list[str]) -> None:
        plain = self.base
        if len(args) > 1:
            raise SessionError("usage: tournament [ID]")
        tid = args[0] if args else plain.model.tournament_id or plain.awaited_tournament()
        if tid is None:
            raise SessionError("which tournament? tournament ID (see tournaments)")
        reply = await plain.request(GetTournament(tournament_id=tid))
        if isinstance(reply, TournamentUpdate):
            plain.model.show_tournament(reply.tournament.id)
            for line in self.tournament_lines(reply.tournament.id):
                plain.say(line)

    def tournament_lines(self, tid: str) -> list[str]:
        plain = self.base
        view = plain.model.tournaments[tid]
        info, now = view.info, time.monotonic()
        me = plain.model.me.id if plain.model.me else None
        head = (
            f"{info.name} ({info.id}): {tt.format_title(info)}, {info.length}, "
            f"{tt.clock_terms(info.pace, info.card_clock_ms, info.deal_clock_ms)}; "
            f"host {info.host.name}"
        )
        if info.invite_code:
            head += f"; invite code {info.invite_code}"
        lines = [head, tt.round_text(info, view.round_left_ms(now), view.next_round_ms(now))]
        role = plain.model.tournament_role(tid)
        if role == "entrant":
            table = tt.table_text(view.table_of(me), view.names(), me, info.round)
            lines.append(f"you are registered{'; your table: ' + table if table else ''}")
        elif role:
            lines.append(
                {
                    "out": "you are knocked out",
                    "withdrawn": "you withdrew",
                    "removed": "you were removed",
                    "spectator": "you are watching",
                    "host": "you host it (not playing)",
                }.get(role, role)
            )
        if info.standings:
            lines.append("standings:")
            if state := tt.standings_state(info):
                lines.append(f"  ({state})")
        for row in info.standings:
            lines.append("  " + tt.standing_line(row, info.columns, me))
        lines += [f"  {visible(note)}" for note in info.tie_notes]  # the tie-break that decided
        rounds = tt.bracket(info, view.tables)
        if rounds:
            lines.append("bracket:")
            lines += ["  " + line for line in tt.bracket_text_lines(rounds, me)]
        return lines

    async def cmd_register(self, args: list[str]) -> None:
        plain = self.base
        if len(args) != 1:
            raise SessionError("usage: register ID|CODE")
        reply = await plain.join_tournament(args[0], spectate=False)
        if isinstance(reply, TournamentUpdate):
            info = reply.tournament
            plain.model.show_tournament(info.id)
            if info.status in ("finished", "cancelled"):
                plain.say(f"{info.name} is {info.status}: there is nothing to register for")
            elif plain.model.tournament_role(info.id) == "out":
                plain.say(f"you are out of {info.name}: knocked out, you play no further round")
            elif plain.model.entered(info.id):
                plain.say(
                    f"registered in {reply.tournament.name}: a placement or wait "
                    "waits for your table"
                )

    async def cmd_watch(self, args: list[str]) -> None:
        """Watch a tournament, or else a room, by its id or invite code."""
        plain = self.base
        if len(args) != 1:
            raise SessionError("usage: watch ID|CODE (a tournament or a room)")
        target = args[0]
        reply = await plain.join_tournament(target, spectate=True, say_not_found=False)
        if isinstance(reply, TournamentUpdate):
            tid = reply.tournament.id
            if not plain.model.entered(tid):
                plain.model.watching.add(tid)
            plain.model.show_tournament(tid)
            plain.say(f"watching {reply.tournament.name}: its changes follow")
            return
        if reply.code != "tournament_not_found":
            return  # refused, and said why
        why = await plain.no_tournament(target)
        if not why.startswith("no tournament"):
            plain.say(f"refused: {why}")
            return
        plain.not_playing("watch another room")
        await plain.enter_room(target, spectate=True, what="tournament or room")
        await plain.until(lambda: plain.model.room is not None, 5)
        room = plain.model.room
        if room is not None:
            plain.say(
                f"watching room {room.name}: progress as it comes, every board at the end; "
                "wait waits for the result, leave stops watching"
            )

    async def cmd_withdraw(self, args: list[str]) -> None:
        plain = self.base
        if len(args) != 1:
            raise SessionError("usage: withdraw ID")
        tid = args[0]
        watching = tid in plain.model.watching and not plain.model.entered(tid)
        await plain.request(LeaveTournament(tournament_id=tid))
        plain.model.watching.discard(tid)
        if watching:
            plain.say(f"no longer watching {tid}")

    async def cmd_formats(self, args: list[str]) -> None:
        """The formats the server hosts, as its welcome offers them."""
        plain = self.base
        if args:
            raise SessionError("usage: formats")
        offers = plain.model.formats
        if not offers:
            plain.say("this server names no tournament formats (an older server)")
        for offer in offers:
            plain.say(tt.offer_text(offer))

    async def cmd_host(self, args: list[str]) -> None:
        plain = self.base
        opts = _host_parser().parse_args(args)
        fields: dict[str, Any] = {
            "name": " ".join(opts.name),
            **({"format": opts.format} if opts.format else {}),
            "rounds": opts.rounds,
            "best_of": opts.best_of,
            "pace": Pace(opts.pace),
            "max_players": opts.max_players,
            "visibility": Visibility.PRIVATE if opts.private else Visibility.PUBLIC,
            "bots": not opts.no_bots,
            "registered_only": opts.registered_only,
        }
        if opts.clock is not None:
            fields["card_clock_ms" if opts.pace == "lockstep" else "deal_clock_ms"] = (
                opts.clock * 1000
            )
        if opts.round_clock is not None:
            fields["round_clock_ms"] = opts.round_clock * 1000
        if opts.start_in is not None:
            fields["start_in_ms"] = opts.start_in * 1000
        try:
            msg = CreateTournament(**fields)
        except ValueError as exc:
            raise SessionError(f"host: {_first_error(exc)}") from None
        reply = await plain.request(msg)
        if isinstance(reply, TournamentUpdate):
            info = reply.tournament
            plain.model.show_tournament(info.id)
            start = "start it with: manage " + info.id + " start"
            if opts.start_in is not None:
                start = f"it starts by itself in {clock_text(opts.start_in * 1000)}"
            plain.say(f"you host {info.name} ({info.id}); register to play in it; {start}")

    async def cmd_manage(self, args: list[str]) -> None:
        plain = self.base
        actions = ("start", "pause", "resume", "cancel", "remove")
        if len(args) < 2 or args[1] not in actions or (args[1] == "remove") != (len(args) == 3):
            raise SessionError("usage: manage ID start|pause|resume|cancel|remove PLAYER")
        tid, action = args[0], args[1]
        player_id = None
        if action == "remove":
            view = plain.model.tournaments.get(tid)
            who = args[2]
            found = [
                e.player.id
                for e in (view.info.entrants if view else [])
                if who in (e.player.id, e.player.name)
            ]
            if not found:
                raise SessionError(f"no entrant {who} in {tid} (see: tournament {tid})")
            player_id = found[0]
        await plain.request(
            ManageTournament.model_validate(
                {"tournament_id": tid, "action": action, "player_id": player_id}
            )
        )

    async def cmd_addbots(self, args: list[str]) -> None:
        plain = self.base
        if not 1 <= len(args) <= 3:
            raise SessionError("usage: addbots ID [COUNT] [LEVEL]")
        try:
            count = int(args[1]) if len(args) > 1 else 1
            msg = AddTournamentBot(
                tournament_id=args[0], count=count, strategy=args[2] if len(args) > 2 else "greedy"
            )
        except ValueError as exc:
            raise SessionError(f"addbots: {_first_error(exc)}") from None
        await plain.announce(msg.strategy, f"entering {count} bot{'s' if count != 1 else ''} of")
        await plain.request(msg)
