"""Pieces shared by the systems that rate :class:`~fastrate.data.Matches` (TrueSkill,
Weng-Lin, multiplayer Elo, Codeforces): taking Matches or two-player Games, the saved
state of a run, the Bayesian skill columns (``mu``, ``sigma`` and the conservative
rating ``mu - k sigma``), and the pair layout of the predictions.

Every such system's :class:`~fastrate.Ratings` carries, per team in stored order, its
walk-forward probability of winning the match (``predictions``) and, per pair of teams
(:func:`fastrate.data.matches.pair_offsets`), the first team's expected score against
the second (``pair_predictions``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel
from fastrate._validate import check_type
from fastrate._vecmath import exp, logistic
from fastrate.data.games import Games
from fastrate.data.matches import Matches, pair_offsets
from fastrate.data.state import GAMES_PLAYED, StateColumn, merge_state
from fastrate.errors import InputError

__all__ = ["as_matches", "resolve_matches", "SKILL_RATING", "MU", "SIGMA", "SKILL_STATE",
           "resolve_skills", "pair_offsets", "win_probabilities", "team_ratings",
           "match_predictions"]

#: the columns of the Bayesian skill systems (TrueSkill, Weng-Lin), in table order
SKILL_RATING = StateColumn("rating", "float64",
                           doc="the conservative rating mu - k sigma (k: the config's "
                               "conservative_k); recomputed, not read back")
MU = StateColumn("mu", "float64", doc="mean of the skill belief")
SIGMA = StateColumn("sigma", "float64", doc="standard deviation of the skill belief")
SKILL_STATE = (SKILL_RATING, MU, SIGMA, GAMES_PLAYED)


def as_matches(data: Any, system: str) -> Matches:
    """``data`` as :class:`Matches`: Matches as they are, two-player :class:`Games` as
    matches of two one-player teams (:meth:`Matches.from_games`); anything else is an
    :class:`~fastrate.errors.ArgumentTypeError`."""
    if isinstance(data, Games):
        return Matches.from_games(data)
    return check_type(data, Matches, f"{system} rate() needs a fastrate.Matches (or Games)",
                      "build one with Matches.from_arrays or read_matches")


def resolve_matches(matches: Matches, initial: Any, columns: Sequence[StateColumn],
                    defaults: Mapping[str, Any] | None = None
                    ) -> tuple[dict[str, np.ndarray], Matches]:
    """Default state for every player of ``matches`` overlaid with ``initial`` (see
    :func:`fastrate.data.state.merge_state`), and ``matches`` renumbered to the
    state's player ids. Returns ``(columns by name, matches)``; the player index is
    ``matches.players``."""
    index, cols, mapping = merge_state(matches.players, initial, columns, defaults)
    if mapping is not None:
        matches = matches.with_players(index, mapping)
    return cols, matches


def resolve_skills(matches: Matches, initial: Any, *, mu: float, sigma: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Matches]:
    """``(mu, sigma, games_played, matches)`` for a Bayesian skill system: defaults
    ``mu``/``sigma`` overlaid with ``initial``. Saved ``mu`` and ``sigma`` columns are
    read back as they are; a saved state with a ``rating`` but no ``mu`` (a mapping
    ``name -> rating``, or another system's table) starts each such player at
    ``mu = rating``. A ``sigma`` must be finite and > 0."""
    cols, matches = resolve_matches(matches, initial, SKILL_STATE,
                                    {"rating": math.nan, "mu": math.nan, "sigma": float(sigma)})
    m = cols["mu"]
    m = np.where(np.isnan(m), np.where(np.isnan(cols["rating"]), float(mu), cols["rating"]), m)
    s = cols["sigma"]
    if not (s > 0.0).all():
        i = int(np.argmax(~(s > 0.0)))
        raise InputError(f"initial ratings: column 'sigma' must be > 0; found {s[i]!r} for "
                         f"player {matches.players[i]!r}")
    return (np.ascontiguousarray(m, dtype=np.float64), np.ascontiguousarray(s, np.float64),
            cols["games_played"], matches)


# -- the Elo family's predictions (elom, pairwise Elo, Codeforces) ------------------


def win_probabilities(ratings: Any, scale: float = 400.0) -> np.ndarray:
    """Each team's probability of winning a match (the Luce form of Elo ratings):
    ``10^(R_i/s) / sum_j 10^(R_j/s)``.

    >>> win_probabilities([1500, 1500, 1500, 1500]).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    r = np.asarray(ratings, dtype=np.float64)
    e = np.power(10.0, (r - r.max()) / scale)
    return e / e.sum()


@inline_kernel
def team_ratings(m, mto, tpo, player, weight, has_weight, rating, team_r):
    """The ratings of match ``m``'s teams into ``team_r[0 .. T-1]``: the weight-weighted
    mean of each team's players (weight-0 players left out). Returns the teams' mean."""
    t0 = mto[m]
    n_t = mto[m + 1] - t0
    total = 0.0
    for i in range(n_t):
        t = t0 + i
        num = 0.0
        den = 0.0
        for s in range(tpo[t], tpo[t + 1]):
            w = weight[s] if has_weight else 1.0
            if w > 0.0:
                num += w * rating[player[s]]
                den += w
        team_r[i] = num / den
        total += team_r[i]
    return total / n_t


@inline_kernel
def match_predictions(m, mto, team_r, factor, pred, pair_pred, p0):
    """Luce win probabilities of match ``m``'s teams into ``pred`` and the Elo expected
    score of every pair (``i < j``, from ``p0`` on) into ``pair_pred``.

    With ``x_i = 10^((R_i - max R)/s)``, ``pred_i = x_i / sum x`` and the pair's
    ``1/(1 + 10^((R_j - R_i)/s)) = x_i / (x_i + x_j) = pred_i / (pred_i + pred_j)``: one
    exponential per team instead of one per pair (:func:`logistic` when both underflow,
    ratings more than 10^5 points below the best). An empty ``pair_pred`` skips the
    pairs."""
    t0 = mto[m]
    n_t = mto[m + 1] - t0
    top = team_r[0]
    for i in range(1, n_t):
        top = max(top, team_r[i])
    norm = 0.0
    for i in range(n_t):
        e = exp((team_r[i] - top) * factor)
        pred[t0 + i] = e
        norm += e
    inv = 1.0 / norm
    for i in range(n_t):
        pred[t0 + i] *= inv
    if pair_pred.shape[0] == 0:  # no pair predictions wanted (a huge contest)
        return
    p = p0
    for i in range(n_t):
        pi = pred[t0 + i]
        for j in range(i + 1, n_t):
            both = pi + pred[t0 + j]
            if both > 0.0:
                pair_pred[p] = pi / both
            else:
                pair_pred[p] = logistic(team_r[i] - team_r[j], factor)
            p += 1
