"""Stephenson's system (SPEC §1.6, R PlayerRatings ``steph``): the pure-Python reference,
Glicko as a special case, the bonus and neighbourhood terms, exact continuation,
invariants, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import stephenson as ref

import fastrate
from fastrate import systems
from fastrate.data import Games, PlayerState, Ratings
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.ratings import glicko, stephenson
from fastrate.ratings.glicko import GlickoConfig
from fastrate.ratings.stephenson import StephensonConfig

NO_PERIOD = PlayerState.NO_PERIOD


def _by_name(r: Ratings, name):
    return r.players.id_of(name)


# ----------------------------------------------------------------------------------
# 1. one period by hand, the special case Glicko, the public names


def test_one_period_by_hand():
    """Two new players, one win, PlayerRatings' defaults: growth 300 -> sqrt(300^2 + 10^2),
    one game's h^2, Glicko's step, then the neighbourhood pull toward the opponent."""
    r = stephenson.rate(Games.from_arrays(["a"], ["b"], [1.0], period=[1]))
    q = math.log(10) / 400
    rd2 = 300.0**2 + 10.0**2
    g = 1 / math.sqrt(1 + 3 * q * q * rd2 / math.pi**2)
    e = 0.5
    new_rd2 = 1 / (1 / (rd2 + 10.0**2) + q * q * g * g * e * (1 - e))
    gain = new_rd2 * q * g * (1 - e)
    a, b = _by_name(r, "a"), _by_name(r, "b")
    # the neighbourhood term is 0 here: both start at 2200
    assert r.rating[a] == pytest.approx(2200 + gain, rel=1e-13)
    assert r.rating[b] == pytest.approx(2200 - gain, rel=1e-13)
    assert r.rd[a] == pytest.approx(math.sqrt(new_rd2), rel=1e-13)
    assert r.predictions.tolist() == [0.5]
    assert r.games_played.tolist() == [1, 1] and r.last_period.tolist() == [1, 1]


def test_neighbourhood_pulls_toward_the_opponents():
    """A draw between equal deviations: the expected-score part is symmetric, and the
    neighbourhood term moves each rating by lambda/100 of the gap toward the other."""
    init = {"player": ["a", "b"], "rating": [2400.0, 2000.0], "rd": [50.0, 50.0],
            "last_period": [0, 0]}
    games = Games.from_arrays(["a"], ["b"], [0.5], period=[1])
    plain = stephenson.rate(games, StephensonConfig(neighbourhood=0.0), initial=init)
    pulled = stephenson.rate(games, StephensonConfig(neighbourhood=5.0), initial=init)
    np.testing.assert_allclose(pulled.rating - plain.rating, [-0.05 * 400, 0.05 * 400],
                               rtol=1e-12)
    assert pulled.rd.tolist() == plain.rd.tolist()


def test_bonus_inflates_ratings():
    """bval: every game adds bval/100 to both scores, so the ratings' sum grows."""
    rng = np.random.default_rng(3)
    w = rng.integers(0, 8, 200)
    b = (w + rng.integers(1, 8, 200)) % 8
    games = Games.from_arrays(w, b, rng.integers(0, 2, 200).astype(float),
                              players=np.arange(8), period=np.arange(200) // 10)
    cfg = StephensonConfig(neighbourhood=0.0)
    base = stephenson.rate(games, cfg).rating.sum()
    assert stephenson.rate(games, StephensonConfig(neighbourhood=0.0, bonus=2.0)).rating.sum() \
        > base + 100.0


def test_glicko_is_the_special_case():
    """h_dev = bonus = neighbourhood = 0 is Glicko with the same growth, cap and advantage
    (PlayerRatings: 'Glicko is obtained as a special case')."""
    rng = np.random.default_rng(11)
    n = 300
    w = rng.integers(0, 10, n)
    b = (w + rng.integers(1, 10, n)) % 10
    games = Games.from_arrays(w, b, rng.integers(0, 3, n) / 2.0, players=np.arange(10),
                              period=np.sort(rng.integers(0, 40, n)),
                              neutral=rng.integers(0, 2, n).astype(bool))
    s = stephenson.rate(games, StephensonConfig.glicko(advantage=45.0, c=30.0))
    gl = glicko.rate(games, GlickoConfig(initial_rating=2200.0, initial_rd=300.0, c=30.0,
                                         advantage=45.0, first_period_growth=True))
    np.testing.assert_allclose(s.rating, gl.rating, rtol=1e-12)
    np.testing.assert_allclose(s.rd, gl.rd, rtol=1e-12)
    np.testing.assert_allclose(s.predictions, gl.predictions, rtol=1e-13)


def test_public_name_and_registry():
    import fastrate.stephenson as alias

    assert alias is stephenson
    entry = systems.get("stephenson")
    assert entry.period_based and entry.state_names() == ("rating", "rd", "games_played",
                                                          "last_period")
    spec = systems.SystemSpec.parse("stephenson:neighbourhood=0,advantage=100")
    assert spec.config == StephensonConfig(neighbourhood=0.0, advantage=100.0)
    r = spec.rate(fastrate.load_example("football", period="year"))
    assert np.isfinite(r.rating).all() and np.isfinite(r.predictions).all()
    assert stephenson.expected_score(2300, 2200, 0.0) == pytest.approx(1 / (1 + 10**-0.25))


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
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n_games,
                          max_size=n_games))
    neutral = draw(st.lists(st.booleans(), min_size=n_games, max_size=n_games))
    initial = None
    if draw(st.booleans()):
        names = sorted(set(white + black))
        chosen = [n for n in names if draw(st.booleans())] or names[:1]
        initial = {"player": chosen,
                   "rating": [draw(st.floats(1800.0, 2600.0)) for _ in chosen],
                   "rd": [draw(st.floats(20.0, 350.0)) for _ in chosen],
                   "last_period": [draw(st.integers(start - 6, start)) for _ in chosen]}
    return periods, white, black, score, neutral, initial


configs = st.builds(StephensonConfig, c=st.sampled_from([0.0, 10.0, 60.0]),
                    h_dev=st.sampled_from([0.0, 10.0, 25.0]),
                    bonus=st.sampled_from([0.0, 1.5]),
                    neighbourhood=st.sampled_from([0.0, 2.0, 8.0]),
                    advantage=st.sampled_from([0.0, 30.0, -70.0]),
                    first_period_growth=st.booleans())


def _compare(r: Ratings, players: dict, preds: list, rtol=1e-9):
    assert len(r.players) == len(players)
    for name, pl in players.items():
        i = _by_name(r, name)
        np.testing.assert_allclose(r.rating[i], pl.rating, rtol=rtol, atol=0)
        np.testing.assert_allclose(r.rd[i], pl.rd, rtol=rtol, atol=0)
        assert r.games_played[i] == pl.games_played
        if r.last_period is not None:
            assert r.last_period[i] == (NO_PERIOD if pl.last_period is None else pl.last_period)
    np.testing.assert_allclose(r.predictions, preds, rtol=rtol, atol=0)


@settings(max_examples=60, deadline=None)
@given(scenarios(), configs)
def test_matches_reference(scenario, config):
    periods, white, black, score, neutral, initial = scenario
    games = Games.from_arrays(white, black, score, period=np.array(periods, dtype=np.int64),
                              neutral=neutral)
    r = stephenson.rate(games, config, initial=initial)
    state = None if initial is None else {
        n: ref.Player(x, rd, lp) for n, x, rd, lp in zip(
            initial["player"], initial["rating"], initial["rd"], initial["last_period"])}
    players, preds = ref.rate(
        list(zip(periods, white, black, score)), c=config.c, h_dev=config.h_dev,
        bonus=config.bonus, neighbourhood=config.neighbourhood, advantage=config.advantage,
        first_period_growth=config.first_period_growth,
        neutral=frozenset(k for k, x in enumerate(neutral) if x), state=state)
    _compare(r, players, preds)


@settings(max_examples=20, deadline=None)
@given(scenarios())
def test_no_period_is_one_period_without_growth(scenario):
    _, white, black, score, _, _ = scenario
    r = stephenson.rate(Games.from_arrays(white, black, score))
    players, preds = ref.rate([(None, a, b, s) for a, b, s in zip(white, black, score)])
    _compare(r, players, preds)
    assert r.last_period is None


# ----------------------------------------------------------------------------------
# 3. continuation (bit-exact), invariants


def _random_games(n=600, n_players=25, n_periods=60, seed=2):
    rng = np.random.default_rng(seed)
    w = rng.integers(0, n_players, n)
    b = (w + rng.integers(1, n_players, n)) % n_players
    return dict(white=np.array([f"p{x}" for x in w]), black=np.array([f"p{x}" for x in b]),
                score=rng.integers(0, 3, n) / 2.0,
                period=np.sort(rng.integers(0, n_periods, n)),
                neutral=rng.integers(0, 2, n).astype(bool))


@pytest.mark.parametrize("via", ["ratings", "arrow", "parquet"])
def test_continuation_is_bit_exact(via, tmp_path):
    cols = _random_games()
    cfg = StephensonConfig(advantage=40.0, bonus=0.5, c=25.0)
    full = stephenson.rate(Games.from_arrays(**cols), cfg)
    for cut in (7, 30, 51):
        first = cols["period"] < cut
        part = {k: v[first] for k, v in cols.items()}
        rest = {k: v[~first] for k, v in cols.items()}
        saved = stephenson.rate(Games.from_arrays(**part), cfg)
        if via == "ratings":
            initial = saved
        elif via == "arrow":
            initial = saved.to_arrow()
        else:
            import pyarrow.parquet as pq

            pq.write_table(saved.to_arrow(), tmp_path / "s.parquet")
            initial = pq.read_table(tmp_path / "s.parquet")
        cont = stephenson.rate(Games.from_arrays(**rest), cfg, initial=initial)
        order = [cont.players.id_of(p) for p in full.players.names]
        for col, values in full.columns().items():
            if col != "player":
                assert np.array_equal(cont.columns()[col][order], values), (cut, col)
        assert np.array_equal(cont.predictions, full.predictions[~first])


def test_swapping_sides_with_the_opposite_advantage():
    """The first player with advantage h is the second player with advantage -h."""
    cols = _random_games(200, 8, 20, seed=5)
    games = Games.from_arrays(cols["white"], cols["black"], cols["score"], period=cols["period"])
    swapped = Games.from_arrays(cols["black"], cols["white"], 1.0 - cols["score"],
                                period=cols["period"], players=None)
    r = stephenson.rate(games, StephensonConfig(advantage=60.0))
    s = stephenson.rate(swapped, StephensonConfig(advantage=-60.0))
    order = [s.players.id_of(p) for p in r.players.names]
    np.testing.assert_allclose(s.rating[order], r.rating, rtol=1e-12)
    np.testing.assert_allclose(s.rd[order], r.rd, rtol=1e-12)
    np.testing.assert_allclose(s.predictions, 1.0 - r.predictions, rtol=1e-12, atol=1e-15)


def test_predictions_false_same_ratings_and_weight_ignored():
    cols = _random_games(150, 6, 10, seed=8)
    games = Games.from_arrays(**cols)
    r = stephenson.rate(games)
    f = stephenson.rate(games, predictions=False)
    assert f.predictions is None and f.rating.tolist() == r.rating.tolist()
    weighted = Games.from_arrays(**cols, weight=np.full(150, 0.25))
    assert stephenson.rate(weighted).rating.tolist() == r.rating.tolist()


def test_player_who_never_plays_keeps_initial_values():
    init = {"player": ["z", "a"], "rating": [1234.5, 2000.0], "rd": [77.0, 80.0],
            "last_period": [3, 3]}
    r = stephenson.rate(Games.from_arrays(["a"], ["b"], [1.0], period=[5]), initial=init)
    z = _by_name(r, "z")
    assert (r.rating[z], r.rd[z], r.last_period[z]) == (1234.5, 77.0, 3)


# ----------------------------------------------------------------------------------
# 4. bad input


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"c": 1e300}, ConfigError, r"'c' of StephensonConfig must be a float in \[0, 1e\+06\]; "
                                r"got 1e\+300"),
    ({"h_dev": -1.0}, ConfigError, r"'h_dev' of StephensonConfig"),
    ({"bonus": math.nan}, ConfigError, r"'bonus' of StephensonConfig"),
    ({"neighbourhood": 1e3}, ConfigError, r"'neighbourhood' of StephensonConfig must be a float "
                                          r"in \[0, 100\]"),
    ({"max_rd": 0.0}, ConfigError, r"'max_rd' of StephensonConfig"),
    ({"advantage": "home"}, InputTypeError, r"'advantage' of StephensonConfig must be a float"),
    ({"first_period_growth": 1}, ConfigError, r"'first_period_growth' of StephensonConfig must "
                                              r"be a bool"),
])
def test_bad_config(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        StephensonConfig(**kwargs)


def test_bad_arguments_and_state():
    games = Games.from_arrays(["a"], ["b"], [1.0], period=[0])
    with pytest.raises(InputTypeError, match=r"rate\(\) needs a fastrate.Games"):
        stephenson.rate([("a", "b", 1.0)])
    with pytest.raises(InputTypeError, match=r"config must be a StephensonConfig"):
        stephenson.rate(games, GlickoConfig())
    with pytest.raises(InputError, match=r"initial 'rd' must be a finite number > 0; found "
                                         r"0.0 for player 'a'"):
        stephenson.rate(games, initial={"player": ["a"], "rating": [2000.0], "rd": [0.0]})


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
        stephenson.rate(Games.from_arrays(["a"], ["b"], [1.0], period=[0]), initial=initial)
