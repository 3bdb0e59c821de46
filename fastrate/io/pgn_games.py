"""PGN (Portable Game Notation, chess) import: the games' players, results and dates as
:class:`fastrate.data.Games`, read at memory speed.

:func:`read_pgn` reads one file or several, plain or gzip-compressed (``.gz``). Per game
it takes the tags ``White``, ``Black`` and ``Result`` (and ``Date``, ``Event`` when
asked); the movetext (moves, ``{...}`` and ``;`` comments, ``(...)`` variations,
``$n`` NAGs, ``%`` escape lines) is skipped without being tokenised beyond finding the
game termination marker (``1-0``, ``0-1``, ``1/2-1/2``, ``*``).

How it is fast: the file's bytes are scanned once by a Numba kernel
(:func:`_scan_pgn`) that records, per game, the byte ranges of the tag values it needs,
the Result tag's value and the movetext's termination marker. Names are then copied
(unescaped) into one Arrow binary array by a second kernel and interned with Arrow's
``dictionary_encode`` (ids in order of first appearance, white before black within a
game); only the distinct names become Python strings (UTF-8, else Latin-1, the PGN
standard's own character set).

Game boundaries (PGN standard section 8): a game is a tag-pair section followed by
movetext. A ``[`` outside comments after movetext starts the next game, and so does a
``White``/``Black``/``Result`` tag that the current game already has (a game with a tag
section and no movetext); a termination marker ends the game, so movetext with no tags
after it is a game of its own (one without players).

Which games are kept: a game needs a ``White`` and a ``Black`` name (not empty, not
``"?"``) and a result. The result is the Result tag's; without a Result tag, the
movetext's termination marker. Games that are unfinished (``*``), have no result, an
unknown Result value, a Result tag that contradicts the movetext marker, a malformed tag
pair, an unclosed ``{`` comment, or (with ``date=True``) no usable date are left out and
counted in :attr:`Games.dropped` as ``(reason, count, "line L of FILE")`` (the first such
game's first line), never silently.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import Source
from fastrate.data.games import merge_dropped
from fastrate.errors import InputError

__all__ = ["read_pgn", "parse_pgn", "pgn_chunks", "read_synonyms", "REASONS"]

# ----------------------------------------------------------------------------------
# the scanning kernel

#: int64 fields recorded per game (one row of ``_K`` in a flat 1-D array)
_K = 15
(_START, _WS, _WE, _BS, _BE, _RES, _MRES, _DS, _DE, _ES, _EE, _RS, _RE, _BAD,
 _WHY) = range(_K)

#: byte classes: 0 movetext, 1 ``%``, 2 whitespace, 3 ``{``, 4 ``;``, 5 ``[``
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[ord("%")] = 1
_CLASS[[9, 10, 11, 12, 13, 32]] = 2
_CLASS[ord("{")] = 3
_CLASS[ord(";")] = 4
_CLASS[ord("[")] = 5

#: result codes (2 x White's score); 3 = ``*``, 4 = any other Result value, -1 = none
_UNFINISHED = 3
_OTHER = 4

#: why a game is malformed (``_WHY``)
_BAD_TAG = 1
_OPEN_COMMENT = 2


@inline_kernel
def _is_name_char(c: int) -> bool:
    return ((c >= 65 and c <= 90) or (c >= 97 and c <= 122) or (c >= 48 and c <= 57)
            or c == 95)


@inline_kernel
def _tag_field(buf: np.ndarray, s: int, n: int) -> int:
    """The field (_WS, _BS, _RES, _DS, _ES, _RS) of tag name ``buf[s:s+n]``; -1 for others."""
    if n == 5:
        c0, c1, c2, c3, c4 = buf[s], buf[s + 1], buf[s + 2], buf[s + 3], buf[s + 4]
        if c0 == 87 and c1 == 104 and c2 == 105 and c3 == 116 and c4 == 101:  # White
            return _WS
        if c0 == 66 and c1 == 108 and c2 == 97 and c3 == 99 and c4 == 107:  # Black
            return _BS
        if c0 == 69 and c1 == 118 and c2 == 101 and c3 == 110 and c4 == 116:  # Event
            return _ES
        if c0 == 82 and c1 == 111 and c2 == 117 and c3 == 110 and c4 == 100:  # Round
            return _RS
        return -1
    if n == 6:
        if (buf[s] == 82 and buf[s + 1] == 101 and buf[s + 2] == 115 and buf[s + 3] == 117
                and buf[s + 4] == 108 and buf[s + 5] == 116):  # Result
            return _RES
        return -1
    if n == 4:
        if buf[s] == 68 and buf[s + 1] == 97 and buf[s + 2] == 116 and buf[s + 3] == 101:
            return _DS  # Date
    return -1


@inline_kernel
def _result_code(buf: np.ndarray, s: int, e: int) -> int:
    """2 (``1-0``), 0 (``0-1``), 1 (``1/2-1/2``), 3 (``*``) or 4 (anything else)."""
    n = e - s
    if n == 1 and buf[s] == 42:
        return _UNFINISHED
    if n == 3 and buf[s + 1] == 45:
        if buf[s] == 49 and buf[s + 2] == 48:
            return 2
        if buf[s] == 48 and buf[s + 2] == 49:
            return 0
        return _OTHER
    if (n == 7 and buf[s] == 49 and buf[s + 1] == 47 and buf[s + 2] == 50 and buf[s + 3] == 45
            and buf[s + 4] == 49 and buf[s + 5] == 47 and buf[s + 6] == 50):
        return 1
    return _OTHER


@inline_kernel
def _open_record(out: np.ndarray, g: int, start: int) -> None:
    """Game ``g``'s row of ``out``: every field unset (-1), starting at byte ``start``."""
    for f in range(_K):
        out[g * _K + f] = -1
    out[g * _K + _START] = start


@kernel
def _scan_pgn(buf: np.ndarray, pos: int, cls: np.ndarray, out: np.ndarray,
              info: np.ndarray) -> None:
    """Scan ``buf[pos:]`` game by game, filling ``_K`` fields per game into ``out``.

    Stops before the game that would not fit (``out`` holds ``len(out) // _K`` games):
    ``info[0]`` = games written, ``info[1]`` = the byte where the scan stopped (the start
    of the next game, or ``len(buf)``), so the caller can continue from there with a
    new ``out``. Ranges are ``[start, end)`` byte offsets of tag values (surrounding
    spaces trimmed), -1 when the tag is absent.
    """
    n = buf.shape[0]
    cap = out.shape[0] // _K
    g = -1          # the open game
    state = 0       # 0 between games, 1 in a tag section, 2 in movetext
    i = pos
    while i < n:
        k = cls[buf[i]]
        if k == 2:
            i += 1
            continue
        if k == 4 or (k == 1 and (i == 0 or buf[i - 1] == 10)):
            # ';' comment or '%' escape line: to the end of the line
            while i < n and buf[i] != 10:
                i += 1
            continue
        if k == 3:
            j = i + 1
            while j < n and buf[j] != 125:
                j += 1
            if j >= n and g >= 0 and state != 0 and out[g * _K + _BAD] < 0:
                out[g * _K + _BAD] = i
                out[g * _K + _WHY] = _OPEN_COMMENT
            i = j + 1
            continue
        if k == 5:
            # a tag pair: [ name "value" ]
            j = i + 1
            while j < n and (buf[j] == 32 or buf[j] == 9):
                j += 1
            ns = j
            while j < n and _is_name_char(buf[j]):
                j += 1
            ne = j
            while j < n and (buf[j] == 32 or buf[j] == 9):
                j += 1
            ok = ne > ns and j < n and buf[j] == 34
            vs = ve = 0
            if ok:
                j += 1
                vs = j
                while j < n and buf[j] != 34 and buf[j] != 10:
                    if buf[j] == 92 and j + 1 < n and buf[j + 1] != 10:
                        j += 1
                    j += 1
                ve = j
                ok = j < n and buf[j] == 34
                j += 1
                while j < n and (buf[j] == 32 or buf[j] == 9 or buf[j] == 13):
                    j += 1
                ok = ok and j < n and buf[j] == 93
                j += 1
            field = _tag_field(buf, ns, ne - ns) if ok else -1
            new = state != 1
            if not new and (field == _WS or field == _BS or field == _RES):
                new = out[g * _K + field] >= 0
            if new:
                if g + 1 == cap:
                    info[0] = g + 1
                    info[1] = i
                    return
                g += 1
                _open_record(out, g, i)
                state = 1
            if not ok:
                if out[g * _K + _BAD] < 0:
                    out[g * _K + _BAD] = i
                    out[g * _K + _WHY] = _BAD_TAG
                j = i
                while j < n and buf[j] != 10:
                    j += 1
            elif field >= 0 and out[g * _K + field] < 0:
                while vs < ve and (buf[vs] == 32 or buf[vs] == 9):
                    vs += 1
                while ve > vs and (buf[ve - 1] == 32 or buf[ve - 1] == 9):
                    ve -= 1
                if field == _RES:
                    out[g * _K + _RES] = _result_code(buf, vs, ve)
                else:
                    out[g * _K + field] = vs
                    out[g * _K + field + 1] = ve
            i = j
            continue
        # a movetext token
        if state == 0:
            if g + 1 == cap:
                info[0] = g + 1
                info[1] = i
                return
            g += 1
            _open_record(out, g, i)
        state = 2
        s = i
        while i < n and cls[buf[i]] < 2:
            i += 1
        c = buf[s]
        if c == 42 or c == 48 or c == 49:
            code = _result_code(buf, s, i)
            if code != _OTHER:
                out[g * _K + _MRES] = code
                state = 0
    info[0] = g + 1
    info[1] = n


@kernel
def _gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, data: np.ndarray,
            offsets: np.ndarray) -> None:
    """Copy the byte ranges ``buf[starts[i]:ends[i]]`` one after the other into ``data``
    with the PGN string escapes ``\\"`` and ``\\\\`` undone; ``offsets`` (len + 1) gets
    where each one starts (an Arrow binary array's layout)."""
    o = 0
    offsets[0] = 0
    for r in range(starts.shape[0]):
        j = starts[r]
        e = ends[r]
        while j < e:
            c = buf[j]
            if c == 92 and j + 1 < e:
                j += 1
                c = buf[j]
            data[o] = c
            o += 1
            j += 1
        offsets[r + 1] = o


@inline_kernel
def _two_digits(buf: np.ndarray, s: int) -> int:
    """The number in ``buf[s:s+2]``; 0 for ``??``, -1 when malformed."""
    a, b = int(buf[s]), int(buf[s + 1])
    if a == 63 and b == 63:
        return 0
    if a < 48 or a > 57 or b < 48 or b > 57:
        return -1
    return (a - 48) * 10 + (b - 48)


@kernel
def _parse_dates(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 ymd: np.ndarray) -> None:
    """Parse ``YYYY.MM.DD`` values (``.``, ``-`` or ``/`` between the parts) into
    ``ymd[3*i: 3*i+3]`` = year, month, day. A ``??`` month or day is 0; the year is 0
    when unknown (``????``, or no Date tag: ``starts[i] < 0``) and -1 when the value is
    malformed."""
    for r in range(starts.shape[0]):
        s = starts[r]
        y = 0
        m = 0
        d = 0
        if s >= 0:
            if ends[r] - s != 10:
                y = -1
            else:
                sep1 = buf[s + 4]
                sep2 = buf[s + 7]
                m = _two_digits(buf, s + 5)
                d = _two_digits(buf, s + 8)
                if (sep1 != 46 and sep1 != 45 and sep1 != 47) or sep2 != sep1 or m < 0 or d < 0:
                    y = -1
                else:
                    unknown = 0
                    for q in range(4):
                        c = int(buf[s + q])
                        if c == 63:
                            unknown += 1
                        elif c >= 48 and c <= 57:
                            y = y * 10 + (c - 48)
                        else:
                            y = -1
                            break
                    if y >= 0 and unknown == 4:
                        y = 0
                    elif y >= 0 and unknown > 0:
                        y = -1
        ymd[3 * r] = y
        ymd[3 * r + 1] = m
        ymd[3 * r + 2] = d


@kernel
def _classify(buf: np.ndarray, rows: np.ndarray, why: np.ndarray) -> None:
    """Why each game is left out (0: kept; else 1 + the index in :data:`REASONS` of the
    first reason that applies, dates excluded)."""
    for g in range(why.shape[0]):
        r = g * _K
        res = rows[r + _RES]
        mres = rows[r + _MRES]
        result = res if res >= 0 else mres
        w = 0
        if rows[r + _WHY] == _BAD_TAG:
            w = 1
        elif rows[r + _WHY] == _OPEN_COMMENT:
            w = 2
        elif (_unknown_name(buf, rows[r + _WS], rows[r + _WE])
              or _unknown_name(buf, rows[r + _BS], rows[r + _BE])):
            w = 3
        elif result == _UNFINISHED:
            w = 4
        elif result < 0:
            w = 5
        elif result == _OTHER:
            w = 6
        elif res >= 0 and mres >= 0 and res != mres:
            w = 7
        why[g] = w


@inline_kernel
def _unknown_name(buf: np.ndarray, s: int, e: int) -> bool:
    return s < 0 or e <= s or (e == s + 1 and buf[s] == 63)


@kernel
def _pick(rows: np.ndarray, keep: np.ndarray, starts: np.ndarray, ends: np.ndarray,
          score: np.ndarray, game_start: np.ndarray) -> None:
    """The kept games' name ranges (White and Black interleaved), scores and first bytes."""
    for i in range(keep.shape[0]):
        r = keep[i] * _K
        res = rows[r + _RES]
        if res < 0:
            res = rows[r + _MRES]
        score[i] = 0.5 * res
        starts[2 * i] = rows[r + _WS]
        ends[2 * i] = rows[r + _WE]
        starts[2 * i + 1] = rows[r + _BS]
        ends[2 * i + 1] = rows[r + _BE]
        game_start[i] = rows[r + _START]


# ----------------------------------------------------------------------------------
# reading files

#: why games are left out, in order of precedence (a game is counted once, under the
#: first reason that applies); the wording follows "skipped N rows where ..."
REASONS = (
    "a tag pair is malformed",
    "a { comment is not closed",
    'White or Black is missing, empty or "?"',
    'the result is "*" (unfinished)',
    "the game has no result (no Result tag, no termination marker)",
    "the Result tag is not 1-0, 0-1 or 1/2-1/2",
    "the Result tag and the movetext's result differ",
    "the Date is missing or its year unknown",
    "the Date is malformed",
)


def is_pgn(path: str | os.PathLike) -> bool:
    """Whether the file's name says PGN: ``.pgn``, also compressed (``games.pgn.zst``)."""
    from fastrate.io.tables import without_compression

    return without_compression(path).endswith(".pgn")


def _read_bytes(path: Path) -> np.ndarray:
    """The file's bytes (decompressed when its first bytes say gzip, bzip2, zstd or lz4
    frame: lichess's archives are ``.pgn.zst``) as a writable uint8 array."""
    codec = None
    try:
        codec = _pgn_codec(path)
        with _open_pgn(path, codec) as f:
            if codec is None:  # (read straight into the array)
                arr = np.empty(os.fstat(f.fileno()).st_size, dtype=np.uint8)
                return arr[:f.readinto(memoryview(arr))]
            data = f.read()
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except (gzip.BadGzipFile, EOFError, OSError, ValueError) as e:  # (Arrow's: ValueError)
        how = f" as {codec}" if codec not in (None, "gzip") else ""
        raise InputError(f"cannot read {path}{how}: {e}") from None
    arr = np.empty(len(data), dtype=np.uint8)
    arr[:] = np.frombuffer(data, dtype=np.uint8)
    return arr


def _pgn_codec(path: Path) -> str | None:
    """The compression a PGN file's first bytes say (gzip, bzip2, zstd, lz4 frame; its
    name does not count), or None."""
    from fastrate.io.tables import compression_of_head

    with open(path, "rb") as f:
        return compression_of_head(f.read(4))


def _open_pgn(path: Path, codec: str | None) -> Any:
    """``path`` opened for reading, decompressed by ``codec`` (:func:`_pgn_codec`)."""
    if codec is None:
        return open(path, "rb")
    if codec == "gzip":
        return gzip.open(path, "rb")
    import pyarrow as pa

    return pa.input_stream(str(path), compression=codec)


def _scan(buf: np.ndarray) -> np.ndarray:
    """All games of ``buf`` as a flat int64 array of ``_K`` fields per game (the kernel,
    in chunks). The first chunk has room for a game per 20 bytes: more than any real
    file needs, and untouched memory is never committed, so one chunk is the rule."""
    pos = 3 if buf[:3].tobytes() == b"\xef\xbb\xbf" else 0
    cap = buf.shape[0] // 20 + 64
    parts = []
    info = np.zeros(2, dtype=np.int64)
    while True:
        out = np.empty(cap * _K, dtype=np.int64)
        _scan_pgn(buf, pos, _CLASS, out, info)
        got, pos = int(info[0]), int(info[1])
        parts.append(out[:got * _K])
        if pos >= buf.shape[0]:
            break
        cap *= 2
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _ranges_to_arrow(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """The byte ranges as one Arrow binary array (escapes undone)."""
    import pyarrow as pa

    data = np.empty(max(int((ends - starts).sum()), 1), dtype=np.uint8)
    offsets = np.empty(starts.shape[0] + 1, dtype=np.int64)
    _gather(buf, starts, ends, data, offsets)
    return pa.Array.from_buffers(pa.large_binary(), starts.shape[0],
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _decode(names: list[bytes]) -> list[str]:
    out = []
    for b in names:
        try:
            out.append(b.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(b.decode("latin-1"))
    return out


def _intern(binary) -> tuple[np.ndarray, list[str]]:
    """(ids in first-appearance order, names) of an Arrow binary array."""
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(binary)
    ids = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return ids, _decode(enc.dictionary.to_pylist())


def _no_games(name: str) -> InputError:
    return InputError(f"no games in {name}: the file is empty or holds no PGN tag pairs or "
                      "moves")


def _none_valid(name: str, n: int, dropped: Sequence[tuple[str, int, str]]) -> InputError:
    """The error for a file all of whose ``n`` games are left out (``dropped``, listed
    by reason in :data:`REASONS` order)."""
    first = "; ".join(f"{c:,} where {r} (first at {w})"
                      for r, c, w in sorted(dropped, key=lambda d: REASONS.index(d[0])))
    return InputError(f"no valid games in {name}: all {n:,} games are skipped: {first}")


def _line(buf: np.ndarray, offset: int, line0: int = 1) -> int:
    """The line of byte ``offset`` of ``buf``, whose first byte is on line ``line0``."""
    return int(np.count_nonzero(buf[:offset] == 10)) + line0


class _File:
    """One file's games (the kept ones) and the reasons it dropped others.

    A block of a file read in parts (:func:`pgn_chunks`) passes its scan ``flat``, the
    line ``line0`` its first byte is on and ``whole=False``: then a block without games,
    or with none kept, is not an error (``n`` 0; the caller judges the whole file)."""

    def __init__(self, name: str, buf: np.ndarray, *, date: bool, event: bool,
                 flat: np.ndarray | None = None, line0: int = 1, whole: bool = True):
        self.name = name
        self.line0 = line0
        self.buf: np.ndarray | None = buf
        flat = _scan(buf) if flat is None else flat
        n = flat.shape[0] // _K
        self.found = n
        self.n = 0
        self.dropped: list[tuple[str, int, str]] = []
        if n == 0:
            if not whole:
                return
            raise _no_games(name)
        why = np.empty(n, dtype=np.int64)
        _classify(buf, flat, why)
        rows = flat.reshape(n, _K)
        ymd = None
        if date:
            ymd = np.empty(3 * n, dtype=np.int64)
            _parse_dates(buf, np.ascontiguousarray(rows[:, _DS]),
                         np.ascontiguousarray(rows[:, _DE]), ymd)
            ymd = ymd.reshape(n, 3)
            why[(why == 0) & (ymd[:, 0] == 0)] = 8
            why[(why == 0) & _bad_dates(ymd)] = 9
        counts = np.bincount(why, minlength=len(REASONS) + 1)
        for r in np.flatnonzero(counts[1:]).tolist():
            g = int(np.argmax(why == r + 1))
            off = int(rows[g, _BAD]) if r < 2 else int(rows[g, _START])
            self.dropped.append((REASONS[r], int(counts[r + 1]),
                                 f"line {_line(buf, off, line0)} of {self.name}"))
        keep = np.flatnonzero(why == 0) if counts[0] < n else np.arange(n, dtype=np.int64)
        self.n = int(keep.shape[0])
        if self.n == 0:
            if not whole:
                return
            raise _none_valid(self.name, n, self.dropped)
        starts = np.empty(2 * self.n, dtype=np.int64)
        ends = np.empty(2 * self.n, dtype=np.int64)
        self.score = np.empty(self.n, dtype=np.float64)
        self.game_start = np.empty(self.n, dtype=np.int64)
        _pick(flat, keep, starts, ends, self.score, self.game_start)
        self.names = _ranges_to_arrow(buf, starts, ends)
        del starts, ends
        self.time = None
        if ymd is not None:
            k = ymd[keep]
            months = (k[:, 0] - 1970) * 12 + np.maximum(k[:, 1], 1) - 1
            self.time = (months.astype("datetime64[M]").astype("datetime64[D]")
                         + (np.maximum(k[:, 2], 1) - 1)).astype("datetime64[ns]")
        self.event = None
        if event:
            es, ee = rows[keep, _ES], rows[keep, _EE]
            ee[es < 0] = 0
            es[es < 0] = 0
            self.event = _ranges_to_arrow(buf, es, ee)

    def where(self, i: int) -> str:
        """Line and file of kept game ``i``."""
        assert self.buf is not None
        return f"line {_line(self.buf, int(self.game_start[i]), self.line0)} of {self.name}"


def _bad_dates(ymd: np.ndarray) -> np.ndarray:
    """Malformed dates and impossible ones (month > 12, day past the month's end)."""
    y, m, d = ymd[:, 0], ymd[:, 1], ymd[:, 2]
    bad = (y < 0) | (m > 12) | (d > 31)
    ok = ~bad & (y > 0)
    mm = np.where(ok, (y - 1970) * 12 + np.maximum(m, 1) - 1, 0)
    first = mm.astype("datetime64[M]").astype("datetime64[D]")
    length = ((mm + 1).astype("datetime64[M]").astype("datetime64[D]") - first).astype(np.int64)
    return bad | (ok & (d > length))


def read_synonyms(path: str | os.PathLike) -> dict[str, str]:
    """An Ordo-style synonyms file (``ordo -y``): CSV lines ``name,alias1,alias2,...``;
    returns ``{alias: name}``. Quoted fields may hold commas."""
    out: dict[str, str] = {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        for n, row in enumerate(csv.reader(f), start=1):
            row = [c.strip() for c in row]
            if not row or not any(row):
                continue
            if not row[0]:
                raise InputError(f"line {n} of {Path(path).name}: the first field (the name "
                                 "the aliases stand for) is empty")
            for alias in row[1:]:
                if alias and alias != row[0]:
                    if out.get(alias, row[0]) != row[0]:
                        raise InputError(f"line {n} of {Path(path).name}: alias {alias!r} "
                                         f"already stands for {out[alias]!r}")
                    out[alias] = row[0]
    return out


def _synonyms(names: Mapping[str, str] | str | os.PathLike | None) -> dict[str, str] | None:
    if names is None:
        return None
    if isinstance(names, Mapping):
        return {str(k): str(v) for k, v in names.items()}
    if isinstance(names, (str, os.PathLike)):
        return read_synonyms(names)
    raise InputError(f"names must be a mapping alias -> name or a synonyms CSV file; got "
                     f"{type(names).__name__}")


def parse_pgn(data: bytes, *, name: str = "<pgn>",
              names: Mapping[str, str] | str | os.PathLike | None = None, date: bool = False,
              period: str | float | None = None, drop_self_play: bool = False):
    """:func:`read_pgn` on PGN text already in memory (``bytes``, or ``str`` encoded as
    UTF-8); ``name`` stands for the file in messages and ``games.dropped``."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    buf = np.empty(len(raw), dtype=np.uint8)
    buf[:] = np.frombuffer(raw, dtype=np.uint8)
    return _games([(name, buf)], names=names, date=date, period=period,
                  drop_self_play=drop_self_play)


def read_pgn(paths: str | os.PathLike | Sequence[str | os.PathLike], *,
             names: Mapping[str, str] | str | os.PathLike | None = None,
             date: bool = False, period: str | float | None = None,
             drop_self_play: bool = False):
    """Read chess games from PGN files (plain, or compressed with gzip, zstd, bzip2 or
    lz4 frame: told by the first bytes) as :class:`fastrate.Games`.

    Parameters
    ----------
    paths
        A file or a list of files, read in order (games keep the files' order, and their
        order within each file, unless ``date=True`` sorts them by date).
    names
        Player-name synonyms, as Ordo's ``-y``: a mapping ``{alias: name}`` or a CSV file
        whose lines are ``name,alias1,alias2,...`` (:func:`read_synonyms`). Names are
        compared exactly (after trimming spaces inside the quotes).
    date
        Read the ``Date`` tag (``YYYY.MM.DD``) into ``games.time``. An unknown month or
        day (``??``) counts as the first (``2024.??.??`` is 2024-01-01); a game with no
        Date tag or an unknown year (``????.??.??``), or a malformed or impossible date,
        is left out and counted in ``games.dropped``. Games are then sorted by date
        (stably: games of one day keep the file order; ``games.order`` maps back).
    period
        ``"event"``: one rating period per ``Event`` tag value, numbered in order of
        first appearance (games without an Event tag share the period of ``""``); or a
        period length for the dates (``"1w"``, ``"month"``; needs ``date=True``).
    drop_self_play
        A game whose White and Black are the same player (after synonyms) is an error;
        with ``True`` it is left out and counted in ``games.dropped``.

    Games without a usable result or players are counted, never silently lost: see
    :data:`REASONS` and ``games.dropped``. A file with no games, or none that can be
    rated, is an :class:`~fastrate.errors.InputError` naming it.
    """
    single = isinstance(paths, (str, os.PathLike))
    files = [Path(paths)] if single else [Path(p) for p in paths]  # type: ignore[union-attr]
    if not files:
        raise InputError("no PGN files given")
    return _games([(p.name, p) for p in files], names=names, date=date, period=period,
                  drop_self_play=drop_self_play)


#: the most PGN text read into memory at a time by :func:`pgn_chunks` (a chunk holds the
#: games of one such block), and the least
PGN_BLOCK_MAX = 256 << 20
PGN_BLOCK_MIN = 64 << 10
PGN_FIRST_BLOCK = 8 << 20
#: the bytes a game takes, guessed before the first block is read (lichess's games
#: with their moves run to about 700-1,000; after the first block, measured)
_GUESS_GAME_BYTES = 1000


def pgn_chunks(paths: str | os.PathLike | Sequence[str | os.PathLike] | Any, *,
               chunk_rows: int = 4_000_000,
               names: Mapping[str, str] | str | os.PathLike | None = None,
               date: bool = False, period: str | float | None = None,
               drop_self_play: bool = False, block_bytes: int | None = None):
    """:func:`read_pgn`'s games a part at a time, for files too large for memory (a
    month of lichess games is 100 million): the same games, in the same order, as
    :class:`fastrate.Games` of at most ``chunk_rows`` games each, and at most
    :data:`PGN_BLOCK_MAX` bytes of (decompressed) PGN text read in at a time.

    Each part's players are numbered in the part (its own ``players``, in order of
    first appearance): :func:`fastrate.streaming.game_chunks` and the chunked ratings
    number them across parts. A part's ``dropped`` holds the games left out in it (a
    stretch of the file where every game is left out reports them with the next part,
    or the last). With ``date=True`` each part is sorted by date, as :func:`read_pgn`
    sorts the whole file, so the file must be in date order for the parts to join up
    (the chunked ratings check it). ``period="event"`` (text labels over the whole file)
    needs the whole file: read it with :func:`read_pgn`. ``block_bytes``: the first
    block's size (default: ``chunk_rows`` games of about 1,000 bytes); later blocks
    are sized by the bytes per game measured so far.

    ``paths`` may also be a binary stream open for reading (``sys.stdin.buffer``, a
    pipe from ``zstd -dc``; uncompressed PGN), read to its end.

    A file is cut between games: the scan of a block finds the start of its last game,
    which is carried over to the next block unread (a block holding less than one game
    is read on with twice the size), so every game is scanned whole, as in one piece.
    """
    if chunk_rows < 1:
        raise InputError(f"chunk_rows must be at least 1; got {chunk_rows}")
    if period == "event":
        raise InputError("period='event' numbers the Event tags over the whole file, which "
                         "a part cannot know: read the PGN whole (read_pgn; --chunk-rows 0), "
                         "or use a period length with the dates")
    _check_period(period, date)
    if hasattr(paths, "read"):  # a binary stream (already open: stdin, a socket ...)
        files: list[Any] = [paths]
    else:
        single = isinstance(paths, (str, os.PathLike))
        files = [Path(paths)] if single else [Path(p) for p in paths]  # type: ignore
    if not files:
        raise InputError("no PGN files given")
    syn = _synonyms(names)
    held = None
    pending: list[tuple[str, int, str]] = []
    for path in files:
        for block in _pgn_blocks(path, chunk_rows, date, block_bytes):
            if block.n == 0:
                pending.extend(block.dropped)
                continue
            try:
                games = _games_of([block], syn, date=date, period=period,
                                  drop_self_play=drop_self_play)
            except _NothingKept as e:  # (every game of the part against himself)
                pending.extend(e.dropped)
                continue
            if held is not None:
                yield held
            held = _with_dropped(games, before=pending)  # (the drops in file order)
            pending = []
    if held is None:
        raise InputError("no valid games: every game is a player against himself")
    yield _with_dropped(held, after=pending)


def pgn_options(columns: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`read_pgn`'s options from a games reader's column options (the command
    line's, :func:`fastrate.streaming.game_chunks`'): a PGN file has fixed tags, so
    only ``time`` (any value: read the Date tag), ``period``, ``drop_self_play``,
    ``names`` (synonyms) and ``date`` apply; anything else is refused in one line."""
    if "encoding" in columns:
        raise InputError("--encoding: not an option for a PGN file, which is read as UTF-8, "
                         "a name that is not UTF-8 as Latin-1; drop --encoding")
    extra = set(columns) - {"time", "period", "drop_self_play", "names", "date"}
    if extra:
        raise InputError(f"a PGN file has fixed tags (White, Black, Result, Date); drop "
                         f"--{', --'.join(sorted(x.replace('_', '-') for x in extra))}")
    period = columns.get("period")
    return {"date": bool(columns.get("date")) or "time" in columns
            or period not in (None, "event"),
            "period": period, "drop_self_play": bool(columns.get("drop_self_play")),
            "names": columns.get("names")}


def _with_dropped(games: Any, before: Sequence[tuple[str, int, str]] = (),
                  after: Sequence[tuple[str, int, str]] = ()) -> Any:
    """``games`` with the drops of stretches of the file before and after its own."""
    if not before and not after:
        return games
    return dataclasses.replace(games, dropped=tuple(merge_dropped([*before, *games.dropped,
                                                                   *after])))


def _pgn_blocks(path: Any, chunk_rows: int, date: bool, block_bytes: int | None):
    """The games of ``path`` (a file, or an open binary stream) as scanned blocks
    (:class:`_File`, ``whole=False``) of about ``chunk_rows`` games (see
    :func:`pgn_chunks`); refuses a file without games, or with none that can be rated,
    as :func:`read_pgn` does."""
    # a first block of at most 8 MB measures the bytes a game takes; later blocks hold
    # about chunk_rows games (a guess of 1,000 bytes a game held 17 times too many
    # games of a result-only file, and its scan 120 bytes a game)
    want = block_bytes or min(chunk_rows * _GUESS_GAME_BYTES, PGN_FIRST_BLOCK)
    want = min(max(int(want), 1), PGN_BLOCK_MAX)
    carry = np.empty(0, dtype=np.uint8)
    line0, found, kept, done, eof = 1, 0, 0, 0, False
    dropped: list[tuple[str, int, str]] = []
    if hasattr(path, "read"):
        path = _OpenStream(path)
    check_plain = isinstance(path, _OpenStream)  # (an open stream: its first bytes)
    with _pgn_stream(path) as stream:
        while True:
            data = b""
            if not eof and carry.shape[0] < want:  # (the block topped up to want bytes)
                try:
                    data = stream.read(want - carry.shape[0])
                except (gzip.BadGzipFile, EOFError, OSError) as e:
                    raise InputError(f"cannot read {path}: {e}") from None
                eof = not data
                if check_plain:
                    _check_plain(data, path.name)
                    check_plain = False
            buf = np.empty(carry.shape[0] + len(data), dtype=np.uint8)
            buf[:carry.shape[0]] = carry
            buf[carry.shape[0]:] = np.frombuffer(data, dtype=np.uint8)
            del data
            if buf.shape[0] == 0:
                break
            flat = _scan(buf)
            n = flat.shape[0] // _K
            if not eof and n <= 1:  # at most one game, perhaps cut short: read on
                carry = buf
                want = 2 * max(want, buf.shape[0])
                continue
            # the games surely whole (before the end of the file, the last one may be
            # cut short and is carried over), in parts of at most chunk_rows games
            whole_games = n if eof else n - 1
            lo = 0
            for i in range(0, max(whole_games, 1), chunk_rows):
                j = min(i + chunk_rows, whole_games)
                hi = buf.shape[0] if j == n else int(flat[j * _K + _START])
                block = _File(path.name, buf[lo:hi], date=date, event=False,
                              flat=_rebased(flat[i * _K:j * _K], lo), line0=line0,
                              whole=False)
                found += block.found
                kept += block.n
                dropped.extend(block.dropped)
                if block.found:
                    yield block
                del block
                line0 += int(np.count_nonzero(buf[lo:hi] == 10))
                done += hi - lo
                lo = hi
            if lo == buf.shape[0]:  # (only at the end of the file)
                break
            carry = buf[lo:].copy()
            del buf, flat
            want = min(max(int(chunk_rows * done / max(found, 1)), PGN_BLOCK_MIN),
                       PGN_BLOCK_MAX)
    if found == 0:
        raise _no_games(path.name)
    if kept == 0:
        raise _none_valid(path.name, found, merge_dropped(dropped))


#: 1 for the fields of a scanned game that are byte offsets (-1: none), 0 for codes
_IS_OFFSET = np.zeros(_K, dtype=np.int64)
_IS_OFFSET[[_START, _WS, _WE, _BS, _BE, _DS, _DE, _ES, _EE, _RS, _RE, _BAD]] = 1


@kernel
def _rebase(flat: np.ndarray, base: int, is_offset: np.ndarray, out: np.ndarray) -> None:
    """``out`` = the scanned games ``flat`` with their byte offsets counted from ``base``."""
    k = is_offset.shape[0]
    for g in range(flat.shape[0] // k):
        for f in range(k):
            v = flat[g * k + f]
            out[g * k + f] = v - base if is_offset[f] == 1 and v >= 0 else v


def _rebased(flat: np.ndarray, base: int) -> np.ndarray:
    """Scanned games (``_K`` fields each) with their byte offsets counted from ``base``."""
    if base == 0:
        return flat
    out = np.empty_like(flat)
    _rebase(flat, base, _IS_OFFSET, out)
    return out


def _check_plain(head: bytes, name: str) -> None:
    """Refuse a stream that starts as a compressed file does (its path is decompressed;
    an open stream is read as it is)."""
    from fastrate.io.tables import compression_of_head

    codec = compression_of_head(head[:4])
    if codec is not None:
        raise InputError(f"{name} is {codec}-compressed; give the file's path (decompressed "
                         "as it is read) or a decompressed stream")


class _OpenStream:
    """A binary stream given to :func:`pgn_chunks`: read as it is (not closed), named by
    its ``name`` (``<stream>`` without one) in messages."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.name = Path(str(getattr(stream, "name", "<stream>"))).name

    def __enter__(self) -> Any:
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        return None


def _pgn_stream(path: Any) -> Any:
    """``path`` opened for reading, decompressed as its first bytes say
    (:func:`_open_pgn`); a stream already open as it is."""
    if isinstance(path, _OpenStream):
        return path
    try:
        return _open_pgn(path, _pgn_codec(path))
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except OSError as e:
        raise InputError(f"cannot read {path}: {e}") from None


def _games(inputs: list[tuple[str, Any]], *, names: Any, date: bool, period: Any,
           drop_self_play: bool):
    """Games from ``(name, path or uint8 buffer)`` inputs, read one after the other."""
    _check_period(period, date)
    syn = _synonyms(names)
    read = [_File(name, _read_bytes(x) if isinstance(x, Path) else x, date=date,
                  event=period == "event") for name, x in inputs]
    return _games_of(read, syn, date=date, period=period, drop_self_play=drop_self_play)


class _NothingKept(InputError):
    """Every game left out (a part of a file read in parts may be: the rest may not)."""

    def __init__(self, message: str, dropped: list[tuple[str, int, str]]):
        super().__init__(message)
        self.dropped = dropped


def _check_period(period: Any, date: bool) -> None:
    if period is not None and period != "event" and not date:
        raise InputError(f"period={period!r} is a length of time, which needs the dates: "
                         "give date=True (or period='event')")


def _games_of(read: list[_File], syn: dict[str, str] | None, *, date: bool, period: Any,
              drop_self_play: bool):
    """The :class:`fastrate.Games` of files (or blocks) already scanned, in order, their
    players numbered in order of first appearance (after the synonyms ``syn``)."""
    import pyarrow as pa

    from fastrate.data import Games
    from fastrate.data.players import PlayerIndex

    binary = read[0].names if len(read) == 1 else pa.concat_arrays([f.names for f in read])
    ids, players = _intern(binary)
    del binary
    if syn:
        canon: dict[str, int] = {}
        remap = np.empty(len(players), dtype=np.int64)
        for i, p in enumerate(players):
            remap[i] = canon.setdefault(syn.get(p, p), len(canon))
        ids = remap[ids]
        players = list(canon)
    white = np.ascontiguousarray(ids[0::2])
    black = np.ascontiguousarray(ids[1::2])
    score = np.concatenate([f.score for f in read])
    dropped = merge_dropped([d for f in read for d in f.dropped])

    same = white == black
    if same.any():
        g = int(np.argmax(same))
        fi = int(np.searchsorted(np.cumsum([f.n for f in read]), g, side="right"))
        where = read[fi].where(g - sum(f.n for f in read[:fi]))
        if not drop_self_play:
            raise InputError(f"a player cannot play himself: {players[white[g]]!r} is both "
                             f"White and Black at {where}; fix the names or synonyms, or "
                             "pass drop_self_play=True")
        dropped.append(("a player plays himself", int(same.sum()), where))
    for f in read:
        f.buf = None
    keep = None if not same.any() else np.flatnonzero(~same)

    time = None
    if date:
        time = np.concatenate([f.time for f in read])
    per: Any = None
    if period == "event":
        events, _ = _intern(read[0].event if len(read) == 1
                            else pa.concat_arrays([f.event for f in read]))
        per = events
    elif period is not None:
        per = period

    if keep is not None:
        white, black, score = white[keep], black[keep], score[keep]
        time = None if time is None else time[keep]
        per = per[keep] if isinstance(per, np.ndarray) else per
        if white.shape[0] == 0:
            raise _NothingKept("no valid games: every game is a player against himself",
                               dropped)
    name = ", ".join(f.name for f in read)
    games = Games.from_arrays(white, black, score, time=time, period=per,
                              players=PlayerIndex(np.array(players, dtype=object)),
                              source=Source(name))
    if dropped:
        games = dataclasses.replace(games, dropped=tuple(dropped))
    return games
