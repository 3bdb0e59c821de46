"""Vectorisable ``exp`` and ``log`` for kernels, and the small compiled helpers they use.

:func:`exp` and :func:`log` are plain IEEE arithmetic (fused multiply-adds, bit
manipulation, no tables and no branches), correct to one unit in the last place, so that
LLVM vectorises the loops that call them (``fastmath`` stays off: every lane computes
exactly what scalar code computes, on every machine). The C library's own results differ
between machines in the last bit (glibc picks an FMA or a non-FMA exp by CPU).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from fastrate._numba import inline_kernel, kernel

__all__ = ["LN10", "logistic", "select", "prefetch_row", "fma", "exp", "log"]

LN10 = math.log(10.0)


@inline_kernel
def logistic(d: float, factor: float) -> float:
    """``1 / (1 + exp(-d * factor))``: the expected score for a rating lead ``d``
    when ``factor = ln(10) / scale``."""
    return 1.0 / (1.0 + math.exp(-d * factor))


# ----------------------------------------------------------------------------------
# exp without a library call, so loops over many arguments vectorise


def _instruction(name: str, signature: Any, emit: Callable) -> Any:
    """An intrinsic of the given Numba ``signature`` whose code is the one LLVM
    instruction that ``emit(builder, *args)`` builds."""
    def typer(typingctx, *args):  # pragma: no cover - compiled
        def codegen(context, builder, sig, llargs):
            return emit(builder, *llargs)
        return signature, codegen
    typer.__name__ = typer.__qualname__ = name
    # Numba folds a call's arguments by the typer's signature: name them one by one
    params = [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
              for p in ["typingctx", *(f"a{i}" for i in range(len(signature.args)))]]
    typer.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return intrinsic(typer)


_F8 = types.float64
#: ``a if cond else b`` as one LLVM ``select`` (no branch, vectorisable)
_select = _instruction("_select", _F8(types.boolean, _F8, _F8),
                       lambda builder, cond, a, b: builder.select(cond, a, b))
#: the float64 whose IEEE bit pattern is the int64 ``bits``
_bits_as_float = _instruction("_bits_as_float", _F8(types.int64),
                              lambda builder, bits: builder.bitcast(bits, ir.DoubleType()))
#: the IEEE bit pattern of the float64 ``x`` as an int64
_float_bits = _instruction("_float_bits", types.int64(_F8),
                           lambda builder, x: builder.bitcast(x, ir.IntType(64)))
#: ``a * b + c`` with one rounding
_fma_ = _instruction("_fma_", _F8(_F8, _F8, _F8),
                     lambda builder, a, b, c: builder.fma(a, b, c))


@kernel
def select(cond, a, b):
    """``a if cond else b`` for floats, without a branch: the kernels' gather loops use
    it so that a player's first game in a period does not cost a mispredicted branch
    (which would also throw away the memory reads already under way)."""
    return _select(cond, float(a), float(b))


@intrinsic
def prefetch_row(typingctx, arr, row):  # pragma: no cover - compiled
    """Ask the CPU to start loading row ``row`` of the 2-D array ``arr`` (element ``row``
    of a 1-D array) into the cache (for writing), without waiting for it: a hint, no
    effect on results."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer2(context, builder, data=ary.data,
                                        shape=cgutils.unpack_tuple(builder, ary.shape),
                                        strides=cgutils.unpack_tuple(builder, ary.strides),
                                        layout=aryty.layout,
                                        inds=[args[1]] + [ir.Constant(ir.IntType(64), 0)]
                                        * (aryty.ndim - 1),
                                        wraparound=False)
        i32 = ir.IntType(32)
        # (one declaration per module: arrays of different dtypes share it as i8*)
        ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # write, keep in all cache levels, data cache
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(arr, types.intp), codegen


@kernel
def fma(a, b, c):
    """``a * b + c`` with one rounding (IEEE fused multiply-add: the same result on every
    machine, in scalar and vector code; a libm call where the CPU has no FMA)."""
    return _fma_(float(a), float(b), float(c))


if numba.config.DISABLE_JIT:  # pragma: no cover - the kernels run as Python (coverage)
    # Intrinsics have no Python body: the same operations on Python floats and ints
    # (imported here, for this case only: ``fractions`` pulls in ``decimal``).
    import struct
    from fractions import Fraction

    def _select(cond, a, b):  # noqa: F811
        return a if cond else b

    def prefetch_row(arr, row):  # noqa: F811 - a hint only
        return None

    def _bits_as_float(bits):  # noqa: F811
        return struct.unpack("<d", struct.pack("<q", int(bits)))[0]

    def _float_bits(x):  # noqa: F811
        return struct.unpack("<q", struct.pack("<d", float(x)))[0]

    def _fma_(a, b, c):  # noqa: F811 - exact product and sum, one rounding
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
            return a * b + c
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        try:
            return float(exact)
        except OverflowError:
            return math.inf if exact > 0 else -math.inf


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
