"""The result table of a walk-forward evaluation (:class:`Evaluation`) and what every
evaluation shares: the burn-in mask, the always-50% baseline's label and the table rows.

:func:`fastrate.evaluate.evaluate` (rating systems on :class:`~fastrate.Games`) and the
toolkits' own evaluations (bridge Elo on boards, FIBS on backgammon matches) all build
their tables here, so every evaluation scores and prints the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastrate import metrics as _metrics
from fastrate._validate import check_type
from fastrate.data.games import Games
from fastrate.data.matches import Matches
from fastrate.data.periods import period_starts
from fastrate.data.results import Ratings
from fastrate.errors import ConfigError, InputError

__all__ = ["Evaluation", "NULL_LABEL", "burn_in_mask", "check_burn_in", "check_bins", "score_rows",
           "unique_labels"]


def burn_in_mask(games: Games | Matches, burn_in_periods: int) -> np.ndarray:
    """Boolean mask over ``games`` (stored, chronological order; or over matches): False
    for the games of the first ``burn_in_periods`` distinct rating periods that hold
    games, True after.

    Periods are counted over the periods that have games (gaps do not count). A
    burn-in of 0 scores every game; one of at least the number of periods scores none.
    """
    check_type(games, (Games, Matches), "burn_in_mask() needs a fastrate.Games or Matches")
    k = check_burn_in(burn_in_periods)
    mask = np.ones(len(games), dtype=np.bool_)
    if k == 0:
        return mask
    if games.period is None:
        raise InputError(f"a burn-in of {k} period(s) needs games with rating periods: give "
                         "them a period (e.g. period='1w' with a time column, or a season "
                         "column; --period on the command line)")
    starts = period_starts(games.period)
    n_periods = starts.shape[0] - 1
    mask[:starts[min(k, n_periods)]] = False
    return mask


def check_burn_in(burn_in: Any) -> int:
    """A burn-in, validated: a whole number of periods >= 0 (bridge Elo's too)."""
    if isinstance(burn_in, bool) or not isinstance(burn_in, (int, np.integer)) or burn_in < 0:
        raise ConfigError(f"burn_in must be a whole number of periods >= 0; got {burn_in!r}")
    return int(burn_in)


#: the label of the always-50% baseline that toolkits put first in their tables
NULL_LABEL = "null (50%)"


def check_bins(bins: Any) -> int:
    """The number of calibration bins, validated (an integer >= 1)."""
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ConfigError(f"bins must be an integer >= 1; got {bins!r}")
    return int(bins)


def score_rows(preds: Sequence[tuple[str, np.ndarray, np.ndarray]], draws: str, bins: int
               ) -> tuple[list[dict[str, Any]], dict[str, dict[str, np.ndarray]]]:
    """The rows and calibration tables of an :class:`Evaluation` from ``(label,
    predictions, outcomes)`` triples already restricted to the scored rows."""
    rows, tables = [], {}
    for label, p, y in preds:
        rows.append({"system": label, **_metrics.summary(p, y, draws=draws)})
        tables[label] = _metrics.calibration(p, y, bins=bins)
    return rows, tables


@dataclass
class Evaluation:
    """The comparison table of :func:`evaluate`.

    ``rows``: one dict per system (``system``, ``n``, ``log_loss``, ``deviance``,
    ``brier``, ``rmse``, ``accuracy``), in the order given; ``calibration``: label ->
    calibration table (see :func:`fastrate.metrics.calibration`); ``ratings``: label ->
    the :class:`fastrate.Ratings` of each run (absent for :func:`evaluate_predictions`).
    """

    rows: list[dict[str, Any]]
    calibration: dict[str, dict[str, np.ndarray]]
    n_games: int
    burn_in: int = 0
    draws: str = "exclude"
    ratings: dict[str, Ratings] = field(default_factory=dict, repr=False)
    #: what was scored: ``"games"`` (two-player, :data:`fastrate.metrics.METRICS`) or
    #: ``"matches"`` (teams and free-for-alls, :data:`fastrate.metrics.MATCH_METRICS`;
    #: ``n_games`` then counts matches and the calibration is of the win probability)
    unit: str = "games"

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric columns of this table."""
        return _metrics.MATCH_METRICS if self.unit == "matches" else _metrics.METRICS

    @property
    def _columns(self) -> tuple[str, ...]:
        return ("system", "n", *self.metrics)

    @property
    def labels(self) -> list[str]:
        return [r["system"] for r in self.rows]

    @property
    def n_scored(self) -> int:
        return int(self.rows[0]["n"]) if self.rows else 0

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, label: str) -> dict[str, Any]:
        """The row of the system labelled ``label``."""
        for r in self.rows:
            if r["system"] == label:
                return r
        raise KeyError(f"no system {label!r} in this evaluation; systems: "
                       f"{', '.join(self.labels)}")

    def column(self, metric: str) -> np.ndarray:
        """One metric for every system, as an array in row order."""
        if metric not in self._columns:
            raise KeyError(f"unknown column {metric!r}; columns: {', '.join(self._columns)}")
        return np.array([r[metric] for r in self.rows])

    def best(self, metric: str | None = None) -> str:
        """The label of the best system by ``metric`` (highest accuracy or correlation,
        else lowest); by default the (winner) log loss."""
        if metric is None:
            metric = self.metrics[0]
        values = self.column(metric).astype(np.float64)
        if np.isnan(values).all():
            raise ValueError(f"no system has a {metric} value")
        higher = metric.endswith("accuracy") or metric == "rank_correlation"
        i = int(np.nanargmax(values) if higher else np.nanargmin(values))
        return self.rows[i]["system"]

    def columns(self) -> dict[str, list[Any]]:
        return {c: [r[c] for r in self.rows] for c in self._columns}

    def to_arrow(self):
        """The table as a ``pyarrow.Table``: ``system, n`` and the metrics
        (``log_loss, deviance, brier, rmse, accuracy`` for games)."""
        import pyarrow as pa

        cols = self.columns()
        return pa.table({"system": pa.array(cols["system"], pa.string()),
                         "n": pa.array(cols["n"], pa.int64()),
                         **{m: pa.array(cols[m], pa.float64()) for m in self.metrics}})

    def to_frame(self):
        """The table as a pandas DataFrame (needs pandas)."""
        return self.to_arrow().to_pandas()

    def __str__(self) -> str:
        heads = list(self._columns)
        body = [[r["system"], f"{r['n']:,}", *(_fmt(r[m]) for m in self.metrics)]
                for r in self.rows]
        widths = [max(len(h), *(len(row[j]) for row in body)) if body else len(h)
                  for j, h in enumerate(heads)]

        def line(cells: Sequence[str]) -> str:
            return "  ".join(c.ljust(w) if j == 0 else c.rjust(w)
                             for j, (c, w) in enumerate(zip(cells, widths))).rstrip()

        draws = "draws excluded" if self.draws == "exclude" else "a draw counts half"
        burn = f", first {self.burn_in} period(s) left out as burn-in" if self.burn_in else ""
        if self.unit == "matches":
            title = (f"walk-forward evaluation: {self.n_scored:,} of {self.n_games:,} matches "
                     f"scored{burn}")
        else:
            title = (f"walk-forward evaluation: {self.n_scored:,} of {self.n_games:,} games "
                     f"scored{burn}; accuracy: {draws}")
        return "\n".join([title, line(heads), line(["-" * w for w in widths]),
                          *(line(b) for b in body)])

    def __repr__(self) -> str:
        return (f"Evaluation({len(self.rows)} systems, {self.n_scored} of {self.n_games} "
                f"{self.unit} scored)")


def _fmt(x: float) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


def unique_labels(labels: list[str]) -> list[str]:
    """Labels made unique in order: a repeated label gets ``" #2"``, ``" #3"`` ..."""
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if seen[lab] == 1 else f"{lab} #{seen[lab]}")
    return out
