"""Ranks shared on equal keys, and one game's score."""

from engine.ranking import DRAW, LOSS, WIN, competition_ranks, game_score


def test_equal_keys_share_a_rank_and_the_next_rank_skips() -> None:
    assert competition_ranks([(-70, 0), (-61, 0), (-61, 0), (-40, 0)]) == [1, 2, 2, 4]
    assert competition_ranks([3, 1, 2, 1]) == [4, 1, 3, 1]
    assert competition_ranks([]) == []


def test_a_win_a_draw_and_a_loss() -> None:
    assert (game_score("a", "a"), game_score(None, "a"), game_score("b", "a")) == (WIN, DRAW, LOSS)
    assert (WIN, DRAW, LOSS) == (1.0, 0.5, 0.0)
