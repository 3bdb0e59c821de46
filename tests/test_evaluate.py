"""fastrate.evaluate: spec strings, burn-in, walk-forward scoring aligned with the input
order (unsorted times), the comparison table, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import metrics as ref

from fastrate import metrics, systems
from fastrate.data import Games
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.evaluate import (
    Evaluation,
    SystemSpec,
    burn_in_mask,
    evaluate,
    evaluate_predictions,
    parse_system,
    presets,
)
from fastrate.ratings import elo
from fastrate.ratings.elo import EloConfig

INF = math.inf


def random_games(n: int = 400, players: int = 16, seed: int = 0, shuffle: bool = True):
    """Games with skill differences, numeric times (periods of length 1) out of order."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 200, players)
    w = rng.integers(0, players, n)
    b = (w + rng.integers(1, players, n)) % players
    p = 1 / (1 + 10 ** ((skill[b] - skill[w]) / 400))
    u = rng.random(n)
    score = np.where(u < p * 0.9, 1.0, np.where(u < p * 0.9 + 0.1, 0.5, 0.0))
    time = np.sort(rng.random(n) * 8)
    if shuffle:
        perm = rng.permutation(n)
        w, b, score, time = w[perm], b[perm], score[perm], time[perm]
    names = [f"p{i}" for i in range(players)]
    return dict(white=np.array(names, dtype=object)[w], black=np.array(names, dtype=object)[b],
                score=score, time=time)


def make_games(cols: dict, period=1.0) -> Games:
    return Games.from_arrays(cols["white"], cols["black"], cols["score"], time=cols["time"],
                             period=period)


@pytest.fixture(scope="module")
def unsorted():
    cols = random_games()
    games = make_games(cols)
    assert games.order is not None  # the input really was out of order
    return cols, games


# -- spec strings ---------------------------------------------------------------------


def test_parse_plain_and_options():
    s = SystemSpec.parse("elo")
    assert (s.name, s.config, s.label) == ("elo", EloConfig(), "elo")
    s = SystemSpec.parse("elo:k=24,advantage=65")
    assert s.config == EloConfig(k=24.0, advantage=65.0)
    assert s.label == "elo:k=24,advantage=65"
    s = SystemSpec.parse("  ELO : k = 24 , cap=400 ")
    assert s.config == EloConfig(k=24.0, cap=400.0)
    name, module, config = parse_system("elo:k=20")
    assert name == "elo" and module is elo and config == EloConfig(k=20)


@pytest.mark.parametrize("spec,expected", [
    ("elo:cap=none", EloConfig(cap=None)),
    ("elo:cap=400", EloConfig(cap=400.0)),
    ("elo:k=1e1,scale=inf", None),  # scale must be finite: the config says so
    ("elo:margin=fte_nfl,regression=0.25", EloConfig(margin="fte_nfl", regression=0.25)),
    ("elo:margin='fte_nba'", EloConfig(margin="fte_nba")),
    ("elo:k_schedule=games,k_table=30:40/inf:20",
     EloConfig(k_schedule="games", k_table=((30.0, 40.0), (INF, 20.0)))),
    ("elo:k_schedule=rating,k_table=[[2100, 32], [2400, 24], [inf, 16]]",
     EloConfig(k_schedule="rating", k_table=((2100.0, 32.0), (2400.0, 24.0), (INF, 16.0)))),
    ("elo:k_schedule=games,k_table=((10,40),(Infinity,20))",
     EloConfig(k_schedule="games", k_table=((10.0, 40.0), (INF, 20.0)))),
    ("elo:k_schedule=power,k_power=250:5:0.4", EloConfig(k_schedule="power")),
    ("elo:k_schedule=power,k_power=[300, 6, 0.5]",
     EloConfig(k_schedule="power", k_power=(300.0, 6.0, 0.5))),
    ("elo:k_schedule=power,k_power=300/6/0.5",
     EloConfig(k_schedule="power", k_power=(300.0, 6.0, 0.5))),
])
def test_parse_value_types(spec, expected):
    if expected is None:
        with pytest.raises(ConfigError, match=r"'scale' of EloConfig must be"):
            SystemSpec.parse(spec)
        return
    config = SystemSpec.parse(spec).config
    assert config == expected
    assert all(isinstance(v, float) for row in config.k_table for v in row)


@pytest.mark.parametrize("preset", ["fide", "fivethirtyeight_nfl", "fivethirtyeight_nba",
                                    "fivethirtyeight_tennis", "world_football"])
def test_presets(preset):
    assert preset in presets("elo")
    s = SystemSpec.parse(f"elo@{preset}")
    assert s.config == getattr(EloConfig, preset)()
    assert s.label == f"elo@{preset}"
    # options after a preset override it
    assert SystemSpec.parse(f"elo@{preset}:k=25").config == getattr(EloConfig, preset)(k=25)


@pytest.mark.parametrize("config", [
    EloConfig(),
    EloConfig(k=20, advantage=65.5),
    EloConfig(k=1 / 3, cap=None, regression=1 / 3, regression_mean=1505.0),
    EloConfig.fide(),
    EloConfig.fivethirtyeight_nfl(),
    EloConfig(k_schedule="rating", k_table=((2100.0, 32.0), (INF, 16.0)), update="period"),
    EloConfig(k_schedule="power", k_power=(300.0, 6.0, 0.5), initial_rating=-5.0),
])
def test_label_of_a_config_parses_back(config):
    s = SystemSpec.of(("elo", config))
    assert SystemSpec.parse(s.spec).config == config
    assert s.label == s.spec
    assert SystemSpec.of(config).spec == s.spec  # the system is found from the config type


@settings(max_examples=40)
@given(k=st.floats(0, 1e6), adv=st.floats(-1e4, 1e4), cap=st.none() | st.floats(1e-3, 1e4),
       bound=st.floats(-1e4, 1e4))
def test_label_round_trip_property(k, adv, cap, bound):
    config = EloConfig(k=k, advantage=adv, cap=cap, k_schedule="rating",
                       k_table=((bound, k), (INF, 10.0)))
    assert SystemSpec.parse(SystemSpec.of(("elo", config)).spec).config == config


def test_system_objects():
    cfg = EloConfig(k=10)
    assert SystemSpec.of(("elo", {"k": 10})).config == cfg
    assert SystemSpec.of(("elo", None)).config == EloConfig()
    spec = SystemSpec("elo", cfg, "mine")
    assert SystemSpec.of(spec) is spec and spec.label == "mine"
    assert spec.module is elo


@pytest.mark.parametrize("spec,exc,match", [
    ("nosuch", ConfigError, r"unknown rating system 'nosuch'; known systems: elo, glicko, "
     r"glicko2"),
    ("elo:nosuch=1", ConfigError, r"unknown option 'nosuch' for elo in spec 'elo:nosuch=1'; "
     r"options of EloConfig: k, scale, initial_rating"),
    ("elo:k=abc", ConfigError, r"option 'k' of elo \(in spec 'elo:k=abc'\) must be a number; "
     r"got 'abc'"),
    ("elo:k", ConfigError, r"option 'k' in system spec 'elo:k' must be written key=value"),
    ("elo:=3", ConfigError, r"must be written key=value"),
    ("elo:k=1,k=2", ConfigError, r"option 'k' is given twice"),
    ("elo@foo", ConfigError, r"unknown preset 'foo' for elo; presets: fide, "),
    ("elo:k_power=1:2", ConfigError, r"option 'k_power' of elo .* takes 3 values; got 2"),
    ("elo:k_table=[[1,2]", ConfigError, r"unbalanced brackets or quotes"),
    ("elo:k=-3", ConfigError, r"'k' of EloConfig must be a float in \[0, 1e\+06\]; got -3.0"),
    ("elo:cap=0", ConfigError, r"'cap' of EloConfig must be"),
    ("elo:k_schedule=weekly", ConfigError, r"'k_schedule' of EloConfig must be one of"),
    ("3elo", ConfigError, r"cannot read system spec '3elo': write name\[@preset\]"),
    ("", ConfigError, r"cannot read system spec ''"),
    (42, InputTypeError, r"a system spec must be a string"),
])
def test_bad_specs(spec, exc, match):
    with pytest.raises(exc, match=match):
        SystemSpec.parse(spec)


def test_bad_system_objects(monkeypatch):
    with pytest.raises(InputTypeError, match=r"config for 'elo' must be a EloConfig; got int"):
        SystemSpec.of(("elo", 3))
    with pytest.raises(InputTypeError, match=r"a system must be a spec string"):
        SystemSpec.of(3.5)
    monkeypatch.setitem(systems.REGISTRY, "fake", systems.RatingSystem(
        "fake", "fastrate.ratings.no_such_module", "FakeConfig", "a missing module"))
    with pytest.raises(ConfigError, match=r"rating system 'fake' is not available"):
        SystemSpec.parse("fake")


def test_glicko_specs():
    glicko = pytest.importorskip("fastrate.ratings.glicko")
    s = SystemSpec.parse("glicko")
    assert s.name == "glicko" and s.config == glicko.GlickoConfig()
    assert SystemSpec.parse(SystemSpec.of(s.config).spec).config == s.config


def test_glicko2_specs():
    glicko2 = pytest.importorskip("fastrate.ratings.glicko2")
    s = SystemSpec.parse("glicko2:tau=0.3")
    assert s.config == glicko2.Glicko2Config(tau=0.3)
    assert parse_system("glicko2")[1] is glicko2


# -- burn-in --------------------------------------------------------------------------


@st.composite
def period_lists(draw):
    n = draw(st.integers(1, 40))
    steps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 1, 3]), min_size=n, max_size=n))
    return (np.cumsum(steps) + draw(st.integers(-5, 5))).tolist()


@settings(max_examples=50)
@given(period_lists(), st.integers(0, 12))
def test_burn_in_mask_equals_reference(periods, k):
    n = len(periods)
    games = Games.from_arrays(np.zeros(n, np.int64), np.ones(n, np.int64), np.ones(n),
                              period=np.array(periods), players=["a", "b"])
    mask = burn_in_mask(games, k)
    assert mask.dtype == np.bool_
    assert mask.tolist() == ref.burn_in_mask(periods, k)
    distinct = sorted(set(periods))
    excluded = set(distinct[:k])
    assert mask.tolist() == [q not in excluded for q in periods]  # exactly the first k


def test_burn_in_mask_with_unsorted_times(unsorted):
    cols, games = unsorted
    period_in = np.floor(cols["time"]).astype(int)  # input order
    for k in range(0, 10):
        mask = burn_in_mask(games, k)  # stored order
        cut = sorted(set(period_in))[k] if k < len(set(period_in)) else INF
        np.testing.assert_array_equal(games.to_input_order(mask), period_in >= cut)


def test_burn_in_zero_needs_no_periods():
    games = Games.from_arrays(["a", "b"], ["b", "c"], [1, 0])
    assert burn_in_mask(games, 0).tolist() == [True, True]
    with pytest.raises(InputError, match=r"a burn-in of 2 period\(s\) needs games with rating "
                       r"periods"):
        burn_in_mask(games, 2)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ConfigError, match=r"burn_in must be a whole number of periods"):
            burn_in_mask(games, bad)
    with pytest.raises(InputTypeError, match=r"burn_in_mask\(\) needs a fastrate.Games"):
        burn_in_mask([1, 2], 1)


# -- evaluate ---------------------------------------------------------------------------


def _expected_row(predictions, y, mask, draws="exclude"):
    p = list(predictions)
    return {"log_loss": ref.log_loss(p, y, mask=mask),
            "deviance": ref.binomial_deviance(p, y, mask=mask),
            "brier": ref.brier(p, y, mask=mask), "rmse": ref.rmse(p, y, mask=mask),
            "accuracy": ref.accuracy(p, y, mask=mask, draws=draws)}


@pytest.mark.parametrize("burn_in", [0, 1, 3])
@pytest.mark.parametrize("draws", ["exclude", "half"])
def test_evaluate_aligns_with_input_order(unsorted, burn_in, draws):
    """Scores computed from the raw input columns (input order) with the reference."""
    cols, games = unsorted
    specs = ["elo", "elo:k=16", ("elo", EloConfig(k=10, advantage=30))]
    ev = evaluate(games, specs, burn_in=burn_in, draws=draws)
    assert ev.labels == ["elo", "elo:k=16", "elo:k=10,advantage=30"]
    period_in = np.floor(cols["time"]).astype(int)
    cut = sorted(set(period_in))[burn_in]
    mask_in = (period_in >= cut).tolist()
    y_in = cols["score"].tolist()
    for label, config in [("elo", EloConfig()), ("elo:k=16", EloConfig(k=16)),
                          ("elo:k=10,advantage=30", EloConfig(k=10, advantage=30))]:
        pred = elo.rate(games, config).predictions  # input order
        np.testing.assert_array_equal(ev.ratings[label].predictions, pred)
        row = ev[label]
        assert row["n"] == sum(mask_in)
        want = _expected_row(pred, y_in, mask_in, draws)
        for k, v in want.items():
            assert row[k] == pytest.approx(v, rel=1e-9), (label, k)
        table = ev.calibration[label]
        want_t = ref.calibration(list(pred), y_in, 10, mask=mask_in)
        assert table["count"].tolist() == want_t["count"]
        assert table["count"].sum() == row["n"]


def test_unsorted_and_sorted_input_score_the_same(unsorted):
    cols, games = unsorted
    order = np.argsort(cols["time"], kind="stable")
    sorted_games = make_games({k: v[order] for k, v in cols.items()})
    assert sorted_games.order is None
    a = evaluate(games, ["elo", "elo:k=20"], burn_in=2)
    b = evaluate(sorted_games, ["elo", "elo:k=20"], burn_in=2)
    assert a.rows == b.rows
    # a permutation of predictions would change the scores
    pred = a.ratings["elo"].predictions
    assert evaluate_predictions(games, pred[::-1], burn_in=2).rows[0] != a["elo"] | {
        "system": "predictions"}


def test_evaluate_predictions(unsorted):
    cols, games = unsorted
    ratings = elo.rate(games, EloConfig(k=20))
    ev = evaluate(games, ["elo:k=20"], burn_in=1)
    from_array = evaluate_predictions(games, ratings.predictions, burn_in=1)
    assert from_array.labels == ["predictions"]
    assert {k: v for k, v in from_array.rows[0].items() if k != "system"} == {
        k: v for k, v in ev.rows[0].items() if k != "system"}
    from_ratings = evaluate_predictions(games, ratings, burn_in=1)
    assert from_ratings.labels == ["elo"] and from_ratings.ratings["elo"] is ratings
    both = evaluate_predictions(games, {"a": ratings.predictions, "b": ratings}, burn_in=1)
    assert both.labels == ["a", "b"] and both.rows[0]["log_loss"] == both.rows[1]["log_loss"]
    coin = evaluate_predictions(games, np.full(games.n_games, 0.5), name="coin")
    assert coin["coin"]["log_loss"] == pytest.approx(math.log(2))
    assert coin["coin"]["n"] == games.n_games


def test_elo_beats_coin_flip_and_best():
    games = make_games(random_games(n=2000, seed=4))
    ev = evaluate(games, ["elo:k=16", "elo:k=400"], burn_in=2)
    assert ev["elo:k=16"]["log_loss"] < math.log(2)
    assert ev.best() == "elo:k=16" == ev.best("brier")
    assert ev.best("accuracy") in ev.labels
    np.testing.assert_array_equal(ev.column("n"), [ev.n_scored] * 2)


def test_evaluation_table_outputs(unsorted):
    _, games = unsorted
    calls = []
    ev = evaluate(games, ["elo", "elo@fide", "elo"], burn_in=1,
                  on_system=lambda label, r: calls.append((label, r.system)))
    assert isinstance(ev, Evaluation) and len(ev) == 3
    assert ev.labels == ["elo", "elo@fide", "elo #2"]  # duplicate labels are numbered
    assert calls == [("elo", "elo"), ("elo@fide", "elo"), ("elo #2", "elo")]
    table = ev.to_arrow()
    assert table.column_names == ["system", "n", "log_loss", "deviance", "brier", "rmse",
                                  "accuracy"]
    assert table.column("system").to_pylist() == ev.labels
    assert table.num_rows == 3
    frame = ev.to_frame()
    assert list(frame["system"]) == ev.labels
    text = str(ev)
    lines = text.splitlines()
    assert lines[0].startswith(f"walk-forward evaluation: {ev.n_scored:,} of 400 games scored, "
                               "first 1 period(s) left out as burn-in; accuracy: draws "
                               "excluded")
    assert lines[1].split() == ["system", "n", *metrics.METRICS]
    assert lines[3].split()[0] == "elo" and lines[4].split()[0] == "elo@fide"
    assert f"{ev['elo']['log_loss']:.4f}" in lines[3]
    assert "Evaluation(3 systems" in repr(ev)
    with pytest.raises(KeyError, match=r"no system 'glicko'"):
        ev["glicko"]
    with pytest.raises(KeyError, match=r"unknown column 'auc'"):
        ev.column("auc")
    assert "accuracy: a draw counts half" in str(evaluate(games, "elo", draws="half"))


def test_evaluate_single_system_forms(unsorted):
    _, games = unsorted
    a = evaluate(games, "elo:k=12")
    b = evaluate(games, ("elo", EloConfig(k=12)))
    c = evaluate(games, [EloConfig(k=12)])
    d = evaluate(games, [SystemSpec("elo", EloConfig(k=12), "twelve")])
    assert a.rows[0]["log_loss"] == b.rows[0]["log_loss"] == c.rows[0]["log_loss"]
    assert d.labels == ["twelve"]


def test_evaluate_passes_initial_ratings(unsorted):
    _, games = unsorted
    initial = {"p0": 1900.0, "p1": 1200.0}
    ev = evaluate(games, ["elo"], initial=initial)
    pred = elo.rate(games, EloConfig(), initial=initial).predictions
    np.testing.assert_array_equal(ev.ratings["elo"].predictions, pred)
    assert ev["elo"]["log_loss"] != evaluate(games, ["elo"])["elo"]["log_loss"]


def test_evaluate_all_systems_if_available(unsorted):
    pytest.importorskip("fastrate.ratings.glicko")
    pytest.importorskip("fastrate.ratings.glicko2")
    _, games = unsorted
    ev = evaluate(games, ["elo", "glicko", "glicko2", "glicko2:tau=0.3"], burn_in=2)
    assert ev.labels == ["elo", "glicko", "glicko2", "glicko2:tau=0.3"]
    for row in ev.rows:
        assert row["n"] == ev.n_scored
        assert 0 < row["log_loss"] < 1.0 and 0 <= row["accuracy"] <= 1


def test_evaluate_bad_input(unsorted):
    _, games = unsorted
    with pytest.raises(InputTypeError, match=r"evaluation needs a fastrate.Games; got list"):
        evaluate([1, 2], ["elo"])
    with pytest.raises(ConfigError, match=r"no systems to evaluate"):
        evaluate(games, [])
    with pytest.raises(ConfigError, match=r"unknown rating system 'elos'"):
        evaluate(games, ["elo", "elos"])
    with pytest.raises(InputError, match=r"a burn-in of 8 period\(s\) leaves no games to "
                       r"score: the games span 8 period\(s\); use a smaller burn_in"):
        evaluate(games, ["elo"], burn_in=8)
    with pytest.raises(ConfigError, match=r"burn_in must be a whole number"):
        evaluate(games, ["elo"], burn_in=-1)
    with pytest.raises(ConfigError, match=r"draws must be one of 'exclude', 'half'"):
        evaluate(games, ["elo"], draws="drop")
    with pytest.raises(ConfigError, match=r"bins must be an integer >= 1"):
        evaluate(games, ["elo"], bins=0)
    no_periods = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0])
    with pytest.raises(InputError, match=r"needs games with rating periods"):
        evaluate(no_periods, ["elo"], burn_in=1)


def test_evaluate_predictions_bad_input(unsorted):
    _, games = unsorted
    n = games.n_games
    with pytest.raises(InputError, match=rf"predictions of p must have one value per game "
                       rf"\({n}\); got 3"):
        evaluate_predictions(games, [0.5, 0.5, 0.5], name="p")
    bad = np.full(n, 0.5)
    bad[7] = 1.5
    with pytest.raises(InputError, match=r"column 'predictions of x' must be in \[0, 1\]; "
                       r"found 1.5 at row 8"):
        evaluate_predictions(games, {"x": bad})
    bad[7] = np.nan
    with pytest.raises(InputError, match=r"must be a finite number"):
        evaluate_predictions(games, bad)
