"""Elo (fastrate.ratings.elo): published values, equivalence with the slow reference
(tests/reference/elo.py) for every option, invariants, continuation and bad input."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import elo as ref

import fastrate
from fastrate import Games
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.ratings import elo
from fastrate.ratings.elo import EloConfig

# ----------------------------------------------------------------------------------
# 1. published values


def test_two_hundred_point_favourite():
    assert round(float(fastrate.elo.expected_score(1700, 1500)), 4) == 0.7597
    assert round(float(fastrate.elo.expected_score(1500, 1700)), 4) == 0.2403
    e = fastrate.elo.expected_score(1700, 1500)
    assert e + fastrate.elo.expected_score(1500, 1700) == pytest.approx(1.0, abs=1e-15)
    assert e == pytest.approx(1 / (1 + 10 ** (-200 / 400)), abs=1e-15)


def test_expected_score_advantage_neutral_and_cap():
    cfg = EloConfig(advantage=100.0)
    assert float(elo.expected_score(1600, 1500, cfg)) == pytest.approx(
        float(elo.expected_score(1700, 1500)), abs=1e-15)
    assert float(elo.expected_score(1600, 1500, cfg, neutral=True)) == pytest.approx(
        float(elo.expected_score(1600, 1500)), abs=1e-15)
    got = elo.expected_score([1500, 1500], [1700, 1600], cfg, neutral=[False, True])
    assert got == pytest.approx([float(elo.expected_score(1600, 1700)),
                                 float(elo.expected_score(1500, 1600))], abs=1e-15)


def test_rule_of_400_bounds():
    cfg = EloConfig(cap=400.0)
    d = np.linspace(-3000, 3000, 601)
    e = elo.expected_score(d, 0.0, cfg)
    assert round(float(e.min()), 4) == 0.0909
    assert round(float(e.max()), 4) == 0.9091
    assert e.min() == pytest.approx(1 / 11, abs=1e-15)
    assert e.max() == pytest.approx(10 / 11, abs=1e-15)
    # the cap also applies inside rate(): a 1000-point favourite is predicted 10/11
    games = Games.from_arrays(["a"], ["b"], [1.0])
    r = elo.rate(games, cfg, initial={"a": 2500.0, "b": 1500.0})
    assert r.predictions[0] == pytest.approx(10 / 11, abs=1e-15)
    assert r["a"] == pytest.approx(2500 + 32 * (1 - 10 / 11), abs=1e-9)


def test_wikipedia_example(shared_data):
    """1613 plays five opponents in one rating period with K=32 -> 1601 (opponents'
    ratings stay fixed within the period, as in the worked example)."""
    case = json.loads((shared_data / "test_vectors" / "rating_test_vectors.json").read_text())[
        "elo_wikipedia_example"]
    opponents = [f"opp{i}" for i in range(len(case["opponents"]))]
    initial = {"me": float(case["player"]),
               **{o: float(r) for o, r in zip(opponents, case["opponents"])}}
    games = Games.from_arrays(["me"] * len(opponents), opponents, case["scores"],
                              period=np.zeros(len(opponents), dtype=np.int64))
    r = elo.rate(games, EloConfig(k=float(case["K"]), update="period"), initial=initial)
    assert round(r["me"]) == case["expected"]["rating_new_rounded"]
    assert round(float(r.predictions[0]), 2) == case["expected"]["expected_vs_1609_rounded"]
    # by hand: the sum of the five expected scores with the starting ratings
    e = sum(1 / (1 + 10 ** ((o - case["player"]) / 400)) for o in case["opponents"])
    want = case["player"] + case["K"] * (sum(case["scores"]) - e)
    assert r["me"] == pytest.approx(want, abs=1e-9)


def test_single_update_by_hand():
    games = Games.from_arrays(["fav"], ["dog"], [0.0])
    r = elo.rate(games, EloConfig(k=20.0), initial={"fav": 1700.0, "dog": 1500.0})
    e = 1 / (1 + 10 ** (-200 / 400))
    assert r["fav"] == pytest.approx(1700 - 20 * e, abs=1e-12)
    assert r["dog"] == pytest.approx(1500 + 20 * e, abs=1e-12)
    assert round(r["fav"], 2) == 1684.81


def test_presets():
    nfl = EloConfig.fivethirtyeight_nfl()
    assert (nfl.k, nfl.advantage, nfl.margin, nfl.regression_mean) == (20.0, 65.0, "fte_nfl",
                                                                        1505.0)
    assert nfl.regression == pytest.approx(1 / 3)
    nba = EloConfig.fivethirtyeight_nba()
    assert (nba.k, nba.advantage, nba.margin, nba.regression) == (20.0, 100.0, "fte_nba", 0.25)
    tennis = EloConfig.fivethirtyeight_tennis()
    assert (tennis.k_schedule, tennis.k_power) == ("power", (250.0, 5.0, 0.4))
    fide = EloConfig.fide()
    assert (fide.k_schedule, fide.fide_threshold, fide.fide_k) == ("fide", 2400.0, 10.0)
    wf = EloConfig.world_football()
    # the match type's K goes in as weight = K / 40
    assert (wf.k, wf.advantage, wf.margin) == (40.0, 100.0, "world_football")
    assert EloConfig.fivethirtyeight_nfl(k=25.0).k == 25.0


def test_world_football_k():
    k = elo.world_football_k(["FIFA World Cup", "UEFA Euro", "FIFA World Cup qualification",
                              "UEFA Euro qualification", "Copa América", "Friendly",
                              "Kirin Cup"])
    assert k.tolist() == [60.0, 50.0, 40.0, 40.0, 50.0, 20.0, 30.0]


def test_fide_k_schedule_by_hand():
    """40 for the games before the 30th, 20 after, 10 once the rating reached 2400."""
    n = 32
    games = Games.from_arrays(["a"] * n, ["b"] * n, [0.5] * n)
    r = elo.rate(games, EloConfig.fide(), initial={"a": 1500.0, "b": 1500.0},
                 record_pregame=True)
    assert np.all(r.pre_white == 1500.0)  # draws between equals change nothing
    # one game: a 2390 player beating a 2390 player gains 0.5 * 40 = 20 -> reaches 2400
    games = Games.from_arrays(["a", "a"], ["b", "c"], [1.0, 1.0])
    r = elo.rate(games, EloConfig.fide(), initial={"a": 2390.0, "b": 2390.0, "c": 2410.0})
    e2 = 1 / (1 + 10 ** (-(2410.0 - 2410.0) / 400))
    assert r["a"] == pytest.approx(2410.0 + 10 * (1 - e2), abs=1e-9)
    # c started at 2410 (reached), so its K is 10 as well
    assert r["c"] == pytest.approx(2410.0 - 10 * (1 - e2), abs=1e-9)
    # b started below and stayed below: K = 40 (first 30 games)
    assert r["b"] == pytest.approx(2390.0 - 20.0, abs=1e-9)


def test_k_uses_games_played_before_the_game():
    cfg = EloConfig(k_schedule="games", k_table=((1, 100.0), (math.inf, 1.0)))
    games = Games.from_arrays(["a", "a"], ["b", "b"], [1.0, 1.0])
    r = elo.rate(games, cfg, record_pregame=True)
    assert r.pre_white[1] == pytest.approx(1500 + 100 * 0.5, abs=1e-12)  # K=100 at 0 games
    e = 1 / (1 + 10 ** (-100 / 400))
    assert r["a"] == pytest.approx(1550 + 1.0 * (1 - e), abs=1e-12)  # K=1 at 1 game
    assert r.games_played.tolist() == [2, 2]


def test_margin_multipliers_by_hand():
    # FiveThirtyEight NFL: home side wins by 7 with 65 advantage
    games = Games.from_arrays(["h"], ["a"], [1.0], margin=[7.0])
    r = elo.rate(games, EloConfig(k=20.0, advantage=65.0, margin="fte_nfl"))
    e = 1 / (1 + 10 ** (-65 / 400))
    mult = math.log(8) * 2.2 / (0.001 * 65 + 2.2)
    assert r["h"] == pytest.approx(1500 + 20 * mult * (1 - e), abs=1e-9)
    # NBA: away side wins by 10: d_w = -100
    games = Games.from_arrays(["h"], ["a"], [0.0], margin=[-10.0])
    r = elo.rate(games, EloConfig(k=20.0, advantage=100.0, margin="fte_nba"))
    e = 1 / (1 + 10 ** (-100 / 400))
    mult = 13 ** 0.8 / (7.5 + 0.006 * -100)
    assert r["a"] == pytest.approx(1500 + 20 * mult * e, abs=1e-9)
    # World football: 1, 1.5, (11+N)/8; a World Cup finals match has K 60 = 40 * 1.5
    for goals, mult in ((0, 1.0), (1, 1.0), (2, 1.5), (3, 14 / 8), (5, 16 / 8)):
        games = Games.from_arrays(["x"], ["y"], [1.0 if goals else 0.5], margin=[goals],
                                  weight=elo.world_football_k(["FIFA World Cup"]) / 40)
        r = elo.rate(games, EloConfig.world_football(), initial={"x": 1500.0, "y": 1600.0})
        e = 1 / (1 + 10 ** (-0 / 400))
        s = 1.0 if goals else 0.5
        assert r["x"] == pytest.approx(1500 + 60 * mult * (s - e), abs=1e-9)


# ----------------------------------------------------------------------------------
# 2. equivalence with the reference, for every option

K_TABLES = {
    "games": ((3.0, 40.0), (8.0, 20.0), (math.inf, 10.0)),
    "rating": ((1450.0, 40.0), (1550.0, 25.0), (math.inf, 12.0)),
    "fide": ((4.0, 40.0), (math.inf, 20.0)),
}
FLAGS = ("cap", "advantage", "neutral", "weight", "regression", "resets")


def make_config(k_schedule: str, margin: str, update: str, flags: dict[str, bool]) -> EloConfig:
    kw: dict = {"k": 24.0, "k_schedule": k_schedule, "margin": margin, "update": update}
    if k_schedule in K_TABLES:
        kw["k_table"] = K_TABLES[k_schedule]
    if k_schedule == "fide":
        kw.update(fide_threshold=1540.0, fide_k=8.0)
    if k_schedule == "power":
        kw["k_power"] = (250.0, 5.0, 0.4)
    if flags["cap"]:
        kw["cap"] = 120.0
    if flags["advantage"]:
        kw["advantage"] = 65.0
    if flags["regression"]:
        kw.update(regression=0.3, regression_mean=1505.0)
    return EloConfig(**kw)


@st.composite
def game_sets(draw, flags: dict[str, bool], margin_model: str, need_time: bool = False):
    n_players = draw(st.integers(2, 6))
    names = [f"p{i}" for i in range(n_players)]
    n = draw(st.integers(1, 30))
    pairs = draw(st.lists(st.tuples(st.integers(0, n_players - 1), st.integers(1, n_players - 1)),
                          min_size=n, max_size=n))
    white = [names[a] for a, _ in pairs]
    black = [names[(a + off) % n_players] for a, off in pairs]
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 0.25, 0.8]), min_size=n, max_size=n))
    steps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5]), min_size=n, max_size=n))
    time = np.cumsum(steps).tolist()
    period = [int(t // 2) for t in time]
    games = {"white": white, "black": black, "score": score, "time": time, "period": period}
    if margin_model != "none" or draw(st.booleans()):
        # a margin agrees with the score (> 0 for a win, < 0 for a loss, any for a draw)
        raw = draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n))
        games["margin"] = [float(abs(x) if s > 0.5 else -abs(x) if s < 0.5 else x)
                           for x, s in zip(raw, score)]
    if flags["neutral"]:
        games["neutral"] = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if flags["weight"]:
        games["weight"] = draw(st.lists(st.floats(0.25, 3.0), min_size=n, max_size=n))
    initial = {}
    for name in names + ["absent"]:
        if draw(st.booleans()):
            initial[name] = draw(st.floats(1200.0, 1800.0))
    resets: list = []
    reset_on = "period"
    if flags["resets"]:
        reset_on = draw(st.sampled_from(["period", "time"]))
        top = period[-1] if reset_on == "period" else time[-1]
        for _ in range(draw(st.integers(1, 3))):
            who = draw(st.sampled_from(names + ["absent"]))
            at = draw(st.integers(0, int(top) + 1))
            if reset_on == "time":
                at = at + draw(st.sampled_from([0.0, 0.5]))
            resets.append((who, at, draw(st.floats(1300.0, 1700.0))))
    return games, initial, resets, reset_on


def run_both(cfg: EloConfig, games: dict, initial: dict, resets: list, reset_on: str):
    use_period = cfg.update == "period" or cfg.regression > 0 or bool(resets)
    g = Games.from_arrays(games["white"], games["black"], games["score"],
                          time=games["time"] if reset_on == "time" and resets else None,
                          period=games["period"] if use_period else None,
                          weight=games.get("weight"), margin=games.get("margin"),
                          neutral=games.get("neutral"))
    table = None
    if resets:
        table = {"player": [r[0] for r in resets], reset_on: [r[1] for r in resets],
                 "value": [r[2] for r in resets]}
        if reset_on == "time":
            table["time"] = [float(x) for x in table["time"]]
    got = elo.rate(g, cfg, initial=initial or None, resets=table, record_pregame=True)
    want = ref.rate(games["white"], games["black"], games["score"], cfg,
                    period=games["period"] if use_period else None, time=games["time"],
                    weight=games.get("weight"), margin=games.get("margin"),
                    neutral=games.get("neutral"), initial=initial, resets=resets,
                    reset_on=reset_on)
    return got, want


def assert_same(got, want, tol: float = 1e-9, rel: float = 1e-12):
    """Equal to ``tol`` (absolute), or to ``rel`` relative for the huge ratings that
    uncapped margin multipliers can reach (operation order differs in the last bits)."""
    names = got.players.names.tolist()
    assert sorted(names) == sorted(want.rating)
    for name in names:
        assert got[name] == pytest.approx(want.rating[name], abs=tol, rel=rel), name
        i = got.players.id_of(name)
        assert int(got.games_played[i]) == want.games_played.get(name, 0), name
    np.testing.assert_allclose(got.predictions, want.predictions, rtol=rel, atol=tol)
    np.testing.assert_allclose(got.pre_white, want.pre_white, rtol=rel, atol=tol)
    np.testing.assert_allclose(got.pre_black, want.pre_black, rtol=rel, atol=tol)


@pytest.mark.parametrize("update", elo.UPDATES)
@pytest.mark.parametrize("margin", elo.MARGIN_MODELS)
@pytest.mark.parametrize("k_schedule", elo.K_SCHEDULES)
@settings(max_examples=25)
@given(data=st.data())
def test_matches_reference_every_schedule_and_margin(k_schedule, margin, update, data):
    flags = {f: data.draw(st.booleans(), label=f) for f in FLAGS}
    cfg = make_config(k_schedule, margin, update, flags)
    games, initial, resets, reset_on = data.draw(game_sets(flags, margin))
    got, want = run_both(cfg, games, initial, resets, reset_on)
    assert_same(got, want)


@pytest.mark.parametrize("update", elo.UPDATES)
@pytest.mark.parametrize("combo", list(itertools.product([False, True], repeat=len(FLAGS))),
                         ids=lambda c: "-".join(f for f, on in zip(FLAGS, c) if on) or "plain")
@settings(max_examples=8)
@given(data=st.data())
def test_matches_reference_every_flag_combination(combo, update, data):
    flags = dict(zip(FLAGS, combo))
    k_schedule = data.draw(st.sampled_from(elo.K_SCHEDULES), label="k_schedule")
    margin = data.draw(st.sampled_from(elo.MARGIN_MODELS), label="margin")
    cfg = make_config(k_schedule, margin, update, flags)
    games, initial, resets, reset_on = data.draw(game_sets(flags, margin))
    got, want = run_both(cfg, games, initial, resets, reset_on)
    assert_same(got, want)


def test_reset_drops_pending_changes_in_period_mode():
    """A reset by time in the middle of a period replaces the rating: what the player
    had gained earlier in that period is dropped (as in game-by-game mode)."""
    games = Games.from_arrays(["a", "a", "b"], ["b", "c", "c"], [1.0, 1.0, 0.5],
                              time=[0.0, 1.0, 2.0], period=[0, 0, 0])
    resets = {"player": ["a"], "time": [1.0], "value": [1600.0]}
    r = elo.rate(games, EloConfig(update="period"), resets=resets, record_pregame=True)
    e = 1 / (1 + 10 ** (-100 / 400))
    assert r.pre_white.tolist() == [1500.0, 1600.0, 1500.0]
    assert r["a"] == pytest.approx(1600.0 + 32 * (1 - e), abs=1e-9)
    game_mode = elo.rate(games, EloConfig(), resets=resets)
    assert game_mode["a"] == pytest.approx(1600.0 + 32 * (1 - e), abs=1e-9)


def test_fide_reset_above_threshold_counts_as_reached():
    games = Games.from_arrays(["a", "a"], ["b", "b"], [1.0, 1.0], period=[0, 1])
    resets = {"player": ["a"], "period": [1], "value": [2450.0]}
    r = elo.rate(games, EloConfig.fide(), initial={"b": 2450.0}, resets=resets)
    e1 = 1 / (1 + 10 ** (-(1500 - 2450) / 400))
    b1 = 2450 - 10 * (1 - e1)
    e2 = 1 / (1 + 10 ** (-(2450 - b1) / 400))
    assert r["a"] == pytest.approx(2450 + 10 * (1 - e2), abs=1e-9)  # K 10, not 40


# ----------------------------------------------------------------------------------
# 3. invariants


@st.composite
def plain_games(draw, max_games: int = 40):
    n_players = draw(st.integers(2, 8))
    n = draw(st.integers(1, max_games))
    pairs = draw(st.lists(st.tuples(st.integers(0, n_players - 1), st.integers(1, n_players - 1)),
                          min_size=n, max_size=n))
    white = [f"p{a}" for a, _ in pairs]
    black = [f"p{(a + off) % n_players}" for a, off in pairs]
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    period = np.cumsum(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))).tolist()
    return white, black, score, period


@settings(max_examples=40)
@given(games=plain_games(), advantage=st.sampled_from([0.0, 65.0]),
       update=st.sampled_from(elo.UPDATES), margin=st.booleans(), weight=st.booleans())
def test_zero_sum(games, advantage, update, margin, weight):
    white, black, score, period = games
    n = len(white)
    g = Games.from_arrays(white, black, score, period=period,
                          margin=[3.0 * np.sign(x - 0.5) for x in score] if margin else None,
                          weight=np.linspace(0.5, 2, n) if weight else None)
    cfg = EloConfig(k=32.0, advantage=advantage, update=update,
                    margin="fte_nba" if margin else "none")
    r = elo.rate(g, cfg)
    assert r.rating.sum() == pytest.approx(1500.0 * len(r.players), abs=1e-9)


@settings(max_examples=40)
@given(games=plain_games(), seed=st.integers(0, 2**32 - 1),
       update=st.sampled_from(elo.UPDATES))
def test_permuting_names_permutes_results(games, seed, update):
    white, black, score, period = games
    names = sorted(set(white) | set(black))
    perm = dict(zip(names, np.random.default_rng(seed).permutation(names).tolist()))
    cfg = EloConfig(k_schedule="games", k_table=K_TABLES["games"], advantage=30.0,
                    update=update)
    a = elo.rate(Games.from_arrays(white, black, score, period=period), cfg)
    b = elo.rate(Games.from_arrays([perm[x] for x in white], [perm[x] for x in black], score,
                                   period=period), cfg)
    for name in names:
        assert a[name] == b[perm[name]]  # bit for bit
    assert np.array_equal(a.predictions, b.predictions)


_THREAD_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from fastrate import Games
    from fastrate.ratings import elo
    from fastrate.ratings.elo import EloConfig
    rng = np.random.default_rng(7)
    n, m = 5000, 300
    w = rng.integers(0, m, n)
    b = (w + rng.integers(1, m, n)) % m
    s = rng.choice([0.0, 0.5, 1.0], n)
    names = np.array([f"p{i}" for i in range(m)], dtype=object)  # str hashes vary by seed
    g = Games.from_arrays(names[w], names[b], s, period=np.arange(n) // 200,
                          margin=(np.sign(s - 0.5) * rng.integers(1, 6, n)))
    out = []
    for cfg in (EloConfig(), EloConfig(update="period", cap=400.0),
                EloConfig.fivethirtyeight_nfl(), EloConfig.fide(),
                EloConfig.fivethirtyeight_tennis()):
        r = elo.rate(g, cfg, record_pregame=True)
        out += [r.rating.tobytes(), r.predictions.tobytes(), r.pre_white.tobytes()]
    out.append(",".join(r.players.names.tolist()).encode())  # who has which rating
    sys.stdout.buffer.write(b"".join(out))
""")


@pytest.mark.slow
def test_identical_bits_in_separate_processes():
    """Elo runs in no threads (tests/test_kernels.py audits every use of threads and
    checks each with 1 and 2), so this is not a thread test: it checks that two fresh
    processes give the same bits when everything that may differ between runs does --
    the string hash seed (which orders sets and dicts of names) and the thread count.
    It fails if a result came to depend on the order of a set or on process state."""
    outputs = []
    for threads, seed in (("1", "1"), ("2", "2")):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", _THREAD_SCRIPT], env=env,
                              capture_output=True, check=True, timeout=300)
        outputs.append(proc.stdout)
    assert len(outputs[0]) >= 5 * (300 + 2 * 5000) * 8 + 300 * 3
    assert outputs[0] == outputs[1]


@settings(max_examples=30)
@given(games=plain_games(), seed=st.integers(0, 2**32 - 1))
def test_predictions_come_back_in_input_order(games, seed):
    white, black, score, _ = games
    n = len(white)
    rng = np.random.default_rng(seed)
    time = rng.integers(0, 5, n).astype(float)  # unsorted, with ties
    cfg = EloConfig(k_schedule="power", advantage=20.0)
    shuffled = elo.rate(Games.from_arrays(white, black, score, time=time), cfg,
                        record_pregame=True)
    order = np.argsort(time, kind="stable")
    take = np.asarray
    ordered = elo.rate(Games.from_arrays(take(white)[order], take(black)[order],
                                         take(score)[order], time=time[order]), cfg,
                       record_pregame=True)
    assert np.array_equal(shuffled.predictions[order], ordered.predictions)
    assert np.array_equal(shuffled.pre_white[order], ordered.pre_white)
    assert np.array_equal(shuffled.pre_black[order], ordered.pre_black)
    # and the reference, run on the chronological order, agrees
    want = ref.rate(take(white)[order].tolist(), take(black)[order].tolist(),
                    take(score)[order].tolist(), cfg)
    np.testing.assert_allclose(shuffled.predictions[order], want.predictions, rtol=0, atol=1e-9)


def test_record_pregame_off_by_default():
    r = elo.rate(Games.from_arrays(["a"], ["b"], [1.0]))
    assert r.pre_white is None and r.pre_black is None
    r = elo.rate(Games.from_arrays(["a"], ["b"], [1.0]), record_pregame=True)
    assert r.pre_white.tolist() == [1500.0] and r.pre_black.tolist() == [1500.0]


# ----------------------------------------------------------------------------------
# 4. continuation


CONTINUATION_CONFIGS = {
    "constant": EloConfig(k=24.0, advantage=40.0),
    "games": EloConfig(k_schedule="games", k_table=K_TABLES["games"]),
    "power": EloConfig.fivethirtyeight_tennis(),
    "regression": EloConfig(k=20.0, regression=1 / 3, regression_mean=1505.0),
    "regression-period": EloConfig(k_schedule="games", k_table=K_TABLES["games"],
                                   regression=0.25, update="period"),
    "nfl": EloConfig.fivethirtyeight_nfl(),
    # K 10 once a rating reached 1520, kept after falling below it: the saved state
    # must carry fide_reached
    "fide": EloConfig.fide(k_table=((4.0, 40.0), (math.inf, 20.0)), fide_threshold=1520.0),
}


@pytest.mark.parametrize("name", list(CONTINUATION_CONFIGS))
@settings(max_examples=30)
@given(games=plain_games(max_games=60), cut=st.floats(0.0, 1.0))
def test_continuation_equals_full_run(name, games, cut):
    cfg = CONTINUATION_CONFIGS[name]
    white, black, score, period = games
    n = len(white)
    time = np.asarray(period, dtype=float)  # one time per period: cuts fall between periods
    margin = np.sign(np.asarray(score) - 0.5) * (np.arange(n, dtype=float) % 7 + 1)
    t = float(np.floor(cut * (time[-1] + 1)))

    def part(mask):
        idx = np.flatnonzero(mask)
        return Games.from_arrays(np.asarray(white)[idx], np.asarray(black)[idx],
                                 np.asarray(score)[idx], time=time[idx],
                                 period=np.asarray(period)[idx], margin=margin[idx])

    full = elo.rate(part(np.ones(n, bool)), cfg)
    first_mask = time < t
    if not first_mask.any() or first_mask.all():
        return
    first = elo.rate(part(first_mask), cfg)
    second = elo.rate(part(~first_mask), cfg, initial=first)
    assert sorted(second.players.names.tolist()) == sorted(full.players.names.tolist())
    for pname in full.players:
        assert second[pname] == full[pname], pname  # exact
        i, j = second.players.id_of(pname), full.players.id_of(pname)
        assert second.games_played[i] == full.games_played[j]
        assert second.last_period[i] == full.last_period[j]
    assert np.array_equal(np.concatenate([first.predictions, second.predictions]),
                          full.predictions)


def test_fide_reached_survives_a_saved_state(tmp_path):
    """A rating that reached the threshold keeps K = 10 after it falls below, also when
    the run continues from a written table (CSV round trip of fide_reached)."""
    from fastrate.io.tables import read_ratings, write_table

    cfg = EloConfig.fide(k_table=((1.0, 40.0), (math.inf, 20.0)), fide_threshold=1510.0)
    white, black = ["a"] * 5 + ["b"], ["b"] * 5 + ["a"]
    score = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    full = elo.rate(Games.from_arrays(white, black, score), cfg)
    first = elo.rate(Games.from_arrays(white[:4], black[:4], score[:4]), cfg)
    a = first.players.id_of("a")
    assert first.fide_reached[a] and first["a"] < 1510.0  # 1520 after game 1, then down
    path = tmp_path / "state.csv"
    write_table(first.to_arrow(), str(path))
    assert "fide_reached" in path.read_text().splitlines()[0]
    for initial in (first, read_ratings(str(path))):
        second = elo.rate(Games.from_arrays(white[4:], black[4:], score[4:]), cfg,
                          initial=initial)
        assert second["a"] == full["a"] and second["b"] == full["b"]
        assert second.fide_reached.tolist() == full.fide_reached.tolist()
    # without the flag a's K would be 20 again: the continued rating would differ
    table = read_ratings(str(path)).drop_columns(["fide_reached"])
    lost = elo.rate(Games.from_arrays(white[4:], black[4:], score[4:]), cfg, initial=table)
    assert lost["a"] != full["a"]


def test_fide_reached_bad_values():
    g = Games.from_arrays(["a"], ["b"], [1.0])
    with pytest.raises(InputError, match=r"column 'fide_reached' must be a boolean \(0/1, "
                       r"true/false\); found 'maybe' at row 2"):
        elo.rate(g, EloConfig.fide(), initial={"player": ["a", "b"], "rating": [1500.0, 1500.0],
                                               "fide_reached": ["yes", "maybe"]})
    # one boolean vocabulary everywhere: yes/no are booleans here too
    r = elo.rate(g, EloConfig.fide(), initial={"player": ["a", "b"], "rating": [1500.0, 1.0],
                                               "fide_reached": ["yes", "no"]})
    assert r.fide_reached.tolist() == [True, False]
    r = elo.rate(g, EloConfig.fide(), initial={"player": ["a", "b"], "rating": [1500.0, 1.0],
                                               "fide_reached": [1, 0]})
    assert r.fide_reached.tolist() == [True, False]
    assert elo.rate(g, EloConfig()).fide_reached is None


def test_continuation_mid_period_game_by_game():
    """Cutting inside a period is exact game by game: no one is regressed twice."""
    white, black = ["a", "b", "a", "c", "b", "a"], ["b", "c", "c", "a", "a", "c"]
    score, period = [1, 0.5, 0, 1, 1, 0.5], [0, 0, 1, 1, 2, 2]
    cfg = EloConfig(regression=0.5)
    full = elo.rate(Games.from_arrays(white, black, score, period=period), cfg)
    first = elo.rate(Games.from_arrays(white[:3], black[:3], score[:3], period=period[:3]), cfg)
    second = elo.rate(Games.from_arrays(white[3:], black[3:], score[3:], period=period[3:]), cfg,
                      initial=first)
    for name in "abc":
        assert second[name] == full[name]


# ----------------------------------------------------------------------------------
# 5. bad input and bad configuration


@pytest.mark.parametrize("kw, match", [
    ({"k": -1.0}, r"'k' of EloConfig must be a float in \[0, 1e\+06\]; got -1.0"),
    ({"k": math.nan}, r"'k' of EloConfig must be a float"),
    ({"scale": 0.0}, r"'scale' of EloConfig must be a float in \[0.001, 1e\+09\]; got 0.0"),
    ({"cap": 0.0}, r"'cap' of EloConfig must be a float in \(0, inf\]; got 0.0"),
    ({"k_schedule": "uscf"}, r"'k_schedule' of EloConfig must be one of 'constant', 'games', "
                             r"'rating', 'fide', 'power'; got 'uscf'"),
    ({"margin": "nhl"}, r"'margin' of EloConfig must be one of 'none', 'fte_nfl', 'fte_nba', "
                        r"'world_football'; got 'nhl'"),
    ({"update": "day"}, r"'update' of EloConfig must be one of 'game', 'period'; got 'day'"),
    ({"regression": 1.5}, r"'regression' of EloConfig must be a float in \[0, 1\]; got 1.5"),
    ({"k_schedule": "games"}, r"k_schedule='games' needs 'k_table' of EloConfig"),
    ({"k_schedule": "games", "k_table": ((30, 40), (100, 20))},
     r"'k_table' of EloConfig must end with an \(inf, K\) row .* last bound is 100.0"),
    ({"k_schedule": "rating", "k_table": ((2400, 20), (2100, 30), (math.inf, 10))},
     r"'k_table' of EloConfig bounds must increase; got \[2400.0, 2100.0, inf\]"),
    ({"k_schedule": "games", "k_table": ((30, 40, 1), (math.inf, 20))},
     r"'k_table' of EloConfig rows must be \(upper bound, K\)"),
    ({"k_schedule": "games", "k_table": ((30, -40), (math.inf, 20))},
     r"'k_table K' of EloConfig must be a float in \[0, 1e\+06\]; got -40"),
    ({"k_power": (250.0, 5.0)}, r"'k_power' of EloConfig must be \(a, b, c\)"),
    ({"k_power": (250.0, 0.0, 0.4)}, r"'k_power\[1\]' of EloConfig must be a float in \[0.001, 1e\+09\]"),
    ({"fide_k": -10.0}, r"'fide_k' of EloConfig must be a float in \[0, 1e\+06\]; got -10.0"),
])
def test_bad_config(kw, match):
    with pytest.raises(ConfigError, match=match):
        EloConfig(**kw)


def test_bad_config_types():
    with pytest.raises(InputTypeError, match=r"'k' of EloConfig must be a float .* got '32' "
                                             r"\(str\)"):
        EloConfig(k="32")
    with pytest.raises(InputTypeError, match=r"'advantage' of EloConfig .* got True \(bool\)"):
        EloConfig(advantage=True)


def test_margin_model_needs_margin_data():
    games = Games.from_arrays(["a"], ["b"], [1.0])
    for model in ("fte_nfl", "fte_nba", "world_football"):
        with pytest.raises(InputError, match=rf"margin='{model}' needs a margin per game"):
            elo.rate(games, EloConfig(margin=model))


def test_regression_and_period_update_need_periods():
    games = Games.from_arrays(["a"], ["b"], [1.0])
    with pytest.raises(InputError, match=r"regression and update='period' need rating periods"):
        elo.rate(games, EloConfig(regression=0.2))
    with pytest.raises(InputError, match=r"need rating periods"):
        elo.rate(games, EloConfig(update="period"))


def test_bad_scores():
    with pytest.raises(InputError, match=r"column 'score' must be in \[0, 1\]; found 2.0 at "
                                         r"row 3"):
        Games.from_arrays(["a", "b", "a"], ["b", "c", "c"], [1.0, 0.5, 2.0])
    with pytest.raises(InputError, match=r"column 'score' must be in \[0, 1\]; found -1.0 at "
                                         r"row 1 \(line 2 of games.csv\)"):
        Games.from_arrays(["a"], ["b"], [-1.0], source=fastrate_source())
    with pytest.raises(InputError, match=r"column 'score' must be a finite number .*; found nan "
                                         r"at row 2"):
        Games.from_arrays(["a", "b"], ["b", "a"], [1.0, math.nan])
    with pytest.raises(InputError, match=r"column 'score' must be numeric; found 'win' at row 1"):
        Games.from_arrays(["a"], ["b"], ["win"])


def fastrate_source():
    from fastrate._validate import Source

    return Source("games.csv", first_line=2)


def test_player_playing_himself():
    with pytest.raises(InputError, match=r"a player cannot play himself: 'b' is both players at "
                                         r"row 2"):
        Games.from_arrays(["a", "b"], ["b", "b"], [1.0, 0.0])


def test_empty_input():
    with pytest.raises(InputError, match=r"no games: the input has no rows"):
        Games.from_arrays([], [], [])


def test_unsorted_times_with_sort_false():
    with pytest.raises(InputError, match=r"column 'time' must be nondecreasing \(games in "
                                         r"chronological order\); found .* at row 3"):
        Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1],
                          time=["2024-01-01", "2024-01-03", "2024-01-02"], sort=False)


def test_rate_needs_games_and_config():
    with pytest.raises(InputError, match=r"rate\(\) needs a fastrate.Games; got list"):
        elo.rate([("a", "b", 1.0)])
    games = Games.from_arrays(["a"], ["b"], [1.0])
    with pytest.raises(InputError, match=r"config must be an EloConfig; got dict"):
        elo.rate(games, {"k": 20})


def test_bad_resets():
    games = Games.from_arrays(["a"], ["b"], [1.0], period=[1])
    with pytest.raises(InputError, match=r"rating resets need columns 'player', 'value' and "
                                         r"'period' or 'time'; found player, value"):
        elo.rate(games, resets={"player": ["a"], "value": [1400.0]})
    with pytest.raises(InputError, match=r"resets by 'time' need games with a time column"):
        elo.rate(games, resets={"player": ["a"], "time": [1.0], "value": [1400.0]})
    no_period = Games.from_arrays(["a"], ["b"], [1.0])
    with pytest.raises(InputError, match=r"resets by 'period' need games with a period column"):
        elo.rate(no_period, resets={"player": ["a"], "period": [1], "value": [1400.0]})


def test_inputs_are_not_mutated():
    games = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], period=[0, 1])
    before = [x.copy() for x in (games.white, games.black, games.score, games.period)]
    later = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], period=[1, 2])
    before_later = [x.copy() for x in (later.white, later.black, later.score, later.period)]
    first = elo.rate(games, EloConfig(regression=0.5))
    saved = first.rating.copy(), first.games_played.copy(), first.last_period.copy()
    # continued with games from the last period on (a saved last period after the
    # games' first one is refused: tests/test_hostile_values.py)
    elo.rate(later, EloConfig(regression=0.5), initial=first)
    for x, y in zip(before, (games.white, games.black, games.score, games.period)):
        assert np.array_equal(x, y)
    for x, y in zip(before_later, (later.white, later.black, later.score, later.period)):
        assert np.array_equal(x, y)
    for x, y in zip(saved, (first.rating, first.games_played, first.last_period)):
        assert np.array_equal(x, y)


# ----------------------------------------------------------------------------------
# the modelling levers (issue 13 §4): context ratings, match format, points share,
# newcomers, against the reference


@st.composite
def lever_sets(draw):
    n_players = draw(st.integers(2, 6))
    names = [f"p{i}" for i in range(n_players)]
    n = draw(st.integers(1, 40))
    pairs = draw(st.lists(st.tuples(st.integers(0, n_players - 1),
                                    st.integers(1, n_players - 1)), min_size=n, max_size=n))
    white = [names[a] for a, _ in pairs]
    black = [names[(a + off) % n_players] for a, off in pairs]
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    context = draw(st.lists(st.sampled_from(["clay", "grass", "hard", None]), min_size=n,
                            max_size=n))
    best_of = draw(st.lists(st.sampled_from([1, 3, 3, 5, 7]), min_size=n, max_size=n))
    share = draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n))
    entry = draw(st.lists(st.one_of(st.just(math.nan), st.floats(1200.0, 1800.0)),
                          min_size=n, max_size=n))
    return white, black, score, context, best_of, share, entry


@settings(max_examples=60, deadline=None)
@given(data=lever_sets(), k_schedule=st.sampled_from(["constant", "power", "games", "rating"]),
       context_weight=st.sampled_from([0.0, 0.3, 1.0]), context_k=st.sampled_from([0.5, 1.0]),
       best_of=st.sampled_from([0, 1, 3]), points_share=st.sampled_from([0.0, 0.4]),
       newcomer=st.sampled_from(["fixed", "opponent"]), with_entry=st.booleans(),
       margin=st.sampled_from(["none", "world_football"]))
def test_levers_match_reference(data, k_schedule, context_weight, context_k, best_of,
                                points_share, newcomer, with_entry, margin):
    white, black, score, context, bo, share, entry = data
    kw: dict = {"k_schedule": k_schedule, "context_weight": context_weight,
                "context_k": context_k, "best_of": best_of, "points_share": points_share,
                "newcomer": newcomer, "newcomer_offset": -75.0, "advantage": 30.0,
                "margin": margin}
    if k_schedule in K_TABLES:
        kw["k_table"] = K_TABLES[k_schedule]
    cfg = EloConfig(**kw)
    margins = [2.0 if s == 1 else -1.0 if s == 0 else 0.0 for s in score]
    g = Games.from_arrays(white, black, score, context=context, best_of=bo, share=share,
                          entry=entry if with_entry else None, margin=margins)
    got = elo.rate(g, cfg, record_pregame=True)
    want = ref.rate(white, black, score, cfg, context=context, best_of=bo, share=share,
                    entry=entry if with_entry else None, margin=margins)
    assert_same(got, want)


def test_best_of_formulas():
    """The closed forms against the published polynomials and the reference's dynamic
    programme; the inverse undoes them."""
    from fastrate.ratings._common import best_of_probability, game_probability

    for q in (0.0, 0.2, 0.5, 0.63, 0.9, 1.0):
        assert best_of_probability(q, 1) == pytest.approx(q)
        assert best_of_probability(q, 3) == pytest.approx(q * q * (3 - 2 * q), abs=1e-15)
        assert best_of_probability(q, 5) == pytest.approx(
            q ** 3 * (10 - 15 * q + 6 * q * q), abs=1e-15)
        assert best_of_probability(q, 7) == pytest.approx(ref.match_win(q, 7), abs=1e-15)
    for p in (0.01, 0.3, 0.5, 0.77, 0.99):
        for n in (3, 5, 9):
            assert best_of_probability(game_probability(p, n), n) == pytest.approx(p, abs=1e-14)
    # a favourite gains in a longer match
    assert best_of_probability(game_probability(0.7, 3), 5) > 0.7


def test_levers_off_are_the_plain_run():
    g = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0.5, 0],
                          context=["x", "y", "x"], best_of=[3, 5, 3], share=[0.6, 0.5, 0.2])
    plain = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0.5, 0])
    for cfg in (EloConfig(), EloConfig(k_schedule="power")):
        np.testing.assert_array_equal(elo.rate(g, cfg).rating, elo.rate(plain, cfg).rating)


def test_levers_need_their_columns():
    g = Games.from_arrays(["a"], ["b"], [1])
    for cfg, column in ((EloConfig(context_weight=0.5), "context"),
                        (EloConfig(best_of=3), "best_of"),
                        (EloConfig(points_share=0.2), "share")):
        with pytest.raises(InputError, match=f"needs the games' '{column}' column"):
            elo.rate(g, cfg)


def test_lever_columns_are_validated():
    with pytest.raises(InputError, match=r"column 'best_of' must be an odd whole number.*"
                                         r"found 4.0 at row 2"):
        Games.from_arrays(["a", "b"], ["b", "a"], [1, 0], best_of=[3, 4])
    with pytest.raises(InputError, match=r"column 'share'.*found 1.5 at row 1"):
        Games.from_arrays(["a"], ["b"], [1], share=[1.5])
    with pytest.raises(InputError, match=r"column 'context' must have one value per game \(1\)"):
        Games.from_arrays(["a"], ["b"], [1], context=["x", "y"])
    # a missing context (null or empty) is a game rated on the overall ratings only
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0], context=[None, ""])
    assert g.context.tolist() == [-1, -1]
    np.testing.assert_array_equal(elo.rate(g, EloConfig(context_weight=0.7)).rating,
                                  elo.rate(g, EloConfig()).rating)
    with pytest.raises(ConfigError, match="'best_of' of EloConfig must be 0 .off. or an odd"):
        EloConfig(best_of=4)
    with pytest.raises(ConfigError, match="'context_weight' of EloConfig must be a float in"):
        EloConfig(context_weight=1.5)
    with pytest.raises(ConfigError, match="update='game' with context ratings"):
        EloConfig(context_weight=0.5, update="period")


def test_tennis_scores_give_the_games_share(tmp_path):
    """Scores from the winner's side: games won over games played, by hand."""
    path = tmp_path / "atp.csv"
    path.write_text("winner,loser,score,surface,best_of\n"
                    "a,b,6-4 3-6 7-6(5),Clay,3\n"          # 16 of 32
                    "b,c,6-0 6-0 6-0,Grass,5\n"            # 18 of 18
                    "c,a,W/O,,3\n"                         # a walkover: the result
                    "a,c,6-3 2-1 RET,Hard,3\n")            # 8 of 12, the rest ignored
    g = fastrate.read_games(path, tennis_score="score", context="surface")
    np.testing.assert_allclose(g.share, [16 / 32, 1.0, 1.0, 8 / 12])
    assert g.best_of.tolist() == [3, 5, 3, 3]  # a column named best_of is picked up
    assert g.context_labels.tolist() == ["Clay", "Grass", "Hard"]
    assert g.context.tolist() == [0, 1, -1, 2]  # an empty surface: no context
    # the loser's side when he is the first player
    path.write_text("white,black,score_text,score\nb,a,6-4 6-4,0\n")
    g = fastrate.read_games(path, tennis_score="score_text")
    np.testing.assert_allclose(g.share, [8 / 20])


def test_levers_from_the_command_line(tmp_path):
    from click.testing import CliRunner

    from fastrate.cli import main

    path = tmp_path / "atp.csv"
    rows = ["winner,loser,score,surface,best_of"]
    rng = np.random.default_rng(1)
    for _ in range(60):
        a, b = rng.choice(6, 2, replace=False)
        rows.append(f"p{a},p{b},6-{rng.integers(0, 5)} 6-{rng.integers(0, 5)},"
                    f"{rng.choice(['Clay', 'Hard'])},{rng.choice([3, 5])}")
    path.write_text("\n".join(rows) + "\n")
    spec = "elo:context_weight=0.3,best_of=3,points_share=0.4"
    out = CliRunner().invoke(main, ["rate", str(path), "--context", "surface",
                                    "--tennis-score", "score", "-s", spec,
                                    "--format", "json"])
    assert out.exit_code == 0, out.output
    got = {r["player"]: r["rating"] for r in json.loads(out.stdout)}
    want = elo.rate(fastrate.read_games(path, context="surface", tennis_score="score"),
                    EloConfig(context_weight=0.3, best_of=3, points_share=0.4))
    assert got == {n: want[n] for n in got}
    out = CliRunner().invoke(main, ["rate", str(path), "-s", spec])
    assert out.exit_code != 0
    assert "context_weight needs the games' 'context' column" in out.output


def test_context_ratings_cannot_continue(tmp_path):
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0], context=["x", "y"])
    cfg = EloConfig(context_weight=0.5)
    with pytest.raises(ConfigError, match="context ratings .* cannot continue"):
        elo.rate(g, cfg, initial={"a": 1600.0})
    from fastrate.streaming import rate_chunks

    path = tmp_path / "g.csv"
    path.write_text("white,black,score,surface\na,b,1,x\nb,a,0,y\n")
    with pytest.raises(ConfigError, match="cannot rate in chunks.*--chunk-rows 0"):
        rate_chunks(path, ("elo", cfg), chunk_rows=1, context="surface")
