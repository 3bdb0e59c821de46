"""Elo ratings of bridge players from pair results on duplicate boards (SPEC §3.4;
bridge thesis, Krajowski-Kukiel 2011, chapter 4).

A board is played at N tables; at each table an NS pair meets an EW pair. Each row's
result is NS's average cross-IMPs on the board; NS **wins** (S = 1) with more than
``draw_margin`` (1) IMP, **loses** (S = 0) with less than ``-draw_margin``, otherwise it
is a draw (S = 0.5). A pair's rating is the mean of its two players' ratings plus an
optional partnership-experience bonus ``B (1 - exp(-n/n0))`` (``n`` = boards the two
have played together before this board). The expected score of NS is the Elo curve
``E = 1 / (1 + 10^(-d/s))`` of the rating lead ``d`` (clipped to ``[-cap, cap]``, the
rule of 400), and each player of a pair gets the pair's change ``K M (S - E)`` (EW gets
the negation) -- so the two partners move together.

Models (``BridgeEloConfig.model``):

* ``"plain"`` -- ``d = r_NS - r_EW``: the pair against its opponents only.
* ``"field"`` (default) -- thesis eq. 4.7: a pair's result is compared with the pairs
  on its own line at the other tables, who played against the pairs of the opposite
  line. Strong players on the opposite line (in effect the pair's team-mates) make a
  good result more likely, strong players on the own line less likely. For table t::

      gamma_t = ((R_o - r_to) - (R_p - r_tp)) / (2.5 N)

  ``R_p`` = sum of the pair ratings on the pair's own line (NS or EW) over the board's
  N (real) tables, ``R_o`` the same for the opposite line, ``r_tp`` the pair's own
  rating and ``r_to`` its opponents'; ``d = r_tp + gamma_t - r_to``. (For EW, gamma is
  the negation of NS's, so E_EW = 1 - E_NS.) O(N) per board.
* ``"artificial"`` -- the thesis's first approach (§4.1.2): every two tables i < j form
  a match of team {NS_i, EW_j} against team {NS_j, EW_i}; a team's rating is the mean of
  its four players (the mean of its two pair ratings), the result is
  ``IMP(s_i - s_j)`` (NS points) with the same draw margin, and a player's change is
  ``K`` times the mean of ``M (S - E)`` over the N - 1 matches he was in. Every pair of
  tables is a match by definition, so a board costs O(N^2): N(N-1)/2 matches (a
  1,000-table board is 499,500 matches, about 5 ms at 5-10 ns a match). The row's prediction is NS_i's mean
  expected score over its matches; its outcome is still the cross-IMP result above, so
  every model is evaluated against the same outcomes.

Options: K constant (16, the SPEC decision) or by a table of the player's boards played
(``k_games``, rows ``(upper bound, K)`` as :class:`fastrate.ratings.elo.EloConfig`'s
``k_table``), times a multiplier by the partnership's boards together
(``k_experience``, rows ``(upper bound, multiplier)``); a margin multiplier ``M`` of
the IMPs ``x`` of the result (``"linear"``: ``1 + |x|/c``; ``"log"``:
``1 + ln(1 + |x|/c)``; ``c = margin_scale``); rating periods (``update="period"``:
changes accumulate over each of the boards' rating periods, from the ratings at its
start, and apply at its end; ``"board"`` or boards without periods: after each board);
``burn_in`` periods left out of the scores.

Rows that are not rated: artificial (adjusted) results, and every row of a board with
fewer than two real results (no comparison). Their prediction and outcome are NaN.

Identifiability: pair results tell only a pair's mean rating. Players in different
components of the board graph are on unrelated scales, and inside a component of the
partnership graph that has no odd cycle (a fixed partnership, or any bipartite set of
partnerships) one can add ``t`` to one side and subtract it from the other without
changing any pair rating: the data cannot tell those individual ratings apart (Elo
leaves that direction where the initial ratings put it). :func:`components` counts
both (also ``rate()``'s result, on first use).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_choice, check_number, check_type, format_value, require
from fastrate.data import PlayerIndex, Ratings
from fastrate.data._board_scoring import IMP_THRESHOLDS, imp_of
from fastrate.data.boards import Boards, player_graphs, to_input_order
from fastrate.data.evaluation import (
    NULL_LABEL,
    Evaluation,
    check_bins,
    check_burn_in,
    score_rows,
)
from fastrate.data.periods import period_starts
from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.ratings._common import LN10, cap_lead, exp, records, select, table_value
from fastrate.ratings._common import expected_score as _expected_score

__all__ = ["BridgeEloConfig", "BridgeRatings", "BridgeEvaluation", "Components", "rate",
           "components", "evaluate", "evaluate_ratings",
           "expected_score", "field_adjustment", "burn_in_mask", "partnership_ids", "MODELS",
           "MARGINS"]

MODELS = ("field", "plain", "artificial")
MARGINS = ("none", "linear", "log")
UPDATES = ("period", "board")

_INF = math.inf
_NO_PERIOD = np.iinfo(np.int64).min


#: the largest K, K-table value, K multiplier, |initial rating| and |experience bonus|,
#: and the smallest scale, margin scale and field divisor: within these a board moves a
#: rating by at most 1e9 * 1e9 * (1 + 24/1e-9) < 3e28 points, so no run of fewer than
#: 1e18 boards can overflow (the ratings, their sums over a board's tables and the Elo
#: curve's exponent all stay finite)
MAX_FACTOR = 1e9
MIN_SCALE = 1e-9


def _check_bounded(owner: str, name: str, value: Any, *, lo: float, hi: float,
                   lo_open: bool = False) -> float:
    """:func:`check_number` with a finite range, saying why the range is finite."""
    try:
        return check_number(owner, name, value, lo=lo, hi=hi, lo_open=lo_open)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (values beyond the range can overflow the ratings to "
                          "inf or NaN)") from None


def _check_table(owner: str, name: str, table: Any, value_name: str) -> None:
    """Rows ``(upper bound, value)``, bounds increasing, the last one ``inf`` (the
    representation of the Elo module's ``k_table``)."""
    if not isinstance(table, (tuple, list)):
        raise ConfigError(f"'{name}' of {owner} must be rows of (upper bound, {value_name}), "
                          f"e.g. ((30, 40), (inf, 20)); got {table!r}")
    bounds = []
    for row in table:
        if not isinstance(row, (tuple, list)) or len(row) != 2:
            raise ConfigError(f"'{name}' of {owner} rows must be (upper bound, {value_name}); "
                              f"got {row!r}")
        check_number(owner, f"{name} bound", row[0], lo=0.0)
        _check_bounded(owner, f"{name} {value_name}", row[1], lo=0.0, hi=MAX_FACTOR)
        bounds.append(float(row[0]))
    if any(b2 <= b1 for b1, b2 in zip(bounds, bounds[1:])):
        raise ConfigError(f"'{name}' of {owner} bounds must increase; got {bounds}")
    if bounds and bounds[-1] != _INF:
        raise ConfigError(f"'{name}' of {owner} must end with an (inf, {value_name}) row so "
                          f"every count has a value; last bound is {bounds[-1]}")


@dataclass(frozen=True)
class BridgeEloConfig:
    """Parameters of a bridge Elo run (validated on construction).

    ``k``: K (SPEC decision: 16, constant). ``scale``: the Elo scale s (400).
    ``initial_rating``: a new player's rating. ``cap``: the rule of 400 (the rating lead
    used in E is clipped to ``[-cap, cap]``; None turns it off). ``draw_margin``: IMPs
    within which a result is a draw (1). ``model``: ``"field"`` (thesis eq. 4.7),
    ``"plain"`` or ``"artificial"`` (matches between every two tables).
    ``gamma_divisor``: the 2.5 of eq. 4.7. ``k_games``: K by the player's boards played
    before the board, rows ``(upper bound, K)``, e.g. ``((100, 32), (inf, 16))``; empty:
    ``k``. ``k_experience``: a K multiplier by the partnership's boards together before
    the board, rows ``(upper bound, multiplier)``; empty: 1. ``margin``: ``"none"``,
    ``"linear"`` (``M = 1 + |x|/margin_scale``) or ``"log"``
    (``M = 1 + ln(1 + |x|/margin_scale)``), x the result's IMPs. ``experience_bonus``
    B and ``experience_n0`` n0: ``B (1 - exp(-n/n0))`` added to a pair's rating.
    ``update``: ``"period"`` (accumulate over the boards' rating periods) or
    ``"board"``. ``burn_in``: rating periods left out of the scores.
    """

    k: float = 16.0
    scale: float = 400.0
    initial_rating: float = 1500.0
    cap: float | None = 400.0
    draw_margin: float = 1.0
    model: str = "field"
    gamma_divisor: float = 2.5
    k_games: tuple[tuple[float, float], ...] = ()
    k_experience: tuple[tuple[float, float], ...] = ()
    margin: str = "none"
    margin_scale: float = 10.0
    experience_bonus: float = 0.0
    experience_n0: float = 100.0
    update: str = "period"
    burn_in: int = 0

    def __post_init__(self) -> None:
        o = "BridgeEloConfig"
        _check_bounded(o, "k", self.k, lo=0.0, hi=MAX_FACTOR)
        check_number(o, "scale", self.scale, lo=MIN_SCALE, hi=_INF, hi_open=True)
        _check_bounded(o, "initial_rating", self.initial_rating, lo=-MAX_FACTOR,
                       hi=MAX_FACTOR)
        if self.cap is not None:
            check_number(o, "cap", self.cap, lo=0.0, hi=_INF, lo_open=True)
        check_number(o, "draw_margin", self.draw_margin, lo=0.0, hi=_INF, hi_open=True)
        check_choice(o, "model", self.model, MODELS)
        check_number(o, "gamma_divisor", self.gamma_divisor, lo=MIN_SCALE, hi=_INF,
                     hi_open=True)
        _check_table(o, "k_games", self.k_games, "K")
        _check_table(o, "k_experience", self.k_experience, "multiplier")
        check_choice(o, "margin", self.margin, MARGINS)
        check_number(o, "margin_scale", self.margin_scale, lo=MIN_SCALE, hi=_INF,
                     hi_open=True)
        _check_bounded(o, "experience_bonus", self.experience_bonus, lo=-MAX_FACTOR,
                       hi=MAX_FACTOR)
        check_number(o, "experience_n0", self.experience_n0, lo=0.0, hi=_INF, lo_open=True,
                     hi_open=True)
        check_choice(o, "update", self.update, UPDATES)
        check_number(o, "burn_in", self.burn_in, lo=0.0, integer=True)

    @property
    def uses_partnerships(self) -> bool:
        """Whether the run needs partnership ids (experience bonus or K multiplier)."""
        return self.experience_bonus != 0.0 or bool(self.k_experience)

    def label(self) -> str:
        """A short name for tables: the model and the non-default options."""
        parts = []
        default = BridgeEloConfig()
        for name in ("k", "scale", "initial_rating", "cap", "draw_margin", "gamma_divisor",
                     "k_games", "k_experience", "margin", "margin_scale",
                     "experience_bonus", "experience_n0", "update"):
            v = getattr(self, name)
            if v != getattr(default, name):
                if isinstance(v, float) and v.is_integer():
                    v = int(v)
                parts.append(f"{name}={v}")
        return self.model + (":" + ",".join(parts) if parts else "")


# ----------------------------------------------------------------------------------
# kernels

_MODEL = {name: i for i, name in enumerate(MODELS)}

# Per-player working record: one 64-byte row (a cache line) holds everything a seat
# reads and writes, so a table touches four cache lines of player data, not twenty.
REC_RATING = 0  #: the rating
REC_PENDING = 1  #: changes collected over the current period
REC_STAMP = 2  #: index of the last period the player was listed in (-1 before)
REC_PLAYED = 3  #: boards rated (a whole number, exact as float64 below 2**53)
REC_LAST = 4  #: period of the last board rated (NaN: never)

_MARGIN = {name: i for i, name in enumerate(MARGINS)}


@inline_kernel
def _margin_multiplier(mode, x, scale):
    """``1 + |x|/c`` (mode 1) or ``1 + ln(1 + |x|/c)`` (mode 2) of the IMPs ``x``."""
    ax = abs(x) / scale
    if mode == 1:
        return 1.0 + ax
    return 1.0 + math.log1p(ax)


@inline_kernel
def _table_value(count, bounds, values):
    """The value of the ``(upper bound, value)`` row for ``count`` (as the Elo module's K
    schedule by games)."""
    return table_value(float(count), bounds, values)


@inline_kernel
def _bonus(n, table, bonus, n0):
    """``B (1 - exp(-n/n0))``, from ``table`` (the same expression, computed once per
    run for small n) when n is in it."""
    if n < table.shape[0]:
        return table[n]
    return bonus * (1.0 - math.exp(-n / n0))


class _BridgeEloParams(NamedTuple):
    """The scalars of :func:`_bridge_elo_kernel`."""

    model: int  #: the index of the model in ``MODELS``
    k: float
    factor: float  #: ln(10) / scale
    cap: float  #: the rule-of-400 cap of the rating lead (0: none)
    draw_margin: float
    win_points: float
    mov_mode: int  #: the index of the margin multiplier in ``MARGINS``
    mov_scale: float
    bonus: float  #: the experience bonus
    n0: float  #: its experience scale
    gamma_div: float  #: the field adjustment's divisor
    by_period: bool  #: update once per rating period


@kernel
def _bridge_elo_kernel(offsets, board_period, north, south, east, west, imps, ns_score,
                       ns_pid, ew_pid, rec, together, params,
                       k_bounds, k_values, x_bounds, x_values, thresholds,
                       touched, sa, sb, acc_ns, acc_ew, acc_e, m_delta, m_e, rows,
                       bonus_table, pred, outcome):  # pragma: no cover - jit
    """Bridge Elo over boards in stored (chronological) order.

    A row is rated when ``imps`` (NS's cross-IMPs; NaN for artificial rows and boards
    without a comparison) is a number. Pass 1 reads the board's pair ratings into the
    scratch ``sa``/``sb`` (length >= the largest board); pass 2 computes predictions,
    outcomes and changes (the artificial model first sums its matches into
    ``acc_*``). ``board_period``, ``ns_pid``/``ew_pid`` (partnership ids), ``k_bounds``
    and ``x_bounds`` may have length 0 (absent). ``rec`` holds the player records
    (``REC_*`` columns). With ``by_period``, changes collect in the records' pending
    sums and apply when the period changes; otherwise right after the board
    (every rating of a board is read in pass 1, each player sits once per board, so
    his count of boards played can move on as soon as his K is known).
    ``south == north`` (pairs rated as units) updates the unit once. The four seats are
    a loop, not four inlined copies: LLVM compiles the copies 4-5x slower. Expected
    scores are computed for a whole board (or a table's matches) in a loop with no
    branches or calls before the updates, so it vectorises.
    """
    (model, k, factor, cap, draw_margin, win_points, mov_mode, mov_scale, bonus, n0,
     gamma_div, by_period) = params
    n_boards = offsets.shape[0] - 1
    has_period = board_period.shape[0] > 0
    has_pid = ns_pid.shape[0] > 0
    use_kg = k_bounds.shape[0] > 0
    use_kx = x_bounds.shape[0] > 0
    n_touched = 0
    flushes = 0
    if bonus != 0.0:
        for i in range(bonus_table.shape[0]):
            bonus_table[i] = bonus * (1.0 - math.exp(-i / n0))
    cur = board_period[0] if (has_period and n_boards > 0) else 0
    for bi in range(n_boards):
        lo = offsets[bi]
        hi = offsets[bi + 1]
        p = board_period[bi] if has_period else bi
        if by_period and p != cur:
            for t in range(n_touched):
                q = touched[t]
                rec[q, REC_RATING] += rec[q, REC_PENDING]
                rec[q, REC_PENDING] = 0.0
            n_touched = 0
            flushes += 1
            cur = p
        # pass 1: pair ratings (and the line sums of the field model)
        m = 0
        sum_a = 0.0
        sum_b = 0.0
        for r in range(lo, hi):
            if imps[r] != imps[r]:
                pred[r] = np.nan
                outcome[r] = np.nan
                continue
            a = 0.5 * (rec[north[r], REC_RATING] + rec[south[r], REC_RATING])
            b = 0.5 * (rec[east[r], REC_RATING] + rec[west[r], REC_RATING])
            if bonus != 0.0:
                a += _bonus(together[ns_pid[r]], bonus_table, bonus, n0)
                b += _bonus(together[ew_pid[r]], bonus_table, bonus, n0)
            sa[m] = a
            sb[m] = b
            rows[m] = r
            sum_a += a
            sum_b += b
            m += 1
        if m < 2:  # no comparison (only when given scores claim one)
            for t in range(m):
                pred[rows[t]] = np.nan
                outcome[rows[t]] = np.nan
            continue
        inv = 1.0 / (m - 1)
        if model == 2:
            # artificial matches: team {NS_i, EW_j} against team {NS_j, EW_i}, i < j;
            # the lead of team i is half the difference of the two tables' leads
            for t in range(m):
                sa[t] = sa[t] - sb[t]  # the table's lead, NS over EW
                sb[t] = ns_score[rows[t]]
                acc_ns[t] = 0.0
                acc_ew[t] = 0.0
                acc_e[t] = 0.0
            for i in range(m):
                ui = sa[i]
                si = sb[i]
                # the matches of table i with the tables after it: a loop without
                # branches or calls, which LLVM vectorises (the Elo curve of
                # _common.logistic, written with _common's call-free exp)
                for j in range(i + 1, m):
                    d = cap_lead(0.5 * (ui - sa[j]), cap)
                    e = 1.0 / (1.0 + exp(-d * factor))
                    diff = si - sb[j]
                    s = select(diff >= win_points, 1.0, select(-diff >= win_points, 0.0, 0.5))
                    m_delta[j] = s - e
                    m_e[j] = e
                if mov_mode != 0:
                    for j in range(i + 1, m):
                        m_delta[j] *= _margin_multiplier(
                            mov_mode, imp_of(si - sb[j], thresholds), mov_scale)
                for j in range(i + 1, m):
                    acc_ew[j] += m_delta[j]
                    acc_ns[j] -= m_delta[j]
                    acc_e[j] += 1.0 - m_e[j]
                tot_d = 0.0
                tot_e = 0.0
                for j in range(i + 1, m):
                    tot_d += m_delta[j]
                    tot_e += m_e[j]
                acc_ns[i] += tot_d
                acc_ew[i] -= tot_d
                acc_e[i] += tot_e
        else:
            # NS's expected score at every table (field: gamma of eq. 4.7); vectorised
            # like the matches above
            inv_field = 1.0 / (gamma_div * m) if model == 0 else 0.0
            for t in range(m):
                a = sa[t]
                b = sb[t]
                g = ((sum_b - b) - (sum_a - a)) * inv_field
                d = cap_lead(a + g - b, cap)
                acc_e[t] = 1.0 / (1.0 + exp(-d * factor))
        for t in range(m):
            r = rows[t]
            x = imps[r]
            s = 0.5
            if x > draw_margin:
                s = 1.0
            elif x < -draw_margin:
                s = 0.0
            outcome[r] = s
            if model == 2:
                pred[r] = acc_e[t] * inv
                d_ns = acc_ns[t] * inv
                d_ew = acc_ew[t] * inv
            else:
                e = acc_e[t]
                pred[r] = e
                d_ns = s - e
                if mov_mode != 0:
                    d_ns *= _margin_multiplier(mov_mode, x, mov_scale)
                d_ew = -d_ns
            if has_pid:
                if use_kx:
                    d_ns *= _table_value(together[ns_pid[r]], x_bounds, x_values)
                    d_ew *= _table_value(together[ew_pid[r]], x_bounds, x_values)
                # counts before the board were used in pass 1 and just above; each
                # partnership and player is at one table of a board
                together[ns_pid[r]] += 1
                together[ew_pid[r]] += 1
            for j in range(4):
                q = north[r] if j == 0 else (south[r] if j == 1 else (
                    east[r] if j == 2 else west[r]))
                if (j == 1 and q == north[r]) or (j == 3 and q == east[r]):
                    continue  # a pair rated as one unit
                c = d_ns if j < 2 else d_ew
                kq = _table_value(np.int64(rec[q, REC_PLAYED]), k_bounds, k_values) \
                    if use_kg else k
                rec[q, REC_PLAYED] += 1.0
                rec[q, REC_LAST] = p
                if by_period:
                    rec[q, REC_PENDING] += kq * c
                    if rec[q, REC_STAMP] != flushes:
                        rec[q, REC_STAMP] = flushes
                        touched[n_touched] = q
                        n_touched += 1
                else:
                    rec[q, REC_RATING] += kq * c
    for t in range(n_touched):
        q = touched[t]
        rec[q, REC_RATING] += rec[q, REC_PENDING]
        rec[q, REC_PENDING] = 0.0


@inline_kernel
def _hash_slot(key, mask):
    """Fibonacci hashing of a non-negative int64 key into ``mask + 1`` slots."""
    h = np.uint64(key) * np.uint64(11400714819323198485)
    return np.int64((h >> np.uint64(32)) & np.uint64(mask))


@kernel
def _partnership_ids_kernel(n, a, b, c, d, last, ns_pid, ew_pid):  # pragma: no cover - jit
    """Partnership id of every row's NS pair (players ``a``, ``b``) and EW pair (``c``,
    ``d``), in order of first appearance, with an open-addressing hash table of the keys
    ``min * n + max`` (grown by doubling at half load). Players mostly keep their
    partner, so ``last`` ((n, 2) int64, -1) remembers each player's last partnership
    (the higher partner and its id) and answers most rows without the table. Returns
    the keys by id."""
    rows = a.shape[0]
    cap = 4096
    keys = np.full(cap, -1, dtype=np.int64)
    vals = np.empty(cap, dtype=np.int64)
    by_id = np.empty(max(cap // 2, 16), dtype=np.int64)
    count = 0
    for r in range(rows):
        for side in range(2):
            x = a[r] if side == 0 else c[r]
            y = b[r] if side == 0 else d[r]
            lo = min(x, y)
            hi = max(x, y)
            if last[lo, 0] == hi:
                if side == 0:
                    ns_pid[r] = last[lo, 1]
                else:
                    ew_pid[r] = last[lo, 1]
                continue
            key = lo * n + hi
            mask = cap - 1
            slot = _hash_slot(key, mask)
            while keys[slot] != -1 and keys[slot] != key:
                slot = (slot + 1) & mask
            if keys[slot] == key:
                pid = vals[slot]
            else:
                pid = count
                keys[slot] = key
                vals[slot] = pid
                if count == by_id.shape[0]:
                    grown = np.empty(2 * by_id.shape[0], dtype=np.int64)
                    for i in range(count):  # not grown[:count] = ...: Numba compiles a
                        grown[i] = by_id[i]  # slice copy's shape-error path (+2 s)
                    by_id = grown
                by_id[count] = key
                count += 1
                if 2 * count > cap:  # rehash into twice the slots
                    cap *= 2
                    mask = cap - 1
                    keys = np.full(cap, -1, dtype=np.int64)
                    vals = np.empty(cap, dtype=np.int64)
                    for i in range(count):
                        s2 = _hash_slot(by_id[i], mask)
                        while keys[s2] != -1:
                            s2 = (s2 + 1) & mask
                        keys[s2] = by_id[i]
                        vals[s2] = i
            last[lo, 0] = hi
            last[lo, 1] = pid
            if side == 0:
                ns_pid[r] = pid
            else:
                ew_pid[r] = pid
    return by_id[:count].copy()


# ----------------------------------------------------------------------------------
# results


class Components(NamedTuple):
    """Components of the graphs of :func:`components`."""

    #: components of the board graph (players joined by playing the same board)
    n_components: int
    #: components of the partnership graph (players joined by partnering); 0 when the
    #: boards name pairs only (pairs are rated as units)
    n_partnership_components: int
    #: partnership components without an odd cycle: individual ratings not identifiable
    n_nonidentifiable: int


def components(boards: Any) -> Components:
    """Count the components that limit what ratings from pair results can tell, over
    every row of ``boards`` (players who appear):

    * the **board graph** joins all players of a board; ratings in different components
      are on unrelated scales (as :meth:`Boards.components`);
    * the **partnership graph** joins partners; pair results give only a pair's mean
      rating, so a component without an odd cycle (a fixed partnership, or any
      bipartite set of partnerships) leaves one direction free -- add ``t`` to one side
      and subtract it from the other and no pair rating changes: its players'
      individual ratings are **not identifiable** (as
      :meth:`Boards.partnership_components`).

    One O(rows) union-find pass (:func:`fastrate.data.boards.player_graphs`, which
    :class:`Boards` uses too); boards that name pairs only have no partnership graph.
    """
    index, north, south, east, west, pairs_only = _units(boards)
    g = player_graphs(boards.board_offsets, len(index), north, south, east, west)
    if pairs_only:
        return Components(g.n_components, 0, 0)
    return Components(g.n_components, g.n_partnership_components, g.n_nonidentifiable)


@dataclass(eq=False)
class BridgeRatings(Ratings):
    """The result of :func:`rate`: per-player ``rating`` and ``games_played`` (boards
    rated), ``predictions`` (NS's expected score before each row, input order, NaN for
    rows not rated), plus per stored row (the Boards' order) ``stored_predictions``,
    ``stored_outcome`` (S: 1 / 0.5 / 0 from the cross-IMPs and the draw margin) and
    ``stored_period``; ``rated`` (the rows with a prediction) and ``scored`` (rated and
    after the burn-in). ``outcome`` and ``period`` give input order.

    Components (see :func:`components`; computed on first use, about 1 s for 22M
    results): ``n_components`` (of the board graph: ratings in different components
    are on unrelated scales), ``n_partnership_components`` and ``n_nonidentifiable``
    (partnership components without an odd cycle, whose individual ratings the data
    cannot separate; see the module docstring). ``n_single_result_boards``: boards
    with fewer than two real results (skipped)."""

    stored_predictions: np.ndarray | None = None
    stored_outcome: np.ndarray | None = None
    stored_period: np.ndarray | None = None
    rated: np.ndarray | None = None
    scored: np.ndarray | None = None
    order: np.ndarray | None = field(default=None, repr=False)
    n_single_result_boards: int = 0
    n_partnerships: int | None = None
    #: boards each partnership has played together (``player_1``, ``player_2``,
    #: ``boards``; with ``experience_bonus`` or ``k_experience`` only): the state that
    #: continues a run exactly (see :meth:`partnerships_table`)
    partnerships: dict[str, np.ndarray] | None = field(default=None, repr=False)
    boards: Any = field(default=None, repr=False)
    _components: Components | None = field(default=None, repr=False)

    @property
    def components(self) -> Components:
        """Board and partnership components of the rated boards (computed once)."""
        if self._components is None:
            self._components = components(self.boards)
        return self._components

    @property
    def n_components(self) -> int:
        return self.components.n_components

    @property
    def n_partnership_components(self) -> int:
        return self.components.n_partnership_components

    @property
    def n_nonidentifiable(self) -> int:
        return self.components.n_nonidentifiable

    def __repr__(self) -> str:
        return (f"BridgeRatings({self.config.model if self.config else '?'}, {len(self)} "
                f"players, {int(self.rated.sum()) if self.rated is not None else 0} rated "
                "results)")

    @property
    def boards_played(self) -> np.ndarray:
        return self.games_played

    def partnerships_table(self):
        """Boards played together per partnership as a ``pyarrow.Table`` (``player_1,
        player_2, boards``; pairs rated as units have ``player_1 == player_2``), to
        save beside the ratings and pass back as ``partnerships=`` (CLI:
        ``--partnerships-out`` / ``--initial-partnerships``). None when the
        configuration does not use partnership experience."""
        if self.partnerships is None:
            return None
        import pyarrow as pa

        from fastrate._validate import numpy_to_arrow

        return pa.Table.from_arrays([numpy_to_arrow(v) for v in self.partnerships.values()],
                                    names=list(self.partnerships))

    @property
    def n_rated(self) -> int:
        return int(self.rated.sum())

    def _input(self, values: np.ndarray) -> np.ndarray:
        return to_input_order(self.order, values)

    @property
    def outcome(self) -> np.ndarray:
        """NS's result S of every row in input order (NaN: not rated)."""
        return self._input(self.stored_outcome)

    @property
    def period(self) -> np.ndarray:
        """The rating period of every row in input order (the board's index when the
        boards have no periods)."""
        return self._input(self.stored_period)

    def metrics(self, draws: str = "exclude") -> dict[str, float | int]:
        """Log loss, binomial deviance, Brier, RMSE and accuracy of the scored rows
        (:func:`fastrate.metrics.summary`)."""
        from fastrate import metrics

        m = self.scored
        return metrics.summary(self.stored_predictions[m], self.stored_outcome[m],
                               draws=draws)


# ----------------------------------------------------------------------------------
# public API

_EMPTY_F = np.zeros(0, dtype=np.float64)
_EMPTY_I = np.zeros(0, dtype=np.int64)


def expected_score(ns_rating: Any, ew_rating: Any, gamma: Any = 0.0,
                   config: BridgeEloConfig = BridgeEloConfig()) -> np.ndarray:
    """NS's expected score from the pair ratings (bonus included) and the field
    adjustment: ``1 / (1 + 10^(-d/s))``, ``d = r_NS + gamma - r_EW`` clipped to
    ``[-cap, cap]``. NumPy-vectorised."""
    d = (np.asarray(ns_rating, dtype=np.float64) + np.asarray(gamma, dtype=np.float64)
         - np.asarray(ew_rating, dtype=np.float64))
    if config.cap is not None:
        d = np.clip(d, -config.cap, config.cap)
    return _expected_score(d, 0.0, config.scale)


def field_adjustment(ns_ratings: Any, ew_ratings: Any, divisor: float = 2.5) -> np.ndarray:
    """Thesis eq. 4.7 for one board: NS's ``gamma_t`` at every table t (EW's is its
    negation), ``((R_EW - r_EW,t) - (R_NS - r_NS,t)) / (divisor N)`` from the pair
    ratings of the N tables.

    >>> field_adjustment([1600, 1500, 1400], [1500, 1500, 1500]).round(3).tolist()
    [13.333, 0.0, -13.333]
    """
    a = np.asarray(ns_ratings, dtype=np.float64)
    b = np.asarray(ew_ratings, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError(f"ns_ratings and ew_ratings must be 1-D of equal length; got "
                         f"shapes {a.shape} and {b.shape}")
    n = a.shape[0]
    return ((b.sum() - b) - (a.sum() - a)) / (divisor * n)


def _units(boards: Any) -> tuple[PlayerIndex, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                 bool]:
    """The rated units (players, or pair labels when the boards name pairs only) and the
    four seat arrays."""
    check_type(boards, Boards, "rate() needs fastrate.bridge.Boards",
               "build one with Boards.from_arrays or read_boards")
    if boards.players is not None:
        return boards.players, boards.north, boards.south, boards.east, boards.west, False
    if boards.pairs is None or boards.ns_pair is None:
        raise InputError("bridge Elo needs to know who played: these results name no players "
                         "(north, south, east, west) and no pairs (ns_pair, ew_pair)")
    return boards.pairs, boards.ns_pair, boards.ns_pair, boards.ew_pair, boards.ew_pair, True


def _row_imps(boards: Any, scores: Any) -> np.ndarray:
    """NS cross-IMPs per stored row, NaN where not rated (artificial rows, boards with
    fewer than two real results)."""
    if scores is None:
        scores = boards.score("cross-imps")
    ns = getattr(scores, "ns", scores)
    if getattr(scores, "method", "cross-imps") != "cross-imps":
        raise InputError(f"bridge Elo rates cross-IMPs; got scores of method "
                         f"{scores.method!r} (use boards.score('cross-imps'))")
    imps = np.array(ns, dtype=np.float64)
    if imps.shape != (boards.n_results,):
        raise InputError(f"scores must have one value per result ({boards.n_results}); got "
                         f"{imps.shape[0] if imps.ndim == 1 else imps.shape}")
    if boards.artificial is not None:
        imps[boards.artificial != 0] = np.nan
    return imps


def _initial_state(index: PlayerIndex, initial: Any, rating: float
                   ) -> tuple[PlayerIndex, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(index, rating, boards played, last period, mapping of board ids -> state ids or
    None) with ``initial`` overlaid (:meth:`fastrate.data.PlayerState.merge`); players
    known only to ``initial`` are kept."""
    from fastrate.data import PlayerState

    state, mapping = PlayerState.merge(index, initial, rating=rating)
    return state.players, state.rating, state.games_played, state.last_period, mapping


def _table_arrays(table: tuple) -> tuple[np.ndarray, np.ndarray]:
    if not table:
        return _EMPTY_F, _EMPTY_F
    return (np.array([float(r[0]) for r in table], dtype=np.float64),
            np.array([float(r[1]) for r in table], dtype=np.float64))


def _win_points(draw_margin: float) -> float:
    """The point difference whose IMPs exceed ``draw_margin``: ``IMP(d) > m`` exactly
    when ``|d| >= T[floor(m)]`` (IMPs are whole numbers)."""
    i = int(math.floor(draw_margin))
    return float(IMP_THRESHOLDS[i]) if i < IMP_THRESHOLDS.shape[0] else _INF


def burn_in_mask(boards: Any, burn_in: int) -> np.ndarray:
    """Stored rows of ``boards``: False for the rows of the first ``burn_in`` rating
    periods that hold boards, True after (periods with no boards do not count), as
    :func:`fastrate.data.evaluation.burn_in_mask` does for games."""
    k = check_burn_in(burn_in)
    mask = np.ones(boards.n_results, dtype=np.bool_)
    if k and boards.board_period is None:
        raise InputError(f"a burn-in of {k} period(s) needs boards with rating periods: "
                         "build them with a time column and period='3d' (--period 3d)")
    if k:
        starts = period_starts(boards.board_period)  # boards, per period
        mask[:boards.board_offsets[starts[min(k, starts.shape[0] - 1)]]] = False
    return mask


def partnership_ids(boards: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(ns_partnership, ew_partnership, first, second)`` like
    :meth:`Boards.partnerships` but in O(rows) with a hash table (ids in order of first
    appearance; ``first <= second`` are the two units). For boards that name pairs only,
    the pair labels are the partnerships (``first == second``)."""
    index, a, b, c, d, pairs_only = _units(boards)
    if pairs_only:
        ids = np.arange(len(index), dtype=np.int64)
        return a, c, ids, ids
    ns = np.empty(boards.n_results, dtype=np.int64)
    ew = np.empty(boards.n_results, dtype=np.int64)
    n = max(len(index), 1)
    last = np.full((len(index), 2), -1, dtype=np.int64)
    keys = _partnership_ids_kernel(np.int64(n), a, b, c, d, last, ns, ew)
    return ns, ew, keys // n, keys % n


def _partnership_key(a: Any, b: Any) -> tuple:
    """Order-free key of two unit names (ints and strings never mix in one index)."""
    return (a, b) if (str(type(a)), a) <= (str(type(b)), b) else (b, a)


def _previous_partnerships(initial: Any, partnerships: Any) -> dict | None:
    """``{(name, name): boards}`` from ``partnerships`` (a table with player_1, player_2,
    boards; one read with :func:`fastrate.read_ratings` names its file in errors) or,
    when that is None, from a previous :class:`BridgeRatings` given as ``initial``; None
    when neither says anything."""
    if partnerships is None:
        if isinstance(initial, BridgeRatings) and initial.partnerships is not None:
            partnerships = initial.partnerships
        else:
            return None
    elif isinstance(partnerships, BridgeRatings):
        partnerships = partnerships.partnerships
        if partnerships is None:
            return None
    from fastrate._validate import arrow_to_numpy, as_1d, as_float64, fail_at, to_arrow_table
    from fastrate.data import initial_source

    src = initial_source(partnerships, "initial partnerships")
    table = partnerships if isinstance(partnerships, dict) else None
    if table is None:
        t = to_arrow_table(partnerships)
        table = {c: arrow_to_numpy(t.column(c)) for c in t.column_names}
    missing = [c for c in ("player_1", "player_2", "boards") if c not in table]
    if missing:
        raise InputError(f"partnerships need columns player_1, player_2 and boards; missing "
                         f"{', '.join(missing)} in {src.name}")
    n = as_float64(table["boards"], "boards", src)
    bad = (n < 0) | (n != np.floor(n))
    if bad.any():
        raise fail_at("boards", "must be a whole number >= 0", n, int(np.argmax(bad)), src)
    a = as_1d(table["player_1"], "player_1").tolist()
    b = as_1d(table["player_2"], "player_2").tolist()
    out: dict = {}
    for i, (x, y, k) in enumerate(zip(a, b, n.astype(np.int64).tolist())):
        key = _partnership_key(x, y)
        if key in out:
            raise fail_at("player_1", f"lists the partnership {x!r} & {y!r} twice",
                          np.asarray(a, dtype=object), i, src)
        out[key] = k
    return out


def rate(boards: Any, config: BridgeEloConfig = BridgeEloConfig(), initial: Any = None, *,
         scores: Any = None, partnerships: Any = None) -> BridgeRatings:
    """Rate the players of ``boards`` (a :class:`fastrate.bridge.Boards`) with bridge Elo.

    ``initial``: starting ratings (a previous :class:`BridgeRatings`/:class:`Ratings`, a
    mapping name -> rating, or a table with ``player``, ``rating`` [, ``games_played``,
    ``last_period``]); players known only to it are kept. ``partnerships``: the boards
    each partnership played before (a table ``player_1, player_2, boards`` as
    :meth:`BridgeRatings.partnerships_table` writes it); by default taken from a
    previous :class:`BridgeRatings` passed as ``initial``, else zero. With both, a
    continued run equals rating everything at once. ``scores``: the boards' cross-IMPs
    when already computed (``boards.score("cross-imps")``), so several runs score once.

    Boards that name pairs only (``ns_pair``/``ew_pair``) rate each pair as one unit.
    """
    index, north, south, east, west, pairs_only = _units(boards)
    board_names = index.names
    check_type(config, BridgeEloConfig, "config must be a BridgeEloConfig")
    imps = _row_imps(boards, scores)
    previous = _previous_partnerships(initial, partnerships) if config.uses_partnerships \
        else None
    index, rating, played, last, mapping = _initial_state(index, initial,
                                                          config.initial_rating)
    if mapping is not None:
        north, south, east, west = (require(mapping[x], np.int64)
                                    for x in (north, south, east, west))
    n_units = len(index)
    if config.uses_partnerships:
        ns_pid, ew_pid, first, second = partnership_ids(boards)
        n_pairs = int(first.shape[0])
    else:
        ns_pid = ew_pid = _EMPTY_I
        n_pairs = None
    together = np.zeros(n_pairs or 0, dtype=np.int64)
    if previous:
        names_1, names_2 = board_names[first].tolist(), board_names[second].tolist()
        for i, key in enumerate(map(_partnership_key, names_1, names_2)):
            together[i] = previous.pop(key, 0)
    has_period = boards.board_period is not None
    by_period = config.update == "period" and has_period
    if has_period and boards.n_boards and max(-int(boards.board_period[0]),
                                              int(boards.board_period[-1])) >= 2**53:
        raise InputError("rating periods must be numbered below 2**53 in magnitude; found "
                         f"{int(boards.board_period[-1])}")
    scored = burn_in_mask(boards, int(config.burn_in))
    offsets = boards.board_offsets
    max_t = int(np.diff(offsets).max()) if boards.n_boards else 0
    sa, sb, acc_ns, acc_ew, acc_e, m_delta, m_e = (np.empty(max_t, dtype=np.float64)
                                                   for _ in range(7))
    rows = np.empty(max_t, dtype=np.int64)
    rec = records(n_units)
    rec[:, REC_RATING] = rating
    rec[:, REC_STAMP] = -1.0
    rec[:, REC_PLAYED] = played
    rec[:, REC_LAST] = np.where(last == _NO_PERIOD, np.nan, last.astype(np.float64))
    touched = np.zeros(n_units if by_period else 0, dtype=np.int64)
    pred = np.empty(boards.n_results, dtype=np.float64)
    outcome = np.empty(boards.n_results, dtype=np.float64)
    k_bounds, k_values = _table_arrays(config.k_games)
    x_bounds, x_values = _table_arrays(config.k_experience)
    params = _BridgeEloParams(
        _MODEL[config.model], float(config.k), LN10 / config.scale, float(config.cap or 0.0),
        float(config.draw_margin), _win_points(config.draw_margin), _MARGIN[config.margin],
        float(config.margin_scale), float(config.experience_bonus),
        float(config.experience_n0), float(config.gamma_divisor), bool(by_period))
    _bridge_elo_kernel(offsets, boards.board_period if has_period else _EMPTY_I,
                       north, south, east, west, imps, require(boards.ns_score, np.float64),
                       ns_pid, ew_pid, rec, together, params, k_bounds, k_values,
                       x_bounds, x_values, IMP_THRESHOLDS,
                       touched, sa, sb, acc_ns, acc_ew, acc_e, m_delta, m_e, rows,
                       np.empty(4096 if config.experience_bonus else 0, dtype=np.float64),
                       pred, outcome)
    rating = rec[:, REC_RATING].copy()
    _check_finite(boards, imps, pred, rating, index)
    played = rec[:, REC_PLAYED].astype(np.int64)
    last_f = rec[:, REC_LAST]
    last = np.where(np.isnan(last_f), _NO_PERIOD, np.nan_to_num(last_f)).astype(np.int64)
    rated = pred == pred
    scored &= rated
    pairs_out = None
    if config.uses_partnerships:
        left = list(previous.items()) if previous else []  # known only to the saved state

        def names(mine: np.ndarray, theirs: list) -> np.ndarray:
            if not theirs:
                return mine
            extra = np.array(theirs)
            if mine.dtype.kind in "iu" and extra.dtype.kind in "iu":
                return np.concatenate([mine, extra.astype(mine.dtype)])
            out = np.empty(mine.shape[0] + len(theirs), dtype=object)
            out[:mine.shape[0]], out[mine.shape[0]:] = mine, theirs
            return out

        pairs_out = {"player_1": names(board_names[first], [x for (x, _), _ in left]),
                     "player_2": names(board_names[second], [y for (_, y), _ in left]),
                     "boards": np.concatenate([together,
                                               np.array([k for _, k in left], np.int64)])}
    stored_period = (np.repeat(boards.board_period, np.diff(offsets)) if has_period
                     else boards.board_of_row())
    return BridgeRatings(
        system="bridge_elo", players=index, rating=rating, games_played=played,
        predictions=boards.to_input_order(pred), config=config,
        last_period=last if has_period else None,
        stored_predictions=pred, stored_outcome=outcome, stored_period=stored_period,
        rated=rated, scored=scored, order=boards.order,
        boards=boards,
        n_single_result_boards=boards.n_single_result_boards, n_partnerships=n_pairs,
        partnerships=pairs_out)


def _check_finite(boards: Boards, imps: np.ndarray, pred: np.ndarray, rating: np.ndarray,
                  index: Any) -> None:
    """Stop, naming the board and a player, when the state overflowed: a rated row (a
    real result on a board with two or more) whose expected score is not a number, or a
    rating that is not finite (huge starting ratings; the config's ranges keep its own
    parameters from overflowing)."""
    bad_rating = ~np.isfinite(rating)
    real = imps == imps
    per_board = np.add.reduceat(real.astype(np.int64), boards.board_offsets[:-1]) \
        if boards.n_boards else np.zeros(0, dtype=np.int64)
    rated = real & (np.repeat(per_board, np.diff(boards.board_offsets)) >= 2)
    bad_pred = rated & ~np.isfinite(pred)
    if not bad_rating.any() and not bad_pred.any():
        return
    names = index.names
    p = int(np.argmax(bad_rating)) if bad_rating.any() else int(np.argmax(np.abs(rating)))
    who = f"player {format_value(names[p])} ends with rating {float(rating[p])!r}"
    fix = ("lower the starting ratings (--initial) or K and its multipliers")
    if bad_pred.any():
        r = int(np.argmax(bad_pred))
        b = int(np.searchsorted(boards.board_offsets, r, side="right") - 1)
        label = f"board {format_value(boards.board_number[b])}"
        if boards.board_event is not None:
            label += f" of event {format_value(boards.board_event[b])}"
        raise InputError(f"bridge Elo ratings overflowed: the expected score at "
                         f"{label} ({boards.source.where(int(boards.order[r]))}) is "
                         f"{float(pred[r])!r}, not a number in [0, 1]; {who}; {fix}")
    raise InputError(f"bridge Elo ratings overflowed: {who}; {fix}")


# ----------------------------------------------------------------------------------
# evaluation



class BridgeEvaluation(Evaluation):
    """:class:`fastrate.evaluate.Evaluation` of table results (``n_games`` counts the
    rated results)."""

    def __str__(self) -> str:
        return super().__str__().replace(" games scored", " rated table results scored", 1)


def _configs(configs: Any) -> list[tuple[str, BridgeEloConfig]]:
    if configs is None:
        configs = [BridgeEloConfig(model="plain"), BridgeEloConfig(model="field"),
                   BridgeEloConfig(model="artificial")]
    if isinstance(configs, BridgeEloConfig):
        configs = [configs]
    items = list(configs.items()) if isinstance(configs, Mapping) else list(configs)
    out = []
    for item in items:
        if isinstance(item, BridgeEloConfig):
            out.append((item.label(), item))
        elif (isinstance(item, tuple) and len(item) == 2
              and isinstance(item[1], BridgeEloConfig)):
            out.append((str(item[0]), item[1]))
        else:
            raise InputTypeError(f"configs must be BridgeEloConfig objects, (label, config) "
                                 f"pairs or a mapping label -> config; got {item!r}")
    if not out:
        raise ConfigError("no configs to evaluate: give at least one BridgeEloConfig")
    labels = [lab for lab, _ in out]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise ConfigError(f"config labels must be unique; {', '.join(sorted(dup))} repeats "
                          "(pass a mapping label -> config)")
    return out


def evaluate_ratings(boards: Any, runs: Mapping[str, BridgeRatings] | Sequence[Any],
                     burn_in: int | None = None, draws: str = "exclude", bins: int = 10,
                     null: bool = True):
    """Score finished runs (label -> :class:`BridgeRatings`) on the same rows: the rated
    rows after ``burn_in`` periods (default: the largest ``config.burn_in`` of the
    runs). A ``null (50%)`` row (always 0.5) comes first when ``null``. Returns a
    :class:`fastrate.evaluate.Evaluation` (log loss, deviance, Brier, RMSE, accuracy)."""
    from fastrate import metrics

    metrics.check_draws(draws)
    check_bins(bins)
    items = list(runs.items()) if isinstance(runs, Mapping) else [
        (r.config.label(), r) for r in runs]
    if not items:
        raise ConfigError("no runs to evaluate")
    if burn_in is None:
        burn_in = max(int(r.config.burn_in) for _, r in items)
    mask = burn_in_mask(boards, burn_in) & items[0][1].rated
    if not mask.any():
        n_periods = 0 if boards.board_period is None else int(
            np.unique(boards.board_period).shape[0])
        raise InputError(f"no results to score: a burn-in of {burn_in} period(s) leaves no "
                         "rated result (boards need at least two real results); the boards "
                         f"have {n_periods} rating period(s): use a smaller burn-in")
    y = items[0][1].stored_outcome[mask]
    preds = ([(NULL_LABEL, np.full(y.shape[0], 0.5), y)] if null else []) + [
        (label, r.stored_predictions[mask], y) for label, r in items]
    rows, tables = score_rows(preds, draws, bins)
    return BridgeEvaluation(rows, tables, int(items[0][1].rated.sum()), int(burn_in),
                            draws, {label: r for label, r in items})


def evaluate(boards: Any, configs: Any = None, burn_in: int | None = None,
             initial: Any = None, draws: str = "exclude", bins: int = 10):
    """Walk-forward comparison of bridge Elo configurations on ``boards``.

    ``configs``: BridgeEloConfig objects, ``(label, config)`` pairs or a mapping label
    -> config (default: the plain, field and artificial models with K 16). Each is
    rated (cross-IMPs computed once) and its pre-board predictions scored against the
    outcomes S on the rated rows after ``burn_in`` periods (default: the largest
    ``burn_in`` of the configs), next to the null model's 50%. Accuracy leaves draws
    out by default (``draws="half"`` counts them half). Returns a
    :class:`fastrate.evaluate.Evaluation`.
    """
    items = _configs(configs)
    if burn_in is None:
        burn_in = max(int(c.burn_in) for _, c in items)
    burn_in_mask(boards, burn_in)  # validate before rating
    scores = boards.score("cross-imps")
    runs = {label: rate(boards, c, initial=initial, scores=scores) for label, c in items}
    return evaluate_ratings(boards, runs, burn_in=burn_in, draws=draws, bins=bins)

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, GAMES_PLAYED, LAST_PERIOD)
