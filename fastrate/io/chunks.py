"""Reading game files chunk by chunk: inputs larger than memory.

:func:`input_files` turns what the user named (a file, a folder, a glob pattern) into
the files to read, in order; :func:`iter_tables` reads them as a sequence of Arrow
tables of about ``chunk_rows`` rows each (Parquet: record batches; CSV, also
compressed: the streaming reader's blocks, gathered), each with the
:class:`~fastrate._validate.Source` that names its rows by their place in the file, so
that an error in chunk 40 still says "row 31,200,017 (line 31,200,018 of games.csv)".
Only the columns ``columns_of(names, file name)`` picks are read.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._validate import Source
from fastrate.data.game_table import release_arrow_memory
from fastrate.errors import InputError
from fastrate.io.tables import (
    CSV_BLOCK_SIZE,
    check_content,
    check_encoding,
    check_text,
    column_names,
    csv_delimiter,
    csv_read_options,
    file_encoding,
    format_of,
    not_utf8_file,
    ragged_row,
    read_error,
    read_table,
    text_source,
)

__all__ = ["input_files", "iter_tables", "sorted_tables", "CHUNK_ROWS", "GAME_FILE_SUFFIXES",
           "STREAM_MIN_BYTES", "is_many"]

#: rows per chunk by default: about 200 MB of games in memory at a time
CHUNK_ROWS = 4_000_000
#: ``fastrate rate`` / ``evaluate`` read a file of this size or more chunk by chunk
STREAM_MIN_BYTES = 256 << 20
#: the names of game files a folder is searched for (compressed CSV included)
GAME_FILE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq", ".json", ".jsonl",
                      ".ndjson", ".csv.gz", ".csv.bz2", ".csv.zst", ".csv.lz4", ".tsv.gz",
                      ".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2", ".pgn.lz4")


def input_files(source: str | os.PathLike | Sequence[str | os.PathLike]) -> list[Path]:
    """The files of ``source``, in the order to read them: a file; a folder (its game
    files, by name: monthly files named by date sort into time order); a glob pattern
    (``"games/2024-*.parquet"``, matches by name); or a sequence of those."""
    if isinstance(source, (list, tuple)):
        return [f for s in source for f in input_files(s)]
    text = os.fspath(source)
    p = Path(text)
    if p.is_dir():
        files = sorted(f for f in p.iterdir()
                       if f.is_file() and f.name.lower().endswith(GAME_FILE_SUFFIXES)
                       and not f.name.startswith("."))
        if not files:
            raise InputError(f"folder {text} holds no game files (.csv, .parquet, .json, "
                             "also compressed .csv.gz)")
        return files
    if p.exists():
        return [p]
    if any(c in text for c in "*?["):
        files = sorted(Path(f) for f in glob.glob(text) if Path(f).is_file())
        if not files:
            raise InputError(f"no files match {text}")
        return files
    raise InputError(f"no such file: {text}")


def is_many(source: str | os.PathLike) -> bool:
    """Whether ``source`` names a folder or a glob pattern (several files) rather than
    one file."""
    text = os.fspath(source)
    return Path(text).is_dir() or (not Path(text).exists() and any(c in text for c in "*?["))


def iter_tables(files: Sequence[Path], format: str | None, chunk_rows: int,
                columns_of: Callable[[list[str], str], list[str]],
                dictionary_of: Callable[[list[str], str], list[str]] | None = None,
                encoding: str = "utf-8") -> Iterator[tuple[Any, Source]]:
    """``(table, source)`` for every chunk of ``files`` in order: tables of about
    ``chunk_rows`` rows (a CSV chunk ends at a block boundary; a Parquet chunk is whole
    row groups, at most twice ``chunk_rows`` rows), never spanning two files;
    ``source`` names the rows of that chunk by their place in its file.
    ``dictionary_of(names, file name)``: Parquet text columns to read as dictionary
    arrays (player names, see :func:`fastrate.io.tables.read_table`). ``encoding``: the
    text encoding of CSV and JSON files; text is checked as
    :func:`fastrate.io.tables.read_table` checks it."""
    import pyarrow as pa

    if chunk_rows < 1:
        raise InputError(f"chunk_rows must be >= 1; got {chunk_rows}")
    encoding = check_encoding(encoding)
    for path in files:
        fmt = format_of(path, format)
        encoding = file_encoding(path, fmt, encoding)
        names = column_names(path, fmt, encoding)
        wanted = None if names is None else columns_of(names, path.name)
        try:
            if fmt == "parquet":
                text = [] if names is None or dictionary_of is None else [
                    c for c in dictionary_of(names, path.name) if c in names]
                chunks = _parquet_chunks(path, wanted, chunk_rows, text)
            elif fmt == "csv":
                chunks = _csv_chunks(path, wanted, chunk_rows, encoding)
            else:  # JSON has no streaming reader: one chunk per file
                chunks = iter([(read_table(path, fmt, columns=wanted, encoding=encoding),
                                Source(path.name))])
            for table, src in chunks:
                yield check_text(table, src, encoding), src
        except InputError:
            raise
        except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
            if fmt != "parquet" and encoding == "utf-8" and "utf8" in str(exc).lower():
                raise not_utf8_file(path, fmt) from None
            if fmt == "csv" and "columns, got" in str(exc):
                raise ragged_row(path, encoding, exc) from None
            raise read_error(path, fmt, exc) from None


def _parquet_chunks(path: Path, columns: list[str] | None, chunk_rows: int,
                    dictionary: list[str]) -> Iterator[tuple[Any, Source]]:
    """Whole row groups, gathered up to ``chunk_rows`` (reading a row group as it is
    stored is the cheapest read); a row group of more than twice ``chunk_rows`` rows in
    record batches of ``chunk_rows``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    text = [c for c in dictionary if pa.types.is_string(schema.field(c).type)
            or pa.types.is_large_string(schema.field(c).type)]
    reader = pq.ParquetFile(path, read_dictionary=text or None)
    offset = 0
    pending: list[int] = []
    rows = 0

    def emit(table: Any) -> tuple[Any, Source]:
        nonlocal offset
        out = table, Source(path.name, row_offset=offset)
        offset += table.num_rows
        return out

    for group in range(reader.num_row_groups):
        size = reader.metadata.row_group(group).num_rows
        if size > 2 * chunk_rows:
            if pending:
                yield emit(reader.read_row_groups(pending, columns=columns))
                pending, rows = [], 0
            for batch in reader.iter_batches(batch_size=chunk_rows, row_groups=[group],
                                             columns=columns):
                yield emit(pa.Table.from_batches([batch]))
            release_arrow_memory()
            continue
        pending.append(group)
        rows += size
        if rows >= chunk_rows:
            yield emit(reader.read_row_groups(pending, columns=columns))
            pending, rows = [], 0
            release_arrow_memory()
    if pending:
        yield emit(reader.read_row_groups(pending, columns=columns))


def _csv_chunks(path: Path, columns: list[str] | None, chunk_rows: int,
                encoding: str = "utf-8") -> Iterator[tuple[Any, Source]]:
    import pyarrow as pa
    from pyarrow import csv

    check_content(path, "csv")
    reader = csv.open_csv(text_source(path),
                          read_options=csv_read_options(CSV_BLOCK_SIZE, encoding),
                          parse_options=csv.ParseOptions(delimiter=csv_delimiter(path)),
                          convert_options=csv.ConvertOptions(include_columns=columns or [],
                                                             strings_can_be_null=True))
    offset = 0
    batches: list[Any] = []
    rows = 0
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            break
        except pa.ArrowInvalid as exc:
            first = str(exc).strip().splitlines()[0]
            if encoding == "utf-8" and "utf8" in first.lower():
                raise not_utf8_file(path, "csv") from None
            if "columns, got" in first:
                raise ragged_row(path, encoding, exc) from None
            raise InputError(f"cannot read {path} as csv after row {offset + rows:,}: {first} "
                             "(a column's type changes after the first block: check that "
                             "row, or read the file whole without chunks)") from None
        batches.append(batch)
        rows += batch.num_rows
        if rows >= chunk_rows:
            table = pa.Table.from_batches(batches)
            batches, n = [], rows
            rows = 0
            yield table, Source(path.name, first_line=2, row_offset=offset)
            offset += n
            del table
    if batches:
        yield pa.Table.from_batches(batches), Source(path.name, first_line=2,
                                                     row_offset=offset)


#: the columns an external sort adds to its runs: the sort key, the input row
SORT_KEY, SORT_ROW = "__fastrate_key", "__fastrate_row"


def sorted_tables(files: Sequence[Path], format: str | None, chunk_rows: int,
                  columns_of: Callable[[list[str], str], list[str]],
                  key_of: Callable[[Any, Source], np.ndarray],
                  folder: str | os.PathLike | None = None,
                  observe: Callable[[Any, Source], None] | None = None,
                  dictionary_of: Callable[[list[str], str], list[str]] | None = None,
                  encoding: str = "utf-8") -> Iterator[tuple[Any, Source]]:
    """The chunks of :func:`iter_tables`, stably sorted by ``key_of(table, source)``
    (int64 or float64 per row) across the whole input: an external merge sort. Each
    chunk is sorted and written as a run (Parquet, in ``folder``, default the system's
    temporary folder, removed at the end); the runs are then merged block by block, so
    memory holds about one chunk whatever the input's size. Equal keys keep their input
    order. The chunks' ``source`` names rows by their place in the input (files read
    one after another). ``observe(table, source)`` sees every chunk in input order
    first (to number the players in order of first appearance in the input)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = Path(tempfile.mkdtemp(prefix="fastrate-sort-", dir=folder))
    names = ", ".join(f.name for f in files)
    try:
        runs: list[Path] = []
        offset = 0
        for table, src in iter_tables(files, format, chunk_rows, columns_of, dictionary_of,
                                      encoding):
            if observe is not None:
                observe(table, src)
            key = np.asarray(key_of(table, src))
            order = np.argsort(key, kind="stable")
            run = table.take(pa.array(order)).append_column(SORT_KEY, pa.array(key[order]))
            run = run.append_column(SORT_ROW, pa.array(order + offset))
            offset += table.num_rows
            runs.append(tmp / f"run{len(runs):06d}.parquet")
            pq.write_table(run, runs[-1])
            del table, run
        yield from _merge_runs(runs, chunk_rows, names)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _merge_runs(runs: list[Path], chunk_rows: int, name: str) -> Iterator[tuple[Any, Source]]:
    """Merge sorted runs into chunks of about ``chunk_rows`` rows in key order (ties in
    run order, then row order: the input order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    block = max(chunk_rows // max(len(runs), 1), 1 << 14)
    readers = [pq.ParquetFile(r).iter_batches(batch_size=block) for r in runs]
    buffers: list[Any] = [None] * len(runs)
    keys: list[Any] = [None] * len(runs)
    done = [False] * len(runs)

    def refill(i: int) -> None:
        while not done[i] and (buffers[i] is None or buffers[i].num_rows == 0):
            batch = next(readers[i], None)
            if batch is None:
                done[i] = True
                buffers[i] = None
                return
            buffers[i] = pa.Table.from_batches([batch])
            keys[i] = buffers[i].column(SORT_KEY).to_numpy()

    for i in range(len(runs)):
        refill(i)
    out: list[Any] = []
    rows = 0
    while any(b is not None and b.num_rows for b in buffers):
        # every row up to the smallest last key of the runs with more to come is final
        open_runs = [keys[i][-1] for i in range(len(runs))
                     if buffers[i] is not None and buffers[i].num_rows and not done[i]]
        bound = min(open_runs) if open_runs else None
        pieces, piece_keys = [], []
        for i in range(len(runs)):
            if buffers[i] is None or buffers[i].num_rows == 0:
                continue
            n = keys[i].shape[0] if bound is None else int(
                np.searchsorted(keys[i], bound, side="right"))
            if n:
                pieces.append(buffers[i].slice(0, n))
                piece_keys.append(keys[i][:n])
                buffers[i], keys[i] = buffers[i].slice(n), keys[i][n:]
                refill(i)
        merged = pa.concat_tables(pieces)
        order = np.argsort(np.concatenate(piece_keys), kind="stable")
        out.append(merged.take(pa.array(order)))
        rows += len(order)
        if rows >= chunk_rows:
            yield _sorted_chunk(out, name)
            out, rows = [], 0
    if out:
        yield _sorted_chunk(out, name)


def _sorted_chunk(parts: list[Any], name: str) -> tuple[Any, Source]:
    import pyarrow as pa

    table = pa.concat_tables(parts).combine_chunks()
    rows = table.column(SORT_ROW).to_numpy()
    table = table.drop_columns([SORT_KEY, SORT_ROW])
    return table, Source(name, rows=rows)
