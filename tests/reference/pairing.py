"""A slow, obviously-correct pure-Python ladder simulator, written from the docstring of
fastrate.stats.pairing (the model) and SPEC §6 (not from the kernel); the oracle of
tests/test_pairing.py.

Plain lists and a plain loop over games; the ranking is re-sorted from scratch with
``sorted`` before every decision; the schedulers are written as the post describes them.
The random stream is splitmix64 written with Python integers; the draws per game are the
documented ones (one uniform for the first player, the scheduler's draws, one uniform
for the result), so a run is comparable draw for draw with the compiled one.

Ratings: Elo is written out here (``E = 1/(1 + exp(-d ln(10)/scale))``, the engine's
form of ``1/(1 + 10^(-d/scale))``, so that the two runs take the same decisions bit for
bit); Glicko-2 rating periods go through the reference Glicko-2 (tests/reference/
glicko2.py) with the players' state carried from period to period.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from reference import glicko2 as ref_glicko2

MASK = 2**64 - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
MAX_DRAWS = 10_000
LN10 = math.log(10.0)


class SplitMix64:
    """Steele, Lea and Flood's splitmix64; the state starts at the first output for
    the seed value (the seed is hashed)."""

    def __init__(self, seed: int):
        self.state = seed & MASK
        self.state = self.next()

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * MIX1) & MASK
        z = ((z ^ (z >> 27)) * MIX2) & MASK
        return z ^ (z >> 31)

    def uniform(self) -> float:
        return (self.next() >> 11) * 2.0**-53

    def randint(self, n: int) -> int:
        return min(int(self.uniform() * n), n - 1)

    def normal(self) -> float:
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def plain_sum(values) -> float:
    """Left-to-right float sum (Python 3.12's ``sum`` compensates its rounding errors,
    which the kernel does not)."""
    total = 0.0
    for v in values:
        total += v
    return total


def entropy(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    q = 1.0 - p
    return -p * math.log2(p) - q * math.log2(q)


def elo_expected(d: float, scale: float, cap: float) -> float:
    if cap > 0:
        d = max(-cap, min(cap, d))
    return 1.0 / (1.0 + math.exp(-d * (LN10 / scale)))


def simulate(true_rating: list[float], cost: list[float], arrival: list[int], *,
             scheduler: str, system: str, n_games: int, seed: int, ends: list[int],
             sigma: float = 3.0, candidates: int = 3, k: float = 32.0, scale: float = 400.0,
             cap: float = 0.0, initial_rating: float = 1500.0,
             g2: dict[str, Any] | None = None, period_games: int = 1,
             seed_games: tuple[int, int] = (0, 0),
             start: list[float] | None = None) -> dict[str, Any]:
    """``start``: every player's first estimate (default: the initial rating)."""
    n = len(true_rating)
    g2 = dict(g2 or {})
    g2_scale = g2.get("scale", ref_glicko2.SCALE)
    init_rd = g2.get("initial_rd", 350.0)
    init_vol = g2.get("initial_volatility", 0.06)
    g2_kw = {"initial_rating": g2.get("initial_rating", 1500.0), "initial_rd": init_rd,
             "initial_volatility": init_vol, "tau": g2.get("tau", 0.5), "scale": g2_scale,
             "epsilon": g2.get("epsilon", 1e-6),
             "max_iterations": g2.get("max_iterations", 100)}
    rng = SplitMix64(seed)
    if start is None:
        start = [float(initial_rating if system == "elo" else g2_kw["initial_rating"])] * n
    if system == "elo":
        rating = [float(x) for x in start]
    else:
        players = {x: ref_glicko2.Player(start[x], init_rd, init_vol) for x in range(n)}
        rating = [players[x].rating for x in range(n)]
    active: list[int] = []
    out = {"cost": [], "bits": [], "rmse": [], "misordered": [], "gap": [], "white": [],
           "black": [], "score": [], "min_gap": []}
    cost_sum = bits_sum = gap_sum = 0.0
    pending: list[tuple[int, int, int, float]] = []
    wins_v, losses_v = seed_games

    def ranking() -> list[int]:
        return sorted(active, key=lambda x: (-rating[x], x))

    def predict(i: int, j: int) -> float:
        if system == "elo":
            return elo_expected(rating[i] - rating[j], scale, cap)
        pi, pj = players[i], players[j]
        phi = math.sqrt((pi.rd / g2_scale) ** 2 + (pj.rd / g2_scale) ** 2)
        return 1.0 / (1.0 + math.exp(-ref_glicko2.g(phi) * ((pi.rating - pj.rating) / g2_scale)))

    def record(played: int) -> None:
        xs = sorted(active)
        me = plain_sum(rating[x] for x in xs) / len(xs)
        mt = plain_sum(true_rating[x] for x in xs) / len(xs)
        dev = [(rating[x] - me) - (true_rating[x] - mt) for x in xs]
        # d * d, not d ** 2: CPython's ** calls pow(), which can differ in the last bit
        out["rmse"].append(math.sqrt(plain_sum(d * d for d in dev) / len(xs)))
        bad, pairs = 0.0, 0
        for ia, a in enumerate(xs):
            for b in xs[ia + 1:]:
                dt = true_rating[a] - true_rating[b]
                if dt == 0:
                    continue
                pairs += 1
                de = rating[a] - rating[b]
                bad += 0.5 if de == 0 else float((de > 0) != (dt > 0))
        out["misordered"].append(bad / pairs if pairs else math.nan)
        out["cost"].append(cost_sum)
        out["bits"].append(bits_sum)
        out["gap"].append(gap_sum / played if played else math.nan)

    def rate_period(games: list[tuple[int, int, int, float]]) -> None:
        new, _ = ref_glicko2.rate(games, state=players, **g2_kw)
        players.update(new)
        for x in range(n):
            rating[x] = players[x].rating

    def arrive(x: int, g: int) -> None:
        present = list(active)
        active.append(x)
        if arrival[x] == 0 or wins_v + losses_v == 0 or not present:
            return
        # the present player of nearest prior (true) strength, ties to the weaker, then id
        opp = min(present, key=lambda y: (abs(true_rating[y] - true_rating[x]),
                                          true_rating[y] > true_rating[x], y))
        wins = wins_v if true_rating[opp] <= true_rating[x] else losses_v
        results = [1.0] * wins + [0.0] * (wins_v + losses_v - wins)
        if system == "elo":
            rating[x] = rating[opp]
            for s in results:   # only the newcomer moves
                rating[x] += k * (s - elo_expected(rating[x] - rating[opp], scale, cap))
        else:
            p = g // period_games
            newcomer = ref_glicko2.Player(players[opp].rating, init_rd, init_vol)
            new, _ = ref_glicko2.rate([(p, x, opp, s) for s in results],
                                      state={x: newcomer, opp: replace(players[opp])},
                                      **g2_kw)
            players[x] = new[x]
            rating[x] = new[x].rating

    order = sorted(range(n), key=lambda x: (arrival[x], x))
    for g in range(n_games + 1):
        for x in order:
            if arrival[x] == g:
                arrive(x, g)
        if g == 0:
            record(0)
        if g == n_games:
            break
        ranks = ranking()
        pos = {x: q for q, x in enumerate(ranks)}
        m = len(ranks)
        # the closest two estimates: where a last-bit difference could reorder the ranking
        out["min_gap"].append(min((rating[ranks[c]] - rating[ranks[c + 1]]
                                   for c in range(m - 1)), default=math.inf))
        p = rng.randint(m)
        i = ranks[p]
        if scheduler == "nearest":
            drawn: list[int] = []
            for _ in range(min(candidates, m - 1)):
                while True:
                    q = rng.randint(m - 1)
                    q = q + 1 if q >= p else q
                    if q not in drawn:
                        break
                drawn.append(q)
            q = min(drawn, key=lambda c: (abs(c - p), drawn.index(c)))
        elif scheduler == "gaussian":
            for _ in range(MAX_DRAWS):
                r = math.floor(rng.normal() * sigma + 0.5)
                if r != 0 and 0 <= p + r < m:
                    q = p + int(r)
                    break
            else:
                q = p + 1 if p + 1 < m else p - 1
        else:
            values = [(entropy(predict(i, ranks[c])) / (cost[i] + cost[ranks[c]]), -c)
                      for c in range(m) if c != p]
            q = -max(values)[1]
        j = ranks[q]
        assert pos[j] == q
        gap_sum += abs(q - p)
        pt = elo_expected(true_rating[i] - true_rating[j], 400.0, 0.0)
        bits_sum += entropy(pt)
        cost_sum += cost[i] + cost[j]
        s = 1.0 if rng.uniform() < pt else 0.0
        out["white"].append(i)
        out["black"].append(j)
        out["score"].append(s)
        if system == "elo":
            delta = k * (s - elo_expected(rating[i] - rating[j], scale, cap))
            rating[i] += delta
            rating[j] -= delta
        else:
            pending.append((g // period_games, i, j, s))
            if len(pending) == period_games or g + 1 == n_games:
                rate_period(pending)
                pending = []
        if g + 1 in ends:
            record(g + 1)
    out["rating"] = list(rating)
    return out
