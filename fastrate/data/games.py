"""Two-player games as struct-of-arrays: :class:`Games`."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastrate._validate import (
    NO_SOURCE,
    Source,
    as_1d,
    as_bool,
    as_float64,
    check_length,
    check_range,
    fail_at,
    format_value,
    is_arrow_array,
    require,
    to_arrow_table,
)
from fastrate.data.game_table import game_columns
from fastrate.data.periods import bucket_periods, is_period_spec, parse_time, period_labels
from fastrate.data.players import PlayerIndex, renumbered
from fastrate.data.results import NO_PERIOD
from fastrate.errors import InputError, InputTypeError

__all__ = ["Games", "GAME_ARRAYS", "games_from_box", "merge_dropped", "player_ids",
           "time_and_period", "chronological_order"]

#: the per-game arrays of :class:`Games` (stored order; the optional ones may be None):
#: what taking, cutting or joining games must carry along
GAME_ARRAYS = ("white", "black", "score", "time", "period", "weight", "margin", "neutral",
               "context", "best_of", "share", "entry", "entry_rd")


@dataclass(frozen=True, eq=False)
class Games:
    """Two-player games in chronological order, as struct-of-arrays.

    Attributes
    ----------
    white, black : int64 arrays
        Ids (into :attr:`players`) of the first and second player of each game. The
        first player is the one any advantage (home side, white, first move) goes to.
    score : float64 array
        The first player's result: 1 win, 0.5 draw, 0 loss, or a fraction in [0, 1].
    players : PlayerIndex
        Names of the player ids.
    time : datetime64[ns] or float64 array, optional
    period : int64 array, optional
        Absolute rating-period number of each game, nondecreasing.
    weight : float64 array, optional
        Multiplies each game's K (Elo) -- e.g. a match-type K for World Football Elo.
    margin : float64 array, optional
        Point difference of the game (first minus second); margin-of-victory options
        use its absolute value.
    neutral : bool array, optional
        True where no advantage applies (neutral venue).
    order : int64 array, optional
        Input row of each stored game when the input had to be sorted by time;
        ``None`` when the input was already in order.
    """

    white: np.ndarray
    black: np.ndarray
    score: np.ndarray
    players: PlayerIndex
    time: np.ndarray | None = None
    period: np.ndarray | None = None
    period_labels: np.ndarray | None = None
    weight: np.ndarray | None = None
    margin: np.ndarray | None = None
    neutral: np.ndarray | None = None
    order: np.ndarray | None = None
    source: Source = field(default=NO_SOURCE, repr=False)
    #: rows left out while reading: (reason, count, first row) triples
    dropped: tuple[tuple[str, int, str], ...] = ()
    #: the context of each game (tennis surface, venue, game mode) as int64 codes into
    #: ``context_labels``: Elo's context ratings (``context_weight``)
    context: np.ndarray | None = None
    context_labels: np.ndarray | None = None
    #: each game's match format, best of that many (odd) games: Elo's ``best_of``
    best_of: np.ndarray | None = None
    #: the first player's share of the points (games won / games played) in [0, 1]:
    #: Elo's ``points_share``
    share: np.ndarray | None = None
    #: the starting rating of a player who has no games yet, per game (NaN: the
    #: default): an entry level or tournament tier (Elo's newcomers)
    entry: np.ndarray | None = None
    #: the starting rating deviation of a player who has no games yet, per game (NaN:
    #: the default): the Glicko family's newcomers (finite, in [1e-3, 1e6])
    entry_rd: np.ndarray | None = None

    # -- construction -------------------------------------------------------------

    @classmethod
    def from_arrays(cls, white: Any, black: Any, score: Any, *, time: Any = None,
                    period: Any = None, weight: Any = None, margin: Any = None,
                    neutral: Any = None, players: Sequence[Any] | PlayerIndex | None = None,
                    sort: bool = True, source: Source | str | None = None,
                    context: Any = None, best_of: Any = None, share: Any = None,
                    entry: Any = None, entry_rd: Any = None) -> Games:
        """Build games from arrays (NumPy, lists, pandas/polars series, Arrow arrays).

        ``white``/``black`` are player names (any hashable values, interned here), or
        integer ids into ``players`` when ``players`` is given. ``period`` is either an
        array of period labels (e.g. a season column) or a spec applied to ``time``
        (``"3d"``, ``"1w"``, ``"month"``, a number for numeric times). Games whose times
        are out of order are stably sorted by time (``sort=True``, the default; the
        results still come back in input order) or refused (``sort=False``).
        ``context`` (labels), ``best_of`` (odd whole numbers), ``share`` (in [0, 1]) and
        ``entry`` (ratings; NaN for none) feed Elo's modelling levers (see the fields);
        ``entry`` and ``entry_rd`` (rating deviations; NaN for none) give the Glicko
        family's newcomers their starting rating and RD.
        """
        src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
        # Arrow columns and lists go to the interner as they are (no round trip through
        # Python objects; a NaN in a list of names stays a missing name, not 'nan')
        w = white if is_arrow_array(white) or isinstance(white, (list, tuple)) else as_1d(white,
                                                                                     "white")
        b = black if is_arrow_array(black) or isinstance(black, (list, tuple)) else as_1d(black,
                                                                                     "black")
        n = len(w)
        if n == 0:
            raise InputError("no games: the input has no rows")
        if len(b) != n:
            raise InputError(f"column 'black' must have one value per game ({n}); got {len(b)}")
        if players is not None:
            index = players if isinstance(players, PlayerIndex) else PlayerIndex(players)
            wi = player_ids(as_1d(w, "white"), "white", len(index), src)
            bi = player_ids(as_1d(b, "black"), "black", len(index), src)
        else:
            index, (wi, bi) = PlayerIndex.intern(w, b, names=("white", "black"), source=src)
            if not (is_arrow_array(w) or is_arrow_array(b)):
                # (the file readers refuse a NUL in the text they decode; names handed
                # in from Python are checked here, once per distinct name)
                _refuse_nul_names(index, wi, bi, src)
        del white, black, w, b  # the names (e.g. Arrow columns) are not needed any more
        same = wi == bi
        if same.any():
            i = int(np.argmax(same))
            raise InputError(f"a player cannot play himself: {format_value(index[wi[i]])} is both "
                             f"players at {src.where(i)}; drop those rows "
                             "(read_games(..., drop_self_play=True) or --drop-self-play)")
        s = as_float64(score, "score", src)
        check_length(s, "score", n)
        check_range(s, "score", 0.0, 1.0, src)
        wt = mg = nt = None
        if weight is not None:
            wt = as_float64(weight, "weight", src)
            check_length(wt, "weight", n)
            check_range(wt, "weight", 0.0, math.inf, src, lo_open=True, hi_open=True)
        if margin is not None:
            mg = as_float64(margin, "margin", src)
            check_length(mg, "margin", n)
            # the first player's margin is > 0 when he won and < 0 when he lost (0 is any
            # result: a win on penalties after a drawn game)
            wrong = ((mg > 0) & (s < 0.5)) | ((mg < 0) & (s > 0.5))
            if wrong.any():
                i = int(np.argmax(wrong))
                raise fail_at("margin", "must agree with the score (> 0 only when the first "
                              "player won, < 0 only when he lost)", mg, i, src,
                              f"the score there is {format_value(s[i])}")
        if neutral is not None:
            nt = as_bool(neutral, "neutral", src)
            check_length(nt, "neutral", n)
        levers = _lever_columns(context, best_of, share, entry, n, src, entry_rd)
        tm, pr, labels = time_and_period(time, period, n, src)
        order = chronological_order(tm, pr, sort=sort, source=src)

        def take(a):
            return a if (a is None or order is None) else require(a[order], a.dtype)

        # one column at a time, so that each unsorted column can go before the next copy
        wi = take(wi)
        bi = take(bi)
        s = take(s)
        tm = take(tm)
        pr = take(pr)
        wt = take(wt)
        mg = take(mg)
        nt = take(nt)
        lever_values = {k: take(v) for k, v in levers.items() if k != "context_labels"}
        return cls(white=wi, black=bi, score=s, players=index, time=tm, period=pr,
                   period_labels=labels, weight=wt, margin=mg, neutral=nt, order=order,
                   source=src, context_labels=levers["context_labels"], **lever_values)

    @classmethod
    def from_frame(cls, frame: Any, **columns: Any) -> Games:
        """Build games from a pandas/polars DataFrame or a pyarrow Table.

        Column names are recognised as in :func:`fastrate.read_games` (``white``/``black``/
        ``score``, ``winner``/``loser``, ``home_team``/``away_team`` with scores, ...);
        pass ``white="col"``, ``score="col"`` ... to map them explicitly.
        """
        import inspect

        known = [k for k in inspect.signature(games_from_box).parameters if k != "box"]
        for name in columns:
            if name not in known:
                from difflib import get_close_matches

                near = get_close_matches(name, known, n=1)
                hint = f" (did you mean {near[0]}=?)" if near else ""
                raise InputTypeError(f"Games.from_frame() got an unknown argument {name}={hint}; "
                                     f"its column options are {', '.join(known)}")
        return games_from_box([to_arrow_table(frame)], **columns)

    # -- properties ---------------------------------------------------------------

    @property
    def n_games(self) -> int:
        return int(self.white.shape[0])

    @property
    def n_players(self) -> int:
        return len(self.players)

    def __len__(self) -> int:
        return self.n_games

    def __repr__(self) -> str:
        extras = [k for k in ("time", "period", "weight", "margin", "neutral")
                  if getattr(self, k) is not None]
        return (f"Games({self.n_games} games, {self.n_players} players"
                + (f", with {', '.join(extras)}" if extras else "") + ")")

    def head(self, n: int) -> Games:
        """The first ``n`` games in stored (chronological) order, as games whose stored
        order is their input order (per-game outputs come back in stored order)."""
        return dataclasses.replace(
            self, order=None, **{k: None if getattr(self, k) is None else getattr(self, k)[:n]
                                 for k in GAME_ARRAYS},
            source=self.source if self.order is None else dataclasses.replace(
                self.source, rows=self.order[:n] if self.source.rows is None
                else self.source.rows[self.order[:n]]))

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Put per-game values (in stored, chronological order) back in input row order."""
        if self.order is None:
            return values
        out = np.empty_like(values)
        out[self.order] = values
        return out

    def period_or_zero(self) -> np.ndarray:
        """Period numbers, or all zeros (a single period) when the games have none."""
        if self.period is not None:
            return self.period
        return np.zeros(self.n_games, dtype=np.int64)

    def with_players(self, index: PlayerIndex, mapping: np.ndarray) -> Games:
        """The same games re-expressed in a larger player index (``mapping[old] = new``)."""
        return dataclasses.replace(self, white=renumbered(self.white, mapping),
                                   black=renumbered(self.black, mapping), players=index)


def merge_dropped(records: Sequence[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """Left-out rows (``Games.dropped`` records of several parts) by reason, in order of
    first appearance: ``(reason, total count, the first place)``."""
    out: dict[str, tuple[int, str]] = {}
    for reason, count, where in records:
        c, w = out.get(reason, (0, where))
        out[reason] = (c + count, w)
    return [(r, c, w) for r, (c, w) in out.items()]


def player_ids(x: np.ndarray, column: str, n_players: int, source: Source) -> np.ndarray:
    """Integer player ids into an index of ``n_players`` names, as int64, naming the first
    id out of range."""
    if x.dtype.kind not in "iu":
        raise InputTypeError(f"column '{column}' must hold integer player ids when players= is "
                             f"given; got dtype {x.dtype}")
    ids = require(x, np.int64)
    bad = (ids < 0) | (ids >= n_players)
    if bad.any():
        raise fail_at(column, f"must be a player id in [0, {n_players})", ids,
                      int(np.argmax(bad)), source)
    return ids


def _refuse_nul_names(index: PlayerIndex, white: np.ndarray, black: np.ndarray,
                      src: Source) -> None:
    """A player name with a NUL character is refused, naming its first row."""
    names = index.names
    if names.dtype.kind not in "OU":
        return
    bad = [i for i, x in enumerate(names.tolist()) if isinstance(x, str) and "\x00" in x]
    if not bad:
        return
    pid = bad[0]
    rows = np.flatnonzero((white == pid) | (black == pid))
    column = "white" if white[rows[0]] == pid else "black"
    raise InputError(f"column '{src.column(column)}' must not hold a NUL character; found "
                     f"{format_value(names[pid])} at {src.where(int(rows[0]))}; remove it "
                     "from the name")


def _lever_columns(context: Any, best_of: Any, share: Any, entry: Any, n: int,
                   src: Source, entry_rd: Any = None) -> dict[str, np.ndarray | None]:
    """The per-game columns of Elo's modelling levers, validated (None when absent)."""
    from fastrate.data._csr import factorize

    out: dict[str, np.ndarray | None] = {"context": None, "context_labels": None,
                                         "best_of": None, "share": None, "entry": None,
                                         "entry_rd": None}
    if context is not None:
        # a missing context (null, NaN or empty) is code -1: that game uses the overall
        # ratings only
        import pyarrow as pa
        import pyarrow.compute as pc

        col = context if is_arrow_array(context) else pa.array(as_1d(context, "context"),
                                                               from_pandas=True)
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if len(col) != n:
            raise InputError(f"column 'context' must have one value per game ({n}); got "
                             f"{len(col)}")
        present = pc.is_valid(col)
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            present = pc.and_(present, pc.not_equal(pc.utf8_length(col), 0))
        keep = np.asarray(pc.fill_null(present, False).to_numpy(zero_copy_only=False),
                          dtype=bool)
        codes = np.full(n, -1, dtype=np.int64)
        labels = np.empty(0, dtype=object)
        if keep.any():
            ids, labels = factorize(col.filter(pa.array(keep)), "context", src)
            codes[keep] = ids
        out["context"], out["context_labels"] = codes, labels
    if best_of is not None:
        bo = as_float64(best_of, "best_of", src)
        check_length(bo, "best_of", n)
        bad = ~((bo >= 1) & (bo <= 99) & (bo == np.floor(bo)) & (np.mod(bo, 2) == 1))
        if bad.any():
            raise fail_at("best_of", "must be an odd whole number of games from 1 to 99",
                          bo, int(np.argmax(bad)), src)
        out["best_of"] = require(bo.astype(np.int64), np.int64)
    if share is not None:
        sh = as_float64(share, "share", src)
        check_length(sh, "share", n)
        check_range(sh, "share", 0.0, 1.0, src)
        out["share"] = sh
    if entry is not None:
        en = _entry(entry, src)
        check_length(en, "entry", n)
        out["entry"] = en
    if entry_rd is not None:
        er = _entry_rd(entry_rd, src)
        check_length(er, "entry_rd", n)
        out["entry_rd"] = er
    return out


#: the range of an entry RD: the Glicko family's range of ``initial_rd``
#: (fastrate.ratings.glicko.MIN_RD, MAX_RD; the data layer does not import the systems)
ENTRY_RD_RANGE = (1e-3, 1e6)


def _entry_rd(entry_rd: Any, src: Source) -> np.ndarray:
    """Entry rating deviations: finite numbers in ``ENTRY_RD_RANGE``, or NaN / empty for
    none."""
    arr = as_1d(entry_rd, "entry_rd")
    try:
        er = require(np.asarray(arr, dtype=np.float64), np.float64)
    except (TypeError, ValueError):
        raise InputError("column 'entry_rd' must hold numbers (a starting rating deviation, "
                         "or empty for none)") from None
    lo, hi = ENTRY_RD_RANGE
    bad = ~np.isnan(er) & ~((er >= lo) & (er <= hi))
    if bad.any():
        raise fail_at("entry_rd", f"must be a rating deviation from {lo:g} to {hi:g} (or "
                      "empty for none)", er, int(np.argmax(bad)), src)
    return er


def _entry(entry: Any, src: Source) -> np.ndarray:
    """Entry ratings: finite numbers within +-1e9, or NaN / empty for none."""
    arr = as_1d(entry, "entry")
    try:
        en = require(np.asarray(arr, dtype=np.float64), np.float64)
    except (TypeError, ValueError):
        raise InputError("column 'entry' must hold numbers (a starting rating, or empty "
                         "for none)") from None
    bad = np.isinf(en) | (np.abs(np.nan_to_num(en)) > 1e9)
    if bad.any():
        raise fail_at("entry", "must be a rating within +-1e9 (or empty for none)", en,
                      int(np.argmax(bad)), src)
    return en


def time_and_period(time: Any, period: Any, n: int, source: Source
                    ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """``(time, period, period labels)`` of ``n`` rows: ``time`` parsed with
    :func:`parse_time`; ``period`` either a length spec applied to the times
    (:func:`bucket_periods`) or a column of period labels (:func:`period_labels`)."""
    tm = pr = labels = None
    if time is not None:
        tm = parse_time(time, "time", source)
        check_length(tm, "time", n)
    if period is not None:
        # a number beyond int64 casts to its minimum, which is NO_PERIOD ("never played"):
        # refused below, so the cast's warning is not shown
        with np.errstate(invalid="ignore"):
            if is_period_spec(period):
                if tm is None:
                    raise InputError(f"period {period!r} is a length, which needs a time "
                                     "column; give time=..., or period labels per game")
                pr = bucket_periods(tm, period)
            else:
                pr, labels = period_labels(period, source)
                check_length(pr, "period", n)
        bad = pr == NO_PERIOD
        if bad.any():
            i = int(np.argmax(bad))
            if is_period_spec(period):
                raise InputError(f"period {period!r} puts the time at {source.where(i)} in a "
                                 "period numbered beyond the 64-bit integers; give a longer "
                                 "period")
            raise InputError(f"column 'period' must be a period number within +-9.2e18 "
                             f"(64-bit); found one beyond at {source.where(i)}")
    return tm, pr, labels


def chronological_order(time: np.ndarray | None, period: np.ndarray | None, *, sort: bool,
                        source: Source, what: str = "games") -> np.ndarray | None:
    """The stable order that sorts the rows by time (else by period); ``None`` when they
    are already in order. Out-of-order rows are an error with ``sort=False``, and so is a
    period that goes down while time goes up. ``source`` names the rows in errors."""
    order = None
    key = time if time is not None else period
    if key is None:
        return None
    keyv = key.view(np.int64) if key.dtype.kind == "M" else key
    back = keyv[1:] < keyv[:-1]
    if back.any():
        if not sort:
            i = int(np.argmax(back)) + 1
            col = "time" if time is not None else "period"
            raise fail_at(col, f"must be nondecreasing ({what} in chronological order)",
                          key, i, source, "sort the input by time, or pass sort=True "
                          "(--sort)")
        order = np.argsort(keyv, kind="stable").astype(np.int64)
    if time is not None and period is not None:
        pk = period if order is None else period[order]
        pback = pk[1:] < pk[:-1]
        if pback.any():
            i = int(np.argmax(pback)) + 1
            row = i if order is None else int(order[i])
            raise fail_at("period", "must not decrease while time increases", period, row,
                          source)
    return order


def games_from_box(box: list, *, white: str | None = None, black: str | None = None,
                   score: str | None = None, winner: str | None = None,
                   loser: str | None = None, first_points: str | None = None,
                   second_points: str | None = None, time: str | None = None,
                   time_format: str | None = None, period: Any = None,
                   weight: str | None = None, margin: str | None = None,
                   neutral: str | None = None, sort: bool = True,
                   drop_self_play: bool = False, source: Source | str | None = None,
                   context: str | None = None, best_of: str | None = None,
                   share: str | None = None, tennis_score: str | None = None,
                   entry: str | None = None, entry_rd: str | None = None,
                   players: Any = None) -> Games:
    """:class:`Games` from the Arrow table in the one-element list ``box``, which it
    empties (so that the table's columns are freed as soon as they are converted);
    column options as in :func:`fastrate.io.tables.games_from_table` (``players``: the
    player columns are integer ids into it)."""
    columns, dropped = game_columns(
        box, white=white, black=black, score=score, winner=winner, loser=loser,
        first_points=first_points, second_points=second_points, time=time,
        time_format=time_format, period=period, weight=weight, margin=margin,
        neutral=neutral, sort=sort, drop_self_play=drop_self_play, source=source,
        context=context, best_of=best_of, share=share, tennis_score=tennis_score,
        entry=entry, entry_rd=entry_rd)
    games = Games.from_arrays(columns.pop("white"), columns.pop("black"), columns.pop("score"),
                              players=players, **columns)
    return dataclasses.replace(games, dropped=dropped) if dropped else games
