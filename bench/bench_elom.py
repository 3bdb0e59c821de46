"""elom (PlayerRatings' multiplayer Elo) throughput on generated four-player free-for-alls.

``ffa4``: 200k four-player matches among 50k players (``bench.generate_matches``), rated
game by game (no periods: every match is its own period) and in 100 rating periods.
Baselines, each checked equal to fastrate before its time counts:

* NumPy, vectorised per rating period (``np.bincount`` sums of the period's base values
  minus expectations), on the 100-period workload;
* pure Python, match by match (what PlayerRatings' R loop does per period), on a 20k
  subsample of the game-by-game workload.

Every implementation computes the same predictions as fastrate (each team's Luce win
probability, each pair's Elo expected score), checked too. Throughput is in matches per
second; ``bench_elom_fastrate`` times the full run and the final-only one (``rate(...,
predictions=False)``, checked to give the same ratings to the bit) (``predictions``).

    pytest bench/bench_elom.py --benchmark-only -m large
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bench.generate_matches import first, matches_workload

elom = pytest.importorskip("fastrate.ratings.elom")

CONFIG = elom.ElomConfig()
PERIODS = 100
PYTHON_MATCHES = 20_000
SMOKE_SCALE = 0.005  # 1000 matches
SIZES = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large)]


def _workload(size: str, periods: bool = False):
    m = matches_workload("ffa4", scale=1.0 if size == "large" else SMOKE_SCALE)
    if periods:
        per = np.arange(m.n_matches, dtype=np.int64) * PERIODS // m.n_matches
        m = dataclasses.replace(m, period=per)
    return m


def _rate(m, predictions=True):
    return elom.rate(m, CONFIG, predictions=predictions)


@pytest.mark.parametrize("predictions", [True, False], ids=["predictions", "final"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("periods", [False, True], ids=["game_by_game", "periods"])
def bench_elom_fastrate(throughput, size, periods, predictions):
    m = _workload(size, periods)
    throughput.info.update(implementation="fastrate", size=size, unit="matches",
                           periods=PERIODS if periods else "none", predictions=predictions)
    r = throughput(lambda: _rate(m, predictions), m.n_matches)
    assert np.isfinite(r.rating).all()
    if not predictions:
        np.testing.assert_array_equal(r.rating, _rate(m).rating)


def numpy_elom(m, config=CONFIG):
    """elom with NumPy, one vectorised step per period, for free-for-alls of one size
    (one-player teams, no weights), with fastrate's predictions (Luce win probabilities,
    pairwise Elo expected scores). Returns (rating, games_played, pred, pair_pred)."""
    n_t = int(m.match_team_offsets[1] - m.match_team_offsets[0])
    base = elom.base_values(config.base, n_t)
    n = m.n_players
    rating = np.full(n, config.initial_rating)
    games = np.zeros(n, dtype=np.int64)
    cut = np.flatnonzero(m.period[1:] != m.period[:-1]) + 1
    bounds = np.concatenate(([0], cut, [m.n_matches])).tolist()
    players = m.player.reshape(-1, n_t)
    bases = base[m.rank - 1].reshape(-1, n_t)
    kv, gv, k0 = config.k_final, config.k_games, config.k_start
    pred = np.empty((m.n_matches, n_t))
    iu, ju = np.triu_indices(n_t, 1)
    pair_pred = np.empty((m.n_matches, iu.shape[0]))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        p = players[lo:hi]
        r = rating[p]
        x = np.power(10.0, (r - r.max(axis=1, keepdims=True)) / config.scale)
        pred[lo:hi] = x / x.sum(axis=1, keepdims=True)
        pair_pred[lo:hi] = 1.0 / (1.0 + np.power(10.0, (r[:, ju] - r[:, iu]) / config.scale))
        d = bases[lo:hi] - (r - r.mean(axis=1, keepdims=True)) / config.spread
        dscore = np.bincount(p.ravel(), d.ravel(), minlength=n)
        played = np.bincount(p.ravel(), minlength=n)
        k = np.where(games >= gv, kv, k0 - (k0 - kv) * games / gv)
        rating += k * dscore
        games += played
    return rating, games, pred.ravel(), pair_pred.ravel()


def python_elom(m, config=CONFIG):
    """elom in pure Python, game by game (every match its own period), with the
    predictions. Returns (rating, games_played, pred, pair_pred)."""
    mto, tpo = m.match_team_offsets.tolist(), m.team_player_offsets.tolist()
    player, rank = m.player.tolist(), m.rank.tolist()
    rating = [config.initial_rating] * m.n_players
    games = [0] * m.n_players
    tables = {t: elom.base_values(config.base, t).tolist() for t in range(2, len(config.base) + 1)}
    kv, gv, k0, spread = config.k_final, config.k_games, config.k_start, config.spread
    scale = config.scale
    pred, pair_pred = [], []
    for g in range(m.n_matches):
        t0, t1 = mto[g], mto[g + 1]
        ps = [player[tpo[t]] for t in range(t0, t1)]
        rs = [rating[p] for p in ps]
        avg = sum(rs) / len(rs)
        top = max(rs)
        xs = [10.0 ** ((r - top) / scale) for r in rs]
        total = sum(xs)
        pred.extend(x / total for x in xs)
        for i in range(len(rs)):
            for j in range(i + 1, len(rs)):
                pair_pred.append(1.0 / (1.0 + 10.0 ** ((rs[j] - rs[i]) / scale)))
        table = tables[t1 - t0]
        for p, r, rk in zip(ps, rs, rank[t0:t1]):
            n = games[p]
            k = kv if n >= gv else k0 - (k0 - kv) * n / gv
            rating[p] = r + k * (table[rk - 1] - (r - avg) / spread)
            games[p] = n + 1
    return np.array(rating), np.array(games), np.array(pred), np.array(pair_pred)


@pytest.mark.parametrize("size", SIZES)
def bench_elom_numpy_per_period(throughput, size):
    m = _workload(size, periods=True)
    throughput.info.update(implementation="numpy per period", size=size, unit="matches",
                           periods=PERIODS)
    ours = _rate(m)
    rating, games, pred, pair_pred = numpy_elom(m)
    np.testing.assert_allclose(rating, ours.rating, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(games, ours.games_played)
    np.testing.assert_allclose(pred, ours.predictions, rtol=1e-12)
    np.testing.assert_allclose(pair_pred, ours.pair_predictions, rtol=1e-12)
    throughput.info["max_abs_diff"] = float(np.abs(rating - ours.rating).max())
    throughput(lambda: numpy_elom(m), m.n_matches, rounds=3)
    throughput.compare(lambda: _rate(m), m.n_matches)


@pytest.mark.parametrize("size", SIZES)
def bench_elom_python(throughput, size):
    m = first(_workload(size), PYTHON_MATCHES if size == "large" else 300)
    throughput.info.update(implementation="pure Python, game by game", size=size,
                           unit="matches", subsample=m.n_matches)
    ours = _rate(m)
    rating, games, pred, pair_pred = python_elom(m)
    np.testing.assert_allclose(rating, ours.rating, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(games, ours.games_played)
    np.testing.assert_allclose(pred, ours.predictions, rtol=1e-12)
    np.testing.assert_allclose(pair_pred, ours.pair_predictions, rtol=1e-12)
    throughput(lambda: python_elom(m), m.n_matches, rounds=3)
    throughput.compare(lambda: _rate(m), m.n_matches)
