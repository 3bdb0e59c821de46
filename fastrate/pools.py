"""Rate independent pools with one system (layer 3): leagues, game modes or regions
whose players never meet are rated separately, in parallel on local threads (the kernels
release the GIL) or on a Dask cluster, with the same results whatever the number of
workers (``fastrate rate --by league``).

>>> import fastrate
>>> pools = {"A": fastrate.Games.from_arrays(["x", "y"], ["y", "x"], [1, 0.5]),
...          "B": fastrate.Games.from_arrays(["u"], ["v"], [0])}
>>> rated = rate_pools(pools, "elo", workers=2)
>>> round(rated["A"]["x"], 2), round(rated["B"]["v"], 2)
(1514.53, 1516.0)
>>> pools_table(rated, by="league").column_names[:3]
['league', 'player', 'rating']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastrate._validate import check_type
from fastrate.data.results import Ratings
from fastrate.errors import ConfigError, InputError
from fastrate.systems import SystemSpec

__all__ = ["rate_pools", "pools_table"]


def rate_pools(pools: Mapping[Any, Any], system: Any = "elo", *, initial: Any = None,
               workers: int | None = 1, predictions: bool = False, dask: Any = None,
               on_pool: Callable[[Any, Ratings], Any] | None = None) -> dict[Any, Ratings]:
    """Rate every pool of ``pools`` (pool -> :class:`~fastrate.Games` or
    :class:`~fastrate.Matches`) with ``system`` (a spec string, ``(name, config)`` or
    config object); return pool -> :class:`~fastrate.Ratings`, in the pools' order.

    ``initial``: starting ratings for every pool (players not in a pool are ignored).
    ``workers``: local threads (None: one per CPU). ``dask``: ``"local"`` (a
    ``LocalCluster`` of ``workers`` processes), a scheduler address or a
    ``distributed.Client`` (:class:`fastrate.cluster.Cluster`); each pool is then sent
    once to one worker and rated there, with the same results. ``predictions=False`` (default): final ratings only, where the system can
    skip the per-game outputs. ``on_pool(pool, ratings)`` is called as each pool is
    done (progress), in the pools' order.
    """
    check_type(pools, Mapping, "pools must be a mapping of pool -> Games or Matches",
               "e.g. fastrate.io.pools.read_pools(path, by='league')")
    if not pools:
        raise InputError("no pools to rate: the mapping is empty")
    spec = SystemSpec.of(system)
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ConfigError(f"workers must be an integer >= 1 or None; got {workers!r}")
    labels = list(pools)

    def one(data: Any) -> Ratings:
        return _rate_one(data, spec, initial, predictions)

    if dask is not None:
        from fastrate.cluster import Cluster

        with Cluster(dask, workers or 2) as cluster:
            client = cluster.client
            parts = cluster.scatter([pools[k] for k in labels], broadcast=False)
            results = client.gather(client.map(_rate_one, parts, spec=spec, initial=initial,
                                               predictions=predictions, pure=False))
    elif workers == 1 or len(labels) == 1:
        results = [one(pools[k]) for k in labels]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, [pools[k] for k in labels]))
    out = dict(zip(labels, results))
    if on_pool is not None:
        for k in labels:
            on_pool(k, out[k])
    return out


def _rate_one(data: Any, spec: SystemSpec, initial: Any, predictions: bool) -> Ratings:
    """One pool (what a Dask worker runs)."""
    return spec.rate(data, initial=initial, predictions=predictions)


def pools_table(rated: Mapping[Any, Ratings], by: str = "pool", sort: bool = True):
    """Every pool's ratings in one ``pyarrow.Table``: the pool in column ``by``, then
    the system's per-player columns; each pool's players best first (``sort``)."""
    import pyarrow as pa

    parts = []
    for label, ratings in rated.items():
        t = ratings.to_arrow(sort=sort)
        if by in t.column_names:
            raise InputError(f"the pool column {by!r} clashes with a ratings column; rename it")
        pool = pa.array([label] * t.num_rows) if t.num_rows else pa.nulls(0)
        parts.append(t.add_column(0, by, pool))
    return pa.concat_tables(parts, promote_options="default")
