"""Information gained from a game, and its cost (SPEC §6; computer-go post by Chuck
Paulson, "rating ladder pairing").

* Expected information of one game whose first player wins with probability ``p``:
  the binary entropy ``H(p) = -p log2 p - (1-p) log2(1-p)`` bits
  (:func:`binary_entropy`; ``H(0) = H(1) = 0``, ``H(1/2) = 1``). Draws are not modelled:
  a game has two outcomes.
* :func:`game_information` is ``H`` of the Elo expected score (SPEC §1.1, computed by
  :func:`fastrate.ratings._common.expected_score`) of two ratings.
* :func:`cost_bits_table` reproduces the post's table for any rank gaps, cost ratio and
  Elo step: players ranked 0, 1, 2, ... (0 the strongest) ``elo_step`` points apart; a
  game of rank ``n`` costs ``base_cost * cost_ratio^n`` time units (the post: each rank
  costs half the one above, rank 0 costs 1.0), and a game between two players costs the
  sum of their costs. For rank ``a`` against rank ``a + r``:
  ``cost = base_cost (cost_ratio^a + cost_ratio^(a+r))``,
  ``win_prob = 1/(1 + 10^(r elo_step / scale))`` (the lower-ranked player's chance),
  ``bits = H(win_prob)`` and ``bits_per_cost = bits / cost``. The post's table is
  ``a = 0``, ``r = 0..10``, ``elo_step = 80``, ``cost_ratio = 1/2``:
  r=2 gives cost 1.2500, win probability 0.2847, 0.8618 bits, 0.6895 bits per unit cost,
  the best rank gap for information per unit of time.

Values are exact float64 arithmetic; the post prints them rounded half away from zero
to 4 decimals (its 1.0313 for ``1 + 2^-5 = 1.03125``): :func:`round_half_up` does the
same for display.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel
from fastrate._validate import as_float64, check_number
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import expected_score

__all__ = ["binary_entropy", "game_information", "cost_bits_table", "round_half_up",
           "TABLE_COLUMNS"]

#: the columns of :func:`cost_bits_table`, in order
TABLE_COLUMNS = ("rank", "opponent_rank", "rank_gap", "elo_gap", "cost", "win_prob", "bits",
                 "bits_per_cost")
_INF = math.inf


@inline_kernel
def entropy_bits(p: float) -> float:
    """``H(p)`` in bits for a kernel (0 outside the open interval (0, 1))."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    q = 1.0 - p
    return -p * math.log2(p) - q * math.log2(q)


def _scalar_or_array(x: np.ndarray, scalar: bool) -> Any:
    return float(x[0]) if scalar else x


def binary_entropy(p: Any) -> Any:
    """Binary entropy in bits, ``H(p) = -p log2 p - (1-p) log2(1-p)``, of win
    probabilities ``p`` in [0, 1] (a float for a scalar, else an array).

    The expected information of a game whose winner is drawn with probability ``p``
    (Shannon 1948; the computer-go post: 1 bit for an even game, 0.29 bits when one
    side wins 95% of the time).

    >>> binary_entropy(0.5)
    1.0
    >>> round(binary_entropy(0.95), 4)
    0.2864
    """
    scalar = np.ndim(p) == 0
    arr = as_float64(np.atleast_1d(p), "p")
    bad = (arr < 0.0) | (arr > 1.0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"'p' must be a probability in [0, 1]; found {float(arr[i])!r}"
                         + ("" if scalar else f" at index {i}"))
    out = np.zeros(arr.shape[0], dtype=np.float64)
    inside = (arr > 0.0) & (arr < 1.0)
    x = arr[inside]
    y = 1.0 - x
    out[inside] = -x * np.log2(x) - y * np.log2(y)
    return _scalar_or_array(out, scalar)


def game_information(rating_a: Any, rating_b: Any, scale: float = 400.0) -> Any:
    """Expected bits of a game between ratings ``a`` and ``b``: ``H(E_A)`` with the Elo
    expected score ``E_A = 1/(1 + 10^((R_B - R_A)/scale))`` (SPEC §1.1, §6).

    >>> round(game_information(1500, 1420), 4)
    0.9627
    """
    check_number("game_information", "scale", scale, lo=0.0, hi=_INF, lo_open=True,
                 hi_open=True)
    a = np.asarray(rating_a, dtype=np.float64)
    b = np.asarray(rating_b, dtype=np.float64)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError("ratings must be finite numbers (no NaN or infinite values)")
    return binary_entropy(expected_score(a, b, scale))


def _gaps(gaps: Any) -> np.ndarray:
    if isinstance(gaps, (int, np.integer)) and not isinstance(gaps, bool):
        gaps = range(int(gaps) + 1)
    arr = np.asarray(list(gaps) if isinstance(gaps, range) else gaps)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise InputError(f"'gaps' must be a non-empty list of rank gaps; got {gaps!r}")
    if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise InputError(f"'gaps' must hold whole numbers of ranks; got {arr.tolist()!r}")
    if (arr < 0).any():
        raise InputError(f"'gaps' must be >= 0 (ranks below the reference player); found "
                         f"{int(arr[np.argmax(arr < 0)])}")
    return arr.astype(np.int64)


def cost_bits_table(gaps: Any = 10, *, cost_ratio: float = 0.5, elo_step: float = 80.0,
                    rank: int = 0, base_cost: float = 1.0,
                    scale: float = 400.0) -> dict[str, np.ndarray]:
    """The computer-go post's cost/bits table for player ``rank`` against the players
    ``gaps`` ranks below him (``gaps``: a list, or an int ``n`` for ``0..n``).

    Returns columns (NumPy arrays) :data:`TABLE_COLUMNS`: ``rank``, ``opponent_rank``,
    ``rank_gap``, ``elo_gap = gap * elo_step``,
    ``cost = base_cost (cost_ratio^rank + cost_ratio^(rank+gap))``, ``win_prob`` (the
    lower-ranked player's expected score ``1/(1 + 10^(elo_gap/scale))``),
    ``bits = H(win_prob)`` and ``bits_per_cost``.

    >>> t = cost_bits_table(10)
    >>> [round(float(t[c][2]), 4) for c in ("cost", "win_prob", "bits", "bits_per_cost")]
    [1.25, 0.2847, 0.8618, 0.6895]
    """
    o = "cost_bits_table"
    check_number(o, "cost_ratio", cost_ratio, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
    check_number(o, "elo_step", elo_step, lo=-_INF, hi=_INF, lo_open=True, hi_open=True)
    check_number(o, "base_cost", base_cost, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
    check_number(o, "scale", scale, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
    check_number(o, "rank", rank, lo=0.0, hi=1e9, integer=True)
    r = _gaps(gaps)
    rank = int(rank)
    with np.errstate(over="ignore", under="ignore"):
        cost = float(base_cost) * (float(cost_ratio) ** rank
                                   + np.power(float(cost_ratio), (rank + r).astype(np.float64)))
    if not (np.isfinite(cost).all() and (cost > 0).all()):
        raise ConfigError(f"cost_ratio={cost_ratio!r} and base_cost={base_cost!r} give game "
                          f"costs that are not finite positive numbers for ranks {rank} to "
                          f"{rank + int(r.max())}")
    elo_gap = r.astype(np.float64) * float(elo_step)
    with np.errstate(over="ignore"):  # 10^(gap/scale) overflows to inf: p = 0, 0 bits
        win = expected_score(0.0, elo_gap, float(scale))
    bits = binary_entropy(win)
    return {"rank": np.full(r.shape[0], rank, dtype=np.int64), "opponent_rank": rank + r,
            "rank_gap": r, "elo_gap": elo_gap, "cost": cost, "win_prob": win, "bits": bits,
            "bits_per_cost": bits / cost}


def round_half_up(x: float, decimals: int = 4) -> str:
    """``x`` with ``decimals`` decimals, halves rounded away from zero (as the post's
    table, 1.03125 -> 1.0313); Python's format rounds an exact binary half to even."""
    if not math.isfinite(x):
        return str(x)
    q = Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(float(x))).quantize(q, rounding=ROUND_HALF_UP))
