"""Walk-forward evaluation: compare rating systems by how well they predict (SPEC §7).

An online rating system predicts every game from the ratings before it was played
(:attr:`fastrate.Ratings.predictions`), so scoring those predictions against the
results measures predictive skill with no look-ahead. :func:`evaluate` rates the same
games with several systems and tabulates log loss, binomial deviance, Brier score,
RMSE, accuracy and a calibration table per system (the metrics are in
:mod:`fastrate.metrics`). The games of the first rating periods can be left out of
the scores (``burn_in``), while every system still learns from them.

Systems are named by spec strings (the CLI's ``--system``)::

    elo                        EloConfig()
    elo:k=24,advantage=65      EloConfig(k=24, advantage=65)
    elo@fide                   EloConfig.fide()
    elo@fivethirtyeight_nfl:k=25
    elo:k_schedule=games,k_table=30:40/inf:20
    glicko2:tau=0.3            Glicko2Config(tau=0.3)

>>> from fastrate.evaluate import evaluate                              # doctest: +SKIP
>>> print(evaluate(games, ["elo", "elo:k=20", "glicko2"], burn_in=2))   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate import metrics as _metrics
from fastrate._validate import as_float64, check_range
from fastrate.data import Games, Ratings, period_starts
from fastrate.data.evaluation import (
    Evaluation,
    burn_in_mask,
    check_bins,
    unique_labels,
)
from fastrate.errors import ConfigError, InputError, InputTypeError

__all__ = ["SYSTEMS", "SystemSpec", "parse_system", "presets", "burn_in_mask", "evaluate",
           "evaluate_predictions", "Evaluation"]

#: system name -> (module, config class name); modules are imported on first use
SYSTEMS: dict[str, tuple[str, str]] = {
    "elo": ("fastrate.ratings.elo", "EloConfig"),
    "glicko": ("fastrate.ratings.glicko", "GlickoConfig"),
    "glicko2": ("fastrate.ratings.glicko2", "Glicko2Config"),
}

_NONE = {"none", "null"}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_SPEC = re.compile(r"^\s*([A-Za-z_][\w]*)\s*(?:@\s*([A-Za-z_]\w*)\s*)?(?::(.*))?$", re.S)


# ----------------------------------------------------------------------------------
# systems and spec strings


def _load(name: str) -> tuple[types.ModuleType, type]:
    """The rating module and config class of a known system (imported lazily)."""
    if name not in SYSTEMS:
        raise ConfigError(f"unknown rating system {name!r}; known systems: "
                          f"{', '.join(SYSTEMS)}")
    module_name, config_name = SYSTEMS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise ConfigError(f"rating system {name!r} is not available in this installation "
                          f"({module_name} is missing)") from None
    return module, getattr(module, config_name)


def presets(name: str) -> list[str]:
    """Preset names of a system: the public classmethods of its config class
    (``elo`` -> ``fide``, ``fivethirtyeight_nfl``, ``world_football`` ...)."""
    _, cls = _load(name)
    out = []
    for attr in dir(cls):
        if not attr.startswith("_") and isinstance(inspect.getattr_static(cls, attr),
                                                   classmethod):
            out.append(attr)
    return out


def _split_options(text: str, spec: str) -> list[str]:
    """Split ``a=1,b=[1,2],c="x,y"`` on the commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if quote or depth != 0:
        raise ConfigError(f"unbalanced brackets or quotes in the options of spec {spec!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _unquote(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        return t[1:-1]
    return t


def _json_value(text: str) -> Any:
    """A JSON value, also accepting ``inf``/``-inf`` and tuples written with ``()``."""
    t = text.strip().replace("(", "[").replace(")", "]")
    t = re.sub(r"(?<![\w.])(-?)inf(inity)?(?![\w.])", r"\1Infinity", t, flags=re.I)
    return json.loads(t)


def _convert(value: Any, hint: Any, where: str) -> Any:
    """Convert ``value`` (a string, or parsed JSON) to the type ``hint``."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if isinstance(value, str) and value.strip().lower() in _NONE and type(None) in args:
            return None
        if value is None and type(None) in args:
            return None
        rest = [a for a in args if a is not type(None)]
        errors = []
        for a in rest:
            try:
                return _convert(value, a, where)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(errors[0] if errors else f"{where}: cannot convert {value!r}")
    if hint is Any:
        return value
    if hint is type(None):
        if value is None or (isinstance(value, str) and value.strip().lower() in _NONE):
            return None
        raise ConfigError(f"{where} must be none; got {value!r}")
    if origin is tuple or hint is tuple:
        return _convert_tuple(value, args, where)
    if hint is bool:
        if isinstance(value, bool):
            return value
        s = str(value).strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise ConfigError(f"{where} must be true or false; got {value!r}")
    if hint is int:
        if isinstance(value, bool):
            raise ConfigError(f"{where} must be an integer; got {value!r}")
        if isinstance(value, int):
            return value
        try:
            f = float(str(value).strip())
        except ValueError:
            raise ConfigError(f"{where} must be an integer; got {value!r}") from None
        if not math.isfinite(f) or f != int(f):
            raise ConfigError(f"{where} must be an integer; got {value!r}")
        return int(f)
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        try:
            return float(str(value).strip())
        except ValueError:
            raise ConfigError(f"{where} must be a number; got {value!r}") from None
    if hint is str:
        return _unquote(value) if isinstance(value, str) else str(value)
    # anything else: JSON if it parses, else the string
    if isinstance(value, str):
        try:
            return _json_value(value)
        except ValueError:
            return _unquote(value)
    return value


def _convert_tuple(value: Any, args: tuple, where: str) -> tuple:
    """Tuples from JSON (``[[30,40],[inf,20]]``) or the short form: rows separated by
    ``/`` and items by ``:`` for a table (``30:40/inf:20``), items by ``:`` or ``/``
    for a flat tuple (``250:5:0.4``)."""
    nested = bool(args) and any(typing.get_origin(a) is tuple for a in args
                                if a is not Ellipsis)
    if isinstance(value, str):
        t = value.strip()
        if t.startswith(("[", "(")):
            try:
                items = _json_value(t)
            except ValueError:
                raise ConfigError(f"{where}: cannot read {value!r} as a list") from None
        elif t == "":
            items = []
        elif nested:
            items = [row.split(":") for row in t.split("/")]
        else:
            items = re.split(r"[:/]", t)
    else:
        items = value
    if not isinstance(items, (list, tuple)):
        items = [items]
    if not args:
        return tuple(items)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(items))
    if len(items) != len(args):
        raise ConfigError(f"{where} takes {len(args)} values; got {len(items)} from {value!r}")
    return tuple(_convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(items, args)))


def _format_value(v: Any) -> str:
    """A value in the spec syntax (so that a label parses back to the same config)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    if isinstance(v, tuple):
        if v and all(isinstance(r, tuple) for r in v):
            return "/".join(":".join(_format_value(x) for x in r) for r in v)
        return ":".join(_format_value(x) for x in v)
    return str(v)


@dataclass(frozen=True)
class SystemSpec:
    """A rating system and its configuration, e.g. from ``"elo:k=24,advantage=65"``.

    ``label`` names it in tables (the spec string as given, or one built from the
    config's non-default fields).
    """

    name: str
    config: Any
    label: str = ""

    def __post_init__(self) -> None:
        _, cls = _load(self.name)
        if self.config is None:
            object.__setattr__(self, "config", cls())
        elif not isinstance(self.config, cls):
            raise InputTypeError(f"config for {self.name!r} must be a {cls.__name__}; got "
                                 f"{type(self.config).__name__}")
        if not self.label:
            object.__setattr__(self, "label", self.spec)

    @property
    def module(self) -> types.ModuleType:
        return _load(self.name)[0]

    @property
    def spec(self) -> str:
        """A spec string for this config: the name and its non-default fields."""
        default = type(self.config)()
        opts = [f"{f.name}={_format_value(getattr(self.config, f.name))}"
                for f in dataclasses.fields(self.config)
                if getattr(self.config, f.name) != getattr(default, f.name)]
        return self.name + (":" + ",".join(opts) if opts else "")

    @classmethod
    def parse(cls, spec: str) -> SystemSpec:
        """Parse ``name[@preset][:key=value,...]``.

        Values are converted to the type of the config field: numbers, ``none``,
        ``true``/``false``, tuples as ``30:40/inf:20`` (rows ``/``, items ``:``) or JSON
        (``[[30, 40], ["inf", 20]]``, ``inf`` allowed), strings as they are.
        """
        if not isinstance(spec, str):
            raise InputTypeError(f"a system spec must be a string like 'elo:k=20'; got "
                                 f"{type(spec).__name__}")
        m = _SPEC.match(spec)
        if not m:
            raise ConfigError(f"cannot read system spec {spec!r}: write name[@preset]"
                              "[:key=value,...], e.g. 'elo', 'elo@fide', 'glicko2:tau=0.3'")
        name, preset, rest = m.group(1).lower(), m.group(2), m.group(3)
        _, config_cls = _load(name)
        fields = {f.name: f for f in dataclasses.fields(config_cls) if f.init}
        hints = typing.get_type_hints(config_cls)
        kwargs: dict[str, Any] = {}
        for part in _split_options(rest or "", spec):
            key, eq, raw = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ConfigError(f"option {part!r} in system spec {spec!r} must be written "
                                  "key=value")
            if key not in fields:
                raise ConfigError(f"unknown option {key!r} for {name} in spec {spec!r}; "
                                  f"options of {config_cls.__name__}: {', '.join(fields)}")
            if key in kwargs:
                raise ConfigError(f"option {key!r} is given twice in system spec {spec!r}")
            kwargs[key] = _convert(raw.strip(), hints.get(key, Any),
                                   f"option {key!r} of {name} (in spec {spec!r})")
        if preset is not None:
            names = presets(name)
            if preset not in names:
                raise ConfigError(f"unknown preset {preset!r} for {name}; presets: "
                                  f"{', '.join(names) or 'none'}")
            config = getattr(config_cls, preset)(**kwargs)
        else:
            config = config_cls(**kwargs)
        return cls(name, config, spec.strip())

    @classmethod
    def of(cls, system: Any) -> SystemSpec:
        """A spec from a string, a ``(name, config)`` pair, a config object or a spec."""
        if isinstance(system, SystemSpec):
            return system
        if isinstance(system, str):
            return cls.parse(system)
        if isinstance(system, tuple) and len(system) == 2 and isinstance(system[0], str):
            name = system[0].strip().lower()
            config = system[1]
            if isinstance(config, Mapping):
                _, config_cls = _load(name)
                config = config_cls(**config)
            return cls(name, config)
        for name, (module_name, config_name) in SYSTEMS.items():
            module = sys.modules.get(module_name)
            if module is not None and isinstance(system, getattr(module, config_name, ())):
                return cls(name, system)
        raise InputTypeError(f"a system must be a spec string ('elo:k=20'), a (name, config) "
                             f"pair or a config object; got {system!r}")

    def rate(self, games: Games, initial: Any = None) -> Ratings:
        """Rate ``games`` with this system."""
        return self.module.rate(games, self.config, initial=initial)


def parse_system(spec: str) -> tuple[str, types.ModuleType, Any]:
    """``"glicko2:tau=0.3"`` -> ``("glicko2", fastrate.ratings.glicko2, Glicko2Config(tau=0.3))``."""
    s = SystemSpec.parse(spec)
    return s.name, s.module, s.config


# ----------------------------------------------------------------------------------
# burn-in and scoring


def _stored(games: Games, predictions: Any, label: str) -> np.ndarray:
    """Predictions in input order -> checked float64 in stored (chronological) order."""
    p = as_float64(predictions, f"predictions of {label}")
    if p.shape[0] != games.n_games:
        raise InputError(f"predictions of {label} must have one value per game "
                         f"({games.n_games}); got {p.shape[0]}")
    check_range(p, f"predictions of {label}", 0.0, 1.0)
    return p if games.order is None else p[games.order]


def _score(games: Games, pred_stored: np.ndarray, mask: np.ndarray, draws: str, bins: int
           ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    row = _metrics.summary(pred_stored, games.score, mask=mask, draws=draws)
    table = _metrics.calibration(pred_stored, games.score, bins=bins, mask=mask)
    return row, table


def _prepare(games: Any, burn_in: Any, draws: str, bins: Any) -> np.ndarray:
    if not isinstance(games, Games):
        raise InputTypeError(f"evaluation needs a fastrate.Games; got {type(games).__name__} "
                             "(build one with Games.from_arrays or read_games)")
    _metrics.check_draws(draws)
    check_bins(bins)
    mask = burn_in_mask(games, burn_in)
    if not mask.any():
        n_periods = period_starts(games.period).shape[0] - 1 if games.period is not None else 1
        raise InputError(f"a burn-in of {burn_in} period(s) leaves no games to score: the "
                         f"games span {n_periods} period(s); use a smaller burn_in")
    return mask


def evaluate(games: Games, systems: Sequence[Any] | str, burn_in: int = 0,
             initial: Any = None, draws: str = "exclude", bins: int = 10,
             on_system: Callable[[str, Ratings], Any] | None = None) -> Evaluation:
    """Rate ``games`` with each system and score the walk-forward predictions.

    ``systems``: spec strings (``"elo"``, ``"elo:k=20"``, ``"elo@fide"``,
    ``"glicko2:tau=0.3"``), ``(name, config)`` pairs, or config objects. All are
    validated before any rating starts. ``burn_in``: leave the games of the first that
    many rating periods out of the scores (the systems still learn from them).
    ``initial``: starting ratings passed to every ``rate()``. ``draws``: the accuracy
    convention (``"exclude"`` or ``"half"``). ``bins``: calibration bins.
    ``on_system(label, ratings)`` is called after each system is rated (progress).

    Returns an :class:`Evaluation` with one row per system, in the order given.
    """
    if isinstance(systems, (str, SystemSpec)) or (isinstance(systems, tuple)
                                                 and len(systems) == 2
                                                 and isinstance(systems[0], str)
                                                 and not isinstance(systems[1], str)):
        systems = [systems]
    specs = [SystemSpec.of(s) for s in systems]
    if not specs:
        raise ConfigError("no systems to evaluate: give at least one, e.g. ['elo']")
    mask = _prepare(games, burn_in, draws, bins)
    labels = unique_labels([s.label for s in specs])
    rows, tables, ratings = [], {}, {}
    for spec, label in zip(specs, labels):
        r = spec.rate(games, initial=initial)
        row, table = _score(games, _stored(games, r.predictions, label), mask, draws, bins)
        rows.append({"system": label, **row})
        tables[label] = table
        ratings[label] = r
        if on_system is not None:
            on_system(label, r)
    return Evaluation(rows, tables, games.n_games, int(burn_in), draws, ratings)


def evaluate_predictions(games: Games, predictions: Any, burn_in: int = 0,
                         draws: str = "exclude", bins: int = 10,
                         name: str = "predictions") -> Evaluation:
    """Score predictions made elsewhere against ``games.score``.

    ``predictions``: the first player's expected score for every game **in input
    order** (as :attr:`fastrate.Ratings.predictions`): an array, a :class:`Ratings`, or
    a mapping ``label -> array or Ratings`` to compare several. ``name`` labels a
    single array.
    """
    mask = _prepare(games, burn_in, draws, bins)
    if isinstance(predictions, Mapping):
        items = list(predictions.items())
    elif isinstance(predictions, Ratings):
        items = [(predictions.system if name == "predictions" else name, predictions)]
    else:
        items = [(name, predictions)]
    rows, tables, ratings = [], {}, {}
    for label, pred in items:
        label = str(label)
        if isinstance(pred, Ratings):
            ratings[label] = pred
            pred = pred.predictions
        row, table = _score(games, _stored(games, pred, label), mask, draws, bins)
        rows.append({"system": label, **row})
        tables[label] = table
    return Evaluation(rows, tables, games.n_games, int(burn_in), draws, ratings)
