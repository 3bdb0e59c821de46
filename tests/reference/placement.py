"""Slow, obviously-correct pure-Python placement statistics, written from SPEC §4 and the
KDice essay (not from the kernels); the oracle of tests/test_placement.py.

One profile is a list of k counts (1st..k-th places); a reference profile is a list of
k positive numbers, normalised here by dividing by its sum. Nothing is vectorised.
"""

from __future__ import annotations

import math

NAN = float("nan")


def normalise(profile):
    total = sum(profile)
    return [p / total for p in profile]


def chi_square(counts, reference=None, yates=False):
    """Pearson's chi-square; yates: False, True or "auto" (any expected count < 5)."""
    k = len(counts)
    ref = [1.0 / k] * k if reference is None else normalise(reference)
    n = sum(counts)
    if n == 0:
        return NAN
    expected = [n * r for r in ref]
    if yates == "auto":
        yates = any(e < 5 for e in expected)
    total = 0.0
    for observed, e in zip(counts, expected):
        diff = abs(observed - e)
        if yates:
            diff = max(diff - 0.5, 0.0)
        total += diff ** 2 / e
    return total


def tapl(counts, reference=None, yates=False):
    n = sum(counts)
    if n == 0:
        return NAN
    return chi_square(counts, reference, yates) / math.sqrt(n) * 1000


def tapl_from_percentages(percentages, games, reference=None):
    """The essay's second recipe: sum((e% - a%)^2 / e%) * sqrt(n) * 1000 (fractions)."""
    k = len(percentages)
    ref = [1.0 / k] * k if reference is None else normalise(reference)
    fractions = [p / 100 for p in percentages]
    total = sum((e - a) ** 2 / e for e, a in zip(ref, fractions))
    return total * math.sqrt(games) * 1000


def chi2_sf(x, df):
    """Upper tail of chi-square for whole df: the textbook finite sums (Abramowitz &
    Stegun 26.4.4/26.4.5)."""
    h = x / 2
    if df % 2 == 0:
        return math.exp(-h) * sum(h ** i / math.factorial(i) for i in range(df // 2))
    total = math.erfc(math.sqrt(h))
    for i in range(1, (df - 1) // 2 + 1):
        total += math.exp(-h) * h ** (i - 0.5) / math.gamma(i + 0.5)
    return total


def effect_size(counts, reference=None, yates=False):
    n = sum(counts)
    if n == 0:
        return NAN
    return math.sqrt(chi_square(counts, reference, yates) / n)


def tazd_star(counts, reference):
    k = len(counts)
    ref = normalise(reference)
    places = range(1, k + 1)
    mu_ref = sum(p * r for p, r in zip(places, ref))
    sd_ref = math.sqrt(sum((p - mu_ref) ** 2 * r for p, r in zip(places, ref)))
    n = sum(counts)
    if n == 0:
        return NAN
    mu_obs = sum(p * c for p, c in zip(places, counts)) / n
    return math.sqrt(n) * (mu_ref - mu_obs) / sd_ref * 1000


def convolution_integral(counts, payoff=(60, 42, 35, 0, -35, -42, -60), buy_in=60):
    n = sum(counts)
    if n == 0:
        return NAN
    return sum(pay * c / n for pay, c in zip(payoff, counts)) / buy_in


def qooa(percentages):
    divisors = [371, 142, 54, 21, 8, 3]
    return sum(p / d for p, d in zip(percentages, divisors))


def standings(rows):
    """rows: (game, player, place). Returns {player: games behind the leader}."""
    size = {}
    for game, _, _ in rows:
        size[game] = size.get(game, 0) + 1
    behind, played = {}, {}
    for game, player, place in rows:
        p = size[game]
        behind[player] = behind.get(player, 0.0) + ((place - 1) / (p - 1) if p > 1 else 0.0)
        played[player] = played.get(player, 0) + 1
    most = max(played.values())
    total = {pl: behind[pl] + 0.5 * (most - played[pl]) for pl in played}
    leader = min(total.values())
    return {pl: t - leader for pl, t in total.items()}


def pga(rows, capacity=7, p_watch=1.0):
    """rows: (game, player, seat, watchers). Returns {(x, y): (n, joins, expected, ppc,
    p_value)} for every ordered pair that shared a table, straight from the essay: over
    x's games without y seated before him, f = joins / n, w and e the mean watchers and
    empty seats when x sat down, PPC = f sqrt(w n / (p e))."""
    games = {}
    for game, player, seat, watchers in rows:
        games.setdefault(game, {})[player] = (seat, watchers)
    pairs = set()
    for table in games.values():
        for x in table:
            for y in table:
                if x != y:
                    pairs.add((x, y))
    out = {}
    for x, y in pairs:
        n = joins = 0
        w = e = 0.0
        for table in games.values():
            if x not in table:
                continue
            seat_x, watchers_x = table[x]
            if y in table and table[y][0] < seat_x:
                continue
            n += 1
            w += watchers_x
            e += capacity - seat_x
            if y in table:
                joins += 1
        if n == 0 or e == 0:
            out[(x, y)] = (n, joins, NAN, NAN, NAN)
            continue
        f = joins / n
        w_mean, e_mean = w / n, e / n
        ppc = f * math.sqrt(w_mean * n / (p_watch * e_mean))
        lam = p_watch * n * e_mean / w_mean
        below = math.fsum(math.exp(-lam) * lam ** i / math.factorial(i) for i in range(joins))
        out[(x, y)] = (n, joins, lam, ppc, 1.0 - below)
    return out


def own_reference(rows, reference, k, level=0.0, initial=0.0, floor=None, observed="all",
                  yates=False, pseudocount=0.0):
    """TAOWR / TAOLZ straight from the essay (§iv) and the definitions in the docs.

    rows: (time, player, place, points). Each player's history is replayed in time order
    (Python's sort is stable: equal times keep the log order) into a list of moments
    (rating, profile), the start (initial, all zeros) first. The reference moment is
    picked by scanning that whole list: TAOWR the last moment at the lowest rating,
    TAOLZ the last moment at or below ``level``. Returns {player: dict(games,
    reference_games, rating, reference_rating, chi2, df, p_value, effect_size, value,
    status)}."""
    history = {}
    for _, player, place, points in sorted(rows, key=lambda row: row[0]):
        moments = history.setdefault(player, [(initial, [0] * k)])
        rating, counts = moments[-1]
        rating = rating + points
        if floor is not None and rating < floor:
            rating = floor
        counts = list(counts)
        counts[place - 1] += 1
        moments.append((rating, counts))
    out = {}
    for player, moments in history.items():
        games = len(moments) - 1
        final = moments[-1][1]
        if reference == "taowr":
            lowest = min(rating for rating, _ in moments)
            hits = [i for i, (rating, _) in enumerate(moments) if rating == lowest]
        else:
            hits = [i for i, (rating, _) in enumerate(moments) if rating <= level]
        res = {"games": games, "rating": moments[-1][0], "chi2": NAN, "df": NAN,
               "p_value": NAN, "effect_size": NAN, "value": NAN}
        if not hits:
            res.update(reference_games=0, reference_rating=NAN, status="never_at_level")
            out[player] = res
            continue
        t = hits[-1]
        ref_rating, ref_counts = moments[t]
        res.update(reference_games=t, reference_rating=ref_rating)
        if t == 0:
            res["status"] = "no_reference_games"
            out[player] = res
            continue
        shares = [(c + pseudocount) / (t + k * pseudocount) for c in ref_counts]
        if observed == "all":
            obs = final
        else:
            obs = [a - b for a, b in zip(final, ref_counts)]
        n = sum(obs)
        df = sum(1 for s in shares if s > 0) - 1
        res["df"] = df
        status = "no_games_after" if t == games else "ok"
        if n == 0:
            res["status"] = status
            out[player] = res
            continue
        expected = [n * s for s in shares]
        use = yates is True or (yates == "auto" and any(0 < e < 5 for e in expected))
        chi2 = 0.0
        for o, e in zip(obs, expected):
            if e == 0:
                if o > 0:
                    chi2 = math.inf
                continue
            diff = abs(o - e)
            if use:
                diff = max(diff - 0.5, 0.0)
            chi2 += diff ** 2 / e
        if math.isinf(chi2):
            res["status"] = "zero_expected"
            out[player] = res
            continue
        res["status"] = status
        res["chi2"] = chi2
        res["p_value"] = 1.0 if df == 0 else chi2_sf(chi2, df)
        res["effect_size"] = math.sqrt(chi2 / n)
        res["value"] = chi2 / math.sqrt(n) * 1000
        out[player] = res
    return out
