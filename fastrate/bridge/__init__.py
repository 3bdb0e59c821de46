"""Duplicate bridge (SPEC §3): contract scoring (Law 77) in :mod:`fastrate.bridge.contract`,
board comparisons (IMPs, cross-IMPs, Butler, matchpoints, Neuberg) in
:mod:`fastrate.bridge.scoring`, and the field-aware partnership ratings (bridge Elo,
thesis ch. 4) in :mod:`fastrate.bridge.bridge_elo`. The table-results container
:class:`Boards` is :mod:`fastrate.data.boards` (also reachable as
:mod:`fastrate.bridge.boards`); files are read by :func:`fastrate.io.boards.read_boards`
and :mod:`fastrate.io.pbn`."""

from __future__ import annotations

from typing import Any

from fastrate.bridge import boards, bridge_elo, contract, scoring
from fastrate.bridge.boards import MOVED_TO_IO, moved_to_io
from fastrate.bridge.bridge_elo import BridgeEloConfig, BridgeRatings
from fastrate.bridge.contract import parse_contract, score_contract
from fastrate.bridge.scoring import (
    butler_imps,
    cross_imps,
    group_by_board,
    imps,
    matchpoints,
    neuberg,
    pair_totals,
    score_results,
)
from fastrate.data.boards import Boards, boards_from_table

__all__ = ["Boards", "boards_from_table", "boards", "bridge_elo", "contract",
           "scoring", "BridgeEloConfig", "BridgeRatings", "parse_contract", "score_contract",
           "imps", "cross_imps", "butler_imps", "matchpoints", "neuberg", "group_by_board",
           "pair_totals", "score_results"]


def __getattr__(name: str) -> Any:
    if name in MOVED_TO_IO:  # read_boards: fastrate.io.boards (one release)
        return moved_to_io(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
