"""A slow, plain-Python PGN reader, written from the PGN standard (sections 8.1-8.2:
tag pairs, movetext, comments, escape lines, game termination markers) and the rules
fastrate.io.pgn_games documents (game boundaries, which games are kept and why the
others are not). It walks the text token by token with regular expressions; the
fast reader's kernel is not consulted."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# the wording of the reasons is the module's; what is parsed, and why, is decided here
from fastrate.io.pgn_games import REASONS

TAG = re.compile(rb'\[[ \t]*([A-Za-z0-9_]+)[ \t]*"((?:[^"\\\n]|\\[^\n])*)"[ \t\r]*\]')
TOKEN = re.compile(rb'[^ \t\n\r\v\f{;\[]+')
RESULTS = {b"1-0": 1.0, b"0-1": 0.0, b"1/2-1/2": 0.5, b"*": "*"}


@dataclass
class Game:
    line: int
    tags: dict = field(default_factory=dict)
    marker: object = None
    bad: str | None = None
    bad_line: int = 0


def _unescape(v: bytes) -> bytes:
    return re.sub(rb"\\(.)", rb"\1", v)


def parse(data: bytes) -> list[Game]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        offset = 3
    else:
        offset = 0
    games: list[Game] = []
    state = "between"
    i, n = 0, len(data)

    def line_of(pos: int) -> int:
        return data.count(b"\n", 0, pos) + 1

    while i < n:
        c = data[i:i + 1]
        if c in b" \t\n\r\v\f":
            i += 1
        elif c == b";" or (c == b"%" and (i + offset == 0 or data[i - 1:i] == b"\n")):
            j = data.find(b"\n", i)
            i = n if j < 0 else j
        elif c == b"{":
            j = data.find(b"}", i + 1)
            if j < 0:
                if games and state != "between" and games[-1].bad is None:
                    games[-1].bad, games[-1].bad_line = REASONS[1], line_of(i)
                i = n
            else:
                i = j + 1
        elif c == b"[":
            m = TAG.match(data, i)
            name = m.group(1).decode() if m else None
            new = state != "tags" or (name in ("White", "Black", "Result")
                                      and name in games[-1].tags)
            if new:
                games.append(Game(line_of(i)))
                state = "tags"
            g = games[-1]
            if m is None:
                if g.bad is None:
                    g.bad, g.bad_line = REASONS[0], line_of(i)
                j = data.find(b"\n", i)
                i = n if j < 0 else j
                continue
            if name not in g.tags:
                g.tags[name] = _unescape(m.group(2).strip(b" \t"))
            i = m.end()
        else:
            if state == "between":
                games.append(Game(line_of(i)))
            state = "moves"
            m = TOKEN.match(data, i)
            tok = m.group(0)
            i = m.end()
            if tok in RESULTS:
                games[-1].marker = RESULTS[tok]
                state = "between"
    return games


def _date(value: bytes | None) -> tuple[str, object]:
    """('ok', (y, m, d)) | ('missing', None) | ('bad', None)."""
    import calendar

    if value is None:
        return "missing", None
    m = re.fullmatch(rb"([0-9?]{4})([.\-/])([0-9]{2}|\?\?)\2([0-9]{2}|\?\?)", value)
    if not m:
        return "bad", None
    y = m.group(1)
    if y == b"????":
        return "missing", None
    if b"?" in y:
        return "bad", None
    yy = int(y)
    mm = 1 if m.group(3) == b"??" else int(m.group(3))
    dd = 1 if m.group(4) == b"??" else int(m.group(4))
    if yy == 0:
        return "missing", None
    if mm == 0:
        mm = 1
    if dd == 0:
        dd = 1
    if mm > 12 or dd > calendar.monthrange(yy, mm)[1]:
        return "bad", None
    return "ok", (yy, mm, dd)


def decode(name: bytes) -> str:
    try:
        return name.decode("utf-8")
    except UnicodeDecodeError:
        return name.decode("latin-1")


def read(data: bytes, *, date: bool = False):
    """(kept games as (white, black, score[, (y, m, d)]), {reason: (count, first line)})."""
    kept = []
    dropped: dict[str, tuple[int, int]] = {}
    for g in parse(data):
        res = g.tags.get("Result")
        code = None if res is None else RESULTS.get(res, "other")
        result = code if code is not None else g.marker
        w, b = g.tags.get("White"), g.tags.get("Black")
        reason = line = None
        if g.bad:
            reason, line = g.bad, g.bad_line
        elif w in (None, b"", b"?") or b in (None, b"", b"?"):
            reason = REASONS[2]
        elif result == "*":
            reason = REASONS[3]
        elif result is None:
            reason = REASONS[4]
        elif result == "other":
            reason = REASONS[5]
        elif code is not None and g.marker is not None and code != g.marker:
            reason = REASONS[6]
        ymd = None
        if reason is None and date:
            kind, ymd = _date(g.tags.get("Date"))
            if kind == "missing":
                reason = REASONS[7]
            elif kind == "bad":
                reason = REASONS[8]
        if reason is not None:
            c, first = dropped.get(reason, (0, line or g.line))
            dropped[reason] = (c + 1, first)
            continue
        row = (decode(w), decode(b), float(result))
        kept.append(row + (ymd,) if date else row)
    return kept, dropped
