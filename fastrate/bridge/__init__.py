"""Duplicate bridge (SPEC §3): contract scoring (Law 77) in :mod:`fastrate.bridge.contract`,
board comparisons (IMPs, cross-IMPs, Butler, matchpoints, Neuberg) in
:mod:`fastrate.bridge.scoring`, the table-results container :class:`Boards` in
:mod:`fastrate.bridge.boards` (PBN import in :mod:`fastrate.io.pbn`), and the
field-aware partnership ratings (bridge Elo, thesis ch. 4) in
:mod:`fastrate.bridge.bridge_elo`."""

from __future__ import annotations

from fastrate.bridge import boards, bridge_elo, contract, scoring
from fastrate.bridge.boards import Boards, boards_from_table, read_boards
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

__all__ = ["Boards", "read_boards", "boards_from_table", "boards", "bridge_elo", "contract",
           "scoring", "BridgeEloConfig", "BridgeRatings", "parse_contract", "score_contract",
           "imps", "cross_imps", "butler_imps", "matchpoints", "neuberg", "group_by_board",
           "pair_totals", "score_results"]
