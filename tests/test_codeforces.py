"""The Codeforces rating (SPEC §2.4, the 2018 variant): contests worked by hand, the slow
reference of tests/reference/codeforces.py on random contests and matches, invariants
and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import codeforces as ref

from fastrate import systems
from fastrate.data import Games, Matches
from fastrate.errors import ConfigError, InputError
from fastrate.ratings import codeforces as cf

# ----------------------------------------------------------------------------------
# contests worked by hand from SPEC §2.4; f(x) = 1/(1 + 10^(x/400)),
# seed_i(R) = 1 + sum_{j != i} f(R - r_j); the search's R is the largest integer
# with seed_i(R) >= m_i (seed_i falls as R grows), i.e. R = floor(R*) where R* solves
# seed_i(R*) = m_i.


def test_two_new_entrants():
    # r = 1500, 1500; places 1, 2 -> ranks 1, 2.
    # seed_1 = seed_2 = 1 + f(0) = 1.5.
    # entrant 1: m = sqrt(1 * 1.5) = 1.224745; 1 + f(R - 1500) = m -> f = 0.224745,
    #   10^(x/400) = 1/0.224745 - 1 = 3.449490, x = 400 log10(3.449490) = 215.11 -> R = 1715,
    #   d = (1715 - 1500)/2 = 107.5 -> 107 (toward zero).
    # entrant 2: m = sqrt(2 * 1.5) = 1.732051 -> f = 0.732051, 1/f - 1 = 0.366025,
    #   x = 400 log10(0.366025) = -174.59 -> R = 1325, d = -175/2 = -87.5 -> -87 (toward
    #   zero; floor division would give -88).
    # sum d = 20; inc = -(20)/2 - 1 = -11 -> d = 96, -98.
    # s = min(2, floor(4 sqrt 2) = 5) = 2; sum over top 2 = -2; inc = min(max(2/2 = 1,
    #   -10), 0) = 0.  New ratings 1596, 1402.
    res = cf.contest_update([1500, 1500], [1, 2])
    assert res.seed.tolist() == [1.5, 1.5]
    assert res.performance.tolist() == [1715, 1325]
    assert res.delta.tolist() == [96, -98]


def test_a_tie_and_a_new_entrant():
    # r = 1600, 1500 (new), 1400; places 1, 2, 2 -> ranks 1, 3, 3 (last place of the tie).
    # f(100) = 1/(1 + 10^0.25) = 0.359935, f(200) = 1/(1 + 10^0.5) = 0.240253,
    # f(-100) = 0.640065, f(-200) = 0.759747.
    # seed_1 = 1 + f(100) + f(200) = 1.600188; m_1 = sqrt(1 * 1.600188) = 1.264985
    #   1 + f(R - 1500) + f(R - 1400) = 1.264985 at R* = 1781.70 -> R = 1781
    #   (seed(1781) = 1.265903 >= m > seed(1782) = 1.264590); d = 181/2 -> 90.
    # seed_2 = 1 + f(-100) + f(100) = 2.0; m_2 = sqrt(3 * 2) = 2.449490
    #   1 + f(R - 1600) + f(R - 1400) = m at R* = 1318.75 -> R = 1318; d = -182/2 = -91.
    # seed_3 = 1 + f(-200) + f(-100) = 2.399812; m_3 = sqrt(3 * 2.399812) = 2.683176
    #   1 + f(R - 1600) + f(R - 1500) = m at R* = 1254.97 -> R = 1254; d = -146/2 = -73.
    # sum d = 90 - 91 - 73 = -74; inc = -(-74)/3 - 1 = 24 - 1 = 23 -> d = 113, -68, -50.
    # s = min(3, floor(4 sqrt 3) = 6) = 3; sum = -5; inc = min(max(5/3 = 1, -10), 0) = 0.
    res = cf.contest_update([1600, 1500, 1400], [1, 2, 2])
    np.testing.assert_allclose(res.seed, [1.600188, 2.0, 2.399812], atol=1e-6)
    assert res.performance.tolist() == [1781, 1318, 1254]
    assert res.delta.tolist() == [113, -68, -50]
    # the same standings as points (higher is better), in another input order
    res2 = cf.contest_update([1400, 1600, 1500], points=[7, 9, 7])
    assert res2.delta.tolist() == [-50, 113, -68]


def test_seventeen_new_entrants_second_correction():
    # 17 entrants at 1500, places 1..17: seed_i = 1 + 16 * 0.5 = 9, m_i = sqrt(9 i) = 3 sqrt i;
    # 1 + 16 f(R - 1500) = m -> f = (3 sqrt i - 1)/16, R* - 1500 = 400 log10(1/f - 1):
    #  i   m       f       R*-1500  R     d=(R-1500)/2
    #  1   3       0.125    338.04  1838  169
    #  2   4.2426  0.2027   237.95  1737  118
    #  3   5.1962  0.2623   179.67  1679   89
    #  4   6       0.3125   136.97  1636   68
    #  5   6.7082  0.3568   102.40  1602   51
    #  6   7.3485  0.3968    72.77  1572   36
    #  7   7.9373  0.4336    46.43  1546   23
    #  8   8.4853  0.4678    22.39  1522   11
    #  9   9       0.5        0     1500    0   (seed(1500) = 9 = m exactly: 9 < 9 is
    #                                            false, so left = 1500)
    # 10   9.4868  0.5304   -21.17  1478  -11
    # 11   9.9499  0.5594   -41.45  1458  -21
    # 12  10.3923  0.5870   -61.09  1438  -31
    # 13  10.8167  0.6135   -80.30  1419  -40   (-81/2 = -40.5 -> -40)
    # 14  11.2250  0.6391   -99.24  1400  -50
    # 15  11.6190  0.6637  -118.09  1381  -59
    # 16  12       0.6875  -136.97  1363  -68
    # 17  12.3693  0.7106  -156.04  1343  -78
    # sum d = 565 - 358 = 207; inc = -(207)/17 - 1 = -12 - 1 = -13.
    # s = min(17, floor(4 sqrt 17 = 16.49)) = 16: the top 16 by rating (all equal, so by
    # rank) are places 1..16: sum = (207 + 78) - 16 * 13 = 77; inc = min(max(-77/16 = -4,
    # -10), 0) = -4.  Every d falls by 17.
    d = [169, 118, 89, 68, 51, 36, 23, 11, 0, -11, -21, -31, -40, -50, -59, -68, -78]
    perf = [1838, 1737, 1679, 1636, 1602, 1572, 1546, 1522, 1500, 1478, 1458, 1438, 1419,
            1400, 1381, 1363, 1343]
    res = cf.contest_update([1500] * 17, list(range(1, 18)))
    assert res.seed.tolist() == [9.0] * 17
    assert res.performance.tolist() == perf
    assert res.delta.tolist() == [x - 17 for x in d]


def test_a_two_versus_two_rates_every_player_at_the_team_place():
    # 2v2, everyone new: entrants a, b (team x, place 1) and c, d (place 2) -> ranks 2, 2,
    # 4, 4. seed = 1 + 3 * 0.5 = 2.5.
    # winners: m = sqrt(2 * 2.5) = 2.236068; 1 + 3 f(R - 1500) = m -> f = 0.412023,
    #   1/f - 1 = 1.427051, R* - 1500 = 61.78 -> R = 1561, d = 61/2 -> 30.
    # losers: m = sqrt(4 * 2.5) = 3.162278 -> f = 0.720759, 1/f - 1 = 0.387426,
    #   R* - 1500 = -164.72 -> R = 1335, d = -165/2 = -82.5 -> -82.
    # sum d = 60 - 164 = -104; inc = 104/4 - 1 = 25 -> d = 55, 55, -57, -57.
    # s = min(4, 8) = 4: sum = -4 -> inc = min(max(1, -10), 0) = 0.
    # A fifth seat of weight 0 (e on team y) changes nothing.
    m = Matches.from_arrays([1] * 5, ["x", "x", "y", "y", "y"], ["a", "b", "c", "d", "e"],
                            rank=[1, 1, 2, 2, 2], weight=[1, 1, 1, 0.5, 0])
    r = cf.rate(m)
    got = dict(zip(r.players.names, r.rating.tolist()))
    assert got == {"a": 1555.0, "b": 1555.0, "c": 1443.0, "d": 1443.0, "e": 1500.0}
    assert dict(zip(r.players.names, r.games_played.tolist())) == {
        "a": 1, "b": 1, "c": 1, "d": 1, "e": 0}
    assert r.predictions.tolist() == [0.5, 0.5]
    assert r.pair_predictions.tolist() == [0.5]


def test_second_contest_continues_from_the_first():
    # Contest 1 above, then the same two again with places reversed: 1596 vs 1402.
    # f(194) = 1/(1 + 10^0.485) = 0.246614; seed_1 (1596) = 1 + f(194) = 1.246614,
    # seed_2 (1402) = 1 + f(-194) = 1.753386; ranks 2, 1 (1402 wins).
    # 1596: m = sqrt(2 * 1.246614) = 1.578996; 1 + f(R - 1402) = m -> f = 0.578996,
    #   1/f - 1 = 0.727128, R* = 1402 + 400 log10(0.727128) = 1346.64 -> R = 1346,
    #   d = -250/2 = -125.
    # 1402: m = sqrt(1.753386) = 1.324155 -> f = 0.324155, 1/f - 1 = 2.084945,
    #   R* = 1596 + 127.64 = 1723.64 -> R = 1723, d = 321/2 -> 160.
    # sum = 35; inc = -35/2 - 1 = -17 - 1 = -18 -> -143, 142; top 2 by rating (1596, then
    # 1402): sum = -1 -> inc = min(max(1/2 = 0, -10), 0) = 0.  New: 1453, 1544.
    g = Games.from_arrays(["p", "q"], ["q", "p"], [1.0, 1.0])
    r = cf.rate(g)
    assert dict(zip(r.players.names, r.rating.tolist())) == {"p": 1453.0, "q": 1544.0}
    # before game 2: q (1402, stored first as the winner) against p (1596)
    assert r.predictions[2] == pytest.approx(1.0 / (1.0 + 10.0 ** (194 / 400)), rel=1e-12)
    first = cf.rate(Games.from_arrays(["p"], ["q"], [1.0]))
    cont = cf.rate(Games.from_arrays(["q"], ["p"], [1.0]), initial=first)
    assert dict(zip(cont.players.names, cont.rating.tolist())) == {"p": 1453.0, "q": 1544.0}


# ----------------------------------------------------------------------------------
# against the reference

ratings_st = st.one_of(st.just(1500), st.sampled_from([1300, 1400, 1600, 1700]),
                       st.integers(800, 2400), st.integers(-300, 9000))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ratings_st, st.integers(1, 5)), min_size=1, max_size=9))
def test_contest_equals_the_reference(entrants):
    r = [e[0] for e in entrants]
    places = [e[1] for e in entrants]
    res = cf.contest_update(r, places)
    seed, perf, delta = ref.contest(r, places)
    assert res.seed.tolist() == seed
    assert res.performance.tolist() == perf
    assert res.delta.tolist() == delta


def test_large_contest_equals_the_reference():
    rng = np.random.default_rng(3)
    n = 40  # s = 25 < n: the second correction's top group is a real subset
    r = np.where(rng.random(n) < 0.3, 1500, np.round(rng.normal(1600, 300, n))).astype(int)
    places = rng.integers(1, 30, n)
    res = cf.contest_update(r, places)
    seed, perf, delta = ref.contest(r.tolist(), places.tolist())
    assert res.seed.tolist() == seed
    assert res.performance.tolist() == perf
    assert res.delta.tolist() == delta


def _random_matches(rng, n, n_players, zero_weights=True):
    match, team, player, rank, weight = [], [], [], [], []
    for m in range(n):
        teams = int(rng.integers(2, 6))
        size = int(rng.integers(1, 3))
        seats = rng.choice(n_players, teams * size, replace=False)
        ranks = rng.integers(1, teams + 1, teams)
        for t in range(teams):
            for k in range(size):
                match.append(m)
                team.append(t)
                player.append(f"p{seats[t * size + k]}")
                rank.append(int(ranks[t]))
                weight.append(1.0 if k == 0 else float(rng.choice([0.0, 0.5, 1.0]) if
                                                        zero_weights else 1.0))
    return dict(match=match, team=team, player=player, rank=rank, weight=weight)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_rate_equals_the_reference(seed):
    rng = np.random.default_rng(seed)
    matches = Matches.from_arrays(**_random_matches(rng, 25, 12))
    r = cf.rate(matches)
    rating, games, pred, pairs = ref.rate(matches)
    for p in range(len(r.players)):
        assert r.rating[p] == rating.get(p, 1500)
        assert r.games_played[p] == games.get(p, 0)
    np.testing.assert_allclose(r.predictions, pred, rtol=1e-12)
    np.testing.assert_allclose(r.pair_predictions, pairs, rtol=1e-12)


def test_initial_rating_config():
    m = Matches.from_arrays([1, 1], [1, 2], ["a", "b"], rank=[1, 2])
    r = cf.rate(m, cf.CodeforcesConfig(initial_rating=1200))
    rating, _, _, _ = ref.rate(m, initial_rating=1200)
    assert r.rating.tolist() == [rating[0], rating[1]]


# ----------------------------------------------------------------------------------
# invariants


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(ratings_st, st.integers(1, 4)), min_size=2, max_size=12),
       st.randoms(use_true_random=False))
def test_permuting_entrants_permutes_results(entrants, rnd):
    r = np.array([e[0] for e in entrants])
    places = np.array([e[1] for e in entrants])
    perm = np.array(rnd.sample(range(len(r)), len(r)))
    a = cf.contest_update(r, places)
    b = cf.contest_update(r[perm], places[perm])
    for x, y in zip(a, b):
        assert x[perm].tolist() == y.tolist()


def test_permuting_tied_teams_and_teammates_permutes_results():
    rng = np.random.default_rng(5)
    cols = _random_matches(rng, 40, 15, zero_weights=False)
    base = cf.rate(Matches.from_arrays(**cols))
    # reverse the seat order inside every match: tied teams (equal rank) change order,
    # teammates too; Matches keeps teams best first
    order = []
    match = np.array(cols["match"])
    for m in range(40):
        order += list(np.flatnonzero(match == m)[::-1])
    flipped = cf.rate(Matches.from_arrays(**{k: np.array(v)[order] for k, v in cols.items()}))
    idx = [flipped.players.id_of(p) for p in base.players.names]
    assert flipped.rating[idx].tolist() == base.rating.tolist()
    assert flipped.games_played[idx].tolist() == base.games_played.tolist()


def test_a_weight_zero_entrant_changes_nothing():
    rng = np.random.default_rng(9)
    cols = _random_matches(rng, 30, 10, zero_weights=False)
    base = cf.rate(Matches.from_arrays(**cols))
    extra = {k: list(v) for k, v in cols.items()}
    for m in range(0, 30, 3):  # a weight-0 seat "ghost" in the first team of every 3rd match
        i = extra["match"].index(m)
        for k, v in dict(match=m, team=extra["team"][i], player="ghost",
                         rank=extra["rank"][i], weight=0.0).items():
            extra[k].insert(i, v)
    more = cf.rate(Matches.from_arrays(**extra))
    idx = [more.players.id_of(p) for p in base.players.names]
    assert more.rating[idx].tolist() == base.rating.tolist()
    np.testing.assert_array_equal(more.predictions, base.predictions)
    np.testing.assert_array_equal(more.pair_predictions, base.pair_predictions)
    g = more.players.id_of("ghost")
    assert more.rating[g] == 1500.0 and more.games_played[g] == 0


def test_zero_sum_bounds():
    # inc = -sum/n - 1 leaves the changes summing to at most 0; the second correction
    # only lowers them
    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(2, 300))
        r = np.round(rng.normal(1500, 400, n)).astype(int)
        res = cf.contest_update(r, rng.integers(1, n + 1, n))
        assert res.delta.sum() <= 0
        assert ((res.performance >= 1) & (res.performance < 8000)).all()


def test_predictions_sum_to_one_and_match_elo_for_two():
    r = cf.rate(systems.tiny_data("matches"))
    sums = np.add.reduceat(r.predictions, systems.tiny_data("matches").match_team_offsets[:-1])
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    assert float(cf.expected_score(1700, 1500)) == pytest.approx(1 / (1 + 10 ** -0.5))


# ----------------------------------------------------------------------------------
# errors


def test_errors():
    with pytest.raises(ConfigError, match="initial_rating"):
        cf.CodeforcesConfig(initial_rating=1500.5)
    with pytest.raises(InputError, match="exactly one of places"):
        cf.contest_update([1500, 1500])
    with pytest.raises(InputError, match="exactly one of places"):
        cf.contest_update([1500, 1500], [1, 2], points=[1, 2])
    with pytest.raises(InputError, match="whole numbers"):
        cf.contest_update([1500.5, 1500], [1, 2])
    with pytest.raises(InputError, match="places has 3 values for 2"):
        cf.contest_update([1500, 1500], [1, 2, 3])
    m = Matches.from_arrays([1, 1], [1, 2], ["a", "b"], rank=[1, 2])
    with pytest.raises(InputError, match="player 'a'"):
        cf.rate(m, initial={"a": 1523.4})
    with pytest.raises(InputError, match=r"found 2000000000\.0"):
        cf.rate(m, initial={"b": 2e9})


def test_extreme_ratings_leave_the_table():
    # differences beyond the table of f are computed directly
    res = cf.contest_update([-900_000, 900_000, 1500], [1, 2, 3])
    seed, perf, delta = ref.contest([-900_000, 900_000, 1500], [1, 2, 3])
    assert res.delta.tolist() == delta and res.performance.tolist() == perf
    assert math.isfinite(res.seed.sum())


def test_rating_without_pair_predictions():
    m = systems.tiny_data("matches")
    full, bare = cf.rate(m), cf.rate(m, pair_predictions=False)
    assert bare.pair_predictions.shape == (0,)
    assert bare.rating.tolist() == full.rating.tolist()
    np.testing.assert_array_equal(bare.predictions, full.predictions)
