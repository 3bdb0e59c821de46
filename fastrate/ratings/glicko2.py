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

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_number
from fastrate.data import Games, PlayerState, Ratings, period_starts
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, RD, VOLATILITY
from fastrate.errors import ConvergenceWarning, InputError
from fastrate.ratings._common import (
    BLOCK,
    PREFETCH,
    REC_DELTA,
    REC_GAMES,
    REC_INFO,
    REC_LAST,
    REC_LEVEL,
    REC_STAMP,
    REC_VAR,
    add_game_terms,
    add_games_played,
    exp,
    game_terms,
    last_as_float,
    log,
    prefetch_row,
    records,
    select,
)

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


@kernel
def _f(x, ex, a, d, w0, inv_tau2):
    """Glickman's ``f(x)`` given ``ex = e^x``, ``d = Delta^2 - phi^2 - v``, ``w0 = phi^2 + v``."""
    w = w0 + ex
    return ex * (d - ex) / (2.0 * w * w) - (x - a) * inv_tau2


@kernel
def _volatility(sigma, phi2, v, delta, tau, inv_tau2, exp_mtau, epsilon, max_iterations):
    """Glickman's step 5 (the Illinois algorithm of the 2013+ paper) for one player;
    returns ``(sigma'^2, converged)``. The kernel runs the same steps for a block of
    players at once (:func:`_solve_block`), with the same results.

    The same steps as the paper, with exponentials the algorithm already knows not
    recomputed: ``e^A = sigma^2`` at the start; ``e^B = Delta^2 - phi^2 - v`` when ``B`` is
    its log (so the first term of ``f(B)`` vanishes); ``e^(a - k tau)`` by repeated
    multiplication with ``exp_mtau = e^-tau``; ``f(B)`` of the bracket search is reused;
    the result ``sigma'^2 = e^A`` is the ``e^x`` computed for the final ``A``.
    """
    s2 = sigma * sigma
    a = log(s2)
    d = delta * delta - phi2 - v
    w0 = phi2 + v
    big_a = a
    ex_a = s2
    f_a = _f(a, s2, a, d, w0, inv_tau2)
    if d > 0.0:
        big_b = log(d)
        ex_b = d
        f_b = -(big_b - a) * inv_tau2
    else:
        k = 1.0
        ex_b = s2 * exp_mtau
        f_b = _f(a - tau, ex_b, a, d, w0, inv_tau2)
        while f_b < 0.0:
            k += 1.0
            ex_b *= exp_mtau
            f_b = _f(a - k * tau, ex_b, a, d, w0, inv_tau2)
        big_b = a - k * tau
    it = 0
    while abs(big_b - big_a) > epsilon:
        if it >= max_iterations:
            # not converged: keep the newest iterate (the paper's A is the bracket end
            # kept for the sign change, which may still be far from the root)
            return ex_b, False
        it += 1
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        ex_c = exp(big_c)
        f_c = _f(big_c, ex_c, a, d, w0, inv_tau2)
        if f_c * f_b <= 0.0:
            big_a = big_b
            ex_a = ex_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = big_c
        ex_b = ex_c
        f_b = f_c
    return ex_a, True


# Per-player working records, one 64-byte row (a cache line) per player; columns:
_STAMP, _MU, _PHI2, _VSUM, _DSUM, _VOL, _LAST = (REC_STAMP, REC_LEVEL, REC_VAR, REC_INFO,
                                                REC_DELTA, 6, REC_LAST)
# rows of the volatility solver's work buffer (one column per player of a block)
(_W_SIGMA, _W_PHI2, _W_VSUM, _W_DSUM, _W_NEW_SIGMA, _W_NEW_PHI2, _W_STEP, _W_FAILED, _W_A,
 _W_D, _W_W0, _W_BIG_A, _W_BIG_B, _W_F_A, _W_F_B, _W_EX_A, _W_EX_B) = range(17)
_W_ROWS = 17


@inline_kernel
def _touch(rec, x, fk, p, touched, nt):
    """Player ``x`` in a game of period ``k`` (``fk``, absolute number ``p``): at his first
    game of the period, the "did not compete" step for each missed period
    ``L+1 .. p-1`` (none when never rated: the NaN comparison is false) and zeroed
    sums, and list him in ``touched``; return the new count. Branch-free."""
    first = rec[x, _STAMP] != fk
    phi2 = rec[x, _PHI2]
    gap = p - rec[x, _LAST]
    vol = rec[x, _VOL]
    rec[x, _PHI2] = select(first & (gap > 1.0), phi2 + (gap - 1.0) * vol * vol, phi2)
    rec[x, _VSUM] = select(first, 0.0, rec[x, _VSUM])
    rec[x, _DSUM] = select(first, 0.0, rec[x, _DSUM])
    rec[x, _STAMP] = fk
    rec[x, REC_GAMES] += 1.0
    touched[nt] = x
    return nt + first


@inline_kernel
def _solve_block(m, w, tau, inv_tau2, exp_mtau, epsilon, max_iterations):
    """Steps 3-8 for the ``m`` players whose sigma, phi^2, ``1/v`` and ``sum g (s - E)``
    are in rows 0-3 of ``w``: rows 4-7 get sigma', phi'^2, the step of mu and 2.0 where
    the volatility did not converge (else 0.0).

    The volatility is :func:`_volatility` run for all players at once: every
    iteration of the Illinois algorithm is one vectorised pass over the block in which
    a player whose bracket is already narrower than ``epsilon`` keeps his values, so
    each player gets exactly the iterates of the scalar algorithm; the passes stop
    when no player is left. Players with ``1/v = 0`` (no information on the
    volatility) take the limit of steps 6-8 as ``v -> inf``, keeping sigma.
    """
    # the bracket [A, B] of the paper's step 5.2 (with k = 1 when Delta^2 <= phi^2 + v)
    for j in range(m):
        sigma = w[_W_SIGMA, j]
        phi2 = w[_W_PHI2, j]
        vsum = w[_W_VSUM, j]
        info = vsum > 0.0
        v = 1.0 / vsum
        delta = v * w[_W_DSUM, j]
        s2 = sigma * sigma
        a = log(s2)
        d = delta * delta - phi2 - v
        w0 = phi2 + v
        pos = d > 0.0
        log_d = log(select(pos, d, 1.0))
        ex_b = s2 * exp_mtau
        f_b = _f(a - tau, ex_b, a, d, w0, inv_tau2)
        w[_W_A, j] = a
        w[_W_D, j] = d
        w[_W_W0, j] = w0
        # no information: an empty bracket, nothing to iterate
        w[_W_BIG_A, j] = select(info, a, 0.0)
        w[_W_BIG_B, j] = select(info, select(pos, log_d, a - tau), 0.0)
        w[_W_EX_A, j] = s2
        w[_W_EX_B, j] = select(pos, d, ex_b)
        w[_W_F_A, j] = _f(a, s2, a, d, w0, inv_tau2)
        w[_W_F_B, j] = select(pos, -(log_d - a) * inv_tau2, f_b)
    # the rare brackets that need k > 1
    for j in range(m):
        if w[_W_VSUM, j] > 0.0 and not w[_W_D, j] > 0.0 and w[_W_F_B, j] < 0.0:
            a = w[_W_A, j]
            k = 1.0
            ex_b = w[_W_EX_B, j]
            f_b = w[_W_F_B, j]
            while f_b < 0.0:
                k += 1.0
                ex_b *= exp_mtau
                f_b = _f(a - k * tau, ex_b, a, w[_W_D, j], w[_W_W0, j], inv_tau2)
            w[_W_BIG_B, j] = a - k * tau
            w[_W_EX_B, j] = ex_b
            w[_W_F_B, j] = f_b
    # Illinois iterations, all players in step
    for _ in range(max_iterations):
        active = 0
        for j in range(m):
            big_a = w[_W_BIG_A, j]
            big_b = w[_W_BIG_B, j]
            f_a = w[_W_F_A, j]
            f_b = w[_W_F_B, j]
            go = abs(big_b - big_a) > epsilon
            active += go
            big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
            ex_c = exp(big_c)
            f_c = _f(big_c, ex_c, w[_W_A, j], w[_W_D, j], w[_W_W0, j], inv_tau2)
            swap = f_c * f_b <= 0.0
            w[_W_BIG_A, j] = select(go & swap, big_b, big_a)
            w[_W_EX_A, j] = select(go & swap, w[_W_EX_B, j], w[_W_EX_A, j])
            w[_W_F_A, j] = select(go, select(swap, f_b, f_a / 2.0), f_a)
            w[_W_BIG_B, j] = select(go, big_c, big_b)
            w[_W_EX_B, j] = select(go, ex_c, w[_W_EX_B, j])
            w[_W_F_B, j] = select(go, f_c, f_b)
        if active == 0:
            break
    # steps 6-8; a bracket still wider than epsilon did not converge: keep the newest
    # iterate (the paper's B)
    for j in range(m):
        sigma = w[_W_SIGMA, j]
        phi2 = w[_W_PHI2, j]
        vsum = w[_W_VSUM, j]
        info = vsum > 0.0
        failed = info & (abs(w[_W_BIG_B, j] - w[_W_BIG_A, j]) > epsilon)
        s2 = select(failed, w[_W_EX_B, j], w[_W_EX_A, j])
        new_phi2 = select(info, 1.0 / (1.0 / (phi2 + s2) + vsum), phi2 + sigma * sigma)
        w[_W_NEW_SIGMA, j] = select(info, math.sqrt(s2), sigma)
        w[_W_NEW_PHI2, j] = new_phi2
        w[_W_STEP, j] = new_phi2 * w[_W_DSUM, j]
        w[_W_FAILED, j] = select(failed, 2.0, 0.0)


@inline_kernel
def _periods(white, black, score, period, starts, rec, failed, tau, epsilon, max_iterations,
             touched, buf, w, pred):
    k3 = 3.0 / (math.pi * math.pi)
    inv_tau2 = 1.0 / (tau * tau)
    exp_mtau = math.exp(-tau)
    block = buf.shape[1]
    n_periods = starts.shape[0] - 1
    for k in range(n_periods):
        lo = starts[k]
        hi = starts[k + 1]
        p = float(period[lo])
        fk = float(k)
        # every game, in blocks: gather (listing the players, with their onset values
        # at their first game), the terms of the block, the players' sums
        nt = 0
        for s0 in range(lo, hi, block):
            m = min(block, hi - s0)
            for j in range(m):
                if s0 + j + PREFETCH < hi:
                    prefetch_row(rec, white[s0 + j + PREFETCH])
                    prefetch_row(rec, black[s0 + j + PREFETCH])
                a = white[s0 + j]
                b = black[s0 + j]
                nt = _touch(rec, a, fk, p, touched, nt)
                nt = _touch(rec, b, fk, p, touched, nt)
                buf[0, j] = rec[a, _MU] - rec[b, _MU]
                buf[1, j] = rec[a, _PHI2]
                buf[2, j] = rec[b, _PHI2]
            game_terms(m, s0, score, buf, pred, 1.0, 1.0, k3)
            add_game_terms(m, s0, white, black, rec, buf)
        # steps 3-8 for everyone who played, in blocks: gather, solve, scatter
        for t in range(min(block, nt)):
            prefetch_row(rec, touched[t])
        for t0 in range(0, nt, block):
            m = min(block, nt - t0)
            for j in range(m):
                x = touched[t0 + j]
                w[_W_SIGMA, j] = rec[x, _VOL]
                w[_W_PHI2, j] = rec[x, _PHI2]
                w[_W_VSUM, j] = rec[x, _VSUM]
                w[_W_DSUM, j] = rec[x, _DSUM]
            # the next block's records load while this one is solved
            for t in range(t0 + m, min(t0 + m + block, nt)):
                prefetch_row(rec, touched[t])
            _solve_block(m, w, tau, inv_tau2, exp_mtau, epsilon, max_iterations)
            for j in range(m):
                x = touched[t0 + j]
                rec[x, _VOL] = w[_W_NEW_SIGMA, j]
                rec[x, _PHI2] = w[_W_NEW_PHI2, j]
                rec[x, _MU] += w[_W_STEP, j]
                rec[x, _LAST] = p
                failed[x] = np.int8(w[_W_FAILED, j])


@kernel
def _glicko2_kernel(white, black, score, period, starts, rec, failed, tau, epsilon,
                    max_iterations, touched, buf, pred):
    """Glicko-2 over all rating periods, on the Glicko-2 scale.

    ``starts`` holds the first game index of every period plus ``n``; ``period[starts[k]]``
    is the absolute number of period ``k``. ``rec`` (n_players x 8 float64) holds per
    player the index of the last period he played in (-1 before), ``mu`` and ``phi^2``
    as of the onset of the period, the sums ``1/v`` and ``sum g (s - E)``, his
    volatility and his last period (NaN: none); column 2 counts his games. ``failed[x]``
    is set to 2 when player x's volatility solve did not converge and to 0 when it
    did. ``touched`` (n_players + 1) is scratch; ``buf`` is not used (kept for
    callers; the kernel has its own scratch). Each period costs O(games in it). The
    games are processed as in fastrate.ratings.glicko._glicko_kernel; the period-end
    updates in blocks of players (gather, :func:`_solve_block`, scatter).
    """
    _periods(white, black, score, period, starts, rec, failed, tau, epsilon, max_iterations,
             touched, np.empty((8, BLOCK)), np.empty((_W_ROWS, BLOCK)), pred)


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
        f"period: {names}{more}; the newest iterate was kept (see Ratings.unconverged); raise "
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
    scale = float(config.scale)
    rec = records(n)
    rec[:, _STAMP] = -1.0
    rec[:, _MU] = (state.rating - 1500.0) / scale
    rec[:, _PHI2] = (state.rd / scale) ** 2
    rec[:, _VOL] = state.volatility
    # without periods there is no time scale: no growth, and last_period is left alone
    rec[:, _LAST] = last_as_float(games, state)
    pred = np.empty(games.n_games, dtype=np.float64)
    _glicko2_kernel(games.white, games.black, games.score, period, starts, rec,
                    failed, float(config.tau), float(config.epsilon),
                    int(config.max_iterations), np.empty(n + 1, dtype=np.int64),
                    np.empty((BLOCK, 8)), pred)
    played = rec[:, _STAMP] >= 0.0
    add_games_played(rec, state.games_played)
    if games.period is not None:
        state.last_period[played] = rec[played, _LAST].astype(np.int64)
    state.rating[played] = 1500.0 + scale * rec[played, _MU]
    state.rd[played] = scale * np.sqrt(rec[played, _PHI2])
    state.volatility[played] = rec[played, _VOL]
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

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, RD, VOLATILITY, GAMES_PLAYED, LAST_PERIOD)
