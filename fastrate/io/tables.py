"""Reading games and ratings from CSV/Parquet/JSON (via pyarrow) and writing results.

Common layouts are recognised (see :func:`games_from_table`); every output file is
written atomically (temporary file in the same folder, then renamed), so a failed run
never leaves a partial file behind.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fastrate._files import atomic_file, is_special_file
from fastrate._validate import Source, to_arrow_table
from fastrate.data.game_table import game_layout, release_arrow_memory
from fastrate.data.games import games_from_box
from fastrate.data.state import FIRST_LINE_KEY, SOURCE_KEY
from fastrate.errors import InputError

__all__ = ["read_table", "read_games", "read_ratings", "games_from_table", "write_table",
           "table_writer", "csv_delimiter", "read_error", "check_text", "check_encoding", "ragged_row", "text_source",
           "compression_of", "check_content", "check_header", "file_encoding",
           "csv_read_options", "not_utf8_file", "check_path", "check_options", "GAME_OPTIONS",
           "atomic_file", "to_arrow_table", "source_for", "format_of", "FORMATS"]

FORMATS = ("csv", "parquet", "json")



# ----------------------------------------------------------------------------------
# tables in


def without_compression(path: str | os.PathLike) -> str:
    """The file's name in lower case without a compression suffix (``.gz``, ``.bz2``,
    ``.zst``, ``.lz4``): ``games.PGN.zst`` -> ``games.pgn``."""
    name = str(path).lower()
    for suffix in _COMPRESSION:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def format_of(path: str | os.PathLike, fmt: str | None, output: bool = False) -> str:
    """The format of a file: ``fmt`` when given, else from its name (``.csv``,
    ``.parquet``, ``.json`` and their compressed forms), else CSV for a device or pipe.
    ``output``: the file is written (the hint then names ``--format``, else
    ``--input-format``)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
        return fmt
    name = without_compression(path)
    for ext, f in ((".csv", "csv"), (".tsv", "csv"), (".txt", "csv"), (".parquet", "parquet"),
                   (".pq", "parquet"), (".json", "json"), (".jsonl", "json"),
                   (".ndjson", "json")):
        if name.endswith(ext):
            return f
    if is_special_file(Path(path)):
        return "csv"  # a device or a pipe (/dev/null, /dev/stdout, a FIFO): CSV unless told
    option = "--format" if output else "--input-format"
    raise InputError(f"cannot tell the format of {path}: name it .csv, .parquet or .json, "
                     f"or pass {option} (format=)")


def csv_delimiter(path: Path) -> str:
    """The field separator of a text table: a tab for ``.tsv`` files, else a comma."""
    return "\t" if ".tsv" in path.name.lower() else ","


#: CSV block size of the streaming reader (each block is one unit of parallel work and
#: one output chunk; the memory held while reading grows with it)
CSV_BLOCK_SIZE = 1 << 20
#: block size of the whole-file reader (the fallback): big blocks parse compressed files
#: several times faster than the 1 MiB default
CSV_READ_BLOCK_SIZE = 16 << 20


def _csv_header(path: Path, encoding: str = "utf-8") -> list[str]:
    """The column names of a CSV file's first line (compressed files too)."""
    import csv as pycsv

    import pyarrow as pa

    with pa.input_stream(str(path), compression=compression_of(path)) as fh:
        head = fh.read(1 << 16)
    line = head.split(b"\n", 1)[0].rstrip(b"\r").decode(
        "utf-8-sig" if encoding == "utf-8" else encoding, errors="replace")
    return next(pycsv.reader([line], delimiter=csv_delimiter(path)), [])


def read_table(path: str | os.PathLike, format: str | None = None,
               columns: list[str] | None = None, text_columns: tuple[str, ...] = (),
               dictionary_columns: tuple[str, ...] = (), encoding: str = "utf-8"):
    """Read a CSV (optionally compressed), Parquet or JSON file into a pyarrow Table.

    Text is read as ``encoding`` (CSV and JSON; default UTF-8, a byte-order mark is
    skipped): text that does not decode is refused with its column, row and byte
    offset, and so is a NUL byte in a text value (never a name such as ``b'Jos\\xe9'``).

    ``columns`` limits the read to those columns, in that order. ``text_columns``: CSV
    columns (names matched case-insensitively) read as text whatever they look like,
    e.g. a bridge ``result`` column whose ``+1`` must not become the number 1.
    ``dictionary_columns``: Parquet text columns read as Arrow dictionary arrays, as the
    file stores them (player names: the interning then hashes each distinct name once,
    not every row).
    """

    p = check_path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    fmt = format_of(p, format)
    encoding = file_encoding(p, fmt, check_encoding(encoding))
    return _read_checked(p, fmt, encoding, columns, text_columns, dictionary_columns)


def _read_checked(p: Path, fmt: str, encoding: str, columns: list[str] | None = None,
                  text_columns: tuple[str, ...] = (), dictionary_columns: tuple[str, ...] = (),
                  columns_of: Callable[[list[str], str], list[str]] | None = None):
    """:func:`read_table` of a checked path, format and encoding; ``columns_of(names,
    file name)``: the columns to keep, picked from the names after reading (JSON, whose
    names are known only then) and before the values are checked."""
    import pyarrow as pa

    try:
        table = _read_any(p, fmt, columns, text_columns, dictionary_columns, encoding)
    except InputError:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError, KeyError) as exc:
        if fmt != "parquet" and encoding == "utf-8" and "utf8" in str(exc).lower().replace(
                "-", ""):
            raise not_utf8_file(p, fmt) from None
        raise read_error(p, fmt, exc) from None
    try:
        names = table.column_names
    except UnicodeDecodeError:
        raise not_utf8_file(p, fmt) from None
    check_header(names, p.name)
    if columns_of is not None:
        table = table.select(_pick_columns(columns_of, table.column_names, p.name))
    return check_text(table, source_for(p.name, fmt), encoding)


def _pick_columns(columns_of: Callable[[list[str], str], list[str]], names: list[str],
                  where: str) -> list[str]:
    """``columns_of(names, where)``, its error noting space-padded column names."""
    try:
        return columns_of(names, where)
    except InputError as exc:
        hint = _padded_hint(names)
        if not hint:
            raise
        raise InputError(f"{exc}{hint}") from None


def check_header(names: list[str], where: str) -> None:
    """Refuse two columns of one name (a reader would silently take one of them)."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise InputError(f"{where} has two columns named {name!r} (columns {seen[name] + 1} "
                             f"and {i + 1}); rename one, so that every column has its own name")
        seen[name] = i


def _padded_hint(names: list[str]) -> str:
    """A note on column names with spaces around them (``white, black``), or on a header
    that is one column holding another separator (``white;black;score``), else ''."""
    if len(names) == 1 and isinstance(names[0], str):
        sep = next((c for c in (";", "\t", "|") if c in names[0]), None)
        if sep is not None:
            return (f"; note: the header is one column, {_short(names[0])!r}: is the file "
                    f"separated by {sep!r}? fastrate reads commas (tabs in a .tsv file)")
    padded = [n for n in names if isinstance(n, str) and n != n.strip()]
    if not padded:
        return ""
    return (f"; note: the column names {', '.join(repr(n) for n in padded)} have spaces "
            "around them (is the file separated by ', '?): remove the spaces")


def _read_any(p: Path, fmt: str, columns: list[str] | None, text_columns: tuple[str, ...],
              dictionary_columns: tuple[str, ...], encoding: str):
    import pyarrow as pa

    check_content(p, fmt)
    if fmt == "csv":
        from pyarrow import csv

        # an empty field is a missing value (a missing name, not a player called '')
        types = {}
        if text_columns:
            want = {c.lower() for c in text_columns}
            types = {c: pa.string() for c in _csv_header(p, encoding) if c.lower() in want}
        convert = csv.ConvertOptions(include_columns=columns or [],
                                     strings_can_be_null=True, column_types=types)
        parse = csv.ParseOptions(delimiter=csv_delimiter(p))
        # the streaming reader holds a few blocks at a time (read_csv holds the whole
        # decompressed file while it parses: ~8x the columns kept, in memory), but it
        # takes the column types from the first block; when a later block does not
        # fit them, read_csv infers them from the whole file
        try:
            return csv.open_csv(text_source(p),
                                read_options=csv_read_options(CSV_BLOCK_SIZE, encoding),
                                parse_options=parse, convert_options=convert).read_all()
        except pa.ArrowInvalid:
            pass
        try:
            return csv.read_csv(text_source(p),
                                read_options=csv_read_options(CSV_READ_BLOCK_SIZE, encoding),
                                parse_options=parse, convert_options=convert)
        except pa.ArrowInvalid as exc:
            if "columns, got" in str(exc):
                raise ragged_row(p, encoding, exc) from None
            raise
    if fmt == "parquet":
        import pyarrow.parquet as pq

        if dictionary_columns:
            schema = pq.read_schema(p)
            text = [c for c in dictionary_columns if c in schema.names and (
                pa.types.is_string(schema.field(c).type)
                or pa.types.is_large_string(schema.field(c).type))]
            return pq.read_table(p, columns=columns, read_dictionary=text or None)
        return pq.read_table(p, columns=columns)
    table = _read_json(p, encoding)
    return table.select(columns) if columns else table


def check_encoding(encoding: Any) -> str:
    """The canonical name of a text encoding (``"utf-8"``, ``"latin-1"`` ...), refusing an
    unknown one."""
    import codecs

    if not isinstance(encoding, str):
        raise InputError(f"encoding must be the name of a text encoding such as 'utf-8' or "
                         f"'latin-1'; got {encoding!r}")
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}: use a Python codec name such as "
                         "'utf-8', 'latin-1', 'cp1252', 'utf-16'") from None
    return "utf-8" if name in ("utf-8", "utf-8-sig") else name


#: byte-order marks of the encodings a text file says it is in (longest first)
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def file_encoding(p: Path, fmt: str, encoding: str) -> str:
    """The encoding to read a CSV or JSON file in: ``encoding``, except that a UTF-16 or
    UTF-32 byte-order mark at the start of a file read as UTF-8 (the default) names its
    encoding; a file read as UTF-8 whose first bytes are a quarter NUL or more (UTF-16
    without a mark) is refused, naming the encoding to give."""
    import pyarrow as pa

    if fmt == "parquet" or encoding != "utf-8" or not p.is_file():
        return encoding
    try:
        with pa.input_stream(str(p), compression=compression_of(p)) as fh:
            head = fh.read(64)
    except (OSError, pa.ArrowException):
        return encoding
    found = next((name for bom, name in _BOMS if head.startswith(bom)), None)
    if found is not None:
        return found
    if len(head) >= 8 and head.count(b"\x00") * 4 >= len(head):
        order = "le" if head[1:2] == b"\x00" else "be"
        raise InputError(f"cannot read {p.name} as {fmt}: it has NUL bytes between its "
                         f"letters, as UTF-16 text does; give --encoding utf-16-{order} "
                         "(encoding=), or save the file as UTF-8")
    return encoding


def csv_read_options(block_size: int, encoding: str = "utf-8"):
    """pyarrow's CSV read options: ``block_size`` bytes a block, text decoded from
    ``encoding`` (Arrow transcodes any encoding other than UTF-8 to it)."""
    from pyarrow import csv

    return csv.ReadOptions(block_size=block_size, encoding=encoding)


_ENCODING_FIX = ("give the file's encoding with --encoding (encoding=), e.g. latin-1 or "
                 "cp1252, or save the file as UTF-8")


def check_text(table: Any, source: Source, encoding: str = "utf-8") -> Any:
    """``table`` with its binary columns decoded as UTF-8 text (CSV and JSON readers make
    a column binary when its bytes are not UTF-8; Parquet may store names so), refusing
    bytes that do not decode -- naming the column, row and byte offset in the value --,
    text values with a NUL byte, and columns of lists or objects."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, name in enumerate(table.column_names):
        col = table.column(i)
        t = col.type
        if pa.types.is_nested(t):
            _refuse_nested(name, col, source)
        if pa.types.is_binary(t) or pa.types.is_large_binary(t):
            try:
                col = pc.cast(col, pa.large_string() if pa.types.is_large_binary(t)
                              else pa.string())
            except pa.ArrowInvalid:
                raise _undecodable(name, col, source, encoding) from None
            table = table.set_column(i, name, col)
        if pa.types.is_dictionary(col.type):
            chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
            if any(_has_nul(c.dictionary) for c in chunks):
                _refuse_nul(name, pc.cast(col, col.type.value_type), source)
            continue
        if _has_nul(col):
            _refuse_nul(name, col, source)
    return table


def _has_nul(values: Any) -> bool:
    """Whether a text array holds a value with a NUL byte (False for other types)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return False
    return bool(pc.any(pc.match_substring(values, "\x00")).as_py())


def _refuse_nested(name: str, col: Any, source: Source) -> None:
    """Refuse a column of lists, objects or maps: every column holds single values."""
    from fastrate._validate import fail_at

    values = col.to_pylist()
    row = next((i for i, v in enumerate(values) if v is not None), 0)
    raise fail_at(name, "must hold single values (text, numbers, dates), not lists or "
                  "objects", {row: values[row] if values else None}, row, source)


def _refuse_nul(name: str, col: Any, source: Source) -> None:
    import numpy as np
    import pyarrow.compute as pc

    from fastrate._validate import arrow_to_numpy, fail_at

    has = pc.fill_null(pc.match_substring(col, "\x00"), False)
    row = int(np.argmax(arrow_to_numpy(has)))
    raise fail_at(name, "must be text without NUL bytes", {row: col[row].as_py()}, row, source,
                  "remove them (a file with NUL bytes everywhere is UTF-16: give "
                  "--encoding utf-16)")


def _undecodable(name: str, col: Any, source: Source, encoding: str) -> InputError:
    """The error for the first value of a binary column that is not UTF-8."""
    from fastrate._validate import fail_at

    row = 0
    for row, value in enumerate(col.to_pylist()):
        if value is None:
            continue
        try:
            value.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = value[exc.start:exc.start + 1]
            return fail_at(name, "must be UTF-8 text", {row: value}, row, source,
                           f"byte 0x{bad.hex()} at offset {exc.start} of the value does not "
                           f"decode; {_ENCODING_FIX}")
    return InputError(f"column '{name}' must be UTF-8 text; {_ENCODING_FIX}")


def ragged_row(p: Path, encoding: str, exc: BaseException) -> InputError:
    """The error for a CSV row with more or fewer fields than the header: its line."""
    import csv as pycsv
    import io

    import pyarrow as pa

    first = str(exc).strip().splitlines()[0]
    with pa.input_stream(str(p), compression=compression_of(p)) as fh:
        raw = fh.read()
    if encoding == "utf-8":
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:  # not text at all, most likely: say that first
            return not_utf8_file(p, "csv")
    text = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8-sig"
                            if encoding == "utf-8" else encoding, errors="replace",
                            newline="")
    reader = pycsv.reader(text, delimiter=csv_delimiter(p))
    header = next(reader, [])
    for row in reader:
        if row and len(row) != len(header):
            shown = _short(", ".join(header))
            return InputError(f"cannot read {p.name} as csv: CSV parse error at line "
                              f"{reader.line_num}: {len(row)} fields but the header has "
                              f"{len(header)} ({shown}); found "
                              f"{_short(csv_delimiter(p).join(row))!r}; "
                              "fix that line (quote a field that holds the separator)")
    return InputError(f"cannot read {p.name} as csv: {first}")


def _short(text: str, limit: int = 80) -> str:
    """``text`` on one line, control characters escaped, cut to ``limit`` characters."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def not_utf8_file(p: Path, fmt: str) -> InputError:
    """The error for a text file whose bytes are not UTF-8: the line and byte offset
    (in the decompressed text) of the first byte that does not decode."""
    import codecs

    import pyarrow as pa

    decoder = codecs.getincrementaldecoder("utf-8")()
    done = line = 0
    with pa.input_stream(str(p), compression=compression_of(p)) as fh:
        while True:
            block = fh.read(1 << 20)
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                start = max(exc.start - (len(exc.object) - len(block)), 0)
                offset = done + start
                line += block[:start].count(b"\n") + 1
                byte = block[start:start + 1].hex() or "??"
                return InputError(f"cannot read {p.name} as {fmt}: it is not UTF-8 text; "
                                  f"byte 0x{byte} at byte offset {offset} (line {line}) "
                                  f"does not decode; {_ENCODING_FIX}")
            if not block:
                break
            line += block.count(b"\n")
            done += len(block)
    return InputError(f"cannot read {p.name} as {fmt}: it is not UTF-8 text; {_ENCODING_FIX}")


def read_error(path: Any, fmt: str, exc: BaseException) -> InputError:
    """The one-line error for a file the reader could not read: its first line."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(f"cannot read {path} as {fmt}: {msg}")


def _read_json(p: Path, encoding: str = "utf-8"):
    """JSON: an array of records, an object of columns, or newline-delimited records.
    A column that mixes kinds of values (text and numbers, lists and single values) is
    refused, naming the column, row (from 1) and value."""
    import pyarrow as pa

    with pa.input_stream(str(p), compression=compression_of(p)) as fh:  # .json.gz too
        raw = fh.read()
    try:
        text = raw.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError:
        if encoding == "utf-8":
            raise not_utf8_file(p, "json") from None
        raise
    stripped = text.lstrip()
    if stripped.startswith("["):
        rows = json.loads(text)
        if not rows:
            raise InputError(f"{p} holds no rows")
        _check_json_records(rows, p.name, "row")
        # every key of every record is a column (a key missing from a record: null)
        keys = list(dict.fromkeys(k for row in rows for k in row))
        try:
            return pa.table({k: [row.get(k) for row in rows] for k in keys})
        except OverflowError:
            raise InputError(f"cannot read {p.name} as json: a number inside a list or "
                             "object does not fit in 64 bits") from None
    if stripped.startswith("{") and "\n{" not in stripped.strip():
        obj = json.loads(text)
        if isinstance(obj, dict) and all(isinstance(v, list) for v in obj.values()):
            for name, values in obj.items():
                _check_json_column(name, values, p.name, "row")
            try:
                return pa.table(obj)
            except OverflowError:
                raise InputError(f"cannot read {p.name} as json: a number inside a list or "
                                 "object does not fit in 64 bits") from None
    from pyarrow import json as pajson

    try:
        return pajson.read_json(pa.BufferReader(text.encode("utf-8")))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # name the column, line and value (Arrow counts rows from 0 and names no value)
        lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
        rows = []
        for number, line in lines:
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise InputError(f"cannot read {p.name} as json: line {number} is not a JSON "
                                 f"record: {exc}") from None
        _check_json_records(rows, p.name, "line", [n for n, _ in lines])
        raise


def _json_kind(value: Any) -> str | None:
    """The kind of a JSON value, for the one-kind-per-column check (None: null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _check_json_records(rows: Any, name: str, unit: str,
                        numbers: list[int] | None = None) -> None:
    """Every record an object, and every field one kind of value across the records."""
    if not isinstance(rows, list):
        raise InputError(f"{name} must hold an array of records; found {type(rows).__name__}")
    first: dict[str, tuple[str, int, Any]] = {}
    for i, row in enumerate(rows):
        where = f"{unit} {numbers[i] if numbers else i + 1} of {name}"
        if not isinstance(row, dict):
            raise InputError(f"every record of {name} must be an object ({{\"white\": ...}}); "
                             f"found {row!r} at {where}")
        for key, value in row.items():
            kind = _json_kind(value)
            if kind is None:
                continue
            if type(value) is int and not -2**63 <= value < 2**63:
                raise InputError(f"column '{key}' must hold numbers that fit in 64 bits; "
                                 f"found {value} at {where}; write it as text (quoted) if "
                                 "it is a name or an id")
            seen = first.setdefault(key, (kind, i, value))
            if seen[0] != kind:
                was = f"{unit} {numbers[seen[1]] if numbers else seen[1] + 1}"
                raise InputError(f"column '{key}' must hold one kind of value; found "
                                 f"{value!r} ({kind}) at {where}, after {seen[0]} "
                                 f"({seen[2]!r} at {was}); fix the value, or write every "
                                 "value of the column alike (e.g. quote all names)")


def _check_json_column(key: str, values: list, name: str, unit: str) -> None:
    _check_json_records([{key: v} for v in values], name, unit)


#: leading bytes of the compressed formats Arrow reads, by codec
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\x28\xb5\x2f\xfd", "zstd"),
          (b"\x04\x22\x4d\x18", "lz4"))


def compression_of(p: Path) -> str | None:
    """The compression of a text file: from its name (``.gz`` ...), else from its first
    bytes (a gzip file named ``games.csv`` is read as gzip); None when plain."""
    codec = _COMPRESSION.get(p.suffix.lower())
    if codec is not None:
        return codec
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return None
    return compression_of_head(head)


def compression_of_head(head: bytes) -> str | None:
    """The compression a file's first bytes (4 suffice) say, or None."""
    return next((c for magic, c in _MAGIC if head.startswith(magic)), None)


def text_source(p: Path) -> Any:
    """What Arrow's CSV reader should open: the path, or a decompressing stream when the
    content is compressed but the name does not say so."""
    import pyarrow as pa

    codec = compression_of(p)
    if codec is None or _COMPRESSION.get(p.suffix.lower()) is not None:
        return p
    return pa.input_stream(str(p), compression=codec)


def check_content(p: Path, fmt: str) -> None:
    """Refuse a file whose content is plainly of another format than ``fmt`` (a Parquet
    file named ``.csv``, a text file named ``.parquet``), saying what it is."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return
    if fmt != "parquet" and head == b"PAR1":
        raise InputError(f"cannot read {p.name} as {fmt}: it is a Parquet file (its content "
                         "says so); name it .parquet or pass --input-format parquet "
                         "(format='parquet')")
    if fmt == "parquet" and head and head != b"PAR1":
        codec = next((c for magic, c in _MAGIC if head.startswith(magic)), None)
        what = f"a {codec} file" if codec else "not a Parquet file (it does not start with PAR1)"
        raise InputError(f"cannot read {p.name} as parquet: it is {what}; name it for its "
                         "format (.csv, .csv.gz, .json) or pass --input-format")


def source_for(source: str | Source | None, format: str | None = None) -> Source:
    """A Source for error messages; data row 1 is line 2 of a CSV file (one header line).
    ``format`` is the file's format when given explicitly (else from the name)."""
    if isinstance(source, Source):
        return source
    if not source:
        return Source()
    try:
        text = format_of(source, format) == "csv"
    except InputError:
        text = False
    return Source(source, first_line=2 if text else 0)



def games_from_table(table, *, white: str | None = None, black: str | None = None,
                     score: str | None = None, winner: str | None = None,
                     loser: str | None = None, first_points: str | None = None,
                     second_points: str | None = None, time: str | None = None,
                     time_format: str | None = None, period: str | float | None = None,
                     weight: str | None = None, margin: str | None = None,
                     neutral: str | None = None, sort: bool = True,
                     drop_self_play: bool = False,
                     source: str | Source | None = None, context: str | None = None,
                     best_of: str | None = None, share: str | None = None,
                     tennis_score: str | None = None, entry: str | None = None,
                     entry_rd: str | None = None, players: Any = None):
    """Build :class:`fastrate.Games` from a table, recognising common layouts.

    Players: ``white``/``black``, ``player1``/``player2``, ``home_team``/``away_team``,
    ``team1``/``team2``, ``winner``/``loser`` (score 1 for every row) and their ``_id``/
    ``_name`` forms. Score: a ``score``/``result`` column (numbers or ``1-0``/``0-1``/
    ``1/2-1/2``), or two points columns (``home_score``/``away_score``, ``score1``/
    ``score2``) giving score (win/draw/loss) and margin (first minus second). Time: a
    ``date``/``time`` column (dates, timestamps, ISO strings, YYYYMMDD integers, or
    ``time_format``). ``period`` is a column name (e.g. ``season``) or a length spec
    (``"1w"``, ``"month"``). Recognised names are matched case-insensitively; names
    given explicitly must match exactly (a near miss gets a "did you mean").
    Elo's modelling levers read ``context=`` (e.g. a surface column), ``best_of=`` (the
    match format; a column named ``best_of`` is picked up), ``share=`` (the first
    player's share of the points) or ``tennis_score=`` (a tennis score such as
    ``6-4 3-6 7-6(5)``, from the winner's side, giving the share of games) and
    ``entry=`` (a newcomer's starting rating; Elo and the Glicko family) and ``entry_rd=``
    (a newcomer's starting rating deviation; Glicko, Glicko-2, Stephenson).
    ``players``: the player columns hold integer ids into this index (or list of names)
    instead of names.

    Rows where a player plays himself are refused, or with ``drop_self_play=True``
    dropped and counted in ``games.dropped`` (errors still name the original rows).
    """
    box = [table]
    del table
    return games_from_box(box, white=white, black=black, score=score, winner=winner,
                           loser=loser, first_points=first_points, second_points=second_points,
                           time=time, time_format=time_format, period=period, weight=weight,
                           margin=margin, neutral=neutral, sort=sort,
                           drop_self_play=drop_self_play, source=source_for(source),
                           context=context, best_of=best_of, share=share,
                           tennis_score=tennis_score, entry=entry, entry_rd=entry_rd,
                           players=players)


def column_names(path: Path, fmt: str, encoding: str = "utf-8") -> list[str] | None:
    """The column names of a file, read cheaply (header / schema only); None if unknown."""
    import pyarrow as pa

    try:
        if fmt == "csv":
            from pyarrow import csv

            reader = csv.open_csv(text_source(path),
                                  read_options=csv_read_options(1 << 16, encoding),
                                  parse_options=csv.ParseOptions(delimiter=csv_delimiter(path)))
            return list(reader.schema.names)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
    except UnicodeDecodeError:  # a column name that is not text in the encoding
        raise not_utf8_file(path, fmt) if encoding == "utf-8" else read_error(
            path, fmt, ValueError(f"its header is not {encoding} text")) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError):
        return None
    return None


def read_needed_columns(path: str | os.PathLike, format: str | None,
                        columns_of: Callable[[list[str], str], list[str]],
                        dictionary_of: Callable[[list[str], str], list[str]] | None = None,
                        encoding: str = "utf-8") -> tuple[Any, Source]:
    """A file's table, limited (CSV and Parquet, whose header or schema is read first) to
    the columns ``columns_of(column names, file name)`` picks, and the Source that names
    the file's lines in errors. ``dictionary_of(column names, file name)``: the Parquet
    text columns to read as dictionary arrays (see :func:`read_table`)."""
    p = check_path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    fmt = format_of(p, format)
    encoding = file_encoding(p, fmt, check_encoding(encoding))
    names = column_names(p, fmt, encoding)
    if names is None:  # JSON: the names are known once the file is read
        table = _read_checked(p, fmt, encoding, columns_of=columns_of)
        release_arrow_memory()
        return table, source_for(p.name, fmt)
    check_header(names, p.name)
    wanted = _pick_columns(columns_of, names, p.name)
    dictionary = () if dictionary_of is None or fmt != "parquet" \
        else tuple(dictionary_of(names, p.name))
    extra = {} if encoding == "utf-8" else {"encoding": encoding}
    table = read_table(p, fmt, columns=wanted, dictionary_columns=dictionary, **extra)
    release_arrow_memory()  # the parser's buffers
    return table, source_for(p.name, fmt)


def _player_columns(layout: Any) -> list[str]:
    return [layout.first, layout.second]


#: the column options of :func:`read_games` (see :func:`games_from_table`)
GAME_OPTIONS = ("white", "black", "score", "winner", "loser", "first_points", "second_points",
                "time", "time_format", "period", "weight", "margin", "neutral", "sort",
                "drop_self_play", "source", "context", "best_of", "share", "tennis_score",
                "entry", "entry_rd")


def check_path(path: Any, what: str = "path") -> Path:
    """``path`` (a str or os.PathLike) as a Path, else an error naming the argument."""
    from fastrate.errors import InputTypeError

    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"{what} must be a file path (str or pathlib.Path); got "
                             f"{type(path).__name__} {path!r}")
    return Path(path)


def check_options(given: dict[str, Any], known: tuple[str, ...], function: str) -> None:
    """Refuse keyword arguments that ``function`` does not take, naming them (and the
    closest known one)."""
    import difflib

    from fastrate.errors import InputTypeError

    for name in given:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]}=?" if close else ""
            raise InputTypeError(f"{function}() got an unknown argument {name}=; its "
                                 f"arguments are {', '.join(known)}{hint}")


def read_games(path: str | os.PathLike, *, format: str | None = None,
               encoding: str = "utf-8", **columns: Any):
    """Read games from a CSV/Parquet/JSON file; see :func:`games_from_table` for layouts
    and column options (``white=``, ``score=``, ``time=``, ``period=`` ...).

    Only the columns the games need are read (CSV and Parquet), so unrelated columns
    cost nothing and cannot fail the read. ``encoding``: the text encoding of a CSV or
    JSON file (default UTF-8; e.g. ``"latin-1"``); text that does not decode is refused.
    """
    path = check_path(path)
    check_options(columns, ("format", "encoding", *GAME_OPTIONS), "read_games")
    layout_options = {k: v for k, v in columns.items()
                      if k not in ("time_format", "sort", "source", "drop_self_play")}
    table, src = read_needed_columns(
        path, format, lambda names, where: game_layout(names, where, **layout_options).columns(),
        lambda names, where: _player_columns(game_layout(names, where, **layout_options)),
        encoding=encoding)
    box = [table]
    del table
    opts: dict[str, Any] = {k: None for k in GAME_OPTIONS}
    opts.update(sort=True, drop_self_play=False, source=src)
    opts.update(columns)
    return games_from_box(box, **opts)


def read_ratings(path: str | os.PathLike, format: str | None = None, encoding: str = "utf-8"):
    """Read a saved-state table (a previous ``fastrate rate`` output for ``initial=``, or
    bridge partnerships for ``partnerships=``) as a pyarrow Table; errors in it then
    name the file and line."""
    path = check_path(path)
    fmt = format_of(path, format)
    table = read_table(path, fmt, encoding=encoding)
    meta = dict(table.schema.metadata or {})
    meta[SOURCE_KEY] = Path(path).name.encode()
    meta[FIRST_LINE_KEY] = str(source_for(Path(path).name, fmt).first_line).encode()
    return table.replace_schema_metadata(meta)


# ----------------------------------------------------------------------------------
# tables out


#: file-name suffix -> pyarrow codec, for compressed CSV/JSON output
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}


def write_table(table: Any, path: str | os.PathLike | None, format: str | None = None,
                stream: Any = None) -> None:
    """Write a table as CSV, Parquet or JSON (records) to ``path`` atomically, or to
    ``stream`` (a binary file object) when ``path`` is None.

    A ``.gz``/``.bz2``/``.zst``/``.lz4`` suffix compresses CSV and JSON output. The table
    is written to a temporary file in the same folder and renamed over ``path`` only when
    complete, so a failed write leaves neither a partial file nor a temporary one.
    """
    import pyarrow as pa

    table = to_arrow_table(table)
    if path is None:
        fmt = format or "csv"
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
        _write(table, stream, fmt)
        return
    fmt = format_of(path, format, output=True)
    if format is not None:
        try:
            by_name = format_of(path, None, output=True)
        except InputError:
            by_name = None
        if by_name is not None and by_name != fmt:
            raise InputError(f"cannot write {path}: its name says {by_name} but the format "
                             f"asked for is {fmt}; rename the file or drop the format")
    target, codec = _write_target(path, fmt)
    with atomic_file(target) as fh:
        if codec is None:
            _write(table, fh, fmt)
        else:
            with pa.CompressedOutputStream(fh, codec) as out:
                _write(table, out, fmt)


@contextlib.contextmanager
def table_writer(path: str | os.PathLike, format: str | None = None
                 ) -> Iterator[Callable[[Any], None]]:
    """``write(table)`` for tables of one schema that together make the file ``path``
    (CSV, also compressed, or Parquet: written as they come; JSON: gathered and written
    at the end), atomically as :func:`write_table`: the file appears complete when the
    block ends without an error, and not at all otherwise."""
    import pyarrow as pa

    fmt = format_of(path, format, output=True)
    target, codec = _write_target(path, fmt)
    pieces: list[Any] = []
    with atomic_file(target) as fh:
        out = fh if codec is None else pa.CompressedOutputStream(fh, codec)
        writer: Any = None

        def write(table: Any) -> None:
            nonlocal writer
            table = to_arrow_table(table)
            if fmt == "json":
                pieces.append(table)
                return
            if writer is None:
                if fmt == "csv":
                    from pyarrow import csv

                    writer = csv.CSVWriter(out, table.schema)
                else:
                    import pyarrow.parquet as pq

                    writer = pq.ParquetWriter(out, table.schema)
            writer.write_table(table)

        try:
            yield write
            if fmt == "json" and pieces:
                _write(pa.concat_tables(pieces), out, fmt)
        finally:
            if writer is not None:
                writer.close()
            if codec is not None:
                out.close()


def _write_target(path: str | os.PathLike, fmt: str) -> tuple[Path, str | None]:
    """The file to write and its compression codec (None), checked: no compressed
    Parquet, an existing folder."""
    target = Path(path)
    codec = _COMPRESSION.get(target.suffix.lower())
    if codec is not None and fmt == "parquet":
        raise InputError(f"cannot write {path}: Parquet is compressed inside the file; name it "
                         ".parquet")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        why = f"{folder} is a file, not a folder" if folder.exists() else \
            f"folder {folder} does not exist"
        raise InputError(f"cannot write {path}: {why}; choose another output path")
    if target.is_dir():
        raise InputError(f"cannot write {path}: it is a folder; name a file")
    return target, codec


def _write(table, fh, fmt: str) -> None:
    if fmt == "csv":
        from pyarrow import csv

        csv.write_csv(table, fh)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, fh)
    else:
        rows = table.to_pylist()
        fh.write(json.dumps(rows, default=str, indent=None, ensure_ascii=False).encode())
        fh.write(b"\n")
