"""Glicko (SPEC §1.2): published values, the pure-Python reference, invariants, errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import glicko as ref

from fastrate.data import Games, PlayerState, Ratings
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.ratings import glicko
from fastrate.ratings.glicko import GlickoConfig

NO_PERIOD = PlayerState.NO_PERIOD
EXAMPLE_INITIAL = {"player": ["me", "p1", "p2", "p3"],
                   "rating": [1500.0, 1400.0, 1550.0, 1700.0],
                   "rd": [200.0, 30.0, 100.0, 300.0]}


def _vectors(shared_data):
    with open(shared_data / "test_vectors" / "rating_test_vectors.json") as f:
        return json.load(f)


def _by_name(r: Ratings, name):
    return r.players.id_of(name)


# ----------------------------------------------------------------------------------
# 1. published values


def test_glickman_example_full_precision():
    games = Games.from_arrays(["me"] * 3, ["p1", "p2", "p3"], [1.0, 0.0, 0.0])
    r = glicko.rate(games, initial=EXAMPLE_INITIAL)
    i = _by_name(r, "me")
    assert r.rating[i] == pytest.approx(1464.1064627569112, rel=1e-12)
    assert r.rd[i] == pytest.approx(151.39890244796933, rel=1e-12)
    # the paper's rounded intermediate values
    np.testing.assert_allclose(glicko.g([30.0, 100.0, 300.0]), [0.9955, 0.9531, 0.7242], atol=5e-5)
    np.testing.assert_allclose(glicko.expected_score(1500.0, [1400.0, 1550.0, 1700.0],
                                                     [30.0, 100.0, 300.0]),
                               [0.639, 0.432, 0.303], atol=5e-4)
    assert r.games_played[i] == 3
    assert r.last_period is None


def test_glickman_example_from_json(shared_data):
    v = _vectors(shared_data)["glicko1_glickman_example"]
    opp = v["games"]
    init = {"player": ["me"] + [f"o{k}" for k in range(len(opp))],
            "rating": [float(v["player"]["rating"])] + [float(o["opp_rating"]) for o in opp],
            "rd": [float(v["player"]["rd"])] + [float(o["opp_rd"]) for o in opp]}
    games = Games.from_arrays(["me"] * len(opp), [f"o{k}" for k in range(len(opp))],
                              [float(o["score"]) for o in opp])
    r = glicko.rate(games, initial=init)
    i = _by_name(r, "me")
    assert abs(r.rating[i] - v["full_precision"]["rating_new"]) < 1e-9
    assert abs(r.rd[i] - v["full_precision"]["rd_new"]) < 1e-9
    assert round(r.rating[i]) == v["paper_rounded"]["rating_new"]
    assert round(r.rd[i], 1) == v["paper_rounded"]["rd_new"]


def test_poprank_round_robin(shared_data):
    v = _vectors(shared_data)["glicko1_round_robin_poprank"]
    players = v["players"]
    init = {"player": list(players), "rating": [float(x[0]) for x in players.values()],
            "rd": [float(x[1]) for x in players.values()]}
    g = v["games"]
    games = Games.from_arrays([x[0] for x in g], [x[1] for x in g], [float(x[2]) for x in g])
    r = glicko.rate(games, initial=init)
    for name, (rating, rd) in v["expected_rounded_3dp"].items():
        i = _by_name(r, name)
        assert r.rating[i] == pytest.approx(rating, abs=5e-4)
        assert r.rd[i] == pytest.approx(rd, abs=5e-4)


def test_single_game_new_players(shared_data):
    v = _vectors(shared_data)["glicko1_round_robin_poprank"]["also"]
    (w_r, w_rd), (l_r, l_rd) = v["single_game_1000_350_vs_1000_350_win"]["glicko1"]
    games = Games.from_arrays(["w"], ["l"], [1.0])
    r = glicko.rate(games, GlickoConfig(initial_rating=1000.0))
    np.testing.assert_allclose(r.rating, [w_r, l_r], atol=5e-4)
    np.testing.assert_allclose(r.rd, [w_rd, l_rd], atol=5e-4)
    assert r.predictions[0] == 0.5


def test_c_from_target():
    cfg = GlickoConfig.with_c_from_target(typical_rd=50, periods_to_max=30)
    assert cfg.c == pytest.approx(63.2456, abs=1e-4)
    assert GlickoConfig().c == pytest.approx(cfg.c, rel=1e-15)
    # 30 periods of growth take a typical RD exactly to the cap
    assert math.sqrt(50.0**2 + cfg.c**2 * 30) == pytest.approx(350.0, rel=1e-12)
    assert GlickoConfig.with_c_from_target(100, 10, max_rd=300).c == pytest.approx(
        math.sqrt((300**2 - 100**2) / 10))


# ----------------------------------------------------------------------------------
# 2. the pure-Python reference on random inputs


@st.composite
def scenarios(draw):
    n_players = draw(st.integers(2, 7))
    n_games = draw(st.integers(1, 40))
    start = draw(st.integers(-5, 5))
    steps = draw(st.lists(st.sampled_from([0, 0, 0, 0, 1, 1, 2, 3, 7]), min_size=n_games,
                          max_size=n_games))
    periods = (start + np.cumsum([0, *steps[1:]])).tolist()
    pairs = draw(st.lists(st.tuples(st.integers(0, n_players - 1), st.integers(1, n_players - 1)),
                          min_size=n_games, max_size=n_games))
    white = [f"p{a}" for a, _ in pairs]
    black = [f"p{(a + d) % n_players}" for a, d in pairs]
    score = draw(st.lists(st.one_of(st.sampled_from([0.0, 0.5, 1.0]),
                                    st.floats(0.0, 1.0, allow_nan=False)),
                          min_size=n_games, max_size=n_games))
    initial = None
    if draw(st.booleans()):
        names = sorted(set(white + black) | {f"q{k}" for k in range(draw(st.integers(0, 2)))})
        chosen = [n for n in names if draw(st.booleans())] or names[:1]
        initial = {"player": chosen,
                   "rating": [draw(st.floats(1000.0, 2200.0)) for _ in chosen],
                   "rd": [draw(st.floats(20.0, 350.0)) for _ in chosen],
                   "last_period": [draw(st.one_of(st.none(), st.integers(start - 6, start)))
                                   for _ in chosen]}
        if all(x is None for x in initial["last_period"]):
            # an all-missing column is left out (a null-typed Arrow column is not an int one)
            del initial["last_period"]
    return periods, white, black, score, initial


def _ref_state(initial):
    if initial is None:
        return None
    last = initial.get("last_period", [None] * len(initial["player"]))
    return {n: ref.Player(r, rd, lp) for n, r, rd, lp in zip(
        initial["player"], initial["rating"], initial["rd"], last)}


def _compare(r: Ratings, players: dict, preds: list, rtol=1e-9):
    assert len(r.players) == len(players)
    for name, pl in players.items():
        i = _by_name(r, name)
        np.testing.assert_allclose(r.rating[i], pl.rating, rtol=rtol, atol=0)
        np.testing.assert_allclose(r.rd[i], pl.rd, rtol=rtol, atol=0)
        assert r.games_played[i] == pl.games_played
        if r.last_period is not None:
            expected = NO_PERIOD if pl.last_period is None else pl.last_period
            assert r.last_period[i] == expected
    np.testing.assert_allclose(r.predictions, preds, rtol=rtol, atol=0)


configs = st.builds(GlickoConfig, c=st.sampled_from([0.0, 10.0, 63.25, 200.0]),
                    min_rd=st.sampled_from([0.0, 0.0, 30.0]),
                    initial_rd=st.sampled_from([350.0, 200.0]))


@settings(max_examples=60)
@given(scenarios(), configs)
def test_matches_reference(scenario, config):
    periods, white, black, score, initial = scenario
    games = Games.from_arrays(white, black, score, period=np.array(periods, dtype=np.int64))
    r = glicko.rate(games, config, initial=initial)
    players, preds = ref.rate(list(zip(periods, white, black, score)),
                              initial_rating=config.initial_rating,
                              initial_rd=config.initial_rd, max_rd=config.max_rd, c=config.c,
                              min_rd=config.min_rd, state=_ref_state(initial))
    _compare(r, players, preds)


@settings(max_examples=40)
@given(scenarios(), st.sampled_from([0.0, 35.0, -120.0]), st.booleans(), st.data())
def test_advantage_and_first_period_growth_match_reference(scenario, advantage, first, data):
    """The home advantage (PlayerRatings' gamma) enters both players' E and the
    prediction; neutral games get none; a new player's first period can grow his RD."""
    periods, white, black, score, initial = scenario
    neutral = [data.draw(st.booleans()) for _ in white]
    config = GlickoConfig(c=40.0, advantage=advantage, first_period_growth=first)
    games = Games.from_arrays(white, black, score, period=np.array(periods, dtype=np.int64),
                              neutral=neutral)
    r = glicko.rate(games, config, initial=initial)
    players, preds = ref.rate(list(zip(periods, white, black, score)), c=40.0,
                              state=_ref_state(initial), advantage=advantage,
                              first_period_growth=first,
                              neutral=frozenset(k for k, x in enumerate(neutral) if x))
    _compare(r, players, preds)


def test_advantage_is_the_first_players_rating_raised():
    """Two new players, one game: with advantage h the update equals the one of a first
    player rated h points higher (PlayerRatings' gamma), and a neutral game ignores h."""
    games = Games.from_arrays(["a"], ["b"], [1.0], period=[0])
    shifted = glicko.rate(games, initial={"player": ["a", "b"], "rating": [1600.0, 1500.0]})
    r = glicko.rate(games, GlickoConfig(advantage=100.0))
    assert r.predictions[0] == shifted.predictions[0] > 0.5
    assert r.rd.tolist() == shifted.rd.tolist()
    np.testing.assert_allclose(r.rating - [1500.0, 1500.0], shifted.rating - [1600.0, 1500.0],
                               rtol=1e-13)
    plain = glicko.rate(games)
    neutral = glicko.rate(Games.from_arrays(["a"], ["b"], [1.0], period=[0], neutral=[True]),
                          GlickoConfig(advantage=100.0))
    assert neutral.rating.tolist() == plain.rating.tolist()
    assert neutral.predictions[0] == plain.predictions[0] == 0.5


def test_first_period_growth_grows_a_new_players_rd_once():
    games = Games.from_arrays(["a"], ["b"], [1.0], period=[3])
    r = glicko.rate(games, GlickoConfig(initial_rd=100.0, c=50.0, first_period_growth=True))
    grown = glicko.rate(games, GlickoConfig(c=50.0), initial={
        "player": ["a", "b"], "rating": [1500.0, 1500.0], "rd": [100.0, 100.0],
        "last_period": [2, 2]})
    assert r.rating.tolist() == grown.rating.tolist() and r.rd.tolist() == grown.rd.tolist()
    assert r.rd[0] > glicko.rate(games, GlickoConfig(initial_rd=100.0, c=50.0)).rd[0]


@settings(max_examples=30)
@given(scenarios())
def test_no_period_is_one_period(scenario):
    _, white, black, score, _ = scenario
    games = Games.from_arrays(white, black, score)
    r = glicko.rate(games)
    players, preds = ref.rate([(None, a, b, s) for a, b, s in zip(white, black, score)])
    _compare(r, players, preds)
    assert r.last_period is None
    # the same as all games in one explicit period
    r1 = glicko.rate(Games.from_arrays(white, black, score, period=np.zeros(len(white), int)))
    np.testing.assert_array_equal(r1.rating, r.rating)
    np.testing.assert_array_equal(r1.rd, r.rd)


# ----------------------------------------------------------------------------------
# 3. continuation and invariants


def _continuation(periods, white, black, score, split, config=None, initial=None):
    config = config or GlickoConfig()
    periods = np.asarray(periods, dtype=np.int64)
    full = glicko.rate(Games.from_arrays(white, black, score, period=periods), config, initial)
    k = int(np.searchsorted(periods, split))
    first = glicko.rate(Games.from_arrays(white[:k], black[:k], score[:k], period=periods[:k]),
                        config, initial)
    second = glicko.rate(Games.from_arrays(white[k:], black[k:], score[k:], period=periods[k:]),
                         config, initial=first)
    assert set(second.players) == set(full.players)
    for name in full.players:
        i, j = _by_name(full, name), _by_name(second, name)
        np.testing.assert_allclose(second.rating[j], full.rating[i], rtol=1e-9, atol=0)
        np.testing.assert_allclose(second.rd[j], full.rd[i], rtol=1e-9, atol=0)
        assert second.games_played[j] == full.games_played[i]
        assert second.last_period[j] == full.last_period[i]
    np.testing.assert_allclose(np.concatenate([first.predictions, second.predictions]),
                               full.predictions, rtol=1e-9, atol=0)


@settings(max_examples=40)
@given(scenarios(), st.data())
def test_continuation_matches_full_run(scenario, data):
    periods, white, black, score, initial = scenario
    distinct = sorted(set(periods))
    if len(distinct) < 2:
        return
    split = data.draw(st.sampled_from(distinct[1:]))
    _continuation(periods, white, black, score, split, initial=initial)


def test_continuation_large_random():
    rng = np.random.default_rng(7)
    n, m = 200, 5000
    white = rng.integers(0, n, m)
    black = (white + rng.integers(1, n, m)) % n
    periods = np.sort(rng.choice([0, 1, 2, 5, 6, 9, 15, 16], m))
    score = rng.choice([0.0, 0.5, 1.0], m)
    names = np.array([f"player{k}" for k in range(n)], dtype=object)
    _continuation(periods, names[white], names[black], score, split=6)


def test_relabelling_players_permutes_results():
    rng = np.random.default_rng(3)
    n, m = 30, 600
    white = rng.integers(0, n, m)
    black = (white + rng.integers(1, n, m)) % n
    periods = np.sort(rng.integers(0, 8, m))
    score = rng.choice([0.0, 0.5, 1.0, 0.25], m)
    perm = rng.permutation(n)
    r1 = glicko.rate(Games.from_arrays(white, black, score, period=periods,
                                       players=[f"x{k}" for k in range(n)]))
    r2 = glicko.rate(Games.from_arrays(perm[white], perm[black], score, period=periods,
                                       players=[f"x{k}" for k in np.argsort(perm)]))
    # player x{k} is id k in r1 and id perm[k] in r2 under the same name
    for k in range(n):
        i, j = _by_name(r1, f"x{k}"), _by_name(r2, f"x{k}")
        assert j == perm[k]
        assert r1.rating[i] == r2.rating[j]
        assert r1.rd[i] == r2.rd[j]
        assert r1.games_played[i] == r2.games_played[j]
    np.testing.assert_array_equal(r1.predictions, r2.predictions)


def test_player_who_never_plays_keeps_initial_values():
    games = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.5], period=[3, 4])
    init = {"player": ["idle", "a"], "rating": [1812.5, 1500.0], "rd": [77.0, 120.0],
            "last_period": [1, None], "games_played": [42, 0]}
    r = glicko.rate(games, initial=init)
    i = _by_name(r, "idle")
    assert (r.rating[i], r.rd[i], r.games_played[i], r.last_period[i]) == (1812.5, 77.0, 42, 1)
    # and a player with no initial row starts from the config
    r2 = glicko.rate(games, GlickoConfig(initial_rating=1234.0, initial_rd=222.0))
    assert r2.games_played[_by_name(r2, "c")] == 1


def test_inactivity_growth_and_cap():
    cfg = GlickoConfig(c=40.0, max_rd=300.0, initial_rd=300.0)
    init = {"player": ["a", "b"], "rating": [1600.0, 1450.0], "rd": [60.0, 90.0],
            "last_period": [2, 5]}
    games = Games.from_arrays(["a"], ["b"], [0.5], period=[7])
    r = glicko.rate(games, cfg, initial=init)
    # onset RDs by hand: a grew 5 periods, b 2 periods
    rd_a = math.sqrt(60.0**2 + 40.0**2 * 5)
    rd_b = math.sqrt(90.0**2 + 40.0**2 * 2)
    fresh = glicko.rate(Games.from_arrays(["a"], ["b"], [0.5]), cfg,
                        initial={"player": ["a", "b"], "rating": [1600.0, 1450.0],
                                 "rd": [rd_a, rd_b]})
    np.testing.assert_allclose(r.rating, fresh.rating, rtol=1e-12)
    np.testing.assert_allclose(r.rd, fresh.rd, rtol=1e-12)
    assert r.predictions[0] == pytest.approx(float(glicko.expected_score(1600.0, 1450.0, rd_b,
                                                                         rd_a)), rel=1e-12)
    np.testing.assert_array_equal(r.last_period, [7, 7])
    # a long absence hits max_rd
    r = glicko.rate(Games.from_arrays(["a"], ["b"], [0.5], period=[500]), cfg, initial=init)
    capped = glicko.rate(Games.from_arrays(["a"], ["b"], [0.5]), cfg,
                         initial={"player": ["a", "b"], "rating": [1600.0, 1450.0],
                                  "rd": [300.0, 300.0]})
    np.testing.assert_allclose(r.rating, capped.rating, rtol=1e-12)
    # inflate_rd reports the same onset values
    np.testing.assert_allclose(glicko.inflate_rd(Ratings(
        "glicko", r.players, np.array([1600.0, 1450.0]), np.zeros(2, np.int64), np.zeros(0),
        cfg, rd=np.array([60.0, 90.0]), last_period=np.array([2, 5])), 7), [rd_a, rd_b])


def test_games_without_periods_after_a_run_with_periods():
    # no periods: one period, no RD growth, last_period passed through from initial
    init = {"player": ["a", "b", "c"], "rating": [1600.0, 1450.0, 1500.0],
            "rd": [60.0, 90.0, 70.0], "last_period": [2, 5, 4]}
    r = glicko.rate(Games.from_arrays(["a"], ["b"], [0.5]), initial=init)
    np.testing.assert_array_equal(r.last_period, [2, 5, 4])
    fresh = glicko.rate(Games.from_arrays(["a"], ["b"], [0.5]),
                        initial={k: v for k, v in init.items() if k != "last_period"})
    np.testing.assert_array_equal(r.rating, fresh.rating)
    np.testing.assert_array_equal(r.rd, fresh.rd)


def test_initial_ratings_are_not_mutated():
    first = glicko.rate(Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], period=[0, 1]))
    saved = {k: v.copy() for k, v in first.columns().items()}
    glicko.rate(Games.from_arrays(["a", "c"], ["c", "d"], [0.5, 1.0], period=[2, 3]),
                initial=first)
    for k, v in first.columns().items():
        np.testing.assert_array_equal(v, saved[k])


def test_min_rd_floor():
    games = Games.from_arrays(["a"] * 50, ["b"] * 50, [1.0, 0.0] * 25)
    r = glicko.rate(games, GlickoConfig(min_rd=80.0))
    np.testing.assert_array_equal(r.rd, [80.0, 80.0])
    assert (glicko.rate(games).rd < 80.0).all()


def test_predictions_in_input_order():
    white, black = ["a", "b", "c", "a"], ["b", "c", "a", "c"]
    score, period = [1.0, 0.0, 0.5, 1.0], [2, 0, 1, 0]
    r = glicko.rate(Games.from_arrays(white, black, score, period=period))
    order = [1, 3, 2, 0]  # stable sort by period
    sorted_r = glicko.rate(Games.from_arrays([white[i] for i in order], [black[i] for i in order],
                                             [score[i] for i in order],
                                             period=[period[i] for i in order]))
    np.testing.assert_array_equal(r.predictions[order], sorted_r.predictions)
    # the first period's predictions: both new players, equal ratings
    assert r.predictions[1] == 0.5


# ----------------------------------------------------------------------------------
# 4. bad input


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"initial_rd": -1.0}, ConfigError, r"'initial_rd' of GlickoConfig must be a float in \[0.001, 1e\+06\]; got -1.0"),
    ({"max_rd": 0.0}, ConfigError, r"'max_rd' of GlickoConfig"),
    ({"c": -3.0}, ConfigError, r"'c' of GlickoConfig must be a float in \[0, 1e\+06\]; got -3.0"),
    # issue 15: values that overflowed (OverflowError, nan) are refused with the range
    ({"c": 1e300}, ConfigError, r"'c' of GlickoConfig must be a float in \[0, 1e\+06\]; got 1e\+300"),
    ({"initial_rd": 1e300, "max_rd": 1e300}, ConfigError, r"'initial_rd' of GlickoConfig"),
    ({"max_rd": 1e300}, ConfigError, r"'max_rd' of GlickoConfig must be a float in \[0.001, 1e\+06\]"),
    ({"initial_rating": 1e300}, ConfigError, r"'initial_rating' of GlickoConfig must be a float "
                                             r"in \[-1e\+09, 1e\+09\]"),
    ({"advantage": -1e10}, ConfigError, r"'advantage' of GlickoConfig"),
    ({"first_period_growth": "yes"}, ConfigError, r"'first_period_growth' of GlickoConfig must "
                                                  r"be a bool"),
    ({"c": math.nan}, ConfigError, r"'c' of GlickoConfig"),
    ({"min_rd": 400.0}, ConfigError, r"'min_rd' of GlickoConfig must be at most max_rd"),
    ({"initial_rating": math.inf}, ConfigError, r"'initial_rating' of GlickoConfig"),
    ({"c": "63"}, InputTypeError, r"'c' of GlickoConfig must be a float .*got '63' \(str\)"),
])
def test_bad_config(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        GlickoConfig(**kwargs)


def test_bad_c_target():
    with pytest.raises(ConfigError, match=r"'typical_rd' of GlickoConfig.with_c_from_target"):
        GlickoConfig.with_c_from_target(typical_rd=400.0)
    with pytest.raises(ConfigError, match=r"'periods_to_max'"):
        GlickoConfig.with_c_from_target(periods_to_max=0)
    with pytest.raises(ConfigError, match=r"computes 'c'"):
        GlickoConfig.with_c_from_target(c=5.0)


def test_period_numbers_must_fit_a_float():
    games = Games.from_arrays(["a"], ["b"], [1.0], period=[2**60])
    with pytest.raises(InputError, match=r"column 'period' must hold period numbers below "
                                         r"2\*\*53 in magnitude; found 1152921504606846976"):
        glicko.rate(games)
    games = Games.from_arrays(["a"], ["b"], [1.0], period=[3])
    with pytest.raises(InputError, match=r"initial 'last_period' must be below 2\*\*53 in "
                                         r"magnitude; found -1152921504606846976 for player 'b'"):
        glicko.rate(games, initial={"player": ["a", "b"], "rating": [1500.0, 1500.0],
                                    "last_period": [1, -2**60]})


def test_bad_arguments():
    games = Games.from_arrays(["a"], ["b"], [1.0])
    with pytest.raises(InputError, match=r"needs a fastrate.Games; got list"):
        glicko.rate([("a", "b", 1.0)])
    with pytest.raises(InputError, match=r"config must be a GlickoConfig; got dict"):
        glicko.rate(games, {"c": 1.0})
    with pytest.raises(InputError, match=r"initial 'rd' must be a finite number > 0; found "
                                         r"-5.0 for player 'b'"):
        glicko.rate(games, initial={"player": ["a", "b"], "rating": [1500.0, 1500.0],
                                    "rd": [50.0, -5.0]})
    with pytest.raises(InputError, match=r"inflate_rd needs ratings with 'rd'"):
        glicko.inflate_rd(glicko.rate(games), 3)


@pytest.mark.parametrize("initial, match", [
    ({"player": ["a", "b"], "rating": [1500.0, 1500.0], "rd": [1e300, 1e300]},
     r"initial 'rd' must be at most 1e\+06 in magnitude .*; found 1e\+300 for player 'a'"),
    ({"player": ["b"], "rating": [-1e300]},
     r"initial 'rating' must be at most 1e\+09 in magnitude .*; found -1e\+300 for player 'b'"),
])
def test_extreme_initial_state_is_refused(initial, match):
    """Issue 15: saved state that would overflow (an RD of 1e300 gave NaN ratings) is
    refused naming the player, never rated into NaN."""
    with pytest.raises(InputError, match=match):
        glicko.rate(Games.from_arrays(["a"], ["b"], [1.0], period=[0]), initial=initial)
