"""fastrate tune: search spaces, strategies, honest windows, workers, Dask, the CLI.

The checks are independent of the search code: the grid's best is compared with a hand
loop over evaluate(), the coordinate search with a fine grid, the windows with the
games' own dates, and the parallel runs (threads, a real Dask LocalCluster) with the
serial one, bit for bit."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import fastrate
from fastrate.cli import main
from fastrate.data import Games
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import evaluate
from fastrate.systems import REGISTRY, SystemSpec
from fastrate.tune import Space, default_spaces, tune

SPLIT = "2000-01-01"


@pytest.fixture(scope="module")
def football():
    return fastrate.load_example("football", period="year")


# ----------------------------------------------------------------------------------
# spaces


def test_space_parsing():
    sp = Space.parse("elo:k=10..60,advantage=0..150,k_schedule=constant|power,cap=400")
    kinds = {d.key: d.kind for d in sp.dims}
    assert kinds == {"k": "float", "advantage": "float", "k_schedule": "choice"}
    assert sp.spec({"k": 20.0, "advantage": 65.5, "k_schedule": "power"}) == (
        "elo:k=20,advantage=65.5,k_schedule=power,cap=400")
    tau = Space.parse("glicko2:tau=0.1..1.2:log").dims[0]
    assert tau.log and tau.value(0.0) == 0.1 and tau.value(1.0) == 1.2
    assert tau.value(0.5) == round(math.sqrt(0.12), 4)
    ints = Space.parse("elom:k_games=10..2000:int").dims[0]
    assert ints.kind == "int" and all(isinstance(v, int) for v in ints.grid(7))
    # a field typed int takes whole numbers without :int
    assert Space.parse("glicko2:max_iterations=10..50").dims[0].kind == "int"


def test_tuple_items_and_presets():
    sp = Space.parse("elo@fivethirtyeight_tennis:k_power[2]=0.2..0.6")
    spec = sp.spec({"k_power[2]": 0.3})
    assert spec == "elo@fivethirtyeight_tennis:k_power=250:5:0.3"
    assert SystemSpec.parse(spec).config.k_power == (250.0, 5.0, 0.3)
    sp = Space.parse("elo:k_schedule=power,k_power=100:2:0.5,k_power[0]=50..500:log")
    assert sp.spec({"k_power[0]": 80.0}) == "elo:k_schedule=power,k_power=80:2:0.5"


@pytest.mark.parametrize("text, message", [
    ("elo:kk=1..2", "unknown option 'kk'"),
    ("elo:k=5..1", "lo < hi"),
    ("elo:k=0..10:log", "above 0"),
    ("elo:k=1..2,k=3", "given twice"),
    ("elo:k_power[5]=1..2", "has 3 items"),
    ("elo:k_power=1:2:3|4:5:6,k_power[0]=1..2", "both whole and by item"),
    ("elo:k=", "key=value"),
    ("nosuch:k=1..2", "unknown rating system"),
    ("elo:k_schedule=games", "k_table"),
])
def test_bad_spaces_are_refused(text, message):
    with pytest.raises(ConfigError, match=message):
        Space.parse(text)


def test_registered_default_spaces_parse():
    for entry in REGISTRY.values():
        if entry.space:
            sp = Space.parse(entry.space)
            assert sp.system == entry.name and sp.dims
            SystemSpec.parse(sp.spec({d.key: d.grid(3)[-1] for d in sp.dims}))


def test_default_spaces_fit_the_data(football):
    names = [s.split(":")[0] for s in default_spaces(football)]
    assert names[:3] == ["elo", "glicko", "glicko2"]
    assert all(REGISTRY[n].data == "games" for n in names)
    no_periods = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0])
    assert not any(s.startswith(("glicko", "bradley")) for s in default_spaces(no_periods))
    # a winner/loser layout: every first player won; advantage would learn the layout
    wl = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 1, 1])
    assert all("advantage" not in s for s in default_spaces(wl))
    assert any("advantage" in s for s in default_spaces(football))


# ----------------------------------------------------------------------------------
# strategies against independent checks


def test_grid_best_equals_a_hand_loop_over_evaluate(football):
    result = tune(football, "elo:k=10..50,advantage=0|100", strategy="grid", grid_points=3,
                  score_from=SPLIT)
    assert [t["spec"] for t in result.trials] == [
        "elo:k=10,advantage=0", "elo:k=10,advantage=100", "elo:k=30,advantage=0",
        "elo:k=30,advantage=100", "elo:k=50,advantage=0", "elo:k=50,advantage=100"]
    hand = {}
    for k in (10, 30, 50):
        for a in (0, 100):
            row = evaluate(football, [f"elo:k={k},advantage={a}"], score_until=SPLIT).rows[0]
            hand[f"elo:k={k},advantage={a}"] = row
    for t in result.trials:
        for m in ("log_loss", "brier", "accuracy"):
            assert t[m] == hand[t["spec"]][m]
    best = min(hand, key=lambda s: hand[s]["log_loss"])
    assert result.best == best
    out = evaluate(football, [best], score_from=SPLIT).rows[0]
    assert result.score == {k: out[k] for k in result.score}
    assert result.fit["n"] == hand[best]["n"]


def test_coordinate_search_finds_the_fine_grid_optimum(football):
    space = "elo:k=5..120:log,advantage=0..250"
    result = tune(football, space, score_from=SPLIT, trials=120)
    assert len(result.trials) <= 120
    fine = tune(football, space, strategy="grid", grid_points=15, score_from=SPLIT)
    best_grid = min(t["log_loss"] for t in fine.trials)
    assert result.fit["log_loss"] <= best_grid + 1e-5


def test_random_is_seeded_and_within_the_ranges(football):
    space = "elo:k=5..80:log,advantage=0..200:int,margin=none|world_football"
    a = tune(football, space, strategy="random", trials=8, seed=3, score_from=SPLIT)
    b = tune(football, space, strategy="random", trials=8, seed=3, score_from=SPLIT)
    c = tune(football, space, strategy="random", trials=8, seed=4, score_from=SPLIT)
    assert a.to_arrow().equals(b.to_arrow())
    assert [t["spec"] for t in a.trials] != [t["spec"] for t in c.trials]
    for t in a.trials:
        assert 5 <= t["k"] <= 80 and 0 <= t["advantage"] <= 200
        assert t["advantage"] == int(t["advantage"])
        assert t["margin"] in ("none", "world_football")


def test_trials_table_columns(football, tmp_path):
    r = tune(football, ["elo:k=10|20", "glicko:c=30|60"], score_from=SPLIT)
    table = r.to_arrow()
    assert table.column_names == ["trial", "system", "spec", "k", "c", "log_loss", "deviance",
                                  "brier", "rmse", "accuracy"]
    assert table.column("k").to_pylist() == [10.0, 20.0, None, None]
    assert table.column("trial").to_pylist() == [1, 2, 3, 4]
    d = r.to_dict()
    assert {"best", "fit", "score", "trials"} <= set(d)
    json.dumps(d, allow_nan=False)


# ----------------------------------------------------------------------------------
# honest windows


def test_tuning_never_sees_the_scored_games(football):
    """Changing every result from score_from on changes no trial, only the final score."""
    after = football.time >= np.datetime64(SPLIT, "ns")
    flipped = Games.from_arrays(football.players.names[football.white],
                                football.players.names[football.black],
                                np.where(after, 1.0 - football.score, football.score),
                                time=football.time, period="year", weight=football.weight,
                                margin=np.where(after, -football.margin, football.margin),
                                neutral=football.neutral)
    a = tune(football, "elo:k=10|20|40", score_from=SPLIT)
    b = tune(flipped, "elo:k=10|20|40", score_from=SPLIT)
    assert [t["log_loss"] for t in a.trials] == [t["log_loss"] for t in b.trials]
    assert a.best == b.best and a.fit == b.fit
    assert a.score != b.score
    roles = {w.role: w for w in a.windows}
    assert roles["fit"].n == int((football.time < np.datetime64(SPLIT, "ns")).sum())
    assert roles["scored"].first.startswith("2000-01")


def test_in_sample_without_a_split_is_said(football):
    r = tune(football, "elo:k=10|20")
    assert r.fit == r.score
    assert any("in sample" in n for n in r.notes)


def test_errors(football):
    with pytest.raises(ConfigError, match="metric 'auc'"):
        tune(football, "elo:k=10|20", metric="auc")
    with pytest.raises(ConfigError, match="strategy"):
        tune(football, "elo:k=10|20", strategy="bayes")
    with pytest.raises(InputError, match="fit window holds no games"):
        tune(football, "elo:k=10|20", score_from="1800-01-01")
    with pytest.raises(ConfigError, match="once per rating period"):
        tune(Games.from_arrays(["a", "b"], ["b", "a"], [1, 0]), "glicko:c=10|20")
    with pytest.raises(ConfigError, match="rates matches"):
        tune(football, "trueskill:beta=2|4")


def test_accuracy_is_maximised(football):
    r = tune(football, "elo:k=1|40", metric="accuracy", score_from=SPLIT)
    accs = {t["spec"]: t["accuracy"] for t in r.trials}
    assert r.best == max(accs, key=accs.get)


def test_matches_are_tuned_by_the_winner_log_loss():
    f1 = fastrate.load_example("f1", period="season")
    r = tune(f1, "trueskill:beta=2|6", score_from="2000-01-01")
    assert r.metric == "winner_log_loss" and r.unit == "matches"
    assert r.best == min(r.trials, key=lambda t: t["winner_log_loss"])["spec"]


def test_fastrate_tune_is_callable_and_lazy(football):
    assert fastrate.tune(football, "elo:k=10|20").best == tune(football, "elo:k=10|20").best
    code = ("import sys, fastrate, fastrate.tune; "
            "assert 'dask' not in sys.modules and 'distributed' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------------
# parallel


def test_results_do_not_depend_on_the_number_of_workers(football):
    space = "elo:k=5..80:log,advantage=0..200,margin=none|world_football"
    one = tune(football, space, score_from=SPLIT, trials=30)
    two = tune(football, space, score_from=SPLIT, trials=30, workers=2)
    three = tune(football, space, score_from=SPLIT, trials=30, workers=3,
                 strategy="coordinate")
    assert one.to_arrow().equals(two.to_arrow()) and one.to_arrow().equals(three.to_arrow())
    assert one.best == two.best and one.score == two.score


def test_dask_local_cluster_same_bits_games_scattered_once(football):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        scatters, mapped = [], []
        scatter, map_ = client.scatter, client.map

        def spy_scatter(data, **kw):
            scatters.append((type(data).__name__, kw.get("broadcast")))
            return scatter(data, **kw)

        def spy_map(fn, *iterables, **kw):
            mapped.append({type(x).__name__ for x in iterables[0]})
            return map_(fn, *iterables, **kw)

        client.scatter, client.map = spy_scatter, spy_map
        space = "elo:k=5..80:log,advantage=0..200"
        remote = tune(football, space, score_from=SPLIT, trials=25, dask=client)
        # --scheduler tcp://HOST:PORT: a client of its own, closed after the run
        by_address = tune(football, "elo:k=10|20|40", score_from=SPLIT,
                          dask=cluster.scheduler_address)
    local = tune(football, space, score_from=SPLIT, trials=25)
    assert remote.to_arrow().equals(local.to_arrow())
    assert remote.best == local.best and remote.score == local.score
    assert by_address.to_arrow().equals(
        tune(football, "elo:k=10|20|40", score_from=SPLIT).to_arrow())
    assert scatters == [("Games", True)]
    assert mapped and all(m == {"Future"} for m in mapped)


# ----------------------------------------------------------------------------------
# CLI


def test_cli_json_and_tables(tmp_path, football):
    runner = CliRunner()
    base = ["tune", "--example", "football", "--period", "year", "-s", "elo:k=10|20|40",
            "--score-from", SPLIT]
    res = runner.invoke(main, [*base, "--format", "json"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    direct = tune(football, "elo:k=10|20|40", score_from=SPLIT)
    assert obj["best"] == direct.best == "elo:k=40"
    assert obj["fit"]["log_loss"] == direct.fit["log_loss"]
    assert obj["score"]["log_loss"] == direct.score["log_loss"]
    assert [t["spec"] for t in obj["trials"]] == ["elo:k=10", "elo:k=20", "elo:k=40"]
    res = runner.invoke(main, [*base, "-o", str(tmp_path / "trials.csv")])
    assert res.exit_code == 0, res.output
    assert "best: elo:k=40" in res.stdout
    table = pacsv.read_csv(tmp_path / "trials.csv")
    assert table.column_names == ["trial", "system", "spec", "k", "log_loss", "deviance",
                                  "brier", "rmse", "accuracy"]
    res = runner.invoke(main, [*base, "-o", str(tmp_path / "trials.parquet"), "-j", "2"])
    assert res.exit_code == 0, res.output
    assert pq.read_table(tmp_path / "trials.parquet").num_rows == 3
    res = runner.invoke(main, [*base, "-o", str(tmp_path / "r.json")])
    assert json.loads((tmp_path / "r.json").read_text())["best"] == "elo:k=40"


def test_cli_errors():
    runner = CliRunner()
    res = runner.invoke(main, ["tune", "--example", "football", "-s", "elo:k=5..1"])
    assert res.exit_code == 1 and "lo < hi" in res.output
    res = runner.invoke(main, ["tune", "--example", "football", "--dask", "--scheduler",
                               "tcp://127.0.0.1:1", "-s", "elo:k=1|2"])
    assert res.exit_code == 1 and "not both" in res.output


def test_progress_reports_every_trial(football):
    seen = []
    tune(football, "elo:k=10|20|40", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    res = CliRunner().invoke(main, ["tune", "--example", "football", "--period", "year", "-s",
                                    "elo:k=10|20", "--progress"])
    assert res.exit_code == 0, res.output
    assert "tuning" in res.stderr and "/2 " in res.stderr


def test_default_sweep_says_which_systems_it_left_out():
    games = fastrate.load_example("football")  # dates, no periods
    r = tune(games, None, score_from=SPLIT, trials=3)
    assert {t["system"] for t in r.trials} == {"elo"}
    assert any("glicko, glicko2" in n for n in r.notes)


# ----------------------------------------------------------------------------------
# rating resets (538's NFL franchise resets), as evaluate takes them


@pytest.fixture(scope="module")
def nfl_files(shared_data):
    return shared_data / "fte_nfl_elo_game"


def test_tune_with_resets_scores_as_evaluate(nfl_files):
    import pyarrow.csv as csv

    raw = csv.read_csv(nfl_files / "nfl_games.csv")
    games = Games.from_frame(raw, white="team1", black="team2", score="result1",
                             period="season", neutral="neutral")
    initial = csv.read_csv(nfl_files / "initial_elos.csv").rename_columns(["player", "rating"])
    resets = csv.read_csv(nfl_files / "season_resets.csv").rename_columns(
        ["player", "period", "value"])
    space = "elo:k=15|20|25,advantage=55|65"
    res = tune(games, space, burn_in=2, score_from=1970, initial=initial, resets=resets)
    without = tune(games, space, burn_in=2, score_from=1970, initial=initial)
    assert res.fit["log_loss"] != without.fit["log_loss"]  # the resets matter
    for row in res.trials:
        # every trial's fit score is evaluate()'s on the fit window, with the same resets
        ev = evaluate(games, [row["spec"]], burn_in=2, score_until=1970, initial=initial,
                      resets=resets)
        assert row["log_loss"] == ev.rows[0]["log_loss"]
    best = evaluate(games, [res.best], burn_in=2, score_from=1970, initial=initial,
                    resets=resets)
    assert res.score["log_loss"] == best.rows[0]["log_loss"]
    # every worker count and the serial run agree to the bit
    assert tune(games, space, burn_in=2, score_from=1970, initial=initial, resets=resets,
                workers=2).trials == res.trials


def test_tune_resets_errors(football):
    resets = {"player": ["Brazil"], "period": [1990], "value": [1500.0]}
    with pytest.raises(ConfigError, match="none of the systems searched takes rating resets"):
        tune(football, "glicko:c=10|20", resets=resets)


def test_cli_tune_resets_as_evaluate(nfl_files):
    runner = CliRunner()
    cols = ["--white", "team1", "--black", "team2", "--score", "result1", "--period",
            "season", "--neutral", "neutral", "--initial", str(nfl_files / "initial_elos.csv"),
            "--resets", str(nfl_files / "season_resets.csv")]
    res = runner.invoke(main, ["tune", str(nfl_files / "nfl_games.csv"), "-s",
                               "elo:k=20|25", "--score-from", "1970", "--format", "json", *cols])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    ev = runner.invoke(main, ["evaluate", str(nfl_files / "nfl_games.csv"), "-s", obj["best"],
                              "--score-from", "1970", "--format", "json", *cols])
    assert ev.exit_code == 0, ev.output
    rows = json.loads(ev.stdout)
    row = rows[0] if isinstance(rows, list) else rows["systems"][0]
    assert obj["score"]["log_loss"] == row["log_loss"]
