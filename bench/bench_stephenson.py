"""Stephenson throughput: fastrate against a vectorised NumPy version.

Stephenson's system (PlayerRatings ``steph``) with rating periods (``small``: 1k players,
20k games, 20 periods; ``large``: 100k players, 2M games, 20 periods; ATP: monthly
periods), with PlayerRatings' defaults and a small bonus. The NumPy baseline vectorises
each period (every game of a period uses the pre-period values, so the sums are
``np.bincount``s); it is checked against fastrate before its time counts, and the ratio
is recorded (``fastrate_vs_this``). R's PlayerRatings itself is not installed here.

    pytest bench/bench_stephenson.py --benchmark-only -m large
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.conftest import SIZE_PARAMS

stephenson = pytest.importorskip("fastrate.ratings.stephenson")

CONFIG = stephenson.StephensonConfig(bonus=0.5)
NO_PERIOD = np.iinfo(np.int64).min


def _rate(games):
    return stephenson.rate(games, CONFIG)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_stephenson_fastrate(throughput, games, size):
    throughput.info.update(implementation="fastrate", size=size)
    result = throughput(lambda: _rate(games), games.n_games)
    assert result.rd.shape[0] == games.n_players


def numpy_stephenson(games, cfg=CONFIG) -> tuple[np.ndarray, np.ndarray]:
    """Stephenson with NumPy, one vectorised step per rating period (fastrate's rules:
    growth ``c^2`` per period since the last rated one, one period for a new player,
    capped at ``max_rd``, applied when a player next plays). Returns (rating, rd)."""
    n = games.n_players
    rating = np.full(n, float(cfg.initial_rating))
    rd = np.full(n, float(cfg.initial_rd))
    last = np.full(n, NO_PERIOD, dtype=np.int64)
    q = math.log(10.0) / 400.0
    k3 = 3.0 * q * q / (math.pi * math.pi)
    c2, max_rd2, h2 = cfg.c**2, cfg.max_rd**2, cfg.h_dev**2
    bonus, lam = cfg.bonus / 100.0, cfg.neighbourhood / 100.0
    period = games.period if games.period is not None else np.zeros(games.n_games, np.int64)
    cut = np.flatnonzero(period[1:] != period[:-1]) + 1
    bounds = np.concatenate(([0], cut, [period.shape[0]]))
    rd2 = np.empty(n)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        p = int(period[lo])
        w, b, s = games.white[lo:hi], games.black[lo:hi], games.score[lo:hi]
        count = np.bincount(w, minlength=n) + np.bincount(b, minlength=n)
        t = np.flatnonzero(count)
        lt = last[t]
        lag = np.where(lt == NO_PERIOD, 1, p - np.where(lt == NO_PERIOD, p, lt))
        v = rd[t] ** 2
        rd2[t] = np.where(lag > 0, np.minimum(v + c2 * lag, max_rd2), v)
        qg_w = q / np.sqrt(1.0 + k3 * rd2[w])
        qg_b = q / np.sqrt(1.0 + k3 * rd2[b])
        diff = rating[w] - rating[b]
        e_ab = 1.0 / (1.0 + np.exp(-qg_b * diff))
        e_ba = 1.0 / (1.0 + np.exp(qg_w * diff))
        info = (np.bincount(w, qg_b * qg_b * e_ab * (1.0 - e_ab), minlength=n)
                + np.bincount(b, qg_w * qg_w * e_ba * (1.0 - e_ba), minlength=n))
        delta = (np.bincount(w, qg_b * ((s + bonus) - e_ab), minlength=n)
                 + np.bincount(b, qg_w * (((1.0 - s) + bonus) - e_ba), minlength=n))
        neigh = np.bincount(w, -diff, minlength=n) + np.bincount(b, diff, minlength=n)
        new = 1.0 / (1.0 / (rd2[t] + count[t] * h2) + info[t])
        rating[t] = rating[t] + new * delta[t] + lam * neigh[t] / count[t]
        rd[t] = np.sqrt(new)
        last[t] = p
    return rating, rd


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_stephenson_numpy(throughput, games, size):
    throughput.info.update(implementation="numpy per period", size=size)
    rating, rd = throughput(lambda: numpy_stephenson(games), games.n_games, rounds=3)
    ours = _rate(games)
    np.testing.assert_allclose(rating, ours.rating, rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(rd, ours.rd, rtol=1e-9, atol=1e-7)
    throughput.compare(lambda: _rate(games), games.n_games)
