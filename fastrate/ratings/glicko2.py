"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system"; SPEC §1.3).

Every player has a rating ``r``, a rating deviation ``RD`` and a volatility ``sigma``.
On the Glicko-2 scale ``mu = (r - 1500)/s``, ``phi = RD/s`` (``s = 173.7178``). Games are
grouped into rating periods; within a period every game uses the values both players
had at the start of the period, and everyone who played is updated at its end:

* ``g(phi) = 1/sqrt(1 + 3 phi^2/pi^2)``, ``E_j = 1/(1 + exp(-g(phi_j)(mu - mu_j)))``;
* ``v = 1/sum_j g(phi_j)^2 E_j (1 - E_j)``, ``Delta = v sum_j g(phi_j)(s_j - E_j)``;
* the new volatility ``sigma'`` solves ``f(x) = 0`` with
  ``f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a)/tau^2``,
  ``a = ln(sigma^2)``, by the Illinois algorithm of the 2013+ versions of the paper
  (tolerance ``epsilon``, at most ``max_iterations`` steps);
* ``phi* = sqrt(phi^2 + sigma'^2)``, ``phi' = 1/sqrt(1/phi*^2 + 1/v)``,
  ``mu' = mu + phi'^2 sum_j g(phi_j)(s_j - E_j)``.

**Inactivity** is applied lazily, only to players who play: a player last rated in
period ``L`` who skipped ``L+1 .. p-1`` enters period ``p`` with
``phi^2 + (p - L - 1) sigma^2`` (the paper's "did not compete" step, once per missed
period). A player who has never played gets no growth before his first period.
``max_rd`` (default: none) caps RD after the growth and after the update, as R's
PlayerRatings' ``rdmax`` does. ``skip_empty_periods`` (PlayerRatings' convention)
counts only the periods that have games: the growth is ``lag sigma^2`` with ``lag``
(PlayerRatings' ``Lag``, then a state column) the periods with games since the player's
last one in which he did not play.

**Newcomers**: a player with no games starts at his first game from the game's
``Games.entry`` rating and ``Games.entry_rd`` when given (NaN: ``initial_rating`` /
``initial_rd``); the volatility is ``initial_volatility``.

**Advantage** (home side, white; PlayerRatings' ``gamma``): ``advantage`` points on
the Glicko scale are added to the first player's rating in every non-neutral game,
``mu_a - mu_b`` becoming ``mu_a + h/s - mu_b`` in ``E`` (both players) and in the
prediction.

**Reported values**: ``rd`` and ``volatility`` are as of the end of the player's own
last rated period (``last_period``); growth for inactivity is applied when he next
plays.

**Continuation is exact**: the kernel keeps the state on the Glicko scale, exactly as the
table shows it -- the rating ``r`` (``mu = (r - 1500)/s`` enters only through rating
differences ``(r_a - r_b)/s``), ``RD^2`` stored as ``rd * rd`` at the end of each period
(``rd = sqrt(RD^2)``, the reported value) and the volatility -- so continuing from a
saved :class:`Ratings` or its table (Arrow, Parquet, CSV, ``--initial``) gives the full
run's values to the bit. (The arithmetic on the Glicko scale differs from the paper's
on the Glicko-2 scale by rounding only, about 1e-13 relative.)

**Convergence**: the iteration stops when its bracket is narrower than ``epsilon`` (in
``ln sigma^2``), so the volatility is determined to about ``epsilon`` relative. If a
player's iteration has not converged after ``max_iterations`` steps, its newest iterate
(the paper's ``B``) is kept, the player's id is listed in ``Ratings.unconverged``
(players whose *last* solve did not converge) and a
:class:`fastrate.errors.ConvergenceWarning` names them.

**Predictions**: for every game, the first player's expected score before the period,
by the analogue of Glickman's prediction formula on the Glicko-2 scale,
``1/(1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a + h/s - mu_b)))``.

Games without a period form one rating period. ``weight`` and ``margin`` of the games
are not used. Beware of ports that use the rating ``mu`` where the paper
has ``phi`` in ``f``; they give 0.05999342 instead of 0.0599959843 on the paper's example.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games, PlayerState, Ratings, period_starts
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, RD, VOLATILITY
from fastrate.errors import ConvergenceWarning
from fastrate.ratings._common import (
    BLOCK,
    REC_DELTA,
    REC_INFO,
    REC_LAST,
    REC_LEVEL,
    REC_VAR,
    REC_VOL,
    check_positive_state,
    close_records,
    exact_records,
    gather_block,
    open_records,
    reported_last,
)
from fastrate.ratings._steps import W_ROWS, Glicko2Step, glicko2_step, solve_block
from fastrate.ratings.glicko import (
    GROW_PER_MISSED,
    LAG,
    MAX_RATING,
    MAX_RD,
    MIN_RD,
    FamilyRule,
    check_finite_result,
    check_flag,
    check_state_range,
    close_lag,
    dense_periods,
    family_games,
    neutral_flags,
    newcomer_entries,
)

__all__ = ["Glicko2Config", "rate", "expected_score", "g", "SCALE", "glicko2_period_step"]

#: Glickman's conversion factor between the Glicko and Glicko-2 scales
SCALE = 173.7178
_INF = math.inf
MIN_SCALE, MAX_SCALE = 1e-3, 1e9  #: scale: [1e-3, 1e9]
MIN_VOLATILITY, MAX_VOLATILITY = 1e-6, 10.0  #: initial_volatility: [1e-6, 10]
MIN_TAU, MAX_TAU = 1e-3, 100.0  #: tau: [1e-3, 100]


@dataclass(frozen=True)
class Glicko2Config:
    """Parameters of a Glicko-2 run (all validated on construction).

    ``tau`` constrains the change in volatility (Glickman: 0.3 to 1.2); ``epsilon``
    and ``max_iterations`` control the volatility solve; ``scale`` converts between
    the Glicko scale and the Glicko-2 scale (``mu = (r - 1500)/scale``). ``advantage``
    (points on the Glicko scale) is added to the first player's rating in every
    non-neutral game; ``max_rd`` caps RD (``inf``: no cap, Glickman's paper);
    ``skip_empty_periods`` counts only the periods that have games toward the growth
    (PlayerRatings' ``Lag``; the state gets a ``lag`` column).
    """

    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    tau: float = 0.5
    scale: float = SCALE
    epsilon: float = 1e-6
    max_iterations: int = 100
    advantage: float = 0.0
    max_rd: float = _INF
    skip_empty_periods: bool = False

    def __post_init__(self) -> None:
        o = "Glicko2Config"
        check_number(o, "initial_rating", self.initial_rating, lo=-MAX_RATING, hi=MAX_RATING)
        check_number(o, "initial_rd", self.initial_rd, lo=MIN_RD, hi=MAX_RD)
        check_number(o, "initial_volatility", self.initial_volatility, lo=MIN_VOLATILITY,
                     hi=MAX_VOLATILITY)
        check_number(o, "tau", self.tau, lo=MIN_TAU, hi=MAX_TAU)
        check_number(o, "scale", self.scale, lo=MIN_SCALE, hi=MAX_SCALE)
        check_number(o, "epsilon", self.epsilon, lo=0.0, hi=1.0, lo_open=True)
        check_number(o, "max_iterations", self.max_iterations, lo=1.0, hi=1e9, integer=True)
        check_number(o, "advantage", self.advantage, lo=-MAX_RATING, hi=MAX_RATING)
        if not (isinstance(self.max_rd, (int, float, np.integer, np.floating))
                and not isinstance(self.max_rd, bool) and self.max_rd == _INF):
            check_number(o, "max_rd", self.max_rd, lo=MIN_RD, hi=MAX_RD)
        check_flag(o, "skip_empty_periods", self.skip_empty_periods)


# ----------------------------------------------------------------------------------
# kernels

# rows of the volatility solver's work buffer that solve_block fills (rows 0-3 are its
# input: sigma, phi^2, 1/v, sum g (s - E))
_W_NEW_SIGMA, _W_NEW_PHI2, _W_FAILED = 4, 5, 7
#: the record columns gathered into rows 0-3 of the solver's buffer
_GATHER = (REC_VOL, REC_VAR, REC_INFO, REC_DELTA)


@inline_kernel
def glicko2_period_step(white, black, score, neutral, lo, hi, p, fk, rec, failed, step, rule,
                        scale, touched, buf, w, pred):
    """Glicko-2 for the games ``lo .. hi-1`` of one rating period (absolute number ``p``;
    ``fk`` a number that differs from every earlier period's), with the state on the
    Glicko scale: ``rec`` (n_players x 8, the columns of ``fastrate.ratings._common``)
    holds the rating, ``RD^2`` and volatility. ``step`` is a
    :class:`~fastrate.ratings._steps.Glicko2Step`, ``rule`` a
    :class:`~fastrate.ratings.glicko.FamilyRule` with ``g_num = 1/scale``, so the pass over
    the games (:func:`~fastrate.ratings.glicko.family_games`) leaves the sums in Glicko
    units (``1/v`` times ``1/scale^2``, ``sum g (s - E)`` times ``1/scale``). Then steps
    3-8 for everyone listed, in blocks: gather and convert to the Glicko-2 scale,
    :func:`~fastrate.ratings._steps.solve_block`, convert back and scatter (``phi'``
    capped at ``sqrt(rule.max_var)/scale`` before step 8, ``RD^2`` stored as ``rd * rd``).
    ``failed[x]`` is set to 2 when player x's volatility solve did not converge and to 0
    when it did. ``touched``
    (n_players + 1), ``buf`` (8 x ``BLOCK``) and ``w`` (``W_ROWS`` x ``BLOCK``) are
    scratch. Costs O(games in the period)."""
    s2 = scale * scale
    max_phi2 = rule.max_var / s2
    nt = family_games(white, black, score, neutral, lo, hi, p, fk, rec, touched, buf, pred,
                      rule)
    for t0 in range(0, nt, BLOCK):
        m = gather_block(rec, touched, t0, nt, w, _GATHER)
        for j in range(m):
            w[1, j] = w[1, j] / s2
            w[2, j] = w[2, j] * s2
            w[3, j] = w[3, j] * scale
        solve_block(m, w, step.tau, step.inv_tau2, step.exp_mtau, step.epsilon,
                    step.max_iterations)
        for j in range(m):
            x = touched[t0 + j]
            # step 8 with phi' capped (PlayerRatings' rdmax; without a cap this is the
            # solver's own step, phi'^2 sum g (s - E))
            phi2 = min(w[_W_NEW_PHI2, j], max_phi2)
            rd = math.sqrt(phi2 * s2)
            rec[x, REC_VOL] = w[_W_NEW_SIGMA, j]
            rec[x, REC_VAR] = rd * rd
            rec[x, REC_LEVEL] += scale * (phi2 * w[3, j])
            rec[x, REC_LAST] = p
            failed[x] = np.int8(w[_W_FAILED, j])


@kernel
def _glicko2_kernel(white, black, score, neutral, period, starts, rec, failed, step, rule,
                    scale, touched, pred):
    """Glicko-2 over all rating periods: :func:`glicko2_period_step` for every period
    (``starts`` holds the first game index of every period plus ``n``;
    ``period[starts[k]]`` is the absolute number of period ``k``, whose index ``k`` marks
    the players listed in it); the scratch is allocated here, once."""
    buf = np.empty((8, BLOCK))
    w = np.empty((W_ROWS, BLOCK))
    for k in range(starts.shape[0] - 1):
        lo = starts[k]
        glicko2_period_step(white, black, score, neutral, lo, starts[k + 1], float(period[lo]),
                            float(k), rec, failed, step, rule, scale, touched, buf, w, pred)


# ----------------------------------------------------------------------------------
# public API


def g(phi: Any) -> Any:
    """Glickman's ``g(phi) = 1/sqrt(1 + 3 phi^2/pi^2)`` on the Glicko-2 scale."""
    phi = np.asarray(phi, dtype=np.float64)
    return 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected_score(rating_a: Any, rating_b: Any, rd_b: Any, rd_a: Any = 0.0,
                   scale: float = SCALE, advantage: float = 0.0) -> Any:
    """Glicko-2 expected score of A against B (ratings and RDs on the Glicko scale),
    NumPy-vectorised: ``1/(1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a + h/s - mu_b)))``
    (``h = advantage``).

    With ``rd_a = 0`` (the default) this is the paper's ``E``; with both deviations it
    is the prediction :func:`rate` stores in ``Ratings.predictions``.

    >>> round(float(expected_score(1500, 1400, 30)), 3)
    0.639
    """
    phi_a = np.asarray(rd_a, dtype=np.float64) / scale
    phi_b = np.asarray(rd_b, dtype=np.float64) / scale
    d = ((np.asarray(rating_a, dtype=np.float64) + advantage)
         - np.asarray(rating_b, dtype=np.float64)) / scale
    return 1.0 / (1.0 + np.exp(-g(np.sqrt(phi_a * phi_a + phi_b * phi_b)) * d))


def _warn_unconverged(state: PlayerState, failed: np.ndarray, config: Glicko2Config) -> None:
    ids = np.flatnonzero(failed == 2)
    if ids.shape[0] == 0:
        return
    names = ", ".join(repr(state.players[int(i)]) for i in ids[:5])
    more = f" and {ids.shape[0] - 5} more" if ids.shape[0] > 5 else ""
    warnings.warn(
        f"Glicko-2 volatility did not converge within max_iterations={config.max_iterations} "
        f"(epsilon={config.epsilon!r}) for {ids.shape[0]} player(s) in their last rating "
        f"period: {names}{more}; the newest iterate was kept (see Ratings.unconverged); raise "
        "max_iterations or epsilon", ConvergenceWarning, stacklevel=3)


def rate(games: Games, config: Glicko2Config = Glicko2Config(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Rate ``games`` with Glicko-2; return ratings, RDs, volatilities and predictions.

    ``initial`` sets starting values (a previous :class:`Ratings`, a mapping
    ``name -> rating`` or a table with ``player`` and any of ``rating``, ``rd``,
    ``volatility``, ``games_played``, ``last_period``). Games without a period form one
    rating period with no RD growth before it; ``last_period`` is then not reported (or
    passed through from ``initial``). ``rd``/``volatility`` are as of each player's last
    rated period, so ``rate(second_half, initial=rate(first_half))`` equals
    ``rate(all_games)`` when split between periods. ``Ratings.unconverged`` lists the
    ids of players whose last volatility solve did not converge (a
    :class:`~fastrate.errors.ConvergenceWarning` is issued for this run's ones).
    ``predictions=False`` skips the per-game predictions (``Ratings.predictions`` None).
    """
    check_type(games, Games, "rate() needs a fastrate.Games", "build one with Games.from_arrays or read_games")
    check_type(config, Glicko2Config, "config must be a Glicko2Config")
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating,
                                       rd=config.initial_rd,
                                       volatility=config.initial_volatility,
                                       extra=(LAG,) if config.skip_empty_periods else ())
    check_positive_state(state, "rd", state.rd)
    check_positive_state(state, "volatility", state.volatility)
    check_state_range(state, rd=MAX_RD, volatility=MAX_VOLATILITY)
    n = len(state.players)
    failed = np.zeros(n, dtype=np.int8)
    if isinstance(initial, Ratings) and initial.unconverged is not None:
        # PlayerState.resolve keeps the ids of the players of a previous Ratings
        failed[initial.unconverged] = 1
    period = games.period_or_zero()
    starts = period_starts(period)
    scale = float(config.scale)
    rec = open_records(games, state, state.rating, state.rd * state.rd, initial)
    rec[:, REC_VOL] = state.volatility
    newcomer_entries(games, state, rec)
    period, labels = dense_periods(games, config, state, period, starts, rec)
    pred = np.empty(games.n_games if predictions else 0, dtype=np.float64)
    step: Glicko2Step = glicko2_step(config.tau, config.epsilon, config.max_iterations)
    rule = FamilyRule(GROW_PER_MISSED, scale * scale, float(config.max_rd) ** 2, 0.0,
                      1.0 / scale, 3.0 / (math.pi * math.pi * scale * scale),
                      float(config.advantage))
    _glicko2_kernel(games.white, games.black, games.score,
                    neutral_flags(games, config.advantage), period, starts, rec, failed, step,
                    rule, scale, np.empty(n + 1, dtype=np.int64), pred)
    close_lag(labels, state, rec)
    played = close_records(rec, games, state)
    state.rating[played] = rec[played, REC_LEVEL]
    state.rd[played] = np.sqrt(rec[played, REC_VAR])
    state.volatility[played] = rec[played, REC_VOL]
    check_finite_result("Glicko-2", state.players, rating=state.rating, rd=state.rd,
                        volatility=state.volatility)
    _warn_unconverged(state, failed, config)
    return Ratings(system="glicko2", players=state.players, rating=state.rating,
                   games_played=state.games_played, predictions=games.to_input_order(pred) if predictions else None,
                   config=config, rd=state.rd, volatility=state.volatility,
                   last_period=reported_last(games, state), state=dict(state.extra),
                   unconverged=np.flatnonzero(failed).astype(np.int64), exact=exact_records(rec))

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, RD, VOLATILITY, GAMES_PLAYED, LAST_PERIOD)
