"""Backgammon: error rates -> rating, gnubg skill classes (SPEC §5); FIBS ratings live in
:mod:`fastrate.fibs` (their old names here still work, with a DeprecationWarning).

* Error rates -> rating (Kees van den Doel, "Backgammon playing errors and rating in
  GNUBG"): from the difference in error per decision ``R = (11971 + 23681/N) DEPD``
  (:func:`rating_from_depd`); the bilinear fit ``R = a2(N) EPM + b(N) EPC`` with
  ``a2(N) = 8798 + 25526/N``, ``b(N) = 863 - 519/N`` and ``R = 37916 EPM`` for ``N = 1``
  (no cube) (:func:`rating_from_errors`). gnubg's "error based absolute FIBS rating" is
  ``offset - R`` with the analysing program's rating offset (2050 on FIBS);
  :func:`estimate_rating` averages it over a set of matches with a Student-t interval.
* gnubg's skill classes by error rate (:func:`skill_class`): < 0.002 Supernatural,
  < 0.005 World class, < 0.008 Expert, < 0.012 Advanced, < 0.018 Intermediate,
  < 0.026 Casual player, < 0.035 Beginner, else Awful!; a rate on a boundary falls in
  the worse class.

Match lengths are whole numbers of points, at least 1. Sources: GNU Backgammon
``analysis.c`` (rating offset, skill table, relative FIBS rating); van den Doel's study
(the ``R`` fits).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._special import student_t_cdf, student_t_quantile
from fastrate._validate import as_checked_floats, check_number, scalar_or_array
from fastrate.errors import InputError
from fastrate.ratings import fibs as _fibs
from fastrate.ratings.fibs import match_lengths

__all__ = [
    "SKILL_CLASSES", "SKILL_BOUNDS", "RatingEstimate", "rating_from_depd",
    "rating_from_errors", "estimate_rating", "skill_class", "student_t_cdf",
    "student_t_quantile",
]

#: gnubg's skill labels, best first, and the upper bounds of all but the last
SKILL_CLASSES = ("Supernatural", "World class", "Expert", "Advanced", "Intermediate",
                 "Casual player", "Beginner", "Awful!")
SKILL_BOUNDS = (0.002, 0.005, 0.008, 0.012, 0.018, 0.026, 0.035)

#: names that moved to fastrate.fibs (FIBS ratings): still served here for one release
_MOVED = ("GNUBG_RATING_CLAMP", "FibsConfig", "FibsRatings", "fibs_win_probability",
          "fibs_upset_probability", "rating_diff_from_probability", "fibs_k", "rate",
          "evaluate")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(f"fastrate.backgammon.{name} moved to fastrate.fibs.{name}; the old "
                      "name will be removed in the next release", DeprecationWarning,
                      stacklevel=2)
        return getattr(_fibs, name)
    raise AttributeError(f"module 'fastrate.backgammon' has no attribute {name!r}")


# ----------------------------------------------------------------------------------
# error rates -> rating


def rating_from_depd(depd: Any, length: Any) -> Any:
    """Rating difference from the difference in error per decision (opponent's minus
    one's own): ``R = (11971 + 23681/N) * DEPD`` (van den Doel, part I).

    >>> round(rating_from_depd(0.01, 5), 3)
    167.072
    """
    d = as_checked_floats(depd, "depd")
    n = match_lengths(length)
    return scalar_or_array((11971.0 + 23681.0 / n) * d)


def rating_from_errors(epm: Any, epc: Any, length: Any, *, difference: bool = False) -> Any:
    """Rating loss to perfect play from chequer-play error per unforced move ``epm`` and
    cube error per close cube decision ``epc`` (van den Doel, part II):
    ``R = a2(N) EPM + b(N) EPC``, ``a2(N) = 8798 + 25526/N``, ``b(N) = 863 - 519/N``;
    ``R = 37916 EPM`` for ``N = 1`` (there are no cube decisions; ``epc`` is ignored).

    Error rates must be >= 0; with ``difference=True`` they are differences between two
    players (any sign) and ``R`` is their rating difference.

    >>> round(rating_from_errors(0.01, 0.02, 5), 3)
    154.216
    """
    lo = -math.inf if difference else 0.0
    m = as_checked_floats(epm, "epm", lo=lo)
    c = as_checked_floats(epc, "epc", lo=lo)
    return scalar_or_array(_rating_loss(m, c, match_lengths(length)))


def _rating_loss(m: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """:func:`rating_from_errors` of checked error rates ``m``, ``c`` and lengths ``n``."""
    bilinear = (8798.0 + 25526.0 / n) * m + (863.0 - 519.0 / n) * c
    return np.where(n == 1.0, 37916.0 * m, bilinear)


@dataclass(frozen=True)
class RatingEstimate:
    """A rating estimated from error rates: per-match ratings, their mean and a
    Student-t interval (``lower``/``upper`` are nan for a single match)."""

    mean: float
    lower: float
    upper: float
    std: float
    n: int
    confidence: float
    ratings: np.ndarray

    @property
    def half_width(self) -> float:
        return (self.upper - self.lower) / 2.0

    def __str__(self) -> str:
        if self.n < 2:
            return f"{self.mean:.1f} (1 match, no interval)"
        return (f"{self.mean:.1f} +- {self.half_width:.1f} ({self.confidence:.0%} interval "
                f"{self.lower:.1f} .. {self.upper:.1f}, {self.n} matches)")


def estimate_rating(epm: Any, epc: Any, length: Any, offset: float = 2050.0,
                    confidence: float = 0.9) -> RatingEstimate:
    """A player's absolute rating from his error rates in a set of matches.

    Each match gives ``offset - rating_from_errors(epm, epc, N)`` (gnubg's "error based
    abs. FIBS rating"; ``offset`` is the rating of the analysing program on the site,
    2050 on FIBS). The estimate is their mean, with the two-sided ``confidence``
    interval ``mean +- t_{(1+c)/2, n-1} s / sqrt(n)`` (Student's t; the study used a
    normal interval and notes t is right for small samples).
    """
    check_number("estimate_rating", "offset", offset, lo=-math.inf, hi=math.inf, lo_open=True,
                 hi_open=True)
    check_number("estimate_rating", "confidence", confidence, lo=0.0, hi=1.0, lo_open=True,
                 hi_open=True)
    m, c, n = np.broadcast_arrays(as_checked_floats(epm, "epm", lo=0.0),
                                  as_checked_floats(epc, "epc", lo=0.0), match_lengths(length))
    r = float(offset) - _rating_loss(m, c, n).reshape(-1)
    if r.shape[0] == 0:
        raise InputError("estimate_rating() needs at least one match; got none")
    k = r.shape[0]
    mean = float(np.mean(r))
    if k < 2:
        return RatingEstimate(mean, math.nan, math.nan, math.nan, 1, float(confidence), r)
    std = float(np.std(r, ddof=1))
    half = student_t_quantile(0.5 + confidence / 2.0, k - 1) * std / math.sqrt(k)
    return RatingEstimate(mean, mean - half, mean + half, std, k, float(confidence), r)


def skill_class(error_rate: Any) -> Any:
    """gnubg's skill label of an error rate per decision (a value on a boundary falls in
    the worse class): a string for a scalar, an array of strings otherwise.

    >>> skill_class(0.004), skill_class(0.005)
    ('World class', 'Expert')
    """
    e = as_checked_floats(error_rate, "error_rate", lo=0.0)
    idx = np.searchsorted(np.array(SKILL_BOUNDS), e, side="right")
    labels = np.array(SKILL_CLASSES, dtype=object)[idx]
    return str(labels) if np.ndim(labels) == 0 else labels
