"""Per-player state: the arrays a kernel reads and updates, and the overlay of saved
state (``initial=``) on the defaults."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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

__all__ = ["PlayerState", "StateColumn", "merge_state", "STANDARD_COLUMNS", "NO_PERIOD",
           "SOURCE_KEY", "FIRST_LINE_KEY", "initial_source", "extends_players", "exact_values"]


@dataclass(frozen=True)
class StateColumn:
    """One per-player state column that a rating system declares: what a continued run
    needs to equal a full recompute (see :data:`fastrate.systems.REGISTRY`).

    ``dtype`` is ``"float64"``, ``"int64"`` or ``"bool"``. ``default`` is the value of a
    player without saved state (``None``: the system supplies it, as the initial rating
    from its config). A missing cell (NaN, null, blank) in saved state keeps the default.
    ``minimum`` (if given) is the smallest valid value. An ``optional`` column exists only
    when the saved state has it (FIDE's "reached 2400" flag).
    """

    name: str
    dtype: str
    default: Any = None
    doc: str = ""
    minimum: float | None = None
    optional: bool = False

    def __post_init__(self) -> None:
        if self.dtype not in ("float64", "int64", "bool"):
            raise ValueError(f"dtype of state column {self.name!r} must be float64, int64 or "
                             f"bool; got {self.dtype!r}")

    def full(self, n: int, default: Any = None) -> np.ndarray:
        """``n`` copies of the default (``default`` overrides a system-supplied one)."""
        value = self.default if default is None else default
        if value is None:
            raise ValueError(f"state column {self.name!r} needs a default value")
        return np.full(n, value, dtype=np.dtype(self.dtype))


#: the state columns of the two-player systems (Elo, Glicko, Glicko-2), table order
RATING = StateColumn("rating", "float64", doc="the rating")
RD = StateColumn("rd", "float64", doc="rating deviation")
VOLATILITY = StateColumn("volatility", "float64", doc="rating volatility (Glicko-2)")
GAMES_PLAYED = StateColumn("games_played", "int64", 0, "rated games so far", minimum=0)
LAST_PERIOD = StateColumn("last_period", "int64", NO_PERIOD,
                          "the last rating period with a game (empty: none yet)")
FIDE_REACHED = StateColumn("fide_reached", "bool", False,
                           "FIDE K rule: the rating has reached 2400 (K stays 10)",
                           optional=True)
STANDARD_COLUMNS = (RATING, RD, VOLATILITY, GAMES_PLAYED, LAST_PERIOD, FIDE_REACHED)


def merge_state(players: PlayerIndex, initial: Any, columns: Sequence[StateColumn],
                defaults: Mapping[str, Any] | None = None, *, first_period: int | None = None
                ) -> tuple[PlayerIndex, dict[str, np.ndarray], np.ndarray | None]:
    """The one way saved state is merged: default state for ``players`` in every column
    of ``columns``, overlaid with ``initial``.

    ``initial`` may be ``None``, a :class:`Ratings` (e.g. a previous run), a mapping
    ``name -> rating``, or a table (pyarrow/pandas/polars/dict of columns) with a
    ``player`` column, a ``rating`` column and any of ``columns``; other columns are
    ignored. Players known only to ``initial`` are kept, first, so that continuing from
    a saved state gives the same table as a full recompute. ``defaults`` gives the
    values of columns whose default the system supplies (the initial rating).

    Returns the merged :class:`PlayerIndex`, the column arrays (name -> array, in the
    order of ``columns``; an optional column only when ``initial`` has it) and the
    mapping of ``players``' ids to the merged ids (None when unchanged).

    ``first_period``: the first (absolute) rating period of the data to be rated; a
    saved ``last_period`` after it is refused (the state would be from the future).
    """
    index, cols, mapping = _merge_state(players, initial, columns, defaults)
    last = cols.get("last_period")
    if first_period is not None and last is not None and initial is not None:
        late = last > first_period
        if late.any():
            i = int(np.argmax(late))
            raise InputError(
                f"column 'last_period' of the saved state must not be after the first rating "
                f"period of the games ({first_period}); found {int(last[i])} at "
                f"{initial_source(initial).where(i)} (player "
                f"{format_value(index[i])}); continue a run only with games that come after "
                "it")
    return index, cols, mapping


def _merge_state(players: PlayerIndex, initial: Any, columns: Sequence[StateColumn],
                 defaults: Mapping[str, Any] | None
                 ) -> tuple[PlayerIndex, dict[str, np.ndarray], np.ndarray | None]:
    defaults = dict(defaults or {})
    if initial is None:
        n = len(players)
        return players, {c.name: c.full(n, defaults.get(c.name)) for c in columns
                         if not c.optional}, None
    if isinstance(initial, Ratings) and extends_players(players, initial.players):
        # a previous run whose players are the first ones of ``players`` (a run continued
        # chunk by chunk): its columns as they are, new players at the defaults
        saved = initial.columns()
        return players, _state_columns(columns, saved, len(players), len(initial.players),
                                       defaults, lambda c, v, d: v), None
    src = initial_source(initial)
    cols = _initial_columns(initial, columns)
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
    return index, _state_columns(columns, cols, len(index), len(init_index), defaults,
                                 lambda c, v, d: _saved_values(c, v, d, src)), mapping


def _state_columns(columns: Sequence[StateColumn], saved: Mapping[str, Any], n: int, m: int,
                   defaults: Mapping[str, Any], check: Callable[[StateColumn, Any, np.ndarray],
                                                                 Any]) -> dict[str, np.ndarray]:
    """Every column of ``columns`` for ``n`` players at its default, the first ``m`` set
    to the ``saved`` values (through ``check(column, values, defaults)``); an optional
    column only when it was saved."""
    out: dict[str, np.ndarray] = {}
    for c in columns:
        if c.optional and c.name not in saved:
            continue
        target = c.full(n, defaults.get(c.name))
        if c.name in saved:
            target[:m] = check(c, saved[c.name], target[:m])
        out[c.name] = target
    return out


def extends_players(players: PlayerIndex, before: PlayerIndex) -> bool:
    """Whether ``before``'s names are the first names of ``players`` (cheap when both
    are views of one growing buffer, as in a run continued chunk by chunk)."""
    a, b = players.names, before.names
    m = b.shape[0]
    if m > a.shape[0] or a.dtype != b.dtype:
        return False
    if m == 0 or (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
                  and a.strides == b.strides):
        return True
    head = a[:m]
    return bool(np.array_equal(head, b)) if a.dtype != object else head.tolist() == b.tolist()


def exact_values(initial: Any, players: PlayerIndex) -> dict[str, np.ndarray]:
    """The exact internal values (:attr:`Ratings.exact`) of a previous run ``initial``
    whose players are the first ones of ``players``, else ``{}``."""
    if isinstance(initial, Ratings) and initial.exact and extends_players(players,
                                                                           initial.players):
        return initial.exact
    return {}


def _saved_values(c: StateColumn, values: Any, default: np.ndarray, src: Source) -> np.ndarray:
    """One saved column, checked, with missing cells replaced by ``default``."""
    if c.dtype == "bool":
        return as_bool(values, c.name, src, missing=bool(c.default))
    if c.dtype == "int64":
        vals = as_1d(values, c.name)
        if vals.dtype.kind not in "iuf":
            vals = as_float64(vals, c.name, src, allow_nan=True)
        if vals.dtype.kind == "f":
            missing = np.isnan(vals)
            # a count or a period number: a whole number, not truncated
            bad = ~missing & ((vals != np.floor(vals)) | (np.abs(vals) >= 2.0**63))
            if bad.any():
                raise fail_at(c.name, "must be a whole number", vals, int(np.argmax(bad)),
                              src)
            vals = np.where(missing, default, np.nan_to_num(vals)).astype(np.int64)
    else:
        vals = as_float64(values, c.name, src, allow_nan=True)
        if np.isinf(vals).any():
            i = int(np.argmax(np.isinf(vals)))
            raise fail_at(c.name, "must be finite", vals, i, src)
        vals = np.where(np.isnan(vals), default, vals)
    if c.minimum is not None and (vals < c.minimum).any():
        i = int(np.argmax(vals < c.minimum))
        raise fail_at(c.name, f"must be >= {c.minimum:g}", vals, i, src)
    return vals


@dataclass(eq=False)
class PlayerState:
    """Per-player state arrays a kernel reads and updates in place.

    ``last_period`` is ``NO_PERIOD`` (int64 min) for a player who has not played yet.
    ``extra`` holds the columns a system declares beyond the standard ones (FIBS's
    ``experience``).
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
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    NO_PERIOD = NO_PERIOD  #: ``last_period`` of a player who has not played yet

    @classmethod
    def resolve(cls, games: Games, initial: Any, *, rating: float, rd: float = math.nan,
                volatility: float = math.nan, extra: Sequence[StateColumn] = ()
                ) -> tuple[PlayerState, Games]:
        """Default state for every player of ``games``, overlaid with ``initial`` (see
        :func:`merge_state`), and ``games`` renumbered to the state's player ids."""
        first = None
        if games.period is not None and games.period_labels is None and games.n_games:
            # absolute period numbers (not ranks of this data's labels) can be compared
            first = int(games.period[0])
        state, mapping = cls.merge(games.players, initial, rating=rating, rd=rd,
                                   volatility=volatility, extra=extra, first_period=first)
        return state, (games if mapping is None else games.with_players(state.players, mapping))

    @classmethod
    def merge(cls, players: PlayerIndex, initial: Any, *, rating: float, rd: float = math.nan,
              volatility: float = math.nan, extra: Sequence[StateColumn] = (),
              first_period: int | None = None) -> tuple[PlayerState, np.ndarray | None]:
        """Default state for ``players`` overlaid with ``initial`` (as in :meth:`resolve`),
        and the mapping of ``players``' ids to the state's ids (None when unchanged):
        the players of ``initial`` come first, then the new ones."""
        index, cols, mapping = merge_state(
            players, initial, (*STANDARD_COLUMNS, *extra),
            {"rating": float(rating), "rd": float(rd), "volatility": float(volatility)},
            first_period=first_period)
        std = {c.name for c in STANDARD_COLUMNS}
        return cls(index, cols["rating"], cols["rd"], cols["volatility"],
                   cols["games_played"], cols["last_period"], cols.get("fide_reached"),
                   {k: v for k, v in cols.items() if k not in std}), mapping


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


def _initial_columns(initial: Any, columns: Sequence[StateColumn]) -> dict[str, Any]:
    """``player`` and the state ``columns`` that saved state ``initial`` has (empty cells
    of an integer column hold its default, so missing values keep the default in every
    column)."""
    keep = {c.name: c for c in columns}
    if isinstance(initial, Ratings):
        saved = initial.columns()
        return {"player": initial.players.names,
                **{k: v for k, v in saved.items() if k in keep}}
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
    for k, c in keep.items():
        if k in table.column_names:
            col = table.column(k)
            if c.dtype == "int64" and col.null_count:
                import pyarrow as pa

                if pa.types.is_null(col.type):
                    col = col.cast(pa.int64())
                col = col.fill_null(c.default)
            out[k] = arrow_to_numpy(col)
    if "rating" not in out:
        raise InputError("initial ratings need a 'rating' column; found columns "
                         f"{', '.join(table.column_names)}")
    return out
