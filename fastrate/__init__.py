"""fastrate: a compiled rating engine for games and competitions.

>>> import fastrate
>>> games = fastrate.read_games("games.csv")                      # doctest: +SKIP
>>> ratings = fastrate.elo.rate(games, fastrate.elo.EloConfig(k=20))  # doctest: +SKIP

Submodules and names are imported lazily, so ``import fastrate`` (and the CLI's
``--help``) does not pay for Numba until a rating is computed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    # containers
    "Games": "fastrate.data",
    "Matches": "fastrate.data",
    "Ratings": "fastrate.data",
    "PlayerIndex": "fastrate.data",
    "bucket_periods": "fastrate.data",
    "Boards": "fastrate.data.boards",
    "read_boards": "fastrate.io.boards",
    # io
    "read_games": "fastrate.io.tables",
    "read_matches": "fastrate.io.matches",
    "read_pgn": "fastrate.io.pgn_games",
    "pgn_chunks": "fastrate.io.pgn_games",
    "read_ratings": "fastrate.io.tables",
    "write_table": "fastrate.io.tables",
    "example_path": "fastrate.datasets",
    "load_example": "fastrate.datasets",
    # errors
    "FastrateError": "fastrate.errors",
    "InputError": "fastrate.errors",
    "ConfigError": "fastrate.errors",
    "ConvergenceWarning": "fastrate.errors",
    # numba
    "warmup": "fastrate._warmup",
}
_SUBMODULES = {
    "elo": "fastrate.elo",
    "glicko": "fastrate.glicko",
    "glicko2": "fastrate.glicko2",
    "fibs": "fastrate.fibs",
    "trueskill": "fastrate.trueskill",
    "weng_lin": "fastrate.weng_lin",
    "elom": "fastrate.elom",
    "pairwise_elo": "fastrate.pairwise_elo",
    "codeforces": "fastrate.codeforces",
    "bradley_terry": "fastrate.bradley_terry",
    "network_scores": "fastrate.network_scores",
    "datasets": "fastrate.datasets",
    "evaluate": "fastrate.evaluate",
    "tune": "fastrate.tune",
    "metrics": "fastrate.metrics",
    "systems": "fastrate.systems",
    "backgammon": "fastrate.backgammon",
    "placement": "fastrate.placement",
    "information": "fastrate.information",
    "pairing": "fastrate.pairing",
    "bridge": "fastrate.bridge",
}

__all__ = sorted([*_LAZY, *_SUBMODULES, "__version__"])


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        module = importlib.import_module(_SUBMODULES[name])
        globals()[name] = module
        return module
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fastrate' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from fastrate import datasets, evaluate, metrics, systems, tune
    from fastrate._warmup import warmup
    from fastrate.data import Games, Matches, PlayerIndex, Ratings, bucket_periods
    from fastrate.data.boards import Boards
    from fastrate.datasets import example_path, load_example
    from fastrate.errors import ConfigError, ConvergenceWarning, FastrateError, InputError
    from fastrate.io.boards import read_boards
    from fastrate.io.matches import read_matches
    from fastrate.io.pgn_games import pgn_chunks, read_pgn
    from fastrate.io.tables import read_games, read_ratings, write_table
    from fastrate.ratings import (
        bradley_terry,
        codeforces,
        elo,
        elom,
        fibs,
        glicko,
        glicko2,
        pairwise_elo,
        trueskill,
        weng_lin,
    )
    from fastrate.stats import backgammon, information, pairing, placement
