"""A slow, obviously-correct pure-Python Stephenson rating system, written from R
PlayerRatings' ``steph`` (its documented update, SPEC §1.6) only (not from the kernel);
the oracle of tests/test_stephenson.py.

Plain dicts keyed by player name and a plain loop over rating periods, the formulas as
PlayerRatings writes them (``10 ** (...)``, ``qv = ln 10 / 400``).

Conventions (the ones fastrate documents):

* games are ``(period, white, black, score)`` in chronological order; consecutive games
  with the same period form one rating period; ``period=None`` for all games means one
  period and no growth at all;
* at the onset of period ``p``, for the players of the period only: a player last rated
  in period ``L`` gets ``RD^2 = min(RD^2 + c^2 (p - L), max_rd^2)`` when ``p > L``; a
  player never rated gets ``min(RD^2 + c^2, max_rd^2)`` (``first_period_growth``) or
  nothing;
* every game with the onset values of both players; ``h`` (``advantage``) raises the
  first player's rating in both players' expected scores and in the prediction, none in
  the games listed in ``neutral`` (indices into ``games``); the neighbourhood term uses
  the plain rating difference;
* at the end of the period, for a player with ``n`` games in it:
  ``dval = qv^2 sum g_j^2 E_j (1 - E_j)``, ``dscore = sum g_j (s_j + bval/100 - E_j)``,
  ``RD'^2 = 1 / (1 / (RD^2 + n hval^2) + dval)``,
  ``r' = r + RD'^2 qv dscore + (lambda/100) sum_j (r_j - r) / n``;
* the prediction of a game: ``1 / (1 + 10 ** (-g(sqrt(RD_a^2 + RD_b^2)) (r_a + h - r_b)/400))``;
* ``skip_empty_periods`` (R PlayerRatings' convention, its ``glicko``/``glicko2``/``steph``
  code written out): each player has a ``lag``; after every period, ``lag += 1`` for
  every player who has a last period, then ``lag = 0`` for the period's players; the
  growth uses ``lag`` in place of the periods since the last one;
* newcomers: ``entry`` / ``entry_rd`` (per-game lists, None or NaN for none): a player
  with no games yet takes the rating / RD of the game where he first appears, before
  any growth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from reference.glicko import _given, _lag_step  # the per-game columns, PlayerRatings' Lag

QV = math.log(10) / 400


@dataclass
class Player:
    rating: float
    rd: float
    last_period: int | None = None
    games_played: int = 0
    lag: int = 0


def g(rd2: float) -> float:
    """g of a deviation given its square."""
    return 1 / math.sqrt(1 + 3 * QV**2 * rd2 / math.pi**2)


def rate(games: list[tuple[Any, Any, Any, float]], *, initial_rating: float = 2200.0,
         initial_rd: float = 300.0, c: float = 10.0, h_dev: float = 10.0, bonus: float = 0.0,
         neighbourhood: float = 2.0, advantage: float = 0.0, max_rd: float = 350.0,
         first_period_growth: bool = True, neutral: frozenset[int] = frozenset(),
         state: dict[Any, Player] | None = None, skip_empty_periods: bool = False,
         entry: list[float | None] | None = None, entry_rd: list[float | None] | None = None,
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
        period = list(range(i, j))
        i = j
        onset: dict[Any, tuple[float, float]] = {}   # rating, RD^2
        for k in period:
            for x in games[k][1:3]:
                if x in onset:
                    continue
                pl = players.setdefault(x, Player(initial_rating, initial_rd))
                if pl.games_played == 0:
                    r0, rd0 = _given(entry, k), _given(entry_rd, k)
                    pl.rating = pl.rating if r0 is None else r0
                    pl.rd = pl.rd if rd0 is None else rd0
                rd2 = pl.rd**2
                if p is not None:
                    if pl.last_period is None:
                        lag = 1 if first_period_growth else 0
                    elif skip_empty_periods:
                        lag = pl.lag + 1   # PlayerRatings: (nlag + 1) cval^2
                    else:
                        lag = max(p - pl.last_period, 0)
                    if lag > 0:
                        rd2 = min(rd2 + lag * c**2, max_rd**2)
                onset[x] = (pl.rating, rd2)
        dval = {x: 0.0 for x in onset}
        dscore = {x: 0.0 for x in onset}
        l1t = {x: 0.0 for x in onset}
        count = {x: 0 for x in onset}
        for k in period:
            _, a, b, s = games[k]
            (ra, va), (rb, vb) = onset[a], onset[b]
            h = 0.0 if k in neutral else advantage
            ea = 1 / (1 + 10 ** (g(vb) * (rb - ra - h) / 400))
            eb = 1 / (1 + 10 ** (g(va) * (ra - rb + h) / 400))
            dval[a] += QV**2 * g(vb) ** 2 * ea * (1 - ea)
            dval[b] += QV**2 * g(va) ** 2 * eb * (1 - eb)
            dscore[a] += g(vb) * (s + bonus / 100 - ea)
            dscore[b] += g(va) * (1 - s + bonus / 100 - eb)
            l1t[a] += rb - ra
            l1t[b] += ra - rb
            count[a] += 1
            count[b] += 1
            predictions.append(1 / (1 + 10 ** (-g(va + vb) * (ra + h - rb) / 400)))
            players[a].games_played += 1
            players[b].games_played += 1
        for x, (r, rd2) in onset.items():
            new_rd2 = 1 / (1 / (rd2 + count[x] * h_dev**2) + dval[x])
            pl = players[x]
            pl.rating = r + new_rd2 * QV * dscore[x] + (neighbourhood / 100) * l1t[x] / count[x]
            pl.rd = math.sqrt(new_rd2)
            if p is not None:
                pl.last_period = p
        if p is not None and skip_empty_periods:
            _lag_step(players, onset)
    return players, predictions
