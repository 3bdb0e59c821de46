"""Placement-game statistics throughput on the synthetic data of
:mod:`bench.generate_placement`.

* ``bench_placement_stats`` -- :func:`~fastrate.stats.placement.placement_stats` with
  ``points`` (every per-player column: games, chi-square, p-value, effect size, TAPL,
  TAZD, TAKBE, TAZD*, CI, games behind, PPRG, GPG) of ``(players, 7)`` counts, int64 and
  float64; ``implementation="numpy"`` is the same columns in plain vectorised NumPy
  (checked equal first), with fastrate timed on the same input (``fastrate_vs_this``).
  Sizes: ``small`` 10,000 players (default run), ``large`` 1,000,000 (SPEC target:
  <= 0.2 s). Throughput in players/s.
* ``bench_placement_pga`` -- :func:`~fastrate.stats.placement.pga` of a seating log:
  ``small`` 100,000 seatings of 5,000 players, ``large`` 10,000,000 seatings of 200,000
  players (~1.49M games, ~58M ordered pairs; SPEC target: <= 10 s); ``order="shuffled"``
  is the same log in random row order (the sorting path). Throughput in seatings/s.
  ``bench_placement_pga_vs_numpy`` times the pair-record approach in plain NumPy (all
  i < j pairs of a game, ``np.unique`` of the pair keys, ``bincount``, ``searchsorted``
  for APC) on the small log, with fastrate on the same input.
* ``bench_placement_pga_planted`` (not timed) -- the planted affiliate pairs, and only
  they, are flagged in both directions.

    pytest bench/bench_placement.py --benchmark-only
    pytest bench/bench_placement.py --benchmark-only -m large
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.generate_placement import place_counts_matrix, seating_workload
from fastrate.stats import placement as P

STATS_SIZES = {"small": 10_000, "large": 1_000_000}
#: seating logs: (seatings, players)
PGA_SIZES = {"small": (100_000, 5_000), "large": (10_000_000, 200_000)}
SIZE_PARAMS = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large)]

_COUNTS: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}


def counts_of(n_players: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(counts, points) of a size and dtype, built once per process."""
    key = (n_players, dtype)
    if key not in _COUNTS:
        counts = place_counts_matrix(n_players, dtype=np.dtype(dtype))
        points = np.random.default_rng(1).normal(0.0, 500.0, n_players).round()
        _COUNTS[key] = counts, points
    return _COUNTS[key]


# ----------------------------------------------------------------------------------
# a plain NumPy baseline of the per-player statistics (KDice defaults, k = 7)


def numpy_stats(counts: np.ndarray, points: np.ndarray) -> dict[str, np.ndarray]:
    """The columns of ``placement_stats(counts, points=points)`` (uniform reference),
    vectorised over the players with NumPy only."""
    k = counts.shape[1]
    c = counts.astype(np.float64)
    n = c.sum(axis=1)
    uniform = np.full(k, 1.0 / k)
    tazd = P.reference_profile("tazd", k)
    takbe = P.reference_profile("takbe", k)
    place = np.arange(k, dtype=np.float64)
    mu = float(tazd @ (place + 1))
    sigma = math.sqrt(float(tazd @ (place + 1 - mu) ** 2))
    payoff = np.array(P.KDICE_PAYOFF)
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(n)
        out = {"games": n}

        def chi2(ref: np.ndarray) -> np.ndarray:
            e = n[:, None] * ref
            return np.where(n > 0, ((c - e) ** 2 / e).sum(axis=1), np.nan)

        x2 = chi2(uniform)
        h = x2 / 2  # df = 6: Q = e^-h (1 + h + h^2 / 2)
        out["chi2"] = x2
        out["p_value"] = np.exp(-h) * (1.0 + h + h * h / 2.0)
        out["effect_size"] = np.sqrt(x2 / n)
        out["tapl"] = x2 / root * 1000.0
        out["tazd"] = chi2(tazd) / root * 1000.0
        out["takbe"] = chi2(takbe) / root * 1000.0
        out["tazd_star"] = root * (mu - 1.0 - (c @ place) / n) / sigma * 1000.0
        ci = (c @ payoff) / n / P.KDICE_BUY_IN
        out["ci"] = ci
        behind = (c @ place) / (k - 1) + 0.5 * (n.max() - n)
        out["games_behind"] = behind - behind.min()
        out["pprg"] = np.where(n > 0, points / root, np.nan)
        out["gpg"] = np.where((n > 0) & (ci > 0), np.minimum(points / n / ci, P.GPG_CAP),
                              np.nan)
    return out


@pytest.mark.parametrize("size", SIZE_PARAMS)
@pytest.mark.parametrize("dtype", ["int64", "float64"])
@pytest.mark.parametrize("implementation", ["fastrate", "numpy"])
def bench_placement_stats(throughput, implementation, dtype, size):
    n_players = STATS_SIZES[size]
    counts, points = counts_of(n_players, dtype)
    throughput.info.update(implementation=implementation, size=size, dtype=dtype,
                           unit="players", places=counts.shape[1])

    def fast():
        return P.placement_stats(counts, points=points)

    if implementation == "numpy":
        got, want = numpy_stats(counts, points), fast()
        assert got.keys() == want.keys()
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-9, atol=1e-12,
                                       err_msg=name)
        fn = lambda: numpy_stats(counts, points)  # noqa: E731
    else:
        fn = fast
    result = throughput(fn, n_players, rounds=None if size == "small" else 15)
    assert result["gpg"].shape == (n_players,)
    if throughput.enabled:
        throughput.info["players_per_s"] = throughput.info["games_per_s"]
        throughput.info["players_per_s_median"] = throughput.info["games_per_s_median"]
    if implementation == "numpy":
        throughput.compare(fast, n_players)


# ----------------------------------------------------------------------------------
# PGA


def numpy_pga(game: np.ndarray, player: np.ndarray, seat: np.ndarray, watchers: np.ndarray,
              capacity: float = 7.0, p_watch: float = 1.0) -> dict[str, np.ndarray]:
    """PGA by pair records in plain NumPy (rows in game-then-seat order, players
    0 .. m-1): every i < j of a game as (x=i, y=j, joined) and (x=j, y=i, before, with
    x's watchers and empty seats), ``np.unique`` of the keys x*m + y, sums by
    ``bincount``, APC by ``searchsorted`` of the mirror keys; the p-value by SciPy's
    regularised incomplete gamma."""
    from scipy.special import gammainc

    m = int(player.max()) + 1
    new = np.r_[True, game[1:] != game[:-1]]
    start = np.maximum.accumulate(np.where(new, np.arange(game.shape[0]), 0))
    empty = capacity - seat
    i_parts, j_parts = [], []
    for d in range(1, int(capacity)):
        j = np.arange(d, game.shape[0])
        ok = j - d >= start[j]
        i_parts.append(j[ok] - d)
        j_parts.append(j[ok])
    i, j = np.concatenate(i_parts), np.concatenate(j_parts)
    key = np.concatenate([player[i] * m + player[j], player[j] * m + player[i]])
    joined = np.r_[np.ones(i.shape[0]), np.zeros(i.shape[0])]
    w_before = np.r_[np.zeros(i.shape[0]), watchers[j]]
    e_before = np.r_[np.zeros(i.shape[0]), empty[j]]
    ukey, inv = np.unique(key, return_inverse=True)
    x, y = ukey // m, ukey % m
    kk = ukey.shape[0]
    joins = np.bincount(inv, weights=joined, minlength=kk)
    n = np.bincount(player, minlength=m)[x] - np.bincount(inv, weights=1 - joined,
                                                          minlength=kk)
    wsum = np.bincount(player, weights=watchers, minlength=m)[x] - np.bincount(
        inv, weights=w_before, minlength=kk)
    esum = np.bincount(player, weights=empty, minlength=m)[x] - np.bincount(
        inv, weights=e_before, minlength=kk)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (n > 0) & (esum > 0)
        lam = np.where(ok, p_watch * n * esum / wsum, np.where(n > 0, 0.0, np.nan))
        ppc = np.where(ok, joins / n * np.sqrt(wsum * n / (p_watch * esum)), np.nan)
        pval = np.where(joins > 0, gammainc(np.maximum(joins, 1), lam), 1.0)
    return {"x": x, "y": y, "games": n, "joins": joins, "expected": lam, "ppc": ppc,
            "apc": ppc[np.searchsorted(ukey, y * m + x)], "p_value": np.where(ok, pval,
                                                                           np.nan)}


def _log(size: str, order: str = "game") -> dict:
    rows, players = PGA_SIZES[size]
    d = seating_workload(rows, players)
    if order == "shuffled":
        o = np.random.default_rng(2).permutation(rows)
        d = {**d, **{c: d[c][o] for c in ("game", "player", "seat", "watchers")}}
    return d


def _run_pga(d: dict) -> dict[str, np.ndarray]:
    return P.pga(d["game"], d["player"], d["seat"], d["watchers"], capacity=d["capacity"])


@pytest.mark.parametrize("size", SIZE_PARAMS)
@pytest.mark.parametrize("order", ["game", "shuffled"])
def bench_placement_pga(throughput, order, size):
    d = _log(size, order)
    rows = d["game"].shape[0]
    throughput.info.update(implementation="fastrate", size=size, order=order,
                           unit="seatings", players=PGA_SIZES[size][1])
    result = throughput(lambda: _run_pga(d), rows, rounds=None if size == "small" else 5)
    throughput.info["pairs"] = int(result["x"].shape[0])
    if throughput.enabled:
        throughput.info["seatings_per_s"] = throughput.info["games_per_s"]
        throughput.info["seatings_per_s_median"] = throughput.info["games_per_s_median"]
    assert int(result["flagged"].sum()) == 2 * d["affiliates"].shape[0]


def bench_placement_pga_vs_numpy(throughput):
    pytest.importorskip("scipy")
    d = _log("small")
    rows = d["game"].shape[0]
    fast, base = _run_pga(d), numpy_pga(d["game"], d["player"], d["seat"], d["watchers"])
    order = np.lexsort((base["y"], base["x"]))
    mine = np.lexsort((fast["y"], fast["x"]))
    for name in ("x", "y", "games", "joins", "expected", "ppc", "apc", "p_value"):
        np.testing.assert_allclose(fast[name][mine], base[name][order], rtol=1e-9,
                                   err_msg=name)
    throughput.info.update(implementation="numpy pair records", size="small",
                           unit="seatings")
    throughput(lambda: numpy_pga(d["game"], d["player"], d["seat"], d["watchers"]), rows,
               rounds=3)
    throughput.compare(lambda: _run_pga(d), rows)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_placement_pga_planted(size):
    """Not timed: the planted affiliates are flagged both ways, and nobody else is."""
    d = _log(size)
    r = _run_pga(d)
    flagged = set(zip(r["x"][r["flagged"]].tolist(), r["y"][r["flagged"]].tolist()))
    planted = {(a, b) for a, b in d["affiliates"].tolist()}
    assert flagged == planted | {(b, a) for a, b in planted}
    i = np.flatnonzero(r["flagged"])
    assert (r["p_value"][i] < 1e-6).all() and (r["apc"][i] >= 3).all()
