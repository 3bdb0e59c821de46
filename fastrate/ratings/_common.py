"""Pieces shared by the rating systems: the logistic expected score, the Elo family's
rating lead (rule of 400) and K table, and the Glicko family's period machinery (the
player records, the pass over a period's games, the blocks of the period-end update).

The expected score of the Elo family (SPEC §1.1) is
``E_A = 1 / (1 + 10^((R_B - R_A) / s))``; kernels compute it as
``1 / (1 + exp(-d * ln(10) / s))`` with the factor ``ln(10)/s`` hoisted out of the loop
(:func:`fastrate._vecmath.logistic`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel
from fastrate._vecmath import LN10, exp, log, logistic, prefetch_row, select
from fastrate.data.results import NO_PERIOD
from fastrate.data.state import exact_values
from fastrate.errors import ConfigError, InputError

__all__ = ["LN10", "exp", "log", "logistic", "prefetch_row", "select", "expected_score",
           "open_records", "exact_records",
           "check_batch_start", "games_column", "cap_lead", "rating_lead", "table_value", "best_of_probability",
           "game_probability", "records", "gather_block"]


def expected_score(rating_a, rating_b, scale: float = 400.0, advantage: float = 0.0):
    """Elo expected score of A against B, NumPy-vectorised: ``1/(1+10^((B-A-h)/s))``.

    >>> round(float(expected_score(1700, 1500)), 4)
    0.7597
    """
    d = np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)
    with np.errstate(over="ignore"):  # a lead beyond ~123,000 points: exactly 0 or 1
        return 1.0 / (1.0 + np.power(10.0, -(d + advantage) / scale))


def check_batch_start(system: str, games: Any, initial: Any) -> None:
    """What a batch fit (``bradley_terry``, ``whr``) refuses before it starts: saved
    ratings to continue from (a batch fit rates all games at once), and no games."""
    if initial is not None:
        raise ConfigError(f"{system} is a batch fit of all games at once and cannot "
                          "continue from saved ratings (initial=); rate the earlier and the "
                          "new games together")
    if games.n_games == 0:
        raise InputError(f"{system} needs at least one game")


def games_column(games: Any, name: str, what: str) -> np.ndarray:
    """The games' lever column ``name`` (``share``, ``context``, ...) that the option
    ``what`` reads, refused with the way to give it when the games lack it."""
    column = getattr(games, name)
    if column is None:
        raise InputError(f"{what} needs the games' {name!r} column (read_games(..., "
                         f"{name}='COLUMN') or --{name.replace('_', '-')} COLUMN)")
    return column


# ----------------------------------------------------------------------------------
# the Elo family: the lead used in the expected score, K (or any value) from a table


@inline_kernel
def cap_lead(d, cap):
    """The rule of 400 (bridge thesis §4.1): the lead ``d`` clipped to ``[-cap, cap]``
    when ``cap > 0``, unchanged otherwise."""
    if cap > 0.0:
        if d > cap:
            return cap
        if d < -cap:
            return -cap
    return d


@inline_kernel
def rating_lead(d, advantaged, advantage, cap):
    """The first player's lead used in E: ``advantage`` added unless the game is
    neutral (``advantaged`` false), then the rule of 400 (:func:`cap_lead`)."""
    if advantaged:
        d += advantage
    return cap_lead(d, cap)


@inline_kernel
def best_of_probability(q, n):
    """The probability of winning a best-of-``n`` match (``n`` odd: first to
    ``m = (n + 1) / 2`` wins) when each game is won with probability ``q``:
    ``sum_{k<m} C(m-1+k, k) q^m (1-q)^k`` (the negative binomial; best of 3:
    ``q^2 (3 - 2q)``, best of 5: ``q^3 (10 - 15q + 6q^2)``)."""
    m = (n + 1) // 2
    term = q ** m
    total = term
    for k in range(1, m):
        term *= (m - 1 + k) / k * (1.0 - q)
        total += term
    return total


@inline_kernel
def game_probability(p, n):
    """The inverse of :func:`best_of_probability`: the per-game probability ``q`` that
    wins a best-of-``n`` match with probability ``p`` (bisection to the last bit: the
    function increases from 0 to 1)."""
    if n <= 1:
        return p
    lo, hi = 0.0, 1.0
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        if best_of_probability(mid, n) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@inline_kernel
def table_value(x, bounds, values):
    """The value of the first ``(upper bound, value)`` row with ``x < bound`` (the last
    row when there is none): a K factor by games played or by rating (FIDE Handbook
    B.02 §8.56), a bridge experience bonus. ``bounds`` increase."""
    j = 0
    while j < bounds.shape[0] - 1 and x >= bounds[j]:
        j += 1
    return values[j]


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
REC_VOL = 6  #: volatility (Glicko-2; unused by Glicko)
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


def check_positive_state(state, column: str, values: np.ndarray) -> None:
    """Refuse an initial state column (``rd``, ``volatility``) with a value that is not a
    finite number > 0, naming the player."""
    bad = ~(values > 0.0) | ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"initial '{column}' must be a finite number > 0; found "
                         f"{float(values[i])!r} for player {state.players[i]!r}")


def open_records(games, state, level: np.ndarray, var: np.ndarray,
                 initial: Any = None) -> np.ndarray:
    """The Glicko family's player records for a run: no period listed yet, the onset
    ``level`` and ``var`` (in the system's scale), the last period (:func:`last_as_float`;
    without periods there is no time scale: no growth). Column ``REC_VOL`` is left 0.
    When ``initial`` is a previous run whose players come first, its exact ``level`` and
    ``var`` (:attr:`~fastrate.data.Ratings.exact`, see :func:`exact_records`) replace the
    ones computed back from its rounded table."""
    rec = records(len(state.players))
    rec[:, REC_STAMP] = -1.0
    rec[:, REC_LEVEL] = level
    rec[:, REC_VAR] = var
    rec[:, REC_LAST] = last_as_float(games, state)
    exact = exact_values(initial, state.players)
    for name, col in (("level", REC_LEVEL), ("var", REC_VAR)):
        if name in exact:
            rec[:exact[name].shape[0], col] = exact[name]
    return rec


def exact_records(rec: np.ndarray) -> dict[str, np.ndarray]:
    """The values a continued run needs to repeat the full run to the bit
    (:attr:`~fastrate.data.Ratings.exact`): every player's level and variance in the
    system's own scale, which the rating table gives back only to rounding."""
    return {"level": rec[:, REC_LEVEL].copy(), "var": rec[:, REC_VAR].copy()}


def close_records(rec: np.ndarray, games, state) -> np.ndarray:
    """After the kernel: add the games it counted to ``state.games_played`` and, when the
    games have periods, set the last period of everyone who played. Returns who played."""
    played = rec[:, REC_STAMP] >= 0.0
    counts = state.games_played
    counts += rec[:, REC_GAMES].astype(np.int64)
    if games.period is not None:
        state.last_period[played] = rec[played, REC_LAST].astype(np.int64)
    return played


def reported_last(games, state) -> np.ndarray | None:
    """``last_period`` to report: the updated one with periods; without periods the
    initial one when it carried any (else ``None``)."""
    if games.period is not None or (state.last_period != NO_PERIOD).any():
        return state.last_period
    return None


@inline_kernel
def game_terms(m, s0, score, buf, pred, g_num, pred_factor, k3):
    """The logistic terms of games ``s0 .. s0+m-1`` from the values gathered into ``buf``
    (rows: 0 the level difference, 1 and 2 the first and second player's variance):
    with ``g = g_num / sqrt(1 + k3 var)``, rows 4-7 get ``g_b^2 E_ab (1 - E_ab)``,
    ``g_b (s - E_ab)`` and the same for the second player; ``pred`` gets
    ``1/(1 + exp(-pred_factor * diff / sqrt(1 + k3 (var_a + var_b))))``: Glickman's
    prediction with g of the combined deviation (not when ``pred`` has length 0: final
    ratings only). Plain arithmetic with :func:`exp` (and the square roots here rather
    than once per player and period, in scalar code): LLVM vectorises the loop.
    """
    has_pred = pred.shape[0] > 0
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
        if has_pred:
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


@inline_kernel
def gather_block(rec, touched, t0, nt, out, cols):
    """The period-end update's block of players ``touched[t0 : t0 + BLOCK]`` (of ``nt``;
    ``t0`` a multiple of ``BLOCK``): copy record columns ``cols`` of each into rows
    ``0 .. len(cols)-1`` of ``out`` (one column per player) and prefetch the next block's
    records, which then load while this block is computed (the first block is prefetched
    at ``t0 = 0``). Returns the block's size."""
    if t0 == 0:
        for t in range(min(BLOCK, nt)):
            prefetch_row(rec, touched[t])
    m = min(BLOCK, nt - t0)
    for j in range(m):
        x = touched[t0 + j]
        for c in range(len(cols)):
            out[c, j] = rec[x, cols[c]]
    for t in range(t0 + m, min(t0 + m + BLOCK, nt)):
        prefetch_row(rec, touched[t])
    return m
