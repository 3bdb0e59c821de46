"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system"; SPEC §1.3).

Every player has a rating ``r``, a rating deviation ``RD`` and a volatility ``sigma``.
On the Glicko-2 scale ``mu = (r - 1500)/s``, ``phi = RD/s`` (``s = 173.7178``). Games are
grouped into rating periods; within a period every game uses the values both players
had at the start of the period, and everyone who played is updated at its end:

* ``g(phi) = 1/sqrt(1 + 3 phi^2/pi^2)``, ``E_j = 1/(1 + exp(-g(phi_j)(mu - mu_j)))``;
* ``v = 1/sum_j g(phi_j)^2 E_j (1 - E_j)``, ``Delta = v sum_j g(phi_j)(s_j - E_j)``;
* the new volatility ``sigma'`` solves ``f(x) = 0`` with
  ``f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a)/tau^2``,
  ``a = ln(sigma^2)``, by the Illinois algorithm of the 2013+ versions of the paper
  (tolerance ``epsilon``, at most ``max_iterations`` steps);
* ``phi* = sqrt(phi^2 + sigma'^2)``, ``phi' = 1/sqrt(1/phi*^2 + 1/v)``,
  ``mu' = mu + phi'^2 sum_j g(phi_j)(s_j - E_j)``.

**Inactivity** is applied lazily, only to players who play: a player last rated in
period ``L`` who skipped ``L+1 .. p-1`` enters period ``p`` with
``phi^2 + (p - L - 1) sigma^2`` (the paper's "did not compete" step, once per missed
period). A player who has never played gets no growth before his first period.

**Reported values**: ``rd`` and ``volatility`` are as of the end of the player's own
last rated period (``last_period``); growth for inactivity is applied when he next
plays. Continuing from a saved result (``initial=previous``) gives the same numbers as
rating all games at once (to floating-point rounding).

**Convergence**: the iteration stops when its bracket is narrower than ``epsilon`` (in
``ln sigma^2``), so the volatility is determined to about ``epsilon`` relative. If a
player's iteration has not converged after ``max_iterations`` steps, its newest iterate
(the paper's ``B``) is kept, the player's id is listed in ``Ratings.unconverged``
(players whose *last* solve did not converge) and a
:class:`fastrate.errors.ConvergenceWarning` names them.

**Predictions**: for every game, the first player's expected score before the period,
by the analogue of Glickman's prediction formula on the Glicko-2 scale,
``1/(1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))``.

Games without a period form one rating period. ``weight``, ``margin`` and ``neutral``
of the games are not used. Beware of ports that use the rating ``mu`` where the paper
has ``phi`` in ``f``; they give 0.05999342 instead of 0.0599959843 on the paper's example.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games, PlayerState, Ratings, period_starts
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, RD, VOLATILITY
from fastrate.errors import ConvergenceWarning
from fastrate.ratings._common import (
    BLOCK,
    REC_LEVEL,
    REC_VAR,
    REC_VOL,
    check_positive_state,
    close_records,
    exact_records,
    open_records,
    reported_last,
)
from fastrate.ratings._steps import W_ROWS, glicko2_period, glicko2_step

__all__ = ["Glicko2Config", "rate", "expected_score", "g", "SCALE"]

#: Glickman's conversion factor between the Glicko and Glicko-2 scales
SCALE = 173.7178
_INF = math.inf


@dataclass(frozen=True)
class Glicko2Config:
    """Parameters of a Glicko-2 run (all validated on construction).

    ``tau`` constrains the change in volatility (Glickman: 0.3 to 1.2); ``epsilon``
    and ``max_iterations`` control the volatility solve; ``scale`` converts between
    the Glicko scale and the Glicko-2 scale (``mu = (r - 1500)/scale``).
    """

    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    tau: float = 0.5
    scale: float = SCALE
    epsilon: float = 1e-6
    max_iterations: int = 100

    def __post_init__(self) -> None:
        o = "Glicko2Config"
        check_number(o, "initial_rating", self.initial_rating, lo=-_INF, hi=_INF,
                     lo_open=True, hi_open=True)
        for name in ("initial_rd", "initial_volatility", "tau", "scale", "epsilon"):
            check_number(o, name, getattr(self, name), lo=0.0, hi=_INF, lo_open=True,
                         hi_open=True)
        check_number(o, "max_iterations", self.max_iterations, lo=1.0, hi=1e9, integer=True)


# ----------------------------------------------------------------------------------
# kernels (one period's update is fastrate.ratings._steps.glicko2_period, which the
# ladder simulator drives too)


@kernel
def _glicko2_kernel(white, black, score, period, starts, rec, failed, step, touched, pred):
    """Glicko-2 over all rating periods, on the Glicko-2 scale: :func:`glicko2_period`
    for every period (``starts`` holds the first game index of every period plus ``n``;
    ``period[starts[k]]`` is the absolute number of period ``k``, whose index ``k`` marks
    the players listed in it). ``rec``, ``failed``, ``step`` (a
    :class:`~fastrate.ratings._steps.Glicko2Step`), ``touched`` and ``pred`` as there;
    the scratch is allocated here, once. Each period costs O(games in it)."""
    buf = np.empty((8, BLOCK))
    w = np.empty((W_ROWS, BLOCK))
    for k in range(starts.shape[0] - 1):
        lo = starts[k]
        glicko2_period(white, black, score, lo, starts[k + 1], float(period[lo]), float(k),
                       rec, failed, step, touched, buf, w, pred)


# ----------------------------------------------------------------------------------
# public API


def g(phi: Any) -> Any:
    """Glickman's ``g(phi) = 1/sqrt(1 + 3 phi^2/pi^2)`` on the Glicko-2 scale."""
    phi = np.asarray(phi, dtype=np.float64)
    return 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected_score(rating_a: Any, rating_b: Any, rd_b: Any, rd_a: Any = 0.0,
                   scale: float = SCALE) -> Any:
    """Glicko-2 expected score of A against B (ratings and RDs on the Glicko scale),
    NumPy-vectorised: ``1/(1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))``.

    With ``rd_a = 0`` (the default) this is the paper's ``E``; with both deviations it
    is the prediction :func:`rate` stores in ``Ratings.predictions``.

    >>> round(float(expected_score(1500, 1400, 30)), 3)
    0.639
    """
    phi_a = np.asarray(rd_a, dtype=np.float64) / scale
    phi_b = np.asarray(rd_b, dtype=np.float64) / scale
    d = (np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)) / scale
    return 1.0 / (1.0 + np.exp(-g(np.sqrt(phi_a * phi_a + phi_b * phi_b)) * d))


def _warn_unconverged(state: PlayerState, failed: np.ndarray, config: Glicko2Config) -> None:
    ids = np.flatnonzero(failed == 2)
    if ids.shape[0] == 0:
        return
    names = ", ".join(repr(state.players[int(i)]) for i in ids[:5])
    more = f" and {ids.shape[0] - 5} more" if ids.shape[0] > 5 else ""
    warnings.warn(
        f"Glicko-2 volatility did not converge within max_iterations={config.max_iterations} "
        f"(epsilon={config.epsilon!r}) for {ids.shape[0]} player(s) in their last rating "
        f"period: {names}{more}; the newest iterate was kept (see Ratings.unconverged); raise "
        "max_iterations or epsilon", ConvergenceWarning, stacklevel=3)


def rate(games: Games, config: Glicko2Config = Glicko2Config(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Rate ``games`` with Glicko-2; return ratings, RDs, volatilities and predictions.

    ``initial`` sets starting values (a previous :class:`Ratings`, a mapping
    ``name -> rating`` or a table with ``player`` and any of ``rating``, ``rd``,
    ``volatility``, ``games_played``, ``last_period``). Games without a period form one
    rating period with no RD growth before it; ``last_period`` is then not reported (or
    passed through from ``initial``). ``rd``/``volatility`` are as of each player's last
    rated period, so ``rate(second_half, initial=rate(first_half))`` equals
    ``rate(all_games)`` when split between periods. ``Ratings.unconverged`` lists the
    ids of players whose last volatility solve did not converge (a
    :class:`~fastrate.errors.ConvergenceWarning` is issued for this run's ones).
    ``predictions=False`` skips the per-game predictions (``Ratings.predictions`` None).
    """
    check_type(games, Games, "rate() needs a fastrate.Games", "build one with Games.from_arrays or read_games")
    check_type(config, Glicko2Config, "config must be a Glicko2Config")
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating,
                                       rd=config.initial_rd,
                                       volatility=config.initial_volatility)
    check_positive_state(state, "rd", state.rd)
    check_positive_state(state, "volatility", state.volatility)
    n = len(state.players)
    failed = np.zeros(n, dtype=np.int8)
    if isinstance(initial, Ratings) and initial.unconverged is not None:
        # PlayerState.resolve keeps the ids of the players of a previous Ratings
        failed[initial.unconverged] = 1
    period = games.period_or_zero()
    starts = period_starts(period)
    scale = float(config.scale)
    rec = open_records(games, state, (state.rating - 1500.0) / scale, (state.rd / scale) ** 2,
                       initial)
    rec[:, REC_VOL] = state.volatility
    pred = np.empty(games.n_games if predictions else 0, dtype=np.float64)
    step = glicko2_step(config.tau, config.epsilon, config.max_iterations)
    _glicko2_kernel(games.white, games.black, games.score, period, starts, rec, failed, step,
                    np.empty(n + 1, dtype=np.int64), pred)
    played = close_records(rec, games, state)
    state.rating[played] = 1500.0 + scale * rec[played, REC_LEVEL]
    state.rd[played] = scale * np.sqrt(rec[played, REC_VAR])
    state.volatility[played] = rec[played, REC_VOL]
    _warn_unconverged(state, failed, config)
    return Ratings(system="glicko2", players=state.players, rating=state.rating,
                   games_played=state.games_played, predictions=games.to_input_order(pred) if predictions else None,
                   config=config, rd=state.rd, volatility=state.volatility,
                   last_period=reported_last(games, state),
                   unconverged=np.flatnonzero(failed).astype(np.int64), exact=exact_records(rec))

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, RD, VOLATILITY, GAMES_PLAYED, LAST_PERIOD)
