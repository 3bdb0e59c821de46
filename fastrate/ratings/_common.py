"""Pieces shared by the rating systems: the logistic expected score and the Glicko
family's period machinery.

The expected score of the Elo family (SPEC §1.1) is
``E_A = 1 / (1 + 10^((R_B - R_A) / s))``; kernels compute it as
``1 / (1 + exp(-d * ln(10) / s))`` with the factor ``ln(10)/s`` hoisted out of the loop
(:func:`fastrate._vecmath.logistic`).
"""

from __future__ import annotations

import math

import numpy as np

from fastrate._numba import inline_kernel
from fastrate._vecmath import LN10, exp, log, logistic, prefetch_row, select
from fastrate.data.results import NO_PERIOD
from fastrate.errors import InputError

__all__ = ["LN10", "exp", "log", "logistic", "prefetch_row", "select", "expected_score"]


def expected_score(rating_a, rating_b, scale: float = 400.0, advantage: float = 0.0):
    """Elo expected score of A against B, NumPy-vectorised: ``1/(1+10^((B-A-h)/s))``.

    >>> round(float(expected_score(1700, 1500)), 4)
    0.7597
    """
    d = np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)
    return 1.0 / (1.0 + np.power(10.0, -(d + advantage) / scale))


# ----------------------------------------------------------------------------------
# the Glicko family's period machinery (Glicko and Glicko-2 share it)
#
# Per-player working records: one 64-byte row (a cache line) per player holds all a
# game and the period updates need, so a game touches two cache lines of player data.
# Columns shared by both systems (the others are each system's own):
REC_STAMP = 0  #: index of the last period the player was listed in (-1 before)
REC_LEVEL = 1  #: rating (Glicko) or mu (Glicko-2)
REC_GAMES = 2  #: games played in this run (counted as the kernel lists the player)
REC_VAR = 3  #: RD^2 (Glicko) or phi^2 (Glicko-2) at the onset of the period
REC_INFO = 4  #: sum of g^2 E (1 - E) over the period (1/d^2 or 1/v, before the q^2 factor)
REC_DELTA = 5  #: sum of g (s - E) over the period
REC_LAST = 7  #: last rated period (NaN: never)
#: games per block of the kernels' gather / compute / scatter loop
BLOCK = 64
#: how many games (or players) ahead the gather loops prefetch player records
PREFETCH = 16
#: period numbers are kept as float64 inside the kernels, exact below this magnitude
MAX_PERIOD = 2**53


def records(n: int, width: int = 8) -> np.ndarray:
    """A zeroed ``(n, width)`` float64 array whose rows start on 64-byte boundaries."""
    buf = np.zeros(n * width + 8, dtype=np.float64)
    skip = (-buf.ctypes.data % 64) // 8
    return buf[skip:skip + n * width].reshape(n, width)


def last_as_float(games, state) -> np.ndarray:
    """Every player's last period as float64 for a kernel (NaN: never played, and for
    everyone when the games have no periods), after checking period numbers fit."""
    n = len(state.players)
    if games.period is None:
        return np.full(n, math.nan)
    lo, hi = int(games.period[0]), int(games.period[-1])
    if max(-lo, hi) >= MAX_PERIOD:
        raise InputError(f"column 'period' must hold period numbers below 2**53 in magnitude; "
                         f"found {lo if -lo >= MAX_PERIOD else hi}")
    last = state.last_period
    never = last == NO_PERIOD
    big = ~never & (np.abs(last) >= MAX_PERIOD)
    if big.any():
        i = int(np.argmax(big))
        raise InputError(f"initial 'last_period' must be below 2**53 in magnitude; found "
                         f"{int(last[i])} for player {state.players[i]!r}")
    return np.where(never, math.nan, last.astype(np.float64))


def add_games_played(rec: np.ndarray, counts: np.ndarray) -> None:
    """Add the games the kernel counted in column ``REC_GAMES`` to ``counts`` (int64)."""
    counts += rec[:, REC_GAMES].astype(np.int64)


@inline_kernel
def game_terms(m, s0, score, buf, pred, g_num, pred_factor, k3):
    """The logistic terms of games ``s0 .. s0+m-1`` from the values gathered into ``buf``
    (rows: 0 the level difference, 1 and 2 the first and second player's variance):
    with ``g = g_num / sqrt(1 + k3 var)``, rows 4-7 get ``g_b^2 E_ab (1 - E_ab)``,
    ``g_b (s - E_ab)`` and the same for the second player; ``pred`` gets
    ``1/(1 + exp(-pred_factor * diff / sqrt(1 + k3 (var_a + var_b))))``: Glickman's
    prediction with g of the combined deviation. Plain arithmetic with :func:`exp` (and
    the square roots here rather than once per player and period, in scalar code):
    LLVM vectorises the loop.
    """
    # slices, indexed from 0: an index s0 + j might be negative as far as the compiler
    # knows, and the wraparound check would turn the loads and stores into gathers
    scores = score[s0:s0 + m]
    preds = pred[s0:s0 + m]
    for j in range(m):
        diff = buf[0, j]
        va = buf[1, j]
        vb = buf[2, j]
        ga = g_num / math.sqrt(1.0 + k3 * va)
        gb = g_num / math.sqrt(1.0 + k3 * vb)
        s = scores[j]
        e_ab = 1.0 / (1.0 + exp(-gb * diff))
        e_ba = 1.0 / (1.0 + exp(ga * diff))
        buf[4, j] = gb * gb * e_ab * (1.0 - e_ab)
        buf[5, j] = gb * (s - e_ab)
        buf[6, j] = ga * ga * e_ba * (1.0 - e_ba)
        buf[7, j] = ga * ((1.0 - s) - e_ba)
        preds[j] = 1.0 / (1.0 + exp(-pred_factor * diff / math.sqrt(1.0 + k3 * (va + vb))))


@inline_kernel
def add_game_terms(m, s0, white, black, rec, buf):
    """Add the terms :func:`game_terms` left in ``buf`` to both players' period sums, in
    game order (the same additions in the same order as a plain game-by-game loop)."""
    for j in range(m):
        a = white[s0 + j]
        b = black[s0 + j]
        rec[a, REC_INFO] += buf[4, j]
        rec[a, REC_DELTA] += buf[5, j]
        rec[b, REC_INFO] += buf[6, j]
        rec[b, REC_DELTA] += buf[7, j]
