"""Interning player ids: ``PlayerIndex.intern(white, black)`` against the path it replaced
(Arrow's ``dictionary_encode`` over the ids interleaved row by row), on the same input.

Workloads: two columns of ``n`` ids each (2n ids) among ``players`` distinct players,
drawn uniformly:

* ``int_dense`` -- int64 ids 0 .. players-1, shuffled (a direct table);
* ``int_sparse`` -- random 63-bit int64 ids (the hash table);
* ``string`` -- Arrow string columns, names of 4 to 16 ASCII letters;
* ``player_string`` -- names ``player000000`` .. (12 bytes), as Arrow ``string``;
* ``large_string`` -- the same as Arrow ``large_string`` (64-bit offsets);
* ``dict_string`` -- the same as Arrow dictionary arrays (one dictionary of every
  name; Parquet and categoricals come this way): only the dictionary is interned.

Smoke sizes are tiny; ``large``: 50M rows x 2 columns = 100M ids among 1M players;
``large10``: 5M rows x 2 columns = 10M ids among 1M players.
``ids_per_s`` is the throughput (``unit=ids``); ``fastrate_vs_this`` = fastrate's ids/s
over the old path's (results checked equal first); for sparse integer ids,
``one_pass_ids_per_s`` and ``vs_one_pass``: the one-pass hash kernel that large calls
used before the radix partitions (``players.PARTITION_MIN`` raised), in the same run;
for plain strings (``string``, ``player_string``, ``large_string``) the same against
the one-pass string kernel (``players.STR_PARTITION_MIN`` raised);
``extra_bytes_per_id`` = the peak of what interning allocates beyond its outputs
(tracemalloc: NumPy buffers), per id.
Timings are the fastest of several rounds (the machine may be shared).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from bench.conftest import best_time
from fastrate._validate import arrow_to_numpy, numpy_to_arrow
from fastrate.data.players import PlayerIndex

SIZES = {"smoke": (10_000, 2_000), "large10": (5_000_000, 1_000_000),
         "large": (50_000_000, 1_000_000)}


def _names(players: int, rng: np.random.Generator):
    """``players`` distinct names of 4..16 letters, as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = rng.integers(4, 17, 2 * players)
    data = rng.integers(97, 123, int(lengths.sum()), dtype=np.uint8)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    names = pa.Array.from_buffers(pa.string(), len(lengths),
                                  [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    unique = pc.unique(names)
    assert len(unique) >= players
    return unique.slice(0, players)


def workload(kind: str, n: int, players: int, seed: int = 0) -> tuple:
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    rows = [rng.integers(0, players, n) for _ in range(2)]
    if kind == "int_dense":
        pool = rng.permutation(players).astype(np.int64)
        return tuple(pool[r] for r in rows)
    if kind == "int_sparse":
        pool = np.unique(rng.integers(0, 2**63 - 1, players + players // 10))[:players]
        rng.shuffle(pool)
        return tuple(pool[r] for r in rows)
    if kind in ("player_string", "large_string"):
        pool = pa.array([f"player{i:06d}" for i in range(players)],
                        type=pa.large_string() if kind == "large_string" else pa.string())
        return tuple(pool.take(numpy_to_arrow(r)) for r in rows)
    pool = _names(players, rng)
    if kind == "string":
        return tuple(pool.take(numpy_to_arrow(r)) for r in rows)
    return tuple(pa.DictionaryArray.from_arrays(numpy_to_arrow(r.astype(np.int32)), pool)
                 for r in rows)


def old_intern(white, black) -> tuple[np.ndarray, list[np.ndarray]]:
    """The path ``PlayerIndex.intern`` took before the kernels: interleave the rows,
    ``dictionary_encode``, split the indices (dictionary arrays decoded first)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(white, np.ndarray):
        ints = np.empty(2 * len(white), dtype=white.dtype)
        ints[0::2], ints[1::2] = white, black
        joined = numpy_to_arrow(ints)
        del ints
    else:
        cols = [c.dictionary_decode() if pa.types.is_dictionary(c.type) else c
                for c in (white, black)]
        n = len(cols[0])
        joined = pa.concat_arrays(cols).take(
            numpy_to_arrow(np.arange(2 * n).reshape(2, n).T.ravel()))
    enc = pc.dictionary_encode(joined)
    ids = arrow_to_numpy(enc.indices)
    return arrow_to_numpy(enc.dictionary), [ids[c::2].astype(np.int64) for c in range(2)]


def peak_extra_bytes(fn, outputs_bytes: int) -> int:
    """Peak NumPy allocation during ``fn()`` beyond ``outputs_bytes``."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return max(peak - outputs_bytes, 0)


@pytest.mark.parametrize("kind", ["int_dense", "int_sparse", "string", "player_string",
                                  "large_string", "dict_string"])
@pytest.mark.parametrize("size", ["smoke", pytest.param("large10", marks=pytest.mark.large),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_intern(throughput, kind: str, size: str) -> None:
    n, players = SIZES[size]
    white, black = workload(kind, n, players)
    n_ids = 2 * n
    index, (wi, bi) = PlayerIndex.intern(white, black)
    names, (wo, bo) = old_intern(white, black)
    assert np.array_equal(index.names, names) and np.array_equal(wi, wo) \
        and np.array_equal(bi, bo), "kernel path and old path disagree"
    del names, wo, bo, wi, bi
    throughput.info.update(size=size, kind=kind, players=players, unit="ids")
    large = size != "smoke"
    throughput(lambda: PlayerIndex.intern(white, black), n_ids, rounds=3 if large else None)
    if not throughput.enabled:
        return
    outputs = n_ids * 8 + len(index) * (8 if kind.startswith("int") else 0)
    extra = peak_extra_bytes(lambda: PlayerIndex.intern(white, black), outputs)
    throughput.info["extra_bytes_per_id"] = extra / n_ids
    old = best_time(lambda: old_intern(white, black), 2 if large else 5)
    throughput.info["old_ids_per_s"] = n_ids / old
    throughput.info["fastrate_vs_this"] = throughput.info["games_per_s"] / (n_ids / old)
    if kind in ("int_sparse", "string", "player_string", "large_string"):
        from fastrate.data import players

        name = "PARTITION_MIN" if kind == "int_sparse" else "STR_PARTITION_MIN"
        saved = getattr(players, name)
        setattr(players, name, 1 << 62)
        try:
            one = best_time(lambda: PlayerIndex.intern(white, black), 3 if large else 5)
        finally:
            setattr(players, name, saved)
        throughput.info["one_pass_ids_per_s"] = n_ids / one
        throughput.info["vs_one_pass"] = throughput.info["games_per_s"] / (n_ids / one)
