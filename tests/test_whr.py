"""Whole-history rating (``fastrate.ratings.whr``; SPEC §1.7): Coulom's formulas against
the dense-Newton reference (``tests/reference/whr.py``), a live cross-check against the
``whr`` package, independence of the input order, walk-forward predictions, the batch
flag, and bad input."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.whr import log_posterior
from reference.whr import whr as reference_whr

import fastrate
from fastrate import systems
from fastrate.errors import ArgumentTypeError, ConfigError, InputError, InputTypeError
from fastrate.evaluate import evaluate
from fastrate.ratings import whr
from fastrate.ratings.whr import WHRConfig

TIGHT = 1e-9  # Elo: the fits below stop when no rating moves by more than this


def _games(rows, advantage_neutral=None):
    """Games of ``(first, second, score, step)`` rows, numeric times = the steps."""
    return fastrate.Games.from_arrays([r[0] for r in rows], [r[1] for r in rows],
                                      [r[2] for r in rows],
                                      time=[float(r[3]) for r in rows],
                                      neutral=advantage_neutral)


def _history(fit):
    out = {}
    for p in fit.players.names.tolist():
        t = fit.history.trajectory(p)
        out[p] = list(zip(t["when"].tolist(), t["rating"].tolist(),
                          t["uncertainty"].tolist()))
    return out


# ----------------------------------------------------------------------------------
# Coulom's formulas against the dense reference



def _assert_matches(got: dict, ref: dict) -> None:
    """Every player's fitted points and uncertainties equal the reference's."""
    for p, pts in ref.items():
        np.testing.assert_allclose([x for _, x, _ in got[p]], [x for _, x, _ in pts],
                                   atol=1e-6)
        np.testing.assert_allclose([u for _, _, u in got[p]], [u for _, _, u in pts],
                                   rtol=1e-7)

def test_tiny_example_matches_the_reference_exactly():
    rows = [("a", "b", 1.0, 0), ("b", "c", 1.0, 1), ("a", "c", 0.5, 5), ("c", "a", 0.0, 5),
            ("b", "a", 0.3, 2)]
    f = whr.fit(_games(rows), WHRConfig(w2=30.0, tolerance=TIGHT))
    ref = reference_whr([(*r, 0.0) for r in rows], 30.0)
    got = _history(f)
    for p, pts in ref.items():
        assert [t for t, _, _ in got[p]] == [float(t) for t, _, _ in pts]
        np.testing.assert_allclose([x for _, x, _ in got[p]], [x for _, x, _ in pts],
                                   atol=1e-7)
        np.testing.assert_allclose([u for _, _, u in got[p]], [u for _, _, u in pts],
                                   rtol=1e-9)
    assert f.converged and f.iterations > 1


_row = st.tuples(st.integers(0, 4), st.integers(1, 4), st.sampled_from([0.0, 0.5, 1.0, 0.25]),
                 st.integers(0, 6), st.booleans())


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(_row, min_size=1, max_size=14),
       w2=st.sampled_from([5.0, 60.0, 400.0]), virtual=st.sampled_from([1.0, 2.0, 5.0]),
       advantage=st.sampled_from([0.0, 35.0]))
def test_random_histories_match_the_dense_newton_reference(rows, w2, virtual, advantage):
    games = [(f"p{a}", f"p{(a + b) % 5}", s, t, n) for a, b, s, t, n in rows]
    games.sort(key=lambda g: g[3])
    g = _games(games, [x[4] for x in games])
    f = whr.fit(g, WHRConfig(w2=w2, virtual_games=virtual, advantage=advantage,
                             tolerance=TIGHT))
    assert f.converged
    ref = reference_whr([(a, b, s, t, 0.0 if n else advantage) for a, b, s, t, n in games],
                        w2, virtual)
    got = _history(f)
    _assert_matches(got, ref)
    # the fit is the maximum: moving any single point lowers the posterior
    hist = {p: [(t, x) for t, x, _ in pts] for p, pts in got.items()}
    best = log_posterior([(a, b, s, t, 0.0 if n else advantage) for a, b, s, t, n in games],
                         hist, w2, virtual)
    p0 = next(iter(hist))
    moved = dict(hist)
    moved[p0] = [(t, x + 1.0) for t, x in hist[p0]]
    assert log_posterior([(a, b, s, t, 0.0 if n else advantage)
                          for a, b, s, t, n in games], moved, w2, virtual) < best


def test_relaxation_changes_the_speed_not_the_fixed_point():
    rng = np.random.default_rng(4)
    w, b = rng.integers(0, 20, 400), rng.integers(0, 20, 400)
    keep = w != b
    t = np.sort(rng.integers(0, 60, 400))[keep].astype(float)
    g = fastrate.Games.from_arrays(w[keep], b[keep], rng.integers(0, 3, keep.sum()) / 2.0,
                                   time=t)
    plain = whr.fit(g, WHRConfig(relaxation=1.0, tolerance=1e-8))
    for omega in (0.5, 1.7, 1.9):
        other = whr.fit(g, WHRConfig(relaxation=omega, tolerance=1e-8))
        assert plain.converged and other.converged
        np.testing.assert_allclose(other.history.rating, plain.history.rating, atol=1e-5)


# ----------------------------------------------------------------------------------
# the whr package on the same games


def _random_rows(seed, n_players=12, n_games=150, n_days=40):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 150.0, n_players)
    rows = []
    for _ in range(n_games):
        a, b = rng.choice(n_players, 2, replace=False)
        p = 1.0 / (1.0 + 10.0 ** (-(skill[a] - skill[b]) / 400.0))
        u = rng.random()
        s = 1.0 if u < p - 0.05 else (0.5 if u < p + 0.05 else 0.0)
        rows.append((f"p{a}", f"p{b}", s, int(rng.integers(0, n_days))))
    rows.sort(key=lambda r: r[3])
    return rows


@pytest.mark.parametrize("advantage", [0.0, 40.0])
def test_agrees_with_the_whr_package(advantage):
    """The ``whr`` package (2.2, C++) on the same games: its ``black`` is our first player
    (its ``handicap`` is black's advantage in Elo), ``w2`` is Elo^2 per time step, and its
    ``virtual_games`` are draws against a 0-rated player on the first day: the same
    conventions. Ratings agree to 1e-3 Elo (both converged far below that: 2000 of its
    sweeps). Its Hessian has -0.001 added on the diagonal (a damping), which shrinks its
    variances by about 0.001 * variance (natural units), 0.2% here: uncertainties agree
    to 0.5%."""
    pkg = pytest.importorskip("whr")
    rows = _random_rows(1)
    base = pkg.Base(config={"w2": 40.0, "virtual_games": 2})
    for a, b, s, t in rows:
        base.create_game(a, b, "B" if s == 1.0 else ("W" if s == 0.0 else "D"), t, advantage)
    base.iterate(2000)
    f = whr.fit(_games(rows), WHRConfig(w2=40.0, advantage=advantage, tolerance=1e-8))
    got = _history(f)
    for p in f.players.names.tolist():
        theirs = base.ratings_for_player(p)
        assert [t for t, _, _ in got[p]] == [float(t) for t, _, _ in theirs]
        np.testing.assert_allclose([x for _, x, _ in got[p]], [x for _, x, _ in theirs],
                                   atol=1e-3)
        np.testing.assert_allclose([u for _, _, u in got[p]], [u for _, _, u in theirs],
                                   rtol=5e-3)


# ----------------------------------------------------------------------------------
# order independence


def test_the_input_order_does_not_matter():
    """The rows of one day in any order (and so other player ids, another sweep order):
    the same fixed point, to well within the tolerance (1e-6 Elo here)."""
    rows = _random_rows(2, n_players=30, n_games=600, n_days=25)
    f1 = whr.fit(_games(rows), WHRConfig(w2=20.0, tolerance=1e-7))
    rng = np.random.default_rng(0)
    shuffled = [rows[i] for i in rng.permutation(len(rows))]
    f2 = whr.fit(_games(shuffled), WHRConfig(w2=20.0, tolerance=1e-7))
    assert f1.players.names.tolist() != f2.players.names.tolist()
    h1, h2 = _history(f1), _history(f2)
    for p in h1:
        np.testing.assert_allclose(np.array(h2[p]), np.array(h1[p]), atol=1e-5)
    r2 = dict(zip(f2.players.names.tolist(), f2.rating))
    np.testing.assert_allclose([r2[p] for p in f1.players.names.tolist()], f1.rating,
                               atol=1e-5)


# ----------------------------------------------------------------------------------
# results, predictions, walk-forward


def test_results_and_the_history_container():
    g = fastrate.Games.from_arrays(["a", "b", "a", "c"], ["b", "c", "c", "b"],
                                   [1.0, 0.0, 0.5, 1.0],
                                   time=["2024-01-01", "2024-01-01T18:00", "2024-01-03",
                                         "2024-01-10"])
    f = whr.fit(g, WHRConfig(w2=50.0))
    tr = f.history.trajectory("a")
    assert tr["when"].dtype == np.dtype("datetime64[ns]")
    assert tr["when"].astype("datetime64[D]").astype(str).tolist() == ["2024-01-01",
                                                                        "2024-01-03"]
    assert f.history.when_kind == "time"
    assert len(f.history) == 2 + 2 + 3  # b's two games of 1 January share one rating
    assert f.games_played.tolist() == [2, 3, 3]
    np.testing.assert_allclose(f.rating, [f.history.trajectory(p)["rating"][-1]
                                          for p in "abc"])
    # the uncertainty grows by w2 per day after the last game
    np.testing.assert_allclose(f.rd_at(f.last_step + 4.0) ** 2, f.rd ** 2 + 4 * 50.0)
    np.testing.assert_allclose(f.rd_at(0.0), f.rd)
    r = f.to_ratings()
    assert list(r.columns()) == ["player", "rating", "rd", "games_played"]
    assert r.system == "whr"
    # seven-day steps from 1970-01-01: 1 and 3 January 2024 are in one, 10 January next
    f2 = whr.fit(g, WHRConfig(w2=50.0, time_unit=7.0))
    assert [len(f2.history.trajectory(p)["when"]) for p in "abc"] == [1, 2, 2]


def test_expected_score_of_future_games():
    g = _games([("a", "b", 1.0, 0), ("a", "b", 1.0, 1), ("b", "c", 0.5, 2)])
    f = whr.fit(g, WHRConfig(advantage=30.0))
    d = f.rating[0] - f.rating[1]
    np.testing.assert_allclose(whr.expected_score(f, ["a", "a"], ["b", "b"], [False, True]),
                               [1 / (1 + 10 ** (-(d + 30.0) / 400)), 1 / (1 + 10 ** (-d / 400))])
    with pytest.raises(InputError, match="'z' is not a player of the fit"):
        whr.expected_score(f, ["z"], ["a"])


def test_walk_forward_predictions_come_from_the_fit_of_the_periods_before():
    rows = _random_rows(3, n_players=10, n_games=120, n_days=30)
    names = [r[0] for r in rows], [r[1] for r in rows]
    score = [r[2] for r in rows]
    time = [float(r[3]) for r in rows]
    g = fastrate.Games.from_arrays(*names, score, time=time, period=[t // 10 for t in time])
    cfg = WHRConfig(w2=30.0, advantage=20.0, tolerance=1e-8)
    r = whr.rate(g, cfg)
    period = np.array([t // 10 for t in time])
    assert np.all(r.predictions[period == 0] == 1 / (1 + 10 ** (-20.0 / 400)))
    for p in (1, 2):
        before = period < p
        prefix = fastrate.Games.from_arrays(np.array(names[0])[before],
                                            np.array(names[1])[before],
                                            np.array(score)[before],
                                            time=np.array(time)[before])
        f = whr.fit(prefix, cfg)
        rating = dict(zip(f.players.names.tolist(), f.rating))
        for i in np.flatnonzero(period == p):
            d = rating.get(names[0][i], 0.0) - rating.get(names[1][i], 0.0) + 20.0
            assert r.predictions[i] == pytest.approx(1 / (1 + 10 ** (-d / 400)), abs=1e-7)
    full = whr.fit(g, cfg)
    np.testing.assert_allclose(r.rating, full.rating, atol=1e-6)
    np.testing.assert_allclose(r.rd, full.rd, rtol=1e-6)


def test_registry_entry_and_the_cli_spec():
    entry = systems.get("whr")
    assert entry.batch and entry.period_based
    assert entry.state_names() == ("rating", "rd", "games_played")
    spec = systems.SystemSpec.parse("whr:w2=14,advantage=30,time_unit=7")
    assert spec.config == WHRConfig(w2=14.0, advantage=30.0, time_unit=7.0)
    r = spec.rate(systems.tiny_data("games"))
    assert r.predictions.shape == (4,)


def test_games_without_time_or_period_are_one_time_step():
    g = fastrate.Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0])
    f = whr.fit(g)
    assert len(f.history) == 3 and f.history.when_kind == "period"
    r = whr.rate(g)
    assert r.predictions.tolist() == [0.5, 0.5]
    ref = reference_whr([("a", "b", 1.0, 0, 0.0), ("b", "c", 0.0, 0, 0.0)], 300.0)
    np.testing.assert_allclose(f.rating, [ref[p][0][1] for p in "abc"], atol=1e-3)


# ----------------------------------------------------------------------------------
# points share: the fitted score is (1 - f) * result + f * share


def _shared_games(seed, n_players=9, n_games=90, n_days=30):
    """Random games with a points share (a result agreeing with it) and weekly periods."""
    rows = _random_rows(seed, n_players, n_games, n_days)
    rng = np.random.default_rng(seed + 100)
    score = np.array([r[2] for r in rows])
    share = np.where(score == 0.5, 0.5, np.where(score == 1.0, rng.uniform(0.5, 1.0, len(rows)),
                                                 rng.uniform(0.0, 0.5, len(rows))))
    time = [float(r[3]) for r in rows]
    return fastrate.Games.from_arrays([r[0] for r in rows], [r[1] for r in rows], score,
                                      time=time, period=[t // 7 for t in time], share=share,
                                      neutral=rng.random(len(rows)) < 0.3)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), f=st.sampled_from([0.1, 0.37, 0.5, 1.0]),
       advantage=st.sampled_from([0.0, 60.0]))
def test_points_share_fits_the_mixed_score(seed, f, advantage):
    """``points_share=f`` is the fit of games whose score is the mixed score, bit for bit
    (ratings, uncertainties, walk-forward predictions); predictions are scored against the
    real results."""
    g = _shared_games(seed)
    mixed = dataclasses.replace(g, score=(1.0 - f) * g.score + f * g.share, share=None)
    cfg = WHRConfig(w2=40.0, advantage=advantage, tolerance=1e-6)
    got = whr.rate(g, dataclasses.replace(cfg, points_share=f))
    want = whr.rate(mixed, cfg)
    assert np.array_equal(got.predictions, want.predictions)
    assert np.array_equal(got.rating, want.rating) and np.array_equal(got.rd, want.rd)
    e = evaluate(g, [f"whr:w2=40,advantage={advantage},tolerance=1e-6,"
                    f"points_share={f}"])
    p = got.predictions
    assert e.rows[0]["log_loss"] == pytest.approx(
        float(-np.mean(g.score * np.log(p) + (1 - g.score) * np.log(1 - p))), rel=1e-12)


def test_points_share_against_the_dense_reference():
    """The fit with a points share is the posterior maximum of the fractional scores
    ``(1 - f) result + f share`` (each ``s log P + (1 - s) log(1 - P)``)."""
    g = _shared_games(7, n_players=6, n_games=30, n_days=8)
    f = whr.fit(g, WHRConfig(w2=60.0, advantage=35.0, points_share=0.6, tolerance=TIGHT))
    names = g.players.names
    s = 0.4 * g.score + 0.6 * g.share
    ref = reference_whr([(names[g.white[i]], names[g.black[i]], float(s[i]), float(g.time[i]),
                          0.0 if g.neutral[i] else 35.0) for i in range(g.n_games)], 60.0)
    got = _history(f)
    _assert_matches(got, ref)


def test_points_share_zero_is_the_results_alone():
    g = _shared_games(3)
    plain = dataclasses.replace(g, share=None)
    a, b = whr.rate(g, WHRConfig(w2=30.0)), whr.rate(plain, WHRConfig(w2=30.0))
    assert np.array_equal(a.predictions, b.predictions) and np.array_equal(a.rating, b.rating)
    assert WHRConfig().points_share == 0.0
    shared = whr.rate(g, WHRConfig(w2=30.0, points_share=0.5))
    assert not np.array_equal(shared.rating, a.rating)


def test_points_share_needs_the_share_column_and_a_range():
    with pytest.raises(InputError, match=r"points_share needs the games' 'share' column "
                                         r"\(read_games\(\.\.\., share='COLUMN'\) or --share"):
        whr.rate(systems.tiny_data("games"), WHRConfig(points_share=0.5))
    with pytest.raises(InputError, match="points_share needs the games' 'share' column"):
        whr.fit(systems.tiny_data("games"), WHRConfig(points_share=0.5))
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ConfigError, match=r"'points_share' of WHRConfig must be a float "
                                              r"in \[0, 1\]"):
            WHRConfig(points_share=bad)


def test_points_share_spec_and_search_space():
    from fastrate.tune import Space, tune

    spec = systems.SystemSpec.parse("whr:w2=20,points_share=0.5")
    assert spec.config == WHRConfig(w2=20.0, points_share=0.5)
    space = Space.parse("whr:w2=20,points_share=0..1")
    assert [d.key for d in space.dims] == ["points_share"]
    g = _shared_games(5)
    t = tune(g, "whr:w2=20,points_share=0..1", strategy="grid", grid_points=3)
    assert sorted(row["points_share"] for row in t.trials) == [0.0, 0.5, 1.0]
    assert "points_share=" in t.best
    # trials rate the games up to the end of the fit window: the share column is cut too
    t = tune(g, "whr:w2=20,points_share=0.5|1", score_from=20.0)
    fit = g.time < 20.0
    for row in t.trials:
        p = whr.rate(g, WHRConfig(w2=20.0, points_share=row["points_share"])).predictions[fit]
        s = g.score[fit]
        assert row["log_loss"] == pytest.approx(
            float(-np.mean(s * np.log(p) + (1 - s) * np.log(1 - p))), rel=1e-9)


# ----------------------------------------------------------------------------------
# continuation and bad input


def test_a_batch_fit_does_not_continue_from_saved_ratings():
    g = systems.tiny_data("games")
    first = whr.rate(g)
    with pytest.raises(ConfigError, match=r"batch fit .* cannot continue from saved ratings"):
        whr.rate(g, initial=first)


@pytest.mark.parametrize("kwargs, match", [
    ({"w2": 0.0}, "'w2' of WHRConfig must be a float in \\[1e-06, 1e\\+09\\]; got 0.0"),
    ({"w2": math.inf}, "'w2' of WHRConfig"),
    ({"virtual_games": -1.0}, "'virtual_games' of WHRConfig must be a float in \\[0.001, "),
    ({"virtual_games": 0.0}, "'virtual_games' of WHRConfig must be a float in \\[0.001, "),
    ({"advantage": 1e4}, "'advantage' of WHRConfig must be a float in \\[-1000, 1000\\]"),
    ({"time_unit": 0}, "'time_unit' of WHRConfig"),
    ({"tolerance": 0.0}, "'tolerance' of WHRConfig"),
    ({"max_iterations": 2.5}, "'max_iterations' of WHRConfig must be an integer"),
    ({"relaxation": 2.0}, "'relaxation' of WHRConfig must be a float in \\(0, 2\\)"),
    ({"advantage": math.nan}, "'advantage' of WHRConfig"),
])
def test_bad_configs_are_refused(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        WHRConfig(**kwargs)


def test_bad_arguments_are_refused():
    with pytest.raises(InputTypeError, match="'w2' of WHRConfig must be a float"):
        WHRConfig(w2="big")
    with pytest.raises(ArgumentTypeError, match=r"whr.fit\(\) needs a fastrate.Games; got list"):
        whr.fit([("a", "b", 1.0)])
    with pytest.raises(ArgumentTypeError, match=r"whr.rate\(\) needs a WHRConfig as config"):
        whr.rate(systems.tiny_data("games"), {"w2": 3})


def test_an_unfinished_fit_says_so():
    rows = _random_rows(5)
    f = whr.fit(_games(rows), WHRConfig(max_iterations=1))
    assert not f.converged and f.iterations == 1 and f.max_change > f.config.tolerance
    r = f.to_ratings()
    assert r.unconverged is not None and r.unconverged.size > 0
    assert whr.fit(_games(rows)).to_ratings().unconverged is None


def test_the_cli_rates_and_evaluates_with_whr(tmp_path):
    from click.testing import CliRunner

    from fastrate.cli import main

    rows = _random_rows(6, n_players=8, n_games=80, n_days=30)
    path = tmp_path / "games.csv"
    path.write_text("white,black,score,time\n" + "".join(
        f"{a},{b},{s},{t}\n" for a, b, s, t in rows))
    out = tmp_path / "r.csv"
    res = CliRunner().invoke(main, ["rate", str(path), "--time", "time", "--period", "10",
                                    "-s", "whr:w2=20", "-o", str(out)])
    assert res.exit_code == 0, res.output
    header = out.read_text().splitlines()[0]
    assert header.replace("\"", "") == "player,rating,rd,games_played"
    res = CliRunner().invoke(main, ["evaluate", str(path), "--time", "time", "--period", "10",
                                    "-s", "whr:w2=20", "-s", "elo"])
    assert res.exit_code == 0, res.output
    assert "whr:w2=20" in res.output
