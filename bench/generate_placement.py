"""A deterministic synthetic seating log for placement games (the shape of a KDice
lobby: 10,000,000 seatings of 200,000 players at 7-seat tables) and a matching
``(players, 7)`` place-counts matrix.

The seating model (every choice is a module constant below):

* **Players** have a heavy-tailed activity (log-normal, sigma :data:`ACTIVITY_SIGMA`):
  a seat is filled by a player drawn in proportion to it, so a few play thousands of
  games and many play a handful. Player ids are a random permutation of
  ``0 .. n_players-1`` (so the order of first appearance is not the id order).
* **Tables** have ``capacity`` seats; :data:`FULL_SHARE` of the games fill them, the
  rest start with 4 .. capacity-1 players. The players of a game are distinct (a
  duplicate draw is drawn again) and sit down in seat order 1, 2, ...; the empty seats
  left when a player sits down are ``capacity - seat``.
* **Watchers** (players in the lobby when a seat is taken, >= 1): each game has a lobby
  size drawn from a gamma distribution (mean :data:`LOBBY_MEAN`), each seating
  ``1 + Poisson(lobby)``.
* **Affiliates**: ``n_affiliates`` planted pairs of regular players (activity ranks
  :data:`AFFILIATE_RANKS` of the players: 1,000 .. 5,000 of 200,000, a few hundred games
  each) who join each other's tables:
  whenever one of them sits down with a seat still free after him, the other takes one
  of the later seats with probability :data:`P_JOIN` (unless he is already there).
  Their PPC is far above 3 in both directions; a random pair's is far below.

The last game is cut so that there are exactly ``n_rows`` rows. Rows are in game order
and, within a game, in seat order (a seating log as a server writes it).

Deterministic: one NumPy ``Generator`` (PCG64 from ``seed``) draws everything; the same
parameters give the same arrays on every machine.

    python -m bench.generate_placement --rows 10000000   # ~1.4M games, ~60M pair records
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from typing import Any

import numpy as np

#: spread of the log-normal activity (a player's share of the seats)
ACTIVITY_SIGMA = 1.0
#: share of the games that fill every seat
FULL_SHARE = 0.85
#: smallest table that starts a game
MIN_TABLE = 4
#: mean lobby size (watchers) of a game; gamma shape of its spread
LOBBY_MEAN = 30.0
LOBBY_SHAPE = 4.0
#: activity ranks (shares of the players, most active first) the affiliates come from
AFFILIATE_RANKS = (0.005, 0.025)
#: probability that an affiliate joins his partner's table when a seat is free
P_JOIN = 0.6


def seating_arrays(n_players: int = 200_000, n_rows: int = 10_000_000, capacity: int = 7,
                   n_affiliates: int = 10, seed: int = 0) -> dict[str, Any]:
    """The seating log as arrays: ``game``, ``player``, ``seat`` (int64), ``watchers``
    (float64), one row per seating, plus ``affiliates`` ((n_affiliates, 2) int64 player
    ids of the planted pairs) and ``capacity``."""
    if n_players < 2 * capacity or n_rows < 2 or capacity < MIN_TABLE:
        raise ValueError(f"need n_players >= {2 * capacity}, n_rows >= 2 and capacity >= "
                         f"{MIN_TABLE}")
    rng = np.random.default_rng(seed)
    activity = rng.lognormal(0.0, ACTIVITY_SIGMA, n_players)
    ids = rng.permutation(n_players).astype(np.int64)  # rank -> player id
    cdf = np.cumsum(activity)
    cdf /= cdf[-1]

    # table sizes, the last game cut to n_rows rows in all
    n_games = int(n_rows / (capacity * FULL_SHARE + (capacity + MIN_TABLE - 1) / 2
                            * (1 - FULL_SHARE)) * 1.05) + 2
    size = np.where(rng.random(n_games) < FULL_SHARE, capacity,
                    rng.integers(MIN_TABLE, capacity, n_games))
    end = np.cumsum(size)
    g = int(np.searchsorted(end, n_rows))  # index of the game that reaches n_rows
    size = size[:g + 1].copy()
    size[g] -= int(end[g] - n_rows)
    n_games = g + 1

    # distinct players per game, drawn by activity (a slot past the size holds -1)
    seat_no = np.arange(capacity)
    valid = seat_no[None, :] < size[:, None]
    table = np.where(valid, _draw(rng, cdf, (n_games, capacity)), -1)
    rows = np.arange(n_games)
    while True:
        sub = table[rows]
        dup = np.zeros(sub.shape, dtype=bool)
        for j in range(1, capacity):
            dup[:, j] = (sub[:, :j] == sub[:, j:j + 1]).any(axis=1) & (sub[:, j] >= 0)
        hit = dup.any(axis=1)
        if not hit.any():
            break
        rows = rows[hit]
        sub = sub[hit]
        d = dup[hit]
        sub[d] = _draw(rng, cdf, int(d.sum()))
        table[rows] = sub

    # planted affiliates: regular players who join each other's tables
    lo = int(AFFILIATE_RANKS[0] * n_players)
    hi = max(int(AFFILIATE_RANKS[1] * n_players), lo + 2 * n_affiliates)
    if hi > n_players:
        raise ValueError(f"{n_affiliates} affiliate pairs need more players")
    by_rank = np.argsort(-activity, kind="stable")
    pick = rng.choice(np.arange(lo, hi), 2 * n_affiliates, replace=False)
    pairs = by_rank[pick].reshape(n_affiliates, 2)
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            gi, si = np.nonzero(table == x)
            later = size[gi] - 1 - si  # seats after x's
            join = (later > 0) & (rng.random(gi.shape[0]) < P_JOIN)
            gi, si, later = gi[join], si[join], later[join]
            there = (table[gi] == y).any(axis=1)
            gi, si, later = gi[~there], si[~there], later[~there]
            seat = si + 1 + (rng.random(gi.shape[0]) * later).astype(np.int64)
            table[gi, seat] = y

    flat = valid.reshape(-1)
    game = np.repeat(np.arange(n_games, dtype=np.int64), size)
    seat = np.broadcast_to(seat_no + 1, table.shape).reshape(-1)[flat].astype(np.int64)
    lobby = rng.gamma(LOBBY_SHAPE, LOBBY_MEAN / LOBBY_SHAPE, n_games)
    watchers = 1.0 + rng.poisson(np.repeat(lobby, size)).astype(np.float64)
    return {"game": game, "player": ids[table.reshape(-1)[flat]], "seat": seat,
            "watchers": watchers, "affiliates": ids[pairs], "capacity": capacity}


def _draw(rng: np.random.Generator, cdf: np.ndarray, shape: Any) -> np.ndarray:
    """Player ranks drawn in proportion to activity (``cdf``: its normalised cumsum)."""
    r = np.searchsorted(cdf, rng.random(shape), side="right")
    return np.minimum(r, cdf.shape[0] - 1).astype(np.int64)


def place_counts_matrix(n_players: int = 1_000_000, k: int = 7, seed: int = 0,
                        dtype: Any = np.int64) -> np.ndarray:
    """A ``(n_players, k)`` matrix of place counts: games per player heavy-tailed
    (log-normal, median 20, a few thousand at most, about 1% with none), each player's
    places drawn from a skill-tilted profile (a multinomial per player)."""
    rng = np.random.default_rng(seed)
    games = np.floor(rng.lognormal(np.log(20.0), 1.2, n_players)).astype(np.int64)
    games[rng.random(n_players) < 0.01] = 0
    tilt = rng.normal(0.0, 0.3, n_players)
    prof = np.exp(-tilt[:, None] * np.arange(k)[None, :])
    prof /= prof.sum(axis=1, keepdims=True)
    counts = rng.multinomial(games, prof)
    return np.ascontiguousarray(counts, dtype=dtype)


@functools.lru_cache(maxsize=2)
def seating_workload(n_rows: int, n_players: int = 200_000, seed: int = 0) -> dict[str, Any]:
    """:func:`seating_arrays`, built once per process (benchmarks share it)."""
    return seating_arrays(n_players=n_players, n_rows=n_rows, seed=seed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.generate_placement",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--players", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    d = seating_arrays(n_players=args.players, n_rows=args.rows, seed=args.seed)
    size = np.bincount(d["game"])
    games_per_player = np.bincount(d["player"], minlength=args.players)
    print(f"{args.rows:,} seatings, {size.shape[0]:,} games "
          f"({(size == d['capacity']).mean():.0%} full), "
          f"{int((size * (size - 1)).sum()):,} pair records; players: "
          f"{int((games_per_player > 0).sum()):,} seen, median "
          f"{int(np.median(games_per_player))} games, max {int(games_per_player.max())}; "
          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
