"""Pairwise Elo (SPEC §2.3): hand-worked values, two-player Elo, the pure-Python
reference, invariants, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import pairwise_elo as ref

from fastrate.data import Games, Matches
from fastrate.errors import ArgumentTypeError, ConfigError, InputTypeError
from fastrate.ratings import elo, pairwise_elo
from fastrate.ratings.pairwise_elo import PairwiseEloConfig


def _by_name(r):
    return {n: float(v) for n, v in zip(r.players.names, r.rating)}


# ----------------------------------------------------------------------------------
# 1. values worked by hand


def test_three_player_game_and_a_2v2_by_hand():
    # match 1: a, b, c at 1500, places 1, 2, 3; every E = 1/2, K/(T-1) = 32/2 = 16:
    #   a: 16 * ((1 - .5) + (1 - .5)) = +16 -> 1516
    #   b: 16 * ((0 - .5) + (1 - .5)) =   0 -> 1500
    #   c: 16 * ((0 - .5) + (0 - .5)) = -16 -> 1484
    # match 2: (a 1516, b 1500) beats (c 1484, d 1500): team ratings 1508 vs 1492,
    #   E = 1/(1 + 10^(-16/400)) = 0.5230095873, change 32 * (1 - E) = 15.2636932065
    #   to every player of the winners, minus that to the losers.
    m = Matches.from_arrays([1, 1, 1, 2, 2, 2, 2], [1, 2, 3, "x", "x", "y", "y"],
                            ["a", "b", "c", "a", "b", "c", "d"], rank=[1, 2, 3, 1, 1, 2, 2])
    r = pairwise_elo.rate(m)
    got = _by_name(r)
    d = 15.263693206478006
    want = {"a": 1516 + d, "b": 1500 + d, "c": 1484 - d, "d": 1500 - d}
    for p in want:
        assert got[p] == pytest.approx(want[p], abs=1e-9)
    assert r.games_played.tolist() == [2, 2, 2, 1]
    np.testing.assert_allclose(r.pair_predictions, [0.5, 0.5, 0.5, 0.5230095872975623],
                               rtol=1e-12)
    np.testing.assert_allclose(r.predictions, [1 / 3, 1 / 3, 1 / 3, 0.5230095872975623,
                                               1 - 0.5230095872975623], rtol=1e-12)


def test_a_tie_scores_one_half():
    # 1600 ties 1500: E = 1/(1 + 10^(-100/400)) = 0.6400649998, change 32 (0.5 - E)
    init = {"player": ["a", "b"], "rating": [1600.0, 1500.0]}
    r = pairwise_elo.rate(Matches.from_arrays([0, 0], None, ["a", "b"], rank=[1, 1]),
                          initial=init)
    assert _by_name(r)["a"] == pytest.approx(1600 + 32 * (0.5 - 0.6400649998028851),
                                             abs=1e-9)
    assert _by_name(r)["b"] == pytest.approx(1500 - 32 * (0.5 - 0.6400649998028851),
                                             abs=1e-9)


def test_two_player_games_are_plain_elo():
    rng = np.random.default_rng(1)
    n = 300
    white = rng.integers(0, 12, n)
    black = (white + rng.integers(1, 12, n)) % 12
    score = rng.choice([0.0, 0.5, 1.0], n)
    g = Games.from_arrays([f"p{i}" for i in white], [f"p{i}" for i in black], score)
    a = pairwise_elo.rate(g, PairwiseEloConfig(k=24.0))
    b = elo.rate(g, elo.EloConfig(k=24.0))
    ga, gb = _by_name(a), _by_name(b)
    for p in gb:
        assert ga[p] == pytest.approx(gb[p], abs=1e-9)
    np.testing.assert_array_equal(np.sort(a.games_played), np.sort(b.games_played))
    # the first team of every match is the winner (or the first player of a draw)
    m = Matches.from_games(g)
    pe = np.where(m.player[0::2] == g.white, b.predictions, 1 - b.predictions)
    np.testing.assert_allclose(a.pair_predictions, pe, rtol=1e-12)


def test_changes_sum_to_zero_for_one_player_teams():
    rng = np.random.default_rng(2)
    match = np.repeat(np.arange(50), 5)
    player = np.concatenate([rng.permutation(20)[:5] for _ in range(50)])
    rank = rng.integers(1, 6, 250)
    r = pairwise_elo.rate(Matches.from_arrays(match, None, [f"p{i}" for i in player],
                                              rank=rank))
    assert r.rating.sum() == pytest.approx(1500.0 * len(r.players), abs=1e-8)


# ----------------------------------------------------------------------------------
# 2. against the reference


@st.composite
def _matches(draw):
    n = draw(st.integers(1, 15))
    n_players = draw(st.integers(4, 10))
    out = []
    for _ in range(n):
        n_t = draw(st.integers(2, 5))
        size = draw(st.integers(1, 2))
        seats = draw(st.permutations(range(n_players)))
        n_t = min(n_t, len(seats) // size)
        places = [draw(st.integers(1, n_t)) for _ in range(n_t)]
        teams = [[(f"p{seats[t * size + k]}",
                   1.0 if k == 0 else draw(st.sampled_from([0.0, 0.25, 1.0])))
                  for k in range(size)] for t in range(n_t)]
        order = sorted(range(n_t), key=lambda i, p=places: p[i])  # stored: best first
        out.append({"teams": [teams[i] for i in order], "places": [places[i] for i in order]})
    return out


def _to_matches(games):
    match, team, player, rank, weight = [], [], [], [], []
    for g, game in enumerate(games):
        for t, members in enumerate(game["teams"]):
            for p, w in members:
                match.append(g)
                team.append(t)
                player.append(p)
                rank.append(game["places"][t])
                weight.append(w)
    return Matches.from_arrays(match, team, player, rank=rank, weight=weight)


@settings(max_examples=60)
@given(_matches(), st.sampled_from([32.0, 10.0]), st.sampled_from([400.0, 173.7]),
       st.lists(st.floats(1000, 2000), min_size=10, max_size=10))
def test_matches_the_reference(games, k, scale, ratings):
    names = [f"p{i}" for i in range(10)]
    init = {"player": names, "rating": ratings, "games_played": list(range(10))}
    r = pairwise_elo.rate(_to_matches(games), PairwiseEloConfig(k=k, scale=scale),
                          initial=init)
    rating, played, preds, pair_preds = ref.pairwise_elo(
        games, k=k, scale=scale, status={n: (x, i) for i, (n, x) in enumerate(zip(names,
                                                                                   ratings))})
    got = _by_name(r)
    for p in rating:
        assert got[p] == pytest.approx(rating[p], rel=1e-12, abs=1e-9), p
        assert int(r.games_played[r.players.id_of(p)]) == played[p]
    np.testing.assert_allclose(r.predictions, preds, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.pair_predictions, pair_preds, rtol=1e-12, atol=1e-15)


# ----------------------------------------------------------------------------------
# 3. invariants


def test_permuting_teams_and_players_permutes_the_results():
    rng = np.random.default_rng(4)
    names = [f"p{i}" for i in range(12)]
    init = {"player": names, "rating": rng.normal(1500, 150, 12)}
    for _ in range(20):
        seats = rng.permutation(12)[:8]  # four teams of two
        ranks = rng.integers(1, 5, 4)
        team = np.repeat(np.arange(4), 2)
        rows = np.arange(8)
        perm = rng.permutation(8)  # rows in any order: teams and players within them
        ms = [Matches.from_arrays([0] * 8, team[o], [names[i] for i in seats[o]],
                                  rank=ranks[team[o]]) for o in (rows, perm)]
        ra, rb = (pairwise_elo.rate(m, initial=init) for m in ms)
        assert _by_name(ra) == pytest.approx(_by_name(rb), abs=1e-9)
        # a team's win probability follows it (keyed by its first player's name)
        for m, r in ((ms[0], ra), (ms[1], rb)):
            key = {frozenset(m.players.names[m.player[m.team_player_offsets[t]:
                                                      m.team_player_offsets[t + 1]]]): p
                   for t, p in enumerate(r.predictions)}
            if m is ms[0]:
                first = key
            else:
                assert key == pytest.approx(first, rel=1e-12)


def test_a_weight_zero_player_changes_nothing():
    init = {"player": ["a", "b", "c", "d", "z"],
            "rating": [1550.0, 1480.0, 1500.0, 1510.0, 2200.0]}
    base = Matches.from_arrays([0] * 4, ["x", "x", "y", "y"], list("abcd"), rank=[2, 2, 1, 1])
    extra = Matches.from_arrays([0] * 5, ["x", "x", "x", "y", "y"], list("abzcd"),
                                rank=[2, 2, 2, 1, 1], weight=[1, 1, 0, 1, 1])
    r0, r1 = pairwise_elo.rate(base, initial=init), pairwise_elo.rate(extra, initial=init)
    g0, g1 = _by_name(r0), _by_name(r1)
    assert g1["z"] == 2200.0 and int(r1.games_played[r1.players.id_of("z")]) == 0
    for p in "abcd":
        assert g1[p] == g0[p]
    np.testing.assert_array_equal(r0.predictions, r1.predictions)
    np.testing.assert_array_equal(r0.pair_predictions, r1.pair_predictions)


def test_partial_play_scales_the_change():
    m = Matches.from_arrays([0] * 3, ["x", "x", "y"], ["a", "b", "c"], rank=[1, 1, 2],
                            weight=[1.0, 0.5, 1.0])
    got = _by_name(pairwise_elo.rate(m))
    assert got["a"] == 1516.0 and got["b"] == 1508.0 and got["c"] == 1484.0


# ----------------------------------------------------------------------------------
# 4. errors


@pytest.mark.parametrize("kw", [{"k": -1.0}, {"k": math.inf}, {"scale": 0.0},
                                {"initial_rating": math.nan}, {"k": "32"}])
def test_bad_configs(kw):
    with pytest.raises((ConfigError, InputTypeError)):
        PairwiseEloConfig(**kw)


def test_bad_arguments():
    with pytest.raises(ArgumentTypeError):
        pairwise_elo.rate({"a": 1})
    m = Matches.from_arrays([0, 0], None, ["a", "b"], rank=[1, 2])
    with pytest.raises(ArgumentTypeError):
        pairwise_elo.rate(m, config=elo.EloConfig())
