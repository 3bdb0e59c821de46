"""Stephenson's rating system (SPEC §1.6; R PlayerRatings ``steph``): Glicko with a
second deviation parameter, a per-game bonus and a neighbourhood term.

Alec Stephenson developed it from his winning entry in the 2012 FIDE/Deloitte chess
rating competition on Kaggle (PlayerRatings' ``doc/ChessRatings.pdf``); it is Glicko
(:mod:`fastrate.ratings.glicko`) with three additions. Games are grouped into rating
periods; within a period every game uses the values both players had at its start, and
everyone who played is updated at its end. With ``q = ln(10)/400``,
``g(RD) = 1/sqrt(1 + 3 q^2 RD^2 / pi^2)``:

* **growth** at the onset of the period, for each player who plays:
  ``RD^2 = min(RD^2 + c^2 t, max_rd^2)``, ``t`` the periods since his last rated one
  (``p - L``); a new player's first period counts as one (``first_period_growth``,
  PlayerRatings' convention: on by default);
* each game against ``j`` (``h`` the advantage, added to the first player's rating; none
  in neutral games): ``E_j = 1/(1 + 10^(-g(RD_j)(r + h_j - r_j)/400))`` with ``h_j = h``
  for the first player and ``-h`` for the second;
* at the end of the period, with ``n`` his games in it:
  ``1/d^2 = q^2 sum_j g(RD_j)^2 E_j (1 - E_j)``,
  ``RD'^2 = 1/(1/(RD^2 + n h_dev^2) + 1/d^2)`` (``h_dev`` = PlayerRatings' ``hval``),
  ``r' = r + q RD'^2 sum_j g(RD_j)(s_j + b - E_j) + (lambda/100) sum_j (r_j - r)/n``
  with the bonus ``b = bval/100`` per game (``bonus``) and ``lambda`` the neighbourhood
  weight (``neighbourhood``), which pulls a rating toward the mean of the opponents'
  (``bonus`` and ``neighbourhood`` are given in PlayerRatings' units, divided by 100 as
  there). With ``h_dev = bonus = neighbourhood = 0`` this is Glicko.

The defaults are PlayerRatings': initial rating 2200 and RD 300, ``c = 10``,
``h_dev = 10``, ``bonus = 0``, ``neighbourhood = 2``, ``max_rd = 350``, roughly optimised
by Stephenson for chess by the binomial deviance.

**Predictions**: for every game, the first player's expected score before the period by
Glickman's prediction formula with both deviations (as in :mod:`~fastrate.ratings.glicko`),
``1/(1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a + h - r_b)/400))``.

**Reported values and continuation**: ``rd`` is the RD as of the end of the player's own
last rated period (``last_period``); growth for inactivity is applied when he next
plays. ``RD^2`` is kept as ``rd * rd`` of the reported ``rd``, so continuing from a saved
:class:`Ratings` or its table (Arrow, Parquet, CSV, ``--initial``) gives the full run's
values to the bit.

**Counting only periods with games** (``skip_empty_periods``, PlayerRatings'
convention): ``t = lag + 1`` with ``lag`` the periods with games since the player's
last one (PlayerRatings' ``Lag``, a state column then); see :mod:`fastrate.ratings.glicko`.
**Newcomers**: a player with no games starts from the games' ``entry`` rating and
``entry_rd`` at his first game when given (see :mod:`fastrate.ratings.glicko`).

**Deviations from PlayerRatings**: by default the periods are the data's period numbers,
so idle periods without any games count toward ``t`` (``skip_empty_periods=True`` for
PlayerRatings' count); ``advantage`` applies
to every non-neutral game (PlayerRatings' ``gamma``, a scalar or one value per game).
Games without a period form one rating period. ``weight`` and ``margin`` are not used.

Source: A. Stephenson and J. Sonas, R package PlayerRatings (``steph``; CRAN, 2012-2020),
and its ``doc/ChessRatings.pdf``; M. E. Glickman, "Parameter estimation in large dynamic
paired comparison experiments", Applied Statistics 48 (1999).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games, Ratings
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, RD
from fastrate.ratings._common import (
    BLOCK,
    PREFETCH,
    REC_DELTA,
    REC_INFO,
    REC_LAST,
    REC_LEVEL,
    REC_STAMP,
    REC_VAR,
    exp,
    gather_block,
    prefetch_row,
    records,
    select,
)
from fastrate.ratings.glicko import (
    MAX_RATING,
    MAX_RD,
    MIN_RD,
    FamilyRule,
    check_flag,
    close_family_run,
    family_touch,
    g,
    neutral_flags,
    open_family_run,
)

__all__ = ["StephensonConfig", "rate", "expected_score", "STATE"]

#: the most of ``bonus`` and ``neighbourhood`` (PlayerRatings' units, divided by 100)
MAX_WEIGHT = 100.0


@dataclass(frozen=True)
class StephensonConfig:
    """Parameters of a Stephenson run (all validated on construction); the defaults are
    R PlayerRatings' ``steph``.

    ``c`` (``cval``) grows RD per period since the last rated one, ``h_dev`` (``hval``)
    per game played in a period; ``bonus`` (``bval``) is a per-game bonus and
    ``neighbourhood`` (``lambda``) the pull toward the opponents' mean rating, both in
    PlayerRatings' units (divided by 100 in the update). ``advantage`` (``gamma``, Elo
    points) is added to the first player's rating in every non-neutral game;
    ``max_rd`` (``rdmax``) caps RD after the growth; ``first_period_growth`` grows a
    new player's RD by ``c`` before his first period (PlayerRatings: always);
    ``skip_empty_periods`` counts only the periods that have games toward ``t``
    (PlayerRatings: always; the state gets a ``lag`` column).
    """

    initial_rating: float = 2200.0
    initial_rd: float = 300.0
    c: float = 10.0
    h_dev: float = 10.0
    bonus: float = 0.0
    neighbourhood: float = 2.0
    advantage: float = 0.0
    max_rd: float = 350.0
    first_period_growth: bool = True
    skip_empty_periods: bool = False

    def __post_init__(self) -> None:
        o = "StephensonConfig"
        check_number(o, "initial_rating", self.initial_rating, lo=-MAX_RATING, hi=MAX_RATING)
        check_number(o, "initial_rd", self.initial_rd, lo=MIN_RD, hi=MAX_RD)
        check_number(o, "c", self.c, lo=0.0, hi=MAX_RD)
        check_number(o, "h_dev", self.h_dev, lo=0.0, hi=MAX_RD)
        check_number(o, "bonus", self.bonus, lo=0.0, hi=MAX_WEIGHT)
        check_number(o, "neighbourhood", self.neighbourhood, lo=0.0, hi=MAX_WEIGHT)
        check_number(o, "advantage", self.advantage, lo=-MAX_RATING, hi=MAX_RATING)
        check_number(o, "max_rd", self.max_rd, lo=MIN_RD, hi=MAX_RD)
        check_flag(o, "first_period_growth", self.first_period_growth)
        check_flag(o, "skip_empty_periods", self.skip_empty_periods)

    @classmethod
    def glicko(cls, **kw: Any) -> StephensonConfig:
        """Glicko as a special case (``h_dev = bonus = neighbourhood = 0``), with
        PlayerRatings' other defaults.

        >>> StephensonConfig.glicko().neighbourhood
        0.0
        """
        return cls(**{"h_dev": 0.0, "bonus": 0.0, "neighbourhood": 0.0, **kw})


# ----------------------------------------------------------------------------------
# kernel

#: columns of the side array: the neighbourhood sum ``sum (r_j - r)`` and the games of
#: the current period
_NEIGH, _COUNT = 0, 1
#: the record columns gathered into rows 0-3 of the period-end block
_GATHER = (REC_VAR, REC_INFO, REC_DELTA, REC_LEVEL)


class _StephParams(NamedTuple):
    """The scalars of :func:`_stephenson_kernel`."""

    rule: FamilyRule  #: growth, g (``g_num = q``), the advantage
    h2: float  #: ``h_dev^2``: RD^2 added per game of the period before the update
    bonus: float  #: ``bval / 100`` added to every score
    lam: float  #: ``lambda / 100``, the neighbourhood weight


@kernel
def _stephenson_kernel(white, black, score, neutral, period, starts, rec, side, params,
                       touched, buf, pred):
    """Stephenson over all rating periods.

    ``starts`` holds the first game index of every period plus ``n``; ``period[starts[k]]``
    is the absolute number of period ``k``. ``rec`` (n_players x 8, the columns of
    ``fastrate.ratings._common``) holds per player the index of the last period he
    played in (-1 before), his rating and ``RD^2`` as of the onset of the period, the
    sums ``q^2 sum g^2 E (1 - E)`` and ``q sum g (s + b - E)``, his games (column 2) and
    his last period (NaN: none); ``side`` (n_players x 2) the neighbourhood sum and the
    period's games. ``params`` is a :class:`_StephParams`; ``touched`` (n_players + 1)
    and ``buf`` (8 x ``BLOCK``) are scratch; ``neutral`` and ``pred`` may have length 0.
    Each period costs O(games in it): the games in blocks as Glicko's
    (:func:`~fastrate.ratings.glicko.family_games`: gather the onset values, with the
    growth of :func:`~fastrate.ratings.glicko.family_touch` at a player's first game of
    the period, and prefetch the records ahead; compute the block's terms, vectorised;
    add them to the players' sums in game order), then the update of everyone listed
    (``RD^2`` stored as ``rd * rd``)."""
    rule = params.rule
    q = rule.g_num
    k3 = rule.k3
    bonus = params.bonus
    has_n = neutral.shape[0] > 0
    has_pred = pred.shape[0] > 0
    for k in range(starts.shape[0] - 1):
        lo = starts[k]
        hi = starts[k + 1]
        p = float(period[lo])
        fk = float(k)
        nt = 0
        for s0 in range(lo, hi, BLOCK):
            m = min(BLOCK, hi - s0)
            for j in range(m):
                if s0 + j + PREFETCH < hi:
                    prefetch_row(rec, white[s0 + j + PREFETCH])
                    prefetch_row(rec, black[s0 + j + PREFETCH])
                    prefetch_row(side, white[s0 + j + PREFETCH])
                    prefetch_row(side, black[s0 + j + PREFETCH])
                a = white[s0 + j]
                b = black[s0 + j]
                new_a = rec[a, REC_STAMP] != fk
                side[a, _NEIGH] = select(new_a, 0.0, side[a, _NEIGH])
                side[a, _COUNT] = select(new_a, 0.0, side[a, _COUNT])
                nt = family_touch(rec, a, fk, p, rule, touched, nt)
                new_b = rec[b, REC_STAMP] != fk
                side[b, _NEIGH] = select(new_b, 0.0, side[b, _NEIGH])
                side[b, _COUNT] = select(new_b, 0.0, side[b, _COUNT])
                nt = family_touch(rec, b, fk, p, rule, touched, nt)
                h = rule.advantage
                if has_n and neutral[s0 + j]:
                    h = 0.0
                ra = rec[a, REC_LEVEL]
                rb = rec[b, REC_LEVEL]
                buf[0, j] = (ra + h) - rb
                buf[1, j] = rec[a, REC_VAR]
                buf[2, j] = rec[b, REC_VAR]
                buf[3, j] = ra - rb
            # the block's terms (vectorised); slices indexed from 0
            scores = score[s0:s0 + m]
            for j in range(m):
                diff = buf[0, j]
                va = buf[1, j]
                vb = buf[2, j]
                ga = q / math.sqrt(1.0 + k3 * va)
                gb = q / math.sqrt(1.0 + k3 * vb)
                e_ab = 1.0 / (1.0 + exp(-gb * diff))
                e_ba = 1.0 / (1.0 + exp(ga * diff))
                s = scores[j]
                buf[4, j] = gb * gb * e_ab * (1.0 - e_ab)
                buf[5, j] = gb * ((s + bonus) - e_ab)
                buf[6, j] = ga * ga * e_ba * (1.0 - e_ba)
                buf[7, j] = ga * (((1.0 - s) + bonus) - e_ba)
            if has_pred:
                preds = pred[s0:s0 + m]
                for j in range(m):
                    preds[j] = 1.0 / (1.0 + exp(-q * buf[0, j]
                                                / math.sqrt(1.0 + k3 * (buf[1, j] + buf[2, j]))))
            # the sums, in game order
            for j in range(m):
                a = white[s0 + j]
                b = black[s0 + j]
                rec[a, REC_INFO] += buf[4, j]
                rec[a, REC_DELTA] += buf[5, j]
                rec[b, REC_INFO] += buf[6, j]
                rec[b, REC_DELTA] += buf[7, j]
                side[a, _NEIGH] -= buf[3, j]
                side[b, _NEIGH] += buf[3, j]
                side[a, _COUNT] += 1.0
                side[b, _COUNT] += 1.0
        for t0 in range(0, nt, BLOCK):
            m = gather_block(rec, touched, t0, nt, buf, _GATHER)
            for j in range(m):
                x = touched[t0 + j]
                n_x = side[x, _COUNT]
                v = 1.0 / (1.0 / (buf[0, j] + n_x * params.h2) + buf[1, j])
                buf[4, j] = (buf[3, j] + v * buf[2, j]) + params.lam * side[x, _NEIGH] / n_x
                rd = math.sqrt(v)
                buf[5, j] = rd * rd
            for j in range(m):
                x = touched[t0 + j]
                rec[x, REC_LEVEL] = buf[4, j]
                rec[x, REC_VAR] = buf[5, j]
                rec[x, REC_LAST] = p


# ----------------------------------------------------------------------------------
# public API


def expected_score(rating_a: Any, rating_b: Any, rd_b: Any, rd_a: Any = 0.0,
                   advantage: float = 0.0) -> Any:
    """Stephenson's (Glicko's) expected score of A against B, NumPy-vectorised:
    ``1/(1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a + h - r_b)/400))`` (``h = advantage``);
    with ``rd_a = 0`` the ``E`` of the update. :func:`rate` stores the prediction with
    both deviations in ``Ratings.predictions``.

    >>> round(float(expected_score(2300, 2200, 50, 50)), 3)
    0.637
    """
    rd_a = np.asarray(rd_a, dtype=np.float64)
    rd_b = np.asarray(rd_b, dtype=np.float64)
    d = (np.asarray(rating_a, dtype=np.float64) + advantage) - np.asarray(rating_b,
                                                                           dtype=np.float64)
    return 1.0 / (1.0 + np.power(10.0, -g(np.sqrt(rd_a * rd_a + rd_b * rd_b)) * d / 400.0))


def rate(games: Games, config: StephensonConfig = StephensonConfig(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Rate ``games`` with Stephenson's system; return ratings, RDs and every pre-game
    prediction.

    ``initial`` sets starting values (a previous :class:`Ratings`, a mapping
    ``name -> rating`` or a table with ``player`` and any of ``rating``, ``rd``,
    ``games_played``, ``last_period``). Games without a period form one rating period
    and get no growth at all (no time scale), not even a new player's first-period one. ``rd`` is as of each player's
    last rated period, so ``rate(second_half, initial=rate(first_half))`` (or its table)
    equals ``rate(all_games)`` to the bit when split between periods.
    ``predictions=False`` skips the per-game predictions (``Ratings.predictions`` None).
    """
    check_type(games, Games, "rate() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    check_type(config, StephensonConfig, "config must be a StephensonConfig")
    run = open_family_run(games, config, initial, predictions)
    n = len(run.state.players)
    params = _StephParams(run.rule, float(config.h_dev) ** 2, float(config.bonus) / 100.0,
                          float(config.neighbourhood) / 100.0)
    _stephenson_kernel(run.games.white, run.games.black, run.games.score,
                       neutral_flags(run.games, config.advantage), run.period, run.starts,
                       run.rec, records(n, 2), params, np.empty(n + 1, dtype=np.int64),
                       np.empty((8, BLOCK)), run.pred)
    return close_family_run(run, "stephenson", "Stephenson", config, predictions)


# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, RD, GAMES_PLAYED, LAST_PERIOD)
