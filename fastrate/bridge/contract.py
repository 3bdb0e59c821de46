"""Contract scoring of duplicate bridge, Law 77 (SPEC §3.3): the declarer side's score
of ``level strain [X|XX]`` and a result, text contracts (``"4HX="``, ``"3NT+2"``,
``"2S-1"``, ``"6Dxx9"``, ``"pass"``) and the 16-board cycle of dealer and vulnerability.

This is the public home of these names. The rules are implemented in
:mod:`fastrate.data._contract`, in the containers' layer, because
:class:`~fastrate.data.boards.Boards` and the PBN reader compute North-South points from
contracts while they are built; the names below are the very same objects.

>>> score_contract("4HX=", True)
790
"""

from __future__ import annotations

from fastrate.data._contract import (
    BOARD_VULNERABILITY,
    MAX_POINTS,
    STRAINS,
    VULNERABILITY_CODES,
    Contract,
    contract_points,
    contract_score,
    dealer,
    is_vulnerable,
    parse_contract,
    score_contract,
    score_contracts,
    vulnerability,
    vulnerability_codes,
)

__all__ = ["STRAINS", "Contract", "contract_score", "parse_contract", "score_contract",
           "score_contracts", "dealer", "vulnerability", "is_vulnerable",
           "VULNERABILITY_CODES", "BOARD_VULNERABILITY", "vulnerability_codes",
           "contract_points", "MAX_POINTS"]
