"""Pictures of ratings (layer 4; needs matplotlib, ``pip install fastrate[plots]``).

Every function returns a :class:`matplotlib.figure.Figure` (made without pyplot, drawn
by the Agg backend) and :func:`save_figure` writes it as PNG or SVG, by the suffix,
atomically:

- :func:`trajectories`: ratings over time of chosen players or the top N, with a band
  of +-2 standard deviations where the system has an uncertainty (``rd``, ``sigma``);
- :func:`distribution`: the final rating distribution, and its quantiles over time
  (inflation and deflation show as a drifting median);
- :func:`calibration`: reliability diagram per system (mean observed against mean
  predicted score by bin, with a 95% Wilson band and the count of every bin);
- :func:`metrics_over_time`: rolling log loss and Brier score per system;
- :func:`head_to_head`: observed against predicted score between the top N;
- :func:`tuning`: a ``fastrate tune`` trial table, the metric against every parameter.

Colours are the Okabe-Ito palette (distinguishable with every common colour-vision
deficiency), fonts DejaVu Sans (shipped with matplotlib), and SVG text is drawn as
paths, so a picture looks the same everywhere and needs no font.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fastrate.data import Games, Matches, RatingHistory, Ratings
from fastrate.errors import ConfigError, InputError

__all__ = ["OKABE_ITO", "STYLE", "save_figure", "figure_bytes", "trajectories",
           "distribution", "calibration", "metrics_over_time", "head_to_head",
           "head_to_head_table", "both_sides_calibration", "tuning", "wilson_band", "outcomes", "image_format",
           "IMAGE_FORMATS"]

#: Okabe & Ito (2008), "Color Universal Design": black first, yellow last (weak on white)
OKABE_ITO = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7",
             "#F0E442")
#: the line styles that tell apart more lines than there are colours
_DASHES = ("-", "--", ":", "-.")
#: suffix -> matplotlib format
IMAGE_FORMATS = {".png": "png", ".svg": "svg"}

#: the matplotlib settings every picture is drawn with (fixed, so pictures are reproducible)
STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8.0,
    "legend.frameon": False,
    "lines.linewidth": 1.4,
    "svg.fonttype": "path",
    "svg.hashsalt": "fastrate",
    "path.simplify": True,
    "image.cmap": "cividis",
}


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install matplotlib (the 'plots' "
                          "extra of fastrate)") from None
    return matplotlib


@contextlib.contextmanager
def _style() -> Iterator[None]:
    mpl = _matplotlib()
    with mpl.rc_context({**STYLE, "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO))}):
        yield


def _figure(width: float, height: float):
    """A constrained-layout figure on the Agg canvas (no pyplot, no GUI)."""
    _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _line_style(i: int) -> dict[str, Any]:
    return {"color": OKABE_ITO[i % len(OKABE_ITO)],
            "linestyle": _DASHES[(i // len(OKABE_ITO)) % len(_DASHES)]}


def image_format(path: str | os.PathLike) -> str:
    """``png`` or ``svg`` from the suffix of ``path``; ``png`` into a device or a pipe
    (``-o /dev/null`` for benchmarks)."""
    from fastrate._files import is_special_file

    suffix = Path(path).suffix.lower()
    if suffix not in IMAGE_FORMATS and is_special_file(Path(path)):
        return "png"
    if suffix not in IMAGE_FORMATS:
        raise InputError(f"cannot write a picture to {path}: the name must end in .png or "
                         f".svg; got {suffix or 'no suffix'} (e.g. {Path(path).stem}.png)")
    return IMAGE_FORMATS[suffix]


def figure_bytes(fig: Any, fmt: str = "png", dpi: int = 100) -> bytes:
    """The picture as PNG or SVG bytes (reproducible: no date in the metadata)."""
    import io

    if fmt not in IMAGE_FORMATS.values():
        raise InputError(f"unknown picture format {fmt!r}: use png or svg")
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    with _style():
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta)
    return buf.getvalue()


def save_figure(fig: Any, path: str | os.PathLike, dpi: int = 100) -> Path:
    """Write ``fig`` to ``path`` as PNG or SVG (by the suffix), atomically: the file
    appears complete or not at all."""
    from fastrate._files import atomic_file

    fmt = image_format(path)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: folder {folder} does not exist")
    data = figure_bytes(fig, fmt, dpi)
    with atomic_file(target) as fh:
        fh.write(data)
    return target


# ----------------------------------------------------------------------------------
# helpers


def _when_label(kind: str) -> str:
    return {"time": "date", "period": "rating period",
            "row": "games rated (count)"}.get(kind, kind)


def _scale_label(system: str | None) -> str:
    return f"rating ({system} points)" if system else "rating (points)"


def _finish_legend(ax: Any, n: int) -> None:
    if n:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _top_ids(ratings: Ratings, top: int) -> np.ndarray:
    """The ``top`` best players who have played: by the conservative rating (``mu -
    2 sigma``, ``rating - 2 rd``) where the system has an uncertainty, so that a player
    with a few lucky games does not lead, else by the rating."""
    from fastrate.report.history import center_and_uncertainty

    center, unc = center_and_uncertainty(ratings)
    key = ratings.rating if unc is None else center - 2.0 * unc
    order = np.argsort(-key, kind="stable")
    order = order[ratings.games_played[order] > 0]
    return order[:top]


def _check_count(value: Any, name: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _names(players: Sequence[Any]) -> list[str]:
    return [str(p) for p in players]


# ----------------------------------------------------------------------------------
# trajectories and distributions


def trajectories(history: RatingHistory, players: Sequence[Any] | None = None, top: int = 10,
                 ratings: Ratings | None = None, system: str | None = None,
                 title: str | None = None, band: bool = True) -> Any:
    """Rating trajectories of ``players`` (names), or of the ``top`` players (by
    ``ratings`` when given, else by their last point), with a +-2 standard deviation
    band where the history has an uncertainty."""
    top = _check_count(top, "top")
    idx = history.players
    if players:
        ids = [idx.id_of(p) for p in players]
    elif ratings is not None:
        ids = [int(i) for i in _top_ids(ratings, top)]
    else:
        has = np.flatnonzero(np.diff(history.offsets) > 0)
        last = history.rating[history.offsets[has + 1] - 1]
        ids = [int(i) for i in has[np.argsort(-last, kind="stable")][:top]]
    with _style():
        fig = _figure(8.0, 4.2)
        ax = fig.add_subplot()
        shown = 0
        any_band = False
        for k, p in enumerate(ids):
            lo, hi = int(history.offsets[p]), int(history.offsets[p + 1])
            if hi == lo:
                continue
            x = history.when[lo:hi]
            y = history.rating[lo:hi]
            u = history.uncertainty[lo:hi]
            style = _line_style(k)
            ax.plot(x, y, label=str(idx[p]), marker="." if hi - lo < 30 else None, **style)
            if band and np.isfinite(u).any():
                ax.fill_between(x, y - 2 * u, y + 2 * u, color=style["color"], alpha=0.12,
                                linewidth=0)
                any_band = True
            shown += 1
        if shown == 0:
            raise InputError("no rating points to draw for these players")
        ax.set_xlabel(_when_label(history.when_kind))
        ax.set_ylabel(_scale_label(system))
        what = "chosen players" if players else f"top {len(ids)}"
        default = f"Rating trajectories, {what}" + (f" ({system})" if system else "")
        if any_band:
            default += "; bands: ±2 standard deviations"
        ax.set_title(title or default)
        _finish_legend(ax, shown)
    return fig


def _drift(history: RatingHistory, qs: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles ``qs`` of the ratings of the players active at every point in time."""
    when, inverse = np.unique(history.when, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(when.shape[0] + 1))
    vals = history.rating[order]
    out = np.empty((when.shape[0], len(qs)))
    for i in range(when.shape[0]):
        out[i] = np.quantile(vals[bounds[i]:bounds[i + 1]], qs)
    return when, out


def distribution(ratings: Ratings, history: RatingHistory | None = None, min_games: int = 1,
                 bins: int = 40, system: str | None = None, title: str | None = None) -> Any:
    """The distribution of the final ratings (players with at least ``min_games``) and,
    with a ``history``, the 10/25/50/75/90% quantiles of the active players' ratings
    over time: a drifting median is inflation or deflation."""
    min_games = _check_count(min_games, "min_games", 0)
    bins = _check_count(bins, "bins")
    keep = ratings.games_played >= max(min_games, 1)
    values = ratings.rating[keep]
    if values.shape[0] == 0:
        raise InputError(f"no player has {max(min_games, 1)} or more games")
    qs = (0.1, 0.25, 0.5, 0.75, 0.9)
    with _style():
        fig = _figure(9.0 if history is not None else 5.0, 3.6)
        axes = fig.subplots(1, 2 if history is not None else 1, squeeze=False)[0]
        ax = axes[0]
        ax.hist(values, bins=bins, color=OKABE_ITO[4], edgecolor="white", linewidth=0.4)
        med = float(np.median(values))
        ax.axvline(med, color=OKABE_ITO[5], linestyle="--", label=f"median {med:.0f}")
        ax.set_xlabel(_scale_label(system))
        ax.set_ylabel("players (count)")
        ax.set_title(f"Final ratings of {values.shape[0]:,} players"
                     + (f" with ≥ {min_games} games" if min_games > 1 else ""))
        ax.legend(loc="upper right")
        if history is not None:
            ax2 = axes[1]
            when, q = _drift(history, qs)
            ax2.fill_between(when, q[:, 0], q[:, 4], color=OKABE_ITO[2], alpha=0.25,
                             linewidth=0, label="10–90%")
            ax2.fill_between(when, q[:, 1], q[:, 3], color=OKABE_ITO[4], alpha=0.35,
                             linewidth=0, label="25–75%")
            ax2.plot(when, q[:, 2], color=OKABE_ITO[0], label="median")
            ax2.set_xlabel(_when_label(history.when_kind))
            ax2.set_ylabel(_scale_label(system))
            ax2.set_title("Ratings of the active players over time")
            ax2.legend(loc="best")
        if title:
            fig.suptitle(title)
    return fig


# ----------------------------------------------------------------------------------
# calibration and scores over time


def wilson_band(observed: np.ndarray, count: np.ndarray, z: float = 1.96
                ) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval (Wilson 1927) of a proportion ``observed`` out of
    ``count``: ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``; NaN where the
    count is 0."""
    n = np.asarray(count, dtype=np.float64)
    p = np.asarray(observed, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1.0 + z * z / n
        mid = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return mid - half, mid + half


def _calibration_tables(source: Any) -> dict[str, Mapping[str, np.ndarray]]:
    tables = getattr(source, "calibration", source)
    if not isinstance(tables, Mapping) or not tables:
        raise InputError("calibration() takes an Evaluation or a mapping label -> calibration "
                         "table (fastrate.metrics.calibration)")
    if "count" in tables:  # a single table
        return {"": tables}
    return dict(tables)


def both_sides_calibration(data: Games | Matches, runs: Mapping[str, Ratings],
                           bins: int = 10, burn_in: int = 0
                           ) -> dict[str, dict[str, np.ndarray]]:
    """Calibration tables (:func:`fastrate.metrics.calibration`) of every run from both
    players' side of every game: the predictions ``p`` and ``1 - p`` against the scores
    ``y`` and ``1 - y``, so that the order of the two players does not matter (a file of
    winner-first rows has every first player's score 1). Matches of teams: every team's
    win probability against its share of the win, as they are. ``burn_in`` periods are
    left out."""
    from fastrate.data.evaluation import burn_in_mask
    from fastrate.metrics import calibration as table_of

    out = {}
    for label, r in runs.items():
        p, y, _ = outcomes(data, r)
        if r.pair_predictions is None:  # two-player games
            keep = burn_in_mask(data.to_games() if isinstance(data, Matches) else data,
                                burn_in)
            p, y = p[keep], y[keep]
            out[label] = table_of(np.concatenate([p, 1 - p]), np.concatenate([y, 1 - y]),
                                  bins=bins)
        else:
            keep = burn_in_mask(data, burn_in)[data.team_match()]
            out[label] = table_of(p, y, bins=bins, mask=keep)
    return out


def calibration(source: Any, title: str | None = None, band: bool = True,
                data: Games | Matches | None = None) -> Any:
    """Reliability diagram: for every system (``source``: an
    :class:`~fastrate.evaluate.Evaluation`, or label -> calibration table), the mean
    observed score against the mean predicted score of each bin, with the 95% Wilson band
    of the observed mean (dashed diagonal: perfect calibration), and below it the count
    of every bin. Given the ``data`` an Evaluation scored, two-player games are drawn
    from both players' side (:func:`both_sides_calibration`): the order of the players
    (home first, winner first) then does not bend the curve."""
    tables = _calibration_tables(source)
    unit = getattr(source, "unit", "games")
    sides = False
    runs = getattr(source, "ratings", None)
    if data is not None and runs:
        bins = len(next(iter(tables.values()))["count"])
        tables = both_sides_calibration(data, runs, bins=bins,
                                        burn_in=getattr(source, "burn_in", 0))
        sides = unit == "games"
    with _style():
        fig = _figure(6.2, 6.0)
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1))
        top.plot([0, 1], [0, 1], color="#777777", linestyle="--", linewidth=1.0,
                 label="perfect calibration")
        for k, (label, t) in enumerate(tables.items()):
            count = np.asarray(t["count"])
            ok = count > 0
            p = np.asarray(t["mean_predicted"])[ok]
            y = np.asarray(t["mean_observed"])[ok]
            style = _line_style(k)
            top.plot(p, y, marker="o", markersize=4, label=label or None, **style)
            if band:
                lo, hi = wilson_band(y, count[ok])
                top.fill_between(p, lo, hi, color=style["color"], alpha=0.15, linewidth=0)
            mid = (np.asarray(t["lower"]) + np.asarray(t["upper"])) / 2
            bottom.plot(mid[ok], count[ok], marker="o", markersize=3, **style)
        top.set_xlim(0, 1)
        top.set_ylim(0, 1)
        top.set_ylabel("observed score (mean of the bin)")
        what = "win probability" if unit == "matches" else "expected score"
        top.set_title(title or f"Calibration: observed against predicted {what}"
                      + ("; bands: 95% Wilson" if band else ""))
        top.legend(loc="upper left")
        bottom.set_yscale("log")
        from matplotlib.ticker import NullFormatter

        bottom.yaxis.set_minor_formatter(NullFormatter())
        bottom.set_xlabel(f"predicted {what} (mean of the bin)"
                          + ("; both players of every game" if sides else ""))
        bottom.set_ylabel(("predictions" if sides else unit) + " per bin (count)")
    return fig


def outcomes(data: Games | Matches, ratings: Ratings) -> tuple[np.ndarray, np.ndarray, Any]:
    """``(p, y, when)`` in stored (time) order: every game's first-player expected score
    and score, or every team's win probability and its share of the win (ties split),
    and the time (or None) of each."""
    if ratings.predictions is None:
        raise InputError(f"the {ratings.system} run has no predictions: rate with "
                         "predictions=True")
    if isinstance(data, Matches) and ratings.pair_predictions is None:
        data = data.to_games()
    if isinstance(data, Games):
        p = ratings.predictions if data.order is None else ratings.predictions[data.order]
        when = data.time
        return np.asarray(p, dtype=np.float64), data.score, when
    from fastrate.metrics import winner_outcomes

    y = winner_outcomes(data.rank, data.match_team_offsets)
    when = None if data.time is None else data.time[data.team_match()]
    return np.asarray(ratings.predictions, dtype=np.float64), y, when


def _rolling(x: np.ndarray, window: int) -> np.ndarray:
    c = np.concatenate([[0.0], np.cumsum(x)])
    return (c[window:] - c[:-window]) / window


def metrics_over_time(data: Games | Matches, runs: Mapping[str, Ratings],
                      window: int | None = None, title: str | None = None) -> Any:
    """Rolling log loss and Brier score of every run (label -> :class:`Ratings` with
    predictions) over ``window`` consecutive games (default: a fiftieth of them, at
    least 100), against time (or the game count)."""
    if not runs:
        raise InputError("metrics_over_time() needs at least one rated run")
    with _style():
        fig = _figure(8.0, 5.0)
        ax1, ax2 = fig.subplots(2, 1, sharex=True)
        for k, (label, r) in enumerate(runs.items()):
            p, y, when = outcomes(data, r)
            n = p.shape[0]
            w = max(100, n // 50) if window is None else _check_count(window, "window")
            w = min(w, n)
            pc = np.clip(p, 1e-15, 1 - 1e-15)
            ll = -(y * np.log(pc) + (1 - y) * np.log1p(-pc))
            br = (p - y) ** 2
            step = max(1, (n - w + 1) // 1000)
            ends = np.arange(w - 1, n)[::step]
            x = ends + 1 if when is None else when[ends]
            style = _line_style(k)
            ax1.plot(x, _rolling(ll, w)[::step], label=label, **style)
            ax2.plot(x, _rolling(br, w)[::step], **style)
        unit = "teams" if isinstance(data, Matches) and next(
            iter(runs.values())).pair_predictions is not None else "games"
        ax1.set_ylabel("log loss (nats)")
        ax2.set_ylabel("Brier score")
        ax2.set_xlabel("date" if when is not None else f"{unit} rated (count)")
        ax1.set_title(title or f"Scores over time (rolling mean over {w:,} {unit})")
        _finish_legend(ax1, len(runs))
    return fig


def head_to_head_table(data: Games | Matches, ratings: Ratings, ids: Sequence[int]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Between the players ``ids`` (into ``ratings.players``): ``observed[i, j]`` and
    ``predicted[i, j]``, player i's summed score and walk-forward expected score against
    player j, and ``count[i, j]`` their games."""
    if isinstance(data, Matches):
        if not data.is_two_player():
            raise ConfigError("a head-to-head matrix needs two-player games; these matches "
                              "have teams or more than two sides")
        data = data.to_games()
    p, y, _ = outcomes(data, ratings)
    index = ratings.players
    ids = np.asarray(ids, dtype=np.int64)
    k = ids.shape[0]
    if data.players is index:
        w, b = data.white, data.black
    else:
        lookup = index.lookup
        remap = np.array([lookup[x] for x in data.players.names.tolist()], dtype=np.int64)
        w, b = remap[data.white], remap[data.black]
    pos = np.full(len(index), -1, dtype=np.int64)
    pos[ids] = np.arange(k)
    sel = (pos[w] >= 0) & (pos[b] >= 0)
    i, j = pos[w[sel]], pos[b[sel]]
    obs = np.zeros((k, k))
    pred = np.zeros((k, k))
    cnt = np.zeros((k, k))
    for a, c, s, q in ((i, j, y[sel], p[sel]), (j, i, 1 - y[sel], 1 - p[sel])):
        np.add.at(obs, (a, c), s)
        np.add.at(pred, (a, c), q)
        np.add.at(cnt, (a, c), 1.0)
    return obs, pred, cnt


def head_to_head(data: Games | Matches, ratings: Ratings, top: int = 10,
                 players: Sequence[Any] | None = None, title: str | None = None) -> Any:
    """The top ``top`` players (or ``players``) against each other: every cell is the row
    player's mean observed score against the column player, the walk-forward predicted
    mean below it and the number of games; the colour is observed minus predicted."""
    top = _check_count(top, "top")
    index = ratings.players
    if players:
        ids = np.array([index.id_of(x) for x in players], dtype=np.int64)
    else:
        ids = _top_ids(ratings, top)
    k = ids.shape[0]
    obs, pred, cnt = head_to_head_table(data, ratings, ids)
    with np.errstate(invalid="ignore", divide="ignore"):
        mo, mp = obs / cnt, pred / cnt
    names = _names(index.names[ids])
    with _style():
        size = max(4.5, 0.62 * k + 2.2)
        fig = _figure(size + 1.0, size)
        ax = fig.add_subplot()
        ax.grid(False)
        diff = np.where(cnt > 0, mo - mp, np.nan)
        im = ax.imshow(diff, cmap="PuOr", vmin=-0.5, vmax=0.5)
        for a in range(k):
            for c in range(k):
                if cnt[a, c] > 0:
                    ax.text(c, a, f"{mo[a, c]:.2f}\n({mp[a, c]:.2f})\nn={int(cnt[a, c])}",
                            ha="center", va="center", fontsize=6.5 if k > 8 else 7.5)
        ax.set_xticks(range(k), names, rotation=45, ha="right")
        ax.set_yticks(range(k), names)
        ax.set_xlabel("opponent")
        ax.set_ylabel("player")
        cb = fig.colorbar(im, ax=ax, shrink=0.8)
        cb.set_label("observed − predicted mean score")
        ax.set_title(title or f"Head to head, top {k} ({ratings.system}): observed mean "
                     "score (predicted)")
    return fig


# ----------------------------------------------------------------------------------
# tuning


#: columns of a trial table that are neither parameters nor metrics
_TRIAL_COLUMNS = ("trial", "system", "spec", "n", "seconds", "time", "status", "rank")


def _trial_columns(table: Any) -> dict[str, np.ndarray]:
    if isinstance(table, Mapping):
        return {str(k): np.asarray(v) for k, v in table.items()}
    if hasattr(table, "column_names"):  # a pyarrow Table
        return {name: table.column(name).to_numpy(zero_copy_only=False)
                for name in table.column_names}
    raise InputError("tuning() takes a trial table: a pyarrow Table or a mapping of columns "
                     "(trial, system, spec, one column per parameter, then the metrics)")


def tuning(table: Any, metric: str = "log_loss", title: str | None = None) -> Any:
    """Tuning curves from a ``fastrate tune`` trial table (columns ``trial``, ``system``,
    ``spec``, one column per tuned parameter, then the metric columns): ``metric``
    against every parameter, one panel each, the best trial starred (lowest, or highest
    for an accuracy or a correlation), systems in their own colours."""
    from fastrate.metrics import MATCH_METRICS, METRICS

    cols = _trial_columns(table)
    if metric not in cols:
        raise InputError(f"the trial table has no column {metric!r}; columns: "
                         f"{', '.join(cols)}")
    known = set(METRICS) | set(MATCH_METRICS) | {metric}
    names = list(cols)
    start = names.index("spec") + 1 if "spec" in names else 0
    params = []
    for name in names[start:]:
        if name in known:
            break
        if name not in _TRIAL_COLUMNS:
            params.append(name)
    if not params:
        raise InputError("the trial table has no parameter columns (expected between 'spec' "
                         f"and the metrics); columns: {', '.join(names)}")
    m = cols[metric].astype(np.float64)
    higher = metric.endswith("accuracy") or metric == "rank_correlation"
    systems = (cols["system"].astype(str) if "system" in cols
               else np.full(m.shape[0], "", dtype=object))
    labels = list(dict.fromkeys(systems.tolist()))
    ncols = min(3, len(params))
    nrows = math.ceil(len(params) / ncols)
    with _style():
        fig = _figure(3.4 * ncols + 0.6, 2.9 * nrows + 0.4)
        axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
        finite = np.isfinite(m)
        best = (int(np.flatnonzero(finite)[np.argmax(m[finite]) if higher
                                           else np.argmin(m[finite])])
                if finite.any() else None)
        for ax, name in zip(axes, params):
            raw = cols[name]
            try:
                x = raw.astype(np.float64)
                categorical = False
            except (TypeError, ValueError):
                cats = list(dict.fromkeys(str(v) for v in raw.tolist()))
                x = np.array([cats.index(str(v)) for v in raw.tolist()], dtype=np.float64)
                categorical = True
            for k, lab in enumerate(labels):
                sel = (systems == lab) & finite & np.isfinite(x)
                if not sel.any():
                    continue
                order = np.argsort(x[sel], kind="stable")
                ax.plot(x[sel][order], m[sel][order], marker="o", markersize=3.5,
                        linestyle="none", color=OKABE_ITO[(k + 4) % len(OKABE_ITO)],
                        label=lab or None)
            if best is not None and np.isfinite(x[best]):
                ax.plot([x[best]], [m[best]], marker="*", markersize=12, linestyle="none",
                        color=OKABE_ITO[5], label="best")
            if categorical:
                ax.set_xticks(range(len(cats)), cats, rotation=30, ha="right")
            elif (x[np.isfinite(x)] > 0).all() and np.nanmax(x) / max(np.nanmin(x), 1e-300) > 100:
                ax.set_xscale("log")
            ax.set_xlabel(name)
            ax.set_ylabel(metric.replace("_", " "))
        for ax in axes[len(params):]:
            ax.set_visible(False)
        handles, leg = axes[0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, leg, loc="outside lower center", ncols=min(len(leg), 5))
        fig.suptitle(title or f"Tuning: {metric.replace('_', ' ')} against each parameter "
                     f"({m.shape[0]} trials)")
    return fig
