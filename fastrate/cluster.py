"""Dask for the work that splits into independent pieces (layer 3): tuning trials
(:func:`fastrate.tune.tune`) and independent pools (:func:`fastrate.pools.rate_pools`).
Dask is an optional extra (``pip install 'fastrate[dask]'``); nothing imports it until a
cluster is asked for."""

from __future__ import annotations

from typing import Any

from fastrate.errors import ConfigError

__all__ = ["Cluster"]


class Cluster:
    """A Dask client for ``dask``: ``"local"`` (or True) starts a ``LocalCluster`` of
    ``workers`` single-threaded processes here, a string is a scheduler address
    (``tcp://host:port``), and a ``distributed.Client`` is used as it is. What this
    object started, :meth:`close` (or leaving a ``with`` block) stops; a client passed
    in is left open."""

    def __init__(self, dask: Any, workers: int = 2):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError("Dask is not installed: pip install 'fastrate[dask]' (dask and "
                              "distributed)") from None
        self.own: list[Any] = []
        if isinstance(dask, Client):
            self.client = dask
            return
        if dask == "local" or dask is True:
            cluster = LocalCluster(n_workers=max(int(workers), 1), threads_per_worker=1,
                                   processes=True, dashboard_address=":0")
            self.own.append(cluster)
            self.client = Client(cluster)
        elif isinstance(dask, str):
            self.client = Client(dask)
        else:
            raise ConfigError(f"dask must be 'local', a scheduler address (tcp://host:port) or "
                              f"a distributed.Client; got {dask!r}")
        self.own.insert(0, self.client)

    def scatter(self, data: Any, broadcast: bool = True) -> Any:
        """``data`` sent once to the workers (to every one with ``broadcast``)."""
        return self.client.scatter(data, broadcast=broadcast, hash=False)

    def close(self) -> None:
        for obj in self.own:
            obj.close()
        self.own = []

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
