"""Shared set-up of the benchmarks.

* ``large`` benchmarks (100k players / 2M games, the ATP file, subprocess timings) are
  deselected unless ``-m large`` is given or ``FASTRATE_BENCH_LARGE=1`` is set, so the
  default test run (``--benchmark-disable``: every benchmark runs once as a smoke test)
  stays at a few seconds.
* :func:`throughput` wraps pytest-benchmark: one warm-up call (compiles the kernels),
  then the timing; throughput goes to ``extra_info["games_per_s"]`` (from the fastest
  round; ``games_per_s_median`` from the median), and a table of every benchmark's
  throughput is printed at the end of the run.
* :func:`c_baseline` compiles the C reference programs of ``bench/baseline_c`` with
  ``cc -O2`` (skipped without a C compiler).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.generate import ATP_PATH, atp_games, workload

BENCH_DIR = Path(__file__).resolve().parent
C_DIR = BENCH_DIR / "baseline_c"

#: every timed benchmark of this run: (test id, extra_info)
RESULTS: list[tuple[str, dict[str, Any]]] = []


# ----------------------------------------------------------------------------------
# --benchmark-only with the project's addopts --benchmark-disable


def pytest_configure(config: pytest.Config) -> None:
    """``pyproject.toml`` adds ``--benchmark-disable`` (the smoke run); asking for
    ``--benchmark-only`` means timing is wanted, so enable it instead of failing with
    pytest-benchmark's "can't have both" error. (pytest-benchmark configures itself
    last, after this hook, when ``bench`` is on the command line or in testpaths.)"""
    if getattr(config.option, "benchmark_only", False):
        config.option.benchmark_enable = True


# (the `large` marker, on demand only: the repository's conftest.py)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    tr = terminalreporter
    tr.section("fastrate throughput (items/s from the fastest round; games unless named)")
    width = max(len(name) for name, _ in RESULTS)
    for name, info in RESULTS:
        gps = info.get("games_per_s")
        extra = ", ".join(f"{k}={_fmt(v)}" for k, v in info.items()
                          if k in _SUMMARY_KEYS)
        unit = str(info.get("unit", "games"))
        rate = f"{_fmt(gps):>10} {unit + '/s':<10}" if gps is not None else " " * 21
        tr.write_line(f"{name:<{width}}  {rate}  {extra}".rstrip())


_SUMMARY_KEYS = ("subsample", "fastrate_vs_this", "fastrate_with_predictions_vs_this",
                 "fastrate_games_per_s_same_input",
                 "seconds", "peak_ratio", "peak_mib", "input_mib", "traced_ratio",
                 "peak_rss_mib", "max_abs_diff", "extra_bytes_per_id", "local_s",
                 "dask_overhead_s", "dask_vs_local", "cluster_start_s")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        if abs(v) >= 1e5:
            return f"{v / 1e6:.2f}M"
        return f"{v:.4g}"
    return str(v)


# ----------------------------------------------------------------------------------
# timing helpers


def best_time(fn: Callable[[], Any], repeats: int = 5) -> float:
    """Fastest of ``repeats`` timed calls of ``fn`` (seconds)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


class Throughput:
    """Runs one benchmark and records games/s in its ``extra_info``."""

    def __init__(self, benchmark: Any, nodeid: str):
        self.benchmark = benchmark
        self.nodeid = nodeid
        self.info = benchmark.extra_info

    @property
    def enabled(self) -> bool:
        """False under ``--benchmark-disable`` (the smoke run): one call, no timing."""
        return bool(getattr(self.benchmark, "enabled", False))

    def __call__(self, fn: Callable[[], Any], n_games: int, *, rounds: int | None = None,
                 setup: Callable[[], Any] | None = None, warmup: bool = True) -> Any:
        """Time ``fn`` (after a warm-up call when enabled) over ``n_games`` games.

        ``rounds=None`` lets pytest-benchmark choose; slow implementations pass a small
        fixed number. ``setup`` (a callable returning the argument tuple of ``fn``)
        runs untimed before every round.
        """
        self.info["n_games"] = int(n_games)
        if setup is not None:
            def target(*args: Any) -> Any:
                return fn(*args)

            def make() -> tuple[tuple[Any, ...], dict[str, Any]]:
                return setup(), {}

            if self.enabled and warmup:
                target(*setup())
            result = self.benchmark.pedantic(target, setup=make, rounds=rounds or 3,
                                             iterations=1)
        else:
            if self.enabled and warmup:
                fn()
            if rounds is None:
                result = self.benchmark(fn)
            else:
                result = self.benchmark.pedantic(fn, rounds=rounds, iterations=1)
        stats = getattr(self.benchmark, "stats", None)
        if self.enabled and stats is not None:
            s = stats.stats
            self.info["seconds"] = float(s.min)
            self.info["games_per_s"] = n_games / float(s.min)
            self.info["games_per_s_median"] = n_games / float(s.median)
            self._record()
        return result

    def set_rate(self, games_per_s: float, seconds: float, how: str) -> None:
        """Replace the throughput by one timed elsewhere (e.g. inside a C program)."""
        self.info["games_per_s"] = float(games_per_s)
        self.info["seconds"] = float(seconds)
        self.info["timing"] = how
        self._record()

    def compare(self, fastrate_fn: Callable[[], Any], n_games: int,
                key: str = "fastrate_vs_this") -> None:
        """Time fastrate on the same input (warm, best of 5) and store the ratio
        fastrate games/s / this implementation's games/s."""
        if not self.enabled or "games_per_s" not in self.info:
            return
        fastrate_fn()
        first = best_time(fastrate_fn, 1)
        t = min(first, best_time(fastrate_fn, max(5, min(200, int(0.3 / max(first, 1e-9))))))
        self.info["fastrate_games_per_s_same_input"] = n_games / t
        self.info[key] = (n_games / t) / self.info["games_per_s"]
        self._record()

    def _record(self) -> None:
        # the live extra_info dict, so later updates show in the summary too
        if all(name != self.nodeid for name, _ in RESULTS):
            RESULTS.append((self.nodeid, self.info))


@pytest.fixture
def throughput(benchmark: Any, request: pytest.FixtureRequest) -> Throughput:
    name = request.node.nodeid.split("::", 1)[-1]
    return Throughput(benchmark, f"{Path(str(request.node.path)).stem}::{name}")


# ----------------------------------------------------------------------------------
# workloads


@pytest.fixture(scope="session")
def atp() -> Any:
    """The ATP games (monthly rating periods), skipping when the file is absent."""
    if not ATP_PATH.exists():
        pytest.skip(f"ATP data not found at {ATP_PATH}")
    return atp_games()


#: the ``size`` parameter of the rating benchmarks: the small synthetic workload runs in
#: the default suite; 100k players / 2M games and the ATP file on demand
SIZE_PARAMS = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large),
               pytest.param("atp", marks=pytest.mark.large)]
#: the high-volume size (1M players, 50M games), for the C comparisons at scale
HUGE_PARAM = pytest.param("huge", marks=pytest.mark.large)


@pytest.fixture
def games(size: str, request: pytest.FixtureRequest) -> Any:
    """The workload of the ``size`` parameter: ``small``, ``large``, ``huge`` or ``atp``."""
    if size == "atp":
        return request.getfixturevalue("atp")
    return workload(size)


# ----------------------------------------------------------------------------------
# the C baseline


class CBaseline:
    """Compiled C reference programs; :meth:`run` times one on a Games."""

    def __init__(self, exes: dict[str, Path], workdir: Path):
        self.exes = exes
        self.workdir = workdir

    def write_inputs(self, games: Any, tag: str) -> Path:
        d = self.workdir / tag
        if not (d / "score.bin").exists():
            d.mkdir(parents=True, exist_ok=True)
            period = games.period if games.period is not None else np.zeros(games.n_games,
                                                                               np.int64)
            for name, arr in (("white", games.white), ("black", games.black),
                              ("score", games.score), ("period", period)):
                np.ascontiguousarray(arr).tofile(d / f"{name}.bin")
        return d

    def run(self, name: str, games: Any, tag: str, params: list[str],
            repeats: int) -> tuple[float, float, dict[str, np.ndarray]]:
        """Run program ``name``; return (games/s, seconds, result arrays) of its best run."""
        d = self.write_inputs(games, tag)
        args = [str(self.exes[name]), str(d), str(games.n_players), str(games.n_games),
                *params, str(repeats)]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        vals = dict(line.split() for line in out.strip().splitlines())
        arrays = {}
        for key in ("rating", "rd", "volatility"):
            f = d / f"{key}_c.bin"
            if f.exists():
                arrays[key] = np.fromfile(f, dtype=np.float64)
                f.unlink()
        return float(vals["games_per_s"]), float(vals["seconds"]), arrays


@pytest.fixture(scope="session")
def c_baseline(tmp_path_factory: pytest.TempPathFactory) -> CBaseline:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which(
        "clang")
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang) for the C baseline")
    out = tmp_path_factory.mktemp("baseline_c")
    exes = {}
    for name in ("elo", "elo_ratings_only", "glicko", "glicko2"):
        exe = out / name
        proc = subprocess.run([cc, "-O2", "-std=c99", "-o", str(exe), str(C_DIR / f"{name}.c"),
                               "-lm"], capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip(f"cannot compile bench/baseline_c/{name}.c: {proc.stderr.strip()}")
        exes[name] = exe
    return CBaseline(exes, out)
