"""Cold compile versus warm cache: how long a fresh process waits before its first rating.

For each system (and for the warm-up, which compiles every kernel of the package: ``all``
runs it as ``fastrate warmup`` does, in worker processes, and ``all-serial`` in one
process) a new interpreter imports fastrate and rates four games, twice:

* **cold** -- with an empty Numba cache (``NUMBA_CACHE_DIR`` pointing at a new temporary
  folder): the first call compiles the kernel and writes it to the cache;
* **warm** -- the same again with that cache now filled: the first call only loads the
  compiled kernel.

Each run reports the import time (``import fastrate`` and the system's module, which
imports Numba), the first call, the second call (the kernel's own cost, microseconds)
and the whole process's wall time and CPU time (its workers' included). Best of
``--repeat`` runs. For the warm-up the "second call" is a second warm-up in the same
process (everything loaded); the number of kernel specialisations compiled or loaded
and the CPU time of the busiest process (imports included) are reported too: on a
machine that other work keeps busy, the latter is what the warm-up's wall time would be
with the cores to itself.

    python -m bench.compile_time              # all systems, best of 3
    python -m bench.compile_time --repeat 1 --systems elo
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SYSTEMS = {"elo": "EloConfig", "glicko": "GlickoConfig", "glicko2": "Glicko2Config"}
#: the warm-up runs: name -> worker processes (None: the default, as ``fastrate warmup``)
WARMUPS = {"all": None, "all-serial": 1}

_CHILD = """
import json, time
t0 = time.perf_counter()
import numpy as np
import fastrate
{imports}
t1 = time.perf_counter()
games = fastrate.Games.from_arrays(np.array([0, 1, 2, 0]), np.array([1, 2, 0, 2]),
                                   np.array([1.0, 0.5, 0.0, 1.0]),
                                   period=np.array([0, 0, 1, 2]), players=np.arange(3))
t2 = time.perf_counter()
{call}
t3 = time.perf_counter()
{call}
t4 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "second": t4 - t3{extra}}}))
"""


def _child_source(system: str) -> str:
    if system in WARMUPS:
        return _CHILD.format(imports="from fastrate._warmup import run_warmup\nruns = []",
                             call=f"runs.append(run_warmup(workers={WARMUPS[system]}))",
                             extra=', "kernels": len(runs[0].kernels), "worker_cpu": '
                                   'max(g.process_cpu for g in runs[0].groups)')
    cfg = SYSTEMS[system]
    return _CHILD.format(imports=f"from fastrate.ratings import {system} as m",
                         call=f"m.rate(games, m.{cfg}())", extra="")


def _run(system: str, cache_dir: str) -> dict[str, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _child_source(system)], cwd=REPO, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{system}: child failed:\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process"] = wall
    out["cpu"] = _children_cpu() - cpu0
    return out


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (and theirs)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(system: str, repeat: int = 3) -> dict[str, dict[str, float]]:
    """Best-of-``repeat`` timings of a cold and a warm start for ``system``."""
    cold: dict[str, float] = {}
    warm: dict[str, float] = {}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="fastrate-numba-cache-") as d:
            c = _run(system, d)
            w = _run(system, d)
        for key in c:
            cold[key] = min(cold.get(key, float("inf")), c[key])
            warm[key] = min(warm.get(key, float("inf")), w[key])
    return {"cold": cold, "warm": warm}


def table(results: dict[str, dict[str, dict[str, float]]]) -> str:
    head = ("system", "start", "import s", "first call s", "second call ms", "process s",
            "CPU s", "busiest worker CPU s", "kernels")
    rows = []
    for system, r in results.items():
        for start in ("cold", "warm"):
            t = r[start]
            rows.append((system, start, f"{t['import']:.2f}", f"{t['first']:.3f}",
                         f"{t['second'] * 1e3:.3f}", f"{t['process']:.2f}", f"{t['cpu']:.2f}",
                         f"{t['worker_cpu']:.2f}" if "worker_cpu" in t else "",
                         str(t.get("kernels", ""))))
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) if i < 2 else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    sep = "|" + "|".join("-" * (w + 2) if i < 2 else "-" * (w + 1) + ":"
                         for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), sep, *(line(r) for r in rows)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.compile_time", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", nargs="+", default=[*SYSTEMS, *WARMUPS],
                    choices=[*SYSTEMS, *WARMUPS],
                    help="systems to measure ('all' = the warm-up in worker processes, "
                         "'all-serial' = in one process)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    results = {s: measure(s, args.repeat) for s in args.systems}
    print(json.dumps(results, indent=2) if args.json else table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
