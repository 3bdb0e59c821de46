"""Codeforces rating throughput: one big contest, and many small ones.

* ``contest``: one contest of 30,000 entrants (``large``; 300 in the smoke run), old
  ratings ~ N(1500, 350) rounded with a fifth of new entrants at 1500, standings a noisy
  order of the ratings with ties. Timed through :func:`contest_update` (arrays) and
  :func:`rate` (a one-match Matches, old ratings as ``initial``; without the 450M
  pair predictions of a 30,000-team match).
* ``ffa8``: the 20k eight-player free-for-alls of ``bench.generate_matches`` as 20k
  contests (``rate``), for the per-contest overhead; with the predictions and final
  only (``rate(..., predictions=False)``, checked to give the same ratings to the bit)
  (``predictions``).

Baselines, each checked equal to fastrate (performances and rating changes exactly,
seeds to 1e-12) before its time counts: the naive form of SPEC §2.4 vectorised with
NumPy (``n x n`` matrices, every entrant's binary search one step at a time: 13 steps of
``n^2`` powers) on 2,000 entrants, and the same in pure Python (a loop per entrant, a sum
per step) on 300. Throughput is in entrants per second.

    pytest bench/bench_codeforces.py --benchmark-only -m large
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.generate_matches import matches_workload
from fastrate.data import Matches

cf = pytest.importorskip("fastrate.ratings.codeforces")

SIZES = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large)]
ENTRANTS = {"small": 300, "large": 30_000}
NUMPY_ENTRANTS = {"small": 100, "large": 2_000}
PYTHON_ENTRANTS = {"small": 40, "large": 300}


def contest(n: int, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Old ratings and places (lower is better, ties) of an ``n``-entrant contest."""
    rng = np.random.default_rng(seed)
    r = np.round(rng.normal(1500.0, 350.0, n)).astype(np.int64)
    r[rng.random(n) < 0.2] = 1500
    points = np.round((r + rng.normal(0.0, 300.0, n)) / 25.0)  # ties: equal points
    places = np.empty(n, dtype=np.int64)
    order = np.argsort(-points, kind="stable")
    srt = -points[order]
    places[order] = np.searchsorted(srt, srt, side="left") + 1
    return r, places


def _one_match(r: np.ndarray, places: np.ndarray) -> tuple[Matches, dict[str, float]]:
    names = np.array([f"u{i}" for i in range(r.shape[0])], dtype=object)
    m = Matches.from_arrays(np.zeros(r.shape[0], np.int64), None, names, rank=places)
    return m, dict(zip(names.tolist(), r.astype(float).tolist()))


@pytest.mark.parametrize("size", SIZES)
def bench_codeforces_contest_update(throughput, size):
    r, places = contest(ENTRANTS[size])
    throughput.info.update(implementation="fastrate contest_update", size=size,
                           unit="entrants")
    res = throughput(lambda: cf.contest_update(r, places), r.shape[0])
    assert res.delta.sum() <= 0


@pytest.mark.parametrize("size", SIZES)
def bench_codeforces_rate_one_contest(throughput, size):
    r, places = contest(ENTRANTS[size])
    m, initial = _one_match(r, places)
    throughput.info.update(implementation="fastrate rate (Matches, initial ratings)",
                           size=size, unit="entrants")
    res = throughput(lambda: cf.rate(m, initial=initial, pair_predictions=False), r.shape[0])
    want = cf.contest_update(r, places)
    idx = [res.players.id_of(f"u{i}") for i in range(r.shape[0])]
    np.testing.assert_array_equal(res.rating[idx], r + want.delta)


@pytest.mark.parametrize("predictions", [True, False], ids=["predictions", "final"])
@pytest.mark.parametrize("size", SIZES)
def bench_codeforces_ffa8(throughput, size, predictions):
    m = matches_workload("ffa8", scale=1.0 if size == "large" else 0.01)
    throughput.info.update(implementation="fastrate rate", size=size, unit="contests",
                           entrants_per_contest=8, predictions=predictions)
    res = throughput(lambda: cf.rate(m, predictions=predictions), m.n_matches)
    assert np.isfinite(res.rating).all()
    if not predictions:
        np.testing.assert_array_equal(res.rating, cf.rate(m).rating)


# ----------------------------------------------------------------------------------
# naive baselines (SPEC §2.4 as written: quadratic, a binary search per entrant)


def _tdiv(a, b):
    q = np.abs(a) // b
    return np.where(a < 0, -q, q)


def numpy_contest(r: np.ndarray, places: np.ndarray):
    """The naive algorithm vectorised with NumPy: ``(seed, performance, delta)``."""
    n = r.shape[0]
    rank = np.searchsorted(np.sort(places), places, side="right")
    rf = r.astype(np.float64)
    p = 1.0 / (1.0 + np.power(10.0, (rf[:, None] - rf[None, :]) / 400.0))  # P(j beats i)
    np.fill_diagonal(p, 0.0)
    seed = 1.0 + p.sum(axis=1)
    m = np.sqrt(rank * seed)
    left = np.ones(n, dtype=np.int64)
    right = np.full(n, 8000, dtype=np.int64)
    eye = np.eye(n, dtype=bool)
    for _ in range(13):  # 2^13 > 7999: every search is done
        mid = (left + right) // 2
        q = 1.0 / (1.0 + np.power(10.0, (mid[:, None] - rf[None, :]) / 400.0))
        q[eye] = 0.0
        lower = 1.0 + q.sum(axis=1) < m
        active = right - left > 1
        right = np.where(active & lower, mid, right)
        left = np.where(active & ~lower, mid, left)
    d = _tdiv(left - r, 2)
    d = d + (_tdiv(-d.sum(), n) - 1)
    order = np.lexsort((rank, -r))
    s = min(n, math.isqrt(16 * n))
    d = d + min(max(int(_tdiv(-d[order[:s]].sum(), s)), -10), 0)
    return seed, left, d


def python_contest(r: list[int], places: list[int]):
    """The naive algorithm in pure Python: ``(seed, performance, delta)`` lists."""
    n = len(r)

    def tdiv(a, b):
        return abs(a) // b * (1 if a >= 0 else -1)

    rank = [sum(1 for q in places if q <= p) for p in places]
    seed = [1.0 + sum(1.0 / (1.0 + 10.0 ** ((r[i] - r[j]) / 400.0))
                      for j in range(n) if j != i) for i in range(n)]
    perf, delta = [], []
    for i in range(n):
        m = math.sqrt(rank[i] * seed[i])
        left, right = 1, 8000
        while right - left > 1:
            mid = (left + right) // 2
            s = 1.0 + sum(1.0 / (1.0 + 10.0 ** ((mid - r[j]) / 400.0))
                          for j in range(n) if j != i)
            if s < m:
                right = mid
            else:
                left = mid
        perf.append(left)
        delta.append(tdiv(left - r[i], 2))
    inc = tdiv(-sum(delta), n) - 1
    delta = [d + inc for d in delta]
    order = sorted(range(n), key=lambda i: (-r[i], rank[i]))
    s = min(n, math.isqrt(16 * n))
    inc = min(max(tdiv(-sum(delta[i] for i in order[:s]), s), -10), 0)
    return seed, perf, [d + inc for d in delta]


def _check(seed, perf, delta, r, places):
    ours = cf.contest_update(r, places)
    np.testing.assert_allclose(seed, ours.seed, rtol=1e-12)
    np.testing.assert_array_equal(perf, ours.performance)
    np.testing.assert_array_equal(delta, ours.delta)


@pytest.mark.parametrize("size", SIZES)
def bench_codeforces_numpy_naive(throughput, size):
    r, places = contest(NUMPY_ENTRANTS[size])
    throughput.info.update(implementation="numpy naive (n x n per search step)", size=size,
                           unit="entrants", subsample=r.shape[0])
    _check(*numpy_contest(r, places), r, places)
    throughput(lambda: numpy_contest(r, places), r.shape[0], rounds=3)
    throughput.compare(lambda: cf.contest_update(r, places), r.shape[0])


@pytest.mark.parametrize("size", SIZES)
def bench_codeforces_python_naive(throughput, size):
    r, places = contest(PYTHON_ENTRANTS[size])
    rl, pl = r.tolist(), places.tolist()
    throughput.info.update(implementation="pure Python naive", size=size, unit="entrants",
                           subsample=r.shape[0])
    _check(*python_contest(rl, pl), r, places)
    throughput(lambda: python_contest(rl, pl), r.shape[0], rounds=3)
    throughput.compare(lambda: cf.contest_update(r, places), r.shape[0])
