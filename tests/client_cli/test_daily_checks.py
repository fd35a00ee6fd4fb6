"""The client's checks of a day that is over: the revealed secret against the
commitment this client was first told for that day, then the cards it deals."""

from __future__ import annotations

from client_cli import daily as dd
from client_cli.model.state import ClientModel
from engine.deal import commitment, deal
from protocol.daily import Daily, DailyCommitment, DailyDeal
from server.daily import days

SECRET = "3f6c0a9e41d7b28c5e0f9a6d13b7c4e2a8f05d196e3b7c2a4d8e1f0b9c6a5d37"
DAY = days.parse_day("2026-03-14")


def told(day: int, today: int, secret: str, *, revealed: bool) -> Daily:
    name = days.day_name(day)
    dealt = deal(days.seed(secret, day))
    shown = DailyDeal(
        secret=secret, seed=days.seed(secret, day), contribution=name,
        cards=[str(c) for c in dealt.cards], starter=str(dealt.starter), field=[],
    )  # fmt: skip
    return Daily(
        day=name, today=days.day_name(today), status="over" if revealed else "upcoming",
        starts_ms=days.starts_ms(day), ends_ms=days.ends_ms(day), commitment=commitment(secret),
        schedule=[DailyCommitment(day=name, commitment=commitment(secret))],
        players=0, finished=0, standings=[], deal=shown if revealed else None,
    )  # fmt: skip


def test_a_day_is_checked_against_the_commitment_first_told() -> None:
    model = ClientModel()
    model.apply(told(DAY, DAY - 7, SECRET, revealed=False), 0.0)  # a week ahead
    honest = told(DAY, DAY + 1, SECRET, revealed=True)
    model.apply(honest, 1.0)
    assert all(line.startswith("✔") for line in dd.verify_lines(honest, model.daily_commitments))
    # A server that swapped the day's secret and commitment since: the swap is seen.
    other = "ab" * 32
    swapped = told(DAY, DAY + 1, other, revealed=True)
    model.apply(swapped, 2.0)
    checks = dd.verify_lines(swapped, model.daily_commitments)
    assert checks[0].startswith("✖") and checks[1].startswith("✔")
    # A client told of the day only once it was over can check the cards alone.
    fresh = ClientModel()
    fresh.apply(swapped, 0.0)
    assert all(line.startswith("✔") for line in dd.verify_lines(swapped, fresh.daily_commitments))
