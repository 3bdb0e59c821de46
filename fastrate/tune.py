"""Tuning: search rating systems' parameters for the best walk-forward prediction.

A search space is written like a system spec (``-s``), with ranges and lists where a
value would go::

    elo:k=10..60,advantage=0..150,k_schedule=constant|power
    elo:k_schedule=power,k_power[0]=50..500:log,k_power[1]=1..30:log,k_power[2]=0..0.8
    glicko2:tau=0.1..1.2:log,initial_rd=100..400
    weng_lin:model=plackett_luce|bradley_terry_full,beta=1..10:log
    elom:k_games=50..2000:int

``lo..hi`` is a range of numbers (``:log`` spaced on a log scale, ``:int`` whole numbers;
a field whose type is ``int`` always takes whole numbers), ``a|b|c`` a list of values,
anything else a fixed value; ``field[i]`` is item ``i`` of a tuple option (the power-K
schedule's ``k_power = (a, b, c)`` of ``K = a / (games + b)^c``). A preset may come
first (``elo@fivethirtyeight_tennis:k_power[2]=0.2..0.6``).

Strategies (``strategy=``):

* ``grid``: every combination; each range gives ``grid_points`` values (evenly spaced,
  or evenly on a log scale).
* ``random``: ``trials`` configurations drawn uniformly (log-uniformly for ``:log``) from
  a NumPy generator seeded with ``seed``.
* ``coordinate``: a compass search with model steps, written for this problem (the
  log loss of a rating system is a smooth function of a handful of parameters, often
  along a curved ridge -- power-K Elo's ``a`` and ``c`` trade off -- and each evaluation
  costs a full rating run). Positions are scaled to [0, 1] per range (log ranges on a log
  scale). From the middle of the box, every iteration evaluates the ``2d`` points
  ``x ± h e_i`` (and every other value of each list) as one parallel batch, then up to
  three model points as a second batch: the vertex of the parabola through ``f(x-h)``,
  ``f(x)``, ``f(x+h)`` along every axis (within ``± h``); the minimum of a full quadratic
  fitted by least squares to the ``3p`` evaluated points nearest ``x`` (``p`` its
  coefficients; a modified Newton step, curvatures taken by absolute value) within a
  trust radius that doubles when that step wins and halves when it does not; and the
  last successful move repeated (Hooke and Jeeves' pattern move). It moves to the best
  point found and halves ``h`` when none beats ``x``; it stops after ``trials``
  evaluations or when ``h`` falls below ``1e-4``. Every batch is fixed before it runs,
  so the result does not depend on the number of workers. (Written here rather than
  taken from a library: scipy's Nelder-Mead or Powell evaluate one point at a time, so
  they cannot use the workers, and Bayesian optimisers such as optuna or
  scikit-optimize add a dependency and a Gaussian-process fit per step for a problem
  this smooth.)

Every value is rounded to 4 significant digits before it is evaluated, so a trial's spec
string is exactly the configuration that was scored.

Honest splits: configurations are scored on the *fit window* only (the games after the
burn-in and before ``fit_until`` / ``score_from``: see
:func:`fastrate.data.evaluation.split_windows`), rating only the games up to its end; the
best one is then scored once on the scored window. Without ``fit_until`` and
``score_from`` the two windows are the same games (in-sample).

>>> import fastrate
>>> games = fastrate.load_example("football", period="year")
>>> result = fastrate.tune(games, "elo:k=10|20|40", score_from="2000-01-01")
>>> result.best
'elo:k=40'
>>> [row["spec"] for row in result.trials]
['elo:k=10', 'elo:k=20', 'elo:k=40']

Parallel: ``workers`` threads on this machine (the kernels release the GIL), or a Dask
cluster (``dask="local"`` starts a ``LocalCluster``, ``dask="tcp://host:port"`` connects
to a scheduler, or pass a ``distributed.Client``); the games are scattered to the
workers once. Dask is imported only then.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastrate import metrics as _metrics
from fastrate.data import Games, Matches
from fastrate.data.evaluation import Split, Window, split_windows
from fastrate.data.games import GAME_ARRAYS
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import score_window
from fastrate.systems import REGISTRY, SystemSpec, get

__all__ = ["tune", "TuneResult", "Space", "Dimension", "STRATEGIES", "default_spaces",
           "trial_columns"]

#: the search strategies
STRATEGIES = ("grid", "random", "coordinate")
#: evaluations per system when ``trials`` is not given (grid: the whole grid)
DEFAULT_TRIALS = {"random": 50, "coordinate": 200}
_DIGITS = 4
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:@\s*([A-Za-z_]\w*)\s*)?(?::(.*))?$", re.S)
_RANGE = re.compile(r"^\s*([-+]?[\d.]+(?:e[-+]?\d+)?)\s*\.\.\s*([-+]?[\d.]+(?:e[-+]?\d+)?)"
                    r"\s*(?::\s*(log|int|log-int|int-log))?\s*$", re.I)
_ITEM = re.compile(r"^([A-Za-z_]\w*)\[(\d+)\]$")


# ----------------------------------------------------------------------------------
# search spaces


@dataclass(frozen=True)
class Dimension:
    """One tuned option: ``key`` as written (``k``, ``k_power[0]``), the config field and
    tuple item it sets, and its values: ``kind`` ``"choice"`` (``values``, as written),
    ``"float"`` or ``"int"`` (``lo..hi``, ``log`` spaced)."""

    key: str
    field: str
    item: int | None
    kind: str
    values: tuple[str, ...] = ()
    lo: float = 0.0
    hi: float = 0.0
    log: bool = False

    def value(self, u: float) -> float | int:
        """The value at the position ``u`` in [0, 1] of the range (rounded)."""
        u = min(max(float(u), 0.0), 1.0)
        if self.log:
            x = math.exp(math.log(self.lo) + u * (math.log(self.hi) - math.log(self.lo)))
        else:
            x = self.lo + u * (self.hi - self.lo)
        if self.kind == "int":
            return int(min(max(round(x), math.ceil(self.lo)), math.floor(self.hi)))
        return _round(x)

    def grid(self, points: int) -> list[Any]:
        """The grid values of this dimension (unique, in order)."""
        if self.kind == "choice":
            return list(self.values)
        out: list[Any] = []
        for i in range(points):
            v = self.value(i / (points - 1) if points > 1 else 0.5)
            if v not in out:
                out.append(v)
        return out


def _round(x: float) -> float:
    return 0.0 if x == 0 else float(f"{x:.{_DIGITS}g}")


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return str(v)


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


@dataclass(frozen=True)
class Space:
    """A parsed search space: a system (and preset), its fixed options and the
    :class:`Dimension` s to search, in the order written."""

    system: str
    preset: str | None
    options: tuple[tuple[str, str], ...]  # (key, raw) of every option, in order
    dims: tuple[Dimension, ...]
    text: str

    @classmethod
    def parse(cls, text: str) -> Space:
        """Parse ``name[@preset]:key=value|range|list,...`` (see the module docstring)."""
        if not isinstance(text, str):
            raise ConfigError(f"a search space must be a string like 'elo:k=10..60'; got "
                              f"{type(text).__name__}")
        m = _SPEC.match(text)
        if not m:
            raise ConfigError(f"cannot read search space {text!r}: write name[@preset]"
                              ":key=lo..hi,key=a|b,key=value, e.g. 'elo:k=10..60'")
        name = get(m.group(1)).name
        preset = m.group(2)
        cfg = get(name).config_class
        fields = {f.name: f for f in dataclasses.fields(cfg) if f.init}
        hints = typing.get_type_hints(cfg)
        options, dims, seen = [], [], set()
        for part in _split_top(m.group(3) or "", ","):
            if not part:
                continue
            key, eq, raw = part.partition("=")
            key, raw = key.strip(), raw.strip()
            if not eq or not key or not raw:
                raise ConfigError(f"option {part!r} in search space {text!r} must be written "
                                  "key=value, key=lo..hi or key=a|b")
            im = _ITEM.match(key)
            fname, item = (im.group(1), int(im.group(2))) if im else (key, None)
            if fname not in fields:
                raise ConfigError(f"unknown option {fname!r} for {name} in search space "
                                  f"{text!r}; options of {cfg.__name__}: {', '.join(fields)}")
            if key in seen:
                raise ConfigError(f"option {key!r} is given twice in search space {text!r}")
            seen.add(key)
            hint = hints.get(fname, Any)
            if item is not None:
                args = [a for a in typing.get_args(hint) if a is not Ellipsis]
                hint = args[min(item, len(args) - 1)] if args else float
            options.append((key, raw))
            choices = _split_top(raw, "|")
            rm = _RANGE.match(raw)
            if len(choices) > 1:
                if any(not c for c in choices):
                    raise ConfigError(f"option {key!r} in search space {text!r}: an empty "
                                      f"value in the list {raw!r}")
                dims.append(Dimension(key, fname, item, "choice", tuple(choices)))
            elif rm:
                lo, hi, how = float(rm.group(1)), float(rm.group(2)), (rm.group(3) or "").lower()
                if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
                    raise ConfigError(f"range {raw!r} of {key!r} in search space {text!r} "
                                      "must be lo..hi with lo < hi")
                log = "log" in how
                if log and lo <= 0:
                    raise ConfigError(f"log range {raw!r} of {key!r} in search space {text!r} "
                                      "must be above 0")
                kind = "int" if ("int" in how or hint is int) else "float"
                if kind == "int" and math.floor(hi) < math.ceil(lo):
                    raise ConfigError(f"integer range {raw!r} of {key!r} holds no whole number")
                dims.append(Dimension(key, fname, item, kind, (), lo, hi, log))
        whole = {d.key for d in dims if d.item is None}
        for d in dims:
            if d.item is not None and d.field in whole:
                raise ConfigError(f"{d.field} is searched both whole and by item in search "
                                  f"space {text!r}; search its items only")
        space = cls(name, preset, tuple(options), tuple(dims), text.strip())
        space.spec({d.key: d.grid(1)[0] for d in dims})  # tuple items exist
        space.base()  # the fixed part must make a valid config
        return space

    @property
    def head(self) -> str:
        return self.system + (f"@{self.preset}" if self.preset else "")

    def base(self) -> SystemSpec:
        """The config of the fixed options (tuple items from it or the defaults)."""
        tuned = {d.key for d in self.dims}
        fixed = [f"{k}={v}" for k, v in self.options if k not in tuned and not _ITEM.match(k)]
        return SystemSpec.parse(self.head + (":" + ",".join(fixed) if fixed else ""))

    def spec(self, point: dict[str, Any]) -> str:
        """The ``-s`` string of the configuration ``point`` (``key -> value``)."""
        items_of = {m.group(1) for m in (_ITEM.match(k) for k, _ in self.options) if m}
        base = self.base().config if items_of else None
        out, done = [], set()
        for key, raw in self.options:
            im = _ITEM.match(key)
            fname = im.group(1) if im else key
            if fname in done:
                continue
            done.add(fname)
            if fname not in items_of:
                out.append(f"{key}={_fmt(point[key]) if key in point else raw}")
                continue
            items = list(getattr(base, fname))
            for k2, raw2 in self.options:
                m2 = _ITEM.match(k2)
                if m2 and m2.group(1) == fname:
                    i = int(m2.group(2))
                    if i >= len(items):
                        raise ConfigError(f"{k2}: {fname} has {len(items)} items (0 .. "
                                          f"{len(items) - 1}) in search space {self.text!r}")
                    items[i] = point[k2] if k2 in point else raw2
            out.append(f"{fname}=" + ":".join(_fmt(v) for v in items))
        return self.head + (":" + ",".join(out) if out else "")

    def size(self, grid_points: int) -> int:
        return math.prod(len(d.grid(grid_points)) for d in self.dims) if self.dims else 1


def default_spaces(data: Games | Matches) -> list[str]:
    """The default search space of every registered system that can rate ``data`` and
    has one (:attr:`fastrate.systems.RatingSystem.space`): systems of the data's kind,
    period-based and batch ones only when the data has periods. When the first player
    won every game (a winner/loser file), ``advantage`` is left out: it would learn the
    layout, not a home advantage."""
    kind = "matches" if isinstance(data, Matches) else "games"
    out = []
    for entry in REGISTRY.values():
        space = getattr(entry, "space", "")
        if not space or entry.data != kind:
            continue
        if (entry.period_based or entry.batch) and data.period is None:
            continue
        if kind == "games" and bool(np.all(data.score == 1.0)):
            name, _, rest = space.partition(":")
            parts = [p for p in _split_top(rest, ",") if p and not p.startswith("advantage=")]
            space = name + (":" + ",".join(parts) if parts else "")
        out.append(space)
    if not out:
        raise ConfigError(f"no registered system has a default search space for these {kind}; "
                          "give one, e.g. 'elo:k=10..60'")
    return out


# ----------------------------------------------------------------------------------
# the result


def trial_columns(metrics: Sequence[str], params: Sequence[str]) -> list[str]:
    """The columns of the trials table: ``trial, system, spec``, one per parameter, then
    the fit-window metrics."""
    return ["trial", "system", "spec", *params, *metrics]


@dataclass
class TuneResult:
    """What :func:`tune` found.

    ``trials``: one dict per configuration tried, in the order they ran: ``trial``
    (from 1), ``system``, ``spec`` (its ``-s`` string), one key per tuned parameter (as
    written in the space: ``k``, ``k_power[0]``; absent for another system's
    parameters), then the fit-window metrics (``log_loss, deviance, brier, rmse,
    accuracy`` for games; ``winner_log_loss ...`` for matches). ``best``: the ``-s``
    string of the best trial by ``metric``; ``fit``: its metrics on the fit window (in
    sample); ``score``: on the scored window (out of sample, scored once); ``split``
    and ``windows``: which games were used for what.
    """

    trials: list[dict[str, Any]]
    best: str
    fit: dict[str, Any]
    score: dict[str, Any]
    metric: str
    metrics: tuple[str, ...]
    params: tuple[str, ...]
    split: Split
    windows: tuple[Window, ...]
    unit: str = "games"
    notes: list[str] = field(default_factory=list)

    def columns(self) -> list[str]:
        return trial_columns(self.metrics, self.params)

    def to_arrow(self):
        """The trials table as a ``pyarrow.Table`` (:func:`trial_columns`); a parameter
        column is float64 when every value in it is a number, else a string; null where
        a trial's system has no such parameter."""
        import pyarrow as pa

        cols: dict[str, Any] = {
            "trial": pa.array([t["trial"] for t in self.trials], pa.int64()),
            "system": pa.array([t["system"] for t in self.trials], pa.string()),
            "spec": pa.array([t["spec"] for t in self.trials], pa.string())}
        for p in self.params:
            vals = [t.get(p) for t in self.trials]
            numeric = all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                          for v in vals)
            cols[p] = (pa.array([None if v is None else float(v) for v in vals], pa.float64())
                       if numeric else
                       pa.array([None if v is None else str(v) for v in vals], pa.string()))
        for m in self.metrics:
            cols[m] = pa.array([float(t[m]) for t in self.trials], pa.float64())
        return pa.table(cols)

    def to_dict(self) -> dict[str, Any]:
        """``{"best", "fit", "score", "trials", "metric", "windows"}`` (JSON-ready)."""
        def clean(d: dict[str, Any]) -> dict[str, Any]:
            return {k: (None if isinstance(v, float) and math.isnan(v) else v)
                    for k, v in d.items()}
        return {"best": self.best, "fit": clean(self.fit), "score": clean(self.score),
                "trials": [clean(t) for t in self.trials], "metric": self.metric,
                "windows": [{"role": w.role, "n": w.n, "first": w.first, "last": w.last}
                            for w in self.windows]}

    def __str__(self) -> str:
        m = self.metric
        lines = [f"tuned {len(self.trials)} configuration(s) by {m} on the fit window",
                 f"{self.unit}: " + "; ".join(str(w) for w in self.windows),
                 f"best: {self.best}",
                 f"  fit   (in sample, n={self.fit.get('n', 0):,}):  "
                 + "  ".join(f"{k} {_num(self.fit[k])}" for k in self.metrics),
                 f"  score (out of sample, n={self.score.get('n', 0):,}):  "
                 + "  ".join(f"{k} {_num(self.score[k])}" for k in self.metrics)]
        return "\n".join([*lines, *(f"note: {n}" for n in self.notes)])

    def __repr__(self) -> str:
        return f"TuneResult({len(self.trials)} trials, best {self.best!r})"


def _num(x: Any) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


# ----------------------------------------------------------------------------------
# running trials


def _trial(data: Games | Matches, spec: str, start: int, stop: int, draws: str,
           initial: Any, resets: Any = None) -> dict[str, Any]:
    """One configuration's fit-window metrics (what a worker runs)."""
    return score_window(data, spec, start, stop, draws=draws, initial=initial, resets=resets)


class _Runner:
    """Runs batches of trials in order: threads on this machine, or a Dask cluster
    (:class:`fastrate.cluster.Cluster`)."""

    def __init__(self, workers: int, dask: Any):
        self.workers = workers
        self.cluster = None
        self.client = None
        self.pool = None
        if dask is not None:
            from fastrate.cluster import Cluster

            self.cluster = Cluster(dask, workers)
            self.client = self.cluster.client
        elif workers > 1:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=workers)

    def put(self, data: Any) -> Any:
        """The data as the workers will see it: scattered once to every Dask worker."""
        if self.cluster is not None:
            return self.cluster.scatter(data, broadcast=True)
        return data

    def run(self, handle: Any, specs: list[str], start: int, stop: int, draws: str,
            initial: Any, done: Callable[[], None], resets: Any = None
            ) -> list[dict[str, Any]]:
        if self.client is not None:
            from distributed import as_completed

            futures = self.client.map(_trial, [handle] * len(specs), specs,
                                      start=start, stop=stop, draws=draws, initial=initial,
                                      resets=resets, pure=False)
            for _ in as_completed(futures):
                done()
            return self.client.gather(futures)
        if self.pool is not None:
            futures = [self.pool.submit(_trial, handle, s, start, stop, draws, initial, resets)
                       for s in specs]
            out = []
            for f in futures:
                out.append(f.result())
                done()
            return out
        out = []
        for s in specs:
            out.append(_trial(handle, s, start, stop, draws, initial, resets))
            done()
        return out

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
        if self.cluster is not None:
            self.cluster.close()


def _prefix(data: Games | Matches, stop: int) -> Games | Matches:
    """The first ``stop`` stored games as Games in stored order (``order=None``): the
    walk-forward predictions of these games do not depend on later ones."""
    if not isinstance(data, Games) or (stop == data.n_games and data.order is None):
        return data
    cut = {k: (None if getattr(data, k) is None else np.ascontiguousarray(getattr(data, k)[:stop]))
           for k in GAME_ARRAYS}
    return dataclasses.replace(data, order=None, **cut)


# ----------------------------------------------------------------------------------
# strategies


class _Search:
    """Evaluates points of one space in batches, remembering every result."""

    def __init__(self, space: Space, evaluate: Callable[[list[str]], list[dict[str, Any]]],
                 budget: int, metric: str, higher: bool):
        self.space, self.evaluate, self.budget = space, evaluate, budget
        self.metric, self.higher = metric, higher
        self.seen: dict[str, float] = {}
        self.trials: list[tuple[dict[str, Any], str, dict[str, Any]]] = []

    def loss(self, row: dict[str, Any]) -> float:
        v = float(row[self.metric])
        if math.isnan(v):
            return math.inf
        return -v if self.higher else v

    def batch(self, points: list[dict[str, Any]]) -> list[float]:
        """Evaluate the new points (in order, within the budget); the loss of every
        point (inf for those left out by the budget)."""
        specs = [self.space.spec(p) for p in points]
        new, keep = [], []
        for p, s in zip(points, specs):
            if s not in self.seen and s not in {x for _, x in keep}:
                if len(self.trials) + len(new) >= self.budget:
                    continue
                new.append(s)
                keep.append((p, s))
        rows = self.evaluate(new) if new else []
        for (p, s), row in zip(keep, rows):
            self.seen[s] = self.loss(row)
            self.trials.append((p, s, row))
        return [self.seen.get(s, math.inf) for s in specs]

    @property
    def left(self) -> int:
        return self.budget - len(self.trials)


def _grid(search: _Search, grid_points: int) -> None:
    dims = search.space.dims
    values = [d.grid(grid_points) for d in dims]
    points = [dict(zip((d.key for d in dims), combo)) for combo in itertools.product(*values)]
    search.batch(points or [{}])


def _random(search: _Search, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    points = []
    for _ in range(n):
        p = {}
        for d in search.space.dims:
            p[d.key] = (d.values[int(rng.integers(len(d.values)))] if d.kind == "choice"
                        else d.value(float(rng.random())))
        points.append(p)
    search.batch(points or [{}])


def _coordinate(search: _Search, tol: float = 1e-4) -> None:
    dims = search.space.dims
    num = [i for i, d in enumerate(dims) if d.kind != "choice"]
    u = [0.5] * len(dims)          # position of the numeric dimensions in [0, 1]
    c = [0] * len(dims)            # index of the list dimensions' values
    done: list[tuple[list[float], list[int], float]] = []

    def point(uu: list[float], cc: list[int]) -> dict[str, Any]:
        return {d.key: (d.values[cc[i]] if d.kind == "choice" else d.value(uu[i]))
                for i, d in enumerate(dims)}

    def run(cands: list[tuple[list[float], list[int]]]) -> list[float]:
        losses = search.batch([point(uu, cc) for uu, cc in cands])
        done.extend((uu, cc, f) for (uu, cc), f in zip(cands, losses) if math.isfinite(f))
        return losses

    f0 = run([(u, c)])[0]
    h = 0.25
    move: list[float] | None = None
    radius = 4 * h  # how far the quadratic model's step may go
    while search.left > 0 and h >= tol and dims:
        cands: list[tuple[list[float], list[int]]] = []
        for i in num:
            for s in (-1.0, 1.0):
                uu = list(u)
                uu[i] = min(max(u[i] + s * h, 0.0), 1.0)
                cands.append((uu, c))
        for i, d in enumerate(dims):
            if d.kind == "choice":
                for j in range(len(d.values)):
                    if j != c[i]:
                        cc = list(c)
                        cc[i] = j
                        cands.append((u, cc))
        losses = run(cands)
        # model steps: the vertex of the parabola along every axis, and the minimum of a
        # quadratic fitted to the nearest points evaluated (which follows ridges)
        steps = []
        diag = _axis_vertex(u, f0, num, cands, losses, h)
        if diag is not None:
            steps.append((diag, c))
        full = _quadratic_step(u, c, num, done, h, radius)
        if full is not None:
            steps.append((full, c))
        if move is not None and any(move):  # the pattern move: the last move once more
            steps.append(([min(max(a + m, 0.0), 1.0) for a, m in zip(u, move)], c))
            move = None
        if steps and search.left > 0:
            cands += steps
            losses += run(steps)
        best = min(range(len(losses)), key=lambda j: (losses[j], j)) if losses else -1
        if best >= 0 and losses[best] < f0:
            if c == cands[best][1]:
                move = [b - a for a, b in zip(u, cands[best][0])]
            # the quadratic model's step won: trust it further next time
            radius = min(2 * radius, 1.0) if cands[best][0] is full else max(radius / 2, 4 * h)
            u, c = list(cands[best][0]), list(cands[best][1])
            f0 = losses[best]
        else:
            h /= 2
            radius = max(radius / 2, 4 * h)


def _axis_vertex(u: list[float], f0: float, num: list[int], cands: list, losses: list[float],
                 h: float) -> list[float] | None:
    """The vertex of the parabola through f(x-h), f(x), f(x+h) along every numeric axis
    (clipped to +-h; the lower side when the parabola opens downwards)."""
    step = list(u)
    moved = False
    for k, i in enumerate(num):
        fm, fp = losses[2 * k], losses[2 * k + 1]
        um, up = cands[2 * k][0][i], cands[2 * k + 1][0][i]
        if not (math.isfinite(fm) and math.isfinite(fp)) or um == u[i] or up == u[i]:
            continue
        a, b = u[i] - um, up - u[i]
        denom = a * b * (a + b)
        curv = 2 * (b * (fm - f0) + a * (fp - f0)) / denom
        slope = (a * a * (fp - f0) - b * b * (fm - f0)) / denom
        t = min(max(-slope / curv, -h), h) if curv > 0 else (-h if fm < fp else h)
        step[i] = min(max(u[i] + t, 0.0), 1.0)
        moved = moved or step[i] != u[i]
    return step if moved else None


def _quadratic_step(u: list[float], c: list[int], num: list[int],
                    done: list[tuple[list[float], list[int], float]], h: float,
                    radius: float) -> list[float] | None:
    """The minimum of a full quadratic fitted (least squares) to the ``3p`` evaluated
    points nearest ``u`` with the same list values (``p`` coefficients), within
    ``+-radius`` of ``u`` (a modified Newton step: curvatures taken by absolute value);
    None without enough points."""
    d = len(num)
    if d < 2:
        return None
    p = 1 + d + d * (d + 1) // 2
    pts = [(np.array([uu[i] for i in num]), f) for uu, cc, f in done if cc == c]
    if len(pts) < p + 2:
        return None
    x0 = np.array([u[i] for i in num])
    pts.sort(key=lambda t: float(np.sum((t[0] - x0) ** 2)))
    pts = pts[:3 * p]
    z = np.array([(x - x0) / h for x, _ in pts])
    y = np.array([f for _, f in pts])
    iu = np.triu_indices(d)
    feats = np.hstack([np.ones((len(z), 1)), z, (z[:, :, None] * z[:, None, :])[:, iu[0], iu[1]]])
    coef, *_ = np.linalg.lstsq(feats, y - y.min(), rcond=None)
    g = coef[1:1 + d]
    hess = np.zeros((d, d))
    hess[iu] = coef[1 + d:]
    hess = hess + hess.T  # the diagonal counts twice: d2/dz2 of a z^2 is 2a
    try:
        # a modified Newton step: negative curvatures taken as positive (the step then
        # goes downhill along them too), tiny ones floored
        lam, vec = np.linalg.eigh(hess)
    except np.linalg.LinAlgError:
        return None
    top = float(np.max(np.abs(lam)))
    if not top > 0:
        return None
    lam = np.maximum(np.abs(lam), 1e-3 * top)
    s = -vec @ ((vec.T @ g) / lam)
    if not np.all(np.isfinite(s)):
        return None
    s = np.clip(s * h, -radius, radius)
    step = list(u)
    for k, i in enumerate(num):
        step[i] = float(min(max(u[i] + s[k], 0.0), 1.0))
    return step if step != u else None


# ----------------------------------------------------------------------------------
# the entry point


def tune(games: Games | Matches, space: str | Sequence[str] | None = None, *,
         strategy: str | None = None, trials: int | None = None, grid_points: int = 5,
         seed: int = 0, metric: str | None = None, burn_in: int = 0, fit_until: Any = None,
         score_from: Any = None, score_until: Any = None, initial: Any = None,
         resets: Any = None, draws: str = "exclude", workers: int = 1, dask: Any = None,
         progress: Callable[[int, int], Any] | None = None) -> TuneResult:
    """Search ``space`` for the configuration that predicts ``games`` best.

    ``space``: a search space string (see :mod:`fastrate.tune`), a list of them, or None
    for the default space of every registered system that fits the data
    (:func:`default_spaces`). ``strategy``: ``grid``, ``random`` or ``coordinate``
    (default: ``grid`` when every option is a list, else ``coordinate``); ``trials``:
    evaluations per space (default: the whole grid, 50 random, 200 coordinate);
    ``grid_points``: values per range on a grid; ``seed``: the random strategy's seed.
    ``metric``: what to minimise (``log_loss`` by default; ``accuracy`` and
    ``rank_correlation`` are maximised); for matches the
    :data:`~fastrate.metrics.MATCH_METRICS` (``winner_log_loss`` by default).
    ``burn_in``, ``fit_until``, ``score_from``, ``score_until``: the windows (see
    :func:`fastrate.data.evaluation.split_windows`); trials are scored on the fit
    window, the best once on the scored window. ``initial``: starting ratings of every
    run; ``resets``: explicit rating resets (a table: player, period or time, value) for
    the systems that take them, as in :func:`fastrate.evaluate` (Elo: FiveThirtyEight's NFL
    franchise resets; refused when no system searched takes them); ``draws``: the
    accuracy convention. ``workers``: parallel trials (threads, or
    Dask workers for ``dask="local"``); ``dask``: ``"local"``, a scheduler address or a
    ``distributed.Client``. ``progress(done, total)`` is called after every trial.
    """
    if not isinstance(games, (Games, Matches)):
        raise InputError("tune() needs fastrate.Games or Matches; build them with "
                         "Games.from_arrays or read_games")
    unit = "matches" if isinstance(games, Matches) else "games"
    names = _metrics.MATCH_METRICS if unit == "matches" else _metrics.METRICS
    metric = metric or names[0]
    if metric not in names:
        raise ConfigError(f"metric {metric!r} is not scored on {unit}; metrics: "
                          f"{', '.join(names)}")
    _metrics.check_draws(draws)
    if strategy is not None and strategy not in STRATEGIES:
        raise ConfigError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    for what, value, low in (("trials", trials, 1), ("grid_points", grid_points, 1),
                             ("workers", workers, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(
                value, (int, np.integer)) or value < low):
            raise ConfigError(f"{what} must be a whole number >= {low}; got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ConfigError(f"seed must be a whole number; got {seed!r}")
    notes: list[str] = []
    if space is None:
        texts = default_spaces(games)
        left = [e.name for e in REGISTRY.values() if getattr(e, "space", "") and e.data == unit
                and (e.period_based or e.batch) and games.period is None]
        if left:
            notes.append(f"left out for want of rating periods: {', '.join(left)} (give "
                         "periods: period='month', --period)")
    else:
        texts = [space] if isinstance(space, str) else list(space)
    if not texts:
        raise ConfigError("no search space: give one, e.g. 'elo:k=10..60'")
    spaces = [Space.parse(t) for t in texts]
    for sp in spaces:
        kind = get(sp.system).data
        if kind == "boards" or (unit == "matches" and kind == "games"
                                and not games.is_two_player()):
            raise ConfigError(f"{sp.system} rates {kind}; it cannot be tuned on these {unit}")
        if unit == "games" and kind == "matches":
            raise ConfigError(f"{sp.system} rates matches; tune it on Matches (read_matches, "
                              "or Matches.from_games) so that every system is scored alike")
        if get(sp.system).period_based and games.period is None:
            raise ConfigError(f"{sp.system} updates once per rating period and these {unit} "
                              "have none: every prediction would be the starting one; give "
                              "periods (period='month', --period)")
        if get(sp.system).batch and games.period is None:
            raise ConfigError(f"{sp.system} is refitted once per rating period; these {unit} "
                              "have no periods (period='year', --period)")
    if unit == "games" and space is not None and bool(np.all(games.score == 1.0)) and any(
            d.field == "advantage" for sp in spaces for d in sp.dims):
        notes.append("the first player won every game (a winner/loser layout): a tuned "
                     "advantage learns the layout, not a home advantage")
    if resets is not None and not any(get(sp.system).accepts("resets") for sp in spaces):
        raise ConfigError("resets: none of the systems searched takes rating resets ("
                          + ", ".join(sp.system for sp in spaces) + "); they work with "
                          + ", ".join(e.name for e in REGISTRY.values()
                                      if e.accepts("resets")))
    split = split_windows(games, burn_in, fit_until, score_from, score_until)
    if split.fit[1] <= split.fit[0]:
        raise InputError("the fit window holds no games: move fit_until / score_from later "
                         "or the burn-in earlier")
    if not split.split:
        notes.append("no fit_until or score_from: the best configuration is scored on the "
                     "games it was tuned on (in sample)")
    higher = metric in ("accuracy", "winner_accuracy", "pair_accuracy", "rank_correlation")

    plans = []
    for sp in spaces:
        strat = strategy or ("grid" if all(d.kind == "choice" for d in sp.dims) else
                             "coordinate")
        if strat == "grid":
            budget = sp.size(grid_points) if trials is None else trials
        else:
            budget = trials if trials is not None else DEFAULT_TRIALS[strat]
        plans.append((sp, strat, budget))
    total = sum(b for _, _, b in plans)
    count = [0]

    def done() -> None:
        count[0] += 1
        if progress is not None:
            progress(count[0], total)

    runner = _Runner(int(workers), dask)
    rows: list[dict[str, Any]] = []
    params: list[str] = []
    try:
        fit_data = _prefix(games, split.fit[1])
        handle = runner.put(fit_data)
        for sp, strat, budget in plans:
            search = _Search(sp, lambda specs: runner.run(
                handle, specs, split.fit[0], split.fit[1], draws, initial, done, resets),
                budget, metric, higher)
            if strat == "grid":
                _grid(search, grid_points)
            elif strat == "random":
                _random(search, budget, int(seed))
            else:
                _coordinate(search)
            for d in sp.dims:
                if d.key not in params:
                    params.append(d.key)
            for point, spec, row in search.trials:
                rows.append({"trial": len(rows) + 1, "system": sp.system, "spec": spec,
                             **point, **{m: row[m] for m in names}, "n": row["n"]})
    finally:
        runner.close()
    if progress is not None and count[0] < total:
        progress(total, total)
    sign = -1.0 if higher else 1.0

    def key(r: dict[str, Any]) -> tuple[float, int]:
        v = float(r[metric])
        return (math.inf if math.isnan(v) else sign * v, r["trial"])

    best = min(rows, key=key)
    fit = {"n": best["n"], **{m: best[m] for m in names}}
    full = _prefix(games, split.score[1]) if isinstance(games, Games) else games
    score = score_window(full, best["spec"], split.score[0], split.score[1], draws=draws,
                         initial=initial, resets=resets)
    for r in rows:
        del r["n"]
        for p in params:
            v = r.get(p)
            if isinstance(v, str):
                r[p] = _choice_value(v)
    return TuneResult(rows, best["spec"], fit, dict(score), metric, tuple(names),
                      tuple(params), split, split.windows(games), unit, notes)


def _choice_value(v: str) -> Any:
    """A listed value as a number when it reads as one (for the table's columns)."""
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if f.is_integer() and re.fullmatch(r"[-+]?\d+", v.strip()) else f


class _CallableModule(types.ModuleType):
    """``fastrate.tune(games, space, ...)`` calls :func:`tune`, whether ``fastrate.tune``
    names this module (``import fastrate.tune``) or the function."""

    def __call__(self, *args: Any, **kwargs: Any) -> TuneResult:
        return tune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
