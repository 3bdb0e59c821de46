"""Hostile but realistic values (issue 15, sections 1 and 5): every one is refused with
a clear one-line error, or handled exactly; nothing writes NaN or infinity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import fastrate as fr
from fastrate.errors import ConfigError, InputError

# ----------------------------------------------------------------------------------
# section 1: never a non-finite result


def test_elo_with_a_huge_weight_names_the_game_and_players():
    games = fr.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
                                 [1.0, 0.0, 1.0, 0.5], weight=[1.0, 1.0, 1e308, 1.0],
                                 source="games.csv")
    for predictions in (True, False):
        with pytest.raises(InputError) as err:
            fr.elo.rate(games, predictions=predictions)
        msg = str(err.value)
        assert msg.startswith("Elo ratings overflowed at row 3 of games.csv: 'c' against 'a' "
                              "left ratings inf and -inf (K 32, weight 1e+308)"), msg
        assert "\n" not in msg


def test_elo_overflow_is_located_in_input_rows_of_sorted_games():
    # stored order differs from input order: the error names the input row
    games = fr.Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1.0, 0.0, 1.0],
                                 time=[3.0, 1.0, 2.0], weight=[1.0, 1e308, 1.0],
                                 source="games.csv")
    with pytest.raises(InputError, match=r"overflowed at row 2 of games.csv: 'b' against 'c'"):
        fr.elo.rate(games)


def test_elo_with_a_huge_margin_overflows_clearly():
    games = fr.Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 1.0], margin=[1e308, 1.0])
    with pytest.raises(InputError, match=r"overflowed at row 1: 'a' against 'b' .*"
                                         r"margin 1e\+308"):
        fr.elo.rate(games, fr.elo.EloConfig(k=1e6, margin="world_football"))


def test_elo_finite_huge_values_are_kept():
    # large but finite: no false alarm (the quick check sums the ratings, which overflow)
    games = fr.Games.from_arrays(["a", "c", "e"], ["b", "d", "f"], [1.0, 1.0, 1.0],
                                 weight=[1.5e302] * 3)
    r = fr.elo.rate(games, fr.elo.EloConfig(k=1e6))
    assert np.isfinite(r.rating).all() and r.rating.max() > 7e307
    with np.errstate(over="ignore"):
        assert not np.isfinite(r.rating[r.rating > 0].sum())


@pytest.mark.parametrize("make, message", [
    (lambda: fr.elo.EloConfig(k=1e308), r"'k' of EloConfig must be a float in \[0, 1e\+06\]; "
                                        r"got 1e\+308"),
    (lambda: fr.elo.EloConfig(scale=1e-300), r"'scale' of EloConfig must be a float in "
                                             r"\[0.001, 1e\+09\]"),
    (lambda: fr.elo.EloConfig(initial_rating=1e308), r"'initial_rating' of EloConfig"),
    (lambda: fr.elo.EloConfig(advantage=-1e12), r"'advantage' of EloConfig"),
    (lambda: fr.elo.EloConfig(k_power=5), r"'k_power' of EloConfig must be \(a, b, c\)"),
    (lambda: fr.elo.EloConfig(k_schedule="power", k_power=(1e6, 1e-300, 10)),
     r"'k_power\[1\]' of EloConfig"),
    (lambda: fr.fibs.FibsConfig(k=1e308), r"'k' of FibsConfig must be a float in "
                                          r"\[0, 1e\+06\]"),
    (lambda: fr.fibs.FibsConfig(k_max=1e308), r"'k_max' of FibsConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(mu=1e308), r"'mu' of TrueSkillConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(sigma=1e308), r"'sigma' of TrueSkillConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(beta=1e-300), r"'beta' of TrueSkillConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(draw_probability=1e-300),
     r"'draw_probability' of TrueSkillConfig must be a float in \[1e-06, 0.999999\]"),
    (lambda: fr.trueskill.TrueSkillConfig(max_iterations=math.inf),
     r"'max_iterations' of TrueSkillConfig must be an integer"),
    (lambda: fr.weng_lin.WengLinConfig(tau=1e308), r"'tau' of WengLinConfig"),
    (lambda: fr.weng_lin.WengLinConfig(conservative_k=1e308), r"'conservative_k' of "
                                                              r"WengLinConfig"),
    (lambda: fr.weng_lin.WengLinConfig(window=math.inf), r"'window' of WengLinConfig must "
                                                         r"be an integer"),
    (lambda: fr.weng_lin.WengLinConfig(weight_bounds=(1.0, 1e308)), r"'weight_bounds\[1\]'"),
    (lambda: fr.elom.ElomConfig(k_start=1e308), r"'k_start' of ElomConfig"),
    (lambda: fr.elom.ElomConfig(spread=1e-300), r"'spread' of ElomConfig"),
    (lambda: fr.elom.ElomConfig(k_games=1e-300), r"'k_games' of ElomConfig must be 0 or a "
                                                 r"float in \[1, 1e\+09\]"),
    (lambda: fr.pairwise_elo.PairwiseEloConfig(initial_rating=-1e308),
     r"'initial_rating' of PairwiseEloConfig"),
    (lambda: fr.codeforces.CodeforcesConfig(initial_rating=math.inf),
     r"'initial_rating' of CodeforcesConfig must be an integer"),
    (lambda: fr.bradley_terry.BTConfig(advantage=-1e308), r"'advantage' of BTConfig"),
    (lambda: fr.bradley_terry.BTConfig(mean_rating=math.inf), r"'mean_rating' of BTConfig"),
    (lambda: fr.bradley_terry.BTConfig(prior=1e-300), r"'prior' of BTConfig must be 0 or"),
    (lambda: fr.bradley_terry.BTConfig(max_newton=math.inf), r"'max_newton' of BTConfig"),
])
def test_a_parameter_that_cannot_give_finite_results_is_refused(make, message):
    with pytest.raises(ConfigError, match=message) as err:
        make()
    assert "\n" not in str(err.value)


def test_the_range_edges_are_accepted():
    fr.elo.EloConfig(k=1e6, scale=1e-3, initial_rating=-1e9, advantage=1e9)
    fr.trueskill.TrueSkillConfig(draw_probability=0.0)
    fr.trueskill.TrueSkillConfig(draw_probability=1e-6)
    fr.elom.ElomConfig(k_games=0.0)
    fr.bradley_terry.BTConfig(prior=0.0)


def _csv(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_backgammon_rate_refuses_a_huge_k(tmp_path):
    from fastrate.cli.backgammon import backgammon_group

    path = _csv(tmp_path, "m.csv", "date,winner,loser,length\n2024-01-01,a,b,3\n")
    res = CliRunner().invoke(backgammon_group, ["rate", path, "--no-experience", "--k",
                                                "1e308"])
    assert isinstance(res.exception, ConfigError)
    assert "'k' of FibsConfig must be a float in [0, 1e+06]; got 1e+308" in str(res.exception)


def test_backgammon_rate_refuses_a_huge_match_length(tmp_path):
    from fastrate.cli.backgammon import backgammon_group

    path = _csv(tmp_path, "m.csv", "date,winner,loser,length\n2024-01-01,a,b,1e300\n")
    res = CliRunner().invoke(backgammon_group, ["rate", path])
    assert isinstance(res.exception, InputError)
    assert "points in [1, 1e6]" in str(res.exception)


def test_ladder_simulate_refuses_a_huge_k():
    from fastrate.cli.ladder import ladder_group

    res = CliRunner().invoke(ladder_group, ["simulate", "--k", "1e308", "--games", "10",
                                            "--seeds", "1", "--players", "4"])
    assert isinstance(res.exception, ConfigError)
    assert "'k' of EloConfig must be a float in [0, 1e+06]; got 1e+308" in str(res.exception)


@pytest.mark.parametrize("args, message", [
    (["--elo-step", "1e308"], "'elo_step' of Ladder.geometric must be a float in [-1e+06, "
                              "1e+06]; got 1e+308"),
    (["--cost-ratio", "1e308"], "'cost_ratio' 1e+308 of Ladder.geometric gives rank 2 a cost "
                                "of inf per game"),
    (["--cost-ratio", "1e-300"], "'cost_ratio' 1e-300 of Ladder.geometric gives rank 2 a "
                                 "cost of 0.0 per game"),
])
def test_ladder_simulate_refuses_parameters_that_overflow(args, message):
    from fastrate.cli.ladder import ladder_group

    res = CliRunner().invoke(ladder_group, ["simulate", *args, "--games", "10", "--seeds",
                                            "1", "--players", "4"])
    assert isinstance(res.exception, ConfigError)
    assert message in str(res.exception)


# ----------------------------------------------------------------------------------
# backgammon rate --drop-self-play (the self-play error suggests it)


def test_backgammon_rate_drops_self_play_and_keeps_lengths_in_step(tmp_path):
    from fastrate.cli.backgammon import backgammon_group

    text = ("date,winner,loser,length\n2024-01-01,a,b,3\n2024-01-02,c,c,5\n"
            "2024-01-03,b,c,7\n")
    path = _csv(tmp_path, "m.csv", text)
    runner = CliRunner()
    res = runner.invoke(backgammon_group, ["rate", path])
    assert isinstance(res.exception, InputError)
    assert "--drop-self-play" in str(res.exception)
    out = str(tmp_path / "out.csv")
    res = runner.invoke(backgammon_group, ["rate", path, "--drop-self-play", "-o", out])
    assert res.exit_code == 0, res.output
    assert "skipped 1 row where a player plays himself (first at row 2 (line 3 of m.csv))" \
        in res.output
    got = fr.read_ratings(out)
    clean = _csv(tmp_path, "clean.csv", "date,winner,loser,length\n2024-01-01,a,b,3\n"
                 "2024-01-03,b,c,7\n")
    expected = fr.fibs.rate(fr.read_games(clean, winner="winner", loser="loser"),
                            length=[3, 7])
    exp = dict(zip(expected.players.names.tolist(), expected.rating.tolist()))
    names = got.column("player").to_pylist()
    assert dict(zip(names, got.column("rating").to_pylist())) == exp
    # b played 3 + 7 points: the dropped row's 5 is not counted
    assert dict(zip(names, got.column("experience").to_pylist()))["b"] == 10


# ----------------------------------------------------------------------------------
# section 5: garbage is refused


def test_a_negative_goal_count_is_refused(tmp_path):
    path = _csv(tmp_path, "f.csv", "home_team,away_team,home_score,away_score\nx,y,2,1\n"
                "y,x,3,-1\n")
    with pytest.raises(InputError, match=r"column 'away_score' must be >= 0 \(a count of goals "
                                         r"or points\); found -1.0 at row 2 \(line 3 of f.csv\)"):
        fr.read_games(path)


@pytest.mark.parametrize("score, margin", [(1.0, -3.0), (0.0, 2.0), (0.7, -1.0), (0.2, 0.5)])
def test_a_margin_against_the_score_is_refused(score, margin):
    with pytest.raises(InputError, match=r"column 'margin' must agree with the score .*found "
                                         rf"{margin!r} at row 2; the score there is {score!r}"):
        fr.Games.from_arrays(["a", "b"], ["b", "a"], [1.0, score], margin=[1.0, margin])


def test_margins_that_agree_are_kept():
    # a draw has margin 0, and a win on penalties after a drawn game too
    g = fr.Games.from_arrays(["a"] * 4, ["b"] * 4, [1.0, 0.0, 0.5, 1.0],
                             margin=[2.0, -1.0, 0.0, 0.0])
    np.testing.assert_array_equal(g.margin, [2.0, -1.0, 0.0, 0.0])


@pytest.mark.parametrize("column, value, message", [
    ("games_played", -5, r"column 'games_played' must be >= 0; found -5 at row 2"),
    ("games_played", 2.5, r"column 'games_played' must be a whole number; found 2.5 at row 2"),
    ("last_period", 0.5, r"column 'last_period' must be a whole number; found 0.5 at row 2"),
])
def test_saved_counts_must_be_whole_numbers(column, value, message):
    games = fr.Games.from_arrays(["a"], ["b"], [1.0], period=[3])
    initial = {"player": ["x", "a"], "rating": [1500.0, 1500.0], column: [1, value]}
    with pytest.raises(InputError, match=message):
        fr.elo.rate(games, initial=initial)


def test_a_saved_last_period_after_the_games_is_refused():
    games = fr.Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], period=[3, 4])
    initial = {"player": ["x", "a"], "rating": [1500.0, 1500.0], "last_period": [3, 7]}
    with pytest.raises(InputError, match=r"column 'last_period' of the saved state must not be "
                                         r"after the first rating period of the games \(3\); "
                                         r"found 7 at row 2 of initial ratings \(player 'a'\)"):
        fr.elo.rate(games, initial=initial)
    # a previous run (Ratings) is checked the same way, and equal periods are fine
    later = fr.elo.rate(fr.Games.from_arrays(["a"], ["b"], [1.0], period=[9]))
    with pytest.raises(InputError, match=r"found 9 at row 1"):
        fr.elo.rate(games, initial=later)
    same = fr.elo.rate(fr.Games.from_arrays(["a"], ["b"], [1.0], period=[3]))
    r = fr.elo.rate(games, initial=same)
    assert r.games_played.tolist() == [2, 3, 1]


def test_complex_scores_are_refused():
    with pytest.raises(InputError, match=r"column 'score' must be a real number; found "
                                         r"\(1\+1j\) at row 1"):
        fr.Games.from_arrays(["a", "b"], ["b", "a"], np.array([1 + 1j, 0]))
    g = fr.Games.from_arrays(["a", "b"], ["b", "a"], np.array([1 + 0j, 0]))  # real: fine
    np.testing.assert_array_equal(g.score, [1.0, 0.0])


@pytest.mark.parametrize("n", [-1, 2.5, True, "3"])
def test_top_refuses_a_count_that_is_not_one(n):
    r = fr.elo.rate(fr.Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0]))
    with pytest.raises(InputError, match=r"top\(\) takes a number of players, a whole number "
                                         r">= 0; got"):
        r.top(n)
    assert len(r.top(0)) == 0 and len(r.top(10)) == 3


@pytest.mark.parametrize("kwargs, message", [
    ({"time": [1.0, 2.0], "period": 1e-300},
     r"period 1e-300 puts the time at row 1 in a period numbered beyond the 64-bit "
     r"integers; give a longer period"),
    ({"time": [1.0, 3e300], "period": 1.0}, r"period 1.0 puts the time at row 2 in a period"),
    ({"period": [1.0, 2e19]}, r"column 'period' must be a period number within \+-9.2e18 "
                              r"\(64-bit\); found one beyond at row 2"),
    ({"period": np.array([np.iinfo(np.int64).min, 0])}, r"column 'period' must be a period "
                                                        r"number .* at row 1"),
])
def test_periods_that_collapse_to_the_never_played_sentinel_are_refused(kwargs, message):
    with pytest.raises(InputError, match=message):
        fr.Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], **kwargs)


def test_matches_refuse_the_sentinel_period_too():
    with pytest.raises(InputError, match=r"column 'period' must be a period number"):
        fr.Matches.from_arrays([1, 1], None, ["a", "b"], rank=[1, 2], period=[2e19, 2e19])


def test_placement_one_player_games_are_refused():
    from fastrate.stats import placement

    with pytest.raises(InputError, match=r"column 'place' holds only 1st places: a placement "
                                         r"game has at least two players"):
        placement.place_counts(["a", "a", "b"], [1, 1, 1], game=[1, 2, 3])
    with pytest.raises(InputError, match=r"holds only 1st places"):
        placement.profiles_from_log(["a", "a"], [1, 1])
    # with k given they are wins in larger games: counted
    _, counts = placement.place_counts(["a", "a"], [1, 1], k=3)
    assert counts.tolist() == [[2, 0, 0]]


def test_placement_cli_refuses_one_player_games(tmp_path):
    from fastrate.cli.placement import placement_group

    path = _csv(tmp_path, "p.csv", "game,player,place\n1,a,1\n2,a,1\n")
    res = CliRunner().invoke(placement_group, ["stats", path])
    assert isinstance(res.exception, InputError)
    assert "holds only 1st places" in str(res.exception)


# ----------------------------------------------------------------------------------
# test gaps: a second, independent check of rules that rested on one test


def test_drop_self_play_with_a_blank_name_refuses_the_blank_at_its_file_row(tmp_path):
    # the self-play row before it is dropped, so the blank's row must still be counted
    # in the file; two blank names are a missing name, not a player against himself
    for text, column, row in (
            ("white,black,score\na,b,1\nc,c,1\nd,,1\nb,a,0\n", "black", 3),
            ("white,black,score\na,b,1\nc,c,1\n,,0\nb,a,0\n", "white", 3),
            ("white,black,score\na,b,1\n,,1\nc,c,1\nb,a,0\n", "white", 2)):
        path = _csv(tmp_path, "x.csv", text)
        with pytest.raises(InputError, match=rf"column '{column}' must name a player in every "
                                             rf"row; found a missing value at row {row} "
                                             rf"\(line {row + 1} of x.csv\)"):
            fr.read_games(path, drop_self_play=True)
    path = _csv(tmp_path, "ok.csv", "white,black,score\na,b,1\nc,c,1\nb,a,0\n")
    g = fr.read_games(path, drop_self_play=True)
    assert g.n_games == 2 and g.dropped[0][1] == 1


def _entropy(p: float) -> float:
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


@pytest.mark.parametrize("scale", [200.0, 173.72, 1000.0])
def test_game_information_uses_its_scale(scale):
    from fastrate.stats import information

    p = 1.0 / (1.0 + 10.0 ** (-(1500.0 - 1420.0) / scale))
    got = information.game_information(1500.0, 1420.0, scale=scale)
    assert got == pytest.approx(_entropy(p), rel=1e-12)
    # only the difference over the scale counts
    assert got == pytest.approx(information.game_information(0.0, -80.0 * 400.0 / scale),
                                rel=1e-12)


def test_glicko_inactivity_growth_by_hand():
    """Two rating periods four apart, computed with Glickman's (1999) formulas written
    out here: RD grows to min(sqrt(RD^2 + c^2 t), max_rd) for t = 4 periods."""
    q = math.log(10) / 400
    c, rd0 = 40.0, 120.0

    def g(rd):
        return 1 / math.sqrt(1 + 3 * q * q * rd * rd / math.pi ** 2)

    def update(r, rd, rj, rdj, s):
        e = 1 / (1 + 10 ** (-g(rdj) * (r - rj) / 400))
        d2 = 1 / (q * q * g(rdj) ** 2 * e * (1 - e))
        var = 1 / (1 / rd ** 2 + 1 / d2)
        return r + q * var * g(rdj) * (s - e), math.sqrt(var)

    ra, rda = update(1500.0, rd0, 1500.0, rd0, 1.0)  # period 0: a beats b
    rb, rdb = update(1500.0, rd0, 1500.0, rd0, 0.0)
    rda, rdb = (min(math.sqrt(x * x + c * c * 4), 350.0) for x in (rda, rdb))  # 4 periods
    ra2, rda2 = update(ra, rda, rb, rdb, 0.0)  # period 4: b beats a
    rb2, rdb2 = update(rb, rdb, ra, rda, 1.0)
    games = fr.Games.from_arrays(["a", "a"], ["b", "b"], [1.0, 0.0], period=[0, 4])
    r = fr.glicko.rate(games, fr.glicko.GlickoConfig(c=c, initial_rd=rd0))
    np.testing.assert_allclose(r.rating, [ra2, rb2], rtol=1e-12)
    np.testing.assert_allclose(r.rd, [rda2, rdb2], rtol=1e-12)


def test_placement_degrees_of_freedom_by_closed_forms():
    """p-values with df = k - 1 from the closed forms of the chi-square tail: df 2:
    exp(-x/2); df 4: exp(-x/2) (1 + x/2). A wrong df (k, or k - 2) fails."""
    from fastrate.stats import placement

    for counts in ([5, 1, 0], [2, 2, 2], [9, 3, 1, 0, 2]):
        k, n = len(counts), sum(counts)
        x = sum((o - n / k) ** 2 / (n / k) for o in counts)  # Pearson, uniform reference
        tail = math.exp(-x / 2) * (1 if k == 3 else 1 + x / 2)
        stats = placement.placement_stats(np.array([counts]))
        assert stats["chi2"][0] == pytest.approx(x, rel=1e-12)
        assert stats["p_value"][0] == pytest.approx(tail, rel=1e-12)
        assert placement.p_value(x, k - 1) == pytest.approx(tail, rel=1e-12)


def test_initial_ratings_merge_by_hand():
    """The merge of saved state, rebuilt with plain dicts: saved players first (in their
    order), then new players in order of first appearance; a saved value wins, a missing
    cell (NaN) keeps the default; players only in the saved state keep their values."""
    from fastrate.data.players import PlayerIndex
    from fastrate.data.state import GAMES_PLAYED, LAST_PERIOD, RATING, merge_state

    rng = np.random.default_rng(3)
    for _ in range(20):
        pool = [f"p{i}" for i in range(8)]
        saved = list(rng.choice(pool, rng.integers(0, 6), replace=False))
        game_players = list(dict.fromkeys(rng.choice(pool, rng.integers(1, 8)).tolist()))
        ratings = rng.normal(1500, 100, len(saved))
        ratings[rng.random(len(saved)) < 0.3] = np.nan
        played = rng.integers(0, 50, len(saved))
        table = {"player": saved, "rating": ratings, "games_played": played}
        index, cols, _ = merge_state(PlayerIndex(game_players), table if saved else None,
                                     (RATING, GAMES_PLAYED, LAST_PERIOD), {"rating": 1200.0})
        order = saved + [p for p in game_players if p not in saved]
        assert index.names.tolist() == order
        want_r = {p: 1200.0 for p in order}
        want_g = {p: 0 for p in order}
        for p, v, n in zip(saved, ratings, played):
            want_r[p] = 1200.0 if np.isnan(v) else v
            want_g[p] = int(n)
        assert cols["rating"].tolist() == [want_r[p] for p in order]
        assert cols["games_played"].tolist() == [want_g[p] for p in order]
        assert (cols["last_period"] == fr.data.NO_PERIOD).all()


@pytest.mark.parametrize("system", ["glicko", "glicko2"])
def test_what_a_run_writes_reads_back_even_at_the_smallest_rd(system, tmp_path):
    """RD 0 is never written (the configs refuse an RD that would underflow to it: the
    decision, since --initial refuses RD <= 0), so a saved table always reads back."""
    from fastrate.cli import main

    games = _csv(tmp_path, "g.csv", "white,black,score,period\na,b,1,0\nb,c,0,1\n")
    more = _csv(tmp_path, "more.csv", "white,black,score,period\na,c,1,2\n")
    out, out2 = str(tmp_path / "out.csv"), str(tmp_path / "out2.csv")
    spec = f"{system}:initial_rd=0.001"
    runner = CliRunner()
    res = runner.invoke(main, ["rate", games, "-s", spec, "--period", "period", "-o", out])
    assert res.exit_code == 0, res.output
    assert min(fr.read_ratings(out).column("rd").to_pylist()) > 0
    res = runner.invoke(main, ["rate", more, "-s", spec, "--period", "period", "--initial",
                               out, "-o", out2])
    assert res.exit_code == 0, res.output
    with pytest.raises(ConfigError, match=r"'initial_rd' of \w+Config must be a float in "
                                          r"\[0.001"):
        fr.systems.SystemSpec.parse(f"{system}:initial_rd=1e-200")


def test_from_frame_names_an_unknown_argument():
    with pytest.raises(fr.errors.InputTypeError,
                       match=r"unknown argument colour=.*column options are white, black"):
        fr.Games.from_frame({"white": ["a"], "black": ["b"], "score": [1]}, colour="x")


def test_weng_lin_far_behind_teams_stay_finite():
    """A team thousands of points behind (teams of two summed at mu = -9,400) underflowed
    the Plackett-Luce strengths to 0 and gave NaN ratings (found by the config fuzzing)."""
    from fastrate import systems
    from fastrate.ratings.weng_lin import WengLinConfig, rate

    data = systems.tiny_data("matches")
    for model in ("plackett_luce", "bradley_terry_full", "thurstone_mosteller_part"):
        r = rate(data, WengLinConfig(mu=-9419.0, model=model))
        assert np.isfinite(r.rating).all() and np.isfinite(r.state["sigma"]).all(), model
        assert np.isfinite(r.predictions).all()


def test_bradley_terry_huge_advantage_predicts_without_overflow():
    """An advantage of -123,302 Elo (inside the range) overflowed 10^x in the expected
    score with a RuntimeWarning (found by the config fuzzing); the score is exactly 0."""
    from fastrate import systems
    from fastrate.ratings.bradley_terry import BTConfig

    data = systems.tiny_data("games")
    r = systems.get("bradley_terry").rate(data, BTConfig(advantage=-123302.0))
    assert np.isfinite(r.rating).all() and np.isfinite(r.predictions).all()


def test_a_nul_in_a_name_is_refused_from_python_too():
    """The readers refuse a NUL in decoded text; names handed in from Python as well."""
    with pytest.raises(InputError, match=r"column 'black' must not hold a NUL character; "
                                         r"found 'a\\x00x' at row 2"):
        fr.Games.from_arrays(["bob", "ann"], ["ann", "a\x00x"], [1, 0])
    fr.Games.from_arrays(["bob"], ["ann"], [1])  # ordinary names pass
