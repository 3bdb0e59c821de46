"""Points and payoffs: the convolution integral (CI, expected payoff per point of
buy-in), guts per game (GPG) and points per root game (PPRG).

* :func:`convolution_integral` -- ``sum(payoff_j * frac_j) / buy_in`` (default KDice
  payoffs 60, 42, 35, 0, -35, -42, -60 over a 60-point buy-in);
* :func:`guts_per_game` -- points per game / CI, capped at 6000, NaN when CI <= 0;
* :func:`pprg` -- points / sqrt(games).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate.errors import InputError
from fastrate.stats.placement._common import (
    GPG_CAP,
    KDICE_BUY_IN,
    KDICE_PAYOFF,
    as_counts,
    one_or_all,
    payoff_table,
    per_player,
    row_sums,
)

__all__ = ["KDICE_PAYOFF", "KDICE_BUY_IN", "GPG_CAP", "convolution_integral",
           "guts_per_game", "pprg"]


@kernel
def _ci_kernel(counts, k, payoff, buy_in, out):
    for i in range(out.shape[0]):
        n, s = row_sums(counts, i * k, k, payoff)
        out[i] = np.nan if n <= 0.0 else s / n / buy_in


def convolution_integral(counts: Any, payoff: Any = None, buy_in: float = KDICE_BUY_IN) -> Any:
    """Expected payoff per point of buy-in: ``sum(payoff_j * counts_j / n) / buy_in``.

    Default KDice table (60, 42, 35, 0, -35, -42, -60) over 60: uniform profile -> 0,
    range [-1, 1]. NaN for no games."""
    arr, single = as_counts(counts)
    k = arr.shape[1]
    pay = payoff_table(payoff, k, buy_in)
    out = np.empty(arr.shape[0])
    _ci_kernel(arr.reshape(-1), k, pay, float(buy_in), out)
    return one_or_all(out, single)


def guts_per_game(points: Any, games: Any, ci: Any, cap: float = GPG_CAP) -> Any:
    """Average buy-in estimated as points per game / CI, capped at ``cap`` (6000);
    NaN when CI <= 0 (or NaN) or no games."""
    p = per_player(points, "points")
    g = per_player(games, "games")
    c = np.asarray(ci, dtype=np.float64)
    if (g < 0).any():
        raise InputError("'games' must be non-negative")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where((c > 0) & (g > 0), np.minimum(p / g / c, cap), np.nan)
    return float(out) if out.ndim == 0 else out


def pprg(points: Any, games: Any) -> Any:
    """Points per root game: ``points / sqrt(games)``; NaN for no games."""
    p = per_player(points, "points")
    g = per_player(games, "games")
    if (g < 0).any():
        raise InputError("'games' must be non-negative")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(g > 0, p / np.sqrt(g), np.nan)
    return float(out) if out.ndim == 0 else out
