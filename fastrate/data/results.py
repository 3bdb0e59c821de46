"""Results of a rating run: :class:`Ratings`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._validate import numpy_to_arrow
from fastrate.data.players import PlayerIndex

__all__ = ["Ratings"]

#: ``last_period`` of a player who has not played yet
NO_PERIOD = np.iinfo(np.int64).min


@dataclass(eq=False)
class Ratings:
    """The result of a rating run.

    ``rating``, ``rd``, ``volatility``, ``games_played`` and ``last_period`` are
    arrays indexed by player id (see :attr:`players`); ``predictions`` holds, for every
    game in input order, the first player's expected score before the game.
    """

    system: str
    players: PlayerIndex
    rating: np.ndarray
    games_played: np.ndarray
    predictions: np.ndarray
    config: Any = None
    rd: np.ndarray | None = None
    volatility: np.ndarray | None = None
    last_period: np.ndarray | None = None
    #: ids of players whose last volatility solve did not converge (Glicko-2)
    unconverged: np.ndarray | None = None
    #: both players' ratings before every game, in input order (Elo with record_pregame)
    pre_white: np.ndarray | None = None
    pre_black: np.ndarray | None = None
    #: Elo with FIDE's K rule: whether each rating has ever reached the threshold
    fide_reached: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.players)

    def __repr__(self) -> str:
        return f"Ratings({self.system}, {len(self)} players, {self.predictions.shape[0]} games)"

    def __getitem__(self, name: Any) -> float:
        """The rating of the player called ``name``."""
        return float(self.rating[self.players.id_of(name)])

    def columns(self) -> dict[str, np.ndarray]:
        """The per-player table as a dict of equal-length arrays."""
        out: dict[str, np.ndarray] = {"player": self.players.names, "rating": self.rating}
        if self.rd is not None:
            out["rd"] = self.rd
        if self.volatility is not None:
            out["volatility"] = self.volatility
        out["games_played"] = self.games_played
        if self.last_period is not None:
            out["last_period"] = self.last_period
        if self.fide_reached is not None:
            out["fide_reached"] = self.fide_reached
        return out

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

    def top(self, n: int = 10) -> list[tuple[Any, float]]:
        """The ``n`` best players as ``(name, rating)`` pairs."""
        idx = self.ranking()[:n]
        return [(self.players[i], float(self.rating[i])) for i in idx]
