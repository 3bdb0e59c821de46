"""Contract scoring (fastrate.bridge.contract, Law 77, SPEC §3.3): published scores, the
pure-Python reference on every contract x result x vulnerability x doubling, board
dealer/vulnerability, and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from reference import bridge as ref

from fastrate.bridge import contract as c
from fastrate.errors import InputError

# SPEC §3.3 references. SPEC lists "4H= NV 450"; Law 77 gives 120 + 300 = 420 for 4H=
# (450 is 4H+1), so that line is tested as 4H= 420 and 4H+1 450.
PUBLISHED = [
    ("4H=", False, 420), ("4H+1", False, 450), ("3D+1", True, 130), ("2H-1", False, -50),
    ("2SX+1", True, 870), ("3DX-1", False, -100), ("2HX=", False, 470),
    ("4D-3", False, -150), ("4D-3", True, -300), ("4DX-3", False, -500),
    ("4DX-3", True, -800), ("4DXX-3", False, -1000), ("3NT+2", True, 660),
    ("5SX+1", True, 1050), ("5SXX+1", True, 1600), ("6NT+1", False, 1020),
    ("7S=", False, 1510), ("7S=", True, 2210), ("6D=", True, 1370), ("1NTXX=", False, 560),
    ("1NTXX=", True, 760), ("1CX=", False, 140), ("7NTXX=", True, 2980),
    ("7NTXX-13", True, -7600), ("pass", True, 0),
]


@pytest.mark.parametrize(("text", "vul", "expected"), PUBLISHED)
def test_published_scores(text, vul, expected):
    assert c.score_contract(text, vulnerable=vul) == expected


def test_published_scores_vectorised():
    parsed = [c.parse_contract(t) for t, _, _ in PUBLISHED]
    got = c.contract_score([p.level for p in parsed], [p.strain for p in parsed],
                           [p.doubled for p in parsed], [p.result for p in parsed],
                           [v for _, v, _ in PUBLISHED])
    assert got.dtype == np.int64
    assert got.tolist() == [e for _, _, e in PUBLISHED]
    assert c.score_contracts([t for t, _, _ in PUBLISHED],
                             [v for _, v, _ in PUBLISHED]).tolist() == [e for _, _, e in PUBLISHED]


def test_every_contract_matches_reference():
    rows = []
    for level, strain, dbl, vul in itertools.product(range(1, 8), "CDHS", range(3), (0, 1)):
        rows += [(level, strain, dbl, tricks, vul) for tricks in range(14)]
    for level, dbl, vul in itertools.product(range(1, 8), range(3), (0, 1)):
        rows += [(level, "NT", dbl, tricks, vul) for tricks in range(14)]
    lv, st, db, tr, vu = (list(x) for x in zip(*rows))
    got = c.contract_score(lv, st, db, tr, vu, tricks=True)
    want = [ref.law77(*r) for r in rows]
    assert got.tolist() == want
    # SPEC says "+2980 to -7600"; 2980 is the best *slam* (7NTXX= V), but redoubled
    # overtricks reach 3160 (1NTXX+6 V: 160 + 500 + 100 + 6 x 400)
    assert got.max() == 3160 and got.min() == -7600
    assert c.score_contract("1NTXX+6", True) == 3160
    # the same through the relative-result form and through text
    rel = [t - (lv_ + 6) for lv_, t in zip(lv, tr)]
    assert c.contract_score(lv, st, db, rel, vu).tolist() == want
    texts = [f"{a}{b}{'X' * d}{t}" for a, b, d, t, _ in rows]
    assert c.score_contracts(texts, vu).tolist() == want


def test_parse_forms():
    assert c.parse_contract("4HX=") == c.Contract(4, 2, 1, 0)
    assert c.parse_contract(" 3nt+2 ") == c.Contract(3, 4, 0, 2)
    assert c.parse_contract("3N+2") == c.Contract(3, 4, 0, 2)
    assert c.parse_contract("2S−1") == c.Contract(2, 3, 0, -1)  # a typographic minus
    assert c.parse_contract("6Dxx12") == c.Contract(6, 1, 2, 0)
    assert c.parse_contract("4♠*=") == c.Contract(4, 3, 1, 0)
    assert c.parse_contract("Passed out").passed_out
    assert c.parse_contract("1C7").tricks == 7
    assert str(c.parse_contract("4hx-2")) == "4HX-2"
    assert str(c.parse_contract("p")) == "Pass"
    assert c.contract_score(0, 0, 0, 0, True).tolist() == [0]  # passed out
    assert c.contract_score(3, "N", "", 9, True, tricks=True).tolist() == [600]


def test_scalars_broadcast():
    got = c.contract_score(4, "S", 0, [0, 1, -1], [False, True, True])
    assert got.tolist() == [420, 650, -100]


def test_dealer_and_vulnerability():
    assert [c.dealer(b) for b in range(1, 9)] == list("NESWNESW")
    cycle = ["None", "NS", "EW", "Both", "NS", "EW", "Both", "None",
             "EW", "Both", "None", "NS", "Both", "None", "NS", "EW"]
    assert c.vulnerability(np.arange(1, 33)).tolist() == cycle * 2
    assert c.vulnerability(17) == "None"
    assert c.is_vulnerable(2, "N") and not c.is_vulnerable(2, "E")
    assert c.is_vulnerable(4, "EW") and not c.is_vulnerable(1, "S")
    assert c.is_vulnerable([1, 2, 3, 4], "NS").tolist() == [False, True, False, True]


@pytest.mark.parametrize("text", ["8H=", "4Q=", "4HXXX=", "4H+4", "7NT+1", "4H-11",
                                  "4H14", "", "4H", "H4="])
def test_bad_contract_text(text):
    with pytest.raises(InputError, match="contract"):
        c.parse_contract(text)


def test_bad_contract_messages():
    with pytest.raises(InputError, match=r"'4H\+4' gives 14 tricks"):
        c.parse_contract("4H+4")
    with pytest.raises(InputError, match="must be a string"):
        c.parse_contract(4)
    with pytest.raises(InputError, match="row 2: cannot read contract '9C='"):
        c.score_contracts(["1C=", "9C="], True)


def test_bad_arrays():
    with pytest.raises(InputError, match=r"column 'level' must be in \[0, 7\]; found 8"):
        c.contract_score([8], [0], [0], [0], [False])
    with pytest.raises(InputError, match="column 'strain' must be one of"):
        c.contract_score([1], ["Q"], [0], [0], [False])
    with pytest.raises(InputError, match=r"column 'doubled' must be in \[0, 2\]; found 3"):
        c.contract_score([1], [0], [3], [0], [False])
    with pytest.raises(InputError, match="column 'result' gives 14 tricks"):
        c.contract_score([7], [0], [0], [1], [False])
    with pytest.raises(InputError, match="column 'result' must hold whole numbers"):
        c.contract_score([1], [0], [0], [0.5], [False])
    with pytest.raises(InputError, match="one value per contract"):
        c.contract_score([1, 2], [0, 0, 0], [0], [0], [False])
    with pytest.raises(InputError, match=r"column 'board' must be in \[1, "):
        c.vulnerability(0)
    with pytest.raises(InputError, match="column 'side' must be NS, EW"):
        c.is_vulnerable(1, "X")


def test_contract_without_result_says_so():
    with pytest.raises(InputError, match=r"contract '4HX' has no result: add =, \+k, -k or "
                                         r"the tricks taken \(e.g. '4HX=', '4HX\+1'"):
        c.parse_contract("4HX")


# ----------------------------------------------------------------------------------
# the command line: one-line errors and exit codes


def _cli(*args):
    from click.testing import CliRunner

    from fastrate.cli import main

    return CliRunner().invoke(main, ["bridge", "contract", *args])


def test_cli_contract_bad_options():
    r = _cli("4H=", "--board", "0", "--declarer", "N")
    assert r.exit_code == 2 and "Invalid value for '--board': 0 is not in the range" in r.stderr
    r = _cli("4H=", "--declarer", "N")  # was silently ignored
    assert r.exit_code == 1
    assert r.stderr.startswith("fastrate: error: --declarer goes with --board")
    assert r.stderr.count("\n") == 1
    r = _cli("3NT")
    assert r.exit_code == 1 and "has no result" in r.stderr and "Traceback" not in r.stderr
    r = _cli("6S12", "--board", "2", "--declarer", "N")  # the --help example
    assert r.exit_code == 0 and r.stdout.strip() == "1430"
