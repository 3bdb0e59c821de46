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
in ``initial=`` is used as it is (Glickman's worked example starts at RD 200);
``first_period_growth=True`` gives him one period's growth, ``min(sqrt(RD^2 + c^2),
max_rd)``, as R's PlayerRatings does.

**Counting only periods with games** (``skip_empty_periods``, R PlayerRatings'
convention): ``t`` counts only the rating periods that have games in the data (the
player's own included), not the calendar's: ``t = lag + 1`` with ``lag`` (PlayerRatings'
``Lag``) the number of periods with games since the player's last one, in which he did
not play. The state then carries ``lag`` (a column of the table; a continued run reads
it back, missing: 0), so a run continued at a period boundary repeats the full run.

**Newcomers** (a player with no games yet, in this run or the saved state): at his first
game his rating is the game's ``Games.entry`` and his RD the game's ``Games.entry_rd``
when given (NaN: ``initial_rating`` / ``initial_rd``), before any growth; an entry level
or a tournament tier (``--entry COL``, ``--entry-rd COL``).

**Advantage** (home side, white; R PlayerRatings' ``gamma``): ``advantage`` Elo points
are added to the first player's rating wherever the game enters the update and the
prediction, ``r_a - r_b`` becoming ``r_a + h - r_b`` in ``E`` for both players (not on
neutral ground: ``Games.neutral``).

**Reported values**: ``rd`` is the RD as of the end of the player's own last rated
period (``last_period``); the growth for the periods since is applied when he next
plays. For an RD "as of" a later period, apply :func:`inflate_rd`.

**Continuation is exact**: the kernel keeps exactly what the table shows. The rating is
the stored value, and at the end of each period ``RD^2`` is replaced by ``rd * rd`` with
``rd = sqrt(RD^2)`` the reported value (IEEE square roots make ``sqrt(rd * rd) == rd``),
so a saved table -- a :class:`Ratings`, its ``to_arrow()`` table, Parquet or CSV read
back, ``fastrate rate --initial`` -- continues to the same bits as the full run.

**Predictions**: for every game, the first player's expected score before the period,
using Glickman's formula for predicting a game between two players, which combines
both deviations: ``1/(1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a + h - r_b)/400))``.

Games without a period form one rating period. ``weight`` and ``margin`` of the games
are not used by Glicko.

Source: M. E. Glickman, "Parameter estimation in large dynamic paired comparison
experiments", Applied Statistics 48 (1999); "The Glicko system" (glicko.net, 1995).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games, PlayerState, Ratings, period_starts
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, RD, StateColumn
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import (
    BLOCK,
    LN10,
    PREFETCH,
    REC_DELTA,
    REC_GAMES,
    REC_INFO,
    REC_LAST,
    REC_LEVEL,
    REC_STAMP,
    REC_VAR,
    REC_VOL,
    add_game_terms,
    check_positive_state,
    close_records,
    exact_records,
    game_terms,
    gather_block,
    open_records,
    prefetch_row,
    reported_last,
    select,
)

__all__ = ["GlickoConfig", "rate", "expected_score", "g", "inflate_rd", "Q", "FamilyRule",
           "FamilyRun", "open_family_run", "close_family_run",
           "family_touch", "family_games", "check_finite_result", "neutral_flags",
           "check_flag", "first_growth", "check_state_range", "LAG", "newcomer_entries",
           "dense_periods", "close_lag",
           "GROW_PER_PERIOD", "GROW_PER_MISSED", "MAX_RATING", "MAX_RD", "MIN_RD"]

#: ``q = ln(10) / 400``
Q = LN10 / 400.0
_INF = math.inf
_DEFAULT_C = math.sqrt((350.0**2 - 50.0**2) / 30.0)


#: the ranges of the parameters (Glicko and Glicko-2): no rating list comes near them,
#: and within them every value a run computes stays finite (RD^2 <= 1e12, ratings and
#: leads far below the float range)
MAX_RATING = 1e9  #: |initial_rating|, |advantage|: at most 1e9
MAX_RD = 1e6  #: initial_rd, max_rd, min_rd, c: at most 1e6
MIN_RD = 1e-3  #: initial_rd, max_rd: at least 1e-3 (RD^2 must stay a normal float > 0)


@dataclass(frozen=True)
class GlickoConfig:
    """Parameters of a Glicko run (all validated on construction).

    ``c`` sets how fast RD grows per rating period without games; the default makes a
    typical RD of 50 grow back to 350 in 30 periods (``c ≈ 63.25``, see
    :meth:`with_c_from_target`). ``min_rd`` is an optional floor for RD after an
    update (0: none), which keeps ratings of very active players responsive.
    ``advantage`` (Elo points, R PlayerRatings' ``gamma``) is added to the first
    player's rating in every non-neutral game's expected score. ``first_period_growth``
    grows a new player's RD by one period (``c^2``) before his first period, as
    PlayerRatings does (default: Glickman's paper, no growth). ``skip_empty_periods``
    counts only the rating periods that have games toward the growth (PlayerRatings'
    ``Lag``; the state gets a ``lag`` column).
    """

    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    max_rd: float = 350.0
    c: float = _DEFAULT_C
    min_rd: float = 0.0
    advantage: float = 0.0
    first_period_growth: bool = False
    skip_empty_periods: bool = False

    def __post_init__(self) -> None:
        o = "GlickoConfig"
        check_number(o, "initial_rating", self.initial_rating, lo=-MAX_RATING, hi=MAX_RATING)
        check_number(o, "initial_rd", self.initial_rd, lo=MIN_RD, hi=MAX_RD)
        check_number(o, "max_rd", self.max_rd, lo=MIN_RD, hi=MAX_RD)
        check_number(o, "c", self.c, lo=0.0, hi=MAX_RD)
        check_number(o, "min_rd", self.min_rd, lo=0.0, hi=MAX_RD)
        check_number(o, "advantage", self.advantage, lo=-MAX_RATING, hi=MAX_RATING)
        check_flag(o, "first_period_growth", self.first_period_growth)
        check_flag(o, "skip_empty_periods", self.skip_empty_periods)
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
        check_number(o, "max_rd", max_rd, lo=MIN_RD, hi=MAX_RD)
        check_number(o, "typical_rd", typical_rd, lo=0.0, hi=float(max_rd), hi_open=True)
        check_number(o, "periods_to_max", periods_to_max, lo=0.0, hi=_INF, lo_open=True,
                     hi_open=True)
        if "c" in kw:
            raise ConfigError(f"{o} computes 'c'; do not pass it (got c={kw['c']!r})")
        c = math.sqrt((float(max_rd) ** 2 - float(typical_rd) ** 2) / float(periods_to_max))
        return cls(c=c, **kw)


def check_flag(owner: str, name: str, value: Any) -> None:
    """Refuse a boolean option that is not a bool (the house template)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"'{name}' of {owner} must be a bool (true or false); got {value!r}")


# ----------------------------------------------------------------------------------
# the Glicko family's pass over a period's games (Glicko, Glicko-2 and Stephenson)
#
# The player records are fastrate.ratings._common's (one 64-byte row per player; the
# REC_* columns); Glicko leaves column REC_VOL unused.

#: inactivity at a player's first game of a period: Glicko's step 1,
#: ``RD^2 = min(RD^2 + c^2 t, max_rd^2)`` with ``t = p - L`` periods since the last rated
#: one (``first`` for a player never rated)
GROW_PER_PERIOD = 0
#: Glicko-2's "did not compete" step once per missed period,
#: ``min(RD^2 + (p - L - 1) (scale sigma)^2, max_rd^2)`` (sigma from column ``REC_VOL``)
GROW_PER_MISSED = 1


class FamilyRule(NamedTuple):
    """What the pass over a period's games (:func:`family_games`) needs of a system. All
    values are on the Glicko (Elo-like) scale: the records hold ratings and ``RD^2``."""

    growth: int  #: GROW_PER_PERIOD or GROW_PER_MISSED
    c2: float  #: GROW_PER_PERIOD: RD^2 added per period; GROW_PER_MISSED: ``scale^2``
    max_var: float  #: the cap of RD^2 after growth (inf: none)
    first: float  #: GROW_PER_PERIOD: periods of growth before a new player's first one
    g_num: float  #: the numerator of g: ``q = ln(10)/400`` (Glicko), ``1/scale`` (Glicko-2)
    k3: float  #: ``3 g_num^2 / pi^2``
    advantage: float  #: points added to the first player's rating unless neutral


@inline_kernel
def family_touch(rec, x, fk, p, rule, touched, nt):
    """Player ``x`` in a game of period index ``fk`` (absolute number ``p``): at his first
    game of the period, the inactivity growth of ``rule`` and zeroed sums, and list him
    in ``touched``; return the new count. Branch-free (:func:`select`; a never-rated
    player's last period is NaN, whose comparisons are false)."""
    first = rec[x, REC_STAMP] != fk
    v = rec[x, REC_VAR]
    last = rec[x, REC_LAST]
    if rule.growth == GROW_PER_PERIOD:
        t = p - last  # NaN for a never-rated player: no growth
        if rule.first > 0.0:
            t = select(last != last, rule.first, t)
        rec[x, REC_VAR] = select(first & (t > 0.0), min(v + rule.c2 * t, rule.max_var), v)
    else:
        gap = p - last
        vol = rec[x, REC_VOL]
        rec[x, REC_VAR] = select(first & (gap > 1.0),
                                 min(v + (gap - 1.0) * (rule.c2 * (vol * vol)), rule.max_var), v)
    rec[x, REC_INFO] = select(first, 0.0, rec[x, REC_INFO])
    rec[x, REC_DELTA] = select(first, 0.0, rec[x, REC_DELTA])
    rec[x, REC_STAMP] = fk
    rec[x, REC_GAMES] += 1.0
    touched[nt] = x
    return nt + first


@inline_kernel
def family_games(white, black, score, neutral, lo, hi, p, fk, rec, touched, buf, pred, rule):
    """The games ``lo .. hi-1`` of one rating period (index ``fk``, absolute number ``p``),
    in blocks of ``BLOCK`` (``buf``: 8 x BLOCK): gather both players' onset values (the
    inactivity step of :func:`family_touch` at a player's first game of the period, the
    records ``PREFETCH`` games ahead prefetched) and the lead ``r_a + h - r_b`` (``h``
    the advantage, 0 where ``neutral``; ``neutral`` may have length 0), compute the
    block's terms (:func:`~fastrate.ratings._common.game_terms`: vectorised), add them
    to the players' sums in game order (the same additions in the same order as a plain
    game-by-game loop). Writes ``pred`` (unless it has length 0), lists the period's
    players in ``touched`` and returns how many."""
    has_n = neutral.shape[0] > 0
    nt = 0
    for s0 in range(lo, hi, BLOCK):
        m = min(BLOCK, hi - s0)
        for j in range(m):
            if s0 + j + PREFETCH < hi:
                prefetch_row(rec, white[s0 + j + PREFETCH])
                prefetch_row(rec, black[s0 + j + PREFETCH])
            a = white[s0 + j]
            b = black[s0 + j]
            nt = family_touch(rec, a, fk, p, rule, touched, nt)
            nt = family_touch(rec, b, fk, p, rule, touched, nt)
            h = rule.advantage
            if has_n and neutral[s0 + j]:
                h = 0.0
            buf[0, j] = (rec[a, REC_LEVEL] + h) - rec[b, REC_LEVEL]
            buf[1, j] = rec[a, REC_VAR]
            buf[2, j] = rec[b, REC_VAR]
        game_terms(m, s0, score, buf, pred, rule.g_num, rule.g_num, rule.k3)
        add_game_terms(m, s0, white, black, rec, buf)
    return nt


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

    rule: FamilyRule  #: the pass over the games (growth, g, advantage)
    min_rd2: float  #: the floor of RD^2 after an update (0: none)


@kernel
def _glicko_kernel(white, black, score, neutral, period, starts, rec, params, touched, buf,
                   pred):
    """Glicko over all rating periods.

    ``starts`` holds the first game index of every period plus ``n`` at the end;
    ``period[starts[k]]`` is the absolute number of period ``k``. ``rec`` (n_players x 8
    float64) holds per player the index of the last period he played in (-1 before),
    his rating and ``RD^2`` as of the onset of the period, the sums ``1/d^2`` (before
    ``q^2``) and ``sum g (s - E)`` (times ``q``) and his last period (NaN: none); column
    2 counts his games. ``params`` is a :class:`_GlickoParams`. ``touched`` (n_players +
    1: the branch-free listing writes one past the last player) and ``buf`` (8 x block)
    are scratch. Each period costs O(games in it). Updates ``rec``, writes ``pred``.

    One pass over the games of a period (:func:`family_games`), then step 2 for everyone
    listed, in blocks: gather, compute (vectorised), scatter. The new ``RD^2`` is stored
    as ``rd * rd`` with ``rd = sqrt(RD^2)`` the reported value, so that a saved table
    continues exactly.
    """
    rule = params.rule
    min_rd2 = params.min_rd2
    for k in range(starts.shape[0] - 1):
        lo = starts[k]
        p = float(period[lo])
        nt = family_games(white, black, score, neutral, lo, starts[k + 1], p, float(k), rec,
                          touched, buf, pred, rule)
        for t0 in range(0, nt, BLOCK):
            m = gather_block(rec, touched, t0, nt, buf, _GATHER)
            for j in range(m):
                inv = 1.0 / buf[0, j] + buf[1, j]
                buf[3, j] = buf[2, j] / inv
                v = 1.0 / inv
                rd = math.sqrt(select(v < min_rd2, min_rd2, v))
                buf[4, j] = rd * rd
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


def expected_score(rating_a: Any, rating_b: Any, rd_b: Any, rd_a: Any = 0.0,
                   advantage: float = 0.0) -> Any:
    """Glicko expected score of A against B, NumPy-vectorised.

    With ``rd_a = 0`` (the default) this is the ``E`` of the update formula,
    ``1/(1 + 10^(-g(RD_b)(r_a + h - r_b)/400))`` (``h = advantage``); with both
    deviations it is Glickman's prediction of a game between the two, using
    ``g(sqrt(RD_a^2 + RD_b^2))`` -- the value :func:`rate` stores in
    ``Ratings.predictions``.

    >>> round(float(expected_score(1500, 1400, 30)), 3)
    0.639
    """
    rd_a = np.asarray(rd_a, dtype=np.float64)
    rd_b = np.asarray(rd_b, dtype=np.float64)
    d = (np.asarray(rating_a, dtype=np.float64) + advantage) - np.asarray(rating_b,
                                                                           dtype=np.float64)
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


def neutral_flags(games: Games, advantage: float) -> np.ndarray:
    """The games' neutral flags for a kernel: an empty array when every game gets the
    advantage (no flags, or no advantage to withhold)."""
    if games.neutral is None or advantage == 0.0:
        return np.empty(0, dtype=np.bool_)
    return np.ascontiguousarray(games.neutral, dtype=np.bool_)


def first_growth(games: Games, config: Any) -> float:
    """``FamilyRule.first``: one period of growth before a new player's first period when
    ``config.first_period_growth`` and the games have periods (without periods there is
    no time scale and no growth at all)."""
    return 1.0 if config.first_period_growth and games.period is not None else 0.0


def check_state_range(state: PlayerState, **limits: float) -> None:
    """Refuse starting state outside the ranges that keep a run finite: every rating
    within ±``MAX_RATING``, and each column named in ``limits`` (``rd=MAX_RD`` ...) at most
    its limit; the error names the player."""
    for column, limit in (("rating", MAX_RATING), *limits.items()):
        values = getattr(state, column)
        bad = np.abs(values) > limit
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"initial '{column}' must be at most {limit:g} in magnitude (the "
                             f"range that keeps a run finite); found {float(values[i])!r} for "
                             f"player {state.players[i]!r}")


#: PlayerRatings' ``Lag``: the rating periods with games since the player's last one in
#: which he did not play (the state column of ``skip_empty_periods``)
LAG = StateColumn("lag", "int64", 0, "rating periods with games since the last one played "
                  "(skip_empty_periods)", minimum=0)


def newcomer_entries(games: Games, state: PlayerState, rec: np.ndarray) -> None:
    """A newcomer's (no games yet) starting values from the games' ``entry`` and
    ``entry_rd`` columns at his first game (NaN: the default), into the records
    (``REC_LEVEL`` the rating, ``REC_VAR`` RD^2, both on the Glicko scale)."""
    if games.entry is None and games.entry_rd is None:
        return
    n = games.n_games
    first = np.full(len(state.players), n, dtype=np.int64)  # each player's first game
    index = np.arange(n, dtype=np.int64)
    np.minimum.at(first, games.white, index)
    np.minimum.at(first, games.black, index)
    ids = np.flatnonzero((first < n) & (state.games_played == 0))
    first = first[ids]
    for column, target in ((games.entry, REC_LEVEL), (games.entry_rd, REC_VAR)):
        if column is not None:
            value = column[first]
            given = ~np.isnan(value)
            v = value[given]
            rec[ids[given], target] = v if target == REC_LEVEL else v * v


def dense_periods(games: Games, config: Any, state: PlayerState, period: np.ndarray,
                  starts: np.ndarray, rec: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``skip_empty_periods``: the period numbers the kernel sees, ``k`` for the k-th
    period with games of this run, and each player's last period in that count,
    ``-1 - lag`` (``rec[:, REC_LAST]``, NaN kept for a player never rated); also the real
    period number of every ``k`` (None when the config counts every period, or the games
    have none: no time scale, ``lag`` passes through)."""
    if not config.skip_empty_periods or games.period is None:
        return period, None
    k = starts.shape[0] - 1
    dense = np.repeat(np.arange(k, dtype=period.dtype), np.diff(starts))
    last = rec[:, REC_LAST]
    rec[:, REC_LAST] = np.where(np.isnan(last), np.nan, -1.0 - state.extra["lag"])
    return dense, period[starts[:-1]]


def close_lag(labels: np.ndarray | None, state: PlayerState, rec: np.ndarray) -> None:
    """After a ``skip_empty_periods`` kernel (``labels`` from :func:`dense_periods`), before
    the records are closed: every rated player's ``lag`` (the periods with games after
    his last one), and the real last period of those who played."""
    if labels is None:
        return
    last = rec[:, REC_LAST]
    rated = ~np.isnan(last)
    k = labels.shape[0]
    state.extra["lag"][rated] = (k - 1.0 - last[rated]).astype(np.int64)
    played = rec[:, REC_STAMP] >= 0.0
    rec[played, REC_LAST] = labels[last[played].astype(np.int64)]


def check_finite_result(system: str, players: Any, **columns: np.ndarray) -> None:
    """Stop with a clear error, naming the player, if a run's state left the float range
    (the configs' ranges prevent it; extreme saved state or data still could)."""
    for name, values in columns.items():
        bad = ~np.isfinite(values)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"{system}: the '{name}' of player {players[i]!r} left the "
                             f"floating-point range ({float(values[i])!r}); check the initial "
                             "state and the configuration for extreme values")


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
    (or its table) equals ``rate(all_games)`` to the bit when split between periods.
    ``Ratings.predictions`` is Glickman's prediction with both deviations (see
    :func:`expected_score`); ``predictions=False`` skips them (final ratings only;
    ``Ratings.predictions`` None).
    """
    check_type(games, Games, "rate() needs a fastrate.Games", "build one with Games.from_arrays or read_games")
    check_type(config, GlickoConfig, "config must be a GlickoConfig")
    run = open_family_run(games, config, initial, predictions)
    n = len(run.state.players)
    _glicko_kernel(run.games.white, run.games.black, run.games.score,
                   neutral_flags(run.games, config.advantage), run.period, run.starts,
                   run.rec, _GlickoParams(run.rule, float(config.min_rd) ** 2),
                   np.empty(n + 1, dtype=np.int64), np.empty((8, BLOCK)), run.pred)
    return close_family_run(run, "glicko", "Glicko", config, predictions)


class FamilyRun(NamedTuple):
    """A Glicko-family run (Glicko, Stephenson) between its start and its end: the
    player state, the games renumbered to it, the periods, the player records, the
    predictions' buffer and the pass's :class:`FamilyRule`."""

    state: PlayerState
    games: Games
    period: np.ndarray
    starts: np.ndarray
    rec: np.ndarray
    pred: np.ndarray
    rule: FamilyRule
    #: skip_empty_periods: the real period of each counted one (None: not counting)
    labels: np.ndarray | None = None


def open_family_run(games: Games, config: Any, initial: Any, predictions: bool) -> FamilyRun:
    """The start of a run of a Glicko-scale system (``config`` has ``initial_rating``,
    ``initial_rd``, ``c``, ``max_rd``, ``advantage`` and the first-period growth):
    the state merged with ``initial`` and checked, the records opened on it, and the
    rule of the pass over the games (growth ``c^2`` per period, ``q = ln 10 / 400``)."""
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating,
                                       rd=config.initial_rd,
                                       extra=(LAG,) if config.skip_empty_periods else ())
    check_positive_state(state, "rd", state.rd)
    check_state_range(state, rd=MAX_RD)
    period = games.period_or_zero()
    rule = FamilyRule(GROW_PER_PERIOD, float(config.c) ** 2, float(config.max_rd) ** 2,
                      first_growth(games, config), Q,
                      3.0 * Q * Q / (math.pi * math.pi), float(config.advantage))
    starts = period_starts(period)
    rec = open_records(games, state, state.rating, state.rd * state.rd, initial)
    newcomer_entries(games, state, rec)
    period, labels = dense_periods(games, config, state, period, starts, rec)
    return FamilyRun(state, games, period, starts, rec,
                     np.empty(games.n_games if predictions else 0, dtype=np.float64), rule,
                     labels)


def close_family_run(run: FamilyRun, system: str, label: str, config: Any,
                     predictions: bool) -> Ratings:
    """The end of a :func:`open_family_run` run: the records closed into the state
    (rating, ``rd = sqrt(RD^2)``), checked finite, as :class:`Ratings` with the exact
    values a continued run starts from."""
    state, games, rec = run.state, run.games, run.rec
    close_lag(run.labels, state, rec)
    played = close_records(rec, games, state)
    state.rating[played] = rec[played, _RATING]
    state.rd[played] = np.sqrt(rec[played, _RD2])
    check_finite_result(label, state.players, rating=state.rating, rd=state.rd)
    return Ratings(system=system, players=state.players, rating=state.rating,
                   games_played=state.games_played,
                   predictions=games.to_input_order(run.pred) if predictions else None,
                   config=config, rd=state.rd, last_period=reported_last(games, state),
                   state=dict(state.extra), exact=exact_records(rec))

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, RD, GAMES_PLAYED, LAST_PERIOD)
