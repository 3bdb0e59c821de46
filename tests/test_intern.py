"""Interning names into ids (fastrate.data.players, kernels in fastrate.data._intern).

Every path (direct table, integer hash, string hash, dictionary arrays, one pass over
integer columns of one length or column by column and merged) against a plain dict
reading the rows in order; the hash tables start tiny here so that they grow.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrate.data import players
from fastrate.data.players import PlayerIndex
from fastrate.errors import InputError


def reference(columns: list[list]) -> tuple[list, list[list[int]]]:
    """Ids by first appearance: row by row across columns of one length, else one
    column after the other."""
    k = len(columns)
    sizes = {len(c) for c in columns}
    if len(sizes) == 1:
        order = [(c, i) for i in range(sizes.pop()) for c in range(k)]
    else:
        order = [(c, i) for c in range(k) for i in range(len(columns[c]))]
    seen: dict = {}
    ids = [[-1] * len(c) for c in columns]
    for c, i in order:
        ids[c][i] = seen.setdefault(columns[c][i], len(seen))
    return list(seen), ids


def check(columns, values: list[list], dtype=None) -> PlayerIndex:
    index, ids = PlayerIndex.intern(*columns)
    names, want = reference(values)
    assert index.names.tolist() == names
    assert [x.tolist() for x in ids] == want
    assert all(x.dtype == np.int64 and x.flags.c_contiguous and x.flags.writeable
               for x in ids)
    if dtype is not None:
        assert index.names.dtype == dtype
    return index


@pytest.fixture(autouse=True)
def tiny_tables():
    """Hash tables of 4 slots and string buffers of 64 bytes: every run grows them."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(players, "MIN_SLOTS", 4)
        yield


def _split(x: list, cuts: list[int]) -> list[list]:
    cuts = sorted({min(max(c, 0), len(x)) for c in cuts})
    bounds = [0, *cuts, len(x)]
    return [x[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


ints = st.one_of(st.integers(0, 30), st.integers(-(2**63), 2**63 - 1),
                 st.integers(-1000, 1000))
columns_of = st.integers(1, 3).flatmap(
    lambda k: st.lists(st.integers(0, 40), min_size=k, max_size=k))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), sizes=columns_of, equal=st.booleans(), direct=st.booleans())
def test_integer_columns(data, sizes, equal, direct):
    if equal:
        sizes = [sizes[0]] * len(sizes)
    values = [data.draw(st.lists(ints, min_size=n, max_size=n)) for n in sizes]
    with pytest.MonkeyPatch.context() as mp:
        if not direct:  # dense values through the hash too
            mp.setattr(players, "DIRECT_FREE", 0)
            mp.setattr(players, "DIRECT_PER_ID", 0.0)
        _integer_columns(data, values)


def _integer_columns(data, values):
    check([np.array(v, dtype=np.int64) for v in values], values, np.int64)
    # Arrow, chunked where the draw says, lists
    arrow = [pa.chunked_array(_split(v, data.draw(st.lists(st.integers(0, 40), max_size=3))),
                              type=pa.int64()) for v in values]
    check(arrow, values, np.int64)
    check([list(v) for v in values], values)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), n=st.integers(0, 60), k=st.integers(1, 3))
def test_integer_widths(data, n, k):
    small = [data.draw(st.lists(st.integers(-2**31, 2**31 - 1), min_size=n, max_size=n))
             for _ in range(k)]
    check([np.array(v, dtype=np.int32) for v in small], small, np.int32)
    # int32 with int64: integers, int64
    if k > 1:
        check([np.array(v, dtype=np.int32 if c else np.int64) for c, v in enumerate(small)],
              small, np.int64)
    big = [data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n))
           for _ in range(k)]
    check([np.array(v, dtype=np.uint64) for v in big], big, np.uint64)
    check([pa.array(v, type=pa.uint64()) for v in big], big, np.uint64)
    tiny = [data.draw(st.lists(st.integers(0, 255), min_size=n, max_size=n)) for _ in range(k)]
    check([np.array(v, dtype=np.uint8) for v in tiny], tiny, np.uint8)


names_st = st.one_of(st.sampled_from(["", "a", "ab", "Åsa", "名前", "ann", "a" * 20]),
                     st.text(max_size=12))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), sizes=columns_of, equal=st.booleans(), large=st.booleans())
def test_string_columns(data, sizes, equal, large):
    if equal:
        sizes = [sizes[0]] * len(sizes)
    values = [data.draw(st.lists(names_st, min_size=n, max_size=n)) for n in sizes]
    index = check([np.array(v, dtype=object) for v in values], values)
    assert index.names.dtype == object
    t = pa.large_string() if large else pa.string()
    arrow = [pa.chunked_array(_split(v, data.draw(st.lists(st.integers(0, 40), max_size=3))),
                              type=t) for v in values]
    check(arrow, values)
    # a sliced Arrow array (its offsets start past 0)
    sliced = [pa.array(["x", "y", *v], type=t)[2:] for v in values]
    check(sliced, values)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), sizes=columns_of, equal=st.booleans(), strings=st.booleans())
def test_dictionary_columns(data, sizes, equal, strings):
    """Dictionary arrays (categoricals, Parquet): only the entries that occur are
    interned; chunks with their own dictionaries, plain and dictionary columns mixed."""
    if equal:
        sizes = [sizes[0]] * len(sizes)
    pool = data.draw(st.lists(names_st if strings else ints, min_size=1, max_size=12,
                              unique=True))
    values = [data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
              for n in sizes]
    vtype = pa.string() if strings else pa.int64()
    cols = []
    for v in values:
        itype = pa.int32() if data.draw(st.booleans()) else pa.int8()
        chunks = []
        for part in _split(v, data.draw(st.lists(st.integers(0, 40), max_size=3))):
            how = data.draw(st.sampled_from(["pool", "used", "previous"]))
            previous = chunks[-1].dictionary.to_pylist() if chunks else []
            if how == "previous" and set(part) <= set(previous):  # the same dictionary again
                dictionary = previous
            elif how != "used":  # a dictionary with entries that never occur
                dictionary = data.draw(st.permutations(pool))
            else:
                dictionary = list(dict.fromkeys(part))
            chunks.append(pa.DictionaryArray.from_arrays(
                pa.array([dictionary.index(x) for x in part], type=itype),
                pa.array(dictionary, type=vtype)))
        if data.draw(st.booleans()) or not chunks:
            cols.append(pa.array(v, type=vtype))
        else:
            cols.append(pa.chunked_array(chunks))
    check(cols, values, None if strings else np.int64)


def test_one_pass_and_merged_paths_agree():
    """Integer columns of one length go in one pass; the same values as dictionary
    arrays go column by column and are merged: the same ids."""
    rng = np.random.default_rng(3)
    for values in (rng.integers(0, 500, (3, 4000)), rng.integers(-2**62, 2**62, (2, 3000))):
        one = PlayerIndex.intern(*values)
        merged = PlayerIndex.intern(*[pa.array(v).dictionary_encode() for v in values])
        assert one[0].names.tolist() == merged[0].names.tolist()
        assert all((a == b).all() for a, b in zip(one[1], merged[1]))
        check(list(values), [v.tolist() for v in values])


def test_many_names_grow_every_buffer():
    rng = np.random.default_rng(4)
    strings = np.array([f"player-{x}" * (1 + x % 5) for x in rng.integers(0, 3000, 8000)],
                       dtype=object)
    check([strings[:5000], strings[3000:]], [strings[:5000].tolist(), strings[3000:].tolist()])
    sparse = rng.integers(0, 2**63 - 1, 3000)[rng.integers(0, 3000, (2, 6000))]
    check(list(sparse), [v.tolist() for v in sparse])


@pytest.mark.parametrize("cols, pattern", [
    ((pa.array([1, None, 3]), pa.array([2, 3, 4])), r"column 'player1' .* at row 2"),
    ((pa.array([1, 2, 3]), pa.array([2, 3, None])), r"column 'player2' .* at row 3"),
    ((pa.array(["a", "b"]), pa.array(["b", None])), r"column 'player2' .* at row 2"),
    ((pa.array(["a", None, "c"]).dictionary_encode(),), r"column 'player1' .* at row 2"),
    ((pa.chunked_array([["a"], ["b", None]]), pa.array(["x"])), r"column 'player1' .* row 3"),
    ((np.array(["a", None], dtype=object),), r"column 'player1' .* at row 2"),
])
def test_missing_names(cols, pattern):
    with pytest.raises(InputError, match=pattern) as err:
        PlayerIndex.intern(*cols)
    assert "must name a player in every row; found a missing value at row " in str(err.value)
    assert str(err.value).endswith("; drop or fill those rows")


def test_general_path_still_handles_floats_and_mixes():
    index, (a, b) = PlayerIndex.intern(np.array([1.0, 2.0]), np.array([2.0, 3.0]))
    assert index.names.tolist() == [1.0, 2.0, 3.0] and b.tolist() == [1, 2]
    index, (a, b) = PlayerIndex.intern(np.array([1, 2]), np.array(["2", "x"]))
    assert index.names.tolist() == ["1", "2", "x"] and b.tolist() == [1, 2]
    index, (a,) = PlayerIndex.intern(np.array([], dtype=np.int64))
    assert index.names.tolist() == [] and index.names.dtype == np.int64 and a.shape == (0,)
    index, (a, b) = PlayerIndex.intern(pa.array([], pa.string()), pa.array([], pa.string()))
    assert len(index) == 0


# names that share their first 8 or 16 bytes, lengths around the word sizes (7, 8, 9,
# 15, 16, 17: inline in the slot or not, a tail word or not), NUL bytes, non-ASCII
_PREFIXES = ["", "abcdefgh", "abcdefghijklmnop", "Åsa名前"]
tricky_names = st.builds(lambda p, t: p + t, st.sampled_from(_PREFIXES),
                         st.one_of(st.sampled_from(["", "x", "\x00", "é", "1234567", "12345678",
                                                    "123456789"]), st.text(max_size=20)))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), sizes=columns_of, equal=st.booleans(),
       types=st.lists(st.booleans(), min_size=3, max_size=3))
def test_string_columns_one_pass(data, sizes, equal, types):
    """The one-pass string kernel against the dict: string and large_string columns
    mixed (the offsets widened), chunked at different places, names that agree in
    their first words."""
    if equal:
        sizes = [sizes[0]] * len(sizes)
    pool = data.draw(st.lists(tricky_names, min_size=1, max_size=30))
    values = [data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
              for n in sizes]
    cols = [pa.chunked_array(_split(v, data.draw(st.lists(st.integers(0, 40), max_size=3))),
                             type=pa.large_string() if types[c] else pa.string())
            for c, v in enumerate(values)]
    check(cols, values)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(0, 50), k=st.integers(1, 3))
def test_integer_extremes(data, n, k):
    """int64 extremes, negative and sparse ids through the one-pass hash."""
    pool = data.draw(st.lists(st.sampled_from([-(2**63), 2**63 - 1, -1, 0, 1, 2**62, -(2**62),
                                               2**32, -(2**31)]) | st.integers(-(2**63),
                                                                               2**63 - 1),
                              min_size=1, max_size=12))
    values = [data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
              for _ in range(k)]
    check([np.array(v, dtype=np.int64) for v in values], values, np.int64)

@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=9000)
       | st.lists(st.integers(-50, 50), max_size=9000),
       wide=st.integers(0, 2**64 - 1) | st.integers(0, 200))
def test_value_range_stops_once_too_wide(values, wide):
    """The exact range, or (stopped early) a range of values that occur, already at
    least ``wide`` apart: the direct table's decision is the same either way."""
    from fastrate.data import _intern

    x = np.array(values, dtype=np.int64)
    out = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64)
    _intern.value_range(x, out, np.uint64(wide))
    if not values:
        assert out.tolist() == [np.iinfo(np.int64).max, np.iinfo(np.int64).min]
        return
    lo, hi = int(out[0]), int(out[1])
    if max(values) - min(values) < wide:
        assert (lo, hi) == (min(values), max(values))
    else:
        assert lo in values and hi in values and hi - lo >= wide
        assert (min(values), max(values)) == (lo, hi) or len(values) > 4096


def test_plain_strings_skip_arrow_hash(monkeypatch):
    """Plain string columns are numbered by the kernel straight from the Arrow buffers,
    not by Arrow's dictionary_encode first."""
    import pyarrow.compute as pc

    def refuse(*args, **kwargs):
        raise AssertionError("dictionary_encode called")

    monkeypatch.setattr(pc, "dictionary_encode", refuse)
    values = [["ann", "bob", "ann", "cy" * 9], ["bob", "dee", "cy" * 9, "ann"]]
    check([pa.array(values[0]), pa.chunked_array([values[1][:1], values[1][1:]])], values)
    check([pa.array(values[0], pa.large_string())], values[:1])


@settings(max_examples=40, deadline=None)
@given(data=st.data(), strings=st.booleans())
def test_name_table_across_calls(data, strings):
    """NameTable (the chunked reader's global index): ids kept from call to call, new
    names numbered next in the order given."""
    table = players.NameTable("str" if strings else "int")
    seen: dict = {}
    for _ in range(data.draw(st.integers(1, 5))):
        chunk = data.draw(st.lists(tricky_names if strings else ints, max_size=20, unique=True))
        names = np.array(chunk, dtype=object) if strings else np.array(chunk, dtype=np.int64)
        got = table.ids(names)
        assert got.tolist() == [seen.setdefault(x, len(seen)) for x in chunk]
        assert len(table) == len(seen)


# the radix-partitioned path of the integer hash (large calls): forced here on tiny
# inputs, against the dict and against the one-pass kernel, with 1 and 2 threads
partition_ints = st.one_of(
    st.integers(0, 50),  # dense (through the hash: DIRECT_* off)
    st.integers(-(2**63), 2**63 - 1),  # sparse
    st.integers(-60, -1),  # negative
    st.sampled_from([-(2**63), 2**63 - 1, -(2**63) + 1, 2**63 - 2, 0, -1]))  # extremes


@contextlib.contextmanager
def _partitioned(threads: int, per_thread: int = 1):
    """Every call of the integer hash through the partitions, on up to ``threads``."""
    import numba

    saved = numba.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(players, "DIRECT_FREE", 0)
        mp.setattr(players, "DIRECT_PER_ID", 0.0)
        mp.setattr(players, "PARTITION_MIN", 0)
        mp.setattr(players, "STR_PARTITION_MIN", 0)
        mp.setattr(players, "PARTITION_MIN_PER_THREAD", per_thread)
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            yield mp
        finally:
            numba.set_num_threads(saved)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), k=st.integers(1, 3), n=st.integers(0, 60),
       threads=st.sampled_from([1, 2]), bits=st.integers(1, 4))
def test_partitioned_integer_ids(data, k, n, threads, bits):
    """Integer ids by radix partitions (few partitions, so runs share them; chunked
    columns: the later segments go through the partitions with the names known so far
    first, or through the one-pass kernel after the table is rebuilt) against the dict
    and against the one-pass kernel: the same names and ids, bit for bit."""
    pool = data.draw(st.lists(partition_ints, min_size=1, max_size=25))
    values = [data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
              for _ in range(k)]
    cuts = data.draw(st.lists(st.integers(0, 60), max_size=3))
    arrow = [pa.chunked_array(_split(v, cuts), type=pa.int64()) for v in values]
    dtype = data.draw(st.sampled_from([np.int64, np.int32]))
    if dtype == np.int32:
        values = [[int(np.int64(x).astype(np.int32)) for x in v] for v in values]
    plain = [np.array(v, dtype=np.int64).astype(dtype) for v in values]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(players, "DIRECT_FREE", 0)
        mp.setattr(players, "DIRECT_PER_ID", 0.0)
        mp.setattr(players, "PARTITION_MIN", 1 << 62)
        old = PlayerIndex.intern(*plain)
    with _partitioned(threads) as mp:
        mp.setattr(players, "PARTITION_BITS", bits)
        calls = []
        spied = players._IntEncoder._encode_partitioned
        mp.setattr(players._IntEncoder, "_encode_partitioned",
                   lambda self, *a: calls.append(1) or spied(self, *a))
        new = check(plain, values, np.dtype(dtype))
        assert bool(calls) == (n > 0)
        assert new.names.tobytes() == old[0].names.tobytes()
        assert [x.tolist() for x in PlayerIndex.intern(*plain)[1]] == \
            [x.tolist() for x in old[1]]
        if dtype == np.int64:
            check(arrow, values, np.int64)


def test_partitioned_same_bits_one_and_two_threads():
    """Rows and partitions split over two threads: the same ids as one thread and as
    the one-pass kernel, on sparse ids with names known from an earlier call."""
    rng = np.random.default_rng(11)
    pool = rng.integers(-2**63, 2**63 - 1, 3000)
    cols = list(pool[rng.integers(0, 3000, (2, 20_000))])
    got = []
    for threads in (1, 2):
        with _partitioned(threads, per_thread=1000):
            got.append(PlayerIndex.intern(*cols))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(players, "PARTITION_MIN", 1 << 62)
        got.append(PlayerIndex.intern(*cols))
    for index, ids in got[1:]:
        assert index.names.tobytes() == got[0][0].names.tobytes()
        assert all(a.tobytes() == b.tobytes() for a, b in zip(ids, got[0][1]))
    check(cols, [c.tolist() for c in cols], np.int64)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), threads=st.sampled_from([1, 2]))
def test_name_table_partitioned(data, threads):
    """NameTable of integer names through the partitioned path from call to call."""
    with _partitioned(threads):
        table = players.NameTable("int")
        seen: dict = {}
        for _ in range(data.draw(st.integers(1, 5))):
            chunk = data.draw(st.lists(partition_ints, max_size=20, unique=True))
            got = table.ids(np.array(chunk, dtype=np.int64))
            assert got.tolist() == [seen.setdefault(x, len(seen)) for x in chunk]
            assert len(table) == len(seen)


# the radix-partitioned path of plain string columns (large calls): forced here on tiny
# inputs, against the dict and the one-pass kernel, with 1 and 2 threads; names of
# 15/16/17 bytes (a key of their own up to 15), shared 16-byte prefixes, NUL bytes,
# non-ASCII, empty names; LONG_HASH_MASK 0 or 3 gives long names equal keys, so the
# bytes decide
@settings(max_examples=60, deadline=None)
@given(data=st.data(), k=st.integers(1, 3), n=st.integers(0, 60),
       threads=st.sampled_from([1, 2]), bits=st.integers(1, 4),
       hmask=st.sampled_from([2**64 - 1, 3, 0]),
       types=st.lists(st.booleans(), min_size=3, max_size=3))
def test_partitioned_string_ids(data, k, n, threads, bits, hmask, types):
    pool = data.draw(st.lists(tricky_names, min_size=1, max_size=25))
    values = [data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
              for _ in range(k)]
    cuts = data.draw(st.lists(st.integers(0, 60), max_size=3))
    cols = [pa.chunked_array(_split(v, cuts),
                             type=pa.large_string() if types[c] else pa.string())
            for c, v in enumerate(values)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(players, "PARTITION_MIN", 1 << 62)
        mp.setattr(players, "STR_PARTITION_MIN", 1 << 62)
        old = PlayerIndex.intern(*cols)
    with _partitioned(threads) as mp:
        mp.setattr(players, "STR_PARTITION_BITS", bits)
        mp.setattr(players, "LONG_HASH_MASK", hmask)
        mp.setattr(players, "STR_BLOCK_IDS", data.draw(st.sampled_from([1 << 24, 7, 1])))
        calls = []
        spied = players._StrRowsEncoder._encode_partitioned
        mp.setattr(players._StrRowsEncoder, "_encode_partitioned",
                   lambda self, *a: calls.append(1) or spied(self, *a))
        new = check(cols, values)
        assert bool(calls) == (n > 0)
        assert new.names.tolist() == old[0].names.tolist()
        assert all(a.tobytes() == b.tobytes() for a, b in zip(PlayerIndex.intern(*cols)[1],
                                                              old[1]))


def test_partitioned_strings_compare_bytes_on_equal_keys():
    """Long names whose keys are all equal (LONG_HASH_MASK 0): every match is decided
    on the bytes, across threads and partitions; short names keep exact keys."""
    rng = np.random.default_rng(5)
    pool = ["x" * 17, "x" * 16 + "y", "x" * 16, "y" * 40, "y" * 39 + "\x00", "", "\x00",
            "x" * 15, "名前" * 7] + [f"player{i:012d}" for i in range(60)]
    values = [[pool[j] for j in rng.integers(0, len(pool), 3000)] for _ in range(2)]
    got = []
    for threads in (1, 2):
        with _partitioned(threads, per_thread=500) as mp:
            mp.setattr(players, "LONG_HASH_MASK", 0)
            mp.setattr(players, "STR_BLOCK_IDS", 2000 if threads == 2 else 1 << 24)
            got.append(check([pa.array(v) for v in values], values))
    assert got[0].names.tolist() == got[1].names.tolist()


@settings(max_examples=30, deadline=None)
@given(data=st.data(), threads=st.sampled_from([1, 2]), hmask=st.sampled_from([2**64 - 1, 1]))
def test_name_table_partitioned_strings(data, threads, hmask):
    """NameTable of text names through the partitioned path from call to call (the
    names known so far go into the partitions first and keep their ids), and through
    the one-pass kernel on the table rebuilt after it."""
    with _partitioned(threads) as mp:
        mp.setattr(players, "LONG_HASH_MASK", hmask)
        table = players.NameTable("str")
        seen: dict = {}
        for _ in range(data.draw(st.integers(1, 5))):
            if data.draw(st.booleans()):
                mp.setattr(players, "PARTITION_MIN", data.draw(st.sampled_from([0, 1 << 62])))
            chunk = data.draw(st.lists(tricky_names, max_size=20, unique=True))
            got = table.ids(np.array(chunk, dtype=object))
            assert got.tolist() == [seen.setdefault(x, len(seen)) for x in chunk]
            assert len(table) == len(seen)
