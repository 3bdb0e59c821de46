"""Multiplayer and team results as CSR arrays: :class:`Matches`.

A match holds two or more teams, a team holds one or more players, and each team has a
rank (1 is best; equal ranks are a tie). Free-for-all games are matches of one-player
teams, and two-player games (:class:`fastrate.Games`) are matches of two one-player teams
(:meth:`Matches.from_games`). The long format -- one row per player seat: match, team,
player, and a rank, place or score -- is the input of :meth:`Matches.from_arrays`,
:meth:`Matches.from_frame` and :func:`fastrate.read_matches`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from fastrate._validate import (
    NO_SOURCE,
    Source,
    arrow_to_numpy,
    as_1d,
    as_float64,
    check_range,
    fail_at,
    format_value,
    is_arrow_array,
    numpy_to_arrow,
    require,
    single_chunk,
    to_arrow_table,
)
from fastrate.data._csr import (
    factorize,
    first_rows,
    group_of,
    offsets_from_counts,
    pair_offsets,
    refuse_empty,
    run_starts,
)
from fastrate.data.game_table import (
    TIME_COLUMNS,
    find_column,
    period_column,
    pick_column,
    time_values,
)
from fastrate.data.games import Games, chronological_order, player_ids, time_and_period
from fastrate.data.periods import is_period_spec
from fastrate.data.players import PlayerIndex, renumbered
from fastrate.errors import InputError, InputTypeError, MissingColumnError

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["Matches", "MatchLayout", "match_layout", "matches_from_table", "pair_offsets",
           "MATCH_COLUMNS",
           "TEAM_COLUMNS", "PLAYER_COLUMNS", "RANK_COLUMNS", "SCORE_COLUMNS", "UNRANKED",
           "MATCH_ONLY_COLUMNS"]

#: the column options of a long-format (matches) reader that a two-player games reader
#: has not
MATCH_ONLY_COLUMNS = ("match", "team", "free_for_all", "player", "rank", "place", "unranked")

#: column names recognised (case-insensitively, first found wins) in a long-format table
MATCH_COLUMNS = ("match", "match_id", "game", "game_id", "event", "event_id", "race",
                 "race_id")
TEAM_COLUMNS = ("team", "team_id", "team_name")
PLAYER_COLUMNS = ("player", "player_id", "player_name", "driver", "competitor")
#: lower is better
RANK_COLUMNS = ("rank", "place", "position", "placement", "finish")
#: higher is better
SCORE_COLUMNS = ("score", "points")
#: what to do with rows whose rank is missing
UNRANKED = ("error", "last", "drop")


@dataclass(frozen=True, eq=False)
class Matches:
    """Matches of teams of players, in chronological order, as CSR arrays.

    Match ``m`` owns the teams ``match_team_offsets[m] .. match_team_offsets[m+1]-1``,
    team ``t`` owns the seats ``team_player_offsets[t] .. team_player_offsets[t+1]-1``,
    and seat ``s`` is player ``player[s]``. Every array is 1-D, C-contiguous and int64
    or float64, as kernels take them.

    Attributes
    ----------
    match_team_offsets : int64 array (n_matches + 1)
    team_player_offsets : int64 array (n_teams + 1)
    player : int64 array (n_seats)
        Player id (into :attr:`players`) of every seat.
    rank : int64 array (n_teams)
        Standard competition rank of every team in its match: 1 + the number of teams
        of the match that did strictly better (``1, 2, 2, 4``); equal ranks are a tie.
        Within a match the teams are stored best first (ties in input order), so
        ``rank`` is nondecreasing inside every match.
    players : PlayerIndex
    weight : float64 array (n_seats), optional
        Each seat's weight in [0, 1]: the share of the match a player took part in
        (partial play). A weight of 0 leaves the player out of the match (every team
        has a player above 0); each rating system documents how it reads it. ``None``
        means 1 for every seat.
    time : datetime64[ns] or float64 array (n_matches), optional
    period : int64 array (n_matches), optional
        Absolute rating-period number of each match, nondecreasing.
    period_labels : array, optional
        The original labels when periods came from non-integer labels.
    match_labels : array (n_matches), optional
        The input's match key of every match.
    team_labels : array (n_teams), optional
        The input's team key of every team; ``None`` for free-for-all input (every
        player a team of his own).
    row : int64 array (n_seats), optional
        Input row of every seat.
    score : float64 array (n_teams), optional
        Each team's score as given (higher is better) when the ranks came from a
        score column; margin-aware systems (Weng-Lin ``margin``) read it.
    """

    match_team_offsets: np.ndarray
    team_player_offsets: np.ndarray
    player: np.ndarray
    rank: np.ndarray
    players: PlayerIndex
    weight: np.ndarray | None = None
    time: np.ndarray | None = None
    period: np.ndarray | None = None
    period_labels: np.ndarray | None = None
    match_labels: np.ndarray | None = None
    team_labels: np.ndarray | None = None
    row: np.ndarray | None = None
    score: np.ndarray | None = None
    source: Source = field(default=NO_SOURCE, repr=False)
    #: rows left out while reading: (reason, count, first row) triples
    dropped: tuple[tuple[str, int, str], ...] = ()

    # -- construction -------------------------------------------------------------

    @classmethod
    def from_arrays(cls, match: Any, team: Any, player: Any, *, rank: Any = None,
                    place: Any = None, score: Any = None, higher_is_better: bool | None = None,
                    weight: Any = None, time: Any = None, period: Any = None,
                    players: Sequence[Any] | PlayerIndex | None = None,
                    unranked: str = "error", sort: bool = True,
                    source: Source | str | None = None) -> Matches:
        """Build matches from long-format columns: one row per player seat.

        ``match`` and ``team`` are keys (any hashable values; a team key only needs to
        be unique within its match); ``team=None`` makes every row a team of its own
        (free-for-all). ``player`` holds names, or integer ids into ``players`` when
        that is given. Give exactly one of ``rank``/``place`` (lower is better) or
        ``score`` (higher is better); ``higher_is_better`` overrides that direction.
        Only the order of the values within a match counts, and equal values are a tie.
        Every row of a team must carry the same value, and so must every row of a match
        for ``time`` and ``period`` labels (``period`` may also be a length spec such as
        ``"1w"`` applied to ``time``, as for :class:`fastrate.Games`). ``weight`` is per
        seat, in [0, 1] (partial play; 0 leaves the player out).

        A missing rank is an error with ``unranked="error"`` (the default); ``"last"``
        ties every unranked team behind the ranked teams of its match; ``"drop"`` leaves
        those rows out (counted in :attr:`dropped`).

        Matches are stored in order of first appearance, stably sorted by time (or
        period) when those are given; ``sort=False`` refuses matches out of order.
        """
        src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
        rank_arg, values, higher = _rank_input(rank, place, score, higher_is_better)
        if match is None or player is None:
            raise InputTypeError("match and player columns are required (team=None is "
                                 "free-for-all)")
        if unranked not in UNRANKED:
            raise InputError(f"unranked must be one of {', '.join(map(repr, UNRANKED))}; got "
                             f"{unranked!r}")
        cols = {"match": match, "team": team, "player": player, rank_arg: values,
                "weight": weight, "time": time}
        if not is_period_spec(period):
            cols["period"] = period
        n = _n_rows(cols)
        r = as_float64(values, rank_arg, src, allow_nan=True)
        if np.isinf(r).any():
            raise fail_at(rank_arg, "must be a finite number", r, int(np.argmax(np.isinf(r))),
                          src)
        missing = np.isnan(r)
        keep = dropped = None
        if missing.any():
            first = int(np.argmax(missing))
            if unranked == "error":
                raise InputError(f"column '{src.column(rank_arg)}' must hold a number in "
                                 f"every row; found a missing value at {src.where(first)}; "
                                 "drop or fill those rows, or pass unranked='last' "
                                 "(--unranked last: unranked teams tie last) or "
                                 "unranked='drop' (--unranked drop)")
            if unranked == "drop":
                keep = require(np.flatnonzero(~missing), np.int64)
                dropped = ((f"no {src.column(rank_arg)}", int(missing.sum()),
                            src.where(first)),)
                match, team, player, weight, time = (
                    _take(x, keep) for x in (match, team, player, weight, time))
                period = period if is_period_spec(period) else _take(period, keep)
                r = require(r[keep], np.float64)
                src = dataclasses.replace(src, rows=keep if src.rows is None
                                          else np.asarray(src.rows)[keep])
                n = keep.shape[0]
                if n == 0:
                    raise InputError(f"no matches: every row has a missing {rank_arg}")
        key = -r if higher else r.copy()
        if unranked == "last":
            key[np.isnan(key)] = math.inf
        grouped = _group(match, team, player, (rank_arg, r, key), weight, time, period,
                         players, n, sort, src)
        row = grouped.pop("row")
        return cls(**grouped, row=row if keep is None else require(keep[row], np.int64),
                   source=src, dropped=dropped or ())

    @classmethod
    def from_frame(cls, frame: Any, **columns: Any) -> Matches:
        """Build matches from a long-format pandas/polars DataFrame or pyarrow Table.

        Columns are recognised by name (see :func:`match_layout`) or mapped with
        ``match="col"``, ``team="col"``, ``player="col"``, ``rank=``/``place=``/``score=``,
        ``weight=``, ``time=``; other options as in :meth:`from_arrays`.
        """
        return matches_from_table(to_arrow_table(frame), **columns)

    @classmethod
    def from_games(cls, games: Games) -> Matches:
        """Two-player games as matches of two one-player teams.

        Score 1 ranks the first player 1 and the second 2, score 0 the other way round,
        and 0.5 is a tie (both rank 1, first player first); other fractions are refused.
        Time, period and weight (given to both seats; it must be in [0, 1], a share
        of the game, as seat weights are) are kept; ``margin`` and ``neutral`` have no
        place in a match. Match labels are the games' input rows, and
        the seats of game ``g`` (input row) are rows ``2g`` (first player) and ``2g + 1``.
        """
        s = games.score
        bad = (s != 0.0) & (s != 0.5) & (s != 1.0)
        if bad.any():
            k = int(np.argmax(bad))
            row = k if games.order is None else int(games.order[k])
            raise fail_at("score", "must be 1, 0.5 or 0 to become ranks (a win, a draw or a "
                          "loss)", games.to_input_order(s), row, games.source)
        if games.weight is not None:
            check_range(games.to_input_order(games.weight), "weight", 0.0, 1.0, games.source)
        n = games.n_games
        second_won = s == 0.0
        player = np.empty(2 * n, dtype=np.int64)
        player[0::2] = np.where(second_won, games.black, games.white)
        player[1::2] = np.where(second_won, games.white, games.black)
        rank = np.ones(2 * n, dtype=np.int64)
        rank[1::2] = np.where(s == 0.5, 1, 2)
        game_row = np.arange(n, dtype=np.int64) if games.order is None else games.order
        row = np.empty(2 * n, dtype=np.int64)
        row[0::2] = 2 * game_row + second_won
        row[1::2] = 2 * game_row + ~second_won
        return cls(match_team_offsets=require(np.arange(0, 2 * n + 1, 2), np.int64),
                   team_player_offsets=require(np.arange(2 * n + 1), np.int64),
                   player=player, rank=rank, players=games.players,
                   weight=None if games.weight is None else require(
                       np.repeat(games.weight, 2), np.float64),
                   time=games.time, period=games.period, period_labels=games.period_labels,
                   match_labels=require(game_row, np.int64), row=row, source=games.source)

    # -- properties ---------------------------------------------------------------

    @property
    def n_matches(self) -> int:
        return int(self.match_team_offsets.shape[0] - 1)

    @property
    def n_teams(self) -> int:
        return int(self.team_player_offsets.shape[0] - 1)

    @property
    def n_seats(self) -> int:
        """Player seats: one per player per match."""
        return int(self.player.shape[0])

    @property
    def n_players(self) -> int:
        return len(self.players)

    def __len__(self) -> int:
        return self.n_matches

    def __repr__(self) -> str:
        extras = [k for k in ("time", "period", "weight") if getattr(self, k) is not None]
        return (f"Matches({self.n_matches} matches, {self.n_teams} teams, {self.n_seats} "
                f"seats, {self.n_players} players"
                + (f", with {', '.join(extras)}" if extras else "") + ")")

    def team_match(self) -> np.ndarray:
        """The match of every team (int64, n_teams)."""
        return group_of(self.match_team_offsets)

    def seat_team(self) -> np.ndarray:
        """The team of every seat (int64, n_seats)."""
        return group_of(self.team_player_offsets)

    def teams_of(self, match: int) -> list[np.ndarray]:
        """The player ids of each team of match ``match`` (a stored index), best first."""
        m = _index(match, self.n_matches, "match")
        tpo = self.team_player_offsets
        return [self.player[tpo[t]:tpo[t + 1]]
                for t in range(self.match_team_offsets[m], self.match_team_offsets[m + 1])]

    def ranks_of(self, match: int) -> np.ndarray:
        """The ranks of the teams of match ``match``, in the order of :meth:`teams_of`."""
        m = _index(match, self.n_matches, "match")
        return self.rank[self.match_team_offsets[m]:self.match_team_offsets[m + 1]]

    def iter_matches(self) -> Iterator[tuple[list[np.ndarray], np.ndarray]]:
        """``(teams_of(m), ranks_of(m))`` for every match in stored order."""
        for m in range(self.n_matches):
            yield self.teams_of(m), self.ranks_of(m)

    def weight_or_one(self) -> np.ndarray:
        """Seat weights, or all ones when the matches have none."""
        if self.weight is not None:
            return self.weight
        return np.ones(self.n_seats, dtype=np.float64)

    def period_or_zero(self) -> np.ndarray:
        """Period numbers, or all zeros (a single period) when the matches have none."""
        if self.period is not None:
            return self.period
        return np.zeros(self.n_matches, dtype=np.int64)

    def pair_offsets(self) -> np.ndarray:
        """Offsets of every match's team pairs (see :func:`pair_offsets`)."""
        return pair_offsets(self.match_team_offsets)

    def is_two_player(self) -> bool:
        """Whether every match is two one-player teams (what :meth:`to_games` takes)."""
        return bool(self.n_teams == 2 * self.n_matches
                    and self.n_seats == self.n_teams)

    def to_games(self) -> Games:
        """Matches of two one-player teams as two-player :class:`fastrate.Games`
        (stored order, first player = the better-ranked; a tie scores 0.5), for the
        two-player systems. Seat weights become game weights only when both seats of a
        game agree."""
        if not self.is_two_player():
            raise InputError("only matches of two one-player teams are two-player games; "
                             f"these have {self.n_teams} teams and {self.n_seats} seats in "
                             f"{self.n_matches} matches")
        first, second = self.player[0::2], self.player[1::2]
        score = np.where(self.rank[0::2] == self.rank[1::2], 0.5, 1.0)
        weight = None
        if self.weight is not None:
            if (self.weight[0::2] != self.weight[1::2]).any():
                raise InputError("a two-player game has one weight: the two seats of a "
                                 "match must have the same weight to become a game")
            weight = self.weight[0::2]
        period = None
        if self.period is not None:
            period = (self.period if self.period_labels is None
                      else self.period_labels[self.period])
        return Games.from_arrays(first, second, score, players=self.players, weight=weight,
                                 time=self.time, period=period)

    def with_players(self, index: PlayerIndex, mapping: np.ndarray) -> Matches:
        """The same matches re-expressed in a larger player index (``mapping[old] = new``)."""
        return dataclasses.replace(self, player=renumbered(self.player, mapping),
                                   players=index)

    def to_arrow(self) -> pa.Table:
        """The long table back out: one row per seat in stored order, with columns
        ``match``, ``team`` (unless free-for-all), ``player``, ``rank`` and, where
        present, ``weight``, ``time``, ``period``; :meth:`from_frame` reads it back."""
        import pyarrow as pa

        seat_match = self.team_match()[self.seat_team()]
        match = (np.arange(self.n_matches, dtype=np.int64) if self.match_labels is None
                 else self.match_labels)
        cols: dict[str, Any] = {"match": match[seat_match]}
        if self.team_labels is not None:
            cols["team"] = self.team_labels[self.seat_team()]
        cols["player"] = self.players.names[self.player]
        cols["rank"] = self.rank[self.seat_team()]
        if self.weight is not None:
            cols["weight"] = self.weight
        if self.time is not None:
            cols["time"] = self.time[seat_match]
        if self.period is not None:
            cols["period"] = (self.period if self.period_labels is None
                              else self.period_labels[self.period])[seat_match]
        return pa.table({k: _arrow_column(v) for k, v in cols.items()})


# -- grouping -------------------------------------------------------------------------


def _group(match: Any, team: Any, player: Any, ranks: tuple[str, np.ndarray, np.ndarray],
           weight: Any, time: Any, period: Any, players: Any, n: int, sort: bool,
           src: Source) -> dict[str, Any]:
    """The CSR fields of :class:`Matches` from the row columns. ``ranks``: the rank
    argument's name, its values as given, and the sort key (lower is better, +inf for
    unranked teams ranked last)."""
    rank_arg, given, r = ranks
    mid0, mlabels = factorize(match, "match", src)
    index, pid = _players(player, players, src)
    wt = None
    if weight is not None:
        wt = as_float64(weight, "weight", src)
        check_range(wt, "weight", 0.0, 1.0, src)
    tm, pr, plabels = time_and_period(time, period, n, src)
    mfirst = first_rows(mid0)
    for col, values in (("time", tm), ("period", pr)):
        if values is not None:
            _check_same(values, mfirst[mid0], col, "match", src,
                        lambda i: f"match {format_value(mlabels[mid0[i]])}")
    if team is None:
        tfirst = np.arange(n, dtype=np.int64)
        tid0 = tlabels = None
    else:
        tid0, tlabels = factorize(team, "team", src)
        _, firsts, inverse = np.unique(mid0 * len(tlabels) + tid0, return_index=True,
                                       return_inverse=True)
        tfirst = require(firsts[inverse.reshape(-1)], np.int64)
        _check_same(np.where(np.isnan(given), np.inf, given), tfirst, rank_arg, "team", src,
                    lambda i: f"team {format_value(tlabels[tid0[i]])} of match "
                              f"{format_value(mlabels[mid0[i]])}")
    _check_repeats(pid, mid0, index, mlabels, src)
    # matches in chronological order (first appearance breaks ties)
    msrc = dataclasses.replace(src, rows=mfirst if src.rows is None
                               else np.asarray(src.rows)[mfirst])
    mtime = None if tm is None else tm[mfirst]
    mperiod = None if pr is None else pr[mfirst]
    morder = chronological_order(mtime, mperiod, sort=sort, source=msrc, what="matches")
    if morder is None:
        mid = mid0
    else:
        position = np.empty(morder.shape[0], dtype=np.int64)
        position[morder] = np.arange(morder.shape[0], dtype=np.int64)
        mid = position[mid0]
    # seats: match, then team by rank (ties by first appearance), then input row
    order = require(np.lexsort((tfirst, r, mid)), np.int64)
    team_starts = run_starts(tfirst[order])
    heads = order[team_starts[:-1]]  # the first stored seat of every team
    team_match = mid[heads]
    n_matches = mlabels.shape[0]
    counts = np.bincount(team_match, minlength=n_matches)
    if (counts < 2).any():
        m = int(np.argmax(counts < 2))
        first = int(order[np.searchsorted(mid[order], m)])
        raise InputError(f"match {format_value(mlabels[mid0[first]])} must have at least two "
                         f"teams; found 1 at {src.where(int(mfirst[mid0[first]]))}; drop "
                         "that match"
                         + ("" if team is None else " or check its team column"))
    mto = offsets_from_counts(counts)
    rank = _competition_ranks(team_match, r[heads], mto)
    if wt is not None:
        _check_team_weights(wt[order], team_starts, order, src, tlabels, tid0, mlabels, mid0)

    def per_match(a: np.ndarray | None) -> np.ndarray | None:
        if a is None:
            return None
        a = a[mfirst]
        return require(a if morder is None else a[morder], a.dtype)

    return dict(match_team_offsets=mto, team_player_offsets=team_starts,
                player=require(pid[order], np.int64), rank=rank, players=index,
                weight=None if wt is None else require(wt[order], np.float64),
                time=per_match(tm), period=per_match(pr), period_labels=plabels,
                match_labels=mlabels if morder is None else mlabels[morder],
                team_labels=None if tlabels is None else tlabels[tid0[heads]], row=order,
                score=require(given[heads], np.float64) if rank_arg == "score" else None)


def _check_team_weights(w: np.ndarray, team_starts: np.ndarray, order: np.ndarray, src: Source,
                        tlabels: Any, tid0: Any, mlabels: np.ndarray, mid0: np.ndarray) -> None:
    """A team must have a player with a weight above 0 (weights in stored seat order)."""
    top = np.maximum.reduceat(w, team_starts[:-1]) if w.shape[0] else w
    if (top <= 0.0).any():
        t = int(np.argmax(top <= 0.0))
        i = int(order[team_starts[t]])
        who = ("the team" if tlabels is None
               else f"team {format_value(tlabels[tid0[i]])}")
        raise InputError(f"column '{src.column('weight')}' is 0 for every player of {who} in "
                         f"match {format_value(mlabels[mid0[i]])} (at {src.where(i)}); a team "
                         "needs a player who took part: drop that team or give it a weight "
                         "above 0")


def _competition_ranks(team_match: np.ndarray, key: np.ndarray,
                       offsets: np.ndarray) -> np.ndarray:
    """Standard competition ranks (``1, 2, 2, 4``) of teams sorted by match, then by
    ``key`` (lower is better); ``offsets``: the match -> team offsets."""
    new = np.ones(key.shape[0], dtype=np.bool_)
    new[1:] = (team_match[1:] != team_match[:-1]) | (key[1:] != key[:-1])
    run = np.maximum.accumulate(np.where(new, np.arange(key.shape[0]), 0))
    return require(run - offsets[team_match] + 1, np.int64)


def _players(player: Any, players: Any, src: Source) -> tuple[PlayerIndex, np.ndarray]:
    if players is not None:
        index = players if isinstance(players, PlayerIndex) else PlayerIndex(players)
        return index, player_ids(as_1d(player, "player"), "player", len(index), src)
    index, (pid,) = PlayerIndex.intern(player, names=["player"], source=src)
    refuse_empty(index.names, pid, "player", src)
    return index, pid


def _check_same(values: np.ndarray, ref: np.ndarray, column: str, what: str, src: Source,
                describe: Callable[[int], str]) -> None:
    """Every row of a group (a match or a team) carries the value of the group's first
    row, ``ref[i]`` for row ``i``; ``describe(i)`` names row i's group."""
    bad = values != values[ref]
    if bad.any():
        i = int(np.argmax(bad))
        j = int(ref[i])
        raise InputError(
            f"column '{src.column(column)}' must be the same in every row of a {what}; found "
            f"{format_value(values[i])} at {src.where(i)} but {format_value(values[j])} at "
            f"{src.where(j)} ({describe(i)})")


def _check_repeats(pid: np.ndarray, mid: np.ndarray, index: PlayerIndex, mlabels: np.ndarray,
                   src: Source) -> None:
    """A player sits at most once in a match."""
    n_players = max(len(index), 1)
    if mid.shape[0] and int(mid.max()) < np.iinfo(np.int64).max // n_players - 1:
        key = np.sort(mid * n_players + pid)  # one int64 sort: the fast check
        if not (key[1:] == key[:-1]).any():
            return
    o = np.lexsort((pid, mid))
    ps, ms = pid[o], mid[o]
    dup = (ps[1:] == ps[:-1]) & (ms[1:] == ms[:-1])
    if dup.any():
        k = int(np.argmax(dup))
        i, j = int(o[k + 1]), int(o[k])
        raise InputError(
            f"column '{src.column('player')}' must not repeat within a match; found "
            f"{format_value(index[pid[i]])} at {src.where(i)}, already at {src.where(j)} "
            f"(match {format_value(mlabels[mid[i]])}); drop the repeated row")


# -- helpers --------------------------------------------------------------------------


def _rank_input(rank: Any, place: Any, score: Any,
                higher_is_better: bool | None) -> tuple[str, Any, bool]:
    given = [(name, v) for name, v in (("rank", rank), ("place", place), ("score", score))
             if v is not None]
    if len(given) != 1:
        found = ", ".join(name for name, _ in given) or "none"
        raise InputTypeError(f"give exactly one of rank=, place= (lower is better) or score= "
                             f"(higher is better); got {found}")
    name, values = given[0]
    if higher_is_better is None:
        higher_is_better = name == "score"
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise InputTypeError(f"higher_is_better must be True or False; got "
                             f"{higher_is_better!r}")
    return name, values, bool(higher_is_better)


def _n_rows(columns: dict[str, Any]) -> int:
    """The common length of the given columns (None: not given)."""
    n = None
    for name, x in columns.items():
        if x is None:
            continue
        if not hasattr(x, "__len__") or isinstance(x, (str, bytes)):
            raise InputTypeError(f"column '{name}' must be an array or a list; got "
                                 f"{type(x).__name__}")
        if n is None:
            n = len(x)
            if n == 0:
                raise InputError("no matches: the input has no rows")
        elif len(x) != n:
            raise InputError(f"column '{name}' must have one value per row ({n}); got "
                             f"{len(x)}")
    assert n is not None  # match is never None
    return n


def _take(x: Any, keep: np.ndarray) -> Any:
    """Rows ``keep`` of a column (Arrow arrays stay Arrow, lists keep their objects)."""
    if x is None:
        return None
    if is_arrow_array(x):
        return single_chunk(x).take(numpy_to_arrow(keep))
    if isinstance(x, (list, tuple)):
        arr = np.empty(len(x), dtype=object)
        arr[:] = x
        return arr[keep]
    return as_1d(x, "column")[keep]


def _index(i: Any, n: int, what: str) -> int:
    if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
        raise InputTypeError(f"{what} must be an integer index; got {i!r}")
    if not -n <= i < n:
        raise InputError(f"{what} index must be in [0, {n}); got {i}")
    return int(i) % n


def _arrow_column(x: np.ndarray):
    import pyarrow as pa

    if x.dtype.kind == "O":
        return pa.array(x.tolist())
    return numpy_to_arrow(np.ascontiguousarray(x))


# -- tables ---------------------------------------------------------------------------


@dataclass
class MatchLayout:
    """Which table column plays which part of a long-format match table."""

    match: str
    player: str
    rank: str
    rank_arg: str  # "rank", "place" or "score"
    team: str | None = None
    weight: str | None = None
    time: str | None = None
    period: str | None = None

    def columns(self) -> list[str]:
        names = [self.match, self.team, self.player, self.rank, self.weight, self.time,
                 self.period]
        return list(dict.fromkeys(n for n in names if n is not None))


def match_layout(cols: list[str], where: str, *, match: str | None = None,
                 team: str | bool | None = None, player: str | None = None,
                 rank: str | None = None, place: str | None = None,
                 score: str | None = None, weight: str | None = None,
                 time: str | None = None, period: Any = None) -> MatchLayout:
    """Resolve the columns of a long-format table from their names (no data is read).

    Recognised case-insensitively, first found wins: match ``match``, ``match_id``,
    ``game``, ``game_id``, ``event``, ``event_id``, ``race``, ``race_id``; team ``team``,
    ``team_id``, ``team_name`` (none: free-for-all; ``team=False`` ignores one); player
    ``player``, ``player_id``, ``player_name``, ``driver``, ``competitor``; rank (lower
    is better) ``rank``, ``place``, ``position``, ``placement``, ``finish``, else score
    (higher is better) ``score``, ``points``; ``weight``; time as for games (``time``,
    ``date`` ...). Names given explicitly must match exactly.
    """
    lower = {c.lower(): c for c in cols}

    def pick(name: str, what: str) -> str:
        return pick_column(cols, name, what, where)

    def find(names: tuple[str, ...], what: str, hint: str) -> str:
        found = find_column(lower, names)
        if found is None:
            raise MissingColumnError(f"cannot find the {what} column in {where} (columns: "
                                     f"{', '.join(cols)}); {hint}", what)
        return found

    m = pick(match, "matches") if match is not None else find(
        MATCH_COLUMNS, "match", "name it match, game, event or race, or map it with match=")
    p = pick(player, "players") if player is not None else find(
        PLAYER_COLUMNS, "player", "name it player, or map it with player=")
    explicit = [(arg, v) for arg, v in (("rank", rank), ("place", place), ("score", score))
                if v is not None]
    if len(explicit) > 1:
        raise InputTypeError("give at most one of rank=, place= or score=")
    if explicit:
        arg, name = explicit[0]
        r = pick(name, f"{arg}s")
    else:
        r = find_column(lower, RANK_COLUMNS)
        arg = "rank"
        if r is None:
            arg = "score"
            r = find(SCORE_COLUMNS, "rank", "name it rank, place or position (lower is "
                     "better) or score or points (higher is better), or map it with rank=, "
                     "place= or score=")
    lay = MatchLayout(match=m, player=p, rank=r, rank_arg=arg)
    if team is not None and team is not False:
        if not isinstance(team, str):
            raise InputTypeError(f"team must be a column name or False; got {team!r}")
        lay.team = pick(team, "teams")
    elif team is None:
        lay.team = find_column(lower, TEAM_COLUMNS)
    lay.weight = pick(weight, "weights") if weight is not None else lower.get("weight")
    lay.time = pick(time, "times") if time is not None else find_column(lower,
                                                                         TIME_COLUMNS)
    lay.period = period_column(period, cols, lower)
    return lay


def matches_from_table(table: Any, *, match: str | None = None, team: str | bool | None = None,
                       player: str | None = None, rank: str | None = None,
                       place: str | None = None, score: str | None = None,
                       higher_is_better: bool | None = None, weight: str | None = None,
                       time: str | None = None, time_format: str | None = None,
                       period: Any = None, players: Sequence[Any] | PlayerIndex | None = None,
                       unranked: str = "error", sort: bool = True,
                       source: Source | str | None = None) -> Matches:
    """:class:`Matches` from a long-format pyarrow Table, columns found by
    :func:`match_layout`; errors name the table's columns (and the file line, with a
    ``source`` from :func:`fastrate.io.tables.source_for`)."""
    src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
    where = src.name or "the input"
    if table.num_rows == 0:
        raise InputError(f"no matches: {where} has no rows")
    lay = match_layout(list(table.column_names), where, match=match, team=team, player=player,
                       rank=rank, place=place, score=score, weight=weight, time=time,
                       period=period)
    parts = (("match", lay.match), ("team", lay.team), ("player", lay.player),
             (lay.rank_arg, lay.rank), ("weight", lay.weight), ("time", lay.time),
             ("period", lay.period))
    src = dataclasses.replace(src, columns=tuple((arg, col) for arg, col in parts
                                                 if col is not None and col != arg))

    def column(name: str | None) -> Any:
        return None if name is None else table.column(name)

    tm = None
    if lay.time is not None:
        tm = time_values(table.column(lay.time), lay.time, time_format, src)
    values = arrow_to_numpy(table.column(lay.rank))
    return Matches.from_arrays(
        column(lay.match), column(lay.team), column(lay.player),
        **{lay.rank_arg: values}, higher_is_better=higher_is_better,
        weight=None if lay.weight is None else arrow_to_numpy(table.column(lay.weight)),
        time=tm, period=column(lay.period) if lay.period is not None else period,
        players=players, unranked=unranked, sort=sort, source=src)
