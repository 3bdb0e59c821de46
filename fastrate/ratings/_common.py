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
