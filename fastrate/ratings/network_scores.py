"""Park & Newman's network win-loss scores (SPEC §1.5): a one-parameter batch ranking that
counts direct and indirect wins and losses.

Source: J. Park and M. E. J. Newman, "A network-based ranking system for US college
football", J. Stat. Mech. (2005) P10014 (arXiv:physics/0505169); the bridge thesis
(seeds/bridge-player-performance-thesis.txt) §2.4, eqs. 2.12-2.14.

``A_ij`` is the number of wins of ``j`` over ``i`` (the paper's and the thesis'
convention: the edge runs from winner to loser, ``A_ij`` is the edge ``j -> i``), so
``k_out_i = sum_j A_ji`` counts ``i``'s wins and ``k_in_i = sum_j A_ij`` its losses. If
``i`` beat ``j`` and ``j`` beat ``k``, ``i`` gets an indirect win over ``k`` worth ``α``,
one more step ``α²``, and so on::

    w = k_out + α Aᵀ w        (win score:  w = (I - α Aᵀ)⁻¹ k_out)
    l = k_in  + α A  l        (loss score: l = (I - α A)⁻¹ k_in)
    s = w - l                 (the score)

The series converges for ``0 <= α < 1 / λ_max(A)`` (``λ_max``: the largest eigenvalue,
the Perron root of the nonnegative matrix ``A``); at ``α = 0`` the score is wins minus
losses, and as ``α`` nears ``1/λ_max`` it approaches an eigenvector centrality.

* Draws and fractional results: a game with first-player score ``s`` adds ``s`` to
  ``A[second, first]`` and ``1 - s`` to ``A[first, second]``; a draw is half a win each
  way. Game weights (``Games.weight``) multiply both. There is no advantage term.
* ``λ_max`` is computed by power iteration on ``A + I`` restricted to the strongly
  connected components of the win graph (the spectrum of ``A`` is the union of those
  blocks' spectra; ``+ I`` makes each block primitive; each block is scaled to its own
  maximum, so none underflows). The Collatz-Wielandt bounds
  ``max_c min_{i in c} (Bx)_i / x_i <= λ_max + 1 <= max_i (Bx)_i / x_i`` stop it at a
  relative gap of 1e-10, and the upper bound is reported. A win graph without cycles has
  ``λ_max = 0``: every ``α`` converges (the series is finite).
* The default ``α`` is ``0.8 / λ_max`` (``DEFAULT_FRACTION``; 0.8 when ``λ_max = 0``): far
  enough below the limit that the iteration converges quickly (its rate is
  ``α λ_max``), and large enough for indirect results to matter. Park and Newman leave
  ``α`` to the user below the same limit.
* The linear systems are solved by the fixed-point (Jacobi / Neumann-series) iteration of
  the formulas above, one pass over the games per step for both scores at once, from
  ``w = k_out``, ``l = k_in``; every term is nonnegative, so the iterates increase to the
  solution. It stops when no score changes by more than ``TOLERANCE`` times the largest
  score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games
from fastrate.data.players import PlayerIndex
from fastrate.errors import ConfigError, InputError
from fastrate.ratings.bradley_terry import strong_components

__all__ = ["NetworkScores", "network_scores", "spectral_radius", "DEFAULT_FRACTION"]

#: the default ``α`` is this fraction of ``1 / λ_max``
DEFAULT_FRACTION = 0.8
#: relative stopping tolerance of the score iteration
TOLERANCE = 1e-13
#: iteration cap of the score solve (the rate is ``α λ_max``)
MAX_ITERATIONS = 100_000
#: relative gap of the Collatz-Wielandt bounds that stops the power iteration
EIGEN_TOLERANCE = 1e-10
EIGEN_MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class NetworkScores:
    """Win-loss scores: ``score[i] = wins_score[i] - losses_score[i]`` of ``players[i]``."""

    players: PlayerIndex
    score: np.ndarray
    wins_score: np.ndarray
    losses_score: np.ndarray
    #: the ``α`` used
    alpha: float
    #: the largest eigenvalue of ``A`` (an upper bound within 1e-10 relative)
    lambda_max: float
    #: iterations of the score solve
    n_iterations: int

    def as_dict(self) -> dict[Any, float]:
        """``{player name: score}``."""
        return dict(zip(self.players.names.tolist(), self.score.tolist()))


# ----------------------------------------------------------------------------------
# kernels


@kernel
def _degrees(white, black, sw, sl, k_out, k_in):
    """``k_out`` (wins) and ``k_in`` (losses) of every player, zeroed here."""
    for i in range(k_out.shape[0]):
        k_out[i] = 0.0
        k_in[i] = 0.0
    for g in range(white.shape[0]):
        a = white[g]
        b = black[g]
        k_out[a] += sw[g]
        k_in[b] += sw[g]
        k_out[b] += sl[g]
        k_in[a] += sl[g]


@kernel
def _perron_root(white, black, sw, sl, comp, n_comp, tolerance, max_iterations, x, y,
                 comp_low, comp_top, bounds):
    """Power iteration on ``B = A + I`` (the games' ``A``, see the module docstring; only
    games inside a component of ``comp``, in ``[0, n_comp)``) from ``x`` (positive on
    entry), each component scaled to its own maximum. ``bounds`` gets the Collatz-Wielandt
    bounds of ``λ_max(B)``: the lower one is the largest over the components of the
    smallest ratio ``(Bx)_i / x_i`` within, the upper one the largest ratio. Returns the
    iterations run."""
    n = x.shape[0]
    it = 0
    while it < max_iterations:
        it += 1
        for i in range(n):
            y[i] = x[i]
        for g in range(white.shape[0]):
            a = white[g]
            b = black[g]
            y[b] += sw[g] * x[a]
            y[a] += sl[g] * x[b]
        for c in range(n_comp):
            comp_low[c] = math.inf
            comp_top[c] = 0.0
        upper = 0.0
        for i in range(n):
            r = y[i] / x[i]
            c = comp[i]
            upper = max(upper, r)
            comp_low[c] = min(comp_low[c], r)
            comp_top[c] = max(comp_top[c], y[i])
        lower = 0.0
        for c in range(n_comp):
            lower = max(lower, comp_low[c])
        for i in range(n):
            x[i] = y[i] / comp_top[comp[i]]
        bounds[0] = lower
        bounds[1] = upper
        if upper - lower <= tolerance * upper:
            break
    return it


@kernel
def _win_loss(white, black, sw, sl, alpha, k_out, k_in, w, ls, w_new, l_new, tolerance,
              max_iterations, change):
    """Fixed-point iteration of ``w = k_out + α Aᵀ w`` and ``l = k_in + α A l`` (``l`` in
    ``ls``) from ``w = k_out``, ``l = k_in`` until no value changes by more than
    ``tolerance`` times the largest; the result is in ``w``, ``ls``. Returns the iterations; ``change[0]`` is
    the last relative change."""
    n = w.shape[0]
    for i in range(n):
        w[i] = k_out[i]
        ls[i] = k_in[i]
    it = 0
    change[0] = math.inf
    while it < max_iterations:
        it += 1
        for i in range(n):
            w_new[i] = k_out[i]
            l_new[i] = k_in[i]
        for g in range(white.shape[0]):
            a = white[g]
            b = black[g]
            # a beat b by sw: a collects b's win score, b collects a's loss score
            w_new[a] += alpha * sw[g] * w[b]
            l_new[b] += alpha * sw[g] * ls[a]
            w_new[b] += alpha * sl[g] * w[a]
            l_new[a] += alpha * sl[g] * ls[b]
        diff = 0.0
        size = 0.0
        for i in range(n):
            diff = max(diff, abs(w_new[i] - w[i]), abs(l_new[i] - ls[i]))
            size = max(size, abs(w_new[i]), abs(l_new[i]))
            w[i] = w_new[i]
            ls[i] = l_new[i]
        change[0] = diff / size if size > 0.0 else 0.0
        if change[0] <= tolerance:
            break
    return it


# ----------------------------------------------------------------------------------
# NumPy side


def _edges(games: Games) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    white = np.ascontiguousarray(games.white, dtype=np.int64)
    black = np.ascontiguousarray(games.black, dtype=np.int64)
    score = np.asarray(games.score, dtype=np.float64)
    weight = 1.0 if games.weight is None else np.asarray(games.weight, dtype=np.float64)
    sw = np.ascontiguousarray(score * weight, dtype=np.float64)
    sl = np.ascontiguousarray((1.0 - score) * weight, dtype=np.float64)
    return white, black, sw, sl


def spectral_radius(games: Games) -> float:
    """``λ_max(A)`` of the win matrix of ``games`` (see the module docstring).

    >>> import fastrate
    >>> cycle = fastrate.Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1.0, 1.0, 1.0])
    >>> round(spectral_radius(cycle), 9)
    1.0
    """
    check_type(games, Games, "spectral_radius() needs a fastrate.Games")
    return _spectral_radius(games.n_players, *_edges(games))


def _spectral_radius(n: int, white, black, sw, sl) -> float:
    win = sw > 0.0
    loss = sl > 0.0
    comp = strong_components(n, np.concatenate([white[win], black[loss]]),
                             np.concatenate([black[win], white[loss]]))
    inside = comp[white] == comp[black]  # edges between components do not count
    if not inside.any():
        return 0.0
    n_comp = int(comp.max()) + 1
    bounds = np.empty(2)
    _perron_root(np.ascontiguousarray(white[inside]), np.ascontiguousarray(black[inside]),
                 np.ascontiguousarray(sw[inside]), np.ascontiguousarray(sl[inside]),
                 np.ascontiguousarray(comp, dtype=np.int64), n_comp, EIGEN_TOLERANCE,
                 EIGEN_MAX_ITERATIONS, np.ones(n), np.empty(n), np.empty(n_comp),
                 np.empty(n_comp), bounds)
    return max(float(bounds[1]) - 1.0, 0.0)


def network_scores(games: Games, alpha: float | None = None) -> NetworkScores:
    """Park & Newman win-loss scores of ``games`` (see the module docstring);
    ``alpha=None``: ``DEFAULT_FRACTION / λ_max``.

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 1.0])  # a > b > c
    >>> r = network_scores(g, alpha=0.5)
    >>> r.as_dict()
    {'a': 1.5, 'b': 0.0, 'c': -1.5}
    """
    check_type(games, Games, "network_scores() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    n = games.n_players
    white, black, sw, sl = _edges(games)
    lam = _spectral_radius(n, white, black, sw, sl)
    if alpha is None:
        alpha = DEFAULT_FRACTION / lam if lam > 0.0 else DEFAULT_FRACTION
    else:
        alpha = check_number("network_scores", "alpha", alpha, lo=0.0)
        if alpha * lam >= 1.0:
            raise ConfigError(f"'alpha' of network_scores must be below 1/λ_max(A) = "
                              f"{1.0 / lam:.6g} (λ_max = {lam:.6g}: beyond it the sums of "
                              f"indirect wins diverge); got {alpha!r}; leave alpha=None for "
                              f"{DEFAULT_FRACTION:g}/λ_max")
    k_out, k_in = np.empty(n), np.empty(n)
    _degrees(white, black, sw, sl, k_out, k_in)
    w, loss = np.empty(n), np.empty(n)
    change = np.empty(1)
    it = _win_loss(white, black, sw, sl, float(alpha), k_out, k_in, w, loss, np.empty(n),
                   np.empty(n), TOLERANCE, MAX_ITERATIONS, change)
    if not change[0] <= TOLERANCE:
        raise InputError(f"network_scores did not converge in {MAX_ITERATIONS} iterations "
                         f"(alpha = {alpha:.6g} is too close to 1/λ_max = {1.0 / lam:.6g}); "
                         "use a smaller alpha")
    return NetworkScores(games.players, w - loss, w, loss, float(alpha), lam, int(it))
