"""The essay's tests of a profile (SPEC §4): Pearson's chi-square against a reference
profile and its scalings TAPL, TAZD and TAKBE, the p-value and effect size, the
directional TAZD* and the quality-of-opponent adjustment QOOA.

* :func:`chi_square` -- ``sum((O - E)^2 / E)`` with ``E = n * ref``; with ``yates=True``
  each cell is ``(|O - E| - 0.5)^2 / E`` and a difference under 0.5 counts 0 (the
  essay's use of Yates' correction; ``yates="auto"`` applies it to a player with an
  expected count below 5, as the essay does).
* :func:`tapl` -- test against pure luck, ``chi2 / sqrt(n) * 1000``; :func:`tazd` and
  :func:`takbe` the same against the zero-score and known-bad profiles.
* :func:`p_value` -- upper tail of chi-square with ``df`` degrees of freedom (k - 1),
  ``Q(df/2, x/2)`` (:func:`fastrate._special.chi2_sf`); :func:`effect_size` -- Cohen's
  ``w = sqrt(chi2 / n)``.
* :func:`tazd_star` -- ``sqrt(n) (mu_ref - mu_obs) / sigma_ref * 1000`` (SPEC §4
  Decision).
* :func:`qooa` -- ``p0/371 + p1/142 + p2/54 + p3/21 + p4/8 + p5/3`` from the percentages
  of games played at table levels 0..5.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate.errors import ConfigError, InputError
from fastrate.stats.placement._common import (
    as_counts,
    chi2_kernel,
    moments,
    one_or_all,
    pvalue_kernel,
    row_sums,
    yates_mode,
)
from fastrate.stats.placement.profiles import reference_profile

__all__ = ["QOOA_DIVISORS", "chi_square", "tapl", "tazd", "takbe", "p_value", "effect_size",
           "tazd_star", "qooa"]

#: QOOA divisors of the percentages at table levels 0..5
QOOA_DIVISORS = (371.0, 142.0, 54.0, 21.0, 8.0, 3.0)


@kernel
def _tazd_star_kernel(counts, k, mu_ref, sigma_ref, out):
    place = np.arange(1.0, k + 1.0)
    for i in range(out.shape[0]):
        n, s = row_sums(counts, i * k, k, place)
        if n <= 0.0:
            out[i] = np.nan
        else:
            out[i] = math.sqrt(n) * (mu_ref - s / n) / sigma_ref * 1000.0


def _chi2_of(counts: Any, reference: Any, yates: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """Chi-square and games of every profile against one reference profile, and whether
    ``counts`` was a single profile."""
    arr, single = as_counts(counts)
    k = arr.shape[1]
    ref = reference_profile(reference, k)
    chi2 = np.empty(arr.shape[0])
    n = np.empty(arr.shape[0])
    chi2_kernel(arr.reshape(-1), k, ref, 0, yates_mode(yates), chi2, n)
    return chi2, n, single


def chi_square(counts: Any, reference: Any = None, yates: bool | str = False) -> Any:
    """Pearson's chi-square of each profile against ``reference`` (uniform by default).

    ``yates``: False, True (every player) or ``"auto"`` (players with an expected count
    below 5, as the essay does). NaN for a player with no games."""
    chi2, n, single = _chi2_of(counts, reference, yates)
    return one_or_all(chi2, single)


def _scaled(counts: Any, reference: Any, yates: Any) -> Any:
    chi2, n, single = _chi2_of(counts, reference, yates)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = chi2 / np.sqrt(n) * 1000.0
    return one_or_all(out, single)


def tapl(counts: Any, yates: bool | str = False, reference: Any = None) -> Any:
    """Test against pure luck: ``chi2 / sqrt(n) * 1000`` (7,6,5,4,4,4,5 -> 270.4)."""
    return _scaled(counts, reference, yates)


def tazd(counts: Any, yates: bool | str = False) -> Any:
    """Test against zero datum: the TAPL against :data:`TAZD_PROFILE` (normalised)."""
    return _scaled(counts, "tazd", yates)


def takbe(counts: Any, yates: bool | str = False) -> Any:
    """Test against known bad example: the TAPL against :data:`TAKBE_PROFILE`."""
    return _scaled(counts, "takbe", yates)


def p_value(chi2: Any, df: Any) -> Any:
    """Upper-tail probability of chi-square: ``Q(df/2, chi2/2)``; for a profile of k
    places ``df = k - 1``. NaN where chi2 is NaN or negative."""
    x = np.asarray(chi2, dtype=np.float64)
    d = np.asarray(df, dtype=np.float64)
    if not np.all(d > 0):
        raise ConfigError(f"'df' of p_value must be positive; got {df!r}")
    # copies: a broadcast view (even a contiguous one, as of one value) must not reach
    # the kernel, whose typing reads its writeable flag (a FutureWarning in NumPy)
    xb, db = np.broadcast_arrays(x, d)
    flat_x = np.array(xb, dtype=np.float64).reshape(-1)
    flat_d = np.array(db, dtype=np.float64).reshape(-1)
    out = np.empty(flat_x.shape[0])
    pvalue_kernel(flat_x, flat_d, out)
    out = out.reshape(xb.shape)
    return float(out) if out.ndim == 0 else out


def effect_size(counts: Any, reference: Any = None, yates: bool | str = False) -> Any:
    """Cohen's w = ``sqrt(chi2 / n)``: the size of the departure from ``reference``,
    independent of the number of games (TAPL = w^2 sqrt(n) 1000)."""
    chi2, n, single = _chi2_of(counts, reference, yates)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sqrt(chi2 / n)
    return one_or_all(out, single)


def tazd_star(counts: Any, reference: Any = "tazd") -> Any:
    """Directional z-score of the mean place: ``sqrt(n)(mu_ref - mu_obs)/sigma_ref*1000``.

    Positive when a player places better (lower) on average than the reference; a win
    never lowers it and neither does improving any finish (unlike TAZD)."""
    arr, single = as_counts(counts)
    k = arr.shape[1]
    mu, sigma = moments(reference_profile(reference, k))
    out = np.empty(arr.shape[0])
    _tazd_star_kernel(arr.reshape(-1), k, mu, sigma, out)
    return one_or_all(out, single)


def qooa(levels: Any) -> Any:
    """Quality-of-opponent adjustment from the percentages (0..100) of games played at
    table levels 0..5 (a row per player, up to 6 columns; missing levels count 0):
    ``p0/371 + p1/142 + p2/54 + p3/21 + p4/8 + p5/3``. 50/50 at levels 0/1 -> 0.49."""
    arr = np.asarray(levels, dtype=np.float64)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= 6:
        raise InputError(f"'levels' must hold the percentages at 1 to 6 table levels; got "
                         f"shape {np.asarray(levels).shape}")
    if not np.isfinite(arr).all() or (arr < 0).any() or (arr > 100).any():
        raise InputError("'levels' must be percentages in [0, 100]")
    out = arr @ (1.0 / np.array(QOOA_DIVISORS[: arr.shape[1]]))
    return one_or_all(out, single)
