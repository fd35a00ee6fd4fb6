"""The verification matrix for the terminal clients: every origin, every viewer,
honest and altered in transit.

The Textual client and ``--plain`` fold the server's messages into one
:class:`~client_cli.model.state.ClientModel`: the Textual results screen shows its
``match.verification``, ``--plain`` prints the lines ``apply`` returns. Each
recorded transcript (tests/matrix/record.py: deals of every origin played on a real
server) is replayed into a fresh model, message by message through the client's own
parser, with the contributions it sent where it sent them; ``cribsquares history``'s
replay (and the Textual replay screen) checks each deal's stored record. Honest, every
deal ends "deal verified", with the "my contribution" check exactly where the viewer
sent one; with one value altered, "DEAL NOT VERIFIED" and a failing check that names it.
"""

from __future__ import annotations

from typing import Any

import pytest

from client_cli.botkit import BotClient, load_chooser
from client_cli.history import parse_match
from client_cli.model.state import ClientModel
from client_cli.model.views import MatchView
from engine.verification import Verification
from protocol.wire import SERVER_ADAPTER
from tests.matrix.alter import ALTERATIONS, WORD, altered, altered_record
from tests.matrix.record import Recording, Viewer, recorded, result_in

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

MINE = "my contribution was used, at my seat"
TUI_SENDS = {"create_room", "join_room", "quickplay", "challenge", "answer_challenge",
             "rematch", "join_tournament"}  # fmt: skip


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    import asyncio

    return asyncio.run(recorded(tmp_path_factory.mktemp("matrix") / "matrix.db"))


def kept(model: ClientModel, sent: dict[str, Any]) -> None:
    """A command the client sent with a contribution of its own: the model keeps it, as
    when the client made it (ClientModel.new_contribution)."""
    if sent.get("contribution") and not sent.get("spectate"):
        model.new_contribution()
        model.contribution = sent["contribution"]


def replayed(log: list[dict[str, Any]]) -> tuple[dict[str, MatchView], dict[str, list[str]]]:
    """``log`` folded into a fresh model as the terminal clients do: each deal's view
    (its verification as it stands at the end) and the lines said about it."""
    model = ClientModel()
    views: dict[str, MatchView] = {}
    said: dict[str, list[str]] = {}
    for raw in log:
        if raw["type"] == "sent":
            if raw["message"]["type"] in TUI_SENDS:
                kept(model, raw["message"])
            continue
        msg = SERVER_ADAPTER.validate_python(raw)
        lines = model.apply(msg, 0.0)
        shown = result_in(raw)
        if shown is not None and model.match is not None and shown["match_id"] not in views:
            views[shown["match_id"]] = model.match
            said[shown["match_id"]] = lines
        elif lines and model.match is not None and model.match.match_id in said:
            said[model.match.match_id] += lines  # a round's checks, said later
    return views, said


def verdicts(
    viewer: Viewer, log: list[dict[str, Any]], deals: list[str]
) -> dict[str, Verification]:
    """Each of ``deals`` as the terminal clients end up checking it, ``log`` replayed once."""
    views, said = replayed(log)
    found = {}
    for match_id in deals:
        assert match_id in views, f"{viewer.name}: no result of {match_id} in the replay"
        verification = views[match_id].verification
        assert verification is not None
        # --plain prints what the model says; the Textual results screen shows the same.
        assert verification.summary in said[match_id], said[match_id]
        found[match_id] = verification
    return found


def test_every_origin_was_recorded(recording: Recording) -> None:
    origins = {v.origin for v in recording.viewers}
    assert origins == {
        "solo room", "room", "rematch", "series", "quick play", "challenge",
        "daily deal after earlier games", "duplicate tournament table",
        "swiss tournament table", "knockout tournament table", "bot arena",
    }  # fmt: skip
    series = [v for v in recording.viewers if v.origin == "series"]
    assert all(len(v.matches) == 3 for v in series)  # deals 1, 2 and 3


def test_honest_deals_verify_in_the_terminal_clients(recording: Recording) -> None:
    for viewer in recording.viewers:
        for match_id, v in verdicts(viewer, viewer.log, viewer.matches).items():
            labels = [c.label for c in v.checks]
            assert v.ok, f"{viewer.name}, {match_id}: {v.summary}"
            assert (MINE in labels) == viewer.contributed, f"{viewer.name}: {labels}"


@pytest.mark.parametrize("how", list(ALTERATIONS))
def test_a_deal_altered_in_transit_does_not_verify(recording: Recording, how: str) -> None:
    tried = 0
    for viewer in recording.viewers:
        for match_id in viewer.matches:
            log, changed = altered(viewer.log, how, match_id)
            if not changed:
                continue
            tried += 1
            v = verdicts(viewer, log, [match_id])[match_id]
            failed = [c.label for c in v.checks if not c.ok]
            assert not v.ok, f"{viewer.name}, {how} altered: {v.summary}"
            assert any(WORD[how] in label for label in failed), f"{viewer.name}: {failed}"
    # Every viewer saw every value altered (each saw match_started and the result).
    assert tried == sum(len(v.matches) for v in recording.viewers)


def test_the_command_line_says_it_of_every_stored_deal(recording: Recording) -> None:
    """``cribsquares history --match`` and ``analyze`` print the check of a stored deal."""
    from client_cli.commands.history import match_text

    for record in recording.stored.values():
        text = match_text(record)
        if record.get("embargoed"):
            assert "verified" not in text.lower(), text
            continue
        assert "\ndeal verified: " in text, text
        changed = altered_record(record, "seed")
        assert changed is not None
        assert "\nDEAL NOT VERIFIED: the seed matches its commitment" in match_text(changed)


def test_replays_from_history_verify_and_catch_an_altered_record(recording: Recording) -> None:
    daily = {m for v in recording.viewers if v.origin.startswith("daily") for m in v.matches}
    for match_id, record in recording.stored.items():
        if record.get("embargoed"):
            # The day is not over: its deal is checked from history once it is.
            assert match_id in daily, match_id
            with pytest.raises(ValueError, match="others may still play this deal"):
                parse_match(record)
            continue
        honest = parse_match(record).verification()
        assert honest is not None and honest.ok, f"{match_id}: {honest}"
        for how in ALTERATIONS:
            changed = altered_record(record, how)
            if changed is None:
                continue
            v = parse_match(changed).verification()
            assert v is not None and not v.ok, f"{match_id}, {how}: {v}"
            failed = [c.label for c in v.checks if not c.ok]
            assert any(WORD[how] in label for label in failed), f"{match_id}, {how}: {failed}"


@pytest.mark.parametrize("how", [None, *ALTERATIONS])
def test_the_bot_kit_checks_the_deals_it_plays(recording: Recording, how: str | None) -> None:
    """The bot kit's client, handed a bot program's arena transcript as its session hands
    it over, with the contribution it sent: every deal checked, each Outcome saying so."""
    for viewer in (v for v in recording.viewers if v.origin == "bot arena"):
        (match_id,) = viewer.matches
        log = viewer.log if how is None else altered(viewer.log, how, match_id)[0]
        bot = BotClient("ws://127.0.0.1:9/ws", load_chooser("level-1", seed="m"), name="b",
                        say=lambda _: None)  # fmt: skip
        for raw in log:
            if raw["type"] == "sent":
                kept(bot.model, raw["message"])
                continue
            bot.heard(SERVER_ADAPTER.validate_python(raw))
        v = bot.checked[match_id]
        labels = [c.label for c in v.checks]
        if how is None:
            assert v.ok and MINE in labels, v.summary
        else:
            failed = [c.label for c in v.checks if not c.ok]
            assert not v.ok and any(WORD[how] in label for label in failed), failed
