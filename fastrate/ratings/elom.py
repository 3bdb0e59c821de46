"""Multiplayer Elo of PlayerRatings' ``elom`` (Tenhou's riichi mahjong rating; SPEC §2.3).

Every game of a rating period uses the ratings at the start of the period. In a game of
``n`` players with ratings ``R_1 .. R_n`` (table average ``A = (R_1 + .. + R_n)/n``),
player ``i`` gets the base value ``b_i`` of his placing and is expected to get
``(R_i - A)/40``; at the end of the period every player who played moves by

    ``R_i' = R_i + K(N_i) * sum over his games of (b_i - (R_i - A)/40)``

where ``N_i`` is the number of games he had played before the period and ``K`` is
PlayerRatings' ``kriichi``: ``K(N) = 1 - (1 - kv) N / gv`` for ``N < gv``, ``kv``
after (Tenhou: ``kv = 0.2``, ``gv = 400``). Here ``K(N) = k_start - (k_start - k_final)
N / k_games`` below ``k_games`` games and ``k_final`` from then on (``k_start = 1``
is ``kriichi``; ``k_games = 0`` is a constant K of ``k_final``).

**Base values** (``mode="placing"``, the default): ``base[0]`` for the first place,
``base[1]`` for the second, and so on (Tenhou: 30, 10, -10, -30); tied players all get
the value of the best of their places (PlayerRatings' ``rank(ties.method="min")``:
places 1, 2, 2, 4 give 30, 10, 10, -30). This is what ``elom`` does with a base
*vector*, whether its results are placings (``placing=TRUE``) or scores: in fastrate the
:class:`~fastrate.data.Matches` already hold the ranks, from either. A game with fewer
players than ``len(base)`` (PlayerRatings' ``exact=FALSE``) uses the base vector
shrunk one value at a time until it has one value per player: an odd length loses its
centre value, an even length has its two centre values replaced by their mean (30, 10,
-10, -30 becomes 30, 0, -30 for three players and 30, -30 for two). A game with more
players than ``len(base)`` is an :class:`~fastrate.errors.InputError`.

``mode="score"`` is ``elom`` with a base *function* of the game score, the linear one
PlayerRatings suggests for mahjong: ``b_i = (score_i - score_origin) / score_scale``
(``(x - 25000)/250``); the matches must carry scores (``Matches.from_arrays(...,
score=...)``).

**Periods**: all games with the same period are rated simultaneously, as in
``elom``; matches without periods are each a period of their own (game by game).
``games_played`` is updated at the end of each period.

**Teams and partial play** (fastrate's extension; ``elom`` knows single players only):
a team plays as one player whose rating is the weight-weighted mean of its players'
ratings ``R_t = sum w_s R_s / sum w_s``; the table average is over teams, and every
player of team ``t`` moves by ``K(N_s) * w_s * (b_t - (R_t - A)/40)``. With one-player
teams and weights 1 (the default) this is exactly ``elom``; a player of weight 0 is left
out (no change, no game counted, not in his team's mean).

**Predictions** (``elom`` has no probability model; its ``predict`` gives the expected
base value ``(R_i - A)/40``): the probability that team ``i`` wins its match is the
Luce (Plackett-Luce first place) form of Elo ratings,
``10^(R_i/s) / sum_j 10^(R_j/s)`` (``s = scale``, 400), which for two teams is the Elo
expected score; ``pair_predictions`` are the Elo expected scores
``1/(1 + 10^((R_j - R_i)/s))`` of every pair. Both use the ratings before the match
(the start of its period).

Source: A. Stephenson and J. Sonas, R package PlayerRatings 1.1 (2020): ``elom``
(R/ratings.R and ``elom_c`` in src/ratings.c), ``kriichi`` and their manual pages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_choice, check_number, check_type, format_value
from fastrate.data import Ratings, period_starts
from fastrate.data.state import GAMES_PLAYED, RATING
from fastrate.errors import ConfigError, InputError
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

__all__ = ["ElomConfig", "rate", "expected_score", "win_probabilities", "k_factor",
           "base_values", "MODES", "STATE"]

MODES = ("placing", "score")
_INF = math.inf
#: parameter ranges (far beyond any real use; within them a run stays finite): |base|
#: <= 1e6; |score_origin| <= 1e15 and score_scale in [1e-3, 1e15]; |initial_rating| <= 1e9;
#: k_start, k_final in [0, 1e6]; k_games 0 or in [1, 1e9]; spread, scale in [1e-3, 1e9]
MAX_BASE, MAX_SCORE, MAX_RATING, MAX_K, MIN_SCALE = 1e6, 1e15, 1e9, 1e6, 1e-3


@dataclass(frozen=True)
class ElomConfig:
    """Parameters of an ``elom`` run (PlayerRatings' defaults, Tenhou's values)."""

    #: base values by place, best first (PlayerRatings' ``base``; its length is ``nn``)
    base: tuple[float, ...] = (30.0, 10.0, -10.0, -30.0)
    #: ``"placing"``: base values by place; ``"score"``: ``(score - origin) / scale``
    mode: str = "placing"
    score_origin: float = 25000.0
    score_scale: float = 250.0
    initial_rating: float = 1500.0
    #: ``K`` of a new player (``kriichi``: 1)
    k_start: float = 1.0
    #: ``K`` from ``k_games`` games on (``kriichi``'s ``kv``)
    k_final: float = 0.2
    #: games after which ``K`` is ``k_final`` (``kriichi``'s ``gv``)
    k_games: float = 400.0
    #: the divisor of the expected value ``(R - A) / spread`` (40 in ``elom``)
    spread: float = 40.0
    #: the Elo scale of the predictions
    scale: float = 400.0

    def __post_init__(self) -> None:
        o = "ElomConfig"
        if not isinstance(self.base, tuple) or len(self.base) < 2:
            raise ConfigError(f"'base' of {o} must be a tuple of at least two base values "
                              f"(best place first); got {self.base!r}")
        for i, b in enumerate(self.base):
            check_number(o, f"base[{i}]", b, lo=-MAX_BASE, hi=MAX_BASE)
        check_choice(o, "mode", self.mode, MODES)
        check_number(o, "score_origin", self.score_origin, lo=-MAX_SCORE, hi=MAX_SCORE)
        check_number(o, "score_scale", self.score_scale, lo=MIN_SCALE, hi=MAX_SCORE)
        check_number(o, "initial_rating", self.initial_rating, lo=-MAX_RATING, hi=MAX_RATING)
        check_number(o, "k_start", self.k_start, lo=0.0, hi=MAX_K)
        check_number(o, "k_final", self.k_final, lo=0.0, hi=MAX_K)
        check_number(o, "k_games", self.k_games, lo=0.0, hi=MAX_RATING)
        if 0.0 < self.k_games < 1.0:  # K falls by (k_start - k_final) / k_games a game
            raise ConfigError(f"'k_games' of {o} must be 0 or a float in [1, 1e+09]; got "
                              f"{self.k_games!r}")
        check_number(o, "spread", self.spread, lo=MIN_SCALE, hi=MAX_RATING)
        check_number(o, "scale", self.scale, lo=MIN_SCALE, hi=MAX_RATING)

    @classmethod
    def tenhou(cls, **kw: Any) -> ElomConfig:
        """Tenhou's four-player rating (PlayerRatings' defaults): base 30, 10, -10, -30,
        ``kriichi`` with ``kv = 0.2``, ``gv = 400``."""
        return cls(**kw)

    @classmethod
    def tenhou3(cls, **kw: Any) -> ElomConfig:
        """Tenhou's three-player rating: base 30, 0, -30."""
        return cls(**{"base": (30.0, 0.0, -30.0), **kw})


def k_factor(games: Any, config: ElomConfig = ElomConfig()) -> np.ndarray | float:
    """``K`` after ``games`` games (PlayerRatings' ``kriichi`` with the defaults).

    >>> k_factor([0, 100, 400, 1000])
    array([1. , 0.8, 0.2, 0.2])
    """
    n = np.asarray(games, dtype=np.float64)
    out = np.where(n >= config.k_games, config.k_final,
                   config.k_start - (config.k_start - config.k_final) * n
                   / max(config.k_games, 1.0))
    return float(out) if out.ndim == 0 else out


def base_values(base: tuple[float, ...], n: int) -> np.ndarray:
    """The base vector for a game of ``n`` players: ``base`` shrunk one value at a time
    (odd length: drop the centre value; even length: the two centre values become their
    mean) until it has ``n`` values, as PlayerRatings does for games with fewer than
    ``nn`` players.

    >>> base_values((30, 10, -10, -30), 3).tolist(), base_values((30, 10, -10, -30), 2).tolist()
    ([30.0, 0.0, -30.0], [30.0, -30.0])
    """
    b = [float(x) for x in base]
    if n > len(b):
        raise InputError(f"a game of {n} players needs {n} base values; 'base' has {len(b)}")
    while len(b) > n:
        h = len(b) // 2
        if len(b) % 2:
            b = b[:h] + b[h + 1:]
        else:
            b = b[:h - 1] + [(b[h - 1] + b[h]) / 2.0] + b[h + 1:]
    return np.array(b, dtype=np.float64)


def expected_score(rating_a: Any, rating_b: Any, scale: float = 400.0) -> Any:
    """Team A's expected score against team B (the pair predictions): the Elo curve
    ``1/(1 + 10^((R_B - R_A)/scale))``."""
    return _expected_score(rating_a, rating_b, scale)


# ----------------------------------------------------------------------------------
# kernels


@kernel
def _elom_kernel(mto, tpo, player, weight, rank, base_table, team_base, starts, rating, games,
                 delta, count, touched, team_r, k_start, k_slope, k_final, k_games, spread,
                 factor, pred, pair_pred, predict):
    """PlayerRatings' ``elom`` over the periods ``starts`` (match offsets): sums of
    ``w (b - (R_t - A)/spread)`` per player with the period-start ratings, then
    ``R += K(N) * sum`` and ``N += games`` at the period's end. The base value ``b`` of
    a team is ``team_base[t]`` when given (score mode), else ``base_table[(T - 1) nn +
    rank - 1]`` (row ``T - 1``: the base vector of a game of ``T`` teams). ``predict``
    False: final ratings only (the predictions, which the update does not read, are
    neither computed nor written; ``pred`` and ``pair_pred`` may be empty)."""
    has_weight = weight.shape[0] > 0
    by_score = team_base.shape[0] > 0
    nn = int(math.sqrt(base_table.shape[0]) + 0.5)
    p0 = 0
    for q in range(starts.shape[0] - 1):
        n_touched = 0
        for m in range(starts[q], starts[q + 1]):
            avg = team_ratings(m, mto, tpo, player, weight, has_weight, rating, team_r)
            t0 = mto[m]
            n_t = mto[m + 1] - t0
            if predict:
                match_predictions(m, mto, team_r, factor, pred, pair_pred, p0)
                p0 += n_t * (n_t - 1) // 2
            row = (n_t - 1) * nn - 1
            for i in range(n_t):
                t = t0 + i
                b = team_base[t] if by_score else base_table[row + rank[t]]
                d = b - (team_r[i] - avg) / spread
                for s in range(tpo[t], tpo[t + 1]):
                    w = weight[s] if has_weight else 1.0
                    if w > 0.0:
                        a = player[s]
                        if count[a] == 0:
                            touched[n_touched] = a
                            n_touched += 1
                        delta[a] += w * d
                        count[a] += 1
        for j in range(n_touched):
            a = touched[j]
            n = games[a]
            k = k_final if n >= k_games else k_start - k_slope * n
            rating[a] += k * delta[a]
            games[a] = n + count[a]
            delta[a] = 0.0
            count[a] = 0


# ----------------------------------------------------------------------------------
# the public function


def _base_inputs(matches: Any, config: ElomConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(base_table, team_base)`` of the kernel: the ``nn x nn`` table whose row
    ``T - 1`` is the base vector of a game of ``T`` teams (flattened), and in score
    mode every team's base value ``(score - origin)/scale`` (else empty)."""
    nn = len(config.base)
    table = np.zeros((nn, nn), dtype=np.float64)
    for n in range(1, nn + 1):
        table[n - 1, :n] = base_values(config.base, n)
    if config.mode != "score":
        n_t = np.diff(matches.match_team_offsets)
        if n_t.size and int(n_t.max()) > nn:
            m = int(np.argmax(n_t > nn))
            raise InputError(f"elom: match {_match_label(matches, m)} has {int(n_t[m])} "
                             f"players (teams); 'base' has {nn} values (PlayerRatings' nn): "
                             "give a longer base")
        return table.reshape(-1), np.empty(0, dtype=np.float64)
    score = matches.score
    if score is None:
        raise InputError("elom with mode='score' needs the matches' scores: build them "
                         "with a score column (Matches.from_arrays(..., score=...))")
    bad = ~np.isfinite(score)
    if bad.any():
        t = int(np.argmax(bad))
        raise InputError(f"elom with mode='score' needs a finite score for every team; "
                         f"found {format_value(score[t])} in match "
                         f"{_match_label(matches, int(matches.team_match()[t]))}")
    return (table.reshape(-1),
            np.ascontiguousarray((score - config.score_origin) / config.score_scale))


def _match_label(matches: Any, m: int) -> str:
    labels = matches.match_labels
    return format_value(labels[m] if labels is not None else m)


def rate(data: Any, config: ElomConfig = ElomConfig(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Rate ``data`` (:class:`~fastrate.Matches`, or two-player :class:`~fastrate.Games`)
    with PlayerRatings' ``elom``; see the module docstring for the rules.

    ``initial`` sets starting ratings and games played (a previous :class:`Ratings`, its
    table, or a mapping ``name -> rating``); continuing from a saved state equals
    rating everything at once when the split falls between periods.
    ``Ratings.predictions`` holds each team's Luce win probability and
    ``Ratings.pair_predictions`` each pair's Elo expected score, from the ratings at the
    start of the match's period. ``predictions=False``: final ratings only
    (``predictions`` and ``pair_predictions`` None, not computed; the ratings and games
    played are the same bits).
    """
    matches = as_matches(data, "elom")
    check_type(config, ElomConfig, "config must be an ElomConfig")
    predictions = bool(predictions)
    base_table, team_base = _base_inputs(matches, config)
    cols, matches = resolve_matches(matches, initial, STATE,
                                    {"rating": float(config.initial_rating)})
    rating = np.ascontiguousarray(cols["rating"], dtype=np.float64)
    games = np.ascontiguousarray(cols["games_played"], dtype=np.int64)
    n = rating.shape[0]
    if matches.period is None:
        starts = np.arange(matches.n_matches + 1, dtype=np.int64)
    else:
        starts = np.ascontiguousarray(period_starts(matches.period), dtype=np.int64)
    n_t = np.diff(matches.match_team_offsets)
    weight = matches.weight if matches.weight is not None else np.empty(0, np.float64)
    if predictions:
        pred = np.empty(matches.n_teams, dtype=np.float64)
        pair_pred = np.empty(int(pair_offsets(matches.match_team_offsets)[-1]),
                             dtype=np.float64)
    else:
        pred = pair_pred = np.empty(0, dtype=np.float64)
    k_games = float(config.k_games)
    k_slope = (config.k_start - config.k_final) / k_games if k_games > 0.0 else 0.0
    _elom_kernel(matches.match_team_offsets, matches.team_player_offsets, matches.player,
                 weight, matches.rank, base_table, team_base, starts, rating, games,
                 np.zeros(n), np.zeros(n, np.int64), np.empty(matches.n_seats, np.int64),
                 np.empty(int(n_t.max()) if n_t.size else 1), float(config.k_start),
                 float(k_slope), float(config.k_final), k_games, float(config.spread),
                 LN10 / float(config.scale), pred, pair_pred, predictions)
    return Ratings("elom", matches.players, rating, games, pred if predictions else None,
                   config, pair_predictions=pair_pred if predictions else None)


# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, GAMES_PLAYED)
