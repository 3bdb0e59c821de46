"""``fastrate warmup`` compiles what the usual pipelines call: after it, rating games,
scoring and rating an integer-id bridge table and the placement statistics add no new
Numba signature (a fresh interpreter, so earlier tests cannot have compiled them); and
what it compiled loads from the disk cache in the next fresh interpreter. The counts it
reports are the specialisations really compiled or loaded, the parallel warm-up leaves
a cache that loads without a miss, and the command shows one line per group."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from fastrate._warmup import WarmGroup, _chains, groups, run_warmup
from fastrate.cli import main
from fastrate.errors import ConfigError

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np, pyarrow as pa
    import fastrate._warmup as warm

    warm.warmup(workers=1)  # in this process (not in workers), where signatures are counted
    before = set(warm.kernel_specialisations())
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
    # the specialisations added since the warm-up (True: compiled, not even in the cache)
    print(json.dumps({k: compiled for k, compiled in warm.kernel_specialisations().items()
                      if k not in before}))
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
    import json, sys
    import fastrate._warmup as warm

    warm.warmup(workers=1)  # in this process, where the counters below are kept
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


def _run_json(script: str, **env: str) -> dict:
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                         text=True, timeout=600, env={**os.environ, **env})
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_counts_are_the_specialisations_compiled_or_loaded():
    """In a fresh interpreter: the parallel warm-up loads nothing into the calling process;
    then a warm-up in this process loads everything from the cache it left (no compile),
    and its report counts exactly the specialisations the process then holds, each group
    its own ones."""
    out = _run_json("""
        import json
        from fastrate._warmup import kernel_specialisations, run_warmup

        par = run_warmup(workers=2)
        held_after_par = kernel_specialisations()
        ser = run_warmup(workers=1)
        print(json.dumps({
            "par": sorted(par.kernels), "par_groups": [g.name for g in par.groups],
            "held_after_par": sorted(held_after_par), "ser": sorted(ser.kernels),
            "ser_compiled": ser.compiled, "ser_groups": [len(g.kernels) for g in ser.groups],
            "held": sorted(kernel_specialisations())}))
    """)
    assert sorted(out["par_groups"]) == sorted(g.name for g in groups())
    assert out["held_after_par"] == []
    assert out["ser_compiled"] == 0, "the parallel warm-up left kernels out of the cache"
    assert out["ser"] == out["held"]
    assert sum(out["ser_groups"]) == len(out["ser"]) > 30
    assert all(n > 0 for n in out["ser_groups"])
    assert set(out["ser"]) <= set(out["par"])


@pytest.mark.slow
def test_parallel_warmup_from_an_empty_cache_loads_without_a_miss(tmp_path):
    """Two workers compile into an empty cache at once (Glicko and Glicko-2 share the
    exp/fma/select helpers); a fresh interpreter then loads every kernel, none missing."""
    cache = str(tmp_path)
    first = _run_json("""
        import json
        from fastrate._warmup import run_warmup

        r = run_warmup(["glicko", "glicko2", "fibs"], workers=2)
        print(json.dumps({"compiled": r.compiled, "n": len(r.kernels), "cache": r.cache}))
    """, NUMBA_CACHE_DIR=cache)
    assert first["compiled"] == first["n"] > 5
    assert first["cache"] == cache
    second = _run_json("""
        import json
        from fastrate._warmup import run_warmup

        r = run_warmup(["glicko", "glicko2", "fibs"], workers=1)
        print(json.dumps({"compiled": r.compiled, "loaded": r.loaded}))
    """, NUMBA_CACHE_DIR=cache)
    # nothing compiled again: every kernel of the three systems' runs (their rating
    # kernels and the evaluation's running sums) comes from the cache
    assert second["compiled"] == 0 and second["loaded"] >= 3


def test_warmup_command_shows_each_group_and_the_count():
    result = CliRunner().invoke(main, ["warmup", "--workers", "1", "-v"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    names = [g.name for g in groups()]
    done = [re.fullmatch(r"\[(\d+)/(\d+)\] (\w+): (\d+) kernels \((\d+) compiled, (\d+) "
                         r"loaded from the cache\), [\d.]+ s", line) for line in lines]
    done = [m for m in done if m]
    assert [m[3] for m in done] == names
    assert [int(m[1]) for m in done] == list(range(1, len(names) + 1))
    assert all(int(m[2]) == len(names) for m in done)
    assert all(int(m[4]) == int(m[5]) + int(m[6]) for m in done)
    listed = [line for line in lines if re.match(r"    (compiled|loaded  ) fastrate\.", line)]
    assert len(listed) == sum(int(m[4]) for m in done)
    summary = re.fullmatch(r"compiled (\d+) kernels in [\d.]+ s \((\d+) loaded from the "
                           r"cache; 1 process; cache: .+\)", lines[-1])
    assert summary, lines[-1]
    assert int(summary[1]) + int(summary[2]) == len(listed)


def test_warmup_command_rejects_zero_workers():
    result = CliRunner().invoke(main, ["warmup", "--workers", "0"])
    assert result.exit_code == 2
    assert "0 is not in the range x>=1" in result.output


def test_unknown_group():
    with pytest.raises(ConfigError, match="warm-up group must be one of elo, .*; got 'nope'"):
        run_warmup(["nope"])


def test_groups_that_reuse_kernels_follow_them_in_one_chain_longest_chains_first(monkeypatch):
    def g(name, *after):
        return WarmGroup(name, lambda: None, after)

    import fastrate._warmup as warm

    monkeypatch.setattr(warm, "COST_HINTS", {"a": 1.0, "b": 5.0, "c": 3.0, "d": 3.0})
    a, b, c, d, e, f = g("a"), g("b", "a"), g("c"), g("d"), g("e"), g("f", "b", "x")

    def names(chains):
        return [[x.name for x in chain] for chain in chains]

    # f after b after a (x is not run); e has no hint (2 s); c and d tie: list order
    assert names(_chains([f, c, b, d, e, a])) == [["a", "b", "f"], ["c"], ["d"], ["e"]]
    assert names(_chains([b, d])) == [["b"], ["d"]]  # a not run: b stands alone
    loop = [g("p", "q"), g("q", "p")]
    assert names(_chains(loop)) == [["p", "q"]]  # a cycle of afters is broken


def test_workers_fork_only_from_a_single_threaded_process():
    """Forking saves the workers' imports, but only where no thread of ours runs."""
    import threading

    from fastrate import _warmup

    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert _warmup._start_method() == "spawn"
    finally:
        stop.set()
        t.join()
    code = "from fastrate import _warmup; print(_warmup._start_method())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == ("fork" if sys.platform.startswith("linux") else out)
