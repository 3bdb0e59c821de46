"""Reading table results of duplicate bridge from files into
:class:`~fastrate.data.boards.Boards`: CSV, Parquet and JSON tables (column names
recognised as in :meth:`Boards.from_table <fastrate.data.boards.Boards.from_table>`) and
PBN (:mod:`fastrate.io.pbn`). A table already in memory is
:meth:`Boards.from_table` (with ``source=source_for(file name)`` for messages that name
the file's lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastrate.data.boards import BOARD_COLUMNS, Boards
from fastrate.errors import InputError
from fastrate.io.pbn import read_pbn_boards
from fastrate.io.tables import read_table, source_for

__all__ = ["read_boards"]

_TABLE_SUFFIXES = (".parquet", ".json", ".jsonl", ".ndjson")


def read_boards(path: Any, *, format: str | None = None, period: Any = None,
                ignore_names: bool = False, **columns: str | None) -> Boards:
    """Read table results from CSV, Parquet, JSON or PBN (``.pbn``); see
    :meth:`Boards.from_table` for the column names recognised. ``ignore_names``: a PBN
    file's names are not read (twins listed by surname, a robot in two seats)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    if (format or p.suffix.lower().lstrip(".")) == "pbn":
        return read_pbn_boards(p, period=period, ignore_names=ignore_names)
    if ignore_names:
        raise InputError("ignore_names applies to PBN files; a table's columns name who "
                         "played")
    if (format == "csv" or format is None and p.suffix.lower() not in _TABLE_SUFFIXES) \
            and p.is_file():
        _not_pbn(p, path)
    # results as text: '+1' (one overtrick) must not be read as the number 1 (tricks)
    table = read_table(p, format, text_columns=BOARD_COLUMNS["tricks"])
    return Boards.from_table(table, period=period, source=source_for(p.name, format),
                             **columns)


def _not_pbn(p: Path, path: Any) -> None:
    """A text file read as a table that is a PBN file is a clear error, not a parse
    error in its first line."""
    with open(p, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"%", b"[")) and b'"]' in head:
        raise InputError(f"{path} looks like a PBN file (it starts with "
                         f"{head.splitlines()[0][:40].decode('latin-1')!r}), not a table; "
                         "read it with --input-format pbn (format='pbn') or name it .pbn")
