"""Tournament scoring and pairing rules: worked cases and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import errors
from server.tournaments.pairing import (
    PairingError,
    bracket_order,
    knockout_first_round,
    swiss_pairings,
)
from server.tournaments.scoring import (
    Game,
    buchholz,
    duplicate_standings,
    matchpoints,
    sonneborn_berger,
    swiss_standings,
)


def test_matchpoints_beats_and_ties() -> None:
    mp = matchpoints({"a": 60, "b": 50, "c": 50, "d": 40})
    assert mp == {"a": 6.0, "b": 3.0, "c": 3.0, "d": 0.0}


def test_neuberg_scales_a_short_deal_to_the_full_field() -> None:
    # 3 of 4 played: top 4 becomes top 6. M' = (M + 1) * 4/3 - 1.
    mp = matchpoints({"a": 60, "b": 50, "c": 40}, field_size=4)
    assert mp["a"] == pytest.approx(5 * 4 / 3 - 1)
    assert mp["b"] == pytest.approx(3 * 4 / 3 - 1)
    assert mp["c"] == pytest.approx(1 * 4 / 3 - 1)
    # The sum over the field stays the average-result sum: n * (N - 1).
    assert sum(mp.values()) == pytest.approx(3 * 3)


def test_duplicate_standings_percentage_then_points() -> None:
    deals = [{"a": 60, "b": 50, "c": 50}, {"a": 40, "b": 70, "c": 50}]
    table = duplicate_standings(deals, ["a", "b", "c"])
    # a: 4 + 0 = 4/8; b: 1 + 4 = 5/8; c: 1 + 2 = 3/8.
    assert [s.player for s in table] == ["b", "a", "c"]
    assert table[0].percentage == pytest.approx(62.5)
    assert table[1].points == 100


def test_swiss_tiebreaks() -> None:
    games = [
        Game("a", "b", 1.0),
        Game("c", "d", 1.0),
        Game("a", "c", 0.5),
        Game("b", "d", 1.0),
    ]
    # scores: a 1.5, b 1, c 1.5, d 0
    assert buchholz(games) == {"a": 2.5, "b": 1.5, "c": 1.5, "d": 2.5}
    assert sonneborn_berger(games)["a"] == pytest.approx(1.0 + 0.75)
    assert swiss_standings(games, ["a", "b", "c", "d"]) == ["a", "c", "b", "d"]


def test_bracket_order_keeps_top_seeds_apart() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert knockout_first_round(["s1", "s2", "s3", "s4", "s5"]) == [
        ("s1", None),
        ("s4", "s5"),
        ("s2", None),
        ("s3", None),
    ]


def test_swiss_impossible_pairing_is_an_error() -> None:
    with pytest.raises(PairingError):
        swiss_pairings(["a", "b"], {}, {}, {frozenset(("a", "b"))}, set())


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 14), st.integers(1, 5), st.randoms(use_true_random=False))
def test_swiss_never_repeats_and_byes_rotate(n: int, rounds: int, rnd: object) -> None:
    import random

    assert isinstance(rnd, random.Random)
    players = [f"p{i}" for i in range(n)]
    ratings = {p: rnd.uniform(1200, 1800) for p in players}
    scores = dict.fromkeys(players, 0.0)
    played: set[frozenset[str]] = set()
    byes: set[str] = set()
    for _ in range(min(rounds, n - 1)):
        try:
            rnd_pairs = swiss_pairings(players, scores, ratings, played, byes)
        except PairingError:
            break
        seen = [p for pair in rnd_pairs.pairs for p in pair]
        if rnd_pairs.bye:
            assert rnd_pairs.bye not in byes or len(byes) == n
            byes.add(rnd_pairs.bye)
            seen.append(rnd_pairs.bye)
            scores[rnd_pairs.bye] += 1
        assert sorted(seen) == sorted(players)  # everyone exactly once
        for a, b in rnd_pairs.pairs:
            key = frozenset((a, b))
            assert key not in played
            played.add(key)
            winner = a if rnd.random() < 0.5 else b
            scores[winner] += 1


@given(st.integers(1, 70))
def test_knockout_everyone_placed_once_and_byes_to_top_seeds(n: int) -> None:
    seeded = [f"s{i + 1}" for i in range(n)]
    matches = knockout_first_round(seeded)
    placed = [p for m in matches for p in m if p is not None]
    assert sorted(placed) == sorted(seeded)
    byes = [a for a, b in matches if b is None]
    size = max(2, 1 << (n - 1).bit_length())
    assert len(byes) == size - n
    assert set(byes) == set(seeded[: size - n])


def test_a_format_shapes_its_settings_and_its_secret_chain() -> None:
    """The rules a format makes of the host's settings are its module's (the
    Format interface): a knockout plays its bracket's rounds, best of the host's
    deals, no late entry; the others play the rounds asked, one deal a table.
    The secret chain keeps the length it always had (the commitments published
    and the snapshots stored rely on it)."""
    from protocol.tournaments import CreateTournament, TournamentFormat
    from server.tournaments.formats import FORMATS, settings_for

    assert set(FORMATS) == set(TournamentFormat)  # every format has its module
    asked = {"name": "cup", "rounds": 3, "max_players": 12, "late_join": True}
    swiss = settings_for(
        CreateTournament(format="swiss", **asked),  # type: ignore[arg-type]
        0, between_rounds_ms=0, between_deals_ms=0,
    )  # fmt: skip
    knockout = settings_for(
        CreateTournament(format="knockout", best_of=3, **asked),  # type: ignore[arg-type]
        0, between_rounds_ms=0, between_deals_ms=0,
    )  # fmt: skip
    assert (swiss.rounds, swiss.best_of, swiss.late_join) == (3, 1, True)
    assert (knockout.rounds, knockout.best_of, knockout.late_join) == (4, 3, False)
    assert FORMATS[TournamentFormat.SWISS].chain_length(swiss) == 4  # a knockout of 12's
    assert FORMATS[TournamentFormat.KNOCKOUT].chain_length(knockout) == 4
    # The format holds a host to its offer: one deal a table, or best of 1, 3 or 5.
    for name, fmt in FORMATS.items():
        assert fmt.offer.format == name.value and fmt.offer.title == fmt.title
        for best in (1, 3, 5):
            ask = CreateTournament(format=name, best_of=best, **asked)  # type: ignore[arg-type]
            if best in fmt.offer.best_of:
                assert fmt.shape(ask).best_of == best
            else:
                with pytest.raises(errors.BadTournamentSettings, match="one deal"):
                    fmt.shape(ask)
