"""``cribsquares analyze``: the hindsight best board and a move-by-move review.

The deal comes from a finished match, asked of a server's read-only HTTP API
(``--server``, by default the one ``play`` uses) or read from a store by an
operator (``--db`` or ``--store``, SQLite or PostgreSQL), or from a seed and
the cells typed in deal order. The work is the engine's
(:mod:`engine.analysis`); the text is :mod:`client_cli.analysis`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from client_cli.cli import UsageError
from client_cli.commands.stored import add_store_options, chosen, reading, shown


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from client_cli.analysis import SEARCH_BUDGET, SIMULATIONS

    p = subparsers.add_parser(
        "analyze",
        help="review a finished deal: the hindsight best board and each move's loss",
        description="Analyse a finished match from a server's HTTP API (--server, by default "
        "the one play uses) or a server's database (--db or --store), or a deal given by "
        "--seed and --moves: the best "
        "board reachable knowing all 17 cards, the board played and its score, and for "
        "every move the expert bot's choice and the expected points lost.",
    )
    p.add_argument("match_id", nargs="?", metavar="MATCH_ID", help="a stored match's id")
    p.add_argument("--player", metavar="NAME", help="analyse only this player's board")
    source = p.add_mutually_exclusive_group()
    add_store_options(source)
    source.add_argument(
        "--server", metavar="URL", help="read the match from this server (default: play's)"
    )
    p.add_argument("--seed", metavar="SEED", help="analyse the deal of this seed instead")
    p.add_argument("--moves", nargs="+", metavar="CELL", help="with --seed: cells in deal order")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--simulations",
        type=int,
        default=SIMULATIONS,
        metavar="N",
        help=f"the expert's rollouts per move (default {SIMULATIONS})",
    )
    p.add_argument(
        "--budget",
        type=int,
        default=SEARCH_BUDGET,
        metavar="N",
        help=f"swaps the hindsight search may try (default {SEARCH_BUDGET})",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from client_cli.analysis import analyse

    boards, source = _inputs(args)
    if args.simulations < 1 or args.budget < 1:
        raise UsageError("--simulations and --budget must be at least 1")
    analyses = [analyse(b, simulations=args.simulations, budget=args.budget) for b in boards]
    if args.json:
        doc = {
            **{k: v for k, v in source.items() if k != "checked"},
            "ranking": source.get("ranking", []),  # a stored match's notes; none for a seed
            "simulations": args.simulations,
            "budget": args.budget,
            "boards": [
                {"player": a.board.player, "rank": a.board.rank, "analysis": a.to_dict()}
                for a in analyses
            ],
        }
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(_text(analyses, source))
    return 0


def _inputs(args: argparse.Namespace) -> tuple[list[Any], dict[str, Any]]:
    """The boards to analyse and a description of where they came from."""
    from client_cli.analysis import board_from_moves

    if args.seed is not None:
        if args.match_id is not None:
            raise UsageError("give a MATCH_ID or --seed, not both")
        if any(x is not None for x in (args.db, args.store, args.server, args.player)):
            raise UsageError(
                "--db, --store, --server and --player are for a stored match, not --seed"
            )
        if not args.moves:
            raise UsageError("--seed needs --moves: the cells played, in deal order")
        from engine.deal import deal

        d = deal(args.seed)
        board = board_from_moves(d.cards, d.starter, args.moves)
        return [board], {"source": "seed", "seed": args.seed, "match_id": None}
    if args.moves:
        raise UsageError("--moves goes with --seed")
    if args.match_id is None:
        raise UsageError("give a MATCH_ID, or --seed SEED --moves CELL ...")
    from client_cli.analysis import board_from_result, pick_boards
    from client_cli.history import parse_match

    if args.db is None and args.store is None:
        from client_cli.config import default_server

        server = args.server or default_server()
        data = asyncio.run(_from_server(server, args.match_id))
        where: dict[str, Any] = {"source": "server", "server": server}
    else:
        store = chosen(args)
        data = asyncio.run(_from_store(store, args.match_id))
        where = {"source": "db", "db": shown(store)}
    try:
        replay = parse_match(data)
    except ValueError as exc:
        raise UsageError(f"match {args.match_id}: {exc}") from None
    where["ranking"] = [note.model_dump() for note in replay.ranking]  # why, as live
    boards = [board_from_result(b, replay.starter) for b in pick_boards(replay.boards, args.player)]
    if not boards:
        raise UsageError(f"match {args.match_id} has no finished board")
    checked = replay.verification()
    if checked is not None:  # the deal checked from its stored seed, as every client does
        where["verified"] = checked.ok
        where["failed_checks"] = [c.label for c in checked.checks if not c.ok]
        where["checked"] = checked.summary
    return boards, {**where, "match_id": replay.match_id, "seed": replay.seed or None}


async def _from_store(store: str, match_id: str) -> dict[str, Any]:
    from server.storage import match_detail

    async with reading(store) as conn:
        found = await match_detail(conn, match_id)
    if found is None:
        raise UsageError(f"no match {match_id} in {shown(store)}")
    return found


async def _from_server(server: str, match_id: str) -> Any:
    import aiohttp

    from client_cli.history import match_path
    from client_cli.session import SessionError, describe, http_base, normalize_url, path_quote

    try:
        url = http_base(normalize_url(server)) + match_path(path_quote(match_id))
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
            http.get(url) as resp,
        ):
            if resp.status == 404:
                raise UsageError(f"no match {match_id} on {server}")
            if resp.status >= 400:
                raise UsageError(f"{url}: HTTP {resp.status}")
            return await resp.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        reason = describe(exc) if isinstance(exc, OSError) else str(exc) or type(exc).__name__
        raise UsageError(f"{server}: {reason}") from None


def _text(analyses: list[Any], source: dict[str, Any]) -> str:
    from client_cli.analysis import analysis_lines
    from client_cli.safe import visible_lines

    out: list[str] = []
    if source.get("match_id"):
        out.append(f"match {source['match_id']}: {len(analyses)} board(s) analysed")
        if source.get("checked"):
            out.append(source["checked"])
    else:
        out.append(f"deal of seed {source['seed']!r}")
    for a in analyses:
        out.append("")
        out += [t.plain.rstrip() for t in analysis_lines(a, glyphs=False)]
    if source.get("ranking"):  # last, as history --match: why, where score did not decide
        out += ["", *(note["text"] for note in source["ranking"])]
    return visible_lines("\n".join(out) + "\n")  # names and notes a server sent
