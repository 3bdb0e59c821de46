"""A slow, obviously-correct pure-Python Glicko-2, written from Glickman's "Example of
the Glicko-2 system" (the 2013+ version, Illinois algorithm) and SPEC §1.3 only (not
from the kernel); the oracle of tests/test_glicko2.py.

Plain dicts keyed by player name and a plain loop over rating periods, steps 1-8 of
the paper written out.

Conventions (the ones fastrate documents):

* games are ``(period, white, black, score)`` in chronological order; consecutive games
  with the same period form one rating period; ``period=None`` for all games means one
  period and no growth;
* a player last rated in period ``L`` who plays in period ``p`` first gets the paper's
  "did not compete" step ``phi <- sqrt(phi^2 + sigma^2)`` once for each of the missed
  periods ``L+1 .. p-1``; a player never rated (``L is None``) gets none;
* steps 2-8 for every player of the period against all his games of the period, with
  the opponents' values from the onset of the period; if ``sum g^2 E (1-E)`` is exactly 0
  (expected scores of 0 or 1 in floating point) the volatility is kept and
  ``phi' = sqrt(phi^2 + sigma^2)``, ``mu' = mu + phi'^2 sum g (s - E)``;
* the volatility iteration stops after ``max_iterations`` steps; the player is then
  flagged as unconverged and the newest iterate (``B``) kept;
* the prediction of a game: ``1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))``;
* ``advantage`` (``h`` on the Glicko scale, PlayerRatings' ``gamma``): the first player's
  ``mu`` is raised by ``h/scale`` in both players' ``E`` and in the prediction, except in
  the games listed in ``neutral`` (indices into ``games``);
* ``max_rd`` (PlayerRatings' ``rdmax``): RD is capped after the missed periods' growth
  and after step 7;
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

SCALE = 173.7178


@dataclass
class Player:
    rating: float
    rd: float
    volatility: float
    last_period: int | None = None
    games_played: int = 0
    unconverged: bool = False
    lag: int = 0


def g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def E(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-g(phi_j) * (mu - mu_j)))


def new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float,
                   epsilon: float, max_iterations: int) -> tuple[float, bool]:
    """Step 5 of the paper; returns (sigma', converged)."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (math.exp(x) * (delta**2 - phi**2 - v - math.exp(x))
                / (2 * (phi**2 + v + math.exp(x)) ** 2) - (x - a) / tau**2)

    A = a
    if delta**2 > phi**2 + v:
        B = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    steps = 0
    while abs(B - A) > epsilon:
        if steps == max_iterations:
            return math.exp(B / 2), False   # the newest iterate
        steps += 1
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA = fA / 2
        B, fB = C, fC
    return math.exp(A / 2), True


def rate(games: list[tuple[Any, Any, Any, float]], *, initial_rating: float = 1500.0,
         initial_rd: float = 350.0, initial_volatility: float = 0.06, tau: float = 0.5,
         scale: float = SCALE, epsilon: float = 1e-6, max_iterations: int = 100,
         state: dict[Any, Player] | None = None, advantage: float = 0.0,
         max_rd: float = math.inf, neutral: frozenset[int] = frozenset(),
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
        # step 1-2: onset values on the Glicko-2 scale, with the missed periods' growth
        onset: dict[Any, tuple[float, float, float]] = {}
        for _k, _, a, b, _s in period_games:
            for x in (a, b):
                if x in onset:
                    continue
                pl = players.setdefault(x, Player(initial_rating, initial_rd,
                                                  initial_volatility))
                if pl.games_played == 0:
                    r0, rd0 = _given(entry, _k), _given(entry_rd, _k)
                    pl.rating = pl.rating if r0 is None else r0
                    pl.rd = pl.rd if rd0 is None else rd0
                mu = (pl.rating - 1500) / scale
                phi = pl.rd / scale
                if p is not None and pl.last_period is not None:
                    # the missed periods: every period number between (or, counting only
                    # periods with games, the player's lag)
                    missed = pl.lag if skip_empty_periods else max(p - pl.last_period - 1, 0)
                    for _missed in range(missed):
                        phi = math.sqrt(phi**2 + pl.volatility**2)
                    if missed > 0:
                        phi = min(phi, max_rd / scale)
                onset[x] = (mu, phi, pl.volatility)
        results: dict[Any, list[tuple[float, float, float]]] = {x: [] for x in onset}
        for k, _, a, b, s in period_games:
            (mu_a, phi_a, _), (mu_b, phi_b, _) = onset[a], onset[b]
            h = 0.0 if k in neutral else advantage / scale
            results[a].append((mu_b - h, phi_b, s))
            results[b].append((mu_a + h, phi_a, 1 - s))
            predictions.append(1 / (1 + math.exp(-g(math.sqrt(phi_a**2 + phi_b**2))
                                                 * (mu_a + h - mu_b))))
            players[a].games_played += 1
            players[b].games_played += 1
        for x, (mu, phi, sigma) in onset.items():
            res = results[x]
            info = sum(g(phi_j)**2 * E(mu, mu_j, phi_j) * (1 - E(mu, mu_j, phi_j))
                       for mu_j, phi_j, _ in res)
            total = sum(g(phi_j) * (s_j - E(mu, mu_j, phi_j)) for mu_j, phi_j, s_j in res)
            pl = players[x]
            if info > 0:
                v = 1 / info                                              # step 3
                delta = v * total                                         # step 4
                sigma_new, ok = new_volatility(sigma, phi, v, delta, tau, epsilon,
                                               max_iterations)            # step 5
                phi_star = math.sqrt(phi**2 + sigma_new**2)               # step 6
                phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)          # step 7
            else:
                sigma_new, ok = sigma, True
                phi_new = math.sqrt(phi**2 + sigma**2)
            phi_new = min(phi_new, max_rd / scale)
            mu_new = mu + phi_new**2 * total
            pl.rating = scale * mu_new + 1500                             # step 8
            pl.rd = scale * phi_new
            pl.volatility = sigma_new
            pl.unconverged = not ok
            if p is not None:
                pl.last_period = p
        if p is not None and skip_empty_periods:
            _lag_step(players, onset)
    return players, predictions
