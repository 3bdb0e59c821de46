"""The long format end to end: read a file of one row per player, rate, write.

Issue 11's target: ``fastrate rate`` on a 1M-row long-format file in at most 2 s warm.
The file is 250,000 generated 4-player free-for-alls among 50,000 players (columns
``match, player, place``), as Parquet and as CSV.

* ``bench_matches_read`` -- :func:`fastrate.read_matches` alone (rows/s);
* ``bench_matches_rate_end_to_end`` -- read, rate with each system that rates
  matches, write the ratings (in process, kernels warm);
* ``bench_matches_cli`` (``large``: it starts processes) -- the whole command in a fresh
  interpreter, kernels in Numba's cache: ``fastrate rate FILE -s SYSTEM -o out.csv``.

    pytest bench/bench_matches_io.py --benchmark-only -m large
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastrate
from bench.generate import REPO
from bench.generate_matches import generated_matches
from fastrate import systems
from fastrate.io.tables import write_table

SYSTEMS = systems.names("matches")
FULL_MATCHES = 250_000  # x 4 players = 1,000,000 rows
SMOKE_MATCHES = 2_000


def _write(tmp: Path, n_matches: int, ext: str) -> Path:
    m = generated_matches(n_matches, 4, 1, min(50_000, n_matches * 2), seed=5)
    seat_match = m.team_match()[m.seat_team()]
    table = pa.table({"match": seat_match, "player": m.players.names[m.player],
                      "place": m.rank[m.seat_team()]})
    path = tmp / f"long_{n_matches}.{ext}"
    if ext == "parquet":
        pq.write_table(table, path)
    else:
        pacsv.write_csv(table, path)
    return path


@pytest.fixture(scope="module")
def long_files(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("long")
    return {(size, ext): _write(tmp, n, ext)
            for size, n in (("smoke", SMOKE_MATCHES), ("1M rows", FULL_MATCHES))
            for ext in ("parquet", "csv")}


SIZES = ["smoke", pytest.param("1M rows", marks=pytest.mark.large)]


@pytest.mark.parametrize("ext", ["parquet", "csv"])
@pytest.mark.parametrize("size", SIZES)
def bench_matches_read(throughput, long_files, size, ext):
    path = long_files[(size, ext)]
    throughput.info.update(implementation="fastrate.read_matches", size=size, format=ext,
                           unit="rows")
    m = throughput(lambda: fastrate.read_matches(path), 0)
    throughput.info["n_games"] = m.n_seats
    if "seconds" in throughput.info:
        throughput.info["games_per_s"] = m.n_seats / throughput.info["seconds"]


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize("size", SIZES)
def bench_matches_rate_end_to_end(throughput, long_files, tmp_path, size, name):
    path = long_files[(size, "parquet")]
    out = tmp_path / "ratings.csv"

    def run():
        m = fastrate.read_matches(path)
        r = systems.get(name).rate(m)
        write_table(r.to_arrow(sort=True), out)
        return m

    throughput.info.update(implementation=f"read + {name} + write", size=size, unit="rows")
    m = throughput(run, 0, rounds=3)
    throughput.info["n_games"] = m.n_seats
    if "seconds" in throughput.info:
        throughput.info["games_per_s"] = m.n_seats / throughput.info["seconds"]
    assert out.stat().st_size > 0


def _cli(args: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "fastrate", *args], cwd=REPO,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"fastrate {' '.join(args)} failed: {proc.stderr}")


@pytest.mark.large
@pytest.mark.parametrize("name", SYSTEMS)
def bench_matches_cli(throughput, long_files, tmp_path, name):
    """The whole command in a fresh process (interpreter start and imports included),
    with the kernels already in Numba's cache (the warm-up call compiles them)."""
    path = long_files[("1M rows", "parquet")]
    out = tmp_path / "ratings.csv"
    args = ["rate", str(path), "-s", name, "-o", str(out), "--no-progress", "--top", "0"]
    throughput.info.update(implementation="fastrate CLI (fresh process)", unit="rows")
    throughput(lambda: _cli(args), 1_000_000, rounds=3, warmup=True)
    assert out.read_text().replace('"', "").startswith("player,rating")
