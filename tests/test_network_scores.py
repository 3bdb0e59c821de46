"""Park & Newman win-loss scores: against a dense solve of the same linear systems, small
hand-worked cases, the eigenvalue bound on alpha."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.network_scores import lambda_max, scores, win_matrix

import fastrate
from fastrate.errors import ConfigError
from fastrate.ratings.network_scores import (
    DEFAULT_FRACTION,
    network_scores,
    spectral_radius,
)


def _games(white, black, score, weight=None):
    opt = {} if weight is None else {"weight": weight}
    return fastrate.Games.from_arrays([f"p{i}" for i in white], [f"p{i}" for i in black],
                                      score, **opt)


@st.composite
def game_sets(draw):
    n = draw(st.integers(2, 8))
    g = draw(st.integers(1, 40))
    white = draw(st.lists(st.integers(0, n - 1), min_size=g, max_size=g))
    step = draw(st.lists(st.integers(1, n - 1), min_size=g, max_size=g))
    black = [(w + s) % n for w, s in zip(white, step)]
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.0, 0.0, 0.25]), min_size=g,
                          max_size=g))
    weight = draw(st.none() | st.lists(st.floats(0.1, 3.0), min_size=g, max_size=g))
    return white, black, score, weight


@settings(max_examples=60, deadline=None)
@given(game_sets(), st.sampled_from([None, 0.0, 0.3, 0.9]))
def test_equals_the_dense_solve(data, fraction):
    white, black, score, weight = data
    games = _games(white, black, score, weight)
    ids = games.players.lookup
    w_ids = [ids[f"p{i}"] for i in white]
    b_ids = [ids[f"p{i}"] for i in black]
    lam = lambda_max(win_matrix(w_ids, b_ids, score, games.n_players, weight))
    alpha = None if fraction is None or lam < 1e-9 else fraction / lam
    r = network_scores(games, alpha)
    assert r.lambda_max == pytest.approx(lam, rel=1e-8, abs=1e-9)
    if alpha is None:
        alpha = DEFAULT_FRACTION / lam if lam > 1e-9 else DEFAULT_FRACTION
        assert r.alpha == pytest.approx(alpha, rel=1e-8)
    s, w, loss = scores(w_ids, b_ids, score, games.n_players, r.alpha, weight)
    size = max(1.0, np.abs(w).max(), np.abs(loss).max())
    np.testing.assert_allclose(r.wins_score, w, rtol=0, atol=1e-10 * size)
    np.testing.assert_allclose(r.losses_score, loss, rtol=0, atol=1e-10 * size)
    np.testing.assert_allclose(r.score, s, rtol=0, atol=2e-10 * size)
    np.testing.assert_array_equal(r.score, r.wins_score - r.losses_score)


def test_a_chain_by_hand():
    """a beat b, b beat c: a has 1 direct win and an indirect one over c worth α; c 1
    direct loss and an indirect one to a; b's win and loss cancel. No cycle: λ_max = 0,
    every α converges, and the default is 0.8."""
    g = fastrate.Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 1.0])
    r = network_scores(g, alpha=0.5)
    assert r.as_dict() == {"a": 1.5, "b": 0.0, "c": -1.5}
    assert r.wins_score.tolist() == [1.5, 1.0, 0.0]
    assert r.losses_score.tolist() == [0.0, 1.0, 1.5]
    assert r.lambda_max == 0.0
    d = network_scores(g)
    assert d.alpha == 0.8 and d.as_dict()["a"] == pytest.approx(1.8)
    assert network_scores(g, alpha=100.0).as_dict()["a"] == pytest.approx(101.0)


def test_a_cycle_by_hand():
    """a > b > c > a: A is a permutation matrix (λ_max = 1); everyone's win score is
    1 + α + α² + ... = 1/(1 - α), as is the loss score: all scores 0."""
    g = fastrate.Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1.0, 1.0, 1.0])
    assert spectral_radius(g) == pytest.approx(1.0, rel=1e-9)
    r = network_scores(g, alpha=0.5)
    np.testing.assert_allclose(r.wins_score, 2.0, rtol=1e-12)
    np.testing.assert_allclose(r.score, 0.0, atol=1e-12)
    assert network_scores(g).alpha == pytest.approx(0.8, rel=1e-9)
    with pytest.raises(ConfigError, match=r"'alpha' of network_scores must be below "
                                          r"1/λ_max\(A\) = 1 .*got 1\.0"):
        network_scores(g, alpha=1.0)
    with pytest.raises(ConfigError, match="alpha"):
        network_scores(g, alpha=-0.1)


def test_draws_count_half_a_win_each_way():
    """One draw: A = [[0, 1/2], [1/2, 0]], λ_max = 1/2; both scores equal."""
    g = fastrate.Games.from_arrays(["a"], ["b"], [0.5])
    r = network_scores(g, alpha=1.0)
    assert r.lambda_max == pytest.approx(0.5, rel=1e-9)
    np.testing.assert_allclose(r.wins_score, [1.0, 1.0], rtol=1e-12)  # 0.5 / (1 - 0.5)
    np.testing.assert_allclose(r.score, 0.0, atol=1e-12)
    with pytest.raises(ConfigError, match="below"):
        network_scores(g, alpha=2.0)


def test_weights_multiply_games_and_order_does_not_matter():
    rng = np.random.default_rng(3)
    white = rng.integers(0, 6, 40)
    black = (white + rng.integers(1, 6, 40)) % 6
    score = rng.choice([0.0, 0.5, 1.0], 40)
    doubled = network_scores(_games(np.r_[white, white], np.r_[black, black],
                                    np.r_[score, score]), alpha=0.05)
    weighted = network_scores(_games(white, black, score, np.full(40, 2.0)), alpha=0.05)
    a, b = doubled.as_dict(), weighted.as_dict()
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-12)
    perm = rng.permutation(40)
    shuffled = network_scores(_games(white[perm], black[perm], score[perm]), alpha=0.05)
    plain = network_scores(_games(white, black, score), alpha=0.05)
    a, b = plain.as_dict(), shuffled.as_dict()
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-12)


def test_lambda_max_of_a_reducible_graph():
    """Two groups with one edge between them: λ_max is the larger group's (3), although
    the other group's rows sum to more (10 wins of c over d against 0.1 of d over c, λ 1),
    and the winner of the edge between them does not matter."""
    white = ["a", "b", "c", "d", "a"]
    black = ["b", "a", "d", "c", "c"]
    g = fastrate.Games.from_arrays(white, black, [1.0, 1.0, 1.0, 1.0, 1.0],
                                   weight=[3.0, 3.0, 10.0, 0.1, 1.0])
    assert spectral_radius(g) == pytest.approx(3.0, rel=1e-9)
    r = network_scores(g)
    assert r.alpha == pytest.approx(0.8 / 3.0, rel=1e-9)


def test_wins_minus_losses_at_alpha_zero():
    g = fastrate.Games.from_arrays(["a", "a", "b", "c"], ["b", "c", "c", "a"],
                                   [1.0, 0.5, 0.0, 1.0])
    # a: beat b, drew c, lost to c; b: lost to a and c; c: drew a, beat b and a
    assert network_scores(g, alpha=0.0).as_dict() == {"a": 0.0, "b": -2.0, "c": 2.0}
