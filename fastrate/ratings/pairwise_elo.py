"""Pairwise Elo for multiplayer and team matches (SPEC §2.3).

A match of ``T`` teams is rated as the ``T (T - 1) / 2`` two-team games between every
pair of its teams, all from the ratings before the match: team ``i`` scores
``S_ij = 1`` against every team ranked below it, ``1/2`` against a team it ties with and
``0`` against a team ranked above it, and expects ``E_ij = 1/(1 + 10^((R_j - R_i)/s))``
(the Elo curve, ``s = scale``). Its K is shared among its ``T - 1`` opponents:

    ``delta_i = K / (T - 1) * sum_{j != i} (S_ij - E_ij)``

so a match moves a player as much as one two-player game at most, whatever the number of
teams. For two teams this is exactly two-player Elo with the same K
(:mod:`fastrate.ratings.elo`), and the changes of a match sum to zero when all weights
are 1.

**Teams**: a team's rating is the weight-weighted mean of its players' ratings,
``R_t = sum w_s R_s / sum w_s``, and every player of team ``t`` moves by
``w_s * delta_t`` (a player with weight 1 gets the team's whole change; partial play
scales it; weight 0 changes nothing and counts no game).

**Predictions**: ``pair_predictions`` are the ``E_ij`` of every pair (``i < j`` in
stored team order); the probability that team ``i`` wins its match is the Luce form
``10^(R_i/s) / sum_j 10^(R_j/s)``, which for two teams equals ``E_ij``. Both use the
ratings before the match.

Matches are rated one after another in stored order; periods are not used.

Sources: A. E. Elo, *The Rating of Chessplayers, Past and Present* (1978) for the
two-player game and its expected score; SPEC §2.3 for the multiplayer rule (every pair
of a match is one game, K divided by the number of opponents), the usual reading of
"multiplayer Elo as all pairwise games" (Board Game Arena rates its multiplayer games
as such pairwise games).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Ratings
from fastrate.data.state import GAMES_PLAYED, RATING
from fastrate.ratings._common import LN10
from fastrate.ratings._common import expected_score as _expected_score
from fastrate.ratings._matches import (
    as_matches,
    match_predictions,
    pair_offsets,
    resolve_matches,
    team_ratings,
    win_probabilities,
)

__all__ = ["PairwiseEloConfig", "rate", "expected_score", "win_probabilities", "STATE"]

_INF = math.inf


@dataclass(frozen=True)
class PairwiseEloConfig:
    """Parameters of a pairwise Elo run."""

    #: K of a whole match (shared among the ``T - 1`` opponents)
    k: float = 32.0
    scale: float = 400.0
    initial_rating: float = 1500.0

    def __post_init__(self) -> None:
        o = "PairwiseEloConfig"
        # ranges as Elo's (docs/algorithms/pairwise_elo.md): K in [0, 1e6], scale in
        # [1e-3, 1e9], |initial_rating| <= 1e9
        check_number(o, "k", self.k, lo=0.0, hi=1e6)
        check_number(o, "scale", self.scale, lo=1e-3, hi=1e9)
        check_number(o, "initial_rating", self.initial_rating, lo=-1e9, hi=1e9)


def expected_score(rating_a: Any, rating_b: Any, scale: float = 400.0) -> Any:
    """Team A's expected score against team B: ``1/(1 + 10^((R_B - R_A)/scale))``.

    >>> round(float(expected_score(1600, 1500)), 4)
    0.6401
    """
    return _expected_score(rating_a, rating_b, scale)


# ----------------------------------------------------------------------------------
# kernel


@kernel
def _pairwise_kernel(mto, tpo, player, weight, rank, rating, games, team_r, team_d, k,
                     factor, pred, pair_pred, local):
    """Every pair of a match's teams is an Elo game from the pre-match team ratings; each
    team's summed ``S - E`` times ``K / (T - 1)`` goes to its players, times their weight.

    ``local`` None: the win probabilities and pair expected scores go to ``pred`` and
    ``pair_pred`` (every match's, the outputs). ``local`` an array of 2 (final ratings
    only): the update still needs its pairs' ``E_ij``, computed the same way into
    ``pred`` and ``pair_pred`` as scratch of one match laid out by ``local = [0, T]``, so
    the ratings are the same bits. ``local`` is the flag: Numba compiles the two forms
    apart, each with the other's branches pruned, so the full form is the loop it was
    before (a boolean flag read at run time cost it 3-7% on 1v1 and 2v2)."""
    has_weight = weight.shape[0] > 0
    p0 = 0
    for m in range(mto.shape[0] - 1):
        team_ratings(m, mto, tpo, player, weight, has_weight, rating, team_r)
        t0 = mto[m]
        n_t = mto[m + 1] - t0
        if local is None:
            match_predictions(m, mto, team_r, factor, pred, pair_pred, p0)
            p = p0
        else:
            local[1] = n_t
            match_predictions(0, local, team_r, factor, pred, pair_pred, 0)
            p = 0
        for i in range(n_t):
            team_d[i] = 0.0
        for i in range(n_t):
            for j in range(i + 1, n_t):
                ri = rank[t0 + i]
                rj = rank[t0 + j]
                s = 1.0 if ri < rj else (0.5 if ri == rj else 0.0)
                e = pair_pred[p]
                team_d[i] += s - e
                team_d[j] -= s - e
                p += 1
        if local is None:
            p0 = p
        kk = k / (n_t - 1)
        for i in range(n_t):
            d = kk * team_d[i]
            t = t0 + i
            for s_ in range(tpo[t], tpo[t + 1]):
                w = weight[s_] if has_weight else 1.0
                if w > 0.0:
                    a = player[s_]
                    rating[a] += w * d
                    games[a] += 1


# ----------------------------------------------------------------------------------
# the public function


def rate(data: Any, config: PairwiseEloConfig = PairwiseEloConfig(),
         initial: Any = None, predictions: bool = True) -> Ratings:
    """Rate ``data`` (:class:`~fastrate.Matches`, or two-player :class:`~fastrate.Games`)
    with pairwise Elo; see the module docstring for the rules.

    ``initial`` sets starting ratings and games played (a previous :class:`Ratings`, its
    table, or a mapping ``name -> rating``); continuing from a saved state equals
    rating everything at once. ``Ratings.predictions`` holds each team's Luce win
    probability and ``Ratings.pair_predictions`` each pair's Elo expected score, from the
    ratings before the match. ``predictions=False``: final ratings only
    (``predictions`` and ``pair_predictions`` None, no per-match arrays; the ratings and
    games played are the same bits).
    """
    matches = as_matches(data, "pairwise_elo")
    check_type(config, PairwiseEloConfig, "config must be a PairwiseEloConfig")
    predictions = bool(predictions)
    cols, matches = resolve_matches(matches, initial, STATE,
                                    {"rating": float(config.initial_rating)})
    rating = np.ascontiguousarray(cols["rating"], dtype=np.float64)
    games = np.ascontiguousarray(cols["games_played"], dtype=np.int64)
    mto = matches.match_team_offsets
    n_t = np.diff(mto)
    width = int(n_t.max()) if n_t.size else 1
    weight = matches.weight if matches.weight is not None else np.empty(0, np.float64)
    if predictions:
        pred = np.empty(matches.n_teams, dtype=np.float64)
        pair_pred = np.empty(int(pair_offsets(mto)[-1]), dtype=np.float64)
        local = None
    else:  # one match's worth, the pairs' expected scores that the update reads
        pred = np.empty(width, dtype=np.float64)
        pair_pred = np.empty(width * (width - 1) // 2, dtype=np.float64)
        local = np.zeros(2, dtype=np.int64)
    _pairwise_kernel(mto, matches.team_player_offsets, matches.player, weight, matches.rank,
                     rating, games, np.empty(width), np.empty(width), float(config.k),
                     LN10 / float(config.scale), pred, pair_pred, local)
    return Ratings("pairwise_elo", matches.players, rating, games,
                   pred if predictions else None, config,
                   pair_predictions=pair_pred if predictions else None)


# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, GAMES_PLAYED)
