"""Predictions and RatingHistory: the result containers reports and later systems use."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrate import elo
from fastrate.data import Games, PlayerIndex
from fastrate.data.results import Predictions, RatingHistory, Ratings


def test_predictions_wrap_the_game_predictions():
    g = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0])
    r = elo.rate(g)
    p = r.predicted
    assert p.kind == "game" and p.system == r.system and len(p) == 2
    np.testing.assert_array_equal(np.asarray(p), r.predictions)
    assert p.to_arrow().column_names == ["row", "expected"]
    with pytest.raises(ValueError, match=r"kind of Predictions must be one of game, team; got 'seat'"):
        Predictions(np.zeros(1), "seat")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6), st.floats(-1e3, 1e3)),
                max_size=40))
def test_history_groups_and_orders_like_a_slow_reference(points):
    players = PlayerIndex([f"p{i}" for i in range(5)])
    pid = np.array([p for p, _, _ in points], dtype=np.int64)
    when = np.array([w for _, w, _ in points], dtype=np.int64)
    rating = np.array([r for _, _, r in points], dtype=np.float64)
    h = RatingHistory.from_points(players, pid, when, rating)
    for i in range(5):
        ref = sorted(((w, k, r) for k, (p, w, r) in enumerate(points) if p == i))
        t = h.trajectory(f"p{i}")
        assert t["when"].tolist() == [w for w, _, _ in ref]
        assert t["rating"].tolist() == [r for _, _, r in ref]
        assert np.isnan(t["uncertainty"]).all()
    assert len(h) == len(points) and h.to_arrow().num_rows == len(points)


def test_elo_history_is_the_rating_before_each_game_then_the_final():
    g = Games.from_arrays(["a", "b", "a"], ["b", "c", "c"], [1.0, 0.5, 0.0], period=[0, 1, 2])
    r = elo.rate(g, elo.EloConfig(k=20), record_pregame=True)
    h = r.history(g)
    t = h.trajectory("a")
    assert t["when"].tolist() == [0, 2, 3]
    assert t["rating"][0] == 1500.0
    assert t["rating"][1] == pytest.approx(1510.0)
    assert t["rating"][2] == r["a"]
    assert h.to_arrow().column_names == ["player", "period", "rating", "uncertainty"]
    with pytest.raises(ValueError, match=r"record_pregame=True"):
        elo.rate(g).history(g)


def test_history_input_checks():
    players = PlayerIndex(["a"])
    with pytest.raises(ValueError, match=r"must be 1-D arrays of one length"):
        RatingHistory.from_points(players, [0, 0], [1], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"player ids must be in \[0, 1\)"):
        RatingHistory.from_points(players, [1], [1], [1.0])


def test_ratings_state_table_is_generic():
    players = PlayerIndex(["a", "b"])
    r = Ratings("x", players, np.array([1.0, 2.0]), np.array([3, 4]), np.zeros(0),
                rd=np.array([5.0, 6.0]), state={"sigma": np.array([7.0, 8.0])},
                last_period=np.array([0, 1]))
    assert list(r.columns()) == ["player", "rating", "rd", "games_played", "last_period",
                                 "sigma"]
    assert r.volatility is None and r.fide_reached is None
    r.rating = np.array([9.0, 9.0])  # the table follows the attribute
    assert r.columns()["rating"].tolist() == [9.0, 9.0]
    assert r.to_arrow().column("sigma").to_pylist() == [7.0, 8.0]
    same = Ratings("x", players, r.rating, r.games_played, np.zeros(0), state=r.state)
    assert list(same.columns()) == list(r.columns())
