"""Special functions without SciPy (layer 0): Student's t distribution through the
regularized incomplete beta function (continued fraction, modified Lentz; Numerical
Recipes §6.4), for the confidence intervals of the toolkits."""

from __future__ import annotations

import math

from fastrate._validate import check_number

__all__ = ["student_t_cdf", "student_t_quantile"]


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (modified Lentz), for ``x < (a+1)/(a+b+2)``."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        # even step
        num = m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        # odd step
        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _beta_inc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for ``0 <= x <= 1``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                 + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def _t_tail(t: float, df: float) -> float:
    """``P(T > t)`` for ``t >= 0``."""
    x = df / (df + t * t)
    return 0.5 * _beta_inc(df / 2.0, 0.5, x)


def student_t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom (``df > 0``)."""
    check_number("student_t_cdf", "df", df, lo=0.0, hi=math.inf, lo_open=True, hi_open=True)
    t = check_number("student_t_cdf", "t", t)
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = _t_tail(abs(t), float(df))
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom, by bisection on
    the tail probability (computed from the regularized incomplete beta function).

    >>> round(student_t_quantile(0.95, 5), 4)
    2.015
    """
    check_number("student_t_quantile", "p", p, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    check_number("student_t_quantile", "df", df, lo=0.0, hi=math.inf, lo_open=True, hi_open=True)
    p, df = float(p), float(df)
    if p == 0.5:
        return 0.0
    tail = 1.0 - p if p > 0.5 else p  # solve P(T > t) = tail for t > 0
    lo, hi = 0.0, 1.0
    while _t_tail(hi, df) > tail:
        lo, hi = hi, hi * 2.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _t_tail(mid, df) > tail:
            lo = mid
        else:
            hi = mid
    t = 0.5 * (lo + hi)
    return t if p > 0.5 else -t
