"""PGN import throughput of :func:`fastrate.io.pgn_games.read_pgn` (file to Games, names
interned): generated result-only PGN (three tag pairs and ``1-0`` per game; the issue 12
target is 2 M games/s), generated PGN with full movetext (moves, comments, variations,
NAGs; target 100 MB/s), the TCEC archive (gzip, 27.7 MB of PGN), and a plain Python
line-by-line reader on the same input (same games checked first; ratio recorded).

    pytest bench/bench_pgn_games.py --benchmark-only              # smoke sizes, timed
    pytest bench/bench_pgn_games.py --benchmark-only -m large     # 1M games, ~100 MB

Reading in parts (:func:`fastrate.io.pgn_games.pgn_chunks`, what ``--chunk-rows`` and
files too large for memory use): the same files in parts of a tenth, beside the whole
read (``whole_vs_parts``: the whole read's speed / the parts'), and the Elo ratings of
the 1M-game file end to end in parts (:func:`fastrate.streaming.rate_chunks`).

The smoke run (the default ``--benchmark-disable``) reads tiny files once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fastrate.io.pgn_games import pgn_chunks, read_pgn

TCEC = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "chess_tcec"
        / "tcec_standard.pgn.gz").resolve()

_RESULTS = ("1-0", "1/2-1/2", "0-1")
_MOVES = ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5",
          "Bb3", "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5")


def write_result_only(path: Path, n: int, players: int = 10_000, seed: int = 0) -> int:
    """``n`` games of three tag pairs (White, Black, Result) and the result as movetext."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, players, n)
    b = (w + rng.integers(1, players, n)) % players
    r = rng.integers(0, 3, n)
    with open(path, "w", encoding="ascii") as f:
        for a, c, k in zip(w.tolist(), b.tolist(), r.tolist()):
            res = _RESULTS[k]
            f.write(f'[White "Player {a}"]\n[Black "Player {c}"]\n[Result "{res}"]\n\n'
                    f"{res}\n\n")
    return n


def write_full(path: Path, n: int, players: int = 2_000, seed: int = 1) -> int:
    """``n`` games in export format: seven tag roster pairs and a few more, 40-80 moves
    with clock comments, a variation and NAGs, wrapped at 79 columns. Returns ``n``."""
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="ascii") as f:
        for g in range(n):
            a = int(rng.integers(players))
            c = (a + 1 + int(rng.integers(players - 1))) % players
            res = _RESULTS[int(rng.integers(3))]
            f.write(f'[Event "Generated {g // 100}"]\n[Site "?"]\n[Date "2024.01.{g % 28 + 1:02d}"]\n'
                    f'[Round "{g % 9 + 1}"]\n[White "Engine {a}"]\n[Black "Engine {c}"]\n'
                    f'[Result "{res}"]\n[WhiteElo "3500"]\n[BlackElo "3490"]\n'
                    f'[TimeControl "60+1"]\n[ECO "C84"]\n\n')
            parts = []
            for m in range(int(rng.integers(40, 80))):
                parts.append(f"{m + 1}. {_MOVES[(m + g) % 24]} {{[%clk 0:00:5{m % 10}]}} "
                             f"{_MOVES[(m * 7 + g) % 24]} {{+0.{m % 10}/2{m % 10}}}")
                if m == 10:
                    parts.append("(11. d4 $1 exd4 12. Nxd4 $2)")
            parts.append(res)
            line, lines = "", []
            for tok in " ".join(parts).split(" "):
                if len(line) + len(tok) + 1 > 79:
                    lines.append(line)
                    line = tok
                else:
                    line = f"{line} {tok}" if line else tok
            lines.append(line)
            f.write("\n".join(lines) + "\n\n")
    return n


def python_reader(path: Path) -> list[tuple[str, str, float]]:
    """A plain line-by-line reader: tag lines give White, Black and Result; a tag line
    after movetext starts the next game. (What a short script would do.)"""
    scores = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
    out: list[tuple[str, str, float]] = []
    tags: dict[str, str] = {}
    in_moves = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("["):
                if in_moves:
                    if tags.get("Result") in scores:
                        out.append((tags["White"], tags["Black"], scores[tags["Result"]]))
                    tags, in_moves = {}, False
                name, _, rest = line[1:].partition(" ")
                tags[name] = rest.strip().rstrip("]").strip('"')
            elif line.strip():
                in_moves = True
    if tags.get("Result") in scores:
        out.append((tags["White"], tags["Black"], scores[tags["Result"]]))
    return out


def as_rows(games) -> list[tuple[str, str, float]]:
    names = games.players.names
    return [(names[w], names[b], s) for w, b, s in
            zip(games.white.tolist(), games.black.tolist(), games.score.tolist())]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[tuple[str, int], Path] = {}

    def make(kind: str, n: int) -> Path:
        if (kind, n) not in cache:
            p = tmp_path_factory.mktemp("pgn") / f"{kind}_{n}.pgn"
            (write_result_only if kind == "result" else write_full)(p, n)
            cache[kind, n] = p
        return cache[kind, n]

    return make


@pytest.mark.parametrize("n", [pytest.param(2_000, id="small"),
                               pytest.param(1_000_000, id="large", marks=pytest.mark.large)])
def test_result_only(throughput, files, n):
    path = files("result", n)
    games = throughput(lambda: read_pgn(path), n)
    assert games.n_games == n
    throughput.info["mb_per_s"] = (path.stat().st_size / 1e6 * throughput.info["games_per_s"]
                                   / n if "games_per_s" in throughput.info else None)


@pytest.mark.parametrize("n", [pytest.param(200, id="small"),
                               pytest.param(60_000, id="large", marks=pytest.mark.large)])
def test_full_movetext(throughput, files, n):
    path = files("full", n)
    size = path.stat().st_size
    throughput.info["unit"] = "bytes"
    throughput.info["input_mib"] = size / 2**20
    games = throughput(lambda: read_pgn(path, date=True), size)
    assert games.n_games == n
    throughput.info["games_per_s_equivalent"] = (n / throughput.info["seconds"]
                                                 if "seconds" in throughput.info else None)


@pytest.mark.large
def test_tcec_archive(throughput):
    if not TCEC.exists():
        pytest.skip(f"TCEC data not found at {TCEC}")
    games = throughput(lambda: read_pgn(TCEC, date=True), 22_233)
    assert games.n_games == 22_233


@pytest.mark.parametrize("kind,n", [pytest.param("result", 2_000, id="result-small"),
                                    pytest.param("full", 100, id="full-small"),
                                    pytest.param("result", 200_000, id="result-large",
                                                 marks=pytest.mark.large),
                                    pytest.param("full", 10_000, id="full-large",
                                                 marks=pytest.mark.large)])
def test_python_line_reader(throughput, files, kind, n):
    """The plain Python reader on a subsample; ``fastrate_vs_this`` = how many times
    faster read_pgn is on the same file (the same games checked first)."""
    path = files(kind, n)
    throughput.info["subsample"] = n
    assert python_reader(path) == as_rows(read_pgn(path))
    throughput(lambda: python_reader(path), n, rounds=3)
    throughput.compare(lambda: read_pgn(path), n)


@pytest.mark.parametrize("kind,n", [pytest.param("result", 2_000, id="result-small"),
                                    pytest.param("result", 1_000_000, id="result-large",
                                                 marks=pytest.mark.large),
                                    pytest.param("full", 60_000, id="full-large",
                                                 marks=pytest.mark.large)])
def test_in_parts(throughput, files, kind, n):
    """:func:`pgn_chunks` in parts of ``n / 10`` games, games/s; the whole read of the
    same file timed beside it (``whole_vs_parts``)."""
    path = files(kind, n)
    throughput.info["parts_of"] = n // 10

    def parts() -> int:
        return sum(p.n_games for p in pgn_chunks(path, chunk_rows=n // 10))

    assert throughput(parts, n) == n
    throughput.compare(lambda: read_pgn(path), n, key="whole_vs_parts")


@pytest.mark.parametrize("n", [pytest.param(2_000, id="small"),
                               pytest.param(1_000_000, id="large", marks=pytest.mark.large)])
def test_elo_in_parts_end_to_end(throughput, files, n):
    """PGN file to Elo ratings in parts of ``n / 10`` (read ahead in a thread, players
    numbered across parts, rated), games/s."""
    from fastrate.streaming import rate_chunks

    path = files("result", n)
    r = throughput(lambda: rate_chunks(path, "elo", chunk_rows=n // 10), n)
    assert int(r.games_played.sum()) == 2 * n
