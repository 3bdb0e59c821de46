"""``fastrate warmup`` compiles what the usual pipelines call: after it, rating games,
scoring and rating an integer-id bridge table and the placement statistics add no new
Numba signature (a fresh interpreter, so earlier tests cannot have compiled them); and
what it compiled loads from the disk cache in the next fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import inspect, json, sys
    import numpy as np, pyarrow as pa
    from numba.core.registry import CPUDispatcher
    import fastrate._warmup as warm

    def signatures():
        # by the kernel's own name: a module reached under two names (fastrate.elo is
        # fastrate.ratings.elo) is one set of kernels
        out = {}
        for name, module in list(sys.modules.items()):
            if name.startswith("fastrate"):
                for value in list(vars(module).values()):
                    if isinstance(value, CPUDispatcher):
                        fn = value.py_func
                        out[fn.__module__ + "." + fn.__qualname__] = len(value.signatures)
        return out

    # in this process (not in worker processes), where the signatures are counted
    warm.warmup(**{"workers": 1} if "workers" in inspect.signature(warm.warmup).parameters
                else {})
    before = signatures()
    import fastrate
    from fastrate.bridge import bridge_elo
    from fastrate.bridge.boards import boards_from_table
    from fastrate.stats import placement

    rng = np.random.default_rng(0)
    n = 400
    w = rng.integers(0, 50, n); b = (w + 1 + rng.integers(0, 49, n)) % 50
    games = fastrate.Games.from_arrays(w, b, rng.integers(0, 3, n) / 2.0,
                                       period=np.arange(n) // 40)
    for system in (fastrate.elo, fastrate.glicko, fastrate.glicko2):
        system.rate(games)
    seats = rng.permutation(800).reshape(4, 200)
    table = pa.table({
        "event": np.repeat(np.arange(10), 20), "board": np.tile(np.repeat(np.arange(2), 10), 10),
        "north": seats[0], "south": seats[1], "east": seats[2], "west": seats[3],
        "ns_score": rng.integers(-50, 50, 200) * 10,
        "time": pa.array((np.repeat(np.arange(10), 20) * 86400).astype("datetime64[s]")),
    })
    boards = boards_from_table(table, period="3d")
    for method in ("cross-imps", "butler", "matchpoints"):
        boards.score(method)
    bridge_elo.rate(boards, bridge_elo.BridgeEloConfig())
    placement.placement_stats(rng.integers(0, 9, (30, 7)))
    after = signatures()
    print(json.dumps({k: [before.get(k, 0), v] for k, v in after.items()
                      if v != before.get(k, 0)}))
""")


@pytest.mark.slow
def test_warmup_covers_the_usual_pipelines():
    res = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    new = json.loads(res.stdout.strip().splitlines()[-1])
    assert new == {}, f"kernels compiled after warmup (warmup misses them): {new}"


#: warm up, then report every kernel's disk-cache hits and misses in this process
CACHE_SCRIPT = textwrap.dedent("""
    import inspect, json, sys
    import fastrate._warmup as warm

    # in this process, where the counters below are kept (not in worker processes)
    kw = {"workers": 1} if "workers" in inspect.signature(warm.warmup).parameters else {}
    warm.warmup(**kw)
    hits, misses = {}, {}
    for name, module in list(sys.modules.items()):
        if name.startswith("fastrate"):
            for value in list(vars(module).values()):
                if hasattr(value, "targetoptions") and hasattr(value, "stats"):
                    key = value.py_func.__module__ + "." + value.py_func.__qualname__
                    hits[key] = sum(value.stats.cache_hits.values())
                    misses[key] = sum(value.stats.cache_misses.values())
    print(json.dumps({"hits": hits, "misses": misses}))
""")


@pytest.mark.slow
def test_kernels_load_from_the_disk_cache_in_a_fresh_process():
    """The first interpreter compiles whatever the cache lacks and writes it; the second
    compiles nothing (a kernel that misses the cache in every new process, e.g. one
    taking a function or a type Numba cannot pickle, shows up as a miss here). The
    package's own cache is used, not a temporary NUMBA_CACHE_DIR: an empty one costs the
    full cold compile (half a minute) on every run, for the same check."""
    runs = []
    for _ in range(2):
        res = subprocess.run([sys.executable, "-c", CACHE_SCRIPT], capture_output=True,
                             text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    second = runs[1]
    missed = {k: v for k, v in second["misses"].items() if v}
    assert not missed, f"kernels compiled again in a fresh process (cache misses): {missed}"
    loaded = [k for k, v in second["hits"].items() if v]
    assert len(loaded) > 20, f"only {len(loaded)} kernels loaded from the cache: {loaded}"
