"""A deterministic synthetic online bridge tournament log (the shape of the thesis's
OKbridge data: 22,000,000 table results, 200,000 players, 82 days).

The model (every choice is a module constant below):

* **Players** have a latent skill in tricks (normal, sd :data:`SKILL_SD`) and a
  heavy-tailed activity (log-normal): a player is drawn in proportion to it, so a few
  play thousands of boards and many play a few. :data:`REGULAR_SHARE` of the players
  have one regular partner; when drawn they play with that partner with probability
  :data:`P_REGULAR` (if the partner is free), else with a casual partner drawn from the
  pool. A regular partnership plays :data:`FAMILIARITY` tricks better than the mean of
  its two players.
* **Events** (online tournaments) have T tables, heavy-tailed: a truncated Pareto on
  [4, 1000] with exponent :data:`TABLES_ALPHA` (median 9 tables, mean about 30, a few
  events at hundreds to 1,000 tables), and 8-24 boards played at every table: 2T pairs,
  all different players; North-South pairs stay, East-West pairs move one table per
  round of 2 or 3 boards (a Mitchell movement). So each player plays at most once per
  board. Events start at uniform times over the 82 days (2008-02-21 to 2008-05-13), a
  board takes 7.5 minutes and each table's result is stamped a few minutes later.
* **Scores** come from Law 77 (:mod:`fastrate.bridge.contract`): each board has a par
  contract (part-score 47 %, game 35 %, slam 15 %, passed out 3 %), a declaring side, an
  expected number of tricks and a swinginess; at each table the declaring pair bids the
  par level (more often the better it is), one level lower or higher, sometimes another
  strain; it takes ``round(expected + (declarer's skill - defenders' skill) + noise)``
  tricks; failing contracts are sometimes doubled; on contested boards the defenders
  sometimes sacrifice one level higher, doubled. So stronger pairs score better on
  average, and the field (who else played the board) sets each table's comparison.
  Every score is a multiple of 10 in [-7600, 7600].

The last event is cut so that there are exactly ``n_results`` rows. Rows are in time
order (a results log: boards of overlapping events interleave).

Columns of the Parquet file: ``event`` (int32), ``board`` (int16, 1.. within the event;
a board is the pair (event, board)), ``time`` (timestamp[s]), ``north``, ``south``,
``east``, ``west`` (int32 player ids 0..n_players-1), ``ns_score`` (int16 NS points).

Deterministic: one NumPy ``Generator`` (PCG64 from ``seed``) draws the set-up and is
then handed to the Numba kernel for the per-table draws; the same parameters give the
same file. Files are
cached in ``bench/_data`` (git-ignored) under a name holding every parameter.

    python -m bench.generate_bridge --results 22000000           # ~1.3 GB RAM, ~25 s
    python -m bench.generate_bridge --results 100000 --out /tmp  # a smoke-test size
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._numba import kernel

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO / "bench" / "_data"
#: bump when the model changes (part of the cache key)
VERSION = 2

#: the thesis's OKbridge data set
THESIS = {"n_results": 22_000_000, "n_players": 200_000, "n_days": 82}
#: the small size of the default (smoke) benchmarks
SMALL = {"n_results": 100_000, "n_days": 82}
START = np.datetime64("2008-02-21T00:00:00", "s")

SKILL_SD = 0.4          # player skill, tricks
FAMILIARITY = 0.1       # a regular partnership's bonus, tricks
REGULAR_SHARE = 0.7     # players with a regular partner
P_REGULAR = 0.75        # ... who play with that partner when drawn
ACTIVITY_SIGMA = 1.0    # log-normal activity
POOL_PER_PLAYER = 8     # mean entries per player in the weighted draw pool
MIN_TABLES, MAX_TABLES = 4, 1000
TABLES_ALPHA = 0.8      # Pareto exponent of tables per event
MIN_BOARDS, MAX_BOARDS = 8, 24
BOARD_SECONDS = 450     # 7.5 minutes a board
PACE_SECONDS = 300      # a table finishes a board up to 5 minutes after the first


# ----------------------------------------------------------------------------------
# Law 77 scores of every (level, strain, doubled, declarer vulnerable, tricks)


def score_table() -> np.ndarray:
    """int64 [8, 5, 3, 2, 14]: declarer's score; level 0 (passed out) is 0."""
    from fastrate.bridge.contract import contract_score

    lv, st, db, vu, tr = np.meshgrid(np.arange(1, 8), np.arange(5), np.arange(3),
                                     np.arange(2), np.arange(14), indexing="ij")
    pts = contract_score(lv.ravel(), st.ravel(), db.ravel(), tr.ravel() - lv.ravel() - 6,
                         vu.ravel().astype(bool)).reshape(lv.shape)
    out = np.zeros((8, 5, 3, 2, 14), dtype=np.int64)
    out[1:] = pts
    return out


#: vulnerability of boards 1..16 (then repeating): NS, EW
_VUL_NS = np.array([0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0], dtype=np.int64)
_VUL_EW = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1], dtype=np.int64)


# ----------------------------------------------------------------------------------
# kernels


@kernel
def _draw_free(rng, pool, used, stamp):
    while True:
        p = pool[rng.integers(0, pool.shape[0])]
        if used[p] != stamp:
            return p


@kernel
def _tricks(rng, mean, sd):
    t = int(math.floor(mean + sd * rng.standard_normal() + 0.5))
    return min(max(t, 0), 13)


@kernel
def _events_kernel(rng, n_results, tables, boards, start, pool, partner, skill,
                   scores, vul_ns, vul_ew, familiarity, p_regular, event, board, when,
                   north, south, east, west, ns_score):  # pragma: no cover - jit
    """Fill the rows of every event in (event, board, table) order; return the row
    count (``n_results``, the last event cut)."""
    n_players = skill.shape[0]
    used = np.full(n_players, -1, dtype=np.int64)
    max_t = 1
    for e in range(tables.shape[0]):
        max_t = max(max_t, tables[e])
    pa = np.empty(2 * max_t, dtype=np.int64)
    pb = np.empty(2 * max_t, dtype=np.int64)
    ps = np.empty(2 * max_t, dtype=np.float64)
    r = 0
    for e in range(tables.shape[0]):
        if r >= n_results:
            break
        n_t = tables[e]
        # 2T pairs of distinct players
        for j in range(2 * n_t):
            a = _draw_free(rng, pool, used, e)
            used[a] = e
            q = partner[a]
            if q >= 0 and used[q] != e and rng.random() < p_regular:
                b = q
                bonus = familiarity
            else:
                b = _draw_free(rng, pool, used, e)
                bonus = 0.0
            used[b] = e
            if rng.random() < 0.5:
                a, b = b, a
            pa[j] = a
            pb[j] = b
            ps[j] = 0.5 * (skill[a] + skill[b]) + bonus
        per_round = 2 + rng.integers(0, 2)
        for k in range(boards[e]):
            if r >= n_results:
                break
            # the board: vulnerability, par contract, declaring side, tricks, swing
            num = k + 1
            vns = vul_ns[(num - 1) % 16]
            vew = vul_ew[(num - 1) % 16]
            u = rng.random()
            strain = rng.integers(0, 5)
            if u < 0.03:
                level = 0
            elif u < 0.50:
                v = rng.random()
                level = 1 if v < 0.2 else (2 if v < 0.65 else 3)
            elif u < 0.85:
                v = rng.random()
                if v < 0.55:
                    level, strain = 4, 2 + rng.integers(0, 2)
                elif v < 0.9:
                    level, strain = 3, 4
                else:
                    level, strain = 5, rng.integers(0, 2)
            elif u < 0.97:
                level = 6
            else:
                level = 7
            par_ns = rng.random() < 0.5
            expect = level + 6 + 0.2 + 0.8 * rng.standard_normal()
            swing = 0.5 + 0.7 * rng.random()
            contested = rng.random() < 0.25
            rnd = k // per_round
            for t in range(n_t):
                if r >= n_results:
                    break
                ns = t
                ew = n_t + (t + rnd) % n_t
                s_ns = ps[ns]
                s_ew = ps[ew]
                decl_ns = par_ns
                if level == 0:
                    if rng.random() < 0.6:
                        pts = 0
                    else:  # someone opens a part-score
                        decl_ns = rng.random() < 0.5
                        d = s_ns - s_ew if decl_ns else s_ew - s_ns
                        lv = 1 + rng.integers(0, 2)
                        tk = _tricks(rng, lv + 5.6 + d, 1.0)
                        vul = vns if decl_ns else vew
                        pts = scores[lv, rng.integers(0, 5), 0, vul, tk]
                else:
                    sd = s_ns if par_ns else s_ew
                    so = s_ew if par_ns else s_ns
                    lv = level
                    stn = strain
                    mean = expect
                    # bidding: the better the pair, the more often it finds the par level
                    if rng.random() > 1.0 / (1.0 + math.exp(-(1.5 + 3.0 * sd))):
                        lv = level - 1 if rng.random() < 0.6 else level + 1
                        lv = min(max(lv, 1), 7)
                    if rng.random() < 0.1:
                        stn = rng.integers(0, 5)
                        if stn != strain:
                            mean -= 0.7
                    if contested and rng.random() < 0.15 + 0.3 * (so - sd):
                        # the defenders sacrifice one level higher, doubled
                        decl_ns = not par_ns
                        lv = min(lv + 1, 7)
                        stn = rng.integers(0, 4)
                        tk = _tricks(rng, lv + 6 - 2.0 - 0.8 * rng.random() + so - sd,
                                     swing)
                        dbl = 1
                    else:
                        tk = _tricks(rng, mean + sd - so, swing)
                        down = tk < lv + 6
                        v = rng.random()
                        dbl = 1 if (down and v < 0.3) or (not down and v < 0.04) else 0
                        if dbl == 1 and not down and rng.random() < 0.1:
                            dbl = 2
                    vul = vns if decl_ns else vew
                    pts = scores[lv, stn, dbl, vul, tk]
                event[r] = e
                board[r] = num
                when[r] = start[e] + k * BOARD_SECONDS + rng.integers(0, PACE_SECONDS)
                north[r] = pa[ns]
                south[r] = pb[ns]
                east[r] = pa[ew]
                west[r] = pb[ew]
                ns_score[r] = pts if decl_ns else -pts
                r += 1
    return r


# ----------------------------------------------------------------------------------
# the arrays, the table and the cached file


def default_players(n_results: int) -> int:
    """Players for a size: the thesis's 200,000 at 22M results, in proportion below."""
    return int(max(1_000, min(THESIS["n_players"],
                              round(n_results * THESIS["n_players"] / THESIS["n_results"]))))


def bridge_arrays(n_results: int = THESIS["n_results"], n_players: int | None = None,
                  n_days: int = THESIS["n_days"], seed: int = 0, sort_by_time: bool = True,
                  tables: int | None = None) -> dict[str, np.ndarray]:
    """The synthetic log as NumPy arrays (the Parquet columns, ``time`` as
    datetime64[s]) plus ``skill`` (float64 per player). ``tables``: every event has
    that many tables (instead of the heavy-tailed draw), e.g. 1,000 for the largest
    boards; ``sort_by_time=False`` keeps the rows grouped by event, board, table."""
    if n_players is None:
        n_players = default_players(n_results)
        if tables is not None:
            n_players = max(n_players, 8 * tables)
    if n_results < 1 or n_players < 64 or n_days < 1:
        raise ValueError("need n_results >= 1, n_players >= 64 and n_days >= 1")
    if tables is not None and not 2 <= tables <= n_players // 8:
        raise ValueError("need 2 <= tables <= n_players / 8")
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, SKILL_SD, n_players)
    activity = rng.lognormal(0.0, ACTIVITY_SIGMA, n_players)
    counts = 1 + np.floor(activity / activity.mean() * (POOL_PER_PLAYER - 1)).astype(np.int64)
    pool = np.repeat(np.arange(n_players, dtype=np.int64), counts)
    partner = np.full(n_players, -1, dtype=np.int64)
    perm = rng.permutation(n_players)
    m = int(REGULAR_SHARE * n_players) // 2 * 2
    partner[perm[0:m:2]] = perm[1:m:2]
    partner[perm[1:m:2]] = perm[0:m:2]
    # events: tables (truncated Pareto) and boards, until there are enough results
    hi = max(MIN_TABLES, min(MAX_TABLES, n_players // 8))
    sizes, nboards, total = [], [], 0
    while total < n_results:
        k = max(16, int(1.2 * (n_results - total) / 400))
        u = rng.random(k)
        c = 1.0 - (MIN_TABLES / hi) ** TABLES_ALPHA
        t = np.floor(MIN_TABLES * (1.0 - u * c) ** (-1.0 / TABLES_ALPHA)).astype(np.int64)
        t = np.clip(t, MIN_TABLES, hi) if tables is None else np.full(k, tables, np.int64)
        b = rng.integers(MIN_BOARDS, MAX_BOARDS + 1, k, dtype=np.int64)
        sizes.append(t)
        nboards.append(b)
        total += int((t * b).sum())
    tables = np.concatenate(sizes)
    boards = np.concatenate(nboards)
    last = int(np.searchsorted(np.cumsum(tables * boards), n_results)) + 1
    tables, boards = tables[:last], boards[:last]
    span = n_days * 86400 - (boards * BOARD_SECONDS + PACE_SECONDS)
    start = np.sort((rng.random(last) * np.maximum(span, 1)).astype(np.int64))
    out = {"event": np.empty(n_results, np.int32), "board": np.empty(n_results, np.int16),
           "time": np.empty(n_results, np.int64),
           **{s: np.empty(n_results, np.int32) for s in ("north", "south", "east", "west")},
           "ns_score": np.empty(n_results, np.int16)}
    got = _events_kernel(rng, n_results, tables, boards, start,
                         pool, partner, skill, score_table(), _VUL_NS, _VUL_EW, FAMILIARITY,
                         P_REGULAR, out["event"], out["board"], out["time"], out["north"],
                         out["south"], out["east"], out["west"], out["ns_score"])
    assert got == n_results
    if sort_by_time:
        order = np.argsort(out["time"], kind="stable")
        for k in out:
            out[k] = out[k][order]
        del order
    out["time"] = START + out["time"].astype("timedelta64[s]")
    out["skill"] = skill
    return out


COLUMNS = ("event", "board", "time", "north", "south", "east", "west", "ns_score")


def bridge_table(n_results: int = SMALL["n_results"], n_players: int | None = None,
                 n_days: int = THESIS["n_days"], seed: int = 0):
    """The synthetic log as a pyarrow Table (in memory; e.g. 100k results for smoke
    tests)."""
    import pyarrow as pa

    arr = bridge_arrays(n_results, n_players, n_days, seed)
    return pa.table({k: arr[k] for k in COLUMNS})


def parquet_path(n_results: int, n_players: int | None = None, n_days: int = 82,
                 seed: int = 0, out: Path | str | None = None) -> Path:
    """Where the file of these parameters is cached."""
    if n_players is None:
        n_players = default_players(n_results)
    folder = Path(out) if out is not None else DATA_DIR
    return folder / (f"bridge_r{n_results}_p{n_players}_d{n_days}_s{seed}_v{VERSION}"
                     ".parquet")


def bridge_parquet(n_results: int = THESIS["n_results"], n_players: int | None = None,
                   n_days: int = THESIS["n_days"], seed: int = 0,
                   out: Path | str | None = None, force: bool = False) -> Path:
    """Write (or reuse) the Parquet file of these parameters; return its path."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = parquet_path(n_results, n_players, n_days, seed, out)
    if path.exists() and not force:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    arr = bridge_arrays(n_results, n_players, n_days, seed)
    table = pa.table({k: arr[k] for k in COLUMNS})
    del arr
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # row groups of at most 2^20 rows, and at least 4 of them, so that a small file reads
    # into the same (several-chunk) Arrow columns as a large one
    pq.write_table(table, tmp, compression="snappy",
                   row_group_size=max(1, min(1 << 20, -(-n_results // 4))))
    os.replace(tmp, path)
    return path


def describe(arr: dict[str, Any]) -> str:
    """A few statistics of a generated log."""
    key = arr["event"].astype(np.int64) * 64 + arr["board"]
    _, per_board = np.unique(key, return_counts=True)
    tables = per_board
    players = np.unique(np.concatenate([arr[s] for s in ("north", "south", "east", "west")]))
    sc = arr["ns_score"].astype(np.int64)
    q = np.percentile(tables, [50, 90, 99, 100])
    return (f"{len(sc):,} results, {len(per_board):,} boards, {len(players):,} players; "
            f"tables per board median {q[0]:.0f}, p90 {q[1]:.0f}, p99 {q[2]:.0f}, "
            f"max {q[3]:.0f}, mean {tables.mean():.1f}; NS score range [{sc.min()}, "
            f"{sc.max()}], mean {sc.mean():.1f}; {arr['time'].min()} .. {arr['time'].max()}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.generate_bridge", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=int, default=THESIS["n_results"])
    ap.add_argument("--players", type=int, default=None,
                    help="default: 200,000 at 22M results, in proportion below")
    ap.add_argument("--days", type=int, default=THESIS["n_days"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=DATA_DIR,
                    help="output folder (default: bench/_data, git-ignored)")
    ap.add_argument("--force", action="store_true", help="rewrite a cached file")
    ap.add_argument("--stats", action="store_true", help="print statistics of the file")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    path = bridge_parquet(args.results, args.players, args.days, args.seed, args.out,
                          args.force)
    dt = time.perf_counter() - t0
    mb = path.stat().st_size / 2**20
    print(f"{path} ({mb:.1f} MiB, {dt:.1f} s)")
    if args.stats:
        import pyarrow.parquet as pq

        t = pq.read_table(path)
        arr = {c: t.column(c).to_numpy() for c in COLUMNS}
        print(describe(arr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
