"""Pieces shared by every rating system: the logistic expected score, period grouping,
and the Glicko family's period machinery.

The expected score of the Elo family (SPEC §1.1) is
``E_A = 1 / (1 + 10^((R_B - R_A) / s))``; kernels compute it as
``1 / (1 + exp(-d * ln(10) / s))`` with the factor ``ln(10)/s`` hoisted out of the loop.

The Glicko kernels use :func:`exp` and :func:`log` of this module instead of the C
library's: plain IEEE arithmetic (fused multiply-adds, bit manipulation, no tables and no
branches), correct to one unit in the last place, so that LLVM vectorises the loops over
a block of games or players (``fastmath`` stays off: every lane computes exactly what
scalar code computes, on every machine). The C library's own results differ between
machines in the last bit too (glibc picks an FMA or a non-FMA exp by CPU).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from fastrate._numba import inline_kernel, kernel

LN10 = math.log(10.0)


@inline_kernel
def logistic(d: float, factor: float) -> float:
    """``1 / (1 + exp(-d * factor))``: the expected score for a rating lead ``d``
    when ``factor = ln(10) / scale``."""
    return 1.0 / (1.0 + math.exp(-d * factor))


# ----------------------------------------------------------------------------------
# exp without a library call, so loops over many arguments vectorise


@intrinsic
def _select(typingctx, cond, a, b):  # pragma: no cover - compiled
    """``a if cond else b`` as one LLVM ``select`` (no branch, vectorisable)."""
    def codegen(context, builder, signature, args):
        return builder.select(args[0], args[1], args[2])
    return types.float64(types.boolean, types.float64, types.float64), codegen


@kernel
def select(cond, a, b):
    """``a if cond else b`` for floats, without a branch: the kernels' gather loops use
    it so that a player's first game in a period does not cost a mispredicted branch
    (which would also throw away the memory reads already under way)."""
    return _select(cond, float(a), float(b))


@intrinsic
def prefetch_row(typingctx, arr, row):  # pragma: no cover - compiled
    """Ask the CPU to start loading row ``row`` of the 2-D array ``arr`` into the cache
    (for writing), without waiting for it: a hint, no effect on results."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer2(context, builder, data=ary.data,
                                        shape=cgutils.unpack_tuple(builder, ary.shape),
                                        strides=cgutils.unpack_tuple(builder, ary.strides),
                                        layout=aryty.layout,
                                        inds=[args[1], ir.Constant(ir.IntType(64), 0)],
                                        wraparound=False)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # write, keep in all cache levels, data cache
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(arr, types.intp), codegen


@intrinsic
def _bits_as_float(typingctx, bits):  # pragma: no cover - compiled
    """The float64 whose IEEE bit pattern is the int64 ``bits``."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _fma_(typingctx, a, b, c):  # pragma: no cover - compiled
    def codegen(context, builder, signature, args):
        return builder.fma(args[0], args[1], args[2])
    return types.float64(types.float64, types.float64, types.float64), codegen


@kernel
def fma(a, b, c):
    """``a * b + c`` with one rounding (IEEE fused multiply-add: the same result on every
    machine, in scalar and vector code; a libm call where the CPU has no FMA)."""
    return _fma_(float(a), float(b), float(c))


_LOG2E = 1.4426950408889634
# ln 2 split so that k * _LN2_HI is exact for |k| < 2^20 (fdlibm's constants)
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
# Taylor coefficients 1/n!, n = 2 .. 13: the remainder on |r| <= ln(2)/2 is 4e-18
_E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13 = (
    1.0 / math.factorial(n) for n in range(2, 14))


@kernel
def exp(x: float) -> float:
    """``e^x`` to within one unit in the last place (90% of results equal libm's).

    Plain IEEE arithmetic (no call, no table), so LLVM vectorises loops calling it --
    the same result in every SIMD lane and in scalar code, with or without vector
    instructions. ``x = k ln 2 + r`` (Cody-Waite, ``|r| <= ln(2)/2``), ``e^r`` by its
    Taylor polynomial of degree 13 (Horner, fused multiply-adds), times ``2^k`` in two halves so
    that results in the subnormal range and overflow to ``inf`` come out right.
    ``exp(nan)`` is nan, ``exp(inf)`` inf, ``exp(-inf)`` 0.
    """
    xc = x
    if xc > 709.9:
        xc = 709.9  # e^709.9 overflows: inf
    if xc < -746.0:
        xc = -746.0  # below half the smallest subnormal: 0
    k = math.floor(xc * _LOG2E + 0.5)
    r = fma(-k, _LN2_LO, fma(-k, _LN2_HI, xc))
    p = fma(_E13, r, _E12)
    p = fma(p, r, _E11)
    p = fma(p, r, _E10)
    p = fma(p, r, _E9)
    p = fma(p, r, _E8)
    p = fma(p, r, _E7)
    p = fma(p, r, _E6)
    p = fma(p, r, _E5)
    p = fma(p, r, _E4)
    p = fma(p, r, _E3)
    p = fma(p, r, _E2)
    p = fma(p, r, 1.0)
    p = fma(p, r, 1.0)
    ki = np.int64(k)
    k1 = ki >> 1
    y = p * _bits_as_float((k1 + 1023) << 52) * _bits_as_float((ki - k1 + 1023) << 52)
    if x != x:
        y = x
    return y


@intrinsic
def _float_bits(typingctx, x):  # pragma: no cover - compiled
    """The IEEE bit pattern of the float64 ``x`` as an int64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


# fdlibm's log: the coefficients of R(z) ~ log((1+s)/(1-s)) - 2s, |s| <= 0.1716
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_TWO54 = 18014398509481984.0
_MIN_NORMAL = 2.2250738585072014e-308


@kernel
def log(x: float) -> float:
    """Natural logarithm to within about one unit in the last place, without a library
    call or a branch (so loops calling it vectorise; the same result in every lane).

    fdlibm's method: ``x = 2^k m`` with ``sqrt(2)/2 <= m < sqrt(2)``, ``f = m - 1``,
    ``log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2))`` with ``s = f/(2+f)``. ``log(0)`` is
    ``-inf``, ``log`` of a negative number or nan is nan, ``log(inf)`` inf.
    """
    tiny = x < _MIN_NORMAL
    xs = select(tiny, x * _TWO54, x)  # subnormals: scale into the normal range
    ix = _float_bits(xs)
    k = (ix >> 52) - select(tiny, 1077.0, 1023.0)
    mant = ix & 0x000FFFFFFFFFFFFF
    i = (mant + 0x00095F6400000000) & 0x0010000000000000
    m = _bits_as_float(mant | (i ^ 0x3FF0000000000000))
    k = k + (i >> 52)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    y = k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)
    y = select(x == math.inf, x, y)
    y = select(x == 0.0, -math.inf, y)
    y = select(x < 0.0, math.nan, y)
    return select(x != x, x, y)


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
