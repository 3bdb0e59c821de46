"""Pieces shared by every rating system: the logistic expected score, period grouping.

The expected score of the Elo family (SPEC §1.1) is
``E_A = 1 / (1 + 10^((R_B - R_A) / s))``; kernels compute it as
``1 / (1 + exp(-d * ln(10) / s))`` with the factor ``ln(10)/s`` hoisted out of the loop.
"""

from __future__ import annotations

import math

import numpy as np

from fastrate._numba import inline_kernel

LN10 = math.log(10.0)


@inline_kernel
def logistic(d: float, factor: float) -> float:
    """``1 / (1 + exp(-d * factor))``: the expected score for a rating lead ``d``
    when ``factor = ln(10) / scale``."""
    return 1.0 / (1.0 + math.exp(-d * factor))


def expected_score(rating_a, rating_b, scale: float = 400.0, advantage: float = 0.0):
    """Elo expected score of A against B, NumPy-vectorised: ``1/(1+10^((B-A-h)/s))``.

    >>> round(float(expected_score(1700, 1500)), 4)
    0.7597
    """
    d = np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)
    return 1.0 / (1.0 + np.power(10.0, -(d + advantage) / scale))


def period_starts(period: np.ndarray) -> np.ndarray:
    """Start index of every run of equal period numbers, plus ``len(period)`` at the end.

    ``period`` must be nondecreasing (as :class:`fastrate.Games` guarantees).
    """
    n = period.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    cut = np.flatnonzero(period[1:] != period[:-1]) + 1
    return np.concatenate(([0], cut, [n])).astype(np.int64)


# ----------------------------------------------------------------------------------
# the Glicko family's period machinery (Glicko and Glicko-2 share it)
#
# Per-player working records: one 64-byte row (a cache line) per player holds all a
# game and the period updates need, so a game touches two cache lines of player data.
# Columns shared by both systems (the others are each system's own):
REC_STAMP = 0  #: index of the last period the player was listed in (-1 before)
REC_LEVEL = 1  #: rating (Glicko) or mu (Glicko-2)
REC_G = 2  #: the factor of the player's deviation in his opponents' expected score
REC_VAR = 3  #: RD^2 (Glicko) or phi^2 (Glicko-2) at the onset of the period
REC_INFO = 4  #: sum of g^2 E (1 - E) over the period (1/d^2 or 1/v, before the q^2 factor)
REC_DELTA = 5  #: sum of g (s - E) over the period
REC_LAST = 7  #: last rated period (NaN: never)
#: games per block of the kernels' gather / compute / scatter loop
BLOCK = 64
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
    from fastrate.data import PlayerState
    from fastrate.errors import InputError

    n = len(state.players)
    if games.period is None:
        return np.full(n, math.nan)
    lo, hi = int(games.period[0]), int(games.period[-1])
    if max(-lo, hi) >= MAX_PERIOD:
        raise InputError(f"column 'period' must hold period numbers below 2**53 in magnitude; "
                         f"found {lo if -lo >= MAX_PERIOD else hi}")
    last = state.last_period
    never = last == PlayerState.NO_PERIOD
    big = ~never & (np.abs(last) >= MAX_PERIOD)
    if big.any():
        i = int(np.argmax(big))
        raise InputError(f"initial 'last_period' must be below 2**53 in magnitude; found "
                         f"{int(last[i])} for player {state.players[i]!r}")
    return np.where(never, math.nan, last.astype(np.float64))


def games_played_in(games, n: int) -> np.ndarray:
    """Games played by each of ``n`` players in ``games``."""
    return (np.bincount(games.white, minlength=n) + np.bincount(games.black, minlength=n)
            ).astype(np.int64)


@inline_kernel
def list_period_players(white, black, lo, hi, rec, k, touched):
    """List every player of games ``lo..hi`` (period ``k``) once in ``touched``; return
    how many. Branch-free: the stamp says whether a player is already listed, and the
    write one past the last listed player is why ``touched`` has n_players + 1 slots."""
    nt = 0
    for i in range(lo, hi):
        a = white[i]
        touched[nt] = a
        nt += rec[a, REC_STAMP] != k
        rec[a, REC_STAMP] = k
        b = black[i]
        touched[nt] = b
        nt += rec[b, REC_STAMP] != k
        rec[b, REC_STAMP] = k
    return nt


@inline_kernel
def accumulate_period_games(white, black, score, lo, hi, rec, buf, pred, pred_factor, k3):
    """Add every game of ``lo..hi`` to both players' period sums, from their onset values.

    Blocked: gather both players' values (independent random reads the CPU overlaps),
    compute the logistic terms from the block buffer, then add them to the players' sums
    in game order -- the same arithmetic, in the same order, as a plain loop. Writes the
    prediction ``1/(1 + exp(-pred_factor * diff / sqrt(1 + k3 (var_a + var_b))))``:
    Glickman's g of the combined deviation.
    """
    block = buf.shape[0]
    for s0 in range(lo, hi, block):
        s1 = min(s0 + block, hi)
        for i in range(s0, s1):
            a = white[i]
            b = black[i]
            j = i - s0
            buf[j, 0] = rec[a, REC_LEVEL] - rec[b, REC_LEVEL]
            buf[j, 1] = rec[a, REC_G]
            buf[j, 2] = rec[b, REC_G]
            buf[j, 3] = rec[a, REC_VAR] + rec[b, REC_VAR]
        for j in range(s1 - s0):
            diff = buf[j, 0]
            ga = buf[j, 1]
            gb = buf[j, 2]
            s = score[s0 + j]
            e_ab = 1.0 / (1.0 + math.exp(-gb * diff))
            e_ba = 1.0 / (1.0 + math.exp(ga * diff))
            buf[j, 4] = gb * gb * e_ab * (1.0 - e_ab)
            buf[j, 5] = gb * (s - e_ab)
            buf[j, 6] = ga * ga * e_ba * (1.0 - e_ba)
            buf[j, 7] = ga * ((1.0 - s) - e_ba)
            pred[s0 + j] = 1.0 / (1.0 + math.exp(
                -pred_factor * diff / math.sqrt(1.0 + k3 * buf[j, 3])))
        for i in range(s0, s1):
            a = white[i]
            b = black[i]
            j = i - s0
            rec[a, REC_INFO] += buf[j, 4]
            rec[a, REC_DELTA] += buf[j, 5]
            rec[b, REC_INFO] += buf[j, 6]
            rec[b, REC_DELTA] += buf[j, 7]
