"""Information per game and ladder pairing (SPEC §6): the computer-go post's table,
entropy properties, the simulator against the pure-Python reference and the core
engine, determinism (seeds, threads), bad input and the ``fastrate ladder`` CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import pairing as ref

from fastrate.cli import main
from fastrate.data import Games
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.ratings import elo, glicko2
from fastrate.ratings.elo import EloConfig
from fastrate.ratings.glicko2 import Glicko2Config
from fastrate.stats import information as I
from fastrate.stats import pairing as P

REPO = Path(__file__).resolve().parents[1]

# the computer-go post's table: rank gap -> cost, win probability, bits, bits per cost
POST_TABLE = {
    0: (2.0000, 0.5000, 1.0000, 0.5000),
    1: (1.5000, 0.3869, 0.9627, 0.6418),
    2: (1.2500, 0.2847, 0.8618, 0.6895),
    3: (1.1250, 0.2008, 0.7234, 0.6431),
    4: (1.0625, 0.1368, 0.5758, 0.5419),
    5: (1.0313, 0.0909, 0.4395, 0.4262),
    6: (1.0156, 0.0594, 0.3249, 0.3199),
    7: (1.0078, 0.0383, 0.2344, 0.2326),
    8: (1.0039, 0.0245, 0.1660, 0.1654),
    9: (1.0020, 0.0156, 0.1160, 0.1157),
    10: (1.0010, 0.0099, 0.0801, 0.0801),
}


# ----------------------------------------------------------------------------------
# 1. published values


def test_cost_bits_table_reproduces_the_post_to_4_decimals():
    t = I.cost_bits_table(10)
    assert t["rank_gap"].tolist() == list(range(11))
    for r, row in POST_TABLE.items():
        got = [float(t[c][r]) for c in ("cost", "win_prob", "bits", "bits_per_cost")]
        for g, want in zip(got, row):
            assert abs(g - want) <= 0.5e-4 + 1e-12, (r, got, row)
        # printed the post's way (halves up: 1.03125 -> 1.0313)
        assert [float(I.round_half_up(g)) for g in got] == list(row)


def test_spec_rows_and_best_gap():
    t = I.cost_bits_table([0, 1, 2, 5, 10])
    assert t["cost"][3] == 1.03125 and I.round_half_up(t["cost"][3]) == "1.0313"
    assert t["win_prob"][4] == pytest.approx(1 / 101)     # 800 Elo: 1/(1 + 10^2)
    full = I.cost_bits_table(10)
    assert int(full["rank_gap"][full["bits_per_cost"].argmax()]) == 2   # "2 ranks apart"


def test_post_entropy_examples():
    assert I.binary_entropy(0.5) == 1.0
    assert round(I.binary_entropy(0.95), 2) == 0.29          # "about 0.29 bits"
    assert I.game_information(1500, 1420) == pytest.approx(0.9627, abs=5e-5)


def test_general_table_cost_ratio_elo_step_and_rank():
    t = I.cost_bits_table(range(3, 6), cost_ratio=1.0, elo_step=50.0, rank=2, base_cost=3.0)
    assert t["opponent_rank"].tolist() == [5, 6, 7]
    assert t["elo_gap"].tolist() == [150.0, 200.0, 250.0]
    assert np.all(t["cost"] == 6.0)
    assert t["win_prob"][1] == pytest.approx(0.2402530733520421)   # SPEC §1.1: 0.2403
    t2 = I.cost_bits_table(4, rank=1)
    assert t2["cost"].tolist() == [0.5 + 0.5 ** (1 + r) for r in range(5)]
    # bits do not depend on the costs; the rank only moves the costs
    assert np.array_equal(t2["bits"], I.cost_bits_table(4)["bits"])


# ----------------------------------------------------------------------------------
# entropy properties


@given(st.floats(0.0, 1.0))
def test_entropy_symmetric_and_bounded(p):
    h = I.binary_entropy(p)
    assert 0.0 <= h <= 1.0
    assert h == pytest.approx(I.binary_entropy(1.0 - p), abs=1e-12)


@given(st.floats(0.0, 0.5), st.floats(0.0, 0.5))
def test_entropy_increases_up_to_one_half(a, b):
    lo, hi = sorted((a, b))
    assert I.binary_entropy(lo) <= I.binary_entropy(hi) + 1e-15


@given(st.floats(1e-9, 1 - 1e-9), st.floats(1e-9, 1 - 1e-9))
def test_entropy_concave(a, b):
    assert I.binary_entropy((a + b) / 2) >= (I.binary_entropy(a) + I.binary_entropy(b)) / 2 - 1e-12


def test_entropy_edges_and_arrays():
    assert I.binary_entropy(0) == 0.0 and I.binary_entropy(1) == 0.0
    out = I.binary_entropy([0.0, 0.25, 0.5, 1.0])
    assert isinstance(out, np.ndarray) and out[2] == 1.0
    assert out[1] == pytest.approx(-0.25 * math.log2(0.25) - 0.75 * math.log2(0.75))
    x = np.array([0.1, 0.2])
    x.setflags(write=False)
    assert I.binary_entropy(x).shape == (2,)


@given(st.floats(-2000, 2000), st.floats(-2000, 2000))
def test_game_information_symmetric_and_falls_with_the_gap(a, b):
    h = I.game_information(a, b)
    assert h == pytest.approx(I.game_information(b, a), abs=1e-12)
    assert I.game_information(a, a) == 1.0
    assert h <= I.game_information(a, a + 0.5 * (b - a)) + 1e-12


# ----------------------------------------------------------------------------------
# the schedulers' opponent distributions (exact)


def test_nearest_of_three_top_player_goes_n_over_4_ranks_down():
    prob = P.opponent_probabilities("nearest", 0, 34, candidates=3)
    assert prob.sum() == pytest.approx(1.0) and prob[0] == 0.0
    # the nearest of 3 distinct draws from 1..33: E = (33 + 1)/(3 + 1) = 8.5 (the post: ~N/4)
    assert (prob * np.arange(34)).sum() == pytest.approx(8.5)


def test_gaussian_offsets_are_pool_size_free_and_conditioned():
    top = P.opponent_probabilities("gaussian", 0, 34, sigma=3.0)
    top100 = P.opponent_probabilities("gaussian", 0, 100, sigma=3.0)
    gap34 = (top * np.arange(34)).sum()
    assert gap34 == pytest.approx((top100 * np.arange(100)).sum(), abs=1e-9)
    assert 2.0 < gap34 < 4.0     # "much closer than 8.25 ranks away"
    mid = P.opponent_probabilities("gaussian", 17, 35, sigma=3.0)
    assert mid[17] == 0.0 and np.allclose(mid[:17], mid[18:][::-1])
    # beyond 2.5 sigma from the middle: less than about 1% in all
    assert mid[np.abs(np.arange(35) - 17) > 7.5].sum() < 0.02


def test_simulated_pairings_follow_the_exact_distributions():
    # the first player's rank is uniform and the scheduler's offset depends on his rank
    # only, so the mean rank gap of the games converges to the exact mean
    ladder = P.Ladder.geometric(12)
    for sched in ("nearest", "gaussian"):
        r = P.simulate(ladder, sched, "elo", 20_000, n_points=1, seed=5)
        exact = np.mean([(P.opponent_probabilities(sched, p, 12)
                          * np.abs(np.arange(12) - p)).sum() for p in range(12)])
        assert r.mean_rank_gap[0, -1] == pytest.approx(exact, rel=0.03)


# ----------------------------------------------------------------------------------
# 2. equivalence with the pure-Python reference (hypothesis)


@st.composite
def small_ladders(draw):
    n = draw(st.integers(2, 7))
    n_games = draw(st.integers(1, 50))
    pool = [-300.0, -80.0, 0.0, 80.0, 250.0, 600.0]
    true = [draw(st.one_of(st.sampled_from(pool), st.floats(-800, 800))) for _ in range(n)]
    cost = [draw(st.floats(0.01, 4.0)) for _ in range(n)]
    late = [draw(st.integers(0, n_games - 1)) for _ in range(n - 2)]
    arrival = draw(st.permutations([0, 0, *late]))
    return P.Ladder(np.array(true), np.array(cost), np.array(arrival)), n_games


def _compare(ladder, n_games, system, exact, **kw):
    seed = kw.pop("seed")
    got = P.simulate(ladder, system=system, n_games=n_games, seed=seed, record_games=True, **kw)
    cfg = kw.get("elo") or EloConfig()
    start = None
    if kw.get("start") == "truth":
        present = ladder.arrival == 0
        t = ladder.true_rating
        start = np.full(ladder.n_players, 1500.0)
        start[present] = t[present] - t[present].mean() + 1500.0
        start = start.tolist()
    want = ref.simulate(ladder.true_rating.tolist(), ladder.cost.tolist(),
                        ladder.arrival.tolist(), scheduler=kw["scheduler"], system=system,
                        n_games=n_games, seed=seed, ends=got.games.tolist(),
                        sigma=kw.get("sigma", 3.0), candidates=kw.get("candidates", 3),
                        k=cfg.k, cap=cfg.cap or 0.0, period_games=kw.get("period_games", 1),
                        seed_games=kw.get("seed_games", (0, 0)), start=start)
    if not exact:
        # Glicko-2's compiled arithmetic (its own exp, fused multiply-adds) may differ from
        # the reference in the last bits, which can only change a pairing where two
        # estimates are (nearly) tied: the games must agree up to such a point, and the
        # rest of the run is then a different run.
        played = list(zip(got.white[0].tolist(), got.black[0].tolist()))
        first = next((t for t, (w, b) in enumerate(played)
                      if (w, b) != (want["white"][t], want["black"][t])), None)
        if first is not None:
            assert want["min_gap"][first] <= 1e-8 * 1500.0, (first, want["min_gap"][first])
            assert got.score[0].tolist()[:first] == want["score"][:first]
            return
    assert got.white[0].tolist() == want["white"]
    assert got.black[0].tolist() == want["black"]
    assert got.score[0].tolist() == want["score"]
    pairs = [(got.ratings[0], want["rating"]), (got.cost[0], want["cost"]),
             (got.bits[0], want["bits"]), (got.rmse[0], want["rmse"]),
             (got.misordered[0], want["misordered"]), (got.mean_rank_gap[0], want["gap"])]
    for a, b in pairs:
        if exact:
            assert np.array_equal(a, np.array(b), equal_nan=True)
        else:
            np.testing.assert_allclose(a, np.array(b), rtol=1e-9, atol=1e-8)


@settings(max_examples=40)
@given(case=small_ladders(), scheduler=st.sampled_from(P.SCHEDULERS),
       seed=st.integers(0, 2**63 - 2), sigma=st.floats(0.5, 6.0),
       candidates=st.integers(1, 4), k=st.sampled_from([10.0, 32.0]),
       cap=st.sampled_from([None, 400.0]),
       seed_games=st.sampled_from([(0, 0), (2, 1), (1, 3)]),
       start=st.sampled_from(P.STARTS))
def test_elo_ladder_matches_reference_bit_for_bit(case, scheduler, seed, sigma, candidates, k,
                                                  cap, seed_games, start):
    ladder, n_games = case
    _compare(ladder, n_games, "elo", True, scheduler=scheduler, seed=seed, sigma=sigma,
             candidates=candidates, elo=EloConfig(k=k, cap=cap), seed_games=seed_games,
             start=start)


@settings(max_examples=25)
@given(case=small_ladders(), scheduler=st.sampled_from(P.SCHEDULERS),
       seed=st.integers(0, 2**32), period_games=st.integers(1, 7),
       seed_games=st.sampled_from([(0, 0), (2, 1)]), start=st.sampled_from(P.STARTS))
def test_glicko2_ladder_matches_reference(case, scheduler, seed, period_games, seed_games,
                                          start):
    ladder, n_games = case
    _compare(ladder, n_games, "glicko2", False, scheduler=scheduler, seed=seed,
             period_games=period_games, seed_games=seed_games, start=start)


# ----------------------------------------------------------------------------------
# the rating systems are the core engine's


def test_elo_ratings_equal_the_engine_on_the_game_log():
    ladder = P.Ladder.geometric(12, cost_ratio=0.8)
    cfg = EloConfig(k=24.0, cap=400.0)
    r = P.simulate(ladder, "gaussian", "elo", 3000, n_seeds=2, elo=cfg, record_games=True)
    for s in range(2):
        games = Games.from_arrays(r.white[s], r.black[s], r.score[s], players=np.arange(12))
        assert np.array_equal(elo.rate(games, cfg).rating, r.ratings[s])
    # zero-sum Elo without seeding: the mean stays at the initial rating
    assert r.ratings.mean(axis=1) == pytest.approx([1500.0, 1500.0])


def test_glicko2_ratings_equal_the_engine_on_the_game_log():
    ladder = P.Ladder.geometric(10)
    cfg = Glicko2Config(tau=0.4)
    r = P.simulate(ladder, "greedy", "glicko2", 1000, glicko2=cfg, period_games=7,
                   record_games=True)
    games = Games.from_arrays(r.white[0], r.black[0], r.score[0], players=np.arange(10),
                              period=np.arange(1000) // 7)
    # the ladder runs the engine's own period step: the same bits
    np.testing.assert_array_equal(glicko2.rate(games, cfg).rating, r.ratings[0])


# ----------------------------------------------------------------------------------
# 3. invariants, determinism


def test_metrics_are_consistent():
    ladder = P.Ladder.geometric(15)
    r = P.simulate(ladder, "nearest", "elo", 2000, n_seeds=3, n_points=8)
    assert r.games.tolist() == [0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000]
    assert np.all(np.diff(r.cost, axis=1) > 0) and np.all(np.diff(r.bits, axis=1) > 0)
    assert np.all(r.bits[:, -1] <= 2000)                       # at most 1 bit a game
    assert np.all((r.misordered >= 0) & (r.misordered <= 1))
    assert np.all(r.misordered[:, 0] == 0.5)                   # all tied at the start
    assert np.isnan(r.bits_per_cost[:, 0]).all()
    np.testing.assert_allclose(r.bits_per_cost[:, -1], r.bits[:, -1] / r.cost[:, -1])
    t = r.table()
    assert list(t) == list(P.METRIC_COLUMNS) and t["games"].shape[0] == 3 * 9
    m = r.table(mean=True)
    np.testing.assert_allclose(m["rmse"], r.rmse.mean(axis=0))


def test_scheduler_ordering_on_the_posts_ladder():
    # 34 players: gaussian pairs nearer ranks than nearest-of-3 and gains more bits per
    # unit cost; greedy gains the most
    ladder = P.Ladder.geometric(34)
    res = {r.scheduler: r for r in P.compare(ladder, n_games=5000, n_seeds=4, n_points=2)}
    gap = {k: r.mean_rank_gap[:, -1].mean() for k, r in res.items()}
    bpc = {k: r.bits_per_cost[:, -1].mean() for k, r in res.items()}
    assert gap["gaussian"] < gap["nearest"]
    assert bpc["nearest"] < bpc["gaussian"] < bpc["greedy"]


def test_seeding_newcomers_lowers_the_rating_error():
    ladder = P.Ladder.geometric(16, newcomers=4, n_games=4000)
    kw = {"n_games": 4000, "n_seeds": 6, "n_points": 4}
    for system in P.SYSTEMS:
        plain = P.simulate(ladder, "gaussian", system, **kw)
        seeded = P.simulate(ladder, "gaussian", system, seed_games=(2, 1), **kw)
        assert seeded.rmse[:, 2:].mean() < plain.rmse[:, 2:].mean(), system
        # virtual games cost nothing and the pairings see the same randomness
        assert seeded.games.tolist() == plain.games.tolist()


def test_deterministic_and_seeds_independent():
    ladder = P.Ladder.geometric(9, newcomers=2, n_games=800)
    kw = {"n_games": 800, "seed_games": (2, 1), "record_games": True}
    for system in P.SYSTEMS:
        a = P.simulate(ladder, "gaussian", system, n_seeds=4, seed=10, **kw)
        b = P.simulate(ladder, "gaussian", system, n_seeds=4, seed=10, **kw)
        assert np.array_equal(a.rmse, b.rmse) and np.array_equal(a.white, b.white)
        one = P.simulate(ladder, "gaussian", system, n_seeds=1, seed=12, **kw)
        assert np.array_equal(one.white[0], a.white[2])
        assert np.array_equal(one.ratings[0], a.ratings[2])
        assert np.array_equal(one.rmse[0], a.rmse[2])
        assert not np.array_equal(a.white[0], a.white[1])


_THREAD_SCRIPT = textwrap.dedent("""
    import os, sys
    import numba
    from fastrate.stats import pairing as P
    assert numba.get_num_threads() == int(os.environ["NUMBA_NUM_THREADS"])
    ladder = P.Ladder.geometric(20, newcomers=3, n_games=3000)
    out = []
    for sched in P.SCHEDULERS:
        for system in P.SYSTEMS:
            r = P.simulate(ladder, sched, system, 3000, n_seeds=5, seed=9, seed_games=(2, 1),
                           record_games=True)
            out += [r.rmse.tobytes(), r.bits.tobytes(), r.ratings.tobytes(),
                    r.white.tobytes(), r.score.tobytes()]
    sys.stdout.buffer.write(b"".join(out))
""")


@pytest.mark.slow
def test_identical_bits_with_one_and_two_threads():
    outputs = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        proc = subprocess.run([sys.executable, "-c", _THREAD_SCRIPT], env=env,
                              capture_output=True, check=True, timeout=300)
        outputs.append(proc.stdout)
    assert len(outputs[0]) == 6 * 5 * (21 * 8 * 2 + 20 * 8 + 3000 * 16)
    assert outputs[0] == outputs[1]


# ----------------------------------------------------------------------------------
# 4. bad input


def test_bad_ladders():
    with pytest.raises(InputError, match="at least 2 players; got 1"):
        P.Ladder(np.array([1500.0]), np.array([1.0]))
    with pytest.raises(InputTypeError, match="'n_players' of Ladder.geometric"):
        P.Ladder.geometric("5")
    with pytest.raises(ConfigError, match=r"'n_players' of Ladder.geometric must be an integer "
                       r"in \[2, .*got 1"):
        P.Ladder.geometric(1)
    with pytest.raises(InputError, match=r"'cost' must be > 0 .*found -1.0 for player 1"):
        P.Ladder(np.array([0.0, 1.0]), np.array([1.0, -1.0]))
    with pytest.raises(InputError, match=r"'cost' must be > 0 .*found 0.0"):
        P.Ladder(np.array([0.0, 1.0]), np.array([0.0, 1.0]))
    with pytest.raises(InputError, match="column 'true_rating' must be a finite number"):
        P.Ladder(np.array([0.0, np.nan]), np.array([1.0, 1.0]))
    with pytest.raises(InputError, match=r"'cost' must have one value per player \(3\); got 2"):
        P.Ladder(np.zeros(3), np.ones(2))
    with pytest.raises(InputError, match="at least 2 players must be present from the start"):
        P.Ladder(np.zeros(3), np.ones(3), np.array([0, 5, 5]))
    with pytest.raises(InputError, match="'arrival' must hold game indices >= 0"):
        P.Ladder(np.zeros(3), np.ones(3), np.array([0, 0, -1]))
    with pytest.raises(ConfigError, match="needs 'n_games'"):
        P.Ladder.geometric(5, newcomers=2)
    with pytest.raises(ConfigError, match="'newcomers' of Ladder.geometric"):
        P.Ladder.geometric(5, newcomers=4, n_games=10)
    with pytest.raises(ConfigError, match="'cost_ratio' of Ladder.geometric"):
        P.Ladder.geometric(5, cost_ratio=-0.5)


def test_bad_simulation_parameters():
    ladder = P.Ladder.geometric(5)
    with pytest.raises(ConfigError, match="'scheduler' of simulate must be one of 'nearest', "
                       "'gaussian', 'greedy'; got 'swiss'"):
        P.simulate(ladder, "swiss")
    with pytest.raises(ConfigError, match="'system' of simulate must be one of 'elo', "
                       "'glicko2'; got 'glicko'"):
        P.simulate(ladder, system="glicko")
    with pytest.raises(ConfigError, match=r"'sigma' of simulate must be a float in \[0.5"):
        P.simulate(ladder, sigma=0.1)
    with pytest.raises(ConfigError, match="'n_games' of simulate"):
        P.simulate(ladder, n_games=0)
    with pytest.raises(ConfigError, match="'n_seeds' of simulate"):
        P.simulate(ladder, n_seeds=0)
    with pytest.raises(ConfigError, match="'seed' of simulate"):
        P.simulate(ladder, seed=-1)
    with pytest.raises(ConfigError, match="'candidates' of simulate"):
        P.simulate(ladder, "nearest", candidates=0)
    with pytest.raises(ConfigError, match="'period_games' of simulate"):
        P.simulate(ladder, system="glicko2", period_games=0)
    with pytest.raises(ConfigError, match="'seed_games' of simulate must be"):
        P.simulate(ladder, seed_games=2)
    with pytest.raises(ConfigError, match="'seed_games losses' of simulate"):
        P.simulate(ladder, seed_games=(2, -1))
    with pytest.raises(ConfigError, match="constant K, game-by-game.*k_schedule, advantage"):
        P.simulate(ladder, elo=EloConfig(k_schedule="power", advantage=30.0))
    with pytest.raises(InputError, match="'ladder' must be a Ladder"):
        P.simulate([1500, 1400])
    late = P.Ladder(np.zeros(3), np.ones(3), np.array([0, 0, 50]))
    with pytest.raises(InputError, match="'arrival' must be below n_games=50; found 50 for "
                       "player 2"):
        P.simulate(late, n_games=50)
    with pytest.raises(ConfigError, match="'start' of simulate must be one of 'initial', "
                       "'truth'; got 'random'"):
        P.simulate(ladder, start="random")
    with pytest.raises(ConfigError, match="'scheduler' of opponent_probabilities"):
        P.opponent_probabilities("greedy", 0, 5)


def test_bad_information_inputs():
    with pytest.raises(InputError, match=r"'p' must be a probability in \[0, 1\]; found 1.5"):
        I.binary_entropy(1.5)
    with pytest.raises(InputError, match="found -0.1 at index 1"):
        I.binary_entropy([0.5, -0.1])
    with pytest.raises(InputError, match="column 'p' must be a finite number"):
        I.binary_entropy(float("nan"))
    with pytest.raises(InputError, match="'gaps' must be >= 0"):
        I.cost_bits_table([0, -1])
    with pytest.raises(InputError, match="'gaps' must hold whole numbers"):
        I.cost_bits_table([0.5])
    with pytest.raises(ConfigError, match=r"'cost_ratio' of cost_bits_table must be a float in "
                       r"\(0, inf\); got -0.5"):
        I.cost_bits_table(cost_ratio=-0.5)
    with pytest.raises(ConfigError, match="'elo_step' of cost_bits_table"):
        I.cost_bits_table(elo_step=float("inf"))
    with pytest.raises(ConfigError, match="game costs that are not finite"):
        I.cost_bits_table([0, 5], cost_ratio=1e300)
    with pytest.raises(InputError, match="ratings must be finite"):
        I.game_information(float("nan"), 1500)
    assert I.cost_bits_table([2000])["bits"][0] == 0.0      # p underflows to 0: no warning


# ----------------------------------------------------------------------------------
# plots and the CLI


def test_plot_writes_a_png(tmp_path: Path):
    pytest.importorskip("matplotlib")
    results = P.compare(P.Ladder.geometric(10), n_games=500, n_seeds=2, n_points=5)
    out = P.plot(results, tmp_path / "ladder.png", title="test")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    with pytest.raises(InputError, match="folder .* does not exist"):
        P.plot(results, tmp_path / "nope" / "x.png")


def cli(*args: str, ok: bool = True):
    result = CliRunner().invoke(main, ["ladder", *args])
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


def test_cli_table_prints_the_posts_table():
    out = cli("table").output
    lines = out.strip().splitlines()
    assert lines[1].split() == ["RankGap", "Cost", "WinProb", "Bits", "Bits/Cost"]
    rows = {int(line.split()[0]): tuple(float(x) for x in line.split()[1:])
            for line in lines[3:14]}
    assert rows == POST_TABLE
    assert "1.0313" in out and "rank gap 2 (0.6895)" in lines[-1]


def test_cli_table_options_and_file(tmp_path: Path):
    out = cli("table", "--min-gap", "1", "--max-gap", "3", "--cost-ratio", "1",
              "--elo-step", "100").output
    rows = [line.split() for line in out.strip().splitlines()[3:6]]
    assert [r[0] for r in rows] == ["1", "2", "3"] and all(r[1] == "2.0000" for r in rows)
    assert rows[1][2] == I.round_half_up(1 / (1 + 10 ** 0.5))
    path = tmp_path / "t.csv"
    cli("table", "-o", str(path))
    t = pacsv.read_csv(path).to_pydict()
    assert t["rank_gap"] == list(range(11)) and t["bits_per_cost"][2] == pytest.approx(0.68947, abs=1e-5)
    js = json.loads(cli("table", "--format", "json", "--max-gap", "2").stdout)
    assert [r["cost"] for r in js] == [2.0, 1.5, 1.25]


def test_cli_simulate_prints_means_and_writes_files(tmp_path: Path):
    out = cli("simulate", "--scheduler", "gaussian", "--players", "12", "--games", "600",
              "--seeds", "2", "--points", "3").output
    lines = out.strip().splitlines()
    assert "12 players, 600 games x 2 seeds" in lines[0]
    assert [line.split()[1] for line in lines[3:]] == ["0", "200", "400", "600"]
    for ext in ("csv", "parquet", "json"):
        path = tmp_path / f"m.{ext}"
        cli("simulate", "--players", "8", "--games", "300", "--seeds", "3", "--points", "2",
            "--system", "glicko2", "-o", str(path))
        if ext == "json":
            rows = json.loads(path.read_text())
            assert len(rows) == 3 * 3 * 3 and set(rows[0]) == set(P.METRIC_COLUMNS)
            continue
        t = pacsv.read_csv(path) if ext == "csv" else pq.read_table(path)
        assert t.column_names == list(P.METRIC_COLUMNS)
        assert t.num_rows == 3 * 3 * 3                 # schedulers x seeds x checkpoints
        assert set(t.column("system").to_pylist()) == {"glicko2"}


def test_cli_simulate_matches_the_api(tmp_path: Path):
    path = tmp_path / "m.csv"
    cli("simulate", "--scheduler", "nearest", "--players", "9", "--games", "400", "--seeds",
        "2", "--seed", "4", "--points", "4", "--newcomers", "2", "--seed-games", "2-1",
        "-o", str(path))
    t = pacsv.read_csv(path).to_pydict()
    r = P.simulate(P.Ladder.geometric(9, newcomers=2, n_games=400), "nearest", "elo", 400,
                   n_seeds=2, seed=4, n_points=4, seed_games=(2, 1))
    assert t["seed"] == [4] * 5 + [5] * 5
    np.testing.assert_allclose(t["rmse"], r.rmse.reshape(-1))


def test_cli_simulate_plot(tmp_path: Path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "out.png"
    out = cli("simulate", "--players", "10", "--games", "400", "--seeds", "2", "--points",
              "4", "--plot", str(png)).output
    assert png.read_bytes()[:4] == b"\x89PNG" and f"plot written to {png}" in out


def test_cli_errors():
    r = cli("simulate", "--players", "1", ok=False)
    assert r.exit_code == 1 and "error: 'n_players' of Ladder.geometric" in r.stderr
    r = cli("simulate", "--scheduler", "swiss", ok=False)
    assert r.exit_code == 2
    r = cli("simulate", "--seed-games", "two", ok=False)
    assert r.exit_code == 1 and "--seed-games must be WINS-LOSSES" in r.stderr
    r = cli("simulate", "--sigma", "0.1", "--games", "10", ok=False)
    assert r.exit_code == 1 and "'sigma' of simulate" in r.stderr
    r = cli("table", "--cost-ratio", "-1", ok=False)
    assert r.exit_code == 1 and "'cost_ratio' of cost_bits_table" in r.stderr
    r = cli("table", "--min-gap", "5", "--max-gap", "2", ok=False)
    assert r.exit_code == 1 and "--max-gap must be >= --min-gap" in r.stderr


def test_cli_commands_documented():
    doc = (REPO / "docs" / "cli.md").read_text()
    for name in ("fastrate ladder", "fastrate ladder table", "fastrate ladder simulate"):
        assert name in doc


# ----------------------------------------------------------------------------------
# QA regressions


def test_cli_simulate_plot_path_checked_before_the_run(tmp_path: Path, monkeypatch):
    called = []
    monkeypatch.setattr(P, "compare", lambda *a, **k: called.append(1) or [])
    for name in ("out.txt", "out"):
        r = cli("simulate", "--players", "6", "--games", "50", "--seeds", "1", "--plot",
                str(tmp_path / name), ok=False)
        assert r.exit_code == 1 and "the plot is a PNG image; name it .png" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    r = cli("simulate", "--players", "6", "--games", "50", "--seeds", "1", "--plot",
            str(tmp_path / "nope" / "x.png"), ok=False)
    assert r.exit_code == 1 and "folder" in r.stderr and "does not exist" in r.stderr
    assert called == [] and list(tmp_path.iterdir()) == []
    with pytest.raises(InputError, match="name it .png"):
        P.check_plot_path(tmp_path / "x.svg")
    assert P.check_plot_path(tmp_path / "X.PNG")[0] == tmp_path / "X.PNG"


def test_cli_simulate_failed_output_leaves_no_plot(tmp_path: Path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "out.png"
    r = cli("simulate", "--players", "6", "--games", "60", "--seeds", "1", "--points", "2",
            "--plot", str(png), "-o", str(tmp_path / "nope" / "m.csv"), ok=False)
    assert r.exit_code == 1 and "does not exist" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_simulate_too_many_seeds_is_a_clear_error():
    r = cli("simulate", "--players", "100000", "--cost-ratio", "1", "--games", "10", "--seeds",
            "1000000000", ok=False)
    assert r.exit_code == 1, r.output
    assert "not enough memory for the results of 1,000,000,000 seeds" in r.stderr
    assert "internal error" not in r.stderr
