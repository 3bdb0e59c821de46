"""FIBS ratings (fastrate.fibs): the published favourite table, the update's worked
examples, continuation, the slow reference on random match lists, bad input and
walk-forward evaluation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import fibs as ref

from fastrate import Games, fibs
from fastrate import backgammon as bg
from fastrate.cli.backgammon import backgammon_group
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.fibs import FibsConfig

# ----------------------------------------------------------------------------------
# 1. published values

# backgammon_reference.md: the favourite's chance, D = 100..700 by N = 1, 3, 5, 7, 9, 11
LENGTHS = np.array([1, 3, 5, 7, 9, 11])
players = st.sampled_from(["p0", "p1", "p2", "p3", "p4", "p5"])
match = st.tuples(players, players, st.integers(1, 25)).filter(lambda m: m[0] != m[1])
FIBS_TABLE = {
    100: (.529, .550, .564, .576, .585, .594),
    200: (.557, .598, .626, .648, .666, .682),
    300: (.585, .645, .684, .714, .738, .759),
    400: (.613, .689, .737, .772, .799, .822),
    500: (.640, .730, .784, .821, .849, .871),
    600: (.666, .768, .824, .861, .888, .908),
    700: (.691, .802, .858, .894, .918, .935),
}


@pytest.mark.parametrize("diff", sorted(FIBS_TABLE))
def test_fibs_favourite_table(diff):
    got = fibs.fibs_win_probability(diff, LENGTHS)
    assert np.round(got, 3).tolist() == list(FIBS_TABLE[diff])
    under = fibs.fibs_win_probability(-diff, LENGTHS)
    assert np.round(under, 3).tolist() == [round(1 - x, 3) for x in FIBS_TABLE[diff]]
    assert got + under == pytest.approx(np.ones(6), abs=1e-15)
    assert fibs.fibs_upset_probability(diff, LENGTHS) == pytest.approx(under, abs=1e-15)
    assert fibs.fibs_upset_probability(-diff, LENGTHS) == pytest.approx(under, abs=1e-15)


def test_fibs_probability_formula_and_scalars():
    p = fibs.fibs_win_probability(-100, 5)
    assert isinstance(p, float)
    assert p == pytest.approx(1 / (1 + 10 ** (100 * math.sqrt(5) / 2000)), abs=1e-15)
    assert fibs.fibs_win_probability(0, 7) == 0.5
    # no overflow warning (warnings are errors) for absurd differences
    assert fibs.fibs_win_probability(1e7, 25) == 1.0
    assert fibs.fibs_win_probability(-1e7, 25) == 0.0


@given(st.floats(-3000, 3000), st.integers(1, 25))
@settings(max_examples=60)
def test_inverse_round_trip(diff, n):
    p = fibs.fibs_win_probability(diff, n)
    if 1e-12 < p < 1 - 1e-12:
        back = fibs.rating_diff_from_probability(p, n)
        assert back == pytest.approx(diff, abs=1e-6 * max(1.0, abs(diff)) / min(p, 1 - p))


def test_inverse_values_and_gnubg_clamp():
    assert fibs.rating_diff_from_probability(0.5, 9) == 0.0
    assert fibs.rating_diff_from_probability(0.75, 1) == pytest.approx(2000 * math.log10(3),
                                                                      abs=1e-9)
    assert fibs.rating_diff_from_probability(0.25, 4) == pytest.approx(-1000 * math.log10(3),
                                                                      abs=1e-9)
    tiny = fibs.rating_diff_from_probability(1e-6, 1)
    assert tiny == pytest.approx(-2000 * math.log10(1e6 - 1), abs=1e-6)
    assert fibs.rating_diff_from_probability(1e-6, 1, clamp=fibs.GNUBG_RATING_CLAMP) == -2100.0
    assert fibs.rating_diff_from_probability(0.4, 1, clamp=-2100) == pytest.approx(
        fibs.rating_diff_from_probability(0.4, 1), abs=0)
    got = fibs.rating_diff_from_probability([0.3, 0.7], [1, 1])
    assert got == pytest.approx([-got[1], got[1]], abs=1e-9)


def test_two_new_players_five_point_match():
    games = Games.from_arrays(["winner"], ["loser"], [1.0])
    r = fibs.rate(games, length=[5])
    assert r["winner"] == pytest.approx(1500 + 10 * math.sqrt(5), abs=1e-12)
    assert r["loser"] == pytest.approx(1500 - 10 * math.sqrt(5), abs=1e-12)
    assert round(r["winner"] - 1500, 2) == 22.36
    assert round(r["loser"] - 1500, 2) == -22.36
    assert r.predictions.tolist() == [0.5]
    assert r.experience.tolist() == [5.0, 5.0]
    assert r.games_played.tolist() == [1, 1]
    assert r.system == "fibs"
    assert list(r.columns()) == ["player", "rating", "games_played", "experience"]


def test_k_factor_schedule():
    assert fibs.fibs_k([0, 100, 250, 399, 400, 1000]) == pytest.approx(
        [5, 4, 2.5, 1.01, 1, 1], abs=1e-12)
    assert fibs.fibs_k(250, FibsConfig.club(k=2)) == 2.0


def test_experienced_players_and_upset():
    # 1700 (experience 400, K = 1) loses a 7-point match to 1500 (experience 0, K = 5)
    games = Games.from_arrays(["weak"], ["strong"], [1.0])
    init = {"player": ["strong", "weak"], "rating": [1700.0, 1500.0],
            "experience": [400.0, 0.0]}
    r = fibs.rate(games, initial=init, length=[7])
    upset = 1 / (10 ** (200 * math.sqrt(7) / 2000) + 1)
    p = 1 - upset  # the winner's chance of having lost
    assert r.predictions[0] == pytest.approx(upset, abs=1e-15)
    assert r["weak"] == pytest.approx(1500 + 4 * 5 * math.sqrt(7) * p, abs=1e-9)
    assert r["strong"] == pytest.approx(1700 - 4 * 1 * math.sqrt(7) * p, abs=1e-9)
    assert r.experience.tolist() == [407.0, 7.0]


def test_club_constant_k_and_start_rating():
    games = Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 1.0])
    r = fibs.rate(games, FibsConfig.club(initial_rating=1000.0), length=[3, 3])
    first = 4 * math.sqrt(3) * 0.5
    assert r["a"] == pytest.approx(1000 + first - 4 * math.sqrt(3) *
                                   (1 / (1 + 10 ** (-2 * first * math.sqrt(3) / 2000))),
                                   abs=1e-9)
    assert r["a"] + r["b"] == pytest.approx(2000.0, abs=1e-9)  # equal K: zero-sum


def test_length_from_weight_loser_first_and_input_order():
    # weight = match length; score 0 means the second player won; times out of order
    games = Games.from_arrays(["a", "c", "b"], ["b", "a", "c"], [1.0, 0.0, 1.0],
                              time=[1.0, 3.0, 2.0], weight=[5, 3, 7])
    r = fibs.rate(games)
    want, _, wpred = ref.fibs([("a", "b", 5), ("b", "c", 7), ("a", "c", 3)])
    for name, value in want.items():
        assert r[name] == pytest.approx(value, abs=1e-9)
    # predictions: first player's chance, in input order
    assert r.predictions[0] == pytest.approx(wpred[0], abs=1e-12)
    assert r.predictions[2] == pytest.approx(wpred[1], abs=1e-12)
    assert r.predictions[1] == pytest.approx(1 - wpred[2], abs=1e-12)
    # the same lengths as an argument in input order
    r2 = fibs.rate(Games.from_arrays(["a", "c", "b"], ["b", "a", "c"], [1.0, 0.0, 1.0],
                                   time=[1.0, 3.0, 2.0]), length=[5, 3, 7])
    assert np.array_equal(r2.rating, r.rating)
    assert np.array_equal(r2.predictions, r.predictions)
    # no length: 1-point matches
    r1 = fibs.rate(Games.from_arrays(["a"], ["b"], [1.0]))
    assert r1["a"] == pytest.approx(1510.0, abs=1e-12)


def test_continuation_equals_full_run():
    w = ["a", "b", "c", "a", "d", "b"]
    lo = ["b", "c", "a", "d", "c", "a"]
    n = [5, 7, 3, 11, 1, 9]
    full = fibs.rate(Games.from_arrays(w, lo, np.ones(6)), length=n)
    first = fibs.rate(Games.from_arrays(w[:3], lo[:3], np.ones(3)), length=n[:3])
    second = fibs.rate(Games.from_arrays(w[3:], lo[3:], np.ones(3)), initial=first, length=n[3:])
    for name in "abcd":
        assert second[name] == pytest.approx(full[name], abs=1e-9)
    # and through a written table (the CLI path)
    table = first.to_arrow()
    third = fibs.rate(Games.from_arrays(w[3:], lo[3:], np.ones(3)), initial=table, length=n[3:])
    for name in "abcd":
        assert third[name] == pytest.approx(full[name], abs=1e-9)


@given(st.lists(match, min_size=1, max_size=80), st.booleans(),
       st.floats(0.5, 3.0), st.floats(1000.0, 2000.0))
@settings(max_examples=50)
def test_matches_reference(matches, use_experience, k, start):
    w, lo, n = zip(*matches)
    cfg = FibsConfig(initial_rating=start, use_experience=use_experience, k=k)
    r = fibs.rate(Games.from_arrays(list(w), list(lo), np.ones(len(w))), cfg, length=list(n))
    want, exp, pred = ref.fibs(matches, initial_rating=start, use_experience=use_experience,
                               k=k)
    for name, value in want.items():
        assert r[name] == pytest.approx(value, abs=1e-9)
        assert r.experience[r.players.id_of(name)] == exp[name]
    assert r.predictions == pytest.approx(pred, abs=1e-12)


@given(st.lists(match, min_size=1, max_size=40),
       st.dictionaries(players, st.floats(1200, 2200), max_size=6),
       st.dictionaries(players, st.integers(0, 800), max_size=6), st.randoms())
@settings(max_examples=30)
def test_matches_reference_with_initial_and_loser_first(matches, init, init_exp, rnd):
    # present some matches loser first (score 0); winner-first in the reference
    flip = [rnd.random() < 0.5 for _ in matches]
    first = [lo if f else w for (w, lo, _), f in zip(matches, flip)]
    second = [w if f else lo for (w, lo, _), f in zip(matches, flip)]
    score = [0.0 if f else 1.0 for f in flip]
    names = sorted(set(init) | set(init_exp))
    table = {"player": names, "rating": [init.get(p, 1500.0) for p in names],
             "experience": [float(init_exp.get(p, 0)) for p in names]} if names else None
    r = fibs.rate(Games.from_arrays(first, second, score), initial=table,
                length=[m[2] for m in matches])
    want, _, pred = ref.fibs(matches, initial=init,
                             initial_experience={p: float(v) for p, v in init_exp.items()})
    for name, value in want.items():
        assert r[name] == pytest.approx(value, abs=1e-9)
    got = [1 - x if f else x for x, f in zip(r.predictions, flip)]
    assert got == pytest.approx(pred, abs=1e-12)


def test_constant_k_is_zero_sum_and_winner_gains():
    rng = np.random.default_rng(3)
    w = rng.integers(0, 8, 300)
    lo = (w + rng.integers(1, 8, 300)) % 8
    n = rng.integers(1, 12, 300)
    r = fibs.rate(Games.from_arrays(w, lo, np.ones(300), players=list(range(8))),
                FibsConfig.club(k=2.0), length=n)
    assert r.rating.sum() == pytest.approx(8 * 1500.0, abs=1e-8)
    assert ((r.predictions > 0) & (r.predictions < 1)).all()


def test_bad_lengths():
    with pytest.raises(InputError, match=r"'length' must be a match length.*got -3.0"):
        fibs.fibs_win_probability(100, -3)
    with pytest.raises(InputError, match=r"'length' must be a match length.*got 2.5 at index 1"):
        bg.rating_from_depd([0.01, 0.01], [3, 2.5])
    with pytest.raises(InputError, match=r"'length' must be a match length.*got 0.0"):
        bg.rating_from_errors(0.01, 0.01, 0)
    games = Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 1.0])
    with pytest.raises(InputError, match=r"column 'length' must be a match length.*found -5.0 "
                       r"at row 2"):
        fibs.rate(games, length=[5, -5])
    with pytest.raises(InputError, match=r"'length' must have one value per match \(2\); got 1"):
        fibs.rate(games, length=[5])
    with pytest.raises(InputError, match=r"column 'weight' \(the match length\).*found 0.5"):
        fibs.rate(Games.from_arrays(["a"], ["b"], [1.0], weight=[0.5]))


def test_bad_error_rates_and_probabilities():
    with pytest.raises(InputError, match=r"'epm' must be a finite number in \[0, inf\]; "
                       r"got -0.01"):
        bg.rating_from_errors(-0.01, 0.01, 5)
    with pytest.raises(InputError, match=r"'epc' must be.*got -0.5 at index 1"):
        bg.estimate_rating([0.01, 0.01], [0.01, -0.5], 5)
    with pytest.raises(InputError, match=r"'error_rate' must be.*got -0.001"):
        bg.skill_class(-0.001)
    with pytest.raises(InputError, match=r"'depd' must be a finite number.*got nan"):
        bg.rating_from_depd(float("nan"), 5)
    for p in (0.0, 1.0, -0.2, 1.5):
        with pytest.raises(InputError, match=r"'p' must be a probability in \(0, 1\)"):
            fibs.rating_diff_from_probability(p, 3)
    with pytest.raises(InputError, match=r"'experience' must be"):
        fibs.fibs_k(-1)
    with pytest.raises(InputError, match=r"'rating_diff' must be numeric"):
        fibs.fibs_win_probability("strong", 3)
    with pytest.raises(ConfigError, match=r"'confidence' of estimate_rating must be"):
        bg.estimate_rating(0.01, 0.01, 5, confidence=1.0)
    with pytest.raises(ConfigError, match=r"'p' of student_t_quantile must be"):
        bg.student_t_quantile(1.0, 3)
    with pytest.raises(ConfigError, match=r"'df' of student_t_quantile must be"):
        bg.student_t_quantile(0.9, 0)
    with pytest.raises(InputError, match="needs at least one match"):
        bg.estimate_rating([], [], [])


def test_bad_config_and_games():
    with pytest.raises(ConfigError, match=r"'k' of FibsConfig must be a float in \[0, 1e\+06\]"):
        FibsConfig(k=-1.0)
    with pytest.raises(InputTypeError, match=r"'initial_rating' of FibsConfig"):
        FibsConfig(initial_rating="1500")
    with pytest.raises(ConfigError, match=r"'use_experience' of FibsConfig"):
        FibsConfig(use_experience="yes")
    with pytest.raises(ConfigError, match=r"'k_min' of FibsConfig must be <= 'k_max'"):
        FibsConfig(k_min=6.0)
    with pytest.raises(InputError, match=r"column 'score' must be 1 .* no draws; found 0.5 at "
                       r"row 2"):
        fibs.rate(Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 0.5]))
    with pytest.raises(InputError, match="needs a fastrate.Games"):
        fibs.rate([("a", "b", 5)])
    with pytest.raises(InputError, match="config must be a FibsConfig"):
        fibs.rate(Games.from_arrays(["a"], ["b"], [1.0]), config={"k": 1})
    with pytest.raises(InputError, match=r"column 'experience' must be >= 0"):
        fibs.rate(Games.from_arrays(["a"], ["b"], [1.0]),
                initial={"player": ["a"], "rating": [1500.0], "experience": [-5.0]})


def _random_matches(seed, n=300, players=12):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 300, players)
    rows = []
    for _ in range(n):
        a, b = rng.choice(players, 2, replace=False)
        length = int(rng.choice([1, 3, 5, 7, 11]))
        p_a = float(fibs.fibs_win_probability(skill[a] - skill[b], length))
        w, lo = (a, b) if rng.random() < p_a else (b, a)
        rows.append((f"p{w}", f"p{lo}", length))
    return rows


@pytest.mark.parametrize("seed", [1, 2])
def test_evaluate_matches_reference_metrics(seed):
    from reference import metrics as mref

    rows = _random_matches(seed)
    games = Games.from_arrays([r[0] for r in rows], [r[1] for r in rows],
                              np.ones(len(rows)))
    lengths = np.array([r[2] for r in rows], dtype=float)
    result = fibs.evaluate(games, length=lengths)
    assert result.labels == ["null (50%)", "fibs", "fibs, K = 1"]
    for label, kw in (("fibs", {}), ("fibs, K = 1", {"use_experience": False, "k": 1.0})):
        _, _, pred = ref.fibs(rows, **kw)  # the winner's pre-match chance
        y = [1.0] * len(pred)
        row = result[label]
        assert row["n"] == len(rows)
        assert row["log_loss"] == pytest.approx(mref.log_loss(pred, y), rel=1e-12)
        assert row["brier"] == pytest.approx(mref.brier(pred, y), rel=1e-12)
        assert row["accuracy"] == pytest.approx(mref.accuracy(pred, y), rel=1e-12)
        np.testing.assert_allclose(result.ratings[label].predictions, pred, rtol=1e-12)
        # oriented by the favourite: every calibration bin's mean prediction is >= 0.5
        cal = result.calibration[label]
        used = cal["count"] > 0
        assert (cal["mean_predicted"][used] >= 0.5).all()
    assert result["null (50%)"]["log_loss"] == pytest.approx(math.log(2))
    # ratings learn: FIBS beats the coin on strongly separated players
    assert result["fibs"]["log_loss"] < math.log(2)


def test_evaluate_burn_in_and_errors():
    rows = _random_matches(3, n=60)
    days = np.repeat(np.arange(6), 10)
    games = Games.from_arrays([r[0] for r in rows], [r[1] for r in rows], np.ones(60),
                              period=days)
    lengths = np.array([r[2] for r in rows], dtype=float)
    result = fibs.evaluate(games, FibsConfig(), length=lengths, burn_in=2)
    assert result.n_scored == 40 and result.labels == ["null (50%)", "fibs"]
    with pytest.raises(InputError, match="leaves no matches"):
        fibs.evaluate(games, FibsConfig(), length=lengths, burn_in=6)
    with pytest.raises(ConfigError, match="FibsConfig"):
        fibs.evaluate(games, [{"k": 1}], length=lengths)
    with pytest.raises(InputError, match="needs a fastrate.Games"):
        fibs.evaluate(rows)


def test_cli_rate_evaluate(tmp_path):
    rows = _random_matches(4, n=80)
    text = "date,winner,loser,length\n" + "".join(
        f"2024-01-{1 + i // 10:02d},{w},{lo},{n}\n" for i, (w, lo, n) in enumerate(rows))
    path = tmp_path / "matches.csv"
    path.write_text(text)
    path = str(path)
    res = CliRunner().invoke(backgammon_group, ["rate", path, "--evaluate", "--period", "1d",
                                                "--burn-in", "2", "--top", "3"])
    assert res.exit_code == 0, res.output
    assert "walk-forward evaluation: 60 of 80 games scored" in res.stderr
    assert "null (50%)" in res.stderr and "\nfibs " in res.stderr
    res = CliRunner().invoke(backgammon_group, ["rate", path, "--burn-in", "2"])
    assert isinstance(res.exception, InputError) and "--evaluate" in str(res.exception)
