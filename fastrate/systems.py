"""The rating-system registry (layer 3): every system fastrate can run, and the
``name[@preset][:key=value,...]`` spec strings that name a configured system.

A rating system is a module with a frozen config dataclass, ``rate(data, config,
initial=None)`` returning :class:`~fastrate.Ratings` (whose ``predictions`` are the
walk-forward expected scores), an ``expected_score`` prediction, and the per-player
state columns a continued run needs. It becomes usable everywhere -- evaluation, the
CLI's ``-s`` parser, warm-up, tuning and reports -- through one :class:`RatingSystem`
entry in :data:`REGISTRY` (see ``docs/adding-a-system.md``)::

    >>> from fastrate import systems
    >>> systems.names()
    ['elo', 'glicko', 'glicko2', 'stephenson', 'fibs', 'bridge_elo', 'trueskill', 'weng_lin', 'elom', 'pairwise_elo', 'codeforces', 'bradley_terry', 'whr']
    >>> systems.get("glicko2").state_names()
    ('rating', 'rd', 'volatility', 'games_played', 'last_period')
    >>> systems.get("fibs").state_names()
    ('rating', 'games_played', 'experience')
    >>> systems.SystemSpec.parse("elo:k=24,advantage=65").config.k
    24.0

Modules are imported on first use, so the registry costs nothing at ``import fastrate``.
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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastrate._validate import bool_word
from fastrate.errors import ConfigError, InputTypeError

if TYPE_CHECKING:  # pragma: no cover
    from fastrate.data.results import Ratings
    from fastrate.data.state import StateColumn

__all__ = ["RatingSystem", "REGISTRY", "register", "get", "names", "SystemSpec",
           "parse_system", "presets", "DATA_KINDS", "tiny_data"]

#: the kinds of data a system rates: two-player ``Games``, bridge ``Boards``, ``Matches``
DATA_KINDS = ("games", "boards", "matches")


@dataclass(frozen=True)
class RatingSystem:
    """One entry of the registry: what a rating system is and where it lives.

    ``module_name`` and ``config_name`` locate the module (imported lazily) and its frozen
    config dataclass; the module provides ``rate(data, config, initial=None)`` and
    ``expected_score``, and declares ``STATE``: the per-player columns
    (:class:`~fastrate.data.state.StateColumn`) its results carry and ``initial=`` reads
    back to continue a run exactly. ``data`` is the container it rates (one of
    :data:`DATA_KINDS`); ``period_based`` whether it updates once per rating period
    (so a data set without periods is a single period); ``warm_specs`` spec strings whose
    runs together compile every kernel of the system (used by ``fastrate warmup``).
    ``batch``: a batch model (fitted on all games at once) whose walk-forward predictions
    refit it once per rating period; it cannot continue from saved state (``initial=``),
    and evaluation needs periods. ``space``: the default search space of ``fastrate tune``
    (``name:key=lo..hi,key=a|b``, see :mod:`fastrate.tune`); ``""``: not tuned unless a
    space is given.
    """

    name: str
    module_name: str
    config_name: str
    summary: str
    data: str = "games"
    period_based: bool = False
    warm_specs: tuple[str, ...] = ()
    batch: bool = False
    space: str = ""

    def __post_init__(self) -> None:
        if self.data not in DATA_KINDS:
            raise ConfigError(f"data of rating system {self.name!r} must be one of "
                              f"{', '.join(DATA_KINDS)}; got {self.data!r}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ConfigError(f"a rating system's name must be lower-case letters, digits "
                              f"and _; got {self.name!r}")

    @property
    def module(self) -> types.ModuleType:
        """The system's module (imported on first use)."""
        try:
            return importlib.import_module(self.module_name)
        except ModuleNotFoundError as exc:
            if exc.name != self.module_name:
                raise
            raise ConfigError(f"rating system {self.name!r} is not available in this "
                              f"installation ({self.module_name} is missing)") from None

    @property
    def config_class(self) -> type:
        """The frozen config dataclass."""
        return getattr(self.module, self.config_name)

    @property
    def state(self) -> tuple[StateColumn, ...]:
        """The per-player state columns the module declares (``STATE``)."""
        return tuple(self.module.STATE)

    def state_names(self) -> tuple[str, ...]:
        """The names of the per-player state columns, in table order."""
        return tuple(c.name for c in self.state)

    def require_data(self, kind: str, hint: str) -> None:
        """Refuse to run this system on data of another ``kind`` (``hint``: where to go
        instead)."""
        if self.data != kind:
            noun = "two-player games" if kind == "games" else kind
            raise ConfigError(f"rating system {self.name!r} rates {self.data}, not {noun}; "
                              f"{hint}")

    def accepts(self, option: str) -> bool:
        """Whether the module's ``rate`` takes the keyword ``option`` (``resets``,
        ``record_pregame`` ...)."""
        return option in inspect.signature(self.module.rate).parameters

    @property
    def final_only(self) -> bool:
        """Whether the module's ``rate`` takes ``predictions=False`` (final ratings only,
        without the per-game outputs: Elo, Glicko, Glicko-2, Stephenson, TrueSkill,
        Weng-Lin, pairwise Elo, elom, Codeforces)."""
        return self.accepts("predictions")

    def rate(self, data: Any, config: Any = None, initial: Any = None,
             predictions: bool = True, **options: Any) -> Ratings:
        """``module.rate(data, config, initial=initial, **options)`` (the default config
        if None). A two-player system given :class:`~fastrate.data.Matches` of two
        one-player sides rates them as games (:meth:`~fastrate.data.Matches.to_games`).
        ``predictions=False``: the per-game outputs are not wanted, and the systems that
        can (:attr:`final_only`) skip them."""
        cfg = self.config_class() if config is None else config
        if self.data == "games":
            from fastrate.data.matches import Matches

            if isinstance(data, Matches):
                data = data.to_games()
        if not predictions and self.final_only:
            options["predictions"] = False
        return self.module.rate(data, cfg, initial=initial, **options)

    def expected_score(self, *args: Any, **kwargs: Any) -> Any:
        """The system's prediction: ``module.expected_score(...)``."""
        return self.module.expected_score(*args, **kwargs)


#: every registered system by name, in registration order
REGISTRY: dict[str, RatingSystem] = {}


def register(system: RatingSystem, *, replace: bool = False) -> RatingSystem:
    """Add ``system`` to the registry (``replace=True`` to redefine a name)."""
    if not isinstance(system, RatingSystem):
        raise InputTypeError(f"register() takes a RatingSystem; got {type(system).__name__}")
    if system.name in REGISTRY and not replace:
        raise ConfigError(f"a rating system called {system.name!r} is registered already; "
                          "pass replace=True to redefine it")
    REGISTRY[system.name] = system
    return system


def get(name: str) -> RatingSystem:
    """The registry entry called ``name``."""
    key = str(name).strip().lower().replace("-", "_")  # weng-lin is weng_lin
    if key not in REGISTRY:
        raise ConfigError(f"unknown rating system {name!r}; known systems: "
                          f"{', '.join(REGISTRY)}")
    return REGISTRY[key]


def tiny_data(kind: str, weighted: bool = True) -> Any:
    """A tiny valid data set of ``kind`` (one of :data:`DATA_KINDS`): what warm-up runs
    every system on, and what the protocol tests rate. Games have no draws (FIBS rates
    matches, which have none), two rating periods and unequal weights.
    ``weighted=False``: matches without the half-time player (every seat weight 1), the
    case the team systems' unweighted fast paths take."""
    if kind == "games":
        from fastrate.data.games import Games

        return Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
                                 [1.0, 0.0, 0.0, 1.0], period=[0, 0, 1, 2],
                                 margin=[3.0, -1.0, -2.0, 2.0], weight=[1.0, 3.0, 5.0, 1.0],
                                 neutral=[False, True, False, False])
    if kind == "boards":
        from fastrate.data.boards import Boards

        return Boards.from_arrays([1, 1, 2, 2], [420.0, -50.0, 100.0, 140.0],
                                  north=["a", "c", "a", "c"], south=["b", "d", "b", "d"],
                                  east=["e", "g", "e", "g"], west=["f", "h", "f", "h"],
                                  period=[0, 0, 1, 1])
    if kind == "matches":
        from fastrate.data.matches import Matches

        # a 2v2, a 1v1 draw, a three-player free-for-all with a tie, a 1v2 with a
        # half-time player, a 1v1 win; three rating periods
        return Matches.from_arrays(
            match=[1, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5],
            team=["x", "x", "y", "y", "a", "b", "a", "b", "c", "x", "y", "y", "a", "b"],
            player=["a", "b", "c", "d", "a", "c", "b", "c", "d", "d", "a", "b", "e", "a"],
            rank=[1, 1, 2, 2, 1, 1, 2, 1, 2, 1, 2, 2, 1, 2],
            weight=[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                    0.5 if weighted else 1.0, 1.0, 1.0],
            period=[0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2])
    raise ConfigError(f"no tiny data set of kind {kind!r}; kinds: {', '.join(DATA_KINDS)}")


def names(data: str | None = None) -> list[str]:
    """Registered system names, in order; only those rating ``data`` if given."""
    return [n for n, s in REGISTRY.items() if data is None or s.data == data]


register(RatingSystem(
    "elo", "fastrate.ratings.elo", "EloConfig",
    "Elo, game by game or by rating periods, with every knob real systems use",
    warm_specs=("elo", "elo:update=period,margin=fte_nfl,regression=0.1"),
    space="elo:k_schedule=power,k_power[0]=8..500:log,k_power[1]=0.5..50:log,"
          "k_power[2]=0..0.8,advantage=0..150"))
register(RatingSystem(
    "glicko", "fastrate.ratings.glicko", "GlickoConfig",
    "Glicko (Glickman 1999): ratings with deviations, updated once per rating period",
    period_based=True,
    warm_specs=("glicko",),
    space="glicko:c=5..150:log,initial_rd=100..400,advantage=0..150"))
register(RatingSystem(
    "glicko2", "fastrate.ratings.glicko2", "Glicko2Config",
    "Glicko-2 (Glickman 2012): deviations and volatility, once per rating period",
    period_based=True,
    warm_specs=("glicko2",),
    space="glicko2:tau=0.1..1.2:log,initial_rd=100..400,initial_volatility=0.01..0.15:log,"
          "advantage=0..150"))
register(RatingSystem(
    "stephenson", "fastrate.ratings.stephenson", "StephensonConfig",
    "Stephenson (PlayerRatings steph): Glicko with a per-game bonus and a neighbourhood term",
    period_based=True,
    warm_specs=("stephenson:advantage=30,bonus=1",),
    space="stephenson:c=1..60:log,h_dev=0..30,neighbourhood=0..10,initial_rd=100..350"))
register(RatingSystem(
    "fibs", "fastrate.ratings.fibs", "FibsConfig",
    "FIBS backgammon ratings: match-length-aware win probabilities and K",
    warm_specs=("fibs",)))
register(RatingSystem(
    "bridge_elo", "fastrate.bridge.bridge_elo", "BridgeEloConfig",
    "field-aware partnership Elo for duplicate bridge (rates Boards)",
    data="boards",
    warm_specs=("bridge_elo:experience_bonus=10",)))


_NONE = {"none", "null"}
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:@\s*([A-Za-z_]\w*)\s*)?(?::(.*))?$", re.S)


# ----------------------------------------------------------------------------------
# spec strings


def presets(name: str) -> list[str]:
    """Preset names of a system: the public classmethods of its config class
    (``elo`` -> ``fide``, ``fivethirtyeight_nfl``, ``world_football`` ...)."""
    cls = get(name).config_class
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
        word = bool_word(value) if str(value).strip() else None
        if word is not None:
            return word
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
        cls = get(self.name).config_class
        if self.config is None:
            object.__setattr__(self, "config", cls())
        elif not isinstance(self.config, cls):
            raise InputTypeError(f"config for {self.name!r} must be a {cls.__name__}; got "
                                 f"{type(self.config).__name__}")
        if not self.label:
            object.__setattr__(self, "label", self.spec)

    @property
    def system(self) -> RatingSystem:
        """The registry entry of this spec's system."""
        return get(self.name)

    @property
    def module(self) -> types.ModuleType:
        return get(self.name).module

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
        name, preset, rest = m.group(1).lower().replace("-", "_"), m.group(2), m.group(3)
        config_cls = get(name).config_class
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
                config = get(name).config_class(**config)
            return cls(name, config)
        for entry in REGISTRY.values():
            module = sys.modules.get(entry.module_name)
            if module is not None and isinstance(system, getattr(module, entry.config_name, ())):
                return cls(entry.name, system)
        raise InputTypeError(f"a system must be a spec string ('elo:k=20'), a (name, config) "
                             f"pair or a config object; got {system!r}")

    def rate(self, data: Any, initial: Any = None, predictions: bool = True,
             **options: Any) -> Ratings:
        """Rate ``data`` with this system and configuration (see
        :meth:`RatingSystem.rate`)."""
        return self.system.rate(data, self.config, initial=initial, predictions=predictions,
                                **options)


def parse_system(spec: str) -> tuple[str, types.ModuleType, Any]:
    """``"glicko2:tau=0.3"`` -> ``("glicko2", fastrate.ratings.glicko2, Glicko2Config(tau=0.3))``."""
    s = SystemSpec.parse(spec)
    return s.name, s.module, s.config


register(RatingSystem(
    "trueskill", "fastrate.ratings.trueskill", "TrueSkillConfig",
    "TrueSkill (Herbrich, Minka & Graepel 2007): teams and free-for-alls, ranks and ties",
    data="matches",
    warm_specs=("trueskill",),
    space="trueskill:beta=1..12:log,tau=0.01..1:log,draw_probability=0..0.3"))
register(RatingSystem(
    "weng_lin", "fastrate.ratings.weng_lin", "WengLinConfig",
    "Weng-Lin (2011) Bayesian ratings, the five openskill models (weng-lin:model=...)",
    data="matches",
    warm_specs=("weng_lin", "weng_lin:model=thurstone_mosteller_full,predict=normal"),
    space="weng_lin:model=plackett_luce|bradley_terry_full|thurstone_mosteller_full,"
          "beta=1..12:log,tau=0.01..1:log"))
register(RatingSystem(
    "elom", "fastrate.ratings.elom", "ElomConfig",
    "multiplayer Elo of PlayerRatings' elom (Tenhou mahjong): base values by placing",
    data="matches", period_based=True,
    warm_specs=("elom",),
    space="elom:k_start=0.1..4:log,k_final=0.02..1:log,k_games=10..2000:log"))
register(RatingSystem(
    "pairwise_elo", "fastrate.ratings.pairwise_elo", "PairwiseEloConfig",
    "pairwise Elo: every pair of a match is one game, K shared among the opponents",
    data="matches",
    warm_specs=("pairwise_elo",),
    space="pairwise_elo:k=2..64:log"))
register(RatingSystem(
    "codeforces", "fastrate.ratings.codeforces", "CodeforcesConfig",
    "the Codeforces contest rating (Mirzayanov 2015, as run in 2018)",
    data="matches",
    warm_specs=("codeforces",)))
register(RatingSystem(
    "bradley_terry", "fastrate.ratings.bradley_terry_walk", "BTConfig",
    "batch Bradley-Terry (Ordo's, BayesElo's models), refitted per period to predict",
    period_based=True, batch=True,
    warm_specs=("bradley_terry", "bradley_terry:model=bayeselo,advantage=fit,drawelo=100,"
                "prior=2")))
register(RatingSystem(
    "whr", "fastrate.ratings.whr", "WHRConfig",
    "whole-history rating (Coulom 2008): Wiener-process ratings, refitted per period to "
    "predict",
    period_based=True, batch=True,
    warm_specs=("whr",)))
