"""Bridge throughput (table results per second) on the synthetic online-tournament log
of :mod:`bench.generate_bridge` (the shape of the thesis's OKbridge data).

* ``bench_bridge_cross_imps`` -- ``Boards.score("cross-imps")``: ``small`` (100k
  results, default run) and ``large`` (the 22M-result set, 686k boards);
* ``bench_bridge_cross_imps_vs_naive`` -- boards of 1,000 tables (20 boards): the
  O(T^2) double loop (:func:`cross_imps_naive`, compiled with the house kernel options,
  the baseline), with the fast version timed on the same input (``fastrate_vs_this`` =
  the speed-up; the results are checked equal bit for bit first);
* ``bench_bridge_butler`` / ``bench_bridge_matchpoints`` -- the other comparisons;
* ``bench_bridge_boards`` -- :func:`fastrate.io.boards.read_boards` of the Parquet file
  with 3-day periods (read, group by (event, board), intern players, order in time,
  check seats);
* ``bench_bridge_end_to_end`` (``large``) -- ``python -m bench.bridge_end_to_end --json``
  in a fresh process: read the 22M Parquet -> Boards (3-day periods) -> cross-IMPs ->
  bridge Elo, with stage timings and the process's peak RSS (targets: <= 15 s, <= 6 GB);
  skipped while :mod:`fastrate.bridge.bridge_elo` is missing. Its small form runs the
  same pipeline in process on the 100k file.

The Parquet files are written once into ``bench/_data`` (the 22M file takes about half a
minute and 290 MB).

    pytest bench/bench_bridge.py --benchmark-only                 # small
    pytest bench/bench_bridge.py --benchmark-only -m large        # the 22M set
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from bench.generate import REPO
from bench.generate_bridge import SMALL, THESIS, bridge_arrays, bridge_parquet
from fastrate._numba import kernel
from fastrate.bridge import scoring
from fastrate.io.boards import read_boards

SIZES = {"small": SMALL["n_results"], "large": THESIS["n_results"]}
SIZE_PARAMS = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large)]
#: the 1,000-table comparison: 20 boards
NAIVE_BOARDS, NAIVE_TABLES = 20, 1_000
#: SPEC targets of the end-to-end run on the 22M set
E2E_SECONDS, E2E_PEAK_MIB = 15.0, 6 * 1024


def _elo_module():
    try:
        from fastrate.bridge import bridge_elo
    except ImportError:
        return None
    return bridge_elo


_BOARDS: dict[str, object] = {}


def boards_of(size: str):
    """Boards of a size, read once per process (the large one holds ~2 GB)."""
    if size not in _BOARDS:
        _BOARDS.clear()  # one size at a time
        _BOARDS[size] = read_boards(bridge_parquet(SIZES[size]), period="3d")
    return _BOARDS[size]


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_bridge_cross_imps(throughput, size):
    boards = boards_of(size)
    throughput.info.update(size=size, n_boards=boards.n_boards, unit="results")
    r = throughput(lambda: boards.score("cross-imps"), boards.n_results,
                   rounds=None if size == "small" else 5)
    assert r.ns.shape == (boards.n_results,)
    assert np.nanmax(np.abs(r.ns)) <= 24.0


@kernel
def _cross_imps_naive_kernel(offsets, s, thresholds, out):  # pragma: no cover - jit
    """The O(T^2) double loop: mean over u != t of IMP(s_t - s_u)."""
    nk = thresholds.shape[0]
    for b in range(offsets.shape[0] - 1):
        lo = offsets[b]
        hi = offsets[b + 1]
        n = hi - lo
        for i in range(lo, hi):
            if n < 2:
                out[i] = np.nan
                continue
            total = 0
            for j in range(lo, hi):
                d = s[i] - s[j]
                a = d if d >= 0 else -d
                k = 0
                while k < nk and a >= thresholds[k]:
                    k += 1
                total += k if d >= 0 else -k
            out[i] = total / (n - 1)


def cross_imps_naive(offsets: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Average cross-IMPs by the double loop (the baseline; NaN for a lone result)."""
    out = np.empty(s.shape[0], dtype=np.float64)
    _cross_imps_naive_kernel(offsets, s, scoring.IMP_THRESHOLDS, out)
    return out


def bench_bridge_cross_imps_vs_naive(throughput):
    arr = bridge_arrays(NAIVE_BOARDS * NAIVE_TABLES, tables=NAIVE_TABLES, sort_by_time=False)
    key = arr["event"].astype(np.int64) * 64 + arr["board"]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    off = np.r_[starts, key.shape[0]].astype(np.int64)
    s = arr["ns_score"].astype(np.float64)
    assert (np.diff(off) == NAIVE_TABLES).all()
    fast = scoring.cross_imps(off, s).ns
    slow = cross_imps_naive(off, s)
    np.testing.assert_array_equal(fast, slow)
    throughput.info.update(implementation="naive O(T^2)", tables=NAIVE_TABLES,
                           n_boards=NAIVE_BOARDS, unit="results")
    throughput(lambda: cross_imps_naive(off, s), s.shape[0], rounds=3)
    throughput.compare(lambda: scoring.cross_imps(off, s), s.shape[0])


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_bridge_butler(throughput, size):
    boards = boards_of(size)
    throughput.info.update(size=size, unit="results")
    r = throughput(lambda: boards.score("butler", drop="one"), boards.n_results,
                   rounds=None if size == "small" else 3)
    assert r.datum.shape == (boards.n_boards,)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_bridge_matchpoints(throughput, size):
    boards = boards_of(size)
    throughput.info.update(size=size, unit="results")
    r = throughput(lambda: boards.score("matchpoints"), boards.n_results,
                   rounds=None if size == "small" else 3)
    assert r.top.shape == (boards.n_boards,)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_bridge_boards(throughput, size):
    path = bridge_parquet(SIZES[size])
    throughput.info.update(size=size, unit="results", file_mib=path.stat().st_size / 2**20)
    b = throughput(lambda: read_boards(path, period="3d"), SIZES[size],
                   rounds=None if size == "small" else 3)
    assert b.n_results == SIZES[size] and b.board_period is not None


def bench_bridge_end_to_end_small(throughput):
    if _elo_module() is None:
        pytest.skip("fastrate.bridge.bridge_elo is not available yet")
    from bench.bridge_end_to_end import pipeline

    path = bridge_parquet(SIZES["small"])
    throughput.info.update(size="small", unit="results")
    res = throughput(lambda: pipeline(path), SIZES["small"])
    assert res["n_results"] == SIZES["small"]


@pytest.mark.large
def bench_bridge_end_to_end(throughput):
    """Three fresh processes (kernels from Numba's cache, warmed on the 100k file), so
    the peak RSS is the pipeline's own; the rate is of the best run's pipeline time."""
    if _elo_module() is None:
        pytest.skip("fastrate.bridge.bridge_elo is not available yet")
    bridge_parquet(SIZES["large"])  # written before the clock starts
    bridge_parquet(SIZES["small"])
    runs: list[dict] = []

    def run() -> None:
        proc = subprocess.run([sys.executable, "-m", "bench.bridge_end_to_end", "--json"],
                              cwd=REPO, capture_output=True, text=True, check=True)
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))

    throughput.info.update(size="large", unit="results")
    throughput(run, SIZES["large"], rounds=3, warmup=False)
    best = min(runs, key=lambda r: r["total"])
    peak = max(r["peak_rss_mib"] for r in runs)
    throughput.info.update(
        process_seconds=throughput.info.get("seconds"),
        **{k: best[k] for k in ("read", "boards", "cross_imps", "bridge_elo", "n_boards",
                                "n_periods")},
        peak_rss_mib=peak,
        within_targets=bool(best["total"] <= E2E_SECONDS and peak <= E2E_PEAK_MIB))
    if throughput.enabled:
        throughput.set_rate(best["n_results"] / best["total"], best["total"],
                            "best pipeline time of 3 fresh processes "
                            "(python -m bench.bridge_end_to_end)")
        throughput.info["games_per_s_median"] = best["n_results"] / float(
            np.median([r["total"] for r in runs]))
