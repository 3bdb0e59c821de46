"""Pairing schedulers for a rating ladder and a simulator that compares them (SPEC §6;
the computer-go post by Chuck Paulson on the scaling study's ladder).

A ladder is a pool of players, each with a true strength (Elo scale) and a cost per
game (time: a game between ``i`` and ``j`` costs ``cost_i + cost_j``). The ladder
ranks its players by their current *estimated* ratings (rank 0 = best; ties by player
id); each game, a first player is drawn uniformly from the players present and a
scheduler picks his opponent from the ranking:

* ``nearest`` -- the scaling study's method: draw ``candidates`` (3) distinct random
  opponents and play the one nearest in rank (ties: the one drawn first). The top
  player's average opponent is about ``N / (candidates + 1)`` ranks down.
* ``gaussian`` -- the post's proposal: the opponent is ``R`` ranks away,
  ``R = round(Normal(0, sigma))`` with ``sigma = 3`` (rounded half up), redrawn until
  ``R != 0`` and a player exists at that rank. Not affected by the size of the pool.
  (**Decision**: ``sigma >= 0.5``; after 10,000 rejected draws, which cannot happen in
  practice, the adjacent rank is taken.)
* ``greedy`` -- the opponent maximising the expected bits per unit cost,
  ``H(p_hat) / (cost_i + cost_j)``, with ``p_hat`` the rating system's own prediction
  from the current estimates (ties: the better rank). The first player is still drawn
  at random: a greedy choice of both players would only ever pair the cheapest players.

Games are decided by the *true* ratings: the first player wins with probability
``p = 1/(1 + 10^(-(T_i - T_j)/400))`` (no draws). Each game's information is its
expected information under the truth, ``H(p)`` bits (:func:`fastrate.stats.information
.binary_entropy`), so "bits gained per unit cost" is ``sum H(p) / sum cost``.

Rating systems come from the core engine, not copied: ``elo`` runs the game step that
:mod:`fastrate.ratings.elo`'s kernel loops over on each game as it is played (constant K,
optional rule of 400); ``glicko2`` collects ``period_games`` games into a rating period
and runs the period step of :mod:`fastrate.ratings.glicko2`
(:func:`~fastrate.ratings.glicko2.glicko2_period_step`, records on the Glicko scale) on
it, so ranks change at period ends. The final ratings of a run equal
``elo.rate``/``glicko2.rate`` of its game log, to the bit for Glicko-2.

**Seeding new players with virtual games** (the post's second suggestion): players may
arrive later (``arrival``: the game index at which each joins). With
``seed_games=(W, L)`` a newcomer starts at the current estimate of the player present
whose prior (true) strength is nearest (**Decision**: ties to the weaker) and is given
``W`` virtual wins and ``L`` losses against him -- wins first -- if that player is
weaker, ``L`` wins and ``W`` losses if stronger (the post: Mogo_16 gets 2 wins and 1 loss
against Mogo_15). Virtual games move only the newcomer (through the system's own update;
for Glicko-2 one rating period), cost nothing and are not in the game log. Without
seeding a newcomer starts at the system's initial rating.

**Start**: every estimate starts at the system's initial rating (a new ladder: the
error first measures how fast the ratings spread out to the truth), or with
``start="truth"`` the players present from the beginning start at their true ratings
shifted to the initial rating's mean (an established ladder: the error measures how
well the ratings are *kept* right).

**Metrics** at ``n_points + 1`` checkpoints (after 0, n/n_points, ..., n games), over the
players present: cumulative cost and bits, the rating error against the truth
``rmse = sqrt(mean(((R_i - mean R) - (T_i - mean T))^2))`` (ratings are only defined up to
a shift), the fraction of misordered pairs (pairs with different true strengths whose
estimates are in the wrong order; tied estimates count 1/2) and the mean rank gap of
the pairings so far. Glicko-2's ratings at a checkpoint are those of the last completed
rating period (the period in progress is rated at its end, and at the last game).

**Randomness**: every seed has its own splitmix64 stream (Steele, Lea and Flood 2014),
seeded from the seed value alone; seeds run in parallel (the kernel releases the GIL;
chunks of seeds go to ``numba.get_num_threads()`` threads) and each writes only its own
output rows, so a seed's results depend neither on the other seeds nor on the
number of threads. The draws per game: one uniform for the first player, the
scheduler's draws, one uniform for the result.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np

from fastrate._hashing import MASK64, splitmix64
from fastrate._numba import inline_kernel, kernel
from fastrate._validate import as_float64, check_choice, check_number, require
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import (
    BLOCK,
    LN10,
    REC_LAST,
    REC_LEVEL,
    REC_STAMP,
    REC_VAR,
    REC_VOL,
    cap_lead,
    logistic,
)
from fastrate.ratings._steps import (
    W_ROWS,
    EloStep,
    Glicko2Step,
    elo_game,
    glicko2_step,
)
from fastrate.ratings.elo import EloConfig
from fastrate.ratings.glicko import GROW_PER_MISSED, FamilyRule
from fastrate.ratings.glicko2 import Glicko2Config, glicko2_period_step
from fastrate.stats.information import entropy_bits

__all__ = ["SCHEDULERS", "SYSTEMS", "STARTS", "Ladder", "LadderResult", "simulate", "compare",
           "opponent_probabilities", "ladder_table", "plot", "check_plot_path",
           "METRIC_COLUMNS"]

SCHEDULERS = ("nearest", "gaussian", "greedy")
SYSTEMS = ("elo", "glicko2")
#: where the estimates start: the system's initial rating, or the truth (shifted to it)
STARTS = ("initial", "truth")
#: the columns of :func:`ladder_table`
METRIC_COLUMNS = ("scheduler", "system", "seed", "games", "cost", "bits", "bits_per_cost",
                  "window_bits_per_cost", "rmse", "misordered", "mean_rank_gap")
#: the rejection sampler of the gaussian scheduler gives up after this many draws
MAX_DRAWS = 10_000
_INF = math.inf
_SEED_MAX = 2**63 - 1

# ----------------------------------------------------------------------------------
# kernels: the random stream

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S11 = np.uint64(11)
_TWO_M53 = 2.0 ** -53


@inline_kernel
def _next_u64(state):
    """splitmix64: advance ``state[0]`` by the golden gamma and return the mixed value."""
    z = state[0] + _GOLDEN
    state[0] = z
    return splitmix64(z)


if numba.config.DISABLE_JIT:  # pragma: no cover - the kernels run as Python (coverage)
    def _next_u64(state):  # noqa: F811 - the addition on Python ints: NumPy scalars warn
        # when they wrap around, which the pure-Python run would turn into errors
        z = (int(state[0]) + int(_GOLDEN)) & MASK64
        state[0] = z
        return splitmix64(z)


@inline_kernel
def _uniform(state):
    """A double in [0, 1) from the top 53 bits."""
    return float(_next_u64(state) >> _S11) * _TWO_M53


@inline_kernel
def _randint(state, n):
    """An integer in [0, n): ``floor(u n)``."""
    r = int(_uniform(state) * n)
    return r if r < n else n - 1


@inline_kernel
def _normal(state):
    """A standard normal by Box-Muller (cosine branch only; two uniforms)."""
    u1 = 1.0 - _uniform(state)
    u2 = _uniform(state)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


# ----------------------------------------------------------------------------------
# kernels: ranking, schedulers, metrics


@kernel
def _sort_ranks(order, pos, est, n):
    """Insertion sort of the ``n`` players in ``order`` by estimate (best first, ties by
    id); nearly sorted after a game, so O(n) then. Refreshes ``pos``."""
    for t in range(1, n):
        x = order[t]
        ex = est[x]
        u = t - 1
        while u >= 0:
            y = order[u]
            if est[y] > ex or (est[y] == ex and y < x):
                break
            order[u + 1] = y
            u -= 1
        order[u + 1] = x
    for t in range(n):
        pos[order[t]] = t


@inline_kernel
def _before(x, y, est):
    """Whether ``x`` ranks above ``y``: a higher estimate, or equal and a lower id."""
    return est[x] > est[y] or (est[x] == est[y] and x < y)


@inline_kernel
def _swap(order, pos, x, p, q):
    """Move ``x`` from slot ``p`` of the ranking to slot ``q`` and the player there to ``p``."""
    y = order[q]
    order[p] = y
    pos[y] = p
    order[q] = x
    pos[x] = q


@inline_kernel
def _reposition(order, pos, est, n, x, skip):
    """Move ``x`` to its place in a ranking that is sorted but for ``x`` and ``skip``
    (-1: none): comparisons jump over ``skip``, which keeps its slot, so afterwards the
    ranking is sorted but for ``skip``. O(distance moved)."""
    p = pos[x]
    moved = False
    while True:  # up
        q = p - 1
        if q >= 0 and order[q] == skip:
            q -= 1
        if q < 0 or not _before(x, order[q], est):
            break
        _swap(order, pos, x, p, q)
        p = q
        moved = True
    if moved:
        return
    while True:  # down
        q = p + 1
        if q < n and order[q] == skip:
            q += 1
        if q >= n or not _before(order[q], x, est):
            break
        _swap(order, pos, x, p, q)
        p = q


@inline_kernel
def _predict(glicko, i, j, est, rec, elo, k3, inv_scale):
    """The rating system's prediction that ``i`` beats ``j`` from the current state:
    Elo's expected score (``elo``: its :class:`~fastrate.ratings._steps.EloStep`; rule of
    400 when ``cap > 0``) or Glicko-2's prediction
    ``1/(1 + exp(-g(sqrt(phi_i^2 + phi_j^2)) (mu_i - mu_j)))``, from the engine's records
    on the Glicko scale (``mu = r / scale``, ``phi^2 = RD^2 / scale^2``: ``k3`` is
    ``3 / (pi^2 scale^2)`` and ``inv_scale`` ``1 / scale``)."""
    if not glicko:
        return logistic(cap_lead(est[i] - est[j], elo.cap), elo.factor)
    gg = 1.0 / math.sqrt(1.0 + k3 * (rec[i, REC_VAR] + rec[j, REC_VAR]))
    return 1.0 / (1.0 + math.exp(-gg * (rec[i, REC_LEVEL] - rec[j, REC_LEVEL]) * inv_scale))


@kernel
def _pick_nearest(state, p, n_active, candidates, drawn):
    c = min(candidates, n_active - 1)
    best_q = -1
    best_d = n_active + 1
    for t in range(c):
        while True:
            q = _randint(state, n_active - 1)
            if q >= p:
                q += 1
            dup = False
            for u in range(t):
                if drawn[u] == q:
                    dup = True
                    break
            if not dup:
                break
        drawn[t] = q
        d = abs(q - p)
        if d < best_d:
            best_d = d
            best_q = q
    return best_q


@kernel
def _pick_gaussian(state, p, n_active, sigma):
    for _ in range(MAX_DRAWS):
        r = math.floor(_normal(state) * sigma + 0.5)
        if r != 0.0:
            q = p + int(r)
            if 0 <= q < n_active:
                return q
    return p + 1 if p + 1 < n_active else p - 1


@kernel
def _pick_greedy(i, p, n_active, order, cost, glicko, est, rec, elo, k3, inv_scale):
    best = -1.0
    best_q = -1
    for q in range(n_active):
        if q == p:
            continue
        j = order[q]
        val = entropy_bits(_predict(glicko, i, j, est, rec, elo, k3, inv_scale)) / (
            cost[i] + cost[j])
        if val > best:
            best = val
            best_q = q
    return best_q


@kernel
def _record(t, active, est, true_rating, cost_sum, bits_sum, gap_sum, played,
            o_cost, o_bits, o_rmse, o_mis, o_gap):
    n = est.shape[0]
    m = 0
    se = 0.0
    st = 0.0
    for x in range(n):
        if active[x]:
            m += 1
            se += est[x]
            st += true_rating[x]
    me = se / m
    mt = st / m
    ss = 0.0
    for x in range(n):
        if active[x]:
            d = (est[x] - me) - (true_rating[x] - mt)
            ss += d * d
    bad = 0.0
    pairs = 0
    for a in range(n):
        if not active[a]:
            continue
        for b in range(a + 1, n):
            if not active[b]:
                continue
            dt = true_rating[a] - true_rating[b]
            if dt == 0.0:
                continue
            pairs += 1
            de = est[a] - est[b]
            if de == 0.0:
                bad += 0.5
            elif (de > 0.0) != (dt > 0.0):
                bad += 1.0
    o_cost[t] = cost_sum
    o_bits[t] = bits_sum
    o_rmse[t] = math.sqrt(ss / m)
    o_mis[t] = bad / pairs if pairs > 0 else math.nan
    o_gap[t] = gap_sum / played if played > 0 else math.nan


#: no neutral flags (the ladder gives no advantage)
_NO_FLAGS = np.zeros(0, dtype=np.bool_)


@kernel
def _glicko2_period(white, black, score, n, p, fk, rec, failed, step, rule, scale, touched,
                    buf, w, pred):
    """The engine's Glicko-2 period step (:func:`fastrate.ratings.glicko2.glicko2_period_step`,
    records on the Glicko scale) on the games ``0 .. n-1``: compiled once here for both
    places the simulator rates a period (its games, a newcomer's virtual games)."""
    glicko2_period_step(white, black, score, _NO_FLAGS, 0, n, p, fk, rec, failed, step, rule,
                        scale, touched, buf, w, pred)


class _LadderParams(NamedTuple):
    """The scalars of :func:`_ladder_seed` (the same for every seed of a run)."""

    scheduler: int  #: index in SCHEDULERS
    sigma: float  #: the gaussian scheduler's spread of rank offsets
    candidates: int  #: the nearest scheduler's random candidates
    system: int  #: index in SYSTEMS
    n_games: int  #: games per seed
    n_virtual: int  #: virtual games of a seeded newcomer
    period_games: int  #: Glicko-2: games per rating period
    elo: EloStep  #: Elo's game step (advantage 0)
    glicko2: Glicko2Step  #: Glicko-2's period step
    g2_rule: FamilyRule  #: Glicko-2's pass over a period's games (as ``glicko2.rate``)
    g2_scale: float  #: Glicko-2's scale (``mu = (r - 1500) / scale``)
    init_var: float  #: Glicko-2's starting RD^2
    init_vol: float  #: Glicko-2's starting volatility


@kernel
def _ladder_seed(seed_value, params, true_rating, cost, arrival, arrival_order, seed_opp,
                 seed_wins, start, ends, o_cost, o_bits, o_rmse, o_mis, o_gap, o_rating,
                 log_white, log_black, log_score):
    """One seed of the ladder: ``params.n_games`` games among the players present, rated
    by ``params.system`` (0 Elo, 1 Glicko-2), paired by ``params.scheduler`` (0 nearest,
    1 gaussian, 2 greedy); ``params`` is a :class:`_LadderParams`. ``arrival_order``
    lists the players by (arrival, id); ``seed_opp[x]`` is the virtual opponent of
    newcomer ``x`` (-1: no seeding) and ``seed_wins[x]`` his virtual wins out of
    ``params.n_virtual``. Elo rates each game as it is played
    (:func:`~fastrate.ratings._steps.elo_game`), Glicko-2 each rating period at its end
    (:func:`~fastrate.ratings.glicko2.glicko2_period_step`). Writes the metrics at the game
    counts ``ends`` (``ends[0] = 0``), the final estimates and, when the log arrays have
    length ``n_games``, every game. Scratch is allocated once, before the game loop."""
    n = true_rating.shape[0]
    n_games = params.n_games
    n_virtual = params.n_virtual
    period_games = params.period_games
    scheduler = params.scheduler
    elo = params.elo
    g2 = params.glicko2
    g2_rule = params.g2_rule
    g2_scale = params.g2_scale
    glicko = params.system == 1
    k3 = 3.0 / (math.pi * math.pi * g2_scale * g2_scale)
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed_value)
    state[0] = _next_u64(state)  # hash the seed value into the starting state
    est = start.copy()
    order = np.zeros(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    active = np.zeros(n, dtype=np.bool_)
    drawn = np.zeros(max(params.candidates, 1), dtype=np.int64)
    # Glicko-2 state: the engine's 64-byte player records; ``fk`` numbers the periods
    rec = np.zeros((n if glicko else 1, 8))
    if glicko:
        for x in range(n):
            rec[x, REC_STAMP] = -1.0
            rec[x, REC_LEVEL] = start[x]
            rec[x, REC_VAR] = params.init_var
            rec[x, REC_VOL] = params.init_vol
            rec[x, REC_LAST] = math.nan
            est[x] = rec[x, REC_LEVEL]
    fk = 0.0
    failed = np.zeros(n, dtype=np.int8)
    touched = np.zeros(n + 1, dtype=np.int64)
    buf = np.zeros((8, BLOCK))
    work = np.zeros((W_ROWS, BLOCK))
    saved = np.zeros(8)
    batch = period_games if glicko else 1
    pw = np.zeros(batch, dtype=np.int64)
    pb = np.zeros(batch, dtype=np.int64)
    ps = np.zeros(batch)
    pred = np.zeros(batch)
    nv = max(n_virtual, 1)
    vw = np.zeros(nv, dtype=np.int64)
    vb = np.zeros(nv, dtype=np.int64)
    vs = np.zeros(nv)
    vpred = np.zeros(nv)
    record_log = log_white.shape[0] > 0

    n_active = 0
    ap = 0
    n_arrivals = arrival_order.shape[0]
    cost_sum = 0.0
    bits_sum = 0.0
    gap_sum = 0.0
    m = 0
    t = 0
    true_factor = LN10 / 400.0
    for g in range(n_games + 1):
        # players joining before game g
        changed = False
        while ap < n_arrivals and arrival[arrival_order[ap]] == g:
            x = arrival_order[ap]
            ap += 1
            active[x] = True
            order[n_active] = x
            n_active += 1
            changed = True
            o = seed_opp[x]
            if o < 0:
                continue
            wins = seed_wins[x]
            if glicko:
                # one rating period of virtual games that moves only the newcomer
                rec[x, REC_LEVEL] = rec[o, REC_LEVEL]
                for c in range(8):
                    saved[c] = rec[o, c]
                for v in range(n_virtual):
                    vw[v] = x
                    vb[v] = o
                    vs[v] = 1.0 if v < wins else 0.0
                _glicko2_period(vw, vb, vs, n_virtual, float(g // period_games), fk, rec,
                                failed, g2, g2_rule, g2_scale, touched, buf, work, vpred)
                fk += 1.0
                for c in range(8):
                    rec[o, c] = saved[c]
                est[x] = rec[x, REC_LEVEL]
            else:
                est[x] = est[o]
                for v in range(n_virtual):
                    # only the newcomer moves
                    est[x] += elo_game(est[x], est[o], 1.0 if v < wins else 0.0, 1.0, False,
                                       elo)[1]
        if changed:
            _sort_ranks(order, pos, est, n_active)
        if g == 0 and ends[0] == 0:
            zero = np.int64(0)  # not a literal 0, which would compile _record a second time
            _record(zero, active, est, true_rating, cost_sum, bits_sum, gap_sum, zero,
                    o_cost, o_bits, o_rmse, o_mis, o_gap)
            t = 1
        if g == n_games:
            break
        # one game
        p = _randint(state, n_active)
        i = order[p]
        if scheduler == 0:
            q = _pick_nearest(state, p, n_active, params.candidates, drawn)
        elif scheduler == 1:
            q = _pick_gaussian(state, p, n_active, params.sigma)
        else:
            q = _pick_greedy(i, p, n_active, order, cost, glicko, est, rec, elo, k3,
                             1.0 / g2_scale)
        j = order[q]
        gap_sum += abs(q - p)
        pt = logistic(true_rating[i] - true_rating[j], true_factor)
        bits_sum += entropy_bits(pt)
        cost_sum += cost[i] + cost[j]
        s = 1.0 if _uniform(state) < pt else 0.0
        if record_log:
            log_white[g] = i
            log_black[g] = j
            log_score[g] = s
        if glicko:
            pw[m] = i
            pb[m] = j
            ps[m] = s
            m += 1
            if m == batch or g + 1 == n_games:
                _glicko2_period(pw, pb, ps, m, float(g // period_games), fk, rec, failed, g2,
                                g2_rule, g2_scale, touched, buf, work, pred)
                fk += 1.0
                for y in range(n):
                    est[y] = rec[y, REC_LEVEL]
                _sort_ranks(order, pos, est, n_active)
                m = 0
        else:
            change = elo_game(est[i], est[j], s, 1.0, False, elo)[1]
            est[i] += change
            est[j] -= change
            # only i and j moved: place i (jumping over j), then j
            _reposition(order, pos, est, n_active, i, j)
            _reposition(order, pos, est, n_active, j, -1)
        if t < ends.shape[0] and g + 1 == ends[t]:
            _record(t, active, est, true_rating, cost_sum, bits_sum, gap_sum, g + 1,
                    o_cost, o_bits, o_rmse, o_mis, o_gap)
            t += 1
    for x in range(n):
        o_rating[x] = est[x]


def _run_seeds(seeds: np.ndarray, args: tuple, n: int, n_games: int, ends: np.ndarray,
               outs: tuple, ratings: np.ndarray, logs: tuple) -> None:
    """Run :func:`_ladder_seed` for every seed, the seeds split into contiguous chunks over
    ``numba.get_num_threads()`` Python threads (the kernels release the GIL). Seed ``s``
    writes only its own rows of the flat outputs (``len(ends)`` metrics, ``n`` ratings
    and, when logging, ``n_games`` games per seed), so the results do not depend on the
    number of threads. (Threads rather than a ``prange`` kernel: the same parallelism
    without compiling the simulator a second time inside a parallel region.)"""
    p = ends.shape[0]
    log = logs[0].shape[0] > 0

    def run(lo: int, hi: int) -> None:
        for s in range(lo, hi):
            la, lb = (s * n_games, (s + 1) * n_games) if log else (0, 0)
            _ladder_seed(seeds[s], *args, ends, *(o[s * p:(s + 1) * p] for o in outs),
                         ratings[s * n:(s + 1) * n], *(x[la:lb] for x in logs))

    n_seeds = seeds.shape[0]
    threads = max(1, min(numba.get_num_threads(), n_seeds))
    cuts = [n_seeds * t // threads for t in range(threads + 1)]
    if threads == 1:
        run(0, n_seeds)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads) as pool:
        for f in [pool.submit(run, cuts[t], cuts[t + 1]) for t in range(threads)]:
            f.result()


# ----------------------------------------------------------------------------------
# public API


@dataclass(frozen=True)
class Ladder:
    """The players of a simulated ladder: true strengths (Elo scale), cost per game
    (time units; a game costs the sum of both players' costs) and the game index at
    which each joins (0: from the start).

    ``Ladder.geometric(34)`` is the post's ladder: ranks 80 Elo apart, each rank's games
    half as expensive as the rank above, rank 0 costing 1.0.
    """

    true_rating: np.ndarray
    cost: np.ndarray
    arrival: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        t = as_float64(self.true_rating, "true_rating")
        n = t.shape[0]
        if n < 2:
            raise InputError(f"a ladder needs at least 2 players; got {n}")
        c = as_float64(self.cost, "cost")
        if c.shape[0] != n:
            raise InputError(f"'cost' must have one value per player ({n}); got {c.shape[0]}")
        bad = ~(c > 0.0)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"'cost' must be > 0 (time per game); found {float(c[i])!r} for "
                             f"player {i}")
        if self.arrival is None:
            a = np.zeros(n, dtype=np.int64)
        else:
            raw = np.asarray(self.arrival)
            if raw.ndim != 1 or raw.shape[0] != n:
                raise InputError(f"'arrival' must have one game index per player ({n}); got "
                                 f"shape {raw.shape}")
            if raw.dtype.kind not in "iuf" or not np.isfinite(raw).all() or (
                    raw != np.round(raw)).any() or (raw < 0).any():
                raise InputError("'arrival' must hold game indices >= 0 (whole numbers); got "
                                 f"{raw.tolist()[:10]!r}")
            a = require(raw.astype(np.int64), np.int64)
        if int((a == 0).sum()) < 2:
            raise InputError("at least 2 players must be present from the start (arrival 0); "
                             f"found {int((a == 0).sum())}")
        object.__setattr__(self, "true_rating", t)
        object.__setattr__(self, "cost", c)
        object.__setattr__(self, "arrival", a)

    @property
    def n_players(self) -> int:
        return int(self.true_rating.shape[0])

    @classmethod
    def geometric(cls, n_players: int = 34, *, elo_step: float = 80.0,
                  cost_ratio: float = 0.5, base_cost: float = 1.0, newcomers: int = 0,
                  n_games: int | None = None, center: float = 1500.0) -> Ladder:
        """Players ranked 0..n-1, ``elo_step`` apart (rank 0 strongest, centred on
        ``center``), rank r costing ``base_cost * cost_ratio^r`` per game.

        ``newcomers = m`` makes the m strongest players join during the run, weakest of
        them first (as the scaling study added ever stronger programs): rank ``m-1-q``
        arrives at game ``(q+1) * n_games // (2 (m+1))``, all within the first half.
        """
        o = "Ladder.geometric"
        check_number(o, "n_players", n_players, lo=2.0, hi=1e7, integer=True)
        # ranges far beyond any real ladder, so that ratings, costs and errors stay finite
        check_number(o, "elo_step", elo_step, lo=-1e6, hi=1e6)
        check_number(o, "cost_ratio", cost_ratio, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
        check_number(o, "base_cost", base_cost, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
        check_number(o, "center", center, lo=-1e9, hi=1e9)
        n = int(n_players)
        check_number(o, "newcomers", newcomers, lo=0.0, hi=float(n - 2), integer=True)
        rank = np.arange(n, dtype=np.float64)
        true = center + float(elo_step) * ((n - 1) / 2.0 - rank)
        with np.errstate(over="ignore", under="ignore"):
            cost = float(base_cost) * np.power(float(cost_ratio), rank)
        bad = ~np.isfinite(cost) | (cost <= 0.0)
        if bad.any() or not np.isfinite(cost.sum()):
            r = int(np.argmax(bad)) if bad.any() else n - 1
            raise ConfigError(f"'cost_ratio' {cost_ratio!r} of {o} gives rank {r} a cost of "
                              f"{float(cost[r])!r} per game (base_cost * cost_ratio^rank must "
                              "be finite and > 0 for every rank, and so must their sum); "
                              "choose a ratio or a base cost closer to 1")
        arrival = np.zeros(n, dtype=np.int64)
        m = int(newcomers)
        if m:
            if n_games is None:
                raise ConfigError("Ladder.geometric(newcomers=...) needs 'n_games' to space "
                                  "the arrivals")
            check_number(o, "n_games", n_games, lo=1.0, hi=1e15, integer=True)
            for q in range(m):
                arrival[m - 1 - q] = (q + 1) * int(n_games) // (2 * (m + 1))
        return cls(true, cost, arrival)


@dataclass
class LadderResult:
    """Metrics of :func:`simulate`, one row per seed and one column per checkpoint.

    ``games`` (P,) are the checkpoints' game counts (0 first); ``cost``, ``bits``,
    ``rmse``, ``misordered``, ``mean_rank_gap`` are (seeds, P); ``ratings`` (seeds,
    players) the final estimates; ``white``/``black``/``score`` (seeds, games) the game
    log when asked for.
    """

    scheduler: str
    system: str
    seeds: np.ndarray
    games: np.ndarray
    cost: np.ndarray
    bits: np.ndarray
    rmse: np.ndarray
    misordered: np.ndarray
    mean_rank_gap: np.ndarray
    ratings: np.ndarray
    white: np.ndarray | None = None
    black: np.ndarray | None = None
    score: np.ndarray | None = None
    #: the virtual (wins, losses) newcomers were seeded with
    seed_games: tuple[int, int] = (0, 0)

    @property
    def label(self) -> str:
        """``scheduler (system)``, with the seeding when there was one."""
        seeded = f", seeded {self.seed_games[0]}-{self.seed_games[1]}" if sum(
            self.seed_games) else ""
        return f"{self.scheduler} ({self.system}{seeded})"

    @property
    def bits_per_cost(self) -> np.ndarray:
        """Cumulative bits per unit cost (NaN at 0 games)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.cost > 0, self.bits / self.cost, np.nan)

    @property
    def window_bits_per_cost(self) -> np.ndarray:
        """Bits per unit cost of the games between the previous checkpoint and this one."""
        out = np.full(self.cost.shape, np.nan)
        dc = np.diff(self.cost, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, 1:] = np.where(dc > 0, np.diff(self.bits, axis=1) / dc, np.nan)
        return out

    def table(self, mean: bool = False) -> dict[str, np.ndarray]:
        """The metrics as columns :data:`METRIC_COLUMNS`: one row per seed and checkpoint,
        or (``mean=True``) the mean over seeds per checkpoint (``seed`` = -1)."""
        cols = {"cost": self.cost, "bits": self.bits, "bits_per_cost": self.bits_per_cost,
                "window_bits_per_cost": self.window_bits_per_cost, "rmse": self.rmse,
                "misordered": self.misordered, "mean_rank_gap": self.mean_rank_gap}
        s, p = self.cost.shape
        if mean:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns at 0 games
                vals = {key: np.nanmean(v, axis=0) for key, v in cols.items()}
            seed = np.full(p, -1, dtype=np.int64)
            games = self.games.copy()
            rows = p
        else:
            vals = {key: v.reshape(-1) for key, v in cols.items()}
            seed = np.repeat(self.seeds, p)
            games = np.tile(self.games, s)
            rows = s * p
        out: dict[str, np.ndarray] = {
            "scheduler": np.array([self.scheduler] * rows, dtype=object),
            "system": np.array([self.system] * rows, dtype=object),
            "seed": seed, "games": games}
        for key in METRIC_COLUMNS[4:]:
            out[key] = vals[key]
        return out


def _seed_plan(ladder: Ladder, wins: int, losses: int) -> tuple[np.ndarray, np.ndarray]:
    """Each newcomer's virtual opponent (-1: none) and virtual wins."""
    n = ladder.n_players
    opp = np.full(n, -1, dtype=np.int64)
    vwins = np.zeros(n, dtype=np.int64)
    if wins + losses == 0:
        return opp, vwins
    t = ladder.true_rating
    order = np.lexsort((np.arange(n), ladder.arrival))
    present: list[int] = []
    for x in order.tolist():
        if ladder.arrival[x] > 0 and present:
            best = min(present, key=lambda y: (abs(t[y] - t[x]), t[y] > t[x], y))
            opp[x] = best
            vwins[x] = wins if t[best] <= t[x] else losses
        present.append(x)
    return opp, vwins


def _elo_step(config: EloConfig) -> tuple[EloStep, float]:
    """The simulator's Elo game step and initial rating from an EloConfig (refusing
    options the simulator does not run)."""
    if not isinstance(config, EloConfig):
        raise ConfigError(f"'elo' must be an EloConfig; got {type(config).__name__}")
    unsupported = [name for name, ok in (
        ("k_schedule", config.k_schedule == "constant"), ("margin", config.margin == "none"),
        ("regression", config.regression == 0.0), ("update", config.update == "game"),
        ("advantage", config.advantage == 0.0)) if not ok]
    if unsupported:
        raise ConfigError("the ladder simulator runs Elo with constant K, game-by-game, no "
                          f"margin, regression or advantage; got {', '.join(unsupported)} "
                          "set in the EloConfig")
    return (EloStep(float(config.k), LN10 / config.scale, float(config.cap or 0.0), 0.0),
            float(config.initial_rating))


def _physical_memory() -> float:
    """Bytes of RAM (inf where the system does not say), to refuse results that cannot
    fit before allocating them: with memory overcommit the allocation itself succeeds."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return math.inf


def simulate(ladder: Ladder, scheduler: str = "gaussian", system: str = "elo",
             n_games: int = 20_000, *, n_seeds: int = 1, seed: int = 0, sigma: float = 3.0,
             candidates: int = 3, elo: EloConfig | None = None,
             glicko2: Glicko2Config | None = None, period_games: int | None = None,
             seed_games: tuple[int, int] = (0, 0), n_points: int = 20,
             start: str = "initial", record_games: bool = False) -> LadderResult:
    """Simulate ``n_games`` ladder games per seed for seeds ``seed .. seed+n_seeds-1``.

    ``scheduler``: ``nearest`` (best of ``candidates`` random opponents), ``gaussian``
    (rank offset ~ Normal(0, ``sigma``)) or ``greedy`` (max expected bits per cost).
    ``system``: ``elo`` (``elo``, default ``EloConfig()``: K 32) or ``glicko2``
    (``glicko2``, default ``Glicko2Config()``, ``period_games`` games per rating
    period, default one per player). ``seed_games=(W, L)`` seeds newcomers with virtual
    games. ``start="truth"`` starts the players present from the beginning at their true
    ratings shifted to the initial rating's mean (an established ladder: the error then
    measures how well each scheduler *keeps* the ratings right) instead of all at the
    initial rating. ``record_games=True`` keeps the game log. See the module docstring for the
    model and the metrics. Deterministic for a seed, whatever the thread count.
    """
    if not isinstance(ladder, Ladder):
        raise InputError(f"'ladder' must be a Ladder (e.g. Ladder.geometric(34)); got "
                         f"{type(ladder).__name__}")
    o = "simulate"
    check_choice(o, "scheduler", scheduler, SCHEDULERS)
    check_choice(o, "system", system, SYSTEMS)
    check_number(o, "n_games", n_games, lo=1.0, hi=1e15, integer=True)
    check_number(o, "n_seeds", n_seeds, lo=1.0, hi=1e9, integer=True)
    check_number(o, "seed", seed, lo=0.0, hi=float(_SEED_MAX), integer=True)
    check_number(o, "sigma", sigma, lo=0.5, hi=1e9)
    check_number(o, "candidates", candidates, lo=1.0, hi=1e9, integer=True)
    check_number(o, "n_points", n_points, lo=1.0, hi=1e7, integer=True)
    if not (isinstance(seed_games, (tuple, list)) and len(seed_games) == 2):
        raise ConfigError(f"'seed_games' of simulate must be (wins, losses); got {seed_games!r}")
    check_number(o, "seed_games wins", seed_games[0], lo=0.0, hi=1e6, integer=True)
    check_number(o, "seed_games losses", seed_games[1], lo=0.0, hi=1e6, integer=True)
    n_games, n_seeds, seed = int(n_games), int(n_seeds), int(seed)
    if seed + n_seeds - 1 > _SEED_MAX:
        raise ConfigError(f"'seed' + 'n_seeds' - 1 of simulate must be below 2**63; got "
                          f"{seed + n_seeds - 1}")
    late = ladder.arrival >= n_games
    if late.any():
        i = int(np.argmax(late))
        raise InputError(f"'arrival' must be below n_games={n_games}; found "
                         f"{int(ladder.arrival[i])} for player {i}")
    n = ladder.n_players
    if period_games is None:
        period_games = n
    check_number(o, "period_games", period_games, lo=1.0, hi=1e15, integer=True)
    check_choice(o, "start", start, STARTS)
    elo_step, init_rating = _elo_step(EloConfig() if elo is None else elo)
    g2 = Glicko2Config() if glicko2 is None else glicko2
    if not isinstance(g2, Glicko2Config):
        raise ConfigError(f"'glicko2' must be a Glicko2Config; got {type(g2).__name__}")
    if system == "glicko2":
        init_rating = float(g2.initial_rating)
    start_rating = np.full(n, init_rating)
    if start == "truth":
        present = ladder.arrival == 0
        t = ladder.true_rating
        start_rating[present] = t[present] - t[present].mean() + init_rating
    g2_scale = float(g2.scale)
    wins, losses = int(seed_games[0]), int(seed_games[1])
    opp, vwins = _seed_plan(ladder, wins, losses)
    arrival_order = np.lexsort((np.arange(n), ladder.arrival)).astype(np.int64)
    ends = np.unique(np.array([0] + [(t * n_games) // int(n_points)
                                     for t in range(1, int(n_points) + 1)], dtype=np.int64))
    p = ends.shape[0]
    m = n_seeds * n_games if record_games else 0
    need = 8 * (n_seeds * (5 * p + n + 1) + 3 * m)
    try:
        if need > _physical_memory():
            raise MemoryError
        o_cost, o_bits, o_rmse, o_mis, o_gap = (np.empty(n_seeds * p) for _ in range(5))
        o_rating = np.empty(n_seeds * n)
        log_w = np.zeros(m, dtype=np.int64)
        log_b = np.zeros(m, dtype=np.int64)
        log_s = np.zeros(m, dtype=np.float64)
        seeds = np.arange(seed, seed + n_seeds, dtype=np.int64)
    except MemoryError:
        gib = need / 2**30
        raise ConfigError(f"not enough memory for the results of {n_seeds:,} seeds "
                          f"({gib:,.1f} GiB): use fewer seeds (--seeds), checkpoints "
                          "(--points) or players") from None
    params = _LadderParams(
        SCHEDULERS.index(scheduler), float(sigma), int(candidates), SYSTEMS.index(system),
        n_games, wins + losses, int(period_games), elo_step,
        glicko2_step(g2.tau, g2.epsilon, g2.max_iterations),
        FamilyRule(GROW_PER_MISSED, g2_scale * g2_scale, float(g2.max_rd) ** 2, 0.0,
                   1.0 / g2_scale, 3.0 / (math.pi * math.pi * g2_scale * g2_scale),
                   float(g2.advantage)),
        g2_scale, float(g2.initial_rd) ** 2, float(g2.initial_volatility))
    args = (params, ladder.true_rating, ladder.cost, ladder.arrival, arrival_order, opp, vwins,
            start_rating)
    _run_seeds(seeds, args, n, n_games, ends, (o_cost, o_bits, o_rmse, o_mis, o_gap),
               o_rating, (log_w, log_b, log_s))
    shape = (n_seeds, p)
    log = (log_w.reshape(n_seeds, n_games), log_b.reshape(n_seeds, n_games),
           log_s.reshape(n_seeds, n_games)) if record_games else (None, None, None)
    return LadderResult(scheduler=scheduler, system=system, seeds=seeds, games=ends,
                        cost=o_cost.reshape(shape), bits=o_bits.reshape(shape),
                        rmse=o_rmse.reshape(shape), misordered=o_mis.reshape(shape),
                        mean_rank_gap=o_gap.reshape(shape), ratings=o_rating.reshape(n_seeds, n),
                        white=log[0], black=log[1], score=log[2], seed_games=(wins, losses))


def compare(ladder: Ladder, schedulers: Any = SCHEDULERS, **kwargs: Any) -> list[LadderResult]:
    """:func:`simulate` with every scheduler of ``schedulers`` (same seeds, same options)."""
    if isinstance(schedulers, str):
        schedulers = [schedulers]
    return [simulate(ladder, s, **kwargs) for s in schedulers]


def ladder_table(results: Any, mean: bool = False) -> dict[str, np.ndarray]:
    """The :meth:`LadderResult.table` of one or several results, stacked."""
    if isinstance(results, LadderResult):
        results = [results]
    tables = [r.table(mean=mean) for r in results]
    if not tables:
        raise InputError("no results to tabulate")
    return {c: np.concatenate([t[c] for t in tables]) for c in METRIC_COLUMNS}


def opponent_probabilities(scheduler: str, position: int, n_players: int, *,
                           candidates: int = 3, sigma: float = 3.0) -> np.ndarray:
    """Exact probability of each rank being the opponent of the player at rank
    ``position`` (0 = top) in a ladder of ``n_players`` (``nearest`` or ``gaussian``).

    ``nearest``: with ``c = min(candidates, N-1)`` distinct random opponents, the nearest
    is at distance >= d with probability ``C(N-1-a(d), c) / C(N-1, c)``, ``a(d)`` the ranks
    nearer than d; two ranks at the same distance share it equally (the one drawn first
    wins). ``gaussian``: ``P(R = r)`` is proportional to
    ``Phi((r + 1/2)/sigma) - Phi((r - 1/2)/sigma)`` over the ranks that exist, ``r != 0``
    (redrawing is conditioning).
    """
    o = "opponent_probabilities"
    check_choice(o, "scheduler", scheduler, ("nearest", "gaussian"))
    check_number(o, "n_players", n_players, lo=2.0, hi=1e7, integer=True)
    n = int(n_players)
    check_number(o, "position", position, lo=0.0, hi=float(n - 1), integer=True)
    p = int(position)
    ranks = np.arange(n)
    dist = np.abs(ranks - p)
    out = np.zeros(n)
    if scheduler == "gaussian":
        check_number(o, "sigma", sigma, lo=0.5, hi=1e9)
        r = (ranks - p).astype(np.float64)
        erf = np.vectorize(math.erf)
        cdf_hi = 0.5 * (1.0 + erf((r + 0.5) / (sigma * math.sqrt(2.0))))
        cdf_lo = 0.5 * (1.0 + erf((r - 0.5) / (sigma * math.sqrt(2.0))))
        out = np.where(r != 0, cdf_hi - cdf_lo, 0.0)
        return out / out.sum()
    check_number(o, "candidates", candidates, lo=1.0, hi=1e9, integer=True)
    c = min(int(candidates), n - 1)
    total = math.comb(n - 1, c)
    for d in range(1, n):
        at = np.flatnonzero(dist == d)
        if at.shape[0] == 0:
            break
        nearer = int(((dist > 0) & (dist < d)).sum())
        p_ge_d = math.comb(n - 1 - nearer, c) / total
        p_ge_next = math.comb(n - 1 - nearer - at.shape[0], c) / total
        out[at] = (p_ge_d - p_ge_next) / at.shape[0]
    return out


def _axis_scale(ax: Any, series: list[np.ndarray]) -> None:
    """A log y axis when the positive values span more than a factor 20, else linear
    from 0."""
    v = np.concatenate(series) if series else np.zeros(0)
    v = v[np.isfinite(v) & (v > 0)]
    if v.shape[0] and v.max() > 20.0 * v.min():
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)


def check_plot_path(path: str | os.PathLike) -> tuple[Path, Path]:
    """(target, folder) of a plot file; raises unless it is named .png in an existing
    folder, so a caller can check before a long simulation."""
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise InputError(f"cannot write {path}: the plot is a PNG image; name it .png "
                         f"(e.g. {target.with_suffix('.png').name})")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: folder {folder} does not exist")
    return target, folder


def plot(results: Any, path: str | os.PathLike, *, title: str | None = None,
         dpi: int = 100) -> Path:
    """Draw the schedulers side by side into a PNG at ``path`` (written atomically):
    bits gained per unit cost (between checkpoints) and the rating error (RMSE against
    the truth, mean over seeds with the 10-90% band) against the cumulative cost, the
    post's time. Needs matplotlib (``pip install fastrate[plots]``)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install matplotlib (the 'plots' "
                          "extra of fastrate)") from None
    if isinstance(results, LadderResult):
        results = [results]
    if not results:
        raise InputError("no results to plot")
    target, folder = check_plot_path(path)
    fig = Figure(figsize=(10, 4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    shown: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for r in results:
        label = r.label
        x = r.cost.mean(axis=0)
        w = r.window_bits_per_cost
        with np.errstate(invalid="ignore"):
            wm = np.nanmean(w[:, 1:], axis=0)
        ax1.plot(x[1:], wm, marker=".", label=label)
        line, = ax2.plot(x, r.rmse.mean(axis=0), label=label)
        shown[0].append(wm)
        shown[1].append(r.rmse.mean(axis=0))
        if r.rmse.shape[0] > 1:
            lo, hi = np.quantile(r.rmse, [0.1, 0.9], axis=0)
            ax2.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
    ax1.set_xlabel("cumulative cost (time units)")
    ax1.set_ylabel("bits per unit cost")
    ax1.set_title("information gained per unit cost")
    _axis_scale(ax1, shown[0])
    ax1.legend(fontsize="small")
    ax2.set_xlabel("cumulative cost (time units)")
    ax2.set_ylabel("rating RMSE vs truth (Elo)")
    _axis_scale(ax2, shown[1])
    ax2.set_title("rating error")
    ax2.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    from fastrate._files import atomic_file

    with atomic_file(target) as fh:
        fig.savefig(fh, format="png", dpi=dpi)
    return target
