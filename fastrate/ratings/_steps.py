"""Update steps that simulators drive one at a time: one game of Elo with a constant K
(:func:`elo_game`) and Glicko-2's volatility solve for a block of players
(:func:`solve_block`, steps 3-8).

``fastrate.ratings.glicko2.glicko2_period_step`` rates one rating period with
:func:`solve_block` (and the ladder simulator, ``fastrate.stats.pairing``, drives that
same step period by period); ``fastrate.ratings.elo``'s kernel takes an
:class:`EloStep` and writes the game step out (through the helper its loop ran 3-9%
slower); the ladder rates each Elo game as it is played.
Each step takes its scalar parameters as one NamedTuple (:class:`EloStep`,
:class:`Glicko2Step`), which keeps the kernels' disk cache and one compiled
specialisation per kernel.

Sources: Elo (1978); Glickman, "Example of the Glicko-2 system" (2013+ versions:
the Illinois algorithm of step 5).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from fastrate._numba import inline_kernel, kernel
from fastrate._vecmath import exp, log, logistic, select
from fastrate.ratings._common import (
    rating_lead,
)

__all__ = ["EloStep", "elo_game", "Glicko2Step", "glicko2_step", "solve_block",
           "volatility_f", "W_ROWS"]


# ----------------------------------------------------------------------------------
# Elo: one game


class EloStep(NamedTuple):
    """The scalars of an Elo game with a constant K."""

    k: float  #: K
    factor: float  #: ``ln(10) / scale``
    cap: float  #: the rule of 400's cap (0: none)
    advantage: float  #: points added to the first player's lead unless neutral


@inline_kernel
def elo_game(rating_a, rating_b, s, w, advantaged, step):
    """One Elo game between players rated ``rating_a`` and ``rating_b``, with score ``s``
    and weight ``w`` (``advantaged``: the game is not neutral): returns ``E``, the first
    player's expected score, and ``K w (s - E)``, what he gains and his opponent loses.
    (Ratings in and out rather than the rating array: an array passed to an inlined
    function per game costs the Elo loop a fifth of its speed.)"""
    d = rating_lead(rating_a - rating_b, advantaged, step.advantage, step.cap)
    e = logistic(d, step.factor)
    return e, step.k * ((s - e) * w)


# ----------------------------------------------------------------------------------
# Glicko-2: one rating period


class Glicko2Step(NamedTuple):
    """The scalars of a Glicko-2 rating period (build it with :func:`glicko2_step`)."""

    tau: float  #: the constraint on the change in volatility
    epsilon: float  #: the volatility solve's tolerance (in ``ln sigma^2``)
    max_iterations: int  #: the most Illinois steps of a solve
    inv_tau2: float  #: ``1 / tau^2``
    exp_mtau: float  #: ``e^-tau``


def glicko2_step(tau: float, epsilon: float, max_iterations: int) -> Glicko2Step:
    """A :class:`Glicko2Step` with its derived constants, computed once per run (inside
    the period step, once per period, they cost Glicko-2 5% of its speed; Python's and
    the kernels' ``exp`` are the same C library function)."""
    tau = float(tau)
    return Glicko2Step(tau, float(epsilon), int(max_iterations), 1.0 / (tau * tau),
                       math.exp(-tau))


# rows of the volatility solver's work buffer (one column per player of a block)
(_W_SIGMA, _W_PHI2, _W_VSUM, _W_DSUM, _W_NEW_SIGMA, _W_NEW_PHI2, _W_STEP, _W_FAILED, _W_A,
 _W_D, _W_W0, _W_BIG_A, _W_BIG_B, _W_F_A, _W_F_B, _W_EX_A, _W_EX_B) = range(17)
#: rows of the work buffer ``w`` of :func:`solve_block` (rows 0-3 gathered by the caller:
#: sigma, phi^2, 1/v, sum g (s - E))
W_ROWS = 17


@kernel
def volatility_f(x, ex, a, d, w0, inv_tau2):
    """Glickman's ``f(x)`` given ``ex = e^x``, ``d = Delta^2 - phi^2 - v``, ``w0 = phi^2 + v``."""
    w = w0 + ex
    return ex * (d - ex) / (2.0 * w * w) - (x - a) * inv_tau2


@inline_kernel
def solve_block(m, w, tau, inv_tau2, exp_mtau, epsilon, max_iterations):
    """Steps 3-8 for the ``m`` players whose sigma, phi^2, ``1/v`` and ``sum g (s - E)``
    are in rows 0-3 of ``w``: rows 4-7 get sigma', phi'^2, the step of mu and 2.0 where
    the volatility did not converge (else 0.0).

    The volatility is the scalar algorithm (``bench/bench_glicko2.py``'s reference)
    run for all players at once: every iteration of the Illinois algorithm is one
    vectorised pass over the block in which a player whose bracket is already narrower
    than ``epsilon`` keeps his values, so each player gets exactly the iterates of the
    scalar algorithm; the passes stop when no player is left. Players with ``1/v = 0``
    (no information on the volatility) take the limit of steps 6-8 as ``v -> inf``,
    keeping sigma.
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
        f_b = volatility_f(a - tau, ex_b, a, d, w0, inv_tau2)
        w[_W_A, j] = a
        w[_W_D, j] = d
        w[_W_W0, j] = w0
        # no information: an empty bracket, nothing to iterate
        w[_W_BIG_A, j] = select(info, a, 0.0)
        w[_W_BIG_B, j] = select(info, select(pos, log_d, a - tau), 0.0)
        w[_W_EX_A, j] = s2
        w[_W_EX_B, j] = select(pos, d, ex_b)
        w[_W_F_A, j] = volatility_f(a, s2, a, d, w0, inv_tau2)
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
                f_b = volatility_f(a - k * tau, ex_b, a, w[_W_D, j], w[_W_W0, j], inv_tau2)
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
            f_c = volatility_f(big_c, ex_c, w[_W_A, j], w[_W_D, j], w[_W_W0, j], inv_tau2)
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
