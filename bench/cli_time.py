"""Wall time of ``fastrate rate`` on the ATP file, end to end, in a fresh process.

Reads the gzip CSV (916,648 rows; the 7 self-play rows dropped), interns the players,
rates, writes the ratings as CSV -- the whole command, interpreter start included:

* **warm** -- Numba's cache already holds the kernel (after one untimed run);
* **cold** -- the first run after installing: an empty Numba cache (``NUMBA_CACHE_DIR``
  pointing at a new temporary folder), so the kernel is compiled and cached.

Each run's peak RSS is read from ``/usr/bin/time`` where available.

    python -m bench.cli_time                       # elo, best of 5 warm and 3 cold
    python -m bench.cli_time --system glicko2 --period month
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.generate import ATP_PATH, REPO


def command(path: Path, out: Path, system: str, period: str | None) -> list[str]:
    exe = shutil.which("fastrate")
    head = [exe] if exe else [sys.executable, "-m", "fastrate"]
    cmd = [*head, "rate", str(path), "--winner", "winner_id", "--loser", "loser_id",
           "--drop-self-play", "--system", system, "-o", str(out)]
    if period:
        cmd += ["--period", period]
    return cmd


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float | None]:
    """(wall seconds, peak RSS MiB or None) of one run."""
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists()
                                     else None)
    full = [timer, "-f", "%M", *cmd] if timer else cmd
    t0 = time.perf_counter()
    proc = subprocess.run(full, cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    peak = None
    if timer:
        last = proc.stderr.strip().splitlines()[-1]
        peak = int(last) / 1024 if last.isdigit() else None
    return wall, peak


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cli_time", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", type=Path, default=ATP_PATH)
    ap.add_argument("--system", default="elo")
    ap.add_argument("--period", default=None, help="e.g. month (for glicko/glicko2)")
    ap.add_argument("--warm", type=int, default=5, help="timed warm runs")
    ap.add_argument("--cold", type=int, default=3, help="timed cold runs")
    args = ap.parse_args(argv)
    if not args.file.exists():
        print(f"no such file: {args.file}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="fastrate-cli-") as tmp:
        cmd = command(args.file, Path(tmp) / "ratings.csv", args.system, args.period)
        env = dict(os.environ)
        run(cmd, env)  # fills the default cache
        rows = []
        for start, n in (("warm", args.warm), ("cold", args.cold)):
            walls, peaks = [], []
            for _ in range(n):
                e = env
                cache = None
                if start == "cold":
                    cache = tempfile.mkdtemp(prefix="numba-cache-", dir=tmp)
                    e = dict(env, NUMBA_CACHE_DIR=cache)
                w, p = run(cmd, e)
                walls.append(w)
                if p is not None:
                    peaks.append(p)
                if cache:
                    shutil.rmtree(cache, ignore_errors=True)
            if walls:
                rows.append((start, min(walls), statistics.median(walls),
                             max(peaks) if peaks else float("nan")))
    shown = ["fastrate", "rate", args.file.name, "--winner", "winner_id", "--loser",
             "loser_id", "--drop-self-play", "--system", args.system, "-o", "ratings.csv"]
    if args.period:
        shown += ["--period", args.period]
    print(" ".join(shown))
    print("| start | best s | median s | peak RSS MiB |\n|---|---:|---:|---:|")
    for start, best, med, peak in rows:
        print(f"| {start} | {best:.2f} | {med:.2f} | {peak:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
