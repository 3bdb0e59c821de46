"""Guards on the kernels as a whole (issue 9, item 6).

* every kernel is built by :mod:`fastrate._numba` with the house options, and nothing in
  the package calls Numba's decorators directly;
* every piece of code that runs in threads (``prange``, ``parallel=True``, Python thread
  pools, anything reading the thread count) gives the same bits with 1 and 2 threads;
* every kernel's body also runs as plain Python (``NUMBA_DISABLE_JIT=1``).

Kernels, thread users and modules are discovered from the package itself (its files and
module attributes), so moving a kernel to another module does not break these tests;
adding one that breaks a rule does, with a message naming it.
"""

from __future__ import annotations

import ast
import concurrent.futures
import importlib
import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core.caching import NullCache

from fastrate._numba import KERNEL_OPTIONS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fastrate"
#: options a kernel may have beside the house ones: Numba's own nopython flag, the
#: helpers of ``inline_kernel`` and ``kernel(parallel=True)``
ALLOWED_EXTRA = {"nopython": {True}, "inline": {"always"}, "parallel": {True}}
#: Numba's ways of compiling a function; only fastrate/_numba.py may use them
NUMBA_COMPILERS = {"njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc",
                   "stencil", "jitclass"}


def _module_names() -> list[str]:
    """Every module of the package, from its files (nothing imported)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _import(name: str):
    """Import a module; old paths kept for a release may warn that they moved."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return importlib.import_module(name)


def kernel_sites() -> dict[str, tuple[str, str, object]]:
    """Every Numba dispatcher that is a module attribute anywhere in the package, by the
    qualified name of the function it compiles (re-exports counted once): (module,
    attribute, dispatcher)."""
    found: dict[str, tuple[str, str, object]] = {}
    for name in _module_names():
        module = _import(name)
        for attr, value in list(vars(module).items()):
            if hasattr(value, "targetoptions") and hasattr(value, "py_func"):
                fn = value.py_func
                if fn.__module__.startswith("fastrate"):
                    found.setdefault(f"{fn.__module__}.{fn.__qualname__}", (name, attr, value))
    return found


def kernels() -> dict[str, object]:
    return {name: site[2] for name, site in kernel_sites().items()}


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# ----------------------------------------------------------------------------------
# 1. the house options


def test_every_kernel_uses_the_house_options():
    found = kernels()
    assert len(found) > 30, f"only {len(found)} kernels found: is the discovery broken?"
    bad = []
    for name, disp in sorted(found.items()):
        opts = dict(disp.targetoptions)
        for key, want in KERNEL_OPTIONS.items():
            if key == "cache":  # not a target option: the dispatcher holds a disk cache
                got = not isinstance(disp._cache, NullCache)
            else:
                got = opts.get(key, "<unset>")
            if got != want:
                bad.append(f"{name}: {key}={got!r}, house option {key}={want!r}")
        for key, value in opts.items():
            if key not in KERNEL_OPTIONS and value not in ALLOWED_EXTRA.get(key, ()):
                bad.append(f"{name}: extra option {key}={value!r}")
    assert not bad, "kernels not built with fastrate._numba's options:\n" + "\n".join(bad)


def _numba_root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def test_no_direct_numba_decorators():
    """All kernels go through ``fastrate._numba.kernel``/``inline_kernel``: no module but
    fastrate/_numba.py imports or calls ``numba.njit``, ``jit``, ``vectorize``, ..."""
    bad = []
    for path in _sources():
        if path.name == "_numba.py" and path.parent == PACKAGE:
            continue
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
                bad += [f"{where}:{node.lineno}: from {node.module} import {a.name}"
                        for a in node.names if a.name in NUMBA_COMPILERS]
            elif isinstance(node, ast.Attribute) and node.attr in NUMBA_COMPILERS \
                    and _numba_root(node) == "numba":
                bad.append(f"{where}:{node.lineno}: numba...{node.attr}")
    assert not bad, "use fastrate._numba.kernel instead of Numba directly:\n" + "\n".join(bad)


def test_kernel_overrides_only_add_parallel():
    """``@kernel(...)`` may only ask for ``parallel``; every other option is the house's."""
    bad = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "kernel":
                bad += [f"{path.relative_to(ROOT)}:{node.lineno}: kernel({k.arg}=...)"
                        for k in node.keywords if k.arg != "parallel"]
    assert not bad, "\n".join(bad)


# ----------------------------------------------------------------------------------
# 2. the same bits with 1 and 2 threads

#: what marks code that runs in threads or depends on the thread count
THREAD_MARKERS = {"prange", "ThreadPoolExecutor", "ProcessPoolExecutor", "Thread",
                  "get_num_threads", "set_num_threads", "get_thread_id"}
#: parameters that choose a thread count
THREAD_ARGUMENTS = {"threads", "n_threads", "num_threads", "n_jobs"}


def _thread_users() -> dict[str, str]:
    """Top-level functions and methods that use threads, ``module.qualname`` -> the bare
    function name (the key of :data:`THREAD_CASES`)."""
    users = {}
    for path in _sources():
        tree = ast.parse(path.read_text(), str(path))
        tops = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                tops.append((node.name, node))
            elif isinstance(node, ast.ClassDef):
                tops += [(f"{node.name}.{f.name}", f) for f in node.body
                         if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for qualname, fn in tops:
            for node in ast.walk(fn):
                name = node.id if isinstance(node, ast.Name) else \
                    node.attr if isinstance(node, ast.Attribute) else None
                parallel = isinstance(node, ast.keyword) and node.arg == "parallel"
                argument = isinstance(node, ast.arg) and node.arg in THREAD_ARGUMENTS
                if name in THREAD_MARKERS or parallel or argument:
                    users[f"{_module_of(path)}.{qualname}"] = qualname.rsplit(".", 1)[-1]
                    break
    return users


def _ladder_case() -> list[np.ndarray]:
    """The ladder simulator: seeds split over threads."""
    P = _import("fastrate.stats.pairing")
    ladder = P.Ladder.geometric(16, newcomers=3, n_games=400)
    out = []
    for scheduler in P.SCHEDULERS:
        for system in P.SYSTEMS:
            r = P.simulate(ladder, scheduler, system, 400, n_seeds=3, seed=9,
                           seed_games=(2, 1), record_games=True)
            out += [r.rmse, r.bits, r.ratings, r.white, r.score]
    return out


def _pga_case() -> list[np.ndarray]:
    """PGA pairs: players split over threads. 240,000 seatings, above the 100,000 per
    thread below which pga keeps to one thread."""
    P = _import("fastrate.stats.placement")
    rng = np.random.default_rng(3)
    n_games, capacity, n_players = 40_000, 6, 3000
    game = np.repeat(np.arange(n_games), capacity)
    seat = np.tile(np.arange(1, capacity + 1), n_games)
    player = (rng.integers(0, n_players, n_games)[:, None] + 7 * np.arange(capacity)) \
        % n_players
    watchers = rng.integers(1, 60, game.size).astype(float)
    r = P.pga(game, player.ravel(), seat, watchers, capacity=capacity)
    return [np.asarray(r[k]) for k in sorted(r)]


#: bare name of every function that uses threads -> the case that runs it
def _bootstrap_case() -> list[np.ndarray]:
    """Batch Bradley-Terry's parametric bootstrap: samples split over threads."""
    bt = _import("fastrate.ratings.bradley_terry")
    rng = np.random.default_rng(7)
    n, g = 12, 600
    white = rng.integers(0, n, g)
    black = (white + rng.integers(1, n, g)) % n
    games = _import("fastrate").Games.from_arrays(white, black,
                                                  rng.choice([0.0, 0.5, 1.0], g))
    r = bt.fit(games, bt.BTConfig(model="bayeselo", advantage="fit", prior=2.0))
    e = bt.bootstrap(r, samples=16, seed=1)
    return [e.rating, np.array([e.advantage, e.drawelo, e.n_samples])]


def _bt_series_case() -> list[np.ndarray]:
    """Batch Bradley-Terry's certified series for the standard errors: blocks of players
    split over threads (700 players: three blocks)."""
    fr = _import("fastrate")
    bt = _import("fastrate.ratings.bradley_terry")
    rng = np.random.default_rng(8)
    n, g = 700, 40_000
    white = rng.integers(0, n, g)
    black = (white + rng.integers(1, n, g)) % n
    games = fr.Games.from_arrays(white, black, rng.choice([0.0, 0.5, 1.0], g))
    U = _import("fastrate.ratings._bt_uncertainty")
    # the thresholds lowered so that the pairs' terms, the products with A and the LOS
    # columns run over threads at this size
    saved = bt.PAIRS_PER_THREAD, U.MIN_ENTRIES_PER_THREAD
    bt.PAIRS_PER_THREAD, U.MIN_ENTRIES_PER_THREAD = 1000, 1000
    try:
        r = bt.fit(games, bt.BTConfig(model="bayeselo", advantage="fit"))
        e = bt.standard_errors(r, method="series")
        _, los = bt.los(r, top=20, method="series")
    finally:
        bt.PAIRS_PER_THREAD, U.MIN_ENTRIES_PER_THREAD = saved
    return [r.rating, e.rating, np.array([e.advantage, e.drawelo, e.bound, e.rho]), los]


def _pools_case() -> list[np.ndarray]:
    """Independent pools: one pool per thread (as many threads as Numba's)."""
    fr = _import("fastrate")
    pools_mod = _import("fastrate.pools")
    rng = np.random.default_rng(5)
    pools = {}
    for k in range(4):
        white = rng.integers(0, 30, 500)
        black = (white + rng.integers(1, 30, 500)) % 30
        pools[f"p{k}"] = fr.Games.from_arrays(white, black, rng.choice([0.0, 0.5, 1.0], 500),
                                              period=np.arange(500) // 50)
    rated = pools_mod.rate_pools(pools, "glicko2", workers=numba.get_num_threads())
    return [np.concatenate([r.rating, r.state["rd"]]) for r in rated.values()]


def _tune_case() -> list[np.ndarray]:
    """Tuning trials: configurations split over threads (as many as Numba's)."""
    fr = _import("fastrate")
    tune = _import("fastrate.tune")
    rng = np.random.default_rng(6)
    white = rng.integers(0, 20, 800)
    black = (white + rng.integers(1, 20, 800)) % 20
    games = fr.Games.from_arrays(white, black, rng.choice([0.0, 0.5, 1.0], 800),
                                 period=np.arange(800) // 40)
    r = tune.tune(games, "elo:k=8|16|24|32,advantage=0|30", burn_in=2, fit_until=15,
                  workers=numba.get_num_threads())
    trials = r.trials if hasattr(r.trials, "column") else None
    values = [np.asarray(trials.column(c).to_numpy()) for c in ("log_loss", "brier")] \
        if trials is not None else [np.asarray([t["log_loss"] for t in r.trials])]
    return values


def _elo_final_case() -> list[np.ndarray]:
    """Elo's final ratings up to 2^17 players: the games played counted on a second
    thread beside the ratings (from 2^16 games)."""
    fr = _import("fastrate")
    elo = _import("fastrate.ratings.elo")
    rng = np.random.default_rng(8)
    g = elo._SPLIT_THREAD_MIN_GAMES + 500
    white = rng.integers(0, 500, g)
    black = (white + rng.integers(1, 500, g)) % 500
    games = fr.Games.from_arrays(white, black, rng.choice([0.0, 0.5, 1.0], g),
                                 period=np.sort(rng.integers(0, 9, g)),
                                 weight=rng.uniform(0.2, 1.0, g))
    r = elo.rate(games, elo.EloConfig(k=24.0, advantage=20.0), predictions=False)
    # without periods the counts go straight into the games played
    plain = fr.Games.from_arrays(white, black, rng.choice([0.0, 0.5, 1.0], g))
    q = elo.rate(plain, elo.EloConfig(k=24.0), predictions=False)
    return [r.rating, r.games_played, r.last_period, q.rating, q.games_played]


def _intern_case() -> list[np.ndarray]:
    """Sparse integer ids interned by radix partitions (taken from 2^20 ids here):
    rows and partitions split over threads (2^20 ids a thread)."""
    P = _import("fastrate.data.players")
    rng = np.random.default_rng(12)
    pool = rng.integers(-2**63, 2**63 - 1, 40_000)
    cols = pool[rng.integers(0, pool.shape[0], (2, P.PARTITION_MIN_PER_THREAD + 1000))]
    saved = P.PARTITION_MIN
    P.PARTITION_MIN = 1 << 20
    try:
        index, ids = P.PlayerIndex.intern(*cols)
        # string ids through the partitions too (in blocks of 2^21 ids here)
        saved_str = P.STR_PARTITION_MIN, P.STR_BLOCK_IDS
        P.STR_PARTITION_MIN, P.STR_BLOCK_IDS = 0, 1 << 21
        import pyarrow as pa
        names = pa.array([f"player{v % 5000:06d}" + "x" * (v % 3 * 5) for v in pool])
        sindex, sids = P.PlayerIndex.intern(*(names.take(pa.array(c % len(pool)))
                                              for c in rng.integers(0, 2**40, cols.shape)))
    finally:
        P.PARTITION_MIN = saved
        P.STR_PARTITION_MIN, P.STR_BLOCK_IDS = saved_str
    return [index.names, *ids, sindex.names, *sids]


def _streaming_case() -> list[np.ndarray]:
    """Chunks of a Parquet file read one ahead in a thread beside the rating (and the
    integer ids interned straight into the whole input's table)."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    streaming = _import("fastrate.streaming")
    rng = np.random.default_rng(21)
    n = 3000
    white = rng.integers(0, 300, n)
    black = (white + rng.integers(1, 300, n)) % 300
    table = pa.table({"white": white + 10**6, "black": black + 10**6,
                      "score": rng.choice([0.0, 0.5, 1.0], n),
                      "season": np.sort(rng.integers(0, 9, n))})
    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/games.parquet"
        pq.write_table(table, path, row_group_size=400)
        out = []
        for spec in ("elo", "glicko2"):
            r = streaming.rate_chunks(path, spec, chunk_rows=350, period="season")
            out += [r.players.names, r.rating, r.games_played]
    return out


THREAD_CASES: dict[str, Callable[[], list[np.ndarray]]] = {
    "_read_ahead": _streaming_case,
    "_encode_partitioned": _intern_case,
    "_radix_threads": _intern_case,
    "_rate_final": _elo_final_case,
    "shared_pool": _elo_final_case,
    "rate_pools": _pools_case,
    "__init__": _tune_case,
    "bootstrap": _bootstrap_case,
    "diagonal_moments": _bt_series_case,
    "_workers": _bt_series_case,
    "_gradient_curvature": _bt_series_case,
    "_pair_workers": _bt_series_case,
    "_run_seeds": _ladder_case,
    "_player_chunks": _pga_case,
    "_in_threads": _pga_case,
}
#: cases whose second thread is a one-worker pool beside the calling thread (the
#: chunk reader): with two threads it must start one, with one thread none
BESIDE_CALLER = {_streaming_case}
#: functions that run work side by side but compute no numbers, and why
NO_RESULTS = {
    "run_warmup": "compiles kernel groups in worker processes; nothing comes out but the cache",
}


def test_every_thread_user_has_a_case():
    users = _thread_users()
    assert users, "no thread users found: is the discovery broken?"
    missing = sorted(q for q, name in users.items()
                     if name not in THREAD_CASES and name not in NO_RESULTS)
    assert not missing, ("these functions use threads but no case in "
                         f"tests/test_kernels.py::THREAD_CASES runs them: {missing}")
    parallel = sorted(n for n, d in kernels().items() if d.targetoptions.get("parallel"))
    missing = [n for n in parallel if n.rsplit(".", 1)[-1] not in THREAD_CASES]
    assert not missing, f"parallel kernels without a case in THREAD_CASES: {missing}"


class _CountingPool(concurrent.futures.ThreadPoolExecutor):
    workers: list[int | None] = []

    def __init__(self, max_workers=None, *args, **kwargs):
        _CountingPool.workers.append(max_workers)
        super().__init__(max_workers, *args, **kwargs)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return a.tolist() == b.tolist() if a.dtype == object else a.tobytes() == b.tobytes()


@pytest.mark.parametrize("case", sorted(set(THREAD_CASES.values()), key=lambda f: f.__name__),
                         ids=lambda f: f.__name__.strip("_"))
def test_same_bits_with_one_and_two_threads(case, monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("NUMBA_NUM_THREADS < 2")
    # count the thread pools the code starts (imported at call time or at module level)
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", _CountingPool)
    for name in _module_names():
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "ThreadPoolExecutor"):
            monkeypatch.setattr(module, "ThreadPoolExecutor", _CountingPool)
    # the kernels' shared pool (fastrate._threads) is made anew inside each run, so that
    # it is counted too: none with one thread, one of >= 2 workers with two
    shared = _import("fastrate._threads")
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        _CountingPool.workers = []
        monkeypatch.setattr(shared, "_POOL", [])
        one = case()
        assert all((w or 1) <= 1 for w in _CountingPool.workers), _CountingPool.workers
        numba.set_num_threads(2)
        _CountingPool.workers = []
        monkeypatch.setattr(shared, "_POOL", [])
        two = case()
    finally:
        numba.set_num_threads(saved)
        for pool in shared._POOL:
            pool.shutdown()
    assert any((w or 0) >= 2 for w in _CountingPool.workers) or any(
        d.targetoptions.get("parallel") for d in kernels().values()) or (
        case in BESIDE_CALLER and _CountingPool.workers), \
        f"{case.__name__} started no pool of 2 threads with 2 threads: {_CountingPool.workers}"
    assert len(one) == len(two) > 0
    differ = [i for i, (a, b) in enumerate(zip(one, two)) if not _same_bits(a, b)]
    assert not differ, f"{case.__name__}: outputs {differ} differ between 1 and 2 threads"


# ----------------------------------------------------------------------------------
# 3. the kernels as Python

#: a fresh interpreter with NUMBA_DISABLE_JIT=1 runs the warm-up (every kernel group on
#: tiny inputs) and the modes and branches its tiny inputs miss; it reports the kernels
#: called (argv[1]: the modules to import and where each kernel lives)
_PYTHON_SCRIPT = textwrap.dedent("""
    import functools, importlib, json, sys, warnings
    import numpy as np

    def load(name):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(name)

    # the kernels (plain functions without JIT), by the name the parent found them under;
    # every module's name for one is swapped for a wrapper that notes the call (kernels
    # call each other through module globals, so the wrappers see those calls too)
    wanted = json.loads(sys.argv[1])
    for name in wanted["modules"]:
        load(name)
    kernel_names = {}
    for name, (module, attr) in wanted["kernels"].items():
        kernel_names[id(getattr(sys.modules[module], attr))] = name
    called = set()

    def noting(fn, name):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            called.add(name)
            return fn(*args, **kwargs)
        return wrapper

    wrappers = {}
    for mod_name, module in list(sys.modules.items()):
        if mod_name.split(".")[0] == "fastrate":
            for attr, value in list(vars(module).items()):
                if id(value) in kernel_names:
                    if id(value) not in wrappers:
                        wrappers[id(value)] = noting(value, kernel_names[id(value)])
                    setattr(module, attr, wrappers[id(value)])

    import fastrate
    from fastrate._warmup import warmup
    # in this process (not in worker processes), where the calls are noted
    warmup(workers=1)

    # scores off the multiples of 10 (sorted path), artificial scores (board 2 is left
    # with one real result), medians, the O(T^2) reference
    scoring = load("fastrate.bridge.scoring")
    off, ns = np.array([0, 4, 6]), np.array([425.0, 450.0, -50.0, 425.0, 100.0, 140.0])
    for f in (scoring.cross_imps, scoring.butler_imps, scoring.matchpoints):
        for art in (None, np.array([0, 0, 1, 0, 0, 2])):
            f(off, ns, artificial=art)
            f(off, np.round(ns, -1), artificial=art)
    scoring.butler_imps(off, ns, datum="median")
    scoring.butler_imps(off, np.round(ns, -1), datum="median")
    # boards with named and integer players, their graphs, Elo with every option
    bridge_elo = load("fastrate.bridge.bridge_elo")
    seats = dict(north=[1, 5, 1, 5, 1, 5], south=[2, 6, 2, 6, 2, 6],
                 east=[3, 7, 3, 7, 3, 7], west=[4, 8, 4, 8, 4, 8])
    for names in (False, True):
        cols = {k: [f"p{x}" for x in v] if names else v for k, v in seats.items()}
        boards = fastrate.Boards.from_arrays([1, 1, 2, 2, 3, 3], ns, event=[0] * 6,
                                             period=[0, 0, 0, 0, 1, 1], **cols)
        boards.components()
        boards.partnership_components()
        bridge_elo.components(boards)
        for margin in bridge_elo.MARGINS:
            for model in bridge_elo.MODELS:
                bridge_elo.rate(boards, bridge_elo.BridgeEloConfig(
                    model=model, margin=margin, k_games=((2.0, 30.0), (float("inf"), 10.0)),
                    k_experience=((1.0, 1.5), (float("inf"), 1.0)), experience_bonus=5.0))
    # the ladder: every scheduler and system
    ladder = load("fastrate.stats.pairing")
    lad = ladder.Ladder.geometric(8, newcomers=2, n_games=60)
    for scheduler in ladder.SCHEDULERS:
        for system in ladder.SYSTEMS:
            ladder.simulate(lad, scheduler, system, 60, n_seeds=2, seed_games=(1, 1))
    # placement: chi-square tails beyond the closed forms
    placement = load("fastrate.stats.placement")
    placement.p_value(np.array([3000.0, 5.0, 500.0]), np.array([6.0, 301.0, 301.0]))
    # TrueSkill far in the tails (the Mills-ratio continued fraction), a win and a draw
    trueskill = load("fastrate.ratings.trueskill")
    for ranks in ([0, 1], [0, 0]):
        trueskill.rate_match([[(0.0, 1.0)], [(1000.0, 1.0)]], ranks)
    # Weng-Lin: the 1v1 and free-for-all paths, every model, normal predictions, margins, ties
    wl = load("fastrate.ratings.weng_lin")
    one = fastrate.Matches.from_arrays([0, 0, 1, 1], None, ["a", "b", "b", "c"], rank=[1, 2, 1, 1])
    ffa = fastrate.Matches.from_arrays([0, 0, 0], None, ["a", "b", "c"], rank=[1, 2, 2])
    teams = fastrate.Matches.from_arrays([0] * 5, [0, 0, 1, 2, 2], list("abcde"),
                                         score=[3.0, 3.0, 1.0, 0.0, 0.0])
    for model in wl.MODELS:
        for predict in wl.PREDICTS:
            for rule in wl.MARGIN_RULES:
                cfg = wl.WengLinConfig(model=model, predict=predict, margin=0.5,
                                       margin_rule=rule, limit_sigma=True, balance=True)
                for m in (one, ffa, teams):
                    wl.rate(m, cfg)
        # the two-team lanes (every model), a tie among them
        wl.rate(fastrate.Matches.from_arrays([0] * 4 + [1] * 4, [0, 0, 1, 1] * 2,
                                             list("abcdefgh"), rank=[1, 1, 2, 2, 1, 1, 1, 1]),
                wl.WengLinConfig(model=model))
        # the scalar 1v1 kernel that the 1v1 lanes are checked against (test_weng_lin)
        wl._weng_lin_1v1(one.player, one.rank, np.ones(6), np.empty(4), np.empty(2),
                         np.zeros(3, dtype=np.int64), wl._params(wl.WengLinConfig(model=model),
                                                                 False))
    # batch Bradley-Terry: both models, fitted advantage and drawelo, prior, the SCC check
    bt = load("fastrate.ratings.bradley_terry")
    g = fastrate.Games.from_arrays(["a", "b", "c", "a", "b", "c"], ["b", "c", "a", "c", "a", "b"],
                                   [1.0, 0.5, 1.0, 0.5, 0.0, 0.5])
    for model in bt.MODELS:
        r = bt.fit(g, bt.BTConfig(model=model, advantage="fit", prior=1.0))
        bt.covariance(r, method="cg")   # _hessian_block
    mm = load("fastrate.ratings.bradley_terry_mm")
    for model in mm.MM_MODELS:
        mm.fit_mm(g, bt.BTConfig(model=model, advantage="fit", prior=1.0), tolerance_elo=1e-3)
    load("fastrate.ratings.network_scores").network_scores(g)
    # interning (fastrate.data._intern): the integer hash in one pass and column by
    # column, tables that grow, dictionary arrays, the string hash
    import pyarrow as pa
    players = load("fastrate.data.players")
    players.MIN_SLOTS = 4
    sparse = np.array([2**40, -7, 2**40, 5, 3 * 2**50, -7])
    fastrate.PlayerIndex.intern(sparse, sparse[::-1].copy())
    fastrate.PlayerIndex.intern(sparse, sparse[:4])
    fastrate.PlayerIndex.intern(np.array([3, 1, 3]), np.array([1, 2, 2]))
    fastrate.PlayerIndex.intern(pa.array([5, 9, 5]).dictionary_encode(), pa.array([1, 2]))
    fastrate.PlayerIndex.intern(pa.array(["a", "bb" * 40, "ccc", "a", "dd"]),
                                pa.array(["e", "a"]))
    # one pass over string columns (encode_str_rows, its rehash and names), and the
    # per-column encoders that dictionary columns still use (string and integer hash)
    fastrate.PlayerIndex.intern(pa.array(["a", "bb" * 40, "ccc", "a", "dd", "ab"]),
                                pa.array(["ccc", "e", "a", "x" * 9, "bb" * 40, "a"]))
    fastrate.PlayerIndex.intern(pa.array(["a", "bb" * 40, "a"]).dictionary_encode(),
                                pa.array(["c", "a"]))
    fastrate.PlayerIndex.intern(pa.array(sparse).dictionary_encode(), pa.array(sparse[:3]))
    # the radix partitions (large calls; here every call, on two threads), then the
    # one-pass hash on the table rebuilt after them, and a name table across calls
    players.PARTITION_MIN, players.PARTITION_MIN_PER_THREAD = 0, 4
    extremes = np.array([2**40, -7, 2**40, 5, 3 * 2**50, -7, -2**63, 2**63 - 1])
    fastrate.PlayerIndex.intern(extremes, extremes[::-1].copy())
    table = players.NameTable("int")
    table.ids(np.array([5, 9, -2**63])), table.ids(np.array([9, 4]))
    players.PARTITION_MIN = 1 << 62
    table.ids(np.array([4, 8]))
    # string ids by the partitions (short and long keys, long keys made equal so the
    # bytes decide; names known from a first call)
    players.PARTITION_MIN, players.STR_PARTITION_MIN, players.LONG_HASH_MASK = 0, 0, 3
    text = players.NameTable("str")
    text.ids(np.array(["a", "x" * 20, "", "\\x00"], dtype=object))
    text.ids(np.array(["x" * 19 + "y", "b" * 15, "a", "x" * 20], dtype=object))
    fastrate.PlayerIndex.intern(pa.array(["q" * 17, "p", "q" * 17]),
                                pa.array(["p", "r" * 30, "s"], pa.large_string()))
    players.PARTITION_MIN, players.STR_PARTITION_MIN = 1 << 62, 1 << 62
    players.LONG_HASH_MASK = 2**64 - 1
    text.ids(np.array(["c", "x" * 20], dtype=object))
    players.PARTITION_MIN, players.PARTITION_MIN_PER_THREAD = 1 << 24, 1 << 20
    players.STR_PARTITION_MIN = 1 << 24
    players.MIN_SLOTS = 1024
    # scores as running sums: weights, a mask, draws, calibration bins
    metrics = load("fastrate.metrics")
    acc = metrics.ScoreSums(bins=4)
    acc.add([0.8, 0.5, 0.3, 0.0], [1.0, 0.5, 1.0, 0.0], weights=[1.0, 2.0, 1.0, 1.0],
            mask=np.array([True, True, False, True]))
    acc.summary("half"), acc.calibration()
    metrics.match_summary([0.5, 0.3, 0.2], [0.6, 0.7, 0.55], [1, 2, 2], [0, 3])
    # Elo's final ratings only, with and without periods: the ratings and the counts apart
    # (up to 2^17 players), then one record per player (the bound lowered to 0)
    elo = load("fastrate.ratings.elo")
    for split in (elo._SPLIT_MAX_PLAYERS, 0):
        elo._SPLIT_MAX_PLAYERS = split
        for period in (None, [0, 0, 1, 1, 2, 2]):
            elo.rate(fastrate.Games.from_arrays(g.white, g.black, g.score, period=period,
                                                weight=[1.0, 0.5, 1.0, 1.0, 0.5, 1.0],
                                                neutral=[True, False] * 3),
                     elo.EloConfig(advantage=30.0, cap=400.0), predictions=False)
    # Elo's modelling levers: context ratings, match formats, points share, newcomers
    elo.rate(fastrate.Games.from_arrays(g.white, g.black, g.score, context=[0, 1] * 3,
                                        best_of=[3, 5, 1, 3, 5, 3], share=[0.6] * 6,
                                        entry=[1400.0, np.nan] * 3),
             elo.EloConfig(context_weight=0.5, best_of=3, points_share=0.3,
                           newcomer="opponent"))
    print(json.dumps(sorted(called)))
""")

#: kernels nothing calls need no Python run (none: dead kernels are removed)
KNOWN_UNCALLED: set[str] = set()


@pytest.mark.slow
def test_kernel_bodies_run_as_python():
    sites = kernel_sites()
    assert len(sites) > 30, f"only {len(sites)} kernels found: is the discovery broken?"
    wanted = {"modules": _module_names(),
              "kernels": {name: site[:2] for name, site in sites.items()}}
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # warnings are errors, except NumPy scalars wrapping around in the hash and random
    # stream kernels, as they do on purpose in the compiled code
    res = subprocess.run(
        [sys.executable, "-W", "error", "-W",
         "ignore:overflow encountered in scalar multiply:RuntimeWarning",
         "-c", _PYTHON_SCRIPT, json.dumps(wanted)], env=env, cwd=ROOT, capture_output=True,
        text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    called = set(json.loads(res.stdout.strip().splitlines()[-1]))
    assert len(called) > 30
    missed = sorted(set(sites) - called - KNOWN_UNCALLED)
    assert not missed, ("kernels whose Python body never ran under NUMBA_DISABLE_JIT=1; "
                        "call them in fastrate._warmup or in this test's script: "
                        f"{missed}")
