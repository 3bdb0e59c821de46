"""Glicko throughput: fastrate against a vectorised NumPy version, the C baseline and
elote's GlickoCompetitor.

Glicko with rating periods (``small``: 1k players, 20k games, 20 periods; ``large``:
100k players, 2M games, 20 periods; ATP: monthly periods). The NumPy baseline
vectorises each period (every game of a period uses the pre-period values, so the
sums are ``np.bincount``s) and the C baseline is the same loop as fastrate's kernel;
both are checked against fastrate before their time counts. ``elote`` updates after
every game (no rating periods), so it is timed only, on a 20k-game subsample.

    pytest bench/bench_glicko.py --benchmark-only -m large
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest

from bench.conftest import HUGE_PARAM, SIZE_PARAMS
from bench.generate import subsample

glicko = pytest.importorskip("fastrate.ratings.glicko")

PEER_GAMES = 20_000
CONFIG = glicko.GlickoConfig()
NO_PERIOD = np.iinfo(np.int64).min


def _rate(games):
    return glicko.rate(games, CONFIG)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_glicko_fastrate(throughput, games, size):
    throughput.info.update(implementation="fastrate", size=size)
    result = throughput(lambda: _rate(games), games.n_games)
    assert result.rd.shape[0] == games.n_players


def period_bounds(period: np.ndarray) -> np.ndarray:
    cut = np.flatnonzero(period[1:] != period[:-1]) + 1
    return np.concatenate(([0], cut, [period.shape[0]])).astype(np.int64)


def numpy_glicko(games, c: float = CONFIG.c, max_rd: float = CONFIG.max_rd,
                 initial_rating: float = CONFIG.initial_rating,
                 initial_rd: float = CONFIG.initial_rd) -> tuple[np.ndarray, np.ndarray]:
    """Glicko with NumPy, one vectorised step per rating period (fastrate's rules:
    inactivity growth ``c^2`` per period since the last rated one, capped at
    ``max_rd``, applied when a player next plays). Returns (rating, rd)."""
    n = games.n_players
    rating = np.full(n, float(initial_rating))
    rd = np.full(n, float(initial_rd))
    last = np.full(n, NO_PERIOD, dtype=np.int64)
    q = math.log(10.0) / 400.0
    k3 = 3.0 * q * q / (math.pi * math.pi)
    c2, max_rd2 = c * c, max_rd * max_rd
    period = games.period if games.period is not None else np.zeros(games.n_games, np.int64)
    bounds = period_bounds(period)
    pred = np.empty(games.n_games)
    rd2 = np.empty(n)
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        p = int(period[lo])
        w, b, s = games.white[lo:hi], games.black[lo:hi], games.score[lo:hi]
        t = np.flatnonzero(np.bincount(w, minlength=n) + np.bincount(b, minlength=n))
        v = rd[t] ** 2
        lt = last[t]
        grow = (lt != NO_PERIOD) & (p > lt)
        v = np.where(grow, np.minimum(v + c2 * (p - np.where(grow, lt, p)), max_rd2), v)
        rd2[t] = v
        qg_w = q / np.sqrt(1.0 + k3 * rd2[w])
        qg_b = q / np.sqrt(1.0 + k3 * rd2[b])
        diff = rating[w] - rating[b]
        e_ab = 1.0 / (1.0 + np.exp(-qg_b * diff))
        e_ba = 1.0 / (1.0 + np.exp(qg_w * diff))
        dsum = (np.bincount(w, qg_b * qg_b * e_ab * (1.0 - e_ab), minlength=n)
                + np.bincount(b, qg_w * qg_w * e_ba * (1.0 - e_ba), minlength=n))
        rsum = (np.bincount(w, qg_b * (s - e_ab), minlength=n)
                + np.bincount(b, qg_w * ((1.0 - s) - e_ba), minlength=n))
        pred[lo:hi] = 1.0 / (1.0 + np.exp(-q * diff / np.sqrt(1.0 + k3 * (rd2[w] + rd2[b]))))
        inv = 1.0 / v + dsum[t]
        rating[t] += rsum[t] / inv
        rd[t] = np.sqrt(1.0 / inv)
        last[t] = p
    return rating, rd


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_glicko_numpy(throughput, games, size):
    throughput.info.update(implementation="numpy per period", size=size)
    rating, rd = throughput(lambda: numpy_glicko(games), games.n_games, rounds=3)
    ours = _rate(games)
    np.testing.assert_allclose(rating, ours.rating, rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(rd, ours.rd, rtol=1e-9, atol=1e-7)
    throughput.compare(lambda: _rate(games), games.n_games)


@pytest.mark.parametrize("size", [*SIZE_PARAMS, HUGE_PARAM])
def bench_glicko_c_baseline(throughput, c_baseline, games, size):
    throughput.info.update(implementation="C -O2", size=size)
    out = {}

    def run():
        out["r"] = c_baseline.run("glicko", games, f"glicko_{size}",
                                  [repr(CONFIG.c), repr(CONFIG.max_rd)],
                                  repeats=5 if throughput.enabled else 1)

    throughput(run, games.n_games, rounds=1, warmup=False)
    gps, seconds, arrays = out["r"]
    ours = _rate(games)
    np.testing.assert_allclose(arrays["rating"], ours.rating, rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(arrays["rd"], ours.rd, rtol=1e-9, atol=1e-7)
    if throughput.enabled:
        throughput.set_rate(gps, seconds, "C loop timed with clock_gettime, best of 5")
        throughput.compare(lambda: _rate(games), games.n_games)


def elote_glicko(games, competitors):
    """elote's GlickoCompetitor, game by game (a period is dated one week)."""
    start = dt.datetime(2000, 1, 3)
    periods = games.period.tolist()
    for a, b, s, p in zip(games.white.tolist(), games.black.tolist(), games.score.tolist(),
                          periods):
        when = start + dt.timedelta(weeks=p)
        if s == 1.0:
            competitors[a].beat(competitors[b], match_time=when)
        elif s == 0.0:
            competitors[b].beat(competitors[a], match_time=when)
        else:
            competitors[a].tied(competitors[b], match_time=when)
    return competitors


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_glicko_elote(throughput, games, size):
    elote = pytest.importorskip("elote")
    sub = subsample(games, PEER_GAMES)
    throughput.info.update(implementation="elote GlickoCompetitor (game by game)", size=size,
                           subsample=sub.n_games)
    used = np.union1d(sub.white, sub.black).tolist()
    start = dt.datetime(2000, 1, 3)

    def fresh():
        return (sub, {p: elote.GlickoCompetitor(initial_rating=1500.0, initial_rd=350.0,
                                                initial_time=start) for p in used})

    comps = throughput(elote_glicko, sub.n_games, setup=fresh, rounds=3)
    assert all(math.isfinite(comps[p].rating) for p in used)
    throughput.compare(lambda: _rate(sub), sub.n_games)
