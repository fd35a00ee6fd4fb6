"""``cribsquares protocol``: the WebSocket protocol, machine-readable."""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "protocol",
        help="print the protocol's JSON Schema or its error codes",
        description="The WebSocket protocol (docs/protocol.md is the prose version).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    schema = actions.add_parser("schema", help="JSON Schema of every message, both directions")
    schema.add_argument("--compact", action="store_true", help="one line instead of indented")
    schema.set_defaults(func=_schema)
    codes = actions.add_parser("errors", help="every error code a server may send")
    codes.add_argument("--json", action="store_true", help="print a JSON list")
    codes.set_defaults(func=_errors)


def _schema(args: argparse.Namespace) -> int:
    from protocol import json_schema

    json.dump(json_schema(), sys.stdout, indent=None if args.compact else 2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def _errors(args: argparse.Namespace) -> int:
    from server.errors import ALL_CODES

    if args.json:
        json.dump(list(ALL_CODES), sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(ALL_CODES) + "\n")
    return 0
