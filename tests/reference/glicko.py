"""A slow, obviously-correct pure-Python Glicko, written from Glickman's paper ("The
Glicko system", glicko.net) and SPEC §1.2 only (not from the kernel); the oracle of
tests/test_glicko.py.

Plain dicts keyed by player name and a plain loop over rating periods; the formulas
are written as in the paper (``10 ** (...)``, ``d^2`` then ``1/d^2``).

Conventions (the ones fastrate documents):

* games are ``(period, white, black, score)`` in chronological order; consecutive games
  with the same period form one rating period; ``period=None`` for all games means one
  period and no RD growth;
* step 1, at the onset of period ``p``, only for the players of the period: a player
  last rated in period ``L`` gets ``RD = min(sqrt(RD^2 + c^2 (p - L)), max_rd)`` when
  ``p > L``; a player never rated (``L is None``) keeps his RD, or with
  ``first_period_growth`` gets ``min(sqrt(RD^2 + c^2), max_rd)`` (R PlayerRatings);
* ``advantage`` (``h``, PlayerRatings' ``gamma``) is added to the first player's rating
  in both players' ``E`` and in the prediction (``r_a - r_b`` becomes ``r_a + h - r_b``),
  except in games listed in ``neutral`` (indices into ``games``);
* step 2 for every player of the period against all his games of the period, with
  every opponent's values from the onset of the period; ``RD'`` floored at ``min_rd``;
* the reported RD is the one after the player's last rated period, ``last_period``
  that period;
* the prediction of a game: ``1 / (1 + 10 ** (-g(sqrt(RD_a^2 + RD_b^2)) (r_a - r_b)/400))``
  with both players' onset values;
* ``skip_empty_periods`` (R PlayerRatings' convention, its ``glicko``/``glicko2``/``steph``
  code written out): each player has a ``lag``; after every period, ``lag += 1`` for
  every player who has a last period, then ``lag = 0`` for the period's players; the
  growth uses ``lag`` in place of the periods since the last one (see below);
* newcomers: ``entry`` / ``entry_rd`` (per-game lists, None or NaN for none): a player
  with no games yet takes the rating / RD of the game where he first appears, before
  any growth.
"""


from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

Q = math.log(10) / 400


@dataclass
class Player:
    rating: float
    rd: float
    last_period: int | None = None
    games_played: int = 0
    lag: int = 0


def _given(values: list[float | None] | None, k: int) -> float | None:
    """The per-game value ``values[k]`` when there is one (not None, not NaN)."""
    if values is None or values[k] is None or math.isnan(values[k]):
        return None
    return float(values[k])


def _lag_step(players: dict[Any, Any], onset: Any) -> None:
    """PlayerRatings' ``nlag[ngames != 0] += 1; nlag[playi] <- 0`` after a period."""
    for x, pl in players.items():
        if pl.last_period is not None:
            pl.lag = 0 if x in onset else pl.lag + 1


def g(rd: float) -> float:
    return 1 / math.sqrt(1 + 3 * Q**2 * rd**2 / math.pi**2)


def expected(r: float, r_j: float, rd_j: float) -> float:
    return 1 / (1 + 10 ** (-g(rd_j) * (r - r_j) / 400))


def rate(games: list[tuple[Any, Any, Any, float]], *, initial_rating: float = 1500.0,
         initial_rd: float = 350.0, max_rd: float = 350.0,
         c: float = math.sqrt((350**2 - 50**2) / 30), min_rd: float = 0.0,
         state: dict[Any, Player] | None = None, advantage: float = 0.0,
         first_period_growth: bool = False, neutral: frozenset[int] = frozenset(),
         skip_empty_periods: bool = False, entry: list[float | None] | None = None,
         entry_rd: list[float | None] | None = None,
         ) -> tuple[dict[Any, Player], list[float]]:
    """Return the final players (name -> Player) and the prediction of every game."""
    players = {k: replace(v) for k, v in (state or {}).items()}
    predictions: list[float] = []
    i = 0
    while i < len(games):
        p = games[i][0]
        j = i
        while j < len(games) and games[j][0] == p:
            j += 1
        period_games = [(k, *games[k]) for k in range(i, j)]
        i = j
        # step 1: onset values of everyone who plays in this period
        onset: dict[Any, tuple[float, float]] = {}
        for k, _, a, b, _s in period_games:
            for x in (a, b):
                if x in onset:
                    continue
                pl = players.setdefault(x, Player(initial_rating, initial_rd))
                if pl.games_played == 0:
                    r0, rd0 = _given(entry, k), _given(entry_rd, k)
                    pl.rating = pl.rating if r0 is None else r0
                    pl.rd = pl.rd if rd0 is None else rd0
                rd = pl.rd
                if p is not None and pl.last_period is not None and skip_empty_periods:
                    # t = lag + 1: the periods with games since the last one, this one too
                    rd = min(math.sqrt(rd**2 + c**2 * (pl.lag + 1)), max_rd)
                elif p is not None and pl.last_period is not None and p > pl.last_period:
                    rd = min(math.sqrt(rd**2 + c**2 * (p - pl.last_period)), max_rd)
                elif pl.last_period is None and first_period_growth:
                    rd = min(math.sqrt(rd**2 + c**2), max_rd)
                onset[x] = (pl.rating, rd)
        # the results of the period, per player
        results: dict[Any, list[tuple[float, float, float]]] = {x: [] for x in onset}
        for k, _, a, b, s in period_games:
            (ra, rda), (rb, rdb) = onset[a], onset[b]
            h = 0.0 if k in neutral else advantage
            # the opponent's rating as seen from each side: the first player meets
            # r_b - h, the second meets r_a + h
            results[a].append((rb - h, rdb, s))
            results[b].append((ra + h, rda, 1 - s))
            predictions.append(1 / (1 + 10 ** (-g(math.sqrt(rda**2 + rdb**2)) * (ra + h - rb)
                                                / 400)))
            players[a].games_played += 1
            players[b].games_played += 1
        # step 2
        for x, (r, rd) in onset.items():
            d2 = 1 / (Q**2 * sum(g(rd_j)**2 * expected(r, r_j, rd_j) * (1 - expected(r, r_j, rd_j))
                                 for r_j, rd_j, _ in results[x]))
            change = sum(g(rd_j) * (s_j - expected(r, r_j, rd_j)) for r_j, rd_j, s_j in results[x])
            new_r = r + Q / (1 / rd**2 + 1 / d2) * change
            new_rd = max(math.sqrt(1 / (1 / rd**2 + 1 / d2)), min_rd)
            pl = players[x]
            pl.rating, pl.rd = new_r, new_rd
            if p is not None:
                pl.last_period = p
        if p is not None and skip_empty_periods:
            _lag_step(players, onset)
    return players, predictions
