"""Elo throughput: fastrate against a plain Python loop, the C baseline and elote.

Game-by-game Elo with constant K = 32 on the synthetic workloads (``small``: 1k
players, 20k games; ``large``: 100k players, 2M games) and on the ATP results. The
Python peer (``elote.EloCompetitor``) runs on a 20k-game subsample; every baseline is
checked against fastrate's ratings before its time counts.

    pytest bench/bench_elo.py --benchmark-only -m large     # the full table
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.conftest import HUGE_PARAM, SIZE_PARAMS
from bench.generate import subsample

elo = pytest.importorskip("fastrate.ratings.elo")

PEER_GAMES = 20_000
CONFIG = elo.EloConfig(k=32.0)


def _rate(games):
    return elo.rate(games, CONFIG)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_elo_fastrate(throughput, games, size):
    throughput.info.update(implementation="fastrate", size=size)
    result = throughput(lambda: _rate(games), games.n_games)
    assert result.rating.shape[0] == games.n_players


def python_elo(white: list, black: list, score: list, n_players: int, k: float = 32.0,
               initial: float = 1500.0) -> list:
    """Elo as a plain Python loop over lists (the 'no compiler' baseline)."""
    rating = [initial] * n_players
    factor = math.log(10.0) / 400.0
    exp = math.exp
    for a, b, s in zip(white, black, score):
        e = 1.0 / (1.0 + exp(-(rating[a] - rating[b]) * factor))
        d = k * (s - e)
        rating[a] += d
        rating[b] -= d
    return rating


@pytest.mark.parametrize("size", ["small"])
def bench_elo_python_loop(throughput, games, size):
    throughput.info.update(implementation="python loop", size=size)
    lists = (games.white.tolist(), games.black.tolist(), games.score.tolist())
    rating = throughput(lambda: python_elo(*lists, games.n_players), games.n_games, rounds=3)
    np.testing.assert_allclose(rating, _rate(games).rating, rtol=0, atol=1e-9)
    throughput.compare(lambda: _rate(games), games.n_games)


@pytest.mark.parametrize("size", [*SIZE_PARAMS, HUGE_PARAM])
def bench_elo_c_baseline(throughput, c_baseline, games, size):
    throughput.info.update(implementation="C -O2", size=size)
    out = {}

    def run():
        out["r"] = c_baseline.run("elo", games, f"elo_{size}", ["32", "1500"],
                                  repeats=5 if throughput.enabled else 1)

    throughput(run, games.n_games, rounds=1, warmup=False)
    gps, seconds, arrays = out["r"]
    np.testing.assert_allclose(arrays["rating"], _rate(games).rating, rtol=0, atol=1e-9)
    if throughput.enabled:
        throughput.set_rate(gps, seconds, "C loop timed with clock_gettime, best of 5")
        throughput.compare(lambda: _rate(games), games.n_games)


def elote_elo(games, competitors):
    """Rate ``games`` with elote's EloCompetitor objects (one per player)."""
    for a, b, s in zip(games.white.tolist(), games.black.tolist(), games.score.tolist()):
        if s == 1.0:
            competitors[a].beat(competitors[b])
        elif s == 0.0:
            competitors[b].beat(competitors[a])
        else:
            competitors[a].tied(competitors[b])
    return competitors


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_elo_elote(throughput, games, size):
    elote = pytest.importorskip("elote")
    sub = subsample(games, PEER_GAMES)
    throughput.info.update(implementation="elote EloCompetitor", size=size,
                           subsample=sub.n_games)
    used = np.union1d(sub.white, sub.black).tolist()

    def fresh():
        return (sub, {p: elote.EloCompetitor(initial_rating=1500.0, k_factor=32.0)
                      for p in used})

    comps = throughput(elote_elo, sub.n_games, setup=fresh, rounds=3)
    ours = _rate(sub).rating
    theirs = np.array([comps[p].rating for p in used])
    np.testing.assert_allclose(theirs, ours[used], rtol=0, atol=1e-6)
    throughput.compare(lambda: _rate(sub), sub.n_games)
