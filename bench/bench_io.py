"""End to end: read a games file, intern the players, rate, write the ratings; and the
peak memory of a rating run against the size of its input arrays.

* ``bench_io_rate_end_to_end`` -- in process, warm: ``read_games`` -> ``elo.rate`` ->
  ``write_table`` (CSV) to a temporary file.
* ``bench_io_cli`` (``large``: it starts processes) -- the same through the command
  line in a fresh process
  (``python -m fastrate rate FILE ... -o out.csv``), kernels loaded from Numba's cache
  after one warm-up run; the child reports its own peak RSS (``VmHWM``).
* ``bench_io_peak_memory`` -- the peak of what ``rate()`` allocates (tracemalloc, which
  sees NumPy's buffers), as ``(input arrays + peak) / input arrays``.

The ATP file (``../shared/data/tennis_atp``) has 7 rows where winner and loser are the
same player, which ``read_games`` refuses; the benchmarks rate a copy without them
(same gzip-compressed CSV layout), written once per session.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from bench.generate import ATP_PATH, REPO, input_nbytes, synthetic_arrays, workload

fastrate = pytest.importorskip("fastrate")
elo = pytest.importorskip("fastrate.ratings.elo")

ATP_COLUMNS = {"winner": "winner_id", "loser": "loser_id", "time": "tourney_date"}
ATP_CLI = ["--winner", "winner_id", "--loser", "loser_id", "--time", "tourney_date"]


@pytest.fixture(scope="session")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small synthetic workload as a CSV file (white, black, score)."""
    import pyarrow as pa
    from pyarrow import csv

    arr = synthetic_arrays(1_000, 20_000, 20, seed=0)
    path = tmp_path_factory.mktemp("io") / "small.csv"
    csv.write_csv(pa.table({k: arr[k] for k in ("white", "black", "score")}), path)
    return path


@pytest.fixture(scope="session")
def atp_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ATP file without its 7 self-play rows, as a gzip-compressed CSV."""
    if not ATP_PATH.exists():
        pytest.skip(f"ATP data not found at {ATP_PATH}")
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv

    table = csv.read_csv(ATP_PATH)
    table = table.filter(pc.not_equal(table["winner_id"], table["loser_id"]))
    path = tmp_path_factory.mktemp("io") / "atp_clean.csv.gz"
    with pa.CompressedOutputStream(str(path), "gzip") as out:
        csv.write_csv(table, out)
    return path


def _input(which: str, request: pytest.FixtureRequest) -> tuple[Path, dict, list]:
    if which == "atp":
        return request.getfixturevalue("atp_csv"), ATP_COLUMNS, ATP_CLI
    return request.getfixturevalue("small_csv"), {}, []


def _end_to_end(path: Path, columns: dict, out: Path) -> int:
    games = fastrate.read_games(path, **columns)
    ratings = elo.rate(games, elo.EloConfig())
    fastrate.write_table(ratings.to_arrow(sort=True), out)
    return games.n_games


@pytest.mark.parametrize("which", [pytest.param("small"),
                                   pytest.param("atp", marks=pytest.mark.large)])
def bench_io_rate_end_to_end(throughput, request, tmp_path, which):
    path, columns, _ = _input(which, request)
    out = tmp_path / "ratings.csv"
    n = fastrate.read_games(path, **columns).n_games
    throughput.info.update(implementation="fastrate read+rate+write (in process)", size=which)
    got = throughput(lambda: _end_to_end(path, columns, out), n,
                     rounds=3 if which == "atp" else None)
    assert got == n
    assert out.read_text().replace('"', "").startswith("player,rating")


def _cli_available() -> bool:
    proc = subprocess.run([sys.executable, "-m", "fastrate", "rate", "--help"],
                          capture_output=True, text=True, cwd=REPO)
    return proc.returncode == 0


#: ``python -m fastrate ARGS`` that reports its own peak RSS (Linux ``VmHWM``) on exit:
#: the child's ``ru_maxrss`` would count the forked copy of this (large) test process
#: before the exec
_CLI_CHILD = """
import runpy, sys
sys.argv = ["fastrate", *sys.argv[1:]]
try:
    runpy.run_module("fastrate", run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
try:
    with open("/proc/self/status") as f:
        hwm = [line.split()[1] for line in f if line.startswith("VmHWM:")][0]
    sys.stderr.write(f"\\nFASTRATE_PEAK_KB {hwm}\\n")
except OSError:
    pass
sys.exit(code)
"""


def _run_cli(args: list[str]) -> int:
    """Run the CLI in a fresh interpreter; return the child's peak RSS in bytes (0 where
    it cannot be read)."""
    proc = subprocess.run([sys.executable, "-c", _CLI_CHILD, *args], cwd=REPO,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"fastrate {' '.join(args)} failed: {proc.stderr}")
    for line in proc.stderr.splitlines():
        if line.startswith("FASTRATE_PEAK_KB "):
            return int(line.split()[1]) * 1024
    return 0


@pytest.mark.large
@pytest.mark.parametrize("which", ["small", "atp"])
def bench_io_cli(throughput, request, tmp_path, which):
    if not _cli_available():
        pytest.skip("the fastrate CLI (python -m fastrate rate) is not available")
    path, columns, cli = _input(which, request)
    out = tmp_path / "ratings.csv"
    args = ["rate", str(path), *cli, "-o", str(out), "--no-progress", "--top", "0"]
    throughput.info.update(implementation="fastrate CLI (fresh process)", size=which)
    peak = []
    throughput(lambda: peak.append(_run_cli(args)), 1, rounds=3 if which == "atp" else 1,
               warmup=True)
    assert out.read_text().replace('"', "").startswith("player,rating")
    n = fastrate.read_games(path, **columns).n_games
    throughput.info["n_games"] = n
    throughput.info["peak_rss_mib"] = max(peak) / 2**20
    if "seconds" in throughput.info:
        throughput.info["games_per_s"] = n / throughput.info["seconds"]


def _peak_ratio(rate, games) -> tuple[float, int]:
    """(input + peak allocated during ``rate(games)``) / input, and the peak in bytes."""
    rate(games)  # compiled, warm
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        rate(games)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    base = input_nbytes(games)
    return (base + peak) / base, peak


SYSTEMS = {
    "elo": ("fastrate.ratings.elo", "EloConfig"),
    "glicko": ("fastrate.ratings.glicko", "GlickoConfig"),
    "glicko2": ("fastrate.ratings.glicko2", "Glicko2Config"),
}


@pytest.mark.parametrize("system", list(SYSTEMS))
@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_io_peak_memory(benchmark, system, size):
    module_name, config_name = SYSTEMS[system]
    module = pytest.importorskip(module_name)
    config = getattr(module, config_name)()
    games = workload(size)
    ratio, peak = benchmark.pedantic(_peak_ratio, args=(lambda g: module.rate(g, config),
                                                        games), rounds=1, iterations=1)
    benchmark.extra_info.update(system=system, size=size, input_bytes=input_nbytes(games),
                                peak_bytes=peak, peak_ratio=ratio)
    assert np.isfinite(ratio)
    if benchmark.enabled:
        from bench.conftest import RESULTS

        RESULTS.append((f"bench_io::bench_io_peak_memory[{size}-{system}]",
                        benchmark.extra_info))
