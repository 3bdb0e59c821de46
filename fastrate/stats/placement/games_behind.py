"""Baseball-style standings: the player placed p in a game of P players falls
``(p - 1)/(P - 1)`` games behind its winner, plus half a game per game not played
compared with the most active player; the result is games behind the leader
(:func:`standings` from a log of games of any size, :func:`standings_from_counts` from
profiles of full k-player games)."""

from __future__ import annotations

from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import NO_SOURCE, Source, as_1d, fail_at, require
from fastrate.stats.placement._common import as_counts, log_ids, row_sums, standings_kernel

__all__ = ["standings", "standings_from_counts"]


@kernel
def _behind_kernel(counts, k, out_games, out_behind):
    """Games played and games behind the winner summed over a row (k-player games)."""
    behind = np.arange(0.0, float(k))
    for i in range(out_games.shape[0]):
        n, b = row_sums(counts, i * k, k, behind)
        out_games[i] = n
        out_behind[i] = b / (k - 1)


def _games_behind(games: np.ndarray, behind: np.ndarray) -> np.ndarray:
    out = np.empty(games.shape[0])
    standings_kernel(require(games, np.float64), require(behind, np.float64), out)
    return out


def standings_from_counts(counts: Any) -> tuple[np.ndarray, np.ndarray]:
    """Baseball-style standings from profiles of full k-player games.

    Returns ``(behind, games_behind)``: the games behind the winners summed over a
    player's games (place j counts ``(j-1)/(k-1)``), and the games behind the leader
    after charging half a game per game not played compared with the most active
    player."""
    arr, _ = as_counts(counts)
    k = arr.shape[1]
    games = np.empty(arr.shape[0])
    behind = np.empty(arr.shape[0])
    _behind_kernel(arr.reshape(-1), k, games, behind)
    return behind, _games_behind(games, behind)


def standings(game: Any, players: Any, places: Any, *, sort: bool = True,
              allow_ties: bool = False, source: Source = NO_SOURCE) -> dict[str, np.ndarray]:
    """Baseball-style standings from a placement log of games of any size.

    The player placed p in a game of P players falls ``(p-1)/(P-1)`` games behind its
    winner; each player is charged half a game per game fewer than the most active
    player; the table gives games behind the leader (0 for the leader). Returns a dict
    of columns ``player, games, behind, games_behind`` sorted by ``games_behind`` (in
    order of first appearance, as :func:`place_counts`, with ``sort=False``). Ties
    (``allow_ties=True``) each fall ``(p-1)/(P-1)`` games behind for their shared place."""
    g = as_1d(game, "game")
    index, ids, places_1k, _ = log_ids(players, places, None, g, allow_ties, source)
    _, gid, size = np.unique(g, return_inverse=True, return_counts=True)
    pos = places_1k.astype(np.float64)
    p_size = size[gid].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_row = np.where(p_size > 1, (pos - 1.0) / (p_size - 1.0), 0.0)
    if (per_row > 1).any():
        row = int(np.argmax(per_row > 1))
        raise fail_at("place", f"must not exceed the number of players in the game "
                      f"({int(p_size[row])})", pos, row, source)
    n = len(index)
    games = np.bincount(ids, minlength=n).astype(np.float64)
    behind = np.bincount(ids, weights=per_row, minlength=n)
    gb = _games_behind(games, behind)
    order = np.argsort(gb, kind="stable") if sort else np.arange(n)
    return {"player": index.names[order], "games": games[order].astype(np.int64),
            "behind": behind[order], "games_behind": gb[order]}
