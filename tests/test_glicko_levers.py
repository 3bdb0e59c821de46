"""The Glicko family's PlayerRatings levers (issue 13): newcomers' rating and RD from a
per-game column (``entry``, ``entry_rd``) and counting only the rating periods that
have games (``skip_empty_periods``, PlayerRatings' ``Lag``), for Glicko, Glicko-2 and
Stephenson.

Checked against the pure-Python references (tests/reference: PlayerRatings' own lag
bookkeeping written out, not the kernels' dense period count) on random inputs; runs
continued from the saved state (Ratings, Arrow, CSV), chunked runs and the CLI against
the full run, bit for bit; bad columns refused naming column and row."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import glicko as ref_glicko
from reference import glicko2 as ref_glicko2
from reference import stephenson as ref_steph

import fastrate
from fastrate import streaming
from fastrate.cli import main
from fastrate.data import Games
from fastrate.data.games import ENTRY_RD_RANGE
from fastrate.data.state import NO_PERIOD
from fastrate.errors import InputError
from fastrate.ratings import glicko, glicko2, stephenson
from fastrate.ratings.glicko import MAX_RD, MIN_RD, GlickoConfig
from fastrate.ratings.glicko2 import Glicko2Config
from fastrate.ratings.stephenson import StephensonConfig
from fastrate.systems import SystemSpec

NAN = math.nan


# ----------------------------------------------------------------------------------
# random scenarios: periods with gaps (empty periods), entry columns with holes


@st.composite
def scenarios(draw):
    n_players = draw(st.integers(2, 7))
    n_games = draw(st.integers(1, 40))
    start = draw(st.integers(-5, 5))
    steps = draw(st.lists(st.sampled_from([0, 0, 0, 1, 1, 2, 3, 7]), min_size=n_games,
                          max_size=n_games))
    periods = (start + np.cumsum([0, *steps[1:]])).tolist()
    pairs = draw(st.lists(st.tuples(st.integers(0, n_players - 1),
                                    st.integers(1, n_players - 1)),
                          min_size=n_games, max_size=n_games))
    white = [f"p{a}" for a, _ in pairs]
    black = [f"p{(a + d) % n_players}" for a, d in pairs]
    score = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n_games,
                          max_size=n_games))
    entry = entry_rd = None
    if draw(st.booleans()):
        entry = [draw(st.one_of(st.just(NAN), st.floats(1200.0, 2600.0))) for _ in white]
    if draw(st.booleans()):
        entry_rd = [draw(st.one_of(st.just(NAN), st.floats(30.0, 340.0))) for _ in white]
    initial = None
    if draw(st.booleans()):
        names = sorted(set(white + black) | {f"q{k}" for k in range(draw(st.integers(0, 2)))})
        chosen = [n for n in names if draw(st.booleans())] or names[:1]
        initial = {"player": chosen,
                   "rating": [draw(st.floats(1000.0, 2200.0)) for _ in chosen],
                   "rd": [draw(st.floats(20.0, 300.0)) for _ in chosen],
                   "games_played": [draw(st.integers(0, 3)) for _ in chosen],
                   "last_period": [draw(st.integers(start - 6, start)) for _ in chosen],
                   "lag": [draw(st.integers(0, 4)) for _ in chosen]}
    return periods, white, black, score, entry, entry_rd, initial


def _games(periods, white, black, score, entry, entry_rd):
    return Games.from_arrays(white, black, score, period=np.array(periods, dtype=np.int64),
                             entry=entry, entry_rd=entry_rd)


def _ref_state(module, initial, **extra):
    if initial is None:
        return None
    return {n: module.Player(r, rd, **extra, last_period=lp, games_played=gp, lag=lag)
            for n, r, rd, gp, lp, lag in zip(initial["player"], initial["rating"],
                                             initial["rd"], initial["games_played"],
                                             initial["last_period"], initial["lag"])}


def _compare(r, players, preds, skip, rtol=1e-9):
    assert len(r.players) == len(players)
    for name, pl in players.items():
        i = r.players.id_of(name)
        np.testing.assert_allclose(r.rating[i], pl.rating, rtol=rtol, atol=0)
        np.testing.assert_allclose(r.rd[i], pl.rd, rtol=rtol, atol=0)
        assert r.games_played[i] == pl.games_played
        assert r.last_period[i] == (NO_PERIOD if pl.last_period is None else pl.last_period)
        if skip:
            assert r.state["lag"][i] == pl.lag, name
    if not skip:
        assert "lag" not in r.state
    np.testing.assert_allclose(r.predictions, preds, rtol=rtol, atol=0)


@settings(max_examples=60, deadline=None)
@given(scenarios(), st.booleans(), st.booleans(), st.sampled_from([0.0, 40.0]))
def test_glicko_matches_reference(scenario, skip, first, c_extra):
    periods, white, black, score, entry, entry_rd, initial = scenario
    config = GlickoConfig(c=25.0 + c_extra, first_period_growth=first,
                          skip_empty_periods=skip)
    r = glicko.rate(_games(periods, white, black, score, entry, entry_rd), config, initial)
    players, preds = ref_glicko.rate(
        list(zip(periods, white, black, score)), c=config.c, first_period_growth=first,
        skip_empty_periods=skip, entry=entry, entry_rd=entry_rd,
        state=_ref_state(ref_glicko, initial))
    _compare(r, players, preds, skip)


@settings(max_examples=60, deadline=None)
@given(scenarios(), st.booleans(), st.sampled_from([math.inf, 300.0]))
def test_glicko2_matches_reference(scenario, skip, max_rd):
    periods, white, black, score, entry, entry_rd, initial = scenario
    config = Glicko2Config(skip_empty_periods=skip, max_rd=max_rd, tau=0.5)
    r = glicko2.rate(_games(periods, white, black, score, entry, entry_rd), config, initial)
    players, preds = ref_glicko2.rate(
        list(zip(periods, white, black, score)), max_rd=max_rd, skip_empty_periods=skip,
        entry=entry, entry_rd=entry_rd,
        state=_ref_state(ref_glicko2, initial, volatility=0.06))
    _compare(r, players, preds, skip, rtol=1e-7)


@settings(max_examples=60, deadline=None)
@given(scenarios(), st.booleans(), st.booleans())
def test_stephenson_matches_reference(scenario, skip, first):
    periods, white, black, score, entry, entry_rd, initial = scenario
    config = StephensonConfig(c=30.0, first_period_growth=first, skip_empty_periods=skip)
    r = stephenson.rate(_games(periods, white, black, score, entry, entry_rd), config,
                        initial)
    players, preds = ref_steph.rate(
        list(zip(periods, white, black, score)), c=30.0, first_period_growth=first,
        skip_empty_periods=skip, entry=entry, entry_rd=entry_rd,
        state=_ref_state(ref_steph, initial))
    _compare(r, players, preds, skip)


@pytest.mark.parametrize("module, cls", [(glicko, GlickoConfig), (glicko2, Glicko2Config),
                                         (stephenson, StephensonConfig)])
def test_skip_empty_periods_is_dense_relabelling(module, cls):
    """Counting only periods with games is the plain count on the periods renumbered
    0, 1, 2 ... (PlayerRatings' x$Month split): the same ratings, RDs and predictions;
    last_period stays the real period, and lag counts the periods with games since."""
    white, black, score = ["a", "b", "b", "a", "c"], ["c", "d", "c", "b", "d"], [1, 0, .5, 1, 0]
    sparse = Games.from_arrays(white, black, score, period=[0, 0, 5, 10, 30])
    dense = Games.from_arrays(white, black, score, period=[0, 0, 1, 2, 3])
    skip = module.rate(sparse, cls(skip_empty_periods=True))
    plain = module.rate(dense, cls())
    every = module.rate(sparse, cls())
    assert skip.rating.tolist() == plain.rating.tolist()
    assert skip.rd.tolist() == plain.rd.tolist()
    assert skip.predictions.tolist() == plain.predictions.tolist()
    assert skip.rd.tolist() != every.rd.tolist()
    assert skip.last_period.tolist() == every.last_period.tolist() == [10, 30, 10, 30]
    assert skip.state["lag"].tolist() == [1, 0, 1, 0]  # a, c, b, d


# ----------------------------------------------------------------------------------
# continuation and chunks: bit for bit


SPECS = ["glicko:skip_empty_periods=true,c=40", "glicko2:skip_empty_periods=true",
         "stephenson:skip_empty_periods=true,first_period_growth=false",
         "glicko:c=40", "glicko2:max_rd=300", "stephenson"]


def _big(seed=3, n=4000, n_players=150):
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n_players, n)
    black = (white + rng.integers(1, n_players, n)) % n_players
    # sparse seasons: many periods without games
    season = np.sort(rng.choice([2000, 2001, 2004, 2005, 2009, 2010, 2011, 2015, 2020], n))
    entry = np.where(rng.random(n) < 0.5, NAN, rng.uniform(1300, 2500, n))
    entry_rd = np.where(rng.random(n) < 0.5, NAN, rng.uniform(40, 340, n))
    return pa.table({"white": [f"p{x}" for x in white], "black": [f"p{x}" for x in black],
                     "score": rng.choice([0.0, 0.5, 1.0], n), "season": season,
                     "tier": entry, "tier_rd": entry_rd})


COLUMNS = {"period": "season", "entry": "tier", "entry_rd": "tier_rd"}


def _same(full, cont):
    order = [cont.players.id_of(p) for p in full.players.names]
    assert list(full.columns()) == list(cont.columns())
    for col, values in full.columns().items():
        if col != "player":
            assert np.array_equal(np.asarray(cont.columns()[col])[order], values), col


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("via", ["ratings", "arrow", "csv"])
def test_continuation_is_exact(spec, via, tmp_path):
    table = _big()
    s = SystemSpec.parse(spec)
    full = s.rate(Games.from_frame(table, **COLUMNS))
    for cut in (2004, 2010, 2015):
        mask = pa.compute.less(table["season"], cut)
        saved = s.rate(Games.from_frame(table.filter(mask), **COLUMNS))
        initial = saved
        if via != "ratings":
            initial = saved.to_arrow()
            if via == "csv":
                pacsv.write_csv(initial, tmp_path / "saved.csv")
                initial = pacsv.read_csv(tmp_path / "saved.csv")
        cont = s.rate(Games.from_frame(table.filter(pa.compute.invert(mask)), **COLUMNS),
                      initial=initial)
        if via == "ratings":  # bit for bit (a table: to ~1e-13, the rounded RD^2)
            _same(full, cont)
            n = int(pa.compute.sum(mask).as_py())
            assert np.array_equal(cont.predictions, full.predictions[n:])
        else:
            order = [cont.players.id_of(p) for p in full.players.names]
            np.testing.assert_allclose(cont.rating[order], full.rating, rtol=1e-12)
            np.testing.assert_allclose(cont.rd[order], full.rd, rtol=1e-12)
            for col in ("games_played", "last_period", "lag"):
                if col in full.state:
                    assert np.array_equal(cont.state[col][order], full.state[col]), col


@pytest.mark.parametrize("spec", SPECS[:3])
@pytest.mark.parametrize("chunk_rows", [7, 500])
def test_chunked_rating_is_the_in_memory_run(spec, chunk_rows, tmp_path):
    pq.write_table(_big(), tmp_path / "g.parquet", row_group_size=300)
    full = SystemSpec.parse(spec).rate(fastrate.read_games(tmp_path / "g.parquet", **COLUMNS))
    chunked = streaming.rate_chunks(tmp_path / "g.parquet", spec, chunk_rows=chunk_rows,
                                    **COLUMNS)
    assert list(full.columns()) == list(chunked.columns())
    for name, col in full.columns().items():
        assert col.tolist() == chunked.columns()[name].tolist(), name


def test_entry_applies_only_at_the_first_game_overall():
    """A player who has games (in the saved state) ignores the entry columns; a newcomer
    takes the values of the game where he first appears, not of later ones."""
    games = Games.from_arrays(["a", "n"], ["n", "a"], [1.0, 0.0], period=[3, 4],
                              entry=[1800.0, 2400.0], entry_rd=[80.0, 300.0])
    initial = {"player": ["a"], "rating": [1500.0], "rd": [100.0], "games_played": [5],
               "last_period": [2]}
    r = glicko.rate(games, GlickoConfig(c=0.0), initial=initial)
    plain = glicko.rate(Games.from_arrays(["a", "n"], ["n", "a"], [1.0, 0.0], period=[3, 4]),
                        GlickoConfig(c=0.0),
                        initial={**initial, "player": ["a", "n"], "rating": [1500.0, 1800.0],
                                 "rd": [100.0, 80.0], "games_played": [5, 0],
                                 "last_period": [2, None]})
    assert r.rating.tolist() == plain.rating.tolist()
    assert r.rd.tolist() == plain.rd.tolist()


# ----------------------------------------------------------------------------------
# validation


def test_entry_rd_range_is_the_configs():
    assert ENTRY_RD_RANGE == (MIN_RD, MAX_RD)


@pytest.mark.parametrize("bad", [0.0, -5.0, math.inf, 2e6, 1e-4])
def test_bad_entry_rd_is_refused_naming_column_and_row(bad, tmp_path):
    with pytest.raises(InputError, match=r"column 'entry_rd' must be a rating deviation "
                                         r"from 0.001 to 1e\+06.*row 2"):
        Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], entry_rd=[100.0, bad])
    path = tmp_path / "g.csv"
    path.write_text(f"white,black,score,tier_rd\na,b,1,100\nb,c,0,{bad}\n")
    with pytest.raises(InputError, match=r"column 'tier_rd' .*row 2 \(line 3 of g\.csv\)"):
        fastrate.read_games(path, entry_rd="tier_rd")


def test_entry_rd_must_be_numbers():
    with pytest.raises(InputError, match="column 'entry_rd' must hold numbers"):
        Games.from_arrays(["a"], ["b"], [1.0], entry_rd=["wide"])


@pytest.mark.parametrize("cls", [GlickoConfig, Glicko2Config, StephensonConfig])
def test_skip_flag_must_be_a_bool(cls):
    with pytest.raises(fastrate.errors.ConfigError, match="'skip_empty_periods' .* bool"):
        cls(skip_empty_periods=1)


# ----------------------------------------------------------------------------------
# CLI


def test_cli_entry_columns_and_lag(tmp_path):
    table = _big(n=600)
    pacsv.write_csv(table, tmp_path / "g.csv")
    base = ["rate", str(tmp_path / "g.csv"), "--period", "season", "--entry", "tier",
            "--entry-rd", "tier_rd", "--top", "0"]
    for spec in ("glicko:skip_empty_periods=true", "glicko2:skip_empty_periods=true",
                 "stephenson:skip_empty_periods=true"):
        res = CliRunner().invoke(main, [*base, "-s", spec, "-o", str(tmp_path / "out.csv")])
        assert res.exit_code == 0, res.output
        out = pacsv.read_csv(tmp_path / "out.csv")
        direct = SystemSpec.parse(spec).rate(Games.from_frame(table, **COLUMNS))
        assert out.column_names == ["player", *direct.state]
        assert out["lag"].to_pylist() == direct.state["lag"][
            [direct.players.id_of(p) for p in out["player"].to_pylist()]].tolist()
    res = CliRunner().invoke(main, ["evaluate", str(tmp_path / "g.csv"), "--period", "season",
                                    "--entry-rd", "tier_rd", "-s", "glicko", "-s",
                                    "glicko:skip_empty_periods=true"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["tune", str(tmp_path / "g.csv"), "--period", "season",
                                    "--entry-rd", "tier_rd", "-s",
                                    "glicko:skip_empty_periods=true|false,c=20|60"])
    assert res.exit_code == 0, res.output
    bad = tmp_path / "bad.csv"
    bad.write_text("white,black,score,season,tier_rd\na,b,1,1,100\nb,c,0,2,-1\n")
    res = CliRunner().invoke(main, ["rate", str(bad), "--period", "season", "--entry-rd",
                                    "tier_rd", "-s", "glicko"])
    assert res.exit_code == 1 and "column 'tier_rd'" in res.output and "line 3" in res.output


@pytest.mark.parametrize("spec", ["glicko:skip_empty_periods=true",
                                  "glicko2:skip_empty_periods=true",
                                  "stephenson:skip_empty_periods=true"])
def test_cli_initial_continues_with_lag(spec, tmp_path):
    """`fastrate rate part2.csv --initial part1_output.csv` (the lag column read back)
    gives the full run's table, newcomer columns included."""
    table = _big(n=1500)

    def rate(t, name, *extra):
        pacsv.write_csv(t, tmp_path / f"{name}.csv")
        res = CliRunner().invoke(main, ["rate", str(tmp_path / f"{name}.csv"), "-s", spec,
                                        "--period", "season", "--entry", "tier",
                                        "--entry-rd", "tier_rd", "--top", "0", "-o",
                                        str(tmp_path / f"{name}_out.csv"), *extra])
        assert res.exit_code == 0, res.output
        return pacsv.read_csv(tmp_path / f"{name}_out.csv").to_pydict()

    full = rate(table, "all")
    early = pa.compute.less(table["season"], 2010)
    rate(table.filter(early), "a")
    cont = rate(table.filter(pa.compute.invert(early)), "b", "--initial",
                str(tmp_path / "a_out.csv"))
    index = {name: i for i, name in enumerate(cont["player"])}
    order = [index[name] for name in full["player"]]
    assert list(cont) == list(full) and "lag" in full
    for col, values in full.items():
        if col != "player":
            assert np.asarray(cont[col])[order].tolist() == list(values), col
