"""The bridge pipeline end to end, stage by stage, with the peak memory of the process.

    python -m bench.bridge_end_to_end                      # the 22M-result set
    python -m bench.bridge_end_to_end --results 100000     # a quick run
    python -m bench.bridge_end_to_end --json               # one JSON line (for bench_bridge)

Stages (one process, after a warm-up run of the same pipeline on a 100k-result file,
so Numba's cached kernels are loaded and the timings are of the work itself):

1. **read**: the Parquet file into a pyarrow Table (:func:`fastrate.io.tables.read_table`);
2. **boards**: :func:`fastrate.data.boards.boards_from_table` with 3-day rating periods
   (group by (event, board), intern the players, order boards in time, check seats);
3. **cross-IMPs**: ``boards.score("cross-imps")``;
4. **bridge Elo**: ``bridge_elo.rate(boards, BridgeEloConfig(), scores=...)`` (the
   thesis's field model, per-period updates).

The file is the synthetic log of :mod:`bench.generate_bridge` (written once into
``bench/_data``). Peak RSS is the process's high-water mark (``VmHWM``) at the end: the
whole process, interpreter, imports, warm-up and run.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from bench.generate_bridge import SMALL, THESIS, bridge_parquet


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far (MiB): ``VmHWM`` of
    ``/proc/self/status`` where there is one -- ``getrusage``'s ``ru_maxrss`` survives
    ``exec``, so a child of a large process would report its parent's peak -- else
    ``ru_maxrss`` (KiB on Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def pipeline(path: Path, period: str = "3d", elo: bool = True) -> dict[str, Any]:
    """Run the stages on ``path``; seconds per stage and the sizes."""
    import pyarrow as pa

    from fastrate.data.boards import boards_from_table
    from fastrate.io.tables import read_table

    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    table = read_table(path)
    pa.default_memory_pool().release_unused()  # the reader's scratch buffers, for Boards
    t1 = time.perf_counter()
    boards = boards_from_table(table, period=period, source=path.name)
    del table
    # the Table is done with: hand Arrow's cached buffers back, so the arrays that follow
    # reuse that memory instead of growing the process
    pa.default_memory_pool().release_unused()
    t2 = time.perf_counter()
    scores = boards.score("cross-imps")
    t3 = time.perf_counter()
    out.update(read=t1 - t0, boards=t2 - t1, cross_imps=t3 - t2)
    if elo:
        from fastrate.bridge import bridge_elo

        bridge_elo.rate(boards, bridge_elo.BridgeEloConfig(), scores=scores)
        out["bridge_elo"] = time.perf_counter() - t3
    out["total"] = time.perf_counter() - t0
    bp = boards.board_period
    out.update(n_results=boards.n_results, n_boards=boards.n_boards,
               n_players=boards.n_players,
               n_periods=0 if bp is None else int(len(set(bp.tolist()))))
    return out


def elo_available() -> bool:
    try:
        from fastrate.bridge import bridge_elo  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.bridge_end_to_end", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=int, default=THESIS["n_results"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--period", default="3d")
    ap.add_argument("--no-warmup", action="store_true",
                    help="time the first run (kernels loaded from Numba's cache on the way)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    args = ap.parse_args(argv)
    elo = elo_available()
    path = bridge_parquet(args.results, seed=args.seed)
    if not args.no_warmup:
        pipeline(bridge_parquet(SMALL["n_results"], seed=args.seed), args.period, elo)
    res = pipeline(path, args.period, elo)
    res["peak_rss_mib"] = peak_rss_mib()
    res["file"] = str(path)
    res["file_mib"] = path.stat().st_size / 2**20
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"{path.name}: {res['n_results']:,} results, {res['n_boards']:,} boards, "
          f"{res['n_players']:,} players, {res['n_periods']} periods of {args.period}")
    for stage, label in (("read", "read Parquet"), ("boards", "Boards (group, intern, periods)"),
                         ("cross_imps", "cross-IMPs"), ("bridge_elo", "bridge Elo (field)")):
        if stage in res:
            print(f"  {label:<34} {res[stage]:7.2f} s  {res['n_results'] / res[stage] / 1e6:7.1f}"
                  " M results/s")
        else:
            print(f"  {label:<34}  (fastrate.bridge.bridge_elo not available)")
    print(f"  {'total':<34} {res['total']:7.2f} s  {res['n_results'] / res['total'] / 1e6:7.1f}"
          " M results/s")
    print(f"  peak RSS {res['peak_rss_mib']:,.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
