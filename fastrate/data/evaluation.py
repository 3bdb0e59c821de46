"""The result table of a walk-forward evaluation (:class:`Evaluation`) and what every
evaluation shares: the burn-in mask, the always-50% baseline's label and the table rows.

:func:`fastrate.evaluate.evaluate` (rating systems on :class:`~fastrate.Games`) and the
toolkits' own evaluations (bridge Elo on boards, FIBS on backgammon matches) all build
their tables here, so every evaluation scores and prints the same way.
"""

from __future__ import annotations

import datetime
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

__all__ = ["Evaluation", "NULL_LABEL", "Split", "Window", "burn_in_mask", "check_burn_in",
           "check_bins", "score_rows", "split_windows", "unique_labels"]


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


# ----------------------------------------------------------------------------------
# time windows: which games are learned from, tuned on and scored


@dataclass(frozen=True)
class Window:
    """A run of games (stored, chronological rows ``start:stop``) and what it was used
    for: ``role`` is ``"burn-in"`` (learned from, never scored), ``"fit"`` (what tuning
    scores), ``"scored"``, ``"gap"`` (between the fit and the scored window: learned
    from only) or ``"after"`` (after the scored window: not needed for its scores).
    ``first`` and ``last``: the date (or period label) of its first and last game, ``""``
    when the games have neither."""

    role: str
    start: int
    stop: int
    first: str = ""
    last: str = ""

    @property
    def n(self) -> int:
        return self.stop - self.start

    def __str__(self) -> str:
        span = f" ({self.first} .. {self.last})" if self.first else ""
        return f"{self.role} {self.n:,}{span}"


@dataclass(frozen=True)
class Split:
    """The windows of a walk-forward evaluation or tuning run, as stored-row ranges (the
    games are in chronological order, so every window is one contiguous run).

    ``burn_end``: the first row after the burn-in; ``fit``: the rows tuning scores
    (``start, stop``); ``score``: the rows scored; ``split``: whether a fit/score split
    was asked for (``fit_until`` or ``score_from``; without one the fit window is the
    scored window: in-sample).
    """

    n: int
    burn_end: int
    fit: tuple[int, int]
    score: tuple[int, int]
    split: bool = False
    asked: bool = False  # whether any window option was given (the table then shows them)

    def score_mask(self) -> np.ndarray:
        """Boolean mask over the stored rows: True for the scored games."""
        mask = np.zeros(self.n, dtype=np.bool_)
        mask[self.score[0]:self.score[1]] = True
        return mask

    def fit_mask(self) -> np.ndarray:
        """Boolean mask over the stored rows: True for the games tuning scores."""
        mask = np.zeros(self.n, dtype=np.bool_)
        mask[self.fit[0]:self.fit[1]] = True
        return mask

    def windows(self, data: Games | Matches, fit: bool = True) -> tuple[Window, ...]:
        """The non-empty windows in row order, each with its date range (``fit=False``:
        the fit window is not shown, as in a plain evaluation)."""
        cuts: list[tuple[str, int, int]] = [("burn-in", 0, self.burn_end)]
        if self.split:
            if fit:
                cuts.append(("fit", self.fit[0], self.fit[1]))
                cuts.append(("gap", self.fit[1], self.score[0]))
            else:
                cuts.append(("before", self.burn_end, self.score[0]))
        else:
            cuts.append(("before", self.burn_end, self.score[0]))
        cuts += [("scored", self.score[0], self.score[1]), ("after", self.score[1], self.n)]
        return tuple(Window(role, a, b, _label_at(data, a), _label_at(data, b - 1))
                     for role, a, b in cuts if b > a)


def split_windows(data: Games | Matches, burn_in: int = 0, fit_until: Any = None,
                  score_from: Any = None, score_until: Any = None) -> Split:
    """The burn-in, fit and scored windows of ``data`` (stored, chronological order).

    ``fit_until``, ``score_from`` and ``score_until`` are dates (``"2000-01-01"``,
    ``np.datetime64``, ``datetime.date``) compared with the games' time column, numbers
    compared with numeric times, or period labels compared with the rating periods (a
    Python ``int``, a label that is not a date, or ``"period:LABEL"``). Bounds are
    half-open: ``score_from`` includes games at that time, ``fit_until`` and
    ``score_until`` exclude them.

    * burn-in: the games of the first ``burn_in`` periods (learned from, never scored);
    * fit window (what tuning scores): after the burn-in, before ``fit_until`` (default:
      ``score_from``);
    * scored window: from ``score_from`` (default: ``fit_until``; else the end of the
      burn-in) to ``score_until`` (default: the end).

    Without ``fit_until`` and ``score_from`` the fit window is the scored window. A fit
    window reaching into the scored window (``fit_until`` after ``score_from``) is
    refused: tuned parameters would have seen the games they are scored on.
    """
    check_type(data, (Games, Matches), "split_windows() needs a fastrate.Games or Matches")
    n = len(data)
    mask = burn_in_mask(data, burn_in)
    burn_end = int(np.argmax(mask)) if mask.any() else n
    fu = _boundary(data, fit_until, "fit_until")
    sf = _boundary(data, score_from, "score_from")
    su = _boundary(data, score_until, "score_until")
    if fu is not None and sf is not None and fu > sf:
        raise ConfigError(f"fit_until ({_show(fit_until)}) is after score_from "
                          f"({_show(score_from)}): the fit window would overlap the scored "
                          "window; give a fit_until at or before score_from")
    if sf is not None and su is not None and su <= sf:
        raise ConfigError(f"score_until ({_show(score_until)}) must be after score_from "
                          f"({_show(score_from)})")
    score_end = n if su is None else su
    score_start = max(burn_end, sf if sf is not None else (fu if fu is not None else 0))
    split = fu is not None or sf is not None
    fit_end = (fu if fu is not None else sf) if split else score_end
    fit_end = max(burn_end, min(fit_end, score_end))
    asked = split or su is not None
    if score_start >= score_end:
        what = (f"a burn-in of {burn_in} period(s)" if not asked else "the windows given ("
                + ", ".join(f"{k}={_show(v)}" for k, v in (
                    ("burn_in", burn_in or None), ("fit_until", fit_until),
                    ("score_from", score_from), ("score_until", score_until))
                    if v is not None) + ")")
        span = (f"; the games run from {_label_at(data, 0)} to {_label_at(data, n - 1)}"
                if _label_at(data, 0) else "")
        if data.period is not None and data.period_labels is None and n:
            span += (f" (period numbers {int(data.period[0])} .. {int(data.period[-1])}; a "
                     "date is written 2000-01-01)")
        raise InputError(f"{what} leave(s) no games to score{span}; move the window")
    return Split(n, burn_end, (burn_end, fit_end), (score_start, score_end), split, asked)


def _show(value: Any) -> str:
    return str(value) if isinstance(value, str) else repr(value)


def _boundary(data: Games | Matches, value: Any, name: str) -> int | None:
    """The first stored row at or after ``value`` (a date, a numeric time or a period
    label; see :func:`split_windows`), or None when ``value`` is None."""
    if value is None:
        return None
    time = data.time
    dated = time is not None and time.dtype.kind == "M"
    if isinstance(value, str):
        text = value.strip()
        if text.lower().startswith("period:"):
            return _period_boundary(data, text.split(":", 1)[1].strip(), name, value)
        if dated:
            try:
                t = np.datetime64(text, "ns")
            except ValueError:
                t = None
            if t is not None and not np.isnat(t):
                return int(np.searchsorted(time, t, side="left"))
        elif time is not None:
            try:
                return int(np.searchsorted(time, float(text), side="left"))
            except ValueError:
                pass
        return _period_boundary(data, text, name, value)
    if isinstance(value, (np.datetime64, datetime.date)):
        if not dated:
            raise ConfigError(f"{name}={value}: a date needs games with dates (a time column); "
                              "these have " + ("numeric times" if time is not None else
                                               "none") + "; give a period label instead")
        return int(np.searchsorted(time, np.datetime64(value, "ns"), side="left"))
    if isinstance(value, (float, np.floating)) and time is not None and not dated:
        return int(np.searchsorted(time, float(value), side="left"))
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float, np.floating)):
        raise ConfigError(f"{name} must be a date, a time or a period label; got {value!r}")
    return _period_boundary(data, value, name, value)


def _period_boundary(data: Games | Matches, label: Any, name: str, given: Any) -> int:
    """The first stored row whose rating period is at or after the period ``label``."""
    if data.period is None:
        hint = ("write a date such as 2000-01-01" if data.time is not None
                and data.time.dtype.kind == "M" else "give the games rating periods "
                "(period='year', a season column; --period)")
        raise ConfigError(f"{name}={_show(given)}: not a date these games can compare, and "
                          f"they have no rating periods to compare a period label with; {hint}")
    labels = data.period_labels
    if labels is None:
        try:
            f = float(label)
        except (TypeError, ValueError):
            f = math.nan
        if not math.isfinite(f) or f != int(f):
            raise ConfigError(f"{name}={_show(given)} must be a date or a period number (the "
                              "periods of these games are numbers); e.g. 2000 or 2000-01-01")
        threshold = int(f)
    else:
        try:
            key = np.array([label]).astype(labels.dtype) if labels.dtype.kind != "O" else (
                np.array([str(label)], dtype=object))
        except (TypeError, ValueError):
            raise ConfigError(f"{name}={_show(given)} is not a period label of these games "
                              f"(labels such as {labels[0]!r})") from None
        threshold = int(np.searchsorted(labels, key[0], side="left"))
    return int(np.searchsorted(data.period, threshold, side="left"))


def _label_at(data: Games | Matches, i: int) -> str:
    """The date (or period label) of stored row ``i``, for the window descriptions."""
    if i < 0 or i >= len(data):
        return ""
    if data.time is not None:
        t = data.time[i]
        if data.time.dtype.kind == "M":
            text = str(np.datetime_as_string(t, unit="s"))
            return text.removesuffix("T00:00:00")
        return f"{float(t):g}"
    if data.period is not None:
        p = int(data.period[i])
        if data.period_labels is not None and 0 <= p < len(data.period_labels):
            return f"period {data.period_labels[p]}"
        return f"period {p}"
    return ""


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
    #: which games were used for what (:class:`Window`: burn-in, fit, scored ...) when
    #: time windows were given (``fit_until``, ``score_from``, ``score_until``); else ()
    windows: tuple[Window, ...] = ()

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

    def calibration_table(self):
        """Every system's calibration table in one ``pyarrow.Table``, one row per system
        and bin: ``system, bin`` (from 1), ``lower, upper`` (the bin's edges),
        ``count``, ``mean_predicted, mean_observed`` (null for an empty bin)."""
        import pyarrow as pa

        parts: dict[str, list[Any]] = {k: [] for k in (
            "system", "bin", "lower", "upper", "count", "mean_predicted", "mean_observed")}
        for label, table in self.calibration.items():
            n = len(table["count"])
            parts["system"].append(np.full(n, label, dtype=object))
            parts["bin"].append(np.arange(1, n + 1, dtype=np.int64))
            for k in ("lower", "upper", "count", "mean_predicted", "mean_observed"):
                parts[k].append(np.asarray(table[k]))
        cols = {k: np.concatenate(v) if v else np.empty(0) for k, v in parts.items()}
        return pa.table({
            "system": pa.array(cols["system"].tolist(), pa.string()),
            "bin": pa.array(cols["bin"], pa.int64()),
            **{k: pa.array(cols[k], pa.float64()) for k in ("lower", "upper")},
            "count": pa.array(cols["count"], pa.float64() if cols["count"].dtype.kind == "f"
                              else pa.int64()),
            **{k: pa.array(cols[k], pa.float64(), mask=np.isnan(cols[k].astype(np.float64)))
               for k in ("mean_predicted", "mean_observed")}})

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
        head = [title]
        if self.windows:
            head.append(f"{self.unit}: " + "; ".join(str(w) for w in self.windows))
        return "\n".join([*head, line(heads), line(["-" * w for w in widths]),
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
