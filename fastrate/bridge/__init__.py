"""Duplicate bridge (SPEC §3): contract scoring (Law 77) in :mod:`fastrate.bridge.contract`
and board comparisons (IMPs, cross-IMPs, Butler, matchpoints, Neuberg) in
:mod:`fastrate.bridge.scoring`. PBN import and partnership ratings are not built yet."""

from __future__ import annotations

from fastrate.bridge import contract, scoring
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

__all__ = ["contract", "scoring", "parse_contract", "score_contract", "imps", "cross_imps",
           "butler_imps", "matchpoints", "neuberg", "group_by_board", "pair_totals",
           "score_results"]
