"""Elo ratings with the options real rating lists use (SPEC §1.1).

Expected score ``E_A = 1 / (1 + 10^(-(R_A - R_B + h)/s))``; update
``R' = R + K * M * w * (S - E)`` where ``K`` comes from a schedule, ``M`` is a
margin-of-victory multiplier and ``w`` the game's weight. Options:

* ``cap`` -- the rule of 400: the rating difference used in ``E`` is clipped to
  ``[-cap, cap]`` (bridge thesis §4.1).
* ``advantage`` -- ``h`` points for the first player, except in games flagged neutral.
* K schedules -- ``constant``; ``games`` or ``rating``: a piecewise table of
  ``(upper bound, K)`` rows by games played or by current rating; ``fide``: the table by
  games (40 for the first 30 games, 20 after) and ``fide_k`` (10) once a rating has
  reached ``fide_threshold`` (2400); ``power``: ``K = a / (games + b)^c``
  (FiveThirtyEight tennis: 250 / (games + 5)^0.4).
* margin of victory -- ``fte_nfl``: ``ln(max(pd,1)+1) * 2.2/(0.001 d_w + 2.2)`` (a tie:
  ``ln(max(pd,1)+1) * 2.2``); ``fte_nba``: ``(pd+3)^0.8 / (7.5 + 0.006 d_w)``;
  ``world_football``: 1 for a one-goal win or a draw, 1.5 for two goals,
  ``(11+N)/8`` for N >= 3. ``d_w`` is the rating difference used in ``E`` (advantage
  included) from the winner's side (0 for a draw in ``fte_nba``).
* ``regression`` -- at a player's first game in a new period (season), his rating
  moves that fraction toward ``regression_mean``: ``R = (1-f) R + f * mean``
  (FiveThirtyEight NFL: f = 1/3 toward 1505; NBA: 0.25).
* resets -- explicit ``(player, period or time, value)`` rows that replace a player's
  rating before his first game at or after that period/time (they win over regression).
* ``update="period"`` -- accumulate ``K (S - E)`` over each rating period with the
  ratings fixed at the start of the period, and apply the sums at its end.

Sources: Elo (1978); FIDE Handbook B.02 §8.56 (K factors); FiveThirtyEight's NFL and
NBA methodology; eloratings.net (World Football Elo); bridge thesis §2.1, §4.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._threads import run_beside
from fastrate._validate import (
    as_1d,
    as_float64,
    check_choice,
    check_number,
    check_type,
    format_value,
    require,
)
from fastrate.data import Games, PlayerState, Ratings
from fastrate.data.match_types import world_football_k  # re-exported: fastrate.elo's API
from fastrate.data.state import FIDE_REACHED, GAMES_PLAYED, LAST_PERIOD, RATING
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import (
    LN10,
    PREFETCH,
    best_of_probability,
    game_probability,
    games_column,
    logistic,
    prefetch_row,
    rating_lead,
    table_value,
)
from fastrate.ratings._common import expected_score as _expected_score
from fastrate.ratings._steps import EloStep

__all__ = ["EloConfig", "rate", "expected_score", "world_football_k", "K_SCHEDULES", "MARGIN_MODELS"]

K_SCHEDULES = ("constant", "games", "rating", "fide", "power")
MARGIN_MODELS = ("none", "fte_nfl", "fte_nba", "world_football")
UPDATES = ("game", "period")
NEWCOMERS = ("fixed", "opponent")
MAX_BEST_OF = 99  #: the longest match format (best of 99 games)

_INF = math.inf
#: the ranges of EloConfig's parameters: no real rating list comes near them, and within
#: them no parameter alone can overflow a rating (a game's change is at most
#: K * margin multiplier * weight; K of the power schedule at most a / b^c <= 1e12)
MAX_K = 1e6  #: K (and fide_k, a K of k_table, the power schedule's a): [0, 1e6]
MIN_SCALE, MAX_SCALE = 1e-3, 1e9  #: scale: [1e-3, 1e9]
MAX_RATING = 1e9  #: |initial_rating|, |advantage|, |regression_mean|: at most 1e9
MIN_POWER_B = 1e-3  #: b of the power schedule: [1e-3, 1e9]
MAX_POWER_C = 2.0  #: c of the power schedule: [0, 2]
#: FIDE's K by games played: 40 for the first 30 games, 20 after
_FIDE_TABLE = ((30.0, 40.0), (_INF, 20.0))


@dataclass(frozen=True)
class EloConfig:
    """Parameters of an Elo run (all validated on construction)."""

    k: float = 32.0
    scale: float = 400.0
    initial_rating: float = 1500.0
    advantage: float = 0.0
    cap: float | None = None
    k_schedule: str = "constant"
    #: ``(upper bound, K)`` rows, bounds increasing, the last one ``inf``; used by the
    #: ``games`` and ``rating`` schedules and (by games) by ``fide``
    k_table: tuple[tuple[float, float], ...] = ()
    #: ``(a, b, c)`` of ``K = a / (games + b)^c`` for the ``power`` schedule
    k_power: tuple[float, float, float] = (250.0, 5.0, 0.4)
    fide_threshold: float = 2400.0
    fide_k: float = 10.0
    margin: str = "none"
    regression: float = 0.0
    regression_mean: float | None = None
    update: str = "game"
    #: context ratings (a rating per context: tennis surface, venue, game mode; the
    #: games' ``context`` column): the prediction uses
    #: ``(1 - w) * overall + w * context rating`` (FiveThirtyEight's tennis blend: 0.5)
    context_weight: float = 0.0
    #: the context ratings' K: this factor times the schedule's K at the player's games
    #: in that context
    context_k: float = 1.0
    #: match format: the ratings predict best-of-``best_of`` matches; a game whose
    #: ``best_of`` column says otherwise gets ``P_n(P_ref^-1(E))`` (0: off)
    best_of: int = 0
    #: the result the update uses: ``(1 - f) * score + f * points share`` (the first
    #: player's share of the points, e.g. games won in tennis; the games' ``share``)
    points_share: float = 0.0
    #: where a player with no games starts: ``fixed`` (``initial_rating``, or the games'
    #: ``entry`` rating when they have one) or ``opponent`` (his first opponent's rating
    #: plus ``newcomer_offset``)
    newcomer: str = "fixed"
    newcomer_offset: float = 0.0

    def __post_init__(self) -> None:
        # ranges wide enough for any real rating list and narrow enough that no
        # parameter alone can overflow a rating (docs/algorithms/elo.md, "Ranges")
        o = "EloConfig"
        check_number(o, "k", self.k, lo=0.0, hi=MAX_K)
        check_number(o, "scale", self.scale, lo=MIN_SCALE, hi=MAX_SCALE)
        check_number(o, "initial_rating", self.initial_rating, lo=-MAX_RATING, hi=MAX_RATING)
        check_number(o, "advantage", self.advantage, lo=-MAX_RATING, hi=MAX_RATING)
        if self.cap is not None:
            check_number(o, "cap", self.cap, lo=0.0, hi=_INF, lo_open=True)
        check_choice(o, "k_schedule", self.k_schedule, K_SCHEDULES)
        check_choice(o, "margin", self.margin, MARGIN_MODELS)
        check_choice(o, "update", self.update, UPDATES)
        check_number(o, "regression", self.regression, lo=0.0, hi=1.0)
        if self.regression_mean is not None:
            check_number(o, "regression_mean", self.regression_mean, lo=-MAX_RATING,
                         hi=MAX_RATING)
        check_number(o, "context_weight", self.context_weight, lo=0.0, hi=1.0)
        check_number(o, "context_k", self.context_k, lo=0.0, hi=MAX_K)
        check_number(o, "best_of", self.best_of, lo=0, hi=MAX_BEST_OF, integer=True)
        if self.best_of and self.best_of % 2 == 0:
            raise ConfigError(f"'best_of' of EloConfig must be 0 (off) or an odd number of "
                              f"games (1, 3, 5 ...); got {self.best_of}")
        check_number(o, "points_share", self.points_share, lo=0.0, hi=1.0)
        check_choice(o, "newcomer", self.newcomer, NEWCOMERS)
        check_number(o, "newcomer_offset", self.newcomer_offset, lo=-MAX_RATING,
                     hi=MAX_RATING)
        if self.update == "period" and self.context_weight > 0:
            raise ConfigError("context_weight of EloConfig works game by game: use "
                              "update='game' with context ratings")
        check_number(o, "fide_threshold", self.fide_threshold)
        check_number(o, "fide_k", self.fide_k, lo=0.0, hi=MAX_K)
        if not isinstance(self.k_power, (tuple, list)) or len(self.k_power) != 3:
            raise ConfigError(f"'k_power' of EloConfig must be (a, b, c); got {self.k_power!r}")
        check_number(o, "k_power[0]", self.k_power[0], lo=0.0, hi=MAX_K)
        check_number(o, "k_power[1]", self.k_power[1], lo=MIN_POWER_B, hi=MAX_RATING)
        check_number(o, "k_power[2]", self.k_power[2], lo=0.0, hi=MAX_POWER_C)
        if self.k_schedule in ("games", "rating", "fide"):
            table = self.k_table or _FIDE_TABLE if self.k_schedule == "fide" else self.k_table
            if not table:
                raise ConfigError(f"k_schedule={self.k_schedule!r} needs 'k_table' of EloConfig: "
                                  "rows of (upper bound, K), e.g. ((30, 40), (inf, 20))")
            bounds = []
            for row in table:
                if len(row) != 2:
                    raise ConfigError(f"'k_table' of EloConfig rows must be (upper bound, K); "
                                      f"got {row!r}")
                check_number(o, "k_table bound", row[0], lo=-_INF, hi=_INF)
                check_number(o, "k_table K", row[1], lo=0.0, hi=MAX_K)
                bounds.append(float(row[0]))
            if any(b2 <= b1 for b1, b2 in zip(bounds, bounds[1:])):
                raise ConfigError(f"'k_table' of EloConfig bounds must increase; got {bounds}")
            if bounds[-1] != _INF:
                raise ConfigError("'k_table' of EloConfig must end with an (inf, K) row so every "
                                  f"value has a K; last bound is {bounds[-1]}")

    @property
    def continuable(self) -> bool:
        """Whether a run can continue from saved state (``initial=``, chunks): not with
        context ratings, which the saved state does not hold."""
        return self.context_weight == 0

    # -- presets from real rating lists ---------------------------------------------

    @classmethod
    def fide(cls, **kw: Any) -> EloConfig:
        """FIDE: K 40 for the first 30 games, 20 after, 10 once a rating reached 2400."""
        return cls(**{"k_schedule": "fide", "k_table": _FIDE_TABLE, **kw})

    @classmethod
    def fivethirtyeight_nfl(cls, **kw: Any) -> EloConfig:
        """FiveThirtyEight NFL: K 20, home 65, their margin multiplier, 1/3 toward 1505."""
        return cls(**{"k": 20.0, "advantage": 65.0, "margin": "fte_nfl", "regression": 1 / 3,
                      "regression_mean": 1505.0, **kw})

    @classmethod
    def fivethirtyeight_nba(cls, **kw: Any) -> EloConfig:
        """FiveThirtyEight NBA: K 20, home 100, their margin multiplier, 1/4 toward 1505."""
        return cls(**{"k": 20.0, "advantage": 100.0, "margin": "fte_nba", "regression": 0.25,
                      "regression_mean": 1505.0, **kw})

    @classmethod
    def fivethirtyeight_tennis(cls, **kw: Any) -> EloConfig:
        """FiveThirtyEight tennis: ``K = 250 / (games + 5)^0.4``."""
        return cls(**{"k_schedule": "power", "k_power": (250.0, 5.0, 0.4), **kw})

    @classmethod
    def world_football(cls, **kw: Any) -> EloConfig:
        """World Football Elo (eloratings.net): K 40, home 100, goal-difference multiplier.

        The match type's K (20 friendlies ... 60 World Cup finals) goes in as the games'
        ``weight`` relative to 40: ``weight = world_football_k(tournament) / 40`` (the
        bundled football example carries exactly that weight).
        """
        return cls(**{"k": 40.0, "advantage": 100.0, "margin": "world_football", **kw})


# ----------------------------------------------------------------------------------
# kernels

_K_MODE = {name: i for i, name in enumerate(K_SCHEDULES)}
_MOV_MODE = {name: i for i, name in enumerate(MARGIN_MODELS)}


class _EloParams(NamedTuple):
    """The scalars of :func:`_elo_kernel` (one compiled specialisation for every config)."""

    k: float  #: K of the constant schedule
    k_mode: int  #: index of the K schedule in K_SCHEDULES
    pa: float  #: ``a`` of the power schedule ``K = a / (games + b)^c``
    pb: float  #: ``b`` of the power schedule
    pc: float  #: ``c`` of the power schedule
    fide_threshold: float  #: the rating from which FIDE's K is ``fide_k``
    fide_k: float
    factor: float  #: ``ln(10) / scale``
    cap: float  #: the rule of 400's cap (0: none)
    advantage: float
    mov_mode: int  #: index of the margin model in MARGIN_MODELS
    regression: float  #: the fraction moved toward ``regression_mean`` in a new period
    regression_mean: float
    by_period: bool  #: ``update="period"``
    context_weight: float  #: the context rating's share of the prediction
    context_k: float  #: the context ratings' K factor
    n_context: int  #: contexts per player in ``ctx_rating`` (0: no context ratings)
    best_of: int  #: the match format the ratings predict (0: off)
    points_share: float  #: the points share's part of the result
    newcomer: int  #: index of the newcomer rule in NEWCOMERS
    newcomer_offset: float


@inline_kernel
def _k_factor(params, games, rating, reached, bounds, values):
    """A player's K under the schedule of ``params``: constant, from the ``(bound, K)``
    table by games played or rating, FIDE's (``fide_k`` once 2400 was reached) or the
    power schedule."""
    mode = params.k_mode
    if mode == 0:
        return params.k
    if mode == 4:
        return params.pa / (games + params.pb) ** params.pc
    if mode == 3 and reached:
        return params.fide_k
    return table_value(rating if mode == 2 else float(games), bounds, values)


@inline_kernel
def _margin_multiplier(mode, margin, d, s):
    if mode == 0:
        return 1.0
    pd = abs(margin)
    if mode == 1:
        base = math.log(max(pd, 1.0) + 1.0) * 2.2
        if s == 0.5:
            return base
        dw = d if s > 0.5 else -d
        return base / (0.001 * dw + 2.2)
    if mode == 2:
        dw = d if s > 0.5 else (-d if s < 0.5 else 0.0)
        return (pd + 3.0) ** 0.8 / (7.5 + 0.006 * dw)
    if pd <= 1.0:
        return 1.0
    if pd <= 2.0:
        return 1.5
    return (11.0 + pd) / 8.0


@inline_kernel
def _given(input_row, weight, neutral, period, pre_white):
    """Which optional per-game arrays the Elo kernels got (an absent one has length 0):
    input rows, weights, neutral flags, periods, pre-game records."""
    return (input_row.shape[0] > 0, weight.shape[0] > 0, neutral.shape[0] > 0,
            period.shape[0] > 0, pre_white.shape[0] > 0)


@inline_kernel
def _newcomer_rating(params, me, other, games_played, rating, entry, i):
    """Where player ``me`` (no games yet) starts in game ``i``: the game's ``entry``
    rating when given, else (``newcomer="opponent"``) his opponent's rating plus the
    offset when the opponent has played, else his current (initial) rating."""
    if entry.shape[0] > 0 and not math.isnan(entry[i]):
        return entry[i]
    if params.newcomer == 1 and games_played[other] > 0:
        return rating[other] + params.newcomer_offset
    return rating[me]


@kernel
def _elo_kernel(white, black, score, weight, margin, neutral, period,
                rating, games_played, last_period, reached,
                reset_game, reset_player, reset_value, bounds, values, params,
                pending, stamp, touched, pred, pre_white, pre_black, input_row,
                context, best_of, share, entry, ctx_rating, ctx_games):
    """Elo over games in order, with the options of ``params`` (an :class:`_EloParams`;
    ``bounds``/``values``: the K table). Per-game arrays ``weight``, ``margin``,
    ``neutral``, ``period``, ``context``, ``best_of``, ``share`` and ``entry`` may have
    length 0 (absent); ``pending``/``stamp``/``touched`` are scratch (length n_players)
    used only when ``params.by_period``; ``ctx_rating``/``ctx_games`` hold each player's
    rating and games in each of ``params.n_context`` contexts (row-major). Writes
    ``pred`` (and, when they have length n, the pre-game ratings
    ``pre_white``/``pre_black``) at each game's input row ``input_row[i]`` (length 0: the
    stored order is the input order) and updates the per-player state in place."""
    k_mode = params.k_mode
    fide_threshold = params.fide_threshold
    regression = params.regression
    regression_mean = params.regression_mean
    by_period = params.by_period
    n = white.shape[0]
    has_r, has_w, has_n, has_p, record = _given(input_row, weight, neutral, period, pre_white)
    has_m = margin.shape[0] > 0
    has_pred = pred.shape[0] > 0
    has_bo = best_of.shape[0] > 0 and params.best_of > 0
    has_share = share.shape[0] > 0 and params.points_share > 0.0
    n_ctx = params.n_context if context.shape[0] > 0 else 0
    cw = params.context_weight
    newcomers = entry.shape[0] > 0 or params.newcomer != 0
    no_period = np.iinfo(np.int64).min
    n_res = reset_game.shape[0]
    rp = 0
    n_touched = 0
    flushes = 0
    cur = period[0] if (has_p and n > 0) else 0
    for i in range(n):
        p = period[i] if has_p else 0
        if by_period and p != cur:
            for t in range(n_touched):
                q = touched[t]
                rating[q] += pending[q]
                pending[q] = 0.0
                if k_mode == 3 and rating[q] >= fide_threshold:
                    reached[q] = True
            n_touched = 0
            flushes += 1
            cur = p
        a = white[i]
        b = black[i]
        row = input_row[i] if has_r else i  # where this game's outputs go
        if newcomers:  # before regression and resets, which win over it
            new_a = games_played[a] == 0
            new_b = games_played[b] == 0
            if new_a:
                rating[a] = _newcomer_rating(params, a, b, games_played, rating, entry, i)
            if new_b:
                rating[b] = _newcomer_rating(params, b, a, games_played, rating, entry, i)
        if regression > 0.0:
            if last_period[a] != no_period and p > last_period[a]:
                rating[a] = rating[a] * (1.0 - regression) + regression * regression_mean
            if last_period[b] != no_period and p > last_period[b]:
                rating[b] = rating[b] * (1.0 - regression) + regression * regression_mean
        while rp < n_res and reset_game[rp] == i:
            q = reset_player[rp]
            rating[q] = reset_value[rp]
            if by_period:
                # a reset replaces the rating: changes pending from earlier games of this
                # period are dropped, as they are overwritten game by game
                pending[q] = 0.0
            rp += 1
        if k_mode == 3:
            # a rating raised to the threshold by regression or a reset has reached it
            if rating[a] >= fide_threshold:
                reached[a] = True
            if rating[b] >= fide_threshold:
                reached[b] = True
        last_period[a] = p
        last_period[b] = p
        if record:
            pre_white[row] = rating[a]
            pre_black[row] = rating[b]
        ra = rating[a]
        rb = rating[b]
        in_ctx = n_ctx > 0 and context[i] >= 0  # (-1: no context for this game)
        ca = cb = 0
        if in_ctx:
            ca = a * n_ctx + context[i]
            cb = b * n_ctx + context[i]
            if ctx_games[ca] == 0:
                ctx_rating[ca] = ra  # a first game in this context starts from the overall
            if ctx_games[cb] == 0:
                ctx_rating[cb] = rb
            ra = (1.0 - cw) * ra + cw * ctx_rating[ca]
            rb = (1.0 - cw) * rb + cw * ctx_rating[cb]
        d = rating_lead(ra - rb, not (has_n and neutral[i]), params.advantage, params.cap)
        e = logistic(d, params.factor)
        if has_bo and best_of[i] != params.best_of:
            e = best_of_probability(game_probability(e, params.best_of), best_of[i])
        if has_pred:
            pred[row] = e
        s = score[i]
        ka = _k_factor(params, games_played[a], rating[a], reached[a], bounds, values)
        kb = _k_factor(params, games_played[b], rating[b], reached[b], bounds, values)
        mult = _margin_multiplier(params.mov_mode, margin[i] if has_m else 0.0, d, s)
        if has_w:
            mult *= weight[i]
        if has_share:  # the result the update uses: part score, part share of the points
            s = (1.0 - params.points_share) * s + params.points_share * share[i]
        diff = mult * (s - e)
        if in_ctx:
            kca = params.context_k * _k_factor(params, ctx_games[ca], ctx_rating[ca],
                                               reached[a], bounds, values)
            kcb = params.context_k * _k_factor(params, ctx_games[cb], ctx_rating[cb],
                                               reached[b], bounds, values)
            ctx_rating[ca] += kca * diff
            ctx_rating[cb] -= kcb * diff
            ctx_games[ca] += 1
            ctx_games[cb] += 1
        if by_period:
            pending[a] += ka * diff
            pending[b] -= kb * diff
            if stamp[a] != flushes:
                stamp[a] = flushes
                touched[n_touched] = a
                n_touched += 1
            if stamp[b] != flushes:
                stamp[b] = flushes
                touched[n_touched] = b
                n_touched += 1
        else:
            rating[a] += ka * diff
            rating[b] -= kb * diff
            if k_mode == 3:
                if rating[a] >= fide_threshold:
                    reached[a] = True
                if rating[b] >= fide_threshold:
                    reached[b] = True
        games_played[a] += 1
        games_played[b] += 1
    for t in range(n_touched):
        q = touched[t]
        rating[q] += pending[q]
        pending[q] = 0.0


@kernel
def _elo_simple_kernel(white, black, score, weight, neutral, period, rating, games_played,
                       last_period, step, pred, pre_white, pre_black, input_row):
    """The common case, kept branch-light: constant K, no margin model, no regression,
    no resets, game-by-game (``step``: an :class:`~fastrate.ratings._steps.EloStep`).
    Same arithmetic and outputs as :func:`_elo_kernel`."""
    k, factor, cap, advantage = step
    n = white.shape[0]
    has_r, has_w, has_n, has_p, record = _given(input_row, weight, neutral, period, pre_white)
    has_pred = pred.shape[0] > 0
    for i in range(n):
        a = white[i]
        b = black[i]
        row = input_row[i] if has_r else i  # where this game's outputs go
        if record:
            pre_white[row] = rating[a]
            pre_black[row] = rating[b]
        # the step of fastrate.ratings._steps.elo_game, written out: through the helper
        # this loop ran 3-9% slower
        d = rating_lead(rating[a] - rating[b], not (has_n and neutral[i]), advantage, cap)
        e = logistic(d, factor)
        if has_pred:
            pred[row] = e
        diff = score[i] - e
        if has_w:
            diff *= weight[i]
        rating[a] += k * diff
        rating[b] -= k * diff
        games_played[a] += 1
        games_played[b] += 1
        if has_p:
            last_period[a] = period[i]
            last_period[b] = period[i]


#: the final-ratings path packs games played (low 32 bits) and the last period seen
#: (high bits: period - first period + 1; 0 = none in this run) in one int64
_LOW32 = (1 << 32) - 1


@kernel
def _elo_final_kernel(white, black, score, weight, neutral, period, p0, rec, packed, step):
    """:func:`_elo_simple_kernel` for final ratings only: no per-game outputs, and all
    of a player's state in one 16-byte record, ``rec[p, 0]`` his rating and
    ``packed[p, 1]`` (the same memory seen as int64) his games played and, with periods,
    his last period (see :data:`_LOW32`); the records of the games ``PREFETCH`` ahead
    are prefetched. At a million players the ratings no longer fit in the caches: a
    second per-player array (games played) beside the ratings made this loop 3x slower,
    in C as in Numba, while a second field in the same cache line costs little. Same
    arithmetic as the other kernels, so the same ratings to the bit."""
    k, factor, cap, advantage = step
    n = white.shape[0]
    has_w = weight.shape[0] > 0
    has_n = neutral.shape[0] > 0
    has_p = period.shape[0] > 0
    for i in range(n):
        if i + PREFETCH < n:
            prefetch_row(rec, white[i + PREFETCH])
            prefetch_row(rec, black[i + PREFETCH])
        a = np.uint64(white[i])
        b = np.uint64(black[i])
        d = rating_lead(rec[a, 0] - rec[b, 0], not (has_n and neutral[i]), advantage, cap)
        diff = score[i] - logistic(d, factor)
        if has_w:
            diff *= weight[i]
        rec[a, 0] += k * diff
        rec[b, 0] -= k * diff
        if has_p:
            hi = (period[i] - p0 + 1) << 32
            packed[a, 1] = hi | ((packed[a, 1] & _LOW32) + 1)
            packed[b, 1] = hi | ((packed[b, 1] & _LOW32) + 1)
        else:
            packed[a, 1] += 1
            packed[b, 1] += 1


@inline_kernel
def _ratings_loop(white, black, score, weight, neutral, rating, step, lead):
    """The loop of :func:`_elo_ratings_kernel`; ``lead`` (a constant at each call site,
    so LLVM drops what it turns off) False leaves out the advantage and the cap, which
    change nothing when both are 0 (``d + 0.0`` and ``d`` give the same expected
    score). Player numbers are read as unsigned: no negative-index fix-up per access
    (they were checked to lie in ``[0, n_players)`` at the API boundary)."""
    k, factor, cap, advantage = step
    n = white.shape[0]
    has_w = weight.shape[0] > 0
    has_n = neutral.shape[0] > 0
    for i in range(n):
        if i + PREFETCH < n:
            prefetch_row(rating, white[i + PREFETCH])
            prefetch_row(rating, black[i + PREFETCH])
        a = np.uint64(white[i])
        b = np.uint64(black[i])
        d = rating[a] - rating[b]
        if lead:
            d = rating_lead(d, not (has_n and neutral[i]), advantage, cap)
        diff = score[i] - logistic(d, factor)
        if has_w:
            diff *= weight[i]
        rating[a] += k * diff
        rating[b] -= k * diff


@kernel
def _elo_ratings_kernel(white, black, score, weight, neutral, rating, step):
    """:func:`_elo_final_kernel` without games played or periods: the ratings alone, in
    one 8-byte array (the minimal loop), prefetched ``PREFETCH`` games ahead.
    :func:`_played_kernel` counts the games beside it (see :func:`_rate_final`). Same
    arithmetic, so the same ratings to the bit."""
    if step.advantage == 0.0 and step.cap <= 0.0:
        _ratings_loop(white, black, score, weight, neutral, rating, step, False)
    else:
        _ratings_loop(white, black, score, weight, neutral, rating, step, True)


@kernel
def _played_kernel(white, black, period, p0, packed):
    """Games played and last periods of the final-ratings path, packed as in
    :func:`_elo_final_kernel` (``packed[p]``: see :data:`_LOW32`), without the ratings.
    Without periods, ``packed`` may be the games played themselves (counted on)."""
    n = white.shape[0]
    if period.shape[0] > 0:
        for i in range(n):
            a = np.uint64(white[i])
            b = np.uint64(black[i])
            hi = (period[i] - p0 + 1) << 32
            packed[a] = hi | ((packed[a] & _LOW32) + 1)
            packed[b] = hi | ((packed[b] & _LOW32) + 1)
    else:
        for i in range(n):
            packed[np.uint64(white[i])] += 1
            packed[np.uint64(black[i])] += 1


#: the final-ratings path splits the ratings from the counts (:func:`_elo_ratings_kernel`
#: and :func:`_played_kernel`) up to this many players: their 8-byte ratings (1 MiB)
#: then fit in a core's L2 (1 MiB on the machine of docs/performance.md), where the
#: 16-byte records of :func:`_elo_final_kernel` do not; above it, one record per player
_SPLIT_MAX_PLAYERS = 1 << 17
#: from this many games the split path counts on a second thread while the ratings run
#: (when Numba may use two threads); below it a thread costs more than it saves
_SPLIT_THREAD_MIN_GAMES = 1 << 16


def _rate_final(games: Games, state: PlayerState, period: np.ndarray,
                step: EloStep) -> bool:
    """Final ratings through :func:`_elo_final_kernel` (or, up to
    :data:`_SPLIT_MAX_PLAYERS` players, :func:`_elo_ratings_kernel` with
    :func:`_played_kernel` beside it, on a second thread when Numba has two), updating
    ``state`` in place; False (nothing done) when the counts or the period range do not
    fit their packing. Every layout and thread count gives the same bits."""
    n = len(state.players)
    p0 = 0
    if period.shape[0]:
        p0 = int(period[0])
        if int(period[-1]) - p0 + 1 >= 1 << 30:
            return False
    if n and int(state.games_played.max()) + 2 * games.n_games >= 1 << 31:
        return False
    weight = _EMPTY_F if games.weight is None else games.weight
    neutral = _EMPTY_B if games.neutral is None else games.neutral
    if n <= _SPLIT_MAX_PLAYERS:
        gp = state.games_played
        direct = not period.shape[0] and gp.dtype == np.int64 and gp.flags.c_contiguous
        # without periods the counts go straight into the games played
        packed = gp if direct else require(gp, np.int64).copy()
        rating = state.rating

        def ratings() -> None:
            _elo_ratings_kernel(games.white, games.black, games.score, weight, neutral,
                                rating, step)

        def played() -> None:
            _played_kernel(games.white, games.black, period, p0, packed)

        if games.n_games >= _SPLIT_THREAD_MIN_GAMES and numba.get_num_threads() >= 2:
            run_beside(ratings, played)  # (the kernels release the GIL)
        else:
            ratings()
            played()
        if direct:
            return True
    else:
        rec = np.empty((n, 2), dtype=np.float64)
        packed = rec.view(np.int64)
        rec[:, 0] = state.rating
        packed[:, 1] = state.games_played
        _elo_final_kernel(games.white, games.black, games.score, weight, neutral,
                          period, p0, rec, packed, step)
        state.rating[:] = rec[:, 0]
        packed = packed[:, 1]
    state.games_played[:] = packed & _LOW32
    if period.shape[0]:
        hi = packed >> 32
        played_here = hi > 0
        state.last_period[played_here] = hi[played_here] - 1 + p0
    return True


# ----------------------------------------------------------------------------------
# public API

_EMPTY_F = np.zeros(0, dtype=np.float64)
_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_B = np.zeros(0, dtype=np.bool_)


def expected_score(rating_a: Any, rating_b: Any, config: EloConfig = EloConfig(),
                   neutral: Any = False) -> np.ndarray:
    """Expected score of A against B under ``config`` (advantage to A unless neutral,
    difference capped at ``config.cap``). NumPy-vectorised."""
    d = np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)
    d = d + np.where(np.asarray(neutral, dtype=bool), 0.0, config.advantage)
    if config.cap is not None:
        d = np.clip(d, -config.cap, config.cap)
    return _expected_score(d, 0.0, config.scale)


def _resolve_resets(resets: Any, games: Games) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Explicit rating resets -> (game index, player id, value) sorted by game index.

    ``resets`` is a table (pyarrow/pandas/polars/dict) with columns ``player``, ``value``
    (or ``rating``) and ``period`` (a label of the games' period column) or ``time``.
    A reset applies before the player's first game at or after that period/time; one
    with no such game is ignored.
    """
    from fastrate._validate import to_arrow_table

    table = to_arrow_table(resets)
    cols = table.column_names
    value_col = "value" if "value" in cols else "rating" if "rating" in cols else None
    if "player" not in cols or value_col is None or not ({"period", "time"} & set(cols)):
        raise InputError("rating resets need columns 'player', 'value' and 'period' or 'time'; "
                         f"found {', '.join(cols)}")
    names = table.column("player").to_numpy(zero_copy_only=False).tolist()
    values = as_float64(table.column(value_col), value_col)
    if "period" in cols:
        if games.period is None:
            raise InputError("resets by 'period' need games with a period column")
        raw = as_1d(table.column("period"), "period")
        if games.period_labels is not None:
            lookup = {v: i for i, v in enumerate(games.period_labels.tolist())}
            at = np.array([lookup.get(v, np.iinfo(np.int64).max) for v in raw.tolist()],
                          dtype=np.int64)
        else:
            at = raw.astype(np.int64)
        key = games.period
    else:
        if games.time is None:
            raise InputError("resets by 'time' need games with a time column")
        from fastrate.data import parse_time

        at = parse_time(table.column("time"), "time")
        key = games.time
    g_idx, p_idx, vals = [], [], []
    lookup_p = games.players.lookup
    for j, name in enumerate(names):
        pid = lookup_p.get(name)
        if pid is None:
            continue
        mine = np.flatnonzero(((games.white == pid) | (games.black == pid)) & (key >= at[j]))
        if mine.shape[0]:
            g_idx.append(int(mine[0]))
            p_idx.append(pid)
            vals.append(float(values[j]))
    order = np.argsort(np.array(g_idx, dtype=np.int64), kind="stable")
    return (np.array(g_idx, dtype=np.int64)[order], np.array(p_idx, dtype=np.int64)[order],
            np.array(vals, dtype=np.float64)[order])


def rate(games: Games, config: EloConfig = EloConfig(), initial: Any = None,
         resets: Any = None, record_pregame: bool = False,
         predictions: bool = True) -> Ratings:
    """Rate ``games`` with Elo; return final ratings and every pre-game prediction.

    ``initial`` sets starting ratings (see :meth:`fastrate.data.PlayerState.resolve`);
    ``resets`` replaces ratings at given periods/times (see :func:`_resolve_resets`).
    ``record_pregame=True`` also returns both players' ratings before every game (after
    any regression or reset, before the update; advantage not included) as
    ``Ratings.pre_white`` / ``Ratings.pre_black``, in input order.
    ``predictions=False``: final ratings only (``Ratings.predictions`` is None), the
    fastest path when nobody reads the per-game values; the ratings are the same bits.
    """
    check_type(games, Games, "rate() needs a fastrate.Games", "build one with Games.from_arrays or read_games")
    check_type(config, EloConfig, "config must be an EloConfig")
    out = _rate(games, config, initial, resets, record_pregame, predictions)
    if not (_all_finite(out.rating) and (out.predictions is None
                                         or _all_finite(out.predictions))):
        raise _overflow_error(games, config, initial, resets)
    return out


def _all_finite(x: np.ndarray) -> bool:
    """Whether every value is finite: a sum (no temporary array) is finite if they are,
    and only when it is not are the values looked at one by one."""
    with np.errstate(over="ignore", invalid="ignore"):
        return math.isfinite(float(np.sum(x))) or bool(np.isfinite(x).all())


def _overflow_error(games: Games, config: EloConfig, initial: Any, resets: Any) -> InputError:
    """The error for a run whose ratings overflowed (huge weights or margins times K):
    the first game after which a rating is not finite, found by bisecting on prefixes
    of the games (only on this failure path), named with its row and players."""
    lo, hi = 0, games.n_games  # the first `hi` games overflow, the first `lo` do not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r = _rate(games.head(mid), config, initial, resets, False, True)
        if _all_finite(r.rating) and _all_finite(r.predictions):
            lo = mid
        else:
            hi = mid
    g = hi - 1  # the game that overflowed
    r = _rate(games.head(hi), config, initial, resets, False, True)
    names = [games.players[games.white[g]], games.players[games.black[g]]]
    rating = [float(r.rating[r.players.lookup[n]]) for n in names]
    row = g if games.order is None else int(games.order[g])
    weight = "" if games.weight is None else f", weight {float(games.weight[g]):g}"
    margin = "" if games.margin is None else f", margin {float(games.margin[g]):g}"
    return InputError(
        f"Elo ratings overflowed at {games.source.where(row)}: {format_value(names[0])} "
        f"against {format_value(names[1])} left ratings {rating[0]!r} and {rating[1]!r} "
        f"(K {config.k:g}{weight}{margin}); a game changes a rating by up to K x margin "
        "multiplier x weight: lower K, the weights or the margins")


def _lever_columns(games: Games, config: EloConfig
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The per-game columns the modelling levers of ``config`` read, each empty when
    unused: context codes (and the number of contexts), match formats, points shares and
    entry ratings. A lever that needs a column the games lack is refused."""
    def need(name: str, what: str) -> np.ndarray:
        return games_column(games, name, what)

    context = best_of = share = _EMPTY_I
    n_context = 0
    if config.context_weight > 0:
        context = need("context", "context_weight")
        n_context = max(len(games.context_labels), 1)  # (labels always come with codes)
    if config.best_of > 0:
        best_of = need("best_of", "best_of")
    share = need("share", "points_share") if config.points_share > 0 else _EMPTY_F
    entry = _EMPTY_F if games.entry is None else games.entry
    return context, best_of, share, entry, n_context


def _rate(games: Games, config: EloConfig, initial: Any, resets: Any, record_pregame: bool,
          predictions: bool) -> Ratings:
    """:func:`rate` after its type checks, without the final check for overflow."""
    if config.margin != "none" and games.margin is None:
        raise InputError(f"margin={config.margin!r} needs a margin per game (margin= column, "
                         "or home/away scores)")
    if (config.regression > 0 or config.update == "period") and games.period is None:
        raise InputError("regression and update='period' need rating periods: give the games "
                         "a period (e.g. period='1w' with a time column, or a season column)")
    if initial is not None and not config.continuable:
        raise ConfigError("context ratings (context_weight > 0) are not kept in the saved "
                          "state, so a run with them cannot continue from initial ratings: "
                          "rate the whole history (and read it whole: --chunk-rows 0)")
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating)
    n_players = len(state.players)
    if resets is not None:
        reset_game, reset_player, reset_value = _resolve_resets(resets, games)
    else:
        reset_game, reset_player, reset_value = _EMPTY_I, _EMPTY_I, _EMPTY_F
    table = config.k_table
    if config.k_schedule == "fide" and not table:
        table = _FIDE_TABLE
    bounds = np.array([r[0] for r in table] or [_INF], dtype=np.float64)
    values = np.array([r[1] for r in table] or [config.k], dtype=np.float64)
    fide = config.k_schedule == "fide"
    reached = state.rating >= config.fide_threshold if fide \
        else np.zeros(n_players, dtype=np.bool_)
    if fide and state.fide_reached is not None:  # a saved state: reached 2400 before
        reached |= state.fide_reached
    reached = require(reached, np.bool_)
    by_period = config.update == "period"
    m = n_players if by_period else 0
    pending = np.zeros(m, dtype=np.float64)
    stamp = np.full(m, -1, dtype=np.int64)
    touched = np.zeros(m, dtype=np.int64)
    pred = np.empty(games.n_games if predictions else 0, dtype=np.float64)
    n_pre = games.n_games if record_pregame else 0
    pre_white = np.empty(n_pre, dtype=np.float64)
    pre_black = np.empty(n_pre, dtype=np.float64)
    mean = config.initial_rating if config.regression_mean is None else config.regression_mean
    weight = _EMPTY_F if games.weight is None else games.weight
    neutral = _EMPTY_B if games.neutral is None else games.neutral
    period = _EMPTY_I if games.period is None else games.period
    # outputs go straight to input order (no scatter pass afterwards)
    input_row = _EMPTY_I if games.order is None else require(games.order, np.int64)
    context, best_of, share, entry, n_context = _lever_columns(games, config)
    ctx_rating = np.zeros(n_players * n_context, dtype=np.float64)
    ctx_games = np.zeros(n_players * n_context, dtype=np.int64)
    levers = (n_context > 0 or best_of.shape[0] > 0 or share.shape[0] > 0
              or entry.shape[0] > 0 or config.newcomer != "fixed")
    simple = (config.k_schedule == "constant" and config.margin == "none"
              and config.regression == 0.0 and reset_game.shape[0] == 0 and not by_period
              and not levers)
    factor, cap, advantage = LN10 / config.scale, float(config.cap or 0.0), float(config.advantage)
    step = EloStep(float(config.k), factor, cap, advantage)
    if simple and not predictions and not record_pregame and _rate_final(
            games, state, period, step):
        pass  # final ratings only, one record per player
    elif simple:
        _elo_simple_kernel(games.white, games.black, games.score, weight, neutral, period,
                           state.rating, state.games_played, state.last_period, step,
                           pred, pre_white, pre_black, input_row)
    else:
        params = _EloParams(
            float(config.k), _K_MODE[config.k_schedule], float(config.k_power[0]),
            float(config.k_power[1]), float(config.k_power[2]), float(config.fide_threshold),
            float(config.fide_k), factor, cap, advantage, _MOV_MODE[config.margin],
            float(config.regression), float(mean), by_period, float(config.context_weight),
            float(config.context_k), n_context, int(config.best_of),
            float(config.points_share), NEWCOMERS.index(config.newcomer),
            float(config.newcomer_offset))
        _elo_kernel(games.white, games.black, games.score, weight,
                    _EMPTY_F if games.margin is None else games.margin, neutral, period,
                    state.rating, state.games_played, state.last_period, reached,
                    reset_game, reset_player, reset_value, bounds, values, params,
                    pending, stamp, touched, pred, pre_white, pre_black, input_row,
                    context, best_of, share, entry, ctx_rating, ctx_games)
    return Ratings(system="elo", players=state.players, rating=state.rating,
                   games_played=state.games_played,
                   predictions=pred if predictions else None, config=config,
                   last_period=state.last_period if games.period is not None else None,
                   pre_white=pre_white if record_pregame else None,
                   pre_black=pre_black if record_pregame else None,
                   fide_reached=reached if fide else None)

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, GAMES_PLAYED, LAST_PERIOD, FIDE_REACHED)
