"""Hunter's MM solver for the batch Bradley-Terry models: Newton (``fit``) and MM reach the
same maximum; BayesElo's exact MLE is MM's fixed point; BayesElo's own MM output."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrate
from fastrate.errors import ConfigError, InputError
from fastrate.ratings.bradley_terry import BTConfig, fit
from fastrate.ratings.bradley_terry_mm import fit_mm

ORACLES = Path(__file__).resolve().parents[2] / "shared" / "data" / "bt_oracles"
STEM = "football_2000_2024_nonneutral_scc"
#: every model with the advantage and drawelo fixed or fitted
CONFIGS = [
    BTConfig(model="bt_half"),
    BTConfig(model="bt_half", advantage=45.0),
    BTConfig(model="bt_half", advantage="fit"),
    BTConfig(model="bayeselo", advantage=30.0, drawelo=90.0),
    BTConfig(model="bayeselo", advantage="fit", drawelo=90.0),
    BTConfig(model="bayeselo", advantage=30.0, drawelo="fit"),
    BTConfig(model="bayeselo", advantage="fit", drawelo="fit"),
    BTConfig(model="bayeselo", advantage="fit", drawelo="fit", prior=2.0),
    BTConfig(model="bt_half", advantage="fit", prior=1.0, anchor="p0", mean_rating=1500.0),
]


def _random_games(seed, n=6, g=80, neutral=False):
    """Games from the BayesElo model (strengths sd 150, advantage 40, drawelo 80) whose
    maximum-likelihood ratings exist."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 150, n)
    while True:
        w = rng.integers(0, n, g)
        b = (w + rng.integers(1, n, g)) % n
        x = strength[w] - strength[b] + 40.0
        u = rng.random(g)
        pw = 1 / (1 + 10 ** (-(x - 80) / 400))
        pl = 1 / (1 + 10 ** ((x + 80) / 400))
        s = np.where(u < pw, 1.0, np.where(u > 1 - pl, 0.0, 0.5))
        opt = {"neutral": rng.random(g) < 0.3} if neutral else {}
        games = fastrate.Games.from_arrays([f"p{i}" for i in w], [f"p{i}" for i in b], s,
                                           **opt)
        try:
            fit(games, BTConfig(max_newton=1))
            return games
        except InputError:
            continue


def _assert_same_fit(newton, mm, tol=1e-6):
    assert newton.converged and mm.converged
    np.testing.assert_allclose(mm.rating, newton.rating, rtol=0, atol=tol)
    assert mm.advantage == pytest.approx(newton.advantage, abs=tol)
    if math.isnan(newton.drawelo):
        assert math.isnan(mm.drawelo)
    else:
        assert mm.drawelo == pytest.approx(newton.drawelo, abs=tol)
    assert mm.log_likelihood == pytest.approx(newton.log_likelihood, rel=1e-9)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 7), st.sampled_from(range(len(CONFIGS))),
       st.booleans())
def test_newton_and_mm_agree(seed, n, which, neutral):
    """fit (damped Newton) and fit_mm (MM run until an iteration moves nothing by 1e-11
    Elo) agree to 1e-6 Elo on ratings, advantage and drawelo."""
    games = _random_games(seed, n=n, g=15 * n, neutral=neutral)
    cfg = dataclasses.replace(CONFIGS[which], tolerance_elo=1e-10)
    _assert_same_fit(fit(games, cfg), fit_mm(games, cfg, tolerance_elo=1e-11))


@pytest.mark.parametrize("cfg", CONFIGS, ids=range(len(CONFIGS)))
def test_every_configuration_agrees_on_one_data_set(cfg):
    games = _random_games(11, n=8, g=160, neutral=True)
    cfg = dataclasses.replace(cfg, tolerance_elo=1e-10)
    newton, mm = fit(games, cfg), fit_mm(games, cfg, tolerance_elo=1e-11)
    _assert_same_fit(newton, mm)
    assert mm.n_pairs == newton.n_pairs and mm.config is cfg
    if cfg.anchor is not None:
        assert mm.as_dict()[cfg.anchor] == pytest.approx(cfg.mean_rating)
    else:
        assert mm.rating.mean() == pytest.approx(cfg.mean_rating)


def test_newton_answer_is_the_fixed_point():
    games = _random_games(5, n=7, g=120, neutral=True)
    cfg = BTConfig(model="bayeselo", advantage="fit", tolerance_elo=1e-10)
    newton = fit(games, cfg)
    once = fit_mm(games, cfg, max_iterations=1, initial=newton)
    assert once.n_newton == 1
    assert np.abs(once.rating - newton.rating).max() < 1e-9
    assert abs(once.advantage - newton.advantage) < 1e-9
    assert abs(once.drawelo - newton.drawelo) < 1e-9


def test_unsupported_options_are_named():
    games = _random_games(2)
    davidson = BTConfig()
    object.__setattr__(davidson, "model", "davidson")  # a model fit() has and MM has not
    with pytest.raises(ConfigError, match="model='davidson'"):
        fit_mm(games, davidson)

    @dataclasses.dataclass(frozen=True)
    class WithGaussianPrior(BTConfig):
        gaussian_sigma: float = 0.0

    assert fit_mm(games, WithGaussianPrior()).converged  # at its default: allowed
    with pytest.raises(ConfigError, match=r"gaussian_sigma=200\.0"):
        fit_mm(games, WithGaussianPrior(gaussian_sigma=200.0))
    with pytest.raises(ConfigError, match="max_iterations"):
        fit_mm(games, max_iterations=0)
    with pytest.raises(fastrate.errors.InputTypeError):
        fit_mm(games, tolerance_elo="tight")


def test_bad_input():
    only_wins = fastrate.Games.from_arrays(["a", "a", "b", "c"], ["b", "c", "c", "b"],
                                           [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(InputError, match=r"1 of 3 players .*'a'"):
        fit_mm(only_wins)
    r = fit_mm(only_wins, BTConfig(prior=2.0))  # the prior's virtual draws place 'a'
    assert r.converged and r.rating[r.players.id_of("a")] == r.rating.max()
    decisive = fastrate.Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 1.0])
    with pytest.raises(InputError, match="without draws"):
        fit_mm(decisive, BTConfig(model="bayeselo"))
    with pytest.raises(InputError, match="0, 0.5 or 1"):
        fit_mm(fastrate.Games.from_arrays(["a", "b"], ["b", "a"], [0.7, 0.5]),
               BTConfig(model="bayeselo"))
    neutral = fastrate.Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 0.5],
                                         neutral=[True, True])
    with pytest.raises(ConfigError, match="every game is neutral"):
        fit_mm(neutral, BTConfig(advantage="fit"))


def test_fractional_scores_in_bt_half():
    games = fastrate.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
                                       [0.7, 0.4, 0.25, 0.5])
    cfg = BTConfig(tolerance_elo=1e-10)
    _assert_same_fit(fit(games, cfg), fit_mm(games, cfg, tolerance_elo=1e-11))


# ----------------------------------------------------------------------------------
# the football data and BayesElo


def _football():
    if not (ORACLES / f"{STEM}.pgn").exists():
        pytest.skip("bt_oracles reference data not present")
    from fastrate.io.pgn_games import read_pgn
    return read_pgn(ORACLES / f"{STEM}.pgn")


#: BayesElo ``mm 1 1``: advantage and drawelo fitted, its default prior of 2 virtual draws
BAYESELO = BTConfig(model="bayeselo", advantage="fit", prior=2.0)


def _bayeselo_printed():
    out = {}
    for line in (ORACLES / f"be_{STEM}_mm11.txt").read_text().splitlines()[1:]:
        m = re.match(r"\s*\d+ (.+?)\s+(-?\d+)\s+\d+\s+\d+\s+\d+", line)
        out[m.group(1)] = float(m.group(2))
    return out


def _printed_scale(result):
    """BayesElo prints ``4 f(drawelo) (1 - f(drawelo))`` times its ratings."""
    f = 1.0 / (1.0 + 10.0 ** (-result.drawelo / 400.0))
    return 4.0 * f * (1.0 - f)


def test_bayeselo_exact_mle_is_the_mm_fixed_point_on_football():
    """Started at Newton's answer, one MM iteration moves no rating, the advantage or
    drawelo by 1e-6 Elo."""
    games = _football()
    newton = fit(games, dataclasses.replace(BAYESELO, tolerance_elo=1e-10))
    once = fit_mm(games, BAYESELO, max_iterations=1, initial=newton)
    assert np.abs(once.rating - newton.rating).max() < 1e-6
    assert abs(once.advantage - newton.advantage) < 1e-6
    assert abs(once.drawelo - newton.drawelo) < 1e-6


def test_bayeselo_mm11_output_on_football():
    """BayesElo stops its MM when no strength changes by more than 1e-5 relative, about
    2e-5 * 400 / ln 10 = 0.0035 Elo per iteration (after ~810 iterations here). Our MM
    stopped by the same rule reproduces every printed (rounded) rating: within 0.5 of
    ours. That stop is 0.37 Elo short of the exact maximum, so the exact answer (Newton,
    or our MM run to 1e-9) is within BayesElo's convergence error (0.5 Elo) plus its
    rounding (0.5) of what it prints; its fitted advantage and drawelo agree to the 3
    printed decimals."""
    games = _football()
    printed = _bayeselo_printed()
    assert len(printed) == 270
    like_bayeselo = fit_mm(games, BAYESELO, tolerance_elo=2e-5 * 400.0 / math.log(10.0))
    assert 700 < like_bayeselo.n_newton < 900  # its log prints iterations 100..800
    mine = like_bayeselo.as_dict()
    scale = _printed_scale(like_bayeselo)
    assert max(abs(scale * mine[k] - v) for k, v in printed.items()) <= 0.5 + 1e-3
    exact = fit_mm(games, BAYESELO, tolerance_elo=1e-9)
    newton = fit(games, BAYESELO)
    assert np.abs(exact.rating - newton.rating).max() < 1e-6
    short = np.abs(like_bayeselo.rating - exact.rating).max()
    assert 0.3 < short < 0.5
    scale = _printed_scale(exact)
    mine = exact.as_dict()
    assert max(abs(scale * mine[k] - v) for k, v in printed.items()) <= 0.5 + 0.5
    assert exact.advantage == pytest.approx(102.715, abs=0.002)
    assert exact.drawelo == pytest.approx(124.787, abs=0.002)
