"""Run every kernel once on a tiny input so Numba compiles it into the on-disk cache."""

from __future__ import annotations

import importlib

import numpy as np


def _tiny_games():
    from fastrate.data import Games

    white = np.array([0, 1, 2, 0], dtype=np.int64)
    black = np.array([1, 2, 0, 2], dtype=np.int64)
    score = np.array([1.0, 0.5, 0.0, 1.0])
    return Games.from_arrays(white, black, score, period=np.array([0, 0, 1, 2]),
                             margin=np.array([3.0, 0.0, -1.0, 2.0]),
                             weight=np.ones(4), neutral=np.array([False, True, False, False]),
                             players=["a", "b", "c"])


def _warm_integer_boards() -> None:
    """The integer-id fast paths of Boards (direct seat tables, streamed scatter), as a
    Parquet file of the synthetic generator's shape takes them."""
    import pyarrow as pa

    from fastrate.bridge.boards import boards_from_table

    ids = np.arange(16, dtype=np.int64)
    table = pa.table({
        "event": np.zeros(4, dtype=np.int64), "board": np.array([1, 1, 2, 2]),
        "north": ids[0:4], "south": ids[4:8], "east": ids[8:12], "west": ids[12:16],
        "ns_score": np.array([420, -50, 100, 140], dtype=np.int64),
        "time": pa.array(np.array([0, 0, 86400, 86400]).astype("datetime64[s]")),
    })
    boards_from_table(table, period="3d").score("cross-imps")


def warmup(verbose: bool = False) -> list[str]:
    """Compile every kernel (every mode) into the on-disk cache; return what was run."""
    games = _tiny_games()
    done = []
    for name, cfg_name in (("elo", "EloConfig"), ("glicko", "GlickoConfig"),
                           ("glicko2", "Glicko2Config")):
        try:
            module = importlib.import_module(f"fastrate.ratings.{name}")
        except ImportError:  # pragma: no cover - a system not built yet
            continue
        module.rate(games, getattr(module, cfg_name)())
        if name == "elo":  # the general kernel (every option) beside the fast path
            module.rate(games, module.EloConfig(update="period", margin="fte_nfl",
                                                regression=0.1), record_pregame=True)
            module.rate(games, module.EloConfig(), record_pregame=True)
        done.append(name)
        if verbose:
            print(f"compiled {name}")
    from fastrate.data import Games
    from fastrate.stats import backgammon

    matches = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0], weight=[5.0, 3.0])
    backgammon.rate(matches, backgammon.FibsConfig())
    done.append("backgammon")
    if verbose:
        print("compiled backgammon")
    from fastrate.stats import placement

    placement._warmup()
    done.append("placement")
    if verbose:
        print("compiled placement")
    from fastrate.bridge import contract, scoring

    contract.score_contract("4HX=", True)
    offsets, ns = np.array([0, 3]), np.array([420.0, 450.0, -50.0])
    scoring.cross_imps(offsets, ns)
    scoring.butler_imps(offsets, ns)
    scoring.matchpoints(offsets, ns)
    done.append("bridge")
    if verbose:
        print("compiled bridge")
    from fastrate.stats import pairing

    pairing._warmup()
    done.append("pairing")
    if verbose:
        print("compiled pairing")
    from fastrate.bridge import bridge_elo
    from fastrate.bridge.boards import Boards

    tiny = Boards.from_arrays([1, 1, 2, 2], [420.0, -50.0, 100.0, 140.0],
                              north=["a", "c", "a", "c"], south=["b", "d", "b", "d"],
                              east=["e", "g", "e", "g"], west=["f", "h", "f", "h"],
                              period=[0, 0, 1, 1])
    bridge_elo.rate(tiny, bridge_elo.BridgeEloConfig(experience_bonus=10.0))
    _warm_integer_boards()
    done.append("bridge_elo")
    if verbose:
        print("compiled bridge_elo")
    return done
