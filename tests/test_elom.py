"""PlayerRatings' elom (SPEC §2.3): hand-worked values, the pure-Python reference,
invariants, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import elom as ref

from fastrate.data import Games, Matches
from fastrate.errors import ArgumentTypeError, ConfigError, InputError, InputTypeError
from fastrate.ratings import elom
from fastrate.ratings.elom import ElomConfig


def _ffa(games, period=None, score=None):
    """Free-for-alls from lists of (players, places): one row per seat."""
    match, player, place, per, sc = [], [], [], [], []
    for g, (players, places) in enumerate(games):
        for i, (p, r) in enumerate(zip(players, places)):
            match.append(g)
            player.append(p)
            place.append(r)
            if period is not None:
                per.append(period[g])
            if score is not None:
                sc.append(score[g][i])
    kw = {"period": per} if period is not None else {}
    if score is not None:
        return Matches.from_arrays(match, None, player, score=sc, **kw)
    return Matches.from_arrays(match, None, player, rank=place, **kw)


def _by_name(r):
    return {n: float(v) for n, v in zip(r.players.names, r.rating)}


# ----------------------------------------------------------------------------------
# 1. values worked by hand


def test_two_games_by_hand():
    # game 1: four new players (K = kriichi(0) = 1), places 1..4, everyone expected 0
    # (table average 1500): a +30, b +10, c -10, d -30.
    # game 2 (next period) in reverse order: ratings 1530, 1510, 1490, 1470, average 1500,
    # expected (R - 1500)/40 = 0.75, 0.25, -0.25, -0.75; K = 1 - 0.8 * 1/400 = 0.998:
    #   a: 0.998 * (-30 - 0.75) = -30.6885   -> 1499.3115
    #   b: 0.998 * (-10 - 0.25) = -10.2295   -> 1499.7705
    #   c: 0.998 * ( 10 + 0.25) =  10.2295   -> 1500.2295
    #   d: 0.998 * ( 30 + 0.75) =  30.6885   -> 1500.6885
    m = _ffa([("abcd", [1, 2, 3, 4]), ("dcba", [1, 2, 3, 4])])
    r = elom.rate(m)
    got = _by_name(r)
    want = {"a": 1499.3115, "b": 1499.7705, "c": 1500.2295, "d": 1500.6885}
    for p in want:
        assert got[p] == pytest.approx(want[p], abs=1e-9)
    assert r.games_played.tolist() == [2, 2, 2, 2]
    # predictions: all equal before game 1; before game 2 the Luce form
    # 10^(R/400)/sum: d (1470) is stored first in game 2
    np.testing.assert_allclose(r.predictions[:4], 0.25)
    w = 10 ** (np.array([1470.0, 1490.0, 1510.0, 1530.0]) / 400)
    np.testing.assert_allclose(r.predictions[4:], w / w.sum(), rtol=1e-12)
    # pair (d, c) of game 2: 1/(1 + 10^(20/400))
    assert r.pair_predictions[6] == pytest.approx(1 / (1 + 10 ** 0.05), rel=1e-12)


def test_ties_take_the_best_base_value():
    # places 1, 2, 2, 4 -> base 30, 10, 10, -30 (PlayerRatings: rank ties "min")
    r = elom.rate(_ffa([("abcd", [1, 2, 2, 4])]))
    assert _by_name(r) == {"a": 1530.0, "b": 1510.0, "c": 1510.0, "d": 1470.0}


def test_fewer_players_shrink_the_base_vector():
    # three players: 30, 10, -10, -30 -> 30, 0, -30; two: 30, -30 (Tenhou's 3-player)
    r = elom.rate(_ffa([("abc", [1, 2, 3]), ("de", [2, 1])]))
    assert _by_name(r) == {"a": 1530.0, "b": 1500.0, "c": 1470.0, "d": 1470.0, "e": 1530.0}
    assert elom.base_values((30, 10, -10, -30), 3).tolist() == [30.0, 0.0, -30.0]
    assert elom.base_values((40, 20, 0, -20, -40), 3).tolist() == [40.0, 0.0, -40.0]
    assert elom.base_values((40, 20, 0, -20, -40), 4).tolist() == [40.0, 20.0, -20.0, -40.0]


def test_one_period_is_rated_simultaneously():
    # both games in period 0: the second uses the start-of-period 1500s, so a (first
    # twice) gets 2 * 30 with K(0) = 1; games_played counts both
    m = _ffa([("abcd", [1, 2, 3, 4]), ("aefg", [1, 2, 3, 4])], period=[0, 0])
    got = _by_name(elom.rate(m))
    assert got["a"] == 1560.0 and got["e"] == 1510.0 and got["d"] == 1470.0
    # game by game (no periods) the second game sees a at 1530: expected 30/40 * 3/4
    # (average (1530 + 3*1500)/4 = 1507.5, (1530 - 1507.5)/40 = 0.5625), K(1) = 0.998
    got = _by_name(elom.rate(_ffa([("abcd", [1, 2, 3, 4]), ("aefg", [1, 2, 3, 4])])))
    assert got["a"] == pytest.approx(1530 + 0.998 * (30 - 0.5625), abs=1e-12)


def test_kriichi():
    # K = 1 - 0.8 N/400 below 400 games, 0.2 after
    np.testing.assert_allclose(elom.k_factor([0, 1, 200, 399, 400, 5000]),
                               [1.0, 0.998, 0.6, 0.202, 0.2, 0.2])
    assert elom.k_factor(10, ElomConfig(k_games=0.0, k_final=0.5)) == 0.5
    # a player with 400 games moves by 0.2 * 30 = 6
    init = {"player": list("abcd"), "rating": [1500.0] * 4, "games_played": [400, 0, 0, 0]}
    r = elom.rate(_ffa([("abcd", [1, 2, 3, 4])]), initial=init)
    assert _by_name(r)["a"] == pytest.approx(1506.0)
    assert r.games_played.tolist() == [401, 1, 1, 1]


def test_score_mode_by_hand():
    # base = (score - 25000)/250: 35000 -> 40, 30000 -> 20, 20000 -> -20, 15000 -> -40
    m = _ffa([("abcd", [0, 0, 0, 0])], score=[[35000, 30000, 20000, 15000]])
    r = elom.rate(m, ElomConfig(mode="score"))
    assert _by_name(r) == {"a": 1540.0, "b": 1520.0, "c": 1480.0, "d": 1460.0}
    # placing mode reads the same scores as places: 30, 10, -10, -30
    assert _by_name(elom.rate(m))["a"] == 1530.0


def test_teams_play_as_their_mean_rating():
    # a 2v2: team (a 1600, b 1400) rates 1500 vs (c, d) 1500; base 30 / -30 (two teams);
    # expected 0 for both, so a and b +30, c and d -30 (K(0) = 1); weights scale it
    init = {"player": list("abcd"), "rating": [1600.0, 1400.0, 1500.0, 1500.0]}
    m = Matches.from_arrays([1] * 4, ["x", "x", "y", "y"], list("abcd"), rank=[1, 1, 2, 2],
                            weight=[1.0, 0.5, 1.0, 1.0])
    # weighted team mean (1600 + 0.5*1400)/1.5 = 1533.33, average 1516.67,
    # expected +-(16.667/40) = +-0.41667
    r = elom.rate(m, initial=init)
    got = _by_name(r)
    e = (1600 + 0.5 * 1400) / 1.5 - (1600 + 0.5 * 1400 + 1.5 * 1500) / 3.0
    assert got["a"] == pytest.approx(1600 + (30 - e / 40), abs=1e-12)
    assert got["b"] == pytest.approx(1400 + 0.5 * (30 - e / 40), abs=1e-12)
    assert got["c"] == pytest.approx(1500 + (-30 + e / 40), abs=1e-12)


# ----------------------------------------------------------------------------------
# 2. against the reference


@st.composite
def _matches(draw, with_teams=True, max_teams=4):
    n = draw(st.integers(1, 14))
    n_players = draw(st.integers(4, 10))
    games = []
    period = 0
    use_period = draw(st.booleans())
    for _ in range(n):
        n_t = draw(st.integers(2, max_teams))
        size = draw(st.integers(1, 2)) if with_teams else 1
        seats = draw(st.permutations(range(n_players)))[:n_t * size]
        if len(seats) < n_t * size:
            n_t = len(seats) // size
        places = [draw(st.integers(1, n_t)) for _ in range(n_t)]
        teams = []
        for t in range(n_t):
            team = []
            for k in range(size):
                w = 1.0 if k == 0 else draw(st.sampled_from([0.0, 0.5, 1.0]))
                team.append((f"p{seats[t * size + k]}", w))
            teams.append(team)
        # stored order: best first, ties in input order
        order = sorted(range(n_t), key=lambda i: places[i])
        period += draw(st.integers(0, 1))
        games.append({"teams": [teams[i] for i in order], "places": [places[i] for i in order],
                      "scores": [draw(st.integers(0, 50000)) for _ in range(n_t)],
                      "period": period if use_period else None})
    return games


def _to_matches(games, score=False):
    match, team, player, rank, weight, period, sc = [], [], [], [], [], [], []
    for g, game in enumerate(games):
        for t, members in enumerate(game["teams"]):
            for p, w in members:
                match.append(g)
                team.append(t)
                player.append(p)
                rank.append(game["places"][t])
                weight.append(w)
                period.append(game["period"])
                sc.append(game["scores"][t])
    kw = {} if games[0]["period"] is None else {"period": period}
    if score:
        kw["score"] = sc
        kw["higher_is_better"] = True
    else:
        kw["rank"] = rank
    return Matches.from_arrays(match, team, player, weight=weight, **kw)


def _check(r, want):
    rating, ngames, preds, pair_preds = want
    got = _by_name(r)
    for p in rating:
        if p in got:
            assert got[p] == pytest.approx(rating[p], rel=1e-12, abs=1e-9), p
            assert int(r.games_played[r.players.id_of(p)]) == ngames[p]
    np.testing.assert_allclose(r.predictions, preds, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.pair_predictions, pair_preds, rtol=1e-12, atol=1e-15)


@settings(max_examples=60)
@given(_matches(), st.sampled_from([0.0, 3.0, 400.0]), st.booleans())
def test_matches_the_reference(games, k_games, long_base):
    base = (30.0, 12.0, 5.0, -9.0, -38.0) if long_base else (30.0, 10.0, -10.0, -30.0)
    cfg = ElomConfig(base=base, k_games=k_games, k_start=0.9, k_final=0.3)
    r = elom.rate(_to_matches(games), cfg)
    _check(r, ref.elom(games, base=base, gv=k_games, kv=0.3, k_start=0.9))


@settings(max_examples=30)
@given(_matches())
def test_score_mode_matches_the_reference(games):
    # scores become the stored order's ranks; the teams of the reference must follow it
    m = _to_matches(games, score=True)
    stored = []
    for game in games:
        order = sorted(range(len(game["teams"])), key=lambda i, g=game: -g["scores"][i])
        stored.append({**game, "teams": [game["teams"][i] for i in order],
                       "scores": [game["scores"][i] for i in order]})
    cfg = ElomConfig(mode="score", score_origin=20000.0, score_scale=500.0)
    _check(elom.rate(m, cfg), ref.elom(stored, mode="score", origin=20000.0, divisor=500.0))
    # the same scores read as places by the default mode
    want = ref.elom([{k: v for k, v in g.items() if k != "places"} for g in stored])
    _check(elom.rate(m), want)


@settings(max_examples=20)
@given(_matches(), st.lists(st.floats(1000, 2000), min_size=10, max_size=10),
       st.lists(st.integers(0, 500), min_size=10, max_size=10))
def test_initial_state_matches_the_reference(games, ratings, played):
    names = [f"p{i}" for i in range(10)]
    init = {"player": names, "rating": ratings, "games_played": played}
    r = elom.rate(_to_matches(games), initial=init)
    _check(r, ref.elom(games, status={n: (x, g) for n, x, g in zip(names, ratings, played)}))


# ----------------------------------------------------------------------------------
# 3. invariants


def test_permuting_teams_permutes_the_results():
    rng = np.random.default_rng(3)
    for _ in range(20):
        players = rng.permutation(8)[:4]
        ranks = rng.integers(1, 5, 4)
        perm = rng.permutation(4)
        a = Matches.from_arrays([0] * 4, None, [f"p{i}" for i in players], rank=ranks)
        b = Matches.from_arrays([0] * 4, None, [f"p{i}" for i in players[perm]],
                                rank=ranks[perm])
        init = {"player": [f"p{i}" for i in range(8)], "rating": rng.normal(1500, 100, 8)}
        ra, rb = elom.rate(a, initial=init), elom.rate(b, initial=init)
        assert _by_name(ra) == pytest.approx(_by_name(rb), abs=1e-12)
        # the same team (its player) gets the same win probability
        pa = dict(zip(a.player.tolist(), ra.predictions))
        pb = dict(zip(b.player.tolist(), rb.predictions))
        for p in pa:
            name = a.players.names[p]
            assert pa[p] == pytest.approx(pb[b.players.id_of(name)], rel=1e-12)


def test_a_weight_zero_player_changes_nothing():
    base = Matches.from_arrays([0, 0, 0, 0], ["x", "x", "y", "y"], ["a", "b", "c", "d"],
                               rank=[1, 1, 2, 2], period=[0] * 4)
    extra = Matches.from_arrays([0] * 5, ["x", "x", "x", "y", "y"], ["a", "b", "z", "c", "d"],
                                rank=[1, 1, 1, 2, 2], weight=[1, 1, 0, 1, 1], period=[0] * 5)
    init = {"player": ["a", "b", "c", "d", "z"],
            "rating": [1550.0, 1480.0, 1500.0, 1510.0, 2200.0]}
    r0, r1 = elom.rate(base, initial=init), elom.rate(extra, initial=init)
    g0, g1 = _by_name(r0), _by_name(r1)
    assert g1["z"] == 2200.0 and int(r1.games_played[r1.players.id_of("z")]) == 0
    for p in "abcd":
        assert g1[p] == g0[p]
    np.testing.assert_array_equal(r0.predictions, r1.predictions)


def test_predictions_sum_to_one_and_match_the_pairs_for_two_teams():
    m = _ffa([("ab", [1, 2]), ("ab", [2, 1]), ("abc", [1, 2, 2]), ("ba", [1, 1])])
    r = elom.rate(m)
    sums = np.add.reduceat(r.predictions, m.match_team_offsets[:-1])
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    two = np.diff(m.match_team_offsets) == 2
    firsts = m.match_team_offsets[:-1][two]
    pair_first = m.pair_offsets()[:-1][two]
    np.testing.assert_allclose(r.predictions[firsts], r.pair_predictions[pair_first],
                               rtol=1e-12)


def test_two_player_games_are_accepted():
    g = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.5])
    r = elom.rate(g)
    # game 1: a +30, b -30; game 2 (b 1470 vs c 1500, a tie: both 30): average 1485,
    # b: K(1) (30 - (-15/40)) ; c: K(0) (30 - 15/40)
    got = _by_name(r)
    assert got["b"] == pytest.approx(1470 + 0.998 * (30 + 0.375), abs=1e-12)
    assert got["c"] == pytest.approx(1500 + 1.0 * (30 - 0.375), abs=1e-12)


# ----------------------------------------------------------------------------------
# 4. errors


def test_too_many_players_for_the_base_vector():
    m = _ffa([("abcde", [1, 2, 3, 4, 5])])
    with pytest.raises(InputError, match="5 players.*'base' has 4 values"):
        elom.rate(m)
    # a longer base vector rates it
    r = elom.rate(m, ElomConfig(base=(40.0, 20.0, 0.0, -20.0, -40.0)))
    assert _by_name(r)["a"] == 1540.0


def test_score_mode_needs_scores():
    with pytest.raises(InputError, match="mode='score' needs the matches' scores"):
        elom.rate(_ffa([("abcd", [1, 2, 3, 4])]), ElomConfig(mode="score"))
    m = Matches.from_arrays([0] * 4, None, list("abcd"), score=[1.0, 2.0, 3.0, 4.0])
    m = Matches(**{**{f: getattr(m, f) for f in ("match_team_offsets", "team_player_offsets",
                                                  "player", "rank", "players")},
                   "score": np.array([1.0, math.nan, 2.0, 3.0])})
    with pytest.raises(InputError, match="finite score"):
        elom.rate(m, ElomConfig(mode="score"))


@pytest.mark.parametrize("kw", [{"base": (30.0,)}, {"base": [30.0, -30.0]},
                                {"base": (30.0, math.nan)}, {"mode": "points"},
                                {"spread": 0.0}, {"k_final": -0.1}, {"k_games": -1.0},
                                {"score_scale": 0.0}, {"scale": math.inf},
                                {"initial_rating": math.nan}])
def test_bad_configs(kw):
    with pytest.raises((ConfigError, InputTypeError)):
        ElomConfig(**kw)


def test_bad_arguments():
    with pytest.raises(ArgumentTypeError):
        elom.rate([1, 2, 3])
    with pytest.raises(ArgumentTypeError):
        elom.rate(_ffa([("ab", [1, 2])]), config="elom")


def test_presets_and_spec():
    from fastrate import systems

    assert ElomConfig.tenhou3().base == (30.0, 0.0, -30.0)
    assert systems.SystemSpec.parse("elom:k_final=0.3").config.k_final == 0.3
    assert systems.get("elom").period_based
