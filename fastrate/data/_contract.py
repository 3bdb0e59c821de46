"""Contract scoring of duplicate bridge, Law 77 (SPEC §3.3): the rules themselves.

The public home of these names is :mod:`fastrate.bridge.contract`; they live here, in
the containers' layer, because :class:`fastrate.data.boards.Boards` and the PBN reader
compute North-South points from contracts while they are built.

The declarer side's score for a contract ``level strain [X|XX]`` and a result:

* made: trick score per odd trick 20 (clubs, diamonds), 30 (hearts, spades), no trump
  40 for the first and 30 after, times 2 doubled and 4 redoubled; a game bonus of
  300 NV / 500 V when that (multiplied) trick score reaches 100, else a part-score
  bonus of 50; small slam 500/750, grand slam 1000/1500; the "insult" 50 doubled, 100
  redoubled; overtricks at trick value undoubled, 100/200 each doubled and 200/400
  redoubled (NV/V);
* defeated: undoubled 50/100 per undertrick; doubled NV 100, 200, 200, then 300 each;
  doubled V 200, then 300 each; redoubled twice the doubled penalty;
* passed out: 0. Every score lies in [-7600, +2980].

:func:`contract_score` is the vectorised form (a Numba kernel over arrays of level,
strain, doubling, result and vulnerability); :func:`parse_contract` /
:func:`score_contract` read the usual text form ``"4HX="``, ``"3NT+2"``, ``"2S-1"``,
``"6Dxx9"`` (a bare number is the tricks taken) or ``"pass"``.
:func:`dealer` and :func:`vulnerability` give a board number's dealer and vulnerability
(the 16-board cycle). :func:`contract_points` turns the contract, declarer, result
and vulnerability columns of a results table into NS points (what
:meth:`~fastrate.data.boards.Boards.from_arrays` does with ``contract=``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import NO_SOURCE, Source, as_1d, fail_at, require
from fastrate.errors import InputError

__all__ = ["STRAINS", "Contract", "contract_score", "parse_contract", "score_contract",
           "score_contracts", "dealer", "vulnerability", "is_vulnerable",
           "VULNERABILITY_CODES", "BOARD_VULNERABILITY", "vulnerability_codes",
           "contract_points", "MAX_POINTS"]

#: strain codes used by the arrays: 0 clubs, 1 diamonds, 2 hearts, 3 spades, 4 no trump
STRAINS = ("C", "D", "H", "S", "NT")
_STRAIN_CODE = {"C": 0, "D": 1, "H": 2, "S": 3, "N": 4, "NT": 4}
_DOUBLE_CODE = {"": 0, "X": 1, "XX": 2, "*": 1, "**": 2, "D": 1, "R": 2, "DBL": 1, "RDBL": 2}

#: dealer of boards 1, 2, 3, 4 (then repeating)
_DEALERS = ("N", "E", "S", "W")
#: vulnerability of boards 1..16 (then repeating)
_VULNERABILITY = ("None", "NS", "EW", "Both", "NS", "EW", "Both", "None",
                  "EW", "Both", "None", "NS", "Both", "None", "NS", "EW")
#: vulnerability codes (0 none, 1 NS, 2 EW, 3 both) of the PBN and ACBL spellings
VULNERABILITY_CODES = {"NONE": 0, "-": 0, "LOVE": 0, "NS": 1, "N-S": 1, "EW": 2, "E-W": 2,
                       "BOTH": 3, "ALL": 3}
#: the vulnerability code of boards 1..16 (then repeating)
BOARD_VULNERABILITY = tuple(VULNERABILITY_CODES[v.upper()] for v in _VULNERABILITY)
#: NS points of any contract lie in [-7600, 7600] (Law 77: 7NTXX down 13 vulnerable)
MAX_POINTS = 7600


# ----------------------------------------------------------------------------------
# kernel


@kernel
def _contract_score_kernel(level, strain, doubled, result, vulnerable, out):
    """Declarer's score of each contract; ``result`` = tricks over (+) or under (-) the
    contract, 0 = just made; ``level`` 0 = passed out. Inputs are validated."""
    for i in range(level.shape[0]):
        lv = level[i]
        if lv == 0:
            out[i] = 0
            continue
        st = strain[i]
        dbl = doubled[i]
        r = result[i]
        vul = vulnerable[i]
        if r >= 0:
            per = 20 if st <= 1 else 30
            first = 40 if st == 4 else per
            mult = 1 if dbl == 0 else (2 if dbl == 1 else 4)
            trick = (first + per * (lv - 1)) * mult
            score = trick
            if trick >= 100:
                score += 500 if vul else 300
            else:
                score += 50
            if lv == 6:
                score += 750 if vul else 500
            elif lv == 7:
                score += 1500 if vul else 1000
            if dbl == 0:
                score += r * per
            elif dbl == 1:
                score += 50 + r * (200 if vul else 100)
            else:
                score += 100 + r * (400 if vul else 200)
            out[i] = score
        else:
            u = -r
            if dbl == 0:
                pen = u * (100 if vul else 50)
            elif vul:
                pen = 200 + 300 * (u - 1)
            else:
                pen = 100 + 200 * min(u - 1, 2) + 300 * max(u - 3, 0)
            if dbl == 2:
                pen *= 2
            out[i] = -pen


# ----------------------------------------------------------------------------------
# arrays


def _codes(values: Any, column: str, table: dict[str, int], n_codes: int) -> np.ndarray:
    arr = as_1d(values, column)
    if arr.dtype.kind in "OU":
        out = np.empty(arr.shape[0], dtype=np.int64)
        for i, v in enumerate(arr.tolist()):
            key = str(v).strip().upper() if v is not None else None
            if key is None or key not in table:
                raise fail_at(column, f"must be one of {', '.join(sorted(table, key=len))} "
                              f"or a code 0..{n_codes - 1}", arr, i)
            out[i] = table[key]
        return out
    return _ints(arr, column, 0, n_codes - 1)


def _ints(arr: np.ndarray, column: str, lo: int, hi: int) -> np.ndarray:
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise InputError(f"column '{column}' must hold integers; got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            raise fail_at(column, "must hold whole numbers", arr, int(np.argmax(bad)))
    out = require(arr, np.int64)
    bad = (out < lo) | (out > hi)
    if bad.any():
        raise fail_at(column, f"must be in [{lo}, {hi}]", arr, int(np.argmax(bad)))
    return out


def _broadcast(n: int, arr: np.ndarray, column: str) -> np.ndarray:
    if arr.shape[0] == n:
        return arr
    if arr.shape[0] == 1:
        return require(np.repeat(arr, n), arr.dtype)
    raise InputError(f"column '{column}' must have one value per contract ({n}) or a "
                     f"single value; got {arr.shape[0]}")


def contract_score(level: Any, strain: Any, doubled: Any, result: Any, vulnerable: Any,
                   *, tricks: bool = False) -> np.ndarray:
    """Declarer side's score (Law 77) of each contract, as an int64 array.

    ``level`` 1..7 (0 = passed out, scores 0); ``strain`` codes 0..4 (C, D, H, S, NT)
    or the letters ``C D H S N NT``; ``doubled`` 0, 1 (X) or 2 (XX) or ``"" "X" "XX"``;
    ``result`` tricks over (+) or under (-) the contract, 0 = just made, or with
    ``tricks=True`` the number of tricks taken (0..13); ``vulnerable`` booleans.
    Scalars broadcast against arrays. Scores are from the declarer's side: negate for
    the defenders.

    >>> contract_score([4, 3], ["H", "NT"], [0, 0], [0, 2], [False, True]).tolist()
    [420, 660]
    """
    lv = _ints(np.atleast_1d(as_1d(np.atleast_1d(level), "level")), "level", 0, 7)
    st = _codes(np.atleast_1d(strain), "strain", _STRAIN_CODE, 5)
    db = _codes(np.atleast_1d(doubled), "doubled", _DOUBLE_CODE, 3)
    rs = _ints(as_1d(np.atleast_1d(result), "result"), "result", 0 if tricks else -13,
               13 if tricks else 6)
    vu = _ints(as_1d(np.atleast_1d(vulnerable), "vulnerable"), "vulnerable", 0, 1)
    n = max(lv.shape[0], st.shape[0], db.shape[0], rs.shape[0], vu.shape[0])
    lv, st, db, rs, vu = (_broadcast(n, a, c) for a, c in (
        (lv, "level"), (st, "strain"), (db, "doubled"), (rs, "result"), (vu, "vulnerable")))
    played = lv > 0
    rel = require(np.where(played, rs - (lv + 6), 0) if tricks else np.where(played, rs, 0),
                  np.int64)
    bad = played & ((lv + 6 + rel > 13) | (lv + 6 + rel < 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"column 'result' gives {lv[i] + 6 + rel[i]} tricks for a level-"
                         f"{lv[i]} contract (must be 0..13); found {int(rs[i])} at row {i + 1}")
    out = np.empty(n, dtype=np.int64)
    _contract_score_kernel(lv, st, db, rel, require(vu != 0, np.bool_), out)
    return out


# ----------------------------------------------------------------------------------
# text


@dataclass(frozen=True)
class Contract:
    """A parsed contract: ``level`` 0 (passed out) or 1..7, ``strain`` 0..4 (C D H S NT),
    ``doubled`` 0/1/2, ``result`` tricks over (+) or under (-) the contract."""

    level: int
    strain: int
    doubled: int
    result: int

    @property
    def passed_out(self) -> bool:
        return self.level == 0

    @property
    def tricks(self) -> int:
        """Tricks taken by declarer (0 for a passed-out board)."""
        return 0 if self.level == 0 else self.level + 6 + self.result

    def __str__(self) -> str:
        if self.level == 0:
            return "Pass"
        res = "=" if self.result == 0 else f"{self.result:+d}"
        return f"{self.level}{STRAINS[self.strain]}{'X' * self.doubled}{res}"


_CONTRACT = re.compile(
    r"^(?P<level>[1-7])\s*(?P<strain>NT|N|C|D|H|S|♣|♦|♥|♠)\s*(?P<dbl>XX|X|\*\*|\*|××|×)?\s*"
    r"(?P<res>=|[+-]\s*\d{1,2}|\d{1,2})$", re.IGNORECASE)
#: a contract without its result ("4HX")
_BARE = re.compile(r"^[1-7]\s*(?:NT|N|C|D|H|S|♣|♦|♥|♠)\s*(?:XX|X|\*\*|\*|××|×)?$",
                   re.IGNORECASE)
_PASS = re.compile(r"^(?:P|PASS|PASSED|PASSED\s*OUT|AP|ALL\s*PASS|PO)$", re.IGNORECASE)
_SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


def parse_contract(text: str) -> Contract:
    """Parse ``"4HX="``, ``"3NT+2"``, ``"2S-1"``, ``"1NTXX9"`` (9 tricks taken),
    ``"pass"``. Strains C D H S N/NT (or suit symbols), X doubled, XX redoubled; the result
    is ``=``, ``+k``, ``-k`` or the tricks taken. Raises InputError naming the value."""
    if not isinstance(text, str):
        raise InputError(f"a contract must be a string such as '4HX=' or '3NT+1'; got "
                         f"{text!r} ({type(text).__name__})")
    s = text.strip().replace("−", "-").replace("–", "-")
    if _PASS.match(s):
        return Contract(0, 0, 0, 0)
    m = _CONTRACT.match(s)
    if m is None:
        bare = _BARE.match(s)
        if bare is not None:
            c = re.sub(r"\s+", "", bare[0])
            raise InputError(f"contract {text!r} has no result: add =, +k, -k or the tricks "
                             f"taken (e.g. '{c}=', '{c}+1', '{c}-2')")
        raise InputError(f"cannot read contract {text!r}: expected level 1-7, strain C D H "
                         "S N/NT, optional X or XX, and a result =, +k, -k or the tricks "
                         "taken (e.g. '4HX=', '3NT+2', '2S-1', '6D12'), or 'pass'")
    level = int(m["level"])
    strain_text = m["strain"].upper()
    strain = _STRAIN_CODE[_SUIT_SYMBOLS.get(strain_text, strain_text)]
    dbl = m["dbl"] or ""
    doubled = 0 if not dbl else (2 if len(dbl) == 2 else 1)
    res = m["res"].replace(" ", "")
    if res == "=":
        result = 0
    elif res[0] in "+-":
        result = int(res)
    else:
        result = int(res) - (level + 6)
    tricks = level + 6 + result
    if not 0 <= tricks <= 13:
        raise InputError(f"contract {text!r} gives {tricks} tricks to declarer; a level-{level} "
                         f"contract allows results -{level + 6}..+{7 - level}")
    return Contract(level, strain, doubled, result)


def score_contract(text: str | Contract, vulnerable: bool = False) -> int:
    """Declarer side's score of one contract: ``score_contract("4HX=", True) == 790``."""
    c = text if isinstance(text, Contract) else parse_contract(text)
    out = np.empty(1, dtype=np.int64)
    _contract_score_kernel(np.array([c.level], dtype=np.int64),
                           np.array([c.strain], dtype=np.int64),
                           np.array([c.doubled], dtype=np.int64),
                           np.array([c.result], dtype=np.int64),
                           np.array([bool(vulnerable)]), out)
    return int(out[0])


def score_contracts(contracts: Any, vulnerable: Any) -> np.ndarray:
    """Declarer side's scores of many text contracts (``vulnerable`` one flag or one per
    contract). A bad contract raises InputError naming its row."""
    texts = as_1d(contracts, "contract")
    parsed = []
    for i, t in enumerate(texts.tolist()):
        try:
            parsed.append(parse_contract(t))
        except InputError as exc:
            raise InputError(f"column 'contract' at row {i + 1}: {exc}") from None
    n = len(parsed)
    arrays = [np.fromiter((getattr(c, f) for c in parsed), dtype=np.int64, count=n)
              for f in ("level", "strain", "doubled", "result")]
    return contract_score(*arrays, vulnerable) if n else np.zeros(0, dtype=np.int64)


# ----------------------------------------------------------------------------------
# board number -> dealer, vulnerability


def _board_numbers(board: Any) -> np.ndarray:
    b = _ints(as_1d(np.atleast_1d(board), "board"), "board", 1, np.iinfo(np.int64).max)
    return b


def dealer(board: Any) -> Any:
    """Dealer of a board number: N, E, S, W for boards 1, 2, 3, 4 (repeating).
    A scalar gives a string, an array an array of strings."""
    b = _board_numbers(board)
    out = np.array(_DEALERS, dtype=object)[(b - 1) % 4]
    return out[0] if np.ndim(board) == 0 else out


def vulnerability(board: Any) -> Any:
    """Vulnerability of a board number: ``"None"``, ``"NS"``, ``"EW"`` or ``"Both"``
    (the standard 16-board cycle). A scalar gives a string, an array an array."""
    b = _board_numbers(board)
    out = np.array(_VULNERABILITY, dtype=object)[(b - 1) % 16]
    return out[0] if np.ndim(board) == 0 else out


def is_vulnerable(board: Any, side: Any) -> Any:
    """Whether ``side`` (``"NS"``/``"EW"`` or a seat N E S W) is vulnerable on ``board``."""
    b = _board_numbers(board)
    sides = np.atleast_1d(np.asarray(side, dtype=object))
    ns = np.empty(sides.shape[0], dtype=np.bool_)
    for i, s in enumerate(sides.tolist()):
        key = str(s).strip().upper()
        if key in ("N", "S", "NS"):
            ns[i] = True
        elif key in ("E", "W", "EW"):
            ns[i] = False
        else:
            raise fail_at("side", "must be NS, EW or a seat N, E, S, W", sides, i)
    vul = np.array(_VULNERABILITY, dtype=object)[(b - 1) % 16]
    if ns.shape[0] == 1 and b.shape[0] > 1:
        ns = np.repeat(ns, b.shape[0])
    elif b.shape[0] == 1 and ns.shape[0] > 1:
        vul = np.repeat(vul, ns.shape[0])
    elif b.shape[0] != ns.shape[0]:
        raise InputError(f"column 'side' must have one value per board ({b.shape[0]}) or a "
                         f"single value; got {ns.shape[0]}")
    out = (vul == "Both") | np.where(ns, vul == "NS", vul == "EW")
    out = out.astype(np.bool_)
    return bool(out[0]) if np.ndim(board) == 0 and np.ndim(side) == 0 else out


# ----------------------------------------------------------------------------------
# columns of a results table


def vulnerability_codes(values: Any, source: Source = NO_SOURCE) -> np.ndarray:
    """0 none, 1 NS, 2 EW, 3 both, from PBN/ACBL spellings."""
    arr = as_1d(values, "vulnerable")
    uniq, inverse = np.unique(np.array([str(v).strip().upper() for v in arr.tolist()],
                                       dtype=object), return_inverse=True)
    codes = np.array([VULNERABILITY_CODES.get(u, -1) for u in uniq.tolist()], dtype=np.int64)
    out = codes[inverse.reshape(-1)]
    bad = out < 0
    if bad.any():
        raise fail_at("vulnerable", "must be None, NS, EW or Both (or All)", arr,
                      int(np.argmax(bad)), source)
    return require(out, np.int64)


#: a result cell: =, +k, -k or the tricks taken
_RESULT_CELL = re.compile(r"^(?:=|[+-]\s*\d{1,2}|\d{1,2})$")


def _result_cell(took: list, i: int, source: Source) -> str | None:
    """The result cell of row ``i`` as contract text: ``=``, ``+k``, ``-k`` or the tricks
    taken (a whole number 0-13); None when blank."""
    v = took[i]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    need = "must be the tricks declarer took (a whole number 0-13) or a result =, +k, -k"
    if isinstance(v, (bool, np.bool_)):
        raise fail_at("tricks", need, took, i, source)
    if isinstance(v, (int, float, np.integer, np.floating)):
        if v != int(v) or not 0 <= v <= 13:
            raise fail_at("tricks", need, took, i, source)
        return str(int(v))
    text = str(v).strip().replace("\u2212", "-").replace("\u2013", "-")
    if text == "" or text.lower() == "nan":
        return None
    if not _RESULT_CELL.match(text) or (text.isdigit() and int(text) > 13):
        raise fail_at("tricks", need, took, i, source)
    return text


def contract_points(contract: Any, declarer: Any, tricks: Any, board_number: Any,
                    vulnerable: np.ndarray | None, source: Source = NO_SOURCE
                    ) -> tuple[np.ndarray, np.ndarray]:
    """NS points from text contracts (with the result in the text, or in ``tricks``: the
    tricks taken, or ``=``/``+k``/``-k``), the declarer's seat and the vulnerability
    (given, or from the board number's 16-board cycle); and the tricks declarer took
    (-1 for a passed-out board)."""
    texts = as_1d(contract, "contract").tolist()
    seats = (as_1d(declarer, "declarer").tolist() if declarer is not None
             else [None] * len(texts))
    took = as_1d(tricks, "tricks").tolist() if tricks is not None else None
    n = len(texts)
    level = np.zeros(n, dtype=np.int64)
    strain = np.zeros(n, dtype=np.int64)
    doubled = np.zeros(n, dtype=np.int64)
    result = np.zeros(n, dtype=np.int64)
    taken = np.full(n, -1, dtype=np.int64)
    ns_side = np.ones(n, dtype=np.bool_)
    where = source.column("contract")
    for i, t in enumerate(texts):
        text = "" if t is None else str(t).strip()
        cell = None if took is None else _result_cell(took, i, source)
        bare = cell is not None and _BARE.match(text) is not None
        try:
            k = parse_contract(text + cell if bare else text)
            if cell is not None and not bare and not k.passed_out:
                # the contract has its own result: the result column must agree
                again = parse_contract(f"{k.level}{STRAINS[k.strain]}{cell}")
                if again.result != k.result:
                    raise InputError(f"contract {text!r} gives {k.tricks} tricks but column "
                                     f"'{source.column('tricks')}' says {cell!r} "
                                     f"({again.tricks} tricks)")
        except InputError as exc:
            raise InputError(f"column '{where}' at {source.where(i)}: {exc}") from None
        level[i], strain[i], doubled[i], result[i] = k.level, k.strain, k.doubled, k.result
        if k.passed_out:
            continue
        taken[i] = k.tricks
        seat = "" if seats[i] is None else str(seats[i]).strip().upper()
        if seat in ("N", "S"):
            ns_side[i] = True
        elif seat in ("E", "W"):
            ns_side[i] = False
        else:
            raise fail_at("declarer", "must be N, E, S or W for a contract that was played",
                          np.asarray(seats, dtype=object), i, source)
    if vulnerable is None:
        code = np.asarray(BOARD_VULNERABILITY, dtype=np.int64)[
            (_board_numbers(board_number) - 1) % 16]
    else:
        code = vulnerable
    vul_side = np.where(ns_side, (code == 1) | (code == 3), (code == 2) | (code == 3))
    points = contract_score(level, strain, doubled, result, vul_side).astype(np.float64)
    return np.where(ns_side, points, -points), taken


