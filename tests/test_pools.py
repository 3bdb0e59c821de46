"""``fastrate rate --by COL`` and :func:`fastrate.pools.rate_pools` (issue 13 §3):
independent pools rated separately, in parallel, with the same results whatever the
number of workers; the pools read from one file with errors that name its own rows."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from click.testing import CliRunner

import fastrate
from fastrate.cli import main
from fastrate.datasets import example_path
from fastrate.errors import ConfigError, InputError
from fastrate.io.pools import read_pools
from fastrate.pools import pools_table, rate_pools


@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    """The football example with a 'kind' column: friendlies and competitive matches."""
    import pyarrow.compute as pc

    t = pacsv.read_csv(example_path("football"))
    kind = pc.if_else(pc.equal(t["tournament"], "Friendly"), "friendly", "competitive")
    t = t.append_column("kind", kind)
    path = tmp_path_factory.mktemp("pools") / "pools.csv"
    pacsv.write_csv(t, path)
    return path, t


def test_each_pool_equals_its_own_file(pooled, tmp_path):
    path, t = pooled
    pools = read_pools(path, "kind")
    assert list(pools) == ["friendly", "competitive"]  # order of first appearance
    rated = rate_pools(pools, "glicko2:tau=0.4", workers=2)
    for kind in ("friendly", "competitive"):
        sub = tmp_path / f"{kind}.csv"
        pacsv.write_csv(t.filter(pa.compute.equal(t["kind"], kind)).drop_columns(["kind"]),
                        sub)
        alone = fastrate.glicko2.rate(fastrate.read_games(sub),
                                      fastrate.glicko2.Glicko2Config(tau=0.4))
        got = rated[kind]
        assert got.players.names.tolist() == alone.players.names.tolist()
        np.testing.assert_array_equal(got.rating, alone.rating)
        np.testing.assert_array_equal(got.state["rd"], alone.state["rd"])


def test_same_bits_whatever_the_workers(pooled):
    pools = read_pools(pooled[0], "kind", period="year")
    one = rate_pools(pools, "glicko", workers=1)
    for workers in (2, 3, None):
        many = rate_pools(pools, "glicko", workers=workers)
        for k in pools:
            np.testing.assert_array_equal(one[k].rating, many[k].rating)
            np.testing.assert_array_equal(one[k].state["rd"], many[k].state["rd"])


def test_pools_table(pooled):
    pools = read_pools(pooled[0], "kind")
    rated = rate_pools(pools, "elo")
    t = pools_table(rated, by="kind")
    assert t.column_names == ["kind", "player", "rating", "games_played"]
    assert t.num_rows == sum(len(r) for r in rated.values())
    first = t.filter(pa.compute.equal(t["kind"], "friendly"))
    r = first.column("rating").to_numpy()
    assert (np.diff(r) <= 0).all()  # best first within the pool
    assert first.column("player").to_pylist()[0] == rated["friendly"].top(1)[0][0]


def test_cli_by(pooled, tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["rate", str(pooled[0]), "--by", "kind", "-s", "elo",
                                       "-j", "2", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())
    rated = rate_pools(read_pools(pooled[0], "kind"), "elo")
    got = {(r["kind"], r["player"]): r["rating"] for r in rows}
    assert len(got) == sum(len(r) for r in rated.values())
    assert got[("competitive", "Spain")] == rated["competitive"]["Spain"]
    assert "wrote" in result.output and "2 pools" in result.output


def test_errors_name_the_files_rows(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("league,white,black,score\nA,x,y,1\nB,u,v,0\nA,y,x,2\n")
    with pytest.raises(InputError, match=r"row 3 \(line 4 of g.csv\)"):
        read_pools(path, "league")
    path.write_text("league,white,black,score\nA,x,y,1\n,u,v,0\n")
    with pytest.raises(InputError, match=r"'league' \(--by\).*empty cell at row 2 \(line 3"):
        read_pools(path, "league")
    with pytest.raises(InputError, match="no column 'division'.*columns: league, white"):
        read_pools(path, "division")


def test_bad_arguments():
    g = fastrate.Games.from_arrays(["a"], ["b"], [1])
    with pytest.raises(InputError, match="no pools"):
        rate_pools({}, "elo")
    with pytest.raises(ConfigError, match="workers must be an integer >= 1"):
        rate_pools({"x": g}, "elo", workers=0)
    result = CliRunner().invoke(main, ["rate", "--example", "football", "--by", "x"])
    assert result.exit_code != 0 and "--by: --example cannot be combined" in result.output


@pytest.mark.slow
def test_dask_local_cluster_same_bits(pooled, tmp_path):
    """The pools rated on a real Dask LocalCluster (two worker processes) equal the local
    run to the bit; the CLI's --dask gives the same table."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    pools = read_pools(pooled[0], "kind", period="year")
    local = rate_pools(pools, "glicko2:tau=0.4", workers=1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        remote = rate_pools(pools, "glicko2:tau=0.4", dask=client)
    for k in pools:
        assert remote[k].players.names.tolist() == local[k].players.names.tolist()
        np.testing.assert_array_equal(remote[k].rating, local[k].rating)
        np.testing.assert_array_equal(remote[k].state["rd"], local[k].state["rd"])
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["rate", str(pooled[0]), "--by", "kind", "-s",
                                       "glicko2:tau=0.4", "--period", "year", "--dask",
                                       "-j", "2", "-o", str(out)])
    assert result.exit_code == 0, result.output
    got = {(r["kind"], r["player"]): r["rating"] for r in json.loads(out.read_text())}
    assert got[("competitive", "Spain")] == local["competitive"]["Spain"]


def test_dask_options_need_by():
    result = CliRunner().invoke(main, ["rate", "--example", "football", "--dask"])
    assert result.exit_code != 0 and "give --by COL" in result.output
