"""High-volume recomputation (issue 10): final ratings only, against the minimal C loop.

``elo.rate(games, predictions=False)`` (what ``fastrate rate`` runs without
``--predictions``) against ``bench/baseline_c/elo_ratings_only.c``: one rating array,
exp and two updates per game, nothing else. fastrate also counts games played (and last
periods): up to 2^17 players on a second thread beside its rating loop when Numba has
two (``NUMBA_NUM_THREADS=1`` times the one-thread path), above that in the same
records. Sizes: ``small`` (1k players, 20k games) in the smoke run; ``large`` (100k
players, 2M games) and ``huge`` (1M players, 50M games) on demand. The ratings are
checked equal to the C program's before its time counts.

    pytest bench/bench_high_volume.py --benchmark-only -m large
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from bench.conftest import HUGE_PARAM

elo = pytest.importorskip("fastrate.ratings.elo")

CONFIG = elo.EloConfig(k=32.0)
SIZES = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large), HUGE_PARAM]


def _final(games):
    return elo.rate(games, CONFIG, predictions=False)


@pytest.mark.parametrize("size", SIZES)
def bench_elo_final_ratings(throughput, games, size):
    throughput.info.update(implementation="fastrate predictions=False", size=size,
                           threads=numba.get_num_threads())
    result = throughput(lambda: _final(games), games.n_games, rounds=3)
    assert result.predictions is None


@pytest.mark.parametrize("size", SIZES)
def bench_elo_final_ratings_one_thread(throughput, games, size):
    """The same on one thread: up to 2^17 players the counts after the ratings."""
    throughput.info.update(implementation="fastrate predictions=False, 1 thread", size=size)
    saved = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        throughput(lambda: _final(games), games.n_games, rounds=3)
    finally:
        numba.set_num_threads(saved)


@pytest.mark.parametrize("size", SIZES)
def bench_elo_ratings_only_c(throughput, c_baseline, games, size):
    """The minimal C loop; ``fastrate_vs_this`` is fastrate's final-ratings path over it
    (target >= 0.9)."""
    throughput.info.update(implementation="C -O2, ratings only", size=size)
    out = {}

    def run():
        out["r"] = c_baseline.run("elo_ratings_only", games, f"elo_final_{size}",
                                  ["32", "1500"], repeats=5 if throughput.enabled else 1)

    throughput(run, games.n_games, rounds=1, warmup=False)
    gps, seconds, arrays = out["r"]
    np.testing.assert_allclose(arrays["rating"], _final(games).rating, rtol=0, atol=1e-9)
    if throughput.enabled:
        throughput.set_rate(gps, seconds, "C loop timed with clock_gettime, best of 5")
        throughput.compare(lambda: _final(games), games.n_games)
