"""Placement-game skill statistics (SPEC §4): worked examples, equivalence with the
pure-Python reference, invariants, bad input and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import placement as ref

import fastrate
from fastrate._special import gammq
from fastrate.cli.placement import placement_group
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.stats import placement as P
from fastrate.stats.placement import affiliates

ESSAY = [7, 6, 5, 4, 4, 4, 5]


# ----------------------------------------------------------------------------------
# 1. published values (SPEC §4 and the KDice essay)


def test_tapl_worked_example():
    assert P.chi_square(ESSAY) == pytest.approx(1.60)
    assert round(P.tapl(ESSAY), 1) == 270.4
    assert P.tapl(ESSAY) == pytest.approx(1.60 / math.sqrt(35) * 1000)


def test_tapl_from_percentages_is_the_same():
    pct = np.array(ESSAY) / 35 * 100
    counts = P.counts_from_percentages(pct, 35)
    assert round(P.tapl(counts), 1) == 270.4
    assert ref.tapl_from_percentages(pct.tolist(), 35) == pytest.approx(P.tapl(ESSAY))


def test_qooa_examples():
    assert round(P.qooa([50, 50]), 2) == 0.49
    assert round(P.qooa([20, 80]), 2) == 0.62
    np.testing.assert_allclose(P.qooa([[50, 50, 0, 0, 0, 0], [20, 80, 0, 0, 0, 0]]),
                               [50 / 371 + 50 / 142, 20 / 371 + 80 / 142])
    assert P.qooa([0, 0, 0, 0, 0, 100]) == pytest.approx(100 / 3)


def test_ci_uniform_is_zero_and_range():
    assert P.convolution_integral([1] * 7) == pytest.approx(0.0)
    assert P.convolution_integral([5] * 7) == pytest.approx(0.0)
    assert P.convolution_integral([3, 0, 0, 0, 0, 0, 0]) == 1.0
    assert P.convolution_integral([0, 0, 0, 0, 0, 0, 4]) == -1.0
    rng = np.random.default_rng(3)
    ci = P.convolution_integral(rng.integers(0, 20, (500, 7)) + 1)
    assert ((ci >= -1) & (ci <= 1)).all()


def test_ci_custom_payoff():
    assert P.convolution_integral([1, 1, 2], payoff=[10, 0, -5], buy_in=10) == \
        pytest.approx((10 - 10) / 4 / 10)


def test_bss_three_and_a_half_games_per_seven_player_game():
    behind, gb = P.standings_from_counts(np.eye(7, dtype=np.int64))
    assert behind.sum() == pytest.approx(3.5)
    np.testing.assert_allclose(gb, np.arange(7) / 6)
    table = P.standings([1] * 7, list("abcdefg"), [3, 1, 2, 7, 6, 5, 4])
    assert table["behind"].sum() == pytest.approx(3.5)
    assert table["player"].tolist() == list("bcagfed")
    np.testing.assert_allclose(table["games_behind"], np.arange(7) / 6)


def test_bss_half_game_per_game_not_played():
    # a won two games, b won one and sat the second out
    table = P.standings([1, 1, 2, 2], ["a", "b", "a", "c"], [2, 1, 1, 2], sort=False)
    # behind: a 1, b 0, c 1; games a 2, b 1, c 1 -> totals 1, 0.5, 1.5
    np.testing.assert_allclose(table["behind"], [1, 0, 1])
    np.testing.assert_allclose(table["games_behind"], [0.5, 0.0, 1.0])


def test_p_value_known_values():
    assert P.p_value(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert P.p_value(11.07, 5) == pytest.approx(0.05, abs=1e-4)
    assert P.p_value(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-12)
    assert P.p_value(11.070497693516351, 5) == pytest.approx(0.05, rel=1e-12)
    assert P.p_value(0.0, 6) == 1.0
    assert P.p_value(4.0, 2) == pytest.approx(math.exp(-2))
    np.testing.assert_allclose(P.p_value([1.0, 2.0], 1), [math.erfc(math.sqrt(0.5)),
                                                          math.erfc(1.0)], rtol=1e-13)
    assert math.isnan(P.p_value(float("nan"), 3))
    # one value and a scalar df: the broadcast df is a contiguous read-only-ish view
    assert P.p_value(np.array([4.0]), 2) == pytest.approx([math.exp(-2)])


@pytest.mark.parametrize("df", [1, 2, 3, 6, 7, 30])
@pytest.mark.parametrize("x", [0.001, 0.5, 3.0, 9.0, 40.0, 200.0])
def test_p_value_both_paths_match_the_textbook_sums(df, x):
    expected = ref.chi2_sf(x, df)
    assert P.p_value(x, df) == pytest.approx(expected, rel=1e-10, abs=1e-300)
    # the incomplete-gamma path (used for fractional or large df) on the same values
    assert gammq(df / 2, x / 2) == pytest.approx(expected, rel=1e-10, abs=1e-300)


def test_p_value_fractional_and_large_df_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (0.5, 2.5, 201.0, 1000.0, 5000.0):
        for x in (0.1, df * 0.5, df, df * 2.0 + 10):
            assert P.p_value(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-9,
                                                     abs=1e-300)


def test_effect_size_and_tapl_relation():
    w = P.effect_size(ESSAY)
    assert w == pytest.approx(math.sqrt(1.6 / 35))
    assert P.tapl(ESSAY) == pytest.approx(w * w * math.sqrt(35) * 1000)


def test_yates_as_the_essay_applies_it():
    # n = 10, k = 2: expected 5 each; |8 - 5| - 0.5 = 2.5 -> 2 * 2.5^2 / 5
    assert P.chi_square([8, 2], yates=True) == pytest.approx(2.5)
    assert P.chi_square([8, 2]) == pytest.approx(3.6)
    # a difference under 0.5 counts 0
    assert P.chi_square([1, 0], yates=True) == 0.0
    assert P.chi_square([3, 2], yates=True) == 0.0
    # auto: applied only when an expected count is below 5
    assert P.chi_square([8, 2], yates="auto") == pytest.approx(3.6)
    assert P.chi_square([3, 1], yates="auto") == P.chi_square([3, 1], yates=True)


def test_reference_profiles_are_normalised():
    z = P.reference_profile("tazd")
    assert z.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(z, np.array(P.TAZD_PROFILE) / 95.3)
    b = P.reference_profile("takbe")
    np.testing.assert_allclose(b, np.array(P.TAKBE_PROFILE) / 98)
    # percentages or fractions within 1%: silent
    np.testing.assert_allclose(P.reference_profile([25, 25, 25, 25.5], 4),
                               np.array([25, 25, 25, 25.5]) / 100.5)
    with pytest.warns(P.ProfileWarning, match="sums to 98"):
        np.testing.assert_allclose(P.reference_profile([14] * 7), 1 / 7)
    assert issubclass(P.ProfileWarning, UserWarning)


def test_tazd_and_takbe_use_the_published_profiles():
    assert P.tazd(ESSAY) == pytest.approx(ref.tapl(ESSAY, list(P.TAZD_PROFILE)))
    assert P.takbe(ESSAY) == pytest.approx(ref.tapl(ESSAY, list(P.TAKBE_PROFILE)))


def test_tazd_can_fall_after_a_win_but_tazd_star_cannot():
    before = np.array([2, 3, 4, 5, 0, 0, 4])
    after = before + np.eye(7, dtype=np.int64)[0]
    assert P.tazd(after) < P.tazd(before)  # the forum's complaint about plain TAZD
    assert P.tazd_star(after) > P.tazd_star(before)


def test_gpg_and_pprg():
    # a player at the 60-point tables only: points per game = CI * 60 -> GPG 60
    counts = np.array([10, 6, 5, 4, 4, 3, 3])
    ci = P.convolution_integral(counts)
    games = counts.sum()
    assert P.guts_per_game(ci * 60 * games, games, ci) == pytest.approx(60.0)
    assert P.guts_per_game(1000.0, 1, 1e-6) == 6000.0
    assert math.isnan(P.guts_per_game(10.0, 5, 0.0))
    assert math.isnan(P.guts_per_game(10.0, 5, -0.2))
    assert math.isnan(P.guts_per_game(10.0, 0, 0.2))
    assert P.pprg(100.0, 25) == 20.0
    np.testing.assert_allclose(P.pprg([100.0, 0.0], [25, 0]), [20.0, np.nan])


def test_zero_games_give_nan():
    for f in (P.chi_square, P.tapl, P.effect_size, P.tazd_star, P.convolution_integral):
        assert math.isnan(f([0] * 7))
    cols = P.placement_stats(np.zeros((2, 7), np.int64))
    for name in ("chi2", "p_value", "effect_size", "tapl", "tazd", "takbe", "tazd_star", "ci"):
        assert np.isnan(cols[name]).all(), name
    np.testing.assert_array_equal(cols["games_behind"], [0, 0])


def test_place_counts_and_profiles_from_log():
    index, counts = P.place_counts(["a", "b", "a", "b"], [1, 2, 2, 1], 3, game=[1, 1, 2, 2])
    assert list(index) == ["a", "b"]
    np.testing.assert_array_equal(counts, [[1, 1, 0], [1, 1, 0]])
    assert counts.dtype == np.int64
    log = P.profiles_from_log(["a", "b", "a", "b"], [1, 2, 2, 1], game=[1, 1, 2, 2],
                              points=[60, 42, 42, 60], level=[0, 0, 1, 1])
    np.testing.assert_array_equal(log["counts"], [[1, 1], [1, 1]])
    np.testing.assert_allclose(log["points"], [102, 102])
    np.testing.assert_allclose(log["levels"][:, :2], [[50, 50], [50, 50]])
    # ties allowed on request
    _, tied = P.place_counts(["a", "b"], [1, 1], 2, game=[1, 1], allow_ties=True)
    np.testing.assert_array_equal(tied, [[1, 0], [1, 0]])


@settings(max_examples=40)
@given(st.lists(st.integers(2, 7), min_size=1, max_size=20), st.randoms(use_true_random=False))
def test_profiles_from_matches_is_profiles_from_log(sizes, rnd):
    """A free-for-all Matches built from an untied log (rows shuffled) gives the log's
    profiles, points and level percentages, and so the same statistics."""
    rows = []
    for g, size in enumerate(sizes):
        for place, player in enumerate(rnd.sample(range(12), size), start=1):
            rows.append((g * 7 % 11 + 100 * g, f"p{player}", place, rnd.uniform(-60, 60),
                         rnd.randrange(6)))
    rnd.shuffle(rows)
    game, player, place, points, level = (np.array(c) for c in zip(*rows))
    log = P.profiles_from_log(player, place, game=game, points=points, level=level)
    matches = fastrate.Matches.from_arrays(game, None, player, place=place)
    got = P.profiles_from_matches(matches, points=points[matches.row],
                                  level=level[matches.row])
    assert got["players"].names.tolist() == log["players"].names.tolist()
    np.testing.assert_array_equal(got["counts"], log["counts"])
    np.testing.assert_allclose(got["points"], log["points"], rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(got["levels"], log["levels"])
    a, b = (P.placement_stats(x["counts"]) for x in (got, log))
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])


def test_profiles_from_matches_ties_k_and_bad_input():
    m = fastrate.Matches.from_arrays([1, 1, 1], None, ["a", "b", "c"], place=[1, 2, 2])
    with pytest.raises(InputError, match=r"must not repeat within a match \(a tie\); found "
                       r"two players at rank 2 in match 1; pass allow_ties=True"):
        P.profiles_from_matches(m)
    # competition ranks: the tied players each count their shared place
    np.testing.assert_array_equal(P.profiles_from_matches(m, allow_ties=True)["counts"],
                                  [[1, 0], [0, 1], [0, 1]])
    m = fastrate.Matches.from_arrays([1, 1, 1], None, ["a", "b", "c"], place=[1, 2, 3])
    assert P.profiles_from_matches(m, 5)["counts"].shape == (3, 5)
    with pytest.raises(InputError, match=r"rank must be in 1\.\.2 \(k\); found 3 in match 1"):
        P.profiles_from_matches(m, 2)
    with pytest.raises(ConfigError, match="'k' of profiles_from_matches"):
        P.profiles_from_matches(m, 1)
    with pytest.raises(InputError, match=r"column 'points' must have one value per seat \(3\)"):
        P.profiles_from_matches(m, points=[1.0, 2.0])
    teams = fastrate.Matches.from_arrays(["g1"] * 4, [1, 1, 2, 2], ["a", "b", "c", "d"],
                                         place=[1, 1, 2, 2])
    with pytest.raises(InputError, match=r"takes free-for-all matches \(one player per team\); "
                       r"found a team of 2 players in match 'g1'"):
        P.profiles_from_matches(teams)
    with pytest.raises(TypeError, match=r"profiles_from_matches\(\) needs a fastrate.Matches; "
                       "got list"):
        P.profiles_from_matches([[1, 2]])


def test_placement_stats_columns_match_the_single_functions():
    rng = np.random.default_rng(7)
    counts = rng.integers(0, 15, (200, 7))
    points = rng.normal(0, 100, 200)
    levels = rng.dirichlet(np.ones(6), 200) * 100
    for yates in (False, True, "auto"):
        cols = P.placement_stats(counts, yates=yates, points=points, levels=levels)
        np.testing.assert_allclose(cols["chi2"], P.chi_square(counts, yates=yates), rtol=1e-12)
        np.testing.assert_allclose(cols["tapl"], P.tapl(counts, yates=yates), rtol=1e-12)
        np.testing.assert_allclose(cols["tazd"], P.tazd(counts, yates=yates), rtol=1e-12)
        np.testing.assert_allclose(cols["takbe"], P.takbe(counts, yates=yates), rtol=1e-12)
        np.testing.assert_allclose(cols["p_value"], P.p_value(cols["chi2"], 6), rtol=1e-12)
        np.testing.assert_allclose(cols["effect_size"], P.effect_size(counts, yates=yates),
                                   rtol=1e-12)
    np.testing.assert_allclose(cols["tazd_star"], P.tazd_star(counts), rtol=1e-12)
    np.testing.assert_allclose(cols["ci"], P.convolution_integral(counts), rtol=1e-12)
    np.testing.assert_allclose(cols["games_behind"], P.standings_from_counts(counts)[1],
                               atol=1e-9)
    np.testing.assert_allclose(cols["pprg"], P.pprg(points, counts.sum(1)), rtol=1e-12)
    np.testing.assert_allclose(cols["gpg"], P.guts_per_game(points, counts.sum(1),
                                                           cols["ci"]), rtol=1e-12)
    np.testing.assert_allclose(cols["tapl_qooa"], cols["tapl"] * P.qooa(levels), rtol=1e-12)
    with_ref = P.placement_stats(counts, reference="takbe")
    np.testing.assert_allclose(with_ref["vs_reference"], with_ref["takbe"], rtol=1e-12)
    np.testing.assert_allclose(with_ref["tazd_star"], P.tazd_star(counts, "takbe"), rtol=1e-12)
    other_k = P.placement_stats(counts[:, :4], payoff=[3, 1, -1, -3], buy_in=3)
    assert "tazd" not in other_k and "takbe" not in other_k
    np.testing.assert_allclose(other_k["ci"], P.convolution_integral(
        counts[:, :4], payoff=[3, 1, -1, -3], buy_in=3), rtol=1e-12)


# ----------------------------------------------------------------------------------
# 2. equivalence with the pure-Python reference


@st.composite
def profiles(draw, max_players=12):
    k = draw(st.integers(2, 9))
    m = draw(st.integers(1, max_players))
    rows = draw(st.lists(st.lists(st.integers(0, 40), min_size=k, max_size=k),
                         min_size=m, max_size=m))
    reference = draw(st.none() | st.lists(st.floats(0.05, 10), min_size=k, max_size=k))
    yates = draw(st.sampled_from([False, True, "auto"]))
    return np.array(rows, dtype=np.int64), reference, yates


def _scaled(reference):
    """Scale a drawn reference to sum to 1 exactly (so no ProfileWarning)."""
    return None if reference is None else list(np.array(reference) / sum(reference))


@settings(max_examples=60)
@given(profiles())
def test_matches_reference(case):
    counts, reference, yates = case
    r = _scaled(reference)
    k = counts.shape[1]
    rows = counts.tolist()
    np.testing.assert_allclose(P.chi_square(counts, r, yates),
                               [ref.chi_square(c, r, yates) for c in rows], rtol=1e-10)
    np.testing.assert_allclose(P.tapl(counts, yates, r),
                               [ref.tapl(c, r, yates) for c in rows], rtol=1e-10)
    np.testing.assert_allclose(P.effect_size(counts, r, yates),
                               [ref.effect_size(c, r, yates) for c in rows], rtol=1e-10)
    star_ref = r if r is not None else [1.0 / k] * k
    np.testing.assert_allclose(P.tazd_star(counts, star_ref),
                               [ref.tazd_star(c, star_ref) for c in rows], rtol=1e-9,
                               atol=1e-7)
    payoff = list(np.linspace(30, -30, k))
    np.testing.assert_allclose(P.convolution_integral(counts, payoff, 30),
                               [ref.convolution_integral(c, payoff, 30) for c in rows],
                               rtol=1e-10, atol=1e-12)
    chi2 = np.array([ref.chi_square(c, r, yates) for c in rows])
    ok = ~np.isnan(chi2)
    np.testing.assert_allclose(P.p_value(chi2[ok], k - 1),
                               [ref.chi2_sf(x, k - 1) for x in chi2[ok]], rtol=1e-9,
                               atol=1e-300)


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(2, 7), st.integers(0, 5)), min_size=1, max_size=15),
       st.randoms(use_true_random=False))
def test_standings_match_reference(games, rnd):
    rows = []
    for g, (size, _) in enumerate(games):
        seated = rnd.sample(range(8), size)
        for place, player in enumerate(seated, start=1):
            rows.append((g, f"p{player}", place))
    rnd.shuffle(rows)
    game, player, place = zip(*rows)
    table = P.standings(list(game), list(player), list(place))
    expected = ref.standings(rows)
    got = dict(zip(table["player"].tolist(), table["games_behind"].tolist()))
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-9)
    assert np.all(np.diff(table["games_behind"]) >= 0)
    assert table["games_behind"][0] == 0.0


# ----------------------------------------------------------------------------------
# 3. invariants


counts7 = st.lists(st.integers(0, 30), min_size=7, max_size=7).filter(lambda c: sum(c) > 0)


@settings(max_examples=60)
@given(counts7, st.sampled_from(["tazd", "takbe", "uniform"]))
def test_tazd_star_never_falls_after_a_win(c, reference):
    before = np.array(c)
    after = before.copy()
    after[0] += 1
    assert P.tazd_star(after, reference) >= P.tazd_star(before, reference)


@settings(max_examples=60)
@given(counts7, st.integers(0, 6), st.integers(0, 6), st.sampled_from(["tazd", "takbe"]))
def test_tazd_star_never_falls_when_a_finish_improves(c, a, b, reference):
    worse, better = max(a, b), min(a, b)
    before = np.array(c)
    if before[worse] == 0:
        before[worse] = 1
    after = before.copy()
    after[worse] -= 1
    after[better] += 1
    assert P.tazd_star(after, reference) >= P.tazd_star(before, reference) - 1e-9


@settings(max_examples=40)
@given(profiles(), st.randoms(use_true_random=False))
def test_chi_square_is_permutation_invariant_across_players(case, rnd):
    counts, reference, yates = case
    r = _scaled(reference)
    perm = list(range(counts.shape[0]))
    rnd.shuffle(perm)
    whole = P.chi_square(counts, r, yates)
    np.testing.assert_array_equal(P.chi_square(counts[perm], r, yates), whole[perm])
    # and each player's value does not depend on the others
    np.testing.assert_array_equal([P.chi_square(row, r, yates) for row in counts], whole)


def test_tapl_grows_like_sqrt_n_for_a_fixed_profile():
    base = np.array(ESSAY)
    values = [P.tapl(base * m) for m in (1, 4, 16)]
    np.testing.assert_allclose(np.array(values) / values[0], [1, 2, 4])
    assert P.effect_size(base * 16) == pytest.approx(P.effect_size(base))


def test_float_and_int_counts_agree():
    c = np.array([[3, 1, 4, 1, 5, 9, 2], [0, 0, 0, 0, 0, 0, 1]])
    np.testing.assert_allclose(P.tapl(c), P.tapl(c.astype(float)), rtol=1e-15)


# ----------------------------------------------------------------------------------
# 4. bad input


def test_place_out_of_range():
    with pytest.raises(InputError, match=r"column 'place' must be in 1\.\.7; found 8 at row 2"):
        P.place_counts(["a", "b"], [1, 8], 7)
    with pytest.raises(InputError, match=r"column 'place' must be in 1\.\.3; found 0 at row 1"):
        P.place_counts(["a", "b"], [0, 1], 3)
    with pytest.raises(InputError, match="column 'place' must be a whole number"):
        P.place_counts(["a", "b"], [1.5, 1], 3)


def test_duplicate_places_and_players_in_a_game():
    with pytest.raises(InputError, match=r"'place' must not repeat within a game.*row 2"):
        P.place_counts(["a", "b", "c"], [1, 1, 2], 3, game=[1, 1, 1])
    with pytest.raises(InputError, match="'player' must not repeat a player within a game"):
        P.place_counts(["a", "a"], [1, 2], 2, game=[5, 5])
    # without game ids nothing ties rows together
    P.place_counts(["a", "b"], [1, 1], 2)


def test_bad_counts():
    with pytest.raises(InputError, match=r"'counts' must be non-negative; found -1 at player "
                       r"row 2, place 3"):
        P.tapl([[1, 2, 3], [1, 2, -1]])
    with pytest.raises(InputError, match="must be finite"):
        P.tapl([1.0, float("nan"), 2.0])
    with pytest.raises(InputError, match="at least 2 places"):
        P.tapl([[3], [4]])
    with pytest.raises(InputError, match="matrix or one profile"):
        P.tapl(np.zeros((2, 2, 2)))
    with pytest.raises(InputTypeError, match="must hold numbers"):
        P.tapl(["a", "b"])
    with pytest.raises(InputError, match="takes a \\(players, places\\) matrix"):
        P.placement_stats(ESSAY)


def test_bad_reference_and_options():
    with pytest.raises(ConfigError, match="'reference' must be 'uniform', 'tazd'"):
        P.tapl(ESSAY, reference="lucky")
    with pytest.raises(ConfigError, match="TAZD profile has 7 places; these counts have 3"):
        P.tazd([1, 2, 3])
    with pytest.raises(InputError, match=r"one value per place \(7\)"):
        P.tapl(ESSAY, reference=[1, 2, 3])
    with pytest.raises(InputError, match="positive at every place.*found 0.0 at place 2"):
        P.tapl([1, 2, 3], reference=[0.5, 0, 0.5])
    with pytest.raises(ConfigError, match="'yates' must be True, False or 'auto'"):
        P.tapl(ESSAY, yates="sometimes")
    with pytest.raises(ConfigError, match="default KDice payoff table has 7 places"):
        P.convolution_integral([1, 2, 3])
    with pytest.raises(ConfigError, match="'payoff' must be 3 finite numbers"):
        P.convolution_integral([1, 2, 3], payoff=[1, 2])
    with pytest.raises(ConfigError, match="'buy_in'"):
        P.convolution_integral(ESSAY, buy_in=0)
    with pytest.raises(ConfigError, match="'df' of p_value must be positive"):
        P.p_value(3.0, 0)
    with pytest.raises(InputError, match="percentages at 1 to 6 table levels"):
        P.qooa([10] * 7)
    with pytest.raises(InputError, match=r"percentages in \[0, 100\]"):
        P.qooa([-1, 50])
    with pytest.raises(InputError, match="'games' must be non-negative"):
        P.pprg(1.0, -1)
    with pytest.raises(InputError, match=r"'points' must have one value per player \(2\)"):
        P.placement_stats(np.ones((2, 7), np.int64), points=[1.0])
    with pytest.raises(InputError, match="column 'level' must be a whole table level 0..5"):
        P.profiles_from_log(["a"], [1], 2, level=[6])


def test_standings_place_beyond_game_size():
    with pytest.raises(InputError, match=r"must not exceed the number of players in the game "
                       r"\(2\); found 3\.0 at row 2"):
        P.standings([1, 1], ["a", "b"], [1, 3])


# ----------------------------------------------------------------------------------
# CLI


@pytest.fixture
def files(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("game,player,place,points,level\n1,a,1,60,0\n1,b,2,42,0\n1,c,3,-60,0\n"
                   "2,a,2,42,1\n2,b,1,60,1\n2,c,3,-60,1\n")
    counts = tmp_path / "counts.csv"
    counts.write_text("player,p1,p2,p3,p4,p5,p6,p7\nx,7,6,5,4,4,4,5\ny,0,0,0,0,0,0,0\n")
    profile = tmp_path / "profile.txt"
    profile.write_text("10 10 10.3 12.9 15.5 17.2 19.4\n")
    return tmp_path


def _invoke(args):
    return CliRunner().invoke(placement_group, args, catch_exceptions=True)


def test_cli_counts_table(files):
    res = _invoke(["stats", str(files / "counts.csv"), "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert rows[0]["player"] == "x"
    assert round(rows[0]["tapl"], 1) == 270.4
    assert rows[0]["games"] == 35
    assert rows[1]["games"] == 0


def test_cli_log_with_points_and_levels(files):
    out = files / "stats.parquet"
    res = _invoke(["stats", str(files / "log.csv"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    import pyarrow.parquet as pq

    t = pq.read_table(out).to_pydict()
    assert t["player"] == ["a", "b", "c"]
    assert t["games"] == [2, 2, 2]
    assert t["games_behind"] == pytest.approx([0.0, 0.0, 1.5])
    assert t["pprg"][0] == pytest.approx(102 / math.sqrt(2))
    assert t["qooa"][0] == pytest.approx(50 / 371 + 50 / 142)


def test_cli_reference_and_yates(files):
    res = _invoke(["stats", str(files / "counts.csv"), "--reference", "tazd", "--yates",
                   "--format", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)[0]
    assert row["vs_reference"] == pytest.approx(P.tazd(ESSAY, yates=True))
    assert row["tapl"] == pytest.approx(P.tapl(ESSAY, yates=True))
    res2 = _invoke(["stats", str(files / "counts.csv"), "--reference",
                    str(files / "profile.txt"), "--yates", "auto", "--format", "json"])
    assert res2.exit_code == 0, res2.output
    row = json.loads(res2.stdout)[0]
    assert row["vs_reference"] == pytest.approx(P.tazd(ESSAY, yates="auto"))
    assert "warning: reference profile sums to 95.3" in res2.stderr


def test_cli_errors(files):
    bad = files / "bad.csv"
    bad.write_text("game,player,place\n1,a,1\n1,b,9\n")
    res = _invoke(["stats", str(bad), "--places", "7"])
    assert res.exit_code != 0
    assert isinstance(res.exception, InputError)
    assert "column 'place' must be in 1..7; found 9 at row 2" in str(res.exception)
    nope = files / "nope.csv"
    nope.write_text("name,score\na,1\n")
    res = _invoke(["stats", str(nope)])
    assert "no column 'player'" in str(res.exception)
    res = _invoke(["stats", str(files / "counts.csv"), "--reference", "missing.txt"])
    assert "--reference must be tazd, takbe, uniform, taowr, taolz or a profile file" in \
        str(res.exception)


# ----------------------------------------------------------------------------------
# PGA detection


def test_pga_worked_example():
    # a sits first in games 1-3 (b joins 1 and 2); in game 4 b sits first and a joins
    r = P.pga([1, 1, 2, 2, 3, 4, 4], ["a", "b", "a", "b", "a", "b", "a"],
              [1, 2, 1, 3, 1, 1, 2], [10] * 7)
    assert r["x"].tolist() == ["a", "b"] and r["y"].tolist() == ["b", "a"]
    assert r["games"].tolist() == [3, 1] and r["joins"].tolist() == [2, 1]
    # lambda = p n e / w = 3 * 6 / 10; PPC = (2/3) sqrt(10 * 3 / 6)
    np.testing.assert_allclose(r["expected"], [1.8, 0.6])
    np.testing.assert_allclose(r["ppc"], [2 / 3 * math.sqrt(5), math.sqrt(10 / 6)])
    np.testing.assert_allclose(r["apc"], r["ppc"][::-1])
    assert r["p_value"][0] == pytest.approx(1 - math.exp(-1.8) * 2.8)
    assert not r["flagged"].any()
    assert not P.pga([1, 1], ["a", "b"], [1, 2], [100, 100], min_games=0)["flagged"][1]
    assert P.pga([1, 1], ["a", "b"], [1, 2], [100, 100], min_games=1)["flagged"][0]
    assert not P.pga([1, 1], ["a", "b"], [1, 2], [100, 100])["flagged"][0]  # < 20 games


def test_pga_flags_a_shadow():
    # y joins every one of x's 30 games at busy tables (60 watchers): PPC far above 3
    game = np.repeat(np.arange(30), 2)
    player = np.tile(["x", "y"], 30)
    seat = np.tile([1, 2], 30)
    r = P.pga(game, player, seat, np.full(60, 60.0))
    row = r["x"].tolist().index("x")
    assert r["ppc"][row] == pytest.approx(math.sqrt(60 * 30 / 6))
    assert r["flagged"][row]
    # Poisson(3) tail at 30 joins, summed directly (no cancellation)
    tail = math.fsum(math.exp(-3) * 3.0 ** i / math.factorial(i) for i in range(30, 120))
    assert r["p_value"][row] == pytest.approx(tail, rel=1e-10)
    halved = P.pga(game, player, seat, np.full(60, 60.0), p_watch=0.5)
    assert halved["ppc"][row] == pytest.approx(r["ppc"][row] * math.sqrt(2))


@settings(max_examples=30)
@given(st.lists(st.integers(2, 5), min_size=1, max_size=12), st.randoms(use_true_random=False),
       st.sampled_from([1.0, 0.4]))
def test_pga_matches_reference(sizes, rnd, p_watch):
    rows = []
    for g, size in enumerate(sizes):
        for seat, player in enumerate(rnd.sample(range(6), size), start=1):
            rows.append((g, f"p{player}", seat, rnd.randint(1, 40)))
    rnd.shuffle(rows)
    game, player, seat, watchers = (list(c) for c in zip(*rows))
    r = P.pga(game, player, seat, watchers, capacity=6, p_watch=p_watch)
    expected = ref.pga(rows, capacity=6, p_watch=p_watch)
    got = {(x, y): i for i, (x, y) in enumerate(zip(r["x"].tolist(), r["y"].tolist()))}
    assert got.keys() == expected.keys()
    for pair, (n, joins, lam, ppc, pval) in expected.items():
        i = got[pair]
        assert (r["games"][i], r["joins"][i]) == (n, joins)
        np.testing.assert_allclose([r["expected"][i], r["ppc"][i], r["p_value"][i]],
                                   [lam, ppc, pval], rtol=1e-9, atol=1e-12)
        j = got[pair[::-1]]
        assert r["apc"][i] == r["ppc"][j] or (math.isnan(r["apc"][i]) and
                                              math.isnan(r["ppc"][j]))


def test_pga_bad_input():
    with pytest.raises(InputError, match=r"column 'seat' must not repeat within a game; "
                       r"found 1\.0 at row 2"):
        P.pga([1, 1], ["a", "b"], [1, 1], [5, 5])
    with pytest.raises(InputError, match=r"column 'seat' must be a whole number 1..capacity"):
        P.pga([1, 1], ["a", "b"], [1, 8], [5, 5])
    with pytest.raises(InputError, match="column 'player' must not repeat a player"):
        P.pga([1, 1], ["a", "a"], [1, 2], [5, 5])
    with pytest.raises(InputError, match=r"column 'watchers' must be positive; found 0\.0"):
        P.pga([1, 1], ["a", "b"], [1, 2], [5, 0])
    with pytest.raises(ConfigError, match="'p_watch' of pga"):
        P.pga([1, 1], ["a", "b"], [1, 2], [5, 5], p_watch=0)
    # rows out of order take the sorting path; the error names the same row
    with pytest.raises(InputError, match=r"'seat' must not repeat within a game; found 3\.0 "
                       r"at row 5"):
        P.pga([3, 3, 1, 1, 3], ["a", "b", "c", "d", "c"], [1, 3, 1, 2, 3], [5] * 5)
    with pytest.raises(InputError, match=r"'player' must not repeat a player within a game; "
                       r"found 'b' at row 4"):
        P.pga([2, 1, 2, 1], ["a", "b", "b", "b"], [2, 1, 1, 2], [5] * 4)


def _seating_log(rng, n_games, n_players, capacity=6):
    rows = []
    for g in range(n_games):
        size = int(rng.integers(1, capacity + 1))
        for seat, p in enumerate(rng.choice(n_players, size, replace=False), start=1):
            rows.append((g, int(p), seat, float(rng.integers(4, 160)) / 4))
    return [np.array(c) for c in zip(*rows)]


def _by_pair(r):
    cols = [c for c in r if c not in ("x", "y")]
    return {(x, y): tuple(r[c][i].tobytes() for c in cols)
            for i, (x, y) in enumerate(zip(r["x"].tolist(), r["y"].tolist()))}


def test_pga_row_order_does_not_change_a_bit():
    # a log in game-then-seat order (no sort), the same rows shuffled (sorted by game
    # and seat) and with string game keys: every pair's values agree to the bit
    # (quarter watchers: their sums are exact in any order)
    rng = np.random.default_rng(3)
    game, player, seat, watchers = _seating_log(rng, 400, 40)
    direct = P.pga(game, player, seat, watchers, capacity=6)
    assert [len(set(zip(direct["x"].tolist(), direct["y"].tolist())))] == [len(direct["x"])]
    o = rng.permutation(game.shape[0])
    shuffled = P.pga(game[o], player[o], seat[o], watchers[o], capacity=6)
    keys = np.array([f"g{g:04d}" for g in game[o]], dtype=object)
    named = P.pga(keys, player[o], seat[o], watchers[o], capacity=6)
    assert _by_pair(direct) == _by_pair(shuffled) == _by_pair(named)
    # sorted by x then y in order of first appearance
    first = {p: i for i, p in reversed(list(enumerate(player[o].tolist())))}
    rank = [(first[x], first[y]) for x, y in zip(shuffled["x"].tolist(), shuffled["y"].tolist())]
    assert rank == sorted(rank)


def test_pga_threads_give_the_same_bits(monkeypatch):
    rng = np.random.default_rng(4)
    game, player, seat, watchers = _seating_log(rng, 3000, 300, capacity=7)
    one = P.pga(game, player, seat, watchers)
    monkeypatch.setattr(affiliates, "_PGA_MIN_ROWS_PER_THREAD", 10)
    monkeypatch.setattr(affiliates.numba, "get_num_threads", lambda: 3)
    assert len(affiliates._player_chunks(np.array([0, 10, 20, 30, 40]))) == 3
    three = P.pga(game, player, seat, watchers)
    for name in one:
        assert one[name].dtype == three[name].dtype
        assert one[name].tobytes() == three[name].tobytes(), name


def test_cli_pga(files):
    seating = files / "seating.csv"
    lines = ["game,player,seat,watchers"]
    for g in range(30):
        lines += [f"{g},x,1,60", f"{g},y,2,60"]
    lines += ["30,z,1,60", "30,x,2,60"]
    seating.write_text("\n".join(lines) + "\n")
    res = _invoke(["pga", str(seating), "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {(r["x"], r["y"]): r for r in json.loads(res.stdout)}
    assert rows[("x", "y")]["flagged"] is True
    assert rows[("x", "y")]["joins"] == 30
    res = _invoke(["pga", str(seating), "--flagged-only", "--format", "json"])
    assert [(r["x"], r["y"]) for r in json.loads(res.stdout)] == [("x", "y")]
    res = _invoke(["pga", str(files / "log.csv")])
    assert "no column 'seat', 'watchers'" in str(res.exception)


# ----------------------------------------------------------------------------------
# TAOWR / TAOLZ: tests against the player's own earlier profile (essay §iv)

# ann's ten games (k = 3): place, points won; ratings 20 10 5 -5 -15 5 0 20 40 35.
# Lowest rating -15 after game 5 (profile 1-1-3); last zero after game 7 (2-2-3);
# final profile 4-3-3.
ANN = [(1, 20), (3, -10), (2, -5), (3, -10), (3, -10), (1, 20), (2, -5), (1, 20), (1, 20),
       (2, -5)]
# bob never goes below his start (0): no reference games; cy reaches his lowest (and a
# zero) in his latest game: no games after it
BOB = [(1, 20), (2, -5)]
CY = [(1, 20), (3, -30)]


def _own_log():
    """(players, places, points, times) with the three players' games interleaved and
    the rows of the log not in time order."""
    rows = []
    for name, games, offset in (("ann", ANN, 0.0), ("bob", BOB, 0.5), ("cy", CY, 0.25)):
        for i, (place, points) in enumerate(games):
            rows.append((name, place, points, 2.0 * i + offset))
    rows.reverse()
    return tuple(list(c) for c in zip(*rows))


def _by_player(cols):
    names = cols["player"].tolist()
    return {name: {key: value[i] for key, value in cols.items()} for i, name in
            enumerate(names)}


def test_taowr_hand_worked_example():
    got = _by_player(P.taowr(*_own_log(), 3))
    ann = got["ann"]
    assert (ann["games"], ann["reference_games"], ann["games_after"]) == (10, 5, 5)
    assert (ann["rating"], ann["reference_rating"]) == (35.0, -15.0)
    # reference 1-1-3 of 5 games -> 1/5 1/5 3/5; observed 4-3-3 of n = 10: E = 2 2 6
    # chi2 = 2^2/2 + 1^2/2 + 3^2/6 = 4.0; TAOWR = 4 / sqrt(10) * 1000
    assert ann["chi2"] == pytest.approx(4.0)
    assert ann["taowr"] == pytest.approx(4.0 / math.sqrt(10) * 1000)
    assert round(ann["taowr"], 2) == 1264.91
    assert ann["df"] == 2 and ann["p_value"] == pytest.approx(math.exp(-2.0))
    assert ann["effect_size"] == pytest.approx(math.sqrt(0.4))
    assert ann["status"] == "ok"
    # the same number as the TAPL statistic against that profile (one kernel)
    assert ann["taowr"] == pytest.approx(P.tapl([4, 3, 3], reference=[1 / 5, 1 / 5, 3 / 5]))
    # only the 5 games after the low (3-2-0): E = 1 1 3, chi2 = 4 + 1 + 3 = 8
    after = _by_player(P.taowr(*_own_log(), 3, observed="after"))["ann"]
    assert after["chi2"] == pytest.approx(8.0)
    assert after["taowr"] == pytest.approx(8.0 / math.sqrt(5) * 1000)
    assert after["p_value"] == pytest.approx(math.exp(-4.0))


def test_taolz_hand_worked_example():
    got = _by_player(P.taolz(*_own_log(), 3))
    ann = got["ann"]
    assert (ann["reference_games"], ann["reference_rating"]) == (7, 0.0)
    # reference 2-2-3 of 7; observed 4-3-3, E = 20/7 20/7 30/7:
    # (8/7)^2/(20/7) + (1/7)^2/(20/7) + (9/7)^2/(30/7) = 64/140 + 1/140 + 81/210 = 0.85
    assert ann["chi2"] == pytest.approx(0.85)
    assert ann["taolz"] == pytest.approx(0.85 / math.sqrt(10) * 1000)
    assert round(ann["taolz"], 2) == 268.79
    after = _by_player(P.taolz(*_own_log(), 3, observed="after"))["ann"]
    # after: 2-1-0 in 3 games, E = 6/7 6/7 9/7 -> 64/42 + 1/42 + 9/7 = 17/6
    assert after["chi2"] == pytest.approx(17 / 6)
    # the essay's "Test Against Own Last 1000": level 20 -> after game 8 (3-2-3)
    lz20 = _by_player(P.taolz(*_own_log(), 3, level=20))["ann"]
    assert (lz20["reference_games"], lz20["reference_rating"]) == (8, 20.0)
    assert lz20["chi2"] == pytest.approx(ref.chi_square([4, 3, 3], [3, 2, 3]))


def test_own_reference_edge_cases():
    for fn, name in ((P.taowr, "taowr"), (P.taolz, "taolz")):
        got = _by_player(fn(*_own_log(), 3))
        bob, cy = got["bob"], got["cy"]
        # bob never came back to 0: his reference is the start, an empty profile
        assert bob["status"] == "no_reference_games" and bob["reference_games"] == 0
        assert bob["reference_rating"] == 0.0
        assert math.isnan(bob["chi2"]) and math.isnan(bob[name])
        assert math.isnan(bob["p_value"]) and math.isnan(bob["effect_size"])
        # cy's reference point is his last game: observed == reference, chi2 exactly 0
        assert cy["status"] == "no_games_after" and cy["games_after"] == 0
        assert cy["chi2"] == 0.0 and cy[name] == 0.0 and cy["p_value"] == 1.0
        cy_after = _by_player(fn(*_own_log(), 3, observed="after"))["cy"]
        assert cy_after["status"] == "no_games_after" and math.isnan(cy_after[name])
    # a rating that starts above the level and never comes down to it
    never = _by_player(P.taolz(*_own_log(), 3, initial=100))
    assert never["ann"]["status"] == "never_at_level"
    assert math.isnan(never["ann"]["reference_rating"]) and math.isnan(never["ann"]["taolz"])
    assert never["ann"]["reference_games"] == 0
    # TAOWR always has a reference point: the start at worst
    assert _by_player(P.taowr(*_own_log(), 3, initial=100))["ann"]["status"] == "ok"


def test_own_reference_zero_expected_and_pseudocount():
    # dee: 7th, 7th (rating -120, the low), then a win: 1st never seen in the reference
    log = (["dee"] * 3, [7, 7, 1], [-60, -60, 60], [1, 2, 3])
    res = _by_player(P.taowr(*log, 7))["dee"]
    assert res["status"] == "zero_expected" and math.isnan(res["taowr"])
    # a place with 0 expected and 0 observed adds nothing (and no degree of freedom)
    log2 = (["dee"] * 3, [7, 7, 7], [-60, -60, 60], [1, 2, 3])
    res2 = _by_player(P.taowr(*log2, 7))["dee"]
    assert res2["status"] == "ok" and res2["chi2"] == 0.0 and res2["df"] == 0
    assert res2["p_value"] == 1.0
    # pseudocount a: shares (R_j + a) / (t + k a); with a = 1: (1, 1, ..., 3) / 9
    smooth = _by_player(P.taowr(*log, 7, pseudocount=1.0))["dee"]
    shares = np.array([1, 1, 1, 1, 1, 1, 3]) / 9
    assert smooth["status"] == "ok" and smooth["df"] == 6
    assert smooth["taowr"] == pytest.approx(P.tapl([1, 0, 0, 0, 0, 0, 2], reference=shares))


def test_own_reference_floor_and_time_order():
    players, places, points, times = _own_log()
    # KDice's zero-minimum points: ratings 20 10 5 0 0 20 15 35 55 50 (game 4's -5 and
    # game 5's -15 become 0), so her lowest rating (0) is last reached at game 5, and so is
    # her last zero (game 7, exactly 0 without the floor, is now at 15)
    floored = _by_player(P.taowr(players, places, points, times, 3, floor=0.0))["ann"]
    assert floored["reference_rating"] == 0.0 and floored["reference_games"] == 5
    lz = _by_player(P.taolz(players, places, points, times, 3, floor=0.0))["ann"]
    assert lz["reference_games"] == 5 and lz["rating"] == 50.0
    # dates and ISO strings order the same way as numbers
    stamps = [np.datetime64("2024-01-01T00:00") + np.timedelta64(int(t * 60), "m")
              for t in times]
    as_dates = P.taolz(players, places, points, stamps, 3)
    as_text = P.taolz(players, places, points, [str(s) for s in stamps], 3)
    as_numbers = P.taolz(players, places, points, times, 3)
    for cols in (as_dates, as_text):
        np.testing.assert_array_equal(cols["taolz"], as_numbers["taolz"])
    # equal times keep the log order: a loss then a win differs from a win then a loss
    first = _by_player(P.taowr(["a", "a", "a"], [2, 3, 1], [0, -10, 10], [0, 1, 1], 3))
    second = _by_player(P.taowr(["a", "a", "a"], [2, 1, 3], [0, 10, -10], [0, 1, 1], 3))
    assert first["a"]["reference_games"] == 2 and second["a"]["reference_games"] == 3


def test_own_reference_profiles():
    prof = P.own_reference_profiles(*_own_log(), 3, reference="taolz")
    assert list(prof["players"]) == ["cy", "bob", "ann"]  # first appearance in the log
    np.testing.assert_array_equal(prof["counts"], [[1, 0, 1], [1, 1, 0], [4, 3, 3]])
    np.testing.assert_array_equal(prof["reference_counts"], [[1, 0, 1], [0, 0, 0],
                                                             [2, 2, 3]])
    np.testing.assert_array_equal(prof["games"], [2, 2, 10])
    np.testing.assert_array_equal(prof["reference_games"], [2, 0, 7])
    np.testing.assert_array_equal(prof["rating"], [-10, 15, 35])
    none = P.own_reference_profiles(*_own_log(), 3, reference="taolz", initial=50)
    np.testing.assert_array_equal(none["reference_games"], [-1, -1, -1])
    assert np.isnan(none["reference_rating"]).all()


@st.composite
def placement_logs(draw):
    k = draw(st.integers(2, 5))
    n_games = draw(st.integers(1, 25))
    rows = []
    for _ in range(n_games):
        size = draw(st.integers(1, min(k, 4)))
        seated = draw(st.permutations(range(5)))[:size]
        when = draw(st.integers(0, 12))  # repeated times: the stable order matters
        for place, player in enumerate(seated, start=1):
            rows.append((float(when), f"p{player}", place, float(draw(st.integers(-3, 3))) * 10))
    rows = draw(st.permutations(rows))
    options = draw(st.fixed_dictionaries({
        "observed": st.sampled_from(["all", "after"]),
        "yates": st.sampled_from([False, True, "auto"]),
        "pseudocount": st.sampled_from([0.0, 0.5]),
        "initial": st.sampled_from([0.0, 20.0]),
        "floor": st.sampled_from([None, 0.0, -20.0]),
    }))
    level = draw(st.sampled_from([0.0, 10.0, -20.0]))
    return k, list(rows), options, level


@settings(max_examples=80)
@given(placement_logs(), st.sampled_from(["taowr", "taolz"]))
def test_own_reference_matches_reference(case, which):
    k, rows, options, level = case
    times, players, places, points = (list(c) for c in zip(*rows))
    extra = {"level": level} if which == "taolz" else {}
    got = P.own_reference_stats(players, places, points, times, k, reference=which,
                                **options, **extra)
    expected = ref.own_reference(rows, which, k, level=level if which == "taolz" else 0.0,
                                 **options)
    assert got["player"].tolist() == list(dict.fromkeys(players))
    for i, name in enumerate(got["player"].tolist()):
        want = expected[name]
        assert got["status"][i] == want["status"], name
        assert (got["games"][i], got["reference_games"][i]) == (want["games"],
                                                                want["reference_games"])
        assert got["games_after"][i] == want["games"] - want["reference_games"]
        np.testing.assert_allclose(
            [got["rating"][i], got["reference_rating"][i], got["chi2"][i], got["p_value"][i],
             got["effect_size"][i], got[which][i]],
            [want["rating"], want["reference_rating"], want["chi2"], want["p_value"],
             want["effect_size"], want["value"]], rtol=1e-10, atol=1e-9)
        if not math.isnan(want["df"]):
            assert got["df"][i] == want["df"]


def test_own_reference_bad_input():
    players, places, points, times = _own_log()
    with pytest.raises(ConfigError, match="'reference' of own_reference_stats must be "
                       "'taowr' or 'taolz'; got 'tazd'"):
        P.own_reference_stats(players, places, points, times, reference="tazd")
    with pytest.raises(ConfigError, match="'observed' of taowr must be one of 'all', 'after'"):
        P.taowr(players, places, points, times, observed="before")
    with pytest.raises(ConfigError, match="'pseudocount' of taolz"):
        P.taolz(players, places, points, times, pseudocount=-1)
    with pytest.raises(ConfigError, match=r"'floor' of taowr must be a float in \[-inf, 0\]"):
        P.taowr(players, places, points, times, floor=5.0)
    with pytest.raises(ConfigError, match="'yates' must be"):
        P.taolz(players, places, points, times, yates="maybe")
    bad_points = list(points)
    bad_points[3] = float("nan")
    with pytest.raises(InputError, match=r"column 'points' must be a finite number.*row 4"):
        P.taowr(players, places, bad_points, times)
    with pytest.raises(InputError, match=r"column 'points' must have one value per row"):
        P.taowr(players, places, points[:-1], times)
    with pytest.raises(InputError, match=r"column 'time' must have one value per row"):
        P.taowr(players, places, points, times[:-1])
    with pytest.raises(InputError, match=r"column 'time' must be a date or time.*row 2"):
        P.taowr(["a", "a"], [1, 2], [1, 2], ["2024-01-01", "soon"])
    with pytest.raises(InputError, match=r"column 'place' must be in 1\.\.3; found 4"):
        P.taolz(["a", "b"], [1, 4], [1, 2], [1, 2], 3)
    with pytest.raises(InputError, match="column 'player' must not repeat a player"):
        P.taolz(["a", "a"], [1, 2], [1, 2], [1, 2], game=[1, 1])


@pytest.fixture
def own_files(tmp_path):
    lines = ["game,time,player,place,points"]
    players, places, points, times = _own_log()
    for i, (p, pl, pt, t) in enumerate(zip(players, places, points, times)):
        lines.append(f"{i},{t},{p},{pl},{pt}")
    log = tmp_path / "own.csv"
    log.write_text("\n".join(lines) + "\n")
    return log


def test_cli_taowr_and_taolz(own_files, files):
    res = _invoke(["stats", str(own_files), "--reference", "taowr", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["player"]: r for r in json.loads(res.stdout)}
    assert rows["ann"]["taowr"] == pytest.approx(4.0 / math.sqrt(10) * 1000)
    assert rows["ann"]["vs_reference"] == rows["ann"]["taowr"]
    assert rows["ann"]["chi2"] == pytest.approx(4.0)
    assert rows["ann"]["p_value"] == pytest.approx(math.exp(-2.0))
    assert rows["ann"]["tapl"] == pytest.approx(P.tapl([4, 3, 3]))
    assert rows["ann"]["status"] == "ok" and rows["bob"]["status"] == "no_reference_games"
    assert rows["bob"]["taowr"] is None or math.isnan(rows["bob"]["taowr"])
    assert rows["cy"]["status"] == "no_games_after" and rows["cy"]["taowr"] == 0.0
    res = _invoke(["stats", str(own_files), "--reference", "taolz", "--observed", "after",
                   "--level", "20", "--yates", "on", "--format", "json"])
    assert res.exit_code == 0, res.output
    ann = {r["player"]: r for r in json.loads(res.stdout)}["ann"]
    expected = ref.own_reference([(t, p, pl, pt) for p, pl, pt, t in zip(*_own_log())],
                                 "taolz", 3, level=20, observed="after", yates=True)["ann"]
    assert ann["taolz"] == pytest.approx(expected["value"])
    assert ann["reference_games"] == 8
    res = _invoke(["stats", str(own_files), "--reference", "taowr", "--floor", "0",
                   "--initial", "0", "--pseudocount", "0.5", "--format", "json"])
    assert res.exit_code == 0, res.output
    # errors: a counts table, a log without time or points, options without taowr/taolz
    res = _invoke(["stats", str(files / "counts.csv"), "--reference", "taowr"])
    assert "--reference taowr needs a placement log" in str(res.exception)
    res = _invoke(["stats", str(files / "log.csv"), "--reference", "taolz"])
    assert isinstance(res.exception, InputError)
    assert "needs the columns 'time' and 'points'" in str(res.exception)
    assert "no column 'time'" in str(res.exception)
    res = _invoke(["stats", str(own_files), "--level", "5"])
    assert "--level applies to --reference taowr or taolz only" in str(res.exception)
    res = _invoke(["stats", str(own_files), "--reference", "taowr", "--level", "5"])
    assert "--level applies to --reference taolz only" in str(res.exception)


def test_tapl_is_the_uniform_reference_by_name():
    counts = np.array([[10, 5, 3, 2, 2, 2, 1], [1, 2, 3, 4, 5, 6, 9]])
    assert P.reference_profile("TAPL").tolist() == P.reference_profile(None).tolist()
    plain, named = P.placement_stats(counts), P.placement_stats(counts, reference="tapl")
    assert plain.keys() == named.keys() and "vs_reference" not in named
    for key in plain:
        np.testing.assert_array_equal(plain[key], named[key])
    np.testing.assert_array_equal(P.chi_square(counts, "tapl"), P.chi_square(counts))


# ----------------------------------------------------------------------------------
# QA regressions: bad input through the command line (one-line errors naming column,
# row and file line; no traceback, no output file)


def _main(args):
    from fastrate.cli import main

    return CliRunner().invoke(main, args)


def _one_line_error(res, *parts):
    assert res.exit_code == 1, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastrate: error: "), res.stderr
    assert "internal error" not in lines[0] and "Traceback" not in res.output
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("body, parts", [
    ("game,player,place\n", ["no rows", "has no data rows"]),
    ("player,p1,p2,p3\n", ["no rows"]),
    ("game,player,place\n1,a,1\n1,b,x\n",
     ["column 'place' must be numeric; found 'x' at row 2 (line 3 of bad.csv)"]),
    ("game,player,place\n1,a,1\n1,b,\n", ["column 'place'", "not missing", "line 3 of bad.csv"]),
    ("game,player,place\n1,,1\n1,b,2\n",
     ["column 'player' must name a player", "line 2 of bad.csv"]),
    ("game,player,place\n1,a,1\n,b,2\n",
     ["column 'game' must name a game in every row", "line 3 of bad.csv"]),
    ("game,player,place\ng1,a,1\n,b,2\n",
     ["column 'game' must name a game in every row", "line 3 of bad.csv"]),
    ("game,player,place\n1,a,1\n1,b,1\n", ["a tie", "--allow-ties", "line 3 of bad.csv"]),
    ("player,p1,p2,p3\na,1,-2,3\n", ["column 'p2' must be in [0, inf]; found -2 at row 1 "
                                     "(line 2 of bad.csv)"]),
    ("player,p1,p2,p3\na,1,,3\n", ["column 'p2' must be a finite number", "line 2 of bad.csv"]),
    ("player,p1,p2,p3\na,1,x,3\n", ["column 'p2' must be numeric; found 'x'"]),
    ("Game,Player,Place\n1,a,1\n1,b,3.5\n", ["column 'Place'", "3.5", "line 3 of bad.csv"]),
])
def test_cli_stats_bad_input_is_one_clear_line(tmp_path, body, parts):
    bad = tmp_path / "bad.csv"
    bad.write_text(body)
    old = tmp_path / "out.csv"
    old.write_text("OLD\n")
    res = _main(["placement", "stats", str(bad), "-o", str(old)])
    _one_line_error(res, *parts)
    assert old.read_text() == "OLD\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "out.csv"]


def test_cli_allow_ties_reaches_the_standings(tmp_path):
    log = tmp_path / "tie.csv"
    log.write_text("game,player,place\n1,a,1\n1,b,1\n2,a,1\n2,b,2\n")
    res = _main(["placement", "stats", str(log), "--allow-ties", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["player"]: r for r in json.loads(res.stdout)}
    assert rows["a"]["games"] == 2 and rows["b"]["games"] == 2
    assert rows["a"]["games_behind"] == 0.0 and rows["b"]["games_behind"] == 1.0
    st = P.standings([1, 1, 2, 2], ["a", "b", "a", "b"], [1, 1, 1, 2], allow_ties=True)
    assert st["games_behind"].tolist() == [0.0, 1.0]


def test_cli_places_must_match_a_counts_table(tmp_path):
    counts = tmp_path / "c.csv"
    counts.write_text("player,p1,p2,p3\na,5,3,2\n")
    _one_line_error(_main(["placement", "stats", str(counts), "--places", "5"]),
                    "--places 5 does not match the 3 place columns")
    assert _main(["placement", "stats", str(counts), "--places", "3"]).exit_code == 0


def test_cli_reference_file_keeps_signs_and_exponents(tmp_path):
    counts = tmp_path / "c.csv"
    counts.write_text("player,p1,p2,p3\na,5,3,2\n")
    neg = tmp_path / "neg.txt"
    neg.write_text("1 -2 3\n")
    _one_line_error(_main(["placement", "stats", str(counts), "--reference", str(neg)]),
                    "must be positive at every place", "found -2.0 at place 2")
    for text in ("5e-1 3e-1 2e-1\n", "50-30-20\n", "50, 30, 20\n", "50\n30\n20\n"):
        ref_file = tmp_path / "ref.txt"
        ref_file.write_text(text)
        res = _main(["placement", "stats", str(counts), "--reference", str(ref_file),
                     "--format", "json"])
        assert res.exit_code == 0, (text, res.output)
        assert json.loads(res.stdout)[0]["vs_reference"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("body, parts", [
    ("game,player,seat,watchers\n", ["no rows"]),
    ("game,player,seat,watchers\n1,a,1,3\n,b,2,3\n",
     ["column 'game' must name a game in every row", "line 3 of bad.csv"]),
    ("game,player,seat,watchers\ng1,a,1,3\n,b,2,3\n",
     ["column 'game' must name a game in every row", "line 3 of bad.csv"]),
    ("game,player,seat,watchers\n1,a,1,3\n1,,2,3\n",
     ["column 'player' must name a player", "line 3 of bad.csv"]),
    ("game,player,seat,watchers\n1,a,1,3\n1,b,9,2\n",
     ["column 'seat' must be a whole number 1..capacity (7); found 9.0 at row 2 "
      "(line 3 of bad.csv)"]),
    ("game,player,seat,watchers\n1,a,1,3\n1,b,2,0\n", ["column 'watchers' must be positive",
                                                       "line 3 of bad.csv"]),
    ("game,player,seat,watchers\n1,a,1,3\n1,b,1,2\n", ["column 'seat' must not repeat",
                                                       "line 3 of bad.csv"]),
    ("game,player,seat,watchers\n1,a,1,3\n1,a,2,2\n", ["must not repeat a player",
                                                       "line 3 of bad.csv"]),
])
def test_cli_pga_bad_input_is_one_clear_line(tmp_path, body, parts):
    bad = tmp_path / "bad.csv"
    bad.write_text(body)
    old = tmp_path / "out.csv"
    old.write_text("OLD\n")
    _one_line_error(_main(["placement", "pga", str(bad), "-o", str(old)]), *parts)
    assert old.read_text() == "OLD\n"


def test_api_missing_game_ids_raise():
    with pytest.raises(InputError, match="column 'game' must name a game in every row"):
        P.place_counts(["a", "b"], [1, 2], game=np.array([1.0, np.nan]))
    with pytest.raises(InputError, match="column 'game' must name a game in every row"):
        P.pga(np.array(["g", None], dtype=object), ["a", "b"], [1, 2], [3, 3])


def test_cli_stats_columns_named_by_the_user(files, own_files, tmp_path):
    """A log whose columns have other names reads the same once they are named
    (--game/--player/--place/--points/--table-level/--time), also for taowr/taolz; a
    name that is not in the file is one line naming the file's columns."""
    renamed = tmp_path / "renamed.csv"
    text = (files / "log.csv").read_text().splitlines()
    renamed.write_text("round,nick,finish,score,tier\n" + "\n".join(text[1:]) + "\n")
    want = _invoke(["stats", str(files / "log.csv"), "--format", "json"])
    got = _invoke(["stats", str(renamed), "--game", "round", "--player", "nick", "--place",
                   "finish", "--points", "score", "--table-level", "tier", "--format", "json"])
    assert want.exit_code == 0 and got.exit_code == 0, got.output
    assert json.loads(got.stdout) == json.loads(want.stdout)
    own = tmp_path / "own_renamed.csv"
    lines = own_files.read_text().splitlines()
    own.write_text("g,when,who,pos,pts\n" + "\n".join(lines[1:]) + "\n")
    want = _invoke(["stats", str(own_files), "--reference", "taolz", "--format", "json"])
    got = _invoke(["stats", str(own), "--reference", "taolz", "--game", "g", "--time", "when",
                   "--player", "who", "--place", "pos", "--points", "pts", "--format", "json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout) == json.loads(want.stdout)
    res = _main(["placement", "stats", str(renamed), "--player", "name"])
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1] == (
        f"fastrate: error: no column 'name' (given for the player) in {renamed} (columns: "
        "round, nick, finish, score, tier)")
