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

``ρ``: Lanczos on ``Ã`` (random start, full reorthogonalisation, to a converged Ritz
value) plus a 10% + 0.001 margin, capped by the rigorous ``ρ <= trace(Ã⁴)^(1/4)``.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from fastrate._numba import kernel

#: the Lanczos estimate of ρ is multiplied by this and RHO_PAD added (a margin for the
#: Ritz value's approach from inside the spectrum)
RHO_MARGIN, RHO_PAD = 1.10, 1e-3
#: above this ρ the series is not tried (its bound would not be useful)
RHO_MAX = 0.9
#: Lanczos: at most this many steps; converged when the largest |Ritz value| moved by
#: less than LANCZOS_RTOL (relative) over the last 3 steps
LANCZOS_STEPS, LANCZOS_RTOL = 80, 1e-5
#: conjugate gradients on I - Ã: relative residual
CG_RTOL, CG_MAX = 1e-13, 500
#: players per tile side of the two-hop pass (a 640 x 640 tile of A² is 3.3 MB, in the
#: shared cache; 512 was 10% slower, 1024 50% on the bench), at most MAX_TILES blocks
#: (so the block-start table stays n x 129)
TILE, MAX_TILES = 640, 128


@kernel
def _symmetric_csr(n, pw, pb, mxx, offsets, nbr, wt, tmp_row, tmp_nbr, tmp_wt, count):
    """The symmetric weight graph of the pairs with ``mxx > 0``, each row sorted by
    neighbour and repeated neighbours merged (their weights added): ``offsets`` (n + 1,
    zeroed), ``nbr``, ``wt``; two stable counting sorts (by neighbour, then by row) of the
    entries of both directions. Returns the number of entries."""
    m = pw.shape[0]
    for p in range(m):
        if mxx[p] > 0.0:
            count[pb[p] + 1] += 1
            count[pw[p] + 1] += 1
    for i in range(n):
        count[i + 1] += count[i]
    for p in range(m):  # by neighbour: entry (row pw -> nbr pb) and (pb -> pw)
        if mxx[p] > 0.0:
            k = count[pb[p]]
            tmp_row[k] = pw[p]
            tmp_nbr[k] = pb[p]
            tmp_wt[k] = mxx[p]
            count[pb[p]] += 1
            k = count[pw[p]]
            tmp_row[k] = pb[p]
            tmp_nbr[k] = pw[p]
            tmp_wt[k] = mxx[p]
            count[pw[p]] += 1
    total = count[n - 1] if n > 0 else 0
    for k in range(total):  # stable by row
        offsets[tmp_row[k] + 1] += 1
    for i in range(n):
        offsets[i + 1] += offsets[i]
    pos = offsets[:n].copy()
    for k in range(total):
        i = tmp_row[k]
        nbr[pos[i]] = tmp_nbr[k]
        wt[pos[i]] = tmp_wt[k]
        pos[i] += 1
    # merge repeated neighbours in place
    out = 0
    start = 0
    for i in range(n):
        end = offsets[i + 1]
        offsets[i] = out
        for e in range(start, end):
            if out > offsets[i] and nbr[out - 1] == nbr[e]:
                wt[out - 1] += wt[e]
            else:
                nbr[out] = nbr[e]
                wt[out] = wt[e]
                out += 1
        start = end
    offsets[n] = out
    return out


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
def _normalise(offsets, nbr, wt, s, a):
    """``a = w_ij / (s_i s_j)``: the entries of ``A``."""
    for i in range(offsets.shape[0] - 1):
        for e in range(offsets[i], offsets[i + 1]):
            a[e] = wt[e] / (s[i] * s[nbr[e]])


@kernel
def _apply(offsets, nbr, a, x, out):
    """``out = A x`` row by row."""
    for i in range(offsets.shape[0] - 1):
        t = 0.0
        for e in range(offsets[i], offsets[i + 1]):
            t += a[e] * x[nbr[e]]
        out[i] = t


@kernel
def _apply_many(offsets, nbr, a, x, out):
    """``out = A x`` for the ``k`` columns of ``x`` (``n x k``, row-major): one pass over
    the graph for all of them."""
    k = x.shape[1]
    for i in range(offsets.shape[0] - 1):
        for c in range(k):
            out[i, c] = 0.0
        for e in range(offsets[i], offsets[i + 1]):
            j = nbr[e]
            w = a[e]
            for c in range(k):
                out[i, c] += w * x[j, c]


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
def _columns(offsets, nbr, a, ids, y, z):
    """Dense rows ``y[r] = A e_i``, ``z[r] = A² e_i`` for ``i = ids[r]`` (zeroed on
    entry)."""
    for r in range(ids.shape[0]):
        i = ids[r]
        for e in range(offsets[i], offsets[i + 1]):
            y[r, nbr[e]] += a[e]
        for j in range(y.shape[1]):
            yj = y[r, j]
            if yj != 0.0:
                for e in range(offsets[j], offsets[j + 1]):
                    z[r, nbr[e]] += a[e] * yj


@kernel
def _gram(offsets, nbr, a, ids, y, z, p1, p2, p3, p4):
    """``(A^k)_ij`` for ``i, j`` in ``ids``, ``k = 1..4``: ``A_ij``, ``y_i . y_j``,
    ``y_i . z_j`` (row ``i`` of ``A`` is ``y_i``'s sparse form), ``z_i . z_j`` (a fixed
    order, and no multithreaded BLAS, which spins badly on a busy machine)."""
    k = ids.shape[0]
    n = y.shape[1]
    for r in range(k):
        i = ids[r]
        for c in range(k):
            t2 = 0.0
            t3 = 0.0
            for e in range(offsets[i], offsets[i + 1]):
                t2 += a[e] * y[c, nbr[e]]
                t3 += a[e] * z[c, nbr[e]]
            p1[r, c] = y[r, ids[c]]
            p2[r, c] = t2
            p3[r, c] = t3
        c = r
        while c < k:  # four columns at a time: each pass over z[r] serves four
            t0 = 0.0
            t1 = 0.0
            t2 = 0.0
            t3 = 0.0
            c1 = min(c + 1, k - 1)
            c2 = min(c + 2, k - 1)
            c3 = min(c + 3, k - 1)
            for ll in range(n):
                zr = z[r, ll]
                t0 += zr * z[c, ll]
                t1 += zr * z[c1, ll]
                t2 += zr * z[c2, ll]
                t3 += zr * z[c3, ll]
            p4[r, c] = p4[c, r] = t0
            p4[r, c1] = p4[c1, r] = t1
            p4[r, c2] = p4[c2, r] = t2
            p4[r, c3] = p4[c3, r] = t3
            c += 4


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
    #: ``G w`` for the gauge ``w`` (see :func:`add_parameters`)
    gw: np.ndarray | None = None

    def apply(self, v: np.ndarray) -> np.ndarray:
        """``(I - Ã) v``."""
        out = np.empty_like(v)
        _apply(self.offsets, self.nbr, self.a, v, out)
        return v - out + self.u * float(self.u @ v)

    def deflated(self, v: np.ndarray) -> np.ndarray:
        """``Ã v``."""
        out = np.empty_like(v)
        _apply(self.offsets, self.nbr, self.a, v, out)
        return out - self.u * float(self.u @ v)

    def apply_many(self, v: np.ndarray) -> np.ndarray:
        """``(I - Ã) v`` for the columns of ``v`` (``n x k``)."""
        out = np.empty_like(v)
        _apply_many(self.offsets, self.nbr, self.a, v, out)
        return v - out + np.outer(self.u, self.u @ v)

    def solve(self, b: np.ndarray) -> tuple[np.ndarray, float]:
        """``G b`` (``= D^-1/2 (I - Ã)^-1 D^-1/2 b``) for the columns of ``b`` (``n x k``)
        by conjugate gradients on ``I - Ã``, one recurrence per column sharing each pass
        over the graph, and the largest bound ``|y - y*| / |y|`` on a normalised solution's
        relative error (``|r| / (1 - ρ)``, from the true residual); NaN if CG did not reach
        its tolerance."""
        rhs = np.ascontiguousarray(b / self.s[:, None])
        k = rhs.shape[1]
        y = np.zeros_like(rhs)
        r = rhs.copy()
        p = r.copy()
        rr = np.einsum("ij,ij->j", r, r)
        goal = CG_RTOL * np.sqrt(rr)
        for _ in range(CG_MAX):
            if np.all(np.sqrt(rr) <= goal):
                break
            q = self.apply_many(p)
            pq = np.einsum("ij,ij->j", p, q)
            alpha = np.where(pq > 0.0, rr / np.where(pq > 0.0, pq, 1.0), 0.0)
            y += alpha * p
            r -= alpha * q
            rr_new = np.einsum("ij,ij->j", r, r)
            beta = np.where(rr > 0.0, rr_new / np.where(rr > 0.0, rr, 1.0), 0.0)
            p = r + beta * p
            rr = rr_new
        # the recursive residual drifts from the true one: bound with the true one
        true = rhs - self.apply_many(y)
        res = np.sqrt(np.einsum("ij,ij->j", true, true))
        ynorm = np.sqrt(np.einsum("ij,ij->j", y, y))
        err = np.where(ynorm > 0.0, res / (1.0 - self.rho) / np.where(ynorm > 0.0, ynorm,
                                                                        1.0), 0.0)
        ok = bool(np.all(res <= 1e3 * np.maximum(goal, 1e-300))) or k == 0
        return y / self.s[:, None], (float(err.max(initial=0.0)) if ok else math.nan)


def _lanczos(st: Structure, seed: int = 20261128) -> float:
    """The largest ``|eigenvalue|`` of ``Ã`` (Ritz values of a Lanczos run with full
    reorthogonalisation from a fixed random start)."""
    n = st.n
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n)
    v -= st.u * float(st.u @ v)
    v /= np.linalg.norm(v)
    basis = np.empty((LANCZOS_STEPS + 1, n))
    basis[0] = v
    alpha, beta = [], []
    history: list[float] = []
    for k in range(LANCZOS_STEPS):
        w = st.deflated(basis[k])
        alpha.append(float(w @ basis[k]))
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)  # full reorthogonalisation, twice
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)
        b = float(np.linalg.norm(w))
        t = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
        ritz = np.linalg.eigvalsh(t)
        history.append(float(max(abs(ritz[0]), abs(ritz[-1]))))
        if b <= 1e-12 * max(history[-1], 1e-300):  # an invariant subspace: exact
            break
        if len(history) >= 4 and abs(history[-1] - history[-4]) <= LANCZOS_RTOL * history[-1]:
            break
        beta.append(b)
        basis[k + 1] = w / b
    return history[-1]


def structure(n: int, pw: np.ndarray, pb: np.ndarray, mxx: np.ndarray, diag: np.ndarray,
              project: bool) -> Structure | None:
    """The normalised graph of the players' information block (``diag``: its diagonal,
    prior precision included); ``None`` where the series does not apply (a negative pair
    curvature, a player without information)."""
    if n < 3 or not np.all(mxx >= 0.0) or not np.all(diag > 0.0):
        return None
    offsets = np.zeros(n + 1, dtype=np.int64)
    cap = 2 * int(np.count_nonzero(mxx > 0.0))
    nbr = np.empty(cap, dtype=np.int64)
    wt = np.empty(cap)
    nnz = _symmetric_csr(n, pw, pb, mxx, offsets, nbr, wt, np.empty(cap, dtype=np.int64),
                         np.empty(cap, dtype=np.int64), np.empty(cap),
                         np.zeros(n + 1, dtype=np.int64))
    nbr, wt = nbr[:nnz], wt[:nnz]
    s = np.sqrt(diag)
    a = np.empty(nnz)
    _normalise(offsets, nbr, wt, s, a)
    u = s / np.linalg.norm(s) if project else np.zeros(n)
    st = Structure(n, offsets, nbr, a, s, u, math.nan, math.nan, np.zeros((n, 0)),
                   np.zeros((0, 0)), 0.0)
    st.rho_lanczos = _lanczos(st)
    st.rho = min(1.0, RHO_MARGIN * st.rho_lanczos + RHO_PAD)
    return st


def diagonal_moments(st: Structure, workers: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A²)_ii``, ``(A³)_ii``, ``(A⁴)_ii`` for every player: the tiles of
    :func:`_tile_moments` split over ``workers`` threads (default ``numba.get_num_threads()``; each player's sums
    in a fixed order: the same bits for any number of threads)."""
    if workers is None:
        import numba

        workers = numba.get_num_threads()
    n = st.n
    m2, m3, m4 = np.empty(n), np.empty(n), np.empty(n)
    _row_squares(st.offsets, st.a, m2)
    size = max(TILE, -(-n // MAX_TILES))
    nb = -(-n // size)
    pos = np.empty((nb + 1, n), dtype=np.int64)
    _block_starts(st.offsets, st.nbr, size, pos)
    nbr32 = st.nbr.astype(np.int32)  # the graph is read n / size times: fewer bytes
    tiles = [(bi, bl) for bi in range(nb) for bl in range(bi, nb)]
    workers = max(1, min(workers, len(tiles)))
    chunks = [tiles[k::workers] for k in range(workers)]
    part3, part4 = np.empty((nb, n)), np.empty((nb, n))

    def run(mine: list[tuple[int, int]]) -> None:
        zt = np.empty(size * size)
        for bi, bl in mine:
            _tile_moments(nbr32, st.a, pos, size, bi, bl, zt, part3, part4)

    if workers == 1:
        run(chunks[0])
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(run, chunks))
    m3[:] = part3.sum(axis=0)  # every (block, player) slot written once: fixed order
    m4[:] = part4.sum(axis=0)
    return m2, m3, m4


def add_parameters(st: Structure, h_ptheta: np.ndarray, h_thetatheta: np.ndarray,
                   w: np.ndarray | None = None) -> bool:
    """The Schur complement of the fitted parameters: ``x = G H_pθ`` (``n x k``),
    ``S^-1 = (H_θθ - H_pθ^T x)^-1``; with the gauge ``w`` also ``G w`` (``st.gw``), in the
    same solve. False if a solve failed."""
    k = h_ptheta.shape[1]
    rhs = h_ptheta if w is None else np.column_stack([h_ptheta, w])
    sol, err = st.solve(rhs)
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
    y = np.zeros((k, st.n))
    z = np.zeros((k, st.n))
    _columns(st.offsets, st.nbr, st.a, ids.astype(np.int64), y, z)
    uu = np.outer(st.u[ids], st.u[ids])
    p1, p2, p3, p4 = (np.empty((k, k)) for _ in range(4))
    _gram(st.offsets, st.nbr, st.a, ids.astype(np.int64), y, z, p1, p2, p3, p4)
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
