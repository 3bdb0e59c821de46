"""Special functions without SciPy (layer 0).

* Student's t distribution through the regularized incomplete beta function (continued
  fraction, modified Lentz; Numerical Recipes §6.4), for the confidence intervals of the
  toolkits (plain Python).
* The regularized incomplete gamma functions ``P(a, x)`` and ``Q(a, x)`` (Numerical
  Recipes §6.2: gser's series below ``x = a + 1``, gcf's continued fraction above) and the
  chi-square upper tail, as inline kernels for the kernels that call them per row.
"""

from __future__ import annotations

import math

import numpy as np

from fastrate._numba import inline_kernel
from fastrate._validate import check_number

__all__ = ["chi2_sf", "gammp", "gammq", "student_t_cdf", "student_t_quantile"]


# ----------------------------------------------------------------------------------
# incomplete gamma and chi-square (inline kernels)


@inline_kernel
def _gamma_series(a, x):
    """Regularised lower incomplete gamma P(a, x) by its series (for x < a + 1)."""
    ap = a
    term = 1.0 / a
    total = term
    for _ in range(100000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


@inline_kernel
def _gamma_cf(a, x):
    """Regularised upper incomplete gamma Q(a, x) by Lentz's continued fraction (for
    x >= a + 1)."""
    fpmin = 1e-300
    b = x + 1.0 - a
    c = 1.0 / fpmin
    d = 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < fpmin:
            d = fpmin
        c = b + an / c
        if abs(c) < fpmin:
            c = fpmin
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


@inline_kernel
def _incomplete_gamma(a, x, upper):
    """Q(a, x) if ``upper`` else P(a, x) = 1 - Q(a, x): the one the series or the
    continued fraction gives directly, the other as 1 minus it (clipped at 0). NaN for
    NaN or negative x or a <= 0."""
    if x != x or a != a or x < 0.0 or a <= 0.0:
        return np.nan
    if x == 0.0:
        return 1.0 if upper else 0.0
    if x == np.inf:
        return 0.0 if upper else 1.0
    if x < a + 1.0:
        p = _gamma_series(a, x)
        return max(0.0, 1.0 - p) if upper else p
    q = _gamma_cf(a, x)
    return q if upper else max(0.0, 1.0 - q)


@inline_kernel
def gammq(a, x):
    """Regularised upper incomplete gamma Q(a, x) (Numerical Recipes' gammq)."""
    return _incomplete_gamma(a, x, True)


@inline_kernel
def gammp(a, x):
    """Regularised lower incomplete gamma P(a, x) = 1 - Q(a, x), accurate when small."""
    return _incomplete_gamma(a, x, False)


@inline_kernel
def chi2_sf(x, df):
    """Upper tail of chi-square: closed forms for whole df <= 200 (the usual k - 1),
    otherwise :func:`gammq`.

    Even df = 2m: ``Q = e^-h sum_{i<m} h^i/i!``; odd df = 2m+1:
    ``Q = erfc(sqrt h) + e^-h sum_{i=1..m} h^(i-1/2)/Gamma(i+1/2)`` with h = x/2."""
    if x != x or x < 0.0:
        return np.nan
    h = 0.5 * x
    if df <= 200.0 and df == math.floor(df) and h < 700.0:
        m = int(df) // 2
        if int(df) % 2 == 0:
            term = math.exp(-h)
            s = term
            for i in range(1, m):
                term *= h / i
                s += term
            return s
        s = math.erfc(math.sqrt(h))
        term = math.exp(-h) * 2.0 * math.sqrt(h / math.pi)
        for i in range(1, m + 1):
            s += term
            term *= h / (i + 0.5)
        return s
    return gammq(0.5 * df, h)


# ----------------------------------------------------------------------------------
# Student's t (plain Python)


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
