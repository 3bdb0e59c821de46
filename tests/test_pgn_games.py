"""PGN import (fastrate.io.pgn_games.read_pgn): hand-written files for every tag form,
escapes, comments, variations, NAGs, escape lines, unfinished and malformed games, CRLF,
BOM, gzip, several files and synonyms; generated files against the plain-Python reader
of tests/reference/pgn_games.py; the TCEC archive's published counts."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import pgn_games as ref

from fastrate.errors import InputError
from fastrate.io.pgn_games import REASONS, read_pgn, read_synonyms

TCEC = Path(__file__).resolve().parents[2] / "shared" / "data" / "chess_tcec"


def write(tmp_path: Path, text: str | bytes, name: str = "games.pgn") -> Path:
    p = tmp_path / name
    data = text.encode() if isinstance(text, str) else text
    if name.endswith(".gz"):
        data = gzip.compress(data)
    p.write_bytes(data)
    return p


def table(games) -> list[tuple[str, str, float]]:
    names = games.players.names
    return [(names[w], names[b], s) for w, b, s in
            zip(games.white.tolist(), games.black.tolist(), games.score.tolist())]


GOOD = """[Event "Club \\"A\\" championship"]
[Site "?"]
[Date "2024.05.31"]
[Round "1"]
[White "Carlsen, Magnus"]
[Black "Caruana, \\"Fabi\\""]
[Result "1-0"]
[ECO "C65"]

1. e4 {a comment; with [brackets] and ( parens } e5 (1... c5 $5 2. Nf3 {inner} (2. c3))
2. Nf3 $1 Nc6 ; a rest-of-line comment { not opened
3. Bb5 !? a6 1-0

[White  "Ding Liren"]  [Black"Nepomniachtchi, Ian"] [ Result "1/2-1/2" ]
1. d4 d5 1/2-1/2
%escape line [White "ignored"]
[White "Ding Liren"]
[Black "Carlsen, Magnus"]
[Result "0-1"]

1. c4 0-0 0-1
"""


def test_tags_comments_variations_nags(tmp_path):
    g = read_pgn(write(tmp_path, GOOD))
    assert table(g) == [("Carlsen, Magnus", 'Caruana, "Fabi"', 1.0),
                        ("Ding Liren", "Nepomniachtchi, Ian", 0.5),
                        ("Ding Liren", "Carlsen, Magnus", 0.0)]
    assert g.dropped == ()
    assert g.players.names.tolist() == ["Carlsen, Magnus", 'Caruana, "Fabi"', "Ding Liren",
                                        "Nepomniachtchi, Ian"]


def test_crlf_bom_and_gzip_read_the_same(tmp_path):
    want = table(read_pgn(write(tmp_path, GOOD)))
    crlf = GOOD.replace("\n", "\r\n")
    assert table(read_pgn(write(tmp_path, crlf, "crlf.pgn"))) == want
    assert table(read_pgn(write(tmp_path, "\ufeff" + crlf, "bom.pgn"))) == want
    assert table(read_pgn(write(tmp_path, GOOD, "games.pgn.gz"))) == want
    # gzip recognised by its magic number too
    p = tmp_path / "noext.pgn"
    p.write_bytes(gzip.compress(GOOD.encode()))
    assert table(read_pgn(p)) == want


@pytest.mark.parametrize("codec,suffix", [("zstd", ".zst"), ("bz2", ".bz2"), ("lz4", ".lz4")])
def test_zstd_bzip2_and_lz4_read_the_same(tmp_path, codec, suffix):
    """lichess publishes its games as .pgn.zst: the codecs Arrow has, told by the first
    bytes (named or not), read as the plain file; the command line takes the name as
    PGN; a damaged stream is a one-line error naming the file."""
    import pyarrow as pa
    from click.testing import CliRunner

    from fastrate.cli import main

    want = table(read_pgn(write(tmp_path, GOOD)))
    for name in (f"games.pgn{suffix}", f"unnamed{suffix}.pgn"):
        with pa.output_stream(str(tmp_path / name), compression=codec) as out:
            out.write(GOOD.encode())
        assert table(read_pgn(tmp_path / name)) == want
    r = CliRunner().invoke(main, ["rate", str(tmp_path / f"games.pgn{suffix}"), "--top", "2"])
    assert r.exit_code == 0, r.output
    plain = CliRunner().invoke(main, ["rate", str(tmp_path / "games.pgn"), "--top", "2"])
    assert r.output.replace(f"games.pgn{suffix}", "games.pgn") == plain.output
    bad = tmp_path / f"bad.pgn{suffix}"
    bad.write_bytes((tmp_path / f"games.pgn{suffix}").read_bytes()[:12])
    with pytest.raises(InputError, match=f"cannot read .*bad.pgn{suffix}"):
        read_pgn(bad)


BAD = """[White "A"]
[Black "B"]
[Result "*"]

1. e4 *

[White "A"]
[Black "B"
[Result "0-1"]

1. e4 0-1

[White "?"]
[Black "B"]
[Result "1-0"]

1-0

[White "A"]
[Black "C"]

1. e4 e5

[White "A"]
[Black "C"]
[Result "1-0"]

1. e4 0-1

[White "A"]
[Black "C"]
[Result "?"]

1. e4 e5

[White "A"]
[Black "C"]
[Result "1-0"]
1. e4 1-0

1. d4 d5 1/2-1/2

[White "C"]
[Black "B"]

1. e4 {never closed 1-0
"""


def test_bad_games_are_counted_with_their_first_line(tmp_path):
    g = read_pgn(write(tmp_path, BAD, "bad.pgn"))
    assert table(g) == [("A", "C", 1.0)]
    assert dict((r, (c, w)) for r, c, w in g.dropped) == {
        REASONS[3]: (1, "line 1 of bad.pgn"),
        REASONS[0]: (1, "line 8 of bad.pgn"),
        REASONS[2]: (2, "line 13 of bad.pgn"),
        REASONS[4]: (1, "line 19 of bad.pgn"),
        REASONS[6]: (1, "line 24 of bad.pgn"),
        REASONS[5]: (1, "line 30 of bad.pgn"),
        REASONS[1]: (1, "line 46 of bad.pgn"),
    }


def test_result_from_the_marker_and_tag_sections_without_moves(tmp_path):
    text = ('[White "A"][Black "B"]\n1. e4 1-0\n'
            '[White "B"]\n[Black "A"]\n[Result "0-1"]\n'  # no movetext: the next White
            '[White "A"]\n[Black "B"]\n[Result "1/2-1/2"]\n')  # tag starts a new game
    assert table(read_pgn(write(tmp_path, text))) == [("A", "B", 1.0), ("B", "A", 0.0),
                                                      ("A", "B", 0.5)]


def test_empty_and_all_bad_files_name_the_file(tmp_path):
    with pytest.raises(InputError, match="no games in empty.pgn"):
        read_pgn(write(tmp_path, "", "empty.pgn"))
    with pytest.raises(InputError, match="no games in blank.pgn"):
        read_pgn(write(tmp_path, "\n  ; only a comment\n{ and this }\n", "blank.pgn"))
    with pytest.raises(InputError, match=r"no valid games in star.pgn: all 1 games.*\"\*\""):
        read_pgn(write(tmp_path, '[White "A"]\n[Black "B"]\n[Result "*"]\n*\n', "star.pgn"))
    with pytest.raises(InputError, match="no such file"):
        read_pgn(tmp_path / "missing.pgn")
    with pytest.raises(InputError, match="no PGN files"):
        read_pgn([])


def test_several_files_and_dropped_counts_add_up(tmp_path):
    a = write(tmp_path, GOOD, "a.pgn")
    b = write(tmp_path, BAD, "b.pgn.gz")
    g = read_pgn([a, b])
    assert table(g) == table(read_pgn(a)) + [("A", "C", 1.0)]
    assert g.n_players == 6
    c = write(tmp_path, '[White "X"]\n[Black "Y"]\n[Result "*"]\n*\n[White "X"]\n'
              '[Black "Y"]\n[Result "1-0"]\n1-0\n', "c.pgn")
    g = read_pgn([a, b, c])
    star = [d for d in g.dropped if d[0] == REASONS[3]]
    assert star == [(REASONS[3], 2, "line 1 of b.pgn.gz")]


def test_synonyms_mapping_and_ordo_csv(tmp_path):
    text = ('[White "SF 16"]\n[Black "Lc0"]\n[Result "1-0"]\n1-0\n'
            '[White "LCZero"]\n[Black "Stockfish"]\n[Result "0-1"]\n0-1\n')
    p = write(tmp_path, text)
    g = read_pgn(p, names={"SF 16": "Stockfish", "Lc0": "LCZero"})
    assert table(g) == [("Stockfish", "LCZero", 1.0), ("LCZero", "Stockfish", 0.0)]
    syn = tmp_path / "syn.csv"
    syn.write_text('"Stockfish","SF 16","SF, dev"\nLCZero,Lc0\n')
    assert read_synonyms(syn) == {"SF 16": "Stockfish", "SF, dev": "Stockfish",
                                  "Lc0": "LCZero"}
    assert table(read_pgn(p, names=syn)) == table(g)
    with pytest.raises(InputError, match="cannot play himself.*line 1 of games.pgn"):
        read_pgn(p, names={"SF 16": "X", "Lc0": "X"})
    g = read_pgn(p, names={"SF 16": "X", "Lc0": "X"}, drop_self_play=True)
    assert table(g) == [("LCZero", "Stockfish", 0.0)]
    assert g.dropped == (("a player plays himself", 1, "line 1 of games.pgn"),)
    syn.write_text("A,x\nB,x\n")
    with pytest.raises(InputError, match="line 2 of syn.csv: alias 'x'"):
        read_synonyms(syn)


def test_dates_unknown_parts_and_sorting(tmp_path):
    text = "".join(f'[White "A"]\n[Black "B"]\n[Date "{d}"]\n[Result "1-0"]\n1-0\n'
                   for d in ("2024.05.31", "2024.??.??", "????.??.??", "2024.02.30",
                             "24.1.1", "2023.12.??"))
    text += '[White "A"]\n[Black "B"]\n[Result "1-0"]\n1-0\n'
    g = read_pgn(write(tmp_path, text), date=True)
    assert g.time.astype("datetime64[D]").astype(str).tolist() == [
        "2023-12-01", "2024-01-01", "2024-05-31"]
    assert g.order.tolist() == [2, 1, 0]
    assert dict((r, (c, w)) for r, c, w in g.dropped) == {
        REASONS[7]: (2, "line 11 of games.pgn"), REASONS[8]: (2, "line 16 of games.pgn")}
    # without date=True the Date tag is not looked at
    assert read_pgn(write(tmp_path, text)).n_games == 7


def test_event_periods_and_period_lengths(tmp_path):
    text = "".join(f'[Event "{e}"]\n[White "A"]\n[Black "B"]\n[Date "2024.0{m}.01"]\n'
                   f'[Result "1-0"]\n1-0\n' for e, m in (("Z", 1), ("Z", 1), ("A", 2),
                                                        ("Z", 3)))
    p = write(tmp_path, text)
    g = read_pgn(p, period="event")
    # events numbered by first appearance; a game of an earlier event that comes back
    # later joins that event's period (games sorted stably by period)
    assert g.to_input_order(g.period).tolist() == [0, 0, 1, 0]
    assert g.period.tolist() == [0, 0, 0, 1]
    months = read_pgn(p, date=True, period="month").period
    assert (months - months[0]).tolist() == [0, 0, 1, 2]
    with pytest.raises(InputError, match="needs the dates"):
        read_pgn(p, period="month")


def test_latin1_names_are_decoded(tmp_path):
    data = b'[White "J\xf6rg"]\n[Black "Zo\xc3\xab"]\n[Result "1-0"]\n1-0\n'
    assert table(read_pgn(write(tmp_path, data))) == [("J\u00f6rg", "Zo\u00eb", 1.0)]


# ----------------------------------------------------------------------------------
# generated files against the reference reader

_NAMES = st.sampled_from(["A", "B", "C", "D", "Kasparov, Garry", 'Q"uote', "back\\slash",
                          "?", "", "  padded  ", "Zo\u00eb", "E", "F"])
_RESULT_VALUES = st.sampled_from(["1-0", "0-1", "1/2-1/2", "*", "?", "1-1", None])
_MOVE_TOKENS = st.sampled_from(["1.", "e4", "e5", "Nf3", "0-0", "0-0-0", "10.", "$1", "!?",
                                "{c}", "{a; [b] (c)}", "(1... c5 2. c3)", ";x {y\n",
                                "\n%esc [White \"z\"]\n", "1-0x", "1/2", "\n", "(", ")",
                                "{multi\nline}", "{not closed"])


def _escape(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')


@st.composite
def _game(draw) -> str:
    tags = []
    for tag in ("Event", "White", "Black", "Result", "Date", "Round"):
        if draw(st.integers(0, 9)) == 0:
            continue
        if tag in ("White", "Black"):
            value = _escape(draw(_NAMES))
        elif tag == "Result":
            value = draw(_RESULT_VALUES)
            if value is None:
                continue
        elif tag == "Date":
            value = draw(st.sampled_from(["2024.01.02", "2024.??.??", "????.??.??",
                                          "2023.02.29", "x"]))
        else:
            value = draw(st.sampled_from(["?", "Club", "1.2"]))
        pad = draw(st.sampled_from(["", " ", "  "]))
        tags.append(f'[{pad}{tag}{pad or " "}"{value}"{pad}]')
    if draw(st.integers(0, 20)) == 0:
        tags.insert(draw(st.integers(0, len(tags))),
                    draw(st.sampled_from(['[White "A]', '[Black B]', '[Result "1-0"', "[ ]"])))
    draw(st.randoms()).shuffle(tags)
    sep = draw(st.sampled_from(["\n", " ", "\r\n"]))
    moves = draw(st.lists(_MOVE_TOKENS, max_size=8))
    marker = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", "*", ""]))
    return sep.join(tags) + "\n\n" + " ".join(moves) + " " + marker + "\n"


@settings(max_examples=60, deadline=None)
@given(games=st.lists(_game(), min_size=1, max_size=8), crlf=st.booleans(),
       bom=st.booleans(), date=st.booleans())
def test_generated_files_match_the_reference(games, crlf, bom, date):
    text = "\n".join(games)
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    kept, dropped = ref.read(data, date=date)
    want_dropped = {r: (c, f"line {line} of gen.pgn") for r, (c, line) in dropped.items()}
    self_play = [k for k in kept if k[0].strip(" ") == k[1].strip(" ")]
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "gen.pgn"
        p.write_bytes(data)
        if not kept or len(self_play) == len(kept):
            with pytest.raises(InputError):
                read_pgn(p, date=date, drop_self_play=True)
            return
        g = read_pgn(p, date=date, drop_self_play=True)
    got = {r: (c, w) for r, c, w in g.dropped if r != "a player plays himself"}
    assert got == want_dropped
    rows = [k for k in kept if k not in self_play]
    names = g.players.names
    white = g.to_input_order(g.white)
    black = g.to_input_order(g.black)
    score = g.to_input_order(g.score)
    assert [(names[w], names[b], s) for w, b, s in zip(white, black, score)] == [
        (w, b, s) for w, b, s, *_ in rows]
    if date:
        want = [np.datetime64(f"{y:04d}-{m:02d}-{d:02d}", "ns") for *_, (y, m, d) in rows]
        assert g.to_input_order(g.time).tolist() == np.array(want).tolist()


# ----------------------------------------------------------------------------------
# the TCEC archive


def test_tcec_archive_counts():
    path = TCEC / "tcec_standard.pgn.gz"
    if not path.exists():
        pytest.skip(f"TCEC data not found at {path}")
    g = read_pgn(path, date=True)
    # SOURCE.txt / check_output.txt: 22,233 games, 1,865 players, dates 2010.06.23 ..
    # 2026.05.31; white wins 6,906, draws 12,066, black wins 3,261
    assert g.n_games == 22233
    assert g.n_players == 1865
    assert g.dropped == ()
    assert np.count_nonzero(g.score == 1.0) == 6906
    assert np.count_nonzero(g.score == 0.5) == 12066
    assert np.count_nonzero(g.score == 0.0) == 3261
    days = g.time.astype("datetime64[D]").astype(str)
    assert (days[0], days[-1]) == ("2010-06-23", "2026-05-31")
    assert read_pgn(path, period="event").period.max() + 1 == 557
    # the Season 11 Superfinal: Stockfish 260318 +20 -2 =78 against Houdini 6.03
    names = g.players.names
    sf, hou = names.tolist().index("Stockfish 260318"), names.tolist().index("Houdini 6.03")
    pair = ((g.white == sf) & (g.black == hou)) | ((g.white == hou) & (g.black == sf))
    sf_score = np.where(g.white[pair] == sf, g.score[pair], 1 - g.score[pair])
    # (other events add games between the two; the Superfinal alone is +20 -2 =78)
    assert sf_score.size >= 100
    assert np.count_nonzero(sf_score == 1.0) >= 20


def test_parse_pgn_reads_text_in_memory(tmp_path):
    from fastrate.io.pgn_games import parse_pgn

    want = read_pgn(write(tmp_path, GOOD))
    for data in (GOOD, GOOD.encode()):
        g = parse_pgn(data, name="mem")
        assert table(g) == table(want)
    g = parse_pgn(BAD, name="mem")
    assert g.dropped[0][2].endswith(" of mem")


def test_cli_rates_a_pgn_file(tmp_path):
    """`fastrate rate FILE.pgn` reads PGN (by its name), with --period on its dates."""
    from click.testing import CliRunner

    from fastrate.cli import main

    path = tmp_path / "games.pgn"
    path.write_text('[Date "2024.01.02"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
                    '[Date "2024.02.03"]\n[White "B"]\n[Black "C"]\n[Result "*"]\n\n1. d4 *\n\n'
                    '[Date "2024.02.05"]\n[White "C"]\n[Black "A"]\n[Result "1/2-1/2"]\n\n1/2-1/2\n')
    out = tmp_path / "r.csv"
    res = CliRunner().invoke(main, ["rate", str(path), "-s", "glicko2", "--period", "month",
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "skipped 1 row" in res.output
    assert out.read_text().splitlines()[0].replace('"', "").startswith("player,rating,rd")
    res = CliRunner().invoke(main, ["rate", str(path), "--winner", "w"])
    assert res.exit_code == 1 and "a PGN file has fixed tags" in res.output


# ----------------------------------------------------------------------------------
# fuzzing (issue 15): any bytes, and PGN-like text with broken pieces, give either one
# clear FastrateError or games whose scores and ids are all sound; never another error

_PIECES = ['[White "a"]', '[Black "b"]', '[Result "1-0"]', '[Result "0-1"]',
           '[Result "1/2-1/2"]', '[Result "*"]', '[Date "2024.01.02"]', '[Date "????.??.??"]',
           '[White ""]', '[Black "a"]', '[White "x\\"y"]', '[Event "e"]', "1. e4 e5 2. Nf3",
           "{comment", "}", "(", ")", "1-0", "0-1", "1/2-1/2", "*", "%escape", "\n", "\n\n",
           "[", "]", '"', "\x00", "\xff", "\x1a", ";", "$1", "[Result", '[Date "2024.13.40"]']


def _check_games_or_clear_error(data: bytes) -> None:
    from fastrate.errors import FastrateError
    from fastrate.io.pgn_games import parse_pgn

    try:
        games = parse_pgn(data)
    except FastrateError as e:
        assert "\n" not in str(e).strip(), str(e)
        return
    assert games.n_games >= 1
    assert np.isin(games.score, [0.0, 0.5, 1.0]).all()
    assert (games.white != games.black).all()
    assert games.white.min() >= 0 and games.black.max() < games.n_players


_GAME = '[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n1. e4 e5 {r}\n\n'


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=40),
       games=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abcd"),
                                st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"])),
                      max_size=6),
       where=st.integers(0, 7))
def test_fuzzed_pgn_text(parts, games, where):
    """Whole games with broken pieces put before, between or after them."""
    text = "".join(_GAME.format(w=w, b=b, r=r) for w, b, r in games)
    cut = min(len(text), where * 40)
    junk = " ".join(parts)
    _check_games_or_clear_error((text[:cut] + junk + text[cut:]).encode("utf-8",
                                                                      "surrogateescape"))


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=400))
def test_fuzzed_pgn_bytes(data):
    _check_games_or_clear_error(data)


# ----------------------------------------------------------------------------------
# reading in parts (pgn_chunks; game_chunks and the chunked ratings on a PGN file)


def _joined(parts) -> tuple[list[tuple[str, str, float]], list]:
    """The parts' games as one table (each part's names its own) and their drops."""
    from fastrate.data.games import merge_dropped

    parts = list(parts)
    rows = [row for p in parts for row in table(p)]
    return rows, merge_dropped([d for p in parts for d in p.dropped])


@settings(max_examples=80, deadline=None)
@given(games=st.lists(_game(), min_size=1, max_size=8), crlf=st.booleans(),
       bom=st.booleans(), block=st.integers(1, 300), rows=st.integers(1, 4))
def test_parts_read_what_the_whole_file_reads(games, crlf, bom, block, rows):
    """Cut into blocks of any size (inside tags, comments, moves, a CRLF), read at most
    ``rows`` games a part: the same games in the same order, and the same drops with
    the same first lines, as the file read whole; the same error where it fails."""
    from fastrate.io.pgn_games import pgn_chunks

    text = "\n".join(games)
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "gen.pgn"
        p.write_bytes(data)
        try:
            whole = read_pgn(p, drop_self_play=True)
        except InputError as e:
            with pytest.raises(InputError) as got:
                list(pgn_chunks(p, chunk_rows=rows, drop_self_play=True, block_bytes=block))
            assert str(got.value) == str(e)
            return
        parts = list(pgn_chunks(p, chunk_rows=rows, drop_self_play=True, block_bytes=block))
    assert all(0 < part.n_games <= rows for part in parts)
    got, dropped = _joined(parts)
    assert got == table(whole)
    assert sorted(dropped) == sorted(whole.dropped)


def test_parts_of_compressed_files_and_several_files(tmp_path):
    import bz2

    from fastrate.io.pgn_games import pgn_chunks

    plain = write(tmp_path, BAD + GOOD, "a.pgn")
    whole = read_pgn(plain)
    for name, data in [("b.pgn.gz", gzip.compress((BAD + GOOD).encode())),
                       ("c.pgn.bz2", bz2.compress((BAD + GOOD).encode()))]:
        (tmp_path / name).write_bytes(data)
        got, dropped = _joined(pgn_chunks(tmp_path / name, chunk_rows=2, block_bytes=50))
        assert got == table(whole)
        assert sorted(dropped) == sorted((r, c, w.replace("a.pgn", name))
                                         for r, c, w in whole.dropped)
    two = read_pgn([plain, tmp_path / "b.pgn.gz"])
    got, dropped = _joined(pgn_chunks([plain, tmp_path / "b.pgn.gz"], chunk_rows=3,
                                      block_bytes=64))
    assert got == table(two)
    assert sorted(dropped) == sorted(two.dropped)


def test_parts_refuse_what_they_cannot_do(tmp_path):
    from fastrate.io.pgn_games import pgn_chunks
    from fastrate.streaming import game_chunks

    p = write(tmp_path, GOOD)
    with pytest.raises(InputError, match="period='event'.*whole"):
        list(pgn_chunks(p, period="event"))
    with pytest.raises(InputError, match="needs the dates"):
        list(pgn_chunks(p, period="month"))
    with pytest.raises(InputError, match="no games in empty.pgn"):
        list(pgn_chunks(write(tmp_path, "", "empty.pgn"), block_bytes=1))
    with pytest.raises(InputError, match=r"no valid games in star.pgn: all 2 games"):
        list(pgn_chunks(write(tmp_path, '[White "A"]\n[Black "B"]\n[Result "*"]\n*\n' * 2,
                              "star.pgn"), chunk_rows=1, block_bytes=1))
    with pytest.raises(InputError, match="sorting .* takes tables"):
        list(game_chunks(p, sort=True))
    csv = tmp_path / "g.csv"
    csv.write_text("white,black,score\na,b,1\n")
    with pytest.raises(InputError, match="mixes PGN files and tables"):
        list(game_chunks([p, csv]))
    with pytest.raises(InputError, match="fixed tags .* drop --white"):
        list(game_chunks(p, white="w"))
    late = write(tmp_path, '[Date "2024.03.01"]\n[White "A"]\n[Black "B"]\n1-0\n'
                 '[Date "2024.01.01"]\n[White "B"]\n[Black "A"]\n0-1\n', "late.pgn")
    with pytest.raises(InputError, match="not in date order: those read after the first 1 "
                                         "start on 2024-01-01, before the last of those "
                                         r"\(2024-03-01\)"):
        list(game_chunks(late, chunk_rows=1, time="Date"))


def test_a_part_of_self_play_only_is_dropped_not_an_error(tmp_path):
    from fastrate.io.pgn_games import pgn_chunks

    text = ('[White "A"]\n[Black "A"]\n1-0\n[White "B"]\n[Black "B"]\n0-1\n'
            '[White "A"]\n[Black "B"]\n1-0\n')
    p = write(tmp_path, text)
    got, dropped = _joined(pgn_chunks(p, chunk_rows=1, drop_self_play=True))
    assert got == [("A", "B", 1.0)] == table(read_pgn(p, drop_self_play=True))
    assert dropped == [("a player plays himself", 2, "line 1 of games.pgn")]
    with pytest.raises(InputError, match="both White and Black at line 4 of b.pgn"):
        list(pgn_chunks(write(tmp_path, '[White "A"]\n[Black "B"]\n1-0\n'
                              '[White "B"]\n[Black "B"]\n0-1\n', "b.pgn"), chunk_rows=1))


def test_tcec_archive_in_parts_rates_as_a_whole():
    """The 22,233 TCEC games in parts of at most 1,000 (blocks sized by the bytes per
    game so far): the same games, and the same Elo ratings to the bit through the
    chunked ratings; the archive is not in date order, which parts with dates refuse."""
    import fastrate
    from fastrate.io.pgn_games import pgn_chunks
    from fastrate.streaming import rate_chunks

    path = TCEC / "tcec_standard.pgn.gz"
    if not path.exists():
        pytest.skip(f"TCEC data not found at {path}")
    whole = read_pgn(path)
    parts = list(pgn_chunks(path, chunk_rows=1000))
    assert len(parts) >= 23 and max(p.n_games for p in parts) == 1000
    got, dropped = _joined(parts)
    assert got == table(whole) and dropped == []
    chunked = rate_chunks(path, "elo", chunk_rows=1000)
    full = fastrate.elo.rate(whole)
    assert chunked.players.names.tolist() == full.players.names.tolist()
    np.testing.assert_array_equal(chunked.rating, full.rating)
    with pytest.raises(InputError, match="not in date order"):
        rate_chunks(path, "glicko2", chunk_rows=1000, time="Date", period="month")


def test_cli_rates_and_evaluates_a_pgn_file_in_chunks(tmp_path):
    from click.testing import CliRunner

    from fastrate.cli import main

    games = [(f"2024.01.0{i % 9 + 1}", "ABCD"[i % 4], "BCDA"[(i * 3) % 4],
              ["1-0", "0-1", "1/2-1/2", "*"][i % 4]) for i in range(40)]
    text = "".join(f'[Date "{d}"]\n[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n1. e4 {r}\n\n'
                   for d, w, b, r in sorted(games) if w != b)
    path = write(tmp_path, text)
    runner = CliRunner()
    for cmd in (["rate", str(path), "-s", "elo", "--format", "csv"],
                ["rate", str(path), "-s", "glicko2", "--period", "1w", "--format", "csv"],
                ["evaluate", str(path), "-s", "elo", "-s", "glicko", "--period", "1w"]):
        whole = runner.invoke(main, cmd + ["--chunk-rows", "0"])
        parts = runner.invoke(main, cmd + ["--chunk-rows", "3"])
        assert whole.exit_code == 0 and parts.exit_code == 0, (whole.output, parts.output)
        assert "skipped" in whole.output and "skipped" in parts.output
        body = [line for line in whole.output.splitlines() if "skipped" not in line]
        assert [line for line in parts.output.splitlines()
                if "skipped" not in line] == body


def test_parts_of_an_open_stream(tmp_path):
    """A binary stream (stdin, a pipe) in parts: the file's games; a compressed stream
    is refused in one line (a path is decompressed as it is read)."""
    import io

    from fastrate.io.pgn_games import pgn_chunks

    whole = read_pgn(write(tmp_path, BAD + GOOD, "s.pgn"))
    stream = io.BytesIO((BAD + GOOD).encode())
    stream.name = "stdin"
    got, dropped = _joined(pgn_chunks(stream, chunk_rows=2, block_bytes=40))
    assert got == table(whole)
    assert sorted(dropped) == sorted((r, c, w.replace("s.pgn", "stdin"))
                                     for r, c, w in whole.dropped)
    with pytest.raises(InputError, match="^<stream> is gzip-compressed; give the file's path"):
        list(pgn_chunks(io.BytesIO(gzip.compress(GOOD.encode()))))


def test_parts_of_a_truncated_or_corrupt_archive_fail_in_one_line(tmp_path):
    """A compressed PGN cut short (or corrupted) fails clearly when the parts reach the
    damage, as the whole read does, with the file's name."""
    from fastrate.io.pgn_games import pgn_chunks

    text = GOOD * 400
    data = gzip.compress(text.encode())
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(data[:len(data) // 2])
    for read in (lambda: read_pgn(cut), lambda: list(pgn_chunks(cut, chunk_rows=50,
                                                               block_bytes=2000))):
        with pytest.raises(InputError, match=r"^cannot read .*cut\.pgn\.gz: ") as e:
            read()
        assert "\n" not in str(e.value)
