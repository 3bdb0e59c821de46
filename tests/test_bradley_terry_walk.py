"""Batch Bradley-Terry fits as a rating system (``bradley_terry``): walk-forward
predictions from refits on an expanding window, one per rating period."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from fastrate import systems
from fastrate.cli import main
from fastrate.data import Games
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import evaluate
from fastrate.ratings import bradley_terry as bt
from fastrate.ratings import bradley_terry_walk as walk

CONFIGS = [
    bt.BTConfig(),                                                   # MLE, largest component
    bt.BTConfig(prior=2.0),
    bt.BTConfig(advantage="fit", prior=1.0),
    bt.BTConfig(model="bayeselo", advantage="fit", prior=2.0),
    bt.BTConfig(model="bayeselo", advantage=40.0, drawelo=120.0, prior=0.5),
    bt.BTConfig(model="davidson", advantage="fit", prior=2.0),
    bt.BTConfig(model="davidson", gaussian_prior=(0.0, 150.0)),
]


def _columns(seed: int, n: int = 90, players: int = 9, periods: int = 7) -> dict:
    """Random games among players of unequal strength, in shuffled input order: periods
    unsorted (Games sorts them), some neutral, draws, a late newcomer."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 150.0, players)
    white = rng.integers(0, players, n)
    black = (white + rng.integers(1, players, n)) % players
    period = rng.integers(0, periods, n)
    period[white == players - 1] = periods - 1  # a newcomer in the last period
    period[black == players - 1] = periods - 1
    x = strength[white] - strength[black] + 30.0
    p_win = 1.0 / (1.0 + 10.0 ** ((100.0 - x) / 400.0))
    p_loss = 1.0 / (1.0 + 10.0 ** ((100.0 + x) / 400.0))
    u = rng.random(n)
    score = np.where(u < p_win, 1.0, np.where(u < 1.0 - p_loss, 0.5, 0.0))
    return dict(white=np.array([f"p{i}" for i in white], dtype=object),
                black=np.array([f"p{i}" for i in black], dtype=object), score=score,
                period=period, neutral=rng.random(n) < 0.2)


def _games(cols: dict) -> Games:
    return Games.from_arrays(cols["white"], cols["black"], cols["score"],
                             period=cols["period"], neutral=cols["neutral"])


def _f(x):
    return 1.0 / (1.0 + 10.0 ** (-x / 400.0))


def _slow_walk_forward(cols: dict, config: bt.BTConfig) -> np.ndarray:
    """The rule written out game by game, in input order: each game predicted by the fit
    (largest component when the fit refuses the data; an unconverged or impossible fit
    keeps the previous one) on the games of the earlier periods, unseen players at the
    fit's mean, the expected score P(win) + P(draw)/2 from the model's formula."""
    n = cols["score"].shape[0]
    out = np.empty(n)
    fits: dict[int, tuple[dict, float, float] | None] = {}
    last = None
    for p in sorted(set(cols["period"].tolist())):
        earlier = cols["period"] < p
        if earlier.any():
            g = Games.from_arrays(cols["white"][earlier], cols["black"][earlier],
                                  cols["score"][earlier], neutral=cols["neutral"][earlier])
            try:
                try:
                    r = bt.fit(g, config)
                except InputError:
                    kept, _ = bt.largest_component(g, config.prior)
                    r = bt.fit(kept, config)
                if r.converged:
                    last = (r.as_dict(), r.advantage, r.drawelo, r.draw_nu)
            except (InputError, ConfigError):
                pass
        fits[p] = last
    for i in range(n):
        fitted = fits[int(cols["period"][i])]
        h = 0.0 if cols["neutral"][i] else 1.0
        if fitted is None:
            adv = 0.0 if config.advantage == "fit" else config.advantage
            out[i] = _f(h * adv)
            continue
        ratings, adv, drawelo, nu = fitted
        mean = (float(np.mean(list(ratings.values()))) if config.gaussian_prior is None
                else config.gaussian_prior[0])
        x = (ratings.get(cols["white"][i], mean) - ratings.get(cols["black"][i], mean)
             + h * adv)
        if config.model == "bayeselo":
            out[i] = 0.5 * (_f(x - drawelo) + (1.0 - _f(-x - drawelo)))
        elif config.model == "davidson":  # (10^(x/800) + nu/2) / (10^(x/800) + 10^(-x/800) + nu)
            out[i] = (10.0 ** (x / 800.0) + nu / 2.0) / (10.0 ** (x / 800.0)
                                                         + 10.0 ** (-x / 800.0) + nu)
        else:
            out[i] = _f(x)
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: systems.SystemSpec.of(c).spec)
@pytest.mark.parametrize("seed", [1, 2])
def test_predictions_equal_a_slow_refit_loop(config, seed):
    cols = _columns(seed)
    r = walk.rate(_games(cols), config)
    np.testing.assert_allclose(r.predictions, _slow_walk_forward(cols, config), rtol=0,
                               atol=1e-9)
    # the final ratings are the fit of all games
    full = (bt.fit(_games(cols), config)
            if config.prior > 0 or config.gaussian_prior is not None else None)
    if full is not None:
        np.testing.assert_allclose([r[p] for p in full.players.names], full.rating, atol=1e-6)
        assert r.columns()["fitted"].all()


def test_no_look_ahead():
    """Changing a game's result changes no prediction of its own or an earlier period."""
    config = bt.BTConfig(model="bayeselo", advantage="fit", prior=2.0)
    cols = _columns(3)
    base = walk.rate(_games(cols), config).predictions
    for p in (2, 4, 6):
        changed = dict(cols, score=cols["score"].copy())
        rows = np.flatnonzero(cols["period"] == p)
        changed["score"][rows] = 1.0 - changed["score"][rows]
        pred = walk.rate(_games(changed), config).predictions
        upto = cols["period"] <= p
        assert pred[upto].tobytes() == base[upto].tobytes()
        if p < 6:
            assert not np.array_equal(pred[~upto], base[~upto])


def test_first_period_and_unseen_players_get_the_defaults():
    g = Games.from_arrays(["a", "b", "a", "c", "d"], ["b", "a", "c", "a", "a"],
                          [1.0, 0.5, 0.0, 1.0, 0.5], period=[0, 0, 1, 2, 2],
                          neutral=[False, True, False, False, False])
    r = walk.rate(g, bt.BTConfig(advantage=50.0, prior=2.0))
    assert r.predictions[0] == pytest.approx(_f(50.0))  # no fit yet: the fixed advantage
    assert r.predictions[1] == 0.5                       # ... and none in a neutral game
    fit1 = bt.fit(Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 0.5],
                                    neutral=[False, True]), bt.BTConfig(advantage=50.0,
                                                                        prior=2.0))
    # c is unseen before period 1: at the mean of the fit (0)
    assert r.predictions[2] == pytest.approx(_f(fit1.rating[0] - 0.0 + 50.0))
    # d is unseen in period 2, and a played in every earlier period
    assert r.predictions[4] == pytest.approx(_f(0.0 - r_a_before(g) + 50.0))


def r_a_before(g: Games) -> float:
    first = g.period < 2
    fit = bt.fit(Games.from_arrays(g.players.names[g.white[first]],
                                   g.players.names[g.black[first]], g.score[first],
                                   neutral=g.neutral[first]),
                 bt.BTConfig(advantage=50.0, prior=2.0))
    return fit.rating[fit.players.id_of("a")] - fit.rating.mean()


def test_disconnected_data_fit_the_largest_component():
    """Without a prior, players outside the largest strongly connected component (only
    wins or only losses) are left out of the fit: at its mean, flagged not fitted."""
    g = Games.from_arrays(["a", "b", "c", "a", "d"], ["b", "c", "a", "c", "a"],
                          [1.0, 1.0, 1.0, 0.5, 1.0], period=[0, 0, 1, 1, 2])
    r = walk.rate(g)
    cols = r.columns()
    assert cols["fitted"].tolist() == [True, True, True, False]  # d only won
    assert r["d"] == pytest.approx(np.mean([r["a"], r["b"], r["c"]]))
    assert cols["games_played"].tolist() == [4, 2, 3, 1]
    # nobody connected: every player alone, no fit, everyone at mean_rating
    lone = walk.rate(Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 1.0], period=[0, 1]),
                     bt.BTConfig(mean_rating=1500.0))
    assert lone.rating.tolist() == [1500.0] * 3 and not lone.columns()["fitted"].any()
    assert lone.predictions.tolist() == [0.5, 0.5]


def test_names_in_the_config_wait_until_their_players_play():
    """Per-player Gaussian priors and virtual games of players not seen yet are left out
    of a window's fit; an unseen player with a prior is predicted at its mean."""
    g = Games.from_arrays(["a", "b", "a", "c", "c"], ["b", "a", "b", "a", "b"],
                          [1.0, 0.5, 0.0, 1.0, 0.5], period=[0, 0, 1, 2, 3])
    config = bt.BTConfig(gaussian_prior={"a": (0.0, 100.0), "b": (0.0, 100.0),
                                         "c": (300.0, 50.0)},
                         virtual_games=(("c", "a", 3.0, 0.0, 0.0),))
    r = walk.rate(g, config)
    before_c = bt.fit(Games.from_arrays(["a", "b", "a"], ["b", "a", "b"], [1.0, 0.5, 0.0]),
                      bt.BTConfig(gaussian_prior={"a": (0.0, 100.0), "b": (0.0, 100.0)}))
    assert r.predictions[3] == pytest.approx(_f(300.0 - before_c.rating[0]))  # c unseen
    # c only won so far, but every player has a Gaussian prior: the MAP fit exists
    # (the posterior is strictly concave) and places c from its prior and its win
    window = bt.fit(Games.from_arrays(["a", "b", "a", "c"], ["b", "a", "b", "a"],
                                      [1.0, 0.5, 0.0, 1.0]), config)
    fitted = window.as_dict()
    assert r.predictions[4] == pytest.approx(_f(fitted["c"] - fitted["b"]))
    assert fitted["c"] > 300.0  # its win lifts it above its prior mean
    assert r["c"] == pytest.approx(bt.fit(g, config).as_dict()["c"])
    with pytest.raises(InputError, match=r"'nobody' is not a player"):
        walk.rate(g, bt.BTConfig(virtual_games=(("nobody", "a", 1.0, 0.0, 0.0),), prior=2.0))


def test_anchor_moves_the_scale_only():
    cols = _columns(4)
    plain = walk.rate(_games(cols), bt.BTConfig(prior=2.0))
    anchored = walk.rate(_games(cols), bt.BTConfig(prior=2.0, anchor="p0", mean_rating=1500.0))
    assert anchored["p0"] == pytest.approx(1500.0)
    np.testing.assert_allclose(anchored.rating - anchored["p0"], plain.rating - plain["p0"],
                               atol=1e-6)
    np.testing.assert_allclose(anchored.predictions, plain.predictions, atol=1e-12)


def test_spec_strings_parse_every_kind_of_value():
    spec = systems.SystemSpec.parse("bradley_terry:model=bayeselo,advantage=fit,prior=2")
    assert spec.config == bt.BTConfig(model="bayeselo", advantage="fit", prior=2.0)
    c = systems.SystemSpec.parse("bradley_terry:advantage=65,drawelo=120.5,anchor=p1").config
    assert (c.advantage, c.drawelo, c.anchor) == (65.0, 120.5, "p1")
    assert systems.SystemSpec.parse(systems.SystemSpec.of(c).spec).config == c
    with pytest.raises(ConfigError, match=r"model"):
        systems.SystemSpec.parse("bradley_terry:model=nope")
    entry = systems.get("bradley_terry")
    assert entry.batch and entry.period_based and entry.data == "games"


def test_refusals():
    g = _games(_columns(5))
    with pytest.raises(ConfigError, match=r"cannot continue from saved ratings"):
        walk.rate(g, initial={"p0": 10.0})
    no_periods = Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 0.5])
    r = walk.rate(no_periods, bt.BTConfig(prior=2.0))  # ratings fine: one period
    assert r.predictions.tolist() == [0.5, 0.5]
    with pytest.raises(ConfigError, match=r"bradley_terry: a batch model is refitted once per "
                                          r"rating period .* no periods; give periods"):
        evaluate(no_periods, ["elo", "bradley_terry"])
    with pytest.raises(InputError, match=r"'score' must be 0, 0.5 or 1"):
        walk.rate(Games.from_arrays(["a", "b"], ["b", "a"], [0.7, 0.5], period=[0, 1]),
                  bt.BTConfig(model="bayeselo", prior=2.0))


@pytest.fixture(scope="module")
def football():
    from fastrate.datasets import load_example

    return load_example("football", period="year")


def test_evaluate_scores_it_next_to_elo(football):
    table = evaluate(football, ["elo", "bradley_terry:model=bayeselo,advantage=fit,prior=2"],
                     burn_in=10)
    elo, bayes = table["elo"], table["bradley_terry:model=bayeselo,advantage=fit,prior=2"]
    assert 0.5 < bayes["log_loss"] < 0.7 and 0.5 < elo["log_loss"] < 0.7
    assert bayes["log_loss"] < elo["log_loss"]  # fitted home advantage vs none
    r = table.ratings["bradley_terry:model=bayeselo,advantage=fit,prior=2"]
    # three teams never met the rest, even through others: outside the fit, at its mean
    left_out = r.players.names[~r.columns()["fitted"]]
    assert sorted(left_out.tolist()) == ["Aymara", "Mapuche", "Maule Sur"]
    fitted_mean = float(r.rating[r.columns()["fitted"]].mean())
    assert r["Aymara"] == pytest.approx(fitted_mean, abs=1e-9) == pytest.approx(0.0, abs=1e-9)


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_cli_evaluate_and_rate():
    res = _cli("evaluate", "--example", "football", "--period", "year", "-s", "elo",
               "-s", "bradley_terry:advantage=fit,prior=2", "--burn-in", "10")
    assert res.exit_code == 0, (res.output, res.exception)
    line = next(s for s in res.output.splitlines() if s.startswith("bradley_terry"))
    assert 0.5 < float(line.split()[2]) < 0.7  # the log loss column
    res = _cli("evaluate", "--example", "football", "-s", "bradley_terry")
    assert res.exit_code != 0 and "give periods" in res.output and "--period" in res.output
    res = _cli("rate", "--example", "football", "--period", "year", "-s",
               "bradley_terry:advantage=fit,prior=2", "--top", "3")
    assert res.exit_code == 0, (res.output, res.exception)
    assert "fitted" in res.output and "Brazil" in res.output
    res = _cli("systems")
    assert "batch fit, refitted per period" in res.output


def test_expected_score_is_the_models_score():
    g = _games(_columns(6))
    res = bt.fit(g, bt.BTConfig(model="bayeselo", prior=2.0))
    w, d, _ = bt.predict(res, ["p0", "p1"], ["p2", "p3"])
    np.testing.assert_allclose(walk.expected_score(res, ["p0", "p1"], ["p2", "p3"]),
                               w + d / 2)
    assert not math.isnan(float(w[0]))
