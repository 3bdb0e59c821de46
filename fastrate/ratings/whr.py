"""Whole-history rating (Coulom 2008; SPEC §1.7): every player's strength is a Wiener
process over time, and the ratings of all players at all the times they played are the
maximum a posteriori of one Bayesian model, fitted on all games at once.

**Model** (natural units ``r``; Elo ``R = r * 400 / ln 10``):

* Bradley-Terry at every game: ``P(i beats j) = 1 / (1 + exp(-(r_i(t) - r_j(t) + h)))``,
  ``h`` the first player's ``advantage`` (0 in neutral games); a score ``s`` in [0, 1]
  enters the likelihood as ``s log P + (1 - s) log(1 - P)`` (a draw is half a win and
  half a loss, as in Coulom's paper and the ``whr`` package); with ``points_share = f``
  the fitted score is ``(1 - f) * result + f * share``, ``share`` the first player's
  share of the points (the games' ``share``: goals, points or games won), as Elo's
  ``points_share``; predictions stay probabilities of the result;
* Wiener process along each player's history: between his consecutive time steps
  ``t_k < t_{k+1}``, ``r(t_{k+1}) - r(t_k) ~ N(0, w^2 (t_{k+1} - t_k))`` (``w2`` in
  Elo^2 per time unit);
* prior (Coulom §2): ``virtual_games`` virtual draws against a virtual player rated 0 at
  the player's first time step (the default 2 equals Coulom's one virtual win and one
  virtual loss).

**Time steps**: the time step of a game is ``floor(t / time_unit)`` where ``t`` is its
time in days (a date/time column), its time (a numeric time column), else its rating
period number; games with neither are all at one time step. A player's games in one
time step share one rating (Coulom's "day").

**Fit** (Coulom §3 and appendix): cycle over the players in a fixed order (player id,
i.e. first appearance in the stored games) and give each one Newton step on his whole
history: the gradient ``g`` and the Hessian ``H`` of the log posterior in his ratings
(the others held fixed) are

* ``g_k = sum_games (s - P) + [k first] n_v (1/2 - P_v) - (r_k - r_{k-1})/s2_{k-1}
  - (r_k - r_{k+1})/s2_k``,
* ``H_kk = -sum_games P(1 - P) - [k first] n_v P_v(1 - P_v) - 1/s2_{k-1} - 1/s2_k``,
  ``H_{k,k+1} = 1/s2_k``, with ``s2_k = w^2 (t_{k+1} - t_k)``,

a tridiagonal matrix, so the step ``r <- r - H^{-1} g`` is solved by LU in O(days)
(Coulom's appendix). Two changes speed the cycling up without moving its fixed point:
a step shorter than 1 natural unit (174 Elo) is over-relaxed, ``r <- r - omega H^{-1} g``
(``relaxation`` omega, 1.7 by default: block successive over-relaxation; on the ATP
file it needs a quarter of the sweeps of omega = 1: 41 against 156), a step longer
than 4 natural units is shortened to that length, and after each sweep all ratings move
by the one common shift that maximises the posterior (only the prior sees it: one
Newton step on ``sum n_v (1/2 - P_v)``). **Stopping rule**: after the first whole
sweep over all players in which no rating moved by more than ``tolerance`` Elo (at most
``max_iterations`` sweeps; the result says whether it converged).

**Uncertainty** (Coulom §2.4 and appendix): the variance of ``r_k`` is the diagonal of
``-H^{-1}``, with ``H`` the player's Hessian at the fitted ratings, from the
tridiagonal LU forwards (``d``) and backwards (``d'``):
``v_k = d'_{k+1} / (b_k^2 - d_k d'_{k+1})``, ``v_last = -1 / d_last``; reported as a
standard deviation in Elo. Between games it grows by ``w2`` per time unit.

**Predictions** (walk-forward, as for every batch model, see
:mod:`fastrate.ratings.bradley_terry_walk`): the games of rating period ``p`` are
predicted by the fit on the games of the periods before ``p`` (each refit starts from
the previous one); the first player's expected score is
``1 / (1 + exp(-(r_a - r_b + h)))`` with each player's rating at his latest time step
(the mean of the Wiener process later on), 0 for a player not seen yet. Games without
periods are one period (every prediction is ``f(advantage)``).

Order independence: the fit is the posterior's maximum, a fixed point of the sweeps, so
the ratings do not depend on the order of the input rows (to the tolerance); the
``whr`` package's can (its issue #10). Game weights and margins are not used.

A batch fit does not continue from saved ratings: ``initial=`` is refused.

Source: R. Coulom, "Whole-History Rating: A Bayesian Rating System for Players of
Time-Varying Strength", Computers and Games 2008, LNCS 5131, pp. 113-124.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_number, check_type
from fastrate._vecmath import LN10, exp
from fastrate.data import Games, Ratings, period_starts
from fastrate.data.players import PlayerIndex
from fastrate.data.results import RatingHistory
from fastrate.data.state import GAMES_PLAYED, RATING, RD
from fastrate.errors import InputError
from fastrate.ratings._common import check_batch_start, games_column

__all__ = ["WHRConfig", "WHRFit", "STATE", "fit", "rate", "expected_score", "ELO"]

#: Elo per natural unit (``400 / ln 10``)
ELO = 400.0 / LN10
STATE = (RATING, RD, GAMES_PLAYED)
#: the longest Newton step on one rating, in natural units (about 695 Elo)
_MAX_STEP = 4.0
#: steps shorter than this (natural units, about 174 Elo) are over-relaxed
_RELAX_BELOW = 1.0
_NS_PER_DAY = 86_400 * 10**9
_INF = math.inf


@dataclass(frozen=True)
class WHRConfig:
    """Whole-history rating parameters.

    ``w2``: variance of the rating's Wiener process, Elo^2 per time unit (default 14,
    Coulom's value for daily steps on KGS; the ``whr`` package's default is 300, which
    on the ATP file with daily steps predicts far worse: walk-forward log loss 0.678
    against 0.616 from 2000 with yearly refits). ``virtual_games``: virtual
    draws against a virtual 0-rated player at each player's first time step (Coulom's
    prior; at least 1e-3: without it a player who only won has no finite rating). ``advantage``: Elo
    added to the first player's rating in every non-neutral game. ``time_unit``: the
    length of one time step, in days for date/time columns, in the column's units for
    numeric times, in periods when the games have periods only. ``tolerance``: stop
    after a sweep in which no rating moved by more than this (Elo). ``max_iterations``:
    the most sweeps per fit. ``relaxation``: over-relaxation factor of the Newton steps
    shorter than 174 Elo, in (0, 2) (1: Coulom's plain cycling; the fixed point is the
    same; 1.7 needs a quarter of the sweeps of 1 on the ATP file, and about four times
    as many on small, tightly linked data, where sweeps are cheap).
    ``points_share``: the score the fit uses is ``(1 - points_share) * result +
    points_share * share``, ``share`` the games' points share column (as Elo's
    ``points_share``; 0: the results alone).
    """

    w2: float = 14.0
    virtual_games: float = 2.0
    advantage: float = 0.0
    time_unit: float = 1.0
    tolerance: float = 1e-3
    max_iterations: int = 10_000
    relaxation: float = 1.7
    points_share: float = 0.0

    def __post_init__(self) -> None:
        o = "WHRConfig"
        # ranges (docs/algorithms/whr.md, "Ranges"): far beyond any real use, and
        # narrow enough that every fit stays finite (a smaller w2 or prior, a larger
        # advantage or a shorter time unit overflowed the Hessian in the config fuzzing)
        check_number(o, "w2", self.w2, lo=1e-6, hi=1e9)
        check_number(o, "virtual_games", self.virtual_games, lo=1e-3, hi=1e6)
        check_number(o, "advantage", self.advantage, lo=-1e3, hi=1e3)
        check_number(o, "time_unit", self.time_unit, lo=1e-6, hi=1e9)
        check_number(o, "tolerance", self.tolerance, lo=1e-9, hi=1e6)
        check_number(o, "max_iterations", self.max_iterations, lo=1, hi=2**31,
                     integer=True)
        check_number(o, "relaxation", self.relaxation, lo=0.0, hi=2.0, lo_open=True,
                     hi_open=True)
        check_number(o, "points_share", self.points_share, lo=0.0, hi=1.0)


_DEFAULT = WHRConfig()


class _Params(NamedTuple):
    """The scalars of :func:`_whr_sweeps`."""

    w2: float  #: Wiener variance per time step, natural units
    prior: float  #: virtual draws on a player's first time step
    tol: float  #: stop when no rating moved more than this (natural units)
    max_iter: int  #: most sweeps
    max_step: float  #: longest Newton step on one rating
    relax: float  #: over-relaxation of the Newton steps
    relax_below: float  #: over-relax only steps shorter than this


# ----------------------------------------------------------------------------------
# kernels


@inline_kernel
def _player_terms(a, e, nstart, nend, step, opp, score, hand, r, grad, diag, off, par):
    """The gradient and the tridiagonal Hessian (``diag``, ``off``) of the log-posterior
    along one player's active nodes ``a:e``: his games (Bradley-Terry with the
    advantage ``hand``), the prior's virtual draws on his first node, and the Wiener
    process between consecutive nodes (``1 / (w2 * days)``)."""
    for k in range(a, e):
        gk = 0.0
        hk = 0.0
        for s in range(nstart[k], nend[k]):
            q = 1.0 / (1.0 + exp(r[opp[s]] - r[k] - hand[s]))
            gk += score[s] - q
            hk -= q * (1.0 - q)
        grad[k] = gk
        diag[k] = hk
    if par.prior > 0.0:
        q = 1.0 / (1.0 + exp(-r[a]))
        grad[a] += par.prior * (0.5 - q)
        diag[a] -= par.prior * q * (1.0 - q)
    for k in range(a, e - 1):
        c = 1.0 / (par.w2 * (step[k + 1] - step[k]))
        dr = (r[k] - r[k + 1]) * c
        grad[k] -= dr
        grad[k + 1] += dr
        diag[k] -= c
        diag[k + 1] -= c
        off[k] = c


@kernel
def _whr_sweeps(pstart, pend, nstart, nend, step, opp, score, hand, r, diag, off, grad,
                moved, par, stats):
    """Gauss-Seidel over players, one Newton step on each player's active nodes
    ``pstart[p]:pend[p]`` (node ``k``: sides ``nstart[k]:nend[k]``, time step
    ``step[k]``; side ``s``: opponent's node ``opp[s]``, score ``score[s]``, advantage
    ``hand[s]``), until a sweep moves no rating by more than ``par.tol``. ``r`` is
    updated in place; ``moved[p]`` is player ``p``'s largest move in the last sweep;
    ``stats`` gets (sweeps, largest move of the last sweep)."""
    n_players = pstart.shape[0]
    it = 0
    biggest = 0.0
    while it < par.max_iter:
        it += 1
        biggest = 0.0
        for p in range(n_players):
            a = pstart[p]
            e = pend[p]
            if e <= a:
                continue
            _player_terms(a, e, nstart, nend, step, opp, score, hand, r, grad, diag, off, par)
            # tridiagonal LU (Thomas): diag becomes the pivots, grad the forward solution
            if diag[a] > -1e-300:
                diag[a] = -1e-300
            for k in range(a + 1, e):
                f = off[k - 1] / diag[k - 1]
                diag[k] -= f * off[k - 1]
                if diag[k] > -1e-300:
                    diag[k] = -1e-300
                grad[k] -= f * grad[k - 1]
            grad[e - 1] /= diag[e - 1]
            big = abs(grad[e - 1])
            for k in range(e - 2, a - 1, -1):
                grad[k] = (grad[k] - off[k] * grad[k + 1]) / diag[k]
                big = max(big, abs(grad[k]))
            scale = 1.0
            if big > par.max_step:
                scale = par.max_step / big
            elif big < par.relax_below:
                scale = par.relax
            for k in range(a, e):
                r[k] -= scale * grad[k]
            big *= scale
            moved[p] = big
            biggest = max(biggest, big)
        # the common shift of all ratings: only the prior sees it (Newton on one number)
        if par.prior > 0.0:
            gs = 0.0
            hs = 0.0
            for p in range(n_players):
                if pend[p] > pstart[p]:
                    q = 1.0 / (1.0 + exp(-r[pstart[p]]))
                    gs += 0.5 - q
                    hs += q * (1.0 - q)
            if hs > 0.0:
                c = gs / hs
                for p in range(n_players):
                    for k in range(pstart[p], pend[p]):
                        r[k] += c
                biggest = max(biggest, abs(c))
        if biggest <= par.tol:
            break
    stats[0] = it
    stats[1] = biggest


@kernel
def _whr_variances(pstart, pend, nstart, nend, step, opp, score, hand, r, grad, diag, off,
                   back, var, par):
    """The diagonal of ``-H^{-1}`` for every active node (Coulom's appendix formulas),
    ``H`` each player's Hessian at ``r`` (:func:`_player_terms`; ``grad`` is scratch),
    into ``var``."""
    n_players = pstart.shape[0]
    for p in range(n_players):
        a = pstart[p]
        e = pend[p]
        if e <= a:
            continue
        _player_terms(a, e, nstart, nend, step, opp, score, hand, r, grad, diag, off, par)
        # backward pivots d'_k (from the last node up), then forward pivots d_k
        back[e - 1] = diag[e - 1]
        for k in range(e - 2, a - 1, -1):
            back[k] = diag[k] - off[k] * off[k] / back[k + 1]
        for k in range(a + 1, e):
            diag[k] -= off[k - 1] * off[k - 1] / diag[k - 1]
        for k in range(a, e - 1):
            den = off[k] * off[k] - diag[k] * back[k + 1]
            var[k] = back[k + 1] / den if den != 0.0 else math.inf
        var[e - 1] = -1.0 / diag[e - 1] if diag[e - 1] != 0.0 else math.inf


# ----------------------------------------------------------------------------------
# the node layout: one node per (player, time step), sides grouped by node


def _time_steps(games: Games, config: WHRConfig) -> tuple[np.ndarray, str, Any]:
    """Every stored game's time step (float64 whole numbers, nondecreasing), the kind of
    the history's ``when`` and the function that turns steps into ``when`` values."""
    unit = float(config.time_unit)
    if games.time is not None:
        t = games.time
        if np.issubdtype(t.dtype, np.datetime64):
            ns = t.astype("datetime64[ns]").astype(np.int64)
            steps = np.floor(ns / (unit * _NS_PER_DAY))

            def when(s: np.ndarray) -> np.ndarray:
                return np.round(s * unit * _NS_PER_DAY).astype(np.int64).astype(
                    "datetime64[ns]")
        else:
            steps = np.floor(np.asarray(t, dtype=np.float64) / unit)

            def when(s: np.ndarray) -> np.ndarray:
                return s * unit
        return steps, "time", when
    if games.period is not None:
        steps = np.floor(games.period.astype(np.float64) / unit)

        def when(s: np.ndarray) -> np.ndarray:
            return s * unit if unit != 1.0 else s.astype(np.int64)
        return steps, "period", when
    return np.zeros(games.n_games), "period", lambda s: s.astype(np.int64)


class _Layout(NamedTuple):
    player_offsets: np.ndarray  #: (n_players + 1) first node of every player
    node_offsets: np.ndarray  #: (n_nodes + 1) first side of every node
    node_player: np.ndarray
    step: np.ndarray  #: time step of every node
    opp: np.ndarray  #: (n_sides) the opponent's node of every side
    score: np.ndarray
    hand: np.ndarray  #: the side's advantage, natural units
    side_node: np.ndarray
    pos: np.ndarray  #: position of side (game g: g, g + n) in node order


def _fitted_score(games: Games, config: WHRConfig) -> np.ndarray:
    """The first player's score the fit uses in every stored game: the result, or
    ``(1 - points_share) * result + points_share * share`` (the games' ``share``)."""
    f = float(config.points_share)
    if f <= 0.0:
        return games.score
    share = games_column(games, "share", "points_share")
    return (1.0 - f) * games.score + f * share


def _layout(games: Games, config: WHRConfig, steps: np.ndarray) -> _Layout:
    n, m = games.n_games, games.n_players
    player = np.concatenate([games.white, games.black])
    game = np.concatenate([np.arange(n, dtype=np.int64)] * 2)
    order = np.lexsort((game, player))  # steps are nondecreasing in the game index
    sp, sg = player[order], game[order]
    st = steps[sg]
    new = np.ones(2 * n, dtype=bool)
    new[1:] = (sp[1:] != sp[:-1]) | (st[1:] != st[:-1])
    side_node = np.cumsum(new, dtype=np.int64) - 1
    starts = np.flatnonzero(new)
    node_offsets = np.append(starts, 2 * n).astype(np.int64)
    node_player = sp[starts]
    player_offsets = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(node_player, minlength=m), out=player_offsets[1:])
    pos = np.empty(2 * n, dtype=np.int64)
    pos[order] = np.arange(2 * n, dtype=np.int64)
    other = np.where(order < n, order + n, order - n)
    opp = side_node[pos[other]]
    s = _fitted_score(games, config)
    score = np.concatenate([s, 1.0 - s])[order]
    h = np.full(n, float(config.advantage) / ELO)
    if games.neutral is not None:
        h[games.neutral] = 0.0
    hand = np.concatenate([h, -h])[order]
    return _Layout(player_offsets, node_offsets, node_player, st[starts].copy(), opp,
                   np.ascontiguousarray(score), np.ascontiguousarray(hand), side_node, pos)


class _Solver:
    """The state of a (walk-forward) fit: the layout of all games, and the nodes and
    sides active for the games ``[0, end)`` (a prefix of every node and every player)."""

    def __init__(self, games: Games, config: WHRConfig):
        self.games, self.config = games, config
        self.steps, self.when_kind, self.to_when = _time_steps(games, config)
        lay = self.layout = _layout(games, config, self.steps)
        n_nodes = lay.node_player.shape[0]
        self.pstart = lay.player_offsets[:-1].copy()
        self.pend = self.pstart.copy()
        self.nstart = lay.node_offsets[:-1].copy()
        self.nend = self.nstart.copy()
        self.r = np.zeros(n_nodes)
        self.diag, self.off, self.grad = np.zeros(n_nodes), np.zeros(n_nodes), np.zeros(n_nodes)
        self.moved = np.zeros(games.n_players)
        self.end = 0
        self.iterations = 0
        self.max_change = 0.0
        self.params = _Params(float(config.w2) / (ELO * ELO), float(config.virtual_games),
                              float(config.tolerance) / ELO, int(config.max_iterations),
                              _MAX_STEP, float(config.relaxation), _RELAX_BELOW)

    def advance(self, end: int) -> None:
        """Activate the games ``[self.end, end)``; a newly active node starts at the
        player's latest active rating (0 for a new player)."""
        if end <= self.end:
            return
        lay = self.layout
        g = np.arange(self.end, end, dtype=np.int64)
        n = self.games.n_games
        nodes = lay.side_node[np.concatenate([lay.pos[g], lay.pos[g + n]])]
        np.add.at(self.nend, nodes, 1)
        players = lay.node_player[nodes]
        old_end = self.pend.copy()
        np.maximum.at(self.pend, players, nodes + 1)
        fresh = np.unique(nodes[nodes >= old_end[players]])
        if fresh.shape[0]:
            fp = lay.node_player[fresh]
            last = old_end[fp] - 1
            seen = old_end[fp] > self.pstart[fp]
            self.r[fresh] = np.where(seen, self.r[np.maximum(last, 0)], 0.0)
        self.end = end

    def converge(self) -> None:
        lay, stats = self.layout, np.zeros(2)
        _whr_sweeps(self.pstart, self.pend, self.nstart, self.nend, lay.step, lay.opp,
                    lay.score, lay.hand, self.r, self.diag, self.off, self.grad, self.moved,
                    self.params, stats)
        self.iterations = int(stats[0])
        self.max_change = float(stats[1]) * ELO

    def latest(self) -> np.ndarray:
        """Every player's rating (natural units) at his latest active node; 0 if none."""
        has = self.pend > self.pstart
        return np.where(has, self.r[np.maximum(self.pend - 1, 0)], 0.0)

    def variances(self) -> np.ndarray:
        lay = self.layout
        var = np.full(self.r.shape[0], np.nan)
        back = np.zeros(self.r.shape[0])
        _whr_variances(self.pstart, self.pend, self.nstart, self.nend, lay.step, lay.opp,
                       lay.score, lay.hand, self.r, self.grad, self.diag,
                       self.off, back, var, self.params)
        return var


# ----------------------------------------------------------------------------------
# results


@dataclass(frozen=True, eq=False)
class WHRFit:
    """A whole-history fit of all games.

    ``history``: every player's rating (Elo) and uncertainty (standard deviation, Elo)
    at every time step he played (:class:`~fastrate.data.RatingHistory`); ``rating``,
    ``rd``: each player's values at his latest time step ``last_step`` (in time steps,
    see :class:`WHRConfig`); ``games_played``; ``iterations``: sweeps of the fit;
    ``converged``: whether the last sweep moved no rating by more than ``tolerance``;
    ``max_change``: that sweep's largest move (Elo); ``moved``: each player's largest
    move in that sweep (Elo).
    """

    players: PlayerIndex
    history: RatingHistory
    rating: np.ndarray
    rd: np.ndarray
    last_step: np.ndarray
    games_played: np.ndarray
    iterations: int
    converged: bool
    max_change: float
    moved: np.ndarray
    config: WHRConfig

    def rd_at(self, step: Any) -> np.ndarray:
        """Every player's uncertainty (Elo) at time step ``step`` (a number or one per
        player; no shrinking before ``last_step``): ``sqrt(rd^2 + w2 (step - last))``."""
        dt = np.maximum(np.asarray(step, dtype=np.float64) - self.last_step, 0.0)
        return np.sqrt(self.rd ** 2 + self.config.w2 * dt)

    def to_ratings(self, predictions: np.ndarray | None = None) -> Ratings:
        """The final ratings as :class:`~fastrate.Ratings` (``rating``, ``rd``,
        ``games_played``)."""
        return Ratings("whr", self.players, self.rating, self.games_played, predictions,
                       self.config, rd=self.rd,
                       unconverged=None if self.converged else np.flatnonzero(
                           self.moved > self.config.tolerance))


def _check(games: Any, config: Any, what: str) -> None:
    check_type(games, Games, f"whr.{what}() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    check_type(config, WHRConfig, f"whr.{what}() needs a WHRConfig as config")


def _result(solver: _Solver) -> WHRFit:
    games, config, lay = solver.games, solver.config, solver.layout
    var = solver.variances()
    n = games.n_players
    last = np.maximum(solver.pend - 1, 0)
    has = solver.pend > solver.pstart
    history = RatingHistory(games.players, lay.player_offsets.copy(),
                            solver.to_when(lay.step), solver.r * ELO, np.sqrt(var) * ELO,
                            solver.when_kind)
    played = (np.bincount(games.white, minlength=n)
              + np.bincount(games.black, minlength=n)).astype(np.int64)
    converged = solver.max_change <= config.tolerance
    out = WHRFit(games.players, history, np.where(has, solver.r[last], 0.0) * ELO,
                 np.where(has, np.sqrt(var[last]) * ELO, np.nan),
                 np.where(has, lay.step[last], np.nan), played, solver.iterations,
                 converged, solver.max_change, solver.moved * ELO, config)
    return out


def fit(games: Games, config: WHRConfig = _DEFAULT) -> WHRFit:
    """The whole-history fit of all ``games`` (see the module docstring).

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "a"], ["b", "c", "c"], [1.0, 1.0, 0.5],
    ...                                time=[0.0, 1.0, 5.0])
    >>> f = fit(g, WHRConfig(w2=30.0))
    >>> [round(float(x), 1) for x in f.rating]
    [71.5, 0.1, -71.5]
    >>> f.history.trajectory("a")["when"].tolist()
    [0.0, 5.0]
    """
    _check(games, config, "fit")
    solver = _Solver(games, config)
    solver.advance(games.n_games)
    solver.converge()
    return _result(solver)


def rate(games: Games, config: WHRConfig = _DEFAULT, initial: Any = None) -> Ratings:
    """The whole-history fit of all ``games`` as :class:`~fastrate.Ratings` (each
    player's rating and ``rd`` at his latest time step, ``games_played``), with
    walk-forward ``predictions`` (input order): the games of each rating period
    predicted by the fit on the periods before it, each refit warm-started from the
    previous one."""
    _check(games, config, "rate")
    check_batch_start("whr", games, initial)
    solver = _Solver(games, config)
    g = games.n_games
    starts = (period_starts(games.period) if games.period is not None
              else np.array([0, g], dtype=np.int64))
    pred = np.empty(g, dtype=np.float64)
    lay = solver.layout
    for k in range(starts.shape[0] - 1):
        a, b = int(starts[k]), int(starts[k + 1])
        if a > 0:
            solver.advance(a)
            solver.converge()
        r = solver.latest()
        side = lay.pos[np.arange(a, b)]
        z = r[games.white[a:b]] - r[games.black[a:b]] + lay.hand[side]
        pred[a:b] = 1.0 / (1.0 + np.exp(-z))
    solver.advance(g)
    solver.converge()
    return _result(solver).to_ratings(games.to_input_order(pred))


def expected_score(result: WHRFit, white: Any, black: Any, neutral: Any = None) -> np.ndarray:
    """The expected score of ``white`` against ``black`` (names of the fit) in a future
    game, from their latest ratings: ``1 / (1 + 10^(-(R_w - R_b + advantage) / 400))``
    (no advantage where ``neutral``)."""
    look = result.players.lookup
    try:
        w = np.array([look[x] for x in np.atleast_1d(np.asarray(white, dtype=object))])
        b = np.array([look[x] for x in np.atleast_1d(np.asarray(black, dtype=object))])
    except KeyError as exc:
        raise InputError(f"whr.expected_score: {exc.args[0]!r} is not a player of the fit; "
                         "use names of the fitted games") from None
    h = np.full(w.shape[0], float(result.config.advantage))
    if neutral is not None:
        h[np.broadcast_to(np.asarray(neutral, dtype=bool), h.shape)] = 0.0
    d = result.rating[w] - result.rating[b] + h
    return 1.0 / (1.0 + np.power(10.0, -d / 400.0))
