"""Per-player state: the arrays a kernel reads and updates, and the overlay of saved
state (``initial=``) on the defaults."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._validate import (
    Source,
    arrow_to_numpy,
    as_1d,
    as_bool,
    as_float64,
    fail_at,
    format_value,
    to_arrow_table,
)
from fastrate.data.games import Games
from fastrate.data.players import PlayerIndex
from fastrate.data.results import NO_PERIOD, Ratings
from fastrate.errors import InputError

__all__ = ["PlayerState", "NO_PERIOD", "SOURCE_KEY", "FIRST_LINE_KEY", "initial_source"]


@dataclass(eq=False)
class PlayerState:
    """Per-player state arrays a kernel reads and updates in place.

    ``last_period`` is ``NO_PERIOD`` (int64 min) for a player who has not played yet.
    """

    players: PlayerIndex
    rating: np.ndarray
    rd: np.ndarray
    volatility: np.ndarray
    games_played: np.ndarray
    last_period: np.ndarray
    #: Elo's FIDE rule: whether a rating has ever reached the threshold (2400), so K
    #: stays at 10 after a fall below it; None when ``initial`` does not say
    fide_reached: np.ndarray | None = None

    NO_PERIOD = NO_PERIOD  #: ``last_period`` of a player who has not played yet

    @classmethod
    def resolve(cls, games: Games, initial: Any, *, rating: float, rd: float = math.nan,
                volatility: float = math.nan) -> tuple[PlayerState, Games]:
        """Default state for every player of ``games``, overlaid with ``initial``.

        ``initial`` may be ``None``, a :class:`Ratings` (e.g. a previous run), a mapping
        ``name -> rating``, or a table (pyarrow/pandas/polars/dict of columns) with a
        ``player`` column and any of ``rating``, ``rd``, ``volatility``, ``games_played``,
        ``last_period``, ``fide_reached``. Players known only to ``initial`` are kept, so
        continuing from a saved state gives the same table as a full recompute.
        """
        state, mapping = cls.merge(games.players, initial, rating=rating, rd=rd,
                                   volatility=volatility)
        return state, (games if mapping is None else games.with_players(state.players, mapping))

    @classmethod
    def merge(cls, players: PlayerIndex, initial: Any, *, rating: float, rd: float = math.nan,
              volatility: float = math.nan) -> tuple[PlayerState, np.ndarray | None]:
        """Default state for ``players`` overlaid with ``initial`` (as in :meth:`resolve`),
        and the mapping of ``players``' ids to the state's ids (None when unchanged):
        the players of ``initial`` come first, then the new ones."""
        if initial is None:
            n = len(players)
            return cls(players, np.full(n, float(rating)), np.full(n, float(rd)),
                       np.full(n, float(volatility)), np.zeros(n, np.int64),
                       np.full(n, NO_PERIOD, np.int64)), None
        src = initial_source(initial)
        cols = _initial_columns(initial)
        init_names = cols.pop("player")
        init_index = PlayerIndex(init_names)
        if len(init_index.lookup) != len(init_index):
            seen: set[Any] = set()
            names_list = init_index.names.tolist()
            i = next(j for j, x in enumerate(names_list) if x in seen or seen.add(x))
            raise InputError(f"initial ratings list player {format_value(names_list[i])} twice (again "
                             f"at {src.where(i)}); keep one row per player")
        lookup = init_index.lookup
        game_names = players.names.tolist()
        new = [name for name in game_names if name not in lookup]
        all_names = np.empty(len(init_index) + len(new), dtype=object)
        all_names[:len(init_index)] = init_index.names
        all_names[len(init_index):] = new
        index = PlayerIndex(all_names)
        mapping = np.array([index.lookup[name] for name in game_names], dtype=np.int64)
        n = len(index)
        state = cls(index, np.full(n, float(rating)), np.full(n, float(rd)),
                    np.full(n, float(volatility)), np.zeros(n, np.int64),
                    np.full(n, NO_PERIOD, np.int64))
        m = len(init_index)
        for name, arr in cols.items():
            if name == "fide_reached":
                state.fide_reached = np.zeros(n, dtype=np.bool_)
                state.fide_reached[:m] = _bool_column(arr, name, src)
                continue
            target = getattr(state, name)
            if name in ("games_played", "last_period"):
                vals = as_1d(arr, name)
                if vals.dtype.kind == "f":
                    missing = np.isnan(vals)
                    vals = np.where(missing, target[:m], np.nan_to_num(vals)).astype(np.int64)
                target[:m] = vals
            else:
                vals = as_float64(arr, name, src, allow_nan=True)
                target[:m] = np.where(np.isnan(vals), target[:m], vals)
                if np.isinf(vals).any():
                    i = int(np.argmax(np.isinf(vals)))
                    raise fail_at(name, "must be finite", vals, i, src)
        return state, mapping


#: schema metadata key under which :func:`fastrate.read_ratings` records the file name
SOURCE_KEY = b"fastrate.source"
#: ... and the file line of its first data row (2 for a CSV file with a header)
FIRST_LINE_KEY = b"fastrate.first_line"


def initial_source(initial: Any, default: str = "initial ratings") -> Source:
    """Where a saved-state table came from, for error messages: the file it was read
    from by :func:`fastrate.read_ratings` (rows named with their file lines, recorded in
    the table's metadata), else ``default``."""
    schema = getattr(initial, "schema", None)
    meta = getattr(schema, "metadata", None) or {}
    if SOURCE_KEY in meta:
        first_line = int(meta.get(FIRST_LINE_KEY, b"0").decode() or 0)
        return Source(meta[SOURCE_KEY].decode(), first_line=first_line)
    return Source(default)


def _bool_column(values: Any, name: str, src: Source) -> np.ndarray:
    """A per-player flag from initial ratings: booleans, 0/1, or true/false words;
    missing values are False."""
    return as_bool(values, name, src, missing=False)


def _initial_columns(initial: Any) -> dict[str, Any]:
    keep = ("rating", "rd", "volatility", "games_played", "last_period", "fide_reached")
    if isinstance(initial, Ratings):
        out: dict[str, Any] = {"player": initial.players.names, "rating": initial.rating,
                               "games_played": initial.games_played}
        for k in ("rd", "volatility", "last_period", "fide_reached"):
            if getattr(initial, k) is not None:
                out[k] = getattr(initial, k)
        return out
    if isinstance(initial, Mapping) and not (
            "player" in initial and not np.isscalar(initial["player"])):
        names = np.empty(len(initial), dtype=object)
        names[:] = list(initial.keys())
        return {"player": names, "rating": np.array(list(initial.values()), dtype=np.float64)}
    table = to_arrow_table(initial)
    if "player" not in table.column_names:
        raise InputError("initial ratings need a 'player' column; found columns "
                         f"{', '.join(table.column_names)}")
    out = {"player": arrow_to_numpy(table.column("player"))}
    for k in keep:
        if k in table.column_names:
            col = table.column(k)
            if k == "last_period" and col.null_count:
                import pyarrow as pa

                if pa.types.is_null(col.type):
                    col = col.cast(pa.int64())
                col = col.fill_null(NO_PERIOD)
            out[k] = arrow_to_numpy(col)
    if "rating" not in out:
        raise InputError("initial ratings need a 'rating' column; found columns "
                         f"{', '.join(table.column_names)}")
    return out
