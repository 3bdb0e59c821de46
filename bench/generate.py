"""Deterministic workloads for the benchmarks.

* :func:`synthetic_games` -- players with latent skills meeting uniformly at random;
  the first player's score follows the logistic of the skill difference (Elo scale),
  with about 10% draws; games are spread evenly over ``n_periods`` rating periods and
  stored in period order. Player ids are the integers ``0 .. n_players-1`` (no
  interning). The same ``seed`` gives the same games on every machine.
* :func:`atp_games` -- the ATP singles results 1968-2024 from the shared data folder
  (``../shared/data/tennis_atp`` relative to the repository root), or ``None`` when
  the file is absent.

``python -m bench.generate --out DIR`` writes the synthetic workload as Parquet
(columns ``white``, ``black``, ``score``, ``period``) for command-line benchmarks::

    python -m bench.generate --out bench/_data                 # 100k players, 2M games
    fastrate rate bench/_data/synthetic_2000000.parquet --period period -o /tmp/r.csv
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
#: the ATP file, relative to the repository root
ATP_PATH = (REPO / ".." / "shared" / "data" / "tennis_atp"
            / "atp_singles_1968_2024_compact.csv.gz").resolve()

#: benchmark sizes: "small" runs in the default test suite, "large" and "huge" on demand
SIZES: dict[str, dict[str, int]] = {
    "small": {"n_players": 1_000, "n_games": 20_000, "n_periods": 20},
    "large": {"n_players": 100_000, "n_games": 2_000_000, "n_periods": 20},
    # the high-volume workload of bench/bench_high_volume.py (a large site's month)
    "huge": {"n_players": 1_000_000, "n_games": 50_000_000, "n_periods": 20},
}

#: spread of the latent skills on the Elo scale
SKILL_SD = 200.0
#: draw probability is DRAW_FACTOR * min(p, 1 - p): about 10% draws overall, more
#: between equals, and the expected score stays exactly p
DRAW_FACTOR = 0.4


def synthetic_arrays(n_players: int = 100_000, n_games: int = 2_000_000, n_periods: int = 20,
                     seed: int = 0) -> dict[str, np.ndarray]:
    """The raw arrays of :func:`synthetic_games`: ``white``, ``black`` (int64 ids),
    ``score`` (float64), ``period`` (int64, nondecreasing) and ``skill`` (float64)."""
    if n_players < 2 or n_games < 1 or n_periods < 1:
        raise ValueError("need n_players >= 2, n_games >= 1 and n_periods >= 1")
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, SKILL_SD, n_players)
    white, black, score = random_games(rng, skill, n_games)
    period = (np.arange(n_games, dtype=np.int64) * n_periods) // n_games
    return {"white": white, "black": black, "score": score, "period": period, "skill": skill}


def random_games(rng: np.random.Generator, skill: np.ndarray,
                 n_games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n_games`` games among the players of ``skill``, meeting uniformly at random:
    ``white``, ``black`` (int64 ids) and the first player's score."""
    n_players = skill.shape[0]
    white = rng.integers(0, n_players, n_games, dtype=np.int64)
    # a different opponent, uniformly among the other players
    black = (white + rng.integers(1, n_players, n_games, dtype=np.int64)) % n_players
    p = 1.0 / (1.0 + 10.0 ** (-(skill[white] - skill[black]) / 400.0))
    draw = DRAW_FACTOR * np.minimum(p, 1.0 - p)
    u = rng.random(n_games)
    # P(win) = p - draw/2, P(draw) = draw, P(loss) = the rest: E[score] = p
    score = np.where(u < p - draw / 2.0, 1.0, np.where(u < p + draw / 2.0, 0.5, 0.0))
    return white, black, score


def synthetic_games(n_players: int = 100_000, n_games: int = 2_000_000, n_periods: int = 20,
                    seed: int = 0):
    """A :class:`fastrate.Games` of ``n_games`` synthetic games between ``n_players``
    players over ``n_periods`` rating periods (see the module docstring)."""
    from fastrate import Games

    arr = synthetic_arrays(n_players, n_games, n_periods, seed)
    return Games.from_arrays(arr["white"], arr["black"], arr["score"], period=arr["period"],
                             players=np.arange(n_players, dtype=np.int64))


@functools.lru_cache(maxsize=4)
def workload(size: str):
    """The benchmark workload of a named size (``"small"`` or ``"large"``), built once
    per process."""
    return synthetic_games(**SIZES[size])


def subsample(games: Any, n_games: int):
    """``n_games`` games spread evenly over ``games`` (every k-th game, so every rating
    period keeps its share), same players, for the slow pure-Python peers."""
    from fastrate import Games

    step = max(1, games.n_games // n_games)
    idx = np.arange(0, games.n_games, step, dtype=np.int64)[:n_games]
    return Games(white=games.white[idx], black=games.black[idx], score=games.score[idx],
                 players=games.players,
                 period=None if games.period is None else games.period[idx])


def input_nbytes(games: Any) -> int:
    """Bytes of the per-game arrays of ``games`` (the input a rating run reads)."""
    return sum(int(a.nbytes) for a in (games.white, games.black, games.score, games.period,
                                       games.time, games.weight, games.margin, games.neutral)
               if a is not None)


def atp_available() -> bool:
    return ATP_PATH.exists()


def atp_games(period: str | None = "month"):
    """The ATP singles results (winner first, score 1), dated by ``tourney_date``
    (YYYYMMDD) and bucketed into ``period`` rating periods; ``None`` if the file is
    absent.

    What ``fastrate.read_games(ATP_PATH, winner="winner_id", loser="loser_id",
    time="tourney_date")`` reads, except that the file's 7 rows whose winner and loser
    are the same id (placeholders such as 199999), which ``read_games`` refuses, are
    dropped first.
    """
    if not ATP_PATH.exists():
        return None
    import pyarrow.compute as pc

    from fastrate.io.tables import games_from_table, read_table

    table = read_table(ATP_PATH)
    table = table.filter(pc.not_equal(table["winner_id"], table["loser_id"]))
    kw: dict[str, Any] = {} if period is None else {"period": period}
    return games_from_table(table, winner="winner_id", loser="loser_id", time="tourney_date",
                            source=ATP_PATH.name, **kw)


def write_parquet(out: Path, n_players: int, n_games: int, n_periods: int, seed: int) -> Path:
    """Write the synthetic workload to ``out/synthetic_<n_games>.parquet``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arr = synthetic_arrays(n_players, n_games, n_periods, seed)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"synthetic_{n_games}.parquet"
    table = pa.table({k: arr[k] for k in ("white", "black", "score", "period")})
    pq.write_table(table, path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "_data",
                    help="output folder (default: bench/_data, git-ignored)")
    ap.add_argument("--players", type=int, default=SIZES["large"]["n_players"])
    ap.add_argument("--games", type=int, default=SIZES["large"]["n_games"])
    ap.add_argument("--periods", type=int, default=SIZES["large"]["n_periods"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    path = write_parquet(args.out, args.players, args.games, args.periods, args.seed)
    mb = path.stat().st_size / 2**20
    print(f"wrote {path} ({args.games:,} games, {args.players:,} players, "
          f"{args.periods} periods, {mb:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
