"""Pairwise Elo throughput on the generated match workloads: 2M 1v1 games, 200k
four-player free-for-alls, 20k eight-player free-for-alls and 200k 2v2 matches among 50k
players (``bench.generate_matches``; the smoke run uses 1/2000 of each).

The baseline is a pure-Python pairwise Elo (match by match, every pair a game, K shared
among the opponents, team rating = mean of its players), with the same predictions, on
a 20k-match subsample of each workload; it is checked equal to fastrate before its time
counts. (Matches are sequential, so there is no vectorised NumPy form.) Throughput is
in matches per second; ``bench_pairwise_elo_fastrate`` times the full run and the
final-only one (``rate(..., predictions=False)``, checked to give the same ratings to
the bit) (``predictions``).

    pytest bench/bench_pairwise_elo.py --benchmark-only -m large
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.generate_matches import first, matches_workload

pairwise_elo = pytest.importorskip("fastrate.ratings.pairwise_elo")

CONFIG = pairwise_elo.PairwiseEloConfig()
SHAPES = ("1v1", "ffa4", "ffa8", "2v2")
PYTHON_MATCHES = 20_000
SMOKE_SCALE = 0.0005
SIZES = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large)]


def _workload(shape: str, size: str):
    return matches_workload(shape, scale=1.0 if size == "large" else SMOKE_SCALE)


def _rate(m, predictions=True):
    return pairwise_elo.rate(m, CONFIG, predictions=predictions)


@pytest.mark.parametrize("predictions", [True, False], ids=["predictions", "final"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
def bench_pairwise_elo_fastrate(throughput, shape, size, predictions):
    m = _workload(shape, size)
    throughput.info.update(implementation="fastrate", size=size, shape=shape, unit="matches",
                           predictions=predictions)
    r = throughput(lambda: _rate(m, predictions), m.n_matches)
    assert np.isfinite(r.rating).all()
    if not predictions:
        np.testing.assert_array_equal(r.rating, _rate(m).rating)


def python_pairwise_elo(m, config=CONFIG):
    """Pairwise Elo in pure Python (weights all 1). Returns (rating, games_played, pred,
    pair_pred)."""
    mto, tpo = m.match_team_offsets.tolist(), m.team_player_offsets.tolist()
    player, rank = m.player.tolist(), m.rank.tolist()
    rating = [config.initial_rating] * m.n_players
    games = [0] * m.n_players
    k, scale = config.k, config.scale
    pred, pair_pred = [], []
    for g in range(m.n_matches):
        t0, t1 = mto[g], mto[g + 1]
        teams = [player[tpo[t]:tpo[t + 1]] for t in range(t0, t1)]
        rs = [sum(rating[p] for p in team) / len(team) for team in teams]
        rk = rank[t0:t1]
        top = max(rs)
        xs = [10.0 ** ((r - top) / scale) for r in rs]
        total = sum(xs)
        pred.extend(x / total for x in xs)
        n = len(teams)
        delta = [0.0] * n
        for i in range(n):
            for j in range(i + 1, n):
                e = 1.0 / (1.0 + 10.0 ** ((rs[j] - rs[i]) / scale))
                pair_pred.append(e)
                s = 1.0 if rk[i] < rk[j] else (0.5 if rk[i] == rk[j] else 0.0)
                delta[i] += s - e
                delta[j] -= s - e
        kk = k / (n - 1)
        for team, d in zip(teams, delta):
            for p in team:
                rating[p] += kk * d
                games[p] += 1
    return np.array(rating), np.array(games), np.array(pred), np.array(pair_pred)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
def bench_pairwise_elo_python(throughput, shape, size):
    m = first(_workload(shape, size), PYTHON_MATCHES)
    throughput.info.update(implementation="pure Python", size=size, shape=shape,
                           unit="matches", subsample=m.n_matches)
    ours = _rate(m)
    rating, games, pred, pair_pred = python_pairwise_elo(m)
    np.testing.assert_allclose(rating, ours.rating, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(games, ours.games_played)
    np.testing.assert_allclose(pred, ours.predictions, rtol=1e-12)
    np.testing.assert_allclose(pair_pred, ours.pair_predictions, rtol=1e-12)
    throughput.info["max_abs_diff"] = float(np.abs(rating - ours.rating).max())
    throughput(lambda: python_pairwise_elo(m), m.n_matches, rounds=3)
    throughput.compare(lambda: _rate(m), m.n_matches)
