"""Glicko ratings (Glickman 1995/1999; SPEC §1.2).

Every player has a rating ``r`` and a rating deviation ``RD``. Games are grouped into
rating periods; within a period every game uses the values both players had at the
start of the period, and all players who played are updated at its end:

* ``q = ln(10)/400``, ``g(RD) = 1/sqrt(1 + 3 q^2 RD^2 / pi^2)``,
  ``E_j = 1/(1 + 10^(-g(RD_j)(r - r_j)/400))``;
* ``1/d^2 = q^2 sum_j g(RD_j)^2 E_j (1 - E_j)``;
* ``r' = r + q/(1/RD^2 + 1/d^2) sum_j g(RD_j)(s_j - E_j)``,
  ``RD' = sqrt(1/(1/RD^2 + 1/d^2))`` (optionally floored at ``min_rd``).

**Inactivity** (step 1 of the paper) is applied lazily, only to players who play: at
the onset of period ``p`` a player last rated in period ``L`` gets
``RD = min(sqrt(RD^2 + c^2 (p - L)), max_rd)`` (no growth when ``p <= L``). A player
who has never played gets no growth before his first period, so a starting RD given
in ``initial=`` is used as it is (Glickman's worked example starts at RD 200).

**Reported values**: ``rd`` is the RD as of the end of the player's own last rated
period (``last_period``); the growth for the periods since is applied when he next
plays. Continuing from a saved result (``initial=previous``) therefore gives the same
numbers as rating all games at once (to floating-point rounding). For an RD "as of"
a later period, apply :func:`inflate_rd`.

**Predictions**: for every game, the first player's expected score before the period,
using Glickman's formula for predicting a game between two players, which combines
both deviations: ``1/(1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a - r_b)/400))``.

Games without a period form one rating period. ``weight``, ``margin`` and ``neutral``
of the games are not used by Glicko.

Source: M. E. Glickman, "Parameter estimation in large dynamic paired comparison
experiments", Applied Statistics 48 (1999); "The Glicko system" (glicko.net, 1995).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games, PlayerState, Ratings, period_starts
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, RD
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import (
    BLOCK,
    GROWTH_GLICKO,
    LN10,
    REC_DELTA,
    REC_INFO,
    REC_LAST,
    REC_LEVEL,
    REC_VAR,
    PeriodRule,
    check_positive_state,
    close_records,
    exact_records,
    gather_block,
    open_records,
    period_games,
    reported_last,
    select,
)

__all__ = ["GlickoConfig", "rate", "expected_score", "g", "inflate_rd", "Q"]

#: ``q = ln(10) / 400``
Q = LN10 / 400.0
_INF = math.inf
_DEFAULT_C = math.sqrt((350.0**2 - 50.0**2) / 30.0)


@dataclass(frozen=True)
class GlickoConfig:
    """Parameters of a Glicko run (all validated on construction).

    ``c`` sets how fast RD grows per rating period without games; the default makes a
    typical RD of 50 grow back to 350 in 30 periods (``c ≈ 63.25``, see
    :meth:`with_c_from_target`). ``min_rd`` is an optional floor for RD after an
    update (0: none), which keeps ratings of very active players responsive.
    """

    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    max_rd: float = 350.0
    c: float = _DEFAULT_C
    min_rd: float = 0.0

    def __post_init__(self) -> None:
        o = "GlickoConfig"
        check_number(o, "initial_rating", self.initial_rating, lo=-_INF, hi=_INF,
                     lo_open=True, hi_open=True)
        check_number(o, "initial_rd", self.initial_rd, lo=0.0, hi=_INF, lo_open=True,
                     hi_open=True)
        check_number(o, "max_rd", self.max_rd, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
        check_number(o, "c", self.c, lo=0.0, hi=_INF, hi_open=True)
        check_number(o, "min_rd", self.min_rd, lo=0.0, hi=_INF, hi_open=True)
        if self.min_rd > self.max_rd:
            raise ConfigError(f"'min_rd' of GlickoConfig must be at most max_rd "
                              f"({self.max_rd!r}); got {self.min_rd!r}")

    @classmethod
    def with_c_from_target(cls, typical_rd: float = 50.0, periods_to_max: float = 30.0,
                           **kw: Any) -> GlickoConfig:
        """A config whose ``c`` brings a typical RD back to ``max_rd`` after
        ``periods_to_max`` periods without games: ``c = sqrt((max_rd^2 - typical_rd^2)/t)``.

        >>> round(GlickoConfig.with_c_from_target(50, 30).c, 2)
        63.25
        """
        o = "GlickoConfig.with_c_from_target"
        max_rd = kw.get("max_rd", cls.max_rd)
        check_number(o, "max_rd", max_rd, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
        check_number(o, "typical_rd", typical_rd, lo=0.0, hi=float(max_rd), hi_open=True)
        check_number(o, "periods_to_max", periods_to_max, lo=0.0, hi=_INF, lo_open=True,
                     hi_open=True)
        if "c" in kw:
            raise ConfigError(f"{o} computes 'c'; do not pass it (got c={kw['c']!r})")
        c = math.sqrt((float(max_rd) ** 2 - float(typical_rd) ** 2) / float(periods_to_max))
        return cls(c=c, **kw)


# ----------------------------------------------------------------------------------
# kernel


# Columns of Glicko's player records (see fastrate.ratings._common; column 6 unused,
# keeping a row at 64 bytes): the onset rating, the games counted, RD^2, the sums 1/d^2
# (before q^2) and sum g (s - E), and the last period.
_RATING, _RD2, _DSUM, _RSUM, _LAST = REC_LEVEL, REC_VAR, REC_INFO, REC_DELTA, REC_LAST
#: the record columns gathered into rows 0-2 of the period-end block
_GATHER = (_RD2, _DSUM, _RSUM)


class _GlickoParams(NamedTuple):
    """The scalars of :func:`_glicko_kernel`."""

    q: float  #: ``ln(10) / 400``
    c2: float  #: RD^2 added per period without games
    max_rd2: float  #: the cap of RD^2
    min_rd2: float  #: the floor of RD^2 after an update (0: none)


@kernel
def _glicko_kernel(white, black, score, period, starts, rec, params, touched, buf, pred):
    """Glicko over all rating periods.

    ``starts`` holds the first game index of every period plus ``n`` at the end;
    ``period[starts[k]]`` is the absolute number of period ``k``. ``rec`` (n_players x 8
    float64) holds per player the index of the last period he played in (-1 before),
    his rating and ``RD^2`` as of the onset of the period, the sums ``1/d^2`` (before
    ``q^2``) and ``sum g (s - E)`` (times ``q``) and his last period (NaN: none); column
    2 counts his games. ``params`` is a :class:`_GlickoParams`. ``touched`` (n_players +
    1: the branch-free listing writes one past the last player) and ``buf`` (8 x block)
    are scratch. Each period costs O(games in it). Updates ``rec``, writes ``pred``.

    One pass over the games of a period, in blocks
    (:func:`fastrate.ratings._common.period_games`): gather both players' onset values
    (doing step 1 at a player's first game of the period, without a branch; the reads
    of a block are independent of each other, so the CPU overlaps them), compute the
    terms of the block (``q g(RD)``, the expected scores, the prediction: vectorised),
    then add them to the players' sums in game order -- the same arithmetic, in the
    same order, as a plain game-by-game loop. Step 2 for everyone listed at the end of
    the period.
    """
    q = params.q
    min_rd2 = params.min_rd2
    rule = PeriodRule(GROWTH_GLICKO, params.c2, params.max_rd2, q,
                      3.0 * q * q / (math.pi * math.pi))
    for k in range(starts.shape[0] - 1):
        lo = starts[k]
        p = float(period[lo])
        nt = period_games(white, black, score, lo, starts[k + 1], p, float(k), rec, touched,
                          buf, pred, rule)
        # step 2 for everyone who played, in blocks: gather, compute (vectorised),
        # scatter; the next block's records load while this one is computed
        for t0 in range(0, nt, BLOCK):
            m = gather_block(rec, touched, t0, nt, buf, _GATHER)
            for j in range(m):
                inv = 1.0 / buf[0, j] + buf[1, j]
                buf[3, j] = buf[2, j] / inv
                v = 1.0 / inv
                buf[4, j] = select(v < min_rd2, min_rd2, v)
            for j in range(m):
                x = touched[t0 + j]
                rec[x, _RATING] += buf[3, j]
                rec[x, _RD2] = buf[4, j]
                rec[x, _LAST] = p


# ----------------------------------------------------------------------------------
# public API


def g(rd: Any) -> Any:
    """Glickman's ``g(RD) = 1/sqrt(1 + 3 q^2 RD^2 / pi^2)``, NumPy-vectorised.

    >>> round(float(g(30.0)), 4)
    0.9955
    """
    rd = np.asarray(rd, dtype=np.float64)
    return 1.0 / np.sqrt(1.0 + 3.0 * Q * Q * rd * rd / (math.pi * math.pi))


def expected_score(rating_a: Any, rating_b: Any, rd_b: Any, rd_a: Any = 0.0) -> Any:
    """Glicko expected score of A against B, NumPy-vectorised.

    With ``rd_a = 0`` (the default) this is the ``E`` of the update formula,
    ``1/(1 + 10^(-g(RD_b)(r_a - r_b)/400))``; with both deviations it is Glickman's
    prediction of a game between the two, using ``g(sqrt(RD_a^2 + RD_b^2))`` -- the
    value :func:`rate` stores in ``Ratings.predictions``.

    >>> round(float(expected_score(1500, 1400, 30)), 3)
    0.639
    """
    rd_a = np.asarray(rd_a, dtype=np.float64)
    rd_b = np.asarray(rd_b, dtype=np.float64)
    d = np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)
    return 1.0 / (1.0 + np.power(10.0, -g(np.sqrt(rd_a * rd_a + rd_b * rd_b)) * d / 400.0))


def inflate_rd(ratings: Ratings, period: int, config: GlickoConfig | None = None) -> np.ndarray:
    """RDs as of the start of absolute period ``period``: every player who has played
    gets ``min(sqrt(RD^2 + c^2 (period - last_period)), max_rd)`` (no growth when
    ``period <= last_period``); players who never played keep their RD."""
    if ratings.rd is None or ratings.last_period is None:
        raise InputError("inflate_rd needs ratings with 'rd' and 'last_period' (a Glicko run "
                         "over games with periods)")
    cfg = config if config is not None else ratings.config
    if not isinstance(cfg, GlickoConfig):
        raise InputError("inflate_rd needs a GlickoConfig (pass config=...)")
    last = ratings.last_period
    played = last != PlayerState.NO_PERIOD
    t = np.where(played, np.maximum(int(period) - np.where(played, last, 0), 0), 0)
    grown = np.minimum(np.sqrt(ratings.rd**2 + cfg.c**2 * t.astype(np.float64)), cfg.max_rd)
    return np.where(t > 0, grown, ratings.rd)


def rate(games: Games, config: GlickoConfig = GlickoConfig(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Rate ``games`` with Glicko; return ratings, RDs and every pre-game prediction.

    ``initial`` sets starting ratings/RDs (a previous :class:`Ratings`, a mapping
    ``name -> rating`` or a table with ``player`` and any of ``rating``, ``rd``,
    ``games_played``, ``last_period``; see :meth:`fastrate.data.PlayerState.resolve`).
    Games without a period form one rating period with no RD growth before it;
    ``last_period`` is then not reported (or passed through from ``initial``). The
    returned ``rd`` is as of each player's last rated period (growth for inactivity is
    applied when he next plays), so ``rate(second_half, initial=rate(first_half))``
    equals ``rate(all_games)`` when split between periods. ``Ratings.predictions`` is
    Glickman's prediction with both deviations (see :func:`expected_score`);
    ``predictions=False`` skips them (final ratings only; ``Ratings.predictions`` None).
    """
    check_type(games, Games, "rate() needs a fastrate.Games", "build one with Games.from_arrays or read_games")
    check_type(config, GlickoConfig, "config must be a GlickoConfig")
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating,
                                       rd=config.initial_rd)
    check_positive_state(state, "rd", state.rd)
    n = len(state.players)
    period = games.period_or_zero()
    starts = period_starts(period)
    rec = open_records(games, state, state.rating, state.rd * state.rd, initial)
    pred = np.empty(games.n_games if predictions else 0, dtype=np.float64)
    params = _GlickoParams(Q, float(config.c) ** 2, float(config.max_rd) ** 2,
                           float(config.min_rd) ** 2)
    _glicko_kernel(games.white, games.black, games.score, period, starts, rec, params,
                   np.empty(n + 1, dtype=np.int64), np.empty((8, BLOCK)), pred)
    played = close_records(rec, games, state)
    state.rating[played] = rec[played, _RATING]
    state.rd[played] = np.sqrt(rec[played, _RD2])
    return Ratings(system="glicko", players=state.players, rating=state.rating,
                   games_played=state.games_played, predictions=games.to_input_order(pred) if predictions else None,
                   config=config, rd=state.rd, last_period=reported_last(games, state),
                   exact=exact_records(rec))

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, RD, GAMES_PLAYED, LAST_PERIOD)
