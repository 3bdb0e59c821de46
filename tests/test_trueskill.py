"""TrueSkill (SPEC §2.1): the trueskill package's test values, the live package and the
pure-Python reference on random matches, invariants, tail safety, predictions, errors."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import trueskill as ref

from fastrate.data import Games, Matches
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.ratings import trueskill
from fastrate.ratings.trueskill import TrueSkillConfig, match_quality, rate_match

ts = pytest.importorskip("trueskill")

D = (25.0, 25.0 / 3.0)


def _exact_env(**kw):
    """The trueskill package with exact cdf/pdf/ppf (its default backend approximates
    erfc to ~1e-7, which shows at the 1e-6 level)."""
    nd = NormalDist()

    def cdf(x, mu=0, sigma=1):
        return 0.5 * math.erfc(-(x - mu) / (sigma * math.sqrt(2.0)))

    def pdf(x, mu=0, sigma=1):
        return math.exp(-0.5 * ((x - mu) / sigma) ** 2) / (math.sqrt(2.0 * math.pi) * sigma)

    def ppf(x, mu=0, sigma=1):
        return mu + sigma * nd.inv_cdf(x)

    return ts.TrueSkill(backend=(cdf, pdf, ppf), **kw)


def _flat(teams):
    return [p for t in teams for p in t]


def _close(got, want, tol):
    np.testing.assert_allclose(np.array(_flat(got), dtype=float),
                               np.array(_flat(want), dtype=float), rtol=0, atol=tol)


# ----------------------------------------------------------------------------------
# 1. the trueskill package's test values (trueskilltest.py, 3 decimals)

# (teams as sizes or (mu, sigma) lists, ranks, weights, expected flat (mu, sigma))
TABLE = [
    ("1v1", [[D], [D]], None, None, [(29.396, 7.171), (20.604, 7.171)]),
    ("1v1 draw", [[D], [D]], [0, 0], None, [(25.000, 6.458), (25.000, 6.458)]),
    ("2v2", [[D] * 2, [D] * 2], None, None, [(28.108, 7.774)] * 2 + [(21.892, 7.774)] * 2),
    ("2v2 draw", [[D] * 2, [D] * 2], [0, 0], None, [(25.000, 7.455)] * 4),
    ("4v4", [[D] * 4, [D] * 4], None, None, [(27.198, 8.059)] * 4 + [(22.802, 8.059)] * 4),
    ("1v2", [[D], [D] * 2], None, None, [(33.730, 7.317)] + [(16.270, 7.317)] * 2),
    ("1v2 draw", [[D], [D] * 2], [0, 0], None, [(31.660, 7.138)] + [(18.340, 7.138)] * 2),
    ("1v3", [[D], [D] * 3], None, None, [(36.337, 7.527)] + [(13.663, 7.527)] * 3),
    ("1v7", [[D], [D] * 7], None, None, [(40.582, 7.917)] + [(9.418, 7.917)] * 7),
    ("ffa3", [[D]] * 3, None, None, [(31.675, 6.656), (25.000, 6.208), (18.325, 6.656)]),
    ("ffa3 draw", [[D]] * 3, [0] * 3, None, [(25.000, 5.698), (25.000, 5.695),
                                             (25.000, 5.698)]),
    ("ffa3 unsorted", [[D]] * 3, [2, 1, 0], None,
     [(18.325, 6.656), (25.000, 6.208), (31.675, 6.656)]),
    ("ffa4", [[D]] * 4, None, None, [(33.207, 6.348), (27.401, 5.787), (22.599, 5.787),
                                     (16.793, 6.348)]),
    ("ffa5", [[D]] * 5, None, None, [(34.363, 6.136), (29.058, 5.536), (25.000, 5.420),
                                     (20.942, 5.536), (15.637, 6.136)]),
    ("ffa8 draw", [[D]] * 8, [0] * 8, None,
     [(25.000, 4.592), (25.000, 4.583), (25.000, 4.576), (25.000, 4.573),
      (25.000, 4.573), (25.000, 4.576), (25.000, 4.583), (25.000, 4.592)]),
    ("ffa16", [[D]] * 16, None, None,
     [(40.539, 5.276), (36.810, 4.711), (34.347, 4.524), (32.336, 4.433),
      (30.550, 4.380), (28.893, 4.349), (27.310, 4.330), (25.766, 4.322),
      (24.234, 4.322), (22.690, 4.330), (21.107, 4.349), (19.450, 4.380),
      (17.664, 4.433), (15.653, 4.524), (13.190, 4.711), (9.461, 5.276)]),
    ("2v4v2 ranks 0,1,1",
     [[(40, 4), (45, 3)], [(20, 7), (19, 6), (30, 9), (10, 4)], [(50, 5), (30, 2)]],
     [0, 1, 1], None,
     [(40.877, 3.840), (45.493, 2.934), (19.609, 6.396), (18.712, 5.625),
      (29.353, 7.673), (9.872, 3.891), (48.830, 4.590), (29.813, 1.976)]),
    ("upset draw", [[D], [(50, 12.5)]], [0, 0], None, [(31.662, 7.137), (35.010, 7.910)]),
    ("upset 2v2", [[(20, 8), (25, 6)], [(35, 7), (40, 5)]], None, None,
     [(29.698, 7.008), (30.455, 5.594), (27.575, 6.346), (36.211, 4.768)]),
    ("upset 3v2", [[(28, 7), (27, 6), (26, 5)], [(30, 4), (31, 3)]], [0, 1], None,
     [(28.658, 6.770), (27.484, 5.856), (26.336, 4.917), (29.785, 3.958),
      (30.879, 2.983)]),
    ("upset 3v2 lost", [[(28, 7), (27, 6), (26, 5)], [(30, 4), (31, 3)]], [1, 0], None,
     [(21.840, 6.314), (22.474, 5.575), (22.857, 4.757), (32.012, 3.877),
      (32.132, 2.949)]),
    ("upset ffa8", [[(10 + 5 * k, 8 - k)] for k in range(8)], None, None,
     [(35.135, 4.506), (32.585, 4.037), (31.329, 3.756), (30.984, 3.453),
      (31.751, 3.064), (34.051, 2.541), (38.263, 1.849), (44.118, 0.983)]),
    # partial play (the package's values "from C# Skills", i.e. Moserware)
    ("partial 1,1 1", [[D], [D] * 2], None, [[1], [1, 1]],
     [(33.730, 7.317), (16.270, 7.317), (16.270, 7.317)]),
    ("partial halves", [[D], [D] * 2], None, [[0.5], [0.5, 0.5]],
     [(33.939, 7.312), (16.061, 7.312), (16.061, 7.312)]),
    ("partial 1 0.5,1", [[D], [D] * 2], None, [[1], [0.5, 1]],
     [(32.417, 7.056), (21.291, 8.033), (17.583, 7.056)]),
    # weight 0 leaves the player out: the plain 1v1 (Moserware and the package count him
    # in the draw margin's n and give 29.440 / 20.560; see docs/algorithms/trueskill.md)
    ("partial 1 0,1", [[D], [D] * 2], None, [[1], [0, 1]],
     [(29.396, 7.171), D, (20.604, 7.171)]),
]


@pytest.mark.parametrize("name,teams,ranks,weights,want", TABLE, ids=[t[0] for t in TABLE])
def test_trueskill_package_values(name, teams, ranks, weights, want):
    _close(rate_match(teams, ranks, weights), [want], 1.5e-3 if name != "1v3 draw" else 1e-2)


def test_microsoft_research_example():
    got = _flat(rate_match([[D]] * 8))
    want = [(36.771, 5.749), (32.242, 5.133), (29.074, 4.943), (26.322, 4.874),
            (23.678, 4.874), (20.926, 4.943), (17.758, 5.133), (13.229, 5.749)]
    np.testing.assert_allclose(got, want, atol=1.5e-3)


def test_the_table_through_rate():
    """The Microsoft example and a 2v2 through Matches / rate()."""
    names = list("abcdefgh")
    m = Matches.from_arrays(match=[1] * 8, team=None, player=names, rank=list(range(1, 9)))
    r = trueskill.rate(m)
    mu = r.state["mu"][[r.players.id_of(n) for n in names]]
    np.testing.assert_allclose(mu, [36.771, 32.242, 29.074, 26.322, 23.678, 20.926,
                                    17.758, 13.229], atol=1.5e-3)
    np.testing.assert_allclose(r.rating, r.state["mu"] - 3 * r.state["sigma"])
    assert r.games_played.tolist() == [1] * 8
    m = Matches.from_arrays(match=[1] * 4, team=[1, 1, 2, 2], player=list("abcd"),
                            rank=[1, 1, 2, 2])
    r = trueskill.rate(m)
    np.testing.assert_allclose(r.state["mu"], [28.108] * 2 + [21.892] * 2, atol=1.5e-3)
    np.testing.assert_allclose(r.state["sigma"], [7.774] * 4, atol=1.5e-3)


QUALITY = [
    ([[D], [D]], None, 0.447), ([[D] * 2, [D] * 2], None, 0.447),
    ([[D] * 4, [D] * 4], None, 0.447), ([[D], [D] * 2], None, 0.135),
    ([[D], [D] * 3], None, 0.012), ([[D], [D] * 7], None, 0.000),
    ([[D]] * 3, None, 0.200), ([[D]] * 4, None, 0.089), ([[D]] * 5, None, 0.040),
    ([[D]] * 8, None, 0.004),
    ([[(40, 4), (45, 3)], [(20, 7), (19, 6), (30, 9), (10, 4)], [(50, 5), (30, 2)]], None,
     0.367),
    ([[D], [D] * 2, [D]], None, 0.047), ([[D], [(50, 12.5)]], None, 0.110),
    ([[(20, 8), (25, 6)], [(35, 7), (40, 5)]], None, 0.084),
    ([[(28, 7), (27, 6), (26, 5)], [(30, 4), (31, 3)]], None, 0.254),
    ([[(10 + 5 * k, 8 - k)] for k in range(8)], None, 0.000),
    ([[D], [D] * 2, [D]], [[1], [0.25, 0.75], [1]], 0.2),
    ([[D], [D] * 2, [D]], [[1], [0.8, 0.9], [1]], 0.0809),
]


@pytest.mark.parametrize("teams,weights,want", QUALITY)
def test_match_quality_values_and_the_package(teams, weights, want):
    q = match_quality(teams, weights)
    assert q == pytest.approx(want, abs=5e-4 if want != 0.0809 else 5e-5)
    env = ts.TrueSkill(backend=None)
    groups = [[ts.Rating(*p) for p in t] for t in teams]
    assert q == pytest.approx(env.quality(groups, weights), rel=1e-9, abs=1e-15)


# ----------------------------------------------------------------------------------
# 2. the live package and the reference on random matches

@st.composite
def _match(draw, max_teams=6, max_size=3, weights=False):
    n = draw(st.integers(2, max_teams))
    teams = [[(draw(st.floats(0.0, 50.0)), draw(st.floats(0.5, 12.0)))
              for _ in range(draw(st.integers(1, max_size)))] for _ in range(n)]
    ranks = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    w = None
    if weights:
        w = [[draw(st.sampled_from([0.25, 0.5, 0.8, 1.0])) for _ in t] for t in teams]
    return teams, ranks, w


def _package(env, teams, ranks, weights):
    out = env.rate([[ts.Rating(*p) for p in t] for t in teams], ranks, weights)
    return [[(r.mu, r.sigma) for r in t] for t in out]


@settings(max_examples=120, deadline=None)
@given(_match(weights=True))
def test_random_matches_equal_the_package_with_exact_normal_functions(case):
    teams, ranks, weights = case
    _close(rate_match(teams, ranks, weights), _package(_exact_env(), teams, ranks, weights),
           1e-9)


@settings(max_examples=60, deadline=None)
@given(_match(max_teams=4, max_size=2))
def test_random_matches_equal_the_package_default_backend(case):
    """The package's own erfc/ppf approximations (~1e-7 relative) limit this to ~1e-5."""
    teams, ranks, _ = case
    _close(rate_match(teams, ranks), _package(ts.TrueSkill(backend=None), teams, ranks, None),
           5e-5)


@settings(max_examples=100, deadline=None)
@given(_match(weights=True), st.sampled_from([0.0, 0.1, 0.4]))
def test_random_matches_equal_the_reference(case, tau):
    teams, ranks, weights = case
    config = TrueSkillConfig(tau=tau, draw_probability=0.25)
    want, _ = ref.rate_match(teams, ranks, weights, tau=tau, draw_probability=0.25)
    _close(rate_match(teams, ranks, weights, config), want, 1e-9)


def _random_long(rng, n, players, max_teams=5, max_size=3, ties=True, weights=True):
    match, team, player, rank, weight = [], [], [], [], []
    for m in range(n):
        nt = int(rng.integers(2, max_teams + 1))
        size = int(rng.integers(1, max_size + 1))
        seats = rng.choice(players, nt * size, replace=False)
        rk = rng.integers(1, nt + 1, nt) if ties else rng.permutation(nt) + 1
        for t in range(nt):
            for k in range(size):
                match.append(m)
                team.append(t)
                player.append(int(seats[t * size + k]))
                rank.append(int(rk[t]))
                weight.append(1.0 if k == 0 or not weights else float(rng.choice([0.5, 1.0])))
    return dict(match=match, team=team, player=player, rank=rank, weight=weight)


def test_rate_walks_matches_like_the_package():
    """A whole run through rate(): every match rated by the package with the ratings
    the run has reached (exact normal functions), predictions from the reference."""
    rng = np.random.default_rng(3)
    cols = _random_long(rng, 150, 16)
    m = Matches.from_arrays(**cols)
    r = trueskill.rate(m)
    env = _exact_env()
    state = {}
    po = m.pair_offsets()
    for k in range(m.n_matches):
        teams = m.teams_of(k)
        ranks = m.ranks_of(k)
        t0 = m.match_team_offsets[k]
        seats = [range(m.team_player_offsets[t], m.team_player_offsets[t + 1])
                 for t in range(t0, m.match_team_offsets[k + 1])]
        groups = [[state.get(int(p), env.create_rating()) for p in t] for t in teams]
        w = [[float(m.weight[s]) for s in ss] for ss in seats]
        # predictions: pairwise expected scores, dynamics included
        tsum = [(sum(wi * g.mu for wi, g in zip(wt, grp)),
                 sum(wi * wi * (g.sigma ** 2 + env.tau ** 2 + env.beta ** 2)
                     for wi, g in zip(wt, grp)), len(grp)) for wt, grp in zip(w, groups)]
        q = po[k]
        for i in range(len(teams)):
            for j in range(i + 1, len(teams)):
                want = ref.expected_score(tsum[i][0], tsum[i][1], tsum[j][0], tsum[j][1],
                                          tsum[i][2] + tsum[j][2])
                assert r.pair_predictions[q] == pytest.approx(want, abs=1e-12)
                q += 1
        out = env.rate(groups, [int(x) for x in ranks], w)
        for t, o in zip(teams, out):
            for p, x in zip(t, o):
                state[int(p)] = x
    ids = sorted(state)  # player ids of the matches (= of the Ratings)
    idx = ids
    np.testing.assert_allclose(r.state["mu"][idx], [state[i].mu for i in ids], atol=1e-9)
    np.testing.assert_allclose(r.state["sigma"][idx], [state[i].sigma for i in ids], atol=1e-9)


# ----------------------------------------------------------------------------------
# 3. invariants

@settings(max_examples=60, deadline=None)
@given(_match(weights=True), st.randoms(use_true_random=False))
def test_permuting_teams_and_players_permutes_the_results(case, rnd):
    teams, ranks, weights = case
    base = rate_match(teams, ranks, weights)
    # teams of equal rank are taken in the given order (a tie is symmetric only in
    # law, not in the schedule), so permute only among distinct ranks' order keys
    perm = sorted(range(len(teams)), key=lambda k: (ranks[k], rnd.random()))
    if any(ranks[a] == ranks[b] for a, b in zip(perm, perm[1:])):
        perm = sorted(range(len(teams)), key=lambda k: (ranks[k], k))
    shuffled = [list(range(len(t))) for t in teams]
    for s in shuffled:
        rnd.shuffle(s)
    t2 = [[teams[k][i] for i in shuffled[k]] for k in perm]
    w2 = [[weights[k][i] for i in shuffled[k]] for k in perm]
    got = rate_match(t2, [ranks[k] for k in perm], w2)
    for pos, k in enumerate(perm):
        for j, i in enumerate(shuffled[k]):
            assert got[pos][j] == pytest.approx(base[k][i], abs=1e-9)
    # the input order of the teams does not matter (stable within ties)
    rev = list(range(len(teams)))[::-1]
    got = rate_match([teams[k] for k in rev], [ranks[k] for k in rev],
                     [weights[k] for k in rev])
    srt = sorted(range(len(teams)), key=lambda k: ranks[k])
    if all(ranks[a] != ranks[b] for a, b in zip(srt, srt[1:])):
        for pos, k in enumerate(rev):
            _close([got[pos]], [base[k]], 1e-12)


@settings(max_examples=60, deadline=None)
@given(_match(weights=True))
def test_a_weight_zero_player_changes_nothing(case):
    teams, ranks, weights = case
    base = rate_match(teams, ranks, weights)
    ghost = (7.0, 3.0)
    got = rate_match([t + [ghost] for t in teams][:1] + teams[1:], ranks,
                     [weights[0] + [0.0]] + weights[1:])
    assert got[0][-1] == ghost
    assert got[0][:-1] == base[0] and got[1:] == base[1:]


def test_a_weight_zero_teammate_keeps_a_1v1_to_the_bit():
    """A 1v1 with a weight-0 teammate added is the 1v1 itself, to the bit, by rate_match
    and by rate() (hypothesis found the teammate moving it off the 1v1 path: 0.1457...81
    became 0.1457...808)."""
    base = rate_match([[(0.0, 1.0)], [(0.0, 1.0)]], [0, 1])
    got = rate_match([[(0.0, 1.0), (7.0, 3.0)], [(0.0, 1.0)]], [0, 1], [[1.0, 0.0], [1.0]])
    assert got[0] == [base[0][0], (7.0, 3.0)] and got[1] == base[1]
    m = Matches.from_arrays(match=[1, 1, 1, 2, 2], team=[1, 1, 2, 1, 2],
                            player=["a", "g", "b", "a", "b"], rank=[1, 1, 2, 2, 1],
                            weight=[1.0, 0.0, 1.0, 1.0, 1.0])
    plain = Matches.from_arrays(match=[1, 1, 2, 2], team=[1, 2, 1, 2],
                                player=["a", "b", "a", "b"], rank=[1, 2, 2, 1])
    with_ghost, alone = trueskill.rate(m), trueskill.rate(plain)
    for p in "ab":
        assert with_ghost[p] == alone[p]
    np.testing.assert_array_equal(with_ghost.predictions, alone.predictions)
    assert with_ghost.games_played[with_ghost.players.id_of("g")] == 0


def test_weight_zero_through_rate_is_unchanged_and_uncounted():
    m = Matches.from_arrays(match=[1, 1, 1], team=[1, 2, 2], player=["a", "b", "c"],
                            rank=[1, 2, 2], weight=[1.0, 0.0, 1.0])
    r = trueskill.rate(m, initial={"b": 30.0})
    b = r.players.id_of("b")
    assert r.state["mu"][b] == 30.0 and r.state["sigma"][b] == 25.0 / 3.0
    assert r.games_played[b] == 0
    alone = trueskill.rate(Matches.from_arrays(match=[1, 1], team=[1, 2], player=["a", "c"],
                                               rank=[1, 2]))
    for p in "ac":
        assert r[p] == alone[p]
    np.testing.assert_array_equal(r.predictions, alone.predictions)


def test_games_input_and_ties():
    g = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.5])
    r = trueskill.rate(g)
    want = rate_match([[D], [D]])
    assert r.state["mu"][r.players.id_of("a")] == pytest.approx(want[0][0][0], abs=1e-12)
    assert r.pair_predictions.shape == (2,) and r.predictions.shape == (4,)


# ----------------------------------------------------------------------------------
# 4. tail safety (the package's issue #22)


def test_a_20000_player_free_for_all_stays_finite_and_ordered():
    n = 20_000
    out = rate_match([[D]] * n)
    mu = np.array([t[0][0] for t in out])
    sigma = np.array([t[0][1] for t in out])
    assert np.isfinite(mu).all() and np.isfinite(sigma).all() and (sigma > 0).all()
    assert (np.diff(mu) < 0).all()
    assert (sigma <= D[1]).all()


@pytest.mark.parametrize("gap", [50.0, 200.0, 1e3, 1e5])
def test_huge_upsets_and_draws_are_finite(gap):
    for ranks in ([0, 1], [0, 0]):
        (a,), (b,) = rate_match([[(0.0, 1.0)], [(gap, 1.0)]], ranks)
        assert all(math.isfinite(x) for x in a + b) and a[1] > 0 and b[1] > 0
        assert a[0] > 0.0 > b[0] - gap  # the underdog gains, the favourite loses
        assert a[1] <= math.hypot(1.0, 25.0 / 300) and b[1] <= math.hypot(1.0, 25.0 / 300)
    # a free-for-all won by the weakest
    out = rate_match([[(-gap, 1.0)], [(0.0, 1.0)], [(gap, 1.0)]])
    flat = _flat(out)
    assert all(math.isfinite(x) for p in flat for x in p) and all(p[1] > 0 for p in flat)


def test_tail_win_functions_are_continuous_at_the_switch():
    """The win functions from erfc and from the Mills-ratio continued fraction agree
    where they meet (t - e = -30)."""
    lo = rate_match([[(0.0, 1.0)], [(30.0 * math.sqrt(2 * 1.0 + 2 * (25 / 6) ** 2)
                                       + 1e-9, 1.0)]])
    hi = rate_match([[(0.0, 1.0)], [(30.0 * math.sqrt(2 * 1.0 + 2 * (25 / 6) ** 2)
                                       - 1e-9, 1.0)]])
    _close(lo, hi, 1e-8)


# ----------------------------------------------------------------------------------
# 5. predictions, the public formulas, convergence


def test_predictions_sum_to_one_and_two_teams_use_the_expected_score():
    rng = np.random.default_rng(5)
    m = Matches.from_arrays(**_random_long(rng, 200, 15))
    r = trueskill.rate(m)
    sums = np.add.reduceat(r.predictions, m.match_team_offsets[:-1])
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    two = np.flatnonzero(np.diff(m.match_team_offsets) == 2)
    po = m.pair_offsets()
    np.testing.assert_array_equal(r.predictions[m.match_team_offsets[two]],
                                  r.pair_predictions[po[two]])
    assert ((r.pair_predictions > 0) & (r.pair_predictions < 1)).all()


def test_multi_team_predictions_are_the_luce_form():
    """More than two teams: p_k = softmax(lambda mu_k), lambda = pi / (sqrt 3 c), c^2
    the mean variance of a difference of two team performances (from the ratings
    before the match, dynamics included); close to the probability that a team's
    Gaussian performance is the highest."""
    m = Matches.from_arrays(match=[1, 1, 1, 2, 2, 2], team=None,
                            player=["a", "b", "c", "a", "b", "c"], rank=[1, 2, 3, 1, 2, 3])
    r = trueskill.rate(m)
    assert r.predictions[:3] == pytest.approx([1 / 3] * 3, rel=1e-12)
    before = trueskill.rate(Matches.from_arrays(match=[1, 1, 1], team=None,
                                                player=["a", "b", "c"], rank=[1, 2, 3]))
    cfg = trueskill.TrueSkillConfig()
    mu = np.array([before.state["mu"][before.players.id_of(p)] for p in "abc"])
    sig2 = np.array([before.state["sigma"][before.players.id_of(p)] ** 2 for p in "abc"])
    var = sig2 + cfg.tau ** 2 + cfg.beta ** 2
    lam = math.pi / math.sqrt(3.0) / math.sqrt(2.0 * var.mean())
    z = np.exp(lam * (mu - mu.max()))
    np.testing.assert_allclose(r.predictions[3:], z / z.sum(), rtol=1e-12)
    # against the exact Gaussian probability of the highest performance (quadrature)
    x = np.linspace(-12.0, 12.0, 20001)
    sd = np.sqrt(var)
    exact = []
    for k in range(3):
        perf = mu[k] + sd[k] * x
        dens = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        erf = np.vectorize(math.erf)
        others = np.prod([0.5 * (1 + erf((perf - mu[j]) / (sd[j] * math.sqrt(2))))
                          for j in range(3) if j != k], axis=0)
        exact.append(float(np.sum(dens * others) * (x[1] - x[0])))
    np.testing.assert_allclose(r.predictions[3:], exact, atol=0.03)


def test_public_two_team_functions():
    c = TrueSkillConfig()
    pw = trueskill.win_probability(30.0, 4.0, 25.0, 5.0, config=c)
    pd = trueskill.draw_probability(30.0, 4.0, 25.0, 5.0, config=c)
    pl = trueskill.win_probability(25.0, 5.0, 30.0, 4.0, config=c)
    assert pw + pd + pl == pytest.approx(1.0, abs=1e-15)
    var = 16 + 25 + 2 * (c.beta ** 2 + c.tau ** 2)
    assert trueskill.expected_score(30.0, 4.0, 25.0, 5.0) == pytest.approx(
        ref.expected_score(30.0, 16 + 2 * c.tau ** 2 + c.beta ** 2 + 0.0, 25.0,
                           25 + c.beta ** 2, 2), abs=1e-14)
    eps = trueskill.draw_margin(2)
    assert pw == pytest.approx(NormalDist().cdf((5.0 - eps) / math.sqrt(var)), abs=1e-15)
    assert float(trueskill.draw_margin(4, c)) == pytest.approx(
        ts.calc_draw_margin(0.1, 4, _exact_env()), rel=1e-12)
    # the stored 1v1 prediction is expected_score of the pre-match values
    r = trueskill.rate(Matches.from_arrays(match=[1, 1], team=None, player=["a", "b"],
                                           rank=[1, 2]), initial={"a": 30.0})
    assert r.predictions[0] == pytest.approx(
        float(trueskill.expected_score(30.0, D[1], 25.0, D[1])), abs=1e-15)
    np.testing.assert_allclose(trueskill.expected_score([25, 30], D[1], [25, 25], D[1]),
                               [0.5, r.predictions[0]], atol=1e-15)


def test_unconverged_matches_are_listed():
    m = Matches.from_arrays(match=[1] * 8 + [2, 2], team=None, player=list("abcdefgh") + ["a", "b"],
                            rank=list(range(1, 9)) + [1, 2])
    r = trueskill.rate(m, TrueSkillConfig(max_iterations=1))
    assert r.unconverged.tolist() == [0] and r.unconverged.dtype == np.int64
    assert trueskill.rate(m).unconverged.tolist() == []
    _, ok = ref.rate_match([[D]] * 8, max_iter=1)
    assert not ok


# ----------------------------------------------------------------------------------
# 6. errors


@pytest.mark.parametrize("kw", [dict(sigma=0.0), dict(beta=-1.0), dict(tau=-0.1),
                                dict(draw_probability=1.0), dict(draw_probability=-0.1),
                                dict(tolerance=0.0), dict(max_iterations=0),
                                dict(max_iterations=2.5), dict(mu=math.inf),
                                dict(conservative_k=math.nan)])
def test_bad_config(kw):
    with pytest.raises(ConfigError, match=next(iter(kw))):
        TrueSkillConfig(**kw)


def test_bad_arguments():
    with pytest.raises(InputTypeError):
        TrueSkillConfig(mu="25")
    with pytest.raises(InputTypeError, match="needs a fastrate.Matches"):
        trueskill.rate([1, 2])
    with pytest.raises(InputTypeError, match="TrueSkillConfig"):
        trueskill.rate(Games.from_arrays(["a"], ["b"], [1.0]), config=object())
    tie = Matches.from_arrays(match=[1, 1], team=None, player=["a", "b"], rank=[1, 1])
    with pytest.raises(InputError, match="match 0 has a tie, but draw_probability is 0"):
        trueskill.rate(tie, TrueSkillConfig(draw_probability=0.0))
    assert trueskill.rate(tie).state["mu"][0] == pytest.approx(25.0)
    with pytest.raises(InputError, match="at least two teams"):
        rate_match([[D]])
    with pytest.raises(InputError, match="team 1 is empty"):
        rate_match([[D], []])
    with pytest.raises(InputError, match="sigma > 0"):
        rate_match([[D], [(25.0, 0.0)]])
    with pytest.raises(InputError, match="ranks must be 2"):
        rate_match([[D], [D]], [1])
    with pytest.raises(InputError, match="no player of weight > 0"):
        rate_match([[D], [D]], weights=[[1.0], [0.0]])
    with pytest.raises(InputError, match="weight must be in"):
        match_quality([[D], [D]], [[1.0], [1.5]])
    with pytest.raises(InputError, match="n_players must be >= 2"):
        trueskill.expected_score(25, 8, 25, 8, n_players=1)


def test_erfcx_against_erfc_times_exp_and_the_asymptotic_series():
    from fastrate._special import erfcx  # (layer 0: TrueSkill's and Weng-Lin's normal cdf)

    # y = k/64 up to 26 (where erfc underflows): y*y is exact, so erfc(y) e^(y^2) has
    # only the library's rounding; far out, the asymptotic series of erfcx
    for k in range(0, 26 * 64):
        y = k / 64.0
        assert erfcx(y) == pytest.approx(math.erfc(y) * math.exp(y * y), rel=2e-15)
    for y in (1e3, 3.7e4, 1e8, 1e150):
        u = 1.0 / (2.0 * y * y)
        series = (1.0 - u + 3.0 * u * u) / (y * math.sqrt(math.pi))
        assert erfcx(y) == pytest.approx(series, rel=1e-15)


def test_v_of_a_win_from_erfcx_matches_the_normal_functions():
    # the two-player update is mu +- sigma^2/c v((d - eps)/c): recover v from rate_match
    # over a wide range of upsets and compare it with phi/Phi from math.erfc
    cfg = TrueSkillConfig(tau=0.0)
    eps = cfg.draw_factor() * math.sqrt(2.0)
    for d in np.linspace(-60.0, 40.0, 201):
        (a,), (b,) = rate_match([[(float(d), 3.0)], [(0.0, 4.0)]], config=cfg)
        c = math.sqrt(9.0 + 16.0 + 2.0 * cfg.beta ** 2)
        x = (d - eps) / c
        v = (a[0] - d) * c / 9.0
        ref = math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi) / (0.5 * math.erfc(-x / math.sqrt(2)))
        # a[0] - d loses the last bits of d: allow a few units in the last place of d
        assert abs(v - ref) <= 1e-12 * ref + 1e-15 * (abs(d) + 1.0) * c / 9.0


def test_two_player_update_does_not_depend_on_predicting():
    # rate() predicts (and shares the win's erfcx with the prediction); rate_match does
    # not: the same bits
    rng = np.random.default_rng(5)
    for _ in range(200):
        mu_a, mu_b = rng.normal(25.0, 15.0, 2)
        s_a, s_b = rng.uniform(0.5, 9.0, 2)
        tie = bool(rng.random() < 0.2)
        prev = Matches.from_arrays(match=[0, 0, 1, 1], team=None, player=["a", "x", "b", "y"],
                                   rank=[1, 2, 1, 2])
        start = trueskill.rate(prev)
        start.state["mu"][:] = [mu_a, 25.0, mu_b, 25.0]
        start.state["sigma"][:] = [s_a, 8.0, s_b, 8.0]
        one = Matches.from_arrays(match=[0, 0], team=None, player=["a", "b"],
                                  rank=[1, 1] if tie else [1, 2])
        got = trueskill.rate(one, initial=start)
        (a,), (b,) = rate_match([[(mu_a, s_a)], [(mu_b, s_b)]], [0, 0] if tie else [0, 1])
        assert float(got.state["mu"][got.players.id_of("a")]) == a[0]
        assert float(got.state["sigma"][got.players.id_of("a")]) == a[1]
        assert float(got.state["mu"][got.players.id_of("b")]) == b[0]
        assert float(got.state["sigma"][got.players.id_of("b")]) == b[1]


def test_lanes_equal_each_match_alone():
    """Consecutive free-for-alls with no player in common run side by side in lanes;
    each must come out exactly as when it is rated alone (ties, partial play, far
    upsets included)."""
    rng = np.random.default_rng(11)
    match, team, player, rank, weight = [], [], [], [], []
    start: dict[str, tuple[float, float]] = {}
    layout = []
    next_id = 0
    for m in range(40):
        k = 6 if m < 20 else 8 if m < 36 else int(rng.integers(3, 9))  # runs of lanes
        ranks = np.sort(rng.integers(1, k + 1, k))  # ties
        names = [f"p{next_id + i}" for i in range(k)]
        next_id += k
        for i, name in enumerate(names):
            match.append(m)
            team.append(i)
            player.append(name)
            rank.append(int(ranks[i]))
            weight.append(float(rng.choice([1.0, 1.0, 0.5])))
            start[name] = (float(rng.choice([25.0, 25.0, 5000.0, -5000.0])),
                           float(rng.uniform(1.0, 8.0)))
        layout.append((names, [int(r) for r in ranks]))
    initial = {"player": list(start), "mu": [v[0] for v in start.values()],
               "sigma": [v[1] for v in start.values()],
               "rating": [v[0] - 3 * v[1] for v in start.values()],
               "games_played": [0] * len(start)}
    together = trueskill.rate(Matches.from_arrays(match, team, player, rank=rank,
                                                  weight=weight), initial=initial)
    row = 0
    for names, ranks in layout:
        k = len(names)
        alone = trueskill.rate(Matches.from_arrays([0] * k, list(range(k)), names,
                                                   rank=ranks, weight=weight[row:row + k]),
                               initial=initial)
        row += k
        for name in names:
            a = together.players.id_of(name)
            b = alone.players.id_of(name)
            assert together.state["mu"][a] == alone.state["mu"][b], name
            assert together.state["sigma"][a] == alone.state["sigma"][b], name


@pytest.mark.parametrize("shape", ["mixed", "1v1", "2v2", "ffa4", "ffa8"])
def test_final_only_is_the_full_run_to_the_bit(shape):
    """``predictions=False`` (final ratings only): no per-match outputs and the same
    bits for the ratings, unconverged matches included (random matches with ties and
    partial play; the 1v1, two-team and lane paths)."""
    from fastrate import systems

    rng = np.random.default_rng(7)
    if shape == "mixed":
        cols = _random_long(rng, 300, 40)
    else:
        k, size = {"1v1": (2, 1), "2v2": (2, 2), "ffa4": (4, 1), "ffa8": (8, 1)}[shape]
        cols = _random_long(rng, 400, 200, max_teams=k, max_size=size, weights=False)
    m = Matches.from_arrays(cols["match"], cols["team"], cols["player"], rank=cols["rank"],
                            weight=cols["weight"])
    for config in (TrueSkillConfig(), TrueSkillConfig(tau=0.5, max_iterations=3)):
        full = trueskill.rate(m, config)
        final = trueskill.rate(m, config, predictions=False)
        assert final.predictions is None and final.pair_predictions is None
        for key in ("mu", "sigma", "rating", "games_played"):
            np.testing.assert_array_equal(final.state[key], full.state[key], err_msg=key)
        np.testing.assert_array_equal(final.unconverged, full.unconverged)
    assert systems.get("trueskill").final_only
