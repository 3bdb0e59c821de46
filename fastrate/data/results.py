"""Results of a rating run: :class:`Ratings`, :class:`Predictions` and
:class:`RatingHistory`."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from typing import Any

import numpy as np

from fastrate._validate import numpy_to_arrow
from fastrate.data.players import PlayerIndex
from fastrate.errors import InputError

__all__ = ["Ratings", "Predictions", "RatingHistory", "NO_PERIOD", "PREDICTION_KINDS"]

#: ``last_period`` of a player who has not played yet
NO_PERIOD = np.iinfo(np.int64).min


#: the optional standard state columns that ``Ratings(...)`` takes as keywords, and
#: where each stands in the table (after ``rating`` or after ``games_played``)
_BEFORE_GAMES = ("rd", "volatility")
_AFTER_GAMES = ("last_period", "fide_reached")


@dataclass(eq=False)
class Ratings:
    """The result of a rating run.

    :attr:`state` is the player-state table: every per-player column by name (arrays
    indexed by player id, see :attr:`players`), in table order, ``rating`` and
    ``games_played`` included, plus whatever the system declares (``rd``, ``volatility``,
    ``last_period``, FIBS's ``experience`` ...; see :data:`fastrate.systems.REGISTRY`); a
    ``state=`` that holds ``rating`` and ``games_played`` too is the whole table, kept
    in its order.
    The standard ones can be given as keywords (``Ratings(..., rd=..., last_period=...)``)
    and read as attributes (``ratings.rd``, None when the system has no such column);
    others go in ``state=``. ``predictions`` holds, for every game in input order, the
    first player's expected score before the game (:attr:`predicted` wraps it). A system
    that rates :class:`~fastrate.data.Matches` gives instead every team's walk-forward
    probability of winning its match (stored team order; a match's values sum to 1), and
    :attr:`pair_predictions` for every pair of teams.
    """

    system: str
    players: PlayerIndex
    rating: np.ndarray
    games_played: np.ndarray
    #: None when the run was asked for final ratings only (``rate(..., predictions=False)``)
    predictions: np.ndarray | None
    config: Any = None
    #: the per-player state columns by name, in table order
    state: dict[str, np.ndarray] = field(default_factory=dict)
    #: Glicko-2: ids of players whose last volatility solve did not converge;
    #: TrueSkill: stored indices of matches whose message schedule stopped at
    #: max_iterations
    unconverged: np.ndarray | None = None
    #: both players' ratings before every game, in input order (Elo with record_pregame)
    pre_white: np.ndarray | None = None
    pre_black: np.ndarray | None = None
    #: systems that rate Matches: each pair of teams' walk-forward expected score (the
    #: first team's win probability plus half the draw probability), pairs of each match
    #: in the order of :func:`fastrate.data.matches.pair_offsets`
    pair_predictions: np.ndarray | None = None
    #: the system's own per-player values that the table rounds (Glicko's RD^2, Glicko-2's
    #: rating and RD^2 on its internal scale), by name: continuing from this object
    #: (``initial=``) starts from them, so a run continued at a period boundary repeats
    #: the full run to the bit (from a saved table: to about 1e-13)
    exact: dict[str, np.ndarray] | None = field(default=None, repr=False)
    rd: InitVar[np.ndarray | None] = None
    volatility: InitVar[np.ndarray | None] = None
    last_period: InitVar[np.ndarray | None] = None
    fide_reached: InitVar[np.ndarray | None] = None

    def __post_init__(self, rd: np.ndarray | None, volatility: np.ndarray | None,
                      last_period: np.ndarray | None, fide_reached: np.ndarray | None
                      ) -> None:
        given = {"rd": rd, "volatility": volatility, "last_period": last_period,
                 "fide_reached": fide_reached}
        if "rating" in self.state and "games_played" in self.state:
            # a complete table in the system's own order (TrueSkill: rating, mu, sigma,
            # games_played): keep that order, with the live rating and games arrays
            table = {k: v for k, v in self.state.items()}
            table["rating"], table["games_played"] = self.rating, self.games_played
            table.update((k, v) for k, v in given.items() if v is not None)
            self.state = table
            return
        extra = dict(self.state)
        for k in given:
            if given[k] is None and extra.get(k) is not None:
                given[k] = extra.pop(k)
        table: dict[str, np.ndarray] = {"rating": self.rating}
        table.update((k, given[k]) for k in _BEFORE_GAMES if given[k] is not None)
        table["games_played"] = self.games_played
        table.update((k, given[k]) for k in _AFTER_GAMES if given[k] is not None)
        table.update((k, v) for k, v in extra.items()
                     if k not in table and k not in ("rating", "games_played"))
        self.state = table

    def __len__(self) -> int:
        return len(self.players)

    def __repr__(self) -> str:
        games = "" if self.predictions is None else f", {self.predictions.shape[0]} games"
        return f"Ratings({self.system}, {len(self)} players{games})"

    def __getitem__(self, name: Any) -> float:
        """The rating of the player called ``name``."""
        return float(self.rating[self.players.id_of(name)])

    def columns(self) -> dict[str, np.ndarray]:
        """The per-player table as a dict of equal-length arrays: ``player`` and the
        state columns in table order."""
        live = {"rating": self.rating, "games_played": self.games_played}
        return {"player": self.players.names,
                **{k: live.get(k, v) for k, v in self.state.items()}}

    def ranking(self) -> np.ndarray:
        """Player ids from the highest rating down (ties keep id order)."""
        return np.argsort(-self.rating, kind="stable")

    def to_arrow(self, sort: bool = False):
        """The per-player table as a ``pyarrow.Table`` (``last_period`` null if never played)."""
        import pyarrow as pa

        cols = self.columns()
        idx = self.ranking() if sort else None
        arrays = []
        for k, v in cols.items():
            v = v if idx is None else v[idx]
            arrays.append(numpy_to_arrow(v, mask=v == NO_PERIOD if k == "last_period" else None))
        return pa.Table.from_arrays(arrays, names=list(cols))

    def to_frame(self, sort: bool = False):
        """The per-player table as a pandas DataFrame (needs pandas)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("to_frame() needs pandas (pip install pandas); "
                              "to_arrow() works without it") from None
        return self.to_arrow(sort=sort).to_pandas()

    @property
    def predicted(self) -> Predictions:
        """:attr:`predictions` as a :class:`Predictions` object (kind ``"team"`` for a
        system that rated matches, else ``"game"``)."""
        kind = "game" if self.pair_predictions is None else "team"
        return Predictions(self.predictions, kind, self.system)

    def history(self, games: Any) -> RatingHistory:
        """Every player's rating before each of his games (and the final rating after
        the last), from a run with ``record_pregame=True`` on ``games`` (Elo): the
        trajectory reports draw. Points are at the game's period (its row when the games
        have no periods); the final point is one period (row) after the player's last."""
        if self.pre_white is None or self.pre_black is None:
            raise ValueError("this run did not record pre-game ratings: rate with "
                             "record_pregame=True (Elo) to get a rating history")
        n = games.n_games
        order = np.arange(n) if games.order is None else games.order
        stored_when = games.period if games.period is not None else np.arange(n)
        when = np.empty(n, dtype=np.int64)
        when[order] = stored_when  # input order, like pre_white / pre_black
        if games.players is self.players:  # no initial state: the same ids
            ids = np.arange(len(self.players), dtype=np.int64)
        else:
            lookup = self.players.lookup
            ids = np.array([lookup[x] for x in games.players.names.tolist()], dtype=np.int64)
        white = np.empty(n, dtype=np.int64)
        black = np.empty(n, dtype=np.int64)
        white[order] = ids[games.white]
        black[order] = ids[games.black]
        played = np.unique(np.concatenate([white, black]))
        last = np.full(len(self.players), np.iinfo(np.int64).min)
        np.maximum.at(last, white, when)
        np.maximum.at(last, black, when)
        player = np.concatenate([white, black, played])
        at = np.concatenate([when, when, last[played] + 1])
        rating = np.concatenate([self.pre_white, self.pre_black, self.rating[played]])
        kind = "period" if games.period is not None else "row"
        return RatingHistory.from_points(self.players, player, at, rating, when_kind=kind)

    def leaderboard(self, min_games: int = 0, conservative: float = 0.0) -> np.ndarray:
        """Player ids for a published list: those with at least ``min_games`` games
        played, best first by ``rating - conservative * uncertainty`` (the ``rd`` column,
        or ``sigma`` for TrueSkill and Weng-Lin, whose ``rating`` is already mu - 3 sigma;
        0 for systems without one). Ties keep id order. On football, Glicko-2's plain top
        20 is led by teams with one or two games; ``min_games=10`` or ``conservative=2``
        (rating - 2 RD) lists the established ones."""
        if isinstance(min_games, bool) or not isinstance(min_games, (int, np.integer)) \
                or min_games < 0:
            raise InputError(f"min_games must be a whole number >= 0; got {min_games!r}")
        if isinstance(conservative, bool) or not isinstance(
                conservative, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(conservative) <= 1e3:
            raise InputError(f"conservative must be a number of uncertainties in [0, 1000]; "
                             f"got {conservative!r}")
        score = self.rating
        spread = self.state.get("rd", self.state.get("sigma"))
        if conservative and spread is not None:
            score = self.rating - float(conservative) * np.asarray(spread, dtype=np.float64)
        order = np.argsort(-score, kind="stable")
        if min_games:
            order = order[self.games_played[order] >= min_games]
        return order

    def top(self, n: int = 10, min_games: int = 0, conservative: float = 0.0
            ) -> list[tuple[Any, float]]:
        """The ``n`` best players as ``(name, rating)`` pairs (all of them when there are
        fewer; ``n`` must be a whole number >= 0), in :meth:`leaderboard` order."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise InputError(f"top() takes a number of players, a whole number >= 0; got "
                             f"{n!r}")
        idx = self.leaderboard(min_games, conservative)[:n]
        return [(self.players[i], float(self.rating[i])) for i in idx]


def _state_column(name: str) -> property:
    def get(self: Ratings) -> np.ndarray | None:
        return self.state.get(name)

    def set_(self: Ratings, value: np.ndarray | None) -> None:
        if value is None:
            self.state.pop(name, None)
        else:
            self.state[name] = value

    return property(get, set_, doc=f"The ``{name}`` state column (None when absent).")


for _name in (*_BEFORE_GAMES, *_AFTER_GAMES):
    setattr(Ratings, _name, _state_column(_name))


#: what one prediction is about: a two-player game (the first player's expected score),
#: or a team of a match (its probability of winning the match)
PREDICTION_KINDS = ("game", "team")


@dataclass(eq=False, frozen=True)
class Predictions:
    """What a rating system predicted before each result, with what it is about.

    ``kind`` ``"game"``: ``expected[i]`` is the first player's expected score in game
    ``i`` (input order), made from the ratings before the game (walk-forward). Team and
    placement systems add kinds with per-team values over CSR offsets. ``np.asarray``
    gives the values; ``len`` counts them.
    """

    expected: np.ndarray
    kind: str = "game"
    system: str = ""

    def __post_init__(self) -> None:
        if self.kind not in PREDICTION_KINDS:
            raise ValueError(f"kind of Predictions must be one of {', '.join(PREDICTION_KINDS)}; "
                             f"got {self.kind!r}")

    def __len__(self) -> int:
        return int(self.expected.shape[0])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.expected if dtype is None else self.expected.astype(dtype)

    def to_arrow(self):
        """``row`` (0-based input row) and ``expected`` as a ``pyarrow.Table``."""
        import pyarrow as pa

        return pa.table({"row": pa.array(np.arange(len(self), dtype=np.int64)),
                         "expected": numpy_to_arrow(self.expected)})


@dataclass(eq=False, frozen=True)
class RatingHistory:
    """Per-player rating trajectories, in CSR form: the points of player ``p`` are
    ``offsets[p]:offsets[p+1]``, in time order.

    Each point is a ``when`` (a rating period or a time; ``when_kind`` says which; a row
    number when the data had neither), the ``rating`` then and its ``uncertainty`` (a
    rating deviation; NaN for systems without one). Reports draw from it, and
    whole-history ratings produce it.
    """

    players: PlayerIndex
    offsets: np.ndarray
    when: np.ndarray
    rating: np.ndarray
    uncertainty: np.ndarray
    when_kind: str = "period"

    @classmethod
    def from_points(cls, players: PlayerIndex, player: Any, when: Any, rating: Any,
                    uncertainty: Any = None, when_kind: str = "period") -> RatingHistory:
        """Build from unordered points ``(player id, when, rating[, uncertainty])``:
        grouped by player, each player's points stably sorted by ``when``."""
        pid = np.ascontiguousarray(player, dtype=np.int64)
        wh = np.asarray(when)
        r = np.ascontiguousarray(rating, dtype=np.float64)
        u = (np.full(r.shape[0], np.nan) if uncertainty is None
             else np.ascontiguousarray(uncertainty, dtype=np.float64))
        if not (pid.shape == wh.shape == r.shape == u.shape) or pid.ndim != 1:
            raise ValueError("player, when, rating and uncertainty must be 1-D arrays of one "
                             f"length; got {pid.shape}, {wh.shape}, {r.shape}, {u.shape}")
        n = len(players)
        if pid.size and (pid.min() < 0 or pid.max() >= n):
            raise ValueError(f"player ids must be in [0, {n}); got {int(pid.min())}.."
                             f"{int(pid.max())}")
        order = np.lexsort((np.arange(pid.shape[0]), wh, pid))
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(pid, minlength=n), out=offsets[1:])
        return cls(players, offsets, wh[order], r[order], u[order], when_kind)

    def __len__(self) -> int:
        """The number of points."""
        return int(self.rating.shape[0])

    def trajectory(self, name: Any) -> dict[str, np.ndarray]:
        """The points of the player called ``name``: ``when``, ``rating``, ``uncertainty``."""
        p = self.players.id_of(name)
        lo, hi = int(self.offsets[p]), int(self.offsets[p + 1])
        return {"when": self.when[lo:hi], "rating": self.rating[lo:hi],
                "uncertainty": self.uncertainty[lo:hi]}

    def to_arrow(self):
        """One row per point: ``player``, ``when`` (named by ``when_kind``), ``rating``,
        ``uncertainty``."""
        import pyarrow as pa

        owner = np.repeat(np.arange(len(self.players)), np.diff(self.offsets))
        return pa.table({"player": numpy_to_arrow(self.players.names[owner]),
                         self.when_kind: numpy_to_arrow(self.when),
                         "rating": numpy_to_arrow(self.rating),
                         "uncertainty": numpy_to_arrow(self.uncertainty)})
