"""Weights from named match types (layer 1): a text weight column (``--weight
tournament``) is read through a table of K by match type, so the K of World Football
Elo comes from the tournament names of the user's own file exactly as from the bundled
example.

>>> world_football_k(["FIFA World Cup", "Friendly", "UEFA Euro qualification"]).tolist()
[60.0, 20.0, 40.0]
>>> match_type_weights(["FIFA World Cup", "Friendly"]).tolist()   # K / 40
[1.5, 0.5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fastrate._validate import as_1d
from fastrate.errors import InputError

__all__ = ["world_football_k", "match_type_weights", "WEIGHT_TABLES"]

#: eloratings.net's continental championships and major intercontinental tournaments
_CONTINENTAL = ("UEFA Euro", "Copa América", "African Cup of Nations", "AFC Asian Cup",
                "Gold Cup", "CONCACAF Championship", "Oceania Nations Cup",
                "Confederations Cup")


def world_football_k(tournament: Any) -> np.ndarray:
    """eloratings.net's K by match type from tournament names.

    60 World Cup finals; 50 continental championship finals and major intercontinental
    tournaments; 40 World Cup and continental qualifiers and major tournaments;
    30 all other tournaments; 20 friendlies.
    """
    names = [str(t) for t in as_1d(tournament, "tournament").tolist()]
    out = np.empty(len(names), dtype=np.float64)
    k_of: dict[str, float] = {}
    for i, t in enumerate(names):
        k = k_of.get(t)
        if k is None:
            if t == "FIFA World Cup":
                k = 60.0
            elif "qualification" in t:
                k = 40.0
            elif t in _CONTINENTAL or t.startswith("CONCACAF Nations League"):
                k = 50.0
            elif t == "Friendly":
                k = 20.0
            else:
                k = 30.0
            k_of[t] = k
        out[i] = k
    return out


#: the named tables: name -> (function of the names giving K, the K that is weight 1)
WEIGHT_TABLES = {"world_football": (world_football_k, 40.0)}


def match_type_weights(names: Any, table: str = "world_football") -> np.ndarray:
    """Per-game weights (K multipliers) from match-type names: the table's K divided by
    its reference K (World Football Elo: K / 40, so ``EloConfig.world_football()``'s K 40
    gives eloratings.net's K: 0.5 for a friendly ... 1.5 for a World Cup finals match)."""
    if table not in WEIGHT_TABLES:
        raise InputError(f"unknown match-type table {table!r}: choose one of "
                         f"{', '.join(WEIGHT_TABLES)}")
    k_of, reference = WEIGHT_TABLES[table]
    return k_of(names) / reference
