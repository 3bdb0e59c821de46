"""High-volume recomputation, end to end (issue 10): write the workload once, then time
``fastrate rate`` on it with stage timings and the peak memory, and the minimal C loop
on the same games in the same run.

The workload: ``n_games`` games among ``n_players`` players meeting uniformly at random
(skills and results as :func:`bench.generate.synthetic_arrays`, about 10% draws), 20
rating periods, written block by block (each block of 5M games from its own seed, so
500M games need no more memory than 5M) as Parquet row groups of 1M games. Integer ids
by default; ``--string-ids`` writes names ``"p123456"``.

    python -m bench.high_volume write --games 50_000_000            # ~420 MB
    python -m bench.high_volume write --games 500_000_000           # ~4 GB
    python -m bench.high_volume run bench/_data/hv_50000000.parquet  # stage table
    python -m bench.high_volume run bench/_data/hv_50000000.parquet --cli  # the command

``run`` rates the file in this process with :func:`fastrate.streaming.rate_chunks`
(what ``fastrate rate`` does with a large file), reporting the time of each stage
summed over the chunks (read, build: parse and intern, players: the growing index,
rate, write), games/s, the peak RSS (``VmHWM``) over the RSS before the run and its
bytes per game, and the C loop's time on the same games (``--c``, in memory: about 24
bytes per game of temporary files). ``--cli`` times the command instead, in a fresh
process, with ``/usr/bin/time``'s peak RSS.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.generate import REPO, SKILL_SD, random_games

BLOCK = 5_000_000
ROW_GROUP = 1_000_000


def write_workload(path: Path, n_games: int, n_players: int = 1_000_000, n_periods: int = 20,
                   string_ids: bool = False, seed: int = 0) -> Path:
    """Write the workload (see the module docstring) to ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    skill = np.random.default_rng(seed).normal(0.0, SKILL_SD, n_players)
    names = np.array([f"p{i}" for i in range(n_players)], dtype=object) if string_ids else None
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = None
    try:
        for b, lo in enumerate(range(0, n_games, BLOCK)):
            m = min(BLOCK, n_games - lo)
            white, black, score = random_games(np.random.default_rng([seed, b + 1]), skill, m)
            period = ((lo + np.arange(m, dtype=np.int64)) * n_periods) // n_games
            cols = {"white": names[white] if string_ids else white,
                    "black": names[black] if string_ids else black,
                    "score": score, "period": period}
            table = pa.table(cols)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=ROW_GROUP)
    finally:
        if writer is not None:
            writer.close()
    return path


def _rss() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmHWM:", "VmRSS:")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def run_in_process(path: Path, system: str, chunk_rows: int, period: str | None) -> dict:
    """Rate ``path`` with rate_chunks in this process; stage timings and peak RSS."""
    from fastrate import streaming
    from fastrate.io.tables import write_table

    cols = {"period": period} if period else {}
    # warm up: compile the kernels on a small slice (not timed)
    import pyarrow.parquet as pq

    small = Path(tempfile.mkdtemp()) / "warm.parquet"
    pq.write_table(pq.ParquetFile(path).read_row_group(0).slice(0, 10_000), small)
    streaming.rate_chunks(small, system, **cols)
    import gc

    gc.collect()
    _reset_peak()
    before = _rss()["VmRSS"]
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    ratings = streaming.rate_chunks(path, system, chunk_rows=chunk_rows, timings=timings,
                                    **cols)
    t1 = time.perf_counter()
    out = Path(tempfile.mkdtemp()) / "ratings.parquet"
    write_table(ratings.to_arrow(sort=True), out)
    timings["write"] = time.perf_counter() - t1
    total = time.perf_counter() - t0
    peak = _rss()["VmHWM"] - before
    n = pq.ParquetFile(path).metadata.num_rows
    return {"games": n, "players": len(ratings), "seconds": total,
            "games_per_s": n / total, "peak_bytes": peak, "bytes_per_game": peak / n,
            **{f"{k}_s": v for k, v in timings.items()}}


def run_cli(path: Path, system: str, period: str | None) -> dict:
    exe = shutil.which("fastrate")
    head = [exe] if exe else [sys.executable, "-m", "fastrate"]
    out = Path(tempfile.mkdtemp()) / "ratings.parquet"
    cmd = [*head, "rate", str(path), "-s", system, "-o", str(out)]
    if period:
        cmd += ["--period", period]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the cache
    timer = shutil.which("time") or "/usr/bin/time"
    use_time = os.path.exists(timer)
    t0 = time.perf_counter()
    proc = subprocess.run(([timer, "-v"] if use_time else []) + cmd, capture_output=True,
                          text=True, check=True)
    seconds = time.perf_counter() - t0
    peak = None
    for line in proc.stderr.splitlines():
        if "Maximum resident set size" in line:
            peak = int(line.split(":")[1]) * 1024
    import pyarrow.parquet as pq

    n = pq.ParquetFile(path).metadata.num_rows
    return {"games": n, "seconds": seconds, "games_per_s": n / seconds, "peak_rss": peak,
            "peak_rss_per_game": None if peak is None else peak / n}


def run_c(path: Path) -> dict:
    """The minimal C Elo loop (bench/baseline_c/elo_ratings_only.c) on the same games."""

    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return {}
    d = Path(tempfile.mkdtemp())
    exe = d / "elo_ratings_only"
    subprocess.run([cc, "-O2", "-std=c99", "-o", str(exe),
                    str(REPO / "bench" / "baseline_c" / "elo_ratings_only.c"), "-lm"], check=True)
    import fastrate

    games = fastrate.read_games(path)
    for name in ("white", "black", "score"):
        np.ascontiguousarray(getattr(games, name)).tofile(d / f"{name}.bin")
    out = subprocess.run([str(exe), str(d), str(games.n_players), str(games.n_games), "32",
                          "1500", "3"], capture_output=True, text=True, check=True).stdout
    vals = dict(line.split() for line in out.strip().splitlines())
    t0 = time.perf_counter()
    fastrate.elo.rate(games, predictions=False)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    fastrate.elo.rate(games, predictions=False)
    t_fast = min(t_fast, time.perf_counter() - t0)
    shutil.rmtree(d)
    return {"c_seconds": float(vals["seconds"]), "fastrate_rate_seconds": t_fast,
            "fastrate_vs_c": float(vals["seconds"]) / t_fast}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.high_volume", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    w = sub.add_parser("write", help="write the workload as Parquet")
    w.add_argument("--games", type=int, default=50_000_000)
    w.add_argument("--players", type=int, default=1_000_000)
    w.add_argument("--string-ids", action="store_true")
    w.add_argument("--out", type=Path, default=None)
    r = sub.add_parser("run", help="time fastrate rate on a written workload")
    r.add_argument("path", type=Path)
    r.add_argument("--system", default="elo")
    r.add_argument("--period", default=None, help="a period column (e.g. period)")
    r.add_argument("--chunk-rows", type=int, default=None)
    r.add_argument("--cli", action="store_true", help="time the command in a fresh process")
    r.add_argument("--c", action="store_true", help="also the C loop on the same games")
    args = ap.parse_args(argv)
    if args.what == "write":
        suffix = "_str" if args.string_ids else ""
        out = args.out or REPO / "bench" / "_data" / f"hv_{args.games}{suffix}.parquet"
        t0 = time.perf_counter()
        write_workload(out, args.games, args.players, string_ids=args.string_ids)
        print(f"wrote {out} ({args.games:,} games, {args.players:,} players, "
              f"{out.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - t0:.0f} s")
        return 0
    from fastrate.io.chunks import CHUNK_ROWS

    result = (run_cli(args.path, args.system, args.period) if args.cli else
              run_in_process(args.path, args.system, args.chunk_rows or CHUNK_ROWS,
                             args.period))
    if args.c:
        result.update(run_c(args.path))
    for k, v in result.items():
        print(f"{k:>24}  {v:,.3f}" if isinstance(v, float) else f"{k:>24}  {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
