"""Time windows of the walk-forward evaluation: fit_until, score_from, score_until
(fastrate.data.evaluation.split_windows, evaluate(..., score_from=...), the CLI options).
Every mask is checked against one computed by hand from the games' own dates or periods."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import fastrate
from fastrate import metrics
from fastrate.cli import main
from fastrate.data import Games, Matches
from fastrate.data.evaluation import split_windows
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import evaluate, evaluate_matches, score_window


@pytest.fixture(scope="module")
def football():
    return fastrate.load_example("football", period="year")


def _hand_mask(games, lo=None, hi=None):
    t = games.time
    mask = np.ones(games.n_games, dtype=bool)
    if lo is not None:
        mask &= t >= np.datetime64(lo, "ns")
    if hi is not None:
        mask &= t < np.datetime64(hi, "ns")
    return mask


def test_date_window_mask_equals_the_hand_computed_one(football):
    split = split_windows(football, score_from="1990-06-01", score_until="2010-01-01")
    hand = _hand_mask(football, "1990-06-01", "2010-01-01")
    assert hand.sum() > 1000
    np.testing.assert_array_equal(split.score_mask(), hand)
    # the fit window defaults to everything before score_from
    np.testing.assert_array_equal(split.fit_mask(), _hand_mask(football, None, "1990-06-01"))


def test_evaluate_scores_only_the_window(football):
    e = evaluate(football, ["elo"], score_from="1990-06-01", score_until="2010-01-01")
    hand = _hand_mask(football, "1990-06-01", "2010-01-01")
    r = fastrate.elo.rate(football)
    p = r.predictions[football.order] if football.order is not None else r.predictions
    assert e.rows[0]["n"] == int(hand.sum())
    assert e.rows[0] == {"system": "elo", **metrics.summary(p, football.score, mask=hand)}
    assert e.rows[0]["log_loss"] == pytest.approx(metrics.log_loss(p, football.score,
                                                                   mask=hand), rel=1e-13)


def test_fit_until_alone_starts_the_scored_window(football):
    a = evaluate(football, ["elo"], fit_until="2000-01-01")
    b = evaluate(football, ["elo"], score_from="2000-01-01")
    assert a.rows == b.rows
    assert a.rows[0]["n"] == int(_hand_mask(football, "2000-01-01").sum())
    assert [w.role for w in a.windows] == ["fit", "scored"]


def test_burn_in_and_window_together(football):
    # a burn-in longer than the fit window moves the start of the scored window
    starts = np.flatnonzero(np.diff(football.period)) + 1
    e = evaluate(football, ["elo"], burn_in=120, score_from="1900-01-01")
    assert e.rows[0]["n"] == football.n_games - starts[119]
    e2 = evaluate(football, ["elo"], burn_in=2, score_from="1990-01-01")
    assert e2.rows[0]["n"] == int(_hand_mask(football, "1990-01-01").sum())


def test_the_evaluation_says_which_games_were_used_for_what(football):
    e = evaluate(football, ["elo"], burn_in=3, fit_until="1980-01-01", score_from="1990-01-01",
                 score_until="2010-01-01")
    roles = {w.role: w for w in e.windows}
    assert list(roles) == ["burn-in", "fit", "gap", "scored", "after"]
    assert sum(w.n for w in e.windows) == football.n_games
    assert roles["scored"].n == e.rows[0]["n"]
    assert roles["scored"].first.startswith("1990-01")
    assert roles["scored"].last.startswith("2009-12")
    assert roles["fit"].last.startswith("1979-12")
    text = str(e)
    assert "scored 16,473 (1990-01-12 .. 2009-12-31)" in text
    assert "fit " in text and "after " in text


def test_without_windows_the_table_is_unchanged(football):
    e = evaluate(football, ["elo"], burn_in=2)
    assert e.windows == ()
    assert str(e).splitlines()[1].startswith("system")


def test_overlapping_or_empty_windows_are_refused(football):
    with pytest.raises(ConfigError, match="fit_until .* is after score_from"):
        split_windows(football, fit_until="2000-01-01", score_from="1990-01-01")
    with pytest.raises(ConfigError, match="score_until .* must be after score_from"):
        split_windows(football, score_from="2000-01-01", score_until="1990-01-01")
    with pytest.raises(InputError, match="no games to score.*1872-11-30"):
        evaluate(football, ["elo"], score_from="2100-01-01")


def test_an_integer_is_a_period_number_and_says_so_when_it_misses(football):
    # football's periods are year buckets (numbers from 1970), so 1990 is no period there
    with pytest.raises(InputError, match="period numbers"):
        evaluate(football, ["elo"], score_from=1990)
    split = split_windows(football, score_from=20)
    np.testing.assert_array_equal(split.score_mask(), football.period >= 20)
    split = split_windows(football, score_from="period:20")
    np.testing.assert_array_equal(split.score_mask(), football.period >= 20)


def test_period_labels_season_column():
    seasons = ["2018-19", "2018-19", "2019-20", "2019-20", "2020-21", "2021-22"]
    games = Games.from_arrays(["a", "b", "c", "a", "b", "c"], ["b", "c", "a", "c", "a", "b"],
                              [1, 0, 1, 0.5, 1, 0], period=seasons)
    split = split_windows(games, score_from="2019-20", score_until="2021-22")
    np.testing.assert_array_equal(split.score_mask(), [0, 0, 1, 1, 1, 0])
    e = evaluate(games, ["elo"], score_from="2019-20")
    assert e.rows[0]["n"] == 4
    with pytest.raises(ConfigError, match="no rating periods|not a period label"):
        split_windows(Games.from_arrays(["a"], ["b"], [1]), score_from="x")


def test_integer_season_periods_and_numeric_times():
    games = Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"], [1, 0, 1, 0],
                              period=[1999, 2000, 2000, 2001])
    np.testing.assert_array_equal(split_windows(games, score_from="2000").score_mask(),
                                  [0, 1, 1, 1])
    np.testing.assert_array_equal(split_windows(games, score_until=2001).score_mask(),
                                  [1, 1, 1, 0])
    timed = Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"], [1, 0, 1, 0],
                              time=[0.5, 1.5, 2.5, 3.5])
    np.testing.assert_array_equal(split_windows(timed, score_from=1.5).score_mask(),
                                  [0, 1, 1, 1])
    np.testing.assert_array_equal(split_windows(timed, score_from="2",
                                                score_until="3.5").score_mask(), [0, 0, 1, 0])


def test_matches_windows():
    m = Matches.from_arrays(match=[1, 1, 2, 2, 3, 3, 4, 4], team=None,
                            player=["a", "b", "b", "c", "a", "c", "a", "b"],
                            rank=[1, 2, 1, 2, 2, 1, 1, 2], period=[0, 0, 1, 1, 2, 2, 3, 3])
    e = evaluate_matches(m, ["trueskill"], score_from=2)
    assert e.rows[0]["n"] == 2
    assert [w.role for w in e.windows] == ["before", "scored"]
    full = evaluate_matches(m, ["trueskill"])
    assert full.rows[0]["n"] == 4


def test_score_window_equals_evaluate(football):
    e = evaluate(football, ["elo:k=25"], score_from="1990-01-01", score_until="2000-01-01")
    split = split_windows(football, score_from="1990-01-01", score_until="2000-01-01")
    row = score_window(football, "elo:k=25", *split.score)
    assert row == {k: e.rows[0][k] for k in row}


def test_cli_window_options(tmp_path, football):
    runner = CliRunner()
    res = runner.invoke(main, ["evaluate", "--example", "football", "--period", "year", "-s",
                               "elo", "--score-from", "2000-01-01", "--score-until", "2010",
                               "--format", "csv"])
    assert res.exit_code == 0, res.output
    n = int(_hand_mask(football, "2000-01-01", "2010-01-01").sum())
    assert f"\"elo\",{n}," in res.stdout
    res = runner.invoke(main, ["evaluate", "--example", "football", "-s", "elo",
                               "--fit-until", "2000-01-01", "--score-from", "1990-01-01"])
    assert res.exit_code == 1
    assert "is after score_from" in res.output
