"""PBN import throughput: table results per second of :func:`fastrate.io.pbn.read_pbn_boards`
(file to Boards, scores and participants checked) on the real OKbridge file (193 boards,
18,396 table results after Multiplicity) and on synthetic export-format files (a
ScoreTable of ``tables`` rows per board with pair ids, plus Auction and Play sections).

    pytest bench/bench_bridge_pbn.py --benchmark-only            # timing
    FASTRATE_BENCH_LARGE=1 pytest bench/bench_bridge_pbn.py --benchmark-only

The smoke run (the default ``--benchmark-disable``) reads each file once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fastrate.bridge.contract import contract_score
from fastrate.bridge.scoring import cross_imps
from fastrate.io.pbn import read_pbn_boards

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bridge_pbn"
IMP_01 = (SHARED / "comparisons_papi_pbn-v2_imp_01.pbn").resolve()

_STRAINS = ("C", "D", "H", "S", "NT")
_SEATS = "NESW"
_VUL = ("None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS",
        "All", "None", "NS", "EW")


def write_synthetic_pbn(path: Path, boards: int = 200, tables: int = 500,
                        seed: int = 0) -> int:
    """Write an export-format PBN file: ``boards`` games, each with a ScoreTable of
    ``tables`` results (pair ids, contract, declarer, tricks, NS score and the file's
    cross-IMPs). Returns the number of table results."""
    rng = np.random.default_rng(seed)
    out = ["% PBN 2.1", "% EXPORT", "%"]
    for b in range(1, boards + 1):
        # a few contracts per board, as on real travellers
        k = 6
        level = rng.integers(1, 8, k)
        strain = rng.integers(0, 5, k)
        doubled = rng.choice(3, k, p=[0.85, 0.12, 0.03])
        pick = rng.integers(0, k, tables)
        tricks = np.clip(level[pick] + 6 + rng.integers(-3, 3, tables), 0, 13)
        decl = rng.integers(0, 4, tables)
        ns_side = decl % 2 == 0
        vul_text = _VUL[(b - 1) % 16]
        vul = np.where(ns_side, vul_text in ("NS", "All"), vul_text in ("EW", "All"))
        pts = contract_score(level[pick], strain[pick], doubled[pick], tricks, vul,
                             tricks=True)
        ns = np.where(ns_side, pts, -pts).astype(np.float64)
        imp = cross_imps(np.array([0, tables]), ns).ns
        rank = np.argsort(-ns, kind="stable")
        out += [f'[Event "{"##Synthetic pairs" if b == 1 else "#"}"]', '[Site "##?"]',
                '[Date "##2024.05.31"]', f'[Board "{b}"]', '[West "?"]', '[North "?"]',
                '[East "?"]', '[South "?"]', f'[Dealer "{_SEATS[(b - 1) % 4]}"]',
                f'[Vulnerable "{vul_text}"]',
                '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]',
                '[Scoring "##MP"]', '[Declarer "N"]', '[Contract "3NT"]', '[Result "9"]',
                '[Auction "N"]', "1NT Pass 3NT Pass", "Pass Pass", '[Play "E"]',
                "S2 S5 SA S8", "S3 S6 SK S9", "*",
                r'[ScoreTable "PairId_NS\4R;PairId_EW\4R;Contract\5L;Declarer\1;'
                r'Result\2R;Score_NS\5R;IMP_NS\6R"]']
        for i in rank.tolist():
            c = (f"{level[pick[i]]}{_STRAINS[strain[pick[i]]]}"
                 f"{'X' * int(doubled[pick[i]])}")
            out.append(f"{i + 1:>4} {tables + (i + b) % tables + 1:>4} {c:<5} "
                       f"{_SEATS[decl[i]]} {int(tricks[i]):>2} {int(ns[i]):>5} "
                       f"{imp[i]:>6.2f}")
        out.append("")
    path.write_text("\r\n".join(out) + "\r\n", encoding="ascii")
    return boards * tables


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory):
    def make(boards: int, tables: int) -> tuple[Path, int]:
        p = tmp_path_factory.mktemp("pbn") / f"synthetic_{boards}x{tables}.pbn"
        return p, write_synthetic_pbn(p, boards, tables)
    return make


@pytest.mark.filterwarnings("ignore::fastrate.io.pbn.PbnScoreWarning")
def test_read_pbn_boards_okbridge(throughput):
    if not IMP_01.exists():
        pytest.skip(f"shared data not found at {IMP_01}")
    result = throughput(lambda: read_pbn_boards(IMP_01), 18396)
    assert result.n_results == 18396
    throughput.info["results_per_s"] = throughput.info.get("games_per_s")


@pytest.mark.parametrize("boards,tables", [
    pytest.param(20, 50, id="20x50"),
    pytest.param(200, 500, id="200x500"),
    pytest.param(1000, 1000, id="1000x1000", marks=pytest.mark.large),
])
def test_read_pbn_boards_synthetic(throughput, synthetic, boards, tables):
    path, n = synthetic(boards, tables)
    result = throughput(lambda: read_pbn_boards(path), n)
    assert result.n_results == n and result.n_boards == boards
    throughput.info["results_per_s"] = throughput.info.get("games_per_s")
    throughput.info["megabytes"] = path.stat().st_size / 1e6
