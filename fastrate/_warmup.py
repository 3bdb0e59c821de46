"""Compile every kernel into Numba's on-disk cache, group by group (``fastrate warmup``).

The warm-up is a list of named kernel groups (:func:`groups`): each group calls the
public functions of one subject on a tiny input, which compiles (or loads from the
cache) every kernel specialisation those calls use. Every rating system of the registry
(:mod:`fastrate.systems`) is a group, run with its ``warm_specs`` on the registry's tiny
data, so a newly registered system is warmed without a change here; the other subjects
(the ladder simulator, placement statistics, bridge scoring) are the entries of
:data:`GROUPS`.

What a group did is measured, not declared: the Numba dispatchers of every loaded
``fastrate`` module are read before and after it (their signatures, and the cache
misses of ``dispatcher.stats``), so the counts are the specialisations that really
compiled (a cache miss) or loaded from the disk cache.

The groups run in worker processes (``fork`` where the platform has it, so the workers
inherit the imports, else ``spawn``; as many as there are CPUs, at most 4), each
compiling into the shared on-disk cache, and are reported as they finish. A group that
reuses another group's kernels (bridge scoring uses the cross-IMPs and Boards kernels
that bridge Elo compiles) names it in ``after`` and runs right after it in the same
worker, where those kernels are loaded already. Numba keeps each kernel's cache as an index file plus one data file per
specialisation, and numbers a new data file from the index it has just read: two
processes saving *different* specialisations of one kernel at the same moment could
pick the same file. The workers therefore hold one shared lock while they save (loads
need none: Numba replaces files atomically).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from queue import Empty
from typing import Any, NamedTuple

import numpy as np

__all__ = ["COST_HINTS", "GROUPS", "WarmGroup", "GroupResult", "WarmupReport", "groups",
           "kernel_specialisations", "run_warmup", "warmup"]


class WarmGroup(NamedTuple):
    """A kernel group: its name, the function that runs its public calls on tiny input,
    and the groups whose kernels it reuses (it starts after them when it can)."""

    name: str
    run: Callable[[], None]
    after: tuple[str, ...] = ()


# -- the groups: public calls on tiny inputs ------------------------------------------

def _warm_system(name: str) -> None:
    """A registered rating system: each of its ``warm_specs`` on the registry's tiny data,
    with and without per-game outputs where it can skip them."""
    from fastrate import systems

    system = systems.get(name)
    datasets = [systems.tiny_data(system.data)]
    if system.data == "matches":  # the unweighted and the two-player fast paths
        from fastrate.data.matches import Matches

        datasets.append(systems.tiny_data("matches", weighted=False))
        from fastrate.data.games import Games

        datasets.append(Matches.from_games(Games.from_arrays(
            ["a", "b", "c", "a"], ["b", "c", "a", "c"], [1.0, 0.0, 0.5, 1.0],
            period=[0, 0, 1, 2])))
        # every match two teams (a 1v2, then 2v2s: more than a batch of lanes, so the
        # next batch is prefetched): the two-team fast paths
        n2 = 20
        datasets.append(Matches.from_arrays(
            match=[0, 0, 0] + [m for m in range(1, n2) for _ in range(4)],
            team=["x", "y", "y"] + ["x", "x", "y", "y"] * (n2 - 1),
            player=["d", "a", "b"] + [f"p{(4 * m + i) % 23}" for m in range(1, n2)
                                      for i in range(4)],
            rank=[1, 2, 2] + [1, 1, 2, 2] * (n2 - 1),
            period=[0, 0, 0] + [m // 10 for m in range(1, n2) for _ in range(4)]))
    for spec in system.warm_specs or (name,):
        parsed = systems.SystemSpec.parse(spec)
        for data in datasets:
            parsed.rate(data)
            if system.final_only:  # `fastrate rate` without --predictions
                parsed.rate(data, predictions=False)


def _warm_pairing() -> None:
    """The ladder simulator (one specialisation serves every scheduler and system)."""
    from fastrate.stats import pairing

    ladder = pairing.Ladder.geometric(4, newcomers=1, n_games=8)
    pairing.simulate(ladder, "greedy", "glicko2", 8, n_seeds=2, period_games=2,
                     seed_games=(2, 1), n_points=2)


def _warm_placement() -> None:
    """The statistics of place counts (integer counts are read as float64, so one pass
    compiles both)."""
    from fastrate.stats import placement

    counts = np.array([[3, 1, 0, 2, 1, 0, 1], [0, 0, 0, 0, 0, 0, 0]], dtype=np.int64)
    placement.placement_stats(counts, points=[10.0, 0.0])
    placement.chi_square(counts)
    placement.tazd_star(counts)
    placement.convolution_integral(counts)
    placement.standings_from_counts(counts)
    placement.p_value([1.0, 2.0], 3)


def _warm_placement_logs() -> None:
    """The statistics of game logs: own-reference profiles, standings, affiliates (PGA)."""
    from fastrate.stats import placement

    log = (["a", "b", "a", "b"], [1, 2, 2, 1], [10.0, -10.0, -10.0, 10.0], [0.0, 0.0, 1.0, 1.0])
    placement.taowr(*log)
    placement.taolz(*log, floor=0.0, observed="after")
    placement.standings([1, 1], ["a", "b"], [1, 2])
    placement.pga([1, 1], ["a", "b"], [1, 2], [5, 5])
    placement.pga([2, 1, 1, 2], [3, 4, 3, 4], [1, 2, 1, 2], [5, 5, 5, 5])  # the sorting path


def _warm_bridge() -> None:
    """Contract scoring, and the integer-id fast paths of Boards (direct seat tables,
    streamed scatter) scored every way, as a Parquet file of the synthetic generator's
    shape takes them."""
    import pyarrow as pa

    from fastrate.bridge import contract, scoring
    from fastrate.bridge.boards import boards_from_table

    contract.score_contract("4HX=", True)
    ids = np.arange(16, dtype=np.int64)
    table = pa.table({
        "event": np.zeros(4, dtype=np.int64), "board": np.array([1, 1, 2, 2]),
        "north": ids[0:4], "south": ids[4:8], "east": ids[8:12], "west": ids[12:16],
        "ns_score": np.array([420, -50, 100, 140], dtype=np.int64),
        "time": pa.array(np.array([0, 0, 86400, 86400]).astype("datetime64[s]")),
    })
    boards = boards_from_table(table, period="3d")
    for method in scoring.METHODS:
        boards.score(method)


#: The kernel groups beside the rating systems (see :func:`_chains` for the order the
#: workers take them in).
def _warm_pgn() -> None:
    """The PGN reader's kernels: scan, classify, gather, pick, dates; and a stream read
    in parts of one game (the offsets of the second counted from its own start)."""
    import io

    from fastrate.io.pgn_games import parse_pgn, pgn_chunks

    game = ('[Event "E"]\n[Date "2024.01.02"]\n[White "A"]\n[Black "B"]\n'
            '[Result "1-0"]\n1. e4 {c} 1-0\n')
    parse_pgn(game, name="warm-up", date=True, period="event")
    list(pgn_chunks(io.BytesIO(3 * game.encode()), chunk_rows=1, date=True))


def _warm_intern() -> None:
    """Interning player names: the integer table and hash (one pass, and column by
    column), dictionary arrays, strings."""
    import pyarrow as pa

    from fastrate.data.players import PlayerIndex

    dense = np.array([3, 1, 3], dtype=np.int64)
    sparse = np.array([2**40, -7, 2**40, 5], dtype=np.int64)
    PlayerIndex.intern(dense, np.array([1, 2, 2], dtype=np.int64))
    PlayerIndex.intern(sparse, sparse[::-1].copy())
    PlayerIndex.intern(sparse, sparse[:3])
    PlayerIndex.intern(dense, dense[:2])
    PlayerIndex.intern(pa.array([5, 9, 5]).dictionary_encode(), pa.array([1, 2]))
    PlayerIndex.intern(pa.array(["a", "bb", "a"]), pa.array(["c", "a", "bb"]))
    PlayerIndex.intern(pa.array(["a", "bb", "a"]).dictionary_encode(),
                       pa.array(["c", "a", "bb"]).dictionary_encode())


def _warm_batch() -> None:
    """The batch fits' uncertainty (the Hessian blocks of the CG covariance), the MM
    cross-check and the network scores."""
    from fastrate.data import Games
    from fastrate.ratings import _bt_uncertainty as U
    from fastrate.ratings import bradley_terry as bt
    from fastrate.ratings import bradley_terry_mm, network_scores

    g = Games.from_arrays(["a", "b", "c", "a", "b", "c"], ["b", "c", "a", "c", "a", "b"],
                          [1.0, 0.5, 1.0, 0.5, 0.0, 0.5])
    r = bt.fit(g, bt.BTConfig(model="bayeselo", advantage="fit", prior=1.0))
    bt.covariance(r, method="cg")
    bt.standard_errors(r)
    bt.standard_errors(r, method="series")  # the certified series' kernels
    bt.los(r, top=3, method="series")
    r = bt.fit(g, bt.BTConfig(model="bayeselo", advantage="fit"))  # deflated (no prior)
    bt.standard_errors(r, method="series")
    # fixed advantage and drawelo, Gaussian prior: Lanczos alone (single-vector products)
    r = bt.fit(g, bt.BTConfig(model="bayeselo", advantage=30.0, drawelo=90.0,
                              gaussian_prior=(0.0, 300.0)))
    bt.los(r, top=3, method="series")
    # the graph kernels for more than NARROW_NEIGHBOURS_MAX players (int32 neighbours)
    narrow, U.NARROW_NEIGHBOURS_MAX = U.NARROW_NEIGHBOURS_MAX, 0
    try:
        r = bt.fit(g, bt.BTConfig(model="bayeselo", advantage="fit", prior=1.0))
        bt.standard_errors(r, method="series")
        bt.los(r, top=3, method="series")
    finally:
        U.NARROW_NEIGHBOURS_MAX = narrow
    for model in bradley_terry_mm.MM_MODELS:
        bradley_terry_mm.fit_mm(g, bt.BTConfig(model=model, prior=1.0), tolerance_elo=1e-3)
    network_scores.network_scores(g)


def _warm_metrics() -> None:
    """The scores' running sums (evaluation)."""
    from fastrate.metrics import ScoreSums, match_summary

    acc = ScoreSums(bins=10)
    acc.add(np.array([0.8, 0.3]), np.array([1.0, 0.0]))
    acc.add(np.array([0.8, 0.3]), np.array([1.0, 0.0]), weights=np.array([1.0, 2.0]),
            mask=np.array([True, False]))
    match_summary(np.array([0.5, 0.3, 0.2]), np.array([0.6, 0.7, 0.55]),
                  np.array([1, 2, 2]), np.array([0, 3]))


GROUPS: list[WarmGroup] = [
    WarmGroup("intern", _warm_intern),
    WarmGroup("metrics", _warm_metrics),
    WarmGroup("batch", _warm_batch, after=("bradley_terry",)),
    WarmGroup("pairing", _warm_pairing),
    WarmGroup("placement", _warm_placement),
    WarmGroup("bridge", _warm_bridge, after=("bridge_elo",)),  # cross-IMPs, Boards
    WarmGroup("placement_logs", _warm_placement_logs, after=("placement",)),
    WarmGroup("pgn", _warm_pgn),
]


def groups() -> list[WarmGroup]:
    """Every kernel group: one per registered rating system (:mod:`fastrate.systems`,
    named after the system), then :data:`GROUPS`."""
    from fastrate import systems

    return [WarmGroup(n, partial(_warm_system, n)) for n in systems.names()] + list(GROUPS)


# -- counting specialisations -----------------------------------------------------------

def _dispatchers() -> list[Any]:
    """Every Numba dispatcher held by a loaded ``fastrate`` module (each once)."""
    from numba.core.dispatcher import Dispatcher

    found: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if name == "fastrate" or name.startswith("fastrate."):
            for value in list(vars(module).values()):
                if isinstance(value, Dispatcher):
                    found[id(value)] = value
    return list(found.values())


_ARRAY = re.compile(r"array\((\w+), (\d)d, C\)")  # numba's name of a C array -> int64[:]


def kernel_specialisations() -> dict[str, bool]:
    """``{"module.kernel(arg types)": compiled}`` for every specialisation that the
    loaded ``fastrate`` kernels hold in this process: True when it was compiled here
    (a miss of the disk cache), False when it was loaded from the cache."""
    out = {}
    for dispatcher in _dispatchers():
        fn = dispatcher.py_func
        misses = dispatcher.stats.cache_misses
        for sig in dispatcher.signatures:
            args = _ARRAY.sub(lambda m: f"{m[1]}[{', '.join(':' * int(m[2]))}]",
                              ", ".join(map(str, sig)))
            out[f"{fn.__module__}.{fn.__qualname__}({args})"] = misses.get(sig, 0) > 0
    return out


class _KernelCounts:
    """``compiled`` and ``loaded`` from ``kernels`` (specialisation -> compiled here?)."""

    kernels: dict[str, bool]

    @property
    def compiled(self) -> int:
        return sum(self.kernels.values())

    @property
    def loaded(self) -> int:
        return len(self.kernels) - self.compiled


@dataclass(frozen=True)
class GroupResult(_KernelCounts):
    """What one kernel group did: the specialisations it added to the process that ran
    it (``kernels``, keyed as in :func:`kernel_specialisations`; True = compiled, False =
    loaded from the disk cache), its wall time, the cache folders it used, and the process
    that ran it with that process's CPU time so far (imports included)."""

    name: str
    seconds: float
    kernels: dict[str, bool] = field(default_factory=dict)
    cache_dirs: tuple[str, ...] = ()
    pid: int = 0
    process_cpu: float = 0.0

    def line(self) -> str:
        """``elo: 2 kernels (2 compiled, 0 loaded from the cache), 1.4 s``"""
        return (f"{self.name}: {len(self.kernels)} kernels ({self.compiled} compiled, "
                f"{self.loaded} loaded from the cache), {self.seconds:.1f} s")


@dataclass(frozen=True)
class WarmupReport(_KernelCounts):
    """The whole warm-up: each group's result in the order they finished, the distinct
    specialisations over all workers (a kernel two groups use counts once; compiled if
    any worker compiled it), the wall time and the number of worker processes."""

    groups: tuple[GroupResult, ...]
    kernels: dict[str, bool]
    seconds: float
    workers: int

    @property
    def cache(self) -> str:
        """Numba's cache folder (``NUMBA_CACHE_DIR``, or the common parent of the
        ``__pycache__`` folders beside the modules)."""
        dirs = sorted({d for g in self.groups for d in g.cache_dirs})
        return os.path.commonpath(dirs) if dirs else "none"

    def summary(self) -> str:
        """``compiled 57 kernels in 12.4 s (0 loaded from the cache; 2 processes;
        cache: /path)``"""
        return (f"compiled {self.compiled} kernels in {self.seconds:.1f} s "
                f"({self.loaded} loaded from the cache; {self.workers} "
                f"process{'es' if self.workers > 1 else ''}; cache: {self.cache})")


# -- running them ---------------------------------------------------------------------

def _run_group(name: str) -> GroupResult:
    """Run one group in this process and measure it."""
    group = {g.name: g for g in groups()}[name]
    t0 = time.perf_counter()
    before = kernel_specialisations()
    group.run()
    new = {k: v for k, v in kernel_specialisations().items() if k not in before}
    dirs = {str(d.stats.cache_path) for d in _dispatchers() if d.signatures}
    return GroupResult(name, time.perf_counter() - t0, new, tuple(sorted(dirs)), os.getpid(),
                       time.process_time())


_RESULTS: Any = None  # in a worker: the queue its group results go to


def _init_worker(lock: Any, results: Any) -> None:
    """Worker initialiser: serialise Numba's cache saves across the worker processes
    (see the module docstring; a save takes milliseconds), keep the queue the results
    go to, and leave Ctrl-C to the parent, which stops the workers (a cache file is
    written whole or not at all)."""
    import signal

    from numba.core import caching

    global _RESULTS
    _RESULTS = results
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    save = caching.IndexDataCacheFile.save

    def locked_save(self: Any, key: Any, data: Any) -> None:
        with lock:
            save(self, key, data)

    caching.IndexDataCacheFile.save = locked_save


def _run_chain(names: list[str]) -> None:
    """In a worker: run these groups one after another, each result to the queue as the
    group finishes."""
    for name in names:
        _RESULTS.put(_run_group(name))


def _terminate(pool: Executor) -> None:
    """Stop the workers now, not after their running groups (a cache file is written
    whole or not at all, so a stopped compile leaves nothing half-written)."""
    stop = getattr(pool, "terminate_workers", None)  # Python 3.14
    if stop is not None:
        stop()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _select(only: Sequence[str] | None) -> list[WarmGroup]:
    from fastrate.errors import ConfigError

    every = groups()
    if only is None:
        return every
    by_name = {g.name: g for g in every}
    for name in only:
        if name not in by_name:
            raise ConfigError(f"warm-up group must be one of {', '.join(by_name)}; "
                              f"got {name!r}")
    return [g for g in every if g.name in set(only)]


#: Rough seconds each group takes from an empty cache (one core of a 2-core machine),
#: used only to start the long chains first; a group not listed counts 2 s.
COST_HINTS: dict[str, float] = {
    "pairing": 7.0, "bridge_elo": 6.5, "placement": 2.8, "bridge": 2.9, "glicko2": 2.5,
    "stephenson": 1.0,
    "placement_logs": 3.0, "elo": 1.4, "glicko": 1.1, "fibs": 0.2,
}


def _chains(selected: list[WarmGroup]) -> list[list[WarmGroup]]:
    """The groups as chains for the workers, the most work first: a group whose ``after``
    group is also run follows it in the same chain (so it finds that group's kernels,
    and the Numba internals they needed, already in its process); chains are ordered by
    the sum of their cost hints, the first in list order on a tie."""
    names = {g.name for g in selected}
    chain_of: dict[str, list[WarmGroup]] = {}
    chains: list[list[WarmGroup]] = []
    left = list(selected)
    while left:
        placed = [g for g in left if all(a in chain_of for a in g.after if a in names)]
        for g in placed or left[:1]:  # left[:1]: a cycle of `after`s, broken here
            head = next((a for a in g.after if a in chain_of), None)
            if head is None:
                chains.append([])
                chain_of[g.name] = chains[-1]
            else:
                chain_of[g.name] = chain_of[head]
            chain_of[g.name].append(g)
            left.remove(g)
    return sorted(chains, key=lambda c: -sum(COST_HINTS.get(g.name, 2.0) for g in c))


def _start_method() -> str:
    """How worker processes start: ``fork`` where the platform has it and this process
    has started no threads of its own (Linux: the workers inherit NumPy, Numba and
    fastrate already imported, about 1 s sooner; forking after Python threads or Numba's
    parallel threads started could deadlock), else ``spawn``. (OpenBLAS's threads, which
    NumPy starts at import, handle a fork themselves.)"""
    if "fork" not in multiprocessing.get_all_start_methods():
        return "spawn"
    import threading

    from numba.np.ufunc import parallel

    if threading.active_count() > 1 or getattr(parallel, "_is_initialized", True):
        return "spawn"
    return "fork"


def _preload() -> None:
    """Import what every group needs once, here, before the workers are forked."""
    import numba.core.typed_passes  # noqa: F401  (the compiler pipeline)

    from fastrate import systems

    for name in systems.names():
        systems.get(name).module  # noqa: B018  (imports the system's module)


def run_warmup(only: Sequence[str] | None = None, *, workers: int | None = None,
               progress: Callable[[GroupResult], None] | None = None) -> WarmupReport:
    """Run the kernel groups (``only`` these names, or all of :func:`groups`) and report
    what they compiled or loaded.

    ``workers``: worker processes (default: the CPU count, at most 4); 1 runs the groups
    here, in this process, one after another (then the kernels are also loaded here).
    ``progress`` is called with each group's :class:`GroupResult` as it finishes.
    """
    pending = _select(only)
    workers = min(min(_cpu_count(), 4) if workers is None else max(1, int(workers)),
                  max(1, len(pending)))
    t0 = time.perf_counter()
    results: list[GroupResult] = []

    def done(result: GroupResult) -> None:
        results.append(result)
        if progress is not None:
            progress(result)

    if workers == 1:
        for g in pending:
            done(_run_group(g.name))
    else:
        method = _start_method()
        if method == "fork":  # the workers inherit the imports instead of redoing them
            _preload()
        ctx = multiprocessing.get_context(method)
        queue = ctx.Queue()
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                   initializer=_init_worker, initargs=(ctx.Lock(), queue))
        try:
            chains = _chains(pending)
            running: set[Future] = set()
            while len(results) < len(pending):
                while chains and len(running) < workers:  # one chain per free worker
                    running.add(pool.submit(_run_chain, [g.name for g in chains.pop(0)]))
                try:
                    done(queue.get(timeout=0.1))
                except Empty:
                    pass
                for future in [f for f in running if f.done()]:
                    future.result()  # a worker's error
                    running.discard(future)
        except BaseException:  # an error or Ctrl-C: stop the other workers at once
            _terminate(pool)
            raise
        pool.shutdown()
    kernels: dict[str, bool] = {}
    for r in results:
        for key, compiled in r.kernels.items():
            kernels[key] = kernels.get(key, False) or compiled
    return WarmupReport(tuple(results), kernels, time.perf_counter() - t0, workers)


def warmup(verbose: bool = False, *, workers: int | None = None,
           progress: Callable[[GroupResult], None] | None = None) -> list[str]:
    """Compile every kernel (every mode) into the on-disk cache; return the names of the
    groups run. ``verbose`` prints one line per group on stderr as it finishes;
    ``workers`` and ``progress`` are those of :func:`run_warmup`."""
    def report(result: GroupResult) -> None:
        if verbose:
            print(f"compiled {result.line()}", file=sys.stderr, flush=True)
        if progress is not None:
            progress(result)

    return [r.name for r in run_warmup(workers=workers, progress=report).groups]
