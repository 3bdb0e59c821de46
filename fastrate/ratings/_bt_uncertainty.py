"""Standard errors and likelihood of superiority of a batch Bradley-Terry fit from a
truncated Neumann series with a certified remainder (issue 12; the maths is in
docs/algorithms/bradley_terry.md, "Fast exact errors").

The players' block of the observed information is ``H = D - W`` (``D`` its diagonal,
``W >= 0`` the summed pair curvatures ``mxx`` between two players). With ``s = sqrt(D)``,
``A = D^-1/2 W D^-1/2`` and ``u = s / |s|`` (``A u = u`` when the level of the ratings is
free; ``u = 0`` with a Gaussian prior, where ``H`` is invertible), ``Ã = A - u u^T`` and
``M = D^1/2 (I - Ã) D^1/2 = H + d d^T / sum(d)`` (``d = D 1``): ``G = M^-1`` is a
generalized inverse of ``H``, so every contrast's variance ``c^T H^+ c = c^T G c``. With
``ρ`` the spectral radius of ``Ã``,

    (I - Ã)^-1 = I + Ã + Ã² + Ã³ + Ã² (I - Ã)^-1 Ã²,

and the last term's quadratic form in ``v`` lies in ``[q / (1 + ρ), q / (1 - ρ)]`` with
``q = |Ã² v|²``: its midpoint ``q / (1 - ρ²)`` is used, and its half-width ``q ρ / (1 -
ρ²)`` bounds the error. ``Ã^k = A^k - u u^T`` (k >= 1), and the diagonals of ``A²``,
``A³``, ``A⁴`` come from each player's two-hop column ``A² e_i`` (deg² work per player).
A fitted advantage / draw parameter ``θ`` enters through the Schur complement (Woodbury):
``Σ = G + X S^-1 X^T``, ``X = G H_pθ`` (conjugate gradients), ``S = H_θθ - H_pθ^T X``
(``S^-1``: the covariance of ``θ``).

``ρ``: Lanczos on ``Ã`` (a start near the level and the ratings' spread plus a random
part, full reorthogonalisation, to a converged Ritz
value) plus a 10% + 0.001 margin, capped by the rigorous ``ρ <= trace(Ã⁴)^(1/4)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._threads import run_chunks, run_each

#: the Lanczos estimate of ρ is multiplied by this and RHO_PAD added (a margin for the
#: Ritz value's approach from inside the spectrum)
RHO_MARGIN, RHO_PAD = 1.10, 1e-3
#: above this ρ the series is not tried (its bound would not be useful)
RHO_MAX = 0.9
#: Lanczos: at most this many steps; converged when the largest |Ritz value| moved by
#: less than LANCZOS_RTOL (relative) over the last 3 steps
LANCZOS_STEPS, LANCZOS_RTOL = 80, 1e-5
#: the random part's weight in the Lanczos start (against each unit guess)
LANCZOS_RANDOM = 0.3
#: conjugate gradients on I - Ã: relative residual
CG_RTOL, CG_MAX = 1e-8, 500
#: the products with ``A`` are split over threads (rows in chunks of equal entries) when
#: each thread gets at least this many entries
MIN_ENTRIES_PER_THREAD = 200_000
#: players per tile side of the two-hop pass (a 640 x 640 tile of A² is 3.3 MB, in the
#: shared cache; 512 was 10% slower, 1024 50% on the bench), at most MAX_TILES blocks
#: (so the block-start table stays n x 129)
TILE, MAX_TILES = 640, 128
#: graphs of up to this many players store their neighbours as uint16 (else int32)
NARROW_NEIGHBOURS_MAX = 1 << 16
#: columns of the two-hop rows per tile of their Gram matrix (256 x 100 players' rows:
#: 200 KB, in the core's own cache)
GRAM_TILE = 256


@kernel
def _pairs_sorted(pw, pb):
    """True if the pairs are in ``(pw, pb)`` order (as :func:`condense` leaves them)."""
    for p in range(1, pw.shape[0]):
        if pw[p] < pw[p - 1] or (pw[p] == pw[p - 1] and pb[p] < pb[p - 1]):
            return False
    return True


@kernel
def _csr_counts(pw, pb, mxx, p0, p1, tcount, dcount):
    """For the pairs ``p0 <= p < p1``: ``tcount[r]`` += the pairs with ``pb = r`` and
    ``mxx > 0`` (row ``r``'s transposed entries), ``dcount[r]`` += those with ``pw = r``
    (its own pairs, a slice: the pairs are in ``(pw, pb)`` order)."""
    for p in range(np.uint64(p0), np.uint64(p1)):  # (unsigned: no index fix-up)
        if mxx[p] > 0.0:
            tcount[np.uint64(pb[p])] += 1
        dcount[np.uint64(pw[p])] += 1


@kernel
def _csr_transpose(pw, pb, mxx, p0, p1, cursor, tnbr, twt):
    """The transposed entries of the pairs ``p0 <= p < p1`` with ``mxx > 0``, scattered
    by row in pair order: ``cursor[r]`` is the next slot of row ``r`` (advanced)."""
    for p in range(np.uint64(p0), np.uint64(p1)):  # (unsigned: no index fix-up)
        if mxx[p] > 0.0:
            r = np.uint64(pb[p])
            k = cursor[r]
            tnbr[np.uint64(k)] = pw[p]
            twt[np.uint64(k)] = mxx[p]
            cursor[r] = k + 1


@kernel
def _csr_merge(r0, r1, out, pb, mxx, s, tstart, dstart, tnbr, twt, offsets, nbr, a):
    """Rows ``r0 <= r < r1`` of the normalised symmetric graph, written from entry
    ``out``: row ``r`` is the merge of two sorted runs, its own pairs
    (``dstart[r]:dstart[r + 1]``, ascending ``pb``) and its transposed entries
    (``tstart[r]:tstart[r + 1]``, ascending ``pw``); repeated neighbours are merged
    (weights added in that order), then each entry is normalised,
    ``A_ij = W_ij / (s_i s_j)``. Sets ``offsets[r0:r1]``; returns the end."""
    for r in range(r0, r1):
        offsets[r] = out
        i = tstart[r]
        i_end = tstart[r + 1]
        j = dstart[r]
        j_end = dstart[r + 1]
        sr = s[r]
        while True:
            while j < j_end and not mxx[j] > 0.0:
                j += 1
            if i < i_end and (j >= j_end or tnbr[i] <= pb[j]):
                c = np.int64(tnbr[i])
                w = twt[i]
                i += 1
            elif j < j_end:
                c = pb[j]
                w = mxx[j]
                j += 1
            else:
                break
            if out > offsets[r] and nbr[out - 1] == c:
                a[out - 1] += w
            else:
                if out > offsets[r]:  # the previous neighbour is complete: normalise
                    a[out - 1] = a[out - 1] / (sr * s[nbr[out - 1]])
                nbr[out] = c
                a[out] = w
                out += 1
        if out > offsets[r]:
            a[out - 1] = a[out - 1] / (sr * s[nbr[out - 1]])
    return out


def neighbour_dtype(n: int) -> type:
    """The neighbour numbers' type for ``n`` players: ``uint16`` up to
    NARROW_NEIGHBOURS_MAX players, else ``int32``. Each pass over the graph reads a
    neighbour and a weight per entry: 2 + 8 bytes instead of 4 + 8 (the Lanczos and CG
    passes are bandwidth bound; 5% off a cold LOS of 10,000 players). The kernels give
    the same bits with either type."""
    return np.uint16 if n <= NARROW_NEIGHBOURS_MAX else np.int32


def _symmetric_csr(n: int, pw: np.ndarray, pb: np.ndarray, mxx: np.ndarray, s: np.ndarray,
                   workers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The normalised symmetric graph ``A_ij = W_ij / (s_i s_j)`` of the pairs with
    ``mxx > 0`` (``W_ij``: the summed ``mxx`` of the pairs of ``i`` and ``j`` in either
    order; the pairs in ``(pw, pb)`` order, see :func:`_pairs_sorted`): ``(offsets,
    nbr, a)``, ``nbr`` sorted and unique per row (:func:`neighbour_dtype`). Counts and the transposed
    scatter split the pairs over ``workers`` threads (each thread's share of a row
    after the earlier threads': pair order), the merge splits the rows (the later
    rows written after the most the earlier ones can take, moved down if repeated
    neighbours left a gap): the same entries in the same order for any split."""
    m = pw.shape[0]
    w = max(1, min(workers, m // MIN_ENTRIES_PER_THREAD))
    cuts = [m * t // w for t in range(w + 1)]
    tcount = np.zeros((w, n), dtype=np.int64)
    dcount = np.zeros((w, n), dtype=np.int64)
    run_each([partial(_csr_counts, pw, pb, mxx, cuts[t], cuts[t + 1], tcount[t], dcount[t])
              for t in range(w)])
    tstart = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tcount.sum(axis=0), out=tstart[1:])
    dstart = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(dcount.sum(axis=0), out=dstart[1:])
    cursors = tstart[:-1] + np.cumsum(tcount, axis=0) - tcount  # thread t after 0..t-1
    half = int(tstart[-1])
    tnbr = np.empty(half, dtype=neighbour_dtype(n))
    twt = np.empty(half)
    run_each([partial(_csr_transpose, pw, pb, mxx, cuts[t], cuts[t + 1], cursors[t], tnbr,
                      twt) for t in range(w)])
    ub = tstart + dstart  # the most entries rows 0 .. r-1 can have
    cap = int(ub[-1])
    offsets = np.zeros(n + 1, dtype=np.int64)
    nbr = np.empty(cap, dtype=neighbour_dtype(n))
    a = np.empty(cap)
    rows = [0] + [int(np.searchsorted(ub, cap * t // w)) for t in range(1, w)] + [n]
    ends = np.zeros(w, dtype=np.int64)

    def merge(t: int) -> None:
        ends[t] = _csr_merge(rows[t], rows[t + 1], int(ub[rows[t]]), pb, mxx, s, tstart,
                             dstart, tnbr, twt, offsets, nbr, a)

    run_each([partial(merge, t) for t in range(w)])
    out = int(ends[0])
    for t in range(1, w):  # close the gaps that repeated neighbours left
        start, size = int(ub[rows[t]]), int(ends[t] - ub[rows[t]])
        if start != out:
            nbr[out:out + size] = nbr[start:start + size]  # (NumPy buffers the overlap)
            a[out:out + size] = a[start:start + size]
            offsets[rows[t]:rows[t + 1]] -= start - out
        out += size
    offsets[n] = out
    return offsets, nbr[:out], a[:out]  # views: repeated neighbours are rare in large data


@kernel
def _block_starts(offsets, nbr, size, pos):
    """``pos[b, j]``: the first entry of row ``j`` with neighbour ``>= b * size``
    (``pos[-1, j]`` the row's end; block-major, so a tile reads two contiguous rows)."""
    nb = pos.shape[0] - 1
    for j in range(offsets.shape[0] - 1):
        e = offsets[j]
        for b in range(nb):
            while e < offsets[j + 1] and nbr[e] < b * size:
                e += 1
            pos[b, j] = e
        pos[nb, j] = offsets[j + 1]


@kernel
def _apply(offsets, nbr, a, x, out, r0, r1):
    """``out[i] = (A x)_i`` for the rows ``r0 <= i < r1`` (each row's sum in entry order:
    the same bits however the rows are split over threads)."""
    for i in range(r0, r1):
        t = 0.0
        for e in range(np.uint64(offsets[i]), np.uint64(offsets[i + 1])):
            t += a[e] * x[np.uint64(nbr[e])]
        out[i] = t


@kernel
def _apply_four(offsets, nbr, a, x, out, r0, r1):
    """``out = A x`` for the four columns of ``x`` (``n x 4``, row-major, flattened) and
    the rows ``r0 <= i < r1``: one pass over the graph, four sums in registers (one
    gather of a 32-byte row per entry; four columns cost little more than one).
    Unsigned indices into the flat rows: no negative-index fix-up per load (20% faster
    than 2-D indexing on the bench), the same sums."""
    four = np.uint64(4)
    one = np.uint64(1)
    two = np.uint64(2)
    three = np.uint64(3)
    for i in range(r0, r1):
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        for e in range(np.uint64(offsets[i]), np.uint64(offsets[i + 1])):
            b = np.uint64(nbr[e]) * four
            w = a[e]
            t0 += w * x[b]
            t1 += w * x[b + one]
            t2 += w * x[b + two]
            t3 += w * x[b + three]
        o = np.uint64(i) * four
        out[o] = t0
        out[o + one] = t1
        out[o + two] = t2
        out[o + three] = t3


@kernel
def _tile_moments(nbr, a, pos, size, bi, bl, zt, m3, m4):
    """One tile of the sparse product ``Z = A²`` (rows of block ``bi``, columns of block
    ``bl >= bi``), accumulated row ``j`` by row ``j`` of ``A`` (``Z[i, l] += A_ji A_jl``:
    the outer product of row ``j``'s two segments; the tile ``zt`` stays in cache and every
    row of ``A`` is read once per tile, not once per neighbour). Writes the tile's row
    sums ``sum_l Z_il²``, ``sum_l A_il Z_il`` to ``m4[bl, i]``, ``m3[bl, i]`` and, ``Z``
    being symmetric, its column sums to ``m4[bi, l]``, ``m3[bi, l]`` (``bl > bi``): each
    slot written by one tile, in a fixed order."""
    n = pos.shape[1]
    i0 = bi * size
    i1 = min(i0 + size, n)
    l0 = bl * size
    l1 = min(l0 + size, n)
    for k in range(size * size):
        zt[k] = 0.0
    for j in range(n):
        s_i = pos[bi, j]
        e_i = pos[bi + 1, j]
        if s_i == e_i:
            continue
        s_l = pos[bl, j]
        e_l = pos[bl + 1, j]
        for p in range(s_i, e_i):
            base = (np.int64(nbr[p]) - i0) * size - l0  # zt is flat: row r at r * size
            ap = a[p]
            for q in range(s_l, e_l):
                zt[base + np.int64(nbr[q])] += ap * a[q]
    for i in range(i0, i1):
        o = (i - i0) * size
        t4 = 0.0
        for c in range(l1 - l0):
            t4 += zt[o + c] * zt[o + c]
        t3 = 0.0
        for p in range(pos[bl, i], pos[bl + 1, i]):
            t3 += a[p] * zt[o + np.int64(nbr[p]) - l0]
        m4[bl, i] = t4
        m3[bl, i] = t3
    if bl > bi:
        for c in range(l1 - l0):
            m4[bi, l0 + c] = 0.0
        for r in range(i1 - i0):
            o = r * size
            for c in range(l1 - l0):
                m4[bi, l0 + c] += zt[o + c] * zt[o + c]
        for ll in range(l0, l1):
            c = ll - l0
            t3 = 0.0
            for p in range(pos[bi, ll], pos[bi + 1, ll]):
                t3 += a[p] * zt[(np.int64(nbr[p]) - i0) * size + c]
            m3[bi, ll] = t3


@kernel
def _row_squares(offsets, a, m2):
    """``(A²)_ii = sum_j A_ij²`` (rows merged: one entry per neighbour)."""
    for i in range(offsets.shape[0] - 1):
        t = 0.0
        for e in range(offsets[i], offsets[i + 1]):
            t += a[e] * a[e]
        m2[i] = t


@kernel
def _columns(offsets, nbr, a, ids, z, r0, r1):
    """Dense rows ``z[r] = A² e_i`` (``i = ids[r]``, ``r0 <= r < r1``; zeroed on entry):
    ``sum_j A_ij A_j.`` over row ``i``'s neighbours ``j`` in order."""
    for r in range(r0, r1):
        i = ids[r]
        zr = z[r]
        for e in range(np.uint64(offsets[i]), np.uint64(offsets[i + 1])):  # (unsigned:
            w = a[e]  # no negative-index fix-up)
            j = np.uint64(nbr[e])
            for f in range(np.uint64(offsets[j]), np.uint64(offsets[j + 1])):
                zr[np.uint64(nbr[f])] += w * a[f]


@kernel
def _entry(offsets, nbr, a, i, j):
    """``A_ij`` (row ``i``'s neighbours are sorted and unique: a binary search)."""
    lo = offsets[i]
    hi = offsets[i + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if nbr[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    return a[lo] if lo < offsets[i + 1] and nbr[lo] == j else 0.0


@kernel
def _gram(offsets, nbr, a, ids, z, p1, p2, p3, p4, r0, r1):
    """Rows ``r0 <= r < r1`` of ``(A^k)_ij`` for ``i, j`` in ``ids``, ``k = 1..4``:
    ``A_ij``, ``z_i[j]``, ``A_i. z_j`` (row ``i`` of ``A`` against ``z_j``), ``z_i . z_j``
    (``p4``: row ``r`` fills ``p4[r, c]`` and ``p4[c, r]`` for ``c >= r``, so rows split
    over threads write disjoint slots; a fixed order, and no multithreaded BLAS, which
    spins badly on a busy machine).

    ``z_i . z_j`` goes through ``z`` in tiles of GRAM_TILE columns, transposed into a
    small buffer that stays in cache: each row ``r`` adds its products to ``p4[r, c]``
    for all ``c >= r`` at once (a loop over ``c`` that vectorises, no reduction), so
    every sum still runs over ``l`` in order from 0: the bits of a plain dot product."""
    k = ids.shape[0]
    n = z.shape[1]
    for r in range(r0, r1):
        i = ids[r]
        for c in range(k):
            t3 = 0.0
            zc = z[c]
            for e in range(np.uint64(offsets[i]), np.uint64(offsets[i + 1])):
                t3 += a[e] * zc[np.uint64(nbr[e])]  # (unsigned: no index fix-up)
            p1[r, c] = _entry(offsets, nbr, a, i, ids[c])
            p2[r, c] = z[r, ids[c]]
            p3[r, c] = t3
        for c in range(r, k):
            p4[r, c] = 0.0
    buf = np.empty((GRAM_TILE, k))
    for l0 in range(0, n, GRAM_TILE):
        width = min(GRAM_TILE, n - l0)
        for c in range(r0, k):
            for t in range(width):
                buf[t, c] = z[c, l0 + t]
        for r in range(r0, r1):
            row = p4[r]
            for t in range(width):
                zr = buf[t, r]
                col = buf[t]
                for c in range(np.uint64(r), np.uint64(k)):  # unsigned: no wraparound
                    row[c] += zr * col[c]  # test, so the loop vectorises
    for r in range(r0, r1):
        for c in range(r + 1, k):
            p4[c, r] = p4[r, c]


def _workers(workers: int | None) -> int:
    """``workers``, default ``numba.get_num_threads()``."""
    if workers is None:
        import numba

        return numba.get_num_threads()
    return int(workers)


def row_splits(offsets: np.ndarray, workers: int | None = None) -> np.ndarray:
    """Row boundaries ``0 = r_0 < ... < r_w = n`` cutting the graph's entries into
    ``w`` chunks of about equal size, ``w`` at most ``workers`` (default
    ``numba.get_num_threads()``) and at most one per MIN_ENTRIES_PER_THREAD entries."""
    n, nnz = offsets.shape[0] - 1, int(offsets[-1])
    w = max(1, min(_workers(workers), nnz // MIN_ENTRIES_PER_THREAD, n))
    cuts = np.searchsorted(offsets, np.arange(1, w) * (nnz / w)).astype(np.int64)
    return np.unique(np.concatenate([[0], np.clip(cuts, 0, n), [n]]).astype(np.int64))


@dataclass
class Structure:
    """The normalised graph of a fit's information: ``A`` in CSR form, ``s = sqrt(D)``,
    the deflation vector ``u`` (zeros with a Gaussian prior), ``ρ`` (with its margin) and
    the Schur complement of the fitted parameters (``x = G H_pθ``, ``s_inv = S^-1``, the
    CG residual bound ``cg_err`` on ``|I - Ã|``-scaled solutions, relative)."""

    n: int
    offsets: np.ndarray
    nbr: np.ndarray
    a: np.ndarray
    s: np.ndarray
    u: np.ndarray
    rho: float
    rho_lanczos: float
    x: np.ndarray
    s_inv: np.ndarray
    cg_err: float
    #: ``G w`` for the gauge ``w`` (see :func:`settle`)
    gw: np.ndarray | None = None
    #: the rows' split over threads for the products with ``A`` (:func:`row_splits`)
    splits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def _rows(self, fn: Any, x: np.ndarray, out: np.ndarray) -> None:
        """Run the row kernel ``fn`` over all rows, the splits' chunks in parallel."""
        run_chunks(fn, (self.offsets, self.nbr, self.a, x, out), self.splits)

    def product(self, v: np.ndarray) -> np.ndarray:
        """``A v`` (one vector, or the columns of an ``n x k`` array)."""
        if v.ndim == 1:
            out = np.empty_like(v)
            self._rows(_apply, np.ascontiguousarray(v), out)
            return out
        n, k = v.shape
        if k <= 4:  # one pass (the Lanczos vector and the solve's directions)
            return self._four(v)[:, :k]
        out = np.empty((n, k))
        for c in range(0, k, 4):  # four columns per pass over the graph
            out[:, c:c + 4] = self._four(v[:, c:c + 4])[:, :min(4, k - c)]
        return out

    def _four(self, v: np.ndarray) -> np.ndarray:
        """``A v`` for up to four columns (``n x 4``; the columns past ``v``'s are
        products of zeros)."""
        n, k = v.shape
        x = np.empty((n, 4))
        x[:, :k] = v
        x[:, k:] = 0.0
        o = np.empty((n, 4))
        self._rows(_apply_four, x.reshape(-1), o.reshape(-1))
        return o

    def apply(self, v: np.ndarray) -> np.ndarray:
        """``(I - Ã) v``."""
        return v - self.product(v) + self.u * float(self.u @ v)

    def deflated(self, v: np.ndarray) -> np.ndarray:
        """``Ã v``."""
        return self.product(v) - self.u * float(self.u @ v)

    def apply_many(self, v: np.ndarray) -> np.ndarray:
        """``(I - Ã) v`` for the columns of ``v`` (``n x k``)."""
        return v - self.product(v) + np.outer(self.u, self.u @ v)

    def solve(self, b: np.ndarray) -> tuple[np.ndarray, float]:
        """``G b`` (``= D^-1/2 (I - Ã)^-1 D^-1/2 b``) for the columns of ``b`` (``n x k``)
        by conjugate gradients (:class:`_Solve`) and the largest bound on a normalised
        solution's relative error; NaN if CG did not reach its tolerance."""
        cg = _Solve(self, b)
        _run(self, None, cg)
        return cg.result()


def lanczos_start(st: Structure, seed: int, guesses: tuple[np.ndarray, ...]) -> np.ndarray:
    """The Lanczos run's unit start: the deflated unit ``guesses`` (directions expected
    near the top eigenvector of ``Ã``; the zero ones left out) plus LANCZOS_RANDOM times a
    deflated unit random vector (seeded), normalised. A random start alone has a part of
    about ``1/sqrt(n)`` along the top eigenvector, and Lanczos needs about
    ``log(n) / log(rate)`` steps to bring it out (15 steps for 10,000 players); the
    random part keeps every direction in the Krylov space when a guess is poor."""
    u = st.u

    def unit(v: np.ndarray) -> np.ndarray:  # zero if (almost) all of v is deflated
        before = float(np.linalg.norm(v))
        v = v - u * float(u @ v)
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 1e-8 * before else np.zeros_like(v)

    v = LANCZOS_RANDOM * unit(np.random.default_rng(seed).standard_normal(st.n))
    for g in guesses:
        v += unit(np.asarray(g, dtype=np.float64))
    return v / np.linalg.norm(v)


class _Lanczos:
    """The largest ``|eigenvalue|`` of ``Ã``: Ritz values of a Lanczos run with full
    reorthogonalisation from :func:`lanczos_start`, one product at a time (``vector``:
    the next vector to multiply by ``A``; :meth:`feed` its product). ``value`` once
    ``done``: the Ritz value after its change over the last 3 steps fell below
    LANCZOS_RTOL (relative), an invariant subspace, or LANCZOS_STEPS steps."""

    def __init__(self, st: Structure, seed: int = 20261128,
                 guesses: tuple[np.ndarray, ...] = ()) -> None:
        self.st = st
        self.basis = np.empty((LANCZOS_STEPS + 1, st.n))
        self.basis[0] = lanczos_start(st, seed, guesses)
        self.k = 0
        self.alpha: list[float] = []
        self.beta: list[float] = []
        self.history: list[float] = []
        self.done = False
        self.value = math.nan

    @property
    def vector(self) -> np.ndarray:
        return self.basis[self.k]

    def feed(self, av: np.ndarray) -> None:
        """One step, given ``A v`` for the current vector ``v``."""
        k, basis, u = self.k, self.basis, self.st.u
        w = av - u * float(u @ basis[k])  # Ã v
        self.alpha.append(float(w @ basis[k]))
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)  # full reorthogonalisation, twice
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)
        b = float(np.linalg.norm(w))
        t = np.diag(self.alpha) + np.diag(self.beta, 1) + np.diag(self.beta, -1)
        ritz = np.linalg.eigvalsh(t)
        h = self.history
        h.append(float(max(abs(ritz[0]), abs(ritz[-1]))))
        if (b <= 1e-12 * max(h[-1], 1e-300)  # an invariant subspace: exact
                or (len(h) >= 4 and abs(h[-1] - h[-4]) <= LANCZOS_RTOL * h[-1])
                or k + 1 == LANCZOS_STEPS):
            self.done, self.value = True, h[-1]
            return
        self.beta.append(b)
        basis[k + 1] = w / b
        self.k = k + 1


class _Solve:
    """``G b`` for the columns of ``b`` (``n x k``) by conjugate gradients on ``I - Ã``
    (normalised: ``y = (I - Ã)^-1 D^-1/2 b``), one recurrence per column, to a relative
    residual CG_RTOL, one product at a time (``vector``: the directions ``p`` to multiply
    by ``A``; :meth:`feed` their product)."""

    def __init__(self, st: Structure, b: np.ndarray) -> None:
        self.st = st
        self.rhs = np.ascontiguousarray(b / st.s[:, None])
        self.y = np.zeros_like(self.rhs)
        self.r = self.rhs.copy()
        self.p = self.r.copy()
        self.rr = np.einsum("ij,ij->j", self.r, self.r)
        self.goal = CG_RTOL * np.sqrt(self.rr)
        self.steps = 0
        self.done = bool(np.all(np.sqrt(self.rr) <= self.goal))

    @property
    def vector(self) -> np.ndarray:
        return self.p

    def feed(self, ap: np.ndarray) -> None:
        """One step, given ``A p``."""
        p, u = self.p, self.st.u
        q = p - ap + np.outer(u, u @ p)  # (I - Ã) p
        pq = np.einsum("ij,ij->j", p, q)
        alpha = np.where(pq > 0.0, self.rr / np.where(pq > 0.0, pq, 1.0), 0.0)
        self.y += alpha * p
        self.r -= alpha * q
        rr_new = np.einsum("ij,ij->j", self.r, self.r)
        beta = np.where(self.rr > 0.0, rr_new / np.where(self.rr > 0.0, self.rr, 1.0), 0.0)
        self.p = self.r + beta * p
        self.rr = rr_new
        self.steps += 1
        self.done = bool(np.all(np.sqrt(self.rr) <= self.goal)) or self.steps >= CG_MAX

    def result(self) -> tuple[np.ndarray, float]:
        """``(G b, the largest bound |y - y*| / |y|)`` (``|r| / (1 - ρ)`` from the true
        residual: the recursive one drifts); NaN if CG did not reach its tolerance."""
        st, y = self.st, self.y
        true = self.rhs - st.apply_many(y)
        res = np.sqrt(np.einsum("ij,ij->j", true, true))
        ynorm = np.sqrt(np.einsum("ij,ij->j", y, y))
        err = np.where(ynorm > 0.0, res / (1.0 - st.rho) / np.where(ynorm > 0.0, ynorm,
                                                                      1.0), 0.0)
        ok = bool(np.all(res <= 1e3 * np.maximum(self.goal, 1e-300))) or y.shape[1] == 0
        return y / st.s[:, None], (float(err.max(initial=0.0)) if ok else math.nan)


def _run(st: Structure, lanczos: _Lanczos | None, solve: _Solve | None) -> None:
    """Step the Lanczos run and the solve to their ends, sharing each pass over the graph
    (:meth:`Structure.product` of their vectors side by side). The solve stops early
    when Lanczos puts ρ at or above RHO_MAX (the series does not apply)."""
    while True:
        lz = lanczos is not None and not lanczos.done
        cg = solve is not None and not solve.done
        if not (lz or cg):
            return
        cols = ([lanczos.vector[:, None]] if lz else []) + ([solve.vector] if cg else [])
        prod = st.product(np.hstack(cols) if cg else lanczos.vector)
        if lz:
            lanczos.feed(prod if prod.ndim == 1 else prod[:, 0])
            if lanczos.done and not RHO_MARGIN * lanczos.value + RHO_PAD < RHO_MAX:
                return
        if cg:
            solve.feed(prod[:, 1:] if lz else prod)


def structure(n: int, pw: np.ndarray, pb: np.ndarray, mxx: np.ndarray, diag: np.ndarray,
              project: bool) -> Structure | None:
    """The normalised graph of the players' information block (``diag``: its diagonal,
    prior precision included); ``None`` where the series does not apply (a negative pair
    curvature, a player without information). ``ρ`` and the fitted parameters come
    from :func:`settle`."""
    if n < 3 or not np.all(mxx >= 0.0) or not np.all(diag > 0.0):
        return None
    if not _pairs_sorted(pw, pb):  # virtual draws or games appended: sort them first
        order = np.lexsort((pb, pw))
        pw, pb, mxx = pw[order], pb[order], mxx[order]
    s = np.sqrt(diag)
    offsets, nbr, a = _symmetric_csr(n, pw, pb, mxx, s, _workers(None))
    u = s / np.linalg.norm(s) if project else np.zeros(n)
    return Structure(n, offsets, nbr, a, s, u, math.nan, math.nan, np.zeros((n, 0)),
                     np.zeros((0, 0)), 0.0, splits=row_splits(offsets))


def diagonal_moments(st: Structure, workers: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A²)_ii``, ``(A³)_ii``, ``(A⁴)_ii`` for every player: the tiles of
    :func:`_tile_moments` split over ``workers`` threads (default ``numba.get_num_threads()``; each player's sums
    in a fixed order: the same bits for any number of threads)."""
    workers = _workers(workers)
    n = st.n
    m2, m3, m4 = np.empty(n), np.empty(n), np.empty(n)
    _row_squares(st.offsets, st.a, m2)
    size = max(TILE, -(-n // MAX_TILES))
    nb = -(-n // size)
    pos = np.empty((nb + 1, n), dtype=np.int64)
    _block_starts(st.offsets, st.nbr, size, pos)
    tiles = [(bi, bl) for bi in range(nb) for bl in range(bi, nb)]
    workers = max(1, min(workers, len(tiles)))
    chunks = [tiles[k::workers] for k in range(workers)]
    part3, part4 = np.empty((nb, n)), np.empty((nb, n))

    def run(mine: list[tuple[int, int]]) -> None:
        zt = np.empty(size * size)
        for bi, bl in mine:
            _tile_moments(st.nbr, st.a, pos, size, bi, bl, zt, part3, part4)

    run_each([partial(run, c) for c in chunks])
    m3[:] = part3.sum(axis=0)  # every (block, player) slot written once: fixed order
    m4[:] = part4.sum(axis=0)
    return m2, m3, m4


def settle(st: Structure, h_ptheta: np.ndarray, h_thetatheta: np.ndarray,
           w: np.ndarray | None = None, rating: np.ndarray | None = None) -> bool:
    """``ρ`` (Lanczos plus the margin) and the Schur complement of the fitted parameters:
    ``x = G H_pθ`` (``n x k``), ``S^-1 = (H_θθ - H_pθ^T x)^-1``; with the gauge ``w`` also
    ``G w`` (``st.gw``). The Lanczos run and the solve share their passes over the graph.
    False if the series does not apply (``ρ >= RHO_MAX``) or a solve failed.

    The Lanczos run starts near the two directions the estimate is least sure of
    (:func:`lanczos_start`): ``s`` (the level, where a Gaussian prior leaves it free to
    move; deflated away otherwise) and ``s * rating`` (the spread of the ``rating``s, when
    given): on 10,000 players and 1M games ``s * rating`` has a part of 0.97 along the top
    eigenvector, and Lanczos converges in 8 steps instead of 15."""
    k = h_ptheta.shape[1]
    rhs = h_ptheta if w is None else np.column_stack([h_ptheta, w])
    lanczos = _Lanczos(st, guesses=(st.s,) if rating is None else (st.s, st.s * rating))
    solve = _Solve(st, rhs) if rhs.shape[1] else None
    _run(st, lanczos, solve)
    st.rho_lanczos = lanczos.value
    st.rho = min(1.0, RHO_MARGIN * st.rho_lanczos + RHO_PAD)
    if not st.rho < RHO_MAX:
        return False
    if solve is None:
        return True
    sol, err = solve.result()
    if not math.isfinite(err):
        return False
    x = np.ascontiguousarray(sol[:, :k])
    if w is not None:
        st.gw = sol[:, k].copy()
    schur = h_thetatheta - h_ptheta.T @ x
    schur = 0.5 * (schur + schur.T)
    if k:
        try:
            st.s_inv = np.linalg.inv(schur)
        except np.linalg.LinAlgError:
            return False
    st.x = x
    st.cg_err = max(st.cg_err, err)
    return True


def variances(st: Structure, w: np.ndarray | None, workers: int | None = None
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(Var(R_i), bound_i)`` in the gauge ``w`` (None: absolute, a Gaussian prior):
    the midpoint of the series' interval and the half-width plus the solves' error
    bound. None if a solve failed."""
    m2, m3, m4 = diagonal_moments(st, workers)
    u2 = st.u * st.u
    q = np.maximum(m4 - u2, 0.0)
    # rigorous: ρ⁴ <= trace(Ã⁴) = sum_i q_i (the Lanczos estimate may only be lowered)
    st.rho = min(st.rho, float(q.sum()) ** 0.25 * (1.0 + 1e-9))
    rho = st.rho
    mid = 1.0 / (1.0 - rho * rho)
    half = rho / (1.0 - rho * rho)
    d = st.s * st.s
    # (I - Ã)^-1_ii: 1 + Ã_ii + Ã²_ii + Ã³_ii + q_i / (1 - ρ²)
    g = (1.0 - u2 + (m2 - u2) + (m3 - u2) + mid * q) / d
    # the series' remainder, and the float64 rounding of the moments: sums of positive
    # terms (A >= 0), at most n + 4 max-degree of them in a row, so a relative error of
    # at most 1.01 (n + 4 deg) 2^-53 on each
    deg = int(np.diff(st.offsets).max())
    rounding = 1.01 * (st.n + 4 * deg) * 2.0 ** -53
    bound = (half * q + rounding * (m2 + m3 + (mid + half) * m4 + 3.0)) / d
    var = g.copy()
    extra = np.zeros(st.n)
    err = st.cg_err
    if w is not None:
        if st.gw is None:
            sol, e = st.solve(w[:, None])
            if not math.isfinite(e):
                return None
            st.gw, err = sol[:, 0], max(err, e)
        gw = st.gw
        wgw = float(w @ gw)
        var += -2.0 * gw + wgw
        extra += 2.0 * np.abs(gw) + abs(wgw)
    if st.x.shape[1]:
        xc = st.x - (w @ st.x if w is not None else 0.0)
        wood = ((xc @ st.s_inv) * xc).sum(axis=1)
        var += wood
        extra += 2.0 * np.abs(wood)
    # first-order error of the solved terms (relative error err of each solution, and of
    # S^-1 through x), with a factor 4
    bound = bound + 4.0 * err * extra
    return var, bound


def difference_variances(st: Structure, ids: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """``Var(R_i - R_j)`` for ``i, j`` in ``ids`` and its error bound: the series on
    ``z = e_i / s_i - e_j / s_j`` from the players' one- and two-hop columns (products of
    ``A e_i`` and ``A² e_i``), remainder ``ρ / (1 - ρ²) |Ã² z|²``."""
    k = ids.shape[0]
    ids = ids.astype(np.int64)
    z = np.zeros((k, st.n))
    workers = max(1, min(_workers(None), k * st.n // MIN_ENTRIES_PER_THREAD))
    # z rows: equal counts; the Gram rows: equal areas of the upper triangle
    run_chunks(_columns, (st.offsets, st.nbr, st.a, ids, z),
               np.linspace(0, k, workers + 1).round().astype(np.int64))
    uu = np.outer(st.u[ids], st.u[ids])
    p1, p2, p3, p4 = (np.empty((k, k)) for _ in range(4))
    tri = k - np.sqrt(np.linspace(1.0, 0.0, workers + 1)) * k
    run_chunks(_gram, (st.offsets, st.nbr, st.a, ids, z, p1, p2, p3, p4),
               np.unique(tri.round().astype(np.int64)))
    p1 = 0.5 * (p1 + p1.T) - uu
    p2 = 0.5 * (p2 + p2.T) - uu
    p3 = 0.5 * (p3 + p3.T) - uu
    p4 = p4 - uu
    sc = 1.0 / st.s[ids]
    rho = st.rho
    mid = 1.0 / (1.0 - rho * rho)
    half = rho / (1.0 - rho * rho)

    def form(p: np.ndarray) -> np.ndarray:
        dg = np.diag(p) * sc * sc
        return dg[:, None] + dg[None, :] - 2.0 * p * np.outer(sc, sc)

    q = np.maximum(form(p4), 0.0)
    var = form(np.eye(k)) + form(p1) + form(p2) + form(p3) + mid * q
    bound = half * q
    extra = np.zeros((k, k))
    if st.x.shape[1]:
        xd = st.x[ids][:, None, :] - st.x[ids][None, :, :]
        wood = ((xd @ st.s_inv) * xd).sum(axis=2)
        var = var + wood
        extra = 2.0 * np.abs(wood)
    bound = bound + 4.0 * st.cg_err * extra
    np.fill_diagonal(var, 0.0)
    np.fill_diagonal(bound, 0.0)
    return var, bound


def se_bound(var: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """The bound on ``|sqrt(var) - sqrt(true)|`` when ``|var - true| <= bound``."""
    lo = np.sqrt(np.maximum(var - bound, 0.0))
    hi = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(lo + hi > 0.0, bound / (lo + hi), np.sqrt(np.maximum(bound, 0.0)))
    return out
