"""Containers (layer 1): struct-of-arrays data that kernels read without conversion.

- :class:`PlayerIndex` (``players``): player names <-> dense integer ids;
- :func:`parse_time`, :func:`bucket_periods` (``periods``): times and rating periods;
- :class:`Games` (``games``): two-player games in chronological order;
- :class:`Matches` (``matches``): multiplayer and team results (teams, ranks, weights);
- :class:`PlayerState` (``state``): per-player state and the ``initial=`` overlay;
- :class:`Ratings`, :class:`Predictions`, :class:`RatingHistory` (``results``): the
  result of a rating run, what it predicted, per-player trajectories;
- :class:`~fastrate.data.evaluation.Evaluation` (``evaluation``): walk-forward scores.

Containers are built from arrays and from tables in memory (pyarrow, pandas, polars);
reading files is :mod:`fastrate.io`'s job.
"""

from fastrate.data.games import Games, games_from_box
from fastrate.data.matches import Matches
from fastrate.data.periods import PERIOD_ORIGIN, bucket_periods, parse_time, period_starts
from fastrate.data.players import PlayerIndex
from fastrate.data.results import NO_PERIOD, Predictions, RatingHistory, Ratings
from fastrate.data.state import SOURCE_KEY, PlayerState, StateColumn, initial_source

__all__ = ["PlayerIndex", "Games", "Matches", "Ratings", "Predictions", "RatingHistory",
           "PlayerState", "StateColumn", "bucket_periods",
           "parse_time", "period_starts", "games_from_box", "initial_source", "SOURCE_KEY",
           "NO_PERIOD", "PERIOD_ORIGIN"]
