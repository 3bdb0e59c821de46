"""Generated team and free-for-all workloads for the Matches benchmarks (issue 11).

Every workload is ``n`` matches of ``teams`` teams of ``team_size`` players drawn
without repetition from ``n_players`` players with latent skills; the teams are ranked
by a noisy sum of their players' skills (no ties unless ``tie_rate`` > 0). The shapes
the targets name (``SHAPES``): 2M 1v1 games, 200k 4-player free-for-alls, 200k 2v2
matches, 20k 8-player free-for-alls, among 50k players; ``scale`` shrinks them for the
smoke run.

    >>> m = matches_workload("ffa4", scale=0.001)
    >>> m.n_matches, m.n_teams, m.n_seats
    (200, 800, 800)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastrate.data.matches import Matches
from fastrate.data.players import PlayerIndex

#: name -> (matches, teams per match, players per team) of the issue's targets
SHAPES: dict[str, tuple[int, int, int]] = {
    "1v1": (2_000_000, 2, 1),
    "ffa4": (200_000, 4, 1),
    "2v2": (200_000, 2, 2),
    "ffa8": (20_000, 8, 1),
}
N_PLAYERS = 50_000


def matches_workload(shape: str, scale: float = 1.0, n_players: int = N_PLAYERS,
                     seed: int = 11, tie_rate: float = 0.0) -> Matches:
    """The ``shape`` workload (see :data:`SHAPES`) with ``scale`` times its matches."""
    n, teams, size = SHAPES[shape]
    return generated_matches(max(1, int(n * scale)), teams, size,
                             min(n_players, max(teams * size * 4, int(n_players * scale))),
                             seed=seed, tie_rate=tie_rate)


def generated_matches(n: int, teams: int, size: int, n_players: int, seed: int = 11,
                      tie_rate: float = 0.0) -> Matches:
    """``n`` matches of ``teams`` teams of ``size`` players (CSR arrays built directly,
    with the same invariants :meth:`Matches.from_arrays` gives: teams best first,
    competition ranks)."""
    rng = np.random.default_rng(seed)
    per = teams * size
    if per > n_players:
        raise ValueError(f"{per} seats per match need at least {per} players")
    skill = rng.normal(0.0, 1.0, n_players)
    # distinct players per match: a random offset walk modulo n_players
    start = rng.integers(0, n_players, n)
    steps = rng.integers(1, max(2, n_players // per), (n, per))
    seats = (start[:, None] + np.cumsum(steps, axis=1)) % n_players
    team_skill = skill[seats].reshape(n, teams, size).sum(axis=2)
    perf = team_skill + rng.normal(0.0, np.sqrt(size), (n, teams))
    order = np.argsort(-perf, axis=1, kind="stable")
    seats = seats.reshape(n, teams, size)[np.arange(n)[:, None], order].reshape(-1)
    rank = np.tile(np.arange(1, teams + 1, dtype=np.int64), (n, 1))
    if tie_rate > 0.0:
        tie = rng.random((n, teams - 1)) < tie_rate
        for j in range(1, teams):  # a tie with the team before takes its rank
            rank[:, j] = np.where(tie[:, j - 1], rank[:, j - 1], rank[:, j])
    names = np.array([f"p{i}" for i in range(n_players)], dtype=object)
    return Matches(
        match_team_offsets=np.arange(0, n * teams + 1, teams, dtype=np.int64),
        team_player_offsets=np.arange(0, n * per + 1, size, dtype=np.int64),
        player=np.ascontiguousarray(seats, dtype=np.int64),
        rank=np.ascontiguousarray(rank.reshape(-1)),
        players=PlayerIndex(names))


def as_lists(matches: Matches, m: int) -> tuple[list[np.ndarray], list[int]]:
    """Match ``m`` as (teams of player ids, ranks): what peer packages are fed."""
    return matches.teams_of(m), matches.ranks_of(m).tolist()


def first(matches: Matches, k: int) -> Any:
    """The first ``k`` matches (a slice of the CSR arrays)."""
    k = min(k, matches.n_matches)
    mto = matches.match_team_offsets[:k + 1]
    tpo = matches.team_player_offsets[:int(mto[-1]) + 1]
    return Matches(match_team_offsets=np.ascontiguousarray(mto),
                   team_player_offsets=np.ascontiguousarray(tpo),
                   player=np.ascontiguousarray(matches.player[:int(tpo[-1])]),
                   rank=np.ascontiguousarray(matches.rank[:int(mto[-1])]),
                   players=matches.players)
