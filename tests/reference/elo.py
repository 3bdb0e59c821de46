"""A slow, obviously-correct pure-Python Elo, written from SPEC §1.1 and the EloConfig
docstring only (not from the kernel), used as the oracle in tests/test_elo.py.

Everything is a plain dict keyed by player name and a plain loop over the games in
the order given; the expected score is written literally as ``1 / (1 + 10 ** (-d / s))``.

Conventions (the same ones fastrate documents):

* ``d = R_white - R_black + h`` (``h`` = advantage, 0 for a neutral game), then clipped to
  ``[-cap, cap]`` when a cap is set; ``E = 1 / (1 + 10 ** (-d / scale))``.
* The change is ``K * M * w * (S - E)`` for the first player and minus ``K_b * M * w * (S - E)``
  for the second, where each player's own ``K`` comes from the schedule evaluated with the
  games he played *before* this game and his rating before this game; ``M`` is the
  margin multiplier (using the clipped ``d``) and ``w`` the game's weight.
* Regression: at a player's first game in a period later than the period of his previous
  game, ``R = (1 - f) R + f * mean``. A player's first game ever is not regressed.
* Resets ``(player, at, value)``: before the player's first game whose period (or time)
  is ``>= at``, his rating becomes ``value`` (after regression, so a reset wins). In
  period mode the changes he has pending for the current period are dropped.
* FIDE: a player's K is ``fide_k`` once his rating has been ``>= fide_threshold`` at any
  moment: at the start, after an update (a game, or a period's sum in period mode), or
  before a game after its regression and resets (a value two resets pass through on
  the way does not count); otherwise the games table.
* ``update="period"``: every change is collected in ``pending`` and added to the rating
  when the period changes (and after the last game); the ratings used in ``E`` and by
  the K schedule within a period are those at its start (after regressions/resets).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    rating: dict[Any, float]
    games_played: dict[Any, int]
    last_period: dict[Any, int]
    predictions: list[float]
    pre_white: list[float] = field(default_factory=list)
    pre_black: list[float] = field(default_factory=list)


def expected(d: float, scale: float = 400.0) -> float:
    x = -d / scale
    if x > 308.0:  # 10**x would overflow a float: the expectation is 0 to double precision
        return 0.0
    return 1.0 / (1.0 + 10.0 ** x)


def k_from_table(table: Sequence[tuple[float, float]], x: float) -> float:
    """K of the first row whose upper bound is above ``x`` (bounds are exclusive)."""
    for bound, k in table:
        if x < bound:
            return float(k)
    return float(table[-1][1])


def margin_multiplier(model: str, margin: float, d: float, s: float) -> float:
    pd = abs(margin)
    if model == "none":
        return 1.0
    if s > 0.5:
        d_winner = d
    elif s < 0.5:
        d_winner = -d
    else:
        d_winner = 0.0
    if model == "fte_nfl":
        if s == 0.5:
            return math.log(max(pd, 1.0) + 1.0) * 2.2
        return math.log(max(pd, 1.0) + 1.0) * 2.2 / (0.001 * d_winner + 2.2)
    if model == "fte_nba":
        return (pd + 3.0) ** 0.8 / (7.5 + 0.006 * d_winner)
    if model == "world_football":
        if pd <= 1:
            return 1.0
        if pd <= 2:
            return 1.5
        return (11.0 + pd) / 8.0
    raise ValueError(model)


def match_win(q: float, n: int) -> float:
    """P(winning a best-of-``n`` match) with per-game probability ``q``, by dynamic
    programming over the score (first to (n+1)/2), not by the closed form."""
    need = (n + 1) // 2
    from functools import cache

    @cache
    def win(mine: int, theirs: int) -> float:
        if mine == need:
            return 1.0
        if theirs == need:
            return 0.0
        return q * win(mine + 1, theirs) + (1 - q) * win(mine, theirs + 1)

    return win(0, 0)


def game_win(p: float, n: int) -> float:
    """The per-game probability whose best-of-``n`` match probability is ``p``
    (bisection on :func:`match_win`)."""
    if n == 1:
        return p
    lo, hi = 0.0, 1.0
    for _ in range(64):
        mid = (lo + hi) / 2
        if match_win(mid, n) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def rate(white: Sequence[Any], black: Sequence[Any], score: Sequence[float], config: Any, *,
         period: Sequence[int] | None = None, time: Sequence[float] | None = None,
         weight: Sequence[float] | None = None, margin: Sequence[float] | None = None,
         neutral: Sequence[bool] | None = None,
         initial: dict[Any, float] | None = None,
         initial_games: dict[Any, int] | None = None,
         initial_last_period: dict[Any, int] | None = None,
         resets: Sequence[tuple[Any, float, float]] = (), reset_on: str = "period",
         context: Sequence[Any] | None = None, best_of: Sequence[int] | None = None,
         share: Sequence[float] | None = None, entry: Sequence[float] | None = None
         ) -> Result:
    """Rate the games in the order given with the options of ``config`` (an EloConfig).

    The modelling levers: context ratings (a rating per (player, context), starting at
    the player's overall rating when he first plays in it, predicting with the blend
    ``(1-w) overall + w context``, updated with ``context_k`` times the schedule's K at
    his games in that context); the match format (``best_of``); the points share in the
    result; newcomers (a player with no games starts at the game's entry rating, else
    with ``newcomer='opponent'`` at his opponent's rating plus the offset when the
    opponent has played)."""
    c = config
    ctx_rating: dict[tuple[Any, Any], float] = {}
    ctx_played: dict[tuple[Any, Any], int] = {}
    n = len(white)
    rating: dict[Any, float] = dict(initial or {})
    played: dict[Any, int] = dict(initial_games or {})
    last: dict[Any, int] = dict(initial_last_period or {})
    mean = c.initial_rating if c.regression_mean is None else c.regression_mean
    table = list(c.k_table) or ([(30.0, 40.0), (math.inf, 20.0)] if c.k_schedule == "fide"
                                else [])
    reached: set[Any] = set()
    pending: dict[Any, float] = {}
    used = [False] * len(resets)
    res = Result({}, {}, {}, [])

    def observe(x: Any) -> None:
        if rating[x] >= c.fide_threshold:
            reached.add(x)

    def flush() -> None:
        for x, delta in pending.items():
            rating[x] = rating[x] + delta
            observe(x)
        pending.clear()

    for x in list(rating):
        observe(x)
    current = period[0] if period is not None and n else None
    for i in range(n):
        a, b, s = white[i], black[i], float(score[i])
        p = period[i] if period is not None else 0
        if c.update == "period" and p != current:
            flush()
            current = p
        for x in (a, b):
            if x not in rating:
                rating[x] = c.initial_rating
            played.setdefault(x, 0)
        starts = {}
        for x, other in ((a, b), (b, a)):
            if played[x] == 0:
                if entry is not None and not math.isnan(entry[i]):
                    starts[x] = float(entry[i])
                elif c.newcomer == "opponent" and played[other] > 0:
                    starts[x] = rating[other] + c.newcomer_offset
        rating.update(starts)
        for x in (a, b):
            if x not in rating:
                rating[x] = c.initial_rating
                observe(x)
            played.setdefault(x, 0)
            if c.regression > 0 and x in last and p > last[x]:
                rating[x] = (1 - c.regression) * rating[x] + c.regression * mean
        key = p if reset_on == "period" else time[i]
        for j, (who, at, value) in enumerate(resets):
            if not used[j] and who in (a, b) and key >= at:
                used[j] = True
                rating[who] = float(value)
                pending.pop(who, None)
        observe(a)  # the rating he starts this game with, after regression and resets
        observe(b)
        last[a] = p
        last[b] = p
        res.pre_white.append(rating[a])
        res.pre_black.append(rating[b])

        ra, rb = rating[a], rating[b]
        use_context = (context is not None and c.context_weight > 0
                       and context[i] not in (None, ""))
        if use_context:
            for x in (a, b):
                key = (x, context[i])
                if ctx_played.get(key, 0) == 0:
                    ctx_rating[key] = rating[x]
            w = c.context_weight
            ra = (1 - w) * ra + w * ctx_rating[(a, context[i])]
            rb = (1 - w) * rb + w * ctx_rating[(b, context[i])]
        d = ra - rb
        if not (neutral is not None and neutral[i]):
            d = d + c.advantage
        if c.cap is not None:
            d = min(max(d, -c.cap), c.cap)
        e = expected(d, c.scale)
        if best_of is not None and c.best_of and best_of[i] != c.best_of:
            e = match_win(game_win(e, c.best_of), best_of[i])
        res.predictions.append(e)

        def k_of(x: Any) -> float:
            g = played[x]
            if c.k_schedule == "constant":
                return c.k
            if c.k_schedule == "power":
                a_, b_, c_ = c.k_power
                return a_ / (g + b_) ** c_
            if c.k_schedule == "fide" and x in reached:
                return c.fide_k
            if c.k_schedule == "rating":
                return k_from_table(table, rating[x])
            return k_from_table(table, g)

        mult = margin_multiplier(c.margin, margin[i] if margin is not None else 0.0, d, s)
        w = weight[i] if weight is not None else 1.0
        if share is not None and c.points_share > 0:
            s = (1 - c.points_share) * s + c.points_share * share[i]
        change_a = k_of(a) * mult * w * (s - e)
        change_b = -k_of(b) * mult * w * (s - e)
        if use_context:
            def k_context(x: Any, i: int = i) -> float:
                key = (x, context[i])
                saved = played[x], rating[x]
                played[x], rating[x] = ctx_played.get(key, 0), ctx_rating[key]
                k = k_of(x)  # the schedule at his games (and rating) in this context
                played[x], rating[x] = saved
                return c.context_k * k

            ka, kb = k_context(a), k_context(b)
            ctx_rating[(a, context[i])] += ka * mult * w * (s - e)
            ctx_rating[(b, context[i])] -= kb * mult * w * (s - e)
            for x in (a, b):
                ctx_played[(x, context[i])] = ctx_played.get((x, context[i]), 0) + 1
        if c.update == "period":
            pending[a] = pending.get(a, 0.0) + change_a
            pending[b] = pending.get(b, 0.0) + change_b
        else:
            rating[a] = rating[a] + change_a
            rating[b] = rating[b] + change_b
            observe(a)
            observe(b)
        played[a] += 1
        played[b] += 1
    flush()
    res.rating = rating
    res.games_played = played
    res.last_period = last
    return res
