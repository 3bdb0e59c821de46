"""Peak memory of a rating run against the size of its input arrays (``large``).

The **input arrays** are the per-game arrays of the :class:`fastrate.Games` the run
rates (``white``, ``black``, ``score`` and whichever of ``time``, ``period``, ``weight``,
``margin``, ``neutral`` it has; :func:`bench.generate.input_nbytes`). The **peak** is
the largest growth of the process's resident set (Linux ``VmHWM``, reset through
``/proc/self/clear_refs`` just before the run) over its size right before the run --
after the imports and a warm-up run on a small input, so that the interpreter, the
libraries and the compiled kernels are not counted, while everything the run itself
allocates is, including what the allocators keep for reuse. Each measurement runs in a
fresh interpreter, so earlier benchmarks leave no freed memory to reuse.

* ``bench_memory_api`` -- ``rate(games)`` of the Python API on the 100k-player /
  2M-game workload (the Games already built), for each system; also the peak of what
  it allocates as seen by ``tracemalloc`` (NumPy's buffers).
* ``bench_memory_cli`` -- ``fastrate rate`` on the ATP file (read the gzip CSV,
  intern, rate, write a CSV), run in-process through the command's entry point after a
  warm-up on the file's first 2,000 rows.

``peak_ratio`` (peak / input arrays) is the number the issue's target (<= 3) is about.

    pytest bench/bench_memory.py --benchmark-only -m large
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate import ATP_PATH, REPO

pytestmark = pytest.mark.large

#: shared by the child scripts: RSS / peak RSS from /proc, a clean baseline
_PRELUDE = r"""
import ctypes, gc, json, sys, time

def _status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmHWM:", "VmRSS:")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out

def baseline():
    gc.collect()
    try:
        import pyarrow as pa
        pa.default_memory_pool().release_unused()
    except ImportError:
        pass
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    base = _status()["VmRSS"]
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    return base

def peak_since(base):
    s = _status()
    return s["VmHWM"] - base, s["VmHWM"]
"""

_API_CHILD = _PRELUDE + r"""
import tracemalloc
import importlib
from bench.generate import input_nbytes, workload
system, config_name = sys.argv[1], sys.argv[2]
module = importlib.import_module(f"fastrate.ratings.{system}")
config = getattr(module, config_name)()
games = workload("large")
module.rate(workload("small"), config)  # kernels loaded / compiled
base = baseline()
t0 = time.perf_counter()
result = module.rate(games, config)
seconds = time.perf_counter() - t0
extra, hwm = peak_since(base)
del result
gc.collect()
tracemalloc.start()
result = module.rate(games, config)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"input_bytes": input_nbytes(games), "peak_bytes": extra,
                  "process_peak_bytes": hwm, "traced_peak_bytes": traced,
                  "seconds": seconds, "n_games": games.n_games}))
"""

_CLI_CHILD = _PRELUDE + r"""
import os, tempfile
import pyarrow as pa
from pyarrow import csv
from bench.generate import input_nbytes
from fastrate.cli.commands import rate_command
from fastrate.io.tables import read_games
path, out = sys.argv[1], sys.argv[2]
cols = ["--winner", "winner_id", "--loser", "loser_id", "--drop-self-play", "--top", "0",
        "--no-progress"]
small = os.path.join(tempfile.mkdtemp(), "small.csv")
csv.write_csv(csv.read_csv(path).slice(0, 2000), small)
rate_command.main([small, *cols, "-o", out], standalone_mode=False)  # warm-up
base = baseline()
t0 = time.perf_counter()
rate_command.main([path, *cols, "-o", out], standalone_mode=False)
seconds = time.perf_counter() - t0
extra, hwm = peak_since(base)
games = read_games(path, winner="winner_id", loser="loser_id", drop_self_play=True)
print(json.dumps({"input_bytes": input_nbytes(games), "peak_bytes": extra,
                  "process_peak_bytes": hwm, "seconds": seconds, "n_games": games.n_games}))
"""


def _linux_proc() -> bool:
    return Path("/proc/self/clear_refs").exists() and sys.platform.startswith("linux")


def _child(source: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", source, *args], cwd=REPO,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"memory child failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _record(benchmark, info: dict, name: str) -> None:
    info["peak_ratio"] = info["peak_bytes"] / info["input_bytes"]
    info["peak_mib"] = info["peak_bytes"] / 2**20
    info["input_mib"] = info["input_bytes"] / 2**20
    info["peak_rss_mib"] = info["process_peak_bytes"] / 2**20
    benchmark.extra_info.update(info)
    if benchmark.enabled:
        from bench.conftest import RESULTS

        RESULTS.append((name, benchmark.extra_info))


SYSTEMS = {"elo": "EloConfig", "glicko": "GlickoConfig", "glicko2": "Glicko2Config"}


@pytest.mark.parametrize("system", list(SYSTEMS))
def bench_memory_api(benchmark, system):
    if not _linux_proc():
        pytest.skip("needs Linux /proc/self/clear_refs")
    info = benchmark.pedantic(_child, args=(_API_CHILD, system, SYSTEMS[system]), rounds=1,
                              iterations=1)
    info["traced_ratio"] = info["traced_peak_bytes"] / info["input_bytes"]
    _record(benchmark, info, f"bench_memory::bench_memory_api[{system}]")
    assert info["peak_ratio"] < 10


def bench_memory_cli(benchmark, tmp_path):
    if not _linux_proc():
        pytest.skip("needs Linux /proc/self/clear_refs")
    if not ATP_PATH.exists():
        pytest.skip(f"ATP data not found at {ATP_PATH}")
    info = benchmark.pedantic(_child, args=(_CLI_CHILD, str(ATP_PATH),
                                            str(tmp_path / "ratings.csv")),
                              rounds=1, iterations=1)
    _record(benchmark, info, "bench_memory::bench_memory_cli[atp]")
    assert (tmp_path / "ratings.csv").read_text().replace('"', "").startswith("player,rating")
