"""PBN (Portable Bridge Notation 2.x) import: games, their tags and tables, and the table
results of the boards as :class:`fastrate.data.boards.Boards`.

What is read (PBN 2.1, chapters 2-5):

* **Games** are separated by semi-empty lines; ``%`` in the first column starts an escape
  line (``% PBN 2.1``, ``% EXPORT``) and is ignored; ``;`` rest-of-line comments and
  ``{ }`` commentary (which may span lines, blank ones included) are skipped.
* **Tags** ``[Name "value"]`` (several on a line or spread over lines in import format;
  ``\\"`` and ``\\\\`` escapes in values). A tag that already occurred in a game is
  ignored (import format), except ``Note``, which may repeat (:attr:`PbnGame.notes`).
* **Inheritance** (PBN 4.8): the value ``"#"`` copies the tag's value from the previous
  game (``""`` when it had none); a value starting with ``"##"`` is the text after the
  ``##`` and also the value for every later game that does not give the tag (export
  files put such tags in the first game as a header). A plain value overrides the
  inherited one for its own game only; a later ``"##"`` value replaces the default.
  ``#``/``##`` are errors for Dealer, Vulnerable, Deal, Declarer, Contract, Auction,
  Play and Note, as the standard forbids them there.
* **Sections**: the data after a tag (Auction, Play, notes, user sections) is skipped
  without being tokenised; the sections whose tag name ends in ``Table`` (ScoreTable,
  TotalScoreTable, OptimumResultTable, ...) are tables. The tag value is the column
  specification ``[+|-]Name[\\width[L|R]];...`` (order marker, minimum width,
  alignment: :class:`PbnColumn`); the elements are whitespace-separated tokens or
  ``"..."`` strings, read as rows of that many columns whatever the line layout.
  Tables are tokenised for the whole file at once with NumPy and kept as Arrow string
  columns (no Python object per cell).

Malformed input is an :class:`~fastrate.errors.InputError` naming the file, line,
column and the text found, and what was expected.

Table results (:func:`read_pbn_boards`, :func:`read_pbn_results`): a board's results
come from its **ScoreTable** when the file has one (one row per table; ``Score_NS``,
else ``-Score_EW``, else computed from Contract, Declarer, Result and the game's
vulnerability), otherwise from the **game tags** [Score] (or [Contract], [Declarer],
[Result]), one row per game, as in team matches (one game per room). **Multiplicity**
``m`` expands a ScoreTable row into ``m`` identical table results, so cross-IMPs,
Butler and matchpoints compare every table with every other exactly as the file's own
IMP_NS / MP_NS columns do (the OKbridge travellers are reproduced); ``m = 0`` rows stand
for no table and are skipped (counted). Details, and the rules for skipped rows, in
docs/bridge.md ("PBN import").
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._validate import Source
from fastrate.data._contract import (
    BOARD_VULNERABILITY,
    VULNERABILITY_CODES,
    contract_score,
)
from fastrate.data.boards import ARTIFICIAL_CODES, Boards
from fastrate.errors import FastrateWarning, InputError

__all__ = ["PbnColumn", "PbnTable", "PbnGame", "PbnResults", "PbnScoreWarning", "parse_pbn",
           "read_pbn", "read_pbn_table", "read_pbn_results", "read_pbn_boards",
           "pbn_results", "NUMERIC_COLUMNS", "MAX_MULTIPLICITY"]


class PbnScoreWarning(FastrateWarning):
    """A printed score (a [Score] tag or a ScoreTable's Score_NS/Score_EW) contradicts
    the Law 77 score of its own contract, declarer, result and vulnerability; the
    printed score is used. The message names the boards and lines."""


#: table columns read as numbers by :func:`read_pbn_table` (``-``/``?`` -> NaN, a leading
#: ``^`` (artificial) is dropped)
NUMERIC_COLUMNS = frozenset({
    "Rank", "Result", "Score_NS", "Score_EW", "IMP_NS", "IMP_EW", "MP_NS", "MP_EW",
    "Percentage_NS", "Percentage_EW", "Multiplicity", "TotalScore", "TotalIMP", "TotalMP",
    "TotalPercentage", "MeanScore", "MeanIMP", "MeanMP", "MeanPercentage", "NrBoards"})
#: the most tables one ScoreTable row may stand for (its Multiplicity)
MAX_MULTIPLICITY = 100_000
#: the file's own score columns carried into :attr:`PbnResults.table`
SCORE_COLUMNS = ("IMP_NS", "IMP_EW", "MP_NS", "MP_EW", "Percentage_NS", "Percentage_EW")

# ----------------------------------------------------------------------------------
# scanning

#: one token of the file layout per match; section data runs over whole lines and stops
#: before a blank line, a line starting a tag, a comment or an escape line
_SCAN = re.compile(rb"""
    (?P<tag>\[\s*+(?P<name>[A-Za-z0-9_]++)\s*+"(?P<value>(?:[^"\\\n]++|\\.)*+)"\s*+\]
            (?:[ \t\f\v]*+\n(?=[ \t\f\v]*+\[))?)  # with the newline when a tag follows
  | (?P<blank>\n[ \t\f\v]*+(?=\n|\Z))
  | (?P<data>(?:[^\[\]{};"\n%]++|"(?:[^"\\\n]++|\\.)*+"|(?<=[^\n])%
              |\n(?![ \t\f\v]*+(?:[\n\[;{%]|\Z)))++)
  | (?P<brace>\{[^}]*+\}?)
  | (?P<semi>;[^\n]*+)
  | (?P<escape>%[^\n]*+)
  | (?P<nl>\n)
  | (?P<bad>.)
""", re.VERBOSE)
#: the newline that ends a section's data: before a blank line, a tag, a comment or an
#: escape line (or the end of the file)
_SECTION_END = re.compile(rb"\n(?=[ \t\f\v]*+(?:[\n\[;{%]|\Z))")
#: characters that make a section's data need the full scanner
_SPECIAL = re.compile(rb'[\[\]{};"]')
#: table elements when a table holds string tokens
_CELL = re.compile(rb'"((?:[^"\\\n]|\\.)*)"|([^\s"]+)|(")')
_UNESCAPE = re.compile(r'\\(["\\])')
_COLSPEC = re.compile(r"^([+-]?)(.*?)(?:\\(\d+)([LRlr]?))?$", re.S)
#: tags whose value may not be inherited with # or ## (PBN 4.8); Deal is tolerated
#: (PBN 0.8 files write [Deal "#"]; the deal does not enter scoring)
_NO_INHERIT = frozenset({"Dealer", "Vulnerable", "Declarer", "Contract", "Auction", "Play",
                         "Note"})
#: identification tags: text after them that is not a tag is malformed
_NO_DATA = frozenset({b"Event", b"Site", b"Date", b"Board", b"West", b"North", b"East",
                      b"South", b"Dealer", b"Vulnerable", b"Deal", b"Scoring",
                      b"Declarer", b"Contract", b"Result", b"Score", b"ScoreIMP",
                      b"ScoreMP", b"ScorePercentage", b"Room", b"Table", b"HomeTeam",
                      b"VisitTeam", b"Round", b"DealId"})
_WHITESPACE = np.zeros(256, dtype=np.bool_)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True
#: the artificial codes a '^'-marked cell may spell (words; '^60' is a number)
_ARTIFICIAL = {k: v for k, v in ARTIFICIAL_CODES.items() if k[:1].isalpha()}
_NUMBER = r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$"


class _Lines:
    """Byte offset -> line and column of one file (offsets of the newlines, lazily)."""

    def __init__(self, buf: bytes, name: str):
        self.buf = buf
        self.name = name
        self._nl: np.ndarray | None = None

    @property
    def nl(self) -> np.ndarray:
        if self._nl is None:
            self._nl = np.flatnonzero(np.frombuffer(self.buf, dtype=np.uint8) == 10)
        return self._nl

    def line(self, offset: Any) -> Any:
        """1-based line of byte ``offset`` (scalar or array)."""
        out = np.searchsorted(self.nl, offset, side="left") + 1
        return int(out) if np.ndim(out) == 0 else out.astype(np.int64)

    def where(self, offset: int) -> str:
        line = self.line(offset)
        start = 0 if line == 1 else int(self.nl[line - 2]) + 1
        col = len(self.buf[start:offset].decode("utf-8", "replace")) + 1
        return f"line {line}, column {col} of {self.name}"

    def at_line(self, line: int) -> str:
        return f"line {line} of {self.name}"

    def text(self, offset: int, limit: int = 40) -> str:
        """The text from ``offset`` to the end of its line (shortened), for messages."""
        end = self.buf.find(b"\n", offset)
        s = self.buf[offset:end if end >= 0 else len(self.buf)].decode("utf-8", "replace")
        return s if len(s) <= limit else s[:limit - 3] + "..."


class _RawGame:
    __slots__ = ("tags", "tables")

    def __init__(self) -> None:
        #: (name, value, offset) of every tag pair, in file order
        self.tags: list[tuple[bytes, bytes, int]] = []
        #: (tag index, data ranges) of every table section
        self.tables: list[tuple[int, list[tuple[int, int]]]] = []


def _scan(buf: bytes, lines: _Lines) -> list[_RawGame]:
    """Split the file into games: tag pairs with their offsets and the byte ranges of
    table-section data. Other section data and all commentary are skipped; a section
    without comments or strings is passed over with one search for its end."""
    games: list[_RawGame] = []
    cur: _RawGame | None = None
    target: list[tuple[int, int]] | None = None  # data ranges of the current table
    strict = False  # the current tag takes no section data
    match = _SCAN.match
    end_of = _SECTION_END.search
    special = _SPECIAL.search
    pos, size = 0, len(buf)
    while pos < size:
        m = match(buf, pos)
        kind = m.lastgroup  # type: ignore[union-attr]
        pos = m.end()  # type: ignore[union-attr]
        if kind == "nl":
            continue
        if kind == "tag":
            if cur is None:
                cur = _RawGame()
            name, value = m.group(2, 3)  # type: ignore[union-attr]
            cur.tags.append((name, value, m.start()))  # type: ignore[union-attr]
            strict = name in _NO_DATA
            if name.endswith(b"Table") and name != b"Table":
                target = []
                cur.tables.append((len(cur.tags) - 1, target))
            else:
                target = None
            if not strict and buf[pos - 1] != 10:  # section data may follow
                e = end_of(buf, pos)
                stop = size if e is None else e.start()
                if stop > pos and special(buf, pos, stop) is None:
                    if target is not None:
                        target.append((pos, stop))
                    pos = stop
        elif kind == "data":
            if target is not None:
                target.append(m.span())  # type: ignore[union-attr]
            elif cur is None or strict:
                text = m.group()  # type: ignore[union-attr]
                if text.strip():
                    off = m.start() + len(text) - len(text.lstrip())  # type: ignore
                    what = ("before the first tag of a game" if cur is None else
                            f"after the tag [{cur.tags[-1][0].decode()}], which has no "
                            "section data")
                    raise InputError(f"expected a tag pair [Name \"value\"], a comment or an "
                                     f"empty line; found {lines.text(off)!r} {what} at "
                                     f"{lines.where(off)}")
        elif kind == "blank":
            if cur is not None:
                games.append(cur)
                cur = None
                target = None
        elif kind == "brace":
            if not m.group().endswith(b"}"):  # type: ignore[union-attr]
                raise InputError(f"commentary '{{' is never closed by '}}': it starts at "
                                 f"{lines.where(m.start())}")  # type: ignore[union-attr]
        elif kind == "bad":
            off = m.start()  # type: ignore[union-attr]
            ch = buf[off:off + 1]
            if ch == b"[":
                need = "a tag pair [Name \"value\"] (name of letters, digits and _, the value " \
                       "in double quotes)"
            elif ch == b'"':
                need = "a closing '\"' on the same line (a string token)"
            else:
                need = "a tag pair, section data, a comment or an empty line"
            raise InputError(f"expected {need}; found {lines.text(off)!r} at "
                             f"{lines.where(off)}")
    if cur is not None:
        games.append(cur)
    return games


def _unescape(value: bytes) -> str:
    s = value.decode("utf-8")
    return _UNESCAPE.sub(r"\1", s) if "\\" in s else s


# ----------------------------------------------------------------------------------
# public containers


@dataclass(frozen=True)
class PbnColumn:
    """One column of a table's specification: ``name``, ``order`` (``"+"`` descending,
    ``"-"`` ascending, ``""`` unsorted), minimum ``width`` (None: not given) and
    ``align`` (``"L"``, ``"R"`` or ``""``)."""

    name: str
    order: str = ""
    width: int | None = None
    align: str = ""

    def __str__(self) -> str:
        w = "" if self.width is None else f"\\{self.width}{self.align}"
        return f"{self.order}{self.name}{w}"


@dataclass(frozen=True, eq=False)
class PbnTable:
    """A table section of one game (ScoreTable, TotalScoreTable, ...).

    ``columns`` is the parsed specification; ``data`` maps each column name to an Arrow
    string array (one element per row; ``"-"`` irrelevant, ``"?"`` unknown, a leading
    ``"^"`` an artificial value, as in the file); ``line`` is the line of the section's
    tag and ``row_lines`` the line of each row's first element."""

    name: str
    spec: str
    columns: tuple[PbnColumn, ...]
    data: dict[str, Any]
    line: int
    row_lines: np.ndarray

    @property
    def n_rows(self) -> int:
        return int(self.row_lines.shape[0])

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __len__(self) -> int:
        return self.n_rows

    def __repr__(self) -> str:
        return f"PbnTable({self.name!r}, {self.n_rows} rows, columns {self.column_names})"

    def column(self, name: str) -> np.ndarray:
        """The cells of column ``name`` as a NumPy array of str (object dtype)."""
        return np.array(self._get(name).to_pylist(), dtype=object)

    def numbers(self, name: str) -> np.ndarray:
        """Column ``name`` as float64: ``-``/``?`` -> NaN, a leading ``^`` dropped;
        anything else that is not a number is an error naming its line."""
        values, _, _ = _cell_numbers(self._get(name), f"column {name!r} of {self.name}",
                                     self.row_lines, self._where)
        return values

    def to_arrow(self, numeric: bool = False):
        """The table as a pyarrow Table (strings; ``numeric=True`` converts the
        :data:`NUMERIC_COLUMNS`)."""
        import pyarrow as pa

        cols = {}
        for c in self.column_names:
            cols[c] = pa.array(self.numbers(c)) if numeric and c in NUMERIC_COLUMNS else \
                self.data[c]
        return pa.table(cols)

    def _get(self, name: str):
        if name not in self.data:
            raise InputError(f"{self.name} at line {self.line} has no column {name!r}; its "
                             f"columns are {', '.join(self.column_names)}")
        return self.data[name]

    _where: Any = field(default=None, repr=False, compare=False)


@dataclass(eq=False)
class PbnGame:
    """One game of a PBN file.

    ``tags`` holds the resolved tag values (inheritance applied; tags given by ``##`` in
    an earlier game included), ``notes`` the Note tags in order, ``tables`` the table
    sections read (by tag name), ``sections`` the names of the tags followed by other
    section data that was skipped (Auction, Play, ...), ``line`` the line of its first
    tag. :meth:`line_of` gives the line of a tag given in this game."""

    index: int
    line: int
    tags: dict[str, str]
    notes: tuple[str, ...] = ()
    tables: dict[str, PbnTable] = field(default_factory=dict)
    _offsets: dict[str, int] = field(default_factory=dict, repr=False)
    _lines: Any = field(default=None, repr=False)

    def line_of(self, tag: str) -> int:
        """Line of tag ``tag`` in this game (the game's first line when the tag was
        inherited rather than given)."""
        off = self._offsets.get(tag)
        return self.line if off is None or self._lines is None else self._lines.line(off)

    def where(self, tag: str | None = None) -> str:
        """``line N of FILE`` of a tag (or of the game)."""
        line = self.line if tag is None else self.line_of(tag)
        return self._lines.at_line(line) if self._lines is not None else f"line {line}"

    def get(self, tag: str, default: str = "") -> str:
        return self.tags.get(tag, default)

    def __getitem__(self, tag: str) -> str:
        return self.tags[tag]

    def __contains__(self, tag: str) -> bool:
        return tag in self.tags


# ----------------------------------------------------------------------------------
# tables


def _parse_spec(spec: str, name: str, where: Any) -> tuple[PbnColumn, ...]:
    """Columns of a table's tag value; ``where()`` names the tag's place (errors)."""
    if not spec.strip():
        raise InputError(f"{name} needs a column specification (column names separated by "
                         f"';', e.g. \"Rank\\3R;Score_NS\\5R;IMP_NS\\6R\"); found an empty "
                         f"tag value at {where()}")
    cols = []
    for part in spec.split(";"):
        p = part.strip()
        m = _COLSPEC.match(p)
        order, cname, width, align = m.groups() if m else ("", p, None, "")
        if not cname or "\\" in cname:
            why = "an empty column name" if not cname else (
                f"column {p!r}: after '\\' expected the minimum width (digits) and "
                "optionally L or R")
            raise InputError(f"{name} column specification {spec!r} has {why} at "
                             f"{where()}")
        cols.append(PbnColumn(cname, order, int(width) if width else None,
                              (align or "").upper()))
    names = [c.name for c in cols]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"{name} column specification {spec!r} names column(s) "
                         f"{', '.join(dup)} twice at {where()}")
    return tuple(cols)


def _tokenize_fast(buf: bytes, ranges: list[tuple[int, int]]):
    """Tokens of whitespace-separated section data (no string tokens) in ``ranges`` of
    ``buf``: (Arrow string array, byte offset of each token in ``buf``, range of each
    token), all with NumPy."""
    import pyarrow as pa

    pieces = [buf[s:e] for s, e in ranges]
    blob = b"\n".join(pieces)
    lens = np.fromiter((len(p) + 1 for p in pieces), dtype=np.int64, count=len(pieces))
    blob_start = np.zeros(len(pieces), dtype=np.int64)
    np.cumsum(lens[:-1], out=blob_start[1:])
    b = np.frombuffer(blob, dtype=np.uint8)
    solid = ~_WHITESPACE[b]
    edge = np.diff(solid.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edge == 1)
    ends = np.flatnonzero(edge == -1)
    n = starts.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    chars = np.ascontiguousarray(b[solid])
    if offsets[-1] < 2**31 - 1:
        arr = pa.StringArray.from_buffers(n, pa.py_buffer(offsets.astype(np.int32)),
                                          pa.py_buffer(chars))
    else:  # pragma: no cover - over 2 GiB of table text
        arr = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets),
                                               pa.py_buffer(chars))
    # the piece of every token: pieces and tokens are both in order
    first_tok = np.searchsorted(starts, blob_start, side="left")
    piece = np.repeat(np.arange(len(pieces), dtype=np.int64),
                      np.diff(np.append(first_tok, n)))
    file_start = starts - blob_start[piece] + np.array([s for s, _ in ranges],
                                                       dtype=np.int64)[piece]
    return arr, file_start, piece


def _tokenize_quoted(buf: bytes, ranges: list[tuple[int, int]], lines: _Lines):
    """Tokens of section data that holds string tokens (``"..."``), unescaped."""
    import pyarrow as pa

    texts: list[str] = []
    starts: list[int] = []
    for s, e in ranges:
        for m in _CELL.finditer(buf, s, e):
            if m.group(3) is not None:
                raise InputError(f"expected a closing '\"' on the same line (a string "
                                 f"token); found {lines.text(m.start())!r} at "
                                 f"{lines.where(m.start())}")
            q = m.group(1)
            texts.append(_unescape(q) if q is not None else m.group(2).decode("utf-8"))
            starts.append(m.start())
    return pa.array(texts, type=pa.string()), np.array(starts, dtype=np.int64)


@dataclass
class _Group:
    """All tables of one name and column list: full columns, then per-table slices."""

    name: str
    columns: tuple[str, ...]
    tables: list[tuple[int, int]] = field(default_factory=list)  # (game, table number)
    data: dict[str, Any] = field(default_factory=dict)
    row_lines: np.ndarray | None = None
    row_game: np.ndarray | None = None
    table_rows: np.ndarray | None = None


def _read_tables(buf: bytes, raw: list[_RawGame], tags: list[dict[str, str]],
                 lines: _Lines, wanted: frozenset[str] | None):
    """Parse every wanted table section of the file; returns the per-(name, columns)
    groups and, per game, its tables (name -> (group, first row, rows, spec, line))."""
    import pyarrow as pa

    specs = []  # (game, name, spec, columns, tag offset, ranges)
    parsed_specs: dict[tuple[str, str], tuple[PbnColumn, ...]] = {}
    for gi, g in enumerate(raw):
        seen: dict[str, int] = {}
        for ti, ranges in g.tables:
            name = g.tags[ti][0].decode()
            if wanted is not None and name not in wanted:
                continue
            off = g.tags[ti][2]
            if name in seen:
                raise InputError(f"a game has one {name}; found a second one at "
                                 f"{lines.where(off)} (the first is at line "
                                 f"{lines.line(seen[name])})")
            seen[name] = off
            spec = tags[gi].get(name, "")
            cols = parsed_specs.get((name, spec))
            if cols is None:
                cols = _parse_spec(spec, name, lambda off=off: lines.where(off))
                parsed_specs[(name, spec)] = cols
            specs.append((gi, name, spec, cols, off, ranges))
    if not specs:
        return [], [{} for _ in raw]
    quoted = [any(buf.find(b'"', s, e) >= 0 for s, e in r) for *_, r in specs]
    # tokens of every table: (flat array, token offsets)
    flat: list[Any] = [None] * len(specs)
    starts: list[Any] = [None] * len(specs)
    fast = [i for i, q in enumerate(quoted) if not q]
    if fast:
        all_ranges = []
        owner = []
        for i in fast:
            all_ranges.extend(specs[i][5])
            owner.extend([i] * len(specs[i][5]))
        if all_ranges:
            arr, tok_off, piece = _tokenize_fast(buf, all_ranges)
            owner_arr = np.array(owner, dtype=np.int64)
            tok_owner = owner_arr[piece]
            counts = np.bincount(np.searchsorted(np.array(fast), tok_owner),
                                 minlength=len(fast))
            lo = 0
            for k, i in enumerate(fast):
                c = int(counts[k])
                flat[i] = arr.slice(lo, c)
                starts[i] = tok_off[lo:lo + c]
                lo += c
        for i in fast:
            if flat[i] is None:
                flat[i] = pa.array([], type=pa.string())
                starts[i] = np.zeros(0, dtype=np.int64)
    for i, q in enumerate(quoted):
        if q:
            flat[i], starts[i] = _tokenize_quoted(buf, specs[i][5], lines)
    # whole rows only
    for i, (_, name, _, cols, off, _) in enumerate(specs):
        if len(flat[i]) % len(cols):
            _incomplete_row(name, cols, off, starts[i], len(cols), lines)
    # groups of tables with the same name and columns
    groups: dict[tuple[str, tuple[str, ...]], _Group] = {}
    per_game: list[dict[str, tuple]] = [{} for _ in raw]
    members: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i, (_, name, _, cols, _, _) in enumerate(specs):
        key = (name, tuple(c.name for c in cols))
        members.setdefault(key, []).append(i)
    for key, idx in members.items():
        grp = _Group(key[0], key[1])
        k = len(key[1])
        arr = pa.concat_arrays([flat[i] for i in idx]) if len(idx) > 1 else flat[idx[0]]
        tok = np.concatenate([starts[i] for i in idx]) if len(idx) > 1 else starts[idx[0]]
        n_rows = len(arr) // k
        for j, c in enumerate(key[1]):
            grp.data[c] = arr.take(pa.array(np.arange(j, n_rows * k, k, dtype=np.int64)))
        grp.row_lines = lines.line(tok[::k]) if n_rows else np.zeros(0, dtype=np.int64)
        rows = np.array([len(flat[i]) // k for i in idx], dtype=np.int64)
        grp.table_rows = rows
        grp.row_game = np.repeat(np.array([specs[i][0] for i in idx], dtype=np.int64), rows)
        lo = 0
        for i, r in zip(idx, rows.tolist()):
            gi, name, spec, cols, off, _ = specs[i]
            per_game[gi][name] = (grp, lo, r, spec, cols, lines.line(off))
            grp.tables.append((gi, lo))
            lo += r
        groups[key] = grp
    return list(groups.values()), per_game


def _incomplete_row(name: str, cols: tuple[PbnColumn, ...], off: int, tok: np.ndarray, k: int,
                    lines: _Lines) -> None:
    """Raise the error for a table whose elements are not whole rows, naming the first
    line that does not hold a multiple of the columns (export format: one row a line)."""
    line_of = lines.line(tok)
    uniq, counts = np.unique(line_of, return_counts=True)
    bad = np.flatnonzero(counts % k)
    names = ", ".join(c.name for c in cols)
    if bad.size:
        ln = int(uniq[bad[0]])
        found = int(counts[bad[0]])
        start = 0 if ln == 1 else int(lines.nl[ln - 2]) + 1
        text = lines.text(start, 60).strip()
        raise InputError(f"{name} row must have {k} values ({names}); found {found} "
                         f"({text!r}) at {lines.at_line(ln)}")
    raise InputError(f"{name} at {lines.at_line(lines.line(off))} ends with an incomplete "
                     f"row: {len(tok)} values are not whole rows of {k} ({names})")


# ----------------------------------------------------------------------------------
# reading games


@dataclass
class _Parsed:
    name: str
    games: list[PbnGame]
    groups: list[_Group]
    lines: _Lines


def _decode(data: bytes) -> bytes:
    """UTF-8 bytes with LF line ends: PBN is ISO 8859-1, but UTF-8 files are common;
    bytes that are not UTF-8 are read as Latin-1."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    end = data.rstrip(b" \t\r\n\x1a")
    if b"\x1a" in data[len(end):]:  # a DOS end-of-file mark (Ctrl-Z)
        data = end + b"\n"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        data = data.decode("latin-1").encode("utf-8")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _parse(data: bytes | str, name: str, tables: Iterable[str] | None) -> _Parsed:
    buf = _decode(data.encode("utf-8") if isinstance(data, str) else data)
    lines = _Lines(buf, name)
    raw = _scan(buf, lines)
    # tags, with inheritance
    header: dict[str, str] = {}
    prev: dict[str, str] = {}
    resolved: list[dict[str, str]] = []
    notes: list[tuple[str, ...]] = []
    offsets: list[dict[str, int]] = []
    for g in raw:
        tags: dict[str, str] = {}
        offs: dict[str, int] = {}
        nts: list[str] = []
        for bname, bvalue, off in g.tags:
            tname = bname.decode()
            value = _unescape(bvalue)
            if tname == "Note" and not value.startswith("#"):
                nts.append(value)
                continue
            if tname in offs:
                continue  # a repeated tag is ignored (import format)
            if value.startswith("#"):
                if tname in _NO_INHERIT:
                    raise InputError(f"tag [{tname}] must not inherit its value ('#' or "
                                     f"'##', PBN 4.8); found {value!r} at "
                                     f"{lines.where(off)}")
                if value == "#":
                    value = prev.get(tname, "")
                elif value.startswith("##"):
                    value = value[2:]
                    header[tname] = value
            tags[tname] = value
            offs[tname] = off
        for k, v in header.items():
            if k not in tags:
                tags[k] = v
        prev = tags
        resolved.append(tags)
        notes.append(tuple(nts))
        offsets.append(offs)
    wanted = None if tables is None else frozenset(tables)
    groups, per_game = _read_tables(buf, raw, resolved, lines, wanted)
    first = lines.line(np.array([g.tags[0][2] for g in raw], dtype=np.int64)) if raw else []
    games = []
    for i in range(len(raw)):
        tbls = {}
        for tname, (grp, lo, n, spec, cols, tline) in per_game[i].items():
            data = {c: grp.data[c].slice(lo, n) for c in grp.columns}
            where = _row_where(lines)
            tbls[tname] = PbnTable(tname, spec, cols, data, tline,
                                   grp.row_lines[lo:lo + n], _where=where)
        games.append(PbnGame(i, int(first[i]), resolved[i], notes[i], tbls, offsets[i],
                             lines))
    return _Parsed(name, games, groups, lines)


def _row_where(lines: _Lines):
    def where(line: int) -> str:
        return lines.at_line(int(line))
    return where


def _read_bytes(path: Any) -> tuple[bytes, str]:
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    if p.is_dir():
        raise InputError(f"{path} is a folder; expected a PBN file")
    return p.read_bytes(), p.name


def parse_pbn(text: str | bytes, name: str = "<string>",
              tables: Iterable[str] | None = None) -> list[PbnGame]:
    """Parse PBN text into its games (see :func:`read_pbn`); ``name`` is used in errors."""
    return _parse(text, name, tables).games


def read_pbn(path: Any, tables: Iterable[str] | None = None) -> list[PbnGame]:
    """Read the games of a PBN file: resolved tags, notes and table sections.

    ``tables`` limits the table sections parsed (e.g. ``["ScoreTable"]``; default all);
    other section data (Auction, Play, ...) is skipped without being tokenised.

    >>> games = read_pbn("travellers.pbn")                       # doctest: +SKIP

    The same from text, with :func:`parse_pbn`:

    >>> games = parse_pbn('[Board "1"]\\n[ScoreTable "Contract;IMP_NS"]\\n4H 6\\n3NT -2\\n')
    >>> games[0]["Board"], games[0].tables["ScoreTable"].numbers("IMP_NS")
    ('1', array([ 6., -2.]))
    """
    data, name = _read_bytes(path)
    return _parse(data, name, tables).games


def read_pbn_table(path: Any, name: str = "ScoreTable", *, numeric: bool = True):
    """All rows of the ``name`` tables of a PBN file as one pyarrow Table, in file order:
    ``game`` (index into :func:`read_pbn`'s games), ``line``, ``event`` and ``board``
    (the game's Event and Board tags), then the table's columns (the union over games;
    a column a game's table lacks is null there). With ``numeric`` the
    :data:`NUMERIC_COLUMNS` are float64 (``-``/``?`` -> NaN, ``^`` dropped), the rest
    strings."""
    data, fname = _read_bytes(path)
    parsed = _parse(data, fname, [name])
    return _table_of(parsed, name, numeric)


def _table_of(parsed: _Parsed, name: str, numeric: bool):
    import pyarrow as pa

    groups = [g for g in parsed.groups if g.name == name]
    colnames: list[str] = []
    for g in groups:
        colnames.extend(c for c in g.columns if c not in colnames)
    if not groups:
        return pa.table({"game": pa.array([], pa.int64()), "line": pa.array([], pa.int64()),
                         "event": pa.array([], pa.string()),
                         "board": pa.array([], pa.string())})
    game = np.concatenate([g.row_game for g in groups])
    line = np.concatenate([g.row_lines for g in groups])
    order = np.lexsort((line, game))
    where = _row_where(parsed.lines)
    cols: dict[str, Any] = {"game": pa.array(game[order]), "line": pa.array(line[order])}
    ev = np.array([g.get("Event") for g in parsed.games], dtype=object)
    bd = np.array([g.get("Board") for g in parsed.games], dtype=object)
    cols["event"] = pa.array(ev[game[order]].tolist(), pa.string())
    cols["board"] = pa.array(bd[game[order]].tolist(), pa.string())
    idx = pa.array(order)
    for c in colnames:
        num = numeric and c in NUMERIC_COLUMNS
        parts = []
        for g in groups:
            n = g.row_lines.shape[0]
            if c in g.data:
                a = g.data[c]
                parts.append(pa.array(_cell_numbers(a, f"column {c!r} of {name}",
                                                    g.row_lines, where)[0])
                             if num else a)
            else:
                parts.append(pa.nulls(n, pa.float64() if num else pa.string()))
        full = pa.concat_arrays(parts) if len(parts) > 1 else parts[0]
        cols[c] = full.take(idx)
    return pa.table(cols)


# ----------------------------------------------------------------------------------
# cells


def _cell_numbers(arr: Any, what: str, row_lines: np.ndarray, where: Any,
                  artificial: bool = False):
    """Numbers of table cells: (float64 values, kind int8, artificial code int64).

    kind 0 a number, 1 missing (``-``, ``?``), 2 a ``^``-marked number (an adjusted
    score), 3 a ``^``-marked artificial code (A+, A, A- ...; only with ``artificial``).
    Anything else is an error naming the row's line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(arr)
    kind = np.zeros(n, dtype=np.int8)
    code = np.zeros(n, dtype=np.int64)
    try:
        values = _to_numpy(pc.cast(arr, pa.float64()))
        if np.isfinite(values).all():
            return values, kind, code
    except pa.ArrowInvalid:
        pass
    missing = _to_numpy(pc.is_in(arr, value_set=pa.array(["-", "?", ""]))).astype(bool)
    caret = _to_numpy(pc.starts_with(arr, "^")).astype(bool)
    body = pc.if_else(pa.array(caret), pc.utf8_slice_codeunits(arr, 1), arr)
    ok = _to_numpy(pc.match_substring_regex(body, _NUMBER)).astype(bool)
    values = np.full(n, np.nan)
    if ok.any():
        values[ok] = _to_numpy(pc.cast(pc.filter(body, pa.array(ok)), pa.float64()))
        ok &= np.isfinite(values)  # "1e400" is no number a table can hold
    kind[missing] = 1
    kind[caret & ok] = 2
    bad = ~(missing | ok)
    if artificial and (bad & caret).any():
        texts = np.array(pc.filter(body, pa.array(bad & caret)).to_pylist(), dtype=object)
        codes = np.array([_ARTIFICIAL.get(str(t).strip().upper(), -1) for t in texts],
                         dtype=np.int64)
        pos = np.flatnonzero(bad & caret)
        good = codes > 0
        code[pos[good]] = codes[good]
        kind[pos[good]] = 3
        bad[pos[good]] = False
    if bad.any():
        i = int(np.argmax(bad))
        need = "a number, '-' (irrelevant) or '?' (unknown), optionally marked '^'"
        if artificial:
            need += " (or ^A+, ^A, ^A- for an artificial score)"
        raise InputError(f"{what} must be {need}; found {arr[i].as_py()!r} at "
                         f"{where(row_lines[i])}")
    return values, kind, code


def _to_numpy(a: Any) -> np.ndarray:
    from fastrate._validate import arrow_to_numpy

    return np.array(arrow_to_numpy(a))


# ----------------------------------------------------------------------------------
# table results


@dataclass(frozen=True)
class _PbnSource(Source):
    """Rows of a PBN file: each row's own file line."""

    row_lines: Any = field(default=None, compare=False)

    def where(self, index: int) -> str:
        if self.row_lines is None or self.name is None:
            return super().where(index)
        return f"row {index + 1} (line {int(self.row_lines[index])} of {self.name})"


@dataclass(frozen=True, eq=False)
class PbnResults:
    """The table results of a PBN file.

    ``boards`` (:class:`~fastrate.data.boards.Boards`; its input rows are the table results in
    file order, a ScoreTable row with Multiplicity m giving m rows) and ``table``, a
    pyarrow Table with one row per input row of ``boards``: ``game`` (index into
    ``games``), ``line``, ``event``, ``board``, ``origin`` (``ScoreTable`` or ``tags``),
    ``multiplicity`` and ``copy`` (0..m-1), ``ns_score``, ``adjusted`` (a ``^``-marked
    score), ``contract``, ``declarer`` and ``tricks`` (where the file gives them; the
    Boards do not carry them), and the file's own score columns IMP_NS, IMP_EW, MP_NS, MP_EW,
    Percentage_NS, Percentage_EW (NaN where the file gives none; for game tags the NS
    value of [ScoreIMP], [ScoreMP], [ScorePercentage]). ``participants`` says what
    identifies the tables: ``"players"`` (North/South/East/West tags), ``"pairs"``
    (PairId_NS/PairId_EW or Names_NS/Names_EW columns, PairNS/PairEW tags) or
    ``"none"``."""

    boards: Any
    table: Any
    games: list[PbnGame]
    participants: str

    @property
    def dropped(self) -> tuple[tuple[str, int, str], ...]:
        return self.boards.dropped


class _Rows:
    """Per-row arrays of one part (a group of ScoreTables, or the game tags); text
    columns are Arrow string arrays."""

    def __init__(self, n: int, from_table: bool = True):
        self.n = n
        self.from_table = from_table
        self.game = np.zeros(n, dtype=np.int64)
        self.line = np.zeros(n, dtype=np.int64)
        self.ns = np.full(n, np.nan)
        self.artificial = np.zeros(n, dtype=np.int64)
        self.adjusted = np.zeros(n, dtype=np.bool_)
        self.mult = np.ones(n, dtype=np.int64)
        self.keep = np.ones(n, dtype=np.bool_)
        self.contract: Any = None
        self.declarer: Any = None
        self.tricks: np.ndarray | None = None
        self.ns_pair: Any = None
        self.ew_pair: Any = None
        self.seats: list[Any] | None = None
        self.scores: dict[str, np.ndarray] = {}


def _game_vulnerability(g: PbnGame) -> int:
    v = g.get("Vulnerable").strip().upper()
    if v in VULNERABILITY_CODES:
        return VULNERABILITY_CODES[v]
    if v == "":
        b = g.get("Board").strip()
        if b.isdigit() and int(b) > 0:
            return BOARD_VULNERABILITY[(int(b) - 1) % 16]
        raise InputError(f"the game at {g.where()} needs its vulnerability to score its "
                         "contract: no [Vulnerable] tag and no board number")
    raise InputError(f"tag [Vulnerable] must be None, NS, EW or All (or Love, -, Both); "
                     f"found {g.get('Vulnerable')!r} at {g.where('Vulnerable')}")


def _declarer_ns(seat: str) -> bool | None:
    s = seat.strip().lstrip("^").upper()
    return True if s in ("N", "S") else (False if s in ("E", "W") else None)


_UNKNOWN = ("", "?", "-")
#: a contract without its result, as PBN writes it ("4HX", "3NT", "6SXX")
_BARE_CONTRACT = re.compile(r"^([1-7])\s*(NT|N|C|D|H|S)\s*(XX|X|\*\*|\*)?$", re.I)
_PASSED = re.compile(r"^(?:P|PASS|PASSED|PASSED\s*OUT|AP|ALL\s*PASS|PO)$", re.I)
_SIDE_TRICKS = re.compile(r"^(NS|EW)\s+([0-9]{1,2})(?:\s+(NS|EW)\s+([0-9]{1,2}))?$", re.I)
_STRAIN = {"C": 0, "D": 1, "H": 2, "S": 3, "N": 4, "NT": 4}


def _contract_fields(text: str) -> tuple[int, int, int]:
    """(level, strain code, doubling) of a contract cell: level 0 passed out, -1
    unknown. Raises ValueError with the requirement."""
    c = text.strip()
    if c in _UNKNOWN:
        return -1, 0, 0
    if _PASSED.match(c):
        return 0, 0, 0
    m = _BARE_CONTRACT.match(c)
    if m is None:
        raise ValueError(f"the contract must be a level 1-7, a strain C, D, H, S or NT and "
                         f"optionally X or XX (e.g. '4HX'), or Pass; found {text!r}")
    return int(m[1]), _STRAIN[m[2].upper()], len((m[3] or "").replace("*", "X"))


def _declarer_side(text: str) -> int:
    """1 for N/S, 0 for E/W, -1 unknown. Raises ValueError with the requirement."""
    d = text.strip().lstrip("^")
    if d in _UNKNOWN:
        return -1
    if d.upper() not in ("N", "E", "S", "W"):
        raise ValueError(f"declarer must be N, E, S or W ('?' or '' when unknown); found "
                         f"{text!r}")
    return 1 if d.upper() in ("N", "S") else 0


def _result_fields(text: str) -> tuple[int, int]:
    """(kind, k) of a result cell: kind -1 unknown, 0 tricks declarer took, 1 ``NS k``,
    2 ``EW k``. Raises ValueError with the requirement."""
    t = text.strip().lstrip("^")
    if t in _UNKNOWN:
        return -1, 0
    m = _SIDE_TRICKS.match(t)
    if m is not None:
        if all(int(x) <= 13 for x in (m.group(2), m.group(4)) if x is not None):
            return (1 if m.group(1).upper() == "NS" else 2), int(m.group(2))
    elif re.fullmatch(r"[0-9]{1,2}", t) is not None and int(t) <= 13:
        return 0, int(t)
    raise ValueError(f"the result must be the tricks declarer took (0-13), or NS k / EW k; "
                     f"found {text!r}")


def _declarer_tricks(kind: Any, k: Any, ns: Any) -> Any:
    """Tricks declarer took from a result's (kind, k) and declarer's side (arrays or
    scalars; ``NS k`` / ``EW k`` count the tricks of a side)."""
    return np.where((kind == 0) | ((kind == 1) == (ns == 1)), k, 13 - k)


def _contract_points(contract: str, declarer: str, tricks: str, vul: int,
                     what: str) -> float | None:
    """NS points of a contract, its declarer, the tricks declarer took (or ``NS k`` /
    ``EW k``) and the vulnerability code; None when the result is unknown. Each field
    that is given is checked, whether or not the result is known: the contract (level
    1-7, strain, X/XX, or Pass), the declarer (N, E, S, W) and the tricks (0-13)."""
    try:
        ns = _declarer_side(declarer)
        kind, k = _result_fields(tricks)
        level, strain, dbl = _contract_fields(contract)
    except ValueError as exc:
        raise InputError(f"{what}: {exc}") from None
    if level <= 0:
        return None if level < 0 else 0.0
    if kind < 0:
        return None
    if ns < 0:
        raise InputError(f"{what}: declarer must be N, E, S or W for contract "
                         f"{contract.strip()!r}; found {declarer!r}")
    taken = int(_declarer_tricks(kind, k, ns))
    vulnerable = vul == 3 or (vul == 1 and ns == 1) or (vul == 2 and ns == 0)
    pts = float(contract_score(level, strain, dbl, taken, bool(vulnerable), tricks=True)[0])
    return pts if ns else -pts


def _side_value(text: str, declarer: str, what: str, *, mp: bool = False) -> float | None:
    """The NS value of a [Score]-style tag: ``NS x``, ``EW x``, ``NS x EW y`` or ``x``
    (declarer's side). ``mp``: an EW-only value has no NS equivalent (None)."""
    t = text.strip()
    if t in ("", "?", "-"):
        return None
    m = re.match(r"^(NS|EW)\s+(\S+)(?:\s+(NS|EW)\s+(\S+))?$", t, re.I)
    try:
        if m is not None:
            if m.group(1).upper() == "NS":
                return _finite(m.group(2))
            if m.group(3) is not None and m.group(3).upper() == "NS":
                return _finite(m.group(4))
            return None if mp else -_finite(m.group(2))
        v = _finite(t)
    except ValueError:
        raise InputError(f"{what} must be 'NS <number>', 'EW <number>', both, or the "
                         f"declarer's number; found {text!r}") from None
    if mp:
        return None
    ns = _declarer_ns(declarer)
    if ns is None:
        if v == 0:
            return 0.0
        raise InputError(f"{what} {text!r} is the declarer's score, but the game has no "
                         "declarer (N, E, S or W); give 'NS <score>' or 'EW <score>'")
    return v if ns else -v


def _finite(s: str) -> float:
    s = s.lstrip("^")
    if not re.match(_NUMBER, s):
        raise ValueError(s)
    v = float(s)
    if not math.isfinite(v):  # "1e400"
        raise ValueError(s)
    return v


def _label(g: PbnGame, teams: bool) -> str:
    """The event label of a game: DealId, else Event / Round / Section / Stage (and the
    match of a team game: its two teams, sorted)."""
    deal_id = g.get("DealId").strip()
    if deal_id:
        return deal_id
    parts = [g.get(t).strip() for t in ("Event", "Round", "Section", "Stage")]
    parts = [p for p in parts if p and p != "?"]
    if teams:
        home, visit = g.get("HomeTeam").strip(), g.get("VisitTeam").strip()
        if home and visit:
            parts.append(" v ".join(sorted((home, visit))))
    return " / ".join(parts)


def _known(name: str) -> bool:
    n = name.strip()
    return bool(n) and n != "?" and n != "-"


def _known_cells(arr: Any) -> np.ndarray:
    """Cells that name something (not empty, ``?`` or ``-``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    unknown = pc.is_in(pc.utf8_trim_whitespace(arr), value_set=pa.array(["", "?", "-"]))
    return ~_to_numpy(unknown).astype(np.bool_)


def _table_rows(grp: _Group, used: np.ndarray, games: list[PbnGame], vul: np.ndarray,
                where: Any, mismatches: list) -> _Rows:
    """Rows of the used tables of one group."""
    import pyarrow as pa

    sel = np.flatnonzero(np.repeat(used, grp.table_rows))
    if sel.shape[0] == grp.row_lines.shape[0]:
        data = dict(grp.data)
    else:
        take = pa.array(sel)
        data = {c: grp.data[c].take(take) for c in grp.columns}
    r = _Rows(sel.shape[0])
    r.game = grp.row_game[sel]
    r.line = grp.row_lines[sel]
    tname = grp.name
    if "Score_NS" in data or "Score_EW" in data:
        ns = np.full(r.n, np.nan)
        kind = np.ones(r.n, dtype=np.int8)
        code = np.zeros(r.n, dtype=np.int64)
        for col, sign in (("Score_EW", -1.0), ("Score_NS", 1.0)):
            if col in data:
                v, k, c = _cell_numbers(data[col], f"column '{col}' of {tname}", r.line,
                                        where, artificial=True)
                have = k != 1
                ns[have] = sign * v[have]
                kind[have] = k[have]
                # artificial codes are NS's side: an EW code mirrors (A+ <-> A-)
                code[have] = c[have] if sign > 0 else np.where(c[have] > 0, 4 - c[have], 0)
        r.ns = ns
        r.artificial = np.where(kind == 3, code, 0)
        r.adjusted = kind == 2
        r.keep = kind != 1
        if any(c in data for c in ("Contract", "Declarer", "Result")):
            pts, texts = _table_contracts(data, r, vul, tname, where)
            bad = (kind == 0) & (pts == pts) & (pts != ns)
            for i in np.flatnonzero(bad).tolist():
                gi = int(r.game[i])
                mismatches.append(_mismatch(games[gi].get("Board").strip(),
                                            where(r.line[i]), float(ns[i]), float(pts[i]),
                                            *(t[i] for t in texts), int(vul[gi])))
    elif all(c in data for c in ("Contract", "Declarer", "Result")):
        pts, _ = _table_contracts(data, r, vul, tname, where)
        r.keep = pts == pts
        r.ns = pts
    else:
        g = games[int(grp.row_game[0])] if grp.row_game.shape[0] else None
        raise InputError(f"{tname} at {g.where(tname) if g else tname} gives no scores: "
                         "expected a Score_NS or Score_EW column, or Contract, Declarer and "
                         f"Result; its columns are {', '.join(grp.columns)}")
    if "Multiplicity" in data:
        v, k, _ = _cell_numbers(data["Multiplicity"], f"column 'Multiplicity' of {tname}",
                                r.line, where)
        bad = (k != 1) & ((v < 0) | (v != np.floor(v)))
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"column 'Multiplicity' of {tname} must be a whole number >= 0 "
                             f"(the tables the row stands for); found "
                             f"{data['Multiplicity'][i].as_py()!r} at {where(r.line[i])}")
        big = (k != 1) & (v > MAX_MULTIPLICITY)
        if big.any():
            i = int(np.argmax(big))
            raise InputError(f"column 'Multiplicity' of {tname} must be at most "
                             f"{MAX_MULTIPLICITY:,} (the tables the row stands for); found "
                             f"{data['Multiplicity'][i].as_py()!r} at {where(r.line[i])}")
        r.mult = np.where(k == 1, 1, v).astype(np.int64)
    r.contract = data.get("Contract")
    r.declarer = data.get("Declarer")
    if "Result" in data:
        v, k, _ = _cell_numbers(data["Result"], f"column 'Result' of {tname}", r.line, where)
        r.tricks = np.where(k == 1, np.nan, v)
    for ns_col, ew_col in (("PairId_NS", "PairId_EW"), ("Names_NS", "Names_EW")):
        if ns_col in data and ew_col in data:
            a, b = data[ns_col], data[ew_col]
            if (_known_cells(a) & _known_cells(b))[r.keep].all():
                r.ns_pair, r.ew_pair = a, b
                break
    for c in SCORE_COLUMNS:
        if c in data:
            r.scores[c] = _cell_numbers(data[c], f"column '{c}' of {tname}", r.line,
                                        where)[0]
    return r


def _table_contracts(data: dict, r: _Rows, vul: np.ndarray, tname: str, where: Any
                     ) -> tuple[np.ndarray, list[list[str]]]:
    """NS points of the Contract, Declarer and Result cells of the rows (NaN where the
    result is unknown; a missing column counts as unknown): each distinct cell of a
    column is checked once (an error names the first row holding a bad one), then the
    scores come from one vectorised :func:`contract_score`. Also returns the three
    columns' cells as lists (for messages)."""
    n = r.n
    fields: list[list[np.ndarray]] = []
    texts: list[list[str]] = []
    bad: list[tuple[int, str]] = []  # (row, message) of the first bad cell of each column
    for col, parse, width in (("Contract", _contract_fields, 3),
                              ("Declarer", _declarer_side, 1), ("Result", _result_fields, 2)):
        if col not in data:
            fields.append([np.full(n, -1, dtype=np.int64)] * width)
            texts.append([""] * n)
            continue
        enc = data[col].dictionary_encode()
        idx = _to_numpy(enc.indices).astype(np.int64) if n else np.zeros(0, np.int64)
        uniq = enc.dictionary.to_pylist()
        values = []
        first_bad = None
        for j, u in enumerate(uniq):
            try:
                v = parse(u)
            except ValueError as exc:
                row = int(np.argmax(idx == j))
                if first_bad is None or row < first_bad[0]:
                    first_bad = (row, str(exc))
                v = parse("")
            values.append(v if isinstance(v, tuple) else (v,))
        if first_bad is not None:
            bad.append(first_bad)
        table = np.array(values, dtype=np.int64).reshape(len(uniq), width)
        fields.append([table[:, c][idx] for c in range(table.shape[1])])
        texts.append([uniq[j] for j in idx.tolist()])
    if bad:
        row, msg = min(bad)
        raise InputError(f"{tname} row at {where(r.line[row])}: {msg}")
    (level, strain, dbl), (ns,), (kind, k) = fields
    played = level > 0
    need = played & (kind >= 0) & (ns < 0)
    if need.any():
        i = int(np.argmax(need))
        raise InputError(f"{tname} row at {where(r.line[i])}: declarer must be N, E, S or W "
                         f"for contract {texts[0][i].strip()!r}; found {texts[1][i]!r}")
    pts = np.full(n, np.nan)
    pts[level == 0] = 0.0
    known = played & (kind >= 0)
    if known.any():
        v = vul[r.game][known]
        side = ns[known]
        taken = _declarer_tricks(kind[known], k[known], side)
        vulnerable = (v == 3) | ((v == 1) & (side == 1)) | ((v == 2) & (side == 0))
        got = contract_score(level[known], strain[known], dbl[known], taken, vulnerable,
                             tricks=True).astype(np.float64)
        pts[known] = np.where(side == 1, got, -got)
    return pts, texts


def _tag_rows(games: list[PbnGame], idx: list[int], vul_of: Any, mismatches: list) -> _Rows:
    """One row per game from its tags."""
    import pyarrow as pa

    r = _Rows(len(idx), from_table=False)
    r.tricks = np.full(r.n, np.nan)
    text: dict[str, list[str]] = {t: [] for t in ("Contract", "Declarer", "North", "South",
                                                  "East", "West", "PairNS", "PairEW")}
    have_seats = True
    have_pairs = True
    for c in ("IMP_NS", "MP_NS", "Percentage_NS"):
        r.scores[c] = np.full(r.n, np.nan)
    for k, gi in enumerate(idx):
        g = games[gi]
        r.game[k] = gi
        for t, values in text.items():
            values.append(g.get(t))
        decl, con, res = g.get("Declarer"), g.get("Contract"), g.get("Result")
        t = res.strip().lstrip("^")
        if t.isdigit():
            r.tricks[k] = float(t)
        vul = vul_of(g)
        v = _contract_points(con, decl, res, vul, f"the game at {g.where('Contract')}")
        if g.get("Score").strip() not in ("", "?", "-"):
            r.line[k] = g.line_of("Score")
            r.ns[k] = _side_value(g.get("Score"), decl, f"tag [Score] at {g.where('Score')}")
            if v is not None and v != r.ns[k] and "^" not in g.get("Score"):
                mismatches.append(_mismatch(g.get("Board").strip(), g.where("Score"),
                                            float(r.ns[k]), v, con, decl, res, vul))
        else:
            r.line[k] = g.line_of("Contract") if "Contract" in g.tags else g.line
            if v is None:
                r.keep[k] = False
            else:
                r.ns[k] = v
        if r.keep[k]:
            have_seats = have_seats and all(_known(text[s][k]) for s in
                                            ("North", "South", "East", "West"))
            have_pairs = have_pairs and _known(text["PairNS"][k]) and _known(
                text["PairEW"][k])
        for tag, col in (("ScoreIMP", "IMP_NS"), ("ScoreMP", "MP_NS"),
                         ("ScorePercentage", "Percentage_NS")):
            if tag in g.tags:
                v = _side_value(g.get(tag), decl, f"tag [{tag}] at {g.where(tag)}",
                                mp=tag != "ScoreIMP")
                if v is not None:
                    r.scores[col][k] = v
    arrow = {t: pa.array(v, pa.string()) for t, v in text.items()}
    r.contract, r.declarer = arrow["Contract"], arrow["Declarer"]
    if have_seats:
        r.seats = [arrow[s] for s in ("North", "South", "East", "West")]
    if have_pairs:
        r.ns_pair, r.ew_pair = arrow["PairNS"], arrow["PairEW"]
    return r


def pbn_results(text: str | bytes, name: str = "<string>", *, period: Any = None,
                by_match: bool = True, ignore_names: bool = False) -> PbnResults:
    """:func:`read_pbn_results` of PBN text (``name`` is used in messages)."""
    return _results(_parse(text, name, ["ScoreTable"]), period, by_match, ignore_names)


def read_pbn_results(path: Any, *, period: Any = None, by_match: bool = True,
                     ignore_names: bool = False) -> PbnResults:
    """Read the table results of a PBN file: :class:`PbnResults` (the Boards and, per
    table result, the file's own score columns).

    A board is identified by its event label and Board tag; the event label is the
    DealId tag when given, else Event / Round / Section / Stage, and for team games
    (HomeTeam and VisitTeam tags, no ScoreTable) with ``by_match`` also the two teams,
    so each match's board holds its two rooms (cross-IMPs of two results = the IMPs of
    the room difference). ``period``: None, a length (``"3d"``, from the Date and Time
    tags) or the name of a tag whose values label the rating periods (``"Round"``).

    Checks: the Board tag is a whole number >= 1; the contract, declarer, result and
    vulnerability are checked wherever given, also when a printed score is used; a
    printed score (a [Score] tag, or a ScoreTable's Score_NS/Score_EW) that contradicts
    its own contract gets one :class:`PbnScoreWarning` per file naming the boards (the
    printed score is used). A player at two tables of a board is an error, unless
    ``ignore_names``: then the names are not read (no players, no pairs), for files
    that list twins by surname or a robot such as GIB in several seats; the results can
    be scored, not rated."""
    data, name = _read_bytes(path)
    return _results(_parse(data, name, ["ScoreTable"]), period, by_match, ignore_names)


def read_pbn_boards(path: Any, period: Any = None, *, by_match: bool = True,
                    ignore_names: bool = False) -> Boards:
    """The table results of a PBN file as :class:`~fastrate.data.boards.Boards` (see
    :func:`read_pbn_results`; rows skipped are counted in ``Boards.dropped``)."""
    return read_pbn_results(path, period=period, by_match=by_match,
                            ignore_names=ignore_names).boards


def _results(parsed: _Parsed, period: Any, by_match: bool, ignore_names: bool = False
             ) -> PbnResults:
    """The steps of :func:`read_pbn_results`, one function each: identify each game's
    board, pick each board's traveller, collect the rows of ScoreTables and of game
    tags, count the rows skipped, decide who identifies the tables, expand
    Multiplicity into one row per table result, and build the Boards and the table."""
    games = parsed.games
    if not games:
        raise InputError(f"no games in {parsed.name}: a PBN file has tag pairs such as "
                         "[Board \"1\"]")
    keys = _GameKeys(games, by_match)
    drops: list[tuple[str, int, int]] = []  # (reason, count, first line)
    used, tag_games = _travellers(games, keys, drops)
    where = _row_where(parsed.lines)
    mismatches: list[tuple[str, str]] = []
    parts = _collect_rows(parsed, keys, used, tag_games, where, mismatches)
    _count_skipped(parts, drops)
    participants, with_pairs = ("none", False) if ignore_names else _who(parts, where)
    rows = _Expanded(parts, drops, parsed.name)
    board, event = _board_ids(rows, keys)
    boards = _build_boards(rows, board, event if any(keys.labels) else None, games,
                           participants, with_pairs, period, parsed.name)
    dropped = tuple((reason, count, parsed.lines.at_line(line))
                    for reason, count, line in drops)
    boards = dataclasses.replace(boards, dropped=dropped + boards.dropped)
    out = PbnResults(boards, _results_table(rows, board, event), games, participants)
    _warn_mismatches(mismatches, parsed.name)
    return out


class _GameKeys:
    """The board of every game: its event label and Board tag (``key``), whether it has
    a ScoreTable and whether it is a team game scored by match."""

    def __init__(self, games: list[PbnGame], by_match: bool):
        self.has_table = np.array(["ScoreTable" in g.tables for g in games], dtype=np.bool_)
        teams = [by_match and not self.has_table[i] and _known(g.get("HomeTeam"))
                 and _known(g.get("VisitTeam")) for i, g in enumerate(games)]
        self.labels = [_label(g, bool(teams[i])) for i, g in enumerate(games)]
        self.boards = []
        for g in games:
            b = g.get("Board").strip()
            if not b or b == "?":
                raise InputError(f"the game at {g.where()} has no [Board] tag: a table "
                                 "result needs its board (Event and Board identify it)")
            if re.fullmatch(r"[0-9]{1,18}", b) is None or int(b) == 0:
                raise InputError(f"tag [Board] must be the board number, a whole number "
                                 f">= 1; found {g.get('Board')!r} at {g.where('Board')}")
            self.boards.append(b)
        self.key = list(zip(self.labels, self.boards))
        self._vul: dict[int, int] = {}

    def vulnerability(self, g: PbnGame) -> int:
        """The game's vulnerability code (read once per game)."""
        if g.index not in self._vul:
            self._vul[g.index] = _game_vulnerability(g)
        return self._vul[g.index]


def _travellers(games: list[PbnGame], keys: _GameKeys, drops: list
                ) -> tuple[np.ndarray, list[int]]:
    """The first ScoreTable of each board is its traveller: returns which games' tables
    are used, and the games whose tags give a result (boards without a ScoreTable).
    Repeated ScoreTables and game results already in a traveller are counted in
    ``drops``."""
    has_table, key = keys.has_table, keys.key
    owner: dict[tuple[str, str], int] = {}
    for i in np.flatnonzero(has_table).tolist():
        owner.setdefault(key[i], i)
    used = np.zeros(len(games), dtype=np.bool_)
    repeated_rows, repeated_line = 0, 0
    for i in np.flatnonzero(has_table).tolist():
        if owner[key[i]] == i:
            used[i] = True
        else:
            t = games[i].tables["ScoreTable"]
            repeated_rows += t.n_rows
            repeated_line = repeated_line or t.line
    if repeated_rows:
        drops.append(("row of a repeated ScoreTable of a board (the board's first "
                      "ScoreTable is used)", repeated_rows, repeated_line))
    covered = [i for i in range(len(games)) if not has_table[i] and key[i] in owner]
    if covered:
        g = games[covered[0]]
        drops.append(("game result already in its board's ScoreTable", len(covered),
                      g.line_of("Score") if "Score" in g else g.line))
    tag_games = [i for i in range(len(games)) if not has_table[i] and key[i] not in owner]
    return used, tag_games


def _collect_rows(parsed: _Parsed, keys: _GameKeys, used: np.ndarray, tag_games: list[int],
                  where: Any, mismatches: list) -> list[_Rows]:
    """The rows of the used ScoreTables (one part per group of tables that share a
    column specification) and one row per game scored by its tags. Printed scores that
    contradict their contracts are added to ``mismatches``."""
    games = parsed.games
    keys_vul = keys.vulnerability
    vul = np.zeros(len(games), dtype=np.int64)
    parts: list[_Rows] = []
    for grp in parsed.groups:
        if grp.name != "ScoreTable":
            continue
        g_used = np.array([used[gi] for gi, _ in grp.tables], dtype=np.bool_)
        if not g_used.any():
            continue
        for gi, _ in grp.tables:
            if used[gi]:
                vul[gi] = keys_vul(games[gi])
        parts.append(_table_rows(grp, g_used, games, vul, where, mismatches))
    if tag_games:
        parts.append(_tag_rows(games, tag_games, keys_vul, mismatches))
    return parts


def _mismatch(board: str, where: str, printed: float, computed: float, contract: str,
              declarer: str, tricks: str, vul: int) -> tuple[str, str]:
    """(board, description) of a printed score that contradicts its contract."""
    ns = _declarer_ns(declarer)
    vulnerable = vul == 3 or (vul == 1 and ns) or (vul == 2 and not ns)

    def side(v: float) -> str:
        return f"NS {v:g}"

    if _PASSED.match(contract.strip()):
        return board, (f"board {board} at {where}: printed {side(printed)}, but the contract "
                       f"is {contract.strip()} (passed out), which scores NS 0")
    t = tricks.strip().lstrip("^")
    took = f"taking {t} tricks" if t.isdigit() else f"with result {t!r}"
    return board, (f"board {board} at {where}: printed {side(printed)}, but "
                   f"{contract.strip()} by {declarer.strip().lstrip('^').upper()} {took}, "
                   f"{'' if vulnerable else 'not '}vulnerable, scores {side(computed)}")


def _warn_mismatches(mismatches: list, name: str) -> None:
    """One :class:`PbnScoreWarning` naming every board whose printed score contradicts
    its contract (the first three in full)."""
    if not mismatches:
        return
    first: dict[str, str] = {}
    for board, text in mismatches:
        first.setdefault(board, text)
    boards = list(first)
    detail = "; ".join(first[b] for b in boards[:3])
    rest = boards[3:]
    more = ""
    if rest:
        more = f"; also board(s) {', '.join(rest[:20])}"
        if len(rest) > 20:
            more += f" and {len(rest) - 20} more"
    warnings.warn(f"{name}: the printed score of {len(boards)} board(s) contradicts its "
                  f"contract (Law 77; the printed score is used): {detail}{more}",
                  PbnScoreWarning, stacklevel=4)


def _count_skipped(parts: list[_Rows], drops: list) -> None:
    """Rows without a result, and ScoreTable rows that stand for no table."""
    for p in parts:
        miss = ~p.keep
        if miss.any():
            reason = ("ScoreTable row without a score ('-' or '?')" if p.from_table
                      else "game without a result (no [Score], no [Contract] with [Result])")
            drops.append((reason, int(miss.sum()), int(p.line[np.argmax(miss)])))
    for p in parts:
        zero = p.keep & (p.mult == 0)
        if zero.any():
            drops.append(("ScoreTable row with Multiplicity 0 (it stands for no table)",
                          int(zero.sum()), int(p.line[np.argmax(zero)])))


def _who(parts: list[_Rows], where: Any) -> tuple[str, bool]:
    """What identifies the tables, the same for every row: ``"players"``, ``"pairs"``
    or ``"none"``; and whether every part names pairs (then a row must stand for one
    table)."""
    kept = [p for p in parts if p.keep.any()]
    if kept and all(p.seats is not None for p in kept):
        participants = "players"
    elif kept and all(p.ns_pair is not None for p in kept):
        participants = "pairs"
    else:
        participants = "none"
    with_pairs = bool(kept) and all(p.ns_pair is not None for p in kept)
    if with_pairs:
        for p in parts:
            big = p.keep & (p.mult > 1)
            if big.any():
                i = int(np.argmax(big))
                raise InputError(f"a ScoreTable row that names its pairs must stand for one "
                                 f"table; found Multiplicity {int(p.mult[i])} at "
                                 f"{where(p.line[i])}")
    return participants, with_pairs


class _Expanded:
    """One input row per table result, in file order: a ScoreTable row with
    Multiplicity m becomes m rows (``copy`` 0..m-1). ``numbers`` and ``text`` gather a
    per-row column of the parts into that order."""

    def __init__(self, parts: list[_Rows], drops: list, name: str):
        import pyarrow as pa

        self.parts = parts
        game = np.concatenate([p.game for p in parts]) if parts else np.zeros(0, np.int64)
        self.order = np.argsort(game, kind="stable")
        keep = self._cat(lambda p: p.keep & (p.mult > 0), False)
        mult = np.where(keep, self._cat(lambda p: p.mult, 1), 0)
        self.rep = np.repeat(np.arange(keep.shape[0]), mult)
        n = self.rep.shape[0]
        if n == 0:
            why = "; ".join(f"{c} {r}" for r, c, _ in drops) or "no ScoreTable and no [Score]"
            raise InputError(f"no table results in {name}: {why}")
        self.rows = self.order[self.rep]  # row of the concatenated parts of every result
        self._take = pa.array(self.rows)
        starts = np.cumsum(mult) - mult
        self.copy = np.arange(n, dtype=np.int64) - starts[self.rep]
        self.multiplicity = mult[self.rep]
        self.game = game[self.rows]
        self.line = self.numbers(lambda p: p.line, 0)
        self.ns = self.numbers(lambda p: p.ns, np.nan)
        self.artificial = self.numbers(lambda p: p.artificial, 0)

    def _cat(self, get: Any, fill: Any) -> np.ndarray:
        """A per-row column of the parts, in file order (one row per ScoreTable row)."""
        return np.concatenate([get(p) if get(p) is not None else np.full(p.n, fill)
                               for p in self.parts])[self.order]

    def numbers(self, get: Any, fill: Any) -> np.ndarray:
        """A per-row NumPy column of the parts, one row per table result."""
        return self._cat(get, fill)[self.rep]

    def text(self, get: Any) -> Any:
        """A per-row Arrow string column of the parts, one row per table result."""
        import pyarrow as pa

        arrays = [get(p) if get(p) is not None else pa.nulls(p.n, pa.string())
                  for p in self.parts]
        return (pa.concat_arrays(arrays) if len(arrays) > 1 else arrays[0]).take(self._take)

    def given(self, get: Any) -> bool:
        return any(get(p) is not None for p in self.parts)


def _board_ids(rows: _Expanded, keys: _GameKeys) -> tuple[Any, Any]:
    """The board of every result (int64 numbers when every Board tag is a number, else
    Arrow strings) and its event label (Arrow dictionary)."""
    import pyarrow as pa

    uniq: dict[str, int] = {}
    label_code = np.array([uniq.setdefault(lb, len(uniq)) for lb in keys.labels],
                          dtype=np.int32)
    event = pa.DictionaryArray.from_arrays(pa.array(label_code[rows.game]),
                                           pa.array(list(uniq), pa.string()))
    board = np.array([int(b) for b in keys.boards], dtype=np.int64)[rows.game]
    return board, event


def _build_boards(rows: _Expanded, board: Any, event: Any, games: list[PbnGame],
                  participants: str, with_pairs: bool, period: Any, name: str) -> Boards:
    """:meth:`Boards.from_arrays` of the results: players or pairs, the games' times and
    the rating periods (a length, or the name of a tag that labels them)."""
    src = _PbnSource(name, columns=(("ns_score", "Score_NS"),), row_lines=rows.line)
    kwargs: dict[str, Any] = {}
    if participants == "players":
        for j, seat in enumerate(("north", "south", "east", "west")):
            kwargs[seat] = rows.text(lambda p, j=j: p.seats[j] if p.seats else None)
    if with_pairs:
        kwargs["ns_pair"] = rows.text(lambda p: p.ns_pair)
        kwargs["ew_pair"] = rows.text(lambda p: p.ew_pair)
    time = _times(games)
    if time is not None:
        kwargs["time"] = time[rows.game]
    if period is not None:
        kwargs["period"] = _period(games, period, time, rows.game)
    art = rows.artificial
    try:
        return Boards.from_arrays(board, rows.ns, event=event,
                                  artificial=art if art.any() else None, source=src,
                                  anonymous=participants == "none", **kwargs)
    except InputError as exc:
        if isinstance(period, str) and str(exc).startswith("unknown period"):
            raise InputError(f"{exc}; or the name of a tag that labels the periods, but no "
                             f"game of {name} has a [{period}] tag") from None
        if " plays twice on board " in str(exc) or " sits twice at one table " in str(exc):
            raise InputError(f"{exc}; if these are different people under one name (twins "
                             "listed by surname, a robot such as GIB in two seats), score "
                             "the file without names: --ignore-names (ignore_names=True); "
                             "ratings need a name of its own for each person") from None
        raise


def _period(games: list[PbnGame], period: Any, time: np.ndarray | None,
            game: np.ndarray) -> Any:
    """``period`` for :meth:`Boards.from_arrays`: the values of the tag it names, or the
    length itself (which needs every game's date)."""
    if isinstance(period, str) and any(period in g.tags for g in games):
        return np.array([g.get(period) for g in games], dtype=object)[game]
    if time is None:
        bad = next(g for g in games if not _date_known(g))
        raise InputError(f"period {period!r} is a length, which needs the date of every "
                         f"game; the game at {bad.where('Date')} has Date "
                         f"{bad.get('Date')!r} (give dates as YYYY.MM.DD, or a tag name "
                         "such as period='Round')")
    return period


def _results_table(rows: _Expanded, board: Any, event: Any) -> Any:
    """:attr:`PbnResults.table`: one row per result, with the file's own columns."""
    import pyarrow as pa

    from_table = rows.numbers(lambda p: np.full(p.n, p.from_table), False)
    origin = np.where(from_table, 0, 1)
    cols: dict[str, Any] = {
        "game": pa.array(rows.game), "line": pa.array(rows.line), "event": event,
        "board": pa.array(board) if isinstance(board, np.ndarray) else board,
        "origin": pa.DictionaryArray.from_arrays(pa.array(origin.astype(np.int32)),
                                                 pa.array(["ScoreTable", "tags"])),
        "multiplicity": pa.array(rows.multiplicity), "copy": pa.array(rows.copy),
        "ns_score": pa.array(rows.ns),
        "adjusted": pa.array(rows.numbers(lambda p: p.adjusted, False).astype(np.bool_)),
    }
    if rows.given(lambda p: p.contract):
        cols["contract"] = rows.text(lambda p: p.contract)
    if rows.given(lambda p: p.declarer):
        cols["declarer"] = rows.text(lambda p: p.declarer)
    if rows.given(lambda p: p.tricks):
        cols["tricks"] = pa.array(rows.numbers(lambda p: p.tricks, np.nan))
    for c in SCORE_COLUMNS:
        if any(c in p.scores for p in rows.parts):
            cols[c] = pa.array(rows.numbers(lambda p, c=c: p.scores.get(c), np.nan))
    return pa.table(cols)


def _date_known(g: PbnGame) -> bool:
    return re.match(r"^\d{4}\.\d{2}\.\d{2}$", g.get("Date").strip()) is not None


def _times(games: list[PbnGame]) -> np.ndarray | None:
    """datetime64[ns] of every game from Date (+ Time), or None when a date is unknown."""
    out = np.empty(len(games), dtype="datetime64[ns]")
    for i, g in enumerate(games):
        if not _date_known(g):
            return None
        text = g.get("Date").strip().replace(".", "-")
        t = g.get("Time").strip()
        if re.match(r"^\d{2}:\d{2}(:\d{2})?$", t):
            text += "T" + t
        try:
            out[i] = np.datetime64(text, "ns")
        except ValueError:
            raise InputError(f"tag [Date] must be a date YYYY.MM.DD; found "
                             f"{g.get('Date')!r} at {g.where('Date')}") from None
    return out
