"""Reproduce FiveThirtyEight's published NFL Elo (1920-2020, 16,810 games) exactly.

Data: ../shared/data/fte_nfl_elo_game (nfl_games.csv with FiveThirtyEight's own pre-game
ratings elo1/elo2, rounded to 3 decimals, and win probabilities elo_prob1;
initial_elos.csv; season_resets.csv; METHOD.md restates the model). Every pre-game
rating must agree within 0.001 and every probability within 5e-6.

The 0.001 is the data's own precision: elo1/elo2 and the starting ratings in
initial_elos.csv are rounded to 3 decimals (each off by up to 0.0005), so a team's first
few ratings can differ from the printed ones by up to about 0.0009.
"""

from __future__ import annotations

import numpy as np
import pytest

from fastrate import Games
from fastrate.ratings import elo
from fastrate.ratings.elo import EloConfig

pd = pytest.importorskip("pandas")

N_GAMES = 16_810


@pytest.fixture(scope="module")
def nfl(shared_data):
    folder = shared_data / "fte_nfl_elo_game"
    games = pd.read_csv(folder / "nfl_games.csv")
    initial = pd.read_csv(folder / "initial_elos.csv")
    resets = pd.read_csv(folder / "season_resets.csv")
    return games, initial, resets


def build(games, *, with_time: bool = False) -> Games:
    return Games.from_arrays(
        games["team1"], games["team2"], games["result1"], period=games["season"],
        margin=games["score1"] - games["score2"], neutral=games["neutral"],
        time=games["date"] if with_time else None)


def table(resets):
    return {"player": resets["team"], "period": resets["season"], "value": resets["elo"]}


def rate_nfl(nfl, *, with_time: bool = False):
    games, initial, resets = nfl
    return elo.rate(
        build(games, with_time=with_time), EloConfig.fivethirtyeight_nfl(),
        initial=dict(zip(initial["team"], initial["elo"].astype(float))),
        resets={"player": resets["team"], "period": resets["season"], "value": resets["elo"]},
        record_pregame=True)


def test_data_is_what_we_expect(nfl):
    games, initial, resets = nfl
    assert len(games) == N_GAMES
    assert set(games["team1"]) | set(games["team2"]) <= set(initial["team"])
    assert list(resets.columns) == ["team", "season", "elo"]
    assert (np.diff(games["season"]) >= 0).all()  # file order is chronological


@pytest.mark.parametrize("with_time", [False, True], ids=["file-order", "time-stable-sort"])
def test_fivethirtyeight_nfl_reproduced(nfl, with_time):
    games = nfl[0]
    r = rate_nfl(nfl, with_time=with_time)
    assert r.predictions.shape == (N_GAMES,)
    np.testing.assert_allclose(r.predictions, games["elo_prob1"], rtol=0, atol=5e-6)
    np.testing.assert_allclose(r.pre_white, games["elo1"], rtol=0, atol=1e-3)
    np.testing.assert_allclose(r.pre_black, games["elo2"], rtol=0, atol=1e-3)
    # most ratings agree to the printed precision
    within = np.abs(r.pre_white - games["elo1"].to_numpy()) <= 0.0005 + 1e-9
    assert within.mean() > 0.99


def test_season_regression_and_resets_matter(nfl):
    """Without the season regression, or without the resets, the reproduction fails:
    the test above is really checking them."""
    games, initial, resets = nfl
    g = build(games)
    init = dict(zip(initial["team"], initial["elo"].astype(float)))
    reset_table = {"player": resets["team"], "period": resets["season"], "value": resets["elo"]}
    no_regression = elo.rate(g, EloConfig.fivethirtyeight_nfl(regression=0.0), initial=init,
                             resets=reset_table)
    assert np.abs(no_regression.predictions - games["elo_prob1"]).max() > 0.05
    no_resets = elo.rate(g, EloConfig.fivethirtyeight_nfl(), initial=init, record_pregame=True)
    err = np.abs(no_resets.pre_white - games["elo1"])
    assert err.max() > 1.0
    # resets replace the regressed rating at the team's first game of that season
    pre = rate_nfl(nfl)
    for team, season, value in resets.itertuples(index=False):
        first = games.index[((games["team1"] == team) | (games["team2"] == team))
                            & (games["season"] >= season)][0]
        side = pre.pre_white if games.at[first, "team1"] == team else pre.pre_black
        assert side[first] == pytest.approx(value, abs=1e-12)


def test_reference_agrees(nfl):
    """The pure-Python reference (tests/reference/elo.py) reproduces the file too."""
    from reference import elo as ref

    games, initial, resets = nfl
    want = ref.rate(games["team1"].tolist(), games["team2"].tolist(),
                    games["result1"].astype(float).tolist(), EloConfig.fivethirtyeight_nfl(),
                    period=games["season"].tolist(),
                    margin=(games["score1"] - games["score2"]).astype(float).tolist(),
                    neutral=(games["neutral"] == 1).tolist(),
                    initial=dict(zip(initial["team"], initial["elo"].astype(float))),
                    resets=list(resets.itertuples(index=False, name=None)))
    np.testing.assert_allclose(want.predictions, games["elo_prob1"], rtol=0, atol=5e-6)
    np.testing.assert_allclose(want.pre_white, games["elo1"], rtol=0, atol=1e-3)
    got = rate_nfl(nfl)
    np.testing.assert_allclose(got.predictions, want.predictions, rtol=0, atol=1e-9)
    for team, rating in want.rating.items():
        assert got[team] == pytest.approx(rating, abs=1e-9)


def test_continue_season_by_season(nfl):
    """Rating 1920-1999 and then continuing with 2000-2020 gives the same as one run."""
    games, initial, resets = nfl
    cfg = EloConfig.fivethirtyeight_nfl()
    init = dict(zip(initial["team"], initial["elo"].astype(float)))
    full = elo.rate(build(games), cfg, initial=init, resets=table(resets))
    early = games["season"] < 2000
    first = elo.rate(build(games[early]), cfg, initial=init, resets=table(resets))
    # a reset fires at the team's first game at or after its season, so a continuation
    # is given only the resets still to come (CLE's 1999 reset would fire again in 2000)
    later = resets[resets["season"] >= 2000]
    second = elo.rate(build(games[~early].reset_index(drop=True)), cfg, initial=first,
                      resets=table(later) if len(later) else None)
    assert np.array_equal(np.concatenate([first.predictions, second.predictions]),
                          full.predictions)
    for team in full.players:
        assert second[team] == full[team]


def test_evaluate_from_the_command_line(shared_data, tmp_path):
    """Issue 13: 538's NFL Elo evaluated by ``fastrate evaluate`` alone (points columns,
    neutral flags, seasons, initial ratings and franchise resets read from the files as
    published: team/elo and team/season/elo). The log loss equals the one of 538's own
    published probabilities (elo_prob1) over the same games."""
    import json

    from click.testing import CliRunner

    from fastrate.cli import main

    folder = shared_data / "fte_nfl_elo_game"
    out = tmp_path / "eval.json"
    result = CliRunner().invoke(main, [
        "evaluate", str(folder / "nfl_games.csv"), "--first-points", "score1",
        "--second-points", "score2", "--neutral", "neutral", "--period", "season",
        "-s", "elo@fivethirtyeight_nfl", "--initial", str(folder / "initial_elos.csv"),
        "--resets", str(folder / "season_resets.csv"), "--burn-in", "10", "-o", str(out)])
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())[0]
    games = pd.read_csv(folder / "nfl_games.csv")
    scored = games[games["season"] >= games["season"].min() + 10]
    p, s = scored["elo_prob1"].to_numpy(), scored["result1"].to_numpy()
    published = -np.mean(s * np.log(p) + (1 - s) * np.log(1 - p))
    assert row["n"] == len(scored) == 15_994
    assert row["log_loss"] == pytest.approx(published, abs=2e-5)
    # without the resets the same command scores worse: they were applied
    result = CliRunner().invoke(main, [
        "evaluate", str(folder / "nfl_games.csv"), "--first-points", "score1",
        "--second-points", "score2", "--neutral", "neutral", "--period", "season",
        "-s", "elo@fivethirtyeight_nfl", "--initial", str(folder / "initial_elos.csv"),
        "--burn-in", "10", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["log_loss"] > row["log_loss"] + 1e-4


def test_resets_need_a_system_that_takes_them(nfl):
    from fastrate.errors import ConfigError
    from fastrate.evaluate import evaluate

    games, initial, resets = nfl
    with pytest.raises(ConfigError, match="none of these systems takes rating resets.*elo"):
        evaluate(build(games), ["glicko"], resets=table(resets))
