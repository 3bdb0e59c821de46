"""Independent pools of one file (leagues, game modes, regions): a file's rows split by
the values of one column, each pool read as its own :class:`~fastrate.Games` or
:class:`~fastrate.Matches` (``fastrate rate --by league``). Errors name the file's own
rows and lines, whatever pool they fall in."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from fastrate.errors import InputError

__all__ = ["read_pools"]


def read_pools(path: str | os.PathLike, by: str, *, format: str | None = None,
               matches: bool = False, **columns: Any) -> dict[Any, Any]:
    """The rows of the file at ``path`` split by the values of column ``by``: pool value
    -> :class:`~fastrate.Games` (``matches=True``: long-format :class:`~fastrate.Matches`),
    in order of first appearance. ``columns`` are the options of
    :func:`fastrate.read_games` (or :func:`fastrate.read_matches`). A row whose pool is
    empty is refused, naming it.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "games.csv"
    >>> _ = path.write_text("league,white,black,score\\nA,x,y,1\\nB,u,v,0\\nA,y,x,0.5\\n")
    >>> {k: len(g) for k, g in read_pools(path, "league").items()}
    {'A': 2, 'B': 1}
    """
    import pyarrow.compute as pc

    from fastrate.io.tables import games_from_table, read_table, source_for

    table = read_table(path, format)
    if by not in table.column_names:
        raise InputError(f"--by: no column {by!r} in {os.fspath(path)}; columns: "
                         f"{', '.join(table.column_names)}")
    src = source_for(os.path.basename(os.fspath(path)), format)
    pool = table.column(by)
    if pool.null_count:
        first = int(np.flatnonzero(pool.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"column {by!r} (--by) must name every row's pool; found an empty "
                         f"cell at {src.where(first)}")
    codes = pc.dictionary_encode(pool).combine_chunks()
    index = codes.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    labels = codes.dictionary.to_pylist()
    rest = table.drop_columns([by])
    out: dict[Any, Any] = {}
    rows_by_pool = _group_rows(index, len(labels))
    for code, rows in enumerate(rows_by_pool):
        sub = rest.take(rows)
        where = dataclasses.replace(src, rows=rows)
        if matches:
            from fastrate.data.matches import matches_from_table

            out[labels[code]] = matches_from_table(sub, source=where, **columns)
        else:
            out[labels[code]] = games_from_table(sub, source=where, **columns)
    return out


def _group_rows(index: np.ndarray, n: int) -> list[np.ndarray]:
    """The rows of each code ``0..n-1``, each in file order."""
    order = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[order], np.arange(n + 1))
    return [order[bounds[i]:bounds[i + 1]] for i in range(n)]
