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
plays. Continuing from a saved result (``initial=previous``) gives exactly the same
numbers as rating all games at once.

**Convergence**: if the volatility iteration of a player has not converged after
``max_iterations`` steps, its newest iterate (the paper's ``B``) is kept, the player's id is listed in
``Ratings.unconverged`` (players whose *last* solve did not converge) and a
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

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_number
from fastrate.data import Games, PlayerState, Ratings
from fastrate.errors import ConvergenceWarning, InputError
from fastrate.ratings._common import period_starts

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
# kernels


@inline_kernel
def _f(x, delta2, phi2, v, a, tau2):
    ex = math.exp(x)
    w = phi2 + v + ex
    return ex * (delta2 - phi2 - v - ex) / (2.0 * w * w) - (x - a) / tau2


@inline_kernel
def _volatility(sigma, phi2, v, delta, tau, epsilon, max_iterations):
    """Glickman's step 5 (Illinois algorithm); returns ``(sigma', converged)``."""
    a = math.log(sigma * sigma)
    tau2 = tau * tau
    delta2 = delta * delta
    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1.0
        while _f(a - k * tau, delta2, phi2, v, a, tau2) < 0.0:
            k += 1.0
        big_b = a - k * tau
    f_a = _f(big_a, delta2, phi2, v, a, tau2)
    f_b = _f(big_b, delta2, phi2, v, a, tau2)
    it = 0
    while abs(big_b - big_a) > epsilon:
        if it >= max_iterations:
            # not converged: keep the newest iterate (the paper's A is the bracket end
            # kept for the sign change, which may still be far from the root)
            return math.exp(big_b / 2.0), False
        it += 1
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = _f(big_c, delta2, phi2, v, a, tau2)
        if f_c * f_b <= 0.0:
            big_a = big_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = big_c
        f_b = f_c
    return math.exp(big_a / 2.0), True


@kernel
def _glicko2_kernel(white, black, score, period, starts, rating, rd, volatility,
                    games_played, last_period, failed, scale, tau, epsilon, max_iterations,
                    mu, gg, kk, phi2, vsum, dsum, stamp, touched, pred):
    """Glicko-2 over all rating periods.

    ``starts`` holds the first game index of every period plus ``n``; ``period[starts[k]]``
    is the absolute number of period ``k``. Scratch arrays of length n_players (caller
    allocated): ``mu``, ``gg`` = g(phi), ``kk`` = 3 phi^2/pi^2 and ``phi2`` of the
    pre-period values, ``vsum`` (= 1/v) and ``dsum`` accumulators, ``stamp`` (-1
    initially) and ``touched``. ``failed[x]`` is set to 2 when player x's volatility
    solve did not converge and to 0 when it did. Updates the state in place.
    """
    no_period = np.iinfo(np.int64).min
    k3 = 3.0 / (math.pi * math.pi)
    n_periods = starts.shape[0] - 1
    for k in range(n_periods):
        lo = starts[k]
        hi = starts[k + 1]
        p = period[lo]
        nt = 0
        for i in range(lo, hi):
            a = white[i]
            b = black[i]
            if stamp[a] != k:
                stamp[a] = k
                touched[nt] = a
                nt += 1
                ph = rd[a] / scale
                v2 = ph * ph
                last = last_period[a]
                if last != no_period and p - last > 1:
                    v2 += (p - last - 1) * volatility[a] * volatility[a]
                phi2[a] = v2
                mu[a] = (rating[a] - 1500.0) / scale
                kk[a] = k3 * v2
                gg[a] = 1.0 / math.sqrt(1.0 + k3 * v2)
                vsum[a] = 0.0
                dsum[a] = 0.0
            if stamp[b] != k:
                stamp[b] = k
                touched[nt] = b
                nt += 1
                ph = rd[b] / scale
                v2 = ph * ph
                last = last_period[b]
                if last != no_period and p - last > 1:
                    v2 += (p - last - 1) * volatility[b] * volatility[b]
                phi2[b] = v2
                mu[b] = (rating[b] - 1500.0) / scale
                kk[b] = k3 * v2
                gg[b] = 1.0 / math.sqrt(1.0 + k3 * v2)
                vsum[b] = 0.0
                dsum[b] = 0.0
            s = score[i]
            diff = mu[a] - mu[b]
            ga = gg[a]
            gb = gg[b]
            e_ab = 1.0 / (1.0 + math.exp(-gb * diff))
            e_ba = 1.0 / (1.0 + math.exp(ga * diff))
            vsum[a] += gb * gb * e_ab * (1.0 - e_ab)
            dsum[a] += gb * (s - e_ab)
            vsum[b] += ga * ga * e_ba * (1.0 - e_ba)
            dsum[b] += ga * ((1.0 - s) - e_ba)
            pred[i] = 1.0 / (1.0 + math.exp(-diff / math.sqrt(1.0 + kk[a] + kk[b])))
            games_played[a] += 1
            games_played[b] += 1
        for t in range(nt):
            x = touched[t]
            sigma = volatility[x]
            ph2 = phi2[x]
            if vsum[x] > 0.0:
                v = 1.0 / vsum[x]
                sigma, ok = _volatility(sigma, ph2, v, v * dsum[x], tau, epsilon,
                                        max_iterations)
                new_phi2 = 1.0 / (1.0 / (ph2 + sigma * sigma) + vsum[x])
                failed[x] = 0 if ok else 2
            else:
                # expected scores of exactly 0 or 1 (v infinite): no information on the
                # volatility; the limit of steps 6-8 as v -> inf with sigma kept
                new_phi2 = ph2 + sigma * sigma
                failed[x] = 0
            rating[x] = 1500.0 + scale * (mu[x] + new_phi2 * dsum[x])
            rd[x] = scale * math.sqrt(new_phi2)
            volatility[x] = sigma
            last_period[x] = p


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


def _check_positive(state: PlayerState, column: str, values: np.ndarray) -> None:
    bad = ~(values > 0.0) | ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"initial '{column}' must be a finite number > 0; found "
                         f"{float(values[i])!r} for player {state.players[i]!r}")


def _warn_unconverged(state: PlayerState, failed: np.ndarray, config: Glicko2Config) -> None:
    ids = np.flatnonzero(failed == 2)
    if ids.shape[0] == 0:
        return
    names = ", ".join(repr(state.players[int(i)]) for i in ids[:5])
    more = f" and {ids.shape[0] - 5} more" if ids.shape[0] > 5 else ""
    warnings.warn(
        f"Glicko-2 volatility did not converge within max_iterations={config.max_iterations} "
        f"(epsilon={config.epsilon!r}) for {ids.shape[0]} player(s) in their last rating "
        f"period: {names}{more}; the last iterate was kept (see Ratings.unconverged); raise "
        "max_iterations or epsilon", ConvergenceWarning, stacklevel=3)


def rate(games: Games, config: Glicko2Config = Glicko2Config(), initial: Any = None) -> Ratings:
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
    """
    if not isinstance(games, Games):
        raise InputError(f"rate() needs a fastrate.Games; got {type(games).__name__} "
                         "(build one with Games.from_arrays or read_games)")
    if not isinstance(config, Glicko2Config):
        raise InputError(f"config must be a Glicko2Config; got {type(config).__name__}")
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating,
                                       rd=config.initial_rd,
                                       volatility=config.initial_volatility)
    _check_positive(state, "rd", state.rd)
    _check_positive(state, "volatility", state.volatility)
    n = len(state.players)
    failed = np.zeros(n, dtype=np.int8)
    if isinstance(initial, Ratings) and initial.unconverged is not None:
        # PlayerState.resolve keeps the ids of the players of a previous Ratings
        failed[initial.unconverged] = 1
    period = games.period_or_zero()
    starts = period_starts(period)
    last = state.last_period if games.period is not None else np.full(
        n, PlayerState.NO_PERIOD, dtype=np.int64)
    pred = np.empty(games.n_games, dtype=np.float64)
    _glicko2_kernel(games.white, games.black, games.score, period, starts, state.rating,
                    state.rd, state.volatility, state.games_played, last, failed,
                    float(config.scale), float(config.tau), float(config.epsilon),
                    int(config.max_iterations), np.empty(n), np.empty(n), np.empty(n),
                    np.empty(n), np.empty(n), np.empty(n), np.full(n, -1, dtype=np.int64),
                    np.empty(n, dtype=np.int64), pred)
    _warn_unconverged(state, failed, config)
    if games.period is not None or (state.last_period != PlayerState.NO_PERIOD).any():
        last_period = state.last_period
    else:
        last_period = None
    return Ratings(system="glicko2", players=state.players, rating=state.rating,
                   games_played=state.games_played, predictions=games.to_input_order(pred),
                   config=config, rd=state.rd, volatility=state.volatility,
                   last_period=last_period,
                   unconverged=np.flatnonzero(failed).astype(np.int64))
