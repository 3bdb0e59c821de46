"""Kernels of :meth:`fastrate.data.players.PlayerIndex.intern`: names -> dense ids.

Each column is encoded on its own, chunk by chunk, into *column ids* in order of first
appearance within the column (an encoder keeps its table between chunks); the columns
are then merged by first appearance across the columns and their ids remapped in place.
No kernel allocates: the caller hands every buffer in, and an encoder whose buffers are
full returns early (the number of rows done) so the caller can grow them and go on.

* **Integers, direct table** (:func:`encode_direct`): ``table[v - lo]`` holds the id of
  value ``v`` (-1 unseen). Used when the value range is small next to the column (the
  rule is in ``fastrate.data.players``), so the table costs at most a few bytes per id.
* **Integers, hash** (:func:`encode_int_hash`): open addressing with linear probing, a
  power-of-two table of ``[key, id]`` pairs (id -1 = empty slot) kept at most half full;
  the slot is the splitmix64 finaliser of the key (Steele, Lea and Flood 2014, "Fast
  splittable pseudorandom number generators"; the constants of Stafford's "Mix13").
* **Strings** (:func:`encode_str_hash`): the same table over the UTF-8 bytes of Arrow
  string arrays (offsets + data, read in place). Slots hold ``[hash, id]``; the hash
  reads the bytes eight at a time into a word and mixes each word into the state with
  the same finaliser; equal hashes are confirmed by comparing the bytes with the stored
  name. New names are appended to a names buffer (offsets + bytes). It interns the
  dictionaries and the merge: a plain string column is first numbered by Arrow's
  ``dictionary_encode``, which ran 2-3x faster than this kernel over 10M rows.
* **Integer columns of one length** (:func:`encode_direct_rows`,
  :func:`encode_int_hash_rows`): the usual case (two columns of integer ids) goes in one
  pass, row by row across the columns, into one table: no merge, no remapping.
* **Large integer calls by radix partitions** (:func:`partition_counts` ...
  :func:`partition_gather`): the hash table of a million players misses the caches
  on every id; the ids are split by their hash's top bits into runs numbered each
  with a table that fits the cache, then ranked by first appearance (the section
  below). Rows and partitions can be split among threads; the ids do not change.
* **Dictionary arrays** (:func:`dictionary_codes`): the indices are numbered by first
  appearance (a table the size of the dictionary), and only the dictionary entries that
  occur are interned, in that order.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from fastrate._hashing import MASK64, MIX1, MIX2, splitmix64
from fastrate._numba import inline_kernel, kernel
from fastrate._vecmath import prefetch_row

__all__ = ["DONE", "EMPTY", "dictionary_codes", "encode_direct", "encode_direct_rows", "encode_int_hash",
           "encode_int_hash_rows", "encode_str_hash", "encode_str_rows", "first_ranks",
           "merge_by_key", "partition_counts", "partition_gather", "partition_intern",
           "partition_gather_parts", "partition_localize", "partition_scatter",
           "positions_to_records", "ranked_names", "rehash_ints", "rehash_records", "rehash_strs",
           "records_to_strings", "remap", "str_partition_counts", "str_partition_intern",
           "str_partition_scatter", "value_range"]

#: returned by an encoder in ``status[0]`` when the whole chunk was done
DONE = -1

_ONE = np.uint64(1)
_EIGHT = np.uint64(8)
_SEED = np.uint64(0x9E3779B97F4A7C15)
_K = np.uint64(0x9FB21C651E98DF25)
_S32 = np.uint64(32)


#: the finaliser of every hash here (a bijection; every input bit moves every output bit)
_mix = splitmix64


@inline_kernel
def _step(h, w):
    """One word ``w`` into the string hash state ``h``: multiply-xorshift (a cheap
    round; :func:`_mix` at the end spreads every bit)."""
    h = (h ^ w) * _K
    return h ^ (h >> _S32)


if numba.config.DISABLE_JIT:  # pragma: no cover - the same on Python ints (coverage)
    def _step(h, w):  # noqa: F811
        h = ((int(h) ^ int(w)) * int(_K)) & MASK64
        return np.uint64(h ^ (h >> 32))


@inline_kernel
def _start(length):
    """The string hash state before the bytes: the length, multiplied and seeded."""
    return (np.uint64(length) * _K) ^ _SEED


if numba.config.DISABLE_JIT:  # pragma: no cover
    def _start(length):  # noqa: F811
        return np.uint64(((int(length) * int(_K)) & MASK64) ^ int(_SEED))


@intrinsic
def _word(typingctx, data, p):  # pragma: no cover - compiled
    """The eight bytes ``data[p:p+8]`` (a uint8 array) as a little-endian uint64: one
    unaligned load (LLVM does not merge eight byte loads here)."""
    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)
    return types.uint64(data, types.int64), codegen


@inline_kernel
def _tail(data, p, end):
    """The last ``end - p`` (1 to 7) bytes as a little-endian uint64, high bytes zero:
    a whole word masked when the buffer goes on for eight bytes, else byte by byte."""
    if p + 8 <= data.shape[0]:
        return _word(data, np.int64(p)) & ((_ONE << np.uint64(8 * (end - p))) - _ONE)
    w = np.uint64(0)
    shift = np.uint64(0)
    for q in range(p, end):
        w |= np.uint64(data[q]) << shift
        shift += _EIGHT
    return w


if numba.config.DISABLE_JIT:  # pragma: no cover - the same bytes in Python
    def _word(data, p):  # noqa: F811
        return np.uint64(int.from_bytes(bytes(data[p:p + 8]), "little"))

    def _tail(data, p, end):  # noqa: F811
        return np.uint64(int.from_bytes(bytes(data[p:end]), "little"))


@inline_kernel
def _str_hash(data, a, b):
    """A non-negative 63-bit hash of the bytes ``data[a:b]``: the length, then the bytes
    eight at a time (little-endian words, the last one zero-padded) through
    :func:`_step`, then :func:`_mix`. :func:`_words_hash` gives the same from the
    words."""
    h = _start(b - a)
    p = a
    while p + 8 <= b:
        h = _step(h, _word(data, np.int64(p)))
        p += 8
    if p < b:
        h = _step(h, _tail(data, p, b))
    return np.int64(_mix(h) >> _ONE)


@inline_kernel
def _words_hash(words, p, length):
    """:func:`_str_hash` of a name of ``length`` bytes stored as words from ``words[p]``."""
    h = _start(length)
    for t in range((length + 7) // 8):
        h = _step(h, words[p + t])
    return np.int64(_mix(h) >> _ONE)


@inline_kernel
def _int_hash(v):
    """A non-negative 63-bit hash of an int64 key."""
    return np.int64(_mix(np.uint64(v)) >> _ONE)


@inline_kernel
def _bytes_hash(data, start, end):
    """A non-negative 63-bit hash of ``data[start:end]`` (bytes packed eight to a word,
    each word mixed into the state)."""
    h = _mix(np.uint64(end - start) ^ _SEED)
    w = np.uint64(0)
    shift = np.uint64(0)
    for p in range(start, end):
        w |= np.uint64(data[p]) << shift
        shift += _EIGHT
        if shift == np.uint64(64):
            h = _mix(h ^ w)
            w = np.uint64(0)
            shift = np.uint64(0)
    if shift != np.uint64(0):
        h = _mix(h ^ w)
    return np.int64(h >> _ONE)


#: values per block of :func:`value_range` between its checks of the span
_RANGE_BLOCK = 4096


@kernel
def value_range(x, out, wide):
    """Running minimum and maximum of the int64 values of ``x`` into ``out[0]``,
    ``out[1]`` (left as they are for an empty ``x``), stopping early once they are
    surely at least ``wide`` apart (the caller then only needs to know that: random 64-bit ids
    stop after the first block instead of reading the whole column)."""
    lo = out[0]
    hi = out[1]
    n = x.shape[0]
    b = 0
    while b < n:
        e = min(b + _RANGE_BLOCK, n)
        for i in range(b, e):
            v = np.int64(x[i])
            if v < lo:
                lo = v
            if v > hi:
                hi = v
        b = e
        # in floating point, so that nothing overflows, with room for its rounding
        # (under 2^12 at these magnitudes): a stop is certain, a late stop harmless
        if float(hi) - float(lo) >= float(wide) + 8192.0:
            break
    out[0] = lo
    out[1] = hi


@kernel
def encode_direct(x, row0, rows, out, table, lo, names, first, count):
    """Column ids of int values through a direct table: ``table[x[i] - lo]`` is the id
    of ``x[i]`` (-1 unseen), new values get the next id (``count[0]``), their value goes
    to ``names`` and their row (``rows[i]`` if ``rows`` is given, else ``row0 + i``) to
    ``first``. ``names`` must have room for every new value (the caller sizes it)."""
    n = count[0]
    given = rows.shape[0] > 0
    for i in range(x.shape[0]):
        v = np.int64(x[i])
        g = np.int64(table[v - lo])
        if g < 0:
            g = n
            table[v - lo] = n
            names[n] = v
            first[n] = rows[i] if given else row0 + i
            n += 1
        out[i] = g
    count[0] = n


@kernel
def encode_int_hash(x, row0, rows, out, table, names, first, count, status):
    """Column ids of int values through the hash table ``table`` (``[key, id]`` pairs,
    id -1 empty; a power of two of slots). As :func:`encode_direct`; when a new value
    finds ``names`` full, stops there: ``status[0]`` = the row to resume at after the
    caller grew the buffers (:func:`rehash_ints`), else :data:`DONE`.

    Rows go in blocks of ``len(status) - 1``: the block's slots are computed and read
    first (``status[1:]`` holds them), loads that do not wait on each other, so the
    table's cache misses overlap; then the rows are resolved in order."""
    mask = table.shape[0] // 2 - 1
    n = count[0]
    cap = names.shape[0]
    given = rows.shape[0] > 0
    block = status.shape[0] - 1
    m = x.shape[0]
    touched = 0
    for i0 in range(0, m, block):
        i1 = min(i0 + block, m)
        for i in range(i0, i1):
            s = _int_hash(np.int64(x[i])) & mask
            status[1 + i - i0] = s
            touched ^= table[2 * s]
        for i in range(i0, i1):
            v = np.int64(x[i])
            s = status[1 + i - i0]
            while True:
                g = table[2 * s + 1]
                if g < 0:
                    if n == cap:
                        status[0] = i
                        count[0] = n
                        return touched
                    g = n
                    table[2 * s] = v
                    table[2 * s + 1] = n
                    names[n] = v
                    first[n] = rows[i] if given else row0 + i
                    n += 1
                    break
                if table[2 * s] == v:
                    break
                s = (s + 1) & mask
            out[i] = g
    count[0] = n
    status[0] = DONE
    return touched


@kernel
def rehash_ints(names, n, table):
    """Insert ``names[:n]`` (distinct) with ids ``0 .. n-1`` into an empty hash table."""
    mask = table.shape[0] // 2 - 1
    for j in range(n):
        v = names[j]
        s = _int_hash(v) & mask
        while table[2 * s + 1] >= 0:
            s = (s + 1) & mask
        table[2 * s] = v
        table[2 * s + 1] = j


@kernel
def encode_str_hash(offsets, data, row0, rows, out, table, name_offsets, name_data, first,
                    count, status):
    """Column ids of the strings ``data[offsets[i]:offsets[i+1]]`` (UTF-8 bytes of an
    Arrow string array) through the hash table ``table`` (``[hash, id]`` pairs, id -1
    empty). New strings are appended to ``name_data`` (``name_offsets[j]`` .. ``[j+1]``
    bound name ``j``). Stops, as :func:`encode_int_hash`, when a new string finds the
    name offsets or the name bytes full."""
    mask = table.shape[0] // 2 - 1
    n = count[0]
    cap = name_offsets.shape[0] - 1
    room = name_data.shape[0]
    given = rows.shape[0] > 0
    status[0] = DONE
    for i in range(offsets.shape[0] - 1):
        a = np.int64(offsets[i])
        b = np.int64(offsets[i + 1])
        h = _bytes_hash(data, a, b)
        s = h & mask
        while True:
            g = table[2 * s + 1]
            if g < 0:
                end = name_offsets[n] + (b - a)
                if n == cap or end > room:
                    status[0] = i
                    count[0] = n
                    return
                g = n
                table[2 * s] = h
                table[2 * s + 1] = n
                p = name_offsets[n]
                for q in range(a, b):
                    name_data[p] = data[q]
                    p += 1
                name_offsets[n + 1] = end
                first[n] = rows[i] if given else row0 + i
                n += 1
                break
            if table[2 * s] == h:
                c = name_offsets[g]
                if name_offsets[g + 1] - c == b - a:
                    same = True
                    for q in range(b - a):
                        if name_data[c + q] != data[a + q]:
                            same = False
                            break
                    if same:
                        break
            s = (s + 1) & mask
        out[i] = g
    count[0] = n


@kernel
def rehash_strs(name_offsets, name_data, n, table):
    """Insert names ``0 .. n-1`` (distinct) of the names buffer into an empty table."""
    mask = table.shape[0] // 2 - 1
    for j in range(n):
        h = _bytes_hash(name_data, name_offsets[j], name_offsets[j + 1])
        s = h & mask
        while table[2 * s + 1] >= 0:
            s = (s + 1) & mask
        table[2 * s] = h
        table[2 * s + 1] = j


@kernel
def dictionary_codes(indices, local, order, first):
    """Find the dictionary entries a chunk's indices use that have no id yet
    (``local[d] == -1``; entries with an id are >= 0): they go to ``order`` by first
    appearance, the row each first occurs at to ``first``, and ``local[d]`` is set to
    -2 (seen). Returns how many; the caller interns them and writes their ids to
    ``local``, then maps the indices through it (:func:`remap`)."""
    n = 0
    for i in range(indices.shape[0]):
        d = indices[i]
        if local[d] == -1:
            local[d] = -2
            order[n] = d
            first[n] = i
            n += 1
    return n


@kernel
def remap(codes, table, out):
    """``out[i] = table[codes[i]]`` for codes ``>= 0`` (``out`` may be ``codes`` itself;
    unsigned indices: no negative-index fix-up per read, 1.7x NumPy's ``table[codes]``
    on 3.6M codes into a table of 1M)."""
    for i in range(np.uint64(codes.shape[0])):
        out[i] = table[np.uint64(codes[i])]


@kernel
def merge_by_key(keys, starts, heads, order):
    """Merge the runs ``keys[starts[c]:starts[c+1]]`` (each increasing, all keys
    distinct) into ``order``: positions in ``keys`` by increasing key. ``heads`` is
    scratch of ``len(starts) - 1`` entries."""
    k = starts.shape[0] - 1
    for c in range(k):
        heads[c] = starts[c]
    for p in range(order.shape[0]):
        best = -1
        for c in range(k):
            if heads[c] < starts[c + 1] and (best < 0 or keys[heads[c]] < keys[heads[best]]):
                best = c
        order[p] = heads[best]
        heads[best] += 1


@kernel
def encode_direct_rows(cols, outs, table, lo, names, count):
    """Ids of the int columns ``cols`` (a tuple, equal lengths) read row by row (row
    ``i`` of every column before row ``i + 1``) through a direct table, as
    :func:`encode_direct`; ``outs`` (a tuple) gets each column's ids."""
    k = len(cols)
    n = count[0]
    for i in range(cols[0].shape[0]):
        for c in range(k):
            v = np.int64(cols[c][i])
            u = np.uint64(v - lo)  # (unsigned: no negative-index fix-up)
            g = np.int64(table[u])
            if g < 0:
                g = n
                table[u] = n
                names[n] = v
                n += 1
            outs[c][i] = g
    count[0] = n


@kernel
def encode_int_hash_rows(cols, outs, table, names, count, status, ring):
    """Ids of the int columns ``cols`` read row by row through the hash table, as
    :func:`encode_int_hash`. Stops before a row when ``names`` has no room for all its
    values: ``status[0]`` = that row, else :data:`DONE`.

    ``ring`` (int64, the number of columns times a power of two R of rows) holds the
    slots of the next rows: row ``i + R/2``'s slots are computed and their cache lines
    prefetched while row ``i`` is resolved, so the table's cache misses overlap."""
    k = len(cols)
    mask = table.shape[0] // 2 - 1
    n = count[0]
    cap = names.shape[0]
    m = cols[0].shape[0]
    rows = ring.shape[0] // k
    rmask = rows - 1
    ahead = rows // 2
    for i in range(min(ahead, m)):
        for c in range(k):
            s = _int_hash(np.int64(cols[c][i])) & mask
            ring[(i & rmask) * k + c] = s
            prefetch_row(table, 2 * s)
    status[0] = DONE
    for i in range(m):
        j = i + ahead
        if j < m:
            for c in range(k):
                s = _int_hash(np.int64(cols[c][j])) & mask
                ring[(j & rmask) * k + c] = s
                prefetch_row(table, 2 * s)
        if n + k > cap:
            status[0] = i
            break
        for c in range(k):
            v = np.int64(cols[c][i])
            s = ring[(i & rmask) * k + c]
            while True:
                g = table[2 * s + 1]
                if g < 0:
                    g = n
                    table[2 * s] = v
                    table[2 * s + 1] = n
                    names[n] = v
                    n += 1
                    break
                if table[2 * s] == v:
                    break
                s = (s + 1) & mask
            outs[c][i] = g
    count[0] = n


#: an empty slot of the string table (its id field)
EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
_SHORT = 16
_LOW16 = np.uint64(0xFFFF)


@inline_kernel
def _key(h, length):
    """A string table slot's key: the hash's high bits and the length (capped)."""
    return (np.uint64(h) & ~_LOW16) | np.uint64(min(length, 0xFFFF))


@inline_kernel
def _short_words(data, a, b):
    """The bytes ``data[a:b]`` of a name of at most 16 bytes as two little-endian words,
    zero-padded."""
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    if b - a >= 8:
        w0 = _word(data, np.int64(a))
        if b - a > 8:
            w1 = _tail(data, a + 8, b) if b - a < 16 else _word(data, np.int64(a + 8))
    elif b > a:
        w0 = _tail(data, a, b)
    return w0, w1


@kernel
def encode_str_rows(offsets, datas, outs, table, records, count, status, ring):
    """Ids of the Arrow string columns (``offsets``, ``datas``: tuples of each column's
    offsets and UTF-8 bytes, read in place; equal lengths) read row by row, in order of
    first appearance, into ``outs`` (a tuple).

    ``table`` (uint64): a power of two of 32-byte slots ``[key, id, w0, w1]`` (id
    :data:`EMPTY`: an empty slot), kept at most half full (linear probing from the
    hash's low bits). ``key`` holds the hash's high bits and the length; a name of at
    most 16 bytes lives in the slot itself (``w0``, ``w1``: its bytes as two
    little-endian words, zero-padded), so a lookup reads one slot, one cache line; a
    longer name's slot holds ``w0`` = its position in ``records``. ``records``
    (uint64) holds every name once, in id order: ``[length, words...]`` (the names'
    output, the long names' check and the table's rehash). ``count`` = [names, record
    words used, name bytes]. Stops before a row whose names might not fit (the table
    would pass half full, or ``records`` is short): ``status[0]`` = that row (the caller
    grows the buffers, :func:`rehash_records`, and goes on from there), else
    :data:`DONE`.

    ``ring`` (int64, the number of columns times a power of two R of rows) holds the
    hashes of the rows ahead: row ``i + R/2``'s are computed and their slots prefetched
    while row ``i`` is resolved, so the cache misses of many rows overlap."""
    k = len(outs)
    mask = table.shape[0] // 4 - 1
    cap = table.shape[0] // 8
    room = records.shape[0]
    n = count[0]
    used = count[1]
    nbytes = count[2]
    m = outs[0].shape[0]
    rows = ring.shape[0] // k
    rmask = rows - 1
    far = rows // 2
    for i in range(min(far, m)):
        for c in range(k):
            h = _str_hash(datas[c], np.int64(offsets[c][i]), np.int64(offsets[c][i + 1]))
            ring[(i & rmask) * k + c] = h
            prefetch_row(table, 4 * (h & mask))
    status[0] = DONE
    for i in range(m):
        j = i + far
        if j < m:
            for c in range(k):
                h = _str_hash(datas[c], np.int64(offsets[c][j]), np.int64(offsets[c][j + 1]))
                ring[(j & rmask) * k + c] = h
                prefetch_row(table, 4 * (h & mask))
        need = 0
        for c in range(k):
            need += 1 + (np.int64(offsets[c][i + 1]) - np.int64(offsets[c][i]) + 7) // 8
        if n + k > cap or used + need > room:
            status[0] = i
            break
        for c in range(k):
            data = datas[c]
            a = np.int64(offsets[c][i])
            b = np.int64(offsets[c][i + 1])
            length = b - a
            h = ring[(i & rmask) * k + c]
            key = _key(h, length)
            short = length <= _SHORT
            w0, w1 = _short_words(data, a, b) if short else (np.uint64(0), np.uint64(0))
            s = h & mask
            while True:
                e = 4 * s
                if table[e + 1] == EMPTY:
                    g = n
                    table[e] = key
                    table[e + 1] = np.uint64(n)
                    if short:
                        table[e + 2] = w0
                        table[e + 3] = w1
                    else:
                        table[e + 2] = np.uint64(used)
                    records[used] = np.uint64(length)
                    q = used + 1
                    p = a
                    while p + 8 <= b:
                        records[q] = _word(data, np.int64(p))
                        q += 1
                        p += 8
                    if p < b:
                        records[q] = _tail(data, p, b)
                        q += 1
                    used = q
                    nbytes += length
                    n += 1
                    break
                if table[e] == key:
                    if short:
                        if table[e + 2] == w0 and table[e + 3] == w1:
                            g = np.int64(table[e + 1])
                            break
                    else:
                        r = np.int64(table[e + 2])
                        same = records[r] == np.uint64(length)
                        q = r + 1
                        p = a
                        while same and p + 8 <= b:
                            same = records[q] == _word(data, np.int64(p))
                            q += 1
                            p += 8
                        if same and p < b:
                            same = records[q] == _tail(data, p, b)
                        if same:
                            g = np.int64(table[e + 1])
                            break
                s = (s + 1) & mask
            outs[c][i] = g
    count[0] = n
    count[1] = used
    count[2] = nbytes


@kernel
def rehash_records(records, n, table):
    """Insert the ``n`` names of ``records`` (:func:`encode_str_rows`) into an empty
    table."""
    mask = table.shape[0] // 4 - 1
    r = 0
    for j in range(n):
        length = np.int64(records[r])
        h = _words_hash(records, r + 1, length)
        s = h & mask
        while table[4 * s + 1] != EMPTY:
            s = (s + 1) & mask
        e = 4 * s
        table[e] = _key(h, length)
        table[e + 1] = np.uint64(j)
        if length <= _SHORT:
            table[e + 2] = records[r + 1] if length > 0 else np.uint64(0)
            table[e + 3] = records[r + 2] if length > 8 else np.uint64(0)
        else:
            table[e + 2] = np.uint64(r)
        r += 1 + (length + 7) // 8


@kernel
def records_to_strings(records, n, offsets, data):
    """The ``n`` names of ``records`` as Arrow string buffers: ``offsets`` (n + 1) and
    ``data`` (the caller sizes both)."""
    r = 0
    p = 0
    offsets[0] = 0
    for j in range(n):
        length = np.int64(records[r])
        for t in range(length):
            data[p + t] = np.uint8((records[r + 1 + t // 8] >> np.uint64(8 * (t % 8)))
                                   & np.uint64(255))
        p += length
        offsets[j + 1] = p
        r += 1 + (length + 7) // 8


# ----------------------------------------------------------------------------------
# Radix-partitioned interning of integer ids (large inputs, sparse ids)
#
# A hash table of a million players (16 bytes a slot, kept half full: 32 MB) misses
# every cache level on every id. Instead the ids are split by the top bits of their
# hash into P partitions (one streaming pass writes each id's hash and position to its
# partition's run), and each partition is numbered on its own with a table small
# enough for the L1/L2 cache; its distinct hashes and the position where each first
# occurs are kept. The global ids by first appearance are then the ranks of those
# first positions (a bitmap of the positions and a running count of its bits), and a
# last pass in row order reads each id's code back from its partition's run. The hash
# (splitmix64) is a bijection, so equal hashes are equal ids and the names are the
# inverted hashes of the distinct ones. The names already known to the encoder go
# first (positions 0 .. n-1), so they keep their ids.

#: how far ahead in its run (codes) the gather prefetches a partition's next cache
#: line: the hardware follows a few streams, not a thousand runs (2.3x faster here; the
#: same for the scatter's writes was 2x slower)
_AHEAD = 64
_S30 = np.uint64(30)
_TWO = np.uint64(2)
_FOUR = np.uint64(4)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S6 = np.uint64(6)
_B63 = np.uint64(63)
#: the inverses (mod 2^64) of the splitmix64 multipliers
_INV1 = np.uint64(pow(int(MIX1), -1, 2**64))
_INV2 = np.uint64(pow(int(MIX2), -1, 2**64))


@inline_kernel
def _unshift(y, s):
    """The x with ``x ^ (x >> s) == y`` (s >= 22: three rounds cover 64 bits)."""
    x = y ^ (y >> s)
    x = y ^ (x >> s)
    return y ^ (x >> s)


@inline_kernel
def _unmix(h):
    """The inverse of :func:`_mix` (splitmix64's finaliser is a bijection)."""
    z = _unshift(h, _S31) * _INV2
    z = _unshift(z, _S27) * _INV1
    return _unshift(z, _S30)


if numba.config.DISABLE_JIT:  # pragma: no cover - the same on Python ints
    def _unshift(y, s):  # noqa: F811
        y, s = int(y), int(s)
        x = y ^ (y >> s)
        x = y ^ (x >> s)
        return y ^ (x >> s)

    def _unmix(h):  # noqa: F811
        z = (_unshift(h, 31) * int(_INV2)) & MASK64
        z = (_unshift(z, 27) * int(_INV1)) & MASK64
        return np.uint64(_unshift(z, 30))


@inline_kernel
def _popcount(w):
    """The number of set bits of a uint64."""
    w = w - ((w >> np.uint64(1)) & np.uint64(0x5555555555555555))
    w = (w & np.uint64(0x3333333333333333)) + ((w >> np.uint64(2)) & np.uint64(0x3333333333333333))
    w = (w + (w >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((w * np.uint64(0x0101010101010101)) >> np.uint64(56))


#: sub-histograms of the partition counts, taken in turn: consecutive ids of one
#: partition no longer wait on each other's increment in memory (2x faster counting;
#: a power of two)
_SUB_COUNTS = 4
_SUB_MASK = _SUB_COUNTS - 1


@inline_kernel
def _sub_counts(n_parts):
    """Zeroed scratch of :data:`_SUB_COUNTS` histograms of ``n_parts`` partitions."""
    return np.zeros((_SUB_COUNTS, n_parts), dtype=np.int64)


@inline_kernel
def _fold_counts(sub, counts):
    """``counts[p] +=`` the sub-histograms' counts of partition ``p``."""
    for p in range(counts.shape[0]):
        t = 0
        for s in range(_SUB_COUNTS):
            t += sub[s, p]
        counts[p] += t


@kernel
def partition_counts(pre, cols, shift, counts):
    """Add to ``counts[p]`` the ids of ``pre`` and of the columns ``cols`` (row by row)
    whose hash has top bits ``p`` (``hash >> shift``)."""
    sub = _sub_counts(counts.shape[0])
    for j in range(pre.shape[0]):
        sub[j & _SUB_MASK, _mix(np.uint64(pre[j])) >> shift] += 1
    k = len(cols)
    for i in range(cols[0].shape[0]):
        for c in range(k):
            sub[(i * k + c) & _SUB_MASK, _mix(np.uint64(np.int64(cols[c][i]))) >> shift] += 1
    _fold_counts(sub, counts)


@kernel
def partition_scatter(pre, cols, base, shift, cursor, hashes, pos):
    """Write each id's hash and position (``pre`` first: 0 .. len(pre)-1, then the
    columns row by row from ``base``) to the next place of its partition's run
    (``cursor[p]``: where run ``p`` goes on, advanced)."""
    for j in range(pre.shape[0]):
        h = _mix(np.uint64(pre[j]))
        p = h >> shift
        q = cursor[p]
        hashes[q] = np.int64(h)
        pos[q] = j
        cursor[p] = q + 1
    k = len(cols)
    for i in range(cols[0].shape[0]):
        for c in range(k):
            h = _mix(np.uint64(np.int64(cols[c][i])))
            p = h >> shift
            q = cursor[p]
            hashes[q] = np.int64(h)
            pos[q] = base + i * k + c
            cursor[p] = q + 1


@inline_kernel
def _run_slots(big, run):
    """The table slots for a partition's run of ``run`` keys: 1024 (or ``big``, the
    scratch's size, when smaller), doubled up to twice the run, at most 4096 or
    ``big`` (the table doubles further when half full)."""
    slots = 1024 if big > 1024 else big
    while slots < big and slots < 2 * run and slots < 4096:
        slots *= 2
    return slots


@kernel
def partition_intern(hashes, pos, starts, p0, p1, table, dhash, first, dbase, count,
                     status):
    """Number each partition's run ``hashes[starts[p]:starts[p+1]]`` (partitions ``p0``
    to ``p1 - 1``) in its order: a partition's distinct hashes go to ``dhash`` from
    ``dbase[p]`` (= ``count[0]`` then), the position of each one's first occurrence to
    ``first``, and ``pos[q]`` is overwritten with the partition's code of ``hashes[q]``.
    ``table`` (int64 scratch, [hash, code + 1] pairs, 0 empty) is a power of two of
    slots big enough for the largest run twice over; a partition starts with a small
    table, doubled when half full. Stops before a partition that might not fit
    ``dhash``: ``status[0]`` = that partition, else :data:`DONE`."""
    n = count[0]
    cap = dhash.shape[0]
    big = table.shape[0] // 2
    status[0] = DONE
    for p in range(p0, p1):
        a = starts[p]
        b = starts[p + 1]
        if n + (b - a) > cap:
            status[0] = p
            break
        dbase[p] = n
        slots = _run_slots(big, b - a)
        mask = np.uint64(slots - 1)
        table[:2 * slots] = 0
        d = 0
        for q in range(np.uint64(a), np.uint64(b)):  # (unsigned indices: no fix-up)
            h = hashes[q]
            s = (np.uint64(h) & mask) << _ONE  # the slot's first word
            while True:
                g = table[s + _ONE]
                if g == 0:
                    table[s] = h
                    table[s + _ONE] = d + 1
                    dhash[np.uint64(n + d)] = h
                    first[np.uint64(n + d)] = pos[q]
                    g = d
                    d += 1
                    break
                if table[s] == h:
                    g -= 1
                    break
                s = ((s + _TWO) & (mask << _ONE))
            pos[q] = g
            if 2 * d > slots:  # half full: twice the slots, the hashes again
                slots *= 2
                mask = np.uint64(slots - 1)
                table[:2 * slots] = 0
                for e in range(d):
                    h = dhash[n + e]
                    s = np.int64(np.uint64(h) & mask)
                    while table[2 * s + 1] != 0:
                        s = np.int64((np.uint64(s) + _ONE) & mask)
                    table[2 * s] = h
                    table[2 * s + 1] = e + 1
        n += d
    count[0] = n


@kernel
def first_ranks(first, n, bits, before, gid):
    """``gid[j]`` = the rank of ``first[j]`` among ``first[:n]`` (distinct positions
    below ``64 * len(bits)``): a bitmap of the positions and the count of set bits
    before each word (``bits`` zeros, ``before`` scratch of the same length)."""
    for j in range(n):
        p = np.uint64(first[j])
        bits[p >> _S6] |= _ONE << (p & _B63)
    acc = 0
    for w in range(bits.shape[0]):
        before[w] = acc
        acc += _popcount(bits[w])
    for j in range(n):
        p = np.uint64(first[j])
        w = p >> _S6
        gid[j] = before[w] + _popcount(bits[w] & ((_ONE << (p & _B63)) - _ONE))


@kernel
def partition_localize(codes, starts, p0, p1, dbase, gid):
    """The codes of partitions ``p0`` to ``p1 - 1`` (``codes[starts[p]:starts[p+1]]``)
    to the global ids ``gid[dbase[p] + code]``, in place, partition by partition (the
    ``gid`` reads stay in a small range: one random read per id over all of ``gid``
    ran 4x slower)."""
    for p in range(p0, p1):
        base = dbase[p]
        for q in range(np.uint64(starts[p]), np.uint64(starts[p + 1])):  # (unsigned:
            codes[q] = gid[np.uint64(base + codes[q])]  # no negative-index fix-up)


@kernel
def partition_gather(pre, cols, shift, cursor, codes, outs):
    """The ids of the columns in row order: each id's partition (its hash's top bits)
    and the next id of that partition's run (``cursor[p]``: the start of run ``p``,
    advanced; the ``pre`` ids are skipped over)."""
    for j in range(pre.shape[0]):
        cursor[_mix(np.uint64(pre[j])) >> shift] += 1
    k = len(cols)
    for i in range(np.uint64(cols[0].shape[0])):  # (unsigned: no index fix-up)
        for c in range(k):
            p = _mix(np.uint64(np.int64(cols[c][i]))) >> shift
            q = cursor[p]
            cursor[p] = q + 1
            prefetch_row(codes, q + _AHEAD)
            outs[c][i] = codes[np.uint64(q)]


@kernel
def ranked_names(dhash, n, gid, names):
    """``names[gid[j]]`` = the id whose hash is ``dhash[j]``, for ``j < n``."""
    for j in range(n):
        names[gid[j]] = np.int64(_unmix(np.uint64(dhash[j])))


# ----------------------------------------------------------------------------------
# Radix-partitioned interning of string ids (large calls)
#
# The same partitions, ranks and gather as the integer ids above, on a 16-byte key of
# each name written into the partition's run: a name of at most 15 bytes is its own
# key (its bytes as two little-endian words, zero-padded, the length in the top byte
# of the second word: equal keys are equal names, compared inside the partition where
# the run and its table are in the cache); a longer name's key is its 64-bit hash
# (masked by ``hmask``: all ones except in tests that force collisions) and the top
# byte 0xFF with the length, and equal keys are confirmed by comparing the bytes at
# the two positions. Positions: 0 .. n0-1 the names known so far (``pre_off``,
# ``pre_data``: their Arrow buffers), then ``n0 + i * k + c`` row ``i`` of column
# ``c``. Each id's partition is kept (one byte or two) for the scatter and the gather.

_SHORT_KEY = 15
_S56 = np.uint64(56)
_LONG_TAG = np.uint64(0xFF) << np.uint64(56)


@inline_kernel
def _name_key(data, a, b, hmask):
    """(k0, k1, h): the partition key of the name ``data[a:b]`` and its 64-bit hash
    (the partition: its top bits; the slot: its low bits)."""
    length = b - a
    if length <= _SHORT_KEY:
        w0, w1 = _short_words(data, a, b)
        k1 = w1 | (np.uint64(length) << _S56)
        return w0, k1, _mix(_step(_step(_SEED, w0), k1))
    h = _start(length)
    p = a
    while p + 8 <= b:
        h = _step(h, _word(data, np.int64(p)))
        p += 8
    if p < b:
        h = _step(h, _tail(data, p, b))
    h = _mix(h) & hmask
    return h, _LONG_TAG | np.uint64(length), h


@inline_kernel
def _slot_hash(k0, k1):
    """The hash whose low bits pick a key's slot in its partition's table (two rounds
    of :func:`_step`'s multiply-xorshift; the partition came from other bits)."""
    return _step(k0, k1 * _K)


if numba.config.DISABLE_JIT:  # pragma: no cover - the same on Python ints
    def _slot_hash(k0, k1):  # noqa: F811
        return _step(k0, np.uint64((int(k1) * int(_K)) & MASK64))


@inline_kernel
def _span(pre_off, pre_data, offsets, datas, n0, k, q):
    """(column, start, end) of the name at position ``q`` (column -1: the known names)."""
    if q < n0:
        return -1, np.int64(pre_off[q]), np.int64(pre_off[q + 1])
    r = q - n0
    i = r // k
    c = r - i * k
    return c, np.int64(offsets[c][i]), np.int64(offsets[c][i + 1])


@inline_kernel
def _same_bytes(x, a, y, b, length):
    """``x[a:a+length] == y[b:b+length]``."""
    t = 0
    while t + 8 <= length:
        if _word(x, np.int64(a + t)) != _word(y, np.int64(b + t)):
            return False
        t += 8
    if t < length:
        return _tail(x, a + t, a + length) == _tail(y, b + t, b + length)
    return True


@inline_kernel
def _same_names(pre_off, pre_data, offsets, datas, n0, k, q1, q2):
    """Whether the names at positions ``q1`` and ``q2`` are equal."""
    c1, a1, b1 = _span(pre_off, pre_data, offsets, datas, n0, k, q1)
    c2, a2, b2 = _span(pre_off, pre_data, offsets, datas, n0, k, q2)
    if b1 - a1 != b2 - a2:
        return False
    x = pre_data if c1 < 0 else datas[c1]
    y = pre_data if c2 < 0 else datas[c2]
    return _same_bytes(x, a1, y, a2, b1 - a1)


@kernel
def str_partition_counts(pre_off, pre_data, offsets, datas, base, hmask, shift, part,
                         keys, counts):
    """Each name's partition (its hash's top bits, ``hash >> shift``) to ``part`` and
    its key ``[k0, k1]`` (:func:`_name_key`) to ``keys[2 q]``, ``keys[2 q + 1]``, at
    its position ``q`` (the known names first when ``pre_off`` has any, from 0; the
    columns' rows by row from ``base``), and ``counts[p]`` += the names of partition
    ``p``. (The keys written here in row order, the scatter only moves them: reading
    the names' bytes while scattering to the runs ran 2.3x slower, one thread.)"""
    sub = _sub_counts(counts.shape[0])
    for j in range(pre_off.shape[0] - 1):
        k0, k1, h = _name_key(pre_data, np.int64(pre_off[j]), np.int64(pre_off[j + 1]),
                              hmask)
        p = h >> shift
        part[j] = p
        keys[_TWO * np.uint64(j)] = k0
        keys[_TWO * np.uint64(j) + _ONE] = k1
        sub[j & _SUB_MASK, p] += 1
    k = len(offsets)
    for i in range(offsets[0].shape[0] - 1):
        for c in range(k):
            k0, k1, h = _name_key(datas[c], np.int64(offsets[c][i]),
                                  np.int64(offsets[c][i + 1]), hmask)
            p = h >> shift
            q = base + i * k + c
            part[q] = p
            keys[_TWO * np.uint64(q)] = k0  # (unsigned: no negative-index fix-up)
            keys[_TWO * np.uint64(q) + _ONE] = k1
            sub[q & _SUB_MASK, p] += 1
    _fold_counts(sub, counts)


@kernel
def str_partition_scatter(keys, n_pre, base, n, part, cursor, recs, pos):
    """Each name's key (``keys``, from :func:`str_partition_counts`) and its position
    (``pos``) to the next place of its partition's run (``cursor[p]``: where run ``p``
    goes on, advanced): the positions ``0 .. n_pre - 1`` (the known names), then
    ``base .. base + n - 1``."""
    for e in range(n_pre):
        _scatter_key(keys, e, part, cursor, recs, pos)
    for e in range(base, base + n):
        _scatter_key(keys, e, part, cursor, recs, pos)


@inline_kernel
def _scatter_key(keys, e, part, cursor, recs, pos):
    """Move the key at position ``e`` to its partition's run (unsigned indices: no
    negative-index fix-up)."""
    u = np.uint64(e)
    p = part[u]
    q = cursor[p]
    w = _TWO * np.uint64(q)
    recs[w] = keys[_TWO * u]
    recs[w + _ONE] = keys[_TWO * u + _ONE]
    pos[np.uint64(q)] = e
    cursor[p] = q + 1


@kernel
def str_partition_intern(recs, pos, starts, p0, p1, table, dk0, dk1, first, dbase,
                         count, status, pre_off, pre_data, offsets, datas, n0):
    """:func:`partition_intern` on the keys of :func:`str_partition_scatter`: a
    partition's distinct names go to ``dk0``, ``dk1`` (keys) and ``first`` (position of
    the first occurrence) from ``dbase[p]``, ``pos[q]`` becomes the partition's code.
    ``table`` (uint64 scratch, slots of [k0, k1, code + 1, -], 0 empty). Keys of long
    names that match are confirmed on the bytes (a mismatch probes on)."""
    k = len(offsets)
    n = count[0]
    cap = dk0.shape[0]
    big = table.shape[0] // 4
    status[0] = DONE
    for p in range(p0, p1):
        a = starts[p]
        b = starts[p + 1]
        if n + (b - a) > cap:
            status[0] = p
            break
        dbase[p] = n
        slots = _run_slots(big, b - a)
        mask = np.uint64(slots - 1)
        table[:4 * slots] = 0
        d = 0
        wmask = mask << _TWO  # word offsets of the slots (unsigned: no index fix-up)
        for q in range(np.uint64(a), np.uint64(b)):
            k0 = recs[_TWO * q]
            k1 = recs[_TWO * q + _ONE]
            s = (_slot_hash(k0, k1) & mask) << _TWO
            while True:
                g = np.int64(table[s + _TWO])
                if g == 0:
                    table[s] = k0
                    table[s + _ONE] = k1
                    table[s + _TWO] = np.uint64(d + 1)
                    dk0[np.uint64(n + d)] = k0
                    dk1[np.uint64(n + d)] = k1
                    first[np.uint64(n + d)] = pos[q]
                    g = d
                    d += 1
                    break
                if table[s] == k0 and table[s + _ONE] == k1:
                    if k1 < _LONG_TAG or _same_names(pre_off, pre_data, offsets, datas, n0,
                                                     k, np.int64(pos[q]), first[n + g - 1]):
                        g -= 1
                        break
                s = (s + _FOUR) & wmask
            pos[q] = g
            if 2 * d > slots:  # half full: twice the slots, the keys again
                slots *= 2
                mask = np.uint64(slots - 1)
                table[:4 * slots] = 0
                for e in range(d):
                    k0 = dk0[n + e]
                    k1 = dk1[n + e]
                    s = np.int64(_slot_hash(k0, k1) & mask)
                    while table[4 * s + 2] != 0:
                        s = np.int64((np.uint64(s) + _ONE) & mask)
                    table[4 * s] = k0
                    table[4 * s + 1] = k1
                    table[4 * s + 2] = np.uint64(e + 1)
        n += d
    count[0] = n


@kernel
def partition_gather_parts(part, pre, base, k, cursor, codes, outs):
    """The ids of the columns in row order, as :func:`partition_gather`, the partitions
    read from ``part`` (from ``part[base]``, row by row) instead of hashed again; the
    ``pre`` known names (``part[:pre]``) are skipped over."""
    for j in range(pre):
        cursor[part[j]] += 1
    for i in range(outs[0].shape[0]):
        for c in range(k):
            p = part[np.uint64(base + i * k + c)]  # (unsigned: no index fix-up)
            q = cursor[p]
            cursor[p] = q + 1
            prefetch_row(codes, q + _AHEAD)
            outs[c][i] = codes[np.uint64(q)]


@kernel
def positions_to_records(positions, offsets, datas, n0, records, count):
    """Append the names at ``positions`` (of the columns, as :func:`_span`; none of the
    known names) to ``records`` (:func:`encode_str_rows`) in order: ``count`` = [names,
    record words used, name bytes], updated. ``records`` of length 0: only the words
    needed are counted (returned)."""
    k = len(offsets)
    used = count[1]
    need = 0
    for j in range(positions.shape[0]):
        r = positions[j] - n0
        i = r // k
        c = r - i * k
        need += 1 + (np.int64(offsets[c][i + 1]) - np.int64(offsets[c][i]) + 7) // 8
    if records.shape[0] == 0:
        return need
    nbytes = count[2]
    for j in range(positions.shape[0]):
        r = positions[j] - n0
        i = r // k
        c = r - i * k
        data = datas[c]
        a = np.int64(offsets[c][i])
        b = np.int64(offsets[c][i + 1])
        records[used] = np.uint64(b - a)
        q = used + 1
        p = a
        while p + 8 <= b:
            records[q] = _word(data, np.int64(p))
            q += 1
            p += 8
        if p < b:
            records[q] = _tail(data, p, b)
            q += 1
        used = q
        nbytes += b - a
    count[0] += positions.shape[0]
    count[1] = used
    count[2] = nbytes
    return need
